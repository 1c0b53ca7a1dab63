//! Browser tests of the replay the page runs a slice at a time (a shared link, the saved
//! session): what the playground holds after each slice, a cancel that keeps the steps
//! replayed so far, and the marker and crash record that stay set while it runs.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab::engine::ClusterConfig;
use shardlab_web::recovery::{self, RUNNING_KEY};
use shardlab_web::share::{
    saved_form, share_query, PageOptions, FAILED_KEY, LINKED_KEY, LOADING_KEY, STORAGE_KEY,
};
use shardlab_web::startup::boot_sliced;
use shardlab_web::state::{Action, Budget, Offer, Playground, Replay};
use shardlab_web::storage;
use std::rc::Rc;
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

/// A scenario that shards the shown collection, then inserts `n` documents one at a time.
fn inserts(n: usize) -> Vec<String> {
    let mut commands = vec![
        "sim.chunkSize(8192)".to_string(),
        "sh.shardCollection(\"test.events\", {x: 1})".to_string(),
    ];
    commands.extend((0..n).map(|i| format!("db.events.insertOne({{x: {i}}})")));
    commands
}

/// The playground of `commands`, replayed in one go.
fn replayed(commands: &[String]) -> Playground {
    let (state, cut) = Playground::replay(
        ClusterConfig::default(),
        commands,
        commands.len() as u64,
        &Budget::SLICED,
        &[],
    );
    assert!(cut.is_none());
    state
}

#[wasm_bindgen_test]
fn each_slice_replays_on_and_the_pictures_show_the_steps_so_far() {
    let commands = inserts(10);
    let mut replay = Replay::new(
        ClusterConfig::default(),
        commands.clone(),
        12,
        Budget::SLICED,
    );
    // A slice of no time runs exactly one command.
    for k in 1..=5 {
        assert!(!replay.advance(0.0));
        assert_eq!(replay.replayed(), k);
        let picture = replay.snapshot("Replaying the shared scenario");
        let progress = picture.replaying.clone().unwrap();
        assert_eq!((progress.done, progress.goal), (k, 12));
        assert_eq!(picture.timeline.borrow().len(), k as u64);
        assert_eq!(picture.stats.len(), k);
        assert_eq!(picture.view.docs, k.saturating_sub(2) as u64);
    }
    while !replay.advance(8.0) {}
    let (state, cut) = replay.finish();
    assert!(cut.is_none());
    assert_eq!(state.replaying, None);
    assert_eq!(state.view.docs, 10);
    assert_eq!(state.timeline.borrow().position(), 12);
    // The budget still cuts a sliced replay, before the next command.
    let few = Budget {
        commands: 4,
        millis: 1e9,
    };
    let mut replay = Replay::new(ClusterConfig::default(), commands, 12, few);
    while !replay.advance(0.0) {}
    let (state, cut) = replay.finish();
    assert_eq!(cut.unwrap().replayed, 4);
    assert_eq!(state.view.docs, 2);
}

#[wasm_bindgen_test]
fn a_replay_takes_no_other_action_and_typed_commands_wait_for_its_end() {
    let mut replay = Replay::new(ClusterConfig::default(), inserts(3), 5, Budget::SLICED);
    replay.advance(0.0);
    let state = Rc::new(replay.snapshot("Restoring your saved session"));
    let state = state.reduce(Action::Command("db.events.insertOne({x: -1})".into()));
    assert_eq!(
        state.waiting.len(),
        1,
        "a command typed during the replay waits"
    );
    assert_eq!(state.timeline.borrow().len(), 1, "and does not run yet");
    let state = state.reduce(Action::Step);
    assert_eq!(state.timeline.borrow().len(), 1, "nothing else runs");
    replay.advance(0.0);
    let state = state.reduce(Action::Replayed(Box::new(
        replay.snapshot("Restoring your saved session"),
    )));
    assert_eq!(
        state.waiting.len(),
        1,
        "it waits across the replay's pictures"
    );
    while !replay.advance(8.0) {}
    let state = state.reduce(Action::Replayed(Box::new(replay.finish().0)));
    assert_eq!(state.replaying, None);
    assert_eq!(
        state.view.docs, 4,
        "the waiting command ran once it was over"
    );
    assert_eq!(state.timeline.borrow().len(), 6);
    // Once it is over, the page takes actions again, and no late picture of the replay.
    let late = state.clone();
    let state = state.reduce(Action::Step);
    assert!(state.rev > late.rev);
    let rev = state.rev;
    let state = state.reduce(Action::Replayed(Box::new((*late).clone())));
    assert_eq!(state.rev, rev);
    // The first picture of a replay that starts (an import) comes in.
    let mut import = Replay::new(ClusterConfig::default(), inserts(3), 5, Budget::SLICED);
    import.advance(0.0);
    let state = state.reduce(Action::Replayed(Box::new(
        import.snapshot("Replaying the imported scenario"),
    )));
    assert!(state.rev > rev && state.replaying.is_some());
}

#[wasm_bindgen_test]
fn a_cancelled_restore_keeps_the_steps_so_far_and_sets_the_session_aside() {
    clean_storage();
    let full = replayed(&inserts(3000));
    let text = saved_form(&full);
    storage::set_string(STORAGE_KEY, &text);
    let start = boot_sliced(&PageOptions::default());
    let mut pending = start.replay.unwrap();
    assert!(start.state.replaying.is_some());
    // While it runs, the marker is set and the crash record names the replay.
    assert!(storage::get(LOADING_KEY).is_some());
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(
        running.contains("restoring your saved session"),
        "{running}"
    );
    for _ in 0..3 {
        assert!(!pending.advance());
        assert!(storage::get(LOADING_KEY).is_some());
    }
    let kept = pending.replayed();
    assert!(kept > 0 && kept < 3002, "{kept}");
    let state = pending.finish(true);
    assert_eq!(state.timeline.borrow().len(), kept as u64);
    assert_eq!(state.view.docs, (kept - 2) as u64);
    assert_eq!(storage::get(LOADING_KEY), None, "the marker is cleared");
    assert_eq!(storage::get_string(FAILED_KEY), Some(text));
    let notice = state.notice.unwrap();
    assert!(
        notice
            .text
            .contains(&format!("was cancelled at step {} of 3002", kept + 1)),
        "{}",
        notice.text
    );
    assert!(
        matches!(notice.offer, Some(Offer::Download(ref href)) if href.starts_with("data:application/json"))
    );
    clean_storage();
}

#[wasm_bindgen_test]
fn a_restore_that_died_mid_slice_is_set_aside_on_the_next_start() {
    clean_storage();
    let text = saved_form(&replayed(&inserts(50)));
    storage::set_string(STORAGE_KEY, &text);
    let mut pending = boot_sliced(&PageOptions::default()).replay.unwrap();
    pending.advance();
    // The page dies here: nothing finishes the replay, and the next start finds the marker.
    drop(pending);
    let start = boot_sliced(&PageOptions::default());
    assert!(start.replay.is_none(), "it is not replayed again");
    assert_eq!(start.state.view.docs, 0);
    assert_eq!(storage::get_string(FAILED_KEY), Some(text));
    assert_eq!(storage::get(LOADING_KEY), None);
    // A restore that runs to its end clears the marker and keeps the session.
    clean_storage();
    let text = saved_form(&replayed(&inserts(50)));
    storage::set_string(STORAGE_KEY, &text);
    let state = boot_sliced(&PageOptions::default())
        .replay
        .unwrap()
        .run_to_end();
    assert_eq!((state.view.docs, state.notice), (50, None));
    assert_eq!(storage::get(LOADING_KEY), None);
    assert_eq!(storage::get(FAILED_KEY), None);
    clean_storage();
}

#[wasm_bindgen_test]
fn a_cancelled_link_keeps_its_steps_and_offers_its_scenario_and_the_session() {
    clean_storage();
    let mine = replayed(&inserts(5));
    storage::set_string(STORAGE_KEY, &saved_form(&mine));
    let query = share_query(&replayed(&inserts(2000)));
    let options = PageOptions {
        scenario: Some(query.trim_start_matches("s=").to_string()),
        ..PageOptions::default()
    };
    let start = boot_sliced(&options);
    let running = storage::session_get(RUNNING_KEY).unwrap();
    assert!(running.contains("opening the shared link"), "{running}");
    let mut pending = start.replay.unwrap();
    assert!(!pending.advance());
    let kept = pending.replayed();
    let state = pending.finish(true);
    assert_eq!(state.view.docs, (kept - 2) as u64);
    let notice = state.notice.clone().unwrap();
    assert!(
        notice.text.contains("Opening it was cancelled at step"),
        "{}",
        notice.text
    );
    assert!(matches!(notice.offer, Some(Offer::DownloadOrReturn(_))));
    assert_eq!(storage::get_string(LINKED_KEY), Some(saved_form(&state)));
    recovery::end();
    clean_storage();
}
