// One engine, many views: the core runs once, in the engine's worker. The page's own wasm
// holds no core; the page answers while the engine works; every session (the
// playground's, each Compare column) is the engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from './harness.mjs';

const env = suite();
const dist = process.env.SHARDLAB_DIST ?? 'dist';

// Texts only the core has: MongoDB's error messages and command names it implements.
const CORE_ONLY = [
  'Please create an index that starts with the proposed shard key',
  'convertShardKeyToHashed',
  'moveChunk.commit',
  'numInitialChunks is only supported',
];

test('the page downloads its wasm once, and that wasm holds no core: the engine wasm does', async () => {
  const page = await env.browser.newPage();
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname); });
  // Workers' requests are the page's too (a dedicated worker shares its network).
  await page.goto(env.server.url);
  const input = page.getByTestId('console-input');
  await input.fill('sh.status()');
  await input.press('Enter');
  await page.getByTestId('console-output').filter({ hasText: 'shardingVersion' }).waitFor();
  const pageWasm = wasm.filter((p) => /page-[0-9a-f]+\/shardlab-web_bg\.wasm$/.test(p));
  const engineWasm = wasm.filter((p) => /engine_bg\.wasm$/.test(p));
  assert.equal(pageWasm.length, 1, `the page's wasm, once: ${wasm}`);
  assert.equal(engineWasm.length, 1, `the engine's wasm, once: ${wasm}`);
  const text = async (path) => (await readFile(join(dist, decodeURIComponent(path)))).toString('latin1');
  const [ui, engine] = await Promise.all([text(pageWasm[0]), text(engineWasm[0])]);
  for (const s of CORE_ONLY) {
    assert.ok(engine.includes(s), `the engine holds "${s}" (so the check can fail)`);
    assert.ok(!ui.includes(s), `the page's wasm holds the core's "${s}"`);
  }
  // And no extras module is left to fetch.
  assert.deepEqual((await readdir(dist)).filter((f) => f.startsWith('extras-')), []);
  await page.close();
});

test('the engine starts as the page is read, beside its wasm, and the page adopts that worker', async () => {
  const page = await env.browser.newPage();
  const order = [];
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname;
    if (/worker\.js$|_bg\.wasm$/.test(path)) order.push(path.replace(/.*\//, ''));
  });
  await page.goto(env.server.url);
  const input = page.getByTestId('console-input');
  await input.fill('sh.status()');
  await input.press('Enter');
  await page.getByTestId('console-output').filter({ hasText: 'shardingVersion' }).waitFor();
  // The early console may print the answer before the page has come: wait until the page
  // has taken the worker the head started (it clears `window.shardlabEngine`), and the
  // answer is still shown.
  await page.waitForFunction(() => window.shardlabEngine === null);
  await page.getByTestId('console-output').filter({ hasText: 'shardingVersion' }).waitFor();
  // One worker, asked for by the page's head before the page's wasm could run; the page's
  // first request took it over rather than starting a second.
  assert.deepEqual(order.filter((f) => f === 'worker.js'), ['worker.js'], `one worker: ${order}`);
  await page.close();
});

test('a three-column Compare run keeps the page answering: it draws and takes keys meanwhile', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-add').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="compare-column"]').length === 3);
  // Longest gap between animation frames while the comparison plays.
  await page.evaluate(() => {
    window.__gap = 0;
    let last = performance.now();
    const frame = (t) => { window.__gap = Math.max(window.__gap, t - last); last = t; requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  });
  await page.getByTestId('compare-play').click();
  // While the engine runs the columns, the page takes a key (workshop mode, on and off)
  // and the progress bar moves on.
  const progress = () => page.evaluate(() => Number(document.querySelector('[data-testid="compare-progress"]').dataset.done));
  const before = await progress();
  await page.keyboard.press('w');
  await page.locator('.page.workshop').waitFor({ timeout: 2_000 });
  const midway = await page.evaluate(() => {
    const bar = document.querySelector('[data-testid="compare-progress"]');
    return bar.dataset.done !== bar.dataset.total;
  });
  await page.keyboard.press('w');
  await page.waitForFunction(() => !document.querySelector('.page.workshop'), null, { timeout: 2_000 });
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="compare-progress"]');
    return bar && bar.dataset.done === bar.dataset.total;
  }, null, { timeout: 90_000 });
  const after = await progress();
  const gap = await page.evaluate(() => window.__gap);
  console.log(`three-column Compare run: a key taken midway (${midway}); longest frame gap ${Math.round(gap)} ms`);
  assert.ok(after > before, `the comparison ran: ${before} -> ${after}`);
  // The key was taken while the engine still ran the columns: the page answered in the
  // middle of the run, not after it. (How long frames take is measured by
  // scripts/measure-ui.mjs, not asserted here.)
  assert.ok(midway, 'workshop mode turned on while the comparison was still running');
  assert.deepEqual(errors, []);
  await page.close();
});
