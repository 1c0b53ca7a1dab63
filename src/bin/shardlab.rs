//! `shardlab [--json] [FILE]`: runs a mongosh-style script against a fresh simulated
//! cluster (three shards, the `test` database) and prints each statement's result.
//!
//! - FILE absent or `-` reads standard input.
//! - Plain output prints values the way mongosh does; `--json` prints one line of
//!   canonical Extended JSON v2 per result, and each error as
//!   `{"error": {"code": <int>, "codeName": "...", "errmsg": "..."}}`.
//! - An error does not stop the script. The exit status is 1 if any statement failed,
//!   and 2 if the output could not be written (a full disk), with a message on standard
//!   error; a reader that goes away (`| head -1`) ends the run quietly instead.

use shardlab::Session;
use std::io::{Read, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: shardlab [--json] [FILE]\n\nRuns a mongosh-style script against a simulated sharded cluster.\nFILE absent or '-' reads standard input.";

fn main() -> ExitCode {
    let mut json = false;
    let mut file: Option<String> = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--json" => json = true,
            "-h" | "--help" => return print_all(USAGE),
            "-V" | "--version" => {
                return print_all(&format!("shardlab {}", env!("CARGO_PKG_VERSION")))
            }
            "-" => file = None,
            other if other.starts_with("--") => {
                report(&format!("shardlab: unknown option {other}\n{USAGE}"));
                return ExitCode::from(2);
            }
            other => file = Some(other.to_string()),
        }
    }
    let mut text = String::new();
    let read = match &file {
        Some(path) => {
            std::fs::read(path).map(|bytes| text = String::from_utf8_lossy(&bytes).into_owned())
        }
        None => std::io::stdin().read_to_string(&mut text).map(|_| ()),
    };
    if let Err(e) = read {
        report(&format!(
            "shardlab: cannot read {}: {e}",
            file.as_deref().unwrap_or("standard input")
        ));
        return ExitCode::from(2);
    }
    let mut session = Session::default();
    let mut failed = false;
    let mut out = std::io::stdout().lock();
    let mut closed = false;
    let mut unwritten = false;
    // Each result is written and flushed as soon as its statement completes, so nothing
    // already computed is lost if a later statement fails or the reader goes away.
    session.run_each(&text, |outcome| {
        failed |= outcome.result.is_err();
        let line = if json {
            outcome.render_json()
        } else {
            outcome.render()
        };
        if let Some(line) = line {
            if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                // A closed pipe (`shardlab script.js | head -1`) ends the output quietly;
                // any other write error is reported once.
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    report(&format!("shardlab: cannot write the output: {e}"));
                    unwritten = true;
                }
                closed = true;
            }
        }
        !closed
    });
    if unwritten {
        ExitCode::from(2)
    } else if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints `text` and a line break on standard output: exit status 0, or 2 with a message
/// when it cannot be written (`println!` would panic instead).
fn print_all(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report(&format!("shardlab: cannot write the output: {e}"));
            ExitCode::from(2)
        }
    }
}

/// Writes a message on standard error, ignoring a failure there (`eprintln!` would
/// panic), since there is nowhere left to report it.
fn report(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}
