//! Feeds arbitrary bytes, read as lossy UTF-8, to a fresh shell session and renders every
//! outcome both ways. Any panic, stack overflow or out-of-memory is a bug: a user can type
//! anything into the console or the CLI.
//!
//! Values of any depth and size are fair game: the evaluator's depth and size limits and
//! the cluster's write budget must refuse them in MongoDB's words, so statements that read
//! and grow variables run. Only large counts in commands (`sim.generate` takes up to
//! 100,000 documents per call) are turned away by [`bounded`], since they are slow by
//! design, not bugs, and the fuzzer is better spent on parsing and semantics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shardlab::shell::BinaryOp;
use shardlab::shell::{parse_script_recovering, Expr, ExprKind, StmtKind};
use shardlab::Session;

/// The longest input worth running: scripts longer than this add volume, not paths.
const MAX_INPUT: usize = 4096;

/// The largest number a `sim.`, `sh.` or admin command's arguments may write, literally or
/// inside a string: it bounds `sim.generate` and `sim.queries` counts, padding sizes, Zipf
/// ranges and `numInitialChunks`. Values elsewhere (documents, filters) are unrestricted.
const MAX_COMMAND_NUMBER: f64 = 1000.0;

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let text = String::from_utf8_lossy(data);
    if !bounded(&text) {
        return;
    }
    let mut session = Session::default();
    session.run_each(&text, |outcome| {
        let _ = outcome.render();
        let _ = outcome.render_json();
        true
    });
});

/// Whether the script's commands ask for little work.
///
/// Refused: command numbers above [`MAX_COMMAND_NUMBER`], and `*`, `/` and chained
/// arithmetic in a command, which could build one. Variables may be read anywhere.
fn bounded(text: &str) -> bool {
    let (script, _) = parse_script_recovering(text);
    script.statements.iter().all(|stmt| match &stmt.kind {
        StmtKind::Declare { init: Some(e), .. } | StmtKind::Assign { value: e, .. } => {
            expr_bounded(e, Place::Nested { command: false })
        }
        StmtKind::Expr(e) => {
            let command = is_command(e);
            expr_bounded(e, Place::Top { command })
        }
        _ => true,
    })
}

/// Where an expression sits.
#[derive(Clone, Copy)]
enum Place {
    /// The chain of a top-level statement, which may start at any name.
    Top { command: bool },
    /// Inside an argument, a literal or a binding.
    Nested { command: bool },
}

impl Place {
    fn command(self) -> bool {
        match self {
            Place::Top { command } | Place::Nested { command } => command,
        }
    }

    fn nested(self) -> Place {
        Place::Nested {
            command: self.command(),
        }
    }
}

/// Whether a statement's chain is a `sim.`/`sh.` helper or an admin command.
fn is_command(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(name) => name == "sim" || name == "sh",
        ExprKind::Member {
            object, property, ..
        } => property == "adminCommand" || property == "runCommand" || is_command(object),
        ExprKind::Call { callee, .. } => is_command(callee),
        ExprKind::Index { object, .. } => is_command(object),
        _ => false,
    }
}

fn small(v: f64) -> bool {
    v.is_nan() || v.abs() <= MAX_COMMAND_NUMBER
}

fn expr_bounded(e: &Expr, place: Place) -> bool {
    let inner = place.nested();
    let all = |es: &[Expr]| es.iter().all(|e| expr_bounded(e, inner));
    match &e.kind {
        ExprKind::Number { value, .. } => !place.command() || small(*value),
        // `NumberLong("1000000")` and `{$numberInt: "1000000"}` carry numbers in strings.
        ExprKind::String(s) => !place.command() || s.trim().parse::<f64>().map_or(true, small),
        ExprKind::Ident(_) => true,
        ExprKind::Array(items) => all(items),
        ExprKind::Object(fields) => fields.iter().all(|(_, v)| expr_bounded(v, inner)),
        ExprKind::Member { object, .. } => expr_bounded(object, place),
        ExprKind::Index { object, index } => {
            expr_bounded(object, place) && expr_bounded(index, inner)
        }
        ExprKind::Call { callee, args } | ExprKind::New { callee, args } => {
            // A called name is a function (`ObjectId(...)`), not a read of a variable.
            let callee_ok =
                matches!(callee.kind, ExprKind::Ident(_)) || expr_bounded(callee, place);
            callee_ok && all(args)
        }
        ExprKind::Unary { operand, .. } => expr_bounded(operand, inner),
        ExprKind::Binary { op, left, right } => {
            (!place.command() || !matches!(op, BinaryOp::Mul | BinaryOp::Div))
                && (!place.command()
                    || !matches!(left.kind, ExprKind::Binary { .. })
                        && !matches!(right.kind, ExprKind::Binary { .. }))
                && expr_bounded(left, inner)
                && expr_bounded(right, inner)
        }
        ExprKind::Regex { .. } | ExprKind::Bool(_) | ExprKind::Null | ExprKind::Undefined => true,
    }
}
