//! The workload picker and the transport: play, pause, step, step back, speed, progress.

use super::controls::PanelProps;
use crate::state::{Action, Playground, Workload};
use shardlab::workload::preset_names;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The workload and transport bar.
#[function_component(WorkloadPanel)]
pub fn workload_panel(props: &PanelProps) -> Html {
    html! {
        <section class="panel transport" aria-label="Workload">
            { workload_fields(&props.state.workload, &props.dispatch) }
            { transport(&props.state, &props.dispatch) }
        </section>
    }
}

/// The workload's settings: the generator, documents per tick and in all, and whether the
/// balancer runs after each tick. Each change replaces the workload (and stops playing).
fn workload_fields(w: &Workload, dispatch: &Callback<Action>) -> Html {
    let set = {
        let dispatch = dispatch.clone();
        let w = w.clone();
        move |f: Box<dyn Fn(&mut Workload)>| {
            let mut next = w.clone();
            f(&mut next);
            dispatch.emit(Action::SetWorkload(next));
        }
    };
    let on_spec = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let v = select.value();
            set(Box::new(move |w| {
                w.spec = v.clone();
                w.done = 0;
            }));
        })
    };
    let on_batch = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let n = typed_number(&e, 25u32, 1, 5000);
            set(Box::new(move |w| w.batch = n));
        })
    };
    let on_total = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let n = typed_number(&e, 1000u64, 1, 1_000_000);
            set(Box::new(move |w| {
                w.total = n;
                w.done = w.done.min(n);
            }));
        })
    };
    let on_balance = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let on = input.checked();
        set(Box::new(move |w| w.balance = on));
    });
    let known = preset_names().contains(&w.spec.as_str());
    html! {
        <>
            <label class="field">
                <span>{ "Workload" }</span>
                <select data-testid="workload" onchange={on_spec} aria-label="Workload generator">
                    { for preset_names().iter().map(|n| html! {
                        <option value={*n} selected={*n == w.spec}>{ *n }</option>
                    }) }
                    if !known {
                        <option value={w.spec.clone()} selected=true>{ "lesson workload" }</option>
                    }
                </select>
            </label>
            <label class="field">
                <span>{ "Per tick" }</span>
                <input class="tiny" type="number" min="1" max="5000" value={w.batch.to_string()}
                    onchange={on_batch} aria-label="Documents per tick" data-testid="batch" />
            </label>
            <label class="field">
                <span>{ "Total" }</span>
                <input class="narrow" type="number" min="1" value={w.total.to_string()}
                    onchange={on_total} aria-label="Total documents" data-testid="total" />
            </label>
            <label class="check">
                <input type="checkbox" checked={w.balance} onchange={on_balance} aria-label="Run the balancer after each tick" />
                <span>{ "balancer" }</span>
            </label>
        </>
    }
}

/// The playback buttons, the speed and the progress bar.
fn transport(state: &Playground, dispatch: &Callback<Action>) -> Html {
    let w = &state.workload;
    let on_speed = dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::SetSpeed(input.value().parse().unwrap_or(4))
    });
    let progress = if w.total == 0 {
        0.0
    } else {
        w.done as f64 / w.total as f64
    };
    let (position, len) = {
        let t = state.timeline.borrow();
        (t.position(), t.len())
    };
    html! {
        <>
            <div class="buttons" role="group" aria-label="Playback">
                <button data-testid="step-back" title="Step back (←)" aria-label="Step back"
                    disabled={position == 0} onclick={dispatch.reform(|_| Action::StepBack)}>{ "‹ Back" }</button>
                if state.playing {
                    <button data-testid="pause" class="primary" aria-label="Pause" title="Pause (space)"
                        onclick={dispatch.reform(|_| Action::Pause)}>{ "Pause" }</button>
                } else {
                    <button data-testid="play" class="primary" aria-label="Play" title="Play (space)"
                        onclick={dispatch.reform(|_| Action::Play)}>{ "Play" }</button>
                }
                <button data-testid="step" title="Step (→)" aria-label="Step"
                    onclick={dispatch.reform(|_| Action::Step)}>{ "Step ›" }</button>
            </div>
            <label class="field">
                <span>{ format!("Speed {}×", state.speed) }</span>
                <input type="range" min="1" max="30" value={state.speed.to_string()}
                    oninput={on_speed} aria-label="Speed" data-testid="speed" />
            </label>
            <div class="progress" role="progressbar" aria-label="Workload progress"
                aria-valuemin="0" aria-valuemax={w.total.to_string()} aria-valuenow={w.done.to_string()}
                data-testid="progress">
                <div class="progress-fill" style={format!("width: {:.1}%", progress * 100.0)}></div>
                <span class="progress-text">{ format!("{} / {} docs · step {position} of {len}", w.done, w.total) }</span>
            </div>
        </>
    }
}

/// The number typed in the event's input, `fallback` when it is not one, held to `lo..=hi`.
fn typed_number<T: std::str::FromStr + Ord>(e: &Event, fallback: T, lo: T, hi: T) -> T {
    let input: HtmlInputElement = e.target_unchecked_into();
    input
        .value()
        .trim()
        .parse::<T>()
        .unwrap_or(fallback)
        .clamp(lo, hi)
}
