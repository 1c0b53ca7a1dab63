//! "Export for mongosh" (`sim::export`): a session's commands as a mongosh script for a
//! real sharded cluster. The script, run back through ShardLab's own shell, gives the
//! same documents and shard keys; it calls only what mongosh has, with no `sim.` helper
//! left outside comments; values keep their BSON types; an empty session and hostile
//! values give answers, not crashes.

#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::sim::{export_scenario, ExportError, Timeline};
use shardlab::Session;
use shardlab::{ClusterConfig, VersionMode};

/// mongosh's shell API, by the method names its source declares: `sh` in
/// packages/shell-api/src/shard.ts; `db` in database.ts (with `getSiblingDB` and
/// `getCollection`, declared there with type parameters); a collection in
/// collection.ts; cursors in cursor.ts, abstract-cursor.ts (`toArray`) and
/// aggregate-or-find-cursor.ts; the globals of shell-api.ts (`sleep`, `print`, `use`);
/// and the BSON constructors of packages/shell-bson/src/shell-bson.ts (with
/// `Binary.createFromBase64`, js-bson's).
const MONGOSH_API: &[&str] = &[
    // shard.ts
    "addShard",
    "addShardToZone",
    "addTagRange",
    "balancerCollectionStatus",
    "disableAutoMerger",
    "disableAutoSplit",
    "disableBalancing",
    "enableAutoMerger",
    "enableAutoSplit",
    "enableBalancing",
    "enableSharding",
    "getBalancerState",
    "getShardedDataDistribution",
    "isBalancerRunning",
    "moveChunk",
    "moveRange",
    "removeRangeFromZone",
    "removeShardFromZone",
    "reshardCollection",
    "setBalancerState",
    "shardCollection",
    "splitAt",
    "splitFind",
    "startAutoMerger",
    "startBalancer",
    "status",
    "stopAutoMerger",
    "stopBalancer",
    "updateZoneKeyRange",
    // database.ts
    "adminCommand",
    "aggregate",
    "createCollection",
    "dropDatabase",
    "getCollection",
    "getCollectionNames",
    "getName",
    "getSiblingDB",
    "runCommand",
    "stats",
    // collection.ts
    "analyzeShardKey",
    "configureQueryAnalyzer",
    "count",
    "countDocuments",
    "createIndex",
    "deleteMany",
    "deleteOne",
    "distinct",
    "drop",
    "estimatedDocumentCount",
    "explain",
    "find",
    "findOne",
    "findOneAndUpdate",
    "getShardDistribution",
    "insertMany",
    "insertOne",
    "replaceOne",
    "updateMany",
    "updateOne",
    // cursor.ts, abstract-cursor.ts, aggregate-or-find-cursor.ts
    "hint",
    "itcount",
    "limit",
    "skip",
    "sort",
    "toArray",
    // shell-api.ts
    "print",
    "printjson",
    "sleep",
    // shell-bson.ts
    "BinData",
    "Binary",
    "createFromBase64",
    "Decimal128",
    "Double",
    "ISODate",
    "Int32",
    "Long",
    "MaxKey",
    "MinKey",
    "NumberDecimal",
    "NumberInt",
    "NumberLong",
    "ObjectId",
    "Timestamp",
    "UUID",
];

/// A session's steps, made from `config` and exported.
fn export(config: ClusterConfig, steps: &[&str]) -> Result<String, ExportError> {
    let mut timeline = Timeline::new(config);
    for step in steps {
        timeline.push(step);
    }
    export_scenario(&timeline.to_scenario())
}

/// The session after `steps`, run as the playground runs them.
fn session_after(config: ClusterConfig, steps: &[&str]) -> Session {
    let mut timeline = Timeline::new(config);
    for step in steps {
        timeline.push(step);
    }
    timeline.session().clone()
}

/// Runs `script` in a new session of `config`; every statement must succeed.
fn run_back(config: ClusterConfig, script: &str) -> Session {
    let mut session = Session::new(config);
    for outcome in session.run(script) {
        if let Err(e) = &outcome.result {
            panic!("{} failed: {e}", outcome.source);
        }
    }
    session
}

/// Each collection's documents (sorted by their BSON bytes, so exact in type and field
/// order) and its shard key.
fn contents(session: &Session) -> Vec<(String, Vec<Vec<u8>>, Option<Document>)> {
    session
        .cluster
        .collections()
        .iter()
        .filter(|(ns, _)| !ns.starts_with("config."))
        .map(|(ns, coll)| {
            let mut docs: Vec<Vec<u8>> = coll.documents().map(|d| d.to_vec().unwrap()).collect();
            docs.sort();
            let key = session
                .cluster
                .sharding(ns)
                .ok()
                .map(|s| s.pattern.to_pattern_document());
            (ns.clone(), docs, key)
        })
        .collect()
}

fn config() -> ClusterConfig {
    ClusterConfig {
        shards: 3,
        version: VersionMode::V80,
        chunk_size: Some(1 << 20),
        seed: 7,
    }
}

/// Generated workloads on two collections, a chunk size change, balancer rounds, and
/// helpers that only look.
const SCENARIO: &[&str] = &[
    "sh.enableSharding(\"shop\")",
    "sh.shardCollection(\"shop.orders\", {customerId: 1})",
    "sim.generate(\"shop.orders\", {customerId: {gen: \"uniformInt\", min: 0, max: 1000}, \
     ts: \"date\", ref: \"uuid\", region: \"continent\", payload: {gen: \"padding\", bytes: 40}}, 1500)",
    "sim.chunkSize(2 * 1024 * 1024)",
    "sim.balance(); sim.balance()",
    "sh.shardCollection(\"shop.events\", {_id: \"hashed\"})",
    "sim.generate(\"shop.events\", \"objectIds\", 300); sim.clock(); sim.events(3)",
    "db.getSiblingDB(\"shop\").orders.insertOne({_id: \"by hand\", customerId: 5})",
    "sim.generate(\"shop.orders\", {customerId: {gen: \"uniformInt\", min: 0, max: 1000}, \
     ts: \"date\", ref: \"uuid\", region: \"continent\", payload: {gen: \"padding\", bytes: 40}}, 700)",
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_exported_script_gives_the_same_documents_and_shard_keys() {
    let script = export(config(), SCENARIO).unwrap();
    let original = session_after(config(), SCENARIO);
    let copy = run_back(config(), &script);
    let (a, b) = (contents(&original), contents(&copy));
    assert_eq!(
        a.iter()
            .map(|(ns, d, k)| (ns, d.len(), k))
            .collect::<Vec<_>>(),
        b.iter()
            .map(|(ns, d, k)| (ns, d.len(), k))
            .collect::<Vec<_>>()
    );
    assert_eq!(a.iter().map(|c| c.1.len()).sum::<usize>(), 2501);
    assert!(a == b, "the documents differ");
    // The chunk size is set as MongoDB's manual sets it, the scenario's first size first.
    let chunk = |mb: u32| {
        format!(
            "db.getSiblingDB(\"config\").settings.updateOne({{_id: \"chunksize\"}}, \
             {{$set: {{_id: \"chunksize\", value: {mb}}}}}, {{upsert: true}});"
        )
    };
    let first = script.find(&chunk(1)).unwrap();
    assert!(script[first..].contains(&chunk(2)));
    assert_eq!(copy.cluster.chunk_size(), 2 << 20);
    // The balancer rounds are waits with a comment saying why, not commands that do not exist.
    assert_eq!(script.matches("sleep(10000);").count(), 2);
    assert!(script.contains("MongoDB has no command that runs one round"));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_header_says_what_cluster_the_script_needs_and_how_to_start_one() {
    let script = export(config(), SCENARIO).unwrap();
    let header: Vec<&str> = script.lines().take_while(|l| l.starts_with("//")).collect();
    let header = header.join("\n");
    assert!(
        header.contains("a sharded cluster of 3 shard(s)"),
        "{header}"
    );
    assert!(header.contains("MongoDB 8.0's mode"), "{header}");
    assert!(header.contains("shop.events, shop.orders (so it is safe to run again)"));
    assert!(header.contains(
        "npx mongodb-runner exec -t sharded --shards 3 --version 8.0.x -- sh -c 'mongosh \"$MONGODB_URI\" this-script.js'"
    ));
    // It drops what it creates before anything else, so it can run twice.
    let body = &script[header.len()..];
    let first_command = body
        .lines()
        .find(|l| !l.is_empty() && !l.starts_with("//"))
        .unwrap();
    assert_eq!(
        first_command,
        "db.getSiblingDB(\"shop\").getCollection(\"events\").drop();"
    );
    let mut twice = run_back(config(), &script);
    twice.run(&script);
    assert!(contents(&twice) == contents(&run_back(config(), &script)));
}

/// The names a line of script calls: each identifier followed by `(`.
fn called_names(line: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let bytes = line.as_bytes();
    let mut start = None;
    let (mut quote, mut escaped) = (None, false);
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        let ident = b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if b == b'(' {
                    names.push(&line[s..i]);
                }
                start = None;
            }
            _ => {}
        }
        if matches!(b, b'\'' | b'"' | b'`') {
            quote = Some(b);
        }
    }
    names
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_script_calls_only_what_mongosh_has_and_no_sim_helper() {
    let script = export(config(), SCENARIO).unwrap();
    let mut commands = 0;
    for line in script.lines().filter(|l| !l.trim_start().starts_with("//")) {
        assert!(
            !line.contains("sim."),
            "a sim. helper outside a comment: {line}"
        );
        for name in called_names(line) {
            assert!(
                MONGOSH_API.contains(&name),
                "{name} is not mongosh's, in: {}",
                &line[..line.len().min(200)]
            );
            commands += 1;
        }
    }
    assert!(commands > 2000, "{commands}");
    // Each sim. helper is still named, in a comment.
    for helper in ["sim.chunkSize", "sim.balance", "sim.clock", "sim.events"] {
        assert!(
            script.contains(&format!("// ShardLab: {helper}")),
            "{helper}"
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn values_keep_their_types_through_the_script() {
    let document = doc! {
        "_id": bson::oid::ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").unwrap(),
        "when": bson::DateTime::from_millis(1_700_000_000_123),
        "big": 9_007_199_254_740_993_i64,
        "small": 5_i64,
        "int": 7,
        "whole": 2.0,
        "half": 0.5,
        "minusZero": -0.0,
        "price": Bson::Decimal128("1.10".parse().unwrap()),
        "bin": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1, 2, 3] }),
        "uuid": Bson::Binary(bson::Binary { subtype: bson::spec::BinarySubtype::Uuid, bytes: (0..16).collect() }),
        "text": "it's \"quoted\"\nnew line, tab\t, é, ✓, 😀, `tick` ${x}",
        "nested": { "list": [1, { "deep": [true, Bson::Null] }], "lo": Bson::MinKey, "hi": Bson::MaxKey },
        "ts": Bson::Timestamp(bson::Timestamp { time: 5, increment: 6 }),
    };
    // The form an import's step has: canonical Extended JSON, which mongosh would not read.
    let step = format!(
        "db.v.insertMany([{}], {{ordered: false}})",
        shardlab::shell::to_canonical_ejson(&Bson::Document(document.clone()))
    );
    let config = ClusterConfig::default();
    let script = export(config.clone(), &[step.as_str()]).unwrap();
    assert!(
        !script.contains("$oid") && !script.contains("$numberLong"),
        "{script}"
    );
    for form in [
        "ObjectId('65a1b2c3d4e5f60718293a4b')",
        "ISODate('2023-11-14T22:13:20.123Z')",
        "Long('9007199254740993')",
        "Double(2)",
        "Double(-0)",
        "Decimal128('1.10')",
        "Binary.createFromBase64('AQID', 0)",
        "UUID('00010203-0405-0607-0809-0a0b0c0d0e0f')",
        "MinKey()",
        "MaxKey()",
    ] {
        assert!(script.contains(form), "{form} in {script}");
    }
    let copy = run_back(config, &script);
    let stored: Vec<Document> = copy
        .cluster
        .collection("test.v")
        .unwrap()
        .documents()
        .collect();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].to_vec().unwrap(), document.to_vec().unwrap());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_session_with_nothing_to_export_says_so() {
    let none = export(ClusterConfig::default(), &[]).unwrap_err();
    assert_eq!(none, ExportError::Nothing);
    assert!(
        none.to_string().starts_with("nothing to export: "),
        "{none}"
    );
    // Helpers that only look are comments, which a real cluster has nothing to run for.
    let looking = export(ClusterConfig::default(), &["sim.clock()", "sim.events(5)"]);
    assert_eq!(looking.unwrap_err(), ExportError::Nothing);
    // A statement that failed in ShardLab is left out, in a comment naming its error.
    let failed = export(
        ClusterConfig::default(),
        &["db.c.insertOne({_id: 1})", "db.c.insertOne({_id: 1})"],
    )
    .unwrap();
    assert!(failed.contains("// Left out: in ShardLab this failed with MongoServerError: E11000"));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn hostile_values_do_not_break_the_exporter() {
    // A document nested as deep as a value may be, and the largest generated filler.
    let mut deep = Bson::Int32(1);
    for _ in 0..200 {
        deep = Bson::Document(doc! { "a": deep });
    }
    let printed = shardlab::shell::format_script_value(&deep);
    assert_eq!(printed.matches("a:").count(), 200);
    let steps = [
        "let d = {v: 1}; for (let i = 0; i < 150; i++) { d = {a: d} }; db.deep.insertOne(d)",
        "sim.generate(\"test.big\", {payload: {gen: \"padding\", bytes: 1000000}}, 3)",
        "db.huge.insertOne({_id: 1, s: \"x\".repeat(4 * 1024 * 1024)})",
    ];
    let script = export(ClusterConfig::default(), &steps).unwrap();
    let original = session_after(ClusterConfig::default(), &steps);
    let copy = run_back(ClusterConfig::default(), &script);
    assert!(contents(&original) == contents(&copy));
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_cli_writes_the_script_or_says_there_is_nothing() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("shardlab-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scenario.js");
    std::fs::write(
        &file,
        "sh.shardCollection(\"test.events\", {x: 1})\nsim.generate(\"test.events\", \"monotonic\", 20)\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .args(["export", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(script.starts_with("// A ShardLab scenario, exported for mongosh"));
    let copy = run_back(ClusterConfig::default(), &script);
    assert_eq!(
        copy.cluster.collection("test.events").unwrap().doc_count(),
        20
    );
    std::fs::write(&file, "sim.clock()\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .args(["export", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("shardlab: nothing to export"));
    let _ = std::fs::remove_dir_all(&dir);
}
