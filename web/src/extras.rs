//! The page's extras, loaded lazily: the Compare tab, the inspector and the key-space
//! heatmap live in a second wasm module (`web/extras`), so that the first download stays
//! within its budget (ARCHITECTURE.md, "Download budget"). This side is small: an
//! [`ExtrasSlot`] is an empty element that the extras module draws into, given one line of
//! text (`input`), and the module answers with messages (`kind`, `text`) that the slot's
//! owner turns into actions.
//!
//! The module is fetched once, on the first slot drawn (its file name, with its content
//! hash, is in the page's `<meta name="shardlab-extras">`, written by the build). Until it
//! is ready a slot says it is loading; if it cannot load, the slot says why and the rest of
//! the page goes on.

use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Something to run once the module is loaded, or has failed to.
type Waiting = Box<dyn FnOnce(Result<&JsValue, &str>)>;

/// Where the module stands.
enum Module {
    /// Not asked for yet.
    Idle,
    /// Being fetched: what to run once it is there.
    Loading(Vec<Waiting>),
    /// Ready: the module's namespace.
    Ready(JsValue),
    /// It failed to load, and why.
    Failed(String),
}

thread_local! {
    static MODULE: RefCell<Module> = const { RefCell::new(Module::Idle) };
}

/// The module's address, from the page's `<meta name="shardlab-extras">`.
fn address() -> Option<String> {
    gloo::utils::document()
        .query_selector("meta[name=\"shardlab-extras\"]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
}

/// Imports the module at `url` and initialises it: a promise of its namespace.
fn import(url: &str) -> Result<js_sys::Promise, JsValue> {
    // A dynamic `import()` needs JavaScript syntax: one small function, made here rather
    // than shipped as a file the page would fetch on every start.
    let f = js_sys::Function::new_with_args(
        "u",
        "var l = document.createElement('link'); l.rel = 'stylesheet'; \
         l.href = new URL('extras.css', new URL(u, document.baseURI)).href; document.head.appendChild(l); \
         return import(new URL(u, document.baseURI).href).then(function (m) { return m.default().then(function () { return m; }); })",
    );
    f.call1(&JsValue::NULL, &JsValue::from_str(url))?
        .dyn_into::<js_sys::Promise>()
}

/// Settles the module: runs what waited for it.
fn settle(result: Result<JsValue, String>) {
    let waiting = MODULE.with(|m| {
        let next = match &result {
            Ok(ns) => Module::Ready(ns.clone()),
            Err(e) => Module::Failed(e.clone()),
        };
        match std::mem::replace(&mut *m.borrow_mut(), next) {
            Module::Loading(waiting) => waiting,
            _ => Vec::new(),
        }
    });
    for f in waiting {
        match &result {
            Ok(ns) => f(Ok(ns)),
            Err(e) => f(Err(e)),
        }
    }
}

/// Runs `f` with the module once it is loaded (at once if it is), fetching it first if
/// nobody has.
pub fn with_module(f: impl FnOnce(Result<&JsValue, &str>) + 'static) {
    let start = MODULE.with(|m| {
        let mut m = m.borrow_mut();
        match &mut *m {
            Module::Ready(ns) => {
                let ns = ns.clone();
                drop(m);
                f(Ok(&ns));
                false
            }
            Module::Failed(e) => {
                let e = e.clone();
                drop(m);
                f(Err(&e));
                false
            }
            Module::Loading(waiting) => {
                waiting.push(Box::new(f));
                false
            }
            Module::Idle => {
                *m = Module::Loading(vec![Box::new(f)]);
                true
            }
        }
    });
    if !start {
        return;
    }
    let Some(url) = address() else {
        settle(Err("this build has no extras module".to_string()));
        return;
    };
    match import(&url) {
        Ok(promise) => wasm_bindgen_futures::spawn_local(async move {
            let result = wasm_bindgen_futures::JsFuture::from(promise)
                .await
                .map_err(|e| {
                    e.dyn_ref::<js_sys::Error>()
                        .map(|e| String::from(e.message()))
                        .unwrap_or_else(|| "the download failed".to_string())
                });
            settle(result);
        }),
        Err(_) => settle(Err("this browser cannot load modules".to_string())),
    }
}

/// Starts fetching the module without drawing anything, so that it is there when needed.
pub fn prefetch() {
    with_module(|_| ());
}

/// Properties of [`ExtrasSlot`].
#[derive(Properties, PartialEq)]
pub struct ExtrasSlotProps {
    /// Which of the module's parts to draw: `"compare"`, `"inspector"` or `"heatmap"`.
    pub part: &'static str,
    /// What the part draws, as one text (its format is the part's own).
    pub input: Rc<str>,
    /// The part's messages: a kind and a text.
    pub on_message: Callback<(String, String)>,
    /// Whether the page can wait for the module a moment: the first fetch then starts a
    /// second after the page is up, so it never competes with the page's own start.
    #[prop_or_default]
    pub deferred: bool,
}

/// How long a deferred slot waits before fetching the module, in milliseconds.
const DEFER_MS: u32 = 1000;

/// Where the module stands, for one slot.
#[derive(Clone, PartialEq)]
enum Status {
    Loading,
    Drawn,
    Failed(String),
}

/// An element the extras module draws a part into.
#[function_component(ExtrasSlot)]
pub fn extras_slot(props: &ExtrasSlotProps) -> Html {
    let node = use_node_ref();
    let status = use_state_eq(|| Status::Loading);
    // The function the module calls with its messages: made once, it forwards to the
    // latest `on_message`.
    let forward = use_mut_ref(|| props.on_message.clone());
    *forward.borrow_mut() = props.on_message.clone();
    let answer = use_memo((), {
        let forward = forward.clone();
        move |()| {
            Closure::<dyn Fn(String, String)>::new(move |kind: String, text: String| {
                let f = forward.borrow().clone();
                f.emit((kind, text));
            })
        }
    });
    {
        let (node, status, part) = (node.clone(), status.clone(), props.part);
        let deferred = props.deferred && MODULE.with(|m| matches!(*m.borrow(), Module::Idle));
        // The latest input: a draw waiting for the module (or for its deferred start) reads
        // it when it runs, so that a draw queued earlier never puts back an older picture.
        let latest = use_mut_ref(|| props.input.clone());
        *latest.borrow_mut() = props.input.clone();
        use_effect_with(props.input.clone(), move |_| {
            let draw = move |module: Result<&JsValue, &str>| {
                let input = latest.borrow().clone();
                let module = match module {
                    Ok(m) => m,
                    Err(e) => return status.set(Status::Failed(e.to_string())),
                };
                let Some(el) = node.cast::<web_sys::Element>() else {
                    return;
                };
                let render = js_sys::Reflect::get(module, &JsValue::from_str("render"))
                    .ok()
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
                let args = js_sys::Array::of4(
                    &JsValue::from_str(part),
                    &el,
                    &JsValue::from_str(&input),
                    (*answer).as_ref().unchecked_ref::<js_sys::Function>(),
                );
                match render.map(|f| f.apply(&JsValue::NULL, &args)) {
                    Some(Ok(_)) => status.set(Status::Drawn),
                    _ => status.set(Status::Failed(format!(
                        "the {part} panel could not be drawn"
                    ))),
                }
            };
            if deferred {
                gloo::timers::callback::Timeout::new(DEFER_MS, move || with_module(draw)).forget();
            } else {
                with_module(draw);
            }
            || ()
        });
    }
    html! {
        <div class={classes!("extras-slot", format!("extras-{}", props.part))} data-testid={format!("extras-{}", props.part)}
            data-status={match &*status { Status::Loading => "loading", Status::Drawn => "drawn", Status::Failed(_) => "failed" }}>
            // The module's own tree: this side never gives the element children.
            <div ref={node}></div>
            { match &*status {
                Status::Loading => html! { <p class="extras-note">{ "Loading…" }</p> },
                Status::Drawn => html! {},
                Status::Failed(e) => html! { <p class="extras-note error">{ format!("This panel could not load: {e}.") }</p> },
            } }
        </div>
    }
}
