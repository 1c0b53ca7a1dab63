// The <shard-lab> tag in JSX: `import 'shardlab/jsx'` (or a triple-slash reference) in a
// React or Preact project, and `shardlab/vue` in a Vue one, types its attributes.
import type { ShardLabElement } from './shard-lab.js';

/** The attributes JSX may set on <shard-lab> (each optional; strings as HTML writes them). */
export interface ShardLabJsxAttributes {
  id?: string;
  class?: string;
  className?: string;
  style?: unknown;
  lang?: string;
  label?: string;
  views?: string;
  theme?: 'auto' | 'light' | 'dark';
  height?: string;
  loading?: 'lazy' | 'eager' | 'click';
  start?: 'begin' | 'end';
  readonly?: boolean;
  autoplay?: boolean;
  preset?: string;
  shards?: number | string;
  version?: string;
  seed?: number | string;
  'chunk-size'?: number | string;
  src?: string;
  compare?: string;
  'compare-workload'?: string;
  children?: unknown;
  ref?: unknown;
  key?: string | number;
}

declare global {
  namespace JSX {
    interface IntrinsicElements {
      'shard-lab': ShardLabJsxAttributes;
    }
  }
  namespace React {
    namespace JSX {
      interface IntrinsicElements {
        'shard-lab': ShardLabJsxAttributes;
      }
    }
  }
}

export type { ShardLabElement };
