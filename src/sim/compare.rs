//! Side-by-side comparison: the same workload on several clusters, in lockstep.
//!
//! Each configuration gets its own [`Session`] and its own setup commands (typically a
//! `sh.shardCollection` with the shard key under test). The shared workload then runs one
//! command at a time on every session in turn, so that at any moment all clusters have seen
//! the same commands. At the end each cluster is summarised in a [`ComparisonRow`]: where
//! the workload's inserts landed, how the data and chunks are spread, how many chunks are
//! jumbo, and how a set of query filters would be routed.

use crate::engine::cluster::{Cluster, ClusterConfig};
use crate::engine::events::EventKind;
use crate::engine::targeting::TargetKind;
use crate::session::interpreter::Session;
use crate::values::inspect::data_format;
use bson::Document;
use thiserror::Error;

/// Why a comparison could not run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompareError {
    /// No configuration was given.
    #[error("nothing to compare: give at least one configuration")]
    NoConfigurations,
    /// Two configurations share a label, so their rows could not be told apart.
    #[error("two configurations are both labelled '{0}'")]
    DuplicateLabel(String),
}

/// One configuration to compare: a label, the cluster settings and its own setup commands.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareConfig {
    /// The row's name in the table.
    pub label: String,
    /// The cluster settings.
    pub config: ClusterConfig,
    /// Commands run before the shared workload, such as `sh.shardCollection(...)`.
    pub setup: Vec<String>,
}

/// How one configuration fared.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparisonRow {
    /// The configuration's label.
    pub label: String,
    /// Documents the workload inserted, per shard, in shard order.
    pub inserts_per_shard: Vec<(String, u64)>,
    /// Chunks per shard at the end.
    pub chunks_per_shard: Vec<(String, u64)>,
    /// Data size per shard at the end, in bytes.
    pub data_per_shard: Vec<(String, u64)>,
    /// Documents per shard at the end.
    pub docs_per_shard: Vec<(String, u64)>,
    /// The share of the workload's inserts that landed on the busiest shard of their moment,
    /// measured over windows of [`HOT_WINDOW`] consecutive documents (0 to 1; 0 when the
    /// workload inserted nothing). A shard key that spreads writes scores near
    /// `1 / shards`; a monotonically increasing key scores near 1.
    pub hottest_shard_share: f64,
    /// Chunks flagged jumbo at the end.
    pub jumbo_chunks: u64,
    /// The share of the queries routed to exactly one shard by full shard key equality.
    pub single_shard_share: f64,
    /// The share of the queries routed by key ranges to a subset of the chunks.
    pub multi_shard_share: f64,
    /// The share of the queries broadcast to every shard holding chunks.
    pub scatter_gather_share: f64,
    /// Commands or queries that failed, with MongoDB's message, in the order they ran.
    pub errors: Vec<String>,
}

/// Runs `workload` on every configuration in lockstep and summarises collection `ns`.
///
/// Each entry of `configs` is `(label, settings, setup commands)`. A failing command does
/// not stop the comparison: its error is listed in the row's `errors`, because a key that
/// refuses some documents is itself a finding. `queries` are filters whose routing is
/// counted on the final state of each cluster.
pub fn compare(
    configs: &[(String, ClusterConfig, Vec<String>)],
    workload: &[String],
    ns: &str,
    queries: &[Document],
) -> Result<Vec<ComparisonRow>, CompareError> {
    let configs: Vec<CompareConfig> = configs
        .iter()
        .map(|(label, config, setup)| CompareConfig {
            label: label.clone(),
            config: config.clone(),
            setup: setup.clone(),
        })
        .collect();
    compare_configs(&configs, workload, ns, queries)
}

/// [`compare`] over named [`CompareConfig`]s.
pub fn compare_configs(
    configs: &[CompareConfig],
    workload: &[String],
    ns: &str,
    queries: &[Document],
) -> Result<Vec<ComparisonRow>, CompareError> {
    if configs.is_empty() {
        return Err(CompareError::NoConfigurations);
    }
    for (i, c) in configs.iter().enumerate() {
        if configs[..i].iter().any(|o| o.label == c.label) {
            return Err(CompareError::DuplicateLabel(c.label.clone()));
        }
    }
    let mut runs: Vec<Run> = configs
        .iter()
        .map(|c| {
            let mut run = Run {
                session: Session::new(c.config.clone()),
                errors: Vec::new(),
                workload_start: 0,
            };
            for command in &c.setup {
                run.execute(command);
            }
            run.workload_start = run.session.cluster.events().len();
            run
        })
        .collect();
    for command in workload {
        for run in &mut runs {
            run.execute(command);
        }
    }
    Ok(configs
        .iter()
        .zip(runs)
        .map(|(c, run)| summarise(&c.label, run, ns, queries))
        .collect())
}

/// One configuration's session while the comparison runs.
struct Run {
    session: Session,
    errors: Vec<String>,
    /// Where the workload's events begin in the log.
    workload_start: usize,
}

impl Run {
    fn execute(&mut self, command: &str) {
        for outcome in self.session.run(command) {
            if let Err(e) = &outcome.result {
                let source = if outcome.source.is_empty() {
                    command
                } else {
                    &outcome.source
                };
                self.errors.push(format!("{}: {e}", abbreviate(source)));
            }
        }
    }
}

/// A command shortened for an error list.
fn abbreviate(source: &str) -> String {
    const MAX: usize = 60;
    let line = source.lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX || source.lines().nth(1).is_some() {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

fn summarise(label: &str, run: Run, ns: &str, queries: &[Document]) -> ComparisonRow {
    let Run {
        session,
        mut errors,
        workload_start,
    } = run;
    let cluster = &session.cluster;
    let live: Vec<(u32, String)> = cluster.shards().map(|(i, s)| (i, s.name.clone())).collect();

    // Inserts by shard name, from the workload's insert events. A `sim.reset` inside the
    // workload shortens the log; then every event in it belongs to the workload.
    let events = cluster.events();
    let start = if workload_start <= events.len() {
        workload_start
    } else {
        0
    };
    let batches: Vec<&[(String, u64)]> = events
        .since(start)
        .filter_map(|e| match &e.kind {
            EventKind::Insert {
                ns: e_ns,
                per_shard,
            } if e_ns == ns => Some(per_shard.as_slice()),
            _ => None,
        })
        .collect();
    let mut inserts: Vec<(&str, u64)> = Vec::new();
    for batch in &batches {
        for (shard, n) in *batch {
            bump(&mut inserts, shard, *n);
        }
    }
    let inserts_per_shard: Vec<(String, u64)> = live
        .iter()
        .map(|(_, name)| {
            let n = inserts.iter().find(|(s, _)| *s == name.as_str());
            (name.clone(), n.map_or(0, |(_, n)| *n))
        })
        .collect();
    let hottest_shard_share = hottest_share(&batches);

    let stats = cluster.shard_stats(ns);
    let per_shard = |f: &dyn Fn(&crate::engine::cluster::ShardStats) -> u64| -> Vec<(String, u64)> {
        live.iter()
            .map(|(i, name)| (name.clone(), stats.get(*i as usize).map_or(0, f)))
            .collect()
    };
    let chunks_per_shard = per_shard(&|s| s.chunks);
    let data_per_shard = per_shard(&|s| s.bytes);
    let docs_per_shard = per_shard(&|s| s.docs);
    let jumbo_chunks = cluster
        .sharding(ns)
        .map_or(0, |s| s.table.iter().filter(|c| c.jumbo).count() as u64);

    let (single, multi, scatter, routed) = route(cluster, ns, queries, &mut errors);
    let share = |n: u64| {
        if routed == 0 {
            0.0
        } else {
            n as f64 / routed as f64
        }
    };
    ComparisonRow {
        label: label.to_string(),
        inserts_per_shard,
        chunks_per_shard,
        data_per_shard,
        docs_per_shard,
        hottest_shard_share,
        jumbo_chunks,
        single_shard_share: share(single),
        multi_shard_share: share(multi),
        scatter_gather_share: share(scatter),
        errors,
    }
}

/// The number of consecutive inserted documents over which the busiest shard is measured.
pub const HOT_WINDOW: u64 = 100;

/// The share of inserts that went to the busiest shard of their moment: the insert batches
/// are grouped, in order, into windows of at least [`HOT_WINDOW`] documents (a batch is
/// never cut), and each window counts the documents of its busiest shard. Measuring per
/// window rather than over the whole run matters: with a monotonically increasing key every
/// insert goes to the chunk holding MaxKey, and the balancer moves that chunk from shard to
/// shard, so whole-run totals look even while each moment has one hot shard.
fn hottest_share(batches: &[&[(String, u64)]]) -> f64 {
    let mut hot = 0u64;
    let mut total = 0u64;
    let mut window: Vec<(&str, u64)> = Vec::new();
    let mut in_window = 0u64;
    for (i, batch) in batches.iter().enumerate() {
        for (shard, n) in *batch {
            bump(&mut window, shard, *n);
            in_window += n;
        }
        if in_window >= HOT_WINDOW || i + 1 == batches.len() {
            hot += window.iter().map(|(_, n)| *n).max().unwrap_or(0);
            total += in_window;
            window.clear();
            in_window = 0;
        }
    }
    if total == 0 {
        0.0
    } else {
        hot as f64 / total as f64
    }
}

/// Adds `n` to `shard`'s count. A cluster has a handful of shards, so a list does (a map
/// would add another copy of the B-tree code to the wasm).
pub fn bump<'a>(counts: &mut Vec<(&'a str, u64)>, shard: &'a str, n: u64) {
    match counts.iter_mut().find(|(s, _)| *s == shard) {
        Some((_, c)) => *c += n,
        None => counts.push((shard, n)),
    }
}

/// Counts how the queries are routed: (single, multi, scatter, routed at all).
fn route(
    cluster: &Cluster,
    ns: &str,
    queries: &[Document],
    errors: &mut Vec<String>,
) -> (u64, u64, u64, u64) {
    let (mut single, mut multi, mut scatter) = (0, 0, 0);
    for (i, q) in queries.iter().enumerate() {
        match cluster.target(ns, q) {
            Ok(t) => match t.kind {
                TargetKind::SingleShard => single += 1,
                TargetKind::MultiShard => multi += 1,
                TargetKind::ScatterGather => scatter += 1,
            },
            Err(e) => errors.push(format!("query #{}: {e}", i + 1)),
        }
    }
    (single, multi, scatter, single + multi + scatter)
}

/// The rows as a plain-text table for the CLI: a summary line per configuration, then the
/// per-shard figures.
pub fn render_table(rows: &[ComparisonRow]) -> String {
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    let mut summary = vec![vec![
        "configuration".to_string(),
        "hottest shard".to_string(),
        "jumbo".to_string(),
        "single".to_string(),
        "multi".to_string(),
        "scatter".to_string(),
    ]];
    for r in rows {
        summary.push(vec![
            r.label.clone(),
            pct(r.hottest_shard_share),
            r.jumbo_chunks.to_string(),
            pct(r.single_shard_share),
            pct(r.multi_shard_share),
            pct(r.scatter_gather_share),
        ]);
    }
    let mut shards = vec![vec![
        "configuration".to_string(),
        "shard".to_string(),
        "inserts".to_string(),
        "docs".to_string(),
        "chunks".to_string(),
        "data".to_string(),
    ]];
    for r in rows {
        for (i, (name, inserts)) in r.inserts_per_shard.iter().enumerate() {
            let at = |v: &[(String, u64)]| v.get(i).map_or(0, |(_, n)| *n);
            shards.push(vec![
                if i == 0 {
                    r.label.clone()
                } else {
                    String::new()
                },
                name.clone(),
                inserts.to_string(),
                at(&r.docs_per_shard).to_string(),
                at(&r.chunks_per_shard).to_string(),
                data_format(at(&r.data_per_shard) as f64),
            ]);
        }
    }
    let mut out = layout(&summary);
    out.push('\n');
    out.push_str(&layout(&shards));
    for r in rows.iter().filter(|r| !r.errors.is_empty()) {
        out.push_str(&format!("\nerrors in {}:\n", r.label));
        for e in &r.errors {
            out.push_str(&format!("  {e}\n"));
        }
    }
    out
}

/// Lays out cells in columns: the first left-aligned, the others right-aligned.
fn layout(table: &[Vec<String>]) -> String {
    let columns = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .filter_map(|row| row.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            if c == 0 {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("  {cell:>w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
