//! A mongosh-style console on the engine's shell: Enter runs, Shift+Enter adds a line (and
//! input the engine says is unfinished continues), Up and Down walk the history.

use crate::ask;
use crate::i18n::{Words, K};
use crate::state::{Action, ConsoleLine, LineKind, Notice};
use shardlab_protocol::{Call, Reply, MAX_SOURCE_BYTES};
use std::rc::Rc;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// Properties of [`Console`]: only what it draws, so that ticks that do not print skip it.
#[derive(Properties)]
pub struct ConsoleProps {
    /// The console's lines.
    pub lines: Rc<Vec<ConsoleLine>>,
    /// The first line's number (see [`crate::state::Playground::console_first`]).
    #[prop_or_default]
    pub first: u64,
    /// Commands typed so far, oldest first.
    pub history: Rc<Vec<String>>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Whether the engine is working on something the page sent (a Cancel appears if it
    /// takes more than a moment).
    #[prop_or_default]
    pub busy: bool,
    /// The shell's database, for the prompt (`test` before the engine has said).
    #[prop_or_default]
    pub db: AttrValue,
}

impl PartialEq for ConsoleProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.lines, &other.lines)
            && self.first == other.first
            && Rc::ptr_eq(&self.history, &other.history)
            && self.busy == other.busy
            && self.db == other.db
    }
}

/// How long the engine works on something before Cancel appears, in milliseconds.
const CANCEL_AFTER_MS: u32 = 1_000;

/// Whether `busy` has held for [`CANCEL_AFTER_MS`].
#[hook]
fn use_long_busy(busy: bool) -> bool {
    let long = use_state(|| false);
    {
        let long = long.clone();
        use_effect_with(busy, move |busy| {
            long.set(false);
            let timer = busy.then(|| {
                gloo::timers::callback::Timeout::new(CANCEL_AFTER_MS, move || long.set(true))
            });
            move || drop(timer)
        });
    }
    *long && busy
}

/// The console.
#[function_component(Console)]
pub fn console(props: &ConsoleProps) -> Html {
    let w = super::lang_switch::use_words();
    let text = use_state(String::new);
    // Where we are in the history while pressing Up/Down: None means the draft.
    let cursor = use_state(|| None::<usize>);
    let output_ref = use_node_ref();
    let input_ref = use_node_ref();
    // The newest line's number: it grows with each line, also once the oldest ones go.
    use_scroll_to_newest(output_ref.clone(), props.first + props.lines.len() as u64);
    let on_input = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            text.set(area.value());
        })
    };
    let on_keydown = keydown_callback(
        w,
        text.clone(),
        cursor,
        props.history.clone(),
        props.dispatch.clone(),
        input_ref.clone(),
    );
    let rows = (text.lines().count().max(1) as u32).min(8);
    let long_busy = use_long_busy(props.busy);
    html! {
        <section class="panel console" aria-label={w.t(K::ConsoleConsole)}>
            <h2>{ w.t(K::ConsoleMongoshConsole) }</h2>
            <div class="console-output" data-testid="console-output" ref={output_ref} role="log" aria-live="polite">
                { for props.lines.iter().zip(props.first..).map(|(line, n)| console_line(w, line, n)) }
            </div>
            <div class="prompt">
                <span class="prompt-sign" aria-hidden="true">{ prompt(&props.db) }</span>
                <textarea data-testid="console-input" ref={input_ref} rows={rows.to_string()} value={(*text).clone()}
                    oninput={on_input} onkeydown={on_keydown} spellcheck="false"
                    aria-label={w.t(K::ConsoleShellCommandEnterRunsIt)}
                    placeholder="sh.status()" />
            </div>
            if long_busy {
                <p class="console-busy" role="status">
                    { w.t(K::ConsoleRunning) }
                    <button class="secondary" data-testid="console-cancel"
                        onclick={props.dispatch.reform(|_| Action::Cancel)}>{ w.t(K::ConsoleCancel) }</button>
                </p>
            }
        </section>
    }
}

/// Keeps the newest output in view: scrolls the output to its bottom whenever a line is
/// added (`newest`, the newest line's number, grows).
#[hook]
fn use_scroll_to_newest(output_ref: NodeRef, newest: u64) {
    use_effect_with(newest, move |_| {
        if let Some(el) = output_ref.cast::<web_sys::Element>() {
            el.set_scroll_top(el.scroll_height());
        }
        || ()
    });
}

/// mongosh's prompt for the shell's database `db` (`test>` before the engine has named one).
fn prompt(db: &str) -> String {
    format!("{}>", if db.is_empty() { "test" } else { db })
}

/// One console line, classed and prompted by its kind.
/// One line, keyed by its number: when the oldest lines go, the others stay as drawn.
fn console_line(w: Words, line: &ConsoleLine, n: u64) -> Html {
    let typed = || format!("{} ", prompt(line.db.as_deref().unwrap_or_default()));
    let (class, prefix) = match line.kind {
        LineKind::Input => ("in", typed()),
        LineKind::Auto => ("auto", typed()),
        LineKind::Output => ("out", String::new()),
        LineKind::Error => ("err", String::new()),
    };
    // ShardLab's own lines (the welcome, a lesson's opening) in the page's language;
    // mongosh's as it prints them.
    let text = w
        .messages(line.message.as_slice())
        .unwrap_or_else(|| line.text.clone());
    html! { <pre key={n} class={classes!("line", class)}>{ prefix }{ text }</pre> }
}

/// The input's key handling: Enter submits (or continues unfinished input), Up and Down walk
/// the history.
fn keydown_callback(
    w: Words,
    text: UseStateHandle<String>,
    cursor: UseStateHandle<Option<usize>>,
    history: Rc<Vec<String>>,
    dispatch: Callback<Action>,
    input: NodeRef,
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        let area: HtmlTextAreaElement = e.target_unchecked_into();
        let value = area.value();
        match e.key().as_str() {
            "Enter" if !e.shift_key() => {
                e.prevent_default();
                submit(
                    w,
                    value,
                    text.clone(),
                    cursor.clone(),
                    dispatch.clone(),
                    input.clone(),
                );
            }
            "ArrowUp" if !value.contains('\n') || cursor.is_some() => {
                if history.is_empty() {
                    return;
                }
                e.prevent_default();
                history_up(&history, &text, &cursor);
            }
            "ArrowDown" if cursor.is_some() => {
                e.prevent_default();
                history_down(&history, &text, &cursor);
            }
            _ => {}
        }
    })
}

/// Asks the engine whether `value` is finished: if not, adds a line to it; if so, runs it
/// (unless blank) and clears the input. Whether the input is finished is the shell's to say.
///
/// Nothing typed is lost: the input is changed only if it still holds `value` when the
/// engine answers (what was typed meanwhile, the next command of a quick typist or a
/// paste, stays and runs after it), and a command over the engine's limit is not sent but
/// kept in the input, with a notice saying the limit.
fn submit(
    w: Words,
    value: String,
    text: UseStateHandle<String>,
    cursor: UseStateHandle<Option<usize>>,
    dispatch: Callback<Action>,
    input: NodeRef,
) {
    if value.len() > MAX_SOURCE_BYTES {
        let notice = w.tf(
            K::ConsoleTooLarge,
            &[("size", &value.len()), ("limit", &MAX_SOURCE_BYTES)],
        );
        dispatch.emit(Action::Notice(Some(Notice::plain(notice))));
        return;
    }
    let source = value.clone();
    ask::ask("console", Call::NeedsMoreInput { source }, move |answer| {
        let unchanged = input
            .cast::<HtmlTextAreaElement>()
            .is_none_or(|area| area.value() == value);
        if let Ok(Reply::NeedsMoreInput { more: true }) = answer {
            if unchanged {
                text.set(format!("{value}\n"));
            }
            return;
        }
        if !value.trim().is_empty() {
            dispatch.emit(Action::Command(value));
        }
        if unchanged {
            text.set(String::new());
            cursor.set(None);
        }
    });
}

/// Steps back one command in a non-empty history, starting from the newest.
fn history_up(
    history: &[String],
    text: &UseStateHandle<String>,
    cursor: &UseStateHandle<Option<usize>>,
) {
    let i = match **cursor {
        None => history.len() - 1,
        Some(i) => i.saturating_sub(1),
    };
    cursor.set(Some(i));
    text.set(history[i].clone());
}

/// Steps forward one command, or back to an empty draft past the newest.
fn history_down(
    history: &[String],
    text: &UseStateHandle<String>,
    cursor: &UseStateHandle<Option<usize>>,
) {
    match **cursor {
        Some(i) if i + 1 < history.len() => {
            cursor.set(Some(i + 1));
            text.set(history[i + 1].clone());
        }
        _ => {
            cursor.set(None);
            text.set(String::new());
        }
    }
}
