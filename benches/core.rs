//! Measures the cluster engine on the workload the playground stresses most: a stream of
//! small documents with a monotonically increasing shard key, inserted in batches of 1,000
//! with `insertMany`, auto-split on and a balancer round after every batch.
//!
//! The cluster has 4 shards in 5.0 mode with a 64 KiB chunk size (the playground shrinks
//! chunks so that splits and migrations show up with thousands of documents rather than
//! millions; 64 KiB gives about 1,300 documents a chunk here). `SHARDLAB_CHUNK_KIB` changes
//! it. Each document is `{_id: ObjectId, ts: <i64>, v: <i32>, tag: "sensor-xx"}`, 60 bytes
//! of BSON, so 1,000,000 of them make about 900 chunks.
//!
//! Only the engine is timed: each batch of documents is built before the clock starts and
//! freed after it stops (`insert_many` borrows them; building and freeing a
//! `bson::Document` costs more than storing it). Two floors are printed:
//! - the same documents (with the same kind of ObjectId, built the same way) inserted
//!   into a plain `BTreeMap<i64, Document>`, the least a store of ordered documents costs;
//! - the same keys alone into a `BTreeMap<i64, ()>`.
//!
//! Targets (issue 4): 1M inserts under 1 s, a peak under 200 MB, at most 4x the floor.
//! Targets (issue 38): at 1M the engine at most 2x the bare-keys floor, and its cost per
//! insert flat from 10k to 1M. Not met (see below why). Two runs of this bench on the build before
//! issue 38's changes and two after, alternating (2 shared cores, 2026-12-02):
//!
//! | inserts | before: ns/insert, x bare keys | after: ns/insert, x bare keys |
//! |---------|--------------------------------|-------------------------------|
//! | 10k     | 150-151, 3.12-3.21x            | 137, 2.90-2.93x               |
//! | 100k    | 169-171, 3.00-3.01x            | 148-149, 2.70-2.74x           |
//! | 1M      | 347-352, 4.52-4.58x            | 263, 3.53-3.54x               |
//!
//! Scaling (1M over 10k) went from 2.30-2.34x to 1.92-1.93x; the bare keys themselves
//! scale 1.6x (47 to 74-78 ns). The balancer round no longer copies every chunk (it did
//! once a round and again after each migration: at 1M about 90 ns of an insert's 340),
//! and the shard totals the splitter reads are no longer summed over every chunk after
//! each split and migration.
//!
//! Issue 38, part 5 (2026-12-03): `insertMany` reserves its group's bookkeeping (the
//! documents' ends and what the encoder noted of each) for the whole group up front
//! instead of growing it a document at a time (18 reallocations a batch of 1,000). Two
//! runs before and two after, alternating, on a machine loaded 5 to 6 runnable tasks on
//! its 2 cores (so every figure is higher than the day before's, and the runs spread):
//!
//! | inserts | before: ns/insert, x bare keys | after: ns/insert, x bare keys |
//! |---------|--------------------------------|-------------------------------|
//! | 10k     | 139-146, 2.96-3.04x            | 147, 3.06-3.12x               |
//! | 100k    | 158-169, 2.65-2.84x            | 166-175, 2.15-2.78x           |
//! | 1M      | 404-418, 3.72-4.09x            | 397-441, 3.89-3.97x           |
//!
//! The two builds do not differ beyond the noise: in instructions (callgrind, the
//! `insert_many` call alone, 200k inserts) an insert went from 1,601 to 1,576 (-1.6%).
//! The fingerprints are the same. Where the time goes, measured:
//! - Instructions per insert are flat: 1,581 at 20k, 1,601 at 200k (before). A balancer
//!   round costs 6,200 instructions at 10k and 8,200 at 100k (under 10 an insert).
//! - Memory is not: every document leaves about 159 bytes of memory touched for the
//!   first time (38,757 page faults for 1M inserts, one per 26 inserts): its 60 bytes of
//!   BSON, about 50 for its `_id` index entry (48 bytes: the `_id`, shard and count in
//!   24, its place in the store in 24) and about 41 for its store entry (40 bytes: key,
//!   insertion number and a 16-byte handle on the shared bytes), by massif at 200k
//!   (11.9, 9.8 and 8.2 MB). The bare keys touch 23 bytes a key.
//! - Fresh memory is what grows: in one process, a second 1M run on the memory the first
//!   one freed takes 737 page faults instead of 38,757, and 0.53-0.70x the time (two
//!   tries; 0.64-0.67x the day before). A page fault costs this machine (a VM) 2 us of
//!   system time, and 4 to 20 us of the insert's time while the machine is loaded; the
//!   day before's figures (263 ns an insert, about 175 ns on reused memory) make it about
//!   2 us: at least 80 ns of each insert at 1M.
//!
//! Why the targets are out of reach without losing fidelity: 2x the bare keys at 1M is
//! about 150 ns an insert (bare keys 74-78 ns). With its memory already touched (10k,
//! best of 5 in one process) the engine takes 137 ns, 1,580 instructions, to encode the
//! BSON, route the key through the chunk table, check and fill the `_id` index, file the
//! document, count it in its chunk and shard, and test for a split; and the 60 bytes of
//! BSON each document must keep are alone 0.015 page faults an insert, at least 30 ns. So
//! even an engine with no index memory at all would be at 167 ns, 2.2x; meeting 2x needs
//! both the indexes' 90 bytes a document gone (the store and the `_id` index are what
//! find a document by its key and by its `_id`, and check `_id`s unique on each shard)
//! and an eighth of the instructions cut besides. Flat from 10k to 1M fails for the same reason: the
//! 10k figure is the best of 5 runs in one process, on memory the earlier runs touched,
//! while every 1M run pays for 155 MiB of fresh pages.
//! The engine keeps documents as raw BSON with compact keys (`src/engine/store.rs`): the
//! document store's entry is 40 bytes and the `_id` index's 48.
//!
//! This machine's speed drifts by tens of percent from one second to the next, so the
//! engine and the bare-keys floor run in pairs, one right after the other, and the ratio
//! reported is the median pair's (5 pairs for 10k and 100k, 7 for 1M).
//!
//! Run with `cargo bench --bench core`. A hand-rolled harness keeps the build light (no
//! criterion). Each phase runs in a child process of its own (the binary re-runs itself
//! with `--phase engine|floor <n>`), so the peak memory read from `VmHWM` in
//! `/proc/self/status` (Linux) is that phase's alone.
#![allow(clippy::unwrap_used)]

use bson::oid::ObjectId;
use bson::{doc, Bson, Document};
use shardlab::{Cluster, ClusterConfig, VersionMode};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

const BATCH: usize = 1_000;
const NS: &str = "test.events";

/// One small document of the stream, without `_id` (the engine adds an ObjectId).
fn document(i: i64) -> Document {
    doc! { "ts": i, "v": (i % 1000) as i32, "tag": format!("sensor-{:02}", i % 64) }
}

fn chunk_size() -> u64 {
    std::env::var("SHARDLAB_CHUNK_KIB")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(64)
        * 1024
}

/// The engine run: returns the time taken and a fingerprint of the final cluster, so that
/// two builds of the engine can be compared for identical behaviour.
fn engine(n: usize) -> (Duration, String) {
    let mut cluster = Cluster::new(ClusterConfig {
        shards: 4,
        version: VersionMode::V50,
        chunk_size: Some(chunk_size()),
        seed: 1,
    });
    cluster
        .shard_collection(NS, &doc! { "ts": 1 }, false, None)
        .unwrap();
    let mut elapsed = Duration::ZERO;
    let mut next = 0i64;
    while (next as usize) < n {
        let end = (next as usize + BATCH).min(n) as i64;
        // The workload's documents are made outside the timed region: the figure is
        // what the engine costs, not what building `bson::Document`s costs.
        let batch: Vec<Document> = (next..end).map(document).collect();
        let start = Instant::now();
        black_box(cluster.insert_many(NS, &batch).unwrap());
        cluster.balance_round();
        elapsed += start.elapsed();
        // The engine borrowed the batch; freeing it is the caller's cost, like building it.
        drop(batch);
        next = end;
    }
    (elapsed, fingerprint(&cluster))
}

/// Chunk count, per-shard chunk counts, migrations, events and a hash of the chunk table.
fn fingerprint(cluster: &Cluster) -> String {
    let s = cluster.sharding(NS).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |text: &str| {
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in s.table.iter() {
        eat(&format!(
            "{:?}{:?}{}{}{}{:?}{}",
            c.min, c.max, c.shard, c.docs, c.bytes, c.version, c.jumbo
        ));
    }
    for e in cluster.events() {
        eat(&format!("{e:?}"));
    }
    let per_shard: Vec<u64> = cluster.shard_stats(NS).iter().map(|st| st.chunks).collect();
    format!(
        "chunks={} per_shard={per_shard:?} docs={} migrations={} events={} hash={h:016x}",
        s.table.len(),
        cluster.collection(NS).unwrap().doc_count(),
        cluster.migrations,
        cluster.events().len(),
    )
}

/// The floor: the same documents, with an ObjectId `_id` put first as the engine does,
/// in an ordered map keyed by the integer.
fn floor(n: usize) -> Duration {
    let mut map: BTreeMap<i64, Document> = BTreeMap::new();
    let mut counter: u32 = 0;
    let mut elapsed = Duration::ZERO;
    let mut next = 0i64;
    while (next as usize) < n {
        let end = (next as usize + BATCH).min(n) as i64;
        let batch: Vec<Document> = (next..end).map(document).collect();
        let start = Instant::now();
        for d in batch {
            counter = counter.wrapping_add(1);
            let mut bytes = [0u8; 12];
            bytes[0..4].copy_from_slice(&1_700_000_000u32.to_be_bytes());
            bytes[8..12].copy_from_slice(&counter.to_be_bytes());
            let mut with_id = Document::new();
            with_id.insert("_id", ObjectId::from_bytes(bytes));
            with_id.extend(d);
            let key = match with_id.get("ts") {
                Some(Bson::Int64(k)) => *k,
                _ => 0,
            };
            map.insert(key, with_id);
        }
        elapsed += start.elapsed();
        next = end;
    }
    black_box(&map);
    elapsed
}

/// The bare floor: the same keys alone into a `BTreeMap<i64, ()>`.
fn keys_only(n: usize) -> Duration {
    let mut map: BTreeMap<i64, ()> = BTreeMap::new();
    let start = Instant::now();
    for i in 0..n as i64 {
        map.insert(black_box(i), ());
    }
    let elapsed = start.elapsed();
    black_box(&map);
    elapsed
}

/// `VmHWM` (peak resident set size) in MiB, if `/proc` has it.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Runs one phase in this process and prints `<ns total> <peak MiB> <fingerprint>`.
fn child(phase: &str, n: usize) {
    let runs = if n >= 1_000_000 { 1 } else { 5 };
    let mut best = Duration::MAX;
    let mut print = String::from("-");
    for _ in 0..runs {
        let t = match phase {
            "engine" => {
                let (t, f) = engine(n);
                print = f;
                t
            }
            "keys" => keys_only(n),
            _ => floor(n),
        };
        best = best.min(t);
    }
    println!(
        "{} {:.1} {print}",
        best.as_nanos(),
        peak_mib().unwrap_or(f64::NAN)
    );
}

/// The best of three fresh processes for 1M inserts (each run in its own process, since a
/// second run in one process would reuse the first one's memory), else one process (which
/// keeps its best of five).
fn best_of_processes(phase: &str, n: usize) -> (Duration, f64, String) {
    let processes = if n >= 1_000_000 { 3 } else { 1 };
    (0..processes)
        .map(|_| spawn(phase, n))
        .min_by_key(|(t, _, _)| *t)
        .unwrap()
}

/// Runs one phase in a fresh process, so that each phase's peak memory is its own.
fn spawn(phase: &str, n: usize) -> (Duration, f64, String) {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["--phase", phase, &n.to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let mut parts = text.trim().splitn(3, ' ');
    let ns: u64 = parts.next().unwrap_or("0").parse().unwrap_or(0);
    let peak: f64 = parts.next().unwrap_or("nan").parse().unwrap_or(f64::NAN);
    let print = parts.next().unwrap_or("").to_string();
    (Duration::from_nanos(ns), peak, print)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        let phase = args.get(i + 1).cloned().unwrap_or_default();
        let n = args
            .get(i + 2)
            .and_then(|s| s.parse().ok())
            .unwrap_or(1_000_000);
        child(&phase, n);
        return;
    }
    println!(
        "cluster engine: monotonic inserts, 4 shards, 5.0, chunk size {} KiB, batches of {BATCH}, a balancer round per batch",
        chunk_size() / 1024
    );
    println!("(every run in a fresh process; a process keeps its best of 5 runs for 10k and 100k, one run for 1M, so that every 1M run pays for fresh memory)");
    let sizes = [10_000usize, 100_000, 1_000_000];
    let mut per_insert = Vec::new();
    for &n in &sizes {
        // The engine and the bare keys are measured in pairs, one right after the other,
        // so that each ratio compares runs made under the same conditions (this machine's
        // speed drifts by tens of percent over seconds); the median pair is reported.
        let pairs = if n >= 1_000_000 { 7 } else { 5 };
        let mut runs: Vec<(Duration, Duration, f64, String)> = (0..pairs)
            .map(|_| {
                let (t, peak, print) = spawn("engine", n);
                let (bare, _, _) = spawn("keys", n);
                (t, bare, peak, print)
            })
            .collect();
        let (f, floor_peak, _) = best_of_processes("floor", n);
        let t = runs.iter().map(|r| r.0).min().unwrap();
        let bare = runs.iter().map(|r| r.1).min().unwrap();
        let engine_peak = runs.iter().map(|r| r.2).fold(0.0, f64::max);
        let print = runs[0].3.clone();
        let mut ratios: Vec<f64> = runs
            .drain(..)
            .map(|(t, bare, _, _)| t.as_secs_f64() / bare.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let ns = t.as_nanos() as f64 / n as f64;
        let floor_ns = f.as_nanos() as f64 / n as f64;
        per_insert.push(ns);
        println!(
            "{n:>9} inserts: engine {:>8.1} ms ({ns:>6.0} ns/insert), BTreeMap floor {:>7.1} ms ({floor_ns:>5.0} ns/insert), ratio {:.2}x",
            ms(t),
            ms(f),
            ns / floor_ns
        );
        println!(
            "{:>18} peak memory (VmHWM): engine {engine_peak:.1} MiB, floor {floor_peak:.1} MiB",
            ""
        );
        println!(
            "{:>18} keys alone into a BTreeMap<i64, ()>: {:.1} ms ({:.0} ns/insert); engine ratio, median of {pairs} pairs: {:.2}x (pairs {})",
            "",
            ms(bare),
            bare.as_nanos() as f64 / n as f64,
            ratios[ratios.len() / 2],
            ratios
                .iter()
                .map(|r| format!("{r:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!("{:>18} {print}", "");
    }
    println!(
        "scaling (ns/insert relative to 10k): 100k {:.2}x, 1M {:.2}x",
        per_insert[1] / per_insert[0],
        per_insert[2] / per_insert[0]
    );
}
