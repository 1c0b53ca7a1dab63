// Nothing a person types, links or loads kills the page, freezes it, or loses their work:
// hostile links and stored sessions, deep values typed in the console, damaged links over
// saved work, and a real panic (the test-only trap `sim.__trap()`, available with
// ?selftest=trap) that the page recovers from with a banner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdir } from 'node:fs/promises';
import { suite, screenshot, readShards, waitForSaved, savedSession, storeSession, storedSessions } from './harness.mjs';

const env = suite();

const SETUP = ['sim.chunkSize(8192)', 'sh.shardCollection("test.events", {x: 1})'];
const times = (n, command) => Array.from({ length: n }, () => command);

// Commands that would overflow the stack or exhaust memory if the shell let them.
const BOMBS = {
  'shared halves (2^22 values)': ['var a = {x: 1}', ...times(22, 'a = {l: a, r: a}'), 'db.c.insertOne(a)'],
  'a doubling string (2^33 characters)': ['var s = "x"', ...times(33, 's = s + s'), 'db.c.insertOne({s: s})'],
  'a value 300 levels deep': ['var x = 1', ...times(300, 'x = {a: x}'), 'db.c.insertOne(x)'],
  'a million documents at once': ['sim.generate("test.events", "monotonic", 1000000)'],
};

/** A scenario file, as the share bar exports it. */
function scenarioJson(commands) {
  return JSON.stringify({
    format: 'shardlab-scenario', version: 1, mongodb: '5.0', shards: 3, chunkSize: null, seed: 1, position: null,
    commands: [...SETUP, ...commands],
  });
}

/** Makes a share link of `commands` with the page's own codec: import them, copy the link. */
async function linkFor(page, commands) {
  await page.getByTestId('import-json').setInputFiles({
    name: 'scenario.json', mimeType: 'application/json', buffer: Buffer.from(scenarioJson(commands)),
  });
  const steps = SETUP.length + commands.length;
  await page.getByTestId('position').filter({ hasText: `of ${steps}` }).waitFor();
  await page.getByTestId('share-link').click();
  return page.getByTestId('share-url').inputValue();
}

/** Types a command into the console, presses Enter and returns what the console printed for it. */
async function ask(page, command, { timeout = 10_000 } = {}) {
  const input = page.getByTestId('console-input');
  await input.fill(command);
  await input.press('Enter');
  const handle = await page.waitForFunction((command) => {
    const inputs = [...document.querySelectorAll('[data-testid="console-output"] .line.in')];
    const last = inputs[inputs.length - 1];
    if (!last || last.textContent !== `test> ${command}` || !last.nextElementSibling) return null;
    const out = [];
    for (let el = last.nextElementSibling; el; el = el.nextElementSibling) out.push(el.textContent);
    return out;
  }, command, { timeout });
  return handle.jsonValue();
}

/** Documents in the shown collection, from the shard columns. */
async function documents(page) {
  return (await readShards(page)).reduce((n, s) => n + s.docs, 0);
}

/** Inserts 50 documents with two workload steps and waits until the session is saved. */
async function makeWork(page) {
  await page.getByTestId('step').click();
  await page.getByTestId('step').click();
  // Drawn, then saved (the save can land before the picture under load).
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((sum, el) => sum + Number(el.dataset.docs), 0) === 50);
  return waitForSaved(page, 'sim.generate', 2);
}

/** Records the longest stretch between animation frames from the page's first script on. */
function frameGapProbe() {
  window.__longestGap = 0;
  let last = performance.now();
  const frame = (t) => {
    window.__longestGap = Math.max(window.__longestGap, t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

test('hostile links open and the page answers sh.status()', async () => {
  const maker = await env.browser.newPage();
  await maker.goto(env.server.url);
  const links = {};
  for (const [name, commands] of Object.entries(BOMBS)) links[name] = await linkFor(maker, commands);
  await maker.close();
  for (const [name, url] of Object.entries(links)) {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(frameGapProbe);
    const start = Date.now();
    await page.goto(url);
    // The answer waits for the engine to refuse the link's bomb; under a loaded machine that
    // took over 10 s once (1.6 s alone), so the wait is for an answer, not a speed.
    const out = await ask(page, 'sh.status()', { timeout: 60_000 });
    assert.match(out.join('\n'), /shardingVersion/, name);
    const gap = await page.evaluate(() => window.__longestGap);
    console.log(`${name}: answered ${Date.now() - start} ms after opening; longest frame gap ${Math.round(gap)} ms`);
    assert.deepEqual(errors, [], name);
    await context.close();
  }
});

test('a hostile stored session loads and the page answers after each of two reloads', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  const bombs = Object.values(BOMBS).flat();
  // Stored as this tab's saved session.
  await storeSession(page, scenarioJson(bombs));
  for (const round of [1, 2]) {
    await page.reload();
    // The session restored, with the sh.status() of the round before as a step of its own.
    const steps = SETUP.length + bombs.length + round - 1;
    await page.getByTestId('position').filter({ hasText: `step ${steps} of ${steps}` }).waitFor();
    assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/, `reload ${round}`);
    await waitForSaved(page, 'sh.status()', round);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('deep values typed in the console are refused in MongoDB words and the console keeps answering', async () => {
  const page = await (await env.browser.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  // One multi-line paste: each assignment past the nesting limit is refused.
  const paste = ['var x = 1', ...times(300, 'x = {a: x}')].join('\n');
  const answers = await ask(page, paste);
  // mongosh echoes each assignment's value: the ones within the limit print the value
  // built, and each one past it is refused, in the same words every time.
  const refused = answers.filter((l) => l.startsWith('MongoServerError'));
  assert.ok(refused.length > 0 && refused.every((l) => l === refused[0]), 'one refusal per statement past the limit');
  assert.ok(answers.some((l) => l.startsWith('{\n  a: {')), 'values within the limit are echoed');
  assert.match(refused[0], /^MongoServerError\[Overflow\]: BSONObj exceeds maximum nested object depth/);
  const insert = await ask(page, 'db.c.insertOne(x)');
  assert.match(insert.join('\n'), /^MongoServerError\[\w+\]|acknowledged/);
  // The refused insert stored nothing: an empty cursor prints nothing (as mongosh), and
  // the count says so.
  assert.deepEqual(await ask(page, 'db.c.countDocuments()'), ['0']);
  assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/);
  assert.deepEqual(errors, []);
});

test('a damaged link over saved work leaves it saved, and "Return to your session" brings it back', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.server.url);
  const saved = await makeWork(page);

  await page.goto(`${env.server.url}?s=v1.%21%21damaged`);
  const notice = page.getByTestId('notice');
  await notice.waitFor();
  assert.match(await notice.innerText(), /could not be opened.*your saved session is untouched/s);
  assert.equal(await documents(page), 0, 'a fresh playground');
  assert.equal(await savedSession(page), null, 'the fresh playground is a session of its own, not saved until used');
  assert.ok((await storedSessions(page)).some((m) => m.own === 2), 'the work is still stored');
  await page.setViewportSize({ width: 1440, height: 900 });
  await screenshot(page, 'notice-damaged-link-1440');
  await page.setViewportSize({ width: 400, height: 900 });
  await screenshot(page, 'notice-damaged-link-400');
  await page.getByTestId('return-to-session').click();
  await page.waitForFunction(() => !location.href.includes('s='));
  await notice.waitFor({ state: 'detached' });
  assert.equal(await documents(page), 50);

  // A good link over saved work: the work is kept and comes back the same way.
  const other = await (await env.browser.newContext()).newPage();
  await other.goto(env.server.url);
  await other.getByTestId('step').click();
  await other.getByTestId('share-link').click();
  const link = await other.getByTestId('share-url').inputValue();
  await page.goto(link);
  await notice.waitFor();
  assert.match(await notice.innerText(), /You opened a shared scenario\. Your own session is kept/);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="chunk"]').length > 0);
  assert.equal(await documents(page), 25);
  await page.getByTestId('return-to-session').click();
  await page.waitForFunction(() => !location.href.includes('s='));
  await notice.waitFor({ state: 'detached' });
  assert.equal(await documents(page), 50);
  await context.close();
});

test('a panic shows the banner, keeps the documents inserted before it, and the page answers', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?selftest=trap`);
  await makeWork(page);
  const input = page.getByTestId('console-input');
  await input.fill('sim.__trap()');
  await input.press('Enter');
  const banner = page.getByTestId('crash-banner');
  await banner.waitFor();
  assert.equal(await banner.getAttribute('role'), 'alert');
  assert.match(await banner.innerText(), /ShardLab stopped: an internal error while running sim\.__trap\(\)\. The page reloaded with your saved session/);
  assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/);
  assert.equal(await documents(page), 50);
  // The panic aborts: one trap, then nothing. (The reload that follows can come before the
  // browser reports the trap, which now happens in a callback of the engine's answer.)
  assert.ok(errors.length <= 1 && errors.every((e) => /unreachable/.test(e)), `errors: ${errors}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'crash-banner-1440');
  await page.setViewportSize({ width: 400, height: 900 });
  await screenshot(page, 'crash-banner-400');
  await banner.getByRole('button', { name: 'Dismiss the message' }).click();
  await banner.waitFor({ state: 'detached' });
  // Without ?selftest=trap the command is an ordinary unknown one.
  await page.goto(env.server.url);
  assert.match((await ask(page, 'sim.__trap()')).join('\n'), /Error/);
  await context.close();
});

test('a stored session that kills the engine is set aside, offered for download, and the page answers', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  let loads = 0;
  page.on('load', () => { loads += 1; });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?selftest=trap`);
  // The replay runs in the engine's worker: the trap kills the worker, never the page.
  const deadly = scenarioJson(['db.c.insertOne({x: 1})', 'sim.__trapEngine()']);
  await storeSession(page, deadly);
  const planted = await page.evaluate(() => sessionStorage.getItem('shardlab.session.id'));
  const logs = [];
  page.on('console', (m) => logs.push(`${Date.now() % 100000} ${m.type()}: ${m.text().slice(0, 300)}`));
  page.on('load', () => logs.push(`${Date.now() % 100000} LOAD`));
  await page.reload();
  const notice = page.getByTestId('notice');
  try {
    await notice.filter({ hasText: 'set aside' }).waitFor();
  } catch (e) {
    const state = await page.evaluate(() => ({
      id: sessionStorage.getItem('shardlab.session.id'),
      leaving: sessionStorage.getItem('shardlab.session.leaving'),
      loading: localStorage.getItem('shardlab.session.loading'),
      notice: document.querySelector('[data-testid="notice"]')?.innerText,
      summary: document.querySelector('[data-testid="summary"]')?.innerText,
      console: document.querySelector('[data-testid="console-output"]')?.innerText.slice(-600),
    }));
    console.log('DEBUG PLANTED', planted, 'STATE', JSON.stringify(state, null, 1));
    console.log('DEBUG SESSIONS', JSON.stringify(await storedSessions(page)));
    console.log('DEBUG LOGS\n' + logs.join('\n'));
    throw e;
  }
  assert.match(await notice.innerText(), /Your saved session could not be restored \(replaying it stopped the engine\), so it was set aside\. Starting fresh\./);
  assert.equal(loads, 2, 'the first load and the reload the test asked for: the page itself never died');
  assert.deepEqual(errors, [], 'nothing failed in the page');
  const aside = (await storedSessions(page)).find((m) => m.id === planted);
  assert.match(aside.aside ?? '', /stopped the engine/, 'set aside, still stored');
  assert.notEqual(await page.evaluate(() => sessionStorage.getItem('shardlab.session.id')), planted);
  assert.equal(await page.evaluate(() => localStorage.getItem('shardlab.session.loading')), null);
  await screenshot(page, 'set-aside-1440');
  await page.setViewportSize({ width: 400, height: 900 });
  await screenshot(page, 'set-aside-400');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-session').click()]);
  assert.equal(download.suggestedFilename(), 'shardlab-session.json');
  assert.equal(await readFile(await download.path(), 'utf8'), deadly);
  assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/);
  await context.close();
});

test('a worker killed mid-play starts again with the session intact, and the page never stops', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?selftest=trap`);
  await makeWork(page);
  // Play, then kill the engine under the playing workload.
  await page.getByTestId('play').click();
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid="progress"] .progress-text')?.textContent ?? '';
    return Number(t.split(' ')[0]) >= 100;
  });
  const input = page.getByTestId('console-input');
  await input.fill('sim.__trapEngine()');
  await input.press('Enter');
  const notice = page.getByTestId('notice');
  const restarted = notice.filter({ hasText: /The engine stopped \(.+\) and started again/ });
  await restarted.waitFor({ timeout: 30_000 });
  // The notice says what stopped it: the trap's panic, as the browser reported it.
  assert.match(await restarted.innerText(), /The engine stopped \((?!no reason given).+\) and started again/);
  // The session was replayed into a new engine: its documents are all there, and the
  // console answers.
  const docs = await documents(page);
  assert.ok(docs >= 100, `documents after the restart: ${docs}`);
  assert.match((await ask(page, 'db.events.countDocuments()')).join('\n'), /^\d+$/m);
  assert.deepEqual(errors, [], 'the page itself never failed');
  await screenshot(page, 'engine-restarted-1440');
  await context.close();
});

test('a session past what a link holds restarts from the copy the engine kept, when its worker dies', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?selftest=trap`);
  await makeWork(page);
  // About 400 KB of documents in one command: more than a link holds (256 KiB), so the
  // engine's save event carries no link form and the worker keeps the JSON form itself.
  const docs = Array.from({ length: 4000 }, (_, i) => `{x: ${1000 + i}, pad: "${'p'.repeat(90)}"}`);
  const input = page.getByTestId('console-input');
  await input.fill(`db.events.insertMany([${docs.join(',')}]).insertedIds.length`);
  await input.press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((sum, el) => sum + Number(el.dataset.docs), 0) === 4050, null, { timeout: 30_000 });
  // Kept by the worker: the saved session holds the insert (measured in the page, as the
  // text is large).
  await page.waitForFunction(async () => {
    const id = sessionStorage.getItem('shardlab.session.id');
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open('shardlab', 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const row = await new Promise((resolve) => {
      const r = db.transaction('scenarios').objectStore('scenarios').get(id);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => resolve(null);
    });
    db.close();
    return row && row.text.length > 400_000 && row.text.includes('x: 5049');
  }, null, { polling: 200, timeout: 30_000 });
  await input.fill('sim.__trapEngine()');
  await input.press('Enter');
  const restarted = page.getByTestId('notice').filter({ hasText: /The engine stopped \(.+\) and started again/ });
  await restarted.waitFor({ timeout: 60_000 });
  // Replayed from the kept copy: every document is back, and the console answers.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')]
    .reduce((sum, el) => sum + Number(el.dataset.docs), 0) === 4050, null, { timeout: 60_000 });
  assert.deepEqual(await ask(page, 'db.events.countDocuments({x: {$gte: 1000}})', { timeout: 30_000 }), ['4000']);
  assert.deepEqual(errors, [], 'the page itself never failed');
  await context.close();
});

test('the embedded view shows the same notices', async () => {
  const page = await (await env.browser.newContext()).newPage();
  await page.goto(`${env.server.url}?embed=1&s=v1.%21%21damaged`);
  await page.getByTestId('embed').waitFor();
  assert.match(await page.getByTestId('notice').innerText(), /This link could not be opened/);
  await page.goto(`${env.server.url}?embed=1&preset=no-such-lesson`);
  assert.match(await page.getByTestId('notice').innerText(), /There is no lesson called 'no-such-lesson'/);
});

// Commands in the long link: enough for a replay of many seconds, few enough that making
// the link (an import, under the same 30-second replay budget) finishes on a slow machine.
const LONG = 1500;

test('a long link replays in slices: progress, a page that answers, and Cancel keeps what was replayed', async () => {
  // A link of LONG commands, made with the page's own codec: import them (the
  // import replays in slices too), then copy the link.
  const maker = await env.browser.newPage();
  await maker.goto(env.server.url);
  const batch = 'sim.generate("test.events", "monotonic", 200)';
  await maker.getByTestId('import-json').setInputFiles({
    name: 'scenario.json', mimeType: 'application/json', buffer: Buffer.from(scenarioJson(times(LONG, batch))),
  });
  await maker.getByTestId('replay-progress').waitFor();
  await maker.getByTestId('replay-progress').waitFor({ state: 'detached', timeout: 60_000 });
  const steps = SETUP.length + LONG;
  await maker.getByTestId('position').filter({ hasText: `step ${steps} of ${steps}` }).waitFor();
  await maker.getByTestId('share-link').click();
  const url = await maker.getByTestId('share-url').inputValue();
  await maker.close();

  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(frameGapProbe);
  await page.goto(url);
  const progress = page.getByTestId('replay-text');
  await progress.waitFor();
  // Frames are measured from here: the replay, not the page's own load.
  await page.evaluate(() => { window.__longestGap = 0; });
  const first = await progress.textContent();
  const total = steps.toLocaleString('en-US');
  assert.match(first, new RegExp(`^Replaying the shared scenario: [\\d,]+ of ${total} commands$`));
  await page.waitForFunction((first) => {
    const text = document.querySelector('[data-testid="replay-text"]')?.textContent;
    return text && text !== first;
  }, first);
  const running = await page.evaluate(() => sessionStorage.getItem('shardlab.running'));
  assert.match(running, /opening the shared link/, 'the crash record names the replay');
  await mkdir('target/screenshots', { recursive: true });
  await page.screenshot({ path: 'target/screenshots/replay-progress-1440.png' });
  await page.setViewportSize({ width: 400, height: 800 });
  await page.screenshot({ path: 'target/screenshots/replay-progress-400.png' });
  await page.setViewportSize({ width: 1440, height: 900 });
  // The page answers input while it replays: typing lands in the console.
  await page.getByTestId('console-input').fill('db.events.countDocuments()');
  assert.equal(await page.getByTestId('console-input').inputValue(), 'db.events.countDocuments()');
  const gap = await page.evaluate(() => window.__longestGap);
  await page.getByTestId('replay-cancel').click();
  await page.getByTestId('replay-progress').waitFor({ state: 'detached' });
  const notice = await page.getByTestId('notice').textContent();
  assert.match(notice, /Opening it was cancelled at step \d+ of \d+/);
  assert.equal(await page.getByTestId('download-session').count(), 1, 'the scenario is offered for download');
  const kept = await documents(page);
  console.log(`long link of ${steps} steps: longest frame gap during the replay ${Math.round(gap)} ms; cancelled with ${kept} documents (the whole scenario holds ${(steps - 2) * 200})`);
  assert.ok(kept > 0 && kept < (steps - 2) * 200, `${kept} documents kept`);
  assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/);
  await page.waitForFunction(() => sessionStorage.getItem('shardlab.running') === null);
  assert.deepEqual(errors, []);
  await context.close();
});

test('long flat chains typed, imported and linked get a clear error and never reach the stack', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  const chains = [
    `var s = ${Array(20_000).fill("'a'").join(' + ')}`,
    `var o = {a: 1}; o${'.a'.repeat(100_000)}`,
    `db.c.find()${'.limit(1)'.repeat(100_000)}`,
    `[1]${'[0]'.repeat(100_000)}`,
  ];
  const tooLong = /^SyntaxError: expression too long: more than 1000 operators, property accesses and calls in a row/;
  // Typed.
  for (const chain of chains) {
    const answer = await ask(page, chain);
    assert.match(answer.join('\n'), tooLong, chain.slice(0, 40));
  }
  // Imported as a scenario file, then shared as a link and opened in a fresh browser
  // (shorter chains, as a link holds at most 256 KiB of commands; still far past
  // the 1000 the parser takes in a row).
  const shorter = [
    `var s = ${Array(5_000).fill("'a'").join(' + ')}`,
    `var o = {a: 1}; o${'.a'.repeat(20_000)}`,
    `db.c.find()${'.limit(1)'.repeat(5_000)}`,
    `[1]${'[0]'.repeat(20_000)}`,
  ];
  const url = await linkFor(page, shorter);
  assert.match((await ask(page, 'sh.status()')).join('\n'), /shardingVersion/);
  const reader = await (await env.browser.newContext()).newPage();
  reader.on('pageerror', (e) => errors.push(e.message));
  await reader.goto(url);
  const steps = SETUP.length + shorter.length;
  await reader.getByTestId('position').filter({ hasText: `step ${steps} of ${steps}` }).waitFor();
  assert.match((await ask(reader, 'sh.status()')).join('\n'), /shardingVersion/);
  assert.deepEqual(errors, []);
  await context.close();
});
