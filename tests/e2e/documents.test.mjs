// The reader's own documents: a file picked in the share bar or dropped on the page opens
// a dialog that shows what the engine read of its first part (format, columns, fields);
// the import is read a slice at a time in the engine's worker as mongoimport reads it,
// shows its progress and can be stopped, goes in as one step of the session, names the
// line that did not, and is still there after a reload. Nothing is uploaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { suite, openFresh, readShards, screenshot, waitForSaved, typeCommand, waitForLastLine } from './harness.mjs';

const env = suite();

/** Picks `file` with the share bar's button and waits for the dialog's first look at it. */
async function pick(page, file) {
  await page.getByTestId('import-documents').setInputFiles(file);
  const dialog = page.getByTestId('import-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('import-format').or(dialog.getByTestId('import-error')).waitFor({ timeout: 60_000 });
  return dialog;
}

/** Drops `file` on the page as a browser does when a file is dragged in from the desktop. */
async function drop(page, { name, mimeType, text }) {
  await page.evaluate(({ name, mimeType, text }) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], name, { type: mimeType }));
    const target = document.querySelector('[data-testid="cluster-view"]') ?? document.body;
    for (const type of ['dragenter', 'dragover', 'drop']) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    }
  }, { name, mimeType, text });
}

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
  const dialog = await pick(page, file);
  assert.match(await dialog.getByTestId('import-file').innerText(), /users\.csv\.gz/);
  assert.match(await dialog.getByTestId('import-format').innerText(), /CSV with a header row: 600 documents in the first part of the file, and 1 that cannot be read/);
  assert.deepEqual(await dialog.getByTestId('import-type').evaluateAll((s) => s.map((e) => e.dataset.column)), ['x', 'name']);
  assert.match(await dialog.innerText(), /Nothing leaves your browser/);
  await dialog.getByTestId('import-start').click();
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
  const dialog = await pick(page, { name: 'photo.json', mimeType: 'application/json', buffer: png });
  const error = dialog.getByTestId('import-error');
  assert.match(await error.innerText(), /This file cannot be imported: the file is not text/);
  assert.equal(await dialog.getByTestId('import-start').isDisabled(), true, 'nothing to import');
  console.log(`screenshot: ${await screenshot(page, 'import-documents-refused-400')}`);
  await dialog.getByTestId('import-close').click();
  await dialog.waitFor({ state: 'detached' });
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

test('a dropped CSV: a column typed as a string keeps its zeros, documents go in sorted by a date, and Stop leaves the session as it was', async () => {
  const { page, errors } = await openFresh(env);
  const rows = ['zip,day,n'];
  for (let i = 0; i < 50; i++) rows.push(`0${2100 + i},2024-03-${String(28 - (i % 28)).padStart(2, '0')},${i}`);
  await drop(page, { name: 'zips.csv', mimeType: 'text/csv', text: `${rows.join('\n')}\n` });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor({ timeout: 60_000 });
  await dialog.getByTestId('import-ns').fill('test.zips');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.locator('[data-testid="import-type"][data-column="zip"]').selectOption('string()');
  await dialog.locator('[data-testid="import-type"][data-column="day"]').selectOption('date_ms(yyyy-MM-dd)');
  await dialog.getByTestId('import-sort').selectOption('day');
  // The engine reads the file again under the choices: still no error.
  await page.waitForFunction(() => document.querySelector('[data-testid="import-type"][data-column="zip"]')?.value === 'string()');
  console.log(`screenshot: ${await screenshot(page, 'import-dialog-1440', { fullPage: false })}`);
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: 'zips.csv: 50 documents imported into test.zips as one step' }).waitFor({ timeout: 60_000 });
  const input = page.getByTestId('console-input');
  await input.fill('db.zips.find({zip: "02100"}, {_id: 0, zip: 1, day: 1})');
  await input.press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="console-output"] .line')]
    .some((l) => /zip: '02100', day: ISODate\('2024-03-28T00:00:00\.000Z'\)/.test(l.textContent)));
  // Sorted by day: the first document inserted has the earliest day.
  await input.fill('db.zips.find({}, {_id: 0, day: 1}).limit(1)');
  await input.press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="console-output"] .line')]
    .some((l) => /\[ \{ day: ISODate\('2024-03-01T00:00:00\.000Z'\) \} \]/.test(l.textContent)));

  // A large file, stopped while it runs: nothing goes in.
  const before = await page.getByTestId('position').innerText();
  const big = [];
  for (let i = 0; i < 400_000; i++) big.push(`{"_id": ${i}, "pad": "${'x'.repeat(40)}"}`);
  const bigDialog = await pick(page, { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(big.join('\n')) });
  await bigDialog.getByTestId('import-ns').fill('test.big');
  await bigDialog.getByTestId('import-ns').press('Tab');
  await bigDialog.getByTestId('import-start').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="import-progress"]')?.value) > 0, null, { timeout: 60_000 });
  console.log(`screenshot: ${await screenshot(page, 'import-progress-1440', { fullPage: false })}`);
  // A second file dropped meanwhile is refused in words.
  await drop(page, { name: 'second.json', mimeType: 'application/json', text: '{"a": 1}' });
  await page.getByTestId('notice').filter({ hasText: 'second.json was not imported: the import of big.json is still running' }).waitFor();
  await page.getByTestId('import-stop').click();
  await page.getByTestId('notice').filter({ hasText: 'The import of big.json was stopped: nothing went in' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('position').innerText(), before, 'no step was added');
  await typeCommand(page, 'db.big.countDocuments()');
  await waitForLastLine(page, '0');
  assert.deepEqual(errors, []);
  await page.close();
});

test('100,000 documents go in with their progress counted, as one step that survives a reload', async () => {
  const { page, errors } = await openFresh(env);
  const lines = [];
  for (let i = 0; i < 100_000; i++) {
    lines.push(`{"ts": {"$date": {"$numberLong": "${1_700_000_000_000 + i * 1000}"}}, "tenant": "t${i % 8}", "user": ${(i * 7919) % 100_003}, "city": "c${i % 500}"}`);
  }
  const dialog = await pick(page, { name: 'events.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${lines.join('\n')}\n`) });
  await dialog.getByTestId('import-ns').fill('test.events100k');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  // Once the file is read, the bar counts the documents as they go in.
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="import-progress"][data-phase="inserting"]');
    return bar && Number(bar.value) > 0 && Number(bar.max) === 100_000;
  }, null, { timeout: 180_000, polling: 'raf' });
  assert.match(await dialog.locator('.import-progress-text').innerText(), /Inserting the documents of events\.ndjson: \d+ of 100000 so far/);
  console.log(`screenshot: ${await screenshot(page, 'import-inserting-1440', { fullPage: false })}`);
  await page.getByTestId('notice').filter({ hasText: 'events.ndjson: 100000 documents imported into test.events100k as one step' }).waitFor({ timeout: 180_000 });
  await typeCommand(page, 'db.events100k.countDocuments()', { timeout: 60_000 });
  await waitForLastLine(page, '100000', { timeout: 60_000 });
  await waitForSaved(page, 'db.events100k.countDocuments()');
  await page.reload();
  await page.getByTestId('summary').waitFor();
  await typeCommand(page, 'db.events100k.countDocuments({tenant: "t3"})', { timeout: 180_000 });
  await waitForLastLine(page, '12500', { timeout: 180_000 });
  assert.deepEqual(errors, []);
  await page.close();
});
