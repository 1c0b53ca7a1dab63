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
    let r = Request::new(7, Some("s1"), Call::Run(RunSpec::source("sh.status()")));
    assert_eq!(
        to_json(&r),
        json!({"v": 3, "id": 7, "session": "s1", "method": "run", "params": {"source": "sh.status()", "each": false}})
    );
    let back: Request = serde_json::from_value(to_json(&r)).expect("decodes");
    assert_eq!(back, r);
    // A method about no session names none on the wire.
    let catalog = Request::new(8, None, Call::Catalog);
    assert_eq!(
        to_json(&catalog),
        json!({"v": 3, "id": 8, "method": "catalog"})
    );
    let back: Request = serde_json::from_value(to_json(&catalog)).expect("decodes");
    assert_eq!(back, catalog);
    // A page-only method is named `page.…`.
    let act = Request::new(9, Some("s1"), Call::Act(Act::Look));
    assert_eq!(
        to_json(&act),
        json!({"v": 3, "id": 9, "session": "s1", "method": "page.act", "params": {"kind": "look"}})
    );
    let back: Request = serde_json::from_value(to_json(&act)).expect("decodes");
    assert_eq!(back, act);
}

#[test]
fn a_method_without_params_needs_none() {
    let r: Request =
        serde_json::from_value(json!({"v": 3, "id": 1, "method": "catalog"})).expect("decodes");
    assert_eq!((r.call, r.session), (Call::Catalog, None));
    let open: Request = serde_json::from_value(json!({
        "v": 3, "id": 2, "method": "open",
        "params": {"kind": "config", "shards": 3, "version": "8.0", "chunkSize": null, "seed": 1}
    }))
    .expect("decodes");
    assert_eq!(open.session, None);
    assert_eq!(
        open.call,
        Call::Open(Start::Config(SessionConfig {
            shards: 3,
            version: "8.0".into(),
            chunk_size: None,
            seed: 1
        }))
    );
    let close: Request =
        serde_json::from_value(json!({"v": 3, "id": 3, "session": "s1", "method": "close"}))
            .expect("decodes");
    assert_eq!(
        (close.call, close.session.as_deref()),
        (Call::Close, Some("s1"))
    );
    // The methods v3 merged away are not requests any more.
    for gone in [
        "hello",
        "evaluate",
        "generate",
        "cluster",
        "chunkDocs",
        "link",
    ] {
        let r = serde_json::from_value::<Request>(
            json!({"v": 3, "id": 4, "session": "s1", "method": gone, "params": {}}),
        );
        assert!(r.is_err(), "{gone}");
    }
}

#[test]
fn answers_carry_method_and_result_or_error() {
    let ok = Response {
        id: 3,
        outcome: Outcome::Result(Reply::Step(Position {
            position: 2,
            length: 5,
        })),
    };
    assert_eq!(
        to_json(&ok),
        json!({"v": 3, "id": 3, "method": "step", "result": {"position": 2, "length": 5}})
    );
    let err = Response {
        id: 4,
        outcome: Outcome::Error(Some("frame".into()), EngineError::no_such_session("x")),
    };
    assert_eq!(
        to_json(&err),
        json!({"v": 3, "id": 4, "method": "frame", "error": {"code": 206, "codeName": "NoSuchSession", "message": "no session named 'x' is open"}})
    );
    // A message that named no method the engine knows is answered without one.
    let unnamed = Response {
        id: 0,
        outcome: Outcome::Error(None, EngineError::unsupported_version(2)),
    };
    let wire = to_json(&unnamed);
    assert_eq!(wire["v"], 3);
    assert!(wire.get("method").is_none(), "{wire}");
    assert_eq!(wire["error"]["code"], 2);
    assert!(wire["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("unsupported protocol version 2"));
    let closed = Response {
        id: 5,
        outcome: Outcome::Result(Reply::Close),
    };
    assert_eq!(
        to_json(&closed),
        json!({"v": 3, "id": 5, "method": "close"}),
        "a method without content has no result"
    );
    for r in [ok, err, unnamed, closed] {
        let back: FromEngine = serde_json::from_value(to_json(&r)).expect("decodes");
        assert_eq!(back, FromEngine::Answer(r.clone()));
        let back: Response = serde_json::from_value(to_json(&r)).expect("decodes");
        assert_eq!(back, r);
        let text = serde_json::to_string(&r).unwrap();
        let back: Response = serde_json::from_str(&text).expect("decodes");
        assert_eq!(back, r);
    }
    for neither_or_both in [
        json!({"v": 3, "id": 6}),
        json!({"v": 3, "id": 6, "method": "close", "result": null, "error": {"code": 2, "codeName": "BadValue", "message": "m"}}),
        json!({"v": 3, "method": "close"}),
    ] {
        assert!(
            serde_json::from_value::<Response>(neither_or_both.clone()).is_err(),
            "{neither_or_both}"
        );
    }
}

#[test]
fn events_carry_version_session_event_data() {
    let e = EventMessage::new("s1", Event::Progress { done: 3, total: 9 });
    assert_eq!(
        to_json(&e),
        json!({"v": 3, "session": "s1", "event": "progress", "data": {"done": 3, "total": 9}})
    );
    let back: FromEngine = serde_json::from_value(to_json(&e)).expect("decodes");
    assert_eq!(back, FromEngine::Event(e));
    let save = EventMessage::new(
        "s2",
        Event::Save {
            text: Some("v2.x".into()),
            steps: 4,
        },
    );
    assert_eq!(
        to_json(&save),
        json!({"v": 3, "session": "s2", "event": "save", "data": {"text": "v2.x", "steps": 4}})
    );
    let back: FromEngine = serde_json::from_value(to_json(&save)).expect("decodes");
    assert_eq!(back, FromEngine::Event(save));
    // A session past what a link holds is saved without its link form.
    let big = EventMessage::new(
        "s2",
        Event::Save {
            text: None,
            steps: 5,
        },
    );
    assert_eq!(
        to_json(&big),
        json!({"v": 3, "session": "s2", "event": "save", "data": {"text": null, "steps": 5}})
    );
}

#[test]
fn check_refuses_what_an_attacker_might_send() {
    // A method about a session names its handle; one about none (open above all) names none.
    let ok = |call: Call| Request::new(1, Some("s1"), call).check();
    let free = |call: Call| Request::new(1, None, call).check();
    assert!(free(Call::Catalog).is_ok());
    assert!(ok(Call::Close).is_ok());
    let mut wrong_version = Request::new(1, None, Call::Catalog);
    wrong_version.v = 1;
    let refused = wrong_version.check().unwrap_err();
    assert_eq!(refused.code, 2);
    assert!(
        refused
            .message
            .starts_with("unsupported protocol version 1"),
        "{}",
        refused.message
    );
    wrong_version.v = 2;
    assert!(wrong_version
        .check()
        .unwrap_err()
        .message
        .starts_with("unsupported protocol version 2"));
    for bad in ["", "a b", "x\"y", &"s".repeat(MAX_SESSION_ID_BYTES + 1)] {
        assert!(
            Request::new(1, Some(bad), Call::Close).check().is_err(),
            "{bad:?}"
        );
    }
    // Without a session, a method about one is refused; with one, `open` is.
    for about_one in [
        Call::Close,
        Call::Fork,
        Call::Run(RunSpec::source("1")),
        Call::Frame {
            ns: None,
            whole: true,
        },
        Call::Act(Act::Look),
        Call::Events { ns: "a.b".into() },
    ] {
        let method = about_one.method();
        let e = free(about_one).unwrap_err();
        assert_eq!(e.code_name, "BadValue", "{method}");
    }
    let config = |shards, version: &str, bytes| {
        Call::Open(Start::Config(SessionConfig {
            shards,
            version: version.into(),
            chunk_size: bytes,
            seed: 1,
        }))
    };
    assert_eq!(
        ok(config(3, "8.0", None)).unwrap_err().code_name,
        "BadValue",
        "the engine names sessions"
    );
    for no_session in [
        Call::CheckKey {
            key: "{x: 1}".into(),
        },
        Call::NeedsMoreInput {
            source: "db.c.find({".into(),
        },
        Call::InsertCommand {
            ns: "a.b".into(),
            doc: "{x: 1}".into(),
        },
    ] {
        assert!(free(no_session).is_ok());
    }
    let huge = "1".repeat(MAX_SOURCE_BYTES + 1);
    assert!(ok(Call::Run(RunSpec::source(huge))).is_err());
    // `run` takes a source or a workload's batch of 1 to MAX_BATCH documents, not both.
    let batch = |count, source: &str| {
        Call::Run(RunSpec {
            source: source.into(),
            each: false,
            workload: Some(WorkloadRun {
                ns: "test.events".into(),
                name: "monotonic".into(),
                count,
                balance: true,
                sample: None,
            }),
        })
    };
    assert!(ok(batch(MAX_BATCH, "")).is_ok());
    assert!(ok(batch(0, "")).is_err());
    assert!(ok(batch(MAX_BATCH + 1, "")).is_err());
    assert!(ok(batch(1, "db.dropDatabase()")).is_err());
    assert!(free(config(64, "8.0", Some(MAX_CHUNK_SIZE))).is_ok());
    assert!(free(config(0, "8.0", None)).is_err());
    assert!(free(config(65, "8.0", None)).is_err());
    assert!(free(config(3, "7.0", None)).is_ok());
    assert!(free(config(3, "6.5", None)).is_err());
    assert!(free(config(3, "5.0", Some(MIN_CHUNK_SIZE - 1))).is_err());
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
    assert!(free(compare(2, 10)).is_ok());
    assert!(free(compare(0, 10)).is_err());
    assert!(free(compare(MAX_COLUMNS + 1, 10)).is_err());
    assert!(free(compare(2, MAX_COMPARE_TICKS + 1)).is_err());
    assert!(ok(Call::Step { by: i64::MIN }).is_err());
}

#[test]
fn run_answers_one_entry_per_statement_in_plain_json() {
    let r: Request = serde_json::from_value(json!({
        "v": 3, "id": 3, "session": "s1", "method": "run", "params": {"source": "1; x"}
    }))
    .expect("decodes");
    assert_eq!(
        r.call,
        Call::Run(RunSpec {
            source: "1; x".into(),
            each: false,
            workload: None,
        }),
        "`each` and `workload` may be left out"
    );
    let generate: Request = serde_json::from_value(json!({
        "v": 3, "id": 4, "session": "s1", "method": "run",
        "params": {"workload": {"ns": "test.events", "name": "monotonic", "count": 200}}
    }))
    .expect("decodes");
    assert_eq!(
        generate.call,
        Call::Run(RunSpec {
            source: String::new(),
            each: false,
            workload: Some(WorkloadRun {
                ns: "test.events".into(),
                name: "monotonic".into(),
                count: 200,
                balance: false,
                sample: None,
            }),
        }),
        "a workload's batch runs without a source; `balance` may be left out"
    );
    let reply = Reply::Run {
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
    let tagged = to_json(&Response {
        id: 1,
        outcome: Outcome::Result(reply.clone()),
    });
    assert_eq!(tagged["method"], "run");
    let wire = tagged["result"].clone();
    assert_eq!(
        wire["statements"][0],
        json!({"ok": true, "value": {"a": 1.0, "b": [null, true], "_id": {"$oid": "65a1"}}, "printed": "{ a: 1 }\n", "step": 1})
    );
    assert_eq!(
        wire["statements"][1],
        json!({"ok": false, "error": {"code": 0, "codeName": "ReferenceError", "errmsg": "x is not defined", "line": 1}, "printed": "ReferenceError: x is not defined\n", "step": 1})
    );
    assert_eq!(wire["position"], json!({"position": 1, "length": 1}));
    // Keys keep their order, on the wire and back.
    let text = serde_json::to_string(&reply).unwrap();
    assert!(
        text.contains(r#""value":{"a":1.0,"b":[null,true],"_id":{"$oid":"65a1"}}"#),
        "{text}"
    );
    let back: Reply = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back, reply);
    // And in a whole answer.
    let answer = Response {
        id: 3,
        outcome: Outcome::Result(reply),
    };
    let text = serde_json::to_string(&answer).unwrap();
    assert!(
        text.contains(r#""value":{"a":1.0,"b":[null,true],"_id":{"$oid":"65a1"}}"#),
        "{text}"
    );
    let back: Response = serde_json::from_str(&text).expect("decodes");
    assert_eq!(back, answer);
}

fn statement(printed: &str) -> StatementResult {
    StatementResult {
        ok: true,
        value: Some(Json::Number(2.0)),
        error: None,
        printed: printed.into(),
        step: 1,
    }
}

fn row(label: &str) -> CompareRow {
    CompareRow {
        label: label.into(),
        inserts_per_shard: vec![("shard00".into(), 3)],
        chunks_per_shard: vec![("shard00".into(), 1)],
        docs_per_shard: vec![("shard00".into(), 3)],
        hottest_shard_share: 1.0,
        hot_window: 3,
        jumbo_chunks: 0,
        single_shard_share: 0.25,
        multi_shard_share: 0.5,
        scatter_gather_share: 0.25,
        errors: vec![],
    }
}

fn page_view() -> PageView {
    PageView {
        position: Position {
            position: 2,
            length: 2,
        },
        step: Some("sh.shardCollection(\"test.events\", {x: 1})".into()),
        lines: vec![PageLine {
            kind: PageLineKind::Output,
            text: "Lesson: a. b".into(),
            message: Some(MessageView {
                id: "engine.console.lesson".into(),
                args: vec![
                    ("n".into(), ArgView::Text("3".into())),
                    (
                        "title".into(),
                        ArgView::Message(MessageView {
                            id: "preset.a.title".into(),
                            args: vec![],
                        }),
                    ),
                ],
            }),
            db: None,
        }],
        frame: Frame {
            ns: "test.events".into(),
            shards: vec![ShardFrame {
                name: "shard00".into(),
                chunks: Some(vec![ChunkFrame {
                    min: "{ x: MinKey() }".into(),
                    ..ChunkFrame::default()
                }]),
                ..ShardFrame::default()
            }],
            ..Frame::default()
        },
        lesson: Some("a".into()),
        ..PageView::default()
    }
}

/// A request of every method, each with a result of the kind its method answers.
fn every_method() -> Vec<(Call, Reply)> {
    let position = Position {
        position: 1,
        length: 3,
    };
    let ns = || "test.events".to_string();
    let setup = PageSetup {
        shards: 3,
        version: "5.0".into(),
        chunk_size: 8 * 1024,
        key: "{x: 1}".into(),
        unique: false,
        initial_chunks: None,
        ns: ns(),
    };
    let catalog = Catalog {
        protocol: PROTOCOL_VERSION,
        methods: METHODS.iter().map(|m| m.to_string()).collect(),
        limits: CatalogLimits::current(),
        defaults: CatalogDefaults::current(),
        ..Catalog::default()
    };
    vec![
        (Call::Catalog, Reply::Catalog(Box::new(catalog))),
        (
            Call::Open(Start::Lesson { id: "a".into() }),
            Reply::Open(Box::new(Opened {
                session: "s1".into(),
                position,
                errors: vec![],
                view: Some(Box::new(page_view())),
                replay: None,
            })),
        ),
        (
            Call::Open(Start::Replay {
                text: "v2.x".into(),
            }),
            Reply::Open(Box::new(Opened {
                session: "s2".into(),
                position: Position::default(),
                errors: vec!["MongoServerError[BadValue]: no".into()],
                view: Some(Box::new(PageView::default())),
                replay: Some(Box::new(Replaying {
                    page: vec![("tab".into(), "playground".into())],
                    position: Some(5),
                    json: "{}".into(),
                })),
            })),
        ),
        (Call::Close, Reply::Close),
        (
            Call::Run(RunSpec::source("1 + 1")),
            Reply::Run {
                statements: vec![statement("2\n")],
                position,
            },
        ),
        (Call::Step { by: -1 }, Reply::Step(position)),
        (Call::Jump { to: 1 }, Reply::Jump(position)),
        (Call::Fork, Reply::Fork(position)),
        (
            Call::Import(ImportCall::Slice {
                bytes: b"a,b\n1,2\n".to_vec(),
            }),
            Reply::Import(ImportProgress {
                bytes: 8,
                documents: 1,
                failed: 1,
                inserted: 1,
                failures: vec![ImportFailure {
                    line: 3,
                    column: Some(2),
                    reason: "bare \" in non-quoted-field".into(),
                }],
                stopped: None,
                done: true,
                position,
                preview: None,
            }),
        ),
        (
            Call::Import(ImportCall::Preview {
                bytes: b"a,b\n".to_vec(),
                complete: true,
                file_name: Some("a.csv".into()),
                format: None,
                columns_have_types: false,
                column_types: vec![ColumnTypeChoice {
                    name: "b".into(),
                    spec: "int64()".into(),
                }],
            }),
            Reply::Import(ImportProgress {
                preview: Some(ImportPreview {
                    format: Some("csv".into()),
                    columns: vec![ColumnTypeChoice {
                        name: "b".into(),
                        spec: "int64".into(),
                    }],
                    fields: vec!["a".into()],
                    documents: 0,
                    failed: 0,
                    error: None,
                    type_choices: vec!["auto()".into()],
                }),
                position,
                ..ImportProgress::default()
            }),
        ),
        (
            Call::ImportCluster {
                files: vec![MetadataFile {
                    name: "config.chunks.json".into(),
                    text: "{}".into(),
                }],
            },
            Reply::ImportCluster(Box::new(ClusterImported {
                position,
                ns: vec!["shop.orders".into()],
                version: "8.0".into(),
                replayed: 2,
                skipped: vec![SkippedChanges {
                    what: "moveChunk.start".into(),
                    count: 1,
                    reason: "changes no chunk".into(),
                }],
                steps: 4,
            })),
        ),
        (
            Call::Scenario {
                page: vec![],
                json: false,
            },
            Reply::Scenario {
                text: "v2.abc".into(),
            },
        ),
        (
            Call::Export,
            Reply::Export {
                text: "// A ShardLab scenario\nsh.status();\n".into(),
            },
        ),
        (
            Call::Frame {
                ns: Some(ns()),
                whole: true,
            },
            Reply::Frame(page_view().frame),
        ),
        (
            Call::Inspect {
                ns: ns(),
                subject: Inspecting::Round,
            },
            Reply::Inspect(Box::new(Inspection {
                example: "{x: 0}".into(),
                chunk: Some(Err("no chunk".into())),
                explanations: Some(Ok(vec![ExplanationView {
                    topic: "round".into(),
                    rule: "balanced".into(),
                    sentence: "Nothing moves.".into(),
                    ..ExplanationView::default()
                }])),
                ..Inspection::default()
            })),
        ),
        (
            Call::Explain(Subject::Chunk { ns: ns(), chunk: 0 }),
            Reply::Explain {
                sentences: vec!["It stays.".into()],
            },
        ),
        (
            Call::Analyze {
                ns: ns(),
                key: "{x: 1}".into(),
            },
            Reply::Analyze(statement("{ ok: 1 }\n")),
        ),
        (
            Call::Rank(RankSpec {
                ns: ns(),
                keys: vec!["{ts: 1}".into(), "{ts: 'hashed'}".into()],
                shards: Some(3),
                version: Some("5.0".into()),
                sort_by: None,
                chunk_size_mb: Some(1),
                queries: Some("{ts: 5}\n".into()),
                queries_ns: Some("app.events".into()),
            }),
            Reply::Rank(Box::new(RankView {
                ns: ns(),
                position: 2,
                documents: 1000,
                shards: 3,
                version: "5.0".into(),
                chunk_size_bytes: 1 << 20,
                candidates: vec![RankedKey {
                    key: "{ ts: 'hashed' }".into(),
                    place: 1,
                    why: RankSentence {
                        message: "Given as a candidate.".into(),
                        id: "rank.given".into(),
                        args: vec![],
                    },
                    figures: RankFigures {
                        distinct: Some(1000),
                        monotonic: "not monotonic".into(),
                        docs_per_shard: vec![("shard01".into(), 334)],
                        read_distribution: Some(ReadDistribution {
                            sample_size: ReadSampleSize {
                                total: 1,
                                find: 1,
                                ..ReadSampleSize::default()
                            },
                            percentage_of_single_shard_reads: Some(100.0),
                            percentage_of_multi_shard_reads: Some(0.0),
                            percentage_of_scatter_gather_reads: Some(0.0),
                            num_reads_by_range: vec![1, 0],
                        }),
                        write_distribution: Some(WriteDistribution::default()),
                        ..RankFigures::default()
                    },
                    reasons: vec![RankReason {
                        measure: "jumbo".into(),
                        verdict: "loses".into(),
                        place: 2,
                        message: "Jumbo chunks: 1 of its 3 chunks ...".into(),
                        id: "rank.jumbo".into(),
                        args: vec![("jumbo".into(), ArgView::Text("1".into()))],
                    }],
                    ..RankedKey::default()
                }],
                orders: vec![RankOrder {
                    measure: "cardinality".into(),
                    keys: vec!["{ ts: 'hashed' }".into()],
                }],
                queries: Some(RankQueries {
                    records: 2,
                    reads: 1,
                    failed: 1,
                    failures: vec![RankQueryLine {
                        line: 2,
                        reason: "cannot read".into(),
                    }],
                    ..RankQueries::default()
                }),
                ..RankView::default()
            })),
        ),
        (
            Call::Target {
                ns: ns(),
                filter: "{x: 1}".into(),
            },
            Reply::Target(Targeting {
                stage: "SINGLE_SHARD".into(),
                broadcast: false,
                shards: vec!["shard00".into()],
            }),
        ),
        (
            Call::Compare(CompareSpec {
                columns: vec![CompareColumn {
                    key: "{x: 1}".into(),
                    version: "8.0".into(),
                }],
                workload: "monotonic".into(),
                batch: COMPARE_BATCH,
                ticks: 1,
                chunk_size: COMPARE_CHUNK_SIZE,
            }),
            Reply::Compare {
                rows: vec![row("{ x: 1 } · 8.0")],
            },
        ),
        (Call::Act(Act::Look), Reply::Act(Box::new(page_view()))),
        (Call::Summary { ns: ns() }, Reply::Summary(row("{ x: 1 }"))),
        (
            Call::CompareStep {
                columns: vec![
                    ColumnStep {
                        session: "s2".into(),
                        run: Some(WorkloadRun {
                            ns: ns(),
                            name: "monotonic".into(),
                            count: 100,
                            balance: true,
                            sample: None,
                        }),
                    },
                    ColumnStep {
                        session: "s3".into(),
                        run: None,
                    },
                ],
            },
            Reply::CompareStep {
                columns: vec![
                    ColumnStepped {
                        session: "s2".into(),
                        frame: Some(Box::new(page_view().frame)),
                        row: Some(row("{ x: 1 }")),
                        error: None,
                    },
                    ColumnStepped {
                        session: "s3".into(),
                        frame: None,
                        row: None,
                        error: Some(EngineError::no_such_session("s3")),
                    },
                ],
            },
        ),
        (
            Call::Events { ns: ns() },
            Reply::Events {
                rows: vec![EventRow {
                    seq: 4,
                    kind: "split".into(),
                    text: "Split.".into(),
                    message: None,
                    step: Some(2),
                }],
            },
        ),
        (
            Call::Heat {
                ns: ns(),
                rows: 2,
                columns: 1,
            },
            Reply::Heat(Box::new(HeatView {
                ns: ns(),
                cells: vec![1.0, 2.5],
                pattern: Some(("band".into(), "Inserts fall in a band.".into())),
                ..HeatView::default()
            })),
        ),
        (
            Call::Insights {
                ns: ns(),
                analyze: true,
            },
            Reply::Insights(Box::new(InsightsView {
                ns: ns(),
                key: "{ x: 1 }".into(),
                step: 3,
                report: Some(Ok(Analysis {
                    characteristics: vec![("numDocsTotal".into(), "3".into())],
                    reads: Some([100.0, 0.0, 0.0]),
                    ..Analysis::default()
                })),
                shards: vec![("shard00".into(), 0)],
                docs: vec![StepPoint {
                    step: 1,
                    per_shard: vec![3],
                }],
                inserts: vec![],
            })),
        ),
        (
            Call::CheckKey {
                key: "{x: 1}".into(),
            },
            Reply::CheckKey {
                key: Some("{ x: 1 }".into()),
                error: None,
            },
        ),
        (
            Call::CheckKey {
                key: "{x: 2}".into(),
            },
            Reply::CheckKey {
                key: None,
                error: Some(EngineError::bad_value("MongoServerError[BadValue]: no")),
            },
        ),
        (
            Call::NeedsMoreInput {
                source: "db.c.find({".into(),
            },
            Reply::NeedsMoreInput { more: true },
        ),
        (
            Call::PlanSetup {
                draft: setup.clone(),
            },
            Reply::PlanSetup(SetupPlan::Step {
                key: "{ x: 1 }".into(),
                script: "sh.shardCollection(\"test.events\", {x: 1})".into(),
                shards: true,
            }),
        ),
        (
            Call::PlanSetup { draft: setup },
            Reply::PlanSetup(SetupPlan::ChangeKey {
                key: "{ x: 1, y: 1 }".into(),
                ns: ns(),
                docs: 2,
                old: "{ x: 1 }".into(),
                refine: Ok("db.adminCommand(...)".into()),
                reshard: Err("3.6 mode has no reshardCollection.".into()),
                refine_words: None,
                reshard_words: Some(Box::new(MessageView {
                    id: "engine.plan.no_command".into(),
                    args: vec![("command".into(), ArgView::Text("reshardCollection".into()))],
                })),
                over: "db.events.drop()".into(),
            }),
        ),
        (
            Call::InsertCommand {
                ns: ns(),
                doc: "{x: 5}".into(),
            },
            Reply::InsertCommand {
                text: "db.getSiblingDB(\"test\").events.insertOne({x: 5})".into(),
            },
        ),
        (
            Call::WorkloadFit {
                ns: ns(),
                spec: "monotonic".into(),
            },
            Reply::WorkloadFit(FitView {
                shown: Ok("monotonic".into()),
                key: "{ continent: 1 }".into(),
                missing: vec!["continent".into()],
                sometimes: vec![],
                fixed: Some("{continent: 'EU'}".into()),
                fitting: vec!["continents".into()],
            }),
        ),
        (
            Call::Keep {
                id: "k1".into(),
                page: vec![("tab".into(), "cluster".into())],
                record: r#"{"id":"k1","name":"Playground"}"#.into(),
            },
            Reply::Kept(Kept {
                bytes: 1234,
                kept: true,
                why: None,
            }),
        ),
    ]
}

#[test]
fn every_answer_is_v_id_method_result_and_reads_back() {
    let pairs = every_method();
    // Every method of the protocol is among them.
    for m in METHODS {
        assert!(
            pairs.iter().any(|(call, _)| call.method() == *m),
            "no answer of {m}"
        );
    }
    for (i, (call, reply)) in pairs.into_iter().enumerate() {
        let method = call.method();
        assert!(METHODS.contains(&method), "{method}");
        let id = 100 + i as u64;
        // The request names the method as the answer does.
        let request = to_json(&Request::new(id, Some("s1"), call));
        assert_eq!(request["method"], method);
        let answer = Response {
            id,
            outcome: Outcome::Result(reply),
        };
        let wire = to_json(&answer);
        let fields: Vec<&str> = wire
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut fields = fields;
        fields.sort_unstable();
        if method == "close" {
            assert_eq!(fields, ["id", "method", "v"], "{wire}");
        } else {
            assert_eq!(fields, ["id", "method", "result", "v"], "{wire}");
        }
        assert_eq!(wire["v"], PROTOCOL_VERSION, "{wire}");
        assert_eq!(wire["id"], id, "{wire}");
        assert_eq!(wire["method"], method, "{wire}");
        // Back, from a value and from text, as itself and as something the engine sends.
        let back: Response = serde_json::from_value(wire.clone())
            .unwrap_or_else(|e| panic!("{method}: {e}: {wire}"));
        assert_eq!(back, answer, "{method}");
        let text = serde_json::to_string(&answer).unwrap();
        let back: Response =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method}: {e}: {text}"));
        assert_eq!(back, answer, "{method}");
        let back: FromEngine =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method}: {e}: {text}"));
        assert_eq!(back, FromEngine::Answer(answer.clone()), "{method}");
        // The same method refused.
        let refused = Response {
            id,
            outcome: Outcome::Error(
                Some(method.to_string()),
                EngineError::bad_value(format!("{method} refused")),
            ),
        };
        let wire = to_json(&refused);
        assert_eq!(
            wire,
            json!({"v": PROTOCOL_VERSION, "id": id, "method": method,
                   "error": {"code": 2, "codeName": "BadValue", "message": format!("{method} refused")}})
        );
        let back: Response = serde_json::from_value(wire).unwrap();
        assert_eq!(back, refused);
    }
}

#[test]
fn an_answer_names_its_method_before_its_result() {
    let text = r#"{"v": 3, "id": 1, "method": "step", "result": {"position": 1, "length": 2}}"#;
    let read: Response = serde_json::from_str(text).expect("decodes");
    assert_eq!(
        read.outcome,
        Outcome::Result(Reply::Step(Position {
            position: 1,
            length: 2
        }))
    );
    // The result is read as its method's type, so the method must come first.
    let late = r#"{"v": 3, "id": 1, "result": {"position": 1, "length": 2}, "method": "step"}"#;
    let e = serde_json::from_str::<Response>(late)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("an answer names its method before its result"),
        "{e}"
    );
    // A result that is not what its method answers is refused, not taken for another.
    let wrong =
        r#"{"v": 3, "id": 1, "method": "scenario", "result": {"position": 1, "length": 2}}"#;
    assert!(serde_json::from_str::<Response>(wrong).is_err());
    let unknown = r#"{"v": 3, "id": 1, "method": "hello", "result": {}}"#;
    assert!(serde_json::from_str::<Response>(unknown).is_err());
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

#[test]
fn every_nested_union_names_its_case_in_kind() {
    assert_eq!(
        to_json(&Start::Lesson { id: "a".into() }),
        json!({"kind": "lesson", "id": "a"})
    );
    assert_eq!(
        to_json(&Subject::Chunk {
            ns: "a.b".into(),
            chunk: 2
        }),
        json!({"kind": "chunk", "ns": "a.b", "chunk": 2})
    );
    assert_eq!(
        to_json(&Act::Command { source: "1".into() }),
        json!({"kind": "command", "source": "1"})
    );
    assert_eq!(
        to_json(&Inspecting::At {
            at: 0.5,
            reach: None
        }),
        json!({"kind": "at", "at": 0.5, "reach": null})
    );
    assert_eq!(
        to_json(&SetupPlan::Nothing {
            key: "{ x: 1 }".into()
        }),
        json!({"kind": "nothing", "key": "{ x: 1 }"})
    );
    // A placeholder's value is a string, or a message object of its own.
    let words = MessageView {
        id: "engine.console.lesson".into(),
        args: vec![
            ("n".into(), ArgView::Text("3".into())),
            (
                "title".into(),
                ArgView::Message(MessageView {
                    id: "preset.a.title".into(),
                    args: vec![],
                }),
            ),
        ],
    };
    let wire = to_json(&words);
    assert_eq!(
        wire,
        json!({"id": "engine.console.lesson", "args": [["n", "3"], ["title", {"id": "preset.a.title", "args": []}]]})
    );
    let back: MessageView = serde_json::from_value(wire).unwrap();
    assert_eq!(back, words);
    // A result that may fail is `{ok, value}` or `{ok, error}`.
    let inspection = Inspection {
        chunk: Some(Err("no chunk".into())),
        explanations: Some(Ok(vec![])),
        ..Inspection::default()
    };
    let wire = to_json(&inspection);
    assert_eq!(wire["chunk"], json!({"ok": false, "error": "no chunk"}));
    assert_eq!(wire["explanations"], json!({"ok": true, "value": []}));
    let back: Inspection = serde_json::from_value(wire).unwrap();
    assert_eq!(back, inspection);
}

#[test]
fn a_request_is_read_whatever_the_order_of_its_keys() {
    use serde::de::DeserializeSeed;
    let run = Request::new(5, Some("s1"), Call::Step { by: -2 });
    let texts = [
        r#"{"v": 3, "id": 5, "session": "s1", "method": "step", "params": {"by": -2}}"#,
        r#"{"params": {"by": -2}, "session": "s1", "id": 5, "method": "step", "v": 3}"#,
        r#"{"params": {"by": -2}, "method": "step", "v": 3, "id": 5, "session": "s1", "later": [1]}"#,
    ];
    let whole: Request = serde_json::from_str(texts[0]).expect("in order");
    assert_eq!(whole, run);
    // Read in one pass without the method known, `params` must come after `method`.
    for text in &texts[1..] {
        let e = serde_json::from_str::<Request>(text).expect_err(text);
        assert!(e.to_string().contains("before its `params`"), "{e}");
    }
    for text in texts {
        // As the engine's worker reads it: the method first, then the rest in one pass.
        let mut de = serde_json::Deserializer::from_str(text);
        let seeded = RequestSeed("step".into()).deserialize(&mut de).expect(text);
        assert_eq!(seeded, run, "{text}");
    }
    // A method named twice, or another than the one read first, is refused.
    let twice = r#"{"v": 3, "id": 5, "method": "step", "method": "jump", "params": {"by": 1}}"#;
    assert!(serde_json::from_str::<Request>(twice).is_err());
    let again = r#"{"v": 3, "id": 5, "method": "step", "method": "step", "params": {"by": 1}}"#;
    for text in [twice, again] {
        let mut de = serde_json::Deserializer::from_str(text);
        assert!(
            RequestSeed("step".into()).deserialize(&mut de).is_err(),
            "{text}"
        );
    }
    // Another method than the message names is refused, not mixed up.
    let mut de = serde_json::Deserializer::from_str(texts[1]);
    assert!(RequestSeed("jump".into()).deserialize(&mut de).is_err());
}

#[test]
fn a_request_names_its_method_and_the_params_it_needs() {
    let err = |v: Value| {
        serde_json::from_value::<Request>(v)
            .expect_err("refused")
            .to_string()
    };
    assert!(err(json!({"v": 3, "id": 1, "session": "s1", "method": "step"})).contains("params"));
    assert!(err(json!({"v": 3, "id": 1, "params": {}})).contains("method"));
    assert!(err(json!({"v": 3, "id": 1, "method": 7})).contains("a string"));
    assert!(err(json!({"v": 3, "id": 1, "method": "nope", "params": {}})).contains("nope"));
    assert!(err(json!({"id": 1, "method": "catalog"})).contains("`v`"));
    assert!(err(json!({"v": 3, "method": "catalog"})).contains("`id`"));
    assert!(err(json!({"v": 3, "id": 1, "method": "step", "params": {"by": "x"}})).contains("i64"));
    // A method without parameters takes `params` left out or null.
    let r: Request =
        serde_json::from_value(json!({"v": 3, "id": 1, "method": "catalog", "params": null}))
            .expect("decodes");
    assert_eq!(r.call, Call::Catalog);
}
