// The engine's module in two parts (scripts/build-engine.mjs, web/engine/src/rest.rs): a
// first visit downloads the first part, which answers; the second (`$regex`'s matcher,
// the imports, the ranking of candidate keys, the Compare's run, the `sim.` helpers a
// first visit does not run) loads after the first answer. A request that needs it before
// it has loaded is put back as it was, and runs again once the part is in (never twice
// with effects); a part that cannot load (missing, cut short, from another build, served
// as the wrong type) fails that statement with the reason, not the engine, and the next
// use tries again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { launch, typeCommand } from './harness.mjs';

const dist = normalize(process.env.SHARDLAB_DIST ?? 'dist');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

// How the server answers for the second part: as built, held back until released, or
// one of the failures.
let mode = 'ok';
let hold = null;
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
      if (mode === 'hold') {
        hold.arrived();
        await hold.released;
      }
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

/** The console's text, having checked that no statement in it waited on a part in vain. */
async function noPartFailed(page) {
  const text = await output(page).textContent();
  assert.ok(!/could not load|not loaded yet/.test(text), text.slice(-2000));
  return text;
}

/** Waits until the console's last line reads `text`. */
function lastLineIs(page, text) {
  return page.waitForFunction((text) => {
    const lines = document.querySelectorAll('[data-testid="console-output"] .line');
    return lines.length > 0 && lines[lines.length - 1].textContent === text;
  }, text);
}

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
  await lastLineIs(page, '1');
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
    await lastLineIs(page, '1');
    mode = 'ok';
    const before = partRequests;
    await typeCommand(page, 'db.people.deleteMany({name: /^a/})');
    await output(page).filter({ hasText: 'deletedCount: 1' }).waitFor();
    assert.ok(partRequests > before, 'the part was asked for again');
    await typeCommand(page, 'db.people.countDocuments()');
    await lastLineIs(page, '0');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

/**
 * Runs `body` with the second part held back until it calls `release()` (and released in
 * any case once it ends); `asked` resolves once the part is asked for.
 */
async function withPartHeld(body) {
  const { asked, release } = holdPart();
  try {
    await body({ asked, release });
  } finally {
    release();
    mode = 'ok';
  }
}

/** Holds the second part back until `release()`; `asked` resolves once it is asked for. */
function holdPart() {
  let arrived;
  let release;
  const asked = new Promise((r) => { arrived = r; });
  hold = { arrived, released: new Promise((r) => { release = r; }) };
  mode = 'hold';
  return { asked, release };
}

test('a request that needs the second part before it has loaded waits for it and runs once, its earlier statements included', () => withPartHeld(async ({ asked, release }) => {
  const { page, errors } = await open();
  await asked;
  // The insert runs before the statements that need the part: the engine puts it back,
  // and runs them all again once the part is in, so the count says 1, not 2.
  const input = page.getByTestId('console-input');
  await input.fill('db.people.insertOne({name: "ada"}); db.people.countDocuments({name: /^a/}); sim.clock().balancer.mode');
  await input.press('Enter');
  // The console says it is running: the request is with the engine, which waits.
  await page.locator('.console-busy').waitFor();
  release();
  await lastLineIs(page, 'full');
  const lines = await output(page).locator('.line').allTextContents();
  assert.equal(lines[lines.length - 2], '1', lines.slice(-6).join(' | '));
  await noPartFailed(page);
  await typeCommand(page, 'db.people.countDocuments()');
  await lastLineIs(page, '1');
  assert.deepEqual(errors, []);
  await page.close();
}));

test("a panel's answer that needs the second part waits for it, while the console answers on", () => withPartHeld(async ({ asked, release }) => {
  const { page, errors } = await open();
  await asked;
  // The split's event is for the timeline's event log, whose answer is in the second
  // part: the console answers the split and the command after it while the part is
  // held back, and the log shows the split once the part is in.
  await typeCommand(page, 'sh.splitAt("test.events", {x: 10})');
  await typeCommand(page, 'db.getName() + " after the split"');
  await lastLineIs(page, 'test after the split');
  const split = page.locator('[data-testid="event"][data-kind="split"]');
  assert.equal(await split.count(), 0, 'the event log answered without the part');
  release();
  await split.first().waitFor();
  assert.match(await split.first().innerText(), /10/);
  await noPartFailed(page);
  assert.deepEqual(errors, []);
  await page.close();
}));

test('every lesson opens and answers while the second part is still held back', () => withPartHeld(async ({ asked, release }) => {
  const { page, errors } = await open();
  await asked;
  const menu = page.getByLabel('Lesson', { exact: true });
  const lessons = (await menu.locator('option').evaluateAll((os) => os.map((o) => o.value))).filter((v) => v);
  assert.ok(lessons.length >= 5, `lessons: ${lessons}`);
  for (const lesson of lessons) {
    await menu.selectOption(lesson);
    await page.getByTestId('lesson-text').waitFor();
    // Answered after the lesson's own setup, in order: neither waited for the part.
    await typeCommand(page, `db.getName() + " ${lesson}"`);
    await page.waitForFunction((lesson) => {
      const lines = document.querySelectorAll('[data-testid="console-output"] .line');
      return lines.length > 0 && lines[lines.length - 1].textContent.endsWith(` ${lesson}`);
    }, lesson);
  }
  await noPartFailed(page);
  assert.deepEqual(errors, []);
  await page.close();
}));

test('a sim. helper whose code is in the second part fails with the reason when it cannot load, changing nothing, then runs', async () => {
  mode = 'missing';
  const { page, errors } = await open();
  await typeCommand(page, 'db.people.insertOne({name: "ada"}); sim.reset()');
  const refused = output(page).filter({ hasText: 'sim.reset, which could not load' });
  await refused.waitFor();
  assert.ok((await refused.textContent()).includes('HTTP status 404'), await refused.textContent());
  // The statement before it ran (as a statement after a failing one in a script does).
  await typeCommand(page, 'db.people.countDocuments()');
  await lastLineIs(page, '1');
  mode = 'ok';
  const before = partRequests;
  await typeCommand(page, 'sim.reset(); db.people.countDocuments()');
  await lastLineIs(page, '0');
  assert.ok(partRequests > before, 'the part was asked for again');
  assert.deepEqual(errors, []);
  await page.close();
});

/** A small JSON file of documents for the Import documents dialog. */
function people(n) {
  return Buffer.from(Array.from({ length: n }, (_, i) => JSON.stringify({ name: `p${i}`, age: 20 + i })).join('\n') + '\n');
}

/** Picks a file in the Import documents dialog and imports it into shop.people. */
async function importPeople(page, name, n) {
  await page.getByTestId('import-documents').setInputFiles({ name, mimeType: 'application/json', buffer: people(n) });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor();
  await dialog.getByTestId('import-ns').fill('shop.people');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: `${n} documents imported into shop.people` }).waitFor();
}

test('an import, whose code is in the second part, waits while the part is held back, then runs', () => withPartHeld(async ({ asked, release }) => {
  const { page, errors } = await open();
  // The worker asks for the part right after the first answer; the server holds it.
  await asked;
  await page.getByTestId('import-documents').setInputFiles({ name: 'people.json', mimeType: 'application/json', buffer: people(3) });
  const dialog = page.getByTestId('import-dialog');
  await dialog.getByTestId('import-reading').waitFor();
  assert.equal(await dialog.getByTestId('import-format').count(), 0, 'the preview waited for the part');
  assert.equal(await dialog.getByTestId('import-error').count(), 0);
  release();
  await dialog.getByTestId('import-format').waitFor();
  await dialog.getByTestId('import-ns').fill('shop.people');
  await dialog.getByTestId('import-ns').press('Tab');
  await dialog.getByTestId('import-start').click();
  await page.getByTestId('notice').filter({ hasText: '3 documents imported into shop.people' }).waitFor();
  await typeCommand(page, 'db.getSiblingDB("shop").people.countDocuments()');
  await lastLineIs(page, '3');
  assert.deepEqual(errors, []);
  await page.close();
}));

test('an import whose part cannot load fails with the reason, the engine answers on, and the next import loads it', async () => {
  mode = 'missing';
  const { page, errors } = await open();
  await page.getByTestId('import-documents').setInputFiles({ name: 'people.json', mimeType: 'application/json', buffer: people(3) });
  const dialog = page.getByTestId('import-dialog');
  const refused = dialog.getByTestId('import-error');
  await refused.waitFor();
  const why = await refused.textContent();
  assert.ok(why.includes('could not load') && why.includes('HTTP status 404'), why);
  await dialog.getByTestId('import-close').click();
  // The engine still answers, and nothing was imported.
  await typeCommand(page, 'db.getSiblingDB("shop").people.countDocuments()');
  await lastLineIs(page, '0');
  mode = 'ok';
  const before = partRequests;
  await importPeople(page, 'people-again.json', 4);
  assert.ok(partRequests > before, 'the part was asked for again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('analyzeShardKey and sim.explain, whose code is in the second part, fail with the reason when it cannot load, then run', async () => {
  mode = 'missing';
  const { page, errors } = await open();
  // analyzeShardKey is 7.0's.
  await typeCommand(page, 'sim.version("8.0")');
  await typeCommand(page, 'db.people.insertOne({name: "ada"})');
  await typeCommand(page, 'db.people.analyzeShardKey({_id: 1})');
  const refused = output(page).filter({ hasText: 'analyzeShardKey, which could not load' });
  await refused.waitFor();
  assert.ok((await refused.textContent()).includes('HTTP status 404'), await refused.textContent());
  await typeCommand(page, 'sim.explain({balancer: true})');
  const unexplained = output(page).filter({ hasText: 'sim.explain, which could not load' });
  await unexplained.waitFor();
  assert.ok((await unexplained.textContent()).includes('HTTP status 404'), await unexplained.textContent());
  mode = 'ok';
  const before = partRequests;
  await typeCommand(page, 'db.people.analyzeShardKey({_id: 1})');
  // The analysis's own answer: one document cannot make its 100 ranges.
  await output(page).filter({ hasText: 'does not have enough cardinality' }).waitFor();
  assert.ok(partRequests > before, 'the part was asked for again');
  await typeCommand(page, 'sim.explain({balancer: true})');
  await output(page).filter({ hasText: "subject: 'balancer round'" }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test("a first visit and the shell's everyday statements need nothing of the second part", async () => {
  mode = 'missing';
  const { page, errors } = await open();
  for (const command of ['db.people.insertOne({name: "ada", age: 36})', 'db.people.find({age: {$gt: 30}})',
    'sh.enableSharding("shop")', 'sh.shardCollection("shop.orders", {customerId: 1})',
    'sim.generate("shop.orders", "ecommerce", 3000)', 'sh.splitAt("shop.orders", {customerId: 500})',
    'sh.startBalancer()', 'sim.balance()', 'sh.status()', 'show dbs',
    'db.people.updateOne({name: "ada"}, {$set: {age: 37}})', 'db.people.deleteOne({name: "ada"})']) {
    await typeCommand(page, command);
  }
  await typeCommand(page, 'db.people.countDocuments()');
  await lastLineIs(page, '0');
  assert.match(await noPartFailed(page), /deletedCount: 1/);
  assert.deepEqual(errors, []);
  mode = 'ok';
  await page.close();
});
