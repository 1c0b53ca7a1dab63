// Simulated time in the page: after a workload that the balancer has not caught up with,
// "Let time pass" lets the clock run while the user watches, and the background balancer's
// migrations appear as they happen; Pause stops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openFresh, readShards, screenshot, typeCommand } from './harness.mjs';

const env = suite();

async function type(page, command) {
  await typeCommand(page, command);
}

test('clock: letting time pass balances the chunks a console workload piled on one shard', async () => {
  const { page, errors } = await openFresh(env);
  await type(page, 'sim.reset({shards: 3, version: "5.0", chunkSize: 8192})');
  await type(page, 'sh.shardCollection("test.events", {x: 1})');
  await type(page, 'sim.generate("test.events", "uniform", 3000)');
  await page.waitForFunction(() => document.querySelector('[data-testid="summary"]')?.innerText.includes('3000 documents'));
  // Uniform inserts split chunks in the middle of the key space, where 5.0's splitter moves
  // nothing (only a new top or bottom chunk moves): they pile up on shard01, as no balancer
  // round has run yet.
  const spread = (shards) => Math.max(...shards.map((s) => s.chunks)) - Math.min(...shards.map((s) => s.chunks));
  const before = await readShards(page);
  assert.ok(spread(before) > 10, `chunks per shard before: ${before.map((s) => s.chunks)}`);
  const button = page.getByTestId('pass-time');
  assert.equal(await button.getAttribute('aria-pressed'), 'false');
  await button.click();
  // The page redraws the button after the click: wait for it before reading it.
  await button.and(page.locator('[aria-pressed="true"]')).waitFor();
  assert.equal(await button.getAttribute('aria-pressed'), 'true');
  // The balancer's rounds move chunks while the clock runs, until 5.0's policy is met
  // (the shards' chunk counts within 2 of each other, balancer_policy.cpp).
  await page.waitForFunction(() => {
    const counts = [...document.querySelectorAll('[data-testid="shard"]')]
      .map((c) => c.querySelectorAll('[data-testid="chunk"]').length);
    return Math.max(...counts) - Math.min(...counts) <= 2;
  }, null, { timeout: 60_000 });
  // The same button stops the clock.
  await button.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="pass-time"]').getAttribute('aria-pressed') === 'false');
  // The steps were sleep(2000) commands: the console said so once.
  await page.getByTestId('console-output').filter({ hasText: /sleep\(2000\)/ }).waitFor();
  const console = await page.getByTestId('console-output').innerText();
  assert.match(console, /sleep\(2000\)/);
  await screenshot(page, 'clock-balanced');
  assert.deepEqual(errors, []);
});
