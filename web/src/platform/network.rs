//! Waiting for the network: what failed to load for want of it is fetched again by itself,
//! when the browser says it is back or after a growing pause, and the page says so
//! meanwhile (never a raw error string).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/js/network.js")]
extern "C" {
    #[wasm_bindgen(js_name = networkBack)]
    fn network_back(ms: u32) -> js_sys::Promise;
}

/// The pause before the `attempt`-th retry (from 0): one second, doubling, at most 30.
pub fn pause_ms(attempt: u32) -> u32 {
    1_000u32.saturating_mul(1 << attempt.min(5)).min(30_000)
}

/// Waits until the browser is online again, or [`pause_ms`] of `attempt` has passed.
pub async fn back(attempt: u32) {
    let _ = wasm_bindgen_futures::JsFuture::from(network_back(pause_ms(attempt))).await;
}

/// Whether the browser says it is offline.
pub fn offline() -> bool {
    !gloo::utils::window().navigator().on_line()
}

#[wasm_bindgen(module = "/js/network.js")]
extern "C" {
    #[wasm_bindgen(js_name = registerOffline)]
    fn register_offline(url: &str, on_ready: &js_sys::Function);
}

/// Registers the service worker that keeps the site for offline use (`sw.js`, written by
/// the release build), and calls `ready` with the bytes it keeps once everything is kept.
pub fn keep_offline(ready: impl Fn(f64) + 'static) {
    let callback = Closure::<dyn Fn(f64)>::new(ready);
    register_offline("sw.js", callback.as_ref().unchecked_ref());
    // It lives as long as the page.
    callback.forget();
}
