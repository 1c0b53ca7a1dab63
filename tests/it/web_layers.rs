//! The page's layers (`web/src`), checked from its source, as `layers.rs` checks the
//! core's: the UI crate depends on neither the core nor the engine (Cargo enforces it, and
//! this reads its manifest to say so); its folders are its layers, lowest first `model`,
//! `platform`, `effects`, `components`; a file imports only from its own layer or those
//! below; and no two files import each other, directly or round a longer cycle.
//!
//! `cargo test --test it web_layers -- --nocapture` prints every file's imports.
#![cfg(not(target_arch = "wasm32"))]

use crate::layers::{code_only, paths};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The page's layers, lowest first.
const LAYERS: &[&str] = &["model", "platform", "effects", "components"];

/// A file: its layer and module name.
type File = (usize, String);

fn show(f: &File) -> String {
    format!("{}/{}", LAYERS[f.0], f.1)
}

/// Every file of the page's layers, by layer and name.
fn read_web() -> BTreeMap<File, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/src");
    let mut files = BTreeMap::new();
    for (rank, layer) in LAYERS.iter().enumerate() {
        let dir = src.join(layer);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_owned();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            files.insert((rank, name), text);
        }
    }
    files
}

/// The file a `crate::` or `super::` path names: `crate::<layer>::<file>`, a re-exported
/// `crate::<file>` (the crate root re-exports each module by its name), or, from a
/// file of a layer's folder, `super::<sibling>`.
fn target(from: &File, path: &str, names: &BTreeMap<String, usize>) -> Option<File> {
    let segs: Vec<&str> = path.split("::").collect();
    match segs[0] {
        "crate" => {
            let first = *segs.get(1)?;
            if let Some(rank) = LAYERS.iter().position(|l| *l == first) {
                let file = segs.get(2).filter(|f| names.get(**f) == Some(&rank))?;
                return Some((rank, (*file).to_owned()));
            }
            names.get(first).map(|&rank| (rank, first.to_owned()))
        }
        _ => {
            let file = segs.get(1)?;
            (names.get(*file) == Some(&from.0)).then(|| (from.0, (*file).to_owned()))
        }
    }
}

/// Each file's imports of other files of the page.
fn graph(files: &BTreeMap<File, String>) -> BTreeMap<File, BTreeSet<File>> {
    let names: BTreeMap<String, usize> = files.keys().map(|(r, n)| (n.clone(), *r)).collect();
    files
        .iter()
        .map(|(id, src)| {
            let targets = paths(&code_only(src))
                .iter()
                .filter_map(|p| target(id, p, &names))
                .filter(|t| t != id)
                .collect();
            (id.clone(), targets)
        })
        .collect()
}

/// Upward imports and cycles.
fn violations(files: &BTreeMap<File, String>) -> Vec<String> {
    let edges = graph(files);
    let mut found = Vec::new();
    for (from, targets) in &edges {
        for to in targets.iter().filter(|t| t.0 > from.0) {
            found.push(format!(
                "{} imports {} from a higher layer",
                show(from),
                show(to)
            ));
        }
    }
    // Cycles, by depth-first search: 1 on the stack, 2 done.
    fn visit(
        node: &File,
        edges: &BTreeMap<File, BTreeSet<File>>,
        state: &mut BTreeMap<File, u8>,
        stack: &mut Vec<File>,
        found: &mut Vec<String>,
    ) {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let at = stack.iter().position(|f| f == next).unwrap_or(0);
                    let cycle: Vec<String> = stack[at..].iter().map(show).collect();
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
        state.insert(node.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut stack = Vec::new();
    for node in edges.keys() {
        if !state.contains_key(node) {
            visit(node, &edges, &mut state, &mut stack, &mut found);
        }
    }
    found
}

#[test]
fn the_page_imports_only_downwards_and_has_no_cycle() {
    let files = read_web();
    assert!(files.len() > 20, "the page's files were not found");
    for (id, targets) in graph(&files) {
        let list: Vec<String> = targets.iter().map(show).collect();
        println!("{} -> {}", show(&id), list.join(", "));
    }
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "the page's layering is broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_page_depends_on_the_protocol_not_the_core_or_the_engine() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/Cargo.toml"))
            .expect("web/Cargo.toml");
    let deps: Vec<&str> = manifest
        .lines()
        .map(str::trim)
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim()))
        .collect();
    assert!(deps.contains(&"shardlab-protocol"), "{deps:?}");
    for core in ["shardlab", "shardlab-engine"] {
        assert!(!deps.contains(&core), "the page depends on {core}");
    }
    // Nor does its source name them.
    for (id, src) in read_web() {
        let code = code_only(&src);
        for name in ["shardlab::", "shardlab_engine::"] {
            assert!(
                !code
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .any(|w| w.starts_with(name)),
                "{} names {name}",
                show(&id)
            );
        }
    }
}

#[test]
fn web_src_holds_only_the_layers_and_the_crate_root() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/src");
    let mut extra = Vec::new();
    for entry in std::fs::read_dir(&src)
        .expect("web/src is readable")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stem = name.trim_end_matches(".rs");
        if !(name == "lib.rs" || name == "main.rs" || LAYERS.contains(&stem)) {
            extra.push(name);
        }
    }
    assert!(
        extra.is_empty(),
        "files outside the page's layers: {extra:?}"
    );
}

/// An upward import through a re-exported name, and a cycle within a layer, are caught.
#[test]
fn the_page_check_catches_planted_violations() {
    let file = |rank: usize, name: &str, src: &str| ((rank, name.to_owned()), src.to_owned());
    let clean: BTreeMap<File, String> = [
        file(
            0,
            "state",
            "use yew::Reducible;\n/// see crate::driver\nfn f() {}",
        ),
        file(1, "storage", "use crate::state::Playground;"),
        file(
            2,
            "driver",
            "use crate::platform::storage;\nuse crate::state::Action;",
        ),
        file(
            3,
            "app",
            "use super::console::Console;\nuse crate::driver::Driver;",
        ),
        file(3, "console", "use crate::state::Action;"),
    ]
    .into_iter()
    .collect();
    assert_eq!(violations(&clean), Vec::<String>::new());
    let mut upward = clean.clone();
    upward.insert((1, "storage".into()), "use crate::driver::Driver;".into());
    let found = violations(&upward);
    assert!(
        found
            .iter()
            .any(|v| v == "platform/storage imports effects/driver from a higher layer"),
        "{found:?}"
    );
    let mut cycle = clean.clone();
    cycle.insert((3, "console".into()), "use super::app::App;".into());
    let found = violations(&cycle);
    assert!(
        found.iter().any(|v| v.starts_with("import cycle:")),
        "{found:?}"
    );
}
