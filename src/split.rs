//! Splitting and merging chunks (spec §6): 5.0's auto-split with the top-chunk rule,
//! jumbo marking, and the manual `splitAt`, `splitFind`, `mergeChunks` and `clearJumboFlag`.

use crate::chunks::Chunk;
use crate::cluster::{not_sharded, range_totals, Cluster, ClusterError, DocKey};
use crate::events::EventKind;
use crate::shard_key::{format_bson_obj, KeyPattern, KeyValue};
use bson::{Bson, Document};

/// Chooses split points as 5.0's `autoSplitVector` does (spec §6).
///
/// `keys` are the chunk's keys in order with each document's size. Nothing is split unless
/// the chunk holds more than `max_size` bytes. Walking the keys, a piece is closed once it
/// holds `max_size / average document size` documents, at the next change of key value, so
/// a run of equal keys always stays in one chunk. If the last piece would hold under 80% of
/// a full piece, the last cut is moved so that the last two pieces are even.
pub(crate) fn split_points(keys: &[(&DocKey, u32)], max_size: u64) -> Vec<KeyValue> {
    let total: u64 = keys.iter().map(|(_, s)| u64::from(*s)).sum();
    if keys.is_empty() || total <= max_size {
        return Vec::new();
    }
    split_points_every(keys, max_docs_for(keys, total, max_size), None)
}

/// How many documents of this chunk's average size fit in `max_size` bytes.
fn max_docs_for(keys: &[(&DocKey, u32)], total: u64, max_size: u64) -> usize {
    let avg = (total / keys.len().max(1) as u64).max(1);
    usize::try_from(max_size / avg).unwrap_or(usize::MAX).max(1)
}

/// Cuts `keys` every `max_docs` documents at changes of key value, then evens out the
/// last two pieces (the 80% rule). `limit` stops after that many points, without evening.
fn split_points_every(
    keys: &[(&DocKey, u32)],
    max_docs: usize,
    limit: Option<usize>,
) -> Vec<KeyValue> {
    let n = keys.len();
    let boundary = |i: usize| i > 0 && i < n && keys[i].0 != keys[i - 1].0;
    let mut cuts: Vec<usize> = Vec::new();
    let mut piece_start = 0;
    for i in 1..n {
        if i - piece_start >= max_docs && boundary(i) {
            cuts.push(i);
            piece_start = i;
            if limit.is_some_and(|l| cuts.len() >= l) {
                return cuts.into_iter().map(|i| keys[i].0.to_key()).collect();
            }
        }
    }
    if let Some(&last) = cuts.last() {
        if ((n - last) as f64) < 0.8 * max_docs as f64 {
            let prev = if cuts.len() >= 2 {
                cuts[cuts.len() - 2]
            } else {
                0
            };
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
    cuts.into_iter().map(|i| keys[i].0.to_key()).collect()
}

impl Cluster {
    /// Splits the chunk starting at `min` if it has grown past the maximum chunk size, as
    /// 5.0's chunk splitter would; marks it jumbo if it cannot be split.
    pub(crate) fn maybe_auto_split(&mut self, ns: &str, min: &KeyValue) {
        let max_size = self.chunk_size();
        let Some(coll) = self.collections.get(ns) else {
            return;
        };
        let Some(sharding) = coll.sharding.as_ref() else {
            return;
        };
        let Some(chunk) = sharding.table.get(min) else {
            return;
        };
        if chunk.bytes <= max_size {
            return;
        }
        // After a fruitless attempt, wait for another fifth of a chunk's worth of writes
        // (`ChunkWritesTracker::kSplitTestFactor`), rather than rescanning the chunk on
        // every insert.
        if let Some(&then) = coll.fruitless_splits.get(min) {
            if chunk.bytes >= then && chunk.bytes < then + max_size / 5 {
                return;
            }
        }
        // A chunk whose documents all share one key value has no split point, whatever
        // its size: the first and last entries of its range tell in O(log n), where
        // collecting its keys would cost O(n) on every insert into a hot jumbo chunk.
        if coll.single_key_in(&chunk.min, &chunk.max) {
            let chunk = chunk.clone();
            self.mark_jumbo(ns, &chunk);
            return;
        }
        let chunk = chunk.clone();
        let keys = coll.keys_in(&chunk.min, &chunk.max);
        let mut points = split_points(&keys, max_size);
        let ordered = !sharding.pattern.is_hashed();
        let global_min = sharding.pattern.global_min();
        let global_max = sharding.pattern.global_max();
        // Top-chunk optimisation (5.0 chunk_splitter): a chunk at either end of the key
        // space is likely to keep receiving inserts, so the cut is made next to its extreme
        // key: the second smallest key for the chunk starting at MinKey, else the largest
        // key for the chunk ending at MaxKey.
        if ordered && !points.is_empty() {
            if chunk.min == global_min {
                let mut distinct = keys.iter().map(|(k, _)| *k).collect::<Vec<_>>();
                distinct.dedup();
                if let Some(second) = distinct.get(1) {
                    points[0] = second.to_key();
                }
            } else if chunk.max == global_max {
                if let Some((last, _)) = keys.last() {
                    if last.cmp_key(&chunk.min) != std::cmp::Ordering::Equal {
                        let n = points.len();
                        points[n - 1] = last.to_key();
                    }
                }
            }
            points.sort();
            points.dedup();
        }
        // With no split point, a chunk whose keys are all one value can never be split:
        // it is jumbo. Otherwise MongoDB's splitter simply finds no point yet and the
        // chunk keeps growing until a change of key value falls past a full piece.
        let single_value = keys
            .first()
            .zip(keys.last())
            .is_some_and(|(a, b)| a.0 == b.0);
        drop(keys);
        if points.is_empty() {
            if single_value {
                self.mark_jumbo(ns, &chunk);
            } else if let Some(coll) = self.collections.get_mut(ns) {
                coll.fruitless_splits.insert(chunk.min.clone(), chunk.bytes);
            }
            return;
        }
        if let Some(coll) = self.collections.get_mut(ns) {
            coll.fruitless_splits.remove(&chunk.min);
        }
        self.apply_split(ns, &chunk, &points);
        // After the split, MongoDB (split_chunk.cpp) moves the back piece if it ends at
        // MaxKey and holds a single document, else the front piece if it starts at MinKey
        // and holds a single document, so the hot spot does not stay on one shard.
        if ordered && self.balancer_enabled {
            let back_min = points[points.len() - 1].clone();
            let single = |cluster: &Cluster, min: &KeyValue| {
                cluster
                    .sharding(ns)
                    .ok()
                    .and_then(|s| s.table.get(min))
                    .is_some_and(|c| c.docs == 1)
            };
            let candidate = if chunk.max == global_max && single(self, &back_min) {
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
    }

    fn mark_jumbo(&mut self, ns: &str, chunk: &Chunk) {
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
        let Some(coll) = self.collections.get_mut(ns) else {
            return;
        };
        let Some(sharding) = coll.sharding.as_mut() else {
            return;
        };
        let mut version = sharding.table.collection_version();
        let mut bounds = Vec::with_capacity(points.len() + 2);
        bounds.push(chunk.min.clone());
        bounds.extend(points.iter().cloned());
        bounds.push(chunk.max.clone());
        let pieces = bounds
            .windows(2)
            .map(|w| {
                version.minor += 1;
                let (docs, bytes) = range_totals(&coll.docs, &w[0], &w[1]);
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
        sharding.table.replace(&chunk.min, pieces);
        self.push_event(EventKind::Split {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
            points: points.to_vec(),
        });
    }

    /// `sh.splitAt(ns, key)`: splits the chunk containing `key` at exactly that key.
    pub fn split_at(&mut self, ns: &str, middle: &Document) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let key = key_from_bound(&sharding.pattern, middle)?;
        let chunk = sharding
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        if key == chunk.min {
            // mongos's split command refuses a key that is already a chunk boundary.
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
        let key = sharding.pattern.extract(query)?;
        let chunk = sharding
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
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
                self.apply_split(ns, &chunk, &[p]);
                Ok(())
            }
            _ => Err(ClusterError::CannotSplit(
                "Unable to find median in chunk because chunk is indivisible.".to_string(),
            )),
        }
    }

    /// `mergeChunks`: merges the contiguous chunks of one shard exactly covering
    /// `[min, max)` into one chunk.
    pub fn merge_chunks(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
    ) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let lo = key_from_bound(&sharding.pattern, min)?;
        let hi = key_from_bound(&sharding.pattern, max)?;
        let shown = |k: &KeyValue| format_bson_obj(&sharding.pattern.to_document(k));
        let chunks: Vec<Chunk> = sharding
            .table
            .iter()
            .filter(|c| c.min >= lo && c.max <= hi)
            .cloned()
            .collect();
        let starts = chunks.first().is_some_and(|c| c.min == lo);
        let ends = chunks.last().is_some_and(|c| c.max == hi);
        if !starts || !ends {
            let what = match (starts, ends) {
                (false, false) => format!(
                    "does not contain a chunk starting at {} or ending at {}",
                    shown(&lo),
                    shown(&hi)
                ),
                (false, true) => format!("does not contain a chunk starting at {}", shown(&lo)),
                _ => format!("does not contain a chunk ending at {}", shown(&hi)),
            };
            return Err(ClusterError::IllegalOperation(format!(
                "could not merge chunks, collection {ns} {what}"
            )));
        }
        if chunks.len() < 2 {
            return Err(ClusterError::IllegalOperation(format!(
                "could not merge chunks, collection {ns} already contains chunk for {}",
                format_range(&shown(&lo), &shown(&hi))
            )));
        }
        let shard = chunks[0].shard;
        if chunks.iter().any(|c| c.shard != shard) {
            return Err(ClusterError::IllegalOperation(format!(
                "could not merge chunks, collection {ns} range starting at {} and ending at {} does not belong to shard {}",
                shown(&lo),
                shown(&hi),
                self.shard_name(shard)
            )));
        }
        let mut version = sharding.table.collection_version();
        version.minor += 1;
        let merged = Chunk {
            min: lo.clone(),
            max: hi.clone(),
            shard,
            jumbo: false,
            version,
            docs: chunks.iter().map(|c| c.docs).sum(),
            bytes: chunks.iter().map(|c| c.bytes).sum(),
        };
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
        let key = sharding.pattern.extract(find)?;
        let min = sharding
            .table
            .chunk_for(&key)
            .map(|c| c.min.clone())
            .ok_or_else(|| not_sharded(ns))?;
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

    /// Splits off the front of the chunk starting at `min` so that it holds about
    /// `max_size` bytes (what `moveRange` with only a lower bound does), returning the
    /// new piece's upper bound, or `None` if the chunk is small enough or cannot be cut.
    pub(crate) fn split_front(
        &mut self,
        ns: &str,
        min: &KeyValue,
        max_size: u64,
    ) -> Option<KeyValue> {
        let coll = self.collections.get(ns)?;
        let chunk = coll.sharding.as_ref()?.table.get(min)?.clone();
        if chunk.bytes <= max_size {
            return None;
        }
        let keys = coll.keys_in(&chunk.min, &chunk.max);
        let max_docs = max_docs_for(&keys, chunk.bytes, max_size);
        let point = split_points_every(&keys, max_docs, Some(1))
            .into_iter()
            .next();
        drop(keys);
        let point = point?;
        self.apply_split(ns, &chunk, std::slice::from_ref(&point));
        Some(point)
    }
}

/// Reads a chunk bound given by the user (`{x: 5}`, `{"a.b": 1, c: MinKey()}`) as a key
/// value of `pattern`. Bounds are in key space: a hashed field's bound is the hash itself.
pub fn key_from_bound(pattern: &KeyPattern, bound: &Document) -> Result<KeyValue, ClusterError> {
    let mut values = Vec::with_capacity(pattern.len());
    for (field, _) in pattern.fields() {
        let value = bound.get(field).cloned().or_else(|| {
            let mut cur = bound;
            let parts: Vec<&str> = field.split('.').collect();
            for (i, part) in parts.iter().enumerate() {
                match cur.get(*part) {
                    Some(Bson::Document(d)) if i + 1 < parts.len() => cur = d,
                    Some(v) if i + 1 == parts.len() => return Some(v.clone()),
                    _ => return None,
                }
            }
            None
        });
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

/// A chunk range as MongoDB prints it in messages: `[{ x: 1 }, { x: 5 })`.
pub fn format_range(min: &str, max: &str) -> String {
    format!("[{min}, {max})")
}

#[cfg(test)]
mod tests {
    use crate::{Cluster, ClusterConfig};
    use bson::doc;

    /// A chunk over the maximum size whose keys give no split point is not rescanned on
    /// every insert: the next attempt waits for another fifth of a chunk size of writes.
    #[test]
    fn a_fruitless_split_is_retried_after_a_fifth_of_a_chunk() -> Result<(), crate::ClusterError> {
        let mut c = Cluster::new(ClusterConfig::default());
        c.set_chunk_size(1024)?;
        c.shard_collection("test.f", &doc! { "k": 1 }, false, None)?;
        let insert = |c: &mut Cluster, k: i32| {
            c.insert_many("test.f", vec![doc! { "k": k }])
                .map(|_| ())
                .map_err(|(_, e)| e)
        };
        let state = |c: &Cluster| {
            c.sharding("test.f").map(|s| {
                (
                    s.table.len(),
                    s.table.iter().map(|ch| ch.bytes).sum::<u64>(),
                )
            })
        };
        // 29-byte documents: 35 fit in a chunk. Thirty of key 1, then key 2 until the chunk
        // is over the maximum: the only change of key is before a full piece.
        for _ in 0..30 {
            insert(&mut c, 1)?;
        }
        while state(&c)?.1 <= 1024 {
            insert(&mut c, 2)?;
        }
        let (chunks, over) = state(&c)?;
        assert_eq!(chunks, 1);
        // Key 3 would now give a split point, but the splitter waits for more writes.
        loop {
            insert(&mut c, 3)?;
            let (chunks, bytes) = state(&c)?;
            if bytes >= over + 1024 / 5 {
                assert!(chunks > 1, "split once a fifth of a chunk more was written");
                break;
            }
            assert_eq!(
                chunks, 1,
                "no new attempt before a fifth of a chunk is written"
            );
        }
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
