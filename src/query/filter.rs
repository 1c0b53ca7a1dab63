//! MongoDB's filters: parsing a filter document and matching documents against it.
//!
//! A filter is parsed into a [`Filter`] tree before anything is evaluated, as MongoDB
//! parses a `MatchExpression`: a bad operator is reported even when an earlier
//! predicate already rules the document out. Query targeting (`targeting.rs`) reads
//! the same tree to build key ranges.
//!
//! Values compare with [`compare_values`] (spec §1) under MongoDB's type bracketing:
//! `$gt`, `$gte`, `$lt` and `$lte` only match values of the operand's canonical type
//! class, except that MinKey and MaxKey operands compare with everything.

use super::path::{array_index, check_path_length, MAX_PATH_PARTS};
use super::regex::Regex;
use crate::values::error::ClusterError;
use crate::values::order::{canonical_class, compare_values};
use bson::{Bson, Document};
use std::cmp::Ordering;

// `engine::crud` reaches updates through this module; they live in `update.rs`.
pub use super::update::apply_update;

/// A parsed query filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Every child matches: the implicit conjunction of a filter's fields, or `$and`.
    And(Vec<Filter>),
    /// At least one child matches (`$or`).
    Or(Vec<Filter>),
    /// No child matches (`$nor`).
    Nor(Vec<Filter>),
    /// A dotted path and the predicates its values must all satisfy.
    Field(String, Vec<Predicate>),
}

/// A predicate on the values found at one path.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// Implicit equality or `$eq`.
    Eq(Bson),
    /// `$ne`: no value at the path equals the operand.
    Ne(Bson),
    /// `$gt`.
    Gt(Bson),
    /// `$gte`.
    Gte(Bson),
    /// `$lt`.
    Lt(Bson),
    /// `$lte`.
    Lte(Bson),
    /// `$in`: some value equals one of the operands (a regular expression operand
    /// matches strings); the operands' regular expressions come compiled, once.
    In(Vec<Bson>, Vec<Regex>),
    /// `$nin`: the negation of `$in`.
    Nin(Vec<Bson>, Vec<Regex>),
    /// `$exists`.
    Exists(bool),
    /// A regular expression literal or `$regex` (with `$options`).
    Regex(Regex),
    /// `$not`: the predicates do not all hold.
    Not(Vec<Predicate>),
}

/// The deepest `$and`/`$or`/`$nor`/`$not` may nest in a filter, as in MongoDB.
const MAX_FILTER_DEPTH: u32 = 100;

/// Parses a filter document into a [`Filter`], with MongoDB's errors for bad operators.
pub fn parse_filter(filter: &Document) -> Result<Filter, ClusterError> {
    parse_filter_at(filter, 0)
}

/// [`parse_filter`] at a nesting depth.
fn parse_filter_at(filter: &Document, depth: u32) -> Result<Filter, ClusterError> {
    if depth > MAX_FILTER_DEPTH {
        return Err(too_deep());
    }
    let mut children = Vec::with_capacity(filter.len());
    for (key, value) in filter {
        if let Some(op) = key.strip_prefix('$') {
            match op {
                "and" | "or" | "nor" => {
                    let Bson::Array(items) = value else {
                        return Err(bad("$and/$or/$nor must be a nonempty array"));
                    };
                    if items.is_empty() {
                        return Err(bad("$and/$or/$nor must be a nonempty array"));
                    }
                    let mut branches = Vec::with_capacity(items.len());
                    for item in items {
                        let Bson::Document(d) = item else {
                            return Err(bad("$or/$and/$nor entries need to be full objects"));
                        };
                        branches.push(parse_filter_at(d, depth + 1)?);
                    }
                    children.push(match op {
                        "and" => Filter::And(branches),
                        "or" => Filter::Or(branches),
                        _ => Filter::Nor(branches),
                    });
                }
                // A comment never changes what matches.
                "comment" => {}
                _ => return Err(bad(&format!("unknown top level operator: {key}"))),
            }
        } else {
            check_path_length(key)?;
            children.push(Filter::Field(key.clone(), parse_field(value, depth)?));
        }
    }
    Ok(Filter::And(children))
}

/// Parses the value given for a field: an operator object, a regular expression
/// literal, or a value to be equal to.
fn parse_field(value: &Bson, depth: u32) -> Result<Vec<Predicate>, ClusterError> {
    match value {
        Bson::Document(d) if is_operator_object(d) => parse_operators(d, depth),
        Bson::RegularExpression(r) => Ok(vec![Predicate::Regex(Regex::new(
            r.pattern.as_str(),
            r.options.as_str(),
        )?)]),
        other => Ok(vec![Predicate::Eq(other.clone())]),
    }
}

/// `filter` as explain prints a query (`parsedQuery`, a stage's `filter`): the
/// canonical `MatchExpression` serialized (`MatchExpression::serialize`). Each field's
/// condition becomes one leaf per operator, an implicit equality written as `$eq`, a
/// `$in` list sorted and without repeats (its equality set); a negation
/// (`$ne`, `$nin`, `$not`, `$exists: false`) is the negated leaf under `$not`
/// (`NotMatchExpression::serialize`); a regular expression is `$regex` with `$options`
/// when it has flags; `$and` children join their parent, `$or` and `$nor` keep their
/// children, each serialized the same way, and one-child `$and`/`$or` are that child
/// (the optimizer's rewrites). Several leaves are an `$and` in `CanonicalQuery::sortTree`'s
/// order (`matchExpressionComparator`: the `MatchType` in expression.h's order, `AND`,
/// `OR`, `EQ`, `LTE`, `LT`, `GT`, `GTE`, `REGEX`, `MOD`, `EXISTS`, `MATCH_IN`, ...,
/// `NOT`, `NOR`, then the path). Filters with other shapes are given back as written.
pub fn explain_form(filter: &Document) -> Document {
    explain_leaves(filter).map_or_else(|| filter.clone(), join_leaves)
}

/// [`explain_form`] as 3.6 writes a negation: `NotMatchExpression::serialize` then made
/// every `$not` a `$nor` of its child ("serializing to $not [may not give] a parseable
/// MatchExpression. As a fix, we change it to $nor"), so `{x: {$not: {$eq: 5}}}` is
/// `{$nor: [{x: {$eq: 5}}]}`; the single-path `$not` form came with 4.4.
pub fn not_as_nor(form: &Document) -> Document {
    let mut out = Document::new();
    for (key, value) in form {
        match value {
            Bson::Document(cond) if !key.starts_with('$') && cond.len() == 1 => {
                if let Some(Bson::Document(negated)) = cond.get("$not") {
                    let mut child = Document::new();
                    child.insert(key.clone(), Bson::Document(negated.clone()));
                    out.insert("$nor", Bson::Array(vec![Bson::Document(child)]));
                    continue;
                }
                out.insert(key.clone(), value.clone());
            }
            Bson::Array(items) if matches!(key.as_str(), "$and" | "$or" | "$nor") => {
                let items = items
                    .iter()
                    .map(|i| match i {
                        Bson::Document(d) => Bson::Document(not_as_nor(d)),
                        other => other.clone(),
                    })
                    .collect();
                out.insert(key.clone(), Bson::Array(items));
            }
            other => {
                out.insert(key.clone(), other.clone());
            }
        }
    }
    out
}

/// One leaf of [`explain_form`]: its `MatchType` rank, its path and its serialization.
type Leaf = (u8, String, Document);

/// Sorted leaves as one expression: nothing, the one leaf, or their `$and`.
fn join_leaves(mut leaves: Vec<Leaf>) -> Document {
    leaves.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let mut docs: Vec<Document> = leaves.into_iter().map(|(_, _, d)| d).collect();
    match docs.len() {
        0 => Document::new(),
        1 => docs.remove(0),
        _ => {
            let mut and = Document::new();
            and.insert(
                "$and",
                Bson::Array(docs.into_iter().map(Bson::Document).collect()),
            );
            and
        }
    }
}

/// The leaves of [`explain_form`], or `None` for a shape it leaves as written.
fn explain_leaves(filter: &Document) -> Option<Vec<Leaf>> {
    let mut leaves = Vec::with_capacity(filter.len());
    for (path, value) in filter {
        match path.as_str() {
            "$and" => {
                for child in logical_children(value)? {
                    leaves.extend(explain_leaves(child)?);
                }
            }
            "$or" | "$nor" => leaves.push(logical_leaf(path, value)?),
            p if p.starts_with('$') => return None,
            _ => field_leaves(path, value, &mut leaves)?,
        }
    }
    Some(leaves)
}

/// The documents of a `$and`, `$or` or `$nor` list.
fn logical_children(value: &Bson) -> Option<Vec<&Document>> {
    let Bson::Array(items) = value else {
        return None;
    };
    items
        .iter()
        .map(|i| match i {
            Bson::Document(d) => Some(d),
            _ => None,
        })
        .collect()
}

/// A `$or` or `$nor` leaf: each child serialized, the children sorted as `sortTree`
/// sorts them (a child of several leaves is an `AND`, rank 0); a `$or` of one child is
/// that child.
fn logical_leaf(op: &str, value: &Bson) -> Option<Leaf> {
    let mut children: Vec<Leaf> = Vec::new();
    for child in logical_children(value)? {
        let mut leaves = explain_leaves(child)?;
        children.push(match leaves.len() {
            1 => leaves.remove(0),
            _ => (0, String::new(), join_leaves(leaves)),
        });
    }
    if op == "$or" && children.len() == 1 {
        return children.pop();
    }
    children.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let list = children
        .into_iter()
        .map(|(_, _, d)| Bson::Document(d))
        .collect();
    let mut d = Document::new();
    d.insert(op, Bson::Array(list));
    Some((if op == "$or" { 1 } else { 19 }, String::new(), d))
}

/// The leaves of one field's condition: one per operator.
fn field_leaves(path: &str, value: &Bson, leaves: &mut Vec<Leaf>) -> Option<()> {
    let leaf = |rank: u8, condition: Document| {
        let mut d = Document::new();
        d.insert(path.to_string(), condition);
        (rank, path.to_string(), d)
    };
    match value {
        Bson::RegularExpression(r) => {
            leaves.push(leaf(
                10,
                regex_condition(r.pattern.as_str(), r.options.as_str()),
            ));
        }
        Bson::Document(ops) if is_operator_object(ops) => {
            if ops.contains_key("$regex") {
                let (pattern, options) = regex_operands(ops)?;
                leaves.push(leaf(10, regex_condition(&pattern, &options)));
            }
            for (op, operand) in ops {
                if matches!(op.as_str(), "$regex" | "$options") {
                    continue;
                }
                let (rank, condition) = operator_condition(op, operand)?;
                leaves.push(leaf(rank, condition));
            }
        }
        other => leaves.push(leaf(5, one("$eq", other.clone()))),
    }
    Some(())
}

/// One operator's serialized condition and its `MatchType` rank, negations as `$not`
/// of the leaf they negate (rank 18, `NOT`).
fn operator_condition(op: &str, operand: &Bson) -> Option<(u8, Document)> {
    let not = |inner: Document| (18, one("$not", Bson::Document(inner)));
    Some(match (op, operand) {
        ("$eq", v) => (5, one("$eq", v.clone())),
        ("$lte", v) => (6, one("$lte", v.clone())),
        ("$lt", v) => (7, one("$lt", v.clone())),
        ("$gt", v) => (8, one("$gt", v.clone())),
        ("$gte", v) => (9, one("$gte", v.clone())),
        ("$exists", v) if truthy(v) => (12, one("$exists", Bson::Boolean(true))),
        ("$exists", _) => not(one("$exists", Bson::Boolean(true))),
        ("$in", Bson::Array(items)) => in_condition(items)?,
        ("$ne", v) if !matches!(v, Bson::RegularExpression(_)) => not(one("$eq", v.clone())),
        ("$nin", Bson::Array(items)) => not(in_condition(items)?.1),
        ("$not", Bson::RegularExpression(r)) => {
            not(regex_condition(r.pattern.as_str(), r.options.as_str()))
        }
        ("$not", Bson::Document(inner)) if inner.len() == 1 => {
            let (op, operand) = inner.iter().next()?;
            let (rank, condition) = operator_condition(op, operand)?;
            if rank == 18 {
                return None;
            }
            not(condition)
        }
        _ => return None,
    })
}

/// A `$regex` (with `$options`) operator's pattern and flags.
fn regex_operands(ops: &Document) -> Option<(String, String)> {
    let options = match ops.get("$options") {
        None => String::new(),
        Some(Bson::String(o)) => o.clone(),
        Some(_) => return None,
    };
    match ops.get("$regex")? {
        Bson::String(p) => Some((p.clone(), options)),
        Bson::RegularExpression(r) if options.is_empty() => {
            Some((r.pattern.to_string(), r.options.to_string()))
        }
        Bson::RegularExpression(r) => Some((r.pattern.to_string(), options)),
        _ => None,
    }
}

/// `RegexMatchExpression`'s right-hand side: `$regex`, then `$options` if any flags.
fn regex_condition(pattern: &str, options: &str) -> Document {
    let mut d = one("$regex", Bson::String(pattern.to_string()));
    if !options.is_empty() {
        d.insert("$options", options);
    }
    d
}

/// A document of one field.
fn one(key: &str, value: Bson) -> Document {
    let mut d = Document::new();
    d.insert(key, value);
    d
}

/// A `$in` list as its equality set holds it: sorted, without repeats; `None` when empty
/// or holding a regular expression.
fn in_set(items: &[Bson]) -> Option<Vec<Bson>> {
    if items.is_empty()
        || items
            .iter()
            .any(|v| matches!(v, Bson::RegularExpression(_)))
    {
        return None;
    }
    let mut set = items.to_vec();
    set.sort_by(compare_values);
    set.dedup_by(|a, b| compare_values(a, b) == Ordering::Equal);
    Some(set)
}

/// A `$in` as the optimizer leaves it (`InMatchExpression::getOptimizer`, 3.6 on): one
/// regular expression alone is that regex, one value alone an equality, else the set.
fn in_condition(items: &[Bson]) -> Option<(u8, Document)> {
    if let [Bson::RegularExpression(r)] = items {
        return Some((10, regex_condition(r.pattern.as_str(), r.options.as_str())));
    }
    let mut set = in_set(items)?;
    Some(if set.len() == 1 {
        (5, one("$eq", set.remove(0)))
    } else {
        (13, one("$in", Bson::Array(set)))
    })
}

/// True when a document's first field names an operator, which makes the whole
/// document an operator object (MongoDB's `isExpressionDocument`). A DBRef's `$ref`,
/// `$id` and `$db` are plain fields.
fn is_operator_object(d: &Document) -> bool {
    d.keys()
        .next()
        .is_some_and(|k| k.starts_with('$') && !matches!(k.as_str(), "$ref" | "$id" | "$db"))
}

/// Parses an operator object such as `{$gt: 1, $lt: 5}`.
fn parse_operators(d: &Document, depth: u32) -> Result<Vec<Predicate>, ClusterError> {
    if depth > MAX_FILTER_DEPTH {
        return Err(too_deep());
    }
    let mut preds = Vec::with_capacity(d.len());
    let options = match d.get("$options") {
        None => None,
        Some(Bson::String(s)) => Some(s.as_str()),
        Some(_) => return Err(bad("$options has to be a string")),
    };
    if options.is_some() && !d.contains_key("$regex") {
        return Err(bad("$options needs a $regex"));
    }
    for (op, operand) in d {
        let pred = match op.as_str() {
            "$eq" => Predicate::Eq(operand.clone()),
            "$ne" => Predicate::Ne(operand.clone()),
            "$gt" => Predicate::Gt(operand.clone()),
            "$gte" => Predicate::Gte(operand.clone()),
            "$lt" => Predicate::Lt(operand.clone()),
            "$lte" => Predicate::Lte(operand.clone()),
            "$in" | "$nin" => {
                let Bson::Array(items) = operand else {
                    return Err(bad(&format!("{op} needs an array")));
                };
                let mut regexes = Vec::new();
                for item in items {
                    if let Bson::Document(inner) = item {
                        if is_operator_object(inner) {
                            return Err(bad("cannot nest $ under $in"));
                        }
                    }
                    if let Bson::RegularExpression(r) = item {
                        regexes.push(Regex::new(r.pattern.as_str(), r.options.as_str())?);
                    }
                }
                if op == "$in" {
                    Predicate::In(items.clone(), regexes)
                } else {
                    Predicate::Nin(items.clone(), regexes)
                }
            }
            "$exists" => Predicate::Exists(truthy(operand)),
            "$regex" => {
                let (pattern, own_options) = match operand {
                    Bson::String(s) => (s.as_str(), ""),
                    Bson::RegularExpression(r) => (r.pattern.as_str(), r.options.as_str()),
                    _ => return Err(bad("$regex has to be a string")),
                };
                if options.is_some() && !own_options.is_empty() {
                    return Err(bad("options set in both $regex and $options"));
                }
                Predicate::Regex(Regex::new(pattern, options.unwrap_or(own_options))?)
            }
            // Read together with `$regex` above.
            "$options" => continue,
            "$not" => match operand {
                Bson::RegularExpression(r) => Predicate::Not(vec![Predicate::Regex(Regex::new(
                    r.pattern.as_str(),
                    r.options.as_str(),
                )?)]),
                Bson::Document(inner) if inner.is_empty() => {
                    return Err(bad("$not cannot be empty"));
                }
                Bson::Document(inner) if is_operator_object(inner) => {
                    Predicate::Not(parse_operators(inner, depth + 1)?)
                }
                Bson::Document(inner) => {
                    let first = inner.keys().next().map(String::as_str).unwrap_or("");
                    return Err(bad(&format!("unknown operator: {first}")));
                }
                _ => return Err(bad("$not needs a regex or a document")),
            },
            _ => return Err(bad(&format!("unknown operator: {op}"))),
        };
        preds.push(pred);
    }
    Ok(preds)
}

/// MongoDB's truthiness for flags such as `$exists`: false, zero, null and undefined
/// are false, everything else true.
pub(super) fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Int32(i) => *i != 0,
        Bson::Int64(i) => *i != 0,
        Bson::Double(d) => *d != 0.0,
        Bson::Null | Bson::Undefined => false,
        _ => true,
    }
}

/// The error for a filter nested deeper than [`MAX_FILTER_DEPTH`].
fn too_deep() -> ClusterError {
    ClusterError::BadValue(format!(
        "exceeded maximum query tree depth of {MAX_FILTER_DEPTH}"
    ))
}

/// Shorthand for a `BadValue` error.
pub(super) fn bad(message: &str) -> ClusterError {
    ClusterError::BadValue(message.to_owned())
}

/// True when `doc` matches `filter`, with MongoDB's semantics for implicit equality,
/// `$eq $ne $gt $gte $lt $lte $in $nin $exists $regex $not $and $or $nor`, dotted
/// paths and arrays.
///
/// A path through an array looks into every element (and into the element at a
/// numeric position); an array at the end of a path matches when the array itself
/// or any of its elements matches. A missing field counts as null, so `{x: null}`
/// matches documents without `x`.
///
/// Fails when a regular expression cannot finish within the statement's work budget,
/// or the budget is spent (each document tested costs `DOC_SCAN_UNITS`).
pub fn matches(filter: &Document, doc: &Document) -> Result<bool, ClusterError> {
    parse_filter(filter)?.matches(doc)
}

impl Filter {
    /// True when the document satisfies this filter; charges the statement's work
    /// budget for one document scanned, and fails when it is spent or a regular
    /// expression cannot finish (see [`matches`]).
    pub fn matches(&self, doc: &Document) -> Result<bool, ClusterError> {
        crate::support::budget::charge(crate::support::budget::DOC_SCAN_UNITS)?;
        self.test(doc)
    }

    /// [`Filter::matches`] without the charge, for the children of one document's test.
    fn test(&self, doc: &Document) -> Result<bool, ClusterError> {
        match self {
            Filter::And(children) => try_all(children, |c| c.test(doc)),
            Filter::Or(children) => try_any(children, |c| c.test(doc)),
            Filter::Nor(children) => Ok(!try_any(children, |c| c.test(doc))?),
            Filter::Field(path, preds) => {
                let values = path_values(doc, path);
                try_all(preds, |p| p.matches(&values))
            }
        }
    }
}

impl Predicate {
    /// True when the values found at a path (`None` for a missing field) satisfy
    /// the predicate.
    fn matches(&self, values: &[Option<&Bson>]) -> Result<bool, ClusterError> {
        Ok(match self {
            Predicate::Eq(v) => values.iter().any(|c| equals(*c, v)),
            Predicate::Ne(v) => !values.iter().any(|c| equals(*c, v)),
            Predicate::Gt(v) => values.iter().any(|c| compares(*c, v, &[Ordering::Greater])),
            Predicate::Gte(v) => values
                .iter()
                .any(|c| compares(*c, v, &[Ordering::Greater, Ordering::Equal])),
            Predicate::Lt(v) => values.iter().any(|c| compares(*c, v, &[Ordering::Less])),
            Predicate::Lte(v) => values
                .iter()
                .any(|c| compares(*c, v, &[Ordering::Less, Ordering::Equal])),
            Predicate::In(items, regexes) => try_any(values, |c| in_list(*c, items, regexes))?,
            Predicate::Nin(items, regexes) => !try_any(values, |c| in_list(*c, items, regexes))?,
            Predicate::Exists(want) => values.iter().any(Option::is_some) == *want,
            Predicate::Regex(r) => {
                try_any(values, |c| c.map_or(Ok(false), |c| r.matches_value(c)))?
            }
            Predicate::Not(preds) => !try_all(preds, |p| p.matches(values))?,
        })
    }
}

/// `Iterator::all` for a test that may fail: stops at the first `false` or error.
fn try_all<T>(
    items: &[T],
    mut f: impl FnMut(&T) -> Result<bool, ClusterError>,
) -> Result<bool, ClusterError> {
    for item in items {
        if !f(item)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `Iterator::any` for a test that may fail: stops at the first `true` or error.
fn try_any<T>(
    items: &[T],
    mut f: impl FnMut(&T) -> Result<bool, ClusterError>,
) -> Result<bool, ClusterError> {
    for item in items {
        if f(item)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Equality of one value found at a path with an operand; missing equals null.
fn equals(candidate: Option<&Bson>, operand: &Bson) -> bool {
    let c = candidate.unwrap_or(&Bson::Null);
    canonical_class(c) == canonical_class(operand) && compare_values(c, operand).is_eq()
}

/// True when one value found at a path equals one of the `$in` operands, or is matched
/// by one of its regular expressions (compiled with the filter).
fn in_list(
    candidate: Option<&Bson>,
    items: &[Bson],
    regexes: &[Regex],
) -> Result<bool, ClusterError> {
    let equal = items
        .iter()
        .any(|item| !matches!(item, Bson::RegularExpression(_)) && equals(candidate, item));
    match candidate {
        _ if equal => Ok(true),
        Some(c) => try_any(regexes, |r| r.matches_value(c)),
        None => Ok(false),
    }
}

/// A range comparison of one value with an operand under type bracketing
/// (MongoDB's `ComparisonMatchExpressionBase::matchesSingleElement`).
fn compares(candidate: Option<&Bson>, operand: &Bson, accept: &[Ordering]) -> bool {
    let c = candidate.unwrap_or(&Bson::Null);
    let inclusive = accept.contains(&Ordering::Equal);
    if is_nan(operand) {
        // NaN is only ever equal to NaN: `$gt: NaN` and `$lt: NaN` match nothing.
        return inclusive && is_nan(c);
    }
    if canonical_class(c) != canonical_class(operand) {
        // Values of different classes never compare, except with MinKey and MaxKey
        // operands, which sit below and above everything.
        return matches!(operand, Bson::MinKey | Bson::MaxKey)
            && accept.contains(&compare_values(c, operand));
    }
    accept.contains(&compare_values(c, operand))
}

/// True for a double or decimal NaN.
pub(crate) fn is_nan(v: &Bson) -> bool {
    match v {
        Bson::Double(d) => d.is_nan(),
        Bson::Decimal128(d) => crate::values::decimal::Decimal::from_bson(d).is_nan(),
        _ => false,
    }
}

/// The values a dotted path reaches in a document, `None` standing for a missing
/// field. Arrays on the path are traversed element by element (documents only), and
/// an array at the end contributes itself and each of its elements.
///
/// A path longer than the filter parser accepts reaches nothing.
///
/// This is not `values::path`'s walk, which stops at the first array: a filter looks
/// into every element of an array it meets, so the walk branches and collects.
pub fn path_values<'a>(doc: &'a Document, path: &str) -> Vec<Option<&'a Bson>> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    if parts.len() > MAX_PATH_PARTS {
        return vec![None];
    }
    walk_document(doc, &parts, &mut out, true);
    if out.is_empty() {
        // Nothing was reached (an array with no documents on the way): the field is
        // missing.
        out.push(None);
    }
    out
}

/// The values `distinct` takes from a document at a dotted path: an array there gives
/// its elements, not itself (`dps::extractAllElementsAlongPath`); a missing field gives
/// nothing.
pub fn distinct_values<'a>(doc: &'a Document, path: &str) -> Vec<&'a Bson> {
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    if parts.len() <= MAX_PATH_PARTS {
        walk_document(doc, &parts, &mut out, false);
    }
    out.into_iter().flatten().collect()
}

/// Follows `parts` from a document.
pub(super) fn walk_document<'a>(
    doc: &'a Document,
    parts: &[&str],
    out: &mut Vec<Option<&'a Bson>>,
    whole_arrays: bool,
) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    match doc.get(*first) {
        None => out.push(None),
        Some(v) => walk_value(v, rest, out, whole_arrays),
    }
}

/// Follows `parts` from a value reached so far.
fn walk_value<'a>(
    value: &'a Bson,
    parts: &[&str],
    out: &mut Vec<Option<&'a Bson>>,
    whole_arrays: bool,
) {
    if parts.is_empty() {
        if let Bson::Array(items) = value {
            if whole_arrays {
                out.push(Some(value));
            }
            out.extend(items.iter().map(Some));
        } else {
            out.push(Some(value));
        }
        return;
    }
    match value {
        Bson::Document(d) => walk_document(d, parts, out, whole_arrays),
        Bson::Array(items) => {
            if let Some(index) = array_index(parts[0]) {
                if let Some(item) = items.get(index) {
                    walk_value(item, &parts[1..], out, whole_arrays);
                }
            }
            for item in items {
                if let Bson::Document(d) = item {
                    walk_document(d, parts, out, whole_arrays);
                }
            }
        }
        _ => out.push(None),
    }
}
