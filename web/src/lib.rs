//! The ShardLab playground UI as a library, so that browser tests can mount its components.
//!
//! The page is a view of the engine (ARCHITECTURE.md, "One engine, many views"). Its
//! folders are its layers, lowest first: `model` (the state and its update), `platform`
//! (storage, the address, the engine client), `effects` (start-up, the driver, content)
//! and `components` (what is drawn). A layer imports only from those below it, which
//! `tests/it/web_layers.rs` checks.

pub mod components;
pub mod effects;
pub mod model;
pub mod platform;

pub use effects::{
    ask, comparison, documents, driver, export, glossary, host, kept, keys, language, lessons,
    loading, presenting, screen, start, startup,
};
pub use model::{
    asking, compare, demo, i18n, notices, opening, options, palette, queries, saved, scenes, state,
    update, words,
};
pub use platform::{
    cache, engine_client, first_screen, network, parts, recovery, scene_channel, sessions, share,
    shortcuts, storage,
};

/// Installs the panic hook and mounts the app on `#app` (or the body).
pub fn start() {
    recovery::install_panic_hook();
    let root = gloo::utils::document()
        .get_element_by_id("app")
        .unwrap_or_else(|| gloo::utils::body().into());
    // A presenter view (`?presenter=1`) draws the demo's notes, with no engine of its own.
    if scene_channel::is_presenter() {
        first_screen::discard(&root);
        yew::Renderer::<components::presenter::Presenter>::with_root(root).render();
    } else if let Some(first) = first_screen::take(&root) {
        let props = components::app::AppProps {
            first: Some(std::rc::Rc::new(first)),
        };
        // In a task of its own: reading the first screen's answer and hydrating it are
        // each a good part of the page's start, and the main thread answers in between
        // (the early console and the first screen's script go on until `hydrating`).
        gloo::timers::callback::Timeout::new(0, move || {
            first_screen::hydrating();
            yew::Renderer::<components::App>::with_root_and_props(root, props).hydrate();
        })
        .forget();
    } else {
        yew::Renderer::<components::App>::with_root(root).render();
    }
}
