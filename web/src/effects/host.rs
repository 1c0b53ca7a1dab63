//! The embedded view's host page: a documentation page that frames the playground
//! (`embed=1`) can drive it over `postMessage`, if the address names the page's origin in
//! `origins=` (comma-separated, exact origins; none by default). It speaks the engine's
//! protocol, version 3 (ARCHITECTURE.md, "The engine's API"): the same envelopes, errors
//! and results as the module and the page.
//!
//! 1. **Handshake.** The host posts `{type: "shardlab:connect", version: 3}` to the frame's
//!    window with a `MessagePort` transferred. A message from an origin not named, from a
//!    window other than the frame's parent or without a port is ignored. The frame answers
//!    on the port: `{type: "shardlab:ready", version: 3, session: "page"}`; a handshake of
//!    another version is answered `{v: 3, error: {code: 2, codeName: "BadValue", message:
//!    "unsupported protocol version 1: ..."}}` and nothing more.
//! 2. **Requests** on the port are the engine's: `{v: 3, id, method, params}`, answered
//!    `{v: 3, id, method, result}` or `{v: 3, id, method, error: {code, codeName,
//!    message}}`. The engine's reading methods (`catalog`, `frame`, `inspect`, `explain`,
//!    `analyze`, `target`, `scenario`, `events`, `heat`) are about the frame's one session,
//!    named `page`; `frame` is always whole. The frame's own methods drive the page as a
//!    reader would: `page.run` (`params.source`, typed into the console), `page.play`,
//!    `page.pause`, `page.step`, `page.state` (the cursor, the collection shown and its
//!    documents) and `page.watchHeight` (opt in to `height` events).
//! 3. **Events** on the port: `{v: 3, session: "page", event, data}` with `event` one of
//!    `step` (`{position, length}`) when the cursor moves, `console` (`{lines}`) with what
//!    the console printed since, and `height` (`{height}`, once opted in).
//!
//! Everything in a message is hostile until checked: types, sizes, and the method's name.
//! Nothing a host sends runs as JavaScript: a script is shell text for the engine.

use crate::engine_client;
use crate::state::{Action, Playground};
use shardlab_protocol::{EngineError, MAX_SOURCE_BYTES, PROTOCOL_VERSION};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::Callback;

/// The version of this protocol: the engine's.
pub const VERSION: u32 = PROTOCOL_VERSION;

/// The name the frame's one session goes by on the port.
const SESSION: &str = "page";

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

/// Reads the state the page drew last, from its owner (the driver): what a host's
/// requests are answered from.
type Drawn = Rc<dyn Fn() -> Rc<Playground>>;

/// The frame's link to its host page: the port a handshake handed over (one at a time: a
/// new handshake replaces the last host) and how to read the page's state. Cheap to
/// clone; every clone is the same link.
#[derive(Clone)]
pub struct Host {
    link: Rc<RefCell<Option<Link>>>,
    drawn: Drawn,
}

impl Host {
    /// A link to no host yet, answering from the state `drawn` reads.
    pub fn new(drawn: impl Fn() -> Rc<Playground> + 'static) -> Host {
        Host {
            link: Rc::default(),
            drawn: Rc::new(drawn),
        }
    }
}

/// Listens for a host's handshake from `origins`; the requests it then sends go to
/// `dispatch`. Returns the listener, which lives as long as the page keeps it.
pub fn listen(
    host: &Host,
    origins: Vec<String>,
    dispatch: Callback<Action>,
) -> gloo::events::EventListener {
    let window = gloo::utils::window();
    let host = host.clone();
    gloo::events::EventListener::new(&window, "message", move |event| {
        let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        if !origins.iter().any(|o| *o == event.origin()) || !from_parent(event) {
            return;
        }
        let data = event.data();
        let kind = field(&data, "type").and_then(|t| t.as_string());
        if kind.as_deref() != Some("shardlab:connect") {
            return;
        }
        let Ok(port) = event.ports().get(0).dyn_into::<web_sys::MessagePort>() else {
            return;
        };
        let version = field(&data, "version").and_then(|v| v.as_f64());
        if version != Some(f64::from(VERSION)) {
            // Said once, on the port the host handed over; nothing more is served there.
            let v = version.filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v <= 1e9);
            let error = EngineError::unsupported_version(v.map_or(0, |v| v as u32));
            // An answer to no request: it carries no id.
            let refusal = engine_client::error_answer(0, "", &error);
            if let Some(o) = refusal.dyn_ref::<js_sys::Object>() {
                let _ = js_sys::Reflect::delete_property(o, &JsValue::from_str("id"));
            }
            let _ = port.post_message(&refusal);
            return;
        }
        connect(&host, port, dispatch.clone());
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
fn connect(host: &Host, port: web_sys::MessagePort, dispatch: Callback<Action>) {
    let reply_port = port.clone();
    let asked = host.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let port = reply_port.clone();
            request(&asked, &e.data(), &dispatch, move |answer| {
                let _ = port.post_message(&answer);
            });
        });
    port.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    let _ = port.post_message(&object(&[
        ("type", "shardlab:ready".into()),
        ("version", VERSION.into()),
        ("session", SESSION.into()),
    ]));
    let s = (host.drawn)();
    let told = (
        s.view.position.position,
        s.view.position.length,
        s.console.len(),
    );
    *host.link.borrow_mut() = Some(Link {
        port,
        _on_message: on_message,
        told,
        watching: None,
        height: -1,
    });
}

/// The methods of the engine a host may ask about the frame's session: those that read it.
const READING: &[&str] = &[
    "catalog", "frame", "inspect", "explain", "analyze", "target", "scenario", "events", "heat",
];

/// One request; `reply` gets its answer, `{v, id, method, result}` or `{v, id, method,
/// error}`, at once or when the engine has answered. The engine's methods go to it as they
/// came, about the page's session, and their answers come back as it wrote them: the page
/// decodes neither (it would compile a reader of every request and a writer of every
/// answer).
fn request(
    host: &Host,
    data: &JsValue,
    dispatch: &Callback<Action>,
    reply: impl FnOnce(JsValue) + 'static,
) {
    let id = field(data, "id")
        .and_then(|id| id.as_f64())
        .filter(|id| id.fract() == 0.0 && *id >= 0.0 && *id <= 9e15)
        .map_or(0, |id| id as u64);
    let method = field(data, "method")
        .and_then(|m| m.as_string())
        .filter(|m| m.len() <= 40)
        .unwrap_or_default();
    let refuse = |error: EngineError| engine_client::error_answer(id, &method, &error);
    let v = field(data, "v").and_then(|v| v.as_f64());
    if v != Some(f64::from(VERSION)) {
        let v = v.filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v <= 1e9);
        return reply(refuse(EngineError::unsupported_version(
            v.map_or(0, |v| v as u32),
        )));
    }
    if method.is_empty() {
        return reply(refuse(EngineError::bad_value("a request needs a method")));
    }
    let params = field(data, "params").filter(|p| !p.is_null());
    if let Some(own) = method.strip_prefix("page.") {
        return reply(match page_method(host, own, params.as_ref(), dispatch) {
            Ok(result) => object(&[
                ("v", VERSION.into()),
                ("id", (id as f64).into()),
                ("method", method.as_str().into()),
                ("result", result),
            ]),
            Err(why) => refuse(EngineError::bad_value(why)),
        });
    }
    if !READING.contains(&method.as_str()) {
        return reply(refuse(EngineError::bad_value(format!(
            "no method '{method}' on a frame's port: {}, page.run, page.play, page.pause, page.step, page.state, page.watchHeight",
            READING.join(", ")
        ))));
    }
    // A frame of the page's session is always whole: the page's own frames are drawn from
    // what changed since the last one it asked for.
    let params = if method == "frame" {
        let whole = js_sys::Object::new();
        if let Some(ns) = params.as_ref().and_then(|p| field(p, "ns")) {
            let _ = js_sys::Reflect::set(&whole, &"ns".into(), &ns);
        }
        let _ = js_sys::Reflect::set(&whole, &"whole".into(), &JsValue::TRUE);
        Some(whole.into())
    } else {
        params
    };
    let session = (host.drawn)().session.to_string();
    engine_client::forward(&session, &method, params, move |answer| {
        // The host's own number for it.
        let _ = js_sys::Reflect::set(&answer, &"id".into(), &(id as f64).into());
        reply(answer)
    });
}

/// The frame's own methods, which drive the page as a reader would.
fn page_method(
    host: &Host,
    method: &str,
    params: Option<&JsValue>,
    dispatch: &Callback<Action>,
) -> Result<JsValue, String> {
    match method {
        "run" => {
            let source = params
                .and_then(|p| field(p, "source"))
                .and_then(|s| s.as_string())
                .ok_or("page.run needs params.source, a string of mongosh")?;
            if source.len() > MAX_SOURCE_BYTES {
                return Err(format!("the source is over {MAX_SOURCE_BYTES} bytes"));
            }
            dispatch.emit(Action::Command(source));
            Ok(object(&[]))
        }
        "play" => Ok(emit(dispatch, Action::Play)),
        "pause" => Ok(emit(dispatch, Action::Pause)),
        "step" => Ok(emit(dispatch, Action::Step)),
        "state" => Ok(state(&(host.drawn)())),
        "watchHeight" => {
            watch_height(host);
            Ok(object(&[]))
        }
        other => Err(format!(
            "no method 'page.{}' on a frame's port: page.run, page.play, page.pause, page.step, page.state, page.watchHeight",
            other.chars().take(40).collect::<String>()
        )),
    }
}

fn emit(dispatch: &Callback<Action>, action: Action) -> JsValue {
    dispatch.emit(action);
    object(&[])
}

/// An event about the frame's session, as the engine's events are shaped.
fn event(name: &str, data: &[(&str, JsValue)]) -> JsValue {
    object(&[
        ("v", VERSION.into()),
        ("session", SESSION.into()),
        ("event", name.into()),
        ("data", object(data)),
    ])
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
pub fn notify(host: &Host, s: &Playground) {
    {
        let mut l = host.link.borrow_mut();
        let Some(link) = l.as_mut() else {
            return;
        };
        let (position, length) = (s.view.position.position, s.view.position.length);
        let (old_position, old_length, lines) = link.told;
        if (position, length) != (old_position, old_length) {
            let _ = link.port.post_message(&event(
                "step",
                &[
                    ("position", (position as f64).into()),
                    ("length", (length as f64).into()),
                ],
            ));
        }
        if s.console.len() > lines {
            let new = js_sys::Array::new();
            for line in &s.console[lines..] {
                new.push(&JsValue::from_str(&line.text));
            }
            let _ = link
                .port
                .post_message(&event("console", &[("lines", new.into())]));
        }
        link.told = (position, length, s.console.len());
    }
}

/// Reports the content's height to the host whenever it changes.
fn watch_height(host: &Host) {
    let link = Rc::downgrade(&host.link);
    let report = Closure::<dyn FnMut()>::new(move || {
        let height = gloo::utils::document()
            .document_element()
            .map_or(0, |e| e.scroll_height());
        let Some(shared) = link.upgrade() else { return };
        let mut held = shared.borrow_mut();
        if let Some(link) = held.as_mut() {
            if link.height != height {
                link.height = height;
                let _ = link
                    .port
                    .post_message(&event("height", &[("height", height.into())]));
            }
        }
    });
    let Ok(observer) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) else {
        return;
    };
    observer.observe(&gloo::utils::body());
    if let Some(link) = host.link.borrow_mut().as_mut() {
        link.watching = Some((observer, report));
    }
}
