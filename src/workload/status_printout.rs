//! Reading a real cluster's sharding state from what `sh.status({verbose: true})` printed,
//! as a user copies it from a terminal: the same [`MetadataDocs`] the config exports give
//! (`cluster_files.rs`), so that [`crate::workload::assemble`] builds and checks the
//! cluster in the one way it does for exports.
//!
//! Two printers are read:
//!
//! - **mongosh** (1.x and 2.x, against MongoDB 4.4 to 8.0). `sh.status()` returns a
//!   `StatsResult` that mongosh's `formatStats` prints as sections, each a name on its
//!   own line (`shardingVersion`, `shards`, `active mongoses`, `autosplit`, `automerge`,
//!   `balancer`, `shardedDataDistribution`, `databases`) and its value in Node's
//!   `util.inspect` layout, joined by `---` lines (`packages/cli-repl/src/format-output.ts`).
//!   The values are JavaScript-like (`MinKey()`, `Long('…')`, `Timestamp({ t: 1, i: 0 })`,
//!   unquoted keys, single-quoted strings) and are read by the shell's own parser and
//!   evaluator. `databases` lists `{ database, collections }`, each collection with
//!   `shardKey`, `unique`, `balancing`, `chunkMetadata`, `chunks` (`{ min, max, 'on
//!   shard', 'last modified', jumbo: 'yes' }`) and `tags` (`{ tag, min, max }`), as
//!   `getPrintableShardStatus` in `packages/shell-api/src/helpers.ts` builds them. mongosh
//!   1.0.0 to 1.0.3 printed a timestamp as `Timestamp(<i>, <t>)`, low bits first; later
//!   ones print `Timestamp({ t, i })`.
//! - **the legacy `mongo` shell** (`printShardingStatus` in `src/mongo/shell/utils_sh.js`):
//!   `--- Sharding Status ---`, then `shards:` with a document a line, `databases:` with
//!   each database's document, its collections' names, `shard key:`, `unique:`,
//!   `balancing:`, `chunks:` (a `shard<TAB>count` line a shard), each chunk as `{ min }
//!   -->> { max } on : <shard> Timestamp(<t>, <i>)` with `jumbo` after a jumbo chunk, and
//!   each zone range as `tag: <zone>  { min } -->> { max }`.
//!
//! A printout that does not hold every chunk is refused: mongosh and the legacy shell
//! print `too many chunks to print, use verbose if you want to force print` for a
//! collection of 20 chunks or more unless told `{verbose: true}`, and Node's inspect
//! prints at most 100 entries of an array (`... 5 more items`) and 6 levels of nesting
//! (`[Object]`), which `printjson(sh.status({verbose: true}))` lifts. Each chunk list is
//! also checked against the collection's `chunkMetadata` counts.
//!
//! The era: a printout does not say which release printed it, so the version mode is read
//! from what it shows: `replSetConfigVersion` on the shards (8.0), an `automerge` section
//! or a `shardedDataDistribution` with values (servers from 6.0.3, printed by mongosh from
//! 2.3.3: the modern balancer, 7.0's mode), else 5.0's mode, the default the config
//! exports' reading takes too. mongosh before 2.1.4 lists 8.0's unsplittable collections
//! as sharded ones, and they are read as such.

use crate::engine::{DatabaseDoc, TagDoc, VersionMode};
use crate::shell::{Expr, ExprKind};
use crate::workload::cluster_files::{Located, MetadataCollection, MetadataDocs, MetadataError};
use crate::workload::status_legacy::read_legacy;
use crate::workload::status_values::{
    check_counts, chunk_doc, collection_doc, elision, fail, parse_at, push_shard, value_end,
    value_of, PRINT_VERBOSE,
};
pub use crate::workload::status_values::{PrintoutShell, StatusPrintout};
use bson::{Bson, Document, Timestamp};

/// The largest printout read, as large as `importCluster`'s files together. (The image
/// that loads holds at most about 14,000 chunks, the 100,000 values a shell value may
/// hold, for a printout as for config exports: about 3 MB of printout.)
pub const MAX_PRINTOUT_BYTES: usize = 64 * 1024 * 1024;

/// What mongosh and the legacy shell print instead of the chunks when not verbose.
const TOO_MANY_CHUNKS: &str = "too many chunks to print";
/// What mongosh (since 2.2.13) prints instead of the zone ranges after 20.
const TOO_MANY_TAGS: &str = "too many tags to print";

/// Whether `bytes` hold a `sh.status()` printout (of mongosh or of the legacy shell),
/// judged by its text: a line `shardingVersion` or `--- Sharding Status ---` among its
/// first lines (a prompt and the command may come first).
pub fn is_status_printout(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    text.lines().take(20).any(|l| {
        let l = strip_ansi(l);
        let l = l.trim();
        l == "shardingVersion" || l.starts_with("--- Sharding Status ---")
    })
}

/// Reads a printout, `file` naming it in errors.
pub fn read_status_printout(file: &str, bytes: &[u8]) -> Result<StatusPrintout, MetadataError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return fail(
            file,
            None,
            "the file is empty: paste the whole output of sh.status({verbose: true}) into it",
        );
    }
    if bytes.len() > MAX_PRINTOUT_BYTES {
        return fail(file, None, format!("the printout is {} bytes, more than the {MAX_PRINTOUT_BYTES} ShardLab reads: import the cluster from its config exports instead", bytes.len()));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) if !t.contains('\0') => t,
        _ => return fail(file, None, "the file is not text: a sh.status() printout is the text mongosh or the mongo shell printed"),
    };
    let text = strip_ansi(text.strip_prefix('\u{feff}').unwrap_or(text)).replace("\r\n", "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.iter().any(|l| l.trim() == "shardingVersion") {
        read_mongosh(file, &lines)
    } else if lines
        .iter()
        .any(|l| l.trim().starts_with("--- Sharding Status ---"))
    {
        read_legacy(file, &lines)
    } else {
        fail(file, None, "not a sh.status() printout: it has no 'shardingVersion' line (mongosh) or '--- Sharding Status ---' line (the mongo shell)")
    }
}

/// Removes terminal colour codes (`ESC [ ... m`), which a copy from a terminal may keep.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The sections mongosh's `sh.status()` prints, by name.
const SECTIONS: &[&str] = &[
    "shardingVersion",
    "shards",
    "active mongoses",
    "most recently active mongoses",
    "autosplit",
    "automerge",
    "balancer",
    "shardedDataDistribution",
    "databases",
];

/// One section of a mongosh printout: its name, the line its value starts on (1-based)
/// and the value's text.
struct Section {
    name: String,
    line: u64,
    text: String,
}

fn sections(lines: &[&str]) -> Vec<Section> {
    // A name at the start of a line, after a `---` line (or the first one, which a
    // prompt and the command may precede); values are indented or start with a bracket.
    let mut starts: Vec<usize> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let after_rule = i > 0 && lines[i - 1].trim() == "---";
        if SECTIONS.contains(&l.trim_end()) && (starts.is_empty() || after_rule) {
            starts.push(i);
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).map_or(lines.len(), |n| n - 1);
            Section {
                name: lines[s].trim_end().to_string(),
                line: s as u64 + 2,
                text: lines[s + 1..end.max(s + 1)].join("\n"),
            }
        })
        .collect()
}

/// The 1-based line of byte `at` of `text`, whose first line is `first`.
fn line_of(text: &str, first: u64, at: usize) -> u64 {
    first
        + text.as_bytes()[..at.min(text.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count() as u64
}

/// The line of an expression parsed from a piece starting on line `first`.
fn expr_line(e: &Expr, first: u64) -> u64 {
    first + u64::from(e.span.line.max(1)) - 1
}

fn field<'a>(fields: &'a [(String, Expr)], name: &str) -> Option<&'a Expr> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn mongosh_section_value(file: &str, section: &Section) -> Result<Option<Expr>, MetadataError> {
    let trimmed = section.text.trim_start();
    let lead = section.text.len() - trimmed.len();
    let first = line_of(&section.text, section.line, lead);
    let end = if trimmed.starts_with(['[', '{']) {
        value_end(trimmed)
    } else {
        Some(trimmed.find('\n').unwrap_or(trimmed.len()))
    };
    let Some(end) = end else {
        // Brackets that do not close: the parser says where the text goes wrong.
        parse_at(file, trimmed, first)?;
        return fail(
            file,
            Some(first),
            format!(
                "the section '{}' ends before its value does: paste the whole printout",
                section.name
            ),
        );
    };
    let value = &trimmed[..end];
    if let Some((at, what)) = elision(value) {
        return fail(
            file,
            Some(line_of(value, first, at)),
            format!("the printout leaves values out here, {what}: {PRINT_VERBOSE}"),
        );
    }
    if value.trim().is_empty() || value.trim() == "undefined" {
        return Ok(None);
    }
    parse_at(file, value, first).map(Some)
}

fn read_mongosh(file: &str, lines: &[&str]) -> Result<StatusPrintout, MetadataError> {
    let sections = sections(lines);
    let get = |name: &str| sections.iter().find(|s| s.name == name);
    let (Some(shards), Some(databases)) = (get("shards"), get("databases")) else {
        let missing = if get("shards").is_none() {
            "shards"
        } else {
            "databases"
        };
        return fail(file, None, format!("the printout has no '{missing}' section: paste the whole output of sh.status({{verbose: true}})"));
    };
    let mut docs = MetadataDocs::default();
    for c in [
        MetadataCollection::Shards,
        MetadataCollection::Databases,
        MetadataCollection::Collections,
        MetadataCollection::Chunks,
        MetadataCollection::Tags,
    ] {
        docs.files.push((c, file.to_string()));
    }
    let first = shards.line;
    let Some(Expr {
        kind: ExprKind::Array(items),
        ..
    }) = mongosh_section_value(file, shards)?
    else {
        return fail(file, Some(first), "'shards' is not a list of shards");
    };
    let mut repl_set_config_version = false;
    for item in &items {
        let line = expr_line(item, first);
        repl_set_config_version |= push_shard(file, line, value_of(file, item, line)?, &mut docs)?;
    }
    // mongosh 1.0.0 to 1.0.3 printed `Timestamp(<low bits>, <high bits>)`: the increment first.
    let positional = lines.iter().any(|l| positional_timestamp(l));
    read_mongosh_databases(file, databases, positional, &mut docs)?;
    let modern = get("automerge").is_some()
        || get("shardedDataDistribution").is_some_and(|s| {
            let t = s.text.trim();
            !t.is_empty() && t != "undefined" && t != "[]"
        });
    let (version, version_reason) = if repl_set_config_version {
        (
            VersionMode::V80,
            "its shards have replSetConfigVersion, which 8.0 added".to_string(),
        )
    } else if modern {
        (
            VersionMode::V70,
            "it has an automerge or a shardedDataDistribution section, which 6.0.3 and later print"
                .to_string(),
        )
    } else {
        (
            VersionMode::V50,
            "it shows nothing of a later release, so 5.0, as an import of config exports assumes"
                .to_string(),
        )
    };
    Ok(StatusPrintout {
        docs,
        shell: PrintoutShell::Mongosh,
        version,
        version_reason,
    })
}

/// Whether a line holds `Timestamp(` followed by a number rather than `{`.
fn positional_timestamp(line: &str) -> bool {
    line.match_indices("Timestamp(").any(|(i, m)| {
        line[i + m.len()..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    })
}

/// A value read as true or false as mongosh prints `unique` and `balancing`: a boolean,
/// or `[ <boolean>, { unique: <the stored value> } ]` when the stored value is not one.
fn flag(e: &Expr) -> Option<bool> {
    match &e.kind {
        ExprKind::Bool(b) => Some(*b),
        ExprKind::Array(items) => items.first().and_then(flag),
        _ => None,
    }
}

fn read_mongosh_databases(
    file: &str,
    section: &Section,
    positional: bool,
    docs: &mut MetadataDocs,
) -> Result<(), MetadataError> {
    let first = section.line;
    let Some(Expr {
        kind: ExprKind::Array(items),
        ..
    }) = mongosh_section_value(file, section)?
    else {
        return fail(file, Some(first), "'databases' is not a list of databases");
    };
    for item in &items {
        let line = expr_line(item, first);
        let ExprKind::Object(fields) = &item.kind else {
            return fail(
                file,
                Some(line),
                "a database entry is not { database, collections }",
            );
        };
        let Some(db) = field(fields, "database") else {
            return fail(file, Some(line), "a database entry has no 'database'");
        };
        let db_line = expr_line(db, first);
        let Bson::Document(db) = value_of(file, db, db_line)? else {
            return fail(file, Some(db_line), "'database' is not a document");
        };
        let name = match db.get("_id") {
            Some(Bson::String(s)) => s.clone(),
            _ => return fail(file, Some(db_line), "the database has no string '_id'"),
        };
        // mongosh lists `config` itself (primary `config`, no config.databases document)
        // and a database that only a sharded collection names (no primary).
        if name != "config" {
            if let Some(Bson::String(primary)) = db.get("primary") {
                docs.databases.push(Located {
                    file: file.to_string(),
                    line: db_line,
                    value: DatabaseDoc {
                        id: name.clone(),
                        primary: primary.clone(),
                        partitioned: None,
                        version: None,
                    },
                });
            }
        }
        let colls = match field(fields, "collections").map(|c| &c.kind) {
            Some(ExprKind::Object(colls)) => colls,
            None => continue,
            Some(_) => return fail(file, Some(line), "'collections' is not a document"),
        };
        for (ns, coll) in colls {
            read_mongosh_collection(file, ns, coll, first, positional, docs)?;
        }
    }
    Ok(())
}

fn doc_field(
    file: &str,
    d: &Document,
    name: &str,
    line: u64,
    what: &str,
) -> Result<Document, MetadataError> {
    match d.get(name) {
        Some(Bson::Document(v)) => Ok(v.clone()),
        _ => fail(file, Some(line), format!("{what} has no document '{name}'")),
    }
}

fn read_mongosh_collection(
    file: &str,
    ns: &str,
    coll: &Expr,
    first: u64,
    positional: bool,
    docs: &mut MetadataDocs,
) -> Result<(), MetadataError> {
    let line = expr_line(coll, first);
    let ExprKind::Object(fields) = &coll.kind else {
        return fail(file, Some(line), format!("{ns} is not a document"));
    };
    let key = match field(fields, "shardKey").map(|k| value_of(file, k, expr_line(k, first))) {
        Some(Ok(Bson::Document(k))) => k,
        Some(Err(e)) => return Err(e),
        _ => return fail(file, Some(line), format!("{ns} has no document 'shardKey'")),
    };
    let unique = field(fields, "unique").and_then(flag).unwrap_or(false);
    let balancing = field(fields, "balancing").and_then(flag).unwrap_or(true);
    docs.collections.push(Located {
        file: file.to_string(),
        line,
        value: (collection_doc(ns, key, unique, balancing), false),
    });
    let mut counts = Vec::new();
    if let Some(meta) = field(fields, "chunkMetadata") {
        let meta_line = expr_line(meta, first);
        let entries = match value_of(file, meta, meta_line)? {
            Bson::Array(a) => a,
            // mongosh before 1.0 kept only the last shard's count, as one document.
            d @ Bson::Document(_) => vec![d],
            _ => {
                return fail(
                    file,
                    Some(meta_line),
                    format!("{ns}: 'chunkMetadata' is not a list"),
                )
            }
        };
        for e in entries {
            let Bson::Document(e) = e else {
                return fail(
                    file,
                    Some(meta_line),
                    format!("{ns}: an entry of 'chunkMetadata' is not a document"),
                );
            };
            let n = match e.get("nChunks") {
                Some(Bson::Int32(n)) => i64::from(*n),
                Some(Bson::Int64(n)) => *n,
                Some(Bson::Double(n)) if n.fract() == 0.0 => *n as i64,
                _ => {
                    return fail(
                        file,
                        Some(meta_line),
                        format!("{ns}: an entry of 'chunkMetadata' has no number 'nChunks'"),
                    )
                }
            };
            let Some(Bson::String(shard)) = e.get("shard") else {
                return fail(
                    file,
                    Some(meta_line),
                    format!("{ns}: an entry of 'chunkMetadata' has no string 'shard'"),
                );
            };
            counts.push((shard.clone(), n));
        }
    }
    let chunks = match field(fields, "chunks").map(|c| &c.kind) {
        Some(ExprKind::Array(items)) => items,
        _ => return fail(file, Some(line), format!("{ns} has no list 'chunks'")),
    };
    let listed_from = docs.chunks.len();
    for c in chunks {
        let cline = expr_line(c, first);
        if let ExprKind::String(s) = &c.kind {
            if s.starts_with(TOO_MANY_CHUNKS) {
                return fail(
                    file,
                    Some(cline),
                    format!("{ns}: the printout leaves chunks out ('{s}'): {PRINT_VERBOSE}"),
                );
            }
        }
        let Bson::Document(d) = value_of(file, c, cline)? else {
            return fail(
                file,
                Some(cline),
                format!("{ns}: a chunk is not a document"),
            );
        };
        let what = "the chunk";
        let min = doc_field(file, &d, "min", cline, what)?;
        let max = doc_field(file, &d, "max", cline, what)?;
        let Some(Bson::String(shard)) = d.get("on shard") else {
            return fail(file, Some(cline), "the chunk has no string 'on shard'");
        };
        let lastmod = match d.get("last modified") {
            Some(Bson::Timestamp(t)) if positional => Timestamp {
                time: t.increment,
                increment: t.time,
            },
            Some(Bson::Timestamp(t)) => *t,
            _ => {
                return fail(
                    file,
                    Some(cline),
                    "the chunk has no Timestamp 'last modified'",
                )
            }
        };
        let jumbo = match d.get("jumbo") {
            None => false,
            Some(Bson::String(s)) if s == "yes" => true,
            Some(Bson::Boolean(b)) => *b,
            Some(_) => return fail(file, Some(cline), "the chunk's 'jumbo' is not 'yes'"),
        };
        docs.chunks.push(Located {
            file: file.to_string(),
            line: cline,
            value: chunk_doc(ns, min, max, shard.clone(), lastmod, jumbo),
        });
    }
    if field(fields, "chunkMetadata").is_some() {
        check_counts(file, ns, line, &counts, &docs.chunks[listed_from..])?;
    }
    let tags = match field(fields, "tags").map(|t| &t.kind) {
        Some(ExprKind::Array(items)) => items.as_slice(),
        None => &[],
        Some(_) => return fail(file, Some(line), format!("{ns}: 'tags' is not a list")),
    };
    for t in tags {
        let tline = expr_line(t, first);
        if let ExprKind::String(s) = &t.kind {
            if s.starts_with(TOO_MANY_TAGS) {
                return fail(
                    file,
                    Some(tline),
                    format!("{ns}: the printout leaves zone ranges out ('{s}'): {PRINT_VERBOSE}"),
                );
            }
        }
        let Bson::Document(d) = value_of(file, t, tline)? else {
            return fail(
                file,
                Some(tline),
                format!("{ns}: a zone range is not a document"),
            );
        };
        let Some(Bson::String(tag)) = d.get("tag") else {
            return fail(file, Some(tline), "the zone range has no string 'tag'");
        };
        docs.tags.push(Located {
            file: file.to_string(),
            line: tline,
            value: TagDoc {
                id: Bson::Null,
                ns: ns.to_string(),
                min: doc_field(file, &d, "min", tline, "the zone range")?,
                max: doc_field(file, &d, "max", tline, "the zone range")?,
                tag: tag.clone(),
            },
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_ends_at_its_closing_bracket_whatever_its_strings_hold() {
        assert_eq!(value_end("{ a: '}' } tail"), Some(10));
        assert_eq!(value_end("[ \"]\\\"]\", { b: `)` } ]\nprompt>"), Some(22));
        assert_eq!(value_end("Timestamp(1, 0) jumbo"), Some(15));
        assert_eq!(value_end("{ a: [ 1 }"), None);
        assert_eq!(value_end("{ a: { b: 1 }"), None);
        assert_eq!(value_end("} {"), None);
        assert_eq!(value_end("'unterminated {"), None);
    }

    #[test]
    fn what_node_leaves_out_is_found_outside_strings_only() {
        assert_eq!(elision("[ 1, 2, ... 98 more items ]").map(|e| e.0), Some(8));
        assert_eq!(elision("[ 1, ... 1 more item ]").map(|e| e.0), Some(5));
        assert_eq!(elision("{ min: [Object] }").map(|e| e.0), Some(7));
        assert_eq!(elision("{ a: [Array] }").map(|e| e.0), Some(5));
        assert_eq!(elision("{ host: '... 3 more items [Object]' }"), None);
        assert_eq!(elision("{ a: [ 'x' ] }"), None);
    }

    #[test]
    fn sections_start_after_rules_and_a_prompt_may_come_first() {
        let text = "test> sh.status()\nshardingVersion\n{ _id: 1 }\n---\nshards\n[\n  { _id: 'a' }\n]\n---\ndatabases\n[]\ntest> ";
        let lines: Vec<&str> = text.split('\n').collect();
        let found: Vec<(String, u64, String)> = sections(&lines)
            .into_iter()
            .map(|s| (s.name, s.line, s.text))
            .collect();
        assert_eq!(
            found,
            [
                ("shardingVersion".to_string(), 3, "{ _id: 1 }".to_string()),
                ("shards".to_string(), 6, "[\n  { _id: 'a' }\n]".to_string()),
                ("databases".to_string(), 11, "[]\ntest> ".to_string()),
            ]
        );
    }

    #[test]
    fn mongosh_1_0s_positional_timestamps_are_told_from_later_ones() {
        assert!(positional_timestamp("'last modified': Timestamp(0, 1) }"));
        assert!(positional_timestamp("Timestamp( 3, 2)"));
        assert!(!positional_timestamp(
            "'last modified': Timestamp({ t: 1, i: 0 }) }"
        ));
        assert!(!positional_timestamp("no timestamp"));
    }

    #[test]
    fn colour_codes_are_removed() {
        assert_eq!(strip_ansi("\u{1b}[1m\u{1b}[33mshards\u{1b}[39m"), "shards");
        assert!(is_status_printout(
            b"\x1b[1mshardingVersion\x1b[22m\n{ _id: 1 }"
        ));
        assert!(is_status_printout(
            b"mongos> sh.status(true)\n--- Sharding Status --- \n"
        ));
        assert!(!is_status_printout(b"[{\"_id\":\"shard01\"}]"));
    }
}
