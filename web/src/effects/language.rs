//! Which language the page speaks, and loading its words. The language comes from the
//! address (`lang=zh-CN`, as share links and embeds carry it), else from the reader's
//! last choice (localStorage), else from the browser's preferred languages, else English.
//! A language other than English has its catalogue fetched on first use
//! (`i18n/<tag>.json`, like the lessons and the glossary) and kept for the page's life.

use crate::i18n::{self, Lang};
use crate::storage;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// localStorage: the language the reader chose in the header.
pub const LANG_KEY: &str = "shardlab.lang";

/// The catalogue file of a language, relative to the page.
pub fn catalogue_url(lang: Lang) -> String {
    format!("i18n/{}.json", lang.tag())
}

/// The language to start in: the address's `lang`, the reader's choice, the browser's.
pub fn initial(from_address: Option<&str>) -> Lang {
    if let Some(lang) = from_address.and_then(Lang::from_tag) {
        return lang;
    }
    if let Some(lang) = storage::get_string(LANG_KEY)
        .as_deref()
        .and_then(Lang::from_tag)
    {
        return lang;
    }
    browser_preference().unwrap_or_default()
}

/// The first of the browser's preferred languages the page has.
fn browser_preference() -> Option<Lang> {
    let navigator = gloo::utils::window().navigator();
    let listed: Vec<String> = navigator
        .languages()
        .iter()
        .filter_map(|v| v.as_string())
        .chain(navigator.language())
        .collect();
    listed.iter().find_map(|tag| Lang::from_tag(tag))
}

/// Remembers the reader's choice for the next visit.
pub fn remember(lang: Lang) {
    storage::set_string(LANG_KEY, lang.tag());
}

/// What to do once a language's words are in.
type Then = Box<dyn FnOnce()>;

/// The callers waiting for each language's words.
type Waiting = Vec<(Lang, Vec<Then>)>;

/// The page's language switch: the callers waiting for a catalogue under way, by
/// language, so that one fetch serves them all. The page keeps one; clones share it.
#[derive(Clone, Default)]
pub struct Switch {
    waiting: Rc<RefCell<Waiting>>,
}

/// Makes `lang` the page's language once its words are in (its catalogue, and the
/// lessons and the glossary in it if they are shown in another), then calls `then` (to
/// redraw with it). A catalogue that cannot be read leaves the English words standing in.
pub fn switch(switch: &Switch, lang: Lang, then: impl FnOnce() + 'static) {
    if ready(lang) {
        apply(lang);
        then();
        return;
    }
    let first = {
        let mut w = switch.waiting.borrow_mut();
        match w.iter_mut().find(|(g, _)| *g == lang) {
            Some((_, list)) => {
                list.push(Box::new(then));
                false
            }
            None => {
                w.push((lang, vec![Box::new(then)]));
                true
            }
        }
    };
    if first {
        let waiting = Rc::clone(&switch.waiting);
        wasm_bindgen_futures::spawn_local(async move {
            fetch_words(lang, true).await;
            apply(lang);
            let waiting = {
                let mut w = waiting.borrow_mut();
                let i = w.iter().position(|(g, _)| *g == lang);
                i.map(|i| w.remove(i).1).unwrap_or_default()
            };
            for then in waiting {
                then();
            }
        });
    }
}

/// Whether everything the page shows is in `lang` already.
fn ready(lang: Lang) -> bool {
    i18n::is_loaded(lang)
        && (crate::lessons::lessons().is_none() || crate::lessons::is_loaded_in(lang))
        && (crate::glossary::entries().is_none() || crate::glossary::is_loaded_in(lang))
}

/// The language the page starts in (see [`initial`]), its words fetched and in force
/// before anything is said: the start's notices are in it. Without the network the page
/// starts in English rather than wait.
pub async fn start(asked: Option<&str>) -> Lang {
    let lang = initial(asked);
    if !ready(lang) {
        fetch_words(lang, false).await;
    }
    apply(lang);
    lang
}

/// Fetches what `lang` lacks: its catalogue (waiting for the network if `patient`), and
/// the lessons and the glossary in it if the page shows them in another language.
async fn fetch_words(lang: Lang, patient: bool) {
    if !i18n::is_loaded(lang) {
        let url = catalogue_url(lang);
        let what = "the translations";
        let text = if patient {
            crate::lessons::fetch_text_patiently(&url, what, |_| ()).await
        } else {
            crate::lessons::fetch_text(&url, what)
                .await
                .map_err(|_| format!("{what} could not be fetched"))
        };
        match text.and_then(|t| parse_catalogue(&t)) {
            Ok(pairs) => i18n::install(lang, pairs),
            Err(e) => gloo::console::warn!(format!("{url}: {e}")),
        }
    }
    if crate::lessons::lessons().is_some() {
        let _ = crate::lessons::load_in(lang, |_| ()).await;
    }
    if crate::glossary::entries().is_some() {
        crate::glossary::load_in(lang).await;
    }
}

/// Sets the language and the document's `lang`, which chooses fonts and line breaking.
fn apply(lang: Lang) {
    i18n::set_current(lang);
    if let Some(root) = gloo::utils::document().document_element() {
        let _ = root.set_attribute("lang", lang.tag());
    }
}

/// Reads a catalogue file: one JSON object of strings.
pub fn parse_catalogue(text: &str) -> Result<Vec<(String, String)>, String> {
    let Some(object) = storage::parse_json(text)
        .ok()
        .as_ref()
        .and_then(storage::as_object)
    else {
        return Err("a catalogue is one JSON object of strings".into());
    };
    Ok(js_sys::Object::entries(&object)
        .iter()
        .filter_map(|pair| {
            let pair: js_sys::Array = pair.unchecked_into();
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect())
}
