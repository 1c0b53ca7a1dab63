//! Browser tests of how the page starts and what it keeps: the replay budget, links that
//! keep the user's session, sessions set aside, and the start after a crash. They call the
//! start-up logic with page options directly, against the browser's real storage.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::recovery::{self, CRASH_KEY, RUNNING_KEY};
use shardlab_web::share::{
    query_without_link, saved_form, PageOptions, FAILED_KEY, LINKED_KEY, LOADING_KEY, PREVIOUS_KEY,
    STORAGE_KEY,
};
use shardlab_web::startup::boot;
use shardlab_web::state::{Action, Budget, Offer, Playground};
use shardlab_web::storage;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

/// Empties localStorage and sessionStorage: each test starts from nothing saved.
fn clean_storage() {
    let window = gloo::utils::window();
    for storage in [window.local_storage(), window.session_storage()] {
        if let Some(storage) = storage.ok().flatten() {
            storage.clear().unwrap();
        }
    }
}

/// A playground with some work in it: a fresh one plus `steps` workload batches.
fn work(steps: usize) -> Rc<Playground> {
    let mut state = Rc::new(Playground::default());
    for _ in 0..steps {
        state = state.reduce(Action::Step);
    }
    state
}

/// Documents in the collection the playground shows.
fn docs(state: &Playground) -> u64 {
    state.view.docs
}

/// Saves a playground as the page's saving hook does.
fn save(state: &Playground) -> String {
    let text = saved_form(state);
    storage::set_string(STORAGE_KEY, &text);
    text
}

/// Page options with a shared link.
fn link(s: &str) -> PageOptions {
    PageOptions {
        scenario: Some(s.to_string()),
        ..PageOptions::default()
    }
}

#[wasm_bindgen_test]
fn a_replay_stops_at_its_budget_and_keeps_the_steps_before() {
    let commands: Vec<String> = (0..8)
        .map(|i| format!("db.c.insertOne({{x: {i}}})"))
        .collect();
    let config = shardlab::engine::ClusterConfig::default();
    let few = Budget {
        commands: 5,
        millis: 1e9,
    };
    let (state, cut) = Playground::replay(config.clone(), &commands, 8, &few, &[]);
    let cut = cut.unwrap();
    assert_eq!((cut.replayed, cut.total, cut.timed_out), (5, 8, false));
    assert_eq!(state.timeline.borrow().len(), 5);
    assert_eq!(
        state.stats.len(),
        5,
        "the charts' history covers the kept steps"
    );
    assert!(cut.describe("Your saved session", &few).starts_with(
        "Your saved session stopped replaying at step 6 of 8: it has more than 5 steps."
    ));
    let none = Budget {
        commands: 100,
        millis: -1.0,
    };
    let (state, cut) = Playground::replay(config, &commands, 8, &none, &[]);
    assert!(cut.unwrap().timed_out);
    assert_eq!(state.timeline.borrow().len(), 0);
}

#[wasm_bindgen_test]
fn a_replayed_scenario_shows_the_collection_it_touched_last_or_the_one_it_names() {
    let commands = vec![
        "sim.chunkSize(1024)".to_string(),
        "sh.shardCollection(\"test.zz\", {k: 'hashed'})".to_string(),
        "sh.shardCollection(\"test.aa\", {x: 1})".to_string(),
    ];
    let config = shardlab::engine::ClusterConfig::default();
    let (state, cut) = Playground::replay(config.clone(), &commands, 3, &Budget::REPLAY, &[]);
    assert!(cut.is_none());
    assert_eq!(
        state.settings.ns, "test.aa",
        "the last command touched test.aa"
    );
    assert_eq!(state.settings.key, "{ x: 1 }");
    assert_eq!(state.settings.chunk_size, 1024);
    // The page state a link carries names the collection that was shown.
    let page = vec![("view".to_string(), "test.zz".to_string())];
    let (state, _) = Playground::replay(config.clone(), &commands, 3, &Budget::REPLAY, &page);
    assert_eq!(state.settings.ns, "test.zz");
    assert_eq!(state.settings.key, "{ k: 'hashed' }");
    // A view of a collection that does not exist falls back to what the commands touched,
    // and an unknown setting is named in the notice.
    let page = vec![
        ("view".to_string(), "test.nope".to_string()),
        ("colour".to_string(), "red".to_string()),
    ];
    let (state, _) = Playground::replay(config, &commands, 3, &Budget::REPLAY, &page);
    assert_eq!(state.settings.ns, "test.aa");
    let notice = state.notice.expect("a notice names what was left out");
    assert!(
        notice.text.contains("unknown setting 'colour'"),
        "{}",
        notice.text
    );
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
fn a_damaged_link_leaves_the_saved_session_untouched_and_offers_it_back() {
    clean_storage();
    let saved = save(&work(2));
    let start = boot(&link("v1.!!not-a-scenario"));
    let notice = start.state.notice.clone().unwrap();
    assert!(
        notice.text.contains("could not be opened"),
        "{}",
        notice.text
    );
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    assert!(
        start.hold,
        "the fresh playground is not saved over the session"
    );
    assert_eq!(storage::get_string(STORAGE_KEY), Some(saved.clone()));
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(saved));
    let back = shardlab_web::startup::return_to_session().unwrap();
    assert_eq!(docs(&back), 50);
    assert_eq!(storage::get(PREVIOUS_KEY), None);
}

#[wasm_bindgen_test]
fn links_keep_the_users_session_and_a_second_link_does_not_overwrite_it() {
    clean_storage();
    let mine = save(&work(3));
    let first = shardlab_web::share::share_query(&work(1));
    let start = boot(&link(first.trim_start_matches("s=")));
    assert_eq!(
        start.state.notice.clone().unwrap().offer,
        Some(Offer::ReturnToSession)
    );
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(mine.clone()));
    // The page saves the link's playground; it is untouched when the next link opens.
    save(&start.state);
    assert_eq!(
        storage::get_string(LINKED_KEY),
        storage::get_string(STORAGE_KEY)
    );
    let second = shardlab_web::share::share_query(&work(2));
    let start = boot(&link(second.trim_start_matches("s=")));
    assert_eq!(
        start.state.notice.clone().unwrap().offer,
        Some(Offer::ReturnToSession)
    );
    assert_eq!(
        storage::get_string(PREVIOUS_KEY),
        Some(mine),
        "still the user's own"
    );
    let back = shardlab_web::startup::return_to_session().unwrap();
    assert_eq!(docs(&back), 75);
    // Opening the link of the very session saved offers nothing to return to.
    clean_storage();
    let same = work(1);
    save(&same);
    let start = boot(&link(
        shardlab_web::share::share_query(&same).trim_start_matches("s="),
    ));
    assert_eq!(start.state.notice, None);
    assert_eq!(storage::get(PREVIOUS_KEY), None);
}

#[wasm_bindgen_test]
fn a_session_whose_load_never_finished_is_set_aside_not_replayed() {
    clean_storage();
    let saved = save(&work(2));
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(&recovery::tab_id()));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now()));
    storage::set_json(LOADING_KEY, &marker);
    let start = boot(&PageOptions::default());
    assert_eq!(docs(&start.state), 0, "a clean playground");
    assert_eq!(storage::get_string(FAILED_KEY), Some(saved));
    assert_eq!(storage::get(STORAGE_KEY), None);
    assert_eq!(storage::get(LOADING_KEY), None);
    let notice = start.state.notice.unwrap();
    assert!(
        matches!(notice.offer, Some(Offer::Download(ref href)) if href.starts_with("data:application/json"))
    );
    // Another tab's load in progress is left alone: this tab restores the session.
    clean_storage();
    save(&work(2));
    storage::set_field(&marker, "tab", &JsValue::from_str("another tab"));
    storage::set_json(LOADING_KEY, &marker);
    let start = boot(&PageOptions::default());
    assert_eq!(docs(&start.state), 50);
    assert_eq!(storage::get(FAILED_KEY), None);
}

#[wasm_bindgen_test]
fn a_saved_session_that_cannot_be_read_is_set_aside() {
    clean_storage();
    storage::set_string(STORAGE_KEY, "{\"format\": \"nonsense\"");
    let start = boot(&PageOptions::default());
    let notice = start.state.notice.unwrap();
    assert!(
        notice.text.contains("could not be restored"),
        "{}",
        notice.text
    );
    assert_eq!(
        storage::get_string(FAILED_KEY).as_deref(),
        Some("{\"format\": \"nonsense\"")
    );
}

#[wasm_bindgen_test]
fn after_a_crash_the_page_restores_the_saved_session_and_names_the_command() {
    clean_storage();
    save(&work(2));
    recovery::begin("running", Some("db.c.insertOne(x)"));
    let running = storage::session_get(RUNNING_KEY).unwrap();
    // What index.html's script stores when it sees the trap.
    let record = js_sys::Object::new();
    storage::set_field(&record, "what", &JsValue::from_str("a stack overflow"));
    storage::set_field(&record, "running", &JsValue::from_str(&running));
    storage::session_set(CRASH_KEY, &storage::to_json_text(&record).unwrap());
    // A link in the address is not reopened: it may be what died.
    let start = boot(&link("v1.!!"));
    let banner = start.banner.unwrap();
    assert_eq!(banner.what, "a stack overflow");
    assert_eq!(banner.command.as_deref(), Some("db.c.insertOne(x)"));
    assert!(start.recovering);
    assert_eq!(docs(&start.state), 50);
    assert_eq!(start.state.notice, None);
    recovery::started();
    assert_eq!(recovery::crash_record(), None);
    clean_storage();
}

/// Fills localStorage until it refuses more, as a store full of other data would be.
fn fill_storage() {
    let store = gloo::utils::window().local_storage().unwrap().unwrap();
    let mut piece = "x".repeat(1 << 20);
    let mut n = 0;
    while piece.len() >= 1024 {
        if store.set_item(&format!("filler.{n}"), &piece).is_ok() {
            n += 1;
        } else {
            piece.truncate(piece.len() / 2);
        }
    }
}

#[wasm_bindgen_test]
fn with_a_full_store_a_link_does_not_overwrite_the_session_it_could_not_copy() {
    clean_storage();
    let mine = save(&work(3));
    fill_storage();
    let other = shardlab_web::share::share_query(&work(1));
    let start = boot(&link(other.trim_start_matches("s=")));
    assert!(
        start.hold,
        "the link's playground is not saved over the session"
    );
    let notice = start.state.notice.unwrap();
    assert!(notice.text.contains("too full"), "{}", notice.text);
    assert_eq!(notice.offer, None);
    assert_eq!(storage::get_string(STORAGE_KEY), Some(mine.clone()));
    // Nor is a session that cannot be copied aside removed.
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(&recovery::tab_id()));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now()));
    storage::set_json(LOADING_KEY, &marker);
    if storage::get(LOADING_KEY).is_some() {
        boot(&PageOptions::default());
        assert_eq!(storage::get_string(STORAGE_KEY), Some(mine));
    }
    clean_storage();
}
