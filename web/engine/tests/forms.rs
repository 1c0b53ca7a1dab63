//! The settings form's plan and the other texts the page's forms show, as the engine
//! writes them: the page runs the script the engine planned and never builds a command.
// A test fails loudly on a missing field; that is what unwrap and panics are for here.
#![allow(clippy::unwrap_used, clippy::panic)]

use shardlab::workload::presets::{
    chunk_size_command, insert_one_command, refine_command, reshard_command, shard_command,
    start_over_command,
};
use shardlab_engine::Engine;
use shardlab_protocol::*;

/// Sends one call (about `session`, when it is about one), crossing as JSON.
fn send(e: &mut Engine, session: Option<&str>, call: Call) -> Result<Reply, EngineError> {
    let text = serde_json::to_string(&Request::new(1, session, call)).unwrap();
    match e
        .handle(serde_json::from_str(&text).unwrap())
        .response
        .outcome
    {
        Outcome::Result(reply) => Ok(reply),
        Outcome::Error(_, error) => Err(error),
    }
}

/// Opens a session and returns its handle and what the engine answered.
fn open(e: &mut Engine, start: Start) -> (String, Opened) {
    match send(e, None, Call::Open(start)).unwrap() {
        Reply::Open(opened) => (opened.session.clone(), *opened),
        other => panic!("not opened: {other:?}"),
    }
}

fn draft(version: &str, key: &str) -> PageSetup {
    PageSetup {
        shards: 3,
        version: version.into(),
        chunk_size: 8 * 1024,
        key: key.into(),
        unique: false,
        initial_chunks: None,
        ns: "test.events".into(),
    }
}

fn plan(e: &mut Engine, page: &str, draft: PageSetup) -> SetupPlan {
    match send(e, Some(page), Call::PlanSetup { draft }).unwrap() {
        Reply::PlanSetup(p) => p,
        other => panic!("not a plan: {other:?}"),
    }
}

fn run(e: &mut Engine, page: &str, source: &str) {
    let view = send(
        e,
        Some(page),
        Call::Act(Act::Command {
            source: source.into(),
        }),
    )
    .unwrap();
    assert!(matches!(view, Reply::Act(v) if !v.failed), "{source}");
}

#[test]
fn the_plan_follows_the_cluster_and_writes_the_cores_commands() {
    let mut e = Engine::new();
    let (s, _) = open(&mut e, Start::Setup(draft("5.0", "{x: 1}")));
    // The cluster as it is: nothing to apply.
    assert_eq!(
        plan(&mut e, &s, draft("5.0", "{x: 1}")),
        SetupPlan::Nothing {
            key: "{ x: 1 }".into()
        }
    );
    // Another shard count or version: a new cluster.
    let mut more = draft("5.0", "{x: 1}");
    more.shards = 4;
    assert!(matches!(
        plan(&mut e, &s, more),
        SetupPlan::NewCluster { .. }
    ));
    assert!(matches!(
        plan(&mut e, &s, draft("8.0", "{x: 1}")),
        SetupPlan::NewCluster { .. }
    ));
    // A bad key: MongoDB's words.
    match plan(&mut e, &s, draft("5.0", "{x: 2}")) {
        SetupPlan::Invalid { error } => assert!(error.contains("MongoServerError"), "{error}"),
        other => panic!("{other:?}"),
    }
    // An empty collection on another key: dropped and sharded again, one step.
    assert_eq!(
        plan(&mut e, &s, draft("5.0", "{y: 1}")),
        SetupPlan::Step {
            key: "{ y: 1 }".into(),
            script: start_over_command("test.events", "{y: 1}", false, None),
            shards: false,
        }
    );
    // Another collection, not sharded yet, with a new chunk size: both in one step.
    let mut other = draft("5.0", "{a: 1}");
    other.ns = "test.other".into();
    other.chunk_size = 16 * 1024;
    assert_eq!(
        plan(&mut e, &s, other),
        SetupPlan::Step {
            key: "{ a: 1 }".into(),
            script: format!(
                "{}; {}",
                chunk_size_command(16 * 1024),
                shard_command("test.other", "{a: 1}", false, None)
            ),
            shards: true,
        }
    );
}

#[test]
fn a_key_change_on_documents_offers_what_the_version_has() {
    let mut e = Engine::new();
    let (s, _) = open(&mut e, Start::Setup(draft("5.0", "{x: 1}")));
    run(
        &mut e,
        &s,
        "db.events.insertMany([{x: 1, y: 1}, {x: 2, y: 2}])",
    );
    match plan(&mut e, &s, draft("5.0", "{x: 1, y: 1}")) {
        SetupPlan::ChangeKey {
            docs,
            old,
            refine,
            reshard,
            over,
            ..
        } => {
            assert_eq!((docs, old.as_str()), (2, "{ x: 1 }"));
            assert_eq!(refine, Ok(refine_command("test.events", "{x: 1, y: 1}")));
            assert_eq!(reshard, Ok(reshard_command("test.events", "{x: 1, y: 1}")));
            assert_eq!(
                over,
                start_over_command("test.events", "{x: 1, y: 1}", false, None)
            );
        }
        other => panic!("{other:?}"),
    }
    // A key that does not extend the current one cannot be refined.
    match plan(&mut e, &s, draft("5.0", "{y: 1}")) {
        SetupPlan::ChangeKey {
            refine: Err(why),
            refine_words: Some(words),
            ..
        } => {
            assert!(why.contains("does not start with"), "{why}");
            // The same reason as a message, for the page to word in its language.
            assert_eq!(words.id, "engine.plan.refine_prefix");
        }
        other => panic!("{other:?}"),
    }
    // 3.6 has neither helper.
    let mut e = Engine::new();
    let (s, _) = open(&mut e, Start::Setup(draft("3.6", "{x: 1}")));
    run(&mut e, &s, "db.events.insertOne({x: 1, y: 1})");
    match plan(&mut e, &s, draft("3.6", "{x: 1, y: 1}")) {
        SetupPlan::ChangeKey {
            refine: Err(r),
            reshard: Err(s),
            refine_words: Some(rw),
            reshard_words: Some(sw),
            ..
        } => {
            assert_eq!(r, "3.6 mode has no refineCollectionShardKey.");
            assert_eq!(s, "3.6 mode has no reshardCollection.");
            assert_eq!(
                (rw.id.as_str(), sw.id.as_str()),
                ("engine.plan.no_command", "engine.plan.no_command")
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_insert_form_runs_the_cores_insert_command() {
    let mut e = Engine::new();
    let reply = send(
        &mut e,
        None,
        Call::InsertCommand {
            ns: "test.events".into(),
            doc: " {x: 5} ".into(),
        },
    )
    .unwrap();
    assert_eq!(
        reply,
        Reply::InsertCommand {
            text: insert_one_command("test.events", "{x: 5}")
        }
    );
}

#[test]
fn the_compare_query_mix_is_the_protocols_text_read_by_the_shell() {
    let mix = shardlab_engine::comparison::query_mix();
    let texts: Vec<&str> = mix.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        texts, COMPARE_QUERIES,
        "every query of the mix reads as a filter"
    );
    assert_eq!(mix[0].1, bson::doc! { "x": 500 });
}

#[test]
fn a_replay_slice_without_its_picture_sends_no_frame_and_the_next_picture_is_whole() {
    let mut e = Engine::new();
    let (s, _) = open(&mut e, Start::Setup(draft("5.0", "{x: 1}")));
    run(
        &mut e,
        &s,
        "sim.generate(\"test.events\", \"monotonic\", 300)",
    );
    let text = match send(
        &mut e,
        Some(&s),
        Call::Scenario {
            page: vec![],
            json: true,
        },
    )
    .unwrap()
    {
        Reply::Scenario { text } => text,
        other => panic!("{other:?}"),
    };
    let text2 =
        serde_json::to_string(&Request::new(2, None, Call::Open(Start::Replay { text }))).unwrap();
    let copy = match e
        .handle(serde_json::from_str(&text2).unwrap())
        .response
        .outcome
    {
        Outcome::Result(Reply::Open(opened)) => opened.session,
        other => panic!("{other:?}"),
    };
    assert_ne!(copy, s);
    let advance = |e: &mut Engine, picture| {
        let req = Request::new(
            3,
            Some(&copy),
            Call::Act(Act::Advance {
                commands: 1,
                picture,
            }),
        );
        match e.handle(req).response.outcome {
            Outcome::Result(Reply::Act(v)) => *v,
            other => panic!("{other:?}"),
        }
    };
    let quiet = advance(&mut e, false);
    assert_eq!(quiet.frame, Frame::default(), "no picture");
    assert_eq!(quiet.position.position, 1);
    assert!(quiet.replay.is_some());
    let drawn = advance(&mut e, true);
    assert_eq!(drawn.frame.ns, "test.events");
    assert!(
        drawn.frame.shards.iter().all(|s| s.chunks.is_some()),
        "a replay's picture is whole"
    );
    assert_eq!(drawn.position.position, 2);
}

#[test]
fn a_view_counts_the_steps_its_own_setup_made() {
    let mut e = Engine::new();
    let (_, opened) = open(&mut e, Start::Setup(draft("5.0", "{x: 1}")));
    let v = opened.view.expect("a playground's view");
    assert_eq!((v.setup_steps, v.position.length), (2, 2));
    assert_eq!(opened.position, v.position);
    for preset in shardlab::workload::presets::PRESETS {
        let mut e = Engine::new();
        let (_, opened) = open(
            &mut e,
            Start::Lesson {
                id: preset.id.into(),
            },
        );
        let v = opened
            .view
            .unwrap_or_else(|| panic!("{}: no view", preset.id));
        assert_eq!(
            v.setup_steps, v.position.length,
            "{}: an untouched lesson is all setup",
            preset.id
        );
    }
}
