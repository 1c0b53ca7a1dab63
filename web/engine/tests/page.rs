//! What the page's browser tests checked while the page ran the core itself, now that the
//! engine answers it: keys checked as MongoDB does, console input that needs more lines,
//! a batch stepped and stepped back, the picture's heat, key-space bar and bounds, and the
//! guided lessons' scenarios (`static/lessons.json`) against the engine's catalog. Each is
//! asked through the protocol, as the page asks it.
// A test fails loudly on a missing field; that is what unwrap and panics are for here.
#![allow(clippy::unwrap_used, clippy::panic)]

use shardlab_engine::Engine;
use shardlab_protocol::*;

/// Sends one call about `session` (none for a method about no session), crossing as JSON
/// as it does from the page.
fn send(e: &mut Engine, session: Option<&str>, call: Call) -> Result<Reply, EngineError> {
    let request = Request::new(1, session, call);
    let text = serde_json::to_string(&request).unwrap();
    match e
        .handle(serde_json::from_str(&text).unwrap())
        .response
        .outcome
    {
        Outcome::Result(reply) => Ok(reply),
        Outcome::Error(_, error) => Err(error),
    }
}

fn page_of(reply: Result<Reply, EngineError>) -> PageView {
    match reply {
        Ok(Reply::Act(view)) => *view,
        other => panic!("not a page view: {other:?}"),
    }
}

/// A playground opened: the handle the engine gave it, and its first view.
fn opened(reply: Result<Reply, EngineError>) -> (String, PageView) {
    match reply {
        Ok(Reply::Open(opened)) => {
            let view = opened.view.expect("a playground's view");
            assert_eq!(opened.position, view.position);
            (opened.session, *view)
        }
        other => panic!("not a playground opened: {other:?}"),
    }
}

fn act(e: &mut Engine, page: &str, act: Act) -> PageView {
    page_of(send(e, Some(page), Call::Act(act)))
}

fn command(e: &mut Engine, page: &str, source: &str) -> PageView {
    act(
        e,
        page,
        Act::Command {
            source: source.into(),
        },
    )
}

/// The page's default settings form: 3 shards of 5.0, 8 KiB chunks, `test.events` on
/// `{x: 1}`.
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

fn open(e: &mut Engine, setup: PageSetup) -> (String, PageView) {
    opened(send(e, None, Call::Open(Start::Setup(setup))))
}

/// The key editor's check: the pattern as mongosh prints it, or MongoDB's error.
fn check_key(e: &mut Engine, key: &str) -> Result<String, String> {
    match send(e, None, Call::CheckKey { key: key.into() }) {
        Ok(Reply::CheckKey {
            key: Some(key),
            error: None,
        }) => Ok(key),
        Ok(Reply::CheckKey {
            key: None,
            error: Some(error),
        }) => Err(error.message),
        other => panic!("not a key check: {other:?}"),
    }
}

#[test]
fn the_query_box_targets_a_filter_and_refuses_what_is_not_one_in_the_shells_words() {
    let mut e = Engine::new();
    let (page, _) = open(&mut e, setup());
    let target = |e: &mut Engine, filter: &str| {
        send(
            e,
            Some(&page),
            Call::Target {
                ns: "test.events".into(),
                filter: filter.into(),
            },
        )
    };
    match target(&mut e, "{x: 5}") {
        Ok(Reply::Target(t)) => assert_eq!(t.shards.len(), 1, "{t:?}"),
        other => panic!("not a targeting: {other:?}"),
    }
    // What the console prints for `db.events.find(42)`.
    let refused = target(&mut e, "42").expect_err("42 is no filter");
    assert_eq!(
        refused.message,
        "TypeError: filter must be an object, got 42"
    );
    let refused = target(&mut e, "'x'").expect_err("a string is no filter");
    assert_eq!(
        refused.message,
        "TypeError: filter must be an object, got 'x'"
    );
}

#[test]
fn the_key_editor_validates_as_mongodb_does() {
    let mut e = Engine::new();
    assert_eq!(check_key(&mut e, "{x: 1}"), Ok("{ x: 1 }".to_string()));
    assert_eq!(
        check_key(&mut e, "{a: 1, b: 'hashed'}"),
        Ok("{ a: 1, b: 'hashed' }".to_string())
    );
    assert_eq!(
        check_key(&mut e, "{a: -1}"),
        Err("MongoServerError[BadValue]: Shard key { a: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a".to_string())
    );
    assert!(check_key(&mut e, "{x: ")
        .unwrap_err()
        .starts_with("SyntaxError"));
    assert_eq!(
        check_key(&mut e, "5"),
        Err("MongoshInvalidInputError: [COMMON-10001] Argument at position 1 must be of type object, got number instead (Shard.shardCollection)".to_string())
    );
    // A unique hashed key is refused when the cluster is set up with it, in MongoDB's words.
    let (_, view) = open(
        &mut e,
        PageSetup {
            key: "{x: 'hashed'}".into(),
            unique: true,
            ..setup()
        },
    );
    assert!(view.failed && !view.frame.sharded);
    let error = view
        .lines
        .iter()
        .find(|l| l.kind == PageLineKind::Error)
        .unwrap();
    assert!(
        error.text.contains(
            "MongoServerError[InvalidOptions]: Hashed shard keys cannot be declared unique."
        ),
        "{}",
        error.text
    );
}

#[test]
fn the_console_waits_for_closing_brackets() {
    let mut e = Engine::new();
    let mut more = |source: &str| match send(
        &mut e,
        None,
        Call::NeedsMoreInput {
            source: source.into(),
        },
    ) {
        Ok(Reply::NeedsMoreInput { more }) => more,
        other => panic!("{other:?}"),
    };
    assert!(more("db.c.find({"));
    assert!(more("db.c.insertOne({s: '}'"));
    assert!(!more("db.c.find({s: '{'})"));
    assert!(!more("sh.status()"));
    // An unterminated string and a comment holding a bracket run, and show their error:
    // waiting for more would leave the person typing with no clue why nothing happens.
    assert!(!more("\"abc"));
    assert!(!more("sh.status() // :("));
    // And so they do: the string is refused in the shell's words, the status prints.
    let (page, _) = open(&mut e, setup());
    let string = command(&mut e, &page, "\"abc");
    assert!(string.failed);
    assert_eq!(
        string
            .lines
            .iter()
            .filter(|l| l.kind == PageLineKind::Error)
            .count(),
        1,
        "{:?}",
        string.lines
    );
    let status = command(&mut e, &page, "sh.status() // :(");
    assert!(!status.failed, "{:?}", status.lines);
    assert_eq!(status.lines[0].kind, PageLineKind::Input);
    assert_eq!(status.lines[0].text, "sh.status() // :(");
}

/// Documents counted in the chunks the frame draws.
fn drawn_docs(view: &PageView) -> u64 {
    view.frame
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter().flatten())
        .map(|c| c.docs)
        .sum()
}

#[test]
fn a_new_playground_has_three_shards_and_one_chunk_and_a_step_back_undoes_a_batch() {
    let mut e = Engine::new();
    let (page, fresh) = open(&mut e, setup());
    assert_eq!(fresh.frame.shards.len(), 3);
    let chunks: Vec<&ChunkFrame> = fresh
        .frame
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter().flatten())
        .collect();
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        (chunks[0].min.as_str(), chunks[0].max.as_str()),
        ("{ x: MinKey() }", "{ x: MaxKey() }")
    );
    // The step button at the end of the timeline runs one batch of the workload.
    let workload = WorkloadSpec {
        spec: "monotonic".into(),
        batch: 25,
        total: 1000,
        balance: true,
    };
    let stepped = act(
        &mut e,
        &page,
        Act::Batch {
            workload,
            echo: true,
        },
    );
    assert_eq!((stepped.count, drawn_docs(&stepped)), (25, 25));
    let back = act(&mut e, &page, Act::Back);
    assert_eq!(back.count, 0);
    assert_eq!(back.frame.docs, 0);
    assert_eq!(
        back.position,
        Position {
            position: 2,
            length: 3
        }
    );
}

/// `n` documents with `x` from `from`, padded so that a 1 KiB chunk holds a few.
fn insert_many(from: i32, n: i32) -> String {
    let docs: Vec<String> = (from..from + n)
        .map(|i| format!("{{x: {i}, p: '0123456789012345678901234567890123456789'}}"))
        .collect();
    format!("db.c.insertMany([{}])", docs.join(", "))
}

/// Settings with 1 KiB chunks and `test.c` sharded on `{x: 1}`.
fn small_chunks() -> PageSetup {
    PageSetup {
        chunk_size: 1024,
        ns: "test.c".into(),
        ..setup()
    }
}

#[test]
fn the_heat_marks_only_chunks_that_took_new_inserts() {
    let mut e = Engine::new();
    let (page, _) = open(&mut e, small_chunks());
    let first = command(&mut e, &page, &insert_many(0, 60));
    assert!(!first.failed, "{:?}", first.lines);
    assert!(first.frame.chunks > 1, "{:?}", first.frame);
    let second = command(&mut e, &page, &insert_many(60, 5));
    // Only the MaxKey chunk is hot (the first batch's heat fades meanwhile).
    let hot: Vec<&ChunkFrame> = second
        .frame
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter().flatten())
        .filter(|c| c.gained > 0)
        .collect();
    assert_eq!(hot.len(), 1, "only the MaxKey chunk took the new keys");
    assert!(hot[0].is_max);
    assert_eq!(hot[0].gained, 5);
    assert_eq!(second.frame.ticks.iter().filter(|t| t.fresh).count(), 5);
    // Once the heat is gone and nothing is new, no column is sent again. (A look asks for
    // a whole frame, so commands that change nothing are the calm here.)
    command(&mut e, &page, "db.c.countDocuments()");
    let calm = command(&mut e, &page, "db.c.countDocuments()");
    assert!(
        calm.frame.shards.iter().all(|s| s.chunks.is_none()),
        "{:?}",
        calm.frame.shards
    );
}

#[test]
fn the_key_space_segments_fill_the_strip() {
    let mut e = Engine::new();
    let tiles = |view: &PageView| {
        let bar = &view.frame.bar;
        let joined = bar.windows(2).all(|w| (w[0].hi - w[1].lo).abs() < 1e-9);
        let ends = bar.first().map(|b| b.lo) == Some(0.0)
            && bar.last().is_some_and(|b| (b.hi - 1.0).abs() < 1e-9);
        (bar.len(), joined && ends)
    };
    let (page, empty) = open(&mut e, small_chunks());
    assert_eq!(tiles(&empty), (1, true), "one empty chunk spans the strip");
    let full = command(&mut e, &page, &insert_many(0, 60));
    let (n, ok) = tiles(&full);
    assert!(
        n > 1 && ok,
        "{n} segments tile the strip: {:?}",
        full.frame.bar
    );
}

#[test]
fn a_new_key_draws_its_own_bounds_not_the_last_frames() {
    let mut e = Engine::new();
    let (page, _) = open(&mut e, small_chunks());
    let again = command(
        &mut e,
        &page,
        "db.c.drop(); sh.shardCollection(\"test.c\", {userId: 1})",
    );
    assert!(!again.failed, "{:?}", again.lines);
    let mins: Vec<&str> = again
        .frame
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter().flatten())
        .map(|c| c.min.as_str())
        .collect();
    assert_eq!(mins, ["{ userId: MinKey() }"]);
}

#[test]
fn long_bounds_are_shortened_between_their_quotes() {
    use shardlab_engine::view_model::short_bound;
    assert_eq!(
        short_bound("{ projectId: ObjectId('65a1f2c3d4e5f60718293a4b'), _id: MinKey() }"),
        "{ projectId: ObjectId('…93a4b'), _id: MinKey() }"
    );
    assert_eq!(
        short_bound("{ _id: Long('-3074457345618258602') }"),
        "{ _id: Long('-307445…8602') }"
    );
    assert_eq!(
        short_bound("{ x: 'Europe', y: 5 }"),
        "{ x: 'Europe', y: 5 }"
    );
    assert_eq!(short_bound("{ x: 'unclosed }"), "{ x: 'unclosed }");
}

/// The guided lessons' steps' scenarios, as the page reads them from `static/lessons.json`.
fn lesson_scenarios() -> Vec<(String, serde_json::Value)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/lessons.json");
    let text = std::fs::read_to_string(path).unwrap();
    let lessons: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    for lesson in lessons.as_array().unwrap() {
        for step in lesson["steps"].as_array().unwrap() {
            let title = format!("{} / {}", lesson["id"], step["title"]);
            out.push((title, step["scenario"].clone()));
        }
    }
    assert!(out.len() > 5, "the lessons file holds its steps");
    out
}

#[test]
fn every_lesson_a_step_loads_is_in_the_engines_catalog_and_opens() {
    let mut e = Engine::new();
    let Ok(Reply::Catalog(catalog)) = send(&mut e, None, Call::Catalog) else {
        panic!("no catalog");
    };
    let mut presets = 0;
    let mut handles = std::collections::BTreeSet::new();
    for (title, scenario) in lesson_scenarios() {
        let Some(id) = scenario.get("preset") else {
            continue;
        };
        let id = id.as_str().unwrap();
        presets += 1;
        assert!(
            catalog.lessons.iter().any(|l| l.id == id),
            "{title}: no lesson {id} in the catalog"
        );
        // Each under a session of its own, as the page opens each: a handle never given
        // before.
        let (session, view) = opened(send(
            &mut e,
            None,
            Call::Open(Start::Lesson { id: id.to_string() }),
        ));
        assert!(handles.insert(session), "{title}");
        assert_eq!(view.lesson.as_deref(), Some(id), "{title}");
    }
    assert!(presets > 0);
}

#[test]
fn every_key_scenario_is_a_valid_shard_key_of_a_known_version() {
    let mut e = Engine::new();
    let Ok(Reply::Catalog(catalog)) = send(&mut e, None, Call::Catalog) else {
        panic!("no catalog");
    };
    let mut keys = 0;
    let mut handles = std::collections::BTreeSet::new();
    for (title, scenario) in lesson_scenarios() {
        if scenario.get("preset").is_some() {
            continue;
        }
        let key = scenario["key"].as_str().unwrap();
        keys += 1;
        assert!(check_key(&mut e, key).is_ok(), "{title}: {key}");
        let version = scenario["version"].as_str().unwrap();
        assert!(
            catalog.versions.iter().any(|v| v.label == version),
            "{title}: no version {version}"
        );
        // The page sets the playground up with it: it opens, sharded.
        let setup = PageSetup {
            key: key.to_string(),
            version: version.to_string(),
            chunk_size: scenario["chunkKib"].as_u64().unwrap() * 1024,
            ..setup()
        };
        let (session, view) = open(&mut e, setup);
        assert!(handles.insert(session), "{title}");
        assert!(
            !view.failed && view.frame.sharded,
            "{title}: {:?}",
            view.lines
        );
    }
    assert!(keys > 0);
}
