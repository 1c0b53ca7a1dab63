//! The core's layers, checked from its source: a file imports only from layers below its
//! own (or from files of its own layer), `engine/` and `shell/` never import each other,
//! and no two files import each other, directly or round a longer cycle.
//!
//! The order is ARCHITECTURE.md's invariant. `cargo test --test it layers -- --nocapture`
//! prints every file's imports.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first, with their rank. Two layers of the same rank are siblings
/// that may not import each other.
const LAYERS: &[(&str, u8)] = &[
    ("support", 0),
    ("values", 1),
    ("keys", 2),
    ("query", 3),
    ("engine", 4),
    ("shell", 4),
    ("workload", 5),
    ("session", 6),
    ("sim", 7),
];

/// A file of the core: its layer and, for a file inside the layer's folder, its name
/// (`None` is the layer's front file, `src/engine.rs`).
type FileId = (String, Option<String>);

fn rank(layer: &str) -> Option<u8> {
    LAYERS.iter().find(|(l, _)| *l == layer).map(|&(_, r)| r)
}

fn show(f: &FileId) -> String {
    match &f.1 {
        Some(name) => format!("{}/{name}", f.0),
        None => format!("{}.rs", f.0),
    }
}

/// The source without comments, string literals and character literals, so that a path
/// named in a doc comment or a message is not taken for an import.
pub(crate) fn code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                // A raw string: r"..." or r#"..."#.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                j += 1;
                loop {
                    if j >= b.len() {
                        break;
                    }
                    if b[j] == b'"' && b[j + 1..].iter().take(hashes).all(|&c| c == b'#') {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            b'\'' => {
                // A character literal ('a', '\n', '\u{..}') or a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..]
                        .iter()
                        .position(|&c| c == b'\'')
                        .map(|p| i + 2 + p)
                } else if b.get(i + 2) == Some(&b'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        out.push_str("' '");
                        i = e + 1;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            c => {
                out.push(char::from(c));
                i += 1;
            }
        }
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        match part.find('{') {
            Some(open) => {
                let close = part.rfind('}').unwrap_or(part.len());
                let head = format!("{prefix}{}", &part[..open]);
                expand_use(&part[open + 1..close], &head, out);
            }
            None => out.push(format!("{prefix}{part}")),
        }
    }
}

/// Every `crate::` and `super::` path the code names, in `use` items and inline.
pub(crate) fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before_ok = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric();
        let tail = &rest[at + 4..];
        if let (true, Some(end)) = (before_ok, tail.find(';')) {
            let tree: String = tail[..end].chars().filter(|c| !c.is_whitespace()).collect();
            if tree.starts_with("crate::") || tree.starts_with("super::") {
                expand_use(&tree, "", &mut out);
            }
        }
        rest = tail;
    }
    for root in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            let prior = code[..start].chars().next_back();
            let end = code[start..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| start + e);
            if !prior.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                out.push(code[start..end].to_owned());
            }
            from = end.max(start + 1);
        }
    }
    out
}

/// The import graph: for each file, the files and front files it names.
fn graph(files: &BTreeMap<FileId, String>) -> BTreeMap<FileId, BTreeSet<FileId>> {
    let modules = |layer: &str| -> BTreeSet<String> {
        files
            .keys()
            .filter(|(l, n)| l == layer && n.is_some())
            .filter_map(|(_, n)| n.clone())
            .collect()
    };
    let mut edges = BTreeMap::new();
    for (id, src) in files {
        let mut targets = BTreeSet::new();
        for path in paths(&code_only(src)) {
            let segs: Vec<&str> = path.split("::").collect();
            let target = match segs[0] {
                "crate" => {
                    let Some(&layer) = segs.get(1) else { continue };
                    if rank(layer).is_none() {
                        continue;
                    }
                    let file = segs
                        .get(2)
                        .filter(|f| modules(layer).contains(**f))
                        .map(|f| (*f).to_owned());
                    (layer.to_owned(), file)
                }
                // `super::` from a file in a layer's folder is the front file, so
                // `super::x::..` names the sibling file `x`; anything else is the file's
                // own parent in a test module.
                _ => match (&id.1, segs.get(1)) {
                    (Some(_), Some(f)) if modules(&id.0).contains(*f) => {
                        (id.0.clone(), Some((*f).to_owned()))
                    }
                    _ => continue,
                },
            };
            if &target != id {
                targets.insert(target);
            }
        }
        edges.insert(id.clone(), targets);
    }
    edges
}

/// What breaks the layering: upward or sideways imports, a file that goes through its
/// own front file, and cycles.
fn violations(files: &BTreeMap<FileId, String>) -> Vec<String> {
    let edges = graph(files);
    let mut found = Vec::new();
    for (from, targets) in &edges {
        for to in targets {
            let (Some(rf), Some(rt)) = (rank(&from.0), rank(&to.0)) else {
                continue;
            };
            if from.0 == to.0 {
                if to.1.is_none() && from.1.is_some() {
                    found.push(format!(
                        "{} imports through its own front file {}: name the file",
                        show(from),
                        show(to)
                    ));
                }
            } else if rt >= rf {
                found.push(format!(
                    "{} imports {} from a layer that is not below it",
                    show(from),
                    show(to)
                ));
            }
        }
    }
    // Cycles, by depth-first search over files.
    let mut state: BTreeMap<&FileId, u8> = BTreeMap::new();
    let mut stack: Vec<&FileId> = Vec::new();
    fn visit<'a>(
        node: &'a FileId,
        edges: &'a BTreeMap<FileId, BTreeSet<FileId>>,
        state: &mut BTreeMap<&'a FileId, u8>,
        stack: &mut Vec<&'a FileId>,
        found: &mut Vec<String>,
    ) {
        state.insert(node, 1);
        stack.push(node);
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let at = stack.iter().position(|f| *f == next).unwrap_or(0);
                    let cycle: Vec<String> = stack[at..].iter().map(|f| show(f)).collect();
                    found.push(format!(
                        "import cycle: {} -> {}",
                        cycle.join(" -> "),
                        show(next)
                    ));
                }
                Some(_) => {}
                None => visit(next, edges, state, stack, found),
            }
        }
        stack.pop();
        state.insert(node, 2);
    }
    for node in edges.keys() {
        if !state.contains_key(node) {
            visit(node, &edges, &mut state, &mut stack, &mut found);
        }
    }
    found
}

/// Reads every file of the core's layers from `src/`.
fn read_core() -> BTreeMap<FileId, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    for &(layer, _) in LAYERS {
        let front = src.join(format!("{layer}.rs"));
        let text =
            std::fs::read_to_string(&front).unwrap_or_else(|e| panic!("{}: {e}", front.display()));
        files.insert((layer.to_owned(), None), text);
        let dir = src.join(layer);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            assert!(
                path.extension().is_some_and(|e| e == "rs"),
                "{}: a layer folder holds only files, one per module",
                path.display()
            );
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_owned();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            files.insert((layer.to_owned(), Some(name)), text);
        }
    }
    files
}

#[test]
fn every_file_imports_only_from_lower_layers_and_no_cycle_exists() {
    let files = read_core();
    for (id, targets) in graph(&files) {
        let list: Vec<String> = targets.iter().map(show).collect();
        println!("{} -> {}", show(&id), list.join(", "));
    }
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "the layering is broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn src_holds_only_the_layers_the_crate_root_and_the_cli() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut extra = Vec::new();
    for entry in std::fs::read_dir(&src).expect("src/ is readable").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stem = name.trim_end_matches(".rs");
        if !(name == "lib.rs" || name == "bin" || rank(stem).is_some()) {
            extra.push(name);
        }
    }
    assert!(extra.is_empty(), "files outside the layers: {extra:?}");
}

/// A planted upward import, a sideways import between the sibling layers and a cycle are
/// each caught, so the check above can fail.
#[test]
fn the_check_catches_planted_violations() {
    let file = |layer: &str, name: Option<&str>, src: &str| {
        ((layer.to_owned(), name.map(str::to_owned)), src.to_owned())
    };
    let clean: BTreeMap<FileId, String> = [
        file("values", None, "pub mod order;"),
        file(
            "values",
            Some("order"),
            "use bson::Bson;\n/// see crate::engine::cluster\nfn f() {}",
        ),
        file("engine", None, "pub mod cluster;\npub mod split;"),
        file(
            "engine",
            Some("cluster"),
            "use crate::values::order::compare_values;",
        ),
        file(
            "engine",
            Some("split"),
            "use super::cluster::Cluster;\nconst S: &str = \"crate::sim::x\";",
        ),
        file("shell", None, "pub mod print;"),
        file(
            "shell",
            Some("print"),
            "use crate::values::{order::compare_values, Decimal};",
        ),
    ]
    .into_iter()
    .collect();
    assert_eq!(violations(&clean), Vec::<String>::new());

    let mut upward = clean.clone();
    upward.insert(
        ("values".into(), Some("order".into())),
        "use crate::engine::{cluster::Cluster};".into(),
    );
    let found = violations(&upward);
    assert!(
        found
            .iter()
            .any(|v| v.starts_with("values/order imports engine/cluster")),
        "{found:?}"
    );

    let mut sideways = clean.clone();
    sideways.insert(
        ("shell".into(), Some("print".into())),
        "fn f() { crate::engine::split::go() }".into(),
    );
    assert!(violations(&sideways)
        .iter()
        .any(|v| v.contains("shell/print imports engine/split")));

    let mut cycle = clean;
    cycle.insert(
        ("engine".into(), Some("cluster".into())),
        "use super::split::auto_split;".into(),
    );
    let found = violations(&cycle);
    assert!(
        found.iter().any(|v| v.starts_with("import cycle:")),
        "{found:?}"
    );
}
