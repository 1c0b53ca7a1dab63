//! Workshop mode: large type for presenting, toggled by a button or the `w` key. It and
//! the unfolded Setup are remembered by the tab, so a presenter's reload keeps them.

use crate::keys::{set_tab_flag, tab_flag};
use yew::prelude::*;

/// sessionStorage: whether this tab shows workshop mode ("1" or "0").
const WORKSHOP_KEY: &str = "shardlab.workshop";
/// sessionStorage: whether this tab shows the Setup unfolded ("1" or "0").
const SETUP_KEY: &str = "shardlab.setup";

/// A yes or no this tab remembers across reloads (in sessionStorage under `key`), and a
/// callback that flips it.
#[hook]
fn use_tab_flag(key: &'static str) -> (bool, Callback<()>) {
    let on = use_state_eq(|| tab_flag(key));
    let flip = {
        let on = on.clone();
        Callback::from(move |()| {
            let next = !*on;
            set_tab_flag(key, next);
            on.set(next);
        })
    };
    (*on, flip)
}

/// Whether the Setup (the scenario's and the workload's forms) is unfolded, and a
/// callback that folds or unfolds it.
#[hook]
pub fn use_setup() -> (bool, Callback<()>) {
    use_tab_flag(SETUP_KEY)
}

/// Whether workshop mode is on, and a callback that toggles it. The hook also listens for
/// the `w` key (ignored while typing in a field).
#[hook]
pub fn use_workshop() -> (bool, Callback<()>) {
    let (on, toggle) = use_tab_flag(WORKSHOP_KEY);
    {
        let toggle = toggle.clone();
        use_effect_with(on, move |_| {
            let listener = crate::keys::listen(move |key| {
                let used = key == "w";
                if used {
                    toggle.emit(());
                }
                used
            });
            move || drop(listener)
        });
    }
    (on, toggle)
}
