//! The Compare tab's run: one workload on several configurations in lockstep, summarised by
//! the core's [`shardlab::sim::compare`] (the CLI's comparison calls the same function).
//! Only the fixed setup and query mix live here.

use bson::Document;
use shardlab::engine::{ClusterConfig, VersionMode};
use shardlab::sim::{compare, ComparisonRow};
use shardlab::workload::preset_names;
use shardlab::workload::presets::{chunk_size_command, generate_command, shard_command};
use shardlab_protocol::{CompareRow, CompareSpec, EngineError};

/// The collection every column shards and fills.
pub use shardlab_protocol::{COMPARE_NS, COMPARE_WORKLOADS};

/// The fixed query mix whose routing the table reports ([`shardlab_protocol::COMPARE_QUERIES`],
/// read with the shell's parser), with its text.
pub fn query_mix() -> Vec<(&'static str, Document)> {
    shardlab_protocol::COMPARE_QUERIES
        .iter()
        .filter_map(|text| {
            match shardlab::shell::parse_value(text, &mut shardlab::shell::EvalContext::default()) {
                Ok(bson::Bson::Document(d)) => Some((*text, d)),
                _ => None,
            }
        })
        .collect()
}

/// The workload commands of a comparison: `ticks` batches of `batch` documents, each
/// followed by a balancer round.
pub fn workload_commands(workload: &str, batch: u32, ticks: u32) -> Vec<String> {
    (0..ticks)
        .map(|_| generate_command(COMPARE_NS, workload, batch, true))
        .collect()
}

/// The setup commands of one column: its chunk size (bytes) and its shard key.
pub fn setup_commands(key: &str, chunk_size: u64) -> Vec<String> {
    vec![
        chunk_size_command(chunk_size),
        shard_command(COMPARE_NS, key, false, None),
    ]
}

/// Runs the comparison `spec` (already checked against the protocol's limits).
pub fn run(spec: &CompareSpec) -> Result<Vec<CompareRow>, EngineError> {
    if !preset_names().contains(&spec.workload.as_str()) {
        return Err(EngineError::bad_value(format!(
            "unknown workload '{}': use one of {}",
            spec.workload.chars().take(32).collect::<String>(),
            preset_names().join(", ")
        )));
    }
    let mut configs = Vec::new();
    for c in &spec.columns {
        let version = VersionMode::parse(&c.version).ok_or_else(|| {
            EngineError::bad_value(format!("unknown version mode '{}'", c.version))
        })?;
        // A key is pasted into the setup command, so it must be one value: anything
        // the shell would not read as one shard key pattern is refused here.
        let key = crate::queries::validate_key(&c.key, false).map_err(EngineError::bad_value)?;
        let config = ClusterConfig {
            shards: 3,
            version,
            chunk_size: None,
            seed: 1,
        };
        configs.push((
            format!("{key} · {}", version.label()),
            config,
            setup_commands(&key, spec.chunk_size),
        ));
    }
    let workload = workload_commands(&spec.workload, spec.batch, spec.ticks);
    let queries: Vec<Document> = query_mix().into_iter().map(|(_, q)| q).collect();
    let rows = compare(&configs, &workload, COMPARE_NS, &queries)
        .map_err(|e| EngineError::bad_value(e.to_string()))?;
    Ok(rows.into_iter().map(row).collect())
}

/// The comparison's row for `ns` of `cluster`, whose workload's inserts were `steps`.
pub fn summarise(
    label: &str,
    cluster: &shardlab::Cluster,
    ns: &str,
    steps: &[Vec<(String, u64)>],
) -> CompareRow {
    let queries: Vec<Document> = query_mix().into_iter().map(|(_, q)| q).collect();
    row(shardlab::sim::summarise(
        label, cluster, ns, steps, &queries,
    ))
}

fn row(r: ComparisonRow) -> CompareRow {
    CompareRow {
        label: r.label,
        inserts_per_shard: r.inserts_per_shard,
        chunks_per_shard: r.chunks_per_shard,
        docs_per_shard: r.docs_per_shard,
        hottest_shard_share: r.hottest_shard_share,
        hot_window: shardlab::sim::HOT_WINDOW,
        jumbo_chunks: r.jumbo_chunks,
        single_shard_share: r.single_shard_share,
        multi_shard_share: r.multi_shard_share,
        scatter_gather_share: r.scatter_gather_share,
        errors: r.errors,
    }
}

/// The text of a Compare column's batch of the user's own documents: the `count`
/// documents of `sample`'s collection in `source` (its session's cluster at the cursor,
/// in insertion order, as `rank` reads them) after the first `sample.from`, as the
/// `insertMany` statements that put them into `ns`, then a balancer round if `balance`.
pub fn sample_source(
    source: &shardlab::Cluster,
    ns: &str,
    sample: &shardlab_protocol::SampleRun,
    count: u32,
    balance: bool,
) -> Result<String, EngineError> {
    let collection = source.collection(&sample.ns).ok_or_else(|| EngineError {
        code: 26,
        code_name: "NamespaceNotFound".into(),
        message: format!("no collection {} to read documents from", sample.ns),
    })?;
    let from = usize::try_from(sample.from).unwrap_or(usize::MAX);
    let docs = collection
        .documents_in_insertion_order()
        .skip(from)
        .take(count as usize)
        .map(|(_, d)| d);
    let (statements, _) = shardlab::workload::insert_statements(ns, docs);
    if statements.is_empty() {
        return Err(EngineError::bad_value(format!(
            "{} holds no documents after the first {}",
            sample.ns, sample.from
        )));
    }
    let mut text = statements.join("\n");
    if balance {
        text.push_str("\nsim.balance()");
    }
    Ok(text)
}
