//! The protocol's shapes on the wire: what a view written in JavaScript sends and reads.
// A test fails loudly on a missing field; that is what unwrap is for here.
#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use shardlab_protocol::*;

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("serialises")
}

#[test]
fn a_request_is_id_session_method_params() {
    let r = Request::new(
        7,
        "page",
        Call::Run {
            source: "sh.status()".into(),
        },
    );
    assert_eq!(
        to_json(&r),
        json!({"v": 2, "id": 7, "session": "page", "method": "run", "params": {"source": "sh.status()"}})
    );
    let back: Request = serde_json::from_value(to_json(&r)).expect("decodes");
    assert_eq!(back, r);
}

#[test]
fn a_method_without_params_needs_none() {
    let r: Request =
        serde_json::from_value(json!({"v": 2, "id": 1, "session": "a", "method": "hello"}))
            .expect("decodes");
    assert_eq!(r.call, Call::Hello);
    let open: Request = serde_json::from_value(json!({
        "v": 2, "id": 2, "session": "a", "method": "open",
        "params": {"from": "config", "shards": 3, "version": "8.0", "chunkSize": null, "seed": 1}
    }))
    .expect("decodes");
    assert_eq!(
        open.call,
        Call::Open(Start::Config(SessionConfig {
            shards: 3,
            version: "8.0".into(),
            chunk_size: None,
            seed: 1
        }))
    );
}

#[test]
fn answers_carry_result_or_error() {
    let ok = Response {
        id: 3,
        outcome: Outcome::Result(Reply::Position(Position {
            position: 2,
            length: 5,
        })),
    };
    assert_eq!(
        to_json(&ok),
        json!({"id": 3, "result": {"position": {"position": 2, "length": 5}}})
    );
    let err = Response {
        id: 4,
        outcome: Outcome::Error(EngineError::no_such_session("x")),
    };
    assert_eq!(
        to_json(&err),
        json!({"id": 4, "error": {"code": 206, "codeName": "NoSuchSession", "message": "no session named 'x' is open"}})
    );
    for r in [ok, err] {
        let back: FromEngine = serde_json::from_value(to_json(&r)).expect("decodes");
        assert_eq!(back, FromEngine::Answer(r.clone()));
        let back: Response = serde_json::from_value(to_json(&r)).expect("decodes");
        assert_eq!(back, r);
    }
    let closed = Response {
        id: 5,
        outcome: Outcome::Result(Reply::Closed),
    };
    assert_eq!(to_json(&closed), json!({"id": 5, "result": "closed"}));
    for neither_or_both in [
        json!({"id": 6}),
        json!({"id": 6, "result": "closed", "error": {"code": 2, "codeName": "BadValue", "message": "m"}}),
    ] {
        assert!(serde_json::from_value::<Response>(neither_or_both).is_err());
    }
}

#[test]
fn events_carry_session_event_data() {
    let e = EventMessage {
        session: "page".into(),
        event: Event::Progress { done: 3, total: 9 },
    };
    assert_eq!(
        to_json(&e),
        json!({"session": "page", "event": "progress", "data": {"done": 3, "total": 9}})
    );
    let back: FromEngine = serde_json::from_value(to_json(&e)).expect("decodes");
    assert_eq!(back, FromEngine::Event(e));
}

#[test]
fn check_refuses_what_an_attacker_might_send() {
    let ok = |call: Call| Request::new(1, "page", call).check();
    assert!(ok(Call::Hello).is_ok());
    let mut wrong_version = Request::new(1, "page", Call::Hello);
    wrong_version.v = 1;
    assert_eq!(wrong_version.check().map_err(|e| e.code), Err(2));
    for bad in ["", "a b", "x\"y", &"s".repeat(MAX_SESSION_ID_BYTES + 1)] {
        assert!(
            Request::new(1, bad, Call::Hello).check().is_err(),
            "{bad:?}"
        );
    }
    let huge = "1".repeat(MAX_SOURCE_BYTES + 1);
    assert!(ok(Call::Run { source: huge }).is_err());
    let config = |shards, version: &str, bytes| {
        Call::Open(Start::Config(SessionConfig {
            shards,
            version: version.into(),
            chunk_size: bytes,
            seed: 1,
        }))
    };
    assert!(ok(config(64, "8.0", Some(MAX_CHUNK_SIZE))).is_ok());
    assert!(ok(config(0, "8.0", None)).is_err());
    assert!(ok(config(65, "8.0", None)).is_err());
    assert!(ok(config(3, "7.0", None)).is_ok());
    assert!(ok(config(3, "6.5", None)).is_err());
    assert!(ok(config(3, "5.0", Some(MIN_CHUNK_SIZE - 1))).is_err());
    let compare = |columns: usize, ticks| {
        Call::Compare(CompareSpec {
            columns: vec![
                CompareColumn {
                    key: "{x: 1}".into(),
                    version: "8.0".into()
                };
                columns
            ],
            workload: "uniform".into(),
            batch: 100,
            ticks,
            chunk_size: 32 * 1024,
        })
    };
    assert!(ok(compare(2, 10)).is_ok());
    assert!(ok(compare(0, 10)).is_err());
    assert!(ok(compare(MAX_COLUMNS + 1, 10)).is_err());
    assert!(ok(compare(2, MAX_COMPARE_TICKS + 1)).is_err());
    assert!(ok(Call::Step { by: i64::MIN }).is_err());
}

#[test]
fn evaluate_answers_one_entry_per_statement_in_plain_json() {
    let r: Request = serde_json::from_value(json!({
        "v": 2, "id": 3, "session": "lab-0", "method": "evaluate", "params": {"source": "1; x"}
    }))
    .expect("decodes");
    assert_eq!(
        r.call,
        Call::Evaluate {
            source: "1; x".into(),
            each: false
        },
        "`each` may be left out"
    );
    let reply = Reply::Evaluated {
        statements: vec![
            StatementResult {
                ok: true,
                value: Some(Json::Object(JsonObject(vec![
                    ("a".into(), Json::Number(1.0)),
                    ("b".into(), Json::List(vec![Json::Null, Json::Bool(true)])),
                    (
                        "_id".into(),
                        Json::Object(JsonObject(vec![("$oid".into(), Json::Text("65a1".into()))])),
                    ),
                ]))),
                error: None,
                printed: "{ a: 1 }\n".into(),
                step: 1,
            },
            StatementResult {
                ok: false,
                value: None,
                error: Some(StatementError {
                    code: 0,
                    code_name: "ReferenceError".into(),
                    errmsg: "x is not defined".into(),
                    line: Some(1),
                }),
                printed: "ReferenceError: x is not defined\n".into(),
                step: 1,
            },
        ],
        position: Position {
            position: 1,
            length: 1,
        },
    };
    let wire = to_json(&reply)["evaluated"].clone();
    assert_eq!(
        wire["statements"][0],
        json!({"ok": true, "value": {"a": 1.0, "b": [null, true], "_id": {"$oid": "65a1"}}, "printed": "{ a: 1 }\n", "step": 1})
    );
    assert_eq!(
        wire["statements"][1],
        json!({"ok": false, "error": {"code": 0, "codeName": "ReferenceError", "errmsg": "x is not defined", "line": 1}, "printed": "ReferenceError: x is not defined\n", "step": 1})
    );
    // Keys keep their order, on the wire and back.
    let text = serde_json::to_string(&reply).unwrap();
    assert!(
        text.contains(r#""value":{"a":1.0,"b":[null,true],"_id":{"$oid":"65a1"}}"#),
        "{text}"
    );
    let back: Reply = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back, reply);
}

#[test]
fn heat_cells_travel_as_their_little_endian_bytes() {
    let view = HeatView {
        ns: "test.events".into(),
        cells: vec![0.0, 1.5, 3.0e6, f32::MAX],
        ..HeatView::default()
    };
    let wire = to_json(&view);
    let mut bytes = Vec::new();
    for f in [0.0f32, 1.5, 3.0e6, f32::MAX] {
        bytes.extend(f.to_le_bytes().map(|b| json!(b)));
    }
    assert_eq!(wire["cells"], Value::Array(bytes));
    let back: HeatView = serde_json::from_value(wire.clone()).expect("decodes");
    assert_eq!(back, view);
    // Bytes that are not whole numbers are refused, not cut.
    let mut torn = wire;
    torn["cells"].as_array_mut().unwrap().push(json!(7));
    let e = serde_json::from_value::<HeatView>(torn)
        .unwrap_err()
        .to_string();
    assert!(e.contains("invalid length 17"), "{e}");
}
