//! Share links, embed options and the saved session's keys: how a scenario leaves the
//! page and comes back. The scenario's text (its link form and its JSON form) is the
//! engine's (`Call::Link`), so a link holds shell commands of our language and data, never
//! JavaScript; the page only carries it.

/// The localStorage key of the saved session; the suffix is its format version.
pub const STORAGE_KEY: &str = "shardlab.session.v1";

/// localStorage: the user's session as it was before a link or a lesson in the address
/// replaced it, for "Return to your session".
pub const PREVIOUS_KEY: &str = "shardlab.session.previous";

/// localStorage: the saved session as the last link or lesson opened it, before any change.
/// A saved session equal to it is not the user's work, so opening another link does not
/// copy it over [`PREVIOUS_KEY`] (which still holds the user's own session).
pub const LINKED_KEY: &str = "shardlab.session.linked";

/// localStorage: a saved session set aside because it could not be restored (it killed the
/// page, could not be read, or ran past the replay budget). It is never replayed on its own
/// again; the page offers it for download.
pub const FAILED_KEY: &str = "shardlab.session.failed";

/// localStorage: set while the saved session replays on start, as JSON `{"tab", "at"}`. If
/// it is still there at the next start, that replay never finished.
pub const LOADING_KEY: &str = "shardlab.session.loading";

pub use crate::options::{query_without_link, PageOptions};

/// A URL to download text of a MIME type from: a `data:` URL, or for text over 1 MiB an
/// object URL, since Chromium refuses `data:` URLs over 2 MB (a large session's download
/// would fail). An object URL lives as long as the page.
pub fn download_url(mime: &str, text: &str) -> String {
    if text.len() > 1 << 20 {
        if let Some(url) = object_url(mime, text) {
            return url;
        }
    }
    format!(
        "data:{mime};charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(text))
    )
}

/// An object URL holding `text` as a blob of type `mime`.
fn object_url(mime: &str, text: &str) -> Option<String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(&format!("{mime};charset=utf-8"));
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// localStorage: the page's own state (tab, lesson step, workload form, ...) of the saved
/// session, as name/value pairs, written at once on every change. The scenario itself is
/// the engine's to write and comes a moment later; a reload in between still finds the
/// page as it was.
pub const PAGE_KEY: &str = "shardlab.session.page";

/// localStorage: how many of the saved session's steps are the user's own (beyond its
/// setup's, which the engine counts), written beside it, so that a fresh playground or an
/// untouched lesson is not kept as "your session" when a link replaces it.
pub const STEPS_KEY: &str = "shardlab.session.steps";
