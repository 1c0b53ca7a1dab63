//! A simulated sharded cluster: shards, sharded collections, their chunks and documents.
//!
//! Documents are stored for real, ordered by shard key, so that chunk sizes, counts and
//! split points come from data. A document lives on the shard that owns its chunk;
//! migrations are atomic, so there are no orphans.

use crate::chunks::{Chunk, ChunkVersion, RoutingTable, ShardIdx};
use crate::events::{Event, EventKind};
use crate::shard_key::{KeyPattern, KeyValue, ShardKeyError};
use bson::{Bson, Document};
use std::collections::BTreeMap;

/// Which MongoDB release's sharding behaviour the cluster follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionMode {
    /// 4.4/5.0: auto-split on, chunk-count balancer, 64 MB chunks.
    Legacy50,
    /// 6.0.3+ to 8.0: no auto-split, data-size balancer, 128 MB chunks.
    Modern80,
}

/// Settings a cluster is created with.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// Number of shards to start with.
    pub shards: u32,
    /// The behaviour era.
    pub version: VersionMode,
    /// The maximum chunk size in bytes.
    pub chunk_size: u64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            shards: 3,
            version: VersionMode::Legacy50,
            chunk_size: 64 * 1024 * 1024,
        }
    }
}

/// Errors from cluster operations, in MongoDB's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClusterError {
    /// The shard key pattern or a document's key was refused.
    #[error(transparent)]
    ShardKey(#[from] ShardKeyError),
    /// The namespace is already sharded.
    #[error("sharding already enabled for collection {0}")]
    AlreadySharded(String),
    /// The namespace is not sharded.
    #[error("Collection {0} is not sharded.")]
    NotSharded(String),
}

impl ClusterError {
    /// MongoDB's code name for this error.
    pub fn code_name(&self) -> &'static str {
        match self {
            ClusterError::ShardKey(e) => e.code_name(),
            ClusterError::AlreadySharded(_) => "AlreadyInitialized",
            ClusterError::NotSharded(_) => "NamespaceNotSharded",
        }
    }
}

/// A shard of the cluster.
#[derive(Debug, Clone)]
pub struct Shard {
    /// The shard's name, such as `shard01`.
    pub name: String,
}

/// A stored document: its bytes size and the document itself.
#[derive(Debug, Clone)]
struct Stored {
    size: u32,
    doc: Document,
}

/// A sharded collection.
#[derive(Debug, Clone)]
pub struct Collection {
    /// The shard key pattern.
    pub pattern: KeyPattern,
    /// The routing table.
    pub table: RoutingTable,
    /// Documents ordered by (shard key, insertion number). The insertion number keeps
    /// documents with equal keys apart and in arrival order.
    docs: BTreeMap<(KeyValue, u64), Stored>,
    next_doc: u64,
}

/// The whole simulated cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    config: ClusterConfig,
    shards: Vec<Shard>,
    collections: BTreeMap<String, Collection>,
    events: Vec<Event>,
}

impl Cluster {
    /// A new cluster with `config.shards` shards named `shard01`, `shard02`, ...
    pub fn new(config: ClusterConfig) -> Self {
        let shards = (1..=config.shards.max(1))
            .map(|i| Shard {
                name: format!("shard{i:02}"),
            })
            .collect();
        Cluster {
            config,
            shards,
            collections: BTreeMap::new(),
            events: Vec::new(),
        }
    }

    /// The shards, in order.
    pub fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// The configuration.
    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    /// The event log.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// A sharded collection by namespace.
    pub fn collection(&self, ns: &str) -> Option<&Collection> {
        self.collections.get(ns)
    }

    fn push_event(&mut self, kind: EventKind) {
        let seq = self.events.len() as u64 + 1;
        self.events.push(Event { seq, kind });
    }

    /// Shards a collection on `pattern`. The first chunk lives on the first shard
    /// (the database's primary).
    pub fn shard_collection(&mut self, ns: &str, pattern: &Document) -> Result<(), ClusterError> {
        if self.collections.contains_key(ns) {
            return Err(ClusterError::AlreadySharded(ns.to_string()));
        }
        let pattern = KeyPattern::parse(pattern)?;
        let table = RoutingTable::single(pattern.global_min(), pattern.global_max(), 0);
        self.push_event(EventKind::ShardCollection {
            ns: ns.to_string(),
            key: pattern.to_string(),
        });
        self.collections.insert(
            ns.to_string(),
            Collection {
                pattern,
                table,
                docs: BTreeMap::new(),
                next_doc: 0,
            },
        );
        Ok(())
    }

    /// Inserts documents, routing each to its chunk and splitting chunks that grow past
    /// the maximum chunk size. Returns how many were inserted; stops at the first error.
    pub fn insert_many(&mut self, ns: &str, docs: Vec<Document>) -> Result<u64, ClusterError> {
        let mut per_shard = vec![0u64; self.shards.len()];
        let mut inserted = 0;
        let mut result = Ok(());
        for doc in docs {
            match self.insert_one_inner(ns, doc) {
                Ok(shard) => {
                    per_shard[shard as usize] += 1;
                    inserted += 1;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if inserted > 0 {
            let per_shard = self
                .shards
                .iter()
                .zip(per_shard)
                .filter(|(_, n)| *n > 0)
                .map(|(s, n)| (s.name.clone(), n))
                .collect();
            self.push_event(EventKind::Insert {
                ns: ns.to_string(),
                per_shard,
            });
        }
        result.map(|()| inserted)
    }

    fn insert_one_inner(&mut self, ns: &str, doc: Document) -> Result<ShardIdx, ClusterError> {
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| ClusterError::NotSharded(ns.to_string()))?;
        let key = coll.pattern.extract(&doc)?;
        let size = bson_size(&doc);
        let chunk = coll
            .table
            .chunk_for_mut(&key)
            .expect("the routing table covers the whole key space");
        chunk.docs += 1;
        chunk.bytes += u64::from(size);
        let shard = chunk.shard;
        let needs_split = chunk.bytes > self.config.chunk_size && !chunk.jumbo;
        let chunk_min = chunk.min.clone();
        let seq = coll.next_doc;
        coll.next_doc += 1;
        coll.docs.insert((key, seq), Stored { size, doc });
        if needs_split && self.config.version == VersionMode::Legacy50 {
            self.auto_split(ns, &chunk_min);
        }
        Ok(shard)
    }

    /// Splits the chunk starting at `min` as 5.0's auto-splitter would (spec §6).
    fn auto_split(&mut self, ns: &str, min: &KeyValue) {
        let Some(coll) = self.collections.get(ns) else {
            return;
        };
        let Some(chunk) = coll.table.iter().find(|c| c.min == *min).cloned() else {
            return;
        };
        let keys: Vec<(&KeyValue, u32)> = coll
            .docs
            .range((chunk.min.clone(), 0)..(chunk.max.clone(), 0))
            .map(|((k, _), s)| (k, s.size))
            .collect();
        let mut points = split_points(&keys, self.config.chunk_size);
        let ordered = !coll.pattern.is_hashed();
        let global_min = coll.pattern.global_min();
        let global_max = coll.pattern.global_max();
        // Top-chunk optimisation (5.0 chunk_splitter): a chunk at either end of the key space
        // is likely to keep receiving inserts, so the cut is made next to its extreme key:
        // the second smallest key for the chunk starting at MinKey, else the largest key for
        // the chunk ending at MaxKey.
        if ordered && !points.is_empty() {
            if chunk.min == global_min {
                if let Some(second) = distinct_keys(&keys).nth(1) {
                    points[0] = second.clone();
                }
            } else if chunk.max == global_max {
                if let Some((last, _)) = keys.last() {
                    if **last != chunk.min {
                        let n = points.len();
                        points[n - 1] = (*last).clone();
                    }
                }
            }
            points.sort();
            points.dedup();
        }
        if points.is_empty() {
            self.mark_jumbo(ns, &chunk);
            return;
        }
        self.apply_split(ns, &chunk, &points);
        // After the split, MongoDB (split_chunk.cpp) moves the back piece if it ends at MaxKey
        // and holds a single document, else the front piece if it starts at MinKey and holds
        // a single document, so that the hot spot does not stay on one shard.
        if ordered {
            let back_min = points[points.len() - 1].clone();
            let front_min = chunk.min.clone();
            let single = |cluster: &Cluster, min: &KeyValue| {
                cluster
                    .collections
                    .get(ns)
                    .and_then(|c| c.table.chunk_for(min))
                    .is_some_and(|c| c.docs == 1)
            };
            if chunk.max == global_max && single(self, &back_min) {
                self.move_top_chunk(ns, &back_min);
            } else if chunk.min == global_min && single(self, &front_min) {
                self.move_top_chunk(ns, &front_min);
            }
        }
    }

    fn mark_jumbo(&mut self, ns: &str, chunk: &Chunk) {
        if let Some(c) = self
            .collections
            .get_mut(ns)
            .and_then(|c| c.table.get_mut(&chunk.min))
        {
            c.jumbo = true;
        }
        self.push_event(EventKind::Jumbo {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
        });
    }

    fn apply_split(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue]) {
        let Some(coll) = self.collections.get_mut(ns) else {
            return;
        };
        let mut version = coll.table.collection_version();
        let mut bounds = Vec::with_capacity(points.len() + 2);
        bounds.push(chunk.min.clone());
        bounds.extend(points.iter().cloned());
        bounds.push(chunk.max.clone());
        let pieces = bounds
            .windows(2)
            .map(|w| {
                version.minor += 1;
                let (docs, bytes) = coll
                    .docs
                    .range((w[0].clone(), 0)..(w[1].clone(), 0))
                    .fold((0u64, 0u64), |(n, b), (_, s)| {
                        (n + 1, b + u64::from(s.size))
                    });
                Chunk {
                    min: w[0].clone(),
                    max: w[1].clone(),
                    shard: chunk.shard,
                    jumbo: false,
                    version,
                    docs,
                    bytes,
                }
            })
            .collect();
        coll.table.replace(&chunk.min, pieces);
        self.push_event(EventKind::Split {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
            points: points.to_vec(),
        });
    }

    /// Moves a freshly split top or bottom chunk to the shard owning the fewest chunks of
    /// the collection, if that is another shard.
    fn move_top_chunk(&mut self, ns: &str, min: &KeyValue) {
        let Some(coll) = self.collections.get(ns) else {
            return;
        };
        let mut counts = vec![0u64; self.shards.len()];
        for c in coll.table.iter() {
            counts[c.shard as usize] += 1;
        }
        let Some(chunk) = coll.table.iter().find(|c| c.min == *min) else {
            return;
        };
        let from = chunk.shard;
        let to = (0..counts.len())
            .min_by_key(|&i| counts[i])
            .map(|i| i as ShardIdx)
            .unwrap_or(from);
        if to != from {
            self.move_chunk_inner(ns, min, to);
        }
    }

    fn move_chunk_inner(&mut self, ns: &str, min: &KeyValue, to: ShardIdx) {
        let Some(coll) = self.collections.get_mut(ns) else {
            return;
        };
        let mut version = coll.table.collection_version();
        version.major += 1;
        version.minor = 0;
        let Some(chunk) = coll.table.get_mut(min) else {
            return;
        };
        let from = chunk.shard;
        chunk.shard = to;
        chunk.version = version;
        let (cmin, cmax) = (chunk.min.clone(), chunk.max.clone());
        let (from, to) = (
            self.shards[from as usize].name.clone(),
            self.shards[to as usize].name.clone(),
        );
        self.push_event(EventKind::MoveChunkStart {
            ns: ns.to_string(),
            min: cmin.clone(),
            max: cmax.clone(),
            from: from.clone(),
            to: to.clone(),
        });
        self.push_event(EventKind::MoveChunkCommit {
            ns: ns.to_string(),
            min: cmin,
            max: cmax,
            from,
            to,
        });
    }
}

/// Distinct keys in order.
fn distinct_keys<'a>(keys: &'a [(&'a KeyValue, u32)]) -> impl Iterator<Item = &'a KeyValue> + 'a {
    let mut prev: Option<&KeyValue> = None;
    keys.iter().filter_map(move |(k, _)| {
        if prev == Some(*k) {
            None
        } else {
            prev = Some(*k);
            Some(*k)
        }
    })
}

/// Chooses split points as 5.0's `autoSplitVector` does (spec §6).
///
/// `keys` are the chunk's keys in order with each document's size. Nothing is split unless
/// the chunk holds more than `max_size` bytes. Walking the keys, a piece is closed once it
/// holds `max_size / average document size` documents, at the next change of key value, so
/// a run of equal keys always stays in one chunk. If the last piece would hold under 80% of
/// a full piece, the last cut is moved so that the last two pieces are even.
pub fn split_points(keys: &[(&KeyValue, u32)], max_size: u64) -> Vec<KeyValue> {
    let total: u64 = keys.iter().map(|(_, s)| u64::from(*s)).sum();
    let n = keys.len();
    if n == 0 || total <= max_size {
        return Vec::new();
    }
    let avg = (total / n as u64).max(1);
    let max_docs = usize::try_from(max_size / avg).unwrap_or(usize::MAX).max(1);
    let boundary = |i: usize| i > 0 && i < n && keys[i].0 != keys[i - 1].0;
    let mut cuts: Vec<usize> = Vec::new();
    let mut piece_start = 0;
    for i in 1..n {
        if i - piece_start >= max_docs && boundary(i) {
            cuts.push(i);
            piece_start = i;
        }
    }
    if let Some(&last) = cuts.last() {
        if ((n - last) as f64) < 0.8 * max_docs as f64 {
            let prev = if cuts.len() >= 2 { cuts[cuts.len() - 2] } else { 0 };
            let mut mid = prev + (n - prev) / 2;
            while mid < n && !boundary(mid) {
                mid += 1;
            }
            if mid < n && mid > prev {
                cuts.pop();
                cuts.push(mid);
            }
        }
    }
    cuts.into_iter().map(|i| keys[i].0.clone()).collect()
}

/// The BSON size of a document in bytes.
pub fn bson_size(doc: &Document) -> u32 {
    doc.to_vec().map_or(0, |b| b.len() as u32)
}

/// Renders a value the way mongosh prints it in chunk ranges.
pub fn mongosh_value(v: &Bson) -> String {
    match v {
        Bson::MinKey => "MinKey()".into(),
        Bson::MaxKey => "MaxKey()".into(),
        Bson::Int64(n) => format!("Long('{n}')"),
        Bson::Int32(n) => n.to_string(),
        Bson::String(s) => format!("'{s}'"),
        Bson::Null => "null".into(),
        other => other.to_string(),
    }
}

impl Collection {
    /// Renders a key value as mongosh prints a chunk bound: `{ x: MinKey() }`.
    pub fn bound_string(&self, key: &KeyValue) -> String {
        let parts: Vec<String> = self
            .pattern
            .fields()
            .iter()
            .zip(&key.0)
            .map(|((n, _), v)| format!("{n}: {}", mongosh_value(v)))
            .collect();
        format!("{{ {} }}", parts.join(", "))
    }

    /// The stored documents in shard key order.
    pub fn documents(&self) -> impl Iterator<Item = &Document> {
        self.docs.values().map(|s| &s.doc)
    }

    /// The number of documents stored.
    pub fn doc_count(&self) -> u64 {
        self.docs.len() as u64
    }

    /// Checks the routing invariants: chunks tile the key space, and each chunk's count
    /// and size match the documents inside it.
    pub fn check(&self) -> Result<(), String> {
        self.table
            .check(&self.pattern.global_min(), &self.pattern.global_max())?;
        for c in self.table.iter() {
            let (n, b) = self
                .docs
                .range((c.min.clone(), 0)..(c.max.clone(), 0))
                .fold((0u64, 0u64), |(n, b), (_, s)| {
                    (n + 1, b + u64::from(s.size))
                });
            if n != c.docs || b != c.bytes {
                return Err(format!(
                    "chunk {:?} counts {}/{} but holds {n}/{b}",
                    c.min, c.docs, c.bytes
                ));
            }
        }
        Ok(())
    }
}

/// A chunk version rendered as mongosh prints "last modified".
pub fn version_string(v: ChunkVersion) -> String {
    format!("Timestamp({{ t: {}, i: {} }})", v.major, v.minor)
}
