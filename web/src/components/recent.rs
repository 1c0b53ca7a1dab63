//! "Recent sessions": every session this browser keeps (see [`crate::saved`]), newest
//! first, with its name, when it was saved, its steps and collections; each can be opened
//! in this tab, downloaded as a scenario file, or deleted.

use crate::export::{download, download_url};
use crate::i18n::{Words, K};
use crate::kept;
use crate::saved::{Listed, Meta};
use yew::prelude::*;

/// Properties of [`RecentSessions`].
#[derive(Properties, PartialEq)]
pub struct RecentProps {
    /// Opens a stored session in this tab: its id and scenario.
    pub on_open: Callback<(String, String)>,
}

/// What the list shows: not read yet, read, or why it could not be.
#[derive(Clone, PartialEq)]
enum Shown {
    Closed,
    Reading,
    Read(Vec<Listed>),
    Failed(String),
}

/// The "Recent sessions" button and, once pressed, the list.
#[function_component(RecentSessions)]
pub fn recent_sessions(props: &RecentProps) -> Html {
    let w = super::lang_switch::use_words();
    let shown = use_state(|| Shown::Closed);
    let status = use_state(String::new);
    let reload = {
        let shown = shown.clone();
        Callback::from(move |()| {
            let shown = shown.clone();
            shown.set(Shown::Reading);
            let set = shown.clone();
            kept::list(w, move |read| {
                set.set(match read {
                    Ok(list) => Shown::Read(list),
                    Err(why) => {
                        Shown::Failed(w.tf(K::RecentTheSessionsCouldNotBe, &[("why", &why)]))
                    }
                })
            });
        })
    };
    let toggle = {
        let (shown, reload) = (shown.clone(), reload.clone());
        Callback::from(move |_: MouseEvent| match *shown {
            Shown::Closed => reload.emit(()),
            _ => shown.set(Shown::Closed),
        })
    };
    let open = !matches!(*shown, Shown::Closed);
    let body = match &*shown {
        Shown::Closed => Html::default(),
        Shown::Reading => html! { <p class="muted">{ w.t(K::RecentReading) }</p> },
        Shown::Failed(why) => html! { <p role="alert">{ why.clone() }</p> },
        Shown::Read(list) if list.is_empty() => html! {
            <p class="muted">{ w.t(K::RecentNoSavedSessionsYetWhat) }</p>
        },
        Shown::Read(list) => html! {
            <ul class="recent-list">
                { for list.iter().map(|l| row(w, l, &props.on_open, &reload, &status, &shown)) }
            </ul>
        },
    };
    html! {
        <div class="recent">
            <button class="secondary" data-testid="recent-sessions" aria-expanded={open.to_string()}
                onclick={toggle}>{ w.t(K::RecentRecentSessions) }</button>
            if open {
                <section class="recent-panel" aria-label={w.t(K::RecentRecentSessions)} data-testid="recent-panel">
                    { body }
                    <p class="muted" role="status" aria-live="polite">{ (*status).clone() }</p>
                </section>
            }
        </div>
    }
}

/// One session's row.
fn row(
    w: Words,
    l: &Listed,
    on_open: &Callback<(String, String)>,
    reload: &Callback<()>,
    status: &UseStateHandle<String>,
    shown: &UseStateHandle<Shown>,
) -> Html {
    let m = &l.meta;
    let badge = if l.here {
        Some(w.t(K::RecentThisTab))
    } else if l.elsewhere {
        Some(w.t(K::RecentOpenInAnotherTab))
    } else {
        None
    };
    let id = m.id.clone();
    let on_open = open_callback(w, &id, on_open, status, shown);
    let on_download = download_callback(w, &id, status);
    let on_delete = delete_callback(w, &id, m.shown_name(w), reload, status);
    html! {
        <li class="recent-row" data-testid="recent-row" data-session={id}>
            <div class="recent-what">
                <strong data-testid="recent-name">{ m.shown_name(w) }</strong>
                if let Some(badge) = badge { <span class="badge">{ badge }</span> }
                <div class="muted">{ summary(w, m) }</div>
                if let Some(why) = &m.aside {
                    <div class="muted">{ w.tf(K::RecentSetAsideWhy, &[("why", &why)]) }</div>
                }
            </div>
            <div class="recent-actions">
                <button class="secondary" data-testid="recent-open" disabled={l.here || l.elsewhere}
                    onclick={on_open}>{ w.t(K::RecentOpen) }</button>
                <button class="secondary" data-testid="recent-download" onclick={on_download}>{ w.t(K::RecentDownload) }</button>
                <button class="secondary" data-testid="recent-delete" disabled={l.here}
                    onclick={on_delete}>{ w.t(K::RecentDelete) }</button>
            </div>
        </li>
    }
}

/// The row's second line: when the session was saved, its steps and its collections.
fn summary(w: Words, m: &Meta) -> String {
    let when = String::from(
        js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(m.updated))
            .to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED),
    );
    let steps = match m.steps {
        1 => w.t(K::Recent1Step).to_string(),
        n => w.tf(K::WordsStepOther, &[("n", &n)]),
    };
    let collections = if m.collections.is_empty() {
        String::new()
    } else {
        format!(" · {}", m.collections.join(", "))
    };
    format!("{when} · {steps}{collections}")
}

/// Open: the session's scenario, read from storage, opens in this tab and the list
/// closes; the status says so if it cannot be read.
fn open_callback(
    w: Words,
    id: &str,
    on_open: &Callback<(String, String)>,
    status: &UseStateHandle<String>,
    shown: &UseStateHandle<Shown>,
) -> Callback<MouseEvent> {
    let (id, on_open, status, shown) = (
        id.to_string(),
        on_open.clone(),
        status.clone(),
        shown.clone(),
    );
    Callback::from(move |_: MouseEvent| {
        let (id, on_open, status, shown) =
            (id.clone(), on_open.clone(), status.clone(), shown.clone());
        kept::read(id.clone(), move |text| match text {
            Some(text) => {
                shown.set(Shown::Closed);
                on_open.emit((id, text));
            }
            None => status.set(w.t(K::RecentThatSessionSScenarioIs).into()),
        });
    })
}

/// Download: the session's scenario as a file; the status says so if it cannot be read.
fn download_callback(w: Words, id: &str, status: &UseStateHandle<String>) -> Callback<MouseEvent> {
    let (id, status) = (id.to_string(), status.clone());
    Callback::from(move |_: MouseEvent| {
        let (id, status) = (id.clone(), status.clone());
        kept::read(id, move |text| match text {
            Some(text) => download(
                "shardlab-session.json",
                &download_url("application/json", &text),
            ),
            None => status.set(w.t(K::RecentThatSessionSScenarioIs).into()),
        });
    })
}

/// Delete: the session (shown as `name`) is deleted from storage, the status says whether
/// it was, and the list is read again.
fn delete_callback(
    w: Words,
    id: &str,
    name: String,
    reload: &Callback<()>,
    status: &UseStateHandle<String>,
) -> Callback<MouseEvent> {
    let (id, reload, status) = (id.to_string(), reload.clone(), status.clone());
    Callback::from(move |_: MouseEvent| {
        let (id, reload, status, name) = (id.clone(), reload.clone(), status.clone(), name.clone());
        kept::delete(w, id, move |deleted| {
            match deleted {
                Ok(()) => status.set(w.tf(K::RecentDeletedName, &[("name", &name)])),
                Err(why) => status.set(w.tf(
                    K::RecentNameCouldNotBeDeleted,
                    &[("name", &name), ("why", &why)],
                )),
            }
            reload.emit(());
        });
    })
}
