//! Turns the core's cluster into what the page draws: plain data, computed by pure
//! functions so they can be tested without a browser. Nothing here decides anything
//! about sharding; it only reads what the core decided.

use shardlab::cluster::Cluster;
use shardlab::events::EventKind;
use std::collections::BTreeMap;

/// One chunk as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkView {
    /// The lower bound in mongosh notation, such as `{ x: MinKey() }`.
    pub min: String,
    /// The upper bound in mongosh notation.
    pub max: String,
    /// True for the chunk starting at MinKey.
    pub is_min: bool,
    /// True for the chunk ending at MaxKey.
    pub is_max: bool,
    /// Documents in the chunk.
    pub docs: u64,
    /// Bytes in the chunk.
    pub bytes: u64,
    /// Whether the chunk is jumbo.
    pub jumbo: bool,
    /// Documents the chunk gained since the previous frame (its heat).
    pub gained: u64,
    /// The shard that held this chunk's range in the previous frame, if another one.
    pub arrived_from: Option<String>,
    /// Whether the chunk is new since the previous frame (a split piece).
    pub fresh: bool,
    /// Where the chunk starts and ends on the key-space bar, in [0, 1].
    pub span: (f64, f64),
    /// "Last modified" as mongosh prints it.
    pub version: String,
}

/// One shard as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardView {
    /// The shard's name.
    pub name: String,
    /// Its position in the cluster's shard list (stable; used for its colour).
    pub index: usize,
    /// Whether the shard is draining.
    pub draining: bool,
    /// Its zones.
    pub zones: Vec<String>,
    /// Its chunks of the shown collection, in key order.
    pub chunks: Vec<ChunkView>,
    /// Documents on the shard.
    pub docs: u64,
    /// Bytes on the shard.
    pub bytes: u64,
}

/// What one frame remembers of the previous one, to show heat, splits and arrivals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameMemory {
    /// Per chunk lower bound: (documents, shard).
    pub chunks: BTreeMap<String, (u64, String)>,
    /// The collection's insertion counter at that frame: later inserts are new.
    pub next_insert: u64,
}

/// The whole picture of one collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterView {
    /// The shards, in order.
    pub shards: Vec<ShardView>,
    /// Whether the collection is sharded.
    pub sharded: bool,
    /// Whether the key is hashed (the key-space bar is then the int64 hash space).
    pub hashed: bool,
    /// The shard key as mongosh prints it.
    pub key: String,
    /// Total documents.
    pub docs: u64,
    /// Total chunks.
    pub chunks: u64,
    /// Segments of the key-space bar: (start, end, shard index, chunk lower bound).
    pub bar: Vec<(f64, f64, usize, String)>,
    /// Where the latest inserts (up to 100) fall on the bar, in [0, 1], and whether each is
    /// new since the previous frame.
    pub ticks: Vec<(f64, bool)>,
    /// The collection's insertion counter.
    pub next_insert: u64,
}

impl ClusterView {
    /// What to remember for the next frame.
    pub fn memory(&self) -> FrameMemory {
        let mut chunks = BTreeMap::new();
        for s in &self.shards {
            for c in &s.chunks {
                chunks.insert(c.min.clone(), (c.docs, s.name.clone()));
            }
        }
        FrameMemory {
            chunks,
            next_insert: self.next_insert,
        }
    }
}

/// Where a hashed bound sits on the bar: the int64 hash space mapped to [0, 1].
fn hash_position(v: &bson::Bson) -> Option<f64> {
    match v {
        bson::Bson::MinKey => Some(0.0),
        bson::Bson::MaxKey => Some(1.0),
        bson::Bson::Int64(h) => {
            Some((*h as f64 + 9.223_372_036_854_776e18) / 1.844_674_407_370_955_2e19)
        }
        _ => None,
    }
}

/// Builds the picture of `ns` from the cluster, comparing with the previous frame.
pub fn cluster_view(cluster: &Cluster, ns: &str, previous: &FrameMemory) -> ClusterView {
    let mut shards: Vec<ShardView> = cluster
        .shards()
        .map(|(i, s)| ShardView {
            name: s.name.clone(),
            index: i as usize,
            draining: s.draining,
            zones: s.zones.iter().cloned().collect(),
            chunks: Vec::new(),
            docs: 0,
            bytes: 0,
        })
        .collect();
    let mut view = ClusterView::default();
    let Ok(sharding) = cluster.sharding(ns) else {
        if let Some(coll) = cluster.collection(ns) {
            view.docs = coll.doc_count();
            let primary = cluster.primary_of(ns) as usize;
            if let Some(s) = shards.iter_mut().find(|s| s.index == primary) {
                s.docs = coll.doc_count();
                s.bytes = coll.data_size();
            }
        }
        view.shards = shards;
        return view;
    };
    view.sharded = true;
    let hashed_idx = sharding.pattern.hashed_index();
    view.hashed = hashed_idx == Some(0);
    view.key = shardlab::shell::format_document(&sharding.pattern.to_pattern_document());
    // Ranged keys have no natural width, so each chunk gets a share of the bar that grows
    // with its documents; hashed keys use the real int64 hash space.
    let total_docs: u64 = sharding.table.iter().map(|c| c.docs).sum();
    let coll = cluster.collection(ns);
    let next_insert = coll.map_or(0, |c| c.next_insert());
    view.next_insert = next_insert;
    // Inserts since the previous frame; on the first frame (or after a jump back) none.
    let fresh_from = if previous.next_insert <= next_insert {
        previous.next_insert
    } else {
        next_insert
    };
    let window_start = next_insert.saturating_sub(100);
    // Each recent insert is placed in its chunk once, by the routing table's O(log n)
    // lookup, rather than testing every chunk against every insert.
    let mut per_chunk: BTreeMap<&shardlab::KeyValue, Vec<(u64, &shardlab::KeyValue)>> =
        BTreeMap::new();
    for (seq, key) in coll.into_iter().flat_map(|c| c.recent_inserts()) {
        if *seq < window_start.min(fresh_from) {
            continue;
        }
        if let Some(chunk) = sharding.table.chunk_for(key) {
            per_chunk.entry(&chunk.min).or_default().push((*seq, key));
        }
    }
    let n = sharding.table.len().max(1) as f64;
    let mut cursor = 0.0;
    let global_min = sharding.pattern.global_min();
    let global_max = sharding.pattern.global_max();
    for c in sharding.table.iter() {
        let min = sharding.bound_string(&c.min);
        let span = if view.hashed {
            let lo = hash_position(&c.min.0[0]).unwrap_or(cursor);
            let hi = hash_position(&c.max.0[0]).unwrap_or(lo);
            (lo, hi.max(lo))
        } else {
            let weight = 0.5 / n + 0.5 * (c.docs as f64 / total_docs.max(1) as f64);
            let span = (cursor, (cursor + weight).min(1.0));
            cursor += weight;
            span
        };
        let shard_name = cluster.shard_name(c.shard).to_string();
        let inserts = per_chunk.get(&c.min).map(Vec::as_slice).unwrap_or(&[]);
        let gained = inserts.iter().filter(|(seq, _)| *seq >= fresh_from).count() as u64;
        let (arrived_from, fresh) = match previous.chunks.get(&min) {
            Some((_, from)) => ((from != &shard_name).then(|| from.clone()), false),
            None => (None, !previous.chunks.is_empty()),
        };
        // Ticks for the latest 100 inserts that fall in this chunk.
        let mine: Vec<&(u64, &shardlab::KeyValue)> = inserts
            .iter()
            .filter(|(seq, _)| *seq >= window_start)
            .collect();
        for (i, (seq, k)) in mine.iter().enumerate() {
            let x = match (view.hashed, k.0.first().and_then(hash_position)) {
                (true, Some(x)) => x,
                _ => span.0 + (span.1 - span.0) * ((i as f64 + 0.5) / mine.len() as f64),
            };
            view.ticks.push((x, *seq >= fresh_from));
        }
        view.bar
            .push((span.0, span.1, c.shard as usize, min.clone()));
        let chunk = ChunkView {
            max: sharding.bound_string(&c.max),
            is_min: c.min == global_min,
            is_max: c.max == global_max,
            docs: c.docs,
            bytes: c.bytes,
            jumbo: c.jumbo,
            gained,
            arrived_from,
            fresh,
            span,
            version: format!(
                "Timestamp({{ t: {}, i: {} }})",
                c.version.major, c.version.minor
            ),
            min,
        };
        if let Some(s) = shards.iter_mut().find(|s| s.index == c.shard as usize) {
            s.docs += c.docs;
            s.bytes += c.bytes;
            s.chunks.push(chunk);
        }
        view.chunks += 1;
        view.docs += c.docs;
    }
    view.shards = shards;
    view
}

/// Inserts per shard over the events since `from` (an index into the event log).
pub fn inserts_per_shard(cluster: &Cluster, ns: &str, from: usize) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for e in cluster.events().iter().skip(from) {
        if let EventKind::Insert { ns: n, per_shard } = &e.kind {
            if n == ns {
                for (shard, count) in per_shard {
                    *out.entry(shard.clone()).or_insert(0) += count;
                }
            }
        }
    }
    out
}

/// A one-line description of an event for the timeline's log.
pub fn describe_event(kind: &EventKind, fmt_key: &dyn Fn(&shardlab::KeyValue) -> String) -> String {
    match kind {
        EventKind::Insert { per_shard, .. } => {
            let total: u64 = per_shard.iter().map(|(_, n)| n).sum();
            let parts: Vec<String> = per_shard.iter().map(|(s, n)| format!("{s} {n}")).collect();
            format!("inserted {total} ({})", parts.join(", "))
        }
        EventKind::Split {
            min, max, points, ..
        } => format!(
            "split [{}, {}) at {}",
            fmt_key(min),
            fmt_key(max),
            points.iter().map(fmt_key).collect::<Vec<_>>().join(", ")
        ),
        EventKind::MoveChunkStart { min, from, to, .. } => {
            format!("moving chunk at {} from {from} to {to}", fmt_key(min))
        }
        EventKind::MoveChunkCommit {
            min, max, from, to, ..
        } => {
            format!("moved [{}, {}) {from} → {to}", fmt_key(min), fmt_key(max))
        }
        EventKind::Jumbo { min, max, .. } => {
            format!("jumbo chunk [{}, {})", fmt_key(min), fmt_key(max))
        }
        EventKind::ShardCollection { ns, key } => format!("sharded {ns} on {key}"),
        EventKind::Merge { min, max, .. } => format!("merged [{}, {})", fmt_key(min), fmt_key(max)),
        EventKind::ClearJumbo { min, .. } => format!("cleared jumbo flag at {}", fmt_key(min)),
        EventKind::Refine { key, .. } => format!("refined the key to {key}"),
        EventKind::Reshard { key, .. } => format!("resharded on {key}"),
        EventKind::AddShard { shard } => format!("added {shard}"),
        EventKind::RemoveShardStart { shard } => format!("{shard} started draining"),
        EventKind::RemoveShard { shard } => format!("{shard} left the cluster"),
        EventKind::Zone { detail } => detail.clone(),
        EventKind::DocumentMoved { from, to, .. } => format!("a document moved {from} → {to}"),
        EventKind::Delete { count, .. } => format!("deleted {count}"),
    }
}

/// Formats a byte count as mongosh does (`B`, `KiB`, `MiB`, `GiB`).
pub fn human_bytes(bytes: u64) -> String {
    shardlab::session::status::data_format(bytes as f64)
}
