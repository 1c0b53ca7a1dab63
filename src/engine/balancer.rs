//! Migrations and the balancer (spec §7): manual `moveChunk`/`moveRange`, balancer rounds
//! for each version mode, zones, and draining shards for `removeShard`.

use crate::engine::chunks::{Chunk, ShardIdx};
use crate::engine::cluster::{id_move, not_sharded, Cluster, ClusterError, VersionMode, ZoneRange};
use crate::engine::events::{EventKind, ZoneChange};
use crate::engine::split::{chunk_query_key, key_from_bound, shard_key_bound};
use crate::engine::store::DocAt;
use crate::engine::zone_chunks::{ZoneChunks, ZoneRanges};
use crate::keys::shard_key::{format_bson_obj, KeyValue};
use bson::Document;

/// One chunk migration, as the balancer or a user asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Migration {
    /// The namespace.
    pub ns: String,
    /// The moved range's lower bound.
    pub min: KeyValue,
    /// The moved range's upper bound.
    pub max: KeyValue,
    /// The donor shard.
    pub from: ShardIdx,
    /// The recipient shard.
    pub to: ShardIdx,
}

impl Migration {
    /// A move of `chunk` to the shard that already holds it: nothing to do, and it
    /// succeeds (shardsvr_move_range_command.cpp, `_runImpl`, from 6.0).
    fn in_place(ns: &str, chunk: &Chunk) -> Migration {
        Migration {
            ns: ns.to_string(),
            min: chunk.min.clone(),
            max: chunk.max.clone(),
            from: chunk.shard,
            to: chunk.shard,
        }
    }
}

/// Where `removeShard` stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoveShardState {
    /// Draining just started.
    Started {
        /// Databases whose primary is on the shard.
        dbs_to_move: Vec<String>,
    },
    /// Chunks or databases remain on the shard.
    Ongoing {
        /// Chunks left on the shard.
        chunks: u64,
        /// Databases whose primary is still on the shard.
        dbs_to_move: Vec<String>,
        /// Jumbo chunks left on the shard; `None` in 3.6, whose reply has no such count
        /// (configsvr_remove_shard_command.cpp 3.6 counts only chunks and databases).
        jumbo_chunks: Option<u64>,
    },
    /// The shard left the cluster.
    Completed,
}

/// How many chunk sizes the most and least loaded shards must differ by before the 6.0.3+
/// balancer moves data (`_singleZoneBalanceBasedOnDataSize`, spec §7).
pub const MIGRATION_SIZE_FACTOR: u64 = 3;

/// The balancing policy of a version mode (spec §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BalancePolicy {
    /// 3.4/3.6: chunk counts around `ceil(chunks / shards)`, with a threshold of 1 or 2.
    ChunkCountCeil,
    /// 4.4/5.0: chunk counts around `round(chunks / shards)`.
    ChunkCountRound,
    /// 6.0.3+: data size around `data / shards`, moving when shards differ by three chunk
    /// sizes.
    DataSize,
}

impl BalancePolicy {
    /// The policy `version` balances with.
    pub fn of(version: VersionMode) -> BalancePolicy {
        match version {
            VersionMode::V36 => BalancePolicy::ChunkCountCeil,
            VersionMode::V50 => BalancePolicy::ChunkCountRound,
            VersionMode::V70 | VersionMode::V80 => BalancePolicy::DataSize,
        }
    }

    /// Whether loads are bytes (else chunk counts).
    pub fn by_size(self) -> bool {
        self == BalancePolicy::DataSize
    }
}

/// What one pass of a zone's policy found (see `Cluster::zone_decision`).
#[derive(Debug, Clone, PartialEq)]
pub enum ZoneOutcome {
    /// The donor's first non-jumbo chunk of the zone moves to the recipient.
    Move {
        /// The chunk, as it was before the move (8.0 first cuts about one chunk size off
        /// its front).
        chunk: Chunk,
    },
    /// No shard is in the zone.
    NoShards,
    /// 6.0.3+: the zone's shards hold no data.
    NoData,
    /// Every shard already takes part in a migration this round.
    NoDonor,
    /// No suitable recipient: none is free, in the zone and not draining.
    NoRecipient,
    /// The most loaded shard is also the least loaded suitable one.
    SameShard,
    /// The most loaded shard holds no more than the ideal.
    DonorNotAboveIdeal,
    /// The least loaded shard holds no less than the ideal.
    RecipientNotBelowIdeal,
    /// The imbalance is under the threshold (3.6: the donor's excess over the ideal; 8.0:
    /// the difference between donor and recipient).
    BelowThreshold,
    /// The donor's chunks of the zone are all jumbo.
    NoMovableChunk,
}

/// One decision of a zone's policy, with the figures it used.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneDecision {
    /// The zone, or `None` for the chunks in no zone.
    pub zone: Option<String>,
    /// The policy that decided.
    pub policy: BalancePolicy,
    /// Each shard's load, by shard index: chunks of the zone, or (6.0.3+) the
    /// collection's bytes.
    pub loads: Vec<u64>,
    /// The chunks (or bytes) the ideal divides.
    pub total: u64,
    /// The shards it divides them over.
    pub shards: u64,
    /// The ideal load per shard.
    pub ideal: u64,
    /// The threshold: 3.6's excess in chunks, 5.0's 1 chunk over the ideal, 8.0's bytes
    /// between donor and recipient.
    pub threshold: u64,
    /// The most loaded shard not busy this round, with its load.
    pub donor: Option<(ShardIdx, u64)>,
    /// The least loaded suitable shard, with its load (when the policy looked for one).
    pub recipient: Option<(ShardIdx, u64)>,
    /// What the policy decided.
    pub outcome: ZoneOutcome,
}

/// One step of a balancer round, as [`Cluster::balancer_round_plan`] reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundStep {
    /// A draining shard's turn to give up a chunk (never a jumbo one).
    Drain {
        /// The draining shard.
        from: ShardIdx,
        /// The chunks it still holds.
        chunks: u64,
        /// The shard the policy chose to take one of them, or `None` when no shard could
        /// take any of its non-jumbo chunks.
        to: Option<ShardIdx>,
        /// The migration made: `None` also when the donor refused the chosen chunk as too
        /// big, and the balancer split it or marked it jumbo instead.
        migration: Option<Migration>,
    },
    /// A chunk on a shard outside its zone was sent into the zone.
    ZoneViolation {
        /// The shard holding the chunk.
        from: ShardIdx,
        /// The chunk's zone.
        zone: String,
        /// The shard of the zone the policy chose to take it.
        to: ShardIdx,
        /// The migration made (`None` when the donor refused the chunk as too big).
        migration: Option<Migration>,
    },
    /// One pass of a zone's policy.
    Zone(ZoneDecision),
}

impl Cluster {
    /// The zone a chunk belongs to: the zone range that contains it entirely, if any.
    pub fn zone_of(zones: &ZoneRanges, chunk: &Chunk) -> Option<String> {
        zones.zone_at(chunk).map(|z| z.zone.clone())
    }

    /// Moves the chunk starting at `min` to `to` ([`Cluster::commit_move_cut`] for a chunk
    /// that is whole).
    pub(crate) fn commit_move(
        &mut self,
        ns: &str,
        min: &KeyValue,
        to: ShardIdx,
    ) -> Option<Migration> {
        self.commit_move_cut(ns, min, to, None)
    }

    /// Moves the chunk starting at `min` to `to`, and its documents' `_id`s to the
    /// recipient's index, giving the chunks the versions `commitChunkMigration` writes
    /// (sharding_catalog_manager_chunk_operations.cpp, 3.6 to 8.0): the collection
    /// version's major plus one with minor 0 to the moved chunk; then, with the same major
    /// and the next minors, the pieces of `cut` (the chunk it was cut from in the commit,
    /// 6.0's `moveRange`) left and right of it, which keep the original chunk's history;
    /// then the donor's control chunk, any other chunk it still holds
    /// (`getControlChunkForMigrate`: `{uuid, shard, min: {$ne: ..}}`, limit 1, answered
    /// from the `{uuid: 1, shard: 1, min: 1}` index, so its first in key order; in 3.6
    /// the donor names it the same way from its metadata).
    pub(crate) fn commit_move_cut(
        &mut self,
        ns: &str,
        min: &KeyValue,
        to: ShardIdx,
        cut: Option<(KeyValue, KeyValue)>,
    ) -> Option<Migration> {
        let coll = self.collections.get_mut(ns)?;
        let sharding = coll.sharding.as_mut()?;
        let mut version = sharding.table.collection_version();
        version.major += 1;
        version.minor = 0;
        let from = sharding.table.get(min)?.shard;
        if from == to {
            return None;
        }
        let chunk = sharding.table.move_chunk(min, to)?;
        let (cmin, cmax) = (chunk.min.clone(), chunk.max.clone());
        let (docs, bytes) = (chunk.docs, chunk.bytes);
        sharding.table.set_version(&cmin, version);
        let (orig_min, orig_max) = cut.unwrap_or_else(|| (cmin.clone(), cmax.clone()));
        let mut others = Vec::new();
        if orig_min != cmin {
            others.push(orig_min.clone());
        }
        if orig_max != cmax {
            others.push(cmax.clone());
        }
        let control = sharding
            .table
            .iter()
            .find(|c| c.shard == from && (c.min < orig_min || c.min >= orig_max))
            .map(|c| c.min.clone());
        others.extend(control);
        for piece in others {
            version.minor += 1;
            sharding.table.set_version(&piece, version);
        }
        for ((key, seq), stored) in crate::engine::store::range(&coll.docs, &cmin, &cmax) {
            let at = DocAt::new(key.clone(), *seq);
            id_move(&mut coll.ids, stored.id(), from, to, at);
        }
        let (from_name, to_name) = (
            self.shard_name(from).to_string(),
            self.shard_name(to).to_string(),
        );
        self.push_event(EventKind::MoveChunkStart {
            ns: ns.to_string(),
            min: cmin.clone(),
            max: cmax.clone(),
            from: from_name.clone(),
            to: to_name.clone(),
        });
        self.push_event(EventKind::MoveChunkCommit {
            ns: ns.to_string(),
            min: cmin.clone(),
            max: cmax.clone(),
            from: from_name,
            to: to_name,
            docs,
            bytes,
        });
        self.migrations += 1;
        Some(Migration {
            ns: ns.to_string(),
            min: cmin,
            max: cmax,
            from,
            to,
        })
    }

    /// Whether `shard` may receive a chunk of zone `zone` (spec §7).
    fn suitable_receiver(&self, shard: ShardIdx, zone: Option<&str>) -> bool {
        let s = &self.shards[shard as usize];
        !s.removed && !s.draining && zone.is_none_or(|z| s.zones.contains(z))
    }

    /// The load a recipient is chosen by, for every shard (indexed by shard index),
    /// whatever the chunk's zone: the collection's chunk count on the shard before 6.0
    /// (`distribution.numberOfChunksInShard`), its data size after (`shardToDataSizeMap`).
    /// One pass over the chunks serves a whole choice, instead of one pass per shard.
    fn receiver_loads(&self, ns: &str) -> Vec<u64> {
        let mut out = vec![0u64; self.shards.len()];
        let Ok(s) = self.sharding(ns) else { return out };
        let by_size = self.config.version >= VersionMode::V70;
        for c in s.table.iter() {
            if let Some(load) = out.get_mut(c.shard as usize) {
                *load += if by_size { c.bytes } else { 1 };
            }
        }
        out
    }

    /// MongoDB's `_getLeastLoadedReceiverShard`: among the shards that may take a chunk
    /// of `zone`, the one with the fewest chunks of the collection (of any zone), or
    /// from 6.0.3 the least data; ties go to the first shard in order.
    fn least_loaded_receiver(
        &self,
        ns: &str,
        zone: Option<&str>,
        used: &ShardSet,
    ) -> Option<ShardIdx> {
        self.least_loaded_in(&self.receiver_loads(ns), zone, used)
    }

    /// [`Cluster::least_loaded_receiver`] with the loads already computed.
    fn least_loaded_in(
        &self,
        loads: &[u64],
        zone: Option<&str>,
        used: &ShardSet,
    ) -> Option<ShardIdx> {
        let mut best: Option<(ShardIdx, u64)> = None;
        for (i, _) in self.shards() {
            if used.contains(&i) || !self.suitable_receiver(i, zone) {
                continue;
            }
            let load = loads[i as usize];
            if best.is_none_or(|(_, b)| load < b) {
                best = Some((i, load));
            }
        }
        best.map(|(i, _)| i)
    }

    /// After an auto-split, moves the new single-document top or bottom chunk to the least
    /// loaded shard by chunk count, if that is another shard (5.0 `balanceSingleChunk`).
    pub(crate) fn rebalance_single_chunk(&mut self, ns: &str, min: &KeyValue) {
        let Ok(s) = self.sharding(ns) else { return };
        let Some(chunk) = s.table.get(min) else {
            return;
        };
        let zone = Cluster::zone_of(&s.zones, chunk);
        let from = chunk.shard;
        if let Some(to) = self.least_loaded_receiver(ns, zone.as_deref(), &ShardSet::default()) {
            if to != from {
                self.commit_move(ns, min, to);
            }
        }
    }

    /// `sh.moveChunk(ns, find, toShard)`: moves the chunk holding the shard key of `find`.
    pub fn move_chunk(
        &mut self,
        ns: &str,
        find: &Document,
        to: &str,
    ) -> Result<Migration, ClusterError> {
        let s = self.sharding(ns)?;
        // mongos checks the destination before it reads `find` (`cluster_move_chunk_cmd.cpp`).
        self.move_destination(ns, to)?;
        let key = chunk_query_key(&s.pattern, find)?;
        let chunk = s
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        self.move_chunk_at(ns, &chunk, to)
    }

    /// The destination shard of a `moveChunk`, or mongos's `ShardNotFound` in the words of
    /// the mode's release: 3.6 quotes the namespace and shard, 4.4+ logs and asserts the
    /// LOGV2 message 22755 (`cluster_move_chunk_cmd.cpp`).
    fn move_destination(&self, ns: &str, to: &str) -> Result<ShardIdx, ClusterError> {
        self.shard_index(to).map_err(|_| {
            ClusterError::ShardNotFound(match self.version() {
                VersionMode::V36 => format!(
                    "Could not move chunk in '{ns}' to shard '{to}' because that shard does not exist"
                ),
                _ => format!(
                    "Could not move chunk in {ns} to {to} because that shard does not exist"
                ),
            })
        })
    }

    /// `moveChunk` with `bounds: [min, max]`: moves exactly that chunk.
    pub fn move_chunk_bounds(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
        to: &str,
    ) -> Result<Migration, ClusterError> {
        let s = self.sharding(ns)?;
        self.move_destination(ns, to)?;
        let (Some(lo), Some(hi)) = (
            shard_key_bound(&s.pattern, min),
            shard_key_bound(&s.pattern, max),
        ) else {
            return Err(ClusterError::Errmsg(format!(
                "shard key bounds [{},{}) are not valid for shard key pattern {}",
                format_bson_obj(min),
                format_bson_obj(max),
                format_bson_obj(&s.pattern.to_pattern_document())
            )));
        };
        let chunk = s
            .table
            .get(&lo)
            .filter(|c| c.max == hi)
            .cloned()
            .ok_or_else(|| {
                ClusterError::Errmsg(format!(
                    "no chunk found with the shard key bounds [{}, {})",
                    format_bson_obj(&s.pattern.to_document(&lo)),
                    format_bson_obj(&s.pattern.to_document(&hi))
                ))
            })?;
        self.move_chunk_at(ns, &chunk, to)
    }

    /// The donor's refusal of a chunk too big to move
    /// (migration_chunk_cloner_source.cpp, `_storeCurrentLocs`): with the average document
    /// size of the collection on the donor shard, a full chunk holds `max size / average`
    /// documents; the chunk is too big when it holds more than 130% of that (3.6, and at
    /// most 250,001) or twice that (4.4 on). Returns that most and the average; the jumbo
    /// flag alone refuses nothing.
    pub(crate) fn too_big_to_move(&self, ns: &str, chunk: &Chunk) -> Option<(u64, u64)> {
        let (docs, bytes) = self.sharding(ns).ok()?.table.shard_totals(chunk.shard);
        if docs == 0 {
            return None;
        }
        let avg = bytes / docs;
        let full = self.chunk_size_for(ns) / avg.max(1);
        let max_docs = match self.version() {
            VersionMode::V36 => (130 * full / 100).min(250_001),
            _ => 2 * full.max(1),
        };
        (chunk.docs > max_docs).then_some((max_docs, avg))
    }

    fn move_chunk_at(
        &mut self,
        ns: &str,
        chunk: &Chunk,
        to: &str,
    ) -> Result<Migration, ClusterError> {
        let to_idx = self.shard_index(to)?;
        if chunk.shard == to_idx {
            // From 6.0 mongos sends `_configsvrMoveRange` (cluster_move_chunk_cmd.cpp) and
            // the donor returns at once when it is the recipient
            // (shardsvr_move_range_command.cpp, `_runImpl`).
            if self.version() >= VersionMode::V70 {
                return Ok(Migration::in_place(ns, chunk));
            }
            return Err(ClusterError::InvalidOptions(
                "Destination shard cannot be the same as source".to_string(),
            ));
        }
        if let Some((max_docs, avg)) = self.too_big_to_move(ns, chunk) {
            return Err(ClusterError::ChunkTooBig(format!(
                "Cannot move chunk: the maximum number of documents for a chunk is {max_docs}, the maximum chunk size is {}, average document size is {avg}. Found {} documents in chunk  ns: {ns} {} -> {}",
                self.chunk_size_for(ns),
                chunk.docs,
                format_bson_obj(&self.sharding(ns)?.pattern.to_document(&chunk.min)),
                format_bson_obj(&self.sharding(ns)?.pattern.to_document(&chunk.max)),
            )));
        }
        self.commit_move(ns, &chunk.min, to_idx)
            .ok_or_else(|| not_sharded(ns))
    }

    /// `sh.moveRange(ns, toShard, min, max)` (6.0+): moves `[min, max)`, splitting the
    /// chunk that holds it as needed. Without `max`, the range is about one chunk size of
    /// data starting at `min`; without `min` (7.0 on), about one chunk size of data ending
    /// at `max` (`Cluster::lower_bound_for`). One of them must be given.
    pub fn move_range(
        &mut self,
        ns: &str,
        to: &str,
        min: Option<&Document>,
        max: Option<&Document>,
    ) -> Result<Migration, ClusterError> {
        // mongos wants a bound first (cluster_move_range_cmd.cpp); the config server then
        // looks the recipient up (configsvr_move_range_command.cpp, "Could not find
        // destination shard" over ShardRegistry::getShard's "Shard <id> not found").
        if min.is_none() && max.is_none() {
            return Err(missing_bound());
        }
        let to_idx = self.shard_index(to).map_err(|_| {
            ClusterError::ShardNotFound(format!(
                "Could not find destination shard :: caused by :: Shard {to} not found"
            ))
        })?;
        let s = self.sharding(ns)?;
        let invalid = |e| invalid_move_range(ns, &s.pattern, min, max, e);
        let hi = max
            .map(|m| key_from_bound(&s.pattern, m))
            .transpose()
            .map_err(invalid)?;
        let lo = match (min, &hi) {
            (Some(m), _) => key_from_bound(&s.pattern, m).map_err(invalid)?,
            (None, Some(hi)) => self
                .lower_bound_for(ns, hi, self.chunk_size_for(ns))
                .ok_or_else(|| not_sharded(ns))?,
            (None, None) => return Err(missing_bound()),
        };
        let s = self.sharding(ns)?;
        let chunk = s
            .table
            .chunk_for(&lo)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        if let Some(hi) = &hi {
            if *hi <= lo || *hi > chunk.max {
                return Err(ClusterError::BadValue(format!(
                    "The range [{}, {}) is not owned by a single chunk",
                    format_bson_obj(&s.pattern.to_document(&lo)),
                    format_bson_obj(&s.pattern.to_document(hi))
                )));
            }
        }
        if chunk.shard == to_idx {
            // shardsvr_move_range_command.cpp, `_runImpl`: a range already on the
            // recipient is a migration with nothing to do, and succeeds.
            return Ok(Migration::in_place(ns, &chunk));
        }
        if lo != chunk.min {
            self.apply_split_for_move(ns, &chunk, std::slice::from_ref(&lo));
        }
        match hi {
            Some(hi) => {
                let piece = self
                    .sharding(ns)?
                    .table
                    .get(&lo)
                    .cloned()
                    .ok_or_else(|| not_sharded(ns))?;
                if hi != piece.max {
                    self.apply_split_for_move(ns, &piece, std::slice::from_ref(&hi));
                }
            }
            None => {
                let size = self.chunk_size_for(ns);
                self.split_front(ns, &lo, size);
            }
        }
        let cut = Some((chunk.min.clone(), chunk.max.clone()));
        self.commit_move_cut(ns, &lo, to_idx, cut)
            .ok_or_else(|| not_sharded(ns))
    }

    /// Runs one balancer round over every sharded collection (spec §7). Each shard takes
    /// part in at most one migration per round. Returns the migrations made.
    pub fn balance_round(&mut self) -> Vec<Migration> {
        let mut done = Vec::new();
        if !self.balancer_enabled {
            return done;
        }
        let mut used = ShardSet::default();
        // 6.0 on: the defragmentation policy's migrations come first
        // (`Balancer::_mainThread`, `chunksToDefragment` before `chunksToRebalance`).
        let defragments = self.config.version == VersionMode::V80;
        if defragments {
            self.defragmentation_round(&mut used, &mut done);
        }
        // A collection being defragmented is not balanced (`canBalanceCollection`).
        let namespaces: Vec<String> = self
            .collections
            .iter()
            .filter(|(_, c)| {
                c.sharding
                    .as_ref()
                    .is_some_and(|s| s.balancing && s.defrag.is_none())
            })
            .map(|(ns, _)| ns.clone())
            .collect();
        for ns in namespaces {
            self.split_at_zone_boundaries(&ns);
            self.balance_collection(&ns, &mut used, &mut done);
        }
        self.balanced_last_time = !done.is_empty();
        if defragments {
            // The merges and measurements the round made ready run until the next.
            self.run_defragmentation_streams();
        }
        done
    }

    /// Runs one balancer round for a single collection, as `sh.balance` would (the
    /// policy's migrations only, none for a collection being defragmented).
    pub fn balance_collection_round(&mut self, ns: &str) -> Result<Vec<Migration>, ClusterError> {
        let mut done = Vec::new();
        // A collection being defragmented is the defragmentation's, not the balancer
        // policy's (`canBalanceCollection`).
        if self.sharding(ns)?.defrag.is_some() {
            return Ok(done);
        }
        self.split_at_zone_boundaries(ns);
        self.balance_collection(ns, &mut ShardSet::default(), &mut done);
        self.balanced_last_time = !done.is_empty();
        Ok(done)
    }

    /// Splits chunks that straddle a zone boundary, so every chunk is in at most one zone:
    /// each such chunk once, at every boundary inside it, as the balancer's
    /// `_splitChunksIfNeeded` does with `splitChunkAtMultiplePoints`
    /// (src/mongo/s/balancer/balancer.cpp; the split keys per chunk come from the chunk
    /// selection policy's split candidates). Splitting once per chunk also reads each
    /// document once, where a split per boundary re-counted the rest of the chunk each time.
    fn split_at_zone_boundaries(&mut self, ns: &str) {
        let Ok(s) = self.sharding(ns) else { return };
        // The ranges are in key order and do not overlap, so their bounds come sorted (a
        // range's upper bound may equal the next one's lower bound).
        let bounds = s.zones.iter().flat_map(|z| [&z.min, &z.max]);
        let mut splits: Vec<(Chunk, Vec<KeyValue>)> = Vec::new();
        for b in bounds {
            let Some(c) = s.table.chunk_for(b) else {
                continue;
            };
            // A bound at a chunk's edge needs no split; MaxKey, the upper bound of a
            // range to the end of the key space, is no chunk's inside either.
            if c.min == *b || c.max <= *b {
                continue;
            }
            match splits.last_mut() {
                Some((last, points)) if last.min == c.min => {
                    if points.last() != Some(b) {
                        points.push(b.clone());
                    }
                }
                _ => splits.push((c.clone(), vec![b.clone()])),
            }
        }
        for (c, points) in splits {
            self.apply_split(ns, &c, &points);
        }
    }

    /// `balancerCollectionStatus`'s `firstComplianceViolation` for `ns`, `None` when the
    /// collection is compliant (`Balancer::getBalancerStatusForNs`, 4.4 to 8.0): a chunk
    /// across a zone boundary, which the balancer must first split there
    /// (`selectChunksToSplit`), is a zone violation; otherwise the reason of the first
    /// migration a round would choose (`selectChunksToMove`): `draining`,
    /// `zoneViolation` or `chunksImbalance`. A chunk the round cannot move (a jumbo one,
    /// or one no shard may take) is no violation.
    pub fn first_violation(&self, ns: &str) -> Option<&'static str> {
        let s = self.sharding(ns).ok()?;
        if s.table.iter().any(|c| s.zones.straddles(c)) {
            return Some("zoneViolation");
        }
        // Which migrations a round chooses depends on chunk metadata only, so the probe
        // leaves the documents behind.
        let mut probe = self.routing_probe(ns);
        let mut trace = Vec::new();
        probe.balance_collection_traced(
            ns,
            &mut ShardSet::default(),
            &mut Vec::new(),
            Some(&mut trace),
        );
        trace.iter().find_map(|step| match step {
            RoundStep::Drain { to: Some(_), .. } => Some("draining"),
            RoundStep::ZoneViolation { .. } => Some("zoneViolation"),
            RoundStep::Zone(d) if matches!(d.outcome, ZoneOutcome::Move { .. }) => {
                Some("chunksImbalance")
            }
            _ => None,
        })
    }

    fn balance_collection(&mut self, ns: &str, used: &mut ShardSet, done: &mut Vec<Migration>) {
        self.balance_collection_traced(ns, used, done, None);
    }

    /// The round of [`Cluster::balance_collection`], noting each decision in `trace` when
    /// one is given: the explanations read the very decisions the balancer takes.
    fn balance_collection_traced(
        &mut self,
        ns: &str,
        used: &mut ShardSet,
        done: &mut Vec<Migration>,
        mut trace: Option<&mut Vec<RoundStep>>,
    ) {
        self.drain_step(ns, used, done, trace.as_deref_mut());
        self.zone_violation_step(ns, used, done, trace.as_deref_mut());
        // 3. Each zone, in name order, and then the chunks in no zone, are balanced on
        // their own (MongoDB's `tagsPlusEmpty`).
        let Some(mut index) = self.chunks_by_zone(ns) else {
            return;
        };
        let named = index.names().to_vec();
        let zone_names = named.into_iter().map(Some).chain(std::iter::once(None));
        for zone in zone_names {
            while self.balance_zone(
                ns,
                zone.as_deref(),
                used,
                done,
                trace.as_deref_mut(),
                &mut index,
            ) {}
        }
    }

    /// A round's first step: each draining shard gives up one chunk, the first in key
    /// order that some shard may take. Jumbo chunks stay where they are, in every era
    /// (balancer_policy.cpp, `balance`: "if (chunk.getJumbo()) { numJumboChunks++;
    /// continue; }"). A migration the policy chooses takes both shards out of the round
    /// even if the donor then refuses the chunk as too big (the balancer splits it or
    /// marks it jumbo instead). From 7.0, a draining shard that gives nothing while the
    /// collection has no migration yet takes no further part in the round
    /// (`availableShards->erase(stat.shardId)`).
    fn drain_step(
        &mut self,
        ns: &str,
        used: &mut ShardSet,
        done: &mut Vec<Migration>,
        mut trace: Option<&mut Vec<RoundStep>>,
    ) {
        let mut chosen = false;
        let draining: Vec<ShardIdx> = self
            .shards()
            .filter(|(_, s)| s.draining)
            .map(|(i, _)| i)
            .collect();
        for from in draining {
            if used.contains(&from) {
                continue;
            }
            let Ok(s) = self.sharding(ns) else { return };
            let on_shard: Vec<Chunk> = s
                .table
                .iter()
                .filter(|c| c.shard == from)
                .cloned()
                .collect();
            if on_shard.is_empty() {
                continue;
            }
            let (mut to, mut migration) = (None, None);
            for chunk in on_shard.iter().filter(|c| !c.jumbo) {
                let zone = self
                    .sharding(ns)
                    .ok()
                    .and_then(|s| Cluster::zone_of(&s.zones, chunk));
                let mut excluded = used.clone();
                excluded.insert(from);
                let Some(receiver) = self.least_loaded_receiver(ns, zone.as_deref(), &excluded)
                else {
                    continue;
                };
                chosen = true;
                used.insert(from);
                used.insert(receiver);
                to = Some(receiver);
                // 4.4 on force the chunk off the draining shard (`ForceJumbo::kForceBalancer`);
                // 3.6's donor refuses one too big, as for any migration.
                let force = self.config.version != VersionMode::V36;
                migration = self.balancer_move(ns, &chunk.min, receiver, force);
                done.extend(migration.clone());
                break;
            }
            if self.config.version >= VersionMode::V70 && !chosen {
                used.insert(from);
            }
            if let Some(t) = trace.as_deref_mut() {
                t.push(RoundStep::Drain {
                    from,
                    chunks: on_shard.len() as u64,
                    to,
                    migration,
                });
            }
        }
    }

    /// A round's second step: on each shard still free, the first non-jumbo chunk that
    /// lies in a zone the shard is not in goes to the least loaded shard of that zone.
    fn zone_violation_step(
        &mut self,
        ns: &str,
        used: &mut ShardSet,
        done: &mut Vec<Migration>,
        mut trace: Option<&mut Vec<RoundStep>>,
    ) {
        if self.sharding(ns).map_or(true, |s| s.zones.is_empty()) {
            return;
        }
        let shard_ids: Vec<ShardIdx> = self.shards().map(|(i, _)| i).collect();
        for from in shard_ids {
            if used.contains(&from) {
                continue;
            }
            let Ok(s) = self.sharding(ns) else { return };
            let violating: Vec<(Chunk, String)> = s
                .table
                .iter()
                .filter(|c| c.shard == from && !c.jumbo)
                .filter_map(|c| s.zones.zone_at(c).map(|z| (c.clone(), z.zone.clone())))
                .filter(|(_, z)| !self.shards[from as usize].zones.contains(z))
                .collect();
            for (chunk, zone) in violating {
                let Some(to) = self.least_loaded_receiver(ns, Some(&zone), used) else {
                    continue;
                };
                used.insert(from);
                used.insert(to);
                let migration = self.balancer_move(ns, &chunk.min, to, false);
                done.extend(migration.clone());
                if let Some(t) = trace.as_deref_mut() {
                    t.push(RoundStep::ZoneViolation {
                        from,
                        zone,
                        to,
                        migration,
                    });
                }
                break;
            }
        }
    }

    /// The chunks of each zone of `ns`, sorted out for a round's decisions.
    fn chunks_by_zone(&self, ns: &str) -> Option<ZoneChunks> {
        let s = self.sharding(ns).ok()?;
        Some(ZoneChunks::new(&s.table, &s.zones, self.shards.len()))
    }

    /// The most loaded shard not yet used this round (ties go to the first shard).
    fn most_loaded(loads: &[u64], shards: &[ShardIdx], used: &ShardSet) -> Option<(ShardIdx, u64)> {
        let mut best: Option<(ShardIdx, u64)> = None;
        for &i in shards {
            if used.contains(&i) {
                continue;
            }
            let load = loads[i as usize];
            if best.is_none_or(|(_, b)| load > b) {
                best = Some((i, load));
            }
        }
        best
    }

    /// One pass of the mode's policy over `zone`: decides, then makes the migration it
    /// decided on. Returns whether the policy chose one. `index` holds the chunks of each zone;
    /// a migration sorts them out again (a round makes at most one per pair of shards).
    fn balance_zone(
        &mut self,
        ns: &str,
        zone: Option<&str>,
        used: &mut ShardSet,
        done: &mut Vec<Migration>,
        trace: Option<&mut Vec<RoundStep>>,
        index: &mut ZoneChunks,
    ) -> bool {
        let decision = self.zone_decision(ns, zone, used, index);
        let moved = match (&decision.outcome, decision.donor, decision.recipient) {
            (ZoneOutcome::Move { chunk }, Some((from, _)), Some((to, _))) => {
                // The policy's choice takes both shards out of the round, whether the
                // donor then moves the chunk or refuses it as too big.
                used.insert(from);
                used.insert(to);
                done.extend(self.balancer_move(ns, &chunk.min, to, false));
                *index = self.chunks_by_zone(ns).unwrap_or_default();
                true
            }
            _ => false,
        };
        if let Some(t) = trace {
            t.push(RoundStep::Zone(decision));
        }
        moved
    }

    /// The chunks a zone balances and the shards it balances them over: a zone's own
    /// chunks over the shards in the zone, and for the chunks in no zone every chunk of
    /// the collection over every shard (draining ones included). `None` without shards.
    fn zone_totals(
        &self,
        ns: &str,
        zone: Option<&str>,
        index: &ZoneChunks,
    ) -> Option<(usize, usize)> {
        let s = self.sharding(ns).ok()?;
        let (chunks, shards) = match zone {
            None => (s.table.len(), self.shards().count()),
            Some(z) => (
                index.len_of(zone),
                self.shards().filter(|(_, sh)| sh.zones.contains(z)).count(),
            ),
        };
        (shards > 0).then_some((chunks, shards))
    }

    /// What the mode's policy decides for `zone` (`None`: the chunks in no zone) with the
    /// shards in `used` already busy this round. The one place each era's rule lives:
    ///
    /// - 3.4/3.6 (`BalancerPolicy::_singleZoneBalance` of that line, spec §7): ideal =
    ///   `ceil(chunks / shards)`, counted as 4.4/5.0 counts them. The donor must hold more
    ///   than the ideal and the recipient fewer, and the donor's excess over the ideal
    ///   must reach the threshold: 1 while the collection has fewer than 20 chunks or when
    ///   the previous round moved a chunk (`_balancedLastTime`), 2 otherwise. (The 2/4/8 table of chunk-count differences is the 3.2 balancer's.)
    /// - 4.4/5.0 (`_singleZoneBalance`): ideal = `roundf(chunks / shards)`, where a zone
    ///   counts its own chunks over the shards in the zone, and the chunks in no zone count
    ///   every chunk of the collection over every shard (draining ones included). The donor
    ///   is the available shard with the most chunks of the zone and must hold more than
    ///   the ideal; the recipient is the suitable shard with the fewest and must hold fewer.
    /// - 6.0.3+ (`_singleZoneBalanceBasedOnDataSize`): the collection's data size on each
    ///   shard. The ideal is the data on the zone's shards (every shard, draining ones
    ///   included, for the chunks in no zone) over their number; the donor (the available
    ///   shard with the most data) must hold more than the ideal and at least
    ///   [`MIGRATION_SIZE_FACTOR`] chunk sizes more than the recipient (7.0/8.0).
    ///
    /// In every era the recipient is the suitable shard with the least load of the whole
    /// collection (chunks of any zone, or data), not of the zone alone
    /// (`_getLeastLoadedReceiverShard`). Ties go to the first shard. The donor gives its
    /// first non-jumbo chunk of the zone.
    pub(crate) fn zone_decision(
        &self,
        ns: &str,
        zone: Option<&str>,
        used: &ShardSet,
        index: &ZoneChunks,
    ) -> ZoneDecision {
        let policy = BalancePolicy::of(self.config.version);
        let loads = index.loads(zone, policy == BalancePolicy::DataSize);
        let mut d = ZoneDecision {
            zone: zone.map(str::to_string),
            policy,
            loads,
            total: 0,
            shards: 0,
            ideal: 0,
            threshold: 0,
            donor: None,
            recipient: None,
            outcome: ZoneOutcome::NoShards,
        };
        let available: Vec<ShardIdx> = self.shards().map(|(i, _)| i).collect();
        match policy {
            BalancePolicy::ChunkCountCeil | BalancePolicy::ChunkCountRound => {
                let Some((total_chunks, total_shards)) = self.zone_totals(ns, zone, index) else {
                    return d;
                };
                d.total = total_chunks as u64;
                d.shards = total_shards as u64;
                if policy == BalancePolicy::ChunkCountCeil {
                    // 3.6 balancer.cpp: `selectChunksToMove(opCtx, _balancedLastTime)`; a
                    // round right after one that moved chunks balances aggressively.
                    let chunks = self.sharding(ns).map_or(0, |s| s.table.len());
                    let aggressive = chunks < 20 || self.balanced_last_time;
                    d.threshold = if aggressive { 1 } else { 2 };
                    d.ideal = total_chunks.div_ceil(total_shards) as u64;
                } else {
                    d.threshold = 1;
                    d.ideal = (total_chunks as f32 / total_shards as f32).round() as u64;
                }
                d.donor = Cluster::most_loaded(&d.loads, &available, used);
                let Some((_, max)) = d.donor else {
                    d.outcome = ZoneOutcome::NoDonor;
                    return d;
                };
                if max <= d.ideal {
                    d.outcome = ZoneOutcome::DonorNotAboveIdeal;
                    return d;
                }
                if max - d.ideal < d.threshold {
                    d.outcome = ZoneOutcome::BelowThreshold;
                    return d;
                }
                // The recipient is the suitable shard with the fewest chunks of the
                // collection, of any zone; its chunks of this zone face the ideal.
                d.recipient = self
                    .least_loaded_in(index.chunk_counts(), zone, used)
                    .map(|to| (to, d.loads[to as usize]));
                let Some((_, min)) = d.recipient else {
                    d.outcome = ZoneOutcome::NoRecipient;
                    return d;
                };
                if min >= d.ideal {
                    d.outcome = ZoneOutcome::RecipientNotBelowIdeal;
                    return d;
                }
            }
            BalancePolicy::DataSize => {
                let in_zone: Vec<ShardIdx> = self
                    .shards()
                    .filter(|(_, s)| zone.is_none_or(|z| s.zones.contains(z)))
                    .map(|(i, _)| i)
                    .collect();
                d.shards = in_zone.len() as u64;
                d.total = in_zone.iter().map(|&i| d.loads[i as usize]).sum();
                d.threshold = MIGRATION_SIZE_FACTOR * self.chunk_size_for(ns);
                if in_zone.is_empty() {
                    return d;
                }
                if d.total == 0 {
                    d.outcome = ZoneOutcome::NoData;
                    return d;
                }
                d.ideal = d.total / d.shards;
                d.donor = Cluster::most_loaded(&d.loads, &available, used);
                d.recipient = self
                    .least_loaded_in(&d.loads, zone, used)
                    .map(|to| (to, d.loads[to as usize]));
                let (Some((from, max)), Some((to, min))) = (d.donor, d.recipient) else {
                    d.outcome = if d.donor.is_none() {
                        ZoneOutcome::NoDonor
                    } else {
                        ZoneOutcome::NoRecipient
                    };
                    return d;
                };
                // 7.0/8.0 `_singleZoneBalanceBasedOnDataSize` checks the donor against
                // the ideal and the gap between the two, not the recipient against the
                // ideal.
                d.outcome = if from == to {
                    ZoneOutcome::SameShard
                } else if max <= d.ideal {
                    ZoneOutcome::DonorNotAboveIdeal
                } else if max.saturating_sub(min) < d.threshold {
                    ZoneOutcome::BelowThreshold
                } else {
                    ZoneOutcome::NoMovableChunk
                };
                if d.outcome != ZoneOutcome::NoMovableChunk {
                    return d;
                }
            }
        }
        let from = d.donor.map_or(0, |(f, _)| f);
        d.outcome = match index.first_movable(zone, from) {
            Some(chunk) => ZoneOutcome::Move {
                chunk: chunk.clone(),
            },
            None => ZoneOutcome::NoMovableChunk,
        };
        d
    }

    /// The steps one balancer round would take for `ns` now, with the decision behind
    /// each, worked out on a copy of the routing table (nothing moves): the round
    /// [`Cluster::balance_collection_round`] would run.
    pub fn balancer_round_plan(&self, ns: &str) -> Result<Vec<RoundStep>, ClusterError> {
        self.sharding(ns)?;
        // A whole copy (documents are shared, not copied): a split at a zone boundary
        // counts the documents of each piece, which the 6.0.3+ policy weighs.
        let mut probe = self.clone();
        probe.split_at_zone_boundaries(ns);
        let mut trace = Vec::new();
        probe.balance_collection_traced(
            ns,
            &mut ShardSet::default(),
            &mut Vec::new(),
            Some(&mut trace),
        );
        Ok(trace)
    }

    /// A migration the balancer asks for: before 6.0 a whole chunk (`moveChunk`); after, a
    /// `moveRange` from the chunk's lower bound, which the donor first cuts to about one
    /// chunk size. `force` is the `forceJumbo: kForceBalancer` that 4.4 on sets for a
    /// chunk leaving a draining shard: the donor moves it however big it is.
    fn balancer_move(
        &mut self,
        ns: &str,
        min: &KeyValue,
        to: ShardIdx,
        force: bool,
    ) -> Option<Migration> {
        let size = self.chunk_size_for(ns);
        let whole = self.sharding(ns).ok()?.table.get(min)?.max.clone();
        if self.config.version >= VersionMode::V70 {
            self.split_front(ns, min, size);
        }
        // The donor refuses a chunk too big to move (ChunkTooBig, the test of
        // `move_chunk_at`), and the balancer then splits it at the points splitVector finds
        // for the chunk size, or marks it jumbo when there are none (balancer.cpp,
        // `_moveChunks` -> `splitOrMarkJumbo`), so it is not tried again as it is.
        let chunk = self.sharding(ns).ok()?.table.get(min)?.clone();
        if !force && self.too_big_to_move(ns, &chunk).is_some() {
            self.split_or_mark_jumbo(ns, &chunk, size);
            return None;
        }
        self.commit_move_cut(ns, min, to, Some((min.clone(), whole)))
    }

    /// `sh.addShardToZone(shard, zone)`.
    pub fn add_shard_to_zone(&mut self, shard: &str, zone: &str) -> Result<(), ClusterError> {
        let idx = self.zone_shard_index(shard)?;
        self.shards[idx as usize].zones.insert(zone.to_string());
        self.push_event(EventKind::Zone {
            change: ZoneChange::Joined {
                shard: shard.to_string(),
                zone: zone.to_string(),
            },
        });
        Ok(())
    }

    /// Whether shard `idx` is the only shard of `zone` and the zone has a range
    /// (`ShardingCatalogManager::_isShardRequiredByZoneStillInUse`).
    fn only_shard_of_zone_in_use(&self, idx: ShardIdx, zone: &str) -> bool {
        let others = self
            .shards()
            .filter(|(i, s)| *i != idx && s.zones.contains(zone))
            .count();
        others == 0
            && (self
                .collections
                .values()
                .filter_map(|c| c.sharding.as_ref())
                .any(|s| s.zones.iter().any(|z| z.zone == zone))
                || self
                    .pending_zones
                    .values()
                    .flatten()
                    .any(|z| z.zone == zone))
    }

    /// `sh.removeShardFromZone(shard, zone)`. Refused while the zone has ranges and this
    /// is its last shard.
    pub fn remove_shard_from_zone(&mut self, shard: &str, zone: &str) -> Result<(), ClusterError> {
        let idx = self.zone_shard_index(shard)?;
        if self.only_shard_of_zone_in_use(idx, zone) {
            return Err(ClusterError::ZoneStillInUse(
                "cannot remove a shard from zone if a chunk range is associated with it"
                    .to_string(),
            ));
        }
        self.shards[idx as usize].zones.remove(zone);
        self.push_event(EventKind::Zone {
            change: ZoneChange::Left {
                shard: shard.to_string(),
                zone: zone.to_string(),
            },
        });
        Ok(())
    }

    /// A shard named in a zone command, or the config server's `ShardNotFound`
    /// (`ShardingCatalogManager::addShardToZone`, `removeShardFromZone`).
    fn zone_shard_index(&self, shard: &str) -> Result<ShardIdx, ClusterError> {
        self.shard_index(shard)
            .map_err(|_| ClusterError::ShardNotFound(format!("shard {shard} does not exist")))
    }

    /// `sh.updateZoneKeyRange(ns, min, max, zone)`; `zone: None` removes the range.
    /// 4.0+ takes a range for a namespace that is not sharded (not even created) as
    /// given, to be checked against the key when it is sharded; 3.6 refuses it.
    pub fn update_zone_key_range(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
        zone: Option<&str>,
    ) -> Result<(), ClusterError> {
        // The order of the config server's checks: the range itself (`ChunkRange`'s
        // parser), then in 4.0+ the zone and the bounds against the shard key
        // (`includeFullShardKey`, which fills a prefix out with MinKey); 3.6's
        // `assignKeyRangeToZone` looks at the shard key before the zone.
        if compare_bound_docs(min, max) != std::cmp::Ordering::Less {
            let message = format!(
                "min: {} should be less than max: {}",
                format_bson_obj(min),
                format_bson_obj(max)
            );
            // 3.6 and 5.0 parse the range with `ChunkRange::fromBSON` (FailedToParse);
            // 8.0's `ChunkRange::validate` answers BadValue.
            return Err(match self.version() {
                VersionMode::V70 | VersionMode::V80 => ClusterError::BadValue(message),
                _ => ClusterError::FailedToParse(message),
            });
        }
        let Ok(s) = self.sharding(ns) else {
            if self.version() == VersionMode::V36 {
                return Err(ClusterError::NamespaceNotSharded(format!(
                    "{ns} is not sharded"
                )));
            }
            return self.update_pending_zone(ns, min, max, zone);
        };
        if self.version() == VersionMode::V36 {
            zone_bound(&s.pattern, min, "min", ns)?;
            zone_bound(&s.pattern, max, "max", ns)?;
        }
        if let Some(zone) = zone {
            self.check_zone_exists(zone)?;
        }
        let lo = zone_bound(&s.pattern, min, "min", ns)?;
        let hi = zone_bound(&s.pattern, max, "max", ns)?;
        let show = |a: &KeyValue, b: &KeyValue, z: &str| {
            format!(
                "{} -->> {}  on  {z}",
                format_bson_obj(&s.pattern.to_document(a)),
                format_bson_obj(&s.pattern.to_document(b))
            )
        };
        let Some(zone) = zone else {
            let sm = self.sharding_mut(ns)?;
            if sm.zones.remove_exact(&lo, &hi) {
                self.push_event(EventKind::Zone {
                    change: ZoneChange::RangeRemoved { ns: ns.to_string() },
                });
            }
            return Ok(());
        };
        if self.version() != VersionMode::V36 {
            check_hashed_zone_range(&s.pattern, &lo, &hi)?;
        }
        if let Some(existing) = s.zones.first_overlap(&lo, &hi) {
            if existing.min == lo && existing.max == hi && existing.zone == zone {
                return Ok(());
            }
            return Err(ClusterError::RangeOverlapConflict(format!(
                "Zone range: {} is overlapping with existing: {}",
                show(&lo, &hi, zone),
                show(&existing.min, &existing.max, &existing.zone)
            )));
        }
        let sm = self.sharding_mut(ns)?;
        sm.zones.insert(ZoneRange {
            min: lo,
            max: hi,
            zone: zone.to_string(),
        });
        self.push_event(EventKind::Zone {
            change: ZoneChange::RangeAdded {
                zone: zone.to_string(),
                ns: ns.to_string(),
            },
        });
        Ok(())
    }

    /// The config server's `ZoneNotFound` for a zone no shard is in.
    fn check_zone_exists(&self, zone: &str) -> Result<(), ClusterError> {
        if self.shards().any(|(_, sh)| sh.zones.contains(zone)) {
            return Ok(());
        }
        Err(ClusterError::ZoneNotFound(format!(
            "zone {zone} does not exist"
        )))
    }

    /// A zone range of a namespace that is not sharded (4.0+ `assignKeyRangeToZone` and
    /// `removeKeyRangeFromZone`): the bounds must name the same fields
    /// (`ChunkRange::extractKeyPattern`), must not overlap another range of the namespace
    /// (compared on those fields, the others' filled out with MinKey), and a range with
    /// the same lower bound is replaced, as the upsert on `{ns, min}` does.
    fn update_pending_zone(
        &mut self,
        ns: &str,
        min: &Document,
        max: &Document,
        zone: Option<&str>,
    ) -> Result<(), ClusterError> {
        if let Some(zone) = zone {
            self.check_zone_exists(zone)?;
        }
        if !min.keys().eq(max.keys()) {
            return Err(ClusterError::ShardKeyNotFound(format!(
                "the shard key of min {} doesn't match with the shard key of max {}",
                format_bson_obj(min),
                format_bson_obj(max)
            )));
        }
        let ranges = self.pending_zones.entry(ns.to_string()).or_default();
        let Some(zone) = zone else {
            ranges.retain(|p| !(p.min == *min && p.max == *max));
            return Ok(());
        };
        let width = min.len();
        let extend = |d: &Document| {
            let mut values: Vec<bson::Bson> = d.values().take(width).cloned().collect();
            values.resize(width, bson::Bson::MinKey);
            KeyValue(values)
        };
        let (lo, hi) = (extend(min), extend(max));
        let show = |a: &Document, b: &Document, z: &str| {
            format!(
                "{} -->> {}  on  {z}",
                format_bson_obj(a),
                format_bson_obj(b)
            )
        };
        if let Some(existing) = ranges
            .iter()
            .find(|p| extend(&p.min) < hi && lo < extend(&p.max))
        {
            if extend(&existing.min) == lo && extend(&existing.max) == hi && existing.zone == zone {
                return Ok(());
            }
            return Err(ClusterError::RangeOverlapConflict(format!(
                "Zone range: {} is overlapping with existing: {}",
                show(min, max, zone),
                show(&existing.min, &existing.max, &existing.zone)
            )));
        }
        ranges.retain(|p| p.min != *min);
        ranges.push(crate::engine::cluster::PendingZone {
            min: min.clone(),
            max: max.clone(),
            zone: zone.to_string(),
        });
        ranges.sort_by(|a, b| compare_bound_docs(&a.min, &b.min));
        self.push_event(EventKind::Zone {
            change: ZoneChange::RangeAdded {
                zone: zone.to_string(),
                ns: ns.to_string(),
            },
        });
        Ok(())
    }

    /// `removeShard`: the first call starts draining; later calls report progress, and
    /// the call after the shard is empty removes it.
    pub fn remove_shard(&mut self, name: &str) -> Result<RemoveShardState, ClusterError> {
        // configsvr_remove_shard_command.cpp (3.6, 4.x): the shard registry lookup fails
        // first, in the command's own words rather than the registry's.
        let idx = self.shard_index(name).map_err(|_| {
            ClusterError::ShardNotFound(format!(
                "Could not drop shard '{name}' because it does not exist"
            ))
        })?;
        self.check_removable(idx)?;
        let dbs_to_move: Vec<String> = self
            .databases
            .iter()
            .filter(|(_, d)| d.primary == idx)
            .map(|(n, _)| n.clone())
            .collect();
        if !self.shards[idx as usize].draining {
            self.shards[idx as usize].draining = true;
            self.push_event(EventKind::RemoveShardStart {
                shard: name.to_string(),
            });
            return Ok(RemoveShardState::Started { dbs_to_move });
        }
        let (mut chunks, mut jumbo) = (0, 0);
        for c in self
            .collections
            .values()
            .filter_map(|c| c.sharding.as_ref())
        {
            for ch in c.table.iter().filter(|ch| ch.shard == idx) {
                chunks += 1;
                jumbo += u64::from(ch.jumbo);
            }
        }
        if chunks > 0 || !dbs_to_move.is_empty() {
            return Ok(RemoveShardState::Ongoing {
                chunks,
                dbs_to_move,
                jumbo_chunks: (self.version() != VersionMode::V36).then_some(jumbo),
            });
        }
        self.shards[idx as usize].removed = true;
        self.push_event(EventKind::RemoveShard {
            shard: name.to_string(),
        });
        Ok(RemoveShardState::Completed)
    }

    /// `removeShard`'s preconditions on the other shards, as each era checks them.
    fn check_removable(&self, idx: ShardIdx) -> Result<(), ClusterError> {
        if self.version() == VersionMode::V36 {
            // 3.6 ShardingCatalogManager::removeShard: one draining shard at a time, then
            // any other shard at all (draining or not) must remain.
            if self.shards().any(|(i, s)| i != idx && s.draining) {
                return Err(ClusterError::ConflictingOperationInProgress(
                    "Can't have more than one draining shard at a time".to_string(),
                ));
            }
            if self.shards().all(|(i, _)| i == idx) {
                return Err(ClusterError::IllegalOperation(
                    "Can't remove last shard".to_string(),
                ));
            }
            return Ok(());
        }
        // 4.4 on, several shards may drain at once, so MongoDB counts the *other* shards
        // that are not draining: removing this one must leave one that keeps its data.
        let others_kept = self
            .shards()
            .filter(|(i, s)| *i != idx && !s.draining)
            .count();
        if others_kept == 0 {
            return Err(ClusterError::IllegalOperation(
                "Operation not allowed because it would remove the last shard".to_string(),
            ));
        }
        // ShardingCatalogManager::removeShard (6.0 on; not in the 4.4 source): the only
        // shard of a zone that has ranges stays, on every call, draining or not.
        if self.version() >= VersionMode::V70 {
            let shard = &self.shards[idx as usize];
            if let Some(zone) = shard
                .zones
                .iter()
                .find(|z| self.only_shard_of_zone_in_use(idx, z))
            {
                return Err(ClusterError::ZoneStillInUse(format!(
                    "Operation not allowed because it would remove the only shard for zone {zone} which has a chunk range is associated with it"
                )));
            }
        }
        Ok(())
    }

    /// `movePrimary`: moves a database's unsharded collections to another shard.
    pub fn move_primary(&mut self, db: &str, to: &str) -> Result<(), ClusterError> {
        let idx = self.shard_index(to)?;
        let d = self
            .databases
            .get_mut(db)
            .ok_or_else(|| ClusterError::NamespaceNotFound(format!("Database {db} not found")))?;
        d.primary = idx;
        Ok(())
    }
}

/// `moveRange` without a bound (cluster_move_range_cmd.cpp, 7.0 on).
fn missing_bound() -> ClusterError {
    ClusterError::InvalidOptions("Missing required parameter 'min' or 'max'".into())
}

/// A `moveRange` bound that is not a shard key: InvalidOptions (move_range_basic.js,
/// "Fail if one of the bounds is not a valid shard key"), in the words of the donor's
/// `checkShardKeyPattern` (chunk_operation_precondition_checks.cpp) when both are given.
fn invalid_move_range(
    ns: &str,
    pattern: &crate::keys::shard_key::KeyPattern,
    min: Option<&Document>,
    max: Option<&Document>,
    error: ClusterError,
) -> ClusterError {
    match (min, max) {
        (Some(lo), Some(hi)) => ClusterError::InvalidOptions(format!(
            "The range [{}, {}) is not valid for collection {ns} with key pattern {}",
            format_bson_obj(lo),
            format_bson_obj(hi),
            format_bson_obj(&pattern.to_pattern_document())
        )),
        _ => ClusterError::InvalidOptions(error.to_string()),
    }
}

/// 4.4+ `checkHashedShardKeyRange` (sharding_catalog_manager_zone_operations.cpp): a
/// hashed field's zone bounds are hashes (NumberLong), MinKey or MaxKey; InvalidOptions
/// otherwise, with the range as extended to the whole key.
fn check_hashed_zone_range(
    pattern: &crate::keys::shard_key::KeyPattern,
    lo: &KeyValue,
    hi: &KeyValue,
) -> Result<(), ClusterError> {
    let hashed_ok = |v: &bson::Bson| {
        matches!(
            v,
            bson::Bson::Int64(_) | bson::Bson::MinKey | bson::Bson::MaxKey
        )
    };
    let bad = pattern.fields().iter().enumerate().any(|(i, (_, kind))| {
        *kind == crate::keys::shard_key::FieldKind::Hashed
            && !(lo.0.get(i).is_some_and(hashed_ok) && hi.0.get(i).is_some_and(hashed_ok))
    });
    if !bad {
        return Ok(());
    }
    Err(ClusterError::InvalidOptions(format!(
        "there exists a field in the range {} -->> {} not of type NumberLong, MinKey, or MaxKey which corresponds to a hashed field in the shard key pattern {}",
        format_bson_obj(&pattern.to_document(lo)),
        format_bson_obj(&pattern.to_document(hi)),
        format_bson_obj(&pattern.to_pattern_document())
    )))
}

/// A zone range bound as `includeFullShardKey` takes it: its field names must be a prefix
/// of the shard key's, in order (`ShardKeyNotFound` otherwise), and the missing fields
/// are filled with MinKey (`extendRangeBound`).
fn zone_bound(
    pattern: &crate::keys::shard_key::KeyPattern,
    bound: &Document,
    which: &str,
    ns: &str,
) -> Result<KeyValue, ClusterError> {
    let fields = pattern.fields();
    let prefix = bound.len() <= fields.len() && bound.keys().zip(fields).all(|(k, (f, _))| k == f);
    if !prefix {
        return Err(ClusterError::ShardKeyNotFound(format!(
            "{which}: {} is not a prefix of the shard key {} of ns: {ns}",
            format_bson_obj(bound),
            format_bson_obj(&pattern.to_pattern_document())
        )));
    }
    let mut values: Vec<bson::Bson> = bound.values().cloned().collect();
    values.resize(fields.len(), bson::Bson::MinKey);
    Ok(KeyValue(values))
}

/// Two bounds compared element by element, as `BSONObj::woCompare` does for bounds of
/// the same fields: by value in the BSON order (field names only break ties, where
/// MongoDB would compare them after the type), and a bound that runs out first is the
/// smaller.
fn compare_bound_docs(a: &Document, b: &Document) -> std::cmp::Ordering {
    let mut left = a.iter();
    let mut right = b.iter();
    loop {
        match (left.next(), right.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some((ka, va)), Some((kb, vb))) => {
                let by_value = crate::values::order::compare_values(va, vb);
                let order = by_value.then_with(|| ka.cmp(kb));
                if order != std::cmp::Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

/// The shards already in a migration this round. A round touches a handful of shards, so
/// a short list does; a `BTreeSet` would add another copy of the B-tree code to the wasm.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShardSet(Vec<ShardIdx>);

impl ShardSet {
    /// Whether `shard` is in the set.
    pub(crate) fn contains(&self, shard: &ShardIdx) -> bool {
        self.0.contains(shard)
    }

    /// Adds `shard` (nothing changes if it is in already).
    pub(crate) fn insert(&mut self, shard: ShardIdx) {
        if !self.contains(&shard) {
            self.0.push(shard);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The cases of MongoDB's `balancer_policy_test.cpp` for the 4.4/5.0 chunk-count
    //! policy, on clusters built the way its `generateCluster` builds them.
    use super::*;
    use crate::ClusterConfig;
    use bson::{doc, Bson};

    const NS: &str = "test.c";

    /// One shard of a generated cluster: its chunk count, whether it is draining, and
    /// its zones.
    type Spec<'a> = (usize, bool, &'a [&'a str]);

    /// Shards `0..n` with consecutive chunks `[MinKey, 1), [1, 2), …, [N - 1, MaxKey)`
    /// dealt in order: the first shard's chunks first.
    fn generate(specs: &[Spec]) -> Cluster {
        let mut c = Cluster::new(ClusterConfig {
            shards: specs.len() as u32,
            version: VersionMode::V50,
            chunk_size: None,
            seed: 1,
        });
        c.shard_collection(NS, &doc! { "x": 1 }, false, None)
            .expect("shardCollection");
        let total: usize = specs.iter().map(|s| s.0).sum();
        for i in 1..total {
            c.split_at(NS, &doc! { "x": i as i32 }).expect("split");
        }
        let mins: Vec<KeyValue> = c
            .sharding(NS)
            .expect("sharded")
            .table
            .iter()
            .map(|ch| ch.min.clone())
            .collect();
        let owners = specs
            .iter()
            .enumerate()
            .flat_map(|(shard, s)| std::iter::repeat_n(shard as ShardIdx, s.0));
        for (min, shard) in mins.iter().zip(owners) {
            if let Some(ch) = c.sharding_mut(NS).expect("sharded").table.get_mut(min) {
                ch.shard = shard;
            }
        }
        for (i, (_, draining, zones)) in specs.iter().enumerate() {
            c.shards[i].draining = *draining;
            c.shards[i].zones = zones.iter().map(|z| z.to_string()).collect();
        }
        c
    }

    /// The lower bound of the `i`-th chunk (`MinKey` for the first).
    fn chunk_min(i: usize) -> KeyValue {
        KeyValue(vec![if i == 0 {
            Bson::MinKey
        } else {
            Bson::Int32(i as i32)
        }])
    }

    /// Marks every chunk jumbo except those listed.
    fn all_jumbo_except(c: &mut Cluster, movable: &[usize]) {
        let table = &mut c.sharding_mut(NS).expect("sharded").table;
        let mins: Vec<KeyValue> = table.iter().map(|ch| ch.min.clone()).collect();
        for (i, min) in mins.iter().enumerate() {
            if let Some(ch) = table.get_mut(min) {
                ch.jumbo = !movable.contains(&i);
            }
        }
    }

    /// One round with some shards already busy: (donor, recipient, first chunk) per move.
    fn round(c: &mut Cluster, busy: &[ShardIdx]) -> Vec<(ShardIdx, ShardIdx, KeyValue)> {
        let mut used = ShardSet::default();
        for &s in busy {
            used.insert(s);
        }
        let mut done = Vec::new();
        c.split_at_zone_boundaries(NS);
        c.balance_collection(NS, &mut used, &mut done);
        done.into_iter().map(|m| (m.from, m.to, m.min)).collect()
    }

    const NONE: &[&str] = &[];

    #[test]
    fn basic_and_small_clusters() {
        let mut c = generate(&[(4, false, NONE), (0, false, NONE), (3, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(0))]);
        // A small cluster is balanced down to one chunk of difference.
        let mut c = generate(&[(1, false, NONE), (2, false, NONE), (0, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(1, 2, chunk_min(1))]);
        let mut c = generate(&[(1, false, NONE), (0, false, NONE)]);
        assert!(round(&mut c, &[]).is_empty(), "a single chunk stays");
        let mut c = generate(&[
            (2, false, NONE),
            (2, false, NONE),
            (1, false, NONE),
            (1, false, NONE),
        ]);
        assert!(round(&mut c, &[]).is_empty(), "within the threshold");
    }

    #[test]
    fn parallel_balancing() {
        let mut c = generate(&[
            (4, false, NONE),
            (4, false, NONE),
            (0, false, NONE),
            (0, false, NONE),
        ]);
        assert_eq!(
            round(&mut c, &[]),
            vec![(0, 2, chunk_min(0)), (1, 3, chunk_min(4))]
        );
        // No chunk goes to a shard above the ideal (360 / 6 = 60).
        let mut c = generate(&[
            (100, false, NONE),
            (90, false, NONE),
            (90, false, NONE),
            (80, false, NONE),
            (0, false, NONE),
            (0, false, NONE),
        ]);
        assert_eq!(
            round(&mut c, &[]),
            vec![(0, 4, chunk_min(0)), (1, 5, chunk_min(100))]
        );
        // No chunk leaves a shard below the ideal (round(135 / 4) = 34).
        let mut c = generate(&[
            (100, false, NONE),
            (30, false, NONE),
            (5, false, NONE),
            (0, false, NONE),
        ]);
        assert_eq!(round(&mut c, &[]), vec![(0, 3, chunk_min(0))]);
    }

    #[test]
    fn busy_shards_take_no_part() {
        let specs = [
            (8, false, NONE),
            (4, false, NONE),
            (0, false, NONE),
            (0, false, NONE),
        ];
        let mut c = generate(&specs);
        assert_eq!(round(&mut c, &[0]), vec![(1, 2, chunk_min(8))]);
        let mut c = generate(&[
            (12, false, NONE),
            (4, false, NONE),
            (0, false, NONE),
            (0, false, NONE),
        ]);
        assert!(round(&mut c, &[0]).is_empty());
        let mut c = generate(&[
            (4, false, NONE),
            (4, false, NONE),
            (0, false, NONE),
            (1, false, NONE),
        ]);
        assert_eq!(round(&mut c, &[2]), vec![(0, 3, chunk_min(0))]);
    }

    #[test]
    fn jumbo_chunks_are_not_moved() {
        let mut c = generate(&[(4, false, NONE), (0, false, NONE)]);
        all_jumbo_except(&mut c, &[1]);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(1))]);
        let mut c = generate(&[
            (4, false, NONE),
            (0, false, NONE),
            (4, false, NONE),
            (0, false, NONE),
        ]);
        all_jumbo_except(&mut c, &[1, 6]);
        assert_eq!(
            round(&mut c, &[]),
            vec![(0, 1, chunk_min(1)), (2, 3, chunk_min(6))]
        );
        // Enforcing a zone skips jumbo chunks too.
        let mut c = generate(&[(3, false, NONE), (3, false, &["a"])]);
        c.update_zone_key_range(
            NS,
            &doc! { "x": Bson::MinKey },
            &doc! { "x": Bson::MaxKey },
            Some("a"),
        )
        .expect("zone range");
        all_jumbo_except(&mut c, &[1]);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(1))]);
    }

    #[test]
    fn draining_shards_are_emptied_first() {
        let mut c = generate(&[(1, true, NONE), (5, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(0))]);
        let mut c = generate(&[
            (1, true, NONE),
            (5, false, NONE),
            (1, true, NONE),
            (5, false, NONE),
        ]);
        assert_eq!(
            round(&mut c, &[]),
            vec![(0, 1, chunk_min(0)), (2, 3, chunk_min(6))]
        );
        let mut c = generate(&[(2, true, NONE), (5, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(0))]);
        let mut c = generate(&[(1, true, NONE), (2, true, NONE), (16, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(0, 2, chunk_min(0))]);
        // Draining shards accept nothing.
        let mut c = generate(&[(4, false, NONE), (0, true, NONE), (0, true, NONE)]);
        assert!(round(&mut c, &[]).is_empty());
    }

    #[test]
    fn a_draining_shard_gives_its_zone_chunks_to_the_zone() {
        let zone_on_last = |c: &mut Cluster, zone: &str| {
            c.update_zone_key_range(
                NS,
                &doc! { "x": 8 },
                &doc! { "x": Bson::MaxKey },
                Some(zone),
            )
            .expect("zone range");
        };
        let mut c = generate(&[
            (4, false, &["NYC"]),
            (4, false, &["LAX"]),
            (1, true, &["LAX"]),
        ]);
        zone_on_last(&mut c, "LAX");
        assert_eq!(round(&mut c, &[]), vec![(2, 1, chunk_min(8))]);
        let mut c = generate(&[
            (4, false, &["NYC"]),
            (4, false, &["LAX"]),
            (1, true, &["SEA"]),
        ]);
        zone_on_last(&mut c, "SEA");
        assert!(
            round(&mut c, &[]).is_empty(),
            "no shard of the zone can take it"
        );
    }

    #[test]
    fn zones_are_enforced_then_balanced_in_name_order() {
        let zones = |c: &mut Cluster| {
            for (lo, hi, zone) in [(None, 1, "a"), (Some(1), 3, "b"), (Some(3), 5, "c")] {
                let min = lo.map_or(doc! { "x": Bson::MinKey }, |v: i32| doc! { "x": v });
                c.update_zone_key_range(NS, &min, &doc! { "x": hi }, Some(zone))
                    .expect("zone range");
            }
        };
        let specs: [Spec; 3] = [
            (5, false, &["a", "b", "c"]),
            (1, false, &["b"]),
            (1, false, &["c"]),
        ];
        // Zone b comes before c: shard0's first chunk of b goes to shard1.
        let mut c = generate(&specs);
        zones(&mut c);
        assert_eq!(round(&mut c, &[]), vec![(0, 1, chunk_min(1))]);
        // With shard1 busy, b cannot be balanced and c is: its first chunk goes to shard2.
        let mut c = generate(&specs);
        zones(&mut c);
        assert_eq!(round(&mut c, &[1]), vec![(0, 2, chunk_min(3))]);
        // A shard that must both give and take a zone's chunks does one of them a round.
        let mut c = generate(&[(3, false, &["a"]), (3, false, &["a"]), (3, false, &["b"])]);
        c.update_zone_key_range(NS, &doc! { "x": Bson::MinKey }, &doc! { "x": 1 }, Some("b"))
            .expect("zone range");
        c.update_zone_key_range(NS, &doc! { "x": 8 }, &doc! { "x": Bson::MaxKey }, Some("a"))
            .expect("zone range");
        assert_eq!(round(&mut c, &[]), vec![(0, 2, chunk_min(0))]);
    }

    /// 8.0: `generate` with each chunk holding `MIB` bytes and a 1 MiB chunk size.
    fn generate_v80(specs: &[Spec]) -> Cluster {
        let mut c = generate(specs);
        c.config.version = VersionMode::V80;
        c.set_chunk_size(MIB).expect("chunk size");
        let table = &mut c.sharding_mut(NS).expect("sharded").table;
        let mins: Vec<KeyValue> = table.iter().map(|ch| ch.min.clone()).collect();
        for min in mins {
            if let Some(ch) = table.get_mut(&min) {
                ch.bytes = MIB;
            }
        }
        c
    }

    const MIB: u64 = 1024 * 1024;

    #[test]
    fn the_80_policy_moves_data_when_shards_differ_by_three_chunk_sizes() {
        // 4, 1 and 0 MiB: the ideal is 5/3 MiB; 4 - 0 >= 3 chunk sizes.
        let mut c = generate_v80(&[(4, false, NONE), (1, false, NONE), (0, false, NONE)]);
        assert_eq!(round(&mut c, &[]), vec![(0, 2, chunk_min(0))]);
        // 3, 1 and 1 MiB: 3 - 1 is under three chunk sizes.
        let mut c = generate_v80(&[(3, false, NONE), (1, false, NONE), (1, false, NONE)]);
        assert!(round(&mut c, &[]).is_empty());
        // The draining shard gives a chunk first. It still counts towards the ideal (8 / 4 =
        // 2 MiB), so the shard holding 3 MiB is over it and gives to the other empty shard.
        let mut c = generate_v80(&[
            (3, false, NONE),
            (5, true, NONE),
            (0, false, NONE),
            (0, false, NONE),
        ]);
        assert_eq!(
            round(&mut c, &[]),
            vec![(1, 2, chunk_min(3)), (0, 3, chunk_min(0))]
        );
        // Without the draining shard in the ideal (3 / 3 = 1 MiB) the same would hold; with
        // 2 MiB on the donor instead, 2 - 0 is under three chunk sizes: nothing moves.
        let mut c = generate_v80(&[(2, false, NONE), (0, false, NONE), (0, false, NONE)]);
        assert!(round(&mut c, &[]).is_empty());
    }
}
