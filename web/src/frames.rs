//! A ticker driven by the display's frames: runs a callback at a steady rate, at the start
//! of a frame, at most once per frame, and another on the frames in between (the
//! playground draws a tick's changes there, so that a tick and its drawing share the
//! load of two frames rather than crowd one).
//!
//! A timer (`setInterval`) fires wherever it falls within a frame, so a tick that lands
//! late in one leaves its drawing to spill over into the next, and the frame is missed
//! even when the work would have fitted. Ticking from `requestAnimationFrame` gives each
//! tick, and the drawing it causes, a whole frame. Ticks also stop while the page is
//! hidden, when nobody can watch them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Half a 60 Hz frame, in milliseconds: a tick is run on the first frame that starts no
/// more than this before it is due, so that a 33.3 ms period falls on every second frame
/// rather than drifting to every third.
const HALF_FRAME_MS: f64 = 8.0;

/// When the next tick is due, in milliseconds, after a tick at `now` that was due at
/// `due`: one period on from `due` (the rate holds on average), or from `now` when the
/// ticker fell more than a period behind (a busy or hidden page does not catch up).
pub fn next_due(due: f64, now: f64, period: f64) -> f64 {
    let next = due + period;
    if next + period < now {
        now + period
    } else {
        next
    }
}

/// Whether a tick due at `due` runs on a frame starting at `now`.
pub fn is_due(due: f64, now: f64) -> bool {
    now + HALF_FRAME_MS >= due
}

type FrameCallback = Closure<dyn FnMut(f64)>;

/// A running ticker; dropping it stops it.
pub struct Ticker {
    request: Rc<Cell<i32>>,
    callback: Rc<RefCell<Option<FrameCallback>>>,
}

impl Ticker {
    /// Runs `tick` every `period_ms` milliseconds, from the next frame on, and `between`
    /// on each frame without a tick.
    pub fn new(
        period_ms: f64,
        mut tick: impl FnMut() + 'static,
        mut between: impl FnMut() + 'static,
    ) -> Ticker {
        let request = Rc::new(Cell::new(0));
        let callback: Rc<RefCell<Option<FrameCallback>>> = Rc::new(RefCell::new(None));
        let due = Cell::new(None::<f64>);
        let again = Rc::downgrade(&callback);
        let next_request = Rc::clone(&request);
        *callback.borrow_mut() = Some(Closure::new(move |now: f64| {
            let at = due.get().unwrap_or(now);
            if is_due(at, now) {
                due.set(Some(next_due(at, now, period_ms)));
                tick();
            } else {
                between();
            }
            if let Some(callback) = again.upgrade() {
                if let Some(f) = callback.borrow().as_ref() {
                    next_request.set(request_frame(f));
                }
            }
        }));
        if let Some(f) = callback.borrow().as_ref() {
            request.set(request_frame(f));
        }
        Ticker { request, callback }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        gloo::utils::window()
            .cancel_animation_frame(self.request.get())
            .ok();
        self.callback.borrow_mut().take();
    }
}

fn request_frame(f: &FrameCallback) -> i32 {
    gloo::utils::window()
        .request_animation_frame(f.as_ref().unchecked_ref())
        .unwrap_or(0)
}
