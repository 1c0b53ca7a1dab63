// The <shard-lab> element on the examples page (static/examples.html), used as a reader
// would: each element works, events arrive, two elements keep their own sessions, one
// engine download serves them all, the theme follows the page, and hostile attributes are
// reported without breaking the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite } from './harness.mjs';

const env = suite();
const TYPES = ['shardlab-ready', 'shardlab-step', 'shardlab-split', 'shardlab-migrate', 'shardlab-error'];

/** Opens the examples page, recording every element event that reaches the document. */
async function openExamples() {
  const page = await env.browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  const requests = [];
  const workers = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  page.on('worker', (w) => workers.push(w.url()));
  await page.addInitScript((types) => {
    window.__events = [];
    for (const type of types) {
      document.addEventListener(type, (e) => window.__events.push({ type, id: e.target.id, detail: e.detail }));
    }
  }, TYPES);
  await page.goto(`${env.server.url}examples.html`);
  return { page, errors, requests, workers };
}

const events = (page, id, type) => page.evaluate(({ id, type }) => window.__events.filter((e) => e.id === id && e.type === type), { id, type });

/** Scrolls an element into view, as a reader does, and waits until it is ready. */
async function reach(page, id) {
  const el = page.locator(`#${id}`);
  await el.scrollIntoViewIfNeeded();
  await page.waitForFunction((id) => window.__events.some((e) => e.id === id && e.type === 'shardlab-ready'), id);
  return el;
}

test('each element runs its script a step at a time, and its events arrive', async () => {
  const { page, errors } = await openExamples();
  const ranged = await reach(page, 'ranged');
  assert.match(await ranged.getByText(/^step \d+ of \d+$/).innerText(), /^step 0 of 4$/);
  const step = ranged.getByRole('button', { name: 'Step' });
  for (let i = 1; i <= 4; i++) {
    await step.click();
    await ranged.getByText(`step ${i} of 4`).waitFor();
  }
  const chunks = await ranged.locator('.chunk').count();
  assert.ok(chunks > 1, `the ranged key split its chunks (${chunks})`);
  // The element fires a step's event after drawing it, and its splits after asking the
  // engine for the step's events: wait for them rather than read at once.
  await page.waitForFunction(() => window.__events.filter((e) => e.id === 'ranged' && e.type === 'shardlab-step').length >= 4);
  await page.waitForFunction(() => window.__events.some((e) => e.id === 'ranged' && e.type === 'shardlab-split'));
  const steps = await events(page, 'ranged', 'shardlab-step');
  assert.deepEqual(steps.map((e) => e.detail.step), [1, 2, 3, 4]);
  assert.equal(steps[0].detail.entries[0].ok, true);
  const splits = await events(page, 'ranged', 'shardlab-split');
  assert.ok(splits.length > 0, 'splits are reported');
  assert.match(splits[0].detail.text, /test\.events/);
  // The step back and Reset return to the start.
  await ranged.getByRole('button', { name: 'Reset' }).click();
  await ranged.getByText('step 0 of 4').waitFor();
  assert.deepEqual(errors, []);
  // The focus stays on the button clicked (now unable to do anything, so aria-disabled), and
  // the element took it nowhere else.
  assert.deepEqual(await page.evaluate(() => [document.activeElement?.id, document.activeElement?.shadowRoot?.activeElement?.dataset.action]), ['ranged', 'reset']);
  await page.close();
});

test('elements keep their own sessions on one engine: one download, one worker', async () => {
  const { page, errors, requests, workers } = await openExamples();
  await reach(page, 'ranged');
  await reach(page, 'hashed');
  await page.locator('#hashed').getByRole('button', { name: 'Play' }).click();
  await page.locator('#hashed').getByText('step 4 of 4').waitFor();
  const state = (id) => page.locator(`#${id}`).evaluate((el) => el.getState());
  const [ranged, hashed] = [await state('ranged'), await state('hashed')];
  assert.equal(ranged.step, 0);
  assert.equal(hashed.step, 4);
  assert.equal(hashed.docs, 10000);
  assert.equal(ranged.docs, 0, 'the ranged element is still at its start');
  assert.ok(hashed.shards.every((s) => s.chunks > 0), 'a hashed key spreads chunks on every shard');
  // A command run in one element is not seen by the other.
  await page.locator('#ranged').evaluate((el) => el.run('db.solo.insertOne({_id: 1})'));
  const count = await page.locator('#hashed').evaluate((el) => el.run('db.solo.countDocuments()'));
  assert.equal(count[0].value, 0);
  // One engine download: its first part and the part that loads after the first answer,
  // each once, never the playground page's.
  const wasm = requests.filter((p) => p.endsWith('.wasm'));
  assert.equal(wasm.filter((p) => p.endsWith('/engine_bg.wasm')).length, 1, `one engine download: ${wasm.join(', ')}`);
  assert.equal(new Set(wasm).size, wasm.length, `a part downloaded twice: ${wasm.join(', ')}`);
  assert.ok(wasm.every((p) => /engine-[0-9a-f]+\/(engine_bg|split_[\w-]+)\.wasm$/.test(p)), `never the playground page: ${wasm.join(', ')}`);
  assert.equal(workers.length, 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the heatmap, the inspector and the compare view draw what the engine answers', async () => {
  const { page, errors } = await openExamples();
  const el = await reach(page, 'explained');
  for (let i = 1; i <= 3; i++) {
    await el.getByRole('button', { name: 'Step' }).click();
    await el.getByText(`step ${i} of 3`).waitFor();
  }
  // The heatmap: painted cells, and the pattern the engine reads in them.
  const heat = el.locator('[part="heatmap"]');
  const painted = await heat.locator('canvas').evaluate((c) => {
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  });
  assert.ok(painted > 0, 'the heatmap paints its cells');
  assert.match(await heat.locator('figcaption').innerText(), /^(hot edge|band|even|uneven|too little data): \S/);
  // A click on a chunk shows that chunk's range in the inspector, beside the cluster.
  const inspector = el.locator('[part="inspector"]');
  assert.match(await inspector.innerText(), /Click a chunk|latest insert/);
  const last = el.locator('button.chunk').last();
  const title = await last.getAttribute('title');
  await last.click();
  await inspector.locator('[part="inspected"]').first().filter({ hasText: title.split(' · ')[0] }).waitFor();
  assert.equal(await inspector.locator('[part="inspected"]').first().innerText(), title.split(' · ')[0]);
  assert.match(await inspector.innerText(), /on shard\d+ · \d+ documents?/);
  // A shard's name asks why it holds what it holds.
  const name = el.locator('[part="shard-name"]').first();
  const shard = (await name.innerText()).split(' ')[0];
  await name.click();
  await inspector.getByText(new RegExp(`^${shard} holds`)).waitFor();
  await el.getByRole('button', { name: 'Balancer: why?' }).click();
  await inspector.getByText(/balancer/i).first().waitFor();
  // The compare view: one workload on each key listed, a row per key.
  const compared = page.locator('#compared');
  await compared.scrollIntoViewIfNeeded();
  await compared.getByRole('button', { name: 'Run' }).click();
  const rows = compared.locator('tbody tr');
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2);
  assert.match(await rows.nth(0).locator('th').innerText(), /\{ x: 1 \}/);
  assert.match(await rows.nth(1).locator('th').innerText(), /hashed/);
  const busiest = async (i) => Number.parseInt(await rows.nth(i).locator('td').nth(1).innerText(), 10);
  assert.ok(await busiest(0) > await busiest(1), 'a monotonic workload crowds one shard under the ranged key, not under the hashed one');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a Run block loads on click and prints what mongosh prints; a driven element follows the page', async () => {
  const { page, errors, requests } = await openExamples();
  const block = page.locator('#run-block');
  await block.getByText('Run to start').waitFor();
  // The block waits for its click (the lazy elements in view may load the shared engine
  // meanwhile: its worker fetches the wasm as it starts).
  assert.equal(await page.evaluate(() => window.__events.filter((e) => e.id === 'run-block').length), 0,
    'the Run block starts nothing before the click');
  assert.ok(requests.length > 0);
  await block.getByRole('button', { name: 'Run' }).click();
  await page.waitForFunction(() => window.__events.some((e) => e.id === 'run-block' && e.type === 'shardlab-ready'));
  await block.evaluate((el) => el.goto(3));
  await block.getByText("{ _id: 2, name: 'Grace', uid: 2 }", { exact: false }).or(block.getByText('Grace')).first().waitFor();
  const driven = await reach(page, 'driven');
  assert.equal(await driven.getByRole('textbox').count(), 0, 'readonly: no command line');
  await page.getByRole('button', { name: 'Next step' }).click();
  await driven.getByText('step 1 of 3').waitFor();
  // The log is the page's own listener's, and the announcement follows the step's redraw:
  // wait for each before reading it.
  await page.locator('#event-log').filter({ hasText: /shardlab-step: step 1 of 3/ }).waitFor();
  assert.match(await page.locator('#event-log').innerText(), /shardlab-step: step 1 of 3/);
  // Results are announced.
  await driven.locator('[aria-live="polite"]').filter({ hasText: /collectionsharded/ }).waitFor({ state: 'attached' });
  assert.match(await driven.locator('[aria-live="polite"]').innerText(), /collectionsharded/);
  // Scrolling to a paragraph moves the element beside it to that paragraph's step.
  await reach(page, 'scrolly');
  await page.locator('.scroll-step[data-step="3"]').scrollIntoViewIfNeeded();
  await page.locator('#scrolly').getByText('step 3 of 3').waitFor();
  assert.ok(await page.locator('#scrolly .chunk').count() > 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('theme follows the page; hostile attributes are reported, never a blank box', async () => {
  const { page, errors } = await openExamples();
  await reach(page, 'ranged');
  const theme = (id) => page.locator(`#${id}`).evaluate((el) => el.shadowRoot.querySelector('.frame').dataset.theme);
  assert.equal(await theme('ranged'), 'light');
  await page.getByRole('button', { name: 'Dark mode' }).click();
  await page.waitForFunction(() => document.querySelector('#ranged').shadowRoot.querySelector('.frame').dataset.theme === 'dark');
  await page.waitForFunction(() => document.querySelector('#hashed').shadowRoot.querySelector('.frame').dataset.theme === 'dark');
  assert.equal(await theme('hashed'), 'dark');
  await page.evaluate(() => {
    const bad = document.createElement('shard-lab');
    bad.id = 'bad';
    bad.setAttribute('loading', 'eager');
    bad.setAttribute('height', 'expression(alert(1))');
    bad.setAttribute('views', 'cluster,<img src=x onerror=alert(1)>');
    bad.setAttribute('preset', 'no-such-lesson');
    bad.textContent = 'db.t.find()';
    document.body.append(bad);
  });
  await page.locator('#bad').getByRole('alert').waitFor();
  assert.match(await page.locator('#bad').getByRole('alert').innerText(), /could not start/);
  // Both kinds are reported, each a task after it was found (the attributes in the next
  // frame's redraw): wait for them rather than read at once.
  await page.waitForFunction(() => {
    const sources = window.__events.filter((e) => e.id === 'bad' && e.type === 'shardlab-error').map((e) => e.detail.source);
    return sources.includes('attribute') && sources.includes('load');
  });
  const reported = await events(page, 'bad', 'shardlab-error');
  assert.ok(reported.some((e) => e.detail.source === 'attribute' && /height is "auto" or a length/.test(e.detail.message)), JSON.stringify(reported));
  assert.ok(reported.some((e) => e.detail.source === 'attribute' && /^views lists/.test(e.detail.message)), JSON.stringify(reported));
  assert.equal(await page.locator('#bad').evaluate((el) => el.shadowRoot.querySelector('img')), null);
  // The page and the other elements go on working.
  await page.locator('#ranged').getByRole('button', { name: 'Step' }).click();
  await page.locator('#ranged').getByText('step 1 of 4').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a preset starts from a lesson\'s cluster, and the script runs after its setup', async () => {
  const { page, errors } = await openExamples();
  await page.evaluate(() => {
    const el = document.createElement('shard-lab');
    el.id = 'lesson';
    el.setAttribute('preset', 'hashed');
    el.setAttribute('loading', 'eager');
    el.setAttribute('views', 'cluster,console,timeline');
    el.textContent = 'sh.status()';
    document.body.prepend(el);
  });
  await page.waitForFunction(() => window.__events.some((e) => e.id === 'lesson' && e.type === 'shardlab-ready'));
  const lesson = page.locator('#lesson');
  await lesson.getByText('step 0 of 1').waitFor();
  const before = await lesson.evaluate((el) => el.getState());
  assert.ok(before.ns, 'the lesson\'s collection is drawn before the script');
  await lesson.getByRole('button', { name: 'Step' }).click();
  await lesson.getByText('step 1 of 1').waitFor();
  await lesson.locator('.console').filter({ hasText: /shardingVersion/ }).waitFor();
  assert.match(await lesson.locator('.console').innerText(), /shardingVersion/);
  // Reset goes back to the lesson's cluster, not before its setup.
  await lesson.getByRole('button', { name: 'Reset' }).click();
  await lesson.getByText('step 0 of 1').waitFor();
  assert.equal((await lesson.evaluate((el) => el.getState())).ns, before.ns);
  assert.deepEqual(errors, []);
  await page.close();
});
