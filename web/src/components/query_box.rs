//! The query box: a filter on the viewed collection, and the shards it would be sent to,
//! outlined in the cluster view right below it.

use super::query::{reply, use_in_sight};
use super::term::Term;
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::state::Action;
use shardlab_protocol::{Call, Reply};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`QueryBox`]: the collection, its filter and where the engine last said
/// the filter goes.
#[derive(Properties, PartialEq)]
pub struct QueryBoxProps {
    /// The collection shown.
    pub ns: AttrValue,
    /// The filter, as typed or started over (`Playground::filter`).
    pub filter: AttrValue,
    /// The engine's latest answer: where a filter goes, on the cluster at the cursor.
    pub answer: Option<Answer>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// The query box. The filter starts as an equality on the key's first field and starts
/// over when the collection or its key changes, so it never targets a key that is gone,
/// and once when the collection gets its first document, so it shows a value of the
/// field's type (the model's: `Playground::filter`). The shards it goes to are outlined
/// in the cluster (`Playground::targeted`).
#[function_component(QueryBox)]
pub fn query_box(props: &QueryBoxProps) -> Html {
    let w = super::lang_switch::use_words();
    use_in_sight(Asker::Target, &props.dispatch);
    let ns = props.ns.to_string();
    // The filter the answer on show is for (the one typed may be newer).
    let answered = match props.answer.as_ref().map(|a| &a.question.call) {
        Some(Call::Target { filter, .. }) => filter.clone(),
        _ => String::new(),
    };
    let targeting: Result<(String, Vec<String>), String> = match reply(&props.answer) {
        Some(Ok(Reply::Target(t))) => Ok((t.stage.clone(), t.shards.clone())),
        Some(Err(e)) => Err(e.message.clone()),
        _ => Err(String::new()),
    };
    let on_query = props.dispatch.reform(|e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        Action::Filter(input.value())
    });
    html! {
        <section class="panel query" data-testid="query-panel" aria-label={w.t(K::QueryBoxQueryTargeting)}>
            <label class="field">
                <span>{ w.tf(K::QueryBoxQueryTargetingDbNFind, &[("n", &(ns.split_once('.').map_or(ns.as_str(), |(_, c)| c)))]) }</span>
                <input data-testid="query-filter" value={props.filter.clone()} oninput={on_query} spellcheck="false" aria-label={w.t(K::QueryBoxQueryFilter)} />
                <span>{ ")" }</span>
            </label>
            { targeting_view(w, &targeting, &answered) }
        </section>
    }
}

/// Where the filter the answer is for (`answered`) goes: the explain stage and the shards
/// outlined below, or the engine's error; nothing before the first answer.
fn targeting_view(
    w: Words,
    targeting: &Result<(String, Vec<String>), String>,
    answered: &str,
) -> Html {
    match targeting {
        Ok((stage, shards)) => html! {
            <p class="targeting" data-testid="query-stage" data-stage={stage.clone()} data-filter={answered.to_string()}>
                <span class={classes!("stage", if stage == "SINGLE_SHARD" { "good" } else { "wide" })}>
                    <Term id={stage.clone()} label={stage.clone()} />
                </span>
                { w.tf(K::QueryBoxNOutlinedBelow, &[("n", &(shards.join(", ")))]) }
            </p>
        },
        Err(e) if e.is_empty() => html! {},
        Err(e) => html! { <p class="error">{ e.clone() }</p> },
    }
}
