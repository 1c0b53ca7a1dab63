//! The build's pre-rendered first screen (ARCHITECTURE.md, "The first screen"): on a first
//! visit `index.html` holds the page's first render as HTML, drawn from the engine's
//! answer for the default scenario, and that answer as JSON. The page hydrates it, starting
//! from the same answer, so the cluster shows before any wasm has loaded.
//!
//! Whether a visit is a first one is decided before the page loads, by a script in
//! `index.html`'s head: no address options and nothing of ShardLab's stored in this
//! browser. It marks the document `data-first-screen="live-soon"` and, until the page
//! hydrated, holds what was clicked, typed or submitted in the pre-rendered screen, to do
//! it again once the page listens. Any other visit hides the pre-rendered screen (the
//! stylesheet, on `data-first-screen="skip"`) and the page draws as it always did.

use crate::state::FirstScreen;
use wasm_bindgen::{JsCast, JsValue};

/// The id of the `<script type="application/json">` holding the first screen.
pub const SCRIPT_ID: &str = "shardlab-first-screen";
/// The document's attribute saying how the pre-rendered first screen is used.
pub const ATTRIBUTE: &str = "data-first-screen";
/// Its value on a first visit, until the page hydrated.
pub const LIVE_SOON: &str = "live-soon";

/// The first screen to hydrate `root` from, on a first visit whose pre-rendered screen
/// and JSON are both in the document; otherwise `None`, with whatever was pre-rendered
/// taken out of `root`, so that the page draws into an empty root as it always did.
pub fn take(root: &web_sys::Element) -> Option<FirstScreen> {
    let document = gloo::utils::document();
    let html = document.document_element();
    let wanted = html
        .as_ref()
        .and_then(|h| h.get_attribute(ATTRIBUTE))
        .is_some_and(|v| v == LIVE_SOON);
    let script = document.get_element_by_id(SCRIPT_ID);
    let first = script
        .as_ref()
        .filter(|_| wanted && root.has_attribute(ATTRIBUTE))
        .and_then(|s| s.text_content())
        .and_then(|text| parse(&text));
    if let Some(script) = script {
        script.remove();
    }
    if first.is_none() {
        discard(root);
    }
    first
}

/// Tells the document's script that the page hydrates now (what [`take`] took): the
/// early console stops and its lines go, so that the DOM is the build's again.
pub fn hydrating() {
    call_keeper("hydrating");
}

/// Takes the pre-rendered first screen out of `root`, and the document's mark with it,
/// for a page that draws something else there (the presenter's view, or any visit but a
/// first one).
pub fn discard(root: &web_sys::Element) {
    let document = gloo::utils::document();
    if let Some(script) = document.get_element_by_id(SCRIPT_ID) {
        script.remove();
    }
    if root.has_attribute(ATTRIBUTE) {
        root.set_inner_html("");
        root.remove_attribute(ATTRIBUTE).ok();
    }
    if let Some(html) = document.document_element() {
        html.remove_attribute(ATTRIBUTE).ok();
    }
}

fn parse(text: &str) -> Option<FirstScreen> {
    let value = js_sys::JSON::parse(text).ok()?;
    serde_wasm_bindgen::from_value(value).ok()
}

/// Tells the document's script that the page now listens: it does again what was
/// clicked, typed or submitted in the pre-rendered screen, in order (the commands the
/// early console ran among them: see [`crate::engine_client`]'s early requests).
pub fn hydrated() {
    if !call_keeper("hydrated") {
        if let Some(html) = gloo::utils::document().document_element() {
            html.remove_attribute(ATTRIBUTE).ok();
        }
    }
}

/// Calls the document script's `window.shardlabFirstScreen[name]`: `hydrating` (the early
/// console stops, and what it printed goes, so that the screen is as the build wrote it)
/// or `hydrated`. False if the script has no such function.
fn call_keeper(name: &str) -> bool {
    let window: JsValue = gloo::utils::window().into();
    let keeper = js_sys::Reflect::get(&window, &JsValue::from_str("shardlabFirstScreen"))
        .unwrap_or(JsValue::UNDEFINED);
    let f = js_sys::Reflect::get(&keeper, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    f.is_some_and(|f| f.call0(&keeper).is_ok())
}
