// In the built site the element's declarations sit beside the module's (dist/shardlab.d.ts);
// in the source tree this file stands in for them, so that `tsc` reads the same import.
// It is not shipped.
export * from '../engine/js/shardlab.js';
export { default } from '../engine/js/shardlab.js';
