//! The glossary: a short, plain-language explanation of each term of art on the page
//! (shard key, jumbo, SHARD_MERGE, ...), shown by [`crate::components::term::Term`] and the
//! glossary panel.
//!
//! Like the lessons, it is content loaded on first use: it lives in `static/glossary.json`,
//! a list of `{term, id, text}`, which the page fetches ([`fetch`]) when a term is first
//! hovered, focused or tapped, or the panel opens, and keeps for the page's life.

use crate::i18n::{Lang, Words, K};
use crate::lessons::{fetch_text_patiently, leak};
use crate::storage::{as_list, as_object, string_field};

/// Where the page fetches the glossary from, relative to the page.
pub const GLOSSARY_URL: &str = "glossary.json";

/// One term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The term as written on the page, e.g. `numInitialChunks`.
    pub term: &'static str,
    /// Its identifier, which the page's terms name.
    pub id: &'static str,
    /// The explanation.
    pub text: &'static str,
}

/// Where the page fetches a language's glossary from: English's own file, or its
/// translation (`i18n/glossary.zh-CN.json`), with the same ids in the same order.
pub fn glossary_url(lang: Lang) -> String {
    match lang {
        Lang::En => GLOSSARY_URL.to_string(),
        other => format!("i18n/glossary.{}.json", other.tag()),
    }
}

/// The glossary's kind in the cache: once loaded, by language, it is kept there (leaked
/// once) for the page's life; and one fetch at a time, however many terms ask.
const KIND: &str = "glossary";

fn loaded_in(lang: Lang) -> Option<&'static [Entry]> {
    crate::cache::kept(KIND, lang)
}

/// Whether the glossary in `lang` is in.
pub fn is_loaded_in(lang: Lang) -> bool {
    loaded_in(lang).is_some()
}

/// Every entry, in the file's order, once loaded (see [`fetch`]): in `lang`, or in
/// English until its translation is in.
pub fn entries(lang: Lang) -> Option<&'static [Entry]> {
    loaded_in(lang).or_else(|| loaded_in(Lang::En))
}

/// The entry for `id`, once the glossary is loaded (in `lang`, or in English).
pub fn entry(lang: Lang, id: &str) -> Option<&'static Entry> {
    entries(lang)?.iter().find(|e| e.id == id)
}

/// Fetches and reads the glossary in the language of `w`, the page's words, unless it is
/// in, then calls `then` (to redraw). A glossary that cannot be fetched or read counts as
/// empty: the terms then say so.
pub fn fetch(w: Words, then: impl FnOnce() + 'static) {
    if entries(w.lang()).is_some() {
        return;
    }
    if !crate::cache::start_fetch(KIND) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        load_in(w, w.lang()).await;
        crate::cache::end_fetch(KIND);
        then();
    });
}

/// Fetches and reads the glossary in `lang` unless it is in; a translation that cannot be
/// read gives the English glossary, and an English one that cannot, an empty one. Without
/// the network it waits for it.
pub async fn load_in(w: Words, lang: Lang) {
    if is_loaded_in(lang) {
        return;
    }
    let what = w.t(K::GlossaryTheGlossary);
    let read = |text: Result<String, String>| text.and_then(|t| parse_glossary(&t));
    let mut list = read(fetch_text_patiently(w, &glossary_url(lang), what, |_| ()).await);
    let mut into = lang;
    if list.is_err() && lang != Lang::En {
        into = Lang::En;
        list = read(fetch_text_patiently(w, GLOSSARY_URL, what, |_| ()).await);
    }
    crate::cache::keep(KIND, into, list.unwrap_or_default());
}

/// Reads the glossary file, checking every entry: three non-empty strings, ids unique.
pub fn parse_glossary(text: &str) -> Result<Vec<Entry>, String> {
    let bad = |what: &str| format!("the glossary file is malformed: {what}");
    let Some(list) = crate::storage::parse_json(text)
        .ok()
        .as_ref()
        .and_then(as_list)
    else {
        return Err(bad("it must hold a list of terms"));
    };
    let mut out: Vec<Entry> = Vec::new();
    for item in list.iter() {
        let field = |key: &str| {
            as_object(&item)
                .and_then(|d| string_field(&d, key))
                .filter(|s| !s.trim().is_empty())
                .map(|s| leak(&s))
                .ok_or_else(|| bad(&format!("each term needs a non-empty '{key}'")))
        };
        let e = Entry {
            term: field("term")?,
            id: field("id")?,
            text: field("text")?,
        };
        if out.iter().any(|o| o.id == e.id) {
            return Err(bad(&format!("the id '{}' is used twice", e.id)));
        }
        out.push(e);
    }
    Ok(out)
}
