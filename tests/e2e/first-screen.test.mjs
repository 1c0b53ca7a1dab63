// Issue 38, part 1, "A pre-rendered first screen": the build writes the default page's
// first screen into index.html, with the cluster the engine (run natively at build time)
// produces for it, and a first visit hydrates it. These tests hold the page's wasm back,
// so that what they read first is the HTML alone, then let it through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, readChunks, screenshot, holdBack } from './harness.mjs';

const env = suite();

/** A new page whose wasm (the page's and the engine's) is held until `release()`. */
async function heldPage(viewport = { width: 1440, height: 900 }) {
  const page = await env.browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { asked: held, release } = await holdBack(page, '**/*.wasm');
  return { page, errors, release, held };
}

/** The cluster as drawn: the summary's words, the shards' names and every chunk. */
async function cluster(page, summaryId) {
  return {
    summary: (await page.getByTestId(summaryId).innerText()).trim(),
    shards: await page.$$eval('[data-testid="cluster"] .shard-name', (els) => els.map((e) => e.textContent)),
    chunks: await readChunks(page),
  };
}

test('a first visit shows the cluster from the HTML alone, and the page hydrates that very screen', async () => {
  const { page, errors, release, held } = await heldPage();
  await page.goto(env.server.url);
  // Nothing of the page's wasm has arrived, and the cluster is there.
  await page.getByTestId('first-summary').waitFor();
  await page.getByTestId('getting-ready').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.firstScreen), 'live-soon');
  assert.ok(held.length >= 1, 'the page asked for no wasm before its first screen showed');
  const before = await cluster(page, 'first-summary');
  assert.match(before.summary, /test\.events/);
  assert.ok(before.shards.length >= 1, 'no shard drawn');
  assert.ok(before.chunks.length >= 1, 'no chunk drawn');
  await screenshot(page, 'first-screen-before-wasm');
  // Marks the nodes drawn from the HTML: hydration keeps them, a fresh render would not.
  await page.evaluate(() => {
    window.drawn = [
      document.querySelector('[data-testid="cluster"]'),
      document.querySelector('[data-testid="console-input"]'),
      document.querySelector('.shards'),
    ];
  });
  release();
  // The engine's own answer: the same cluster, in the same nodes.
  await page.getByTestId('summary').waitFor();
  const after = await cluster(page, 'summary');
  assert.deepEqual(after, before);
  assert.deepEqual(await page.evaluate(() => window.drawn.map((n) => n.isConnected)), [true, true, true]);
  assert.equal(await page.getByTestId('getting-ready').count(), 0);
  assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-first-screen')), false);
  assert.equal(await page.locator('#shardlab-first-screen').count(), 0, 'the first screen\'s JSON stayed in the page');
  await screenshot(page, 'first-screen-live');
  assert.deepEqual(errors, []);
  await page.close();
});

test('what is typed and clicked before the page can listen is kept and done once it can', async () => {
  const { page, errors, release } = await heldPage({ width: 400, height: 800 });
  await page.goto(env.server.url);
  await page.getByTestId('first-summary').waitFor();
  const input = page.getByTestId('console-input');
  await input.fill('db.events.insertOne({x: 5})');
  await input.press('Enter');
  await page.getByTestId('play').click();
  await screenshot(page, 'first-screen-typed-400');
  release();
  // The command ran once the engine answered; Play was pressed and the workload plays.
  await page.getByTestId('summary').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="console-output"] .line')]
    .some((l) => l.textContent.includes('insertedId')));
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow')) > 0);
  assert.equal(await input.inputValue(), '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a command typed once the page listens but before the engine has answered runs once it has', async () => {
  // Only the engine's wasm is held: the page hydrates, takes the command, and the engine's
  // first answer and its answer about the command then come one right after the other.
  const page = await env.browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { release } = await holdBack(page, /engine-[0-9a-f]+\/.*\.wasm$/);
  await page.goto(env.server.url);
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-first-screen'));
  const input = page.getByTestId('console-input');
  await input.fill('db.events.insertOne({x: 7})');
  await input.press('Enter');
  release();
  await page.getByTestId('summary').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="console-output"] .line')]
    .some((l) => l.textContent.includes('insertedId')));
  const echoes = await page.$$eval('[data-testid="console-output"] .line',
    (ls) => ls.filter((l) => l.textContent.includes('insertOne({x: 7})')).length);
  assert.equal(echoes, 1, 'the command ran once');
  assert.equal(await input.inputValue(), '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('any visit but a first one hides the pre-rendered screen and draws as ever', async () => {
  for (const [label, setup, query, words] of [
    ['something stored', () => localStorage.setItem('shardlab.lang', '"en"'), '', /test\.events/],
    ['an address option', null, '?preset=hashed', /hashed/],
  ]) {
    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${env.server.url}?blank`);
    await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
    if (setup) await page.evaluate(setup);
    await page.goto(`${env.server.url}${query}`);
    await page.getByTestId('summary').waitFor();
    assert.equal(await page.getByTestId('first-summary').count(), 0, label);
    assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-first-screen')), false, label);
    assert.match(await page.getByTestId('summary').innerText(), words, label);
    assert.deepEqual(errors, [], label);
    await page.close();
  }
});

/** A first visit whose index.html the test rewrites with `change` on its way. */
async function rewrittenPage(change) {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route((url) => url.pathname === '/' || url.pathname.endsWith('/index.html'), async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: change(await response.text()) });
  });
  await page.goto(env.server.url);
  return { page, errors };
}

test('a first screen whose JSON is cut short or hostile is set aside, and the page draws as ever', async () => {
  const cuts = [
    (json) => json.slice(0, json.length / 2),
    () => '{"catalog": [], "view": 7}',
    (json) => json.replace(/"shards":\[/, '"shards":"x",[]'),
  ];
  for (const cut of cuts) {
    const { page, errors } = await rewrittenPage((html) => html.replace(
      /(<script type="application\/json" id="shardlab-first-screen">)([\s\S]*?)(<\/script>)/,
      (_, open, json, close) => open + cut(json) + close,
    ));
    await page.getByTestId('summary').waitFor();
    assert.match(await page.getByTestId('summary').innerText(), /test\.events sharded on \{ x: 1 \}/);
    assert.equal(await page.getByTestId('first-summary').count(), 0);
    assert.equal(await page.locator('#shardlab-first-screen').count(), 0);
    assert.equal(await page.getByTestId('crash-banner').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a first screen whose HTML is not what the page draws ends in a working page, not a dead one', async () => {
  // The masthead taken out: hydration meets another tree than the page's first render.
  const { page } = await rewrittenPage((html) => html.replace(/<header class="masthead">[\s\S]*?<\/header>/, ''));
  await page.getByTestId('summary').waitFor({ timeout: 60_000 });
  await page.locator('header.masthead').waitFor();
  const input = page.getByTestId('console-input');
  await input.fill('db.events.countDocuments()');
  await input.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid="console-output"] .line:last-child')?.textContent === '0');
  await screenshot(page, 'first-screen-mismatch', { fullPage: false });
  await page.close();
});
