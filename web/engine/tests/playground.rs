//! The playground's session driven through the protocol, as the page drives it: opened
//! from the settings, a lesson or a replay, then acted on; every answer is a page view.
// A test fails loudly on a missing field; that is what unwrap and panics are for here.
#![allow(clippy::unwrap_used, clippy::panic)]

use shardlab::sim::Timeline;
use shardlab::workload::presets::{self, PRESETS};
use shardlab_engine::playground::INTRO;
use shardlab_engine::Engine;
use shardlab_protocol::*;

/// Sends one call about `session` (none for a method about no session) and returns its
/// outcome and the events it pushed, each checked to name the session it concerns.
fn send(
    e: &mut Engine,
    session: Option<&str>,
    call: Call,
) -> (Result<Reply, EngineError>, Vec<Event>) {
    // Every request crosses as JSON, as it does from a view.
    let request = Request::new(1, session, call);
    let text = serde_json::to_string(&request).unwrap();
    let handled = e.handle(serde_json::from_str(&text).unwrap());
    let about = match &handled.response.outcome {
        Outcome::Result(Reply::Open(opened)) => Some(opened.session.as_str()),
        Outcome::Result(_) => session,
        Outcome::Error(..) => None,
    };
    if let Some(about) = about {
        for m in &handled.events {
            assert_eq!((m.v, m.session.as_str()), (PROTOCOL_VERSION, about));
        }
    }
    let events = handled.events.into_iter().map(|m| m.event).collect();
    let outcome = match handled.response.outcome {
        Outcome::Result(reply) => Ok(reply),
        Outcome::Error(_, error) => Err(error),
    };
    (outcome, events)
}

/// Opens a session (the engine names it) and returns what it answered and the events.
fn open(e: &mut Engine, start: Start) -> (Result<Opened, EngineError>, Vec<Event>) {
    let (reply, events) = send(e, None, Call::Open(start));
    let opened = reply.map(|reply| match reply {
        Reply::Open(opened) => *opened,
        other => panic!("not opened: {other:?}"),
    });
    (opened, events)
}

/// A playground opened: its handle and its first view.
fn playground(opened: Opened) -> (String, PageView) {
    let view = *opened.view.expect("a playground's view");
    assert_eq!(opened.position, view.position);
    (opened.session, view)
}

fn page_of(reply: Reply) -> PageView {
    match reply {
        Reply::Act(view) => *view,
        other => panic!("not a page view: {other:?}"),
    }
}

fn act(e: &mut Engine, page: &str, act: Act) -> PageView {
    page_of(send(e, Some(page), Call::Act(act)).0.unwrap())
}

fn act_err(e: &mut Engine, page: &str, act: Act) -> EngineError {
    send(e, Some(page), Call::Act(act)).0.unwrap_err()
}

fn catalog(e: &mut Engine) -> Box<Catalog> {
    match send(e, None, Call::Catalog).0.unwrap() {
        Reply::Catalog(c) => c,
        other => panic!("{other:?}"),
    }
}

fn setup() -> PageSetup {
    PageSetup {
        shards: 3,
        version: "5.0".into(),
        chunk_size: 8 * 1024,
        key: "{x: 1}".into(),
        unique: false,
        initial_chunks: None,
        ns: "test.events".into(),
    }
}

fn open_setup(e: &mut Engine) -> (String, PageView) {
    playground(open(e, Start::Setup(setup())).0.unwrap())
}

fn workload(total: u64) -> WorkloadSpec {
    WorkloadSpec {
        spec: "monotonic".into(),
        batch: 25,
        total,
        balance: true,
    }
}

fn command(source: &str) -> Act {
    Act::Command {
        source: source.into(),
    }
}

fn lines(view: &PageView) -> Vec<(PageLineKind, &str)> {
    view.lines
        .iter()
        .map(|l| (l.kind, l.text.as_str()))
        .collect()
}

fn saves(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Save { .. }))
        .count()
}

#[test]
fn a_setup_echoes_its_two_steps_and_a_typed_command_its_lines() {
    let mut e = Engine::new();
    let (opened, events) = open(&mut e, Start::Setup(setup()));
    assert_eq!(saves(&events), 1);
    let (page, view) = playground(opened.unwrap());
    // The same two steps straight on the core print the same lines.
    let commands = [
        presets::chunk_size_command(8 * 1024),
        presets::shard_command("test.events", "{x: 1}", false, None),
    ];
    let mut direct = Timeline::new(shardlab::ClusterConfig {
        shards: 3,
        version: shardlab::VersionMode::V50,
        chunk_size: None,
        seed: 1,
    });
    let mut expected = vec![(PageLineKind::Output, INTRO.to_string())];
    for c in &commands {
        expected.push((PageLineKind::Auto, c.clone()));
        for o in direct.push(c) {
            let kind = if o.result.is_err() {
                PageLineKind::Error
            } else {
                PageLineKind::Output
            };
            expected.extend(o.render().map(|t| (kind, t)));
        }
    }
    let got: Vec<(PageLineKind, String)> = view
        .lines
        .iter()
        .map(|l| (l.kind, l.text.clone()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(
        view.position,
        Position {
            position: 2,
            length: 2
        }
    );
    assert_eq!(view.step.as_deref(), Some(commands[1].as_str()));
    assert_eq!(view.settings.ns, "test.events");
    assert_eq!(view.settings.key, "{ x: 1 }");
    assert_eq!((view.settings.shards, view.settings.chunk_size), (3, 8192));
    assert_eq!(view.settings.version, "5.0");
    assert!(!view.failed && view.frame.sharded && view.lesson.is_none());

    let (reply, events) = send(
        &mut e,
        Some(&page),
        Call::Act(command("  db.events.insertOne({x: 5})  ")),
    );
    let view = page_of(reply.unwrap());
    assert_eq!(saves(&events), 1);
    let got = lines(&view);
    assert_eq!(got[0], (PageLineKind::Input, "db.events.insertOne({x: 5})"));
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1].0, PageLineKind::Output);
    assert_eq!(view.count, 1);
    assert_eq!(view.latest_inserts, 1);
    let landed = view.landed.clone().unwrap();
    // It landed in the only chunk, the one starting at MinKey: the first on the bar.
    assert!(landed.at.is_some(), "{landed:?}");
    assert_eq!(landed.chunk.as_ref(), Some(&view.frame.bar[0].key));
    assert_eq!(view.hot_counted, 1);
    assert_eq!(view.hot.iter().map(|(_, n)| n).sum::<u64>(), 1);
    assert_eq!(view.hot.len(), 3);
    // A mistake is the shell's error among the lines, not a protocol error.
    let view = act(&mut e, &page, command("db.events.find({$bad: 1})"));
    assert!(view.failed);
    assert_eq!(view.lines.last().unwrap().kind, PageLineKind::Error);
    // An empty command runs nothing.
    let before = view.position;
    let (reply, events) = send(&mut e, Some(&page), Call::Act(command("   ")));
    assert_eq!(page_of(reply.unwrap()).position, before);
    assert_eq!(saves(&events), 0);
}

#[test]
fn a_lessons_batches_fill_its_total_then_its_closing_commands_run_once() {
    let mut e = Engine::new();
    let preset = presets::preset("missing-fields").unwrap();
    let (page, opened) = playground(
        open(
            &mut e,
            Start::Lesson {
                id: preset.id.into(),
            },
        )
        .0
        .unwrap(),
    );
    assert_eq!(
        opened.lines[0].text,
        format!("Lesson: {}. {}", preset.title(), preset.lesson())
    );
    // The same line as a message: its title and text are the catalogue's `preset.*`, for
    // the page to word in its language.
    let said = opened.lines[0].message.as_ref().unwrap();
    assert_eq!(said.id, "engine.console.lesson");
    let part = |name: &str| match &said.args.iter().find(|(n, _)| n == name).unwrap().1 {
        ArgView::Message(m) => m.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(part("title").id, format!("preset.{}.title", preset.id));
    assert_eq!(part("text").id, format!("preset.{}.text", preset.id));
    // The commands it ran are mongosh's: no message.
    assert!(opened.lines[1..].iter().all(|l| l.message.is_none()));
    assert_eq!(opened.lesson.as_deref(), Some("missing-fields"));
    assert_eq!(opened.position.length, preset.setup_commands().len() as u64);
    let catalog = catalog(&mut e);
    let lesson = catalog.lessons.iter().find(|l| l.id == preset.id).unwrap();
    let mut batches = 0;
    let last = loop {
        let view = act(
            &mut e,
            &page,
            Act::Batch {
                workload: lesson.workload.clone(),
                echo: batches == 0,
            },
        );
        batches += 1;
        assert!(!view.failed, "{:?}", view.lines);
        if batches == 1 {
            assert_eq!(view.lines[0].kind, PageLineKind::Auto);
        }
        if view.done {
            break view;
        }
        assert!(view.lines.is_empty() || batches == 1, "{:?}", view.lines);
        assert!(!view.after_done);
        assert!(batches < 100);
    };
    assert_eq!(batches, preset.total.div_ceil(preset.batch));
    assert_eq!(last.count, u64::from(preset.total));
    assert!(last.after_done);
    let closing: Vec<&str> = last
        .lines
        .iter()
        .filter(|l| l.kind == PageLineKind::Auto)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(closing, preset.after);
    let length = last.position.length;
    assert_eq!(
        length,
        (preset.setup_commands().len() + batches as usize + preset.after.len()) as u64
    );
    // Full: nothing runs, and the notice says why.
    let again = act(
        &mut e,
        &page,
        Act::Batch {
            workload: lesson.workload.clone(),
            echo: true,
        },
    );
    assert!(again.done && again.lines.is_empty());
    assert_eq!(again.position.length, length);
    assert!(again
        .notice
        .unwrap()
        .contains("already holds 600 documents"));
    // Back before the last batch and on again: the closing commands do not run twice.
    for _ in 0..=preset.after.len() {
        act(&mut e, &page, Act::Back);
    }
    let refilled = act(
        &mut e,
        &page,
        Act::Batch {
            workload: lesson.workload.clone(),
            echo: true,
        },
    );
    assert!(refilled.done && refilled.after_done);
    let autos: Vec<&str> = refilled
        .lines
        .iter()
        .filter(|l| l.kind == PageLineKind::Auto)
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(autos, [preset.batch_command(preset.batch)], "{autos:?}");
    assert_eq!(refilled.position.length, length - preset.after.len() as u64);
}

#[test]
fn a_full_collection_runs_nothing_and_says_so() {
    let mut e = Engine::new();
    let (page, _) = open_setup(&mut e);
    let first = act(
        &mut e,
        &page,
        Act::Batch {
            workload: workload(10),
            echo: true,
        },
    );
    assert!(first.done && first.count == 10);
    assert_eq!(
        first.lines[0].text,
        "sim.generate(\"test.events\", \"monotonic\", 10); sim.balance()"
    );
    let (reply, events) = send(
        &mut e,
        Some(&page),
        Call::Act(Act::Batch {
            workload: workload(10),
            echo: true,
        }),
    );
    let full = page_of(reply.unwrap());
    assert_eq!(saves(&events), 0);
    assert_eq!(full.position, first.position);
    assert_eq!(
        full.notice.as_deref(),
        Some("test.events already holds 10 documents, the workload's total of 10. Raise Total to insert more.")
    );
    let words = full.notice_words.unwrap();
    assert_eq!(words.id, "engine.notice.workload_full");
    assert_eq!(
        words.args,
        [("ns", "test.events"), ("count", "10"), ("total", "10")]
            .map(|(n, v)| (n.to_string(), ArgView::Text(v.to_string())))
    );
}

/// The playground's own words are messages of the core's catalogue: every `engine.*` id
/// the engine names is a template there, and every such template is named, so none falls
/// back to an empty English and none is dead.
#[test]
fn every_engine_message_is_a_template_and_named() {
    let code = [
        include_str!("../src/playground.rs"),
        include_str!("../src/panels.rs"),
        include_str!("../src/queries.rs"),
    ]
    .concat();
    let named: Vec<String> = code
        .split("\"engine.")
        .skip(1)
        .filter_map(|rest| Some(format!("engine.{}", &rest[..rest.find('"')?])))
        .collect();
    assert!(named.len() >= 8, "{named:?}");
    let templates = shardlab::engine::MESSAGES;
    for id in &named {
        assert!(
            templates.iter().any(|(t, _)| t == id),
            "{id} is no template"
        );
    }
    for (id, _) in templates.iter().filter(|(id, _)| id.starts_with("engine.")) {
        assert!(named.iter().any(|n| n == id), "{id} is never named");
    }
}

#[test]
fn a_batch_not_echoed_prints_only_its_errors() {
    let mut e = Engine::new();
    let (page, _) = open_setup(&mut e);
    let quiet = act(
        &mut e,
        &page,
        Act::Batch {
            workload: workload(1000),
            echo: false,
        },
    );
    assert!(quiet.lines.is_empty() && !quiet.done && quiet.count == 25);
    assert_eq!(quiet.latest_inserts, 25);
    let bad = WorkloadSpec {
        spec: "no-such-workload".into(),
        ..workload(1000)
    };
    let failed = act(
        &mut e,
        &page,
        Act::Batch {
            workload: bad,
            echo: false,
        },
    );
    assert!(failed.failed && failed.done);
    assert!(!failed.lines.is_empty());
    assert!(failed.lines.iter().all(|l| l.kind == PageLineKind::Error));
    let passed = act(&mut e, &page, Act::PassTime { echo: true });
    assert_eq!(passed.lines[0].text, presets::sleep_command(PASS_TIME_MS));
    let quiet = act(&mut e, &page, Act::PassTime { echo: false });
    assert!(quiet.lines.is_empty() && !quiet.failed);
    assert_eq!(quiet.step.as_deref(), Some("sleep(2000)"));
}

#[test]
fn the_cursor_moves_back_forward_and_to_a_step_and_forks() {
    let mut e = Engine::new();
    let (page, _) = open_setup(&mut e);
    for x in 1..=3 {
        act(
            &mut e,
            &page,
            command(&format!("db.events.insertOne({{x: {x}}})")),
        );
    }
    let back = act(&mut e, &page, Act::Back);
    assert_eq!(
        back.position,
        Position {
            position: 4,
            length: 5
        }
    );
    assert_eq!((back.count, back.frame.docs), (2, 2));
    assert_eq!(back.step.as_deref(), Some("db.events.insertOne({x: 2})"));
    let forward = act(&mut e, &page, Act::Forward);
    assert_eq!((forward.position.position, forward.count), (5, 3));
    // At the end, forward moves nothing (the page sends a batch there).
    let still = act(&mut e, &page, Act::Forward);
    assert_eq!(still.position, forward.position);
    let start = act(&mut e, &page, Act::Jump { to: 2 });
    assert_eq!((start.position.position, start.count), (2, 0));
    assert_eq!(start.latest_inserts, 0);
    assert!(start.landed.is_none());
    let zero = act(&mut e, &page, Act::Jump { to: 0 });
    assert!(!zero.frame.sharded && zero.step.is_none());
    let past = act(&mut e, &page, Act::Jump { to: 99 });
    assert_eq!(past.position, zero.position);
    // The timeline's own words, and the same as a message for a page to word.
    let len = past.position.length;
    assert_eq!(
        past.notice,
        Some(format!(
            "position 99 is past the end of the timeline ({len} steps)"
        ))
    );
    assert_eq!(
        past.notice_words.map(|m| m.id),
        Some("engine.notice.past_end".to_string())
    );
    act(&mut e, &page, Act::Jump { to: 3 });
    let (reply, events) = send(&mut e, Some(&page), Call::Act(Act::Fork));
    let forked = page_of(reply.unwrap());
    assert_eq!(saves(&events), 1);
    assert_eq!(
        forked.position,
        Position {
            position: 3,
            length: 3
        }
    );
    assert_eq!(forked.count, 1);
    // A command after a scrub back forks too.
    act(&mut e, &page, Act::Back);
    let typed = act(&mut e, &page, command("db.events.insertOne({x: 9})"));
    assert_eq!(
        typed.position,
        Position {
            position: 3,
            length: 3
        }
    );
    assert_eq!(typed.count, 1);
}

#[test]
fn view_shows_a_collection_until_a_command_touches_another() {
    let mut e = Engine::new();
    let (page, _) = open_setup(&mut e);
    act(&mut e, &page, command("db.other.insertOne({a: 1})"));
    act(&mut e, &page, command("db.events.insertOne({x: 1})"));
    let missing = act(
        &mut e,
        &page,
        Act::View {
            ns: "nope.nothing".into(),
        },
    );
    assert_eq!(missing.settings.ns, "test.events");
    assert!(missing.lines.is_empty() && missing.notice.is_none());
    let other = act(
        &mut e,
        &page,
        Act::View {
            ns: "test.other".into(),
        },
    );
    assert_eq!(other.settings.ns, "test.other");
    assert_eq!((other.count, other.frame.ns.as_str()), (1, "test.other"));
    assert!(!other.frame.sharded);
    let names: Vec<&str> = other.collections.iter().map(|c| c.ns.as_str()).collect();
    assert_eq!(names, ["test.events", "test.other"]);
    assert_eq!(other.collections[0].key, "{ x: 1 }");
    assert_eq!(other.collections[1].key, "");
    // Stepping keeps the pick; a command that touches a collection replaces it.
    assert_eq!(act(&mut e, &page, Act::Back).settings.ns, "test.other");
    act(&mut e, &page, Act::Forward);
    let touched = act(&mut e, &page, command("db.events.insertOne({x: 2})"));
    assert_eq!(touched.settings.ns, "test.events");
}

/// A session of a few batches and commands: its handle and its link form.
fn some_session(e: &mut Engine) -> (String, String) {
    let (page, _) = open_setup(e);
    for i in 0..4 {
        act(
            e,
            &page,
            Act::Batch {
                workload: workload(1000),
                echo: i == 0,
            },
        );
    }
    act(e, &page, command("db.events.insertOne({x: -1})"));
    act(e, &page, Act::PassTime { echo: true });
    let scenario = Call::Scenario {
        page: vec![],
        json: false,
    };
    match send(e, Some(&page), scenario).0.unwrap() {
        Reply::Scenario { text } => (page, text),
        other => panic!("{other:?}"),
    }
}

/// Opens `text` as a replay, advances it `slice` commands at a time and finishes it:
/// its handle and its view when finished.
fn replay(e: &mut Engine, text: &str, slice: u32) -> (String, PageView) {
    let (opened, events) = open(e, Start::Replay { text: text.into() });
    let opened = opened.unwrap();
    let replaying = opened.replay.clone().expect("a replay");
    let (session, view) = playground(opened);
    assert!(replaying.json.starts_with('{'), "{}", replaying.json);
    let total = view.replay.unwrap().total;
    // Nothing is saved before the replay is over: the saved session is what it replays.
    assert_eq!(events, [Event::Progress { done: 0, total }]);
    assert_eq!(
        view.lines[0].text,
        format!("Replaying a scenario of {total} steps: 0 replayed so far.")
    );
    assert_eq!(view.replay.unwrap().done, 0);
    assert_eq!(view.position.length, 0);
    loop {
        let (reply, events) = send(
            e,
            Some(&session),
            Call::Act(Act::Advance {
                commands: slice,
                picture: true,
            }),
        );
        let view = page_of(reply.unwrap());
        let progress = view.replay.unwrap();
        // Each picture of a replay is whole.
        assert!(view.frame.shards.iter().all(|s| s.chunks.is_some()));
        assert_eq!(view.position.length, progress.done);
        assert!(events.contains(&Event::Progress {
            done: progress.done,
            total
        }));
        assert_eq!(saves(&events), 0, "a replay under way is not saved");
        if progress.done == total {
            break;
        }
    }
    let (reply, events) = send(e, Some(&session), Call::Act(Act::Finish));
    assert_eq!(saves(&events), 1);
    let view = page_of(reply.unwrap());
    assert!(view.replay.is_none());
    (session, view)
}

fn look(e: &mut Engine, session: &str) -> PageView {
    act(e, session, Act::Look)
}

#[test]
fn a_replay_in_slices_ends_where_the_same_steps_run_directly_do() {
    let mut e = Engine::new();
    let (page, text) = some_session(&mut e);
    let (copy, finished) = replay(&mut e, &text, 3);
    assert_ne!(copy, page);
    assert_eq!(
        finished.lines[0].text,
        "Restored a scenario of 8 steps, at step 8."
    );
    assert!(finished.after_done);
    let (direct, copied) = (look(&mut e, &page), look(&mut e, &copy));
    assert_eq!(copied.frame, direct.frame);
    assert_eq!(copied.settings, direct.settings);
    assert_eq!(copied.count, direct.count);
    assert_eq!(copied.collections, direct.collections);
    assert_eq!(copied.position, direct.position);
    assert_eq!(copied.hot, direct.hot);
    assert_eq!(copied.latest_inserts, direct.latest_inserts);
    assert_eq!(copied.landed, direct.landed);
    // Stepping back reads the replayed steps' figures too.
    assert_eq!(
        act(&mut e, &copy, Act::Back).hot,
        act(&mut e, &page, Act::Back).hot
    );
}

#[test]
fn finishing_midway_keeps_the_steps_replayed() {
    let mut e = Engine::new();
    let (_, text) = some_session(&mut e);
    let (copy, _) = playground(open(&mut e, Start::Replay { text }).0.unwrap());
    let view = act(
        &mut e,
        &copy,
        Act::Advance {
            commands: 3,
            picture: true,
        },
    );
    assert_eq!(view.replay, Some(ReplayProgress { done: 3, total: 8 }));
    assert_eq!(
        view.lines[0].text,
        "Replaying a scenario of 8 steps: 3 replayed so far."
    );
    // Nothing else lands in the middle of a replay.
    let refused = send(&mut e, Some(&copy), Call::Act(command("sh.status()")))
        .0
        .unwrap_err();
    assert!(refused.message.contains("replay"), "{refused:?}");
    let done = act(&mut e, &copy, Act::Finish);
    assert_eq!(
        done.position,
        Position {
            position: 3,
            length: 3
        }
    );
    assert_eq!(
        done.lines[0].text,
        "Restored a scenario of 3 steps, at step 3."
    );
    // The setup's two steps and the first batch.
    assert_eq!(done.count, 25);
    // Over: no more advancing or finishing, but acting again.
    for late in [
        Act::Advance {
            commands: 1,
            picture: true,
        },
        Act::Finish,
    ] {
        let error = send(&mut e, Some(&copy), Call::Act(late)).0.unwrap_err();
        assert_eq!(error.code_name, "BadValue");
    }
    assert_eq!(act(&mut e, &copy, Act::Back).position.position, 2);
}

#[test]
fn a_link_round_trips_in_both_forms_with_the_page_state() {
    let mut e = Engine::new();
    let (page, _) = some_session(&mut e);
    act(&mut e, &page, Act::Jump { to: 5 });
    let entries = vec![
        ("lesson".to_string(), "missing-fields".to_string()),
        ("after".to_string(), "0".to_string()),
        ("tab".to_string(), "playground".to_string()),
    ];
    let original = look(&mut e, &page);
    for json in [false, true] {
        let text = match send(
            &mut e,
            Some(&page),
            Call::Scenario {
                page: entries.clone(),
                json,
            },
        )
        .0
        .unwrap()
        {
            Reply::Scenario { text } => text,
            other => panic!("{other:?}"),
        };
        assert_eq!(text.starts_with('{'), json);
        let (opened, _) = open(&mut e, Start::Replay { text: text.clone() });
        let opened = opened.unwrap();
        let Some(replaying) = opened.replay.clone() else {
            panic!("not a replay");
        };
        let Replaying {
            page: state,
            position,
            json: form,
        } = *replaying;
        assert_eq!((state, position), (entries.clone(), Some(5)));
        assert!(form.starts_with('{'), "{form}");
        let (first, _) = playground(opened);
        assert_eq!(
            send(&mut e, Some(&first), Call::Close).0.unwrap(),
            Reply::Close
        );
        assert_eq!(
            act_err(&mut e, &first, Act::Look).code_name,
            "NoSuchSession"
        );
        let (session, finished) = replay(&mut e, &text, 100);
        assert_ne!(session, first);
        assert_eq!(
            finished.lines[0].text,
            "Restored a scenario of 8 steps, at step 5."
        );
        assert_eq!(finished.lesson.as_deref(), Some("missing-fields"));
        assert!(!finished.after_done);
        let copy = look(&mut e, &session);
        assert_eq!(copy.frame, original.frame);
        assert_eq!(copy.settings, original.settings);
        assert_eq!(copy.count, original.count);
        assert_eq!(copy.position, original.position);
    }
}

#[test]
fn the_catalog_lists_every_lesson_workload_and_version() {
    let mut e = Engine::new();
    let catalog = catalog(&mut e);
    assert_eq!(catalog.lessons.len(), PRESETS.len());
    for (lesson, preset) in catalog.lessons.iter().zip(PRESETS) {
        assert_eq!(lesson.id, preset.id);
        assert_eq!(lesson.title, preset.title());
        assert_eq!(lesson.lesson, preset.lesson());
        assert_eq!(lesson.setup.key, preset.key);
        assert_eq!(lesson.setup.ns, preset.ns);
        assert_eq!(lesson.setup.shards, preset.shards);
        assert_eq!(lesson.setup.chunk_size, preset.chunk_size);
        assert_eq!(lesson.setup.version, preset.version.label());
        assert_eq!(lesson.workload.spec, preset.workload);
        assert_eq!(lesson.workload.batch, preset.batch);
        assert_eq!(lesson.workload.total, u64::from(preset.total));
        assert_eq!(lesson.workload.balance, preset.balance);
    }
    assert_eq!(catalog.workloads, shardlab::workload::preset_names());
    let versions: Vec<(&str, Vec<&str>)> = catalog
        .versions
        .iter()
        .map(|v| {
            (
                v.label.as_str(),
                v.lacks.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("3.6", vec!["refineCollectionShardKey", "reshardCollection"]),
            ("5.0", vec![]),
            ("7.0", vec![]),
            ("8.0", vec![]),
        ]
    );
    // The protocol's versions are the core's modes, each once, oldest first.
    use shardlab::VersionMode;
    let modes = [
        VersionMode::V36,
        VersionMode::V50,
        VersionMode::V70,
        VersionMode::V80,
    ];
    for mode in modes {
        // A mode added to the core breaks this match, so that it is added above too.
        match mode {
            VersionMode::V36 | VersionMode::V50 | VersionMode::V70 | VersionMode::V80 => {}
        }
        assert_eq!(VersionMode::parse(mode.label()), Some(mode));
    }
    let labels: Vec<&str> = modes.iter().map(|m| m.label()).collect();
    assert_eq!(labels, VERSIONS);
    let listed: Vec<&str> = versions.iter().map(|(label, _)| *label).collect();
    assert_eq!(listed, VERSIONS);
    // Every lesson opens, and the methods are announced.
    for preset in PRESETS {
        let start = Start::Lesson {
            id: preset.id.into(),
        };
        let (_, view) = playground(open(&mut e, start).0.unwrap());
        assert_eq!(view.settings.ns, preset.ns, "{}", preset.id);
        assert_eq!(view.lesson.as_deref(), Some(preset.id));
    }
    assert_eq!(catalog.protocol, PROTOCOL_VERSION);
    for m in ["page.act", "catalog", "scenario"] {
        assert!(catalog.methods.iter().any(|n| n == m), "{m}");
    }
}

#[test]
fn hostile_requests_get_errors_or_harmless_answers() {
    let mut e = Engine::new();
    let lesson = |id: &str| Start::Lesson { id: id.to_string() };
    let error = open(&mut e, lesson("nope")).0.unwrap_err();
    assert_eq!(error.message, "There is no lesson called 'nope'.");
    let long = "y".repeat(5000);
    let error = open(&mut e, lesson(&long)).0.unwrap_err();
    assert!(error.message.len() < 100, "{}", error.message);
    let error = open(&mut e, lesson(&"z".repeat(MAX_FIELD_BYTES + 1)))
        .0
        .unwrap_err();
    assert_eq!(error.code_name, "BadValue");
    for text in ["", "v9.abc", "v2.!!!!", "{\"format\": 1}", "{"] {
        let start = Start::Replay { text: text.into() };
        let error = open(&mut e, start).0.unwrap_err();
        assert_eq!(error.code_name, "BadValue", "{text}");
    }
    let bad_setup = PageSetup {
        version: "9.9".into(),
        ..setup()
    };
    assert!(open(&mut e, Start::Setup(bad_setup)).0.is_err());
    // No session yet: a refused open holds none, and acting on one is refused.
    assert_eq!(e.sessions().count(), 0);
    assert_eq!(
        act_err(&mut e, "page", Act::Look).code_name,
        "NoSuchSession"
    );
    // Acting names a session: without one it is refused.
    let error = send(&mut e, None, Call::Act(Act::Look)).0.unwrap_err();
    assert_eq!(error.code_name, "BadValue");
    // A session that is not a playground.
    let config = SessionConfig {
        shards: 2,
        version: "5.0".into(),
        chunk_size: None,
        seed: 1,
    };
    let plain = open(&mut e, Start::Config(config)).0.unwrap();
    assert!(plain.view.is_none() && plain.replay.is_none());
    let error = act_err(&mut e, &plain.session, Act::Look);
    assert!(error.message.contains("not a playground"), "{error:?}");
    // A key MongoDB refuses is the shell's error, as the page showed it.
    // numInitialChunks far beyond MongoDB's limit is MongoDB's error, quickly.
    let many = PageSetup {
        key: "{x: \"hashed\"}".into(),
        initial_chunks: Some(u32::MAX),
        ..setup()
    };
    let (_, view) = playground(open(&mut e, Start::Setup(many)).0.unwrap());
    assert!(view.failed, "{:?}", view.lines);
    let odd = PageSetup {
        key: "{x: \"sideways\"}".into(),
        ..setup()
    };
    let (page, view) = playground(open(&mut e, Start::Setup(odd)).0.unwrap());
    assert!(view.failed && !view.frame.sharded);
    for hostile in [
        Act::Advance {
            commands: 1,
            picture: true,
        },
        Act::Finish,
        Act::Jump { to: u64::MAX },
        Act::View { ns: String::new() },
        Act::View {
            ns: "$".repeat(1000),
        },
        Act::Forward,
        Act::Back,
        Act::Back,
        Act::Back,
        Act::Fork,
        Act::Auto {
            source: "}{".into(),
        },
        Act::Batch {
            workload: WorkloadSpec {
                spec: "{x: ".into(),
                ..workload(1)
            },
            echo: false,
        },
    ] {
        // Each is refused or answered; none panics or leaves the session unusable.
        let _ = send(&mut e, Some(&page), Call::Act(hostile));
    }
    assert_eq!(
        act_err(
            &mut e,
            &page,
            Act::Advance {
                commands: 0,
                picture: true
            }
        )
        .code_name,
        "BadValue"
    );
    let look = act(&mut e, &page, Act::Look);
    assert!(look.position.position <= look.position.length);
    let link = send(
        &mut e,
        Some(&page),
        Call::Scenario {
            page: vec![("x".into(), "y".repeat(MAX_FIELD_BYTES))],
            json: false,
        },
    );
    assert!(link.0.is_err(), "a page value over the scenario's limit");
}

#[test]
fn a_replay_goes_on_only_over_its_own_steps() {
    let mut e = Engine::new();
    let (_, text) = some_session(&mut e);
    let (copy, _) = playground(open(&mut e, Start::Replay { text }).0.unwrap());
    act(
        &mut e,
        &copy,
        Act::Advance {
            commands: 3,
            picture: true,
        },
    );
    // A plain call that adds a step meanwhile stops the replay from going on.
    let source = "sh.status()";
    send(&mut e, Some(&copy), Call::Run(RunSpec::source(source)))
        .0
        .unwrap();
    let error = send(
        &mut e,
        Some(&copy),
        Call::Act(Act::Advance {
            commands: 1,
            picture: true,
        }),
    )
    .0
    .unwrap_err();
    assert!(error.message.contains("changed"), "{error:?}");
    // Back to its own steps, it goes on; a cursor moved meanwhile goes back to the end.
    send(&mut e, Some(&copy), Call::Jump { to: 3 }).0.unwrap();
    send(&mut e, Some(&copy), Call::Fork).0.unwrap();
    send(&mut e, Some(&copy), Call::Step { by: -2 }).0.unwrap();
    let view = act(
        &mut e,
        &copy,
        Act::Advance {
            commands: 2,
            picture: true,
        },
    );
    assert_eq!(view.replay, Some(ReplayProgress { done: 5, total: 8 }));
    assert_eq!(
        view.position,
        Position {
            position: 5,
            length: 5
        }
    );
    // Fewer steps than replayed: it cannot go on, but it can finish with them.
    send(&mut e, Some(&copy), Call::Jump { to: 2 }).0.unwrap();
    send(&mut e, Some(&copy), Call::Fork).0.unwrap();
    assert!(send(
        &mut e,
        Some(&copy),
        Call::Act(Act::Advance {
            commands: 1,
            picture: true
        })
    )
    .0
    .is_err());
    let done = act(&mut e, &copy, Act::Finish);
    assert_eq!(
        done.position,
        Position {
            position: 2,
            length: 2
        }
    );
    assert!(done.replay.is_none());
}

/// The query box's example filter holds a value of the key field's own type, read from
/// the documents: none before there are any, a string for the continents, an ObjectId
/// for a hashed `_id`.
#[test]
fn the_example_filter_uses_a_value_the_documents_hold() {
    for (id, start) in [
        ("low-cardinality", "{ continent: '"),
        ("hashed", "{ _id: ObjectId('"),
        ("missing-fields", "{ x: "),
    ] {
        let mut e = Engine::new();
        let (page, opened) = playground(open(&mut e, Start::Lesson { id: id.into() }).0.unwrap());
        assert_eq!(
            opened.settings.example_filter, None,
            "{id}: no documents yet"
        );
        let catalog = catalog(&mut e);
        let lesson = catalog.lessons.iter().find(|l| l.id == id).unwrap();
        let view = act(
            &mut e,
            &page,
            Act::Batch {
                workload: lesson.workload.clone(),
                echo: false,
            },
        );
        let example = view.settings.example_filter.unwrap_or_default();
        assert!(example.starts_with(start), "{id}: {example}");
        assert!(!example.contains("null"), "{id}: {example}");
    }
}

#[test]
fn a_long_step_is_shown_by_its_start_and_an_ellipsis() {
    let mut e = Engine::new();
    let (page, _) = open_setup(&mut e);
    // About 20 KB in one command; "é" is two bytes, so a cut in the middle of one is tried.
    let docs: Vec<String> = (0..400)
        .map(|i| format!("{{x: {i}, s: \"é{}\"}}", "é".repeat(20)))
        .collect();
    let source = format!("db.events.insertMany([{}])", docs.join(", "));
    let view = act(&mut e, &page, command(&source));
    let shown = view.step.expect("the step at the cursor");
    let cut = shown.strip_suffix('…').expect("cut, with an ellipsis");
    assert!(cut.len() <= shardlab_engine::playground::MAX_STEP_SHOWN);
    assert!(cut.len() > shardlab_engine::playground::MAX_STEP_SHOWN - 4);
    assert!(source.starts_with(cut));
    // A short step is shown whole.
    let view = act(&mut e, &page, command("db.events.countDocuments()"));
    assert_eq!(view.step.as_deref(), Some("db.events.countDocuments()"));
}
