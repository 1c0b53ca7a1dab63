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
//! - The input is read in pieces and run statement by statement (`ScriptStream`), so
//!   memory stays flat whatever the script's length. A statement past the lexer's limits
//!   (16 MiB, 2,000,000 tokens) ends the run with a SyntaxError naming the limit, as
//!   mongosh stops a file at its first uncaught error; so does text the lexer refuses,
//!   which a FILE is read through for first, so that it runs nothing.

use shardlab::shell::{LexError, ParseError, Piece, Script, ScriptStream};
use shardlab::Session;
use std::io::{Read, Seek, SeekFrom, Write};
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
    let name = file.as_deref().unwrap_or("standard input");
    let mut runner = Runner {
        session: Session::default(),
        json,
        out: std::io::stdout().lock(),
        failed: false,
        closed: false,
        unwritten: false,
    };
    let buffer = read_buffer();
    let read = match &file {
        // A file's bytes that are not UTF-8 read as U+FFFD, as they always have.
        Some(path) => std::fs::File::open(path).and_then(|mut f| {
            // A first reading finds text the lexer refuses, so that such a file runs
            // nothing, as it did when the CLI read it whole (and as mongosh runs
            // nothing of a file that does not parse); only then is it run.
            match refused(&mut f, buffer)? {
                Some(piece) => {
                    runner.run(&piece);
                    Ok(())
                }
                None => {
                    f.seek(SeekFrom::Start(0))?;
                    read_pieces(f, true, buffer, |piece| runner.run(&piece))
                }
            }
        }),
        // Standard input must be UTF-8, as `read_to_string` required of it; it is read
        // once.
        None => read_pieces(std::io::stdin().lock(), false, buffer, |piece| {
            runner.run(&piece)
        }),
    };
    if let Err(e) = read {
        report(&format!("shardlab: cannot read {name}: {e}"));
        return ExitCode::from(2);
    }
    if runner.unwritten {
        ExitCode::from(2)
    } else if runner.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads a script through without running it and answers the error of text the lexer
/// refuses, if there is some before the end or before a statement past the limits.
fn refused(input: impl Read, buffer: usize) -> std::io::Result<Option<Piece>> {
    let mut found = None;
    read_pieces(input, true, buffer, |piece| {
        if piece.stop {
            let lexical = piece
                .errors
                .last()
                .is_some_and(|e| !matches!(e, ParseError::Lex(LexError::StatementTooLong { .. })));
            if lexical {
                found = piece.errors.last().cloned().map(|e| Piece {
                    text: String::new(),
                    script: Script { statements: vec![] },
                    errors: vec![e],
                    stop: true,
                });
            }
        }
        true
    })?;
    Ok(found)
}

/// Reads `input` `buffer` bytes at a time and hands each piece of whole statements to
/// `each` as soon as its end is known, until the input ends, a piece says to stop or
/// `each` answers false. `lossy` reads bytes that are not UTF-8 as U+FFFD instead of
/// failing.
fn read_pieces(
    mut input: impl Read,
    lossy: bool,
    buffer: usize,
    mut each: impl FnMut(Piece) -> bool,
) -> std::io::Result<()> {
    let mut stream = ScriptStream::new();
    let mut buf = vec![0u8; buffer];
    let mut utf8 = Utf8Reader::default();
    loop {
        let n = match input.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = n == 0;
        let text = if end {
            utf8.finish(lossy)?
        } else {
            utf8.decode(&buf[..n], lossy)?
        };
        stream.push(&text);
        while let Some(piece) = stream.next_piece(end) {
            let stop = piece.stop;
            if !each(piece) || stop {
                return Ok(());
            }
        }
        if end {
            return Ok(());
        }
    }
}

/// The bytes asked of the input at a time: `SHARDLAB_READ_BUFFER` when it is a positive
/// number (the tests make it small, so that statements cross the reads' edges), else
/// 64 KiB.
fn read_buffer() -> usize {
    std::env::var("SHARDLAB_READ_BUFFER")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(64 * 1024)
}

/// The session and where its results go.
struct Runner<W: Write> {
    session: Session,
    json: bool,
    out: W,
    /// Whether a statement failed.
    failed: bool,
    /// Whether the output is gone (nothing more is run).
    closed: bool,
    /// Whether the output could not be written.
    unwritten: bool,
}

impl<W: Write> Runner<W> {
    /// Runs one piece, writing each result and flushing it as soon as its statement
    /// completes, so nothing already computed is lost if a later statement fails or the
    /// reader goes away. Answers whether to go on.
    fn run(&mut self, piece: &Piece) -> bool {
        let Runner {
            session,
            json,
            out,
            failed,
            closed,
            unwritten,
        } = self;
        session.run_piece(piece, |outcome| {
            *failed |= outcome.result.is_err();
            let line = if *json {
                outcome.render_json()
            } else {
                outcome.render()
            };
            if let Some(line) = line {
                if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
                    // A closed pipe (`shardlab script.js | head -1`) ends the output
                    // quietly; any other write error is reported once.
                    if e.kind() != std::io::ErrorKind::BrokenPipe {
                        report(&format!("shardlab: cannot write the output: {e}"));
                        *unwritten = true;
                    }
                    *closed = true;
                }
            }
            !*closed
        })
    }
}

/// Decodes UTF-8 that arrives in pieces: a character split between two reads is kept
/// until its end arrives. Lossy decoding gives what `String::from_utf8_lossy` gives for
/// the whole input.
#[derive(Default)]
struct Utf8Reader {
    /// The start of a character whose other bytes have not arrived.
    partial: Vec<u8>,
}

impl Utf8Reader {
    fn decode(&mut self, bytes: &[u8], lossy: bool) -> std::io::Result<String> {
        let mut all = std::mem::take(&mut self.partial);
        all.extend_from_slice(bytes);
        let mut text = String::with_capacity(all.len());
        let mut rest = all.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    text.push_str(s);
                    return Ok(text);
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    text.push_str(std::str::from_utf8(good).unwrap_or_default());
                    match e.error_len() {
                        Some(_) if !lossy => return Err(not_utf8()),
                        Some(len) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &bad[len..];
                        }
                        None => {
                            self.partial = bad.to_vec();
                            return Ok(text);
                        }
                    }
                }
            }
        }
    }

    /// What is left at the end of the input: a character cut short is one U+FFFD.
    fn finish(&mut self, lossy: bool) -> std::io::Result<String> {
        match (self.partial.is_empty(), lossy) {
            (true, _) => Ok(String::new()),
            (false, true) => {
                self.partial.clear();
                Ok(char::REPLACEMENT_CHARACTER.to_string())
            }
            (false, false) => Err(not_utf8()),
        }
    }
}

/// The error `read_to_string` gives for input that is not UTF-8.
fn not_utf8() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "stream did not contain valid UTF-8",
    )
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
