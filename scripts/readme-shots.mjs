// Takes the README's screenshots from the release build in dist/: the monotonic lesson played
// to its end, its first screen at 1440x900 (static/screenshot.png), the Compare tab's default run (static/compare.png) and
// the embed view of the hashed lesson (static/embed.png), the inspector after an insert by
// hand (static/inspector.png), the monotonic lesson's heatmap (static/heatmap.png), the Import documents dialog (static/import.png), the
// Candidate keys panel on imported orders (static/candidates.png) and the v8.0 metadata fixture imported (static/cluster.png). Run after `trunk build --release`:
//   node scripts/readme-shots.mjs
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, playLesson, playComparison } from '../tests/e2e/harness.mjs';

const server = await serve();
const browser = await launch();
try {
  // The first screen a laptop shows: the stage (command bar, key bar, query box, shards).
  const { page } = await playLesson(browser, server.url, 'monotonic', { viewport: { width: 1440, height: 900 } });
  await page.screenshot({ path: 'static/screenshot.png' });
  await page.close();

  const compare = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await compare.goto(server.url);
  await compare.getByTestId('tab-compare').click();
  // The Compare tab's columns are engine sessions: its bar appears once the engine answers.
  await compare.getByTestId('compare-progress').waitFor();
  await playComparison(compare);
  await compare.getByTestId('compare').screenshot({ path: 'static/compare.png' });
  await compare.close();

  const embed = await browser.newPage({ viewport: { width: 480, height: 720 } });
  await embed.goto(`${server.url}?embed=1&preset=hashed&autoplay=1`);
  await embed.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="progress"]');
    return bar && bar.getAttribute('aria-valuenow') === bar.getAttribute('aria-valuemax');
  }, null, { timeout: 60_000 });
  await embed.screenshot({ path: 'static/embed.png' });
  await embed.close();

  // The inspector: a document inserted by hand on the hashed lesson, its path, then its chunk.
  const inspect = await playLesson(browser, server.url, 'hashed', { viewport: { width: 1440, height: 1000 } });
  await inspect.page.getByTestId('insert-doc').fill('{_id: 12345, note: "by hand"}');
  await inspect.page.getByTestId('insert-button').click();
  await inspect.page.getByTestId('landing').waitFor();
  await inspect.page.getByTestId('landing-open').click();
  await inspect.page.locator('[data-testid="doc-row"].marked').waitFor();
  await inspect.page.getByTestId('extras-inspector').screenshot({ path: 'static/inspector.png' });
  await inspect.page.close();

  // The heatmap of the monotonic lesson: the hot edge climbing with the key.
  const heat = await playLesson(browser, server.url, 'monotonic', { viewport: { width: 1440, height: 1000 } });
  const panel = heat.page.getByTestId('heatmap');
  await panel.scrollIntoViewIfNeeded();
  await heat.page.waitForFunction(() => document.querySelector('[data-testid="heatmap"]')?.dataset.pattern === 'hot edge');
  await panel.screenshot({ path: 'static/heatmap.png' });
  await heat.page.close();
  // The Import documents dialog for a small CSV, a type chosen for its zip column.
  const importing = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await importing.goto(server.url);
  await importing.getByTestId('shard').first().waitFor();
  const csv = ['zip,city,signup', ...Array.from({ length: 40 }, (_, i) => `0${2100 + i},City ${i % 7},2024-03-${String(1 + (i % 28)).padStart(2, '0')}`)].join('\n');
  await importing.getByTestId('import-documents').setInputFiles({ name: 'signups.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  const dialog = importing.getByTestId('import-dialog');
  await dialog.getByTestId('import-format').waitFor();
  await dialog.locator('[data-testid="import-type"][data-column="zip"]').selectOption('string()');
  await dialog.locator('[data-testid="import-type"][data-column="signup"]').selectOption('date_ms(yyyy-MM-dd)');
  await dialog.getByTestId('import-sort').selectOption('signup');
  await importing.waitForFunction(() => document.querySelector('[data-testid="import-sort"]')?.value === 'signup');
  await dialog.screenshot({ path: 'static/import.png' });
  await importing.close();
  // Candidate keys ranked on 3,000 imported orders.
  const ranking = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await ranking.goto(server.url);
  await ranking.getByTestId('shard').first().waitFor();
  const orders = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ ts: { $date: new Date(Date.UTC(2024, 0, 1) + i * 60000).toISOString() }, user: `u${(i * 7919) % 1500}`, tenant: ['acme', 'globex', 'initech'][i % 3] })).join('\n');
  await ranking.getByTestId('import-documents').setInputFiles({ name: 'orders.json', mimeType: 'application/json', buffer: Buffer.from(orders) });
  await ranking.getByTestId('import-format').waitFor();
  await ranking.getByTestId('import-ns').fill('shop.orders');
  await ranking.getByTestId('import-ns').press('Tab');
  await ranking.getByTestId('import-start').click();
  await ranking.getByTestId('notice').filter({ hasText: 'imported into shop.orders' }).waitFor({ timeout: 60000 });
  const candidates = ranking.getByTestId('candidates');
  await candidates.getByTestId('rank-keys').fill("{ts: 1}\n{user: 'hashed'}\n{tenant: 1}");
  await candidates.getByTestId('rank').click();
  await candidates.getByTestId('rank-row').nth(2).waitFor({ timeout: 120000 });
  await candidates.screenshot({ path: 'static/candidates.png' });
  await ranking.close();

  // The v8.0 metadata fixture imported: its chunks on its shards.
  const real = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await real.goto(server.url);
  await real.getByTestId('shard').first().waitFor();
  const fixture = join('tests', 'fixtures', 'cluster', 'v80');
  await real.getByTestId('import-cluster').setInputFiles(readdirSync(fixture).map((name) => ({ name, mimeType: 'application/json', buffer: readFileSync(join(fixture, name)) })));
  await real.getByTestId('notice').filter({ hasText: 'Your cluster is loaded' }).waitFor({ timeout: 60000 });
  await real.screenshot({ path: 'static/cluster.png' });
  await real.close();
  console.log('wrote static/screenshot.png, static/compare.png, static/embed.png, static/inspector.png, static/heatmap.png, static/import.png, static/candidates.png, static/cluster.png');
} finally {
  await browser.close();
  server.close();
}
