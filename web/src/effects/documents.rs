//! The user's own documents into the page's session: the file is read a slice at a time
//! (never whole, so a file of any size keeps the page answering) and each slice sent to
//! the engine, which reads it as mongoimport reads it; at the end the documents go in as
//! one step and the page shows the collection. Progress and the summary are notices; the
//! file never leaves the browser.

use crate::engine_client;
use crate::i18n::{tf, K};
use crate::state::{Action, Notice};
use shardlab_protocol::{Call, EngineError, ImportCall, ImportProgress, Reply, MAX_SOURCE_BYTES};
use std::rc::Rc;
use yew::Callback;

/// The bytes of one slice sent to the engine: the protocol's bound on one.
const SLICE: f64 = MAX_SOURCE_BYTES as f64;

/// Most failed lines a summary names (the count says how many there were).
const LINES_NAMED: usize = 10;

/// One import under way.
struct Job {
    session: String,
    ns: String,
    file: web_sys::File,
    name: String,
    dispatch: Callback<Action>,
}

/// Imports `file` into `ns` of the page's `session`.
pub fn import(session: &str, ns: &str, file: web_sys::File, dispatch: Callback<Action>) {
    let job = Rc::new(Job {
        session: session.to_string(),
        ns: ns.to_string(),
        name: file.name(),
        file,
        dispatch,
    });
    let begin = Call::Import(ImportCall::Begin {
        ns: job.ns.clone(),
        file_name: Some(job.name.clone()),
        format: None,
        columns_have_types: false,
        ignore_blanks: false,
        sort_by: None,
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
                next.tell(tf(
                    K::ShareBarImporting,
                    &[
                        ("file", &next.name),
                        ("ns", &next.ns),
                        ("read", &progress.bytes),
                        ("size", &(size as u64)),
                        ("docs", &progress.documents),
                    ],
                ));
                slice(next, at + SLICE);
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

/// The file has been sent: its documents go in, and the page shows the collection.
fn end(job: Rc<Job>) {
    let next = job.clone();
    engine_client::request(
        &job.session,
        Call::Import(ImportCall::End),
        move |answer| match answer {
            Ok(Reply::Import(done)) => next.done(&done),
            Ok(_) => {}
            Err(e) => next.stopped(&e),
        },
    );
}

impl Job {
    fn tell(&self, text: String) {
        self.dispatch
            .emit(Action::Notice(Some(Notice::plain(text))));
    }

    fn stopped(&self, e: &EngineError) {
        self.tell(tf(
            K::ShareBarImportStopped,
            &[("file", &self.name), ("error", &e.message)],
        ));
    }

    fn done(&self, done: &ImportProgress) {
        if let Some(why) = &done.stopped {
            if done.inserted == 0 {
                return self.stopped(&EngineError::bad_value(why.clone()));
            }
        }
        let lines: Vec<String> = done
            .failures
            .iter()
            .take(LINES_NAMED)
            .map(|f| format!("line {} ({})", f.line, f.reason))
            .collect();
        let text = if lines.is_empty() {
            tf(
                K::ShareBarImported,
                &[
                    ("file", &self.name),
                    ("inserted", &done.inserted),
                    ("ns", &self.ns),
                    ("failed", &done.failed),
                ],
            )
        } else {
            tf(
                K::ShareBarImportedFailures,
                &[
                    ("file", &self.name),
                    ("inserted", &done.inserted),
                    ("ns", &self.ns),
                    ("failed", &done.failed),
                    ("lines", &lines.join("; ")),
                ],
            )
        };
        self.tell(text);
        // The step is in the session: the page shows the collection as it now is.
        self.dispatch.emit(Action::View(self.ns.clone()));
    }
}
