//! Candidate shard keys ranked on a user's own documents: the same documents, in the
//! same order, replayed into one cluster per candidate key (each sharded on its key
//! before the first insert), then each cluster measured and the candidates ranked
//! (`rank_report.rs`).
//!
//! A [`Ranker`] takes documents one at a time (an import's records, or a collection's
//! documents) and keeps none of them beyond the batch being inserted: each candidate's
//! cluster holds its own copy, which is the simulation. Documents go in as mongoimport
//! sends them, unordered `insertMany` batches of [`BATCH_DOCUMENTS`], each batch one
//! statement of the cluster's clock (so the balancer runs between batches as it would
//! during an import); a document a cluster refuses (a key field holding an array fails
//! with MongoDB's `ShardKeyNotFound`, code 61, "Shard key cannot contain array values or
//! array descendants.") is counted and the batch goes on. With a sort field the documents
//! are held until the end and replayed in that field's order (`workload::Sorter`).
//!
//! **The recent-insert window.** Each batch is inserted in slices of [`SLICE_DOCUMENTS`]
//! documents, and where each slice's documents landed is kept. The hottest shard is
//! measured over the latest tenth of the documents inserted, counted in whole slices
//! newest first, at least one slice (`sim::LatestInserts`): a monotonic key sends that
//! whole window to the one shard holding the top chunk, a well spread key about
//! `1 / shards` of it to each.
//!
//! Without candidates given, the first [`PROFILE_DOCUMENTS`] documents are held and
//! profiled (`rank_candidates.rs`), the proposed candidates' clusters made, and those
//! documents replayed before the rest.
//!
//! **Queries.** With a query sample ([`RankOptions::queries`], read from a file by
//! `workload::read_queries`), each candidate's cluster is also asked for analyzeShardKey's
//! `readDistribution` and `writeDistribution` of its key, exactly as the command computes
//! them (`engine::analyze`): the 100 ranges of about equal document counts, each sampled
//! query targeted against them. The ranking's query isolation then says how many reads
//! and writes the key targets and how many go to every shard.
//!
//! **Where the replays run.** Each candidate's [`Replay`] is independent of the others:
//! the same batches in the same order give the same cluster and the same figures
//! whatever else runs beside it. A [`Ranker`] runs them one after another in its own
//! thread, as the core always does; a native driver can hand them to a [`Replayer`] of its
//! own (`Ranker::with_replayer`) that keeps each on a thread of its own, with identical
//! results.

use super::compare::{summarise_window, LatestInserts};
use super::rank_candidates::{FieldProfile, PROFILE_DOCUMENTS};
use super::rank_report::Distribution;
use super::rank_report::{rank, Figures, KeyFigures, RankedError, Ranking, Refusal};
use crate::engine::analyze::{
    analyze_shard_key_with, distribution_skipped_message, AnalyzeOptions, QuerySample,
};
use crate::engine::cluster::{Cluster, ClusterConfig, VersionMode};
use crate::engine::events::{inserts_per_shard, ShardName};
use crate::engine::message::{msg, Message};
use crate::keys::format_bson_obj;
use crate::values::error::ClusterError;
use crate::workload::{Sorter, BATCH_DOCUMENTS};
use bson::{Bson, Document};
use std::sync::Arc;
use thiserror::Error;

/// Documents per insert slice, the grain of the recent-insert window.
pub const SLICE_DOCUMENTS: usize = 100;

/// The most candidates one ranking replays.
pub const MAX_CANDIDATES: usize = 16;

/// Refused documents kept per candidate for the report (all are counted).
pub const MAX_REFUSALS_KEPT: usize = 5;

/// The namespace of the sample in each candidate's cluster.
pub const RANK_NS: &str = "sample.docs";

/// The chunk size a ranking replays with unless told otherwise: MongoDB's smallest
/// (`chunksize` 1 MB), so that a sample of megabytes fills chunks as a production
/// collection fills 128 MB ones.
pub const DEFAULT_RANK_CHUNK_BYTES: u64 = 1024 * 1024;

/// Why a ranking cannot start.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RankError {
    /// More candidates than [`MAX_CANDIDATES`].
    #[error("at most {MAX_CANDIDATES} candidate keys can be ranked at once, not {0}")]
    TooManyCandidates(usize),
    /// A candidate the cluster refused to shard on, with MongoDB's error.
    #[error("{key}: {error}")]
    Key {
        /// The candidate as given.
        key: String,
        /// MongoDB's error.
        error: ClusterError,
    },
}

/// How a ranking replays.
#[derive(Debug, Clone, PartialEq)]
pub struct RankOptions {
    /// Each candidate's cluster: shards, version, chunk size and seed.
    pub cluster: ClusterConfig,
    /// The dotted field to sort the documents by before the replay, if any.
    pub sort_by: Option<String>,
    /// The sampled queries, if a sample was given: each candidate is then measured for
    /// analyzeShardKey's read and write distribution too. Shared by every replay.
    pub queries: Option<Arc<[QuerySample]>>,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions {
            cluster: ClusterConfig {
                chunk_size: Some(DEFAULT_RANK_CHUNK_BYTES),
                ..ClusterConfig::default()
            },
            sort_by: None,
            queries: None,
        }
    }
}

/// One candidate's cluster during the replay: made with its key, fed the batches in
/// order, then measured.
pub struct Replay {
    key: Document,
    why: Message,
    cluster: Cluster,
    queries: Option<Arc<[QuerySample]>>,
    slices: Vec<Vec<(ShardName, u64)>>,
    inserted: u64,
    refused: u64,
    refusals: Vec<Refusal>,
    stopped: Option<RankedError>,
}

fn ranked_error(e: &ClusterError) -> RankedError {
    RankedError {
        code: e.code(),
        code_name: e.code_name().to_string(),
        message: e.to_string(),
    }
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay")
            .field("key", &self.key)
            .field("inserted", &self.inserted)
            .finish_non_exhaustive()
    }
}

impl Replay {
    /// A cluster of `config` with [`RANK_NS`] sharded on `key`, or MongoDB's error for a
    /// key `shardCollection` refuses; `why` is why the candidate is ranked, `queries` the
    /// sample its read and write distribution is measured on, if any.
    pub fn new(
        key: Document,
        why: Message,
        config: &ClusterConfig,
        queries: Option<Arc<[QuerySample]>>,
    ) -> Result<Replay, RankError> {
        let mut cluster = Cluster::new(config.clone());
        let (db, _) = RANK_NS.split_once('.').unwrap_or_default();
        let sharded = cluster
            .enable_sharding(db, None)
            .and_then(|()| cluster.shard_collection(RANK_NS, &key, false, None));
        if let Err(error) = sharded {
            return Err(RankError::Key {
                key: format_bson_obj(&key),
                error,
            });
        }
        Ok(Replay {
            key,
            why,
            cluster,
            queries,
            slices: Vec::new(),
            inserted: 0,
            refused: 0,
            refusals: Vec::new(),
            stopped: None,
        })
    }

    /// Inserts one batch as an unordered `insertMany`: slice by slice, a refused
    /// document counted and skipped, then the statement's cost charged to the clock.
    /// `lines[i]` is the line `docs[i]` was found on (0 when none).
    pub fn insert_batch(&mut self, docs: &[Document], lines: &[u64]) {
        if self.stopped.is_some() {
            return;
        }
        let mut next = 0;
        while next < docs.len() {
            let end = (next + SLICE_DOCUMENTS).min(docs.len());
            let before = self.cluster.events().len();
            let result = self.cluster.insert_many(RANK_NS, &docs[next..end]);
            let events = self.cluster.events();
            self.slices
                .push(inserts_per_shard(events.since(before), RANK_NS));
            let (ids, error) = match result {
                Ok(ids) => (ids.len(), None),
                Err((ids, e)) => (ids.len(), Some(e)),
            };
            self.inserted += ids as u64;
            next += ids;
            let Some(e) = error else { continue };
            if matches!(e, ClusterError::ExceededMemoryLimit(_)) {
                self.stopped = Some(ranked_error(&e));
                break;
            }
            self.refuse(lines.get(next).copied().unwrap_or(0), &e);
            next += 1;
        }
        self.cluster.finish_statement(0);
    }

    fn refuse(&mut self, line: u64, e: &ClusterError) {
        self.refused += 1;
        if self.refusals.len() < MAX_REFUSALS_KEPT {
            self.refusals.push(Refusal {
                line,
                error: ranked_error(e),
            });
        }
    }

    /// What the replay and analyzeShardKey measured.
    pub fn figures(&self) -> Figures {
        let total: u64 = self.slices.iter().flatten().map(|(_, n)| n).sum();
        let window = (total / 10).max(1);
        let row = summarise_window("", &self.cluster, RANK_NS, &self.slices, &[], window);
        let latest = LatestInserts::of(
            self.slices
                .iter()
                .rev()
                .map(|s| s.iter().map(|(n, c)| (n.as_str(), *c))),
            window,
        );
        let hottest = latest
            .per_shard
            .iter()
            .fold(("", 0u64), |b, &(s, n)| if n > b.1 { (s, n) } else { b })
            .0
            .to_string();
        Figures {
            key: self.key.clone(),
            label: format_bson_obj(&self.key),
            why: self.why.clone(),
            inserted: self.inserted,
            refused: self.refused,
            refusals: self.refusals.clone(),
            stopped: self.stopped.clone(),
            characteristics: characteristics(&self.cluster, &self.key),
            distribution: self
                .queries
                .as_deref()
                .map(|q| distribution(&self.cluster, &self.key, q)),
            docs_per_shard: row.docs_per_shard,
            chunks_per_shard: row.chunks_per_shard,
            jumbo: row.jumbo_chunks,
            recent: (hottest, row.hottest_shard_share, latest.counted),
        }
    }
}

/// analyzeShardKey's key characteristics of the cluster's own shard key.
fn characteristics(cluster: &Cluster, key: &Document) -> Result<KeyFigures, RankedError> {
    let options = AnalyzeOptions {
        read_write_distribution: false,
        ..AnalyzeOptions::default()
    };
    let reply = analyze_shard_key_with(cluster, RANK_NS, key, &[], options)
        .map_err(|e| ranked_error(&e))?;
    let k = reply.get_document("keyCharacteristics").ok();
    let long = |d: Option<&Document>, f: &str| d.and_then(|d| d.get_i64(f).ok()).unwrap_or(0);
    let most_common = k
        .and_then(|k| k.get_array("mostCommonValues").ok())
        .and_then(|a| a.first())
        .and_then(Bson::as_document)
        .map(|m| {
            let value = m
                .get_document("value")
                .map(format_bson_obj)
                .unwrap_or_default();
            (value, long(Some(m), "frequency") as u64)
        });
    let monotonicity = k.and_then(|k| k.get_document("monotonicity").ok());
    Ok(KeyFigures {
        distinct: long(k, "numDistinctValues") as u64,
        documents: long(k, "numDocsTotal") as u64,
        most_common,
        monotonic: monotonicity.and_then(|m| m.get_str("type").ok()) == Some("monotonic"),
        correlation: monotonicity
            .and_then(|m| m.get_f64("recordIdCorrelationCoefficient").ok())
            .unwrap_or(0.0),
    })
}

/// analyzeShardKey's `readDistribution` and `writeDistribution` of the cluster's own key
/// over `queries`, or its error with why in plain words (too few documents or distinct
/// values for the 100 ranges).
fn distribution(
    cluster: &Cluster,
    key: &Document,
    queries: &[QuerySample],
) -> Result<Distribution, (RankedError, Message)> {
    let options = AnalyzeOptions {
        key_characteristics: false,
        ..AnalyzeOptions::default()
    };
    match analyze_shard_key_with(cluster, RANK_NS, key, queries, options) {
        Ok(reply) => Ok(Distribution {
            read: reply
                .get_document("readDistribution")
                .cloned()
                .unwrap_or_default(),
            write: reply
                .get_document("writeDistribution")
                .cloned()
                .unwrap_or_default(),
        }),
        Err(e) => {
            let (docs, distinct) = match characteristics(cluster, key) {
                Ok(k) => (k.documents, k.distinct),
                Err(_) => (0, 0),
            };
            Err((
                ranked_error(&e),
                distribution_skipped_message(docs, distinct),
            ))
        }
    }
}

/// Where a ranking's replays run: each candidate's [`Replay`] started, fed every batch
/// and measured, in the order the candidates were started. An implementation may run the
/// replays anywhere (a thread each) as long as each gets every batch in order.
pub trait Replayer {
    /// Starts a candidate's replay ([`Replay::new`]).
    fn start(
        &mut self,
        key: Document,
        why: Message,
        config: &ClusterConfig,
        queries: Option<Arc<[QuerySample]>>,
    ) -> Result<(), RankError>;
    /// Inserts a batch into every replay started ([`Replay::insert_batch`]).
    fn insert_batch(&mut self, docs: Vec<Document>, lines: Vec<u64>);
    /// Every replay's figures ([`Replay::figures`]), in the order they were started.
    fn figures(self: Box<Self>) -> Vec<Figures>;
}

/// The core's own replayer: the replays one after another, in the caller's thread.
#[derive(Debug, Default)]
struct InPlace(Vec<Replay>);

impl Replayer for InPlace {
    fn start(
        &mut self,
        key: Document,
        why: Message,
        config: &ClusterConfig,
        queries: Option<Arc<[QuerySample]>>,
    ) -> Result<(), RankError> {
        self.0.push(Replay::new(key, why, config, queries)?);
        Ok(())
    }

    fn insert_batch(&mut self, docs: Vec<Document>, lines: Vec<u64>) {
        for replay in &mut self.0 {
            replay.insert_batch(&docs, &lines);
        }
    }

    fn figures(self: Box<Self>) -> Vec<Figures> {
        self.0.iter().map(Replay::figures).collect()
    }
}

/// Candidate keys ranked on a stream of documents (see the module's notes).
pub struct Ranker {
    options: RankOptions,
    /// The candidates started, in order.
    keys: Vec<Document>,
    replayer: Box<dyn Replayer>,
    /// Documents held until the candidates are proposed.
    profile: Option<(FieldProfile, Vec<(Document, u64)>)>,
    sorter: Option<Sorter<(Document, u64)>>,
    batch: Vec<Document>,
    lines: Vec<u64>,
    documents: u64,
    unreadable: u64,
}

impl std::fmt::Debug for Ranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranker")
            .field("candidates", &self.keys.len())
            .field("documents", &self.documents)
            .finish_non_exhaustive()
    }
}

impl Ranker {
    /// A ranking of `keys` (each a shard key pattern, checked as `shardCollection`
    /// checks it), or of the candidates proposed from the documents when `keys` is empty.
    pub fn new(keys: &[Document], options: RankOptions) -> Result<Ranker, RankError> {
        Ranker::with_replayer(keys, options, Box::new(InPlace::default()))
    }

    /// A ranking as [`Ranker::new`] makes it, whose replays run in `replayer`.
    pub fn with_replayer(
        keys: &[Document],
        options: RankOptions,
        mut replayer: Box<dyn Replayer>,
    ) -> Result<Ranker, RankError> {
        if keys.len() > MAX_CANDIDATES {
            return Err(RankError::TooManyCandidates(keys.len()));
        }
        let mut started: Vec<Document> = Vec::with_capacity(keys.len());
        for key in keys {
            if started.contains(key) {
                continue;
            }
            replayer.start(
                key.clone(),
                msg!("rank.given"),
                &options.cluster,
                options.queries.clone(),
            )?;
            started.push(key.clone());
        }
        let profile = keys
            .is_empty()
            .then(|| (FieldProfile::default(), Vec::new()));
        Ok(Ranker {
            sorter: options.sort_by.as_deref().map(Sorter::new),
            options,
            keys: started,
            replayer,
            profile,
            batch: Vec::with_capacity(BATCH_DOCUMENTS),
            lines: Vec::with_capacity(BATCH_DOCUMENTS),
            documents: 0,
            unreadable: 0,
        })
    }

    /// Documents taken so far.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Counts a record of the input that could not be read.
    pub fn unreadable(&mut self) {
        self.unreadable += 1;
    }

    /// Takes the next document, found on `line` of its file (0 when it has none).
    pub fn push(&mut self, doc: Document, line: u64, bytes: u64) {
        self.documents += 1;
        match &mut self.sorter {
            Some(sorter) => {
                let size = usize::try_from(bytes).unwrap_or(usize::MAX);
                let key = sorter.key_of(&doc);
                if sorter.hold(key, line, size, (doc, line)).is_err() {
                    self.unreadable += 1;
                }
            }
            None => self.feed(doc, line),
        }
    }

    /// A document in replay order: profiled while candidates are still to be proposed,
    /// else into the batch.
    fn feed(&mut self, doc: Document, line: u64) {
        if let Some((profile, held)) = &mut self.profile {
            profile.add(&doc);
            held.push((doc, line));
            if profile.documents() >= PROFILE_DOCUMENTS {
                self.propose();
            }
            return;
        }
        self.batch.push(doc);
        self.lines.push(line);
        if self.batch.len() >= BATCH_DOCUMENTS {
            self.flush();
        }
    }

    /// Makes the proposed candidates' clusters and replays the documents held.
    fn propose(&mut self) {
        let Some((profile, held)) = self.profile.take() else {
            return;
        };
        for p in profile.propose() {
            if !self.keys.contains(&p.key) {
                // A proposed key is made of plain fields the profile saw; one the
                // cluster refuses is left out.
                let key = p.key.clone();
                if self
                    .replayer
                    .start(
                        p.key,
                        p.why,
                        &self.options.cluster,
                        self.options.queries.clone(),
                    )
                    .is_ok()
                {
                    self.keys.push(key);
                }
            }
        }
        for (doc, line) in held {
            self.feed(doc, line);
        }
    }

    fn flush(&mut self) {
        if self.batch.is_empty() {
            return;
        }
        let docs = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_DOCUMENTS));
        let lines = std::mem::replace(&mut self.lines, Vec::with_capacity(BATCH_DOCUMENTS));
        self.replayer.insert_batch(docs, lines);
    }

    /// Ends the input: replays what is held, measures every candidate and ranks them.
    pub fn finish(mut self) -> Ranking {
        if let Some(sorter) = self.sorter.take() {
            for (doc, line) in sorter.finish() {
                self.feed(doc, line);
            }
        }
        self.propose();
        self.flush();
        let figures = self.replayer.figures();
        let config = &self.options.cluster;
        let queried = self.options.queries.is_some();
        let (candidates, orders) = rank(figures, config.shards, queried);
        let version: VersionMode = config.version;
        Ranking {
            shards: config.shards,
            version: version.label().to_string(),
            chunk_size: config
                .chunk_size
                .unwrap_or_else(|| version.default_chunk_size()),
            documents: self.documents,
            unreadable: self.unreadable,
            queries: self.options.queries.as_deref().map(|q| {
                let count = |f: fn(&QuerySample) -> bool| q.iter().filter(|q| f(q)).count() as u64;
                (count(QuerySample::is_read), count(QuerySample::is_write))
            }),
            candidates,
            orders,
        }
    }
}
