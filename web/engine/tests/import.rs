//! The user's own documents through the protocol: a file sent a slice at a time, read as
//! mongoimport reads it, inserted at `end` as one step, and what did not go in named by line.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab_engine::Engine;

#[path = "support/json_requests.rs"]
mod json_requests;
use json_requests::{call, ok, send};

fn open(engine: &mut Engine) -> String {
    let (answer, _) = send(
        engine,
        json!({"v": 3, "id": 1, "method": "open", "params": {"kind": "config", "shards": 3, "version": "8.0", "seed": 1}}),
    );
    ok(answer)["session"].as_str().unwrap().to_string()
}

/// Sends `file` in slices of `size` bytes under `begin`'s options; returns `end`'s answer.
fn import(engine: &mut Engine, s: &str, begin: Value, file: &[u8], size: usize) -> Value {
    ok(call(engine, s, "import", begin));
    for slice in file.chunks(size) {
        let progress = ok(call(
            engine,
            s,
            "import",
            json!({"kind": "slice", "bytes": slice}),
        ));
        assert_eq!(progress["done"], false);
    }
    end(engine, s)
}

/// Sends `end` until the import is done; returns the last answer.
fn end(engine: &mut Engine, s: &str) -> Value {
    loop {
        let answer = ok(call(engine, s, "import", json!({"kind": "end"})));
        if answer["done"] == true {
            return answer;
        }
    }
}

/// `n` small documents as JSON lines, `_id` from 0.
fn lines(n: u64) -> Vec<u8> {
    (0..n)
        .map(|i| format!("{{\"_id\": {i}, \"k\": {}}}\n", i % 7))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn a_large_file_goes_in_a_few_batches_per_end_and_the_session_sees_it_only_whole() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    run(
        &mut engine,
        &s,
        "sh.shardCollection(\"test.big\", {_id: 1})",
    );
    let n = 12_345;
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "begin", "ns": "test.big", "format": "json"}),
    ));
    for slice in lines(n).chunks(1 << 16) {
        ok(call(
            &mut engine,
            &s,
            "import",
            json!({"kind": "slice", "bytes": slice}),
        ));
    }
    // Each `end` inserts about IMPORT_DOCS_PER_CALL more, and says how far it got, until
    // the last one pushes the step.
    let per_call = shardlab_protocol::IMPORT_DOCS_PER_CALL;
    let mut seen = Vec::new();
    let done = loop {
        let answer = ok(call(&mut engine, &s, "import", json!({"kind": "end"})));
        if answer["done"] == true {
            break answer;
        }
        seen.push(answer["inserted"].as_u64().unwrap());
        assert_eq!(answer["documents"], n, "{answer}");
        // What the session shows meanwhile is as it was (and this count is a step of
        // its own, so the import's step lands after it, its text run again there).
        assert_eq!(run(&mut engine, &s, "db.big.countDocuments()"), json!(0.0));
    };
    assert_eq!(seen, vec![per_call, 2 * per_call], "{seen:?}");
    assert_eq!(done["inserted"], n, "{done}");
    assert_eq!(done["failed"], 0, "{done}");
    // The step joined at the end of the timeline (the two counts above were steps too).
    let length = done["position"]["length"].as_u64().unwrap();
    assert_eq!(length, 4, "{done}");
    assert_eq!(
        run(&mut engine, &s, "db.big.countDocuments()"),
        json!(n as f64)
    );
    // Replayed from its text, the step rebuilds the same collection.
    ok(call(&mut engine, &s, "jump", json!({"to": 0})));
    ok(call(&mut engine, &s, "jump", json!({"to": length})));
    assert_eq!(
        run(&mut engine, &s, "db.big.countDocuments()"),
        json!(n as f64)
    );
    assert_eq!(
        run(&mut engine, &s, "db.big.find({_id: 12344}).toArray()[0].k"),
        json!((12_344 % 7) as f64)
    );
}

#[test]
fn cancel_while_the_documents_go_in_leaves_the_session_as_it_was() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "begin", "ns": "test.big", "format": "json"}),
    ));
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "slice", "bytes": lines(8_000)}),
    ));
    let first = ok(call(&mut engine, &s, "import", json!({"kind": "end"})));
    assert_eq!(first["done"], false, "{first}");
    let late = call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "slice", "bytes": lines(1)}),
    );
    assert!(
        late["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the file has ended"),
        "{late}"
    );
    let cancelled = ok(call(&mut engine, &s, "import", json!({"kind": "cancel"})));
    assert_eq!(cancelled["position"]["length"], 0, "{cancelled}");
    assert_eq!(run(&mut engine, &s, "db.big.countDocuments()"), json!(0.0));
}

fn run(engine: &mut Engine, s: &str, source: &str) -> Value {
    ok(call(engine, s, "run", json!({"source": source})))["statements"][0]["value"].clone()
}

const CSV: &str =
    "name,age,city\nAda,36,London\nGrace,85,\"New York\"\n\"bad\"x,1,2\nLinus,54,Helsinki\n";

#[test]
fn a_csv_file_in_slices_goes_in_as_one_step_and_names_the_line_that_did_not() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    run(
        &mut engine,
        &s,
        "sh.shardCollection(\"test.people\", {name: 1})",
    );
    let before = run(&mut engine, &s, "1");
    assert_eq!(before, json!(1.0));
    let steps = ok(call(&mut engine, &s, "step", json!({"by": 0})))["length"].clone();
    let done = import(
        &mut engine,
        &s,
        json!({"kind": "begin", "ns": "test.people", "fileName": "people.csv"}),
        CSV.as_bytes(),
        7,
    );
    assert_eq!(done["done"], true);
    assert_eq!(done["inserted"], 3, "{done}");
    assert_eq!(done["failed"], 1, "{done}");
    assert_eq!(done["failures"][0]["line"], 4, "{done}");
    assert!(
        done["failures"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("extraneous \" in field"),
        "mongoimport's words: {done}"
    );
    assert_eq!(
        done["position"]["length"],
        steps.as_u64().unwrap() + 1,
        "one step"
    );
    // Typed as mongoimport types a CSV: a number's text is a number.
    assert_eq!(
        run(
            &mut engine,
            &s,
            "db.people.findOne({name: \"Grace\"}, {_id: 0})"
        ),
        json!({"name": "Grace", "age": 85.0, "city": "New York"})
    );
    assert_eq!(
        run(&mut engine, &s, "db.people.countDocuments()"),
        json!(3.0)
    );
    // The step is a step: back before it, the documents are not there.
    ok(call(&mut engine, &s, "jump", json!({"to": steps})));
    ok(call(&mut engine, &s, "fork", Value::Null));
    assert_eq!(
        run(&mut engine, &s, "db.people.countDocuments()"),
        json!(0.0)
    );
}

#[test]
fn json_lines_sorted_by_a_field_and_a_duplicate_id_refused_alone() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let file = "{\"_id\": 1, \"ts\": {\"$date\": \"2024-03-01T00:00:00Z\"}}\n{\"_id\": 2, \"ts\": {\"$date\": \"2024-01-01T00:00:00Z\"}}\nnot json\n{\"_id\": 1, \"ts\": {\"$date\": \"2024-02-01T00:00:00Z\"}}\n";
    let done = import(
        &mut engine,
        &s,
        json!({"kind": "begin", "ns": "test.events", "fileName": "events.jsonl", "sortBy": "ts"}),
        file.as_bytes(),
        16,
    );
    assert_eq!(done["inserted"], 2, "{done}");
    assert_eq!(done["failed"], 2, "{done}");
    let lines: Vec<u64> = done["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(
        lines,
        vec![1, 3],
        "the later _id 1 (in ts order) is the duplicate: {done}"
    );
    assert!(done["failures"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("E11000"));
    // In ts order: _id 2 (January) went in first.
    assert_eq!(
        run(
            &mut engine,
            &s,
            "db.events.find().toArray().map(d => d._id)"
        ),
        json!([2.0, 1.0])
    );
}

#[test]
fn misuse_is_refused_and_cancel_leaves_nothing() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let refused = call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "slice", "bytes": [1, 2]}),
    );
    assert_eq!(refused["error"]["codeName"], "BadValue");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no import is under way"));
    let typed = call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "begin", "ns": "test.t", "format": "xml"}),
    );
    assert!(typed["error"]["message"]
        .as_str()
        .unwrap()
        .contains("unknown import type 'xml'"));
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "begin", "ns": "test.t", "format": "json"}),
    ));
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "slice", "bytes": b"{\"a\": 1}\n".to_vec()}),
    ));
    let cancelled = ok(call(&mut engine, &s, "import", json!({"kind": "cancel"})));
    assert_eq!(cancelled["position"]["length"], 0, "nothing went in");
    let after = call(&mut engine, &s, "import", json!({"kind": "end"}));
    assert_eq!(after["error"]["codeName"], "BadValue");
    // A binary file is refused in words, not a panic; the session goes on.
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "begin", "ns": "test.t", "fileName": "photo.json"}),
    ));
    let png: Vec<u8> = [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13].repeat(64);
    ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "slice", "bytes": png}),
    ));
    let done = end(&mut engine, &s);
    assert!(done["stopped"].is_string(), "{done}");
    assert_eq!(done["inserted"], 0);
    assert_eq!(run(&mut engine, &s, "1 + 1"), json!(2.0));
}

#[test]
fn a_preview_shows_columns_and_fields_and_chosen_types_take_effect() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    let file = b"zip,day,n\n02134,2024-03-05,7\n02135,2024-03-06,8\n";
    let preview = ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "preview", "bytes": &file[..], "complete": true, "fileName": "z.csv"}),
    ))["preview"]
        .clone();
    assert_eq!(preview["format"], "csv");
    assert_eq!(
        preview["columns"],
        json!([{"name": "zip", "type": "auto"}, {"name": "day", "type": "auto"}, {"name": "n", "type": "auto"}])
    );
    assert_eq!(preview["documents"], 2);
    assert!(preview["typeChoices"]
        .as_array()
        .unwrap()
        .contains(&json!("string()")));
    // A preview imports nothing.
    assert_eq!(run(&mut engine, &s, "db.z.countDocuments({})"), json!(0.0));
    let begin = json!({"kind": "begin", "ns": "test.z", "fileName": "z.csv",
        "columnTypes": [{"name": "zip", "type": "string()"}, {"name": "day", "type": "date_ms(yyyy-MM-dd)"}]});
    let done = import(&mut engine, &s, begin, file, 9);
    assert_eq!(done["inserted"], 2, "{done}");
    assert_eq!(
        run(
            &mut engine,
            &s,
            "db.z.countDocuments({zip: '02134', day: ISODate('2024-03-05')})"
        ),
        json!(1.0)
    );
    // A column the header does not name stops the preview with the reason, not the engine.
    let missing = ok(call(
        &mut engine,
        &s,
        "import",
        json!({"kind": "preview", "bytes": &file[..], "complete": true, "fileName": "z.csv",
            "columnTypes": [{"name": "city", "type": "string()"}]}),
    ));
    assert!(
        missing["preview"]["error"]
            .as_str()
            .unwrap()
            .contains("`city`"),
        "{missing}"
    );
}

#[test]
fn compare_columns_replay_an_imported_collection_batch_by_batch_in_its_order() {
    let mut engine = Engine::new();
    let s = open(&mut engine);
    // Documents whose `ts` grows: imported, then replayed on two Compare columns.
    let file: String = (0..1_000)
        .map(|i| format!("{{\"ts\": {i}, \"user\": {}}}\n", (i * 7919) % 1_009))
        .collect();
    let done = import(
        &mut engine,
        &s,
        json!({"kind": "begin", "ns": "shop.orders", "format": "json"}),
        file.as_bytes(),
        4096,
    );
    assert_eq!(done["inserted"], 1_000, "{done}");
    let mut columns = Vec::new();
    for key in ["{ts: 1}", "{user: 'hashed'}"] {
        let column = json!({"v": 3, "id": 2, "method": "open", "params": {"kind": "compare", "column": {"key": key, "version": "8.0"}, "chunkSize": 32768}});
        columns.push(
            ok(send(&mut engine, column).0)["session"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    for tick in 0..4u64 {
        for c in &columns {
            let params = json!({"workload": {"ns": "test.events", "name": "sample", "count": 250, "balance": true,
                "sample": {"session": s, "ns": "shop.orders", "from": tick * 250}}});
            ok(call(&mut engine, c, "run", params));
        }
    }
    for c in &columns {
        assert_eq!(
            run(&mut engine, c, "db.events.countDocuments()"),
            json!(1000.0)
        );
        assert_eq!(
            run(&mut engine, c, "db.events.countDocuments({ts: 999})"),
            json!(1.0)
        );
    }
    // In the sample's order, the ranged key on a growing field piles every insert on one
    // chunk's shard (in any other order they would spread); the hashed one spreads them.
    let ranged = ok(call(
        &mut engine,
        &columns[0],
        "page.summary",
        json!({"ns": "test.events"}),
    ));
    let hashed = ok(call(
        &mut engine,
        &columns[1],
        "page.summary",
        json!({"ns": "test.events"}),
    ));
    let spread = |row: &Value| {
        row["insertsPerShard"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|pair| pair[1].as_u64() > Some(0))
            .count()
    };
    assert_eq!(spread(&ranged), 1, "{ranged}");
    assert!(spread(&hashed) > 1, "{hashed}");
    // Past the end, in words; a session that is not open, as the engine says it.
    let past = call(
        &mut engine,
        &columns[0],
        "run",
        json!({"workload": {"ns": "test.events", "name": "sample", "count": 10,
        "sample": {"session": s, "ns": "shop.orders", "from": 1000}}}),
    );
    assert!(
        past["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no documents after the first 1000"),
        "{past}"
    );
    let gone = call(
        &mut engine,
        &columns[0],
        "run",
        json!({"workload": {"ns": "test.events", "name": "sample", "count": 10,
        "sample": {"session": "nobody", "ns": "shop.orders", "from": 0}}}),
    );
    assert_eq!(gone["error"]["codeName"], "BadValue", "{gone}");
    assert!(
        gone["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no open session 'nobody' holds the documents"),
        "{gone}"
    );
}
