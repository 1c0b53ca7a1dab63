//! The timeline: a slider over the scenario's steps, the event log with jump-to-event,
//! and "fork from here".

use super::controls::CalmPanelProps;
use crate::state::Action;
use shardlab::engine::EventKind;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// How many of the latest events the log lists.
const SHOWN_EVENTS: usize = 100;

/// The description of event `seq`, from `cache` (sorted by sequence number) or made now
/// and kept.
fn described(cache: &mut Vec<(u64, String)>, seq: u64, make: impl FnOnce() -> String) -> String {
    match cache.binary_search_by_key(&seq, |(s, _)| *s) {
        Ok(i) => cache[i].1.clone(),
        Err(i) => {
            let text = make();
            cache.insert(i, (seq, text.clone()));
            text
        }
    }
}

/// The timeline panel.
#[function_component(TimelinePanel)]
pub fn timeline_panel(props: &CalmPanelProps) -> Html {
    let dispatch = props.dispatch.clone();
    // Descriptions of events already shown, sorted by sequence number (a short list: a hash
    // map would add another table type to the wasm). Events never change while the
    // timeline only grows; a jump or fork can reuse numbers, so the cache is dropped then.
    let cache = use_mut_ref(|| (0u64, Vec::<(u64, String)>::new()));
    let timeline = props.state.timeline.borrow();
    let (position, len) = (timeline.position(), timeline.len());
    let session = timeline.session();
    let ns = props.state.settings.ns.clone();
    let fmt_key = |k: &shardlab::KeyValue| match session.cluster.sharding(&ns) {
        Ok(s) => s.bound_string(k),
        // The collection is gone at this point of the timeline: the values, as mongosh
        // prints them.
        Err(_) => {
            k.0.iter()
                .map(shardlab::shell::format_value)
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let events = session.cluster.events();
    {
        let mut cache = cache.borrow_mut();
        let growing = timeline.at_end() && timeline.len() >= cache.0;
        if !growing {
            cache.1.clear();
        }
        cache.0 = timeline.len();
        if cache.1.len() > 4 * SHOWN_EVENTS {
            cache.1.clear();
        }
    }
    let shown: Vec<Html> = events
        .iter()
        .rev()
        .filter(|e| !matches!(e.kind, EventKind::MoveChunkStart { .. }))
        .take(SHOWN_EVENTS)
        .map(|e| {
            let step = timeline.step_of_event(e.seq);
            let kind = e.kind.changelog_name();
            let jump = step.map(|s| dispatch.reform(move |_| Action::Jump(s)));
            html! {
                <li key={e.seq} class={classes!("event", format!("ev-{}", kind.replace('.', "-")))} data-testid="event" data-kind={kind}>
                    <span class="ev-seq">{ format!("#{}", e.seq) }</span>
                    <span class="ev-kind">{ kind }</span>
                    <span class="ev-text">{ described(&mut cache.borrow_mut().1, e.seq, || e.kind.describe_with(&fmt_key)) }</span>
                    if let (Some(jump), Some(step)) = (jump, step) {
                        <button class="link-button" onclick={jump} aria-label={format!("Jump to step {step}")}
                            title={format!("Jump to step {step}, just after this event")}>{ format!("step {step}") }</button>
                    }
                </li>
            }
        })
        .collect();
    let current_step = position
        .checked_sub(1)
        .and_then(|i| timeline.steps().get(i as usize))
        .cloned()
        .unwrap_or_else(|| "(new cluster)".to_string());
    let on_scrub = dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Jump(input.value().parse().unwrap_or(0))
    });
    html! {
        <section class="panel timeline" aria-label="Timeline">
            <div class="timeline-head">
                <h2>{ "Timeline" }</h2>
                <span class="muted" data-testid="position">{ format!("step {position} of {len}") }</span>
                <button class="secondary" data-testid="fork" disabled={position == len}
                    title="Discard the steps after this point, so that the next action starts a new branch"
                    onclick={dispatch.reform(|_| Action::Fork)}>{ "Fork from here" }</button>
            </div>
            <input type="range" class="scrubber" min="0" max={len.to_string()} value={position.to_string()}
                data-testid="timeline" aria-label="Timeline position" oninput={on_scrub} />
            <p class="current-step" title="The command of the current step"><code>{ current_step }</code></p>
            <ol class="events" aria-label="Event log">{ for shown }</ol>
        </section>
    }
}
