// ShardLab's engine as a JavaScript module (ARCHITECTURE.md, "The JavaScript module"): a
// thin promise API over the engine's protocol. Every rule lives in the engine; this file
// only sends requests, matches answers to them and hands events to listeners.
//
// In a browser every session on the page shares one module Web Worker, the engine worker
// the playground runs (`worker.js` beside the engine); where a page may not start one, and
// in Node, the engine runs in the same thread. Nothing touches the DOM at import time.
//
// The engine's directory is resolved from this file's own address, so the module works
// from any path and from a page on another origin. The build writes the directory's name.
const ENGINE_DIR = './engine/';
// The package's version, written by the build from the workspace's Cargo.toml.
const VERSION = '0.0.0-dev';

const PROTOCOL = 3;
// The code names of a request the engine could not answer, the same as the page's client's
// (web/src/platform/engine_client.rs): it stopped under the request (the next one starts a
// new engine), or it could not load at all.
const ENGINE_RESTARTED = 'EngineRestarted';
const ENGINE_LOAD_FAILED = 'EngineLoadFailed';
// The slices an import sends the engine: a mebibyte, the protocol's bound on one.
const IMPORT_SLICE = 1 << 20;
const DISPOSE = Symbol.dispose ?? Symbol.for('Symbol.dispose');
const inNode = typeof process === 'object' && !!process.versions?.node;

/** An error the engine answered with (a request it refused), or misuse of the API. */
export class ShardLabError extends Error {
  constructor(codeName, message, code = 2) {
    super(message);
    this.name = 'ShardLabError';
    this.code = code;
    this.codeName = codeName;
  }
}

/** The one engine of this module's copy on this page: a worker, or the engine in-thread. */
class Host {
  constructor(base) {
    this.base = base;
    this.next = 1;
    this.pending = new Map();
    this.listeners = new Map();
    this.worker = null;
    this.local = null;
    this.mode = null;
    this.note = null;
    this.workerBlocked = false;
    this.answered = false;
    this.unanswered = [];
    this.catalog = null;
  }

  /** Sends one request (about `session`, the handle `open` answered with, or none);
   * resolves with its result, rejects with the engine's error. */
  request(session, method, params) {
    const id = this.next++;
    const message = { v: PROTOCOL, id, method };
    if (session !== undefined) message.session = session;
    if (params !== undefined) message.params = params;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.send(message);
      } catch (err) {
        this.pending.delete(id);
        reject(err);
      }
    });
  }

  send(message) {
    if (this.worker) {
      if (!this.answered) this.unanswered.push(message);
      return this.worker.postMessage(message);
    }
    if (!this.local && !this.workerBlocked && !inNode && typeof Worker === 'function') {
      try {
        this.worker = this.startWorker();
        this.answered = false;
        this.unanswered = [message];
        this.mode = 'worker';
        return this.worker.postMessage(message);
      } catch (err) {
        // A Content Security Policy that forbids workers throws here in some browsers.
        this.inPage(err);
      }
    }
    this.runLocal(message);
  }

  /** Workers are forbidden on this page (or the worker could not start): the engine runs
   * in the page from now on, and says so once. */
  inPage(why) {
    this.workerBlocked = true;
    this.worker = null;
    this.mode = 'page';
    this.note = "ShardLab: the engine's Web Worker could not start (a Content-Security-Policy without worker-src for it, or a blocked script), so the engine runs in the page itself";
    globalThis.console?.warn?.(`${this.note}: ${why?.message ?? why}`);
  }

  runLocal(message) {
    this.mode = 'page';
    this.local ??= this.loadLocal();
    this.local.then(
      (engine) => {
        let out;
        try {
          out = engine.handle(message);
        } catch (err) {
          // A trap leaves the engine unusable: the next request loads a new one.
          this.local = null;
          return this.fail(`the engine stopped: ${err?.message ?? err}`);
        }
        for (const m of out) this.receive(m);
      },
      (err) => {
        this.local = null;
        this.fail(loadFailure(err), ENGINE_LOAD_FAILED);
      },
    );
  }

  startWorker() {
    const url = new URL('worker.js', this.base);
    // A worker's script must be of the page's origin: from another, a module of the page's
    // origin imports it (the host must then send CORS headers, as for any module).
    const sameOrigin = typeof location === 'object' && url.origin === location.origin;
    const script = sameOrigin ? url : URL.createObjectURL(
      new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' }));
    const worker = new Worker(script, { type: 'module', name: 'shardlab-engine' });
    worker.onmessage = (e) => {
      this.answered = true;
      this.unanswered = [];
      this.receive(e.data);
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      worker.terminate();
      if (this.worker !== worker) return;
      this.worker = null;
      if (!this.answered) {
        // The worker never answered: a policy that forbids workers (some browsers report
        // it by this event rather than a throw), or one that forbids WebAssembly in it.
        // Try the engine in the page with what the worker was sent; if that fails too,
        // the requests fail with the reason.
        const resend = this.unanswered;
        this.unanswered = [];
        this.inPage(e.message ?? 'its worker did not start');
        for (const m of resend) this.runLocal(m);
        return;
      }
      this.fail(`the engine stopped: ${e.message ?? 'its worker failed'}`);
    };
    return worker;
  }

  async loadLocal() {
    const glue = await import(new URL('engine.js', this.base).href);
    const wasm = new URL('engine_bg.wasm', this.base);
    if (inNode) {
      const fs = 'node:fs/promises';
      const { readFile } = await import(/* @vite-ignore */ fs);
      glue.initSync({ module: await readFile(wasm) });
    } else {
      await glue.default({ module_or_path: wasm });
    }
    // The engine's second part (what a first visit does not run: web/engine/src/rest.rs)
    // before the first request: here there is no queue to hold a request that needs it
    // while it loads, as the worker holds one. If it cannot load, the engine still
    // answers, and refuses such a statement before it does anything.
    await glue.loadRest().catch(() => {});
    return new glue.WorkerEngine();
  }

  /** One message from the engine: an answer, or an event for a session's listeners. */
  receive(m) {
    if (m && typeof m.id === 'number' && !('event' in m)) {
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      if (m.error) {
        waiting.reject(new ShardLabError(m.error.codeName, m.error.message, m.error.code));
      } else {
        // The result is the method's own shape; a method without one (close) has none.
        waiting.resolve(m.result ?? {});
      }
    } else if (m && typeof m.event === 'string') {
      if (m.session === '' && m.event === 'notice') return this.fail(m.data?.text ?? 'the engine failed');
      for (const listener of this.listeners.get(m.session) ?? []) listener(m.event, m.data);
    }
  }

  /** Fails every request in flight (the engine stopped or could not start). */
  fail(why, codeName = ENGINE_RESTARTED) {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    // Code 1 (InternalError), as the page's client names the same failures.
    for (const w of waiting) w.reject(new ShardLabError(codeName, why, 1));
  }
}

const engineBase = new URL(ENGINE_DIR, import.meta.url);
const site = new URL('./', import.meta.url);

/** Why the engine could not load, in a sentence a host page's author can act on. */
function loadFailure(err) {
  const text = String(err?.message ?? err);
  if (/WebAssembly|wasm/i.test(text) && /Content.Security.Policy|CSP|unsafe-eval|not allowed/i.test(text)) {
    return "ShardLab's engine is WebAssembly, which this page's Content-Security-Policy forbids: "
      + "add 'wasm-unsafe-eval' to its script-src (" + text + ')';
  }
  return `the engine could not load: ${text}`;
}

/** An event row with its message as `{id, args}`: the wire lists the arguments as
 * name/value pairs, each value a string or a message of its own; here they are an object. */
function plainMessage(m) {
  if (!m || typeof m !== 'object') return null;
  const args = {};
  for (const [name, value] of Array.isArray(m.args) ? m.args : []) {
    args[name] = value && typeof value === 'object' ? plainMessage(value) : value;
  }
  return { id: String(m.id), args };
}

function plainEvent(row) {
  return { seq: row.seq, kind: row.kind, text: row.text, step: row.step ?? null, message: plainMessage(row.message) };
}

/** This page's one engine for this module's build, shared by every copy of the module. */
function host() {
  const key = Symbol.for(`shardlab.engine ${engineBase.href}`);
  globalThis[key] ??= new Host(engineBase);
  return globalThis[key];
}

/** A heatmap's cells from the bytes they cross the worker boundary in (four little-endian
 * bytes per number, one typed array), as the plain numbers this module promises. */
function floats(bytes) {
  if (!(bytes instanceof Uint8Array)) return Array.isArray(bytes) ? bytes : [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array(bytes.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** A caller's mistake, as the engine names a bad argument (BadValue, 2). */
/** `{column: 'int64()'}` as the protocol's list of `{name, type}`. */
function columnTypes(chosen) {
  if (chosen === undefined || chosen === null) return [];
  if (typeof chosen !== 'object' || Array.isArray(chosen)) throw misuse('columnTypes: an object of column names to types, such as {zip: "string()"}');
  return Object.entries(chosen).map(([name, type]) => ({ name, type: String(type) }));
}

function misuse(message) {
  return new ShardLabError('BadValue', message, 2);
}

/** A Blob's text, inflated first when its name ends in `.gz` (where DecompressionStream exists). */
async function blobText(blob) {
  if (/\.gz$/i.test(blob.name ?? '') && typeof DecompressionStream === 'function') {
    return await new Response(blob.stream().pipeThrough(new DecompressionStream('gzip'))).text();
  }
  return await blob.text();
}

/**
 * A query sample as the protocol's text: a string as it is, bytes decoded as UTF-8, a
 * Blob read (inflated when its name ends in `.gz`); `undefined` when none was given,
 * `null` for anything else.
 */
async function sampleText(queries) {
  if (queries === undefined || queries === null) return undefined;
  if (typeof queries === 'string') return queries;
  if (queries instanceof Uint8Array || queries instanceof ArrayBuffer) return new TextDecoder().decode(queries);
  if (typeof Blob === 'function' && queries instanceof Blob) return await blobText(queries);
  return null;
}

function describe(v) {
  const text = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** One session of the engine: a cluster, its timeline and its event log. */
export class Session {
  #host;
  #name;
  #disposed = false;
  #listeners = new Map();
  #unlisten;

  constructor(hostEngine, name) {
    this.#host = hostEngine;
    this.#name = name;
    const forward = (event, data) => this.#emit(event, data);
    let set = hostEngine.listeners.get(name);
    if (!set) hostEngine.listeners.set(name, (set = new Set()));
    set.add(forward);
    this.#unlisten = () => set.delete(forward);
  }

  /** The session's handle, as the engine named it when it opened it. */
  get name() {
    return this.#name;
  }

  /** Whether `dispose` was called. */
  get disposed() {
    return this.#disposed;
  }

  #call(method, params) {
    if (this.#disposed) {
      return Promise.reject(new ShardLabError('NoSuchSession', `session ${this.#name} was disposed`, 206));
    }
    return this.#host.request(this.#name, method, params);
  }

  #emit(event, data) {
    for (const cb of [...(this.#listeners.get(event) ?? [])]) {
      try {
        cb(data);
      } catch (err) {
        // A listener's mistake is its own: the others still hear the event.
        queueMicrotask(() => { throw err; });
      }
    }
  }

  /** Runs a script as the session's next step (`each`: a step per statement): one entry per statement. */
  async run(script, options = {}) {
    if (typeof script !== 'string') throw new TypeError('run(script): the script is a string');
    const r = await this.#call('run', { source: script, each: options.each === true });
    this.#emit('run', { statements: r.statements, position: r.position });
    return r.statements;
  }

  /** Moves the cursor `by` steps (back when negative); resolves with the cursor. */
  async step(by = 1) {
    if (!Number.isSafeInteger(by)) throw misuse(`step(by): by is a whole number of steps, not ${describe(by)}`);
    return await this.#call('step', { by });
  }

  /** Moves the cursor to step `to` (0: before any step); resolves with the cursor. */
  async goto(to) {
    if (!Number.isSafeInteger(to) || to < 0) throw misuse(`goto(to): to is a step number, 0 or more, not ${describe(to)}`);
    return await this.#call('jump', { to });
  }

  /** A collection's chunks, shards and zones (the collection last touched when absent). */
  async cluster(ns) {
    return await this.#call('frame', ns === undefined ? { whole: true } : { ns: String(ns), whole: true });
  }

  /** The cluster's event log after event `since` (a `seq`), oldest first (at most 100). */
  async events(since = 0, options = {}) {
    const ns = String(options.ns ?? '');
    const { rows } = await this.#call('events', { ns });
    return rows.filter((r) => r.seq > since).reverse().map(plainEvent);
  }

  /** analyzeShardKey of a candidate key, on a copy of the session. */
  async analyze(ns, key) {
    const text = typeof key === 'string' ? key : JSON.stringify(key);
    return await this.#call('analyze', { ns: String(ns), key: String(text) });
  }

  /**
   * Candidate shard keys ranked on a collection's documents at the cursor (read in the
   * order they were inserted, each candidate replayed into a cluster of its own); the
   * session is only read. `options.keys` lists the candidates (strings in the shell's
   * syntax, or objects); without them the engine proposes them from the documents' fields.
   * Each reason's `args` (and `why`'s) is an object here, as `events` gives a message's.
   * `options.queries` is a query sample (text, bytes or a Blob of bare filters or
   * `config.sampledQueries` documents, one a line or a JSON array): each candidate then
   * gets analyzeShardKey's `readDistribution` and `writeDistribution`; `options.queriesNs`
   * keeps one collection's sampled queries when the sample holds several.
   */
  async rank(ns, options = {}) {
    if (typeof ns !== 'string') throw misuse('rank(ns, options): ns names the collection, such as "test.events"');
    if (options.keys !== undefined && !Array.isArray(options.keys)) throw misuse('rank(ns, {keys}): keys is an array of shard key patterns, such as ["{x: 1}"]');
    const queries = await sampleText(options.queries);
    if (queries === null) throw misuse('rank(ns, {queries}): queries is a string, bytes or a Blob of filters or config.sampledQueries documents');
    const params = { ns };
    if (options.keys !== undefined) params.keys = options.keys.map((k) => (typeof k === 'string' ? k : JSON.stringify(k)));
    if (options.shards !== undefined) params.shards = options.shards;
    if (options.version !== undefined) params.version = String(options.version);
    if (options.sortBy !== undefined) params.sortBy = String(options.sortBy);
    if (options.chunkSizeMB !== undefined) params.chunkSizeMB = options.chunkSizeMB;
    if (queries !== undefined) params.queries = queries;
    if (options.queriesNs !== undefined) params.queriesNs = String(options.queriesNs);
    const r = await this.#call('rank', params);
    const args = (list) => plainMessage({ id: '', args: list }).args;
    return {
      ...r,
      candidates: r.candidates.map((c) => ({
        ...c,
        why: { ...c.why, args: args(c.why.args) },
        reasons: c.reasons.map((reason) => ({ ...reason, args: args(reason.args) })),
      })),
    };
  }

  /** The key-space heatmap of a collection: inserts per key range (rows) per stretch of steps (columns). */
  async heat(ns, options = {}) {
    const rows = Math.trunc(Number(options.rows ?? 32)) || 32;
    const columns = Math.trunc(Number(options.columns ?? 48)) || 48;
    const heat = await this.#call('heat', { ns: String(ns), rows, columns });
    return { ...heat, cells: floats(heat.cells) };
  }

  /** What the inspector shows: a chunk (by its `key` handle or a point of the key bar), a shard, the next balancer round, or the latest insert. */
  async inspect(ns, subject = { kind: 'nothing' }) {
    return await this.#call('inspect', { ns: String(ns), subject });
  }

  /** One workload on several shard keys in lockstep (the Compare tab's run), a row per key; independent of this session's cluster. */
  async compare(spec) {
    const { rows } = await this.#call('compare', spec);
    return rows;
  }

  /**
   * Imports the user's own documents as mongoimport reads them (mongoexport's JSON lines,
   * a JSON array, CSV with a header, or a .gz of one), a slice at a time, into `options.ns`
   * as one step: `data` is a string, bytes, or a Blob/File. Listeners of `import` hear the
   * progress after each slice and, once the file is read, as its documents go in
   * (`inserted` so far, `done: false`); resolves with what went in and, by line, what did not.
   */
  async import(data, options = {}) {
    if (typeof options.ns !== 'string') throw misuse('import(data, {ns}): ns names the collection, such as "test.events"');
    const blob = data instanceof Uint8Array || data instanceof ArrayBuffer || typeof data === 'string'
      ? null : (typeof Blob === 'function' && data instanceof Blob ? data : undefined);
    if (blob === undefined) throw misuse('import(data): data is a string, bytes or a Blob');
    const bytes = blob ? null : (typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data));
    const size = blob ? blob.size : bytes.byteLength;
    await this.#call('import', {
      kind: 'begin',
      ns: options.ns,
      fileName: options.fileName ?? (typeof data?.name === 'string' ? data.name : undefined),
      format: options.type,
      columnsHaveTypes: options.columnsHaveTypes === true,
      ignoreBlanks: options.ignoreBlanks === true,
      sortBy: options.sortBy,
      columnTypes: columnTypes(options.columnTypes),
    });
    try {
      for (let at = 0; at < size; at += IMPORT_SLICE) {
        const slice = blob
          ? new Uint8Array(await blob.slice(at, at + IMPORT_SLICE).arrayBuffer())
          : bytes.subarray(at, at + IMPORT_SLICE);
        const progress = await this.#call('import', { kind: 'slice', bytes: slice });
        this.#emit('import', { ...progress, total: size });
      }
      // The documents go in a few batches an `end`; each answer but the last says how
      // many so far.
      for (;;) {
        const answer = await this.#call('import', { kind: 'end' });
        this.#emit('import', { ...answer, total: size });
        if (answer.done) return answer;
      }
    } catch (err) {
      await this.#call('import', { kind: 'cancel' }).catch(() => {});
      throw err;
    }
  }

  /**
   * What a file's first bytes show, importing nothing: its format, CSV columns with their
   * types, and the fields its first documents hold (to choose `sortBy` or `columnTypes`).
   */
  async previewImport(data, options = {}) {
    const blob = typeof Blob === 'function' && data instanceof Blob ? data : null;
    if (!blob && !(data instanceof Uint8Array || data instanceof ArrayBuffer || typeof data === 'string')) {
      throw misuse('previewImport(data): data is a string, bytes or a Blob');
    }
    const all = blob ? null : (typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data));
    const size = blob ? blob.size : all.byteLength;
    const bytes = blob
      ? new Uint8Array(await blob.slice(0, IMPORT_SLICE).arrayBuffer())
      : all.subarray(0, IMPORT_SLICE);
    const { preview } = await this.#call('import', {
      kind: 'preview',
      bytes,
      complete: size <= IMPORT_SLICE,
      fileName: options.fileName ?? (typeof data?.name === 'string' ? data.name : undefined),
      format: options.type,
      columnsHaveTypes: options.columnsHaveTypes === true,
      columnTypes: columnTypes(options.columnTypes),
    });
    return preview;
  }

  /**
   * Makes this session a real cluster's, from its config exports: mongoexport's (or
   * bsondump's) JSON of config.shards, databases, collections, chunks, tags and changelog,
   * each a File/Blob named for its collection (`chunks.json`, `config.chunks.json`,
   * `chunks.bson.json`; a `.gz` one is inflated) or `{name, text}`. The session becomes a
   * new session of the metadata's version: its first step loads the cluster as it was
   * before its changelog, each later step replays one chunk change. Resolves with what
   * was loaded; rejects (`BadValue`, naming the file and line) and leaves the session as
   * it was when the metadata is refused.
   */
  async importCluster(files) {
    if (files === null || typeof files !== 'object' || typeof files[Symbol.iterator] !== 'function') {
      throw misuse('importCluster(files): files is an array of Files or {name, text} objects');
    }
    const list = [...files];
    for (const f of list) {
      const blob = typeof Blob === 'function' && f instanceof Blob;
      if (typeof f?.name !== 'string' || (!blob && typeof f.text !== 'string')) {
        throw misuse(`importCluster(files): each file is a File or {name, text} named for its collection, such as "chunks.json", not ${describe(f?.name ?? f)}`);
      }
    }
    // Files past the engine's bound are refused before they are read (texts, the engine
    // counts in UTF-8 bytes).
    const { limits } = await catalog();
    const size = list.reduce((n, f) => n + (typeof f.text === 'string' ? 0 : f.size), 0);
    if (size > limits.maxClusterImportBytes) {
      throw misuse(`the config exports are ${size} bytes together, over importCluster's limit of ${limits.maxClusterImportBytes >> 20} MiB (${limits.maxClusterImportBytes} bytes)`);
    }
    const sent = [];
    for (const f of list) sent.push({ name: f.name, text: typeof f.text === 'string' ? f.text : await blobText(f) });
    return await this.#call('importCluster', { files: sent });
  }

  /** A link that opens this session in the ShardLab site beside this module. */
  async toLink(options = {}) {
    const { text } = await this.#call('scenario', { page: [], json: false });
    return new URL(`./#s=${text}`, options.site ?? site).href;
  }

  /** The session's commands up to the cursor as a mongosh script for a real cluster. */
  async toMongosh() {
    const { text } = await this.#call('export');
    return text;
  }

  /** Calls `callback` with each `event`'s data; returns the function that stops it. */
  on(event, callback) {
    if (typeof callback !== 'function') throw new TypeError('on(event, callback): the callback is a function');
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(callback);
    return () => set.delete(callback);
  }

  /** Ends the session and frees what the engine holds for it. Calling it again does nothing. */
  dispose() {
    if (this.#disposed) return;
    this.#host.request(this.#name, 'close').catch(() => {});
    this.#disposed = true;
    this.#listeners.clear();
    this.#unlisten();
  }

  [DISPOSE]() {
    this.dispose();
  }
}

/** Opens a session: a new cluster (`shards`, `version`, `seed`, `chunkSize`), a link's scenario or a lesson's cluster. */
async function session(options = {}) {
  const h = host();
  let start;
  if (options.scenario !== undefined) start = { kind: 'scenario', text: String(options.scenario) };
  else if (options.lesson !== undefined) start = { kind: 'lesson', id: String(options.lesson) };
  else {
    // The defaults are the engine's (its catalogue), the same for every view.
    const { defaults } = await catalog();
    start = {
      kind: 'config',
      shards: options.shards ?? defaults.shards,
      version: String(options.version ?? defaults.version),
      chunkSize: options.chunkSize,
      seed: options.seed ?? defaults.seed,
    };
  }
  // The engine names the session: its handle is in the answer.
  const { session: handle } = await h.request(undefined, 'open', start);
  return new Session(h, handle);
}

/** The engine's protocol version and methods (the catalogue's `protocol` and `methods`). */
async function hello() {
  const { protocol, methods } = await catalog();
  return { version: protocol, methods };
}

/**
 * What the engine knows and allows: the lessons (with their workloads as statements), the
 * workloads, the versions, the limits, the defaults, the shard palette and the languages.
 * Every view takes these from here rather than keeping copies. Asked once a page.
 */
function catalog() {
  const h = host();
  h.catalog ??= h.request(undefined, 'catalog').catch((err) => {
    h.catalog = null;
    throw err;
  });
  return h.catalog;
}

/** Where the engine runs: `'worker'`, `'page'` (workers forbidden here), or `null` before it started. */
function engine() {
  const h = host();
  return { mode: h.mode, note: h.note };
}

export const ShardLab = { session, hello, catalog, engine, Session, ShardLabError, protocol: PROTOCOL, version: VERSION };
export default ShardLab;
