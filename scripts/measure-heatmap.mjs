// Measures how long the heatmap ("Key space over time") takes to draw on a large session:
// 16 shards, about 5,000 chunks and 2,000 steps. This is a measurement, not a test: it
// prints figures and asserts nothing about time.
//   node scripts/measure-heatmap.mjs   (after `trunk build --release`)
// The session is built as a person would: 16 shards and 1 KiB chunks set in the form, the
// scenario exported as JSON, STEPS workload steps (`sim.generate(...); sim.balance()`, PER
// documents each) added to its commands, and the file imported back, which replays it.
// Then the timeline slider jumps to REDRAWS positions spread over the timeline; each jump
// redraws the heatmap, which records its draw time (the grid from the core plus the
// painting, in ms) in the canvas's `data-draw-ms`. The figure is their median.
// SHARDLAB_DIST measures another build directory; STEPS (2000), PER (17), REDRAWS (9),
// WIDTH (1440) and DPR (1) change the scenario and the window; SHOT=file.png saves a
// picture of the panel at the end.
import { writeFile, readFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch } from '../tests/e2e/harness.mjs';

const STEPS = Number(process.env.STEPS ?? 2000);
const PER = Number(process.env.PER ?? 17);
const REDRAWS = Number(process.env.REDRAWS ?? 9);
const WIDTH = Number(process.env.WIDTH ?? 1440);
const DPR = Number(process.env.DPR ?? 1);

const server = await serve();
const browser = await launch();
const context = await browser.newContext({ viewport: { width: WIDTH, height: 1000 }, deviceScaleFactor: DPR, acceptDownloads: true });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
await page.goto(server.url);
await page.evaluate(() => localStorage.clear());
await page.goto(server.url);
await page.getByTestId('play').waitFor();

// 16 shards and 1 KiB chunks, in the form.
await page.getByLabel('Number of shards').fill('16');
await page.getByLabel('Chunk size in KiB').fill('1');
await page.getByTestId('apply-key').click();
// A new shard count is a new cluster: the form asks first.
await page.getByRole('button', { name: 'Start the new cluster' }).click();
await page.waitForFunction(() => document.querySelectorAll('[data-testid="shard"]').length === 16);

// The scenario as a file, with the workload's steps added, imported back.
const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
const scenario = JSON.parse(await readFile(await download.path(), 'utf8'));
const ns = await page.getByTestId('heatmap').getAttribute('data-ns');
for (let i = 0; i < STEPS; i++) scenario.commands.push(`sim.generate("${ns}", "uniform", ${PER}); sim.balance()`);
scenario.position = null;
const dir = await mkdtemp(join(tmpdir(), 'shardlab-heat-'));
const file = join(dir, 'large.json');
await writeFile(file, JSON.stringify(scenario, null, 2));
const replayStarted = Date.now();
await page.getByTestId('import-json').setInputFiles(file);
const total = scenario.commands.length;
await page.getByTestId('position').filter({ hasText: `step ${total} of ${total}` }).waitFor({ timeout: 600_000 });
const replayS = (Date.now() - replayStarted) / 1000;

/** Waits until the heatmap shows cursor `step` and returns its draw time. */
async function drawnAt(step) {
  await page.waitForFunction((s) => {
    const el = document.querySelector('[data-testid="heatmap"]');
    return el?.querySelector('canvas')?.dataset.drawnAt === String(s);
  }, step, { timeout: 120_000 });
  return page.evaluate(() => {
    const el = document.querySelector('[data-testid="heatmap"]');
    return { ms: Number(el.querySelector('canvas').dataset.drawMs), rows: Number(el.dataset.rows), columns: Number(el.dataset.columns), perColumn: Number(el.dataset.perColumn), chunks: Number(el.dataset.chunks), pattern: el.dataset.pattern };
  });
}

await page.getByTestId('heatmap').scrollIntoViewIfNeeded();
const first = await drawnAt(total);
const draws = [];
// Positions spread over the timeline, the last one back at the end; each redraws the
// whole grid (every step's heat) with the chunks and cursor of that position.
for (let i = 1; i <= REDRAWS; i++) {
  const step = i === REDRAWS ? total : Math.round((total * i) / REDRAWS);
  await page.getByTestId('timeline').fill(String(step));
  draws.push(await drawnAt(step));
}
const shards = await page.locator('[data-testid="shard"]').count();
if (process.env.SHOT) await page.getByTestId('heatmap').screenshot({ path: process.env.SHOT });
const ms = draws.map((d) => d.ms).sort((a, b) => a - b);
const median = ms[Math.floor(ms.length / 2)];
console.log(`heatmap draw (grid + paint), median of ${ms.length} redraws: ${median.toFixed(2)} ms`);
console.log(JSON.stringify({
  shards,
  steps: total,
  chunksAtEnd: first.chunks,
  window: { width: WIDTH, deviceScaleFactor: DPR },
  grid: { rows: first.rows, columns: first.columns, stepsPerColumn: first.perColumn },
  pattern: first.pattern,
  drawMs: { median, min: ms[0], max: ms[ms.length - 1], all: draws.map((d) => d.ms) },
  replaySeconds: replayS,
  errors,
}, null, 2));
await browser.close();
await server.close();
