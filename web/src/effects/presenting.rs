//! A demo's presenter view and the page, kept in step: the components that draw either
//! end open the link through here (over `platform/scene_channel.rs`, a
//! `BroadcastChannel`) and build the addresses the demo hands out.

use crate::scene_channel::{self, SceneChannel};
use crate::scenes::Cue;

/// The page's or the presenter view's end of the link; it closes when dropped.
pub struct Presenting(SceneChannel);

impl Presenting {
    /// Opens the link; `on_cue` gets every cue the other window sends. `None` where the
    /// browser cannot (no `BroadcastChannel`).
    pub fn open(on_cue: impl Fn(Cue) + 'static) -> Option<Presenting> {
        SceneChannel::open(on_cue).map(Presenting)
    }

    /// Sends a cue to the other windows.
    pub fn post(&self, cue: &Cue) {
        self.0.post(cue);
    }
}

/// The address of the page's presenter view.
pub fn presenter_address() -> String {
    format!("{}?presenter=1", scene_channel::page_address())
}

/// The page's address without its query string or fragment, which the audience link is
/// built on.
pub fn page_address() -> String {
    scene_channel::page_address()
}

/// Opens the presenter view in a window of its own (the same window again if it is open).
pub fn open_presenter() {
    let _ = gloo::utils::window().open_with_url_and_target_and_features(
        &presenter_address(),
        "shardlab-presenter",
        "popup,width=720,height=480",
    );
}
