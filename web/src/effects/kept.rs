//! "Recent sessions"' way to the sessions this browser keeps (IndexedDB, through
//! `platform/sessions.rs`): each call starts the work and hands its outcome to `done`
//! once it is known, so that the component only says what to do with it.

use crate::i18n::Words;
use crate::saved::Listed;
use crate::sessions;

/// Reads every stored session, newest first, and hands the list (or why it could not be
/// read) to `done`.
pub fn list(w: Words, done: impl FnOnce(Result<Vec<Listed>, String>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move { done(sessions::list(w).await) });
}

/// Reads the scenario of session `id` and hands it to `done` (`None` if it cannot be read).
pub fn read(id: String, done: impl FnOnce(Option<String>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move { done(sessions::read_text(&id).await) });
}

/// Deletes session `id` and hands the outcome (or why it failed) to `done`.
pub fn delete(w: Words, id: String, done: impl FnOnce(Result<(), String>) + 'static) {
    wasm_bindgen_futures::spawn_local(async move { done(sessions::delete(w, &id).await) });
}
