//! The legacy `mongo` shell's `sh.status(true)` printout (`printShardingStatus` in
//! `src/mongo/shell/utils_sh.js`), read into the same metadata as mongosh's
//! (`status_printout.rs`, which tells the two apart and describes both).
//!
//! The printout is text with values in the shell's `tojson` form (`{ "x" : { "$minKey" :
//! 1 } }`, `NumberLong("5")`, `Timestamp(1, 0)` with the time first). After
//! `databases:` it is read as a stream rather than line by line, because `tojson` breaks
//! a bound longer than 80 characters over several lines.

use crate::engine::{DatabaseDoc, TagDoc, VersionMode};
use crate::workload::cluster_files::{Located, MetadataCollection, MetadataDocs, MetadataError};
use crate::workload::status_values::{
    check_counts, chunk_doc, collection_doc, parse_at, push_shard, value_end, value_of,
    PrintoutShell, StatusPrintout,
};
use bson::{Bson, Document, Timestamp};

fn fail<T>(file: &str, line: u64, message: impl Into<String>) -> Result<T, MetadataError> {
    Err(MetadataError {
        file: file.to_string(),
        line: Some(line),
        message: message.into(),
    })
}

/// The section headers the legacy shell prints at the first level of indentation.
fn is_header(line: &str) -> bool {
    let t = line.trim();
    t.ends_with(':') && !t.starts_with('{') && line.starts_with("  ") && !line.starts_with("   ")
}

/// A collection being read: what its lines said so far.
struct Pending {
    ns: String,
    line: u64,
    key: Option<Document>,
    unique: bool,
    balancing: bool,
    counts: Vec<(String, i64)>,
    first_chunk: usize,
}

/// Reads the printout whose lines are `lines`.
pub(crate) fn read_legacy(file: &str, lines: &[&str]) -> Result<StatusPrintout, MetadataError> {
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
    let find = |name: &str| lines.iter().position(|l| l.trim() == name);
    let (Some(shards), Some(databases)) = (find("shards:"), find("databases:")) else {
        return Err(MetadataError {
            file: file.to_string(),
            line: None,
            message: "the printout has no 'shards:' or no 'databases:': paste the whole output of sh.status(true)".to_string(),
        });
    };
    let mut repl_set_config_version = false;
    for (i, l) in lines.iter().enumerate().skip(shards + 1) {
        if is_header(l) || i >= databases {
            break;
        }
        let line = i as u64 + 1;
        if l.trim().is_empty() {
            continue;
        }
        let e = parse_at(file, l.trim(), line)?;
        repl_set_config_version |= push_shard(file, line, value_of(file, &e, line)?, &mut docs)?;
    }
    let text = lines[databases + 1..].join("\n");
    read_databases(file, &text, databases as u64 + 2, &mut docs)?;
    let (version, version_reason) = if repl_set_config_version {
        (
            VersionMode::V80,
            "its shards have replSetConfigVersion, which 8.0 added".to_string(),
        )
    } else {
        (
            VersionMode::V50,
            "the mongo shell's printout shows nothing of a later release, so 5.0, as an import of config exports assumes".to_string(),
        )
    };
    Ok(StatusPrintout {
        docs,
        shell: PrintoutShell::Legacy,
        version,
        version_reason,
    })
}

/// A cursor over the `databases:` part, which only moves forward.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    /// The line of byte `counted` (the lines are counted as the cursor moves, so that a
    /// long printout is read in linear time).
    first: u64,
    counted: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str, first: u64) -> Self {
        Cursor {
            text,
            pos: 0,
            first,
            counted: 0,
        }
    }

    fn line(&mut self) -> u64 {
        let upto = self.pos.max(self.counted);
        self.first += self.text.as_bytes()[self.counted..upto]
            .iter()
            .filter(|&&c| c == b'\n')
            .count() as u64;
        self.counted = upto;
        self.first
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn skip_space(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    /// The rest of the current line, consumed.
    fn take_line(&mut self) -> &'a str {
        let r = self.rest();
        let n = r.find('\n').unwrap_or(r.len());
        self.pos += n;
        r[..n].trim()
    }

    /// The bracketed value here (`{...}` or `Name(...)`), consumed.
    fn take_value(&mut self, file: &str) -> Result<(&'a str, u64), MetadataError> {
        let line = self.line();
        let Some(n) = value_end(self.rest()) else {
            return fail(
                file,
                line,
                "a value here is not closed: paste the whole printout",
            );
        };
        let v = &self.rest()[..n];
        self.pos += n;
        Ok((v, line))
    }

    /// Consumes `word` after spaces (not line breaks), or says it is not there.
    fn expect(&mut self, file: &str, word: &str) -> Result<(), MetadataError> {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t', '\n']);
        if !t.starts_with(word) {
            return fail(
                file,
                self.line(),
                format!("expected '{word}' in a chunk's line"),
            );
        }
        self.pos += r.len() - t.len() + word.len();
        Ok(())
    }
}

fn document(file: &str, text: &str, line: u64) -> Result<Document, MetadataError> {
    let e = parse_at(file, text, line)?;
    match value_of(file, &e, line)? {
        Bson::Document(d) => Ok(d),
        _ => fail(file, line, "not a document"),
    }
}

fn finish(
    file: &str,
    pending: Option<Pending>,
    docs: &mut MetadataDocs,
) -> Result<(), MetadataError> {
    let Some(p) = pending else {
        return Ok(());
    };
    let Some(key) = p.key else {
        return fail(file, p.line, format!("{}: no 'shard key:' line", p.ns));
    };
    check_counts(
        file,
        &p.ns,
        p.line,
        &p.counts,
        &docs.chunks[p.first_chunk..],
    )?;
    docs.collections.push(Located {
        file: file.to_string(),
        line: p.line,
        value: (collection_doc(&p.ns, key, p.unique, p.balancing), false),
    });
    Ok(())
}

fn read_databases(
    file: &str,
    text: &str,
    first: u64,
    docs: &mut MetadataDocs,
) -> Result<(), MetadataError> {
    let mut c = Cursor::new(text, first);
    let mut pending: Option<Pending> = None;
    loop {
        c.skip_space();
        let rest = c.rest();
        if rest.is_empty() {
            break;
        }
        let line = c.line();
        if rest.starts_with('{') {
            let (value, vline) = c.take_value(file)?;
            let after = c.rest().trim_start_matches([' ', '\t', '\n']);
            if !after.starts_with("-->>") {
                // A database: `{ "_id" : "test", "primary" : "shard01", ... }`.
                finish(file, pending.take(), docs)?;
                let d = document(file, value, vline)?;
                if let (Some(Bson::String(id)), Some(Bson::String(primary))) =
                    (d.get("_id"), d.get("primary"))
                {
                    if id != "config" {
                        docs.databases.push(Located {
                            file: file.to_string(),
                            line: vline,
                            value: DatabaseDoc {
                                id: id.clone(),
                                primary: primary.clone(),
                                partitioned: None,
                                version: None,
                            },
                        });
                    }
                }
                continue;
            }
            let Some(p) = &pending else {
                return fail(file, vline, "a chunk before its collection's name");
            };
            let min = document(file, value, vline)?;
            c.expect(file, "-->>")?;
            c.skip_space();
            let (max, mline) = c.take_value(file)?;
            let max = document(file, max, mline)?;
            c.expect(file, "on :")?;
            let tail = c.take_line();
            let (shard, stamp) = tail.split_once(' ').unwrap_or((tail, ""));
            let stamp = stamp.trim();
            let Some(end) = stamp
                .starts_with("Timestamp(")
                .then(|| value_end(stamp))
                .flatten()
            else {
                return fail(
                    file,
                    vline,
                    "the chunk has no 'Timestamp(<t>, <i>)' after its shard",
                );
            };
            let lastmod = match value_of(file, &parse_at(file, &stamp[..end], vline)?, vline)? {
                Bson::Timestamp(t) => t,
                _ => Timestamp {
                    time: 0,
                    increment: 0,
                },
            };
            let jumbo = match stamp[end..].trim() {
                "" => false,
                "jumbo" => true,
                other => {
                    return fail(
                        file,
                        vline,
                        format!("cannot read '{other}' after the chunk's version"),
                    )
                }
            };
            docs.chunks.push(Located {
                file: file.to_string(),
                line: vline,
                value: chunk_doc(&p.ns, min, max, shard.to_string(), lastmod, jumbo),
            });
            continue;
        }
        // `tojson` breaks a key or a bound longer than 80 characters over lines: these
        // two are read as values, not lines.
        if let Some(v) = rest.strip_prefix("shard key:") {
            c.pos += rest.len() - v.trim_start_matches([' ', '\t']).len();
            let Some(p) = pending.as_mut() else {
                return fail(file, line, "'shard key:' before its collection's name");
            };
            let (key, kline) = c.take_value(file)?;
            p.key = Some(document(file, key, kline)?);
            continue;
        }
        if let Some(v) = rest.strip_prefix("tag:") {
            let Some(p) = &pending else {
                return fail(file, line, "a zone range before its collection's name");
            };
            let ns = p.ns.clone();
            let v = v.trim_start_matches([' ', '\t']);
            let here = &v[..v.find('\n').unwrap_or(v.len())];
            let Some(at) = here.find("  {") else {
                return fail(
                    file,
                    line,
                    "cannot read the zone range: expected 'tag: <zone>  { min } -->> { max }'",
                );
            };
            let tag = here[..at].to_string();
            c.pos += rest.len() - v.len() + at + 2;
            let (min, mline) = c.take_value(file)?;
            let min = document(file, min, mline)?;
            c.expect(file, "-->>")?;
            c.skip_space();
            let (max, xline) = c.take_value(file)?;
            let max = document(file, max, xline)?;
            docs.tags.push(Located {
                file: file.to_string(),
                line,
                value: TagDoc {
                    id: Bson::Null,
                    ns,
                    min,
                    max,
                    tag,
                },
            });
            continue;
        }
        let text = c.take_line();
        if text.is_empty() {
            continue;
        } else if let Some(v) = text.strip_prefix("unique:") {
            if let Some(p) = pending.as_mut() {
                p.unique = v.trim().starts_with("true");
            }
        } else if let Some(v) = text.strip_prefix("balancing:") {
            if let Some(p) = pending.as_mut() {
                p.balancing = v.trim().starts_with("true");
            }
        } else if text == "chunks:" {
        } else if text.starts_with("too many chunks to print") {
            return fail(file, line, format!("the printout leaves chunks out ('{text}'): print it again with sh.status(true)"));
        } else if let Some((shard, n)) = text
            .split_once('\t')
            .and_then(|(s, n)| Some((s.trim(), n.trim().parse::<i64>().ok()?)))
        {
            let Some(p) = pending.as_mut() else {
                return fail(file, line, "a chunk count before its collection's name");
            };
            p.counts.push((shard.to_string(), n));
        } else if text.ends_with('>') || text.contains("> ") {
            // The shell's prompt after the printout.
            break;
        } else if text.contains('.') && !text.contains(' ') {
            finish(file, pending.take(), docs)?;
            pending = Some(Pending {
                ns: text.to_string(),
                line,
                key: None,
                unique: false,
                balancing: true,
                counts: Vec::new(),
                first_chunk: docs.chunks.len(),
            });
        } else {
            return fail(
                file,
                line,
                format!(
                    "cannot read '{}' in the databases part",
                    text.chars().take(80).collect::<String>()
                ),
            );
        }
    }
    finish(file, pending, docs)
}
