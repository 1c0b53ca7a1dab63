//! The routing table: chunks `[min, max)` that cover a collection's key space (spec §5).

use crate::engine::store::DocKey;
use crate::keys::shard_key::KeyValue;
use bson::Bson;
use std::cell::OnceCell;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::ops::Bound;

pub use crate::engine::store::ShardIdx;

/// A chunk version as mongosh prints it in "last modified": `Timestamp({ t: major, i: minor })`.
/// Migrations bump the major version, splits the minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChunkVersion {
    /// Bumped by each migration.
    pub major: u32,
    /// Bumped by each split; reset by a migration.
    pub minor: u32,
}

/// One chunk: a key range on one shard, with the size of the documents inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The inclusive lower bound.
    pub min: KeyValue,
    /// The exclusive upper bound.
    pub max: KeyValue,
    /// The shard that owns the chunk.
    pub shard: ShardIdx,
    /// Set when the chunk could not be split.
    pub jumbo: bool,
    /// The chunk's version.
    pub version: ChunkVersion,
    /// Number of documents in the range.
    pub docs: u64,
    /// Total BSON size of those documents, in bytes.
    pub bytes: u64,
    /// Bytes inserted or updated into the chunk since it was created, moved, or last
    /// considered for an auto-split: MongoDB's `ChunkWritesTracker`. The 5.0 splitter looks
    /// at a chunk each time a fifth of the maximum chunk size has been written to it.
    pub written: u64,
}

impl Chunk {
    /// The chunk a merge makes of `run` (contiguous chunks, in order, all on `shard`): its
    /// bounds, their documents and bytes, at `version`, not jumbo and with nothing written
    /// since. `run` is not empty.
    pub fn merged(run: &[Chunk], shard: ShardIdx, version: ChunkVersion) -> Chunk {
        Chunk {
            min: run[0].min.clone(),
            max: run[run.len() - 1].max.clone(),
            shard,
            jumbo: false,
            version,
            docs: run.iter().map(|c| c.docs).sum(),
            bytes: run.iter().map(|c| c.bytes).sum(),
            written: 0,
        }
    }

    /// An empty chunk of a new routing table, at version 1.`minor`: what `shardCollection`,
    /// a pre-split and a reshard create.
    pub fn empty(min: KeyValue, max: KeyValue, shard: ShardIdx, minor: u32) -> Chunk {
        Chunk {
            min,
            max,
            shard,
            jumbo: false,
            version: ChunkVersion { major: 1, minor },
            docs: 0,
            bytes: 0,
            written: 0,
        }
    }
}

/// Chunks keyed by their lower bound. The invariant, checked by [`RoutingTable::check`], is
/// that they tile `[global min, global max)` with no gap and no overlap.
///
/// The table also keeps the collection version (the highest chunk version), so that splits
/// and migrations need not scan every chunk for it. Versions change only through
/// [`RoutingTable::replace`] and [`RoutingTable::set_version`], which keep it exact;
/// [`RoutingTable::check`] verifies it.
///
/// It keeps each shard's document count and data size, summed over its chunks, once they
/// are asked for (the 5.0 splitter reads them on every attempt): any change made through a
/// mutable chunk drops them, except an insert's, which reports itself; splits, merges
/// ([`RoutingTable::replace`]) and migrations (`RoutingTable::move_chunk`) keep them, so
/// that a stream of inserts, with the splits and migrations it brings, does not sum every
/// chunk again.
#[derive(Debug, Clone, Default)]
pub struct RoutingTable {
    chunks: BTreeMap<KeyValue, Chunk>,
    version: ChunkVersion,
    shard_totals: OnceCell<Vec<(u64, u64)>>,
    /// The lower bound of the top chunk (the one increasing keys all land in), so that
    /// routing an insert there takes one descent of the tree rather than two.
    top_min: Option<KeyValue>,
}

/// The version of a table without chunks.
const INITIAL_VERSION: ChunkVersion = ChunkVersion { major: 1, minor: 0 };

impl Default for ChunkVersion {
    fn default() -> Self {
        INITIAL_VERSION
    }
}

impl RoutingTable {
    /// A table with a single chunk covering the whole key space.
    pub fn single(min: KeyValue, max: KeyValue, shard: ShardIdx) -> Self {
        let mut chunks = BTreeMap::new();
        chunks.insert(
            min.clone(),
            Chunk::empty(min, max, shard, INITIAL_VERSION.minor),
        );
        let top_min = top_min(&chunks);
        RoutingTable {
            chunks,
            version: INITIAL_VERSION,
            shard_totals: OnceCell::new(),
            top_min,
        }
    }

    /// A table from chunks that tile the key space.
    pub fn from_chunks(chunks: Vec<Chunk>) -> Self {
        // Inserted one by one: collecting would instantiate a sort for this type.
        let mut by_min = BTreeMap::new();
        for c in chunks {
            by_min.insert(c.min.clone(), c);
        }
        let chunks = by_min;
        RoutingTable {
            version: max_version(&chunks),
            top_min: top_min(&chunks),
            chunks,
            shard_totals: OnceCell::new(),
        }
    }

    /// Sets the version of the chunk starting at `min` (a migration or `clearJumboFlag`
    /// gives it a new major version).
    pub fn set_version(&mut self, min: &KeyValue, version: ChunkVersion) {
        if let Some(c) = self.chunks.get_mut(min) {
            c.version = version;
            if version > self.version {
                self.version = version;
            } else if version < self.version {
                self.version = max_version(&self.chunks);
            }
        }
    }

    /// All chunks in key order, mutably (change versions with [`RoutingTable::set_version`]).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Chunk> {
        self.shard_totals.take();
        self.chunks.values_mut()
    }

    /// The chunk whose lower bound is exactly `min`.
    pub fn get(&self, min: &KeyValue) -> Option<&Chunk> {
        self.chunks.get(min)
    }

    /// The chunks overlapping `[min, max]` (both inclusive), in key order.
    pub fn overlapping<'a>(
        &'a self,
        min: &KeyValue,
        max: &'a KeyValue,
    ) -> impl Iterator<Item = &'a Chunk> + 'a {
        let start = self
            .chunks
            .range((Bound::Unbounded, Bound::Included(min)))
            .next_back()
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| min.clone());
        self.chunks
            .range((Bound::Included(start), Bound::Unbounded))
            .map(|(_, c)| c)
            .take_while(move |c| c.min <= *max)
    }

    /// The chunk containing `key`, in O(log n).
    pub fn chunk_for(&self, key: &KeyValue) -> Option<&Chunk> {
        // Increasing keys all land in the MaxKey chunk: check it before searching.
        if let Some((min, c)) = self.chunks.last_key_value() {
            if key_cmp(min, key) != Ordering::Greater {
                return Some(c);
            }
        }
        self.chunks
            .range((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .map(|(_, c)| c)
    }

    /// Mutable access to the chunk containing `key`.
    pub fn chunk_for_mut(&mut self, key: &KeyValue) -> Option<&mut Chunk> {
        self.shard_totals.take();
        if self
            .chunks
            .last_key_value()
            .is_some_and(|(min, _)| key_cmp(min, key) != Ordering::Greater)
        {
            return self.chunks.last_entry().map(|e| e.into_mut());
        }
        self.chunks
            .range_mut((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .map(|(_, c)| c)
    }

    /// Mutable access to the chunk containing the compact key `key`, for an insert. Only a
    /// key below the top chunk is written out as a `KeyValue` (in `scratch`'s vector,
    /// handed back) for the search. The caller reports the document it counts in the
    /// chunk with [`RoutingTable::note_insert`], which keeps the shard totals.
    pub(crate) fn chunk_for_doc_key_mut(
        &mut self,
        key: &DocKey,
        scratch: &mut Vec<Bson>,
    ) -> Option<&mut Chunk> {
        if self
            .top_min
            .as_ref()
            .is_some_and(|min| key.cmp_key(min) != Ordering::Less)
        {
            return self.chunks.last_entry().map(|e| e.into_mut());
        }
        let probe = key.to_key_in(std::mem::take(scratch));
        let chunk = self
            .chunks
            .range_mut((Bound::Unbounded, Bound::Included(&probe)))
            .next_back()
            .map(|(_, c)| c);
        *scratch = probe.0;
        chunk
    }

    /// If the chunk starting at `min` has had at least `threshold` bytes written to it
    /// since it was last considered for a split, starts that count over and returns the
    /// chunk as it is now (its documents are unchanged, so the shard totals stay).
    pub(crate) fn take_writes(&mut self, min: &KeyValue, threshold: u64) -> Option<Chunk> {
        let chunk = self
            .chunks
            .get_mut(min)
            .filter(|c| c.written >= threshold)?;
        chunk.written = 0;
        Some(chunk.clone())
    }

    /// Counts in the shard totals a document of `size` bytes that the caller counted in
    /// one of `shard`'s chunks (see [`RoutingTable::chunk_for_doc_key_mut`]).
    pub(crate) fn note_insert(&mut self, shard: ShardIdx, size: u64) {
        if let Some(t) = self
            .shard_totals
            .get_mut()
            .and_then(|totals| totals.get_mut(shard as usize))
        {
            t.0 += 1;
            t.1 += size;
        }
    }

    /// Adds `chunk`'s documents and bytes to its shard's kept totals (`add`), or takes
    /// them away, if the totals are kept.
    fn count_in_totals(&mut self, chunk: &Chunk, add: bool) {
        if let Some(totals) = self.shard_totals.get_mut() {
            count_in(totals, chunk, add);
        }
    }

    /// A migration's commit: gives the chunk starting at `min` to shard `to`, with its
    /// writes tracker started afresh (the recipient's routing table starts its own),
    /// keeping the shard totals. Returns the chunk as it is now.
    pub(crate) fn move_chunk(&mut self, min: &KeyValue, to: ShardIdx) -> Option<&Chunk> {
        let chunk = self.chunks.get_mut(min)?;
        let mut totals = self.shard_totals.get_mut();
        if let Some(t) = totals.as_deref_mut() {
            count_in(t, chunk, false);
        }
        chunk.shard = to;
        chunk.written = 0;
        if let Some(t) = totals {
            count_in(t, chunk, true);
        }
        Some(chunk)
    }

    /// `shard`'s document count and data size, summed over its chunks.
    pub fn shard_totals(&self, shard: ShardIdx) -> (u64, u64) {
        let totals = self.shard_totals.get_or_init(|| {
            let mut totals = Vec::new();
            for c in self.chunks.values() {
                let i = c.shard as usize;
                if totals.len() <= i {
                    totals.resize(i + 1, (0, 0));
                }
                totals[i].0 += c.docs;
                totals[i].1 += c.bytes;
            }
            totals
        });
        totals.get(shard as usize).copied().unwrap_or((0, 0))
    }

    /// The chunk whose lower bound is exactly `min`.
    pub fn get_mut(&mut self, min: &KeyValue) -> Option<&mut Chunk> {
        self.shard_totals.take();
        self.chunks.get_mut(min)
    }

    /// All chunks in key order.
    pub fn iter(&self) -> impl Iterator<Item = &Chunk> {
        self.chunks.values()
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// True when there are no chunks (never, for a sharded collection).
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The highest version of any chunk: the collection version (kept, not computed).
    pub fn collection_version(&self) -> ChunkVersion {
        self.version
    }

    /// Removes the chunk starting at `min` and inserts `pieces` in its place. The caller
    /// guarantees that the pieces tile the removed chunk's range.
    pub fn replace(&mut self, min: &KeyValue, pieces: Vec<Chunk>) {
        let removed = self.chunks.remove(min);
        if let Some(c) = &removed {
            self.count_in_totals(c, false);
        }
        let removed = removed.map(|c| c.version);
        let mut top = None;
        for p in pieces {
            top = top.max(Some(p.version));
            self.count_in_totals(&p, true);
            self.chunks.insert(p.min.clone(), p);
        }
        match top {
            Some(v) if v >= self.version => self.version = v,
            // Only removing the chunk holding the collection version can lower it.
            _ if removed == Some(self.version) => self.version = max_version(&self.chunks),
            _ => {}
        }
        self.top_min = top_min(&self.chunks);
    }

    /// Checks that the chunks tile `[min, max)` exactly. Returns a description of the
    /// first problem found.
    pub fn check(&self, min: &KeyValue, max: &KeyValue) -> Result<(), String> {
        let mut expected = min.clone();
        for (k, c) in &self.chunks {
            if *k != c.min {
                return Err(format!("chunk keyed {k:?} has min {:?}", c.min));
            }
            if c.min != expected {
                return Err(format!(
                    "gap or overlap at {:?}, expected {expected:?}",
                    c.min
                ));
            }
            if c.min >= c.max {
                return Err(format!("empty chunk at {:?}", c.min));
            }
            expected = c.max.clone();
        }
        if expected != *max {
            return Err(format!("chunks end at {expected:?}, not at the global max"));
        }
        if self.top_min != top_min(&self.chunks) {
            return Err(format!(
                "kept top bound {:?} is not the last chunk's",
                self.top_min
            ));
        }
        if let Some(kept) = self.shard_totals.get() {
            let fresh = RoutingTable {
                chunks: self.chunks.clone(),
                version: self.version,
                shard_totals: OnceCell::new(),
                top_min: None,
            };
            for (shard, totals) in kept.iter().enumerate() {
                if *totals != fresh.shard_totals(shard as ShardIdx) {
                    return Err(format!(
                        "shard {shard}'s kept totals {totals:?} are not its chunks'"
                    ));
                }
            }
        }
        if self.version != max_version(&self.chunks) {
            return Err(format!(
                "collection version {:?} is not the highest chunk version",
                self.version
            ));
        }
        Ok(())
    }
}

/// `a.cmp(b)`, with keys of one integer (what a stream of inserts is routed by) compared
/// directly rather than through the general BSON order.
fn key_cmp(a: &KeyValue, b: &KeyValue) -> Ordering {
    match (a.0.as_slice(), b.0.as_slice()) {
        ([Bson::Int64(x)], [Bson::Int64(y)]) => x.cmp(y),
        ([Bson::Int32(x)], [Bson::Int32(y)]) => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// The lower bound of the last chunk.
/// Adds `chunk`'s documents and bytes to its shard's entry of `totals` (`add`), or takes
/// them away. The totals hold every chunk's (see [`RoutingTable::check`]), so taking a
/// chunk's away leaves no entry below zero.
fn count_in(totals: &mut Vec<(u64, u64)>, chunk: &Chunk, add: bool) {
    let i = chunk.shard as usize;
    if totals.len() <= i {
        totals.resize(i + 1, (0, 0));
    }
    let t = &mut totals[i];
    if add {
        t.0 += chunk.docs;
        t.1 += chunk.bytes;
    } else {
        t.0 = t.0.saturating_sub(chunk.docs);
        t.1 = t.1.saturating_sub(chunk.bytes);
    }
}

fn top_min(chunks: &BTreeMap<KeyValue, Chunk>) -> Option<KeyValue> {
    chunks.last_key_value().map(|(min, _)| min.clone())
}

/// The highest version of any chunk, or the initial version without chunks.
fn max_version(chunks: &BTreeMap<KeyValue, Chunk>) -> ChunkVersion {
    chunks
        .values()
        .map(|c| c.version)
        .max()
        .unwrap_or(INITIAL_VERSION)
}
