//! The side panels' answers (events, heat, insights, inspect, workload fit), driven
//! through the engine's requests as the page will drive them.
// A test fails loudly on a missing field; that is what unwrap is for here.
#![allow(clippy::unwrap_used, clippy::panic)]

use shardlab_engine::Engine;
use shardlab_protocol::*;

/// An engine and the handle of the session it opened.
struct Lab {
    engine: Engine,
    session: String,
}

/// Sends `call` about the lab's session and returns its outcome.
fn ask(e: &mut Lab, call: Call) -> Result<Reply, EngineError> {
    let request = Request::new(1, Some(&e.session), call);
    outcome(e.engine.handle(request).response.outcome)
}

fn outcome(outcome: Outcome) -> Result<Reply, EngineError> {
    match outcome {
        Outcome::Result(r) => Ok(r),
        Outcome::Error(_, err) => Err(err),
    }
}

/// A 3-shard 5.0 cluster with 64 KB chunks, and its handle.
fn open() -> Lab {
    let mut engine = Engine::new();
    let config = SessionConfig {
        shards: 3,
        version: "5.0".into(),
        chunk_size: Some(65536),
        seed: 7,
    };
    let request = Request::new(1, None, Call::Open(Start::Config(config)));
    let Ok(Reply::Open(opened)) = outcome(engine.handle(request).response.outcome) else {
        panic!("not opened")
    };
    Lab {
        engine,
        session: opened.session,
    }
}

/// Runs shell source as the next step, failing on any statement's error.
fn run(e: &mut Lab, source: &str) {
    let Reply::Run { statements, .. } = ask(e, Call::Run(RunSpec::source(source))).unwrap() else {
        panic!("not run")
    };
    assert!(!statements.is_empty(), "{source}");
    for s in statements {
        assert!(s.ok && s.error.is_none(), "{source}: {}", s.printed);
    }
}

/// A session with `test.events` sharded on `key`.
fn sharded(key: &str) -> Lab {
    let mut e = open();
    run(
        &mut e,
        &format!("sh.shardCollection(\"test.events\", {key})"),
    );
    e
}

fn events(e: &mut Lab) -> Vec<EventRow> {
    match ask(e, Call::Events { ns: NS.into() }).unwrap() {
        Reply::Events { rows } => rows,
        other => panic!("{other:?}"),
    }
}

fn heat(e: &mut Lab, ns: &str, rows: u32, columns: u32) -> HeatView {
    let call = Call::Heat {
        ns: ns.into(),
        rows,
        columns,
    };
    match ask(e, call).unwrap() {
        Reply::Heat(h) => *h,
        other => panic!("{other:?}"),
    }
}

fn insights(e: &mut Lab) -> InsightsView {
    let call = Call::Insights {
        ns: NS.into(),
        analyze: true,
    };
    match ask(e, call).unwrap() {
        Reply::Insights(i) => *i,
        other => panic!("{other:?}"),
    }
}

fn inspect(e: &mut Lab, ns: &str, subject: Inspecting) -> Inspection {
    let call = Call::Inspect {
        ns: ns.into(),
        subject,
    };
    match ask(e, call).unwrap() {
        Reply::Inspect(i) => *i,
        other => panic!("{other:?}"),
    }
}

fn fit(e: &mut Lab, spec: &str) -> FitView {
    let call = Call::WorkloadFit {
        ns: NS.into(),
        spec: spec.into(),
    };
    match ask(e, call).unwrap() {
        Reply::WorkloadFit(f) => f,
        other => panic!("{other:?}"),
    }
}

const NS: &str = "test.events";

fn monotonic(e: &mut Lab, steps: usize, docs: u32) {
    for _ in 0..steps {
        run(
            e,
            &format!("sim.generate(\"{NS}\", \"monotonic\", {docs}); sim.balance()"),
        );
    }
}

#[test]
fn events_are_newest_first_with_the_steps_to_jump_to() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 6, 1000);
    let rows = events(&mut e);
    assert!(!rows.is_empty() && rows.len() <= MAX_EVENTS);
    assert!(rows.windows(2).all(|w| w[0].seq > w[1].seq), "newest first");
    assert!(rows.iter().all(|r| r.kind != "moveChunk.start"));
    assert!(rows.iter().any(|r| r.kind == "split"), "{rows:?}");
    // Steps go back in time with the events, and every one is a step of the timeline.
    let steps: Vec<u64> = rows.iter().map(|r| r.step.unwrap()).collect();
    assert!(steps.windows(2).all(|w| w[0] >= w[1]), "{steps:?}");
    assert!(steps.iter().all(|s| (1..=7).contains(s)), "{steps:?}");
    // The sentences print bounds as mongosh does, with the key's field.
    let split = rows.iter().find(|r| r.kind == "split").unwrap();
    assert!(split.text.contains("x: "), "{}", split.text);
    // After a jump back, the log is the one at that step: nothing newer than its events.
    let at = steps[steps.len() / 2];
    ask(&mut e, Call::Jump { to: at }).unwrap();
    let earlier = events(&mut e);
    assert!(earlier.iter().all(|r| r.step.unwrap() <= at));
    assert!(earlier[0].seq < rows[0].seq);
}

#[test]
fn heat_grid_has_the_asked_shape_and_a_monotonic_pattern() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 12, 800);
    let h = heat(&mut e, NS, 64, 8192);
    assert_eq!(h.empty, None);
    assert_eq!(h.steps, 13);
    assert_eq!(h.cursor, 13);
    assert_eq!((h.columns, h.per_column), (13, 1), "a column per step");
    assert_eq!(h.row_shards.len(), 64);
    assert_eq!(h.cells.len(), 64 * 13);
    assert!(h.max_cell > 0.0);
    assert_eq!(h.key, "{ x: 1 }");
    assert!(!h.hashed);
    assert!(h.boundaries.len() > 1, "split chunks");
    assert!(h.boundaries.windows(2).all(|w| w[0] <= w[1]));
    let (name, sentence) = h.pattern.clone().unwrap();
    assert_eq!(name, "hot edge", "{sentence}");
    assert!(
        !sentence.to_lowercase().starts_with("hot edge"),
        "{sentence}"
    );
    for (i, _) in &h.shards {
        assert!(h.row_shards.contains(i));
    }
    // Fewer columns than steps: each column holds several.
    let h = heat(&mut e, NS, 1, 4);
    assert_eq!((h.columns, h.per_column), (4, 4));
    assert_eq!(h.cells.len(), 4);
    // At the limits, and on a collection that is not there.
    let h = heat(&mut e, NS, 4096, 8192);
    assert_eq!(h.row_shards.len(), 4096);
    let h = heat(&mut e, "test.nothing", 10, 10);
    assert!(h.empty.unwrap().contains("not sharded"));
    assert!(h.pattern.is_none() && h.cells.is_empty());
    let err = ask(
        &mut e,
        Call::Heat {
            ns: NS.into(),
            rows: 0,
            columns: 8193,
        },
    )
    .unwrap_err();
    assert_eq!(err.code_name, "BadValue");
}

#[test]
fn heat_before_any_insert_says_why_it_is_empty() {
    let mut e = sharded("{x: 1}");
    let h = heat(&mut e, NS, 8, 8);
    assert!(h.empty.unwrap().starts_with("No inserts into test.events"));
    assert!(h.pattern.is_none());
}

#[test]
fn insights_report_a_hashed_key_and_the_charts() {
    let mut e = sharded("{x: \"hashed\"}");
    for _ in 0..3 {
        run(
            &mut e,
            &format!("sim.generate(\"{NS}\", \"uniform\", 1000)"),
        );
    }
    let i = insights(&mut e);
    assert_eq!(i.key, "{ x: 'hashed' }");
    let a = i.report.clone().unwrap().unwrap();
    let figure = |name: &str| {
        a.characteristics
            .iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(figure("numDocsTotal"), "3000");
    assert!(figure("numDistinctValues").parse::<f64>().unwrap() > 100.0);
    assert!(!figure("monotonicity").is_empty());
    assert!(a.reads.is_some() && a.writes.is_some(), "{a:?}");
    let reads = a.reads.unwrap();
    assert!((reads.iter().sum::<f64>() - 100.0).abs() < 1.0, "{reads:?}");
    assert_eq!(a.note, None);
    assert!(!a.most_common.is_empty());
    // The charts: three shards, a point per step, and every document counted.
    assert_eq!(i.shards.len(), 3);
    assert_eq!(i.docs.len(), 4);
    assert_eq!(i.docs.last().unwrap().step, 4);
    assert_eq!(i.docs.last().unwrap().per_shard.iter().sum::<u64>(), 3000);
    assert_eq!(i.inserts.len(), 4);
    assert_eq!(i.inserts[1].per_shard.iter().sum::<u64>(), 1000);
    assert!(
        i.inserts[1].per_shard.iter().all(|n| *n > 0),
        "hashed spreads"
    );
    // The session itself was not touched by the analysis.
    let Reply::Step(p) = ask(&mut e, Call::Step { by: 0 }).unwrap() else {
        panic!()
    };
    assert_eq!(p.length, 4);
}

#[test]
fn insights_of_a_low_cardinality_key_note_the_retry() {
    let mut e = sharded("{k: 1}");
    let docs: Vec<String> = (0..60).map(|i| format!("{{k: {}}}", i % 3)).collect();
    run(
        &mut e,
        &format!(
            "db.getSiblingDB(\"test\").events.insertMany([{}])",
            docs.join(", ")
        ),
    );
    let i = insights(&mut e);
    let a = i.report.unwrap().unwrap();
    let note = a.note.unwrap();
    assert!(
        note.starts_with("Read and write distribution skipped. MongoDB measures reads and writes over 100 ranges"),
        "{note}"
    );
    assert!(note.contains("This collection holds 60 documents, so the sample is all of them and yields at most 6 boundaries, fewer than 99"), "{note}");
    assert!(
        note.contains("MongoDB's error: Failed to find split points"),
        "{note}"
    );
    assert_eq!(a.reads, None);
    let distinct = &a.characteristics[1];
    assert_eq!(
        distinct,
        &("numDistinctValues".to_string(), "3".to_string())
    );
}

/// 901 distinct values are too few for MongoDB's sampling (every 10th of at most 990
/// sampled keys): the note says so in those terms, not as a cardinality of 901.
#[test]
fn insights_say_why_901_distinct_values_are_skipped() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 1, 901);
    let a = insights(&mut e).report.unwrap().unwrap();
    assert_eq!(a.reads, None);
    assert_eq!(
        a.characteristics[1],
        ("numDistinctValues".to_string(), "901".to_string())
    );
    let note = a.note.unwrap();
    assert!(
        note.contains(
            "holds 901 documents, so the sample is all of them and yields at most 91 boundaries"
        ),
        "{note}"
    );
    assert!(
        note.contains("once it holds at least 990 documents"),
        "{note}"
    );
}

#[test]
fn the_charts_thin_the_documents_and_keep_the_latest_sixty_steps() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 400, 1);
    // The charts alone, without analyzeShardKey.
    let call = Call::Insights {
        ns: NS.into(),
        analyze: false,
    };
    let Reply::Insights(i) = ask(&mut e, call).unwrap() else {
        panic!()
    };
    assert_eq!((i.report.clone(), i.step), (None, 401));
    assert!(
        i.docs.len() <= 210 && i.docs.len() >= 160,
        "{}",
        i.docs.len()
    );
    assert_eq!(i.docs.last().unwrap().step, 401);
    assert_eq!(i.inserts.len(), 60);
    assert_eq!(i.inserts[0].step, 342);
    assert_eq!(i.inserts.last().unwrap().step, 401);
}

#[test]
fn the_landing_follows_one_insert_one_and_not_an_insert_many() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 1, 300);
    let i = inspect(&mut e, NS, Inspecting::Nothing);
    // The insert form starts from a value the documents hold: the counter's first, 0.
    assert_eq!(i.example, "{x: 0}");
    assert_eq!(i.landing, None, "300 documents in the step");
    run(&mut e, "db.getSiblingDB(\"test\").events.insertOne({x: 5})");
    let l = inspect(&mut e, NS, Inspecting::Nothing).landing.unwrap();
    assert_eq!(l.seq, 300);
    assert_eq!(l.key, "{ x: 5 }");
    assert!(l.chunk.0.contains("MinKey") || l.chunk.0.contains("x:"));
    assert!(l.hashed.is_none());
    assert!(!l.why.is_empty() && !l.shard.is_empty());
    // A step that inserts nothing keeps the landing; an insertMany ends it.
    run(&mut e, "sim.balance()");
    assert!(inspect(&mut e, NS, Inspecting::Nothing).landing.is_some());
    run(
        &mut e,
        "db.getSiblingDB(\"test\").events.insertMany([{x: 6}, {x: 7}])",
    );
    assert_eq!(inspect(&mut e, NS, Inspecting::Nothing).landing, None);
}

#[test]
fn a_hashed_landing_prints_its_hash() {
    let mut e = sharded("{x: \"hashed\"}");
    run(&mut e, "db.getSiblingDB(\"test\").events.insertOne({x: 5})");
    let l = inspect(&mut e, NS, Inspecting::Nothing).landing.unwrap();
    let (field, value, shown, hash) = l.hashed.unwrap();
    assert_eq!((field.as_str(), value.as_str()), ("x", "5"));
    assert_eq!(shown, format!("Long('{hash}')"));
}

#[test]
fn a_chunk_pages_its_documents_from_the_marked_one() {
    let mut e = sharded("{x: 1}");
    run(
        &mut e,
        &format!("sim.generate(\"{NS}\", \"monotonic\", 200)"),
    );
    run(
        &mut e,
        "db.getSiblingDB(\"test\").events.insertOne({x: 100})",
    );
    let l = inspect(&mut e, NS, Inspecting::Nothing).landing.unwrap();
    let subject = |skip, mark| Inspecting::Chunk {
        key: l.key_handle.clone(),
        skip,
        mark,
    };
    let c = inspect(&mut e, NS, subject(None, Some(l.seq)))
        .chunk
        .unwrap()
        .unwrap();
    assert!(c.total > 25, "{}", c.total);
    assert_eq!(c.skip % 25, 0);
    assert_eq!(c.mark, Some(l.seq));
    assert!(c.rows.len() <= 25);
    assert!(
        c.rows.iter().any(|r| r.seq == l.seq),
        "the marked document's page"
    );
    let why = c.explanations.as_ref().unwrap();
    assert!(
        !why.is_empty() && why.iter().all(|x| !x.rule.is_empty()),
        "{why:?}"
    );
    assert!(!c.hashed && c.rows.iter().all(|r| r.hashed.is_none()));
    // The next page, by the chunk's own handle, and a page far past the end.
    let next = inspect(
        &mut e,
        NS,
        Inspecting::Chunk {
            key: c.key.clone(),
            skip: Some(25),
            mark: None,
        },
    );
    let next = next.chunk.unwrap().unwrap();
    assert_eq!((next.skip, next.min.clone()), (25, c.min.clone()));
    assert_ne!(next.rows[0].seq, c.rows[0].seq);
    let far = inspect(&mut e, NS, subject(Some(u64::MAX), None));
    assert!(far.chunk.unwrap().unwrap().rows.is_empty());
}

#[test]
fn shard_and_round_explanations() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 2, 500);
    let shard = inspect(
        &mut e,
        NS,
        Inspecting::Shard {
            shard: "shard01".into(),
        },
    );
    let list = shard.explanations.unwrap().unwrap();
    assert!(!list.is_empty() && list.iter().all(|x| !x.sentence.is_empty()));
    let round = inspect(&mut e, NS, Inspecting::Round);
    let list = round.explanations.unwrap().unwrap();
    assert!(list.iter().any(|x| x.topic == "round"), "{list:?}");
    let nobody = inspect(
        &mut e,
        NS,
        Inspecting::Shard {
            shard: "shard99".into(),
        },
    );
    assert!(nobody.explanations.unwrap().is_err());
}

#[test]
fn a_point_of_the_key_bar_opens_its_chunk() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 3, 1000);
    let chunk = |e: &mut Lab, at| {
        inspect(e, NS, Inspecting::At { at, reach: None })
            .chunk
            .unwrap()
            .unwrap()
    };
    let first = chunk(&mut e, 0.0);
    assert!(first.min.contains("MinKey"), "{}", first.min);
    let last = chunk(&mut e, 1.0);
    assert!(last.max.contains("MaxKey"), "{}", last.max);
    assert_ne!(first.min, last.min);
    // Past either end: the end's chunk.
    assert_eq!(chunk(&mut e, -3.0).min, first.min);
    assert_eq!(chunk(&mut e, 7.5).min, last.min);
    let err = ask(
        &mut e,
        Call::Inspect {
            ns: NS.into(),
            subject: Inspecting::At {
                at: f64::NAN,
                reach: None,
            },
        },
    )
    .unwrap_err();
    assert_eq!(err.code_name, "BadValue");
}

#[test]
fn a_workload_missing_a_key_field_gets_a_fixed_template() {
    let mut e = sharded("{continent: 1}");
    let f = fit(&mut e, "monotonic");
    assert_eq!(f.key, "{ continent: 1 }");
    assert_eq!(f.missing, ["continent"]);
    assert!(f.shown.as_ref().unwrap().contains("increasing"));
    let fixed = f.fixed.clone().unwrap();
    assert!(fixed.contains("continent"), "{fixed}");
    assert!(
        f.fitting.contains(&"continents".to_string()),
        "{:?}",
        f.fitting
    );
    assert!(!f.fitting.contains(&"monotonic".to_string()));
    // The fixed template fits.
    let again = fit(&mut e, &fixed);
    assert!(
        again.missing.is_empty() && again.fixed.is_none(),
        "{again:?}"
    );
    assert_eq!(again.shown.unwrap(), fixed);
    // A spec that is not one, and a collection that is not sharded.
    assert!(fit(&mut e, "no such workload").shown.is_err());
    let none = ask(
        &mut e,
        Call::WorkloadFit {
            ns: "test.other".into(),
            spec: "monotonic".into(),
        },
    )
    .unwrap();
    let Reply::WorkloadFit(none) = none else {
        panic!()
    };
    assert!(none.key.is_empty() && none.missing.is_empty());
}

#[test]
fn hostile_requests_are_answered_not_panicked() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 1, 100);
    for key in ["not json", "[", "{\"a\": 1}", "[1, 2, 3, 4]", "[]", "\"x\""] {
        let i = inspect(
            &mut e,
            NS,
            Inspecting::Chunk {
                key: key.into(),
                skip: Some(u64::MAX),
                mark: Some(u64::MAX),
            },
        );
        assert!(i.chunk.unwrap().is_err(), "{key}");
    }
    let i = inspect(&mut e, "nowhere.at.all", Inspecting::Round);
    assert_eq!(i, Inspection::default());
    assert!(events(&mut e).iter().all(|r| r.step.is_some()));
    let gone = match ask(
        &mut e,
        Call::Insights {
            ns: "test.gone\"); db.dropDatabase(\"".into(),
            analyze: true,
        },
    )
    .unwrap()
    {
        Reply::Insights(i) => *i,
        other => panic!("{other:?}"),
    };
    assert!(gone.report.unwrap().is_err());
    let err = e
        .engine
        .handle(Request::new(
            2,
            Some("nobody"),
            Call::Events { ns: NS.into() },
        ))
        .response
        .outcome;
    assert!(
        matches!(err, Outcome::Error(Some(ref m), ref x) if x.code_name == "NoSuchSession" && m == "events")
    );
    let huge = "x".repeat(MAX_FIELD_BYTES + 1);
    assert!(ask(
        &mut e,
        Call::Inspect {
            ns: NS.into(),
            subject: Inspecting::Shard { shard: huge }
        }
    )
    .is_err());
}

#[test]
fn events_print_the_values_when_the_collection_is_gone() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 2, 1000);
    run(&mut e, "db.getSiblingDB(\"test\").events.drop()");
    let rows = events(&mut e);
    let split = rows.iter().find(|r| r.kind == "split").unwrap();
    assert!(!split.text.contains("x: "), "{}", split.text);
}

#[test]
fn a_heatmap_at_the_limits_stays_within_its_cell_budget() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 600, 1);
    let h = heat(&mut e, NS, 4096, 8192);
    assert_eq!(h.row_shards.len(), 4096);
    assert!(h.cells.len() <= shardlab_engine::panels::MAX_HEAT_CELLS as usize);
    assert_eq!(h.cells.len(), 4096 * h.columns as usize);
    assert!(h.per_column > 1, "columns hold several steps");
    assert!(u64::from(h.columns) * h.per_column >= h.steps);
    assert_eq!(h.steps, 601);
}

#[test]
fn a_point_near_a_tick_opens_its_document() {
    let mut e = sharded("{x: 1}");
    monotonic(&mut e, 3, 1000);
    run(
        &mut e,
        "db.getSiblingDB(\"test\").events.insertOne({x: 1500})",
    );
    let Reply::Frame(frame) = ask(
        &mut e,
        Call::Frame {
            ns: Some(NS.into()),
            whole: false,
        },
    )
    .unwrap() else {
        panic!()
    };
    let tick = frame.ticks.iter().find(|t| t.seq == 3000).unwrap().clone();
    let near = |e: &mut Lab, reach| {
        let at = tick.at + 0.001;
        inspect(e, NS, Inspecting::At { at, reach })
            .chunk
            .unwrap()
            .unwrap()
    };
    let c = near(&mut e, Some(0.01));
    assert_eq!(c.mark, Some(3000));
    assert!(c.rows.iter().any(|r| r.seq == 3000), "the tick's page");
    assert_eq!(near(&mut e, None).mark, None);
    assert_eq!(near(&mut e, Some(0.0001)).mark, None, "out of reach");
}

#[test]
fn the_catalog_names_the_panels_and_their_params_read_as_json() {
    let mut e = Engine::new();
    let request = Request::new(1, None, Call::Catalog);
    let Ok(Reply::Catalog(catalog)) = outcome(e.handle(request).response.outcome) else {
        panic!()
    };
    for m in [
        "events",
        "heat",
        "page.insights",
        "inspect",
        "page.workloadFit",
    ] {
        assert!(catalog.methods.iter().any(|x| x == m), "{m}");
    }
    // Optional parameters may be left out by a script.
    let r: Request = serde_json::from_str(
        r#"{"v": 3, "id": 3, "session": "s1", "method": "inspect",
            "params": {"ns": "test.events", "subject": {"kind": "at", "at": 0.5}}}"#,
    )
    .unwrap();
    assert!(matches!(
        r.call,
        Call::Inspect { subject: Inspecting::At { at, reach: None }, .. } if at == 0.5
    ));
    let r: Request = serde_json::from_str(
        r#"{"v": 3, "id": 4, "session": "s1", "method": "page.insights", "params": {"ns": "a.b"}}"#,
    )
    .unwrap();
    assert!(matches!(r.call, Call::Insights { analyze: false, .. }));
}
