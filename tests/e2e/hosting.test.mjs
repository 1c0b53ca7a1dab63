// Hosting anywhere: the built site copied under a sub-path, and the JavaScript module
// loaded by a page of another origin. A small host serves dist/ only under /docs/shardlab/
// (everything else is 404, so an asset asked for at `/` fails the test), with the CORS
// header a host of modules sends; a second host, on another port, serves a page that
// imports the module from the first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, typeCommand, readChunks } from './harness.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };
const PREFIX = '/docs/shardlab/';
const root = normalize(process.env.SHARDLAB_DIST ?? 'dist');

/** A host on a free port; `route(path)` returns `{type, body}` or null for a 404. */
async function host(route) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    const found = await route(path).catch(() => null);
    if (!found) return res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': found.type, 'access-control-allow-origin': '*' });
    res.end(found.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

/** dist/ under PREFIX only. */
async function underPrefix(path) {
  if (!path.startsWith(PREFIX)) return null;
  const rest = path.slice(PREFIX.length);
  const file = normalize(join(root, rest === '' || rest.endsWith('/') ? `${rest}index.html` : rest));
  if (!file.startsWith(root)) return null;
  return { type: TYPES[extname(file)] ?? 'application/octet-stream', body: await readFile(file) };
}

const env = {};
before(async () => {
  env.site = await host(underPrefix);
  env.browser = await launch();
});
after(async () => {
  await env.browser?.close();
  await env.site?.close();
});

test('the built site works copied under a sub-path', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const failed = [];
  const errors = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.site.url}${PREFIX}`);
  await page.getByTestId('summary').waitFor();
  await typeCommand(page, 'sh.shardCollection("test.sub", {x: 1})');
  await typeCommand(page, 'db.sub.insertOne({x: 1})');
  await page.getByTestId('console-output').filter({ hasText: 'insertedId' }).waitFor();
  assert.ok((await readChunks(page)).length >= 1, 'the cluster is drawn');
  assert.deepEqual(failed, [], 'every asset is found under the sub-path');
  assert.deepEqual(errors, []);
  assert.ok(env.site.requests.every((p) => p.startsWith(PREFIX)), env.site.requests.join('\n'));
  await page.close();
});

/** Runs a script through the module imported from `moduleUrl` in `page`. */
function runInPage(page, moduleUrl, script) {
  return page.evaluate(async ({ moduleUrl, script }) => {
    const { ShardLab } = await import(moduleUrl);
    const s = await ShardLab.session({ shards: 2, seed: 1 });
    const entries = await s.run(script);
    const picture = await s.cluster('test.t');
    s.dispose();
    return { entries, shards: picture.shards.map((sh) => sh.name) };
  }, { moduleUrl, script });
}

test('the module runs from a page of another origin, in one worker for every session', async () => {
  const other = await host(async (path) => (path === '/page.html'
    ? { type: 'text/html; charset=utf-8', body: '<!doctype html><title>A docs page</title><p>docs</p>' }
    : null));
  try {
    const seen = env.site.requests.length;
    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`${other.url}/page.html`);
    const moduleUrl = `${env.site.url}${PREFIX}shardlab.js`;
    const script = 'sh.shardCollection("test.t", {x: 1})\ndb.t.insertOne({x: 5})\nnope()';
    const [a, b] = await Promise.all([runInPage(page, moduleUrl, script), runInPage(page, moduleUrl, 'db.t.countDocuments()')]);
    assert.deepEqual(a.entries.map((e) => e.ok), [true, true, false]);
    assert.equal(a.entries[1].printed, `{\n  acknowledged: true,\n  insertedId: ObjectId('${a.entries[1].value.insertedId.$oid}')\n}\n`);
    assert.equal(a.entries[2].error.codeName, 'ReferenceError');
    assert.deepEqual(a.shards, ['shard01', 'shard02']);
    assert.equal(b.entries[0].value, 0, 'two sessions do not share a cluster');
    assert.equal(workers.length, 1, `one engine worker: ${workers.join(', ')}`);
    // One engine download: its first part and the part after the first answer, each once.
    const wasm = env.site.requests.slice(seen).filter((p) => p.endsWith('.wasm'));
    assert.equal(wasm.filter((p) => p.endsWith('/engine_bg.wasm')).length, 1, `one engine download: ${wasm.join(', ')}`);
    assert.equal(new Set(wasm).size, wasm.length, `a part downloaded twice: ${wasm.join(', ')}`);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await other.close();
  }
});

test('an element whose engine cannot be fetched says why, and the page goes on', async () => {
  // The same site, but the engine's files are missing.
  const broken = await host(async (path) => (path.includes('/engine-') ? null : underPrefix(path)));
  try {
    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${broken.url}${PREFIX}examples.html`);
    const block = page.locator('#run-block');
    await block.getByRole('button', { name: 'Run' }).click();
    await block.getByRole('alert').waitFor();
    assert.match(await block.getByRole('alert').innerText(), /ShardLab could not start: the engine/);
    // The page's own buttons still work.
    await page.getByRole('button', { name: 'Dark mode' }).click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await broken.close();
  }
});

test('the element works on a page of another origin that loads it from the site', async () => {
  const other = await host(async (path) => (path === '/page.html'
    ? {
      type: 'text/html; charset=utf-8',
      body: `<!doctype html><title>A docs page</title>
<script type="module" src="${env.site.url}${PREFIX}shard-lab.js"></script>
<p>A figure:</p>
<shard-lab id="fig" loading="eager" views="cluster,console" label="From another origin"><pre>
sh.shardCollection("test.t", {x: 1})
db.t.insertOne({x: 7})
</pre></shard-lab>`,
    }
    : null));
  try {
    const page = await env.browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${other.url}/page.html`);
    // Its script's two steps, then the chunk they made.
    await page.waitForFunction(() => /step 0 of 2/.test(document.querySelector('#fig')?.shadowRoot?.textContent ?? ''));
    await page.locator('#fig').evaluate((el) => el.goto(2));
    await page.waitForFunction(() => document.querySelector('#fig').shadowRoot.querySelectorAll('.chunk').length > 0);
    const count = await page.locator('#fig').evaluate((el) => el.run('db.t.countDocuments()'));
    assert.equal(count[0].value, 1);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await other.close();
  }
});
