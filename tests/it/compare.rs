//! Lockstep comparison of shard keys: the same workload, different keys, measured alike.
#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::engine::inserts_per_shard;
use shardlab::sim::{compare, render_table, CompareError, ComparisonRow, LatestInserts};
use shardlab::workload::presets::generate_command;
use shardlab::{ClusterConfig, VersionMode};

fn config() -> ClusterConfig {
    ClusterConfig {
        shards: 3,
        version: VersionMode::V50,
        chunk_size: None,
        seed: 1,
    }
}

fn setup(key: &str) -> Vec<String> {
    vec![
        "sim.chunkSize(2048)".to_string(),
        format!("sh.shardCollection(\"test.c\", {key})"),
    ]
}

/// 500 increasing keys in batches of 50, so the balancer gets its turns in between.
fn increasing_inserts() -> Vec<String> {
    (0..10)
        .map(|batch| {
            let docs: Vec<String> = (0..50)
                .map(|i| {
                    format!(
                        "{{x: {}, pad: \"0123456789012345678901234567890123456789\"}}",
                        batch * 50 + i
                    )
                })
                .collect();
            format!("db.c.insertMany([{}])", docs.join(", "))
        })
        .collect()
}

fn queries() -> Vec<Document> {
    vec![
        doc! {"x": 7},
        doc! {"x": {"$gte": 10, "$lt": 20}},
        doc! {"pad": "z"},
        doc! {"x": {"$in": [1, 2]}},
    ]
}

fn ranged_vs_hashed() -> Vec<ComparisonRow> {
    let configs = vec![
        ("ranged {x: 1}".to_string(), config(), setup("{x: 1}")),
        (
            "hashed {x: \"hashed\"}".to_string(),
            config(),
            setup("{x: \"hashed\"}"),
        ),
    ];
    compare(&configs, &increasing_inserts(), "test.c", &queries()).unwrap()
}

/// The Compare tab's default run: 900 documents of the monotonic generator into 32 KiB
/// chunks, 25 per tick with a balancer round after each.
fn page_default(key: &str) -> (String, ClusterConfig, Vec<String>) {
    let setup = vec![
        "sim.chunkSize(32768)".to_string(),
        format!("sh.shardCollection(\"test.c\", {key})"),
    ];
    (key.to_string(), config(), setup)
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn increasing_keys_pile_onto_one_shard_unless_hashed() {
    let tick = generate_command("test.c", "monotonic", 25, true);
    let workload = vec![tick; 36];
    let configs = vec![page_default("{x: 1}"), page_default("{x: \"hashed\"}")];
    let rows = compare(&configs, &workload, "test.c", &queries()).unwrap();
    let (ranged, hashed) = (&rows[0], &rows[1]);
    for r in &rows {
        assert!(r.errors.is_empty(), "{}: {:?}", r.label, r.errors);
        assert_eq!(r.inserts(), 900);
        assert!(r.chunks() > 1, "{}: {:?}", r.label, r.chunks_per_shard);
    }
    // Every one of the latest inserts went to the shard holding the top chunk...
    assert_eq!(ranged.hottest_shard_share, 1.0);
    // ...although the balancer moved that chunk, so the whole run is spread out.
    let used = ranged.inserts_per_shard.iter().filter(|(_, n)| *n > 0);
    assert!(used.count() > 1, "{:?}", ranged.inserts_per_shard);
    assert!(
        hashed.hottest_shard_share < 0.5,
        "{}",
        hashed.hottest_shard_share
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn queries_are_routed_by_the_key() {
    let rows = ranged_vs_hashed();
    let (ranged, hashed) = (&rows[0], &rows[1]);
    for r in &rows {
        assert!(r.errors.is_empty(), "{}: {:?}", r.label, r.errors);
        assert_eq!(r.inserts_per_shard.iter().map(|(_, n)| n).sum::<u64>(), 500);
        assert_eq!(r.docs_per_shard.iter().map(|(_, n)| n).sum::<u64>(), 500);
        assert_eq!(r.inserts_per_shard.len(), 3);
    }
    // With 2 KiB chunks the top chunk is split and moved several times per batch, so even
    // the latest 100 inserts are spread; the hashed key spreads them in any case.
    assert!(
        hashed.hottest_shard_share < 0.5,
        "{}",
        hashed.hottest_shard_share
    );
    // Equality is single-shard for both keys, and `$in` of equalities is multi-shard (as
    // analyzeShardKey counts it); a range is multi-shard on the ranged key only, and a
    // filter without the key is broadcast.
    assert_eq!(
        (
            ranged.single_shard_share,
            ranged.multi_shard_share,
            ranged.scatter_gather_share
        ),
        (0.25, 0.5, 0.25)
    );
    assert_eq!(
        (
            hashed.single_shard_share,
            hashed.multi_shard_share,
            hashed.scatter_gather_share
        ),
        (0.25, 0.25, 0.5)
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_table_shows_every_configuration_and_shard() {
    let text = render_table(&ranged_vs_hashed());
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("configuration"), "{text}");
    assert!(lines[0].contains("hottest shard"), "{text}");
    assert!(lines[1].starts_with("ranged {x: 1}"), "{text}");
    assert!(lines[2].starts_with("hashed {x: \"hashed\"}"), "{text}");
    assert_eq!(text.matches("shard01").count(), 2, "{text}");
    assert_eq!(text.matches("shard03").count(), 2, "{text}");
    assert!(!text.contains("errors in"), "{text}");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn failures_are_reported_not_fatal() {
    let configs = vec![
        ("good".to_string(), config(), setup("{x: 1}")),
        ("bad key".to_string(), config(), setup("{x: -1}")),
    ];
    let workload = vec!["db.c.insertOne({x: 1})".to_string()];
    let rows = compare(&configs, &workload, "test.c", &[doc! {"x": 1}]).unwrap();
    assert!(rows[0].errors.is_empty(), "{:?}", rows[0].errors);
    assert_eq!(rows[1].errors.len(), 1, "{:?}", rows[1].errors);
    assert!(
        rows[1].errors[0].starts_with("sh.shardCollection(\"test.c\", {x: -1}): MongoServerError"),
        "{:?}",
        rows[1].errors
    );
    // The collection exists unsharded there: one shard takes everything.
    assert_eq!(rows[1].hottest_shard_share, 1.0);
    assert!(render_table(&rows).contains("errors in bad key:"));

    assert_eq!(
        compare(&[], &workload, "test.c", &[]),
        Err(CompareError::NoConfigurations)
    );
    let twice = vec![
        ("same".to_string(), config(), Vec::new()),
        ("same".to_string(), config(), Vec::new()),
    ];
    assert_eq!(
        compare(&twice, &workload, "test.c", &[]),
        Err(CompareError::DuplicateLabel("same".to_string()))
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_latest_window_counts_whole_steps_newest_first() {
    let steps: Vec<Vec<(&str, u64)>> = vec![
        vec![("shard01", 80)],
        vec![("shard02", 30)],
        vec![("shard01", 10), ("shard02", 50)],
    ];
    let newest_first = || steps.iter().rev().map(|s| s.iter().copied());
    // 60, then 90: still short of 100, so the oldest step is counted whole.
    let latest = LatestInserts::of(newest_first(), 100);
    assert_eq!(latest.counted, 170);
    assert_eq!((latest.on("shard01"), latest.on("shard02")), (90, 80));
    assert_eq!(latest.on("shard03"), 0);
    assert_eq!(latest.hottest_share(), 90.0 / 170.0);
    let latest = LatestInserts::of(newest_first(), 60);
    assert_eq!((latest.counted, latest.hottest_share()), (60, 50.0 / 60.0));
    assert_eq!(LatestInserts::of(newest_first(), 0).hottest_share(), 0.0);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn inserts_are_counted_per_shard_from_the_events() {
    let mut session = shardlab::Session::new(config());
    for command in setup("{x: 1}").iter().chain(&increasing_inserts()) {
        session.run(command);
    }
    session.run("db.other.insertOne({x: 1})");
    let events = session.cluster.events();
    let counts = inserts_per_shard(events.iter(), "test.c");
    assert_eq!(counts.iter().map(|(_, n)| n).sum::<u64>(), 500);
    for (shard, _) in &counts {
        let times = counts.iter().filter(|(s, _)| s == shard).count();
        assert_eq!(times, 1, "each shard once: {counts:?}");
    }
    assert_eq!(inserts_per_shard(events.iter(), "test.other").len(), 1);
}
