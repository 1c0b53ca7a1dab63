//! Guided lessons: a panel above the playground that walks through [`crate::lessons`] one
//! step at a time. Each step loads its scenario into the playground, asks for a
//! prediction, runs, and then outlines the part of the page that shows the result.
//!
//! Where the learner is (lesson and step) is kept in localStorage under
//! [`crate::lessons::STORAGE_KEY`], so a lesson left halfway can be resumed later.

use crate::i18n::{Words, K};
use crate::lessons::{
    forget_progress, lesson, lessons, load_progress, progress_label, save_progress, Lesson,
    Progress, Run, Scenario,
};
use crate::state::Action;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The CSS class that outlines the element a step's result points at.
pub const HIGHLIGHT_CLASS: &str = "guide-highlight";

/// Properties of [`Guide`]: what the lesson reads of the playground it drives.
#[derive(Properties, Clone, PartialEq)]
pub struct GuideProps {
    /// The lesson and step the page's state names (its `guide` entry: a link, the saved
    /// session, an earlier visit to the tab), read when the panel opens.
    pub published: Option<AttrValue>,
    /// Whether the workload is playing.
    pub playing: bool,
    /// The collection's documents at the cursor.
    pub count: u64,
    /// The workload's total.
    pub total: u64,
    /// The page's revision: any change may have redrawn the element a step's result
    /// outlines (rewriting its classes), so the outline is put back on each.
    pub redrawn: u64,
    /// Dispatches to the playground.
    pub dispatch: Callback<Action>,
    /// Called when the learner leaves the lesson.
    pub on_close: Callback<()>,
}

/// What the learner has done in the current step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct StepState {
    /// The chosen answer.
    choice: Option<usize>,
    /// Whether the run button was pressed.
    started: bool,
}

/// The open lesson and step.
type At = (&'static Lesson, usize);

/// The guided-lesson panel: a lesson picker, or the open lesson's current step.
///
/// The lessons are content, fetched the first time the panel opens (see
/// [`crate::lessons::load`]); until they are in, the panel says so.
#[function_component(Guide)]
pub fn guide(props: &GuideProps) -> Html {
    let w = super::lang_switch::use_words();
    // None while loading, then the outcome.
    let loaded = use_state(|| lessons(w.lang()).map(|_| Ok::<(), String>(())));
    // What the page is doing while the network is away.
    let waiting = use_state(|| None::<String>);
    {
        // Once, and again in each language the page switches to (the lessons shown
        // meanwhile are the ones in, the step the same).
        let (loaded, waiting) = (loaded.clone(), waiting.clone());
        use_effect_with(w.lang(), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let told = move |what: Option<String>| waiting.set(what);
                let outcome = crate::lessons::load(w, told).await.map(|_| ());
                // A language's lessons that fail to load leave those already in shown.
                if outcome.is_ok() || loaded.is_none() {
                    loaded.set(Some(outcome));
                }
            });
        });
    }
    match &*loaded {
        Some(Ok(())) => html! {
            <LessonGuide ..props.clone() />
        },
        Some(Err(e)) => html! {
            <section class="panel guide" aria-label={w.t(K::GuideGuidedLessons)} data-testid="guide-error">
                <p class="error">{ w.tf(K::GuideTheGuidedLessonsCouldNot, &[("e", &e)]) }</p>
            </section>
        },
        None => html! {
            <section class="panel guide" aria-label={w.t(K::GuideGuidedLessons)} data-testid="guide-loading">
                <p class="muted" role="status">{ (*waiting).clone().unwrap_or_else(|| w.t(K::GuideLoadingTheGuidedLessons).to_string()) }</p>
            </section>
        },
    }
}

/// The guided-lesson panel once the lessons are in.
#[function_component(LessonGuide)]
fn lesson_guide(props: &GuideProps) -> Html {
    let w = super::lang_switch::use_words();
    // The open lesson and step; `None` shows the picker.
    // A link, the saved session or an earlier visit to this tab can name the lesson and
    // step (see `Action::Page`): the playground already holds that step's cluster, so it
    // is not loaded again.
    let published = props.published.as_deref().and_then(|t| parse_at(w, t));
    let open = use_state(move || published);
    let resumed = use_mut_ref(move || published.map(|(l, i)| (l.id, i)));
    use_publish_at(*open, &props.dispatch);
    let step_state = use_state(StepState::default);
    let complete = use_state(|| None::<&'static Lesson>);
    let saved = use_state(load_progress);
    use_enter_step(*open, &props.dispatch, &step_state, &resumed);

    // The open lesson in the page's language (a switch of language keeps the step).
    let current = (*open)
        .map(|(l, i)| (lesson(w.lang(), l.id).unwrap_or(l), i))
        .and_then(|(l, i)| l.steps.get(i).map(|s| (l, i, s)));
    let finished =
        step_state.started && current.is_some_and(|(_, _, s)| run_finished(s.run, props));
    use_result_highlight(
        current.map(|(_, _, s)| s.highlight),
        finished,
        props.redrawn,
    );

    let go = go_callback(open.clone(), complete.clone(), saved.clone());
    use_step_keys(open.is_some(), &go);

    let Some((l, i, step)) = current else {
        let start = {
            let (open, complete) = (open.clone(), complete.clone());
            Callback::from(move |at: At| {
                complete.set(None);
                open.set(Some(at));
            })
        };
        return picker(w, *complete, (*saved).clone(), &start);
    };
    let callbacks = StepCallbacks {
        choose: choose_callback(step_state.clone()),
        run: run_callback(step_state.clone(), props.dispatch.clone(), step.run),
        go,
        close: close_callback(open, saved, props.dispatch.clone(), props.on_close.clone()),
    };
    step_panel(w, (l, i), *step_state, finished, &callbacks)
}

/// The open lesson and step travel with links and the saved session: each change is
/// published as the page's `guide` value (`lesson:step`, or none for the picker).
#[hook]
fn use_publish_at(open: Option<At>, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    use_effect_with(open, move |open| {
        let value = open.map(|(l, i)| format!("{}:{i}", l.id));
        dispatch.emit(Action::Page("guide", value));
        || ()
    });
}

/// Moves by a number of steps; past the last step the lesson is complete: its saved
/// progress is forgotten and the picker says so.
fn go_callback(
    open: UseStateHandle<Option<At>>,
    complete: UseStateHandle<Option<&'static Lesson>>,
    saved: UseStateHandle<Option<Progress>>,
) -> Callback<i32> {
    Callback::from(move |delta: i32| {
        let Some((l, i)) = *open else { return };
        let next = i as i32 + delta;
        if next < 0 {
            return;
        }
        if next as usize >= l.steps.len() {
            forget_progress();
            saved.set(None);
            open.set(None);
            complete.set(Some(l));
            return;
        }
        open.set(Some((l, next as usize)));
    })
}

/// Leaves the lesson: back to the picker (with the progress just saved offered to resume),
/// then tells the page.
fn close_callback(
    open: UseStateHandle<Option<At>>,
    saved: UseStateHandle<Option<Progress>>,
    dispatch: Callback<Action>,
    on_close: Callback<()>,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        open.set(None);
        dispatch.emit(Action::Page("guide", None));
        saved.set(load_progress());
        on_close.emit(());
    })
}

/// Picks an answer; the first pick is final.
fn choose_callback(step_state: UseStateHandle<StepState>) -> Callback<usize> {
    Callback::from(move |c: usize| {
        if step_state.choice.is_none() {
            step_state.set(StepState {
                choice: Some(c),
                ..*step_state
            });
        }
    })
}

/// Marks the step started and starts its run.
fn run_callback(
    step_state: UseStateHandle<StepState>,
    dispatch: Callback<Action>,
    run: Run,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        step_state.set(StepState {
            started: true,
            ..*step_state
        });
        start_run(run, &dispatch);
    })
}

/// Entering a step loads its scenario and remembers where the learner is.
#[hook]
fn use_enter_step(
    at: Option<At>,
    dispatch: &Callback<Action>,
    step_state: &UseStateHandle<StepState>,
    resumed: &Rc<RefCell<Option<(&'static str, usize)>>>,
) {
    let w = super::lang_switch::use_words();
    let dispatch = dispatch.clone();
    let step_state = step_state.clone();
    let resumed = resumed.clone();
    let at = at.map(|(l, i)| (l.id, i));
    use_effect_with(at, move |at| {
        // The step the page came back to is already loaded: only later steps load.
        let resuming = resumed.borrow_mut().take().is_some_and(|r| Some(r) == *at);
        if let Some((id, i)) = at.filter(|_| !resuming) {
            if let Some(step) = lesson(w.lang(), id).and_then(|l| l.steps.get(i)) {
                step_state.set(StepState::default());
                match step.scenario {
                    Scenario::Preset(preset) => {
                        dispatch.emit(Action::LoadPreset(preset.to_string()))
                    }
                    other => {
                        if let Some(settings) = other.settings() {
                            dispatch.emit(Action::Setup(settings));
                        }
                    }
                }
                save_progress(&Progress {
                    lesson: id.to_string(),
                    step: i as u32,
                });
            }
        }
        || ()
    });
}

/// Once the step has run, outlines the element its result is about (matching `selector`)
/// and brings it into view; leaving the step removes the outline. A re-render (a new
/// `rev`) can rewrite the outlined element's classes, so the outline is put back then.
#[hook]
fn use_result_highlight(selector: Option<&'static str>, finished: bool, rev: u64) {
    use_effect_with((selector, finished), move |(selector, finished)| {
        if let (Some(selector), true) = (selector, finished) {
            if let Some(el) = highlight(selector) {
                el.scroll_into_view_with_bool(false);
            }
        }
        clear_highlights
    });
    let shown = selector.filter(|_| finished);
    use_effect_with((shown, rev), move |(selector, _)| {
        if let Some(selector) = selector {
            highlight(selector);
        }
        || ()
    });
}

/// `n` and `p` move through the steps while a lesson is open.
#[hook]
fn use_step_keys(is_open: bool, go: &Callback<i32>) {
    let go = go.clone();
    use_effect_with(is_open, move |is_open| {
        let listener = is_open.then(|| {
            crate::keys::listen(move |key| {
                let step = match key {
                    "n" => 1,
                    "p" => -1,
                    _ => return false,
                };
                go.emit(step);
                true
            })
        });
        move || drop(listener)
    });
}

/// Starts a step's run: plays the workload, or runs the commands.
fn start_run(run: Run, dispatch: &Callback<Action>) {
    match run {
        Run::Play => {
            dispatch.emit(Action::SetSpeed(15));
            dispatch.emit(Action::Play);
        }
        Run::Commands(commands) => {
            for c in commands {
                dispatch.emit(Action::Auto((*c).to_string()));
            }
        }
    }
}

/// What the open step's buttons do.
struct StepCallbacks {
    /// Picks answer `k`.
    choose: Callback<usize>,
    /// Runs the step.
    run: Callback<MouseEvent>,
    /// Moves by a number of steps.
    go: Callback<i32>,
    /// Leaves the lesson.
    close: Callback<MouseEvent>,
}

/// The open lesson's current step: its text, the prediction, the actions and the result.
fn step_panel(w: Words, (l, i): At, state: StepState, finished: bool, on: &StepCallbacks) -> Html {
    let Some(step) = l.steps.get(i) else {
        return html! {};
    };
    let running = state.started && !finished;
    let last = i + 1 == l.steps.len();
    html! {
        <section class="panel guide" data-testid="guide" aria-label={w.tf(K::GuideGuidedLessonTitle, &[("title", &l.title)])}
            data-lesson={l.id} data-step={i.to_string()}>
            <header class="guide-head">
                <span class="guide-lesson">{ l.title }</span>
                <span class="guide-progress" data-testid="guide-progress">{ progress_label(w, i, l.steps.len()) }</span>
                <ol class="guide-dots" aria-hidden="true">
                    { for (0..l.steps.len()).map(|k| html! {
                        <li class={classes!((k < i).then_some("done"), (k == i).then_some("current"))}></li>
                    }) }
                </ol>
                <button class="link-button guide-close" data-testid="guide-close" onclick={on.close.clone()}
                    title={w.t(K::GuideLeaveTheLessonYouCan)}>{ w.t(K::GuideLeaveLesson) }</button>
            </header>
            <h2 class="guide-title" data-testid="guide-step-title">{ step.title }</h2>
            <p class="guide-explain">{ step.explain }</p>
            <p class="guide-watch"><strong>{ w.t(K::GuideWatch) }</strong>{ step.watch }</p>
            { question_view(w, &step.question, &format!("guide-{}-{i}", l.id), state.choice, &on.choose) }
            if let Some(k) = state.choice {
                { verdict(w, &step.question, k) }
            }
            <div class="guide-actions">
                <button class="secondary" data-testid="guide-back" disabled={i == 0}
                    onclick={on.go.reform(|_| -1)} title={w.t(K::GuidePreviousStepP)}>{ w.t(K::GuideBack) }</button>
                <button class="primary" data-testid="guide-run" disabled={state.choice.is_none() || state.started}
                    onclick={on.run.clone()} title={if state.choice.is_none() { w.t(K::GuideMakeAPredictionFirst) } else { w.t(K::GuideRunTheScenario) }}>
                    { if running { w.t(K::GuideRunning) } else if finished { w.t(K::GuideDone) } else { w.t(K::GuideRunIt) } }
                </button>
                <button data-testid="guide-next" onclick={on.go.reform(|_| 1)} title={w.t(K::GuideNextStepN)}>
                    { if last { w.t(K::GuideFinishLesson) } else { w.t(K::GuideNextStep) } }
                </button>
            </div>
            if finished {
                <p class="guide-result" data-testid="guide-result" role="status">
                    <strong>{ w.t(K::GuideWhatHappened) }</strong>{ step.result }
                </p>
            }
        </section>
    }
}

/// The prediction: one radio button per answer, named `name`; once one is `chosen`, the
/// others are disabled and the right one is marked.
fn question_view(
    w: Words,
    question: &crate::lessons::Question,
    name: &str,
    chosen: Option<usize>,
    on_choose: &Callback<usize>,
) -> Html {
    let revealed = chosen.is_some();
    html! {
        <fieldset class="guide-question">
            <legend>{ w.t(K::GuidePredict) }{ question.prompt }</legend>
            { for question.choices.iter().enumerate().map(|(k, c)| {
                let picked = chosen == Some(k);
                let class = classes!(
                    "guide-choice",
                    picked.then_some("chosen"),
                    (revealed && c.correct).then_some("right"),
                    (picked && !c.correct).then_some("wrong"),
                );
                html! {
                    <label class={class}>
                        <input type="radio" name={name.to_string()} value={k.to_string()}
                            data-testid="guide-choice" data-correct={c.correct.to_string()}
                            checked={picked} disabled={revealed && !picked}
                            onchange={on_choose.reform(move |_| k)} />
                        <span>{ c.text }</span>
                    </label>
                }
            }) }
        </fieldset>
    }
}

/// The verdict on the learner's prediction.
fn verdict(w: Words, question: &crate::lessons::Question, chosen: usize) -> Html {
    let Some(choice) = question.choices.get(chosen) else {
        return html! {};
    };
    let right = question
        .correct_index()
        .and_then(|k| question.choices.get(k));
    html! {
        <div class={classes!("guide-verdict", if choice.correct { "right" } else { "wrong" })}
            data-testid="guide-verdict" data-correct={choice.correct.to_string()} role="status">
            if choice.correct {
                <strong>{ w.t(K::GuideRight) }</strong>{ choice.why }
            } else {
                <strong>{ w.t(K::GuideNotQuite) }</strong>{ choice.why }
                if let Some(right) = right {
                    <span class="guide-answer">{ w.tf(K::GuideTheAnswerTextWhy, &[("text", &right.text), ("why", &right.why)]) }</span>
                }
            }
        </div>
    }
}

/// The lesson list, with an offer to continue where the learner left off.
fn picker(
    w: Words,
    complete: Option<&'static Lesson>,
    saved: Option<Progress>,
    start: &Callback<(&'static Lesson, usize)>,
) -> Html {
    let resume = saved.as_ref().and_then(|p| p.resolve(w.lang()));
    html! {
        <section class="panel guide guide-picker" data-testid="guide-picker" aria-label={w.t(K::GuideGuidedLessons)}>
            if let Some(done) = complete {
                <p class="guide-complete" data-testid="guide-complete" role="status">
                    { w.tf(K::GuideLessonCompleteTitle, &[("title", &done.title)]) }
                    { w.t(K::GuidePickAnotherOneBelowOr) }
                </p>
            }
            if let Some((l, i)) = resume {
                <div class="guide-resume">
                    <span>{ w.tf(K::GuideYouLeftTitleAtN, &[("title", &l.title), ("n", &(progress_label(w, i, l.steps.len()).to_ascii_lowercase()))]) }</span>
                    <button data-testid="guide-resume" onclick={start.reform(move |_| (l, i))}>{ w.t(K::GuideContinue) }</button>
                </div>
            }
            <h2>{ w.t(K::GuideGuidedLessons) }</h2>
            <p class="muted">{ w.t(K::GuideEachStepSetsUpA) }</p>
            <ul class="guide-lessons">
                { for lessons(w.lang()).unwrap_or_default().iter().map(|l| html! {
                    <li class="guide-lesson-card">
                        <div>
                            <strong>{ l.title }</strong>
                            <span class="muted">{ format!(" · {}", w.count(l.steps.len() as u64, "step")) }</span>
                            <p class="muted">{ l.summary }</p>
                        </div>
                        <button class="secondary" data-testid="guide-start" data-lesson={l.id}
                            onclick={start.reform(move |_| (l, 0))}>{ w.t(K::GuideStart) }</button>
                    </li>
                }) }
            </ul>
        </section>
    }
}

/// Whether a started run is over: commands run at once; a workload when it has played
/// to its end.
fn run_finished(run: Run, props: &GuideProps) -> bool {
    match run {
        Run::Commands(_) => true,
        Run::Play => !props.playing && props.count >= props.total,
    }
}

/// Adds the outline class to the first element matching `selector`.
fn highlight(selector: &str) -> Option<web_sys::Element> {
    let el = gloo::utils::document()
        .query_selector(selector)
        .ok()
        .flatten()?;
    let class = el.get_attribute("class").unwrap_or_default();
    if !class.split_whitespace().any(|c| c == HIGHLIGHT_CLASS) {
        el.set_attribute("class", format!("{class} {HIGHLIGHT_CLASS}").trim())
            .ok()?;
    }
    Some(el)
}

/// Removes the outline class from every element that has it.
fn clear_highlights() {
    let document = gloo::utils::document();
    let selector = format!(".{HIGHLIGHT_CLASS}");
    while let Ok(Some(el)) = document.query_selector(&selector) {
        let class = el.get_attribute("class").unwrap_or_default();
        let kept: Vec<&str> = class
            .split_whitespace()
            .filter(|c| *c != HIGHLIGHT_CLASS)
            .collect();
        if el.set_attribute("class", &kept.join(" ")).is_err() {
            break;
        }
    }
}

/// A lesson and step as published (`key-basics:2`), checked against the lessons there are.
fn parse_at(w: Words, text: &str) -> Option<At> {
    let (id, step) = text.split_once(':')?;
    let lesson = lesson(w.lang(), id)?;
    let step: usize = step.parse().ok()?;
    (step < lesson.steps.len()).then_some((lesson, step))
}
