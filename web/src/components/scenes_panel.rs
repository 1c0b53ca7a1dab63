//! Workshop scenes: the scenes panel (build a demo from moments of the timeline, edit,
//! reorder and delete its scenes, load a ready-made demo, run it, open the presenter view,
//! copy the audience link) and the scene bar above the cluster while a demo runs.
//!
//! The scenes and the scene on screen are two entries of the page's own state
//! ([`crate::scenes`]), so they travel in links, saved sessions and scenario files. A
//! scene's step is the engine's to go to: the page asks for a jump and the engine refuses,
//! with its notice, a step the timeline does not have. A scene that names another scenario
//! (a lesson, a session's link form) opens it first, as a session of its own, with the
//! demo and the scene on screen carried across (`use_pending_scene`); a lesson's
//! workload then plays until the scene's step exists.

use crate::ask;
use crate::i18n::{t, tf, K};
use crate::presenting::{self, Presenting};
use crate::scenes::Cue;
use crate::scenes::{self, Scene, Shows, DEMOS, PANELS, SCENES_ENTRY, SCENE_ENTRY};
use crate::state::{Action, DemoChange, DemoFlow, Notice, Playground, Reaching, Switching};
use shardlab_protocol::{Call, Catalog, Position, Reply};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// The demo a state carries: its scenes and the one on screen, if it runs.
pub fn demo_of(state: &Playground) -> (Vec<Scene>, Option<usize>) {
    demo_in(&state.page)
}

/// The demo the page's own state entries carry (see [`demo_of`]).
fn demo_in(page: &[(String, String)]) -> (Vec<Scene>, Option<usize>) {
    let value = |name: &str| {
        page.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let list = value(SCENES_ENTRY)
        .and_then(|v| scenes::parse(v).ok())
        .unwrap_or_default();
    let at = value(SCENE_ENTRY).and_then(|v| scenes::parse_index(v, list.len()));
    (list, at)
}

/// What the scenes panel and the scene bar need of the page: the session and where it
/// stands, the demo's entries and its way through its scenes, and the lessons' titles.
#[derive(Clone, Debug)]
pub struct Demoing {
    /// The engine session shown.
    pub session: Rc<str>,
    /// The lesson it is, if any (the engine's word).
    pub lesson: Option<String>,
    /// The steps of its own setup.
    pub setup_steps: u64,
    /// Its cursor and length.
    pub at: Position,
    /// Whether it has answered.
    pub ready: bool,
    /// Whether a replay runs.
    pub replaying: bool,
    /// Whether its workload plays.
    pub playing: bool,
    /// The acts sent and not yet answered.
    pub in_flight: u32,
    /// The page's own state entries (the demo's scenes and the scene on screen among them).
    pub page: Rc<Vec<(String, String)>>,
    /// What a link of the session carries (see `Playground::page_entries`).
    pub link_page: Vec<(String, String)>,
    /// The lessons, for the titles of scenes that name one.
    pub catalog: Rc<Catalog>,
    /// The demo's way through its scenes. Not compared: changing it redraws nothing (the
    /// hooks that follow it run again on what they are keyed by, all compared here).
    pub demo: DemoFlow,
}

impl PartialEq for Demoing {
    fn eq(&self, other: &Self) -> bool {
        self.session == other.session
            && self.lesson == other.lesson
            && self.setup_steps == other.setup_steps
            && self.at == other.at
            && self.ready == other.ready
            && self.replaying == other.replaying
            && self.playing == other.playing
            && self.in_flight == other.in_flight
            && self.page == other.page
            && self.link_page == other.link_page
            && Rc::ptr_eq(&self.catalog, &other.catalog)
    }
}

/// The panels the scene on screen hides (for the page's `data-scene-hide`), while a demo
/// runs.
pub fn hidden_panels(state: &Playground) -> Option<String> {
    let (list, at) = demo_of(state);
    at.map(|i| list[i].hidden())
}

/// Whether a demo runs: the arrows then step through its scenes, not the timeline.
pub fn running(state: &Playground) -> bool {
    demo_of(state).1.is_some()
}

/// What going to a scene needs to know of the session loaded.
#[derive(Clone, Debug, PartialEq)]
struct Here {
    /// The engine's session the page draws.
    session: Rc<str>,
    /// The lesson it is, if any (the engine's word).
    lesson: Option<String>,
    /// The steps of its own setup.
    setup_steps: u64,
    /// Its steps.
    length: u64,
    /// Where its cursor stands.
    position: u64,
    /// The scene on screen.
    at: Option<usize>,
    /// Whether the session is up (open, not replaying).
    up: bool,
    /// Whether a scene's scenario is being opened (see [`use_pending_scene`]).
    switching: bool,
}

impl Here {
    /// The session `state` draws, with scene `at` on screen.
    fn of(state: &Demoing, at: Option<usize>) -> Here {
        Here {
            session: state.session.clone(),
            lesson: state.lesson.clone(),
            setup_steps: state.setup_steps,
            length: state.at.length,
            position: state.at.position,
            at,
            up: state.ready && !state.replaying,
            switching: state.demo.switching.is_some(),
        }
    }

    /// Whether `shows` is the scenario loaded: the lesson the engine says this session
    /// is, or the link the scene on screen opened.
    fn has(&self, list: &[Scene], shows: &Shows) -> bool {
        match shows {
            Shows::Lesson(id) => self.lesson.as_deref() == Some(id.as_str()),
            Shows::Link(_) => self
                .at
                .and_then(|a| list.get(a))
                .is_some_and(|s| s.scenario.as_ref() == Some(shows)),
        }
    }
}

/// Shows scene `i`: it becomes the scene on screen, its scenario is opened if another is
/// loaded, and the engine is asked for its step. The page goes back to its top, where the
/// scene bar and the scene's panels are. Until the session is up, and while a scenario
/// opens, nothing moves.
fn go(dispatch: &Callback<Action>, list: &[Scene], here: &Here, i: usize) {
    let Some(scene) = list.get(i) else { return };
    if !here.up || here.switching {
        return;
    }
    dispatch.emit(Action::Page(SCENE_ENTRY, Some(i.to_string())));
    match &scene.scenario {
        Some(shows) if !here.has(list, shows) => {
            dispatch.emit(Action::Demo(DemoChange::Switching(Some(Switching {
                from: here.session.clone(),
                list: Rc::new(list.to_vec()),
                to: i,
            }))));
            dispatch.emit(Action::OpenScene(shows.clone()));
        }
        _ => reach(dispatch, here, scene),
    }
    gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0);
}

/// Asks for the scene's step in the session loaded. A lesson's step the timeline does not
/// have yet is reached by playing the lesson's workload from the timeline's end (the
/// engine says when it is full).
fn reach(dispatch: &Callback<Action>, here: &Here, scene: &Scene) {
    let step = scene.timeline_step(here.setup_steps);
    let lesson = matches!(scene.scenario, Some(Shows::Lesson(_)));
    if lesson && step > here.length {
        dispatch.emit(Action::Demo(DemoChange::Reaching(Some(Reaching {
            session: here.session.clone(),
            step,
            played: false,
        }))));
        if here.position < here.length {
            dispatch.emit(Action::Jump(here.length));
        }
        dispatch.emit(Action::Play);
    } else {
        dispatch.emit(Action::Demo(DemoChange::Reaching(None)));
        dispatch.emit(Action::Jump(step));
    }
}

/// Ends the demo: no scene on screen, nothing opening or playing towards a scene.
fn stop(dispatch: &Callback<Action>) {
    dispatch.emit(Action::Demo(DemoChange::Switching(None)));
    dispatch.emit(Action::Demo(DemoChange::Reaching(None)));
    dispatch.emit(Action::Page(SCENE_ENTRY, None));
}

/// Keeps the scenes in the page's state, or says why they cannot be kept.
fn save(dispatch: &Callback<Action>, list: &[Scene]) {
    if scenes::fits(list) {
        dispatch.emit(Action::Page(SCENES_ENTRY, Some(scenes::encode(list))));
    } else {
        dispatch.emit(Action::Notice(Some(Notice::plain(tf(
            K::ScenesPanelADemoHoldsAtMost,
            &[
                ("n", &(scenes::MAX_SCENES)),
                ("n2", &(scenes::MAX_ENCODED_BYTES / 1024)),
            ],
        )))));
    }
}

/// Properties of [`ScenesPanel`] and [`SceneBar`].
#[derive(Properties, PartialEq)]
pub struct ScenesProps {
    /// What the panel needs of the page.
    pub state: Rc<Demoing>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// The scene bar: while a demo runs, the scene's title, its position and the buttons that
/// move through the demo.
#[function_component(SceneBar)]
pub fn scene_bar(props: &ScenesProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let (list, at) = demo_in(&props.state.page);
    let Some(i) = at else { return html! {} };
    let dispatch = props.dispatch.clone();
    let here = Here::of(&props.state, at);
    let to = |j: usize| {
        let (dispatch, list, here) = (dispatch.clone(), list.clone(), here.clone());
        Callback::from(move |_: MouseEvent| go(&dispatch, &list, &here, j))
    };
    let stop = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_: MouseEvent| stop(&dispatch))
    };
    html! {
        <div class="scene-bar" role="region" aria-label={t(K::ScenesPanelDemo)} data-testid="scene-bar">
            <span class="scene-position" data-testid="scene-position">{ tf(K::ScenesPanelSceneNOfListLen, &[("n", &(i + 1)), ("list_len", &list.len())]) }</span>
            <strong class="scene-bar-title" data-testid="scene-current">{ list[i].title.clone() }</strong>
            <button class="secondary" data-testid="scene-prev" disabled={i == 0} onclick={to(i.saturating_sub(1))}
                aria-label={t(K::ScenesPanelPreviousScene)}>{ "←" }</button>
            <button class="secondary" data-testid="scene-next" disabled={i + 1 >= list.len()} onclick={to(i + 1)}
                aria-label={t(K::ScenesPanelNextScene)}>{ "→" }</button>
            <button class="secondary" data-testid="demo-stop" onclick={stop}>{ t(K::ScenesPanelEndDemo) }</button>
        </div>
    }
}

/// The scenes panel.
#[function_component(ScenesPanel)]
pub fn scenes_panel(props: &ScenesProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let state = &props.state;
    let dispatch = props.dispatch.clone();
    let (list, at) = demo_in(&state.page);
    // The keys' and the presenter's callbacks outlive a render: they read the latest demo.
    let latest = use_mut_ref(|| (list.clone(), Here::of(state, at)));
    *latest.borrow_mut() = (list.clone(), Here::of(state, at));
    let go_to = use_memo((), {
        let (latest, dispatch) = (latest.clone(), dispatch.clone());
        move |_| {
            Callback::from(move |i: usize| {
                let (list, here) = latest.borrow().clone();
                go(&dispatch, &list, &here, i)
            })
        }
    })
    .as_ref()
    .clone();
    use_scene_keys(at, &list, go_to.clone());
    use_presenter_link(&list, at, go_to.clone());
    use_pending_demo(state, &dispatch);
    use_pending_scene(state, &dispatch);
    use_reach(state, &dispatch);
    let on_add = add_callback(state, &dispatch, &list, at);
    let on_start = {
        let go_to = go_to.clone();
        Callback::from(move |_: MouseEvent| go_to.emit(0))
    };
    html! {
        <section class="panel scenes-panel" aria-label={t(K::ScenesPanelWorkshopScenes)} data-testid="scenes-panel">
            <h2>{ t(K::ScenesPanelWorkshopScenes) }</h2>
            <p class="muted">{ t(K::ScenesPanelADemoIsAList) }</p>
            <div class="scene-actions">
                <button data-testid="scene-add" onclick={on_add} disabled={!state.ready}>{ t(K::ScenesPanelAddThisMomentAsA) }</button>
                <button class="secondary" data-testid="demo-start" onclick={on_start}
                    disabled={list.is_empty() || at.is_some()}>{ t(K::PresenterStartDemo) }</button>
                <PresenterButton />
                <AudienceLink state={state.clone()} dispatch={dispatch.clone()} />
            </div>
            <DemoPicker state={state.clone()} dispatch={dispatch.clone()} />
            if list.is_empty() {
                <p class="muted" data-testid="scenes-empty">{ t(K::ScenesPanelNoScenesYetMoveThe) }</p>
            } else {
                <ol class="scene-list" data-testid="scene-list">
                    { for list.iter().enumerate().map(|(i, s)| scene_item(&dispatch, &list, i, (s, &step_label(state, s)), at == Some(i), &go_to)) }
                </ol>
            }
        </section>
    }
}

/// "Add this moment as a scene": the step on screen, with the scene on screen's panels.
/// While the demo shows another scenario than the one loaded (a scene on screen that names
/// one, or scenes that name theirs), the new scene carries the session's link form, asked
/// of the engine, if it fits in the demo; else a notice says why it was not added.
fn add_callback(
    state: &Demoing,
    dispatch: &Callback<Action>,
    list: &[Scene],
    at: Option<usize>,
) -> Callback<MouseEvent> {
    let (dispatch, list) = (dispatch.clone(), list.to_vec());
    let step = state.at.position;
    let views = at.map_or_else(scenes::all_views, |i| list[i].views.clone());
    let named = at.map_or_else(
        || list.iter().any(|s| s.scenario.is_some()),
        |i| list[i].scenario.is_some(),
    );
    let session = state.session.clone();
    let page: Vec<(String, String)> = state
        .link_page
        .clone()
        .into_iter()
        .filter(|(n, _)| n != SCENES_ENTRY && n != SCENE_ENTRY)
        .collect();
    Callback::from(move |_: MouseEvent| {
        let scene = Scene {
            scenario: None,
            step,
            views: views.clone(),
            title: tf(K::ScenesPanelStepStep, &[("step", &step)]),
            note: String::new(),
        };
        let mut list = list.clone();
        if !named {
            list.push(scene);
            return save(&dispatch, &list);
        }
        let dispatch = dispatch.clone();
        let call = Call::Scenario {
            page: page.clone(),
            json: false,
        };
        ask::ask(&session, call, move |answer| match answer {
            Ok(Reply::Scenario { text }) => {
                let size = text.len().div_ceil(1024);
                list.push(Scene {
                    scenario: Some(Shows::Link(text)),
                    ..scene
                });
                if scenes::fits(&list) || list.len() > scenes::MAX_SCENES {
                    return save(&dispatch, &list);
                }
                dispatch.emit(Action::Notice(Some(Notice::plain(tf(
                    K::ScenesPanelMomentNotAdded,
                    &[
                        ("size", &size),
                        ("n", &scenes::MAX_SCENES),
                        ("n2", &(scenes::MAX_ENCODED_BYTES / 1024)),
                    ],
                )))));
            }
            Ok(_) => {}
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(e.message)))),
        });
    })
}

/// Where a scene stands, in the list: its step, and its scenario when it names one (a
/// lesson by its title in the engine's catalog).
fn step_label(state: &Demoing, scene: &Scene) -> String {
    let step = scene.step;
    match &scene.scenario {
        None => tf(K::ScenesPanelStepStep, &[("step", &step)]),
        Some(Shows::Lesson(id)) => {
            let lesson = state
                .catalog
                .lessons
                .iter()
                .find(|l| l.id == *id)
                .map_or(id.as_str(), |l| l.title.as_str());
            tf(
                K::ScenesPanelLessonStepPastSetup,
                &[("lesson", &lesson), ("step", &step)],
            )
        }
        Some(Shows::Link(_)) => tf(K::ScenesPanelStepOfAnotherScenario, &[("step", &step)]),
    }
}

/// A change to the list of scenes.
type Edit = Rc<dyn Fn(&mut Vec<Scene>)>;

/// One scene of the list: its step, title, note and panels, and the buttons that move,
/// show and delete it.
fn scene_item(
    dispatch: &Callback<Action>,
    list: &[Scene],
    i: usize,
    (scene, label): (&Scene, &str),
    current: bool,
    go_to: &Callback<usize>,
) -> Html {
    let edit = |f: Edit| {
        let (dispatch, list) = (dispatch.clone(), list.to_vec());
        Callback::from(move |_: MouseEvent| {
            let mut list = list.clone();
            f(&mut list);
            save(&dispatch, &list);
        })
    };
    let n = list.len();
    let on_title = text_edit(dispatch, list, i, |s, v| s.title = v);
    let on_note = text_edit(dispatch, list, i, |s, v| s.note = v);
    let show = {
        let go_to = go_to.clone();
        Callback::from(move |_: MouseEvent| go_to.emit(i))
    };
    html! {
        <li class={classes!("scene-item", current.then_some("current"))} data-testid="scene-item"
            aria-current={current.then_some("step")}>
            <div class="scene-head">
                <span class="scene-step" data-testid="scene-step">{ label.to_string() }</span>
                <input class="scene-title" data-testid="scene-title" aria-label={tf(K::ScenesPanelSceneNTitle, &[("n", &(i + 1))])}
                    maxlength={scenes::MAX_TITLE_CHARS.to_string()} value={scene.title.clone()} onchange={on_title} />
                <button class="secondary" data-testid="scene-show" onclick={show}>{ t(K::ScenesPanelShow) }</button>
                <button class="secondary" data-testid="scene-up" disabled={i == 0} aria-label={tf(K::ScenesPanelMoveSceneNUp, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| l.swap(i - 1, i)))}>{ "↑" }</button>
                <button class="secondary" data-testid="scene-down" disabled={i + 1 >= n} aria-label={tf(K::ScenesPanelMoveSceneNDown, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| l.swap(i, i + 1)))}>{ "↓" }</button>
                <button class="secondary" data-testid="scene-delete" aria-label={tf(K::ScenesPanelDeleteSceneN, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| { l.remove(i); }))}>{ t(K::RecentDelete) }</button>
            </div>
            <textarea class="scene-note" data-testid="scene-note" aria-label={tf(K::ScenesPanelSceneNPresenterSNote, &[("n", &(i + 1))])}
                maxlength={scenes::MAX_NOTE_CHARS.to_string()} value={scene.note.clone()} onchange={on_note} />
            { views_picker(dispatch, list, i, scene) }
        </li>
    }
}

/// A title or note field's change, kept in scene `i`.
fn text_edit(
    dispatch: &Callback<Action>,
    list: &[Scene],
    i: usize,
    set: fn(&mut Scene, String),
) -> Callback<Event> {
    let (dispatch, list) = (dispatch.clone(), list.to_vec());
    Callback::from(move |e: Event| {
        let value = e
            .target_dyn_into::<HtmlInputElement>()
            .map(|el| el.value())
            .or_else(|| {
                e.target_dyn_into::<HtmlTextAreaElement>()
                    .map(|el| el.value())
            });
        if let Some(value) = value {
            let mut list = list.clone();
            set(&mut list[i], value);
            save(&dispatch, &list);
        }
    })
}

/// The checkboxes of the panels scene `i` shows.
fn views_picker(dispatch: &Callback<Action>, list: &[Scene], i: usize, scene: &Scene) -> Html {
    let boxes = PANELS.iter().map(|(name, label)| {
        let checked = scene.views.iter().any(|v| v == name);
        let (dispatch, list) = (dispatch.clone(), list.to_vec());
        let onchange = Callback::from(move |_: Event| {
            let mut list = list.clone();
            let views = &mut list[i].views;
            if checked {
                views.retain(|v| v != name);
            } else {
                views.push(name.to_string());
            }
            let shown = std::mem::take(views);
            *views = PANELS
                .iter()
                .filter(|(n, _)| shown.iter().any(|s| s == n))
                .map(|(n, _)| n.to_string())
                .collect();
            save(&dispatch, &list);
        });
        html! {
            <label class="scene-view">
                <input type="checkbox" data-testid="scene-view" data-view={*name} checked={checked} {onchange} />
                { *label }
            </label>
        }
    });
    html! {
        <details class="scene-views">
            <summary>{ tf(K::ScenesPanelPanelsShownViewsLen, &[("views_len", &scene.views.len())]) }</summary>
            { for boxes }
        </details>
    }
}

/// The "Presenter view" button: the same page with `?presenter=1`, in a window of its own.
#[function_component(PresenterButton)]
fn presenter_button() -> Html {
    let _lang = crate::i18n::use_lang();
    let onclick = Callback::from(|_: MouseEvent| presenting::open_presenter());
    html! {
        <button class="secondary" data-testid="presenter-open" {onclick}>{ t(K::ScenesPanelPresenterView) }</button>
    }
}

/// The "Audience link": a share link of the session as it is now, which carries the scene
/// on screen, so attendees land on its step with its panels.
#[function_component(AudienceLink)]
fn audience_link(props: &ScenesProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let link = use_state(|| None::<String>);
    let onclick = {
        let (link, dispatch) = (link.clone(), props.dispatch.clone());
        let (session, page) = (props.state.session.clone(), props.state.link_page.clone());
        Callback::from(move |_: MouseEvent| {
            let (link, dispatch) = (link.clone(), dispatch.clone());
            let call = Call::Scenario {
                page: page.clone(),
                json: false,
            };
            ask::ask(&session, call, move |answer| match answer {
                Ok(Reply::Scenario { text }) => {
                    link.set(Some(format!("{}#s={text}", presenting::page_address())))
                }
                Ok(_) => {}
                Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(e.message)))),
            });
        })
    };
    html! {
        <>
            <button class="secondary" data-testid="audience-link" {onclick} disabled={!props.state.ready}
                title={t(K::ScenesPanelALinkThatOpensThe)}>{ t(K::ScenesPanelAudienceLink) }</button>
            if let Some(url) = &*link {
                <input class="share-url" readonly=true value={url.clone()} data-testid="audience-url" aria-label={t(K::ScenesPanelAudienceLink)} />
            }
        </>
    }
}

/// The ready-made demos: one opens its lesson, and its scenes are set once the lesson's
/// session is up (see [`use_pending_demo`]).
#[function_component(DemoPicker)]
fn demo_picker(props: &ScenesProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let select = use_node_ref();
    let onclick = {
        let (select, dispatch) = (select.clone(), props.dispatch.clone());
        let session = props.state.session.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(id) = select.cast::<HtmlSelectElement>().map(|s| s.value()) else {
                return;
            };
            if let Some(demo) = DEMOS.iter().find(|d| d.id == id) {
                let pending = Some((demo.id, session.clone()));
                dispatch.emit(Action::Demo(DemoChange::Pending(pending)));
                dispatch.emit(Action::LoadPreset(demo.lesson.to_string()));
            }
        })
    };
    html! {
        <div class="demo-picker">
            <label class="field">
                { t(K::ScenesPanelReadyMadeDemo) }
                <select ref={select} data-testid="demo-select">
                    { for DEMOS.iter().map(|d| html! { <option value={d.id}>{ t(d.title) }</option> }) }
                </select>
            </label>
            <button class="secondary" data-testid="demo-load" {onclick} disabled={props.state.replaying}>{ t(K::ScenesPanelLoadDemo) }</button>
        </div>
    }
}

/// Once the demo's lesson is up, its scenes (at the steps past the lesson's own setup) are
/// set, and the lesson's workload plays so that every scene's step exists.
#[hook]
fn use_pending_demo(state: &Demoing, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    let up = state.ready && !state.replaying;
    let key = (state.session.clone(), up, state.lesson.clone());
    let setup_steps = state.setup_steps;
    let pending = state
        .demo
        .pending
        .as_ref()
        .and_then(|(id, from)| Some((DEMOS.iter().find(|d| d.id == *id)?, from.clone())));
    use_effect_with(key, move |(session, up, lesson)| {
        let ready = pending.as_ref().filter(|(demo, from)| {
            *up && *session != *from && lesson.as_deref() == Some(demo.lesson)
        });
        if let Some((demo, _)) = ready {
            dispatch.emit(Action::Demo(DemoChange::Pending(None)));
            stop(&dispatch);
            save(&dispatch, &demo.scenes(setup_steps));
            dispatch.emit(Action::Play);
        }
    });
}

/// Once the scenario a scene names is up (another session than the one it was asked
/// from), the demo and the scene on screen are set again (a link's replay brings the page
/// state it carried) and the scene's step is asked for. A lesson the engine refused (the
/// page then holds a fresh playground, with its notice) shows nothing.
#[hook]
fn use_pending_scene(state: &Demoing, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    let here = Here::of(state, None);
    let switching = state.demo.switching.clone();
    use_effect_with(here, move |here| {
        let arrived = switching.filter(|p| here.up && here.session != p.from);
        let Some(Switching { list, to, .. }) = arrived else {
            return;
        };
        dispatch.emit(Action::Demo(DemoChange::Switching(None)));
        let scene = &list[to];
        if let Some(Shows::Lesson(id)) = &scene.scenario {
            if here.lesson.as_deref() != Some(id.as_str()) {
                return;
            }
        }
        dispatch.emit(Action::Page(SCENES_ENTRY, Some(scenes::encode(&list))));
        dispatch.emit(Action::Page(SCENE_ENTRY, Some(to.to_string())));
        reach(&dispatch, here, scene);
    });
}

/// While a lesson's workload plays towards a scene's step: once the session has that
/// step, or the workload stopped (the engine then refuses a step it lacks, with its
/// notice), the cursor goes there.
#[hook]
fn use_reach(state: &Demoing, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    let key = (
        state.session.clone(),
        state.ready && !state.replaying,
        state.at.length,
        state.playing,
        state.in_flight,
    );
    let reaching = state.demo.reaching.clone();
    use_effect_with(key, move |(session, up, length, playing, in_flight)| {
        let Some(g) = reaching.filter(|g| g.session == *session && *up) else {
            return;
        };
        let played = g.played || *playing;
        let stopped = played && !*playing && *in_flight == 0;
        if *length >= g.step || stopped {
            dispatch.emit(Action::Demo(DemoChange::Reaching(None)));
            dispatch.emit(Action::Jump(g.step));
        } else if played != g.played {
            dispatch.emit(Action::Demo(DemoChange::Reaching(Some(Reaching {
                played,
                ..g
            }))));
        }
    });
}

/// While a demo runs: → and PageDown go to the next scene, ← and PageUp to the previous
/// one. (The timeline's own ←/→ stepping gives way meanwhile: see `use_playground_keys`.)
#[hook]
fn use_scene_keys(at: Option<usize>, list: &[Scene], go_to: Callback<usize>) {
    use_effect_with((at, list.to_vec()), move |(at, list)| {
        let listener = at.map(|i| {
            let count = list.len();
            crate::keys::listen(move |key| {
                let to = match key {
                    "ArrowRight" | "PageDown" => i + 1,
                    "ArrowLeft" | "PageUp" => i.wrapping_sub(1),
                    _ => return false,
                };
                if to < count {
                    go_to.emit(to);
                }
                true
            })
        });
        move || drop(listener)
    });
}

/// The presenter view's channel: the page answers its hello, tells it every change of the
/// demo, and goes where it asks.
#[hook]
fn use_presenter_link(list: &[Scene], at: Option<usize>, go_to: Callback<usize>) {
    let shown = Cue::Show {
        at: at.map(|i| i as u32),
        scenes: list
            .iter()
            .map(|s| (s.title.clone(), s.note.clone()))
            .collect(),
    };
    let latest = use_mut_ref(|| shown.clone());
    *latest.borrow_mut() = shown.clone();
    let go_latest = use_mut_ref(|| go_to.clone());
    *go_latest.borrow_mut() = go_to;
    let channel = use_mut_ref(|| None::<Presenting>);
    {
        let channel = channel.clone();
        use_effect_with((), move |_| {
            let answer = channel.clone();
            let opened = Presenting::open(move |cue| match cue {
                Cue::Hello => {
                    if let Some(c) = answer.borrow().as_ref() {
                        c.post(&latest.borrow());
                    }
                }
                Cue::Go { to } => go_latest.borrow().emit(to as usize),
                Cue::Show { .. } => {}
            });
            *channel.borrow_mut() = opened;
            move || drop(channel.borrow_mut().take())
        });
    }
    use_effect_with(shown, move |shown| {
        if let Some(c) = channel.borrow().as_ref() {
            c.post(shown);
        }
    });
}
