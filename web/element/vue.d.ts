// The <shard-lab> tag in Vue templates: `import 'shardlab/vue'` types it for Volar.
// (Vue must also be told it is a custom element: `compilerOptions.isCustomElement =
// (tag) => tag === 'shard-lab'`.)
import type { ShardLabJsxAttributes } from './jsx.js';

declare module 'vue' {
  interface GlobalComponents {
    'shard-lab': new () => { $props: ShardLabJsxAttributes };
  }
}

export {};
