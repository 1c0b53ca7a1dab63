//! The generator of `src/query/case_fold.rs`'s tables, run as a test: it rebuilds the
//! `LOWER` and `UPPER` tables from the standard library's `char::to_lowercase` and
//! `char::to_uppercase` and checks that the file holds exactly them.
//!
//! After a toolchain update with new Unicode data, regenerate the tables with
//!
//! ```text
//! UPDATE_CASE_FOLD=1 cargo test -p shardlab --test it case_fold_table
//! ```
//!
//! which prints the new tables and writes them into the file in place of the old ones.
// It reads and writes the source file, which a wasm32 test cannot reach.
#![cfg(not(target_arch = "wasm32"))]

use std::fmt::Write as _;

/// The file the tables live in.
const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/query/case_fold.rs");

/// The first line of the generated block.
const FIRST_LINE: &str = "static LOWER: &[(u32, u16, i32)] = &[\n";

/// Where the generated block ends: the end of the second table.
const UPPER_HEADER: &str = "static UPPER: &[(u32, u16, i32)] = &[\n";

/// The high bit of a run's length: the run covers every other character.
const STRIDE_TWO: u16 = 0x8000;

/// Every character `map` changes, with the offset from it to its mapping, in order.
fn changes(map: impl Fn(char) -> char) -> Vec<(u32, i32)> {
    (0..=0x10_ffff)
        .filter_map(char::from_u32)
        .filter_map(|c| {
            let to = map(c);
            (to != c).then(|| (u32::from(c), u32::from(to) as i32 - u32::from(c) as i32))
        })
        .collect()
}

/// Groups the changes into runs `(start, len | stride flag, offset)`, greedily from the
/// first character: a run continues while the next changed character is one (or, for
/// a run whose first two characters are two apart, two) further on with the same
/// offset. A lone character is a run of one with a stride of one.
fn runs(changes: &[(u32, i32)]) -> Vec<(u32, u16, i32)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        let (start, offset) = changes[i];
        let stride = match changes.get(i + 1) {
            Some(&(next, o)) if o == offset && (next == start + 1 || next == start + 2) => {
                next - start
            }
            _ => 1,
        };
        let mut len = 1;
        while changes
            .get(i + len)
            .is_some_and(|&(c, o)| o == offset && c == start + stride * len as u32)
        {
            len += 1;
        }
        let len = u16::try_from(len).expect("a run fits in 15 bits");
        assert!(len < STRIDE_TWO, "a run fits in 15 bits");
        let flag = if stride == 2 { STRIDE_TWO } else { 0 };
        out.push((start, len | flag, offset));
        i += usize::from(len);
    }
    out
}

/// One table as Rust source.
fn table(name: &str, runs: &[(u32, u16, i32)]) -> String {
    let mut out = format!("static {name}: &[(u32, u16, i32)] = &[\n");
    for (start, len, offset) in runs {
        let _ = writeln!(out, "    ({start:#X}, {len:#X}, {offset}),");
    }
    out.push_str("];\n");
    out
}

/// Both tables, as they stand in the file.
fn generated() -> String {
    let lower = changes(|c| c.to_lowercase().next().unwrap_or(c));
    let upper = changes(|c| c.to_uppercase().next().unwrap_or(c));
    table("LOWER", &runs(&lower)) + &table("UPPER", &runs(&upper))
}

/// The byte range of the generated block in the file's text.
fn block(text: &str) -> std::ops::Range<usize> {
    let start = text.find(FIRST_LINE).expect("the LOWER table");
    let upper = start + text[start..].find(UPPER_HEADER).expect("the UPPER table");
    let end = upper + text[upper..].find("];\n").expect("the end of UPPER") + 3;
    start..end
}

#[test]
fn case_fold_table() {
    let text = std::fs::read_to_string(PATH).expect("src/query/case_fold.rs");
    let range = block(&text);
    let fresh = generated();
    if std::env::var("UPDATE_CASE_FOLD").as_deref() == Ok("1") {
        print!("{fresh}");
        if text[range.clone()] != fresh {
            let mut updated = text.clone();
            updated.replace_range(range, &fresh);
            std::fs::write(PATH, updated).expect("writing src/query/case_fold.rs");
        }
        return;
    }
    assert!(
        text[range] == fresh,
        "src/query/case_fold.rs's tables differ from the standard library's case mappings; \
         regenerate them with UPDATE_CASE_FOLD=1 cargo test -p shardlab --test it case_fold_table"
    );
}
