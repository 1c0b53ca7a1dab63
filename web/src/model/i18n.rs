//! The page's words in the reader's language. Every sentence, label and notice the page
//! draws is a key of the catalogue (`static/i18n/<lang>.json`, one flat JSON object per
//! language); `build.rs` turns the English catalogue into the enum [`K`], so a key that
//! does not exist fails the build, and compiles the English text in as every language's
//! fallback. Another language's catalogue is fetched on first use (`effects/language.rs`)
//! and kept here for the page's life; [`t`] reads the current one.
//!
//! Placeholders are `{name}` ([`tf`]); counts choose their form by the language's plural
//! rule ([`Lang::says_one`], [`plural`]). Components redraw on a change of language through
//! the context `components/lang_switch.rs`'s `use_lang` reads.

use std::cell::{Cell, RefCell};

include!(concat!(env!("OUT_DIR"), "/i18n_keys.rs"));

/// A key's id as the catalogues are matched by it: 32-bit FNV-1a of its bytes (`build.rs`
/// computes the same for every key of `en.json` and checks that no two collide).
pub fn id_hash(id: &str) -> u32 {
    id.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// The index in [`ENGLISH`] of the key `id`, if the page has it.
fn index_of(id: &str) -> Option<usize> {
    let hash = id_hash(id);
    ID_HASHES.iter().position(|h| *h == hash)
}

/// A language of the page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English, compiled in.
    #[default]
    En,
    /// Simplified Chinese (`zh-CN`).
    ZhCn,
}

impl Lang {
    /// Every language, in the order the switch lists them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::ZhCn];

    /// Its BCP 47 tag, as links, `<html lang>` and the catalogue's file name carry it.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }

    /// Its name in itself, for the switch.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::ZhCn => "中文",
        }
    }

    /// Whether a count of `n` takes the `one` form: CLDR's plural rule for whole numbers
    /// (what `Intl.PluralRules` answers), English's `one` being exactly 1 and Chinese
    /// having no `one` form.
    pub fn says_one(self, n: u64) -> bool {
        match self {
            Lang::En => n == 1,
            Lang::ZhCn => false,
        }
    }

    /// The language a tag asks for (`zh`, `zh-CN`, `zh-Hans-SG`, `en-GB`, ...), if the page
    /// has it.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let lower = tag.trim().to_ascii_lowercase();
        let primary = lower.split(['-', '_']).next().unwrap_or("");
        match primary {
            "en" => Some(Lang::En),
            // Traditional Chinese is not Simplified: only the Simplified scripts and regions.
            "zh" if !(lower.contains("hant")
                || lower.ends_with("-tw")
                || lower.ends_with("-hk")
                || lower.ends_with("-mo")) =>
            {
                Some(Lang::ZhCn)
            }
            _ => None,
        }
    }
}

/// A language's words, indexed as [`ENGLISH`] (`None`: the English stand in).
type Table = Vec<Option<&'static str>>;

thread_local! {
    /// The language the page speaks now.
    static CURRENT: Cell<Lang> = const { Cell::new(Lang::En) };
    /// The loaded catalogue of a language other than English, indexed as [`ENGLISH`].
    static LOADED: RefCell<Vec<(Lang, Table)>> = const { RefCell::new(Vec::new()) };
}

/// The language the page speaks now.
pub fn current() -> Lang {
    CURRENT.with(Cell::get)
}

/// Whether `lang`'s words are in (English always is).
pub fn is_loaded(lang: Lang) -> bool {
    lang == Lang::En || LOADED.with(|l| l.borrow().iter().any(|(g, _)| *g == lang))
}

/// Makes `lang` the page's language. Its catalogue should be in ([`install`]); until it is,
/// the English words stand in.
pub fn set_current(lang: Lang) {
    CURRENT.with(|c| c.set(lang));
}

/// Takes in a language's catalogue, read from its file; keys it does not have fall back to
/// English, and keys English does not have are left out (`tests/it/i18n_catalogues.rs`
/// fails on either).
pub fn install(lang: Lang, pairs: Vec<(String, String)>) {
    let mut table: Table = vec![None; ENGLISH.len()];
    for (id, text) in pairs {
        if let Some(i) = index_of(&id) {
            if !text.is_empty() {
                table[i] = Some(Box::leak(text.into_boxed_str()));
            }
        }
    }
    LOADED.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|(g, _)| *g != lang);
        l.push((lang, table));
    });
}

/// The words of `key` in the page's language. (Not inlined: it is called in hundreds of
/// places, and one copy keeps the download small.)
#[inline(never)]
pub fn t(key: K) -> &'static str {
    text_at(key as usize)
}

/// Messages the engine names by id (an explanation's sentences, see the core's
/// `engine::MESSAGES`), worded in the page's language with their values; `None` in English
/// or if one of them is not in the catalogue, for the caller to show the engine's English
/// (which `build.rs` leaves out of the page).
pub fn messages(list: &[shardlab_protocol::MessageView]) -> Option<String> {
    if list.is_empty() {
        return None;
    }
    let mut out = String::new();
    for m in list {
        out.push_str(&message(m)?);
    }
    Some(out)
}

/// A lesson of the engine's catalog's title and text in the page's language: the
/// catalogue's `preset.<id>.title` and `.text` where the language has them (with the
/// number of shards in `{shards}`), else the engine's English.
pub fn lesson_words(l: &shardlab_protocol::LessonInfo) -> (String, String) {
    let word = |part: &str, english: &str| {
        let m = shardlab_protocol::MessageView {
            id: format!("preset.{}.{part}", l.id),
            args: vec![(
                "shards".to_string(),
                shardlab_protocol::ArgView::Text(l.setup.shards.to_string()),
            )],
        };
        message(&m).unwrap_or_else(|| english.to_string())
    };
    (word("title", &l.title), word("text", &l.lesson))
}

/// One message and the phrases among its values, worded in the page's language.
fn message(m: &shardlab_protocol::MessageView) -> Option<String> {
    let i = index_of(&m.id)?;
    if text_at(i).is_empty() {
        return None;
    }
    let mut values = Vec::with_capacity(m.args.len());
    for (name, value) in &m.args {
        let text = match value {
            shardlab_protocol::ArgView::Text(text) => text.clone(),
            shardlab_protocol::ArgView::Message(inner) => message(inner)?,
        };
        values.push((name.as_str(), text));
    }
    let args: Vec<(&str, &dyn std::fmt::Display)> = values
        .iter()
        .map(|(n, v)| (*n, v as &dyn std::fmt::Display))
        .collect();
    Some(fill(text_at(i), &args))
}

/// The words of the key at `i` of [`ENGLISH`] in the page's language.
fn text_at(i: usize) -> &'static str {
    let lang = current();
    if lang != Lang::En {
        let found = LOADED.with(|l| {
            l.borrow()
                .iter()
                .find(|(g, _)| *g == lang)
                .and_then(|(_, table)| table[i])
        });
        if let Some(text) = found {
            return text;
        }
    }
    ENGLISH[i]
}

/// The words of `key` with its `{name}` placeholders filled in.
#[inline(never)]
pub fn tf(key: K, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    fill(t(key), args)
}

/// Fills `{name}` placeholders of `text`; a placeholder without a value stays as written.
pub fn fill(text: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((name, close)) if args.iter().any(|(n, _)| *n == name) => {
                if let Some((_, value)) = args.iter().find(|(n, _)| *n == name) {
                    out.push_str(&value.to_string());
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The form of a count: `one` where the language says so ([`Lang::says_one`]), `other`
/// otherwise, with `{n}` filled in.
pub fn plural(n: u64, one: K, other: K) -> String {
    let key = if current().says_one(n) { one } else { other };
    fill(t(key), &[("n", &n)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn placeholders_are_filled_and_unknown_ones_kept() {
        assert_eq!(fill("{n} of {m}", &[("n", &1), ("m", &"two")]), "1 of two");
        assert_eq!(fill("{x: 1} and {n}", &[("n", &3)]), "{x: 1} and 3");
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_catalogue_is_matched_by_its_ids() {
        assert_eq!(id_hash(""), 0x811c_9dc5);
        assert_eq!(id_hash("a"), 0xe40c_292c);
        assert_eq!(
            index_of("tabs.playground"),
            Some(K::TabsPlayground as usize)
        );
        assert_eq!(index_of("tabs.no_such_key"), None);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_count_of_one_is_one_in_english_only() {
        assert!(Lang::En.says_one(1));
        assert!(!Lang::En.says_one(0) && !Lang::En.says_one(2) && !Lang::En.says_one(21));
        assert!(!Lang::ZhCn.says_one(1));
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn tags_choose_a_language() {
        assert_eq!(Lang::from_tag("zh-CN"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_tag("zh-Hans"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_tag("zh"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_tag("zh-TW"), None);
        assert_eq!(Lang::from_tag("en-GB"), Some(Lang::En));
        assert_eq!(Lang::from_tag("fr"), None);
    }
}
