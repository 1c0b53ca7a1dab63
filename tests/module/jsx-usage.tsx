// A React or Preact page's JSX with <shard-lab>, checked against web/element/jsx.d.ts with
// `tsc -p tests/module`. Compiled, never run (the test stands in for React's JSX.Element).
import '../../web/element/jsx.js';

declare global {
  namespace JSX {
    interface Element {}
  }
}

export const figure = <shard-lab views="cluster,console" shards={4} chunk-size="65536" loading="click" label="A ranged key" />;
// @ts-expect-error: `loading` is lazy, eager or click.
export const wrong = <shard-lab loading="soon" />;
