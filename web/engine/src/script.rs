//! The JavaScript module's reads and runs: a script's statements one entry each, with
//! the value as relaxed Extended JSON and the text the `shardlab` CLI prints; a whole
//! picture of one collection; `analyzeShardKey` of a candidate key on a copy.

use crate::frames::to_frame;
use crate::held::Held;
use crate::panels::string_literal;
use crate::queries;
use crate::view_model::cluster_view;
use bson::Bson;
use shardlab::{Outcome, Output};
use shardlab_protocol::{EngineError, Frame, Json, JsonObject, StatementError, StatementResult};

/// Runs `source` as the session's next step, or with `each` as one step per statement,
/// and answers with one entry per statement.
pub fn evaluate(held: &mut Held, source: &str, each: bool) -> Vec<StatementResult> {
    let pieces: Vec<&str> = match shardlab::shell::parse_script(source) {
        Ok(parsed) if each && parsed.statements.len() > 1 => parsed
            .statements
            .iter()
            .filter_map(|s| source.get(s.span.start as usize..s.span.end as usize))
            .collect(),
        _ => vec![source],
    };
    let split = pieces.len() > 1;
    let mut out = Vec::new();
    for piece in pieces {
        let outcomes = held.push(piece);
        out.extend(entries(outcomes, held.timeline.position()));
    }
    // A statement's line counts from the start of the whole source.
    if split {
        relines(&mut out, source);
    }
    out
}

/// With one step per statement, each error's line is within its own statement: the
/// statements are found again in order to count from the start of `source`.
fn relines(entries: &mut [StatementResult], source: &str) {
    let Ok(parsed) = shardlab::shell::parse_script(source) else {
        return;
    };
    let mut statements = parsed.statements.iter();
    let mut step = 0;
    let mut start_line = 1;
    for entry in entries.iter_mut() {
        if entry.step != step {
            step = entry.step;
            start_line = statements.next().map_or(start_line, |s| s.span.line);
        }
        if let Some(e) = entry.error.as_mut() {
            e.line = e.line.map(|l| l + start_line - 1);
        }
    }
}

/// The outcomes of one step as entries: the lines a statement printed join its own entry,
/// before its result, as the CLI prints them.
pub fn entries(outcomes: Vec<Outcome>, step: u64) -> Vec<StatementResult> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for outcome in outcomes {
        let text = outcome.render().map(|t| t + "\n").unwrap_or_default();
        if outcome.printed {
            pending.push_str(&text);
            continue;
        }
        let printed = std::mem::take(&mut pending) + &text;
        out.push(match outcome.result {
            Ok(output) => StatementResult {
                ok: true,
                value: value_of(&output),
                error: None,
                printed,
                step,
            },
            Err(e) => StatementResult {
                ok: false,
                value: None,
                error: Some(StatementError {
                    code: e.code,
                    code_name: e.name().to_string(),
                    errmsg: e.message.clone(),
                    line: e.span.map(|s| s.line),
                }),
                printed,
                step,
            },
        });
    }
    out
}

/// A statement's value as relaxed Extended JSON; `None` when it has none.
fn value_of(output: &Output) -> Option<Json> {
    let tree = |v: &Bson| json(&shardlab::shell::to_relaxed_tree(v));
    match output {
        Output::Value(v) => Some(tree(v)),
        Output::Cursor(docs) => Some(Json::List(
            docs.iter()
                .map(|d| tree(&Bson::Document(d.clone())))
                .collect(),
        )),
        Output::Sections(d) => Some(tree(&Bson::Document(d.clone()))),
        Output::Message(m) => Some(Json::Text(m.clone())),
        Output::Nothing => None,
    }
}

/// A relaxed Extended JSON tree (see [`shardlab::shell::to_relaxed_tree`]) as JSON.
fn json(value: &Bson) -> Json {
    match value {
        Bson::Null => Json::Null,
        Bson::Boolean(b) => Json::Bool(*b),
        Bson::Double(d) => Json::Number(*d),
        // Within ±(2^53 − 1): exact as a double.
        Bson::Int64(i) => Json::Number(*i as f64),
        Bson::Int32(i) => Json::Number(f64::from(*i)),
        Bson::String(s) => Json::Text(s.clone()),
        Bson::Array(a) => Json::List(a.iter().map(json).collect()),
        Bson::Document(d) => Json::Object(JsonObject(
            d.iter().map(|(k, v)| (k.clone(), json(v))).collect(),
        )),
        // The tree holds no other type; one would cross as its canonical text.
        other => Json::Text(shardlab::shell::to_canonical_ejson(other)),
    }
}

/// Every chunk, shard and zone of `ns` (or of the collection the last command touched),
/// whole, leaving the session's frame memory as it was.
pub fn whole_cluster(held: &Held, ns: Option<String>) -> Frame {
    let timeline = &held.timeline;
    let session = timeline.session();
    let cluster = &session.cluster;
    let ns = ns
        .or_else(|| session.touched().map(str::to_string))
        .or_else(|| cluster.collections().keys().next().cloned())
        .unwrap_or_default();
    let view = cluster_view(cluster, &ns, &Default::default());
    to_frame(&view, None, timeline.position())
}

/// `analyzeShardKey` of the candidate `key` on `ns`, run on a copy of the session.
pub fn analyze(held: &Held, ns: &str, key: &str) -> Result<StatementResult, EngineError> {
    // Both are pasted into shell source: the key as the pattern MongoDB reads, the
    // namespace as a string literal.
    let key = queries::parse_key(key, false).map_err(EngineError::bad_value)?;
    let key_text = shardlab::shell::format_value_with(
        &Bson::Document(key.to_pattern_document()),
        &shardlab::shell::FormatOptions::lossless(),
    );
    let command = format!(
        "db.adminCommand({{analyzeShardKey: {}, key: {key_text}}})",
        string_literal(ns)
    );
    let mut copy = held.timeline.session().clone();
    entries(copy.run(&command), held.timeline.position())
        .pop()
        .ok_or_else(|| EngineError::bad_value("analyzeShardKey returned nothing"))
}
