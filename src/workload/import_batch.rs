//! An import's documents as the shell commands that insert them, the way mongoimport
//! sends them: `insertMany` batches of at most 1,000 documents (its `--batchSize`),
//! unordered (`--maintainInsertionOrder` off), so that a duplicate `_id` fails that
//! document alone and the rest go in (mongoimport continues through duplicate key
//! errors unless `--stopOnError`). Each document is written in canonical Extended JSON,
//! which ShardLab's shell reads back exactly (types, key order), so the commands are a
//! timeline step that replays: an import is one step whose text is these commands.
//!
//! Documents go in file order, or sorted by a field ([`Sorter`]) in MongoDB's order:
//! [`crate::query::sort_value`] and [`compare_values`], documents without the field
//! first, as missing and null sort.

use super::import::{Failure, ImportedDocument};
use super::presets::collection_expr;
use crate::shell::ejson::document_to_canonical_ejson;
use crate::shell::{MAX_SCRIPT_BYTES, MAX_TOKENS};
use crate::values::limits::{MAX_BSON_BYTES, MAX_VALUES};
use crate::values::order::compare_values;
use bson::Bson;

/// The most documents one `insertMany` of an import holds: mongoimport's batch size.
pub const BATCH_DOCUMENTS: usize = 1000;

/// The most documents a sorted import holds while it sorts, and the most bytes of their
/// text: what a cluster takes in over its life (`engine::cluster::MAX_WRITTEN_DOCS`,
/// `MAX_WRITTEN_BYTES`), so a sort never holds more than could be inserted.
pub const MAX_SORTED_DOCUMENTS: usize = crate::engine::cluster::MAX_WRITTEN_DOCS as usize;

/// See [`MAX_SORTED_DOCUMENTS`].
pub const MAX_SORTED_BYTES: usize = crate::engine::cluster::MAX_WRITTEN_BYTES as usize;

/// One document ready to go into a batch: its line and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Its first line in the file.
    pub line: u64,
    /// Canonical Extended JSON.
    pub text: String,
    values: u64,
    bytes: u64,
    tokens: u64,
}

/// One `insertMany` statement and the file's line of each document in it, by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsertBatch {
    /// The shell statement.
    pub statement: String,
    /// Each document's line, in the statement's order.
    pub lines: Vec<u64>,
    /// At most how many tokens the shell's lexer makes of the statement.
    pub tokens: u64,
}

/// How many tokens the shell's lexer makes of canonical Extended JSON at most: every
/// punctuation mark, every string and every other literal (which punctuation ends).
fn token_bound(text: &str) -> u64 {
    let (mut punct, mut quotes, mut in_string, mut escaped) = (0u64, 0u64, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
            quotes += 1;
        } else if matches!(b, b'{' | b'}' | b'[' | b']' | b':' | b',') {
            punct += 1;
        }
    }
    2 * punct + quotes + 1
}

/// What one batch's statement adds around the documents, in bytes and tokens.
fn frame_of(ns: &str) -> (String, String) {
    (
        format!("{}.insertMany([", collection_expr(ns)),
        "], {ordered: false})".to_string(),
    )
}

/// A document's text, or why it cannot go into any statement: its Extended JSON is
/// longer than the shell reads in one statement, or holds more tokens.
pub fn prepare(ns: &str, doc: &ImportedDocument) -> Result<Prepared, Failure> {
    let text = document_to_canonical_ejson(&doc.document);
    let tokens = token_bound(&text);
    let (head, tail) = frame_of(ns);
    let frame_tokens = token_bound(&head) + token_bound(&tail);
    if text.len() + head.len() + tail.len() > MAX_SCRIPT_BYTES
        || tokens + frame_tokens > MAX_TOKENS as u64
    {
        return Err(Failure {
            line: doc.line,
            column: None,
            reason: format!(
                "the document's Extended JSON ({} bytes) is longer than one shell statement may be ({MAX_SCRIPT_BYTES} bytes, {MAX_TOKENS} tokens)",
                text.len()
            ),
        });
    }
    Ok(Prepared {
        line: doc.line,
        text,
        values: doc.measure.values,
        bytes: doc.measure.bytes,
        tokens,
    })
}

/// Gathers prepared documents into `insertMany` statements: at most
/// [`BATCH_DOCUMENTS`], and within what one statement and one shell value may hold
/// (16 MiB and 2,000,000 tokens of text, 16 MiB of BSON, 100,000 values).
#[derive(Debug)]
pub struct Batcher {
    head: String,
    tail: String,
    frame_tokens: u64,
    docs: String,
    lines: Vec<u64>,
    values: u64,
    bytes: u64,
    tokens: u64,
}

impl Batcher {
    /// A batcher for the collection `ns` (`db.coll`).
    pub fn new(ns: &str) -> Self {
        let (head, tail) = frame_of(ns);
        let frame_tokens = token_bound(&head) + token_bound(&tail);
        Batcher {
            head,
            tail,
            frame_tokens,
            docs: String::new(),
            lines: Vec::new(),
            values: 0,
            bytes: 0,
            tokens: 0,
        }
    }

    /// Adds a document; answers the batch it completed, if it did not fit in it.
    pub fn add(&mut self, doc: Prepared) -> Option<InsertBatch> {
        let fits = self.lines.len() < BATCH_DOCUMENTS
            && self.head.len() + self.docs.len() + 1 + doc.text.len() + self.tail.len()
                <= MAX_SCRIPT_BYTES
            && self.frame_tokens + self.tokens + 1 + doc.tokens <= MAX_TOKENS as u64
            // The array counts as a value of its own, and each element adds its index.
            && self.values + doc.values < MAX_VALUES
            && self.bytes + doc.bytes + 8 * (self.lines.len() as u64 + 1) + 5 <= MAX_BSON_BYTES;
        let done = if fits || self.lines.is_empty() {
            None
        } else {
            self.finish()
        };
        if !self.lines.is_empty() {
            self.docs.push(',');
        }
        self.docs.push_str(&doc.text);
        self.lines.push(doc.line);
        self.values += doc.values;
        self.bytes += doc.bytes;
        self.tokens += doc.tokens + 1;
        done
    }

    /// The batch in progress, if it holds any document.
    pub fn finish(&mut self) -> Option<InsertBatch> {
        if self.lines.is_empty() {
            return None;
        }
        let mut statement =
            String::with_capacity(self.head.len() + self.docs.len() + self.tail.len());
        statement.push_str(&self.head);
        statement.push_str(&self.docs);
        statement.push_str(&self.tail);
        self.docs.clear();
        self.values = 0;
        self.bytes = 0;
        let tokens = self.frame_tokens + std::mem::take(&mut self.tokens);
        Some(InsertBatch {
            statement,
            lines: std::mem::take(&mut self.lines),
            tokens,
        })
    }
}

/// Holds an import's documents until the file ends, to hand them out sorted by one
/// field: ascending in MongoDB's order, ties (and documents without the field, which
/// come first) in file order. What it holds is each document's text ([`Prepared`]) for an
/// import, or whatever a caller keeps of it (`sim::rank` keeps the document).
#[derive(Debug)]
pub struct Sorter<T = Prepared> {
    path: String,
    held: Vec<(Bson, T)>,
    bytes: usize,
}

impl<T> Sorter<T> {
    /// A sorter by the dotted field `path`.
    pub fn new(path: &str) -> Self {
        Sorter {
            path: path.to_string(),
            held: Vec::new(),
            bytes: 0,
        }
    }

    /// The value `document` is sorted by: its field's, as a sort reads it.
    pub fn key_of(&self, document: &bson::Document) -> Bson {
        crate::query::sort_value(document, &self.path)
    }

    /// Holds `item` under its sort `key` ([`Sorter::key_of`]; the item was found on
    /// `line` and is `bytes` long), or refuses it once the sort holds as much as a
    /// cluster could take in.
    pub fn hold(&mut self, key: Bson, line: u64, bytes: usize, item: T) -> Result<(), Failure> {
        if self.held.len() >= MAX_SORTED_DOCUMENTS || self.bytes + bytes > MAX_SORTED_BYTES {
            return Err(Failure {
                line,
                column: None,
                reason: format!(
                    "a sorted import holds at most {MAX_SORTED_DOCUMENTS} documents or {MAX_SORTED_BYTES} bytes of them, what a cluster takes in"
                ),
            });
        }
        self.bytes += bytes;
        self.held.push((key, item));
        Ok(())
    }

    /// The items in order.
    pub fn finish(self) -> impl Iterator<Item = T> {
        let mut held = self.held;
        // A stable sort keeps file order among equal keys.
        held.sort_by(|a, b| compare_values(&a.0, &b.0));
        held.into_iter().map(|(_, p)| p)
    }
}

impl Sorter<Prepared> {
    /// Holds a document's text, or refuses it once the sort holds as much as a cluster
    /// could take in.
    pub fn add(&mut self, doc: &ImportedDocument, prepared: Prepared) -> Result<(), Failure> {
        let (line, bytes) = (prepared.line, prepared.text.len());
        self.hold(self.key_of(&doc.document), line, bytes, prepared)
    }
}

/// The most bytes of `insertMany` statements one import's step holds (32 MiB): what a
/// saved scenario can keep with room for the rest of the session
/// (`sim::MAX_JSON_BYTES`, 48 MiB, holds it with its quotes escaped). Each statement is
/// within the lexer's limits on one script ([`Batcher`]); the step, past them, runs
/// statement by statement (`Session::run_each`).
pub const MAX_IMPORT_STEP_BYTES: u64 = 32 << 20;

/// The one timeline step an import is: its batches' statements, one a line, at most
/// [`MAX_IMPORT_STEP_BYTES`] ([`step_fits`]).
pub fn import_step(batches: &[InsertBatch]) -> Result<String, String> {
    let len: usize = batches.iter().map(|b| b.statement.len() + 1).sum();
    if !step_fits(len as u64) {
        return Err(format!(
            "the import's commands take {len} bytes: one step holds at most {MAX_IMPORT_STEP_BYTES} bytes"
        ));
    }
    let mut step = String::with_capacity(len);
    for b in batches {
        if !step.is_empty() {
            step.push('\n');
        }
        step.push_str(&b.statement);
    }
    Ok(step)
}

/// Whether statements of `bytes` bytes, with a line break after each, fit in one import
/// step ([`MAX_IMPORT_STEP_BYTES`]).
pub fn step_fits(bytes: u64) -> bool {
    bytes <= MAX_IMPORT_STEP_BYTES
}

/// Documents as the `insertMany` statements that insert them elsewhere, in mongoimport's
/// batches ([`Batcher`]): a collection's documents replayed into another cluster (the
/// Compare tab replays the user's imported documents so). Documents a cluster already
/// holds fit in a statement; one that does not (past the shell's limits on one statement)
/// is left out, and the answer counts it.
pub fn insert_statements(
    ns: &str,
    docs: impl IntoIterator<Item = bson::Document>,
) -> (Vec<String>, u64) {
    let mut batcher = Batcher::new(ns);
    let (mut out, mut left_out) = (Vec::new(), 0);
    for (i, document) in docs.into_iter().enumerate() {
        let value = Bson::Document(document);
        let Ok(measure) = crate::values::limits::measure(&value, MAX_BSON_BYTES) else {
            left_out += 1;
            continue;
        };
        let Bson::Document(document) = value else {
            continue;
        };
        let doc = ImportedDocument {
            line: i as u64 + 1,
            document,
            measure,
        };
        match prepare(ns, &doc) {
            Ok(p) => out.extend(batcher.add(p).map(|b| b.statement)),
            Err(_) => left_out += 1,
        }
    }
    out.extend(batcher.finish().map(|b| b.statement));
    (out, left_out)
}

/// What an [`Importer`] hands out: a batch to insert, or a record that will not go in.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportItem {
    /// An `insertMany` statement to run.
    Batch(InsertBatch),
    /// A record that cannot be imported.
    Failure(Failure),
}

/// A file's way from bytes to `insertMany` statements: the reader, then each document's
/// text, then batches, in file order or (with a sort field) all at the end, sorted.
#[derive(Debug)]
pub struct Importer {
    ns: String,
    reader: super::import::ImportReader,
    batcher: Batcher,
    sorter: Option<Sorter>,
    out: std::collections::VecDeque<ImportItem>,
    done: bool,
}

impl Importer {
    /// An import into `ns` (`db.coll`), sorted by the dotted field `sort_by` if given.
    pub fn new(ns: &str, options: super::import::ImportOptions, sort_by: Option<&str>) -> Self {
        Importer {
            ns: ns.to_string(),
            reader: super::import::ImportReader::new(options),
            batcher: Batcher::new(ns),
            sorter: sort_by.map(Sorter::new),
            out: Default::default(),
            done: false,
        }
    }

    /// The format being read, once known.
    pub fn format(&self) -> Option<super::import::ImportFormat> {
        self.reader.format()
    }

    /// Takes the next slice of the file. An error means the file cannot be read on; what
    /// was read before it is still handed out.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), super::import::ImportError> {
        let pushed = self.reader.push(bytes);
        let drained = self.drain();
        pushed.and(drained)
    }

    /// Says the file has ended: the last batch (or, sorted, every batch) follows.
    pub fn finish(&mut self) -> Result<(), super::import::ImportError> {
        let finished = self.reader.finish();
        let drained = self.drain();
        if !self.done {
            self.done = true;
            if let Some(sorter) = self.sorter.take() {
                for p in sorter.finish() {
                    if let Some(b) = self.batcher.add(p) {
                        self.out.push_back(ImportItem::Batch(b));
                    }
                }
            }
            if let Some(b) = self.batcher.finish() {
                self.out.push_back(ImportItem::Batch(b));
            }
        }
        finished.and(drained)
    }

    /// The next batch or failure ready.
    pub fn next_item(&mut self) -> Option<ImportItem> {
        self.out.pop_front()
    }

    fn drain(&mut self) -> Result<(), super::import::ImportError> {
        loop {
            let record = match self.reader.next_record() {
                Ok(Some(r)) => r,
                Ok(None) => return Ok(()),
                Err(e) => return Err(e),
            };
            let doc = match record {
                super::import::Record::Failure(f) => {
                    self.out.push_back(ImportItem::Failure(f));
                    continue;
                }
                super::import::Record::Document(d) => d,
            };
            let prepared = match prepare(&self.ns, &doc) {
                Ok(p) => p,
                Err(f) => {
                    self.out.push_back(ImportItem::Failure(f));
                    continue;
                }
            };
            match &mut self.sorter {
                Some(sorter) => {
                    if let Err(f) = sorter.add(&doc, prepared) {
                        self.out.push_back(ImportItem::Failure(f));
                    }
                }
                None => {
                    if let Some(b) = self.batcher.add(prepared) {
                        self.out.push_back(ImportItem::Batch(b));
                    }
                }
            }
        }
    }
}
