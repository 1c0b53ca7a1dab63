// Shared harness for the end-to-end tests: serves the release build in dist/ on a free
// localhost port and launches Debian's Chromium through playwright-core.
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves `dir` on 127.0.0.1 and resolves to `{ url, close }`. */
export async function serve(dir = process.env.SHARDLAB_DIST ?? 'dist') {
  const root = normalize(dir);
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

/**
 * Registers the hooks every end-to-end file needs: serve the release build and launch
 * Chromium before its tests, close both after. `env.server` and `env.browser` are set
 * once the tests start.
 */
export function suite() {
  const env = {};
  before(async () => {
    env.server = await serve();
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/** Launches headless Chromium with the flags this machine's closed network needs. */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Holds back every request of `page` whose address matches `pattern` until `release()`;
 * `asked` lists their addresses as they are asked for.
 */
export async function holdBack(page, pattern) {
  let release;
  const gate = new Promise((r) => { release = r; });
  const asked = [];
  await page.route(pattern, async (route) => {
    asked.push(route.request().url());
    await gate;
    await route.continue();
  });
  return { asked, release };
}

/** Saves a full-page screenshot under target/screenshots/ and returns its path. */
export async function screenshot(page, name, { fullPage = true } = {}) {
  await mkdir('target/screenshots', { recursive: true });
  const path = `target/screenshots/${name}.png`;
  // The panels under the cluster are skipped while off screen (content-visibility: auto),
  // and a full-page capture does not wait for them to be drawn: draw them for the capture.
  const all = await page.addStyleTag({ content: '.lower, .insights { content-visibility: visible !important; }' });
  // Chromium sometimes leaves Playwright's own wait for fonts hanging on a page a service
  // worker has just taken over, though the page's `document.fonts` is loaded: the capture
  // is for people to look at, so a second try is made before giving up.
  // A page holding megabytes of text (a session near the size ShardLab can keep) can take
  // longer than that to lay out whole on a loaded machine: the second try is of the window.
  try {
    await page.screenshot({ path, fullPage, timeout: 15_000 });
  } catch (e) {
    if (e.name !== 'TimeoutError') throw e;
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path, timeout: 60_000 });
  }
  await all.evaluate((el) => el.remove());
  return path;
}

/**
 * Opens the playground in a new page with nothing saved from an earlier test, at `query`
 * (such as `?preset=hashed`), and waits for the cluster's summary. Returns the page and the
 * page errors it collects.
 */
export async function openFresh(env, query = '', viewport = { width: 1400, height: 1000 }) {
  const page = await env.browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${env.server.url}${query}`);
  await page.getByTestId('summary').waitFor();
  return { page, errors };
}

/** Reads every chunk block's data attributes from the page. */
export async function readChunks(page) {
  return page.$$eval('[data-testid="chunk"]', (els) =>
    els.map((el) => ({
      shard: el.dataset.shardId,
      min: el.dataset.min,
      max: el.dataset.max,
      count: Number(el.dataset.count),
      jumbo: el.dataset.jumbo === 'true',
    })),
  );
}

/** Opens the playground, picks a lesson from the menu and plays its workload to the end. */
export async function playLesson(browser, url, lesson, { speed = 30, viewport = { width: 1400, height: 1000 } } = {}) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.getByLabel('Lesson', { exact: true }).selectOption(lesson);
  await page.getByTestId('lesson-text').waitFor();
  await page.getByLabel('Speed').fill(String(speed));
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar && bar.getAttribute('aria-valuenow') === bar.getAttribute('aria-valuemax');
  }, null, { timeout: 60_000 });
  await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
  return { page, errors };
}

/** Reads every shard column: name, chunk count, documents and its share of recent inserts. */
export async function readShards(page) {
  return page.$$eval('[data-testid="shard"]', (els) =>
    els.map((el) => ({
      name: el.dataset.shardId,
      chunks: el.querySelectorAll('[data-testid="chunk"]').length,
      docs: Number(el.querySelector('[data-testid="shard-totals"]').dataset.docs),
      lastInserts: Number(el.dataset.lastInserts),
      targeted: el.dataset.targeted === 'true',
    })),
  );
}

/** Types a filter into the query box and returns the explain stage and targeted shards. */
export async function targetQuery(page, filter) {
  await page.getByTestId('query-filter').fill(filter);
  // The engine answers from its worker: the stage shown is for this filter once it says so,
  // and the shards it names are outlined in the cluster.
  await page.waitForFunction((f) => {
    const badge = document.querySelector('[data-testid="query-stage"]');
    if (badge?.dataset.filter !== f) return false;
    const named = (badge.textContent.split('→')[1] ?? '').split('(')[0].split(',').filter((s) => s.trim()).length;
    return document.querySelectorAll('[data-testid="shard"][data-targeted="true"]').length === named;
  }, filter);
  const stage = await page.getByTestId('query-stage').getAttribute('data-stage');
  const shards = (await readShards(page)).filter((s) => s.targeted).map((s) => s.name);
  return { stage, shards };
}

/** Reads the comparison table's rows. */
export async function readCompareRows(page) {
  return page.$$eval('[data-testid="compare-row"]', (els) =>
    els.map((el) => ({
      label: el.dataset.label,
      hottest: Number(el.dataset.hottestShare),
      chunks: Number(el.dataset.chunks),
      jumbo: Number(el.dataset.jumbo),
      single: Number(el.dataset.single),
      multi: Number(el.dataset.multi),
      scatter: Number(el.dataset.scatter),
    })),
  );
}

/** Presses the comparison's Play and waits until its workload has run to the end. */
export async function playComparison(page) {
  await page.getByTestId('compare-play').click();
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="compare-progress"]');
    return bar && bar.dataset.done === bar.dataset.total;
  }, null, { timeout: 60_000 });
}

/**
 * Unfolds the setup under the command bar (the collection, the shard key, the cluster and
 * the workload's forms, folded away so that the cluster has the first screen) as a person
 * would, with its Setup button; does nothing when it is open already.
 */
export async function openSetup(page) {
  const toggle = page.getByTestId('setup-toggle');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByTestId('setup').waitFor();
}

/** In an open guided-lesson step: picks a right or wrong prediction, reads the verdict,
 * runs the step and waits for its result. Returns the verdict. */
export async function walkGuideStep(page, { correct }) {
  await page.locator(`[data-testid="guide-choice"][data-correct="${correct}"]`).first().check();
  const verdict = page.getByTestId('guide-verdict');
  await verdict.waitFor();
  const result = { correct: (await verdict.getAttribute('data-correct')) === 'true', text: await verdict.innerText() };
  await page.getByTestId('guide-run').click();
  await page.getByTestId('guide-result').waitFor({ timeout: 60_000 });
  return result;
}

/**
 * Types a command into the console and presses Enter, as a person does, then waits for
 * the console to echo it: the engine answers from its worker, and the echo comes with its
 * answer, so the page shows the command's effect from then on.
 */
export async function typeCommand(page, command, { timeout } = {}) {
  const input = page.getByTestId('console-input');
  await input.fill(command, { timeout });
  await input.press('Enter', { timeout });
  await page.waitForFunction((command) => {
    // Echoed after mongosh's prompt: the database it was typed in (`test> `, `t> `).
    const inputs = [...document.querySelectorAll('[data-testid="console-output"] .line.in')];
    const echo = inputs.length > 0 ? inputs[inputs.length - 1].textContent : '';
    return /^[^\s>]+> /.test(echo) && echo.slice(echo.indexOf('> ') + 2) === command;
  }, command.trim(), { timeout });
}

// The saved sessions live in IndexedDB (web/src/platform/sessions.rs): database `shardlab`,
// stores `meta` and `scenarios`, keyed by the session's id; this tab's id is in
// sessionStorage. These helpers read and write them as the page's storage holds them.

/** In the page: this tab's saved scenario text, or null. */
async function readSaved() {
  const id = sessionStorage.getItem('shardlab.session.id');
  if (!id) return null;
  const db = await new Promise((resolve, reject) => {
    const r = indexedDB.open('shardlab', 1);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    const row = await new Promise((resolve, reject) => {
      const r = db.transaction('scenarios').objectStore('scenarios').get(id);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    return row ? row.text : null;
  } finally {
    db.close();
  }
}

/** The source of the function that reads this tab's saved session's text in the page
 * (for a test that measures a text too large to hand back). */
export function readSavedSource() {
  return readSaved.toString();
}

/** This tab's saved session's scenario text, or null. */
export async function savedSession(page) {
  return page.evaluate(readSaved);
}

/** Waits until this tab's saved session holds `needle` (exactly `count` times, if given),
 * and returns its text. */
export async function waitForSaved(page, needle = '', count = null) {
  const handle = await page.waitForFunction(async ([source, needle, count]) => {
    // eslint-disable-next-line no-new-func
    const text = await new Function(`return (${source})()`)();
    if (text === null) return null;
    const n = text.split(needle).length - 1;
    return (count === null ? n > 0 || needle === '' : n === count) ? text : null;
  }, [readSaved.toString(), needle, count], { polling: 100 });
  return handle.jsonValue();
}

/** Stores `text` as this tab's saved session, as anything with the page's storage could
 * (the page must have started, so that the tab has its id). */
export async function storeSession(page, text) {
  await page.waitForFunction(() => sessionStorage.getItem('shardlab.session.id') !== null);
  await page.evaluate(async (text) => {
    const id = sessionStorage.getItem('shardlab.session.id');
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open('shardlab', 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const tx = db.transaction(['meta', 'scenarios'], 'readwrite');
    tx.objectStore('meta').put({ id, name: 'Planted', created: 0, updated: Date.now(), steps: 1, own: 1, collections: [], page: [] });
    tx.objectStore('scenarios').put({ id, text });
    await new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); });
    db.close();
  }, text);
}

/** In the page: every stored session's meta record. */
export async function storedSessions(page) {
  return page.evaluate(async () => {
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open('shardlab', 1);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const all = await new Promise((resolve, reject) => {
      const r = db.transaction('meta').objectStore('meta').getAll();
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    db.close();
    return all;
  });
}

/**
 * Waits until the form field `selector` matches (an input, select or textarea, found by a
 * CSS selector: the first match) holds `value`: a string it equals, or a RegExp its value
 * matches. A field's value is a property the page sets as it redraws, which no locator can
 * wait for: read it after this, not right after the action that changes it.
 */
export async function waitForValue(page, selector, value) {
  const want = value instanceof RegExp ? { source: value.source, flags: value.flags } : { equals: String(value) };
  await page.waitForFunction(([selector, want]) => {
    const el = document.querySelector(selector);
    if (!el) return false;
    return 'equals' in want ? el.value === want.equals : new RegExp(want.source, want.flags).test(el.value);
  }, [selector, want]);
}

/** Waits until the console's last line reads `text` (the answer to the command typed last:
 * the engine answers from its worker). */
export async function waitForLastLine(page, text, { timeout } = {}) {
  try {
    await page.waitForFunction((text) => {
      const lines = document.querySelectorAll('[data-testid="console-output"] .line');
      return lines.length > 0 && lines[lines.length - 1].textContent === text;
    }, text, { timeout });
  } catch (e) {
    // Say what the page showed instead: a failure in a long run is otherwise a bare timeout.
    const seen = await page.evaluate(() => ({
      lines: [...document.querySelectorAll('[data-testid="console-output"] .line')].slice(-5).map((l) => l.textContent),
      notices: [...document.querySelectorAll('[data-testid="notice"]')].map((n) => n.textContent),
      cluster: document.querySelector('[data-testid="cluster-view"]')?.textContent?.slice(0, 200) ?? null,
    })).catch(() => null);
    e.message += `\nwaiting for the console's last line to read ${JSON.stringify(text)}; the page showed ${JSON.stringify(seen)}`;
    throw e;
  }
}

/**
 * An init script (`page.addInitScript(recordRequests)`): records what the page asks of its
 * engine's worker, by method, in `window.__asked` (requests are plain objects).
 */
export function recordRequests() {
  window.__asked = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    const m = typeof message === 'string' ? (() => { try { return JSON.parse(message); } catch { return null; } })() : message;
    if (m && typeof m.method === 'string') window.__asked.push({ method: m.method, params: m.params });
    return post.call(this, message, ...rest);
  };
}
