//! "Import documents": the share bar's button, a file dropped anywhere on the page, and
//! the dialog between the file and the import. The dialog shows what the engine read
//! from the file's first slice (its format, CSV columns, fields), lets the user choose
//! the collection, an order and each CSV column's type, then shows the import's
//! progress with a button that stops it. A file dropped while an import runs is refused
//! in words.

use crate::documents::{self, Choices, Progress, Running};
use crate::i18n::{Words, K};
use crate::state::{Action, Notice};
use shardlab_protocol::{ColumnTypeChoice, ImportPreview};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Properties of [`ImportDocuments`].
#[derive(Properties, PartialEq)]
pub struct ImportDocumentsProps {
    /// The page's session.
    pub session: Rc<str>,
    /// The collection shown: where documents go unless the user names another.
    pub ns: String,
    /// Whether imports must wait (a replay is under way).
    pub disabled: bool,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// Where the dialog is.
#[derive(Clone, PartialEq)]
enum Stage {
    /// No dialog.
    Closed,
    /// A file chosen: what the engine read of it (`None` until it answered), and the
    /// user's choices.
    Choosing {
        file: web_sys::File,
        preview: Option<Result<ImportPreview, String>>,
        choices: Choices,
    },
    /// The import runs.
    Running {
        name: String,
        progress: Progress,
        running: Running,
    },
}

/// What the dialog is told.
enum Msg {
    /// A file to look at under these choices (the preview it had is kept meanwhile).
    Open(web_sys::File, Choices),
    /// The engine's answer about a file under some choices.
    Previewed(web_sys::File, Choices, Result<ImportPreview, String>),
    /// The collection typed.
    Ns(String),
    /// The import started.
    Start(String, Progress, Running),
    /// It came this far.
    Progress(Progress),
    /// Close the dialog before an import (the import's own end closes it too).
    Close,
    /// The import ended, however it did.
    Ended,
}

impl Reducible for Stage {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let next = match (msg, &*self) {
            (Msg::Open(file, choices), current) => {
                let preview = match current {
                    Stage::Choosing {
                        file: f, preview, ..
                    } if *f == file => preview.clone(),
                    _ => None,
                };
                Stage::Choosing {
                    file,
                    preview,
                    choices,
                }
            }
            // An answer for what is still asked (a later choice wins).
            (Msg::Previewed(f, c, answer), Stage::Choosing { file, choices, .. })
                if *file == f && *choices == c =>
            {
                Stage::Choosing {
                    file: f,
                    choices: c,
                    preview: Some(answer),
                }
            }
            (
                Msg::Ns(ns),
                Stage::Choosing {
                    file,
                    preview,
                    choices,
                },
            ) => Stage::Choosing {
                file: file.clone(),
                preview: preview.clone(),
                choices: Choices {
                    ns,
                    ..choices.clone()
                },
            },
            (Msg::Start(name, progress, running), _) => Stage::Running {
                name,
                progress,
                running,
            },
            (Msg::Progress(progress), Stage::Running { name, running, .. }) => Stage::Running {
                name: name.clone(),
                progress,
                running: running.clone(),
            },
            (Msg::Close, Stage::Choosing { .. }) | (Msg::Ended, _) => Stage::Closed,
            _ => return self,
        };
        Rc::new(next)
    }
}

/// The button, the drop target and the dialog.
#[function_component(ImportDocuments)]
pub fn import_documents(props: &ImportDocumentsProps) -> Html {
    let w = super::lang_switch::use_words();
    let stage = use_reducer(|| Stage::Closed);
    let dragging = use_state(|| false);
    let open = open_callback(w, props, stage.clone());
    use_drop_target(open.clone(), dragging.clone(), !props.disabled);
    let on_pick = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                open.emit(file);
            }
            input.set_value("");
        })
    };
    let on_cluster = {
        let (session, dispatch) = (props.session.clone(), props.dispatch.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files: Vec<web_sys::File> = input
                .files()
                .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
                .unwrap_or_default();
            if !files.is_empty() {
                documents::import_cluster(w, &session, files, dispatch.clone());
            }
            input.set_value("");
        })
    };
    html! {
        <>
            <label class="button-like secondary" title={w.t(K::ShareBarImportDocumentsLabel)}>
                { w.t(K::ShareBarImportDocuments) }
                <input type="file" accept=".json,.jsonl,.ndjson,.csv,.gz,application/json,text/csv,application/gzip"
                    data-testid="import-documents" onchange={on_pick}
                    disabled={props.disabled} aria-label={w.t(K::ShareBarImportDocumentsLabel)} />
            </label>
            <label class="button-like secondary" title={w.t(K::ImportClusterLabel)}>
                { w.t(K::ImportClusterButton) }
                <input type="file" multiple=true accept=".json,.jsonl,.ndjson,.txt,.gz,application/json,text/plain,application/gzip"
                    data-testid="import-cluster" onchange={on_cluster}
                    disabled={props.disabled} aria-label={w.t(K::ImportClusterLabel)} />
            </label>
            if *dragging {
                <div class="drop-hint" data-testid="drop-hint" aria-hidden="true">
                    <p>{ w.tf(K::ImportDialogDropHere, &[("ns", &props.ns)]) }</p>
                </div>
            }
            { dialog(w, props, &stage) }
        </>
    }
}

/// Opens the dialog for a file, and asks the engine what it holds; a file given while
/// an import runs is refused in words.
fn open_callback(
    w: Words,
    props: &ImportDocumentsProps,
    stage: UseReducerHandle<Stage>,
) -> Callback<web_sys::File> {
    let session = props.session.clone();
    let ns = props.ns.clone();
    let dispatch = props.dispatch.clone();
    Callback::from(move |file: web_sys::File| {
        if let Stage::Running { name, .. } = &*stage {
            let busy = w.tf(
                K::ImportDialogBusy,
                &[("file", name), ("other", &file.name())],
            );
            dispatch.emit(Action::Notice(Some(Notice::plain(busy))));
            return;
        }
        let choices = Choices {
            ns: ns.clone(),
            ..Choices::default()
        };
        ask_preview(&session, &stage, file, choices);
    })
}

/// Shows the dialog for `file` under `choices`, and asks the engine what they read.
fn ask_preview(
    session: &str,
    stage: &UseReducerHandle<Stage>,
    file: web_sys::File,
    choices: Choices,
) {
    stage.dispatch(Msg::Open(file.clone(), choices.clone()));
    let stage = stage.clone();
    let (asked_file, asked) = (file.clone(), choices.clone());
    let done = Callback::from(move |answer: Result<ImportPreview, String>| {
        stage.dispatch(Msg::Previewed(asked_file.clone(), asked.clone(), answer));
    });
    documents::preview(session, &file, &choices, done);
}

/// Listens for files dragged over and dropped on the page while `enabled`.
#[hook]
fn use_drop_target(open: Callback<web_sys::File>, dragging: UseStateHandle<bool>, enabled: bool) {
    use_effect_with((open, enabled), move |(open, enabled)| {
        let document = gloo::utils::document();
        let listeners = enabled.then(|| {
            let hint = dragging.clone();
            let over = gloo::events::EventListener::new_with_options(
                &document,
                "dragover",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |e| {
                    if carries_files(e) {
                        e.prevent_default();
                        if !*hint {
                            hint.set(true);
                        }
                    }
                },
            );
            let hint = dragging.clone();
            let leave = gloo::events::EventListener::new(&document, "dragleave", move |e| {
                let out = e
                    .dyn_ref::<DragEvent>()
                    .is_some_and(|d| d.related_target().is_none());
                if out {
                    hint.set(false);
                }
            });
            let (hint, open) = (dragging.clone(), open.clone());
            let drop = gloo::events::EventListener::new_with_options(
                &document,
                "drop",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |e| {
                    hint.set(false);
                    let file = e
                        .dyn_ref::<DragEvent>()
                        .and_then(DragEvent::data_transfer)
                        .and_then(|d| d.files())
                        .and_then(|f| f.get(0));
                    if let Some(file) = file {
                        e.prevent_default();
                        open.emit(file);
                    }
                },
            );
            (over, leave, drop)
        });
        move || drop(listeners)
    });
}

/// Whether a drag carries files (not text or a link dragged within the page).
fn carries_files(e: &web_sys::Event) -> bool {
    e.dyn_ref::<DragEvent>()
        .and_then(DragEvent::data_transfer)
        .is_some_and(|d| d.types().includes(&"Files".into(), 0))
}

/// The dialog, when open.
fn dialog(w: Words, props: &ImportDocumentsProps, stage: &UseReducerHandle<Stage>) -> Html {
    let body = match &**stage {
        Stage::Closed => return html! {},
        Stage::Choosing {
            file,
            preview,
            choices,
        } => choosing(w, props, stage, file, preview.as_ref(), choices),
        Stage::Running {
            name,
            progress,
            running,
        } => running_view(w, name, progress, running),
    };
    let close = {
        let stage = stage.clone();
        Callback::from(move |_: MouseEvent| stage.dispatch(Msg::Close))
    };
    let on_key = {
        let stage = stage.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                stage.dispatch(Msg::Close);
            }
        })
    };
    html! {
        <>
            <div class="dialog-backdrop" onclick={close}></div>
            <div class="import-dialog" role="dialog" aria-modal="true" aria-labelledby="import-title"
                data-testid="import-dialog" onkeydown={on_key}>
                <h2 id="import-title">{ w.t(K::ImportDialogTitle) }</h2>
                <p class="import-private">{ w.t(K::ImportDialogPrivate) }</p>
                { body }
            </div>
        </>
    }
}

/// The file's size in words a person reads (`1.4 MB`).
fn size_text(w: Words, bytes: f64) -> String {
    // Bytes are a word of the catalogue; the larger units are symbols, the same in
    // every language.
    const UNITS: [&str; 4] = ["", "KB", "MB", "GB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        w.tf(K::ImportDialogBytes, &[("n", &bytes)])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The dialog before the import: what the file holds and the user's choices.
fn choosing(
    w: Words,
    props: &ImportDocumentsProps,
    stage: &UseReducerHandle<Stage>,
    file: &web_sys::File,
    preview: Option<&Result<ImportPreview, String>>,
    choices: &Choices,
) -> Html {
    let head = html! {
        <p class="import-file" data-testid="import-file">
            <strong>{ file.name() }</strong>{ " · " }{ size_text(w, file.size()) }
        </p>
    };
    let close = {
        let stage = stage.clone();
        Callback::from(move |_: MouseEvent| stage.dispatch(Msg::Close))
    };
    let close_button = html! {
        <button class="secondary" data-testid="import-close" onclick={close}>{ w.t(K::ImportDialogClose) }</button>
    };
    let preview = match preview {
        None => {
            return html! { <>{ head }<p data-testid="import-reading">{ w.t(K::ImportDialogReading) }</p>
            <div class="dialog-actions">{ close_button }</div></> }
        }
        Some(Err(why)) => Err(why.clone()),
        Some(Ok(p)) => match &p.error {
            Some(why) => Err(why.clone()),
            None => Ok(p),
        },
    };
    let form = match &preview {
        Err(why) => html! {
            <p class="import-error" role="alert" data-testid="import-error">{ w.tf(K::ImportDialogCannotRead, &[("error", why)]) }</p>
        },
        Ok(p) => choices_form(w, props, stage, file, p, choices),
    };
    let start = start_callback(w, props, stage, file, choices);
    html! {
        <>
            { head }
            { form }
            <div class="dialog-actions">
                <button data-testid="import-start" onclick={start} disabled={preview.is_err() || props.disabled}>
                    { w.t(K::ImportDialogStart) }
                </button>
                { close_button }
            </div>
        </>
    }
}

/// The format read, the collection, the order and the CSV columns' types.
fn choices_form(
    w: Words,
    props: &ImportDocumentsProps,
    stage: &UseReducerHandle<Stage>,
    file: &web_sys::File,
    p: &ImportPreview,
    choices: &Choices,
) -> Html {
    let rechoose = {
        let (stage, file, session) = (stage.clone(), file.clone(), props.session.clone());
        Callback::from(move |c: Choices| ask_preview(&session, &stage, file.clone(), c))
    };
    let on_ns = {
        let stage = stage.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            stage.dispatch(Msg::Ns(input.value()));
        })
    };
    let on_sort = {
        let (rechoose, choices) = (rechoose.clone(), choices.clone());
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            let value = select.value();
            rechoose.emit(Choices {
                sort_by: (!value.is_empty()).then_some(value),
                ..choices.clone()
            });
        })
    };
    let format = match p.format.as_deref() {
        Some("csv") => w.t(K::ImportDialogFormatCsv),
        Some("jsonArray") => w.t(K::ImportDialogFormatJsonArray),
        _ => w.t(K::ImportDialogFormatJson),
    };
    let read = if p.failed == 0 {
        w.tf(
            K::ImportDialogRead,
            &[("format", &format), ("documents", &p.documents)],
        )
    } else {
        w.tf(
            K::ImportDialogReadFailed,
            &[
                ("format", &format),
                ("documents", &p.documents),
                ("failed", &p.failed),
            ],
        )
    };
    let sort_by = choices.sort_by.clone().unwrap_or_default();
    html! {
        <div class="import-form">
            <p class="import-format" data-testid="import-format">{ read }</p>
            <label class="import-field">{ w.t(K::ImportDialogCollection) }
                <input data-testid="import-ns" value={choices.ns.clone()} onchange={on_ns} spellcheck="false" />
            </label>
            <label class="import-field">{ w.t(K::ImportDialogOrder) }
                <select data-testid="import-sort" onchange={on_sort}>
                    <option value="" selected={sort_by.is_empty()}>{ w.t(K::ImportDialogFileOrder) }</option>
                    { for p.fields.iter().map(|f| html! {
                        <option value={f.clone()} selected={*f == sort_by}>{ f.clone() }</option>
                    }) }
                </select>
            </label>
            <p class="import-hint">{ w.t(K::ImportDialogOrderHint) }</p>
            if p.format.as_deref() == Some("csv") {
                { columns_table(w, p, choices, rechoose) }
            }
        </div>
    }
}

/// The CSV columns, each with its type to choose, and whether the header spells them.
fn columns_table(
    w: Words,
    p: &ImportPreview,
    choices: &Choices,
    rechoose: Callback<Choices>,
) -> Html {
    let on_header = {
        let (rechoose, choices) = (rechoose.clone(), choices.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            rechoose.emit(Choices {
                columns_have_types: input.checked(),
                column_types: Vec::new(),
                ..choices.clone()
            });
        })
    };
    let rows = p.columns.iter().map(|column| {
        let chosen = choices
            .column_types
            .iter()
            .find(|c| c.name == column.name)
            .map(|c| c.spec.clone());
        let current = chosen.unwrap_or_else(|| {
            p.type_choices
                .iter()
                .find(|c| c.split('(').next() == Some(column.spec.as_str()))
                .cloned()
                .unwrap_or_else(|| format!("{}()", column.spec))
        });
        let mut offered = p.type_choices.clone();
        if !offered.contains(&current) {
            offered.push(current.clone());
        }
        let on_type = type_callback(&rechoose, choices, &column.name);
        html! {
            <tr data-testid="import-column">
                <td><code>{ column.name.clone() }</code></td>
                <td>
                    <select data-testid="import-type" data-column={column.name.clone()} onchange={on_type}
                        aria-label={w.tf(K::ImportDialogTypeOf, &[("column", &column.name)])}>
                        { for offered.iter().map(|c| html! {
                            <option value={c.clone()} selected={*c == current}>{ c.clone() }</option>
                        }) }
                    </select>
                </td>
            </tr>
        }
    });
    html! {
        <>
            <label class="import-check">
                <input type="checkbox" data-testid="import-header-types" checked={choices.columns_have_types} onchange={on_header} />
                { w.t(K::ImportDialogHeaderTypes) }
            </label>
            <table class="import-columns">
                <thead><tr><th>{ w.t(K::ImportDialogColumn) }</th><th>{ w.t(K::ImportDialogType) }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </>
    }
}

/// A column's type chosen: the choices again with it.
fn type_callback(rechoose: &Callback<Choices>, choices: &Choices, name: &str) -> Callback<Event> {
    let (rechoose, choices, name) = (rechoose.clone(), choices.clone(), name.to_string());
    Callback::from(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        let mut column_types: Vec<ColumnTypeChoice> = choices
            .column_types
            .iter()
            .filter(|c| c.name != name)
            .cloned()
            .collect();
        column_types.push(ColumnTypeChoice {
            name: name.clone(),
            spec: select.value(),
        });
        rechoose.emit(Choices {
            column_types,
            ..choices.clone()
        });
    })
}

/// "Import": starts the import with the choices made.
fn start_callback(
    w: Words,
    props: &ImportDocumentsProps,
    stage: &UseReducerHandle<Stage>,
    file: &web_sys::File,
    choices: &Choices,
) -> Callback<MouseEvent> {
    let (session, dispatch) = (props.session.clone(), props.dispatch.clone());
    let (stage, file, choices) = (stage.clone(), file.clone(), choices.clone());
    Callback::from(move |_: MouseEvent| {
        let progress = Progress {
            size: file.size() as u64,
            ..Progress::default()
        };
        let running = Running::default();
        stage.dispatch(Msg::Start(file.name(), progress, running.clone()));
        let on_progress = {
            let stage = stage.clone();
            Callback::from(move |progress: Progress| stage.dispatch(Msg::Progress(progress)))
        };
        let on_end = {
            let stage = stage.clone();
            Callback::from(move |()| stage.dispatch(Msg::Ended))
        };
        documents::import(
            &session,
            file.clone(),
            choices.clone(),
            &running,
            documents::Hearing {
                words: w,
                progress: on_progress,
                end: on_end,
                dispatch: dispatch.clone(),
            },
        );
    })
}

/// The dialog while the import runs: a progress bar and the button that stops it.
fn running_view(w: Words, name: &str, progress: &Progress, running: &Running) -> Html {
    let stop = {
        let running = running.clone();
        Callback::from(move |_: MouseEvent| running.stop())
    };
    // Reading the file, then inserting what was read: the bar measures the one under way.
    let (text, done, all) = match progress.inserted {
        Some(inserted) => (
            w.tf(
                K::ImportDialogInserting,
                &[
                    ("file", &name),
                    ("inserted", &inserted),
                    ("docs", &progress.documents),
                ],
            ),
            inserted,
            progress.documents,
        ),
        None => (
            w.tf(
                K::ImportDialogProgress,
                &[
                    ("file", &name),
                    ("read", &size_text(w, progress.read as f64)),
                    ("size", &size_text(w, progress.size as f64)),
                    ("docs", &progress.documents),
                ],
            ),
            progress.read,
            progress.size,
        ),
    };
    html! {
        <>
            <progress data-testid="import-progress" data-phase={if progress.inserted.is_some() { "inserting" } else { "reading" }}
                max={all.max(1).to_string()} value={done.to_string()} aria-label={text.clone()}></progress>
            <p class="import-progress-text" aria-live="polite">{ text }</p>
            <div class="dialog-actions">
                <button class="secondary" data-testid="import-stop" onclick={stop}>{ w.t(K::ImportDialogStop) }</button>
            </div>
        </>
    }
}
