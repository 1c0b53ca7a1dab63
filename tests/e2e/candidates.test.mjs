// Candidate keys ranked on the reader's own documents: a file imported through the share
// bar, then the Candidate keys panel replays its documents into one cluster per key and
// ranks them, saying for each why it wins or loses (the engine's `rank`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openFresh, screenshot } from './harness.mjs';

const env = suite();

/** 3,000 orders: a timestamp that only grows, a user of 1,500, a tenant of three. */
function orders() {
  const lines = [];
  for (let i = 0; i < 3000; i++) {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
    lines.push(JSON.stringify({ ts: { $date: ts }, user: `u${(i * 7919) % 1500}`, tenant: ['acme', 'globex', 'initech'][i % 3], total: i % 97 }));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Imports the orders into shop.orders through the Import documents dialog. */
async function importOrders(page) {
  await page.getByTestId('import-documents').setInputFiles({ name: 'orders.json', mimeType: 'application/json', buffer: orders() });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor({ timeout: 60_000 });
  await dialog.getByTestId('import-ns').fill('shop.orders');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: '3000 documents imported into shop.orders' }).waitFor({ timeout: 60_000 });
}

test('candidate keys on imported documents: the monotonic key loses on monotonic change, the hashed one spreads, every reason is shown', async () => {
  const { page, errors } = await openFresh(env);
  await importOrders(page);

  const panel = page.getByTestId('candidates');
  await panel.scrollIntoViewIfNeeded();
  await panel.getByTestId('rank-keys').fill("{ts: 1}\n{user: 'hashed'}\n{tenant: 1}");
  await panel.getByTestId('rank').click();
  await panel.getByTestId('rank-row').first().waitFor({ timeout: 120_000 });
  assert.match(await panel.getByTestId('rank-for').innerText(), /3000 documents of shop\.orders/);
  const rows = await panel.getByTestId('rank-row').evaluateAll((rs) => rs.map((r) => [r.dataset.key, Number(r.dataset.place)]));
  assert.equal(rows.length, 3, JSON.stringify(rows));
  const place = Object.fromEntries(rows);
  const HASHED = '{ user: "hashed" }';
  assert.ok(place[HASHED] < place['{ ts: 1 }'], `hashed user above ts: ${JSON.stringify(rows)}`);
  // Each key's reasons, measure by measure: [verdict, text].
  const reasons = await panel.getByTestId('rank-reasons').evaluateAll((items) => Object.fromEntries(items.map((li) => [li.dataset.key,
    Object.fromEntries([...li.querySelectorAll('[data-measure]')].map((r) => [r.dataset.measure, [r.dataset.verdict, r.textContent]]))])));
  assert.equal(reasons['{ ts: 1 }'].monotonicChange[0], 'loses');
  assert.equal(reasons[HASHED].monotonicChange[0], 'wins');
  assert.equal(reasons['{ tenant: 1 }'].cardinality[0], 'loses');
  assert.match(reasons['{ tenant: 1 }'].cardinality[1], /3 distinct values/);
  // Sorted by one measure: the engine's order for it.
  await panel.getByTestId('rank-order').selectOption('cardinality');
  await page.waitForFunction(() => document.querySelector('[data-testid="rank-row"]:last-child')?.dataset.key === '{ tenant: 1 }');
  console.log(`screenshot: ${await screenshot(page, 'candidates-1440', { fullPage: false })}`);

  // No keys: the engine proposes them from the fields it sees.
  await panel.getByTestId('rank-keys').fill('');
  await panel.getByTestId('rank').click();
  await panel.locator('[data-testid="ranking"][data-answer="2"]').waitFor({ timeout: 120_000 });
  assert.ok(await panel.getByTestId('rank-row').count() >= 2);

  // A key MongoDB refuses is said in its words.
  await panel.getByTestId('rank-keys').fill('{ts: "up"}');
  await panel.getByTestId('rank').click();
  await panel.locator('[data-testid="rank-error"][data-answer="3"]').waitFor({ timeout: 60_000 });
  assert.ok((await panel.getByTestId('rank-error').innerText()).length > 10);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the candidate keys panel at 400 px', async () => {
  const { page, errors } = await openFresh(env, '', { width: 400, height: 900 });
  const input = page.getByTestId('console-input');
  await input.fill('sim.generate("test.events", "uniform", 2000)');
  await input.press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="console-output"] .line')].some((l) => /inserted/.test(l.textContent)));
  const panel = page.getByTestId('candidates');
  await panel.scrollIntoViewIfNeeded();
  await panel.getByTestId('rank-keys').fill('{x: 1}\n{x: "hashed"}');
  await panel.getByTestId('rank').click();
  await panel.getByTestId('rank-row').nth(1).waitFor({ timeout: 120_000 });
  await panel.screenshot({ path: 'target/screenshots/candidates-400.png' });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 400, `the page does not scroll sideways (${width})`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a query sample gives each key its read and write distribution, and the ranked keys replay the documents on Compare', async () => {
  const { page, errors } = await openFresh(env);
  await importOrders(page);

  // Reads by user (one equality each), one update by user, and a line that is no query.
  const queries = [];
  for (let i = 0; i < 20; i++) queries.push(JSON.stringify({ user: `u${i * 7}` }));
  queries.push(JSON.stringify({ cmdName: 'update', ns: 'shop.orders', cmd: { updates: [{ q: { user: 'u3' }, u: { $set: { total: 1 } }, multi: false }] } }));
  queries.push('{"user": ');
  const panel = page.getByTestId('candidates');
  await panel.scrollIntoViewIfNeeded();
  await panel.getByTestId('rank-queries').setInputFiles({ name: 'queries.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${queries.join('\n')}\n`) });
  await panel.getByTestId('rank-queries-file').waitFor();
  await panel.getByTestId('rank-keys').fill("{ts: 1}\n{user: 'hashed'}");
  await panel.getByTestId('rank').click();
  const read = panel.getByTestId('rank-queries-read');
  await read.waitFor({ timeout: 120_000 });
  assert.equal(await read.getAttribute('data-reads'), '20');
  assert.equal(await read.getAttribute('data-writes'), '1');
  assert.match(await read.innerText(), /1 could not be read\. line 22/);
  // Equality on user goes to one shard under the hashed user key, to every shard under ts.
  const reads = Object.fromEntries(await panel.getByTestId('rank-row').evaluateAll((rs) => rs.map((r) => [r.dataset.key, r.querySelector('[data-testid="rank-reads"]').textContent])));
  assert.equal(reads['{ user: "hashed" }'], '100% / 0.0%', JSON.stringify(reads));
  assert.equal(reads['{ ts: 1 }'], '0.0% / 100%', JSON.stringify(reads));
  console.log(`screenshot: ${await screenshot(page, 'candidates-queries-1440', { fullPage: false })}`);

  // The ranked keys on Compare: one column each, the orders replayed in the order they went in.
  await panel.getByTestId('rank-compare').click();
  const compare = page.getByTestId('compare');
  await compare.waitFor();
  // The columns name the keys as the shell writes them back (either quote).
  const plain = (key) => key.replaceAll("'", '"');
  assert.deepEqual((await compare.getByTestId('compare-column').evaluateAll((cs) => cs.map((c) => c.dataset.key))).map(plain).sort(), ['{ ts: 1 }', '{ user: "hashed" }']);
  assert.match(await compare.getByTestId('compare-workload').innerText(), /your documents: shop\.orders \(3000\)/);
  await page.waitForFunction(() => {
    const p = document.querySelector('[data-testid="compare-progress"]');
    return p && p.dataset.done === '3000' && p.dataset.total === '3000' && p.dataset.settled === 'true';
  }, null, { timeout: 180_000 });
  // A growing timestamp under a ranged key piles the recent inserts on the shard of the
  // top chunk (5.0's top-chunk move shifts it now and then); hashed users spread them.
  const hottest = Object.fromEntries(await compare.getByTestId('compare-row').evaluateAll((rs) => rs.map((r) => [r.dataset.label.split(' · ')[0].replaceAll("'", '"'), Number(r.dataset.hottestShare)])));
  assert.ok(hottest['{ ts: 1 }'] > hottest['{ user: "hashed" }'], JSON.stringify(hottest));
  assert.ok(hottest['{ user: "hashed" }'] < 0.5, JSON.stringify(hottest));
  console.log(`screenshot: ${await screenshot(page, 'compare-sample-1440', { fullPage: false })}`);
  assert.deepEqual(errors, []);
  await page.close();
});
