//! The query box: a filter on the viewed collection, and the shards it would be sent to,
//! outlined in the cluster view right below it.

use super::query::use_keyed_query;
use super::term::Term;
use crate::i18n::{t, tf, K};
use shardlab_protocol::{Call, Position, Reply};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`QueryBox`]: the collection, its key and the cursor the filter is
/// asked about.
#[derive(Properties, PartialEq)]
pub struct QueryBoxProps {
    /// The engine session asked.
    pub session: Rc<str>,
    /// Whether the engine has answered for the session.
    pub ready: bool,
    /// The collection shown.
    pub ns: AttrValue,
    /// Its shard key as the picture shows it.
    pub key: AttrValue,
    /// The engine's filter to start from: an equality on the key's first field with a
    /// value the collection holds (`None` until it holds one, or when it is not sharded).
    pub example: Option<AttrValue>,
    /// The cursor: the cluster the filter is routed on.
    pub at: Position,
    /// Called with the shards the typed query targets, to outline them.
    pub on_target: Callback<Vec<String>>,
}

/// A filter to start from: the engine's example, or `{}`.
fn example_filter(props: &QueryBoxProps) -> String {
    props.example.as_deref().unwrap_or("{}").to_string()
}

/// The query box. The filter starts as an equality on the key's first field and starts
/// over when the collection or its key changes, so it never targets a key that is gone,
/// and once when the collection gets its first document, so it shows a value of the
/// field's type.
#[function_component(QueryBox)]
pub fn query_box(props: &QueryBoxProps) -> Html {
    let _lang = super::lang_switch::use_lang();
    let ns = props.ns.to_string();
    let key = props.key.to_string();
    let query = use_state(|| example_filter(props));
    // The collection and key the filter was last started over for.
    let started = use_mut_ref(|| (String::new(), String::new()));
    {
        let query = query.clone();
        let example = example_filter(props);
        let has_example = props.example.is_some();
        use_effect_with((ns.clone(), key, has_example), move |(ns, key, _)| {
            let moved = *started.borrow() != (ns.to_string(), key.to_string());
            // The first document only replaces the placeholder, never a typed filter.
            if moved || *query == "{}" {
                query.set(example);
            }
            *started.borrow_mut() = (ns.to_string(), key.to_string());
            || ()
        });
    }
    // Where the filter goes is the engine's answer, on the cluster at the cursor (every
    // command is a step, so the cluster changes only with the cursor or the session).
    let answer = use_keyed_query(
        (
            (*query).clone(),
            ns.clone(),
            props.session.clone(),
            props.ready,
            props.at,
        ),
        props.session.clone(),
        props.ready,
        {
            let (ns, filter) = (ns.clone(), (*query).clone());
            move || Call::Target { ns, filter }
        },
    );
    // The filter the answer on show is for (the one typed may be newer).
    let (answered, answer) = answer.map_or((String::new(), None), |((f, ..), a)| (f, Some(a)));
    let targeting: Result<(String, Vec<String>), String> = match answer.as_deref() {
        Some(Ok(Reply::Target(t))) => Ok((t.stage.clone(), t.shards.clone())),
        Some(Err(e)) => Err(e.message.clone()),
        _ => Err(String::new()),
    };
    {
        let on_target = props.on_target.clone();
        let shards = targeting
            .as_ref()
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        use_effect_with(shards, move |s| {
            on_target.emit(s.clone());
            || ()
        });
    }
    let on_query = {
        let query = query.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            query.set(input.value());
        })
    };
    html! {
        <section class="panel query" data-testid="query-panel" aria-label={t(K::QueryBoxQueryTargeting)}>
            <label class="field">
                <span>{ tf(K::QueryBoxQueryTargetingDbNFind, &[("n", &(ns.split_once('.').map_or(ns.as_str(), |(_, c)| c)))]) }</span>
                <input data-testid="query-filter" value={(*query).clone()} oninput={on_query} spellcheck="false" aria-label={t(K::QueryBoxQueryFilter)} />
                <span>{ ")" }</span>
            </label>
            { targeting_view(&targeting, &answered) }
        </section>
    }
}

/// Where the filter the answer is for (`answered`) goes: the explain stage and the shards
/// outlined below, or the engine's error; nothing before the first answer.
fn targeting_view(targeting: &Result<(String, Vec<String>), String>, answered: &str) -> Html {
    match targeting {
        Ok((stage, shards)) => html! {
            <p class="targeting" data-testid="query-stage" data-stage={stage.clone()} data-filter={answered.to_string()}>
                <span class={classes!("stage", if stage == "SINGLE_SHARD" { "good" } else { "wide" })}>
                    <Term id={stage.clone()} label={stage.clone()} />
                </span>
                { tf(K::QueryBoxNOutlinedBelow, &[("n", &(shards.join(", ")))]) }
            </p>
        },
        Err(e) if e.is_empty() => html! {},
        Err(e) => html! { <p class="error">{ e.clone() }</p> },
    }
}
