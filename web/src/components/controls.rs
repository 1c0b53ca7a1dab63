//! The scenario controls: lessons, version mode, shards, chunk size, and the shard key
//! editor that validates as you type.

use super::term::Term;
use crate::state::{Action, Calm, Playground, Settings};
use shardlab::engine::VersionMode;
use shardlab::keys::KeyPattern;
use shardlab::workload::presets::{Preset, PRESETS};
use std::rc::Rc;
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

/// Properties of a panel that redraws on its calm revision only (the timeline, the
/// inspector, the heatmap) (see
/// [`Playground::calm_revs`]): while a workload plays, a few times a second.
#[derive(Properties)]
pub struct CalmPanelProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Whose calm revision the panel follows (the timeline's unless said).
    #[prop_or(Calm::Timeline)]
    pub calm: Calm,
}

impl PartialEq for CalmPanelProps {
    fn eq(&self, other: &Self) -> bool {
        self.calm == other.calm
            && self.state.calm_rev(self.calm) == other.state.calm_rev(other.calm)
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
        // The collection list's counts follow the cluster: redrawn with the picture.
        self.state.settings == other.state.settings
            && self.state.preset.map(|p| p.id) == other.state.preset.map(|p| p.id)
            && Rc::ptr_eq(&self.state.view, &other.state.view)
            && self.dispatch == other.dispatch
    }
}

pub use shardlab_engine::queries::{key_text, parse_key, validate_key};

/// What applying the draft does to the cluster at the cursor.
#[derive(Clone, Debug, PartialEq)]
enum Apply {
    /// Nothing differs from the cluster.
    Nothing,
    /// Commands on this cluster, one timeline step.
    Step(String),
    /// The viewed collection holds documents and the key changes: refine, reshard or
    /// start over, as the user chooses.
    ChangeKey {
        /// The documents at stake.
        docs: u64,
        /// The chunk size command to run first, if the size changes.
        prefix: String,
    },
    /// The version or the shard count changes: a new cluster.
    NewCluster,
}

/// What applying `draft` on top of `current` (the cluster's settings, see
/// [`Playground::derive_settings`]) does, given the documents in the draft's collection
/// and whether it is sharded.
fn plan(draft: &Settings, current: &Settings, docs: u64, sharded_on: Option<&KeyPattern>) -> Apply {
    use shardlab::workload::presets::{shard_command, start_over_command};
    if draft.version != current.version || draft.shards != current.shards {
        return Apply::NewCluster;
    }
    let prefix = if draft.chunk_size != current.chunk_size {
        format!(
            "{}; ",
            shardlab::workload::presets::chunk_size_command(draft.chunk_size)
        )
    } else {
        String::new()
    };
    let key = parse_key(&draft.key, draft.unique).ok();
    let ns = draft.ns.trim();
    let command = match sharded_on {
        None => shard_command(ns, &draft.key, draft.unique, draft.initial_chunks),
        Some(old) if key.as_ref() == Some(old) && draft.unique == current.unique => String::new(),
        Some(_) if docs > 0 => return Apply::ChangeKey { docs, prefix },
        Some(_) => start_over_command(ns, &draft.key, draft.unique, draft.initial_chunks),
    };
    let script = format!("{prefix}{command}");
    let script = script.trim().trim_end_matches(';').trim().to_string();
    if script.is_empty() {
        Apply::Nothing
    } else {
        Apply::Step(script)
    }
}

/// The controls bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let settings = props.state.settings.clone();
    let draft = use_state(|| settings.clone());
    // The key change or new cluster waiting for the user's choice or confirmation.
    let asking = use_state(|| None::<Apply>);
    let confirm_drop = use_state(|| false);
    {
        // The cluster changed (a command, a step, a lesson, a link): the editor shows it.
        let (draft, asking, confirm_drop) = (draft.clone(), asking.clone(), confirm_drop.clone());
        use_effect_with(settings.clone(), move |s| {
            draft.set(s.clone());
            asking.set(None);
            confirm_drop.set(false);
            || ()
        });
    }
    let validation = validate_key(&draft.key, draft.unique);
    let (docs, sharded_on) = {
        let timeline = props.state.timeline.borrow();
        let cluster = &timeline.session().cluster;
        let coll = cluster.collections().get(draft.ns.trim());
        (
            coll.map_or(0, |c| c.doc_count()),
            coll.and_then(|c| c.sharding.as_ref())
                .map(|s| s.pattern.clone()),
        )
    };
    let apply = plan(&draft, &settings, docs, sharded_on.as_ref());
    let on_apply = {
        let dispatch = props.dispatch.clone();
        let (asking, apply) = (asking.clone(), apply.clone());
        let valid = validation.is_ok();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if !valid {
                return;
            }
            match &apply {
                Apply::Nothing => {}
                Apply::Step(script) => dispatch.emit(Action::Auto(script.clone())),
                other => asking.set(Some(other.clone())),
            }
        })
    };
    let label = match apply {
        Apply::Nothing => "Nothing to apply",
        Apply::Step(_) if sharded_on.is_none() => "Shard collection",
        Apply::Step(_) => "Apply",
        Apply::ChangeKey { .. } => "Change the key…",
        Apply::NewCluster => "New cluster…",
    };
    html! {
        <section class="panel controls" aria-label="Scenario">
            { lesson_row(props.state.preset, &props.dispatch) }
            { collection_picker(&props.state, &props.dispatch) }
            <form class="control-row" onsubmit={on_apply}>
                <label class="field">
                    <span>{ "Collection" }</span>
                    <input class="narrow" value={draft.ns.clone()} spellcheck="false" data-testid="collection"
                        oninput={edit(&draft, |s, input| { s.ns = input.value(); true })}
                        aria-label="Collection namespace" />
                </label>
                <label class="field grow">
                    <span><Term id="shard-key" label="Shard key" /></span>
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
                <button type="submit" data-testid="apply-key" disabled={validation.is_err() || apply == Apply::Nothing}>
                    { label }
                </button>
            </form>
            <p id="key-validation" class={classes!("validation", validation.is_err().then_some("invalid"))}
                data-testid="key-validation" aria-live="polite">
                { match &validation {
                    Ok(p) => format!("✓ valid shard key {p}"),
                    Err(e) => e.clone(),
                } }
            </p>
            if let Some(choice) = &*asking {
                { choice_view(choice, &draft, &settings, sharded_on.as_ref(), &props.dispatch, &asking, &confirm_drop) }
            }
        </section>
    }
}

/// The choices for a key change on a collection with documents, or the confirmation of a
/// new cluster. Each choice is one timeline step (a new cluster keeps the old session for
/// "Return to your session").
fn choice_view(
    choice: &Apply,
    draft: &Settings,
    current: &Settings,
    sharded_on: Option<&KeyPattern>,
    dispatch: &Callback<Action>,
    asking: &UseStateHandle<Option<Apply>>,
    confirm_drop: &UseStateHandle<bool>,
) -> Html {
    use shardlab::workload::presets::{refine_command, reshard_command, start_over_command};
    let cancel = {
        let (asking, confirm_drop) = (asking.clone(), confirm_drop.clone());
        Callback::from(move |_: MouseEvent| {
            asking.set(None);
            confirm_drop.set(false);
        })
    };
    let run = |script: String| {
        let dispatch = dispatch.clone();
        let asking = asking.clone();
        Callback::from(move |_: MouseEvent| {
            asking.set(None);
            dispatch.emit(Action::Auto(script.clone()));
        })
    };
    let ns = draft.ns.trim().to_string();
    let new_pattern = parse_key(&draft.key, draft.unique).ok();
    let new_key = new_pattern.as_ref().map(key_text).unwrap_or_default();
    match choice {
        Apply::NewCluster => {
            let on_new = {
                let (dispatch, asking, draft) = (dispatch.clone(), asking.clone(), draft.clone());
                Callback::from(move |_: MouseEvent| {
                    asking.set(None);
                    dispatch.emit(Action::Setup(draft.clone()));
                })
            };
            html! {
                <div class="choice" role="group" aria-label="Start a new cluster" data-testid="new-cluster">
                    <p>{ format!(
                        "The version mode and the shard count are fixed for a cluster's life: {} shards in {} mode need a new cluster, which starts empty. Your current session is kept, and a notice offers the way back to it.",
                        draft.shards, draft.version.label()
                    ) }</p>
                    <button class="primary" data-testid="confirm-new-cluster" onclick={on_new}>{ "Start the new cluster" }</button>
                    <button class="secondary" onclick={cancel}>{ "Cancel" }</button>
                </div>
            }
        }
        Apply::ChangeKey { docs, prefix } => {
            let old = sharded_on.map(key_text).unwrap_or_default();
            let extends = sharded_on
                .zip(new_pattern.as_ref())
                .is_some_and(|(o, n)| o.is_extended_by(n) && o.len() < n.len());
            // The core says which commands this version mode's mongos has.
            let missing = |command: &str| {
                (!shardlab::session::has_command(current.version, command))
                    .then(|| format!("{} mode has no {command}.", current.version.label()))
            };
            let refine_why = missing("refineCollectionShardKey").or_else(|| {
                (!extends).then(|| format!("Refining only adds fields after the current key's: {new_key} does not start with {old}."))
            });
            let reshard_why = missing("reshardCollection");
            let refine = format!("{prefix}{}", refine_command(&ns, &draft.key));
            let reshard = format!("{prefix}{}", reshard_command(&ns, &draft.key));
            let over = format!(
                "{prefix}{}",
                start_over_command(&ns, &draft.key, draft.unique, draft.initial_chunks)
            );
            html! {
                <div class="choice" role="group" aria-label="Change the shard key" data-testid="key-change">
                    <p>{ format!("{ns} holds {docs} documents sharded on {old}. How should it move to {new_key}? Each choice is one step on the timeline: ‹ Back undoes it.") }</p>
                    <div class="choice-row">
                        <button data-testid="key-refine" disabled={refine_why.is_some()} onclick={run(refine)}>
                            { format!("Refine to {new_key}") }
                        </button>
                        <span class="muted">{ refine_why.unwrap_or_else(|| "Keeps every document and chunk; adds an index on the new key first.".to_string()) }</span>
                    </div>
                    <div class="choice-row">
                        <button data-testid="key-reshard" disabled={reshard_why.is_some()} onclick={run(reshard)}>
                            { format!("Reshard on {new_key}") }
                        </button>
                        <span class="muted">{ reshard_why.unwrap_or_else(|| format!("Keeps the {docs} documents and redistributes them by the new key.")) }</span>
                    </div>
                    <div class="choice-row">
                        if **confirm_drop {
                            <button class="danger" data-testid="key-start-over-confirm" onclick={run(over)}>
                                { format!("Drop the {docs} documents and shard again") }
                            </button>
                        } else {
                            <button data-testid="key-start-over" onclick={{ let c = confirm_drop.clone(); Callback::from(move |_: MouseEvent| c.set(true)) }}>
                                { "Start over…" }
                            </button>
                        }
                        <span class="muted">{ format!("Drops {ns} and shards it again, empty, on {new_key}.") }</span>
                    </div>
                    <button class="secondary" data-testid="key-change-cancel" onclick={cancel}>{ "Cancel" }</button>
                </div>
            }
        }
        Apply::Nothing | Apply::Step(_) => html! {},
    }
}

/// The collections of the cluster at the cursor, to pick the one the page shows: sharded
/// ones with their key, unsharded ones with their primary shard.
fn collection_picker(state: &Playground, dispatch: &Callback<Action>) -> Html {
    let timeline = state.timeline.borrow();
    let cluster = &timeline.session().cluster;
    let viewed = state.settings.ns.clone();
    let options: Vec<(String, String)> = cluster
        .collections()
        .iter()
        .map(|(ns, c)| {
            let about = match &c.sharding {
                Some(s) => format!(
                    "sharded on {}",
                    shardlab::shell::format_document(&s.pattern.to_pattern_document())
                ),
                None => {
                    let db = ns.split('.').next().unwrap_or_default();
                    match cluster.databases().get(db) {
                        Some(primary) => {
                            format!("unsharded, on {}", cluster.shard_name(primary.primary))
                        }
                        None => "unsharded".to_string(),
                    }
                }
            };
            (
                ns.clone(),
                format!("{ns} · {about} · {} docs", c.doc_count()),
            )
        })
        .collect();
    let on_pick = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::View(select.value())
    });
    html! {
        <div class="control-row">
            <label class="field grow">
                <span>{ "Showing" }</span>
                <select data-testid="collection-picker" onchange={on_pick} aria-label="Collection shown">
                    if !options.iter().any(|(ns, _)| *ns == viewed) {
                        <option value={viewed.clone()} selected=true>{ format!("{viewed} · does not exist yet") }</option>
                    }
                    { for options.iter().map(|(ns, text)| html! {
                        <option value={ns.clone()} selected={*ns == viewed}>{ text.clone() }</option>
                    }) }
                </select>
            </label>
        </div>
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
                <span><Term id="numInitialChunks" label="numInitialChunks" /></span>
                <input class="tiny" type="number" min="1" max="8192"
                    value={draft.initial_chunks.map(|n| n.to_string()).unwrap_or_default()}
                    oninput={edit(draft, |s, input| {
                        s.initial_chunks = input.value().trim().parse::<u32>().ok().filter(|n| *n > 0);
                        true
                    })}
                    aria-label="numInitialChunks" placeholder="auto" />
            </label>
            <label class="field">
                <span><Term id="version" label="Version" /></span>
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
