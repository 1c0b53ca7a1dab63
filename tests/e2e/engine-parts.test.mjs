// The engine's module in two parts (scripts/build-engine.mjs, web/engine/src/rest.rs): a
// first visit downloads the first part, which answers; the second (`$regex`'s matcher)
// loads after the first answer. A statement that needs it waits for it; a part that
// cannot load (missing, cut short, from another build, served as the wrong type) fails
// that statement with the reason, not the engine, and the next use tries again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, typeCommand } from './harness.mjs';

const dist = normalize(process.env.SHARDLAB_DIST ?? 'dist');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

// How the server answers for the second part: as built, or one of the failures.
let mode = 'ok';
let partRequests = 0;
let server;
let url;
let browser;

before(async () => {
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(dist, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dist)) return res.writeHead(403).end();
    let body;
    try {
      body = await readFile(file);
    } catch {
      return res.writeHead(404).end('not found');
    }
    let type = TYPES[extname(file)] ?? 'application/octet-stream';
    if (/engine-[0-9a-f]+\/split_[\w-]+\.wasm$/.test(path)) {
      partRequests += 1;
      if (mode === 'missing') return res.writeHead(404).end('not found');
      if (mode === 'cut') body = body.subarray(0, body.length >> 1);
      if (mode === 'other build') body = Buffer.concat([body.subarray(0, body.length - 1), Buffer.from([body[body.length - 1] ^ 1])]);
      if (mode === 'octet') type = 'application/octet-stream';
    }
    res.writeHead(200, { 'content-type': type });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

async function open() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const wasm = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname.replace(/.*\//, '')); });
  await page.goto(url);
  await page.getByTestId('summary').waitFor();
  return { page, errors, wasm };
}

const output = (page) => page.getByTestId('console-output');

test('the engine is built in parts: the first answers, the rest loads after it and runs $regex', async () => {
  const dir = (await readdir(dist)).find((f) => /^engine-[0-9a-f]{16}$/.test(f));
  const parts = (await readdir(join(dist, dir))).filter((f) => f.endsWith('.wasm'));
  assert.ok(parts.includes('engine_bg.wasm') && parts.some((f) => /^split_/.test(f)), `parts: ${parts}`);
  mode = 'ok';
  const { page, errors, wasm } = await open();
  await typeCommand(page, 'db.people.insertOne({name: "ada"})');
  await typeCommand(page, 'db.people.find({name: /^a/})');
  await output(page).filter({ hasText: "name: 'ada'" }).waitFor();
  await typeCommand(page, 'db.people.countDocuments({name: {$regex: "^A", $options: "i"}})');
  await page.waitForFunction(() => {
    const lines = document.querySelectorAll('[data-testid="console-output"] .line');
    return lines.length > 0 && lines[lines.length - 1].textContent === '1';
  });
  assert.ok(wasm.some((f) => /^split_/.test(f)), `the second part loaded: ${wasm}`);
  assert.deepEqual(errors, []);
  await page.close();
});

const REASONS = { missing: 'HTTP status 404', cut: 'SHA-256 differs', 'other build': 'SHA-256 differs', octet: 'MIME type' };

for (const failure of Object.keys(REASONS)) {
  test(`a second part that is ${failure} fails the statement that needs it, and the next use tries again`, async () => {
    mode = failure;
    const { page, errors } = await open();
    await typeCommand(page, 'db.people.insertOne({name: "ada"})');
    await typeCommand(page, 'db.people.deleteMany({name: /^a/})');
    const refused = output(page).filter({ hasText: "regular expressions, which could not load" });
    await refused.waitFor();
    assert.ok((await refused.textContent()).includes(REASONS[failure]), await refused.textContent());
    // The engine still answers, and nothing ran twice.
    await typeCommand(page, 'db.people.countDocuments()');
    await page.waitForFunction(() => {
      const lines = document.querySelectorAll('[data-testid="console-output"] .line');
      return lines.length > 0 && lines[lines.length - 1].textContent === '1';
    });
    mode = 'ok';
    const before = partRequests;
    await typeCommand(page, 'db.people.deleteMany({name: /^a/})');
    await output(page).filter({ hasText: 'deletedCount: 1' }).waitFor();
    assert.ok(partRequests > before, 'the part was asked for again');
    await typeCommand(page, 'db.people.countDocuments()');
    await page.waitForFunction(() => {
      const lines = document.querySelectorAll('[data-testid="console-output"] .line');
      return lines.length > 0 && lines[lines.length - 1].textContent === '0';
    });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
