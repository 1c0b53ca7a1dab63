//! A real cluster's metadata through the protocol (`importCluster`): the fixtures of 4.4,
//! 6.0 and 8.0 (`tests/fixtures/cluster/`) sent as files, the session made the cluster's,
//! its changelog's replay a step an entry, and a refused import leaving the session alone.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab_engine::Engine;
use shardlab_protocol::*;
use std::path::Path;

#[path = "support/json_requests.rs"]
mod json_requests;
use json_requests::{call, ok, send};

fn error(answer: Value) -> Value {
    assert!(answer.get("result").is_none(), "no error: {answer}");
    answer["error"].clone()
}

/// A session of 2 shards in 3.6 with a collection of its own, one step long.
fn open(engine: &mut Engine) -> String {
    let (answer, _) = send(
        engine,
        json!({"v": 3, "id": 1, "method": "open", "params": {"kind": "config", "shards": 2, "version": "3.6", "seed": 1}}),
    );
    let s = ok(answer)["session"].as_str().unwrap().to_string();
    ok(call(
        engine,
        &s,
        "run",
        json!({"source": "sh.shardCollection(\"test.mine\", {x: 1})"}),
    ));
    s
}

/// The fixture's files of one era, as `{name, text}`, in the order the directory lists
/// them.
fn fixture(era: &str) -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/cluster")
        .join(era);
    let mut files = Vec::new();
    for place in [dir.join("config"), dir.clone()] {
        let Ok(entries) = std::fs::read_dir(&place) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.is_file()) {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            files.push(json!({"name": name, "text": std::fs::read_to_string(&path).unwrap()}));
        }
    }
    files
}

fn import(engine: &mut Engine, s: &str, files: Vec<Value>) -> Value {
    call(engine, s, "importCluster", json!({ "files": files }))
}

fn position(engine: &mut Engine, s: &str) -> Value {
    ok(call(engine, s, "step", json!({"by": 0})))
}

/// What `sh.status()` printed.
fn status(engine: &mut Engine, s: &str) -> String {
    let r = ok(call(engine, s, "run", json!({"source": "sh.status()"})));
    r["statements"][0]["printed"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A collection's chunks at the cursor as `min on shard`, in key order.
fn chunks(engine: &mut Engine, s: &str, ns: &str) -> Vec<String> {
    let frame = ok(call(engine, s, "frame", json!({"ns": ns, "whole": true})));
    let shards: Vec<String> = frame["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect();
    frame["bar"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let shard = &shards[b["shard"].as_u64().unwrap() as usize];
            format!("{} on {shard}", b["min"].as_str().unwrap())
        })
        .collect()
}

const ORDERS: [&str; 3] = [
    "{ customerId: MinKey(), orderId: MinKey() } on shard01",
    "{ customerId: 'c100', orderId: MinKey() } on shard02",
    "{ customerId: 'c500', orderId: MinKey() } on shard03",
];

/// The fixture of 4.4 with its chunks' text edited.
fn with_chunks(edit: impl Fn(&str) -> String) -> Vec<Value> {
    fixture("v44")
        .into_iter()
        .map(|mut f| {
            if f["name"] == "chunks.json" {
                f["text"] = json!(edit(f["text"].as_str().unwrap()));
            }
            f
        })
        .collect()
}

#[test]
fn every_era_becomes_the_session_with_a_step_for_the_load_and_each_change() {
    for (era, version) in [("v44", "5.0"), ("v60", "5.0"), ("v80", "8.0")] {
        let mut engine = Engine::new();
        let s = open(&mut engine);
        let (answer, events) = send(
            &mut engine,
            json!({"v": 3, "id": 9, "session": s, "method": "importCluster", "params": {"files": fixture(era)}}),
        );
        assert_eq!(answer["method"], "importCluster", "{era}");
        let r = ok(answer);
        // The load, the split, the migration, and the export's jumbo flag; the session's
        // own step (test.mine) is gone with its cluster.
        assert_eq!(
            r,
            json!({
                "position": {"position": 4, "length": 4},
                "ns": ["shop.orders", "shop.users"],
                "version": version,
                "replayed": 2,
                "skipped": [
                    {"what": "moveChunk.start", "count": 1, "reason": "changes no chunk"},
                    {"what": "moveChunk.to", "count": 1, "reason": "changes no chunk"},
                    {"what": "moveChunk.from", "count": 1, "reason": "changes no chunk"}
                ],
                "steps": 4
            }),
            "{era}"
        );
        assert_eq!(events.len(), 1, "{era}: {events:?}");
        assert_eq!(events[0]["event"], "save", "{era}");
        assert_eq!(events[0]["data"]["steps"], 4, "{era}");
        assert_eq!(chunks(&mut engine, &s, "shop.orders"), ORDERS, "{era}");
        assert_eq!(chunks(&mut engine, &s, "shop.users").len(), 3, "{era}");
        let printed = status(&mut engine, &s);
        for line in [
            "'shop.orders': {",
            "shardKey: { customerId: 1, orderId: 1 }",
            "max: { customerId: 'c500', orderId: MinKey() },\n            'on shard': 'shard02',",
            "'shop.users': {",
            "shard03",
        ] {
            assert!(printed.contains(line), "{era}: {line} not in\n{printed}");
        }
        assert!(!printed.contains("test.mine"), "{era}:\n{printed}");
        // The version mode is the era's (3.6's session now runs as the metadata's): its
        // mongos says so.
        let mongos = format!("active mongoses\n[ {{ '{version}.");
        assert!(
            printed.contains(&mongos),
            "{era}: {mongos} not in\n{printed}"
        );
    }
}

#[test]
fn stepping_back_over_the_replay_shows_the_chunks_before_each_change() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    ok(import(&mut engine, &s, fixture("v80")));
    ok(call(&mut engine, &s, "jump", json!({"to": 1})));
    // Before the split: [c100, MaxKey) whole on shard02.
    assert_eq!(
        chunks(&mut engine, &s, "shop.orders"),
        [
            ORDERS[0],
            "{ customerId: 'c100', orderId: MinKey() } on shard02"
        ]
    );
    let back = ok(call(&mut engine, &s, "step", json!({"by": 1})));
    assert_eq!(back, json!({"position": 2, "length": 4}));
    // After the split, before the migration: both pieces on shard02.
    assert_eq!(
        chunks(&mut engine, &s, "shop.orders"),
        [
            ORDERS[0],
            ORDERS[1],
            "{ customerId: 'c500', orderId: MinKey() } on shard02"
        ]
    );
    ok(call(&mut engine, &s, "step", json!({"by": 1})));
    assert_eq!(chunks(&mut engine, &s, "shop.orders"), ORDERS);
    // Before the load: the new session's empty cluster of the metadata's era.
    ok(call(&mut engine, &s, "jump", json!({"to": 0})));
    let frame = ok(call(
        &mut engine,
        &s,
        "frame",
        json!({"ns": "shop.orders", "whole": true}),
    ));
    assert_eq!(frame["sharded"], false, "{frame}");
}

#[test]
fn a_refused_export_names_its_file_and_line_and_leaves_the_session_as_it_was() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let before = position(&mut engine, &s);
    assert_eq!(before, json!({"position": 1, "length": 1}));
    let no_chunks: Vec<Value> = fixture("v44")
        .into_iter()
        .filter(|f| f["name"] != "chunks.json")
        .collect();
    let e = error(import(&mut engine, &s, no_chunks));
    assert_eq!(e["codeName"], "BadValue", "{e}");
    assert_eq!(e["code"], 2, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("chunks.json: the export has no config.chunks"),
        "{e}"
    );
    let overlap = with_chunks(|t| {
        t.replacen(
            r#""max":{"customerId":"c100""#,
            r#""max":{"customerId":"c200""#,
            1,
        )
    });
    let e = error(import(&mut engine, &s, overlap));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "chunks.json: lines 1 and 2: The chunks of shop.orders do not cover its key space"
        ) && message.ends_with("overlap"),
        "{e}"
    );
    let unknown_shard = with_chunks(|t| t.replace("shard03", "shard09"));
    let e = error(import(&mut engine, &s, unknown_shard));
    assert_eq!(
        e["message"],
        "chunks.json, line 3: the field 'shard': Shard shard09 not found in config.shards"
    );
    // Nothing changed: the cursor, the steps and the session's own collection.
    assert_eq!(position(&mut engine, &s), before);
    assert_eq!(
        chunks(&mut engine, &s, "test.mine"),
        ["{ x: MinKey() } on shard01"]
    );
}

#[test]
fn a_file_not_named_for_a_config_collection_is_refused_by_name() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let mut files = fixture("v44");
    files.push(json!({"name": "notes.txt", "text": "hello"}));
    let e = error(import(&mut engine, &s, files));
    assert_eq!(e["codeName"], "BadValue");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with("notes.txt: not a config collection's export")
            && message.contains("shards, databases, collections, chunks, tags, changelog"),
        "{message}"
    );
    // Two files of one collection: the reader names both.
    let mut twice = fixture("v44");
    twice.push(json!({"name": "config.chunks.json", "text": ""}));
    let e = error(import(&mut engine, &s, twice));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("config.chunks was read already, from chunks.json"),
        "{e}"
    );
    let e = error(import(&mut engine, &s, Vec::new()));
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("at least shards.json"),
        "{e}"
    );
    assert_eq!(
        position(&mut engine, &s),
        json!({"position": 1, "length": 1})
    );
}

#[test]
fn a_gz_name_with_a_path_is_read_as_the_text_a_view_inflated() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let mut files = fixture("v44");
    assert_eq!(files[1]["name"], "chunks.json");
    files[1]["name"] = json!("dump/config/chunks.json.gz");
    let r = ok(import(&mut engine, &s, files));
    assert_eq!(r["ns"], json!(["shop.orders", "shop.users"]));
}

#[test]
fn texts_past_the_limit_are_refused_naming_it() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let half = " ".repeat(MAX_CLUSTER_IMPORT_BYTES / 2);
    let call = Call::ImportCluster {
        files: vec![
            MetadataFile {
                name: "chunks.json".into(),
                text: half.clone(),
            },
            MetadataFile {
                name: "shards.json".into(),
                text: half + " ",
            },
        ],
    };
    let handled = engine.handle(Request::new(2, Some(&s), call));
    let Outcome::Error(method, e) = handled.response.outcome else {
        panic!("imported past the limit");
    };
    assert_eq!(method.as_deref(), Some("importCluster"));
    assert_eq!(e.code_name, "BadValue");
    assert_eq!(
        e.message,
        format!(
            "the config exports are {} bytes together, over importCluster's limit of 64 MiB ({MAX_CLUSTER_IMPORT_BYTES} bytes)",
            MAX_CLUSTER_IMPORT_BYTES + 1
        )
    );
    assert_eq!(
        position(&mut engine, &s),
        json!({"position": 1, "length": 1})
    );
}

#[test]
fn a_playground_session_shows_the_imported_collection() {
    let mut engine = Engine::new();
    let (answer, _) = send(
        &mut engine,
        json!({"v": 3, "id": 1, "method": "open", "params": {"kind": "lesson", "id": "monotonic"}}),
    );
    let p = ok(answer)["session"].as_str().unwrap().to_string();
    ok(import(&mut engine, &p, fixture("v80")));
    let view = ok(call(&mut engine, &p, "page.act", json!({"kind": "look"})));
    assert_eq!(view["frame"]["ns"], "shop.orders", "{view}");
    assert_eq!(view["frame"]["chunks"], 3);
    let listed: Vec<&str> = view["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ns"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["shop.orders", "shop.users"]);
}
