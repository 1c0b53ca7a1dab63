//! Browser tests of how a replay the page runs a slice at a time (a shared link, the saved
//! session, an imported file, the way back to the user's session) concludes: what it
//! says, what it sets aside and offers, and the marker and crash record that stay set
//! while it runs. The slices themselves are the engine's (`Act::Advance`/`Act::Finish`,
//! tested in `web/engine/tests/playground.rs`); here the driver's ending of a replay is
//! played by calling `startup::conclude` as the driver does.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::recovery::{self, RUNNING_KEY};
use shardlab_web::share::{
    PageOptions, FAILED_KEY, LOADING_KEY, PREVIOUS_KEY, STEPS_KEY, STORAGE_KEY,
};
use shardlab_web::startup::{
    boot, conclude, import, restart, unreadable, Budget, Cut, Ending, Kept, Source,
};
use shardlab_web::state::Offer;
use shardlab_web::storage;
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

/// Saves a session of `steps` steps as the page's saving does; returns its text.
fn save(name: &str, steps: u64) -> String {
    let text = format!("{{\"format\": \"shardlab-scenario\", \"name\": \"{name}\"}}");
    storage::set_string(STORAGE_KEY, &text);
    // As a session from the settings form (two setup steps) records its own steps.
    storage::set_string(STEPS_KEY, &steps.saturating_sub(2).to_string());
    text
}

/// The text a download offer's `data:` URL holds, if it is one of JSON.
fn download(href: &str) -> String {
    assert!(href.starts_with("data:application/json"), "{href}");
    String::from(js_sys::decode_uri_component(href.split_once(',').unwrap().1).unwrap())
}

#[wasm_bindgen_test]
fn a_replay_stopped_by_its_budget_says_where_and_why() {
    let budget = Budget::REPLAY;
    assert_eq!((budget.commands, budget.millis), (20_000, 30_000.0));
    let many = Cut {
        replayed: 20_000,
        total: 25_000,
        timed_out: false,
    };
    assert_eq!(
        many.describe("Your saved session", &budget),
        "Your saved session stopped replaying at step 20001 of 25000: it has more than 20000 \
         steps. The playground holds the 20000 steps before it."
    );
    let slow = Cut {
        replayed: 7,
        total: 9,
        timed_out: true,
    };
    assert!(slow
        .describe("This link's scenario", &budget)
        .starts_with(
            "This link's scenario stopped replaying at step 8 of 9: replaying it took longer than 30 seconds."
        ));
}

#[wasm_bindgen_test]
fn a_cancelled_restore_keeps_the_steps_so_far_and_sets_the_session_aside() {
    clean_storage();
    let text = save("mine", 3002);
    let start = boot(&PageOptions::default());
    assert_eq!(start.opening.what(), "Restoring your saved session");
    let source = start.opening.source.clone().unwrap();
    assert_eq!(source, Source::Session { text: text.clone() });
    // While it runs, the marker is set and the crash record names the replay.
    assert!(storage::get(LOADING_KEY).is_some());
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(
        running.contains("restoring your saved session"),
        "{running}"
    );
    let ending = Ending::Cancelled {
        replayed: 40,
        total: 3002,
    };
    let notice = conclude(&source, &ending, &text).unwrap();
    assert_eq!(storage::get(LOADING_KEY), None, "the marker is cleared");
    assert_eq!(storage::get_string(FAILED_KEY), Some(text.clone()));
    assert_eq!(
        notice.text,
        "Restoring your saved session was cancelled at step 41 of 3002. The playground holds \
         the 40 steps before it. The whole session was set aside."
    );
    match notice.offer {
        Some(Offer::Download(href)) => assert_eq!(download(&href), text),
        other => panic!("{other:?}"),
    }
    // Cut by the budget, it is set aside too.
    clean_storage();
    let cut = Ending::Cut(Cut {
        replayed: 20_000,
        total: 25_000,
        timed_out: false,
    });
    let notice = conclude(&source, &cut, &text).unwrap();
    assert!(notice
        .text
        .starts_with("Your saved session stopped replaying at step 20001"));
    assert!(notice.text.ends_with("The whole session was set aside."));
    assert_eq!(storage::get_string(FAILED_KEY), Some(text));
    clean_storage();
}

#[wasm_bindgen_test]
fn a_restore_that_died_mid_slice_is_set_aside_on_the_next_start() {
    clean_storage();
    let text = save("mine", 50);
    let first = boot(&PageOptions::default());
    assert!(first.opening.source.is_some());
    // The page dies here: nothing concludes the replay, and the next start finds the marker.
    let start = boot(&PageOptions::default());
    assert!(start.opening.source.is_none(), "it is not replayed again");
    assert_eq!(storage::get_string(FAILED_KEY), Some(text));
    assert_eq!(storage::get(LOADING_KEY), None);
    assert_eq!(storage::get(STORAGE_KEY), None);
    // A restore that runs to its end clears the marker and keeps the session.
    clean_storage();
    let text = save("mine", 50);
    let source = boot(&PageOptions::default()).opening.source.unwrap();
    assert_eq!(conclude(&source, &Ending::Over, &text), None);
    assert_eq!(storage::get(LOADING_KEY), None);
    assert_eq!(storage::get(FAILED_KEY), None);
    assert_eq!(storage::get_string(STORAGE_KEY), Some(text.clone()));
    // So the next start restores it again.
    let again = boot(&PageOptions::default());
    assert_eq!(again.opening.source, Some(Source::Session { text }));
    clean_storage();
}

#[wasm_bindgen_test]
fn a_cancelled_link_keeps_its_steps_and_offers_its_scenario_and_the_session() {
    clean_storage();
    save("mine", 5);
    let options = PageOptions {
        scenario: Some("v1.shared".to_string()),
        ..PageOptions::default()
    };
    let start = boot(&options);
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("opening the shared link"), "{running}");
    let source = start.opening.source.unwrap();
    let json = "{\"format\": \"shardlab-scenario\", \"name\": \"shared\"}";
    let ending = Ending::Cancelled {
        replayed: 10,
        total: 2002,
    };
    let notice = conclude(&source, &ending, json).unwrap();
    assert!(
        notice
            .text
            .contains("Opening it was cancelled at step 11 of 2002."),
        "{}",
        notice.text
    );
    assert!(notice
        .text
        .starts_with("You opened a shared scenario. Your own session is kept."));
    match notice.offer {
        Some(Offer::DownloadOrReturn(href)) => assert_eq!(download(&href), json),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        storage::get(FAILED_KEY),
        None,
        "a link is not the user's to set aside"
    );
    // With no session of the user's kept, only the download is offered.
    let nothing = Source::Link {
        kept: Kept::Nothing,
        embed: true,
    };
    let notice = conclude(&nothing, &ending, json).unwrap();
    assert!(matches!(notice.offer, Some(Offer::Download(_))));
    // A link cut by the budget says so, and offers the way back.
    let cut = Ending::Cut(Cut {
        replayed: 20_000,
        total: 30_000,
        timed_out: false,
    });
    let notice = conclude(&source, &cut, json).unwrap();
    assert!(notice
        .text
        .contains("This link's scenario stopped replaying at step 20001"));
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    recovery::end();
    clean_storage();
}

#[wasm_bindgen_test]
fn an_import_a_return_and_a_restart_conclude_in_their_own_words() {
    clean_storage();
    let json = "{\"format\": \"shardlab-scenario\"}";
    let opening = import(json);
    assert_eq!(opening.what(), "Replaying the imported scenario");
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("importing a scenario file"), "{running}");
    let source = opening.source.unwrap();
    assert_eq!(conclude(&source, &Ending::Over, json), None);
    let cancelled = Ending::Cancelled {
        replayed: 2,
        total: 9,
    };
    let notice = conclude(&source, &cancelled, json).unwrap();
    assert!(notice
        .text
        .starts_with("Importing the scenario was cancelled at step 3 of 9."));
    match notice.offer {
        Some(Offer::Download(href)) => assert_eq!(download(&href), json),
        other => panic!("{other:?}"),
    }
    let refused = unreadable(&source, "not JSON");
    assert_eq!(
        refused.notice.unwrap().text,
        "The file could not be imported (not JSON)."
    );
    assert_eq!(
        storage::get(FAILED_KEY),
        None,
        "an import sets nothing aside"
    );
    // Returning to the user's session, cancelled: it is set aside, no longer kept.
    storage::set_string(PREVIOUS_KEY, "mine");
    let back = Source::Return {
        text: "mine".into(),
    };
    let notice = conclude(&back, &cancelled, "{}").unwrap();
    assert!(notice
        .text
        .starts_with("Returning to your session was cancelled at step 3 of 9."));
    assert_eq!(storage::get(PREVIOUS_KEY), None);
    assert_eq!(storage::get_string(FAILED_KEY).as_deref(), Some("mine"));
    // The page's session replayed into a new engine.
    let opening = restart("v1.session".into(), false);
    assert_eq!(opening.what(), "Restoring your session in a new engine");
    let source = opening.source.unwrap();
    assert!(conclude(&source, &Ending::Over, "{}")
        .unwrap()
        .text
        .contains("replayed into it as it was"));
    let notice = conclude(&source, &cancelled, "{}").unwrap();
    assert!(matches!(notice.offer, Some(Offer::Download(_))));
    clean_storage();
}
