//! The page: lesson and cluster controls on top, the key-space bar and the shards in the
//! middle, the timeline, console and insights below.

use super::cluster_view::ClusterPanel;
use super::compare_view::CompareView;
use super::console::Console;
use super::controls::Controls;
use super::guide::Guide;
use super::insights::Insights;
use super::key_bar::KeyBar;
use super::notice::{CrashBanner, NoticeBar, ReplayBar};
use super::query_box::QueryBox;
use super::share_bar::{base_url, ShareBar};
use super::tabs::{Mode, Tabs};
use super::timeline_panel::TimelinePanel;
use super::workload_panel::WorkloadPanel;
use super::workshop::use_workshop;
use crate::extras::ExtrasSlot;
use crate::recovery;
use crate::share::{saved_form, share_query, PageOptions, STORAGE_KEY};
use crate::startup::{self, Banner, Boot, Pending};
use crate::state::{Action, Calm, Notice, Playground};
use crate::storage;
use gloo::timers::callback::{Interval, Timeout};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

/// The start, worked out once (see [`startup::boot`]): the reducer takes the playground
/// and the page keeps the rest.
struct Started {
    state: RefCell<Option<Playground>>,
    banner: Option<Banner>,
    hold: bool,
    recovering: bool,
    /// The replay the page runs a slice at a time, until it is over or cancelled.
    replay: Rc<RefCell<Option<Pending>>>,
}

impl From<Boot> for Started {
    fn from(boot: Boot) -> Self {
        Started {
            state: RefCell::new(Some(boot.state)),
            banner: boot.banner,
            hold: boot.hold,
            recovering: boot.recovering,
            replay: Rc::new(RefCell::new(boot.replay)),
        }
    }
}

/// What the page shows above its panels, in the full page and the embedded view alike.
#[derive(Clone)]
struct Messages {
    banner: UseStateHandle<Option<Banner>>,
    notice: Option<Notice>,
    progress: Option<crate::state::Progress>,
    waiting: usize,
    dispatch: Callback<Action>,
    on_return: Callback<()>,
    on_cancel: Callback<()>,
}

impl Messages {
    fn view(&self) -> Html {
        let banner = self.banner.clone();
        html! {
            <>
            if let Some(b) = &*self.banner {
                <CrashBanner banner={b.clone()} on_dismiss={Callback::from(move |()| banner.set(None))} />
            }
            if let Some(progress) = &self.progress {
                <ReplayBar progress={progress.clone()} waiting={self.waiting} on_cancel={self.on_cancel.clone()} />
            }
            if let Some(notice) = &self.notice {
                <NoticeBar notice={notice.clone()} on_return={self.on_return.clone()}
                    on_dismiss={self.dispatch.reform(|()| Action::Notice(None))} />
            }
            </>
        }
    }
}

/// The root component.
#[function_component(App)]
pub fn app() -> Html {
    let options = use_memo((), |_| {
        PageOptions::parse(
            &gloo::utils::window()
                .location()
                .search()
                .unwrap_or_default(),
        )
    });
    let started = {
        let options = options.clone();
        use_memo((), move |_| Started::from(startup::boot_sliced(&options)))
    };
    let state = {
        let started = started.clone();
        use_reducer(move || started.state.borrow_mut().take().unwrap_or_default())
    };
    let banner = use_state(|| started.banner.clone());
    let targeted = use_state(Vec::<String>::new);
    let mode = state.mode;
    // Whether the comparison tab was ever opened (it is mounted from then on).
    let compare_opened = use_mut_ref(|| false);
    if mode == Mode::Compare {
        *compare_opened.borrow_mut() = true;
    }
    let (workshop, toggle_workshop) = use_workshop();
    // Callbacks that stay the same from render to render, so that memoised components
    // whose props hold them can skip rendering.
    let on_target = {
        let set = targeted.setter();
        use_callback((), move |s: Vec<String>, _| set.set(s))
    };
    let dispatch: Callback<Action> = state.dispatcher().into();
    let published = state.page_value("compare").map(str::to_string);
    let on_compare = {
        let dispatch = dispatch.clone();
        use_callback(published.clone(), move |text: String, published| {
            if published.as_deref() != Some(text.as_str()) {
                dispatch.emit(Action::Page("compare", Some(text)));
            }
        })
    };
    let on_extras = {
        let dispatch = dispatch.clone();
        use_callback((), move |(kind, text): (String, String), _| {
            if let Some(action) = extras_action(&kind, &text) {
                dispatch.emit(action);
            }
        })
    };
    // What the inspector and the heatmap draw: the session (replayed on the extras
    // module's side, a step at a time once it has it), the collection shown and the
    // inspector's subject. Made again only when those panels would redraw.
    let insight_input = {
        let state = (*state).clone();
        // While a replay runs, the panels keep what they show: the copy would follow every
        // picture of it.
        let settled = state.replaying.is_none();
        let last = use_mut_ref(|| Rc::<str>::from(""));
        let input = use_memo(
            (
                settled.then(|| state.calm_rev(Calm::Insights)),
                state.settings.ns.clone(),
                state.inspecting().cloned(),
            ),
            move |(rev, ns, subject)| {
                if rev.is_none() && !last.borrow().is_empty() {
                    return last.borrow().clone();
                }
                let input = extras_input(&[
                    ("scenario", JsValue::from_str(&saved_form(&state))),
                    ("ns", JsValue::from_str(ns)),
                    (
                        "inspect",
                        subject
                            .as_ref()
                            .map_or(JsValue::NULL, |s| JsValue::from_str(&s.to_text())),
                    ),
                ]);
                *last.borrow_mut() = input.clone();
                input
            },
        );
        input
    };
    let replays = use_replay(&started.replay, &dispatch);
    let messages = Messages {
        banner,
        notice: state.notice.clone(),
        progress: state.replaying.clone(),
        waiting: state.waiting.len(),
        dispatch: dispatch.clone(),
        on_return: use_return_to_session(&dispatch),
        on_cancel: replays.cancel.clone(),
    };

    use_ticks(&state);
    use_panel_visibility(&state);
    use_saving(&state, options.embed, started.hold);
    use_started(state.replaying.is_none());
    use_unknown_options(&state, &options.unknown);
    // Nothing plays on its own after a crash (it could be what died) or in place of a link
    // that could not be opened.
    use_autoplay(
        &state,
        options.autoplay && !started.recovering && !started.hold,
    );

    if options.embed {
        return embed_view(&state, &dispatch, &options, &messages);
    }
    use_playground_keys(&state, mode);

    html! {
        <div class={classes!("page", workshop.then_some("workshop"))}>
            <header class="masthead">
                <h1>{ "ShardLab" }</h1>
                <p class="tagline">{ "Watch a MongoDB shard key decide where your documents go." }</p>
                <ShareBar state={(*state).clone()} dispatch={dispatch.clone()} on_replay={replays.start.clone()} />
            </header>
            <Tabs mode={mode} on_select={dispatch.reform(Action::SetMode)}
                workshop={workshop} on_workshop={toggle_workshop} />
            { messages.view() }
            // Once opened, the comparison stays mounted (hidden on other tabs) so that its
            // columns and progress survive a visit to the playground.
            if *compare_opened.borrow() {
                <div hidden={mode != Mode::Compare}>
                    <CompareView visible={mode == Mode::Compare} published={published.clone()} on_publish={on_compare} />
                </div>
            }
            if mode != Mode::Compare {
            if mode == Mode::Guide {
                <Guide state={(*state).clone()} dispatch={dispatch.clone()}
                    on_close={dispatch.reform(|()| Action::SetMode(Mode::Playground))} />
            }
            <Controls state={(*state).clone()} dispatch={dispatch.clone()} />
            <WorkloadPanel state={(*state).clone()} dispatch={dispatch.clone()} />
            <KeyBar view={state.view.clone()} mark={landing_mark(&state)} dispatch={dispatch.clone()} />
            <QueryBox state={(*state).clone()} on_target={on_target} />
            <ClusterPanel state={(*state).clone()} dispatch={dispatch.clone()} targeted={(*targeted).clone()} />
            <ExtrasSlot part="inspector" input={(*insight_input).clone()} on_message={on_extras.clone()} deferred={true} />
            <div class="lower">
                <TimelinePanel state={(*state).clone()} dispatch={dispatch.clone()} />
                <Console lines={state.console.clone()} history={state.history.clone()} dispatch={dispatch.clone()} />
            </div>
            <Insights state={(*state).clone()} />
            <ExtrasSlot part="heatmap" input={(*insight_input).clone()} on_message={on_extras} deferred={true} />
            }
        </div>
    }
}

/// One line of text for an extras part: a JSON object of `fields`.
fn extras_input(fields: &[(&str, JsValue)]) -> Rc<str> {
    let object = js_sys::Object::new();
    for (name, value) in fields {
        storage::set_field(&object, name, value);
    }
    Rc::from(storage::to_json_text(&object).unwrap_or_default())
}

/// The action an extras part asks for: a jump to a step, a command (the insert form's),
/// or a subject for the inspector (none closes it). Anything else is dropped.
fn extras_action(kind: &str, text: &str) -> Option<Action> {
    match kind {
        "jump" => text.parse().ok().map(Action::Jump),
        "command" => Some(Action::Command(text.to_string())),
        "inspect" if text.is_empty() => Some(Action::Inspect(None)),
        "inspect" => crate::state::Inspect::from_text(text).map(|i| Action::Inspect(Some(i))),
        _ => None,
    }
}

/// Where the document the step at the cursor inserted sits on the key-space bar.
fn landing_mark(state: &Playground) -> Option<f64> {
    let (seq, key) = state.landed()?;
    shardlab_engine::view_model::bar_position(&state.view, &key, seq)
}

/// While playing, a timer runs one workload batch per tick (drawn on every tick, or every
/// second one when fast: `DRAW_EVERY_TICK_UP_TO`). Each tick is a small slice of work, so
/// the page stays responsive however long the workload is.
#[hook]
fn use_ticks(state: &UseReducerHandle<Playground>) {
    let state = state.clone();
    use_effect_with(
        (state.playing || state.passing, state.speed),
        move |(playing, speed)| {
            let interval = playing.then(|| {
                let state = state.clone();
                Interval::new(1000 / (*speed).max(1), move || state.dispatch(Action::Tick))
            });
            move || drop(interval)
        },
    );
}

/// The panels under the cluster are skipped by the browser while out of sight
/// (`content-visibility: auto` in the stylesheet); it says when that changes, and a hidden
/// panel is not redrawn while a workload plays.
#[hook]
fn use_panel_visibility(state: &UseReducerHandle<Playground>) {
    let state = state.clone();
    use_effect_with((), move |_| {
        let options = gloo::events::EventListenerOptions {
            phase: gloo::events::EventListenerPhase::Capture,
            passive: true,
        };
        // The event does not bubble: it is caught on its way down.
        let listener = gloo::events::EventListener::new_with_options(
            &gloo::utils::document(),
            "contentvisibilityautostatechange",
            options,
            move |e| {
                let Some(el) = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                else {
                    return;
                };
                let classes = el.class_name();
                let panel = if classes.split(' ').any(|c| c == "lower") {
                    Calm::Timeline
                } else if classes.split(' ').any(|c| c == "insights") {
                    Calm::Insights
                } else {
                    return;
                };
                let skipped = js_sys::Reflect::get(e, &"skipped".into())
                    .ok()
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false);
                state.dispatch(Action::Hidden(panel, skipped));
            },
        );
        move || drop(listener)
    });
}

/// The session survives a reload: it is saved after each change (every 25th change while
/// playing, to keep ticks cheap). Embedded views never overwrite it, nor does a fresh
/// playground in place of a link that could not be opened (`hold`) until the user changes
/// something.
///
/// This runs once a change is drawn, so the session is only saved after a command has
/// returned: a command that kills the page leaves the session from before it. Then the
/// record of the command in flight is cleared (see [`crate::recovery`]).
///
/// Nothing is saved while a replay runs: the saved session stays the one being restored
/// (or the user's, under a link) until the replay is over, and the record of the replay in
/// flight stays until its last picture is drawn.
#[hook]
fn use_saving(state: &UseReducerHandle<Playground>, embed: bool, hold: bool) {
    let state = state.clone();
    use_effect_with(state.rev, move |rev| {
        if state.replaying.is_none() {
            let held = hold && *rev == 0;
            if !embed && !held && (!state.playing || rev % 25 == 0) {
                storage::set_string(STORAGE_KEY, &saved_form(&state));
                // Once the user changes what a link or lesson opened (or what the address
                // held when they copied a link), a reload shows their session as saved,
                // lesson, workload and tab included, not the link again.
                if *rev > 0 {
                    startup::clear_link_from_address();
                }
            }
            recovery::end();
        }
        || ()
    });
}

/// Once the page is up, a notice names the options of its address it does not know, so
/// that a typo in an embed or a link does not go unnoticed.
#[hook]
fn use_unknown_options(state: &UseReducerHandle<Playground>, unknown: &[String]) {
    let state = state.clone();
    let unknown = unknown.to_vec();
    let told = use_mut_ref(|| false);
    use_effect_with(state.replaying.is_none(), move |up| {
        if *up && !unknown.is_empty() && !*told.borrow() {
            *told.borrow_mut() = true;
            let names: Vec<String> = unknown.iter().map(|n| format!("'{n}'")).collect();
            let text = format!(
                "The address has options ShardLab does not know, which were ignored: {}.",
                names.join(", ")
            );
            let notice = match &state.notice {
                Some(n) => Notice {
                    text: format!("{} {text}", n.text),
                    offer: n.offer.clone(),
                },
                None => Notice::plain(text),
            };
            state.dispatch(Action::Notice(Some(notice)));
        }
        || ()
    });
}

/// "Return to your session": the session a link or a lesson replaced, restored (see
/// [`startup::return_to_session`]).
#[hook]
fn use_return_to_session(dispatch: &Callback<Action>) -> Callback<()> {
    let dispatch = dispatch.clone();
    use_callback((), move |(), _| {
        dispatch.emit(match startup::return_to_session() {
            Ok(restored) => Action::Restore(Box::new(restored)),
            Err(e) => Action::Notice(Some(Notice::plain(e))),
        })
    })
}

/// Once the page is up (its first picture drawn, and its replay over), a crash it
/// recovered from is over: a later one may reload the page again (see
/// [`crate::recovery`]). Until then, a crash does not reload the page a second time.
#[hook]
fn use_started(up: bool) {
    use_effect_with(up, |up| {
        if *up {
            recovery::started();
        }
    });
}

/// A replay draws at most this often (in milliseconds) while it runs.
const DRAW_EVERY_MS: f64 = 100.0;

/// When a replay under way last drew its picture and what drawing it cost: the time from
/// handing the picture over to the next slice, which covers the render and the browser's
/// paint. The next picture waits at least three times that long, so that drawing takes at
/// most a third of the replay's time however costly the panels are.
#[derive(Clone, Copy)]
struct Pace {
    drawn_at: f64,
    cost: f64,
    drew: bool,
}

impl Pace {
    /// The pace of a replay whose first picture is being drawn now.
    fn start() -> Self {
        Pace {
            drawn_at: now_ms(),
            cost: 0.0,
            drew: true,
        }
    }

    /// Whether the next picture is due.
    fn due(&self, now: f64) -> bool {
        now - self.drawn_at >= DRAW_EVERY_MS.max(3.0 * self.cost)
    }
}

/// The callbacks that start and cancel a replay (see [`use_replay`]).
struct Replays {
    /// Starts the replay of an imported scenario, unless one is running.
    start: Callback<Pending>,
    /// Ends the replay under way with the steps replayed so far.
    cancel: Callback<()>,
}

/// Runs the page's pending replay (see [`startup::Pending`]) a slice at a time, yielding to
/// the browser between slices, so that the page draws and answers input throughout: the
/// start's replay at once, an import's when it comes.
#[hook]
fn use_replay(replay: &Rc<RefCell<Option<Pending>>>, dispatch: &Callback<Action>) -> Replays {
    {
        let replay = replay.clone();
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            if replay.borrow().is_some() {
                next_slice(replay, dispatch, Pace::start());
            }
        });
    }
    let start = {
        let replay = replay.clone();
        let dispatch = dispatch.clone();
        use_callback((), move |pending: Pending, _| {
            if replay.borrow().is_some() {
                return;
            }
            dispatch.emit(Action::Replayed(Box::new(pending.snapshot())));
            *replay.borrow_mut() = Some(pending);
            next_slice(replay.clone(), dispatch.clone(), Pace::start());
        })
    };
    let cancel = {
        let replay = replay.clone();
        let dispatch = dispatch.clone();
        use_callback((), move |(), _| {
            let cancelled = replay.borrow_mut().take();
            if let Some(pending) = cancelled {
                dispatch.emit(Action::Replayed(Box::new(pending.finish(true))));
            }
        })
    };
    Replays { start, cancel }
}

/// Schedules the next slice of the replay, unless it was cancelled in the meantime.
fn next_slice(replay: Rc<RefCell<Option<Pending>>>, dispatch: Callback<Action>, pace: Pace) {
    after_yielding(move || {
        let mut pace = pace;
        if pace.drew {
            pace.cost = now_ms() - pace.drawn_at;
            pace.drew = false;
        }
        let over = match replay.borrow_mut().as_mut() {
            Some(pending) => pending.advance(),
            None => return,
        };
        if over {
            let finished = replay.borrow_mut().take();
            if let Some(pending) = finished {
                dispatch.emit(Action::Replayed(Box::new(pending.finish(false))));
            }
            return;
        }
        let now = now_ms();
        if pace.due(now) {
            let picture = replay.borrow().as_ref().map(Pending::snapshot);
            if let Some(picture) = picture {
                dispatch.emit(Action::Replayed(Box::new(picture)));
            }
            pace.drawn_at = now;
            pace.drew = true;
        }
        next_slice(replay, dispatch, pace);
    });
}

/// Runs `f` in a task of its own, once the browser has had its turn: drawing, input. A
/// message on a fresh channel is used rather than a zero timeout, which browsers delay by
/// 4 ms once timeouts nest (half a slice lost each time), and rather than an animation
/// frame, which a tab out of sight never gets. Without channels, a timeout it is.
fn after_yielding(f: impl FnOnce() + 'static) {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        Timeout::new(0, f).forget();
        return;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    channel
        .port1()
        .set_onmessage(Some(callback.unchecked_ref()));
    if channel
        .port2()
        .post_message(&wasm_bindgen::JsValue::NULL)
        .is_err()
    {
        // The message never leaves: run the slice from a timeout instead. The callback
        // is taken off the port first, so that it runs once.
        channel.port1().set_onmessage(None);
        let callback: js_sys::Function = callback.unchecked_into();
        Timeout::new(0, move || {
            let _ = callback.call0(&wasm_bindgen::JsValue::NULL);
        })
        .forget();
    }
}

/// The time in milliseconds from the page's clock (`performance.now`).
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// `autoplay=1` starts the workload once the page is up and its replay is over.
#[hook]
fn use_autoplay(state: &UseReducerHandle<Playground>, autoplay: bool) {
    let state = state.clone();
    use_effect_with(state.replaying.is_none(), move |up| {
        if autoplay && *up {
            state.dispatch(Action::Play);
        }
        || ()
    });
}

/// Keyboard shortcuts, ignored while typing: space plays or pauses, the arrows step. The
/// comparison has its own transport and listens for these keys itself.
#[hook]
fn use_playground_keys(state: &UseReducerHandle<Playground>, mode: Mode) {
    let state = state.clone();
    use_effect_with((state.playing, mode), move |(playing, mode)| {
        let playing = *playing;
        let compare = *mode == Mode::Compare;
        let listener = crate::shortcuts::listen(move |key| {
            if compare {
                return false;
            }
            let action = match key {
                " " => {
                    if playing {
                        Action::Pause
                    } else {
                        Action::Play
                    }
                }
                "ArrowRight" => Action::Step,
                "ArrowLeft" => Action::StepBack,
                _ => return false,
            };
            state.dispatch(action);
            true
        });
        move || drop(listener)
    });
}

/// The compact view for an iframe: the transport, the key-space bar, the cluster and the
/// console (unless hidden), with a link that opens the same scenario in the full page.
fn embed_view(
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    options: &PageOptions,
    messages: &Messages,
) -> Html {
    let open = format!("{}?{}", base_url(), share_query(state));
    let title = state
        .preset
        .map(|p| p.title.to_string())
        .unwrap_or_else(|| format!("{} on {}", state.settings.ns, state.view.key));
    html! {
        <div class="page embed" data-testid="embed">
            <header class="embed-head">
                <strong class="embed-title">{ title }</strong>
                <a class="open-link" href={open} target="_blank" rel="noopener" data-testid="open-in-shardlab">{ "Open in ShardLab ↗" }</a>
            </header>
            { messages.view() }
            if let Some(p) = state.preset {
                <p class="lesson-text compact">{ p.lesson }</p>
            }
            <WorkloadPanel state={(**state).clone()} dispatch={dispatch.clone()} />
            <KeyBar view={state.view.clone()} />
            <ClusterPanel state={(**state).clone()} dispatch={dispatch.clone()} targeted={Vec::<String>::new()} />
            if !options.hides("console") {
                <Console lines={state.console.clone()} history={state.history.clone()} dispatch={dispatch.clone()} />
            }
        </div>
    }
}
