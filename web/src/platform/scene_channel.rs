//! The channel between the page and its presenter view (`?presenter=1`, a second window of
//! the same origin): a `BroadcastChannel` that carries [`Cue`]s both ways. The page says
//! which scene is on screen; the presenter view asks for it on opening and asks to move.

use gloo::events::EventListener;
use serde::Serialize;
use wasm_bindgen::JsCast;

/// The channel's name.
const NAME: &str = "shardlab-scenes";

pub use crate::scenes::Cue;

/// An open channel; it closes when dropped.
pub struct SceneChannel {
    channel: web_sys::BroadcastChannel,
    _listener: EventListener,
}

impl SceneChannel {
    /// Opens the channel; `on_cue` gets every cue the other window sends (what is not a
    /// cue is ignored). `None` where the browser has no `BroadcastChannel`.
    pub fn open(on_cue: impl Fn(Cue) + 'static) -> Option<SceneChannel> {
        let channel = web_sys::BroadcastChannel::new(NAME).ok()?;
        let listener = EventListener::new(&channel, "message", move |e| {
            let Some(e) = e.dyn_ref::<web_sys::MessageEvent>() else {
                return;
            };
            if let Ok(cue) = serde_wasm_bindgen::from_value::<Cue>(e.data()) {
                on_cue(cue);
            }
        });
        Some(SceneChannel {
            channel,
            _listener: listener,
        })
    }

    /// Sends a cue to the other windows.
    pub fn post(&self, cue: &Cue) {
        let serializer = serde_wasm_bindgen::Serializer::json_compatible();
        if let Ok(value) = cue.serialize(&serializer) {
            let _ = self.channel.post_message(&value);
        }
    }
}

impl Drop for SceneChannel {
    fn drop(&mut self) {
        self.channel.close();
    }
}

/// Whether this window is a presenter view (`?presenter=1`).
pub fn is_presenter() -> bool {
    let search = gloo::utils::window()
        .location()
        .search()
        .unwrap_or_default();
    search
        .trim_start_matches('?')
        .split('&')
        .any(|p| p == "presenter=1")
}

/// The page's address without its query string or fragment: what the presenter view and
/// the audience link are built on.
pub fn page_address() -> String {
    let location = gloo::utils::window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    format!("{origin}{path}")
}
