// A docs page's script driving a <shard-lab>, checked against the element's declarations
// (web/element/shard-lab.d.ts) with `tsc -p tests/module`. Compiled, never run.
import type { ShardLabState } from '../../web/element/shard-lab.js';

export async function drive(): Promise<number> {
  const el = document.querySelector('shard-lab');
  if (!el) return 0;
  el.addEventListener('shardlab-step', (e) => console.log(e.detail.step, e.detail.entries.length));
  el.addEventListener('shardlab-split', (e) => console.log(e.detail.seq, e.detail.text));
  el.addEventListener('shardlab-error', (e) => console.log(e.detail.source, e.detail.line));
  await el.step(1);
  await el.goto(0);
  const entries = await el.run('db.t.insertOne({x: 1})');
  const state: ShardLabState = await el.getState();
  // @ts-expect-error: `goto` takes a step number.
  await el.goto('last');
  return state.step + entries.length;
}

// Typed properties, `ready`, the new events and the tag map.
export async function properties(): Promise<string> {
  const el = document.createElement('shard-lab');
  el.views = 'cluster,console';
  el.shards = 4;
  el.readOnly = true;
  el.start = 'end';
  el.chunkSize = null;
  // @ts-expect-error: `theme` is auto, light or dark.
  el.theme = 'sepia';
  document.body.append(el);
  const ready = await el.ready;
  ready.addEventListener('shardlab-play', (e) => console.log(e.detail.step));
  ready.addEventListener('shardlab-end', (e) => console.log(e.detail.steps));
  ready.addEventListener('shardlab-error', (e) => console.log(e.detail.code, e.detail.codeName, e.detail.message));
  document.addEventListener('shardlab-pause', (e) => console.log(e.detail.step));
  const state = await el.getState();
  const first = state.errors[0];
  return `${el.loaded} ${state.engine} ${first?.codeName ?? ''}`;
}
