//! `shardlab analyze FILE [--key PATTERN]... [options]`: candidate shard keys ranked on a
//! file of documents (`sim::Ranker`). The file is read in pieces through the import's
//! reader and each document handed to the ranker as it is read, so the raw file is never
//! held; each line that cannot be read is printed on standard error, as `import` prints
//! it, and progress goes to standard error only when it is a terminal. Each candidate's
//! cluster is replayed on a thread of its own (`replay_threads.rs`) while the file is read.
//!
//! With `--queries QUERIES_FILE`, a sample of queries (bare filters, or the documents of
//! `config.sampledQueries` as `mongoexport` writes them; `workload::read_queries`) is read
//! first, each query that cannot be read printed on standard error with its line, and
//! every candidate is measured for analyzeShardKey's read and write distribution too.
//! `--queries-ns NS` keeps the sampled queries of one collection when the file holds
//! several.

use shardlab::shell::{parse_ejson, to_relaxed_ejson};
use shardlab::sim::{RankOptions, Ranker};
use shardlab::workload::{
    read_queries, ImportOptions, ImportReader, QueryFileOptions, Record, MAX_QUERY_FILE_BYTES,
};
use shardlab::VersionMode;
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

/// What `analyze` was asked.
struct AnalyzeArgs {
    file: String,
    keys: Vec<bson::Document>,
    json: bool,
    read: ImportOptions,
    rank: RankOptions,
    queries: Option<String>,
    queries_ns: Option<String>,
}

/// Reads `analyze`'s arguments (after the word `analyze`); `Err` is the usage message.
fn parse(list: Vec<String>) -> Result<AnalyzeArgs, String> {
    let mut args = AnalyzeArgs {
        file: String::new(),
        keys: Vec::new(),
        json: false,
        read: ImportOptions::default(),
        rank: RankOptions::default(),
        queries: None,
        queries_ns: None,
    };
    let mut it = list.into_iter();
    while let Some(arg) = it.next() {
        let (name, inline) = super::split_option(&arg);
        let takes_value = matches!(
            name.as_str(),
            "--key"
                | "--sort-by"
                | "--shards"
                | "--version"
                | "--chunk-size"
                | "--type"
                | "--parseGrace"
                | "--queries"
                | "--queries-ns"
        );
        let value = match (takes_value, inline) {
            (false, _) => String::new(),
            (true, Some(v)) => v,
            (true, None) => it.next().ok_or(format!("{name} needs a value"))?,
        };
        if takes_value || !name.starts_with("--") || name == "--json" {
            set(&mut args, &name, value)?;
        } else if !super::read_option(&arg, "", &mut args.read)? {
            return Err(format!("unknown option {arg}"));
        }
    }
    if args.file.is_empty() {
        return Err("analyze needs a FILE".to_string());
    }
    args.read.file_name = Some(args.file.clone());
    Ok(args)
}

/// Sets one option that takes a value (or the FILE, or `--json`).
fn set(args: &mut AnalyzeArgs, name: &str, value: String) -> Result<(), String> {
    match name {
        "--json" => args.json = true,
        "--key" => args.keys.push(key(&value)?),
        "--sort-by" => args.rank.sort_by = Some(value),
        "--queries" => args.queries = Some(value),
        "--queries-ns" => args.queries_ns = Some(value),
        "--shards" => {
            args.rank.cluster.shards = value
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .ok_or(format!(
                    "--shards must be a number from 1 to 64, not '{value}'"
                ))?
        }
        "--version" => {
            args.rank.cluster.version = VersionMode::parse(&value).ok_or(format!(
                "unknown --version {value}: use 3.6, 5.0, 7.0 or 8.0"
            ))?
        }
        "--chunk-size" => {
            let mb = value
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=1024).contains(n))
                .ok_or(format!(
                    "--chunk-size is in MB, from 1 to 1024, not '{value}'"
                ))?;
            args.rank.cluster.chunk_size = Some(mb << 20);
        }
        "--type" | "--parseGrace" => {
            super::read_option(name, &value, &mut args.read)?;
        }
        file if args.file.is_empty() && (!file.starts_with('-') || file == "-") => {
            args.file = file.to_string()
        }
        other => return Err(format!("unexpected argument {other}")),
    }
    Ok(())
}

/// A `--key` as the shell reads a document: `{a: 1}`, `{b: "hashed"}`.
fn key(text: &str) -> Result<bson::Document, String> {
    match parse_ejson(text) {
        Ok(bson::Bson::Document(d)) => Ok(d),
        Ok(_) => Err(format!(
            "--key must be a document such as {{a: 1}}, not '{text}'"
        )),
        Err(e) => Err(format!("cannot read --key '{text}': {e}")),
    }
}

/// Runs `shardlab analyze ...`.
pub fn main(list: Vec<String>, buffer: usize) -> ExitCode {
    let args = match parse(list) {
        Ok(a) => a,
        Err(message) => {
            super::report(&format!("shardlab: {message}\n{}", super::USAGE));
            return ExitCode::from(2);
        }
    };
    let mut args = args;
    if let Some(path) = args.queries.clone() {
        match queries(&path, args.queries_ns.clone()) {
            Ok(q) => args.rank.queries = Some(q),
            Err(code) => return code,
        }
    }
    let replayer = Box::new(super::replay_threads::Threads::default());
    let mut ranker = match Ranker::with_replayer(&args.keys, args.rank.clone(), replayer) {
        Ok(r) => r,
        Err(e) => {
            super::report(&format!("shardlab: {e}"));
            return ExitCode::from(2);
        }
    };
    if let Err(code) = read_file(&args, &mut ranker, buffer) {
        return code;
    }
    if ranker.documents() == 0 {
        super::report(&format!(
            "shardlab: {} holds no documents to analyze",
            args.file
        ));
        return ExitCode::FAILURE;
    }
    let ranking = ranker.finish();
    let text = if args.json {
        to_relaxed_ejson(&bson::Bson::Document(ranking.to_document()))
    } else {
        ranking.render_table()
    };
    super::print_all(text.trim_end())
}

/// Reads the file into the ranker, `buffer` bytes at a time; `Err` is the exit status
/// when it cannot be read on, after its message.
fn read_file(args: &AnalyzeArgs, ranker: &mut Ranker, buffer: usize) -> Result<(), ExitCode> {
    let mut file = std::fs::File::open(&args.file).map_err(|e| {
        super::report(&format!("shardlab: cannot read {}: {e}", args.file));
        ExitCode::from(2)
    })?;
    let mut reader = ImportReader::new(args.read.clone());
    let mut buf = vec![0u8; buffer];
    let progress = std::io::stderr().is_terminal();
    let mut told = 0;
    loop {
        let n = match file.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(failed(&format!("cannot read {}: {e}", args.file))),
        };
        let step = if n == 0 {
            reader.finish()
        } else {
            reader.push(&buf[..n])
        };
        // What was read before an error still counts.
        let drained = drain(&mut reader, ranker);
        if let Err(e) = step.and(drained) {
            return Err(failed(&e.to_string()));
        }
        if progress && ranker.documents() / 10_000 != told {
            told = ranker.documents() / 10_000;
            let _ = write!(std::io::stderr(), "\r{} documents read", ranker.documents());
        }
        if n == 0 {
            break;
        }
    }
    if progress && told > 0 {
        let _ = writeln!(std::io::stderr());
    }
    Ok(())
}

/// Reads the query sample at `path`, printing each record that cannot be read (or is
/// left out) on standard error with its line; `Err` is the exit status when the file
/// cannot be read at all.
fn queries(
    path: &str,
    ns: Option<String>,
) -> Result<std::sync::Arc<[shardlab::engine::QuerySample]>, ExitCode> {
    let cannot = |why: String| {
        super::report(&format!("shardlab: cannot read the queries {path}: {why}"));
        ExitCode::from(2)
    };
    let size = std::fs::metadata(path)
        .map_err(|e| cannot(e.to_string()))?
        .len();
    if size > MAX_QUERY_FILE_BYTES as u64 {
        return Err(cannot(format!(
            "it is {size} bytes, and a query sample is read from at most {MAX_QUERY_FILE_BYTES} bytes (16 MiB)"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| cannot(e.to_string()))?;
    let options = QueryFileOptions {
        file_name: Some(path.to_string()),
        ns,
    };
    let file = read_queries(&bytes, &options).map_err(|e| cannot(e.to_string()))?;
    for f in &file.failures {
        super::report(&format!("{path}: {f}"));
    }
    if file.failed > file.failures.len() as u64 {
        super::report(&format!(
            "{path}: {} more records could not be read",
            file.failed - file.failures.len() as u64
        ));
    }
    for n in &file.notes {
        super::report(&format!("{path}: {n} (not counted)"));
    }
    if file.left_out > file.notes.len() as u64 {
        super::report(&format!(
            "{path}: {} more records not counted",
            file.left_out - file.notes.len() as u64
        ));
    }
    Ok(file.queries.into())
}

fn failed(why: &str) -> ExitCode {
    super::report(&format!("Failed: {why}"));
    ExitCode::FAILURE
}

/// Hands every record read to the ranker, printing those that cannot be read.
fn drain(
    reader: &mut ImportReader,
    ranker: &mut Ranker,
) -> Result<(), shardlab::workload::ImportError> {
    while let Some(record) = reader.next_record()? {
        match record {
            Record::Document(d) => ranker.push(d.document, d.line, d.measure.bytes),
            Record::Failure(f) => {
                ranker.unreadable();
                super::report(&f.to_string());
            }
        }
    }
    Ok(())
}
