//! Workshop mode: large type for presenting, toggled by a button or the `w` key.

use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Whether workshop mode is on, and a callback that toggles it. The hook also listens for
/// the `w` key (ignored while typing in a field).
#[hook]
pub fn use_workshop() -> (bool, Callback<()>) {
    let on = use_state(|| false);
    let toggle = {
        let on = on.clone();
        Callback::from(move |()| on.set(!*on))
    };
    {
        let toggle = toggle.clone();
        use_effect_with(*on, move |_| {
            let listener =
                gloo::events::EventListener::new(&gloo::utils::document(), "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    let typing = gloo::utils::document().active_element().is_some_and(|el| {
                        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    });
                    if !typing && !e.ctrl_key() && !e.meta_key() && !e.alt_key() && e.key() == "w" {
                        toggle.emit(());
                    }
                });
            move || drop(listener)
        });
    }
    (*on, toggle)
}
