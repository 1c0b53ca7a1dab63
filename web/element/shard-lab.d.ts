// Declarations of the <shard-lab> element (shard-lab.js).
import type { StatementResult, ClusterEvent } from './shardlab.js';

/** What `getState()` tells. */
export interface ShardLabState {
  state: 'idle' | 'loading' | 'ready' | 'failed';
  /** The step shown, from 0 (before the script). */
  step: number;
  /** The script's steps. */
  steps: number;
  playing: boolean;
  /** The collection drawn. */
  ns: string | null;
  docs: number;
  chunks: number;
  shards: { name: string; chunks: number; docs: number }[];
  /** The entries of the statements run up to the step shown. */
  entries: StatementResult[];
}

/** The `detail` of each event the element dispatches (they bubble and are composed). */
export interface ShardLabEventDetails {
  'shardlab-ready': { steps: number; entries: number };
  'shardlab-step': { step: number; steps: number; entries: StatementResult[] };
  'shardlab-split': ClusterEvent;
  'shardlab-migrate': ClusterEvent;
  'shardlab-error': {
    source: 'attribute' | 'load' | 'statement' | 'script' | 'argument';
    message: string;
    codeName: string;
    line: number | null;
  };
}

export declare class ShardLabElement extends HTMLElement {
  /** Runs `script` as the next steps (one per statement) and shows the end. */
  run(script: string): Promise<StatementResult[]>;
  play(): Promise<void>;
  pause(): Promise<void>;
  /** Moves `n` steps (back when negative). */
  step(n?: number): Promise<void>;
  /** Shows the cluster after the script's `k`th statement (0: before the script). */
  goto(k: number): Promise<void>;
  /** Back to the cluster before the script. */
  reset(): Promise<void>;
  getState(): Promise<ShardLabState>;
  addEventListener<K extends keyof ShardLabEventDetails>(
    type: K,
    listener: (this: ShardLabElement, ev: CustomEvent<ShardLabEventDetails[K]>) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'shard-lab': ShardLabElement;
  }
}
