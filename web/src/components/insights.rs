//! Insights: analyzeShardKey's verdict on the current key, and charts over time.

use crate::state::{Calm, Playground};
use bson::{Bson, Document};
use shardlab::Session;
use yew::prelude::*;

/// Properties of [`Insights`]. The panel redraws on its calm revision only (see
/// [`Playground::calm_revs`]).
#[derive(Properties)]
pub struct InsightsProps {
    /// The page state.
    pub state: Playground,
}

impl PartialEq for InsightsProps {
    fn eq(&self, other: &Self) -> bool {
        self.state.calm_rev(Calm::Insights) == other.state.calm_rev(Calm::Insights)
    }
}

/// Runs analyzeShardKey for the current key on a copy of the session, after sampling a
/// mixed query workload on that copy. The timeline is not touched.
pub fn analyze(session: &Session, ns: &str) -> Result<Document, String> {
    let sharding = session.cluster.sharding(ns).map_err(|e| e.to_string())?;
    let key = sharding.pattern.to_pattern_document();
    let first = sharding
        .pattern
        .fields()
        .first()
        .map(|(f, _)| f.clone())
        .unwrap_or_default();
    let key_text = shardlab::shell::format_value_with(
        &Bson::Document(key),
        &shardlab::shell::FormatOptions::lossless(),
    );
    let mut copy = session.clone();
    let script = format!(
        "db.adminCommand({{configureQueryAnalyzer: \"{ns}\", mode: \"full\", samplesPerSecond: 1}})\nsim.queries(\"{ns}\", {{kind: \"mixed\", key: \"{first}\"}}, 300)\ndb.adminCommand({{analyzeShardKey: \"{ns}\", key: {key_text}}})"
    );
    let outcomes = copy.run(&script);
    match outcomes.last().map(|o| &o.result) {
        Some(Ok(shardlab::Output::Value(Bson::Document(d)))) => Ok(d.clone()),
        // Too few distinct values for 100 ranges: MongoDB refuses the read and write
        // distribution, so ask again for the key characteristics alone, as a user would.
        Some(Err(e)) if e.code == 4_952_606 => {
            let retry = format!("db.adminCommand({{analyzeShardKey: \"{ns}\", key: {key_text}, readWriteDistribution: false}})");
            match copy.run(&retry).pop().map(|o| o.result) {
                Some(Ok(shardlab::Output::Value(Bson::Document(mut d)))) => {
                    d.insert(
                        "note",
                        format!("Read and write distribution skipped: {}", e.message),
                    );
                    Ok(d)
                }
                Some(Err(e)) => Err(e.to_string()),
                _ => Err("analyzeShardKey returned nothing".to_string()),
            }
        }
        Some(Err(e)) => Err(e.to_string()),
        _ => Err("analyzeShardKey returned nothing".to_string()),
    }
}

fn num(d: &Document, path: &[&str]) -> f64 {
    let mut cur = d;
    for (i, p) in path.iter().enumerate() {
        match cur.get(*p) {
            Some(Bson::Document(inner)) if i + 1 < path.len() => cur = inner,
            Some(Bson::Int32(n)) => return f64::from(*n),
            Some(Bson::Int64(n)) => return *n as f64,
            Some(Bson::Double(x)) => return *x,
            _ => return 0.0,
        }
    }
    0.0
}

fn text(d: &Document, path: &[&str]) -> String {
    let mut cur = d;
    for (i, p) in path.iter().enumerate() {
        match cur.get(*p) {
            Some(Bson::Document(inner)) if i + 1 < path.len() => cur = inner,
            Some(Bson::String(s)) => return s.clone(),
            Some(other) => return shardlab::shell::format_value(other),
            None => return String::new(),
        }
    }
    String::new()
}

/// A stacked bar of single-shard, multi-shard and scatter-gather shares.
fn distribution(title: &str, d: &Document, section: &str, noun: &str) -> Html {
    let single = num(d, &[section, &format!("percentageOfSingleShard{noun}")]);
    let multi = num(d, &[section, &format!("percentageOfMultiShard{noun}")]);
    let scatter = num(d, &[section, &format!("percentageOfScatterGather{noun}")]);
    html! {
        <div class="dist">
            <span class="dist-title">{ title }</span>
            <div class="stack" role="img" aria-label={format!("{title}: {single:.0}% single shard, {multi:.0}% multi shard, {scatter:.0}% scatter-gather")}>
                <div class="seg single" style={format!("width: {single}%")}></div>
                <div class="seg multi" style={format!("width: {multi}%")}></div>
                <div class="seg scatter" style={format!("width: {scatter}%")}></div>
            </div>
            <span class="dist-legend">{ format!("{single:.0}% single · {multi:.0}% multi · {scatter:.0}% scatter") }</span>
        </div>
    }
}

/// Lines of documents per shard over the steps, as an SVG.
fn docs_chart(state: &Playground) -> Html {
    let stats = &state.stats;
    let ns = state.settings.ns.as_str();
    let shards: Vec<String> = state.view.shards.iter().map(|s| s.name.clone()).collect();
    let max = stats
        .iter()
        .filter_map(|s| s.of(ns))
        .flat_map(|s| s.docs.values())
        .copied()
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let n = stats.len().max(2) as f64 - 1.0;
    let (w, h) = (320.0, 110.0);
    html! {
        <figure class="chart" data-testid="docs-chart">
            { axis_labels(&format!("{} docs", max as u64), "step 1", &format!("step {}", stats.len().max(1))) }
            <svg viewBox={format!("0 0 {w} {h}")} role="img" aria-label={format!("Documents per shard over {} steps, up to {} documents", stats.len(), max as u64)}>
                { for shards.iter().enumerate().map(|(i, name)| {
                    let idx = state.view.shards[i].index;
                    // At most about 160 points per line, however long the timeline: the
                    // chart is 320 units wide, so more points would not show.
                    let stride = (stats.len() / 160).max(1);
                    let points: Vec<String> = stats.iter().enumerate()
                        .filter(|(x, _)| x % stride == 0 || *x + 1 == stats.len())
                        .map(|(x, s)| {
                            let y = s.of(ns).and_then(|c| c.docs.get(name)).copied().unwrap_or(0) as f64;
                            format!("{:.1},{:.1}", x as f64 / n * w, h - 4.0 - y / max * (h - 8.0))
                        }).collect();
                    html! { <polyline class={classes!("line", format!("stroke-c{}", idx % 8))} points={points.join(" ")} /> }
                }) }
            </svg>
            { legend(state) }
            <figcaption>{ "Documents per shard (vertical) at each step of the timeline (horizontal)" }</figcaption>
        </figure>
    }
}

/// Stacked bars of inserts per shard per step, for the last 60 steps.
fn inserts_chart(state: &Playground) -> Html {
    let stats = &state.stats;
    let start = stats.len().saturating_sub(60);
    let recent = &stats[start..];
    let ns = state.settings.ns.as_str();
    let max = recent
        .iter()
        .filter_map(|s| s.of(ns))
        .map(|s| s.inserts.values().sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (w, h) = (320.0, 110.0);
    let bar = w / 60.0;
    let index_of = |name: &str| {
        state
            .view
            .shards
            .iter()
            .find(|s| s.name == name)
            .map_or(0, |s| s.index)
    };
    // Each bar sits at its step's own x and the group slides left, so a new step adds one
    // bar instead of moving all sixty.
    let shift = format!("translate({:.1} 0)", -(start as f64) * bar);
    html! {
        <figure class="chart" data-testid="inserts-chart">
            { axis_labels(&format!("{} inserts", max as u64), &format!("step {}", start + 1), &format!("step {}", stats.len().max(1))) }
            <svg viewBox={format!("0 0 {w} {h}")} role="img" aria-label={format!("Inserts per shard in each of steps {} to {}, up to {} a step", start + 1, stats.len(), max as u64)}>
                <g transform={shift}>
                { for recent.iter().enumerate().map(|(i, s)| {
                    let step = start + i;
                    let mut y = h;
                    html! { <g key={step}>{ for s.of(ns).into_iter().flat_map(|c| c.inserts.iter()).map(|(name, n)| {
                        let height = *n as f64 / max * (h - 4.0);
                        y -= height;
                        html! { <rect class={format!("fill-c{}", index_of(name) % 8)} x={format!("{:.1}", step as f64 * bar)}
                            y={format!("{y:.1}")} width={format!("{:.1}", (bar - 1.0).max(0.5))} height={format!("{height:.1}")} /> }
                    }) }</g> }
                }) }
                </g>
            </svg>
            { legend(state) }
            <figcaption>{ "Inserts per shard (vertical, stacked) in each of the last 60 steps (horizontal)" }</figcaption>
        </figure>
    }
}

/// An analyzeShardKey report and what it was computed for.
#[derive(Clone, PartialEq)]
struct Report {
    /// The collection.
    ns: String,
    /// The shard key, as mongosh prints it.
    key: String,
    /// The timeline step.
    step: u64,
    /// The report, or MongoDB's error.
    result: Result<Document, String>,
}

/// The insights panel.
#[function_component(Insights)]
pub fn insights(props: &InsightsProps) -> Html {
    let report = use_state(|| None::<Report>);
    let ns = props.state.settings.ns.clone();
    let key = props.state.view.key.clone();
    let step = props.state.timeline.borrow().position();
    let on_analyze = {
        let report = report.clone();
        let timeline = props.state.timeline.clone();
        let (ns, key) = (ns.clone(), key.clone());
        Callback::from(move |_| {
            let result = analyze(timeline.borrow().session(), &ns);
            report.set(Some(Report {
                ns: ns.clone(),
                key: key.clone(),
                step,
                result,
            }));
        })
    };
    // A report on another collection or key says nothing about this one: it is dropped.
    let current = report.as_ref().filter(|r| r.ns == ns && r.key == key);
    html! {
        <section class="panel insights" aria-label="Insights">
            <div class="insight analyze" data-testid="analyze-panel">
                <div class="insight-head">
                    <h2>{ "analyzeShardKey" }</h2>
                    <button class="secondary" data-testid="analyze" onclick={on_analyze}>
                        { if current.is_some_and(|r| r.step != step) { "Analyze again" } else { "Analyze this key" } }
                    </button>
                </div>
                { match current {
                    None => html! { <p class="muted">{ format!("Measures {key} on {ns}: cardinality, frequency, monotonicity and how a mixed query workload would be routed.") }</p> },
                    Some(r) => html! {
                        <>
                        <p class="muted report-for" data-testid="analyze-for">
                            { format!("{} on {} at step {}", r.ns, r.key, r.step) }
                            if r.step != step {
                                <strong>{ format!(" · the cluster is now at step {step}") }</strong>
                            }
                        </p>
                        { match &r.result {
                            Err(e) => html! { <p class="error">{ e.clone() }</p> },
                            Ok(d) => report_view(d),
                        } }
                        </>
                    },
                } }
            </div>
            <div class="insight">
                <h2>{ "Over time" }</h2>
                { docs_chart(&props.state) }
                { inserts_chart(&props.state) }
            </div>
        </section>
    }
}

/// analyzeShardKey's report: the key's characteristics, its most common values, and the
/// read and write distributions when MongoDB measured them.
fn report_view(d: &Document) -> Html {
    let mcv: Vec<Html> = match d
        .get_document("keyCharacteristics")
        .ok()
        .and_then(|k| k.get_array("mostCommonValues").ok())
    {
        Some(list) => list.iter().filter_map(|v| v.as_document()).map(|v| {
            let value = v.get("value").map(shardlab::shell::format_value).unwrap_or_default();
            let freq = num(v, &["frequency"]);
            html! { <li><code>{ value }</code><span class="freq">{ format!("× {freq}") }</span></li> }
        }).collect(),
        None => Vec::new(),
    };
    let mono = text(d, &["keyCharacteristics", "monotonicity", "type"]);
    html! {
        <div class="report" data-testid="analyze-report">
            <dl>
                <dt>{ "documents" }</dt><dd>{ num(d, &["keyCharacteristics", "numDocsTotal"]) }</dd>
                <dt>{ "distinct values" }</dt><dd data-testid="cardinality">{ num(d, &["keyCharacteristics", "numDistinctValues"]) }</dd>
                <dt>{ "monotonicity" }</dt>
                <dd data-testid="monotonicity" class={classes!((mono == "monotonic").then_some("warn"))}>
                    { format!("{mono} (r = {:.2})", num(d, &["keyCharacteristics", "monotonicity", "recordIdCorrelationCoefficient"])) }
                </dd>
                <dt>{ "avg doc size" }</dt><dd>{ format!("{} B", num(d, &["keyCharacteristics", "avgDocSizeBytes"])) }</dd>
            </dl>
            if let Ok(note) = d.get_str("note") { <p class="muted">{ note }</p> }
            <h3>{ "Most common values" }</h3>
            <ol class="mcv">{ for mcv }</ol>
            if d.contains_key("readDistribution") {
                { distribution("Reads", d, "readDistribution", "Reads") }
                { distribution("Writes", d, "writeDistribution", "Writes") }
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
fn legend(state: &Playground) -> Html {
    html! {
        <ul class="legend" data-testid="chart-legend">
            { for state.view.shards.iter().map(|s| html! {
                <li><span class={format!("swatch bg-c{}", s.index % 8)}></span>{ s.name.clone() }</li>
            }) }
        </ul>
    }
}
