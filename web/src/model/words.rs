//! Counts in words: "1 chunk", "2 chunks". Every count the page prints goes through
//! [`count`], so a label agrees in number with the figure it carries.

/// `n` and `noun`, in the plural unless `n` is 1 (the nouns the page counts all take an
/// `s`: doc, document, chunk, shard, step, insert, command).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

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
