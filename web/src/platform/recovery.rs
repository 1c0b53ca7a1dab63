//! Recovery from a dead page.
//!
//! The playground is built with `panic = "abort"`, so a panic, like any WebAssembly trap (a
//! stack overflow, running out of memory), kills the instance: nothing in it can run again,
//! and no Rust code can catch it. The recovery therefore lives on both sides of the trap:
//!
//! - Before each command that comes from the user, the page records it in sessionStorage
//!   ([`RUNNING_KEY`], [`begin`]) and removes the record once the command has returned and
//!   its result is drawn and saved ([`end`]). The saved session is only written after that,
//!   so it always holds the state from before a command that never returned.
//! - A small script in `index.html`, which runs before the wasm loads, recognises a trap
//!   (a `WebAssembly.RuntimeError`, a stack overflow, or the panic hook having run), stores
//!   what failed and the command in flight ([`CRASH_KEY`]) and reloads the page once.
//! - On start, [`crash_record`] reads that record: the page shows a banner naming the
//!   failure and the command, and starts from the saved session. Once it is up,
//!   [`started`] removes the record. A trap while the record is still there (during the
//!   start after such a reload) does not reload again: the script sets the saved session
//!   aside, starts a fresh copy of the app in place and marks the record `gaveUp`, so the
//!   new start is a clean playground that says so.

use crate::i18n::Words;
use crate::storage;
use std::cell::Cell;
use wasm_bindgen::{JsCast, JsValue};

/// sessionStorage: the command in flight, as JSON `{"doing": …, "command": …}`.
pub const RUNNING_KEY: &str = "shardlab.running";

/// sessionStorage: the record of a crash, written by `index.html`'s script as JSON
/// `{"what", "detail", "running", "gaveUp", "again"}` and removed once the page is up again.
pub const CRASH_KEY: &str = "shardlab.crash";

/// sessionStorage: a random name for this tab, so that a marker left in localStorage can
/// tell a load that died in this tab from another tab's load in progress.
pub const TAB_KEY: &str = "shardlab.tab";

/// The console command that panics on purpose, for the end-to-end tests of the recovery.
pub const TEST_TRAP: &str = "sim.__trap()";

/// Records that the page is about to do something that might never return: `doing` says
/// what in words ("running", "restoring your saved session") and `command` is the command,
/// if there is one.
pub fn begin(doing: &str, command: Option<&str>) {
    let record = js_sys::Object::new();
    storage::set_field(&record, "doing", &JsValue::from_str(doing));
    if let Some(command) = command {
        storage::set_field(&record, "command", &JsValue::from_str(command));
    }
    if let Some(text) = storage::to_json_text(&record) {
        storage::session_set(RUNNING_KEY, &text);
    }
}

/// Records that what [`begin`] announced has returned.
pub fn end() {
    storage::session_remove(RUNNING_KEY);
}

/// What the page was doing when it died, as [`begin`] recorded it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Running {
    /// What in words, such as "running" or "opening the shared link".
    pub doing: String,
    /// The command, if there was one.
    pub command: Option<String>,
}

/// A crash the page reloaded after, as `index.html`'s script recorded it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrashRecord {
    /// What failed, in words ("an internal error", "a stack overflow").
    pub what: String,
    /// The browser's or the panic's own message.
    pub detail: Option<String>,
    /// What the page was doing, if it had recorded it.
    pub running: Option<Running>,
    /// Whether the start after the reload died too, so the script set the saved session
    /// aside and started a clean playground.
    pub gave_up: bool,
    /// What failed the second time, when [`CrashRecord::gave_up`].
    pub again: Option<String>,
}

/// The crash the page is recovering from, if it is.
pub fn crash_record() -> Option<CrashRecord> {
    let record = storage::parse_object(&storage::session_get(CRASH_KEY)?)?;
    let running = storage::string_field(&record, "running")
        .and_then(|text| storage::parse_object(&text))
        .map(|r| Running {
            doing: storage::string_field(&r, "doing").unwrap_or_else(|| "running".into()),
            command: storage::string_field(&r, "command"),
        });
    Some(CrashRecord {
        what: storage::string_field(&record, "what").unwrap_or_else(|| "an internal error".into()),
        detail: storage::string_field(&record, "detail"),
        running,
        gave_up: storage::bool_field(&record, "gaveUp"),
        again: storage::string_field(&record, "again"),
    })
}

/// The page is up: a later crash is a new one, which may reload the page again.
pub fn started() {
    storage::session_remove(CRASH_KEY);
}

/// This tab's name (see [`TAB_KEY`]), made up on first use.
pub fn tab_id() -> String {
    if let Some(id) = storage::session_get(TAB_KEY) {
        return id;
    }
    let id = format!("{:x}", (js_sys::Math::random() * 2f64.powi(48)) as u64);
    storage::session_set(TAB_KEY, &id);
    id
}

/// Installs the panic hook. It goes through Yew's `set_custom_panic_hook`: Yew's renderer
/// replaces a hook set with `std::panic::set_hook` by its own.
///
/// The hook tells `index.html`'s script (`window.shardlabPanicked`) what the panic said,
/// so that the banner after the reload can quote it; the abort that follows the hook is the
/// trap the script reloads on. Without the script (a page that does not carry it), the hook
/// puts up a static notice instead, since nothing else could.
pub fn install_panic_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        gloo::console::error!(format!("ShardLab panicked: {info}"));
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| info.to_string());
        let window = gloo::utils::window();
        let handler = js_sys::Reflect::get(&window, &JsValue::from_str("shardlabPanicked"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        match handler {
            Some(f) => {
                let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&message));
            }
            None => static_banner(&message),
        }
    }));
}

thread_local! {
    /// The words of the notice drawn after a panic: the page's, as the runtime last
    /// handed them over ([`speak`]). Once the page panicked, nothing else can be asked.
    static WORDS: Cell<Words> = const { Cell::new(Words::ENGLISH) };
}

/// The page speaks `w` now: a notice drawn after a panic is in them.
pub fn speak(w: Words) {
    WORDS.with(|c| c.set(w));
}

/// A notice drawn without Yew, for a page whose instance is about to die.
fn static_banner(message: &str) {
    let w = WORDS.with(Cell::get);
    let document = gloo::utils::document();
    if let Ok(banner) = document.create_element("div") {
        banner.set_class_name("crash-banner static");
        let _ = banner.set_attribute("role", "alert");
        banner.set_text_content(Some(&w.tf(
            crate::i18n::K::RecoveryStoppedBanner,
            &[("message", &message)],
        )));
        let _ = gloo::utils::body().append_child(&banner);
    }
}

/// The test-only trap: with `?selftest=trap` in the page address, running
/// [`TEST_TRAP`] (`sim.__trap()`) panics inside the app, as a bug would, so that the
/// end-to-end tests can check the recovery with a real dead instance. Without the
/// parameter the command goes to the shell like any other, which does not know it.
pub fn selftest(command: &str) {
    thread_local! {
        static ENABLED: bool = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .map(|search| crate::share::PageOptions::parse(&search).selftest.as_deref() == Some("trap"))
            .unwrap_or(false);
    }
    if command.trim() == TEST_TRAP && ENABLED.with(|on| *on) {
        panic!("{TEST_TRAP} ran with ?selftest=trap: a deliberate panic to test the recovery");
    }
}
