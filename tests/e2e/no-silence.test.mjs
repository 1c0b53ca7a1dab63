// Nothing is lost in silence: a session about to grow past what can be kept says so and
// offers a copy; past it, the copy that can be opened again is kept, and a reload opens it.
// A worker that dies between requests is started again with the session, and says why. A
// link near the browser's own limit says why it cannot open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { suite, openFresh, screenshot, waitForSaved, readSavedSource } from './harness.mjs';

const savedSessionSource = readSavedSource();

const env = suite();

/** Types `command` into the console and waits for the line the console answers with. */
async function run(page, command, answer) {
  const input = page.getByTestId('console-input');
  await input.fill(command);
  await input.press('Enter');
  await page.waitForFunction(({ head, answer }) => {
    const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
    const asked = lines.findLastIndex((l) => l.startsWith(head));
    return asked >= 0 && lines[asked + 1] === answer;
  }, { head: `test> ${command.slice(0, 40)}`, answer }, { timeout: 30_000 });
}

/** Imports `docs` documents of about 1 MB each into `ns` through the Import documents dialog. */
async function importBig(page, ns, docs) {
  const lines = [];
  for (let k = 0; k < docs; k++) lines.push(JSON.stringify({ _id: k, s: 'x'.repeat(1_000_000) }));
  await page.getByTestId('import-documents').setInputFiles({ name: `${ns}.json`, mimeType: 'application/json', buffer: Buffer.from(lines.join('\n')) });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor({ timeout: 60_000 });
  await dialog.getByTestId('import-ns').fill(ns);
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: `${docs} documents imported into ${ns}` }).waitFor({ timeout: 120_000 });
}

test('a session growing past what can be kept: warned first with a copy, then the kept copy stays and a reload opens it', async () => {
  const { page, errors } = await openFresh(env);
  const limit = await page.evaluate(async () => {
    const { ShardLab } = await import('./shardlab.js');
    return (await ShardLab.catalog()).limits.maxScenarioBytes;
  });
  // Imports of about 1 MB documents, each one step: the first leaves room, the second
  // passes three quarters of what a session may hold, the third all of it.
  const mb = (share) => Math.ceil((limit * share) / 1_000_000);
  await importBig(page, 'test.first', mb(0.45));
  await waitForSaved(page, 'first');
  assert.equal(await page.getByTestId('notice').filter({ hasText: 'near the' }).count(), 0, 'no warning while there is room');

  await importBig(page, 'test.second', mb(0.35));
  const nearly = page.getByTestId('notice').filter({ hasText: 'near the' });
  await nearly.waitFor({ timeout: 60_000 });
  assert.match(await nearly.innerText(), new RegExp(`saved form is \\d+ bytes, near the ${limit} that ShardLab can keep`));
  // Its download is the whole session, and it opens again.
  const [download] = await Promise.all([page.waitForEvent('download'), nearly.getByTestId('download-session').click()]);
  const copy = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.equal(copy.commands.filter((c) => c.includes('insertMany')).length, 2);
  await waitForSaved(page, 'second');
  const position = await page.getByTestId('position').innerText();
  console.log(`screenshot: ${await screenshot(page, 'session-nearly-too-large-1440', { fullPage: false })}`);

  await importBig(page, 'test.third', mb(0.25));
  // (The warning before says "once it is over the limit": the one awaited is the next.)
  const over = page.getByTestId('notice').filter({ hasText: /grown to \d+ bytes, over the/ });
  await over.waitFor({ timeout: 60_000 });
  // The warning stands beside what the import said, not in its place.
  assert.equal(await page.getByTestId('notice').filter({ hasText: 'documents imported into test.third' }).count(), 1);
  assert.match(await over.innerText(), new RegExp(`grown to \\d+ bytes, over the ${limit} that ShardLab can keep, so what you do from here is not saved`));
  const steps = Number(position.match(/step (\d+) of/)[1]);
  assert.match(await over.innerText(), new RegExp(`The saved copy stops at step ${steps}:`));
  // The copy that fits stayed as it was: it was not written over.
  // (Measured in the page: a text of tens of MB is not handed back whole.)
  await waitForSaved(page, 'second');
  const kept = await page.evaluate(`(${savedSessionSource})().then((t) => ({ length: t.length, third: t.includes('third') }))`);
  assert.ok(kept.length <= limit && !kept.third, JSON.stringify(kept));
  console.log(`screenshot: ${await screenshot(page, 'session-too-large-1440', { fullPage: false })}`);

  // A reload opens the kept copy: both imports, at the step it was saved at.
  await page.reload();
  await page.getByTestId('position').filter({ hasText: position }).waitFor({ timeout: 120_000 });
  await run(page, 'db.second.countDocuments()', String(mb(0.35)));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a worker that dies between requests starts again with the session intact, and the notice says why', async () => {
  const { page, errors } = await openFresh(env);
  for (let i = 1; i <= 3; i++) await run(page, `db.kept.insertOne({_id: ${i}})`, `{ acknowledged: true, insertedId: ${i} }`);
  await waitForSaved(page, 'db.kept.insertOne', 3);
  // Nothing is in flight; the engine's worker dies of an error of its own.
  const worker = page.workers().find((w) => w.url().includes('worker'));
  assert.ok(worker, `the engine's worker among ${page.workers().map((w) => w.url())}`);
  await worker.evaluate(() => { setTimeout(() => { throw new Error('killed by the test'); }); });
  const notice = page.getByTestId('notice').filter({ hasText: 'killed by the test' });
  await notice.waitFor({ timeout: 30_000 });
  assert.match(await notice.innerText(), /The engine stopped \(.*killed by the test\) and started again; your session was replayed into it as it was\./);
  // The session is there in the new engine, and the console answers.
  await run(page, 'db.kept.countDocuments()', '3');
  console.log(`screenshot: ${await screenshot(page, 'engine-died-idle-1440')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link of nearly 2 MB, as long as the browser opens, says why it cannot open and leaves a working console', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}#s=v2.${'A'.repeat(1_900_000)}`);
  const notice = page.getByTestId('notice').filter({ hasText: 'could not be opened' });
  await notice.waitFor({ timeout: 30_000 });
  assert.match(await notice.innerText(), /This link could not be opened \(.*1900\d{3}.*\)/s);
  await run(page, 'db.after.insertOne({_id: 1})', '{ acknowledged: true, insertedId: 1 }');
  console.log(`screenshot: ${await screenshot(page, 'link-2mb-1440')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a long chain run in a <shard-lab> element gets the console\'s own error, and the element keeps answering', async () => {
  const { page, errors } = await openFresh(env);
  const chain = `db.c.find()${'.limit(1)'.repeat(5_000)}`;
  // The page's console: the error MongoDB's shell gives for it.
  const input = page.getByTestId('console-input');
  await input.fill(chain);
  await input.press('Enter');
  const handle = await page.waitForFunction(() => {
    const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
    return lines.find((l) => l.startsWith('SyntaxError: expression too long')) ?? null;
  });
  const consoleSays = await handle.jsonValue();
  // The element, on the same page: the same words, and it still runs what follows.
  const said = await page.evaluate(async (chain) => {
    await import('./shard-lab.js');
    const el = document.createElement('shard-lab');
    // At the foot of the page, out of view: loaded at once rather than when scrolled to.
    el.setAttribute('loading', 'eager');
    document.body.append(el);
    await el.ready;
    const [failed] = await el.run(chain);
    const [after] = await el.run('db.c.insertOne({_id: 1})');
    return { failed, after };
  }, chain);
  assert.equal(said.failed.ok, false);
  assert.equal(said.failed.printed.trim(), consoleSays);
  assert.equal(said.after.ok, true, JSON.stringify(said.after));
  assert.deepEqual(errors, []);
  await page.close();
});
