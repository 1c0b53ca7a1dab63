//! The sharding model itself: the cluster, its routing table and storage, the
//! auto-splitter, the balancer, CRUD with routing, resharding, mongos targeting,
//! `analyzeShardKey` and the event log. Imports only the layers below it; it knows
//! nothing of the shell language ([`crate::shell`] sits beside it).

pub(crate) mod analyze;
pub(crate) mod auto_merger;
pub(crate) mod background;
pub(crate) mod balancer;
pub(crate) mod balancer_settings;
pub(crate) mod changelog_replay;
pub(crate) mod chunks;
pub(crate) mod clock;
pub(crate) mod cluster;
pub(crate) mod cluster_image;
pub(crate) mod config_catalog;
pub(crate) mod crud;
pub(crate) mod defragmentation;
pub(crate) mod defragmentation_state;
pub(crate) mod event_log;
pub(crate) mod events;
#[cfg(feature = "insight")]
pub(crate) mod explain;
#[cfg(feature = "insight")]
pub(crate) mod inspect;
pub(crate) mod message;
pub(crate) mod namespaces;
pub(crate) mod query_plan;
pub(crate) mod reshape;
pub(crate) mod split;
pub(crate) mod storage;
pub(crate) mod store;
pub(crate) mod targeting;
pub(crate) mod zone_chunks;

pub use crate::values::error::ClusterError;
pub use analyze::{
    analyze_shard_key, analyze_shard_key_with, distribution_skipped_message,
    distribution_skipped_note, distribution_skipped_reason, AnalyzeOptions, QuerySample,
};
pub use background::Background;
pub use balancer::{
    BalancePolicy, Migration, RemoveShardState, RoundStep, ZoneDecision, ZoneOutcome,
    MIGRATION_SIZE_FACTOR,
};
pub use changelog_replay::{ChunkChange, ChunkList, REPLAYED_CHANGES};
pub use chunks::{Chunk, ChunkVersion, RoutingTable};
pub use clock::{
    EPOCH_MS, MAX_ROUNDS_PER_ADVANCE, READ_US, ROUND_INTERVAL_MS, SHORT_ROUND_INTERVAL_MS,
    STATEMENT_US, WRITE_US,
};
pub use cluster::{Cluster, ClusterConfig, Sharding, VersionMode};
pub use cluster_image::{
    image_bound, tiling_error, tiling_problem, ClusterImage, ImageChunk, ImageCollection,
    ImageZone, TilingProblem, MAX_IMAGE_CHUNKS,
};
pub use config_catalog::{
    config_documents, ChangelogDoc, ChunkDoc, ChunkHistory, CollectionDoc, DatabaseDoc,
    DatabaseVersion, SettingDoc, ShardDoc, TagDoc, CONFIG_COLLECTIONS,
};
pub use defragmentation_state::{
    DefragPhase, Defragmentation, BIG_CHUNK_MARKER, SMALL_CHUNK_SIZE_THRESHOLD_PCT,
};
pub use events::{inserts_per_shard, Event, EventKind, ZoneChange};
#[cfg(feature = "insight")]
pub use explain::{Explanation, Landing, Topic};
#[cfg(feature = "insight")]
pub use inspect::{DocPage, DocRow, MAX_PAGE_DOCS};
pub use message::{rule_message, Arg, Message, MESSAGES};
pub use storage::{file_bytes, ShardCollectionStorage, BLOCK_BYTES, RECORD_ID_BYTES};
pub use targeting::{is_full_key_equality, target, TargetKind};
