// Guided lessons and workshop mode: a learner walks a lesson to its end, leaves and resumes
// one, and a presenter switches to large type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, walkGuideStep } from './harness.mjs';

const env = suite();

async function openPage() {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  return { page, errors };
}

test('guide: every step of both lessons outlines what its result talks about', async () => {
  const { page, errors } = await openPage();
  await page.getByTestId('tab-guide').click();
  for (const lesson of ['key-basics', 'key-design']) {
    await page.locator(`[data-testid="guide-start"][data-lesson="${lesson}"]`).click();
    await page.getByTestId('guide-progress').filter({ hasText: /^Step 1 of \d+$/ }).waitFor();
    const total = Number((await page.getByTestId('guide-progress').innerText()).match(/of (\d+)$/)[1]);
    for (let i = 1; i <= total; i++) {
      // Next is drawn a moment after the click: the step's choices are read once it is up.
      await page.getByTestId('guide-progress').filter({ hasText: new RegExp(`^Step ${i} of ${total}$`) }).waitFor();
      await walkGuideStep(page, { correct: true });
      const title = await page.getByTestId('guide-step-title').innerText();
      await page.locator('.guide-highlight').first().waitFor({ timeout: 5_000 }).catch(() => {});
      assert.ok((await page.locator('.guide-highlight').count()) >= 1, `${lesson}, step ${i} (${title}) outlines nothing`);
      await page.getByTestId('guide-next').click();
    }
    await page.getByTestId('guide-complete').waitFor();
    await page.getByTestId('tab-guide').click();
  }
  assert.deepEqual(errors, []);
});

test('guide: a lesson walked from its first step to its last reports completion', async () => {
  const { page, errors } = await openPage();
  await page.getByTestId('tab-guide').click();
  await page.locator('[data-testid="guide-start"][data-lesson="key-basics"]').click();
  const first = await page.getByTestId('guide-progress').innerText();
  const total = Number(first.match(/^Step 1 of (\d+)$/)[1]);
  assert.ok(total >= 5, first);
  const titles = new Set();
  for (let i = 1; i <= total; i++) {
    // The step Next moved to is drawn a moment after the click: wait for it, then read it.
    await page.getByTestId('guide-progress').filter({ hasText: new RegExp(`^Step ${i} of ${total}$`) }).waitFor();
    assert.equal(await page.getByTestId('guide-progress').innerText(), `Step ${i} of ${total}`);
    titles.add(await page.getByTestId('guide-step-title').innerText());
    // Predict wrong on odd steps and right on even ones: both verdicts must show.
    const verdict = await walkGuideStep(page, { correct: i % 2 === 0 });
    assert.equal(verdict.correct, i % 2 === 0);
    assert.ok(verdict.text.length > 20, verdict.text);
    if (i === 2) {
      // The MinKey/MaxKey step outlines the MaxKey chunk once the workload has run.
      const outlined = page.locator('.guide-highlight');
      // The outline is put on after the result is drawn (an effect of the redraw).
      await outlined.first().waitFor();
      assert.equal(await outlined.count(), 1);
      assert.match(await outlined.getAttribute('data-max'), /MaxKey\(\) }$/);
      await screenshot(page, 'guide-step-maxkey');
    }
    await page.getByTestId('guide-next').click();
  }
  assert.equal(titles.size, total, 'every step has its own title');
  await page.getByTestId('guide-complete').waitFor();
  assert.match(await page.getByTestId('guide-complete').innerText(), /Lesson complete/);
  // The outline and the saved progress go as the page leaves the step: wait for both.
  await page.locator('.guide-highlight').first().waitFor({ state: 'detached' });
  assert.equal(await page.locator('.guide-highlight').count(), 0, 'leaving a step removes its outline');
  await page.waitForFunction(() => localStorage.getItem('shardlab.guide.v1') === null);
  assert.equal(await page.evaluate(() => localStorage.getItem('shardlab.guide.v1')), null);
  assert.deepEqual(errors, []);
});

test('guide: leaving a lesson and coming back resumes at the same step, even after a reload', async () => {
  const { page } = await openPage();
  await page.getByTestId('tab-guide').click();
  await page.locator('[data-testid="guide-start"][data-lesson="key-design"]').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 1 of \d+$/ }).waitFor();
  await page.getByTestId('guide-next').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 2 of \d+$/ }).waitFor();
  await page.getByTestId('guide-next').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 3 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 3 of \d+$/);
  const title = await page.getByTestId('guide-step-title').innerText();
  // The step loaded its scenario: the refine lesson shards test.orders on {customer: 1}.
  await page.getByTestId('summary').filter({ hasText: 'test.orders' }).waitFor();
  await page.getByTestId('guide-close').click();
  await page.getByTestId('guide').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('guide').count(), 0);
  await page.getByTestId('tab-guide').click();
  await page.getByTestId('guide-resume').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 3 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 3 of \d+$/);
  assert.equal(await page.getByTestId('guide-step-title').innerText(), title);
  // A reload shows exactly what was there: the guide tab, open at the same step, over
  // the same cluster.
  await page.reload();
  await page.getByTestId('guide-step-title').waitFor();
  assert.equal(await page.getByTestId('guide-step-title').innerText(), title);
  await page.getByTestId('summary').filter({ hasText: 'test.orders' }).waitFor();
  // n and p move through the steps.
  await page.keyboard.press('n');
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 4 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 4 of \d+$/);
  await page.keyboard.press('p');
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 3 of \d+$/ }).waitFor();
  await page.keyboard.press('p');
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 2 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 2 of \d+$/);
});

test('workshop: the toggle and the w key switch the page to large type', async () => {
  const { page } = await openPage();
  const root = page.locator('.page');
  assert.doesNotMatch(await root.getAttribute('class'), /workshop/);
  await page.getByTestId('workshop-toggle').click();
  // The page redraws with the class a moment after the click: wait for it, then read it.
  await page.locator('.page.workshop').waitFor();
  assert.match(await root.getAttribute('class'), /\bworkshop\b/);
  await page.getByTestId('tab-guide').click();
  await page.locator('[data-testid="guide-start"][data-lesson="key-basics"]').click();
  await page.getByTestId('guide-choice').nth(1).check();
  await screenshot(page, 'guide-workshop');
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('w');
  await page.locator('.page:not(.workshop)').waitFor();
  assert.doesNotMatch(await root.getAttribute('class'), /workshop/);
  await page.keyboard.press('w');
  await page.locator('.page.workshop').waitFor();
  assert.match(await root.getAttribute('class'), /\bworkshop\b/);
});
