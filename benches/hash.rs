//! Measures `hash64` against raw MD5 over the very bytes `hash64` digests
//! (seed, canonical class, payload), so the ratio shows the cost of walking the
//! value and feeding the digest piece by piece. Target: at most 1.5x raw MD5.
//!
//! Run with `cargo bench --bench hash`. A hand-rolled harness keeps the build
//! light (no criterion).
#![allow(clippy::unwrap_used)]

use bson::oid::ObjectId;
use bson::Bson;
use md5::{Digest, Md5};
use shardlab::values::hash64;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Runs `f` in batches until about `budget` has passed and returns ns per call,
/// the best of five rounds to damp noise on a shared machine.
fn ns_per_op(budget: Duration, mut f: impl FnMut() -> i64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        let mut iterations: u64 = 0;
        let mut sink = 0i64;
        while start.elapsed() < budget {
            for _ in 0..1000 {
                sink = sink.wrapping_add(f());
            }
            iterations += 1000;
        }
        black_box(sink);
        let ns = start.elapsed().as_nanos() as f64 / iterations as f64;
        best = best.min(ns);
    }
    best
}

/// The first 8 bytes of the MD5 of `bytes`, as `hash64` reads them.
fn raw_md5(bytes: &[u8]) -> i64 {
    let digest = Md5::digest(bytes);
    i64::from_le_bytes(digest[..8].try_into().unwrap())
}

fn main() {
    let oid = ObjectId::parse_str("010203040506070809101112").unwrap();
    let mut int_bytes = Vec::new();
    int_bytes.extend_from_slice(&0i32.to_le_bytes());
    int_bytes.extend_from_slice(&10i32.to_le_bytes());
    int_bytes.extend_from_slice(&42i64.to_le_bytes());
    let mut oid_bytes = Vec::new();
    oid_bytes.extend_from_slice(&0i32.to_le_bytes());
    oid_bytes.extend_from_slice(&35i32.to_le_bytes());
    oid_bytes.extend_from_slice(&oid.bytes());
    let text = "customer-1234";
    let mut str_bytes = Vec::new();
    str_bytes.extend_from_slice(&0i32.to_le_bytes());
    str_bytes.extend_from_slice(&15i32.to_le_bytes());
    str_bytes.extend_from_slice(&(text.len() as i32 + 1).to_le_bytes());
    str_bytes.extend_from_slice(text.as_bytes());
    str_bytes.push(0);

    let cases: Vec<(&str, Bson, Vec<u8>)> = vec![
        ("int32 42", Bson::Int32(42), int_bytes),
        ("ObjectId", Bson::ObjectId(oid), oid_bytes),
        (
            "string \"customer-1234\"",
            Bson::String(text.into()),
            str_bytes,
        ),
    ];
    let budget = Duration::from_millis(200);
    println!(
        "{:<26} {:>12} {:>12} {:>7}",
        "input", "hash64 ns", "raw md5 ns", "ratio"
    );
    for (name, value, bytes) in &cases {
        // Both sides must digest the same input, or the comparison means nothing.
        assert_eq!(hash64(value, 0), raw_md5(bytes), "{name}");
        let hashed = ns_per_op(budget, || hash64(black_box(value), black_box(0)));
        let raw = ns_per_op(budget, || raw_md5(black_box(bytes)));
        println!(
            "{name:<26} {hashed:>12.1} {raw:>12.1} {:>6.2}x",
            hashed / raw
        );
    }
}
