//! The saved sessions: every session the page has shown, in IndexedDB, one per tab.
//!
//! Each tab shows one session, named by an id kept in sessionStorage, so that a reload
//! brings back this tab's own work and no other tab's. A tab opened afresh continues the
//! most recent session that no other tab shows (Web Locks say which are shown), or starts
//! a new one. Lessons, links and fallback playgrounds start new sessions and never
//! overwrite another; a session that could not be restored is marked set aside, never
//! deleted. Deleting is the user's act, in "Recent sessions".
//!
//! IndexedDB answers asynchronously; the page's start-up rules ([`crate::startup`]) are
//! plain decisions. So [`load`] reads what the start needs once, before the start, and the
//! rest of this module answers from that copy, writing through to IndexedDB. Only this
//! tab writes its sessions' records, so the copy stays true for them; the list of every
//! session is read again whenever it is shown ([`list`]).
//!
//! Sessions saved by earlier versions in localStorage are moved here on the first start.

use crate::i18n::Words;
use crate::share::{FAILED_KEY, PAGE_KEY, PREVIOUS_KEY, STEPS_KEY, STORAGE_KEY};
use crate::storage;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/sessions.js")]
extern "C" {
    #[wasm_bindgen(js_name = sessionsList, catch)]
    async fn js_list() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sessionsText, catch)]
    async fn js_text(id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sessionsPut, catch)]
    async fn js_put(meta: JsValue, text: Option<String>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sessionsDelete, catch)]
    async fn js_delete(id: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sessionsHold)]
    fn js_hold(id: &str);
    #[wasm_bindgen(js_name = sessionsHeld, catch)]
    async fn js_held() -> Result<JsValue, JsValue>;
}

/// sessionStorage: the id of the session this tab shows.
pub const ID_KEY: &str = "shardlab.session.id";

/// sessionStorage: the id of the session this tab showed before a link, a lesson or a
/// fallback playground replaced it, for "Return to your session".
pub const RETURN_KEY: &str = "shardlab.session.return";

/// The most sessions read, and the longest name and list kept from a record: storage can
/// hold anything.
const MOST_SESSIONS: usize = 500;

pub use crate::saved::{AutoName, Listed, Meta};

#[derive(Default)]
struct Store {
    /// Whether [`load`] read IndexedDB (never in an embedded view, which saves nothing).
    ready: bool,
    /// Every session's meta, as read at start and written since by this tab.
    metas: Vec<Meta>,
    /// The scenario texts read or written, by id.
    texts: Vec<(String, String)>,
    /// This tab's session.
    current: String,
    /// The sessions other tabs showed at start.
    elsewhere: Vec<String>,
}

thread_local! {
    static STORE: RefCell<Store> = RefCell::new(Store::default());
}

fn with<R>(f: impl FnOnce(&mut Store) -> R) -> R {
    STORE.with(|s| f(&mut s.borrow_mut()))
}

/// A new session id: the time and a random part, in hex.
fn new_id() -> String {
    format!(
        "{:x}-{:x}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 2f64.powi(40)) as u64
    )
}

/// The time now, in milliseconds since 1970.
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// Why a promise from IndexedDB failed, in words.
fn reason(w: Words, e: &JsValue) -> String {
    let name = js_sys::Reflect::get(e, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default();
    if name == "QuotaExceededError" {
        return w.t(crate::i18n::K::SessionsStorageFull).to_string();
    }
    js_sys::Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| w.t(crate::i18n::K::SessionsStorageRefused).to_string())
}

/// Reads what the start needs: every session's meta, which sessions other tabs show, and
/// the scenarios of this tab's session and of the one to return to. Chooses this tab's
/// session (see the module's notes) and holds it. Never fails: without IndexedDB the page
/// works, and saves nothing.
pub async fn load(w: Words) {
    let metas = match js_list().await {
        Ok(list) => decode_metas(list),
        Err(e) => {
            gloo::console::warn!(format!(
                "ShardLab keeps no sessions: {}",
                reason(Words::ENGLISH, &e)
            ));
            return;
        }
    };
    let mut elsewhere: Vec<String> = js_held()
        .await
        .ok()
        .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
        .unwrap_or_default();
    // Read again in the same page (a test), the lock this page holds is not another tab's.
    let mine = current();
    elsewhere.retain(|id| *id != mine);
    with(|s| {
        s.ready = true;
        s.metas = metas;
        s.elsewhere = elsewhere;
    });
    migrate(w).await;
    let current = choose();
    for id in [Some(current.clone()), storage::session_get(RETURN_KEY)]
        .into_iter()
        .flatten()
    {
        if let Ok(text) = js_text(&id).await {
            if let Some(text) = text.as_string() {
                remember(&id, text);
            }
        }
    }
    show(&current);
}

fn decode_metas(list: JsValue) -> Vec<Meta> {
    let Ok(list) = list.dyn_into::<js_sys::Array>() else {
        return Vec::new();
    };
    list.iter()
        .take(MOST_SESSIONS)
        .filter_map(|v| serde_wasm_bindgen::from_value::<Meta>(v).ok())
        .filter(|m| !m.id.is_empty())
        .map(Meta::bounded)
        .collect()
}

/// This tab's session: the one it showed before a reload, unless another tab shows it too
/// (a duplicated tab), which gets a copy of its own; else the most recent one no tab
/// shows; else a new one.
fn choose() -> String {
    with(|s| {
        let mine = storage::session_get(ID_KEY);
        if let Some(id) = &mine {
            if !s.elsewhere.contains(id) {
                return id.clone();
            }
        }
        let latest = s
            .metas
            .iter()
            .filter(|m| m.aside.is_none() && !s.elsewhere.contains(&m.id))
            .max_by(|a, b| a.updated.total_cmp(&b.updated))
            .map(|m| m.id.clone());
        match (mine, latest) {
            (None, Some(latest)) => latest,
            _ => new_id(),
        }
    })
}

/// Makes `id` this tab's session.
fn show(id: &str) {
    with(|s| s.current = id.to_string());
    storage::session_set(ID_KEY, id);
    js_hold(id);
}

fn remember(id: &str, text: String) {
    with(|s| {
        s.texts.retain(|(i, _)| i != id);
        s.texts.push((id.to_string(), text));
        // The texts this tab needs: its session's and the one to return to.
        if s.texts.len() > 3 {
            s.texts.remove(0);
        }
    });
}

/// Moves sessions saved by earlier versions in localStorage (the saved session, the one
/// kept before a link, and one set aside) into IndexedDB, then removes them there.
async fn migrate(w: Words) {
    let page = storage::get_pairs(PAGE_KEY);
    let own = storage::get_string(STEPS_KEY).and_then(|s| s.parse::<u64>().ok());
    let olds = [
        (STORAGE_KEY, None, page, own),
        (PREVIOUS_KEY, None, Vec::new(), None),
        (
            FAILED_KEY,
            Some(
                w.t(crate::i18n::K::SessionsAnEarlierVersionCouldNot)
                    .to_string(),
            ),
            Vec::new(),
            None,
        ),
    ];
    for (key, aside, page, own) in olds {
        let Some(text) = storage::get_string(key) else {
            continue;
        };
        let meta = Meta {
            id: new_id(),
            name: "Saved session".to_string(),
            auto: Some(AutoName::Saved),
            created: now(),
            updated: now() - 1.0,
            own: own.unwrap_or(1),
            page,
            aside,
            ..Meta::default()
        };
        if put(w, meta, Some(text)).await.is_ok() {
            storage::remove(key);
        }
    }
    for key in [PAGE_KEY, STEPS_KEY, crate::share::LINKED_KEY] {
        storage::remove(key);
    }
}

/// Writes a session's meta (and its scenario, if given) to the copy at once, then to
/// IndexedDB.
fn put(
    w: Words,
    meta: Meta,
    text: Option<String>,
) -> impl std::future::Future<Output = Result<(), String>> {
    let value = serde_wasm_bindgen::to_value(&meta).map_err(|e| e.to_string());
    if let Some(text) = &text {
        remember(&meta.id, text.clone());
    }
    with(|s| {
        s.metas.retain(|m| m.id != meta.id);
        s.metas.push(meta);
    });
    async move {
        js_put(value?, text)
            .await
            .map(|_| ())
            .map_err(move |e| reason(w, &e))
    }
}

/// Whether sessions are kept (IndexedDB was read).
pub fn ready() -> bool {
    with(|s| s.ready)
}

/// This tab's session's id.
pub fn current() -> String {
    with(|s| s.current.clone())
}

/// What is stored of a session.
pub fn meta(id: &str) -> Option<Meta> {
    with(|s| s.metas.iter().find(|m| m.id == id).cloned())
}

/// A session's scenario text, if this tab read or wrote it.
pub fn text(id: &str) -> Option<String> {
    with(|s| {
        s.texts
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, t)| t.clone())
    })
}

/// A session's scenario text, read from IndexedDB if this tab has not.
pub async fn read_text(id: &str) -> Option<String> {
    if let Some(text) = text(id) {
        return Some(text);
    }
    js_text(id).await.ok()?.as_string()
}

/// This tab's saved session: its scenario, unless it was set aside.
pub fn saved() -> Option<String> {
    let id = current();
    meta(&id).filter(|m| m.aside.is_none())?;
    text(&id)
}

/// What a save records beside the scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saving {
    /// The session's name, in English.
    pub name: String,
    /// What the page named it by.
    pub auto: Option<AutoName>,
    /// Its steps.
    pub steps: u64,
    /// The user's own steps.
    pub own: u64,
    /// Its sharded collections.
    pub collections: Vec<String>,
    /// The page's own state.
    pub page: Vec<(String, String)>,
}

/// Saves this tab's session. Fails with why, in words (a full store, a refusal).
pub async fn save(w: Words, text: String, saving: Saving) -> Result<(), String> {
    if !ready() {
        return Ok(());
    }
    put(w, saved_meta(saving), Some(text)).await
}

/// This tab's session's record as `saving` describes it, and as the JSON text the engine's
/// worker writes beside the scenario (`page.keep`); `None` while sessions are not kept.
pub fn record(saving: Saving) -> Option<(Meta, String)> {
    if !ready() {
        return None;
    }
    let meta = saved_meta(saving);
    let value = serde_wasm_bindgen::to_value(&meta).ok()?;
    let text = js_sys::JSON::stringify(&value).ok()?.as_string()?;
    Some((meta, text))
}

/// The engine's worker kept this tab's session with `meta` as its record: the copy this
/// tab answers from follows (the text it read before is now older than the one kept).
pub fn kept(meta: Meta) {
    with(|s| {
        s.texts.retain(|(i, _)| *i != meta.id);
        s.metas.retain(|m| m.id != meta.id);
        s.metas.push(meta);
    });
}

/// This tab's session's record as `saving` describes it.
fn saved_meta(saving: Saving) -> Meta {
    let id = current();
    let created = meta(&id).map_or_else(now, |m| m.created);
    Meta {
        id,
        name: saving.name,
        auto: saving.auto,
        created,
        updated: now(),
        steps: saving.steps,
        own: saving.own,
        collections: saving.collections,
        page: saving.page,
        aside: None,
    }
    .bounded()
}

/// Before a link, a lesson or a fallback playground replaces this tab's session: a new
/// session takes its place, and the old one is the one to return to if it holds work of
/// the user's (else the one to return to stays as it was). Says whether there is one.
pub fn start_new() -> bool {
    if !ready() {
        return false;
    }
    let old = current();
    if meta(&old).is_some_and(|m| m.own > 0 && m.aside.is_none()) {
        storage::session_set(RETURN_KEY, &old);
    }
    show(&new_id());
    returnable().is_some()
}

/// The session to return to, if it is still stored.
pub fn returnable() -> Option<String> {
    let id = storage::session_get(RETURN_KEY)?;
    meta(&id).filter(|m| m.aside.is_none()).map(|m| m.id)
}

/// Shows `id` in this tab from now on (returning to a session, or opening one from the
/// list). The session it replaces becomes the one to return to if it holds work.
pub fn switch_to(id: &str) {
    let old = current();
    if old != id && meta(&old).is_some_and(|m| m.own > 0 && m.aside.is_none()) {
        storage::session_set(RETURN_KEY, &old);
    } else if storage::session_get(RETURN_KEY).as_deref() == Some(id) {
        storage::session_remove(RETURN_KEY);
    }
    show(id);
}

/// Marks this tab's session set aside (`why`), and starts a new one in its place. The
/// record stays, with its scenario, for download from "Recent sessions". Returns the
/// scenario set aside, if this tab has it.
pub fn set_aside(why: &str) -> Option<String> {
    if !ready() {
        return None;
    }
    let id = current();
    let kept = text(&id);
    if let Some(mut meta) = meta(&id) {
        meta.aside = Some(why.chars().take(400).collect());
        let written = put(Words::ENGLISH, meta, None);
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(e) = written.await {
                gloo::console::warn!(format!("ShardLab could not mark a session set aside: {e}"));
            }
        });
    }
    show(&new_id());
    kept
}

/// Every stored session, newest first, read again from IndexedDB (other tabs write too).
pub async fn list(w: Words) -> Result<Vec<Listed>, String> {
    let metas = decode_metas(js_list().await.map_err(move |e| reason(w, &e))?);
    let held: Vec<String> = js_held()
        .await
        .ok()
        .and_then(|v| serde_wasm_bindgen::from_value(v).ok())
        .unwrap_or_default();
    let here = current();
    let mut listed: Vec<Listed> = metas
        .into_iter()
        .map(|meta| Listed {
            here: meta.id == here,
            elsewhere: meta.id != here && held.contains(&meta.id),
            meta,
        })
        .collect();
    listed.sort_by(|a, b| b.meta.updated.total_cmp(&a.meta.updated));
    with(|s| s.metas = listed.iter().map(|l| l.meta.clone()).collect());
    Ok(listed)
}

/// Deletes a session (the user's act; "Recent sessions" offers it for every session but
/// the one this tab shows).
pub async fn delete(w: Words, id: &str) -> Result<(), String> {
    js_delete(id).await.map_err(move |e| reason(w, &e))?;
    with(|s| {
        s.metas.retain(|m| m.id != id);
        s.texts.retain(|(i, _)| i != id);
    });
    if storage::session_get(RETURN_KEY).as_deref() == Some(id) {
        storage::session_remove(RETURN_KEY);
    }
    Ok(())
}
