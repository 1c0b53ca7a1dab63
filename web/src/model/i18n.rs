//! The page's words in the reader's language. Every sentence, label and notice the page
//! draws is a key of the catalogue (`static/i18n/<lang>.json`, one flat JSON object per
//! language); `build.rs` turns the English catalogue into the enum [`K`], so a key that
//! does not exist fails the build, and compiles the English text in as every language's
//! fallback. Another language's catalogue is fetched on first use (`effects/language.rs`)
//! and read into [`Words`], a value the model keeps (`Playground::words`, and every
//! catalogue read in `Model::catalogues`); nothing here is global.
//!
//! Whatever words a sentence reads them from the `Words` it is given: [`Words::t`], with
//! `{name}` placeholders [`Words::tf`], counts by the language's plural rule
//! ([`Lang::says_one`], [`Words::plural`]). Components read the page's words from the
//! context the app provides (`components/lang_switch.rs`'s `use_words`), and so redraw
//! when the language changes.

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
type Table = [Option<&'static str>];

/// A language and its catalogue, read once and kept for the page's life.
struct Catalogue {
    lang: Lang,
    /// Indexed as [`ENGLISH`]; empty where no catalogue was read.
    table: &'static Table,
    /// Whether the language's catalogue was read (English's always is).
    read: bool,
}

/// English, compiled in.
static ENGLISH_WORDS: Catalogue = Catalogue {
    lang: Lang::En,
    table: &[],
    read: true,
};

/// Simplified Chinese whose catalogue could not be read: the English words stand in.
static UNREAD_ZH_CN: Catalogue = Catalogue {
    lang: Lang::ZhCn,
    table: &[],
    read: false,
};

/// The page's words: a language and its catalogue, once read. A value, not a global: the
/// model keeps the page's ([`crate::state::Playground::words`]) and every catalogue it has
/// read, the app hands it to the components in a context, and whatever words a sentence
/// reads them from the `Words` it is given. It is one pointer: copying it is free, and
/// two are equal when they are the same catalogue read once.
#[derive(Clone, Copy)]
pub struct Words(&'static Catalogue);

impl Default for Words {
    fn default() -> Self {
        Words::ENGLISH
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Words({}, read: {})", self.0.lang.tag(), self.0.read)
    }
}

impl Words {
    /// English, compiled in.
    pub const ENGLISH: Words = Words(&ENGLISH_WORDS);

    /// `lang`'s words from its catalogue file's pairs; keys it does not have fall back to
    /// English, and keys English does not have are left out (`tests/it/i18n_catalogues.rs`
    /// fails on either). The table lives for the page's life: the model keeps every
    /// catalogue it read, so a language is read once.
    pub fn from_catalogue(lang: Lang, pairs: Vec<(String, String)>) -> Words {
        if lang == Lang::En {
            return Words::ENGLISH;
        }
        let mut table: Vec<Option<&'static str>> = vec![None; ENGLISH.len()];
        for (id, text) in pairs {
            if let Some(i) = index_of(&id) {
                if !text.is_empty() {
                    table[i] = Some(Box::leak(text.into_boxed_str()));
                }
            }
        }
        Words(Box::leak(Box::new(Catalogue {
            lang,
            table: Box::leak(table.into_boxed_slice()),
            read: true,
        })))
    }

    /// `lang` without its catalogue: its plural rule, with the English words standing in
    /// (a catalogue that could not be read).
    pub fn unread(lang: Lang) -> Words {
        match lang {
            Lang::En => Words::ENGLISH,
            Lang::ZhCn => Words(&UNREAD_ZH_CN),
        }
    }

    /// The language.
    pub fn lang(self) -> Lang {
        self.0.lang
    }

    /// Whether the language's catalogue was read (English's always is).
    pub fn is_read(self) -> bool {
        self.0.read
    }

    /// The words of `key`. (Not inlined: it is called in hundreds of places, and one copy
    /// keeps the download small.)
    #[inline(never)]
    pub fn t(self, key: K) -> &'static str {
        self.text_at(key as usize)
    }

    /// The words of `key` with its `{name}` placeholders filled in.
    #[inline(never)]
    pub fn tf(self, key: K, args: &[(&str, &dyn std::fmt::Display)]) -> String {
        fill(self.t(key), args)
    }

    /// The form of a count: `one` where the language says so ([`Lang::says_one`]),
    /// `other` otherwise, with `{n}` filled in.
    pub fn plural(self, n: u64, one: K, other: K) -> String {
        let key = if self.0.lang.says_one(n) { one } else { other };
        fill(self.t(key), &[("n", &n)])
    }

    /// Messages the engine names by id (an explanation's sentences, see the core's
    /// `engine::MESSAGES`), worded with their values; `None` in English or if one of them
    /// is not in the catalogue, for the caller to show the engine's English (which
    /// `build.rs` leaves out of the page).
    pub fn messages(self, list: &[shardlab_protocol::MessageView]) -> Option<String> {
        if list.is_empty() {
            return None;
        }
        let mut out = String::new();
        for m in list {
            out.push_str(&self.message(m)?);
        }
        Some(out)
    }

    /// A lesson of the engine's catalog's title and text: the catalogue's
    /// `preset.<id>.title` and `.text` where the language has them (with the number of
    /// shards in `{shards}`), else the engine's English.
    pub fn lesson_words(self, l: &shardlab_protocol::LessonInfo) -> (String, String) {
        let word = |part: &str, english: &str| {
            let m = shardlab_protocol::MessageView {
                id: format!("preset.{}.{part}", l.id),
                args: vec![(
                    "shards".to_string(),
                    shardlab_protocol::ArgView::Text(l.setup.shards.to_string()),
                )],
            };
            self.message(&m).unwrap_or_else(|| english.to_string())
        };
        (word("title", &l.title), word("text", &l.lesson))
    }

    /// One message and the phrases among its values.
    fn message(self, m: &shardlab_protocol::MessageView) -> Option<String> {
        let i = index_of(&m.id)?;
        if self.text_at(i).is_empty() {
            return None;
        }
        let mut values = Vec::with_capacity(m.args.len());
        for (name, value) in &m.args {
            let text = match value {
                shardlab_protocol::ArgView::Text(text) => text.clone(),
                shardlab_protocol::ArgView::Message(inner) => self.message(inner)?,
            };
            values.push((name.as_str(), text));
        }
        let args: Vec<(&str, &dyn std::fmt::Display)> = values
            .iter()
            .map(|(n, v)| (*n, v as &dyn std::fmt::Display))
            .collect();
        Some(fill(self.text_at(i), &args))
    }

    /// The words of the key at `i` of [`ENGLISH`].
    fn text_at(self, i: usize) -> &'static str {
        self.0.table.get(i).copied().flatten().unwrap_or(ENGLISH[i])
    }
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
    fn words_are_a_value_read_from_a_catalogue() {
        let pairs = || {
            vec![
                ("tabs.views".to_string(), "视图".to_string()),
                ("tabs.glossary".to_string(), String::new()),
                ("tabs.no_such_key".to_string(), "x".to_string()),
                ("words.chunk.other".to_string(), "{n} 个数据块".to_string()),
            ]
        };
        let zh = Words::from_catalogue(Lang::ZhCn, pairs());
        assert_eq!(zh.lang(), Lang::ZhCn);
        assert_eq!(zh.t(K::TabsViews), "视图");
        // A key the catalogue leaves empty, or lacks, is in English.
        assert_eq!(zh.t(K::TabsGlossary), "Glossary");
        assert_eq!(zh.t(K::TabsLeaveWorkshopMode), "Leave workshop mode");
        assert_eq!(Words::ENGLISH.t(K::TabsViews), "Views");
        // Chinese has no `one` form: one chunk takes the other.
        assert_eq!(zh.count(1u64, "chunk"), "1 个数据块");
        assert_eq!(Words::ENGLISH.count(1u64, "chunk"), "1 chunk");
        // Read and unread, equal and not: a catalogue read again is another value.
        assert!(zh.is_read() && Words::ENGLISH.is_read());
        assert!(!Words::unread(Lang::ZhCn).is_read());
        assert_eq!(Words::unread(Lang::ZhCn).t(K::TabsViews), "Views");
        let copied = zh;
        assert_eq!(copied, zh);
        assert_ne!(zh, Words::from_catalogue(Lang::ZhCn, pairs()));
        assert_ne!(zh, Words::unread(Lang::ZhCn));
        assert_eq!(Words::unread(Lang::ZhCn), Words::unread(Lang::ZhCn));
        assert_eq!(Words::unread(Lang::ZhCn).lang(), Lang::ZhCn);
        assert_eq!(Words::default(), Words::ENGLISH);
        assert_eq!(Words::from_catalogue(Lang::En, pairs()), Words::ENGLISH);
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
