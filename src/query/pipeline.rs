//! The aggregation stages learners run on the config database and on their own
//! collections: `$match`, `$group`, `$sort`, `$project`, `$count`, `$limit`, `$skip`,
//! `$unwind` and `$lookup` (its equality form),
//! over documents already read, with MongoDB's parse errors
//! (src/mongo/db/pipeline/document_source_*.cpp, accumulator.h, expression.cpp).
//!
//! The whole pipeline is parsed before any stage runs, as MongoDB parses it, so a bad
//! last stage fails the command before the first one reads anything.

use crate::values::error::{ClusterError, Code};
use crate::values::order::compare_values;
use bson::{Bson, Document};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// One parsed stage.
#[derive(Debug, Clone)]
enum Stage {
    Match(super::filter::Filter),
    Group(Group),
    Sort(Document),
    Project(Document),
    Count(String),
    Limit(u64),
    Skip(u64),
    Lookup(Lookup),
    Unwind { path: String, keep_empty: bool },
}

/// A `$lookup` of the equality form: documents of `from` whose `foreign` field equals
/// the input's `local` field, as the array `as_field`.
#[derive(Debug, Clone)]
struct Lookup {
    from: String,
    local: String,
    foreign: String,
    as_field: String,
}

/// Reads the documents of another collection of the same database, for `$lookup`.
pub type CollectionReader<'a> = &'a dyn Fn(&str) -> Result<Vec<Document>, ClusterError>;

/// A `$group`: the `_id` expression and each output field's accumulator.
#[derive(Debug, Clone)]
struct Group {
    id: Bson,
    fields: Vec<(String, Accumulator, Bson)>,
}

/// The `$group` accumulators modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Accumulator {
    Sum,
    Avg,
    Min,
    Max,
    First,
    Last,
    Push,
    AddToSet,
    Count,
}

fn coded(code: Code, message: impl Into<String>) -> ClusterError {
    ClusterError::Coded(code, message.into())
}

/// The one field of a stage document, or MongoDB's error for another shape
/// (`DocumentSource::parse`, src/mongo/db/pipeline/document_source.cpp).
pub fn stage_name(stage: &Document) -> Result<(&str, &Bson), ClusterError> {
    let mut fields = stage.iter();
    match (fields.next(), fields.next()) {
        (Some((name, value)), None) => Ok((name.as_str(), value)),
        _ => Err(coded(
            Code::Location40323,
            "A pipeline stage specification object must contain exactly one field.",
        )),
    }
}

/// Runs `pipeline` over `docs` and returns what its last stage produces; a `$lookup`
/// finds nothing to join.
pub fn run_pipeline(
    docs: Vec<Document>,
    pipeline: &[Document],
) -> Result<Vec<Document>, ClusterError> {
    run_pipeline_with(docs, pipeline, &|_| Ok(Vec::new()))
}

/// Runs `pipeline` over `docs`, with `read` giving `$lookup` the documents of the
/// collection it names.
pub fn run_pipeline_with(
    docs: Vec<Document>,
    pipeline: &[Document],
    read: CollectionReader<'_>,
) -> Result<Vec<Document>, ClusterError> {
    let stages = pipeline
        .iter()
        .map(parse_stage)
        .collect::<Result<Vec<_>, _>>()?;
    let mut docs = docs;
    for stage in &stages {
        docs = match stage {
            Stage::Lookup(l) => lookup(l, docs, &read(&l.from)?),
            Stage::Unwind { path, keep_empty } => unwind(path, *keep_empty, docs),
            _ => run_stage(stage, docs)?,
        };
    }
    Ok(docs)
}

fn parse_stage(stage: &Document) -> Result<Stage, ClusterError> {
    let (name, value) = stage_name(stage)?;
    match name {
        "$match" => match value {
            Bson::Document(f) => Ok(Stage::Match(super::filter::parse_filter(f)?)),
            _ => Err(coded(
                Code::Location15959,
                "the match filter must be an expression in an object",
            )),
        },
        "$group" => parse_group(value).map(Stage::Group),
        "$sort" => parse_sort(value).map(Stage::Sort),
        "$project" => match value {
            Bson::Document(p) if !p.is_empty() => Ok(Stage::Project(p.clone())),
            Bson::Document(_) => Err(coded(
                Code::Location51272,
                "Invalid $project :: caused by :: projection specification must have at least one field",
            )),
            _ => Err(coded(
                Code::Location15969,
                "$project specification must be an object",
            )),
        },
        "$count" => match value {
            Bson::String(s) if !s.is_empty() => Ok(Stage::Count(s.clone())),
            _ => Err(coded(
                Code::Location40156,
                "the count field must be a non-empty string",
            )),
        },
        "$limit" => match whole_number(value) {
            Some(n) if n > 0 => Ok(Stage::Limit(n as u64)),
            _ => Err(coded(Code::Location15958, "the limit must be positive")),
        },
        "$skip" => match whole_number(value) {
            Some(n) if n >= 0 => Ok(Stage::Skip(n as u64)),
            _ => Err(coded(
                Code::Location15956,
                "invalid argument to $skip stage: Expected a non-negative number in: $skip",
            )),
        },
        "$lookup" => parse_lookup(value).map(Stage::Lookup),
        "$unwind" => parse_unwind(value),
        other => Err(coded(
            Code::Location40324,
            format!("Unrecognized pipeline stage name: '{other}'"),
        )),
    }
}

/// `$lookup`'s equality form, as `DocumentSourceLookUp::createFromBson` reads it; the
/// `pipeline` form is not modelled.
fn parse_lookup(value: &Bson) -> Result<Lookup, ClusterError> {
    let Bson::Document(spec) = value else {
        return Err(ClusterError::FailedToParse(
            "the $lookup specification must be an Object".into(),
        ));
    };
    let field = |name: &str| match spec.get(name) {
        Some(Bson::String(s)) => Ok(s.clone()),
        Some(_) => Err(ClusterError::FailedToParse(format!(
            "$lookup argument '{name}: {}' must be a string",
            crate::keys::shard_key::format_bson_value(
                &spec.get(name).cloned().unwrap_or(Bson::Null)
            )
        ))),
        None if name == "from" => Err(ClusterError::FailedToParse(format!(
            "missing 'from' option to $lookup stage specification: {}",
            crate::keys::shard_key::format_bson_obj(spec)
        ))),
        None if name == "as" => Err(ClusterError::FailedToParse(
            "must specify 'as' field for a $lookup".into(),
        )),
        None => Err(ClusterError::FailedToParse(
            "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be \
             specified"
                .into(),
        )),
    };
    Ok(Lookup {
        from: field("from")?,
        local: field("localField")?,
        foreign: field("foreignField")?,
        as_field: field("as")?,
    })
}

/// `$unwind: '$path'` or `{path, preserveNullAndEmptyArrays}`
/// (`DocumentSourceUnwind::createFromBson`).
fn parse_unwind(value: &Bson) -> Result<Stage, ClusterError> {
    let (path, keep_empty) = match value {
        Bson::String(p) => (p.clone(), false),
        Bson::Document(d) => match d.get("path") {
            Some(Bson::String(p)) => (
                p.clone(),
                matches!(
                    d.get("preserveNullAndEmptyArrays"),
                    Some(Bson::Boolean(true))
                ),
            ),
            _ => {
                return Err(coded(
                    Code::Location28812,
                    "No path specified to $unwind stage",
                ))
            }
        },
        _ => {
            return Err(coded(
                Code::Location15981,
                format!(
                "expected either a string or an object as specification for $unwind stage, got {}",
                crate::values::inspect::format_value(value)
            ),
            ))
        }
    };
    match path.strip_prefix('$') {
        Some(p) if !p.is_empty() => Ok(Stage::Unwind {
            path: p.to_string(),
            keep_empty,
        }),
        _ => Err(coded(
            Code::Location28818,
            format!("path option to $unwind stage should be prefixed with a '$': {path}"),
        )),
    }
}

/// Joins each document with the `foreign` documents whose field equals its own (a
/// missing field as null, an array by any of its elements).
fn lookup(l: &Lookup, docs: Vec<Document>, foreign: &[Document]) -> Vec<Document> {
    let values = |d: &Document, path: &str| -> Vec<Bson> {
        super::filter::path_values(d, path)
            .into_iter()
            .map(|v| v.cloned().unwrap_or(Bson::Null))
            .collect()
    };
    // The foreign documents by each value of their field, so that a join costs a lookup
    // per value rather than a pass over the other collection per document.
    let mut by_value: BTreeMap<ByValue, Vec<usize>> = BTreeMap::new();
    for (i, f) in foreign.iter().enumerate() {
        for v in distinct_values(values(f, &l.foreign)) {
            by_value.entry(ByValue(v)).or_default().push(i);
        }
    }
    docs.into_iter()
        .map(|mut d| {
            let mut hits: Vec<usize> = distinct_values(values(&d, &l.local))
                .into_iter()
                .filter_map(|m| by_value.get(&ByValue(m)))
                .flatten()
                .copied()
                .collect();
            // In the other collection's order, each document once.
            hits.sort_unstable();
            hits.dedup();
            let joined: Vec<Bson> = hits
                .into_iter()
                .map(|i| Bson::Document(foreign[i].clone()))
                .collect();
            d.insert(l.as_field.clone(), joined);
            d
        })
        .collect()
}

/// One document per element of the array at top-level field `path`; a document whose
/// field is missing, null or an empty array goes only with `preserveNullAndEmptyArrays`,
/// and one whose field is not an array goes as it is.
fn unwind(path: &str, keep_empty: bool, docs: Vec<Document>) -> Vec<Document> {
    let mut out = Vec::new();
    for d in docs {
        match d.get(path) {
            Some(Bson::Array(items)) if !items.is_empty() => {
                for item in items.clone() {
                    let mut copy = d.clone();
                    copy.insert(path, item);
                    out.push(copy);
                }
            }
            Some(Bson::Array(_)) | Some(Bson::Null) | None => {
                if keep_empty {
                    let mut copy = d.clone();
                    copy.remove(path);
                    out.push(copy);
                }
            }
            Some(_) => out.push(d),
        }
    }
    out
}

/// A number with no fraction, as `$limit` and `$skip` take.
fn whole_number(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e15 => Some(*d as i64),
        _ => None,
    }
}

/// `$sort`'s specification, checked as `DocumentSourceSort::createFromBson` does.
fn parse_sort(value: &Bson) -> Result<Document, ClusterError> {
    let Bson::Document(spec) = value else {
        return Err(coded(
            Code::Location15973,
            "the $sort key specification must be an object",
        ));
    };
    if spec.is_empty() {
        return Err(coded(
            Code::Location15976,
            "$sort stage must have at least one sort key",
        ));
    }
    for (_, dir) in spec {
        match whole_number(dir) {
            Some(1 | -1) => {}
            Some(_) => {
                return Err(coded(
                    Code::Location15975,
                    "$sort key ordering must be 1 (for ascending) or -1 (for descending)",
                ))
            }
            None => {
                return Err(coded(
                    Code::Location15974,
                    "Illegal key in $sort specification",
                ))
            }
        }
    }
    Ok(spec.clone())
}

/// `$group`'s specification, as `DocumentSourceGroup::createFromBson` reads it.
fn parse_group(value: &Bson) -> Result<Group, ClusterError> {
    let Bson::Document(spec) = value else {
        return Err(coded(
            Code::Location15947,
            "a group's fields must be specified in an object",
        ));
    };
    let mut id = None;
    let mut fields = Vec::new();
    for (name, v) in spec {
        if name == "_id" {
            id = Some(v.clone());
            continue;
        }
        if name.starts_with('$') {
            return Err(coded(
                Code::Location15950,
                format!("The field name '{name}' cannot be an operator name"),
            ));
        }
        let acc = match v {
            Bson::Document(d) if d.len() == 1 => d.iter().next(),
            _ => None,
        };
        let Some((op, arg)) = acc else {
            return Err(coded(
                Code::Location40234,
                format!("The field '{name}' must be an accumulator object"),
            ));
        };
        fields.push((name.clone(), accumulator(op)?, arg.clone()));
    }
    let id = id.ok_or_else(|| {
        coded(
            Code::Location15955,
            "a group specification must include an _id",
        )
    })?;
    Ok(Group { id, fields })
}

fn accumulator(op: &str) -> Result<Accumulator, ClusterError> {
    Ok(match op {
        "$sum" => Accumulator::Sum,
        "$avg" => Accumulator::Avg,
        "$min" => Accumulator::Min,
        "$max" => Accumulator::Max,
        "$first" => Accumulator::First,
        "$last" => Accumulator::Last,
        "$push" => Accumulator::Push,
        "$addToSet" => Accumulator::AddToSet,
        "$count" => Accumulator::Count,
        other => {
            return Err(coded(
                Code::Location15952,
                format!("Unknown group operator '{other}'"),
            ))
        }
    })
}

/// The documents `filter` matches; a regex past its budget fails the stage.
pub(crate) fn keep_matching(
    filter: &super::filter::Filter,
    docs: Vec<Document>,
) -> Result<Vec<Document>, ClusterError> {
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        if filter.matches(&d)? {
            out.push(d);
        }
    }
    Ok(out)
}

fn run_stage(stage: &Stage, docs: Vec<Document>) -> Result<Vec<Document>, ClusterError> {
    Ok(match stage {
        Stage::Match(f) => keep_matching(f, docs)?,
        Stage::Group(g) => group(g, &docs)?,
        Stage::Sort(spec) => {
            let mut docs = docs;
            super::sort::sort_documents(&mut docs, spec);
            docs
        }
        Stage::Project(spec) => docs
            .iter()
            .map(|d| project_stage(d, spec))
            .collect::<Result<_, _>>()?,
        Stage::Count(name) => {
            if docs.is_empty() {
                Vec::new()
            } else {
                let mut d = Document::new();
                d.insert(name.clone(), count_value(docs.len() as u64));
                vec![d]
            }
        }
        Stage::Limit(n) => docs.into_iter().take(*n as usize).collect(),
        Stage::Skip(n) => docs.into_iter().skip(*n as usize).collect(),
        // Joins need the other collection: `run_pipeline_with` runs them.
        Stage::Lookup(_) | Stage::Unwind { .. } => docs,
    })
}

/// A count as MongoDB's `$sum` of ones gives it: an int32 while it fits.
fn count_value(n: u64) -> Bson {
    i32::try_from(n).map_or(Bson::Int64(n as i64), Bson::Int32)
}

/// Groups `docs` by `g.id`, in the order each group is first seen (MongoDB leaves the
/// order unspecified; first seen keeps the playground deterministic).
fn group(g: &Group, docs: &[Document]) -> Result<Vec<Document>, ClusterError> {
    let mut groups: Vec<(Bson, Vec<Vec<Bson>>)> = Vec::new();
    // Each key's group, found in a tree: a list searched end to end would make a group
    // by `_id` of many documents take time in the square of their number.
    let mut index: BTreeMap<ByValue, usize> = BTreeMap::new();
    for d in docs {
        let key = match eval(&g.id, d)? {
            Bson::Undefined => Bson::Null,
            k => k,
        };
        let idx = match index.get(&ByValue(key.clone())) {
            Some(i) => *i,
            None => {
                index.insert(ByValue(key.clone()), groups.len());
                groups.push((key, vec![Vec::new(); g.fields.len()]));
                groups.len() - 1
            }
        };
        for (i, (_, acc, arg)) in g.fields.iter().enumerate() {
            let v = match acc {
                Accumulator::Count => Bson::Int32(1),
                _ => eval(arg, d)?,
            };
            groups[idx].1[i].push(v);
        }
    }
    Ok(groups
        .into_iter()
        .map(|(key, values)| {
            let mut out = Document::new();
            out.insert("_id", key);
            for ((name, acc, _), vs) in g.fields.iter().zip(values) {
                out.insert(name.clone(), accumulate(*acc, vs));
            }
            out
        })
        .collect())
}

/// An accumulator's result over the values its expression gave, one per document
/// (`Bson::Undefined` where a path was missing).
fn accumulate(acc: Accumulator, values: Vec<Bson>) -> Bson {
    let mut present = values.into_iter().filter(|v| *v != Bson::Undefined);
    match acc {
        Accumulator::Sum | Accumulator::Count => {
            present.fold(
                Bson::Int32(0),
                |a, v| {
                    if is_number(&v) {
                        add(&a, &v)
                    } else {
                        a
                    }
                },
            )
        }
        Accumulator::Avg => {
            let nums: Vec<f64> = present.filter_map(|v| as_f64(&v)).collect();
            if nums.is_empty() {
                Bson::Null
            } else {
                Bson::Double(nums.iter().sum::<f64>() / nums.len() as f64)
            }
        }
        Accumulator::Min | Accumulator::Max => present
            .filter(|v| *v != Bson::Null)
            .reduce(|a, b| {
                let o = compare_values(&b, &a);
                let better = if acc == Accumulator::Min {
                    o == Ordering::Less
                } else {
                    o == Ordering::Greater
                };
                if better {
                    b
                } else {
                    a
                }
            })
            .unwrap_or(Bson::Null),
        Accumulator::First => present.next().unwrap_or(Bson::Null),
        Accumulator::Last => present.next_back().unwrap_or(Bson::Null),
        Accumulator::Push => Bson::Array(present.collect()),
        Accumulator::AddToSet => Bson::Array(distinct_values(present)),
    }
}

/// A value ordered by MongoDB's comparison ([`compare_values`], a total order), so
/// that values can key a tree: `1` and `1.0` are the same key, as they are one group.
#[derive(Debug, Clone)]
pub(crate) struct ByValue(pub Bson);

impl PartialEq for ByValue {
    fn eq(&self, other: &Self) -> bool {
        compare_values(&self.0, &other.0) == Ordering::Equal
    }
}

impl Eq for ByValue {}

impl PartialOrd for ByValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByValue {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_values(&self.0, &other.0)
    }
}

/// Each value once, in the order first met (MongoDB's equality: `1` and `1.0` are one).
pub(crate) fn distinct_values(values: impl IntoIterator<Item = Bson>) -> Vec<Bson> {
    let mut seen = std::collections::BTreeSet::new();
    values
        .into_iter()
        .filter(|v| seen.insert(ByValue(v.clone())))
        .collect()
}

fn is_number(v: &Bson) -> bool {
    matches!(v, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_))
}

fn as_f64(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(d) => Some(*d),
        _ => None,
    }
}

/// `a + b` with MongoDB's type promotion: int32 while it fits, then int64, and double
/// as soon as either is a double.
fn add(a: &Bson, b: &Bson) -> Bson {
    arith(a, b, i64::checked_add, |x, y| x + y)
}

fn arith(
    a: &Bson,
    b: &Bson,
    int_op: fn(i64, i64) -> Option<i64>,
    float_op: fn(f64, f64) -> f64,
) -> Bson {
    let int = |v: &Bson| match v {
        Bson::Int32(n) => Some((i64::from(*n), true)),
        Bson::Int64(n) => Some((*n, false)),
        _ => None,
    };
    if let (Some((x, x32)), Some((y, y32))) = (int(a), int(b)) {
        if let Some(r) = int_op(x, y) {
            return match i32::try_from(r) {
                Ok(r32) if x32 && y32 => Bson::Int32(r32),
                _ => Bson::Int64(r),
            };
        }
    }
    match (as_f64(a), as_f64(b)) {
        (Some(x), Some(y)) => Bson::Double(float_op(x, y)),
        _ => Bson::Null,
    }
}

/// `$project`: inclusions and exclusions as `find` projects, then computed fields
/// appended in the specification's order.
fn project_stage(doc: &Document, spec: &Document) -> Result<Document, ClusterError> {
    let mut plain = Document::new();
    let mut computed = Vec::new();
    for (path, v) in spec {
        match v {
            Bson::Boolean(_) | Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) => {
                plain.insert(path.clone(), v.clone());
            }
            _ => computed.push((path.clone(), eval(v, doc)?)),
        }
    }
    let inclusion = plain
        .iter()
        .any(|(k, v)| k != "_id" && super::filter::truthy(v));
    let mut out = if computed.is_empty() || inclusion || plain.iter().any(|(k, _)| k != "_id") {
        super::projection::project(doc, &plain)?
    } else {
        // Only computed fields (and perhaps `_id`): the rest of the document is dropped.
        let mut only_id = Document::new();
        only_id.insert("_id", plain.get("_id").cloned().unwrap_or(Bson::Int32(1)));
        let mut d = super::projection::project(doc, &only_id)?;
        if only_id
            .get("_id")
            .is_some_and(|v| !super::filter::truthy(v))
        {
            d.remove("_id");
        } else if let Some(id) = doc.get("_id") {
            d.insert("_id", id.clone());
        }
        d
    };
    for (path, v) in computed {
        if v != Bson::Undefined {
            out.insert(path, v);
        }
    }
    Ok(out)
}

/// Evaluates an aggregation expression against a document: a `$field.path`, `$$ROOT`,
/// an operator (`$literal`, `$add`, `$subtract`, `$multiply`, `$divide`, `$ifNull`,
/// `$concat`, `$size`, `$sum`), an object or array of expressions, or a constant.
/// A missing path gives `Bson::Undefined`, which callers treat as missing.
pub fn eval(expr: &Bson, doc: &Document) -> Result<Bson, ClusterError> {
    match expr {
        Bson::String(s) if s == "$$ROOT" || s == "$$CURRENT" => Ok(Bson::Document(doc.clone())),
        Bson::String(s) if s.starts_with("$$") => Err(coded(
            Code::Location17276,
            format!("Use of undefined variable: {}", &s[2..]),
        )),
        Bson::String(s) if s.starts_with('$') => Ok(field_path(doc, &s[1..])),
        Bson::Document(d) => match d.iter().next() {
            Some((op, arg)) if op.starts_with('$') => {
                if d.len() != 1 {
                    return Err(coded(
                        Code::Location15983,
                        "An object representing an expression must have exactly one field",
                    ));
                }
                operator(op, arg, doc)
            }
            _ => {
                let mut out = Document::new();
                for (k, v) in d {
                    let v = eval(v, doc)?;
                    if v != Bson::Undefined {
                        out.insert(k.clone(), v);
                    }
                }
                Ok(Bson::Document(out))
            }
        },
        Bson::Array(items) => Ok(Bson::Array(
            items
                .iter()
                .map(|i| eval(i, doc).map(|v| if v == Bson::Undefined { Bson::Null } else { v }))
                .collect::<Result<_, _>>()?,
        )),
        other => Ok(other.clone()),
    }
}

/// The arguments of an operator: an array's elements, or the one value.
fn operands(arg: &Bson, doc: &Document) -> Result<Vec<Bson>, ClusterError> {
    match arg {
        Bson::Array(items) => items.iter().map(|i| eval(i, doc)).collect(),
        one => Ok(vec![eval(one, doc)?]),
    }
}

fn operator(op: &str, arg: &Bson, doc: &Document) -> Result<Bson, ClusterError> {
    if op == "$literal" {
        return Ok(arg.clone());
    }
    let args = operands(arg, doc)?;
    let nullish = |v: &Bson| matches!(v, Bson::Null | Bson::Undefined);
    Ok(match op {
        "$add" | "$sum" => args
            .iter()
            .filter(|v| op == "$add" || is_number(v))
            .try_fold(Bson::Int32(0), |a, v| {
                if nullish(v) {
                    None
                } else {
                    Some(add(&a, v))
                }
            })
            .unwrap_or(Bson::Null),
        "$subtract" | "$multiply" | "$divide" => match args.as_slice() {
            [a, b] if !nullish(a) && !nullish(b) => match op {
                "$subtract" => arith(a, b, i64::checked_sub, |x, y| x - y),
                "$multiply" => arith(a, b, i64::checked_mul, |x, y| x * y),
                _ => match (as_f64(a), as_f64(b)) {
                    (Some(x), Some(y)) if y != 0.0 => Bson::Double(x / y),
                    _ => Bson::Null,
                },
            },
            _ => Bson::Null,
        },
        "$ifNull" => args
            .iter()
            .find(|v| !nullish(v))
            .cloned()
            .unwrap_or(Bson::Null),
        "$concat" => {
            let mut s = String::new();
            for v in &args {
                match v {
                    Bson::String(p) => s.push_str(p),
                    _ => return Ok(Bson::Null),
                }
            }
            Bson::String(s)
        }
        "$size" => match args.first() {
            Some(Bson::Array(a)) => Bson::Int32(a.len() as i32),
            _ => {
                return Err(coded(
                    Code::Location17124,
                    "The argument to $size must be an array",
                ))
            }
        },
        other => {
            return Err(coded(
                Code::InvalidPipelineOperator,
                format!("Unrecognized expression '{other}'"),
            ))
        }
    })
}

/// The value of `$path` in an expression: through embedded documents, and through an
/// array into each element that has the rest of the path (an array of the values found).
fn field_path(doc: &Document, path: &str) -> Bson {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.len() > super::path::MAX_PATH_PARTS {
        // No stored document nests that deep, so such a path reaches nothing.
        return Bson::Undefined;
    }
    match doc.get(parts[0]) {
        None => Bson::Undefined,
        Some(v) => follow(v, &parts[1..]),
    }
}

fn follow(value: &Bson, rest: &[&str]) -> Bson {
    let Some((first, more)) = rest.split_first() else {
        return value.clone();
    };
    match value {
        Bson::Document(d) => d.get(*first).map_or(Bson::Undefined, |v| follow(v, more)),
        Bson::Array(items) => Bson::Array(
            items
                .iter()
                .map(|i| follow(i, rest))
                .filter(|v| *v != Bson::Undefined)
                .collect(),
        ),
        _ => Bson::Undefined,
    }
}
