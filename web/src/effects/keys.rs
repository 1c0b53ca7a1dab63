//! The page's keyboard shortcuts and the small things a tab remembers for its reader: the
//! components' way to the platform's keyboard listener (`platform/shortcuts.rs`) and to
//! sessionStorage's flags.

use gloo::events::EventListener;

/// Listens for shortcut keys on the document (see [`crate::shortcuts::listen`]): `on_key`
/// gets the key's name and says whether it used it. Removed when dropped.
pub fn listen(on_key: impl Fn(&str) -> bool + 'static) -> EventListener {
    crate::shortcuts::listen(on_key)
}

/// A yes or no this tab remembers across reloads, under `key` in sessionStorage.
pub fn tab_flag(key: &str) -> bool {
    crate::storage::session_get(key).as_deref() == Some("1")
}

/// Remembers a yes or no for this tab under `key`.
pub fn set_tab_flag(key: &str, on: bool) {
    crate::storage::session_set(key, if on { "1" } else { "0" });
}
