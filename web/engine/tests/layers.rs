//! The engine's and the protocol's boundaries, checked from their sources: the protocol
//! crate depends on serde alone (every view compiles it); the engine depends on no UI
//! crate; and the engine's modules import only from those below them, in the order
//! `lib.rs` gives (view model, frames, queries, insight, comparison, service, worker).
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

/// The names in a manifest's `[dependencies]` and target-specific dependency tables.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == "[dependencies]"
                || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                out.push(name.trim().to_string());
            }
        }
    }
    out
}

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_protocol_depends_on_serde_alone() {
    assert_eq!(dependencies(&read("../protocol/Cargo.toml")), ["serde"]);
}

#[test]
fn the_engine_depends_on_no_ui_crate() {
    let deps = dependencies(&read("Cargo.toml"));
    assert!(deps.contains(&"shardlab".to_string()), "{deps:?}");
    for ui in ["yew", "web-sys", "gloo", "js-sys", "shardlab-web"] {
        assert!(!deps.iter().any(|d| d == ui), "the engine depends on {ui}");
    }
}

/// The engine's modules, lowest first.
const ORDER: &[&str] = &[
    "view_model",
    "frames",
    "queries",
    "insight",
    "held",
    "import",
    "cluster_import",
    "panels",
    "script",
    "rank",
    "comparison",
    "export",
    "later",
    "playground",
    "service",
    "rest",
    "worker",
];

/// The modules of this crate that `src` names with `crate::`.
fn imports(src: &str) -> Vec<&'static str> {
    ORDER
        .iter()
        .copied()
        .filter(|m| {
            src.contains(&format!("crate::{m}::"))
                || src.contains(&format!("crate::{m};"))
                || src.contains(&format!("crate::{{{m}"))
        })
        .collect()
}

/// Each module's imports that are not below it.
fn upward(modules: &[(&str, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, src) in modules {
        let Some(rank) = ORDER.iter().position(|m| m == name) else {
            out.push(format!("{name} is not in the order"));
            continue;
        };
        for m in imports(src) {
            let other = ORDER.iter().position(|o| *o == m).unwrap_or(usize::MAX);
            if other >= rank {
                out.push(format!("{name} imports {m}"));
            }
        }
    }
    out
}

#[test]
fn engine_modules_import_only_downwards() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src") {
        let path = entry.expect("entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        if name == "lib" {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("readable");
        let name: &str = ORDER
            .iter()
            .copied()
            .find(|m| *m == name)
            .unwrap_or("unknown");
        modules.push((name, src));
    }
    assert_eq!(modules.len(), ORDER.len(), "a module is missing from ORDER");
    assert_eq!(upward(&modules), Vec::<String>::new());
}

#[test]
fn the_check_catches_an_upward_import() {
    let planted = [("frames", "use crate::service::Engine;".to_string())];
    assert_eq!(upward(&planted), ["frames imports service"]);
    let deps = dependencies("[dependencies]\nyew = \"0.23\"\n[dev-dependencies]\nx = \"1\"\n");
    assert_eq!(deps, ["yew"]);
}
