//! The controls: the shard key field and the workload button.

use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// The current shard key field.
    pub key_field: AttrValue,
    /// Called with a new field name to start over sharded on it.
    pub on_reshard: Callback<String>,
    /// Called with a count of documents to insert.
    pub on_insert: Callback<u32>,
}

/// The control bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let key_ref = use_node_ref();
    let count_ref = use_node_ref();
    let on_shard = {
        let key_ref = key_ref.clone();
        let cb = props.on_reshard.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(input) = key_ref.cast::<HtmlInputElement>() {
                cb.emit(input.value());
            }
        })
    };
    let on_insert = {
        let count_ref = count_ref.clone();
        let cb = props.on_insert.clone();
        Callback::from(move |_| {
            let n = count_ref
                .cast::<HtmlInputElement>()
                .and_then(|i| i.value().trim().parse::<u32>().ok())
                .unwrap_or(100)
                .clamp(1, 100_000);
            cb.emit(n);
        })
    };
    html! {
        <div class="controls">
            <form class="control-group" onsubmit={on_shard}>
                <label for="shard-key">{ "Shard key field" }</label>
                <input id="shard-key" data-testid="shard-key" ref={key_ref}
                    value={props.key_field.clone()} spellcheck="false" />
                <button type="submit" data-testid="shard-collection">{ "Shard collection" }</button>
            </form>
            <div class="control-group">
                <label for="insert-count">{ "Documents" }</label>
                <input id="insert-count" data-testid="insert-count" ref={count_ref}
                    type="number" min="1" max="100000" value="100" />
                <button data-testid="insert-increasing" onclick={on_insert}>
                    { "Insert with increasing keys" }
                </button>
            </div>
        </div>
    }
}
