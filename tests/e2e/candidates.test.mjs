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

test('candidate keys on imported documents: the monotonic key loses on monotonic change, the hashed one spreads, every reason is shown', async () => {
  const { page, errors } = await openFresh(env);
  await page.getByTestId('import-documents').setInputFiles({ name: 'orders.json', mimeType: 'application/json', buffer: orders() });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor({ timeout: 60_000 });
  await dialog.getByTestId('import-ns').fill('shop.orders');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: '3000 documents imported into shop.orders' }).waitFor({ timeout: 60_000 });

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
