// The embedded view driven by its host page over postMessage (web/src/effects/host.rs):
// a handshake that hands over a MessagePort, requests and events on it, height reports on
// request, and messages from origins the address does not name ignored. The host pages
// are served from other origins (other ports), as a documentation site would be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { suite, screenshot } from './harness.mjs';

const env = suite();

/** A host page on an origin of its own that frames `src(origin)` and can drive it. */
async function hostServer(src) {
  let origin = '';
  const html = () => `<!doctype html><meta charset="utf-8"><title>Host</title>
<h1>A documentation page</h1>
<iframe id="f" src="${src(origin)}" style="width: 900px; height: 700px; border: 1px solid #ccc"></iframe>
<script>
  window.events = [];
  window.answers = {};
  window.ready = false;
  window.attempts = 0;
  const frame = document.getElementById('f');
  // Posts the handshake until the frame answers on the port (the frame's app may still be
  // loading); each attempt hands over a new port.
  window.refusals = [];
  window.connect = (version = 3) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => {
      const d = e.data;
      if (d && d.type === 'shardlab:ready') { window.ready = d; window.port = channel.port1; }
      else if (d && 'id' in d) window.answers[d.id] = d;
      else if (d && d.error) window.refusals.push(d);
      else window.events.push(d);
    };
    window.attempts += 1;
    frame.contentWindow.postMessage({ type: 'shardlab:connect', version }, '*', [channel.port2]);
  };
  window.call = (id, method, params, v = 3) => window.port.postMessage({ v, id, method, params });
</script>`;
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return { url: `${origin}/`, close: () => new Promise((r) => server.close(r)) };
}

/** Connects the host page, retrying on each animation frame until the frame is ready. */
async function connect(page) {
  await page.waitForFunction(() => {
    if (!window.ready) window.connect();
    return window.ready;
  }, null, { polling: 250, timeout: 60_000 });
}

/** Sends a request and waits for its answer. */
async function call(page, id, method, params, v = 3) {
  await page.evaluate(([id, method, params, v]) => window.call(id, method, params, v), [id, method, params, v]);
  const answer = await page.waitForFunction((id) => window.answers[id], id);
  return answer.jsonValue();
}

test('a host page drives the embed over a MessagePort: run, state, step events, console lines, height', async () => {
  const script = encodeURIComponent('db.events.insertOne({x: 5})');
  const host = await hostServer((origin) =>
    `${env.server.url}?embed=1&views=cluster,console&origins=${encodeURIComponent(origin)}&script=${script}`);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(host.url);
    const frame = page.frameLocator('#f');
    await frame.getByTestId('embed').waitFor();
    // script= ran once the view was up: its command is in the console.
    await frame.getByTestId('console-output').filter({ hasText: 'insertOne({x: 5})' }).waitFor();
    // views= left out the workload panel.
    assert.equal(await frame.getByTestId('step').count(), 0);
    await connect(page);
    assert.deepEqual(await page.evaluate(() => window.ready), { type: 'shardlab:ready', version: 3, session: 'page' });
    const run = await call(page, 1, 'page.run', { source: 'db.events.insertOne({x: 6})' });
    assert.deepEqual(run, { v: 3, id: 1, method: 'page.run', result: {} });
    await page.waitForFunction(() => window.events.some((e) => e.event === 'console' && e.data.lines.some((l) => /insertedId/.test(l))));
    await page.waitForFunction(() => window.events.some((e) => e.event === 'step' && e.session === 'page' && e.v === 3));
    // The page's state once both inserts are in.
    await page.waitForFunction(async () => {
      window.port.postMessage({ v: 3, id: 2, method: 'page.state' });
      return window.answers[2]?.result?.documents === 2;
    }, null, { polling: 200 });
    assert.equal((await page.evaluate(() => window.answers[2])).result.ns, 'test.events');
    // The engine's own reading methods answer about the frame's session, in the engine's shapes.
    const picture = await call(page, 6, 'frame', { ns: 'test.events' });
    assert.equal(picture.method, 'frame');
    assert.equal(picture.result.shards.reduce((n, s) => n + s.docs, 0), 2);
    const target = await call(page, 7, 'target', { ns: 'test.events', filter: '{x: 5}' });
    assert.deepEqual(Object.keys(target.result).sort(), ['broadcast', 'shards', 'stage']);
    const wrong = await call(page, 3, 'explode', {});
    assert.deepEqual(Object.keys(wrong.error).sort(), ['code', 'codeName', 'message']);
    assert.equal(wrong.error.codeName, 'BadValue');
    assert.match(wrong.error.message, /no method 'explode'/);
    const bad = await call(page, 4, 'page.run', { source: 42 });
    assert.match(bad.error.message, /params\.source/);
    const old = await call(page, 8, 'run', { script: '1' }, 2);
    assert.match(old.error.message, /unsupported protocol version 2: this engine speaks version 3/);
    await call(page, 5, 'page.watchHeight', null);
    await page.waitForFunction(() => window.events.some((e) => e.event === 'height' && e.data.height > 100));
    await screenshot(page, 'iframe-host');
  } finally {
    await page.close();
    await host.close();
  }
});

test('a host page speaking version 1 is told the version is unsupported, and served nothing', async () => {
  const host = await hostServer((origin) => `${env.server.url}?embed=1&origins=${encodeURIComponent(origin)}`);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(host.url);
    await page.frameLocator('#f').getByTestId('embed').waitFor();
    await page.waitForFunction(() => {
      if (window.refusals.length === 0) window.connect(1);
      return window.refusals.length > 0;
    }, null, { polling: 250, timeout: 60_000 });
    const [refusal] = await page.evaluate(() => window.refusals);
    assert.equal(refusal.v, 3);
    assert.equal(refusal.error.code, 2);
    assert.equal(refusal.error.codeName, 'BadValue');
    assert.match(refusal.error.message, /unsupported protocol version 1: this engine speaks version 3/);
    assert.equal(await page.evaluate(() => window.ready), false);
  } finally {
    await page.close();
    await host.close();
  }
});

test('a host page on an origin the address does not name is ignored', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 800 } });
  // The embed names another origin; this host page's handshakes go unanswered.
  const host = await hostServer(() => `${env.server.url}?embed=1&origins=${encodeURIComponent('https://docs.example.org')}`);
  try {
    await page.goto(host.url);
    const frame = page.frameLocator('#f');
    await frame.getByTestId('summary').waitFor();
    // Twenty handshakes, one per animation frame, once the view is up: none answered.
    await page.waitForFunction(() => {
      window.connect();
      return window.attempts >= 20;
    }, null, { polling: 'raf' });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.evaluate(() => window.ready), false);
    assert.deepEqual(await page.evaluate(() => window.events), []);
  } finally {
    await host.close();
    await page.close();
  }
});

test('the examples page loads the iframe on a click and drives it', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1200, height: 900 } });
  try {
    await page.goto(`${env.server.url}examples.html`);
    assert.equal(await page.locator('#frame').getAttribute('src'), null, 'nothing loads before the click');
    await page.locator('#frame-load').click();
    await page.locator('#frame-insert:not([disabled])').waitFor({ timeout: 60_000 });
    await page.locator('#frame-insert').click();
    await page.locator('#frame-log').filter({ hasText: 'insertedId' }).waitFor();
    // The step event is a message of its own, logged when it arrives.
    await page.locator('#frame-log').filter({ hasText: /step \d+ of \d+/ }).waitFor();
    assert.match(await page.locator('#frame-log').innerText(), /step \d+ of \d+/);
  } finally {
    await page.close();
  }
});
