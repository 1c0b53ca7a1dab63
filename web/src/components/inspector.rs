//! The inspector: where the document just inserted landed (with an insert form that makes
//! one), a chunk's documents a page at a time with their hashes, and why the core decided
//! what it did about a chunk, a shard or a balancer round. Everything it shows is read from
//! the cluster at the cursor ([`Playground::inspecting`] keeps only the subject); the
//! sentences and rules are the core's (`Cluster::explain_*`, `Cluster::chunk_documents`).

use crate::state::{Action, Inspect, Playground};
use bson::Bson;
use shardlab::engine::{Explanation, Landing};
use shardlab::shell::format_value;
use shardlab::workload::presets::{example_document, insert_one_command};
use shardlab::{Cluster, KeyValue};
use shardlab_engine::queries::bound_text as key_text;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Documents a page of the chunk inspector lists.
pub const PAGE: u64 = 25;

/// Where the document of the latest insert up to the cursor is, with its insertion
/// number: only when that insert was of exactly one document into the collection shown
/// (an `insertOne`, from the console or the form), and while it is still stored.
pub fn landing(state: &Playground) -> Option<(u64, Landing)> {
    // The same rule as the page's outline of the chunk: `Playground::landed`.
    state.landed()?;
    let timeline = state.timeline.borrow();
    let (seq, landing) = timeline
        .session()
        .cluster
        .latest_landing(&state.settings.ns)?;
    Some((seq, landing.ok()?))
}

/// A value as mongosh prints it.
fn shown(v: &Bson) -> String {
    format_value(v)
}

/// One explanation: its rule, its sentence and its figures.
fn explanation(e: &Explanation) -> Html {
    html! {
        <li class="explanation" data-testid="explanation" data-topic={e.topic.name()} data-rule={e.rule}>
            <span class="rule">{ e.rule }</span>
            <p class="why">{ e.sentence.clone() }</p>
            if !e.facts.is_empty() {
                <dl class="facts">
                    { for e.facts.iter().map(|(name, value)| html! {
                        <><dt>{ *name }</dt><dd><code>{ shown(value) }</code></dd></>
                    }) }
                </dl>
            }
        </li>
    }
}

/// A list of explanations, or the error that stopped them, in MongoDB's words.
fn explanations(list: Result<Vec<Explanation>, shardlab::ClusterError>) -> Html {
    match list {
        Ok(list) => html! { <ul class="explanations">{ for list.iter().map(explanation) }</ul> },
        Err(e) => html! { <p class="error">{ e.to_string() }</p> },
    }
}

/// The path of the document just inserted: key value, hash, chunk, shard, and why.
fn landing_view(
    cluster: &Cluster,
    ns: &str,
    seq: u64,
    l: &Landing,
    dispatch: &Callback<Action>,
) -> Html {
    let open = {
        let key = l.key.clone();
        dispatch.reform(move |_| {
            Action::Inspect(Some(Inspect::Chunk {
                key: key.clone(),
                skip: None,
                mark: Some(seq),
            }))
        })
    };
    let shard = cluster.shard_name(l.shard).to_string();
    html! {
        <div class="landing" data-testid="landing" data-shard={shard.clone()}>
            <h3>{ "Where did it land?" }</h3>
            <ol class="path">
                <li data-testid="landing-key"><span class="step-name">{ "shard key value" }</span>
                    <code>{ key_text(cluster, ns, &l.key) }</code></li>
                if let Some((field, value, hash)) = &l.hashed {
                    <li data-testid="landing-hash" data-hash={hash.to_string()}>
                        <span class="step-name">{ format!("hash of {field}") }</span>
                        <code>{ format!("{} → {}", shown(value), shown(&Bson::Int64(*hash))) }</code></li>
                }
                <li data-testid="landing-chunk"><span class="step-name">{ "chunk" }</span>
                    <code>{ format!("[{}, {})", key_text(cluster, ns, &l.chunk_min), key_text(cluster, ns, &l.chunk_max)) }</code></li>
                <li data-testid="landing-shard"><span class="step-name">{ "shard" }</span>
                    <strong>{ shard }</strong></li>
            </ol>
            <p class="why" data-testid="landing-why">{ l.explanation.sentence.clone() }</p>
            <button class="secondary" data-testid="landing-open" onclick={open}>{ "Show it in its chunk" }</button>
        </div>
    }
}

/// A chunk's documents from `skip` (or from the page holding document `mark`), with the
/// chunk's explanations.
fn chunk_view(
    cluster: &Cluster,
    ns: &str,
    key: &KeyValue,
    skip: Option<u64>,
    mark: Option<u64>,
    dispatch: &Callback<Action>,
) -> Html {
    let skip = skip
        .or_else(|| {
            let (_, at) = cluster.document_position(ns, key, mark?)?;
            Some(at / PAGE * PAGE)
        })
        .unwrap_or(0);
    let page = match cluster.chunk_documents(ns, key, skip, PAGE) {
        Ok(p) => p,
        Err(e) => return html! { <p class="error">{ e.to_string() }</p> },
    };
    let go = |to: u64| {
        let key = page.min.clone();
        dispatch.reform(move |_| {
            Action::Inspect(Some(Inspect::Chunk {
                key: key.clone(),
                skip: Some(to),
                mark,
            }))
        })
    };
    let hashed = page.hashed_field.is_some();
    let last = (page.skip + page.rows.len() as u64).min(page.total);
    let shard = cluster.shard_name(page.shard).to_string();
    html! {
        <div class="chunk-inspector" data-testid="chunk-inspector" data-min={key_text(cluster, ns, &page.min)}
            data-total={page.total.to_string()} data-shard={shard.clone()}>
            <h3>{ format!("Chunk [{}, {}) on {shard}", key_text(cluster, ns, &page.min), key_text(cluster, ns, &page.max)) }</h3>
            { explanations(cluster.explain_chunk(ns, &page.min)) }
            <p class="doc-count">{ if page.total == 0 {
                "No documents.".to_string()
            } else {
                format!("Documents {}–{} of {}, in the chunk's key order", page.skip.min(page.total) + 1, last, page.total)
            } }</p>
            if !page.rows.is_empty() {
                <div class="doc-table-wrap">
                    <table class="doc-table">
                        <thead><tr>
                            <th scope="col">{ "#" }</th><th scope="col">{ "_id" }</th>
                            <th scope="col">{ "shard key value" }</th>
                            if hashed { <th scope="col">{ "hashed value" }</th> }
                        </tr></thead>
                        <tbody>
                            { for page.rows.iter().enumerate().map(|(i, r)| html! {
                                <tr data-testid="doc-row" data-seq={r.seq.to_string()}
                                    class={classes!((Some(r.seq) == mark).then_some("marked"))}>
                                    <td>{ page.skip + i as u64 + 1 }</td>
                                    <td><code>{ shown(&r.id) }</code></td>
                                    <td><code>{ key_text(cluster, ns, &r.key) }</code></td>
                                    if let Some(v) = &r.hashed_value { <td><code>{ shown(v) }</code></td> }
                                </tr>
                            }) }
                        </tbody>
                    </table>
                </div>
                <div class="pager">
                    <button class="secondary" data-testid="docs-prev" disabled={page.skip == 0}
                        onclick={go(page.skip.saturating_sub(PAGE))}>{ "‹ Previous" }</button>
                    <button class="secondary" data-testid="docs-next" disabled={last >= page.total}
                        onclick={go(page.skip + PAGE)}>{ "Next ›" }</button>
                </div>
            }
        </div>
    }
}

/// The insert form: one document, run as `insertOne` on the collection shown, through the
/// console like a typed command.
#[derive(Properties, PartialEq)]
struct InsertFormProps {
    ns: String,
    example: String,
    dispatch: Callback<Action>,
}

#[function_component(InsertForm)]
fn insert_form(props: &InsertFormProps) -> Html {
    let text = use_state(|| props.example.clone());
    {
        let text = text.clone();
        use_effect_with(props.example.clone(), move |example| {
            text.set(example.clone());
            || ()
        });
    }
    let submit = {
        let (text, ns, dispatch) = (text.clone(), props.ns.clone(), props.dispatch.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if !text.trim().is_empty() {
                dispatch.emit(Action::Command(insert_one_command(&ns, &text)));
            }
        })
    };
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            text.set(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    html! {
        <form class="insert-form" onsubmit={submit}>
            <label for="insert-doc">{ format!("Insert one document into {}", props.ns) }</label>
            <div class="insert-row">
                <input id="insert-doc" data-testid="insert-doc" class="mono" spellcheck="false"
                    value={(*text).clone()} {oninput} />
                <button type="submit" data-testid="insert-button">{ "Insert" }</button>
            </div>
        </form>
    }
}

/// The inspector panel.
#[function_component(Inspector)]
pub fn inspector(props: &super::controls::CalmPanelProps) -> Html {
    let state = &props.state;
    let dispatch = &props.dispatch;
    let ns = state.settings.ns.clone();
    let landed = landing(state);
    let timeline = state.timeline.borrow();
    let cluster = &timeline.session().cluster;
    let Ok(sharding) = cluster.sharding(&ns) else {
        return html! {};
    };
    let example = example_document(&sharding.pattern);
    let subject = state.inspecting();
    let close = dispatch.reform(|_| Action::Inspect(None));
    let body = match subject {
        Some(Inspect::Chunk { key, skip, mark }) => {
            chunk_view(cluster, &ns, key, *skip, *mark, dispatch)
        }
        Some(Inspect::Shard(shard)) => html! {
            <div class="shard-inspector" data-testid="shard-inspector">
                <h3>{ format!("Why {shard} holds what it holds") }</h3>
                { explanations(cluster.explain_shard(&ns, shard)) }
            </div>
        },
        Some(Inspect::Round) => html! {
            <div class="round-inspector" data-testid="round-inspector">
                <h3>{ "What a balancer round would do now" }</h3>
                { explanations(cluster.explain_round(Some(&ns))) }
            </div>
        },
        None => html! {},
    };
    html! {
        <section class="panel inspector" aria-label="Inspector" data-testid="inspector">
            <div class="inspector-head">
                <h2>{ "Inspect" }</h2>
                <p class="hint">{ "Click a chunk or the key-space bar to list documents; “why?” on a shard or the balancer explains it." }</p>
                if subject.is_some() {
                    <button class="link-button" data-testid="inspector-close" onclick={close}>{ "Close" }</button>
                }
            </div>
            <InsertForm ns={ns.clone()} example={example} dispatch={dispatch.clone()} />
            if let Some((seq, l)) = &landed {
                { landing_view(cluster, &ns, *seq, l, dispatch) }
            }
            { body }
        </section>
    }
}
