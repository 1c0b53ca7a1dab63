//! The scenario controls: lessons, version mode, shards, chunk size, and the shard key
//! editor that validates as you type.

use super::query::{reply, use_in_sight};
use super::term::Term;
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::state::Action;
use shardlab_protocol::{Catalog, CollectionInfo, PageSetup, Position, Reply, SetupPlan};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The settings form's values (the protocol's [`PageSetup`]).
pub type Settings = PageSetup;

/// Properties of [`Controls`]: the settings, the collections of the cluster at the
/// cursor and the versions, so that the controls redraw when those change (the collection
/// list's counts follow the cluster) and never for the rest of the page.
#[derive(Properties)]
pub struct ControlsProps {
    /// The cursor: the cluster a change of the settings is planned on.
    pub at: Position,
    /// The settings form's values: the cluster's.
    pub settings: Settings,
    /// The form as the user edited it (the settings, until edited).
    pub draft: Settings,
    /// The engine's plan of a draft: what applying it would do, on the cluster at the
    /// cursor (the previous plan until the answer about a new draft comes).
    pub plan: Option<Answer>,
    /// Every collection at the cursor, in namespace order.
    pub collections: Vec<CollectionInfo>,
    /// The catalogue whose versions the form offers.
    pub catalog: Rc<Catalog>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

impl PartialEq for ControlsProps {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at
            && self.settings == other.settings
            && self.draft == other.draft
            && self.plan == other.plan
            && self.collections == other.collections
            && Rc::ptr_eq(&self.catalog, &other.catalog)
            && self.dispatch == other.dispatch
    }
}

/// The controls bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let w = super::lang_switch::use_words();
    let settings = props.settings.clone();
    use_in_sight(Asker::Plan, &props.dispatch);
    let draft = Drafting {
        value: props.draft.clone(),
        dispatch: props.dispatch.clone(),
    };
    // The key change or new cluster waiting for the user's choice or confirmation.
    let asking = use_state(|| None::<SetupPlan>);
    let confirm_drop = use_state(|| false);
    {
        // The cluster changed (a command, a step, a lesson, a link): the editor shows it.
        let (asking, confirm_drop) = (asking.clone(), confirm_drop.clone());
        use_effect_with(settings.clone(), move |_| {
            asking.set(None);
            confirm_drop.set(false);
            || ()
        });
    }
    let plan = plan(&props.plan);
    let invalid = matches!(plan, SetupPlan::Invalid { .. });
    let nothing = matches!(plan, SetupPlan::Nothing { .. });
    let on_apply = {
        let dispatch = props.dispatch.clone();
        let (asking, plan) = (asking.clone(), plan.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match &plan {
                SetupPlan::Invalid { .. } | SetupPlan::Nothing { .. } => {}
                SetupPlan::Step { script, .. } => dispatch.emit(Action::Auto(script.clone())),
                other => asking.set(Some(other.clone())),
            }
        })
    };
    let label = plan_label(w, &plan);
    let validation = plan_key(&plan);
    html! {
        <section class="panel controls" aria-label={w.t(K::ControlsScenario)}>
            { collection_picker(w, &props.settings.ns, &props.collections, &props.dispatch) }
            <form class="control-row" onsubmit={on_apply}>
                <label class="field">
                    <span>{ w.t(K::ControlsCollection) }</span>
                    <input class="narrow" value={draft.ns.clone()} spellcheck="false" data-testid="collection"
                        oninput={edit(&draft, |s, input| { s.ns = input.value(); true })}
                        aria-label={w.t(K::ControlsCollectionNamespace)} />
                </label>
                <label class="field grow">
                    <span><Term id="shard-key" label={w.t(K::CompareViewShardKey)} /></span>
                    <input data-testid="shard-key" value={draft.key.clone()}
                        oninput={edit(&draft, |s, input| { s.key = input.value(); true })}
                        spellcheck="false" aria-label={w.t(K::CompareViewShardKey)}
                        aria-invalid={validation.is_err().to_string()}
                        aria-describedby="key-validation" />
                </label>
                <label class="check">
                    <input type="checkbox" checked={draft.unique} aria-label={w.t(K::ControlsUniqueShardKey)}
                        onchange={edit(&draft, |s, input| { s.unique = input.checked(); true })} />
                    <span>{ w.t(K::ControlsUnique) }</span>
                </label>
                { cluster_fields(w, &draft, &props.catalog) }
                <button type="submit" data-testid="apply-key" disabled={invalid || nothing}>
                    { label }
                </button>
            </form>
            { validation_line(w, &validation) }
            if let Some(choice) = &*asking {
                { choice_view(w, choice, &draft, &props.dispatch, &asking, &confirm_drop) }
            }
        </section>
    }
}

/// What applying the draft does, as the engine planned it.
fn plan(answer: &Option<Answer>) -> SetupPlan {
    match reply(answer) {
        Some(Ok(Reply::PlanSetup(p))) => p.clone(),
        Some(Err(e)) => SetupPlan::Invalid {
            error: e.message.clone(),
        },
        _ => SetupPlan::Nothing { key: String::new() },
    }
}

/// The settings form's draft as the model keeps it: setting it tells the model.
#[derive(Clone)]
struct Drafting {
    value: Settings,
    dispatch: Callback<Action>,
}

impl Drafting {
    /// Replaces the draft.
    fn set(&self, draft: Settings) {
        self.dispatch.emit(Action::Draft(draft));
    }
}

impl std::ops::Deref for Drafting {
    type Target = Settings;
    fn deref(&self) -> &Settings {
        &self.value
    }
}

/// The apply button's label for a plan.
fn plan_label(w: Words, plan: &SetupPlan) -> &'static str {
    match plan {
        SetupPlan::Nothing { .. } | SetupPlan::Invalid { .. } => w.t(K::ControlsNothingToApply),
        SetupPlan::Step { shards: true, .. } => w.t(K::ControlsShardCollection),
        SetupPlan::Step { .. } => w.t(K::ControlsApply),
        SetupPlan::ChangeKey { .. } => w.t(K::ControlsChangeTheKey),
        SetupPlan::NewCluster { .. } => w.t(K::ControlsNewCluster),
    }
}

/// The draft's key as mongosh prints it, or MongoDB's error about it.
fn plan_key(plan: &SetupPlan) -> Result<String, String> {
    match plan {
        SetupPlan::Invalid { error } => Err(error.clone()),
        SetupPlan::Nothing { key }
        | SetupPlan::Step { key, .. }
        | SetupPlan::ChangeKey { key, .. }
        | SetupPlan::NewCluster { key } => Ok(key.clone()),
    }
}

/// The line under the key editor: valid, with the key as mongosh prints it, or why not.
fn validation_line(w: Words, validation: &Result<String, String>) -> Html {
    html! {
        <p id="key-validation" class={classes!("validation", validation.is_err().then_some("invalid"))}
            data-testid="key-validation" aria-live="polite">
            { match validation {
                Ok(p) if p.is_empty() => String::new(),
                Ok(p) => w.tf(K::ControlsValidShardKeyP, &[("p", &p)]),
                Err(e) => e.clone(),
            } }
        </p>
    }
}

/// The choices for a key change on a collection with documents, or the confirmation of a
/// new cluster. Each choice is one timeline step (a new cluster keeps the old session for
/// "Return to your session"). The scripts are the engine's.
fn choice_view(
    w: Words,
    choice: &SetupPlan,
    draft: &Settings,
    dispatch: &Callback<Action>,
    asking: &UseStateHandle<Option<SetupPlan>>,
    confirm_drop: &UseStateHandle<bool>,
) -> Html {
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
    match choice {
        SetupPlan::NewCluster { .. } => {
            let on_new = {
                let (dispatch, asking, draft) = (dispatch.clone(), asking.clone(), draft.clone());
                Callback::from(move |_: MouseEvent| {
                    asking.set(None);
                    dispatch.emit(Action::Setup(draft.clone()));
                })
            };
            html! {
                <div class="choice" role="group" aria-label={w.t(K::ControlsStartANewCluster)} data-testid="new-cluster">
                    <p>{ w.tf(K::ControlsTheVersionModeAndThe, &[("shards", &draft.shards), ("version", &draft.version)]) }</p>
                    <button class="primary" data-testid="confirm-new-cluster" onclick={on_new}>{ w.t(K::ControlsStartTheNewCluster) }</button>
                    <button class="secondary" onclick={cancel}>{ w.t(K::ConsoleCancel) }</button>
                </div>
            }
        }
        SetupPlan::ChangeKey { .. } => change_key_view(w, choice, &run, cancel, confirm_drop),
        _ => html! {},
    }
}

/// The three ways to a new key on a collection with documents (refine, reshard, start
/// over), each one timeline step, with why a way is closed.
fn change_key_view(
    w: Words,
    choice: &SetupPlan,
    run: &dyn Fn(String) -> Callback<MouseEvent>,
    cancel: Callback<MouseEvent>,
    confirm_drop: &UseStateHandle<bool>,
) -> Html {
    let SetupPlan::ChangeKey {
        key: new_key,
        ns,
        docs,
        old,
        refine,
        reshard,
        refine_words,
        reshard_words,
        over,
    } = choice
    else {
        return html! {};
    };
    // Why a way is closed, in the page's language (the engine's English otherwise).
    let why = |r: &Result<String, String>, words: &Option<Box<shardlab_protocol::MessageView>>| {
        let english = r.as_ref().err()?;
        let worded = words
            .as_deref()
            .and_then(|m| w.messages(std::slice::from_ref(m)));
        Some(worded.unwrap_or_else(|| english.clone()))
    };
    let (refine_why, reshard_why) = (why(refine, refine_words), why(reshard, reshard_words));
    html! {
        <div class="choice" role="group" aria-label={w.t(K::ControlsChangeTheShardKey)} data-testid="key-change">
            <p>{ w.tf(K::ControlsNsHoldsDocsShardedOn, &[("ns", ns), ("docs", docs), ("old", old), ("new_key", new_key)]) }</p>
            <div class="choice-row">
                <button data-testid="key-refine" disabled={refine_why.is_some()} onclick={run(refine.clone().unwrap_or_default())}>
                    { w.tf(K::ControlsRefineToNewKey, &[("new_key", &new_key)]) }
                </button>
                <span class="muted">{ refine_why.unwrap_or_else(|| w.t(K::ControlsKeepsEveryDocumentAndChunk).to_string()) }</span>
            </div>
            <div class="choice-row">
                <button data-testid="key-reshard" disabled={reshard_why.is_some()} onclick={run(reshard.clone().unwrap_or_default())}>
                    { w.tf(K::ControlsReshardOnNewKey, &[("new_key", &new_key)]) }
                </button>
                <span class="muted">{ reshard_why.unwrap_or_else(|| w.tf(K::ControlsKeepsTheDocsDocumentsAnd, &[("docs", &docs)])) }</span>
            </div>
            <div class="choice-row">
                if **confirm_drop {
                    <button class="danger" data-testid="key-start-over-confirm" onclick={run(over.clone())}>
                        { w.tf(K::ControlsDropTheDocsDocumentsAnd, &[("docs", &docs)]) }
                    </button>
                } else {
                    <button data-testid="key-start-over" onclick={{ let c = confirm_drop.clone(); Callback::from(move |_: MouseEvent| c.set(true)) }}>
                        { w.t(K::ControlsStartOver) }
                    </button>
                }
                <span class="muted">{ w.tf(K::ControlsDropsNsAndShardsIt, &[("ns", &ns), ("new_key", &new_key)]) }</span>
            </div>
            <button class="secondary" data-testid="key-change-cancel" onclick={cancel}>{ w.t(K::ConsoleCancel) }</button>
        </div>
    }
}

/// The collections of the cluster at the cursor, to pick the one the page shows: sharded
/// ones with their key, unsharded ones with their primary shard.
fn collection_picker(
    w: Words,
    viewed: &str,
    collections: &[CollectionInfo],
    dispatch: &Callback<Action>,
) -> Html {
    let viewed = viewed.to_string();
    let options: Vec<(String, String)> = collections
        .iter()
        .map(|c| {
            let about = match (&c.key, &c.primary) {
                (key, _) if !key.is_empty() => w.tf(K::ControlsShardedOnKey, &[("key", &key)]),
                (_, Some(primary)) => w.tf(K::ControlsUnshardedOnPrimary, &[("primary", &primary)]),
                _ => w.t(K::ControlsUnsharded).to_string(),
            };
            (
                c.ns.clone(),
                format!("{} · {about} · {}", c.ns, w.count(c.docs, "doc")),
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
                <span>{ w.t(K::ControlsShowing) }</span>
                <select data-testid="collection-picker" onchange={on_pick} aria-label={w.t(K::ControlsCollectionShown)}>
                    if !options.iter().any(|(ns, _)| *ns == viewed) {
                        <option value={viewed.clone()} selected=true>{ w.tf(K::ControlsViewedDoesNotExistYet, &[("viewed", &viewed)]) }</option>
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
fn cluster_fields(w: Words, draft: &Drafting, catalog: &Catalog) -> Html {
    let on_version = {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            draft.set(Settings {
                version: select.value(),
                ..(*draft).clone()
            });
        })
    };
    let versions: Vec<String> = if catalog.versions.is_empty() {
        vec![draft.version.clone()]
    } else {
        catalog.versions.iter().map(|v| v.label.clone()).collect()
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
                    aria-label="numInitialChunks" placeholder={w.t(K::ControlsAuto)} />
            </label>
            <label class="field">
                <span><Term id="version" label={w.t(K::CompareViewVersion)} /></span>
                <select onchange={on_version} aria-label={w.t(K::ControlsMongodbVersionMode)} data-testid="version">
                    { for versions.iter().map(|v| html! {
                        <option value={v.clone()} selected={*v == draft.version}>{ v.clone() }</option>
                    }) }
                </select>
            </label>
            <label class="field">
                <span>{ w.t(K::ControlsShards) }</span>
                <input class="tiny" type="number" min="1" max={shardlab_protocol::MAX_SHARDS.to_string()} value={draft.shards.to_string()}
                    oninput={edit(draft, |s, input| match input.value().trim().parse::<u32>() {
                        Ok(n) => { s.shards = n.clamp(1, shardlab_protocol::MAX_SHARDS); true }
                        Err(_) => false,
                    })}
                    aria-label={w.t(K::ControlsNumberOfShards)} />
            </label>
            <label class="field">
                <span>{ w.t(K::ControlsChunkSizeKib) }</span>
                <input class="tiny" type="number" min="1" value={(draft.chunk_size / 1024).to_string()}
                    oninput={edit(draft, |s, input| match input.value().trim().parse::<u64>() {
                        Ok(kib) => { s.chunk_size = kib.clamp(1, 1 << 20) * 1024; true }
                        Err(_) => false,
                    })}
                    aria-label={w.t(K::ControlsChunkSizeInKib)} />
            </label>
        </>
    }
}

/// A callback for one of the draft's inputs: `change` edits a copy of the draft from the
/// input the event came from, and the copy replaces the draft when `change` says it took.
fn edit<E: TargetCast + 'static>(
    draft: &Drafting,
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

/// Properties of [`LessonRow`]: the lessons and the one loaded only, so that the row
/// redraws when those change and never on a workload's tick.
#[derive(Properties)]
pub struct LessonRowProps {
    /// The catalog whose lessons the picker lists.
    pub catalog: Rc<shardlab_protocol::Catalog>,
    /// The loaded lesson's id.
    pub lesson: Option<String>,
    /// Whether the engine has answered for the session shown (so `lesson` is its lesson,
    /// not the one before a pick still loading).
    #[prop_or(true)]
    pub ready: bool,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

impl PartialEq for LessonRowProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.catalog, &other.catalog)
            && self.lesson == other.lesson
            && self.ready == other.ready
            && self.dispatch == other.dispatch
    }
}

/// The lesson picker, and the loaded lesson's text: two lines of it (the stylesheet's
/// clamp) with a button that unfolds the rest when there is more, so that the text never
/// pushes the cluster off the first screen.
#[function_component(LessonRow)]
pub fn lesson_row(props: &LessonRowProps) -> Html {
    let w = super::lang_switch::use_words();
    let lessons = &props.catalog.lessons;
    let lesson = props
        .lesson
        .as_deref()
        .and_then(|id| lessons.iter().find(|l| l.id == id));
    let whole = use_state_eq(|| false);
    let text = use_node_ref();
    let clipped = use_clipped(&text, props.lesson.clone());
    let on_lesson = {
        let dispatch = props.dispatch.clone();
        let whole = whole.clone();
        let ids: Vec<String> = lessons.iter().map(|l| l.id.clone()).collect();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(id) = ids.iter().find(|id| **id == select.value()) {
                whole.set(false);
                dispatch.emit(Action::LoadPreset(id.clone()));
            }
        })
    };
    let current = lesson.map_or("", |l| l.id.as_str());
    // The select shows the session's lesson once the engine has answered for it: an
    // option's `selected` attribute no longer moves a select the reader has changed, so
    // after lessons picked one right after another it could show "Free play" beside the
    // last one's cluster. While a pick loads, the select keeps what the reader chose (a
    // keyboard user pressing Down again and again goes on from there).
    let picker = use_node_ref();
    {
        let picker = picker.clone();
        use_effect_with(
            (current.to_string(), props.ready),
            move |(current, ready)| {
                if let Some(select) = picker.cast::<HtmlSelectElement>() {
                    if *ready && select.value() != *current {
                        select.set_value(current);
                    }
                }
            },
        );
    }
    let toggle = {
        let whole = whole.clone();
        Callback::from(move |_: MouseEvent| whole.set(!*whole))
    };
    html! {
        <div class="control-row lesson-row">
            <label class="field">
                <span>{ w.t(K::ControlsLesson) }</span>
                <select data-testid="preset" ref={picker} onchange={on_lesson} aria-label={w.t(K::ControlsLesson)}>
                    <option value="">{ w.t(K::ControlsFreePlay) }</option>
                    { for lessons.iter().map(|l| html! {
                        <option value={l.id.clone()}>{ w.lesson_words(l).0 }</option>
                    }) }
                </select>
            </label>
            if let Some(l) = lesson {
                <div class="lesson-fold">
                    <p class={classes!("lesson-text", (!*whole).then_some("folded"))} id="lesson-text"
                        data-testid="lesson-text" ref={text}>{ w.lesson_words(l).1 }</p>
                    if clipped || *whole {
                        <button class="link-button lesson-more" data-testid="lesson-more"
                            aria-expanded={whole.to_string()} aria-controls="lesson-text" onclick={toggle}>
                            { w.t(if *whole { K::ControlsLess } else { K::ControlsMore }) }
                        </button>
                    }
                </div>
            }
        </div>
    }
}

/// Whether the element `text` refers to hides some of itself (a clamped text longer than
/// its lines), measured when `key` changes and whenever the element's size does (a
/// narrower window, workshop mode's larger type).
#[hook]
fn use_clipped(text: &NodeRef, key: Option<String>) -> bool {
    let clipped = use_state_eq(|| false);
    {
        let (text, clipped) = (text.clone(), clipped.clone());
        use_effect_with(key, move |_| {
            let element = text.cast::<web_sys::Element>();
            let measure = {
                let element = element.clone();
                move || {
                    if let Some(p) = &element {
                        clipped.set(p.scroll_height() > p.client_height() + 1);
                    }
                }
            };
            measure();
            let callback = Closure::<dyn FnMut()>::new(measure);
            let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(p)) = (&observer, &element) {
                o.observe(p);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(callback);
            }
        });
    }
    *clipped
}
