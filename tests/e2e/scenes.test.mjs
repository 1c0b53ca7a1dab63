// Workshop scenes, used as a presenter would: a ready-made demo stepped with the keyboard
// and a clicker, the presenter window in step both ways, a demo that crosses from one
// lesson to another and back, the audience link, the scenes built by hand (in another
// scenario too), and the `?` shortcuts dialog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot } from './harness.mjs';

const env = suite();

/** The timeline's cursor, read even while a scene hides the timeline panel. */
const step = (page) =>
  page.evaluate(() => Number(document.querySelector('[data-testid="position"]').textContent.match(/step (\d+)/)[1]));

/** Waits for the cursor to stand at step `n`. */
const atStep = (page, n) =>
  page.waitForFunction((n) => {
    const el = document.querySelector('[data-testid="position"]');
    return el && el.textContent.startsWith(`step ${n} of`);
  }, n);

/** The scenes of the list: each one's step, title and note. */
const readScenes = (page) =>
  page.$$eval('[data-testid="scene-item"]', (els) =>
    els.map((el) => ({
      step: Number(el.querySelector('[data-testid="scene-step"]').textContent.replace('Step ', '')),
      title: el.querySelector('[data-testid="scene-title"]').value,
      note: el.querySelector('[data-testid="scene-note"]').value,
    })),
  );

/** Opens a fresh page (its own context, so nothing saved before) at `viewport`. */
async function fresh(viewport = { width: 1280, height: 720 }) {
  const context = await env.browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  return { context, page, errors };
}

/** Loads a ready-made demo and waits until its lesson's workload has played to the end. */
async function loadDemo(page, id) {
  await page.getByLabel('Speed').fill('30');
  await page.getByTestId('demo-select').selectOption(id);
  await page.getByTestId('demo-load').click();
  await page.locator('[data-testid="scene-item"]').nth(2).waitFor();
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar && bar.getAttribute('aria-valuenow') === bar.getAttribute('aria-valuemax');
  }, null, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
  return readScenes(page);
}

/** How many steps lesson `id`'s own setup makes: where the lesson opened alone stands
 * (`key` is in its summary once it is up). */
async function setupOf(id, key) {
  const alone = await env.browser.newContext();
  const lesson = await alone.newPage();
  await lesson.goto(`${env.server.url}?preset=${id}`);
  await lesson.getByTestId('summary').filter({ hasText: key }).waitFor({ timeout: 60_000 });
  const n = await step(lesson);
  await alone.close();
  return n;
}

/** Presses a key with the focus on nothing that takes text. */
async function press(page, key) {
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press(key);
}

test('a three-scene demo steps with the keyboard and the clicker, the presenter window in step', async () => {
  const { context, page, errors } = await fresh();
  const scenes = await loadDemo(page, 'hot-spot');
  assert.equal(scenes.length, 3);
  assert.ok(scenes[0].step < scenes[1].step && scenes[1].step < scenes[2].step, JSON.stringify(scenes));

  const [presenter] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('presenter-open').click()]);
  await presenter.getByTestId('presenter-idle').filter({ hasText: '3 scenes' }).waitFor();

  await page.getByTestId('demo-start').click();
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 1 of 3' }).waitFor();
  await atStep(page, scenes[0].step);
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 1 of 3' }).waitFor();
  await presenter.getByTestId('presenter-note').filter({ hasText: scenes[0].note }).waitFor();
  assert.equal(await presenter.getByTestId('presenter-note').innerText(), scenes[0].note);
  await presenter.getByTestId('presenter-next').filter({ hasText: `Next: ${scenes[1].title}` }).waitFor();
  assert.equal(await presenter.getByTestId('presenter-next').innerText(), `Next: ${scenes[1].title}`);

  // → goes to the next scene (not the next step of the timeline).
  await press(page, 'ArrowRight');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 2 of 3' }).waitFor();
  await atStep(page, scenes[1].step);
  assert.equal(await page.getByTestId('scene-current').innerText(), scenes[1].title);
  // The scene shows the key bar, the cluster and the heatmap, and hides the rest (as the
  // page redraws for it: wait for each, then check it).
  await page.getByTestId('cluster').waitFor();
  assert.ok(await page.getByTestId('cluster').isVisible());
  await page.locator('.panel.console').waitFor({ state: 'hidden' });
  assert.ok(!(await page.locator('.panel.console').isVisible()), 'the console is hidden in scene 2');
  await page.locator('.panel.controls').waitFor({ state: 'hidden' });
  assert.ok(!(await page.locator('.panel.controls').isVisible()), 'the forms are hidden in scene 2');
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 2 of 3' }).waitFor();
  await presenter.getByTestId('presenter-note').filter({ hasText: scenes[1].note }).waitFor();
  assert.equal(await presenter.getByTestId('presenter-note').innerText(), scenes[1].note);
  await screenshot(page, 'scenes-1280x720-scene2');
  await screenshot(presenter, 'scenes-presenter');

  // A presenter's clicker sends PageDown.
  await press(page, 'PageDown');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 3 of 3' }).waitFor();
  await atStep(page, scenes[2].step);
  await presenter.getByTestId('presenter-next').filter({ hasText: 'Last scene' }).waitFor();
  // Past the last scene nothing moves.
  await press(page, 'ArrowRight');
  assert.equal(await page.getByTestId('scene-position').innerText(), 'Scene 3 of 3');

  // Stepping in the presenter window moves the page too.
  await presenter.bringToFront();
  await press(presenter, 'PageUp');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 2 of 3' }).waitFor();
  await atStep(page, scenes[1].step);
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 2 of 3' }).waitFor();
  await presenter.getByTestId('presenter-prev').click();
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 1 of 3' }).waitFor();
  await atStep(page, scenes[0].step);

  // Once the demo ends, → steps the timeline again, and every panel is back.
  await page.bringToFront();
  await page.getByTestId('demo-stop').click();
  await page.getByTestId('scene-bar').waitFor({ state: 'detached' });
  await presenter.getByTestId('presenter-idle').waitFor();
  await page.locator('.panel.console').waitFor();
  assert.ok(await page.locator('.panel.console').isVisible());
  await press(page, 'ArrowRight');
  await atStep(page, scenes[0].step + 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a demo crosses from the counter lesson to the hashed one and back, keys and presenter in step', async () => {
  const setup = await setupOf('monotonic', 'sharded on');
  const hashedSetup = await setupOf('hashed', 'hashed');

  const { context, page, errors } = await fresh();
  const scenes = await loadDemo(page, 'hot-spot-to-hashed');
  assert.equal(scenes.length, 5);
  const summary = () => page.getByTestId('summary').innerText();
  const [presenter] = await Promise.all([page.waitForEvent('popup'), page.getByTestId('presenter-open').click()]);
  await presenter.getByTestId('presenter-idle').filter({ hasText: '5 scenes' }).waitFor();

  // The first three scenes are steps of the counter's lesson, which the demo opened.
  await page.getByTestId('demo-start').click();
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 1 of 5' }).waitFor();
  await atStep(page, setup);
  await press(page, 'ArrowRight');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 2 of 5' }).waitFor();
  await atStep(page, setup + 12);
  await press(page, 'PageDown');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 3 of 5' }).waitFor();
  await atStep(page, setup + 36);
  assert.doesNotMatch(await summary(), /hashed/);
  await presenter.getByTestId('presenter-next').filter({ hasText: `Next: ${scenes[3].title}` }).waitFor();

  // → opens the hashed key's lesson, plays its workload to the scene's step and shows it.
  await press(page, 'ArrowRight');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 4 of 5' }).waitFor();
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 4 of 5' }).waitFor();
  await page.getByTestId('summary').filter({ hasText: 'hashed' }).waitFor({ timeout: 60_000 });
  const hashedAt = hashedSetup + 10;
  // The workload stopped there (the scene hides the transport, whose Pause button is gone).
  await page.waitForFunction(() => !document.querySelector('[data-testid="pause"]'));
  await atStep(page, hashedAt);
  assert.equal(await page.getByTestId('scene-current').innerText(), scenes[3].title);
  await presenter.getByTestId('presenter-note').filter({ hasText: scenes[3].note }).waitFor();
  assert.equal(await presenter.getByTestId('presenter-note').innerText(), scenes[3].note);
  await page.locator('.panel.heatmap').waitFor();
  assert.ok(await page.locator('.panel.heatmap').isVisible(), 'the scene shows the heatmap');
  await page.locator('.panel.console').waitFor({ state: 'hidden' });
  assert.ok(!(await page.locator('.panel.console').isVisible()), 'the scene hides the console');
  // The demo came along: the same five scenes, the fourth on screen.
  assert.deepEqual((await readScenes(page)).map((s) => s.title), scenes.map((s) => s.title));
  await screenshot(page, 'scenes-1280x720-crossed-to-hashed');

  // The next scene is a step of the same lesson: the presenter window moves there.
  await presenter.bringToFront();
  await press(presenter, 'ArrowRight');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 5 of 5' }).waitFor();
  await atStep(page, hashedAt + 11);
  assert.match(await summary(), /hashed/);
  await presenter.getByTestId('presenter-next').filter({ hasText: 'Last scene' }).waitFor();
  await screenshot(page, 'scenes-1280x720-hashed-range-query');

  // ← twice goes back across the change of scenario, to the counter's lesson.
  await page.bringToFront();
  await press(page, 'ArrowLeft');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 4 of 5' }).waitFor();
  await atStep(page, hashedAt);
  await press(page, 'PageUp');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 3 of 5' }).waitFor();
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 3 of 5' }).waitFor();
  await page.waitForFunction(() => !/hashed/.test(document.querySelector('[data-testid="summary"]')?.textContent ?? 'hashed'), null, { timeout: 60_000 });
  await atStep(page, setup + 36);
  await presenter.getByTestId('presenter-note').filter({ hasText: scenes[2].note }).waitFor();
  assert.equal(await presenter.getByTestId('presenter-note').innerText(), scenes[2].note);

  // A moment added now, in the counter's lesson, carries that session's link; shown from
  // the hashed lesson, it opens the counter's session again, at that step.
  await page.getByTestId('scene-add').click();
  await page.locator('[data-testid="scene-item"]').nth(5).waitFor();
  await page.getByTestId('scene-step').nth(5).filter({ hasText: `Step ${setup + 36} of another scenario` }).waitFor();
  assert.equal(await page.getByTestId('scene-step').nth(5).innerText(), `Step ${setup + 36} of another scenario`);
  await page.getByTestId('scene-show').nth(4).click();
  await page.getByTestId('summary').filter({ hasText: 'hashed' }).waitFor({ timeout: 60_000 });
  await atStep(page, hashedAt + 11);
  await page.getByTestId('scene-show').nth(5).click();
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 6 of 6' }).waitFor();
  await page.waitForFunction(() => !/hashed/.test(document.querySelector('[data-testid="summary"]')?.textContent ?? 'hashed'), null, { timeout: 60_000 });
  await page.getByTestId('replay-progress').waitFor({ state: 'detached' });
  await atStep(page, setup + 36);
  await presenter.getByTestId('presenter-position').filter({ hasText: 'Scene 6 of 6' }).waitFor();
  assert.equal((await readScenes(page)).length, 6, 'the demo came along the link');
  // Five changes of scenario, and "Recent sessions" holds three: the playground the page
  // opened with (its speed was set), the demo's lesson, which the first scene of the hashed
  // lesson set aside, and the one session the scenes took turns in (six before, one a scene).
  await page.getByTestId('recent-sessions').click();
  await page.getByTestId('recent-panel').waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="recent-panel"]')?.innerText.includes('Reading'));
  const rows = await page.getByTestId('recent-row').allInnerTexts();
  assert.equal(rows.length, 3, rows.join('\n'));
  assert.match(rows[0], /this tab/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the audience link lands on the scene on screen, with its panels', async () => {
  const { context, page } = await fresh();
  const scenes = await loadDemo(page, 'continents');
  await page.getByTestId('demo-start').click();
  await press(page, 'ArrowRight');
  await page.getByTestId('scene-position').filter({ hasText: 'Scene 2 of 3' }).waitFor();
  await atStep(page, scenes[1].step);
  await page.getByTestId('audience-link').click();
  const url = await page.getByTestId('audience-url').inputValue();
  assert.match(url, /#s=v2\./);
  await context.close();

  // An attendee opens the link in a browser of their own.
  const attendee = await env.browser.newContext({ viewport: { width: 400, height: 800 } });
  const laptop = await attendee.newPage();
  await laptop.goto(url);
  await laptop.getByTestId('scene-position').filter({ hasText: 'Scene 2 of 3' }).waitFor({ timeout: 60_000 });
  await laptop.getByTestId('replay-progress').waitFor({ state: 'detached' });
  await atStep(laptop, scenes[1].step);
  assert.equal(await laptop.getByTestId('scene-current').innerText(), scenes[1].title);
  await laptop.getByTestId('cluster').waitFor();
  assert.ok(await laptop.getByTestId('cluster').isVisible());
  await laptop.locator('.panel.console').waitFor({ state: 'hidden' });
  assert.ok(!(await laptop.locator('.panel.console').isVisible()), 'the scene hides the console');
  await screenshot(laptop, 'scenes-400x800-audience');
  await attendee.close();
});

test('scenes are built from moments, edited, reordered, deleted and kept in the link', async () => {
  const { context, page, errors } = await fresh();
  await page.locator('[data-testid="chunk"]').first().waitFor();
  const start = await step(page);
  await page.getByTestId('step').click();
  await atStep(page, start + 1);
  const first = start + 1;
  await page.getByTestId('scene-add').click();
  await page.getByTestId('step').click();
  await atStep(page, first + 1);
  await page.getByTestId('scene-add').click();
  await page.locator('[data-testid="scene-item"]').nth(1).waitFor();
  const title = page.getByTestId('scene-title').nth(1);
  await title.fill('The second moment');
  await title.press('Tab');
  const note = page.getByTestId('scene-note').nth(1);
  await note.fill('Say this\nthen that');
  await note.press('Tab');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="scene-note"]')[1]?.value === 'Say this\nthen that');
  await page.getByTestId('scene-up').nth(1).click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="scene-title"]')?.value ?? '') === 'The second moment');
  let scenes = await readScenes(page);
  assert.deepEqual(scenes.map((s) => s.step), [first + 1, first]);
  await page.getByTestId('scene-delete').nth(1).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="scene-item"]').length === 1);

  await page.getByTestId('share-link').click();
  const url = await page.getByTestId('share-url').inputValue();
  const other = await env.browser.newContext();
  const opened = await other.newPage();
  await opened.goto(url);
  await opened.locator('[data-testid="scene-item"]').first().waitFor({ timeout: 60_000 });
  scenes = await readScenes(opened);
  assert.deepEqual(scenes, [{ step: first + 1, title: 'The second moment', note: 'Say this\nthen that' }]);
  assert.deepEqual(errors, []);
  await other.close();
  await context.close();
});

test('? lists every shortcut; Escape closes the list and gives the focus back', async () => {
  const { context, page } = await fresh();
  const tab = page.getByTestId('tab-playground');
  await tab.focus();
  await page.keyboard.press('?');
  await page.getByTestId('shortcuts-dialog').waitFor();
  const keys = await page.$$eval('[data-testid="shortcut"] kbd', (els) => els.map((e) => e.textContent));
  for (const key of ['Space', '→', '←', 'PageDown', 'PageUp', 'n / p', 'w', '?', 'Escape']) {
    assert.ok(keys.includes(key), `${key} is listed`);
  }
  // The page moves the focus (and keeps it) with its own code: wait for where it should be.
  const focusOn = (id) => page.waitForFunction((id) => document.activeElement?.dataset.testid === id, id);
  await focusOn('shortcuts-close');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'shortcuts-close');
  // The dialog is modal: Tab and Shift+Tab keep the focus inside it.
  await page.keyboard.press('Tab');
  await focusOn('shortcuts-close');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'shortcuts-close');
  await page.keyboard.press('Shift+Tab');
  await focusOn('shortcuts-close');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'shortcuts-close');
  await screenshot(page, 'scenes-shortcuts');
  await page.keyboard.press('Escape');
  await page.getByTestId('shortcuts-dialog').waitFor({ state: 'detached' });
  await focusOn('tab-playground');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'tab-playground');
  await context.close();
});
