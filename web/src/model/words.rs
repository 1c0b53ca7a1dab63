//! Counts in words: "1 chunk", "2 chunks", "2 个数据块". Every count the page prints goes
//! through [`Words::count`], so a label agrees in number with the figure it carries, in the
//! page's language (its plural rules are CLDR's, as the browser's `Intl.PluralRules` has them).

use crate::i18n::{Words, K};

impl Words {
    /// `n` and `noun` in these words: one of the nouns the page counts (chunk, doc,
    /// document, insert, step, shard, command); another noun is written in English.
    pub fn count(self, n: impl Into<u64>, noun: &str) -> String {
        let n = n.into();
        let forms = match noun {
            "chunk" => Some((K::WordsChunkOne, K::WordsChunkOther)),
            "doc" => Some((K::WordsDocOne, K::WordsDocOther)),
            "document" => Some((K::WordsDocumentOne, K::WordsDocumentOther)),
            "insert" => Some((K::WordsInsertOne, K::WordsInsertOther)),
            "step" => Some((K::WordsStepOne, K::WordsStepOther)),
            "shard" => Some((K::WordsShardOne, K::WordsShardOther)),
            "command" => Some((K::WordsCommandOne, K::WordsCommandOther)),
            _ => None,
        };
        match forms {
            Some((one, other)) => self.plural(n, one, other),
            None if n == 1 => format!("1 {noun}"),
            None => format!("{n} {noun}s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::i18n::Words;
    fn count(n: impl Into<u64>, noun: &str) -> String {
        Words::ENGLISH.count(n, noun)
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(count(0u64, "chunk"), "0 chunks");
        assert_eq!(count(1u64, "chunk"), "1 chunk");
        assert_eq!(count(1u32, "doc"), "1 doc");
        assert_eq!(count(2u64, "doc"), "2 docs");
        assert_eq!(count(901u64, "document"), "901 documents");
    }
}
