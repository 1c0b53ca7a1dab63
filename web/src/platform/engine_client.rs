//! The page's one client of the engine (ARCHITECTURE.md, "One engine, many views").
//!
//! The engine runs in a dedicated module Web Worker (its script's address is in the page's
//! `<meta name="shardlab-engine">`, written by the build). The page's `<head>` starts it
//! before the page's own wasm downloads, and the first request adopts it, with what a first
//! visit's early console asked it (see [`super::early`]); a worker started later (after a
//! trap) is started on the next request. Requests are the protocol's typed [`Request`]s; they cross with
//! `serde-wasm-bindgen`, and each answer is handed to the callback its request gave.
//!
//! - **A trap in the engine ends the worker, not the page.** The worker's error event fails
//!   every request in flight with [`ENGINE_RESTARTED`], the worker is dropped, and the next
//!   request starts a new one; [`generation`] tells a view that its sessions are gone, so
//!   it opens them again from what it keeps.
//! - **No worker** (a Content Security Policy that forbids them): the same engine module is
//!   imported into the page and answers through the same messages, a turn of the event loop
//!   later, and [`in_page`] says so.
//! - A message from the engine that does not decode is reported, not trusted.

use super::early::{self, Claim, Early, Heard};
use crate::i18n::{Words, K};
use serde::Serialize;
use shardlab_protocol::{
    Call, EngineError, EventMessage, FromEngine, Outcome, Reply, Request, Response,
    PROTOCOL_VERSION,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The name a worker is started with when the page's address arms the engine's test-only
/// trap (`?selftest=trap`); `web/engine/js/worker.js` reads it.
const SELFTEST_TRAP_NAME: &str = "shardlab-engine selftest=trap";

/// The code name of the error a request gets when the engine stopped under it (the
/// JavaScript module's name for the same failure).
pub const ENGINE_RESTARTED: &str = "EngineRestarted";

/// The code name of the error a request gets when the engine could not load at all (the
/// module's name too).
pub const ENGINE_LOAD_FAILED: &str = "EngineLoadFailed";

/// What a request's answer is handed to.
type Done = Box<dyn FnOnce(Result<Reply, EngineError>)>;

/// What an event is handed to.
type Listener = Rc<dyn Fn(&EventMessage)>;

/// A session the page named, in this generation of the engine.
enum Handle {
    /// Its `open` is not answered yet: the requests about it that wait (their answers'
    /// callbacks are pending under their ids).
    Opening(Vec<(u64, Call)>),
    /// Open, under the engine's handle.
    Open(String),
}

/// Where requests go.
enum Host {
    /// Not started yet (or stopped): the next request starts a worker.
    Idle,
    /// A worker, with the listeners that must live as long as it does.
    Worker {
        worker: web_sys::Worker,
        _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
        _on_error: Closure<dyn FnMut(web_sys::Event)>,
    },
    /// The engine in the page, loading (requests wait) or ready.
    InPage(Option<JsValue>, Vec<JsValue>),
    /// A worker could not load (the network is away): the messages it never answered, and
    /// those sent since, wait for the next attempt.
    Waiting(Vec<JsValue>),
}

/// What is told about the engine's loading: a sentence of the catalogue while it waits
/// for the network, `None` once it is up.
type StatusListener = Rc<dyn Fn(Option<K>)>;

/// Told why, when the worker dies with no request in flight.
type StopListener = Rc<dyn Fn(&str)>;

struct Client {
    host: Host,
    /// The host a dead worker left: its listeners may still be running (the error event
    /// that stopped it) or have messages queued, so they are kept, detached, until the
    /// next worker replaces them.
    retired: Option<Host>,
    next_id: u64,
    pending: Vec<(u64, Done)>,
    generation: u64,
    listeners: Vec<Listener>,
    notices: Vec<String>,
    /// Whether the worker has answered anything (so it loaded).
    heard: bool,
    /// The messages sent to a worker that has not answered yet, to send again if it
    /// turns out it could not load.
    unheard: Vec<JsValue>,
    /// Attempts to load the engine since it last answered.
    retries: u32,
    status: Vec<StatusListener>,
    /// Why the last worker stopped, as its error event said (`None` before any stop).
    stopped_why: Option<String>,
    /// Told when a worker dies with no request in flight (see [`on_idle_stop`]).
    idle_stop: Vec<StopListener>,
    /// The engine's handle of each session the page named (see [`request`]).
    handles: BTreeMap<String, Handle>,
    /// Requests forwarded as they came (see [`forward`]): their answers are handed on
    /// undecoded.
    raw: Vec<(u64, RawDone)>,
    /// What a first visit's early console asked the worker the page adopted (see
    /// [`Early`]).
    early: Early,
}

/// What a forwarded request's answer, as the engine wrote it, is handed to.
type RawDone = Box<dyn FnOnce(JsValue)>;

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client {
        host: Host::Idle,
        retired: None,
        next_id: 1,
        pending: Vec::new(),
        generation: 0,
        listeners: Vec::new(),
        notices: Vec::new(),
        heard: false,
        unheard: Vec::new(),
        retries: 0,
        status: Vec::new(),
        stopped_why: None,
        idle_stop: Vec::new(),
        handles: BTreeMap::new(),
        raw: Vec::new(),
        early: Early::default(),
    });
}

/// How many times the engine has been started; a view that opened sessions under an
/// earlier generation must open them again.
pub fn generation() -> u64 {
    CLIENT.with(|c| c.borrow().generation)
}

/// Whether the engine runs in the page (no worker could be started).
pub fn in_page() -> bool {
    CLIENT.with(|c| matches!(c.borrow().host, Host::InPage(..)))
}

/// What the client has had to say (a restart, a message that did not decode), oldest first.
pub fn notices() -> Vec<String> {
    CLIENT.with(|c| c.borrow().notices.clone())
}

/// Why the engine last stopped, in the words of the error that stopped it ("cancelled"
/// after a Cancel; "no reason given" if it gave none or never stopped).
pub fn stopped_why() -> String {
    CLIENT
        .with(|c| c.borrow().stopped_why.clone())
        .unwrap_or_else(|| NO_REASON.to_string())
}

/// What a stop whose error said nothing is put down to.
const NO_REASON: &str = "no reason given";

/// Calls `listener` with why, when the worker dies while no request is in flight (so no
/// answer can say it): the sessions it held are gone, and whoever owns one opens it again.
pub fn on_idle_stop(listener: impl Fn(&str) + 'static) {
    CLIENT.with(|c| c.borrow_mut().idle_stop.push(Rc::new(listener)));
}

/// Calls `listener` with every event the engine pushes.
pub fn listen(listener: impl Fn(&EventMessage) + 'static) {
    CLIENT.with(|c| c.borrow_mut().listeners.push(Rc::new(listener)));
}

/// A call that names other sessions than its own names them as the page does: a workload
/// batch that reads another session's documents, and the Compare tab's step, whose
/// columns are sessions. The engine's handle of each goes in its place (a name the engine
/// has not opened stays, and the engine answers `NoSuchSession` for it).
fn name_sessions(mut call: Call) -> Call {
    let handle_of = |name: &mut String| {
        let handle = CLIENT.with(|c| match c.borrow().handles.get(name.as_str()) {
            Some(Handle::Open(h)) => Some(h.clone()),
            _ => None,
        });
        if let Some(h) = handle {
            *name = h;
        }
    };
    match &mut call {
        Call::Run(run) => {
            if let Some(sample) = run.workload.as_mut().and_then(|w| w.sample.as_mut()) {
                handle_of(&mut sample.session);
            }
        }
        Call::CompareStep { columns } => {
            for column in columns {
                handle_of(&mut column.session);
                if let Some(sample) = column.run.as_mut().and_then(|w| w.sample.as_mut()) {
                    handle_of(&mut sample.session);
                }
            }
        }
        _ => {}
    }
    call
}

/// The Compare tab's step answers each column under the page's name for its session, in
/// the request's order (`names`).
fn name_columns(names: Vec<String>, done: Done) -> Done {
    Box::new(move |mut answer: Result<Reply, EngineError>| {
        if let Ok(Reply::CompareStep { columns }) = &mut answer {
            for (column, name) in columns.iter_mut().zip(names) {
                column.session = name;
            }
        }
        done(answer)
    })
}

/// Sends `call` about `session`; `done` gets the answer.
///
/// `session` is the page's own name for a session. The engine gives each session its
/// handle when it opens it; the client keeps which handle each name has in this
/// generation of the engine, holds a name's requests until its `open` is answered, and
/// names the handle in every request about it. A name with no session open is answered
/// `NoSuchSession`, as the engine would.
pub fn request(session: &str, call: Call, done: impl FnOnce(Result<Reply, EngineError>) + 'static) {
    let names = match &call {
        Call::CompareStep { columns } => Some(columns.iter().map(|c| c.session.clone()).collect()),
        _ => None,
    };
    let call = name_sessions(call);
    let done: Done = if let Some(names) = names {
        name_columns(names, Box::new(done))
    } else if matches!(call, Call::Open(_)) {
        let name = session.to_string();
        Box::new(move |answer: Result<Reply, EngineError>| {
            match &answer {
                Ok(Reply::Open(opened)) => bind(&name, &opened.session),
                _ => unbind(&name),
            }
            done(answer)
        })
    } else {
        Box::new(done)
    };
    let id = pending(done);
    let handle = if !call.needs_session() {
        if matches!(call, Call::Open(_)) {
            CLIENT.with(|c| {
                c.borrow_mut()
                    .handles
                    .insert(session.to_string(), Handle::Opening(Vec::new()))
            });
        }
        None
    } else {
        let known = CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            let closing = matches!(call, Call::Close);
            match c.handles.get_mut(session) {
                Some(Handle::Open(h)) => {
                    let h = h.clone();
                    if closing {
                        c.handles.remove(session);
                    }
                    Ok(Some(h))
                }
                Some(Handle::Opening(waiting)) => {
                    waiting.push((id, call.clone()));
                    Ok(None)
                }
                None => Err(()),
            }
        });
        match known {
            Ok(Some(h)) => Some(h),
            // Sent when the engine answers the `open`.
            Ok(None) => return,
            Err(()) => {
                let name = session.to_string();
                wasm_bindgen_futures::spawn_local(async move {
                    answer(id, Err(EngineError::no_such_session(&name)));
                });
                return;
            }
        }
    };
    send(id, handle, call);
}

/// Forwards a request of another's (an embedding page's) about the session the page calls
/// `session`, as it came: the engine decodes and checks it, and `done` gets its answer as
/// the engine wrote it, with this client's `id` (the caller puts its own back). Nothing of
/// it is decoded here, so the page compiles no reader of requests and no writer of answers.
pub fn forward(
    session: &str,
    method: &str,
    params: Option<JsValue>,
    done: impl FnOnce(JsValue) + 'static,
) {
    let handle = CLIENT.with(|c| match c.borrow().handles.get(session) {
        Some(Handle::Open(h)) => Some(h.clone()),
        _ => None,
    });
    let Some(handle) = handle else {
        let error = EngineError::no_such_session(session);
        return done(error_answer(0, method, &error));
    };
    let id = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let id = c.next_id;
        c.next_id += 1;
        c.raw.push((id, Box::new(done)));
        id
    });
    let message = js_sys::Object::new();
    let set = |name: &str, value: &JsValue| {
        let _ = js_sys::Reflect::set(&message, &JsValue::from_str(name), value);
    };
    set("v", &PROTOCOL_VERSION.into());
    set("id", &(id as f64).into());
    set("session", &handle.as_str().into());
    set("method", &method.into());
    if let Some(params) = params {
        set("params", &params);
    }
    if let Err(e) = post(message.into()) {
        raw_answer(id, error_answer(id, method, &failure(e)));
    }
}

/// An answer carrying `error`, as the engine writes one.
pub fn error_answer(id: u64, method: &str, error: &EngineError) -> JsValue {
    let o = js_sys::Object::new();
    let set = |name: &str, value: &JsValue| {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(name), value);
    };
    let e = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&e, &"code".into(), &error.code.into());
    let _ = js_sys::Reflect::set(&e, &"codeName".into(), &error.code_name.as_str().into());
    let _ = js_sys::Reflect::set(&e, &"message".into(), &error.message.as_str().into());
    set("v", &PROTOCOL_VERSION.into());
    set("id", &(id as f64).into());
    if !method.is_empty() {
        set("method", &method.into());
    }
    set("error", &e);
    o.into()
}

/// Hands a forwarded request's answer on, if it is one.
fn raw_answer(id: u64, data: JsValue) -> bool {
    let done = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let at = c.raw.iter().position(|(i, _)| *i == id)?;
        Some(c.raw.remove(at).1)
    });
    match done {
        Some(done) => {
            done(data);
            true
        }
        None => false,
    }
}

/// Sends one request under the engine's handle, unless the early console made it already
/// (see [`Early`]): then the early one's answer is this one's.
fn send(id: u64, session: Option<String>, call: Call) {
    let started = CLIENT.with(|c| !matches!(c.borrow().host, Host::Idle));
    if !started {
        if let Err(e) = start() {
            return answer(id, Err(failure(e)));
        }
    }
    let claim = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let claim = c.early.claim(id, session.as_deref(), &call, |early, text| {
            same_request(early, &call, text)
        });
        (claim, c.early.take_close())
    });
    match claim {
        (Claim::Send, close) => {
            if let Some(handle) = close {
                close_early(handle);
            }
        }
        (Claim::Answered(data), _) => {
            wasm_bindgen_futures::spawn_local(async move { hand_on(data, id) });
            return;
        }
        (Claim::Awaited, _) => return,
    }
    let request = Request {
        v: PROTOCOL_VERSION,
        id,
        session,
        call,
    };
    let message = match request.serialize(&serializer()) {
        Ok(m) => m,
        Err(e) => return answer(id, Err(failure(format!("a request did not encode: {e}")))),
    };
    if let Err(e) = post(message) {
        answer(id, Err(failure(e)));
    }
}

/// How requests cross: as JSON would, with bytes (an import's slices) as a `Uint8Array`,
/// one block, not a list of numbers.
fn serializer() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false)
}

/// Whether the opening `call`, numbered `early`, is the early console's opening, whose
/// JSON text (as the build wrote it) is `text`.
fn same_request(early: u64, call: &Call, text: &str) -> bool {
    let request = Request {
        v: PROTOCOL_VERSION,
        id: early,
        session: None,
        call: call.clone(),
    };
    request
        .serialize(&serializer())
        .ok()
        .and_then(|m| js_sys::JSON::stringify(&m).ok())
        .and_then(|s| s.as_string())
        .is_some_and(|s| s == text)
}

/// The next request's number, its answer to be handed to `done`.
fn pending(done: Done) -> u64 {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let id = c.next_id;
        c.next_id += 1;
        c.pending.push((id, done));
        id
    })
}

/// Closes the early console's session, which the page did not take.
fn close_early(handle: String) {
    send(pending(Box::new(|_| ())), Some(handle), Call::Close);
}

/// Hands on an early request's answer, `data`, as the answer to the page's request `id`,
/// then the early session's events if the page has now taken all of it.
fn hand_on(data: JsValue, id: u64) {
    let _ = js_sys::Reflect::set(&data, &JsValue::from_str("id"), &(id as f64).into());
    receive(data);
    early_events();
}

/// The engine's answer to an early request (see [`Early`]): handed on if the page made
/// it too, else kept until it does.
fn early_answer(id: u64, data: JsValue) {
    heard();
    let heard = CLIENT.with(|c| c.borrow_mut().early.heard(id, &data));
    match heard {
        Heard::Page(page) => hand_on(data, page),
        Heard::Close(handle) => close_early(handle),
        Heard::Kept => {}
    }
}

/// The events about the early session, handed on once the page has taken all of it.
fn early_events() {
    let events = CLIENT.with(|c| c.borrow_mut().early.settled_events());
    for data in events {
        receive(data);
    }
}

/// The engine opened the session the page calls `name` as `handle`: the requests that
/// waited for it go now.
fn bind(name: &str, handle: &str) {
    let waiting = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match c
            .handles
            .insert(name.to_string(), Handle::Open(handle.to_string()))
        {
            Some(Handle::Opening(waiting)) => waiting,
            _ => Vec::new(),
        }
    });
    for (id, call) in waiting {
        if matches!(call, Call::Close) {
            CLIENT.with(|c| c.borrow_mut().handles.remove(name));
        }
        send(id, Some(handle.to_string()), call);
    }
}

/// The session the page calls `name` did not open: the requests that waited for it are
/// answered `NoSuchSession`.
fn unbind(name: &str) {
    let waiting = CLIENT.with(|c| match c.borrow_mut().handles.remove(name) {
        Some(Handle::Opening(waiting)) => waiting,
        _ => Vec::new(),
    });
    for (id, _) in waiting {
        answer(id, Err(EngineError::no_such_session(name)));
    }
}

/// The page's name for the session the engine calls `handle`.
fn name_of(handle: &str) -> Option<String> {
    CLIENT.with(|c| {
        c.borrow()
            .handles
            .iter()
            .find(|(_, h)| matches!(h, Handle::Open(x) if x == handle))
            .map(|(name, _)| name.clone())
    })
}

/// An error of the client's own (not the engine's answer).
fn failure(message: String) -> EngineError {
    EngineError {
        code: 1,
        code_name: "InternalError".into(),
        message,
    }
}

/// Hands `message` to the engine, starting it first if need be.
fn post(message: JsValue) -> Result<(), String> {
    let started = CLIENT.with(|c| !matches!(c.borrow().host, Host::Idle));
    if !started {
        start()?;
    }
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let keep = !c.heard && matches!(c.host, Host::Worker { .. });
        if keep {
            c.unheard.push(message.clone());
        }
        match &mut c.host {
            Host::Worker { worker, .. } => worker
                .post_message(&message)
                .map_err(|e| format!("the engine refused a message: {e:?}")),
            Host::Waiting(queue) => {
                queue.push(message);
                Ok(())
            }
            Host::InPage(Some(engine), _) => {
                let engine = engine.clone();
                drop(c);
                handle_in_page(engine, message);
                Ok(())
            }
            Host::InPage(None, waiting) => {
                waiting.push(message);
                Ok(())
            }
            Host::Idle => Err("the engine could not be started".to_string()),
        }
    })
}

/// The worker script's address, from the page's `<meta name="shardlab-engine">`.
fn address() -> Option<String> {
    gloo::utils::document()
        .query_selector("meta[name=\"shardlab-engine\"]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
}

/// Starts a worker, or the engine in the page where workers are forbidden: a new
/// generation of the engine.
fn start() -> Result<(), String> {
    CLIENT.with(|c| c.borrow_mut().generation += 1);
    launch()
}

/// Starts the worker (see [`start`]).
fn launch() -> Result<(), String> {
    let url = address()
        .ok_or("this page names no engine (its build wrote no <meta name=\"shardlab-engine\">)")?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    // The end-to-end tests' trap, armed in the engine only when the page's address asks.
    // It travels as the worker's name, not in its address: the offline service worker
    // answers the script from its cache, whose address has no query.
    if crate::share::PageOptions::parse(
        &gloo::utils::window()
            .location()
            .search()
            .unwrap_or_default(),
    )
    .selftest
    .as_deref()
        == Some("trap")
    {
        options.set_name(SELFTEST_TRAP_NAME);
    }
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.heard = false;
        c.unheard.clear();
    });
    let (started, early) = match adopt() {
        Some((worker, early, asked)) => {
            CLIENT.with(|c| c.borrow_mut().early = asked);
            (Ok(worker), early)
        }
        None => (
            web_sys::Worker::new_with_options(&url, &options),
            Vec::new(),
        ),
    };
    match started {
        Ok(worker) => {
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
                move |e: web_sys::MessageEvent| receive(e.data()),
            );
            let on_error =
                Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| stopped(&e));
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            CLIENT.with(|c| {
                c.borrow_mut().host = Host::Worker {
                    worker,
                    _on_message: on_message,
                    _on_error: on_error,
                }
            });
            // What the early worker said before the page listened, a turn later, as if it
            // had arrived now.
            if !early.is_empty() {
                wasm_bindgen_futures::spawn_local(async move {
                    for data in early {
                        receive(data);
                    }
                });
            }
            Ok(())
        }
        Err(e) => {
            note(format!(
                "The engine runs in the page: this page may not start workers ({}).",
                e.as_string().unwrap_or_else(|| format!("{e:?}"))
            ));
            start_in_page(&url)
        }
    }
}

/// The worker the page's `<head>` started while this wasm downloaded (the build's
/// `window.shardlabEngine`: the worker, the messages it sent so far, an error), taken once.
/// One that failed to load is dropped, and the page starts its own as it would have.
fn adopt() -> Option<(web_sys::Worker, Vec<JsValue>, Early)> {
    let window = gloo::utils::window();
    let key = JsValue::from_str("shardlabEngine");
    let early = js_sys::Reflect::get(&window, &key).ok()?;
    if early.is_undefined() || early.is_null() {
        return None;
    }
    let _ = js_sys::Reflect::set(&window, &key, &JsValue::NULL);
    let field = |name: &str| js_sys::Reflect::get(&early, &JsValue::from_str(name)).ok();
    let worker: web_sys::Worker = field("worker")?.dyn_into().ok()?;
    worker.set_onmessage(None);
    worker.set_onerror(None);
    if field("error").is_some_and(|e| !e.is_null() && !e.is_undefined()) {
        worker.terminate();
        return None;
    }
    let messages = field("messages")
        .and_then(|m| m.dyn_into::<js_sys::Array>().ok())
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    let early = field("early").map(|e| Early::read(&e)).unwrap_or_default();
    Some((worker, messages, early))
}

/// The worker died (a trap in the engine): every request in flight fails, and the next
/// request starts a new worker.
fn stopped(event: &web_sys::Event) {
    let why = event
        .dyn_ref::<web_sys::ErrorEvent>()
        .map(|e| e.message())
        .unwrap_or_default();
    if !CLIENT.with(|c| c.borrow().heard) {
        return wait_for_network();
    }
    let why = if why.is_empty() {
        NO_REASON.to_string()
    } else {
        why
    };
    note(Words::ENGLISH.tf(K::EngineClientTheEngineStoppedWhyAnd, &[("why", &why)]));
    let idle = CLIENT.with(|c| {
        let c = c.borrow();
        c.pending.is_empty() && c.raw.is_empty()
    });
    stop_because(&why, &format!("the engine stopped: {why}"));
    if idle {
        let listeners = CLIENT.with(|c| c.borrow().idle_stop.clone());
        for l in listeners {
            l(&why);
        }
    }
}

/// A worker that never answered could not load (the network is away): its messages wait,
/// the page is told, and it is started again when the browser is back online or after a
/// growing pause. Nothing is lost: the messages are sent again to the new worker.
fn wait_for_network() {
    let attempt = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let queue = std::mem::take(&mut c.unheard);
        retire(&mut c, Host::Waiting(queue));
        c.retries += 1;
        c.retries - 1
    });
    tell(Some(K::EngineClientTheEngineCouldNotLoad));
    wasm_bindgen_futures::spawn_local(async move {
        crate::network::back(attempt).await;
        let queue = CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            match std::mem::replace(&mut c.host, Host::Idle) {
                Host::Waiting(queue) => queue,
                other => {
                    c.host = other;
                    Vec::new()
                }
            }
        });
        if let Err(e) = launch() {
            note(Words::ENGLISH.tf(K::EngineClientTheEngineCouldNotStart, &[("e", &e)]));
        }
        for message in queue {
            if let Err(e) = post(message) {
                note(e);
            }
        }
    });
}

/// Tells the page about the engine's loading (see [`on_status`]).
fn tell(status: Option<K>) {
    let listeners = CLIENT.with(|c| c.borrow().status.clone());
    for l in listeners {
        l(status);
    }
}

/// Calls `listener` with a sentence of the catalogue while the engine waits for the network to load, and
/// with `None` once it is up again.
pub fn on_status(listener: impl Fn(Option<K>) + 'static) {
    CLIENT.with(|c| c.borrow_mut().status.push(Rc::new(listener)));
}

/// The worker answered: it loaded. If it had to wait for the network, the page is told
/// it is up.
fn heard() {
    let waited = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.heard {
            return false;
        }
        c.heard = true;
        c.unheard.clear();
        std::mem::replace(&mut c.retries, 0) > 0
    });
    if waited {
        tell(None);
    }
}

/// Cancel: stops the worker under whatever it is doing, as if it had died, so that every
/// request in flight fails with [`ENGINE_RESTARTED`] and the next request starts a new
/// worker. Says whether there was a worker to stop (the engine in the page cannot be
/// stopped: it answers between the page's own tasks).
pub fn cancel() -> bool {
    let worker = CLIENT.with(|c| matches!(c.borrow().host, Host::Worker { .. }));
    if worker {
        stop_because("cancelled", "cancelled");
    }
    worker
}

/// Stops the worker the client holds, if any, and puts `next` in its place. The old host
/// is kept, detached, until the next one replaces it (its listeners may still be running).
fn retire(c: &mut Client, next: Host) {
    if let Host::Worker { worker, .. } = &c.host {
        worker.set_onmessage(None);
        worker.set_onerror(None);
        worker.terminate();
    }
    c.retired = Some(std::mem::replace(&mut c.host, next));
}

/// Stops the worker because of `why`: every request in flight fails with `message`.
fn stop_because(why: &str, message: &str) {
    let (pending, raw) = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.stopped_why = Some(why.to_string());
        c.handles.clear();
        c.early = Early::default();
        retire(&mut c, Host::Idle);
        (std::mem::take(&mut c.pending), std::mem::take(&mut c.raw))
    });
    let stopped = EngineError {
        code: 1,
        code_name: ENGINE_RESTARTED.into(),
        message: message.to_string(),
    };
    for (id, done) in raw {
        done(error_answer(id, "", &stopped));
    }
    for (_, done) in pending {
        done(Err(EngineError {
            code: 1,
            code_name: ENGINE_RESTARTED.into(),
            message: message.to_string(),
        }));
    }
}

/// Records a notice and logs it.
fn note(text: String) {
    gloo::console::warn!(text.clone());
    CLIENT.with(|c| c.borrow_mut().notices.push(text));
}

/// One message from the engine: an answer to hand to its request (it has an `id`), or an
/// event. Told apart by that field rather than decoded as an untagged [`FromEngine`],
/// which would buffer every answer before decoding it (and compile its decoding twice).
fn receive(data: JsValue) {
    let is_answer = js_sys::Reflect::has(&data, &JsValue::from_str("id")).unwrap_or(false);
    if is_answer {
        let id = js_sys::Reflect::get(&data, &JsValue::from_str("id"))
            .ok()
            .and_then(|id| id.as_f64());
        if let Some(id) = id.filter(|id| early::is_early(*id as u64)) {
            return early_answer(id as u64, data);
        }
        if let Some(id) = id {
            if raw_answer(id as u64, data.clone()) {
                heard();
                return;
            }
        }
    }
    let raw = data.clone();
    let decoded = if is_answer {
        serde_wasm_bindgen::from_value::<Response>(data).map(FromEngine::Answer)
    } else {
        serde_wasm_bindgen::from_value::<EventMessage>(data).map(FromEngine::Event)
    };
    match decoded {
        Ok(FromEngine::Answer(response)) => {
            heard();
            answer(
                response.id,
                match response.outcome {
                    Outcome::Result(reply) => Ok(reply),
                    Outcome::Error(_, e) => Err(e),
                },
            )
        }
        Ok(FromEngine::Event(mut event)) => {
            // Told under the page's name for the session; the early session's wait until
            // the page has taken it (see [`Early::stash`]).
            match name_of(&event.session) {
                Some(name) => event.session = name,
                None => {
                    if CLIENT.with(|c| c.borrow_mut().early.stash(&event.session, &raw)) {
                        return;
                    }
                }
            }
            let listeners = CLIENT.with(|c| c.borrow().listeners.clone());
            for l in listeners {
                l(&event);
            }
        }
        Err(e) => note(format!("A message from the engine did not decode: {e}")),
    }
}

/// Hands `result` to the request numbered `id`.
fn answer(id: u64, result: Result<Reply, EngineError>) {
    let done = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let at = c.pending.iter().position(|(i, _)| *i == id)?;
        Some(c.pending.remove(at).1)
    });
    if let Some(done) = done {
        done(result);
    }
}

/// Loads the engine module into the page, beside the worker script, and serves the
/// requests that waited.
fn start_in_page(worker_url: &str) -> Result<(), String> {
    CLIENT.with(|c| c.borrow_mut().host = Host::InPage(None, Vec::new()));
    // A dynamic `import()` needs JavaScript syntax: one small function, made here.
    let load = js_sys::Function::new_with_args(
        "u",
        "return import(new URL('engine.js', new URL(u, document.baseURI)).href)\
         .then(function (m) { return m.default()\
         .then(function () { return m.loadRest().catch(function () {}); })\
         .then(function () { return new m.WorkerEngine(); }); })",
    );
    let promise = load
        .call1(&JsValue::NULL, &JsValue::from_str(worker_url))
        .map_err(|e| format!("the engine could not load: {e:?}"))?
        .dyn_into::<js_sys::Promise>()
        .map_err(|_| "the engine could not load".to_string())?;
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(engine) => {
                let waiting = CLIENT.with(|c| {
                    let mut c = c.borrow_mut();
                    let waiting = match &mut c.host {
                        Host::InPage(_, w) => std::mem::take(w),
                        _ => Vec::new(),
                    };
                    c.host = Host::InPage(Some(engine.clone()), Vec::new());
                    waiting
                });
                for m in waiting {
                    handle_in_page(engine.clone(), m);
                }
            }
            Err(e) => {
                note(format!("The engine could not load: {e:?}"));
                let (pending, raw) = CLIENT.with(|c| {
                    let mut c = c.borrow_mut();
                    c.host = Host::Idle;
                    c.handles.clear();
                    (std::mem::take(&mut c.pending), std::mem::take(&mut c.raw))
                });
                let failed = EngineError {
                    code: 1,
                    code_name: ENGINE_LOAD_FAILED.into(),
                    message: format!("the engine could not load: {e:?}"),
                };
                for (id, done) in raw {
                    done(error_answer(id, "", &failed));
                }
                for (_, done) in pending {
                    done(Err(EngineError {
                        code: 1,
                        code_name: ENGINE_LOAD_FAILED.into(),
                        message: format!("the engine could not load: {e:?}"),
                    }));
                }
            }
        }
    });
    Ok(())
}

/// Hands one message to the engine in the page, a turn of the event loop later, so that
/// answers come as they would from a worker.
fn handle_in_page(engine: JsValue, message: JsValue) {
    wasm_bindgen_futures::spawn_local(async move {
        let handle = js_sys::Reflect::get(&engine, &JsValue::from_str("handle"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let Some(handle) = handle else {
            return note("The engine in the page has no handle method.".into());
        };
        match handle.call1(&engine, &message) {
            Ok(out) => {
                for m in js_sys::Array::from(&out).iter() {
                    receive(m);
                }
            }
            Err(e) => note(format!("The engine in the page failed: {e:?}")),
        }
    });
}
