//! Browser tests of the playground's logic and components, run in headless Chromium by
//! `wasm-bindgen-test`. They mount the real app, act through the DOM as a person would,
//! and flush Yew's scheduler instead of sleeping.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab::engine::{Cluster, ClusterConfig};
use shardlab::shell::needs_more_input;
use shardlab_engine::view_model::{cluster_view, FrameMemory};
use shardlab_web::components::controls::validate_key;
use shardlab_web::components::App;
use shardlab_web::share::{playground_from_link, share_query, PageOptions};
use shardlab_web::state::{Action, Playground};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement};
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

async fn mount() -> Element {
    // Each test starts from a clean slate: the app restores a saved session otherwise, or
    // recovers from a crash recorded in sessionStorage.
    let window = gloo::utils::window();
    for storage in [window.local_storage(), window.session_storage()] {
        if let Some(storage) = storage.ok().flatten() {
            storage.clear().unwrap();
        }
    }
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

#[wasm_bindgen_test]
fn the_key_editor_validates_as_mongodb_does() {
    assert_eq!(validate_key("{x: 1}", false), Ok("{ x: 1 }".to_string()));
    assert_eq!(
        validate_key("{a: 1, b: 'hashed'}", false),
        Ok("{ a: 1, b: 'hashed' }".to_string())
    );
    assert_eq!(
        validate_key("{a: -1}", false),
        Err("MongoServerError[BadValue]: Shard key { a: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a".to_string())
    );
    assert!(validate_key("{x: 'hashed'}", true)
        .unwrap_err()
        .starts_with(
            "MongoServerError[InvalidOptions]: Hashed shard keys cannot be declared unique."
        ));
    assert!(validate_key("{x: ", false)
        .unwrap_err()
        .starts_with("SyntaxError"));
    assert_eq!(
        validate_key("5", false),
        Err("The shard key must be an object such as {x: 1}".to_string())
    );
}

#[wasm_bindgen_test]
fn the_console_waits_for_closing_brackets() {
    assert!(needs_more_input("db.c.find({"));
    assert!(needs_more_input("db.c.insertOne({s: '}'"));
    assert!(!needs_more_input("db.c.find({s: '{'})"));
    assert!(!needs_more_input("sh.status()"));
    // An unterminated string and a comment holding a bracket run, and show their error:
    // waiting for more would leave the person typing with no clue why nothing happens.
    assert!(!needs_more_input("\"abc"));
    assert!(!needs_more_input("sh.status() // :("));
}

/// Types `text` into the console and presses Enter, as a person would.
async fn enter_in_console(root: &Element, text: &str) {
    let area: web_sys::HtmlTextAreaElement = root
        .query_selector("[data-testid=console-input]")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    area.set_value(text);
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    area.dispatch_event(&event).unwrap();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn an_unterminated_string_runs_on_enter_and_shows_its_error() {
    let root = mount().await;
    let errors = |root: &Element| all(root, "[data-testid=console-output] .err").len();
    enter_in_console(&root, "\"abc").await;
    assert_eq!(
        errors(&root),
        1,
        "the string is refused in the shell's words"
    );
    enter_in_console(&root, "sh.status() // :(").await;
    let output = root
        .query_selector("[data-testid=console-output]")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(
        output.contains("test> sh.status() // :("),
        "it ran: {output}"
    );
}

/// A cluster with 1 KiB chunks and `test.c` sharded on `{x: 1}`, still empty.
fn sharded_on_x() -> Cluster {
    let mut cluster = Cluster::new(ClusterConfig {
        chunk_size: Some(1024),
        ..ClusterConfig::default()
    });
    cluster
        .shard_collection("test.c", &bson::doc! {"x": 1}, false, None)
        .unwrap();
    cluster
}

#[wasm_bindgen_test]
fn the_view_marks_heat_only_on_chunks_that_took_new_inserts() {
    let mut cluster = sharded_on_x();
    let docs = |r: std::ops::Range<i32>| {
        r.map(|i| bson::doc! {"x": i, "p": "0123456789012345678901234567890123456789"})
            .collect::<Vec<_>>()
    };
    cluster.insert_many("test.c", docs(0..60)).unwrap();
    let first = cluster_view(&cluster, "test.c", &FrameMemory::default());
    assert!(first.chunks > 1);
    cluster.insert_many("test.c", docs(60..65)).unwrap();
    let second = cluster_view(&cluster, "test.c", &first.memory());
    let hot: Vec<_> = second
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter())
        .filter(|c| c.gained > 0)
        .collect();
    assert_eq!(hot.len(), 1, "only the MaxKey chunk took the new keys");
    assert!(hot[0].is_max);
    assert_eq!(hot[0].gained, 5);
    assert_eq!(second.ticks.iter().filter(|(_, new)| *new).count(), 5);
    // Once the heat is gone and nothing is new, every shard keeps its chunk list, so the
    // page compares each column with one pointer test.
    let third = cluster_view(&cluster, "test.c", &second.memory());
    let fourth = cluster_view(&cluster, "test.c", &third.memory());
    assert!(third
        .shards
        .iter()
        .zip(&fourth.shards)
        .all(|(a, b)| std::rc::Rc::ptr_eq(&a.chunks, &b.chunks)));
    let busy = second
        .shards
        .iter()
        .position(|s| s.chunks.iter().any(|c| c.gained > 0))
        .unwrap();
    assert!(!std::rc::Rc::ptr_eq(
        &first.shards[busy].chunks,
        &second.shards[busy].chunks
    ));
}

/// The key-space strip is drawn from the segments' own positions, so they must tile
/// [0, 1] exactly: with no documents yet as well as with some.
#[wasm_bindgen_test]
fn the_key_space_segments_fill_the_strip() {
    let mut cluster = sharded_on_x();
    let tiles = |cluster: &Cluster| {
        let view = cluster_view(cluster, "test.c", &FrameMemory::default());
        let bar = &view.bar;
        let joined = bar.windows(2).all(|w| (w[0].hi - w[1].lo).abs() < 1e-9);
        let ends = bar.first().map(|b| b.lo) == Some(0.0)
            && bar.last().is_some_and(|b| (b.hi - 1.0).abs() < 1e-9);
        (bar.len(), joined && ends)
    };
    assert_eq!(
        tiles(&cluster),
        (1, true),
        "one empty chunk spans the strip"
    );
    let docs: Vec<_> = (0..60)
        .map(|i| bson::doc! {"x": i, "p": "0123456789012345678901234567890123456789"})
        .collect();
    cluster.insert_many("test.c", &docs).unwrap();
    let (n, ok) = tiles(&cluster);
    assert!(n > 1 && ok, "{n} segments tile the strip");
}

#[wasm_bindgen_test]
fn page_options_are_read_from_the_address() {
    let o = PageOptions::parse("?embed=1&autoplay=1&hide=console,insights&preset=hashed");
    assert!(o.embed && o.autoplay);
    assert!(o.hides("console") && o.hides("insights") && !o.hides("timeline"));
    assert_eq!(o.preset.as_deref(), Some("hashed"));
    assert_eq!(o.selftest, None);
    assert_eq!(
        PageOptions::parse("?selftest=trap").selftest.as_deref(),
        Some("trap")
    );
    assert_eq!(
        PageOptions::parse("?s=v1.abc%2Bd").scenario.as_deref(),
        Some("v1.abc+d")
    );
}

#[wasm_bindgen_test]
fn a_share_link_round_trips_the_scenario() {
    let state = Rc::new(Playground::from_preset(
        shardlab::workload::presets::preset("monotonic").unwrap(),
    ));
    let state = state.reduce(Action::Step).reduce(Action::Step);
    let query = share_query(&state);
    let restored = playground_from_link(query.trim_start_matches("s="))
        .unwrap()
        .state;
    let a = state.timeline.borrow();
    let b = restored.timeline.borrow();
    assert_eq!(a.steps(), b.steps());
    assert_eq!(a.position(), b.position());
    let table = |p: &Playground| -> Vec<(String, String, String, u64, bool)> {
        p.view
            .shards
            .iter()
            .flat_map(|s| {
                s.chunks.iter().map(|c| {
                    (
                        s.name.clone(),
                        c.min.to_string(),
                        c.max.to_string(),
                        c.docs,
                        c.jumbo,
                    )
                })
            })
            .collect()
    };
    assert_eq!(table(&state), table(&restored));
    assert_eq!(state.view.docs, restored.view.docs);
    assert_eq!(state.view.chunks, restored.view.chunks);
    assert!(playground_from_link("v1.%%%").is_err());
}

#[wasm_bindgen_test]
async fn a_new_playground_has_three_shards_and_one_chunk() {
    let root = mount().await;
    assert_eq!(all(&root, "[data-testid=shard]").len(), 3);
    let chunks = all(&root, "[data-testid=chunk]");
    assert_eq!(chunks.len(), 1);
    assert_eq!(
        chunks[0].get_attribute("data-min").as_deref(),
        Some("{ x: MinKey() }")
    );
    assert_eq!(
        chunks[0].get_attribute("data-max").as_deref(),
        Some("{ x: MaxKey() }")
    );
}

#[wasm_bindgen_test]
async fn stepping_runs_one_batch_and_back_undoes_it() {
    let root = mount().await;
    let step: HtmlElement = root
        .query_selector("[data-testid=step]")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    step.click();
    yew::scheduler::flush().await;
    let count = |root: &Element| -> u64 {
        all(root, "[data-testid=chunk]")
            .iter()
            .map(|c| {
                c.get_attribute("data-count")
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            })
            .sum()
    };
    assert_eq!(count(&root), 25);
    let back: HtmlElement = root
        .query_selector("[data-testid=step-back]")
        .unwrap()
        .unwrap()
        .dyn_into()
        .unwrap();
    back.click();
    yew::scheduler::flush().await;
    assert_eq!(count(&root), 0);
}

/// A shard as drawn, with `docs` documents and no chunks.
fn shard_view(name: &str, docs: u64) -> shardlab_engine::view_model::ShardView {
    shardlab_engine::view_model::ShardView {
        name: name.to_string(),
        index: 0,
        draining: false,
        zones: Vec::new(),
        chunks: Rc::from([]),
        docs,
        bytes: 0,
    }
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
    // Tick 0 draws every column (none was drawn before).
    let at = |docs: u64| {
        names
            .iter()
            .map(|n| shard_view(n, docs))
            .collect::<Vec<_>>()
    };
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
    more.push(shard_view("shard16", 9));
    let columns = staggered(&mut drawn, &more, |s| s.docs, 4, 5);
    assert_eq!(columns.last().map(|(s, _)| s.docs), Some(9));
    let columns = staggered(&mut drawn, &at(10), |s| s.docs, 1, 6);
    assert!(columns.iter().all(|(s, _)| s.docs == 10));
}

/// Playing fast, every second tick is drawn (the other waits for it); playing slowly,
/// every tick is. A calm panel out of sight is not redrawn until it comes back, while the
/// other keeps its pace; a pause draws whatever is pending.
#[wasm_bindgen_test]
fn fast_ticks_are_drawn_in_pairs_and_hidden_panels_wait() {
    use shardlab_web::state::{Calm, DRAW_EVERY_TICK_UP_TO};
    let mut s = Rc::new(Playground::default());
    s = s.reduce(Action::SetSpeed(DRAW_EVERY_TICK_UP_TO));
    s = s.reduce(Action::Play);
    let rev = s.rev;
    s = s.reduce(Action::Tick);
    assert!(!s.stale && s.rev > rev, "a slow tick is drawn at once");
    s = s.reduce(Action::SetSpeed(30));
    s = s.reduce(Action::Hidden(Calm::Timeline, true));
    let start = s.calm_rev(Calm::Timeline);
    let (rev, before) = (s.rev, s.view.docs);
    s = s.reduce(Action::Tick);
    assert!(s.stale, "a fast tick waits for the next");
    assert_eq!(
        (s.rev, s.view.docs),
        (rev, before),
        "nothing redraws in between"
    );
    s = s.reduce(Action::Tick);
    assert!(!s.stale);
    assert!(
        s.rev > rev && s.view.docs == s.count(),
        "the second tick draws both"
    );
    for _ in 0..20 {
        s = s.reduce(Action::Tick);
    }
    assert!(s.playing);
    assert_eq!(
        s.calm_rev(Calm::Timeline),
        start,
        "the hidden timeline waits"
    );
    assert!(
        s.calm_rev(Calm::Insights) > start,
        "the insights keep their pace"
    );
    s = s.reduce(Action::Hidden(Calm::Timeline, false));
    assert_eq!(
        s.calm_rev(Calm::Timeline),
        s.rev,
        "shown again, it catches up"
    );
    if !s.stale {
        s = s.reduce(Action::Tick);
    }
    assert!(s.stale);
    s = s.reduce(Action::Pause);
    assert!(!s.stale, "a pause draws the pending tick");
    assert_eq!(s.view.docs, s.count());
}

/// Long values in chunk bounds are shortened for the narrow blocks, never mid-structure:
/// ObjectIds keep their last five digits, other long quoted values their ends.
#[wasm_bindgen_test]
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

/// A comparison read from a link is checked before anything replays: it round-trips, and a
/// hostile one (too many documents to replay, an unknown workload, too few columns) is
/// refused with a reason.
#[wasm_bindgen_test]
fn shared_comparisons_round_trip_and_hostile_ones_are_refused() {
    use shardlab_web::comparison::{Comparison, MAX_SHARED_DOCS};
    let text = "monotonic\n25\n900\n32768\n3\n5.0 {x: 1}\n8.0 {x: \"hashed\"}";
    let c = Comparison::decode(text).expect("a valid comparison");
    assert_eq!(c.encode(), text);
    assert_eq!(c.done(), 75);
    let huge = "uniform\n5000\n1000000\n32768\n2000\n5.0 {x: 1}\n5.0 {x: 1}";
    let err = Comparison::decode(huge).expect_err("refused");
    assert!(err.contains(&MAX_SHARED_DOCS.to_string()), "{err}");
    assert!(Comparison::decode("rm -rf\n25\n900\n32768\n3\n5.0 {x: 1}\n5.0 {x: 1}").is_err());
    assert!(Comparison::decode("monotonic\n25\n900\n32768\n3\n5.0 {x: 1}").is_err());
    assert!(Comparison::decode("").is_err());
}

/// A frame of another collection or key remembers nothing of the last: after the
/// collection is sharded again on `{userId: 1}`, its one chunk shows `userId` bounds,
/// although `{x: MinKey}` and `{userId: MinKey}` hold the same values.
#[wasm_bindgen_test]
fn a_new_key_draws_its_own_bounds_not_the_last_frames() {
    let mut session = shardlab::Session::default();
    session.run("sh.shardCollection(\"test.c\", {x: 1})");
    let before = cluster_view(&session.cluster, "test.c", &FrameMemory::default());
    session.run("db.c.drop(); sh.shardCollection(\"test.c\", {userId: 1})");
    let after = cluster_view(&session.cluster, "test.c", &before.memory());
    let mins: Vec<String> = after
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter())
        .map(|c| c.min.to_string())
        .collect();
    assert_eq!(mins, vec!["{ userId: MinKey() }".to_string()]);
}
