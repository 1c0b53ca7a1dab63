// Keyboard, small screens and contrast: Space plays without scrolling the page; at phone,
// laptop and desktop sizes nothing passes the viewport's right edge and the charts keep a
// usable width; the guided step and its result stay in view together in workshop mode;
// text meets WCAG AA contrast (4.5:1); underscores show in the monospace inputs.
// Screenshots go to target/screenshots/ and, for looking at, /tmp/shots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { suite, screenshot, walkGuideStep, openSetup } from './harness.mjs';

const env = suite();

async function openPage(viewport, { deviceScaleFactor = 1, reducedMotion = 'no-preference' } = {}) {
  const page = await env.browser.newPage({ viewport, deviceScaleFactor, reducedMotion });
  const errors = [];
  const warnings = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  await page.goto(env.server.url);
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  await page.getByTestId('play').waitFor();
  return { page, errors, warnings };
}

async function shot(page, name, { fullPage = true } = {}) {
  let path;
  if (fullPage) {
    path = await screenshot(page, name);
  } else {
    // What the window shows (a full-page capture would draw a sticky panel out of place).
    await mkdir('target/screenshots', { recursive: true });
    path = `target/screenshots/${name}.png`;
    await page.screenshot({ path });
  }
  await mkdir('/tmp/shots', { recursive: true });
  await copyFile(path, `/tmp/shots/${name}.png`);
  return path;
}

/** Picks the monotonic lesson and plays it until `docs` documents are in. */
async function playSome(page, docs = 200) {
  await page.getByLabel('Lesson', { exact: true }).selectOption('monotonic');
  await page.getByTestId('lesson-text').waitFor();
  await page.getByLabel('Speed').fill('30');
  await page.getByTestId('play').click();
  await page.waitForFunction((n) => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar && Number(bar.getAttribute('aria-valuenow')) >= n;
  }, docs, { timeout: 60_000 });
  await page.getByTestId('pause').click();
  await page.getByTestId('play').waitFor();
}

/** Every visible element whose box passes the viewport's right edge, unless it sits in a
 * container that scrolls sideways (overflow-x auto or scroll, and wider inside than out)
 * and ends inside the viewport. The panels that skip rendering off screen are drawn first. */
async function pastRightEdge(page) {
  const style = await page.addStyleTag({ content: '.lower, .insights { content-visibility: visible !important; }' });
  const found = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const scrollsSideways = (el) => {
      const s = getComputedStyle(el);
      return (s.overflowX === 'auto' || s.overflowX === 'scroll') && el.scrollWidth > el.clientWidth
        && el.getBoundingClientRect().right <= vw + 0.5;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= vw + 0.5) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      let p = el.parentElement;
      while (p && !scrollsSideways(p)) p = p.parentElement;
      if (p) continue;
      const name = el.getAttribute('data-testid') ?? (typeof el.className === 'string' ? el.className : el.tagName);
      out.push(`${el.tagName.toLowerCase()} ${name}: right ${Math.round(r.right)} > ${vw}`);
    }
    return { out, scrollWidth: document.documentElement.scrollWidth, vw };
  });
  await style.evaluate((el) => el.remove());
  return found;
}

/** The drawn width of every chart: the key bar's canvas and the insights' SVG charts. */
async function chartWidths(page) {
  const style = await page.addStyleTag({ content: '.lower, .insights { content-visibility: visible !important; }' });
  const widths = await page.$$eval('.bar-canvas, .chart svg, figure svg', (els) =>
    els.map((e) => ({ what: e.getAttribute('aria-label') ?? e.className?.baseVal ?? e.className, width: Math.round(e.getBoundingClientRect().width) })));
  await style.evaluate((el) => el.remove());
  return widths;
}

// WCAG 2 relative luminance and contrast ratio, from computed `rgb()`/`rgba()` colours.
const CONTRAST = `
  window.__parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  window.__over = (fg, bg) => [0, 1, 2].map((i) => fg[i] * fg[3] + bg[i] * (1 - fg[3])).concat(1);
  window.__lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  window.__ratio = (a, b) => { const [x, y] = [__lum(a), __lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // The colour an element's box is painted on: its own and its ancestors' background
  // colours composited down to the first opaque one (white below everything). null when a
  // background image (a gradient) is in the way and the colour underneath is not one.
  window.__backdrop = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== 'none') return null;
      const c = __parse(s.backgroundColor);
      if (c && c[3] > 0) layers.push(c);
      if (c && c[3] === 1) break;
    }
    return layers.reduceRight((bg, c) => __over(c, bg), [255, 255, 255, 1]);
  };
  window.__textContrast = (el, backdrop = __backdrop(el)) => {
    if (!backdrop) return null;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const fg = __parse(getComputedStyle(el).color);
    return __ratio(__over([fg[0], fg[1], fg[2], fg[3] * opacity], backdrop), backdrop);
  };
`;

test('layout: Space at the top of the page toggles play without scrolling or a passive-listener warning', async () => {
  const { page, errors, warnings } = await openPage({ width: 1280, height: 720 });
  // The panels under the cluster are drawn once their parts of the page's module are in
  // (they load after the first answer): until then the page may be short.
  await page.waitForFunction(() => !document.querySelector('[data-testid="part-loading"]'));
  assert.ok(await page.evaluate(() => document.documentElement.scrollHeight > innerHeight * 1.5), 'the page is taller than the window');
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  await page.keyboard.press('Space');
  await page.getByTestId('pause').waitFor();
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'Space scrolled the page');
  await page.keyboard.press('Space');
  await page.getByTestId('play').waitFor();
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'Space scrolled the page');
  // The arrows step forth and back and do not scroll either. Each step is drawn once the
  // engine answers: wait for it (the sign the key was taken) before reading the scroll.
  const position = page.getByTestId('position');
  for (const key of ['ArrowRight', 'ArrowLeft']) {
    const before = await position.textContent();
    await page.keyboard.press(key);
    await page.waitForFunction((before) => document.querySelector('[data-testid="position"]').textContent !== before, before);
  }
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'an arrow key scrolled the page');
  assert.deepEqual(warnings.filter((w) => /passive|preventDefault/i.test(w)), []);
  assert.deepEqual(errors, []);
});

for (const viewport of [{ width: 360, height: 740 }, { width: 400, height: 800 }, { width: 768, height: 1000 }, { width: 1280, height: 720 }, { width: 1440, height: 900 }, { width: 1920, height: 1080 }]) {
  const size = `${viewport.width}x${viewport.height}`;
  test(`layout: at ${size} nothing passes the right edge and the charts keep their width`, async () => {
    const { page, errors } = await openPage(viewport);
    await playSome(page);
    const { out, scrollWidth, vw } = await pastRightEdge(page);
    assert.deepEqual(out, [], `elements past the right edge at ${size}`);
    assert.ok(scrollWidth <= vw, `the page scrolls sideways at ${size}: ${scrollWidth} > ${vw}`);
    const charts = await chartWidths(page);
    assert.ok(charts.length >= 3, `the key bar and two charts, got ${JSON.stringify(charts)}`);
    const least = Math.min(200, vw - 60);
    for (const c of charts) assert.ok(c.width >= least, `chart ${c.what} is ${c.width}px wide at ${size}`);
    if ([400, 1440].includes(viewport.width) || size === '1280x720') {
      console.log(`screenshot: ${await shot(page, `layout-${size}`)}`);
    }
    assert.deepEqual(errors, []);
  });
}

test('layout: the embed view on a phone shows the cluster inside the README frame', async () => {
  // The README's frame is 720px tall; on a 360px phone it is about 330px wide.
  const page = await env.browser.newPage({ viewport: { width: 330, height: 720 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}?embed=1&preset=monotonic`);
  await page.getByTestId('embed').waitFor();
  await page.locator('[data-testid="shard"]').first().waitFor();
  const shards = await page.$$eval('[data-testid="shard"]', (els) => els.map((e) => e.getBoundingClientRect().top));
  assert.ok(shards.length >= 3);
  for (const top of shards) assert.ok(top < 720 - 60, `a shard column starts at ${Math.round(top)}px, below the frame`);
  const { out } = await pastRightEdge(page);
  assert.deepEqual(out, []);
  console.log(`screenshot: ${await shot(page, 'layout-embed-330x720')}`);
  assert.deepEqual(errors, []);
});

test('layout: in workshop mode at 1280x720 the guided step and its result stay in view after Run it', async () => {
  const { page, errors } = await openPage({ width: 1280, height: 720 });
  await page.getByTestId('tab-guide').click();
  await page.locator('[data-testid="guide-start"][data-lesson="key-basics"]').click();
  await page.getByTestId('workshop-toggle').click();
  await page.locator('.page.workshop').waitFor();
  // In view: inside the window and inside the lesson panel's own scroll area.
  const inView = () => {
    const guide = document.querySelector('[data-testid="guide"]').getBoundingClientRect();
    const box = (id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
    const shown = (r) => r.top >= Math.max(0, guide.top) - 1 && r.bottom <= Math.min(innerHeight, guide.bottom) + 1;
    return { title: shown(box('guide-step-title')), result: shown(box('guide-result')), question: shown(document.querySelector('.guide-question legend').getBoundingClientRect()) };
  };
  for (let i = 1; i <= 3; i++) {
    // The step Next moved to is drawn a moment after the click: its choices are read once it is up.
    await page.getByTestId('guide-progress').filter({ hasText: new RegExp(`^Step ${i} of \\d+$`) }).waitFor();
    await walkGuideStep(page, { correct: i % 2 === 0 });
    await page.locator('.guide-highlight').first().waitFor({ timeout: 5_000 }).catch(() => {});
    // The page brings the result into view after drawing it: wait for that, then check it.
    await page.waitForFunction(`Object.values((${inView})()).every(Boolean)`);
    const seen = await page.evaluate(inView);
    assert.deepEqual(seen, { title: true, result: true, question: true }, `step ${i}`);
    if (i === 2) console.log(`screenshot: ${await shot(page, 'layout-workshop-1280x720', { fullPage: false })}`);
    await page.getByTestId('guide-next').click();
  }
  assert.deepEqual(errors, []);
});

test('layout: the progress text, the +N of a hot chunk and every other text meet 4.5:1', async () => {
  // Reduced motion: a chunk fading in after a split is not its resting contrast.
  const { page, errors } = await openPage({ width: 1440, height: 900 }, { reducedMotion: 'reduce' });
  await page.addScriptTag({ content: CONTRAST });
  await playSome(page, 300);
  await page.getByTestId('step').click();
  // The hot chunk's "+N" (the step's batch lands in one chunk; the others' stay empty).
  await page.locator('.gained').filter({ hasText: '+' }).first().waitFor();

  // The progress text sits partly on the fill and partly on the empty track.
  const progress = await page.evaluate(() => {
    const text = document.querySelector('[data-testid="progress"] .progress-text');
    const fill = __parse(getComputedStyle(document.querySelector('[data-testid="progress"] .progress-fill')).backgroundColor);
    const fillImage = getComputedStyle(document.querySelector('[data-testid="progress"] .progress-fill')).backgroundImage;
    const track = __backdrop(document.querySelector('[data-testid="progress"]'));
    return { fillImage, onFill: __textContrast(text, __over(fill, track)), onTrack: __textContrast(text, track) };
  });
  assert.equal(progress.fillImage, 'none', 'the fill is one colour, so the text can be checked against it');
  assert.ok(progress.onFill >= 4.5, `progress text on its fill: ${progress.onFill.toFixed(2)}:1`);
  assert.ok(progress.onTrack >= 4.5, `progress text on its track: ${progress.onTrack.toFixed(2)}:1`);

  const gained = await page.$$eval('.gained', (els) => els.filter((e) => e.textContent).map((e) => ({ text: e.textContent, ratio: __textContrast(e) })));
  assert.ok(gained.length >= 1);
  for (const g of gained) assert.ok(g.ratio !== null && g.ratio >= 4.5, `${g.text}: ${g.ratio?.toFixed(2)}:1`);

  // Everything else with text on the page, except disabled controls (exempt in WCAG) and
  // text on a gradient (a draining shard's stripes), which no single colour stands for.
  await page.addStyleTag({ content: '.lower, .insights { content-visibility: visible !important; }' });
  await page.getByTestId('analyze').click();
  // The report comes from the engine's worker: check its text too, once it is drawn.
  await page.getByTestId('analyze-report').waitFor({ state: 'attached' });
  const low = await page.evaluate(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set();
    while (walker.nextNode()) {
      const el = walker.currentNode.parentElement;
      if (!walker.currentNode.textContent.trim() || seen.has(el)) continue;
      seen.add(el);
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden' || el.closest(':disabled')) continue;
      const ratio = __textContrast(el);
      if (ratio !== null && ratio < 4.5) out.push(`${el.className || el.tagName} "${el.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}:1`);
    }
    for (const el of document.querySelectorAll('input[placeholder], textarea[placeholder]')) {
      if (el.value) continue;
      const bg = __backdrop(el);
      const ph = __parse(getComputedStyle(el, '::placeholder').color);
      const ratio = bg && __ratio(__over(ph, bg), bg);
      if (ratio !== null && ratio < 4.5) out.push(`placeholder "${el.placeholder}": ${ratio.toFixed(2)}:1`);
    }
    return out;
  });
  assert.deepEqual(low, []);
  assert.deepEqual(errors, []);
});

test('layout: underscores show in the monospace inputs at 1x', async () => {
  const { page, errors } = await openPage({ width: 1280, height: 720 }, { deviceScaleFactor: 1 });
  await openSetup(page);
  const key = page.getByTestId('shard-key');
  // A field of underscores must draw something: clipped, it looks like an empty field.
  const looks = async (text) => {
    await key.fill(text);
    await key.evaluate((el) => el.blur());
    return key.screenshot();
  };
  const spaces = await looks('{          }');
  const underscores = await looks('{__________}');
  assert.ok(!spaces.equals(underscores), 'underscores in the shard key field are clipped');
  assert.deepEqual(errors, []);
});
