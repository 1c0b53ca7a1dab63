// Declarations of the <shard-lab> element (shard-lab.js). Importing the element's module
// also types `document.createElement('shard-lab')`, `querySelector('shard-lab')` and its
// events; `jsx.d.ts` beside it adds the tag to React's and Vue's JSX.
import type { StatementResult, ClusterEvent, ShardLabErrorShape } from './shardlab.js';

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
  /** The problems reported so far (the latest 50), as the `shardlab-error` events carried them. */
  errors: ShardLabErrorDetail[];
  /** Where the engine runs: in a worker, or in the page where workers are forbidden. */
  engine: 'worker' | 'page' | null;
}

/** A problem the element reports: in `shardlab-error`, in `getState().errors` and on `console.warn`. */
export interface ShardLabErrorDetail extends ShardLabErrorShape {
  /** What it concerns. */
  source: 'attribute' | 'load' | 'statement' | 'script' | 'argument' | 'state';
  /** A statement's line, for `statement`. */
  line: number | null;
}

/** The `detail` of each event the element dispatches (they bubble and are composed). Plain JSON. */
export interface ShardLabEventDetails {
  'shardlab-ready': { steps: number; entries: number };
  'shardlab-step': { step: number; steps: number; entries: StatementResult[] };
  'shardlab-split': ClusterEvent;
  'shardlab-migrate': ClusterEvent;
  'shardlab-play': { step: number };
  'shardlab-pause': { step: number };
  'shardlab-end': { step: number; steps: number };
  'shardlab-error': ShardLabErrorDetail;
}

/** The element's events, typed, for `addEventListener` on it or on any ancestor. */
export type ShardLabEventMap = { [K in keyof ShardLabEventDetails]: CustomEvent<ShardLabEventDetails[K]> };

/** Every attribute, reflected as a property (README, "Embedding": the table of attributes and defaults). */
export interface ShardLabAttributes {
  /** The figure's title. Default `ShardLab`. */
  label: string;
  /** Which parts to draw, comma-separated: cluster, keybar, console, timeline, heatmap, inspector, compare. Default `cluster,console,timeline`. */
  views: string;
  /** `auto` (follows the page's dark mode), `light` or `dark`. Default `auto`. */
  theme: 'auto' | 'light' | 'dark';
  /** `auto` or a CSS length (`320px`, `20rem`). Default `360px`. */
  height: string;
  /** When the engine loads: `lazy` (near the viewport), `eager`, or `click`. Default `lazy`. */
  loading: 'lazy' | 'eager' | 'click';
  /** Where the element opens: `begin` (before the script) or `end` (after it). Default `begin`. */
  start: 'begin' | 'end';
  /** No command line. Default false. */
  readOnly: boolean;
  /** Plays the script once loaded. Default false. */
  autoplay: boolean;
  /** A lesson's id: its cluster, and its workload as the script when the element has none. */
  preset: string | null;
  /** Shards, 1 to the engine's limit. Default 3. */
  shards: number;
  /** The version mode: one of the engine's catalogue (3.6, 5.0, 8.0). Default 8.0. */
  version: string;
  /** The seed of every random choice. Default 1. */
  seed: number;
  /** The chunk size in bytes; the version's default when absent. */
  chunkSize: number | null;
  /** An http(s) address of the script. */
  src: string | null;
  /** Shard keys to compare, separated by `|`. Default `{x: 1} | {x: "hashed"}`. */
  compare: string;
  /** The comparison's workload: monotonic, decreasing or uniform. Default monotonic. */
  compareWorkload: string;
}

/** The element's properties, one per attribute (merged into the class below). */
export interface ShardLabElement extends ShardLabAttributes {}

export declare class ShardLabElement extends HTMLElement {
  /** Resolves with the element once its session is ready; rejects with the reason it failed. */
  readonly ready: Promise<ShardLabElement>;
  /** Whether the session is loaded and drawn. */
  readonly loaded: boolean;
  /** Loads the session now, whatever `loading` says. */
  load(): Promise<ShardLabElement>;
  /** Runs `script` after the last step (one step per statement) and shows its end. */
  run(script: string): Promise<StatementResult[]>;
  play(): Promise<void>;
  pause(): Promise<void>;
  /** Moves `n` steps (back when negative); rejects unless `n` is a whole number. */
  step(n?: number): Promise<void>;
  /** Shows the cluster after the script's `k`th statement (0: before the script). */
  goto(k: number): Promise<void>;
  /** Back to the cluster before the script. */
  reset(): Promise<void>;
  getState(): Promise<ShardLabState>;
  addEventListener<K extends keyof ShardLabEventMap>(
    type: K,
    listener: (this: ShardLabElement, ev: ShardLabEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof ShardLabEventMap>(
    type: K,
    listener: (this: ShardLabElement, ev: ShardLabEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** Every attribute: its name, property, type and default. */
export declare const ATTRIBUTES: readonly {
  name: string;
  prop: string | null;
  type: 'string' | 'number' | 'boolean';
  default: string | number | boolean | null;
  values?: string[];
  session?: boolean;
}[];

/** Turns fenced `mongosh` code blocks and `<pre class="shard-lab">` under `root` into elements (done by itself on load). */
export declare function upgrade(root?: ParentNode): ShardLabElement[];

/** Whether the page around `el` is dark, as documentation generators mark it. */
export declare function pageTheme(el: Element): 'light' | 'dark';

declare global {
  interface HTMLElementTagNameMap {
    'shard-lab': ShardLabElement;
  }
  interface HTMLElementEventMap extends ShardLabEventMap {}
  interface DocumentEventMap extends ShardLabEventMap {}
}
