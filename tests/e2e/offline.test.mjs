// Ready offline: after one visit the service worker keeps everything the page can need,
// so every tab and lesson works without the network; and what fails to load for want of
// the network at start tries again by itself, says so, and recovers without a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, typeCommand, openSetup, waitForLastLine } from './harness.mjs';

const env = suite();

/** The last line the console printed. */
async function lastLine(page) {
  const lines = await page.$$eval('[data-testid="console-output"] .line', (ls) => ls.map((l) => l.textContent));
  return lines[lines.length - 1];
}

test('offline after one visit: the playground, every tab and a lesson work', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  const ready = page.getByTestId('offline-ready');
  await ready.waitFor({ timeout: 60_000 });
  console.log(`offline: ${await ready.getAttribute('title')}`);

  await context.setOffline(true);
  await page.reload();
  await page.getByTestId('summary').waitFor();
  await typeCommand(page, 'db.events.insertOne({x: 1})');
  await typeCommand(page, 'db.events.countDocuments()');
  await waitForLastLine(page, '1');
  assert.equal(await lastLine(page), '1');
  // A lesson from the menu.
  await page.getByLabel('Lesson', { exact: true }).selectOption('hashed');
  await page.getByTestId('lesson-text').waitFor();
  // The guided lessons (content fetched on first use).
  await page.getByTestId('tab-guide').click();
  await page.getByTestId('guide-loading').waitFor({ state: 'detached' });
  // The guide drew its outcome (the lessons' picker, or an error): only then is "no error" true.
  await page.getByTestId('guide-start').or(page.getByTestId('guide-error')).first().waitFor();
  assert.equal(await page.getByTestId('guide-error').count(), 0);
  // The glossary (fetched on first use): a term explains itself.
  await page.getByTestId('tab-playground').click();
  await openSetup(page);
  await page.locator('[data-term="shard-key"]').first().focus();
  await page.getByTestId('glossary-tip').waitFor();
  await page.waitForFunction(() => {
    const tip = document.querySelector('[data-testid="glossary-tip"]');
    return tip && tip.textContent.length > 40 && !/Loading|could not/.test(tip.textContent);
  });
  // The Compare tab.
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await screenshot(page, 'offline-compare-1440');
  await context.close();
});

test('the network cut at start and restored: the engine loads by itself, without a reload', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  let loads = 0;
  page.on('load', () => { loads += 1; });
  // The engine's worker cannot be fetched at first.
  const cut = (route) => route.abort('internetdisconnected');
  await context.route('**/engine-*/**', cut);
  await page.goto(env.server.url);
  const status = page.getByTestId('engine-status');
  await status.filter({ hasText: /The engine could not load/ }).waitFor();
  assert.match(await status.innerText(), /The engine could not load: the network seems to be away\. It tries again by itself\./);
  await screenshot(page, 'engine-waiting-1440');
  // The network is back: the page recovers on its own.
  await context.unroute('**/engine-*/**', cut);
  await page.getByTestId('summary').waitFor({ timeout: 60_000 });
  await status.waitFor({ state: 'detached' });
  await typeCommand(page, 'db.events.countDocuments()');
  await waitForLastLine(page, '0');
  assert.equal(await lastLine(page), '0');
  assert.equal(loads, 1, 'no reload');
  await context.close();
});
