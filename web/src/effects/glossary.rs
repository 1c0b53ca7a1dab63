//! The glossary: a short, plain-language explanation of each term of art on the page
//! (shard key, jumbo, SHARD_MERGE, ...), shown by [`crate::components::term::Term`] and the
//! glossary panel.
//!
//! Like the lessons, it is content loaded on first use: it lives in `static/glossary.json`,
//! a list of `{term, id, text}`, which the page fetches ([`fetch`]) when a term is first
//! hovered, focused or tapped, or the panel opens, and keeps for the page's life.

use crate::lessons::{fetch_text_patiently, leak};
use crate::storage::{as_list, as_object, string_field};
use std::cell::Cell;

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

thread_local! {
    /// The glossary once loaded, kept (leaked once) for the page's life.
    static LOADED: Cell<Option<&'static [Entry]>> = const { Cell::new(None) };
    /// Whether a fetch is under way (one at a time, however many terms ask).
    static FETCHING: Cell<bool> = const { Cell::new(false) };
}

/// Every entry, in the file's order, once loaded (see [`fetch`]).
pub fn entries() -> Option<&'static [Entry]> {
    LOADED.with(Cell::get)
}

/// The entry for `id`, once the glossary is loaded.
pub fn entry(id: &str) -> Option<&'static Entry> {
    entries()?.iter().find(|e| e.id == id)
}

/// Fetches and reads the glossary unless it is in, then calls `then` (to redraw). A
/// glossary that cannot be fetched or read counts as empty: the terms then say so.
pub fn fetch(then: impl FnOnce() + 'static) {
    if entries().is_some() {
        return;
    }
    if FETCHING.with(|f| f.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        // Without the network it waits for it: the terms say "loading" meanwhile.
        let list = match fetch_text_patiently(GLOSSARY_URL, "the glossary", |_| ()).await {
            Ok(text) => parse_glossary(&text),
            Err(e) => Err(e),
        };
        FETCHING.with(|f| f.set(false));
        let list = list.unwrap_or_default();
        if entries().is_none() {
            LOADED.with(|l| l.set(Some(Box::leak(list.into_boxed_slice()))));
        }
        then();
    });
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
