//! Generates the page's text keys from the English catalogue (`static/i18n/en.json`), so
//! that a key the catalogue lacks fails the build. The output, `$OUT_DIR/i18n_keys.rs`, is
//! an enum `K` with one variant a key (`header.tagline` becomes `HeaderTagline`),
//! `ENGLISH`, each key's English text in the enum's order (English is compiled in as the
//! fallback of every other language), and `ID_HASHES`, each key's id as its hash.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let path = Path::new(&manifest).join("../static/i18n/en.json");
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).expect("static/i18n/en.json is readable");
    let pairs = parse_flat(&text).unwrap_or_else(|e| panic!("static/i18n/en.json: {e}"));
    let mut variants = String::new();
    let mut english_texts = String::new();
    let mut hashes = String::new();
    let mut seen: Vec<(String, u32)> = Vec::new();
    for (id, english) in &pairs {
        let name = variant(id);
        let hash = id_hash(id);
        assert!(
            !seen.iter().any(|(n, _)| *n == name),
            "static/i18n/en.json: the key {id} is there twice"
        );
        assert!(
            !seen.iter().any(|(_, h)| *h == hash),
            "static/i18n/en.json: {id}'s hash is another key's: rename it"
        );
        assert!(
            !english.trim().is_empty(),
            "static/i18n/en.json: {id} is empty"
        );
        writeln!(variants, "    {name},").expect("writing to a string");
        // The engine's messages (`explain.*`, `event.*`, `heat.*`, `analyze.*`, `engine.*`,
        // `rank.*`)
        // and its lessons' words (`preset.*`) come with their English from the engine, so
        // the page keeps only other languages' words for them: the core's text stays out
        // of the page's wasm.
        let compiled = if [
            "explain.", "event.", "heat.", "analyze.", "engine.", "rank.", "preset.",
        ]
        .iter()
        .any(|prefix| id.starts_with(prefix))
        {
            ""
        } else {
            english.as_str()
        };
        writeln!(english_texts, "    {compiled:?},").expect("writing to a string");
        writeln!(hashes, "    {hash:#010x},").expect("writing to a string");
        seen.push((name, hash));
    }
    // The ids themselves are not in the page: a catalogue's ids are matched by their hash
    // (`id_hash`, FNV-1a), which this checks is unique.
    let out = format!(
        "/// A key of the page's text catalogue (`static/i18n/en.json`).\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n\
         #[allow(missing_docs)]\n\
         pub enum K {{\n{variants}}}\n\n\
         /// Each key's English text, in the order of [`K`].\n\
         pub const ENGLISH: [&str; {n}] = [\n{english_texts}];\n\n\
         /// Each key's id as its hash ([`id_hash`]), in the order of [`K`].\n\
         pub const ID_HASHES: [u32; {n}] = [\n{hashes}];\n",
        n = pairs.len()
    );
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("i18n_keys.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// A key's id as the page matches it: 32-bit FNV-1a of its bytes (`model/i18n.rs` has the
/// same function).
fn id_hash(id: &str) -> u32 {
    id.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// `guide.next_step` → `GuideNextStep`.
fn variant(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Reads a flat JSON object of strings, in the file's order.
fn parse_flat(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut chars = text.trim().chars().peekable();
    let mut out = Vec::new();
    if chars.next() != Some('{') {
        return Err("a catalogue is one JSON object".into());
    }
    loop {
        skip_space(&mut chars);
        match chars.peek() {
            Some('}') => return Ok(out),
            Some(',') => {
                chars.next();
                continue;
            }
            Some('"') => {}
            _ => return Err("expected a key".into()),
        }
        let key = string(&mut chars)?;
        skip_space(&mut chars);
        if chars.next() != Some(':') {
            return Err(format!("expected ':' after {key}"));
        }
        skip_space(&mut chars);
        let value = string(&mut chars).map_err(|e| format!("{key}: {e} (values are strings)"))?;
        out.push((key, value));
    }
}

fn skip_space(chars: &mut std::iter::Peekable<std::str::Chars>) {
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
}

fn string(chars: &mut std::iter::Peekable<std::str::Chars>) -> Result<String, String> {
    if chars.next() != Some('"') {
        return Err("expected a string".into());
    }
    let mut s = String::new();
    loop {
        match chars.next().ok_or("unterminated string")? {
            '"' => return Ok(s),
            '\\' => match chars.next().ok_or("unterminated string")? {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16).map_err(|_| "bad \\u escape")?;
                    s.push(char::from_u32(code).ok_or("bad \\u escape")?);
                }
                c => s.push(c),
            },
            c => s.push(c),
        }
    }
}
