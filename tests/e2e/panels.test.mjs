// Issue 38, part 3, "A split page": the panels that need a click are parts of the page's
// module of their own (web/src/components/lazy.rs, scripts/build-page.mjs). A panel shows a
// short "loading" line until its part is in, then itself; a part that fails to load says
// why with a button that tries again, and the page goes on answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { suite, typeCommand, screenshot } from './harness.mjs';

const env = suite();
const dist = normalize(process.env.SHARDLAB_DIST ?? 'dist');
const words = async (lang) => JSON.parse(await readFile(join('static', 'i18n', `${lang}.json`), 'utf8'));

/** A page whose part `name` (`split_<name>.wasm` of the page's module) the test answers. */
async function openWith(name, answer) {
  // No service worker: it would fetch the parts for the offline copy past `page.route`
  // (tests/e2e/offline.test.mjs covers it).
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1000 }, serviceWorkers: 'block' });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const asked = [];
  await page.route(new RegExp(`/page-[0-9a-f]+/split_${name}\\.wasm$`), async (route) => {
    asked.push(route.request().url());
    await answer(route);
  });
  await page.goto(`${env.server.url}?lang=en`);
  await page.getByTestId('summary').waitFor();
  return { page, errors, asked };
}

test('the page is built in parts: a first part, and one for each panel that needs a click', async () => {
  const dir = (await readdir(dist)).find((f) => /^page-[0-9a-f]{16}$/.test(f));
  assert.ok(dir, 'no page-<hash>/ directory in the build');
  const files = await readdir(join(dist, dir));
  for (const part of ['compare', 'guide', 'inspector', 'insights', 'heatmap', 'scenes', 'candidates']) {
    assert.ok(files.includes(`split_${part}.wasm`), `no part for ${part}: ${files}`);
  }
  const sw = await readFile(join(dist, 'sw.js'), 'utf8');
  const kept = JSON.parse(sw.match(/^const FILES = (.*);$/m)[1]);
  for (const f of files.filter((f) => f.endsWith('.wasm') || f.endsWith('.js'))) {
    assert.ok(kept.includes(`${dir}/${f}`), `the service worker does not keep ${dir}/${f}`);
  }
});

test('a panel loads on first use: a loading line in its place until its part is in', async () => {
  const en = await words('en');
  let release;
  const gate = new Promise((r) => { release = r; });
  const { page, errors, asked } = await openWith('guide', async (route) => {
    await gate;
    await route.continue();
  });
  await page.getByTestId('tab-guide').click();
  const loading = page.locator('[data-testid="part-loading"][data-part="guide"]');
  await loading.waitFor();
  assert.equal((await loading.innerText()).trim(), en['lazy.loading_this_panel']);
  assert.ok(asked.length >= 1, 'the guide\'s part was not asked for');
  assert.equal(await page.getByTestId('guide-start').count(), 0, 'the guide drew before its part came');
  await screenshot(page, 'panel-loading');
  // The page answers meanwhile.
  await typeCommand(page, 'db.people.insertOne({name: "ada"})');
  await page.getByTestId('console-output').filter({ hasText: 'insertedId' }).waitFor();
  release();
  await page.getByTestId('guide-start').first().waitFor();
  assert.equal(await loading.count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a panel whose part fails to load says why, and the next use tries again', async () => {
  const en = await words('en');
  let failing = true;
  const { page, errors, asked } = await openWith('inspector', async (route) => {
    if (failing) await route.fulfill({ status: 404, body: 'not found' });
    else await route.continue();
  });
  // The inspector is always there: its part loads when the page is idle after the first
  // answer, and fails.
  const failed = page.locator('[data-testid="part-failed"][data-part="inspector"]');
  await failed.waitFor();
  const text = await failed.innerText();
  const sentence = en['lazy.this_panel_could_not_load'].split('{why}')[0];
  assert.ok(text.includes(sentence), text);
  assert.ok(text.includes('HTTP status 404'), text);
  await screenshot(page, 'panel-failed');
  // The page goes on: a command runs and the cluster is drawn.
  await typeCommand(page, 'db.people.insertOne({name: "ada"})');
  await page.getByTestId('console-output').filter({ hasText: 'insertedId' }).waitFor();
  // The next use loads it.
  failing = false;
  const before = asked.length;
  await failed.getByTestId('part-retry').click();
  await page.getByTestId('extras-inspector').waitFor({ state: 'attached' });
  assert.equal(await failed.count(), 0);
  assert.ok(asked.length > before, 'the part was not asked for again');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a panel opened by a click whose part failed tries again when opened again', async () => {
  let failing = true;
  const { page, errors } = await openWith('guide', async (route) => {
    if (failing) await route.abort('connectionrefused');
    else await route.continue();
  });
  await page.getByTestId('tab-guide').click();
  const failed = page.locator('[data-testid="part-failed"][data-part="guide"]');
  await failed.waitFor();
  failing = false;
  await page.getByTestId('tab-playground').click();
  await failed.waitFor({ state: 'detached' });
  await page.getByTestId('tab-guide').click();
  await page.getByTestId('guide-start').first().waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
