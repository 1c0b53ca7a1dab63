//! analyzeShardKey (spec §10) on small collections built from seeded workloads.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::engine::{analyze_shard_key, analyze_shard_key_with, AnalyzeOptions, QuerySample};
use shardlab::support::SplitMix64;
use shardlab::workload::{generate, generate_queries, preset};
use shardlab::{Cluster, ClusterConfig};

const NS: &str = "test.c";

/// A cluster with `NS` sharded on `key` and `count` documents of `spec` inserted.
fn cluster_with(key: Document, spec: Document, count: u64) -> Cluster {
    let mut cluster = Cluster::new(ClusterConfig::default());
    cluster.shard_collection(NS, &key, false, None).unwrap();
    let docs = generate(&spec, count, 0, &mut SplitMix64::new(11)).unwrap();
    cluster.insert_many(NS, docs).unwrap();
    cluster
}

fn characteristics(reply: &Document) -> &Document {
    reply.get_document("keyCharacteristics").unwrap()
}

fn monotonicity(reply: &Document) -> (f64, String) {
    let m = characteristics(reply).get_document("monotonicity").unwrap();
    (
        m.get_f64("recordIdCorrelationCoefficient").unwrap(),
        m.get_str("type").unwrap().to_string(),
    )
}

fn key_only() -> AnalyzeOptions {
    AnalyzeOptions {
        key_characteristics: true,
        read_write_distribution: false,
        sample_rate_and_size: false,
    }
}

/// An increasing key correlates perfectly with insertion order; a random one does not.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn monotonic_and_random_keys() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("monotonic").unwrap(), 2000);
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, &[]).unwrap();
    assert_eq!(monotonicity(&reply), (1.0, "monotonic".to_string()));

    let cluster = cluster_with(doc! { "x": 1 }, preset("decreasing").unwrap(), 2000);
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, &[]).unwrap();
    assert_eq!(monotonicity(&reply), (-1.0, "monotonic".to_string()));

    let cluster = cluster_with(doc! { "x": 1 }, preset("uniform").unwrap(), 2000);
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, &[]).unwrap();
    let (r, kind) = monotonicity(&reply);
    assert!(r.abs() < 0.1, "r = {r}");
    assert_eq!(kind, "not monotonic");

    // A hashed key is never monotonic, whatever the values do.
    let cluster = cluster_with(doc! { "x": "hashed" }, preset("monotonic").unwrap(), 2000);
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": "hashed" }, &[]).unwrap();
    assert_eq!(monotonicity(&reply), (0.0, "not monotonic".to_string()));
}

/// The candidate may differ from the current key: `_id` ObjectIds grow with inserts even
/// though the collection is sharded on a random `x`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn candidate_key_other_than_the_shard_key() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("uniform").unwrap(), 1500);
    let reply = analyze_shard_key(&cluster, NS, &doc! { "_id": 1 }, &[]).unwrap();
    assert_eq!(monotonicity(&reply), (1.0, "monotonic".to_string()));
    let kc = characteristics(&reply);
    assert!(kc.get_bool("isUnique").unwrap());
    assert_eq!(kc.get("numDistinctValues"), Some(&Bson::Int64(1500)));
    let mcv = kc.get_array("mostCommonValues").unwrap();
    assert_eq!(mcv.len(), 5);
    // A unique key's "most common" values are the first documents inserted.
    let first_id = cluster
        .collection(NS)
        .unwrap()
        .documents()
        .map(|d| d.get("_id").cloned().unwrap())
        .min_by(shardlab::compare_values)
        .unwrap();
    assert_eq!(
        mcv[0].as_document().unwrap(),
        &doc! { "value": { "_id": first_id }, "frequency": 1_i64 }
    );
}

/// Continents: seven distinct values, most common first, frequencies summing up; and too
/// few values to cut the key into 100 ranges.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn continents_low_cardinality() {
    let cluster = cluster_with(doc! { "continent": 1 }, preset("continents").unwrap(), 3000);
    let key = doc! { "continent": 1 };
    let reply = analyze_shard_key_with(&cluster, NS, &key, &[], key_only()).unwrap();
    let kc = characteristics(&reply);
    assert_eq!(kc.get("numDistinctValues"), Some(&Bson::Int64(7)));
    assert_eq!(kc.get("numDocsTotal"), Some(&Bson::Int64(3000)));
    assert_eq!(kc.get("numOrphanDocs"), Some(&Bson::Int64(0)));
    assert!(!kc.get_bool("isUnique").unwrap());
    let mcv = kc.get_array("mostCommonValues").unwrap();
    let freqs: Vec<i64> = mcv
        .iter()
        .map(|v| v.as_document().unwrap().get_i64("frequency").unwrap())
        .collect();
    assert_eq!(freqs.len(), 5);
    assert!(freqs.windows(2).all(|w| w[0] >= w[1]), "{freqs:?}");
    assert_eq!(
        mcv[0].as_document().unwrap().get_document("value").unwrap(),
        &doc! { "continent": "Asia" }
    );
    assert!(!reply.contains_key("readDistribution"));

    let err = analyze_shard_key(&cluster, NS, &key, &[]).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("The shard key provided does not have enough cardinality to make the required amount of chunks"),
        "{err}"
    );
}

/// Ties in frequency are broken by key order.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn most_common_values_ties_in_key_order() {
    let mut cluster = Cluster::new(ClusterConfig::default());
    cluster
        .shard_collection(NS, &doc! { "k": 1 }, false, None)
        .unwrap();
    let docs: Vec<Document> = [5, 3, 9, 3, 5, 1, 7, 9, 2, 4]
        .iter()
        .map(|k| doc! { "k": *k })
        .collect();
    cluster.insert_many(NS, docs).unwrap();
    let reply = analyze_shard_key_with(&cluster, NS, &doc! { "k": 1 }, &[], key_only()).unwrap();
    let shown: Vec<String> = characteristics(&reply)
        .get_array("mostCommonValues")
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    expect_test::expect![[r#"
        { "value": { "k": 3 }, "frequency": 2 }
        { "value": { "k": 5 }, "frequency": 2 }
        { "value": { "k": 9 }, "frequency": 2 }
        { "value": { "k": 1 }, "frequency": 1 }
        { "value": { "k": 2 }, "frequency": 1 }"#]]
    .assert_eq(&shown.join("\n"));
}

/// Equality reads on the candidate key are all single-shard; reads on another field are
/// scatter-gather; ranges are multi-shard. Each read lands in the range counts.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn read_and_write_distribution() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("uniform").unwrap(), 3000);
    let docs: Vec<Document> = cluster.collection(NS).unwrap().documents().collect();
    let mut rng = SplitMix64::new(5);
    let eq = generate_queries(&doc! { "kind": "eq", "key": "x" }, 200, &mut rng, &docs).unwrap();
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, &eq).unwrap();
    let read = reply.get_document("readDistribution").unwrap();
    assert_eq!(
        read.get_document("sampleSize").unwrap(),
        &doc! { "total": 200_i64, "find": 200_i64, "aggregate": 0_i64, "count": 0_i64, "distinct": 0_i64 }
    );
    assert_eq!(read.get_f64("percentageOfSingleShardReads").unwrap(), 100.0);
    assert_eq!(read.get_f64("percentageOfScatterGatherReads").unwrap(), 0.0);
    let by_range = read.get_array("numReadsByRange").unwrap();
    assert_eq!(by_range.len(), 100);
    let sum: i64 = by_range.iter().map(|n| n.as_i64().unwrap()).sum();
    assert_eq!(sum, 200);
    // No writes were sampled: only the sample size is reported.
    assert_eq!(
        reply.get_document("writeDistribution").unwrap(),
        &doc! { "sampleSize": { "total": 0_i64, "update": 0_i64, "delete": 0_i64, "findAndModify": 0_i64 } }
    );

    let mixed = generate_queries(
        &doc! { "key": "x", "ratios": { "eq": 1, "range": 1, "other": 1, "updateKey": 1, "updateMany": 1 } },
        1000,
        &mut rng,
        &docs,
    )
    .unwrap();
    let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, &mixed).unwrap();
    let read = reply.get_document("readDistribution").unwrap();
    let total = read
        .get_document("sampleSize")
        .unwrap()
        .get_i64("total")
        .unwrap();
    let pct = |name: &str| read.get_f64(name).unwrap();
    let sum = pct("percentageOfSingleShardReads")
        + pct("percentageOfMultiShardReads")
        + pct("percentageOfScatterGatherReads");
    assert!((sum - 100.0).abs() < 1e-6);
    assert!(pct("percentageOfMultiShardReads") > 20.0);
    assert!(pct("percentageOfScatterGatherReads") > 20.0);
    assert!(total > 500);
    let write = reply.get_document("writeDistribution").unwrap();
    // updateKey writes change the key; updateMany writes filter on another field.
    let updates = write.get_f64("percentageOfShardKeyUpdates").unwrap();
    let multi = write
        .get_f64("percentageOfMultiWritesWithoutShardKey")
        .unwrap();
    assert!((30.0..70.0).contains(&updates), "{updates}");
    assert!((30.0..70.0).contains(&multi), "{multi}");
    assert_eq!(
        write
            .get_f64("percentageOfSingleWritesWithoutShardKey")
            .unwrap(),
        0.0
    );
}

/// A hashed candidate: equality stays single-shard, a range becomes scatter-gather.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn hashed_candidate_ranges_scatter() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("monotonic").unwrap(), 2000);
    let samples = vec![
        QuerySample {
            command: "find".into(),
            filter: doc! { "x": 5 },
            update: None,
            upsert: false,
        },
        QuerySample {
            command: "find".into(),
            filter: doc! { "x": { "$gt": 5 } },
            update: None,
            upsert: false,
        },
        QuerySample {
            command: "deleteOne".into(),
            filter: doc! { "ts": 1 },
            update: None,
            upsert: false,
        },
    ];
    let key = doc! { "x": "hashed" };
    let reply = analyze_shard_key(&cluster, NS, &key, &samples).unwrap();
    let read = reply.get_document("readDistribution").unwrap();
    assert_eq!(read.get_f64("percentageOfSingleShardReads").unwrap(), 50.0);
    assert_eq!(
        read.get_f64("percentageOfScatterGatherReads").unwrap(),
        50.0
    );
    let sum: i64 = read
        .get_array("numReadsByRange")
        .unwrap()
        .iter()
        .map(|n| n.as_i64().unwrap())
        .sum();
    assert_eq!(sum, 101);
    let write = reply.get_document("writeDistribution").unwrap();
    assert_eq!(
        write
            .get_f64("percentageOfSingleWritesWithoutShardKey")
            .unwrap(),
        100.0
    );
}

/// A replacement without the key in its filter is targeted by the replacement's key
/// (analyze_shard_key_read_write_distribution.cpp's secondary filter), but only for an
/// update that does not upsert, and never for a findAndModify.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn replacements_target_by_their_key_unless_they_upsert() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("monotonic").unwrap(), 2000);
    let replace = |command: &str, upsert: bool| QuerySample {
        command: command.into(),
        filter: doc! { "ts": 1 },
        update: Some(doc! { "x": 5, "ts": 2 }),
        upsert,
    };
    let single = |samples: &[QuerySample]| {
        let reply = analyze_shard_key(&cluster, NS, &doc! { "x": 1 }, samples).unwrap();
        let w = reply.get_document("writeDistribution").unwrap().clone();
        w.get_f64("percentageOfSingleShardWrites").unwrap()
    };
    assert_eq!(single(&[replace("replaceOne", false)]), 100.0);
    assert_eq!(single(&[replace("replaceOne", true)]), 0.0);
    assert_eq!(single(&[replace("findOneAndReplace", false)]), 0.0);
}

/// MongoDB's refusals, in MongoDB's words.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn errors() {
    let cluster = cluster_with(doc! { "x": 1 }, preset("monotonic").unwrap(), 10);
    let err = analyze_shard_key(&cluster, "test.none", &doc! { "x": 1 }, &[]).unwrap_err();
    assert_eq!(
        (err.code_name(), err.to_string().as_str()),
        (
            "NamespaceNotFound",
            "Cannot analyze a shard key for a non-existing collection"
        )
    );
    let err = analyze_shard_key_with(&cluster, NS, &doc! { "ts": 1 }, &[], key_only()).unwrap_err();
    assert_eq!(
        (err.code_name(), err.to_string().as_str()),
        (
            "IllegalOperation",
            "Cannot analyze the characteristics of a shard key that does not have a supporting index"
        )
    );
    let err = analyze_shard_key(&cluster, NS, &doc! { "x": -1 }, &[]).unwrap_err();
    assert_eq!(err.code_name(), "BadValue");

    let mut empty = Cluster::new(ClusterConfig::default());
    empty
        .shard_collection(NS, &doc! { "x": 1 }, false, None)
        .unwrap();
    let err = analyze_shard_key(&empty, NS, &doc! { "x": 1 }, &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Cannot analyze the characteristics of a shard key for an empty collection"
    );
}

/// The options the shard's command refuses before it looks at the collection
/// (analyze_shard_key_cmd.cpp, AnalyzeShardKeyCmd::typedRun): skipping both parts, and
/// `sampleRate` with `sampleSize`; both InvalidOptions, also for a collection that does
/// not exist.
#[test]
fn options_the_command_refuses() {
    let mut session = shardlab::Session::default();
    let outcomes = session.run(
        "sim.version('8.0')
db.c.insertOne({x: 1})
db.adminCommand({analyzeShardKey: 'test.c', key: {x: 1}, keyCharacteristics: false, readWriteDistribution: false})
db.adminCommand({analyzeShardKey: 'test.c', key: {x: 1}, sampleRate: 0.5, sampleSize: 10})
db.c.analyzeShardKey({x: 1}, {sampleRate: 0.5, sampleSize: 10})
db.adminCommand({analyzeShardKey: 'test.nope', key: {x: 1}, keyCharacteristics: false, readWriteDistribution: false})",
    );
    let errors: Vec<String> = outcomes[2..]
        .iter()
        .map(|o| o.result.as_ref().unwrap_err().to_string())
        .collect();
    assert_eq!(
        errors,
        [
            "MongoServerError[InvalidOptions]: Cannot skip analyzing all metrics",
            "MongoServerError[InvalidOptions]: Cannot specify both 'sampleRate' and 'sampleSize'",
            "MongoServerError[InvalidOptions]: Cannot specify both 'sampleRate' and 'sampleSize'",
            "MongoServerError[InvalidOptions]: Cannot skip analyzing all metrics",
        ]
    );
}
