//! The first slice: ranged sharding on one field with monotonic inserts (spec §5, §6).

use bson::{doc, Bson, Document};
use shardlab::{Cluster, ClusterConfig};

fn monotonic(n: i64) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "x": i, "pad": "0123456789012345678901234567890123456789"})
        .collect()
}

fn cluster(chunk_size: u64) -> Cluster {
    let mut c = Cluster::new(ClusterConfig {
        chunk_size: Some(chunk_size),
        ..ClusterConfig::default()
    });
    c.shard_collection("test.c", &doc! {"x": 1}, false, None)
        .expect("valid key");
    c
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn monotonic_inserts_pile_into_the_maxkey_chunk() {
    let mut c = cluster(1024);
    c.insert_many("test.c", monotonic(200)).expect("inserts");
    let coll = c.collection("test.c").expect("sharded");
    c.check().expect("routing invariants hold");
    let coll_table = &c.sharding("test.c").expect("sharded").table;
    let pattern = &c.sharding("test.c").expect("sharded").pattern;
    assert!(coll_table.len() > 1, "the collection split");
    assert_eq!(coll.doc_count(), 200);
    // With the top-chunk rule the top chunk starts at the largest key seen when it split,
    // so it holds only the newest documents.
    let top = coll_table.iter().last().expect("a chunk");
    assert_eq!(top.max, pattern.global_max());
    let Bson::Int64(lower) = top.min.0[0] else {
        panic!("top chunk bound is {:?}", top.min);
    };
    assert_eq!(top.docs, 200 - lower as u64);
    assert!(top.docs < 30, "the top chunk holds only the latest inserts");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn chunks_left_behind_by_the_top_chunk_rule_hold_about_a_chunk_and_a_third() {
    // With a monotonic key, the top chunk is split once `autoSplitVector` finds a point
    // that does not leave a last piece under a third of `maxDocs` (else it keeps a bigger
    // last piece), and the top-chunk rule then cuts at the newest key. Each chunk left
    // behind so holds more than the maximum size, but less than 4/3 of it plus the fifth
    // of a chunk written between two looks at the chunk (so under 8/5 of it).
    let mut c = cluster(1024);
    c.insert_many("test.c", monotonic(500)).expect("inserts");
    c.check().expect("routing invariants hold");
    let s = c.sharding("test.c").expect("sharded");
    let interior: Vec<_> = s
        .table
        .iter()
        .filter(|ch| ch.min != s.pattern.global_min() && ch.max != s.pattern.global_max())
        .collect();
    assert!(interior.len() > 10, "{} chunks", interior.len());
    for chunk in interior {
        assert!(
            chunk.bytes > 1024 && chunk.bytes < 1024 * 8 / 5,
            "chunk {:?} holds {} bytes",
            chunk.min,
            chunk.bytes
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_chunk_of_one_repeated_key_turns_jumbo() {
    let mut c = cluster(1024);
    let docs: Vec<_> = (0..100)
        .map(|i| doc! {"_id": i, "x": 7, "pad": "0123456789012345678901234567890123456789"})
        .collect();
    c.insert_many("test.c", docs).expect("inserts");
    c.check().expect("routing invariants hold");
    let table = &c.sharding("test.c").expect("sharded").table;
    assert_eq!(table.len(), 1, "a single key value cannot be split");
    assert!(table.iter().all(|ch| ch.jumbo));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn documents_over_16_mib_are_refused_and_change_nothing() {
    let mut c = cluster(1024);
    let big = doc! {"x": 1, "blob": "x".repeat(16 * 1024 * 1024)};
    let (inserted, err) = c.insert_many("test.c", vec![big]).expect_err("too large");
    assert!(inserted.is_empty());
    assert_eq!((err.code(), err.code_name()), (10334, "BSONObjectTooLarge"));
    assert!(err
        .to_string()
        .starts_with("object to insert too large. size in bytes: 167772"));
    assert_eq!(c.collection("test.c").expect("exists").doc_count(), 0);
    c.check().expect("nothing changed");
}
