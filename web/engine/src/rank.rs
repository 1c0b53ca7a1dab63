//! The `rank` method: candidate shard keys ranked on a collection's documents at the
//! session's cursor, through the core's `sim::Ranker`.
//!
//! The documents are read from the cluster at the cursor, in the order they were inserted
//! (the core's `Collection::documents_in_insertion_order`: insertion numbers survive
//! migrations, resharding and refining, where key order or one shard's order would not be
//! the order the data arrived in), and handed to a ranker one at a time; the ranker
//! replays them into a cluster of its own per candidate. The session is only read: it
//! gains no step and its cluster is untouched. Everything is a function of the documents
//! and the options (each candidate's cluster takes the session's seed), so the same
//! request answers the same ranking.
//!
//! A query sample (`queries`, text) is read by the core's `workload::read_queries`:
//! its unreadable lines come back in the view with their line numbers, and each
//! candidate gains analyzeShardKey's read and write distribution as the command
//! answers them.

use crate::queries::message_view;
use bson::{Bson, Document};
use shardlab::engine::Message;
use shardlab::shell::{parse_value, EvalContext};
use shardlab::sim::{
    Distribution, Figures, RankError, RankOptions, RankedCandidate, RankedError, Ranker, Ranking,
    DEFAULT_RANK_CHUNK_BYTES, RANK_MESSAGES,
};
use shardlab::workload::{read_queries, Failure, QueryFile, QueryFileOptions};
use shardlab::{Cluster, VersionMode};
use shardlab_protocol::{
    EngineError, RankFigures, RankOrder, RankQueries, RankQueryLine, RankReason, RankRefusal,
    RankSentence, RankSpec, RankView, RankedKey, ReadDistribution, ReadSampleSize,
    WriteDistribution, WriteSampleSize, MAX_RANK_BYTES, MAX_RANK_DOCUMENTS,
};
use std::sync::Arc;

/// Ranks the candidates of `spec` on its collection in `cluster`, the session's cluster
/// at cursor `position`.
pub fn rank(cluster: &Cluster, position: u64, spec: &RankSpec) -> Result<RankView, EngineError> {
    let collection = cluster.collection(&spec.ns).ok_or_else(|| EngineError {
        code: 26,
        code_name: "NamespaceNotFound".into(),
        message: format!(
            "cannot rank shard keys for a non-existing collection: {}",
            spec.ns
        ),
    })?;
    let (documents, bytes) = (collection.doc_count(), collection.data_size());
    if documents > MAX_RANK_DOCUMENTS || bytes > MAX_RANK_BYTES {
        return Err(EngineError::illegal_operation(format!(
            "{} holds {documents} documents of {bytes} bytes: rank replays at most \
             {MAX_RANK_DOCUMENTS} documents and {MAX_RANK_BYTES} bytes into a cluster per \
             candidate; rank a smaller collection (the shardlab CLI's analyze reads a file \
             of any size)",
            spec.ns
        )));
    }
    let keys = spec
        .keys
        .iter()
        .map(|k| key(k))
        .collect::<Result<Vec<_>, _>>()?;
    let mut options = options(cluster, spec)?;
    let sample = match &spec.queries {
        Some(text) => Some(queries(text, spec.queries_ns.clone())?),
        None => None,
    };
    if let Some(file) = &sample {
        options.queries = Some(Arc::from(file.queries.as_slice()));
    }
    let mut ranker = Ranker::new(&keys, options).map_err(rank_error)?;
    for (place, (size, doc)) in collection.documents_in_insertion_order().enumerate() {
        ranker.push(doc, place as u64 + 1, u64::from(size));
    }
    let mut view = view(&spec.ns, position, ranker.finish());
    view.queries = sample.as_ref().map(sample_view);
    Ok(view)
}

/// The query sample read from `text`, or why it cannot be read at all (a bad value, in
/// the core's words).
fn queries(text: &str, ns: Option<String>) -> Result<QueryFile, EngineError> {
    let options = QueryFileOptions {
        file_name: None,
        ns,
    };
    read_queries(text.as_bytes(), &options)
        .map_err(|e| EngineError::bad_value(format!("the query sample: {e}")))
}

fn lines(list: &[Failure]) -> Vec<RankQueryLine> {
    list.iter()
        .map(|f| RankQueryLine {
            line: f.line,
            reason: f.reason.clone(),
        })
        .collect()
}

fn sample_view(file: &QueryFile) -> RankQueries {
    RankQueries {
        records: file.records,
        reads: file.reads(),
        writes: file.writes(),
        failed: file.failed,
        failures: lines(&file.failures),
        left_out: file.left_out,
        notes: lines(&file.notes),
    }
}

/// A candidate as the shell reads a document: `{a: 1}`, `{b: 'hashed'}`. Whether MongoDB
/// takes it as a shard key is the ranker's to say (`shardCollection` on its cluster).
fn key(text: &str) -> Result<Document, EngineError> {
    match parse_value(text, &mut EvalContext::default()) {
        Ok(Bson::Document(d)) => Ok(d),
        Ok(_) => Err(EngineError::bad_value(format!(
            "a candidate key is a document such as {{a: 1}}, not '{}'",
            text.chars().take(64).collect::<String>()
        ))),
        Err(e) => Err(EngineError::bad_value(format!("SyntaxError: {e}"))),
    }
}

/// Each candidate's cluster: the request's settings, else the session's shards, version
/// and seed, with the smaller of the core's ranking chunk size and the collection's own.
fn options(cluster: &Cluster, spec: &RankSpec) -> Result<RankOptions, EngineError> {
    let mut options = RankOptions::default();
    let config = &mut options.cluster;
    config.seed = cluster.config().seed;
    config.shards = match spec.shards {
        Some(n) => n,
        None => u32::try_from(cluster.live_shard_count())
            .unwrap_or(1)
            .max(1),
    };
    config.version = match &spec.version {
        Some(v) => VersionMode::parse(v)
            .ok_or_else(|| EngineError::bad_value(format!("unknown version mode '{v}'")))?,
        None => cluster.version(),
    };
    config.chunk_size = Some(match spec.chunk_size_mb {
        Some(mb) => mb << 20,
        None => DEFAULT_RANK_CHUNK_BYTES.min(cluster.chunk_size_for(&spec.ns)),
    });
    options.sort_by = spec.sort_by.clone();
    Ok(options)
}

/// Why a ranking cannot start, in the protocol's shape: a key MongoDB refuses carries
/// MongoDB's code and code name.
fn rank_error(e: RankError) -> EngineError {
    match e {
        RankError::Key { key, error } => EngineError {
            code: error.code(),
            code_name: error.code_name().to_string(),
            message: format!("{key}: {error}"),
        },
        other => EngineError::bad_value(other.to_string()),
    }
}

fn error(e: &RankedError) -> EngineError {
    EngineError {
        code: e.code,
        code_name: e.code_name.clone(),
        message: e.message.clone(),
    }
}

/// A share or a coefficient as JSON carries it: a number, never NaN.
fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

fn sentence(m: &Message) -> RankSentence {
    let view = message_view(m);
    RankSentence {
        message: m.english_in(RANK_MESSAGES),
        id: view.id,
        args: view.args,
    }
}

/// The ranking as the protocol carries it.
fn view(ns: &str, position: u64, ranking: Ranking) -> RankView {
    RankView {
        ns: ns.to_string(),
        position,
        documents: ranking.documents,
        unreadable: ranking.unreadable,
        shards: ranking.shards,
        version: ranking.version,
        chunk_size_bytes: ranking.chunk_size,
        candidates: ranking.candidates.iter().map(candidate).collect(),
        orders: ranking
            .orders
            .into_iter()
            .map(|(m, keys)| RankOrder {
                measure: m.name().to_string(),
                keys,
            })
            .collect(),
        queries: None,
    }
}

fn candidate(c: &RankedCandidate) -> RankedKey {
    RankedKey {
        key: c.figures.label.clone(),
        place: c.place,
        losses: c.losses,
        why: sentence(&c.figures.why),
        figures: figures(&c.figures),
        reasons: c
            .reasons
            .iter()
            .map(|r| {
                let s = sentence(&r.message);
                RankReason {
                    measure: r.kind.name().to_string(),
                    verdict: r.verdict.name().to_string(),
                    place: r.place,
                    message: s.message,
                    id: s.id,
                    args: s.args,
                }
            })
            .collect(),
    }
}

fn figures(f: &Figures) -> RankFigures {
    let k = f.characteristics.as_ref().ok();
    let most_common = k.and_then(|k| k.most_common.as_ref());
    let share = |n: u64, total: u64| {
        if total == 0 {
            0.0
        } else {
            n as f64 / total as f64
        }
    };
    let (fullest_shard, fullest_share) = f.fullest();
    RankFigures {
        distinct: k.map(|k| k.distinct),
        measured: k.map(|k| k.documents),
        most_common_value: most_common.map(|(v, _)| v.clone()),
        most_common_count: most_common.map(|(_, n)| *n),
        most_common_share: k.and_then(|k| {
            k.most_common
                .as_ref()
                .map(|(_, n)| finite(share(*n, k.documents)))
        }),
        monotonic: match k {
            Some(k) if k.monotonic => "monotonic",
            Some(_) => "not monotonic",
            None => "unknown",
        }
        .to_string(),
        correlation: k.map(|k| k.correlation).filter(|r| r.is_finite()),
        unmeasured: f.characteristics.as_ref().err().map(error),
        inserted: f.inserted,
        refused: f.refused,
        refusals: f
            .refusals
            .iter()
            .map(|r| RankRefusal {
                document: r.line,
                error: error(&r.error),
            })
            .collect(),
        stopped: f.stopped.as_ref().map(error),
        chunks: f.chunks(),
        jumbo: f.jumbo,
        chunks_per_shard: f.chunks_per_shard.clone(),
        docs_per_shard: f.docs_per_shard.clone(),
        fullest_shard,
        fullest_share: finite(fullest_share),
        hottest_recent_shard: f.recent.0.clone(),
        hottest_recent_share: finite(f.recent.1),
        recent_window: f.recent.2,
        read_distribution: match &f.distribution {
            Some(Ok(d)) => Some(read_view(d)),
            _ => None,
        },
        write_distribution: match &f.distribution {
            Some(Ok(d)) => Some(write_view(d)),
            _ => None,
        },
        distribution_unmeasured: match &f.distribution {
            Some(Err((e, _))) => Some(error(e)),
            _ => None,
        },
    }
}

/// A whole number of analyzeShardKey's reply (a long), 0 when absent.
fn count(d: &Document, field: &str) -> u64 {
    d.get_i64(field)
        .ok()
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0)
}

/// A percentage of the reply, absent when MongoDB leaves it out (nothing sampled).
fn percentage(d: &Document, field: &str) -> Option<f64> {
    d.get_f64(field).ok().map(finite)
}

fn by_range(d: &Document, field: &str) -> Vec<u64> {
    d.get_array(field)
        .map(|a| {
            a.iter()
                .map(|n| n.as_i64().and_then(|n| u64::try_from(n).ok()).unwrap_or(0))
                .collect()
        })
        .unwrap_or_default()
}

fn read_view(d: &Distribution) -> ReadDistribution {
    let r = &d.read;
    let size = r.get_document("sampleSize").cloned().unwrap_or_default();
    ReadDistribution {
        sample_size: ReadSampleSize {
            total: count(&size, "total"),
            find: count(&size, "find"),
            aggregate: count(&size, "aggregate"),
            count: count(&size, "count"),
            distinct: count(&size, "distinct"),
        },
        percentage_of_single_shard_reads: percentage(r, "percentageOfSingleShardReads"),
        percentage_of_multi_shard_reads: percentage(r, "percentageOfMultiShardReads"),
        percentage_of_scatter_gather_reads: percentage(r, "percentageOfScatterGatherReads"),
        num_reads_by_range: by_range(r, "numReadsByRange"),
    }
}

fn write_view(d: &Distribution) -> WriteDistribution {
    let w = &d.write;
    let size = w.get_document("sampleSize").cloned().unwrap_or_default();
    WriteDistribution {
        sample_size: WriteSampleSize {
            total: count(&size, "total"),
            update: count(&size, "update"),
            delete: count(&size, "delete"),
            find_and_modify: count(&size, "findAndModify"),
        },
        percentage_of_single_shard_writes: percentage(w, "percentageOfSingleShardWrites"),
        percentage_of_multi_shard_writes: percentage(w, "percentageOfMultiShardWrites"),
        percentage_of_scatter_gather_writes: percentage(w, "percentageOfScatterGatherWrites"),
        num_writes_by_range: by_range(w, "numWritesByRange"),
        percentage_of_shard_key_updates: percentage(w, "percentageOfShardKeyUpdates"),
        percentage_of_single_writes_without_shard_key: percentage(
            w,
            "percentageOfSingleWritesWithoutShardKey",
        ),
        percentage_of_multi_writes_without_shard_key: percentage(
            w,
            "percentageOfMultiWritesWithoutShardKey",
        ),
    }
}
