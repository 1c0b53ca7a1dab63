//! What a component reads of the screen and the clock while it draws: the device pixel
//! ratio a canvas is sized by, and the page's clock a drawing is timed with. They are read
//! at the moment of drawing, as the platform gives them; the model does not keep them (the
//! ratio changes when the window moves to another screen, and the state would hold a
//! stale one), and a component does not reach the platform itself.

/// The screen's device pixels per CSS pixel, at least 1 (1 outside a browser).
pub fn pixel_ratio() -> f64 {
    crate::platform::pixel_ratio()
}

/// Milliseconds on the page's clock (`performance.now()`), 0 outside a browser.
pub fn now_ms() -> f64 {
    crate::platform::now_ms()
}
