//! Browser tests of how the page's client takes over what a first visit's early console
//! asked the engine (`platform::early`): which of the page's own requests are answered from
//! the early answers, in which order, when the early session is closed instead, and when
//! the engine's events about it reach the page. The early console itself, and the page
//! taking its session over, are tested end to end (`tests/e2e/early-console.test.mjs`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_protocol::{Act, Call, Start};
use shardlab_web::platform::early::{Claim, Early, Heard};
use shardlab_web::state::{default_setup, FirstScreen};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const OPEN: u64 = FirstScreen::EARLY_IDS_FROM;

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

/// What the early console leaves: its opening, then the commands `acts` (id, source).
fn record(acts: &[(u64, &str)]) -> Early {
    let acts: Vec<String> = acts
        .iter()
        .map(|(id, source)| format!("{{\"id\":{id},\"source\":{source:?}}}"))
        .collect();
    Early::read(&json(&format!(
        "{{\"open\":{{\"id\":{OPEN},\"text\":\"the opening\"}},\"acts\":[{}]}}",
        acts.join(",")
    )))
}

fn answer(id: u64, result: &str) -> JsValue {
    json(&format!("{{\"v\":3,\"id\":{id},\"result\":{result}}}"))
}

fn open() -> Call {
    Call::Open(Start::Setup(default_setup()))
}

fn command(source: &str) -> Call {
    Call::Act(Act::Command {
        source: source.to_string(),
    })
}

/// The opening claimed (its JSON the same), answered with session `s1`.
fn adopted(e: &mut Early) {
    assert!(matches!(
        e.claim(1, None, &open(), |id, text| id == OPEN
            && text == "the opening"),
        Claim::Awaited
    ));
    assert!(matches!(
        e.heard(OPEN, &answer(OPEN, "{\"session\":\"s1\"}")),
        Heard::Page(1)
    ));
}

#[wasm_bindgen_test]
fn the_page_s_opening_and_commands_are_answered_from_the_early_ones_in_order() {
    let mut e = record(&[
        (OPEN + 2, "db.a.insertOne({})"),
        (OPEN + 4, "db.a.countDocuments()"),
    ]);
    adopted(&mut e);
    // The first command's answer came before the page entered it again: kept, then handed
    // over; the second's comes after, under the page's number.
    assert!(matches!(
        e.heard(OPEN + 2, &answer(OPEN + 2, "{}")),
        Heard::Kept
    ));
    let first = e.claim(2, Some("s1"), &command("db.a.insertOne({})"), |_, _| false);
    assert!(matches!(first, Claim::Answered(_)));
    assert!(matches!(
        e.claim(3, Some("s1"), &command("db.a.countDocuments()"), |_, _| {
            false
        }),
        Claim::Awaited
    ));
    assert!(matches!(
        e.heard(OPEN + 4, &answer(OPEN + 4, "{}")),
        Heard::Page(3)
    ));
    // Taken once: the same command again goes to the engine.
    assert!(matches!(
        e.claim(4, Some("s1"), &command("db.a.countDocuments()"), |_, _| {
            false
        }),
        Claim::Send
    ));
}

#[wasm_bindgen_test]
fn a_command_out_of_order_or_about_another_session_goes_to_the_engine() {
    let mut e = record(&[(OPEN + 2, "a()"), (OPEN + 4, "b()")]);
    adopted(&mut e);
    assert!(matches!(
        e.claim(2, Some("s1"), &command("b()"), |_, _| false),
        Claim::Send
    ));
    assert!(matches!(
        e.claim(3, Some("s2"), &command("a()"), |_, _| false),
        Claim::Send
    ));
    assert!(matches!(
        e.claim(4, Some("s1"), &Call::Act(Act::Look), |_, _| false),
        Claim::Send
    ));
    assert!(matches!(
        e.claim(5, Some("s1"), &command("a()"), |_, _| false),
        Claim::Awaited
    ));
}

#[wasm_bindgen_test]
fn another_opening_closes_the_early_session_and_takes_none_of_its_commands() {
    // The page's opening differs and comes before the early one is answered: the early
    // session is closed once its handle is known.
    let mut e = record(&[(OPEN + 2, "a()")]);
    assert!(matches!(
        e.claim(1, None, &open(), |_, _| false),
        Claim::Send
    ));
    assert_eq!(e.take_close(), None, "no handle yet");
    match e.heard(OPEN, &answer(OPEN, "{\"session\":\"s1\"}")) {
        Heard::Close(handle) => assert_eq!(handle, "s1"),
        _ => panic!("the early session was not closed"),
    }
    assert!(matches!(
        e.claim(2, Some("s1"), &command("a()"), |_, _| false),
        Claim::Send
    ));
    // Answered first, then another opening: closed at once.
    let mut e = record(&[]);
    assert!(matches!(
        e.heard(OPEN, &answer(OPEN, "{\"session\":\"s7\"}")),
        Heard::Kept
    ));
    assert!(matches!(
        e.claim(1, None, &open(), |_, _| false),
        Claim::Send
    ));
    assert_eq!(e.take_close().as_deref(), Some("s7"));
    assert_eq!(e.take_close(), None, "closed once");
}

#[wasm_bindgen_test]
fn the_early_session_s_events_wait_until_the_page_has_taken_all_of_it() {
    let mut e = record(&[(OPEN + 2, "a()")]);
    assert!(matches!(
        e.heard(OPEN, &answer(OPEN, "{\"session\":\"s1\"}")),
        Heard::Kept
    ));
    let save = json("{\"v\":3,\"session\":\"s1\",\"event\":\"save\",\"data\":{}}");
    assert!(e.stash("s1", &save));
    assert!(!e.stash("s2", &save), "another session's event is not kept");
    assert!(
        e.settled_events().is_empty(),
        "the page has not taken the session"
    );
    assert!(matches!(
        e.claim(1, None, &open(), |_, _| true),
        Claim::Answered(_)
    ));
    assert!(e.settled_events().is_empty(), "a command is still to take");
    assert!(matches!(
        e.claim(2, Some("s1"), &command("a()"), |_, _| false),
        Claim::Awaited
    ));
    assert!(e.settled_events().is_empty(), "its answer has not come");
    assert!(matches!(
        e.heard(OPEN + 2, &answer(OPEN + 2, "{}")),
        Heard::Page(2)
    ));
    assert_eq!(e.settled_events().len(), 1);
    assert!(
        !e.stash("s1", &save),
        "once taken, the session's events are the page's"
    );
}

#[wasm_bindgen_test]
fn a_record_that_is_not_one_asks_nothing() {
    for text in [
        "null",
        "{}",
        "{\"open\":{\"id\":7,\"text\":\"x\"}}",
        "{\"open\":{\"id\":\"x\",\"text\":\"x\"}}",
        "{\"open\":{\"text\":\"x\"}}",
    ] {
        let mut e = Early::read(&json(text));
        assert!(
            matches!(e.claim(1, None, &open(), |_, _| true), Claim::Send),
            "{text}"
        );
    }
    // Commands numbered as the page's own are not the early console's.
    let mut e = Early::read(&json(&format!(
        "{{\"open\":{{\"id\":{OPEN},\"text\":\"t\"}},\"acts\":[{{\"id\":5,\"source\":\"a()\"}}]}}"
    )));
    adopted_with(&mut e, "t");
    assert!(matches!(
        e.claim(2, Some("s1"), &command("a()"), |_, _| false),
        Claim::Send
    ));
}

fn adopted_with(e: &mut Early, text: &str) {
    let text = text.to_string();
    assert!(matches!(
        e.claim(1, None, &open(), move |_, t| t == text),
        Claim::Awaited
    ));
    assert!(matches!(
        e.heard(OPEN, &answer(OPEN, "{\"session\":\"s1\"}")),
        Heard::Page(1)
    ));
}
