//! A demo's way through its scenes, as the page's update follows it: showing a scene (its
//! scenario opened if another is loaded, then its step reached), ending the demo, and
//! what is due once a session comes up (a ready-made demo's scenes set, a scene's step
//! asked for, the step a lesson's workload played towards jumped to). Pure: it answers
//! with the messages the update then takes, in order, as if a person had sent them.

use crate::i18n::{Words, K};
use crate::scenes::{self, Scene, Shows, DEMOS, SCENES_ENTRY, SCENE_ENTRY};
use crate::state::{Action, DemoChange, Notice, Playground, Reaching, Switching};
use std::rc::Rc;

/// The demo a state carries: its scenes and the one on screen, if it runs.
pub fn demo_of(state: &Playground) -> (Vec<Scene>, Option<usize>) {
    demo_in(&state.page)
}

/// The demo the page's own state entries carry (see [`demo_of`]).
pub fn demo_in(page: &[(String, String)]) -> (Vec<Scene>, Option<usize>) {
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
}

impl Here {
    /// The session `state` draws, with scene `at` on screen.
    fn of(state: &Playground, at: Option<usize>) -> Here {
        Here {
            session: state.session.clone(),
            lesson: state.view.lesson.clone(),
            setup_steps: state.view.setup_steps,
            length: state.view.position.length,
            position: state.view.position.position,
            at,
            up: state.ready && state.replaying.is_none(),
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

/// Showing scene `i`: it becomes the scene on screen, its scenario is opened if another
/// is loaded, and its step is asked for. Until the session is up, and while a scenario
/// opens, nothing moves (`None`).
pub fn show(state: &Playground, i: usize) -> Option<Vec<Action>> {
    let (list, at) = demo_of(state);
    let here = Here::of(state, at);
    let scene = list.get(i)?;
    if !here.up || state.demo.switching.is_some() {
        return None;
    }
    let mut out = vec![Action::Page(SCENE_ENTRY, Some(i.to_string()))];
    match &scene.scenario {
        Some(shows) if !here.has(&list, shows) => {
            out.push(Action::Demo(DemoChange::Switching(Some(Switching {
                from: here.session.clone(),
                list: Rc::new(list.clone()),
                to: i,
            }))));
            out.push(Action::OpenScene(shows.clone()));
        }
        _ => out.extend(reach(&here, scene)),
    }
    Some(out)
}

/// Asks for the scene's step in the session loaded. A lesson's step the timeline does not
/// have yet is reached by playing the lesson's workload from the timeline's end (the
/// engine says when it is full).
fn reach(here: &Here, scene: &Scene) -> Vec<Action> {
    let step = scene.timeline_step(here.setup_steps);
    let lesson = matches!(scene.scenario, Some(Shows::Lesson(_)));
    if lesson && step > here.length {
        let mut out = vec![Action::Demo(DemoChange::Reaching(Some(Reaching {
            session: here.session.clone(),
            step,
            played: false,
        })))];
        if here.position < here.length {
            out.push(Action::Jump(here.length));
        }
        out.push(Action::Play);
        out
    } else {
        vec![Action::Demo(DemoChange::Reaching(None)), Action::Jump(step)]
    }
}

/// Ending the demo: no scene on screen, nothing opening or playing towards a scene.
pub fn end() -> Vec<Action> {
    vec![
        Action::Demo(DemoChange::Switching(None)),
        Action::Demo(DemoChange::Reaching(None)),
        Action::Page(SCENE_ENTRY, None),
    ]
}

/// Keeping `list` as the demo's scenes, or saying why it cannot be kept.
pub fn keep(list: &[Scene], w: Words) -> Action {
    if scenes::fits(list) {
        Action::Page(SCENES_ENTRY, Some(scenes::encode(list)))
    } else {
        Action::Notice(Some(Notice::plain(w.tf(
            K::ScenesPanelADemoHoldsAtMost,
            &[
                ("n", &(scenes::MAX_SCENES)),
                ("n2", &(scenes::MAX_ENCODED_BYTES / 1024)),
            ],
        ))))
    }
}

/// What is due in the demo now that the page is as `state` says: a ready-made demo's
/// scenes once its lesson is up, a scene's step once its scenario is up, the step a
/// lesson's workload played towards once it is there. Each clears what made it due, so
/// taking its messages makes nothing due again.
pub fn follow(state: &Playground) -> Vec<Action> {
    let mut out = pending_demo(state);
    if out.is_empty() {
        out = pending_scene(state);
    }
    if out.is_empty() {
        out = reached(state);
    }
    out
}

/// Once the demo's lesson is up, its scenes (at the steps past the lesson's own setup) are
/// set, and the lesson's workload plays so that every scene's step exists.
fn pending_demo(state: &Playground) -> Vec<Action> {
    let up = state.ready && state.replaying.is_none();
    let Some((id, from)) = &state.demo.pending else {
        return Vec::new();
    };
    let Some(demo) = DEMOS.iter().find(|d| d.id == *id) else {
        return vec![Action::Demo(DemoChange::Pending(None))];
    };
    if !up || state.session == *from || state.view.lesson.as_deref() != Some(demo.lesson) {
        return Vec::new();
    }
    let mut out = vec![Action::Demo(DemoChange::Pending(None))];
    out.extend(end());
    out.push(keep(
        &demo.scenes(state.view.setup_steps, state.words),
        state.words,
    ));
    out.push(Action::Play);
    out
}

/// Once the scenario a scene names is up (another session than the one it was asked
/// from), the demo and the scene on screen are set again (a link's replay brings the page
/// state it carried) and the scene's step is asked for. A lesson the engine refused (the
/// page then holds a fresh playground, with its notice) shows nothing.
fn pending_scene(state: &Playground) -> Vec<Action> {
    let here = Here::of(state, None);
    let Some(Switching { from, list, to }) = &state.demo.switching else {
        return Vec::new();
    };
    if !here.up || here.session == *from {
        return Vec::new();
    }
    let mut out = vec![Action::Demo(DemoChange::Switching(None))];
    let Some(scene) = list.get(*to) else {
        return out;
    };
    if let Some(Shows::Lesson(id)) = &scene.scenario {
        if here.lesson.as_deref() != Some(id.as_str()) {
            return out;
        }
    }
    out.push(Action::Page(SCENES_ENTRY, Some(scenes::encode(list))));
    out.push(Action::Page(SCENE_ENTRY, Some(to.to_string())));
    out.extend(reach(&here, scene));
    out
}

/// While a lesson's workload plays towards a scene's step: once the session has that
/// step, or the workload stopped (the engine then refuses a step it lacks, with its
/// notice), the cursor goes there.
fn reached(state: &Playground) -> Vec<Action> {
    let up = state.ready && state.replaying.is_none();
    let Some(g) = state
        .demo
        .reaching
        .as_ref()
        .filter(|g| g.session == state.session && up)
    else {
        return Vec::new();
    };
    let played = g.played || state.playing;
    let stopped = played && !state.playing && state.in_flight == 0;
    if state.view.position.length >= g.step || stopped {
        vec![
            Action::Demo(DemoChange::Reaching(None)),
            Action::Jump(g.step),
        ]
    } else if played != g.played {
        vec![Action::Demo(DemoChange::Reaching(Some(Reaching {
            played,
            ..g.clone()
        })))]
    } else {
        Vec::new()
    }
}
