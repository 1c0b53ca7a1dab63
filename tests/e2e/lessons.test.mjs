// One end-to-end test per lesson preset: a person picks the lesson, presses Play, and the
// page shows the lesson. Every assertion reads what the page displays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, readChunks, playLesson, readShards, targetQuery } from './harness.mjs';

const env = suite();

/** The share of the last 100 inserts that the busiest-for-them shard received. */
function shareOf(shards, name) {
  const total = shards.reduce((n, s) => n + s.lastInserts, 0);
  const mine = shards.find((s) => s.name === name)?.lastInserts ?? 0;
  return mine / total;
}

test('monotonic: the newest inserts pile onto the shard holding the MaxKey chunk', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic');
  const chunks = await readChunks(page);
  const top = chunks.find((c) => c.max === '{ x: MaxKey() }');
  const shards = await readShards(page);
  assert.ok(chunks.length > 1, 'the collection split');
  assert.ok(shareOf(shards, top.shard) > 0.9, `MaxKey shard got ${shareOf(shards, top.shard)} of the last 100 inserts`);
  assert.ok((await page.locator('[data-testid="event"][data-kind="moveChunk.commit"]').count()) > 0,
    'the top chunk was migrated (5.0 top-chunk rule)');
  await screenshot(page, 'lesson-monotonic');
  assert.deepEqual(errors, []);
});

test('decreasing: the newest inserts pile onto the shard holding the MinKey chunk', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'decreasing');
  const chunks = await readChunks(page);
  const bottom = chunks.find((c) => c.min === '{ x: MinKey() }');
  const shards = await readShards(page);
  assert.ok(shareOf(shards, bottom.shard) > 0.9, `MinKey shard got ${shareOf(shards, bottom.shard)}`);
});

test('hashed: inserts spread evenly, but a range query on _id goes everywhere', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'hashed');
  const shards = await readShards(page);
  for (const s of shards) {
    assert.ok(shareOf(shards, s.name) <= 0.4, `${s.name} got ${shareOf(shards, s.name)} of the last 100 inserts`);
  }
  const { stage, shards: hit } = await targetQuery(page, "{_id: {$gt: ObjectId('000000000000000000000000')}}");
  assert.equal(stage, 'SHARD_MERGE');
  assert.equal(hit.length, shards.length, 'a range on a hashed key is broadcast to every shard');
  await screenshot(page, 'lesson-hashed');
});

test('low cardinality: seven continents make at most seven chunks with documents and leave shards idle', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'low-cardinality');
  const chunks = await readChunks(page);
  const shards = await readShards(page);
  const holding = chunks.filter((c) => c.count > 0);
  assert.ok(holding.length <= 7, `${holding.length} chunks hold documents`);
  assert.ok(shards.filter((s) => s.docs === 0).length >= 2, 'some shards hold no document');
  assert.ok(chunks.some((c) => c.jumbo), 'single-continent chunks turn jumbo');
});

test('high frequency: frequent values make jumbo chunks', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'high-frequency');
  const chunks = await readChunks(page);
  const jumbo = chunks.filter((c) => c.jumbo);
  assert.ok(jumbo.length >= 1, 'a jumbo chunk exists');
  // A jumbo chunk holds a single key value: its bounds are that value and the next one.
  assert.ok(jumbo.every((c) => c.count > 0));
  assert.ok(await page.getByText('jumbo', { exact: true }).first().isVisible(), 'the jumbo badge is shown');
});

test('multi-tenant: one tenant is found on one shard with {projectId: 1, _id: 1}', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'multi-tenant');
  const chunks = await readChunks(page);
  assert.ok(chunks.length > 3, 'the big tenants split into several chunks');
  assert.ok(chunks.every((c) => !c.jumbo), 'adding _id lets even the biggest tenant split');
  const tenant = chunks.map((c) => c.min.match(/projectId: (ObjectId\('[0-9a-f]+'\))/)?.[1]).find(Boolean);
  const { stage, shards } = await targetQuery(page, `{projectId: ${tenant}}`);
  assert.ok(shards.length < 3, `a tenant's query reaches ${shards.length} shards (${stage})`);
});

test('missing fields: documents without x land with null in one chunk', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'missing-fields');
  const { stage, shards } = await targetQuery(page, '{x: null}');
  assert.equal(stage, 'SINGLE_SHARD');
  assert.equal(shards.length, 1);
  // Count the documents without x in the console, then find them all in the one chunk
  // whose range holds null (null sorts just above MinKey).
  const input = page.getByTestId('console-input');
  await input.fill('db.events.countDocuments({x: null})');
  await input.press('Enter');
  const output = page.getByTestId('console-output');
  await page.waitForFunction(() => /^\d+$/m.test((document.querySelector('[data-testid="console-output"]')?.innerText ?? '')));
  const missing = Number((await output.innerText()).match(/^(\d+)$/m)[1]);
  assert.ok(missing > 0, 'the workload leaves x out of some documents');
  const chunks = await readChunks(page);
  const holdsNull = chunks.filter((c) => /MinKey|null/.test(c.min) && !/MinKey/.test(c.max) && !/{ x: null }/.test(c.max));
  assert.equal(holdsNull.length, 1, JSON.stringify(chunks.slice(0, 3)));
  assert.ok(holdsNull[0].count >= missing, `the null chunk holds ${holdsNull[0].count} of the ${missing} documents without x`);
});

test('targeting: a key equality hits one shard, a non-key filter hits all', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'targeting');
  const one = await targetQuery(page, '{x: 42}');
  assert.equal(one.stage, 'SINGLE_SHARD');
  assert.equal(one.shards.length, 1);
  const all = await targetQuery(page, '{ts: {$gt: ISODate("2025-01-01")}}');
  assert.equal(all.stage, 'SHARD_MERGE');
  assert.equal(all.shards.length, (await readShards(page)).length);
});

test('refine: refining {customer: 1} to {customer: 1, order: 1} splits the jumbo chunk', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'refine');
  await page.getByTestId('summary').filter({ hasText: '{ customer: 1, order: 1 }' }).waitFor();
  const chunks = await readChunks(page);
  assert.ok(chunks.every((c) => !c.jumbo), 'no jumbo chunk is left');
  assert.ok(chunks.some((c) => c.min.includes("customer: 'acme', order:")), 'acme is split by order');
});

test('presplit: a hashed key on an empty collection starts with two chunks per shard in 5.0', async () => {
  const page = await env.browser.newPage();
  await page.goto(env.server.url);
  await page.getByLabel('Lesson', { exact: true }).selectOption('presplit');
  await page.getByTestId('lesson-text').waitFor();
  // The lesson's cluster is drawn once the engine has opened it.
  await page.locator('[data-testid="chunk"]').nth(5).waitFor();
  const chunks = await readChunks(page);
  assert.equal(chunks.length, 6);
  assert.ok(chunks.some((c) => c.max === "{ _id: Long('0') }"), 'a split point sits at 0');
  for (const name of ['shard01', 'shard02', 'shard03']) {
    assert.equal(chunks.filter((c) => c.shard === name).length, 2);
  }
});

test('zones: every Europe chunk lives on the EU shard', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'zones');
  const chunks = await readChunks(page);
  const europe = chunks.filter((c) => c.min.includes("continent: 'Europe'") && c.max.includes("continent: 'Europe'"));
  assert.ok(europe.length > 0);
  assert.ok(europe.every((c) => c.shard === 'shard03'), JSON.stringify(europe));
});

test('hashed floats: 2.2, 2.3 and 2.9 hash to the same value as 2', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'hashed-floats');
  // The lesson's commands answer from the engine's worker: wait for the four hashes.
  await page.waitForFunction(() => (document.querySelector('[data-testid="console-output"]')?.innerText.match(/^Long\('-?\d+'\)$/gm) ?? []).length >= 4);
  const out = await page.getByTestId('console-output').innerText();
  const hashes = [...out.matchAll(/^Long\('(-?\d+)'\)$/gm)].map((m) => m[1]);
  assert.equal(hashes.length, 4, out);
  assert.equal(new Set(hashes).size, 1, `hashes: ${hashes}`);
});

test('8.0 balancing: no auto-split, data moves about one chunk size at a time', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'balancing-50-vs-80');
  const shards = await readShards(page);
  assert.ok(shards.every((s) => s.docs > 0), 'the data-size balancer reached every shard');
  const splits = await page.locator('[data-testid="event"][data-kind="split"]').count();
  const moves = await page.locator('[data-testid="event"][data-kind="moveChunk.commit"]').count();
  assert.ok(splits <= moves, `8.0 splits only to move a range: ${splits} splits, ${moves} moves`);
  await screenshot(page, 'lesson-balancing-80');
});
