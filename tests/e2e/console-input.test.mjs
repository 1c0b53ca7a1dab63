// Nothing typed into the console vanishes: commands typed one right after another, as a
// quick typist or a paste of many lines sends them, all run in the order given; a command
// over the engine's limit is not sent, stays in the input, and a notice says the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openFresh, screenshot } from './harness.mjs';

const env = suite();

test('commands typed one right after another all run, in order', async () => {
  const { page, errors } = await openFresh(env);
  const input = page.getByTestId('console-input');
  const n = 40;
  // Each command is filled and entered at once, without waiting for its answer (as a
  // paste of many lines does); before, the answer to one could clear the next from the input.
  for (let i = 1; i <= n; i++) {
    await input.fill(`db.quick.insertOne({_id: ${i}})`);
    await input.press('Enter');
  }
  await input.fill('db.quick.find().sort({_id: -1}).limit(1).toArray()');
  await input.press('Enter');
  await page.getByTestId('console-output').getByText(`[ { _id: ${n} } ]`).waitFor();
  await input.fill('db.quick.countDocuments()');
  await input.press('Enter');
  await page.waitForFunction((n) => {
    const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
    const asked = lines.lastIndexOf('test> db.quick.countDocuments()');
    return asked >= 0 && lines[asked + 1] === String(n);
  }, n);
  // Every command was echoed once, in the order typed.
  const echoed = await page.evaluate(() => [...document.querySelectorAll('[data-testid="console-output"] .line.in')]
    .map((l) => l.textContent).filter((t) => t.includes('db.quick.insertOne')));
  assert.deepEqual(echoed, Array.from({ length: n }, (_, i) => `test> db.quick.insertOne({_id: ${i + 1}})`));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a command over the limit is kept in the input, and a notice says the limit', async () => {
  const { page, errors } = await openFresh(env);
  const input = page.getByTestId('console-input');
  const big = `db.big.insertOne({s: "${'x'.repeat(5 * 1024 * 1024)}"})`;
  await input.fill(big);
  await input.press('Enter');
  const notice = page.getByTestId('notice');
  await notice.getByText(/takes at most 1048576 bytes/).waitFor();
  assert.match(await notice.innerText(), new RegExp(`This command is ${big.length} bytes`));
  assert.equal((await input.inputValue()).length, big.length, 'the command is still in the input');
  // The console still answers.
  await input.fill('db.big.countDocuments()');
  await input.press('Enter');
  await page.waitForFunction(() => {
    const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
    const asked = lines.lastIndexOf('test> db.big.countDocuments()');
    return asked >= 0 && lines[asked + 1] === '0';
  });
  console.log(`screenshot: ${await screenshot(page, 'console-too-large-1440')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a refused import leaves the session exactly as it was, and says so', async () => {
  const { page, errors } = await openFresh(env);
  const input = page.getByTestId('console-input');
  const run = async (command, answer) => {
    await input.fill(command);
    await input.press('Enter');
    await page.waitForFunction(({ command, answer }) => {
      const lines = [...document.querySelectorAll('[data-testid="console-output"] .line')].map((l) => l.textContent);
      const asked = lines.lastIndexOf(`test> ${command}`);
      return asked >= 0 && lines[asked + 1] === answer;
    }, { command, answer });
  };
  for (let i = 1; i <= 3; i++) await run(`db.kept.insertOne({_id: ${i}})`, `{ acknowledged: true, insertedId: ${i} }`);
  const files = {
    binary: { name: 'picture.json', mimeType: 'application/json', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) },
    'too large': { name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(`{"format": "shardlab-scenario", "pad": "${'x'.repeat(5 * 1024 * 1024)}"}`) },
    // Without a byte-order mark (with one, the browser reads the file as UTF-16 and it opens).
    'UTF-16': { name: 'wide.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "shardlab-scenario", "version": 1}', 'utf16le') },
  };
  for (const [what, file] of Object.entries(files)) {
    // Dismissed first, so that the notice waited for is this file's.
    const dismiss = page.getByRole('button', { name: 'Dismiss notice' });
    if (await dismiss.count()) await dismiss.click();
    await page.getByTestId('notice').waitFor({ state: 'detached' });
    const position = await page.getByTestId('position').innerText();
    await page.getByTestId('import-json').setInputFiles(file);
    const notice = page.getByTestId('notice').filter({ hasText: 'Your session is as it was' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /The file could not be imported \(.+\)\. Your session is as it was\./s, what);
    assert.equal(await page.getByTestId('position').innerText(), position, `${what}: the same step`);
    // The same session, in the engine too: its documents are there.
    await run('db.kept.countDocuments()', '3');
  }
  console.log(`screenshot: ${await screenshot(page, 'import-refused-1440')}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('lessons picked one right after another: the page shows the last one chosen, with its own key and workload', async () => {
  const { page, errors } = await openFresh(env);
  const catalog = await page.evaluate(async () => {
    const { ShardLab } = await import('./shardlab.js');
    return (await ShardLab.catalog()).lessons.map((l) => ({ id: l.id, key: l.setup.key, spec: l.workload.spec, total: l.workload.total, batch: l.workload.batch }));
  });
  // As a keyboard user does: the picker focused, Down pressed again and again, each press
  // a lesson opened before the previous one has answered.
  const picker = page.getByLabel('Lesson', { exact: true });
  await picker.focus();
  const presses = 5;
  for (let i = 0; i < presses; i++) await page.keyboard.press('ArrowDown');
  const ids = await picker.evaluate((el) => [...el.options].map((o) => o.value));
  const last = catalog.find((l) => l.id === ids[presses]);
  assert.ok(last, JSON.stringify(ids));
  const plain = (text) => text.replace(/\s/g, '').replace(/"/g, "'");
  await page.waitForFunction((key) => {
    const summary = document.querySelector('[data-testid="summary"]')?.textContent ?? '';
    return summary.replace(/\s/g, '').replace(/"/g, "'").includes(key);
  }, plain(last.key));
  // Every answer for the earlier lessons has come by now (the engine answers in order):
  // the picker, the lesson's text and the workload form are the last lesson's.
  await page.getByTestId('lesson-text').waitFor();
  assert.equal(await picker.inputValue(), last.id);
  assert.equal(await page.getByTestId('total').inputValue(), String(last.total));
  assert.equal(await page.getByTestId('batch').inputValue(), String(last.batch));
  if (!last.spec.trim().startsWith('{')) assert.equal(await page.getByTestId('workload').inputValue(), last.spec);
  assert.ok(plain(await page.getByTestId('summary').innerText()).includes(plain(last.key)));
  assert.deepEqual(errors, []);
  await page.close();
});
