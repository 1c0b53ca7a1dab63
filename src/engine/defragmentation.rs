//! Chunk defragmentation (6.0 on, so the 8.0 mode only): what the balancer does for a
//! collection once `configureCollectionBalancing` set `defragmentCollection: true`.
//!
//! As MongoDB's `src/mongo/db/s/balancer/balancer_defragmentation_policy.cpp` (the
//! policy) and `balancer.cpp` (its place in the balancer) run it, on the simulated clock:
//!
//! - **The flag.** `defragmentCollection: true` goes into the collection's
//!   `config.collections` entry ([`Defragmentation`] on the collection's `Sharding`). The
//!   balancer's own state (`_defragmentationStates`) is built at the start of a balancer
//!   round (`startCollectionDefragmentations`), from the persisted
//!   `defragmentationPhase`, or from the first phase, which is then persisted. While the
//!   flag is set the ordinary balancing and the AutoMerger leave the collection alone
//!   (`canBalanceCollection`, the AutoMerger's `defragmentCollection: {$ne: true}`), and
//!   `balancerCollectionStatus` answers `defragmentingChunks` with the phase's progress.
//! - **Phase 1, `mergeAndMeasureChunks`.** Every run of adjacent chunks on one shard and
//!   in one zone is merged, and every chunk without an estimate is measured (`dataSize`
//!   with `estimate: true`: its documents times the shard's average document size,
//!   capped at the small-chunk threshold, past which it is marked big) into
//!   `config.chunks`' `estimatedDataSizeBytes`.
//! - **Phase 2, `moveAndMergeChunks`.** A chunk is small when its estimate is at most 25%
//!   of the collection's chunk size. Each round, shards from the one holding the most of
//!   the collection down, each shard's smallest small chunk with a sibling (the chunk
//!   before or after it, in the same zone, on a shard that is not draining) is moved to
//!   the sibling's shard and merged with it; the sibling is ranked as
//!   `_rankMergeableSibling` ranks it (no move needed, a smaller chunk moving to a larger
//!   one, a merge leaving fewer small chunks). A shard takes part in one such migration
//!   a round. The phase ends when no small chunk has a sibling to go to.
//! - **Phase 3, `mergeChunks`.** Runs of adjacent chunks on one shard and zone are
//!   merged again. The split phase of 6.0 is gone in 7.0 on, so the next is `finished`:
//!   the estimates, `defragmentCollection` and `defragmentationPhase` are unset.
//! - **Timing.** The merges and measurements are the balancer's *streaming actions*,
//!   which a second thread runs as soon as they are ready, one after another; ShardLab
//!   runs them at the end of each balancer round, all at once (each completes before the
//!   next begins, and none fails). A phase that completes is followed at once by the
//!   next. The migrations are chosen with the round's others, before the ordinary
//!   balancing. So phase 1 ends in the round that started it, phase 2 moves chunks from
//!   the next round on, and phase 3 follows the round that found no small chunk left.
//! - **Stopping.** `defragmentCollection: false` aborts: the running phase drops its
//!   work and the persisted phase becomes `finished`; the flags go at the next round
//!   (not while the balancer is off, so the collection still reports
//!   `defragmentingChunks` until then). A chunk changed by hand under phase 2 (a move,
//!   split or merge of the chunks it picked) fails the migration or merge, and
//!   defragmentation starts again from phase 1, as a non-retriable error restarts it.

use crate::engine::balancer::{Migration, ShardSet};
use crate::engine::chunks::{Chunk, ShardIdx};
use crate::engine::cluster::Cluster;
use crate::engine::defragmentation_state::{
    DefragPhase, MoveAndMerge, Pending, Range, RangeInfo, Running, Work, BIG_CHUNK_MARKER,
    SMALL_CHUNK_SIZE_THRESHOLD_PCT,
};
use crate::engine::events::EventKind;
use crate::keys::shard_key::KeyValue;
use std::collections::BTreeMap;

impl Cluster {
    /// Whether `ns` is being defragmented (`defragmentCollection: true`).
    pub fn defragmenting(&self, ns: &str) -> bool {
        self.sharding(ns).is_ok_and(|s| s.defrag.is_some())
    }

    /// The sharded namespaces being defragmented, in name order.
    fn defragmenting_namespaces(&self) -> Vec<String> {
        self.collections
            .iter()
            .filter(|(_, c)| c.sharding.as_ref().is_some_and(|s| s.defrag.is_some()))
            .map(|(ns, _)| ns.clone())
            .collect()
    }

    /// `configureCollectionBalancing`'s `defragmentCollection: false`
    /// (`abortCollectionDefragmentation`): a running phase drops its work and is followed
    /// by `finished`, which is also the phase persisted; nothing for a collection not
    /// being defragmented.
    pub(crate) fn abort_defragmentation(&mut self, ns: &str) {
        let Ok(s) = self.sharding_mut(ns) else { return };
        let Some(d) = s.defrag.as_mut() else { return };
        if let Some(r) = d.running.as_mut() {
            r.abort(DefragPhase::Finished);
        }
        d.phase = Some(DefragPhase::Finished);
    }

    /// Forgets the balancer's state for `ns` (a reshard gives it a new UUID, a refine new
    /// bounds), keeping the flag and the persisted phase; its chunks' estimates went with
    /// their old bounds.
    pub(crate) fn restart_defragmentation(&mut self, ns: &str) {
        if let Ok(s) = self.sharding_mut(ns) {
            if let Some(d) = s.defrag.as_mut() {
                d.running = None;
                d.estimates.clear();
            }
        }
    }

    /// The defragmentation's part of a balancer round (8.0 mode), before the ordinary
    /// balancing: start the collections flagged since the last round
    /// (`startCollectionDefragmentations`), then choose and run phase 2's migrations
    /// (`selectChunksToMove`), each shard in at most one.
    pub(crate) fn defragmentation_round(&mut self, used: &mut ShardSet, done: &mut Vec<Migration>) {
        let namespaces = self.defragmenting_namespaces();
        for ns in &namespaces {
            if self
                .sharding(ns)
                .is_ok_and(|s| s.defrag.as_ref().is_some_and(|d| d.running.is_none()))
            {
                self.initialize_defragmentation(ns);
            }
        }
        // One migration per collection at a time, in turn, until none has another.
        let mut chosen: Vec<(String, usize, usize)> = Vec::new();
        let mut turn: Vec<String> = namespaces;
        while !turn.is_empty() {
            turn.retain(|ns| match self.pop_next_migration(ns, used) {
                Some((m, w)) => {
                    chosen.push((ns.clone(), m, w));
                    true
                }
                None => false,
            });
        }
        for (ns, m, w) in chosen {
            if let Some(migration) = self.run_defrag_migration(&ns, m, w) {
                done.push(migration);
            }
        }
    }

    /// The streaming actions after a balancer round (8.0 mode): every merge and
    /// measurement ready, phase after phase, until every collection's phase waits for
    /// migrations or is finished.
    pub(crate) fn run_defragmentation_streams(&mut self) {
        for ns in self.defragmenting_namespaces() {
            // Every action shrinks the work left, so this ends; the bound only guards
            // against a mistake turning into a hang.
            for _ in 0..1_000_000 {
                self.advance_defragmentation(&ns);
                if !self.defrag_stream_step(&ns) {
                    break;
                }
            }
        }
    }

    /// `_initializeCollectionState`: the persisted phase (else phase 1, persisted), and
    /// the phases after it while they complete at once.
    fn initialize_defragmentation(&mut self, ns: &str) {
        let Some(persisted) = self.sharding(ns).ok().and_then(|s| s.defrag.as_ref()) else {
            return;
        };
        let (phase, persist) = match persisted.phase {
            Some(p) => (p, false),
            None => (DefragPhase::MergeAndMeasureChunks, true),
        };
        let running = self.transition_defragmentation(ns, phase, persist);
        self.set_running(ns, running);
        self.advance_defragmentation(ns);
    }

    /// `_advanceToNextActionablePhase`: while the running phase is complete, the next.
    fn advance_defragmentation(&mut self, ns: &str) {
        loop {
            let next = match self.running(ns) {
                Some(r) if r.is_complete() => r.next,
                _ => return,
            };
            let running = self.transition_defragmentation(ns, next, true);
            self.set_running(ns, running);
        }
    }

    fn running(&self, ns: &str) -> Option<&Running> {
        self.sharding(ns).ok()?.defrag.as_ref()?.running.as_ref()
    }

    fn running_mut(&mut self, ns: &str) -> Option<&mut Running> {
        self.sharding_mut(ns)
            .ok()?
            .defrag
            .as_mut()?
            .running
            .as_mut()
    }

    fn set_running(&mut self, ns: &str, running: Option<Running>) {
        if let Ok(s) = self.sharding_mut(ns) {
            if let Some(d) = s.defrag.as_mut() {
                d.running = running;
            }
        }
    }

    /// `_transitionPhases`: persists `phase` when asked, then builds it; `finished`
    /// clears the estimates and both flags (`_clearDefragmentationState`).
    fn transition_defragmentation(
        &mut self,
        ns: &str,
        phase: DefragPhase,
        persist: bool,
    ) -> Option<Running> {
        let s = self.sharding_mut(ns).ok()?;
        if persist {
            if let Some(d) = s.defrag.as_mut() {
                d.phase = Some(phase);
            }
        }
        match phase {
            DefragPhase::MergeAndMeasureChunks => Some(self.build_merge_and_measure(ns)),
            DefragPhase::MoveAndMergeChunks => Some(self.build_move_and_merge(ns)),
            DefragPhase::MergeChunks => Some(self.build_merge_chunks(ns)),
            DefragPhase::Finished => {
                s.defrag = None;
                None
            }
        }
    }

    /// The small-chunk threshold of `ns` in bytes.
    fn small_chunk_threshold(&self, ns: &str) -> u64 {
        (self.chunk_size_for(ns) / 100) * SMALL_CHUNK_SIZE_THRESHOLD_PCT
    }

    /// The runs of `ns`'s chunks that `areMergeable` joins (adjacent, one shard, one
    /// zone), found from the last chunk back, each with its shard and chunk count.
    fn mergeable_runs(&self, ns: &str) -> Vec<(ShardIdx, Range, usize)> {
        let Ok(s) = self.sharding(ns) else {
            return Vec::new();
        };
        let chunks: Vec<&Chunk> = s.table.iter().collect();
        let zone = |c: &Chunk| s.zones.zone_for_range(&c.min, &c.max);
        let mut runs = Vec::new();
        let mut hi = chunks.len();
        while hi > 0 {
            let mut lo = hi - 1;
            while lo > 0
                && chunks[lo - 1].shard == chunks[lo].shard
                && zone(chunks[lo - 1]) == zone(chunks[lo])
                && chunks[lo - 1].max == chunks[lo].min
            {
                lo -= 1;
            }
            runs.push((
                chunks[lo].shard,
                (chunks[lo].min.clone(), chunks[hi - 1].max.clone()),
                hi - lo,
            ));
            hi = lo;
        }
        runs
    }

    /// `MergeAndMeasureChunksPhase::build`: a merge per run of two or more chunks, a
    /// measurement per lone chunk without an estimate.
    fn build_merge_and_measure(&self, ns: &str) -> Running {
        let mut pending: BTreeMap<ShardIdx, Pending> = BTreeMap::new();
        let defrag = self.sharding(ns).ok().and_then(|s| s.defrag.as_ref());
        for (shard, range, n) in self.mergeable_runs(ns) {
            if n > 1 {
                pending.entry(shard).or_default().to_merge.push(range);
            } else if defrag
                .and_then(|d| d.estimate(&range.0, &range.1))
                .is_none()
            {
                pending.entry(shard).or_default().to_measure.push(range);
            }
        }
        Running {
            work: Work::MergeAndMeasure {
                pending,
                cursor: None,
                threshold: self.small_chunk_threshold(ns),
            },
            next: DefragPhase::MoveAndMergeChunks,
        }
    }

    /// `MergeChunksPhase::build`: a merge per run of two or more chunks.
    fn build_merge_chunks(&self, ns: &str) -> Running {
        let mut pending: BTreeMap<ShardIdx, Vec<Range>> = BTreeMap::new();
        for (shard, range, n) in self.mergeable_runs(ns) {
            if n > 1 {
                pending.entry(shard).or_default().push(range);
            }
        }
        Running {
            work: Work::MergeChunks {
                pending,
                cursor: None,
            },
            next: DefragPhase::Finished,
        }
    }

    /// `MoveAndMergeChunksPhase::build`: the chunks with their estimates (one without
    /// sends the collection back to phase 1), each shard's small chunks, and the shards
    /// by the collection's size on them.
    fn build_move_and_merge(&self, ns: &str) -> Running {
        let threshold = self.small_chunk_threshold(ns) as i64;
        let mut m = MoveAndMerge {
            chunks: Vec::new(),
            small: BTreeMap::new(),
            shards: BTreeMap::new(),
            order: Vec::new(),
            outstanding: Vec::new(),
            actionable: Vec::new(),
            threshold,
        };
        let mut running = Running {
            work: Work::MoveAndMerge(Box::new(m.clone())),
            next: DefragPhase::MergeChunks,
        };
        let Ok(s) = self.sharding(ns) else {
            return running;
        };
        let Some(defrag) = s.defrag.as_ref() else {
            return running;
        };
        for c in s.table.iter() {
            let Some(estimate) = defrag.estimate(&c.min, &c.max) else {
                running.abort(DefragPhase::MergeAndMeasureChunks);
                return running;
            };
            let at = m.chunks.len();
            m.chunks.push(RangeInfo {
                min: c.min.clone(),
                max: c.max.clone(),
                shard: c.shard,
                estimate,
                busy: false,
                prev: at.checked_sub(1),
                next: None,
            });
            if at > 0 {
                m.chunks[at - 1].next = Some(at);
            }
        }
        for (i, c) in m.chunks.iter().enumerate() {
            if c.estimate <= threshold {
                m.small.entry(c.shard).or_default().push(i);
            }
        }
        let shards: Vec<ShardIdx> = m.small.keys().copied().collect();
        for shard in shards {
            m.sort_small(shard);
        }
        for (idx, shard) in self.shards() {
            let bytes = s.table.shard_totals(idx).1;
            m.shards.insert(
                idx,
                (i64::try_from(bytes).unwrap_or(i64::MAX), shard.draining),
            );
            m.order.push(idx);
        }
        m.sort_order();
        running.work = Work::MoveAndMerge(Box::new(m));
        running
    }

    /// `MoveAndMergeChunksPhase::popNextMigration`: the first shard in size order, not
    /// busy this round, with a small chunk that can go to a sibling; the best sibling by
    /// rank (the left one when they tie and its shard holds less); both shards are then
    /// busy for the round.
    fn pop_next_migration(&mut self, ns: &str, used: &mut ShardSet) -> Option<(usize, usize)> {
        let zones = self.sharding(ns).ok()?.zones.clone();
        let running = self.running_mut(ns)?;
        let Work::MoveAndMerge(m) = &mut running.work else {
            return None;
        };
        let order = m.order.clone();
        for shard in order {
            if used.contains(&shard) {
                continue;
            }
            let Some((chunk, siblings)) = m.next_small_chunk(&zones, shard, |s| used.contains(&s))
            else {
                continue;
            };
            let mut target = siblings[0];
            if let Some(&challenger) = siblings.last() {
                if challenger != target {
                    let (t, c) = (m.rank(chunk, target), m.rank(chunk, challenger));
                    let size = |at: usize| m.shards.get(&m.chunks[at].shard).map_or(0, |s| s.0);
                    if c > t || (c == t && size(challenger) < size(target)) {
                        target = challenger;
                    }
                }
            }
            m.chunks[chunk].busy = true;
            m.chunks[target].busy = true;
            used.insert(m.chunks[chunk].shard);
            used.insert(m.chunks[target].shard);
            m.outstanding.push((chunk, target));
            return Some((chunk, target));
        }
        None
    }

    /// Whether `ns` has exactly the chunk `[min, max)` on `shard`.
    fn has_chunk(&self, ns: &str, min: &KeyValue, max: &KeyValue, shard: ShardIdx) -> bool {
        self.sharding(ns).is_ok_and(|s| {
            s.table
                .get(min)
                .is_some_and(|c| c.max == *max && c.shard == shard)
        })
    }

    /// Runs phase 2's migration of chunk `m` to the shard of its sibling `w` (a
    /// `moveRange` of exactly the chunk), and applies the result to the phase: on
    /// success the shards' sizes change and the merge is ready; a chunk too big to move
    /// is no small chunk after all; a chunk that is not where the phase thinks restarts
    /// defragmentation from phase 1.
    fn run_defrag_migration(&mut self, ns: &str, m: usize, w: usize) -> Option<Migration> {
        let (chunk, sibling) = {
            let Work::MoveAndMerge(mm) = &self.running(ns)?.work else {
                return None;
            };
            (mm.chunks[m].clone(), mm.chunks[w].clone())
        };
        let to = sibling.shard;
        let from = chunk.shard;
        let in_place = self.has_chunk(ns, &chunk.min, &chunk.max, from)
            && self.has_chunk(ns, &sibling.min, &sibling.max, to);
        let too_big = in_place
            && from != to
            && self
                .sharding(ns)
                .ok()
                .and_then(|s| s.table.get(&chunk.min).cloned())
                .is_some_and(|c| self.too_big_to_move(ns, &c).is_some());
        let migration = if !in_place || too_big {
            None
        } else if from == to {
            Some(Migration {
                ns: ns.to_string(),
                min: chunk.min.clone(),
                max: chunk.max.clone(),
                from,
                to,
            })
        } else {
            self.commit_move(ns, &chunk.min, to)
        };
        let running = self.running_mut(ns)?;
        let Work::MoveAndMerge(mm) = &mut running.work else {
            return None;
        };
        mm.outstanding.retain(|p| *p != (m, w));
        if migration.is_some() {
            let moved = mm.chunks[m].estimate;
            if let Some(s) = mm.shards.get_mut(&from) {
                s.0 = s.0.saturating_sub(moved);
            }
            if let Some(s) = mm.shards.get_mut(&to) {
                s.0 = s.0.saturating_add(moved);
            }
            mm.sort_order();
            mm.actionable.push((m, w));
            return migration;
        }
        mm.chunks[m].busy = false;
        mm.chunks[w].busy = false;
        if too_big {
            mm.remove_small(m, from);
        } else {
            running.abort(DefragPhase::MergeAndMeasureChunks);
        }
        None
    }

    /// One streaming action of `ns`'s running phase, applied at once; false when the
    /// phase has none ready.
    fn defrag_stream_step(&mut self, ns: &str) -> bool {
        let Some(running) = self.running_mut(ns) else {
            return false;
        };
        match &mut running.work {
            Work::MergeAndMeasure {
                pending,
                cursor,
                threshold,
            } => {
                let Some(shard) = cursor
                    .filter(|c| pending.contains_key(c))
                    .or_else(|| pending.keys().next().copied())
                else {
                    return false;
                };
                let threshold = *threshold;
                let Some(p) = pending.get_mut(&shard) else {
                    return false;
                };
                let action = if p.to_measure.len() > p.to_merge.len() {
                    p.to_measure.pop().map(|r| (r, false))
                } else {
                    p.to_merge.pop().map(|r| (r, true))
                };
                if p.to_merge.is_empty() && p.to_measure.is_empty() {
                    pending.remove(&shard);
                }
                *cursor = pending
                    .range((std::ops::Bound::Excluded(shard), std::ops::Bound::Unbounded))
                    .next()
                    .map(|(k, _)| *k);
                let Some((range, merge)) = action else {
                    return true;
                };
                if merge {
                    if self.commit_defrag_merge(ns, &range.0, &range.1, shard) {
                        // The merged range is measured next.
                        if let Some(Work::MergeAndMeasure { pending, .. }) =
                            self.running_mut(ns).map(|r| &mut r.work)
                        {
                            pending.entry(shard).or_default().to_measure.push(range);
                        }
                    } else if let Some(r) = self.running_mut(ns) {
                        r.abort(DefragPhase::MergeAndMeasureChunks);
                    }
                } else {
                    let estimate = self.estimate_data_size(ns, &range.0, &range.1, threshold);
                    if let Ok(s) = self.sharding_mut(ns) {
                        if let Some(d) = s.defrag.as_mut() {
                            d.estimates.insert(range.0, (range.1, estimate));
                        }
                    }
                }
                true
            }
            Work::MergeChunks { pending, cursor } => {
                let Some(shard) = cursor
                    .filter(|c| pending.contains_key(c))
                    .or_else(|| pending.keys().next().copied())
                else {
                    return false;
                };
                let Some(list) = pending.get_mut(&shard) else {
                    return false;
                };
                let range = list.pop();
                if list.is_empty() {
                    pending.remove(&shard);
                }
                *cursor = pending
                    .range((std::ops::Bound::Excluded(shard), std::ops::Bound::Unbounded))
                    .next()
                    .map(|(k, _)| *k);
                if let Some((lo, hi)) = range {
                    if !self.commit_defrag_merge(ns, &lo, &hi, shard) {
                        if let Some(r) = self.running_mut(ns) {
                            r.abort(DefragPhase::MergeChunks);
                        }
                    }
                }
                true
            }
            Work::MoveAndMerge(m) => {
                if m.actionable.is_empty() {
                    return false;
                }
                let (chunk, sibling) = m.actionable.remove(0);
                let (c, s) = (m.chunks[chunk].clone(), m.chunks[sibling].clone());
                let left = s.max == c.min;
                let (lo, hi) = if left {
                    (s.min.clone(), c.max.clone())
                } else {
                    (c.min.clone(), s.max.clone())
                };
                if !self.commit_defrag_merge(ns, &lo, &hi, s.shard) {
                    if let Some(r) = self.running_mut(ns) {
                        r.abort(DefragPhase::MergeAndMeasureChunks);
                    }
                    return true;
                }
                let Some(Work::MoveAndMerge(m)) = self.running_mut(ns).map(|r| &mut r.work) else {
                    return true;
                };
                let merged = &mut m.chunks[sibling];
                merged.min = lo;
                merged.max = hi;
                merged.estimate =
                    if c.estimate == BIG_CHUNK_MARKER || merged.estimate == BIG_CHUNK_MARKER {
                        BIG_CHUNK_MARKER
                    } else {
                        merged.estimate.saturating_add(c.estimate)
                    };
                merged.busy = false;
                let (merged_shard, merged_estimate) = (merged.shard, merged.estimate);
                m.remove_small(chunk, c.shard);
                if merged_estimate > m.threshold {
                    m.remove_small(sibling, merged_shard);
                } else {
                    m.sort_small(merged_shard);
                }
                // Unlink the chunk merged away.
                let (prev, next) = (m.chunks[chunk].prev, m.chunks[chunk].next);
                if let Some(p) = prev {
                    m.chunks[p].next = next;
                }
                if let Some(n) = next {
                    m.chunks[n].prev = prev;
                }
                true
            }
        }
    }

    /// `dataSize` with `estimate: true` and `maxSize` (phase 1's measurement): the range's
    /// documents times the average document size of the collection on its shard, or the
    /// big-chunk marker past `max_size`.
    fn estimate_data_size(&self, ns: &str, lo: &KeyValue, hi: &KeyValue, max_size: u64) -> i64 {
        let Ok(s) = self.sharding(ns) else { return 0 };
        let Some(c) = s.table.get(lo) else { return 0 };
        let (docs, bytes) = s.table.shard_totals(c.shard);
        let avg = bytes.checked_div(docs).unwrap_or(0);
        let docs_in_range: u64 = s
            .table
            .iter()
            .filter(|c| c.min >= *lo && c.max <= *hi)
            .map(|c| c.docs)
            .sum();
        let size = docs_in_range.saturating_mul(avg);
        if max_size > 0 && size > max_size {
            BIG_CHUNK_MARKER
        } else {
            i64::try_from(size).unwrap_or(BIG_CHUNK_MARKER)
        }
    }

    /// Merges the chunks of `ns` tiling `[lo, hi)` on `shard` into one (the
    /// `_shardsvrMergeChunks` the balancer sends), with the next minor version, logged as
    /// a `merge`. False when the range is not two or more adjacent chunks of `shard`.
    fn commit_defrag_merge(
        &mut self,
        ns: &str,
        lo: &KeyValue,
        hi: &KeyValue,
        shard: ShardIdx,
    ) -> bool {
        let Ok(s) = self.sharding(ns) else {
            return false;
        };
        let run: Vec<Chunk> = s
            .table
            .iter()
            .skip_while(|c| c.min < *lo)
            .take_while(|c| c.min < *hi)
            .cloned()
            .collect();
        let tiles = run.first().is_some_and(|c| c.min == *lo)
            && run.last().is_some_and(|c| c.max == *hi)
            && run.windows(2).all(|w| w[0].max == w[1].min)
            && run.iter().all(|c| c.shard == shard);
        if !tiles || run.len() < 2 {
            return false;
        }
        let mut version = s.table.collection_version();
        version.minor += 1;
        let merged = Chunk::merged(&run, shard, version);
        let Ok(s) = self.sharding_mut(ns) else {
            return false;
        };
        for c in &run[1..] {
            s.table.replace(&c.min, Vec::new());
        }
        s.table.replace(lo, vec![merged]);
        self.push_event(EventKind::Merge {
            ns: ns.to_string(),
            min: lo.clone(),
            max: hi.clone(),
        });
        true
    }
}
