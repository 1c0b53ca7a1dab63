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
        json!({"v": 2, "id": 1, "session": session, "method": method, "params": params}),
    );
    answer
}

/// The answer's result: its content (the one field whose name is the result's kind), with
/// that kind added as `kind` for the checks; a result without content is `{kind}` alone.
fn result(answer: Value) -> Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    match &answer["result"] {
        Value::String(kind) => json!({ "kind": kind }),
        Value::Object(one) => {
            assert_eq!(
                one.len(),
                1,
                "a result is one field named for its kind: {answer}"
            );
            let (kind, content) = one.iter().next().unwrap();
            let mut content = content.clone();
            if let Value::Object(fields) = &mut content {
                fields.insert("kind".into(), json!(kind));
            }
            content
        }
        other => panic!("not a result: {other}"),
    }
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
        json!({"v": 2, "id": 9, "session": "page", "method": "run", "params": {"source": SETUP}}),
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
    let lines: Vec<String> = answer["result"]["ran"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(lines, expected);
    assert_eq!(
        answer["result"]["ran"]["position"],
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
    let back = call(&mut e, "s", "step", json!({"by": -2}));
    assert_eq!(
        back,
        json!({"id": 1, "result": {"position": {"position": 1, "length": 3}}}),
        "a result is one field named for its kind"
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

/// The text the `shardlab` CLI prints for `script` (its loop over `run_each`).
fn cli_text(script: &str) -> String {
    let mut session = shardlab::Session::default();
    let mut out = String::new();
    session.run_each(script, |o| {
        if let Some(line) = o.render() {
            out.push_str(&line);
            out.push('\n');
        }
        true
    });
    out
}

fn open_as_cli(engine: &mut Engine, session: &str) {
    let params = json!({"from": "config", "shards": 3, "version": "5.0", "seed": 1});
    result(call(engine, session, "open", params));
}

#[test]
fn evaluate_answers_one_entry_per_statement_as_the_cli_prints_it() {
    let script = "sh.enableSharding(\"test\")\nprint(\"hello\"); 1 + 1\ndb.c.insertOne({_id: 1, n: NumberLong(\"9007199254740993\"), d: NumberDecimal(\"1.5\"), at: ISODate(\"2024-01-02T03:04:05Z\"), o: ObjectId(\"65a1b2c3d4e5f60718293a4b\"), f: 2.5, nan: NaN})\ndb.c.findOne()\nfor (let i = 0; i < 2; i++) print(i)\nundefinedName\nlet = ;";
    let mut e = Engine::new();
    open_as_cli(&mut e, "js-1");
    let r = result(call(&mut e, "js-1", "evaluate", json!({"source": script})));
    assert_eq!(r["kind"], "evaluated");
    assert_eq!(r["position"]["position"], 1, "the script is one step");
    let entries = r["statements"].as_array().unwrap();
    let printed: String = entries
        .iter()
        .map(|s| s["printed"].as_str().unwrap())
        .collect();
    assert_eq!(printed, cli_text(script), "the same text as the CLI");
    assert_eq!(entries[1]["printed"], "hello\n");
    assert_eq!(entries[1]["ok"], true);
    assert_eq!(entries[2]["value"], json!(2.0));
    assert_eq!(entries[2]["printed"], "2\n");
    assert_eq!(entries[3]["value"]["insertedId"], json!(1.0));
    let doc = &entries[4]["value"];
    assert_eq!(doc["_id"], json!(1.0));
    assert_eq!(doc["n"], json!({"$numberLong": "9007199254740993"}));
    assert_eq!(doc["d"], json!({"$numberDecimal": "1.5"}));
    assert_eq!(doc["at"], json!({"$date": "2024-01-02T03:04:05.000Z"}));
    assert_eq!(doc["o"], json!({"$oid": "65a1b2c3d4e5f60718293a4b"}));
    assert_eq!(doc["f"], json!(2.5));
    assert_eq!(doc["nan"], json!({"$numberDouble": "NaN"}));
    // Lines printed inside a loop are its statement's text, before its value (none).
    assert_eq!(entries[5]["printed"], "0\n1\n");
    assert!(entries[5].get("value").is_none(), "{:?}", entries[5]);
    let failed: Vec<&Value> = entries.iter().filter(|s| s["ok"] == false).collect();
    assert_eq!(failed.len(), 2, "{entries:?}");
    let reference = failed
        .iter()
        .find(|s| s["error"]["codeName"] == "ReferenceError")
        .unwrap();
    assert_eq!(reference["error"]["line"], 6);
    assert_eq!(reference["error"]["errmsg"], "undefinedName is not defined");
    assert!(reference.get("value").is_none());
    let syntax = failed
        .iter()
        .find(|s| s["error"]["codeName"] == "SyntaxError")
        .unwrap();
    assert_eq!(syntax["error"]["line"], 7);
    assert!(syntax["printed"]
        .as_str()
        .unwrap()
        .starts_with("SyntaxError: "));
}

#[test]
fn evaluate_each_makes_a_step_of_every_statement() {
    let script = "db.c.insertOne({_id: 1})\n\ndb.c.insertOne({_id: 2}); nope\nlet = 1";
    let mut e = Engine::new();
    open_as_cli(&mut e, "js-5");
    let r = result(call(
        &mut e,
        "js-5",
        "evaluate",
        json!({"source": script, "each": true}),
    ));
    let steps: Vec<u64> = r["statements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_u64().unwrap())
        .collect();
    // A script with a syntax error does not split: it is one step, as the CLI runs it
    // (the statements that parse run).
    assert_eq!(steps, [1, 1, 1, 1]);
    let good = "db.c.insertOne({_id: 3})\n\ndb.c.insertOne({_id: 4}); nope";
    let r = result(call(
        &mut e,
        "js-5",
        "evaluate",
        json!({"source": good, "each": true}),
    ));
    let entries = r["statements"].as_array().unwrap();
    let steps: Vec<u64> = entries
        .iter()
        .map(|s| s["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, [2, 3, 4]);
    assert_eq!(r["position"]["length"], 4);
    assert_eq!(
        entries[2]["error"]["line"], 3,
        "lines count from the script's start"
    );
    let printed: String = entries
        .iter()
        .map(|s| s["printed"].as_str().unwrap())
        .collect();
    assert_eq!(printed, cli_text(good));
    // Each statement is a step to go back to.
    result(call(&mut e, "js-5", "jump", json!({"to": 2})));
    let c = result(call(&mut e, "js-5", "cluster", json!({"ns": "test.c"})));
    assert_eq!(c["docs"], 3);
}

#[test]
fn cluster_is_whole_and_leaves_the_frames_alone() {
    let mut e = Engine::new();
    open(&mut e, "js-2");
    result(call(&mut e, "js-2", "evaluate", json!({"source": SETUP})));
    // The first frame is whole, the second fades its heat; then nothing changes.
    result(call(&mut e, "js-2", "frame", json!({"ns": "test.events"})));
    let first = result(call(&mut e, "js-2", "frame", json!({"ns": "test.events"})));
    let whole = result(call(
        &mut e,
        "js-2",
        "cluster",
        json!({"ns": "test.events"}),
    ));
    assert_eq!(whole["kind"], "frame");
    let chunks: usize = whole["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["chunks"].as_array().expect("every shard's chunks").len())
        .sum();
    assert_eq!(chunks as u64, whole["chunks"].as_u64().unwrap());
    assert!(chunks > 1, "8000 documents of 64 KiB chunks split");
    // A frame after `cluster` still compares with the first frame: nothing changed, so
    // every shard leaves its chunks out.
    let next = result(call(&mut e, "js-2", "frame", json!({"ns": "test.events"})));
    assert_eq!(first["chunks"], next["chunks"]);
    assert!(next["shards"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["chunks"].is_null()));
}

#[test]
fn analyze_runs_on_a_copy_and_refuses_what_is_not_a_key() {
    let mut e = Engine::new();
    open(&mut e, "js-3");
    result(call(&mut e, "js-3", "evaluate", json!({"source": SETUP})));
    let r = result(call(
        &mut e,
        "js-3",
        "analyze",
        json!({"ns": "test.events", "key": "{x: 1}"}),
    ));
    assert_eq!(r["kind"], "analyzed");
    assert_eq!(r["ok"], true, "{r}");
    assert!(
        r["value"]["keyCharacteristics"]["numDocsTotal"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(r["printed"]
        .as_str()
        .unwrap()
        .contains("keyCharacteristics"));
    let scenario = result(call(&mut e, "js-3", "scenario", Value::Null));
    assert!(!scenario["text"].as_str().unwrap().is_empty());
    let steps = result(call(&mut e, "js-3", "step", json!({"by": 0})));
    assert_eq!(steps["length"], 1, "analyze adds no step");
    // Hostile: a key that would close the command and run another is refused before
    // anything runs; a namespace is only ever a string literal.
    let smuggled = call(
        &mut e,
        "js-3",
        "analyze",
        json!({"ns": "test.events", "key": "{x: 1}}); sim.reset(); ({"}),
    );
    assert_eq!(smuggled["error"]["codeName"], "BadValue", "{smuggled}");
    let odd = result(call(
        &mut e,
        "js-3",
        "analyze",
        json!({"ns": "a\"}); sim.reset(); (\"", "key": "{x: 1}"}),
    ));
    assert_eq!(odd["ok"], false, "{odd}");
    let after = result(call(
        &mut e,
        "js-3",
        "cluster",
        json!({"ns": "test.events"}),
    ));
    assert!(
        after["docs"].as_u64().unwrap() > 0,
        "the session is as it was"
    );
}

#[test]
fn a_scenario_opens_up_to_the_catalogues_size_and_no_further() {
    let mut e = Engine::new();
    let catalog = result(call(&mut e, "c", "catalog", Value::Null));
    let limit = catalog["limits"]["maxScenarioBytes"].as_u64().unwrap() as usize;
    // The protocol's bound is the core's: a scenario the engine accepts, the core reads.
    assert_eq!(limit, shardlab::sim::MAX_JSON_BYTES);
    assert_eq!(limit, MAX_SCENARIO_BYTES);
    // A scenario file padded with spaces to exactly the limit opens; one byte more does not.
    let file = |len: usize| {
        let body = r#"{"format": "shardlab-scenario", "version": 1, "commands": ["db.c.insertOne({_id: 1})"]}"#;
        format!("{body}{}", " ".repeat(len - body.len()))
    };
    let opened = call(
        &mut e,
        "a",
        "open",
        json!({"from": "scenario", "text": file(limit)}),
    );
    assert!(opened.get("error").is_none(), "{opened}");
    let refused = call(
        &mut e,
        "b",
        "open",
        json!({"from": "replay", "text": file(limit + 1)}),
    );
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&limit.to_string()),
        "{refused}"
    );
}

#[test]
fn evaluate_and_cluster_are_checked_as_hostile_input() {
    let mut e = Engine::new();
    open(&mut e, "js-4");
    let big = "x".repeat(MAX_SOURCE_BYTES + 1);
    let r = call(&mut e, "js-4", "evaluate", json!({"source": big}));
    assert_eq!(r["error"]["codeName"], "BadValue");
    let long_ns = "n".repeat(MAX_FIELD_BYTES + 1);
    let r = call(&mut e, "js-4", "cluster", json!({"ns": long_ns}));
    assert_eq!(r["error"]["codeName"], "BadValue");
    let r = call(
        &mut e,
        "js-4",
        "analyze",
        json!({"ns": "test.c", "key": long_ns}),
    );
    assert_eq!(r["error"]["codeName"], "BadValue");
    let r = call(&mut e, "nobody", "evaluate", json!({"source": "1"}));
    assert!(r.get("error").is_some(), "an unknown session is refused");
    // An empty cluster has a picture too.
    let empty = result(call(&mut e, "js-4", "cluster", json!({})));
    assert_eq!(empty["kind"], "frame");
}

/// The catalogue tells every view the engine's bounds and defaults: each limit it names is
/// the one the engine holds requests to (the largest allowed passes, one more is refused),
/// a session opened with the defaults runs the version they name, and each lesson's steps
/// are what its session plays after the setup.
#[test]
fn the_catalogue_names_the_bounds_the_engine_enforces() {
    let mut engine = Engine::new();
    let catalog = result(call(&mut engine, "c", "catalog", Value::Null));
    let limits = &catalog["limits"];
    let defaults = &catalog["defaults"];
    let max_shards = limits["maxShards"].as_u64().unwrap();
    let min_chunk = limits["minChunkSize"].as_u64().unwrap();
    let config = |shards: u64, chunk: u64| json!({"from": "config", "shards": shards, "version": defaults["version"], "chunkSize": chunk, "seed": defaults["seed"]});
    assert!(
        call(&mut engine, "a", "open", config(max_shards, min_chunk))
            .get("error")
            .is_none()
    );
    let refused = call(&mut engine, "b", "open", config(max_shards + 1, min_chunk));
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    let refused = call(&mut engine, "b", "open", config(3, min_chunk - 1));
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    // The default version is the one a session opened with it reports.
    let ran = result(call(
        &mut engine,
        "a",
        "evaluate",
        json!({"source": "sim.version()"}),
    ));
    assert!(
        ran["statements"][0]["printed"]
            .as_str()
            .unwrap()
            .contains(defaults["version"].as_str().unwrap()),
        "{ran}"
    );
    // Compare: as many columns as the catalogue says, and no more.
    let columns = limits["maxCompareColumns"].as_u64().unwrap() as usize;
    let spec = |n: usize| {
        let columns: Vec<Value> = (0..n)
            .map(|i| json!({"key": format!("{{x: 1, y{i}: 1}}"), "version": "8.0"}))
            .collect();
        json!({"columns": columns, "workload": defaults["compareWorkload"], "ticks": 2})
    };
    let compared = call(&mut engine, "a", "compare", spec(columns));
    assert!(compared.get("error").is_none(), "{compared}");
    let refused = call(&mut engine, "a", "compare", spec(columns + 1));
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    // A colour for every shard, each a CSS hex colour.
    let palette = catalog["palette"].as_array().unwrap();
    assert_eq!(palette.len() as u64, max_shards);
    assert!(palette
        .iter()
        .all(|c| c.as_str().unwrap().len() == 7 && c.as_str().unwrap().starts_with('#')));
    assert_eq!(catalog["languages"][0], "en");
    // A lesson's steps run one after another in its session and insert its total.
    let lesson = &catalog["lessons"][0];
    let id = lesson["id"].as_str().unwrap();
    result(call(
        &mut engine,
        "l",
        "open",
        json!({"from": "lesson", "id": id}),
    ));
    let steps: Vec<&str> = lesson["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(steps.len() > 1, "{lesson}");
    let ran = result(call(
        &mut engine,
        "l",
        "evaluate",
        json!({"source": steps.join("\n"), "each": true}),
    ));
    let statements = ran["statements"].as_array().unwrap();
    // A batch with a balancer round after it is two statements (`sim.generate(...);
    // sim.balance()`), each a step of its own.
    assert!(statements.len() >= steps.len(), "{ran}");
    assert!(statements.iter().all(|s| s["ok"] == true), "{ran}");
}
