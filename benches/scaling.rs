//! Measures how the paths that once were quadratic grow: each at 1,000, 10,000 and
//! 100,000 items, with the ratios 10k/1k and 100k/10k (about 10 when the cost is linear or
//! n log n, about 100 when it is quadratic).
//!
//! - `show dbs` and `sh.status()` (run and printed, as the CLI does) over that many
//!   databases, each with one collection;
//! - adding that many zone ranges with `updateZoneKeyRange`, in key order and in a
//!   shuffled order;
//! - a balancer round over that many zone ranges (two zones on four shards, ranges
//!   alternating between them, with 10 documents per range): the first round splits every
//!   straddling chunk and moves chunks into their zones, the second is the steady state.
//!
//! Run with `cargo bench --bench scaling`. `SHARDLAB_SIZES` changes the sizes (for example
//! `1000,10000`), `SHARDLAB_PATHS` picks the paths (`dbs`, `zones`, `balancer`; all by
//! default). A hand-rolled harness keeps the build light.
#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::support::SplitMix64;
use shardlab::{Cluster, ClusterConfig, Session, VersionMode};
use std::time::{Duration, Instant};

const NS: &str = "test.z";

fn sizes() -> Vec<u64> {
    std::env::var("SHARDLAB_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000])
}

/// Whether the path `name` is to be measured.
fn wanted(name: &str) -> bool {
    std::env::var("SHARDLAB_PATHS").map_or(true, |p| p.split(',').any(|x| x.trim() == name))
}

fn config() -> ClusterConfig {
    ClusterConfig {
        shards: 4,
        version: VersionMode::V50,
        chunk_size: Some(64 * 1024),
        seed: 1,
    }
}

/// A session with `n` databases, each holding one small collection.
fn many_databases(n: u64) -> Session {
    let mut session = Session::new(config());
    for i in 0..n {
        let ns = format!("db{i:06}.c");
        session
            .cluster
            .insert_many(&ns, &[doc! { "i": i as i64 }])
            .unwrap();
    }
    session
}

/// Runs one statement and prints its output, as the CLI does; returns the time taken.
fn statement(session: &mut Session, src: &str) -> Duration {
    let start = Instant::now();
    let outcomes = session.run(src);
    let printed: usize = outcomes
        .iter()
        .map(|o| o.render().map_or(0, |s| s.len()))
        .sum();
    let elapsed = start.elapsed();
    assert!(printed > 0, "{src} printed nothing");
    elapsed
}

/// A cluster with `test.z` sharded on `{x: 1}`, shards 0 and 1 in zone `A`, 2 and 3 in
/// zone `B`.
fn zoned_cluster() -> Cluster {
    let mut cluster = Cluster::new(config());
    cluster
        .shard_collection(NS, &doc! { "x": 1 }, false, None)
        .unwrap();
    for (shard, zone) in [
        ("shard01", "A"),
        ("shard02", "A"),
        ("shard03", "B"),
        ("shard04", "B"),
    ] {
        cluster.add_shard_to_zone(shard, zone).unwrap();
    }
    cluster
}

/// The `i`-th zone range: `[10 i, 10 i + 5)`, in zone `A` or `B` by turns.
fn range(i: u64) -> (Document, Document, &'static str) {
    let lo = (i * 10) as i64;
    let zone = if i % 2 == 0 { "A" } else { "B" };
    (doc! { "x": lo }, doc! { "x": lo + 5 }, zone)
}

/// Adds `n` zone ranges in the order given; returns the time taken.
fn add_ranges(order: &[u64]) -> Duration {
    let mut cluster = zoned_cluster();
    let start = Instant::now();
    for &i in order {
        let (lo, hi, zone) = range(i);
        cluster
            .update_zone_key_range(NS, &lo, &hi, Some(zone))
            .unwrap();
    }
    start.elapsed()
}

/// A shuffled `0..n`, from a fixed seed.
fn shuffled(n: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(7);
    let mut order: Vec<u64> = (0..n).collect();
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

/// Two balancer rounds over `n` zone ranges with 10 documents per range (one per key
/// value, half of them inside the ranges); returns each round's time and the migrations
/// it made.
fn balancer_rounds(n: u64) -> [(Duration, usize); 2] {
    let mut cluster = zoned_cluster();
    for i in 0..n {
        let (lo, hi, zone) = range(i);
        cluster
            .update_zone_key_range(NS, &lo, &hi, Some(zone))
            .unwrap();
    }
    let docs: Vec<Document> = (0..n * 10).map(|k| doc! { "x": k as i64 }).collect();
    for batch in docs.chunks(10_000) {
        cluster.insert_many(NS, batch).unwrap();
    }
    let mut round = || {
        let start = Instant::now();
        let moved = cluster.balance_round().len();
        (start.elapsed(), moved)
    };
    [round(), round()]
}

/// The best of a few runs of `f` (three up to 10,000 items, one above): the machine's
/// speed drifts, and the least time is the one least disturbed.
fn best(n: u64, mut f: impl FnMut() -> Duration) -> Duration {
    let runs = if n <= 10_000 { 3 } else { 1 };
    (0..runs).map(|_| f()).min().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Prints one row: the times at each size and the ratios between neighbours.
fn row(name: &str, times: &[Duration]) {
    let mut line = format!("{name:<34}");
    for t in times {
        line.push_str(&format!(" {:>10.1} ms", ms(*t)));
    }
    for w in times.windows(2) {
        line.push_str(&format!(
            "  x{:>6.1}",
            w[1].as_secs_f64() / w[0].as_secs_f64()
        ));
    }
    println!("{line}");
}

fn main() {
    let sizes = sizes();
    let header: Vec<String> = sizes.iter().map(|n| format!("{n:>13}")).collect();
    println!("{:<34}{}  ratios", "path", header.join(""));
    if wanted("dbs") {
        let mut show = Vec::new();
        let mut status = Vec::new();
        for &n in &sizes {
            let mut session = many_databases(n);
            show.push(best(n, || statement(&mut session, "show dbs")));
            status.push(best(n, || statement(&mut session, "sh.status()")));
        }
        row("show dbs", &show);
        row("sh.status()", &status);
    }
    if wanted("zones") {
        let ascending: Vec<Duration> = sizes
            .iter()
            .map(|&n| best(n, || add_ranges(&(0..n).collect::<Vec<_>>())))
            .collect();
        row("updateZoneKeyRange, in key order", &ascending);
        let random: Vec<Duration> = sizes
            .iter()
            .map(|&n| best(n, || add_ranges(&shuffled(n))))
            .collect();
        row("updateZoneKeyRange, shuffled", &random);
    }
    if wanted("balancer") {
        let rounds: Vec<[(Duration, usize); 2]> =
            sizes.iter().map(|&n| balancer_rounds(n)).collect();
        row(
            "balancer round 1 (splits, moves)",
            &rounds.iter().map(|r| r[0].0).collect::<Vec<_>>(),
        );
        row(
            "balancer round 2",
            &rounds.iter().map(|r| r[1].0).collect::<Vec<_>>(),
        );
        let moved: Vec<String> = rounds
            .iter()
            .map(|r| format!("{}+{}", r[0].1, r[1].1))
            .collect();
        println!(
            "migrations per size (round 1 + round 2): {}",
            moved.join(", ")
        );
    }
}
