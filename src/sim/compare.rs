//! Side-by-side comparison: the same workload on several clusters, in lockstep.
//!
//! Each configuration gets its own [`Session`] and its own setup commands (typically a
//! `sh.shardCollection` with the shard key under test). The shared workload then runs one
//! command at a time on every session in turn, so that at any moment all clusters have seen
//! the same commands. At the end each cluster is summarised in a [`ComparisonRow`]: where
//! the workload's inserts landed, how the data and chunks are spread, how many chunks are
//! jumbo, and how a set of query filters would be routed.
//!
//! [`summarise`] is the one place these figures are computed: the CLI's table and the
//! playground's Compare tab (which runs its columns on timelines of its own) both call it.

use crate::engine::cluster::{Cluster, ClusterConfig, ShardStats};
use crate::engine::events::{inserts_per_shard, ShardName};
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
    /// The busiest shard's share of the workload's latest [`HOT_WINDOW`] inserts (see
    /// [`LatestInserts`]; 0 to 1, and 0 when the workload inserted nothing). A shard key
    /// that spreads writes scores near `1 / shards`; a monotonically increasing key scores
    /// near 1.
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
                steps: Vec::new(),
            };
            for command in &c.setup {
                run.execute(command);
            }
            run
        })
        .collect();
    for command in workload {
        for run in &mut runs {
            run.step(command, ns);
        }
    }
    Ok(configs
        .iter()
        .zip(runs)
        .map(|(c, run)| {
            let mut row = summarise(&c.label, &run.session.cluster, ns, &run.steps, queries);
            let mut errors = run.errors;
            errors.append(&mut row.errors);
            row.errors = errors;
            row
        })
        .collect())
}

/// One configuration's session while the comparison runs.
struct Run {
    session: Session,
    errors: Vec<String>,
    /// Inserts into the compared collection per workload command, oldest first.
    steps: Vec<Vec<(ShardName, u64)>>,
}

impl Run {
    /// Runs one workload command and records where its inserts into `ns` went.
    fn step(&mut self, command: &str, ns: &str) {
        let before = self.session.cluster.events().len();
        self.execute(command);
        let events = self.session.cluster.events();
        // A `sim.reset` in the command shortens the log: then all of it is the command's.
        let start = if events.len() >= before { before } else { 0 };
        self.steps.push(inserts_per_shard(events.since(start), ns));
    }

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

/// How collection `ns` of `cluster` fared under a workload whose inserts into it were
/// `steps` (per step, oldest first, as [`inserts_per_shard`] counts them): inserts, data,
/// documents and chunks per live shard, the hottest shard's share of the latest
/// [`HOT_WINDOW`] inserts, jumbo chunks, and how `queries` are routed on the cluster as it
/// is. A query that cannot be routed is listed in `errors` and left out of the shares.
pub fn summarise(
    label: &str,
    cluster: &Cluster,
    ns: &str,
    steps: &[Vec<(ShardName, u64)>],
    queries: &[Document],
) -> ComparisonRow {
    summarise_window(label, cluster, ns, steps, queries, HOT_WINDOW)
}

/// [`summarise`] with the hottest shard measured over the latest `window` inserts
/// (whole steps) rather than [`HOT_WINDOW`].
pub fn summarise_window(
    label: &str,
    cluster: &Cluster,
    ns: &str,
    steps: &[Vec<(ShardName, u64)>],
    queries: &[Document],
    window: u64,
) -> ComparisonRow {
    let live: Vec<(u32, String)> = cluster.shards().map(|(i, s)| (i, s.name.clone())).collect();
    let mut totals: Vec<(&str, u64)> = Vec::new();
    for step in steps {
        for (shard, n) in step {
            bump(&mut totals, shard, *n);
        }
    }
    let inserts_per_shard: Vec<(String, u64)> = live
        .iter()
        .map(|(_, name)| {
            let n = totals.iter().find(|(s, _)| *s == name.as_str());
            (name.clone(), n.map_or(0, |(_, n)| *n))
        })
        .collect();
    let latest = LatestInserts::of(
        steps
            .iter()
            .rev()
            .map(|step| step.iter().map(|(s, n)| (s.as_str(), *n))),
        window,
    );

    let stats = cluster.shard_stats(ns);
    let per_shard = |f: &dyn Fn(&ShardStats) -> u64| -> Vec<(String, u64)> {
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

    let mut errors = Vec::new();
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
        hottest_shard_share: latest.hottest_share(),
        jumbo_chunks,
        single_shard_share: share(single),
        multi_shard_share: share(multi),
        scatter_gather_share: share(scatter),
        errors,
    }
}

impl ComparisonRow {
    /// The collection's chunks, on all shards together.
    pub fn chunks(&self) -> u64 {
        self.chunks_per_shard.iter().map(|(_, n)| n).sum()
    }

    /// The documents the workload inserted, on all shards together.
    pub fn inserts(&self) -> u64 {
        self.inserts_per_shard.iter().map(|(_, n)| n).sum()
    }
}

/// The number of latest inserted documents over which the busiest shard is measured.
pub const HOT_WINDOW: u64 = 100;

/// Where the latest inserts went: whole steps (a workload's ticks, or the commands of a
/// timeline) are counted newest first until at least the window's number of documents is
/// in, and a step is never cut.
///
/// Measuring the latest window rather than the whole run matters: with a monotonically
/// increasing key every insert goes to the chunk holding MaxKey, and the balancer moves
/// that chunk from shard to shard, so whole-run totals look even while each moment has
/// one hot shard. The comparison's hottest-shard share and the playground's recent
/// inserts per shard are both read from here.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatestInserts<'a> {
    /// Documents per shard, each shard once, in the order they were met.
    pub per_shard: Vec<(&'a str, u64)>,
    /// Documents counted: at least the window unless the steps hold fewer.
    pub counted: u64,
}

impl<'a> LatestInserts<'a> {
    /// Counts `steps_newest_first`, each a step's inserts per shard, until at least
    /// `window` documents are counted.
    pub fn of<S>(steps_newest_first: impl IntoIterator<Item = S>, window: u64) -> Self
    where
        S: IntoIterator<Item = (&'a str, u64)>,
    {
        let mut latest = LatestInserts::default();
        for step in steps_newest_first {
            if latest.counted >= window {
                break;
            }
            for (shard, n) in step {
                bump(&mut latest.per_shard, shard, n);
                latest.counted += n;
            }
        }
        latest
    }

    /// The documents counted on `shard`.
    pub fn on(&self, shard: &str) -> u64 {
        self.per_shard
            .iter()
            .find(|(s, _)| *s == shard)
            .map_or(0, |(_, n)| *n)
    }

    /// The busiest shard's share of the documents counted (0 when none were).
    pub fn hottest_share(&self) -> f64 {
        if self.counted == 0 {
            return 0.0;
        }
        self.per_shard.iter().map(|(_, n)| *n).max().unwrap_or(0) as f64 / self.counted as f64
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
pub(crate) fn layout(table: &[Vec<String>]) -> String {
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
