//! Replaying a real cluster's `config.changelog`: the entries that change a collection's
//! chunks (`split`, `multi-split`, `merge`, `moveChunk.commit`), applied to its routing
//! table forwards (`sim.replayChange`, one timeline step each) and backwards (to find the
//! chunks before the first entry, from the chunks the export ends with).
//!
//! The entries' details are read as MongoDB writes them (the config server's
//! `commitChunkSplit`, `commitChunksMerge` and `commitChunkMigration`, and
//! `engine/config_catalog.rs`, which writes the same shapes): a split's `before`, `left`
//! and `right`; a multi-split's `before` and its `chunk`, one entry per piece; a merge's
//! `merged` chunks (4.4 to 6.x) or its `min` and `max` (7.0+); a migration's `min`, `max`,
//! `from` and `to`. A version is a `Timestamp` or 6.0's `{e, t, v}`.

use crate::engine::chunks::{Chunk, ChunkVersion, RoutingTable, ShardIdx};
use crate::engine::cluster::{Cluster, ClusterError};
use crate::engine::cluster_image::image_bound;
use crate::keys::shard_key::{format_bson_obj, KeyPattern, KeyValue};
use bson::{Bson, Document};

/// The changelog entries that change chunks, by their `what`.
pub const REPLAYED_CHANGES: [&str; 4] = ["split", "multi-split", "merge", "moveChunk.commit"];

/// What one changelog entry does to a collection's chunks.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkChange {
    /// A split (`split`, `multi-split`): the range `before` is cut into `pieces`, each
    /// with its version; a multi-split entry names one piece of several.
    Split {
        /// The chunk split, with its version before.
        before: (KeyValue, KeyValue, Option<ChunkVersion>),
        /// The pieces this entry names.
        pieces: Vec<(KeyValue, KeyValue, Option<ChunkVersion>)>,
    },
    /// A merge of the chunks in `[min, max)`, and the pieces merged when the entry lists
    /// them.
    Merge {
        /// The merged chunk's lower bound.
        min: KeyValue,
        /// Its upper bound.
        max: KeyValue,
        /// The chunks merged (4.4 to 6.x list them).
        pieces: Option<Vec<(KeyValue, KeyValue, Option<ChunkVersion>)>>,
    },
    /// ShardLab's own entry, `markJumbo` with `{min, max}`: the chunk `[min, max)` is
    /// flagged jumbo, as the export shows it after the last replayed change (MongoDB logs
    /// no entry when it flags a chunk).
    Jumbo {
        /// The chunk's lower bound.
        min: KeyValue,
        /// Its upper bound.
        max: KeyValue,
    },
    /// A migration of `[min, max)` from a shard to another.
    Move {
        /// The range's lower bound.
        min: KeyValue,
        /// Its upper bound.
        max: KeyValue,
        /// The donor.
        from: String,
        /// The recipient.
        to: String,
    },
}

fn refuse(text: String) -> ClusterError {
    ClusterError::Coded(
        crate::values::error::Code::IncompatibleShardingMetadata,
        text,
    )
}

fn sub<'a>(d: &'a Document, field: &str, what: &str) -> Result<&'a Document, ClusterError> {
    match d.get(field) {
        Some(Bson::Document(v)) => Ok(v),
        _ => Err(ClusterError::FailedToParse(format!(
            "config.changelog: a {what} entry's details need the document field '{field}'"
        ))),
    }
}

fn text<'a>(d: &'a Document, field: &str, what: &str) -> Result<&'a str, ClusterError> {
    match d.get(field) {
        Some(Bson::String(v)) => Ok(v),
        _ => Err(ClusterError::FailedToParse(format!(
            "config.changelog: a {what} entry's details need the string field '{field}'"
        ))),
    }
}

/// A version as the changelog writes it: `Timestamp(major, minor)`, or `{v: Timestamp}`.
fn version_of(d: &Document) -> Option<ChunkVersion> {
    let ts = match d.get("lastmod")? {
        Bson::Timestamp(t) => *t,
        Bson::Document(v) => match v.get("v")? {
            Bson::Timestamp(t) => *t,
            _ => return None,
        },
        _ => return None,
    };
    Some(ChunkVersion {
        major: ts.time,
        minor: ts.increment,
    })
}

/// A range document's bounds and version.
fn range_of(
    pattern: &KeyPattern,
    d: &Document,
    what: &str,
) -> Result<(KeyValue, KeyValue, Option<ChunkVersion>), ClusterError> {
    Ok((
        image_bound(pattern, sub(d, "min", what)?)?,
        image_bound(pattern, sub(d, "max", what)?)?,
        version_of(d),
    ))
}

impl ChunkChange {
    /// Reads an entry's `what` and `details` under `pattern`; `Ok(None)` for an entry
    /// that changes no chunk.
    pub fn read(
        pattern: &KeyPattern,
        what: &str,
        details: &Document,
    ) -> Result<Option<ChunkChange>, ClusterError> {
        let change = match what {
            "split" => ChunkChange::Split {
                before: range_of(pattern, sub(details, "before", what)?, what)?,
                pieces: vec![
                    range_of(pattern, sub(details, "left", what)?, what)?,
                    range_of(pattern, sub(details, "right", what)?, what)?,
                ],
            },
            "multi-split" => ChunkChange::Split {
                before: range_of(pattern, sub(details, "before", what)?, what)?,
                pieces: vec![range_of(pattern, sub(details, "chunk", what)?, what)?],
            },
            "merge" => read_merge(pattern, details)?,
            "markJumbo" => ChunkChange::Jumbo {
                min: image_bound(pattern, sub(details, "min", what)?)?,
                max: image_bound(pattern, sub(details, "max", what)?)?,
            },
            "moveChunk.commit" => ChunkChange::Move {
                min: image_bound(pattern, sub(details, "min", what)?)?,
                max: image_bound(pattern, sub(details, "max", what)?)?,
                from: text(details, "from", what)?.to_string(),
                to: text(details, "to", what)?.to_string(),
            },
            _ => return Ok(None),
        };
        Ok(Some(change))
    }
}

fn read_merge(pattern: &KeyPattern, details: &Document) -> Result<ChunkChange, ClusterError> {
    if let Some(Bson::Array(items)) = details.get("merged") {
        let mut pieces = Vec::with_capacity(items.len());
        for item in items {
            let Bson::Document(d) = item else {
                return Err(ClusterError::FailedToParse(
                    "config.changelog: a merge entry's 'merged' must hold chunk documents".into(),
                ));
            };
            pieces.push(range_of(pattern, d, "merge")?);
        }
        pieces.sort_by(|a, b| a.0.cmp(&b.0));
        let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
            return Err(ClusterError::FailedToParse(
                "config.changelog: a merge entry's 'merged' is empty".into(),
            ));
        };
        return Ok(ChunkChange::Merge {
            min: first.0.clone(),
            max: last.1.clone(),
            pieces: Some(pieces),
        });
    }
    Ok(ChunkChange::Merge {
        min: image_bound(pattern, sub(details, "min", "merge")?)?,
        max: image_bound(pattern, sub(details, "max", "merge")?)?,
        pieces: None,
    })
}

/// A collection's chunks in key order, changed in place by a replay.
pub struct ChunkList<'a> {
    /// The chunks, sorted by lower bound, tiling the key space.
    pub chunks: Vec<Chunk>,
    /// The key pattern, for the messages.
    pub pattern: &'a KeyPattern,
    /// The shard names, by index.
    pub shard_names: Vec<String>,
}

impl ChunkList<'_> {
    fn name(&self, min: &KeyValue, max: &KeyValue) -> String {
        format!(
            "[{}, {})",
            format_bson_obj(&self.pattern.to_document(min)),
            format_bson_obj(&self.pattern.to_document(max))
        )
    }

    fn shard(&self, name: &str) -> Result<ShardIdx, ClusterError> {
        self.shard_names
            .iter()
            .position(|s| s == name)
            .map(|i| i as ShardIdx)
            .ok_or_else(|| ClusterError::ShardNotFound(format!("Shard {name} not found")))
    }

    fn version(&self) -> ChunkVersion {
        self.chunks
            .iter()
            .map(|c| c.version)
            .max()
            .unwrap_or_default()
    }

    /// Cuts the chunk holding `[min, max)` so that the range is a chunk of its own, and
    /// answers its place; refused when the range is not inside one chunk.
    fn carve(&mut self, min: &KeyValue, max: &KeyValue) -> Result<usize, ClusterError> {
        let at = self.chunks.partition_point(|c| c.min <= *min);
        let Some(i) = at
            .checked_sub(1)
            .filter(|&i| *max <= self.chunks[i].max && min < max)
        else {
            return Err(refuse(format!(
                "the range {} is not inside one chunk",
                self.name(min, max)
            )));
        };
        let whole = self.chunks[i].clone();
        let mut pieces = Vec::with_capacity(3);
        if whole.min < *min {
            pieces.push(Chunk {
                max: min.clone(),
                ..whole.clone()
            });
        }
        pieces.push(Chunk {
            min: min.clone(),
            max: max.clone(),
            ..whole.clone()
        });
        let place = i + pieces.len() - 1;
        if *max < whole.max {
            pieces.push(Chunk {
                min: max.clone(),
                ..whole
            });
        }
        self.chunks.splice(i..=i, pieces);
        Ok(place)
    }

    /// Makes the chunks of `[min, max)` one chunk on their common shard, at `version`.
    fn collapse(
        &mut self,
        min: &KeyValue,
        max: &KeyValue,
        version: ChunkVersion,
    ) -> Result<(), ClusterError> {
        let start = self.chunks.partition_point(|c| c.min < *min);
        let end = self.chunks.partition_point(|c| c.max <= *max);
        let run = self.chunks.get(start..end).unwrap_or(&[]);
        let exact =
            run.first().is_some_and(|c| c.min == *min) && run.last().is_some_and(|c| c.max == *max);
        let shard = run.first().map(|c| c.shard);
        if !exact || run.iter().any(|c| Some(c.shard) != shard) {
            return Err(refuse(format!(
                "the range {} is not whole chunks on one shard",
                self.name(min, max)
            )));
        }
        let merged = Chunk::merged(run, shard.unwrap_or(0), version);
        self.chunks.splice(start..end, [merged]);
        Ok(())
    }

    /// Sets the jumbo flag of the chunk `[min, max)`, which must be a chunk.
    fn flag(&mut self, min: &KeyValue, max: &KeyValue, jumbo: bool) -> Result<(), ClusterError> {
        let at = self.chunks.partition_point(|c| c.min < *min);
        match self.chunks.get_mut(at) {
            Some(c) if c.min == *min && c.max == *max => {
                c.jumbo = jumbo;
                Ok(())
            }
            _ => Err(refuse(format!(
                "the range {} is not a chunk",
                self.name(min, max)
            ))),
        }
    }

    /// Carves `[min, max)` out and moves it from `on` (the shard it must be on, and its
    /// role in the migration, for the message) to `to`; answers its place.
    fn hand_over(
        &mut self,
        min: &KeyValue,
        max: &KeyValue,
        on: (&str, &str),
        to: &str,
    ) -> Result<usize, ClusterError> {
        let (holder, to) = (self.shard(on.0)?, self.shard(to)?);
        let at = self.carve(min, max)?;
        if self.chunks[at].shard != holder {
            return Err(refuse(format!(
                "the chunk {} is not on the {} shard",
                self.name(min, max),
                on.1
            )));
        }
        self.chunks[at].shard = to;
        Ok(at)
    }

    /// Applies `change` as it happened.
    pub fn apply(&mut self, change: &ChunkChange) -> Result<(), ClusterError> {
        match change {
            ChunkChange::Split { pieces, .. } => {
                for (min, max, version) in pieces {
                    let at = self.carve(min, max)?;
                    let next = ChunkVersion {
                        minor: self.version().minor + 1,
                        ..self.version()
                    };
                    self.chunks[at].version = version.unwrap_or(next);
                    self.chunks[at].jumbo = false;
                }
            }
            ChunkChange::Merge { min, max, .. } => {
                let v = self.version();
                self.collapse(
                    min,
                    max,
                    ChunkVersion {
                        minor: v.minor + 1,
                        ..v
                    },
                )?;
            }
            ChunkChange::Jumbo { min, max } => self.flag(min, max, true)?,
            ChunkChange::Move { min, max, from, to } => {
                let major = self.version().major + 1;
                let at = self.hand_over(min, max, (from, "donor"), to)?;
                self.chunks[at].version = ChunkVersion { major, minor: 0 };
            }
        }
        Ok(())
    }

    /// Undoes `change`: the chunks as they were before it. A merge whose entry does not
    /// list the merged chunks cannot be undone.
    pub fn undo(&mut self, change: &ChunkChange) -> Result<(), ClusterError> {
        match change {
            ChunkChange::Split {
                before: (min, max, version),
                ..
            } => {
                let v = version.unwrap_or_else(|| self.version());
                self.collapse(min, max, v)?;
            }
            ChunkChange::Merge { min, max, pieces } => {
                let Some(pieces) = pieces else {
                    return Err(refuse(format!(
                        "the merge of {} does not list the chunks it merged",
                        self.name(min, max)
                    )));
                };
                let at = self.carve(min, max)?;
                if self.chunks[at].min != *min || self.chunks[at].max != *max {
                    return Err(refuse(format!(
                        "the merged chunk {} is not a chunk",
                        self.name(min, max)
                    )));
                }
                let whole = self.chunks[at].clone();
                let split: Vec<Chunk> = pieces
                    .iter()
                    .map(|(a, b, v)| Chunk {
                        min: a.clone(),
                        max: b.clone(),
                        version: v.unwrap_or(whole.version),
                        ..whole.clone()
                    })
                    .collect();
                self.chunks.splice(at..=at, split);
            }
            ChunkChange::Jumbo { min, max } => self.flag(min, max, false)?,
            ChunkChange::Move { min, max, from, to } => {
                self.hand_over(min, max, (to, "recipient"), from)?;
            }
        }
        Ok(())
    }
}

impl Cluster {
    /// `sim.replayChange(entry)`: applies one `config.changelog` entry (`{what, ns,
    /// details}`) to its collection's chunks, as it happened. An entry that changes no
    /// chunk changes nothing.
    pub fn replay_change(&mut self, entry: &Document) -> Result<(), ClusterError> {
        let field = |f: &str| match entry.get(f) {
            Some(Bson::String(s)) => Ok(s.clone()),
            _ => Err(ClusterError::FailedToParse(format!(
                "sim.replayChange needs the string field '{f}'"
            ))),
        };
        let (what, ns) = (field("what")?, field("ns")?);
        let details = match entry.get("details") {
            Some(Bson::Document(d)) => d.clone(),
            _ => Document::new(),
        };
        let shard_names: Vec<String> = self.all_shards().iter().map(|s| s.name.clone()).collect();
        if self.collection(&ns).is_some_and(|c| !c.docs.is_empty()) {
            return Err(ClusterError::IllegalOperation(format!(
                "sim.replayChange replays the chunks of a collection without documents; {ns} has some"
            )));
        }
        let sharding = self.sharding(&ns)?;
        let Some(change) = ChunkChange::read(&sharding.pattern, &what, &details)? else {
            return Ok(());
        };
        let mut list = ChunkList {
            chunks: sharding.table.iter().cloned().collect(),
            pattern: &sharding.pattern,
            shard_names,
        };
        list.apply(&change)?;
        let table = RoutingTable::from_chunks(list.chunks);
        self.sharding_mut(&ns)?.table = table;
        Ok(())
    }
}
