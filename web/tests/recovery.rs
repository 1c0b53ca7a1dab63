//! Browser tests of how the page starts and what it keeps: links and lessons that start
//! sessions of their own, sessions set aside, tabs that each keep their own, and the start
//! after a crash. They call the start-up decisions with page options directly, against the
//! browser's real IndexedDB and storage, and check the [`Opening`] each decision gives the
//! engine. (Whether the engine can read a scenario is the engine's to say; here its answer
//! is played by calling `startup::unreadable` or `startup::conclude` as the page's driver
//! does.)
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_protocol::Start;
use shardlab_web::i18n::Words;
use shardlab_web::recovery::{self, CRASH_KEY, RUNNING_KEY};
use shardlab_web::sessions::{self, ID_KEY};
use shardlab_web::share::{PageOptions, LOADING_KEY, STORAGE_KEY};
use shardlab_web::startup::{
    boot, conclude, refused, return_to_session, unreadable, Ending, Kept, Opening, Source,
};
use shardlab_web::state::{default_setup, Offer};
use shardlab_web::storage;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{aside, clean_storage, fresh_tab, reload, save, session_text};

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

/// Sets the marker a restore of this tab's session leaves while it runs, as `tab`'s,
/// `age` milliseconds ago.
fn set_marker(tab: &str, age: f64) {
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(tab));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now() - age));
    storage::set_field(&marker, "id", &JsValue::from_str(&sessions::current()));
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

/// Holds session `id`'s lock as another tab showing it would (until the page closes).
fn held_by_another_tab(id: &str) {
    let hold = js_sys::Function::new_with_args(
        "id",
        "navigator.locks.request('shardlab.session:' + id, () => new Promise(() => {}));",
    );
    hold.call1(&JsValue::NULL, &JsValue::from_str(id)).unwrap();
}

#[wasm_bindgen_test]
async fn a_damaged_link_starts_a_session_of_its_own_and_offers_the_users_back() {
    fresh_tab().await;
    let saved = save("mine", 5).await;
    let mine = sessions::current();
    let start = boot(Words::ENGLISH, &link("v1.!!not-a-scenario"));
    assert!(!start.recovering && start.banner.is_none());
    let source = replays(&start.opening, "v1.!!not-a-scenario");
    assert_eq!(
        source,
        Source::Link {
            kept: Kept::Previous,
            embed: false
        }
    );
    assert_eq!(
        start.opening.what(Words::ENGLISH),
        "Replaying the shared scenario"
    );
    // The crash record names what runs, in case the link kills the page.
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("opening the shared link"), "{running}");
    assert_ne!(
        sessions::current(),
        mine,
        "the link is a session of its own"
    );
    assert_eq!(sessions::text(&mine), Some(saved.clone()));
    // The engine cannot read it: a fresh playground, and the way back.
    let next = unreadable(Words::ENGLISH, &source, "not a scenario");
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
    // "Return to your session" replays it in this tab, which shows it again.
    let back = return_to_session(Words::ENGLISH).await.unwrap();
    let source = replays(&back, &saved);
    assert_eq!(back.what(Words::ENGLISH), "Returning to your session");
    assert_eq!(
        conclude(Words::ENGLISH, &source, &Ending::Over, &saved),
        None
    );
    assert_eq!(sessions::current(), mine);
    assert!(!aside(&mine));
    assert!(return_to_session(Words::ENGLISH)
        .await
        .unwrap_err()
        .contains("no longer stored"));
    // Every session is still stored: the user's, and nothing of the fresh playground's.
    let list = sessions::list(Words::ENGLISH).await.unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    assert!(list[0].here);
}

#[wasm_bindgen_test]
async fn links_start_new_sessions_and_a_second_link_keeps_the_users_to_return_to() {
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    let start = boot(Words::ENGLISH, &link("v1.first"));
    assert!(!start.hold);
    let source = replays(&start.opening, "v1.first");
    let notice = conclude(Words::ENGLISH, &source, &Ending::Over, "{}").unwrap();
    assert_eq!(
        notice.text,
        "You opened a shared scenario. Your own session is kept."
    );
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    // The link's session, untouched (no steps of the user's), is nothing to return to: the
    // next link still offers the user's own.
    let first = sessions::current();
    boot(Words::ENGLISH, &link("v1.second"));
    assert_eq!(sessions::returnable(), Some(mine.clone()));
    // Once the user worked in what a link opened, it is theirs, and the next link keeps
    // it too: both stay stored.
    let changed = save("changed", 6).await;
    let worked = sessions::current();
    assert_ne!(worked, first);
    boot(Words::ENGLISH, &link("v1.third"));
    assert_eq!(sessions::returnable(), Some(worked.clone()));
    assert_eq!(sessions::text(&worked), Some(changed));
    let ids: Vec<String> = sessions::list(Words::ENGLISH)
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.meta.id)
        .collect();
    assert!(ids.contains(&mine) && ids.contains(&worked), "{ids:?}");
    // A fresh playground (its setup's two steps) is nothing to return to.
    fresh_tab().await;
    save("fresh", 2).await;
    let start = boot(Words::ENGLISH, &link("v1.other"));
    let source = replays(&start.opening, "v1.other");
    assert_eq!(
        source,
        Source::Link {
            kept: Kept::Nothing,
            embed: false
        }
    );
    assert_eq!(conclude(Words::ENGLISH, &source, &Ending::Over, "{}"), None);
}

#[wasm_bindgen_test]
async fn embedded_views_neither_keep_nor_restore_and_lessons_start_their_own_session() {
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    let start = boot(
        Words::ENGLISH,
        &PageOptions {
            embed: true,
            ..link("v1.embedded")
        },
    );
    assert_eq!(
        replays(&start.opening, "v1.embedded"),
        Source::Link {
            kept: Kept::Nothing,
            embed: true
        }
    );
    let plain = boot(
        Words::ENGLISH,
        &PageOptions {
            embed: true,
            ..PageOptions::default()
        },
    );
    assert!(is_fresh(&plain.opening), "an embed restores nothing");
    assert_eq!(sessions::current(), mine);
    assert_eq!(storage::get(LOADING_KEY), None);
    // A lesson in the address starts a session of its own and offers the user's back.
    let start = boot(
        Words::ENGLISH,
        &PageOptions {
            preset: Some("hashed".into()),
            ..PageOptions::default()
        },
    );
    assert_eq!(
        start.opening.start,
        Start::Lesson {
            id: "hashed".into()
        }
    );
    assert_ne!(sessions::current(), mine);
    let notice = start.opening.notice.unwrap();
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    assert!(
        notice.text.starts_with("You opened the lesson '{lesson}'."),
        "{}",
        notice.text
    );
    // A lesson the engine does not know gives a fresh playground and the way back.
    let next = refused(Words::ENGLISH, "There is no lesson called 'nope'.", false);
    assert!(is_fresh(&next));
    assert_eq!(next.notice.unwrap().offer, Some(Offer::ReturnToSession));
    let embedded = refused(Words::ENGLISH, "There is no lesson called 'nope'.", true);
    let notice = embedded.notice.unwrap();
    assert_eq!(notice.offer, None);
    assert!(!notice.text.contains("untouched"), "{}", notice.text);
}

#[wasm_bindgen_test]
async fn a_session_whose_load_never_finished_is_set_aside_not_replayed() {
    fresh_tab().await;
    let saved = save("mine", 5).await;
    let mine = sessions::current();
    set_marker(&recovery::tab_id(), 0.0);
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert!(is_fresh(&start.opening), "a clean playground");
    assert!(aside(&mine), "set aside, still stored");
    assert_ne!(sessions::current(), mine);
    assert_eq!(storage::get(LOADING_KEY), None);
    let notice = start.opening.notice.unwrap();
    assert!(notice.text.contains("stopped the page last time"));
    assert!(is_download(&notice.offer, &saved), "{:?}", notice.offer);
    // A set-aside session is never picked again on its own: the next reload is fresh.
    reload().await;
    assert!(is_fresh(
        &boot(Words::ENGLISH, &PageOptions::default()).opening
    ));
    // Another tab's load in progress is left alone: this tab restores the session.
    fresh_tab().await;
    let saved = save("mine", 5).await;
    set_marker("another tab", 1000.0);
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert_eq!(
        replays(&start.opening, &saved),
        Source::Session {
            text: saved.clone()
        }
    );
    // Another tab's marker from long ago was left by a load that died.
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    set_marker("another tab", 120_000.0);
    reload().await;
    assert!(is_fresh(
        &boot(Words::ENGLISH, &PageOptions::default()).opening
    ));
    assert!(aside(&mine));
    // So was a marker that is not even JSON.
    fresh_tab().await;
    save("mine", 5).await;
    storage::set_string(LOADING_KEY, "garbage");
    reload().await;
    assert!(is_fresh(
        &boot(Words::ENGLISH, &PageOptions::default()).opening
    ));
    assert_eq!(storage::get(LOADING_KEY), None);
}

#[wasm_bindgen_test]
async fn a_saved_session_that_cannot_be_read_is_set_aside() {
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    let text = session_text("mine");
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
    let source = replays(&start.opening, &text);
    assert_eq!(
        start.opening.what(Words::ENGLISH),
        "Restoring your saved session"
    );
    assert!(storage::get(LOADING_KEY).is_some(), "the marker is set");
    let next = unreadable(Words::ENGLISH, &source, "unexpected end");
    assert!(is_fresh(&next));
    let notice = next.notice.unwrap();
    assert!(
        notice
            .text
            .contains("could not be restored (unexpected end)"),
        "{}",
        notice.text
    );
    assert!(is_download(&notice.offer, &text));
    assert!(aside(&mine));
    assert_eq!(storage::get(LOADING_KEY), None);
    // The same for the session to return to, when returning to it.
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    boot(Words::ENGLISH, &link("v1.a-link"));
    let back = return_to_session(Words::ENGLISH).await.unwrap();
    let next = unreadable(Words::ENGLISH, back.source.as_ref().unwrap(), "bad");
    assert!(next.notice.unwrap().text.contains("earlier session"));
    assert!(aside(&mine));
}

#[wasm_bindgen_test]
async fn each_tab_keeps_its_own_session() {
    fresh_tab().await;
    let first = save("first tab's", 5).await;
    let first_id = sessions::current();
    // A reload of the same tab brings back its own session.
    reload().await;
    assert_eq!(sessions::current(), first_id);
    assert_eq!(sessions::saved(), Some(first.clone()));
    // A new tab continues the most recent session no tab shows...
    storage::session_remove(ID_KEY);
    reload().await;
    assert_eq!(sessions::current(), first_id);
    // ...but not one another tab shows: it starts its own, and neither overwrites the other.
    // (This page lets go of it first, as it shows another session.)
    sessions::start_new();
    held_by_another_tab(&first_id);
    storage::session_remove(ID_KEY);
    reload().await;
    let second_id = sessions::current();
    assert_ne!(second_id, first_id);
    assert_eq!(sessions::saved(), None);
    assert!(is_fresh(
        &boot(Words::ENGLISH, &PageOptions::default()).opening
    ));
    let second = save("second tab's", 7).await;
    reload().await;
    assert_eq!(sessions::saved(), Some(second));
    // A duplicated tab (its sessionStorage copied) gets a session of its own too.
    storage::session_set(ID_KEY, &first_id);
    reload().await;
    assert_ne!(sessions::current(), first_id);
    let list = sessions::list(Words::ENGLISH).await.unwrap();
    let first_listed = list.iter().find(|l| l.meta.id == first_id).unwrap();
    assert!(first_listed.elsewhere && !first_listed.here);
    assert_eq!(first_listed.meta.steps, 5);
    assert_eq!(first_listed.meta.own, 3);
    assert_eq!(
        first_listed.meta.collections,
        vec!["test.events".to_string()]
    );
    assert_eq!(sessions::read_text(&first_id).await, Some(first));
}

#[wasm_bindgen_test]
async fn a_session_saved_by_an_earlier_version_moves_into_the_store() {
    fresh_tab().await;
    let old = session_text("from localStorage");
    storage::set_string(STORAGE_KEY, &old);
    storage::session_remove(ID_KEY);
    reload().await;
    assert_eq!(storage::get(STORAGE_KEY), None, "moved, not copied");
    assert_eq!(sessions::saved(), Some(old.clone()));
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert_eq!(replays(&start.opening, &old), Source::Session { text: old });
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
async fn after_a_crash_the_page_restores_the_saved_session_and_names_the_command() {
    fresh_tab().await;
    let saved = save("mine", 5).await;
    let mine = sessions::current();
    recovery::begin("running", Some("db.c.insertOne(x)"));
    record_crash("a stack overflow", false);
    reload().await;
    // A link in the address is not reopened: it may be what died.
    let start = boot(Words::ENGLISH, &link("v1.!!"));
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
    assert_eq!(sessions::current(), mine, "the link started nothing");
    recovery::started();
    assert_eq!(recovery::crash_record(), None);
    // With nothing saved, a fresh playground.
    fresh_tab().await;
    record_crash("an internal error", false);
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert!(is_fresh(&start.opening));
    assert_eq!(
        start.banner.unwrap().outcome,
        "The page reloaded with a fresh playground."
    );
    clean_storage();
}

#[wasm_bindgen_test]
async fn when_the_start_after_a_crash_died_too_it_is_a_clean_playground_offering_the_session() {
    fresh_tab().await;
    let saved = save("mine", 5).await;
    let mine = sessions::current();
    record_crash("a stack overflow", true);
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
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
    assert!(aside(&mine), "set aside, still stored");
    // An embedded view offers nothing of the saved session's.
    record_crash("a stack overflow", true);
    let start = boot(
        Words::ENGLISH,
        &PageOptions {
            embed: true,
            ..PageOptions::default()
        },
    );
    assert_eq!(start.opening.notice, None);
    assert!(!start.banner.unwrap().outcome.contains("set aside"));
    clean_storage();
}
