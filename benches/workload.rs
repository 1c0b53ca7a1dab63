//! Throughput of the workload generators, generating and inserting a million documents
//! from each preset, and of
//! `analyzeShardKey` on a million-document collection. Target: the analysis under 1 s.
//!
//! Run with `cargo bench --bench workload`. A hand-rolled harness keeps the build light
//! (no criterion).
#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::engine::{analyze_shard_key, analyze_shard_key_with, AnalyzeOptions};
use shardlab::support::SplitMix64;
use shardlab::workload::{generate, generate_queries, preset, preset_names};
use shardlab::{Cluster, ClusterConfig};
use std::hint::black_box;
use std::time::Instant;

const N: u64 = 1_000_000;

/// The most documents `generate` makes in one call (`sim.generate`'s limit).
const PIECE: u64 = 100_000;

/// `n` documents from `spec`, generated a piece at a time: each call starts where the
/// previous one stopped and draws from the same generator, so the documents are those one
/// call would make.
fn generate_all(spec: &Document, n: u64, rng: &mut SplitMix64) -> Vec<Document> {
    let mut docs = Vec::with_capacity(n as usize);
    while (docs.len() as u64) < n {
        let start = docs.len() as u64;
        docs.extend(generate(spec, PIECE.min(n - start), start, rng).unwrap());
    }
    docs
}

fn main() {
    println!("generate, then insert (insertMany in batches of 1,000), {N} documents per preset:");
    println!("  (3 shards, 5.0, 1 MiB chunks, a balancer round per batch; key per preset)");
    // `SHARDLAB_PRESETS=uniform,zipf` runs only those.
    let only = std::env::var("SHARDLAB_PRESETS").ok();
    for name in preset_names() {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|p| p == *name))
        {
            continue;
        }
        let spec = preset(name).unwrap();
        let start = Instant::now();
        let docs = generate_all(&spec, N, &mut SplitMix64::new(1));
        let gen_secs = start.elapsed().as_secs_f64();
        let key = match *name {
            "objectIds" => doc! { "_id": 1 },
            "hashedId" => doc! { "_id": "hashed" },
            "continents" => doc! { "continent": 1 },
            "multiTenant" => doc! { "projectId": 1, "_id": 1 },
            _ => doc! { "x": 1 },
        };
        let mut cluster = Cluster::new(ClusterConfig {
            chunk_size: Some(1 << 20),
            ..ClusterConfig::default()
        });
        cluster
            .shard_collection("test.c", &key, false, None)
            .unwrap();
        let mut docs = docs.into_iter();
        let start = Instant::now();
        loop {
            let batch: Vec<_> = docs.by_ref().take(1000).collect();
            if batch.is_empty() {
                break;
            }
            black_box(cluster.insert_many("test.c", batch).unwrap());
            cluster.balance_round();
        }
        let insert_secs = start.elapsed().as_secs_f64();
        let chunks = cluster.sharding("test.c").unwrap().table.len();
        println!(
            "  {name:<14} generate {:>5.0} ms ({:>5.2} M docs/s), insert {:>6.0} ms ({:>5.2} M docs/s), {chunks} chunks",
            gen_secs * 1e3,
            N as f64 / gen_secs / 1e6,
            insert_secs * 1e3,
            N as f64 / insert_secs / 1e6
        );
    }

    for (label, key, spec) in [
        (
            "uniform x, key {x: 1}",
            doc! { "x": 1 },
            preset("uniform").unwrap(),
        ),
        (
            "monotonic x, key {x: 1}",
            doc! { "x": 1 },
            preset("monotonic").unwrap(),
        ),
    ] {
        let mut cluster = Cluster::new(ClusterConfig::default());
        cluster
            .shard_collection("test.c", &key, false, None)
            .unwrap();
        let docs = generate_all(&spec, N, &mut SplitMix64::new(2));
        let start = Instant::now();
        cluster.insert_many("test.c", docs).unwrap();
        println!(
            "\n{label}: insert_many of {N} documents {:.0} ms",
            start.elapsed().as_secs_f64() * 1e3
        );

        let known: Vec<_> = cluster
            .collection("test.c")
            .unwrap()
            .documents()
            .take(10_000)
            .collect();
        let samples = generate_queries(
            &doc! { "key": "x", "other": "payload" },
            10_000,
            &mut SplitMix64::new(3),
            &known,
        )
        .unwrap();

        let start = Instant::now();
        let reply = analyze_shard_key(&cluster, "test.c", &key, &samples).unwrap();
        println!(
            "  analyzeShardKey, current key, 10k samples: {:.0} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
        black_box(reply);

        let start = Instant::now();
        let reply = analyze_shard_key_with(
            &cluster,
            "test.c",
            &doc! { "_id": 1 },
            &samples,
            AnalyzeOptions::default(),
        )
        .unwrap();
        println!(
            "  analyzeShardKey, candidate {{_id: 1}}, 10k samples: {:.0} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
        black_box(reply);
    }
}
