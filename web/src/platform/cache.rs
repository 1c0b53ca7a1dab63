//! Content fetched once and kept for the page's life, by what it is and its language: the
//! lessons and the glossary. Each list is leaked once, so that its items can be handed
//! around as `&'static`; the first list kept for a kind and a language is the one kept.
//! Also which kinds are being fetched, so that a fetch is not started twice.

use crate::i18n::Lang;
use std::any::Any;
use std::cell::RefCell;

/// A kept list: its kind, its language and the leaked list (a `&'static [T]`).
type Kept = (&'static str, Lang, Box<dyn Any>);

thread_local! {
    /// The lists kept: their kind, language and the leaked list (a `&'static [T]`).
    static KEPT: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
    /// The kinds whose fetch is under way.
    static FETCHING: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// The list of `kind` in `lang`, if kept.
pub fn kept<T: 'static>(kind: &'static str, lang: Lang) -> Option<&'static [T]> {
    KEPT.with(|k| {
        k.borrow()
            .iter()
            .filter(|(w, g, _)| *w == kind && *g == lang)
            .find_map(|(_, _, list)| list.downcast_ref::<&'static [T]>().copied())
    })
}

/// Keeps `list` as the list of `kind` in `lang` for the page's life, unless one is kept
/// already; gives the one kept.
pub fn keep<T: 'static>(kind: &'static str, lang: Lang, list: Vec<T>) -> &'static [T] {
    if let Some(kept) = kept::<T>(kind, lang) {
        return kept;
    }
    let leaked: &'static [T] = Box::leak(list.into_boxed_slice());
    KEPT.with(|k| k.borrow_mut().push((kind, lang, Box::new(leaked))));
    leaked
}

/// Notes that a fetch of `kind` starts: false if one is under way already.
pub fn start_fetch(kind: &'static str) -> bool {
    FETCHING.with(|f| {
        let mut f = f.borrow_mut();
        if f.contains(&kind) {
            return false;
        }
        f.push(kind);
        true
    })
}

/// Notes that the fetch of `kind` is over.
pub fn end_fetch(kind: &'static str) {
    FETCHING.with(|f| f.borrow_mut().retain(|k| *k != kind));
}
