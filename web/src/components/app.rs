//! The page: lesson and cluster controls on top, the key-space bar and the shards in the
//! middle, the timeline, console and insights below.

use super::cluster_view::ClusterPanel;
use super::compare_view::CompareView;
use super::console::Console;
use super::controls::Controls;
use super::guide::Guide;
use super::insights::Insights;
use super::key_bar::KeyBar;
use super::tabs::{Mode, Tabs};
use super::timeline_panel::TimelinePanel;
use super::workload_panel::WorkloadPanel;
use super::workshop::use_workshop;
use crate::state::{Action, Playground};
use gloo::timers::callback::Interval;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The root component.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(Playground::default);
    let targeted = use_state(Vec::<String>::new);
    let mode = use_state(Mode::default);
    let (workshop, toggle_workshop) = use_workshop();
    let on_target = {
        let targeted = targeted.clone();
        Callback::from(move |s: Vec<String>| targeted.set(s))
    };
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a: Action| state.dispatch(a))
    };

    // While playing, a timer runs one workload batch per tick. Each tick is a small slice
    // of work, so the page stays responsive however long the workload is.
    {
        let state = state.clone();
        use_effect_with((state.playing, state.speed), move |(playing, speed)| {
            let interval = playing.then(|| {
                let state = state.clone();
                Interval::new(1000 / (*speed).max(1), move || state.dispatch(Action::Tick))
            });
            move || drop(interval)
        });
    }

    // Keyboard shortcuts, ignored while typing: space plays or pauses, the arrows step.
    {
        let state = state.clone();
        use_effect_with(state.playing, move |playing| {
            let playing = *playing;
            let listener =
                gloo::events::EventListener::new(&gloo::utils::document(), "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    let typing = gloo::utils::document().active_element().is_some_and(|el| {
                        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    });
                    if typing || e.ctrl_key() || e.meta_key() || e.alt_key() {
                        return;
                    }
                    let action = match e.key().as_str() {
                        " " => Some(if playing { Action::Pause } else { Action::Play }),
                        "ArrowRight" => Some(Action::Step),
                        "ArrowLeft" => Some(Action::StepBack),
                        _ => None,
                    };
                    if let Some(action) = action {
                        e.prevent_default();
                        state.dispatch(action);
                    }
                });
            move || drop(listener)
        });
    }

    html! {
        <div class={classes!("page", workshop.then_some("workshop"))}>
            <header class="masthead">
                <h1>{ "ShardLab" }</h1>
                <p class="tagline">{ "Watch a MongoDB shard key decide where your documents go." }</p>
            </header>
            <Tabs mode={*mode} on_select={{ let mode = mode.clone(); Callback::from(move |m| mode.set(m)) }}
                workshop={workshop} on_workshop={toggle_workshop} />
            if let Some(notice) = &state.notice {
                <div class="notice" role="status" data-testid="notice">
                    <span>{ notice.clone() }</span>
                    <button class="link-button" aria-label="Dismiss notice"
                        onclick={dispatch.reform(|_| Action::Notice(None))}>{ "×" }</button>
                </div>
            }
            if *mode == Mode::Compare {
            <CompareView />
            } else {
            if *mode == Mode::Guide {
                <Guide state={(*state).clone()} dispatch={dispatch.clone()}
                    on_close={{ let mode = mode.clone(); Callback::from(move |()| mode.set(Mode::Playground)) }} />
            }
            <Controls state={(*state).clone()} dispatch={dispatch.clone()} />
            <WorkloadPanel state={(*state).clone()} dispatch={dispatch.clone()} />
            <KeyBar view={state.view.clone()} />
            <ClusterPanel state={(*state).clone()} dispatch={dispatch.clone()} targeted={(*targeted).clone()} />
            <div class="lower">
                <TimelinePanel state={(*state).clone()} dispatch={dispatch.clone()} />
                <Console state={(*state).clone()} dispatch={dispatch.clone()} />
            </div>
            <Insights state={(*state).clone()} on_target={on_target} />
            }
        </div>
    }
}
