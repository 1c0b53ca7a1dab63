//! How the page starts: from a shared link, a lesson named in the address, the saved
//! session, or a fresh playground; and how it starts again after a crash.
//!
//! Two rules hold throughout. Nothing the user had is lost: a link or a lesson never
//! overwrites the user's saved session without keeping it under
//! [`PREVIOUS_KEY`] first, and a session that cannot be
//! restored is set aside under [`FAILED_KEY`] and offered for
//! download rather than deleted. And nothing starts a loop: a stored session whose replay
//! never finished is not replayed again, and after a crash the page restores the saved
//! session instead of reopening a link that may have caused it.

use crate::recovery::{self, CrashRecord};
use crate::share::{
    data_url, playground_from_scenario, query_without_link, restore_saved, saved_form, PageOptions,
    Replayed, FAILED_KEY, LINKED_KEY, LOADING_KEY, PREVIOUS_KEY, STORAGE_KEY,
};
use crate::state::{Budget, Notice, Offer, Playground};
use crate::storage;
use shardlab::sim::{from_json, from_query};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A marker in [`LOADING_KEY`] older than this (in milliseconds) was left by a load that
/// died, even in another tab: a replay stops after 5 seconds.
const STALE_MARKER_MS: f64 = 15_000.0;

/// What the page starts with.
pub struct Boot {
    /// The playground, with its notice if the start has something to say.
    pub state: Playground,
    /// The banner after a crash.
    pub banner: Option<Banner>,
    /// Whether the saved session must stay as it is until the user changes something: a
    /// link or a lesson that could not be opened gave a fresh playground instead.
    pub hold: bool,
    /// Whether the page is starting again after a crash (nothing plays on its own then).
    pub recovering: bool,
}

/// The banner that says the page died and how it came back.
#[derive(Clone, Debug, PartialEq)]
pub struct Banner {
    /// What failed, in words.
    pub what: String,
    /// The browser's or the panic's message.
    pub detail: Option<String>,
    /// What the page was doing ("running", "opening the shared link"), if recorded.
    pub doing: Option<String>,
    /// The command in flight, if there was one.
    pub command: Option<String>,
    /// How the page came back.
    pub outcome: String,
}

/// The state the page starts in.
pub fn boot(options: &PageOptions) -> Boot {
    match recovery::crash_record() {
        Some(crash) => after_crash(options, crash),
        None => {
            let (state, hold) = first_start(options);
            Boot {
                state,
                banner: None,
                hold,
                recovering: false,
            }
        }
    }
}

/// A shared link, else a lesson named in the address, else the saved session, else a fresh
/// playground; says whether the saved session must be held (see [`Boot::hold`]). A link
/// that cannot be read gives a notice and a clean playground; nothing in it is ever
/// executed but shell commands. Embedded views never read or write the saved session.
fn first_start(options: &PageOptions) -> (Playground, bool) {
    if let Some(s) = &options.scenario {
        return open_link(s, options.embed);
    }
    if let Some(id) = &options.preset {
        return open_preset(id, options.embed);
    }
    if options.embed {
        return (Playground::default(), false);
    }
    (restore_session().0, false)
}

/// Opens a shared link (`?s=`), keeping the user's session first.
fn open_link(s: &str, embed: bool) -> (Playground, bool) {
    let scenario = match from_query(s) {
        Ok(scenario) => scenario,
        Err(e) => return fresh_instead(&format!("This link could not be opened ({e})."), embed),
    };
    let kept = if embed {
        Kept::Nothing
    } else {
        keep_session(|saved| from_json(saved).ok().as_ref() == Some(&scenario))
    };
    recovery::begin("opening the shared link", None);
    let Replayed { mut state, cut } = playground_from_scenario(&scenario);
    let cut = cut.map(|c| c.describe("This link's scenario", &Budget::REPLAY));
    state.notice = opened_notice("You opened a shared scenario.", cut, kept);
    if !embed {
        storage::set_string(LINKED_KEY, &saved_form(&state));
    }
    (state, kept == Kept::Unsaved)
}

/// Opens a lesson named in the address (`?preset=`), keeping the user's session first.
fn open_preset(id: &str, embed: bool) -> (Playground, bool) {
    let Some(preset) = shardlab::workload::presets::preset(id) else {
        return fresh_instead(&format!("There is no lesson called '{id}'."), embed);
    };
    recovery::begin("opening the lesson", Some(id));
    let mut state = Playground::from_preset(preset);
    let opened = saved_form(&state);
    let kept = if embed {
        Kept::Nothing
    } else {
        keep_session(|saved| saved == opened)
    };
    let text = format!("You opened the lesson '{}'.", preset.title);
    state.notice = opened_notice(&text, None, kept);
    if !embed {
        storage::set_string(LINKED_KEY, &opened);
    }
    (state, kept == Kept::Unsaved)
}

/// A fresh playground in place of a link or lesson that could not be opened. The saved
/// session is left untouched (held until the user changes something) and offered back.
fn fresh_instead(problem: &str, embed: bool) -> (Playground, bool) {
    let kept = if embed {
        Kept::Nothing
    } else {
        keep_session(|_| false)
    };
    let untouched = if kept == Kept::Nothing {
        ""
    } else {
        "; your saved session is untouched"
    };
    let state = fresh_with(Notice {
        text: format!("{problem} Here is a fresh playground instead{untouched}."),
        offer: (kept == Kept::Previous).then_some(Offer::ReturnToSession),
    });
    (state, !embed)
}

/// The notice after opening a link or a lesson: where its replay stopped, if it did, and
/// the way back to the user's own session, if one was kept.
fn opened_notice(opened: &str, cut: Option<String>, kept: Kept) -> Option<Notice> {
    let cut = cut.unwrap_or_default();
    let (kept, offer) = match kept {
        Kept::Nothing => return (!cut.is_empty()).then(|| Notice::plain(cut)),
        Kept::Previous => ("Your own session is kept.", Some(Offer::ReturnToSession)),
        Kept::Unsaved => (
            "Your own session stays saved until you change something here: the browser's \
             storage is too full to keep a copy.",
            None,
        ),
    };
    Some(Notice {
        text: format!("{opened} {kept} {cut}").trim_end().to_string(),
        offer,
    })
}

/// Before a link or a lesson replaces the saved session: copies the user's session to
/// [`PREVIOUS_KEY`], unless it is the scenario being opened, a fresh playground, or a link
/// opened earlier and left untouched (then [`PREVIOUS_KEY`] still holds the user's own
/// session). Says whether there is a session to return to.
fn keep_session(same_as_opened: impl Fn(&str) -> bool) -> Kept {
    let Some(saved) = storage::get_string(STORAGE_KEY) else {
        return Kept::Nothing;
    };
    if same_as_opened(&saved) {
        return Kept::Nothing;
    }
    let untouched_link = storage::get_string(LINKED_KEY).as_deref() == Some(saved.as_str());
    if untouched_link || saved == saved_form(&Playground::default()) {
        return match storage::get(PREVIOUS_KEY) {
            Some(_) => Kept::Previous,
            None => Kept::Nothing,
        };
    }
    if storage::try_set_string(PREVIOUS_KEY, &saved) {
        Kept::Previous
    } else {
        Kept::Unsaved
    }
}

/// Whether the user's session was kept before a link or a lesson replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kept {
    /// There was no work of the user's to keep.
    Nothing,
    /// It is under [`PREVIOUS_KEY`].
    Previous,
    /// The copy could not be stored (the store is full): the saved session must not be
    /// overwritten until the user changes something, as for a link that could not be opened.
    Unsaved,
}

/// How restoring the saved session went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Restore {
    /// There was none.
    Nothing,
    /// All of it replayed.
    Whole,
    /// The replay ran out of budget; the whole session was set aside.
    Part,
    /// It could not be restored and was set aside.
    SetAside,
}

/// Restores the saved session. A session whose last replay never finished (the marker in
/// [`LOADING_KEY`] is still there) is set aside without replaying it, as is one that
/// cannot be read; one that runs past the replay budget keeps the steps before the stop
/// and is set aside whole.
fn restore_session() -> (Playground, Restore) {
    let Some(text) = storage::get_string(STORAGE_KEY) else {
        return (Playground::default(), Restore::Nothing);
    };
    if previous_load_died() {
        storage::remove(LOADING_KEY);
        let message = "Restoring your saved session stopped the page last time, so it was set \
                       aside and this is a fresh playground.";
        return (set_aside(&text, message), Restore::SetAside);
    }
    mark_loading();
    recovery::begin("restoring your saved session", None);
    let result = restore_saved(&text);
    storage::remove(LOADING_KEY);
    match result {
        Ok(Replayed { state, cut: None }) => (state, Restore::Whole),
        Ok(Replayed {
            mut state,
            cut: Some(cut),
        }) => {
            storage::set_string(FAILED_KEY, &text);
            state.notice = Some(Notice {
                text: format!(
                    "{} The whole session was set aside.",
                    cut.describe("Your saved session", &Budget::REPLAY)
                ),
                offer: Some(download_offer(&text)),
            });
            (state, Restore::Part)
        }
        Err(e) => {
            let message =
                format!("Your saved session could not be restored ({e}), so it was set aside. Starting fresh.");
            (set_aside(&text, &message), Restore::SetAside)
        }
    }
}

/// Moves the saved session to [`FAILED_KEY`] and gives a fresh playground whose notice
/// says `message` and offers the session for download. If the copy cannot be stored (the
/// store is full), the session stays where it is, so that it is not lost.
fn set_aside(text: &str, message: &str) -> Playground {
    if storage::try_set_string(FAILED_KEY, text) {
        storage::remove(STORAGE_KEY);
    }
    fresh_with(Notice {
        text: message.to_string(),
        offer: Some(download_offer(text)),
    })
}

/// A fresh playground with a notice.
fn fresh_with(notice: Notice) -> Playground {
    Playground {
        notice: Some(notice),
        ..Playground::default()
    }
}

/// The download of a set-aside session: its scenario JSON, as the share bar exports it.
fn download_offer(text: &str) -> Offer {
    Offer::Download(Rc::from(data_url("application/json", text)))
}

/// Whether a replay of the saved session started and never finished: the marker is this
/// tab's, or too old to be another tab's load in progress.
fn previous_load_died() -> bool {
    let Some(marker) = storage::get_object(LOADING_KEY) else {
        return storage::get(LOADING_KEY).is_some();
    };
    let ours = storage::string_field(&marker, "tab").as_deref() == Some(&recovery::tab_id());
    let age = js_sys::Date::now() - storage::number_field(&marker, "at").unwrap_or(0.0);
    ours || !(0.0..STALE_MARKER_MS).contains(&age)
}

/// Sets the marker that the saved session is replaying.
fn mark_loading() {
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(&recovery::tab_id()));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now()));
    storage::set_json(LOADING_KEY, &marker);
}

/// The start after a crash. The page restores the saved session (saved before the command
/// that died) rather than reopening a link or a lesson in the address, which may be what
/// died; an embedded view, which saves nothing, starts its scenario over. When the script
/// in `index.html` gave up (the start after the reload died too), it is a clean playground.
fn after_crash(options: &PageOptions, crash: CrashRecord) -> Boot {
    let embed = options.embed;
    if !embed && (options.scenario.is_some() || options.preset.is_some()) {
        clear_link_from_address();
    }
    let (state, outcome) = if crash.gave_up {
        let again = crash.again.as_deref().unwrap_or("it failed again");
        (
            given_up(embed),
            format!(
                "Starting again after the reload failed too ({again}), so {}this is a clean playground.",
                if embed { "" } else { "your saved session was set aside and " }
            ),
        )
    } else if embed {
        let (state, _) = first_start(options);
        (
            state,
            "The page reloaded and started this scenario over.".to_string(),
        )
    } else {
        let (state, restore) = restore_session();
        let outcome = match restore {
            Restore::Whole => "The page reloaded with your saved session as it was before that.",
            Restore::Part => "The page reloaded with part of your saved session (see below).",
            Restore::SetAside => "Your saved session was set aside (see below).",
            Restore::Nothing => "The page reloaded with a fresh playground.",
        };
        (state, outcome.to_string())
    };
    let running = crash.running.clone();
    Boot {
        state,
        banner: Some(Banner {
            what: crash.what,
            detail: crash.detail,
            doing: running.as_ref().map(|r| r.doing.clone()),
            command: running.and_then(|r| r.command),
            outcome,
        }),
        hold: false,
        recovering: true,
    }
}

/// The clean playground after the script gave up, offering the session it set aside.
fn given_up(embed: bool) -> Playground {
    match storage::get_string(FAILED_KEY).filter(|_| !embed) {
        Some(text) => fresh_with(Notice {
            text: "Your saved session was set aside. It can be downloaded as a scenario file."
                .to_string(),
            offer: Some(download_offer(&text)),
        }),
        None => Playground::default(),
    }
}

/// Takes `s` and `preset` out of the page address, so that a reload keeps the session the
/// page holds instead of opening the link or the lesson again.
pub fn clear_link_from_address() {
    let window = gloo::utils::window();
    let location = window.location();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    let query = query_without_link(&location.search().unwrap_or_default());
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}")));
    }
}

/// "Return to your session": the session kept under [`PREVIOUS_KEY`], replayed, with the
/// link or lesson taken out of the address. A replay cut short sets the whole session aside
/// for download, as on start.
pub fn return_to_session() -> Result<Playground, String> {
    let text = storage::get_string(PREVIOUS_KEY)
        .ok_or_else(|| "Your earlier session is no longer stored.".to_string())?;
    recovery::begin("returning to your session", None);
    let Replayed { mut state, cut } = restore_saved(&text)?;
    if let Some(cut) = cut {
        storage::set_string(FAILED_KEY, &text);
        state.notice = Some(Notice {
            text: format!(
                "{} The whole session was set aside.",
                cut.describe("Your session", &Budget::REPLAY)
            ),
            offer: Some(download_offer(&text)),
        });
    }
    storage::remove(PREVIOUS_KEY);
    storage::remove(LINKED_KEY);
    clear_link_from_address();
    Ok(state)
}
