// The walking skeleton's end-to-end test: a person types a shard key, shards the
// collection, inserts 200 documents with increasing keys, and sees the inserts pile into
// the chunk that ends at MaxKey.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, readChunks, openSetup } from './harness.mjs';

const env = suite();

test('increasing keys split the collection and pile into the MaxKey chunk', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  // The cluster is drawn once the engine has opened the session.
  await page.getByTestId('shard').first().waitFor();
  // The forms are folded away under Setup.
  await openSetup(page);

  // The page starts sharded on {x: 1}: typing the same key leaves nothing to apply.
  await page.getByLabel('Shard key', { exact: true }).fill('{x: 1}');
  // The button is redrawn from the typed key: wait for it, then check it.
  await page.getByRole('button', { name: 'Nothing to apply' }).and(page.locator(':disabled')).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Nothing to apply' }).isDisabled());
  await page.getByLabel('Workload generator').selectOption('monotonic');
  await page.getByLabel('Documents per tick').fill('200');
  await page.getByLabel('Documents per tick').press('Tab');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="chunk"]').length > 1);
  await page.getByTestId('summary').filter({ hasText: /\b200 documents/ }).waitFor();

  const chunks = await readChunks(page);
  assert.ok(chunks.length > 1, `expected more than one chunk, got ${chunks.length}`);
  const total = chunks.reduce((n, c) => n + c.count, 0);
  assert.equal(total, 200, 'every inserted document is in some chunk');

  // The chunk ending at MaxKey holds the newest keys: every key from its lower bound on.
  const top = chunks.find((c) => c.max === '{ x: MaxKey() }');
  assert.ok(top, 'a chunk ends at MaxKey');
  const lower = Number(top.min.match(/x: (-?\d+)/)?.[1]);
  assert.ok(Number.isInteger(lower), `top chunk starts at a key, got ${top.min}`);
  assert.equal(top.count, 200 - lower, 'the top chunk holds exactly the latest inserts');
  const recent = await page.$eval('[data-testid="chunk"][data-max="{ x: MaxKey() }"]', (el) => Number(el.dataset.recent));
  assert.ok(recent > 0, 'the MaxKey chunk is marked as receiving the latest batch');

  // The MinKey and MaxKey chunks are visibly marked.
  assert.equal(await page.getByText('MaxKey chunk', { exact: true }).count(), 1);
  assert.equal(await page.getByText('MinKey chunk', { exact: true }).count(), 1);

  const path = await screenshot(page, 'skeleton-200-increasing');
  console.log(`screenshot: ${path}`);
  assert.deepEqual(errors, []);
});
