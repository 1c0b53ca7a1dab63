// A real cluster's metadata in the page: the config exports picked in the share bar (one of
// them gzipped) become the session, the cluster view draws its chunks, and the timeline
// steps back over the changelog's replayed changes. An export without config.chunks is
// refused in words and the session stays as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { suite, openFresh, screenshot } from './harness.mjs';

const env = suite();
const FIXTURE = join('tests', 'fixtures', 'cluster', 'v80');

/** The fixture's files as Playwright's file payloads, config.chunks.json gzipped. */
function files({ without } = {}) {
  return readdirSync(FIXTURE).filter((n) => n !== without).sort().map((name) => {
    const buffer = readFileSync(join(FIXTURE, name));
    return name === 'config.chunks.json'
      ? { name: `${name}.gz`, mimeType: 'application/gzip', buffer: gzipSync(buffer) }
      : { name, mimeType: 'application/json', buffer };
  });
}

/** The fixture's chunks of `ns`, by the collection's uuid, read from the export itself. */
function chunksOf(ns) {
  const collections = JSON.parse(readFileSync(join(FIXTURE, 'config.collections.json'), 'utf8'));
  const uuid = collections.find((c) => c._id === ns).uuid.$binary.base64;
  const chunks = JSON.parse(readFileSync(join(FIXTURE, 'config.chunks.json'), 'utf8'));
  return chunks.filter((c) => c.uuid.$binary.base64 === uuid);
}

test('config exports picked in the share bar become the cluster shown, and the timeline steps back over its changelog', async () => {
  const { page, errors } = await openFresh(env);
  await page.getByTestId('import-cluster').setInputFiles(files());
  const notice = page.getByTestId('notice').filter({ hasText: 'Your cluster is loaded' });
  await notice.waitFor({ timeout: 60_000 });
  const said = await notice.innerText();
  assert.match(said, /shop\.orders, shop\.users, in MongoDB 8\.0's mode/);
  const replayed = Number(said.match(/(\d+) changes from the changelog were replayed/)[1]);
  assert.ok(replayed >= 1, said);
  // The cluster view shows the export's chunks of the first collection, on its shards.
  const expected = chunksOf('shop.orders');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chunk"]').length === n, expected.length, { timeout: 60_000 });
  const owners = await page.getByTestId('shard').evaluateAll((shards) => shards.map((s) => [s.dataset.shard ?? s.querySelector('h3, .shard-name')?.textContent?.trim(), s.querySelectorAll('[data-testid="chunk"]').length]));
  const byShard = {};
  for (const c of expected) byShard[c.shard] = (byShard[c.shard] ?? 0) + 1;
  for (const [shard, n] of Object.entries(byShard)) {
    assert.ok(owners.some(([name, count]) => name?.includes(shard) && count === n), `${shard} holds ${n}: ${JSON.stringify(owners)}`);
  }
  console.log(`screenshot: ${await screenshot(page, 'import-cluster-1440', { fullPage: false })}`);
  // Back over the replayed changes, a step at a time, to the step that loaded the cluster
  // (step 1: step 0 is the empty cluster the import started from). Before the changelog's
  // split, the collection held one chunk fewer.
  const stepOf = (text) => Number(/step\s+(\d+)\s+of/.exec(text ?? '')?.[1] ?? NaN);
  const shown = page.getByTestId('position').filter({ hasText: /step \d+ of \d+/ });
  let at = await shown.textContent();
  assert.ok(stepOf(at) > replayed, at);
  while (stepOf(at) > 1) {
    await page.getByTestId('step-back').click();
    await shown.filter({ hasNotText: at }).waitFor();
    at = await shown.textContent();
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chunk"]').length === n, expected.length - 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('an export without config.chunks is refused in words at 400 px, and the session stays as it was', async () => {
  const { page, errors } = await openFresh(env, '', { width: 400, height: 900 });
  const stepShown = page.getByTestId('position').filter({ hasText: /step \d+ of \d+/ });
  const before = await stepShown.textContent();
  await page.getByTestId('import-cluster').setInputFiles(files({ without: 'config.chunks.json' }));
  const notice = page.getByTestId('notice').filter({ hasText: 'The cluster could not be imported' });
  await notice.waitFor({ timeout: 60_000 });
  assert.match(await notice.innerText(), /config\.chunks/);
  assert.match(await notice.innerText(), /Your session is as it was/);
  console.log(`screenshot: ${await screenshot(page, 'import-cluster-refused-400', { fullPage: false })}`);
  assert.equal(await stepShown.textContent(), before);
  assert.deepEqual(errors, []);
  await page.close();
});
