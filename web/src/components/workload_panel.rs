//! The workload picker and the transport: play, pause, step, step back, speed, progress.
//! The full page splits them: its command bar (the lesson, the transport and the button
//! that unfolds the setup) stays on the first screen, the workload's fields fold away
//! with the scenario's.

use super::controls::LessonRow;
use super::query::{reply, use_in_sight};
use super::term::Term;
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::state::{Action, Workload, MAX_BATCH, MAX_TOTAL};
use shardlab_protocol::{Catalog, FitView, Position, Reply};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The workload and where it goes: the form's values, the collection they are checked
/// in, and the collection's key. Also the properties of the key-fit warning.
#[derive(Properties, Clone, PartialEq)]
pub struct WorkloadProps {
    /// Whether the engine has answered for the session.
    pub ready: bool,
    /// The workload form's values.
    pub workload: Workload,
    /// The collection shown.
    pub ns: AttrValue,
    /// Its shard key, as the settings hold it.
    pub key: AttrValue,
    /// The engine's latest check of the workload against the key.
    pub fit: Option<Answer>,
    /// The shape of the documents the workload generates, as a template.
    pub template_shown: AttrValue,
    /// The template in the editor.
    pub template_draft: AttrValue,
    /// The engine's check of the template in the editor.
    pub template_check: Option<Answer>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// What the transport draws: whether the workload plays or time passes, the speed, and
/// the workload's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct Transport {
    /// Whether the workload is playing.
    pub playing: bool,
    /// Whether simulated time passes.
    pub passing: bool,
    /// Ticks per second.
    pub speed: u32,
    /// Whether the engine has answered for the session (until then there is no step to
    /// take).
    pub ready: bool,
    /// The cursor.
    pub at: Position,
    /// The collection's documents at the cursor.
    pub count: u64,
    /// The workload's total.
    pub total: u64,
}

/// Properties of [`WorkloadPanel`] and [`WorkloadFields`]: the workload, the catalogue
/// whose workloads the form lists, and (for the embedded view's bar) the transport.
#[derive(Properties)]
pub struct WorkloadPanelProps {
    /// The workload and where it goes.
    pub workload: WorkloadProps,
    /// The catalogue whose workloads the form lists.
    pub catalog: Rc<Catalog>,
    /// The transport, where the panel shows it.
    #[prop_or_default]
    pub transport: Option<Transport>,
}

impl PartialEq for WorkloadPanelProps {
    fn eq(&self, other: &Self) -> bool {
        self.workload == other.workload
            && Rc::ptr_eq(&self.catalog, &other.catalog)
            && self.transport == other.transport
    }
}

/// The workload and transport bar.
#[function_component(WorkloadPanel)]
pub fn workload_panel(props: &WorkloadPanelProps) -> Html {
    let w = super::lang_switch::use_words();
    let wl = &props.workload;
    html! {
        <section class="panel transport" aria-label={w.t(K::CompareViewWorkload)}>
            { workload_fields(w, &wl.workload, &props.catalog.workloads, &wl.dispatch) }
            if let Some(transport) = &props.transport {
                { self::transport(w, transport, &wl.dispatch) }
            }
            <KeyFit ..wl.clone() />
            <WorkloadTemplate workload={wl.workload.clone()} dispatch={wl.dispatch.clone()}
                shown={wl.template_shown.clone()} draft={wl.template_draft.clone()} check={wl.template_check.clone()} />
        </section>
    }
}

/// Properties of [`CommandBar`].
#[derive(Properties)]
pub struct CommandBarProps {
    /// The workload and where it goes.
    pub workload: WorkloadProps,
    /// The catalogue whose lessons the picker lists.
    pub catalog: Rc<Catalog>,
    /// The loaded lesson's id.
    pub lesson: Option<String>,
    /// The transport.
    pub transport: Transport,
    /// Whether the setup (the scenario's and the workload's forms) is unfolded.
    pub setup: bool,
    /// Folds or unfolds the setup.
    pub on_setup: Callback<()>,
}

impl PartialEq for CommandBarProps {
    fn eq(&self, other: &Self) -> bool {
        self.workload == other.workload
            && Rc::ptr_eq(&self.catalog, &other.catalog)
            && self.lesson == other.lesson
            && self.transport == other.transport
            && self.setup == other.setup
            && self.on_setup == other.on_setup
    }
}

/// The full page's command bar, above the cluster: the lesson and its text, the
/// transport, and the button that unfolds the setup (`#setup`).
#[function_component(CommandBar)]
pub fn command_bar(props: &CommandBarProps) -> Html {
    let w = super::lang_switch::use_words();
    let wl = &props.workload;
    html! {
        <section class="panel transport command-bar" aria-label={w.t(K::WorkloadPanelWorkload)}>
            <LessonRow catalog={props.catalog.clone()} lesson={props.lesson.clone()} ready={wl.ready}
                dispatch={wl.dispatch.clone()} />
            <div class="transport-row">
                { transport(w, &props.transport, &wl.dispatch) }
                <button class="secondary setup-toggle" data-testid="setup-toggle"
                    aria-expanded={props.setup.to_string()} aria-controls="setup"
                    title={w.t(K::WorkloadPanelSetupTitle)}
                    onclick={props.on_setup.reform(|_| ())}>
                    { w.t(K::WorkloadPanelSetup) }<span class="chevron" aria-hidden="true"></span>
                </button>
            </div>
            <KeyFit ..wl.clone() />
        </section>
    }
}

/// The workload's fields and its document template, in the full page's folded setup.
#[function_component(WorkloadFields)]
pub fn workload_fields_panel(props: &WorkloadPanelProps) -> Html {
    let w = super::lang_switch::use_words();
    let wl = &props.workload;
    html! {
        <section class="panel workload" aria-label={w.t(K::WorkloadPanelWorkloadSettings)}>
            <div class="control-row">
                { workload_fields(w, &wl.workload, &props.catalog.workloads, &wl.dispatch) }
            </div>
            <WorkloadTemplate workload={wl.workload.clone()} dispatch={wl.dispatch.clone()}
                shown={wl.template_shown.clone()} draft={wl.template_draft.clone()} check={wl.template_check.clone()} />
        </section>
    }
}

/// The workload's settings: the generator, documents per tick and in all, and whether the
/// balancer runs after each tick. Each change replaces the workload (and stops playing).
fn workload_fields(
    w: Words,
    spec: &Workload,
    names: &[String],
    dispatch: &Callback<Action>,
) -> Html {
    let set = {
        let dispatch = dispatch.clone();
        let spec = spec.clone();
        move |f: Box<dyn Fn(&mut Workload)>| {
            let mut next = spec.clone();
            f(&mut next);
            dispatch.emit(Action::SetWorkload(next));
        }
    };
    let on_spec = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let v = select.value();
            set(Box::new(move |w| w.spec = v.clone()));
        })
    };
    let on_batch = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let n = typed_number(&e, 25u32, 1, MAX_BATCH);
            set(Box::new(move |w| w.batch = n));
        })
    };
    let on_total = {
        let set = set.clone();
        Callback::from(move |e: Event| {
            let n = typed_number(&e, 1000u64, 1, MAX_TOTAL);
            set(Box::new(move |w| w.total = n));
        })
    };
    let on_balance = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let on = input.checked();
        set(Box::new(move |w| w.balance = on));
    });
    let known = names.contains(&spec.spec)
        || (names.is_empty() && !spec.spec.trim_start().starts_with('{'));
    html! {
        <>
            <label class="field">
                <span><Term id={if known { spec.spec.clone() } else { "template".into() }} label={w.t(K::CompareViewWorkload)} /></span>
                <select data-testid="workload" onchange={on_spec} aria-label={w.t(K::WorkloadPanelWorkloadGenerator)}>
                    if names.is_empty() {
                        <option value={spec.spec.clone()} selected=true>{ spec.spec.clone() }</option>
                    }
                    { for names.iter().map(|n| html! {
                        <option value={n.clone()} selected={*n == spec.spec}>{ n.clone() }</option>
                    }) }
                    if !known {
                        <option value={spec.spec.clone()} selected=true>{ w.t(K::WorkloadPanelCustomTemplate) }</option>
                    }
                </select>
            </label>
            <label class="field">
                <span><Term id="per-tick" label={w.t(K::WorkloadPanelPerTick)} /></span>
                <input class="tiny" type="number" min="1" max={MAX_BATCH.to_string()} value={spec.batch.to_string()}
                    onchange={on_batch} aria-label={w.t(K::WorkloadPanelDocumentsPerTick)} data-testid="batch" />
            </label>
            <label class="field">
                <span>{ w.t(K::WorkloadPanelTotal) }</span>
                <input class="narrow" type="number" min="1" value={spec.total.to_string()}
                    onchange={on_total} aria-label={w.t(K::WorkloadPanelTotalDocuments)} data-testid="total" />
            </label>
            <label class="check">
                <input type="checkbox" checked={spec.balance} onchange={on_balance} aria-label={w.t(K::WorkloadPanelRunTheBalancerAfterEach)} />
                <span>{ w.t(K::WorkloadPanelBalancer) }</span>
            </label>
        </>
    }
}

/// The playback buttons, the speed and the progress bar.
fn transport(w: Words, state: &Transport, dispatch: &Callback<Action>) -> Html {
    let on_speed = dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::SetSpeed(input.value().parse().unwrap_or(4))
    });
    let (done, total) = (state.count, state.total);
    let progress = if total == 0 {
        0.0
    } else {
        (done as f64 / total as f64).min(1.0)
    };
    let (position, len) = (state.at.position, state.at.length);
    // Until the engine has answered for this session, there is no step to take.
    let ready = state.ready;
    html! {
        <>
            <div class="buttons" role="group" aria-label={w.t(K::WorkloadPanelPlayback)}>
                <button data-testid="step-back" title={w.t(K::WorkloadPanelStepBack)} aria-label={w.t(K::WorkloadPanelStepBack2)}
                    disabled={position == 0 || !ready} onclick={dispatch.reform(|_| Action::StepBack)}>{ w.t(K::GuideBack) }</button>
                if state.playing {
                    <button data-testid="pause" class="primary" aria-label={w.t(K::CompareViewPause)} title={w.t(K::WorkloadPanelPauseSpace)}
                        onclick={dispatch.reform(|_| Action::Pause)}>{ w.t(K::CompareViewPause) }</button>
                } else {
                    <button data-testid="play" class="primary" aria-label={w.t(K::CompareViewPlay)} title={w.t(K::WorkloadPanelPlaySpace)}
                        onclick={dispatch.reform(|_| Action::Play)}>{ w.t(K::CompareViewPlay) }</button>
                }
                <button data-testid="step" title={w.t(K::WorkloadPanelStep)} aria-label={w.t(K::WorkloadPanelStep2)}
                    disabled={!ready} onclick={dispatch.reform(|_| Action::Step)}>{ w.t(K::CompareViewStep) }</button>
                <button data-testid="pass-time" aria-pressed={state.passing.to_string()}
                    title={w.t(K::WorkloadPanelLetSimulatedTimePassTwo)}
                    onclick={dispatch.reform(|_| Action::PassTime)}>
                    { if state.passing { w.t(K::WorkloadPanelStopTheClock) } else { w.t(K::WorkloadPanelLetTimePass) } }
                </button>
            </div>
            <label class="field">
                <span>{ w.tf(K::WorkloadPanelSpeedSpeed, &[("speed", &state.speed)]) }</span>
                <input type="range" min="1" max="30" value={state.speed.to_string()}
                    oninput={on_speed} aria-label={w.t(K::WorkloadPanelSpeed)} data-testid="speed" />
            </label>
            <div class="progress" role="progressbar" aria-label={w.t(K::WorkloadPanelWorkloadProgress)}
                aria-valuemin="0" aria-valuemax={total.to_string()} aria-valuenow={done.min(total).to_string()}
                data-testid="progress">
                <div class="progress-fill" style={format!("width: {:.1}%", progress * 100.0)}></div>
                <span class="progress-text">{ w.tf(K::WorkloadPanelDoneTotalDocsStepPosition, &[("done", &done), ("total", &total), ("position", &position), ("len", &len)]) }</span>
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

/// A warning when the workload's documents lack a field of the viewed collection's shard
/// key, with one-click fixes: add the field to the template, or pick a workload that
/// writes it. The engine checks the fit.
#[function_component(KeyFit)]
fn key_fit(props: &WorkloadProps) -> Html {
    let w = super::lang_switch::use_words();
    let dispatch = &props.dispatch;
    use_in_sight(Asker::KeyFit, dispatch);
    let fit: FitView = match reply(&props.fit) {
        Some(Ok(Reply::WorkloadFit(fit))) => fit.clone(),
        _ => return html! {},
    };
    if fit.key.is_empty() || fit.shown.is_err() {
        return html! {};
    }
    let key = fit.key.clone();
    let name = workload_name(w, &props.workload.spec);
    if !fit.missing.is_empty() {
        let fields = fit.missing.join(", ");
        let add = {
            let fixed = fit.fixed.clone();
            let current = props.workload.clone();
            let dispatch = dispatch.clone();
            Callback::from(move |_: MouseEvent| {
                if let Some(text) = &fixed {
                    dispatch.emit(Action::SetWorkload(Workload {
                        spec: text.clone(),
                        ..current.clone()
                    }));
                }
            })
        };
        return html! {
            <div class="fit-warning" role="alert" data-testid="key-fit-warning">
                <p>{ w.tf(K::WorkloadPanelTheNameWorkloadNeverWrites, &[("name", &name), ("fields", &fields), ("key", &key)]) }</p>
                <button data-testid="fit-add-field" onclick={add}>{ w.tf(K::WorkloadPanelAddFieldsToTheTemplate, &[("fields", &fields)]) }</button>
                { for fit.fitting.iter().map(|p| {
                    let fitted = Workload { spec: p.clone(), ..props.workload.clone() };
                    html! {
                        <button class="secondary" data-testid={format!("fit-use-{p}")}
                            onclick={dispatch.reform(move |_| Action::SetWorkload(fitted.clone()))}>
                            { w.tf(K::WorkloadPanelUseP, &[("p", &p)]) }
                        </button>
                    }
                }) }
            </div>
        };
    }
    if !fit.sometimes.is_empty() {
        return html! {
            <p class="muted fit-note" data-testid="key-fit-note">{ w.tf(K::WorkloadPanelTheNameWorkloadLeavesN, &[("name", &name), ("n", &(fit.sometimes.join(", "))), ("key", &key)]) }</p>
        };
    }
    html! {}
}

/// A workload's name for sentences: the preset's, or the word for a template.
fn workload_name(w: Words, spec: &str) -> String {
    if spec.trim_start().starts_with('{') {
        w.t(K::WorkloadPanelTemplate).to_string()
    } else {
        format!("'{spec}'")
    }
}

/// Properties of [`WorkloadTemplate`].
#[derive(Properties, PartialEq)]
pub struct TemplateProps {
    /// The workload.
    pub workload: Workload,
    /// The shape of the documents it generates, as a template (`Playground::template_shown`).
    pub shown: AttrValue,
    /// The template in the editor (`Playground::template_draft`).
    pub draft: AttrValue,
    /// The engine's check of the template in the editor.
    pub check: Option<Answer>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// The shape of the documents the workload generates, as a `sim.generate` template that
/// can be edited: applying it makes the template the workload. The template and its check
/// are the model's (`crate::asking`).
#[function_component(WorkloadTemplate)]
pub fn workload_template(props: &TemplateProps) -> Html {
    let w = super::lang_switch::use_words();
    use_in_sight(Asker::KeyFit, &props.dispatch);
    use_in_sight(Asker::Template, &props.dispatch);
    let (shown, draft) = (props.shown.to_string(), props.draft.to_string());
    let check: Result<String, String> = match reply(&props.check) {
        Some(Ok(Reply::WorkloadFit(f))) => f.shown.clone(),
        Some(Err(e)) => Err(e.message.clone()),
        _ => Ok(draft.clone()),
    };
    let on_input = props.dispatch.reform(|e: InputEvent| {
        let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
        Action::TemplateDraft(area.value())
    });
    let on_use = {
        let (draft, current, dispatch) = (
            draft.clone(),
            props.workload.clone(),
            props.dispatch.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            dispatch.emit(Action::SetWorkload(Workload {
                spec: draft.trim().to_string(),
                ..current.clone()
            }));
        })
    };
    html! {
        <details class="template" data-testid="workload-template-box">
            <summary>{ w.t(K::WorkloadPanelDocumentShape) }<code>{ shown.clone() }</code></summary>
            <p class="muted">{ w.t(K::WorkloadPanelEachDocumentTheWorkloadInserts) }</p>
            <textarea data-testid="workload-template" rows="3" spellcheck="false" aria-label={w.t(K::WorkloadPanelWorkloadTemplate)}
                value={draft.clone()} oninput={on_input} />
            <div class="template-actions">
                <button data-testid="use-template" disabled={check.is_err() || draft == shown} onclick={on_use}>{ w.t(K::WorkloadPanelUseThisTemplate) }</button>
                if let Err(e) = &check {
                    <span class="error" data-testid="template-error">{ e.clone() }</span>
                }
            </div>
        </details>
    }
}
