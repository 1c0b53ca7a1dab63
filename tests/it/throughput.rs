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
//! Without `SHARDLAB_INSERTS` (read at compile time) it runs 20,000 inserts. Only the
//! engine is timed (each batch is built before the clock starts), and the heap is grown
//! up front as the playground grows it (`SHARDLAB_HEADROOM_MIB`, default 256).
#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::{Cluster, ClusterConfig, VersionMode};

const NS: &str = "bench.readings";
const BATCH: i64 = 1000;

fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        // `performance.now()` (sub-millisecond; `Date.now()` is too coarse to time a
        // batch), read through `Reflect` since the core has no web-sys.
        use js_sys::{Function, Reflect};
        let perf = Reflect::get(&js_sys::global(), &"performance".into());
        let now = perf
            .as_ref()
            .ok()
            .and_then(|p| Reflect::get(p, &"now".into()).ok())
            .map(Function::from);
        match (perf, now) {
            (Ok(p), Some(f)) => f.call0(&p).ok().and_then(|v| v.as_f64()),
            _ => None,
        }
        .unwrap_or_else(js_sys::Date::now)
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
    // Only the engine is timed: each batch of documents is built before the clock starts
    // and freed after it stops (the engine borrows it).
    // The playground grows its heap once at startup (`HEAP_HEADROOM` in web/src/main.rs,
    // 256 MiB); do the same, unless SHARDLAB_HEADROOM_MIB says otherwise (0 measures a
    // heap grown 64 KiB at a time).
    let mib = option_env!("SHARDLAB_HEADROOM_MIB")
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(256);
    let mut headroom: Vec<u8> = Vec::new();
    if headroom.try_reserve_exact(mib << 20).is_ok() {
        drop(std::hint::black_box(headroom));
    }
    let mut elapsed = 0.0;
    let mut next = 0;
    while next < n {
        let end = (next + BATCH).min(n);
        let batch: Vec<Document> = (next..end).map(document).collect();
        let start = now_ms();
        cluster.insert_many(NS, &batch).unwrap();
        cluster.balance_round();
        elapsed += now_ms() - start;
        drop(batch);
        next = end;
    }
    let table = &cluster.sharding(NS).unwrap().table;
    let line = format!(
        "throughput: {n} inserts in {elapsed:.0} ms ({:.0} ns/insert), {} chunks, {} migrations, {} events",
        elapsed * 1e6 / n as f64,
        table.len(),
        cluster.migrations,
        cluster.events().len()
    );
    // The linear memory's size: what the heap ever needed, or the headroom reserved.
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_test::console_log!(
        "{line}, linear memory {} MiB",
        // 64 KiB pages, 16 to a MiB.
        core::arch::wasm32::memory_size(0) / 16
    );
    #[cfg(not(target_arch = "wasm32"))]
    println!("{line}");
    assert_eq!(cluster.collection(NS).unwrap().doc_count(), n as u64);
    cluster.check().unwrap();
}
