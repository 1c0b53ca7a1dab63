//! Workshop mode: large type for presenting, toggled by a button or the `w` key.

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
            let listener = crate::shortcuts::listen(move |key| {
                let used = key == "w";
                if used {
                    toggle.emit(());
                }
                used
            });
            move || drop(listener)
        });
    }
    (*on, toggle)
}
