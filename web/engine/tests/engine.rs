//! The engine driven through the protocol, as a view would drive it: JSON in, JSON out.
// A test fails loudly on a missing field; that is what unwrap is for here.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab::sim::Timeline;
use shardlab_engine::Engine;
use shardlab_protocol::*;

/// Sends one request written as JSON and returns the answer and events as JSON.
fn send(engine: &mut Engine, request: Value) -> (Value, Vec<Value>) {
    let request: Request = serde_json::from_value(request).expect("a request");
    let handled = engine.handle(request);
    let out = |m: FromEngine| serde_json::to_value(m).expect("serialises");
    (
        out(FromEngine::Answer(handled.response)),
        handled
            .events
            .into_iter()
            .map(FromEngine::Event)
            .map(out)
            .collect(),
    )
}

fn call(engine: &mut Engine, session: &str, method: &str, params: Value) -> Value {
    let (answer, _) = send(
        engine,
        json!({"v": 1, "id": 1, "session": session, "method": method, "params": params}),
    );
    answer
}

fn result(answer: Value) -> Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    answer["result"].clone()
}

fn open(engine: &mut Engine, session: &str) {
    let params =
        json!({"from": "config", "shards": 3, "version": "5.0", "chunkSize": 65536, "seed": 7});
    result(call(engine, session, "open", params));
}

const SETUP: &str = "sh.shardCollection(\"test.events\", {x: 1}); sim.generate(\"test.events\", \"monotonic\", 8000)";

#[test]
fn hello_names_the_version_and_every_method() {
    let mut e = Engine::new();
    let r = result(call(&mut e, "any", "hello", Value::Null));
    assert_eq!(r["version"], PROTOCOL_VERSION);
    let methods: Vec<&str> = r["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(
        methods.contains(&"run") && methods.contains(&"compare"),
        "{methods:?}"
    );
}

#[test]
fn run_answers_what_the_shell_prints_and_saves() {
    let mut e = Engine::new();
    open(&mut e, "page");
    let (answer, events) = send(
        &mut e,
        json!({"v": 1, "id": 9, "session": "page", "method": "run", "params": {"source": SETUP}}),
    );
    assert_eq!(answer["id"], 9);
    // The same statements straight on the core print the same lines.
    let mut direct = Timeline::new(shardlab::ClusterConfig {
        shards: 3,
        version: shardlab::VersionMode::V50,
        chunk_size: Some(65536),
        seed: 7,
    });
    let expected: Vec<String> = direct
        .push(SETUP)
        .iter()
        .filter_map(|o| o.render())
        .collect();
    let lines: Vec<String> = answer["result"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lines, expected);
    assert_eq!(
        answer["result"]["position"],
        json!({"position": 1, "length": 1})
    );
    assert_eq!(events[0]["event"], "save");
    assert_eq!(events[0]["data"]["steps"], 1);

    let bad = result(call(
        &mut e,
        "page",
        "run",
        json!({"source": "db.c.insertOne({_id: 1}); db.c.insertOne({_id: 1})"}),
    ));
    let kinds: Vec<&str> = bad["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.last(), Some(&"error"), "{bad}");
    assert!(
        bad["lines"][1]["text"].as_str().unwrap().contains("E11000"),
        "{bad}"
    );
}

#[test]
fn frames_are_whole_first_then_carry_what_changed() {
    let mut e = Engine::new();
    open(&mut e, "page");
    result(call(&mut e, "page", "run", json!({"source": SETUP})));
    let first = result(call(&mut e, "page", "frame", json!({"ns": null})));
    assert_eq!(first["ns"], "test.events");
    assert_eq!(first["key"], "{ x: 1 }");
    assert_eq!(first["docs"], 8000);
    let shards = first["shards"].as_array().unwrap();
    assert!(shards.iter().all(|s| s["chunks"].is_array()), "{first}");
    let chunks: u64 = shards
        .iter()
        .map(|s| s["chunks"].as_array().unwrap().len() as u64)
        .sum();
    assert_eq!(chunks, first["chunks"].as_u64().unwrap());
    assert_eq!(first["bar"].as_array().unwrap().len() as u64, chunks);

    // The heat of the first frame fades in the second; after that nothing changes, and no
    // shard sends its chunks again.
    result(call(&mut e, "page", "frame", json!({"ns": "test.events"})));
    let same = result(call(&mut e, "page", "frame", json!({"ns": "test.events"})));
    assert!(
        same["shards"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["chunks"].is_null()),
        "{same}"
    );

    // Inserts into the top chunk change its shard's column only.
    result(call(
        &mut e,
        "page",
        "run",
        json!({"source": "sim.generate(\"test.events\", \"monotonic\", 10)"}),
    ));
    let next = result(call(&mut e, "page", "frame", json!({"ns": "test.events"})));
    let sent: Vec<bool> = next["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["chunks"].is_array())
        .collect();
    assert_eq!(sent.iter().filter(|s| **s).count(), 1, "{sent:?}");
    let gained: u64 = next["bar"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["gained"].as_u64().unwrap())
        .sum();
    assert_eq!(gained, 10);
}

#[test]
fn the_cursor_steps_jumps_and_forks() {
    let mut e = Engine::new();
    open(&mut e, "s");
    for i in 0..3 {
        result(call(
            &mut e,
            "s",
            "run",
            json!({"source": format!("db.c.insertOne({{x: {i}}})")}),
        ));
    }
    let back = result(call(&mut e, "s", "step", json!({"by": -2})));
    assert_eq!(
        back,
        json!({"kind": "position", "position": 1, "length": 3})
    );
    let jumped = result(call(&mut e, "s", "jump", json!({"to": 2})));
    assert_eq!(jumped["position"], 2);
    let past = call(&mut e, "s", "jump", json!({"to": 99}));
    assert_eq!(past["error"]["codeName"], "BadValue");
    let forked = result(call(&mut e, "s", "fork", Value::Null));
    assert_eq!(
        forked,
        json!({"kind": "position", "position": 2, "length": 2})
    );
    let count = result(call(
        &mut e,
        "s",
        "run",
        json!({"source": "db.c.countDocuments()"}),
    ));
    assert_eq!(count["lines"][0]["text"], "2");
}

#[test]
fn a_session_reopened_from_its_scenario_is_the_same_cluster() {
    let mut e = Engine::new();
    open(&mut e, "a");
    result(call(&mut e, "a", "run", json!({"source": SETUP})));
    let text = result(call(&mut e, "a", "scenario", Value::Null))["text"].clone();
    result(call(
        &mut e,
        "b",
        "open",
        json!({"from": "scenario", "text": text}),
    ));
    let fa = result(call(&mut e, "a", "frame", json!({"ns": "test.events"})));
    let fb = result(call(&mut e, "b", "frame", json!({"ns": "test.events"})));
    assert_eq!(fa, fb);
    let broken = call(
        &mut e,
        "c",
        "open",
        json!({"from": "scenario", "text": "v2.not-a-scenario"}),
    );
    assert_eq!(broken["error"]["code"], 2, "{broken}");
}

#[test]
fn sessions_are_named_once_and_refused_when_unknown() {
    let mut e = Engine::new();
    open(&mut e, "page");
    let again = call(
        &mut e,
        "page",
        "open",
        json!({"from": "config", "shards": 1, "version": "5.0", "chunkSize": null, "seed": 1}),
    );
    assert_eq!(again["error"]["codeName"], "BadValue");
    let unknown = call(&mut e, "nobody", "frame", json!({"ns": null}));
    assert_eq!(unknown["error"]["code"], 206);
    result(call(&mut e, "page", "close", Value::Null));
    assert_eq!(
        call(&mut e, "page", "close", Value::Null)["error"]["code"],
        206
    );
    for i in 0..MAX_SESSIONS {
        open(&mut e, &format!("s{i}"));
    }
    let full = call(
        &mut e,
        "one-more",
        "open",
        json!({"from": "config", "shards": 1, "version": "5.0", "chunkSize": null, "seed": 1}),
    );
    assert!(
        full["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most"),
        "{full}"
    );
}

#[test]
fn as_you_type_queries_answer_in_mongodbs_words() {
    let mut e = Engine::new();
    let good = result(call(
        &mut e,
        "page",
        "checkKey",
        json!({"key": "{ a: 1, b: 'hashed' }"}),
    ));
    assert_eq!(good["key"], "{ a: 1, b: 'hashed' }");
    let bad = result(call(
        &mut e,
        "page",
        "checkKey",
        json!({"key": "{a: 'hashed', b: 'hashed'}"}),
    ));
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("MongoServerError[BadValue]"),
        "{message}"
    );
    let more = result(call(
        &mut e,
        "page",
        "needsMoreInput",
        json!({"source": "db.c.find({"}),
    ));
    assert_eq!(more["more"], true);
    let done = result(call(
        &mut e,
        "page",
        "needsMoreInput",
        json!({"source": "db.c.find({})"}),
    ));
    assert_eq!(done["more"], false);

    open(&mut e, "page");
    result(call(&mut e, "page", "run", json!({"source": SETUP})));
    let one = result(call(
        &mut e,
        "page",
        "target",
        json!({"ns": "test.events", "filter": "{x: 42}"}),
    ));
    assert_eq!(one["stage"], "SINGLE_SHARD");
    assert_eq!(one["shards"].as_array().unwrap().len(), 1);
    let all = result(call(
        &mut e,
        "page",
        "target",
        json!({"ns": "test.events", "filter": "{ts: 1}"}),
    ));
    assert_eq!(all["broadcast"], true);
    let syntax = call(
        &mut e,
        "page",
        "target",
        json!({"ns": "test.events", "filter": "{x: "}),
    );
    assert!(
        syntax["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("SyntaxError"),
        "{syntax}"
    );
}

#[test]
fn chunk_documents_and_explanations_name_a_chunk_by_its_place() {
    let mut e = Engine::new();
    open(&mut e, "page");
    result(call(&mut e, "page", "run", json!({"source": SETUP})));
    let frame = result(call(&mut e, "page", "frame", json!({"ns": "test.events"})));
    let first = frame["shards"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["chunks"].as_array().unwrap().clone())
        .find(|c| c["order"] == 1)
        .expect("a second chunk");
    let page = result(call(
        &mut e,
        "page",
        "chunkDocs",
        json!({"ns": "test.events", "chunk": 1, "page": 0}),
    ));
    assert_eq!(page["total"], first["docs"]);
    assert_eq!(page["min"], first["min"]);
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(
        rows.len() as u64,
        first["docs"]
            .as_u64()
            .unwrap()
            .min(u64::from(CHUNK_PAGE_ROWS))
    );
    let missing = call(
        &mut e,
        "page",
        "chunkDocs",
        json!({"ns": "test.events", "chunk": 100000, "page": 0}),
    );
    assert_eq!(missing["error"]["codeName"], "BadValue");
    let why = result(call(
        &mut e,
        "page",
        "explain",
        json!({"about": "chunk", "ns": "test.events", "chunk": 0}),
    ));
    assert!(!why["sentences"].as_array().unwrap().is_empty());
}

#[test]
fn compare_runs_the_cores_comparison_and_refuses_injection() {
    let mut e = Engine::new();
    let spec = json!({
        "columns": [{"key": "{x: 1}", "version": "8.0"}, {"key": "{x: 'hashed'}", "version": "8.0"}],
        "workload": "monotonic", "batch": 200, "ticks": 5, "chunkSize": 32768
    });
    let rows = result(call(&mut e, "cmp", "compare", spec.clone()));
    let rows = rows["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    // The ranged key on a counter sends the latest inserts to one shard; hashing spreads them.
    assert!(
        rows[0]["hottestShardShare"].as_f64().unwrap()
            > rows[1]["hottestShardShare"].as_f64().unwrap()
    );
    let inserted: u64 = rows[1]["insertsPerShard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .sum();
    assert_eq!(inserted, 1000);
    let injected = json!({
        "columns": [{"key": "{x: 1}); db.dropDatabase(", "version": "8.0"}],
        "workload": "monotonic", "batch": 10, "ticks": 1, "chunkSize": 32768
    });
    assert_eq!(call(&mut e, "cmp", "compare", injected)["error"]["code"], 2);
    let unknown = json!({
        "columns": [{"key": "{x: 1}", "version": "8.0"}],
        "workload": "\"); db.dropDatabase(); (\"", "batch": 10, "ticks": 1, "chunkSize": 32768
    });
    assert_eq!(call(&mut e, "cmp", "compare", unknown)["error"]["code"], 2);
}

#[test]
fn compare_columns_step_in_lockstep_and_sum_up_as_the_one_shot_comparison() {
    let mut e = Engine::new();
    for (i, key) in ["{x: 1}", "{x: 'hashed'}"].iter().enumerate() {
        let column = json!({"from": "compare", "column": {"key": key, "version": "8.0"}, "chunkSize": 32768});
        let opened = result(call(&mut e, &format!("c{i}"), "open", column));
        assert_eq!(opened["errors"], json!([]));
        assert_eq!(
            opened["position"]["position"], 2,
            "chunk size and shardCollection"
        );
    }
    for _ in 0..5 {
        for i in 0..2 {
            let params = json!({"ns": "test.events", "workload": "monotonic", "count": 200, "balance": true});
            result(call(&mut e, &format!("c{i}"), "generate", params));
        }
    }
    let one_shot = result(call(
        &mut e,
        "x",
        "compare",
        json!({
            "columns": [{"key": "{x: 1}", "version": "8.0"}, {"key": "{x: 'hashed'}", "version": "8.0"}],
            "workload": "monotonic", "batch": 200, "ticks": 5, "chunkSize": 32768
        }),
    ));
    for i in 0..2 {
        let row = result(call(
            &mut e,
            &format!("c{i}"),
            "summary",
            json!({"ns": "test.events"}),
        ));
        let mut expected = one_shot["rows"][i].clone();
        expected["kind"] = json!("summary");
        assert_eq!(row, expected);
    }
    // Back one step: the summary follows the cursor.
    result(call(&mut e, "c0", "step", json!({"by": -1})));
    let back = result(call(&mut e, "c0", "summary", json!({"ns": "test.events"})));
    let inserted: u64 = back["insertsPerShard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .sum();
    assert_eq!(inserted, 800);
    let refused = json!({"from": "compare", "column": {"key": "{a: 'hashed', b: 'hashed'}", "version": "8.0"}, "chunkSize": 32768});
    assert_eq!(call(&mut e, "c9", "open", refused)["error"]["code"], 2);
    let injected = json!({"ns": "test.events", "workload": "monotonic\"); db.dropDatabase(); (\"", "count": 10, "balance": false});
    assert_eq!(call(&mut e, "c0", "generate", injected)["error"]["code"], 2);
}
