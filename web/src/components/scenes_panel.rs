//! Workshop scenes: the scenes panel (build a demo from moments of the timeline, edit,
//! reorder and delete its scenes, load a ready-made demo, run it, open the presenter view,
//! copy the audience link) and the scene bar above the cluster while a demo runs.
//!
//! The scenes and the scene on screen are two entries of the page's own state
//! ([`crate::scenes`]), so they travel in links, saved sessions and scenario files. A
//! scene's step is the engine's to go to: the page asks for a jump and the engine refuses,
//! with its notice, a step the timeline does not have. A scene that names another scenario
//! (a lesson, a session's link form) opens it first, as a session of its own, with the
//! demo and the scene on screen carried across (`model/demo.rs`); a lesson's
//! workload then plays until the scene's step exists.

use crate::ask;
use crate::demo;
use crate::i18n::{Words, K};
use crate::presenting::{self, Presenting};
use crate::scenes::Cue;
use crate::scenes::{self, Scene, Shows, DEMOS, PANELS, SCENES_ENTRY, SCENE_ENTRY};
use crate::state::{Action, DemoChange, Notice, Playground};
use shardlab_protocol::{Call, Catalog, Position, Reply};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// What the scenes panel and the scene bar need of the page: the session and its cursor,
/// the demo's entries, what a link carries, and the lessons' titles. (A demo's way
/// through its scenes is the update's: see `model/demo.rs`.)
#[derive(Clone, Debug)]
pub struct Demoing {
    /// The engine session shown.
    pub session: Rc<str>,
    /// Its cursor and length.
    pub at: Position,
    /// Whether it has answered.
    pub ready: bool,
    /// Whether a replay runs.
    pub replaying: bool,
    /// The page's own state entries (the demo's scenes and the scene on screen among them).
    pub page: Rc<Vec<(String, String)>>,
    /// What a link of the session carries (see `Playground::page_entries`).
    pub link_page: Vec<(String, String)>,
    /// The lessons, for the titles of scenes that name one (compared by pointer: the
    /// catalogue comes once).
    pub catalog: Rc<Catalog>,
}

impl PartialEq for Demoing {
    fn eq(&self, other: &Self) -> bool {
        self.session == other.session
            && self.at == other.at
            && self.ready == other.ready
            && self.replaying == other.replaying
            && self.page == other.page
            && self.link_page == other.link_page
            && Rc::ptr_eq(&self.catalog, &other.catalog)
    }
}

/// The panels the scene on screen hides (for the page's `data-scene-hide`), while a demo
/// runs.
pub fn hidden_panels(state: &Playground) -> Option<String> {
    let (list, at) = demo::demo_of(state);
    at.map(|i| list[i].hidden())
}

/// Whether a demo runs: the arrows then step through its scenes, not the timeline.
pub fn running(state: &Playground) -> bool {
    demo::demo_of(state).1.is_some()
}

/// Keeps the scenes in the page's state, or says why they cannot be kept.
fn save(w: Words, dispatch: &Callback<Action>, list: &[Scene]) {
    dispatch.emit(demo::keep(list, w));
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
    let w = super::lang_switch::use_words();
    let (list, at) = demo::demo_in(&props.state.page);
    let Some(i) = at else { return html! {} };
    let to = |j: usize| {
        props
            .dispatch
            .reform(move |_: MouseEvent| Action::ShowScene(j))
    };
    let stop = props.dispatch.reform(|_: MouseEvent| Action::EndDemo);
    html! {
        <div class="scene-bar" role="region" aria-label={w.t(K::ScenesPanelDemo)} data-testid="scene-bar">
            <span class="scene-position" data-testid="scene-position">{ w.tf(K::ScenesPanelSceneNOfListLen, &[("n", &(i + 1)), ("list_len", &list.len())]) }</span>
            <strong class="scene-bar-title" data-testid="scene-current">{ list[i].title.clone() }</strong>
            <button class="secondary" data-testid="scene-prev" disabled={i == 0} onclick={to(i.saturating_sub(1))}
                aria-label={w.t(K::ScenesPanelPreviousScene)}>{ "←" }</button>
            <button class="secondary" data-testid="scene-next" disabled={i + 1 >= list.len()} onclick={to(i + 1)}
                aria-label={w.t(K::ScenesPanelNextScene)}>{ "→" }</button>
            <button class="secondary" data-testid="demo-stop" onclick={stop}>{ w.t(K::ScenesPanelEndDemo) }</button>
        </div>
    }
}

/// The scenes panel.
#[function_component(ScenesPanel)]
pub fn scenes_panel(props: &ScenesProps) -> Html {
    let w = super::lang_switch::use_words();
    let state = &props.state;
    let dispatch = props.dispatch.clone();
    let (list, at) = demo::demo_in(&state.page);
    // The update shows a scene from the model as it is then (see `model/demo.rs`), so the
    // keys' and the presenter's callbacks need no copy of the demo.
    let go_to = dispatch.reform(Action::ShowScene);
    use_scene_keys(at, &list, go_to.clone());
    use_presenter_link(&list, at, go_to.clone());
    let on_add = add_callback(w, state, &dispatch, &list, at);
    let on_start = {
        let go_to = go_to.clone();
        Callback::from(move |_: MouseEvent| go_to.emit(0))
    };
    html! {
        <section class="panel scenes-panel" aria-label={w.t(K::ScenesPanelWorkshopScenes)} data-testid="scenes-panel">
            <h2>{ w.t(K::ScenesPanelWorkshopScenes) }</h2>
            <p class="muted">{ w.t(K::ScenesPanelADemoIsAList) }</p>
            <div class="scene-actions">
                <button data-testid="scene-add" onclick={on_add} disabled={!state.ready}>{ w.t(K::ScenesPanelAddThisMomentAsA) }</button>
                <button class="secondary" data-testid="demo-start" onclick={on_start}
                    disabled={list.is_empty() || at.is_some()}>{ w.t(K::PresenterStartDemo) }</button>
                <PresenterButton />
                <AudienceLink state={state.clone()} dispatch={dispatch.clone()} />
            </div>
            <DemoPicker state={state.clone()} dispatch={dispatch.clone()} />
            if list.is_empty() {
                <p class="muted" data-testid="scenes-empty">{ w.t(K::ScenesPanelNoScenesYetMoveThe) }</p>
            } else {
                <ol class="scene-list" data-testid="scene-list">
                    { for list.iter().enumerate().map(|(i, s)| scene_item(w, &dispatch, &list, i, (s, &step_label(w, state, s)), at == Some(i), &go_to)) }
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
    w: Words,
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
            title: w.tf(K::ScenesPanelStepStep, &[("step", &step)]),
            note: String::new(),
        };
        let mut list = list.clone();
        if !named {
            list.push(scene);
            return save(w, &dispatch, &list);
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
                    return save(w, &dispatch, &list);
                }
                dispatch.emit(Action::Notice(Some(Notice::plain(w.tf(
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
fn step_label(w: Words, state: &Demoing, scene: &Scene) -> String {
    let step = scene.step;
    match &scene.scenario {
        None => w.tf(K::ScenesPanelStepStep, &[("step", &step)]),
        Some(Shows::Lesson(id)) => {
            let lesson = state
                .catalog
                .lessons
                .iter()
                .find(|l| l.id == *id)
                .map_or(id.as_str(), |l| l.title.as_str());
            w.tf(
                K::ScenesPanelLessonStepPastSetup,
                &[("lesson", &lesson), ("step", &step)],
            )
        }
        Some(Shows::Link(_)) => w.tf(K::ScenesPanelStepOfAnotherScenario, &[("step", &step)]),
    }
}

/// A change to the list of scenes.
type Edit = Rc<dyn Fn(&mut Vec<Scene>)>;

/// One scene of the list: its step, title, note and panels, and the buttons that move,
/// show and delete it.
fn scene_item(
    w: Words,
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
            save(w, &dispatch, &list);
        })
    };
    let n = list.len();
    let on_title = text_edit(w, dispatch, list, i, |s, v| s.title = v);
    let on_note = text_edit(w, dispatch, list, i, |s, v| s.note = v);
    let show = {
        let go_to = go_to.clone();
        Callback::from(move |_: MouseEvent| go_to.emit(i))
    };
    html! {
        <li class={classes!("scene-item", current.then_some("current"))} data-testid="scene-item"
            aria-current={current.then_some("step")}>
            <div class="scene-head">
                <span class="scene-step" data-testid="scene-step">{ label.to_string() }</span>
                <input class="scene-title" data-testid="scene-title" aria-label={w.tf(K::ScenesPanelSceneNTitle, &[("n", &(i + 1))])}
                    maxlength={scenes::MAX_TITLE_CHARS.to_string()} value={scene.title.clone()} onchange={on_title} />
                <button class="secondary" data-testid="scene-show" onclick={show}>{ w.t(K::ScenesPanelShow) }</button>
                <button class="secondary" data-testid="scene-up" disabled={i == 0} aria-label={w.tf(K::ScenesPanelMoveSceneNUp, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| l.swap(i - 1, i)))}>{ "↑" }</button>
                <button class="secondary" data-testid="scene-down" disabled={i + 1 >= n} aria-label={w.tf(K::ScenesPanelMoveSceneNDown, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| l.swap(i, i + 1)))}>{ "↓" }</button>
                <button class="secondary" data-testid="scene-delete" aria-label={w.tf(K::ScenesPanelDeleteSceneN, &[("n", &(i + 1))])}
                    onclick={edit(Rc::new(move |l: &mut Vec<Scene>| { l.remove(i); }))}>{ w.t(K::RecentDelete) }</button>
            </div>
            <textarea class="scene-note" data-testid="scene-note" aria-label={w.tf(K::ScenesPanelSceneNPresenterSNote, &[("n", &(i + 1))])}
                maxlength={scenes::MAX_NOTE_CHARS.to_string()} value={scene.note.clone()} onchange={on_note} />
            { views_picker(w, dispatch, list, i, scene) }
        </li>
    }
}

/// A title or note field's change, kept in scene `i`.
fn text_edit(
    w: Words,
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
            save(w, &dispatch, &list);
        }
    })
}

/// The checkboxes of the panels scene `i` shows.
fn views_picker(
    w: Words,
    dispatch: &Callback<Action>,
    list: &[Scene],
    i: usize,
    scene: &Scene,
) -> Html {
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
            save(w, &dispatch, &list);
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
            <summary>{ w.tf(K::ScenesPanelPanelsShownViewsLen, &[("views_len", &scene.views.len())]) }</summary>
            { for boxes }
        </details>
    }
}

/// The "Presenter view" button: the same page with `?presenter=1`, in a window of its own.
#[function_component(PresenterButton)]
fn presenter_button() -> Html {
    let w = super::lang_switch::use_words();
    let onclick = Callback::from(|_: MouseEvent| presenting::open_presenter());
    html! {
        <button class="secondary" data-testid="presenter-open" {onclick}>{ w.t(K::ScenesPanelPresenterView) }</button>
    }
}

/// The "Audience link": a share link of the session as it is now, which carries the scene
/// on screen, so attendees land on its step with its panels.
#[function_component(AudienceLink)]
fn audience_link(props: &ScenesProps) -> Html {
    let w = super::lang_switch::use_words();
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
                title={w.t(K::ScenesPanelALinkThatOpensThe)}>{ w.t(K::ScenesPanelAudienceLink) }</button>
            if let Some(url) = &*link {
                <input class="share-url" readonly=true value={url.clone()} data-testid="audience-url" aria-label={w.t(K::ScenesPanelAudienceLink)} />
            }
        </>
    }
}

/// The ready-made demos: one opens its lesson, and its scenes are set once the lesson's
/// session is up (see `model/demo.rs`).
#[function_component(DemoPicker)]
fn demo_picker(props: &ScenesProps) -> Html {
    let w = super::lang_switch::use_words();
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
                { w.t(K::ScenesPanelReadyMadeDemo) }
                <select ref={select} data-testid="demo-select">
                    { for DEMOS.iter().map(|d| html! { <option value={d.id}>{ w.t(d.title) }</option> }) }
                </select>
            </label>
            <button class="secondary" data-testid="demo-load" {onclick} disabled={props.state.replaying}>{ w.t(K::ScenesPanelLoadDemo) }</button>
        </div>
    }
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
