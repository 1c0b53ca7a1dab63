// 中文 and English: the page's language comes from the browser, the header's switch, and
// links; a guided lesson runs end to end in both; switching mid-lesson keeps the step; a
// share link carries the language and the same cluster; and the Chinese page holds at
// 400 px with nothing cut off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { suite, screenshot, walkGuideStep, readChunks, openSetup, typeCommand, waitForSaved } from './harness.mjs';

const env = suite();
const HAN = /[\u4e00-\u9fff]/;
const zhLessons = JSON.parse(await readFile('static/i18n/lessons.zh-CN.json', 'utf8'));
const enLessons = JSON.parse(await readFile('static/lessons.json', 'utf8'));
const zh = JSON.parse(await readFile('static/i18n/zh-CN.json', 'utf8'));

/** The console's own lines (not echoes, not errors), oldest first. */
const consoleLines = (page) => page.locator('[data-testid="console-output"] .line.out').allInnerTexts();

/** `zh[key]` with its `{name}` placeholders filled from `values`. */
const zhf = (key, values = {}) => Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{${k}}`, v), zh[key]);

/** A fresh page in a browser whose preferred language is `locale`. */
async function openIn(locale, query = '', viewport = { width: 1400, height: 1000 }) {
  const context = await env.browser.newContext({ locale, viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(env.server.url);
  await page.evaluate(() => localStorage.clear());
  await page.goto(`${env.server.url}${query}`);
  await page.getByTestId('shard').first().waitFor();
  return { page, errors, context };
}

/** Waits until the page speaks `tag` (the switch applies once the words are in). */
async function speaks(page, tag) {
  await page.waitForFunction((t) => document.documentElement.lang === t, tag);
  // The tabs are drawn in the language's words.
  const want = tag === 'zh-CN' ? zh['tabs.playground'] : 'Playground';
  await page.getByTestId('tab-playground').filter({ hasText: want }).waitFor();
}

test('i18n: a Chinese browser opens in Chinese; the header switch changes it at once and is remembered', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  assert.equal(await page.getByTestId('lang').inputValue(), 'zh-CN');
  assert.equal(await page.getByTestId('tab-compare').innerText(), zh['tabs.compare']);
  assert.equal(await page.getByTestId('share-link').innerText(), zh['share_bar.copy_link']);
  // Counts follow the language's plural rules: "3 个分片" has no English plural.
  const summary = await page.getByTestId('summary').innerText();
  assert.match(summary, HAN, summary);
  // The exported picture is titled in Chinese, the key as mongosh prints it.
  const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
  const svg = await readFile(await svgDownload.path(), 'utf8');
  assert.ok(svg.includes(zhf('share_bar.picture_title', { ns: 'test.events', key: '{ x: 1 }' })), svg.slice(0, 400));
  // The engine's answer to "where did it land?" comes worded in Chinese, with mongosh's
  // values as mongosh prints them.
  await page.getByTestId('insert-doc').fill('{x: 5}');
  await page.getByTestId('insert-button').click();
  await page.getByTestId('landing').waitFor();
  await page.getByTestId('landing-why').filter({ hasText: '{ x: 5 }' }).waitFor();
  const why = await page.getByTestId('landing-why').innerText();
  assert.match(why, /^它的分片键值 \{ x: 5 \} 落在数据块 .*中，该数据块位于 shard0\d 上，所以 mongos 把文档路由到 shard0\d。$/, why);
  // mongosh stays as MongoDB prints it.
  await page.getByTestId('console-input').fill('sh.status()');
  await page.getByTestId('console-input').press('Enter');
  await page.getByTestId('console-output').filter({ hasText: 'shardingVersion' }).waitFor();
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  // Each part redraws in the new language: wait for the words read, then read them.
  await page.getByTestId('share-link').filter({ hasText: 'Copy link' }).waitFor();
  assert.equal(await page.getByTestId('share-link').innerText(), 'Copy link');
  await page.getByTestId('landing-why').filter({ hasText: /^Its shard key value / }).waitFor();
  assert.match(await page.getByTestId('landing-why').innerText(), /^Its shard key value \{ x: 5 \} falls in the chunk /);
  // Back to Chinese: the words read at the start are the model's, kept, not fetched again.
  const fetched = [];
  page.on('request', (r) => { if (r.url().includes('/i18n/zh-CN.json')) fetched.push(r.url()); });
  await page.getByTestId('lang').selectOption('zh-CN');
  await speaks(page, 'zh-CN');
  await page.getByTestId('share-link').filter({ hasText: zh['share_bar.copy_link'] }).waitFor();
  await page.getByTestId('landing-why').filter({ hasText: /^它的分片键值 \{ x: 5 \}/ }).waitFor();
  assert.deepEqual(fetched, []);
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await page.reload();
  await page.getByTestId('shard').first().waitFor();
  await speaks(page, 'en');
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('shardlab.lang'))), 'en');
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the lesson picker and the inspector\'s "why?" answers in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  // The engine's lessons are worded from the catalogue by their id, the shard count filled in.
  const picker = page.getByTestId('preset');
  await picker.selectOption('low-cardinality');
  const title = zh['preset.low-cardinality.title'].replace('{shards}', '9');
  await page.getByTestId('lesson-text').filter({ hasText: zh['preset.low-cardinality.text'].replaceAll('{shards}', '9') }).waitFor();
  assert.equal(await picker.locator('option:checked').innerText(), title);
  assert.equal(await picker.locator('option[value="monotonic"]').innerText(), zh['preset.monotonic.title']);
  // Step the workload so that the chunks hold documents, then ask a chunk why.
  await page.getByTestId('step').click();
  // The event log's lines are the engine's messages too, worded in Chinese.
  const inserted = page.locator('[data-testid="event"][data-kind="insert"] .ev-text').first();
  await inserted.waitFor();
  assert.match(await inserted.innerText(), /^test\.people：插入 shard0\d: \d+/);
  await page.locator('[data-testid="chunk"]:not(.far)').first().click();
  const inspector = page.getByTestId('chunk-inspector');
  await inspector.getByTestId('explanation').first().waitFor();
  const whys = async (where) => {
    await where.getByTestId('explanation').first().waitFor();
    return where.locator('[data-testid="explanation"] .why').allInnerTexts();
  };
  const chunkWhys = await whys(inspector);
  assert.ok(chunkWhys.length >= 2, `${chunkWhys}`);
  for (const why of chunkWhys) {
    assert.match(why, HAN, why);
    // mongosh's values stay as it prints them; no English sentence is left.
    assert.doesNotMatch(why, /\b(the|is|and|chunk|balancer)\b/i, why);
  }
  // The rules' short names too (the balancer's policy always has one).
  const rules = await inspector.locator('[data-testid="explanation"] .rule').allInnerTexts();
  assert.ok(rules.some((r) => HAN.test(r)), `${rules}`);
  // A shard's "why?" and the balancer's.
  await page.locator('[data-testid="shard"]').first().getByTestId('why-shard').click();
  const shardWhys = await whys(page.getByTestId('shard-inspector'));
  assert.ok(shardWhys.length >= 1);
  for (const why of shardWhys) assert.doesNotMatch(why, /\b(the|holds|chunks?|balancer)\b/i, why);
  assert.match(shardWhys[0], /^shard0\d 持有 \d+ 个数据块中的 \d+ 个（/, shardWhys[0]);
  await page.getByTestId('why-balancer').click();
  const roundWhys = await whys(page.getByTestId('round-inspector'));
  assert.ok(roundWhys.length >= 1);
  for (const why of roundWhys) assert.match(why, HAN, why);
  // The inspector's answer at 400 px, in Chinese.
  await page.setViewportSize({ width: 400, height: 900 });
  await page.locator('[data-testid="chunk"]:not(.far)').first().click();
  await inspector.getByTestId('explanation').first().waitFor();
  await inspector.screenshot({ path: 'target/screenshots/i18n-zh-inspector-400.png' });
  await page.setViewportSize({ width: 1400, height: 1000 });
  // Back in English: the engine's own words.
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  // Each part redraws in the new language: wait for the words read, then read them.
  await picker.locator('option:checked').filter({ hasText: 'Seven continents, nine shards' }).waitFor({ state: 'attached' });
  assert.equal(await picker.locator('option:checked').innerText(), 'Seven continents, nine shards');
  await page.getByTestId('lesson-text').filter({ hasText: /^A key with seven possible values/ }).waitFor();
  assert.match(await page.getByTestId('lesson-text').innerText(), /^A key with seven possible values/);
  await page.waitForFunction(() => {
    const whys = [...document.querySelectorAll('[data-testid="chunk-inspector"] [data-testid="explanation"] .why')];
    return whys.length > 0 && whys.every((w) => !/[\u4e00-\u9fff]/.test(w.textContent));
  });
  const english = await whys(inspector);
  assert.equal(english.length, chunkWhys.length);
  for (const why of english) assert.doesNotMatch(why, HAN, why);
  assert.ok(english.some((w) => /balancer/i.test(w)), `${english}`);
  await inserted.filter({ hasText: /^test\.people: inserted / }).waitFor();
  assert.match(await inserted.innerText(), /^test\.people: inserted shard0\d: \d+/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the ready-made demos, picker and scenes, in Chinese, and the picker back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  const picker = page.getByTestId('demo-select');
  assert.equal(await picker.locator('option[value="hot-spot"]').innerText(), zh['demo.hot-spot.title']);
  assert.equal(await picker.locator('option[value="continents"]').innerText(), zh['demo.continents.title']);
  await picker.selectOption('hot-spot');
  await page.getByTestId('demo-load').click();
  const items = page.locator('[data-testid="scene-item"]');
  await items.nth(2).waitFor();
  // The demo's scenes are set in the language it was loaded in, each title and note the catalogue's.
  for (let n = 1; n <= 3; n++) {
    const item = items.nth(n - 1);
    assert.equal(await item.getByTestId('scene-title').inputValue(), zh[`demo.hot-spot.scene${n}.title`]);
    assert.equal(await item.getByTestId('scene-note').inputValue(), zh[`demo.hot-spot.scene${n}.note`]);
  }
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await picker.locator('option[value="hot-spot"]').filter({ hasText: 'A counter as shard key: the hot spot' }).waitFor({ state: 'attached' });
  assert.equal(await picker.locator('option[value="hot-spot"]').innerText(), 'A counter as shard key: the hot spot');
  for (const text of await picker.locator('option').allInnerTexts()) assert.doesNotMatch(text, HAN, text);
  // Scenes already set are the presenter's text: a switch leaves them as they are.
  assert.equal(await items.first().getByTestId('scene-title').inputValue(), zh['demo.hot-spot.scene1.title']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the heatmap\'s axis and pattern sentences in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  await page.getByTestId('preset').selectOption('monotonic');
  await page.getByTestId('lesson-text').filter({ hasText: zh['preset.monotonic.text'] }).waitFor();
  for (let i = 0; i < 4; i++) await page.getByTestId('step').click();
  const panel = page.locator('[data-testid="heatmap"][data-pattern="hot edge"]');
  await panel.scrollIntoViewIfNeeded();
  await panel.waitFor();
  const pattern = page.getByTestId('heat-pattern');
  const axis = page.getByTestId('heat-axis');
  // The engine's pattern and axis words, in Chinese: the badge, the sentence and its figures.
  await pattern.filter({ hasText: zh['heat.name.hot_edge'] }).waitFor();
  const said = await pattern.innerText();
  assert.match(said, new RegExp(`^${zh['heat.name.hot_edge']} 第一步之后的插入中有 \\d+% ${zh['heat.side.above']}之前的每个键`), said);
  assert.match(said, /MaxKey/);
  assert.doesNotMatch(said, /\b(inserts|above|hot edge)\b/, said);
  // The glossary term in the heatmap's caption is named in Chinese too.
  assert.equal(await page.locator('.heat-intro [data-term="heat"]').innerText(), zh['heatmap.heat']);
  const axisSaid = await axis.innerText();
  assert.match(axisSaid, /^纵轴：.*（这里共 \d+ 条）/, axisSaid);
  assert.doesNotMatch(axisSaid, /Up the side/, axisSaid);
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await pattern.filter({ hasText: /^hot edge\b/ }).waitFor();
  assert.match(await pattern.innerText(), /^hot edge \d+% of the inserts after the first step went above every earlier key/);
  await axis.filter({ hasText: /^Up the side: / }).waitFor();
  assert.match(await axis.innerText(), /^Up the side: the key's values in order, MinKey at the bottom, by rank: .* \(\d+ here\)/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the console\'s welcome and a lesson\'s opening line in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  // A fresh playground's first console line welcomes in Chinese, mongosh's commands as typed.
  await page.locator('[data-testid="console-output"] .line.out').first().waitFor();
  assert.equal((await consoleLines(page))[0], zh['engine.console.welcome']);
  assert.match((await consoleLines(page))[0], /^ShardLab 命令行：.*sh\.status\(\)/);
  // A lesson opens with its title and text in Chinese, the shard count filled in.
  await page.getByTestId('preset').selectOption('low-cardinality');
  const opening = `课程：${zhf('preset.low-cardinality.title', { shards: 9 })}。${zhf('preset.low-cardinality.text', { shards: 9 })}`;
  await page.locator('[data-testid="console-output"] .line.out').filter({ hasText: zhf('preset.low-cardinality.title', { shards: 9 }) }).first().waitFor();
  // The lesson's commands answer from the engine's worker too: wait for an answer.
  await page.locator('[data-testid="console-output"] .line.out').filter({ hasText: /ok: 1/ }).first().waitFor();
  const lines = await consoleLines(page);
  assert.equal(lines[0], opening);
  assert.ok(!lines.some((l) => /^Lesson: /.test(l)), `${lines}`);
  // The commands the lesson ran, and what mongosh printed, stay as mongosh prints them.
  assert.ok(lines.some((l) => /ok: 1/.test(l)), `${lines}`);
  // Back in English: the same line in the engine's words, at once.
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await page.locator('[data-testid="console-output"] .line.out').first().filter({ hasText: /^Lesson: Seven continents/ }).waitFor();
  assert.match((await consoleLines(page))[0], /^Lesson: Seven continents, nine shards\. A key with seven possible values/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the engine\'s notice, the heatmap\'s empty reason and analyzeShardKey\'s note in Chinese, MongoDB\'s error as it prints it', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  // Nothing inserted yet: the heatmap says so in Chinese.
  const heatmap = page.getByTestId('heatmap');
  await heatmap.scrollIntoViewIfNeeded();
  const empty = page.getByTestId('heatmap-empty');
  await empty.filter({ hasText: zhf('engine.heat.no_inserts', { ns: 'test.events' }) }).waitFor();
  assert.match(await empty.innerText(), /^还没有插入 test\.events 的文档/);
  // A workload of 25 documents: the first step inserts them, the next has nothing to do,
  // and the engine's notice says why, in Chinese.
  await openSetup(page);
  await page.getByTestId('total').fill('25');
  await page.getByTestId('total').press('Tab');
  await page.getByTestId('step').click();
  await page.getByTestId('summary').filter({ hasText: '25 个文档' }).waitFor();
  await page.getByTestId('step').click();
  const notice = page.getByTestId('notice');
  const full = zhf('engine.notice.workload_full', { ns: 'test.events', count: 25, total: 25 });
  await notice.filter({ hasText: full }).waitFor();
  assert.doesNotMatch(await notice.innerText(), /already holds|Raise Total/);
  // analyzeShardKey on 25 documents: MongoDB refuses the read and write distribution, and
  // ShardLab's sentences beside its report say why, in Chinese; MongoDB's error is its own.
  const analyze = page.getByTestId('analyze');
  await analyze.scrollIntoViewIfNeeded();
  await analyze.click();
  const note = page.getByTestId('analyze-note');
  await note.waitFor();
  const said = await note.innerText();
  assert.ok(said.startsWith(`跳过了读写分布。MongoDB 在文档数大致相等的 100 个范围上衡量读和写。`), said);
  assert.match(said, /这个集合只有 25 个文档，所以样本就是全部文档，最多只能得出 3 个边界，少于 99 个/, said);
  assert.match(said, /MongoDB 的错误：[ -~]*[A-Za-z]{4,}/, said);
  assert.doesNotMatch(said, /skipped|MongoDB measures|This collection holds|distributions appear/, said);
  // Back in English, each of them in the engine's English.
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await notice.locator('.notice-text').filter({ hasText: /^test\.events already holds/ }).waitFor();
  assert.equal(await notice.locator('.notice-text').innerText(), "test.events already holds 25 documents, the workload's total of 25. Raise Total to insert more.");
  await note.filter({ hasText: /^Read and write distribution skipped\./ }).waitFor();
  assert.match(await note.innerText(), /^Read and write distribution skipped\. MongoDB measures reads and writes over 100 ranges.* This collection holds 25 documents/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: zone events in the event log in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  const zoneLines = () => page.locator('[data-testid="event"][data-kind="zone"] .ev-text').allInnerTexts();
  const commands = [
    'sh.addShardToZone("shard01", "EU")',
    'sh.updateZoneKeyRange("test.events", {x: MinKey}, {x: 0}, "EU")',
    'sh.removeRangeFromZone("test.events", {x: MinKey}, {x: 0})',
    'sh.removeShardFromZone("shard01", "EU")',
  ];
  for (const [i, command] of commands.entries()) {
    await typeCommand(page, command);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="event"][data-kind="zone"]').length === n, i + 1);
  }
  // Newest first.
  assert.deepEqual(await zoneLines(), [
    zhf('event.zone.left', { shard: 'shard01', zone: 'EU' }),
    zhf('event.zone.range_removed', { ns: 'test.events' }),
    zhf('event.zone.range_added', { zone: 'EU', ns: 'test.events' }),
    zhf('event.zone.joined', { shard: 'shard01', zone: 'EU' }),
  ]);
  assert.equal((await zoneLines())[3], 'shard01 加入了区域 EU');
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await page.locator('[data-testid="event"][data-kind="zone"] .ev-text').first().filter({ hasText: 'shard01 left zone EU' }).waitFor();
  assert.deepEqual(await zoneLines(), [
    'shard01 left zone EU',
    'removed a zone range of test.events',
    'zone EU got a range of test.events',
    'shard01 joined zone EU',
  ]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: "Recent sessions" names the sessions the page named in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  // A playground with a step of the user's, then a lesson with one: two sessions kept.
  await page.getByTestId('step').click();
  await waitForSaved(page, 'sim.generate');
  await page.getByTestId('preset').selectOption('low-cardinality');
  await page.getByTestId('lesson-text').filter({ hasText: HAN }).waitFor();
  const before = await page.getByTestId('position').innerText();
  await page.getByTestId('step').click();
  await page.getByTestId('position').filter({ hasNotText: before }).waitFor();
  await waitForSaved(page, 'continent');
  const names = async () => {
    const button = page.getByTestId('recent-sessions');
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
    await page.locator('[data-testid="recent-row"]').nth(1).waitFor();
    return (await page.getByTestId('recent-name').allInnerTexts()).sort();
  };
  assert.deepEqual(await names(), [zhf('preset.low-cardinality.title', { shards: 9 }), zhf('recent.playground_ns', { ns: 'test.events' })].sort());
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await page.getByTestId('recent-name').filter({ hasText: 'Playground: test.events' }).waitFor();
  assert.deepEqual(await names(), ['Playground: test.events', 'Seven continents, nine shards']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: changing the key of a collection with documents: the choice and why refine is closed, in Chinese', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  await page.getByTestId('step').click();
  await page.getByTestId('summary').filter({ hasText: '25 个文档' }).waitFor();
  await openSetup(page);
  await page.getByTestId('shard-key').fill('{y: 1}');
  await page.getByRole('button', { name: zh['controls.change_the_key'] }).click();
  const choice = page.getByTestId('key-change');
  await choice.waitFor();
  const values = { ns: 'test.events', docs: 25, old: '{ x: 1 }', new_key: '{ y: 1 }' };
  assert.equal(await choice.locator('p').first().innerText(), zhf('controls.ns_holds_docs_sharded_on', values));
  assert.ok(await page.getByTestId('key-refine').isDisabled());
  const closed = zhf('engine.plan.refine_prefix', { key: '{ y: 1 }', old: '{ x: 1 }' });
  await choice.getByText(closed).waitFor();
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await choice.getByText("Refining only adds fields after the current key's: { y: 1 } does not start with { x: 1 }.").waitFor();
  assert.match(await choice.locator('p').first().innerText(), /^test\.events holds 25 documents sharded on \{ x: 1 \}\. How should it move to \{ y: 1 \}\?/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: the Compare tab\'s table caption in Chinese, and back in English', async () => {
  const { page, errors, context } = await openIn('zh-CN');
  await speaks(page, 'zh-CN');
  await page.getByTestId('tab-compare').click();
  // The window is the engine's, known once the columns have answered (0 until then).
  const caption = page.locator('[data-testid="compare-table"] caption').filter({ hasText: /最近 [1-9]\d* 次插入/ });
  await caption.waitFor();
  const said = await caption.innerText();
  const window = said.match(/最近 (\d+) 次插入/)?.[1];
  assert.ok(window, said);
  assert.equal(said, zhf('compare_view.where_the_writes_went', { window }));
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  const english = page.locator('[data-testid="compare-table"] caption').filter({ hasText: /^Where the writes went, / });
  await english.waitFor();
  assert.match(await english.innerText(), new RegExp(`^Where the writes went, .* counts the latest ${window} inserts`));
  assert.deepEqual(errors, []);
  await context.close();
});

for (const [locale, lessons] of [['en-US', enLessons], ['zh-CN', zhLessons]]) {
  test(`i18n: a guided lesson end to end in ${locale}`, async () => {
    const { page, errors, context } = await openIn(locale);
    await speaks(page, locale === 'zh-CN' ? 'zh-CN' : 'en');
    await page.getByTestId('tab-guide').click();
    const lesson = lessons[0];
    await page.locator(`[data-testid="guide-start"][data-lesson="${lesson.id}"]`).click();
    for (let i = 0; i < lesson.steps.length; i++) {
      const want = locale === 'zh-CN' ? `第 ${i + 1} 步，共 ${lesson.steps.length} 步` : `Step ${i + 1} of ${lesson.steps.length}`;
      // The step Next moved to is drawn a moment after the click: wait for it, then read it.
      await page.getByTestId('guide-progress').filter({ hasText: want }).waitFor();
      const progress = await page.getByTestId('guide-progress').innerText();
      assert.equal(progress, want);
      assert.equal(await page.getByTestId('guide-step-title').innerText(), lesson.steps[i].title);
      const verdict = await walkGuideStep(page, { correct: i % 2 === 0 });
      assert.equal(verdict.correct, i % 2 === 0);
      const right = lesson.steps[i].question.choices.find((c) => c.correct);
      if (i % 2 === 1) assert.ok(verdict.text.includes(right.why), verdict.text);
      assert.ok((await page.getByTestId('guide-result').innerText()).includes(lesson.steps[i].result));
      await page.getByTestId('guide-next').click();
    }
    await page.getByTestId('guide-complete').waitFor();
    assert.ok((await page.getByTestId('guide-complete').innerText()).includes(lesson.title));
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('i18n: switching language mid-lesson keeps the step, its prediction and its cluster', async () => {
  const { page, errors, context } = await openIn('en-US');
  await page.getByTestId('tab-guide').click();
  await page.locator('[data-testid="guide-start"][data-lesson="key-design"]').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 1 of \d+$/ }).waitFor();
  await page.getByTestId('guide-next').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 2 of \d+$/ }).waitFor();
  await page.getByTestId('guide-next').click();
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 3 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 3 of \d+$/);
  await page.getByTestId('summary').filter({ hasText: 'test.orders' }).waitFor();
  await page.locator('[data-testid="guide-choice"][data-correct="true"]').check();
  await page.getByTestId('guide-verdict').waitFor();
  const before = await readChunks(page);
  await page.getByTestId('lang').selectOption('zh-CN');
  await speaks(page, 'zh-CN');
  const step = zhLessons[1].steps[2];
  await page.getByTestId('guide-step-title').filter({ hasText: step.title }).waitFor();
  await page.getByTestId('guide-progress').filter({ hasText: /^第 3 步，共 \d+ 步$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^第 3 步，共 \d+ 步$/);
  // The prediction made stays made, now in Chinese.
  await page.getByTestId('guide-verdict').filter({ hasText: HAN }).waitFor();
  assert.equal(await page.getByTestId('guide-verdict').getAttribute('data-correct'), 'true');
  assert.match(await page.getByTestId('guide-verdict').innerText(), HAN);
  assert.deepEqual(await readChunks(page), before, 'the cluster does not change with the language');
  await page.getByTestId('lang').selectOption('en');
  await speaks(page, 'en');
  await page.getByTestId('guide-step-title').filter({ hasText: enLessons[1].steps[2].title }).waitFor();
  assert.equal(await page.getByTestId('guide-step-title').innerText(), enLessons[1].steps[2].title);
  await page.getByTestId('guide-progress').filter({ hasText: /^Step 3 of \d+$/ }).waitFor();
  assert.match(await page.getByTestId('guide-progress').innerText(), /^Step 3 of \d+$/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('i18n: a share link made in Chinese carries lang=zh-CN and opens the same cluster in Chinese in an English browser', async () => {
  const made = await openIn('zh-CN');
  await speaks(made.page, 'zh-CN');
  const start = Number((await made.page.getByTestId('position').innerText()).match(/第 (\d+) 步/)[1]);
  await made.page.getByTestId('step').click();
  await made.page.getByTestId('step').click();
  await made.page.getByTestId('position').filter({ hasText: `第 ${start + 2} 步` }).waitFor();
  await made.page.getByTestId('share-link').click();
  const url = await made.page.getByTestId('share-url').inputValue();
  assert.match(url, /\?lang=zh-CN#s=/, url);
  const chunks = await readChunks(made.page);
  const position = await made.page.getByTestId('position').innerText();
  assert.match(position, /^第 \d+ 步，共 \d+ 步$/);
  await made.context.close();

  const context = await env.browser.newContext({ locale: 'en-US', viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await speaks(page, 'zh-CN');
  await page.getByTestId('position').filter({ hasText: position }).waitFor();
  assert.deepEqual(await readChunks(page), chunks);
  // The console says what the link restored, in Chinese.
  await page.locator('[data-testid="console-output"] .line.out').filter({ hasText: /^已恢复一个共 \d+ 步的场景/ }).first().waitFor();
  const restored = await consoleLines(page);
  assert.ok(restored.some((l) => /^已恢复一个共 \d+ 步的场景，当前在第 \d+ 步。$/.test(l)), `${restored}`);
  // The embedded view takes the language from its address too.
  await page.goto(`${env.server.url}?embed=1&preset=monotonic&lang=zh-CN`);
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.getByTestId('open-in-shardlab').filter({ hasText: zh['share_bar.open_in_shardlab'] }).waitFor();
  assert.match(await page.getByTestId('open-in-shardlab').getAttribute('href'), /\?lang=zh-CN/);
  assert.deepEqual(errors, []);
  await context.close();
});

/** Elements past the viewport's right edge (outside sideways-scrolling containers), and
 * elements whose text is cut off: clipped (overflow hidden or clip) and wider inside than
 * out. The panels that skip rendering off screen are drawn first. */
async function cutOff(page) {
  const style = await page.addStyleTag({ content: '.lower, .insights { content-visibility: visible !important; }' });
  const found = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const scrolls = (el) => {
      const s = getComputedStyle(el);
      return (s.overflowX === 'auto' || s.overflowX === 'scroll') && el.getBoundingClientRect().right <= vw + 0.5;
    };
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      // What a closed <details> holds is not drawn.
      if (el.closest('details:not([open]) > :not(summary)')) continue;
      let p = el.parentElement;
      while (p && !scrolls(p)) p = p.parentElement;
      if (p) continue;
      const name = `${el.tagName.toLowerCase()} ${el.getAttribute('data-testid') ?? (typeof el.className === 'string' ? el.className : '')}`;
      if (r.right > vw + 0.5) out.push(`${name}: right ${Math.round(r.right)} > ${vw}`);
      const s = getComputedStyle(el);
      const clips = ['hidden', 'clip'].includes(s.overflowX);
      const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (clips && text && el.scrollWidth > el.clientWidth + 1 && s.textOverflow !== 'ellipsis') {
        out.push(`${name}: text cut off (${el.scrollWidth} > ${el.clientWidth})`);
      }
    }
    return { out, scrollWidth: document.documentElement.scrollWidth, vw };
  });
  await style.evaluate((el) => el.remove());
  return found;
}

for (const width of [400, 1440]) {
  test(`i18n: at ${width} px the Chinese page holds, with nothing cut off`, async () => {
    const { page, errors, context } = await openIn('zh-CN', '', { width, height: 900 });
    await speaks(page, 'zh-CN');
    const before = await page.getByTestId('position').innerText();
    await page.getByTestId('step').click();
    await page.getByTestId('position').filter({ hasNotText: before }).filter({ hasText: /^第 \d+ 步，共 \d+ 步$/ }).waitFor();
    const { out, scrollWidth, vw } = await cutOff(page);
    assert.deepEqual(out, [], `cut off at ${width} px`);
    assert.ok(scrollWidth <= vw, `the page scrolls sideways: ${scrollWidth} > ${vw}`);
    console.log(`screenshot: ${await screenshot(page, `i18n-zh-${width}`)}`);
    // The guided lessons' picker and a step too.
    await page.getByTestId('tab-guide').click();
    await page.locator('[data-testid="guide-start"][data-lesson="key-basics"]').click();
    await page.getByTestId('guide-step-title').filter({ hasText: HAN }).waitFor();
    const guide = await cutOff(page);
    assert.deepEqual(guide.out, [], `cut off in the guide at ${width} px`);
    if (width === 400) console.log(`screenshot: ${await screenshot(page, `i18n-zh-guide-${width}`)}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('i18n: the <shard-lab> element speaks the language its lang attribute names', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${env.server.url}examples.html`);
  const el = page.locator('#hashed');
  await el.scrollIntoViewIfNeeded();
  await el.getByText('step 0 of 4').waitFor();
  await el.evaluate((node) => node.setAttribute('lang', 'zh-CN'));
  await el.getByText('第 0 步，共 4 步').waitFor();
  await el.getByRole('button', { name: zh['element.play'] }).click();
  await el.getByText('第 4 步，共 4 步').waitFor();
  await el.locator('.shard .name').first().filter({ hasText: /个数据块 · \d+ 个文档$/ }).waitFor();
  assert.match(await el.locator('.shard .name').first().innerText(), /个数据块 · \d+ 个文档$/);
  // Back to English: the words change, the session does not.
  await el.evaluate((node) => node.setAttribute('lang', 'en'));
  await el.getByText('step 4 of 4').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
