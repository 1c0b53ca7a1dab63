//! Browser tests of the page's own logic, run in headless Chromium by `wasm-bindgen-test`:
//! the reducer that mirrors the engine's page view, the frames it merges, the page state
//! it reads from links, the address's options, the JSON reader, the shard columns'
//! staggering and shared comparisons. The engine runs in a worker the page talks to, which
//! this harness does not build: what needs the engine is tested in `web/engine/tests`, and
//! the mounted page in the end-to-end tests (`tests/e2e`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_protocol::{
    ChunkFrame, Frame, PageLine, PageLineKind, PageView, Position, ReplayProgress, ShardFrame,
    ViewSettings,
};
use shardlab_web::share::{query_without_link, PageOptions};
use shardlab_web::state::{
    drawings_per_second, merge_frame, Action, Calm, Mode, Notice, Playground, CALM_EVERY,
    DRAW_EVERY_TICK_UP_TO, MAX_BATCH, MAX_TOTAL,
};
use std::rc::Rc;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// A chunk from `min` to `max` holding `docs` documents.
fn chunk(min: &str, max: &str, docs: u64) -> ChunkFrame {
    ChunkFrame {
        key: min.to_string(),
        min: min.to_string(),
        max: max.to_string(),
        docs,
        ..ChunkFrame::default()
    }
}

/// A shard as drawn, with `docs` documents and its chunks (`None`: unchanged, left out).
fn shard(name: &str, docs: u64, chunks: Option<Vec<ChunkFrame>>) -> ShardFrame {
    ShardFrame {
        name: name.to_string(),
        docs,
        chunks,
        ..ShardFrame::default()
    }
}

/// A frame of `ns` with these shards.
fn frame(ns: &str, shards: Vec<ShardFrame>) -> Frame {
    Frame {
        ns: ns.to_string(),
        docs: shards.iter().map(|s| s.docs).sum(),
        shards,
        ..Frame::default()
    }
}

/// An engine view of `test.events` at step `position` of `length`, printing `lines`.
fn view(position: u64, length: u64, count: u64, lines: &[(PageLineKind, &str)]) -> PageView {
    PageView {
        position: Position { position, length },
        lines: lines
            .iter()
            .map(|(kind, text)| PageLine {
                kind: *kind,
                text: text.to_string(),
                message: None,
                db: None,
            })
            .collect(),
        settings: ViewSettings {
            ns: "test.events".into(),
            key: "{ x: 1 }".into(),
            shards: 3,
            version: "5.0".into(),
            chunk_size: 8192,
            ..ViewSettings::default()
        },
        count,
        frame: frame(
            "test.events",
            vec![
                shard(
                    "shard01",
                    count,
                    Some(vec![chunk("MinKey", "MaxKey", count)]),
                ),
                shard("shard02", 0, Some(Vec::new())),
            ],
        ),
        ..PageView::default()
    }
}

/// The engine's answer to session `session`, as the driver hands it to the reducer.
fn viewed(session: &Rc<str>, view: PageView) -> Action {
    Action::Viewed(session.clone(), Rc::new(view))
}

/// A state for engine session `page-1` that has had its first answer.
fn opened() -> (Rc<Playground>, Rc<str>) {
    let state = Rc::new(Playground::opening("page-1"));
    let session = state.session.clone();
    let state = state.next(viewed(&session, view(2, 2, 0, &[])));
    (state, session)
}

#[wasm_bindgen_test]
fn the_reducer_takes_in_the_engines_view_of_its_own_session_only() {
    let state = Rc::new(Playground::opening("page-1"));
    assert!(!state.ready);
    let session = state.session.clone();
    let state = state.next(Action::Sent);
    assert_eq!(state.in_flight, 1);
    let rev = state.rev;
    let state = state.next(viewed(
        &session,
        view(3, 3, 25, &[(PageLineKind::Auto, "sim.generate(...)")]),
    ));
    assert!(state.ready && state.rev > rev);
    assert_eq!(state.in_flight, 0, "the answer is counted off");
    assert_eq!((state.count(), state.frame.docs), (25, 25));
    assert!(state.at_end());
    assert_eq!(state.settings.key, "{ x: 1 }");
    assert_eq!(state.console.len(), 1);
    // An answer for another session (an earlier one, a late picture of a replay) is dropped
    // whole: the state is the very same.
    let other: Rc<str> = Rc::from("page-0");
    let late = state.clone().next(viewed(&other, view(9, 9, 900, &[])));
    assert!(Rc::ptr_eq(&late, &state));
    let late = state
        .clone()
        .next(Action::Refused(other, "gone".to_string()));
    assert!(Rc::ptr_eq(&late, &state));
    // Lines add up in the console, kept to a readable length.
    let mut state = state;
    for i in 0..500 {
        let line = format!("line {i}");
        state = state.next(viewed(
            &session,
            view(3, 3, 25, &[(PageLineKind::Output, &line)]),
        ));
    }
    assert_eq!(state.console.len(), 400);
    assert_eq!(state.console.last().unwrap().text, "line 499");
    // A view's notice is shown; a view with no key (nothing sharded) keeps the form's.
    let mut quiet = view(4, 4, 25, &[]);
    quiet.notice = Some("test.events already holds 25 documents".to_string());
    quiet.settings.key = String::new();
    let state = state.next(viewed(&session, quiet));
    assert_eq!(
        state.notice.as_ref().map(|n| n.text.as_str()),
        Some("test.events already holds 25 documents")
    );
    assert_eq!(state.settings.key, "{ x: 1 }");
}

#[wasm_bindgen_test]
fn done_failed_and_refused_answers_stop_the_workload() {
    let (state, session) = opened();
    let state = state.next(Action::Play);
    assert!(state.playing && state.echo_batch);
    let mut done = view(3, 3, 1000, &[]);
    done.done = true;
    let stopped = state.clone().next(viewed(&session, done));
    assert!(!stopped.playing, "a full collection stops the workload");
    let passing = state.clone().next(Action::PassTime);
    assert!(passing.passing);
    let mut failed = view(3, 3, 0, &[(PageLineKind::Error, "MongoServerError")]);
    failed.failed = true;
    let stopped = passing.clone().next(viewed(&session, failed));
    assert!(!stopped.playing && !stopped.passing);
    let refused = passing
        .next(Action::Sent)
        .next(Action::Refused(session, "The engine refused.".to_string()));
    assert!(!refused.playing && !refused.passing);
    assert_eq!(refused.in_flight, 0);
    assert_eq!(
        refused.notice,
        Some(Notice::plain("The engine refused.".to_string()))
    );
}

#[wasm_bindgen_test]
fn a_switch_draws_another_session_and_its_successor_keeps_the_ui() {
    let (state, _) = opened();
    let state = state
        .next(Action::SetSpeed(99))
        .next(Action::SetMode(Mode::Compare))
        .next(Action::Command("sh.status()".into()))
        .next(Action::Command("sh.status()".into()))
        .next(Action::Page("compare", Some("monotonic".into())));
    assert_eq!(state.speed, 30, "the speed is clamped");
    assert_eq!(state.history.len(), 1, "a repeated command is kept once");
    let next = state.successor("page-2");
    assert_eq!(&*next.session, "page-2");
    assert!(!next.ready && next.console.is_empty());
    assert_eq!(
        (next.speed, next.mode, next.history.len()),
        (30, Mode::Compare, 1)
    );
    assert_eq!(next.page_value("compare"), Some("monotonic"));
    assert!(next.rev > state.rev);
    let mut lesson = next.clone();
    lesson.workload.batch = 7;
    let switched = state.clone().next(Action::Switch(Box::new(lesson), true));
    assert_eq!(
        switched.workload.batch, 7,
        "a lesson's own workload is taken"
    );
    let mut edited = (*state).clone();
    edited.workload.batch = 200;
    let switched = Rc::new(edited).next(Action::Switch(Box::new(next), false));
    assert_eq!(
        switched.workload.batch, 200,
        "the form's workload, as edited meanwhile, is kept"
    );
    assert_eq!(&*switched.session, "page-2");
    // From now on only page-2's answers are taken.
    let old: Rc<str> = Rc::from("page-1");
    let rev = switched.rev;
    let after = switched.next(viewed(&old, view(7, 7, 7, &[])));
    assert_eq!((after.rev, after.ready), (rev, false));
}

#[wasm_bindgen_test]
fn play_pressed_before_the_first_session_opens_goes_on_in_it() {
    // The page draws Play before the engine has opened its first session.
    let start = Rc::new(Playground::default()).next(Action::Play);
    assert!(start.playing);
    let first = start.successor("page-1");
    let opened = start.next(Action::Switch(Box::new(first), false));
    assert!(opened.playing, "the Play pressed early is not lost");
    assert!(!opened.ready, "its ticks wait for the first answer");
    // A later switch (a lesson, a link) starts still, whatever played before it.
    let next = opened.successor("page-2");
    let switched = opened.next(Action::Switch(Box::new(next), false));
    assert!(!switched.playing);
}

#[wasm_bindgen_test]
fn a_replays_pictures_replace_each_other_in_the_console_and_commands_wait() {
    let (state, session) = opened();
    let mut picture = view(0, 0, 0, &[(PageLineKind::Output, "Replaying: 0 so far.")]);
    picture.replay = Some(ReplayProgress { done: 0, total: 8 });
    let state = state.next(viewed(&session, picture.clone()));
    picture.lines[0].text = "Replaying: 3 so far.".into();
    picture.replay = Some(ReplayProgress { done: 3, total: 8 });
    let state = state.next(viewed(&session, picture));
    let texts: Vec<&str> = state.console.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["Replaying: 3 so far."]);
    let done = view(8, 8, 6, &[(PageLineKind::Output, "Restored 8 steps.")]);
    let state = state.next(viewed(&session, done));
    let texts: Vec<&str> = state.console.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Restored 8 steps."],
        "the end says what it restored"
    );
    // Commands typed meanwhile wait, in order, until the driver hands them on.
    let state = state
        .next(Action::Wait("db.c.insertOne({x: 1})".into()))
        .next(Action::Wait("sh.status()".into()));
    assert_eq!(
        state.waiting.as_slice(),
        ["db.c.insertOne({x: 1})", "sh.status()"]
    );
    assert!(state.history.is_empty(), "not run yet");
    let state = state.next(Action::Drained);
    assert!(state.waiting.is_empty());
}

#[wasm_bindgen_test]
fn merged_frames_carry_unchanged_shards_chunks() {
    let first = frame(
        "test.events",
        vec![
            shard("a", 5, Some(vec![chunk("MinKey", "5", 5)])),
            shard("b", 3, Some(vec![chunk("5", "MaxKey", 3)])),
        ],
    );
    let next = frame(
        "test.events",
        vec![
            shard("a", 5, None),
            shard("b", 4, Some(vec![chunk("5", "MaxKey", 4)])),
            shard("c", 0, None),
        ],
    );
    let merged = merge_frame(&first, &next);
    let chunks = |f: &Frame, i: usize| f.shards[i].chunks.clone().unwrap();
    assert_eq!(chunks(&merged, 0), chunks(&first, 0), "a did not change");
    assert_eq!(chunks(&merged, 1), vec![chunk("5", "MaxKey", 4)]);
    assert_eq!(chunks(&merged, 2), Vec::new(), "a new shard has none yet");
    // Another collection's frame carries nothing over.
    let other = frame("test.other", vec![shard("a", 0, None)]);
    assert_eq!(chunks(&merge_frame(&first, &other), 0), Vec::new());
    // The reducer merges every answer's frame with the last.
    let (state, session) = opened();
    let mut calm = view(3, 3, 0, &[]);
    calm.frame.shards[0].chunks = None;
    let state = state.next(viewed(&session, calm));
    assert_eq!(
        state.frame.shards[0].chunks.as_deref(),
        Some(&[chunk("MinKey", "MaxKey", 0)][..])
    );
}

#[wasm_bindgen_test]
fn page_state_from_a_link_is_checked_value_by_value() {
    let mut state = Playground::opening("page-1");
    let entries = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    let (problems, lesson, view) = state.apply_page(&entries(&[
        ("lesson", "hashed"),
        ("workload", "uniform"),
        ("batch", "50"),
        ("total", "5000"),
        ("balance", "0"),
        ("view", "test.zz"),
        ("tab", "guide"),
        ("compare", "monotonic\n25"),
    ]));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        (lesson.as_deref(), view.as_deref()),
        (Some("hashed"), Some("test.zz"))
    );
    assert_eq!(
        (
            state.workload.spec.as_str(),
            state.workload.batch,
            state.workload.total,
            state.workload.balance
        ),
        ("uniform", 50, 5000, false)
    );
    assert_eq!(state.mode, Mode::Guide);
    assert_eq!(state.page_value("compare"), Some("monotonic\n25"));
    // It comes back as the page's entries, for the next link.
    let out = state.page_entries();
    for pair in [("workload", "uniform"), ("batch", "50"), ("tab", "guide")] {
        assert!(
            out.iter().any(|(n, v)| (n.as_str(), v.as_str()) == pair),
            "{pair:?} in {out:?}"
        );
    }
    // Hostile values are left out, each named, and change nothing.
    let before = state.workload.clone();
    let too_many = (MAX_BATCH + 1).to_string();
    let too_much = (MAX_TOTAL + 1).to_string();
    let long = "w".repeat(17 << 10);
    let (problems, _, _) = state.apply_page(&entries(&[
        ("batch", "0"),
        ("batch", &too_many),
        ("total", &too_much),
        ("total", "-1"),
        ("workload", "   "),
        ("workload", &long),
        ("tab", "nope"),
        ("colour", "red"),
    ]));
    assert_eq!(state.workload, before);
    assert_eq!(state.mode, Mode::Guide);
    assert_eq!(problems.len(), 8, "{problems:?}");
    assert!(problems.contains(&"'0' is not a valid batch".to_string()));
    assert!(problems.contains(&"'nope' is not a valid tab".to_string()));
    assert!(problems.contains(&"unknown setting 'colour'".to_string()));
    // A long value is quoted only in part.
    assert!(problems.iter().all(|p| p.len() < 80), "{problems:?}");
}

/// Playing, a calm panel (the timeline, the insights) catches up with one answer in
/// [`CALM_EVERY`], the two in turn; out of sight it waits until it is back; paused,
/// everything is current.
#[wasm_bindgen_test]
fn calm_panels_redraw_in_turn_while_playing_and_hidden_ones_wait() {
    assert_eq!(
        drawings_per_second(DRAW_EVERY_TICK_UP_TO),
        DRAW_EVERY_TICK_UP_TO
    );
    assert_eq!(drawings_per_second(30), 15, "fast, every second tick");
    let (state, session) = opened();
    // Not playing, every change is drawn by both.
    assert_eq!(state.calm_rev(Calm::Timeline), state.rev);
    assert_eq!(state.calm_rev(Calm::Insights), state.rev);
    let mut s = state.next(Action::Play);
    assert_eq!(
        s.calm_rev(Calm::Timeline),
        s.rev,
        "a click is drawn at once"
    );
    let (mut timeline, mut insights) = (Vec::new(), Vec::new());
    for i in 0..(3 * CALM_EVERY) {
        let before = (s.calm_rev(Calm::Timeline), s.calm_rev(Calm::Insights));
        s = s.next(viewed(&session, view(3 + i, 3 + i, 25 * i, &[])));
        if s.calm_rev(Calm::Timeline) != before.0 {
            assert_eq!(s.calm_rev(Calm::Timeline), s.rev);
            timeline.push(s.rev);
        }
        if s.calm_rev(Calm::Insights) != before.1 {
            assert_eq!(s.calm_rev(Calm::Insights), s.rev);
            insights.push(s.rev);
        }
    }
    assert_eq!(timeline.len(), 3, "{timeline:?}");
    assert_eq!(insights.len(), 3, "{insights:?}");
    assert!(timeline.iter().all(|r| r % CALM_EVERY == 0));
    assert!(insights.iter().all(|r| r % CALM_EVERY == CALM_EVERY / 2));
    // The timeline out of sight waits; the insights keep their pace.
    s = s.next(Action::Hidden(Calm::Timeline, true));
    let hidden_at = s.calm_rev(Calm::Timeline);
    let insights_at = s.calm_rev(Calm::Insights);
    for i in 0..(2 * CALM_EVERY) {
        s = s.next(viewed(&session, view(50 + i, 50 + i, 0, &[])));
    }
    assert!(s.playing);
    assert_eq!(
        s.calm_rev(Calm::Timeline),
        hidden_at,
        "the hidden timeline waits"
    );
    assert!(s.calm_rev(Calm::Insights) > insights_at);
    s = s.next(Action::Hidden(Calm::Timeline, false));
    assert_eq!(
        s.calm_rev(Calm::Timeline),
        s.rev,
        "shown again, it catches up"
    );
    // Between its turns, a panel lags; a pause draws whatever is pending.
    s = s.next(viewed(&session, view(90, 90, 0, &[])));
    if s.rev % CALM_EVERY == 0 {
        s = s.next(viewed(&session, view(91, 91, 0, &[])));
    }
    assert_ne!(s.calm_rev(Calm::Timeline), s.rev);
    s = s.next(Action::Pause);
    assert!(!s.playing);
    assert_eq!(s.calm_rev(Calm::Timeline), s.rev);
    assert_eq!(s.calm_rev(Calm::Insights), s.rev);
}

#[wasm_bindgen_test]
fn page_options_are_read_from_the_address() {
    let o = PageOptions::parse("?embed=1&autoplay=1&hide=console,insights&preset=hashed");
    assert!(o.embed && o.autoplay);
    assert!(o.hides("console") && o.hides("insights") && !o.hides("timeline"));
    assert_eq!(o.preset.as_deref(), Some("hashed"));
    assert_eq!(o.selftest, None);
    assert!(o.unknown.is_empty());
    assert_eq!(
        PageOptions::parse("?selftest=trap").selftest.as_deref(),
        Some("trap")
    );
    assert_eq!(
        PageOptions::parse("?s=v1.abc%2Bd").scenario.as_deref(),
        Some("v1.abc+d")
    );
    let o = PageOptions::parse("?embed=0&autoplay=false&colour=red&colour=blue&x%41=1");
    assert!(!o.embed && !o.autoplay);
    assert_eq!(o.unknown, ["colour", "xA"], "each unknown option once");
    let many: String = (0..20).map(|i| format!("&opt{i}=1")).collect();
    assert_eq!(PageOptions::parse(&many).unknown.len(), 8);
}

#[wasm_bindgen_test]
fn share_links_carry_the_scenario_in_the_fragment_and_query_links_still_open() {
    let o = PageOptions::from_address("?embed=1", "#s=v2.abc%2Bd");
    assert!(o.embed);
    assert_eq!(o.scenario.as_deref(), Some("v2.abc+d"));
    // The fragment wins over an older link in the query; other fragments are not links.
    let o = PageOptions::from_address("?s=v1.old", "#s=v2.new");
    assert_eq!(o.scenario.as_deref(), Some("v2.new"));
    let o = PageOptions::from_address("?s=v1.old", "#section-2");
    assert_eq!(o.scenario.as_deref(), Some("v1.old"));
    assert!(o.unknown.is_empty(), "a fragment is not an option");
    assert_eq!(PageOptions::from_address("", "").scenario, None);
}

#[wasm_bindgen_test]
fn the_link_leaves_the_address_and_the_other_options_stay() {
    assert_eq!(query_without_link("?s=v1.abc"), "");
    assert_eq!(
        query_without_link("?embed=1&s=v1.abc&preset=hashed&selftest=trap"),
        "?embed=1&selftest=trap"
    );
    assert_eq!(query_without_link(""), "");
}

#[wasm_bindgen_test]
fn content_json_is_read_as_plain_values_and_deep_nesting_is_harmless() {
    use shardlab_web::storage::{as_list, as_object, field, parse_json, string_field};
    let value = parse_json(r#"{"a": [1, 2.5, "x", true, null], "b": {"c": "d"}}"#).unwrap();
    let object = as_object(&value).expect("an object");
    assert!(as_list(&value).is_none());
    let a = as_list(&field(&object, "a")).expect("a list");
    assert_eq!(a.length(), 5);
    assert_eq!(a.get(1).as_f64(), Some(2.5));
    assert_eq!(a.get(2).as_string().as_deref(), Some("x"));
    assert!(as_object(&a.get(4)).is_none(), "null is not an object");
    assert!(
        as_object(&field(&object, "a")).is_none(),
        "a list is not an object"
    );
    let b = as_object(&field(&object, "b")).expect("an object");
    assert_eq!(string_field(&b, "c").as_deref(), Some("d"));
    assert!(field(&object, "missing").is_undefined());
    assert!(parse_json("{\"a\": ").is_err());
    // Nothing reads the values recursively: deep nesting is read, or refused by the
    // browser's parser, without overflowing the stack, and a content reader refuses it.
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(parse_json(&deep(60)).is_ok());
    let _ = parse_json(&deep(100_000));
    let err = shardlab_web::lessons::parse_lessons(&deep(100_000)).unwrap_err();
    assert!(err.starts_with("the lessons file is malformed"), "{err}");
}

/// While a workload plays fast, the shard columns take turns redrawing: over `every`
/// ticks each column shows the cluster as it is exactly once, and keeps what it drew on
/// the others. Paused, slow, or new, a column shows the cluster as it is.
#[wasm_bindgen_test]
fn shard_columns_take_turns_redrawing_while_playing_fast() {
    use shardlab_web::components::cluster_view::{stagger, staggered, MAX_STAGGER};
    assert_eq!(stagger(false, 30), 1);
    assert_eq!(stagger(true, 8), 1);
    assert!(stagger(true, 9) >= 2);
    assert_eq!(stagger(true, 30), MAX_STAGGER);
    let names: Vec<String> = (0..16).map(|i| format!("shard{i:02}")).collect();
    let mut drawn = Vec::new();
    let at = |docs: u64| {
        names
            .iter()
            .map(|n| shard(n, docs, Some(Vec::new())))
            .collect::<Vec<_>>()
    };
    // Tick 0 draws every column (none was drawn before).
    let first = staggered(&mut drawn, &at(0), |s| s.docs, 4, 0);
    assert!(first.iter().all(|(s, _)| s.docs == 0));
    let mut redrawn = vec![0; names.len()];
    for tick in 1..=4 {
        let columns = staggered(&mut drawn, &at(tick), |s| s.docs + 100, 4, tick);
        assert_eq!(columns.len(), names.len());
        let fresh: Vec<usize> = (0..names.len())
            .filter(|&i| columns[i].0.docs == tick)
            .collect();
        assert_eq!(fresh.len(), names.len() / 4, "tick {tick}: {fresh:?}");
        for &i in &fresh {
            redrawn[i] += 1;
            assert_eq!(columns[i].1, tick + 100);
        }
        // The others show what they drew last, not older and not newer.
        for (i, (s, _)) in columns.iter().enumerate() {
            assert!(s.docs <= tick);
            assert_eq!(s.name, names[i]);
        }
    }
    assert!(redrawn.iter().all(|&n| n == 1), "{redrawn:?}");
    // A column that appears mid-play is drawn at once; paused, every column is current.
    let mut more = at(9);
    more.push(shard("shard16", 9, Some(Vec::new())));
    let columns = staggered(&mut drawn, &more, |s| s.docs, 4, 5);
    assert_eq!(columns.last().map(|(s, _)| s.docs), Some(9));
    let columns = staggered(&mut drawn, &at(10), |s| s.docs, 1, 6);
    assert!(columns.iter().all(|(s, _)| s.docs == 10));
}

/// A comparison read from a link is checked before anything replays: it round-trips, and a
/// hostile one (too many documents to replay, an unknown workload, too few columns) is
/// refused with a reason.
#[wasm_bindgen_test]
fn shared_comparisons_round_trip_and_hostile_ones_are_refused() {
    use shardlab_web::compare::{Comparison, MAX_SHARED_DOCS};
    let text = "monotonic\n25\n900\n32768\n3\n5.0 {x: 1}\n8.0 {x: \"hashed\"}";
    let c = Comparison::decode(text).expect("a valid comparison");
    assert_eq!(c.encode(), text);
    assert_eq!(c.done(), 75);
    let huge = "uniform\n5000\n1000000\n32768\n2000\n5.0 {x: 1}\n5.0 {x: 1}";
    let err = Comparison::decode(huge).expect_err("refused");
    assert!(err.contains(&MAX_SHARED_DOCS.to_string()), "{err}");
    assert!(Comparison::decode("rm -rf\n25\n900\n32768\n3\n5.0 {x: 1}\n5.0 {x: 1}").is_err());
    assert!(Comparison::decode("monotonic\n25\n900\n32768\n3\n5.0 {x: 1}").is_err());
    assert!(Comparison::decode("monotonic\n25\n900\n32768\n3\n9.9 {x: 1}\n5.0 {x: 1}").is_err());
    assert!(Comparison::decode("").is_err());
}

#[wasm_bindgen_test]
fn the_key_bar_draws_a_mark_on_a_strip_not_laid_out_yet() {
    // A strip drawn before layout (a panel off screen) is one pixel wide: the latest
    // insert's mark, held inside the strip, must not ask for a range that is empty.
    use wasm_bindgen::JsCast;
    let canvas: web_sys::HtmlCanvasElement = gloo::utils::document()
        .create_element("canvas")
        .unwrap()
        .dyn_into()
        .unwrap();
    let mut f = frame(
        "t.h",
        vec![shard(
            "shard01",
            3,
            Some(vec![chunk("MinKey", "MaxKey", 3)]),
        )],
    );
    f.sharded = true;
    for width in [1.0, 3.0, 400.0] {
        for mark in [0.0, 0.5, 1.0] {
            shardlab_web::components::key_bar::draw(&canvas, &f, Some(mark), width);
        }
    }
    assert!(canvas.height() > 0, "the strip was drawn");
}
