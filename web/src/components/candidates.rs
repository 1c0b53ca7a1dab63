//! Candidate keys: the collection's documents at the cursor replayed into one cluster per
//! candidate shard key, ranked on the "Choose a Shard Key" page's measures (the engine's
//! `rank`). The user names candidates (one per line) or leaves them to the engine, which
//! proposes them from the documents' fields; the table sorts by any measure in the order
//! the engine ranked them, and each candidate says why it wins or loses.

use super::query::{error_text, use_in_sight, Answer};
use crate::i18n::{Words, K};
use crate::queries::Asker;
use crate::state::{Action, CompareSample};
use shardlab_protocol::{MessageView, RankSpec, RankView, RankedKey, Reply, MAX_COLUMNS};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Properties of [`Candidates`]: what the panel needs, and nothing more.
#[derive(Properties, PartialEq)]
pub struct CandidatesProps {
    /// The page's session.
    pub session: Rc<str>,
    /// The collection shown.
    pub ns: String,
    /// The cursor's step, to say how old a ranking is.
    pub step: u64,
    /// The number of the click on Rank the page's session asked last, if any (the model's
    /// `Playground::ranked`).
    pub asked: Option<u32>,
    /// The engine's latest answer to a ranking asked of this session.
    pub answer: Option<crate::queries::Answer>,
    /// Sends the page's messages: a click on Rank.
    pub dispatch: Callback<Action>,
    /// Called to replay the ranked collection on the Compare tab, a column a key.
    #[prop_or_default]
    pub on_compare: Callback<CompareSample>,
}

/// The panel.
#[function_component(Candidates)]
pub fn candidates(props: &CandidatesProps) -> Html {
    let w = super::lang_switch::use_words();
    let fields = use_fields();
    let order = use_state(String::new);
    // The model asks the ranking a click asked for while the panel is on screen.
    use_in_sight(Asker::Rank, &props.dispatch);
    let on_rank = rank_callback(props, &fields);
    // The answer to the latest click, once it came (an answer names its click's number).
    let shown = props.asked.and_then(|n| {
        let a = props.answer.as_ref()?;
        (a.question.by == n.to_string()).then(|| (n, a.result.clone()))
    });
    let pending = props.asked.is_some() && shown.is_none();
    let body = result(w, shown.as_ref(), props, &order);
    html! {
        <section class="panel candidates" data-testid="candidates" aria-labelledby="candidates-title">
            <div class="insight-head">
                <h2 id="candidates-title">{ w.t(K::CandidatesTitle) }</h2>
                <button class="secondary" data-testid="rank" onclick={on_rank} disabled={pending}>
                    { if pending { w.t(K::CandidatesRanking) } else { w.t(K::CandidatesRank) } }
                </button>
            </div>
            <p class="muted">{ w.tf(K::CandidatesWhat, &[("ns", &props.ns)]) }</p>
            { form(w, &fields) }
            { body }
        </section>
    }
}

/// The query sample picked: its file's name and text, or why it cannot be used.
type QuerySample = Option<Result<(String, Rc<str>), String>>;

/// The form's fields as the user left them.
#[derive(Clone)]
struct Fields {
    /// The candidate keys, one per line.
    keys: UseStateHandle<String>,
    /// The measure to sort by.
    sort_by: UseStateHandle<String>,
    /// The query sample picked.
    queries: UseStateHandle<QuerySample>,
}

/// The form's fields, empty at first.
#[hook]
fn use_fields() -> Fields {
    Fields {
        keys: use_state(String::new),
        sort_by: use_state(String::new),
        queries: use_state(|| None),
    }
}

/// Rank: asks for the candidates in the form (or the engine's own) ranked by their
/// measures; a later click's answer wins (the model's question).
fn rank_callback(props: &CandidatesProps, fields: &Fields) -> Callback<MouseEvent> {
    let Fields {
        keys,
        sort_by,
        queries,
    } = fields.clone();
    let ns = props.ns.clone();
    props.dispatch.reform(move |_: MouseEvent| {
        let spec = RankSpec {
            ns: ns.clone(),
            keys: keys
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect(),
            sort_by: Some(sort_by.trim().to_string()).filter(|s| !s.is_empty()),
            queries: match &*queries {
                Some(Ok((_, text))) => Some(text.to_string()),
                _ => None,
            },
            ..RankSpec::default()
        };
        Action::Rank(spec)
    })
}

/// The form: the candidate keys, the measure to sort by, and the query sample's file.
fn form(w: Words, fields: &Fields) -> Html {
    let Fields {
        keys,
        sort_by,
        queries,
    } = fields;
    let on_keys = {
        let keys = keys.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            keys.set(area.value());
        })
    };
    let on_sort_by = {
        let sort_by = sort_by.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            sort_by.set(input.value());
        })
    };
    html! {
        <div class="candidates-form">
            <label class="candidates-keys">{ w.t(K::CandidatesKeysLabel) }
                <textarea data-testid="rank-keys" rows="3" spellcheck="false" value={(**keys).clone()}
                    placeholder={"{ user_id: 1 }\n{ _id: 'hashed' }"} oninput={on_keys} />
            </label>
            <label class="candidates-sort">{ w.t(K::CandidatesSortByLabel) }
                <input data-testid="rank-sort-by" spellcheck="false" value={(**sort_by).clone()} oninput={on_sort_by} />
            </label>
            <label class="candidates-queries">{ w.t(K::CandidatesQueriesLabel) }
                <input type="file" data-testid="rank-queries" accept=".json,.ndjson,.jsonl,.gz,application/json"
                    onchange={queries_callback(w, queries)} />
                { match &**queries {
                    Some(Ok((name, text))) => html! { <span class="muted" data-testid="rank-queries-file">{ w.tf(K::CandidatesQueriesPicked, &[("file", name), ("bytes", &text.len())]) }</span> },
                    Some(Err(why)) => html! { <span class="error" role="alert" data-testid="rank-queries-error">{ why.clone() }</span> },
                    None => html! { <span class="muted">{ w.t(K::CandidatesQueriesWhat) }</span> },
                } }
            </label>
        </div>
    }
}

/// A query sample file picked: read, and kept with its name (or why it cannot be used).
fn queries_callback(w: Words, queries: &UseStateHandle<QuerySample>) -> Callback<Event> {
    let queries = queries.clone();
    Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return queries.set(None);
        };
        let queries = queries.clone();
        crate::documents::query_sample(
            w,
            file,
            Callback::from(move |read: Result<(String, String), String>| {
                queries.set(Some(read.map(|(name, text)| (name, Rc::from(text)))));
            }),
        );
    })
}

/// The ranking in an answer, or the engine's error; nothing before the first.
fn result(
    w: Words,
    answer: Option<&(u32, Answer)>,
    props: &CandidatesProps,
    order: &UseStateHandle<String>,
) -> Html {
    let (ns, step) = (props.ns.as_str(), props.step);
    let Some((n, answer)) = answer else {
        return Html::default();
    };
    let view = match answer.as_ref() {
        Err(e) => {
            return html! { <p class="error" role="alert" data-testid="rank-error" data-answer={n.to_string()}>{ error_text(e) }</p> }
        }
        Ok(Reply::Rank(view)) => view,
        Ok(_) => return Html::default(),
    };
    if view.ns != ns {
        return Html::default();
    }
    let rows = ordered(view, order);
    let on_compare = {
        let sample = CompareSample {
            session: props.session.to_string(),
            ns: view.ns.clone(),
            documents: view.documents,
            keys: view.candidates.iter().map(|c| c.key.clone()).collect(),
            version: view.version.clone(),
            chunk_size: view.chunk_size_bytes,
        };
        props.on_compare.reform(move |_: MouseEvent| sample.clone())
    };
    let columns = view.candidates.len().min(MAX_COLUMNS);
    html! {
        <div class="ranking" data-testid="ranking" data-answer={n.to_string()}>
            <p class="muted" data-testid="rank-for">
                { w.tf(K::CandidatesFor, &[
                    ("docs", &view.documents), ("ns", &view.ns), ("step", &view.position),
                    ("shards", &view.shards), ("version", &view.version),
                    ("chunk", &chunk_size(view.chunk_size_bytes)),
                ]) }
                if view.position != step {
                    <strong>{ " " }{ w.tf(K::InsightsTheClusterIsNowAt, &[("step", &step)]) }</strong>
                }
            </p>
            { view.queries.as_ref().map(|q| sample_line(w, q)).unwrap_or_default() }
            { order_select(w, view, order) }
            { table(w, &rows, view.queries.is_some()) }
            <ol class="ranking-reasons">{ for rows.iter().map(|c| reasons(w, c)) }</ol>
            if columns >= 2 {
                <p class="ranking-compare">
                    <button class="secondary" data-testid="rank-compare" onclick={on_compare}>
                        { w.tf(K::CandidatesReplayOnCompare, &[("n", &columns)]) }
                    </button>
                    <span class="muted">{ w.tf(K::CandidatesReplayOnCompareWhat, &[("docs", &view.documents), ("ns", &view.ns)]) }</span>
                </p>
            }
        </div>
    }
}

/// The order the table goes in: the engine's overall ranking, or its order for one
/// measure.
fn order_select(w: Words, view: &RankView, order: &UseStateHandle<String>) -> Html {
    let on_order = {
        let order = order.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            order.set(select.value());
        })
    };
    html! {
        <label class="candidates-order">{ w.t(K::CandidatesOrderLabel) }
            <select data-testid="rank-order" onchange={on_order}>
                <option value="" selected={order.is_empty()}>{ w.t(K::CandidatesOverall) }</option>
                { for view.orders.iter().map(|o| html! {
                    <option value={o.measure.clone()} selected={**order == o.measure}>{ measure_name(w, &o.measure) }</option>
                }) }
            </select>
        </label>
    }
}

/// The ranking's table, a row a candidate in `rows`' order, with the reads and writes
/// when a query sample was `sampled`.
fn table(w: Words, rows: &[&RankedKey], sampled: bool) -> Html {
    html! {
        <div class="table-scroll">
            <table class="ranking-table">
                <thead><tr>
                    <th>{ "#" }</th><th>{ w.t(K::CandidatesKey) }</th><th>{ w.t(K::CandidatesDistinct) }</th>
                    <th>{ w.t(K::CandidatesMostCommon) }</th><th>{ w.t(K::CandidatesMonotonic) }</th>
                    <th>{ w.t(K::CandidatesChunks) }</th><th>{ w.t(K::CandidatesRecent) }</th>
                    <th>{ w.t(K::CandidatesFullest) }</th><th>{ w.t(K::CandidatesRefused) }</th>
                    if sampled {
                        <th>{ w.t(K::CandidatesReads) }</th><th>{ w.t(K::CandidatesWrites) }</th>
                    }
                </tr></thead>
                <tbody>{ for rows.iter().map(|c| row(w, c, sampled)) }</tbody>
            </table>
        </div>
    }
}

/// The candidates in the order chosen: the engine's overall ranking, or its order for one
/// measure.
fn ordered<'a>(view: &'a RankView, order: &str) -> Vec<&'a RankedKey> {
    let Some(keys) = view.orders.iter().find(|o| o.measure == order) else {
        return view.candidates.iter().collect();
    };
    keys.keys
        .iter()
        .filter_map(|k| view.candidates.iter().find(|c| c.key == *k))
        .collect()
}

/// A share (0 to 1) as a percentage: whole above 10%, one decimal below, and a share too
/// small to show one as under a tenth.
fn pct(share: f64) -> String {
    let p = share * 100.0;
    if p > 0.0 && p < 0.1 {
        "<0.1%".to_string()
    } else if p < 10.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// A chunk size as MongoDB's settings name it: whole MB, else KiB.
fn chunk_size(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MB", bytes >> 20)
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

/// What the ranking read of the query sample, and the first lines it could not.
fn sample_line(w: Words, q: &shardlab_protocol::RankQueries) -> Html {
    let lines: Vec<String> = q
        .failures
        .iter()
        .take(3)
        .map(|f| w.tf(K::FailuresLine, &[("line", &f.line), ("reason", &f.reason)]))
        .collect();
    html! {
        <p class="muted" data-testid="rank-queries-read" data-reads={q.reads.to_string()} data-writes={q.writes.to_string()}>
            { w.tf(K::CandidatesQueriesRead, &[("reads", &q.reads), ("writes", &q.writes), ("failed", &q.failed)]) }
            if !lines.is_empty() {
                { " " }{ lines.join("; ") }
            }
        </p>
    }
}

/// A distribution's single-shard and scatter-gather shares (percentages), or a dash.
fn shares(w: Words, single: Option<f64>, scatter: Option<f64>) -> String {
    match (single, scatter) {
        (Some(one), Some(all)) => w.tf(
            K::CandidatesShares,
            &[("one", &pct(one / 100.0)), ("all", &pct(all / 100.0))],
        ),
        _ => "—".to_string(),
    }
}

/// One candidate's figures; with a query sample, its reads' and writes' targeting.
fn row(w: Words, c: &RankedKey, sampled: bool) -> Html {
    let f = &c.figures;
    let dash = || "—".to_string();
    let distinct = f.distinct.map_or_else(dash, |d| d.to_string());
    let common = match (&f.most_common_value, f.most_common_share) {
        (Some(v), Some(s)) => format!("{v} ({})", pct(s)),
        _ => dash(),
    };
    let chunks = if f.jumbo > 0 {
        w.tf(
            K::CandidatesChunksJumbo,
            &[("chunks", &f.chunks), ("jumbo", &f.jumbo)],
        )
    } else {
        f.chunks.to_string()
    };
    html! {
        <tr data-testid="rank-row" data-key={c.key.clone()} data-place={c.place.to_string()}>
            <td>{ c.place }</td>
            <td><code>{ c.key.clone() }</code></td>
            <td>{ distinct }</td>
            <td>{ common }</td>
            <td>{ monotonic_word(w, &f.monotonic) }</td>
            <td>{ chunks }</td>
            <td>{ format!("{} {}", f.hottest_recent_shard, pct(f.hottest_recent_share)) }</td>
            <td>{ format!("{} {}", f.fullest_shard, pct(f.fullest_share)) }</td>
            <td>{ f.refused }</td>
            if sampled {
                <td data-testid="rank-reads">{ f.read_distribution.as_ref().map_or_else(|| "—".to_string(), |r| shares(w, r.percentage_of_single_shard_reads, r.percentage_of_scatter_gather_reads)) }</td>
                <td data-testid="rank-writes">{ f.write_distribution.as_ref().map_or_else(|| "—".to_string(), |d| shares(w, d.percentage_of_single_shard_writes, d.percentage_of_scatter_gather_writes)) }</td>
            }
        </tr>
    }
}

/// A sentence of the engine's, in the page's language where the catalogue has it.
fn sentence(
    w: Words,
    id: &str,
    args: &[(String, shardlab_protocol::ArgView)],
    english: &str,
) -> String {
    let m = MessageView {
        id: id.to_string(),
        args: args.to_vec(),
    };
    w.messages(std::slice::from_ref(&m))
        .unwrap_or_else(|| english.to_string())
}

/// Why a candidate wins or loses, measure by measure.
fn reasons(w: Words, c: &RankedKey) -> Html {
    html! {
        <li data-testid="rank-reasons" data-key={c.key.clone()}>
            <code>{ c.key.clone() }</code>
            <span class="muted">{ " " }{ sentence(w, &c.why.id, &c.why.args, &c.why.message) }</span>
            <ul>
                { for c.reasons.iter().map(|r| {
                    let mark = match r.verdict.as_str() { "wins" => "✓", "loses" => "✗", _ => "·" };
                    html! {
                        <li class={classes!("reason", r.verdict.clone())} data-measure={r.measure.clone()} data-verdict={r.verdict.clone()}>
                            <span class="mark" aria-hidden="true">{ mark }</span>
                            { sentence(w, &r.id, &r.args, &r.message) }
                        </li>
                    }
                }) }
            </ul>
        </li>
    }
}

/// analyzeShardKey's monotonicity in the page's language.
fn monotonic_word(w: Words, word: &str) -> String {
    match word {
        "monotonic" => w.t(K::CandidatesIsMonotonic).to_string(),
        "not monotonic" => w.t(K::CandidatesNotMonotonic).to_string(),
        "unknown" => w.t(K::CandidatesUnknown).to_string(),
        other => other.to_string(),
    }
}

/// A measure's name in the page's language.
fn measure_name(w: Words, measure: &str) -> String {
    let key = match measure {
        "refused" => K::CandidatesMeasureRefused,
        "cardinality" => K::CandidatesMeasureCardinality,
        "frequency" => K::CandidatesMeasureFrequency,
        "monotonicChange" => K::CandidatesMeasureMonotonic,
        "recentInserts" => K::CandidatesMeasureRecent,
        "dataSpread" => K::CandidatesMeasureSpread,
        "jumbo" => K::CandidatesMeasureJumbo,
        "queryIsolation" => K::CandidatesMeasureIsolation,
        "readDistribution" => K::CandidatesMeasureReads,
        "writeDistribution" => K::CandidatesMeasureWrites,
        other => return other.to_string(),
    };
    w.t(key).to_string()
}
