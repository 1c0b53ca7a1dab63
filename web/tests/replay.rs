//! Browser tests of how a replay the page runs a slice at a time (a shared link, the saved
//! session, an imported file, the way back to the user's session) concludes: what it
//! says, what it sets aside and offers, and the marker and crash record that stay set
//! while it runs. The slices themselves are the engine's (`Act::Advance`/`Act::Finish`,
//! tested in `web/engine/tests/playground.rs`); here the driver's ending of a replay is
//! played by calling `startup::conclude` as the driver does.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::i18n::Words;
use shardlab_web::recovery::{self, RUNNING_KEY};
use shardlab_web::sessions;
use shardlab_web::share::{PageOptions, LOADING_KEY};
use shardlab_web::startup::{
    boot, conclude, import, restart, unreadable, Budget, Cut, Ending, Kept, Source,
};
use shardlab_web::state::Offer;
use shardlab_web::storage;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

mod support;
use support::{aside, clean_storage, download, fresh_tab, reload, save};

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
        many.describe(Words::ENGLISH, "Your saved session", &budget),
        "Your saved session stopped replaying at step 20001 of 25000: it has more than 20000 \
         steps. The playground holds the 20000 steps before it."
    );
    let slow = Cut {
        replayed: 7,
        total: 9,
        timed_out: true,
    };
    assert!(slow
        .describe(Words::ENGLISH, "This link's scenario", &budget)
        .starts_with(
            "This link's scenario stopped replaying at step 8 of 9: replaying it took longer than 30 seconds."
        ));
}

#[wasm_bindgen_test]
async fn a_cancelled_restore_keeps_the_steps_so_far_and_sets_the_session_aside() {
    fresh_tab().await;
    let text = save("mine", 3002).await;
    let mine = sessions::current();
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert_eq!(
        start.opening.what(Words::ENGLISH),
        "Restoring your saved session"
    );
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
    let notice = conclude(Words::ENGLISH, &source, &ending, &text).unwrap();
    assert_eq!(storage::get(LOADING_KEY), None, "the marker is cleared");
    assert!(aside(&mine), "set aside whole, still stored");
    assert_eq!(sessions::text(&mine), Some(text.clone()));
    assert_ne!(
        sessions::current(),
        mine,
        "the steps kept are a session of their own"
    );
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
    fresh_tab().await;
    let text = save("mine", 3002).await;
    let mine = sessions::current();
    let cut = Ending::Cut(Cut {
        replayed: 20_000,
        total: 25_000,
        timed_out: false,
    });
    let notice = conclude(Words::ENGLISH, &source, &cut, &text).unwrap();
    assert!(notice
        .text
        .starts_with("Your saved session stopped replaying at step 20001"));
    assert!(notice.text.ends_with("The whole session was set aside."));
    assert!(aside(&mine));
    assert_eq!(sessions::text(&mine), Some(text));
    clean_storage();
}

#[wasm_bindgen_test]
async fn a_restore_that_died_mid_slice_is_set_aside_on_the_next_start() {
    fresh_tab().await;
    let text = save("mine", 50).await;
    let mine = sessions::current();
    reload().await;
    let first = boot(Words::ENGLISH, &PageOptions::default());
    assert!(first.opening.source.is_some());
    // The page dies here: nothing concludes the replay, and the next start finds the marker.
    reload().await;
    let start = boot(Words::ENGLISH, &PageOptions::default());
    assert!(start.opening.source.is_none(), "it is not replayed again");
    assert!(aside(&mine));
    assert_eq!(sessions::text(&mine), Some(text));
    assert_eq!(storage::get(LOADING_KEY), None);
    assert_eq!(sessions::saved(), None);
    // A restore that runs to its end clears the marker and keeps the session.
    fresh_tab().await;
    let text = save("mine", 50).await;
    let mine = sessions::current();
    reload().await;
    let source = boot(Words::ENGLISH, &PageOptions::default())
        .opening
        .source
        .unwrap();
    assert_eq!(
        conclude(Words::ENGLISH, &source, &Ending::Over, &text),
        None
    );
    assert_eq!(storage::get(LOADING_KEY), None);
    assert!(!aside(&mine));
    assert_eq!(sessions::saved(), Some(text.clone()));
    // So the next start restores it again.
    reload().await;
    let again = boot(Words::ENGLISH, &PageOptions::default());
    assert_eq!(again.opening.source, Some(Source::Session { text }));
    clean_storage();
}

#[wasm_bindgen_test]
async fn a_cancelled_link_keeps_its_steps_and_offers_its_scenario_and_the_session() {
    fresh_tab().await;
    save("mine", 5).await;
    let mine = sessions::current();
    let options = PageOptions {
        scenario: Some("v1.shared".to_string()),
        ..PageOptions::default()
    };
    let start = boot(Words::ENGLISH, &options);
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("opening the shared link"), "{running}");
    let source = start.opening.source.unwrap();
    let json = "{\"format\": \"shardlab-scenario\", \"name\": \"shared\"}";
    let ending = Ending::Cancelled {
        replayed: 10,
        total: 2002,
    };
    let notice = conclude(Words::ENGLISH, &source, &ending, json).unwrap();
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
    assert!(!aside(&mine), "a link sets nothing of the user's aside");
    assert_eq!(sessions::returnable(), Some(mine));
    // With no session of the user's kept, only the download is offered.
    let nothing = Source::Link {
        kept: Kept::Nothing,
        embed: true,
    };
    let notice = conclude(Words::ENGLISH, &nothing, &ending, json).unwrap();
    assert!(matches!(notice.offer, Some(Offer::Download(_))));
    // A link cut by the budget says so, and offers the way back.
    let cut = Ending::Cut(Cut {
        replayed: 20_000,
        total: 30_000,
        timed_out: false,
    });
    let notice = conclude(Words::ENGLISH, &source, &cut, json).unwrap();
    assert!(notice
        .text
        .contains("This link's scenario stopped replaying at step 20001"));
    assert_eq!(notice.offer, Some(Offer::ReturnToSession));
    recovery::end();
    clean_storage();
}

#[wasm_bindgen_test]
async fn an_import_a_return_and_a_restart_conclude_in_their_own_words() {
    fresh_tab().await;
    let json = "{\"format\": \"shardlab-scenario\"}";
    let opening = import(json);
    assert_eq!(
        opening.what(Words::ENGLISH),
        "Replaying the imported scenario"
    );
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("importing a scenario file"), "{running}");
    let source = opening.source.unwrap();
    assert_eq!(conclude(Words::ENGLISH, &source, &Ending::Over, json), None);
    let cancelled = Ending::Cancelled {
        replayed: 2,
        total: 9,
    };
    let notice = conclude(Words::ENGLISH, &source, &cancelled, json).unwrap();
    assert!(notice
        .text
        .starts_with("Importing the scenario was cancelled at step 3 of 9."));
    match notice.offer {
        Some(Offer::Download(href)) => assert_eq!(download(&href), json),
        other => panic!("{other:?}"),
    }
    let refused = unreadable(Words::ENGLISH, &source, "not JSON");
    assert_eq!(
        refused.notice.unwrap().text,
        "The file could not be imported (not JSON)."
    );
    // Returning to the user's session, cancelled: it is set aside, no longer offered.
    let mine_text = save("mine", 5).await;
    let mine = sessions::current();
    sessions::start_new();
    let back = shardlab_web::startup::return_to_session(Words::ENGLISH)
        .await
        .unwrap();
    assert_eq!(back.source, Some(Source::Return { text: mine_text }));
    let notice = conclude(
        Words::ENGLISH,
        back.source.as_ref().unwrap(),
        &cancelled,
        "{}",
    )
    .unwrap();
    assert!(notice
        .text
        .starts_with("Returning to your session was cancelled at step 3 of 9."));
    assert!(aside(&mine));
    assert_eq!(sessions::returnable(), None);
    // The page's session replayed into a new engine.
    let opening = restart(
        "v1.session".into(),
        false,
        "RuntimeError: unreachable".into(),
    );
    assert_eq!(
        opening.what(Words::ENGLISH),
        "Restoring your session in a new engine"
    );
    let source = opening.source.unwrap();
    // The notice says what stopped the engine.
    assert_eq!(
        conclude(Words::ENGLISH, &source, &Ending::Over, "{}").unwrap().text,
        "The engine stopped (RuntimeError: unreachable) and started again; your session was replayed into it as it was."
    );
    let notice = conclude(Words::ENGLISH, &source, &cancelled, "{}").unwrap();
    assert!(matches!(notice.offer, Some(Offer::Download(_))));
    clean_storage();
}
