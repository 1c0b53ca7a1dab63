// The page is a view of the core's session, whatever drove it: the console, the form, a
// lesson or a link. Each test acts as a person would and checks the panels follow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openFresh, openSetup, screenshot, readShards, readChunks, readCompareRows, typeCommand, waitForSaved, waitForValue } from './harness.mjs';

const env = suite();

const openPage = (query, viewport) => openFresh(env, query, viewport);

async function type(page, command) {
  await typeCommand(page, command);
}

const summary = (page) => page.getByTestId('summary').innerText();
const progress = (page) => page.getByTestId('progress').getAttribute('aria-valuenow');

test('a console-only session: the view, key bar and charts follow the collection the console touched', async () => {
  const { page, errors } = await openPage();
  await type(page, 'use t');
  await type(page, 'sh.shardCollection("t.h", {ts: "hashed"})');
  // mongosh's prompt follows \`use\`: the line typed after it, and the input's prompt.
  const echoes = await page.locator('[data-testid="console-output"] .line.in').allTextContents();
  assert.deepEqual(echoes.slice(-2), ['test> use t', 't> sh.shardCollection("t.h", {ts: "hashed"})']);
  await page.locator('.prompt-sign').filter({ hasText: /^t>$/ }).waitFor();
  const docs = Array.from({ length: 300 }, (_, i) => `{ts: ${i}}`).join(', ');
  await type(page, `db.h.insertMany([${docs}])`);
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('t.h'));
  await page.getByTestId('summary').filter({ hasText: /t\.h sharded on \{ ts: 'hashed' \} · 300 documents/ }).waitFor();
  assert.match(await summary(page), /t\.h sharded on \{ ts: 'hashed' \} · 300 documents/);
  const shards = await readShards(page);
  assert.equal(shards.reduce((n, s) => n + s.docs, 0), 300, 'the shard columns count t.h');
  assert.ok(shards.filter((s) => s.docs > 0).length >= 2, 'hashing spreads the documents');
  // The form, the picker and the query box show t.h too (each field follows once redrawn).
  await waitForValue(page, '[data-testid="shard-key"]', "{ ts: 'hashed' }");
  assert.equal(await page.getByTestId('shard-key').inputValue(), "{ ts: 'hashed' }");
  await waitForValue(page, '[data-testid="collection"]', 't.h');
  assert.equal(await page.getByTestId('collection').inputValue(), 't.h');
  await waitForValue(page, '[data-testid="collection-picker"]', 't.h');
  assert.equal(await page.getByTestId('collection-picker').inputValue(), 't.h');
  // The query box starts from a value the documents hold: a number, as ts is.
  await waitForValue(page, '[data-testid="query-filter"]', /^\{ ts: \d+ \}$/);
  assert.match(await page.getByTestId('query-filter').inputValue(), /^\{ ts: \d+ \}$/);
  // The key bar spans the hash space: its chunks are the collection's.
  const bounds = (await readChunks(page)).map((c) => c.min);
  assert.ok(bounds.some((b) => b.includes('Long(')), `hashed bounds, got ${bounds}`);
  // Picking the other collection shows it, and the picker lists both.
  await openSetup(page);
  await page.getByTestId('collection-picker').selectOption('test.events');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('test.events'));
  await waitForValue(page, '[data-testid="shard-key"]', '{ x: 1 }');
  assert.equal(await page.getByTestId('shard-key').inputValue(), '{ x: 1 }');
  // A new command on t.h brings it back.
  await type(page, 'db.h.insertOne({ts: 1000})');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('301 documents'));
  await screenshot(page, 'console-only');
  assert.deepEqual(errors, []);
});

test('fork then play: the progress bar counts what the cluster holds', async () => {
  const { page, errors } = await openPage('?preset=monotonic');
  await page.getByLabel('Speed').fill('30');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar.getAttribute('aria-valuenow') === bar.getAttribute('aria-valuemax');
  }, null, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
  const total = Number(await page.getByTestId('progress').getAttribute('aria-valuemax'));
  // Scrub back to step 17 and fork there.
  await page.getByTestId('timeline').fill('17');
  // The engine moves the cursor, then forks there, from its worker: wait for each answer,
  // and for the bar to count what the columns hold, before reading them.
  await page.getByTestId('position').filter({ hasText: /step 17 of \d+/ }).waitFor();
  await page.getByTestId('fork').click();
  await page.getByTestId('position').filter({ hasText: /step 17 of 17(?!\d)/ }).waitFor();
  await page.waitForFunction(() => {
    const held = [...document.querySelectorAll('[data-testid="shard-totals"]')].reduce((n, el) => n + Number(el.dataset.docs), 0);
    return held > 0 && document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow') === String(held);
  });
  const held = (await readShards(page)).reduce((n, s) => n + s.docs, 0);
  assert.ok(held > 0 && held < total, `held ${held} of ${total}`);
  assert.equal(Number(await progress(page)), held, 'progress is what the cluster holds');
  assert.match(await page.getByTestId('progress').innerText(), new RegExp(`^${held} / ${total} docs`));
  // Play inserts what is missing, no more.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction((t) => document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow') === String(t), total, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
  assert.equal((await readShards(page)).reduce((n, s) => n + s.docs, 0), total);
  // Play on a full collection says so instead of inserting more.
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.getByText(/already holds \d+ documents, the workload's total/).waitFor();
  assert.equal((await readShards(page)).reduce((n, s) => n + s.docs, 0), total);
  assert.deepEqual(errors, []);
});

async function fullCollection(page) {
  await openSetup(page);
  await page.getByLabel('Workload generator').selectOption('monotonic');
  await page.getByLabel('Documents per tick').fill('300');
  await page.getByLabel('Documents per tick').press('Tab');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('300 documents'));
}

test('changing the key of a full collection: refine, reshard or start over, each undone by Back', async () => {
  const { page, errors } = await openPage();
  await fullCollection(page);
  const step = async () => Number((await page.getByTestId('position').innerText()).match(/step (\d+)/)[1]);

  // Refine: {x: 1} to {x: 1, ts: 1} keeps the documents.
  const before = await step();
  await page.getByTestId('shard-key').fill('{x: 1, ts: 1}');
  await page.getByRole('button', { name: 'Change the key…' }).click();
  await page.getByTestId('key-change').waitFor();
  await screenshot(page, 'key-change');
  await page.getByTestId('key-refine').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('{ x: 1, ts: 1 }'));
  assert.match(await summary(page), /300 documents/);
  await page.getByTestId('position').filter({ hasText: new RegExp(`step ${before + 1} of`) }).waitFor();
  assert.equal(await step(), before + 1, 'one step');
  await waitForValue(page, '[data-testid="shard-key"]', '{ x: 1, ts: 1 }');
  assert.equal(await page.getByTestId('shard-key').inputValue(), '{ x: 1, ts: 1 }');
  await page.getByTestId('step-back').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('sharded on { x: 1 } '));
  await waitForValue(page, '[data-testid="shard-key"]', '{ x: 1 }');
  assert.equal(await page.getByTestId('shard-key').inputValue(), '{ x: 1 }');

  // Refine is refused for a key that does not extend the old one; reshard keeps the data.
  await page.getByTestId('shard-key').fill('{ts: 1}');
  await page.getByRole('button', { name: 'Change the key…' }).click();
  // The choice is the engine's plan, drawn when it answers.
  await page.locator('[data-testid="key-refine"]:disabled').waitFor();
  assert.ok(await page.getByTestId('key-refine').isDisabled());
  await page.getByTestId('key-reshard').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('sharded on { ts: 1 }'));
  assert.match(await summary(page), /300 documents/);
  await page.getByTestId('step-back').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('sharded on { x: 1 } '));

  // Start over asks first, then drops the documents; Back brings them back.
  await page.getByTestId('shard-key').fill('{x: "hashed"}');
  await page.getByRole('button', { name: 'Change the key…' }).click();
  await page.getByTestId('key-start-over').click();
  // The click was taken once the confirmation shows; then nothing must have been dropped.
  await page.getByTestId('key-start-over-confirm').waitFor();
  assert.match(await summary(page), /300 documents/, 'nothing is dropped before the confirmation');
  await page.getByTestId('key-start-over-confirm').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes("sharded on { x: 'hashed' } · 0 documents"));
  // The event log says what happened, newest first.
  await page.getByTestId('event').first().waitFor();
  await page.getByTestId('step-back').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('sharded on { x: 1 } · 300 documents'));
  assert.deepEqual(errors, []);
});

test('a workload without the key field: the warning, then the one-click fix', async () => {
  const { page, errors } = await openPage();
  await openSetup(page);
  await page.getByTestId('shard-key').fill('{userId: 1}');
  // The collection is empty: the new key is one step, with no question.
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('{ userId: 1 }'));
  await page.getByLabel('Workload generator').selectOption('uniform');
  const warning = page.getByTestId('key-fit-warning');
  await warning.waitFor();
  assert.match(await warning.innerText(), /never writes userId/);
  await screenshot(page, 'key-fit-warning');
  await page.getByTestId('fit-add-field').click();
  await warning.waitFor({ state: 'detached' });
  await page.getByTestId('workload-template-box').filter({ hasText: /userId/ }).waitFor();
  assert.match(await page.getByTestId('workload-template-box').innerText(), /userId/);
  await page.getByLabel('Documents per tick').fill('400');
  await page.getByLabel('Documents per tick').press('Tab');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="chunk"]').length > 2);
  assert.ok((await readChunks(page)).every((c) => !c.jumbo), 'userId spreads: no jumbo chunk');
  assert.deepEqual(errors, []);
});

test('share links and reloads carry the lesson, the workload, its progress, the tab and the viewed collection', async () => {
  const { page, errors } = await openPage('?preset=high-frequency');
  const stepOf = async () => Number((await page.getByTestId('position').innerText()).match(/step (\d+)/)[1]);
  await page.getByTestId('position').filter({ hasText: /step [1-9]/ }).waitFor();
  const start = await stepOf();
  for (let i = 0; i < 12; i++) await page.getByRole('button', { name: 'Step', exact: true }).click();
  // Each Step is a batch the engine runs in its worker: the twelfth answer ends them.
  await page.getByTestId('position').filter({ hasText: `step ${start + 12} of ${start + 12}` }).waitFor();
  const held = await progress(page);
  const workload = await page.getByLabel('Workload generator').inputValue();
  const batch = await page.getByLabel('Documents per tick').inputValue();
  await page.getByTestId('share-link').click();
  const url = await page.getByTestId('share-url').inputValue();
  const chunks = await readChunks(page);

  const fresh = await env.browser.newContext();
  const other = await fresh.newPage({ viewport: { width: 1400, height: 1000 } });
  await other.goto(url);
  await other.getByTestId('lesson-text').waitFor();
  await other.waitForFunction((n) => document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow') === n, held);
  // The forms follow the restored session as they redraw: wait for each, then read it.
  await waitForValue(other, '[data-testid="preset"]', 'high-frequency');
  assert.equal(await other.getByLabel('Lesson', { exact: true }).inputValue(), 'high-frequency');
  await waitForValue(other, '[data-testid="workload"]', workload);
  assert.equal(await other.getByLabel('Workload generator').inputValue(), workload);
  await waitForValue(other, '[data-testid="batch"]', batch);
  assert.equal(await other.getByLabel('Documents per tick').inputValue(), batch);
  assert.deepEqual(await readChunks(other), chunks);
  await fresh.close();

  // A reload keeps the tab and the viewed collection too.
  await type(page, 'db.side.insertOne({a: 1})');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('test.side'));
  await page.getByTestId('tab-compare').click();
  // The Compare tab lives in the extras module, fetched when the tab first opens.
  await page.getByTestId('compare-progress').waitFor();
  // The session is saved once the change is drawn.
  await waitForSaved(page, '"tab": "compare"');
  await page.reload();
  // The saved session replays, then the page shows the tab it was on.
  await page.waitForFunction(() => document.querySelector('[data-testid="tab-compare"]')?.getAttribute('aria-selected') === 'true');
  await page.getByTestId('tab-playground').click();
  await page.getByTestId('summary').filter({ hasText: /test\.side/ }).waitFor();
  assert.match(await summary(page), /test\.side/);
  await waitForValue(page, '[data-testid="preset"]', 'high-frequency');
  assert.equal(await page.getByLabel('Lesson', { exact: true }).inputValue(), 'high-frequency');
  assert.deepEqual(errors, []);
});

test('an unknown preset or option is named in a notice', async () => {
  const { page } = await openPage('?preset=monotnic&hide=nothing&colour=red');
  const notice = page.getByTestId('notice');
  await notice.filter({ hasText: "There is no lesson called 'monotnic'" }).filter({ hasText: "'colour'" }).waitFor();
  const text = await notice.innerText();
  assert.match(text, /There is no lesson called 'monotnic'/);
  assert.match(text, /'colour'/);
});

test('the Compare tab shares its configurations and progress through the link', async () => {
  const { page, errors } = await openPage();
  await page.getByTestId('tab-compare').click();
  // The Compare tab lives in the extras module, fetched when the tab first opens.
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-key').nth(1).fill('{x: -1}');
  await page.getByTestId('compare-key').nth(1).press('Enter');
  for (let i = 0; i < 5; i++) await page.getByTestId('compare-step').click();
  // The rows are read once every column has drawn the fifth step (the bar's `done` counts
  // what every column drew): read earlier, a slow column's row is a step behind.
  await page.waitForFunction(() => document.querySelector('[data-testid="compare-progress"]')?.dataset.done === '125');
  const rows = await readCompareRows(page);
  await page.getByTestId('share-link').click();
  const url = await page.getByTestId('share-url').inputValue();

  const fresh = await env.browser.newContext();
  const other = await fresh.newPage({ viewport: { width: 1400, height: 1000 } });
  await other.goto(url);
  await other.waitForFunction(() => document.querySelector('[data-testid="compare-progress"]')?.dataset.done === '125');
  await other.locator('[data-testid="tab-compare"][aria-selected="true"]').waitFor();
  assert.equal(await other.getByTestId('tab-compare').getAttribute('aria-selected'), 'true');
  assert.deepEqual(await readCompareRows(other), rows);
  await screenshot(other, 'compare-from-link');
  await fresh.close();
  assert.deepEqual(errors, []);
});

test('panels that went stale now follow: analyzeShardKey, the query box, the key after a refine, the shard count', async () => {
  const { page, errors } = await openPage('?preset=monotonic');
  // While a lesson's session opens, the cluster panel says so: the engine started long ago.
  await page.evaluate(() => {
    window.waits = [];
    new MutationObserver(() => {
      const wait = document.querySelector('[data-testid="cluster"] > p.muted');
      if (wait && wait.dataset.testid !== window.waits.at(-1)) window.waits.push(wait.dataset.testid);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // analyzeShardKey says what it measured, and a new lesson (another collection) clears it.
  for (let i = 0; i < 8; i++) await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.getByTestId('analyze').click();
  await page.getByTestId('analyze-report').waitFor();
  assert.match(await page.getByTestId('analyze-for').innerText(), /^test\.events on \{ x: 1 \} at step \d+/);
  await page.getByLabel('Lesson', { exact: true }).selectOption('multi-tenant');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('test.records'));
  await page.getByTestId('analyze-report').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('analyze-report').count(), 0, 'the old report is gone');
  await page.getByTestId('analyze-panel').filter({ hasText: /\{ projectId: 1, _id: 1 \} on test\.records/ }).waitFor({ state: 'attached' });
  assert.match(await page.getByTestId('analyze-panel').innerText(), /\{ projectId: 1, _id: 1 \} on test\.records/);
  // The query box starts over on the new key: empty until a document gives it a value.
  await waitForValue(page, '[data-testid="query-filter"]', '{}');
  assert.equal(await page.getByTestId('query-filter').inputValue(), '{}');
  await page.getByLabel('Lesson', { exact: true }).selectOption('hashed');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes("'hashed'"));
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(() => /^\{ _id: ObjectId\('[0-9a-f]{24}'\) \}$/.test((document.querySelector('[data-testid="query-filter"]')?.value ?? '')));
  // "+ Add shard" shows in the Shards field.
  await waitForValue(page, 'input[aria-label="Number of shards"]', '3');
  assert.equal(await page.getByLabel('Number of shards').inputValue(), '3');
  await page.getByTestId('add-shard').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="shard"]').length === 4);
  await waitForValue(page, 'input[aria-label="Number of shards"]', '4');
  assert.equal(await page.getByLabel('Number of shards').inputValue(), '4');
  // The refine lesson's closing commands refine the key: the key field follows.
  await page.getByLabel('Lesson', { exact: true }).selectOption('refine');
  await page.waitForFunction(() => (document.querySelector('[data-testid="summary"]')?.innerText ?? '').includes('test.orders'));
  await waitForValue(page, '[data-testid="shard-key"]', '{ customer: 1 }');
  assert.equal(await page.getByTestId('shard-key').inputValue(), '{ customer: 1 }');
  await page.getByLabel('Speed').fill('30');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => /sharded on \{ customer: 1, \w+: 1 \}/.test((document.querySelector('[data-testid="summary"]')?.innerText ?? '')), null, { timeout: 60_000 });
  const key = (await summary(page)).match(/sharded on (\{[^}]*\})/)[1];
  await waitForValue(page, '[data-testid="shard-key"]', key);
  assert.equal(await page.getByTestId('shard-key').inputValue(), key);
  await screenshot(page, 'after-refine');
  const waits = await page.evaluate(() => window.waits);
  assert.ok(!waits.includes('starting'), `the panel said the engine was starting: ${waits}`);
  assert.deepEqual(errors, []);
});

test('the charts have axes with units and a legend of the shards, and bounds shorten ObjectIds', async () => {
  const { page, errors } = await openPage('?preset=multi-tenant');
  const stepOf = async () => Number((await page.getByTestId('position').innerText()).match(/step (\d+)/)[1]);
  await page.getByTestId('position').filter({ hasText: /step [1-9]/ }).waitFor();
  const start = await stepOf();
  for (let i = 0; i < 6; i++) await page.getByRole('button', { name: 'Step', exact: true }).click();
  // Each Step is a batch the engine runs in its worker: the sixth answer ends them.
  await page.getByTestId('position').filter({ hasText: `step ${start + 6} of ${start + 6}` }).waitFor();
  const shards = await readShards(page);
  const most = Math.max(...shards.map((s) => s.docs));
  const docsChart = page.getByTestId('docs-chart');
  await docsChart.getByTestId('axis-top').filter({ hasText: `↑ ${most} docs` }).waitFor({ state: 'attached' });
  assert.equal(await docsChart.getByTestId('axis-top').innerText(), `↑ ${most} docs`);
  const steps = Number((await page.getByTestId('position').innerText()).match(/of (\d+)/)[1]);
  await docsChart.getByTestId('axis-steps').filter({ hasText: `step 1 → step ${steps}` }).waitFor({ state: 'attached' });
  assert.equal(await docsChart.getByTestId('axis-steps').innerText(), `step 1 → step ${steps}`);
  assert.deepEqual(await docsChart.getByTestId('chart-legend').locator('li').allInnerTexts(), shards.map((s) => s.name));
  // A chunk's text shortens its ObjectIds; its tooltip and data keep the whole bound.
  const chunk = page.locator('[data-testid="chunk"]').filter({ hasText: 'ObjectId(' }).first();
  const text = await chunk.locator('.range').innerText();
  assert.match(text, /ObjectId\('…[0-9a-f]{5}'\)/);
  const full = await chunk.locator('.range').getAttribute('title');
  assert.match(full, /ObjectId\('[0-9a-f]{24}'\)/);
  assert.ok(full.includes(await chunk.getAttribute('data-min')));
  assert.deepEqual(errors, []);
});

test('the console keeps its newest line in view once it holds its most lines, and drops the oldest', async () => {
  const { page, errors } = await openPage();
  // Three inputs of 200 printed lines each: past the console's 400 lines.
  for (let k = 0; k < 3; k++) {
    await type(page, Array.from({ length: 200 }, (_, i) => `print("line ${k * 200 + i}")`).join('; '));
  }
  const output = page.getByTestId('console-output');
  await page.waitForFunction(() => (document.querySelector('[data-testid="console-output"]')?.innerText ?? '').includes('line 599'));
  // The console scrolls to its newest line after drawing it: wait for that too.
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid="console-output"]');
    return el.scrollHeight - el.scrollTop - el.clientHeight <= 1;
  });
  const seen = await output.evaluate((el) => ({
    lines: el.children.length,
    first: el.firstElementChild.textContent,
    last: el.lastElementChild.textContent,
    belowView: el.scrollHeight - el.scrollTop - el.clientHeight,
  }));
  assert.equal(seen.lines, 400, 'the console keeps 400 lines');
  assert.equal(seen.last, 'line 599');
  // The newest 400: the last input's 200 lines and its echo, and 199 of the one before.
  assert.equal(seen.first, 'line 201', 'the oldest lines went, in order');
  assert.ok(seen.belowView <= 1, `the newest line is in view (${seen.belowView}px below)`);
  assert.deepEqual(errors, []);
});
