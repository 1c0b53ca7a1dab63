//! The answer where the eye is: a click that asks for something drawn elsewhere on the
//! page (the inspector's "why?", a chunk's documents) brings the answer into view, moves
//! the focus to it and has it announced ([`use_reveal`]).
//!
//! On a wide screen the answer is scrolled into view only when it is not already in it
//! (the least movement). On a phone the stylesheet makes the panel a sheet along the
//! bottom of the window; the page then scrolls what was clicked to the top, clear of the
//! sheet, so the answer never covers what it explains.

use web_sys::{Element, FocusOptions, HtmlElement, ScrollIntoViewOptions, ScrollLogicalPosition};
use yew::prelude::*;

/// The widest window drawn as a phone (the stylesheet's `max-width: 700px`), where
/// answers come as a sheet.
pub const PHONE_MAX_WIDTH: f64 = 700.0;

/// The space kept between the window's top (or a sticky lesson panel) and what was
/// clicked, in CSS pixels.
const MARGIN: f64 = 12.0;

/// Brings `answer` into view once the answer about a new `asked` subject is on show
/// (`shown` equals it), moves the focus to it and lets its `aria-live` announce it. The
/// element focused when the subject changed (what was clicked) is the origin, kept clear
/// of the sheet on a phone. Nothing moves on the first render, nor when the same
/// subject's answer is only refreshed.
#[hook]
pub fn use_reveal<T: PartialEq + Clone + 'static>(
    asked: Option<T>,
    shown: Option<T>,
    answer: NodeRef,
) {
    let last = use_mut_ref(|| asked.clone());
    let origin = use_mut_ref(|| None::<Element>);
    let pending = use_mut_ref(|| false);
    if *last.borrow() != asked {
        *last.borrow_mut() = asked.clone();
        *pending.borrow_mut() = asked.is_some();
        // What was clicked, if it took the focus (a canvas does not: the page's body then).
        let document = gloo::utils::document();
        let body: Option<Element> = document.body().map(Into::into);
        *origin.borrow_mut() = document
            .active_element()
            .filter(|e| Some(e) != body.as_ref());
    }
    use_effect(move || {
        if *pending.borrow() && asked.is_some() && shown == asked {
            *pending.borrow_mut() = false;
            reveal(&answer, origin.borrow_mut().take());
        }
    });
}

/// The window's inner size in CSS pixels.
fn window_size() -> (f64, f64) {
    let w = gloo::utils::window();
    let get = |v: Result<wasm_bindgen::JsValue, _>| v.ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    (get(w.inner_width()), get(w.inner_height()))
}

/// Scrolls, focuses and so announces `answer` (see [`use_reveal`]).
fn reveal(answer: &NodeRef, origin: Option<Element>) {
    let Some(el) = answer.cast::<HtmlElement>() else {
        return;
    };
    let (width, height) = window_size();
    if width <= PHONE_MAX_WIDTH {
        if let Some(origin) = origin {
            keep_clear_of_sheet(&origin, &el, height);
        }
    } else {
        let r = el.get_bounding_client_rect();
        if r.top() < 0.0 || r.top() > height - 80.0 {
            let options = ScrollIntoViewOptions::new();
            options.set_block(ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    }
    let options = FocusOptions::new();
    options.set_prevent_scroll(true);
    let _ = el.focus_with_options(&options);
}

/// On a phone: scrolls the page so that `origin` sits near the top, below a sticky lesson
/// panel if one is open, when the sheet holding `answer` would cover it.
fn keep_clear_of_sheet(origin: &Element, answer: &HtmlElement, height: f64) {
    let sheet_top = answer
        .closest(".sheet")
        .ok()
        .flatten()
        .map_or(height, |s| s.get_bounding_client_rect().top());
    let below = gloo::utils::document()
        .query_selector(".guide:not(.guide-picker)")
        .ok()
        .flatten()
        .map_or(0.0, |g| g.get_bounding_client_rect().bottom().max(0.0));
    let r = origin.get_bounding_client_rect();
    if r.top() < below || r.bottom() > sheet_top {
        let by = r.top() - below - MARGIN;
        gloo::utils::window().scroll_by_with_x_and_y(0.0, by);
    }
}
