// Measures the <shard-lab> element on the release build (dist/): a page with three
// elements, loaded on the phone profile of scripts/measure-ui.mjs (1.6 Mbps, 150 ms, 4×
// CPU) and unthrottled. Prints, in page time from navigation: when all three posters are
// drawn, when all three are live (`shardlab-ready`), and the bytes the server sent until
// then (brotli where the build has it, as a static host serving the precompressed files
// sends them, and the same responses in gzip; ENCODING=gzip for gzip only). Figures are
// printed, never asserted on. Usage: node scripts/measure-element.mjs
import { normalize } from 'node:path';
import { launch } from '../tests/e2e/harness.mjs';
import { serveCompressed } from './serve-compressed.mjs';

const DIST = normalize(process.env.SHARDLAB_DIST ?? 'dist');
const SCRIPTS = [
  'sh.shardCollection("test.a", {x: 1})\nsim.generate("test.a", "monotonic", 2000)',
  'sh.shardCollection("test.b", {x: "hashed"})\nsim.generate("test.b", "monotonic", 2000)',
  'sh.shardCollection("test.c", {x: 1})\ndb.c.insertOne({x: 1})\ndb.c.find()',
];
const PAGE = `<!doctype html><meta charset="utf-8"><title>Three elements</title>
<script type="module" src="./shard-lab.js"></script>
${SCRIPTS.map((s, i) => `<shard-lab id="e${i}" loading="eager" version="5.0" chunk-size="65536"><pre>${s}</pre></shard-lab>`).join('\n')}`;

function watch() {
  const t = (window.__t = { ready: 0 });
  document.addEventListener('shardlab-ready', () => {
    t.ready += 1;
    if (t.ready === 3) t.live = performance.now();
  });
  const poll = () => {
    const els = [...document.querySelectorAll('shard-lab')];
    if (els.length === 3 && els.every((e) => e.shadowRoot?.querySelector('.poster, .cluster'))) t.poster = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

const PROFILES = {
  desktop: {},
  phone: { network: { offline: false, latency: 150, downloadThroughput: 200_000, uploadThroughput: 93_750 }, cpu: 4 },
};

const server = await serveCompressed(DIST, { '/three.html': { body: PAGE, type: 'text/html; charset=utf-8' } });
const browser = await launch();
for (const [name, { network, cpu }] of Object.entries(PROFILES)) {
  const context = await browser.newContext({ viewport: { width: 400, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (network) await cdp.send('Network.emulateNetworkConditions', network);
  if (cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpu });
  await page.addInitScript(watch);
  server.log.length = 0;
  await page.goto(`${server.url}three.html`, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__t.live !== undefined, null, { timeout: 180_000 });
  const t = await page.evaluate(() => window.__t);
  const bytes = server.log.reduce((n, r) => n + r.bytes, 0);
  const gzip = server.log.reduce((n, r) => n + r.gzipBytes, 0);
  console.log(`${name}: posters ${Math.round(t.poster)} ms, live ${Math.round(t.live)} ms, ${bytes} bytes as served in ${server.log.length} responses (${gzip} in gzip)`);
  for (const r of server.log) console.log(`  ${r.path} ${r.bytes} ${r.encoding}`);
  await context.close();
}
await browser.close();
await server.close();
