// ShardLab's engine worker: a dedicated module worker that owns every session. It loads
// the engine (wasm-bindgen's glue beside it), then hands each message to
// `WorkerEngine.handle` and posts back what it returns: the answer first, then the events
// (ARCHITECTURE.md, "One engine, many views"). Messages that arrive while the engine loads
// wait in order. A trap in the engine throws out of `handle`; the page sees the worker's
// error event and starts a new worker from the saved scenario.
//
// The wasm download starts at once, beside the glue's, rather than after the glue has
// loaded and asked for it: the glue is imported dynamically so that this script runs first.
const wasm = fetch(new URL('engine_bg.wasm', import.meta.url));

let engine = null;
const waiting = [];

function serve(data) {
  for (const message of engine.handle(data)) self.postMessage(message);
}

self.onmessage = (e) => {
  if (engine) serve(e.data);
  else waiting.push(e.data);
};

import('./engine.js')
  .then(({ default: init, WorkerEngine }) => init({ module_or_path: wasm }).then(() => WorkerEngine))
  .then(
    (WorkerEngine) => {
      engine = new WorkerEngine();
      // The test-only trap, for the end-to-end tests of a dying engine: the page names the
      // worker so when its own address says ?selftest=trap (a name, since the offline
      // service worker serves this script from its cache, without the address's query).
      if (self.name === 'shardlab-engine selftest=trap') engine.armTrap();
      for (const data of waiting.splice(0)) serve(data);
    },
    (err) => {
      // The engine's module could not load (most often the network is away). Thrown from a
      // task of its own, the error reaches the page as the worker's error event before any
      // answer, which tells the page to wait for the network and start a new worker.
      setTimeout(() => { throw new Error(`The engine could not load: ${err}`); });
    },
  );
