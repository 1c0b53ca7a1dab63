//! Browser tests of how the page starts and what it keeps: links that keep the user's
//! session, sessions set aside, a full store, and the start after a crash. They call the
//! start-up decisions with page options directly, against the browser's real storage, and
//! check the [`Opening`] each decision gives the engine. (Whether the engine can read a
//! scenario is the engine's to say; here its answer is played by calling
//! `startup::unreadable` or `startup::conclude` as the page's driver does.)
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_protocol::Start;
use shardlab_web::recovery::{self, CRASH_KEY, RUNNING_KEY};
use shardlab_web::share::{
    PageOptions, FAILED_KEY, LINKED_KEY, LOADING_KEY, PREVIOUS_KEY, STEPS_KEY, STORAGE_KEY,
};
use shardlab_web::startup::{
    boot, conclude, refused, return_to_session, unreadable, Ending, Kept, Opening, Source,
};
use shardlab_web::state::{default_setup, Offer};
use shardlab_web::storage;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

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

/// A saved session's text as the engine writes it (its JSON form); `name` tells them apart.
/// The page never reads it: it only carries it to the engine.
fn session_text(name: &str) -> String {
    format!(
        "{{\"format\": \"shardlab-scenario\", \"name\": \"{name}\", \"pad\": \"{}\"}}",
        "p".repeat(4096)
    )
}

/// Saves a session of `steps` steps as the page's saving does (`Driver::store_link`).
fn save(name: &str, steps: u64) -> String {
    let text = session_text(name);
    storage::set_string(STORAGE_KEY, &text);
    // As a session from the settings form (two setup steps) records its own steps.
    storage::set_string(STEPS_KEY, &steps.saturating_sub(2).to_string());
    text
}

/// Page options with a shared link.
fn link(s: &str) -> PageOptions {
    PageOptions {
        scenario: Some(s.to_string()),
        ..PageOptions::default()
    }
}

/// The source of a replay opening, checking that it replays `text`.
fn replays(opening: &Opening, text: &str) -> Source {
    assert_eq!(
        opening.start,
        Start::Replay {
            text: text.to_string()
        }
    );
    opening.source.clone().expect("a replay has a source")
}

/// Whether `opening` is a fresh playground of the default settings.
fn is_fresh(opening: &Opening) -> bool {
    opening.start == Start::Setup(default_setup()) && opening.source.is_none()
}

/// Sets the marker a restore of the saved session leaves while it runs, as `tab`'s, `age`
/// milliseconds ago.
fn set_marker(tab: &str, age: f64) {
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(tab));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now() - age));
    storage::set_json(LOADING_KEY, &marker);
}

fn is_download(offer: &Option<Offer>, text: &str) -> bool {
    match offer {
        Some(Offer::Download(href)) => {
            let decoded: String = js_sys::decode_uri_component(href.split_once(',').unwrap().1)
                .unwrap()
                .into();
            href.starts_with("data:application/json") && decoded == text
        }
        _ => false,
    }
}

#[wasm_bindgen_test]
fn a_damaged_link_leaves_the_saved_session_kept_and_offers_it_back() {
    clean_storage();
    let saved = save("mine", 5);
    let start = boot(&link("v1.!!not-a-scenario"));
    assert!(!start.recovering && start.banner.is_none());
    let source = replays(&start.opening, "v1.!!not-a-scenario");
    assert_eq!(
        source,
        Source::Link {
            kept: Kept::Previous,
            embed: false
        }
    );
    assert_eq!(start.opening.what(), "Replaying the shared scenario");
    // The crash record names what runs, in case the link kills the page.
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("opening the shared link"), "{running}");
    assert_eq!(storage::get_string(STORAGE_KEY), Some(saved.clone()));
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(saved.clone()));
    // The engine cannot read it: a fresh playground, and the way back.
    let next = unreadable(&source, "not a scenario");
    assert!(is_fresh(&next));
    let notice = next.notice.unwrap();
    assert!(
        notice
            .text
            .contains("This link could not be opened (not a scenario)."),
        "{}",
        notice.text
    );
    assert!(notice.text.contains("your saved session is untouched"));
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    assert_eq!(storage::get_string(STORAGE_KEY), Some(saved.clone()));
    // "Return to your session" replays it, and once it is back nothing is kept aside.
    let back = return_to_session().unwrap();
    let source = replays(&back, &saved);
    assert_eq!(back.what(), "Returning to your session");
    storage::set_string(LINKED_KEY, "the link as opened");
    assert_eq!(conclude(&source, &Ending::Over, &saved), None);
    assert_eq!(storage::get(PREVIOUS_KEY), None);
    assert_eq!(storage::get(LINKED_KEY), None);
    assert_eq!(storage::get(FAILED_KEY), None);
    assert!(return_to_session()
        .unwrap_err()
        .contains("no longer stored"));
    clean_storage();
}

#[wasm_bindgen_test]
fn links_keep_the_users_session_and_a_second_link_does_not_overwrite_it() {
    clean_storage();
    let mine = save("mine", 5);
    let start = boot(&link("v1.first"));
    assert!(!start.hold);
    let source = replays(&start.opening, "v1.first");
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(mine.clone()));
    let notice = conclude(&source, &Ending::Over, "{}").unwrap();
    assert_eq!(
        notice.text,
        "You opened a shared scenario. Your own session is kept."
    );
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    // The page saves the link's playground, and records it as opened: it is untouched
    // when the next link opens, so the user's own session stays kept.
    let first = save("first link", 4);
    storage::set_string(LINKED_KEY, &first);
    let start = boot(&link("v1.second"));
    assert_eq!(
        replays(&start.opening, "v1.second"),
        Source::Link {
            kept: Kept::Previous,
            embed: false
        }
    );
    assert_eq!(
        storage::get_string(PREVIOUS_KEY),
        Some(mine),
        "still the user's own"
    );
    // Once the user changed what the link opened, it is theirs, and the next link keeps it.
    let changed = save("changed", 6);
    boot(&link("v1.third"));
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(changed));
    // A fresh playground (its setup's two steps) is nothing to return to.
    clean_storage();
    save("fresh", 2);
    let start = boot(&link("v1.other"));
    let source = replays(&start.opening, "v1.other");
    assert_eq!(
        source,
        Source::Link {
            kept: Kept::Nothing,
            embed: false
        }
    );
    assert_eq!(conclude(&source, &Ending::Over, "{}"), None);
    assert_eq!(storage::get(PREVIOUS_KEY), None);
    clean_storage();
}

#[wasm_bindgen_test]
fn embedded_links_and_lessons_neither_keep_nor_restore_the_session() {
    clean_storage();
    let mine = save("mine", 5);
    let start = boot(&PageOptions {
        embed: true,
        ..link("v1.embedded")
    });
    assert_eq!(
        replays(&start.opening, "v1.embedded"),
        Source::Link {
            kept: Kept::Nothing,
            embed: true
        }
    );
    assert_eq!(storage::get(PREVIOUS_KEY), None);
    let plain = boot(&PageOptions {
        embed: true,
        ..PageOptions::default()
    });
    assert!(is_fresh(&plain.opening), "an embed restores nothing");
    assert_eq!(storage::get_string(STORAGE_KEY), Some(mine.clone()));
    assert_eq!(storage::get(LOADING_KEY), None);
    // A lesson in the address keeps the session and is recorded once open.
    let start = boot(&PageOptions {
        preset: Some("hashed".into()),
        ..PageOptions::default()
    });
    assert_eq!(
        start.opening.start,
        Start::Lesson {
            id: "hashed".into()
        }
    );
    assert!(start.opening.linked);
    let notice = start.opening.notice.unwrap();
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    assert!(
        notice.text.starts_with("You opened the lesson '{lesson}'."),
        "{}",
        notice.text
    );
    assert_eq!(storage::get_string(PREVIOUS_KEY), Some(mine));
    // A lesson the engine does not know gives a fresh playground and the way back.
    let next = refused("There is no lesson called 'nope'.", false);
    assert!(is_fresh(&next));
    assert_eq!(next.notice.unwrap().offer, Some(Offer::ReturnToSession));
    let embedded = refused("There is no lesson called 'nope'.", true);
    let notice = embedded.notice.unwrap();
    assert_eq!(notice.offer, None);
    assert!(!notice.text.contains("untouched"), "{}", notice.text);
    clean_storage();
}

#[wasm_bindgen_test]
fn a_session_whose_load_never_finished_is_set_aside_not_replayed() {
    clean_storage();
    let saved = save("mine", 5);
    set_marker(&recovery::tab_id(), 0.0);
    let start = boot(&PageOptions::default());
    assert!(is_fresh(&start.opening), "a clean playground");
    assert_eq!(storage::get_string(FAILED_KEY), Some(saved.clone()));
    assert_eq!(storage::get(STORAGE_KEY), None);
    assert_eq!(storage::get(LOADING_KEY), None);
    let notice = start.opening.notice.unwrap();
    assert!(notice.text.contains("stopped the page last time"));
    assert!(is_download(&notice.offer, &saved), "{:?}", notice.offer);
    // Another tab's load in progress is left alone: this tab restores the session.
    clean_storage();
    let saved = save("mine", 5);
    set_marker("another tab", 1000.0);
    let start = boot(&PageOptions::default());
    assert_eq!(
        replays(&start.opening, &saved),
        Source::Session {
            text: saved.clone()
        }
    );
    assert_eq!(storage::get(FAILED_KEY), None);
    // Another tab's marker from long ago was left by a load that died.
    clean_storage();
    let saved = save("mine", 5);
    set_marker("another tab", 120_000.0);
    assert!(is_fresh(&boot(&PageOptions::default()).opening));
    assert_eq!(storage::get_string(FAILED_KEY), Some(saved));
    // So was a marker that is not even JSON.
    clean_storage();
    save("mine", 5);
    storage::set_string(LOADING_KEY, "garbage");
    assert!(is_fresh(&boot(&PageOptions::default()).opening));
    assert_eq!(storage::get(LOADING_KEY), None);
    clean_storage();
}

#[wasm_bindgen_test]
fn a_saved_session_that_cannot_be_read_is_set_aside() {
    clean_storage();
    storage::set_string(STORAGE_KEY, "{\"format\": \"nonsense\"");
    let start = boot(&PageOptions::default());
    let source = replays(&start.opening, "{\"format\": \"nonsense\"");
    assert_eq!(start.opening.what(), "Restoring your saved session");
    assert!(storage::get(LOADING_KEY).is_some(), "the marker is set");
    let next = unreadable(&source, "unexpected end");
    assert!(is_fresh(&next));
    let notice = next.notice.unwrap();
    assert!(
        notice
            .text
            .contains("could not be restored (unexpected end)"),
        "{}",
        notice.text
    );
    assert!(is_download(&notice.offer, "{\"format\": \"nonsense\""));
    assert_eq!(
        storage::get_string(FAILED_KEY).as_deref(),
        Some("{\"format\": \"nonsense\"")
    );
    assert_eq!(storage::get(STORAGE_KEY), None);
    assert_eq!(storage::get(LOADING_KEY), None);
    // The same for the session kept before a link, when returning to it.
    clean_storage();
    storage::set_string(PREVIOUS_KEY, "broken");
    let back = return_to_session().unwrap();
    let next = unreadable(back.source.as_ref().unwrap(), "bad");
    assert!(next.notice.unwrap().text.contains("earlier session"));
    assert_eq!(storage::get_string(FAILED_KEY).as_deref(), Some("broken"));
    clean_storage();
}

/// Records a crash as `index.html`'s script does when it sees a trap.
fn record_crash(what: &str, gave_up: bool) {
    let record = js_sys::Object::new();
    storage::set_field(&record, "what", &JsValue::from_str(what));
    if let Some(running) = storage::session_get(RUNNING_KEY) {
        storage::set_field(&record, "running", &JsValue::from_str(&running));
    }
    if gave_up {
        storage::set_field(&record, "gaveUp", &JsValue::TRUE);
        storage::set_field(&record, "again", &JsValue::from_str("out of memory"));
    }
    storage::session_set(CRASH_KEY, &storage::to_json_text(&record).unwrap());
}

#[wasm_bindgen_test]
fn after_a_crash_the_page_restores_the_saved_session_and_names_the_command() {
    clean_storage();
    let saved = save("mine", 5);
    recovery::begin("running", Some("db.c.insertOne(x)"));
    record_crash("a stack overflow", false);
    // A link in the address is not reopened: it may be what died.
    let start = boot(&link("v1.!!"));
    let banner = start.banner.unwrap();
    assert_eq!(banner.what, "a stack overflow");
    assert_eq!(banner.doing.as_deref(), Some("running"));
    assert_eq!(banner.command.as_deref(), Some("db.c.insertOne(x)"));
    assert_eq!(
        banner.outcome,
        "The page reloaded with your saved session as it was before that."
    );
    assert!(start.recovering && !start.hold);
    assert_eq!(
        replays(&start.opening, &saved),
        Source::Session { text: saved }
    );
    assert_eq!(start.opening.notice, None);
    assert_eq!(storage::get(PREVIOUS_KEY), None, "the link kept nothing");
    recovery::started();
    assert_eq!(recovery::crash_record(), None);
    // With nothing saved, a fresh playground.
    clean_storage();
    record_crash("an internal error", false);
    let start = boot(&PageOptions::default());
    assert!(is_fresh(&start.opening));
    assert_eq!(
        start.banner.unwrap().outcome,
        "The page reloaded with a fresh playground."
    );
    clean_storage();
}

#[wasm_bindgen_test]
fn when_the_start_after_a_crash_died_too_it_is_a_clean_playground_offering_the_session() {
    clean_storage();
    // The script set the saved session aside before it gave up.
    let saved = session_text("mine");
    storage::set_string(FAILED_KEY, &saved);
    record_crash("a stack overflow", true);
    let start = boot(&PageOptions::default());
    assert!(is_fresh(&start.opening));
    let banner = start.banner.unwrap();
    assert!(
        banner
            .outcome
            .contains("the reload failed too (out of memory)"),
        "{}",
        banner.outcome
    );
    assert!(banner.outcome.contains("your saved session was set aside"));
    let notice = start.opening.notice.unwrap();
    assert!(is_download(&notice.offer, &saved));
    // An embedded view offers nothing of the saved session's.
    let start = boot(&PageOptions {
        embed: true,
        ..PageOptions::default()
    });
    assert_eq!(start.opening.notice, None);
    assert!(!start.banner.unwrap().outcome.contains("set aside"));
    clean_storage();
}

/// Fills localStorage until it refuses more, as a store full of other data would be.
fn fill_storage() {
    let store = gloo::utils::window().local_storage().unwrap().unwrap();
    let mut piece = "x".repeat(1 << 20);
    let mut n = 0;
    while piece.len() >= 64 {
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
    let mine = save("mine", 5);
    set_marker(&recovery::tab_id(), 0.0);
    fill_storage();
    let start = boot(&link("v1.other"));
    assert!(
        start.hold,
        "the link's playground is not saved over the session"
    );
    let source = replays(&start.opening, "v1.other");
    assert_eq!(
        source,
        Source::Link {
            kept: Kept::Unsaved,
            embed: false
        }
    );
    assert_eq!(storage::get(PREVIOUS_KEY), None);
    let notice = conclude(&source, &Ending::Over, "{}").unwrap();
    assert!(notice.text.contains("too full"), "{}", notice.text);
    assert_eq!(notice.offer, None);
    assert_eq!(storage::get_string(STORAGE_KEY), Some(mine.clone()));
    // Nor is a session that cannot be copied aside removed: it is still offered.
    let start = boot(&PageOptions::default());
    assert!(is_fresh(&start.opening));
    assert_eq!(storage::get_string(STORAGE_KEY), Some(mine.clone()));
    assert_eq!(storage::get(FAILED_KEY), None);
    assert!(is_download(&start.opening.notice.unwrap().offer, &mine));
    clean_storage();
}
