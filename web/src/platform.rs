//! The browser's services the page uses: storage, the address and its options, the crash
//! record, the keyboard, and the one client of the engine. It imports only the model.

pub mod cache;
pub mod early;
pub mod engine_client;
pub mod first_screen;
pub mod network;
pub mod parts;
pub mod recovery;
pub mod scene_channel;
pub mod sessions;
pub mod share;
pub mod shortcuts;
pub mod storage;

/// Whether the page runs in a browser. It does not when the build renders the first
/// screen natively (`web/prerender`): there every browser service reads as absent (no
/// storage, an empty address), so that the first render is the default page's.
pub fn in_browser() -> bool {
    cfg!(target_arch = "wasm32")
}

/// The page's address: its query and its fragment (empty outside a browser).
pub fn address() -> (String, String) {
    if !in_browser() {
        return (String::new(), String::new());
    }
    let location = gloo::utils::window().location();
    (
        location.search().unwrap_or_default(),
        location.hash().unwrap_or_default(),
    )
}

/// The screen's device pixels per CSS pixel, at least 1 (1 outside a browser).
pub fn pixel_ratio() -> f64 {
    if !in_browser() {
        return 1.0;
    }
    gloo::utils::window().device_pixel_ratio().max(1.0)
}

/// Milliseconds on the page's clock (`performance.now()`), 0 outside a browser.
pub fn now_ms() -> f64 {
    if !in_browser() {
        return 0.0;
    }
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}
