//! A simulated sharded cluster: shards, databases, collections, their chunks and documents.
//!
//! Documents are stored for real, ordered by shard key, so that chunk sizes, counts and
//! split points come from data. A document lives on the shard that owns its chunk;
//! migrations are atomic, so there are no orphans. Unsharded collections live on their
//! database's primary shard.

use crate::engine::chunks::{Chunk, RoutingTable, ShardIdx};
use crate::engine::event_log::EventLog;
use crate::engine::events::EventKind;
use crate::engine::store::{doc_key, key_field};
pub(crate) use crate::engine::store::{
    id_add, id_move, id_remove, DocAt, DocKey, DocStore, IdIndex, IdKey, IdSlot, Stored,
};
use crate::engine::store::{Pushed, StoredBatch};
use crate::keys::shard_key::{format_bson_obj, FieldKind, KeyPattern, KeyValue};
pub use crate::values::error::ClusterError;
use bson::oid::ObjectId;
use bson::{Bson, Document};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// How many documents [`Collection::sample_value`] looks at, at most.
pub const SAMPLE_VALUE_LOOKS: usize = 64;

/// How often the 5.0 splitter looks at a chunk: each time `max chunk size / 5` bytes have
/// been written to it (`ChunkWritesTracker::kSplitTestFactor`).
pub(crate) const SPLIT_TEST_FACTOR: u64 = 5;

/// Which MongoDB release's sharding behaviour the cluster follows (spec §6, §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum VersionMode {
    /// 3.4/3.6: auto-split, chunk-count balancer around `ceil(chunks / shards)`.
    V36,
    /// 4.4/5.0: auto-split, chunk-count balancer around the ideal count, 64 MB chunks.
    V50,
    /// 6.0.3+ to 7.0: the modern balancer and chunks of [`VersionMode::V80`], but before
    /// 7.1's writes without a shard key (`featureFlagUpdateOneWithoutShardKey`): a
    /// single-document write or an upsert must still be targeted by its filter.
    V70,
    /// 7.1 to 8.0: no auto-split, data-size balancer, 128 MB chunks; updateOne,
    /// deleteOne and findAndModify run without the shard key (the two-phase protocol).
    V80,
}

impl VersionMode {
    /// Parses the names the shell accepts: `"3.6"`, `"5.0"`, `"7.0"`, `"8.0"` (and
    /// `"4.4"`, `"6.0"`, `"7.1"` as aliases of their era).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "3.6" | "3.4" | "3.x" => Some(VersionMode::V36),
            "4.4" | "5.0" | "legacy" => Some(VersionMode::V50),
            "6.0" | "7.0" => Some(VersionMode::V70),
            "7.1" | "8.0" | "modern" => Some(VersionMode::V80),
            _ => None,
        }
    }

    /// The version as the shell prints it.
    pub fn label(self) -> &'static str {
        match self {
            VersionMode::V36 => "3.6",
            VersionMode::V50 => "5.0",
            VersionMode::V70 => "7.0",
            VersionMode::V80 => "8.0",
        }
    }

    /// The default maximum chunk (range) size.
    pub fn default_chunk_size(self) -> u64 {
        match self {
            VersionMode::V36 | VersionMode::V50 => 64 * 1024 * 1024,
            VersionMode::V70 | VersionMode::V80 => 128 * 1024 * 1024,
        }
    }

    /// Whether chunks split automatically as they grow.
    pub fn auto_splits(self) -> bool {
        self < VersionMode::V70
    }
}

/// Settings a cluster is created with.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterConfig {
    /// Number of shards to start with.
    pub shards: u32,
    /// The behaviour era.
    pub version: VersionMode,
    /// The maximum chunk size in bytes; `None` means the version's default.
    pub chunk_size: Option<u64>,
    /// The seed for every pseudo-random choice (ObjectIds, workloads).
    pub seed: u64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            shards: 3,
            version: VersionMode::V50,
            chunk_size: None,
            seed: 1,
        }
    }
}

/// A shard of the cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Shard {
    /// The shard's name, such as `shard01`.
    pub name: String,
    /// The replica set connection string mongosh shows as the shard's host.
    pub host: String,
    /// Set by `removeShard` until the shard is empty.
    pub draining: bool,
    /// Set once the shard has left the cluster. Indices of other shards stay stable.
    pub removed: bool,
    /// The zones the shard belongs to.
    pub zones: ZoneSet,
}

/// A shard's zone names, sorted and distinct. A shard has a few zones at most; a sorted
/// list does, where a `BTreeSet<String>` would add another B-tree instantiation to the wasm.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZoneSet(Vec<String>);

impl ZoneSet {
    /// Whether the shard is in `zone`.
    pub fn contains(&self, zone: &str) -> bool {
        self.0.iter().any(|z| z == zone)
    }

    /// Adds `zone` (nothing changes if the shard is in it already).
    pub fn insert(&mut self, zone: String) {
        if let Err(at) = self.0.binary_search(&zone) {
            self.0.insert(at, zone);
        }
    }

    /// Removes `zone`, if the shard is in it.
    pub fn remove(&mut self, zone: &str) {
        self.0.retain(|z| z != zone);
    }

    /// The zone names in order.
    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        self.0.iter()
    }

    /// Whether the shard is in no zone.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<String> for ZoneSet {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        let mut set = ZoneSet::default();
        for z in iter {
            set.insert(z);
        }
        set
    }
}

/// A database and its primary shard.
#[derive(Debug, Clone, PartialEq)]
pub struct Database {
    /// The shard holding the database's unsharded collections.
    pub primary: ShardIdx,
}

pub use crate::engine::zone_chunks::{ZoneRange, ZoneRanges};

/// A zone range set before its collection is sharded (4.0+). It is kept as given:
/// with no shard key yet there is nothing to extend it to (`assignKeyRangeToZone` stores
/// `givenRange` when `includeFullShardKey` finds the namespace unsharded).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PendingZone {
    /// The lower bound, as given.
    pub min: Document,
    /// The upper bound, as given.
    pub max: Document,
    /// The zone's name.
    pub zone: String,
}

/// `shardCollection`'s options besides the key.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ShardOptions {
    /// `unique`.
    pub unique: bool,
    /// `numInitialChunks`, as given (negative values are refused in 4.4+).
    pub num_initial_chunks: Option<i64>,
    /// `presplitHashedZones` (4.4+).
    pub presplit_hashed_zones: bool,
    /// `collation`: only `{locale: 'simple'}` is allowed.
    pub collation: Option<Document>,
}

/// How a collection is sharded.
#[derive(Debug, Clone)]
pub struct Sharding {
    /// The shard key pattern.
    pub pattern: KeyPattern,
    /// Whether the shard key is unique.
    pub unique: bool,
    /// The routing table.
    pub table: RoutingTable,
    /// Zone ranges, in key order.
    pub zones: ZoneRanges,
    /// Whether the balancer may move this collection's chunks.
    pub balancing: bool,
    /// The collection's own maximum chunk size in bytes (`maxChunkSizeBytes` in
    /// `config.collections`, set by `configureCollectionBalancing`); the cluster's when
    /// `None`.
    pub chunk_size: Option<u64>,
    /// `enableAutoMerge` in `config.collections`: `None` when the collection follows the
    /// cluster's AutoMerger setting.
    pub auto_merge: Option<bool>,
    /// `defragmentCollection: true` and what goes with it, while the collection is being
    /// defragmented (`engine/defragmentation.rs`).
    pub defrag: Option<crate::engine::defragmentation_state::Defragmentation>,
}

/// A collection: sharded or not, with its documents.
#[derive(Debug, Clone)]
pub struct Collection {
    /// How the collection is sharded, if it is.
    pub sharding: Option<Sharding>,
    /// Documents ordered by (shard key, insertion number). Unsharded collections use an
    /// empty key, so their documents are in insertion order.
    pub(crate) docs: DocStore,
    /// `_id` values per shard: `_id` is unique only within a shard (spec §2).
    pub(crate) ids: IdIndex,
    pub(crate) next_doc: u64,
    /// Secondary indexes created with `createIndex`, as key patterns.
    pub indexes: Vec<Document>,
    /// The key patterns of [`Collection::indexes`] that are unique (`createIndex` with
    /// `unique: true`, or the shard key index of `shardCollection` with `unique: true`).
    pub unique_indexes: Vec<Document>,
    /// The names given with `createIndex(keys, {name})`, by the index's default name
    /// (an index without one is named by [`index_name`]).
    pub index_names: BTreeMap<String, String>,
    /// The shard keys of the latest inserts with their insertion numbers, newest last, at
    /// most [`RECENT_INSERTS`] of them: what the playground shows as heat and ticks.
    pub(crate) recent: RecentInserts,
    /// A vector lent to each insert for the key values it needs as `KeyValue`s, so that a
    /// steady stream of inserts allocates nothing for keys.
    pub(crate) key_scratch: Vec<Bson>,
}

/// `validShardKeyIndexExists`, step 3 (shard_key_util.cpp, shardCollection's own check
/// in 3.6): a unique shard key needs the index on exactly the key, when there is one,
/// to be unique, unless it is the `_id` index.
pub(crate) fn check_unique_key_index(
    coll: &Collection,
    ns: &str,
    key: &KeyPattern,
    unique: bool,
) -> Result<(), ClusterError> {
    let key_doc = key.to_pattern_document();
    let on_id = key_doc.keys().next().is_some_and(|f| f == "_id");
    if unique && !on_id && coll.has_index(&key_doc) && !coll.is_unique_index(&key_doc) {
        return Err(ClusterError::InvalidOptions(format!(
            "can't shard collection {ns}, {} index not unique, and unique index explicitly specified",
            format_bson_obj(&key_doc)
        )));
    }
    Ok(())
}

/// Two key patterns with the same fields and values in the same order.
pub fn same_pattern(a: &Document, b: &Document) -> bool {
    a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
}

/// The largest BSON document MongoDB stores (16 MiB).
pub const MAX_DOCUMENT_BYTES: u32 = 16 * 1024 * 1024;

/// How many of the latest inserts a collection remembers (see [`Collection::recent_inserts`]).
pub const RECENT_INSERTS: usize = 512;

/// The insertion numbers and shard keys of a collection's latest inserts, at most
/// [`RECENT_INSERTS`]: a ring whose newest entry takes the place of the oldest.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecentInserts {
    ring: Vec<(u64, DocKey)>,
    /// Where the next entry goes: the oldest entry, once the ring is full.
    next: usize,
}

impl RecentInserts {
    fn push(&mut self, seq: u64, key: DocKey) {
        if self.ring.len() < RECENT_INSERTS {
            self.ring.reserve_exact(RECENT_INSERTS - self.ring.len());
            self.ring.push((seq, key));
        } else if let Some(slot) = self.ring.get_mut(self.next) {
            *slot = (seq, key);
        }
        self.next = (self.next + 1) % RECENT_INSERTS;
    }

    pub(crate) fn len(&self) -> usize {
        self.ring.len()
    }

    pub(crate) fn clear(&mut self) {
        self.ring.clear();
        self.next = 0;
    }

    /// The newest entry.
    pub(crate) fn newest(&self) -> Option<(u64, &DocKey)> {
        let i = self
            .next
            .checked_sub(1)
            .unwrap_or(self.ring.len().checked_sub(1)?);
        self.ring.get(i).map(|(seq, key)| (*seq, key))
    }

    /// The entries numbered `from` or later, oldest first.
    fn from(&self, from: u64) -> impl Iterator<Item = &(u64, DocKey)> {
        let (old, new) = if self.ring.len() == RECENT_INSERTS {
            let (new, old) = self.ring.split_at(self.next);
            (old, new)
        } else {
            (&self.ring[..], &[][..])
        };
        let later = |part: &'_ [(u64, DocKey)]| part.partition_point(|(seq, _)| *seq < from);
        old[later(old)..].iter().chain(&new[later(new)..])
    }
}

/// `insertMany` encodes its documents into shared buffers of about this many bytes...
const STORED_GROUP_BYTES: u32 = 64 * 1024;
/// ...and at most this many documents.
const STORED_GROUP_DOCS: usize = 1024;

/// The `_id`s of the documents an `insertMany` stored, in order: kept compactly (16 bytes
/// each for a number or an ObjectId) and given out as BSON values.
#[derive(Debug, Clone, Default)]
pub struct InsertedIds(Vec<IdKey>);

impl InsertedIds {
    /// How many documents were stored.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `_id`s, in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Bson> + '_ {
        self.0.iter().map(IdKey::to_bson)
    }

    /// The `_id`s as a list of values.
    pub fn to_vec(&self) -> Vec<Bson> {
        self.iter().collect()
    }
}

/// The whole simulated cluster.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub(crate) config: ClusterConfig,
    pub(crate) shards: Vec<Shard>,
    pub(crate) databases: BTreeMap<String, Database>,
    pub(crate) collections: BTreeMap<String, Collection>,
    pub(crate) events: EventLog,
    /// Whether the balancer runs.
    pub balancer_enabled: bool,
    /// Whether chunks split on their own: only in the 3.6 and 5.0 modes, and there only
    /// while the `autosplit` setting allows it and the settings refresh that precedes each
    /// split succeeds ([`Cluster::write_autosplit_setting`]).
    pub autosplit_enabled: bool,
    /// Successful migrations, for `sh.status()`.
    pub migrations: u64,
    /// Whether the last balancer round moved a chunk (3.6 `Balancer::_balancedLastTime`),
    /// which makes the next round of the 3.6 policy aggressive.
    pub(crate) balanced_last_time: bool,
    /// `config.settings`' `automerge` document (`{_id: 'automerge', enabled}`) as
    /// `sh.startAutoMerger()`, `sh.stopAutoMerger()` or an administrator through the config
    /// database wrote it: `None` until one did (or after it was deleted), which the
    /// AutoMerger and mongosh read as enabled ([`Cluster::write_automerge_setting`]).
    pub automerge_setting: Option<Document>,
    /// `config.settings`' `autosplit` document (`{_id: 'autosplit', enabled}`) as
    /// `sh.enableAutoSplit()`, `sh.disableAutoSplit()` or an administrator through the
    /// config database wrote it: `None` until one did (or after it was deleted), which
    /// the splitter and mongosh's `sh.status()` read as enabled
    /// ([`Cluster::write_autosplit_setting`]).
    pub autosplit_setting: Option<Document>,
    /// `config.settings`' `chunksize` document as an administrator wrote it through the
    /// config database (the manual's "Modify Range Size"): `None` until such a write, or
    /// after `sim.chunkSize`, when the document shown is derived from the chunk size.
    pub chunksize_setting: Option<Document>,
    /// `config.settings`' `balancer` document, as `balancerStart`/`balancerStop` or an
    /// administrator (its `activeWindow`) wrote it; `None` until one did.
    pub balancer_setting: Option<Document>,
    /// What the balancer took from that document at its last refresh (its window).
    pub(crate) balancer_refresh: crate::engine::balancer_settings::BalancerRefresh,
    /// Whether the shell's writes are retryable writes, as mongosh's are unless its
    /// connection string says `retryWrites=false` (`sim.retryWrites(false)` plays that):
    /// a change of a document's shard key value needs one (or a transaction).
    pub retryable_writes: bool,
    /// Documents and bytes written over the cluster's life (inserts and updates), which
    /// the memory budget bounds: a timeline's snapshots keep what was written even after
    /// a delete, so this, not what is stored now, is what the cluster costs.
    pub(crate) written: Written,
    /// Zone ranges of namespaces not sharded yet, by namespace, in `min` order.
    pub(crate) pending_zones: BTreeMap<String, Vec<PendingZone>>,
    /// The simulated clock and the balancer's schedule (`engine/background.rs`).
    pub(crate) clock: crate::engine::clock::SimClock,
    oid_counter: u32,
    oid_process: [u8; 5],
}

/// The most shards a cluster is configured with (`sim.reset`, a share link).
pub const MAX_SHARDS: u32 = 64;

/// The most documents a cluster takes in over its life: twice the largest workload the
/// lessons and benchmarks run, and about 300 MB of memory for small documents.
pub const MAX_WRITTEN_DOCS: u64 = 2_000_000;

/// The most BSON bytes a cluster takes in over its life (inserts and updates): what a
/// phone's browser can hold next to the page, with the timeline's snapshots.
pub const MAX_WRITTEN_BYTES: u64 = 512 * 1024 * 1024;

/// What a cluster has taken in so far (see [`Cluster::written`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) docs: u64,
    pub(crate) bytes: u64,
    /// Bytes the session holds outside the cluster (the shell's variables), which share
    /// the budget of [`MAX_WRITTEN_BYTES`] with what was written: one memory budget per
    /// session.
    pub(crate) held: u64,
}

impl Written {
    /// Counts `docs` documents of `bytes` bytes, or refuses them if that would go past
    /// the budget, counting nothing.
    pub(crate) fn take(&mut self, docs: u64, bytes: u64) -> Result<(), ClusterError> {
        let (d, b) = (self.docs + docs, self.bytes + bytes);
        if d > MAX_WRITTEN_DOCS || b.saturating_add(self.held) > MAX_WRITTEN_BYTES {
            return Err(ClusterError::ExceededMemoryLimit(format!(
                "this write would take the playground's cluster past its budget of {} \
                 documents or {} MiB written over its life ({} documents and {} MiB so far, \
                 and {} MiB in the shell's variables); start again with sim.reset()",
                MAX_WRITTEN_DOCS,
                MAX_WRITTEN_BYTES >> 20,
                self.docs,
                self.bytes >> 20,
                self.held >> 20
            )));
        }
        (self.docs, self.bytes) = (d, b);
        Ok(())
    }
}

/// Statistics of one shard for one collection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShardStats {
    /// Chunks on the shard.
    pub chunks: u64,
    /// Documents on the shard.
    pub docs: u64,
    /// Bytes on the shard.
    pub bytes: u64,
}

impl Cluster {
    /// The BSON bytes the cluster has taken in over its life (at most 512 MiB, with the
    /// session's variables).
    pub fn written_bytes(&self) -> u64 {
        self.written.bytes
    }

    /// Notes the bytes the session holds outside the cluster (its variables), which share
    /// the cluster's budget of [`MAX_WRITTEN_BYTES`].
    pub(crate) fn hold(&mut self, bytes: u64) {
        self.written.held = bytes;
    }

    /// A new cluster with `config.shards` shards named `shard01`, `shard02`, ... and the
    /// `test` database, as mongosh connected to a fresh sharded cluster would see it.
    pub fn new(config: ClusterConfig) -> Self {
        let mut process = [0u8; 5];
        let mut x = crate::support::rng::SplitMix64::new(config.seed);
        for b in &mut process {
            *b = (x.next_u64() & 0xff) as u8;
        }
        let mut cluster = Cluster {
            shards: Vec::new(),
            databases: BTreeMap::new(),
            collections: BTreeMap::new(),
            events: EventLog::default(),
            balancer_enabled: true,
            autosplit_enabled: config.version.auto_splits(),
            migrations: 0,
            balanced_last_time: false,
            automerge_setting: None,
            autosplit_setting: None,
            chunksize_setting: None,
            balancer_setting: None,
            balancer_refresh: Default::default(),
            retryable_writes: true,
            written: Written::default(),
            pending_zones: BTreeMap::new(),
            clock: Default::default(),
            oid_counter: (x.next_u64() & 0x00ff_ffff) as u32,
            oid_process: process,
            config,
        };
        for _ in 0..cluster.config.shards.max(1) {
            cluster.push_shard();
        }
        cluster
            .databases
            .insert("test".to_string(), Database { primary: 0 });
        cluster
    }

    fn push_shard(&mut self) -> String {
        let n = self.shards.len() + 1;
        let name = format!("shard{n:02}");
        self.shards.push(Shard {
            host: format!("{name}/localhost:{}", 27017 + 100 * n),
            name: name.clone(),
            draining: false,
            removed: false,
            zones: ZoneSet::default(),
        });
        name
    }

    /// The configuration.
    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    /// The behaviour era.
    pub fn version(&self) -> VersionMode {
        self.config.version
    }

    /// Changes the behaviour era; auto-split follows the era and the `autosplit` setting.
    pub fn set_version(&mut self, version: VersionMode) {
        self.config.version = version;
        self.refresh_autosplit();
    }

    /// The maximum chunk size in bytes.
    pub fn chunk_size(&self) -> u64 {
        self.config
            .chunk_size
            .unwrap_or_else(|| self.config.version.default_chunk_size())
    }

    /// The maximum chunk size of `ns` in bytes: its own (`configureCollectionBalancing`),
    /// else the cluster's. The splitter, the balancer and `moveRange` use it.
    pub fn chunk_size_for(&self, ns: &str) -> u64 {
        self.collections
            .get(ns)
            .and_then(|c| c.sharding.as_ref())
            .and_then(|s| s.chunk_size)
            .unwrap_or_else(|| self.chunk_size())
    }

    /// Sets the maximum chunk size in bytes (at least 1 KiB).
    pub fn set_chunk_size(&mut self, bytes: u64) -> Result<(), ClusterError> {
        if bytes < 1024 {
            return Err(ClusterError::BadValue(format!(
                "chunk size must be at least 1024 bytes, got {bytes}"
            )));
        }
        self.config.chunk_size = Some(bytes);
        self.chunksize_setting = None;
        Ok(())
    }

    /// Stores `config.settings`' `chunksize` document as written (`None`: deleted), and
    /// takes its size as the balancer's next refresh does
    /// (`BalancerConfiguration::_refreshChunkSizeSettings`, balancer_configuration.cpp):
    /// no document means the era's default; a document that
    /// `ChunkSizeSettingsType::fromBSON` refuses (no whole `value`, or one outside 1 to
    /// 1024 MiB) fails the refresh, and the size in force stays.
    pub fn write_chunksize_setting(&mut self, doc: Option<Document>) {
        match doc.as_ref().map(chunksize_setting_mb) {
            None => self.config.chunk_size = None,
            Some(Some(mb)) => self.config.chunk_size = Some(mb << 20),
            Some(None) => {}
        }
        self.chunksize_setting = doc;
    }

    /// Stores `config.settings`' `autosplit` document as written (`None`: deleted), and
    /// takes it as the splitter's next refresh does. A 3.6 mongos
    /// (`updateChunkWriteStatsAndSplitIfNeeded`) and a 5.0 shard (`ChunkSplitter`) call
    /// `BalancerConfiguration::refreshAndCheck` before each auto-split and split only if
    /// it succeeds and `getShouldAutoSplit()` holds: no document means on, `{enabled:
    /// false}` off, and a document whose `enabled` is not a boolean fails the refresh
    /// (`AutoSplitSettingsType::fromBSON`), so nothing splits until it is fixed. From
    /// 6.0.3 nothing splits on its own whatever the document says.
    pub fn write_autosplit_setting(&mut self, doc: Option<Document>) {
        self.autosplit_setting = doc;
        self.refresh_autosplit();
    }

    /// Whether chunks split on their own now, from the era, the settings refresh and the
    /// `autosplit` document.
    pub(crate) fn refresh_autosplit(&mut self) {
        let on = self.autosplit_setting.as_ref().map_or(
            Some(true),
            crate::engine::balancer_settings::enabled_setting,
        );
        self.autosplit_enabled =
            self.version().auto_splits() && self.settings_refresh_ok() && on == Some(true);
    }

    /// All shards ever added, including removed ones (their indices stay stable).
    pub fn all_shards(&self) -> &[Shard] {
        &self.shards
    }

    /// The shards that are part of the cluster, with their indices.
    pub fn shards(&self) -> impl Iterator<Item = (ShardIdx, &Shard)> {
        self.shards
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.removed)
            .map(|(i, s)| (i as ShardIdx, s))
    }

    /// A shard's name.
    pub fn shard_name(&self, idx: ShardIdx) -> &str {
        self.shards
            .get(idx as usize)
            .map_or("unknown", |s| s.name.as_str())
    }

    /// Finds a live shard by name.
    pub fn shard_index(&self, name: &str) -> Result<ShardIdx, ClusterError> {
        self.shards()
            .find(|(_, s)| s.name == name)
            .map(|(i, _)| i)
            .ok_or_else(|| ClusterError::ShardNotFound(format!("Shard {name} does not exist")))
    }

    /// The event log.
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// A copy of the cluster reduced to what a balancing decision for `ns` reads: shards,
    /// settings and `ns`'s routing table and zones, without documents, other collections
    /// or events. Balancing on it migrates exactly the chunks it would on the real cluster,
    /// since every decision reads chunk counts and sizes, never documents.
    pub(crate) fn routing_probe(&self, ns: &str) -> Cluster {
        let mut collections = BTreeMap::new();
        if let Some(c) = self.collections.get(ns) {
            collections.insert(
                ns.to_string(),
                Collection {
                    sharding: c.sharding.clone(),
                    docs: Default::default(),
                    ids: Default::default(),
                    next_doc: c.next_doc,
                    indexes: Vec::new(),
                    unique_indexes: Vec::new(),
                    index_names: BTreeMap::new(),
                    recent: RecentInserts::default(),
                    key_scratch: Vec::new(),
                },
            );
        }
        Cluster {
            config: self.config.clone(),
            shards: self.shards.clone(),
            databases: self.databases.clone(),
            collections,
            events: EventLog::default(),
            balancer_enabled: self.balancer_enabled,
            autosplit_enabled: self.autosplit_enabled,
            migrations: self.migrations,
            balanced_last_time: self.balanced_last_time,
            automerge_setting: self.automerge_setting.clone(),
            autosplit_setting: self.autosplit_setting.clone(),
            chunksize_setting: self.chunksize_setting.clone(),
            balancer_setting: self.balancer_setting.clone(),
            balancer_refresh: self.balancer_refresh,
            retryable_writes: self.retryable_writes,
            written: self.written,
            pending_zones: BTreeMap::new(),
            clock: self.clock.clone(),
            oid_counter: self.oid_counter,
            oid_process: self.oid_process,
        }
    }

    /// Seals the event log's open tail into a shared segment if it is long enough (see
    /// `EventLog::seal`), so that copies of the cluster share it. The timeline calls it
    /// between steps; a driver keeping its own copies may do the same.
    pub fn seal_events(&mut self) {
        self.events.seal();
    }

    /// The databases.
    pub fn databases(&self) -> &BTreeMap<String, Database> {
        &self.databases
    }

    /// All collections by namespace.
    pub fn collections(&self) -> &BTreeMap<String, Collection> {
        &self.collections
    }

    /// The collections of database `db`, by namespace: a range of the namespaces that
    /// start with `db.`, so that listing every database's collections reads each once.
    pub fn collections_in<'a>(
        &'a self,
        db: &str,
    ) -> impl Iterator<Item = (&'a String, &'a Collection)> + 'a {
        let prefix = format!("{db}.");
        self.collections
            .range(prefix.clone()..)
            .take_while(move |(ns, _)| ns.starts_with(&prefix))
    }

    /// A collection by namespace.
    pub fn collection(&self, ns: &str) -> Option<&Collection> {
        self.collections.get(ns)
    }

    /// A sharded collection's sharding state, or `NamespaceNotSharded`.
    pub fn sharding(&self, ns: &str) -> Result<&Sharding, ClusterError> {
        self.collections
            .get(ns)
            .and_then(|c| c.sharding.as_ref())
            .ok_or_else(|| not_sharded(ns))
    }

    pub(crate) fn sharding_mut(&mut self, ns: &str) -> Result<&mut Sharding, ClusterError> {
        self.collections
            .get_mut(ns)
            .and_then(|c| c.sharding.as_mut())
            .ok_or_else(|| not_sharded(ns))
    }

    pub(crate) fn push_event(&mut self, kind: EventKind) {
        let at = self.now_ms();
        self.events.push(kind, at);
    }

    /// A deterministic ObjectId: a logical timestamp, a per-cluster "process" value drawn
    /// from the seed, and a counter, laid out as MongoDB's ObjectIds are.
    pub fn next_object_id(&mut self) -> ObjectId {
        let counter = self.oid_counter;
        self.oid_counter = self.oid_counter.wrapping_add(1) & 0x00ff_ffff;
        let seconds = 1_700_000_000u32 + (self.events.len() as u32);
        let mut bytes = [0u8; 12];
        bytes[0..4].copy_from_slice(&seconds.to_be_bytes());
        bytes[4..9].copy_from_slice(&self.oid_process);
        bytes[9..12].copy_from_slice(&counter.to_be_bytes()[1..4]);
        ObjectId::from_bytes(bytes)
    }

    /// Creates the database of `ns` if needed, with the first live shard as primary.
    fn ensure_database(&mut self, ns: &str) -> Result<(), ClusterError> {
        let (db, coll) = split_ns(ns)?;
        if coll.is_empty() {
            return Err(invalid_ns(ns));
        }
        if self.databases.contains_key(db) {
            return Ok(());
        }
        self.create_database(db, None)
    }

    /// The primary shard of the database owning `ns`.
    pub fn primary_of(&self, ns: &str) -> ShardIdx {
        let db = ns.split('.').next().unwrap_or(ns);
        self.databases.get(db).map_or(0, |d| d.primary)
    }

    /// Creates an empty unsharded collection if it does not exist.
    pub fn ensure_collection(&mut self, ns: &str) -> Result<(), ClusterError> {
        self.ensure_database(ns)?;
        self.collections
            .entry(ns.to_string())
            .or_insert_with(|| Collection {
                sharding: None,
                docs: Default::default(),
                ids: Default::default(),
                next_doc: 0,
                indexes: Vec::new(),
                unique_indexes: Vec::new(),
                index_names: BTreeMap::new(),
                recent: RecentInserts::default(),
                key_scratch: Vec::new(),
            });
        Ok(())
    }

    /// Drops a collection; returns whether it existed.
    pub fn drop_collection(&mut self, ns: &str) -> bool {
        self.collections.remove(ns).is_some()
    }

    /// Sets the seed of every later pseudo-random choice.
    pub fn reseed(&mut self, seed: u64) {
        let mut x = crate::support::rng::SplitMix64::new(seed);
        for b in &mut self.oid_process {
            *b = (x.next_u64() & 0xff) as u8;
        }
        self.oid_counter = (x.next_u64() & 0x00ff_ffff) as u32;
        self.config.seed = seed;
    }

    /// `addShard` with a connection string: refuses one with an empty host as MongoDB's
    /// `HostAndPort` parser does, and returns the shard's name. A replica set's connection
    /// string (`rs4/host:port,...`) names the shard after the set and is kept as its host
    /// (`_validateHostAsShard`: "Default it to the name of the replica set"); the checks
    /// of `_checkIfShardExists` come first: the same set again with a host in common is
    /// the shard already there (a retried `addShard`), with none it is refused, as is a
    /// host that another shard has. Any other string adds the next `shardNN`.
    pub fn add_shard_at(&mut self, host: &str) -> Result<String, ClusterError> {
        let single_host = !host.contains('/') && !host.contains(',');
        let host_part = host.rfind(':').map_or(host, |colon| &host[..colon]);
        if single_host && host_part.is_empty() {
            return Err(ClusterError::FailedToParse(format!(
                "Empty host component parsing HostAndPort from \"{host}\""
            )));
        }
        let Some((set, hosts)) = host.split_once('/').filter(|(set, _)| !set.is_empty()) else {
            return Ok(self.add_shard());
        };
        let servers = |h: &str| -> Vec<String> {
            let list = h.split_once('/').map_or(h, |(_, l)| l);
            list.split(',').map(str::to_string).collect()
        };
        let adding = servers(hosts);
        for existing in self.shards.iter().filter(|s| !s.removed) {
            let existing_set = existing.host.split_once('/').map(|(s, _)| s);
            let shared = servers(&existing.host)
                .into_iter()
                .find(|h| adding.contains(h));
            if existing_set == Some(set) {
                return match shared {
                    Some(_) if existing.name == set => Ok(existing.name.clone()),
                    Some(_) => Err(ClusterError::IllegalOperation(format!(
                        "A shard already exists containing the replica set '{set}'"
                    ))),
                    None => Err(ClusterError::IllegalOperation(format!(
                        "A shard named {set} containing the replica set '{set}' already exists"
                    ))),
                };
            }
            if let Some(h) = shared {
                return Err(ClusterError::IllegalOperation(format!(
                    "'{h}' is already a member of the existing shard '{}' ({}).",
                    existing.host, existing.name
                )));
            }
        }
        if set == "config" {
            return Err(ClusterError::BadValue(
                "use of shard replica set with name 'config' is not allowed".into(),
            ));
        }
        self.shards.push(Shard {
            name: set.to_string(),
            host: host.to_string(),
            draining: false,
            removed: false,
            zones: ZoneSet::default(),
        });
        self.push_event(EventKind::AddShard {
            shard: set.to_string(),
        });
        Ok(set.to_string())
    }

    /// Adds a shard and returns its name.
    pub fn add_shard(&mut self) -> String {
        let name = self.push_shard();
        self.push_event(EventKind::AddShard {
            shard: name.clone(),
        });
        name
    }

    /// The shard that owns a document with key `key` in `ns`.
    pub fn shard_for_key(&self, ns: &str, key: &KeyValue) -> ShardIdx {
        match self.collections.get(ns).and_then(|c| c.sharding.as_ref()) {
            Some(s) => s.table.chunk_for(key).map_or(0, |c| c.shard),
            None => self.primary_of(ns),
        }
    }

    /// Per-shard totals for one collection, indexed by shard index.
    pub fn shard_stats(&self, ns: &str) -> Vec<ShardStats> {
        let mut out = vec![ShardStats::default(); self.shards.len()];
        let Some(coll) = self.collections.get(ns) else {
            return out;
        };
        match &coll.sharding {
            Some(s) => {
                for c in s.table.iter() {
                    let st = &mut out[c.shard as usize];
                    st.chunks += 1;
                    st.docs += c.docs;
                    st.bytes += c.bytes;
                }
            }
            None => {
                let st = &mut out[self.primary_of(ns) as usize];
                st.docs = coll.docs.len() as u64;
                st.bytes = coll.docs.values().map(|d| u64::from(d.size())).sum();
            }
        }
        out
    }

    /// The routing table of a command is read through its database's entry first
    /// (`ShardingCatalogClientImpl::getDatabase`): a database that does not exist
    /// answers NamespaceNotFound, as refineCollectionShardKey and reshardCollection do
    /// (jstests/sharding/refine_collection_shard_key_basic.js,
    /// reshard_collection_basic.js); `admin` and `config` always exist.
    pub(crate) fn check_database_exists(&self, ns: &str) -> Result<(), ClusterError> {
        let db = ns.split_once('.').map_or(ns, |(db, _)| db);
        if matches!(db, "admin" | "config") || self.databases.contains_key(db) {
            return Ok(());
        }
        Err(ClusterError::NamespaceNotFound(format!(
            "database {db} not found"
        )))
    }

    /// Shards a collection (spec §2, §6) with only `unique` and `numInitialChunks`; see
    /// `Cluster::shard_collection_with`.
    pub fn shard_collection(
        &mut self,
        ns: &str,
        pattern: &Document,
        unique: bool,
        num_initial_chunks: Option<u32>,
    ) -> Result<(), ClusterError> {
        let options = ShardOptions {
            unique,
            num_initial_chunks: num_initial_chunks.map(i64::from),
            presplit_hashed_zones: false,
            collation: None,
        };
        self.shard_collection_with(ns, pattern, &options)
    }

    /// Shards a collection (spec §2, §6). The first chunks follow the era's initial split
    /// policy (`InitialSplitPolicy::calculateOptimizationStrategy`): along the zone ranges
    /// set before sharding, pre-split for a hashed prefix on an empty collection, or one
    /// chunk on the primary.
    pub(crate) fn shard_collection_with(
        &mut self,
        ns: &str,
        pattern: &Document,
        options: &ShardOptions,
    ) -> Result<(), ClusterError> {
        split_ns(ns).and_then(|(_, c)| {
            if c.is_empty() {
                Err(invalid_ns(ns))
            } else {
                Ok(())
            }
        })?;
        self.check_shardable_ns(ns)?;
        let key = KeyPattern::parse(pattern)?;
        key.check_unique(options.unique)?;
        if let Some(existing) = self.collections.get(ns).and_then(|c| c.sharding.as_ref()) {
            // Sharding again with the same key and options succeeds and changes nothing.
            if existing.pattern == key && existing.unique == options.unique {
                return Ok(());
            }
            return Err(ClusterError::AlreadyInitialized(format!(
                "sharding already enabled for collection {ns}"
            )));
        }
        // Any collation but the simple one makes a collator (`CollatorFactoryInterface::
        // makeFromBSON`), and shard keys compare without one.
        if let Some(collation) = &options.collation {
            if collation.get("locale") != Some(&Bson::String("simple".into())) {
                return Err(ClusterError::BadValue(format!(
                    "The collation for shardCollection must be {{locale: 'simple'}}, but found: {}",
                    format_bson_obj(collation)
                )));
            }
        }
        self.check_num_initial_chunks(options.num_initial_chunks)?;
        self.ensure_collection(ns)?;
        let primary = self.primary_of(ns);
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let empty = coll.docs.is_empty();
        // shard_key_util.cpp, validShardKeyIndexExists step 1 (shardCollection's own check
        // in 3.6): every unique index must stay unique across shards under the new key.
        let unique = coll.indexes.iter().filter(|i| coll.is_unique_index(i));
        for index in unique {
            if !key.is_unique_index_compatible(index) {
                return Err(ClusterError::InvalidOptions(format!(
                    "can't shard collection '{ns}' with unique index on {} and proposed shard key {}. Uniqueness can't be maintained unless shard key is a prefix",
                    format_bson_obj(index),
                    format_bson_obj(&key.to_pattern_document())
                )));
            }
        }
        check_unique_key_index(coll, ns, &key, options.unique)?;
        if !empty && !self.has_supporting_index(ns, &key) {
            return Err(ClusterError::InvalidOptions(
                "Please create an index that starts with the proposed shard key before sharding the collection".into(),
            ));
        }
        let zones = self.zones_for_new_key(ns, pattern, &key)?;
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        // Every existing document must have a storable key before anything changes.
        let mut rekeyed = Vec::with_capacity(coll.docs.len());
        for stored in coll.docs.values() {
            rekeyed.push((DocKey::new(key.extract_raw(stored.raw())?), stored.clone()));
        }
        let table = self.initial_table(ns, &key, empty, options, &zones, primary)?;
        self.pending_zones.remove(ns);
        let split_later = !empty && zones.is_empty();
        let hashed_presplit = empty && zones.is_empty() && key.has_hashed_prefix();
        let key_doc = key.to_pattern_document();
        self.install_sharding(ns, key, options.unique, table, zones, rekeyed)?;
        // A collection that already holds more than a chunk's worth is cut into chunks
        // of the maximum size right away, all on the primary shard; with zones it stays
        // one chunk on the primary (`SingleChunkOnPrimarySplitPolicy`).
        if split_later && self.autosplit_enabled {
            self.initial_split(ns);
        }
        let table_len = self.sharding(ns).map_or(1, |s| s.table.len());
        let chunks = if hashed_presplit {
            self.first_hashed_chunks_written(options.num_initial_chunks, table_len)
        } else {
            u32::try_from(table_len).unwrap_or(u32::MAX)
        };
        self.push_event(EventKind::ShardCollection {
            ns: ns.to_string(),
            key: key_doc,
            primary: self.shard_name(primary).to_string(),
            empty,
            chunks,
        });
        Ok(())
    }

    /// Files the collection's documents under the new key and records how it is sharded.
    pub(crate) fn install_sharding(
        &mut self,
        ns: &str,
        key: KeyPattern,
        unique: bool,
        table: RoutingTable,
        zones: Vec<ZoneRange>,
        rekeyed: Vec<(DocKey, Stored)>,
    ) -> Result<(), ClusterError> {
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| not_sharded(ns))?;
        // Sharding an empty collection creates the shard key index.
        let key_doc = key.to_pattern_document();
        // `{_id: 1}` needs no index of its own: the `_id` index serves it.
        let served_by_id_index =
            key_doc.len() == 1 && key_doc.contains_key("_id") && !key.is_hashed();
        if !coll.has_index(&key_doc) && !served_by_id_index {
            coll.indexes.push(key_doc.clone());
        }
        // A unique shard key's index is created unique.
        if unique && !served_by_id_index && !coll.is_unique_index(&key_doc) {
            coll.unique_indexes.push(key_doc);
        }
        coll.docs.clear();
        coll.recent.clear();
        for (i, (k, stored)) in rekeyed.into_iter().enumerate() {
            coll.docs.insert((k, i as u64), stored);
        }
        coll.next_doc = coll.docs.len() as u64;
        let mut sharding = Sharding {
            pattern: key,
            unique,
            table,
            zones: ZoneRanges::from_ranges(zones),
            balancing: true,
            chunk_size: None,
            auto_merge: None,
            defrag: None,
        };
        recount_all(&mut sharding.table, &coll.docs);
        // The documents were filed again under their keys and new numbers.
        coll.ids = index_ids(&sharding.table, &coll.docs);
        coll.sharding = Some(sharding);
        Ok(())
    }

    /// `numInitialChunks`' bounds, checked before anything else looks at the collection:
    /// at most 8192 per shard and 1,000,000 in all (3.6's `configsvrShardCollection`,
    /// 4.4/5.0's `CreateCollectionCoordinator::_checkCommandArguments`, which also refuses
    /// a negative count). 7.2 dropped the option: 8.0 accepts it and ignores it
    /// (SERVER-74747, SERVER-83005).
    fn check_num_initial_chunks(&self, n: Option<i64>) -> Result<(), ClusterError> {
        let (Some(n), false) = (n, self.version() >= VersionMode::V70) else {
            return Ok(());
        };
        let for_shards = 8192 * self.live_shard_count() as i64;
        let total = 1_000_000;
        let negative_refused = self.version() != VersionMode::V36;
        if n > for_shards || n > total || (negative_refused && n < 0) {
            return Err(ClusterError::InvalidOptions(format!(
                "numInitialChunks cannot be more than either: {for_shards}, 8192 * number of shards; or {total}"
            )));
        }
        Ok(())
    }

    /// Number of shards in the cluster.
    pub fn live_shard_count(&self) -> usize {
        self.shards().count()
    }

    /// The pre-split chunks of an empty collection with a hashed prefix (spec §6).
    pub(crate) fn initial_hashed_chunks(
        &self,
        key: &KeyPattern,
        num_initial_chunks: Option<u32>,
        primary: ShardIdx,
    ) -> RoutingTable {
        let live: Vec<ShardIdx> = self
            .shards()
            .filter(|(_, s)| !s.draining)
            .map(|(i, _)| i)
            .collect();
        let live = if live.is_empty() { vec![primary] } else { live };
        let per_shard = match self.config.version {
            VersionMode::V70 | VersionMode::V80 => 1,
            _ => 2,
        };
        let n = match num_initial_chunks {
            Some(n) if n > 0 => n,
            _ => per_shard * live.len() as u32,
        };
        let points = hashed_split_points(n);
        let contiguous = match self.config.version {
            VersionMode::V70 | VersionMode::V80 => 1,
            _ => (n as usize / live.len()).max(1),
        };
        // A split point: the hash in the hashed field, MinKey in every other (spec §6).
        let split_point = |h: i64| -> KeyValue {
            KeyValue(
                key.fields()
                    .iter()
                    .map(|(_, kind)| match kind {
                        FieldKind::Hashed => Bson::Int64(h),
                        FieldKind::Ascending => Bson::MinKey,
                    })
                    .collect(),
            )
        };
        let mut chunks = Vec::with_capacity(points.len() + 1);
        let mut lo = key.global_min();
        for i in 0..=points.len() {
            let hi = if i < points.len() {
                split_point(points[i])
            } else {
                key.global_max()
            };
            let shard = if i == 0 && points.len() + 1 < live.len() {
                primary
            } else {
                live[(i / contiguous) % live.len()]
            };
            chunks.push(Chunk::empty(lo, hi.clone(), shard, i as u32));
            lo = hi;
        }
        RoutingTable::from_chunks(chunks)
    }

    /// How many chunks `shardCollection` wrote when it created an empty collection with a
    /// hashed prefix, of the `table_len` it ended with. From 4.4 on they are all written
    /// at once. 3.6's `configsvrShardCollection` writes one "big chunk" per shard
    /// (`determinePresplittingPoints`' `initSplits`: the points at each shard's share of
    /// the `numInitialChunks`, default two per shard), then moves them and splits them
    /// into the rest.
    fn first_hashed_chunks_written(
        &self,
        num_initial_chunks: Option<i64>,
        table_len: usize,
    ) -> u32 {
        let table_len = u32::try_from(table_len).unwrap_or(u32::MAX);
        if self.version() != VersionMode::V36 {
            return table_len;
        }
        let shards = i64::try_from(self.live_shard_count())
            .unwrap_or(i64::MAX)
            .max(1);
        let chunks = num_initial_chunks.filter(|&n| n > 0).unwrap_or(2 * shards);
        // `initSplits` takes the split point at index `i * numChunks / numShards - 1`
        // whenever that index has moved on.
        let mut last = -1;
        let mut points = 0u32;
        for i in 1..shards {
            let at = i.saturating_mul(chunks) / shards - 1;
            if last < at {
                last = at;
                points += 1;
            }
        }
        points + 1
    }

    /// Inserts documents in order (like an ordered `insertMany`), routing each to its
    /// chunk. A document without `_id` gets a deterministic ObjectId first. Stops at the
    /// first error and returns the `_id`s inserted so far with it.
    ///
    /// The documents may be owned or borrowed (`&[Document]`): each is stored as its
    /// BSON encoding, so the engine never needs to keep them.
    pub fn insert_many<D: std::borrow::Borrow<Document>>(
        &mut self,
        ns: &str,
        docs: impl IntoIterator<Item = D>,
    ) -> Result<InsertedIds, (InsertedIds, ClusterError)> {
        if let Err(e) = self.ensure_collection(ns) {
            return Err((InsertedIds::default(), e));
        }
        let mut per_shard = vec![0u64; self.shards.len()];
        let primary = self.primary_of(ns);
        let mut docs = docs.into_iter().peekable();
        let mut ids = Vec::with_capacity(docs.size_hint().0);
        let mut failure = None;
        // Documents are encoded a group at a time into one buffer (one allocation per
        // group), then inserted one by one, in order. Like the shell, which gives every
        // document of an `insertMany` its `_id` before sending it, a group's ObjectIds
        // are generated before any of its documents goes in.
        // Room for a whole group up front (when the caller says how many documents come),
        // rather than growing it a document at a time.
        let mut group: Vec<Pushed> = Vec::with_capacity(docs.size_hint().0.min(STORED_GROUP_DOCS));
        // The shard key's field, when the key is one top-level ascending field: the encoder
        // notes where each document holds it.
        let key_field = self
            .collections
            .get(ns)
            .and_then(|c| c.sharding.as_ref())
            .and_then(|s| key_field(&s.pattern))
            .map(str::to_owned);
        while failure.is_none() && docs.peek().is_some() {
            // Room for a whole group, or for the documents left at a guess of 256 bytes
            // each (the buffer grows if they need more).
            let left = docs.size_hint().0.max(1);
            let room = (left * 256).min(STORED_GROUP_BYTES as usize + 1024);
            let mut batch = StoredBatch::with_capacity(room, left.min(STORED_GROUP_DOCS));
            // A document that cannot be stored ends the group; its error is reported once
            // the documents before it are in (unless one of those fails first).
            let mut bad = None;
            while batch.bytes() < STORED_GROUP_BYTES && group.len() < STORED_GROUP_DOCS {
                let Some(doc) = docs.next() else { break };
                // A document without `_id` gets a generated ObjectId in front.
                match batch.push_new(doc.borrow(), key_field.as_deref(), || self.next_object_id()) {
                    Ok(pushed) => group.push(pushed),
                    Err(e) => {
                        bad = Some(e);
                        break;
                    }
                }
            }
            // The whole group is counted against the memory budget before any of it goes
            // in; past the budget, nothing more is inserted.
            if let Err(e) = self.written.take(group.len() as u64, batch.bytes() as u64) {
                group.clear();
                failure = Some(e);
                break;
            }
            for (pushed, stored) in group.drain(..).zip(batch.finish()) {
                // A generated `_id` is known without reading it back from the bytes.
                match self.insert_one_inner(ns, stored, pushed.generated, pushed.key_at, primary) {
                    Ok((shard, id)) => {
                        per_shard[shard as usize] += 1;
                        ids.push(id);
                    }
                    Err(e) => {
                        bad = Some(e);
                        break;
                    }
                }
            }
            failure = bad;
        }
        if !ids.is_empty() {
            let per_shard = per_shard
                .into_iter()
                .enumerate()
                .filter(|(_, n)| *n > 0)
                .map(|(i, n)| (self.shards[i].name.clone(), n))
                .collect();
            self.push_event(EventKind::Insert {
                ns: ns.to_string(),
                per_shard,
            });
        }
        let ids = InsertedIds(ids);
        match failure {
            Some(e) => Err((ids, e)),
            None => Ok(ids),
        }
    }

    /// Stores one encoded document and returns its shard and `_id`; `id` is its generated
    /// `_id` if it got one (read from the document otherwise), `key_at` where the encoder
    /// saw the shard key's field (see [`Pushed`]); `primary` is the database's primary
    /// shard, where an unsharded collection's documents go.
    fn insert_one_inner(
        &mut self,
        ns: &str,
        stored: Stored,
        id: Option<ObjectId>,
        key_at: Option<u32>,
        primary: ShardIdx,
    ) -> Result<(ShardIdx, IdKey), ClusterError> {
        let (autosplit, max_size) = (self.autosplit_enabled, self.chunk_size());
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| not_sharded(ns))?;
        // The collection's parts, borrowed separately: the document's chunk is found once
        // and held while the indexes are checked, and counted only once they pass.
        let Collection {
            sharding,
            docs,
            ids,
            next_doc,
            recent,
            key_scratch,
            ..
        } = coll;
        // The key is read straight into its compact form; `key_scratch` lends its vector
        // to the keys that need a `KeyValue` on the way (routing off the top chunk, keys
        // of several fields). It is made apart from the chunk it routes to, so that it is
        // built where it stays rather than moved through a tuple (back-to-back copies of a
        // 16-byte key, whose second read stalls on the first's overlapping stores).
        let doc_key = match sharding.as_ref() {
            Some(s) => doc_key(&s.pattern, &stored, key_at, key_scratch)?,
            None => DocKey::Empty,
        };
        let (chunk, unique) = match sharding.as_mut() {
            Some(s) => {
                let chunk = s.table.chunk_for_doc_key_mut(&doc_key, key_scratch);
                // Every chunk's range excludes its upper bound, so a key equal to the
                // collection's global maximum (MaxKey in every field) has no chunk: mongos
                // refuses it rather than store a document no range query could find.
                if let Some(c) = chunk.as_ref() {
                    if doc_key.cmp_key(&c.max) != Ordering::Less {
                        return Err(untargetable_key(ns, &s.pattern, &doc_key.to_key()));
                    }
                }
                (chunk, s.unique.then_some(&s.pattern))
            }
            None => (None, None),
        };
        let shard = chunk.as_ref().map_or(primary, |c| c.shard);
        let id = IdSlot::new(id.map_or_else(|| stored.id(), IdKey::object_id), shard);
        let Some(id_slot) = ids.vacant(&id) else {
            return Err(duplicate_key(
                ns,
                "_id_",
                &format!(
                    "{{ _id: {} }}",
                    crate::keys::shard_key::format_bson_value(&id.id.to_bson())
                ),
            ));
        };
        if let Some(pattern) = unique {
            if docs
                .range((doc_key.clone(), 0)..=(doc_key.clone(), u64::MAX))
                .next()
                .is_some()
            {
                let name = index_name(&pattern.to_pattern_document());
                let shown = format_bson_obj(&pattern.to_document(&doc_key.to_key()));
                return Err(duplicate_key(ns, &name, &shown));
            }
        }
        let size = stored.size();
        // MongoDB refuses documents over the 16 MiB BSON limit.
        if size > MAX_DOCUMENT_BYTES {
            return Err(ClusterError::BsonObjectTooLarge(format!(
                "object to insert too large. size in bytes: {size}, max size: {MAX_DOCUMENT_BYTES}"
            )));
        }
        let seq = *next_doc;
        *next_doc += 1;
        // The `_id` is not on this shard yet (checked above), so its count starts at 1.
        let inserted = id.id.clone();
        ids.insert_vacant(id_slot, id, DocAt::new(doc_key.clone(), seq));
        let mut split_candidate = None;
        if let Some(chunk) = chunk {
            chunk.docs += 1;
            chunk.bytes += u64::from(size);
            chunk.written += u64::from(size);
            // The splitter looks at a chunk once a fifth of the maximum chunk size has
            // been written to it (`ChunkWritesTracker::shouldSplit`); cloning its bound
            // for every insert would be wasted work.
            if autosplit && chunk.written >= max_size / SPLIT_TEST_FACTOR {
                split_candidate = Some(chunk.min.clone());
            }
            if let Some(s) = sharding.as_mut() {
                s.table.note_insert(shard, u64::from(size));
            }
        }
        recent.push(seq, doc_key.clone());
        docs.insert((doc_key, seq), stored);
        if let Some(min) = split_candidate {
            self.maybe_auto_split(ns, &min);
        }
        Ok((shard, inserted))
    }

    /// Changes whether the balancer may move a collection's chunks.
    pub fn set_collection_balancing(&mut self, ns: &str, on: bool) -> Result<(), ClusterError> {
        self.sharding_mut(ns)?.balancing = on;
        Ok(())
    }

    /// `configureCollectionBalancing` (5.3 on), as the config server's
    /// `ShardingCatalogManager::configureCollectionBalancing` applies it: nothing to do
    /// without an option; `chunkSize` in MB within [1, 1024] (0 restores the cluster's),
    /// checked before the collection is looked up; `defragmentCollection: true` sets the
    /// flag the balancer defragments by (`engine/defragmentation.rs`), `false` aborts a
    /// defragmentation at once, reading the collection's catalog entry
    /// (`abortCollectionDefragmentation`, NamespaceNotFound when there is none), and
    /// updates nothing itself; `enableAutoMerger` recorded; then, when there is something
    /// to update, the update of `config.collections` must match the sharded collection.
    pub fn configure_collection_balancing(
        &mut self,
        ns: &str,
        chunk_size_mb: Option<i64>,
        defragment: Option<bool>,
        auto_merge: Option<bool>,
    ) -> Result<(), ClusterError> {
        if !split_ns(ns).is_ok_and(|(d, c)| !d.is_empty() && !c.is_empty()) {
            return Err(ClusterError::InvalidNamespace(format!(
                "Invalid namespace specified '{ns}'"
            )));
        }
        if chunk_size_mb.is_none() && defragment.is_none() && auto_merge.is_none() {
            return Ok(());
        }
        if let Some(mb) = chunk_size_mb.filter(|mb| *mb != 0) {
            if !(1..=1024).contains(&mb) {
                return Err(ClusterError::InvalidOptions(format!(
                    "Chunk size '{mb}' out of range [1MB, 1GB]"
                )));
            }
        }
        if defragment == Some(false) {
            if self.sharding(ns).is_err() {
                return Err(ClusterError::NamespaceNotFound(format!(
                    "collection {ns} not found"
                )));
            }
            self.abort_defragmentation(ns);
        }
        if chunk_size_mb.is_none() && defragment != Some(true) && auto_merge.is_none() {
            return Ok(());
        }
        let Some(s) = self
            .collections
            .get_mut(ns)
            .and_then(|c| c.sharding.as_mut())
        else {
            return Err(ClusterError::NamespaceNotSharded(format!(
                "Expected to match one doc for query {} but matched 0",
                format_bson_obj(&bson::doc! { "_id": ns })
            )));
        };
        if let Some(mb) = chunk_size_mb {
            s.chunk_size = (mb != 0).then_some(mb as u64 * 1024 * 1024);
        }
        if defragment == Some(true) {
            s.defrag.get_or_insert_with(Default::default);
        }
        if auto_merge.is_some() {
            s.auto_merge = auto_merge;
        }
        Ok(())
    }

    /// Checks the invariants of every collection: chunks tile the key space, chunk counts
    /// and sizes match their documents, every document is on its chunk's shard.
    pub fn check(&self) -> Result<(), String> {
        for (ns, coll) in &self.collections {
            if let Some(s) = &coll.sharding {
                s.table
                    .check(&s.pattern.global_min(), &s.pattern.global_max())
                    .map_err(|e| format!("{ns}: {e}"))?;
                for c in s.table.iter() {
                    let (n, b) = range_totals(&coll.docs, &c.min, &c.max);
                    if n != c.docs || b != c.bytes {
                        return Err(format!(
                            "{ns}: chunk {:?} counts {}/{} but holds {n}/{b}",
                            c.min, c.docs, c.bytes
                        ));
                    }
                    if self.shards[c.shard as usize].removed {
                        return Err(format!("{ns}: chunk {:?} is on a removed shard", c.min));
                    }
                }
                for ((k, _), st) in &coll.docs {
                    let expect = s.pattern.extract_raw(st.raw()).map_err(|e| e.to_string())?;
                    if k.cmp_key(&expect) != Ordering::Equal {
                        return Err(format!("{ns}: document stored under the wrong key"));
                    }
                }
            }
            let id_total: u64 = coll.ids.iter().map(|(s, _)| u64::from(s.count())).sum();
            if id_total != coll.docs.len() as u64 {
                return Err(format!(
                    "{ns}: _id index holds {id_total} of {} documents",
                    coll.docs.len()
                ));
            }
        }
        Ok(())
    }
}

impl Sharding {
    /// Renders a key value as mongosh prints a chunk bound: `{ x: MinKey() }`.
    pub fn bound_string(&self, key: &KeyValue) -> String {
        crate::values::inspect::format_document(&self.pattern.to_document(key))
    }
}

impl Collection {
    /// The name of the index on `keys`: the one `createIndex` was given, else the default.
    pub fn index_name_of(&self, keys: &Document) -> String {
        let default = index_name(keys);
        self.index_names.get(&default).cloned().unwrap_or(default)
    }

    /// Whether the collection has an index on exactly `keys`, fields in the same order
    /// (`bson::Document`'s own equality ignores the order, and `{a: 1, b: 1}` and
    /// `{b: 1, a: 1}` are two indexes).
    pub fn has_index(&self, keys: &Document) -> bool {
        self.indexes.iter().any(|i| same_pattern(i, keys))
    }

    /// Whether the index on exactly `keys` is unique.
    pub fn is_unique_index(&self, keys: &Document) -> bool {
        self.unique_indexes.iter().any(|i| same_pattern(i, keys))
    }

    /// The stored documents in shard key order.
    pub fn documents(&self) -> impl Iterator<Item = Document> + '_ {
        self.docs.values().map(Stored::doc)
    }

    /// The stored documents with their BSON sizes in the order they were inserted: by
    /// insertion number, which migrations, resharding and refining keep (sharding a
    /// collection numbers its documents again in their unsharded, insertion order).
    /// MongoDB leaves a sharded collection's order across its shards undefined (each shard
    /// keeps its own record order); this is the order the documents arrived in.
    pub fn documents_in_insertion_order(&self) -> impl Iterator<Item = (u32, Document)> + '_ {
        let mut stored: Vec<(u64, &Stored)> =
            self.docs.iter().map(|((_, seq), s)| (*seq, s)).collect();
        stored.sort_unstable_by_key(|(seq, _)| *seq);
        stored.into_iter().map(|(_, s)| (s.size(), s.doc()))
    }

    /// The stored documents with their shard keys and sizes, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (KeyValue, u32, Document)> + '_ {
        self.docs
            .iter()
            .map(|((k, _), s)| (k.to_key(), s.size(), s.doc()))
    }

    /// The insertion number the next document will get (insertions so far).
    pub fn next_insert(&self) -> u64 {
        self.next_doc
    }

    /// The shard keys of the latest inserts with their insertion numbers, oldest first
    /// (at most [`RECENT_INSERTS`]).
    pub fn recent_inserts(&self) -> impl Iterator<Item = (u64, KeyValue)> + '_ {
        self.recent_inserts_from(0)
    }

    /// The recent inserts numbered `from` or later (see [`Collection::recent_inserts`]),
    /// oldest first: only their keys are copied out.
    pub fn recent_inserts_from(&self, from: u64) -> impl Iterator<Item = (u64, KeyValue)> + '_ {
        self.recent
            .from(from)
            .map(|(seq, key)| (*seq, key.to_key()))
    }

    /// The newest document inserted, while it is still stored (not deleted, nor moved
    /// by an update of its shard key): its insertion number, its shard key value, and the
    /// document.
    pub fn latest_insert(&self) -> Option<(u64, KeyValue, Document)> {
        let (seq, key) = self.recent.newest()?;
        let stored = self.docs.get(&(key.clone(), seq))?;
        Some((seq, key.to_key(), stored.doc()))
    }

    /// A value stored documents hold at `path` (a dotted path through embedded documents):
    /// the first in shard key order that is neither missing nor null, among the first
    /// [`SAMPLE_VALUE_LOOKS`] documents. It gives an example filter the field's actual
    /// type (a string for `continent`, an ObjectId for `_id`), whatever the key's order.
    pub fn sample_value(&self, path: &str) -> Option<Bson> {
        self.docs.values().take(SAMPLE_VALUE_LOOKS).find_map(|s| {
            crate::values::path::lookup_path(&s.doc(), path)
                .filter(|v| !matches!(v, Bson::Null))
                .cloned()
        })
    }

    /// The number of documents stored.
    pub fn doc_count(&self) -> u64 {
        self.docs.len() as u64
    }

    /// Total BSON size of the documents.
    pub fn data_size(&self) -> u64 {
        self.docs.values().map(|d| u64::from(d.size())).sum()
    }

    /// Whether the documents in `[min, max)` all have the same key (false when there are
    /// none), from the first and last entries of the range alone.
    pub(crate) fn single_key_in(&self, min: &KeyValue, max: &KeyValue) -> bool {
        let mut range = crate::engine::store::range(&self.docs, min, max);
        match (range.next(), range.next_back()) {
            (Some(((first, _), _)), Some(((last, _), _))) => first == last,
            (Some(_), None) => true,
            _ => false,
        }
    }

    /// The keys and sizes of the documents in `[min, max)`.
    pub(crate) fn keys_in(&self, min: &KeyValue, max: &KeyValue) -> Vec<(&DocKey, u32)> {
        crate::engine::store::range(&self.docs, min, max)
            .map(|((k, _), s)| (k, s.size()))
            .collect()
    }
}

/// What a cluster holds that another (an earlier snapshot) does not share with it, in
/// counts from which [`crate::sim::timeline`] estimates bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Footprint {
    /// Leaf pointers of the document stores and `_id` indexes (each clone has its own).
    pub(crate) leaf_pointers: u64,
    /// Unshared leaves, with the entries they hold.
    pub(crate) doc_leaves: u64,
    pub(crate) doc_entries: u64,
    /// BSON bytes of the documents in unshared leaves (an upper bound on the documents
    /// not shared: a copied leaf still shares its documents).
    pub(crate) doc_bytes: u64,
    /// Documents that `previous` does not hold at all, and their BSON bytes.
    pub(crate) new_docs: u64,
    pub(crate) new_doc_bytes: u64,
    pub(crate) id_leaves: u64,
    pub(crate) id_entries: u64,
    /// Chunks and recent-insert keys, copied outright by a clone.
    pub(crate) chunks: u64,
    pub(crate) recent: u64,
    /// Events not in a segment shared with the other cluster, and the segment pointers.
    pub(crate) events: u64,
    pub(crate) segments: u64,
}

impl Cluster {
    /// What this cluster holds beyond `previous` (everything without one).
    pub(crate) fn footprint(&self, previous: Option<&Cluster>) -> Footprint {
        let mut f = Footprint {
            events: self.events.unshared_events(previous.map(|p| &p.events)) as u64,
            segments: self.events.segment_count() as u64,
            ..Footprint::default()
        };
        for (ns, coll) in &self.collections {
            let before = previous.and_then(|p| p.collections.get(ns));
            f.leaf_pointers += (coll.docs.leaf_count() + coll.ids.leaf_count()) as u64;
            // The documents of `previous`'s leaves that this cluster does not share: a
            // document of an unshared leaf of ours is new unless it is among them.
            let theirs = crate::support::ptr_set::PtrSet::new(before.into_iter().flat_map(|b| {
                b.docs
                    .unshared_leaves(Some(&coll.docs))
                    .flat_map(|l| l.iter().map(|(_, s)| s.ptr()))
            }));
            for leaf in coll.docs.unshared_leaves(before.map(|b| &b.docs)) {
                f.doc_leaves += 1;
                f.doc_entries += leaf.len() as u64;
                for (_, s) in leaf {
                    f.doc_bytes += u64::from(s.size());
                    if !theirs.contains(s.ptr()) {
                        f.new_docs += 1;
                        f.new_doc_bytes += u64::from(s.size());
                    }
                }
            }
            for leaf in coll.ids.unshared_leaves(before.map(|b| &b.ids)) {
                f.id_leaves += 1;
                f.id_entries += leaf.len() as u64;
            }
            f.chunks += coll.sharding.as_ref().map_or(0, |s| s.table.len() as u64);
            f.recent += coll.recent.len() as u64;
        }
        f
    }
}

/// Document count and bytes of the documents in `[min, max)`.
pub(crate) fn range_totals(docs: &DocStore, min: &KeyValue, max: &KeyValue) -> (u64, u64) {
    crate::engine::store::range(docs, min, max)
        .fold((0, 0), |(n, b), (_, s)| (n + 1, b + u64::from(s.size())))
}

/// The `_id` index of `docs` placed by `table`: each document counted on the shard
/// owning its chunk, with its place in the store.
pub(crate) fn index_ids(table: &RoutingTable, docs: &DocStore) -> IdIndex {
    let mut ids = IdIndex::new();
    for c in table.iter() {
        for ((key, seq), stored) in crate::engine::store::range(docs, &c.min, &c.max) {
            id_add(
                &mut ids,
                stored.id(),
                c.shard,
                DocAt::new(key.clone(), *seq),
            );
        }
    }
    ids
}

/// Recomputes every chunk's count and size from the documents.
pub(crate) fn recount_all(table: &mut RoutingTable, docs: &DocStore) {
    for c in table.iter_mut() {
        let (n, b) = range_totals(docs, &c.min, &c.max);
        c.docs = n;
        c.bytes = b;
    }
}

/// The split points MongoDB pre-creates for `n` chunks of a hashed key: symmetric around 0
/// (spec §6, `InitialSplitPolicy::calculateHashedSplitPoints`).
pub fn hashed_split_points(n: u32) -> Vec<i64> {
    if n <= 1 {
        return Vec::new();
    }
    let interval = (i64::MAX / i64::from(n)) * 2;
    let mut points = Vec::with_capacity(n as usize);
    let mut current: i64 = 0;
    if n % 2 == 0 {
        points.push(0);
        current += interval;
    } else {
        current += interval / 2;
    }
    for _ in 0..(n - 1) / 2 {
        points.push(current);
        points.push(-current);
        current = current.saturating_add(interval);
    }
    points.sort();
    points
}

/// Splits `db.coll` into its database and collection names.
pub fn split_ns(ns: &str) -> Result<(&str, &str), ClusterError> {
    match ns.split_once('.') {
        // A NUL byte would end the name in any C string MongoDB makes of it.
        Some((db, coll)) if !db.is_empty() && !ns.contains('\0') => Ok((db, coll)),
        _ => Err(invalid_ns(ns)),
    }
}

/// mongos's error for a shard key value that falls in no chunk: only a key equal to the
/// global maximum, since chunks are `[min, max)` and the last one ends there.
pub(crate) fn untargetable_key(ns: &str, pattern: &KeyPattern, key: &KeyValue) -> ClusterError {
    ClusterError::ShardKeyNotFound(format!(
        "Cannot target single shard using key {} for namespace {ns}",
        format_bson_obj(&pattern.to_document(key))
    ))
}

fn invalid_ns(ns: &str) -> ClusterError {
    ClusterError::InvalidNamespace(format!("Invalid namespace specified '{ns}'"))
}

pub(crate) fn not_sharded(ns: &str) -> ClusterError {
    ClusterError::NamespaceNotSharded(format!("Collection {ns} is not sharded."))
}

/// MongoDB's name for an index on `pattern`, such as `x_1` or `a_1_b_hashed`.
pub fn index_name(pattern: &Document) -> String {
    pattern
        .iter()
        .map(|(k, v)| match v {
            Bson::String(s) => format!("{k}_{s}"),
            Bson::Int32(n) => format!("{k}_{n}"),
            Bson::Int64(n) => format!("{k}_{n}"),
            Bson::Double(d) => format!("{k}_{d}"),
            other => format!("{k}_{other}"),
        })
        .collect::<Vec<_>>()
        .join("_")
}

/// The size in MiB a `chunksize` settings document gives, as
/// `ChunkSizeSettingsType::fromBSON` (balancer_configuration.cpp) reads it, or `None`
/// where it fails: `bsonExtractIntegerField` wants a number with a whole value, and
/// `checkMaxChunkSizeValid` a size from 1 MiB to 1 GiB. The refresh that fails only
/// logs, so nobody sees its words.
pub fn chunksize_setting_mb(doc: &Document) -> Option<u64> {
    let mb = match doc.get("value")? {
        Bson::Int32(n) => i64::from(*n),
        Bson::Int64(n) => *n,
        Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.2e18 => *d as i64,
        _ => return None,
    };
    u64::try_from(mb).ok().filter(|n| (1..=1024).contains(n))
}

fn duplicate_key(ns: &str, index: &str, key: &str) -> ClusterError {
    ClusterError::DuplicateKey(format!(
        "E11000 duplicate key error collection: {ns} index: {index} dup key: {key}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_budget_refuses_what_would_go_past_it_and_counts_nothing() {
        let mut w = Written::default();
        assert!(w.take(MAX_WRITTEN_DOCS - 1, 10).is_ok());
        let err = w.take(2, 10).expect_err("past the document budget");
        assert_eq!(err.code_name(), "ExceededMemoryLimit");
        assert!(err.to_string().contains("2000000 documents"), "{err}");
        assert_eq!(
            w,
            Written {
                docs: MAX_WRITTEN_DOCS - 1,
                bytes: 10,
                held: 0
            }
        );
        assert!(w.take(1, MAX_WRITTEN_BYTES - 10).is_ok());
        assert!(w.take(0, 1).is_err());
        // What the session holds outside the cluster counts against the same budget.
        let mut w = Written {
            held: MAX_WRITTEN_BYTES - 5,
            ..Written::default()
        };
        assert!(w.take(1, 5).is_ok());
        assert!(w.take(1, 1).is_err());
    }
}
