//! Measures the key-space heat at the size the playground must stay fast at: 16 shards,
//! about 5,000 chunks and 2,000 timeline steps.
//!
//! Two histories: a hashed key pre-split into 5,000 chunks, then 2,000 steps of 25
//! generated documents (every step touches about 25 chunks); and a monotonic ranged key
//! with a small chunk size in 5.0 mode, whose chunks multiply as the top chunk splits. For
//! each it reports what recording the heat adds to a step, then the time of one
//! `Timeline::heat_grid` (128 rows by one column per step) and one `Timeline::heat_pattern`,
//! the median of several runs.
//!
//! Run with `cargo bench --bench heat`; `SHARDLAB_STEPS` changes the number of steps and
//! `SHARDLAB_PER_STEP` the documents per step. A hand-rolled harness keeps the build light.
#![allow(clippy::unwrap_used)]

use shardlab::sim::{HeatLog, HeatOptions, Timeline};
use shardlab::{ClusterConfig, VersionMode};
use std::time::{Duration, Instant};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn measure(name: &str, version: VersionMode, setup: &[&str], ns: &str, workload: &str) {
    let steps = env_or("SHARDLAB_STEPS", 2_000);
    let per = env_or("SHARDLAB_PER_STEP", 25);
    let mut t = Timeline::new(ClusterConfig {
        shards: 16,
        version,
        chunk_size: None,
        seed: 1,
    });
    for s in setup {
        t.push(s);
    }
    let start = Instant::now();
    for _ in 0..steps {
        t.push(&format!("sim.generate('{ns}', '{workload}', {per})"));
    }
    let pushing = start.elapsed();
    // What recording adds to a step: the capture before it and the record after it,
    // timed around one more step of the workload on a copy of the final session.
    let session = t.session();
    let mut record = Vec::new();
    for _ in 0..21 {
        let mut copy = session.clone();
        let mut log = HeatLog::default();
        let start = Instant::now();
        let before = HeatLog::before(&copy);
        let captured = start.elapsed();
        copy.run(&format!("sim.generate('{ns}', '{workload}', {per})"));
        let start = Instant::now();
        log.record(1, before, &copy);
        record.push(captured + start.elapsed());
    }
    record.sort();
    let record = record[record.len() / 2];
    let chunks = session.cluster.sharding(ns).unwrap().table.len();
    // The page's grid: a ranked axis for a ranged key.
    let options = HeatOptions {
        rows: 128,
        columns: 4_096,
        ranked: true,
    };
    let (mut cells, mut columns) = (0, 0);
    let grid = median(21, || {
        let g = t.heat_grid(ns, options).unwrap();
        cells = g.cells.len();
        columns = g.columns;
    });
    let mut name_seen = "";
    let pattern = median(21, || {
        name_seen = t.heat_pattern(ns).name;
    });
    println!(
        "{name}: {} steps of {per}, {chunks} chunks, 16 shards; {} ranges kept ({:.0} KiB)",
        t.len(),
        t.heat().kept_ranges(),
        t.heat().kept_bytes() as f64 / 1024.0
    );
    println!(
        "  pushing the steps: {:.1} ms ({:.3} ms a step); recording one step's heat: {:.3} ms",
        ms(pushing),
        ms(pushing) / steps as f64,
        ms(record)
    );
    println!(
        "  heat grid (128 rows x {columns} columns of {} steps, {cells} cells): {:.2} ms; pattern ({name_seen}): {:.2} ms",
        t.len().div_ceil(u64::from(columns.max(1))),
        ms(grid),
        ms(pattern)
    );
}

fn main() {
    measure(
        "hashed, 5,000 initial chunks",
        VersionMode::V50,
        &["sh.shardCollection('test.h', {_id: 'hashed'}, false, {numInitialChunks: 5000})"],
        "test.h",
        "hashedId",
    );
    measure(
        "monotonic, 5.0, 1 KiB chunks",
        VersionMode::V50,
        &[
            "sim.chunkSize(1024)",
            "sh.shardCollection('test.events', {x: 1})",
        ],
        "test.events",
        "monotonic",
    );
}
