//! The AutoMerger (7.0+): while the balancer runs, it merges the contiguous chunks each
//! shard holds of a collection, once they have stayed there longer than the snapshot
//! history window, so that chunks split long ago do not pile up.
//!
//! As MongoDB's `src/mongo/db/s/balancer/auto_merger_policy.cpp` and `balancer.cpp` run
//! it, on the simulated clock:
//! - **When.** The balancer's main loop enables it at each round while the balancer is
//!   on and the `automerge` setting is not off (`shouldBalanceForAutoMerge`), and
//!   disables it when the balancer is off. Enabling starts a round at once (`_init`);
//!   then each balancer round checks whether the interval timer's whole seconds exceed
//!   `autoMergerIntervalSecs` (3,600) since the last round began, and starts a new one
//!   if the last has drained (`_checkInternalUpdatesWithLock`). ShardLab also disables it
//!   while the `automerge` setting is off (MongoDB leaves the policy enabled but stops
//!   consuming its actions), and only the 8.0 mode (standing for 7.0 on) has one.
//! - **What.** A round lists, per shard in name order, the collections with
//!   `enableAutoMerge` not false that have a chunk on that shard older than the history
//!   window (its aggregation over `config.collections` and `config.chunks`), and takes
//!   them from the back of each shard's list. Each is one `mergeAllChunksOnShard`
//!   (`ShardingCatalogManager::commitMergeAllChunksOnShard`): the shard's non-jumbo chunks
//!   whose `onCurrentShardSince` is before now minus the history window, in key order,
//!   runs of adjacent ones merged into one chunk each, at most
//!   `MAX_NUMBER_OF_CHUNKS_TO_MERGE` (1,000) chunks a request; each new chunk takes the
//!   next minor version and the latest `onCurrentShardSince` of its run, and is logged as
//!   a `merge`. A pair that merged something is taken again once every shard has been
//!   visited (`_rescheduledCollectionsToMergePerShard`).
//! - **How fast.** Moving on to the next shard waits `autoMergerThrottlingMS` (15 s)
//!   after the previous action (`applyThrottling` in `_consumeActionStreamLoop`); the
//!   namespaces of one shard go at once.
//!
//! The history window is `getHistoryWindowInSeconds`
//! (sharding_catalog_manager_chunk_operations.cpp): the largest of
//! `minSnapshotHistoryWindowInSeconds` (300), `transactionLifetimeLimitSeconds` (60) and
//! 10, so 300 s.

use crate::engine::chunks::{Chunk, ShardIdx};
use crate::engine::cluster::{Cluster, VersionMode};
use crate::engine::events::EventKind;
use bson::Document;

/// `autoMergerIntervalSecs`' default: the seconds between the starts of two rounds.
pub const AUTO_MERGER_INTERVAL_SECS: i64 = 3_600;

/// `autoMergerThrottlingMS`' default: the wait before the actions on the next shard.
pub const AUTO_MERGER_THROTTLING_MS: i64 = 15_000;

/// `AutoMergerPolicy::MAX_NUMBER_OF_CHUNKS_TO_MERGE`: the most chunks one
/// `mergeAllChunksOnShard` merges.
pub const MAX_CHUNKS_TO_MERGE: usize = 1_000;

/// The snapshot history window, in seconds: a chunk that came to its shard more recently
/// is not merged (`getHistoryWindowInSeconds`).
pub const HISTORY_WINDOW_SECS: i64 = crate::engine::config_catalog::HISTORY_WINDOW_SECS;

/// The most shards the AutoMerger visits in one advance of the clock; the rest wait for
/// the next advance, due at once (as the balancer's `MAX_ROUNDS_PER_ADVANCE`).
pub const MAX_MERGE_VISITS_PER_ADVANCE: u32 = 1_000;

/// The namespaces to merge per shard.
type Work = Vec<(String, Vec<String>)>;

impl Cluster {
    /// Whether the AutoMerger may run now: a 7.0- or 8.0-mode cluster whose settings
    /// refresh succeeds (a failed one skips the whole balancer round), whose balancer is
    /// on and whose `automerge` setting is not off, inside the balancing window
    /// (`shouldBalanceForAutoMerge`).
    fn merger_allowed(&self) -> bool {
        self.version() >= VersionMode::V70
            && self.settings_refresh_ok()
            && self.balancer_enabled
            && self.automerge_on()
            && self.in_balancing_window()
    }

    /// What `_refreshAutoMergeSettings` takes from the `automerge` document: on without
    /// one (`AutoMergeSettingsType::createDefault`), else its boolean `enabled`.
    pub(crate) fn automerge_on(&self) -> bool {
        self.automerge_setting.as_ref().map_or(
            Some(true),
            crate::engine::balancer_settings::enabled_setting,
        ) == Some(true)
    }

    /// Stores `config.settings`' `automerge` document as written (`None`: deleted), as
    /// `sh.startAutoMerger()`, `sh.stopAutoMerger()` (`{$set: {enabled}}` upserts, shard.ts)
    /// or an administrator through the config database write it. The next balancer round
    /// reads it: `{enabled: false}` stops the AutoMerger, no document or `{enabled: true}`
    /// lets it run, and one whose `enabled` is not a boolean fails the round's refresh.
    pub fn write_automerge_setting(&mut self, doc: Option<Document>) {
        self.automerge_setting = doc;
    }

    /// What a balancer round does for the AutoMerger, at the clock's time: disable it,
    /// enable it (a round at once), or start its next round when the interval has passed.
    pub(crate) fn merger_on_balancer_round(&mut self) {
        let now = self.clock.now_us;
        if !self.merger_allowed() {
            let m = &mut self.clock.merger;
            m.round_start_us = None;
            m.fresh = false;
            m.queue.clear();
            m.rescheduled.clear();
            m.next_visit_us = None;
            return;
        }
        let due = match self.clock.merger.round_start_us {
            None => true,
            Some(_) => self.merger_round_due_us().is_some_and(|t| t <= now),
        };
        if due {
            let m = &mut self.clock.merger;
            m.round_start_us = Some(now);
            m.fresh = true;
            m.queue.clear();
            m.rescheduled.clear();
            m.next_visit_us = Some(now);
        }
    }

    /// From when a balancer round would start the AutoMerger's next round (microseconds
    /// since the clock's epoch): once the last has drained and the timer's whole seconds
    /// exceed the interval. `None` while it is disabled or busy.
    pub(crate) fn merger_round_due_us(&self) -> Option<i64> {
        let m = &self.clock.merger;
        let start = m.round_start_us?;
        let drained = m.next_visit_us.is_none() && m.queue.is_empty() && m.rescheduled.is_empty();
        (drained && self.merger_allowed())
            .then(|| start.saturating_add((AUTO_MERGER_INTERVAL_SECS + 1) * 1_000_000))
    }

    /// The AutoMerger's next shard, at the clock's time: its `mergeAllChunksOnShard`s, then
    /// when the next is due. Returns how many chunks it merged.
    pub(crate) fn merger_visit(&mut self) -> u64 {
        let oldest_ms = self.now_ms() - HISTORY_WINDOW_SECS * 1_000;
        if std::mem::take(&mut self.clock.merger.fresh) {
            self.clock.merger.queue = self.merger_work(oldest_ms);
        }
        let mut merged = 0;
        if !self.clock.merger.queue.is_empty() {
            let (shard, mut namespaces) = self.clock.merger.queue.remove(0);
            while let Some(ns) = namespaces.pop() {
                let n = self.merge_all_chunks_on_shard(&ns, &shard, oldest_ms, MAX_CHUNKS_TO_MERGE);
                if n > 0 {
                    merged += n;
                    reschedule(&mut self.clock.merger.rescheduled, &shard, ns);
                }
            }
        }
        let m = &mut self.clock.merger;
        if m.queue.is_empty() {
            m.queue = std::mem::take(&mut m.rescheduled);
        }
        m.next_visit_us = (!m.queue.is_empty()).then(|| {
            self.clock
                .now_us
                .saturating_add(AUTO_MERGER_THROTTLING_MS * 1_000)
        });
        merged
    }

    /// The round's work: per live shard in name order, the sharded collections with
    /// auto-merge on that have a chunk on it older than the history window.
    fn merger_work(&self, oldest_ms: i64) -> Work {
        let mut shards: Vec<(String, ShardIdx)> =
            self.shards().map(|(i, s)| (s.name.clone(), i)).collect();
        shards.sort_by(|a, b| a.0.cmp(&b.0));
        let mut work: Work = shards
            .iter()
            .map(|(n, _)| (n.clone(), Vec::new()))
            .collect();
        for (ns, coll) in self.collections() {
            let Some(s) = &coll.sharding else { continue };
            // The AutoMerger's aggregation matches `enableAutoMerge: {$ne: false}` and
            // `defragmentCollection: {$ne: true}`.
            if s.auto_merge == Some(false) || s.defrag.is_some() {
                continue;
            }
            let since = crate::engine::config_catalog::chunks_on_shard_since_ms(self, ns);
            for ((_, idx), (_, list)) in shards.iter().zip(work.iter_mut()) {
                let old = s
                    .table
                    .iter()
                    .zip(&since)
                    .any(|(c, t)| c.shard == *idx && *t < oldest_ms);
                if old {
                    list.push(ns.clone());
                }
            }
        }
        work.retain(|(_, list)| !list.is_empty());
        work
    }

    /// `mergeAllChunksOnShard` (`commitMergeAllChunksOnShard`): merges each run of adjacent
    /// mergeable chunks `shard` holds of `ns` (not jumbo, on the shard since before
    /// `oldest_ms`), at most `max` chunks in all, and logs each merge. Returns how many
    /// chunks were merged.
    pub(crate) fn merge_all_chunks_on_shard(
        &mut self,
        ns: &str,
        shard: &str,
        oldest_ms: i64,
        max: usize,
    ) -> u64 {
        let since = crate::engine::config_catalog::chunks_on_shard_since_ms(self, ns);
        let Ok(s) = self.sharding(ns) else { return 0 };
        let Some(idx) = self
            .shards()
            .find(|(_, sh)| sh.name == shard)
            .map(|(i, _)| i)
        else {
            return 0;
        };
        let runs = mergeable_runs(s.table.iter().zip(since), idx, oldest_ms, max);
        let mut version = s.table.collection_version();
        let mut merged = 0;
        for run in runs {
            version.minor += 1;
            merged += run.len() as u64;
            let (lo, hi) = (run[0].min.clone(), run[run.len() - 1].max.clone());
            let new = Chunk::merged(&run, idx, version);
            let Ok(s) = self.sharding_mut(ns) else {
                return merged;
            };
            for c in &run[1..] {
                s.table.replace(&c.min, Vec::new());
            }
            s.table.replace(&lo, vec![new]);
            self.push_event(EventKind::Merge {
                ns: ns.to_string(),
                min: lo,
                max: hi,
            });
        }
        merged
    }
}

impl Cluster {
    /// `{mergeAllChunksOnShard: ns, shard, maxNumberOfChunksToMerge}` (7.0 on): mongos
    /// looks the shard up (`ShardRegistry::getShard`), then the config server merges the
    /// shard's runs of adjacent non-jumbo chunks that came to it before the history window
    /// (`commitMergeAllChunksOnShard`), stopping once `max` chunks are taken (none: no
    /// limit). A namespace that is not sharded is refused there
    /// (`getCollectionAndVersion`). Returns how many chunks were merged.
    pub fn merge_all_chunks_on_shard_command(
        &mut self,
        ns: &str,
        shard: &str,
        max: Option<usize>,
    ) -> Result<u64, crate::engine::cluster::ClusterError> {
        use crate::engine::cluster::ClusterError;
        if self.shards().all(|(_, s)| s.name != shard) {
            return Err(ClusterError::ShardNotFound(format!(
                "Shard {shard} not found"
            )));
        }
        if self.sharding(ns).is_err() {
            return Err(ClusterError::ConflictingOperationInProgress(format!(
                "Sharded collection '{ns}' no longer exists"
            )));
        }
        let oldest_ms = self.now_ms() - HISTORY_WINDOW_SECS * 1_000;
        Ok(self.merge_all_chunks_on_shard(ns, shard, oldest_ms, max.unwrap_or(usize::MAX)))
    }
}

/// The runs of two or more adjacent mergeable chunks among `chunks` (in key order, each
/// with the time it came to its shard), stopping once `max` chunks are taken, as
/// `commitMergeAllChunksOnShard` reads the shard's chunks sorted by `min`.
fn mergeable_runs<'a>(
    chunks: impl Iterator<Item = (&'a Chunk, i64)>,
    shard: ShardIdx,
    oldest_ms: i64,
    max: usize,
) -> Vec<Vec<Chunk>> {
    let mut runs: Vec<Vec<Chunk>> = Vec::new();
    let mut run: Vec<Chunk> = Vec::new();
    let mut taken = 0;
    let close = |run: &mut Vec<Chunk>, runs: &mut Vec<Vec<Chunk>>, taken: &mut usize| {
        if run.len() > 1 {
            *taken += run.len();
            runs.push(std::mem::take(run));
        }
        run.clear();
    };
    for (c, since) in chunks {
        if c.shard != shard || c.jumbo || since >= oldest_ms {
            continue;
        }
        if run.last().is_some_and(|last| last.max != c.min) {
            close(&mut run, &mut runs, &mut taken);
        }
        run.push(c.clone());
        if taken + run.len() == max {
            break;
        }
    }
    close(&mut run, &mut runs, &mut taken);
    runs
}

/// Adds `ns` to `shard`'s rescheduled namespaces (shards in name order).
fn reschedule(rescheduled: &mut Work, shard: &str, ns: String) {
    match rescheduled.iter().position(|(s, _)| s.as_str() >= shard) {
        Some(i) if rescheduled[i].0 == shard => rescheduled[i].1.push(ns),
        Some(i) => rescheduled.insert(i, (shard.to_string(), vec![ns])),
        None => rescheduled.push((shard.to_string(), vec![ns])),
    }
}
