// The glossary: a term of art explains itself on keyboard focus (its tooltip), Escape
// closes it, and the glossary panel lists every term. The texts come from the shipped
// static/glossary.json, never from this file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { suite, screenshot, openSetup } from './harness.mjs';

const env = suite();
const glossary = JSON.parse(await readFile(new URL('../../static/glossary.json', import.meta.url), 'utf8'));
const entry = (id) => glossary.find((e) => e.id === id);

/** Presses Tab until the term `id` has the keyboard focus (at most `limit` presses). */
async function tabTo(page, id, limit = 60) {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((id) => document.activeElement?.dataset?.term === id, id)) return;
  }
  assert.fail(`Tab never reached the term '${id}'`);
}

test('a glossary tooltip opens with the keyboard, says the right thing and closes on Escape', async () => {
  for (const width of [1440, 400]) {
    const page = await env.browser.newPage({ viewport: { width, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(env.server.url);
    await openSetup(page);
    await page.getByTestId('shard-key').waitFor();
    // Start the keyboard's walk at the top of the page.
    await page.locator('h1').click();
    await tabTo(page, 'shard-key');
    const term = page.locator('[data-term="shard-key"]');
    assert.equal(await term.getAttribute('role'), 'button');
    const tip = page.getByTestId('glossary-tip');
    await tip.waitFor();
    assert.equal(await term.getAttribute('aria-describedby'), await tip.getAttribute('id'));
    assert.equal(await tip.getAttribute('role'), 'tooltip');
    const { term: name, text } = entry('shard-key');
    await page.waitForFunction((t) => document.querySelector('[data-testid="glossary-tip"]')?.textContent.includes(t), text);
    assert.ok((await tip.textContent()).startsWith(name));
    const box = await tip.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= width, `the tip fits the ${width}px viewport`);
    await screenshot(page, `glossary-tip-${width}`);
    await page.keyboard.press('Escape');
    await tip.waitFor({ state: 'detached' });
    // The page handles the key: wait for the focus where it should stay, then check it.
    await page.waitForFunction(() => document.activeElement?.dataset?.term === 'shard-key');
    assert.ok(await term.evaluate((el) => el === document.activeElement), 'Escape keeps the focus on the term');
    // Enter opens it again; the next term (numInitialChunks) shows its own text.
    await page.keyboard.press('Enter');
    await tip.waitFor();
    await tabTo(page, 'numInitialChunks');
    await page.waitForFunction((t) => document.querySelector('[data-testid="glossary-tip"]')?.textContent.includes(t), entry('numInitialChunks').text);
    assert.equal(await page.getByTestId('glossary-tip').count(), 1, 'one tooltip at a time');
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('the query stage badge explains itself, and the glossary panel lists every term', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  // The badge shows the engine's targeting once its answer comes, which may be after the
  // badge first appears: hover the term the badge shows, and again if it changed meanwhile.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const stage = await page.getByTestId('query-stage').getAttribute('data-stage');
    await page.locator(`[data-term="${stage}"]`).hover();
    const shown = await page.waitForFunction(
      (t) => document.querySelector('[data-testid="glossary-tip"]')?.textContent.includes(t),
      entry(stage).text, { timeout: 5_000 }).then(() => true, () => false);
    if (shown) break;
    assert.ok(Date.now() < deadline, `the tooltip of ${stage} appears on hover`);
    await page.mouse.move(0, 0);
  }
  await page.getByTestId('glossary-toggle').click();
  const panel = page.getByTestId('glossary-panel');
  await panel.locator('dt').first().waitFor();
  assert.deepEqual(await panel.locator('dt').allTextContents(), glossary.map((e) => e.term));
  assert.deepEqual(await panel.locator('dd').allTextContents(), glossary.map((e) => e.text));
  await screenshot(page, 'glossary-panel');
  await page.getByTestId('glossary-close').click();
  await panel.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await page.close();
});
