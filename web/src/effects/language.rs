//! Which language the page speaks, and loading its words. The language comes from the
//! address (`lang=zh-CN`, as share links and embeds carry it), else from the reader's
//! last choice (localStorage), else from the browser's preferred languages, else English.
//! A language other than English has its catalogue fetched on first use
//! (`i18n/<tag>.json`, like the lessons and the glossary); the model keeps the words read
//! ([`crate::update::Model::catalogues`]).

use crate::i18n::{Lang, Words};
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

/// What to do once a language's words are in: hand them to the model.
type Then = Box<dyn FnOnce(Words)>;

/// The callers waiting for each language's words.
type Waiting = Vec<(Lang, Vec<Then>)>;

/// The page's language switch: the callers waiting for a catalogue under way, by
/// language, so that one fetch serves them all. The page keeps one; clones share it.
#[derive(Clone, Default)]
pub struct Switch {
    waiting: Rc<RefCell<Waiting>>,
}

/// Reads `lang`'s words, from the page's words `from` (and `known`, the model's, if the
/// page read them before), and hands them to `then` once everything the page shows is in
/// them (the lessons and the glossary in it if they are shown). A catalogue that cannot be
/// read gives the language with the English words standing in.
pub fn switch(
    switch: &Switch,
    from: Words,
    known: Option<Words>,
    lang: Lang,
    then: impl FnOnce(Words) + 'static,
) {
    if let Some(words) = known.filter(|_| shown_in(from, lang)) {
        apply(words);
        then(words);
        return;
    }
    let first = {
        let mut waiting = switch.waiting.borrow_mut();
        match waiting.iter_mut().find(|(g, _)| *g == lang) {
            Some((_, list)) => {
                list.push(Box::new(then));
                false
            }
            None => {
                waiting.push((lang, vec![Box::new(then)]));
                true
            }
        }
    };
    if first {
        let waiting = Rc::clone(&switch.waiting);
        wasm_bindgen_futures::spawn_local(async move {
            let words = fetch_words(from, known, lang, true).await;
            apply(words);
            let waiting = {
                let mut waiting = waiting.borrow_mut();
                let i = waiting.iter().position(|(g, _)| *g == lang);
                i.map(|i| waiting.remove(i).1).unwrap_or_default()
            };
            for then in waiting {
                then(words);
            }
        });
    }
}

/// Whether the lessons and the glossary, where the page (in `from`) shows them, are in
/// `lang` already.
fn shown_in(from: Words, lang: Lang) -> bool {
    (crate::lessons::lessons(from.lang()).is_none() || crate::lessons::is_loaded_in(lang))
        && (crate::glossary::entries(from.lang()).is_none() || crate::glossary::is_loaded_in(lang))
}

/// The words the page starts in (see [`initial`]), fetched before anything is said: the
/// start's notices are in them. Without the network the page starts in English words
/// rather than wait.
pub async fn start(asked: Option<&str>) -> Words {
    let lang = initial(asked);
    let words = fetch_words(Words::ENGLISH, None, lang, false).await;
    apply(words);
    words
}

/// `lang`'s words (`known` if the page read them, else from its catalogue, waiting for
/// the network if `patient`), with the lessons and the glossary in it where the page (in
/// `from`) shows them.
async fn fetch_words(from: Words, known: Option<Words>, lang: Lang, patient: bool) -> Words {
    let words = match known {
        Some(words) => words,
        None if lang == Lang::En => Words::ENGLISH,
        None => {
            let url = catalogue_url(lang);
            let what = "the translations";
            let text = if patient {
                crate::lessons::fetch_text_patiently(from, &url, what, |_| ()).await
            } else {
                crate::lessons::fetch_text(from, &url, what)
                    .await
                    .map_err(|_| format!("{what} could not be fetched"))
            };
            match text.and_then(|t| parse_catalogue(&t)) {
                Ok(pairs) => Words::from_catalogue(lang, pairs),
                Err(e) => {
                    gloo::console::warn!(format!("{url}: {e}"));
                    Words::unread(lang)
                }
            }
        }
    };
    if crate::lessons::lessons(from.lang()).is_some() {
        let _ = crate::lessons::load_in(words, lang, |_| ()).await;
    }
    if crate::glossary::entries(from.lang()).is_some() {
        crate::glossary::load_in(words, lang).await;
    }
    words
}

/// Sets the document's `lang`, which chooses fonts and line breaking, and the words of the
/// notice a panic leaves (which cannot ask the model).
fn apply(words: Words) {
    if let Some(root) = gloo::utils::document().document_element() {
        let _ = root.set_attribute("lang", words.lang().tag());
    }
    crate::recovery::speak(words);
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
