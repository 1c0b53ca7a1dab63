//! The tab bar that switches the page between the playground, the side-by-side
//! comparison and the guided lessons, with the glossary and the workshop (presenter)
//! toggles at its end.

use super::term::glossary_panel;
use crate::i18n::K;
use yew::prelude::*;

pub use crate::state::Mode;

/// Properties of [`Tabs`].
#[derive(Properties, PartialEq)]
pub struct TabsProps {
    /// The current mode.
    pub mode: Mode,
    /// Called with the mode the user picked.
    pub on_select: Callback<Mode>,
    /// Whether workshop mode (large type) is on.
    pub workshop: bool,
    /// Toggles workshop mode.
    pub on_workshop: Callback<()>,
}

/// The tab bar.
#[function_component(Tabs)]
pub fn tabs(props: &TabsProps) -> Html {
    let w = super::lang_switch::use_words();
    let glossary = use_state(|| false);
    let toggle = |on: bool| {
        let glossary = glossary.clone();
        Callback::from(move |_| {
            if on {
                let glossary = glossary.clone();
                crate::glossary::fetch(w, move || glossary.set(true));
            }
            glossary.set(on)
        })
    };
    let tab = |mode: Mode, label: &'static str, id: &'static str| {
        let selected = props.mode == mode;
        html! {
            <button role="tab" class={classes!("tab", selected.then_some("selected"))}
                aria-selected={selected.to_string()} data-testid={id}
                onclick={props.on_select.reform(move |_| mode)}>{ label }</button>
        }
    };
    html! {
        <>
        <nav class="tabs" aria-label={w.t(K::TabsViews)}>
            <div role="tablist" class="tab-list">
                { tab(Mode::Playground, w.t(K::TabsPlayground), "tab-playground") }
                { tab(Mode::Compare, w.t(K::TabsCompare), "tab-compare") }
                { tab(Mode::Guide, w.t(K::GuideGuidedLessons), "tab-guide") }
            </div>
            <span class="tab-tools">
            <button class="secondary" data-testid="glossary-toggle" aria-expanded={glossary.to_string()}
                onclick={toggle(!*glossary)}>{ w.t(K::TabsGlossary) }</button>
            <button class={classes!("secondary", "workshop-toggle")} data-testid="workshop-toggle"
                aria-pressed={props.workshop.to_string()} title={w.t(K::TabsLargeTypeForPresentingW)}
                onclick={props.on_workshop.reform(|_| ())}>
                { if props.workshop { w.t(K::TabsLeaveWorkshopMode) } else { w.t(K::TabsWorkshopMode) } }
            </button>
            </span>
        </nav>
        if *glossary {
            { glossary_panel(w, toggle(false)) }
        }
        </>
    }
}
