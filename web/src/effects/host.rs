//! The embedded view's host page: a documentation page that frames the playground
//! (`embed=1`) can drive it over `postMessage`, if the address names the page's origin in
//! `origins=` (comma-separated, exact origins; none by default).
//!
//! 1. **Handshake.** The host posts `{type: "shardlab:connect", version: 1}` to the frame's
//!    window with a `MessagePort` transferred. A message from an origin not named, from a
//!    window other than the frame's parent, without a port, or of another protocol version
//!    is ignored. The frame answers on the port: `{type: "shardlab:ready", version: 1}`.
//! 2. **Requests** on the port: `{id, method, params}`, answered `{id, result}` or
//!    `{id, error: {codeName, errmsg}}`. Methods: `run` (`params.script`, mongosh typed into
//!    the console), `play`, `pause`, `step`, `state` (the cursor, the collection shown and
//!    its documents) and `watchHeight` (opt in to `height` events).
//! 3. **Events** on the port: `{type: "step", position, length}` when the cursor moves,
//!    `{type: "console", lines}` with what the console printed since, and `{type:
//!    "height", height}` (once opted in) when the content's height changes.
//!
//! Everything in a message is hostile until checked: types, sizes, and the method's name.
//! Nothing a host sends runs as JavaScript: a script is shell text for the engine.

use crate::state::{Action, Playground};
use shardlab_protocol::MAX_SOURCE_BYTES;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::Callback;

/// The version of this protocol.
pub const VERSION: u32 = 1;

/// The most origins `origins=` names.
const MOST_ORIGINS: usize = 16;

/// The origins that may drive the frame, from `origins=`: exact origins only (no `*`).
pub fn parse_origins(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|o| o.starts_with("https://") || o.starts_with("http://"))
        .filter(|o| !o.contains('*') && o.len() <= 200)
        .map(|o| o.trim_end_matches('/').to_string())
        .take(MOST_ORIGINS)
        .collect()
}

struct Link {
    port: web_sys::MessagePort,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    /// What was last told: the cursor and the console's length.
    told: (u64, u64, usize),
    watching: Option<(web_sys::ResizeObserver, Closure<dyn FnMut()>)>,
    height: i32,
}

thread_local! {
    static LINK: RefCell<Option<Link>> = const { RefCell::new(None) };
    static LATEST: RefCell<Option<std::rc::Rc<Playground>>> = const { RefCell::new(None) };
}

/// Listens for a host's handshake from `origins`; the requests it then sends go to
/// `dispatch`. Returns the listener, which lives as long as the page keeps it.
pub fn listen(origins: Vec<String>, dispatch: Callback<Action>) -> gloo::events::EventListener {
    let window = gloo::utils::window();
    gloo::events::EventListener::new(&window, "message", move |event| {
        let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        if !origins.iter().any(|o| *o == event.origin()) || !from_parent(event) {
            return;
        }
        let data = event.data();
        let kind = field(&data, "type").and_then(|t| t.as_string());
        let version = field(&data, "version").and_then(|v| v.as_f64());
        if kind.as_deref() != Some("shardlab:connect") || version != Some(f64::from(VERSION)) {
            return;
        }
        if let Ok(port) = event.ports().get(0).dyn_into::<web_sys::MessagePort>() {
            connect(port, dispatch.clone());
        }
    })
}

/// Whether the message came from the window that frames this page.
fn from_parent(event: &web_sys::MessageEvent) -> bool {
    let window = gloo::utils::window();
    let parent = window.parent().ok().flatten();
    match (event.source(), parent) {
        (Some(source), Some(parent)) => {
            let parent: &JsValue = parent.as_ref();
            js_sys::Object::is(source.as_ref(), parent)
                && !js_sys::Object::is(parent, window.as_ref())
        }
        _ => false,
    }
}

fn field(value: &JsValue, name: &str) -> Option<JsValue> {
    if !value.is_object() {
        return None;
    }
    js_sys::Reflect::get(value, &JsValue::from_str(name))
        .ok()
        .filter(|v| !v.is_undefined())
}

/// An object of name/value pairs, for a message.
fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (name, value) in pairs {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(name), value);
    }
    o.into()
}

/// Takes the host's port: answers `ready`, then serves its requests. A new handshake
/// replaces the last host.
fn connect(port: web_sys::MessagePort, dispatch: Callback<Action>) {
    let reply_port = port.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let answer = request(&e.data(), &dispatch);
            let _ = reply_port.post_message(&answer);
        });
    port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let _ = port.post_message(&object(&[
        ("type", "shardlab:ready".into()),
        ("version", VERSION.into()),
    ]));
    let told = LATEST.with(|l| {
        l.borrow().as_ref().map_or((0, 0, 0), |s| {
            (
                s.view.position.position,
                s.view.position.length,
                s.console.len(),
            )
        })
    });
    LINK.with(|l| {
        *l.borrow_mut() = Some(Link {
            port,
            _on_message: on_message,
            told,
            watching: None,
            height: -1,
        })
    });
}

/// One request: its answer, `{id, result}` or `{id, error}`.
fn request(data: &JsValue, dispatch: &Callback<Action>) -> JsValue {
    let id = field(data, "id")
        .filter(|id| id.as_f64().is_some() || id.as_string().is_some_and(|s| s.len() <= 64))
        .unwrap_or(JsValue::NULL);
    let method = field(data, "method").and_then(|m| m.as_string());
    let params = field(data, "params").unwrap_or(JsValue::NULL);
    match answer(method.as_deref(), &params, dispatch) {
        Ok(result) => object(&[("id", id), ("result", result)]),
        Err(why) => object(&[
            ("id", id),
            (
                "error",
                object(&[("codeName", "BadValue".into()), ("errmsg", why.into())]),
            ),
        ]),
    }
}

fn answer(
    method: Option<&str>,
    params: &JsValue,
    dispatch: &Callback<Action>,
) -> Result<JsValue, String> {
    match method {
        Some("run") => {
            let script = field(params, "script")
                .and_then(|s| s.as_string())
                .ok_or("run needs params.script, a string of mongosh")?;
            if script.len() > MAX_SOURCE_BYTES {
                return Err(format!("the script is over {MAX_SOURCE_BYTES} bytes"));
            }
            dispatch.emit(Action::Command(script));
            Ok(JsValue::TRUE)
        }
        Some("play") => Ok(emit(dispatch, Action::Play)),
        Some("pause") => Ok(emit(dispatch, Action::Pause)),
        Some("step") => Ok(emit(dispatch, Action::Step)),
        Some("state") => Ok(LATEST
            .with(|l| l.borrow().as_ref().map(|s| state(s)))
            .unwrap_or(JsValue::NULL)),
        Some("watchHeight") => {
            watch_height();
            Ok(JsValue::TRUE)
        }
        Some(other) => Err(format!(
            "no method '{}': run, play, pause, step, state, watchHeight",
            other.chars().take(40).collect::<String>()
        )),
        None => Err("a request needs a method".to_string()),
    }
}

fn emit(dispatch: &Callback<Action>, action: Action) -> JsValue {
    dispatch.emit(action);
    JsValue::TRUE
}

/// What `state` answers.
fn state(s: &Playground) -> JsValue {
    object(&[
        ("position", (s.view.position.position as f64).into()),
        ("length", (s.view.position.length as f64).into()),
        ("ns", s.view.settings.ns.clone().into()),
        ("documents", (s.view.count as f64).into()),
        ("playing", s.playing.into()),
    ])
}

/// The page drew `s`: the host hears of a moved cursor and new console lines.
pub fn notify(s: &std::rc::Rc<Playground>) {
    LATEST.with(|l| *l.borrow_mut() = Some(s.clone()));
    LINK.with(|l| {
        let mut l = l.borrow_mut();
        let Some(link) = l.as_mut() else {
            return;
        };
        let (position, length) = (s.view.position.position, s.view.position.length);
        let (old_position, old_length, lines) = link.told;
        if (position, length) != (old_position, old_length) {
            let _ = link.port.post_message(&object(&[
                ("type", "step".into()),
                ("position", (position as f64).into()),
                ("length", (length as f64).into()),
            ]));
        }
        if s.console.len() > lines {
            let new = js_sys::Array::new();
            for line in &s.console[lines..] {
                new.push(&JsValue::from_str(&line.text));
            }
            let _ = link.port.post_message(&object(&[
                ("type", "console".into()),
                ("lines", new.into()),
            ]));
        }
        link.told = (position, length, s.console.len());
    });
}

/// Reports the content's height to the host whenever it changes.
fn watch_height() {
    let report = Closure::<dyn FnMut()>::new(|| {
        let height = gloo::utils::document()
            .document_element()
            .map_or(0, |e| e.scroll_height());
        LINK.with(|l| {
            if let Some(link) = l.borrow_mut().as_mut() {
                if link.height != height {
                    link.height = height;
                    let _ = link.port.post_message(&object(&[
                        ("type", "height".into()),
                        ("height", height.into()),
                    ]));
                }
            }
        });
    });
    let Ok(observer) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) else {
        return;
    };
    observer.observe(&gloo::utils::body());
    LINK.with(|l| {
        if let Some(link) = l.borrow_mut().as_mut() {
            link.watching = Some((observer, report));
        }
    });
}
