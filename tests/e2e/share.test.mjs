// Share links, embed mode, persistence and export/import, used as a person would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { suite, screenshot, readChunks, playLesson, storeSession, waitForSaved } from './harness.mjs';

const env = suite();

const table = (chunks) => chunks.map((c) => `${c.shard} ${c.min} ${c.max} ${c.count} ${c.jumbo}`).join('\n');

test('a share link reproduces the same chunk table in a fresh browser', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'monotonic');
  const end = await page.getByTestId('position').innerText();
  await page.getByRole('button', { name: 'Back', exact: false }).first().click();
  // The engine moves the cursor from its worker: the step back is drawn once it answers.
  await page.waitForFunction((end) => document.querySelector('[data-testid="position"]').innerText !== end, end);
  const position = await page.getByTestId('position').innerText();
  const before = table(await readChunks(page));
  await page.getByTestId('share-link').click();
  const url = await page.getByTestId('share-url').inputValue();
  assert.match(url, /#s=v2\./);

  const context = await env.browser.newContext();
  const other = await context.newPage();
  await other.goto(url);
  // The link replays in the engine's worker: it is open once it stands at the same step.
  await other.getByTestId('position').filter({ hasText: position }).waitFor();
  await other.getByTestId('replay-progress').waitFor({ state: 'detached' });
  assert.equal(table(await readChunks(other)), before, 'the same cluster, at the same timeline position');
  assert.equal(await other.getByTestId('position').innerText(), position);
  await context.close();
});

test('a corrupt link shows a notice and a clean, working playground', async () => {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?s=v1.%21%21not-a-scenario`);
  await page.getByTestId('notice').filter({ hasText: /could not be opened/ }).waitFor();
  assert.match(await page.getByTestId('notice').innerText(), /could not be opened/);
  // The fresh playground is drawn once the engine has opened it.
  await page.locator('[data-testid="chunk"]').first().waitFor();
  const chunks = await readChunks(page);
  assert.equal(chunks.length, 1, 'a fresh playground');
  await page.getByTestId('step').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow') !== '0');
  assert.deepEqual(errors, []);
  const unknown = await env.browser.newPage();
  await unknown.goto(`${env.server.url}?s=v9.AAAA`);
  await unknown.getByTestId('notice').filter({ hasText: /could not be opened/ }).waitFor();
  assert.match(await unknown.getByTestId('notice').innerText(), /could not be opened/);
});

test('corrupt saved data shows a notice and a working page; a good session survives a reload', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.server.url);
  // The page saves its fresh session once it has drawn; corrupt the store only after that,
  // or the page's own save could land on top of the corruption.
  await page.waitForSelector('[data-testid="chunk"]');
  await storeSession(page, '{"format": "nonsense"');
  await page.reload();
  await page.getByTestId('notice').filter({ hasText: /could not be restored/ }).waitFor();
  assert.match(await page.getByTestId('notice').innerText(), /could not be restored/);
  await page.locator('[data-testid="chunk"]').first().waitFor();
  assert.equal((await readChunks(page)).length, 1);

  // Now make some history and reload: it comes back.
  await page.getByTestId('step').click();
  await page.getByTestId('step').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow') === '50');
  const before = table(await readChunks(page));
  // The session is saved just after each change is drawn; wait until both steps are in.
  await waitForSaved(page, 'sim.generate', 2);
  await page.reload();
  await page.waitForSelector('[data-testid="chunk"]');
  // The saved session replays in the engine's worker: it is back once it holds its 50 documents.
  await page.waitForFunction(() => document.querySelector('[data-testid="progress"]')?.getAttribute('aria-valuenow') === '50');
  assert.equal(table(await readChunks(page)), before);
  assert.equal(await page.getByTestId('notice').count(), 0, 'no notice for a good session');
  await context.close();
});

test('export to JSON and import it back gives the same cluster', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'hashed');
  const before = table(await readChunks(page));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const path = await download.path();
  const text = await readFile(path, 'utf8');
  assert.match(text, /"format": "shardlab-scenario"/);

  const fresh = await (await env.browser.newContext()).newPage();
  await fresh.goto(env.server.url);
  const position = await page.getByTestId('position').innerText();
  await fresh.getByTestId('import-json').setInputFiles(path);
  // The engine replays the import in its worker: it is restored once it stands where the
  // exported session stood.
  await fresh.getByTestId('position').filter({ hasText: position }).waitFor();
  await fresh.waitForFunction((n) => document.querySelectorAll('[data-testid="chunk"]').length === n, before.split('\n').length);
  assert.equal(table(await readChunks(fresh)), before);

  const [svg] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
  assert.match(await readFile(await svg.path(), 'utf8'), /^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()]);
  const bytes = await readFile(await png.path());
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
});

test('the embed demo page shows two playgrounds inside iframes', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1200, height: 1700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}embed-demo.html`);
  const first = page.frameLocator('[data-testid="demo-frame-monotonic"]');
  const second = page.frameLocator('[data-testid="demo-frame-hashed"]');
  await first.getByTestId('embed').waitFor();
  await second.getByTestId('embed').waitFor();
  assert.equal(await second.getByTestId('console-output').count(), 0, 'hide=console hides the console');
  assert.equal(await first.getByTestId('console-output').count(), 1);
  // The engine opens each embed's session: its chunks are drawn once it answers.
  await second.getByTestId('chunk').nth(5).waitFor();
  assert.equal(await second.getByTestId('chunk').count(), 6, 'the hashed lesson starts pre-split');
  // autoplay=1 plays the first scenario on its own.
  await first.getByTestId('pause').waitFor();
  await first.locator('[data-testid="open-in-shardlab"][href*="#s=v2."]').waitFor();
  const href = await first.getByTestId('open-in-shardlab').getAttribute('href');
  assert.match(href, /#s=v2\./);
  // Let the autoplayed workload get going before the picture: four ticks of 25 documents.
  const frame = await (await page.getByTestId('demo-frame-monotonic').elementHandle()).contentFrame();
  await frame.waitForFunction(
    () => Number(document.querySelector('[data-testid="progress"]')?.getAttribute('aria-valuenow')) >= 100,
  );
  await screenshot(page, 'embed-demo');
  assert.deepEqual(errors, []);
});

test('Export for mongosh downloads a script of the session that real mongosh can run: a header naming the cluster, no sim. outside comments', async () => {
  const { page } = await playLesson(env.browser, env.server.url, 'hashed');
  const shards = await page.getByTestId('shard').count();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-mongosh').click()]);
  assert.equal(download.suggestedFilename(), 'shardlab-scenario.mongosh.js');
  const text = await readFile(await download.path(), 'utf8');
  const header = text.split('\n').filter((l) => l.startsWith('//')).join('\n');
  assert.match(header, new RegExp(`a sharded cluster of ${shards} shard\\(s\\)`), header);
  assert.match(header, /mongodb-runner/);
  assert.match(text, /sh\.shardCollection\("test\.events", \{ _id: 'hashed' \}|sh\.shardCollection\(['"]test\.\w+['"]/);
  const code = text.split('\n').filter((l) => !l.trimStart().startsWith('//')).join('\n');
  assert.doesNotMatch(code, /\bsim\./, 'every sim. helper became real commands or a comment');
  assert.match(code, /insertMany\(/, 'the lesson\'s generated documents are written out');
  await page.close();
});
