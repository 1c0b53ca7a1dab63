//! The user's own documents into the page's session. A first look (`preview`) reads the
//! file's first slice in the engine, which says its format, its CSV columns and the
//! fields its documents hold, so that the user can choose column types and an order;
//! then `import` reads the file a slice at a time (never whole, so a file of any size
//! keeps the page answering) and sends each slice to the engine, which reads it as
//! mongoimport reads it; at the end the documents go in as one step and the page shows
//! the collection. Progress goes to the caller; the summary is a notice; the file never
//! leaves the browser.

use crate::engine_client;
use crate::i18n::{Words, K};
use crate::state::{Action, Notice};
use shardlab_protocol::{
    Call, ColumnTypeChoice, EngineError, ImportCall, ImportPreview, ImportProgress, MetadataFile,
    Reply, MAX_CLUSTER_IMPORT_BYTES, MAX_SOURCE_BYTES,
};
use std::cell::Cell;
use std::rc::Rc;
use yew::Callback;

/// The bytes of one slice sent to the engine: the protocol's bound on one.
const SLICE: f64 = MAX_SOURCE_BYTES as f64;

/// Most failed lines a summary names (the count says how many there were).
const LINES_NAMED: usize = 10;

/// What the user chose for an import.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choices {
    /// The collection the documents go into.
    pub ns: String,
    /// Whether the CSV header spells each column's type.
    pub columns_have_types: bool,
    /// The field to insert in the order of; file order when `None`.
    pub sort_by: Option<String>,
    /// Types chosen for CSV columns.
    pub column_types: Vec<ColumnTypeChoice>,
}

/// How far an import has come.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Bytes the engine has read.
    pub read: u64,
    /// The file's size.
    pub size: u64,
    /// Documents read so far.
    pub documents: u64,
    /// Once the file is read: how many of its documents went in so far.
    pub inserted: Option<u64>,
}

/// An import under way, which the user can stop.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Running {
    stop: Rc<Cell<bool>>,
}

impl Running {
    /// Stops the import before its next slice: nothing goes in.
    pub fn stop(&self) {
        self.stop.set(true);
    }
}

/// One import under way.
struct Job {
    /// The words its notices are in.
    words: Words,
    session: String,
    choices: Choices,
    file: web_sys::File,
    name: String,
    stop: Rc<Cell<bool>>,
    on_progress: Callback<Progress>,
    on_end: Callback<()>,
    dispatch: Callback<Action>,
}

/// Asks the engine what `file`'s first slice shows under `choices`.
pub fn preview(
    session: &str,
    file: &web_sys::File,
    choices: &Choices,
    done: Callback<Result<ImportPreview, String>>,
) {
    let session = session.to_string();
    let file = file.clone();
    let choices = choices.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let size = file.size();
        let bytes = match read(&file, 0.0, size.min(SLICE)).await {
            Ok(bytes) => bytes,
            Err(why) => return done.emit(Err(why)),
        };
        let call = Call::Import(ImportCall::Preview {
            bytes,
            complete: size <= SLICE,
            file_name: Some(file.name()),
            format: None,
            columns_have_types: choices.columns_have_types,
            column_types: choices.column_types,
        });
        engine_client::request(&session, call, move |answer| match answer {
            Ok(Reply::Import(ImportProgress {
                preview: Some(p), ..
            })) => done.emit(Ok(p)),
            Ok(_) => {}
            Err(e) => done.emit(Err(e.message)),
        });
    });
}

/// Who hears of an import under way: `progress` each slice read, `end` the end, however
/// it came, and the page (`dispatch`) what it did, in `words`.
pub struct Hearing {
    pub words: Words,
    pub progress: Callback<Progress>,
    pub end: Callback<()>,
    pub dispatch: Callback<Action>,
}

/// Imports `file` into the page's `session` as `choices` say, until `running` is
/// stopped, telling `hearing` how it goes.
pub fn import(
    session: &str,
    file: web_sys::File,
    choices: Choices,
    running: &Running,
    hearing: Hearing,
) {
    let Hearing {
        words,
        progress: on_progress,
        end: on_end,
        dispatch,
    } = hearing;
    let job = Rc::new(Job {
        words,
        session: session.to_string(),
        name: file.name(),
        stop: running.stop.clone(),
        choices,
        file,
        on_progress,
        on_end,
        dispatch,
    });
    let begin = Call::Import(ImportCall::Begin {
        ns: job.choices.ns.clone(),
        file_name: Some(job.name.clone()),
        format: None,
        columns_have_types: job.choices.columns_have_types,
        ignore_blanks: false,
        sort_by: job.choices.sort_by.clone(),
        column_types: job.choices.column_types.clone(),
    });
    let next = job.clone();
    engine_client::request(&job.session, begin, move |answer| match answer {
        Ok(_) => slice(next, 0.0),
        Err(e) => next.stopped(&e),
    });
}

/// Reads and sends the slice from `at`, then the next, then `end`.
fn slice(job: Rc<Job>, at: f64) {
    let size = job.file.size();
    if job.stop.get() {
        return job.cancel();
    }
    if at >= size {
        return end(job);
    }
    wasm_bindgen_futures::spawn_local(async move {
        let bytes = match read(&job.file, at, (at + SLICE).min(size)).await {
            Ok(bytes) => bytes,
            Err(why) => {
                engine_client::request(&job.session, Call::Import(ImportCall::Cancel), |_| ());
                return job.stopped(&EngineError::bad_value(why));
            }
        };
        let call = Call::Import(ImportCall::Slice { bytes });
        let next = job.clone();
        engine_client::request(&job.session, call, move |answer| match answer {
            Ok(Reply::Import(progress)) => {
                next.on_progress.emit(Progress {
                    read: progress.bytes,
                    size: size as u64,
                    documents: progress.documents,
                    inserted: None,
                });
                // A file the engine reads no further (a limit, a broken stream) ends here.
                if progress.stopped.is_some() {
                    end(next);
                } else {
                    slice(next, at + SLICE);
                }
            }
            Ok(_) => {}
            Err(e) => next.stopped(&e),
        });
    });
}

/// The bytes of `file` from `from` to `to`.
async fn read(file: &web_sys::File, from: f64, to: f64) -> Result<Vec<u8>, String> {
    let blob = file
        .slice_with_f64_and_f64(from, to)
        .map_err(|e| format!("{e:?}"))?;
    let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The file has been sent: its documents go in, a few batches an `end` (each answer
/// says how many so far, until the last says it is done), and the page shows the
/// collection. Stopped meanwhile, nothing goes in.
fn end(job: Rc<Job>) {
    if job.stop.get() {
        return job.cancel();
    }
    let next = job.clone();
    engine_client::request(
        &job.session,
        Call::Import(ImportCall::End),
        move |answer| match answer {
            Ok(Reply::Import(done)) if done.done => next.done(&done),
            Ok(Reply::Import(going)) => {
                next.on_progress.emit(Progress {
                    read: going.bytes,
                    size: going.bytes,
                    documents: going.documents,
                    inserted: Some(going.inserted),
                });
                end(next);
            }
            Ok(_) => {}
            Err(e) => next.stopped(&e),
        },
    );
}

impl Job {
    fn tell(&self, text: String) {
        self.dispatch
            .emit(Action::Notice(Some(Notice::plain(text))));
        self.on_end.emit(());
    }

    fn cancel(&self) {
        let w = self.words;
        engine_client::request(&self.session, Call::Import(ImportCall::Cancel), |_| ());
        self.tell(w.tf(K::ImportDialogStopped, &[("file", &self.name)]));
    }

    fn stopped(&self, e: &EngineError) {
        let w = self.words;
        self.tell(w.tf(
            K::ShareBarImportStopped,
            &[("file", &self.name), ("error", &e.message)],
        ));
    }

    fn done(&self, done: &ImportProgress) {
        let w = self.words;
        if let Some(why) = &done.stopped {
            if done.inserted == 0 {
                return self.stopped(&EngineError::bad_value(why.clone()));
            }
        }
        let lines: Vec<String> = done
            .failures
            .iter()
            .take(LINES_NAMED)
            .map(|f| w.tf(K::FailuresLine, &[("line", &f.line), ("reason", &f.reason)]))
            .collect();
        let ns = &self.choices.ns;
        let text = if let Some(why) = &done.stopped {
            w.tf(
                K::ImportDialogStoppedPartly,
                &[
                    ("file", &self.name),
                    ("inserted", &done.inserted),
                    ("ns", ns),
                    ("failed", &done.failed),
                    ("error", why),
                ],
            )
        } else if lines.is_empty() {
            w.tf(
                K::ShareBarImported,
                &[
                    ("file", &self.name),
                    ("inserted", &done.inserted),
                    ("ns", ns),
                    ("failed", &done.failed),
                ],
            )
        } else {
            w.tf(
                K::ShareBarImportedFailures,
                &[
                    ("file", &self.name),
                    ("inserted", &done.inserted),
                    ("ns", ns),
                    ("failed", &done.failed),
                    ("lines", &lines.join("; ")),
                ],
            )
        };
        self.tell(text);
        // The step is in the session: the page shows the collection as it now is.
        self.dispatch.emit(Action::View(ns.clone()));
    }
}

/// A real cluster's config exports into the page's session: each file's text (a `.gz`
/// inflated by the browser's `DecompressionStream`), sent to the engine's
/// `importCluster`, which makes the session that cluster with its changelog replayed a
/// step a change; the summary is a notice, and the page shows the first collection.
pub fn import_cluster(
    w: Words,
    session: &str,
    files: Vec<web_sys::File>,
    dispatch: Callback<Action>,
) {
    let total: f64 = files.iter().map(|f| f.size()).sum();
    let tell = {
        let dispatch = dispatch.clone();
        move |text: String| dispatch.emit(Action::Notice(Some(Notice::plain(text))))
    };
    // Past the engine's bound the files are refused by their size, unread.
    if total > MAX_CLUSTER_IMPORT_BYTES as f64 {
        let e = shardlab_protocol::too_long(
            "the config exports",
            total as u64,
            MAX_CLUSTER_IMPORT_BYTES,
        );
        return tell(w.tf(K::ImportClusterRefused, &[("error", &e.message)]));
    }
    tell(w.tf(K::ImportClusterReading, &[("files", &files.len())]));
    let session = session.to_string();
    wasm_bindgen_futures::spawn_local(async move {
        let mut read = Vec::with_capacity(files.len());
        for file in &files {
            match text_of(w, file).await {
                Ok(text) => read.push(MetadataFile {
                    name: file.name(),
                    text,
                }),
                Err(why) => {
                    let error = format!("{}: {why}", file.name());
                    return tell(w.tf(K::ImportClusterRefused, &[("error", &error)]));
                }
            }
        }
        let call = Call::ImportCluster { files: read };
        engine_client::request(&session, call, move |answer| match answer {
            Ok(Reply::ImportCluster(done)) => {
                let skipped: Vec<String> = done
                    .skipped
                    .iter()
                    .map(|s| format!("{} ×{} ({})", s.what, s.count, s.reason))
                    .collect();
                let skipped = if skipped.is_empty() {
                    "—".to_string()
                } else {
                    skipped.join("; ")
                };
                tell(w.tf(
                    K::ImportClusterDone,
                    &[
                        ("ns", &done.ns.join(", ")),
                        ("version", &done.version),
                        ("replayed", &done.replayed),
                        ("skipped", &skipped),
                    ],
                ));
                if let Some(ns) = done.ns.first() {
                    dispatch.emit(Action::View(ns.clone()));
                }
            }
            Ok(_) => {}
            Err(e) => tell(w.tf(K::ImportClusterRefused, &[("error", &e.message)])),
        });
    });
}

/// A file's text; a `.gz` one inflated on the way.
async fn text_of(w: Words, file: &web_sys::File) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    let why = |e: wasm_bindgen::JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| format!("{e:?}"))
    };
    let promise = if file.name().to_ascii_lowercase().ends_with(".gz") {
        // `DecompressionStream` is not in web-sys's stable API: built by its name.
        let ctor = js_sys::Reflect::get(&js_sys::global(), &"DecompressionStream".into())
            .map_err(why)?
            .dyn_into::<js_sys::Function>()
            .map_err(|_| w.t(K::DocumentsCannotInflateGz).to_string())?;
        let args = js_sys::Array::of1(&"gzip".into());
        let inflate = js_sys::Reflect::construct(&ctor, &args).map_err(why)?;
        let stream = file
            .stream()
            .pipe_through(inflate.unchecked_ref::<web_sys::ReadableWritablePair>());
        web_sys::Response::new_with_opt_readable_stream(Some(&stream))
            .map_err(why)?
            .text()
            .map_err(why)?
    } else {
        file.text()
    };
    let text = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(why)?;
    text.as_string()
        .ok_or_else(|| w.t(K::DocumentsNotText).to_string())
}

/// A query sample's text for a ranking (`RankSpec::queries`), a `.gz` one inflated: `done`
/// hears the file's name and text, or why it cannot be used (past the engine's bound,
/// checked by its size before it is read and again once inflated).
pub fn query_sample(
    w: Words,
    file: web_sys::File,
    done: Callback<Result<(String, String), String>>,
) {
    let max = shardlab_protocol::MAX_RANK_QUERIES_BYTES;
    let name = file.name();
    let too_long =
        move |len: u64| shardlab_protocol::too_long("the query sample", len, max).message;
    if file.size() > max as f64 {
        return done.emit(Err(too_long(file.size() as u64)));
    }
    wasm_bindgen_futures::spawn_local(async move {
        done.emit(match text_of(w, &file).await {
            Ok(text) if text.len() > max => Err(too_long(text.len() as u64)),
            Ok(text) => Ok((name, text)),
            Err(why) => Err(why),
        });
    });
}
