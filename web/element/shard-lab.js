// <shard-lab>: a ShardLab figure for documentation pages (ARCHITECTURE.md, "The
// <shard-lab> element"). The mongosh script lives inside the element (as text, in a
// <script type="text/mongosh"> or a <pre> child, or at `src=`); the element runs it in the engine of
// the JavaScript module (shardlab.js beside it: one engine for every element on the
// page, a session each), one step per statement, and draws the cluster and the console
// in its shadow DOM with plain DOM code. It never loads the playground's page.
//
// It behaves as a platform element: every attribute is observed and reflected as a
// property, changes coalesce into one redraw a frame, controls and inputs are updated in
// place (focus, selection and scroll stay where the reader left them), and every method
// works or rejects with the engine's error shape in every state. Its session follows its
// life: closed when it leaves the page for good, kept when it is only moved.
//
// Every value from the page (attributes, the script, `run`'s argument) is checked here
// or by the engine; text is only ever set as text, never as markup, and styles only
// through constructed style sheets and the CSSOM, so a strict `style-src` works. Every
// constant (versions, limits, defaults, palette, languages) is the engine's catalogue's.
// It touches no DOM at import time, so a static-site renderer may import it; `define` is
// guarded.
import { ShardLab, ShardLabError } from './shardlab.js';

const VIEWS = ['cluster', 'keybar', 'console', 'timeline', 'heatmap', 'inspector', 'compare'];
const DEFAULT_VIEWS = ['cluster', 'console', 'timeline'];
const HEAT_ROWS = 32;
const HEAT_COLUMNS = 48;
const LENGTH = /^\d{1,5}(\.\d{1,3})?(px|rem|em|vh|%)$/;
const LANG = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8}){0,3}$/;
const NAME = /^[a-z0-9-]{1,64}$/;
const POSTER_CHARS = 4000;
const PLAY_EVERY_MS = 700;
const Base = globalThis.HTMLElement ?? class {};

/**
 * Every attribute, its property, what it takes and its default: the one table the
 * element, its documentation (README, "Embedding") and its typings follow. `session`
 * marks those that choose the cluster: changing one after loading opens a new session.
 */
export const ATTRIBUTES = [
  { name: 'label', prop: 'label', type: 'string', default: 'ShardLab' },
  { name: 'views', prop: 'views', type: 'string', default: DEFAULT_VIEWS.join(',') },
  { name: 'theme', prop: 'theme', type: 'string', default: 'auto', values: ['auto', 'light', 'dark'] },
  { name: 'height', prop: 'height', type: 'string', default: '360px' },
  { name: 'loading', prop: 'loading', type: 'string', default: 'lazy', values: ['lazy', 'eager', 'click'] },
  { name: 'start', prop: 'start', type: 'string', default: 'begin', values: ['begin', 'end'] },
  { name: 'readonly', prop: 'readOnly', type: 'boolean', default: false },
  { name: 'autoplay', prop: 'autoplay', type: 'boolean', default: false },
  { name: 'preset', prop: 'preset', type: 'string', default: null, session: true },
  { name: 'shards', prop: 'shards', type: 'number', default: 3, session: true },
  { name: 'version', prop: 'version', type: 'string', default: '5.0', session: true },
  { name: 'seed', prop: 'seed', type: 'number', default: 1, session: true },
  { name: 'chunk-size', prop: 'chunkSize', type: 'number', default: null, session: true },
  { name: 'src', prop: 'src', type: 'string', default: null, session: true },
  { name: 'compare', prop: 'compare', type: 'string', default: '{x: 1} | {x: "hashed"}' },
  { name: 'compare-workload', prop: 'compareWorkload', type: 'string', default: 'monotonic' },
  { name: 'lang', prop: null, type: 'string', default: null },
];
const SESSION_ATTRIBUTES = new Set(ATTRIBUTES.filter((a) => a.session).map((a) => a.name));

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

/**
 * The catalogue language a `lang` value asks for, among the engine's `languages`, as the
 * playground chooses (web/src/model/i18n.rs, `Lang::from_tag`): the tag itself, or its
 * primary language, where Traditional Chinese is not Simplified.
 */
function catalogueTag(lang, languages) {
  const lower = (lang ?? '').trim().toLowerCase();
  if (!lower) return null;
  const exact = languages.find((l) => l.toLowerCase() === lower);
  if (exact) return exact === 'en' ? null : exact;
  const primary = lower.split(/[-_]/)[0];
  if (primary === 'zh' && /hant|-tw$|-hk$|-mo$/.test(lower)) return null;
  const found = languages.find((l) => l.toLowerCase().split('-')[0] === primary);
  return found && found !== 'en' ? found : null;
}
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
[hidden] { display: none !important; }
.frame { --bg: var(--shardlab-bg, #ffffff); --fg: var(--shardlab-fg, #1d2330); --muted: var(--shardlab-muted, #5b6474);
  --border: var(--shardlab-border, #d6dbe4); --accent: var(--shardlab-accent, #0a6e4f); --error: var(--shardlab-error, #b3261e);
  background: var(--bg); color: var(--fg); border: 1px solid var(--border); border-radius: var(--shardlab-radius, 10px);
  height: 360px; box-sizing: border-box; display: flex; flex-direction: column; overflow: hidden; color-scheme: light; }
.frame[data-theme="dark"] { --bg: var(--shardlab-bg-dark, #161b22); --fg: var(--shardlab-fg-dark, #e6edf3); --muted: var(--shardlab-muted-dark, #9aa4b2);
  --border: var(--shardlab-border-dark, #30363d); --accent: var(--shardlab-accent-dark, #3fb950); --error: var(--shardlab-error-dark, #ff7b72); color-scheme: dark; }
.head { display: flex; gap: 8px; align-items: center; padding: 6px 10px; border-bottom: 1px solid var(--border); }
.head .label { font-weight: 600; flex: 1; }
.status { color: var(--muted); font-size: 12px; }
.body { flex: 1; overflow: auto; padding: 8px 10px; display: flex; flex-direction: column; gap: 8px; }
.cluster { display: flex; gap: 8px; flex-wrap: wrap; }
.shard { flex: 1 1 120px; border: 1px solid var(--border); border-radius: 6px; padding: 4px 6px; min-width: 100px; }
.shard .name { font-size: 12px; color: var(--muted); }
.chunks { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 4px; min-height: 14px; }
.chunk { height: 14px; min-width: 14px; border-radius: 3px; background: var(--shard-color, var(--muted)); opacity: .85; }
.chunk.jumbo { outline: 2px solid var(--error); }
.keybar { display: flex; height: 14px; border-radius: 4px; overflow: hidden; border: 1px solid var(--border); }
.keybar > span { background: var(--shard-color, var(--muted)); border-right: 1px solid var(--bg); }
.console { font: 12px/1.45 var(--shardlab-mono, ui-monospace, monospace); white-space: pre-wrap; margin: 0; }
.console .error { color: var(--error); }
.controls { display: flex; gap: 6px; align-items: center; padding: 6px 10px; border-top: 1px solid var(--border); }
.controls:empty { display: none; }
button { font: inherit; font-size: 12px; padding: 2px 10px; border-radius: 6px; border: 1px solid var(--border);
  background: var(--bg); color: var(--fg); cursor: pointer; }
button[aria-disabled="true"] { opacity: .45; cursor: default; }
button:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
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
`;

/** One style sheet for every element of the page (a constructed sheet: no inline style, so
 * a strict `style-src` works); a `<style>` where the browser has no constructed sheets. */
let sharedSheet = null;
function adoptStyles(root) {
  if (typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root) {
    try {
      if (!sharedSheet) {
        sharedSheet = new CSSStyleSheet();
        sharedSheet.replaceSync(STYLE);
      }
      root.adoptedStyleSheets = [sharedSheet];
      return null;
    } catch {
      // Fall through to a <style> element.
    }
  }
  return h('style', { text: STYLE });
}

function percent(share) {
  return `${Math.round(share * 100)}%`;
}

/** Paints a heatmap's cells, tinted by the shard owning each row, with the chunk bounds as lines. */
function paintHeat(canvas, heat, color) {
  const g = canvas.getContext?.('2d');
  if (!g) return;
  const { width, height } = canvas;
  g.clearRect(0, 0, width, height);
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
  if (chunk && !chunk.ok) lines.push(h('p', { class: 'problem', text: chunk.error }));
  if (chunk?.ok) {
    const c = chunk.value;
    lines.push(h('p', { part: 'inspected', class: 'mono', text: `${c.min} → ${c.max}` }),
      h('p', { text: t('element.on_shard', { shard: c.shard, docs: count(c.total, 'document') }) }));
    for (const d of c.rows.slice(0, 3)) lines.push(h('p', { class: 'mono status', text: `#${d.seq} ${d.key}` }));
    if (c.explanations?.ok) lines.push(...c.explanations.value.map((e) => h('p', { text: e.sentence })));
  }
  const why = seen.explanations;
  if (why && !why.ok) lines.push(h('p', { class: 'problem', text: why.error }));
  if (why?.ok) lines.push(...why.value.map((e) => h('p', { part: 'inspected', text: e.sentence })));
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

/** Sets an attribute only when it differs (so an unchanged redraw touches nothing). */
function attr(el, name, value) {
  if (value === null || value === undefined || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else {
    const text = value === true ? '' : String(value);
    if (el.getAttribute(name) !== text) el.setAttribute(name, text);
  }
}

function text(el, value) {
  if (el.textContent !== value) el.textContent = value;
}

/** Removes the indentation every line of a script shares (a script indented in its page).
 * A loop, not a spread: a script of millions of lines must not overflow the stack. */
function dedent(source) {
  const lines = source.replace(/^\s*\n/, '').replace(/\s+$/, '').split('\n');
  let cut = Infinity;
  for (const l of lines) {
    if (!l.trim()) continue;
    const n = l.length - l.trimStart().length;
    if (n < cut) cut = n;
    if (cut === 0) break;
  }
  if (!Number.isFinite(cut) || cut === 0) return lines.join('\n');
  return lines.map((l) => l.slice(cut)).join('\n');
}

/** The error a method rejects with: the engine's shape (`{code, codeName, message}`). */
function refusal(codeName, message, code = 2) {
  return new ShardLabError(codeName, message, code);
}

export class ShardLabElement extends Base {
  static observedAttributes = ATTRIBUTES.map((a) => a.name);

  #root;
  #parts;
  #session = null;
  #state = 'idle';
  #loading = null;
  #generation = 0;
  #failure = null;
  #ready;
  #start = 0;
  #position = { position: 0, length: 0 };
  #entries = [];
  #lastSeq = 0;
  #timer = null;
  #cleanup = [];
  #shownViews = new Set(DEFAULT_VIEWS);
  #inspecting = { kind: 'nothing' };
  #compared = null;
  #words = WORDS;
  #wordsTag = null;
  #catalog = null;
  #frameQueued = false;
  #rendering = Promise.resolve();
  #errors = [];
  #reported = new Map();
  #reloadQueued = false;
  #closeTimer = null;
  #scriptObserver = null;
  #consoleKey = '';

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#ready = this.#deferred();
    this.#build();
  }

  // ---- Properties: every attribute, reflected ----

  /** Resolves with the element once its session is ready; rejects with the reason it failed. */
  get ready() {
    return this.#ready.promise;
  }

  /** Whether the session is loaded and drawn. */
  get loaded() {
    return this.#state === 'ready';
  }

  connectedCallback() {
    clearTimeout(this.#closeTimer);
    this.#closeTimer = null;
    this.#watchTheme();
    this.#watchScript();
    this.#invalidate();
    if (this.#state === 'idle') {
      this.#poster();
      this.#arm();
    }
  }

  disconnectedCallback() {
    this.pause();
    for (const undo of this.#cleanup.splice(0)) undo();
    // Moved to another parent, the element is connected again before this task ends and
    // keeps its session; removed for good, it closes it.
    clearTimeout(this.#closeTimer);
    this.#closeTimer = setTimeout(() => {
      this.#closeTimer = null;
      if (!this.isConnected) this.#close();
    }, 0);
  }

  attributeChangedCallback(name, before, after) {
    if (before === after) return;
    if (name.startsWith('compare')) this.#compared = null;
    if (SESSION_ATTRIBUTES.has(name) && this.#state !== 'idle') this.#reload();
    if (name === 'loading' && this.#state === 'idle' && this.isConnected) this.#arm();
    this.#invalidate();
  }

  // ---- Methods (all async; each works or rejects with the engine's error shape) ----

  /** Runs `script` after the last step (one step per statement) and shows its end. */
  async run(script) {
    if (typeof script !== 'string') throw refusal('BadValue', 'run(script): the script is a string');
    const limit = (await this.#catalogue()).limits.maxSourceBytes;
    if (script.length > limit) throw this.#reject('script', refusal('BadValue', `run(script): a script is at most ${limit} characters, not ${script.length}`));
    const session = await this.#use();
    // Appended after the script's last step: the steps ahead of the cursor stay.
    const end = await session.goto(this.#position.length);
    const entries = await session.run(script, { each: true });
    this.#entries = [...this.#entries.filter((e) => e.step <= end.position), ...entries];
    await this.#moved(await session.step(0), true);
    return entries;
  }

  /** Plays the steps one after another until the end. */
  async play() {
    await this.#use();
    if (this.#timer) return;
    if (this.#position.position >= this.#position.length) return;
    const tick = async () => {
      if (!this.#timer) return;
      if (this.#position.position >= this.#position.length) {
        this.#stopPlaying();
        this.#fire('shardlab-end', { step: this.#position.position - this.#start, steps: this.#position.length - this.#start });
        return;
      }
      await this.step(1).catch(() => this.#stopPlaying());
      if (this.#timer) this.#timer = setTimeout(tick, PLAY_EVERY_MS);
    };
    this.#timer = setTimeout(tick, 0);
    this.#fire('shardlab-play', { step: this.#position.position - this.#start });
    this.#invalidate();
  }

  /** Stops playing. */
  async pause() {
    if (this.#stopPlaying()) this.#fire('shardlab-pause', { step: this.#position.position - this.#start });
  }

  /** Moves `n` steps (back when negative), within the script. */
  async step(n = 1) {
    if (!Number.isSafeInteger(n)) throw this.#reject('argument', refusal('BadValue', `step(n): n is a whole number of steps, not ${String(n).slice(0, 40)}`));
    const session = await this.#use();
    const floor = this.#start - this.#position.position;
    await this.#moved(await session.step(Math.max(n, floor)), n > 0);
  }

  /** Shows the cluster after the script's `k`th statement (0: before the script). */
  async goto(k) {
    if (!Number.isSafeInteger(k) || k < 0) throw this.#reject('argument', refusal('BadValue', `goto(step): step is a whole number, 0 or more, not ${String(k).slice(0, 40)}`));
    const session = await this.#use();
    const before = this.#position.position;
    const target = Math.min(this.#start + k, this.#position.length);
    await this.#moved(await session.goto(target), target > before);
  }

  /** Back to the cluster before the script. */
  async reset() {
    await this.pause();
    await this.goto(0);
  }

  /** Loads the session now (whatever `loading` says); resolves when it is ready. */
  async load() {
    return this.#use().then(() => this);
  }

  /** What the element shows: its state, step, the collection, the console and the errors reported. */
  async getState() {
    const picture = this.#session && this.#state === 'ready' ? await this.#session.cluster().catch(() => null) : null;
    const engine = ShardLab.engine();
    return {
      state: this.#state,
      step: Math.max(0, this.#position.position - this.#start),
      steps: Math.max(0, this.#position.length - this.#start),
      playing: this.#timer !== null,
      ns: picture?.ns ?? null,
      docs: picture?.docs ?? 0,
      chunks: picture?.chunks ?? 0,
      shards: picture?.shards.map((s) => ({ name: s.name, chunks: s.chunks.length, docs: s.docs })) ?? [],
      entries: this.#shown(),
      errors: this.#errors.slice(),
      engine: engine.mode,
    };
  }

  // ---- Loading and the session's life ----

  /** The session, loading it first; rejects when the element is not in a page or failed. */
  #use() {
    if (!this.isConnected) {
      return Promise.reject(this.#reject('state', refusal('IllegalOperation', 'the <shard-lab> element is not in a document: add it to a page first', 20)));
    }
    return this.#load().then(() => {
      if (!this.#session) throw refusal('IllegalOperation', 'the <shard-lab> element left the page while it loaded', 20);
      return this.#session;
    });
  }

  /** Starts loading as `loading` says: when near the viewport, at once, or on a click. */
  #arm() {
    const mode = this.#choice('loading');
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
    if (this.#state === 'failed') return Promise.reject(this.#failure);
    if (!this.#loading) {
      const generation = ++this.#generation;
      this.#loading = this.#open(generation).catch((err) => {
        if (generation !== this.#generation) throw err;
        const error = err instanceof ShardLabError ? err : refusal('BadValue', String(err?.message ?? err));
        this.#state = 'failed';
        this.#failure = error;
        this.#problem(`ShardLab could not start: ${error.message}`);
        this.#report('load', error.message, error.codeName);
        this.#ready.reject(error);
        throw error;
      });
    }
    return this.#loading;
  }

  async #open(generation) {
    this.#state = 'loading';
    this.#status(this.#t('element.loading'));
    const stale = () => generation !== this.#generation;
    const catalog = await this.#catalogue();
    const options = this.#sessionOptions(catalog);
    const script = options.lesson && !this.#hasOwnScript()
      ? catalog.lessons.find((l) => l.id === options.lesson)?.steps.join('\n') ?? ''
      : await this.#script(catalog);
    if (stale()) throw refusal('Interrupted', 'the element was reset while it loaded', 11601);
    const session = await ShardLab.session(options);
    if (stale()) {
      session.dispose();
      throw refusal('Interrupted', 'the element was reset while it loaded', 11601);
    }
    this.#session = session;
    this.#start = (await session.step(0)).position;
    this.#entries = script.trim() ? await session.run(script, { each: true }) : [];
    if (stale()) return;
    const begin = this.#choice('start') === 'begin';
    this.#position = begin ? await session.goto(this.#start) : await session.step(0);
    this.#lastSeq = this.#maxSeq(await session.events(0));
    if (stale()) return;
    this.#state = 'ready';
    this.#consoleKey = '';
    this.#parts.poster.replaceChildren();
    this.#parts.poster.hidden = true;
    await this.#render();
    const detail = { steps: this.#position.length - this.#start, entries: this.#entries.length };
    this.#ready.resolve(this);
    this.#fire('shardlab-ready', detail);
    for (const e of this.#entries.filter((x) => !x.ok && x.step <= this.#position.position)) this.#statementError(e);
    if (this.hasAttribute('autoplay')) this.play().catch(() => {});
  }

  /** Ends the session: the element left the page for good (a later connection starts
   * over, and a `ready` still pending is refused), or a session attribute or the script
   * changed (`reopening`: a pending `ready` waits for the new session instead). */
  #close(reopening = false) {
    this.#generation++;
    this.#stopPlaying();
    this.#session?.dispose();
    this.#session = null;
    this.#loading = null;
    this.#state = 'idle';
    this.#failure = null;
    this.#position = { position: 0, length: 0 };
    this.#entries = [];
    if (reopening && !this.#ready.settled) return;
    if (!this.#ready.settled) this.#ready.reject(refusal('IllegalOperation', 'the <shard-lab> element left the page before it was ready', 20));
    this.#ready = this.#deferred();
  }

  /** A session attribute or the script changed: a new session, once a frame. */
  #reload() {
    if (this.#reloadQueued) return;
    this.#reloadQueued = true;
    queueMicrotask(() => {
      this.#reloadQueued = false;
      const wasLoading = this.#state !== 'idle';
      this.#close(true);
      if (!this.isConnected) return;
      this.#poster();
      if (wasLoading) this.#load().catch(() => {});
      else this.#arm();
    });
  }

  #deferred() {
    const d = { settled: false };
    d.promise = new Promise((resolve, reject) => {
      d.resolve = (v) => {
        d.settled = true;
        resolve(v);
      };
      d.reject = (e) => {
        d.settled = true;
        reject(e);
      };
    });
    // A failure is also an event and a warning: an unread `ready` is not an unhandled rejection.
    d.promise.catch(() => {});
    return d;
  }

  /** The engine's catalogue (versions, limits, defaults, palette, languages), asked once a page. */
  async #catalogue() {
    if (this.#catalog) return this.#catalog;
    this.#catalog = await ShardLab.catalog();
    this.#invalidate();
    return this.#catalog;
  }

  #hasOwnScript() {
    return this.getAttribute('src') !== null || this.#inlineScript().trim() !== '';
  }

  /** The script: `src=` (fetched as text), a `<script type="text/mongosh">` child, or the text inside. */
  async #script(catalog) {
    const src = this.getAttribute('src');
    let source;
    if (src) {
      const url = new URL(src, document.baseURI);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refusal('BadValue', `src must be an http(s) address, not ${url.protocol}`);
      const res = await fetch(url);
      if (!res.ok) throw refusal('BadValue', `src ${url.href} answered ${res.status}`);
      source = await res.text();
    } else {
      source = this.#inlineScript();
    }
    const limit = catalog.limits.maxSourceBytes;
    if (source.length > limit) throw refusal('BadValue', `the script is ${source.length} characters, over the limit of ${limit}`);
    return dedent(source);
  }

  /**
   * The script written in the element: a `<script type="text/mongosh">` child, else a
   * `<pre>` child (which reads as code where JavaScript is off), else its own text.
   */
  #inlineScript() {
    const child = this.querySelector(':scope > script[type="text/mongosh"]') ?? this.querySelector(':scope > pre');
    if (child) return child.textContent;
    let out = '';
    for (const n of this.childNodes) if (n.nodeType === 3) out += n.textContent;
    return out;
  }

  /** The session the attributes ask for: a lesson's cluster (`preset`) or `shards`, `version`, `seed`, `chunk-size` (bytes). */
  #sessionOptions(catalog) {
    const preset = this.getAttribute('preset');
    if (preset !== null) {
      if (!NAME.test(preset) || !catalog.lessons.some((l) => l.id === preset)) {
        throw refusal('BadValue', `preset is one of ${catalog.lessons.map((l) => l.id).join(', ')}, not "${preset.slice(0, 40)}"`);
      }
      return { lesson: preset };
    }
    const { limits, defaults } = catalog;
    const number = (name, fallback, min, max) => {
      const raw = this.getAttribute(name);
      if (raw === null) return fallback;
      const n = Number(raw);
      if (!Number.isSafeInteger(n) || n < min || n > max) throw refusal('BadValue', `${name} is a whole number from ${min} to ${max}, not "${raw.slice(0, 20)}"`);
      return n;
    };
    const version = this.getAttribute('version') ?? defaults.version;
    const versions = catalog.versions.map((v) => v.label);
    if (!versions.includes(version)) throw refusal('BadValue', `version is one of ${versions.join(', ')}, not "${version.slice(0, 20)}"`);
    return {
      chunkSize: number('chunk-size', undefined, limits.minChunkSize, limits.maxChunkSize),
      shards: number('shards', defaults.shards, 1, limits.maxShards),
      seed: number('seed', defaults.seed, 0, Number.MAX_SAFE_INTEGER),
      version,
    };
  }

  // ---- Moving and drawing ----

  async #moved(position, forward) {
    this.#position = position;
    await this.#render();
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

  #stopPlaying() {
    if (this.#timer === null) return false;
    clearTimeout(this.#timer);
    this.#timer = null;
    this.#invalidate();
    return true;
  }

  #maxSeq(events) {
    let m = 0;
    for (const e of events) if (e.seq > m) m = e.seq;
    return m;
  }

  #shown() {
    return this.#entries.filter((e) => e.step <= this.#position.position);
  }

  /** Asks for one redraw in the next frame, however many changes come before it. */
  #invalidate() {
    if (this.#frameQueued) return;
    this.#frameQueued = true;
    const frame = globalThis.requestAnimationFrame ?? ((f) => setTimeout(f, 16));
    frame(() => {
      this.#frameQueued = false;
      this.#render().catch(() => {});
    });
  }

  /** Draws now, after any draw under way (draws never overlap). */
  #render() {
    this.#rendering = this.#rendering.then(() => this.#draw()).catch(() => {});
    return this.#rendering;
  }

  async #draw() {
    this.#applyAttributes();
    this.#drawControls();
    if (this.#state !== 'ready' || !this.#session) return;
    const session = this.#session;
    const views = this.#shownViews;
    const parts = this.#parts;
    const needsPicture = ['cluster', 'keybar', 'heatmap', 'inspector'].some((v) => views.has(v));
    const picture = needsPicture ? await session.cluster() : null;
    if (session !== this.#session) return;
    parts.cluster.hidden = !(picture && views.has('cluster'));
    if (!parts.cluster.hidden) this.#clusterView(picture);
    parts.keybar.hidden = !(picture && views.has('keybar') && picture.sharded);
    if (!parts.keybar.hidden) this.#keybar(picture);
    parts.heatmap.hidden = !(picture && views.has('heatmap'));
    if (!parts.heatmap.hidden) await this.#heatmap(picture);
    parts.inspector.hidden = !(picture && views.has('inspector'));
    if (!parts.inspector.hidden) await this.#inspector(picture);
    parts.compare.hidden = !views.has('compare');
    if (!parts.compare.hidden) await this.#compareView();
    parts.consoleBox.hidden = !views.has('console');
    if (!parts.consoleBox.hidden) this.#console();
    const steps = this.#position.length - this.#start;
    this.#status(steps > 0 ? this.#t('element.step_n_of_total', { n: this.#position.position - this.#start, total: steps }) : '');
  }

  #colour(index) {
    const palette = this.#catalog?.palette ?? [];
    const base = palette.length ? palette[index % palette.length] : 'currentColor';
    return `var(--shardlab-shard-${index}, ${base})`;
  }

  /** The shards as columns of chunks, updated in place: a chunk keeps its node (and focus) while it exists. */
  #clusterView(picture) {
    const box = this.#parts.cluster;
    const title = picture.ns ? `${picture.ns}${picture.key ? ` · ${picture.key}` : ''} · ${this.#count(picture.docs, 'doc')}` : this.#t('element.no_collection_yet');
    attr(box, 'aria-label', title);
    text(this.#parts.clusterTitle, title);
    const inspectable = this.#shownViews.has('inspector');
    const list = this.#parts.shards;
    const byName = new Map([...list.children].map((n) => [n.dataset.name, n]));
    const wanted = [];
    for (const s of picture.shards) {
      let node = byName.get(s.name);
      if (!node || (node.dataset.inspectable === 'true') !== inspectable) {
        node = h('div', { class: 'shard', part: 'shard', 'data-name': s.name, 'data-inspectable': String(inspectable) },
          inspectable
            ? h('button', { class: 'name link', part: 'shard-name', type: 'button', onclick: () => this.#inspect({ kind: 'shard', shard: node.dataset.name }) })
            : h('div', { class: 'name' }),
          h('div', { class: 'chunks' }));
      }
      attr(node, 'data-shard', s.index);
      const name = node.firstChild;
      text(name, `${s.name}${s.zones.length ? ` [${s.zones.join(', ')}]` : ''} · ${this.#count(s.chunks.length, 'chunk')} · ${this.#count(s.docs, 'doc')}`);
      if (inspectable) attr(name, 'title', this.#t('element.why_shard', { shard: s.name }));
      this.#chunks(node.lastChild, s, inspectable);
      wanted.push(node);
    }
    reorder(list, wanted);
  }

  #chunks(box, s, inspectable) {
    const byKey = new Map([...box.children].map((n) => [n.dataset.key, n]));
    const wanted = [];
    const colour = this.#colour(s.index);
    for (const c of s.chunks) {
      const title = `${c.min} → ${c.max} · ${this.#count(c.docs, 'doc')}${c.jumbo ? ' · jumbo' : ''}`;
      let node = byKey.get(c.key);
      if (!node) {
        node = inspectable
          ? h('button', { type: 'button', 'data-key': c.key, onclick: () => this.#inspect({ kind: 'chunk', key: c.key }) })
          : h('span', { 'data-key': c.key });
        attr(node, 'part', 'chunk');
      }
      attr(node, 'class', c.jumbo ? 'chunk jumbo' : 'chunk');
      attr(node, 'title', title);
      attr(node, 'data-shard', s.index);
      if (inspectable) attr(node, 'aria-label', this.#t('element.chunk_on_shard', { chunk: title, shard: s.name }));
      if (node.style.getPropertyValue('--shard-color') !== colour) node.style.setProperty('--shard-color', colour);
      wanted.push(node);
    }
    reorder(box, wanted);
  }

  #keybar(picture) {
    const bar = this.#parts.keybar;
    attr(bar, 'aria-label', this.#t('element.key_space_of', { ns: picture.ns, chunks: this.#count(picture.bar.length, 'chunk') }));
    bar.replaceChildren(...picture.bar.map((b) => {
      const span = h('span', { 'data-shard': b.shard, title: b.min });
      span.style.setProperty('width', `${Math.max(0, (b.hi - b.lo) * 100)}%`);
      span.style.setProperty('--shard-color', this.#colour(b.shard));
      return span;
    }));
  }

  /** Shows `subject` in the inspector. */
  async #inspect(subject) {
    this.#inspecting = subject;
    await this.#render();
    this.#parts.inspector.scrollIntoView?.({ block: 'nearest' });
  }

  /** The key-space heatmap: inserts per key range (up the side) per stretch of steps (across). */
  async #heatmap(picture) {
    const { heatCanvas: canvas, heatCaption: caption } = this.#parts;
    if (!picture.sharded) {
      canvas.hidden = true;
      text(caption, this.#t('element.heatmap_unsharded'));
      return;
    }
    const heat = await this.#session.heat(picture.ns, { rows: HEAT_ROWS, columns: HEAT_COLUMNS });
    canvas.hidden = false;
    attr(canvas, 'aria-label', this.#t('element.heatmap_label', { steps: this.#count(heat.steps, 'step'), pattern: heat.pattern?.[0] ?? heat.empty ?? '' }));
    attr(canvas, 'title', heat.axis);
    paintHeat(canvas, heat, (i) => this.#shardColor(i));
    text(caption, heat.pattern ? `${heat.pattern[0]}: ${heat.pattern[1]}` : heat.empty ?? '');
  }

  #shardColor(index) {
    const custom = globalThis.getComputedStyle?.(this).getPropertyValue(`--shardlab-shard-${index}`).trim();
    const palette = this.#catalog?.palette ?? [];
    return custom || palette[index % Math.max(1, palette.length)] || '#888';
  }

  /** What the engine says about the chunk, shard or round clicked, or about the latest insert. */
  async #inspector(picture) {
    const { inspectorLines: lines, inspectorRound: round } = this.#parts;
    attr(this.#parts.inspector, 'aria-label', this.#t('element.inspector'));
    text(round, this.#t('element.balancer_why'));
    if (!picture.sharded) {
      round.hidden = true;
      lines.replaceChildren(h('p', { class: 'status', text: this.#t('element.inspector_unsharded') }));
      return;
    }
    round.hidden = false;
    const seen = await this.#session.inspect(picture.ns, this.#inspecting).catch((err) => ({ failed: err.message }));
    const drawn = inspectionLines(seen, (key, args) => this.#t(key, args), (n, noun) => this.#count(n, noun));
    if (drawn.length === 0) drawn.push(h('p', { class: 'status', text: this.#t('element.inspector_hint') }));
    lines.replaceChildren(...drawn);
  }

  /** The same workload on each key of `compare`, side by side (one engine run per element, redone when the attributes change). */
  async #compareView() {
    const box = this.#parts.compare;
    attr(box, 'aria-label', this.#t('element.comparison'));
    this.#compared ??= this.#compareSpec().then((spec) => this.#session.compare(spec)).then((rows) => ({ rows }), (err) => {
      this.#report('attribute', err.message, err.codeName);
      return { error: err.message };
    });
    const { rows, error } = await this.#compared;
    if (error) {
      box.replaceChildren(h('p', { class: 'problem', role: 'alert', text: error }));
      return;
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
    box.replaceChildren(h('table', {}, h('thead', {}, head), h('tbody', {}, ...body)));
  }

  /** `compare` (keys separated by `|`) and `compare-workload`, checked against the engine's catalogue and again by the engine. */
  async #compareSpec() {
    const { limits, defaults, versions, compareWorkloads } = await this.#catalogue();
    const raw = this.getAttribute('compare') ?? '{x: 1} | {x: "hashed"}';
    const keys = raw.split('|').map((k) => k.trim()).filter(Boolean);
    if (keys.length === 0 || keys.length > limits.maxCompareColumns) {
      throw refusal('BadValue', `compare lists 1 to ${limits.maxCompareColumns} shard keys separated by |, not ${keys.length}`);
    }
    const version = this.getAttribute('version') ?? defaults.version;
    if (!versions.some((v) => v.label === version)) throw refusal('BadValue', `version is one of ${versions.map((v) => v.label).join(', ')}, not "${version.slice(0, 20)}"`);
    const workload = this.getAttribute('compare-workload') ?? defaults.compareWorkload;
    if (!compareWorkloads.includes(workload)) throw refusal('BadValue', `compare-workload is one of ${compareWorkloads.join(', ')}, not "${workload.slice(0, 40)}"`);
    // The batch and the chunk size are the engine's defaults, the Compare tab's.
    return { columns: keys.map((key) => ({ key, version })), workload, ticks: defaults.compareTicks };
  }

  /** The console's lines, redrawn only when they change; the input is the same node throughout. */
  #console() {
    const { consoleOut: out, prompt, input } = this.#parts;
    prompt.hidden = this.hasAttribute('readonly');
    attr(input, 'aria-label', this.#t('element.command_label'));
    attr(input, 'placeholder', this.#t('element.command_placeholder'));
    const shown = this.#shown().filter((x) => x.step > this.#start && x.printed);
    const key = `${shown.length}:${shown.at(-1)?.step ?? 0}:${this.#position.position}`;
    if (key === this.#consoleKey) return;
    this.#consoleKey = key;
    const body = this.#parts.body;
    const atBottom = body.scrollTop + body.clientHeight >= body.scrollHeight - 4;
    out.replaceChildren(...shown.map((e) => h('div', { class: e.ok ? 'out' : 'error', text: e.printed.replace(/\n$/, '') })));
    if (atBottom) body.scrollTop = body.scrollHeight;
  }

  /** The timeline's buttons, made once and updated in place (a focused button keeps focus:
   * one that can do nothing is `aria-disabled`, not removed from the tab order). */
  #drawControls() {
    const { controls, play, back, step, reset } = this.#parts;
    const shown = this.#shownViews.has('timeline') && this.#state === 'ready';
    controls.hidden = !shown;
    if (!shown) return;
    const playing = this.#timer !== null;
    const steps = this.#position.length - this.#start;
    const at = this.#position.position - this.#start;
    text(play, this.#t(playing ? 'element.pause' : 'element.play'));
    attr(play, 'aria-disabled', !playing && at >= steps ? 'true' : null);
    text(back, this.#t('element.back'));
    attr(back, 'aria-disabled', at <= 0 ? 'true' : null);
    text(step, this.#t('element.step'));
    attr(step, 'aria-disabled', at >= steps ? 'true' : null);
    text(reset, this.#t('element.reset'));
    attr(reset, 'aria-disabled', at <= 0 ? 'true' : null);
  }

  // ---- The frame, the poster and messages ----

  #build() {
    const style = adoptStyles(this.#root);
    const button = (name, act) => {
      const b = h('button', { part: 'button', type: 'button', 'data-action': name });
      b.addEventListener('click', () => {
        if (b.getAttribute('aria-disabled') === 'true') return;
        act().catch(() => {});
      });
      return b;
    };
    const play = button('play', () => (this.#timer ? this.pause() : this.play()));
    const back = button('back', () => this.step(-1));
    const step = button('step', () => this.step(1));
    const reset = button('reset', () => this.reset());
    const input = h('input', { part: 'input' });
    input.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' || !input.value.trim()) return;
      const command = input.value;
      input.value = '';
      this.run(command).catch(() => {});
    });
    const label = h('span', { class: 'label', part: 'label' });
    const status = h('span', { class: 'status', part: 'status' });
    const poster = h('div', { class: 'poster', part: 'poster' });
    const clusterTitle = h('div', { class: 'status' });
    const shards = h('div', { class: 'cluster' });
    const cluster = h('div', { part: 'cluster', role: 'group', hidden: true }, clusterTitle, shards);
    const keybar = h('div', { class: 'keybar', part: 'keybar', role: 'img', hidden: true });
    const heatCanvas = h('canvas', { width: HEAT_COLUMNS * 8, height: HEAT_ROWS * 4, role: 'img' });
    const heatCaption = h('figcaption', { class: 'status' });
    const heatmap = h('figure', { class: 'heatmap', part: 'heatmap', hidden: true }, heatCanvas, heatCaption);
    const inspectorLines = h('div');
    const inspectorRound = h('button', { type: 'button', part: 'button', onclick: () => this.#inspect({ kind: 'round' }) });
    const inspector = h('section', { class: 'inspector', part: 'inspector', hidden: true }, inspectorLines, h('div', { class: 'row' }, inspectorRound));
    const compare = h('section', { class: 'compare', part: 'compare', hidden: true });
    const consoleOut = h('pre', { class: 'console', part: 'console' });
    const prompt = h('div', { class: 'controls', part: 'prompt' }, input);
    const consoleBox = h('div', { hidden: true }, consoleOut, prompt);
    const error = h('p', { class: 'problem', part: 'error', role: 'alert', hidden: true });
    const body = h('div', { class: 'body', part: 'body' }, error, poster, cluster, keybar, heatmap, inspector, compare, consoleBox);
    const controls = h('div', { class: 'controls', part: 'controls', hidden: true }, play, back, step, reset);
    const live = h('div', { class: 'sr', role: 'status', 'aria-live': 'polite' });
    const frame = h('section', { class: 'frame', part: 'frame' }, h('div', { class: 'head' }, label, status), body, controls, live);
    this.#root.replaceChildren(...(style ? [style] : []), frame);
    this.#parts = {
      frame, label, status, body, poster, error, cluster, clusterTitle, shards, keybar, heatmap, heatCanvas, heatCaption,
      inspector, inspectorLines, inspectorRound, compare, consoleBox, consoleOut, prompt, input, controls, play, back, step, reset, live,
    };
  }

  /** A static picture of the starting cluster and the script, until the engine is ready.
   * Only the script's first lines are read: a multi-megabyte script draws at once. */
  #poster() {
    const raw = Number.parseInt(this.getAttribute('shards') ?? '3', 10);
    const shards = Math.min(Math.max(Number.isFinite(raw) ? raw : 3, 1), 64);
    const names = Array.from({ length: shards }, (_, i) => `shard${String(i + 1).padStart(2, '0')}`);
    const code = dedent(this.#inlineScript().slice(0, POSTER_CHARS));
    const click = this.#choice('loading') === 'click';
    const start = click
      ? h('button', { part: 'button', type: 'button', text: this.#t('element.run'), onclick: () => this.#load().catch(() => {}) })
      : null;
    const { poster, error } = this.#parts;
    error.hidden = true;
    poster.hidden = false;
    poster.replaceChildren(
      h('div', { class: 'cluster' }, ...names.map((n, i) => h('div', { class: 'shard', part: 'shard', 'data-shard': i }, h('div', { class: 'name', text: n }), h('div', { class: 'chunks' })))),
      h('pre', { text: code }),
      start);
    for (const part of ['cluster', 'keybar', 'heatmap', 'inspector', 'compare', 'consoleBox']) this.#parts[part].hidden = true;
    this.#status(this.#t(click ? 'element.run_to_start' : 'element.not_loaded'));
  }

  #problem(message) {
    const { error, poster } = this.#parts;
    poster.hidden = true;
    for (const part of ['cluster', 'keybar', 'heatmap', 'inspector', 'compare', 'consoleBox', 'controls']) this.#parts[part].hidden = true;
    error.hidden = false;
    text(error, message);
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

  #status(value) {
    text(this.#parts.status, value);
  }

  #announce(entries) {
    this.#parts.live.textContent = entries.map((e) => e.printed).join('').slice(0, 500);
  }

  #fire(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  #statementError(entry) {
    this.#report('statement', entry.error.errmsg, entry.error.codeName, entry.error.line, entry.error.code);
  }

  /** A method's refusal, reported as an error too; returned for the caller to throw. */
  #reject(source, error) {
    this.#report(source, error.message, error.codeName, null, error.code);
    return error;
  }

  /**
   * Reports a problem: `console.warn`, `getState().errors` and a `shardlab-error` event.
   * The event is dispatched in a later task, so a page's own script that runs after the
   * element upgrades still hears about its attributes; the same message about the same
   * thing is reported once until it changes.
   */
  #report(source, message, codeName = 'BadValue', line = null, code = 2) {
    const detail = { source, message, codeName, code, line };
    this.#errors.push(detail);
    if (this.#errors.length > 50) this.#errors.shift();
    globalThis.console?.warn?.(`<shard-lab${this.id ? ` id="${this.id}"` : ''}>: ${message}`);
    setTimeout(() => this.#fire('shardlab-error', detail), 0);
  }

  // ---- Attributes ----

  /** An attribute that must be one of its listed values: another is reported once and the default used. */
  #choice(name) {
    const spec = ATTRIBUTES.find((a) => a.name === name);
    const raw = this.getAttribute(name);
    if (raw === null || raw === '') return spec.default;
    if (spec.values.includes(raw)) {
      this.#reported.delete(name);
      return raw;
    }
    this.#attributeError(name, `${name} is one of ${spec.values.join(', ')}, not "${raw.slice(0, 40)}"`);
    return spec.default;
  }

  #attributeError(name, message) {
    if (this.#reported.get(name) === message) return;
    this.#reported.set(name, message);
    this.#report('attribute', message);
  }

  #views() {
    const raw = this.getAttribute('views');
    if (raw === null) return new Set(DEFAULT_VIEWS);
    const names = raw.split(',').map((v) => v.trim()).filter(Boolean);
    const unknown = names.filter((v) => !VIEWS.includes(v));
    if (unknown.length) this.#attributeError('views', `views lists ${VIEWS.join(', ')}; not ${unknown.join(', ').slice(0, 80)}`);
    else this.#reported.delete('views');
    return new Set(names.filter((v) => VIEWS.includes(v)));
  }

  /** Every attribute's effect on the frame, once a frame however often they change. */
  #applyAttributes() {
    const { frame, label } = this.#parts;
    const words = this.getAttribute('label') ?? 'ShardLab';
    text(label, words);
    attr(frame, 'aria-label', words);
    const height = this.getAttribute('height');
    if (height === null || height === '') frame.style.removeProperty('height');
    else if (height === 'auto' || LENGTH.test(height)) {
      frame.style.setProperty('height', height);
      this.#reported.delete('height');
    } else this.#attributeError('height', `height is "auto" or a length such as 320px, not "${height.slice(0, 40)}"`);
    this.#shownViews = this.#views();
    this.#choice('start');
    const lang = this.getAttribute('lang');
    if (lang && LANG.test(lang)) frame.lang = lang;
    const tag = this.#catalog ? catalogueTag(lang && LANG.test(lang) ? lang : '', this.#catalog.languages) : null;
    if (tag !== this.#wordsTag) {
      this.#wordsTag = tag;
      wordsIn(tag).then((found) => {
        if (this.#wordsTag !== tag) return;
        this.#words = found;
        this.#consoleKey = '';
        if (this.#state === 'idle' || this.#state === 'loading') {
          if (!this.#parts.poster.hidden) this.#poster();
        }
        this.#invalidate();
      });
    }
    this.#applyTheme();
  }

  #applyTheme() {
    const chosen = this.#choice('theme');
    const theme = chosen === 'auto' ? pageTheme(this) : chosen;
    if (this.#parts.frame.dataset.theme !== theme) this.#parts.frame.dataset.theme = theme;
  }

  /** `theme="auto"` follows the page's dark mode, however its generator marks it, and the system's. */
  #watchTheme() {
    const again = () => this.#applyTheme();
    const mo = new MutationObserver(again);
    const attributeFilter = ['data-theme', 'class', 'data-md-color-scheme', 'data-bs-theme', 'data-color-scheme'];
    mo.observe(document.documentElement, { attributes: true, attributeFilter });
    if (document.body) mo.observe(document.body, { attributes: true, attributeFilter });
    for (let p = this.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
      mo.observe(p, { attributes: true, attributeFilter: ['data-theme'] });
    }
    const mq = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
    mq?.addEventListener?.('change', again);
    this.#cleanup.push(() => mo.disconnect(), () => mq?.removeEventListener?.('change', again));
  }

  /** The script written inside the element is observed: an edit opens a new session. */
  #watchScript() {
    const mo = new MutationObserver((records) => {
      if (records.some((r) => r.type === 'characterData' || r.type === 'childList') && this.#state !== 'idle') this.#reload();
      else if (this.#state === 'idle' && !this.#parts.poster.hidden) this.#poster();
    });
    mo.observe(this, { childList: true, characterData: true, subtree: true });
    this.#cleanup.push(() => mo.disconnect());
  }
}

/** Puts `wanted` as `parent`'s children in that order, moving only what is out of place. */
function reorder(parent, wanted) {
  const keep = new Set(wanted);
  for (const child of [...parent.children]) if (!keep.has(child)) child.remove();
  let at = parent.firstChild;
  for (const node of wanted) {
    if (node === at) {
      at = at.nextSibling;
    } else {
      parent.insertBefore(node, at);
    }
  }
}

/**
 * Whether the page is dark, as documentation generators mark it: `data-theme` on an
 * ancestor or `<html>` (Docusaurus, Hugo themes), `data-md-color-scheme="slate"` (MkDocs
 * Material), `data-bs-theme` (Bootstrap), a `dark` class on `<html>` (VitePress, Tailwind,
 * Hugo themes), else the system's `prefers-color-scheme`.
 */
export function pageTheme(el) {
  const html = document.documentElement;
  const body = document.body;
  const named = el.closest('[data-theme]')?.getAttribute('data-theme') ?? html.getAttribute('data-theme')
    ?? html.getAttribute('data-bs-theme') ?? html.getAttribute('data-color-scheme');
  if (named === 'dark' || named === 'light') return named;
  const md = body?.getAttribute('data-md-color-scheme') ?? html.getAttribute('data-md-color-scheme');
  if (md) return md === 'slate' ? 'dark' : 'light';
  if (html.classList.contains('dark') || body?.classList.contains('dark')) return 'dark';
  if (html.classList.contains('light')) return 'light';
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

// Every attribute as a property: strings and numbers reflect their attribute (null when
// absent, which removes it), booleans its presence.
for (const a of ATTRIBUTES) {
  if (!a.prop || !globalThis.HTMLElement) continue;
  Object.defineProperty(ShardLabElement.prototype, a.prop, {
    configurable: true,
    enumerable: true,
    get() {
      if (a.type === 'boolean') return this.hasAttribute(a.name);
      const raw = this.getAttribute(a.name);
      if (raw === null) return a.default;
      if (a.type === 'number') {
        const n = Number(raw);
        return Number.isFinite(n) ? n : a.default;
      }
      return raw;
    },
    set(value) {
      if (a.type === 'boolean') this.toggleAttribute(a.name, !!value);
      else if (value === null || value === undefined) this.removeAttribute(a.name);
      else this.setAttribute(a.name, String(value));
    },
  });
}

/**
 * Fenced code blocks marked `mongosh` (Markdown's ```mongosh, as Docusaurus, VitePress,
 * MkDocs and Hugo render it) and `<pre class="shard-lab">` become elements, as Mermaid's
 * blocks do: the code stays inside as the element's `<pre>` script. Blocks added later
 * (a single-page site's navigation) are upgraded too. `<meta name="shardlab-upgrade"
 * content="off">` turns it off; `data-shardlab-*` attributes on the block pass on (without
 * the prefix).
 */
export function upgrade(root = globalThis.document) {
  if (!root?.querySelectorAll) return [];
  const made = [];
  const blocks = new Set();
  for (const code of root.querySelectorAll('code.language-mongosh, pre.language-mongosh, div.language-mongosh pre, pre.shard-lab')) {
    if (code.closest('shard-lab')) continue;
    blocks.add(code.closest('pre') ?? code);
  }
  for (const pre of blocks) {
    // The generator's wrapper (a highlight box, a language tab, a copy button) goes with
    // the block, where it holds this block alone.
    const box = pre.parentElement?.closest('div.language-mongosh, div.highlight, div.theme-code-block');
    const wrapper = box && box.querySelectorAll('pre').length === 1 ? box : pre;
    const el = document.createElement('shard-lab');
    for (const source of [wrapper, pre, pre.querySelector('code')]) {
      for (const { name, value } of source?.attributes ?? []) {
        if (name.startsWith('data-shardlab-')) el.setAttribute(name.slice('data-shardlab-'.length), value);
      }
    }
    const script = document.createElement('pre');
    script.textContent = codeText(pre);
    el.append(script);
    wrapper.replaceWith(el);
    made.push(el);
  }
  return made;
}

/** A highlighted block's code: its text, with a line break for each `<br>` (Prism's lines
 * end in one). A loop, not recursion: a block may be deep. */
function codeText(node) {
  let out = '';
  const stack = [node];
  while (stack.length) {
    const n = stack.pop();
    if (n.nodeType === 3) out += n.data;
    else if (n.nodeName === 'BR') out += '\n';
    else if (n.nodeType === 1 && !(n.matches?.('button, .lang, .copy'))) {
      for (let c = n.lastChild; c; c = c.previousSibling) stack.push(c);
    }
  }
  return out;
}

function autoUpgrade() {
  const doc = globalThis.document;
  if (!doc) return;
  if (doc.querySelector('meta[name="shardlab-upgrade"][content="off"]')) return;
  const go = () => {
    upgrade(doc);
    new MutationObserver((records) => {
      if (records.some((r) => r.addedNodes.length)) upgrade(doc);
    }).observe(doc.body ?? doc.documentElement, { childList: true, subtree: true });
  };
  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', go, { once: true });
  else go();
}

if (globalThis.customElements && !globalThis.customElements.get('shard-lab')) {
  globalThis.customElements.define('shard-lab', ShardLabElement);
  autoUpgrade();
}
