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

/// One request about `session`, answered as JSON.
fn call(engine: &mut Engine, session: &str, method: &str, params: Value) -> Value {
    let (answer, _) = send(
        engine,
        json!({"v": 3, "id": 1, "session": session, "method": method, "params": params}),
    );
    answer
}

/// One request about no session (`catalog`, `open`, `compare`, the page's form checks).
fn ask(engine: &mut Engine, method: &str, params: Value) -> Value {
    let (answer, _) = send(
        engine,
        json!({"v": 3, "id": 1, "method": method, "params": params}),
    );
    answer
}

/// The answer's result: its content, checked to be an answer of this protocol with a
/// method and no error (`null` for a method without content, such as `close`).
fn result(answer: Value) -> Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    assert_eq!(answer["v"], PROTOCOL_VERSION, "{answer}");
    assert!(
        answer["method"].is_string(),
        "an answer names its method: {answer}"
    );
    answer.get("result").cloned().unwrap_or(Value::Null)
}

/// The answer's result, checked to answer `method`.
fn result_of(answer: Value, method: &str) -> Value {
    assert_eq!(answer["method"], method, "{answer}");
    result(answer)
}

/// Opens a session with `params` and returns the handle the engine gave it.
fn open_with(engine: &mut Engine, params: Value) -> String {
    let opened = result_of(ask(engine, "open", params), "open");
    opened["session"]
        .as_str()
        .unwrap_or_else(|| panic!("no handle: {opened}"))
        .to_string()
}

/// A 3-shard 5.0 cluster with 64 KiB chunks; the handle the engine gave it.
fn open(engine: &mut Engine) -> String {
    open_with(
        engine,
        json!({"kind": "config", "shards": 3, "version": "5.0", "chunkSize": 65536, "seed": 7}),
    )
}

const SETUP: &str = "sh.shardCollection(\"test.events\", {x: 1}); sim.generate(\"test.events\", \"monotonic\", 8000)";

#[test]
fn the_catalog_names_the_version_and_every_method() {
    let mut e = Engine::new();
    let r = result_of(ask(&mut e, "catalog", Value::Null), "catalog");
    assert_eq!(r["protocol"], PROTOCOL_VERSION);
    assert_eq!(r["protocol"], 3);
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
    assert_eq!(methods, METHODS);
    assert_eq!(shardlab_engine::service::METHODS, METHODS);
}

/// The text the core prints for `source` run on `timeline`: each rendered outcome on a
/// line of its own.
fn printed_by(timeline: &mut Timeline, source: &str) -> String {
    timeline
        .push(source)
        .iter()
        .filter_map(|o| o.render())
        .map(|line| line + "\n")
        .collect()
}

#[test]
fn run_answers_what_the_shell_prints_and_saves() {
    let mut e = Engine::new();
    let s = open(&mut e);
    let (answer, events) = send(
        &mut e,
        json!({"v": 3, "id": 9, "session": s, "method": "run", "params": {"source": SETUP}}),
    );
    assert_eq!(answer["id"], 9);
    assert_eq!(answer["method"], "run");
    // The same statements straight on the core print the same text.
    let mut direct = Timeline::new(shardlab::ClusterConfig {
        shards: 3,
        version: shardlab::VersionMode::V50,
        chunk_size: Some(65536),
        seed: 7,
    });
    let expected = printed_by(&mut direct, SETUP);
    let statements = answer["result"]["statements"].as_array().unwrap();
    let printed: String = statements
        .iter()
        .map(|l| l["printed"].as_str().unwrap())
        .collect();
    assert_eq!(printed, expected);
    assert!(statements.iter().all(|s| s["ok"] == true), "{answer}");
    assert_eq!(
        answer["result"]["position"],
        json!({"position": 1, "length": 1})
    );
    assert_eq!(events[0]["v"], PROTOCOL_VERSION);
    assert_eq!(events[0]["session"], s.as_str());
    assert_eq!(events[0]["event"], "save");
    assert_eq!(events[0]["data"]["steps"], 1);

    // A mistake in the shell is the statement's error, not a protocol error.
    let bad = result_of(
        call(
            &mut e,
            &s,
            "run",
            json!({"source": "db.c.insertOne({_id: 1}); db.c.insertOne({_id: 1})"}),
        ),
        "run",
    );
    let oks: Vec<bool> = bad["statements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["ok"].as_bool().unwrap())
        .collect();
    assert_eq!(oks, [true, false], "{bad}");
    let second = &bad["statements"][1];
    assert!(
        second["printed"].as_str().unwrap().contains("E11000"),
        "{bad}"
    );
    assert!(
        second["error"]["errmsg"]
            .as_str()
            .unwrap()
            .contains("E11000"),
        "{bad}"
    );
}

#[test]
fn frames_are_whole_first_then_carry_what_changed() {
    let mut e = Engine::new();
    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    let first = result_of(call(&mut e, &s, "frame", json!({"ns": null})), "frame");
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
    result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
    let same = result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
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
        &s,
        "run",
        json!({"source": "sim.generate(\"test.events\", \"monotonic\", 10)"}),
    ));
    let next = result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
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
    let s = open(&mut e);
    for i in 0..3 {
        result(call(
            &mut e,
            &s,
            "run",
            json!({"source": format!("db.c.insertOne({{x: {i}}})")}),
        ));
    }
    let back = call(&mut e, &s, "step", json!({"by": -2}));
    assert_eq!(
        back,
        json!({"v": 3, "id": 1, "method": "step", "result": {"position": 1, "length": 3}}),
        "an answer names its method, and its result is the method's content"
    );
    let jumped = result_of(call(&mut e, &s, "jump", json!({"to": 2})), "jump");
    assert_eq!(jumped["position"], 2);
    let past = call(&mut e, &s, "jump", json!({"to": 99}));
    assert_eq!(past["error"]["codeName"], "BadValue");
    assert_eq!(past["method"], "jump", "an error names its method too");
    let forked = result_of(call(&mut e, &s, "fork", Value::Null), "fork");
    assert_eq!(forked, json!({"position": 2, "length": 2}));
    let count = result(call(
        &mut e,
        &s,
        "run",
        json!({"source": "db.c.countDocuments()"}),
    ));
    assert_eq!(count["statements"][0]["printed"], "2\n");
    assert_eq!(count["statements"][0]["value"], json!(2.0));
}

#[test]
fn a_session_reopened_from_its_scenario_is_the_same_cluster() {
    let mut e = Engine::new();
    let a = open(&mut e);
    result(call(&mut e, &a, "run", json!({"source": SETUP})));
    let text = result_of(call(&mut e, &a, "scenario", json!({})), "scenario")["text"].clone();
    let b = open_with(&mut e, json!({"kind": "scenario", "text": text}));
    assert_ne!(a, b);
    let fa = result(call(&mut e, &a, "frame", json!({"ns": "test.events"})));
    let fb = result(call(&mut e, &b, "frame", json!({"ns": "test.events"})));
    assert_eq!(fa, fb);
    let broken = ask(
        &mut e,
        "open",
        json!({"kind": "scenario", "text": "v2.not-a-scenario"}),
    );
    assert_eq!(broken["error"]["code"], 2, "{broken}");
}

#[test]
fn export_answers_the_sessions_mongosh_script_and_refuses_an_empty_session() {
    let mut e = Engine::new();
    let s = open(&mut e);
    let empty = call(&mut e, &s, "export", Value::Null);
    assert_eq!(empty["error"]["codeName"], "IllegalOperation", "{empty}");
    assert!(
        empty["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("nothing to export"),
        "{empty}"
    );
    let setup = "sh.shardCollection(\"test.events\", {x: 1}); sim.generate(\"test.events\", \"monotonic\", 500)";
    result(call(&mut e, &s, "run", json!({"source": setup})));
    let script = result_of(call(&mut e, &s, "export", Value::Null), "export");
    let text = script["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("// A ShardLab scenario"), "{text}");
    assert!(
        text.contains("npx mongodb-runner exec -t sharded"),
        "{text}"
    );
    // Its commands, run in a new session, give the same documents.
    let copy = open(&mut e);
    result(call(&mut e, &copy, "run", json!({"source": text})));
    let count = |e: &mut Engine, s: &str| {
        result(call(
            e,
            s,
            "run",
            json!({"source": "db.events.countDocuments()"}),
        ))["statements"][0]["value"]
            .clone()
    };
    assert_eq!(count(&mut e, &s), count(&mut e, &copy));
}

#[test]
fn the_engine_names_sessions_and_refuses_unknown_ones() {
    let mut e = Engine::new();
    let config =
        json!({"kind": "config", "shards": 1, "version": "5.0", "chunkSize": null, "seed": 1});
    let first = open(&mut e);
    assert_eq!(first, "s1", "handles are s1, s2, ... per engine");
    // `open` takes no session: the engine names it.
    let named = call(&mut e, "mine", "open", config.clone());
    assert_eq!(named["error"]["codeName"], "BadValue", "{named}");
    assert_eq!(named["method"], "open");
    let again = call(&mut e, &first, "open", config.clone());
    assert_eq!(again["error"]["codeName"], "BadValue", "{again}");
    let second = open_with(&mut e, config.clone());
    assert_ne!(second, first);
    assert_eq!(e.sessions().collect::<Vec<_>>(), [first.as_str(), &second]);
    // A method about a session without one is refused; one naming none open too.
    let nameless = ask(&mut e, "frame", json!({"ns": null}));
    assert_eq!(nameless["error"]["codeName"], "BadValue", "{nameless}");
    let unknown = call(&mut e, "nobody", "frame", json!({"ns": null}));
    assert_eq!(unknown["error"]["code"], 206);
    assert_eq!(
        result_of(call(&mut e, &first, "close", Value::Null), "close"),
        Value::Null
    );
    assert_eq!(
        call(&mut e, &first, "close", Value::Null)["error"]["code"],
        206
    );
    // A closed session's handle is not given again.
    let third = open_with(&mut e, config.clone());
    assert!(third != first && third != second, "{third}");
    result(call(&mut e, &second, "close", Value::Null));
    result(call(&mut e, &third, "close", Value::Null));
    assert_eq!(e.sessions().count(), 0);
    let mut handles = std::collections::BTreeSet::new();
    for _ in 0..MAX_SESSIONS {
        handles.insert(open(&mut e));
    }
    assert_eq!(handles.len(), MAX_SESSIONS, "every handle differs");
    assert!(!handles.contains(&first));
    let full = ask(&mut e, "open", config);
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
    let good = result_of(
        ask(
            &mut e,
            "page.checkKey",
            json!({"key": "{ a: 1, b: 'hashed' }"}),
        ),
        "page.checkKey",
    );
    assert_eq!(good["key"], "{ a: 1, b: 'hashed' }");
    let bad = result(ask(
        &mut e,
        "page.checkKey",
        json!({"key": "{a: 'hashed', b: 'hashed'}"}),
    ));
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("MongoServerError[BadValue]"),
        "{message}"
    );
    let more = result_of(
        ask(
            &mut e,
            "page.needsMoreInput",
            json!({"source": "db.c.find({"}),
        ),
        "page.needsMoreInput",
    );
    assert_eq!(more["more"], true);
    let done = result(ask(
        &mut e,
        "page.needsMoreInput",
        json!({"source": "db.c.find({})"}),
    ));
    assert_eq!(done["more"], false);

    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    let one = result_of(
        call(
            &mut e,
            &s,
            "target",
            json!({"ns": "test.events", "filter": "{x: 42}"}),
        ),
        "target",
    );
    assert_eq!(one["stage"], "SINGLE_SHARD");
    assert_eq!(one["shards"].as_array().unwrap().len(), 1);
    let all = result(call(
        &mut e,
        &s,
        "target",
        json!({"ns": "test.events", "filter": "{ts: 1}"}),
    ));
    assert_eq!(all["broadcast"], true);
    let syntax = call(
        &mut e,
        &s,
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

/// `inspect` pages a chunk's documents (what `chunkDocs` answered in version 2), named by
/// the key handle its frame gives it; `explain` names a chunk by its place.
#[test]
fn chunk_documents_and_explanations_name_a_chunk() {
    let mut e = Engine::new();
    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    let frame = result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
    let first = frame["shards"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["chunks"].as_array().unwrap().clone())
        .find(|c| c["order"] == 1)
        .expect("a second chunk");
    let inspected = result_of(
        call(
            &mut e,
            &s,
            "inspect",
            json!({"ns": "test.events", "subject": {"kind": "chunk", "key": first["key"]}}),
        ),
        "inspect",
    );
    assert_eq!(inspected["chunk"]["ok"], true, "{inspected}");
    let page = &inspected["chunk"]["value"];
    assert_eq!(page["total"], first["docs"]);
    assert_eq!(page["min"], first["min"]);
    assert_eq!(page["max"], first["max"]);
    assert_eq!(page["key"], first["key"]);
    assert_eq!(page["skip"], 0);
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(
        rows.len() as u64,
        first["docs"]
            .as_u64()
            .unwrap()
            .min(u64::from(CHUNK_PAGE_ROWS))
    );
    // A handle that names no chunk is an error in the answer, not a protocol error; a
    // collection that is not sharded has no chunk to show.
    let missing = result(call(
        &mut e,
        &s,
        "inspect",
        json!({"ns": "test.events", "subject": {"kind": "chunk", "key": "no such key"}}),
    ));
    assert_eq!(missing["chunk"]["ok"], false, "{missing}");
    assert!(
        !missing["chunk"]["error"].as_str().unwrap().is_empty(),
        "{missing}"
    );
    let nowhere = result(call(
        &mut e,
        &s,
        "inspect",
        json!({"ns": "test.nothing", "subject": {"kind": "chunk", "key": first["key"]}}),
    ));
    assert!(nowhere["chunk"].is_null(), "{nowhere}");
    let why = result_of(
        call(
            &mut e,
            &s,
            "explain",
            json!({"kind": "chunk", "ns": "test.events", "chunk": 0}),
        ),
        "explain",
    );
    assert!(!why["sentences"].as_array().unwrap().is_empty());
    let past = call(
        &mut e,
        &s,
        "explain",
        json!({"kind": "chunk", "ns": "test.events", "chunk": 100000}),
    );
    assert_eq!(past["error"]["codeName"], "BadValue", "{past}");
}

#[test]
fn compare_runs_the_cores_comparison_and_refuses_injection() {
    let mut e = Engine::new();
    let spec = json!({
        "columns": [{"key": "{x: 1}", "version": "8.0"}, {"key": "{x: 'hashed'}", "version": "8.0"}],
        "workload": "monotonic", "batch": 200, "ticks": 5, "chunkSize": 32768
    });
    let rows = result_of(ask(&mut e, "compare", spec.clone()), "compare");
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
    assert_eq!(ask(&mut e, "compare", injected)["error"]["code"], 2);
    let unknown = json!({
        "columns": [{"key": "{x: 1}", "version": "8.0"}],
        "workload": "\"); db.dropDatabase(); (\"", "batch": 10, "ticks": 1, "chunkSize": 32768
    });
    assert_eq!(ask(&mut e, "compare", unknown)["error"]["code"], 2);
}

#[test]
fn compare_columns_step_in_lockstep_and_sum_up_as_the_one_shot_comparison() {
    let mut e = Engine::new();
    let mut columns = Vec::new();
    for key in ["{x: 1}", "{x: 'hashed'}"] {
        let column = json!({"kind": "compare", "column": {"key": key, "version": "8.0"}, "chunkSize": 32768});
        let opened = result_of(ask(&mut e, "open", column), "open");
        assert_eq!(opened["errors"], json!([]));
        assert_eq!(
            opened["position"]["position"], 2,
            "chunk size and shardCollection"
        );
        columns.push(opened["session"].as_str().unwrap().to_string());
    }
    for _ in 0..5 {
        for c in &columns {
            let params = json!({"workload": {"ns": "test.events", "name": "monotonic", "count": 200, "balance": true}});
            result_of(call(&mut e, c, "run", params), "run");
        }
    }
    let one_shot = result(ask(
        &mut e,
        "compare",
        json!({
            "columns": [{"key": "{x: 1}", "version": "8.0"}, {"key": "{x: 'hashed'}", "version": "8.0"}],
            "workload": "monotonic", "batch": 200, "ticks": 5, "chunkSize": 32768
        }),
    ));
    for (i, c) in columns.iter().enumerate() {
        let row = result_of(
            call(&mut e, c, "page.summary", json!({"ns": "test.events"})),
            "page.summary",
        );
        assert_eq!(row, one_shot["rows"][i]);
    }
    // Back one step: the summary follows the cursor.
    result(call(&mut e, &columns[0], "step", json!({"by": -1})));
    let back = result(call(
        &mut e,
        &columns[0],
        "page.summary",
        json!({"ns": "test.events"}),
    ));
    let inserted: u64 = back["insertsPerShard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[1].as_u64().unwrap())
        .sum();
    assert_eq!(inserted, 800);
    let refused = json!({"kind": "compare", "column": {"key": "{a: 'hashed', b: 'hashed'}", "version": "8.0"}, "chunkSize": 32768});
    assert_eq!(ask(&mut e, "open", refused)["error"]["code"], 2);
    let injected = json!({"workload": {"ns": "test.events", "name": "monotonic\"); db.dropDatabase(); (\"", "count": 10, "balance": false}});
    assert_eq!(
        call(&mut e, &columns[0], "run", injected)["error"]["code"],
        2
    );
}

/// `page.compareStep` answers every column of a tick in one request with what `run`,
/// `frame` and `page.summary` answer one after the other on a twin engine; a column whose
/// session is gone is that column's error, and the others still step.
#[test]
fn a_compare_step_answers_every_column_as_run_frame_and_summary_would() {
    let open = |e: &mut Engine, key: &str| {
        let column = json!({"kind": "compare", "column": {"key": key, "version": "5.0"}, "chunkSize": 32768});
        let opened = result_of(ask(e, "open", column), "open");
        opened["session"].as_str().unwrap().to_string()
    };
    let (mut lockstep, mut twin) = (Engine::new(), Engine::new());
    let keys = ["{x: 1}", "{x: 'hashed'}"];
    let columns: Vec<String> = keys.iter().map(|k| open(&mut lockstep, k)).collect();
    let twins: Vec<String> = keys.iter().map(|k| open(&mut twin, k)).collect();
    let batch = json!({"ns": "test.events", "name": "monotonic", "count": 300, "balance": true});
    for tick in 0..4 {
        let steps: Vec<Value> = columns
            .iter()
            .map(|c| match tick {
                0 => json!({"session": c}),
                _ => json!({"session": c, "run": batch}),
            })
            .collect();
        let (answer, events) = send(
            &mut lockstep,
            json!({"v": 3, "id": 1, "method": "page.compareStep", "params": {"columns": steps}}),
        );
        let stepped = result_of(answer, "page.compareStep");
        let saves: Vec<&Value> = events.iter().map(|e| &e["session"]).collect();
        let expected_saves: Vec<&str> = match tick {
            0 => vec![],
            _ => columns.iter().map(String::as_str).collect(),
        };
        assert_eq!(saves, expected_saves, "each column's events are its own");
        for (i, t) in twins.iter().enumerate() {
            if tick > 0 {
                result_of(call(&mut twin, t, "run", json!({"workload": batch})), "run");
            }
            let frame = call(&mut twin, t, "frame", json!({"ns": "test.events"}));
            let row = call(&mut twin, t, "page.summary", json!({"ns": "test.events"}));
            let column = &stepped["columns"][i];
            assert_eq!(column["session"], columns[i].as_str());
            assert_eq!(column["frame"], result(frame), "tick {tick} column {i}");
            assert_eq!(column["row"], result(row), "tick {tick} column {i}");
            assert!(column.get("error").is_none(), "{column}");
        }
    }
    result(call(&mut lockstep, &columns[0], "close", json!(null)));
    let after_close = result_of(
        ask(
            &mut lockstep,
            "page.compareStep",
            json!({"columns": [{"session": columns[0], "run": batch}, {"session": columns[1], "run": batch}]}),
        ),
        "page.compareStep",
    );
    assert_eq!(
        after_close["columns"][0]["error"]["codeName"],
        "NoSuchSession"
    );
    assert!(after_close["columns"][0].get("frame").is_none());
    assert_eq!(
        after_close["columns"][1]["row"]["label"]
            .as_str()
            .map(|l| l.contains("hashed")),
        Some(true)
    );
    for refused in [
        json!({"columns": []}),
        json!({"columns": [{"session": "s 1"}]}),
        json!({"columns": [{"session": columns[1], "run": {"ns": "test.events", "name": "monotonic", "count": 0}}]}),
        json!({"columns": (0..=MAX_COLUMNS).map(|_| json!({"session": columns[1]})).collect::<Vec<_>>()}),
    ] {
        assert_eq!(
            ask(&mut lockstep, "page.compareStep", refused.clone())["error"]["codeName"],
            "BadValue",
            "{refused}"
        );
    }
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

fn open_as_cli(engine: &mut Engine) -> String {
    open_with(
        engine,
        json!({"kind": "config", "shards": 3, "version": "5.0", "seed": 1}),
    )
}

#[test]
fn run_answers_one_entry_per_statement_as_the_cli_prints_it() {
    let script = "sh.enableSharding(\"test\")\nprint(\"hello\"); 1 + 1\ndb.c.insertOne({_id: 1, n: NumberLong(\"9007199254740993\"), d: NumberDecimal(\"1.5\"), at: ISODate(\"2024-01-02T03:04:05Z\"), o: ObjectId(\"65a1b2c3d4e5f60718293a4b\"), f: 2.5, nan: NaN})\ndb.c.findOne()\nfor (let i = 0; i < 2; i++) print(i)\nundefinedName\nlet = ;";
    let mut e = Engine::new();
    let s = open_as_cli(&mut e);
    let answer = call(&mut e, &s, "run", json!({"source": script}));
    assert_eq!(answer["method"], "run");
    let r = result(answer);
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
fn run_each_makes_a_step_of_every_statement() {
    let script = "db.c.insertOne({_id: 1})\n\ndb.c.insertOne({_id: 2}); nope\nlet = 1";
    let mut e = Engine::new();
    let s = open_as_cli(&mut e);
    let r = result(call(
        &mut e,
        &s,
        "run",
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
        &s,
        "run",
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
    result(call(&mut e, &s, "jump", json!({"to": 2})));
    let c = result(call(
        &mut e,
        &s,
        "frame",
        json!({"ns": "test.c", "whole": true}),
    ));
    assert_eq!(c["docs"], 3);
}

#[test]
fn a_whole_frame_is_whole_and_leaves_the_frames_alone() {
    let mut e = Engine::new();
    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    // The first frame is whole, the second fades its heat; then nothing changes.
    result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
    let first = result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
    let whole = call(
        &mut e,
        &s,
        "frame",
        json!({"ns": "test.events", "whole": true}),
    );
    let whole = result_of(whole, "frame");
    let chunks: usize = whole["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["chunks"].as_array().expect("every shard's chunks").len())
        .sum();
    assert_eq!(chunks as u64, whole["chunks"].as_u64().unwrap());
    assert!(chunks > 1, "8000 documents of 64 KiB chunks split");
    // A frame after a whole one still compares with the first frame: nothing changed, so
    // every shard leaves its chunks out.
    let next = result(call(&mut e, &s, "frame", json!({"ns": "test.events"})));
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
    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    let answer = call(
        &mut e,
        &s,
        "analyze",
        json!({"ns": "test.events", "key": "{x: 1}"}),
    );
    assert_eq!(answer["method"], "analyze");
    let r = result(answer);
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
    let scenario = result_of(call(&mut e, &s, "scenario", json!({})), "scenario");
    assert!(!scenario["text"].as_str().unwrap().is_empty());
    let steps = result(call(&mut e, &s, "step", json!({"by": 0})));
    assert_eq!(steps["length"], 1, "analyze adds no step");
    // Hostile: a key that would close the command and run another is refused before
    // anything runs; a namespace is only ever a string literal.
    let smuggled = call(
        &mut e,
        &s,
        "analyze",
        json!({"ns": "test.events", "key": "{x: 1}}); sim.reset(); ({"}),
    );
    assert_eq!(smuggled["error"]["codeName"], "BadValue", "{smuggled}");
    let odd = result(call(
        &mut e,
        &s,
        "analyze",
        json!({"ns": "a\"}); sim.reset(); (\"", "key": "{x: 1}"}),
    ));
    assert_eq!(odd["ok"], false, "{odd}");
    let after = result(call(
        &mut e,
        &s,
        "frame",
        json!({"ns": "test.events", "whole": true}),
    ));
    assert!(
        after["docs"].as_u64().unwrap() > 0,
        "the session is as it was"
    );
}

#[test]
fn a_scenario_opens_up_to_the_catalogues_size_and_no_further() {
    let mut e = Engine::new();
    let catalog = result(ask(&mut e, "catalog", Value::Null));
    let limit = catalog["limits"]["maxScenarioBytes"].as_u64().unwrap() as usize;
    // The protocol's bound is the core's: a scenario the engine accepts, the core reads.
    assert_eq!(limit, shardlab::sim::MAX_JSON_BYTES);
    assert_eq!(limit, MAX_SCENARIO_BYTES);
    // A scenario file padded with spaces to exactly the limit opens; one byte more does not.
    let file = |len: usize| {
        let body = r#"{"format": "shardlab-scenario", "version": 1, "commands": ["db.c.insertOne({_id: 1})"]}"#;
        format!("{body}{}", " ".repeat(len - body.len()))
    };
    let opened = ask(
        &mut e,
        "open",
        json!({"kind": "scenario", "text": file(limit)}),
    );
    assert!(opened.get("error").is_none(), "{opened}");
    let refused = ask(
        &mut e,
        "open",
        json!({"kind": "replay", "text": file(limit + 1)}),
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
fn run_and_whole_frames_are_checked_as_hostile_input() {
    let mut e = Engine::new();
    let s = open(&mut e);
    let big = "x".repeat(MAX_SOURCE_BYTES + 1);
    let r = call(&mut e, &s, "run", json!({"source": big}));
    assert_eq!(r["error"]["codeName"], "BadValue");
    let long_ns = "n".repeat(MAX_FIELD_BYTES + 1);
    let r = call(&mut e, &s, "frame", json!({"ns": long_ns, "whole": true}));
    assert_eq!(r["error"]["codeName"], "BadValue");
    let r = call(
        &mut e,
        &s,
        "analyze",
        json!({"ns": "test.c", "key": long_ns}),
    );
    assert_eq!(r["error"]["codeName"], "BadValue");
    let r = call(&mut e, "nobody", "run", json!({"source": "1"}));
    assert!(r.get("error").is_some(), "an unknown session is refused");
    let r = ask(&mut e, "run", json!({"source": "1"}));
    assert_eq!(r["error"]["codeName"], "BadValue", "no session is refused");
    // A batch of more documents than a step takes, or of a workload that is not one.
    let batch = |count: u32, name: &str| json!({"workload": {"ns": "test.c", "name": name, "count": count}});
    let r = call(&mut e, &s, "run", batch(MAX_BATCH + 1, "monotonic"));
    assert_eq!(r["error"]["codeName"], "BadValue", "{r}");
    let r = call(&mut e, &s, "run", batch(0, "monotonic"));
    assert_eq!(r["error"]["codeName"], "BadValue", "{r}");
    let r = call(&mut e, &s, "run", batch(1, "no such workload"));
    assert_eq!(r["error"]["codeName"], "BadValue", "{r}");
    let steps = result(call(&mut e, &s, "step", json!({"by": 0})));
    assert_eq!(steps["length"], 0, "nothing refused ran");
    // An empty cluster has a picture too.
    let empty = call(&mut e, &s, "frame", json!({"whole": true}));
    assert_eq!(result_of(empty, "frame")["docs"], 0);
}

/// A message that is not a request of this version, answered as the worker answers it:
/// `Engine::handle` when it decodes as a request (which then checks its version), else
/// `Engine::refuse` with what the message says of its `id` and `v`.
fn answer_message(engine: &mut Engine, message: Value) -> Value {
    let response = match serde_json::from_value::<Request>(message.clone()) {
        Ok(request) => engine.handle(request).response,
        Err(e) => Engine::refuse(
            message["id"].as_u64().unwrap_or(0),
            message["v"].as_u64(),
            format!("not a request of protocol version {PROTOCOL_VERSION}: {e}"),
        ),
    };
    serde_json::to_value(FromEngine::Answer(response)).expect("serialises")
}

#[test]
fn a_request_of_another_version_is_refused_saying_which_the_engine_speaks() {
    let mut e = Engine::new();
    let s = open(&mut e);
    // Version 2's `hello` is no method of version 3: the message is refused unread.
    let hello = json!({"v": 2, "id": 5, "session": "page", "method": "hello"});
    assert!(serde_json::from_value::<Request>(hello.clone()).is_err());
    let refused = answer_message(&mut e, hello);
    assert_eq!(refused["v"], PROTOCOL_VERSION);
    assert_eq!(refused["id"], 5);
    assert_eq!(refused["error"]["code"], 2, "{refused}");
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("unsupported protocol version 2"),
        "{message}"
    );
    assert!(message.contains("version 3"), "{message}");
    // A version 2 `run` reads as a request, and its version is refused before it runs.
    for session in ["page", s.as_str()] {
        let run = json!({"v": 2, "id": 6, "session": session, "method": "run", "params": {"source": "1"}});
        let (refused, events) = send(&mut e, run);
        assert!(events.is_empty());
        assert_eq!(refused["id"], 6);
        assert_eq!(refused["method"], "run");
        assert_eq!(refused["error"]["code"], 2, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("unsupported protocol version 2"),
            "{refused}"
        );
    }
    let steps = result(call(&mut e, &s, "step", json!({"by": 0})));
    assert_eq!(steps["length"], 0, "nothing ran");
    // The worker's path for a message that does not decode says the same of version 2.
    let response = Engine::refuse(7, Some(2), "no such method".into());
    assert_eq!(response.id, 7);
    let Outcome::Error(None, error) = response.outcome else {
        panic!("not an unnamed error: {response:?}")
    };
    assert_eq!((error.code, error.code_name.as_str()), (2, "BadValue"));
    assert!(
        error.message.starts_with("unsupported protocol version 2"),
        "{}",
        error.message
    );
    // A version 3 message that is not a request is refused with the reader's complaint.
    let unknown = answer_message(&mut e, json!({"v": 3, "id": 8, "method": "hello"}));
    assert_eq!(unknown["id"], 8);
    assert_eq!(unknown["error"]["codeName"], "BadValue");
    let message = unknown["error"]["message"].as_str().unwrap();
    assert!(
        !message.contains("unsupported protocol version") && message.contains("hello"),
        "{message}"
    );
    let nameless = answer_message(&mut e, json!({"id": 9}));
    assert_eq!(nameless["id"], 9);
    assert_eq!(nameless["error"]["codeName"], "BadValue");
}

/// The catalogue tells every view the engine's bounds and defaults: each limit it names is
/// the one the engine holds requests to (the largest allowed passes, one more is refused),
/// a session opened with the defaults runs the version they name, and each lesson's steps
/// are what its session plays after the setup.
#[test]
fn the_catalogue_names_the_bounds_the_engine_enforces() {
    let mut engine = Engine::new();
    let catalog = result(ask(&mut engine, "catalog", Value::Null));
    let limits = &catalog["limits"];
    let defaults = &catalog["defaults"];
    let max_shards = limits["maxShards"].as_u64().unwrap();
    let min_chunk = limits["minChunkSize"].as_u64().unwrap();
    let config = |shards: u64, chunk: u64| json!({"kind": "config", "shards": shards, "version": defaults["version"], "chunkSize": chunk, "seed": defaults["seed"]});
    let a = open_with(&mut engine, config(max_shards, min_chunk));
    let refused = ask(&mut engine, "open", config(max_shards + 1, min_chunk));
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    let refused = ask(&mut engine, "open", config(3, min_chunk - 1));
    assert_eq!(refused["error"]["codeName"], "BadValue", "{refused}");
    // The default version is the one a session opened with it reports.
    let ran = result(call(
        &mut engine,
        &a,
        "run",
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
    let compared = ask(&mut engine, "compare", spec(columns));
    assert!(compared.get("error").is_none(), "{compared}");
    let refused = ask(&mut engine, "compare", spec(columns + 1));
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
    let l = open_with(&mut engine, json!({"kind": "lesson", "id": id}));
    let steps: Vec<&str> = lesson["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(steps.len() > 1, "{lesson}");
    let ran = result(call(
        &mut engine,
        &l,
        "run",
        json!({"source": steps.join("\n"), "each": true}),
    ));
    let statements = ran["statements"].as_array().unwrap();
    // A batch with a balancer round after it is two statements (`sim.generate(...);
    // sim.balance()`), each a step of its own.
    assert!(statements.len() >= steps.len(), "{ran}");
    assert!(statements.iter().all(|s| s["ok"] == true), "{ran}");
}

/// `page.keep` as the worker sees it: the raw `Handled`, with the order to write.
fn keep(engine: &mut Engine, session: &str, id: u64) -> shardlab_engine::service::Handled {
    let request: Request = serde_json::from_value(json!({
        "v": 3, "id": id, "session": session, "method": "page.keep",
        "params": {"id": "tab-1", "page": [["tab", "cluster"]], "record": "{\"id\":\"tab-1\"}"}
    }))
    .unwrap();
    engine.handle(request)
}

#[test]
fn keep_hands_the_host_the_json_form_and_answers_its_size() {
    let mut e = Engine::new();
    let s = open(&mut e);
    result(call(&mut e, &s, "run", json!({"source": SETUP})));
    // An engine whose host keeps no sessions (the engine in a page) refuses, in words.
    let refused = keep(&mut e, &s, 9);
    assert!(refused.keep.is_none());
    let Outcome::Error(Some(method), error) = refused.response.outcome else {
        panic!("not refused")
    };
    assert_eq!(
        (method.as_str(), error.code_name.as_str()),
        ("page.keep", "BadValue")
    );
    assert!(
        error.message.contains("keeps no sessions"),
        "{}",
        error.message
    );

    e.keeps_sessions();
    let handled = keep(&mut e, &s, 10);
    let order = handled.keep.expect("an order to write");
    // What is written is the session's JSON form with the page's state, as `scenario`
    // with `json` answers it, under the page's id, for this request.
    let json = result_of(
        call(
            &mut e,
            &s,
            "scenario",
            json!({"json": true, "page": [["tab", "cluster"]]}),
        ),
        "scenario",
    );
    assert_eq!(order.text, json["text"].as_str().unwrap());
    assert_eq!((order.id.as_str(), order.request), ("tab-1", 10));
    // The page's record goes beside it, unread.
    assert_eq!(order.record, r#"{"id":"tab-1"}"#);
    let answer = serde_json::to_value(FromEngine::Answer(handled.response)).unwrap();
    assert_eq!(
        result_of(answer, "page.keep"),
        json!({"bytes": order.text.len(), "kept": true})
    );
    // The host's answer when the store refuses: the same request, not kept, and why.
    let failed = Engine::not_kept(10, 77, "the browser's storage is full".into());
    let failed = serde_json::to_value(FromEngine::Answer(failed)).unwrap();
    assert_eq!(failed["id"], 10);
    assert_eq!(
        result_of(failed, "page.keep"),
        json!({"bytes": 77, "kept": false, "why": "the browser's storage is full"})
    );
    // A session the engine does not hold.
    let none = keep(&mut e, "s99", 11);
    assert!(none.keep.is_none());
    assert!(
        matches!(none.response.outcome, Outcome::Error(_, ref e) if e.code_name == "NoSuchSession")
    );
}

#[test]
fn a_session_past_a_link_saves_without_its_link_form() {
    let mut e = Engine::new();
    let s = open(&mut e);
    let (answer, events) = send(
        &mut e,
        json!({"v": 3, "id": 2, "session": s, "method": "run", "params": {"source": SETUP}}),
    );
    result(answer);
    let save = events
        .iter()
        .find(|e| e["event"] == "save")
        .expect("a save");
    let link = save["data"]["text"].as_str().expect("a link form");
    assert!(link.starts_with("v"), "{link}");
    let steps = save["data"]["steps"].as_u64().unwrap();
    // One insert of about 400 KB of documents: more than a link holds (256 KiB decoded).
    let docs: Vec<String> = (0..4000)
        .map(|i| format!("{{x: {i}, pad: \"{}\"}}", "p".repeat(90)))
        .collect();
    let source = format!("db.events.insertMany([{}])", docs.join(","));
    let (answer, events) = send(
        &mut e,
        json!({"v": 3, "id": 3, "session": s, "method": "run", "params": {"source": source}}),
    );
    result(answer);
    let save = events
        .iter()
        .find(|e| e["event"] == "save")
        .expect("a save");
    assert_eq!(save["data"]["text"], Value::Null, "{}", save["data"]);
    assert_eq!(save["data"]["steps"], steps + 1);
}
