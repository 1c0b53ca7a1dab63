//! Splitting and merging chunks (spec §6): 5.0's auto-split with the top-chunk rule,
//! jumbo marking, and the manual `splitAt`, `splitFind`, `mergeChunks` and `clearJumboFlag`.

use crate::engine::chunks::{Chunk, ChunkVersion, RoutingTable, ShardIdx};
use crate::engine::cluster::{
    hashed_split_points, ShardOptions, VersionMode, ZoneRange, SPLIT_TEST_FACTOR,
};
use crate::engine::cluster::{not_sharded, range_totals, Cluster, ClusterError, DocKey};
use crate::engine::events::EventKind;
use crate::keys::shard_key::{format_bson_obj, FieldKind, KeyPattern, KeyValue};
use crate::values::order::compare_values;
use bson::{Bson, Document};
use std::collections::BTreeMap;

/// At most this many of the last split points are recomputed when the last piece would be
/// small (`kMaxSplitPointsToReposition`).
const MAX_SPLIT_POINTS_TO_REPOSITION: usize = 3;

/// What `autoSplitVector` reads of the shard besides the chunk's keys: the collection's
/// document count and data size on the shard that owns the chunk (`numRecords` and
/// `dataSize` of the shard's local collection), and the maximum chunk size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SplitInput {
    pub(crate) shard_docs: u64,
    pub(crate) shard_bytes: u64,
    pub(crate) max_size: u64,
}

impl SplitInput {
    /// The documents a piece holds, `max size / (shard data / shard documents)`; `None`
    /// while the shard's data is under the maximum chunk size (nothing splits then).
    fn max_docs(&self) -> Option<i64> {
        if self.shard_bytes < self.max_size || self.shard_docs == 0 {
            return None;
        }
        let avg = (self.shard_bytes / self.shard_docs).max(1);
        Some(i64::try_from(self.max_size / avg).unwrap_or(i64::MAX))
    }
}

/// A chunk's keys in order, read by position: a slice, or a run of the document store's
/// leaves ([`crate::support::shared_map::Slices`]), which the splitter reads without copying.
pub(crate) trait KeyRun {
    /// The number of keys.
    fn len(&self) -> usize;
    /// The key at position `i` (below [`KeyRun::len`]).
    fn key(&self, i: usize) -> &DocKey;
    /// The first position at or after `from` whose key fails `pred`, for a `pred` that
    /// holds for a prefix of the keys.
    fn first_failing(&self, from: usize, pred: impl Fn(&DocKey) -> bool) -> usize {
        let (mut lo, mut hi) = (from, self.len().max(from));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.key(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// What [`KeyRun::key`] gives past the end (never read by the splitter).
const NO_KEY: &DocKey = &DocKey::Empty;

impl KeyRun for [&DocKey] {
    fn len(&self) -> usize {
        <[&DocKey]>::len(self)
    }
    fn key(&self, i: usize) -> &DocKey {
        self.get(i).copied().unwrap_or(NO_KEY)
    }
}

impl<V> KeyRun for crate::support::shared_map::Slices<'_, (DocKey, u64), V> {
    fn len(&self) -> usize {
        crate::support::shared_map::Slices::len(self)
    }
    fn key(&self, i: usize) -> &DocKey {
        self.get(i).map_or(NO_KEY, |((k, _), _)| k)
    }
}

/// A run of keys read from its end: what `autoSplitVector` scans when asked for the lower
/// bound of a range that ends at a given key (7.0 on, `forward: false`).
struct Backward<'a, K: KeyRun + ?Sized>(&'a K);

impl<K: KeyRun + ?Sized> KeyRun for Backward<'_, K> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn key(&self, i: usize) -> &DocKey {
        match self.0.len().checked_sub(i + 1) {
            Some(j) => self.0.key(j),
            None => NO_KEY,
        }
    }
}

/// `autoSplitVector`'s scan from position `i`, with `scanned` keys counted so far and the
/// last split point (or the scan's first key) at `last`: every key counts as scanned, and
/// a key is cut where the count reaches `per_piece` unless it equals the last split point;
/// the count then starts again from zero. Stops after the key where `cuts` reaches `max`
/// points. Returns the count after the last key scanned.
///
/// The count only grows between cuts, so the scan jumps straight to the key where it
/// reaches `per_piece`, and over a run of keys equal to the last point by a binary search
/// (the keys are sorted): a chunk of `n` keys costs `O(points · log n)`, not `O(n)`.
fn scan_for_cuts<K: KeyRun + ?Sized>(
    keys: &K,
    mut i: usize,
    mut scanned: i64,
    mut last: usize,
    per_piece: i64,
    cuts: &mut Vec<usize>,
    max: Option<usize>,
) -> i64 {
    let len = keys.len();
    while i < len {
        // Keys `i..i + skip` leave the count under `per_piece`.
        let skip = usize::try_from(per_piece - scanned - 1).unwrap_or(0);
        if skip >= len - i {
            return scanned + (len - i) as i64;
        }
        i += skip;
        scanned += skip as i64 + 1;
        let point = keys.key(last);
        if keys.key(i) == point {
            // The rest of the run equal to the last point counts, but is not cut.
            let end = keys.first_failing(i, |k| k == point);
            scanned += (end - i) as i64;
            if end >= len {
                return scanned - 1;
            }
            scanned -= 1;
            i = end;
            continue;
        }
        cuts.push(i);
        last = i;
        scanned = 0;
        i += 1;
        if max.is_some_and(|m| cuts.len() >= m) {
            break;
        }
    }
    scanned
}

/// Chooses split points as MongoDB 5.0's `autoSplitVector` does (spec §6), returning the
/// positions in `keys` (the chunk's keys in order) whose values are the split points.
///
/// - Nothing is split while the shard's data is under the maximum chunk size, nor when the
///   chunk's first and last keys are equal.
/// - `maxDocs = max size / (shard data / shard documents)`, in integers. The scan counts
///   the chunk's first key as scanned and takes the key where the count reaches `maxDocs`,
///   unless it equals the last split point (a run of equal keys stays in one chunk); the
///   count then starts again from zero.
/// - If the last piece holds fewer than 80% of `maxDocs`, the last (at most 3) split points
///   are recomputed with `maxDocs - (maxDocs - left) / (n + 1)` documents per piece, or,
///   when that would leave pieces under about 67% full, the last point is dropped.
/// - `limit` (what `moveRange` asks for) computes `limit + 1` points, then keeps `limit`.
pub(crate) fn auto_split_vector<K: KeyRun + ?Sized>(
    keys: &K,
    input: SplitInput,
    limit: Option<usize>,
) -> Vec<usize> {
    let len = keys.len();
    if len == 0 {
        return Vec::new();
    }
    let Some(max_docs) = input.max_docs() else {
        return Vec::new();
    };
    if keys.key(0) == keys.key(len - 1) {
        return Vec::new();
    }
    let mut cuts: Vec<usize> = Vec::new();
    // The chunk's first key has been read before the scan starts.
    let scanned = scan_for_cuts(keys, 1, 1, 0, max_docs, &mut cuts, limit.map(|l| l + 1));
    let last_piece_full = scanned as f64 >= max_docs as f64 * 0.8;
    if !last_piece_full && !cuts.is_empty() {
        let n = cuts.len().min(MAX_SPLIT_POINTS_TO_REPOSITION);
        let per_piece = max_docs - (max_docs - scanned) / (n as i64 + 1);
        if scanned < max_docs - per_piece {
            // Too few documents left over to even out: the last piece just grows.
            cuts.pop();
        } else {
            cuts.truncate(cuts.len() - n);
            // The new scan starts at the first key equal to the last kept split point (an
            // index scan from that value), or at the chunk's first key.
            let start = cuts.last().map_or(0, |&c| {
                let point = keys.key(c);
                keys.first_failing(0, |k| k < point)
            });
            let max = Some(cuts.len() + n);
            scan_for_cuts(keys, start, 0, start, per_piece, &mut cuts, max);
        }
    }
    if let Some(l) = limit {
        cuts.truncate(l);
    }
    cuts
}

impl Cluster {
    /// The collection's document count and data size on `shard`, read from its chunks, and
    /// the maximum chunk size `max_size`.
    fn split_input(&self, ns: &str, shard: ShardIdx, max_size: u64) -> Option<SplitInput> {
        let (shard_docs, shard_bytes) = self.sharding(ns).ok()?.table.shard_totals(shard);
        Some(SplitInput {
            shard_docs,
            shard_bytes,
            max_size,
        })
    }

    /// The split points `autoSplitVector` finds in `chunk` for a maximum chunk size of
    /// `max_size`, as key values.
    fn chunk_split_points(
        &self,
        ns: &str,
        chunk: &Chunk,
        max_size: u64,
        limit: Option<usize>,
    ) -> Option<Vec<KeyValue>> {
        let input = self.split_input(ns, chunk.shard, max_size)?;
        // The scan cuts nothing before `maxDocs` keys: a chunk with fewer documents (most
        // attempts, every fifth of a chunk size written) needs no scan at all.
        if input
            .max_docs()
            .is_none_or(|m| i64::try_from(chunk.docs).is_ok_and(|n| n < m))
        {
            return Some(Vec::new());
        }
        let coll = self.collections.get(ns)?;
        // The chunk's keys are read in place, by position: the scan reads only a few.
        let keys = crate::engine::store::range(&coll.docs, &chunk.min, &chunk.max).slices();
        let cuts = auto_split_vector(&keys, input, limit);
        Some(cuts.into_iter().map(|i| keys.key(i).to_key()).collect())
    }

    /// Looks at the chunk starting at `min` once a fifth of the maximum chunk size has been
    /// written to it, as 5.0's chunk splitter does: splits it at the points
    /// `autoSplitVector` finds (with the top-chunk rule for ordered keys), or marks it jumbo
    /// if it is over the maximum size and all its documents share one key value.
    pub(crate) fn maybe_auto_split(&mut self, ns: &str, min: &KeyValue) {
        let max_size = self.chunk_size_for(ns);
        let Ok(sharding) = self.sharding_mut(ns) else {
            return;
        };
        // An attempt, fruitful or not, starts the count of writes over.
        let Some(chunk) = sharding
            .table
            .take_writes(min, max_size / SPLIT_TEST_FACTOR)
        else {
            return;
        };
        let ordered = !sharding.pattern.is_hashed();
        let Some(coll) = self.collections.get(ns) else {
            return;
        };
        // Most attempts end here: a chunk holding fewer than `maxDocs` documents has no
        // split point, and one within the maximum size cannot be jumbo either.
        let splittable = self
            .split_input(ns, chunk.shard, max_size)
            .and_then(|input| input.max_docs())
            .is_some_and(|m| i64::try_from(chunk.docs).is_ok_and(|n| n >= m));
        if !splittable && chunk.bytes <= max_size {
            return;
        }
        // A chunk whose documents all share one key value has no split point: the first
        // and last entries of its range tell in O(log n). Past the maximum size it is jumbo.
        if coll.single_key_in(&chunk.min, &chunk.max) {
            if chunk.bytes > max_size {
                self.mark_jumbo(ns, &chunk);
            }
            return;
        }
        let Some(mut points) = self.chunk_split_points(ns, &chunk, max_size, None) else {
            return;
        };
        if points.is_empty() {
            return;
        }
        if ordered {
            self.top_chunk_points(ns, &chunk, &mut points);
        }
        self.apply_split(ns, &chunk, &points);
        self.mark_jumbo_pieces(ns, &chunk.min, &points, max_size);
        if ordered && self.balancer_enabled {
            self.move_single_document_end(ns, &chunk, &points);
        }
    }

    /// Top-chunk optimisation (5.0 chunk_splitter, `findExtremeKeyForShard`): a chunk at
    /// either end of an ordered key space is likely to keep receiving inserts, so its first
    /// split point becomes the key of the shard's second document (skipping one, so the new
    /// MinKey chunk holds a single document), or its last split point the key of the
    /// shard's last document. The chunk owns the shard's extreme documents.
    fn top_chunk_points(&self, ns: &str, chunk: &Chunk, points: &mut Vec<KeyValue>) {
        let Ok(sharding) = self.sharding(ns) else {
            return;
        };
        let coll = self.collections.get(ns);
        if chunk.min == sharding.pattern.global_min() {
            let second = coll.and_then(|c| {
                crate::engine::store::range(&c.docs, &chunk.min, &chunk.max)
                    .nth(1)
                    .map(|((k, _), _)| k.to_key())
            });
            if let Some(second) = second {
                points[0] = second;
            }
        } else if chunk.max == sharding.pattern.global_max() {
            let last = coll.and_then(|c| {
                crate::engine::store::range(&c.docs, &chunk.min, &chunk.max)
                    .next_back()
                    .map(|((k, _), _)| k.to_key())
            });
            if let (Some(last), Some(back)) = (last, points.last_mut()) {
                *back = last;
            }
        }
        points.sort();
        points.dedup();
    }

    /// A piece over the maximum size whose documents all share one key value has no split
    /// point of its own: it is jumbo from the start (spec §6). The pieces start at `first`
    /// and at each of `points`.
    fn mark_jumbo_pieces(
        &mut self,
        ns: &str,
        first: &KeyValue,
        points: &[KeyValue],
        max_size: u64,
    ) {
        for lo in std::iter::once(first).chain(points) {
            let piece = self
                .sharding(ns)
                .ok()
                .and_then(|s| s.table.get(lo))
                .filter(|p| p.bytes > max_size)
                .cloned();
            if let Some(piece) = piece {
                if self
                    .collections
                    .get(ns)
                    .is_some_and(|c| c.single_key_in(&piece.min, &piece.max))
                {
                    self.mark_jumbo(ns, &piece);
                }
            }
        }
    }

    /// After a split, the piece at the end of the key space moves to the least loaded shard,
    /// so the hot spot does not stay on one shard. 3.6's mongos moves what the shard's
    /// `splitChunk` suggests (split_chunk.cpp): the back piece if it ends at MaxKey and
    /// holds a single document, else the front piece if it starts at MinKey and holds a
    /// single document. 4.4/5.0's chunk splitter (chunk_splitter.cpp) moves the piece the
    /// top-chunk rule cut, whatever it holds: the one starting at MinKey when the chunk
    /// started there, else the one starting at the last split point when the chunk ended
    /// at MaxKey.
    fn move_single_document_end(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue]) {
        let Some(back_min) = points.last().cloned() else {
            return;
        };
        let Ok(sharding) = self.sharding(ns) else {
            return;
        };
        let (global_min, global_max) =
            (sharding.pattern.global_min(), sharding.pattern.global_max());
        let single = |cluster: &Cluster, min: &KeyValue| {
            cluster
                .sharding(ns)
                .ok()
                .and_then(|s| s.table.get(min))
                .is_some_and(|c| c.docs == 1)
        };
        let candidate = if self.version() != VersionMode::V36 {
            if chunk.min == global_min {
                Some(chunk.min.clone())
            } else {
                (chunk.max == global_max).then_some(back_min)
            }
        } else if chunk.max == global_max && single(self, &back_min) {
            Some(back_min)
        } else if chunk.min == global_min && single(self, &chunk.min) {
            Some(chunk.min.clone())
        } else {
            None
        };
        if let Some(min) = candidate {
            if self.sharding(ns).is_ok_and(|s| s.balancing) {
                self.rebalance_single_chunk(ns, &min);
            }
        }
    }

    /// Cuts a collection that was sharded with documents already in it into chunks of at
    /// most the maximum size, all on the primary shard: `shardCollection`'s initial split,
    /// with `autoSplitVector`'s points and no top-chunk rule.
    ///
    /// The cut is part of the collection's creation, not a split: 3.6's `createFirstChunks`
    /// and 5.0's `UnoptimizedSplitPolicy` ask the primary shard for split points and write
    /// the chunks they bound, numbered `1|0`, `1|1`, ... in key order
    /// (`generateShardCollectionInitialChunks`), and nothing is logged as a `split`.
    pub(crate) fn initial_split(&mut self, ns: &str) {
        let Ok(sharding) = self.sharding(ns) else {
            return;
        };
        let chunks: Vec<Chunk> = sharding.table.iter().cloned().collect();
        for chunk in chunks {
            let Some(points) = self.chunk_split_points(ns, &chunk, self.chunk_size_for(ns), None)
            else {
                continue;
            };
            if !points.is_empty() {
                self.cut_chunk(ns, &chunk, &points, chunk.version);
            }
        }
    }

    /// Marks `chunk` jumbo (once: a chunk already marked logs nothing).
    pub(crate) fn mark_jumbo(&mut self, ns: &str, chunk: &Chunk) {
        if let Ok(s) = self.sharding_mut(ns) {
            if let Some(c) = s.table.get_mut(&chunk.min) {
                if c.jumbo {
                    return;
                }
                c.jumbo = true;
            }
        }
        self.push_event(EventKind::Jumbo {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
        });
    }

    /// Replaces `chunk` by the pieces cut at `points`, each with a new minor version.
    pub(crate) fn apply_split(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue]) {
        self.split_chunk(ns, chunk, points, false);
    }

    /// [`Cluster::apply_split`] for a migration that moves part of a chunk: from 6.0
    /// `moveRange` sends the range and the config server cuts the chunk as it commits
    /// (`commitChunkMigration`), so 8.0 logs no `split`; earlier eras split first.
    pub(crate) fn apply_split_for_move(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue]) {
        let in_move = self.config.version >= VersionMode::V70;
        self.split_chunk(ns, chunk, points, in_move);
    }

    fn split_chunk(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue], in_move: bool) {
        let Ok(before) = self.sharding(ns).map(|s| s.table.collection_version()) else {
            return;
        };
        // The pieces take the minor versions after the collection version's.
        let first = ChunkVersion {
            minor: before.minor + 1,
            ..before
        };
        self.cut_chunk(ns, chunk, points, first);
        self.push_event(EventKind::Split {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
            points: points.to_vec(),
            version: before,
            in_move,
        });
    }

    /// Replaces `chunk` by the pieces cut at `points`, numbered from `first` on in key
    /// order (each piece the next minor version), each with its documents' totals.
    fn cut_chunk(&mut self, ns: &str, chunk: &Chunk, points: &[KeyValue], first: ChunkVersion) {
        let Some(coll) = self.collections.get_mut(ns) else {
            return;
        };
        let Some(sharding) = coll.sharding.as_mut() else {
            return;
        };
        let mut version = first;
        let mut bounds = Vec::with_capacity(points.len() + 2);
        bounds.push(chunk.min.clone());
        bounds.extend(points.iter().cloned());
        bounds.push(chunk.max.clone());
        // Each piece's count and size is summed from its documents, except the first's,
        // which is what is left of the chunk's (a chunk's totals are its documents',
        // `Cluster::check`): a split at the top of an ordered key space cuts a single
        // document off the top, so only that one is read.
        let mut rest = (chunk.docs, chunk.bytes);
        let mut totals = Vec::with_capacity(bounds.len() - 1);
        totals.push((0, 0));
        for w in bounds.windows(2).skip(1) {
            let (docs, bytes) = range_totals(&coll.docs, &w[0], &w[1]);
            rest = (rest.0.saturating_sub(docs), rest.1.saturating_sub(bytes));
            totals.push((docs, bytes));
        }
        totals[0] = rest;
        let pieces = bounds
            .windows(2)
            .zip(totals)
            .map(|(w, (docs, bytes))| {
                let piece = Chunk {
                    min: w[0].clone(),
                    max: w[1].clone(),
                    shard: chunk.shard,
                    jumbo: false,
                    version,
                    docs,
                    bytes,
                    written: 0,
                };
                version.minor += 1;
                piece
            })
            .collect();
        sharding.table.replace(&chunk.min, pieces);
    }

    /// `sh.splitAt(ns, key)`: splits the chunk containing `key` at exactly that key.
    pub fn split_at(&mut self, ns: &str, middle: &Document) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        // `cluster_split_cmd.cpp`: the point must be a whole shard key (`isShardKey`).
        let Some(key) = shard_key_bound(&sharding.pattern, middle) else {
            return Err(ClusterError::Errmsg(format!(
                "new split key {} is not valid for shard key pattern {}",
                format_bson_obj(middle),
                format_bson_obj(&sharding.pattern.to_pattern_document())
            )));
        };
        let chunk = sharding
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        if key == chunk.min || key == chunk.max {
            // mongos's split command refuses a key that is already a chunk boundary, which
            // is how it refuses MinKey and MaxKey too: the chunk found for MaxKey is the
            // last one, whose upper bound it is.
            return Err(ClusterError::Errmsg(format!(
                "new split key {} is a boundary key of existing chunk [{},{})",
                format_bson_obj(&sharding.pattern.to_document(&key)),
                format_bson_obj(&sharding.pattern.to_document(&chunk.min)),
                format_bson_obj(&sharding.pattern.to_document(&chunk.max)),
            )));
        }
        self.apply_split(ns, &chunk, &[key]);
        Ok(())
    }

    /// `sh.splitFind(ns, query)`: splits the chunk holding the document that `query`'s
    /// shard key value points to, at the median key of its documents.
    pub fn split_find(&mut self, ns: &str, query: &Document) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let key = chunk_query_key(&sharding.pattern, query)?;
        let chunk = sharding
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        self.split_at_median(ns, &chunk)
    }

    /// `{split: ns, bounds: [min, max]}`: splits the chunk whose bounds are exactly
    /// `[min, max)` at its median, with `cluster_split_cmd.cpp`'s checks: both bounds
    /// whole shard keys (`isShardKey`), then a chunk with those bounds.
    pub fn split_bounds(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
    ) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let pattern = &sharding.pattern;
        let (Some(lo), Some(hi)) = (shard_key_bound(pattern, min), shard_key_bound(pattern, max))
        else {
            return Err(ClusterError::Errmsg(format!(
                "shard key bounds [{},{}) are not valid for shard key pattern {}",
                format_bson_obj(min),
                format_bson_obj(max),
                format_bson_obj(&pattern.to_pattern_document())
            )));
        };
        let chunk = sharding
            .table
            .chunk_for(&lo)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        if chunk.min != lo || chunk.max != hi {
            // ChunkRange::toString: "[min, max)".
            return Err(ClusterError::Errmsg(format!(
                "no chunk found with the shard key bounds [{}, {})",
                format_bson_obj(&pattern.to_document(&lo)),
                format_bson_obj(&pattern.to_document(&hi))
            )));
        }
        self.split_at_median(ns, &chunk)
    }

    /// Splits `chunk` of `ns` at the median of its keys (`selectMedianKey`, splitVector
    /// with `force`), or answers that it cannot.
    fn split_at_median(&mut self, ns: &str, chunk: &Chunk) -> Result<(), ClusterError> {
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let keys = coll.keys_in(&chunk.min, &chunk.max);
        // The median that does not fall on the chunk's lower bound or inside a run of the
        // key it starts with.
        let mut idx = keys.len() / 2;
        while idx < keys.len() && (idx == 0 || keys[idx].0 == keys[idx - 1].0) {
            idx += 1;
        }
        let point = keys.get(idx).map(|(k, _)| k.to_key());
        drop(keys);
        match point {
            Some(p) if p != chunk.min => {
                self.apply_split(ns, chunk, &[p]);
                Ok(())
            }
            _ => Err(ClusterError::CannotSplit(
                "Unable to find median in chunk because chunk is indivisible.".to_string(),
            )),
        }
    }

    /// `mergeChunks`: merges the contiguous chunks of one shard exactly covering
    /// `[min, max)` into one chunk, with each era's checks and words.
    ///
    /// Every era's mongos (cluster_merge_chunks_cmd.cpp) checks that both bounds are shard
    /// keys and sends the command to the shard owning the chunk that holds `min`; that
    /// shard's chunks decide. 3.6's shard checks the range itself (merge_chunks_command
    /// .cpp, `mergeChunks`); 5.0's shard leaves it to the config server's
    /// `ShardingCatalogManager::commitChunksMerge` and wraps its refusal in "Failed to
    /// commit chunk merge"; 6.0 on, the shard first checks that it owns a run of chunks
    /// exactly filling the range (chunk_operation_precondition_checks.cpp,
    /// `checkRangeOwnership`), whose `StaleConfig` mongos returns once its retries are
    /// spent. From 5.0 a range that already is one chunk of that shard is a success that
    /// changes nothing.
    pub fn merge_chunks(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
    ) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        // `cluster_merge_chunks_cmd.cpp`: both bounds must be whole shard keys.
        let (Some(lo), Some(hi)) = (
            shard_key_bound(&sharding.pattern, min),
            shard_key_bound(&sharding.pattern, max),
        ) else {
            return Err(ClusterError::Errmsg(format!(
                "shard key bounds [{},{}) are not valid for shard key pattern {}",
                format_bson_obj(min),
                format_bson_obj(max),
                format_bson_obj(&sharding.pattern.to_pattern_document())
            )));
        };
        let shard = sharding
            .table
            .chunk_for(&lo)
            .map(|c| c.shard)
            .ok_or_else(|| not_sharded(ns))?;
        // The shard's own chunks, in key order: what its metadata holds.
        let own: Vec<&Chunk> = sharding.table.iter().filter(|c| c.shard == shard).collect();
        let check = MergeCheck {
            ns,
            pattern: &sharding.pattern,
            shard: self.shard_name(shard).to_string(),
            own: &own,
            lo: &lo,
            hi: &hi,
        };
        let chunks: Vec<Chunk> = match self.version() {
            VersionMode::V36 => check.shard_36()?,
            VersionMode::V50 => match check.config_server() {
                Err(e) => return Err(failed_to_commit_merge(e)),
                Ok(None) => return Ok(()),
                Ok(Some(chunks)) => chunks,
            },
            VersionMode::V70 | VersionMode::V80 => {
                check.range_ownership()?;
                match check.config_server().map_err(failed_to_commit_merge)? {
                    None => return Ok(()),
                    Some(chunks) => chunks,
                }
            }
        };
        let mut version = sharding.table.collection_version();
        version.minor += 1;
        let merged = Chunk::merged(&chunks, shard, version);
        let sharding = self.sharding_mut(ns)?;
        for c in &chunks[1..] {
            sharding.table.replace(&c.min, Vec::new());
        }
        sharding.table.replace(&lo, vec![merged]);
        self.push_event(EventKind::Merge {
            ns: ns.to_string(),
            min: lo,
            max: hi,
        });
        Ok(())
    }

    /// `clearJumboFlag`: clears the jumbo flag of the chunk containing the key of `find`.
    pub fn clear_jumbo_flag(&mut self, ns: &str, find: &Document) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        // `cluster_clear_jumbo_flag_cmd.cpp`: `find` must give the whole shard key (51260).
        let key = chunk_query_key(&sharding.pattern, find).map_err(|_| {
            ClusterError::Location51260(format!(
                "no shard key found in chunk query {}",
                format_bson_obj(find)
            ))
        })?;
        let min = sharding
            .table
            .chunk_for(&key)
            .map(|c| c.min.clone())
            .ok_or_else(|| not_sharded(ns))?;
        self.clear_jumbo_at(ns, min)
    }

    /// `clearJumboFlag` with `bounds: [min, max]`: the bounds must be exactly one chunk's
    /// (51261, `cluster_clear_jumbo_flag_cmd.cpp`). mongos normalizes the bounds without
    /// checking them, so a bound that is not a shard key finds no chunk.
    pub fn clear_jumbo_flag_bounds(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
    ) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let pattern = &sharding.pattern;
        let lo = shard_key_bound(pattern, min);
        let hi = shard_key_bound(pattern, max);
        let found = match (&lo, &hi) {
            (Some(lo), Some(hi)) => sharding.table.get(lo).filter(|c| c.max == *hi),
            _ => None,
        };
        let Some(chunk) = found else {
            let show = |k: &Option<KeyValue>, given: &Document| match k {
                Some(k) => format_bson_obj(&pattern.to_document(k)),
                None => format_bson_obj(given),
            };
            return Err(ClusterError::Location51261(format!(
                "no chunk found with the shard key bounds {}",
                format_range(&show(&lo, min), &show(&hi, max))
            )));
        };
        let min = chunk.min.clone();
        self.clear_jumbo_at(ns, min)
    }

    /// Clears the jumbo flag of the chunk starting at `min`.
    fn clear_jumbo_at(&mut self, ns: &str, min: KeyValue) -> Result<(), ClusterError> {
        // As MongoDB's `ShardingCatalogManager::clearJumboFlag`: a chunk that is not jumbo
        // is left alone (and the command succeeds); a jumbo chunk loses the flag and gets
        // the next major version of the collection.
        let sharding = self.sharding_mut(ns)?;
        let mut version = sharding.table.collection_version();
        version.major += 1;
        version.minor = 0;
        match sharding.table.get_mut(&min) {
            Some(c) if c.jumbo => c.jumbo = false,
            _ => return Ok(()),
        }
        sharding.table.set_version(&min, version);
        self.push_event(EventKind::ClearJumbo {
            ns: ns.to_string(),
            min,
        });
        Ok(())
    }

    /// Splits off the front of the chunk starting at `min` where `moveRange` with only a
    /// lower bound would end the range it moves: at the first split point
    /// `autoSplitVector` finds with a limit of one (for a maximum size of `max_size`).
    /// Returns the new piece's upper bound, or `None` if the whole chunk would move.
    pub(crate) fn split_front(
        &mut self,
        ns: &str,
        min: &KeyValue,
        max_size: u64,
    ) -> Option<KeyValue> {
        let chunk = self.sharding(ns).ok()?.table.get(min)?.clone();
        let point = self
            .chunk_split_points(ns, &chunk, max_size, Some(1))?
            .into_iter()
            .next()?;
        self.apply_split_for_move(ns, &chunk, std::slice::from_ref(&point));
        Some(point)
    }

    /// A chunk the donor refused as too big to move: split at the points `autoSplitVector`
    /// finds for `max_size`, or marked jumbo when it has none (balancer.cpp,
    /// `splitOrMarkJumbo`).
    pub(crate) fn split_or_mark_jumbo(&mut self, ns: &str, chunk: &Chunk, max_size: u64) {
        match self.chunk_split_points(ns, chunk, max_size, None) {
            Some(points) if !points.is_empty() => self.apply_split(ns, chunk, &points),
            _ => self.mark_jumbo(ns, chunk),
        }
    }

    /// The lower bound `moveRange` with only an upper bound `max` gives its range (7.0 on,
    /// migration_source_manager.cpp): in the chunk that ends at `max`, or else holds it
    /// (`getChunkForMaxBound`), the first split point `autoSplitVector` finds scanning
    /// back from `max` with a limit of one (`computeOtherBound`, `needMaxBound: false`),
    /// or the chunk's lower bound if there is none.
    pub(crate) fn lower_bound_for(
        &self,
        ns: &str,
        max: &KeyValue,
        max_size: u64,
    ) -> Option<KeyValue> {
        let table = &self.sharding(ns).ok()?.table;
        let chunk = table
            .iter()
            .find(|c| c.max == *max)
            .or_else(|| table.chunk_for(max))?;
        let input = self.split_input(ns, chunk.shard, max_size)?;
        let coll = self.collections.get(ns)?;
        let keys = crate::engine::store::range(&coll.docs, &chunk.min, max).slices();
        let back = Backward(&keys);
        let point = auto_split_vector(&back, input, Some(1))
            .first()
            .map(|&i| back.key(i).to_key());
        Some(point.unwrap_or_else(|| chunk.min.clone()))
    }
}

/// Reads a chunk bound given by the user (`{x: 5}`, `{"a.b": 1, c: MinKey()}`) as a key
/// value of `pattern`. Bounds are in key space: a hashed field's bound is the hash itself.
pub fn key_from_bound(pattern: &KeyPattern, bound: &Document) -> Result<KeyValue, ClusterError> {
    let mut values = Vec::with_capacity(pattern.len());
    for (field, _) in pattern.fields() {
        // A dotted field may be written as one key (`{"a.b": 1}`) or nested (`{a: {b: 1}}`).
        let value: Option<Bson> = bound
            .get(field)
            .or_else(|| crate::values::path::lookup_path(bound, field))
            .cloned();
        match value {
            Some(v) => values.push(v),
            None => {
                return Err(ClusterError::BadValue(format!(
                    "Bound {} is not valid for shard key pattern {}",
                    format_bson_obj(bound),
                    format_bson_obj(&pattern.to_pattern_document())
                )))
            }
        }
    }
    if bound.len() != pattern.len() {
        return Err(ClusterError::BadValue(format!(
            "Bound {} is not valid for shard key pattern {}",
            format_bson_obj(bound),
            format_bson_obj(&pattern.to_pattern_document())
        )));
    }
    Ok(KeyValue(values))
}

/// A chunk bound as MongoDB's `ShardKeyPattern::isShardKey` accepts it and
/// `normalizeShardKey` orders it: every field of the pattern by its full (dotted) name, in
/// any order, none an array, and no other field. `None` otherwise. Bounds are in key
/// space: a hashed field's bound is the hash itself.
pub fn shard_key_bound(pattern: &KeyPattern, bound: &Document) -> Option<KeyValue> {
    if bound.len() != pattern.len() {
        return None;
    }
    let mut values = Vec::with_capacity(pattern.len());
    for (field, _) in pattern.fields() {
        match bound.get(field)? {
            Bson::Array(_) => return None,
            v => values.push(v.clone()),
        }
    }
    Some(KeyValue(values))
}

/// The shard key a chunk command's `find` names, as mongos's `extractShardKeyFromQuery`
/// reads it: an equality on every shard key field (a dotted field by its dotted name), the
/// hashed one hashed. Without one, the `errmsg` of `cluster_move_chunk_cmd.cpp` and
/// `cluster_split_cmd.cpp`.
pub fn chunk_query_key(pattern: &KeyPattern, find: &Document) -> Result<KeyValue, ClusterError> {
    crate::engine::targeting::is_full_key_equality(pattern, find).ok_or_else(|| {
        ClusterError::Errmsg(format!(
            "no shard key found in chunk query {}",
            format_bson_obj(find)
        ))
    })
}

/// A chunk range as MongoDB prints it in messages: `[{ x: 1 }, { x: 5 })`.
pub fn format_range(min: &str, max: &str) -> String {
    format!("[{min}, {max})")
}

/// `presplitHashedZones`' rule for a zone of a key whose prefix is not hashed
/// (`PresplitHashedZonesSplitPolicy::_validate`): every lower-bound field before the
/// hashed field is neither MinKey nor MaxKey (31388), the bounds differ in one of those
/// fields (31390), the hashed field (31389) and every field after it (31391) are MinKey
/// in the lower bound.
fn check_presplit_zone(key: &KeyPattern, hashed: usize, z: &ZoneRange) -> Result<(), ClusterError> {
    let why = "One or more zones are not defined in a manner that supports hashed pre-splitting.";
    let zone = &z.zone;
    let mut prefix_differs = false;
    for i in 0..hashed {
        if matches!(z.min.0[i], Bson::MinKey | Bson::MaxKey) {
            return Err(ClusterError::Location31388(format!(
                "{why} Cannot have MinKey or MaxKey in the lower bound for fields preceding the hashed field but found one, for zone {zone}"
            )));
        }
        prefix_differs |= compare_values(&z.min.0[i], &z.max.0[i]).is_ne();
    }
    if !prefix_differs {
        return Err(ClusterError::Location31390(format!(
            "{why} The value preceding hashed field of the upper bound should be greater than that of lower bound, for zone {zone}"
        )));
    }
    if z.min.0[hashed] != Bson::MinKey {
        return Err(ClusterError::Location31389(format!(
            "{why} The hashed field value for lower bound must be MinKey, for zone {zone}"
        )));
    }
    if z.min.0[hashed + 1..key.len()]
        .iter()
        .any(|v| *v != Bson::MinKey)
    {
        return Err(ClusterError::Location31391(format!(
            "{why} The fields after the hashed field must have MinKey value, for zone {zone}"
        )));
    }
    Ok(())
}

/// A zone's shards, and how many chunks of the zone go to each (in the shards' order).
type ZoneShares = Vec<(ShardIdx, usize)>;

impl Cluster {
    /// The zone ranges set on `ns` before sharding, as ranges of `key`, after
    /// `shardkeyutil::validateShardKeyAgainstExistingZones`: each must name exactly the
    /// key's fields, in order, and a hashed field's bounds must be NumberLong, MinKey or
    /// MaxKey.
    pub(crate) fn zones_for_new_key(
        &self,
        ns: &str,
        pattern: &Document,
        key: &KeyPattern,
    ) -> Result<Vec<ZoneRange>, ClusterError> {
        let Some(pending) = self.pending_zones.get(ns) else {
            return Ok(Vec::new());
        };
        let proposed = format_bson_obj(pattern);
        let mut zones = Vec::with_capacity(pending.len());
        for z in pending {
            let range = format!(
                "{} -->> {}",
                format_bson_obj(&z.min),
                format_bson_obj(&z.max)
            );
            let mut maxes = z.max.iter();
            for (i, (name, value)) in z.min.iter().enumerate() {
                let Some((field, kind)) = key.fields().get(i) else {
                    break;
                };
                if maxes.next().map(|(n, _)| n) != Some(name) {
                    return Err(ClusterError::InvalidOptions(format!(
                        "the min and max of the existing zone {range} have non-matching keys"
                    )));
                }
                let last_of_both = (i + 1 == z.min.len()) == (i + 1 == key.len());
                if name != field || !last_of_both {
                    return Err(ClusterError::InvalidOptions(format!(
                        "the proposed shard key {proposed} does not match with the shard key of the existing zone {range}"
                    )));
                }
                let valid_hash = |v: Option<&Bson>| {
                    matches!(v, Some(Bson::Int64(_) | Bson::MinKey | Bson::MaxKey))
                };
                if *kind == FieldKind::Hashed
                    && !(valid_hash(Some(value)) && valid_hash(z.max.get(name)))
                {
                    return Err(ClusterError::InvalidOptions(format!(
                        "cannot do hash sharding with the proposed key {proposed} because there exists a zone {range} whose boundaries are not of type NumberLong, MinKey or MaxKey"
                    )));
                }
            }
            zones.push(ZoneRange {
                min: KeyValue(z.min.values().cloned().collect()),
                max: KeyValue(z.max.values().cloned().collect()),
                zone: z.zone.clone(),
            });
        }
        Ok(zones)
    }

    /// The first chunks of a collection being sharded, as the era's
    /// `InitialSplitPolicy::calculateOptimizationStrategy` picks them.
    pub(crate) fn initial_table(
        &self,
        ns: &str,
        key: &KeyPattern,
        empty: bool,
        options: &ShardOptions,
        zones: &[ZoneRange],
        primary: ShardIdx,
    ) -> Result<RoutingTable, ClusterError> {
        let version = self.version();
        // 3.6 has neither option's checks (it ignores `numInitialChunks` without a hashed
        // key, and knows no `presplitHashedZones`); 8.0 ignores `numInitialChunks`.
        let n = match version {
            VersionMode::V70 | VersionMode::V80 => None,
            _ => options.num_initial_chunks.filter(|&n| n > 0),
        };
        let presplit = options.presplit_hashed_zones && version != VersionMode::V36;
        if version == VersionMode::V50 && n.is_some() {
            if !(key.is_hashed() && empty) {
                return Err(ClusterError::InvalidOptions(
                    "numInitialChunks is only supported when the collection is empty and has a hashed field in the shard key pattern".into(),
                ));
            }
            if !key.has_hashed_prefix() && !presplit {
                return Err(ClusterError::InvalidOptions(
                    "When the prefix of the hashed shard key is a range field, 'numInitialChunks' can only be used when the 'presplitHashedZones' is true".into(),
                ));
            }
        }
        if presplit {
            self.check_presplit(key, empty, zones)?;
            return self.zone_chunks(ns, key, zones, Some(n.unwrap_or(0) as u64));
        }
        if zones.is_empty() && key.has_hashed_prefix() && empty {
            let n = n.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
            return Ok(self.initial_hashed_chunks(key, n, primary));
        }
        if !zones.is_empty() && empty {
            return self.zone_chunks(ns, key, zones, None);
        }
        Ok(RoutingTable::single(
            key.global_min(),
            key.global_max(),
            primary,
        ))
    }

    /// `PresplitHashedZonesSplitPolicy::_validate`: an empty collection, zones and a
    /// hashed field (31387); with a hashed prefix, one zone over the whole key (31412);
    /// otherwise each zone as [`check_presplit_zone`] says.
    fn check_presplit(
        &self,
        key: &KeyPattern,
        empty: bool,
        zones: &[ZoneRange],
    ) -> Result<(), ClusterError> {
        let Some(hashed) = key.hashed_index().filter(|_| empty && !zones.is_empty()) else {
            return Err(ClusterError::Location31387(
                "'presplitHashedZones' is only supported when the collection is empty, zones are set up and shard key pattern has a hashed field".into(),
            ));
        };
        if hashed == 0 {
            let whole = zones.len() == 1
                && zones[0].min == key.global_min()
                && zones[0].max == key.global_max();
            if !whole {
                return Err(ClusterError::Location31412(
                    "For hashed prefix shard keys, 'presplitHashedZones' is only supported when there is a single zone defined which covers entire shard key range".into(),
                ));
            }
            return Ok(());
        }
        zones
            .iter()
            .try_for_each(|z| check_presplit_zone(key, hashed, z))
    }

    /// The shards that have `zone`, in the shards' order (`buildTagsToShardIdsMap`).
    pub(crate) fn zone_members(&self, zone: &str) -> Vec<ShardIdx> {
        self.shards()
            .filter(|(_, s)| s.zones.contains(zone))
            .map(|(i, _)| i)
            .collect()
    }

    /// The shards of each zone range, in the shards' order (`buildTagsToShardIdsMap`),
    /// with one chunk each for `SingleChunkPerTagSplitPolicy` (which then takes one of
    /// them round-robin), or `presplitHashedZones`' share (`buildSplitInfoForTag`): each
    /// shard in a zone gets ⌈per shard / the shard's zone ranges⌉ chunks of it, where per
    /// shard is ⌈numInitialChunks / shards with zones⌉ in 4.4/5.0 (numInitialChunks
    /// defaulting to twice those shards) and 1 in 8.0.
    fn zone_shares(&self, zones: &[ZoneRange], num_initial: Option<u64>) -> Vec<ZoneShares> {
        let members: Vec<Vec<ShardIdx>> =
            zones.iter().map(|z| self.zone_members(&z.zone)).collect();
        let mut ranges_per_shard: BTreeMap<ShardIdx, u64> = BTreeMap::new();
        for &shard in members.iter().flatten() {
            *ranges_per_shard.entry(shard).or_default() += 1;
        }
        let with_zones = (ranges_per_shard.len() as u64).max(1);
        let per_shard = match (num_initial, self.version()) {
            (None, _) | (_, VersionMode::V70 | VersionMode::V80) => 1,
            (Some(0), _) => 2,
            (Some(n), _) => n.div_ceil(with_zones),
        };
        members
            .into_iter()
            .map(|shards| {
                shards
                    .into_iter()
                    .map(|s| (s, per_shard.div_ceil(ranges_per_shard[&s]) as usize))
                    .collect()
            })
            .collect()
    }

    /// Chunks along the zone ranges (`AbstractTagsBasedSplitPolicy::createFirstChunks`):
    /// each gap between ranges is one chunk, round-robin over the shards; each range is one
    /// chunk on its zone's shards in turn, or with `presplit` (its `numInitialChunks`, 0
    /// for the default) pre-split on the hashed field across all of them. A zone without
    /// shards is error 50973.
    fn zone_chunks(
        &self,
        ns: &str,
        key: &KeyPattern,
        zones: &[ZoneRange],
        presplit: Option<u64>,
    ) -> Result<RoutingTable, ClusterError> {
        // 4.4/5.0 take every shard, sorted; 8.0 those not draining (shuffled there).
        let gap_shards: Vec<ShardIdx> = self
            .shards()
            .filter(|(_, s)| self.version() < VersionMode::V70 || !s.draining)
            .map(|(i, _)| i)
            .collect();
        let shares = self.zone_shares(zones, presplit);
        let mut next_in_zone: BTreeMap<&str, usize> = BTreeMap::new();
        let (mut chunks, mut gaps, mut last) = (Vec::new(), 0, key.global_min());
        for (z, share) in zones.iter().zip(shares) {
            if z.min > last {
                let shard = gap_shards[gaps % gap_shards.len()];
                gaps += 1;
                chunks.push(Chunk::empty(
                    last,
                    z.min.clone(),
                    shard,
                    chunks.len() as u32,
                ));
            }
            if share.is_empty() {
                return Err(ClusterError::Location50973(format!(
                    "Cannot shard collection {ns} due to zone {} which is not assigned to a shard. Please assign this zone to a shard.",
                    z.zone
                )));
            }
            let share = match presplit {
                Some(_) => share,
                None => {
                    let turn = next_in_zone.entry(&z.zone).or_default();
                    *turn += 1;
                    vec![(share[(*turn - 1) % share.len()].0, 1)]
                }
            };
            let total: usize = share.iter().map(|(_, n)| n).sum();
            let points = presplit_points(key, z, total);
            let mut lo = z.min.clone();
            let mut bounds = points.into_iter().chain(std::iter::once(z.max.clone()));
            for (shard, n) in share {
                for hi in bounds.by_ref().take(n) {
                    chunks.push(Chunk::empty(lo, hi.clone(), shard, chunks.len() as u32));
                    lo = hi;
                }
            }
            last = z.max.clone();
        }
        if last < key.global_max() {
            let shard = gap_shards[gaps % gap_shards.len()];
            chunks.push(Chunk::empty(
                last,
                key.global_max(),
                shard,
                chunks.len() as u32,
            ));
        }
        Ok(RoutingTable::from_chunks(chunks))
    }
}

/// The split points of `total` chunks over a zone range: the zone's lower-bound values
/// before the hashed field, then `calculateHashedSplitPoints`' hash, then MinKey (none
/// for one chunk).
fn presplit_points(key: &KeyPattern, z: &ZoneRange, total: usize) -> Vec<KeyValue> {
    let Some(hashed) = key.hashed_index().filter(|_| total > 1) else {
        return Vec::new();
    };
    hashed_split_points(total as u32)
        .into_iter()
        .map(|h| {
            let mut values: Vec<Bson> = z.min.0[..hashed].to_vec();
            values.push(Bson::Int64(h));
            values.resize(key.len(), Bson::MinKey);
            KeyValue(values)
        })
        .collect()
}

/// The config server's refusal as the shard returns it (merge_chunks_command.cpp, 5.0 on:
/// `uassertStatusOKWithContext(commandStatus, "Failed to commit chunk merge")`), keeping
/// its code.
fn failed_to_commit_merge(e: ClusterError) -> ClusterError {
    match e {
        ClusterError::IllegalOperation(m) => ClusterError::IllegalOperation(format!(
            "Failed to commit chunk merge :: caused by :: {m}"
        )),
        other => other,
    }
}

/// What each era checks before merging `[lo, hi)` on `shard`, over the chunks that shard
/// owns (`own`, in key order).
struct MergeCheck<'a> {
    ns: &'a str,
    pattern: &'a KeyPattern,
    shard: String,
    own: &'a [&'a Chunk],
    lo: &'a KeyValue,
    hi: &'a KeyValue,
}

impl MergeCheck<'_> {
    fn shown(&self, k: &KeyValue) -> String {
        format_bson_obj(&self.pattern.to_document(k))
    }

    fn range(&self) -> String {
        format_range(&self.shown(self.lo), &self.shown(self.hi))
    }

    /// `CollectionMetadata::getNextChunk`: the shard's chunk holding `key`, else its first
    /// chunk above it.
    fn next_chunk(&self, key: &KeyValue) -> Option<&Chunk> {
        self.own.iter().copied().find(|c| c.max > *key)
    }

    /// 3.6's shard, merge_chunks_command.cpp `mergeChunks`, in its order: walk the shard's
    /// chunks from `lo` while below `hi`, then check where the walk starts and ends, that
    /// it is more than one chunk, and that it has no hole.
    fn shard_36(&self) -> Result<Vec<Chunk>, ClusterError> {
        let ns = self.ns;
        let refuse =
            |m: String| ClusterError::IllegalOperation(format!("could not merge chunks, {m}"));
        let mut chunks: Vec<&Chunk> = Vec::new();
        let mut at = self.lo.clone();
        while at < *self.hi {
            let Some(c) = self.next_chunk(&at) else { break };
            chunks.push(c);
            at = c.max.clone();
        }
        let (Some(first), Some(last)) = (chunks.first(), chunks.last()) else {
            return Err(refuse(format!(
                "collection {ns} range starting at {} and ending at {} does not belong to shard {}",
                self.shown(self.lo),
                self.shown(self.hi),
                self.shard
            )));
        };
        if !(first.min <= *self.lo && *self.lo < first.max) {
            return Err(refuse(format!(
                "collection {ns} range starting at {} does not belong to shard {}",
                self.shown(self.lo),
                self.shard
            )));
        }
        if !(last.min < *self.hi && last.max >= *self.hi) {
            return Err(refuse(format!(
                "collection {ns} range ending at {} does not belong to shard {}",
                self.shown(self.hi),
                self.shard
            )));
        }
        let starts = first.min == *self.lo;
        let ends = last.max == *self.hi;
        if !starts || !ends {
            let what = match (starts, ends) {
                (false, false) => format!(
                    "starting at {} or ending at {}",
                    self.shown(self.lo),
                    self.shown(self.hi)
                ),
                (false, true) => format!("starting at {}", self.shown(self.lo)),
                _ => format!("ending at {}", self.shown(self.hi)),
            };
            return Err(refuse(format!(
                "collection {ns} does not contain a chunk {what}"
            )));
        }
        if chunks.len() == 1 {
            return Err(refuse(format!(
                "collection {ns} already contains chunk for {}",
                self.range()
            )));
        }
        for pair in chunks.windows(2) {
            if pair[0].max != pair[1].min {
                return Err(refuse(format!(
                    "collection {ns} has a hole in the range {} at {}",
                    self.range(),
                    format_range(&self.shown(&pair[0].max), &self.shown(&pair[1].min))
                )));
            }
        }
        Ok(chunks.into_iter().cloned().collect())
    }

    /// 6.0 on, the shard's `checkRangeOwnership` (chunk_operation_precondition_checks.cpp):
    /// from `lo`, each next chunk of the shard must start where the last one ended, until
    /// one reaches `hi`, which it must end on exactly.
    fn range_ownership(&self) -> Result<(), ClusterError> {
        let mut at = self.lo.clone();
        loop {
            let Some(c) = self.next_chunk(&at).filter(|c| c.min == at) else {
                return Err(ClusterError::StaleConfig(format!(
                    "Range with bounds {} is not owned by this shard.",
                    self.range()
                )));
            };
            at = c.max.clone();
            if c.max >= *self.hi {
                break;
            }
        }
        if at != *self.hi {
            return Err(ClusterError::StaleConfig(format!(
                "Shard does not contain a sequence of chunks that exactly fills the range {}",
                self.range()
            )));
        }
        Ok(())
    }

    /// The config server's `ShardingCatalogManager::commitChunksMerge` (5.0 on): the
    /// shard's chunks whose lower bound lies in `[lo, hi)` must run without a gap from
    /// `lo` to `hi`. One chunk that is the whole range was merged already: success with
    /// nothing to do (`None`).
    fn config_server(&self) -> Result<Option<Vec<Chunk>>, ClusterError> {
        let refuse = || {
            ClusterError::IllegalOperation(format!(
                "could not merge chunks, shard {} does not contain a sequence of chunks that exactly fills the range {}",
                self.shard,
                self.range()
            ))
        };
        let chunks: Vec<&Chunk> = self
            .own
            .iter()
            .copied()
            .filter(|c| c.min >= *self.lo && c.min < *self.hi)
            .collect();
        if let [only] = chunks.as_slice() {
            return if only.min == *self.lo && only.max == *self.hi {
                Ok(None)
            } else {
                Err(refuse())
            };
        }
        let mut end = self.lo;
        for c in &chunks {
            if c.min != *end {
                return Err(refuse());
            }
            end = &c.max;
        }
        if chunks.is_empty() || end != self.hi {
            return Err(refuse());
        }
        Ok(Some(chunks.into_iter().cloned().collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ClusterConfig;
    use bson::doc;

    const MIB: u64 = 1024 * 1024;

    /// The keys `0..n`, one document each.
    fn keys(n: i32) -> Vec<DocKey> {
        (0..n)
            .map(|i| DocKey::new(KeyValue(vec![Bson::Int32(i)])))
            .collect()
    }

    /// `autoSplitVector` over `n` documents of exactly 1 MiB with keys `0..n`, all of them
    /// in the chunk and on its shard, for a maximum chunk size of `max_mib` MiB.
    fn split_mib(n: i32, max_mib: u64, limit: Option<usize>) -> Vec<i32> {
        let keys = keys(n);
        let refs: Vec<&DocKey> = keys.iter().collect();
        let input = SplitInput {
            shard_docs: n as u64,
            shard_bytes: n as u64 * MIB,
            max_size: max_mib * MIB,
        };
        auto_split_vector(&refs[..], input, limit)
            .into_iter()
            .map(|i| i as i32)
            .collect()
    }

    /// `autoSplitVector`'s scan as a plain loop over every key, from position `i` with
    /// `scanned` keys counted and the last cut at `last`: the model the jumping scan is
    /// held to.
    fn model_scan(
        keys: &[&DocKey],
        i: usize,
        mut scanned: i64,
        mut last: usize,
        per_piece: i64,
        max: Option<usize>,
    ) -> (Vec<usize>, i64) {
        let mut cuts = Vec::new();
        for j in i..keys.len() {
            scanned += 1;
            if scanned < per_piece || keys[j] == keys[last] {
                continue;
            }
            cuts.push(j);
            last = j;
            scanned = 0;
            if max.is_some_and(|m| cuts.len() >= m) {
                break;
            }
        }
        (cuts, scanned)
    }

    /// The scan that jumps over keys finds the cuts and the final count the plain loop
    /// finds, on random sorted keys with runs of equal values (some reaching the end),
    /// from any starting point, for small and large pieces, with and without a limit.
    #[test]
    fn jumping_scan_agrees_with_the_plain_loop() {
        let mut rng = crate::support::rng::SplitMix64::new(17);
        for case in 0..4_000 {
            let n = rng.below(300) as usize + 1;
            // Runs of equal keys: mostly single keys, some short runs, a few long ones.
            let long = rng.below(3) == 0;
            let mut value = 0i64;
            let mut keys: Vec<DocKey> = Vec::with_capacity(n);
            while keys.len() < n {
                value += 1 + rng.below(2) as i64;
                let run = match rng.below(8) {
                    0 if long => 1 + rng.below(60),
                    0..=1 => 1 + rng.below(6),
                    _ => 1,
                };
                for _ in 0..run.min((n - keys.len()) as u64) {
                    keys.push(DocKey::new(KeyValue(vec![Bson::Int64(value)])));
                }
            }
            let refs: Vec<&DocKey> = keys.iter().collect();
            let last = rng.below(n as u64) as usize;
            let from = last + rng.below(2) as usize;
            let scanned = rng.below(5) as i64;
            let per_piece = rng.below(40) as i64;
            let max = (rng.below(3) == 0).then(|| 1 + rng.below(4) as usize);
            let mut cuts = Vec::new();
            let count = scan_for_cuts(&refs[..], from, scanned, last, per_piece, &mut cuts, max);
            assert_eq!(
                (cuts, count),
                model_scan(&refs, from, scanned, last, per_piece, max),
                "case {case}: {n} keys, from {from}, last {last}, per piece {per_piece}"
            );
        }
    }

    /// The cases of MongoDB's `auto_split_vector_test.cpp` (the version whose documents
    /// are exactly 1 MiB): ten 1 MiB documents and a 10 MiB maximum, plus a surplus of
    /// 2, 4, 13 and 8 documents.
    #[test]
    fn auto_split_vector_matches_mongodb_cases() {
        // Data under, or equal to, the maximum: no split point.
        assert_eq!(split_mib(10, 11, None), Vec::<i32>::new());
        assert_eq!(split_mib(10, 10, None), Vec::<i32>::new());
        // Over the maximum, but the last piece would be too small to even out.
        assert_eq!(split_mib(12, 10, None), Vec::<i32>::new());
        // Slightly more: the one split point is moved back so both pieces are even.
        assert_eq!(split_mib(14, 10, None), vec![6]);
        // Over twice the maximum (a surplus of 13): both points are recomputed.
        assert_eq!(split_mib(23, 10, None), vec![7, 15]);
        assert_eq!(split_mib(24, 10, None), vec![7, 15]);
        // The last piece is at least 80% full: no recomputing.
        assert_eq!(split_mib(18, 10, None), vec![9]);
    }

    /// With a limit, `autoSplitVector` returns exactly that many points when more exist.
    #[test]
    fn auto_split_vector_honours_its_limit() {
        let all = split_mib(14, 2, None);
        assert!(all.len() > 3, "{all:?}");
        for limit in 1..=3 {
            let some = split_mib(14, 2, Some(limit));
            assert_eq!(some.len(), limit);
            assert_eq!(some[0], all[0]);
        }
    }

    /// MongoDB's repositioning test, over a grid rather than one random draw: with
    /// `maxDocs * n + surplus` documents, the points fall about every `maxDocs` documents,
    /// or, when the surplus allows evening out, every `total / (n + 1)` documents.
    #[test]
    fn last_split_points_are_repositioned_fairly() {
        for max_docs in [10, 11, 17, 33, 64, 109] {
            for surplus in 0..max_docs {
                for n in 1..4 {
                    let per_new = max_docs - (max_docs - surplus) / (n + 1);
                    let reposition = surplus >= max_docs - per_new
                        && f64::from(surplus) < f64::from(max_docs) * 0.8;
                    let total = max_docs * n + surplus;
                    let expected = if reposition {
                        total / (n + 1)
                    } else {
                        max_docs
                    };
                    let points = split_mib(total, max_docs as u64, None);
                    let mut next = expected;
                    for p in &points {
                        assert!(
                            (next - 2..=next + 2).contains(p),
                            "maxDocs {max_docs}, surplus {surplus}, n {n}: {points:?}"
                        );
                        next = p + expected;
                    }
                }
            }
        }
    }

    /// A run of equal keys is never cut: the point moves to the next change of key, and a
    /// chunk whose first and last keys are equal has no point at all.
    #[test]
    fn equal_keys_stay_together() {
        let key = |i: i32| DocKey::new(KeyValue(vec![Bson::Int32(i)]));
        // Three documents fill a piece (1 MiB each, 3 MiB maximum): key 0 once, key 1 six
        // times, then keys 2..=9.
        let mut keys = vec![key(0)];
        keys.extend((0..6).map(|_| key(1)));
        keys.extend((2..10).map(key));
        let refs: Vec<&DocKey> = keys.iter().collect();
        let input = SplitInput {
            shard_docs: keys.len() as u64,
            shard_bytes: keys.len() as u64 * MIB,
            max_size: 3 * MIB,
        };
        let values: Vec<KeyValue> = auto_split_vector(&refs[..], input, None)
            .into_iter()
            .map(|i| refs[i].to_key())
            .collect();
        // The count reaches 3 at the second 1: a cut at 1. It reaches 3 again on later 1s,
        // which equal that point, so the next cut waits for key 2, then 5 and 8. The last
        // piece (9) is small, so the last three points are recomputed from the first 1,
        // three documents a piece, again skipping the rest of the run of 1s.
        let expected: Vec<KeyValue> = [1, 2, 5, 8]
            .iter()
            .map(|&i| KeyValue(vec![Bson::Int32(i)]))
            .collect();
        assert_eq!(values, expected);
        let same: Vec<DocKey> = (0..20).map(|_| key(3)).collect();
        let refs: Vec<&DocKey> = same.iter().collect();
        assert!(auto_split_vector(&refs[..], input, None).is_empty());
    }

    /// The splitter looks at a chunk only each time a fifth of the maximum chunk size has
    /// been written to it, and reads the average document size of the shard's collection.
    #[test]
    fn a_chunk_is_considered_every_fifth_of_a_chunk_of_writes() -> Result<(), crate::ClusterError> {
        let mut c = Cluster::new(ClusterConfig::default());
        c.set_chunk_size(1024)?;
        c.shard_collection("test.f", &doc! { "k": 1 }, false, None)?;
        let mut attempts_at = Vec::new();
        let mut chunks_before = 1;
        for k in 0..400 {
            c.insert_many("test.f", vec![doc! { "k": k }])
                .map_err(|(_, e)| e)?;
            let s = c.sharding("test.f")?;
            let written: u64 = s.table.iter().map(|ch| ch.written).sum();
            if s.table.len() != chunks_before {
                attempts_at.push((k, written));
                chunks_before = s.table.len();
            }
            // No chunk ever holds a fifth of a chunk size of unconsidered writes.
            assert!(s
                .table
                .iter()
                .all(|ch| ch.written < 1024 / SPLIT_TEST_FACTOR));
        }
        assert!(!attempts_at.is_empty());
        Ok(())
    }

    /// `clearJumboFlag` gives a jumbo chunk the collection's next major version and logs
    /// it; on a chunk that is not jumbo it succeeds and changes nothing.
    #[test]
    fn clear_jumbo_flag_bumps_the_major_version_once() -> Result<(), crate::ClusterError> {
        let mut c = Cluster::new(ClusterConfig::default());
        c.set_chunk_size(1024)?;
        c.shard_collection("test.h", &doc! { "k": 1 }, false, None)?;
        let docs: Vec<_> = (0..200).map(|i| doc! { "k": 7, "i": i }).collect();
        c.insert_many("test.h", docs).map_err(|(_, e)| e)?;
        let chunk = |c: &Cluster| {
            c.sharding("test.h").map(|s| {
                s.table
                    .chunk_for(&crate::KeyValue(vec![bson::Bson::Int32(7)]))
                    .cloned()
            })
        };
        let before = chunk(&c)?.map(|ch| (ch.jumbo, ch.version));
        let top = c.sharding("test.h")?.table.collection_version();
        assert!(before.is_some_and(|(jumbo, _)| jumbo));
        let events = c.events().len();
        c.clear_jumbo_flag("test.h", &doc! { "k": 7 })?;
        let after = chunk(&c)?.map(|ch| (ch.jumbo, ch.version.major, ch.version.minor));
        assert_eq!(after, Some((false, top.major + 1, 0)));
        assert_eq!(c.events().len(), events + 1);
        c.clear_jumbo_flag("test.h", &doc! { "k": 7 })?;
        assert_eq!(
            chunk(&c)?.map(|ch| (ch.jumbo, ch.version.major, ch.version.minor)),
            after
        );
        assert_eq!(c.events().len(), events + 1);
        Ok(())
    }
}
