//! A user's own documents, read as MongoDB's tools read them: `mongoexport`'s output
//! (one Extended JSON document after another, canonical or relaxed), a JSON array of
//! documents (`mongoexport --jsonArray`), CSV with a header row typed as
//! `mongoimport --type csv` types it, and a `.gz` of any of these.
//!
//! [`ImportReader`] takes the file's bytes a slice at a time and hands out each
//! document ([`Record::Document`]) as soon as its end has arrived, so a large file
//! never sits in memory as documents all at once. A record that cannot be read is a
//! [`Record::Failure`] with its line and a reason in the tools' words, never dropped
//! silently; the reader goes on with the next record (mongoimport stops at the first;
//! see `ParseGrace::Stop`). What makes the whole file unreadable (a broken gzip stream,
//! a binary file, a CSV header mongoimport refuses) is an [`ImportError`].
//!
//! Every document is checked against the limits the rest of the core holds values to
//! (`values::limits`: 16 MiB, 100,000 values) and against what one import step can
//! replay (see [`MAX_DEPTH`]), so no input, however deep, large or hostile, panics or
//! reaches the stack. `import_batch.rs` turns the documents into the shell commands
//! that insert them.

use super::import_csv::{tokens_to_document, validate_fields, CsvReader, CsvRecord};
use super::import_fields::{auto_column, typed_column, ColumnSpec, ParseGrace};
use super::import_json::{JsonRecord, JsonScanner, Shape};
use crate::values::limits::{measure, Measure, MAX_BSON_BYTES};
use bson::{Bson, Document};
use std::io::Write;
use thiserror::Error;

/// The deepest a document of an import may nest (`{a: 1}` is 1). The documents go into
/// the session as shell statements (`insertMany` of canonical Extended JSON), and the
/// shell's parser nests at most 64 expressions (`shell::parser::MAX_DEPTH`): the call,
/// the array and a type wrapper (up to three levels: `{$dbPointer: {$id: {$oid}}}`)
/// take the rest. MongoDB itself stores 180 levels; ShardLab's shell, like this import,
/// takes fewer.
pub const MAX_DEPTH: u32 = 58;

/// The formats an import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportFormat {
    /// Extended JSON documents one after another (`mongoexport`'s default output;
    /// `.json`, `.jsonl`, `.ndjson`).
    Json,
    /// One JSON array of documents (`mongoexport --jsonArray`).
    JsonArray,
    /// CSV with a header row (`.csv`).
    Csv,
}

impl ImportFormat {
    /// The format `--type` names: `json` or `csv` (mongoimport's `tsv` is not read).
    pub fn parse(name: &str) -> Option<ImportFormat> {
        match name {
            "json" => Some(ImportFormat::Json),
            "csv" => Some(ImportFormat::Csv),
            _ => None,
        }
    }

    /// The format's name in a preview: `json`, `jsonArray` or `csv`.
    pub fn name(self) -> &'static str {
        match self {
            ImportFormat::Json => "json",
            ImportFormat::JsonArray => "jsonArray",
            ImportFormat::Csv => "csv",
        }
    }
}

/// How to read a file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportOptions {
    /// The format; `None` detects it from the file name, else from the first byte that
    /// is not white space (`[` an array, anything else documents one after another).
    /// [`ImportFormat::Json`] given for a file whose first byte is `[` reads it as an
    /// array, as `--jsonArray` would.
    pub format: Option<ImportFormat>,
    /// The file's name, for detection by extension (`.json`, `.jsonl`, `.ndjson`,
    /// `.csv`, each maybe followed by `.gz`).
    pub file_name: Option<String>,
    /// Whether the CSV header spells each column's type (`--columnsHaveTypes`).
    pub columns_have_types: bool,
    /// Whether empty CSV fields are left out (`--ignoreBlanks`); else they are empty
    /// strings.
    pub ignore_blanks: bool,
    /// What a typed CSV field that does not parse does (`--parseGrace`).
    pub parse_grace: ParseGrace,
    /// Types chosen for CSV columns by name, each as a typed header spells it after the
    /// dot (`int64()`, `date_ms(yyyy-MM-dd)`, `auto()`): the header is read as if it
    /// spelled them (`--columnsHaveTypes`). A name the header does not have is refused.
    pub column_types: Vec<(String, String)>,
}

/// A document read, with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedDocument {
    /// Its first line in the file (1-based).
    pub line: u64,
    /// The document.
    pub document: Document,
    /// Its depth, BSON size and number of values.
    pub measure: Measure,
}

/// A record that did not become a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Its line in the file (1-based).
    pub line: u64,
    /// The column, when the reason has one (in characters from 1 for JSON, Go's from 0
    /// for CSV, as each tool counts).
    pub column: Option<u64>,
    /// Why, in the tools' words where they have them.
    pub reason: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.column {
            Some(c) => write!(f, "line {}, column {c}: {}", self.line, self.reason),
            None => write!(f, "line {}: {}", self.line, self.reason),
        }
    }
}

/// One record of the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// A document to import.
    Document(ImportedDocument),
    /// A record that cannot be imported.
    Failure(Failure),
}

/// Why a file cannot be imported at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImportError {
    /// The gzip stream is corrupt or ends too soon.
    #[error("cannot read the gzip file: {0}")]
    Gzip(String),
    /// The file holds NUL bytes: it is binary (or UTF-16), not JSON or CSV text.
    #[error("the file is not text: it holds NUL bytes (a binary file, or text that is not UTF-8)")]
    Binary,
    /// The CSV file is empty: it has no header line.
    #[error("the CSV file has no header line")]
    NoHeader,
    /// The CSV header is refused, with mongoimport's message.
    #[error("{0}")]
    Header(String),
}

/// The first bytes checked for NUL bytes.
const SNIFF_BYTES: usize = 8192;

/// How much compressed input goes to the gzip decoder at a time, so that what one slice
/// inflates to stays bounded (deflate expands at most about 1,000 times).
const GZIP_STEP: usize = 4096;

/// Where the bytes go once decompressed.
enum Stage {
    /// Neither the compression nor the format is known yet: the first bytes wait here.
    Start(Vec<u8>),
    /// Reading JSON records.
    Json(JsonScanner),
    /// Reading CSV records, with the columns once the header has been read.
    Csv(CsvReader, Option<Vec<ColumnSpec>>),
}

/// A file being read, slice by slice.
pub struct ImportReader {
    options: ImportOptions,
    gzip: Option<Box<flate2::write::MultiGzDecoder<Vec<u8>>>>,
    /// Whether the compression has been decided (from the extension or the first two
    /// bytes), and the bytes kept until it is.
    compression_known: bool,
    head: Vec<u8>,
    stage: Stage,
    format: Option<ImportFormat>,
    /// Decompressed bytes seen, for the BOM and the NUL check.
    seen: u64,
    finished: bool,
    failed: bool,
    /// The CSV data records read so far (mongoimport's document numbers).
    csv_records: u64,
}

impl std::fmt::Debug for ImportReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportReader")
            .field("format", &self.format)
            .field("seen", &self.seen)
            .finish_non_exhaustive()
    }
}

impl ImportReader {
    /// A reader for one file.
    pub fn new(options: ImportOptions) -> Self {
        let name = options
            .file_name
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();
        let gz = name.ends_with(".gz");
        let inner = name.strip_suffix(".gz").unwrap_or(&name);
        let by_extension = if inner.ends_with(".csv") {
            Some(ImportFormat::Csv)
        } else if [".json", ".jsonl", ".ndjson"]
            .iter()
            .any(|e| inner.ends_with(e))
        {
            Some(ImportFormat::Json)
        } else {
            None
        };
        ImportReader {
            format: options.format.or(by_extension),
            gzip: gz.then(|| Box::new(flate2::write::MultiGzDecoder::new(Vec::new()))),
            compression_known: gz,
            options,
            head: Vec::new(),
            stage: Stage::Start(Vec::new()),
            seen: 0,
            finished: false,
            failed: false,
            csv_records: 0,
        }
    }

    /// The format read, once known.
    pub fn format(&self) -> Option<ImportFormat> {
        match &self.stage {
            Stage::Start(_) => self.format,
            Stage::Json(_) if self.format == Some(ImportFormat::JsonArray) => self.format,
            Stage::Json(_) => Some(ImportFormat::Json),
            Stage::Csv(..) => Some(ImportFormat::Csv),
        }
    }

    /// The CSV columns, each with its type's name as a typed header spells it (`auto`
    /// for an untyped one), once the header has been read.
    pub fn columns(&self) -> Option<Vec<(String, String)>> {
        match &self.stage {
            Stage::Csv(_, Some(columns)) => Some(
                columns
                    .iter()
                    .map(|c| (c.name.clone(), c.type_name.clone()))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Adds the next slice of the file.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ImportError> {
        if self.failed || self.finished {
            return Ok(());
        }
        if !self.compression_known {
            self.head.extend_from_slice(bytes);
            if self.head.len() < 2 {
                return Ok(());
            }
            self.compression_known = true;
            if self.head.starts_with(&[0x1f, 0x8b]) {
                self.gzip = Some(Box::new(flate2::write::MultiGzDecoder::new(Vec::new())));
            }
            let head = std::mem::take(&mut self.head);
            return self.take_compressed(&head);
        }
        self.take_compressed(bytes)
    }

    /// Says the file has ended.
    pub fn finish(&mut self) -> Result<(), ImportError> {
        if self.failed || self.finished {
            return Ok(());
        }
        if !self.compression_known {
            self.compression_known = true;
            let head = std::mem::take(&mut self.head);
            self.take_compressed(&head)?;
        }
        if let Some(gz) = &mut self.gzip {
            let finished = gz.try_finish();
            let out = std::mem::take(gz.get_mut());
            self.take_text(&out)?;
            if let Err(e) = finished {
                // A stream that ends too soon is the usual case (a truncated download):
                // what was inflated before still reads, its last record cut short.
                self.end_input()?;
                return Err(ImportError::Gzip(format!(
                    "the gzip stream is truncated or corrupt ({e})"
                )));
            }
        }
        self.end_input()
    }

    /// No more text will come: a file too short to show its format starts reading all
    /// the same, and the readers hand out what they hold.
    fn end_input(&mut self) -> Result<(), ImportError> {
        self.finished = true;
        if let Stage::Start(bytes) = &mut self.stage {
            let bytes = std::mem::take(bytes);
            self.start_format(&bytes)?;
        }
        Ok(())
    }

    /// Decompresses (when gzipped) and passes on.
    fn take_compressed(&mut self, bytes: &[u8]) -> Result<(), ImportError> {
        let Some(mut gz) = self.gzip.take() else {
            return self.take_text(bytes);
        };
        let mut result = Ok(());
        for piece in bytes.chunks(GZIP_STEP) {
            let written = gz.write_all(piece).and_then(|()| gz.flush());
            let out = std::mem::take(gz.get_mut());
            if let Err(e) = written {
                result = self
                    .take_text(&out)
                    .and_then(|()| self.end_input())
                    .and(Err(ImportError::Gzip(e.to_string())));
                break;
            }
            if let Err(e) = self.take_text(&out) {
                result = Err(e);
                break;
            }
        }
        self.gzip = Some(gz);
        result
    }

    /// Text (maybe not UTF-8) on its way to the format's reader.
    fn take_text(&mut self, bytes: &[u8]) -> Result<(), ImportError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let checked = usize::try_from(self.seen).unwrap_or(usize::MAX);
        if checked < SNIFF_BYTES {
            let window = &bytes[..bytes.len().min(SNIFF_BYTES - checked)];
            if window.contains(&0) {
                self.failed = true;
                return Err(ImportError::Binary);
            }
        }
        self.seen += bytes.len() as u64;
        match &mut self.stage {
            Stage::Start(held) => {
                held.extend_from_slice(bytes);
                let body = held.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(held);
                // The first bytes wait until they have been checked for NUL bytes (so
                // a binary file yields no record before it is refused) and show the
                // format.
                let decided = self.format.is_some_and(|f| f == ImportFormat::Csv)
                    || body.iter().any(|b| !b.is_ascii_whitespace());
                if decided && held.len() >= SNIFF_BYTES {
                    let held = std::mem::take(held);
                    self.start_format(&held)?;
                }
                Ok(())
            }
            Stage::Json(scanner) => {
                scanner.push(bytes);
                Ok(())
            }
            Stage::Csv(reader, _) => {
                reader.push(bytes);
                Ok(())
            }
        }
    }

    /// Chooses the format's reader from the first bytes (after a UTF-8 byte order mark,
    /// which both of mongoimport's readers drop) and gives them to it.
    fn start_format(&mut self, held: &[u8]) -> Result<(), ImportError> {
        let body = held.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(held);
        let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
        let format = match self.format {
            Some(ImportFormat::Csv) => ImportFormat::Csv,
            Some(ImportFormat::JsonArray) => ImportFormat::JsonArray,
            _ if first == Some(b'[') => ImportFormat::JsonArray,
            _ => ImportFormat::Json,
        };
        self.format = Some(format);
        self.stage = match format {
            ImportFormat::Csv => {
                let mut reader = CsvReader::default();
                reader.push(body);
                Stage::Csv(reader, None)
            }
            ImportFormat::JsonArray | ImportFormat::Json => {
                let shape = if format == ImportFormat::JsonArray {
                    Shape::Array
                } else {
                    Shape::Lines
                };
                let mut scanner = JsonScanner::new(shape);
                scanner.push(body);
                Stage::Json(scanner)
            }
        };
        Ok(())
    }

    /// The next record whose end has arrived, if any: call it until it answers
    /// `Ok(None)` after each [`ImportReader::push`], and after [`ImportReader::finish`]
    /// for the last ones.
    pub fn next_record(&mut self) -> Result<Option<Record>, ImportError> {
        if self.failed {
            return Ok(None);
        }
        let eof = self.finished;
        match &mut self.stage {
            Stage::Start(_) => Ok(None),
            Stage::Json(scanner) => Ok(scanner.next_record(eof).map(json_record)),
            Stage::Csv(reader, columns) => loop {
                let Some(record) = reader.next_record(eof) else {
                    if eof && columns.is_none() {
                        self.failed = true;
                        return Err(ImportError::NoHeader);
                    }
                    return Ok(None);
                };
                let (line, fields) = match record {
                    CsvRecord::Error {
                        line,
                        column,
                        message,
                    } => {
                        if columns.is_none() {
                            self.failed = true;
                            return Err(ImportError::Header(format!(
                                "line {line}, column {}: {message}",
                                column.unwrap_or(0)
                            )));
                        }
                        self.csv_records += 1;
                        return Ok(Some(Record::Failure(Failure {
                            line,
                            column,
                            reason: message,
                        })));
                    }
                    CsvRecord::Fields { line, fields } => (line, fields),
                };
                let Some(cols) = columns else {
                    match header_columns(&fields, &self.options) {
                        Ok(cols) => *columns = Some(cols),
                        Err(e) => {
                            self.failed = true;
                            return Err(ImportError::Header(e));
                        }
                    }
                    continue;
                };
                let index = self.csv_records;
                self.csv_records += 1;
                let record =
                    match tokens_to_document(cols, &fields, index, self.options.ignore_blanks) {
                        Ok(doc) => checked(line, doc),
                        Err(refused) => Record::Failure(Failure {
                            line,
                            column: None,
                            reason: refused.0,
                        }),
                    };
                return Ok(Some(record));
            },
        }
    }
}

/// The columns a CSV header names, checked as mongoimport checks them, and no deeper
/// than an import may nest.
fn header_columns(fields: &[String], options: &ImportOptions) -> Result<Vec<ColumnSpec>, String> {
    let mut columns: Vec<ColumnSpec> = if options.columns_have_types {
        fields
            .iter()
            .map(|h| typed_column(h, options.parse_grace))
            .collect::<Result<_, _>>()?
    } else {
        fields.iter().map(|h| auto_column(h)).collect()
    };
    for (name, type_spec) in &options.column_types {
        let Some(column) = columns.iter_mut().find(|c| &c.name == name) else {
            return Err(format!(
                "a type was chosen for column {}, which the header does not name",
                super::import_fields::go_quote(name)
            ));
        };
        *column = if type_spec.trim() == "auto()" || type_spec.trim() == "auto" {
            auto_column(name)
        } else {
            typed_column(&format!("{name}.{type_spec}"), options.parse_grace)?
        };
    }
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    validate_fields(&names)?;
    if let Some(deep) = names
        .iter()
        .find(|n| n.split('.').count() as u64 > u64::from(MAX_DEPTH))
    {
        return Err(format!(
            "field {} nests {} levels: an import takes documents of at most {MAX_DEPTH} levels",
            super::import_fields::go_quote(deep),
            deep.split('.').count()
        ));
    }
    Ok(columns)
}

/// A JSON record read by the shell's Extended JSON reader and checked.
fn json_record(record: JsonRecord) -> Record {
    let (line, column, bytes) = match record {
        JsonRecord::Error { line, message } => {
            return Record::Failure(Failure {
                line,
                column: None,
                reason: message,
            })
        }
        JsonRecord::Text {
            line,
            column,
            bytes,
        } => (line, column, bytes),
    };
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            // Where the bad byte is, as a line and column of the file.
            let before = &bytes[..e.valid_up_to()];
            let newlines = before.iter().filter(|b| **b == b'\n').count() as u64;
            let col = match before.iter().rposition(|b| *b == b'\n') {
                Some(nl) => before.len() - nl,
                None => before.len() + usize::try_from(column).unwrap_or(1),
            };
            return Record::Failure(Failure {
                line: line + newlines,
                column: Some(col as u64),
                reason: "invalid UTF-8 in the document's text".to_string(),
            });
        }
    };
    match crate::shell::ejson::parse_ejson(text) {
        Ok(Bson::Document(doc)) => checked(line, doc),
        Ok(other) => Record::Failure(Failure {
            line,
            column: Some(column),
            reason: format!(
                "a document must be a JSON object, not {}",
                describe_value(&other)
            ),
        }),
        Err(e) => {
            // The reader's position ("L:C: ...") is within the record; the file's is
            // the record's plus it.
            let message = e.to_string();
            let (position, reason) = split_position(&message);
            let (l, c) = position.unwrap_or((1, 1));
            let abs_line = line + l - 1;
            let abs_col = if l == 1 { column + c - 1 } else { c };
            Record::Failure(Failure {
                line: abs_line,
                column: Some(abs_col),
                reason: reason.to_string(),
            })
        }
    }
}

/// A value's kind in a sentence.
fn describe_value(v: &Bson) -> &'static str {
    match v {
        Bson::Array(_) => "an array",
        Bson::String(_) => "a string",
        Bson::Null => "null",
        Bson::Boolean(_) => "a boolean",
        _ => "a number or other value",
    }
}

/// `"3:14: rest"` as `(Some((3, 14)), "rest")`.
fn split_position(message: &str) -> (Option<(u64, u64)>, &str) {
    let mut parts = message.splitn(3, ':');
    let (Some(l), Some(c), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return (None, message);
    };
    match (l.trim().parse::<u64>(), c.trim().parse::<u64>()) {
        (Ok(l), Ok(c)) if l > 0 && c > 0 => (Some((l, c)), rest.trim_start()),
        _ => (None, message),
    }
}

/// A document checked against the core's limits on a value and against what an import
/// step can replay.
fn checked(line: u64, document: Document) -> Record {
    let value = Bson::Document(document);
    let fail = |reason: String| {
        Record::Failure(Failure {
            line,
            column: None,
            reason,
        })
    };
    let measure = match measure(&value, MAX_BSON_BYTES) {
        Ok(m) => m,
        Err(e) => return fail(e.to_string()),
    };
    if measure.depth > MAX_DEPTH {
        return fail(format!(
            "the document nests {} levels: an import takes documents of at most {MAX_DEPTH} levels (ShardLab's shell reads at most 64)",
            measure.depth
        ));
    }
    let Bson::Document(document) = value else {
        return fail("not a document".to_string());
    };
    Record::Document(ImportedDocument {
        line,
        document,
        measure,
    })
}

/// Reads a whole file that is already in memory, `slice` bytes at a time: every record,
/// or the error that stopped the file (with the records read before it).
pub fn read_all(
    bytes: &[u8],
    slice: usize,
    options: ImportOptions,
) -> (Vec<Record>, Option<ImportError>) {
    let mut reader = ImportReader::new(options);
    let mut records = Vec::new();
    let drain = |reader: &mut ImportReader, records: &mut Vec<Record>| loop {
        match reader.next_record() {
            Ok(Some(r)) => records.push(r),
            Ok(None) => return None,
            Err(e) => return Some(e),
        }
    };
    for piece in bytes.chunks(slice.max(1)) {
        if let Err(e) = reader.push(piece) {
            let _ = drain(&mut reader, &mut records);
            return (records, Some(e));
        }
        if let Some(e) = drain(&mut reader, &mut records) {
            return (records, Some(e));
        }
    }
    if let Err(e) = reader.finish() {
        let _ = drain(&mut reader, &mut records);
        return (records, Some(e));
    }
    let error = drain(&mut reader, &mut records);
    (records, error)
}
