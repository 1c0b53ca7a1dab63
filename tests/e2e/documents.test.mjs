// The reader's own documents: a file picked in the share bar is read a slice at a time in
// the engine's worker as mongoimport reads it, goes in as one step of the session, names
// the line that did not, and is still there after a reload. Nothing is uploaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { suite, openFresh, readShards, screenshot, waitForSaved } from './harness.mjs';

const env = suite();

/** The documents the cluster shows, summed over its shards. */
async function shownDocs(page) {
  return (await readShards(page)).reduce((n, s) => n + s.docs, 0);
}

test('a gzipped CSV picked in the share bar goes in as one step, says which line did not, and survives a reload', async () => {
  const { page, errors } = await openFresh(env);
  const requests = [];
  page.on('request', (r) => { if (r.method() !== 'GET') requests.push(r.url()); });
  const rows = ['x,name'];
  for (let i = 1; i <= 600; i++) rows.push(`${i},user${i}`);
  rows.splice(301, 0, '"bad"x,1');
  const file = { name: 'users.csv.gz', mimeType: 'application/gzip', buffer: gzipSync(Buffer.from(`${rows.join('\r\n')}\r\n`)) };
  const before = await page.getByTestId('position').innerText();
  await page.getByTestId('import-documents').setInputFiles(file);
  const notice = page.getByTestId('notice').filter({ hasText: 'documents imported into test.events as one step' });
  await notice.waitFor({ timeout: 60_000 });
  const said = await notice.innerText();
  assert.match(said, /users\.csv\.gz: 600 documents imported into test\.events as one step; 1 did not go in: line 302 \(.*extraneous " in field.*\)/);
  assert.match(said, /Nothing left your browser/);
  // The cluster shows them, split into chunks by the 5.0 auto-splitter as they went in.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((n, el) => n + Number(el.dataset.docs), 0) === 600);
  assert.equal(await shownDocs(page), 600);
  assert.ok((await page.getByTestId('chunk').count()) > 1, 'the chunks split');
  const after = await page.getByTestId('position').innerText();
  const steps = (text) => Number(text.match(/(\d+)\D*$/)[1]);
  assert.equal(steps(after), steps(before) + 1, `one step: ${before} -> ${after}`);
  console.log(`screenshot: ${await screenshot(page, 'import-documents-1440')}`);
  // Kept in the saved session, as the step's statements.
  await waitForSaved(page, 'insertMany');
  await page.reload();
  await page.getByTestId('summary').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((n, el) => n + Number(el.dataset.docs), 0) === 600, null, { timeout: 60_000 });
  assert.deepEqual(requests.filter((u) => !u.startsWith('data:')), [], 'nothing was sent anywhere');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a file the engine cannot read is refused in words, and the session goes on', async () => {
  const { page, errors } = await openFresh(env, '', { width: 400, height: 900 });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  await page.getByTestId('import-documents').setInputFiles({ name: 'photo.json', mimeType: 'application/json', buffer: png });
  const notice = page.getByTestId('notice').filter({ hasText: 'The import of photo.json stopped' });
  await notice.waitFor({ timeout: 60_000 });
  assert.match(await notice.innerText(), /The import of photo\.json stopped: .+/);
  console.log(`screenshot: ${await screenshot(page, 'import-documents-refused-400')}`);
  const input = page.getByTestId('console-input');
  await input.fill('db.events.countDocuments()');
  await input.press('Enter');
  await page.waitForFunction(() => {
    const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
    const asked = lines.lastIndexOf('test> db.events.countDocuments()');
    return asked >= 0 && lines[asked + 1] === '0';
  });
  assert.deepEqual(errors, []);
  await page.close();
});
