// Simulated time in the page: after a workload that the balancer has not caught up with,
// "Let time pass" lets the clock run while the user watches, and the background balancer's
// migrations appear as they happen; Pause stops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openFresh, readShards, screenshot } from './harness.mjs';

const env = suite();

async function type(page, command) {
  const input = page.getByTestId('console-input');
  await input.fill(command);
  await input.press('Enter');
}

test('clock: letting time pass balances the chunks a console workload piled on one shard', async () => {
  const { page, errors } = await openFresh(env);
  await type(page, 'sim.reset({shards: 3, version: "5.0", chunkSize: 65536})');
  await type(page, 'sh.shardCollection("test.events", {x: 1})');
  await type(page, 'sim.generate("test.events", "monotonic", 3000)');
  await page.waitForFunction(() => document.querySelector('[data-testid="summary"]')?.innerText.includes('3000 documents'));
  const before = await readShards(page);
  assert.equal(before.filter((s) => s.docs > 0).length, 1, 'sim.generate alone runs no balancer round');
  const button = page.getByTestId('pass-time');
  assert.equal(await button.getAttribute('aria-pressed'), 'false');
  await button.click();
  assert.equal(await button.getAttribute('aria-pressed'), 'true');
  // The balancer's rounds move chunks while the clock runs.
  await page.waitForFunction(() => {
    const cols = [...document.querySelectorAll('[data-testid="shard"]')];
    return cols.filter((c) => Number(c.querySelector('[data-testid="shard-totals"]').dataset.docs) > 0).length === 3;
  }, null, { timeout: 60_000 });
  // Pause stops the clock.
  await page.getByTestId('step').focus();
  await page.keyboard.press(' ');
  await page.waitForFunction(() => document.querySelector('[data-testid="pass-time"]').getAttribute('aria-pressed') === 'false');
  // The steps were sleep(2000) commands: the console said so once.
  const console = await page.getByTestId('console-output').innerText();
  assert.match(console, /sleep\(2000\)/);
  await screenshot(page, 'clock-balanced');
  assert.deepEqual(errors, []);
});
