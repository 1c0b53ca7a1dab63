//! The keyboard shortcuts dialog: `?` (or its button) lists every shortcut of the page;
//! Escape or Close closes it and gives focus back to what had it.

use crate::i18n::K;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Every shortcut of the page: the keys, and what they do. (Each is handled where its
/// panel listens, through `crate::keys`; none works while typing in a field.)
pub const SHORTCUTS: &[(&str, K)] = &[
    ("Space", K::ShortcutsHelpPlayOrPauseTheWorkload),
    ("→", K::ShortcutsHelpOneStepForwardInCompare),
    ("←", K::ShortcutsHelpOneStepBackDuringA),
    ("PageDown", K::ShortcutsHelpDuringADemoTheNext),
    ("PageUp", K::ShortcutsHelpDuringADemoThePrevious),
    ("n / p", K::ShortcutsHelpGuidedLessonsTheNextOr),
    ("w", K::ShortcutsHelpWorkshopModeOnOrOff),
    ("?", K::ShortcutsHelpThisListOfShortcuts),
    ("Escape", K::ShortcutsHelpCloseThisList),
];

/// The "Shortcuts" button and the dialog it opens; `?` opens it too.
#[function_component(ShortcutsHelp)]
pub fn shortcuts_help() -> Html {
    let w = super::lang_switch::use_words();
    let open = use_state(|| false);
    // What had focus before the dialog opened, to give it back.
    let before = use_mut_ref(|| None::<web_sys::HtmlElement>);
    let close_button = use_node_ref();
    let show = {
        let (open, before) = (open.clone(), before.clone());
        Callback::from(move |()| {
            *before.borrow_mut() = gloo::utils::document()
                .active_element()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            open.set(true);
        })
    };
    let hide = {
        let (open, before) = (open.clone(), before.clone());
        Callback::from(move |()| {
            open.set(false);
            if let Some(el) = before.borrow_mut().take() {
                let _ = el.focus();
            }
        })
    };
    use_help_keys(*open, show.clone(), hide.clone());
    {
        let close_button = close_button.clone();
        use_effect_with(*open, move |open| {
            if *open {
                if let Some(b) = close_button.cast::<web_sys::HtmlElement>() {
                    let _ = b.focus();
                }
            }
        });
    }
    html! {
        <>
            <button class="secondary" data-testid="shortcuts-open" title={w.t(K::ShortcutsHelpKeyboardShortcuts)}
                aria-haspopup="dialog" onclick={show.reform(|_: MouseEvent| ())}>{ w.t(K::ShortcutsHelpShortcuts) }</button>
            if *open {
                <div class="dialog-backdrop" onclick={hide.reform(|_: MouseEvent| ())}></div>
                <div class="shortcuts-dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title"
                    data-testid="shortcuts-dialog" onkeydown={keep_focus(close_button.clone())}>
                    <h2 id="shortcuts-title">{ w.t(K::ShortcutsHelpKeyboardShortcuts2) }</h2>
                    <dl class="shortcut-list">
                        { for SHORTCUTS.iter().map(|(keys, what)| { let what = w.t(*what); html! {
                            <div class="shortcut" data-testid="shortcut">
                                <dt><kbd>{ *keys }</kbd></dt>
                                <dd>{ what }</dd>
                            </div>
                        }}) }
                    </dl>
                    <button ref={close_button} data-testid="shortcuts-close"
                        onclick={hide.reform(|_: MouseEvent| ())}>{ w.t(K::InspectorClose) }</button>
                </div>
            }
        </>
    }
}

/// Tab and Shift+Tab stay in the modal dialog: its one control, Close, keeps the focus.
fn keep_focus(close_button: NodeRef) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Tab" {
            e.prevent_default();
            if let Some(b) = close_button.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
        }
    })
}

/// `?` opens the dialog; while it is open, Escape closes it.
#[hook]
fn use_help_keys(open: bool, show: Callback<()>, hide: Callback<()>) {
    use_effect_with(open, move |open| {
        let open = *open;
        let listener = crate::keys::listen(move |key| match key {
            "?" if !open => {
                show.emit(());
                true
            }
            "Escape" if open => {
                hide.emit(());
                true
            }
            _ => false,
        });
        move || drop(listener)
    });
}
