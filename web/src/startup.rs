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
    data_url, query_without_link, restore_saved, saved_form, PageOptions, Replayed, FAILED_KEY,
    LINKED_KEY, LOADING_KEY, PREVIOUS_KEY, STORAGE_KEY,
};
use crate::state::{Budget, Notice, Offer, Playground, Replay};
use crate::storage;
use shardlab::sim::{from_json, from_query, to_json, Scenario};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A marker in [`LOADING_KEY`] older than this (in milliseconds) was left by a load that
/// died, even in another tab: a replay stops after 30 seconds ([`Budget::SLICED`]).
const STALE_MARKER_MS: f64 = 60_000.0;

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
    /// The replay the page runs a slice at a time after it starts (a shared link, the
    /// saved session); `state` is its first picture until it is over.
    pub replay: Option<Pending>,
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

/// The state the page starts in, with any replay run to its end at once (see
/// [`boot_sliced`] for the page's own start).
pub fn boot(options: &PageOptions) -> Boot {
    let mut boot = boot_sliced(options);
    if let Some(pending) = boot.replay.take() {
        boot.state = pending.run_to_end();
    }
    boot
}

/// The state the page starts in. A shared link or the saved session is not replayed yet:
/// [`Boot::replay`] holds its replay, for the page to run a slice at a time.
pub fn boot_sliced(options: &PageOptions) -> Boot {
    match recovery::crash_record() {
        Some(crash) => after_crash(options, crash),
        None => {
            let (state, hold, replay) = first_start(options);
            Boot {
                state,
                banner: None,
                hold,
                recovering: false,
                replay,
            }
        }
    }
}

/// A replay the page runs a slice at a time after it starts, and what to do when it is
/// over or cancelled. While it runs, the crash-recovery record names it and, for the saved
/// session, the marker in [`LOADING_KEY`] stays set, so that a replay that kills the page
/// is not run again.
pub struct Pending {
    replay: Replay,
    source: Source,
}

/// Where a pending replay comes from.
enum Source {
    /// A shared link: what became of the user's session, whether the view is embedded,
    /// and the scenario's JSON, offered for download after a cancel.
    Link {
        kept: Kept,
        embed: bool,
        json: String,
    },
    /// The saved session, as stored.
    Session { text: String },
    /// A scenario file the user imported, as read.
    Import { json: String },
}

impl Pending {
    /// The most work in one slice, in milliseconds: half a frame, so that the browser can
    /// draw and answer input between slices.
    pub const SLICE_MS: f64 = 8.0;

    /// Replays one slice; says whether the replay is over.
    pub fn advance(&mut self) -> bool {
        self.replay.advance(Self::SLICE_MS)
    }

    /// The commands replayed so far.
    pub fn replayed(&self) -> usize {
        self.replay.replayed()
    }

    /// The playground as replayed so far, with the progress bar's figures.
    pub fn snapshot(&self) -> Playground {
        self.replay.snapshot(match self.source {
            Source::Link { .. } => "Replaying the shared scenario",
            Source::Session { .. } => "Restoring your saved session",
            Source::Import { .. } => "Replaying the imported scenario",
        })
    }

    /// Replays what is left in one go and gives the playground it ends with.
    pub fn run_to_end(mut self) -> Playground {
        while !self.advance() {}
        self.finish(false)
    }

    /// The playground the replay ends with, over or `cancelled`, with its notice.
    pub fn finish(self, cancelled: bool) -> Playground {
        self.conclude(cancelled).0
    }

    /// [`Pending::finish`], saying how a saved session's restore went. A cancel keeps the
    /// steps replayed so far and offers the whole scenario for download; a cancelled
    /// saved session is also set aside whole, as one cut by the budget is.
    fn conclude(self, cancelled: bool) -> (Playground, Restore) {
        let replayed = self.replay.replayed();
        let stopped = cancelled.then(|| {
            format!(
                "was cancelled at step {} of {}. The playground holds the {replayed} steps before it.",
                replayed + 1,
                self.replay.total()
            )
        });
        let budget = self.replay.budget().clone();
        let (mut state, cut) = self.replay.finish();
        match self.source {
            Source::Link { kept, embed, json } => {
                let cut = match stopped {
                    Some(stopped) => Some(format!("Opening it {stopped}")),
                    None => cut.map(|c| c.describe("This link's scenario", &budget)),
                };
                state.notice = opened_notice("You opened a shared scenario.", cut, kept);
                if cancelled {
                    if let Some(notice) = &mut state.notice {
                        notice.offer = Some(download_or_return(&json, kept));
                    }
                }
                if !embed {
                    storage::set_string(LINKED_KEY, &saved_form(&state));
                }
                (state, Restore::Whole)
            }
            Source::Import { json } => {
                let why = match (stopped, cut) {
                    (Some(stopped), _) => format!("Importing the scenario {stopped}"),
                    (None, Some(cut)) => cut.describe("The imported scenario", &budget),
                    (None, None) => return (state, Restore::Whole),
                };
                state.notice = Some(Notice {
                    text: why,
                    offer: Some(download_offer(&json)),
                });
                (state, Restore::Whole)
            }
            Source::Session { text } => {
                storage::remove(LOADING_KEY);
                let why = match (stopped, cut) {
                    (Some(stopped), _) => format!("Restoring your saved session {stopped}"),
                    (None, Some(cut)) => cut.describe("Your saved session", &budget),
                    (None, None) => return (state, Restore::Whole),
                };
                storage::set_string(FAILED_KEY, &text);
                state.notice = Some(Notice {
                    text: format!("{why} The whole session was set aside."),
                    offer: Some(download_offer(&text)),
                });
                (state, Restore::Part)
            }
        }
    }
}

/// The replay of an imported scenario file, to run a slice at a time, recorded as the
/// command in flight until it is over; or why the file cannot be opened.
pub fn import(text: &str) -> Result<Pending, String> {
    let scenario = from_json(text).map_err(|e| e.to_string())?;
    recovery::begin("importing a scenario file", None);
    let source = Source::Import {
        json: text.to_string(),
    };
    Ok(pending(&scenario, source, &Budget::SLICED))
}

/// The offer after a link's replay was cancelled: its scenario for download, and the way
/// back to the user's own session if it was kept.
fn download_or_return(json: &str, kept: Kept) -> Offer {
    let href = Rc::from(data_url("application/json", json));
    match kept {
        Kept::Previous => Offer::DownloadOrReturn(href),
        Kept::Nothing | Kept::Unsaved => Offer::Download(href),
    }
}

/// A shared link, else a lesson named in the address, else the saved session, else a fresh
/// playground; says whether the saved session must be held (see [`Boot::hold`]). A link
/// that cannot be read gives a notice and a clean playground; nothing in it is ever
/// executed but shell commands. Embedded views never read or write the saved session.
fn first_start(options: &PageOptions) -> (Playground, bool, Option<Pending>) {
    if let Some(s) = &options.scenario {
        return open_link(s, options.embed);
    }
    if let Some(id) = &options.preset {
        let (state, hold) = open_preset(id, options.embed);
        return (state, hold, None);
    }
    if options.embed {
        return (Playground::default(), false, None);
    }
    match start_restore(&Budget::SLICED) {
        Ok(pending) => (pending.snapshot(), false, Some(pending)),
        Err(done) => (done.0, false, None),
    }
}

/// Opens a shared link (`?s=`), keeping the user's session first. Its replay is pending:
/// the page runs it a slice at a time, recorded as the command in flight until it is over.
fn open_link(s: &str, embed: bool) -> (Playground, bool, Option<Pending>) {
    let scenario = match from_query(s) {
        Ok(scenario) => scenario,
        Err(e) => {
            let (state, hold) =
                fresh_instead(&format!("This link could not be opened ({e})."), embed);
            return (state, hold, None);
        }
    };
    let kept = if embed {
        Kept::Nothing
    } else {
        keep_session(|saved| from_json(saved).ok().as_ref() == Some(&scenario))
    };
    recovery::begin("opening the shared link", None);
    let json = to_json(&scenario);
    let pending = pending(
        &scenario,
        Source::Link { kept, embed, json },
        &Budget::SLICED,
    );
    (pending.snapshot(), kept == Kept::Unsaved, Some(pending))
}

/// The pending replay of a scenario within `budget`.
fn pending(scenario: &Scenario, source: Source, budget: &Budget) -> Pending {
    Pending {
        replay: Replay::new(
            scenario.config(),
            scenario.commands.clone(),
            scenario.applied() as u64,
            budget.clone(),
        )
        .with_page(scenario.page.clone()),
        source,
    }
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

/// Restores the saved session in one go (the start after a crash), within
/// [`Budget::REPLAY`]; see [`start_restore`].
fn restore_session() -> (Playground, Restore) {
    match start_restore(&Budget::REPLAY) {
        Ok(pending) => {
            let mut pending = pending;
            while !pending.advance() {}
            pending.conclude(false)
        }
        Err(done) => *done,
    }
}

/// Starts restoring the saved session within `budget`: its pending replay, with the
/// marker in [`LOADING_KEY`] set until it is over. A session whose last replay never
/// finished (the marker is still there) is set aside without replaying it, as is one that
/// cannot be read; one that runs past the budget keeps the steps before the stop and is
/// set aside whole (see [`Pending::finish`]). Without a replay to run, the playground to
/// start with and how the restore went.
fn start_restore(budget: &Budget) -> Result<Pending, Box<(Playground, Restore)>> {
    let Some(text) = storage::get_string(STORAGE_KEY) else {
        return Err(Box::new((Playground::default(), Restore::Nothing)));
    };
    if previous_load_died() {
        storage::remove(LOADING_KEY);
        let message = "Restoring your saved session stopped the page last time, so it was set \
                       aside and this is a fresh playground.";
        return Err(Box::new((set_aside(&text, message), Restore::SetAside)));
    }
    match from_json(&text) {
        Ok(scenario) => {
            mark_loading();
            recovery::begin("restoring your saved session", None);
            Ok(pending(&scenario, Source::Session { text }, budget))
        }
        Err(e) => {
            let message = format!(
                "Your saved session could not be restored ({e}), so it was set aside. Starting fresh."
            );
            Err(Box::new((set_aside(&text, &message), Restore::SetAside)))
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
        let (state, _, pending) = first_start(options);
        let state = pending.map_or(state, Pending::run_to_end);
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
        replay: None,
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
    let search = location.search().unwrap_or_default();
    let query = query_without_link(&search);
    if query == search {
        return;
    }
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
