//! Measures the timeline on a long history: 100,000 steps, each a single `insertOne` into a
//! sharded collection with a small chunk size (so splits and migrations happen along the
//! way), then jumps to random positions.
//!
//! A jump restores the nearest snapshot at or before the target and replays fewer than
//! `spacing` steps, so its cost is one session copy (pointer copies: documents, store
//! leaves and event segments are shared) plus that replay; the target is under 50 ms
//! natively. Memory is reported two ways: the timeline's own estimate
//! (`Timeline::memory_estimate`) and the process's resident set from `/proc/self/status`
//! (Linux), which also calibrates the estimate.
//!
//! Run with `cargo bench --bench timeline`. `SHARDLAB_STEPS` changes the number of steps,
//! `SHARDLAB_JUMPS` the number of jumps; `SHARDLAB_K`, `SHARDLAB_M` and
//! `SHARDLAB_BUDGET_MIB` override the snapshot options; `SHARDLAB_CALIBRATE=0` skips the
//! calibration session, so that the resident growth is the timeline's alone. A hand-rolled harness keeps the build light.
#![allow(clippy::unwrap_used)]

use shardlab::sim::{estimate_session_bytes, Timeline, TimelineOptions};
use shardlab::support::SplitMix64;
use shardlab::{ClusterConfig, Session, VersionMode};
use std::time::{Duration, Instant};

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A `/proc/self/status` field in MiB, if `/proc` has it.
fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(idx).copied().unwrap_or_default()
}

fn main() {
    let steps = env_or("SHARDLAB_STEPS", 100_000);
    let jumps = env_or("SHARDLAB_JUMPS", 200);
    let config = ClusterConfig {
        shards: 4,
        version: VersionMode::V50,
        chunk_size: Some(64 * 1024),
        seed: 1,
    };
    let defaults = TimelineOptions::default();
    let options = TimelineOptions {
        interval: env_or("SHARDLAB_K", defaults.interval),
        max_snapshots: env_or("SHARDLAB_M", defaults.max_snapshots as u64) as usize,
        snapshot_budget: env_or("SHARDLAB_BUDGET_MIB", defaults.snapshot_budget >> 20) << 20,
    };
    println!(
        "timeline: {steps} steps of db.c.insertOne({{x: i}}), 4 shards, 5.0, 64 KiB chunks; \
         K = {}, M = {}, budget {} MiB",
        options.interval,
        options.max_snapshots,
        mib(options.snapshot_budget)
    );
    // Calibration first, while the heap is fresh: the resident cost of one full session
    // against its estimate, the cost of a step without a timeline, and the cost of a copy.
    let mut rng = SplitMix64::new(7);
    let calibrate = env_or("SHARDLAB_CALIBRATE", 1) != 0;
    let calibration_steps = if calibrate { steps } else { 1 };
    let before = status_mib("VmRSS:");
    let mut session = Session::new(config.clone());
    session.run("sh.shardCollection(\"test.c\", {x: 1})");
    let started = Instant::now();
    for _ in 1..calibration_steps {
        let x = rng.below(1_000_000_000);
        // Seal the event log between steps as the timeline does.
        session.cluster.seal_events();
        session.run(&format!("db.c.insertOne({{x: {x}}})"));
    }
    let run_time = started.elapsed();
    let after = status_mib("VmRSS:");
    let started = Instant::now();
    let copy = session.clone();
    let clone_time = started.elapsed();
    if let (Some(before), Some(after)) = (before, after) {
        println!(
            "one session at {steps} steps: estimate {:.1} MiB, measured {:.1} MiB (resident growth while building it), \
             {:.1} µs/step without a timeline, copy {:.3} ms",
            mib(estimate_session_bytes(&session)),
            after - before,
            run_time.as_secs_f64() * 1e6 / calibration_steps as f64,
            ms(clone_time)
        );
    }
    std::hint::black_box(&copy);
    drop((session, copy));

    let rss_before = status_mib("VmRSS:");

    let mut rng = SplitMix64::new(7);
    let mut t = Timeline::with_options(config.clone(), options);
    let started = Instant::now();
    t.push("sh.shardCollection(\"test.c\", {x: 1})");
    for _ in 1..steps {
        // Random keys keep every shard busy, so migrations and splits spread out.
        let x = rng.below(1_000_000_000);
        t.push(&format!("db.c.insertOne({{x: {x}}})"));
    }
    let build = started.elapsed();
    println!(
        "build:  {:.0} ms ({:.1} µs/step), {} events, {} chunks",
        ms(build),
        build.as_secs_f64() * 1e6 / steps as f64,
        t.session().cluster.events().len(),
        t.session()
            .cluster
            .sharding("test.c")
            .map_or(0, |s| s.table.len())
    );

    // Random jumps, then the worst case: one step back from the end (restore the last
    // snapshot and replay almost a full spacing).
    let mut times = Vec::new();
    for _ in 0..jumps {
        let n = rng.below(t.len() + 1);
        let started = Instant::now();
        t.jump(n).unwrap();
        times.push(started.elapsed());
        std::hint::black_box(t.session().cluster.events().len());
    }
    times.sort();
    println!(
        "jumps:  {jumps} random, spacing {} steps, {} snapshots: median {:.1} ms, p95 {:.1} ms, max {:.1} ms (target < 50 ms)",
        t.snapshot_spacing(),
        t.snapshot_positions().len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.95)),
        ms(percentile(&times, 1.0)),
    );
    let worst = t.len() - 1;
    let worst = worst - worst % t.snapshot_spacing() + t.snapshot_spacing() - 1;
    let worst = worst.min(t.len() - 1);
    t.jump(0).unwrap();
    let started = Instant::now();
    t.jump(worst).unwrap();
    println!(
        "worst:  jump to {worst} (spacing − 1 steps past a snapshot): {:.1} ms",
        ms(started.elapsed())
    );
    t.jump(t.len()).unwrap();
    let started = Instant::now();
    let mut back = 0;
    while back < 20 && t.step_back() {
        back += 1;
    }
    println!(
        "back:   20 step_back from the end: {:.1} ms each",
        ms(started.elapsed()) / f64::from(back.max(1))
    );

    let memory = t.memory_estimate();
    println!(
        "memory (estimate): {:.1} MiB total = {} snapshots {:.1} MiB + current session {:.1} MiB + steps {:.1} MiB",
        mib(memory.total()),
        memory.snapshots,
        mib(memory.snapshot_bytes),
        mib(memory.current_bytes),
        mib(memory.steps_bytes)
    );
    if let (Some(before), Some(after), Some(peak)) =
        (rss_before, status_mib("VmRSS:"), status_mib("VmHWM:"))
    {
        println!(
            "memory (measured): resident {:.1} MiB above start, peak {peak:.1} MiB",
            after - before
        );
    }
}
