//! MongoDB query semantics over documents: filters, updates, sorts and projections.
//!
//! A filter is parsed into a [`Filter`] tree before anything is evaluated, as MongoDB
//! parses a `MatchExpression`: a bad operator is reported even when an earlier
//! predicate already rules the document out. Query targeting (`targeting.rs`) reads
//! the same tree to build key ranges.
//!
//! Values compare with [`compare_values`] (spec §1) under MongoDB's type bracketing:
//! `$gt`, `$gte`, `$lt` and `$lte` only match values of the operand's canonical type
//! class, except that MinKey and MaxKey operands compare with everything.

use crate::keys::shard_key::format_bson_element;
use crate::values::error::ClusterError;
use crate::values::order::{canonical_class, compare_values};
use bson::{Bson, Document};
use std::cmp::Ordering;

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
    /// matches strings).
    In(Vec<Bson>),
    /// `$nin`: the negation of `$in`.
    Nin(Vec<Bson>),
    /// `$exists`.
    Exists(bool),
    /// A regular expression literal or `$regex` (with `$options`).
    Regex(Regex),
    /// `$not`: the predicates do not all hold.
    Not(Vec<Predicate>),
}

/// A regular expression from a filter, compiled by ShardLab's small matcher.
#[derive(Debug, Clone, PartialEq)]
pub struct Regex {
    /// The pattern as written.
    pub pattern: String,
    /// The option letters as written (`i`, `m`, `s`, `x` are understood).
    pub options: String,
    /// The compiled form.
    program: regex_lite::Program,
}

impl Regex {
    /// Compiles a pattern with its options, refusing syntax the matcher does not know.
    pub fn new(pattern: &str, options: &str) -> Result<Self, ClusterError> {
        let program = regex_lite::Program::compile(pattern, options).map_err(|why| {
            ClusterError::BadValue(format!(
                "Regular expression is invalid or not supported by ShardLab: {why}"
            ))
        })?;
        Ok(Regex {
            pattern: pattern.to_owned(),
            options: options.to_owned(),
            program,
        })
    }

    /// True when the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.program.is_match(text)
    }

    /// True when a value matches: a string (or symbol) the pattern finds, or the very
    /// same regular expression stored as a value.
    fn matches_value(&self, value: &Bson) -> bool {
        match value {
            Bson::String(s) | Bson::Symbol(s) => self.is_match(s),
            Bson::RegularExpression(r) => {
                r.pattern.as_str() == self.pattern && r.options.as_str() == self.options
            }
            _ => false,
        }
    }
}

/// The deepest `$and`/`$or`/`$nor`/`$not` may nest in a filter, as in MongoDB.
const MAX_FILTER_DEPTH: u32 = 100;

/// The most parts a dotted path may have. Paths are walked recursively, so this
/// bounds the stack a hostile path can use.
const MAX_PATH_PARTS: usize = 200;

/// Refuses a dotted path with more than [`MAX_PATH_PARTS`] parts.
fn check_path_length(path: &str) -> Result<(), ClusterError> {
    if path.split('.').count() > MAX_PATH_PARTS {
        return Err(ClusterError::BadValue(format!(
            "the path '{path}' has more than {MAX_PATH_PARTS} parts"
        )));
    }
    Ok(())
}

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
                for item in items {
                    if let Bson::Document(inner) = item {
                        if is_operator_object(inner) {
                            return Err(bad("cannot nest $ under $in"));
                        }
                    }
                    if let Bson::RegularExpression(r) = item {
                        // Compiling early reports an unsupported pattern at parse time.
                        Regex::new(r.pattern.as_str(), r.options.as_str())?;
                    }
                }
                if op == "$in" {
                    Predicate::In(items.clone())
                } else {
                    Predicate::Nin(items.clone())
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
fn truthy(v: &Bson) -> bool {
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
fn bad(message: &str) -> ClusterError {
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
pub fn matches(filter: &Document, doc: &Document) -> Result<bool, ClusterError> {
    Ok(parse_filter(filter)?.matches(doc))
}

impl Filter {
    /// True when the document satisfies this filter.
    pub fn matches(&self, doc: &Document) -> bool {
        match self {
            Filter::And(children) => children.iter().all(|c| c.matches(doc)),
            Filter::Or(children) => children.iter().any(|c| c.matches(doc)),
            Filter::Nor(children) => !children.iter().any(|c| c.matches(doc)),
            Filter::Field(path, preds) => {
                let values = path_values(doc, path);
                preds.iter().all(|p| p.matches(&values))
            }
        }
    }
}

impl Predicate {
    /// True when the values found at a path (`None` for a missing field) satisfy
    /// the predicate.
    fn matches(&self, values: &[Option<&Bson>]) -> bool {
        match self {
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
            Predicate::In(items) => values.iter().any(|c| in_list(*c, items)),
            Predicate::Nin(items) => !values.iter().any(|c| in_list(*c, items)),
            Predicate::Exists(want) => values.iter().any(Option::is_some) == *want,
            Predicate::Regex(r) => values.iter().flatten().any(|c| r.matches_value(c)),
            Predicate::Not(preds) => !preds.iter().all(|p| p.matches(values)),
        }
    }
}

/// Equality of one value found at a path with an operand; missing equals null.
fn equals(candidate: Option<&Bson>, operand: &Bson) -> bool {
    let c = candidate.unwrap_or(&Bson::Null);
    canonical_class(c) == canonical_class(operand) && compare_values(c, operand).is_eq()
}

/// True when one value found at a path equals (or, for a regular expression, is
/// matched by) one of the `$in` operands.
fn in_list(candidate: Option<&Bson>, items: &[Bson]) -> bool {
    items.iter().any(|item| match item {
        Bson::RegularExpression(r) => match (
            candidate,
            Regex::new(r.pattern.as_str(), r.options.as_str()),
        ) {
            (Some(c), Ok(re)) => re.matches_value(c),
            _ => false,
        },
        _ => equals(candidate, item),
    })
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

/// Follows `parts` from a document.
fn walk_document<'a>(
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

/// A path part read as an array position: plain decimal digits only.
fn array_index(part: &str) -> Option<usize> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}

// ---------------------------------------------------------------------------------
// Updates
// ---------------------------------------------------------------------------------

/// The largest array position an update may write to; MongoDB refuses to pad an
/// array further than this.
const MAX_ARRAY_PADDING: usize = 1_500_000;

/// Applies an update document to `doc` and returns the new document, as an update
/// that does not insert does.
///
/// An update whose first field starts with `$` is an operator update (`$set`,
/// `$unset`, `$inc`; `$setOnInsert` is ignored); otherwise it is a replacement,
/// which keeps the old `_id`. Changing `_id` is refused with `ImmutableField`.
pub fn apply_update(doc: &Document, update: &Document) -> Result<Document, ClusterError> {
    apply_update_with(doc, update, false)
}

/// Applies an update to the document an upsert is inserting: `$setOnInsert` takes
/// effect too.
pub fn apply_update_for_insert(
    doc: &Document,
    update: &Document,
) -> Result<Document, ClusterError> {
    apply_update_with(doc, update, true)
}

/// The shared body of [`apply_update`] and [`apply_update_for_insert`].
fn apply_update_with(
    doc: &Document,
    update: &Document,
    inserting: bool,
) -> Result<Document, ClusterError> {
    let is_operator = update.keys().next().is_some_and(|k| k.starts_with('$'));
    if !is_operator {
        return replace(doc, update);
    }
    let mut ops: Vec<(&str, &Document)> = Vec::with_capacity(update.len());
    for (op, spec) in update {
        if !op.starts_with('$')
            || !matches!(op.as_str(), "$set" | "$unset" | "$inc" | "$setOnInsert")
        {
            return Err(ClusterError::FailedToParse(format!(
                "Unknown modifier: {op}. Expected a valid update modifier or pipeline-style update specified as an array"
            )));
        }
        let Bson::Document(spec) = spec else {
            return Err(ClusterError::FailedToParse(format!(
                "Modifiers operate on fields but we found type {} instead. For example: {{$mod: {{<field>: ...}}}} not {{{op}: {}}}",
                type_name(spec),
                crate::keys::shard_key::format_bson_value(spec)
            )));
        };
        ops.push((op.as_str(), spec));
    }
    check_paths(&ops)?;

    let mut root = Bson::Document(doc.clone());
    for (op, spec) in &ops {
        for (path, value) in spec.iter() {
            let parts: Vec<&str> = path.split('.').collect();
            match *op {
                "$set" => set_path(&mut root, "", &parts, value.clone())?,
                "$setOnInsert" if inserting => set_path(&mut root, "", &parts, value.clone())?,
                "$setOnInsert" => {}
                "$unset" => unset_path(&mut root, &parts),
                _ => {
                    let sum = increment(doc, path, get_path(&root, &parts), value)?;
                    set_path(&mut root, "", &parts, sum)?;
                }
            }
        }
    }
    let Bson::Document(new_doc) = root else {
        return Err(bad("the updated value is not a document"));
    };
    if let Some(old_id) = doc.get("_id") {
        let unchanged = new_doc.get("_id").is_some_and(|new_id| {
            compare_values(old_id, new_id).is_eq()
                && canonical_class(old_id) == canonical_class(new_id)
        });
        if !unchanged {
            let path = ops
                .iter()
                .flat_map(|(_, spec)| spec.keys())
                .find(|p| *p == "_id" || p.starts_with("_id."))
                .map(String::as_str)
                .unwrap_or("_id");
            return Err(ClusterError::ImmutableField(format!(
                "Performing an update on the path '{path}' would modify the immutable field '_id'"
            )));
        }
    }
    Ok(new_doc)
}

/// A replacement update: the new document, keeping the old `_id` in front.
fn replace(doc: &Document, replacement: &Document) -> Result<Document, ClusterError> {
    if let Some(key) = replacement.keys().find(|k| k.starts_with('$')) {
        return Err(ClusterError::DollarPrefixedFieldName(format!(
            "The dollar ($) prefixed field '{key}' in '{key}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."
        )));
    }
    let mut out = Document::new();
    match (doc.get("_id"), replacement.get("_id")) {
        (Some(old), Some(new)) => {
            if !(canonical_class(old) == canonical_class(new) && compare_values(old, new).is_eq()) {
                return Err(ClusterError::ImmutableField(format!(
                    "After applying the update, the (immutable) field '_id' was found to have been altered to {}",
                    format_bson_element("_id", new)
                )));
            }
            out.insert("_id", old.clone());
        }
        (Some(old), None) => {
            out.insert("_id", old.clone());
        }
        (None, Some(new)) => {
            out.insert("_id", new.clone());
        }
        (None, None) => {}
    }
    for (k, v) in replacement {
        if k != "_id" {
            out.insert(k.clone(), v.clone());
        }
    }
    Ok(out)
}

/// Refuses empty path parts and two operators touching the same path or a path and
/// its prefix (MongoDB's `ConflictingUpdateOperators`).
fn check_paths(ops: &[(&str, &Document)]) -> Result<(), ClusterError> {
    let mut seen: Vec<&str> = Vec::new();
    for (_, spec) in ops {
        for path in spec.keys() {
            check_path_length(path)?;
            if path.is_empty() || path.split('.').any(str::is_empty) {
                return Err(ClusterError::EmptyFieldName(format!(
                    "The update path '{path}' contains an empty field name, which is not allowed."
                )));
            }
            for earlier in &seen {
                let (short, long) = if earlier.len() <= path.len() {
                    (*earlier, path.as_str())
                } else {
                    (path.as_str(), *earlier)
                };
                let conflict = long == short
                    || (long.starts_with(short) && long.as_bytes().get(short.len()) == Some(&b'.'));
                if conflict {
                    return Err(ClusterError::ConflictingUpdateOperators(format!(
                        "Updating the path '{path}' would create a conflict at '{short}'"
                    )));
                }
            }
            seen.push(path.as_str());
        }
    }
    Ok(())
}

/// The value at a dotted path, following documents and array positions only.
fn get_path<'a>(root: &'a Bson, parts: &[&str]) -> Option<&'a Bson> {
    let mut current = root;
    for part in parts {
        current = match current {
            Bson::Document(d) => d.get(*part)?,
            Bson::Array(items) => items.get(array_index(part)?)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Sets the value at a dotted path, creating embedded documents on the way and
/// padding arrays with nulls, as `$set` does. `name` is the field name of `target`,
/// for error messages.
fn set_path(
    target: &mut Bson,
    name: &str,
    parts: &[&str],
    value: Bson,
) -> Result<(), ClusterError> {
    let Some((first, rest)) = parts.split_first() else {
        *target = value;
        return Ok(());
    };
    match target {
        Bson::Document(d) => {
            if rest.is_empty() {
                d.insert(*first, value);
                return Ok(());
            }
            if !d.contains_key(*first) {
                d.insert(*first, Bson::Document(Document::new()));
            }
            match d.get_mut(*first) {
                Some(child) => set_path(child, first, rest, value),
                None => Ok(()),
            }
        }
        Bson::Array(items) => {
            let Some(index) = array_index(first).filter(|i| *i <= MAX_ARRAY_PADDING) else {
                return Err(not_viable(first, name, &Bson::Array(items.clone())));
            };
            let padded = index >= items.len();
            if padded {
                items.resize(index + 1, Bson::Null);
            }
            let Some(slot) = items.get_mut(index) else {
                return Ok(());
            };
            if rest.is_empty() {
                *slot = value;
                return Ok(());
            }
            if padded {
                *slot = Bson::Document(Document::new());
            }
            set_path(slot, first, rest, value)
        }
        other => Err(not_viable(first, name, other)),
    }
}

/// MongoDB's `PathNotViable` text for a path that runs into a non-container.
fn not_viable(field: &str, name: &str, element: &Bson) -> ClusterError {
    ClusterError::PathNotViable(format!(
        "Cannot create field '{field}' in element {{{}}}",
        format_bson_element(name, element)
    ))
}

/// Removes the value at a dotted path (an array element becomes null), as `$unset`
/// does; a missing path is left alone.
fn unset_path(target: &mut Bson, parts: &[&str]) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    match target {
        Bson::Document(d) => {
            if rest.is_empty() {
                d.remove(*first);
            } else if let Some(child) = d.get_mut(*first) {
                unset_path(child, rest);
            }
        }
        Bson::Array(items) => {
            if let Some(slot) = array_index(first).and_then(|i| items.get_mut(i)) {
                if rest.is_empty() {
                    *slot = Bson::Null;
                } else {
                    unset_path(slot, rest);
                }
            }
        }
        _ => {}
    }
}

/// The value `$inc` leaves at a path: the sum with MongoDB's type promotion, or the
/// increment itself when the field is missing.
fn increment(
    doc: &Document,
    path: &str,
    current: Option<&Bson>,
    by: &Bson,
) -> Result<Bson, ClusterError> {
    if !matches!(
        by,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_)
    ) {
        return Err(ClusterError::TypeMismatch(format!(
            "Cannot increment with non-numeric argument: {{{}}}",
            format_bson_element(path, by)
        )));
    }
    let Some(current) = current else {
        return Ok(by.clone());
    };
    let field = path.rsplit('.').next().unwrap_or(path);
    match add_numbers(current, by) {
        Some(sum) => Ok(sum),
        None if matches!(current, Bson::Decimal128(_)) || matches!(by, Bson::Decimal128(_)) => {
            Err(bad("ShardLab cannot do arithmetic on NumberDecimal values"))
        }
        None => Err(ClusterError::TypeMismatch(format!(
            "Cannot apply $inc to a value of non-numeric type. {{{}}} has the field '{field}' of non-numeric type {}",
            doc.get("_id")
                .map(|id| format_bson_element("_id", id))
                .unwrap_or_else(|| "no id".to_owned()),
            type_name(current)
        ))),
    }
}

/// Adds two numbers as MongoDB's `SafeNum` does: int + int stays int32 unless it
/// overflows (then int64), int64 overflow becomes a double, and a double on either
/// side gives a double. Decimals are not supported (`None`).
fn add_numbers(a: &Bson, b: &Bson) -> Option<Bson> {
    let as_i64 = |v: &Bson| match v {
        Bson::Int32(i) => Some(i64::from(*i)),
        Bson::Int64(i) => Some(*i),
        _ => None,
    };
    let as_f64 = |v: &Bson| match v {
        Bson::Int32(i) => Some(f64::from(*i)),
        // The rounding to the nearest double is MongoDB's too.
        Bson::Int64(i) => Some(*i as f64),
        Bson::Double(d) => Some(*d),
        _ => None,
    };
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => Some(
            x.checked_add(*y)
                .map(Bson::Int32)
                .unwrap_or_else(|| Bson::Int64(i64::from(*x) + i64::from(*y))),
        ),
        _ => {
            if let (Some(x), Some(y)) = (as_i64(a), as_i64(b)) {
                return Some(
                    x.checked_add(y)
                        .map(Bson::Int64)
                        .unwrap_or(Bson::Double(x as f64 + y as f64)),
                );
            }
            Some(Bson::Double(as_f64(a)? + as_f64(b)?))
        }
    }
}

/// MongoDB's `typeName` for a value.
pub fn type_name(v: &Bson) -> &'static str {
    match v {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::Binary(_) => "binData",
        Bson::Undefined => "undefined",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Null => "null",
        Bson::RegularExpression(_) => "regex",
        Bson::DbPointer(_) => "dbPointer",
        Bson::JavaScriptCode(_) => "javascript",
        Bson::Symbol(_) => "symbol",
        Bson::JavaScriptCodeWithScope(_) => "javascriptWithScope",
        Bson::Int32(_) => "int",
        Bson::Timestamp(_) => "timestamp",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        Bson::MinKey => "minKey",
        Bson::MaxKey => "maxKey",
    }
}

// ---------------------------------------------------------------------------------
// Sorting and projection
// ---------------------------------------------------------------------------------

/// Sorts documents as MongoDB's `sort()` does: field by field with
/// [`compare_values`], a missing field as null, a negative value meaning descending
/// (anything else ascends; see [`check_sort`] to refuse bad values first). An array
/// sorts by its smallest element ascending and its largest descending; an empty
/// array sorts below null. The sort is stable.
pub fn sort_documents(docs: &mut [Document], sort: &Document) {
    let keys: Vec<(&str, bool)> = sort
        .iter()
        .map(|(path, dir)| {
            let descending = match dir {
                Bson::Int32(i) => *i < 0,
                Bson::Int64(i) => *i < 0,
                Bson::Double(d) => *d < 0.0,
                _ => false,
            };
            (path.as_str(), descending)
        })
        .collect();
    crate::support::sort::sort_by(docs, |a, b| {
        for (path, descending) in &keys {
            let ka = sort_key(a, path, *descending);
            let kb = sort_key(b, path, *descending);
            let o = compare_values(&ka, &kb);
            let o = if *descending { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    });
}

/// The value a document sorts by on one path.
fn sort_key(doc: &Document, path: &str, descending: bool) -> Bson {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.len() > MAX_PATH_PARTS {
        // `check_sort` refuses such a path; unchecked, it sorts as missing.
        return Bson::Null;
    }
    let mut values = Vec::new();
    walk_document(doc, &parts, &mut values, false);
    if values.is_empty() {
        // Only empty arrays were reached: MongoDB sorts them as undefined.
        return Bson::Undefined;
    }
    let pick = values.into_iter().map(|v| v.unwrap_or(&Bson::Null));
    let best = if descending {
        pick.max_by(|a, b| compare_values(a, b))
    } else {
        pick.min_by(|a, b| compare_values(a, b))
    };
    best.cloned().unwrap_or(Bson::Null)
}

/// A projection's paths as a tree: a leaf keeps or drops a whole field.
#[derive(Debug, Default)]
struct PathTree {
    /// True when the whole field at this node is named.
    leaf: bool,
    /// Sub-paths, in the order written.
    children: Vec<(String, PathTree)>,
}

impl PathTree {
    /// Adds a dotted path.
    fn add(&mut self, parts: &[&str]) {
        let Some((first, rest)) = parts.split_first() else {
            self.leaf = true;
            return;
        };
        let index = match self.children.iter().position(|(k, _)| k == first) {
            Some(i) => i,
            None => {
                self.children
                    .push(((*first).to_owned(), PathTree::default()));
                self.children.len() - 1
            }
        };
        if let Some((_, child)) = self.children.get_mut(index) {
            child.add(rest);
        }
    }

    /// The sub-tree for a field name.
    fn child(&self, name: &str) -> Option<&PathTree> {
        self.children
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t)
    }
}

/// Applies a `find` projection: inclusion (`{a: 1}`) or exclusion (`{a: 0}`), with
/// `_id` included unless excluded, dotted paths into embedded documents and arrays.
/// Mixing inclusion and exclusion (other than `_id`) is refused with MongoDB's text.
pub fn project(doc: &Document, projection: &Document) -> Result<Document, ClusterError> {
    let mut include_id = true;
    let mut mode: Option<bool> = None;
    let mut tree = PathTree::default();
    for (path, value) in projection {
        let include = match value {
            Bson::Boolean(b) => *b,
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                truthy(value)
            }
            _ => {
                return Err(bad(&format!(
                    "ShardLab supports only inclusion and exclusion projections, not {}",
                    format_bson_element(path, value)
                )))
            }
        };
        check_path_length(path)?;
        if path == "_id" {
            include_id = include;
            continue;
        }
        match mode {
            Some(true) if !include => {
                return Err(bad(&format!(
                    "Cannot do exclusion on field {path} in inclusion projection"
                )))
            }
            Some(false) if include => {
                return Err(bad(&format!(
                    "Cannot do inclusion on field {path} in exclusion projection"
                )))
            }
            _ => mode = Some(include),
        }
        let parts: Vec<&str> = path.split('.').collect();
        tree.add(&parts);
    }
    match mode {
        // Only `_id` named: `{_id: 0}` excludes it, `{_id: 1}` keeps only it.
        None if projection.is_empty() => Ok(doc.clone()),
        None if include_id => Ok(doc
            .get("_id")
            .map(|id| {
                let mut d = Document::new();
                d.insert("_id", id.clone());
                d
            })
            .unwrap_or_default()),
        None => {
            let mut out = doc.clone();
            out.remove("_id");
            Ok(out)
        }
        Some(true) => {
            let mut out = include_fields(doc, &tree);
            if include_id {
                if let Some(id) = doc.get("_id") {
                    if !out.contains_key("_id") {
                        // `_id` keeps its place: rebuild with it in document order.
                        let mut ordered = Document::new();
                        for (k, _) in doc {
                            if k == "_id" {
                                ordered.insert("_id", id.clone());
                            } else if let Some(v) = out.get(k) {
                                ordered.insert(k.clone(), v.clone());
                            }
                        }
                        out = ordered;
                    }
                }
            }
            Ok(out)
        }
        Some(false) => {
            let mut out = exclude_fields(doc, &tree);
            if !include_id {
                out.remove("_id");
            }
            Ok(out)
        }
    }
}

/// Keeps only the fields the tree names, in document order.
fn include_fields(doc: &Document, tree: &PathTree) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        let Some(sub) = tree.child(k) else {
            continue;
        };
        if sub.leaf {
            out.insert(k.clone(), v.clone());
            continue;
        }
        match v {
            Bson::Document(d) => {
                out.insert(k.clone(), include_fields(d, sub));
            }
            Bson::Array(items) => {
                let kept: Vec<Bson> = items
                    .iter()
                    .filter_map(|item| match item {
                        Bson::Document(d) => Some(Bson::Document(include_fields(d, sub))),
                        _ => None,
                    })
                    .collect();
                out.insert(k.clone(), kept);
            }
            // A scalar where the projection expects a document has nothing to keep.
            _ => {}
        }
    }
    out
}

/// Drops the fields the tree names, in document order.
fn exclude_fields(doc: &Document, tree: &PathTree) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        match tree.child(k) {
            None => {
                out.insert(k.clone(), v.clone());
            }
            Some(sub) if sub.leaf => {}
            Some(sub) => match v {
                Bson::Document(d) => {
                    out.insert(k.clone(), exclude_fields(d, sub));
                }
                Bson::Array(items) => {
                    let kept: Vec<Bson> = items
                        .iter()
                        .map(|item| match item {
                            Bson::Document(d) => Bson::Document(exclude_fields(d, sub)),
                            other => other.clone(),
                        })
                        .collect();
                    out.insert(k.clone(), kept);
                }
                other => {
                    out.insert(k.clone(), other.clone());
                }
            },
        }
    }
    out
}

/// A small backtracking regular expression matcher, enough for the patterns people
/// type in a playground: literals, `.`, classes (`[a-z]`, `[^0-9]`, `\d \w \s` and
/// their negations), anchors `^ $ \A \z`, word boundaries `\b \B`, groups
/// `( )` and `(?: )`, alternation `|` and the quantifiers `* + ? {n} {n,} {n,m}`
/// (lazy and possessive forms behave as greedy ones, which gives the same answer to
/// "is there a match"). Options: `i`, `m`, `s`, `x`. Back-references and look-around
/// are refused. A step budget keeps pathological patterns from running away.
mod regex_lite {
    use crate::query::case_fold::{lower, upper};
    use std::cell::Cell;

    /// The most backtracking steps one match may take before giving up (no match).
    const STEP_BUDGET: u32 = 1_000_000;

    /// The deepest the backtracking may nest (each repetition round nests once), so
    /// a long subject cannot exhaust the stack, natively or in wasm. A match that
    /// would need deeper nesting backs off to fewer repetitions or fails.
    const DEPTH_LIMIT: u32 = 1_000;

    /// The deepest groups may nest in a pattern.
    const GROUP_DEPTH_LIMIT: u32 = 50;

    /// A compiled pattern.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Program {
        /// The alternatives of the whole pattern.
        root: Vec<Vec<Node>>,
        /// `i`: ignore case.
        ignore_case: bool,
        /// `m`: `^` and `$` also match at line breaks.
        multiline: bool,
        /// `s`: `.` also matches a line break.
        dot_all: bool,
    }

    /// One element of a sequence.
    #[derive(Debug, Clone, PartialEq)]
    enum Node {
        /// A literal character.
        Char(char),
        /// `.`.
        Any,
        /// A bracketed or escaped class; the flag negates it.
        Class(Vec<ClassItem>, bool),
        /// `^`, or `\A` when the flag is set (text start only).
        Start(bool),
        /// `$`, or `\z` when the flag is set (text end only).
        End(bool),
        /// `\b` (true) or `\B` (false).
        WordBoundary(bool),
        /// A group's alternatives.
        Group(Vec<Vec<Node>>),
        /// A repeated node with its minimum and optional maximum count.
        Repeat(Box<Node>, u32, Option<u32>),
    }

    /// One member of a character class.
    #[derive(Debug, Clone, PartialEq)]
    enum ClassItem {
        /// An inclusive character range (a single character is a range of one).
        Range(char, char),
        /// `\d` or, negated, `\D`.
        Digit(bool),
        /// `\w` or, negated, `\W`.
        Word(bool),
        /// `\s` or, negated, `\S`.
        Space(bool),
    }

    impl ClassItem {
        /// True when the character belongs to this member.
        fn contains(&self, c: char) -> bool {
            match self {
                ClassItem::Range(lo, hi) => *lo <= c && c <= *hi,
                ClassItem::Digit(neg) => c.is_ascii_digit() != *neg,
                ClassItem::Word(neg) => is_word(c) != *neg,
                ClassItem::Space(neg) => c.is_whitespace() != *neg,
            }
        }
    }

    /// PCRE's word characters.
    fn is_word(c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_'
    }

    /// The pattern parser's state.
    struct Parser {
        chars: Vec<char>,
        pos: usize,
        extended: bool,
        groups: u32,
    }

    impl Program {
        /// Parses a pattern with its option letters.
        pub fn compile(pattern: &str, options: &str) -> Result<Program, String> {
            for o in options.chars() {
                if !matches!(o, 'i' | 'm' | 's' | 'x' | 'u' | 'l') {
                    return Err(format!("invalid flag in regex options: {o}"));
                }
            }
            let mut parser = Parser {
                chars: pattern.chars().collect(),
                pos: 0,
                extended: options.contains('x'),
                groups: 0,
            };
            let root = parser.alternation()?;
            if parser.pos < parser.chars.len() {
                return Err("unmatched closing parenthesis".to_owned());
            }
            Ok(Program {
                root,
                ignore_case: options.contains('i'),
                multiline: options.contains('m'),
                dot_all: options.contains('s'),
            })
        }

        /// True when the pattern matches somewhere in `text`.
        pub fn is_match(&self, text: &str) -> bool {
            let m = Matcher {
                program: self,
                text: text.chars().collect(),
                steps: Cell::new(0),
                depth: Cell::new(0),
            };
            (0..=m.text.len()).any(|start| m.alternatives(&self.root, start, &mut |_| true))
        }
    }

    impl Parser {
        /// The next character, skipping whitespace and comments in `x` mode.
        fn peek(&mut self) -> Option<char> {
            if self.extended {
                while let Some(&c) = self.chars.get(self.pos) {
                    if c.is_whitespace() {
                        self.pos += 1;
                    } else if c == '#' {
                        while self.chars.get(self.pos).is_some_and(|c| *c != '\n') {
                            self.pos += 1;
                        }
                    } else {
                        break;
                    }
                }
            }
            self.chars.get(self.pos).copied()
        }

        /// Takes the next raw character.
        fn bump(&mut self) -> Option<char> {
            let c = self.chars.get(self.pos).copied();
            self.pos += 1;
            c
        }

        /// `seq | seq | ...` up to a `)` or the end.
        fn alternation(&mut self) -> Result<Vec<Vec<Node>>, String> {
            let mut branches = vec![self.sequence()?];
            while self.peek() == Some('|') {
                self.pos += 1;
                branches.push(self.sequence()?);
            }
            Ok(branches)
        }

        /// Atoms with their quantifiers up to `|`, `)` or the end.
        fn sequence(&mut self) -> Result<Vec<Node>, String> {
            let mut nodes = Vec::new();
            while let Some(c) = self.peek() {
                if c == '|' || c == ')' {
                    break;
                }
                let atom = self.atom()?;
                nodes.push(self.quantified(atom)?);
            }
            Ok(nodes)
        }

        /// One atom.
        fn atom(&mut self) -> Result<Node, String> {
            let c = self.bump().ok_or("unexpected end of pattern")?;
            Ok(match c {
                '.' => Node::Any,
                '^' => Node::Start(false),
                '$' => Node::End(false),
                '*' | '+' | '?' => {
                    return Err("quantifier does not follow a repeatable item".to_owned())
                }
                '(' => {
                    if self.chars.get(self.pos) == Some(&'?') {
                        if self.chars.get(self.pos + 1) == Some(&':') {
                            self.pos += 2;
                        } else {
                            return Err(
                                "look-around and other (? groups are not supported".to_owned()
                            );
                        }
                    }
                    self.groups += 1;
                    if self.groups > GROUP_DEPTH_LIMIT {
                        return Err("groups are nested too deeply".to_owned());
                    }
                    let inner = self.alternation()?;
                    self.groups -= 1;
                    if self.bump() != Some(')') {
                        return Err("missing closing parenthesis".to_owned());
                    }
                    Node::Group(inner)
                }
                '[' => self.class()?,
                '\\' => self.escape()?,
                other => Node::Char(other),
            })
        }

        /// An escape outside a class.
        fn escape(&mut self) -> Result<Node, String> {
            let c = self.bump().ok_or("\\ at end of pattern")?;
            Ok(match c {
                'd' => Node::Class(vec![ClassItem::Digit(false)], false),
                'D' => Node::Class(vec![ClassItem::Digit(true)], false),
                'w' => Node::Class(vec![ClassItem::Word(false)], false),
                'W' => Node::Class(vec![ClassItem::Word(true)], false),
                's' => Node::Class(vec![ClassItem::Space(false)], false),
                'S' => Node::Class(vec![ClassItem::Space(true)], false),
                'b' => Node::WordBoundary(true),
                'B' => Node::WordBoundary(false),
                'A' => Node::Start(true),
                'z' | 'Z' => Node::End(true),
                '1'..='9' => return Err("back-references are not supported".to_owned()),
                other => Node::Char(simple_escape(other)),
            })
        }

        /// A bracketed class; the `[` is already taken.
        fn class(&mut self) -> Result<Node, String> {
            let mut negated = false;
            if self.chars.get(self.pos) == Some(&'^') {
                negated = true;
                self.pos += 1;
            }
            let mut items = Vec::new();
            let mut first = true;
            loop {
                let c = self
                    .bump()
                    .ok_or("missing terminating ] for character class")?;
                if c == ']' && !first {
                    break;
                }
                first = false;
                let lo = if c == '\\' {
                    let e = self.bump().ok_or("\\ at end of pattern")?;
                    match e {
                        'd' | 'D' => {
                            items.push(ClassItem::Digit(e == 'D'));
                            continue;
                        }
                        'w' | 'W' => {
                            items.push(ClassItem::Word(e == 'W'));
                            continue;
                        }
                        's' | 'S' => {
                            items.push(ClassItem::Space(e == 'S'));
                            continue;
                        }
                        other => simple_escape(other),
                    }
                } else {
                    c
                };
                let is_range = self.chars.get(self.pos) == Some(&'-')
                    && self.chars.get(self.pos + 1).is_some_and(|n| *n != ']');
                if is_range {
                    self.pos += 1;
                    let mut hi = self
                        .bump()
                        .ok_or("missing terminating ] for character class")?;
                    if hi == '\\' {
                        hi = simple_escape(self.bump().ok_or("\\ at end of pattern")?);
                    }
                    if hi < lo {
                        return Err("range out of order in character class".to_owned());
                    }
                    items.push(ClassItem::Range(lo, hi));
                } else {
                    items.push(ClassItem::Range(lo, lo));
                }
            }
            Ok(Node::Class(items, negated))
        }

        /// Wraps an atom in the quantifier that follows it, if any.
        fn quantified(&mut self, atom: Node) -> Result<Node, String> {
            let (min, max) = match self.peek() {
                Some('*') => {
                    self.pos += 1;
                    (0, None)
                }
                Some('+') => {
                    self.pos += 1;
                    (1, None)
                }
                Some('?') => {
                    self.pos += 1;
                    (0, Some(1))
                }
                Some('{') => match self.braces() {
                    Some(bounds) => bounds,
                    None => return Ok(atom),
                },
                _ => return Ok(atom),
            };
            if matches!(atom, Node::Start(_) | Node::End(_) | Node::WordBoundary(_)) {
                return Err("quantifier does not follow a repeatable item".to_owned());
            }
            // Lazy (`?`) and possessive (`+`) suffixes do not change whether a match exists.
            if matches!(self.chars.get(self.pos), Some('?' | '+')) {
                self.pos += 1;
            }
            Ok(Node::Repeat(Box::new(atom), min, max))
        }

        /// Reads `{n}`, `{n,}` or `{n,m}`; anything else leaves `{` as a literal.
        fn braces(&mut self) -> Option<(u32, Option<u32>)> {
            let rest: String = self.chars.get(self.pos..)?.iter().collect();
            let end = rest.find('}')?;
            let body = rest.get(1..end)?;
            let (min, max) = match body.split_once(',') {
                None => {
                    let n = body.parse().ok()?;
                    (n, Some(n))
                }
                Some((a, "")) => (a.parse().ok()?, None),
                Some((a, b)) => (a.parse().ok()?, Some(b.parse().ok()?)),
            };
            if max.is_some_and(|m| m < min) || min > 1000 {
                return None;
            }
            self.pos += body.chars().count() + 2;
            Some((min, max))
        }
    }

    /// The character an escape such as `\n` or `\.` stands for.
    fn simple_escape(c: char) -> char {
        match c {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '0' => '\0',
            other => other,
        }
    }

    /// One run of a program over one text.
    struct Matcher<'p> {
        program: &'p Program,
        text: Vec<char>,
        steps: Cell<u32>,
        depth: Cell<u32>,
    }

    impl Matcher<'_> {
        /// Tries each alternative at `i`, then the continuation.
        fn alternatives(
            &self,
            branches: &[Vec<Node>],
            i: usize,
            k: &mut dyn FnMut(usize) -> bool,
        ) -> bool {
            branches.iter().any(|b| self.sequence(b, i, k))
        }

        /// Matches a sequence at `i`, then the continuation.
        fn sequence(&self, seq: &[Node], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
            let steps = self.steps.get() + 1;
            self.steps.set(steps);
            if steps > STEP_BUDGET || self.depth.get() >= DEPTH_LIMIT {
                return false;
            }
            self.depth.set(self.depth.get() + 1);
            let found = self.sequence_inner(seq, i, k);
            self.depth.set(self.depth.get() - 1);
            found
        }

        /// The body of [`Matcher::sequence`], inside the depth accounting.
        fn sequence_inner(&self, seq: &[Node], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
            let Some((node, rest)) = seq.split_first() else {
                return k(i);
            };
            match node {
                Node::Group(branches) => {
                    self.alternatives(branches, i, &mut |j| self.sequence(rest, j, k))
                }
                Node::Repeat(inner, min, max)
                    if !matches!(**inner, Node::Group(_) | Node::Repeat(..)) =>
                {
                    // A repeated single character: find the longest run iteratively,
                    // then back off one at a time, without nesting.
                    let mut ends = vec![i];
                    let mut at = i;
                    while max.is_none_or(|m| ends.len() <= m as usize) {
                        match self.single(inner, at) {
                            Some(next) if next != at => {
                                at = next;
                                ends.push(at);
                            }
                            _ => break,
                        }
                    }
                    let min = *min as usize;
                    (min..ends.len())
                        .rev()
                        .any(|count| ends.get(count).is_some_and(|e| self.sequence(rest, *e, k)))
                }
                Node::Repeat(inner, min, max) => self.repeat(inner, *min, *max, 0, i, rest, k),
                single => self
                    .single(single, i)
                    .is_some_and(|j| self.sequence(rest, j, k)),
            }
        }

        /// Greedy repetition: one more round of `inner` first, then the rest.
        #[allow(clippy::too_many_arguments)]
        fn repeat(
            &self,
            inner: &Node,
            min: u32,
            max: Option<u32>,
            count: u32,
            i: usize,
            rest: &[Node],
            k: &mut dyn FnMut(usize) -> bool,
        ) -> bool {
            if max.is_none_or(|m| count < m) {
                let more = self.sequence(std::slice::from_ref(inner), i, &mut |j| {
                    // An empty round cannot make progress; stop once the minimum is met.
                    (j != i || count < min) && self.repeat(inner, min, max, count + 1, j, rest, k)
                });
                if more {
                    return true;
                }
            }
            count >= min && self.sequence(rest, i, k)
        }

        /// Matches a node that is neither a group nor a repetition; the position after it.
        fn single(&self, node: &Node, i: usize) -> Option<usize> {
            let p = self.program;
            let at = self.text.get(i).copied();
            let before = i.checked_sub(1).and_then(|b| self.text.get(b)).copied();
            match node {
                Node::Char(c) => at.filter(|t| self.same(*t, *c)).map(|_| i + 1),
                Node::Any => at.filter(|t| p.dot_all || *t != '\n').map(|_| i + 1),
                Node::Class(items, negated) => at
                    .filter(|t| self.in_class(items, *t) != *negated)
                    .map(|_| i + 1),
                Node::Start(strict) => {
                    (i == 0 || (!strict && p.multiline && before == Some('\n'))).then_some(i)
                }
                Node::End(strict) => {
                    let at_end = i == self.text.len();
                    // PCRE's `$` also matches before a final line break.
                    let before_final_newline = at == Some('\n') && i + 1 == self.text.len();
                    (at_end
                        || (!strict && before_final_newline)
                        || (!strict && p.multiline && at == Some('\n')))
                    .then_some(i)
                }
                Node::WordBoundary(want) => {
                    let boundary = before.is_some_and(is_word) != at.is_some_and(is_word);
                    (boundary == *want).then_some(i)
                }
                Node::Group(_) | Node::Repeat(..) => None,
            }
        }

        /// Character equality, ignoring case under `i`.
        fn same(&self, a: char, b: char) -> bool {
            a == b || (self.program.ignore_case && lower(a) == lower(b))
        }

        /// Class membership, ignoring case under `i`.
        fn in_class(&self, items: &[ClassItem], c: char) -> bool {
            let hit = |c: char| items.iter().any(|item| item.contains(c));
            hit(c) || (self.program.ignore_case && (hit(lower(c)) || hit(upper(c))))
        }
    }
}
