//! The 1,000,000-insert scenario of `benches/core.rs`, runnable both natively and on
//! wasm32 in Node so the two can be compared:
//!
//! ```sh
//! SHARDLAB_INSERTS=1000000 cargo test --release --test it throughput -- --nocapture
//! SHARDLAB_INSERTS=1000000 cargo test --release --target wasm32-unknown-unknown --test it throughput
//! ```
//!
//! It prints the elapsed time and asserts only what the engine must do (every document
//! stored, the invariants held), never a time. The printed chunk, migration and event
//! counts show that both platforms build the same cluster.
//! Without `SHARDLAB_INSERTS` (read at compile time) it runs 20,000 inserts.
#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::{Cluster, ClusterConfig, VersionMode};

const NS: &str = "bench.readings";
const BATCH: i64 = 1000;

fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1000.0
    }
}

fn document(i: i64) -> Document {
    doc! { "ts": i, "v": (i % 1000) as i32, "tag": format!("sensor-{:02}", i % 64) }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn monotonic_inserts_with_a_balancer_round_every_thousand() {
    let n: i64 = option_env!("SHARDLAB_INSERTS")
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let mut cluster = Cluster::new(ClusterConfig {
        shards: 4,
        version: VersionMode::V50,
        chunk_size: Some(64 * 1024),
        seed: 1,
    });
    cluster
        .shard_collection(NS, &doc! { "ts": 1 }, false, None)
        .unwrap();
    let start = now_ms();
    let mut next = 0;
    while next < n {
        let end = (next + BATCH).min(n);
        cluster
            .insert_many(NS, (next..end).map(document).collect())
            .unwrap();
        cluster.balance_round();
        next = end;
    }
    let elapsed = now_ms() - start;
    let table = &cluster.sharding(NS).unwrap().table;
    let line = format!(
        "throughput: {n} inserts in {elapsed:.0} ms ({:.0} ns/insert), {} chunks, {} migrations, {} events",
        elapsed * 1e6 / n as f64,
        table.len(),
        cluster.migrations,
        cluster.events().len()
    );
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_test::console_log!("{line}");
    #[cfg(not(target_arch = "wasm32"))]
    println!("{line}");
    assert_eq!(cluster.collection(NS).unwrap().doc_count(), n as u64);
    cluster.check().unwrap();
}
