//! A sample of queries read from a file, for analyzeShardKey's read and write
//! distribution (`engine::analyze`): one Extended JSON document after another (a line
//! each, as `mongoexport` writes them) or one JSON array, plain or gzipped, read by the
//! import's own reader (`import.rs`), so the same limits hold (16 MiB a record, 58
//! levels of nesting, no binary files).
//!
//! Each document is one of:
//!
//! - **a bare filter** (`{customerId: 7}`), taken as a `find`: one read;
//! - **a sampled query** as MongoDB's query sampling stores it in `config.sampledQueries`
//!   (`sampled_query_document.idl`'s `SampledQueryDocument`, MongoDB 7.0 on), so that
//!   `mongoexport -d config -c sampledQueries` gives a file this reads. A document with a
//!   `cmdName` is one: `cmdName` says what `cmd` holds, as
//!   `analyze_shard_key_read_write_distribution.cpp` reads it:
//!   - `find`, `aggregate`, `count`, `distinct`: a read, `cmd.filter` its filter
//!     (`SampledReadCommand`);
//!   - `update`: a write per entry of `cmd.updates` (`q`, `u`, `multi`, `upsert`); an
//!     entry with `multi` is an `updateMany`, a replacement `u` a `replaceOne`, else an
//!     `updateOne`;
//!   - `delete`: a write per entry of `cmd.deletes` (`q`, `limit` 0 for many, 1 for one);
//!   - `findAndModify`: a write (`cmd.query`, `cmd.update` or `cmd.remove`, `cmd.upsert`);
//!   - `bulkWrite`: a write per update or delete of `cmd.ops` (`filter`, `updateMods`,
//!     `multi`, `upsert`); its inserts are not counted, as MongoDB does not count them;
//!   - `insert`: a name of MongoDB's enumeration that its distribution has no case for
//!     (`processSampledQueries`); read and left out, with a note saying so.
//!
//! A record that cannot be read, or that MongoDB's parser would refuse (a missing field,
//! a field of the wrong type, an unknown `cmdName`, a filter with an unknown operator), is
//! a [`Failure`] with its line and the reason in MongoDB's words, and the rest is read on.
//! The sampled queries of several collections cannot be mixed: MongoDB analyzes one
//! collection's samples (by its UUID); a file holding several namespaces needs one chosen
//! ([`QueryFileOptions::ns`]).
//!
//! What MongoDB keeps beside the queries and this file cannot hold: the pre- and
//! post-image diffs of sampled updates (`config.sampledQueriesDiff`), from which it counts
//! shard key updates; the analysis reads the update document's shape instead (see
//! `engine::analyze`). A read's `collation` and `let` are read and not modelled: targeting
//! is done with the simple collation.

use super::import::{Failure, ImportError, ImportFormat, ImportOptions, ImportReader, Record};
use crate::engine::analyze::QuerySample;
use crate::query::filter::parse_filter;
use crate::query::update::type_name;
use bson::{Bson, Document};
use thiserror::Error;

/// The largest query file read, in bytes as given (gzipped or not): 16 MiB.
pub const MAX_QUERY_FILE_BYTES: usize = 16 << 20;

/// The most queries a sample holds: each is targeted once per candidate key.
pub const MAX_QUERIES: usize = 100_000;

/// The most BSON bytes the queries kept may take together (64 MiB), so that a gzipped
/// file cannot inflate into more than a sample's worth of memory.
pub const MAX_QUERY_BYTES: u64 = 64 << 20;

/// The most failures and notes kept (all are counted).
pub const MAX_QUERY_FAILURES_KEPT: usize = 100;

/// How to read a query file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryFileOptions {
    /// The file's name, for `.gz` detection by extension (the gzip magic bytes are
    /// detected too).
    pub file_name: Option<String>,
    /// The namespace whose sampled queries are kept (`db.coll`); sampled queries of other
    /// namespaces are counted and left out. Bare filters name no namespace and are
    /// always kept. `None` keeps every query, and refuses a file whose sampled queries
    /// name more than one namespace.
    pub ns: Option<String>,
}

/// Why a query file cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryFileError {
    /// The file is larger than [`MAX_QUERY_FILE_BYTES`].
    #[error("the query file is {0} bytes: a query sample is read from at most {MAX_QUERY_FILE_BYTES} bytes (16 MiB)")]
    FileTooLarge(u64),
    /// More queries than [`MAX_QUERIES`].
    #[error("the query file holds more than {MAX_QUERIES} queries: analyze a smaller sample")]
    TooManyQueries,
    /// The queries kept take more than [`MAX_QUERY_BYTES`].
    #[error("the queries of the file take more than {MAX_QUERY_BYTES} bytes (64 MiB) as BSON: analyze a smaller sample")]
    TooManyBytes,
    /// The file's sampled queries are of several collections and none was chosen.
    #[error("the query file holds sampled queries of {} collections ({}): choose one namespace", .0.len(), .0.join(", "))]
    SeveralNamespaces(Vec<String>),
    /// The file as a whole cannot be read (a broken gzip stream, a binary file).
    #[error("{0}")]
    Import(#[from] ImportError),
}

/// The queries read from a file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryFile {
    /// The queries, in file order (one record may give several: an `update` command's
    /// `updates`).
    pub queries: Vec<QuerySample>,
    /// The line each query's record starts on, beside [`QueryFile::queries`].
    pub lines: Vec<u64>,
    /// Records read.
    pub records: u64,
    /// Records that could not be read or that MongoDB would refuse: the first
    /// [`MAX_QUERY_FAILURES_KEPT`], in file order.
    pub failures: Vec<Failure>,
    /// How many records failed.
    pub failed: u64,
    /// Records read and not counted, with why (an `insert`, another namespace): the first
    /// [`MAX_QUERY_FAILURES_KEPT`].
    pub notes: Vec<Failure>,
    /// How many records were left out.
    pub left_out: u64,
    /// The namespaces the sampled queries named, each with its record count, in the order
    /// first seen.
    pub namespaces: Vec<(String, u64)>,
}

impl QueryFile {
    fn fail(&mut self, line: u64, reason: String) {
        self.failed += 1;
        if self.failures.len() < MAX_QUERY_FAILURES_KEPT {
            self.failures.push(Failure {
                line,
                column: None,
                reason,
            });
        }
    }

    fn leave_out(&mut self, line: u64, reason: String) {
        self.left_out += 1;
        if self.notes.len() < MAX_QUERY_FAILURES_KEPT {
            self.notes.push(Failure {
                line,
                column: None,
                reason,
            });
        }
    }

    /// Counts the reads among the queries (what analyzeShardKey's `readDistribution`
    /// will count).
    pub fn reads(&self) -> u64 {
        self.queries.iter().filter(|q| q.is_read()).count() as u64
    }

    /// Counts the writes among the queries.
    pub fn writes(&self) -> u64 {
        self.queries.iter().filter(|q| q.is_write()).count() as u64
    }
}

/// How much of the file goes to the reader at a time.
const SLICE: usize = 64 * 1024;

/// Reads a query file (see the module's notes). `Err` is a file that cannot be read at
/// all; a record that cannot be read is one of the [`QueryFile::failures`].
pub fn read_queries(bytes: &[u8], options: &QueryFileOptions) -> Result<QueryFile, QueryFileError> {
    if bytes.len() > MAX_QUERY_FILE_BYTES {
        return Err(QueryFileError::FileTooLarge(bytes.len() as u64));
    }
    let mut reader = ImportReader::new(ImportOptions {
        // Never CSV: a query is a document.
        format: Some(ImportFormat::Json),
        file_name: options.file_name.clone(),
        ..ImportOptions::default()
    });
    let mut file = QueryFile::default();
    let mut kept_bytes = 0u64;
    let mut drain =
        |reader: &mut ImportReader, file: &mut QueryFile| -> Result<(), QueryFileError> {
            loop {
                match reader.next_record()? {
                    None => return Ok(()),
                    Some(Record::Failure(f)) => {
                        file.records += 1;
                        file.failed += 1;
                        if file.failures.len() < MAX_QUERY_FAILURES_KEPT {
                            file.failures.push(f);
                        }
                    }
                    Some(Record::Document(d)) => {
                        file.records += 1;
                        kept_bytes += d.measure.bytes;
                        if kept_bytes > MAX_QUERY_BYTES {
                            return Err(QueryFileError::TooManyBytes);
                        }
                        take(file, d.document, d.line, options.ns.as_deref());
                        if file.queries.len() > MAX_QUERIES {
                            return Err(QueryFileError::TooManyQueries);
                        }
                    }
                }
            }
        };
    for piece in bytes.chunks(SLICE) {
        reader.push(piece)?;
        drain(&mut reader, &mut file)?;
    }
    reader.finish()?;
    drain(&mut reader, &mut file)?;
    if options.ns.is_none() && file.namespaces.len() > 1 {
        let names = file.namespaces.iter().map(|(n, _)| n.clone()).collect();
        return Err(QueryFileError::SeveralNamespaces(names));
    }
    Ok(file)
}

/// One record: its queries kept, or why not.
fn take(file: &mut QueryFile, doc: Document, line: u64, only: Option<&str>) {
    if !doc.contains_key("cmdName") {
        // A bare filter: a find.
        match checked(doc) {
            Ok(filter) => push(file, line, read("find", filter)),
            Err(e) => file.fail(line, e),
        }
        return;
    }
    if let Some(Bson::String(ns)) = doc.get("ns") {
        match file.namespaces.iter_mut().find(|(n, _)| n == ns) {
            Some((_, n)) => *n += 1,
            None => file.namespaces.push((ns.clone(), 1)),
        }
        if only.is_some_and(|o| o != ns) {
            file.leave_out(
                line,
                format!("a sampled query of {ns}, not of the collection analyzed"),
            );
            return;
        }
    }
    match sampled(&doc) {
        Ok(Sampled::Queries(list)) => {
            for q in list {
                push(file, line, q);
            }
        }
        Ok(Sampled::NotCounted(why)) => file.leave_out(line, why),
        Err(e) => file.fail(line, e),
    }
}

fn push(file: &mut QueryFile, line: u64, q: QuerySample) {
    file.queries.push(q);
    file.lines.push(line);
}

fn read(command: &str, filter: Document) -> QuerySample {
    QuerySample {
        command: command.to_string(),
        filter,
        update: None,
        upsert: false,
    }
}

/// A filter MongoDB would run: it parses (no unknown operator, no `$in` without an
/// array). The error in MongoDB's words, with its code name.
fn checked(filter: Document) -> Result<Document, String> {
    match parse_filter(&filter) {
        Ok(_) => Ok(filter),
        Err(e) => Err(format!("{}: {e}", e.code_name())),
    }
}

/// What a sampled query document gives.
enum Sampled {
    /// The queries to count.
    Queries(Vec<QuerySample>),
    /// Nothing to count, and why.
    NotCounted(String),
}

/// The IDL parser's words for a missing required field (code 40414).
fn missing(context: &str, field: &str) -> String {
    format!("Location40414: BSON field '{context}.{field}' is missing but a required field")
}

/// The IDL parser's words for a field of the wrong type (TypeMismatch, code 14).
fn wrong_type(context: &str, field: &str, value: &Bson, expected: &str) -> String {
    format!(
        "TypeMismatch: BSON field '{context}.{field}' is the wrong type '{}', expected type '{expected}'",
        type_name(value)
    )
}

/// The parser contexts MongoDB names in its errors.
const QUERY_DOC: &str = "$_analyzeShardKeyReadWriteDistribution";
const READ_CMD: &str = "ReadDistributionMetricsCalculator";
const WRITE_CMD: &str = "WriteDistributionMetricsCalculator";

fn object<'a>(d: &'a Document, context: &str, field: &str) -> Result<&'a Document, String> {
    match d.get(field) {
        Some(Bson::Document(o)) => Ok(o),
        Some(other) => Err(wrong_type(context, field, other, "object")),
        None => Err(missing(context, field)),
    }
}

fn array<'a>(d: &'a Document, context: &str, field: &str) -> Result<&'a [Bson], String> {
    match d.get(field) {
        Some(Bson::Array(a)) => Ok(a),
        Some(other) => Err(wrong_type(context, field, other, "array")),
        None => Err(missing(context, field)),
    }
}

/// An optional boolean (`multi`, `upsert`, `remove`): the IDL's `safeBool` takes a
/// boolean or a number.
fn flag(d: &Document, context: &str, field: &str) -> Result<bool, String> {
    match d.get(field) {
        None | Some(Bson::Null) => Ok(false),
        Some(Bson::Boolean(b)) => Ok(*b),
        Some(Bson::Int32(n)) => Ok(*n != 0),
        Some(Bson::Int64(n)) => Ok(*n != 0),
        Some(Bson::Double(n)) => Ok(*n != 0.0),
        Some(other) => Err(wrong_type(context, field, other, "bool")),
    }
}

/// An update modification: a document (operators or a replacement), or a pipeline
/// (kept as no document: it is neither a replacement nor operators this reads).
fn modification(
    d: &Document,
    context: &str,
    field: &str,
    required: bool,
) -> Result<Option<Option<Document>>, String> {
    match d.get(field) {
        Some(Bson::Document(u)) => Ok(Some(Some(u.clone()))),
        Some(Bson::Array(_)) => Ok(Some(None)),
        None if !required => Ok(None),
        None => Err(missing(context, field)),
        Some(other) => Err(wrong_type(context, field, other, "object")),
    }
}

fn is_replacement(u: &Document) -> bool {
    u.keys().next().is_none_or(|k| !k.starts_with('$'))
}

/// The queries of one `config.sampledQueries` document.
fn sampled(doc: &Document) -> Result<Sampled, String> {
    let name = match doc.get("cmdName") {
        Some(Bson::String(s)) => s.as_str(),
        Some(other) => return Err(wrong_type(QUERY_DOC, "cmdName", other, "string")),
        None => return Err(missing(QUERY_DOC, "cmdName")),
    };
    let known = [
        "find",
        "aggregate",
        "count",
        "distinct",
        "insert",
        "update",
        "delete",
        "findAndModify",
        "bulkWrite",
    ];
    if !known.contains(&name) {
        return Err(format!(
            "BadValue: Enumeration value '{name}' for field '{QUERY_DOC}.cmdName' is not a valid value."
        ));
    }
    let cmd = object(doc, QUERY_DOC, "cmd")?;
    let queries = match name {
        "find" | "aggregate" | "count" | "distinct" => {
            let filter = object(cmd, READ_CMD, "filter")?.clone();
            vec![read(name, checked(filter)?)]
        }
        "update" => {
            let mut out = Vec::new();
            for entry in array(cmd, WRITE_CMD, "updates")? {
                let Bson::Document(op) = entry else {
                    return Err(wrong_type(WRITE_CMD, "updates", entry, "object"));
                };
                let context = "UpdateOpEntry";
                let filter = checked(object(op, context, "q")?.clone())?;
                let update = modification(op, context, "u", true)?.flatten();
                let multi = flag(op, context, "multi")?;
                let upsert = flag(op, context, "upsert")?;
                out.push(update_sample(filter, update, multi, upsert));
            }
            out
        }
        "delete" => {
            let mut out = Vec::new();
            for entry in array(cmd, WRITE_CMD, "deletes")? {
                let Bson::Document(op) = entry else {
                    return Err(wrong_type(WRITE_CMD, "deletes", entry, "object"));
                };
                let context = "DeleteOpEntry";
                let filter = checked(object(op, context, "q")?.clone())?;
                let multi = delete_limit(op, context)?;
                out.push(QuerySample {
                    command: if multi { "deleteMany" } else { "deleteOne" }.into(),
                    filter,
                    update: None,
                    upsert: false,
                });
            }
            out
        }
        "findAndModify" => {
            let filter = match cmd.get("query") {
                None | Some(Bson::Null) => Document::new(),
                Some(Bson::Document(q)) => q.clone(),
                Some(other) => return Err(wrong_type(WRITE_CMD, "query", other, "object")),
            };
            let filter = checked(filter)?;
            let remove = flag(cmd, WRITE_CMD, "remove")?;
            let update = modification(cmd, WRITE_CMD, "update", false)?;
            let upsert = flag(cmd, WRITE_CMD, "upsert")?;
            // How mongosh names the three kinds, which the analysis counts alike (a
            // findAndModify is never targeted by its replacement document).
            let command = match (&update, remove) {
                (Some(_), true) => {
                    return Err(
                        "FailedToParse: Cannot specify both an update and remove=true".into(),
                    )
                }
                (None, false) => {
                    return Err(
                        "FailedToParse: Either an update or remove=true must be specified".into(),
                    )
                }
                (None, true) => "findOneAndDelete",
                (Some(Some(u)), false) if is_replacement(u) => "findOneAndReplace",
                (Some(_), false) => "findOneAndUpdate",
            };
            vec![QuerySample {
                command: command.into(),
                filter,
                update: update.flatten(),
                upsert,
            }]
        }
        "bulkWrite" => bulk_write(cmd)?,
        _ => {
            return Ok(Sampled::NotCounted(format!(
            "a sampled {name}: analyzeShardKey counts no {name} in its read or write distribution"
        )))
        }
    };
    Ok(Sampled::Queries(queries))
}

/// An update as the analysis names it: `updateMany`, `replaceOne` or `updateOne`.
fn update_sample(
    filter: Document,
    update: Option<Document>,
    multi: bool,
    upsert: bool,
) -> QuerySample {
    let command = match (&update, multi) {
        (_, true) => "updateMany",
        (Some(u), false) if is_replacement(u) => "replaceOne",
        _ => "updateOne",
    };
    QuerySample {
        command: command.into(),
        filter,
        update,
        upsert,
    }
}

/// A delete entry's `limit`: 0 deletes many, 1 one (write_ops.idl's `DeleteOpEntry`).
fn delete_limit(op: &Document, context: &str) -> Result<bool, String> {
    let n = match op.get("limit") {
        None => return Err(missing(context, "limit")),
        Some(Bson::Int32(n)) => f64::from(*n),
        Some(Bson::Int64(n)) => *n as f64,
        Some(Bson::Double(n)) => *n,
        Some(other) => return Err(wrong_type(context, "limit", other, "number")),
    };
    if n == 0.0 {
        Ok(true)
    } else if n == 1.0 {
        Ok(false)
    } else {
        Err(format!(
            "BadValue: The limit field in delete objects must be 0 or 1. Got {n}"
        ))
    }
}

/// The updates and deletes of a sampled `bulkWrite` (`BulkWriteCommandRequest.ops`).
fn bulk_write(cmd: &Document) -> Result<Vec<QuerySample>, String> {
    let mut out = Vec::new();
    for entry in array(cmd, WRITE_CMD, "ops")? {
        let Bson::Document(op) = entry else {
            return Err(wrong_type(WRITE_CMD, "ops", entry, "object"));
        };
        if op.contains_key("update") {
            let context = "BulkWriteUpdateOp";
            let filter = checked(object(op, context, "filter")?.clone())?;
            let update = modification(op, context, "updateMods", true)?.flatten();
            let multi = flag(op, context, "multi")?;
            let upsert = flag(op, context, "upsert")?;
            out.push(update_sample(filter, update, multi, upsert));
        } else if op.contains_key("delete") {
            let context = "BulkWriteDeleteOp";
            let filter = checked(object(op, context, "filter")?.clone())?;
            let multi = flag(op, context, "multi")?;
            out.push(QuerySample {
                command: if multi { "deleteMany" } else { "deleteOne" }.into(),
                filter,
                update: None,
                upsert: false,
            });
        }
    }
    Ok(out)
}
