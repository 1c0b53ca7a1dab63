// The browser's side of the page's saved sessions (web/src/platform/sessions.rs): IndexedDB
// as promises, and Web Locks to tell which sessions another tab has open. Thin on purpose:
// what to save, when, and what to open are the Rust side's decisions.
//
// Database `shardlab`, version 1, two object stores keyed by the session's id:
// - `meta`: what the "Recent sessions" list shows (small; all read at start);
// - `scenarios`: `{id, text}`, the scenario's JSON text (read one at a time).

const DB = 'shardlab';
let opening = null;

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      if (typeof indexedDB === 'undefined') {
        reject(new Error('this browser keeps no IndexedDB here'));
        return;
      }
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => {
        const db = r.result;
        if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta', { keyPath: 'id' });
        if (!db.objectStoreNames.contains('scenarios')) db.createObjectStore('scenarios', { keyPath: 'id' });
      };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
      r.onblocked = () => reject(new Error('another tab holds an older ShardLab database open'));
    });
    opening.catch(() => { opening = null; });
  }
  return opening;
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the save was aborted'));
  });
}

/** Every session's meta record. */
export async function sessionsList() {
  const db = await open();
  return request(db.transaction('meta').objectStore('meta').getAll());
}

/** One session's scenario text, or undefined. */
export async function sessionsText(id) {
  const db = await open();
  const row = await request(db.transaction('scenarios').objectStore('scenarios').get(id));
  return row && typeof row.text === 'string' ? row.text : undefined;
}

/** Writes a meta record and, unless `text` is null, its scenario, in one transaction. */
export async function sessionsPut(meta, text) {
  const db = await open();
  const tx = db.transaction(['meta', 'scenarios'], 'readwrite');
  tx.objectStore('meta').put(meta);
  if (text !== null && text !== undefined) tx.objectStore('scenarios').put({ id: meta.id, text });
  return done(tx);
}

/** Deletes a session. */
export async function sessionsDelete(id) {
  const db = await open();
  const tx = db.transaction(['meta', 'scenarios'], 'readwrite');
  tx.objectStore('meta').delete(id);
  tx.objectStore('scenarios').delete(id);
  return done(tx);
}

// This tab's lock on the session it shows: held until the tab closes or shows another one.
// A tab that closes or dies lets go of its locks by itself.
const PREFIX = 'shardlab.session:';
let release = null;
let shown = null;

// A reload: the page this tab showed before may still hold its lock for a moment while it
// goes away (longer on a busy machine), and its session would look shown by another tab.
// So a page that goes away leaves the id it showed in sessionStorage, which the next page
// of the same tab reads once, here, and does not count as another tab's. A duplicated tab
// copies sessionStorage from a page that is still there, so it never carries this mark.
const LEAVING = 'shardlab.session.leaving';
let leftBehind = null;
try {
  leftBehind = sessionStorage.getItem(LEAVING);
  sessionStorage.removeItem(LEAVING);
} catch { /* storage refused: nothing to read */ }
addEventListener('pagehide', () => {
  try { if (shown) sessionStorage.setItem(LEAVING, shown); } catch { /* nothing to keep */ }
});
addEventListener('pageshow', (e) => {
  // Back from the back-forward cache: this page is still the one holding its lock.
  if (e.persisted) try { sessionStorage.removeItem(LEAVING); } catch { /* as above */ }
});

/** Holds the lock that says this tab shows session `id` (letting go of the last one). */
export function sessionsHold(id) {
  shown = id;
  if (release) { release(); release = null; }
  if (!navigator.locks) return;
  let let_go;
  const held = new Promise((resolve) => { let_go = resolve; });
  release = let_go;
  navigator.locks.request(PREFIX + id, () => held).catch(() => {});
}

/** The ids of the sessions some tab holds (before this tab holds any: other tabs'). */
export async function sessionsHeld() {
  if (!navigator.locks) return [];
  const { held } = await navigator.locks.query();
  return held
    .map((l) => l.name)
    .filter((n) => n.startsWith(PREFIX))
    .map((n) => n.slice(PREFIX.length))
    .filter((id) => id !== leftBehind || id === shown);
}
