// Issue 38, "the console answers within 3 s on a phone": on a first visit the console is
// answered by the engine's worker before the page's own wasm has come (index.html's early
// console), the page's module loads only once the engine has answered (or something else
// is asked of the page), and the page, once it starts, takes the early session and its
// commands over without running any of them again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, typeCommand, waitForLastLine, holdBack } from './harness.mjs';

const env = suite();

/** A first visit whose page module (not the engine) is held until `release()`. */
async function pageHeld(viewport = { width: 1440, height: 900 }) {
  const page = await env.browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { asked, release } = await holdBack(page, /\/page-[0-9a-f]{16}\//);
  return { page, errors, release, asked };
}

/** Runs `command` in the page's console and waits for its answer, `answer`, to be the last
 * of the two lines it adds. */
async function runAfter(page, command, answer) {
  const before = (await lines(page)).length;
  const input = page.getByTestId('console-input');
  await input.fill(command);
  await input.press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="console-output"] .line').length >= n + 2, before);
  await waitForLastLine(page, answer);
}

/** The console's lines as drawn. */
const lines = (page) => page.$$eval('[data-testid="console-output"] .line', (ls) => ls.map((l) => l.textContent));

test('the console answers before the page has come, and the page takes its session over without running anything twice', async () => {
  const { page, errors, release, asked } = await pageHeld();
  await page.goto(env.server.url);
  await page.getByTestId('first-summary').waitFor();
  await typeCommand(page, 'db.events.insertOne({_id: 1, x: 5})');
  await page.locator('[data-testid="console-output"] .line.out', { hasText: 'acknowledged' }).waitFor();
  await typeCommand(page, 'db.events.countDocuments()');
  await waitForLastLine(page, '1');
  // Answered by the engine alone: the page is still the HTML the build wrote.
  assert.equal(await page.evaluate(() => document.documentElement.dataset.firstScreen), 'live-soon');
  assert.equal(await page.getByTestId('summary').count(), 0);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.earlyConsole), 'ran');
  await page.getByTestId('getting-ready').filter({ hasText: 'The console is live' }).waitFor();
  const early = await lines(page);
  await screenshot(page, 'early-console-answered');
  assert.ok(asked.length > 0, 'the page did not start loading once the engine had answered');
  release();
  // The page hydrates, takes the session and prints the same lines again.
  await page.getByTestId('summary').waitFor();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="console-output"] .line').length >= n, early.length);
  assert.deepEqual(await lines(page), early);
  assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-early-console')), false);
  // Run once, not twice: the page's lines are the early ones (a second insert of the same
  // _id would have printed E11000 in the page's), and the count says 1, not 2.
  assert.equal((await lines(page)).filter((l) => /E11000/.test(l)).length, 0);
  await runAfter(page, 'db.events.countDocuments()', '1');
  assert.equal((await lines(page)).length, early.length + 2);
  // The page's history holds what the early console ran (a command repeated is kept once,
  // as mongosh keeps it).
  const input = page.getByTestId('console-input');
  await input.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('[data-testid="console-input"]').value === 'db.events.countDocuments()');
  await input.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('[data-testid="console-input"]').value === 'db.events.insertOne({_id: 1, x: 5})');
  // The cluster drawn is the session's: one document more than the first screen showed.
  await page.getByTestId('summary').filter({ hasText: /\b1 doc/ }).waitFor();
  assert.equal(await page.evaluate(() => document.querySelectorAll('[data-early]').length), 0);
  await screenshot(page, 'early-console-taken-over');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a first visit the page\'s module is asked for only after the engine has answered', async () => {
  const page = await env.browser.newPage({ viewport: { width: 400, height: 800 } });
  // When the engine's worker first answered, in page time.
  await page.addInitScript(() => {
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', () => { window.__engineAnswered ??= performance.now(); });
      }
    };
  });
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  const { answered, asked } = await page.evaluate(() => ({
    answered: window.__engineAnswered,
    asked: performance.getEntriesByType('resource').find((e) => /shardlab-web_bg\.wasm$/.test(e.name))?.startTime,
  }));
  assert.ok(answered !== undefined && asked !== undefined, `answered ${answered}, asked ${asked}`);
  assert.ok(asked >= answered, `the page's module was asked for at ${asked} ms, before the engine answered at ${answered} ms`);
  await screenshot(page, 'early-console-page-400');
  await page.close();
});

test('a click before the engine has answered loads the page at once, and what was typed still runs once', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1440, height: 900 } });
  const { release } = await holdBack(page, /engine_bg\.wasm$/);
  const asked = [];
  page.on('request', (r) => { if (/shardlab-web_bg\.wasm$/.test(r.url())) asked.push(r.url()); });
  await page.goto(env.server.url);
  await page.getByTestId('first-summary').waitFor();
  const input = page.getByTestId('console-input');
  await input.fill('db.events.insertOne({_id: 7})');
  await input.press('Enter');
  await page.getByTestId('glossary-toggle').click();
  // The page comes while the engine is still held back, and hydrates without it.
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-first-screen'));
  assert.ok(asked.length > 0);
  assert.equal(await page.evaluate(() => document.querySelectorAll('[data-early]').length), 0);
  release();
  await page.locator('[data-testid="console-output"] .line.out', { hasText: 'insertedId: 7' }).waitFor();
  await typeCommand(page, 'db.events.countDocuments()');
  await waitForLastLine(page, '1');
  await page.close();
});

test('after the page took the early session over, a restart of the engine brings back what the early console ran', async () => {
  const { page, errors, release } = await pageHeld({ width: 400, height: 800 });
  await page.goto(env.server.url);
  await page.getByTestId('first-summary').waitFor();
  await typeCommand(page, 'db.events.insertOne({_id: 1, x: 5})');
  await page.locator('[data-testid="console-output"] .line.out', { hasText: 'acknowledged' }).waitFor();
  await screenshot(page, 'early-console-answered-400');
  release();
  await page.getByTestId('summary').filter({ hasText: /\b1 doc/ }).waitFor();
  // Cancel stops the engine; the page replays its session into a new one from the form the
  // engine last sent, which must hold the early command.
  const input = page.getByTestId('console-input');
  await input.fill('for (var i = 0; i < 900000; i++) { db.events.insertOne({x: -i}) }');
  await input.press('Enter');
  await page.getByTestId('console-cancel').click();
  await page.getByTestId('notice').filter({ hasText: 'Cancelled' }).waitFor();
  await runAfter(page, 'db.events.countDocuments()', '1');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a command typed early that needs the engine\'s second part waits for it and runs once', async () => {
  const { page, errors, release } = await pageHeld();
  const { release: releasePart } = await holdBack(page, /split_rest\.wasm$/);
  await page.goto(env.server.url);
  await page.getByTestId('first-summary').waitFor();
  // The insert runs before the regex needs the second part in the same line: the line is
  // put back and run again once the part is in, so the count is 1, not 2.
  await typeCommand(page, 'db.events.insertOne({s: "abc"}); db.events.countDocuments({s: /^a/})');
  await page.locator('[data-testid="console-output"] .line.early-waiting').waitFor();
  releasePart();
  await waitForLastLine(page, '1');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.firstScreen), 'live-soon');
  release();
  await page.getByTestId('summary').filter({ hasText: /\b1 doc/ }).waitFor();
  await runAfter(page, 'db.events.countDocuments({s: /c$/})', '1');
  assert.deepEqual(errors, []);
  await page.close();
});
