//! Loading the page's module parts: a [`Part`] names a part and how to load it
//! (`components/lazy.rs` declares one per panel that needs a click); its view, once
//! loaded, is kept in the platform's registry (`platform/parts.rs`). The panels that are
//! always there load theirs after the engine's first answer (`components::lazy::prefetch`
//! notes it, when the page is idle).

use std::future::Future;
use std::pin::Pin;

/// A part that did not load (the loader's reason is in [`last_error`]).
#[derive(Debug)]
pub struct NotLoaded;

#[cfg(feature = "split")]
impl From<wasm_split_helpers::SplitLoaderError> for NotLoaded {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        NotLoaded
    }
}

/// What loading a part gives.
pub type Loading<R> = Pin<Box<dyn Future<Output = Result<R, NotLoaded>>>>;

/// One part: its name, as the build names its file (`split_<name>.wasm`), and how to load
/// it (once; a failed load is tried again on the next call).
pub struct Part<R: 'static> {
    /// The part's name.
    pub name: &'static str,
    load: fn() -> Loading<R>,
}

impl<R: Copy + 'static> Part<R> {
    /// Part `name`, loaded by `load`.
    pub const fn new(name: &'static str, load: fn() -> Loading<R>) -> Part<R> {
        Part { name, load }
    }

    /// What the part gave, if it has loaded.
    pub fn ready(&self) -> Option<R> {
        crate::parts::loaded(self.name)
    }

    /// Loads the part and keeps what it gave.
    pub async fn fetch(&'static self) -> Result<R, NotLoaded> {
        if let Some(render) = self.ready() {
            return Ok(render);
        }
        let render = (self.load)().await?;
        crate::parts::keep(self.name, render);
        Ok(render)
    }
}

/// Runs `load` now, or, for a panel that is always there (`always`) while the engine has
/// not answered yet, once it has.
pub fn load_when_due(always: bool, load: impl FnOnce() + 'static) {
    if always {
        crate::parts::when_first_answered(load);
    } else {
        load();
    }
}

/// Runs `f` when the browser is next idle.
pub fn when_idle(f: fn()) {
    crate::parts::when_idle(f);
}

/// Notes the engine's first answer: the loads waiting for it start, one per task. False
/// if it was noted already.
pub fn first_answered() -> bool {
    crate::parts::first_answered()
}

/// Why the latest part failed to load, if the loader said.
pub fn last_error() -> Option<String> {
    crate::parts::last_error()
}
