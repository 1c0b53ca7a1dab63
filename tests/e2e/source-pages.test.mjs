// The source documents' commands (tests/source_pages/commands.js), typed into the page's
// console one line at a time, print exactly what the `shardlab` CLI prints for the same
// file (which tests/it/source_pages.rs checks against MongoDB's and mongosh's answers).
// The CLI is the one `cargo test` built (target/debug/shardlab).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { suite, openFresh, screenshot } from './harness.mjs';

const env = suite();
const FILE = 'tests/source_pages/commands.js';
const CLI = 'target/debug/shardlab';

// A syntax error names its place: in the file for the CLI, in the line for the console.
const normalise = (text) => text.replace(/^(SyntaxError: .*) \(\d+:\d+\)$/gm, '$1').trim();

/** The file's statements as a person types them: a line, or the lines of a statement whose
 * brackets are still open (`db.settings.updateOne(` and what follows it), together. */
function statementsOf(text) {
  const out = [];
  let open = 0;
  let pending = [];
  for (const line of text.split('\n')) {
    if (!pending.length && (!line.trim() || line.trim().startsWith('//'))) continue;
    pending.push(line);
    // Brackets outside strings (the files' strings hold none that are unbalanced).
    for (const c of line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '')) {
      if ('([{'.includes(c)) open++;
      if (')]}'.includes(c)) open--;
    }
    if (open <= 0) {
      out.push(pending.join('\n'));
      pending = [];
      open = 0;
    }
  }
  return out;
}

/** Types every statement of `file` into the page's console, as a person would, and checks
 * that the console prints what the CLI prints for the same file. */
async function walk(file, shot) {
  assert.ok(existsSync(CLI), `${CLI} is built by cargo test before the end-to-end tests`);
  const cli = spawnSync('sh', ['-c', `${CLI} ${file} 2>&1`], { encoding: 'utf8' });
  const statements = statementsOf(readFileSync(file, 'utf8'));
  const { page, errors } = await openFresh(env);
  const input = page.getByTestId('console-input');
  const output = page.getByTestId('console-output');
  const before = await output.locator('pre.line').count();
  for (const statement of statements) {
    const echoed = await output.locator('pre.line.in').count();
    await input.fill(statement);
    await input.press('Enter');
    // Each line echoes; the next one is typed once it has.
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="console-output"] pre.line.in').length > n,
      echoed,
    );
  }
  // The last statement's answer (its last line, as the CLI prints it) is there before
  // the output is read.
  const last = cli.stdout.trim().split('\n').pop();
  await page.waitForFunction(
    (last) => [...document.querySelectorAll('[data-testid="console-output"] pre.line')].some((e) => e.textContent.trimEnd().endsWith(last)),
    last,
  );
  const lines = await output.locator('pre.line').evaluateAll(
    (els, from) => els.slice(from).filter((e) => e.classList.contains('out') || e.classList.contains('err')).map((e) => e.textContent),
    before,
  );
  assert.equal(normalise(lines.join('\n')), normalise(cli.stdout));
  await screenshot(page, shot);
  assert.deepEqual(errors, []);
  await page.close();
}

test('source pages: every command of the five documents answers in the console as in the CLI', async () => {
  await walk(FILE, 'source-pages-console');
});

test("the manual's sharding procedures answer in the console as in the CLI", async () => {
  await walk('tests/manual_procedures/commands.js', 'manual-procedures-console');
});
