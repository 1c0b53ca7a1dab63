//! A `sh.status({verbose: true})` printout through the protocol (`importCluster`): the
//! fixtures of `tests/fixtures/cluster/status/` sent as one file, known by its text
//! whatever its name; the session made the printed cluster in one step; a printout mixed
//! with config exports, two printouts, or one that leaves chunks out refused, leaving the
//! session as it was.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab_engine::Engine;
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

fn printout(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/cluster/status")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn import(engine: &mut Engine, s: &str, files: Value) -> Value {
    call(engine, s, "importCluster", json!({ "files": files }))
}

/// A collection's chunks at the cursor as `min -> shard`, in key order.
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

#[test]
fn a_printout_alone_becomes_the_session_in_one_step_whatever_its_name() {
    for (name, ns, version) in [
        ("mongosh-v80.txt", "shop.orders", "8.0"),
        ("mongosh1-v44.txt", "app.events", "5.0"),
        ("legacy-v44.txt", "app.events", "5.0"),
    ] {
        let mut engine = Engine::new();
        let s = open(&mut engine);
        // Named as if it were an export: the text, not the name, says what it is.
        let r = ok(import(
            &mut engine,
            &s,
            json!([{"name": "chunks.json", "text": printout(name)}]),
        ));
        assert_eq!(r["version"], version, "{name}: {r}");
        assert_eq!(r["steps"], 1, "{name}: {r}");
        assert_eq!(r["replayed"], 0, "{name}: {r}");
        assert_eq!(r["position"], json!({"position": 1, "length": 1}), "{name}");
        assert!(
            r["ns"].as_array().unwrap().contains(&json!(ns)),
            "{name}: {r}"
        );
    }
    let mut engine = Engine::new();
    let s = open(&mut engine);
    ok(import(
        &mut engine,
        &s,
        json!([{"name": "status.txt", "text": printout("mongosh-v80.txt")}]),
    ));
    assert_eq!(
        chunks(&mut engine, &s, "shop.orders"),
        [
            "{ customerId: MinKey(), orderId: MinKey() } on shard01",
            "{ customerId: 'c100', orderId: MinKey() } on shard02",
            "{ customerId: 'c500', orderId: MinKey() } on shard03",
        ]
    );
    assert_eq!(
        chunks(&mut engine, &s, "shop.users"),
        [
            "{ _id: MinKey() } on shard01",
            "{ _id: Long('-3074457345618258602') } on shard02",
            "{ _id: Long('3074457345618258602') } on shard03",
        ]
    );
}

#[test]
fn a_printout_mixed_with_exports_or_cut_short_is_refused_and_changes_nothing() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let status = printout("mongosh-v80.txt");
    let e = error(import(
        &mut engine,
        &s,
        json!([
            {"name": "status.txt", "text": status},
            {"name": "shards.json", "text": "{\"_id\": \"shard01\", \"host\": \"h:1\"}"}
        ]),
    ));
    assert_eq!(e["codeName"], "BadValue", "{e}");
    assert_eq!(
        e["message"],
        "status.txt is a sh.status() printout and shards.json a config export: the two cannot be mixed, import one of them"
    );
    let e = error(import(
        &mut engine,
        &s,
        json!([{"name": "a.txt", "text": status}, {"name": "b.txt", "text": status}]),
    ));
    assert_eq!(
        e["message"],
        "a.txt and b.txt are both sh.status() printouts: import one"
    );
    // What mongosh prints without {verbose: true} for a collection of 20 chunks or more.
    let cut = status.replacen(
        "          { min: { _id: Long('3074457345618258602') }",
        "          'too many chunks to print, use verbose if you want to force print',\n          { min: { _id: Long('3074457345618258602') }",
        1,
    );
    let e = error(import(
        &mut engine,
        &s,
        json!([{"name": "status.txt", "text": cut}]),
    ));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.starts_with("status.txt, line 164: shop.users: the printout leaves chunks out ('too many chunks to print, use verbose if you want to force print'): print it again with sh.status({verbose: true})"),
        "{message}"
    );
    assert_eq!(
        ok(call(&mut engine, &s, "step", json!({"by": 0}))),
        json!({"position": 1, "length": 1})
    );
    assert_eq!(
        chunks(&mut engine, &s, "test.mine"),
        ["{ x: MinKey() } on shard01"]
    );
}
