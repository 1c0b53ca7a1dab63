//! `aggregate`: a collection's (`db.coll.aggregate(...)`), the database's
//! (`db.aggregate(...)`, where `$shardedDataDistribution` lives) and
//! `sh.getShardedDataDistribution()`, which mongosh builds on the latter
//! (packages/shell-api/src/shard.ts).

use super::interpreter::{Output, Session, StatementError};
use crate::engine::cluster::{Cluster, ClusterError, VersionMode};
use crate::engine::config_catalog::config_documents;
use crate::query::pipeline::{run_pipeline, run_pipeline_with, stage_name};
use crate::shell::parser::Segment;
use crate::shell::Expr;
use crate::values::error::Code;
use bson::{Bson, Document};

/// The stage behind `sh.getShardedDataDistribution()`.
const SHARDED_DATA_DISTRIBUTION: &str = "$shardedDataDistribution";

impl Session {
    /// The pipeline of an `aggregate` call: an array, or the stages given one by one
    /// (mongosh accepts both).
    fn pipeline_args(&mut self, args: &[Expr]) -> Result<Vec<Document>, StatementError> {
        // collection.ts and database.ts `aggregate(...args)`: no argument is the empty
        // pipeline (`args.length === 0` → `pipeline = args[0] || []`).
        if args.is_empty() {
            return Ok(Vec::new());
        }
        let stages = match self.arg(args, 0, "pipeline")? {
            Bson::Array(a) => a,
            first => {
                let mut all = vec![first];
                for i in 1..args.len() {
                    all.push(self.arg(args, i, "stage")?);
                }
                all
            }
        };
        stages
            .into_iter()
            .map(|s| match s {
                Bson::Document(d) => Ok(d),
                other => Err(StatementError::from(ClusterError::TypeMismatch(format!(
                    "Each element of the 'pipeline' array must be an object, got {}",
                    crate::shell::format_value(&other)
                )))),
            })
            .collect()
    }

    /// `aggregate(pipeline, options)` on collection `ns`, over its documents.
    pub(super) fn collection_aggregate(
        &mut self,
        ns: &str,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let (docs, _) = self.cluster.find(ns, &Document::new())?;
        self.aggregate_documents(ns, docs, args, chained)
    }

    /// `db.<coll>.aggregate(pipeline)` over `docs`, the documents of `ns`; a `$lookup`
    /// reads the other collections of its database (the config database's from its
    /// layout).
    pub(super) fn aggregate_documents(
        &mut self,
        ns: &str,
        docs: Vec<Document>,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let pipeline = self.pipeline_args(args)?;
        if let Some(i) = position_of(&pipeline, SHARDED_DATA_DISTRIBUTION) {
            return Err(stage_misplaced(self.cluster.version(), i).into());
        }
        let db = ns.split_once('.').map_or(ns, |(db, _)| db);
        let cluster = &self.cluster;
        let read = |coll: &str| -> Result<Vec<Document>, ClusterError> {
            if db == "config" {
                return Ok(config_documents(cluster, coll).unwrap_or_default());
            }
            Ok(cluster.find(&format!("{db}.{coll}"), &Document::new())?.0)
        };
        let out = run_pipeline_with(docs, &pipeline, &read)?;
        cursor_result(out, chained)
    }

    /// `db.aggregate(pipeline)`: a collectionless aggregation, which ShardLab has only
    /// `$shardedDataDistribution` for, on the admin database from 6.0.3.
    pub(super) fn db_aggregate(
        &mut self,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let pipeline = self.pipeline_args(args)?;
        let out = self.collectionless(&pipeline)?;
        cursor_result(out, chained)
    }

    fn collectionless(&self, pipeline: &[Document]) -> Result<Vec<Document>, ClusterError> {
        let version = self.cluster.version();
        if let Some(i) = position_of(pipeline, SHARDED_DATA_DISTRIBUTION) {
            if i > 0 || version < VersionMode::V70 {
                return Err(stage_misplaced(version, i));
            }
            let (_, spec) = stage_name(&pipeline[0])?;
            // `DocumentSourceShardedDataDistribution::createFromBson`
            // (src/mongo/db/pipeline/document_source_sharded_data_distribution.cpp).
            if !matches!(spec, Bson::Document(d) if d.is_empty()) {
                return Err(ClusterError::Coded(
                    Code::Location6789100,
                    "The $shardedDataDistribution stage specification must be an empty object"
                        .into(),
                ));
            }
            if self.db != "admin" {
                return Err(ClusterError::Coded(
                    Code::Location6789102,
                    "The $shardedDataDistribution stage must be run on the admin database".into(),
                ));
            }
            return run_pipeline(sharded_data_distribution(&self.cluster), &pipeline[1..]);
        }
        // Any other first stage needs a collection (`{aggregate: 1}`); the pipeline is
        // parsed first, so an unknown stage is reported as such.
        run_pipeline(Vec::new(), pipeline)?;
        Err(ClusterError::InvalidNamespace(format!(
            "{{aggregate: 1}} is not valid for '{}'; a collection is required.",
            pipeline
                .first()
                .and_then(|s| stage_name(s).ok())
                .map_or("", |(n, _)| n)
        )))
    }

    /// `sh.getShardedDataDistribution(options)`: the admin database's aggregation with
    /// `options` as the stage's specification, with mongosh's note added to the
    /// server's error where the stage is unknown.
    pub(super) fn get_sharded_data_distribution(
        &mut self,
        args: &[Expr],
    ) -> Result<Output, StatementError> {
        let options = self.opt_doc_arg(args, 0, "options")?;
        let saved = std::mem::replace(&mut self.db, "admin".to_string());
        let stage = bson::doc! { SHARDED_DATA_DISTRIBUTION: options };
        let out = self.collectionless(std::slice::from_ref(&stage));
        self.db = saved;
        match out {
            Ok(docs) => Ok(Output::Cursor(docs)),
            Err(ClusterError::Coded(Code::Location40324, message)) => Err(ClusterError::Coded(
                Code::Location40324,
                format!(
                    "sh.getShardedDataDistribution only works on mongos and MongoDB server \
                     versions greater than 6.0.3 [Original Error: {message}]"
                ),
            )
            .into()),
            Err(e) => Err(e.into()),
        }
    }
}

fn position_of(pipeline: &[Document], stage: &str) -> Option<usize> {
    pipeline
        .iter()
        .position(|s| s.keys().next().is_some_and(|k| k == stage))
}

/// The error for `$shardedDataDistribution` where it cannot run: an unknown stage
/// before 6.0.3 (40324), else not first (40602) or not collectionless (6789102).
fn stage_misplaced(version: VersionMode, index: usize) -> ClusterError {
    if version < VersionMode::V70 {
        ClusterError::Coded(
            Code::Location40324,
            format!("Unrecognized pipeline stage name: '{SHARDED_DATA_DISTRIBUTION}'"),
        )
    } else if index > 0 {
        ClusterError::Coded(
            Code::Location40602,
            format!("{SHARDED_DATA_DISTRIBUTION} is only valid as the first stage in a pipeline"),
        )
    } else {
        ClusterError::Coded(
            Code::Location6789102,
            "The $shardedDataDistribution stage must be run on the admin database".into(),
        )
    }
}

/// An aggregation's cursor, with the cursor methods learners chain on it
/// (`toArray`, `pretty`, `itcount`), then any property read.
fn cursor_result(docs: Vec<Document>, chained: &[Segment]) -> Result<Output, StatementError> {
    let mut rest = chained;
    let mut out = Output::Cursor(docs);
    while let Some(seg) = rest.first() {
        match (seg.name.as_str(), &seg.args) {
            ("pretty", Some(_)) => {}
            ("toArray", Some(_)) => {
                if let Output::Cursor(d) = out {
                    out = super::cursor::to_array(d);
                }
                rest = &rest[1..];
                break;
            }
            ("itcount", Some(_)) => {
                if let Output::Cursor(d) = &out {
                    out = Output::Value(Bson::Int32(d.len() as i32));
                }
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    super::interpreter::navigate(out, rest)
}

/// A number as the server's `$multiply` and `$subtract` of int32 counts give it: an
/// int32 while it fits.
fn count(n: u64) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

/// `$shardedDataDistribution`'s documents: for each sharded collection, each shard
/// that holds its data with `shardName`, `numOrphanedDocs`, `numOwnedDocuments`,
/// `ownedSizeBytes` and `orphanedSizeBytes`. The stage groups each shard's
/// `storageStats` by namespace, sizes being `avgObjSize` (a whole number of bytes)
/// times the count. Migrations in ShardLab leave no orphans, so those are 0. MongoDB
/// returns the namespaces and shards in no set order; ShardLab sorts them.
pub fn sharded_data_distribution(cluster: &Cluster) -> Vec<Document> {
    let mut out = Vec::new();
    for (ns, coll) in cluster.collections() {
        if coll.sharding.is_none() {
            continue;
        }
        let shards: Vec<Bson> = cluster
            .shard_stats(ns)
            .iter()
            .enumerate()
            .filter(|(_, st)| st.chunks > 0)
            .map(|(i, st)| {
                let avg = st.bytes.checked_div(st.docs).unwrap_or(0);
                let mut d = Document::new();
                d.insert("shardName", cluster.shard_name(i as u32));
                d.insert("numOrphanedDocs", 0);
                d.insert("numOwnedDocuments", count(st.docs));
                d.insert("ownedSizeBytes", count(avg * st.docs));
                d.insert("orphanedSizeBytes", 0);
                Bson::Document(d)
            })
            .collect();
        let mut d = Document::new();
        d.insert("ns", ns.clone());
        d.insert("shards", shards);
        out.push(d);
    }
    out
}
