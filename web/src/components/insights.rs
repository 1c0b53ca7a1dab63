//! Insights: analyzeShardKey's verdict on the current key, and charts over time.
//!
//! Both are the engine's (`Call::Insights`): the charts' series are asked for whenever the
//! cursor, the session or the collection shown changes (as the page hands them over, at
//! the panel's calm revision); the report (`analyze: true`)
//! only when the user asks ("Analyze this key"), and it says the collection, key and step
//! it was made at, so that it says how old it is.

use super::query::{error_text, use_in_sight, Answer};
use super::term::Term;
use crate::i18n::{Words, K};
use crate::palette::{shard_colour, shard_style};
use shardlab_protocol::{Analysis, InsightsView, Position, Reply, StepPoint};
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`Insights`]: the collection, its key and the cursor the charts and the
/// report are about. The page hands the panel these as they were at its calm revision
/// (see `Playground::calm_rev`), so a workload playing fast does not redraw it every tick.
#[derive(Properties, Clone, PartialEq)]
pub struct InsightsProps {
    /// The engine session asked.
    pub session: Rc<str>,
    /// The collection shown.
    pub ns: AttrValue,
    /// Its shard key: the picture's once it is sharded, else the settings form's.
    pub key: AttrValue,
    /// The cursor.
    pub at: Position,
    /// The engine's latest charts (asked only while the panel is in sight).
    pub charts: Option<crate::queries::Answer>,
    /// The report last asked for: the session, the collection and the click's number.
    pub asked: Option<ReportKey>,
    /// The engine's answer to it.
    pub report: Option<crate::queries::Answer>,
    /// Dispatches an action.
    pub dispatch: Callback<crate::state::Action>,
}

/// The chart's width and height, in SVG units.
const CHART: (f64, f64) = (320.0, 110.0);
/// Steps the inserts chart shows.
const RECENT: u64 = 60;

/// What a report was asked for: the session, the collection, and the number of the click
/// (so that "Analyze again" at the same step asks anew). The answer itself says the key
/// and the step it was made at.
pub type ReportKey = (Rc<str>, String, u32);

/// The insights view in an answer, if it is one, or the engine's error.
fn view_of(answer: &Answer) -> Option<Result<&InsightsView, String>> {
    match answer.as_ref() {
        Ok(Reply::Insights(view)) => Some(Ok(view)),
        Ok(_) => None,
        Err(e) => Some(Err(error_text(e))),
    }
}

/// A stacked bar of single-shard, multi-shard and scatter-gather shares.
fn distribution(w: Words, title: &str, [single, multi, scatter]: [f64; 3]) -> Html {
    html! {
        <div class="dist">
            <span class="dist-title">{ title }</span>
            <div class="stack" role="img" aria-label={w.tf(K::InsightsTitleSingleSingleShardMulti, &[("title", &title), ("single", &format!("{:.0}", single)), ("multi", &format!("{:.0}", multi)), ("scatter", &format!("{:.0}", scatter))])}>
                <div class="seg single" style={format!("width: {single}%")}></div>
                <div class="seg multi" style={format!("width: {multi}%")}></div>
                <div class="seg scatter" style={format!("width: {scatter}%")}></div>
            </div>
            <span class="dist-legend">{ w.tf(K::InsightsSingleSingleMultiMultiScatter, &[("single", &format!("{:.0}", single)), ("multi", &format!("{:.0}", multi)), ("scatter", &format!("{:.0}", scatter))]) }</span>
        </div>
    }
}

/// The series' last step (the number of steps charted), at least 1.
fn last_step(points: &[StepPoint]) -> u64 {
    points.last().map_or(1, |p| p.step.max(1))
}

/// Lines of documents per shard over the steps, as an SVG.
fn docs_chart(w: Words, view: &InsightsView) -> Html {
    let points = &view.docs;
    let steps = points.last().map_or(0, |p| p.step);
    let max = points
        .iter()
        .flat_map(|p| p.per_shard.iter())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (cw, h) = CHART;
    // The engine thins the series to about one point per chart unit; each point sits at
    // its own step's x.
    let span = (steps.max(2) - 1) as f64;
    let line = |i: usize, index: u32| {
        let coords: Vec<String> = points
            .iter()
            .map(|p| {
                let y = p.per_shard.get(i).copied().unwrap_or(0) as f64;
                let x = p.step.saturating_sub(1) as f64;
                format!("{:.1},{:.1}", x / span * cw, h - 4.0 - y / max * (h - 8.0))
            })
            .collect();
        html! { <polyline class="line" style={format!("stroke: {}", shard_colour(index))} points={coords.join(" ")} /> }
    };
    html! {
        // The step the series were computed at, so that a reader can wait for a given one.
        <figure class="chart" data-testid="docs-chart" data-drawn-at={view.step.to_string()}>
            { axis_labels(&w.count(max as u64, "doc"), w.t(K::HeatmapStep1), &w.tf(K::InsightsStepN, &[("n", &(last_step(points)))])) }
            <svg viewBox={format!("0 0 {cw} {h}")} role="img" aria-label={w.tf(K::InsightsDocumentsPerShardOverSteps, &[("steps", &steps), ("n", &(max as u64))])}>
                { for view.shards.iter().enumerate().map(|(i, (_, index))| line(i, *index)) }
            </svg>
            { legend(view) }
            <figcaption>{ w.t(K::InsightsDocumentsPerShardVerticalAt) }</figcaption>
        </figure>
    }
}

/// Stacked bars of inserts per shard per step, for the last 60 steps.
fn inserts_chart(w: Words, view: &InsightsView) -> Html {
    let points = &view.inserts;
    let steps = points.last().map_or(0, |p| p.step);
    let start = steps.saturating_sub(RECENT);
    let max = points
        .iter()
        .map(|p| p.per_shard.iter().sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (cw, h) = CHART;
    let bar = cw / RECENT as f64;
    // Each bar sits at its step's own x and the group slides left, so a new step adds one
    // bar instead of moving all sixty.
    let shift = format!("translate({:.1} 0)", -(start as f64) * bar);
    let column = |p: &StepPoint| {
        let x = format!("{:.1}", p.step.saturating_sub(1) as f64 * bar);
        let mut y = h;
        let rects = view.shards.iter().zip(&p.per_shard).map(|((_, index), n)| {
            let height = *n as f64 / max * (h - 4.0);
            y -= height;
            html! { <rect style={format!("fill: {}", shard_colour(*index))} x={x.clone()} y={format!("{y:.1}")}
            width={format!("{:.1}", (bar - 1.0).max(0.5))} height={format!("{height:.1}")} /> }
        });
        html! { <g key={p.step}>{ for rects }</g> }
    };
    html! {
        <figure class="chart" data-testid="inserts-chart" data-drawn-at={view.step.to_string()}>
            { axis_labels(&w.count(max as u64, "insert"), &w.tf(K::InsightsStepN, &[("n", &(start + 1))]), &w.tf(K::InsightsStepN, &[("n", &steps.max(1))])) }
            <svg viewBox={format!("0 0 {cw} {h}")} role="img" aria-label={w.tf(K::InsightsInsertsPerShardInEach, &[("n", &(start + 1)), ("steps", &steps), ("n2", &(max as u64))])}>
                <g transform={shift}>{ for points.iter().map(column) }</g>
            </svg>
            { legend(view) }
            <figcaption>{ w.t(K::InsightsInsertsPerShardVerticalStacked) }</figcaption>
        </figure>
    }
}

/// The insights panel.
#[function_component(Insights)]
pub fn insights(props: &InsightsProps) -> Html {
    let w = super::lang_switch::use_words();
    let session = &props.session;
    let ns = props.ns.to_string();
    let key = props.key.to_string();
    let step = props.at.position;
    // Every command is a step, so the charts change only with the cursor (or the session,
    // or the collection shown); out of sight they are not asked for.
    use_in_sight(crate::queries::Asker::Charts, &props.dispatch);
    let charts: Option<Answer> = props.charts.as_ref().map(|a| a.result.clone());
    // The report is asked for once per click, for the collection shown then (the model's
    // question: a report asked in an earlier session is not asked again of this one).
    use_in_sight(crate::queries::Asker::Report, &props.dispatch);
    let report: Option<Answer> = props.report.as_ref().map(|a| a.result.clone());
    let on_analyze = props
        .dispatch
        .reform(|_: MouseEvent| crate::state::Action::Analyze);
    let current = current_report(report, props.asked.as_ref(), session, &ns, &key);
    let again = current
        .as_ref()
        .and_then(view_of)
        .is_some_and(|v| matches!(v, Ok(v) if v.step != step));
    let body = report_body(w, current.as_ref(), &ns, &key, step);
    let over_time = over_time(w, charts.as_ref());
    html! {
        <section class="panel insights" aria-label={w.t(K::InsightsInsights)}>
            <div class="insight analyze" data-testid="analyze-panel">
                <div class="insight-head">
                    <h2>{ "analyzeShardKey" }</h2>
                    <button class="secondary" data-testid="analyze" onclick={on_analyze}>
                        { if again { w.t(K::InsightsAnalyzeAgain) } else { w.t(K::InsightsAnalyzeThisKey) } }
                    </button>
                </div>
                { body }
            </div>
            <div class="insight">
                <h2>{ w.t(K::InsightsOverTime) }</h2>
                { over_time }
            </div>
        </section>
    }
}

/// The report worth showing, if any. A report on another session, collection or key says
/// nothing about this one: it is dropped. (An answer shown is for this session: a new
/// session starts a new page state, and `asked` of an earlier session asks nothing.)
fn current_report(
    report: Option<Answer>,
    asked: Option<&ReportKey>,
    session: &Rc<str>,
    ns: &str,
    key: &str,
) -> Option<Answer> {
    report
        .filter(|_| asked.is_some_and(|a| a.0 == *session && a.1 == ns))
        .and_then(|a| {
            let keep = matches!(view_of(&a), Some(Ok(v)) if v.ns == ns && (v.key == key || key.is_empty()));
            let failed = matches!(view_of(&a), Some(Err(_)));
            (keep || failed).then_some(a)
        })
}

/// The "Over time" charts, or the engine's error; nothing until the first answer.
fn over_time(w: Words, charts: Option<&Answer>) -> Html {
    match charts.and_then(view_of) {
        None => Html::default(),
        Some(Err(e)) => html! { <p class="error">{ e }</p> },
        Some(Ok(v)) => html! { <>{ docs_chart(w, v) }{ inserts_chart(w, v) }</> },
    }
}

/// The report part of the panel: what the report measures until one is asked for, then
/// the report with the step it was made at (and the cursor's step when it has moved on).
fn report_body(w: Words, current: Option<&Answer>, ns: &str, key: &str, step: u64) -> Html {
    let Some(found) = current.and_then(view_of) else {
        return html! { <p class="muted">{ w.tf(K::InsightsMeasuresKeyOnNs, &[("key", &key), ("ns", &ns)]) }</p> };
    };
    let v = match found {
        Ok(v) => v,
        Err(e) => return html! { <p class="error">{ e }</p> },
    };
    html! {
        <>
        <p class="muted report-for" data-testid="analyze-for">
            { w.tf(K::InsightsNsOnKeyAtStep, &[("ns", &v.ns), ("key", &v.key), ("step", &v.step)]) }
            if v.step != step {
                <strong>{ w.tf(K::InsightsTheClusterIsNowAt, &[("step", &step)]) }</strong>
            }
        </p>
        { match &v.report {
            None => Html::default(),
            Some(Err(e)) => html! { <p class="error">{ e.clone() }</p> },
            Some(Ok(a)) => report_view(w, a),
        } }
        </>
    }
}

/// A figure of the report by name (`numDocsTotal`, `monotonicity`, ...), as the engine
/// printed it; empty when the report has none.
fn figure(a: &Analysis, name: &str) -> String {
    a.characteristics
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

/// analyzeShardKey's report: the key's characteristics, its most common values, and the
/// read and write distributions when MongoDB measured them.
fn report_view(w: Words, a: &Analysis) -> Html {
    let mono = figure(a, "monotonicity");
    let r = figure(a, "recordIdCorrelationCoefficient");
    let mcv = a.most_common.iter().map(|(value, freq)| {
        html! { <li><code>{ value.clone() }</code><span class="freq">{ format!("× {freq}") }</span></li> }
    });
    html! {
        <div class="report" data-testid="analyze-report">
            <dl>
                <dt>{ w.t(K::InsightsDocuments) }</dt><dd>{ figure(a, "numDocsTotal") }</dd>
                <dt>{ w.t(K::InsightsDistinctValues) }</dt><dd data-testid="cardinality">{ figure(a, "numDistinctValues") }</dd>
                <dt>{ w.t(K::InsightsMonotonicity) }</dt>
                <dd data-testid="monotonicity" class={classes!((mono == "monotonic").then_some("warn"))}>
                    { format!("{mono} (r = {r})") }
                </dd>
                <dt>{ w.t(K::InsightsAvgDocSize) }</dt><dd>{ format!("{} B", figure(a, "avgDocSizeBytes")) }</dd>
            </dl>
            if let Some(note) = &a.note {
                <p class="muted analyze-note" data-testid="analyze-note">
                    // ShardLab's sentences in the page's language, MongoDB's error as it
                    // prints it.
                    { w.messages(a.note_words.as_slice()).unwrap_or_else(|| note.clone()) }{ w.t(K::InsightsSee) }<Term id="analyze-ranges" label={w.t(K::InsightsAnalyzeshardkeyS100Ranges)} />{ w.t(K::InsightsInTheGlossary) }
                </p>
            }
            <h3>{ w.t(K::InsightsMostCommonValues) }</h3>
            <ol class="mcv">{ for mcv }</ol>
            if let (Some(reads), Some(writes)) = (a.reads, a.writes) {
                { distribution(w, w.t(K::InsightsReads), reads) }
                { distribution(w, w.t(K::InsightsWrites), writes) }
            }
        </div>
    }
}

/// A chart's axis labels: the vertical axis's top value with its unit (it starts at 0),
/// and the horizontal axis's first and last steps.
fn axis_labels(top: &str, first: &str, last: &str) -> Html {
    html! {
        <div class="axes" aria-hidden="true">
            <span data-testid="axis-top">{ format!("↑ {top}") }</span>
            <span data-testid="axis-steps">{ format!("{first} → {last}") }</span>
        </div>
    }
}

/// The shards' colours, named.
fn legend(view: &InsightsView) -> Html {
    html! {
        <ul class="legend" data-testid="chart-legend">
            { for view.shards.iter().map(|(name, index)| html! {
                <li><span class="swatch" style={shard_style(*index)}></span>{ name.clone() }</li>
            }) }
        </ul>
    }
}
