// Measures the playground in headless Chromium with the Performance API. This is a
// measurement, not a test: it prints figures and asserts nothing about time.
//   node scripts/measure-ui.mjs   (after `trunk build --release`)
// Figures: time to interactive on localhost, the transfer size of wasm + JS + CSS
// (gzipped), and frame times while a workload plays on 16 shards with ~1,000 chunks.
// SHARDS, DOCS, MIN_CHUNKS, WORKLOAD (a generator; uniform by default) and BATCH (documents
// per tick, 20) change the scenario; REDUCED=1 measures with
// prefers-reduced-motion; SHARDLAB_DIST measures another build directory. rAF intervals
// come in whole display frames (16.7 ms at 60 Hz, also when idle), so "over16" counts the
// frames that missed one.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { serve, launch } from '../tests/e2e/harness.mjs';

const DIST = process.env.SHARDLAB_DIST ?? 'dist';
const server = await serve(DIST);
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, reducedMotion: process.env.REDUCED ? 'reduce' : 'no-preference' });

// Time to interactive: navigation start until the first chunk is drawn and the Play
// button responds.
await page.goto(server.url);
await page.getByTestId('play').waitFor();
const tti = await page.evaluate(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  return performance.now() - (nav ? nav.startTime : 0);
});

let gz = 0;
let raw = 0;
const files = {};
for (const f of await readdir(DIST)) {
  if (/\.(wasm|js|css)$/.test(f)) {
    const bytes = await readFile(`${DIST}/${f}`);
    raw += bytes.length;
    const z = gzipSync(bytes, { level: 9 }).length;
    gz += z;
    files[f.replace(/-[0-9a-f]{16}/, '')] = z;
  }
}

// 16 shards, 1 KiB chunks, then enough uniform documents for about a thousand chunks.
const SHARDS = process.env.SHARDS ?? '16';
const DOCS = process.env.DOCS ?? '6500';
const MIN_CHUNKS = Number(process.env.MIN_CHUNKS ?? 900);
await page.getByLabel('Number of shards').fill(SHARDS);
await page.getByLabel('Chunk size in KiB').fill('1');
await page.getByTestId('apply-key').click();
const input = page.getByTestId('console-input');
await input.fill(`sim.generate("test.events", "uniform", ${DOCS}); sim.balance()`);
await input.press('Enter');
await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chunk"]').length > n, MIN_CHUNKS, { timeout: 120000 });
const chunks = await page.locator('[data-testid="chunk"]').count();
const shards = await page.locator('[data-testid="shard"]').count();

const BATCH = Number(process.env.BATCH ?? 20);
await page.getByLabel('Workload generator').selectOption(process.env.WORKLOAD ?? 'uniform');
await page.getByLabel('Documents per tick').fill(String(BATCH));
await page.getByLabel('Documents per tick').press('Tab');
await page.getByLabel('Total documents').fill('100000');
await page.getByLabel('Total documents').press('Tab');
await page.getByLabel('Speed').fill('30');
await page.evaluate(() => {
  window.__frames = [];
  window.__long = [];
  let last = performance.now();
  const loop = (t) => {
    window.__frames.push(t - last);
    last = t;
    if (window.__frames.length < 100000) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push(e.duration);
  }).observe({ type: 'longtask', buffered: false });
});
await page.getByTestId('play').click();
await page.waitForTimeout(8000);
await page.getByTestId('pause').click();
const { frames, long, done } = await page.evaluate(() => ({
  frames: window.__frames.slice(5),
  long: window.__long,
  done: Number(document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow')),
}));
const ticks = done / BATCH;
const sorted = [...frames].sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
console.log(JSON.stringify({
  timeToInteractiveMs: Math.round(tti),
  bundle: { rawBytes: raw, gzipBytes: gz, gzipByFile: files },
  playing: {
    shards, chunks, ticks,
    frames: frames.length,
    frameMs: { p50: +pct(50).toFixed(1), p95: +pct(95).toFixed(1), max: +sorted[sorted.length - 1].toFixed(1) },
    over16: +(frames.filter((f) => f > 17.5).length / frames.length).toFixed(3),
    longTasks: long.length,
    longTaskMsP95: long.length ? +[...long].sort((a, b) => a - b)[Math.floor(0.95 * long.length)].toFixed(1) : 0,
  },
}, null, 2));
await browser.close();
await server.close();
