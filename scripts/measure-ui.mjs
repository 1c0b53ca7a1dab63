// Measures the playground in headless Chromium with the Performance API. This is a
// measurement, not a test: it prints figures and asserts nothing about time.
//   node scripts/measure-ui.mjs   (after `trunk build --release`)
// The build is served compressed, as a static host would serve it, by a small server here:
// the precompressed copy beside each file (scripts/precompress.mjs: `.br` brotli, `.gz`
// zopfli) in the best encoding the browser accepts, else zlib's gzip at level 9.
// ENCODING=gzip serves gzip only (a host without brotli); every figure names the encoding
// it was served in.
// Figures:
// - the cluster drawn: from navigation start until the first frame after a shard of the
//   cluster shows (on a first visit, the pre-rendered first screen's), on both profiles.
// - time to interactive: from navigation start until the console accepts input, that is,
//   until a command typed into it (as a person types) has printed its answer. Measured on
//   a desktop window with no throttling, and on a phone profile set through the DevTools
//   protocol: 1.6 Mbps down (200,000 bytes/s), 750 kbps up, 150 ms round trip, CPU 4x
//   slower, a 400x800 window at 2x. Each is the median of RUNS loads (3), cache disabled.
//   "inputMs" is when the console's input first appeared enabled, "answerAfterEnterMs" how
//   long the answer took after Enter (the rest is the driver typing).
// - what had downloaded when the console first answered ("bytesBeforeAnswer", as served,
//   each file's first response), and the main thread's long tasks (over 50 ms) in the
//   visit's first 10 s, its start and the page's hydration included ("startLongTasks",
//   [start, duration] in ms; "longestStartTaskMs"), each run's.
// - the initial transfer: the bytes the server sent (and in which encoding) in the first
//   10 s of a visit that clicks nothing (HTML, JS glue, CSS, the page's wasm, the engine's
//   worker script, glue and wasm), the same responses' size in gzip, and every build file
//   gzipped offline.
// - where the phone profile's time goes: when each of the visit's files finished arriving
//   (the browser's own timing, in ms since navigation), beside when the console's input
//   appeared and when the first answer was printed.
// - frame times while a workload plays on 16 shards with ~1,000 chunks.
// - a three-column Compare run, in the engine's worker: what the tab downloads on first
//   use, how long the run takes, and the main thread's frames and long tasks meanwhile.
// - replaying the largest link the page accepts (256 KiB of commands): the main thread's
//   frames and long tasks from opening the link until the console answers after it.
// - the wasm memories, the page's and the engine worker's, after 16 shards with about a
//   thousand chunks and a Compare run, beside the page's JS heap.
// SHARDS, DOCS, MIN_CHUNKS, WORKLOAD (a generator; uniform by default) and BATCH (documents
// per tick, 20) change the scenario; REDUCED=1 measures with prefers-reduced-motion;
// SHARDLAB_DIST measures another build directory; TTI_ONLY=1 stops after the load figures.
// rAF intervals come in whole display frames (16.7 ms at 60 Hz, also when idle), so
// "over16" counts the frames that missed one.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { launch, openSetup } from '../tests/e2e/harness.mjs';
import { serveCompressed, ENCODINGS } from './serve-compressed.mjs';

const DIST = process.env.SHARDLAB_DIST ?? 'dist';
const RUNS = Number(process.env.RUNS ?? 3);
const server = await serveCompressed(DIST);
const browser = await launch();

const PROFILES = {
  desktop: { viewport: { width: 1440, height: 1000 } },
  mobile: {
    viewport: { width: 400, height: 800 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true,
    network: { offline: false, latency: 150, downloadThroughput: 200_000, uploadThroughput: 93_750 },
    cpu: 4,
  },
};

// Notes, in page time (ms since navigation start), when the console's input first appears
// enabled, when the engine's worker first answered anything, and when the first answer to
// a command sent from the console is printed.
function watchConsole() {
  const t = (window.__tti = {});
  // The main thread's long tasks (over 50 ms) from navigation on: [start, duration].
  t.long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) t.long.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({ type: 'longtask', buffered: true });
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => { t.engine ??= performance.now(); });
    }
  };
  let before = 0;
  const answers = () => document.querySelectorAll('[data-testid="console-output"] .line:not(.in)').length;
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target?.dataset?.testid === 'console-input' && t.sent === undefined) {
      t.sent = performance.now();
      before = answers();
    }
  }, true);
  new MutationObserver(() => {
    // The cluster drawn: the first frame after a shard first shows (the pre-rendered first
    // screen's, on a first visit, else the engine's first answer's).
    if (t.clusterSeen === undefined && document.querySelector('[data-testid="cluster"] .shard')) {
      t.clusterSeen = performance.now();
      requestAnimationFrame(() => { t.cluster = performance.now(); });
    }
    if (t.input === undefined) {
      const input = document.querySelector('[data-testid="console-input"]');
      if (input && !input.disabled) t.input = performance.now();
    }
    if (t.sent !== undefined && t.answer === undefined && answers() > before) t.answer = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/** Loads the page once under `profile` and types a command into the console. */
async function loadOnce(name) {
  const { network, cpu, ...options } = PROFILES[name];
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (network) await cdp.send('Network.emulateNetworkConditions', network);
  if (cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  await page.addInitScript(watchConsole);
  // When each response finished arriving, in the browser's own timing (throttled), the
  // worker's included.
  const arrived = [];
  context.on('requestfinished', (request) => {
    const { startTime, responseEnd } = request.timing();
    arrived.push({ url: request.url(), start: startTime, end: startTime + responseEnd });
  });
  server.log.length = 0;
  await page.goto(server.url, { waitUntil: 'commit' });
  const input = page.getByTestId('console-input');
  await input.waitFor({ timeout: 120_000 });
  await input.fill('db.events.countDocuments()');
  await input.press('Enter');
  await page.waitForFunction(() => window.__tti.answer !== undefined, null, { timeout: 120_000 });
  const t = await page.evaluate(() => window.__tti);
  const origin = await page.evaluate(() => performance.timeOrigin);
  // Everything a visit downloads without a click: the first 10 s from navigation, the
  // engine's worker and its wasm included (a dedicated worker's requests reach this
  // server like the page's).
  const since = await page.evaluate(() => performance.now());
  await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - since)));
  // The long tasks of the first 10 s (the page's start, its hydration included).
  const long = await page.evaluate(() => window.__tti.long);
  const sent = server.log.slice();
  await context.close();
  const files = {};
  for (const { url, start, end } of arrived) {
    const key = new URL(url).pathname.replace(/^.*\/(engine)-[0-9a-f]{16}\//, '/$1/').replace(/-[0-9a-f]{16}/, '');
    // The first time only: the offline service worker reads the same files again, later.
    if (end > 0 && end - origin < 10_000 && !(key in files)) {
      files[key] = Math.round(end - origin);
      // When the two modules were asked for: the engine's beside the page's, not after it.
      if (key.endsWith('.wasm')) files[`${key} requested`] = Math.round(start - origin);
    }
  }
  const timeline = { ...files, 'cluster drawn': Math.round(t.cluster), 'engine first answers': Math.round(t.engine), 'console input enabled': Math.round(t.input), 'command typed (Enter)': Math.round(t.sent), 'console answers': Math.round(t.answer) };
  // The bytes (as served) of the responses that had arrived when the console answered:
  // each file's first response, matched to the server's log by its path.
  const served = new Map();
  for (const r of sent) if (!served.has(r.path)) served.set(r.path, r.bytes);
  const before = {};
  for (const { url, end } of arrived) {
    // The server logs a directory's request as its index.html.
    const path = new URL(url).pathname.replace(/\/$/, '/index.html');
    if (end > 0 && end - origin <= t.answer && served.has(path) && !(path in before)) before[path] = served.get(path);
  }
  const bytesBeforeAnswer = Object.values(before).reduce((n, b) => n + b, 0);
  return { clusterMs: t.cluster, inputMs: t.input, consoleAnswersMs: t.answer, typedAtMs: t.sent, sent, timeline, long, bytesBeforeAnswer, before };
}

/** Frame intervals' p50, p95 and longest, in ms to a tenth. */
function frameMs(frames) {
  const sorted = [...frames].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return { p50: +at(50).toFixed(1), p95: +at(95).toFixed(1), max: +sorted[sorted.length - 1].toFixed(1) };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = {};
let transfer = null;
for (const name of Object.keys(PROFILES)) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await loadOnce(name));
  load[name] = {
    timeToInteractiveMs: Math.round(median(runs.map((r) => r.consoleAnswersMs))),
    clusterDrawnMs: Math.round(median(runs.map((r) => r.clusterMs))),
    inputMs: Math.round(median(runs.map((r) => r.inputMs))),
    answerAfterEnterMs: Math.round(median(runs.map((r) => r.consoleAnswersMs - r.typedAtMs))),
    runsMs: runs.map((r) => Math.round(r.consoleAnswersMs)),
    // What had downloaded (as served) when the console first answered, and the longest
    // main-thread task of the visit's first 10 s (its start and hydration), each run's.
    bytesBeforeAnswer: runs.map((r) => r.bytesBeforeAnswer),
    bytesBeforeAnswerByFile: runs[0].before,
    longestStartTaskMs: runs.map((r) => Math.max(0, ...r.long.map(([, d]) => d))),
    startLongTasks: runs.map((r) => r.long),
    // The median run's, in ms since navigation, in order.
    timelineMs: Object.fromEntries(Object.entries(
      [...runs].sort((a, b) => a.consoleAnswersMs - b.consoleAnswersMs)[Math.floor(runs.length / 2)].timeline,
    ).sort((a, b) => a[1] - b[1])),
  };
  transfer ??= runs[0].sent;
}

// The initial transfer as served (in the encoding each response names), the same
// responses in gzip, and every build file gzipped offline.
const initial = {};
const encodings = {};
for (const { path, bytes, encoding } of transfer) {
  const key = path.replace(/-[0-9a-f]{16}/, '');
  initial[key] = (initial[key] ?? 0) + bytes;
  encodings[encoding] = (encodings[encoding] ?? 0) + bytes;
}
const initialBytes = transfer.reduce((n, r) => n + r.bytes, 0);
const initialGzipBytes = transfer.reduce((n, r) => n + r.gzipBytes, 0);
const initialTransfer = { bytes: initialBytes, byEncoding: encodings, sameResponsesInGzip: initialGzipBytes, byFile: initial };
let gz = 0;
let raw = 0;
const files = {};
// The engine's directory (engine-<hash>/) included.
for (const f of await readdir(DIST, { recursive: true })) {
  if (/\.(wasm|js|css|html)$/.test(f) && f !== 'embed-demo.html') {
    const bytes = await readFile(`${DIST}/${f}`);
    raw += bytes.length;
    const z = gzipSync(bytes, { level: 9 }).length;
    gz += z;
    files[f.replace(/-[0-9a-f]{16}/, '')] = z;
  }
}
console.log(`cluster drawn: ${load.desktop.clusterDrawnMs} ms unthrottled, ${load.mobile.clusterDrawnMs} ms on the phone profile`);
console.log(`time to interactive (console answers): ${load.desktop.timeToInteractiveMs} ms unthrottled, ${load.mobile.timeToInteractiveMs} ms on the phone profile`);
const served = Object.entries(encodings).map(([e, n]) => `${n} ${e}`).join(', ');
console.log(`initial transfer as served: ${initialBytes} bytes in ${transfer.length} responses (${served}); in gzip: ${initialGzipBytes} bytes`);
if (process.env.TTI_ONLY) {
  console.log(JSON.stringify({ load, initialTransfer, bundle: { rawBytes: raw, gzipBytes: gz, gzipByFile: files } }, null, 2));
  await browser.close();
  await server.close();
  process.exit(0);
}
const page = await browser.newPage({ viewport: { width: 1440, height: 1000 }, reducedMotion: process.env.REDUCED ? 'reduce' : 'no-preference' });
await page.goto(server.url);
// The form shows the engine's cluster once it has answered: edits before that are reset.
await page.getByTestId('shard').first().waitFor();

// 16 shards, 1 KiB chunks, then enough uniform documents for about a thousand chunks
// (COMPARE_ONLY=1 skips this part and measures the Compare run alone).
let playing = null;
if (!process.env.COMPARE_ONLY) playing = await (async () => {
  const SHARDS = process.env.SHARDS ?? '16';
  const DOCS = process.env.DOCS ?? '6500';
  const MIN_CHUNKS = Number(process.env.MIN_CHUNKS ?? 900);
  // The forms fold away under Setup: open it as a person would.
  await openSetup(page);
  await page.getByLabel('Number of shards').fill(SHARDS);
  await page.getByLabel('Chunk size in KiB').fill('1');
  // Another shard count is a new cluster: the form asks first.
  await page.getByRole('button', { name: 'New cluster…' }).click();
  await page.getByTestId('confirm-new-cluster').click();
  await page.getByTestId('shard').nth(Number(SHARDS) - 1).waitFor();
  const input = page.getByTestId('console-input');
  await input.fill(`sim.generate("test.events", "uniform", ${DOCS}); sim.balance()`);
  await input.press('Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="chunk"]').length > n, MIN_CHUNKS, { timeout: 120000 });
  const chunks = await page.locator('[data-testid="chunk"]').count();
  const shards = await page.locator('[data-testid="shard"]').count();

  const BATCH = Number(process.env.BATCH ?? 20);
  await page.getByLabel('Workload generator').selectOption(process.env.WORKLOAD ?? 'uniform');
  await page.getByLabel('Documents per tick').fill(String(BATCH));
  await page.getByLabel('Documents per tick').press('Tab');
  await page.getByLabel('Total documents').fill('100000');
  await page.getByLabel('Total documents').press('Tab');
  // Folded again: what is measured is the first screen as a learner sees it.
  await page.getByTestId('setup-toggle').click();
  await page.getByLabel('Speed').fill('30');
  await page.evaluate(() => {
    window.__frames = [];
    window.__long = [];
    let last = performance.now();
    const loop = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__frames.length < 100000) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__long.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
  await page.getByTestId('play').click();
  await page.waitForTimeout(8000);
  await page.getByTestId('pause').click();
  const { frames, long, done } = await page.evaluate(() => ({
    frames: window.__frames.slice(5),
    long: window.__long,
    done: Number(document.querySelector('[data-testid="progress"]').getAttribute('aria-valuenow')),
  }));
  const ticks = done / BATCH;


  return {
    shards, chunks, ticks,
    frames: frames.length,
    frameMs: frameMs(frames),
    over16: +(frames.filter((f) => f > 17.5).length / frames.length).toFixed(3),
    longTasks: long.length,
    longTaskMsP95: long.length ? +[...long].sort((a, b) => a - b)[Math.floor(0.95 * long.length)].toFixed(1) : 0,
  };
})();

// A three-column Compare run, whose columns are engine sessions in the worker: what the
// tab downloads on first use, and the main thread's frames and long tasks while it plays.
const compare = await (async () => {
  const from = server.log.length;
  await page.getByTestId('tab-compare').click();
  await page.getByTestId('compare-progress').waitFor();
  await page.getByTestId('compare-add').click();
  await page.evaluate(() => {
    window.__cframes = [];
    window.__clong = [];
    let last = performance.now();
    const loop = (t) => {
      window.__cframes.push(t - last);
      last = t;
      if (!window.__cdone) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__clong.push(e.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
  const start = Date.now();
  await page.getByTestId('compare-play').click();
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="compare-progress"]');
    return bar.dataset.done === bar.dataset.total && bar.dataset.settled === 'true';
  }, null, { timeout: 300000 });
  const runMs = Date.now() - start;
  const { cframes, clong } = await page.evaluate(() => {
    window.__cdone = true;
    return { cframes: window.__cframes.slice(5), clong: window.__clong };
  });
  const fetched = server.log.slice(from);
  return {
    columns: await page.getByTestId('compare-column').count(),
    runMs,
    downloadedOnFirstUse: fetched.reduce((n, r) => n + r.bytes, 0),
    files: fetched.map((r) => `${r.path.replace(/-[0-9a-f]{16}/, '')} ${r.bytes}`),
    frameMs: frameMs(cframes),
    longTasks: clong.length,
    longestTaskMs: clong.length ? +Math.max(...clong).toFixed(1) : 0,
  };
})();

// Replaying the largest link the page accepts: a scenario whose record is as long as a link
// may carry (src/sim/scenario.rs, MAX_DECODED_BYTES, 256 KiB of commands), opened in a
// fresh page. The engine replays it in its worker; measured are the main thread's frames
// and long tasks from navigation until the replay has ended and the console answers.
// REPLAY=0 skips it.
const replay = process.env.REPLAY === '0' ? null : await (async () => {
  const LIMIT = 256 * 1024;
  const commands = ['sim.chunkSize(1)', 'sh.shardCollection("test.events", {x: 1})'];
  let bytes = commands.join('').length;
  for (let i = 0; ; i++) {
    const c = `db.events.insertOne({x: ${(i * 7919) % 100003}, at: ${i}})`;
    // Each command's length and separator count in the record: stay a little under.
    if (bytes + c.length + 8 > LIMIT - 4096) break;
    commands.push(c);
    bytes += c.length + 8;
  }
  const scenario = JSON.stringify({ format: 'shardlab-scenario', version: 1, mongodb: '8.0', shards: 4, chunkSize: null, seed: 1, position: null, commands });
  const maker = await browser.newPage();
  await maker.goto(server.url);
  await maker.getByTestId('import-json').setInputFiles({ name: 'largest.json', mimeType: 'application/json', buffer: Buffer.from(scenario) });
  await maker.getByTestId('position').filter({ hasText: `of ${commands.length}` }).waitFor({ timeout: 300000 });
  await maker.getByTestId('share-link').click();
  const link = await maker.getByTestId('share-url').inputValue();
  await maker.close();
  const viewer = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await viewer.addInitScript(() => {
    window.__rframes = [];
    window.__rlong = [];
    let last = performance.now();
    const loop = (t) => {
      window.__rframes.push(t - last);
      last = t;
      if (!window.__rdone) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__rlong.push([Math.round(e.startTime), Math.round(e.duration)]);
    }).observe({ type: 'longtask', buffered: true });
  });
  const start = Date.now();
  await viewer.goto(link);
  await viewer.getByTestId('position').filter({ hasText: `step ${commands.length} of ${commands.length}` }).waitFor({ timeout: 300000 });
  const replayedAt = await viewer.evaluate(() => Math.round(performance.now()));
  const input = viewer.getByTestId('console-input');
  await input.fill('db.events.countDocuments()');
  await input.press('Enter');
  await viewer.locator('[data-testid="console-output"] .line').filter({ hasText: String(commands.length - 2) }).first().waitFor({ timeout: 60000 });
  const replayMs = Date.now() - start;
  const { rframes, rlong } = await viewer.evaluate(() => {
    window.__rdone = true;
    return { rframes: window.__rframes.slice(5), rlong: window.__rlong };
  });
  await viewer.close();
  return {
    linkChars: link.length,
    commands: commands.length,
    recordBytes: bytes,
    openToAnswerMs: replayMs,
    replayEndedAtMs: replayedAt,
    frameMs: frameMs(rframes),
    longTasks: rlong.length,
    longestTaskMs: rlong.length ? Math.max(...rlong.map(([, d]) => d)) : 0,
    // [start, duration] in ms since navigation.
    longTaskTimes: rlong,
  };
})();

// The wasm memories: the page's and the engine worker's linear memory, after a session of
// 16 shards and about a thousand chunks (the playing figures' scenario, typed into the
// console) and a three-column Compare run. A memory is only reachable from the module
// that made it, so this pass serves the engine's worker script with a few lines in front
// that keep the memory its module exports, and wraps the page's instantiation the same
// way; its own server, so the figures above are of the build as it is. MEMORY=0 skips it.
/**
 * A page in a browser of its own (so that its one renderer process holds this page alone),
 * served by a server of its own whose engine worker script, and the page itself, keep the
 * wasm memories their modules export in `self.__wasmMemories`.
 */
async function keptPage() {
  const engineDir = (await readdir(DIST)).find((f) => /^engine-[0-9a-f]{16}$/.test(f));
  const keep = `{const k=(r)=>{const x=r.instance??r;self.__wasmMemories=[...(self.__wasmMemories??[]),x.exports.memory];return r};` +
    `const a=WebAssembly.instantiateStreaming,b=WebAssembly.instantiate;` +
    `WebAssembly.instantiateStreaming=(...v)=>a(...v).then(k);WebAssembly.instantiate=(...v)=>b(...v).then(k);}`;
  const worker = await readFile(`${DIST}/${engineDir}/worker.js`, 'utf8');
  const kept = await serveCompressed(DIST, { [`/${engineDir}/worker.js`]: { body: `${keep}\n${worker}`, type: 'text/javascript' } });
  const alone = await launch();
  const p = await alone.newPage({ viewport: { width: 1440, height: 1000 } });
  await p.addInitScript({ content: keep });
  return { engineDir, kept, alone, p };
}

const memory = process.env.MEMORY === '0' ? null : await (async () => {
  const { engineDir, kept, alone, p } = await keptPage();
  await p.goto(kept.url);
  await p.getByTestId('shard').first().waitFor();
  const ask = async (command, answer) => {
    const input = p.getByTestId('console-input');
    await input.fill(command);
    await input.press('Enter');
    await p.locator('[data-testid="console-output"] .line').filter({ hasText: answer }).first().waitFor({ timeout: 120000 });
  };
  await ask('sim.reset({shards: 16, chunkSize: 1})', 'ok');
  await ask('sim.generate("test.events", "uniform", 6500); sim.balance(); db.events.countDocuments()', '6500');
  await p.getByTestId('tab-compare').click();
  await p.getByTestId('compare-progress').waitFor();
  await p.getByTestId('compare-add').click();
  await p.getByTestId('compare-play').click();
  await p.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="compare-progress"]');
    return bar.dataset.done === bar.dataset.total && bar.dataset.settled === 'true';
  }, null, { timeout: 300000 });
  // A part of a split module imports its memory rather than exporting one: no memory.
  const sizes = () => (self.__wasmMemories ?? []).filter((m) => m?.buffer).map((m) => m.buffer.byteLength);
  const pageMemories = await p.evaluate(sizes);
  const engine = p.workers().find((w) => w.url().includes(`${engineDir}/worker.js`));
  const engineMemories = engine ? await engine.evaluate(sizes) : null;
  const jsHeap = await p.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
  // What the system gives the renderer process that holds the page and its worker: its
  // anonymous resident memory (heaps, JS and wasm, without the mapped program files),
  // which counts a wasm memory's pages only once they are touched.
  const system = await alone.newBrowserCDPSession();
  const { processInfo } = await system.send('SystemInfo.getProcessInfo');
  const renderers = [];
  for (const { type, id } of processInfo) {
    if (type !== 'renderer') continue;
    const status = await readFile(`/proc/${id}/status`, 'utf8').catch(() => '');
    renderers.push(Number(status.match(/RssAnon:\s+(\d+) kB/)?.[1] ?? 0) * 1024);
  }
  await alone.close();
  await kept.close();
  // The engine's memory includes the 256 MiB of address space it reserves at start
  // (web/engine/src/worker.rs, HEAP_HEADROOM), untouched until the heap needs it.
  return { pageWasmBytes: pageMemories, engineWasmBytes: engineMemories, pageJsHeapBytes: jsHeap, rendererAnonymousRssBytes: renderers };
})();

// Importing 100,000 documents (mongoexport's JSON lines, about 14 MB; one import holds
// 32 MiB of statements) through the page's Import documents dialog: the main thread's long
// tasks and frames from the click on Import until the summary, how often the progress bar
// moved (while the file is read, then while its documents go in), and the page's and the
// engine worker's memory after it (the wasm memories, kept as the memory pass keeps
// them). IMPORT=0 skips it; IMPORT_DOCS sets the count.
const importing = process.env.IMPORT === '0' ? null : await (async () => {
  const DOCS = Number(process.env.IMPORT_DOCS ?? 100000);
  const lines = [];
  for (let i = 0; i < DOCS; i++) {
    lines.push(JSON.stringify({ _id: { $oid: (0x5f000000 + i).toString(16).padStart(24, '0') }, user: `user${i % 5000}`, tenant: `t${i % 40}`, ts: { $date: new Date(1_700_000_000_000 + i * 1000).toISOString() }, n: i }));
  }
  const file = Buffer.from(lines.join('\n'));
  const { engineDir, kept, alone, p } = await keptPage();
  await p.addInitScript(() => {
    window.__ilong = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__ilong.push([Math.round(e.startTime), Math.round(e.duration)]);
    }).observe({ type: 'longtask', buffered: true });
  });
  await p.goto(kept.url);
  await p.getByTestId('shard').first().waitFor();
  await p.getByTestId('import-documents').setInputFiles({ name: 'sample.json', mimeType: 'application/json', buffer: file });
  await p.getByTestId('import-format').waitFor({ timeout: 120000 });
  await p.evaluate(() => {
    window.__iframes = [];
    window.__imoves = [];
    window.__istart = performance.now();
    let last = performance.now();
    let seen = null;
    const loop = (t) => {
      window.__iframes.push(t - last);
      last = t;
      const bar = document.querySelector('[data-testid="import-progress"]');
      const value = bar ? bar.value : null;
      if (value !== null && value !== seen) { window.__imoves.push(Math.round(t)); seen = value; }
      if (!window.__idone) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  await p.getByTestId('import-start').click();
  await p.getByTestId('notice').filter({ hasText: `${DOCS} documents imported` }).waitFor({ timeout: 600000 });
  const end = await p.evaluate(() => performance.now());
  // The long tasks are counted until the page is idle after the summary, so that the
  // redraw of the imported collection that follows it is counted too.
  await p.evaluate(() => new Promise((r) => requestIdleCallback(() => r(), { timeout: 10000 })));
  const r = await p.evaluate((end) => {
    window.__idone = true;
    const moves = window.__imoves;
    const gaps = moves.slice(1).map((t, i) => t - moves[i]);
    return {
      ms: Math.round(end - window.__istart),
      frames: window.__iframes.slice(2),
      progressUpdates: moves.length,
      longestGapBetweenUpdatesMs: gaps.length ? Math.max(...gaps) : null,
      firstUpdateAfterMs: moves.length ? Math.round(moves[0] - window.__istart) : null,
      long: window.__ilong.filter(([t]) => t >= window.__istart),
    };
  }, end);
  // A part of a split module imports its memory rather than exporting one: no memory.
  const sizes = () => (self.__wasmMemories ?? []).filter((m) => m?.buffer).map((m) => m.buffer.byteLength);
  const pageMemories = await p.evaluate(sizes);
  const engine = p.workers().find((w) => w.url().includes(`${engineDir}/worker.js`));
  const engineMemories = engine ? await engine.evaluate(sizes) : null;
  const jsHeap = await p.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
  await alone.close();
  await kept.close();
  return {
    documents: DOCS,
    fileBytes: file.length,
    clickToSummaryMs: r.ms,
    progressUpdates: r.progressUpdates,
    firstUpdateAfterMs: r.firstUpdateAfterMs,
    longestGapBetweenUpdatesMs: r.longestGapBetweenUpdatesMs,
    frameMs: frameMs(r.frames),
    longTasks: r.long.length,
    longestTaskMs: r.long.length ? Math.max(...r.long.map(([, d]) => d)) : 0,
    pageWasmBytes: pageMemories,
    engineWasmBytes: engineMemories,
    pageJsHeapBytes: jsHeap,
  };
})();

// The page's JS heap (Chromium's performance.memory) after all of the above; the engine's
// memory is its worker's, not counted here.
const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
console.log(JSON.stringify({
  pageJsHeapBytes: heap,
  load,
  initialTransfer,
  bundle: { rawBytes: raw, gzipBytes: gz, gzipByFile: files },
  playing,
  compare,
  replay,
  memory,
  importing,
}, null, 2));
await browser.close();
await server.close();
