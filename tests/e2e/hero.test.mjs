// Issue 28, item 2, "The cluster is the hero": at a laptop's, a desktop's and a phone's
// size, and on a 1280x720 projector in workshop mode, the first screen holds the key bar,
// the shards with their chunks, and Play and Step; the lesson text and the forms fold
// away and open on demand. In workshop mode the chunk ranges, counts and legends are
// readable from the back of a room. Screenshots of each first screen go to
// target/screenshots/hero-*.png (and /tmp/shots/) for looking at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { suite, playLesson, openSetup } from './harness.mjs';

const env = suite();

const SIZES = [
  { width: 1280, height: 720, workshop: true },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
  { width: 400, height: 800 },
];

const name = ({ width, height, workshop }) => `${width}x${height}${workshop ? ' in workshop mode' : ''}`;

/** What the window shows, saved for looking at. */
async function shot(page, file) {
  await mkdir('target/screenshots', { recursive: true });
  await mkdir('/tmp/shots', { recursive: true });
  const path = `target/screenshots/${file}.png`;
  await page.screenshot({ path });
  await copyFile(path, `/tmp/shots/${file}.png`);
  return path;
}

/** Every box `selector` matches, as {top, bottom, left, right} in the window. */
async function boxes(page, selector) {
  return page.$$eval(selector, (els) => els.map((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  }));
}

/** Whether a box lies wholly inside the first screen (the page scrolled to its top). */
function inFirstScreen(box, { width, height }) {
  return box.top >= 0 && box.left >= 0 && box.bottom <= height + 0.5 && box.right <= width + 0.5;
}

for (const size of SIZES) {
  const viewport = { width: size.width, height: size.height };
  test(`hero: at ${name(size)} the key bar, the shards with their chunks, Play and Step are on the first screen`, async () => {
    const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic', { viewport });
    if (size.workshop) {
      await page.getByTestId('workshop-toggle').click();
      await page.locator('.page.workshop').waitFor();
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    // The forms are folded away, the lesson text to two lines.
    assert.equal(await page.getByTestId('setup-toggle').getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByTestId('shard-key').isVisible(), false, 'the shard key form is folded away');
    const lesson = await page.getByTestId('lesson-text').evaluate((p) => {
      const line = parseFloat(getComputedStyle(p).lineHeight);
      return { lines: (p.clientHeight - parseFloat(getComputedStyle(p).paddingTop) - parseFloat(getComputedStyle(p).paddingBottom)) / line };
    });
    assert.ok(lesson.lines <= 2.05, `the lesson text shows ${lesson.lines.toFixed(2)} lines`);

    // On a laptop, a desktop and a projector every shard column ends inside the window
    // (its chunk list scrolls inside). On a phone the lists are longer than what is left
    // of the window and scroll with the page: each shard's head, totals and first chunk
    // are on the first screen.
    const phone = size.width <= 700;
    const wanted = {
      'the key bar': await boxes(page, '.panel.keybar'),
      Play: await boxes(page, '[data-testid="play"]'),
      Step: await boxes(page, '[data-testid="step"]'),
      'a shard': await boxes(page, phone ? '[data-testid="shard"] .shard-head, [data-testid="shard-totals"]' : '[data-testid="shard"]'),
      'a chunk list': phone ? [] : await boxes(page, '[data-testid="shard"] .chunks'),
    };
    assert.ok(await page.getByTestId('shard').count() >= 3, 'the lesson has three shards or more');
    if (phone) delete wanted['a chunk list'];
    for (const [what, list] of Object.entries(wanted)) {
      assert.ok(list.length >= 1, `${what} is drawn`);
      for (const b of list) assert.ok(inFirstScreen(b, viewport), `${what} at ${JSON.stringify(b)} is outside the first screen at ${name(size)}`);
    }
    // Each shard shows at least its first chunk, whole, inside the first screen.
    const first = await page.$$eval('[data-testid="shard"]', (els) => els.map((s) => {
      const c = s.querySelector('[data-testid="chunk"]:not(.far)');
      if (!c) return null;
      const r = c.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
    }));
    for (const b of first) if (b) assert.ok(inFirstScreen(b, viewport), `a shard's first chunk at ${JSON.stringify(b)} is below the first screen`);
    assert.ok(first.filter(Boolean).length >= 2, 'chunks are drawn on the first screen');
    console.log(`screenshot: ${await shot(page, `hero-${size.width}x${size.height}${size.workshop ? '-workshop' : ''}`)}`);

    // The lesson's whole text and the forms open on demand, and fold again.
    if (await page.getByTestId('lesson-more').count()) {
      await page.getByTestId('lesson-more').click();
      // The page redraws the button and the text after the click: wait for both.
      await page.getByTestId('lesson-more').and(page.locator('[aria-expanded="true"]')).waitFor();
      assert.equal(await page.getByTestId('lesson-more').getAttribute('aria-expanded'), 'true');
      await page.waitForFunction(() => {
        const p = document.querySelector('[data-testid="lesson-text"]');
        return p && p.scrollHeight <= p.clientHeight + 1;
      });
      const whole = await page.getByTestId('lesson-text').evaluate((p) => p.scrollHeight <= p.clientHeight + 1);
      assert.ok(whole, 'the unfolded lesson text shows all of itself');
      await page.getByTestId('lesson-more').click();
    }
    await openSetup(page);
    await page.getByTestId('shard-key').waitFor();
    await page.getByLabel('Workload generator').waitFor();
    if (size.width >= 1280) console.log(`screenshot: ${await shot(page, `hero-setup-${size.width}x${size.height}${size.workshop ? '-workshop' : ''}`)}`);
    // A presenter's reload keeps what this tab showed: the Setup unfolded, workshop mode.
    await page.reload();
    await page.getByTestId('shard-key').waitFor();
    assert.equal(await page.getByTestId('setup-toggle').getAttribute('aria-expanded'), 'true', 'the Setup stays open after a reload');
    if (size.workshop) await page.locator('.page.workshop').waitFor();
    assert.equal(await page.locator('.page.workshop').count(), size.workshop ? 1 : 0, 'workshop mode is as it was before the reload');
    await page.getByTestId('setup-toggle').click();
    await page.getByTestId('shard-key').waitFor({ state: 'hidden' });
    assert.deepEqual(errors, []);
  });
}

test('hero: in workshop mode at 1280x720, chunk ranges, counts and legends are at least 24px, high in contrast, and no banner takes a row', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic', { viewport: { width: 1280, height: 720 } });
  await page.getByTestId('workshop-toggle').click();
  await page.locator('.page.workshop').waitFor();
  // Play on the full collection brings a notice, a banner that would take a row.
  await page.getByTestId('play').click();
  await page.locator('.messages .notice').filter({ hasText: 'already holds' }).waitFor();
  // The size a reader sees: the computed size times every zoom on the way up.
  const sizes = await page.evaluate(() => {
    const seen = (el) => {
      let size = parseFloat(getComputedStyle(el).fontSize);
      for (let e = el; e; e = e.parentElement) size *= Number(getComputedStyle(e).zoom || 1);
      return size;
    };
    const of = (selector) => [...document.querySelectorAll(selector)]
      .filter((e) => e.getClientRects().length && e.textContent.trim())
      .map((e) => ({ selector, text: e.textContent.trim().slice(0, 40), px: seen(e) }));
    return [
      ...of('[data-testid="chunk"] .range'),
      ...of('[data-testid="chunk"] .chunk-stats'),
      ...of('[data-testid="chunk"] .badge'),
      ...of('[data-testid="shard-totals"]'),
      ...of('.shard-name'),
      ...of('.keybar-title'),
      ...of('.bar-ends span'),
      ...of('[data-testid="summary"]'),
    ];
  });
  for (const selector of ['.range', '.chunk-stats', '.badge', 'shard-totals', '.bar-ends span', '.keybar-title']) {
    assert.ok(sizes.some((s) => s.selector.includes(selector)), `${selector} is drawn`);
  }
  const small = sizes.filter((s) => s.px < 24);
  assert.deepEqual(small, [], 'text under 24px on the projector');
  // High contrast: the chunk ranges, counts and legends are near-black on white (7:1 and more).
  const contrast = await page.evaluate(() => {
    const parse = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
    };
    const backdrop = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        const a = c.startsWith('rgba') ? Number(c.match(/[\d.]+/g)[3]) : 1;
        if (a === 1) return parse(c);
      }
      return [255, 255, 255];
    };
    const ratio = (el) => {
      const [x, y] = [lum(parse(getComputedStyle(el).color)), lum(backdrop(el))].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    return ['.range', '.chunk-stats', '[data-testid="shard-totals"]', '.bar-ends span', '.keybar-title', '[data-testid="summary"]']
      .map((s) => ({ s, ratio: Math.min(...[...document.querySelectorAll(s)].filter((e) => !e.closest('.heat-1, .heat-2, .heat-3, .heat-4')).map(ratio)) }));
  });
  for (const { s, ratio } of contrast) assert.ok(ratio >= 7, `${s}: ${ratio.toFixed(2)}:1`);

  // No banner takes a row: the notice floats over the page, and the stage starts right
  // under the one row that holds the masthead's name and the tabs.
  await page.evaluate(() => window.scrollTo(0, 0));
  const rows = await page.evaluate(() => ({
    stage: document.querySelector('[data-testid="stage"]').getBoundingClientRect().top,
    tabs: document.querySelector('.tabs').getBoundingClientRect().bottom,
    position: getComputedStyle(document.querySelector('.messages')).position,
  }));
  assert.equal(rows.position, 'fixed', 'the notices float in workshop mode');
  assert.ok(rows.stage - rows.tabs <= 12, `the stage starts ${rows.stage - rows.tabs}px under the tabs`);
  assert.ok(rows.stage < 80, `the stage starts at ${rows.stage}px`);
  assert.deepEqual(errors, []);
});
