//! ShardLab's extras: the panels the page loads only when it needs them, as a second wasm
//! module, so that its first download stays within budget (ARCHITECTURE.md, "Download
//! budget"): the inspector and the key-space heatmap, with the core's
//! `insight` feature they read.
//!
//! The page hands each part one line of JSON through [`render`] and gets messages back
//! (`shardlab_web::extras`). The inspector and the heatmap draw a copy of the page's
//! session, kept here: replayed from the page's saved form once, then brought along a step
//! at a time ([`Playground::follow`]) since the core is deterministic. Everything the page
//! sends is checked as if an attacker wrote it.

use shardlab_web::components::heatmap::Heatmap;
use shardlab_web::components::inspector::Inspector;
use shardlab_web::state::{Action, Calm, Inspect, Playground};
use shardlab_web::storage::{parse_object, string_field};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// The page's function that takes this module's messages: `(kind, text)`.
#[derive(Clone)]
struct Answer(js_sys::Function);

impl Answer {
    fn send(&self, kind: &str, text: &str) {
        if let Err(e) = self.0.call2(
            &JsValue::NULL,
            &JsValue::from_str(kind),
            &JsValue::from_str(text),
        ) {
            web_sys::console::error_2(
                &JsValue::from_str("shardlab extras: the page refused a message"),
                &e,
            );
        }
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// Properties of a part.
#[derive(Properties, PartialEq, Clone)]
struct PartProps {
    part: AttrValue,
    input: AttrValue,
    answer: Answer,
    /// Bumped on every render call, so the part draws what it was given.
    call: u64,
}

/// The session the inspector and the heatmap draw, kept between calls.
struct Copy {
    /// The saved form it was last brought to (a repeat costs nothing).
    text: String,
    /// The configuration the session started from (the cluster's own may have changed
    /// since, with `sim.chunkSize` for one).
    config: shardlab::ClusterConfig,
    state: Playground,
}

thread_local! {
    static APPS: RefCell<Vec<(String, web_sys::Element, yew::AppHandle<Part>)>> = const { RefCell::new(Vec::new()) };
    static COPY: RefCell<Option<Copy>> = const { RefCell::new(None) };
    static CALLS: RefCell<u64> = const { RefCell::new(0) };
}

/// The page's session as the saved form `text` describes it, showing `ns` with `inspect`
/// as the inspector's subject: the copy kept here, brought up to it.
fn session(text: &str, ns: &str, inspect: Option<Inspect>) -> Result<Playground, String> {
    COPY.with(|copy| {
        let mut copy = copy.borrow_mut();
        let same = copy.as_ref().is_some_and(|c| c.text == text);
        if !same {
            let scenario = shardlab::sim::from_json(text).map_err(|e| e.to_string())?;
            let config = scenario.config();
            let followed = copy.as_mut().is_some_and(|c| {
                c.config == config
                    && c.state
                        .follow(&scenario.commands, scenario.applied() as u64)
            });
            if !followed {
                let replayed = shardlab_web::share::playground_from_scenario(&scenario);
                *copy = Some(Copy {
                    text: String::new(),
                    config,
                    state: replayed.state,
                });
            }
            if let Some(c) = copy.as_mut() {
                c.text = text.to_string();
            }
        }
        let c = copy.as_mut().ok_or("no session")?;
        if c.state.settings.ns != ns {
            c.state =
                (*yew::Reducible::reduce(Rc::new(c.state.clone()), Action::View(ns.to_string())))
                    .clone();
        }
        let mut state = c.state.clone();
        state.inspect = inspect.map(|i| (ns.to_string(), i));
        // Every call draws anew: a revision never used before, even after a replay made a
        // new copy whose own count starts over.
        state.rev = CALLS.with(|n| *n.borrow());
        state.calm_revs = [state.rev; 2];
        Ok(state)
    })
}

/// One part of the page, drawn from its input.
struct Part;

impl Component for Part {
    type Message = ();
    type Properties = PartProps;

    fn create(_: &Context<Self>) -> Self {
        Part
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let Some(input) = parse_object(&p.input) else {
            return html! { <p class="error">{ "This panel was given input it cannot read." }</p> };
        };
        let answer = p.answer.clone();
        match p.part.as_str() {
            part @ ("inspector" | "heatmap") => {
                let (Some(text), Some(ns)) =
                    (string_field(&input, "scenario"), string_field(&input, "ns"))
                else {
                    return html! { <p class="error">{ "This panel was given input it cannot read." }</p> };
                };
                let inspect = string_field(&input, "inspect").and_then(|t| Inspect::from_text(&t));
                let state = match session(&text, &ns, inspect) {
                    Ok(s) => s,
                    Err(e) => {
                        return html! { <p class="error">{ format!("The session could not be read: {e}") }</p> }
                    }
                };
                let dispatch = Callback::from(move |action: Action| match action {
                    Action::Jump(n) => answer.send("jump", &n.to_string()),
                    Action::Command(c) | Action::Auto(c) => answer.send("command", &c),
                    Action::Inspect(None) => answer.send("inspect", ""),
                    Action::Inspect(Some(i)) => answer.send("inspect", &i.to_text()),
                    _ => {}
                });
                if part == "inspector" {
                    html! { <Inspector {state} {dispatch} calm={Calm::Insights} /> }
                } else {
                    html! { <Heatmap {state} {dispatch} calm={Calm::Insights} /> }
                }
            }
            _ => html! {},
        }
    }
}

/// An empty component, for [`claim_tree_ids`].
struct Nothing;

impl Component for Nothing {
    type Message = ();
    type Properties = ();

    fn create(_: &Context<Self>) -> Self {
        Nothing
    }

    fn view(&self, _: &Context<Self>) -> Html {
        html! {}
    }
}

/// How many of Yew's subtree numbers this module skips before drawing anything.
const TREE_IDS_SKIPPED: usize = 64;

/// Moves this module's Yew past the subtree numbers the page's Yew uses. Each copy of Yew
/// numbers its trees from 1 and brands their elements with the number; the page's Yew,
/// which sees every event first (it listens in the capture phase), would take an element
/// of this module branded 1 for one of its own and run the wrong listener. Trees made and
/// dropped here, once, take the low numbers.
fn claim_tree_ids() {
    thread_local!(static DONE: RefCell<bool> = const { RefCell::new(false) });
    if DONE.with(|d| d.replace(true)) {
        return;
    }
    let document = gloo_document();
    for _ in 0..TREE_IDS_SKIPPED {
        if let Ok(el) = document.create_element("div") {
            yew::Renderer::<Nothing>::with_root(el).render().destroy();
        }
    }
}

/// The page's document.
fn gloo_document() -> web_sys::Document {
    web_sys::window()
        .and_then(|w| w.document())
        .expect("a page has a document")
}

/// Draws `part` (`"inspector"` or `"heatmap"`) into `element` from `input`,
/// a JSON object; the part's messages go to `answer(kind, text)`. A second call for the
/// same part draws it again with the new input.
#[wasm_bindgen]
pub fn render(part: &str, element: web_sys::Element, input: String, answer: js_sys::Function) {
    claim_tree_ids();
    let call = CALLS.with(|c| {
        *c.borrow_mut() += 1;
        *c.borrow()
    });
    let props = PartProps {
        part: AttrValue::from(part.to_string()),
        input: AttrValue::from(input),
        answer: Answer(answer),
        call,
    };
    APPS.with(|apps| {
        let mut apps = apps.borrow_mut();
        match apps.iter_mut().find(|(p, e, _)| p == part && *e == element) {
            Some((_, _, handle)) => handle.update(props),
            None => {
                // A part drawn before into an element the page has since dropped.
                if let Some(i) = apps.iter().position(|(p, _, _)| p == part) {
                    let (_, _, old) = apps.remove(i);
                    old.destroy();
                }
                let handle =
                    yew::Renderer::<Part>::with_root_and_props(element.clone(), props).render();
                apps.push((part.to_string(), element, handle));
            }
        }
    });
}
