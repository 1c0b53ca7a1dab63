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

test('source pages: every command of the five documents answers in the console as in the CLI', async () => {
  assert.ok(existsSync(CLI), `${CLI} is built by cargo test before the end-to-end tests`);
  const cli = spawnSync('sh', ['-c', `${CLI} ${FILE} 2>&1`], { encoding: 'utf8' });
  const statements = readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('//'));
  const { page, errors } = await openFresh(env);
  const input = page.getByTestId('console-input');
  const output = page.getByTestId('console-output');
  const before = await output.locator('pre.line').count();
  for (const statement of statements) {
    const echoed = await output.locator('pre.line.in').count();
    await input.fill(statement);
    await input.press('Enter');
    // Each statement echoes its input line; the next one is typed once it has run.
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="console-output"] pre.line.in').length > n,
      echoed,
    );
  }
  const lines = await output.locator('pre.line').evaluateAll(
    (els, from) => els.slice(from).filter((e) => e.classList.contains('out') || e.classList.contains('err')).map((e) => e.textContent),
    before,
  );
  assert.equal(normalise(lines.join('\n')), normalise(cli.stdout));
  await screenshot(page, 'source-pages-console');
  assert.deepEqual(errors, []);
});
