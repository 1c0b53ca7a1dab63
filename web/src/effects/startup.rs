//! How the page starts: from a shared link, a lesson named in the address, the saved
//! session, or a fresh playground; and how it starts again after a crash.
//!
//! Two rules hold throughout. Nothing the user had is lost: a link, a lesson or a fallback
//! playground starts a new session ([`crate::sessions`]) and never overwrites the user's,
//! which stays in "Recent sessions" and is offered back; and a session that cannot be
//! restored is marked set aside and offered for download rather than deleted. And nothing starts a loop: a stored session whose replay
//! never finished is not replayed again, and after a crash the page restores the saved
//! session instead of reopening a link that may have caused it.
//!
//! These are decisions about storage and the address; the sessions themselves are the
//! engine's. A decision gives an [`Opening`]: what the engine opens, and, for a replay,
//! how to conclude it ([`conclude`]) once the page's driver has replayed it a slice at a
//! time.

use crate::i18n::{Words, K};
pub use crate::opening::{Kept, Opening, Source};
use crate::recovery::{self, CrashRecord};
use crate::sessions;
use crate::share::{download_url, query_without_link, PageOptions, LOADING_KEY};
use crate::state::{Notice, Offer};
use crate::storage;
use shardlab_protocol::Start;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A marker in [`LOADING_KEY`] older than this (in milliseconds) was left by a load that
/// died, even in another tab: a replay stops after 30 seconds ([`Budget::REPLAY`]).
const STALE_MARKER_MS: f64 = 60_000.0;

/// How much replaying a stored or shared scenario may spend before it stops: a hostile or
/// runaway scenario must not hold the page's session for ever.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// The most commands replayed.
    pub commands: usize,
    /// The most time spent, in milliseconds.
    pub millis: f64,
}

impl Budget {
    /// Every replay's budget: 20,000 commands or 30 seconds. The engine replays in its
    /// worker a slice at a time, so the page answers throughout; the time only caps how
    /// long the user waits.
    pub const REPLAY: Budget = Budget {
        commands: 20_000,
        millis: 30_000.0,
    };
}

/// Where a replay stopped because it ran out of [`Budget`].
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// The commands replayed before the stop.
    pub replayed: usize,
    /// The commands the scenario holds.
    pub total: usize,
    /// Whether the time ran out (else the number of commands did).
    pub timed_out: bool,
}

impl Cut {
    /// Why and where the replay stopped, as a sentence about `what` ("Your saved session").
    pub fn describe(&self, w: Words, what: &str, budget: &Budget) -> String {
        let why = if self.timed_out {
            w.tf(
                K::StartupReplayingItTookLongerThan,
                &[("n", &(budget.millis / 1000.0))],
            )
        } else {
            w.tf(
                K::StartupItHasMoreThanCommands,
                &[("commands", &budget.commands)],
            )
        };
        w.tf(
            K::StartupWhatStoppedReplayingAtStep,
            &[
                ("what", &what),
                ("n", &(self.replayed + 1)),
                ("total", &self.total),
                ("why", &why),
                ("replayed", &self.replayed),
            ],
        )
    }
}

/// What the page starts with.
pub struct Boot {
    /// What the engine opens first.
    pub opening: Opening,
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

/// What the page starts with.
pub fn boot(w: Words, options: &PageOptions) -> Boot {
    match recovery::crash_record() {
        Some(crash) => after_crash(w, options, crash),
        None => {
            let (opening, hold) = first_start(w, options);
            Boot {
                opening,
                banner: None,
                hold,
                recovering: false,
            }
        }
    }
}

/// How a replay ended: over, cut by the budget, or cancelled by the user.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// Every command replayed.
    Over,
    /// The budget ran out.
    Cut(Cut),
    /// The user cancelled it after `replayed` of `total` commands.
    Cancelled {
        /// Commands replayed.
        replayed: usize,
        /// Commands in the scenario.
        total: usize,
    },
}

/// The notice a replay from `source` ends with, and what it stores: a cancel keeps the
/// steps replayed so far and offers the whole scenario (`json`, its JSON form) for
/// download; a saved session cut short or cancelled is also set aside whole.
pub fn conclude(w: Words, source: &Source, ending: &Ending, json: &str) -> Option<Notice> {
    match source {
        Source::Link { kept, .. } => {
            let cut = unfinished(
                w,
                ending,
                w.t(K::StartupDoingOpeningIt),
                w.t(K::StartupWhatThisLinksScenario),
            );
            let mut notice = opened_notice(w, w.t(K::StartupYouOpenedASharedScenario), cut, *kept);
            if matches!(ending, Ending::Cancelled { .. }) {
                if let Some(notice) = &mut notice {
                    notice.offer = Some(download_or_return(json, *kept));
                }
            }
            notice
        }
        Source::Import { json } => {
            let why = unfinished(
                w,
                ending,
                w.t(K::StartupDoingImportingTheScenario),
                w.t(K::StartupWhatTheImportedScenario),
            )?;
            Some(Notice {
                words: None,
                text: why,
                offer: Some(download_offer(json)),
            })
        }
        Source::Session { text } => {
            storage::remove(LOADING_KEY);
            let why = unfinished(
                w,
                ending,
                w.t(K::StartupDoingRestoringYourSavedSession),
                w.t(K::StartupWhatYourSavedSession),
            )?;
            Some(set_aside_whole(w, &why, text))
        }
        Source::Restart {
            cancelled,
            text,
            why,
        } => Some(restarted(w, ending, *cancelled, text, why)),
        Source::Return { text } => {
            clear_link_from_address();
            let why = unfinished(
                w,
                ending,
                w.t(K::StartupDoingReturningToYourSession),
                w.t(K::StartupWhatYourSession),
            )?;
            Some(set_aside_whole(w, &why, text))
        }
    }
}

/// Why a replay did not finish, in words: its cancel, said of what was being done
/// (`doing`, "Opening it"), or its cut, said of what was replayed (`what`, "This link's
/// scenario"); `None` when it finished.
fn unfinished(w: Words, ending: &Ending, doing: &str, what: &str) -> Option<String> {
    match ending {
        Ending::Cancelled { replayed, total } => Some(w.tf(
            K::StartupWhatWasCancelledAtStep,
            &[
                ("what", &doing),
                ("n", &(replayed + 1)),
                ("total", &total),
                ("replayed", &replayed),
            ],
        )),
        Ending::Cut(cut) => Some(cut.describe(w, what, &Budget::REPLAY)),
        Ending::Over => None,
    }
}

/// A stored session that did not finish replaying (`why`) is set aside whole: the notice
/// says so and offers its scenario (`text`) for download.
fn set_aside_whole(w: Words, why: &str, text: &str) -> Notice {
    sessions::set_aside(why);
    Notice {
        words: None,
        text: w.tf(K::StartupWhyWholeSessionSetAside, &[("why", &why)]),
        offer: Some(download_offer(text)),
    }
}

/// The notice after the page's session (`text`) was replayed into a new engine, the old
/// one stopped by the user's Cancel (`cancelled`) or else by `why`: a cancelled replay
/// offers the session for download.
fn restarted(w: Words, ending: &Ending, cancelled: bool, text: &str, why: &str) -> Notice {
    let (doing, what, over) = if cancelled {
        (
            w.t(K::StartupDoingCancelledRestoring).to_string(),
            w.t(K::StartupWhatCancelledTheSession).to_string(),
            w.t(K::StartupCancelledTheSessionIsAs).to_string(),
        )
    } else {
        (
            w.tf(K::StartupDoingRestartedRestoring, &[("why", &why)]),
            w.tf(K::StartupWhatRestartedYourSession, &[("why", &why)]),
            w.tf(K::StartupTheEngineStoppedAndStarted, &[("why", &why)]),
        )
    };
    Notice {
        words: None,
        text: unfinished(w, ending, &doing, &what).unwrap_or(over),
        offer: matches!(ending, Ending::Cancelled { .. }).then(|| download_offer(text)),
    }
}

/// The replay of an imported scenario file, recorded as the command in flight until it is
/// over.
pub fn import(text: &str) -> Opening {
    recovery::begin("importing a scenario file", None);
    Opening::replay(
        text.to_string(),
        Source::Import {
            json: text.to_string(),
        },
    )
}

/// The offer after a link's replay was cancelled: its scenario for download, and the way
/// back to the user's own session if it was kept.
fn download_or_return(json: &str, kept: Kept) -> Offer {
    let href = Rc::from(download_url("application/json", json));
    match kept {
        Kept::Previous => Offer::DownloadOrReturn(href),
        Kept::Nothing => Offer::Download(href),
    }
}

/// A shared link, else a lesson named in the address, else the saved session, else a fresh
/// playground; says whether the saved session must be held (see [`Boot::hold`]). Embedded
/// views never read or write the saved session.
fn first_start(w: Words, options: &PageOptions) -> (Opening, bool) {
    if let Some(s) = &options.scenario {
        return open_link(s, options.embed);
    }
    if let Some(id) = &options.preset {
        return open_preset(w, id, options.embed);
    }
    if options.embed {
        return (Opening::fresh(), false);
    }
    (start_restore(w), false)
}

/// Opens a shared link (`?s=`), keeping the user's session first. The engine checks it:
/// a link it cannot read gives a fresh playground instead (see [`refused`]).
fn open_link(s: &str, embed: bool) -> (Opening, bool) {
    let kept = if embed { Kept::Nothing } else { keep_session() };
    recovery::begin("opening the shared link", None);
    let opening = Opening::replay(s.to_string(), Source::Link { kept, embed });
    (opening, false)
}

/// Opens the scenario a workshop scene shows: its lesson, or its link form replayed as a
/// link is (a link the engine cannot read gives a fresh playground, see [`refused`]).
pub fn scene(shows: &crate::scenes::Shows, embed: bool) -> Opening {
    match shows {
        crate::scenes::Shows::Lesson(id) => Opening {
            start: Start::Lesson { id: id.clone() },
            notice: None,
            source: None,
        },
        crate::scenes::Shows::Link(text) => {
            recovery::begin("opening the scene's scenario", None);
            Opening::replay(
                text.clone(),
                Source::Link {
                    kept: Kept::Nothing,
                    embed,
                },
            )
        }
    }
}

/// Opens a lesson named in the address (`?preset=`), keeping the user's session first.
/// The engine knows the lessons: one it does not know gives a fresh playground instead.
fn open_preset(w: Words, id: &str, embed: bool) -> (Opening, bool) {
    recovery::begin("opening the lesson", Some(id));
    let kept = if embed { Kept::Nothing } else { keep_session() };
    let opening = Opening {
        start: Start::Lesson { id: id.to_string() },
        notice: opened_notice(w, w.t(K::StartupYouOpenedTheLessonLesson), None, kept),
        source: None,
    };
    (opening, false)
}

/// What to open when the engine refused an opening (a link it cannot read, a lesson it
/// does not know): a fresh playground, a session of its own; the user's saved session is
/// left untouched and offered back.
pub fn refused(w: Words, problem: &str, embed: bool) -> Opening {
    let kept = if !embed && sessions::returnable().is_some() {
        Kept::Previous
    } else {
        Kept::Nothing
    };
    let untouched = if kept == Kept::Nothing {
        ""
    } else {
        w.t(K::StartupYourSavedSessionIsUntouched)
    };
    Opening::fresh_with(Notice {
        words: None,
        text: w.tf(
            K::StartupProblemHereIsAFresh,
            &[("problem", &problem), ("untouched", &untouched)],
        ),
        offer: (kept == Kept::Previous).then_some(Offer::ReturnToSession),
    })
}

/// The notice after opening a link or a lesson: where its replay stopped, if it did, and
/// the way back to the user's own session, if one was kept.
fn opened_notice(w: Words, opened: &str, cut: Option<String>, kept: Kept) -> Option<Notice> {
    let cut = cut.unwrap_or_default();
    let (kept, offer) = match kept {
        Kept::Nothing => return (!cut.is_empty()).then(|| Notice::plain(cut)),
        Kept::Previous => (
            w.t(K::StartupYourOwnSessionIsKept),
            Some(Offer::ReturnToSession),
        ),
    };
    Some(Notice {
        words: None,
        text: format!("{opened} {kept} {cut}").trim_end().to_string(),
        offer,
    })
}

/// Before a link or a lesson replaces this tab's session: it starts a new session, and
/// the user's stays stored. Says whether there is a session of the user's to return to.
fn keep_session() -> Kept {
    if sessions::start_new() {
        Kept::Previous
    } else {
        Kept::Nothing
    }
}

/// Starts restoring the saved session: its replay, with the marker in [`LOADING_KEY`] set
/// until it is over. A session whose last replay never finished (the marker is still
/// there) is set aside without replaying it; one the engine cannot read is set aside when
/// it says so (see [`unreadable`]).
fn start_restore(w: Words) -> Opening {
    let Some(text) = sessions::saved() else {
        return Opening::fresh();
    };
    if previous_load_died() {
        storage::remove(LOADING_KEY);
        return set_aside(&text, w.t(K::StartupRestoringStoppedThePage));
    }
    mark_loading();
    recovery::begin("restoring your saved session", None);
    Opening::replay(text.clone(), Source::Session { text })
}

/// What to open when the engine could not read the scenario of a replay from `source`
/// (`error` is why): the saved session and a returned one are set aside for download;
/// a link or an import gives a fresh playground with a notice.
pub fn unreadable(w: Words, source: &Source, error: &str) -> Opening {
    match source {
        Source::Session { text } => {
            storage::remove(LOADING_KEY);
            set_aside(
                text,
                &w.tf(K::StartupYourSavedSessionCouldNot, &[("error", &error)]),
            )
        }
        Source::Return { text } => set_aside(
            text,
            &w.tf(K::StartupYourEarlierSessionCouldNot, &[("error", &error)]),
        ),
        Source::Link { embed, .. } => refused(
            w,
            &w.tf(K::StartupThisLinkCouldNotBe, &[("error", &error)]),
            *embed,
        ),
        Source::Import { .. } => Opening::fresh_with(Notice::plain(
            w.tf(K::StartupTheFileCouldNotBe, &[("error", &error)]),
        )),
        Source::Restart { why, .. } => Opening::fresh_with(Notice::plain(w.tf(
            K::StartupTheEngineStoppedAndYour,
            &[("why", why), ("error", &error)],
        ))),
    }
}

/// Marks this tab's session set aside (it stays in "Recent sessions") and gives a fresh
/// playground, a new session, whose notice says `message` and offers the session for
/// download.
fn set_aside(text: &str, message: &str) -> Opening {
    sessions::set_aside(message);
    Opening::fresh_with(Notice {
        words: None,
        text: message.to_string(),
        offer: Some(download_offer(text)),
    })
}

/// The download of a set-aside session: its scenario JSON, as the share bar exports it.
fn download_offer(text: &str) -> Offer {
    Offer::Download(Rc::from(download_url("application/json", text)))
}

/// Whether a replay of the saved session started and never finished: the marker is this
/// tab's, or too old to be another tab's load in progress.
fn previous_load_died() -> bool {
    let Some(marker) = storage::get_object(LOADING_KEY) else {
        return storage::get(LOADING_KEY).is_some();
    };
    if storage::string_field(&marker, "id").is_some_and(|id| id != sessions::current()) {
        return false;
    }
    let ours = storage::string_field(&marker, "tab").as_deref() == Some(&recovery::tab_id());
    let age = js_sys::Date::now() - storage::number_field(&marker, "at").unwrap_or(0.0);
    ours || !(0.0..STALE_MARKER_MS).contains(&age)
}

/// Sets the marker that the saved session is replaying.
fn mark_loading() {
    let marker = js_sys::Object::new();
    storage::set_field(&marker, "tab", &JsValue::from_str(&recovery::tab_id()));
    storage::set_field(&marker, "at", &JsValue::from_f64(js_sys::Date::now()));
    storage::set_field(&marker, "id", &JsValue::from_str(&sessions::current()));
    storage::set_json(LOADING_KEY, &marker);
}

/// The start after a crash. The page restores the saved session (saved before the command
/// that died) rather than reopening a link or a lesson in the address, which may be what
/// died; an embedded view, which saves nothing, starts its scenario over. When the script
/// in `index.html` gave up (the start after the reload died too), it is a clean playground.
fn after_crash(w: Words, options: &PageOptions, crash: CrashRecord) -> Boot {
    let embed = options.embed;
    if !embed && (options.scenario.is_some() || options.preset.is_some()) {
        clear_link_from_address();
    }
    let (opening, outcome) = if crash.gave_up {
        let again = crash
            .again
            .as_deref()
            .unwrap_or_else(|| w.t(K::StartupItFailedAgain));
        let said = if embed {
            K::StartupStartingAgainClean
        } else {
            K::StartupStartingAgainSetAside
        };
        (given_up(w, embed), w.tf(said, &[("again", &again)]))
    } else if embed {
        (
            first_start(w, options).0,
            w.t(K::StartupThePageReloadedAndStarted).to_string(),
        )
    } else {
        let restored = sessions::saved().is_some();
        let opening = start_restore(w);
        let outcome = match (&opening.source, restored) {
            (Some(_), _) => w.t(K::StartupThePageReloadedWithYour),
            (None, true) => w.t(K::StartupYourSavedSessionWasSet),
            (None, false) => w.t(K::StartupThePageReloadedWithA),
        };
        (opening, outcome.to_string())
    };
    let running = crash.running.clone();
    Boot {
        opening,
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
fn given_up(w: Words, embed: bool) -> Opening {
    if embed || sessions::saved().is_none() {
        return Opening::fresh();
    }
    match sessions::set_aside(w.t(K::StartupRestoringStoppedThePageTwice)) {
        Some(text) => Opening::fresh_with(Notice {
            words: None,
            text: w.t(K::StartupSavedSessionSetAsideOffer).to_string(),
            offer: Some(download_offer(&text)),
        }),
        None => Opening::fresh(),
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
    let fragment = location.hash().unwrap_or_default();
    let linked = fragment
        .trim_start_matches('#')
        .split('&')
        .any(|p| p.starts_with("s="));
    if query == search && !linked {
        return;
    }
    // Without the fragment when it held the link; any other fragment stays.
    let query = if linked {
        query
    } else {
        format!("{query}{fragment}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}")));
    }
}

/// The page's session replayed into a new engine, from its last saved link form, after
/// the old one stopped (`cancelled`: by the user's Cancel; `why`: what stopped it).
pub fn restart(text: String, cancelled: bool, why: String) -> Opening {
    Opening::replay(
        text.clone(),
        Source::Restart {
            text,
            cancelled,
            why,
        },
    )
}

/// "Return to your session": the session a link or a lesson replaced, to replay, or why
/// it cannot be.
pub async fn return_to_session(w: Words) -> Result<Opening, String> {
    let missing = || w.t(K::StartupEarlierSessionNoLongerStored).to_string();
    let id = sessions::returnable().ok_or_else(missing)?;
    let text = sessions::read_text(&id).await.ok_or_else(missing)?;
    sessions::switch_to(&id);
    recovery::begin("returning to your session", None);
    Ok(Opening::replay(text.clone(), Source::Return { text }))
}

/// A replay opened again from its scenario's JSON form (`json`), in a new engine, after
/// Cancel stopped the old one under it; it ends as its `source` says.
pub fn again(json: String, source: Source) -> Opening {
    Opening::replay(json, source)
}

/// A session chosen in "Recent sessions", to replay in this tab.
pub fn reopen(id: &str, text: String) -> Opening {
    sessions::switch_to(id);
    mark_loading();
    recovery::begin("restoring your saved session", None);
    Opening::replay(text.clone(), Source::Session { text })
}
