//! The transcript the snapshot tests print: each statement of a script as `> statement`
//! and what the shell answered, with the cluster's invariants checked at the end. One
//! writer for every module that snapshots scripts.

use shardlab::Session;

/// How a transcript shows a script.
#[derive(Clone, Copy, Default)]
pub struct Shape {
    /// Show statements that printed nothing too (otherwise only those that printed).
    pub every_statement: bool,
    /// Fail the test when a statement errs.
    pub all_ok: bool,
    /// Cut a statement's text at 100 characters.
    pub cut: bool,
}

/// Runs `script` on `session` and writes what it printed.
pub fn write(session: &mut Session, script: &str, shape: Shape) -> String {
    let mut out = String::new();
    for o in session.run(script) {
        if shape.all_ok {
            assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
        }
        let text = o.render();
        if text.is_none() && !shape.every_statement {
            continue;
        }
        let source = match (shape.every_statement, shape.cut) {
            (true, _) => o.source.clone(),
            (false, true) => cut(o.source.trim()),
            (false, false) => o.source.trim().to_string(),
        };
        out.push_str(&format!("> {source}\n"));
        if let Some(text) = text {
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// A statement cut at 100 characters.
fn cut(source: &str) -> String {
    match source.char_indices().nth(100) {
        Some((cut, _)) => format!("{}…", &source[..cut]),
        None => source.to_string(),
    }
}

/// Runs `script` in a new session and writes what it printed, checking the cluster's
/// invariants at the end.
pub fn of(script: &str, shape: Shape) -> String {
    let mut session = Session::default();
    let out = write(&mut session, script, shape);
    session
        .cluster
        .check()
        .expect("the cluster's invariants hold");
    out
}
