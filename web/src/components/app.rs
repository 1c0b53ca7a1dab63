//! The page: the stage on the first screen (the lesson and the transport, the key-space
//! bar and the shards, with the scenario's and the workload's forms folded away), then the
//! inspector, the timeline, console and insights below.

use super::candidates::CandidatesProps;
use super::cluster_view::ClusterPanel;
use super::compare_view::CompareViewProps;
use super::console::Console;
use super::controls::Controls;
use super::guide::GuideProps;
use super::heatmap::HeatmapProps;
use super::insights::InsightsProps;
use super::inspector::InspectorProps;
use super::key_bar::KeyBar;
use super::lang_switch::LangSwitch;
use super::lazy::{self, Lazy};
use super::notice::{CrashBanner, NoticeBar, ReplayBar};
use super::panel_props::{self, use_calm};
use super::query_box::QueryBox;
use super::recent::RecentSessions;
use super::scenes_panel::{SceneBar, ScenesProps};
use super::share_bar::ShareBar;
use super::shortcuts_help::ShortcutsHelp;
use super::tabs::{Mode, Tabs};
use super::timeline_panel::{TimelinePanel, TimelineProps};
use super::workload_panel::{CommandBar, WorkloadFields, WorkloadPanel, WorkloadPanelProps};
use super::workshop::{use_setup, use_workshop};
use crate::driver::Driver;
use crate::i18n::Lang;
use crate::i18n::{Words, K};
use crate::language;
use crate::options::PageOptions;
use crate::queries::Asker;
use crate::start;
use crate::startup::{self, Banner};
use crate::state::{Action, Calm, FirstScreen, Notice, Playground};
use gloo::timers::callback::Interval;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How the page started (see [`startup::boot`]), once the saved sessions are read.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Started {
    hold: bool,
    recovering: bool,
}

/// What the page shows above its panels, in the full page and the embedded view alike.
#[derive(Clone)]
struct Messages {
    banner: UseStateHandle<Option<Banner>>,
    notice: Option<Notice>,
    /// The room left for the session's saved form, while it is short.
    room: Option<Notice>,
    progress: Option<crate::state::Progress>,
    waiting: usize,
    dispatch: Callback<Action>,
    on_return: Callback<()>,
    on_cancel: Callback<()>,
    /// What the page says while the engine waits for the network to load.
    engine: Option<K>,
    /// The page's words.
    words: Words,
}

impl Messages {
    fn view(&self) -> Html {
        let banner = self.banner.clone();
        html! {
            <>
            if let Some(b) = &*self.banner {
                <CrashBanner banner={b.clone()} on_dismiss={Callback::from(move |()| banner.set(None))} />
            }
            if let Some(key) = self.engine {
                <p class="notice waiting" role="status" data-testid="engine-status">{ self.words.t(key) }</p>
            }
            if let Some(progress) = &self.progress {
                <ReplayBar progress={progress.clone()} waiting={self.waiting} on_cancel={self.on_cancel.clone()} />
            }
            if let Some(room) = &self.room {
                <NoticeBar notice={room.clone()} on_return={self.on_return.clone()}
                    on_dismiss={self.dispatch.reform(|()| Action::Room(None))} />
            }
            if let Some(notice) = &self.notice {
                <NoticeBar notice={notice.clone()} on_return={self.on_return.clone()}
                    on_dismiss={self.dispatch.reform(|()| Action::Notice(None))} />
            }
            </>
        }
    }
}

/// What the page starts from.
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// The build's pre-rendered first screen, on a first visit: the page starts from its
    /// picture, so that its first render is the HTML it hydrates (see [`FirstScreen`]).
    #[prop_or_default]
    pub first: Option<Rc<FirstScreen>>,
}

/// The root component.
#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let options = use_page_options();
    let state = {
        let first = props.first.clone();
        use_reducer(move || {
            first.map_or_else(Playground::default, |f| Playground::first_screen(&f))
        })
    };
    use_hydrated(props.first.is_some());
    let started = use_state(|| None::<Started>);
    let banner = use_state(|| None::<Banner>);
    let driver = use_driver(&state, &options, (started.setter(), banner.setter()));
    let (w, on_lang) = (state.words, use_language(&driver));
    let mode = state.mode;
    let compare_opened = use_compare_opened(mode);
    let (workshop, toggle_workshop) = use_workshop();
    let (setup, toggle_setup) = use_setup();
    let dispatch = use_dispatch(&driver);
    let published = state.page_value("compare").map(str::to_string);
    let on_compare = use_compare_publish(&dispatch, published.clone());
    let (on_cancel, on_import) = use_replay_callbacks(&driver);
    let offline = use_offline(state.ready);
    use_prefetch(state.ready);
    let messages = use_messages(&state, banner, &dispatch, &driver, on_cancel);
    use_page_effects(&state, &dispatch, &driver, &options, *started);
    let (timeline, insights) = use_calm_panels(&state, &dispatch);

    if options.embed {
        return provide(
            w,
            embed_view(w, &state, &dispatch, &options, &messages, &timeline),
        );
    }
    use_playground_keys(&state, &dispatch, mode);

    let view = FullView {
        workshop,
        toggle_workshop,
        setup,
        on_setup: toggle_setup,
        compare_opened,
        published,
        on_compare,
        on_import,
        on_reopen: reopen_callback(&driver),
        timeline,
        insights,
        offline,
        lang: w.lang(),
        on_lang,
    };
    provide(w, view.html(w, &state, &dispatch, &messages))
}

/// Once the page hydrated the pre-rendered first screen, what was clicked or typed in it
/// before is done again, now that the page listens (see [`start::hydrated`]).
#[hook]
fn use_hydrated(hydrating: bool) {
    use_effect_with((), move |_| {
        if hydrating {
            start::hydrated();
        }
    });
}

/// The page's options, read from its address once.
#[hook]
fn use_page_options() -> Rc<PageOptions> {
    use_memo((), |_| start::page_options())
}

/// Whether the comparison tab was ever opened (it is mounted from then on), counting the
/// tab shown now (`mode`).
#[hook]
fn use_compare_opened(mode: Mode) -> bool {
    let opened = use_mut_ref(|| false);
    if mode == Mode::Compare {
        *opened.borrow_mut() = true;
    }
    let ever = *opened.borrow();
    ever
}

/// The callback components emit actions to: the driver's, made once.
#[hook]
fn use_dispatch(driver: &Driver) -> Callback<Action> {
    use_memo((), {
        let driver = driver.clone();
        move |_| driver.callback()
    })
    .as_ref()
    .clone()
}

/// What the page shows above its panels (see [`Messages`]): the crash banner, the
/// engine's status, the replay's progress and the notices.
#[hook]
fn use_messages(
    state: &UseReducerHandle<Playground>,
    banner: UseStateHandle<Option<Banner>>,
    dispatch: &Callback<Action>,
    driver: &Driver,
    on_cancel: Callback<()>,
) -> Messages {
    Messages {
        engine: use_engine_status(),
        words: state.words,
        banner,
        notice: state.notice.clone(),
        room: state.room.clone(),
        progress: state.replaying.clone(),
        waiting: state.waiting.len(),
        dispatch: dispatch.clone(),
        on_return: use_return_to_session(driver),
        on_cancel,
    }
}

/// What runs beside the page's drawing, in the full page and the embedded view alike: the
/// timer, the panels' visibility, the saving, the start's end, the address's options and
/// links, the host page, and autoplay.
#[hook]
fn use_page_effects(
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    driver: &Driver,
    options: &Rc<PageOptions>,
    started: Option<Started>,
) {
    use_ticks(state, dispatch);
    use_panel_visibility(dispatch);
    use_saving(state, driver, options.embed);
    use_draining(state, driver);
    use_started(state.replaying.is_none() && state.ready);
    use_unknown_options(state, dispatch, &options.unknown);
    use_fragment_links(options.embed);
    use_host(options, state, dispatch, driver);
    // Nothing plays on its own after a crash (it could be what died) or in place of a link
    // that could not be opened.
    use_autoplay(
        state,
        dispatch,
        options.autoplay && started.is_some_and(|s| !s.recovering && !s.hold),
    );
}

/// Opens a session from "Recent sessions" in this tab.
fn reopen_callback(driver: &Driver) -> Callback<(String, String)> {
    let driver = driver.clone();
    Callback::from(move |(id, text): (String, String)| {
        driver.open(startup::reopen(&id, text), false)
    })
}

/// The page in the words `w`: every component that reads them redraws when they change.
fn provide(w: Words, body: Html) -> Html {
    html! { <ContextProvider<Words> context={w}>{ body }</ContextProvider<Words>> }
}

/// The header's switch of the page's language (see [`language`]), which remembers the
/// choice. The language is the model's (`Playground::words`): chosen at the start (by
/// [`use_driver`], before the session opens), then here, and taken once its words are in.
#[hook]
fn use_language(driver: &Driver) -> Callback<Lang> {
    let driver = driver.clone();
    let switch = use_memo((), |_| language::Switch::default());
    use_callback((), move |wanted: Lang, _| {
        language::remember(wanted);
        let driver = driver.clone();
        let (from, known) = (driver.words(), driver.catalogue(wanted));
        language::switch(&switch, from, known, wanted, move |words| {
            driver.handle(Action::Language(words))
        });
    })
}

/// What the full page draws beside the state: the workshop switch, the Compare tab's
/// link state and the callbacks its parts share.
struct FullView {
    workshop: bool,
    toggle_workshop: Callback<()>,
    /// Whether the setup (the scenario's and the workload's forms) is unfolded.
    setup: bool,
    on_setup: Callback<()>,
    compare_opened: bool,
    published: Option<String>,
    on_compare: Callback<String>,
    on_import: Callback<startup::Opening>,
    on_reopen: Callback<(String, String)>,
    /// The calm panels' properties (see [`use_calm`]).
    timeline: Rc<TimelineProps>,
    insights: Rc<InsightsProps>,
    /// The bytes kept for offline use, once everything is kept.
    offline: Option<f64>,
    /// The page's language, and its switch.
    lang: Lang,
    on_lang: Callback<Lang>,
}

impl FullView {
    /// The full page: the masthead, the tabs, the notices, and the tab's panels.
    fn html(
        &self,
        w: Words,
        state: &UseReducerHandle<Playground>,
        dispatch: &Callback<Action>,
        messages: &Messages,
    ) -> Html {
        let mode = state.mode;
        html! {
            <div class={classes!("page", self.workshop.then_some("workshop"))}
                data-scene-hide={super::scenes_panel::hidden_panels(state)}>
                { self.masthead(w, state, dispatch) }
                <Tabs mode={mode} on_select={dispatch.reform(Action::SetMode)}
                    workshop={self.workshop} on_workshop={self.toggle_workshop.clone()} />
                // The notices and a running demo's scene bar: rows of the page, or in
                // workshop mode one stack floating at the window's foot (see the stylesheet).
                <div class="messages">
                    { messages.view() }
                    if mode != Mode::Compare {
                        <SceneBar ..panel_props::scenes(state, dispatch) />
                    }
                </div>
                // Once opened, the comparison stays mounted (hidden on other tabs) so that its
                // columns and progress survive a visit to the playground.
                if self.compare_opened {
                    <div hidden={mode != Mode::Compare}>
                        <Lazy<CompareViewProps> part={&lazy::COMPARE} props={Rc::new(yew::props!(CompareViewProps {
                            visible: mode == Mode::Compare, published: self.published.clone(),
                            on_publish: self.on_compare.clone(), sample: state.compare_sample.clone() }))} />
                    </div>
                }
                { self.playground(state, dispatch) }
            </div>
        }
    }

    /// The masthead: the title, whether the page works offline, the share bar, the recent
    /// sessions, the shortcuts and the language switch.
    fn masthead(
        &self,
        w: Words,
        state: &UseReducerHandle<Playground>,
        dispatch: &Callback<Action>,
    ) -> Html {
        html! {
            <header class="masthead">
                <h1>{ "ShardLab" }</h1>
                <p class="tagline">{ w.t(K::AppWatchAMongodbShardKey) }</p>
                if let Some(bytes) = self.offline {
                    <span class="offline-ready" data-testid="offline-ready" role="status"
                        title={w.tf(K::AppEverythingThePlaygroundNeedsIs, &[("e6", &format!("{:.1}", bytes / 1e6))])}>
                        { w.t(K::AppWorksOffline) }
                    </span>
                }
                <ShareBar sharing={Rc::new(panel_props::sharing(state))} dispatch={dispatch.clone()} on_import={self.on_import.clone()} />
                <RecentSessions on_open={self.on_reopen.clone()} />
                <ShortcutsHelp />
                <LangSwitch lang={self.lang} on_change={self.on_lang.clone()} />
            </header>
        }
    }

    /// The playground's and the guide's panels: the guide, the stage, the inspector, the
    /// timeline and console, and the panels below; nothing on the comparison's tab.
    fn playground(
        &self,
        state: &UseReducerHandle<Playground>,
        dispatch: &Callback<Action>,
    ) -> Html {
        if state.mode == Mode::Compare {
            return Html::default();
        }
        html! {
            <>
            if state.mode == Mode::Guide {
                <Lazy<GuideProps> part={&lazy::GUIDE} props={Rc::new(panel_props::guide(state, dispatch))} />
            }
            // The stage: what the first screen shows, the cluster the largest part of it.
            // The scenario's and the workload's forms fold away under the command bar.
            <div class="hero" data-testid="stage">
                <CommandBar workload={panel_props::workload(state, dispatch)} catalog={state.catalog.clone()}
                    lesson={state.view.lesson.clone()} transport={panel_props::transport(state)}
                    setup={self.setup} on_setup={self.on_setup.clone()} />
                <div class="setup" id="setup" data-testid="setup" hidden={!self.setup}>
                    <Controls ..panel_props::controls(state, dispatch) />
                    <WorkloadFields workload={panel_props::workload(state, dispatch)} catalog={state.catalog.clone()} />
                </div>
                <KeyBar frame={state.frame.clone()} mark={state.view.landed.as_ref().and_then(|l| l.at)} dispatch={dispatch.clone()} />
                <QueryBox ..panel_props::query_box(state, dispatch) />
                <ClusterPanel ..panel_props::cluster(state, dispatch, state.targeted()) />
            </div>
            <Lazy<InspectorProps> always=true part={&lazy::INSPECTOR} props={Rc::new(panel_props::inspector(state, dispatch))} />
            <div class="lower">
                <TimelinePanel ..(*self.timeline).clone() />
                <Console lines={state.console.clone()} first={state.console_first} history={state.history.clone()} dispatch={dispatch.clone()}
                busy={state.in_flight > 0 && !state.playing} db={AttrValue::from(state.view.db.clone())} />
            </div>
            <Lazy<InsightsProps> always=true part={&lazy::INSIGHTS} props={self.insights.clone()} />
            <Lazy<CandidatesProps> always=true key={state.session.to_string()} part={&lazy::CANDIDATES} props={Rc::new(yew::props!(CandidatesProps {
                session: state.session.clone(), ns: state.settings.ns.clone(), step: state.view.position.position,
                asked: state.ranked(),
                answer: state.answer(Asker::Rank), dispatch: dispatch.clone(),
                on_compare: dispatch.reform(Action::CompareSample) }))} />
            <Lazy<HeatmapProps> always=true part={&lazy::HEATMAP} props={Rc::new(panel_props::heatmap(state, dispatch))} />
            <Lazy<ScenesProps> always=true part={&lazy::SCENES} props={Rc::new(panel_props::scenes(state, dispatch))} />
            </>
        }
    }
}

/// The page's driver (see [`Driver`]), the runtime that owns the page's model, and the
/// start: the catalog asked for, then the first session opened.
#[hook]
fn use_driver(
    state: &UseReducerHandle<Playground>,
    options: &Rc<PageOptions>,
    setters: (
        UseStateSetter<Option<Started>>,
        UseStateSetter<Option<Banner>>,
    ),
) -> Driver {
    let (started, banner) = setters;
    let embed = options.embed;
    // The driver owns the model from the first render's playground on; the view's handle
    // shows each playground it sends.
    let driver = {
        let state = state.clone();
        use_memo((), move |_| {
            let dispatcher = state.dispatcher();
            Driver::new(
                Callback::from(move |shown| dispatcher.dispatch(shown)),
                Rc::new((*state).clone()),
                embed,
            )
        })
    };
    {
        let driver = (*driver).clone();
        let options = options.clone();
        use_effect_with((), move |_| {
            let speaker = driver.clone();
            start::begin(
                driver,
                options,
                move |words| speaker.handle(Action::Language(words)),
                move |boot| {
                    banner.set(boot.banner.clone());
                    started.set(Some(Started {
                        hold: boot.hold,
                        recovering: boot.recovering,
                    }));
                },
            );
        });
    }
    (*driver).clone()
}

/// The replay bar's Cancel, and the share bar's import (a replay too).
#[hook]
fn use_replay_callbacks(driver: &Driver) -> (Callback<()>, Callback<startup::Opening>) {
    let on_cancel = {
        let driver = driver.clone();
        use_callback((), move |(), _| driver.cancel())
    };
    let on_import = {
        let driver = driver.clone();
        use_callback((), move |opening: startup::Opening, _| {
            driver.open(opening, false)
        })
    };
    (on_cancel, on_import)
}

/// The Compare tab publishes its state for links and the saved session; only a change is
/// taken in.
#[hook]
fn use_compare_publish(dispatch: &Callback<Action>, published: Option<String>) -> Callback<String> {
    let dispatch = dispatch.clone();
    use_callback(published, move |text: String, published| {
        if published.as_deref() != Some(text.as_str()) {
            dispatch.emit(Action::Page("compare", Some(text)));
        }
    })
}

/// While playing (or letting time pass), a timer asks for one workload batch per tick.
/// The driver sends no new batch while the engine is still busy with the last one, so a
/// slow engine slows the playground, never the page.
#[hook]
fn use_ticks(state: &UseReducerHandle<Playground>, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    use_effect_with(
        (state.playing || state.passing, state.speed),
        move |(playing, speed)| {
            let interval = playing.then(|| {
                let dispatch = dispatch.clone();
                Interval::new(1000 / (*speed).max(1), move || dispatch.emit(Action::Tick))
            });
            move || drop(interval)
        },
    );
}

/// The panels under the cluster are skipped by the browser while out of sight
/// (`content-visibility: auto` in the stylesheet); it says when that changes, and a hidden
/// panel is not redrawn while a workload plays.
#[hook]
fn use_panel_visibility(dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
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
                dispatch.emit(Action::Hidden(panel, skipped));
            },
        );
        move || drop(listener)
    });
}

/// Commands typed before the session was ready run once it is, whenever the state drawn
/// shows them still waiting (see [`Driver::drain_if_ready`]).
#[hook]
fn use_draining(state: &UseReducerHandle<Playground>, driver: &Driver) {
    let driver = driver.clone();
    let up = state.replaying.is_none() && state.ready;
    use_effect_with((up, state.waiting.clone()), move |(up, waiting)| {
        if *up && !waiting.is_empty() {
            driver.drain_if_ready();
        }
    });
}

/// The session survives a reload: after each change the engine's JSON form of it (with
/// the page's own state) is saved (every 25th change while playing, to keep ticks
/// cheap). Embedded views never overwrite it, nor does a fresh playground in place of a
/// link that could not be opened (`hold`) until the user changes something. Nothing is
/// saved while a replay runs or before the engine's first answer.
#[hook]
fn use_saving(state: &UseReducerHandle<Playground>, driver: &Driver, embed: bool) {
    let state = state.clone();
    let driver = driver.clone();
    let first = use_mut_ref(|| None::<u64>);
    use_effect_with(state.rev, move |rev| {
        if state.replaying.is_none() && state.ready {
            let start = *first.borrow_mut().get_or_insert(*rev);
            let changed = *rev > start;
            if !embed && !driver.holding() && (!state.playing || rev % 25 == 0) {
                driver.save();
                // Once the user changes what a link or lesson opened, a reload shows their
                // session as saved, not the link again.
                if changed {
                    startup::clear_link_from_address();
                }
            }
        }
        || ()
    });
}

/// The embedded view's host page (see [`crate::host`]): the pages `origins=` names may
/// drive it over `postMessage`, and hear of its steps; `script=` runs once it is up.
#[hook]
fn use_host(
    options: &Rc<PageOptions>,
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    driver: &Driver,
) {
    let up = state.replaying.is_none() && state.ready;
    let host = use_memo((), {
        let driver = driver.clone();
        move |_| crate::host::Host::new(move || driver.state())
    });
    {
        let (options, dispatch, host) = (options.clone(), dispatch.clone(), host.clone());
        use_effect_with((), move |_| {
            let origins = crate::host::parse_origins(&options.origins);
            let listener = (options.embed && !origins.is_empty())
                .then(|| crate::host::listen(&host, origins, dispatch));
            move || drop(listener)
        });
    }
    // Only an embedded view a host may drive tells anyone of its changes.
    let hosted = options.embed && !options.origins.is_empty();
    {
        let state = state.clone();
        use_effect_with(state.rev, move |_| {
            if hosted {
                crate::host::notify(&host, &state);
            }
        });
    }
    let ran = use_mut_ref(|| false);
    let (script, dispatch) = (options.script.clone(), dispatch.clone());
    use_effect_with(up, move |up| {
        if let Some(script) = script.filter(|_| *up && !*ran.borrow()) {
            *ran.borrow_mut() = true;
            dispatch.emit(Action::Command(script));
        }
    });
}

/// A share link pasted into this tab's address changes only its fragment (`#s=…`), which
/// the browser does not load again: the page opens it as it would on a load. (The
/// session it replaces stays stored.)
#[hook]
fn use_fragment_links(embed: bool) {
    use_effect_with(embed, |_| {
        let listener =
            gloo::events::EventListener::new(&gloo::utils::window(), "hashchange", |_| {
                let location = gloo::utils::window().location();
                let fragment = location.hash().unwrap_or_default();
                if fragment
                    .trim_start_matches('#')
                    .split('&')
                    .any(|p| p.starts_with("s="))
                {
                    let _ = location.reload();
                }
            });
        move || drop(listener)
    });
}

/// Once the engine has answered (the first picture is up, so nothing competes with it),
/// the page asks for everything to be kept for offline use; the bytes kept once they are.
#[hook]
fn use_offline(up: bool) -> Option<f64> {
    let kept = use_state(|| None::<f64>);
    let asked = use_mut_ref(|| false);
    {
        let set = kept.setter();
        use_effect_with(up, move |up| {
            if *up && !std::mem::replace(&mut *asked.borrow_mut(), true) {
                start::keep_offline(move |bytes| set.set(Some(bytes)));
            }
        });
    }
    *kept
}

/// Once the engine has answered, the panels' parts load while the page is idle (see
/// [`lazy::prefetch`]).
#[hook]
fn use_prefetch(up: bool) {
    use_effect_with(up, |up| {
        if *up {
            lazy::when_idle(lazy::prefetch);
        }
    });
}

/// What the engine client says while the engine waits for the network to load (see
/// [`crate::ask::on_status`]).
#[hook]
fn use_engine_status() -> Option<K> {
    let status = use_state(|| None::<K>);
    {
        let set = status.setter();
        use_effect_with((), move |_| {
            crate::ask::on_status(move |s| set.set(s));
        });
    }
    *status
}

/// Once the page is up, a notice names the options of its address it does not know, so
/// that a typo in an embed or a link does not go unnoticed.
#[hook]
fn use_unknown_options(
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    unknown: &[String],
) {
    let w = state.words;
    let state = state.clone();
    let dispatch = dispatch.clone();
    let unknown = unknown.to_vec();
    let told = use_mut_ref(|| false);
    use_effect_with(state.replaying.is_none() && state.ready, move |up| {
        if *up && !unknown.is_empty() && !*told.borrow() {
            *told.borrow_mut() = true;
            let names: Vec<String> = unknown.iter().map(|n| format!("'{n}'")).collect();
            let text = w.tf(
                K::AppTheAddressHasOptionsShardlab,
                &[("n", &(names.join(", ")))],
            );
            let notice = match &state.notice {
                Some(n) => Notice {
                    words: None,
                    text: format!("{} {text}", n.text),
                    offer: n.offer.clone(),
                },
                None => Notice::plain(text),
            };
            dispatch.emit(Action::Notice(Some(notice)));
        }
        || ()
    });
}

/// "Return to your session": the session a link or a lesson replaced, replayed.
#[hook]
fn use_return_to_session(driver: &Driver) -> Callback<()> {
    let driver = driver.clone();
    use_callback((), move |(), _| {
        let driver = driver.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match startup::return_to_session(driver.words()).await {
                Ok(opening) => driver.open(opening, false),
                Err(e) => driver.handle(Action::Notice(Some(Notice::plain(e)))),
            }
        });
    })
}

/// Once the page is up (its first picture drawn, and its replay over), a crash it
/// recovered from is over: a later one may reload the page again (see
/// [`start::up`]).
#[hook]
fn use_started(up: bool) {
    use_effect_with(up, |up| {
        if *up {
            start::up();
        }
    });
}

/// `autoplay=1` starts the workload once the page is up and its replay is over.
#[hook]
fn use_autoplay(state: &UseReducerHandle<Playground>, dispatch: &Callback<Action>, autoplay: bool) {
    let dispatch = dispatch.clone();
    let done = use_mut_ref(|| false);
    use_effect_with(state.replaying.is_none() && state.ready, move |up| {
        if autoplay && *up && !*done.borrow() {
            *done.borrow_mut() = true;
            dispatch.emit(Action::Play);
        }
        || ()
    });
}

/// Keyboard shortcuts, ignored while typing: space plays or pauses, the arrows step. The
/// comparison has its own transport and listens for these keys itself. While a workshop
/// demo runs, the arrows belong to it (they go from scene to scene, see
/// `scenes_panel::use_scene_keys`) and step no timeline.
#[hook]
fn use_playground_keys(
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    mode: Mode,
) {
    let dispatch = dispatch.clone();
    let demo = super::scenes_panel::running(state);
    use_effect_with((state.playing, mode, demo), move |(playing, mode, demo)| {
        let (playing, demo) = (*playing, *demo);
        let compare = *mode == Mode::Compare;
        let listener = crate::keys::listen(move |key| {
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
                "ArrowRight" if !demo => Action::Step,
                "ArrowLeft" if !demo => Action::StepBack,
                _ => return false,
            };
            dispatch.emit(action);
            true
        });
        move || drop(listener)
    });
}

/// The calm panels' properties, as they were at each one's calm revision, with the
/// engine's latest answers to their questions as soon as they come (the model asks at
/// the calm revision).
#[hook]
fn use_calm_panels(
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
) -> (Rc<TimelineProps>, Rc<InsightsProps>) {
    let timeline = {
        let dispatch = dispatch.clone();
        use_calm(state, Calm::Timeline, move |s| {
            panel_props::timeline(s, &dispatch)
        })
    };
    let insights = {
        let dispatch = dispatch.clone();
        use_calm(state, Calm::Insights, move |s| {
            panel_props::insights(s, &dispatch)
        })
    };
    (
        Rc::new(TimelineProps {
            events: state.answer(Asker::Timeline),
            ..(*timeline).clone()
        }),
        Rc::new(InsightsProps {
            charts: state.answer(Asker::Charts),
            asked: state.analysis.clone(),
            report: state.answer(Asker::Report),
            ..(*insights).clone()
        }),
    )
}

/// The compact view for an iframe: the transport, the key-space bar, the cluster and the
/// console (unless hidden), with a link that opens the same scenario in the full page.
fn embed_view(
    w: Words,
    state: &UseReducerHandle<Playground>,
    dispatch: &Callback<Action>,
    options: &PageOptions,
    messages: &Messages,
    timeline: &TimelineProps,
) -> Html {
    let lesson = state.lesson().cloned();
    let title = lesson
        .as_ref()
        .map(|l| w.lesson_words(l).0)
        .unwrap_or_else(|| {
            w.tf(
                K::AppNsOnKey,
                &[("ns", &state.settings.ns), ("key", &state.frame.key)],
            )
        });
    html! {
        <div class={classes!("page", "embed", options.readonly.then_some("readonly"))} data-testid="embed">
            <header class="embed-head">
                <strong class="embed-title">{ title }</strong>
                <super::share_bar::OpenLink sharing={Rc::new(panel_props::sharing(state))} dispatch={dispatch.clone()} />
            </header>
            { messages.view() }
            if let Some(l) = &lesson {
                <p class="lesson-text compact">{ w.lesson_words(l).1 }</p>
            }
            if !options.hides("workload") {
                <WorkloadPanel ..WorkloadPanelProps { workload: panel_props::workload(state, dispatch),
                    catalog: state.catalog.clone(), transport: Some(panel_props::transport(state)) } />
            }
            if !options.hides("keybar") {
                <KeyBar frame={state.frame.clone()} />
            }
            if !options.hides("cluster") {
                <ClusterPanel ..panel_props::cluster(state, dispatch, Vec::new()) />
            }
            if !options.hides("timeline") && !options.views.is_empty() {
                <TimelinePanel ..timeline.clone() />
            }
            if !options.hides("console") {
                <Console lines={state.console.clone()} first={state.console_first} history={state.history.clone()} dispatch={dispatch.clone()}
                    busy={state.in_flight > 0 && !state.playing} db={AttrValue::from(state.view.db.clone())} />
            }
        </div>
    }
}
