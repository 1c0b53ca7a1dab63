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

/// The platform's modules as the page names them: `crate::platform::…`, and every name the
/// crate root re-exports from `platform` (`pub use platform::{engine_client, …}` in
/// `lib.rs`), so `crate::engine_client` counts as the platform too.
fn platform_names(lib_rs: &str) -> BTreeSet<String> {
    let code = code_only(lib_rs);
    let mut names = BTreeSet::from(["platform".to_owned()]);
    let mut rest = code.as_str();
    while let Some(at) = rest.find("use platform::") {
        let tail = &rest[at + "use platform::".len()..];
        let end = tail.find(';').unwrap_or(tail.len());
        let tree = tail[..end]
            .trim()
            .trim_start_matches('{')
            .trim_end_matches('}');
        for name in tree.split(',') {
            // `a as b` is named `b` at the root.
            if let Some(name) = name.split_whitespace().last() {
                names.insert(name.to_owned());
            }
        }
        rest = tail;
    }
    names
}

/// Components that reach the platform or the engine client: a component sends actions, or
/// calls the effects layer, which makes the platform call or the engine request.
fn components_reaching_the_platform(files: &BTreeMap<File, String>, lib_rs: &str) -> Vec<String> {
    let platform = platform_names(lib_rs);
    let names: BTreeMap<String, usize> = files.keys().map(|(r, n)| (n.clone(), *r)).collect();
    let components = LAYERS.iter().position(|l| *l == "components");
    let mut found = Vec::new();
    for (id, src) in files.iter().filter(|(id, _)| Some(id.0) == components) {
        let named: BTreeSet<String> = paths(&code_only(src))
            .into_iter()
            .filter(|p| {
                let segs: Vec<&str> = p.split("::").collect();
                let by_root =
                    segs[0] == "crate" && segs.get(1).is_some_and(|s| platform.contains(*s));
                let by_file = target(id, p, &names).is_some_and(|t| LAYERS[t.0] == "platform");
                by_root || by_file
            })
            .map(|p| {
                // Named by the module (and the front file's item): `crate::sessions`,
                // `crate::platform::address`.
                let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
                let n = if segs.get(1) == Some(&"platform") {
                    3
                } else {
                    2
                };
                segs[..n.min(segs.len())].join("::")
            })
            .collect();
        // `use crate::platform::{a, b}` is also seen inline as `crate::platform`: the
        // longer names say it.
        let named: Vec<&String> = named
            .iter()
            .filter(|n| !named.iter().any(|m| m.starts_with(&format!("{n}::"))))
            .collect();
        for path in named {
            found.push(format!("{} names the platform: {path}", show(id)));
        }
    }
    found
}

/// The words that make a `static` mutable state rather than a constant table.
const INTERIOR_MUTABILITY: &[&str] = &[
    "Cell", "RefCell", "OnceCell", "OnceLock", "LazyCell", "LazyLock", "Lazy", "Mutex", "RwLock",
];

/// Each global that can change, outside `platform/`: every `static` in a `thread_local!`,
/// every `static mut`, and every `static` whose type holds a cell, a lock or an atomic. A
/// `static` or `const` of a plain table is not one.
fn mutable_globals(files: &BTreeMap<File, String>) -> Vec<String> {
    let mut found = Vec::new();
    for (id, src) in files.iter().filter(|(id, _)| LAYERS[id.0] != "platform") {
        let code = code_only(src);
        // The spans of `thread_local! { … }`.
        let mut locals = Vec::new();
        let mut from = 0;
        while let Some(at) = code[from..].find("thread_local!") {
            let start = from + at;
            let mut depth = 0;
            let mut end = code.len();
            for (i, c) in code[start..].char_indices() {
                match c {
                    '{' | '(' | '[' => depth += 1,
                    '}' | ')' | ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = start + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            locals.push(start..end);
            from = start + 1;
        }
        let b = code.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let mut from = 0;
        while let Some(at) = code[from..].find("static") {
            let start = from + at;
            from = start + "static".len();
            let before = start.checked_sub(1).map(|i| b[i]);
            if before.is_some_and(|c| word(c) || c == b'\'' || c == b'$')
                || b.get(from).is_some_and(|&c| word(c))
            {
                continue;
            }
            let item = &code[from..];
            let item = &item[..item.find([';', '=']).unwrap_or(item.len())];
            let Some((head, ty)) = item.split_once(':') else {
                continue;
            };
            let head = head.trim();
            let (is_mut, name) = match head.strip_prefix("mut ") {
                Some(name) => (true, name.trim()),
                None => (false, head),
            };
            let in_local = locals.iter().any(|span| span.contains(&start));
            let cell = ty
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| INTERIOR_MUTABILITY.contains(&w) || w.starts_with("Atomic"));
            if in_local || is_mut || cell {
                let how = if in_local {
                    "a thread_local!"
                } else if is_mut {
                    "a static mut"
                } else {
                    "a static that can change"
                };
                found.push(format!("{} keeps {name} in {how}", show(id)));
            }
        }
        // A `thread_local!` with no `static` in it (written by a macro's arguments) counts too.
        for span in &locals {
            if !code[span.clone()].contains("static") {
                found.push(format!("{} has a thread_local! with no static", show(id)));
            }
        }
    }
    found
}

/// What the rule below still finds, not yet moved (issue 37 goes on): each entry is to be
/// removed as its file moves behind the effects layer, never added to. An entry no longer
/// found fails too, so the list only shrinks.
const COMPONENTS_NOT_YET_MOVED: &[&str] = &[];

/// The found violations that are not in `pending`, and the entries of `pending` no longer
/// found.
fn beyond(found: &[String], pending: &[&str]) -> (Vec<String>, Vec<String>) {
    let new = found
        .iter()
        .filter(|f| !pending.contains(&f.as_str()))
        .cloned()
        .collect();
    let gone = pending
        .iter()
        .filter(|p| !found.iter().any(|f| f == *p))
        .map(|p| (*p).to_owned())
        .collect();
    (new, gone)
}

#[test]
fn components_reach_neither_the_platform_nor_the_engine_client() {
    let files = read_web();
    let lib_rs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/src/lib.rs"))
            .expect("web/src/lib.rs");
    assert!(
        platform_names(&lib_rs).contains("engine_client"),
        "lib.rs no longer re-exports the engine client by name"
    );
    let found = components_reaching_the_platform(&files, &lib_rs);
    println!(
        "{} component imports of the platform:\n{}",
        found.len(),
        found.join("\n")
    );
    let (new, gone) = beyond(&found, COMPONENTS_NOT_YET_MOVED);
    assert!(
        new.is_empty(),
        "components import the platform (send an action, or ask the effects layer):\n{}",
        new.join("\n")
    );
    assert!(
        gone.is_empty(),
        "moved: remove from the list:\n{}",
        gone.join("\n")
    );
}

#[test]
fn no_global_state_outside_the_platform() {
    let files = read_web();
    let found = mutable_globals(&files);
    assert!(
        found.is_empty(),
        "global state outside platform/ (keep it in the state, or pass it):\n{}",
        found.join("\n")
    );
}

/// A component naming the engine client (by its root re-export, by the layer's path, a
/// function of the platform's front file) and a global cell outside the platform are
/// caught; a cell in the platform, a constant table and a `&'static` type are not.
#[test]
fn the_page_check_catches_planted_platform_imports_and_globals() {
    let file = |rank: usize, name: &str, src: &str| ((rank, name.to_owned()), src.to_owned());
    let lib_rs = "pub use platform::{engine_client, storage as store};\npub use model::state;";
    let clean: BTreeMap<File, String> = [
        file(
            0,
            "state",
            "const TABLE: &[&str] = &[\"a\"];\nstatic NAMES: &[&'static str] = &[];\n/// crate::engine_client\nfn f() {}",
        ),
        file(
            1,
            "engine_client",
            "thread_local! { static CLIENT: RefCell<u8> = RefCell::new(0); }",
        ),
        file(1, "storage", "use crate::state::Playground;"),
        file(2, "driver", "use crate::engine_client;\nfn f(s: &'static str) {}"),
        file(3, "console", "use crate::driver::Driver;\nuse crate::state::Action;"),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        components_reaching_the_platform(&clean, lib_rs),
        Vec::<String>::new()
    );
    assert_eq!(mutable_globals(&clean), Vec::<String>::new());

    for (src, path) in [
        ("use crate::engine_client;", "crate::engine_client"),
        (
            "fn f() { crate::platform::pixel_ratio(); }",
            "crate::platform::pixel_ratio",
        ),
        ("use crate::{state::Action, store::get};", "crate::store"),
        (
            "use crate::platform::{storage::get};",
            "crate::platform::storage",
        ),
    ] {
        let mut planted = clean.clone();
        planted.insert((3, "console".into()), src.into());
        let found = components_reaching_the_platform(&planted, lib_rs);
        assert_eq!(
            found,
            vec![format!("components/console names the platform: {path}")],
            "{src}"
        );
    }

    for (rank, src, expect) in [
        (
            3,
            "thread_local! {\n    static PENDING: RefCell<Option<u8>> = const { RefCell::new(None) };\n}",
            "components/console keeps PENDING in a thread_local!",
        ),
        (
            2,
            "static mut NEXT: u64 = 1;",
            "effects/driver keeps NEXT in a static mut",
        ),
        (
            2,
            "static ASKED: std::sync::Mutex<Vec<u8>> = Mutex::new(Vec::new());",
            "effects/driver keeps ASKED in a static that can change",
        ),
        (
            0,
            "static COUNT: AtomicU64 = AtomicU64::new(0);",
            "model/state keeps COUNT in a static that can change",
        ),
    ] {
        let mut planted = clean.clone();
        let name = ["state", "", "driver", "console"][rank];
        planted.insert((rank, name.into()), src.into());
        assert_eq!(mutable_globals(&planted), vec![expect.to_owned()], "{src}");
    }
    // The known exception is by file and name: the same static elsewhere is caught.
    let mut planted = clean.clone();
    planted.insert(
        (2, "driver".into()),
        "thread_local! { static CURRENT: Cell<u8> = Cell::new(0); }".into(),
    );
    assert_eq!(
        mutable_globals(&planted),
        vec!["effects/driver keeps CURRENT in a thread_local!".to_owned()]
    );
}

// ---------------------------------------------------------------------------------------
// No function of the page runs past 80 lines (issue 37): a long one is split by what it
// does, so each part can be read, and changed, on its own.
// ---------------------------------------------------------------------------------------

/// The longest a function of the page may run, from its `fn` line to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;

/// The name a line declares a function by (`fn name`, after any qualifiers), if it does.
fn declared_fn(line: &str) -> Option<&str> {
    let at = line.find("fn ")?;
    let before = line[..at].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let rest = &line[at + 3..];
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The functions of a file that run past `limit` lines, as `name (n lines)`, counted in
/// its code without comments and literals (a declaration without a body is skipped).
fn long_functions(src: &str, limit: usize) -> Vec<String> {
    let code = code_only(src);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = declared_fn(line) else {
            continue;
        };
        let (mut depth, mut opened, mut end) = (0i64, false, None);
        'scan: for (at, l) in lines.iter().enumerate().skip(start) {
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened => break 'scan,
                    _ => {}
                }
                if opened && depth == 0 {
                    end = Some(at);
                    break 'scan;
                }
            }
        }
        if let Some(end) = end {
            let n = end - start + 1;
            if n > limit {
                found.push(format!("{name} ({n} lines)"));
            }
        }
    }
    found
}

#[test]
fn no_function_of_the_page_runs_past_80_lines() {
    let mut found = Vec::new();
    for (id, src) in read_web() {
        for f in long_functions(&src, MAX_FUNCTION_LINES) {
            found.push(format!("{}: {f}", show(&id)));
        }
    }
    assert!(
        found.is_empty(),
        "functions past {MAX_FUNCTION_LINES} lines (split them by what they do):\n{}",
        found.join("\n")
    );
}

/// A planted function of 81 lines is caught, one of 80 is not, nor a declaration without
/// a body, nor braces in a comment or a string.
#[test]
fn a_planted_long_function_is_caught() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    let at_limit = format!("pub fn fits() {{\n{}}}\n", body(78));
    assert_eq!(long_functions(&at_limit, 80), Vec::<String>::new());
    let past = format!(
        "/// fn not_this() {{\nfn long(a: u8) -> u8 {{\n    // }}\n    let s = \"}}\";\n{}    a\n}}\n",
        body(76)
    );
    assert_eq!(
        long_functions(&past, 80),
        vec!["long (81 lines)".to_owned()]
    );
    assert_eq!(
        long_functions("trait T {\n    fn declared(&self);\n}\n", 1),
        Vec::<String>::new()
    );
}

/// What a pure update may not name: the browser (`web_sys`, `js_sys`, `gloo`,
/// `wasm_bindgen`), Yew (its hooks, callbacks and timers), the clock, and the layers that
/// carry effects out.
const IMPURE: &[&str] = &[
    "web_sys",
    "js_sys",
    "gloo",
    "wasm_bindgen",
    "yew",
    "Callback",
    "Date",
    "now_ms",
    "Instant",
    "SystemTime",
    "crate::platform",
    "crate::effects",
    "crate::engine_client",
    "crate::storage",
    "crate::sessions",
    "crate::recovery",
    "crate::driver",
];

/// The impure names `src` uses in its code (not in comments or strings), each once, as a
/// whole word.
fn impure_names(src: &str) -> Vec<&'static str> {
    let code = code_only(src);
    IMPURE
        .iter()
        .copied()
        .filter(|name| {
            code.match_indices(name).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                let after = code[at + name.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                !word(before) && !word(after)
            })
        })
        .collect()
}

/// The page's update (`model/update.rs`, issue 37) and the Compare tab's
/// (`model/compare.rs`) are pure, and so is the whole model layer: it names no browser
/// API, no Yew, no clock and nothing of the layers that carry effects out; the updates
/// return effects as values.
#[test]
fn the_pages_update_is_pure() {
    let files = read_web();
    for (file, signature) in [
        (
            "update",
            "pub fn update(model: &mut Model, msg: Action) -> Vec<Effect>",
        ),
        (
            "compare",
            "pub fn update(c: &mut Comparison, action: CompareAction) -> Vec<CompareEffect>",
        ),
    ] {
        let update = files
            .get(&(0, file.to_string()))
            .unwrap_or_else(|| panic!("web/src/model/{file}.rs holds an update"));
        assert!(
            update.contains(signature),
            "model/{file}.rs: the update's signature changed"
        );
    }
    let mut model = 0;
    for ((layer, name), src) in &files {
        if LAYERS[*layer] != "model" {
            continue;
        }
        model += 1;
        let found = impure_names(src);
        assert!(found.is_empty(), "model/{name}.rs names {found:?}");
    }
    assert!(model >= 9, "the model's files are read ({model})");
}

/// A planted call to the clock, a Yew callback and a platform path are caught; the same
/// words in a comment, a string or inside another word are not.
#[test]
fn a_planted_impurity_in_the_update_is_caught() {
    assert_eq!(
        impure_names("fn f() { let t = js_sys::Date::now(); }"),
        ["js_sys", "Date"]
    );
    assert_eq!(impure_names("fn f(c: Callback<u8>) {}"), ["Callback"]);
    assert_eq!(
        impure_names("use crate::platform::storage;"),
        ["crate::platform"]
    );
    assert!(
        impure_names("// yew and gloo\nfn f() { let s = \"web_sys\"; let dated = 1; }").is_empty()
    );
}
