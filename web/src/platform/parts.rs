//! The registry of the page's module parts (`components/lazy.rs` declares them,
//! `effects/loading.rs` loads them): what each part gave once loaded, by its name, and
//! whether the engine has answered once (the panels that are always there load their parts
//! from then on), with the loads waiting for that. Also the browser's idle callback and
//! the part loader's last error.

use std::any::Any;
use std::cell::{Cell, RefCell};

thread_local! {
    /// What each loaded part gave (its panel's view), by the part's name.
    static LOADED: RefCell<Vec<(&'static str, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
    /// Whether the engine has answered once.
    static AFTER_FIRST_ANSWER: Cell<bool> = const { Cell::new(false) };
    /// The loads waiting for the first answer.
    static WAITING: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
}

/// What part `name` gave, if it has loaded.
pub fn loaded<R: Copy + 'static>(name: &'static str) -> Option<R> {
    LOADED.with(|l| {
        l.borrow()
            .iter()
            .filter(|(n, _)| *n == name)
            .find_map(|(_, r)| r.downcast_ref::<R>().copied())
    })
}

/// Keeps what part `name` gave.
pub fn keep<R: 'static>(name: &'static str, render: R) {
    LOADED.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|(n, _)| *n != name);
        l.push((name, Box::new(render)));
    });
}

/// Whether the engine has answered once.
pub fn after_first_answer() -> bool {
    AFTER_FIRST_ANSWER.with(Cell::get)
}

/// Notes the engine's first answer and starts the loads waiting for it, one per task;
/// false if it was noted already.
pub fn first_answered() -> bool {
    if AFTER_FIRST_ANSWER.with(|a| a.replace(true)) {
        return false;
    }
    one_per_task(
        WAITING
            .with(|w| std::mem::take(&mut *w.borrow_mut()))
            .into_iter(),
    );
    true
}

/// Runs the first of `loads` now and each of the others in a task of its own after it:
/// each starts fetching its part (a fetch for the part and one for each piece it shares
/// with others), and all of them in one task made a task of 30 to 60 ms on a desktop.
fn one_per_task(mut loads: std::vec::IntoIter<Box<dyn FnOnce()>>) {
    let Some(load) = loads.next() else {
        return;
    };
    load();
    if loads.len() > 0 {
        gloo::timers::callback::Timeout::new(0, move || one_per_task(loads)).forget();
    }
}

/// Runs `f` once the engine has answered (at once if it has).
pub fn when_first_answered(f: impl FnOnce() + 'static) {
    if after_first_answer() {
        f();
    } else {
        WAITING.with(|w| w.borrow_mut().push(Box::new(f)));
    }
}

/// Runs `f` when the browser is next idle (`requestIdleCallback`, or a moment later where
/// there is none).
pub fn when_idle(f: fn()) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let callback = Closure::once_into_js(f);
    let window = gloo::utils::window();
    if window
        .request_idle_callback(callback.unchecked_ref())
        .is_err()
    {
        gloo::timers::callback::Timeout::new(200, f).forget();
    }
}

/// Why the latest part failed to load, as the loader said it (the page's
/// `__wasm_split.js`, rewritten by the build), if it said.
pub fn last_error() -> Option<String> {
    let why = js_sys::Reflect::get(&js_sys::global(), &"shardlabPartError".into()).ok()?;
    why.as_string()
}
