//! The `rank` method: candidate shard keys ranked on a collection's documents at the
//! session's cursor (the core's `sim::Ranker`), each candidate replayed into a cluster of
//! its own and measured; what a request asks ([`RankSpec`]) and what it answers
//! ([`RankView`]). With a query sample ([`RankSpec::queries`]), each candidate also gets
//! analyzeShardKey's `readDistribution` and `writeDistribution` of the sampled queries.

use crate::{ArgView, EngineError};
use serde::{Deserialize, Serialize};

/// Most candidate keys one `rank` takes (the core's `sim::MAX_CANDIDATES`; an engine test
/// keeps the two equal).
pub const MAX_RANK_KEYS: usize = 16;
/// Most documents a collection may hold for `rank` to read it: each candidate replays
/// them all into a cluster of its own, so the work and the memory grow with both.
pub const MAX_RANK_DOCUMENTS: u64 = 200_000;
/// Most BSON bytes a collection may hold for `rank` to read it (64 MiB), for the same
/// reason.
pub const MAX_RANK_BYTES: u64 = 64 << 20;
/// The largest `chunkSizeMB` a ranking takes (MongoDB's upper bound for `chunksize`).
pub const MAX_RANK_CHUNK_MB: u64 = 1024;
/// The largest query sample a ranking reads, in bytes (16 MiB: the core's
/// `workload::MAX_QUERY_FILE_BYTES`; an engine test keeps the two equal).
pub const MAX_RANK_QUERIES_BYTES: usize = 16 << 20;

/// What `rank` asks: the collection, and how its documents are replayed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankSpec {
    /// The collection whose documents are ranked on (`db.coll`).
    pub ns: String,
    /// The candidate keys in the shell's syntax (`{a: 1}`, `{b: 'hashed'}`), at most
    /// [`MAX_RANK_KEYS`]; absent or empty for the candidates the core proposes from the
    /// documents' fields.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Shards of each candidate's cluster, 1 to 64; the session's when absent.
    #[serde(default)]
    pub shards: Option<u32>,
    /// The version mode of each candidate's cluster; the session's when absent.
    #[serde(default)]
    pub version: Option<String>,
    /// A dotted field to replay the documents in order of; their insertion order when
    /// absent.
    #[serde(default)]
    pub sort_by: Option<String>,
    /// The chunk size in MB, 1 to [`MAX_RANK_CHUNK_MB`]; when absent, the smaller of 1 MB
    /// (the core's `sim::DEFAULT_RANK_CHUNK_BYTES`) and the collection's own chunk size in
    /// the session.
    #[serde(default, rename = "chunkSizeMB")]
    pub chunk_size_mb: Option<u64>,
    /// A sample of queries as text, at most [`MAX_RANK_QUERIES_BYTES`]: one Extended JSON
    /// document after another (a line each) or one JSON array, each a bare filter (a
    /// `find`) or a document of `config.sampledQueries` as `mongoexport` writes it. Each
    /// candidate is then measured for analyzeShardKey's read and write distribution.
    #[serde(default)]
    pub queries: Option<String>,
    /// The namespace whose sampled queries are kept when the sample holds several
    /// (`config.sampledQueries` documents name theirs); bare filters are always kept.
    #[serde(default)]
    pub queries_ns: Option<String>,
}

/// The candidates ranked: the answer to `rank`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankView {
    /// The collection ranked on.
    pub ns: String,
    /// The session's cursor the documents were read at.
    pub position: u64,
    /// Documents read, in insertion order.
    pub documents: u64,
    /// Documents that could not be replayed (a `sortBy` field the sorter could not hold).
    pub unreadable: u64,
    /// Shards of each candidate's cluster.
    pub shards: u32,
    /// Their version mode (`"5.0"`).
    pub version: String,
    /// The chunk size the replay used, in bytes.
    pub chunk_size_bytes: u64,
    /// The candidates, best first.
    pub candidates: Vec<RankedKey>,
    /// For each measure, the candidates' keys from best to worst (with a query sample,
    /// `readDistribution` and `writeDistribution` too).
    pub orders: Vec<RankOrder>,
    /// What was read of the query sample, when one was given.
    #[serde(default)]
    pub queries: Option<RankQueries>,
}

/// What a ranking read of its query sample.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankQueries {
    /// Records (documents) in the text.
    pub records: u64,
    /// Reads counted (`find`, `aggregate`, `count`, `distinct`).
    pub reads: u64,
    /// Writes counted (updates, deletes, findAndModify).
    pub writes: u64,
    /// Records that could not be read or that MongoDB would refuse.
    pub failed: u64,
    /// The first of them, each with its line and why, in MongoDB's words.
    pub failures: Vec<RankQueryLine>,
    /// Records read and not counted (an `insert`, another namespace's query).
    pub left_out: u64,
    /// The first of them, with why.
    pub notes: Vec<RankQueryLine>,
}

/// A line of the query sample that was not counted, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankQueryLine {
    /// The line its record starts on, from 1.
    pub line: u64,
    /// Why.
    pub reason: String,
}

/// analyzeShardKey's `readDistribution.sampleSize`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadSampleSize {
    /// Every read sampled.
    pub total: u64,
    /// `find`s.
    pub find: u64,
    /// `aggregate`s.
    pub aggregate: u64,
    /// `count`s.
    pub count: u64,
    /// `distinct`s.
    pub distinct: u64,
}

/// analyzeShardKey's `readDistribution`: the percentages (0 to 100) are absent when no
/// read was sampled, as MongoDB leaves them out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadDistribution {
    /// The reads sampled, by command.
    pub sample_size: ReadSampleSize,
    /// Reads sent to a single shard (equality on the whole key).
    pub percentage_of_single_shard_reads: Option<f64>,
    /// Reads sent to the shards of some ranges of the key.
    pub percentage_of_multi_shard_reads: Option<f64>,
    /// Reads sent to every shard.
    pub percentage_of_scatter_gather_reads: Option<f64>,
    /// For each of the key's 100 ranges, from MinKey to MaxKey, the reads that reach it.
    pub num_reads_by_range: Vec<u64>,
}

/// analyzeShardKey's `writeDistribution.sampleSize`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteSampleSize {
    /// Every write sampled.
    pub total: u64,
    /// Updates (each statement of an `update` command).
    pub update: u64,
    /// Deletes (each statement of a `delete` command).
    pub delete: u64,
    /// `findAndModify`s.
    pub find_and_modify: u64,
}

/// analyzeShardKey's `writeDistribution`: the percentages (0 to 100) are absent when no
/// write was sampled.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteDistribution {
    /// The writes sampled, by command.
    pub sample_size: WriteSampleSize,
    /// Writes sent to a single shard.
    pub percentage_of_single_shard_writes: Option<f64>,
    /// Writes sent to the shards of some ranges of the key.
    pub percentage_of_multi_shard_writes: Option<f64>,
    /// Writes sent to every shard.
    pub percentage_of_scatter_gather_writes: Option<f64>,
    /// For each of the key's 100 ranges, the writes that reach it.
    pub num_writes_by_range: Vec<u64>,
    /// Writes that change the shard key.
    pub percentage_of_shard_key_updates: Option<f64>,
    /// Single-document writes without equality on the whole key.
    pub percentage_of_single_writes_without_shard_key: Option<f64>,
    /// Multi-document writes without equality on the whole key.
    pub percentage_of_multi_writes_without_shard_key: Option<f64>,
}

/// One candidate's place in a ranking.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedKey {
    /// The key as the server prints it (`{ ts: 1 }`).
    pub key: String,
    /// Its place overall, 1 the best.
    pub place: u32,
    /// The measures it loses on.
    pub losses: u32,
    /// Why it was tried: proposed from the fields seen, or given.
    pub why: RankSentence,
    /// What its replay and analyzeShardKey measured.
    pub figures: RankFigures,
    /// Why it wins or loses, measure by measure.
    pub reasons: Vec<RankReason>,
}

/// A sentence of the ranking's: its English and, for a page to word in its reader's
/// language, the message (an id of the core's `sim::RANK_MESSAGES` and its arguments).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankSentence {
    /// The English text.
    pub message: String,
    /// The message's id.
    pub id: String,
    /// Each placeholder's name and value (name/value pairs on the wire).
    pub args: Vec<(String, ArgView)>,
}

/// One reason a candidate wins or loses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankReason {
    /// The measure: `refused`, `cardinality`, `frequency`, `monotonicChange`,
    /// `recentInserts`, `dataSpread`, `jumbo`, `queryIsolation`, and with a query sample
    /// `readDistribution` and `writeDistribution`.
    pub measure: String,
    /// `wins`, `loses` or `neutral`.
    pub verdict: String,
    /// The candidate's place on the measure (1 the best; equal figures share a place), 0
    /// for a measure without a figure (`queryIsolation`).
    pub place: u32,
    /// The English text.
    pub message: String,
    /// The message's id.
    pub id: String,
    /// Each placeholder's name and value (name/value pairs on the wire).
    pub args: Vec<(String, ArgView)>,
}

/// What one candidate's replay and analyzeShardKey measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankFigures {
    /// analyzeShardKey's `numDistinctValues`; `null` when it could not measure the key.
    pub distinct: Option<u64>,
    /// analyzeShardKey's `numDocsTotal`; `null` when it could not measure the key.
    pub measured: Option<u64>,
    /// The most common key value, as the server prints it.
    pub most_common_value: Option<String>,
    /// Documents holding it.
    pub most_common_count: Option<u64>,
    /// Their share of the documents measured, 0 to 1.
    pub most_common_share: Option<f64>,
    /// analyzeShardKey's monotonicity: `monotonic`, `not monotonic`, or `unknown` when
    /// it could not measure the key.
    pub monotonic: String,
    /// Its `recordIdCorrelationCoefficient`.
    pub correlation: Option<f64>,
    /// analyzeShardKey's error, when it could not measure the key.
    pub unmeasured: Option<EngineError>,
    /// Documents the candidate's cluster took.
    pub inserted: u64,
    /// Documents it refused (a key field holding an array).
    pub refused: u64,
    /// The first few refused.
    pub refusals: Vec<RankRefusal>,
    /// Why the replay stopped before the end (a limit of the cluster), if it did.
    pub stopped: Option<EngineError>,
    /// Chunks on all shards.
    pub chunks: u64,
    /// Chunks flagged jumbo.
    pub jumbo: u64,
    /// Chunks per shard, in shard order.
    pub chunks_per_shard: Vec<(String, u64)>,
    /// Documents per shard after the replay, in shard order: the data's spread.
    pub docs_per_shard: Vec<(String, u64)>,
    /// The shard holding the most documents.
    pub fullest_shard: String,
    /// Its share of the documents, 0 to 1.
    pub fullest_share: f64,
    /// The shard that took the most of the latest inserts.
    pub hottest_recent_shard: String,
    /// Its share of them, 0 to 1.
    pub hottest_recent_share: f64,
    /// How many of the latest inserts those count (a tenth of the documents, in whole
    /// slices of 100).
    pub recent_window: u64,
    /// With a query sample, analyzeShardKey's `readDistribution` of the key.
    #[serde(default)]
    pub read_distribution: Option<ReadDistribution>,
    /// With a query sample, its `writeDistribution`.
    #[serde(default)]
    pub write_distribution: Option<WriteDistribution>,
    /// With a query sample, analyzeShardKey's error when it could not measure the
    /// distributions (too few documents or distinct values for its 100 ranges).
    #[serde(default)]
    pub distribution_unmeasured: Option<EngineError>,
}

/// A document a candidate's cluster refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankRefusal {
    /// The document's place in the order replayed, from 1.
    pub document: u64,
    /// MongoDB's error.
    pub error: EngineError,
}

/// The candidates sorted by one measure.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankOrder {
    /// The measure (as a reason names it).
    pub measure: String,
    /// The candidates' keys, best first.
    pub keys: Vec<String>,
}
