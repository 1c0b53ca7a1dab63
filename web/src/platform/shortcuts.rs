//! Keyboard shortcuts: one listener type for every shortcut of the page, so that each one
//! ignores keys typed in a field or with a modifier, and can stop the browser's own use of
//! the key (Space scrolling the page) without the "passive event listener" warning.

use gloo::events::{EventListener, EventListenerOptions};
use wasm_bindgen::JsCast;

/// Whether the user is typing in a field, where keys are text, not shortcuts.
pub fn typing() -> bool {
    gloo::utils::document()
        .active_element()
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// Listens for shortcut keys on the document. `on_key` gets the key's name (`" "`,
/// `"ArrowRight"`, `"n"`) and says whether it used it; a used key's default action
/// (scrolling, for Space and the arrows) is prevented. Keys typed in a field or pressed with
/// Ctrl, Meta or Alt never reach `on_key`. The listener is removed when dropped.
pub fn listen(on_key: impl Fn(&str) -> bool + 'static) -> EventListener {
    EventListener::new_with_options(
        &gloo::utils::document(),
        "keydown",
        EventListenerOptions::enable_prevent_default(),
        move |e| {
            let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                return;
            };
            if typing() || e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            if on_key(&e.key()) {
                e.prevent_default();
            }
        },
    )
}
