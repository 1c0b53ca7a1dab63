//! A term of art with its glossary explanation on hover, focus and tap ([`Term`]), and the
//! glossary panel that lists every term ([`glossary_panel`]). The glossary is fetched on
//! first use (see [`crate::glossary`]).

use crate::glossary;
use crate::i18n::{Words, K};
use yew::prelude::*;

/// What to show while the glossary is not in, or for a term it lacks.
fn missing(w: Words) -> &'static str {
    match glossary::entries(w.lang()) {
        None => w.t(K::TermLoading),
        Some(_) => w.t(K::TermTheGlossaryCouldNotBe),
    }
}

/// Properties of [`Term`].
#[derive(Properties, PartialEq)]
pub struct TermProps {
    /// The glossary entry's id.
    pub id: AttrValue,
    /// The text shown on the page.
    pub label: AttrValue,
}

/// A term, underlined with dots. Hovering, focusing (Tab) or tapping it shows its
/// explanation in a tooltip; Escape, blur or the pointer leaving close it.
#[function_component(Term)]
pub fn term(props: &TermProps) -> Html {
    let w = super::lang_switch::use_words();
    let open = use_state(|| false);
    let set = {
        let open = open.clone();
        move |on: bool| {
            if on && !*open {
                let open = open.clone();
                glossary::fetch(w, move || open.set(true));
            }
            open.set(on);
        }
    };
    let tip = format!("tip-{}", props.id);
    let (s1, s2) = (set.clone(), set.clone());
    // Inside a label, a click would otherwise focus its field (and blur the term).
    let on_mouse = Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        s1(e.type_() != "mouseleave")
    });
    let on_key = Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
        "Escape" => s2(false),
        "Enter" | " " => {
            // Not a page shortcut (Space plays), nor a scroll.
            e.prevent_default();
            e.stop_propagation();
            s2(true)
        }
        _ => {}
    });
    let on_focus = Callback::from(move |e: FocusEvent| set(e.type_() == "focus"));
    html! {
        <span class="term-wrap">
            <span class="term" tabindex="0" role="button" data-term={props.id.clone()}
                aria-describedby={open.then(|| tip.clone())}
                onmouseenter={on_mouse.clone()} onmouseleave={on_mouse.clone()} onclick={on_mouse}
                onfocus={on_focus.clone()} onblur={on_focus} onkeydown={on_key}>{ props.label.clone() }</span>
            if *open {
                <span role="tooltip" id={tip} class="tip" data-testid="glossary-tip">
                    { match glossary::entry(w.lang(), &props.id) {
                        Some(e) => html! { <><b>{ e.term }</b>{ e.text }</> },
                        None => missing(w).into(),
                    } }
                </span>
            }
        </span>
    }
}

/// The glossary panel: every term and its explanation, in the file's order. Whoever
/// shows it starts the fetch ([`glossary::fetch`]) and redraws when it ends.
pub fn glossary_panel(w: Words, on_close: Callback<MouseEvent>) -> Html {
    html! {
        <section class="panel glossary" data-testid="glossary-panel" aria-label={w.t(K::TabsGlossary)}>
            <h2>{ w.t(K::TabsGlossary) }</h2>
            <button class="secondary" data-testid="glossary-close" onclick={on_close}>{ w.t(K::InspectorClose) }</button>
            { match glossary::entries(w.lang()) {
                Some(list) if !list.is_empty() => html! {
                    <dl>{ for list.iter().map(|e| html! {
                        <><dt>{ e.term }</dt><dd>{ e.text }</dd></>
                    }) }</dl>
                },
                _ => html! { <p class="muted">{ missing(w) }</p> },
            } }
        </section>
    }
}
