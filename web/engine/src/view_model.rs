//! Turns the core's cluster into what the page draws: plain data, computed by pure
//! functions so they can be tested without a browser. Nothing here decides anything
//! about sharding; it only reads what the core decided.

use shardlab::engine::{Chunk, ChunkVersion, Cluster, RoutingTable, Sharding};
use shardlab::KeyValue;
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
    /// The lower bound as a key value, to name the chunk to the core (the inspector).
    pub key: KeyValue,
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
    /// The collection and shard key that frame drew: a frame of another collection or key
    /// remembers nothing of it (the same bounds, `{x: MinKey}` and `{userId: MinKey}`,
    /// hold the same values).
    drawn_for: (String, String),
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
    /// The document behind each of `ticks`: its insertion number and shard key.
    pub tick_docs: Vec<(u64, KeyValue)>,
    /// The collection's insertion counter.
    pub next_insert: u64,
    /// The collection drawn.
    pub ns: String,
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
    /// The chunk as drawn in its shard's column.
    pub chunk: Rc<ChunkView>,
}

impl ClusterView {
    /// What to remember for the next frame.
    pub fn memory(&self) -> FrameMemory {
        FrameMemory {
            chunks: self.remembered.clone(),
            lists: self.lists.clone(),
            next_insert: self.next_insert,
            drawn_for: (self.ns.clone(), self.key.clone()),
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
    let mut shards = shard_views(cluster);
    let Ok(sharding) = cluster.sharding(ns) else {
        return unsharded_view(cluster, ns, shards);
    };
    // Where each shard index sits in `shards`.
    let mut slot: Vec<Option<usize>> = Vec::new();
    for (pos, s) in shards.iter().enumerate() {
        if slot.len() <= s.index {
            slot.resize(s.index + 1, None);
        }
        slot[s.index] = Some(pos);
    }
    let key = shardlab::shell::format_document(&sharding.pattern.to_pattern_document());
    let forgotten = FrameMemory::default();
    let previous = if previous.drawn_for.0 == ns && previous.drawn_for.1 == key {
        previous
    } else {
        &forgotten
    };
    let coll = cluster.collection(ns);
    let next_insert = coll.map_or(0, |c| c.next_insert());
    let mut frame = Frame::new(cluster, sharding, previous, next_insert);
    let shown_from = frame.window_start.min(frame.fresh_from);
    let recent = coll
        .into_iter()
        .flat_map(|c| c.recent_inserts_from(shown_from));
    let per_chunk = recent_by_chunk(recent, &sharding.table);
    let mut view = ClusterView {
        sharded: true,
        hashed: frame.hashed,
        key,
        ns: ns.to_string(),
        next_insert,
        ..ClusterView::default()
    };
    let mut remembered = Vec::with_capacity(sharding.table.len());
    let mut lists: Vec<Vec<Rc<ChunkView>>> = vec![Vec::new(); shards.len()];
    view.bar.reserve(sharding.table.len());
    for c in sharding.table.iter() {
        let span = frame.span(c);
        let inserts = per_chunk
            .iter()
            .find(|(min, _)| std::ptr::eq(*min, &c.min))
            .map_or(&[][..], |(_, list)| list.as_slice());
        let gained = inserts
            .iter()
            .filter(|(seq, _)| *seq >= frame.fresh_from)
            .count() as u64;
        let entry = frame.entry(c, gained);
        frame.ticks(&mut view, inserts, span);
        view.bar.push(BarSegment {
            lo: span.0,
            hi: span.1,
            shard: c.shard as usize,
            min: entry.view.min.clone(),
            gained,
            chunk: entry.view.clone(),
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
        s.chunks = keep_list(previous, s.index, list);
    }
    view.lists = Rc::new(shards.iter().map(|s| (s.index, s.chunks.clone())).collect());
    view.shards = shards;
    view
}

/// The cluster's live shards, with no chunks or documents yet.
fn shard_views(cluster: &Cluster) -> Vec<ShardView> {
    cluster
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
        .collect()
}

/// The picture of a collection that is not sharded: its documents on its primary shard.
fn unsharded_view(cluster: &Cluster, ns: &str, mut shards: Vec<ShardView>) -> ClusterView {
    let mut view = ClusterView {
        ns: ns.to_string(),
        ..ClusterView::default()
    };
    if let Some(coll) = cluster.collection(ns) {
        view.docs = coll.doc_count();
        let primary = cluster.primary_of(ns) as usize;
        if let Some(s) = shards.iter_mut().find(|s| s.index == primary) {
            s.docs = coll.doc_count();
            s.bytes = coll.data_size();
        }
    }
    view.shards = shards;
    view
}

/// The `recent` inserts (insertion number and shard key), grouped by the chunk they fall in
/// (named by its lower bound in the routing table).
///
/// Each insert is placed in its chunk once, by the routing table's O(log n) lookup, rather
/// than testing every chunk against every insert. At most a hundred inserts land in at
/// most a hundred chunks, so a short list keyed by the chunk's identity does (a map would
/// add another copy of the B-tree code).
fn recent_by_chunk(
    recent: impl Iterator<Item = (u64, KeyValue)>,
    table: &RoutingTable,
) -> Vec<(&KeyValue, Vec<(u64, KeyValue)>)> {
    let mut per_chunk: Vec<(&KeyValue, Vec<(u64, KeyValue)>)> = Vec::new();
    for (seq, key) in recent {
        if let Some(chunk) = table.chunk_for(&key) {
            match per_chunk
                .iter_mut()
                .find(|(min, _)| std::ptr::eq(*min, &chunk.min))
            {
                Some((_, list)) => list.push((seq, key)),
                None => per_chunk.push((&chunk.min, vec![(seq, key)])),
            }
        }
    }
    per_chunk
}

/// A shard's chunk list: the previous frame's own `Rc` when it holds the same blocks, so
/// that the page can tell in one pointer test that the column needs no redrawing.
fn keep_list(previous: &FrameMemory, index: usize, list: Vec<Rc<ChunkView>>) -> ChunkList {
    let prior = previous.lists.iter().find(|(i, _)| *i == index);
    match prior {
        Some((_, p))
            if p.len() == list.len() && p.iter().zip(&list).all(|(a, b)| Rc::ptr_eq(a, b)) =>
        {
            p.clone()
        }
        _ => list.into(),
    }
}

/// What building one frame needs while it walks the routing table in key order.
struct Frame<'a> {
    cluster: &'a Cluster,
    sharding: &'a Sharding,
    /// The previous frame's chunks, in key order, and how far the walk has come in them.
    before: &'a [Rc<Remembered>],
    j: usize,
    /// Whether the key is hashed (the bar is then the int64 hash space).
    hashed: bool,
    /// Insertion numbers from here on are new since the previous frame.
    fresh_from: u64,
    /// Insertion numbers from here on are among the latest hundred.
    window_start: u64,
    /// Where the next ranged chunk starts on the bar.
    cursor: f64,
    /// The number of chunks, at least 1.
    n: f64,
    /// The documents in all chunks.
    total_docs: u64,
    global_min: KeyValue,
    global_max: KeyValue,
}

impl<'a> Frame<'a> {
    fn new(
        cluster: &'a Cluster,
        sharding: &'a Sharding,
        previous: &'a FrameMemory,
        next_insert: u64,
    ) -> Self {
        Frame {
            cluster,
            sharding,
            before: &previous.chunks,
            j: 0,
            hashed: sharding.pattern.hashed_index() == Some(0),
            // Inserts since the previous frame; on the first frame (or after a jump back)
            // none.
            fresh_from: if previous.next_insert <= next_insert {
                previous.next_insert
            } else {
                next_insert
            },
            window_start: next_insert.saturating_sub(100),
            cursor: 0.0,
            n: sharding.table.len().max(1) as f64,
            total_docs: sharding.table.iter().map(|c| c.docs).sum(),
            global_min: sharding.pattern.global_min(),
            global_max: sharding.pattern.global_max(),
        }
    }

    /// Where chunk `c` sits on the bar. Ranged keys have no natural width, so each chunk
    /// gets a share of the bar that grows with its documents; hashed keys use the real
    /// int64 hash space.
    fn span(&mut self, c: &Chunk) -> (f64, f64) {
        if self.hashed {
            let lo = hash_position(&c.min.0[0]).unwrap_or(self.cursor);
            let hi = hash_position(&c.max.0[0]).unwrap_or(lo);
            return (lo, hi.max(lo));
        }
        // Half the strip is shared equally, half by documents; with no documents yet, all
        // of it is shared equally, so the chunks still fill the strip.
        let weight = if self.total_docs == 0 {
            1.0 / self.n
        } else {
            0.5 / self.n + 0.5 * (c.docs as f64 / self.total_docs as f64)
        };
        let span = (self.cursor, (self.cursor + weight).min(1.0));
        self.cursor += weight;
        span
    }

    /// The previous frame's chunk with the same lower bound as `c`, if any (one comparison
    /// per chunk when the bounds stayed put, which is most of them).
    fn prior(&mut self, c: &Chunk) -> Option<&'a Rc<Remembered>> {
        let before = self.before;
        while let Some(p) = before.get(self.j) {
            match p.min.cmp(&c.min) {
                std::cmp::Ordering::Less => self.j += 1,
                std::cmp::Ordering::Equal => return Some(p),
                std::cmp::Ordering::Greater => return None,
            }
        }
        None
    }

    /// What this frame draws and remembers for chunk `c`, which gained `gained` documents:
    /// the previous frame's entry when nothing about the chunk changed, else a new one.
    fn entry(&mut self, c: &Chunk, gained: u64) -> Rc<Remembered> {
        let prior = self.prior(c);
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
        if let Some(p) = unchanged {
            return p.clone();
        }
        let (arrived_from, fresh) = match prior {
            Some(p) => (
                (p.shard != c.shard).then(|| self.cluster.shard_name(p.shard).to_string()),
                false,
            ),
            None => (None, !self.before.is_empty()),
        };
        let min = match prior {
            Some(p) => p.view.min.clone(),
            None => Rc::from(self.sharding.bound_string(&c.min)),
        };
        let max = match prior.filter(|p| p.max == c.max) {
            Some(p) => p.view.max.clone(),
            None => Rc::from(self.sharding.bound_string(&c.max)),
        };
        Rc::new(Remembered {
            min: c.min.clone(),
            max: c.max.clone(),
            shard: c.shard,
            version: c.version,
            view: Rc::new(ChunkView {
                min,
                max,
                is_min: c.min == self.global_min,
                is_max: c.max == self.global_max,
                docs: c.docs,
                bytes: c.bytes,
                jumbo: c.jumbo,
                gained,
                arrived_from,
                fresh,
                version: (c.version.major, c.version.minor),
                key: c.min.clone(),
            }),
        })
    }

    /// Adds to `ticks` the latest hundred inserts that fall in a chunk at `span`: at their
    /// hash on a hashed key, else spread evenly across the chunk.
    fn ticks(&self, view: &mut ClusterView, inserts: &[(u64, KeyValue)], span: (f64, f64)) {
        let mine: Vec<&(u64, KeyValue)> = inserts
            .iter()
            .filter(|(seq, _)| *seq >= self.window_start)
            .collect();
        for (i, (seq, k)) in mine.iter().enumerate() {
            let x = match (self.hashed, k.0.first().and_then(hash_position)) {
                (true, Some(x)) => x,
                _ => span.0 + (span.1 - span.0) * ((i as f64 + 0.5) / mine.len() as f64),
            };
            view.ticks.push((x, *seq >= self.fresh_from));
            view.tick_docs.push((*seq, k.clone()));
        }
    }
}

/// Formats a byte count as mongosh does (`B`, `KiB`, `MiB`, `GiB`).
pub fn human_bytes(bytes: u64) -> String {
    shardlab::session::data_format(bytes as f64)
}

/// A bound as mongosh prints it, shortened for a narrow block: an ObjectId keeps its last
/// five hex digits (`ObjectId('…e0bb9')`), and any other quoted value longer than 14
/// characters (a hashed `Long`, a long string) keeps its first 7 and last 4. The full text
/// goes in the block's tooltip. Nothing but quoted values changes, so the bound's shape
/// (fields, commas) stays readable and breaks only between values.
pub fn short_bound(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('\'') {
        let Some(len) = rest[open + 1..].find('\'') else {
            break;
        };
        let (before, quoted) = (&rest[..open], &rest[open + 1..open + 1 + len]);
        out.push_str(before);
        out.push('\'');
        let chars: Vec<char> = quoted.chars().collect();
        if before.ends_with("ObjectId(") && chars.len() > 6 {
            out.push('…');
            out.extend(&chars[chars.len() - 5..]);
        } else if chars.len() > 14 {
            out.extend(&chars[..7]);
            out.push('…');
            out.extend(&chars[chars.len() - 4..]);
        } else {
            out.push_str(quoted);
        }
        out.push('\'');
        rest = &rest[open + 1 + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the document inserted `seq`-th, with shard key `key`, sits on the key-space bar,
/// in [0, 1]: its tick when it is one of the latest inserts drawn, else the middle of the
/// chunk holding `key`.
pub fn bar_position(view: &ClusterView, key: &KeyValue, seq: u64) -> Option<f64> {
    if let Some(i) = view.tick_docs.iter().position(|(s, _)| *s == seq) {
        return view.ticks.get(i).map(|(x, _)| *x);
    }
    let i = view
        .bar
        .partition_point(|b| b.chunk.key <= *key)
        .checked_sub(1)?;
    view.bar.get(i).map(|b| (b.lo + b.hi) / 2.0)
}

/// A key value's handle for views: its canonical Extended JSON, lossless, so that
/// [`parse_key_handle`] gives back the same value.
pub fn key_handle(key: &KeyValue) -> String {
    shardlab::shell::to_canonical_ejson(&bson::Bson::Array(key.0.clone()))
}

/// The key value a view's handle names (see [`key_handle`]); `None` when the text is not
/// one (a view can send anything).
pub fn parse_key_handle(text: &str) -> Option<KeyValue> {
    match shardlab::shell::parse_ejson(text).ok()? {
        bson::Bson::Array(values) => Some(KeyValue(values)),
        _ => None,
    }
}
