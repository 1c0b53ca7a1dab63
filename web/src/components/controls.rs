//! The scenario controls: lessons, version mode, shards, chunk size, and the shard key
//! editor that validates as you type.

use crate::state::{Action, Calm, Playground, Settings};
use shardlab::engine::VersionMode;
use shardlab::keys::KeyPattern;
use shardlab::shell::{parse_value, EvalContext};
use shardlab::workload::presets::PRESETS;
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

    let on_key = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            draft.set(Settings {
                key: input.value(),
                ..(*draft).clone()
            });
        })
    };
    let on_unique = {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            draft.set(Settings {
                unique: input.checked(),
                ..(*draft).clone()
            });
        })
    };
    let on_initial = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let n = input.value().trim().parse::<u32>().ok().filter(|n| *n > 0);
            draft.set(Settings {
                initial_chunks: n,
                ..(*draft).clone()
            });
        })
    };
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
    let on_shards = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().trim().parse::<u32>() {
                draft.set(Settings {
                    shards: n.clamp(1, 16),
                    ..(*draft).clone()
                });
            }
        })
    };
    let on_chunk = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(kib) = input.value().trim().parse::<u64>() {
                draft.set(Settings {
                    chunk_size: kib.clamp(1, 1 << 20) * 1024,
                    ..(*draft).clone()
                });
            }
        })
    };
    let on_ns = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            draft.set(Settings {
                ns: input.value(),
                ..(*draft).clone()
            });
        })
    };
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
    let on_lesson = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(p) = PRESETS.iter().find(|p| p.id == select.value()) {
                dispatch.emit(Action::LoadPreset(p.id));
            }
        })
    };
    let current_lesson = props.state.preset.map(|p| p.id).unwrap_or("");

    html! {
        <section class="panel controls" aria-label="Scenario">
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
                if let Some(p) = props.state.preset {
                    <p class="lesson-text" data-testid="lesson-text">{ p.lesson }</p>
                }
            </div>
            <form class="control-row" onsubmit={on_apply}>
                <label class="field">
                    <span>{ "Collection" }</span>
                    <input class="narrow" value={draft.ns.clone()} oninput={on_ns} spellcheck="false"
                        aria-label="Collection namespace" />
                </label>
                <label class="field grow">
                    <span>{ "Shard key" }</span>
                    <input data-testid="shard-key" value={draft.key.clone()} oninput={on_key}
                        spellcheck="false" aria-label="Shard key"
                        aria-invalid={validation.is_err().to_string()}
                        aria-describedby="key-validation" />
                </label>
                <label class="check">
                    <input type="checkbox" checked={draft.unique} onchange={on_unique} aria-label="Unique shard key" />
                    <span>{ "unique" }</span>
                </label>
                <label class="field">
                    <span>{ "numInitialChunks" }</span>
                    <input class="tiny" type="number" min="1" max="8192"
                        value={draft.initial_chunks.map(|n| n.to_string()).unwrap_or_default()}
                        oninput={on_initial} aria-label="numInitialChunks" placeholder="auto" />
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
                        oninput={on_shards} aria-label="Number of shards" />
                </label>
                <label class="field">
                    <span>{ "Chunk size (KiB)" }</span>
                    <input class="tiny" type="number" min="1" value={(draft.chunk_size / 1024).to_string()}
                        oninput={on_chunk} aria-label="Chunk size in KiB" />
                </label>
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
