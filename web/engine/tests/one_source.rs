//! Every view takes the engine's constants from one place: the version modes, the
//! defaults and the limits are the protocol's (which the catalogue reports), and no view
//! keeps a copy. The page's crate compiles the protocol, so it names the constants; the
//! element reads the catalogue, and its attribute table's defaults (which its README table
//! and `custom-elements.json` are made from) must say what the catalogue says.

use shardlab::VersionMode;
use shardlab_protocol::{
    is_version, COMPARE_WORKLOADS, DEFAULT_SEED, DEFAULT_SHARDS, DEFAULT_VERSION, VERSIONS,
};
use std::path::{Path, PathBuf};

/// The label of each of the core's version modes: a `match`, so a mode added to the core
/// fails to compile here until it is listed.
fn label(mode: VersionMode) -> &'static str {
    match mode {
        VersionMode::V36 => "3.6",
        VersionMode::V50 => "5.0",
        VersionMode::V70 => "7.0",
        VersionMode::V80 => "8.0",
    }
}

#[test]
fn the_protocols_versions_are_the_cores_modes() {
    let modes = [
        VersionMode::V36,
        VersionMode::V50,
        VersionMode::V70,
        VersionMode::V80,
    ];
    let labels: Vec<&str> = modes.iter().map(|m| label(*m)).collect();
    assert_eq!(VERSIONS, labels.as_slice());
    for v in VERSIONS {
        let mode = VersionMode::parse(v).unwrap_or_else(|| panic!("the core reads {v}"));
        assert_eq!(mode.label(), *v);
    }
    assert!(is_version(DEFAULT_VERSION));
    assert!(!is_version("6.0") && !is_version(""));
}

#[test]
fn the_catalogue_reports_the_protocols_constants() {
    let mut engine = shardlab_engine::Engine::new();
    let request: shardlab_protocol::Request = serde_json::from_value(
        serde_json::json!({"v": shardlab_protocol::PROTOCOL_VERSION, "id": 1, "method": "catalog"}),
    )
    .expect("a catalogue request");
    let answer = serde_json::to_value(engine.handle(request).response).expect("JSON");
    let catalog = &answer["result"];
    let versions: Vec<&str> = catalog["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| v["label"].as_str().expect("a label"))
        .collect();
    assert_eq!(versions, VERSIONS);
    assert_eq!(catalog["defaults"]["version"], DEFAULT_VERSION);
    assert_eq!(catalog["defaults"]["shards"], DEFAULT_SHARDS);
    assert_eq!(catalog["defaults"]["seed"], DEFAULT_SEED);
    assert_eq!(catalog["protocol"], shardlab_protocol::PROTOCOL_VERSION);
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

/// The Rust files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` outside comments that hold a version label as a string literal.
fn version_literals(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
            continue;
        }
        for v in VERSIONS {
            if code.contains(&format!("\"{v}\"")) || code.contains(&format!("'{v}'")) {
                found.push((i + 1, line.trim().to_string()));
            }
        }
    }
    found
}

#[test]
fn no_view_writes_a_version_of_its_own() {
    let mut files = Vec::new();
    rust_files(&root().join("web").join("src"), &mut files);
    let mut copies = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        for (line, code) in version_literals(&text) {
            copies.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        copies.is_empty(),
        "the page names versions through shardlab_protocol::VERSIONS and DEFAULT_VERSION, not literals:\n{}",
        copies.join("\n")
    );
    // The check finds what it looks for.
    assert_eq!(version_literals("let v = \"8.0\";\n// \"5.0\"").len(), 1);
}

/// The element's attribute table entry for `name`: its `default: ...` as written.
fn element_default(js: &str, name: &str) -> String {
    let entry = js
        .lines()
        .find(|l| l.contains(&format!("{{ name: '{name}',")))
        .unwrap_or_else(|| panic!("the element's ATTRIBUTES list {name}"));
    let after = entry.split("default: ").nth(1).expect("a default");
    after
        .split([',', '}'])
        .next()
        .expect("a value")
        .trim()
        .trim_matches('\'')
        .to_string()
}

#[test]
fn the_elements_attribute_defaults_are_the_catalogues() {
    let js = std::fs::read_to_string(root().join("web").join("element").join("shard-lab.js"))
        .expect("the element");
    assert_eq!(element_default(&js, "version"), DEFAULT_VERSION);
    assert_eq!(element_default(&js, "shards"), DEFAULT_SHARDS.to_string());
    assert_eq!(element_default(&js, "seed"), DEFAULT_SEED.to_string());
    assert_eq!(
        element_default(&js, "compare-workload"),
        COMPARE_WORKLOADS[0]
    );
    // No other version literal in the element: its menus and checks read the catalogue.
    let copies: Vec<(usize, String)> = version_literals(&js)
        .into_iter()
        .filter(|(_, l)| !l.starts_with("{ name: 'version',"))
        .collect();
    assert!(copies.is_empty(), "{copies:?}");
}
