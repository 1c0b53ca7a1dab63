//! The header's language switch: every language the page has, each named in itself; and
//! [`use_words`], through which a component reads the page's words and redraws when the
//! language changes.

use crate::i18n::{Lang, Words, K};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The page's words, from the context the app provides (the model's
/// [`crate::state::Playground::words`]; English where no app provides them): a component
/// that calls this redraws when the language changes.
#[hook]
pub fn use_words() -> Words {
    use_context::<Words>().unwrap_or_default()
}

/// Properties of [`LangSwitch`].
#[derive(Properties, PartialEq)]
pub struct LangSwitchProps {
    /// The page's language.
    pub lang: Lang,
    /// Asks for another.
    pub on_change: Callback<Lang>,
}

/// A select of the page's languages; the choice applies at once and is remembered.
#[function_component(LangSwitch)]
pub fn lang_switch(props: &LangSwitchProps) -> Html {
    let w = use_words();
    let onchange = {
        let on_change = props.on_change.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Some(lang) = Lang::from_tag(&select.value()) {
                on_change.emit(lang);
            }
        })
    };
    html! {
        <label class="lang-switch">
            <select data-testid="lang" aria-label={w.t(K::LangSwitchLabel)} {onchange}>
                { for Lang::ALL.iter().map(|l| html! {
                    <option value={l.tag()} lang={l.tag()} selected={*l == props.lang}>{ l.name() }</option>
                }) }
            </select>
        </label>
    }
}
