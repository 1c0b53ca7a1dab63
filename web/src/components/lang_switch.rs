//! The header's language switch: every language the page has, each named in itself; and
//! [`use_lang`], through which a component redraws when the language changes.

use crate::i18n::{t, Lang, K};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The page's language, from the context the app provides: a component that calls this
/// redraws when the language changes.
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(crate::i18n::current)
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
            <select data-testid="lang" aria-label={t(K::LangSwitchLabel)} {onchange}>
                { for Lang::ALL.iter().map(|l| html! {
                    <option value={l.tag()} lang={l.tag()} selected={*l == props.lang}>{ l.name() }</option>
                }) }
            </select>
        </label>
    }
}
