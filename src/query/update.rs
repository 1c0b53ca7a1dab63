//! Update operators (`$set`, `$unset`, `$inc`, `$setOnInsert`) and replacement updates.
//!
//! Paths here address array elements by position and create what is missing on the way,
//! as MongoDB's update system does, so they are walked here rather than by the
//! read-only walks of `values::path` or the filter's.

use super::path::{array_index, check_path_length};
use crate::keys::shard_key::format_bson_element;
use crate::values::error::ClusterError;
use crate::values::order::{canonical_class, compare_values};
use bson::{Bson, Document};

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

/// `pathsupport::cmpPathsAndArrayIndexes`' order of two dotted paths: part by part,
/// two numeric parts by their numbers, any others by their bytes; a path before the
/// longer paths it starts.
fn compare_paths(a: &str, b: &str) -> std::cmp::Ordering {
    let numeric = |p: &str| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit());
    let mut pa = a.split('.');
    let mut pb = b.split('.');
    loop {
        match (pa.next(), pb.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = if numeric(x) && numeric(y) {
                    let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                    x.len().cmp(&y.len()).then_with(|| x.cmp(y))
                } else {
                    x.cmp(y)
                };
                if order.is_ne() {
                    return order;
                }
            }
        }
    }
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

    // The update driver merges every operator's paths into one tree and applies each
    // level's fields in order (UpdateObjectNode, `pathsupport::cmpPathsAndArrayIndexes`:
    // by name, numeric names by number), so the fields an update adds come in that order,
    // whatever order the update names them in.
    let mut steps: Vec<(&str, &str, &Bson)> = ops
        .iter()
        .flat_map(|(op, spec)| spec.iter().map(move |(p, v)| (*op, p.as_str(), v)))
        .collect();
    steps.sort_by(|a, b| compare_paths(a.1, b.1));
    let mut root = Bson::Document(doc.clone());
    for (op, path, value) in steps {
        let parts: Vec<&str> = path.split('.').collect();
        match op {
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
    let Bson::Document(new_doc) = root else {
        return Err(ClusterError::BadValue(
            "the updated value is not a document".to_owned(),
        ));
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
    let id = || {
        doc.get("_id")
            .map(|id| format_bson_element("_id", id))
            .unwrap_or_else(|| "no id".to_owned())
    };
    // Integers add as MongoDB's `SafeNum` does: int32 overflow widens to int64, but an
    // int64 overflow is an error, not a double.
    let integer = |v: &Bson| match v {
        Bson::Int32(i) => Some((i64::from(*i), "NumberInt")),
        Bson::Int64(i) => Some((*i, "NumberLong")),
        _ => None,
    };
    if let (Some((x, kind)), Some((y, _))) = (integer(current), integer(by)) {
        let both_int32 = matches!((current, by), (Bson::Int32(_), Bson::Int32(_)));
        if !both_int32 && x.checked_add(y).is_none() {
            return Err(ClusterError::BadValue(format!(
                "Failed to apply $inc operations to current value (({kind}){x}) for document {{{}}}",
                id()
            )));
        }
    }
    match add_numbers(current, by) {
        Some(sum) => Ok(sum),
        None if matches!(current, Bson::Decimal128(_)) || matches!(by, Bson::Decimal128(_)) => {
            Err(ClusterError::BadValue(
                "ShardLab cannot do arithmetic on NumberDecimal values".to_owned(),
            ))
        }
        None => Err(ClusterError::TypeMismatch(format!(
            "Cannot apply $inc to a value of non-numeric type. {{{}}} has the field '{field}' of non-numeric type {}",
            id(),
            type_name(current)
        ))),
    }
}

/// Adds two numbers as MongoDB's `SafeNum` does: int + int stays int32 unless it
/// overflows (then int64), and a double on either side gives a double. Decimals are not
/// supported (`None`). An int64 overflow is refused by the caller before this is asked.
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

/// The document an upsert inserts when nothing matched, as MongoDB's update driver builds
/// it (`UpdateDriver::populateDocumentWithQueryFields`, then the update applied for an
/// insert): an operator update starts from the filter's equalities (`field: value`,
/// `field: {$eq: value}`, reached through `$and`; dotted paths make embedded documents)
/// and applies its operators, `$setOnInsert` included; a replacement keeps only the
/// filter's `_id`. `_id`, when there is one, comes first (`ensureIdFieldIsFirst`). A
/// document that still lacks `_id` gets one where it is stored.
pub fn upsert_document(filter: &Document, update: &Document) -> Result<Document, ClusterError> {
    let mut equalities = Document::new();
    filter_equalities(filter, &mut equalities);
    let is_operator = update.keys().next().is_some_and(|k| k.starts_with('$'));
    let seed = if is_operator {
        apply_update_with(&Document::new(), &bson::doc! { "$set": equalities }, true)?
    } else {
        let mut seed = Document::new();
        if let Some(id) = equalities.get("_id") {
            seed.insert("_id", id.clone());
        }
        seed
    };
    let mut out = apply_update_with(&seed, update, true)?;
    if let Some(id) = out.remove("_id") {
        let mut first = bson::doc! { "_id": id };
        first.extend(out);
        out = first;
    }
    Ok(out)
}

/// The equality conditions of a filter, path to value: a later one on the same path wins,
/// as the last `$set` on a path would.
fn filter_equalities(filter: &Document, out: &mut Document) {
    for (field, value) in filter {
        if field == "$and" {
            if let Bson::Array(items) = value {
                for item in items {
                    if let Bson::Document(d) = item {
                        filter_equalities(d, out);
                    }
                }
            }
            continue;
        }
        if field.starts_with('$') {
            continue;
        }
        match value {
            Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => {
                if let (1, Some(v)) = (d.len(), d.get("$eq")) {
                    out.insert(field.clone(), v.clone());
                }
            }
            Bson::RegularExpression(_) => {}
            v => {
                out.insert(field.clone(), v.clone());
            }
        }
    }
}
