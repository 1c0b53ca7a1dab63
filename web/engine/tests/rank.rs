//! `rank` through the protocol: candidate shard keys ranked on a collection's documents at
//! the session's cursor, the session left as it was.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab_engine::Engine;
use shardlab_protocol::*;

fn call(engine: &mut Engine, session: Option<&str>, method: &str, params: Value) -> Value {
    let request: Request = serde_json::from_value(
        json!({"v": 3, "id": 1, "session": session, "method": method, "params": params}),
    )
    .expect("a request");
    serde_json::to_value(engine.handle(request).response).unwrap()
}

fn ok(answer: Value) -> Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    answer["result"].clone()
}

/// A 3-shard 5.0 cluster with 64 KiB chunks.
fn open(engine: &mut Engine) -> String {
    let opened = ok(call(
        engine,
        None,
        "open",
        json!({"kind": "config", "shards": 3, "version": "5.0", "chunkSize": 65536, "seed": 7}),
    ));
    opened["session"].as_str().unwrap().to_string()
}

fn run(engine: &mut Engine, s: &str, source: &str) {
    let r = ok(call(engine, Some(s), "run", json!({"source": source})));
    for st in r["statements"].as_array().unwrap() {
        assert_eq!(st["ok"], true, "{st}");
    }
}

fn rank(engine: &mut Engine, s: &str, params: Value) -> Value {
    call(engine, Some(s), "rank", params)
}

/// `x` grows with insertion order: 3,000 documents of about 170 bytes.
const MONOTONIC: &str = "sim.generate(\"test.events\", \"monotonic\", 3000)";

/// An engine with a session holding [`MONOTONIC`]'s documents in `test.events`.
fn monotonic() -> (Engine, String) {
    let mut e = Engine::new();
    let s = open(&mut e);
    run(&mut e, &s, MONOTONIC);
    (e, s)
}

fn reason<'a>(candidate: &'a Value, measure: &str) -> &'a Value {
    candidate["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["measure"] == measure)
        .unwrap_or_else(|| panic!("no {measure} reason: {candidate}"))
}

#[test]
fn a_monotonic_key_ranks_below_its_hash_and_loses_on_monotonic_change() {
    let (mut e, s) = monotonic();
    let r = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}", "{x: 'hashed'}"]}),
    ));
    assert_eq!(r["documents"], 3000, "{r}");
    assert_eq!(r["shards"], 3);
    assert_eq!(r["version"], "5.0");
    // The smaller of the ranking's 1 MB and the session's 64 KiB.
    assert_eq!(r["chunkSizeBytes"], 65536);
    assert_eq!(r["position"], 1);
    let keys: Vec<&str> = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["{ x: \"hashed\" }", "{ x: 1 }"]);
    let (hashed, ranged) = (&r["candidates"][0], &r["candidates"][1]);
    assert_eq!(hashed["place"], 1);
    assert_eq!(ranged["place"], 2);
    assert_eq!(ranged["why"]["id"], "rank.given");
    assert_eq!(ranged["figures"]["monotonic"], "monotonic", "{ranged}");
    assert_eq!(ranged["figures"]["distinct"], 3000);
    assert!(
        ranged["figures"]["chunks"].as_u64().unwrap() > 1,
        "{ranged}"
    );
    let monotonic = reason(ranged, "monotonicChange");
    assert_eq!(monotonic["verdict"], "loses");
    assert_eq!(monotonic["id"], "rank.monotonic");
    assert!(
        monotonic["message"]
            .as_str()
            .unwrap()
            .starts_with("Monotonic change: analyzeShardKey finds it monotonic"),
        "{monotonic}"
    );
    // The message's arguments cross as name/value pairs.
    assert_eq!(monotonic["args"][0][0], "r", "{monotonic}");
    assert_eq!(reason(hashed, "monotonicChange")["verdict"], "wins");
    // The monotonic key sends the latest inserts to one shard; the hash spreads them.
    assert_eq!(reason(ranged, "recentInserts")["verdict"], "loses");
    assert_eq!(reason(hashed, "recentInserts")["verdict"], "wins");
    assert!(
        ranged["figures"]["hottestRecentShare"].as_f64().unwrap()
            > hashed["figures"]["hottestRecentShare"].as_f64().unwrap()
    );
    let per_shard = hashed["figures"]["docsPerShard"].as_array().unwrap();
    assert_eq!(per_shard.len(), 3, "{hashed}");
    let monotonic_order = r["orders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["measure"] == "monotonicChange")
        .unwrap();
    assert_eq!(
        monotonic_order["keys"],
        json!(["{ x: \"hashed\" }", "{ x: 1 }"])
    );
    // The same request answers the same ranking.
    let again = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}", "{x: 'hashed'}"]}),
    ));
    assert_eq!(again, r);
}

#[test]
fn without_keys_the_core_proposes_the_candidates() {
    let (mut e, s) = monotonic();
    let r = ok(rank(&mut e, &s, json!({"ns": "test.events", "keys": []})));
    let candidates = r["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty(), "{r}");
    for c in candidates {
        let id = c["why"]["id"].as_str().unwrap();
        assert!(id.starts_with("rank.proposed."), "{c}");
        assert!(!c["why"]["message"].as_str().unwrap().is_empty());
    }
    // Leaving `keys` out is the same request.
    assert_eq!(ok(rank(&mut e, &s, json!({"ns": "test.events"}))), r);
}

#[test]
fn the_options_reach_each_candidates_cluster() {
    let (mut e, s) = monotonic();
    let r = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}"], "shards": 2, "version": "8.0",
               "chunkSizeMB": 2, "sortBy": "ts"}),
    ));
    assert_eq!(r["shards"], 2, "{r}");
    assert_eq!(r["version"], "8.0");
    assert_eq!(r["chunkSizeBytes"], 2 << 20);
    assert_eq!(
        r["candidates"][0]["figures"]["docsPerShard"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn a_key_mongodb_refuses_is_its_error_and_bad_requests_are_bad_values() {
    let (mut e, s) = monotonic();
    let refused = rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}", "{x: 'hashed', y: 'hashed'}"]}),
    );
    assert_eq!(refused["method"], "rank");
    let error = &refused["error"];
    // MongoDB's code and words for it (shardCollection's).
    assert_eq!(error["code"], 2, "{refused}");
    assert_eq!(error["codeName"], "BadValue", "{refused}");
    assert!(
        error["message"].as_str().unwrap().starts_with(
            "{ x: \"hashed\", y: \"hashed\" }: Shard key { x: \"hashed\", y: \"hashed\" } \
             can contain at most one 'hashed' field"
        ),
        "{refused}"
    );
    let not_a_key = rank(&mut e, &s, json!({"ns": "test.events", "keys": ["5"]}));
    assert_eq!(not_a_key["error"]["codeName"], "BadValue", "{not_a_key}");
    let unreadable = rank(&mut e, &s, json!({"ns": "test.events", "keys": ["{x: "]}));
    assert_eq!(unreadable["error"]["codeName"], "BadValue", "{unreadable}");
    let missing = rank(&mut e, &s, json!({"ns": "test.nothing"}));
    assert_eq!(
        missing["error"]["codeName"], "NamespaceNotFound",
        "{missing}"
    );
    let too_many: Vec<String> = (0..=MAX_RANK_KEYS)
        .map(|i| format!("{{f{i}: 1}}"))
        .collect();
    let many = rank(&mut e, &s, json!({"ns": "test.events", "keys": too_many}));
    assert_eq!(many["error"]["codeName"], "BadValue", "{many}");
    for params in [
        json!({"ns": "test.events", "shards": 0}),
        json!({"ns": "test.events", "shards": 65}),
        json!({"ns": "test.events", "chunkSizeMB": 0}),
        json!({"ns": "test.events", "chunkSizeMB": 1025}),
        json!({"ns": "test.events", "version": "9.9"}),
        json!({"ns": "test.events", "keys": ["x".repeat(MAX_FIELD_BYTES + 1)]}),
    ] {
        let answer = rank(&mut e, &s, params.clone());
        assert_eq!(
            answer["error"]["codeName"], "BadValue",
            "{params}: {answer}"
        );
    }
    // A session is required.
    let nameless = call(&mut e, None, "rank", json!({"ns": "test.events"}));
    assert_eq!(nameless["error"]["codeName"], "BadValue");
}

#[test]
fn ranking_leaves_the_session_as_it_was() {
    let (mut e, s) = monotonic();
    run(&mut e, &s, "sh.shardCollection(\"test.events\", {_id: 1})");
    // The cursor one step back: the documents are read there, before the sharding.
    ok(call(&mut e, Some(&s), "step", json!({"by": -1})));
    let whole = json!({"ns": "test.events", "whole": true});
    let frame = ok(call(&mut e, Some(&s), "frame", whole.clone()));
    let link = ok(call(&mut e, Some(&s), "scenario", json!({})));
    let r = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{_id: 1}"]}),
    ));
    assert_eq!(r["position"], 1);
    assert_eq!(r["documents"], 3000);
    let cursor = ok(call(&mut e, Some(&s), "step", json!({"by": 0})));
    assert_eq!(cursor, json!({"position": 1, "length": 2}));
    assert_eq!(ok(call(&mut e, Some(&s), "frame", whole)), frame);
    assert_eq!(ok(call(&mut e, Some(&s), "scenario", json!({}))), link);
    // At the end, the sharded collection's documents are read in insertion order still:
    // the ranking is the same as before the sharding.
    ok(call(&mut e, Some(&s), "step", json!({"by": 1})));
    let sharded = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{_id: 1}"]}),
    ));
    assert_eq!(sharded["candidates"], r["candidates"]);
}

#[test]
fn a_collection_over_the_bounds_is_refused() {
    let mut e = Engine::new();
    let s = open(&mut e);
    // 4,000 documents of 17 kB (in two calls, each under sim.generate's 64 MiB): past
    // MAX_RANK_BYTES (64 MiB), well under the document bound.
    for _ in 0..2 {
        run(
            &mut e,
            &s,
            "sim.generate(\"test.big\", {x: \"increasing\", payload: {gen: \"padding\", bytes: 17000}}, 2000)",
        );
    }
    let big = rank(&mut e, &s, json!({"ns": "test.big", "keys": ["{x: 1}"]}));
    assert_eq!(big["error"]["codeName"], "IllegalOperation", "{big}");
    assert!(
        big["error"]["message"]
            .as_str()
            .unwrap()
            .contains("rank replays at most 200000 documents and 67108864 bytes"),
        "{big}"
    );
    // One document past MAX_RANK_DOCUMENTS (sim.generate makes 100,000 a call).
    assert_eq!(MAX_RANK_DOCUMENTS, 200_000);
    let generate = |n: u32| format!("sim.generate(\"test.many\", {{x: \"increasing\"}}, {n});");
    run(
        &mut e,
        &s,
        &[generate(100_000), generate(100_000), generate(1)].concat(),
    );
    let many = rank(&mut e, &s, json!({"ns": "test.many", "keys": ["{x: 1}"]}));
    assert_eq!(many["error"]["codeName"], "IllegalOperation", "{many}");
    assert!(
        many["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("test.many holds 200001 documents"),
        "{many}"
    );
}

#[test]
fn the_protocol_takes_as_many_keys_as_the_core_ranks() {
    assert_eq!(MAX_RANK_KEYS, shardlab::sim::MAX_CANDIDATES);
}

/// A query sample of the page's: two bare filters on `x`, a line cut short, and two
/// `config.sampledQueries` documents as mongoexport writes them.
const QUERIES: &str = r#"{"x": 5}
{"x": {"$gte": 100, "$lt": 200}}
{"x":
{"ns": "app.events", "cmdName": "count", "cmd": {"filter": {"ts": {"$exists": true}}, "collation": {}}}
{"ns": "app.events", "cmdName": "update", "cmd": {"update": "events", "updates": [{"q": {"payload": "a"}, "u": {"$set": {"x": 1}}, "multi": true}], "$db": "app"}}
"#;

#[test]
fn a_query_sample_gives_each_candidate_its_read_and_write_distribution() {
    let (mut e, s) = monotonic();
    let r = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}", "{x: 'hashed'}"], "queries": QUERIES}),
    ));
    let q = &r["queries"];
    assert_eq!(
        (&q["records"], &q["reads"], &q["writes"], &q["failed"]),
        (&json!(5), &json!(3), &json!(1), &json!(1)),
        "{q}"
    );
    assert_eq!(q["failures"][0]["line"], 3);
    let ranged = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "{ x: 1 }")
        .unwrap();
    let read = &ranged["figures"]["readDistribution"];
    // x 5: one shard; a range of x: some shards; a filter without x: every shard.
    assert_eq!(
        read["sampleSize"],
        json!({"total": 3, "find": 2, "aggregate": 0, "count": 1, "distinct": 0})
    );
    assert_eq!(read["percentageOfSingleShardReads"], 33.3333333333);
    assert_eq!(read["percentageOfMultiShardReads"], 33.3333333333);
    assert_eq!(read["percentageOfScatterGatherReads"], 33.3333333333);
    assert_eq!(read["numReadsByRange"].as_array().unwrap().len(), 100);
    let write = &ranged["figures"]["writeDistribution"];
    assert_eq!(write["sampleSize"]["update"], 1);
    // An updateMany without x that sets x: scatter-gather, a multi write without the
    // shard key, and a shard key update.
    assert_eq!(write["percentageOfScatterGatherWrites"], 100.0);
    assert_eq!(write["percentageOfMultiWritesWithoutShardKey"], 100.0);
    assert_eq!(write["percentageOfShardKeyUpdates"], 100.0);
    let reads = reason(ranged, "readDistribution");
    assert_eq!(reads["verdict"], "neutral", "{reads}");
    assert_eq!(reads["id"], "rank.reads.mixed");
    assert_eq!(
        reason(ranged, "writeDistribution")["id"],
        "rank.writes.scatter"
    );
    // The hashed key scatters the range: the ranged key is first on reads.
    let orders = r["orders"].as_array().unwrap();
    let by_reads = orders
        .iter()
        .find(|o| o["measure"] == "readDistribution")
        .unwrap();
    assert_eq!(by_reads["keys"], json!(["{ x: 1 }", "{ x: \"hashed\" }"]));
    // Without a sample, nothing of it.
    let plain = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}"]}),
    ));
    assert!(plain["queries"].is_null());
    assert!(plain["candidates"][0]["figures"]["readDistribution"].is_null());
}

#[test]
fn a_bad_query_sample_is_a_bad_value() {
    let (mut e, s) = monotonic();
    let too_big = "{}\n".repeat(MAX_RANK_QUERIES_BYTES / 3 + 1);
    let big = rank(&mut e, &s, json!({"ns": "test.events", "queries": too_big}));
    assert_eq!(big["error"]["codeName"], "BadValue", "{}", big["error"]);
    let two = concat!(
        r#"{"ns": "a.b", "cmdName": "find", "cmd": {"filter": {}}}"#,
        "\n",
        r#"{"ns": "c.d", "cmdName": "find", "cmd": {"filter": {}}}"#
    );
    let mixed = rank(&mut e, &s, json!({"ns": "test.events", "queries": two}));
    assert_eq!(
        mixed["error"]["message"],
        "the query sample: the query file holds sampled queries of 2 collections (a.b, c.d): choose one namespace"
    );
    let chosen = ok(rank(
        &mut e,
        &s,
        json!({"ns": "test.events", "keys": ["{x: 1}"], "queries": two, "queriesNs": "c.d"}),
    ));
    assert_eq!(chosen["queries"]["leftOut"], 1);
    assert_eq!(chosen["queries"]["reads"], 1);
}

#[test]
fn the_protocol_reads_as_large_a_query_sample_as_the_core() {
    assert_eq!(
        MAX_RANK_QUERIES_BYTES,
        shardlab::workload::MAX_QUERY_FILE_BYTES
    );
}
