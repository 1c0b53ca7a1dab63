//! What the page's side panels draw (the event log, the heatmap, the insights, the
//! inspector, the workload's fit), asked of one session at its cursor. Each answer is
//! ported from the page's component that computed it on its own copy of the core, so
//! that the page shows the same figures and sentences while holding no core.

use crate::held::Held;
use crate::queries::{bound_text, key_text, message_view};
use bson::{Bson, Document};
use shardlab::engine::{distribution_skipped_note, Arg, EventKind, Message};
use shardlab::{KeyValue, Session};
use shardlab_protocol::{
    Analysis, Call, EngineError, EventRow, FitView, InsightsView, Reply, StepPoint, MAX_EVENTS,
};
#[cfg(feature = "insight")]
use {
    shardlab::shell::format_value,
    shardlab::sim::{HeatGrid, HeatOptions},
    shardlab_protocol::{
        ChunkDocsView, DocView, ExplanationView, HeatView, Inspecting, Inspection, LandingView,
        CHUNK_PAGE_ROWS,
    },
};

/// Points at most on the documents chart's lines (it is 320 units wide).
const DOCS_POINTS: usize = 160;
/// Steps the inserts chart shows.
const INSERT_STEPS: usize = 60;
/// The most cells a heatmap answers: past it, fewer columns (each holding more steps),
/// so that an answer stays a few megabytes whatever a request asks.
pub const MAX_HEAT_CELLS: u32 = 1 << 21;
/// MongoDB's error when there are too few distinct values to measure the read and
/// write distribution.
const TOO_FEW_RANGES: i32 = 4_952_606;

/// Whether `call` is one of the panels' calls, which only read a session: [`answer`]
/// answers them.
pub fn is_panel(call: &Call) -> bool {
    matches!(
        call,
        Call::Events { .. }
            | Call::Heat { .. }
            | Call::Insights { .. }
            | Call::Inspect { .. }
            | Call::WorkloadFit { .. }
    )
}

/// Answers one of the panels' calls (`events`, `heat`, `insights`, `inspect`,
/// `workloadFit`) about `held`; any other call is refused.
pub fn answer(held: &Held, call: Call) -> Result<Reply, EngineError> {
    match call {
        Call::Events { ns } => Ok(Reply::Events {
            rows: events(held, &ns),
        }),
        Call::Insights { ns, analyze } => {
            Ok(Reply::Insights(Box::new(insights(held, &ns, analyze))))
        }
        Call::WorkloadFit { ns, spec } => Ok(Reply::WorkloadFit(workload_fit(held, &ns, &spec))),
        #[cfg(feature = "insight")]
        Call::Heat { ns, rows, columns } => {
            Ok(Reply::Heat(Box::new(heat(held, &ns, rows, columns))))
        }
        #[cfg(feature = "insight")]
        Call::Inspect { ns, subject } => Ok(Reply::Inspect(Box::new(inspect(held, &ns, &subject)))),
        #[cfg(not(feature = "insight"))]
        Call::Heat { .. } => Err(EngineError::bad_value(
            "this engine was built without the heatmap",
        )),
        #[cfg(not(feature = "insight"))]
        Call::Inspect { .. } => Err(EngineError::bad_value(
            "this engine was built without the inspector",
        )),
        _ => Err(EngineError::bad_value("this method is not a panel's")),
    }
}

/// The latest events of the cluster's log at the cursor (at most [`MAX_EVENTS`], the
/// start of each migration left out), newest first, their bounds printed with the key of
/// `ns` (its values as mongosh prints them when `ns` is gone), each with the step just
/// after it.
pub fn events(held: &Held, ns: &str) -> Vec<EventRow> {
    let timeline = &held.timeline;
    let cluster = &timeline.session().cluster;
    let bound = |k: &KeyValue| bound_text(cluster, ns, k);
    cluster
        .events()
        .iter()
        .rev()
        .filter(|e| !matches!(e.kind, EventKind::MoveChunkStart { .. }))
        .take(MAX_EVENTS)
        .map(|e| EventRow {
            seq: e.seq,
            kind: e.kind.changelog_name().to_string(),
            text: e.kind.describe_with(&bound),
            message: Some(message_view(&e.kind.message_with(&bound))),
            step: timeline.step_of_event(e.seq),
        })
        .collect()
}

/// How the workload `spec` (a preset's name or a template) fits the shard key of `ns`:
/// the template as the form shows it, the key fields it never or only sometimes writes,
/// and, when some are missing, the template with them added and the presets that fit.
pub fn workload_fit(held: &Held, ns: &str, spec: &str) -> FitView {
    use shardlab::shell::format_document;
    use shardlab::workload::{key_fit, presets_fitting, spec_of, with_key_fields};
    let parsed = spec_of(spec);
    let mut view = FitView {
        shown: parsed.as_ref().map(format_document).map_err(Clone::clone),
        key: String::new(),
        missing: Vec::new(),
        sometimes: Vec::new(),
        fixed: None,
        fitting: Vec::new(),
    };
    let Ok(sharding) = held.timeline.session().cluster.sharding(ns) else {
        return view;
    };
    view.key = key_text(&sharding.pattern);
    let Ok(doc) = parsed else { return view };
    let Ok(fit) = key_fit(&doc, &sharding.pattern) else {
        return view;
    };
    if !fit.missing.is_empty() {
        view.fixed = with_key_fields(&doc, &sharding.pattern)
            .ok()
            .map(|d| format_document(&d));
        view.fitting = presets_fitting(&sharding.pattern)
            .into_iter()
            .map(str::to_string)
            .collect();
    }
    view.missing = fit.missing;
    view.sometimes = fit.sometimes;
    view
}

/// The insights panel: the charts' series up to the cursor and, when `run` is set,
/// analyzeShardKey's report on the key of `ns` (see [`analyze`]).
pub fn insights(held: &Held, ns: &str, run: bool) -> InsightsView {
    let cluster = &held.timeline.session().cluster;
    let key = cluster
        .sharding(ns)
        .map(|s| key_text(&s.pattern))
        .unwrap_or_default();
    let shards: Vec<(String, u32)> = cluster.shards().map(|(i, s)| (s.name.clone(), i)).collect();
    let (docs, inserts) = charts(held, ns, &shards);
    InsightsView {
        ns: ns.to_string(),
        key,
        step: held.timeline.position(),
        report: run.then(|| {
            analyze(held.timeline.session(), ns).map(|(d, note)| analysis(&d, note.as_ref()))
        }),
        shards,
        docs,
        inserts,
    }
}

/// The charts' series: documents per shard after each step up to the cursor (about
/// [`DOCS_POINTS`] of them, the last always kept), and inserts per shard in each of the
/// latest [`INSERT_STEPS`] steps; shards in the order of `shards`.
fn charts(held: &Held, ns: &str, shards: &[(String, u32)]) -> (Vec<StepPoint>, Vec<StepPoint>) {
    let stats = held.stats_upto_cursor();
    let of = |list: Option<&Vec<(String, u64)>>, name: &str| {
        list.and_then(|l| l.iter().find(|(n, _)| n == name))
            .map_or(0, |(_, v)| *v)
    };
    let stride = (stats.len() / DOCS_POINTS).max(1);
    let docs = stats
        .iter()
        .enumerate()
        .filter(|(x, _)| x % stride == 0 || *x + 1 == stats.len())
        .map(|(x, s)| StepPoint {
            step: x as u64 + 1,
            per_shard: shards
                .iter()
                .map(|(name, _)| of(s.of_ns(ns).map(|c| &c.docs), name))
                .collect(),
        })
        .collect();
    let start = stats.len().saturating_sub(INSERT_STEPS);
    let inserts = stats[start..]
        .iter()
        .enumerate()
        .map(|(i, s)| StepPoint {
            step: (start + i) as u64 + 1,
            per_shard: shards
                .iter()
                .map(|(name, _)| of(s.of_ns(ns).map(|c| &c.inserts), name))
                .collect(),
        })
        .collect();
    (docs, inserts)
}

/// Runs analyzeShardKey for the key of `ns` on a copy of `session`, after sampling a
/// mixed query workload on that copy; `session` is not touched. When MongoDB refuses
/// the read and write distribution (too few distinct values), asks again for the key's
/// characteristics alone and says why in a note (ShardLab's, beside MongoDB's report).
pub fn analyze(session: &Session, ns: &str) -> Result<(Document, Option<Message>), String> {
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
    // The namespace and field are pasted into shell source: as string literals.
    let (ns_lit, first_lit) = (string_literal(ns), string_literal(&first));
    let mut copy = session.clone();
    let script = format!(
        "db.adminCommand({{configureQueryAnalyzer: {ns_lit}, mode: \"full\", samplesPerSecond: 1}})\nsim.queries({ns_lit}, {{kind: \"mixed\", key: {first_lit}}}, 300)\ndb.adminCommand({{analyzeShardKey: {ns_lit}, key: {key_text}}})"
    );
    let outcomes = copy.run(&script);
    match outcomes.last().map(|o| &o.result) {
        Some(Ok(shardlab::Output::Value(Bson::Document(d)))) => Ok((d.clone(), None)),
        Some(Err(e)) if e.code == TOO_FEW_RANGES => {
            let retry = format!("db.adminCommand({{analyzeShardKey: {ns_lit}, key: {key_text}, readWriteDistribution: false}})");
            match copy.run(&retry).pop().map(|o| o.result) {
                Some(Ok(shardlab::Output::Value(Bson::Document(d)))) => {
                    let key = |f: &str| num(&d, &["keyCharacteristics", f]) as u64;
                    let note = distribution_skipped_note(
                        key("numDocsTotal"),
                        key("numDistinctValues"),
                        &e.message,
                    );
                    Ok((d, Some(note)))
                }
                Some(Err(e)) => Err(e.to_string()),
                _ => Err("analyzeShardKey returned nothing".to_string()),
            }
        }
        Some(Err(e)) => Err(e.to_string()),
        _ => Err("analyzeShardKey returned nothing".to_string()),
    }
}

/// `text` as a shell string literal.
pub fn string_literal(text: &str) -> String {
    shardlab::shell::format_value(&Bson::String(text.to_string()))
}

/// The figures the insights panel shows from analyzeShardKey's report `d`, with ShardLab's
/// `note` on what it left out.
pub fn analysis(d: &Document, note: Option<&Message>) -> Analysis {
    let key = |field: &str| num(d, &["keyCharacteristics", field]);
    const MONO: [&str; 2] = ["keyCharacteristics", "monotonicity"];
    let characteristics = vec![
        ("numDocsTotal", key("numDocsTotal").to_string()),
        ("numDistinctValues", key("numDistinctValues").to_string()),
        ("monotonicity", text(d, &[MONO[0], MONO[1], "type"])),
        (
            "recordIdCorrelationCoefficient",
            format!(
                "{:.2}",
                num(d, &[MONO[0], MONO[1], "recordIdCorrelationCoefficient"])
            ),
        ),
        ("avgDocSizeBytes", key("avgDocSizeBytes").to_string()),
    ];
    let most_common = d
        .get_document("keyCharacteristics")
        .ok()
        .and_then(|k| k.get_array("mostCommonValues").ok())
        .map(|list| {
            list.iter()
                .filter_map(Bson::as_document)
                .map(|v| {
                    let value = v
                        .get("value")
                        .map(shardlab::shell::format_value)
                        .unwrap_or_default();
                    (value, num(v, &["frequency"]).to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    let shares = |section: &str, noun: &str| {
        d.contains_key(section).then(|| {
            ["SingleShard", "MultiShard", "ScatterGather"]
                .map(|kind| num(d, &[section, &format!("percentageOf{kind}{noun}")]))
        })
    };
    Analysis {
        characteristics: characteristics
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
        most_common,
        reads: shares("readDistribution", "Reads"),
        writes: shares("writeDistribution", "Writes"),
        note: note.map(Message::english),
        note_words: note.map(message_view),
    }
}

/// The number at `path` in `d` (0 when there is none).
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

/// The text at `path` in `d`: a string as it is, another value as mongosh prints it.
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

/// The key-space heatmap of `ns`: `rows` key ranges by at most `columns` groups of steps
/// (the core's `Timeline::heat_grid`; fewer columns when the grid would pass
/// [`MAX_HEAT_CELLS`]), with the shard strip, the chunk boundaries, the
/// cursor, the pattern the core reads in it, and why it is empty when it is.
#[cfg(feature = "insight")]
pub fn heat(held: &Held, ns: &str, rows: u32, columns: u32) -> HeatView {
    let timeline = &held.timeline;
    let cluster = &timeline.session().cluster;
    let steps = timeline.len();
    let mut view = HeatView {
        ns: ns.to_string(),
        key: cluster
            .sharding(ns)
            .map(|s| key_text(&s.pattern))
            .unwrap_or_default(),
        steps,
        cursor: timeline.position(),
        ..HeatView::default()
    };
    let grid = (steps > 0)
        .then(|| {
            let rows = rows.clamp(1, 4096);
            let columns = columns.clamp(1, (MAX_HEAT_CELLS / rows).max(1));
            timeline.heat_grid(
                ns,
                HeatOptions {
                    rows,
                    columns,
                    ranked: true,
                },
            )
        })
        .flatten();
    let empty = empty_reason(ns, steps, grid.as_ref());
    view.empty = empty.as_ref().map(Message::english);
    view.empty_words = empty.as_ref().map(message_view);
    let Some(grid) = grid else { return view };
    let mut shown: Vec<u32> = grid.rows.iter().map(|r| r.shard).collect();
    shown.sort_unstable();
    shown.dedup();
    view.shards = shown
        .into_iter()
        .map(|i| (i, cluster.shard_name(i).to_string()))
        .collect();
    view.hashed = grid.hashed;
    // What the vertical axis shows: a ranked axis as the core words it (a hashed key's
    // axis the page words itself, from the key).
    let axis = (!grid.hashed).then(|| shardlab::sim::heat_axis_words(grid.bands));
    view.axis = axis.as_ref().map_or_else(
        || "Up the side: the int64 hash space in equal parts, MinKey at the bottom.".to_string(),
        shardlab::engine::Message::english,
    );
    view.axis_words = axis.as_ref().map(message_view);
    view.row_shards = grid.rows.iter().map(|r| r.shard).collect();
    view.per_column = grid.per_column;
    view.columns = grid.columns;
    view.cursor = grid.cursor;
    view.max_cell = grid.max_cell;
    view.boundaries = grid.chunks.iter().map(|c| c.at).collect();
    view.cells = grid.cells;
    if view.empty.is_none() {
        let pattern = timeline.heat_pattern(ns);
        view.pattern = Some((pattern.name.to_string(), pattern.words.english()));
        view.pattern_words = Some((
            message_view(&pattern.name_words),
            message_view(&pattern.words),
        ));
    }
    view
}

/// Why the heatmap has nothing to draw, if so.
#[cfg(feature = "insight")]
fn empty_reason(ns: &str, steps: u64, grid: Option<&HeatGrid>) -> Option<Message> {
    let ns_arg = || vec![("ns", Arg::from(ns))];
    match grid {
        None if ns.is_empty() => Some(Message::new("engine.heat.no_collection", Vec::new())),
        None if steps == 0 => Some(Message::new("engine.heat.no_steps", Vec::new())),
        None => Some(Message::new("engine.heat.not_sharded", ns_arg())),
        Some(g) if g.max_cell <= 0.0 => Some(Message::new("engine.heat.no_inserts", ns_arg())),
        Some(_) => None,
    }
}

/// What the inspector shows about `ns` at the cursor: the insert form's example, where
/// the latest single-document insert landed, and the subject asked about. Nothing when
/// `ns` is not sharded.
#[cfg(feature = "insight")]
pub fn inspect(held: &Held, ns: &str, subject: &Inspecting) -> Inspection {
    let cluster = &held.timeline.session().cluster;
    let Ok(sharding) = cluster.sharding(ns) else {
        return Inspection::default();
    };
    let mut view = Inspection {
        example: shardlab::workload::presets::example_document(&sharding.pattern, |field| {
            cluster.collection(ns)?.sample_value(field)
        }),
        landing: landing(held, ns),
        ..Inspection::default()
    };
    match subject {
        Inspecting::Nothing => {}
        Inspecting::Chunk { key, skip, mark } => {
            view.chunk = Some(match crate::queries::parse_key_handle(key) {
                Some(key) => chunk_docs(held, ns, &key, *skip, *mark),
                None => Err(format!("{key} names no shard key value")),
            });
        }
        Inspecting::At { at, reach } => {
            view.chunk = Some(match chunk_at(held, ns, *at, reach.unwrap_or(-1.0)) {
                Some((key, mark)) => chunk_docs(held, ns, &key, None, mark),
                None => Err(format!("{ns} has no chunk to show")),
            });
        }
        Inspecting::Shard { shard } => {
            view.explanations = Some(explanations(
                shardlab::session::explainer().and_then(|e| (e.shard)(cluster, ns, shard)),
            ));
        }
        Inspecting::Round => {
            view.explanations = Some(explanations(
                shardlab::session::explainer().and_then(|e| (e.round)(cluster, Some(ns))),
            ));
        }
    }
    view
}

/// What a click at point `at` of the key-space bar of `ns` opens, as the page draws the
/// bar (the frame's segments and ticks): the document of the tick nearest the point
/// within `reach` (its key, and its insertion number to mark), else the lower bound of the
/// chunk under the point. Points outside [0, 1] take the nearest end.
#[cfg(feature = "insight")]
fn chunk_at(held: &Held, ns: &str, at: f64, reach: f64) -> Option<(KeyValue, Option<u64>)> {
    let cluster = &held.timeline.session().cluster;
    let view = crate::view_model::cluster_view(cluster, ns, &held.sent.memory());
    let at = if at.is_nan() { 0.0 } else { at.clamp(0.0, 1.0) };
    let near = view
        .ticks
        .iter()
        .enumerate()
        .map(|(i, (t, _))| (i, (t - at).abs()))
        .filter(|(_, d)| *d <= reach)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((seq, key)) = near.and_then(|(i, _)| view.tick_docs.get(i)) {
        return Some((key.clone(), Some(*seq)));
    }
    let i = view.bar.partition_point(|b| b.lo <= at).saturating_sub(1);
    view.bar.get(i).map(|b| (b.chunk.key.clone(), None))
}

/// Where the latest insert into `ns` landed: only when the latest step up to the cursor
/// that inserted into `ns` inserted exactly one document (an `insertOne`), and while that
/// document is still stored.
#[cfg(feature = "insight")]
fn landing(held: &Held, ns: &str) -> Option<LandingView> {
    let latest = held
        .stats_upto_cursor()
        .iter()
        .rev()
        .filter_map(|step| step.of_ns(ns))
        .map(|c| c.inserts.iter().map(|(_, n)| *n).sum::<u64>())
        .find(|n| *n > 0);
    if latest != Some(1) {
        return None;
    }
    let cluster = &held.timeline.session().cluster;
    let (seq, landing) = cluster.latest_landing(ns)?;
    let l = landing.ok()?;
    Some(LandingView {
        seq,
        key: bound_text(cluster, ns, &l.key),
        key_handle: crate::queries::key_handle(&l.chunk_min),
        hashed: l.hashed.as_ref().map(|(field, value, hash)| {
            (
                field.clone(),
                format_value(value),
                format_value(&Bson::Int64(*hash)),
                hash.to_string(),
            )
        }),
        chunk: (
            bound_text(cluster, ns, &l.chunk_min),
            bound_text(cluster, ns, &l.chunk_max),
        ),
        shard: cluster.shard_name(l.shard).to_string(),
        why: l.explanation.sentence.clone(),
        why_messages: l.explanation.messages.iter().map(message_view).collect(),
    })
}

/// A page of the chunk of `ns` holding `key`: from document `skip`, or from the page
/// holding document `mark`, or from the start; with the chunk's explanations.
#[cfg(feature = "insight")]
fn chunk_docs(
    held: &Held,
    ns: &str,
    key: &KeyValue,
    skip: Option<u64>,
    mark: Option<u64>,
) -> Result<ChunkDocsView, String> {
    let cluster = &held.timeline.session().cluster;
    let rows = u64::from(CHUNK_PAGE_ROWS);
    let skip = skip
        .or_else(|| {
            // The key names the chunk (its lower bound) or the document itself.
            let mark = mark?;
            let (_, at) = cluster
                .document_position(ns, key, mark)
                .or_else(|| cluster.position_in_chunk(ns, key, mark))?;
            Some(at / rows * rows)
        })
        .unwrap_or(0);
    let page = cluster
        .chunk_documents(ns, key, skip, rows)
        .map_err(|e| e.to_string())?;
    Ok(ChunkDocsView {
        min: bound_text(cluster, ns, &page.min),
        max: bound_text(cluster, ns, &page.max),
        key: crate::queries::key_handle(&page.min),
        shard: cluster.shard_name(page.shard).to_string(),
        total: page.total,
        skip: page.skip,
        mark,
        hashed: page.hashed_field.is_some(),
        rows: page
            .rows
            .iter()
            .map(|r| DocView {
                seq: r.seq,
                id: format_value(&r.id),
                key: bound_text(cluster, ns, &r.key),
                hashed: r.hashed_value.as_ref().map(format_value),
            })
            .collect(),
        explanations: explanations(
            shardlab::session::explainer().and_then(|e| (e.chunk)(cluster, ns, &page.min)),
        ),
    })
}

/// Explanations as the inspector lists them, or MongoDB's error.
#[cfg(feature = "insight")]
fn explanations(
    list: Result<Vec<shardlab::engine::Explanation>, shardlab::ClusterError>,
) -> Result<Vec<ExplanationView>, String> {
    list.map(|list| {
        list.iter()
            .map(|e| ExplanationView {
                topic: e.topic.name().to_string(),
                rule: e.rule.to_string(),
                rule_message: shardlab::engine::rule_message(e.rule)
                    .as_ref()
                    .map(message_view),
                sentence: e.sentence.clone(),
                messages: e.messages.iter().map(message_view).collect(),
                facts: e
                    .facts
                    .iter()
                    .map(|(name, value)| ((*name).to_string(), format_value(value)))
                    .collect(),
            })
            .collect()
    })
    .map_err(|e| e.to_string())
}
