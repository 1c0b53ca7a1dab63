// The npm package as a documentation author uses it: `make package`'s tarball installed
// with `npm install` into an empty directory, its files served from a sub-path of a site,
// and pages shaped as a plain page and as Docusaurus, VitePress, MkDocs and Hugo render a
// ```mongosh fence (tests/hosts/). Then the element as a host page's script and a reader's
// keyboard use it, and under three Content Security Policies: a strict one, one that
// forbids workers and one that forbids WebAssembly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { launch, screenshot } from './harness.mjs';

const root = resolve(import.meta.dirname, '..', '..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const STRICT = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'";
const NO_WORKERS = STRICT.replace("worker-src 'self'", "worker-src 'none'");
const NO_WASM = STRICT.replace(" 'wasm-unsafe-eval'", '');

let pkg;
let browser;
let server;
let base;
/** The policy every response carries, by the first segment of its path (`/strict/...`). */
const POLICIES = { strict: STRICT, 'no-workers': NO_WORKERS, 'no-wasm': NO_WASM, site: null };

before(async () => {
  // Made in a directory of its own, so that two runs of the suite do not share it.
  const out = mkdtempSync(join(tmpdir(), 'shardlab-package-'));
  const made = spawnSync('node', ['scripts/package.mjs'], { cwd: root, encoding: 'utf8', env: { ...process.env, SHARDLAB_PACKAGE_OUT: out } });
  assert.equal(made.status, 0, `make package: ${made.stderr}`);
  const tgz = readdirSync(out).find((f) => /^shardlab-.*\.tgz$/.test(f));
  assert.ok(tgz, 'the package tarball was written');
  // Installed as a docs author installs it: into an empty project, from the tarball alone.
  const project = mkdtempSync(join(tmpdir(), 'shardlab-docs-'));
  writeFileSync(join(project, 'package.json'), '{"name": "docs", "private": true}\n');
  const installed = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(out, tgz)], { cwd: project, encoding: 'utf8' });
  assert.equal(installed.status, 0, `npm install: ${installed.stderr}`);
  pkg = join(project, 'node_modules', 'shardlab');
  // /<policy>/assets/shardlab/* is the package; /<policy>/<page>/ a host page.
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [, policy, ...rest] = path.split('/');
    let file = null;
    if (rest[0] === 'assets' && rest[1] === 'shardlab') file = normalize(join(pkg, ...rest.slice(2)));
    else if (rest[0] === 'scripts' && /^[a-z]+\.js$/.test(rest[1] ?? '')) file = join(root, 'tests', 'hosts', rest[1]);
    else if (rest.length >= 1 && /^[a-z]+$/.test(rest[0])) file = join(root, 'tests', 'hosts', `${rest[0]}.html`);
    if (!(policy in POLICIES) || !file || !(file.startsWith(pkg) || file.startsWith(join(root, 'tests', 'hosts')))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      const headers = { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' };
      if (POLICIES[policy]) headers['content-security-policy'] = POLICIES[policy];
      res.writeHead(200, headers).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

/** Opens a host page, recording the element's events, page errors and CSP violations. */
async function open(path, { width = 1200 } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const errors = [];
  const warnings = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  await page.addInitScript(() => {
    window.__events = [];
    window.__violations = [];
    for (const type of ['shardlab-ready', 'shardlab-step', 'shardlab-split', 'shardlab-error', 'shardlab-play', 'shardlab-pause', 'shardlab-end']) {
      document.addEventListener(type, (e) => window.__events.push({ type, id: e.target.id, detail: e.detail }));
    }
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(`${base}${path}`);
  return { page, errors, warnings };
}

const ready = (page) => page.waitForFunction(() => window.__events.some((e) => e.type === 'shardlab-ready'));

test('the package: exports, types and files are right, and its version is the workspace\'s', async () => {
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8').match(/^version = "([^"]+)"/m)[1];
  assert.equal(manifest.version, cargo);
  for (const target of [manifest.types, manifest.exports['.'].default, manifest.exports['./element'].types, manifest.exports['./element'].default,
    manifest.exports['./jsx'].types, manifest.exports['./vue'].types, manifest.customElements]) {
    assert.ok(readFileSync(join(pkg, target)).length > 0, `${target} is in the package`);
  }
  const engine = manifest.shardlab.engine;
  for (const f of ['engine.js', 'engine_bg.wasm', 'worker.js']) assert.ok(readFileSync(join(pkg, engine, f)).length > 0, `${engine}/${f}`);
  // The manifest lists every attribute the element observes, with its default.
  const { ATTRIBUTES } = await import(pathToFileURL(join(pkg, 'shard-lab.js')).href);
  const described = JSON.parse(readFileSync(join(pkg, 'custom-elements.json'), 'utf8')).modules[0].declarations[0];
  assert.equal(described.tagName, 'shard-lab');
  assert.deepEqual(described.attributes.map((a) => a.name), ATTRIBUTES.map((a) => a.name));
  // The module says its version, and the engine's catalogue is what every view reads.
  const { page } = await open('/site/plain/');
  const seen = await page.evaluate(async () => {
    const { ShardLab } = await import('../assets/shardlab/shardlab.js');
    const catalog = await ShardLab.catalog();
    return { version: ShardLab.version, limits: catalog.limits, palette: catalog.palette.length, versions: catalog.versions.map((v) => v.label), defaults: catalog.defaults };
  });
  assert.equal(seen.version, cargo);
  // Every version mode the core has, oldest first (web/engine/tests/one_source.rs holds the
  // protocol's list to the core's), and the element documents the catalogue's defaults.
  assert.deepEqual(seen.versions, ['3.6', '5.0', '7.0', '8.0']);
  assert.equal(seen.palette, seen.limits.maxShards, 'a colour for every shard a cluster may have');
  const attribute = (name) => ATTRIBUTES.find((a) => a.name === name).default;
  assert.equal(seen.defaults.version, attribute('version'));
  assert.equal(seen.defaults.shards, attribute('shards'));
  assert.equal(seen.defaults.seed, attribute('seed'));
  assert.ok(seen.versions.includes(seen.defaults.version));
  await page.close();
});

test('a plain page: one script tag and one element, served from a sub-path, step through its script', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const el = page.locator('#figure');
  await el.getByText('step 0 of 3').waitFor();
  for (let i = 1; i <= 3; i++) {
    await el.getByRole('button', { name: 'Step' }).click();
    await el.getByText(`step ${i} of 3`).waitFor();
  }
  assert.ok(await el.locator('.chunk').count() > 1, 'the ranged key split its chunks');
  const state = await el.evaluate((node) => node.getState());
  assert.equal(state.engine, 'worker');
  assert.deepEqual(state.errors, []);
  console.log(`screenshot: ${await screenshot(page, 'package-plain')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [host, width] of [['docusaurus', 1440], ['vitepress', 1440], ['mkdocs', 400], ['hugo', 400]]) {
  test(`${host}: a fenced mongosh block becomes a working element in the page's dark mode`, async () => {
    const { page, errors } = await open(`/site/${host}/`, { width });
    await page.locator('shard-lab').waitFor({ state: 'attached' });
    assert.equal(await page.locator('pre.language-mongosh, code.language-mongosh').count(), 0, 'the block was replaced');
    await ready(page);
    const el = page.locator('shard-lab');
    await el.getByText('step 0 of 2').waitFor();
    assert.equal(await el.evaluate((node) => node.shadowRoot.querySelector('.frame').dataset.theme), 'dark');
    await el.getByRole('button', { name: 'Play' }).click();
    await el.getByText('step 2 of 2').waitFor();
    await page.waitForFunction(() => window.__events.some((e) => e.type === 'shardlab-end'));
    // The script is the block's code, line for line.
    const state = await el.evaluate((node) => node.getState());
    assert.equal(state.ns, 'test.events');
    assert.equal(state.docs, 3000);
    // MkDocs' and Hugo's fences pass attributes on (5.0, a 64 KB chunk): the chunk split.
    if (host === 'mkdocs' || host === 'hugo') assert.ok(state.chunks > 1, `${host}: ${state.chunks} chunks`);
    else assert.equal(state.chunks, 1, '8.0 by default: no auto-split');
    console.log(`screenshot: ${await screenshot(page, `package-${host}-${width}`)}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('CSP: under a strict policy the element works with no violation and no inline style', async () => {
  const { page, errors } = await open('/strict/plain/');
  await ready(page);
  const el = page.locator('#figure');
  await el.getByRole('button', { name: 'Step' }).click();
  await el.getByText('step 1 of 3').waitFor();
  assert.equal((await el.evaluate((node) => node.getState())).engine, 'worker');
  assert.deepEqual(await page.evaluate(() => window.__violations.filter((v) => !v.includes('favicon'))), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('CSP: where workers are forbidden the engine runs in the page, and says so', async () => {
  const { page, errors, warnings } = await open('/no-workers/plain/');
  await ready(page);
  const el = page.locator('#figure');
  await el.getByRole('button', { name: 'Step' }).click();
  await el.getByText('step 1 of 3').waitFor();
  assert.equal((await el.evaluate((node) => node.getState())).engine, 'page');
  assert.ok(warnings.some((w) => /runs in the page/.test(w)), warnings.join('\n'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('CSP: where WebAssembly is forbidden the element names the directive it needs', async () => {
  const { page } = await open('/no-wasm/plain/');
  const el = page.locator('#figure');
  await el.getByRole('alert').waitFor();
  assert.match(await el.getByRole('alert').innerText(), /wasm-unsafe-eval/);
  await page.waitForFunction(() => window.__events.some((e) => e.type === 'shardlab-error' && e.detail.source === 'load'));
  const failed = await el.evaluate((node) => node.ready.then(() => 'resolved', (e) => `${e.codeName}: ${e.message}`));
  assert.match(failed, /wasm-unsafe-eval/);
  await page.close();
});

test('the keyboard: Tab to Step, Enter again and again, type in the console: focus never moves', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const el = page.locator('#figure');
  await el.getByText('step 0 of 3').waitFor();
  const focused = () => page.evaluate(() => {
    const inner = document.activeElement?.shadowRoot?.activeElement;
    return inner ? (inner.dataset.action ?? inner.getAttribute('part')) : document.activeElement?.tagName;
  });
  await page.keyboard.press('Tab');
  for (let i = 0; i < 6 && (await focused()) !== 'step'; i++) await page.keyboard.press('Tab');
  assert.equal(await focused(), 'step', 'Tab reaches Step');
  for (let i = 1; i <= 3; i++) {
    await page.keyboard.press('Enter');
    await el.getByText(`step ${i} of 3`).waitFor();
    assert.equal(await focused(), 'step', `focus stays on Step after Enter ${i}`);
  }
  // At the end Step can do nothing, and still holds the focus.
  assert.equal(await el.getByRole('button', { name: 'Step' }).getAttribute('aria-disabled'), 'true');
  await page.keyboard.press('Enter');
  assert.equal(await focused(), 'step');
  // The console's input keeps the focus through a command and its answer.
  await el.getByRole('textbox', { name: 'mongosh command' }).click();
  await page.keyboard.type('db.events.countDocuments()');
  await page.keyboard.press('Enter');
  await el.getByText('step 4 of 4').waitFor();
  await el.locator('.console').getByText('6000').waitFor();
  assert.equal(await focused(), 'input');
  await page.keyboard.type('sh.status()');
  assert.equal(await el.getByRole('textbox').inputValue(), 'sh.status()');
  // Playing: Pause is the same button throughout, and keeps the focus.
  await el.evaluate((node) => node.goto(0));
  await el.getByText('step 0 of 4').waitFor();
  await el.getByRole('button', { name: 'Play' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__events.some((e) => e.type === 'shardlab-play'));
  await el.getByText('step 2 of 4').waitFor();
  assert.equal(await focused(), 'play');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.__events.some((e) => e.type === 'shardlab-pause'));
  assert.equal(await focused(), 'play');
  assert.deepEqual(errors, []);
  await page.close();
});

test('every attribute is a property; typos are reported late enough to hear, and once', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const seen = await page.evaluate(async () => {
    const el = document.createElement('shard-lab');
    el.id = 'typo';
    el.views = 'clusters';
    el.shards = 4;
    el.readOnly = true;
    el.chunkSize = 1024;
    const reflected = [el.getAttribute('views'), el.getAttribute('shards'), el.hasAttribute('readonly'), el.getAttribute('chunk-size'), el.shards, el.start, el.loading];
    document.body.append(el);
    // A page's own script that listens after the element is upgraded still hears it.
    const heard = [];
    el.addEventListener('shardlab-error', (e) => heard.push(e.detail));
    // A careless loop: thousands of attribute changes coalesce into one redraw.
    for (let i = 0; i < 5000; i++) el.setAttribute('label', `label ${i}`);
    await el.load();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const state = await el.getState();
    return { reflected, heard, errors: state.errors, label: el.shadowRoot.querySelector('[part=label]').textContent, shards: state.shards.length };
  });
  assert.deepEqual(seen.reflected, ['clusters', '4', true, '1024', 4, 'begin', 'lazy']);
  assert.equal(seen.label, 'label 4999');
  assert.equal(seen.shards, 4);
  const typos = seen.heard.filter((d) => d.source === 'attribute');
  assert.equal(typos.length, 1, JSON.stringify(seen.heard));
  assert.match(typos[0].message, /views lists .* not clusters/);
  assert.equal(typos[0].codeName, 'BadValue');
  assert.equal(typos[0].code, 2);
  assert.deepEqual(seen.errors.map((e) => e.message), typos.map((e) => e.message));
  assert.deepEqual(errors, []);
  await page.close();
});

test('methods reject with the engine\'s error in every state; run appends after the last step', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const seen = await page.evaluate(async () => {
    const shape = (p) => p.then(() => 'resolved', (e) => `${e.code} ${e.codeName}`);
    const el = document.createElement('shard-lab');
    el.textContent = 'db.t.insertOne({x: 1})\ndb.t.insertOne({x: 2})';
    const detached = await Promise.all([shape(el.run('1')), shape(el.step(1)), shape(el.goto(0)), shape(el.play())]);
    document.body.append(el);
    const bad = await Promise.all([shape(el.step('two')), shape(el.goto(-1)), shape(el.run(42)), shape(el.step(Number.NaN))]);
    await el.load();
    // The element opens before its script (start="begin"): run() keeps the script's steps.
    const before = await el.getState();
    const entries = await el.run('db.t.countDocuments()');
    const after = await el.getState();
    // Taken out and put back in the same task (a move): the same session.
    el.remove();
    const removed = await shape(el.step(1));
    document.body.append(el);
    const moved = await el.getState();
    // Taken out for good, then back: a new session of its script.
    el.remove();
    await new Promise((r) => setTimeout(r, 50));
    const gone = await el.getState();
    document.body.append(el);
    await el.load();
    const back = await el.getState();
    return {
      detached, bad, before: [before.step, before.steps], entries: entries.map((e) => e.printed), after: [after.step, after.steps],
      removed, moved: [moved.state, moved.steps], gone: gone.state, back: [back.state, back.step, back.steps],
    };
  });
  assert.deepEqual(seen.detached, Array(4).fill('20 IllegalOperation'));
  assert.deepEqual(seen.bad, Array(4).fill('2 BadValue'));
  assert.deepEqual(seen.before, [0, 2]);
  assert.deepEqual(seen.entries, ['2\n']);
  assert.deepEqual(seen.after, [3, 3]);
  assert.equal(seen.removed, '20 IllegalOperation');
  assert.deepEqual(seen.moved, ['ready', 3]);
  assert.equal(seen.gone, 'idle');
  assert.deepEqual(seen.back, ['ready', 0, 2]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a hostile page: elements moved and removed while loading leak no session; a huge script is refused with a poster drawn', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const seen = await page.evaluate(async () => {
    // More elements than the engine holds sessions, each removed or moved while it loads.
    const { ShardLab } = await import('../assets/shardlab/shardlab.js');
    const { limits } = await ShardLab.catalog();
    const holder = document.createElement('div');
    document.body.append(holder);
    for (let i = 0; i < limits.maxSessions + 10; i++) {
      const el = document.createElement('shard-lab');
      el.loading = 'eager';
      el.textContent = 'db.t.insertOne({x: 1})';
      holder.append(el);
      const other = document.createElement('section');
      document.body.append(other);
      other.append(el);
      await el.ready;
      el.remove();
      other.remove();
      // One removed for good while it loads: its session, opened later, is closed.
      const gone = document.createElement('shard-lab');
      gone.loading = 'eager';
      holder.append(gone);
      const refused = gone.ready.then(() => 'ready', (e) => e.codeName);
      gone.remove();
      if ((await refused) !== 'IllegalOperation') throw new Error('ready of a removed element');
      await new Promise((r) => setTimeout(r, 0));
    }
    const last = document.createElement('shard-lab');
    last.loading = 'eager';
    last.textContent = 'db.t.insertOne({x: 1})';
    document.body.append(last);
    await last.ready;
    const fine = await last.getState();
    // A multi-megabyte inline script: the poster draws its start, then the element says why it stops.
    const huge = document.createElement('shard-lab');
    huge.id = 'huge';
    huge.loading = 'click';
    huge.textContent = 'db.t.insertOne({x: 1})\n'.repeat(200000);
    document.body.append(huge);
    const poster = huge.shadowRoot.querySelector('[part=poster] pre').textContent.length;
    const failed = await huge.load().then(() => 'loaded', (e) => `${e.codeName}: ${e.message}`);
    return { fine: fine.state, poster, failed };
  });
  assert.equal(seen.fine, 'ready');
  assert.ok(seen.poster > 0 && seen.poster <= 4000, `poster of ${seen.poster} characters`);
  assert.match(seen.failed, /BadValue: the script is 4600000 characters, over the limit of 1048576/);
  await page.locator('#huge').getByRole('alert').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a preset brings its lesson\'s workload as the script; start="end" opens after it; events are plain JSON', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const seen = await page.evaluate(async () => {
    const { ShardLab } = await import('../assets/shardlab/shardlab.js');
    const lesson = (await ShardLab.catalog()).lessons.find((l) => l.id === 'monotonic');
    const el = document.createElement('shard-lab');
    el.id = 'lesson';
    el.preset = 'monotonic';
    el.loading = 'eager';
    document.body.append(el);
    await el.ready;
    const first = await el.getState();
    const splits = [];
    el.addEventListener('shardlab-split', (e) => splits.push(e.detail));
    await el.goto(first.steps);
    const end = document.createElement('shard-lab');
    end.preset = 'monotonic';
    end.start = 'end';
    end.loading = 'eager';
    document.body.append(end);
    await end.ready;
    const atEnd = await end.getState();
    return { steps: lesson.steps.length, first: [first.step, first.steps], atEnd: [atEnd.step, atEnd.steps], split: splits[0] };
  });
  assert.ok(seen.steps > 1);
  // Each line of the lesson's workload is a step or two (a batch, then its balancer round).
  assert.equal(seen.first[0], 0);
  assert.ok(seen.first[1] >= seen.steps, JSON.stringify(seen));
  assert.deepEqual(seen.atEnd, [seen.first[1], seen.first[1]]);
  assert.ok(seen.split, 'the lesson\'s workload splits a chunk');
  // No engine-internal tags: each message argument is a string or a message of its own.
  const walk = (m) => Object.values(m.args).every((v) => typeof v === 'string' || (v && typeof v.id === 'string' && walk(v)));
  assert.equal(typeof seen.split.message.id, 'string');
  assert.ok(walk(seen.split.message), JSON.stringify(seen.split.message));
  assert.ok(!JSON.stringify(seen.split).includes('"Text"'), JSON.stringify(seen.split));
  assert.deepEqual(errors, []);
  await page.close();
});

test('src, seed, autoplay and the session attributes: a change opens a new session, as does an edit of the script', async () => {
  const { page, errors } = await open('/site/plain/');
  await ready(page);
  const seen = await page.evaluate(async () => {
    const make = (attrs) => {
      const el = document.createElement('shard-lab');
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      el.setAttribute('loading', 'eager');
      document.body.append(el);
      return el;
    };
    const shape = async (el) => (await el.getState()).shards.map((s) => `${s.name}:${s.chunks}:${s.docs}`).join(' ');
    const attrs = { src: '../scripts/figure.js', version: '5.0', 'chunk-size': '65536', start: 'end' };
    const a = make({ ...attrs, seed: '7' });
    const b = make({ ...attrs, seed: '7' });
    const c = make({ ...attrs, seed: '8' });
    await Promise.all([a.ready, b.ready, c.ready]);
    const same = [await shape(a), await shape(b), await shape(c)];
    // autoplay plays the script to its end by itself.
    const played = make({ src: '../scripts/figure.js', autoplay: '' });
    const ended = await new Promise((resolve) => played.addEventListener('shardlab-end', (e) => resolve(e.detail)));
    // A session attribute changed after loading: a new session with it.
    a.shards = 5;
    await new Promise((r) => setTimeout(r, 0));
    await a.ready;
    const five = (await a.getState()).shards.length;
    // The script inside edited: a new session of the new script.
    const inline = make({});
    inline.textContent = 'db.t.insertOne({x: 1})';
    await inline.ready;
    const before = (await inline.getState()).steps;
    inline.textContent = 'db.t.insertOne({x: 1})\ndb.t.insertOne({x: 2})\ndb.t.insertOne({x: 3})';
    await new Promise((r) => setTimeout(r, 0));
    await inline.ready;
    const after = (await inline.getState()).steps;
    return { same, ended, five, before, after };
  });
  assert.equal(seen.same[0], seen.same[1], 'the same seed, the same cluster');
  assert.notEqual(seen.same[0], seen.same[2], 'another seed, another cluster');
  assert.match(seen.same[0], /^shard01:\d+:\d+ shard02/);
  assert.deepEqual(seen.ended, { step: 3, steps: 3 });
  assert.equal(seen.five, 5);
  assert.deepEqual([seen.before, seen.after], [1, 3]);
  assert.deepEqual(errors, []);
  await page.close();
});
