//! What the two printers of `sh.status()` share once read (`status_printout.rs` reads
//! mongosh's printout, `status_legacy.rs` the legacy shell's): the result, [`StatusPrintout`],
//! the metadata documents a printout's values make, the check of each chunk list against
//! the printed counts, and the reading of a value's text by the shell's parser with its
//! errors placed in the file.

use crate::engine::{ChunkDoc, CollectionDoc, VersionMode};
use crate::shell::{eval_value, parse_expression, EvalContext, Expr};
use crate::workload::cluster_files::{Located, MetadataDocs, MetadataError};
use crate::workload::cluster_import::{assemble_as, ClusterImport};
use bson::{oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Document, Timestamp};

/// What to tell a user whose printout leaves chunks out.
pub(crate) const PRINT_VERBOSE: &str = "print it again with sh.status({verbose: true}) (in mongosh, printjson(sh.status({verbose: true})) also prints more than 100 chunks a collection and every nesting level)";

/// The shell that printed a printout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintoutShell {
    /// mongosh 1.x or 2.x.
    Mongosh,
    /// The legacy `mongo` shell.
    Legacy,
}

/// A printout read: the metadata it shows, and the era taken for it.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusPrintout {
    /// The shards, databases, sharded collections, chunks and zone ranges, each where
    /// the printout shows it.
    pub docs: MetadataDocs,
    /// Which shell printed it.
    pub shell: PrintoutShell,
    /// The version mode the cluster takes.
    pub version: VersionMode,
    /// Why that version mode, in a few words (`shards have replSetConfigVersion (8.0)`).
    pub version_reason: String,
}

impl StatusPrintout {
    /// The session's steps, as [`crate::workload::assemble`] makes them from exports (a
    /// printout has no changelog, so there is one step, `sim.loadCluster`).
    pub fn assemble(&self) -> Result<ClusterImport, MetadataError> {
        assemble_as(&self.docs, Some(self.version))
    }
}

/// A shard as a printout shows it (a `config.shards` document), kept with its line;
/// answers whether it shows `replSetConfigVersion`, which only 8.0 prints.
pub(crate) fn push_shard(
    file: &str,
    line: u64,
    value: Bson,
    docs: &mut MetadataDocs,
) -> Result<bool, MetadataError> {
    let Bson::Document(d) = value else {
        return fail(file, Some(line), "a shard is not a document");
    };
    let shard = crate::engine::ShardDoc::from_document(&d).map_err(|e| MetadataError {
        file: file.to_string(),
        line: Some(line),
        message: e.to_string(),
    })?;
    let eight = shard.repl_set_config_version.is_some();
    docs.shards.push(Located {
        file: file.to_string(),
        line,
        value: shard,
    });
    Ok(eight)
}

pub(crate) fn fail<T>(
    file: &str,
    line: Option<u64>,
    message: impl Into<String>,
) -> Result<T, MetadataError> {
    Err(MetadataError {
        file: file.to_string(),
        line,
        message: message.into(),
    })
}

/// Where the value at the start of `text` ends (after its closing bracket), skipping
/// strings; `None` when a bracket is not closed.
pub(crate) fn value_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' | b'`' => i = string_end(b, i),
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Where the quoted string that starts at `i` ends: its closing quote (or the text's end).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && b[j] != b[i] {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    j
}

/// The first place outside strings where Node's inspect left something out: `... N more
/// items`, `[Object]` or `[Array]`.
pub(crate) fn elision(text: &str) -> Option<(usize, &'static str)> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' | b'`' => i = string_end(b, i),
            b'.' if text[i..].starts_with("... ") => {
                let rest = text[i + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
                if rest.starts_with(" more item") {
                    return Some((
                        i,
                        "'... more items' (Node prints at most 100 entries of a list)",
                    ));
                }
            }
            b'[' if text[i..].starts_with("[Object]") || text[i..].starts_with("[Array]") => {
                return Some((i, "'[Object]' (mongosh prints 6 levels of nesting)"));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A shell error's text without its `line:column: ` prefix, which counts from the
/// parsed piece rather than the file.
fn without_place(message: &str) -> &str {
    match message.split_once(": ") {
        Some((place, rest))
            if !place.is_empty() && place.chars().all(|c| c.is_ascii_digit() || c == ':') =>
        {
            rest
        }
        _ => message,
    }
}

/// A value's text parsed by the shell, with errors placed in the file.
pub(crate) fn parse_at(file: &str, text: &str, first: u64) -> Result<Expr, MetadataError> {
    parse_expression(text).map_err(|e| MetadataError {
        file: file.to_string(),
        line: Some(first + u64::from(e.span().line.max(1)) - 1),
        message: format!("cannot read the value: {}", without_place(&e.to_string())),
    })
}

/// An expression evaluated as the shell evaluates a value.
pub(crate) fn value_of(file: &str, e: &Expr, line: u64) -> Result<Bson, MetadataError> {
    eval_value(e, &mut EvalContext::at(0)).map_err(|err| MetadataError {
        file: file.to_string(),
        line: Some(line),
        message: format!("cannot read the value: {}", without_place(&err.to_string())),
    })
}

/// A collection's document as the printout gives it: the rest is what the import does
/// not use (an epoch, a UUID, a time), left zero.
pub(crate) fn collection_doc(
    ns: &str,
    key: Document,
    unique: bool,
    balancing: bool,
) -> CollectionDoc {
    CollectionDoc {
        id: ns.to_string(),
        epoch: ObjectId::from_bytes([0; 12]),
        lastmod: DateTime::from_millis(0),
        dropped: None,
        timestamp: None,
        uuid: Binary {
            subtype: BinarySubtype::Uuid,
            bytes: vec![0; 16],
        },
        key,
        unique,
        no_balance: Some(!balancing),
        max_chunk_size_bytes: None,
        enable_auto_merge: None,
        defragment_collection: None,
        defragmentation_phase: None,
    }
}

/// A chunk of `ns` as the printout gives it.
pub(crate) fn chunk_doc(
    ns: &str,
    min: Document,
    max: Document,
    shard: String,
    lastmod: Timestamp,
    jumbo: bool,
) -> ChunkDoc {
    ChunkDoc {
        id: Bson::Null,
        ns: Some(ns.to_string()),
        uuid: None,
        min,
        max,
        shard,
        lastmod,
        epoch: None,
        jumbo,
        on_current_shard_since: None,
        history: Vec::new(),
        estimated_data_size_bytes: None,
    }
}

/// Checks that the chunks listed for `ns` are as many, shard by shard, as the printout's
/// counts say (mongosh's `chunkMetadata`, the legacy shell's `chunks:` lines).
pub(crate) fn check_counts(
    file: &str,
    ns: &str,
    line: u64,
    counts: &[(String, i64)],
    chunks: &[Located<ChunkDoc>],
) -> Result<(), MetadataError> {
    for (shard, n) in counts {
        let listed = chunks
            .iter()
            .filter(|c| c.value.ns.as_deref() == Some(ns) && c.value.shard == *shard)
            .count() as i64;
        if listed != *n {
            return fail(file, Some(line), format!("{ns}: the printout counts {n} chunk(s) on {shard} but lists {listed}: the list is cut or edited; {PRINT_VERBOSE}"));
        }
    }
    let total: i64 = counts.iter().map(|(_, n)| n).sum();
    let listed = chunks
        .iter()
        .filter(|c| c.value.ns.as_deref() == Some(ns))
        .count() as i64;
    if listed != total {
        return fail(file, Some(line), format!("{ns}: the printout counts {total} chunk(s) but lists {listed}: the list is cut or edited; {PRINT_VERBOSE}"));
    }
    Ok(())
}
