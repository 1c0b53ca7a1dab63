// Issue 28, "Teach and present": the answer where the eye is, and the small things a
// learner trips on. A person plays a lesson and clicks; the assertions read what is on
// screen (bounding boxes, text, computed colours), never the engine directly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { suite, screenshot, playLesson, openFresh, waitForValue } from './harness.mjs';

const env = suite();

/** The part of `locator`'s box inside the window, in CSS pixels of height (0 when none). */
async function visibleHeight(page, locator) {
  const box = await locator.boundingBox();
  const { height } = page.viewportSize();
  if (!box) return 0;
  return Math.max(0, Math.min(box.y + box.height, height) - Math.max(box.y, 0));
}

/** Clicks `button`, waits for the inspector's answer `answer` and checks it is in the
 * window, focused, announced, and (on a phone) clear of what was clicked. */
async function clickAndFindAnswer(page, button, answer, label) {
  await button.scrollIntoViewIfNeeded();
  await button.click();
  const shown = page.getByTestId(answer);
  await shown.waitFor();
  // The answer is brought into view once drawn: wait for the focus that follows.
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'inspector-answer');
  const seen = await visibleHeight(page, shown);
  const box = await shown.boundingBox();
  assert.ok(seen >= Math.min(60, box.height), `${label}: ${seen} px of the answer in view (box ${JSON.stringify(box)})`);
  assert.equal(await page.getByTestId('inspector-answer').getAttribute('aria-live'), 'polite', `${label}: announced`);
  const { width } = page.viewportSize();
  if (width <= 700) {
    // A sheet along the bottom, under what was clicked.
    const sheet = await page.getByTestId('inspector').boundingBox();
    const clicked = await button.boundingBox();
    assert.ok(clicked.y >= 0 && clicked.y + clicked.height <= sheet.y + 1,
      `${label}: the clicked control (${JSON.stringify(clicked)}) is above the sheet (top ${sheet.y})`);
    assert.ok(sheet.height <= 0.46 * page.viewportSize().height, `${label}: the sheet takes ${sheet.height} px`);
  }
}

// The sizes of item 2 ("The cluster is the hero", tests/e2e/hero.test.mjs): a projector
// in workshop mode, a laptop, a desktop and a phone.
for (const { workshop, ...viewport } of [{ width: 1280, height: 720, workshop: true }, { width: 1440, height: 900 }, { width: 1920, height: 1080 }, { width: 400, height: 800 }]) {
  test(`at ${viewport.width}x${viewport.height}${workshop ? ' in workshop mode' : ''}, every "why?" and chunk click shows its answer in view`, async () => {
    const { page, errors } = await playLesson(env.browser, env.server.url, 'low-cardinality', { viewport });
    if (workshop) {
      await page.getByTestId('workshop-toggle').click();
      await page.locator('.page.workshop').waitFor();
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    const why = page.getByTestId('why-shard').nth(4);
    await clickAndFindAnswer(page, why, 'shard-inspector', 'why? on shard05');
    await screenshot(page, `teach-why-${viewport.width}${workshop ? '-workshop' : ''}`);
    await page.getByTestId('inspector-close').click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await clickAndFindAnswer(page, page.getByRole('button', { name: 'Balancer: why?' }), 'round-inspector', 'Balancer: why?');
    const chunk = page.locator('[data-testid="chunk"]:not(.far)').last();
    await clickAndFindAnswer(page, chunk, 'chunk-inspector', 'a chunk');
    await page.screenshot({ path: `target/screenshots/teach-chunk-${viewport.width}${workshop ? '-workshop' : ''}.png` });
    assert.deepEqual(errors, []);
  });
}

test('the low-cardinality lesson: its title and shards agree, nine distinct colours, a string in the query box', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'low-cardinality');
  const title = await page.getByLabel('Lesson', { exact: true }).locator('option[value="low-cardinality"]').innerText();
  const shards = await page.getByTestId('shard').count();
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
  assert.equal(title, `Seven continents, ${words[shards]} shards`);
  // Every shard its own colour: shard01 and shard09 no longer match.
  const colours = await page.getByTestId('shard').evaluateAll((els) => els.map((e) => getComputedStyle(e).borderTopColor));
  assert.equal(colours.length, 9);
  assert.equal(new Set(colours).size, colours.length, `colours: ${colours}`);
  // The query box starts from a continent, a string, and targets one shard with it (its
  // value comes from the engine's answer: wait for it, then read it).
  await waitForValue(page, '[data-testid="query-filter"]', /^\{ continent: '/);
  const filter = await page.getByTestId('query-filter').inputValue();
  assert.match(filter, /^\{ continent: '[A-Z][a-z]+( [A-Z][a-z]+)?' \}$/);
  await page.waitForFunction(() => document.querySelector('[data-testid="query-stage"]')?.dataset.stage === 'SINGLE_SHARD');
  // So does the inspector's insert form.
  await waitForValue(page, '[data-testid="insert-doc"]', /^\{continent: '/);
  assert.match(await page.getByTestId('insert-doc').inputValue(), /^\{continent: '[A-Z][a-z]+( [A-Z][a-z]+)?'\}$/);
  // The heatmap's axis goes by rank: the seven continents are bands, and it says so.
  const axis = page.getByTestId('heat-axis');
  await axis.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /equal band/.test(document.querySelector('[data-testid="heat-axis"]')?.innerText ?? ''));
  assert.match(await axis.innerText(), /by rank/);
  assert.deepEqual(errors, []);
});

test('counts agree in number: one chunk, one doc', async () => {
  const { page, errors } = await openFresh(env, '', { width: 1440, height: 900 });
  const totals = page.getByTestId('shard-totals').first();
  await page.getByTestId('console-input').fill('db.events.insertOne({x: 1})');
  await page.getByTestId('console-input').press('Enter');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="shard-totals"]')].some((t) => t.dataset.docs === '1'));
  const texts = await page.getByTestId('shard-totals').allInnerTexts();
  const holding = texts.find((t) => /\b1 doc\b/.test(t));
  assert.ok(holding, `a shard shows "1 doc": ${texts}`);
  assert.match(holding, /\b1 chunk\b/);
  const body = await page.locator('body').innerText();
  assert.doesNotMatch(body, /\b1 (chunks|docs|documents)\b/);
  assert.ok(await totals.isVisible());
  assert.deepEqual(errors, []);
});

test('after the monotonic lesson, analyzeShardKey says why the distributions were skipped, with the glossary', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic');
  const analyze = page.getByTestId('analyze');
  await analyze.scrollIntoViewIfNeeded();
  await analyze.click();
  const note = page.getByTestId('analyze-note');
  await note.waitFor();
  const text = await note.innerText();
  assert.match(text, /holds (\d+) documents, so the sample is all of them and yields at most \d+ boundaries, fewer than 99/);
  assert.match(text, /appear once it holds at least 990 documents/);
  const term = note.locator('[data-term="analyze-ranges"]');
  await term.click();
  // The glossary loads on first use: its entry replaces "Loading…".
  await page.waitForFunction(() => /100 ranges/.test(document.querySelector('[data-testid="glossary-tip"]')?.innerText ?? ''));
  assert.match(await page.getByTestId('glossary-tip').innerText(), /at most 91/);
  assert.deepEqual(errors, []);
});

test('the exported picture keeps the hot chunk\'s tint and its +N', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic');
  const gained = await page.locator('[data-testid="chunk"][data-recent]:not([data-recent="0"])').first().getAttribute('data-recent');
  assert.ok(Number(gained) > 0, 'a chunk took the last batch');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
  const svg = await readFile(await download.path(), 'utf8');
  assert.match(svg, /fill="rgba\(213, 94, 0, 0\.\d+\)"/, 'the heat tint');
  assert.ok(svg.includes(` +${gained}</tspan>`), `the +${gained}`);
  assert.doesNotMatch(svg, /\b1 (chunks|docs)\b/);
  assert.deepEqual(errors, []);
});
