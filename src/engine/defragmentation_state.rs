//! The state of a collection's defragmentation: what `config.collections` and
//! `config.chunks` hold for it (the flag, the phase, the chunks' estimates) and what the
//! balancer keeps in memory for the running phase (`engine/defragmentation.rs` runs it).
//! Kept apart from the running so that the collection's `Sharding` can hold it.

use crate::engine::chunks::ShardIdx;
use crate::keys::shard_key::KeyValue;
use std::collections::BTreeMap;

/// `kSmallChunkSizeThresholdPctg`: a chunk is small up to this percentage of the
/// collection's maximum chunk size.
pub const SMALL_CHUNK_SIZE_THRESHOLD_PCT: u64 = 25;

/// `kBigChunkMarker`: the estimate of a chunk measured past the small-chunk threshold.
pub const BIG_CHUNK_MARKER: i64 = i64::MAX;

/// A chunk range, lower bound first.
pub(crate) type Range = (KeyValue, KeyValue);

/// The phases of defragmentation, as `DefragmentationPhase_serializer` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefragPhase {
    /// Merging each shard's adjacent chunks and measuring the rest.
    MergeAndMeasureChunks,
    /// Moving small chunks next to a sibling and merging them.
    MoveAndMergeChunks,
    /// Merging what the moves left adjacent.
    MergeChunks,
    /// Done: the state is cleared.
    Finished,
}

impl DefragPhase {
    /// The phase's name in `config.collections` and `balancerCollectionStatus`.
    pub fn name(self) -> &'static str {
        match self {
            DefragPhase::MergeAndMeasureChunks => "mergeAndMeasureChunks",
            DefragPhase::MoveAndMergeChunks => "moveAndMergeChunks",
            DefragPhase::MergeChunks => "mergeChunks",
            DefragPhase::Finished => "finished",
        }
    }

    /// The phase a name stands for.
    pub fn parse(name: &str) -> Option<DefragPhase> {
        [
            DefragPhase::MergeAndMeasureChunks,
            DefragPhase::MoveAndMergeChunks,
            DefragPhase::MergeChunks,
            DefragPhase::Finished,
        ]
        .into_iter()
        .find(|p| p.name() == name)
    }
}

/// A collection being defragmented: `defragmentCollection: true` in its
/// `config.collections` entry, with what goes with it there and in the balancer's memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Defragmentation {
    /// `defragmentationPhase` in `config.collections`: none until the balancer built the
    /// first phase.
    pub phase: Option<DefragPhase>,
    /// `estimatedDataSizeBytes` of the chunks measured, by lower bound (with the upper
    /// bound the estimate was measured for: a chunk whose range changed has none).
    pub(crate) estimates: BTreeMap<KeyValue, (KeyValue, i64)>,
    /// The balancer's state of the running phase; none until a balancer round starts it.
    pub(crate) running: Option<Running>,
}

impl Defragmentation {
    /// The estimate `config.chunks` holds for the chunk `[min, max)`, if any.
    pub fn estimate(&self, min: &KeyValue, max: &KeyValue) -> Option<i64> {
        self.estimates
            .get(min)
            .filter(|(m, _)| m == max)
            .map(|(_, e)| *e)
    }

    /// `reportProgressOn`: the running phase and its chunks left to process
    /// (`remainingChunksToProcess`), or none when the balancer has no state for the
    /// collection (`currentPhase: 'none'`).
    pub fn progress(&self) -> Option<(DefragPhase, u64)> {
        self.running.as_ref().map(|r| (r.phase(), r.remaining()))
    }
}

/// The balancer's state of one phase.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Running {
    /// The phase's own state.
    pub(crate) work: Work,
    /// The phase that follows once this one completes (another after an abort).
    pub(crate) next: DefragPhase,
}

/// What a phase has left to do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Work {
    /// Phase 1: per shard, the ranges to merge and the ranges to measure.
    MergeAndMeasure {
        pending: BTreeMap<ShardIdx, Pending>,
        cursor: Option<ShardIdx>,
        threshold: u64,
    },
    /// Phase 2.
    MoveAndMerge(Box<MoveAndMerge>),
    /// Phase 3: per shard, the ranges to merge.
    MergeChunks {
        pending: BTreeMap<ShardIdx, Vec<Range>>,
        cursor: Option<ShardIdx>,
    },
}

/// Phase 1's work on one shard, each list taken from the back.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Pending {
    pub(crate) to_merge: Vec<Range>,
    pub(crate) to_measure: Vec<Range>,
}

impl Running {
    pub(crate) fn phase(&self) -> DefragPhase {
        match self.work {
            Work::MergeAndMeasure { .. } => DefragPhase::MergeAndMeasureChunks,
            Work::MoveAndMerge(_) => DefragPhase::MoveAndMergeChunks,
            Work::MergeChunks { .. } => DefragPhase::MergeChunks,
        }
    }

    /// `reportProgress`: the ranges still to merge or measure (phases 1 and 3), or the
    /// small chunks left (phase 2).
    pub(crate) fn remaining(&self) -> u64 {
        match &self.work {
            Work::MergeAndMeasure { pending, .. } => pending
                .values()
                .map(|p| (p.to_merge.len() + p.to_measure.len()) as u64)
                .sum(),
            Work::MoveAndMerge(m) => m.small.values().map(|l| l.len() as u64).sum(),
            Work::MergeChunks { pending, .. } => pending.values().map(|l| l.len() as u64).sum(),
        }
    }

    /// `isComplete`: nothing left (actions complete as soon as they are taken here).
    pub(crate) fn is_complete(&self) -> bool {
        match &self.work {
            Work::MergeAndMeasure { pending, .. } => pending.is_empty(),
            Work::MoveAndMerge(m) => {
                m.small.is_empty() && m.outstanding.is_empty() && m.actionable.is_empty()
            }
            Work::MergeChunks { pending, .. } => pending.is_empty(),
        }
    }

    /// `_abort(next)`: the phase drops its work and is followed by `next`.
    pub(crate) fn abort(&mut self, next: DefragPhase) {
        self.next = next;
        match &mut self.work {
            Work::MergeAndMeasure { pending, .. } => pending.clear(),
            Work::MoveAndMerge(m) => {
                m.actionable.clear();
                m.small.clear();
                m.order.clear();
            }
            Work::MergeChunks { pending, .. } => pending.clear(),
        }
    }
}

/// One chunk in phase 2's copy of the routing table (`ChunkRangeInfo`), linked to its
/// neighbours in key order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RangeInfo {
    /// The range's lower bound (it grows by the merges).
    pub(crate) min: KeyValue,
    /// The range's upper bound.
    pub(crate) max: KeyValue,
    /// The shard the chunk was on when the phase began (its small-chunk list's).
    pub(crate) shard: ShardIdx,
    /// Its estimated size, or [`BIG_CHUNK_MARKER`].
    pub(crate) estimate: i64,
    /// Whether a migration or merge of this round has it.
    pub(crate) busy: bool,
    /// The chunk before it in key order.
    pub(crate) prev: Option<usize>,
    /// The chunk after it in key order.
    pub(crate) next: Option<usize>,
}

/// Phase 2's state (`MoveAndMergeChunksPhase`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MoveAndMerge {
    /// The chunks, linked in key order; merged-away ones are unlinked.
    pub(crate) chunks: Vec<RangeInfo>,
    /// Per shard, its small chunks, smallest estimate first.
    pub(crate) small: BTreeMap<ShardIdx, Vec<usize>>,
    /// Each shard's size of the collection, and whether it drains.
    pub(crate) shards: BTreeMap<ShardIdx, (i64, bool)>,
    /// The shards by decreasing size.
    pub(crate) order: Vec<ShardIdx>,
    /// Migrations chosen and not yet run: (the chunk to move, the sibling).
    pub(crate) outstanding: Vec<(usize, usize)>,
    /// Migrations done whose merge is still to come.
    pub(crate) actionable: Vec<(usize, usize)>,
    pub(crate) threshold: i64,
}

impl MoveAndMerge {
    pub(crate) fn sort_order(&mut self) {
        let shards = &self.shards;
        self.order
            .sort_by_key(|s| std::cmp::Reverse(shards.get(s).map_or(0, |(size, _)| *size)));
    }

    /// `_getChunkSiblings`: the chunk after, then the chunk before, each if in the same
    /// zone and on a shard that may receive it.
    pub(crate) fn siblings(
        &self,
        zones: &crate::engine::zone_chunks::ZoneRanges,
        at: usize,
    ) -> Vec<usize> {
        let c = &self.chunks[at];
        let zone = zones.zone_for_range(&c.min, &c.max);
        let fits = |s: usize| {
            let sib = &self.chunks[s];
            let same_zone = zones.zone_for_range(&sib.min, &sib.max) == zone;
            let available = sib.shard == c.shard
                || !self
                    .shards
                    .get(&sib.shard)
                    .is_some_and(|(_, draining)| *draining);
            same_zone && available
        };
        c.next
            .into_iter()
            .chain(c.prev)
            .filter(|s| fits(*s))
            .collect()
    }

    /// `_rankMergeableSibling`.
    pub(crate) fn rank(&self, chunk: usize, sibling: usize) -> u32 {
        const NO_MOVE_REQUIRED: u32 = 1 << 3;
        const CONVENIENT_MOVE: u32 = 1 << 2;
        const SOLVES_TWO: u32 = 1 << 1;
        const SOLVES_ONE: u32 = 1;
        let (c, s) = (&self.chunks[chunk], &self.chunks[sibling]);
        let mut rank = 0;
        if c.shard == s.shard {
            rank += NO_MOVE_REQUIRED;
        } else if c.estimate < s.estimate {
            rank += CONVENIENT_MOVE;
        }
        let merged = if c.estimate == BIG_CHUNK_MARKER || s.estimate == BIG_CHUNK_MARKER {
            BIG_CHUNK_MARKER
        } else {
            c.estimate.saturating_add(s.estimate)
        };
        if merged > self.threshold {
            rank += if s.estimate < self.threshold {
                SOLVES_TWO
            } else {
                SOLVES_ONE
            };
        }
        rank
    }

    /// `_findNextSmallChunkInShard`: the first small chunk of `shard` that is not busy
    /// and has a sibling free this round, with those siblings; chunks without any
    /// sibling leave the list for good.
    pub(crate) fn next_small_chunk(
        &mut self,
        zones: &crate::engine::zone_chunks::ZoneRanges,
        shard: ShardIdx,
        used: impl Fn(ShardIdx) -> bool,
    ) -> Option<(usize, Vec<usize>)> {
        let list = self.small.get(&shard)?.clone();
        let mut kept = Vec::with_capacity(list.len());
        let mut found = None;
        for (i, &c) in list.iter().enumerate() {
            if found.is_some() {
                kept.extend_from_slice(&list[i..]);
                break;
            }
            if self.chunks[c].busy {
                kept.push(c);
                continue;
            }
            let siblings = self.siblings(zones, c);
            if siblings.is_empty() {
                continue;
            }
            kept.push(c);
            let free: Vec<usize> = siblings
                .into_iter()
                .filter(|s| !self.chunks[*s].busy && !used(self.chunks[*s].shard))
                .collect();
            if !free.is_empty() {
                found = Some((c, free));
            }
        }
        if kept.is_empty() {
            self.small.remove(&shard);
        } else {
            self.small.insert(shard, kept);
        }
        found
    }

    /// `_removeIteratorFromSmallChunks`.
    pub(crate) fn remove_small(&mut self, chunk: usize, shard: ShardIdx) {
        if let Some(list) = self.small.get_mut(&shard) {
            list.retain(|c| *c != chunk);
            if list.is_empty() {
                self.small.remove(&shard);
            }
        }
    }

    /// Sorts a shard's small chunks by increasing estimate (stable).
    pub(crate) fn sort_small(&mut self, shard: ShardIdx) {
        if let Some(mut list) = self.small.remove(&shard) {
            list.sort_by_key(|c| self.chunks[*c].estimate);
            self.small.insert(shard, list);
        }
    }
}
