//! A real cluster's metadata, read by `cluster_files.rs`, made into the timeline steps of
//! a session whose cluster is that cluster: one `sim.loadCluster(...)` step with the
//! chunks as they were before the changelog's first replayable entry, then one
//! `sim.replayChange(...)` step for each `split`, `multi-split`, `merge` and
//! `moveChunk.commit`, in time order, ending at the chunks the export holds.
//!
//! Chunks are joined to their collection by `ns` (4.4) or by `uuid` (5.0+, the
//! collection's `uuid` in `config.collections`); an export holding both kinds is refused.
//! The chunks before the changelog are found by undoing its entries from the newest:
//! the first entry that cannot be undone (a merge that does not list its chunks, an
//! entry for chunks that are not there, a bound of an older shard key) ends the walk, and
//! it and the older entries are listed as skipped with the reason.

use crate::engine::{
    image_bound, tiling_problem, ChunkChange, ChunkList, ClusterImage, ImageChunk, ImageCollection,
    ImageZone, TilingProblem, VersionMode,
};
use crate::keys::KeyPattern;
use crate::shell::to_canonical_ejson;
use crate::workload::cluster_files::{Located, MetadataDocs, MetadataError};
use bson::{Bson, Document, Timestamp};

/// Changelog entries that change no chunk, as MongoDB's releases 4.4 to 8.0 name them:
/// skipped without a word of warning. Any other name is listed as unknown.
const KNOWN_CHANGES: &[&str] = &[
    "moveChunk.start",
    "moveChunk.to",
    "moveChunk.from",
    "moveChunk.error",
    "moveChunk.validating",
    "shardCollection",
    "shardCollection.start",
    "shardCollection.end",
    "dropCollection",
    "dropCollection.start",
    "dropDatabase",
    "dropDatabase.start",
    "addShard",
    "removeShard",
    "removeShard.start",
    "refineCollectionShardKey.start",
    "refineCollectionShardKey.end",
    "reshardCollection.start",
    "reshardCollection.end",
    "resharding.coordinator.transition",
    "movePrimary.start",
    "movePrimary.commit",
    "renameCollection.start",
    "renameCollection.metadata",
    "renameCollection.end",
    "createCollection.start",
    "createCollection.end",
    "setFeatureCompatibilityVersion",
    "cleanUpPlacementHistory",
    "moveRange.start",
    "moveRange.commit",
];

/// Changelog entries not replayed, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedChanges {
    /// The entries' `what`.
    pub what: String,
    /// How many.
    pub count: u64,
    /// Why: `changes no chunk`, `unknown event`, or why the replay could not go back
    /// this far.
    pub reason: String,
}

/// What an import makes of the metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterImport {
    /// The cluster before the replayed changelog entries.
    pub image: ClusterImage,
    /// The steps: `sim.loadCluster(image)`, then one `sim.replayChange(entry)` an entry,
    /// then, when entries were replayed, ShardLab's `markJumbo` entry for each chunk the
    /// export flags jumbo (MongoDB logs no entry when it flags one).
    pub steps: Vec<String>,
    /// How many changelog entries the steps replay (the steps after the load, before
    /// the jumbo flags).
    pub replayed: u64,
    /// The changelog entries not replayed.
    pub skipped: Vec<SkippedChanges>,
    /// The era the metadata is of, which the session takes as its version mode.
    pub version: VersionMode,
}

fn fail<T>(file: &str, line: Option<u64>, message: String) -> Result<T, MetadataError> {
    Err(MetadataError {
        file: file.to_string(),
        line,
        message,
    })
}

/// The steps of a session whose cluster is `docs`' cluster.
pub fn assemble(docs: &MetadataDocs) -> Result<ClusterImport, MetadataError> {
    assemble_as(docs, None)
}

/// [`assemble`], with the era given rather than read from the chunks (a `sh.status()`
/// printout's chunks are keyed by `ns` whatever the release, so the reader of the
/// printout says which era it showed).
pub(crate) fn assemble_as(
    docs: &MetadataDocs,
    version: Option<VersionMode>,
) -> Result<ClusterImport, MetadataError> {
    for (collection, usual) in [
        ("shards", "shards.json"),
        ("collections", "collections.json"),
        ("chunks", "chunks.json"),
    ] {
        if !docs.files.iter().any(|(c, _)| c.name() == collection) {
            return fail(usual, None, format!("the export has no config.{collection}: export it with mongoexport --db config --collection {collection}"));
        }
    }
    let version = match version {
        Some(v) => v,
        None => era(docs)?,
    };
    let mut image = ClusterImage {
        shards: docs.shards.iter().map(|s| s.value.clone()).collect(),
        databases: docs
            .databases
            .iter()
            .map(|d| (d.value.id.clone(), d.value.primary.clone()))
            .collect(),
        collections: Vec::new(),
        version: Some(version),
    };
    for coll in docs
        .collections
        .iter()
        .filter(|c| c.value.0.dropped != Some(true) && !c.value.1)
    {
        image.collections.push(collection_image(docs, coll)?);
    }
    if let Some(orphan) = docs
        .chunks
        .iter()
        .find(|c| !image.collections.iter().any(|i| owns(docs, i, &c.value)))
    {
        let whose = orphan
            .value
            .ns
            .clone()
            .unwrap_or_else(|| "the uuid it names".to_string());
        return fail(&orphan.file, Some(orphan.line), format!("the chunk's collection ({whose}) is not a sharded collection of config.collections"));
    }
    let final_image = image.clone();
    let (first, skipped) = replay_window(&mut image, docs);
    let mut steps = vec![format!(
        "sim.loadCluster({})",
        to_canonical_ejson(&Bson::Document(image.to_document()))
    )];
    for entry in &docs_in_time_order(docs)[first..] {
        let mut e = Document::new();
        e.insert("what", entry.value.what.clone());
        e.insert("ns", entry.value.ns.clone());
        e.insert("time", entry.value.time);
        e.insert("details", entry.value.details.clone());
        steps.push(format!(
            "sim.replayChange({})",
            to_canonical_ejson(&Bson::Document(e))
        ));
    }
    let replayed = (steps.len() - 1) as u64;
    if steps.len() > 1 {
        for coll in &final_image.collections {
            for c in coll.chunks.iter().filter(|c| c.jumbo) {
                let mut details = Document::new();
                details.insert("min", c.min.clone());
                details.insert("max", c.max.clone());
                let e =
                    bson::doc! { "what": "markJumbo", "ns": coll.ns.clone(), "details": details };
                steps.push(format!(
                    "sim.replayChange({})",
                    to_canonical_ejson(&Bson::Document(e))
                ));
            }
        }
    }
    let mut all_skipped = skipped;
    for (what, count) in &docs.skipped {
        let known = KNOWN_CHANGES.contains(&what.as_str());
        let reason = if known {
            "changes no chunk"
        } else {
            "unknown event"
        };
        all_skipped.push(SkippedChanges {
            what: what.clone(),
            count: *count,
            reason: reason.to_string(),
        });
    }
    Ok(ClusterImport {
        image,
        steps,
        replayed,
        skipped: all_skipped,
        version,
    })
}

/// The era of the chunks: `ns`-keyed (4.4) or `uuid`-keyed (5.0+), refusing a mix; 7.0+
/// when a chunk has `onCurrentShardSince`, 8.0 when a collection is `unsplittable`.
fn era(docs: &MetadataDocs) -> Result<VersionMode, MetadataError> {
    let by_ns = docs.chunks.iter().find(|c| c.value.ns.is_some());
    let by_uuid = docs
        .chunks
        .iter()
        .find(|c| c.value.ns.is_none() && c.value.uuid.is_some());
    if let (Some(a), Some(b)) = (by_ns, by_uuid) {
        return fail(&b.file, Some(b.line), format!("this chunk names its collection by uuid, but line {}'s by ns: the export mixes 4.4's chunks (keyed by ns) with 5.0's and later (keyed by uuid)", a.line));
    }
    if let Some(c) = docs
        .chunks
        .iter()
        .find(|c| c.value.ns.is_none() && c.value.uuid.is_none())
    {
        return fail(
            &c.file,
            Some(c.line),
            "config.chunks: the field 'uuid' (5.0+) or 'ns' (4.4) is missing or has the wrong type"
                .to_string(),
        );
    }
    if docs.collections.iter().any(|c| c.value.1) {
        return Ok(VersionMode::V80);
    }
    if docs
        .chunks
        .iter()
        .any(|c| c.value.on_current_shard_since.is_some())
    {
        return Ok(VersionMode::V70);
    }
    Ok(VersionMode::V50)
}

/// Whether chunk `c` belongs to the collection of `image`.
fn owns(docs: &MetadataDocs, image: &ImageCollection, c: &crate::engine::ChunkDoc) -> bool {
    match (&c.ns, &c.uuid) {
        (Some(ns), _) => *ns == image.ns,
        (None, Some(uuid)) => docs
            .collections
            .iter()
            .any(|d| d.value.0.id == image.ns && d.value.0.uuid == *uuid),
        (None, None) => false,
    }
}

/// One sharded collection with its chunks, checked to tile its key space, and its zones.
fn collection_image(
    docs: &MetadataDocs,
    coll: &Located<(crate::engine::CollectionDoc, bool)>,
) -> Result<ImageCollection, MetadataError> {
    let c = &coll.value.0;
    let pattern = KeyPattern::parse(&c.key).map_err(|e| MetadataError {
        file: coll.file.clone(),
        line: Some(coll.line),
        message: format!("the field 'key': {e}"),
    })?;
    let mut image = ImageCollection {
        ns: c.id.clone(),
        key: c.key.clone(),
        unique: c.unique,
        no_balance: c.no_balance == Some(true),
        chunks: Vec::new(),
        zones: Vec::new(),
    };
    let mut mine: Vec<(&Located<crate::engine::ChunkDoc>, _, _)> = Vec::new();
    for chunk in docs.chunks.iter().filter(|k| owns(docs, &image, &k.value)) {
        if !docs.shards.iter().any(|s| s.value.id == chunk.value.shard) {
            return fail(
                &chunk.file,
                Some(chunk.line),
                format!(
                    "the field 'shard': Shard {} not found in config.shards",
                    chunk.value.shard
                ),
            );
        }
        let bound = |d: &Document, field: &str| {
            image_bound(&pattern, d).map_err(|e| MetadataError {
                file: chunk.file.clone(),
                line: Some(chunk.line),
                message: format!("the field '{field}': {e}"),
            })
        };
        mine.push((
            chunk,
            bound(&chunk.value.min, "min")?,
            bound(&chunk.value.max, "max")?,
        ));
    }
    mine.sort_by(|a, b| a.1.cmp(&b.1));
    let ranges: Vec<_> = mine
        .iter()
        .map(|(_, a, b)| (a.clone(), b.clone()))
        .collect();
    if let Some(problem) = tiling_problem(&pattern, &ranges) {
        let err = crate::engine::tiling_error(&c.id, &pattern, &ranges, problem);
        let (file, lines) = match problem {
            TilingProblem::Gap(a, b) | TilingProblem::Overlap(a, b) => (
                mine[a].0.file.clone(),
                format!("lines {} and {}: ", mine[a].0.line, mine[b].0.line),
            ),
            TilingProblem::StartsLate(i)
            | TilingProblem::EndsEarly(i)
            | TilingProblem::Empty(i) => match mine.get(i) {
                Some(m) => (m.0.file.clone(), format!("line {}: ", m.0.line)),
                None => ("chunks.json".to_string(), String::new()),
            },
        };
        return fail(&file, None, format!("{lines}{}", err));
    }
    for (chunk, _, _) in &mine {
        let k = &chunk.value;
        image.chunks.push(ImageChunk {
            min: k.min.clone(),
            max: k.max.clone(),
            shard: k.shard.clone(),
            lastmod: k.lastmod,
            jumbo: k.jumbo,
        });
    }
    for tag in docs.tags.iter().filter(|t| t.value.ns == c.id) {
        image.zones.push(ImageZone {
            min: tag.value.min.clone(),
            max: tag.value.max.clone(),
            tag: tag.value.tag.clone(),
        });
    }
    Ok(image)
}

/// The replayable changelog entries, oldest first (by `time`, then as read).
fn docs_in_time_order(docs: &MetadataDocs) -> Vec<&Located<crate::engine::ChangelogDoc>> {
    let mut entries: Vec<_> = docs.changes.iter().collect();
    entries.sort_by_key(|e| e.value.time);
    entries
}

/// Undoes the changelog's entries on `image`'s chunks, newest first, until one cannot
/// be undone; answers where the replay starts and what it leaves out.
fn replay_window(image: &mut ClusterImage, docs: &MetadataDocs) -> (usize, Vec<SkippedChanges>) {
    let entries = docs_in_time_order(docs);
    let shard_names: Vec<String> = image.shards.iter().map(|s| s.id.clone()).collect();
    let mut lists: Vec<(KeyPattern, Vec<crate::engine::Chunk>)> = Vec::new();
    for coll in &image.collections {
        let Ok(pattern) = KeyPattern::parse(&coll.key) else {
            return (entries.len(), Vec::new());
        };
        let chunks = image_chunks(&pattern, coll, &shard_names);
        lists.push((pattern, chunks));
    }
    let mut first = entries.len();
    let mut stop: Option<String> = None;
    for (i, entry) in entries.iter().enumerate().rev() {
        let e = &entry.value;
        let Some(at) = image.collections.iter().position(|c| c.ns == e.ns) else {
            stop = Some(format!(
                "line {}: {} is not a sharded collection of the export",
                entry.line, e.ns
            ));
            break;
        };
        let (pattern, chunks) = &mut lists[at];
        let mut list = ChunkList {
            chunks: std::mem::take(chunks),
            pattern,
            shard_names: shard_names.clone(),
        };
        let undone = ChunkChange::read(pattern, &e.what, &e.details)
            .and_then(|c| c.map_or(Ok(()), |c| list.undo(&c)));
        *chunks = list.chunks;
        if let Err(why) = undone {
            stop = Some(format!("line {}: {}", entry.line, why));
            break;
        }
        first = i;
    }
    for (coll, (pattern, chunks)) in image.collections.iter_mut().zip(&lists) {
        coll.chunks = chunks
            .iter()
            .map(|c| ImageChunk {
                min: pattern.to_document(&c.min),
                max: pattern.to_document(&c.max),
                shard: shard_names
                    .get(c.shard as usize)
                    .cloned()
                    .unwrap_or_default(),
                lastmod: Timestamp {
                    time: c.version.major,
                    increment: c.version.minor,
                },
                jumbo: c.jumbo,
            })
            .collect();
    }
    let mut skipped = Vec::new();
    if let Some(reason) = stop {
        for entry in &entries[..first] {
            match skipped
                .iter_mut()
                .find(|s: &&mut SkippedChanges| s.what == entry.value.what)
            {
                Some(s) => s.count += 1,
                None => skipped.push(SkippedChanges {
                    what: entry.value.what.clone(),
                    count: 1,
                    reason: format!("before the replay ({reason})"),
                }),
            }
        }
    }
    (first, skipped)
}

/// A collection's chunks as the engine's, sorted (the image's bounds were checked).
fn image_chunks(
    pattern: &KeyPattern,
    coll: &ImageCollection,
    shard_names: &[String],
) -> Vec<crate::engine::Chunk> {
    let mut chunks: Vec<crate::engine::Chunk> = coll
        .chunks
        .iter()
        .filter_map(|c| {
            let shard = shard_names.iter().position(|s| *s == c.shard)? as u32;
            let mut chunk = crate::engine::Chunk::empty(
                image_bound(pattern, &c.min).ok()?,
                image_bound(pattern, &c.max).ok()?,
                shard,
                0,
            );
            chunk.version = crate::engine::ChunkVersion {
                major: c.lastmod.time,
                minor: c.lastmod.increment,
            };
            chunk.jumbo = c.jumbo;
            Some(chunk)
        })
        .collect();
    chunks.sort_by(|a, b| a.min.cmp(&b.min));
    chunks
}
