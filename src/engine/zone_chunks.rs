//! Which zone each chunk of a collection is in, found by binary search over the zone
//! ranges, and the chunks of every zone sorted out once for a balancer round, so that a
//! round over many zone ranges costs about what its chunks cost rather than chunks times
//! ranges.
//!
//! A collection's zone ranges are kept sorted by lower bound and never overlap (every
//! way in checks: `updateZoneKeyRange`, `reshardCollection`'s `zones`, the pending ranges
//! of an unsharded namespace), so their upper bounds are sorted too.

use crate::engine::chunks::{Chunk, RoutingTable, ShardIdx};
use crate::keys::shard_key::KeyValue;
use crate::support::shared_map::SharedMap;
use std::ops::Bound;

/// A zone range of a sharded collection (`sh.updateZoneKeyRange`).
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneRange {
    /// The inclusive lower bound.
    pub min: KeyValue,
    /// The exclusive upper bound.
    pub max: KeyValue,
    /// The zone's name.
    pub zone: String,
}

impl ZoneRange {
    /// Orders ranges by lower bound: every sort of ranges passes this one function, so
    /// the wasm module carries one sort of them.
    pub(crate) fn by_min(a: &ZoneRange, b: &ZoneRange) -> std::cmp::Ordering {
        a.min.cmp(&b.min)
    }
}

/// A collection's zone ranges in key order, filed by lower bound in sorted leaves shared
/// between copies (a timeline snapshot copies pointers): adding or removing one, and
/// finding the range of a chunk, cost a search rather than a pass over every range.
#[derive(Debug, Clone, Default)]
pub struct ZoneRanges(SharedMap<KeyValue, ZoneRange>);

impl ZoneRanges {
    /// The ranges of `ranges`, put in key order.
    pub(crate) fn from_ranges(mut ranges: Vec<ZoneRange>) -> ZoneRanges {
        ranges.sort_by(ZoneRange::by_min);
        ZoneRanges(SharedMap::from_sorted(
            ranges.into_iter().map(|z| (z.min.clone(), z)),
        ))
    }

    /// How many ranges there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The ranges in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &ZoneRange> {
        self.0.values()
    }

    /// The last range starting at or before `key`.
    fn at_or_before(&self, key: &KeyValue) -> Option<&ZoneRange> {
        let below = (Bound::Unbounded, Bound::Included(key));
        self.0.range(below).next_back().map(|(_, z)| z)
    }

    /// The first range starting after `key`.
    fn after(&self, key: &KeyValue) -> Option<&ZoneRange> {
        let above = (Bound::Excluded(key), Bound::Unbounded);
        self.0.range(above).next().map(|(_, z)| z)
    }

    /// The range that holds `chunk` entirely, if any: only the last range starting at or
    /// before the chunk's lower bound can.
    pub(crate) fn zone_at(&self, chunk: &Chunk) -> Option<&ZoneRange> {
        self.at_or_before(&chunk.min).filter(|z| chunk.max <= z.max)
    }

    /// The zone of the range that holds `[lo, hi)` entirely, if any (`ZoneInfo::
    /// getZoneForRange`).
    pub(crate) fn zone_for_range(&self, lo: &KeyValue, hi: &KeyValue) -> Option<&str> {
        self.at_or_before(lo)
            .filter(|z| *hi <= z.max)
            .map(|z| z.zone.as_str())
    }

    /// Whether a range's bound lies strictly inside `chunk`, so that the balancer must
    /// split it there first: the upper bound of the range around the chunk's lower bound,
    /// or the lower bound of the next range.
    pub(crate) fn straddles(&self, chunk: &Chunk) -> bool {
        let inside = |b: &KeyValue| chunk.min < *b && *b < chunk.max;
        self.at_or_before(&chunk.min)
            .is_some_and(|z| inside(&z.max))
            || self.after(&chunk.min).is_some_and(|z| inside(&z.min))
    }

    /// The first range in key order that `[lo, hi)` would overlap.
    pub(crate) fn first_overlap(&self, lo: &KeyValue, hi: &KeyValue) -> Option<&ZoneRange> {
        // A range starting at or before `lo` overlaps when it ends after it; the ranges
        // before it end before it starts. Otherwise only the next range can be first.
        if let Some(z) = self.at_or_before(lo).filter(|z| z.max > *lo) {
            return Some(z);
        }
        self.after(lo).filter(|z| z.min < *hi)
    }

    /// Adds a range (which must not overlap another).
    pub(crate) fn insert(&mut self, range: ZoneRange) {
        self.0.insert(range.min.clone(), range);
    }

    /// Removes the range `[lo, hi)` if there is one with exactly these bounds; returns
    /// whether there was.
    pub(crate) fn remove_exact(&mut self, lo: &KeyValue, hi: &KeyValue) -> bool {
        let exact = self.0.get(lo).is_some_and(|z| z.min == *lo && z.max == *hi);
        if exact {
            self.0.remove(lo);
        }
        exact
    }
}

/// What a balancer round's decisions read of each zone of one collection: how many of
/// the zone's chunks each shard holds, and each shard's first movable chunk of the zone.
///
/// A round sorts the chunks out once, and again after each migration. It keeps counts and
/// at most one chunk per zone and shard rather than a copy of every chunk, so that sorting
/// out a collection of many chunks is one pass over them with no allocation per chunk.
#[derive(Debug, Clone, Default)]
pub(crate) struct ZoneChunks {
    /// The zone names of the collection's ranges, sorted, without repeats.
    names: Vec<String>,
    /// The chunks of each name; one more entry at the end for the chunks in no zone.
    zones: Vec<ZoneTally>,
    /// Each shard's data size for the collection, by shard index.
    sizes: Vec<u64>,
    /// Each shard's chunk count for the collection, of any zone, by shard index.
    counts: Vec<u64>,
}

/// The chunks of one zone, by shard.
#[derive(Debug, Clone, Default)]
struct ZoneTally {
    /// How many chunks the zone has.
    total: usize,
    /// How many of them each shard holds, by shard index.
    counts: Vec<u64>,
    /// Each shard's first non-jumbo chunk of the zone in key order, by shard index.
    first_movable: Vec<Option<Chunk>>,
}

impl ZoneChunks {
    /// Sorts out the chunks of `table` by the zone of `zones` holding them, for a cluster
    /// of `shards` shards.
    pub(crate) fn new(table: &RoutingTable, zones: &ZoneRanges, shards: usize) -> ZoneChunks {
        let mut names: Vec<String> = zones.iter().map(|z| z.zone.clone()).collect();
        names.sort();
        names.dedup();
        let empty = ZoneTally {
            total: 0,
            counts: vec![0; shards],
            first_movable: vec![None; shards],
        };
        let mut tallies = vec![empty; names.len() + 1];
        let mut sizes = vec![0u64; shards];
        let mut counts = vec![0u64; shards];
        for c in table.iter() {
            // Without zone ranges every chunk is in no zone, found without a search.
            let slot = if zones.is_empty() {
                names.len()
            } else {
                zones
                    .zone_at(c)
                    .and_then(|z| names.binary_search(&z.zone).ok())
                    .unwrap_or(names.len())
            };
            if let Some(tally) = tallies.get_mut(slot) {
                tally.total += 1;
                if let Some(count) = tally.counts.get_mut(c.shard as usize) {
                    *count += 1;
                }
                if let Some(first @ None) = tally.first_movable.get_mut(c.shard as usize) {
                    if !c.jumbo {
                        *first = Some(c.clone());
                    }
                }
            }
            if let Some(size) = sizes.get_mut(c.shard as usize) {
                *size += c.bytes;
            }
            if let Some(count) = counts.get_mut(c.shard as usize) {
                *count += 1;
            }
        }
        ZoneChunks {
            names,
            zones: tallies,
            sizes,
            counts,
        }
    }

    /// The zone names, sorted.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The chunks of `zone` (`None`: the chunks in no zone), if it is one of the names.
    fn tally(&self, zone: Option<&str>) -> Option<&ZoneTally> {
        let slot = match zone {
            Some(z) => self
                .names
                .binary_search_by(|n| n.as_str().cmp(z))
                .unwrap_or(usize::MAX),
            None => self.names.len(),
        };
        self.zones.get(slot)
    }

    /// How many chunks `zone` has (`None`: the chunks in no zone).
    pub(crate) fn len_of(&self, zone: Option<&str>) -> usize {
        self.tally(zone).map_or(0, |t| t.total)
    }

    /// The load of every shard, by shard index: the chunks of `zone` each holds, or with
    /// `by_size` the collection's whole data size on it.
    pub(crate) fn loads(&self, zone: Option<&str>, by_size: bool) -> Vec<u64> {
        if by_size {
            return self.sizes.clone();
        }
        self.tally(zone)
            .map_or_else(|| vec![0; self.sizes.len()], |t| t.counts.clone())
    }

    /// Every shard's chunk count for the collection, of any zone, by shard index: what the
    /// chunk-count balancer chooses a recipient by (`numberOfChunksInShard`).
    pub(crate) fn chunk_counts(&self) -> &[u64] {
        &self.counts
    }

    /// The first non-jumbo chunk of `zone` on `shard`, in key order.
    pub(crate) fn first_movable(&self, zone: Option<&str>, shard: ShardIdx) -> Option<&Chunk> {
        self.tally(zone)?
            .first_movable
            .get(shard as usize)?
            .as_ref()
    }
}
