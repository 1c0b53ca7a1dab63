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
//!
//! `shardlab import FILE --ns DB.COLL [options]` imports a file of documents as
//! mongoimport would (`workload::Importer`: mongoexport's JSON, a JSON array, CSV with a
//! header, or a `.gz` of one of them), and `shardlab --import FILE --ns DB.COLL
//! [options] [SCRIPT]` imports it and then runs SCRIPT against the imported data. The
//! file is read in pieces and inserted in mongoimport's batches (unordered `insertMany`
//! of at most 1,000 documents), the very statements a timeline step of the import
//! replays. Each line that did not go in is printed on standard error as it is found,
//! then mongoimport's summary, `N document(s) imported successfully. M document(s)
//! failed to import.`; the exit status is 1 when a document failed, and a file that
//! cannot be read on (a broken gzip stream, a CSV header mongoimport refuses) stops the
//! import with `Failed: <reason>` and runs no script.
//!
//! `shardlab import-cluster DIR|FILE [--json] [SCRIPT]` makes the
//! session a real cluster's sharding metadata: the mongoexport (or bsondump) files of
//! `config.shards`, `config.collections`, `config.chunks` and, when there, `config.databases`,
//! `config.tags` and `config.changelog`, found in `DIR/config/` or DIR as `chunks.json`,
//! `config.chunks.json` or `chunks.bson.json` (`cluster.rs`). It prints `sh.status()` of
//! that cluster, then runs SCRIPT (or standard input) against it. The changelog's
//! replayed and skipped entries are listed on standard error, and so, when standard error
//! is a terminal, is each file as it is read; metadata that cannot be imported is named
//! by file, line and field on standard error, with exit status 1. FILE (or a `.txt` file
//! in a DIR without exports) is instead what `sh.status({verbose: true})` printed, in
//! mongosh or the legacy mongo shell, known by its text; standard error says which shell
//! printed it and which version mode the cluster takes.
//!
//! `shardlab export [FILE]` runs the script as `shardlab FILE` would, quietly, and writes
//! a mongosh script that builds the same scenario on a real sharded cluster
//! (`sim::Exporter`: mongosh's commands as written, each `sim.` helper as the real
//! commands that do what it did or a comment saying what it did) on standard output;
//! a script with no command to export is an error on standard error and exit status 1.

#[path = "shardlab/cluster.rs"]
mod cluster;

#[path = "shardlab/analyze.rs"]
mod analyze;

#[path = "shardlab/replay_threads.rs"]
mod replay_threads;

use shardlab::session::BatchResult;
use shardlab::shell::{LexError, ParseError, Piece, Script, ScriptStream};
use shardlab::workload::{Failure, ImportFormat, ImportItem, ImportOptions, Importer, ParseGrace};
use shardlab::Session;
use std::io::{Read, Seek, SeekFrom, Write};
use std::process::ExitCode;

const USAGE: &str = "usage: shardlab [--json] [FILE]
       shardlab export [FILE]
       shardlab import FILE --ns DB.COLL [IMPORT OPTIONS]
       shardlab [--json] --import FILE --ns DB.COLL [IMPORT OPTIONS] [SCRIPT]
       shardlab import-cluster DIR|FILE [--json] [SCRIPT]
       shardlab analyze FILE [--key PATTERN]... [ANALYZE OPTIONS] [--json]

Runs a mongosh-style script against a simulated sharded cluster.
FILE absent or '-' reads standard input.

'export' runs the script and writes a mongosh script that builds the same
scenario on a real sharded cluster (its header says how to start one).
'import' reads a file of documents as mongoimport does and inserts them;
'--import' does so before running SCRIPT against the data.
'import-cluster' makes the cluster a real one's sharding metadata: the
mongoexport files of config.shards, collections, chunks and (optional)
databases, tags, changelog in DIR/config/ or DIR (chunks.json,
config.chunks.json or bsondump's chunks.bson.json), prints sh.status(),
replays the changelog's splits, merges and migrations, then runs SCRIPT.
Instead of DIR, FILE may hold what sh.status({verbose: true}) printed in
mongosh (or sh.status(true) in the mongo shell), copied as it is; so may a
.txt file in DIR when DIR holds no exports. Every chunk must be printed:
mongosh prints 100 entries of a list, printjson(sh.status({verbose: true}))
all of them. The version mode is read from the printout (8.0 when shards
have replSetConfigVersion, 7.0 with automerge or shardedDataDistribution,
else 5.0) and said on standard error.
Import options:
  --ns DB.COLL          the collection to insert into (required)
  --type json|csv       the file's format (default: from its name, else its first byte)
  --jsonArray           the file is one JSON array of documents
  --columnsHaveTypes    the CSV header spells types: name.string(), n.int64(), ...
  --ignoreBlanks        leave out empty CSV fields (else they are empty strings)
  --parseGrace G        autoCast, skipField, skipRow or stop (default: stop)
  --sort FIELD          insert in the order of FIELD (ascending), not file order

'analyze' replays the file's documents into one cluster per candidate shard key
and ranks the candidates: cardinality, frequency, monotonic change, where the
latest tenth of the inserts went, the data's spread, jumbo chunks, documents
refused. It reads the file as 'import' does (--type, --jsonArray,
--columnsHaveTypes, --ignoreBlanks, --parseGrace) and takes:
  --key PATTERN         a candidate, as the shell writes it: '{a: 1}', '{b: \"hashed\"}'
                        (repeat it; without --key, candidates are proposed
                        from the fields of the first 10,000 documents)
  --sort-by FIELD       replay in the order of FIELD (ascending)
  --shards N            shards per cluster, 1 to 64 (default: 3)
  --version V           3.6, 5.0, 7.0 or 8.0 (default: 5.0)
  --chunk-size MB       the maximum chunk size, 1 to 1024 (default: 1, MongoDB's
                        smallest, so that a sample fills chunks)
  --queries FILE        a sample of queries, one a line or a JSON array: bare
                        filters (each a find) or config.sampledQueries documents
                        (mongoexport -d config -c sampledQueries); each candidate
                        then gets analyzeShardKey's read and write distribution
  --queries-ns DB.COLL  keep the sampled queries of this collection only
  --json                one JSON document instead of the table";

/// What the command line asks for.
struct Args {
    json: bool,
    file: Option<String>,
    import: Option<ImportArgs>,
    /// `shardlab import ...`: import only, no script.
    import_only: bool,
    /// `shardlab import-cluster DIR`: the directory of a cluster's config exports.
    cluster: Option<String>,
    /// `shardlab export ...`: the script written for mongosh instead of its results.
    export: bool,
}

/// An import's file and options.
#[derive(Default)]
struct ImportArgs {
    file: String,
    ns: Option<String>,
    options: ImportOptions,
    sort: Option<String>,
}

/// Reads the command line; `Err` is the exit status to leave with, its message written.
fn parse_args() -> Result<Args, ExitCode> {
    let mut args = Args {
        json: false,
        file: None,
        import: None,
        import_only: false,
        cluster: None,
        export: false,
    };
    let mut list: Vec<String> = std::env::args().skip(1).collect();
    if list.first().map(String::as_str) == Some("export") {
        list.remove(0);
        args.export = true;
    }
    if list.first().map(String::as_str) == Some("import-cluster") {
        list.remove(0);
        if list.first().is_none_or(|d| d.starts_with("--")) {
            report(&format!(
                "shardlab: import-cluster needs a DIR or a FILE\n{USAGE}"
            ));
            return Err(ExitCode::from(2));
        }
        args.cluster = Some(list.remove(0));
    }
    if list.first().map(String::as_str) == Some("import") {
        list.remove(0);
        args.import_only = true;
        args.import = Some(ImportArgs::default());
    }
    let usage = |message: String| {
        report(&format!("shardlab: {message}\n{USAGE}"));
        ExitCode::from(2)
    };
    let mut it = list.into_iter();
    while let Some(arg) = it.next() {
        let (name, inline) = split_option(&arg);
        let takes_value = matches!(
            name.as_str(),
            "--import" | "--ns" | "--type" | "--parseGrace" | "--sort"
        );
        // `=` after an option that takes no value is part of an unknown option.
        let (name, inline) = if takes_value {
            (name, inline)
        } else {
            (arg.clone(), None)
        };
        let value = if takes_value {
            match inline.or_else(|| it.next()) {
                Some(v) => Some(v),
                None => return Err(usage(format!("{name} needs a value"))),
            }
        } else {
            None
        };
        let value = value.unwrap_or_default();
        let is_import_option = matches!(
            name.as_str(),
            "--ns"
                | "--type"
                | "--jsonArray"
                | "--columnsHaveTypes"
                | "--ignoreBlanks"
                | "--parseGrace"
                | "--sort"
        );
        if (is_import_option || name == "--import") && args.cluster.is_some() {
            return Err(usage(format!("{name} is not an option of import-cluster")));
        }
        if is_import_option || name == "--import" {
            let import = args.import.get_or_insert_with(ImportArgs::default);
            match name.as_str() {
                "--import" => import.file = value,
                "--ns" => import.ns = Some(value),
                "--sort" => import.sort = Some(value),
                _ => {
                    if let Err(message) = read_option(&name, &value, &mut import.options) {
                        return Err(usage(message));
                    }
                }
            }
            continue;
        }
        match name.as_str() {
            "--json" => args.json = true,
            "-h" | "--help" => return Err(print_all(USAGE)),
            "-V" | "--version" => {
                return Err(print_all(&format!(
                    "shardlab {}",
                    env!("CARGO_PKG_VERSION")
                )))
            }
            "-" if !args.import_only => args.file = None,
            other if other.starts_with("--") => {
                return Err(usage(format!("unknown option {other}")));
            }
            other if args.import_only => match &mut args.import {
                Some(import) if import.file.is_empty() => import.file = other.to_string(),
                _ => return Err(usage(format!("unexpected argument {other}"))),
            },
            other => args.file = Some(other.to_string()),
        }
    }
    if let Some(import) = &mut args.import {
        if import.file.is_empty() {
            return Err(usage("an import needs a FILE".to_string()));
        }
        match &import.ns {
            Some(ns)
                if ns
                    .split_once('.')
                    .is_some_and(|(d, c)| !d.is_empty() && !c.is_empty()) => {}
            Some(ns) => return Err(usage(format!("--ns must be DB.COLLECTION, not '{ns}'"))),
            None => return Err(usage("an import needs --ns DB.COLLECTION".to_string())),
        }
        import.options.file_name = Some(import.file.clone());
    }
    Ok(args)
}

/// An argument as `--name=value` (the name and the value) or anything else (itself):
/// options that take a value take it either way, `--name=value` or `--name value`.
fn split_option(arg: &str) -> (String, Option<String>) {
    match arg.split_once('=') {
        Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
        _ => (arg.to_string(), None),
    }
}

/// Sets one of the options that say how a file of documents is read (`--type`,
/// `--jsonArray`, `--columnsHaveTypes`, `--ignoreBlanks`, `--parseGrace`), shared by
/// `import` and `analyze`; `Ok(false)` for another option.
fn read_option(name: &str, value: &str, options: &mut ImportOptions) -> Result<bool, String> {
    match name {
        "--type" => match ImportFormat::parse(value) {
            Some(f) => options.format = Some(f),
            None => return Err(format!("unknown --type {value}: use json or csv")),
        },
        "--jsonArray" => options.format = Some(ImportFormat::JsonArray),
        "--columnsHaveTypes" => options.columns_have_types = true,
        "--ignoreBlanks" => options.ignore_blanks = true,
        "--parseGrace" => match ParseGrace::parse(value) {
            Some(g) => options.parse_grace = g,
            None => return Err(format!("invalid parse grace: {value}")),
        },
        _ => return Ok(false),
    }
    Ok(true)
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("analyze") {
        return analyze::main(std::env::args().skip(2).collect(), read_buffer());
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let json = args.json;
    let file = args.file;
    let name = file.as_deref().unwrap_or("standard input");
    if args.export {
        return export(file.as_deref(), name, read_buffer());
    }
    let mut runner = Runner {
        session: Session::default(),
        json,
        out: std::io::stdout().lock(),
        failed: false,
        closed: false,
        unwritten: false,
    };
    let buffer = read_buffer();
    if let Some(dir) = &args.cluster {
        match cluster::import_cluster(std::path::Path::new(dir), buffer) {
            Ok(session) => runner.session = session,
            Err(code) => return code,
        }
        let mut status = ScriptStream::new();
        status.push("sh.status()");
        if let Some(piece) = status.next_piece(true) {
            runner.run(&piece);
        }
    }
    if let Some(import) = &args.import {
        match import_file(&mut runner.session, import, buffer) {
            Ok(true) => {}
            Ok(false) if args.import_only => return ExitCode::FAILURE,
            Ok(false) => runner.failed = true,
            Err(code) => return code,
        }
        if args.import_only {
            return ExitCode::SUCCESS;
        }
    }
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

/// `shardlab export [FILE]`: reads the script in pieces, exports each, and writes the
/// mongosh script on standard output.
fn export(file: Option<&str>, name: &str, buffer: usize) -> ExitCode {
    let mut exporter = shardlab::sim::Exporter::new(Default::default());
    let read = match file {
        Some(path) => std::fs::File::open(path).and_then(|f| {
            read_pieces(f, true, buffer, |piece| {
                exporter.parsed(&piece.text, &piece.script, &piece.errors);
                true
            })
        }),
        None => read_pieces(std::io::stdin().lock(), false, buffer, |piece| {
            exporter.parsed(&piece.text, &piece.script, &piece.errors);
            true
        }),
    };
    if let Err(e) = read {
        report(&format!("shardlab: cannot read {name}: {e}"));
        return ExitCode::from(2);
    }
    match exporter.finish() {
        Ok(script) => print_all(script.trim_end()),
        Err(e) => {
            report(&format!("shardlab: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// Imports a file into the session, `buffer` bytes at a time, writing each line that
/// did not go in and then mongoimport's summary on standard error. Answers whether every
/// document went in; `Err` is the exit status when the import had to stop (a file that
/// cannot be opened or read on), after its message.
fn import_file(
    session: &mut Session,
    import: &ImportArgs,
    buffer: usize,
) -> Result<bool, ExitCode> {
    let ns = import.ns.as_deref().unwrap_or_default();
    let mut importer = Importer::new(ns, import.options.clone(), import.sort.as_deref());
    let mut file = match std::fs::File::open(&import.file) {
        Ok(f) => f,
        Err(e) => {
            report(&format!("shardlab: cannot read {}: {e}", import.file));
            return Err(ExitCode::from(2));
        }
    };
    let mut tally = Tally::default();
    let mut buf = vec![0u8; buffer];
    let mut stop: Option<String> = None;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                stop = Some(format!("cannot read {}: {e}", import.file));
                break;
            }
        };
        let step = if n == 0 {
            importer.finish()
        } else {
            importer.push(&buf[..n])
        };
        // What was read before an error still goes in.
        if let Some(why) = tally.drain(session, &mut importer) {
            stop = Some(why);
            break;
        }
        if let Err(e) = step {
            stop = Some(e.to_string());
            break;
        }
        if n == 0 {
            break;
        }
    }
    if let Some(why) = &stop {
        report(&format!("Failed: {why}"));
    }
    report(&format!(
        "{} document(s) imported successfully. {} document(s) failed to import.",
        tally.imported, tally.failed
    ));
    if stop.is_some() {
        return Err(ExitCode::FAILURE);
    }
    Ok(tally.failed == 0)
}

/// An import's counts so far.
#[derive(Default)]
struct Tally {
    imported: u64,
    failed: u64,
}

impl Tally {
    /// Inserts the batches ready and reports the failures; answers why the import must
    /// stop, if it must.
    fn drain(&mut self, session: &mut Session, importer: &mut Importer) -> Option<String> {
        while let Some(item) = importer.next_item() {
            match item {
                ImportItem::Failure(f) => self.fail(&f),
                ImportItem::Batch(batch) => {
                    let BatchResult {
                        inserted,
                        failures,
                        stopped,
                    } = session.run_import_batch(&batch);
                    self.imported += inserted;
                    for f in &failures {
                        self.fail(f);
                    }
                    if stopped.is_some() {
                        return stopped;
                    }
                }
            }
        }
        None
    }

    fn fail(&mut self, f: &Failure) {
        self.failed += 1;
        report(&f.to_string());
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
