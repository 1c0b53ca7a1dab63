//! Turns the core's cluster into what the page draws: plain data, computed by pure
//! functions so they can be tested without a browser. Nothing here decides anything
//! about sharding; it only reads what the core decided.

use shardlab::engine::ChunkVersion;
use shardlab::engine::Cluster;
use shardlab::engine::EventKind;
use shardlab::KeyValue;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One chunk as drawn. Unchanged chunks keep the same `Rc<ChunkView>` from frame to frame,
/// so the page can tell in one pointer comparison that a block needs no redrawing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkView {
    /// The lower bound in mongosh notation, such as `{ x: MinKey() }`.
    pub min: Rc<str>,
    /// The upper bound in mongosh notation.
    pub max: Rc<str>,
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
    /// The chunk version (major, minor): "last modified" as `Timestamp({ t, i })`.
    pub version: (u32, u32),
}

impl ChunkView {
    /// "Last modified" as mongosh prints it.
    pub fn last_modified(&self) -> String {
        format!(
            "Timestamp({{ t: {}, i: {} }})",
            self.version.0, self.version.1
        )
    }

    /// Whether the block carries anything that lasts one frame only (heat, a split or an
    /// arrival), so that it must be drawn again even if the chunk stays the same.
    fn is_transient(&self) -> bool {
        self.gained > 0 || self.fresh || self.arrived_from.is_some()
    }
}

/// A shard's chunks in key order, shared between frames while none of them changed.
pub type ChunkList = Rc<[Rc<ChunkView>]>;

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
    /// Its chunks of the shown collection, in key order. The list keeps its `Rc` from frame
    /// to frame while none of its chunks changed, so comparing it is one pointer test.
    pub chunks: ChunkList,
    /// Documents on the shard.
    pub docs: u64,
    /// Bytes on the shard.
    pub bytes: u64,
}

/// What a frame remembers of one chunk: the core's own values, to compare with the next
/// frame without formatting anything, and what was drawn.
#[derive(Clone, Debug, PartialEq)]
struct Remembered {
    min: KeyValue,
    max: KeyValue,
    shard: u32,
    version: ChunkVersion,
    view: Rc<ChunkView>,
}

/// What one frame remembers of the previous one, to show heat, splits and arrivals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameMemory {
    /// The chunks in key order.
    chunks: Rc<Vec<Rc<Remembered>>>,
    /// Each shard's chunk list (by shard index), to be kept if nothing in it changed.
    lists: Rc<Vec<(usize, ChunkList)>>,
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
    /// Segments of the key-space bar, one per chunk in key order.
    pub bar: Vec<BarSegment>,
    /// Where the latest inserts (up to 100) fall on the bar, in [0, 1], and whether each is
    /// new since the previous frame.
    pub ticks: Vec<(f64, bool)>,
    /// The collection's insertion counter.
    pub next_insert: u64,
    /// This frame's chunks, for the next frame.
    remembered: Rc<Vec<Rc<Remembered>>>,
    /// This frame's chunk lists by shard index, for the next frame.
    lists: Rc<Vec<(usize, ChunkList)>>,
}

/// One chunk on the key-space bar.
#[derive(Clone, Debug, PartialEq)]
pub struct BarSegment {
    /// Where the chunk starts on the bar, in [0, 1].
    pub lo: f64,
    /// Where it ends.
    pub hi: f64,
    /// The index of its shard.
    pub shard: usize,
    /// Its lower bound in mongosh notation.
    pub min: Rc<str>,
    /// Documents it gained since the previous frame.
    pub gained: u64,
}

impl ClusterView {
    /// What to remember for the next frame.
    pub fn memory(&self) -> FrameMemory {
        FrameMemory {
            chunks: self.remembered.clone(),
            lists: self.lists.clone(),
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
///
/// Work per frame is proportional to what changed: a chunk the previous frame drew
/// identically (same bounds, shard, version and size, and no heat then or now) keeps its
/// `Rc<ChunkView>` and costs no formatting. The previous frame's chunks are walked in key
/// order beside the routing table, so matching them needs no lookup.
pub fn cluster_view(cluster: &Cluster, ns: &str, previous: &FrameMemory) -> ClusterView {
    let mut shards: Vec<ShardView> = cluster
        .shards()
        .map(|(i, s)| ShardView {
            name: s.name.clone(),
            index: i as usize,
            draining: s.draining,
            zones: s.zones.iter().cloned().collect(),
            chunks: Rc::from([]),
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
    // Where each shard index sits in `shards`.
    let mut slot: Vec<Option<usize>> = Vec::new();
    for (pos, s) in shards.iter().enumerate() {
        if slot.len() <= s.index {
            slot.resize(s.index + 1, None);
        }
        slot[s.index] = Some(pos);
    }
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
    // At most a hundred inserts land in at most a hundred chunks, so a short list keyed by
    // the chunk's identity does (a map would add another copy of the B-tree code).
    let mut per_chunk: Vec<(&KeyValue, Vec<(u64, KeyValue)>)> = Vec::new();
    let shown_from = window_start.min(fresh_from);
    for (seq, key) in coll
        .into_iter()
        .flat_map(|c| c.recent_inserts_from(shown_from))
    {
        if let Some(chunk) = sharding.table.chunk_for(&key) {
            match per_chunk
                .iter_mut()
                .find(|(min, _)| std::ptr::eq(*min, &chunk.min))
            {
                Some((_, list)) => list.push((seq, key)),
                None => per_chunk.push((&chunk.min, vec![(seq, key)])),
            }
        }
    }
    let n = sharding.table.len().max(1) as f64;
    let mut cursor = 0.0;
    let global_min = sharding.pattern.global_min();
    let global_max = sharding.pattern.global_max();
    let before: &[Rc<Remembered>] = &previous.chunks;
    let mut j = 0;
    let mut remembered = Vec::with_capacity(sharding.table.len());
    let mut lists: Vec<Vec<Rc<ChunkView>>> = vec![Vec::new(); shards.len()];
    view.bar.reserve(sharding.table.len());
    for c in sharding.table.iter() {
        let span = if view.hashed {
            let lo = hash_position(&c.min.0[0]).unwrap_or(cursor);
            let hi = hash_position(&c.max.0[0]).unwrap_or(lo);
            (lo, hi.max(lo))
        } else {
            // Half the strip is shared equally, half by documents; with no documents
            // yet, all of it is shared equally, so the chunks still fill the strip.
            let weight = if total_docs == 0 {
                1.0 / n
            } else {
                0.5 / n + 0.5 * (c.docs as f64 / total_docs as f64)
            };
            let span = (cursor, (cursor + weight).min(1.0));
            cursor += weight;
            span
        };
        let inserts = per_chunk
            .iter()
            .find(|(min, _)| std::ptr::eq(*min, &c.min))
            .map_or(&[][..], |(_, list)| list.as_slice());
        let gained = inserts.iter().filter(|(seq, _)| *seq >= fresh_from).count() as u64;
        // The previous frame's chunk with the same lower bound, if any (one comparison per
        // chunk when the bounds stayed put, which is most of them).
        let mut prior = None;
        while let Some(p) = before.get(j) {
            match p.min.cmp(&c.min) {
                std::cmp::Ordering::Less => j += 1,
                std::cmp::Ordering::Equal => {
                    prior = Some(p);
                    break;
                }
                std::cmp::Ordering::Greater => break,
            }
        }
        let unchanged = prior.filter(|p| {
            gained == 0
                && !p.view.is_transient()
                && p.shard == c.shard
                && p.version == c.version
                && p.view.docs == c.docs
                && p.view.bytes == c.bytes
                && p.view.jumbo == c.jumbo
                && p.max == c.max
        });
        let entry = match unchanged {
            Some(p) => p.clone(),
            None => {
                let (arrived_from, fresh) = match prior {
                    Some(p) => (
                        (p.shard != c.shard).then(|| cluster.shard_name(p.shard).to_string()),
                        false,
                    ),
                    None => (None, !before.is_empty()),
                };
                let min = match prior {
                    Some(p) => p.view.min.clone(),
                    None => Rc::from(sharding.bound_string(&c.min)),
                };
                let max = match prior.filter(|p| p.max == c.max) {
                    Some(p) => p.view.max.clone(),
                    None => Rc::from(sharding.bound_string(&c.max)),
                };
                Rc::new(Remembered {
                    min: c.min.clone(),
                    max: c.max.clone(),
                    shard: c.shard,
                    version: c.version,
                    view: Rc::new(ChunkView {
                        min,
                        max,
                        is_min: c.min == global_min,
                        is_max: c.max == global_max,
                        docs: c.docs,
                        bytes: c.bytes,
                        jumbo: c.jumbo,
                        gained,
                        arrived_from,
                        fresh,
                        version: (c.version.major, c.version.minor),
                    }),
                })
            }
        };
        // Ticks for the latest 100 inserts that fall in this chunk.
        let mine: Vec<&(u64, KeyValue)> = inserts
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
        view.bar.push(BarSegment {
            lo: span.0,
            hi: span.1,
            shard: c.shard as usize,
            min: entry.view.min.clone(),
            gained,
        });
        if let Some(pos) = slot.get(c.shard as usize).copied().flatten() {
            shards[pos].docs += c.docs;
            shards[pos].bytes += c.bytes;
            lists[pos].push(entry.view.clone());
        }
        remembered.push(entry);
        view.chunks += 1;
        view.docs += c.docs;
    }
    view.remembered = Rc::new(remembered);
    for (s, list) in shards.iter_mut().zip(lists) {
        let prior = previous.lists.iter().find(|(i, _)| *i == s.index);
        s.chunks = match prior {
            Some((_, p))
                if p.len() == list.len() && p.iter().zip(&list).all(|(a, b)| Rc::ptr_eq(a, b)) =>
            {
                p.clone()
            }
            _ => list.into(),
        };
    }
    view.lists = Rc::new(shards.iter().map(|s| (s.index, s.chunks.clone())).collect());
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
    shardlab::session::data_format(bytes as f64)
}
