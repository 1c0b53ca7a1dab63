// The side-by-side comparison: the same monotonic workload on a ranged and a hashed key.
// Every assertion reads what the page displays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, readCompareRows, playComparison, recordRequests } from './harness.mjs';

const env = suite();

// Waits until the comparison shows `columns` columns that have all caught up with the
// shared workload (a new or rebuilt column replays it in the engine's worker).
async function waitForSettled(page, columns) {
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="compare-column"]').length === n
      && document.querySelector('[data-testid="compare-progress"]')?.dataset.settled === 'true',
    columns,
  );
}

// Waits until every column has run and drawn `done` documents (the engine answers from
// its worker, after the click).
async function waitForDone(page, done) {
  await page.waitForFunction(
    (d) => document.querySelector('[data-testid="compare-progress"]')?.dataset.done === d,
    done,
  );
}

// The comparison tab after two steps of the workload, with a third column added. With
// `clock`, the page runs on Playwright's clock (time still flows on its own), so that a
// test can also move the page's timers forward itself.
async function twoStepsAndAThirdColumn({ clock = false } = {}) {
  const page = await env.browser.newPage({ viewport: { width: 1500, height: 1000 } });
  if (clock) await page.clock.install();
  await page.goto(env.server.url);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-step').click();
  await page.getByTestId('compare-step').click();
  // The engine answers in its worker: the bar counts what every column has drawn.
  await waitForDone(page, '50');
  await page.getByTestId('compare-add').click();
  await waitForSettled(page, 3);
  return page;
}

test('compare: ranged {x: 1} piles the monotonic inserts on one shard, hashed spreads them', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-column').nth(1).waitFor();
  assert.equal(await page.getByTestId('compare-column').count(), 2);
  await playComparison(page);
  const rows = await readCompareRows(page);
  assert.equal(rows.length, 2);
  const ranged = rows.find((r) => r.label.startsWith('{ x: 1 }'));
  const hashed = rows.find((r) => r.label.includes('hashed'));
  assert.ok(ranged && hashed, JSON.stringify(rows));
  assert.ok(ranged.hottest > 0.9, `ranged hottest share ${ranged.hottest}`);
  assert.ok(hashed.hottest < 0.6, `hashed hottest share ${hashed.hottest}`);
  assert.ok(ranged.hottest > hashed.hottest);
  assert.ok(ranged.chunks > 1 && hashed.chunks > 1, 'both collections split');
  // The range query of the mix is routed by range on {x: 1} but broadcast on the hashed key.
  assert.ok(hashed.scatter > ranged.scatter, `scatter ${hashed.scatter} vs ${ranged.scatter}`);
  await screenshot(page, 'compare-ranged-vs-hashed');
  assert.deepEqual(errors, []);
});

test('compare: a third column can be added and edited, and it replays the same workload', async () => {
  const page = await twoStepsAndAThirdColumn();
  assert.equal(await page.getByTestId('compare-column').count(), 3);
  const third = page.getByTestId('compare-column').nth(2);
  await third.getByTestId('compare-key').fill('{ts: 1}');
  await third.getByTestId('compare-key').press('Enter');
  await page.locator('[data-testid="compare-row"][data-label^="{ ts: 1 }"]').waitFor();
  await third.getByTestId('compare-version').selectOption('5.0');
  // The rebuilt column replays the ticks in the engine; its row appears when it is done.
  await page.locator('[data-testid="compare-row"][data-label="{ ts: 1 } · 5.0"]').waitFor();
  await waitForSettled(page, 3);
  const rows = await readCompareRows(page);
  assert.equal(rows.length, 3);
  // The new column caught up: it holds the 50 documents the others have.
  const docs = await page.$$eval('[data-testid="compare-column"] .compare-totals', (els) => els.map((e) => e.textContent));
  assert.deepEqual(docs.map((t) => t.split(' ')[0]), ['50', '50', '50']);
  await third.getByTestId('compare-key').fill('{x: ');
  // The engine checks the key (the page decides nothing MongoDB decides): its answer arrives
  // from the worker, so the field is marked when it does.
  await third.locator('[data-testid="compare-key"][aria-invalid="true"]').waitFor();
  assert.equal(await third.getByTestId('compare-key').getAttribute('aria-invalid'), 'true');
});

test('compare: space plays the comparison and the right arrow steps it, not the hidden playground', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(env.server.url);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.keyboard.press('ArrowRight');
  await waitForDone(page, '25');
  await page.keyboard.press(' ');
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid="compare-progress"]');
    return el.dataset.done === el.dataset.total;
  }, null, { timeout: 60_000 });
  await page.getByTestId('tab-playground').click();
  // The tab switch is drawn first (a sign the page took the click), then what it shows is read.
  await page.locator('[data-testid="tab-playground"][aria-selected="true"]').waitFor();
  await page.getByTestId('progress').waitFor();
  assert.equal(await page.getByTestId('progress').getAttribute('aria-valuenow'), '0', 'the playground did not play');
});

test('compare: the comparison keeps its columns and progress across a visit to another tab', async () => {
  const page = await twoStepsAndAThirdColumn({ clock: true });
  const bar = page.getByTestId('compare-progress');
  const done = await bar.getAttribute('data-done');
  assert.equal(done, '50');
  // Start playing, then leave: the comparison pauses, and the playground's own keys work.
  await page.getByTestId('compare-play').click();
  await page.getByTestId('tab-playground').click();
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow')) > 0);
  // Leaving the tab paused the comparison: its hidden button offers to play again.
  await page.waitForFunction(
    () => document.querySelector('[data-testid="compare-play"]').getAttribute('aria-label') === 'Play the comparison',
  );
  // A tick already asked of the engine still lands; then nothing more moves.
  await page.waitForFunction(() => document.querySelector('[data-testid="compare-progress"]').dataset.settled === 'true');
  const paused = await bar.getAttribute('data-done');
  // Playing, the comparison ticks every 100 ms: half a second of the page's timers moves nothing.
  await page.clock.runFor(500);
  // A tick asked for meanwhile would unsettle the columns until the engine answered it:
  // read the count once they are settled.
  await page.locator('[data-testid="compare-progress"][data-settled="true"]').waitFor({ state: 'attached' });
  assert.equal(await bar.getAttribute('data-done'), paused, 'hidden comparison is paused');
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-column').nth(2).waitFor();
  assert.equal(await page.getByTestId('compare-column').count(), 3, 'the added column is still there');
  assert.ok(Number(await bar.getAttribute('data-done')) >= 50, 'progress kept');
});

test('compare: each tick is one request to the engine, answering every column', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // What the page asks of its engine's worker, by method.
  await page.addInitScript(recordRequests);
  await page.goto(env.server.url);
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-column').nth(1).waitFor();
  await page.locator('[data-testid="compare-progress"][data-settled="true"]').waitFor({ state: 'attached' });
  const before = await page.evaluate(() => window.__asked.length);
  await page.getByTestId('compare-step').click();
  await waitForDone(page, '25');
  await page.getByTestId('compare-step').click();
  await waitForDone(page, '50');
  const asked = await page.evaluate((n) => window.__asked.slice(n), before);
  const steps = asked.filter((a) => a.method === 'page.compareStep');
  assert.equal(steps.length, 2, JSON.stringify(asked.map((a) => a.method)));
  for (const step of steps) {
    assert.equal(step.params.columns.length, 2, 'both columns in one request');
    assert.ok(step.params.columns.every((c) => c.run && c.run.count === 25), JSON.stringify(step.params));
  }
  const perColumn = asked.filter((a) => ['run', 'frame', 'page.summary'].includes(a.method));
  assert.deepEqual(perColumn, [], 'no request of one column alone');
});
