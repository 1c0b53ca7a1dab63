//! Measures point reads and writes by shard key on a large collection: 10,000
//! `find({ts: v})`, then 10,000 `updateOne({ts: v}, {$inc: {v: 1}})`, on 1,000,000
//! documents in 4 shards (5.0 mode, 64 KiB chunks, so about 900 chunks, spread by the
//! balancer), and 100 `find({_id: ...})` (`_id` is not the shard key: the `_id` index
//! tells which shard holds the value, and that shard is read).
//!
//! A point query reads the shard key index (the store is ordered by shard key): the cost
//! should not grow with the collection. Before the index was used, each query scanned
//! every document of the targeted shard (50 to 180 ms on 100,000 documents). Measured on
//! the development machine (2 shared cores, bench profile without LTO), a query on 1,000,000
//! documents took, before (8c1efe4, 50 queries of each kind) and after:
//!
//! | query                 | before     | after  | ratio   |
//! |-----------------------|------------|--------|---------|
//! | `find({ts: v})`       | 306 ms     | 13 us  | ~23,000 |
//! | `updateOne({ts: v})`  | 341 ms     | 27 us  | ~12,600 |
//! | `find({_id: v})`      | 1,331 ms   | 27 us  | ~49,000 |
//!
//! Run with `cargo bench --bench point_queries`. `SHARDLAB_DOCS` changes the number of
//! documents, `SHARDLAB_QUERIES` the number of queries. A hand-rolled harness keeps the
//! build light.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::support::SplitMix64;
use shardlab::{Cluster, ClusterConfig, VersionMode};
use std::hint::black_box;
use std::time::Instant;

const NS: &str = "test.events";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// One small document of the stream, as `benches/core.rs` makes them.
fn document(i: i64) -> Document {
    doc! { "ts": i, "v": (i % 1000) as i32, "tag": format!("sensor-{:02}", i % 64) }
}

fn main() {
    let n = env_or("SHARDLAB_DOCS", 1_000_000) as i64;
    let queries = env_or("SHARDLAB_QUERIES", 10_000);
    let mut cluster = Cluster::new(ClusterConfig {
        shards: 4,
        version: VersionMode::V50,
        chunk_size: Some(64 * 1024),
        seed: 1,
    });
    cluster
        .shard_collection(NS, &doc! { "ts": 1 }, false, None)
        .unwrap();
    let start = Instant::now();
    let mut next = 0;
    while next < n {
        let end = (next + 1_000).min(n);
        let batch: Vec<Document> = (next..end).map(document).collect();
        cluster.insert_many(NS, &batch).unwrap();
        cluster.balance_round();
        next = end;
    }
    while !cluster.balance_round().is_empty() {}
    println!(
        "{n} documents, {} chunks, loaded in {:.1} s",
        cluster.sharding(NS).unwrap().table.len(),
        start.elapsed().as_secs_f64()
    );
    let mut rng = SplitMix64::new(42);
    let keys: Vec<i64> = (0..queries)
        .map(|_| (rng.next_u64() % n as u64) as i64)
        .collect();

    let start = Instant::now();
    let mut found = 0;
    for &k in &keys {
        let (docs, _) = cluster.find(NS, &doc! { "ts": k }).unwrap();
        found += docs.len();
        black_box(docs);
    }
    let t = start.elapsed();
    assert_eq!(found, keys.len());
    println!(
        "find({{ts: v}})      x{queries}: {:>9.1} ms  ({:.1} us a query)",
        t.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e6 / queries as f64
    );

    let start = Instant::now();
    for &k in &keys {
        let out = cluster
            .update(NS, &doc! { "ts": k }, &doc! { "$inc": { "v": 1 } }, false)
            .unwrap();
        assert_eq!(out.matched, 1);
    }
    let t = start.elapsed();
    println!(
        "updateOne({{ts: v}}) x{queries}: {:>9.1} ms  ({:.1} us a query)",
        t.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e6 / queries as f64
    );

    let ids: Vec<Bson> = keys
        .iter()
        .take(100)
        .map(|&k| {
            let (docs, _) = cluster.find(NS, &doc! { "ts": k }).unwrap();
            docs[0].get("_id").cloned().unwrap()
        })
        .collect();
    let start = Instant::now();
    for id in &ids {
        let (docs, _) = cluster.find(NS, &doc! { "_id": id.clone() }).unwrap();
        assert_eq!(docs.len(), 1);
    }
    let t = start.elapsed();
    println!(
        "find({{_id: v}})     x{}: {:>9.1} ms  ({:.1} us a query)",
        ids.len(),
        t.as_secs_f64() * 1e3,
        t.as_secs_f64() * 1e6 / ids.len() as f64
    );
}
