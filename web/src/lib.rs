//! The ShardLab playground UI as a library, so that browser tests can mount its components.

pub mod comparison;
pub mod components;
pub mod export;
pub mod lessons;
pub mod share;
pub mod state;
pub mod storage;
pub mod view_model;

use wasm_bindgen::JsCast;

/// Installs the panic hook and mounts the app on `#app` (or the body).
pub fn start() {
    install_panic_hook();
    let root = gloo::utils::document()
        .get_element_by_id("app")
        .unwrap_or_else(|| gloo::utils::body().into());
    yew::Renderer::<components::App>::with_root(root).render();
}

/// Replaces a dead page with a visible, recoverable notice when the app panics.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        gloo::console::error!(format!("ShardLab panicked: {message}"));
        let document = gloo::utils::document();
        if let Ok(banner) = document.create_element("div") {
            banner.set_class_name("panic-banner");
            banner.set_attribute("role", "alert").ok();
            banner.set_inner_html(
                "Something went wrong inside ShardLab. <a href=\"\">Reload the playground</a> to start again.",
            );
            if let Some(el) = banner.dyn_ref::<web_sys::HtmlElement>() {
                el.set_title(&message);
            }
            gloo::utils::body().append_child(&banner).ok();
        }
    }));
}
