//! Which zone each chunk of a collection is in, found by binary search over the zone
//! ranges, and the chunks of every zone sorted out once for a balancer round, so that a
//! round over many zone ranges costs about what its chunks cost rather than chunks times
//! ranges.
//!
//! A collection's zone ranges are kept sorted by lower bound and never overlap (every
//! way in checks: `updateZoneKeyRange`, `reshardCollection`'s `zones`, the pending ranges
//! of an unsharded namespace), so their upper bounds are sorted too.

use crate::engine::chunks::{Chunk, RoutingTable, ShardIdx};
use crate::engine::cluster::ZoneRange;
use crate::keys::shard_key::KeyValue;

/// The zone range that holds `chunk` entirely, if any: only the last range starting at or
/// before the chunk's lower bound can.
pub(crate) fn zone_at<'a>(zones: &'a [ZoneRange], chunk: &Chunk) -> Option<&'a ZoneRange> {
    let i = zones.partition_point(|z| z.min <= chunk.min);
    let z = zones.get(i.checked_sub(1)?)?;
    (chunk.max <= z.max).then_some(z)
}

/// Whether a zone boundary lies strictly inside `chunk`, so that the balancer must split
/// it there first.
pub(crate) fn straddles(zones: &[ZoneRange], chunk: &Chunk) -> bool {
    // The first range ending after the chunk's lower bound is the only one whose bounds
    // can fall inside the chunk before any later range's do.
    let i = zones.partition_point(|z| z.max <= chunk.min);
    zones.get(i).is_some_and(|z| {
        let inside = |b: &KeyValue| chunk.min < *b && *b < chunk.max;
        inside(&z.min) || inside(&z.max)
    })
}

/// Where a zone range `[lo, hi)` would overlap an existing one: the first such range in
/// key order, as a scan from the start would find it.
pub(crate) fn first_overlap<'a>(
    zones: &'a [ZoneRange],
    lo: &KeyValue,
    hi: &KeyValue,
) -> Option<&'a ZoneRange> {
    let i = zones.partition_point(|z| z.max <= *lo);
    zones.get(i).filter(|z| z.min < *hi)
}

/// The position a new range starting at `lo` takes among `zones`.
pub(crate) fn insert_at(zones: &[ZoneRange], lo: &KeyValue) -> usize {
    zones.partition_point(|z| z.min <= *lo)
}

/// The chunks of each zone of one collection, for the decisions of a balancer round.
#[derive(Debug, Clone, Default)]
pub(crate) struct ZoneChunks {
    /// The zone names of the collection's ranges, sorted, without repeats.
    names: Vec<String>,
    /// The chunks of each name, in key order; one more entry at the end for the chunks in
    /// no zone.
    chunks: Vec<Vec<Chunk>>,
    /// Each shard's data size for the collection, by shard index.
    sizes: Vec<u64>,
}

impl ZoneChunks {
    /// Sorts out the chunks of `table` by the zone of `zones` holding them, for a cluster
    /// of `shards` shards.
    pub(crate) fn new(table: &RoutingTable, zones: &[ZoneRange], shards: usize) -> ZoneChunks {
        let mut names: Vec<String> = zones.iter().map(|z| z.zone.clone()).collect();
        crate::support::sort::sort(&mut names);
        names.dedup();
        let mut chunks = vec![Vec::new(); names.len() + 1];
        let mut sizes = vec![0u64; shards];
        for c in table.iter() {
            let slot = zone_at(zones, c)
                .and_then(|z| names.binary_search(&z.zone).ok())
                .unwrap_or(names.len());
            if let Some(list) = chunks.get_mut(slot) {
                list.push(c.clone());
            }
            if let Some(size) = sizes.get_mut(c.shard as usize) {
                *size += c.bytes;
            }
        }
        ZoneChunks {
            names,
            chunks,
            sizes,
        }
    }

    /// The zone names, sorted.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// The chunks of `zone` (`None`: the chunks in no zone), in key order.
    pub(crate) fn of(&self, zone: Option<&str>) -> &[Chunk] {
        let slot = match zone {
            Some(z) => self
                .names
                .binary_search_by(|n| n.as_str().cmp(z))
                .unwrap_or(usize::MAX),
            None => self.names.len(),
        };
        self.chunks.get(slot).map_or(&[], Vec::as_slice)
    }

    /// The load of every shard, by shard index: the chunks of `zone` each holds, or with
    /// `by_size` the collection's whole data size on it.
    pub(crate) fn loads(&self, zone: Option<&str>, by_size: bool) -> Vec<u64> {
        if by_size {
            return self.sizes.clone();
        }
        let mut out = vec![0u64; self.sizes.len()];
        for c in self.of(zone) {
            if let Some(load) = out.get_mut(c.shard as usize) {
                *load += 1;
            }
        }
        out
    }

    /// The first non-jumbo chunk of `zone` on `shard`, in key order.
    pub(crate) fn first_movable(&self, zone: Option<&str>, shard: ShardIdx) -> Option<&Chunk> {
        self.of(zone).iter().find(|c| c.shard == shard && !c.jumbo)
    }
}
