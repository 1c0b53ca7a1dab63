//! The inspector: where the document just inserted landed (with an insert form that makes
//! one), a chunk's documents a page at a time with their hashes, and why the cluster
//! decided what it did about a chunk, a shard or a balancer round.
//!
//! Everything it shows is the engine's answer to `Call::Inspect` about the subject
//! (`Playground::inspecting` keeps only the subject), asked again whenever the subject,
//! the collection shown or the timeline's calm revision changes; the sentences and rules
//! are the engine's, and so is the insert form's command (`Call::InsertCommand`).

use super::query::{error_text, use_in_sight};
use super::reveal::use_reveal;
use crate::ask;
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::state::Action;
use shardlab_protocol::{
    Call, ChunkDocsView, ExplanationView, Inspecting, Inspection, LandingView, Reply,
    CHUNK_PAGE_ROWS,
};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Documents a page of the chunk inspector lists (the engine's page).
pub const PAGE: u64 = CHUNK_PAGE_ROWS as u64;

/// Properties of [`Inspector`]: what it shows, and the engine's latest answer about it
/// (the model asks again at the timeline's calm revision, which a click on a chunk moves
/// at once, not on every tick of a workload: `crate::queries`).
#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    /// The engine session shown.
    pub session: Rc<str>,
    /// The engine's latest answer about the subject.
    pub answer: Option<Answer>,
    /// The collection shown.
    pub ns: AttrValue,
    /// What is inspected, if anything (of the collection shown).
    pub subject: Option<Inspecting>,
    /// Whether the collection shown is sharded (else there is nothing to inspect).
    pub sharded: bool,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// One explanation: its rule, its sentence and its figures.
fn explanation(w: Words, e: &ExplanationView) -> Html {
    html! {
        <li class="explanation" data-testid="explanation" data-topic={e.topic.clone()} data-rule={e.rule.clone()}>
            <span class="rule">{ e.rule_message.as_ref().and_then(|m| w.messages(std::slice::from_ref(m))).unwrap_or_else(|| e.rule.clone()) }</span>
            <p class="why">{ w.messages(&e.messages).unwrap_or_else(|| e.sentence.clone()) }</p>
            if !e.facts.is_empty() {
                <dl class="facts">
                    { for e.facts.iter().map(|(name, value)| html! {
                        <><dt>{ name.clone() }</dt><dd><code>{ value.clone() }</code></dd></>
                    }) }
                </dl>
            }
        </li>
    }
}

/// A list of explanations, or the error that stopped them, in MongoDB's words.
fn explanations(w: Words, list: &Result<Vec<ExplanationView>, String>) -> Html {
    match list {
        Ok(list) => {
            html! { <ul class="explanations">{ for list.iter().map(|e| explanation(w, e)) }</ul> }
        }
        Err(e) => html! { <p class="error">{ e.clone() }</p> },
    }
}

/// The path of the document just inserted: key value, hash, chunk, shard, and why.
fn landing_view(w: Words, l: &LandingView, dispatch: &Callback<Action>) -> Html {
    let open = {
        let (key, seq) = (l.key_handle.clone(), l.seq);
        dispatch.reform(move |_| {
            Action::Inspect(Some(Inspecting::Chunk {
                key: key.clone(),
                skip: None,
                mark: Some(seq),
            }))
        })
    };
    html! {
        <div class="landing" data-testid="landing" data-shard={l.shard.clone()}>
            <h3>{ w.t(K::InspectorWhereDidItLand) }</h3>
            <ol class="path">
                <li data-testid="landing-key"><span class="step-name">{ w.t(K::InspectorShardKeyValue) }</span>
                    <code>{ l.key.clone() }</code></li>
                if let Some((field, value, printed, hash)) = &l.hashed {
                    <li data-testid="landing-hash" data-hash={hash.to_string()}>
                        <span class="step-name">{ w.tf(K::InspectorHashOfField, &[("field", &field)]) }</span>
                        <code>{ format!("{value} → {printed}") }</code></li>
                }
                <li data-testid="landing-chunk"><span class="step-name">{ w.t(K::InspectorChunk) }</span>
                    <code>{ format!("[{}, {})", l.chunk.0, l.chunk.1) }</code></li>
                <li data-testid="landing-shard"><span class="step-name">{ w.t(K::InspectorShard) }</span>
                    <strong>{ l.shard.clone() }</strong></li>
            </ol>
            <p class="why" data-testid="landing-why">{ w.messages(&l.why_messages).unwrap_or_else(|| l.why.clone()) }</p>
            <button class="secondary" data-testid="landing-open" onclick={open}>{ w.t(K::InspectorShowItInItsChunk) }</button>
        </div>
    }
}

/// A page of the chunk's documents, the marked one (`mark`) highlighted.
fn doc_table(w: Words, page: &ChunkDocsView, mark: Option<u64>) -> Html {
    html! {
        <div class="doc-table-wrap">
            <table class="doc-table">
                <thead><tr>
                    <th scope="col">{ "#" }</th><th scope="col">{ "_id" }</th>
                    <th scope="col">{ w.t(K::InspectorShardKeyValue) }</th>
                    if page.hashed { <th scope="col">{ w.t(K::InspectorHashedValue) }</th> }
                </tr></thead>
                <tbody>
                    { for page.rows.iter().enumerate().map(|(i, r)| html! {
                        <tr data-testid="doc-row" data-seq={r.seq.to_string()}
                            class={classes!((Some(r.seq) == mark).then_some("marked"))}>
                            <td>{ page.skip + i as u64 + 1 }</td>
                            <td><code>{ r.id.clone() }</code></td>
                            <td><code>{ r.key.clone() }</code></td>
                            if let Some(v) = &r.hashed { <td><code>{ v.clone() }</code></td> }
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// A chunk's documents from the engine's page (which starts at `skip`, or at the page
/// holding the document marked), with the chunk's explanations.
fn chunk_view(w: Words, page: &ChunkDocsView, dispatch: &Callback<Action>) -> Html {
    // Paging keeps the mark: the engine's, whether asked for or found by a tick.
    let mark = page.mark;
    let go = |to: u64| {
        let key = page.key.clone();
        dispatch.reform(move |_| {
            Action::Inspect(Some(Inspecting::Chunk {
                key: key.clone(),
                skip: Some(to),
                mark,
            }))
        })
    };
    let last = (page.skip + page.rows.len() as u64).min(page.total);
    html! {
        <div class="chunk-inspector" data-testid="chunk-inspector" data-min={page.min.clone()}
            data-total={page.total.to_string()} data-shard={page.shard.clone()}>
            <h3>{ w.tf(K::InspectorChunkMinMaxOnShard, &[("min", &page.min), ("max", &page.max), ("shard", &page.shard)]) }</h3>
            { explanations(w, &page.explanations) }
            <p class="doc-count">{ if page.total == 0 {
                w.t(K::InspectorNoDocuments).to_string()
            } else {
                w.tf(K::InspectorDocumentsNLastOfTotal, &[("n", &(page.skip.min(page.total) + 1)), ("last", &last), ("total", &page.total)])
            } }</p>
            if !page.rows.is_empty() {
                { doc_table(w, page, mark) }
                <div class="pager">
                    <button class="secondary" data-testid="docs-prev" disabled={page.skip == 0}
                        onclick={go(page.skip.saturating_sub(PAGE))}>{ w.t(K::InspectorPrevious) }</button>
                    <button class="secondary" data-testid="docs-next" disabled={last >= page.total}
                        onclick={go(page.skip + PAGE)}>{ w.t(K::InspectorNext) }</button>
                </div>
            }
        </div>
    }
}

/// Properties of the insert form.
#[derive(Properties, PartialEq)]
struct InsertFormProps {
    /// The engine's session, which writes the command.
    session: Rc<str>,
    /// The collection shown.
    ns: String,
    /// The document the form starts from (the engine's example for the key).
    example: String,
    /// Dispatches the command.
    dispatch: Callback<Action>,
}

/// The insert form: one document, run as `insertOne` on the collection shown, through the
/// console like a typed command. The command's text is the engine's (`Call::InsertCommand`),
/// the same the console and a shared link have always shown for the form.
#[function_component(InsertForm)]
fn insert_form(props: &InsertFormProps) -> Html {
    let w = super::lang_switch::use_words();
    let text = use_state(|| props.example.clone());
    let error = use_state(|| None::<String>);
    {
        // A new key brings a new example; what the user typed gives way to it.
        let text = text.clone();
        use_effect_with(props.example.clone(), move |example| {
            text.set(example.clone());
            || ()
        });
    }
    let submit = {
        let (text, error) = (text.clone(), error.clone());
        let (session, ns, dispatch) = (
            props.session.clone(),
            props.ns.clone(),
            props.dispatch.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if text.trim().is_empty() {
                return;
            }
            let (error, dispatch) = (error.clone(), dispatch.clone());
            let call = Call::InsertCommand {
                ns: ns.clone(),
                doc: (*text).clone(),
            };
            ask::ask(&session, call, move |answer| match answer {
                Ok(Reply::InsertCommand { text }) => {
                    error.set(None);
                    dispatch.emit(Action::Command(text));
                }
                Ok(_) => {}
                Err(e) => error.set(Some(error_text(&e))),
            });
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
            <label for="insert-doc">{ w.tf(K::InspectorInsertOneDocumentIntoNs, &[("ns", &props.ns)]) }</label>
            <div class="insert-row">
                <input id="insert-doc" data-testid="insert-doc" class="mono" spellcheck="false"
                    value={(*text).clone()} {oninput} />
                <button type="submit" data-testid="insert-button">{ w.t(K::InspectorInsert) }</button>
            </div>
            if let Some(e) = &*error {
                <p class="error">{ e.clone() }</p>
            }
        </form>
    }
}

/// What the inspector shows about its subject, from the engine's answer.
fn subject_view(
    w: Words,
    subject: Option<&Inspecting>,
    found: &Inspection,
    dispatch: &Callback<Action>,
) -> Html {
    let listed = |testid: &'static str, class: &'static str, title: String| {
        let list = found.explanations.as_ref().map(|l| explanations(w, l));
        html! {
            <div class={class} data-testid={testid}>
                <h3>{ title }</h3>
                { list.unwrap_or_default() }
            </div>
        }
    };
    match subject {
        Some(Inspecting::Chunk { .. } | Inspecting::At { .. }) => match &found.chunk {
            Some(Ok(page)) => chunk_view(w, page, dispatch),
            Some(Err(e)) => html! { <p class="error">{ e.clone() }</p> },
            None => Html::default(),
        },
        Some(Inspecting::Shard { shard }) => listed(
            "shard-inspector",
            "shard-inspector",
            w.tf(K::InspectorWhyShardHoldsWhatIt, &[("shard", &shard)]),
        ),
        Some(Inspecting::Round) => listed(
            "round-inspector",
            "round-inspector",
            w.t(K::InspectorWhatABalancerRoundWould).to_string(),
        ),
        Some(Inspecting::Nothing) | None => Html::default(),
    }
}

/// The subject an answer was asked about (`None` for the insert form alone).
fn asked_about(answer: &Answer) -> Option<Inspecting> {
    match &answer.question.call {
        Call::Inspect { subject, .. } if *subject != Inspecting::Nothing => Some(subject.clone()),
        _ => None,
    }
}

/// The inspector panel.
#[function_component(Inspector)]
pub fn inspector(props: &InspectorProps) -> Html {
    let w = super::lang_switch::use_words();
    let dispatch = &props.dispatch;
    let ns = props.ns.to_string();
    let subject = props.subject.clone();
    use_in_sight(Asker::Inspector, dispatch);
    // An unsharded collection has no chunks to inspect and no key to insert by: nothing is
    // asked (`crate::queries::wanted`).
    let sharded = props.sharded;
    // The answer on show is drawn as what it was asked about: until the answer about a new
    // subject arrives, the previous subject stays.
    let answer = props
        .answer
        .as_ref()
        .map(|a| (asked_about(a), a.result.clone()));
    let answer_ref = use_node_ref();
    let asked = subject.clone();
    let shown_now = answer.as_ref().and_then(|(asked, _)| asked.clone());
    use_reveal(asked, shown_now, answer_ref.clone());
    // The form keeps the last example the engine gave, so that an error about the subject
    // (a chunk gone after a step back) does not take the form away.
    let example = use_mut_ref(String::new);
    // The slot keeps the `extras-inspector` name the page's tests and stylesheet know it by.
    let slot = |inner: Html| {
        html! { <div class="extras-slot extras-inspector" data-testid="extras-inspector">{ inner }</div> }
    };
    if !sharded {
        return slot(Html::default());
    }
    let (shown, answer) = answer.map_or((None, None), |(asked, a)| (asked, Some(a)));
    let (found, error) = match answer.as_deref() {
        Some(Ok(Reply::Inspect(found))) => (Some(found.as_ref()), None),
        Some(Err(e)) => (None, Some(error_text(e))),
        Some(Ok(_)) | None => (None, None),
    };
    if let Some(found) = found {
        if *example.borrow() != found.example {
            *example.borrow_mut() = found.example.clone();
        }
    }
    let example = example.borrow().clone();
    let close = dispatch.reform(|_| Action::Inspect(None));
    slot(html! {
        <section class={classes!("panel", "inspector", subject.is_some().then_some("sheet"))} aria-label={w.t(K::InspectorInspector)} data-testid="inspector">
            <div class="inspector-head">
                <h2>{ w.t(K::InspectorInspect) }</h2>
                <p class="hint">{ w.t(K::InspectorClickAChunkOrThe) }</p>
                if subject.is_some() {
                    <button class="link-button" data-testid="inspector-close" onclick={close}>{ w.t(K::InspectorClose) }</button>
                }
            </div>
            if found.is_some() || !example.is_empty() {
                <InsertForm session={props.session.clone()} ns={ns.clone()} example={example} dispatch={dispatch.clone()} />
            }
            // What a click asked for: brought into view, focused and announced.
            <div class="inspector-answer" ref={answer_ref} tabindex="-1" aria-live="polite"
                data-testid="inspector-answer" aria-label={w.t(K::InspectorInspectorSAnswer)}>
                // What was clicked first, then where the latest insert landed.
                if let Some(found) = found {
                    { subject_view(w, shown.as_ref(), found, dispatch) }
                    if let Some(l) = &found.landing {
                        { landing_view(w, l, dispatch) }
                    }
                }
                if let Some(e) = error {
                    <p class="error">{ e }</p>
                }
            </div>
        </section>
    })
}
