//! The scenario controls: lessons, version mode, shards, chunk size, and the shard key
//! editor that validates as you type.

use crate::state::{Action, Calm, Playground, Settings};
use shardlab::engine::VersionMode;
use shardlab::keys::KeyPattern;
use shardlab::shell::{parse_value, EvalContext};
use shardlab::workload::presets::{Preset, PRESETS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Properties shared by the panels: the state and a way to act on it.
#[derive(Properties, PartialEq)]
pub struct PanelProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// Properties of the timeline panel, which redraws on its calm revision only (see
/// [`Playground::calm_revs`]): while a workload plays, a few times a second.
#[derive(Properties)]
pub struct CalmPanelProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

impl PartialEq for CalmPanelProps {
    fn eq(&self, other: &Self) -> bool {
        self.state.calm_rev(Calm::Timeline) == other.state.calm_rev(Calm::Timeline)
            && self.dispatch == other.dispatch
    }
}

/// Properties of [`Controls`]. The controls show the settings and the lesson only, so they
/// redraw when those change and never on a workload's tick.
#[derive(Properties)]
pub struct ControlsProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

impl PartialEq for ControlsProps {
    fn eq(&self, other: &Self) -> bool {
        self.state.settings == other.state.settings
            && self.state.preset.map(|p| p.id) == other.state.preset.map(|p| p.id)
            && self.dispatch == other.dispatch
    }
}

/// Checks a shard key as typed; `Ok` holds the pattern as mongosh prints it.
pub fn validate_key(text: &str, unique: bool) -> Result<String, String> {
    let value =
        parse_value(text, &mut EvalContext::default()).map_err(|e| format!("SyntaxError: {e}"))?;
    let bson::Bson::Document(doc) = value else {
        return Err("The shard key must be an object such as {x: 1}".to_string());
    };
    let pattern =
        KeyPattern::parse(&doc).map_err(|e| format!("MongoServerError[{}]: {e}", e.code_name()))?;
    pattern
        .check_unique(unique)
        .map_err(|e| format!("MongoServerError[{}]: {e}", e.code_name()))?;
    Ok(shardlab::shell::format_document(
        &pattern.to_pattern_document(),
    ))
}

/// The controls bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let settings = props.state.settings.clone();
    let draft = use_state(|| settings.clone());
    {
        // A new scenario (a lesson, a link) resets the editor to what is running.
        let draft = draft.clone();
        use_effect_with(settings.clone(), move |s| {
            draft.set(s.clone());
            || ()
        });
    }
    let validation = validate_key(&draft.key, draft.unique);
    let on_apply = {
        let draft = draft.clone();
        let dispatch = props.dispatch.clone();
        let valid = validation.is_ok();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if valid {
                dispatch.emit(Action::Setup((*draft).clone()));
            }
        })
    };
    html! {
        <section class="panel controls" aria-label="Scenario">
            { lesson_row(props.state.preset, &props.dispatch) }
            <form class="control-row" onsubmit={on_apply}>
                <label class="field">
                    <span>{ "Collection" }</span>
                    <input class="narrow" value={draft.ns.clone()} spellcheck="false"
                        oninput={edit(&draft, |s, input| { s.ns = input.value(); true })}
                        aria-label="Collection namespace" />
                </label>
                <label class="field grow">
                    <span>{ "Shard key" }</span>
                    <input data-testid="shard-key" value={draft.key.clone()}
                        oninput={edit(&draft, |s, input| { s.key = input.value(); true })}
                        spellcheck="false" aria-label="Shard key"
                        aria-invalid={validation.is_err().to_string()}
                        aria-describedby="key-validation" />
                </label>
                <label class="check">
                    <input type="checkbox" checked={draft.unique} aria-label="Unique shard key"
                        onchange={edit(&draft, |s, input| { s.unique = input.checked(); true })} />
                    <span>{ "unique" }</span>
                </label>
                { cluster_fields(&draft) }
                <button type="submit" data-testid="apply-key" disabled={validation.is_err()}>
                    { "Shard collection" }
                </button>
            </form>
            <p id="key-validation" class={classes!("validation", validation.is_err().then_some("invalid"))}
                data-testid="key-validation" aria-live="polite">
                { match &validation {
                    Ok(p) => format!("✓ valid shard key {p}"),
                    Err(e) => e.clone(),
                } }
            </p>
        </section>
    }
}

/// The cluster's settings in the draft: initial chunks, version mode, shards and chunk size.
fn cluster_fields(draft: &UseStateHandle<Settings>) -> Html {
    let on_version = {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(v) = VersionMode::parse(&select.value()) {
                draft.set(Settings {
                    version: v,
                    ..(*draft).clone()
                });
            }
        })
    };
    html! {
        <>
            <label class="field">
                <span>{ "numInitialChunks" }</span>
                <input class="tiny" type="number" min="1" max="8192"
                    value={draft.initial_chunks.map(|n| n.to_string()).unwrap_or_default()}
                    oninput={edit(draft, |s, input| {
                        s.initial_chunks = input.value().trim().parse::<u32>().ok().filter(|n| *n > 0);
                        true
                    })}
                    aria-label="numInitialChunks" placeholder="auto" />
            </label>
            <label class="field">
                <span>{ "Version" }</span>
                <select onchange={on_version} aria-label="MongoDB version mode" data-testid="version">
                    { for [VersionMode::V36, VersionMode::V50, VersionMode::V80].iter().map(|v| html! {
                        <option value={v.label()} selected={*v == draft.version}>{ v.label() }</option>
                    }) }
                </select>
            </label>
            <label class="field">
                <span>{ "Shards" }</span>
                <input class="tiny" type="number" min="1" max="16" value={draft.shards.to_string()}
                    oninput={edit(draft, |s, input| match input.value().trim().parse::<u32>() {
                        Ok(n) => { s.shards = n.clamp(1, 16); true }
                        Err(_) => false,
                    })}
                    aria-label="Number of shards" />
            </label>
            <label class="field">
                <span>{ "Chunk size (KiB)" }</span>
                <input class="tiny" type="number" min="1" value={(draft.chunk_size / 1024).to_string()}
                    oninput={edit(draft, |s, input| match input.value().trim().parse::<u64>() {
                        Ok(kib) => { s.chunk_size = kib.clamp(1, 1 << 20) * 1024; true }
                        Err(_) => false,
                    })}
                    aria-label="Chunk size in KiB" />
            </label>
        </>
    }
}

/// A callback for one of the draft's inputs: `change` edits a copy of the draft from the
/// input the event came from, and the copy replaces the draft when `change` says it took.
fn edit<E: TargetCast + 'static>(
    draft: &UseStateHandle<Settings>,
    change: impl Fn(&mut Settings, HtmlInputElement) -> bool + 'static,
) -> Callback<E> {
    let draft = draft.clone();
    Callback::from(move |e: E| {
        let mut next = (*draft).clone();
        if change(&mut next, e.target_unchecked_into()) {
            draft.set(next);
        }
    })
}

/// The lesson picker, and the loaded lesson's text.
fn lesson_row(preset: Option<&'static Preset>, dispatch: &Callback<Action>) -> Html {
    let on_lesson = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(p) = PRESETS.iter().find(|p| p.id == select.value()) {
                dispatch.emit(Action::LoadPreset(p.id));
            }
        })
    };
    let current_lesson = preset.map(|p| p.id).unwrap_or("");
    html! {
        <div class="control-row">
            <label class="field">
                <span>{ "Lesson" }</span>
                <select data-testid="preset" onchange={on_lesson} aria-label="Lesson">
                    <option value="" selected={current_lesson.is_empty()}>{ "Free play" }</option>
                    { for PRESETS.iter().map(|p| html! {
                        <option value={p.id} selected={p.id == current_lesson}>{ p.title }</option>
                    }) }
                </select>
            </label>
            if let Some(p) = preset {
                <p class="lesson-text" data-testid="lesson-text">{ p.lesson }</p>
            }
        </div>
    }
}
