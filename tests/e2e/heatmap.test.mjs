// The key space over time: the heatmap under the insights. A person opens a lesson, plays
// it, and reads the heatmap; the assertions read the canvas's pixels (through the colour
// scale the legend draws) and the text the panel shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, screenshot, playLesson, waitForValue } from './harness.mjs';

const env = suite();

/** The heatmap panel once it shows the timeline's last picture: its cursor is the step the
 * timeline shows, and the canvas was painted. */
async function heatmap(page) {
  const panel = page.getByTestId('heatmap');
  await panel.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid="heatmap"]');
    const canvas = el?.querySelector('[data-testid="heatmap-canvas"]');
    const at = document.querySelector('[data-testid="position"]')?.innerText.match(/step (\d+) of (\d+)/);
    return canvas?.dataset.drawnAt === at?.[1] && el.dataset.cursor === at[1] && el.dataset.steps === at[2];
  });
  return panel;
}

/**
 * Reads the heat of every cell pixel: the legend's colour scale is read from its canvas,
 * and each pixel of the cells is matched to the nearest colour of that scale (0 for the
 * empty background). Pixels of another colour (a chunk boundary, the cursor) count as no
 * data. Returns per-row means over the columns from `from` to `to` (fractions of the
 * cells' width), top row first, and the row of the largest heat in each pixel column.
 */
async function readHeat(page, { from = 0, to = 1 } = {}) {
  return page.evaluate(({ from, to }) => {
    const panel = document.querySelector('[data-testid="heatmap"]');
    const canvas = panel.querySelector('[data-testid="heatmap-canvas"]');
    const legend = panel.querySelector('[data-testid="heat-legend"]');
    const width = Number(panel.dataset.cellsWidth);
    const height = canvas.height;
    const l = legend.getContext('2d').getImageData(0, 0, legend.width, legend.height);
    const mid = Math.floor(legend.height / 2) * legend.width * 4;
    const scale = [];
    for (let x = 0; x < legend.width; x++) {
      const i = mid + x * 4;
      scale.push([l.data[i], l.data[i + 1], l.data[i + 2], (x + 1) / legend.width]);
    }
    scale.push([0xfa, 0xfb, 0xfc, 0]);
    const img = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const x0 = Math.floor(from * width);
    const x1 = Math.max(x0 + 1, Math.floor(to * width));
    const heat = (x, y) => {
      const i = (y * width + x) * 4;
      let best = null;
      let bestD = Infinity;
      for (const [r, g, b, v] of scale) {
        const d = (img[i] - r) ** 2 + (img[i + 1] - g) ** 2 + (img[i + 2] - b) ** 2;
        if (d < bestD) {
          bestD = d;
          best = v;
        }
      }
      return bestD <= 24 ** 2 ? best : null;
    };
    const rows = [];
    for (let y = 0; y < height; y++) {
      let sum = 0;
      let n = 0;
      for (let x = x0; x < x1; x++) {
        const h = heat(x, y);
        if (h !== null) {
          sum += h;
          n++;
        }
      }
      rows.push(n ? sum / n : 0);
    }
    const peaks = [];
    for (let x = x0; x < x1; x++) {
      let best = -1;
      let at = -1;
      for (let y = 0; y < height; y++) {
        const h = heat(x, y);
        if (h !== null && h > 0 && h > best) {
          best = h;
          at = y;
        }
      }
      peaks.push(at);
    }
    return { rows, peaks, height };
  }, { from, to });
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The mean heat of the top tenth of `rows` (top row first) and of the rest. */
function topAndRest(rows) {
  const top = Math.ceil(rows.length / 10);
  return { top: mean(rows.slice(0, top)), rest: mean(rows.slice(top)) };
}

test('monotonic: the heat rides the top edge of the key space and the panel says "hot edge"', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic');
  const panel = await heatmap(page);
  assert.equal(await panel.getAttribute('data-pattern'), 'hot edge');
  const text = await page.getByTestId('heat-pattern').innerText();
  assert.match(text, /^hot edge\b/);
  assert.match(text, /above every earlier key/);
  assert.match(text, /MaxKey/);
  // Y runs from MinKey (bottom) to MaxKey (top); X from the first step to the last.
  const steps = await panel.getAttribute('data-steps');
  assert.equal(await page.getByTestId('heat-last').innerText(), `step ${steps}`);
  assert.equal(await page.getByTestId('heat-first').innerText(), 'step 1');
  assert.match(await panel.locator('.heat-y').innerText(), /^MaxKey\s+MinKey$/);
  // A counter's key space grows with every step, and each step's inserts go above all the
  // earlier keys: in the newest steps (the last twentieth of the columns, left of the
  // cursor's line) the top rows are far hotter than the rest of the key space...
  const newest = await readHeat(page, { from: 0.95, to: 0.995 });
  const { top, rest } = topAndRest(newest.rows);
  assert.ok(top > 0.05, `the top rows are hot (${top})`);
  assert.ok(top > 8 * rest, `top rows ${top.toFixed(3)} against the rest ${rest.toFixed(3)}`);
  const hot = newest.peaks.filter((y) => y >= 0);
  assert.ok(hot.length > 0 && hot.every((y) => y < newest.height / 10),
    `the hottest pixel of each newest column is in the top tenth: ${hot}`);
  // ...and step after step, the hot edge climbs: a column's hottest row is never below an
  // earlier one's (pixel rows count from the top).
  const all = await readHeat(page);
  const peaks = all.peaks.filter((y) => y >= 0);
  assert.ok(peaks.length > 10, 'most columns hold inserts');
  for (let i = 1; i < peaks.length; i++) {
    assert.ok(peaks[i] <= peaks[i - 1] + 2, `column ${i}: hottest row ${peaks[i]} under ${peaks[i - 1]}`);
  }
  assert.ok(peaks[0] - peaks[peaks.length - 1] > all.height / 2, 'the edge climbs the key space');
  await screenshot(page, 'heatmap-monotonic');
  // Another lesson: nothing of this picture stays.
  await page.getByLabel('Lesson', { exact: true }).selectOption('hashed');
  // The new session's first answer (no step yet), then its setup: no insert yet.
  await page.getByTestId('heatmap-empty').filter({ hasText: /No inserts into test\.events yet/ }).waitFor();
  await page.locator('[data-testid="heatmap"][data-pattern=""]').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('heatmap').getAttribute('data-pattern'), '');
  assert.deepEqual(errors, []);
});

test('hashed _id: the heat spreads over the whole hash space, no band, and the panel says "even"', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'hashed');
  const panel = await heatmap(page);
  assert.equal(await panel.getAttribute('data-pattern'), 'even');
  assert.equal(await panel.getAttribute('data-hashed'), 'true');
  assert.match(await page.getByTestId('heat-pattern').innerText(), /^even\b/);
  // The axis is the int64 hash space, its ends labelled.
  const axis = await page.getByTestId('heat-axis').innerText();
  assert.match(axis, /hash space/);
  assert.match(axis, /-9223372036854775808/);
  assert.match(axis, /9223372036854775807/);
  assert.match(await panel.locator('.heat-y').innerText(), /int64 max[\s\S]*int64 min/);
  // Every tenth of the key space takes a fair share of the heat: no band, no edge.
  const { rows } = await readHeat(page, { from: 0, to: 0.995 });
  const band = Math.floor(rows.length / 10);
  const shares = Array.from({ length: 10 }, (_, i) => rows.slice(i * band, (i + 1) * band).reduce((a, b) => a + b, 0));
  const total = shares.reduce((a, b) => a + b, 0);
  assert.ok(total > 0, 'there is heat');
  for (const [i, s] of shares.entries()) {
    assert.ok(s / total > 0.04 && s / total < 0.2, `tenth ${i} of the hash space holds ${(s / total).toFixed(3)} of the heat`);
  }
  const newest = await readHeat(page, { from: 0.9, to: 0.995 });
  const { top, rest } = topAndRest(newest.rows);
  assert.ok(top < 2.5 * rest, `no hot top edge: top ${top.toFixed(3)}, rest ${rest.toFixed(3)}`);
  await screenshot(page, 'heatmap-hashed');
  assert.deepEqual(errors, []);
});

test('clicking a cell moves the timeline cursor to its step, and the heatmap follows', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'monotonic');
  const panel = await heatmap(page);
  const steps = Number(await panel.getAttribute('data-steps'));
  const columns = Number(await panel.getAttribute('data-columns'));
  const perColumn = Number(await panel.getAttribute('data-per-column'));
  const canvas = page.getByTestId('heatmap-canvas');
  const box = await canvas.boundingBox();
  const cellsCss = Number(await panel.getAttribute('data-cells-width')) / (await page.evaluate(() => devicePixelRatio));
  const clickColumn = async (c) => {
    await canvas.click({ position: { x: ((c + 0.5) * cellsCss) / columns, y: box.height / 2 } });
    return Math.min((c + 1) * perColumn, steps);
  };
  const target = await clickColumn(Math.floor(columns / 3));
  assert.ok(target > 1 && target < steps);
  await page.getByTestId('position').filter({ hasText: `step ${target} of ${steps}` }).waitFor();
  await waitForValue(page, '[data-testid="timeline"]', String(target));
  assert.equal(await page.getByTestId('timeline').inputValue(), String(target));
  await heatmap(page);
  assert.equal(await panel.getAttribute('data-cursor'), String(target));
  assert.equal(await panel.getAttribute('data-steps'), String(steps), 'jumping keeps the later steps');
  // The cursor's line (the page's ink) stands at the right edge of the step jumped to.
  const line = await page.evaluate(() => {
    const panel = document.querySelector('[data-testid="heatmap"]');
    const canvas = panel.querySelector('canvas');
    const width = Number(panel.dataset.cellsWidth);
    const row = canvas.getContext('2d').getImageData(0, 5, width, 1).data;
    const xs = [];
    for (let x = 0; x < width; x++) {
      if (row[x * 4] === 0x1b && row[x * 4 + 1] === 0x21 && row[x * 4 + 2] === 0x30) xs.push(x);
    }
    return { xs, width };
  });
  const expected = (line.width * target) / (columns * perColumn);
  assert.ok(line.xs.length > 0 && line.xs.every((x) => Math.abs(x - expected) <= 3),
    `the cursor's line at ${line.xs}, expected near ${expected}`);
  // The last column jumps to the last step.
  const last = await clickColumn(columns - 1);
  assert.equal(last, steps);
  await page.getByTestId('position').filter({ hasText: `step ${steps} of ${steps}` }).waitFor();
  await waitForValue(page, '[data-testid="timeline"]', String(steps));
  assert.equal(await page.getByTestId('timeline').inputValue(), String(steps));
  // A fork from an earlier column drops the later steps: the heatmap ends there.
  await clickColumn(Math.floor(columns / 3));
  await page.getByTestId('position').filter({ hasText: `step ${target} of ${steps}` }).waitFor();
  await page.getByTestId('fork').click();
  await page.getByTestId('position').filter({ hasText: `step ${target} of ${target}` }).waitFor();
  await heatmap(page);
  await page.getByTestId('heat-last').filter({ hasText: new RegExp(`^step ${target}$`) }).waitFor();
  assert.equal(await page.getByTestId('heat-last').innerText(), `step ${target}`);
  // The canvas is focusable and says what it is.
  await canvas.focus();
  assert.match(await canvas.getAttribute('aria-label'), /^Key space over time of test\.events/);
  assert.deepEqual(errors, []);
});

test('no inserts or an unsharded collection: a message, then the heat once inserts arrive', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${env.server.url}?preset=monotonic`);
  await page.getByTestId('lesson-text').waitFor();
  const empty = page.getByTestId('heatmap-empty');
  await empty.filter({ hasText: /No inserts into test\.events yet/ }).waitFor();
  assert.match(await empty.innerText(), /No inserts into test\.events yet/);
  assert.equal(await page.getByTestId('heatmap-canvas').count(), 0, 'no blank canvas');
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Step', exact: true }).click();
  await heatmap(page);
  // A collection the console made, not sharded: the panel follows it and says so.
  const input = page.getByTestId('console-input');
  await input.fill('db.plain.insertOne({a: 1})');
  await input.press('Enter');
  await page.getByTestId('heatmap').and(page.locator('[data-ns="test.plain"]')).waitFor();
  await empty.filter({ hasText: /test\.plain is not sharded/ }).waitFor();
  assert.match(await empty.innerText(), /test\.plain is not sharded/);
  assert.deepEqual(errors, []);
});

test('the panel fits a 400 px wide window', async () => {
  const { page, errors } = await playLesson(env.browser, env.server.url, 'hashed', { viewport: { width: 400, height: 900 } });
  const panel = await heatmap(page);
  const fit = await page.evaluate(() => {
    const el = document.querySelector('[data-testid="heatmap"]');
    const box = el.getBoundingClientRect();
    const over = [...el.querySelectorAll('*')]
      .map((c) => ({ c, r: c.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && (r.right > box.right + 0.5 || r.left < box.left - 0.5))
      .map(({ c }) => c.className || c.tagName);
    return { right: box.right, scrollWidth: document.documentElement.scrollWidth, over,
      canvas: el.querySelector('canvas').getBoundingClientRect().width };
  });
  assert.ok(fit.right <= 400, `the panel ends at ${fit.right}`);
  assert.equal(fit.scrollWidth, 400, 'no horizontal scrolling');
  assert.deepEqual(fit.over, [], 'nothing sticks out of the panel');
  assert.ok(fit.canvas > 250, `the canvas is ${fit.canvas} px wide`);
  assert.ok(Number(await panel.getAttribute('data-columns')) >= 1);
  await screenshot(page, 'heatmap-400');
  assert.deepEqual(errors, []);
});
