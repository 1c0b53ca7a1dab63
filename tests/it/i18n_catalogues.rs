//! The page's text catalogues (`static/i18n/<lang>.json`) agree with the English one:
//! the same keys, the same `{placeholders}` in each value, no empty value. Translated
//! lessons and glossaries (`static/i18n/lessons.<lang>.json`,
//! `static/i18n/glossary.<lang>.json`) keep the English file's shape: the same lessons,
//! steps, choices and terms, with the same ids, scenarios and right answers, and only
//! their words changed.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A JSON value, as small as these files need.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Json {
        self.space();
        match self.text[self.at] {
            b'{' => {
                self.at += 1;
                let mut out = Vec::new();
                loop {
                    self.space();
                    match self.text[self.at] {
                        b'}' => {
                            self.at += 1;
                            return Json::Obj(out);
                        }
                        b',' => self.at += 1,
                        _ => {
                            let Json::Str(key) = self.value() else {
                                panic!("a key at {}", self.at)
                            };
                            self.space();
                            assert_eq!(self.text[self.at], b':', "':' at {}", self.at);
                            self.at += 1;
                            out.push((key, self.value()));
                        }
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut out = Vec::new();
                loop {
                    self.space();
                    match self.text[self.at] {
                        b']' => {
                            self.at += 1;
                            return Json::Arr(out);
                        }
                        b',' => self.at += 1,
                        _ => out.push(self.value()),
                    }
                }
            }
            b'"' => Json::Str(self.string()),
            _ => self.word(),
        }
    }

    fn string(&mut self) -> String {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.text[self.at];
            self.at += 1;
            match c {
                b'"' => return String::from_utf8(out).expect("UTF-8"),
                b'\\' => {
                    let e = self.text[self.at];
                    self.at += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let hex =
                                std::str::from_utf8(&self.text[self.at..self.at + 4]).expect("hex");
                            self.at += 4;
                            let c = char::from_u32(u32::from_str_radix(hex, 16).expect("hex"))
                                .expect("a character");
                            out.extend(c.to_string().bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
    }

    fn word(&mut self) -> Json {
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|c| !b",]} \n\r\t".contains(c))
        {
            self.at += 1;
        }
        match &self.text[start..self.at] {
            b"null" => Json::Null,
            b"true" => Json::Bool(true),
            b"false" => Json::Bool(false),
            n => Json::Num(String::from_utf8(n.to_vec()).expect("UTF-8")),
        }
    }
}

fn read(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Reader {
        text: text.as_bytes(),
        at: 0,
    }
    .value()
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("static/i18n")
}

/// Every file of `static/i18n` whose name starts with `prefix` (empty: the catalogues),
/// as (language tag, path).
fn files(prefix: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir()).expect("static/i18n").flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        let tag = if prefix.is_empty() {
            (!stem.contains('.')).then(|| stem.to_owned())
        } else {
            stem.strip_prefix(prefix).map(str::to_owned)
        };
        if let Some(tag) = tag {
            out.push((tag, path));
        }
    }
    out.sort();
    out
}

/// The `{name}` placeholders of a value.
fn placeholders(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.insert(name.to_owned());
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

fn flat(json: &Json, what: &str) -> Vec<(String, String)> {
    let Json::Obj(pairs) = json else {
        panic!("{what}: a catalogue is one JSON object")
    };
    pairs
        .iter()
        .map(|(k, v)| match v {
            Json::Str(s) => (k.clone(), s.clone()),
            _ => panic!("{what}: {k} is not a string"),
        })
        .collect()
}

#[test]
fn every_catalogue_has_the_english_keys_placeholders_and_no_empty_value() {
    let catalogues = files("");
    assert!(
        catalogues.iter().any(|(t, _)| t == "en"),
        "static/i18n/en.json"
    );
    assert!(
        catalogues.len() >= 2,
        "at least one language besides English"
    );
    let english = flat(&read(&dir().join("en.json")), "en.json");
    let mut problems = Vec::new();
    for (tag, path) in &catalogues {
        let pairs = flat(&read(path), tag);
        let mut seen = BTreeSet::new();
        for (key, value) in &pairs {
            if !seen.insert(key.clone()) {
                problems.push(format!("{tag}: {key} is there twice"));
            }
            if value.trim().is_empty() {
                problems.push(format!("{tag}: {key} is empty"));
            }
            match english.iter().find(|(k, _)| k == key) {
                None => problems.push(format!("{tag}: {key} is not in en.json")),
                Some((_, en)) if placeholders(en) != placeholders(value) => problems.push(format!(
                    "{tag}: {key} has placeholders {:?}, English {:?}",
                    placeholders(value),
                    placeholders(en)
                )),
                Some(_) => {}
            }
        }
        for (key, _) in &english {
            if !seen.contains(key) {
                problems.push(format!("{tag}: {key} is missing"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_catch_what_they_should() {
    assert_eq!(
        placeholders("{n} of {total} in {x: 1}"),
        ["n", "total"].iter().map(|s| s.to_string()).collect()
    );
    let json = Reader {
        text: br#"{"a": "x\u00e9", "b": [1, true, null, {"c": "d"}]}"#,
        at: 0,
    }
    .value();
    assert_eq!(
        json,
        Json::Obj(vec![
            ("a".into(), Json::Str("xé".into())),
            (
                "b".into(),
                Json::Arr(vec![
                    Json::Num("1".into()),
                    Json::Bool(true),
                    Json::Null,
                    Json::Obj(vec![("c".into(), Json::Str("d".into()))])
                ])
            )
        ])
    );
}

/// `translated` has `english`'s shape: the same objects with the same keys, arrays of the
/// same length, the same non-text values, and the fields in `kept` the same text. Text
/// may differ (and must not be empty).
fn same_shape(
    english: &Json,
    translated: &Json,
    at: &str,
    kept: &[&str],
    problems: &mut Vec<String>,
) {
    match (english, translated) {
        (Json::Obj(a), Json::Obj(b)) => {
            let keys =
                |o: &Vec<(String, Json)>| o.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            if keys(a) != keys(b) {
                problems.push(format!("{at}: fields {:?}, English {:?}", keys(b), keys(a)));
                return;
            }
            for ((k, va), (_, vb)) in a.iter().zip(b) {
                let here = format!("{at}.{k}");
                if kept.contains(&k.as_str()) && va != vb {
                    problems.push(format!("{here} must be as in English"));
                } else {
                    same_shape(va, vb, &here, kept, problems);
                }
            }
        }
        (Json::Arr(a), Json::Arr(b)) => {
            if a.len() != b.len() {
                problems.push(format!("{at}: {} items, English {}", b.len(), a.len()));
                return;
            }
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                same_shape(va, vb, &format!("{at}[{i}]"), kept, problems);
            }
        }
        (Json::Str(_), Json::Str(s)) if s.trim().is_empty() => {
            problems.push(format!("{at} is empty"))
        }
        (Json::Str(_), Json::Str(_)) => {}
        (a, b) if a == b => {}
        _ => problems.push(format!("{at}: a different value from English")),
    }
}

#[test]
fn translated_lessons_and_glossaries_keep_the_english_shape() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("static");
    let mut problems = Vec::new();
    // Ids, scenarios, the right answers, highlighted panels and commands are the same in
    // every language; only the words are translated.
    let kept = ["id", "scenario", "correct", "highlight", "run"];
    for (base, what) in [("lessons.json", "lessons."), ("glossary.json", "glossary.")] {
        let english = read(&root.join(base));
        for (tag, path) in files(what) {
            same_shape(
                &english,
                &read(&path),
                &format!("{what}{tag}"),
                &kept,
                &mut problems,
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_elements_english_words_are_the_catalogues() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script =
        std::fs::read_to_string(root.join("web/element/shard-lab.js")).expect("shard-lab.js");
    let block = script
        .split("const WORDS = {")
        .nth(1)
        .and_then(|rest| rest.split("\n};").next())
        .expect("shard-lab.js declares its WORDS");
    let english = flat(&read(&dir().join("en.json")), "en.json");
    let mut problems = Vec::new();
    let mut seen = 0;
    for line in block.lines().map(str::trim).filter(|l| l.starts_with('\'')) {
        let mut parts = line.trim_end_matches(',').splitn(2, "': '");
        let key = parts.next().unwrap_or_default().trim_start_matches('\'');
        let value = parts.next().unwrap_or_default().trim_end_matches('\'');
        seen += 1;
        match english.iter().find(|(k, _)| k == key) {
            Some((_, v)) if v == value => {}
            Some((_, v)) => {
                problems.push(format!("{key}: the element says {value:?}, en.json {v:?}"))
            }
            None => problems.push(format!("{key} is not in en.json")),
        }
    }
    assert!(seen >= 10, "the element's words were not found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The engine's explanation messages and the ranking's (`sim::RANK_MESSAGES`) are in the
/// catalogue with the same English, so the page words them in any language and
/// `sim.explain` and `shardlab analyze` print what English readers see.
#[cfg(feature = "insight")]
#[test]
fn the_engines_messages_are_in_the_catalogue_as_the_engine_writes_them() {
    let english = flat(&read(&dir().join("en.json")), "en.json");
    let mut problems = Vec::new();
    for (id, text) in shardlab::engine::MESSAGES
        .iter()
        .chain(shardlab::sim::RANK_MESSAGES)
    {
        match english.iter().find(|(k, _)| k == id) {
            Some((_, v)) if v == text => {}
            Some((_, v)) => problems.push(format!("{id}: the engine says {text:?}, en.json {v:?}")),
            None => problems.push(format!("{id} is not in en.json")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every lesson of the engine's catalog has its title and text in the catalogue
/// (`preset.<id>.title`, `.text`) with the engine's English, so that the page words its
/// lesson picker in any language; and nothing else is named `preset.`.
#[test]
fn the_engines_lessons_are_in_the_catalogue_as_the_engine_writes_them() {
    let english = flat(&read(&dir().join("en.json")), "en.json");
    let mut problems = Vec::new();
    let mut wanted = Vec::new();
    for p in shardlab::workload::presets::PRESETS {
        wanted.push((format!("preset.{}.title", p.id), p.heading));
        wanted.push((format!("preset.{}.text", p.id), p.text));
    }
    for (id, text) in &wanted {
        match english.iter().find(|(k, _)| k == id) {
            Some((_, v)) if v == text => {}
            Some((_, v)) => problems.push(format!("{id}: the engine says {text:?}, en.json {v:?}")),
            None => problems.push(format!("{id} is not in en.json")),
        }
    }
    for (k, _) in english.iter().filter(|(k, _)| k.starts_with("preset.")) {
        if !wanted.iter().any(|(id, _)| id == k) {
            problems.push(format!("{k} is no lesson of the engine's"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
