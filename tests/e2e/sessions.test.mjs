// No saved session is ever lost: every tab keeps its own, lessons and links start sessions
// of their own, "Recent sessions" reopens, downloads and deletes them, a save the browser
// refuses says so with a download, long links travel in the fragment, and Cancel stops a
// long statement. Used as a person would, in real tabs of one browser profile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { suite, screenshot, readShards, waitForSaved, savedSession, typeCommand, waitForLastLine } from './harness.mjs';

const env = suite();

/** Documents in the shown collection, from the shard columns. */
async function documents(page) {
  return (await readShards(page)).reduce((n, s) => n + s.docs, 0);
}

/** Presses Step `n` times (25 documents each) and waits until the shards show them all. */
async function steps(page, n) {
  const before = await documents(page);
  for (let i = 0; i < n; i++) await page.getByTestId('step').click();
  await page.waitForFunction((want) => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((sum, el) => sum + Number(el.dataset.docs), 0) === want, before + 25 * n);
}

/** Opens "Recent sessions" and reads its rows. */
async function recent(page) {
  const button = page.getByTestId('recent-sessions');
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  const panel = page.getByTestId('recent-panel');
  await panel.waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="recent-panel"]').innerText.includes('Reading'));
  return page.$$eval('[data-testid="recent-row"]', (rows) => rows.map((r) => ({
    id: r.dataset.session,
    text: r.innerText,
    open: !r.querySelector('[data-testid="recent-open"]').disabled,
  })));
}

test('two tabs keep two sessions: each reload shows its own work', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const a = await context.newPage();
  await a.goto(env.server.url);
  await a.getByTestId('summary').waitFor();
  await steps(a, 2);
  await waitForSaved(a, 'sim.generate', 2);

  const b = await context.newPage();
  await b.goto(env.server.url);
  await b.getByTestId('summary').waitFor();
  assert.equal(await documents(b), 0, 'a second tab does not take the first one\'s session');
  await steps(b, 1);
  await waitForSaved(b, 'sim.generate', 1);

  await a.reload();
  await a.getByTestId('summary').waitFor();
  await a.waitForFunction(() => document.querySelector('[data-testid="position"]')?.innerText.includes('of 4'));
  assert.equal(await documents(a), 50);
  await b.reload();
  await b.getByTestId('summary').waitFor();
  await b.waitForFunction(() => document.querySelector('[data-testid="position"]')?.innerText.includes('of 3'));
  assert.equal(await documents(b), 25);

  const rows = await recent(b);
  assert.equal(rows.length, 2, JSON.stringify(rows));
  assert.ok(rows.some((r) => /this tab/.test(r.text) && /3 steps/.test(r.text)), JSON.stringify(rows));
  assert.ok(rows.some((r) => /open in another tab/.test(r.text) && /4 steps/.test(r.text) && !r.open), JSON.stringify(rows));
  await screenshot(b, 'recent-sessions-1440');
  await b.setViewportSize({ width: 400, height: 800 });
  await screenshot(b, 'recent-sessions-400');
  // Closing the first tab lets go of its session: the second can open it.
  await a.close();
  await b.getByTestId('recent-sessions').click();
  // The click folds the list away (recent() below opens it afresh): wait until it is folded.
  await b.locator('[data-testid="recent-sessions"][aria-expanded="false"]').waitFor();
  const again = await recent(b);
  const other = again.find((r) => /4 steps/.test(r.text));
  assert.ok(other.open, 'no tab shows it now');
  await b.locator(`[data-session="${other.id}"] [data-testid="recent-open"]`).click();
  await b.waitForFunction(() => document.querySelector('[data-testid="position"]')?.innerText.includes('of 4'));
  assert.equal(await documents(b), 50);
  await context.close();
});

test('own work, then a lesson, then a link: Recent sessions holds all three and reopens the first', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  await steps(page, 2);
  await waitForSaved(page, 'sim.generate', 2);

  await page.getByLabel('Lesson', { exact: true }).selectOption('hashed');
  await page.getByTestId('lesson-text').waitFor();
  await page.getByTestId('notice').filter({ hasText: 'is kept' }).waitFor();
  await page.getByTestId('step').click();
  await waitForSaved(page, 'hashed');

  // A link made elsewhere, opened in this tab.
  const maker = await (await env.browser.newContext()).newPage();
  await maker.goto(env.server.url);
  await maker.getByTestId('summary').waitFor();
  await typeCommand(maker, 'db.events.insertOne({x: 424242})');
  await maker.getByTestId('share-link').click();
  const link = await maker.getByTestId('share-url').inputValue();
  assert.match(link, /#s=v2\./);
  await page.goto(link);
  await page.getByTestId('notice').filter({ hasText: 'shared scenario' }).waitFor();
  await typeCommand(page, 'db.events.insertOne({x: 7})');
  await waitForSaved(page, '424242');

  const rows = await recent(page);
  assert.equal(rows.length, 3, JSON.stringify(rows));
  const mine = rows.find((r) => /4 steps/.test(r.text) && !/this tab/.test(r.text));
  const lesson = rows.find((r) => /Hashed/i.test(r.text));
  assert.ok(mine && lesson, JSON.stringify(rows));
  // Download one, as a scenario file.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`[data-session="${lesson.id}"] [data-testid="recent-download"]`).click(),
  ]);
  assert.match(await readFile(await download.path(), 'utf8'), /shardlab-scenario/);
  // Delete one: the user's act, and only that one goes.
  await page.locator(`[data-session="${lesson.id}"] [data-testid="recent-delete"]`).click();
  await page.getByTestId('recent-panel').filter({ hasText: 'Deleted' }).waitFor();
  await page.locator(`[data-testid="recent-row"][data-session="${lesson.id}"]`).waitFor({ state: 'detached' });
  assert.equal((await recent(page)).length, 2);
  // Reopen the user's own work.
  await page.locator(`[data-session="${mine.id}"] [data-testid="recent-open"]`).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="position"]')?.innerText.includes('of 4'));
  assert.equal(await documents(page), 50);
  // The link's session was kept as well, and is the one to return to.
  const after = await recent(page);
  assert.ok(after.some((r) => r.id === mine.id && /this tab/.test(r.text)));
  assert.equal(after.length, 2);
  await context.close();
});

test('a full storage quota: the save failure is said at once, with the session to download', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(env.server.url).origin, quotaSize: 1 });
  await page.getByTestId('step').click();
  const notice = page.getByTestId('notice').filter({ hasText: 'could not be saved' });
  await notice.waitFor();
  assert.match(await notice.innerText(), /Your session could not be saved: the browser's storage is full\. Download it to keep it\./);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-session').click()]);
  assert.match(await readFile(await download.path(), 'utf8'), /sim\.generate/);
  await screenshot(page, 'save-failed-1440');
  // The page keeps working.
  await typeCommand(page, 'db.events.countDocuments()');
  await context.close();
});

/** A static server that refuses request lines over 8 KB with 414, as many hosts do. */
async function strictServer(dir = process.env.SHARDLAB_DIST ?? 'dist') {
  const root = normalize(dir);
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };
  const server = createServer(async (req, res) => {
    if (req.url.length > 8192) {
      res.writeHead(414).end('URI Too Long');
      return;
    }
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(root)) return res.writeHead(403).end();
    try {
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}

test('a 100 KB link opens from a static host that refuses request lines over 8 KB', async () => {
  const server = await strictServer();
  try {
    // Commands that do not compress away: each inserts a document with its own text.
    let seed = 7;
    const word = () => {
      let s = '';
      for (let i = 0; i < 24; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        s += 'abcdefghijklmnopqrstuvwxyz0123456789'[seed % 36];
      }
      return s;
    };
    const commands = ['sh.shardCollection("test.big", {x: 1})'];
    for (let i = 0; i < 2400; i++) commands.push(`db.big.insertOne({x: ${i}, t: "${word()}${word()}"})`);
    const scenario = JSON.stringify({ format: 'shardlab-scenario', version: 1, mongodb: '8.0', shards: 3, chunkSize: null, seed: 1, position: null, commands });
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const maker = await context.newPage();
    await maker.goto(server.url);
    await maker.getByTestId('summary').waitFor();
    await maker.getByTestId('import-json').setInputFiles({ name: 's.json', mimeType: 'application/json', buffer: Buffer.from(scenario) });
    await maker.getByTestId('position').filter({ hasText: `of ${commands.length}` }).waitFor({ timeout: 60_000 });
    await maker.getByTestId('share-link').click();
    const link = await maker.getByTestId('share-url').inputValue();
    assert.ok(link.length > 100_000, `the link is ${link.length} bytes`);
    assert.match(link, /#s=/);
    // The old form in the query string is what such a host refuses.
    const refused = await fetch(link.replace('#s=', '?s='));
    assert.ok([414, 431].includes(refused.status), `the host answered ${refused.status}`);

    const reader = await (await env.browser.newContext()).newPage();
    await reader.goto(link);
    await reader.getByTestId('position').filter({ hasText: `of ${commands.length}` }).waitFor({ timeout: 60_000 });
    await typeCommand(reader, 'db.big.countDocuments()');
    await waitForLastLine(reader, '2400');
    const out = await reader.$$eval('[data-testid="console-output"] .line', (ls) => ls.map((l) => l.textContent));
    assert.equal(out[out.length - 1], '2400');
    await context.close();
  } finally {
    await server.close();
  }
});

test('Cancel stops a long statement within a second and leaves the session as it was before it', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  await steps(page, 1);
  await waitForSaved(page, 'sim.generate', 1);
  const long = 'for (var i = 0; i < 900000; i++) { db.events.insertOne({x: -i}) }';
  const input = page.getByTestId('console-input');
  await input.fill(long);
  await input.press('Enter');
  const cancel = page.getByTestId('console-cancel');
  await cancel.waitFor();
  const pressed = Date.now();
  await cancel.click();
  await page.getByTestId('notice').filter({ hasText: 'Cancelled' }).waitFor();
  const took = Date.now() - pressed;
  console.log(`Cancel: the session was back ${took} ms after the click`);
  assert.equal(await documents(page), 25, 'nothing the statement half did is kept');
  await typeCommand(page, 'db.events.countDocuments()');
  await waitForLastLine(page, '25');
  const out = await page.$$eval('[data-testid="console-output"] .line', (ls) => ls.map((l) => l.textContent));
  assert.equal(out[out.length - 1], '25');
  // The page saves after each change is drawn: once the command typed after the cancel is
  // saved, a save of the cancelled statement would have been too.
  await waitForSaved(page, 'countDocuments');
  assert.equal(await savedSession(page).then((t) => t.includes('900000')), false, 'the cancelled statement is not saved');
  await context.close();
});

test('Cancel stops a replay within a second even when one of its commands is slow', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const maker = await context.newPage();
  await maker.goto(env.server.url);
  await maker.getByTestId('summary').waitFor();
  // Each loop keeps the engine busy for seconds (until the statement's work budget).
  const slow = 'for (var i = 0; i < 900000; i++) { db.events.insertOne({x: -i}) }';
  const commands = ['sim.chunkSize(8192)', 'sh.shardCollection("test.events", {x: 1})', slow, slow];
  const scenario = JSON.stringify({ format: 'shardlab-scenario', version: 1, mongodb: '8.0', shards: 3, chunkSize: null, seed: 1, position: null, commands });
  await maker.getByTestId('import-json').setInputFiles({ name: 's.json', mimeType: 'application/json', buffer: Buffer.from(scenario) });
  await maker.getByTestId('position').filter({ hasText: `of ${commands.length}` }).waitFor({ timeout: 90_000 });
  await maker.getByTestId('share-link').click();
  const link = await maker.getByTestId('share-url').inputValue();
  await maker.close();

  const page = await context.newPage();
  await page.goto(link);
  await page.getByTestId('replay-progress').waitFor();
  const pressed = Date.now();
  await page.getByTestId('replay-cancel').click();
  const notice = page.getByTestId('notice').filter({ hasText: 'cancelled' });
  await notice.waitFor();
  const took = Date.now() - pressed;
  console.log(`replay Cancel: the page was back ${took} ms after the click`);
  assert.match(await notice.innerText(), /Opening it was cancelled at step \d+ of 4/);
  await page.getByTestId('replay-progress').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('replay-progress').count(), 0);
  await typeCommand(page, 'db.events.countDocuments()');
  await context.close();
});
