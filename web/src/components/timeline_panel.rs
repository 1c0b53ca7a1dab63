//! The timeline: a slider over the session's steps, the event log with jump-to-event,
//! and "fork from here".
//!
//! The cursor and the step's command are the engine's latest view (`Playground::view`);
//! the event log is the model's question (`Call::Events`, `crate::queries`), asked again
//! whenever the cursor, the session or the collection shown changes, and the previous log
//! stays until the new one arrives.

use super::query::{error_text, reply, use_in_sight};
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::state::Action;
use shardlab_protocol::{EventRow, Position, Reply};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`TimelinePanel`]: the cursor and what the log is asked about. The page
/// hands the panel these as they were at its calm revision (see `Playground::calm_rev`),
/// so a workload playing fast does not redraw it every tick.
#[derive(Properties, Clone, PartialEq)]
pub struct TimelineProps {
    /// The cursor.
    pub at: Position,
    /// The command of the step at the cursor (`None` before the first).
    pub step: Option<AttrValue>,
    /// The engine's latest event log (asked only while the panel is in sight).
    pub events: Option<Answer>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// One event of the log, with its jump button when a step follows it.
fn event_row(w: Words, e: &EventRow, dispatch: &Callback<Action>) -> Html {
    let kind = e.kind.clone();
    let jump = e
        .step
        .map(|s| (s, dispatch.reform(move |_| Action::Jump(s))));
    html! {
        <li key={e.seq} class={classes!("event", format!("ev-{}", kind.replace('.', "-")))} data-testid="event" data-kind={kind.clone()}>
            <span class="ev-seq">{ format!("#{}", e.seq) }</span>
            <span class="ev-kind">{ kind }</span>
            <span class="ev-text">{ e.message.as_ref().and_then(|m| w.messages(std::slice::from_ref(m))).unwrap_or_else(|| e.text.clone()) }</span>
            if let Some((step, jump)) = jump {
                <button class="link-button" onclick={jump} aria-label={w.tf(K::TimelinePanelJumpToStepStep, &[("step", &step)])}
                    title={w.tf(K::TimelinePanelJumpToStepStepJust, &[("step", &step)])}>{ w.tf(K::TimelinePanelStepStep, &[("step", &step)]) }</button>
            }
        </li>
    }
}

/// The timeline panel.
#[function_component(TimelinePanel)]
pub fn timeline_panel(props: &TimelineProps) -> Html {
    let w = super::lang_switch::use_words();
    let dispatch = props.dispatch.clone();
    use_in_sight(Asker::Timeline, &dispatch);
    let events: Html = match reply(&props.events) {
        None => Html::default(),
        Some(Ok(Reply::Events { rows })) => rows
            .iter()
            // The engine leaves the start of a migration out; it is checked here too, as
            // the log has always shown a migration once, by its commit.
            .filter(|e| e.kind != "moveChunk.start")
            .map(|e| event_row(w, e, &dispatch))
            .collect(),
        Some(Ok(_)) => Html::default(),
        Some(Err(e)) => html! { <li class="error">{ error_text(e) }</li> },
    };
    let (position, len) = (props.at.position, props.at.length);
    let current_step = props
        .step
        .clone()
        .unwrap_or_else(|| AttrValue::from(w.t(K::TimelinePanelNewCluster)));
    let on_scrub = dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Jump(input.value().parse().unwrap_or(0))
    });
    html! {
        <section class="panel timeline" aria-label={w.t(K::TimelinePanelTimeline)}>
            <div class="timeline-head">
                <h2>{ w.t(K::TimelinePanelTimeline) }</h2>
                <span class="muted" data-testid="position">{ w.tf(K::TimelinePanelStepPositionOfLen, &[("position", &position), ("len", &len)]) }</span>
                <button class="secondary" data-testid="fork" disabled={position == len}
                    title={w.t(K::TimelinePanelDiscardTheStepsAfterThis)}
                    onclick={dispatch.reform(|_| Action::Fork)}>{ w.t(K::TimelinePanelForkFromHere) }</button>
            </div>
            <input type="range" class="scrubber" min="0" max={len.to_string()} value={position.to_string()}
                data-testid="timeline" aria-label={w.t(K::TimelinePanelTimelinePosition)} oninput={on_scrub} />
            <p class="current-step" title={w.t(K::TimelinePanelTheCommandOfTheCurrent)}><code>{ current_step }</code></p>
            <ol class="events" aria-label={w.t(K::TimelinePanelEventLog)}>{ events }</ol>
        </section>
    }
}
