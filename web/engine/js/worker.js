// ShardLab's engine worker: a dedicated module worker that owns every session. It loads
// the engine (wasm-bindgen's glue beside it), then hands each message to
// `WorkerEngine.handle` and posts back what it returns: the answer first, then the events
// (ARCHITECTURE.md, "One engine, many views"). Messages that arrive while the engine loads
// wait in order. A trap in the engine throws out of `handle`; the page sees the worker's
// error event and starts a new worker from the saved scenario.
//
// The wasm download starts at once, beside the glue's, rather than after the glue has
// loaded and asked for it: the glue is imported dynamically so that this script runs first.
// The worker the page's <head> starts (scripts/build-engine.mjs) is named
// `shardlab-engine wasm-from-page`: the <head> fetched the wasm itself, a round trip
// sooner than this script could, and hands over its body (a stream, or the bytes where a
// stream cannot be handed over) as the first message, or `null` if its fetch failed, when
// this worker fetches it as any other does.
const WASM = new URL('engine_bg.wasm', import.meta.url);
let handedOver = null;
const wasm = self.name === 'shardlab-engine wasm-from-page'
  ? new Promise((resolve) => { handedOver = resolve; })
  : fetch(WASM);

let engine = null;
let glue = null;
const waiting = [];

// The engine's module comes in two parts (scripts/build-engine.mjs): the first answers
// at once, the second (what a first visit does not run: web/engine/src/rest.rs) starts
// loading right after the first answer. A request that needs it before it has loaded
// changes nothing and answers `{wantsPart: true}` alone: the worker loads the part and
// hands the request in again, and the requests after it wait in order (unless it only
// reads, `readsOnly`: a panel's, which then runs once the part is in). Any other request
// that joined a load already under way, which then fails, asks for the part once more, so
// that it is told why only by a load that started after it. If the part
// could not load, the request is handed in again knowing why (each of its statements that
// needs the part fails with the reason, before doing anything), and the reason is
// forgotten after it, so that the next request that needs the part tries again.
let holding = false;
let rest = null;
let answered = false;

function loadRest() {
  rest ??= glue.loadRest().then(
    () => null,
    () => {
      rest = null;
      return globalThis.shardlabPartError ?? 'it did not load';
    },
  );
  return rest;
}

function take(data) {
  if (!engine || holding) {
    waiting.push(data);
    return;
  }
  const out = engine.handle(data);
  if (!out[0]?.wantsPart) {
    post(out);
    return;
  }
  if (out[0].readsOnly) {
    // A panel's request, which only reads its session: it runs once the part is in,
    // reading the session as it is by then, and the requests after it go on meanwhile.
    loadRest().then((why) => runAgain(data, why));
    return;
  }
  holding = true;
  // A statement that needs the part gets a load of its own: if it joined one already under
  // way (the first answer's, or a panel's) that then fails, the part is asked for again
  // before the statement is told why (the host may have come back meanwhile).
  const joined = rest !== null;
  loadRest().then((why) => (why && joined ? loadRest() : why)).then((why) => {
    if (!runAgain(data, why)) return;
    holding = false;
    while (waiting.length > 0 && !holding) take(waiting.shift());
  });
}

// Hands a request that wanted the second part in again, once the part has loaded or could
// not (`why`), and posts its answer. False after a trap in the engine: thrown from a task
// of its own, it reaches the page as the worker's error event, as one thrown from
// `onmessage` does.
function runAgain(data, why) {
  try {
    let again = why ? null : engine.handle(data);
    if (!again || again[0]?.wantsPart) {
      // The part could not load (or loaded without what it should install): the request
      // runs knowing why, and the reason is forgotten after it.
      glue.restFailed(why ?? 'it loaded without the code it holds');
      again = engine.handle(data);
      glue.restFailed(undefined);
    }
    post(again);
    return true;
  } catch (err) {
    setTimeout(() => { throw err; });
    return false;
  }
}

function post(out) {
  if (!answered) {
    answered = true;
    loadRest();
  }
  const order = out[0]?.keep;
  if (!order) {
    for (const message of out) self.postMessage(message);
    return;
  }
  // `page.keep`: the session's saved form goes straight into the page's store, and the
  // answer follows once it is written (or says why the store refused it).
  const rest = out.slice(1);
  keep(order).then(
    () => { for (const message of rest) self.postMessage(message); },
    (err) => {
      rest[0] = engine.notKept(order.request, order.bytes, storeRefused(err));
      for (const message of rest) self.postMessage(message);
    },
  );
}

// The page's saved sessions (web/js/sessions.js keeps the same database: its name, version
// and stores must stay the same there and here). The worker writes a session's scenario
// and the record the page made of it.
let store = null;
function openStore() {
  store ??= new Promise((resolve, reject) => {
    const r = indexedDB.open('shardlab', 1);
    r.onupgradeneeded = () => {
      const db = r.result;
      if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta', { keyPath: 'id' });
      if (!db.objectStoreNames.contains('scenarios')) db.createObjectStore('scenarios', { keyPath: 'id' });
    };
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.onblocked = () => reject(new Error('another tab holds an older ShardLab database open'));
  });
  store.catch(() => { store = null; });
  return store;
}

// The scenario and the page's record of it go in together: a session is never listed
// without its scenario, nor kept without its record.
async function keep({ id, text, record }) {
  const meta = JSON.parse(record);
  if (meta === null || typeof meta !== 'object' || meta.id !== id) throw new Error("the page's record of the session is not one");
  const db = await openStore();
  const tx = db.transaction(['meta', 'scenarios'], 'readwrite');
  tx.objectStore('meta').put(meta);
  tx.objectStore('scenarios').put({ id, text });
  await new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the save was aborted'));
  });
}

function storeRefused(err) {
  if (err?.name === 'QuotaExceededError') return "the browser's storage is full";
  return err?.message || 'the browser refused to store it';
}

self.onmessage = (e) => {
  if (handedOver && e.data !== null && typeof e.data === 'object' && 'engineWasm' in e.data) {
    const body = e.data.engineWasm;
    handedOver(body ? new Response(body, { headers: { 'content-type': 'application/wasm' } }) : fetch(WASM));
    handedOver = null;
    return;
  }
  take(e.data);
};

import('./engine.js')
  .then((module) => module.default({ module_or_path: wasm }).then(() => module))
  .then(
    (module) => {
      glue = module;
      engine = new module.WorkerEngine();
      if (typeof indexedDB !== 'undefined') engine.keepsSessions();
      engine.retriesForParts();
      // The test-only trap, for the end-to-end tests of a dying engine: the page names the
      // worker so when its own address says ?selftest=trap (a name, since the offline
      // service worker serves this script from its cache, without the address's query).
      if (self.name === 'shardlab-engine selftest=trap') engine.armTrap();
      while (waiting.length > 0 && !holding) take(waiting.shift());
    },
    (err) => {
      // The engine's module could not load (most often the network is away). Thrown from a
      // task of its own, the error reaches the page as the worker's error event before any
      // answer, which tells the page to wait for the network and start a new worker.
      setTimeout(() => { throw new Error(`The engine could not load: ${err}`); });
    },
  );
