// What the panels draw from the engine is the page model's question (web/src/model/asking.rs):
// each panel on screen asks once for each change of what it shows, an answer asks nothing
// more, and what the user types in a panel is asked about as typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openSetup, recordRequests, targetQuery, waitForValue } from './harness.mjs';

const env = suite();

/** The requests of each method among `methods` asked since the `from`th. */
async function askedSince(page, from, methods) {
  const asked = await page.evaluate((n) => window.__asked.slice(n), from);
  return Object.fromEntries(methods.map((m) => [m, asked.filter((a) => a.method === m)]));
}

/** Clicks Step and waits for the timeline to say it is at step `n`. */
async function step(page, n) {
  await page.getByTestId('step').click();
  await page.getByTestId('position').filter({ hasText: new RegExp(`^step ${n} of ${n}$`) }).waitFor();
}

// Methods whose answers follow the cursor: the timeline's log, the settings form's plan, the
// inspector, the insights' charts, the heatmap's grid and the query box's targeting.
const FOLLOW = ['events', 'page.planSetup', 'inspect', 'page.insights', 'heat', 'target'];

test('each panel asks the engine once for each step, an answer asks nothing more, and what is typed is asked as typed', async () => {
  // Tall enough that every panel is in sight: a panel scrolled away asks nothing.
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 4200 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(recordRequests);
  await page.goto(env.server.url);
  await page.getByTestId('summary').waitFor();
  // Every panel in place, its part loaded and its first answer drawn.
  await page.getByTestId('inspector').waitFor();
  await page.getByTestId('heatmap').waitFor();
  await page.getByTestId('analyze-panel').waitFor();
  const start = await page.getByTestId('position').innerText();
  const at = Number(/^step (\d+) of/.exec(start)?.[1] ?? NaN);
  assert.ok(Number.isInteger(at), `the timeline says where it is: ${start}`);
  // Two questions answered settle every earlier one before counting (the heatmap asks
  // once more when it has measured its canvas).
  await targetQuery(page, '{ x: 1 }');
  await targetQuery(page, '{ x: 3 }');
  const before = await page.evaluate(() => window.__asked.length);

  await step(page, at + 1);
  await step(page, at + 2);
  // A question asked after the steps: its answer comes after theirs (the worker answers in
  // order), so anything their answers made the page ask is asked by the time it is drawn.
  await targetQuery(page, '{ x: 2 }');
  const asked = await askedSince(page, before, [...FOLLOW, 'page.workloadFit']);
  for (const method of FOLLOW) {
    const want = method === 'target' ? 3 : 2;
    assert.equal(asked[method].length, want, `${method}: asked once a step${method === 'target' ? ', and once for the filter typed' : ''}, not again for its answer: ${JSON.stringify(asked[method].map((a) => a.params))}`);
  }
  // The workload's check depends on the workload and the key, not on the cursor.
  assert.equal(asked['page.workloadFit'].length, 0, 'the key fit is not asked again for a step');
  assert.deepEqual(asked.target.at(-1).params, { ns: 'test.events', filter: '{ x: 2 }' });

  // A key typed in the settings form is planned as typed: one question, about the draft,
  // and the form says what applying it would do.
  await openSetup(page);
  const typedAt = await page.evaluate(() => window.__asked.length);
  await page.getByTestId('shard-key').fill('{ y: 1 }');
  await waitForValue(page, '[data-testid="shard-key"]', '{ y: 1 }');
  await page.waitForFunction(() => window.__asked.some((a) => a.method === 'page.planSetup' && a.params?.draft?.key === '{ y: 1 }'));
  const plans = (await askedSince(page, typedAt, ['page.planSetup']))['page.planSetup'];
  assert.equal(plans.length, 1, JSON.stringify(plans));
  await page.getByTestId('apply-key').filter({ hasNotText: /Nothing to apply/ }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
