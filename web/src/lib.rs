//! The ShardLab playground UI as a library, so that browser tests can mount its components.

pub mod comparison;
pub mod components;
pub mod driver;
pub mod engine_client;
pub mod export;
pub mod glossary;
pub mod lessons;
pub mod recovery;
pub mod share;
pub mod shortcuts;
pub mod startup;
pub mod state;
pub mod storage;

/// Installs the panic hook and mounts the app on `#app` (or the body).
pub fn start() {
    recovery::install_panic_hook();
    let root = gloo::utils::document()
        .get_element_by_id("app")
        .unwrap_or_else(|| gloo::utils::body().into());
    yew::Renderer::<components::App>::with_root(root).render();
}
