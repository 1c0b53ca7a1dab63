// <shard-lab>: a ShardLab figure for documentation pages (ARCHITECTURE.md, "The
// <shard-lab> element"). The mongosh script lives inside the element (as text, in a
// <script type="text/mongosh"> or a <pre> child, or at `src=`); the element runs it in the engine of
// the JavaScript module (shardlab.js beside it: one engine for every element on the
// page, a session each), one step per statement, and draws the cluster and the console
// in its shadow DOM with plain DOM code. It never loads the playground's page.
//
// Every value from the page (attributes, the script, `run`'s argument) is checked here
// or by the engine; text is only ever set as text, never as markup. It touches no DOM at
// import time, so a static-site renderer may import it; `define` is guarded.
import { ShardLab } from './shardlab.js';

const VIEWS = ['cluster', 'keybar', 'console', 'timeline', 'heatmap', 'inspector', 'compare'];
const COMPARE_WORKLOADS = ['monotonic', 'decreasing', 'uniform'];
const PALETTE = ['#2f81f7', '#d97706', '#16a34a', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];
const HEAT_ROWS = 32;
const HEAT_COLUMNS = 48;
const THEMES = ['auto', 'light', 'dark'];
const LOADINGS = ['lazy', 'eager', 'click'];
const VERSIONS = ['3.6', '5.0', '8.0'];
const LENGTH = /^\d{1,5}(\.\d{1,3})?(px|rem|em|vh|%)$/;
const LANG = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8}){0,3}$/;
const NAME = /^[a-z0-9-]{1,64}$/;
const MAX_SCRIPT = 1 << 20;
const PLAY_EVERY_MS = 700;
const Base = globalThis.HTMLElement ?? class {};

// The element's words in English, keys of the playground's catalogue (static/i18n/en.json,
// which tests/it/i18n_catalogues.rs holds these to). With `lang` naming another language
// the page has, its catalogue beside this module (i18n/<tag>.json) supplies them.
const WORDS = {
  'element.loading': 'Loading…',
  'element.step_n_of_total': 'step {n} of {total}',
  'element.no_collection_yet': 'no collection yet',
  'element.key_space_of': 'key space of {ns}: {chunks}',
  'element.command_label': 'mongosh command',
  'element.command_placeholder': 'type a command, Enter runs it',
  'element.play': 'Play',
  'element.pause': 'Pause',
  'element.back': 'Back',
  'element.step': 'Step',
  'element.reset': 'Reset',
  'element.run': 'Run',
  'element.run_to_start': 'Run to start',
  'element.not_loaded': 'Not loaded yet',
  'element.why_shard': 'Why does {shard} hold this?',
  'element.chunk_on_shard': 'chunk {chunk} on {shard}',
  'element.heatmap_unsharded': 'The heatmap appears once the collection is sharded.',
  'element.heatmap_label': 'inserts by key range over {steps}: {pattern}',
  'element.inspector': 'inspector',
  'element.inspector_unsharded': 'The inspector explains chunks once the collection is sharded.',
  'element.inspector_hint': 'Click a chunk or a shard to see why it is where it is.',
  'element.balancer_why': 'Balancer: why?',
  'element.on_shard': 'on {shard} · {docs}',
  'element.latest_insert': 'The latest insert, {key}, went to {shard}: {why}',
  'element.comparison': 'comparison',
  'element.compare_key': 'key',
  'element.compare_inserts': 'inserts per shard',
  'element.compare_busiest': 'busiest shard',
  'element.compare_one_shard': 'one-shard queries',
  'element.compare_all_shards': 'all-shard queries',
  'element.compare_jumbo': 'jumbo',
  'words.chunk.one': '{n} chunk',
  'words.chunk.other': '{n} chunks',
  'words.doc.one': '{n} doc',
  'words.doc.other': '{n} docs',
  'words.document.one': '{n} document',
  'words.document.other': '{n} documents',
  'words.step.one': '{n} step',
  'words.step.other': '{n} steps',
};
/** The catalogue tag for a `lang` value, if the playground has that language. */
const catalogueTag = (lang) => {
  const l = (lang ?? '').toLowerCase();
  return /^zh(-hans|-cn|-sg)?(-|$)/.test(l) ? 'zh-CN' : null;
};
const catalogues = new Map();
/** A language's words (fetched once for every element of the page); English if it fails. */
function wordsIn(tag) {
  if (!tag) return Promise.resolve(WORDS);
  if (!catalogues.has(tag)) {
    catalogues.set(tag, fetch(new URL(`i18n/${tag}.json`, import.meta.url))
      .then((r) => (r.ok ? r.json() : {}))
      .then((all) => Object.fromEntries(Object.keys(WORDS).map((k) => [k, typeof all[k] === 'string' && all[k] ? all[k] : WORDS[k]])))
      .catch(() => WORDS));
  }
  return catalogues.get(tag);
}
const fill = (text, args) => text.replace(/\{(\w+)\}/g, (m, name) => (name in args ? String(args[name]) : m));

const STYLE = `
:host { display: block; contain: content; font: 14px/1.4 var(--shardlab-font, system-ui, sans-serif); }
:host([hidden]) { display: none; }
.frame { --bg: var(--shardlab-bg, #ffffff); --fg: var(--shardlab-fg, #1d2330); --muted: var(--shardlab-muted, #5b6474);
  --border: var(--shardlab-border, #d6dbe4); --accent: var(--shardlab-accent, #0a6e4f); --error: var(--shardlab-error, #b3261e);
  background: var(--bg); color: var(--fg); border: 1px solid var(--border); border-radius: var(--shardlab-radius, 10px);
  height: 360px; box-sizing: border-box; display: flex; flex-direction: column; overflow: hidden; }
.frame[data-theme="dark"] { --bg: var(--shardlab-bg-dark, #161b22); --fg: var(--shardlab-fg-dark, #e6edf3); --muted: var(--shardlab-muted-dark, #9aa4b2);
  --border: var(--shardlab-border-dark, #30363d); --accent: var(--shardlab-accent-dark, #3fb950); --error: var(--shardlab-error-dark, #ff7b72); }
.head { display: flex; gap: 8px; align-items: center; padding: 6px 10px; border-bottom: 1px solid var(--border); }
.head .label { font-weight: 600; flex: 1; }
.status { color: var(--muted); font-size: 12px; }
.body { flex: 1; overflow: auto; padding: 8px 10px; display: flex; flex-direction: column; gap: 8px; }
.cluster { display: flex; gap: 8px; flex-wrap: wrap; }
.shard { flex: 1 1 120px; border: 1px solid var(--border); border-radius: 6px; padding: 4px 6px; min-width: 100px; }
.shard .name { font-size: 12px; color: var(--muted); }
.chunks { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 4px; min-height: 14px; }
.chunk { height: 14px; min-width: 14px; border-radius: 3px; background: var(--shard-color); opacity: .85; }
.chunk.jumbo { outline: 2px solid var(--error); }
.keybar { display: flex; height: 14px; border-radius: 4px; overflow: hidden; border: 1px solid var(--border); }
.keybar > span { background: var(--shard-color); border-right: 1px solid var(--bg); }
.console { font: 12px/1.45 var(--shardlab-mono, ui-monospace, monospace); white-space: pre-wrap; margin: 0; }
.console .error { color: var(--error); }
.console .input { color: var(--muted); }
.controls { display: flex; gap: 6px; align-items: center; padding: 6px 10px; border-top: 1px solid var(--border); }
button { font: inherit; font-size: 12px; padding: 2px 10px; border-radius: 6px; border: 1px solid var(--border);
  background: var(--bg); color: var(--fg); cursor: pointer; }
button:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
input { font: 12px var(--shardlab-mono, ui-monospace, monospace); flex: 1; background: var(--bg); color: var(--fg);
  border: 1px solid var(--border); border-radius: 6px; padding: 2px 6px; }
.poster pre { font: 12px/1.45 var(--shardlab-mono, ui-monospace, monospace); margin: 0; white-space: pre-wrap; color: var(--muted); }
.problem { color: var(--error); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
button.chunk { border: 0; padding: 0; width: 14px; }
button.chunk:hover { opacity: 1; outline: 2px solid var(--fg); }
button.link { border: 0; padding: 0; background: none; text-align: left; color: var(--muted); font-size: 12px; }
button.link:hover { color: var(--fg); text-decoration: underline; }
.heatmap { margin: 0; }
.heatmap canvas { width: 100%; height: 140px; border: 1px solid var(--border); border-radius: 4px; image-rendering: pixelated; display: block; }
.inspector { border: 1px solid var(--border); border-radius: 6px; padding: 6px 8px; font-size: 13px; }
.inspector p { margin: 0 0 4px; }
.inspector .mono, .inspector code { font: 12px var(--shardlab-mono, ui-monospace, monospace); }
.row { display: flex; gap: 6px; }
.compare { overflow-x: auto; }
.compare table { border-collapse: collapse; font-size: 12px; width: 100%; }
.compare th, .compare td { border-bottom: 1px solid var(--border); padding: 3px 6px; text-align: left; vertical-align: top; }
${PALETTE.map((c, i) => `[data-shard="${i}"] { --shard-color: var(--shardlab-shard-${i}, ${c}); }`).join('\n')}
`;

function percent(share) {
  return `${Math.round(share * 100)}%`;
}

/** Paints a heatmap's cells, tinted by the shard owning each row, with the chunk bounds as lines. */
function paintHeat(canvas, heat, color) {
  const g = canvas.getContext?.('2d');
  if (!g) return;
  const { width, height } = canvas;
  const rows = heat.rowShards.length;
  const cw = width / Math.max(1, heat.columns);
  const rh = height / Math.max(1, rows);
  for (let r = 0; r < rows; r++) {
    g.fillStyle = color(heat.rowShards[r]);
    for (let c = 0; c < heat.columns; c++) {
      const v = heat.cells[r * heat.columns + c] ?? 0;
      if (v <= 0 || !(heat.maxCell > 0)) continue;
      g.globalAlpha = 0.15 + 0.85 * Math.min(1, v / heat.maxCell);
      g.fillRect(c * cw, height - (r + 1) * rh, Math.ceil(cw), Math.ceil(rh));
    }
  }
  g.globalAlpha = 0.5;
  g.fillStyle = '#888';
  for (const b of heat.boundaries.slice(1)) g.fillRect(0, Math.round(height - b * height), width, 1);
  g.globalAlpha = 1;
}

/** The inspector's lines for an `Inspection` (strings as text, never markup), worded by `t` and `count`. */
function inspectionLines(seen, t, count) {
  if (seen.failed) return [h('p', { class: 'problem', text: seen.failed })];
  const lines = [];
  const chunk = seen.chunk;
  if (chunk?.Err) lines.push(h('p', { class: 'problem', text: chunk.Err }));
  if (chunk?.Ok) {
    const c = chunk.Ok;
    lines.push(h('p', { part: 'inspected', class: 'mono', text: `${c.min} → ${c.max}` }),
      h('p', { text: t('element.on_shard', { shard: c.shard, docs: count(c.total, 'document') }) }));
    for (const d of c.rows.slice(0, 3)) lines.push(h('p', { class: 'mono status', text: `#${d.seq} ${d.key}` }));
    if (c.explanations?.Ok) lines.push(...c.explanations.Ok.map((e) => h('p', { text: e.sentence })));
  }
  const why = seen.explanations;
  if (why?.Err) lines.push(h('p', { class: 'problem', text: why.Err }));
  if (why?.Ok) lines.push(...why.Ok.map((e) => h('p', { part: 'inspected', text: e.sentence })));
  if (!chunk && !why && seen.landing) {
    const l = seen.landing;
    lines.push(h('p', { text: t('element.latest_insert', { key: l.key, shard: l.shard, why: l.why }) }));
  }
  return lines;
}

/** `tag` with its attributes and children (strings become text nodes, never markup). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== undefined && v !== null) el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children.filter((c) => c !== null && c !== undefined));
  return el;
}

/** Removes the indentation every line of a script shares (a script indented in its page). */
function dedent(text) {
  const lines = text.replace(/^\s*\n/, '').replace(/\s+$/, '').split('\n');
  const indents = lines.filter((l) => l.trim()).map((l) => l.match(/^[ \t]*/)[0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n');
}

export class ShardLabElement extends Base {
  static observedAttributes = ['theme', 'height', 'views', 'label', 'readonly', 'lang', 'compare', 'compare-workload'];

  #root;
  #session = null;
  #state = 'idle';
  #ready = null;
  #start = 0;
  #position = { position: 0, length: 0 };
  #entries = [];
  #lastSeq = 0;
  #timer = null;
  #cleanup = [];
  #parts = {};
  #shownViews = new Set();
  #inspecting = { about: 'nothing' };
  #compared = null;
  #words = WORDS;
  #wordsTag = null;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback() {
    if (this.#parts.frame) return;
    this.#build();
    this.#applyAll();
    this.#poster();
    this.#watchTheme();
    this.#arm();
  }

  disconnectedCallback() {
    this.pause();
    for (const undo of this.#cleanup.splice(0)) undo();
    this.#session?.dispose();
    this.#session = null;
    this.#state = 'idle';
    this.#ready = null;
    this.#root.replaceChildren();
    this.#parts = {};
  }

  attributeChangedCallback(name) {
    if (name.startsWith('compare')) this.#compared = null;
    if (this.#parts.frame) this.#applyAll();
  }

  // ---- Methods (all async) ----

  /** Runs `script` as the next steps (one per statement) and shows the end. */
  async run(script) {
    if (typeof script !== 'string') throw new TypeError('run(script): the script is a string');
    await this.#load();
    if (script.length > MAX_SCRIPT) return this.#error('script', `a script is at most ${MAX_SCRIPT} characters`);
    const entries = await this.#session.run(script, { each: true });
    this.#entries = [...this.#entries.filter((e) => e.step <= this.#position.position), ...entries];
    await this.#moved(await this.#session.step(0), true);
    return entries;
  }

  /** Plays the script's steps one after another until the end. */
  async play() {
    await this.#load();
    if (this.#timer) return;
    const tick = async () => {
      if (this.#position.position >= this.#position.length) return this.pause();
      await this.step(1);
      if (this.#timer) this.#timer = setTimeout(tick, PLAY_EVERY_MS);
    };
    this.#timer = setTimeout(tick, 0);
    this.#drawControls();
  }

  /** Stops playing. */
  async pause() {
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#drawControls();
  }

  /** Moves `n` steps (back when negative). */
  async step(n = 1) {
    await this.#load();
    const by = Math.trunc(Number(n));
    if (!Number.isFinite(by)) return this.#error('argument', 'step(n): n is a number of steps');
    const floor = this.#start - this.#position.position;
    await this.#moved(await this.#session.step(Math.max(by, floor)), by > 0);
  }

  /** Shows the cluster after the script's `k`th statement (0: before the script). */
  async goto(k) {
    await this.#load();
    const to = Math.trunc(Number(k));
    if (!Number.isFinite(to) || to < 0) return this.#error('argument', 'goto(step): step is 0 or more');
    const before = this.#position.position;
    const target = Math.min(this.#start + to, this.#position.length);
    await this.#moved(await this.#session.goto(target), target > before);
  }

  /** Back to the cluster before the script. */
  async reset() {
    await this.pause();
    await this.goto(0);
  }

  /** What the element shows: its step, the script's length, the collection and the console. */
  async getState() {
    const picture = this.#session && this.#state === 'ready' ? await this.#session.cluster() : null;
    return {
      state: this.#state,
      step: this.#position.position - this.#start,
      steps: this.#position.length - this.#start,
      playing: this.#timer !== null,
      ns: picture?.ns ?? null,
      docs: picture?.docs ?? 0,
      chunks: picture?.chunks ?? 0,
      shards: picture?.shards.map((s) => ({ name: s.name, chunks: s.chunks.length, docs: s.docs })) ?? [],
      entries: this.#shown(),
    };
  }

  // ---- Loading ----

  /** Starts loading as `loading` says: when near the viewport, at once, or on a click. */
  #arm() {
    const mode = this.#choice('loading', LOADINGS, 'lazy');
    if (mode === 'eager' || (mode === 'lazy' && typeof IntersectionObserver !== 'function')) {
      this.#load().catch(() => {});
    } else if (mode === 'lazy') {
      const io = new IntersectionObserver((seen) => {
        if (seen.some((e) => e.isIntersecting)) {
          io.disconnect();
          this.#load().catch(() => {});
        }
      }, { rootMargin: '200px' });
      io.observe(this);
      this.#cleanup.push(() => io.disconnect());
    }
  }

  #load() {
    this.#ready ??= this.#open().catch((err) => {
      this.#state = 'failed';
      this.#problem(`ShardLab could not start: ${err?.message ?? err}`);
      this.#error('load', String(err?.message ?? err), err?.codeName);
      throw err;
    });
    return this.#ready;
  }

  async #open() {
    this.#state = 'loading';
    this.#status(this.#t('element.loading'));
    const script = await this.#script();
    const session = await ShardLab.session(this.#sessionOptions());
    if (!this.isConnected) return session.dispose();
    this.#session = session;
    this.#start = (await session.step(0)).position;
    if (script.trim()) {
      this.#entries = await session.run(script, { each: true });
      await session.goto(this.#start);
    }
    this.#position = await session.step(0);
    this.#state = 'ready';
    this.#lastSeq = this.#maxSeq(await session.events(0));
    this.#parts.body.replaceChildren();
    await this.#draw();
    this.#fire('shardlab-ready', { steps: this.#position.length - this.#start, entries: this.#entries.length });
    for (const e of this.#entries.filter((x) => !x.ok && x.step <= this.#start)) this.#statementError(e);
    if (this.hasAttribute('autoplay')) this.play();
  }

  /** The script: `src=` (fetched as text), a `<script type="text/mongosh">` child, or the text inside. */
  async #script() {
    const src = this.getAttribute('src');
    let text;
    if (src) {
      const url = new URL(src, document.baseURI);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`src must be an http(s) address, not ${url.protocol}`);
      const res = await fetch(url);
      if (!res.ok) throw new Error(`src ${url.href} answered ${res.status}`);
      text = await res.text();
    } else {
      text = this.#inlineScript();
    }
    if (text.length > MAX_SCRIPT) throw new Error(`the script is ${text.length} characters, over the limit of ${MAX_SCRIPT}`);
    return dedent(text);
  }

  /**
   * The script written in the element: a `<script type="text/mongosh">` child, else a
   * `<pre>` child (which reads as code where JavaScript is off), else its own text.
   */
  #inlineScript() {
    const child = this.querySelector(':scope > script[type="text/mongosh"]') ?? this.querySelector(':scope > pre');
    if (child) return child.textContent;
    return [...this.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
  }

  /** The session the attributes ask for: a lesson's cluster (`preset`) or `shards`, `version`, `seed`, `chunk-size` (bytes). */
  #sessionOptions() {
    const preset = this.getAttribute('preset');
    if (preset !== null) {
      if (!NAME.test(preset)) throw new Error('preset is a lesson\'s id, such as "monotonic"');
      return { lesson: preset };
    }
    const number = (name, fallback, max) => {
      const raw = this.getAttribute(name);
      if (raw === null) return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} is a whole number from 1 to ${max}, not "${raw.slice(0, 20)}"`);
      return n;
    };
    return {
      chunkSize: number('chunk-size', undefined, 1 << 30),
      shards: number('shards', 3, 64),
      seed: number('seed', 1, Number.MAX_SAFE_INTEGER),
      version: this.#choice('version', VERSIONS, '8.0'),
    };
  }

  // ---- Moving and drawing ----

  async #moved(position, forward) {
    this.#position = position;
    await this.#draw();
    const step = position.position - this.#start;
    const entries = this.#entries.filter((e) => e.step === position.position);
    this.#fire('shardlab-step', { step, steps: position.length - this.#start, entries });
    this.#announce(entries);
    const events = await this.#session.events(0);
    if (forward) {
      for (const e of events.filter((x) => x.seq > this.#lastSeq)) {
        if (e.kind === 'split' || e.kind === 'multi-split') this.#fire('shardlab-split', e);
        if (e.kind === 'moveChunk.commit') this.#fire('shardlab-migrate', e);
      }
      for (const e of entries.filter((x) => !x.ok)) this.#statementError(e);
    }
    this.#lastSeq = this.#maxSeq(events);
  }

  #maxSeq(events) {
    return events.reduce((m, e) => Math.max(m, e.seq), 0);
  }

  #shown() {
    return this.#entries.filter((e) => e.step <= this.#position.position);
  }

  async #draw() {
    if (this.#state !== 'ready') return;
    const views = this.#shownViews;
    const body = this.#parts.body;
    const needsPicture = ['cluster', 'keybar', 'heatmap', 'inspector'].some((v) => views.has(v));
    const picture = needsPicture ? await this.#session.cluster() : null;
    const blocks = [];
    if (picture && views.has('cluster')) blocks.push(this.#clusterView(picture));
    if (picture && views.has('keybar') && picture.sharded) blocks.push(this.#keybar(picture));
    if (picture && views.has('heatmap')) blocks.push(await this.#heatmap(picture));
    if (picture && views.has('inspector')) blocks.push(await this.#inspector(picture));
    if (views.has('compare')) blocks.push(await this.#compareView());
    if (views.has('console')) blocks.push(this.#console());
    body.replaceChildren(...blocks);
    this.#drawControls();
    const steps = this.#position.length - this.#start;
    this.#status(steps > 0 ? this.#t('element.step_n_of_total', { n: this.#position.position - this.#start, total: steps }) : '');
  }

  #clusterView(picture) {
    const title = picture.ns ? `${picture.ns}${picture.key ? ` · ${picture.key}` : ''} · ${this.#count(picture.docs, 'doc')}` : this.#t('element.no_collection_yet');
    return h('div', { part: 'cluster', role: 'group', 'aria-label': title },
      h('div', { class: 'status', text: title }),
      h('div', { class: 'cluster' }, ...picture.shards.map((s) => h('div', { class: 'shard', part: 'shard', 'data-shard': s.index % 8 },
        this.#shardName(s),
        h('div', { class: 'chunks' }, ...s.chunks.map((c) => this.#chunk(c, s)))))));
  }

  /** A shard's heading: with the inspector shown, a button that asks why it holds what it holds. */
  #shardName(s) {
    const text = `${s.name}${s.zones.length ? ` [${s.zones.join(', ')}]` : ''} · ${this.#count(s.chunks.length, 'chunk')} · ${this.#count(s.docs, 'doc')}`;
    if (!this.#shownViews.has('inspector')) return h('div', { class: 'name', text });
    return h('button', { class: 'name link', part: 'shard-name', type: 'button', text, title: this.#t('element.why_shard', { shard: s.name }), onclick: () => this.#inspect({ about: 'shard', shard: s.name }) });
  }

  /** A chunk: with the inspector shown, a button that opens it there. */
  #chunk(c, s) {
    const title = `${c.min} → ${c.max} · ${this.#count(c.docs, 'doc')}${c.jumbo ? ' · jumbo' : ''}`;
    const attrs = { class: c.jumbo ? 'chunk jumbo' : 'chunk', part: 'chunk', 'data-shard': s.index % 8, title };
    if (!this.#shownViews.has('inspector')) return h('span', attrs);
    return h('button', { ...attrs, type: 'button', 'aria-label': this.#t('element.chunk_on_shard', { chunk: title, shard: s.name }), onclick: () => this.#inspect({ about: 'chunk', key: c.key }) });
  }

  #keybar(picture) {
    return h('div', { class: 'keybar', part: 'keybar', role: 'img', 'aria-label': this.#t('element.key_space_of', { ns: picture.ns, chunks: this.#count(picture.bar.length, 'chunk') }) },
      ...picture.bar.map((b) => h('span', { 'data-shard': b.shard % 8, style: `width: ${Math.max(0, (b.hi - b.lo) * 100)}%`, title: b.min })));
  }

  /** Shows `subject` in the inspector. */
  async #inspect(subject) {
    this.#inspecting = subject;
    await this.#draw();
    this.#parts.body.querySelector('.inspector')?.scrollIntoView?.({ block: 'nearest' });
  }

  /** The key-space heatmap: inserts per key range (up the side) per stretch of steps (across). */
  async #heatmap(picture) {
    const box = h('figure', { class: 'heatmap', part: 'heatmap' });
    if (!picture.sharded) {
      box.append(h('figcaption', { class: 'status', text: this.#t('element.heatmap_unsharded') }));
      return box;
    }
    const heat = await this.#session.heat(picture.ns, { rows: HEAT_ROWS, columns: HEAT_COLUMNS });
    const label = this.#t('element.heatmap_label', { steps: this.#count(heat.steps, 'step'), pattern: heat.pattern?.[0] ?? heat.empty ?? '' });
    const canvas = h('canvas', { width: HEAT_COLUMNS * 8, height: HEAT_ROWS * 4, role: 'img', 'aria-label': label, title: heat.axis });
    paintHeat(canvas, heat, (i) => this.#shardColor(i));
    const caption = heat.pattern ? `${heat.pattern[0]}: ${heat.pattern[1]}` : heat.empty ?? '';
    box.append(canvas, h('figcaption', { class: 'status', text: caption }));
    return box;
  }

  #shardColor(index) {
    const custom = globalThis.getComputedStyle?.(this).getPropertyValue(`--shardlab-shard-${index % 8}`).trim();
    return custom || PALETTE[index % 8];
  }

  /** What the engine says about the chunk, shard or round clicked, or about the latest insert. */
  async #inspector(picture) {
    const box = h('section', { class: 'inspector', part: 'inspector', 'aria-label': this.#t('element.inspector') });
    if (!picture.sharded) {
      box.append(h('p', { class: 'status', text: this.#t('element.inspector_unsharded') }));
      return box;
    }
    const seen = await this.#session.inspect(picture.ns, this.#inspecting).catch((err) => ({ failed: err.message }));
    const lines = inspectionLines(seen, (key, args) => this.#t(key, args), (n, noun) => this.#count(n, noun));
    const round = h('button', { type: 'button', part: 'button', text: this.#t('element.balancer_why'), onclick: () => this.#inspect({ about: 'round' }) });
    box.append(...lines, h('div', { class: 'row' }, round));
    if (lines.length === 0) box.prepend(h('p', { class: 'status', text: this.#t('element.inspector_hint') }));
    return box;
  }

  /** The same workload on each key of `compare`, side by side (one engine run per element, redone when the attributes change). */
  async #compareView() {
    this.#compared ??= this.#session.compare(this.#compareSpec()).then((rows) => ({ rows }), (err) => {
      this.#error('attribute', err.message, err.codeName);
      return { error: err.message };
    });
    const { rows, error } = await this.#compared;
    const box = h('section', { class: 'compare', part: 'compare', 'aria-label': this.#t('element.comparison') });
    if (error) {
      box.append(h('p', { class: 'problem', role: 'alert', text: error }));
      return box;
    }
    const columns = ['key', 'inserts', 'busiest', 'one_shard', 'all_shards', 'jumbo'];
    const head = h('tr', {}, ...columns.map((c) => h('th', { text: this.#t(`element.compare_${c}`) })));
    const body = rows.map((r) => h('tr', {},
      h('th', { scope: 'row', text: r.label }),
      h('td', { text: r.insertsPerShard.map(([s, n]) => `${s}: ${n}`).join(' · ') }),
      h('td', { text: percent(r.hottestShardShare) }),
      h('td', { text: percent(r.singleShardShare) }),
      h('td', { text: percent(r.scatterGatherShare) }),
      h('td', { text: String(r.jumboChunks) }),
      ...(r.errors.length ? [h('td', { class: 'problem', text: r.errors.join('; ') })] : [])));
    box.append(h('table', {}, h('thead', {}, head), h('tbody', {}, ...body)));
    return box;
  }

  /** `compare` (keys separated by `|`) and `compare-workload`, checked here and again by the engine. */
  #compareSpec() {
    const raw = this.getAttribute('compare') ?? '{x: 1} | {x: "hashed"}';
    const keys = raw.split('|').map((k) => k.trim()).filter(Boolean).slice(0, 3);
    if (keys.some((k) => k.length > 200)) this.#error('attribute', 'compare lists shard keys of at most 200 characters, separated by |');
    const version = this.#choice('version', VERSIONS, '8.0');
    return {
      columns: keys.map((key) => ({ key: key.slice(0, 200), version })),
      workload: this.#choice('compare-workload', COMPARE_WORKLOADS, 'monotonic'),
      // The batch and the chunk size are the engine's defaults, the Compare tab's.
      ticks: 40,
    };
  }

  #console() {
    const lines = [];
    for (const e of this.#shown().filter((x) => x.step > this.#start)) {
      if (e.printed) lines.push(h('div', { class: e.ok ? 'out' : 'error', text: e.printed.replace(/\n$/, '') }));
    }
    const out = h('pre', { class: 'console', part: 'console' }, ...lines);
    if (this.hasAttribute('readonly')) return out;
    const input = h('input', { 'aria-label': this.#t('element.command_label'), placeholder: this.#t('element.command_placeholder'), part: 'input' });
    input.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' || !input.value.trim()) return;
      const command = input.value;
      input.value = '';
      this.run(command).catch(() => {});
    });
    return h('div', {}, out, h('div', { class: 'controls', part: 'prompt' }, input));
  }

  #drawControls() {
    const bar = this.#parts.controls;
    if (!bar) return;
    if (!this.#shownViews.has('timeline') || this.#state !== 'ready') return bar.replaceChildren();
    const playing = this.#timer !== null;
    const steps = this.#position.length - this.#start;
    const at = this.#position.position - this.#start;
    bar.replaceChildren(
      h('button', { part: 'button', type: 'button', text: this.#t(playing ? 'element.pause' : 'element.play'), disabled: !playing && at >= steps, onclick: () => (playing ? this.pause() : this.play()) }),
      h('button', { part: 'button', type: 'button', text: this.#t('element.back'), disabled: at <= 0, onclick: () => this.step(-1) }),
      h('button', { part: 'button', type: 'button', text: this.#t('element.step'), disabled: at >= steps, onclick: () => this.step(1) }),
      h('button', { part: 'button', type: 'button', text: this.#t('element.reset'), disabled: at <= 0, onclick: () => this.reset() }),
    );
  }

  // ---- The frame, the poster and messages ----

  #build() {
    const style = h('style', { text: STYLE });
    const label = h('span', { class: 'label', part: 'label' });
    const status = h('span', { class: 'status', part: 'status' });
    const body = h('div', { class: 'body', part: 'body' });
    const controls = h('div', { class: 'controls', part: 'controls' });
    const live = h('div', { class: 'sr', role: 'status', 'aria-live': 'polite' });
    const frame = h('section', { class: 'frame', part: 'frame' }, h('div', { class: 'head' }, label, status), body, controls, live);
    this.#root.replaceChildren(style, frame);
    this.#parts = { frame, label, status, body, controls, live };
  }

  /** A static picture of the starting cluster and the script, until the engine is ready. */
  #poster() {
    const shards = Math.min(Math.max(Number.parseInt(this.getAttribute('shards') ?? '3', 10) || 3, 1), 64);
    const names = Array.from({ length: shards }, (_, i) => `shard${String(i + 1).padStart(2, '0')}`);
    const code = this.#inlineScript();
    const start = this.#choice('loading', LOADINGS, 'lazy') === 'click'
      ? h('button', { part: 'button', type: 'button', text: this.#t('element.run'), onclick: () => this.#load().catch(() => {}) })
      : null;
    this.#parts.body.replaceChildren(h('div', { class: 'poster', part: 'poster' },
      h('div', { class: 'cluster' }, ...names.map((n, i) => h('div', { class: 'shard', part: 'shard', 'data-shard': i % 8 }, h('div', { class: 'name', text: n }), h('div', { class: 'chunks' })))),
      h('pre', { text: dedent(code).slice(0, 4000) }),
      start));
    this.#status(this.#t(start ? 'element.run_to_start' : 'element.not_loaded'));
  }

  #problem(text) {
    this.#parts.body?.replaceChildren(h('p', { class: 'problem', part: 'error', role: 'alert', text }));
    this.#status('');
  }

  /** The words of `key` in the element's language, with `{name}` filled from `args`. */
  #t(key, args = {}) {
    return fill(this.#words[key] ?? WORDS[key], args);
  }

  /** `n` of a noun (`chunk`, `doc`) in the element's language, by Intl.PluralRules. */
  #count(n, noun) {
    const form = new Intl.PluralRules(this.#wordsTag ?? 'en').select(n) === 'one' ? 'one' : 'other';
    return this.#t(`words.${noun}.${form}`, { n });
  }

  #status(text) {
    if (this.#parts.status) this.#parts.status.textContent = text;
  }

  #announce(entries) {
    if (!this.#parts.live) return;
    this.#parts.live.textContent = entries.map((e) => e.printed).join('').slice(0, 500);
  }

  #fire(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  #statementError(entry) {
    this.#error('statement', entry.error.errmsg, entry.error.codeName, entry.error.line);
  }

  #error(source, message, codeName = 'BadValue', line = null) {
    this.#fire('shardlab-error', { source, message, codeName, line });
  }

  // ---- Attributes ----

  /** An attribute that must be one of `allowed`: another value is reported and the default used. */
  #choice(name, allowed, fallback) {
    const raw = this.getAttribute(name);
    if (raw === null || raw === '') return fallback;
    if (allowed.includes(raw)) return raw;
    this.#error('attribute', `${name} is one of ${allowed.join(', ')}, not "${raw.slice(0, 40)}"`);
    return fallback;
  }

  #views() {
    const raw = this.getAttribute('views');
    if (raw === null) return new Set(['cluster', 'console', 'timeline']);
    const names = raw.split(',').map((v) => v.trim()).filter(Boolean);
    const unknown = names.filter((v) => !VIEWS.includes(v));
    if (unknown.length) this.#error('attribute', `views lists ${VIEWS.join(', ')}; not ${unknown.join(', ').slice(0, 80)}`);
    return new Set(names.filter((v) => VIEWS.includes(v)));
  }

  #applyAll() {
    const { frame, label } = this.#parts;
    const text = this.getAttribute('label') ?? 'ShardLab';
    label.textContent = text;
    frame.setAttribute('aria-label', text);
    const height = this.getAttribute('height');
    if (height === null || height === '') frame.style.height = '';
    else if (height === 'auto') frame.style.height = 'auto';
    else if (LENGTH.test(height)) frame.style.height = height;
    else this.#error('attribute', `height is "auto" or a length such as 320px, not "${height.slice(0, 40)}"`);
    this.#shownViews = this.#views();
    const lang = this.getAttribute('lang');
    if (lang && LANG.test(lang)) frame.lang = lang;
    const tag = catalogueTag(lang && LANG.test(lang) ? lang : '');
    if (tag !== this.#wordsTag) {
      this.#wordsTag = tag;
      wordsIn(tag).then((words) => {
        if (this.#wordsTag !== tag) return;
        this.#words = words;
        if (this.#state === 'ready') this.#draw().catch(() => {});
        else if (this.#parts.body?.querySelector('.poster')) this.#poster();
      });
    }
    this.#applyTheme();
    this.#draw().catch(() => {});
  }

  #applyTheme() {
    const chosen = this.#choice('theme', THEMES, 'auto');
    let theme = chosen;
    if (chosen === 'auto') {
      const page = this.closest('[data-theme]')?.getAttribute('data-theme') ?? document.documentElement.getAttribute('data-theme');
      const dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches;
      theme = page === 'dark' || page === 'light' ? page : dark ? 'dark' : 'light';
    }
    this.#parts.frame.dataset.theme = theme;
  }

  /** `theme="auto"` follows the page's `data-theme` and the system's colour scheme. */
  #watchTheme() {
    const again = () => this.#parts.frame && this.#applyTheme();
    const mo = new MutationObserver(again);
    mo.observe(document.documentElement, { attributes: true, subtree: true, attributeFilter: ['data-theme'] });
    const mq = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
    mq?.addEventListener?.('change', again);
    this.#cleanup.push(() => mo.disconnect(), () => mq?.removeEventListener?.('change', again));
  }
}

if (globalThis.customElements && !globalThis.customElements.get('shard-lab')) {
  globalThis.customElements.define('shard-lab', ShardLabElement);
}
