//! The commands of `db.adminCommand(...)` that the `sh.` helpers also send, parsed as
//! mongos parses them (their IDL, or the older hand-written parsers): `enableSharding`,
//! `addShardToZone`, `removeShardFromZone`, `updateZoneKeyRange` and `moveChunk`. The
//! rules themselves are the engine's.

use super::interpreter::{ok_doc, Session, StatementError};
use crate::engine::cluster::{split_ns, ClusterError, VersionMode};
use crate::values::error::Code;
use bson::{doc, Bson, Document};

/// The string value of the command's own field (its first), or mongos's error for
/// another type.
fn command_string(cmd: &Document, name: &str) -> Result<String, StatementError> {
    match cmd.get(name) {
        Some(Bson::String(s)) => Ok(s.clone()),
        other => Err(ClusterError::TypeMismatch(format!(
            "BSON field '{name}.{name}' is the wrong type '{}', expected type 'string'",
            other.map_or("missing", crate::query::update::type_name)
        ))
        .into()),
    }
}

/// A required string field of a zone command: 8.0's IDL parser refuses a missing one
/// with 40414; 3.6 and 5.0's request parsers (`bsonExtractStringField`) with NoSuchKey.
fn zone_field(s: &Session, cmd: &Document, name: &str) -> Result<String, StatementError> {
    match cmd.get("zone") {
        Some(Bson::String(z)) => Ok(z.clone()),
        None if s.cluster.version() >= VersionMode::V70 => Err(missing_field(name, "zone")),
        None => Err(ClusterError::Coded(
            Code::NoSuchKey,
            "Missing expected field \"zone\"".to_string(),
        )
        .into()),
        Some(other) => Err(wrong_type(name, "zone", other, "string")),
    }
}

/// `{enableSharding: db, primaryShard}` (cluster_enable_sharding_cmd.cpp).
pub(super) fn enable_sharding(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let db = command_string(cmd, name)?;
    let primary = match cmd.get("primaryShard") {
        None => None,
        Some(Bson::String(p)) => Some(p.clone()),
        Some(other) => return Err(wrong_type(name, "primaryShard", other, "string")),
    };
    s.cluster.enable_sharding(&db, primary.as_deref())?;
    Ok(ok_doc())
}

/// `{addShardToZone: shard, zone}` (cluster_add_shard_to_zone_cmd.cpp).
pub(super) fn add_shard_to_zone(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let shard = command_string(cmd, name)?;
    let zone = zone_field(s, cmd, name)?;
    s.cluster.add_shard_to_zone(&shard, &zone)?;
    Ok(ok_doc())
}

/// `{removeShardFromZone: shard, zone}` (cluster_remove_shard_from_zone_cmd.cpp).
pub(super) fn remove_shard_from_zone(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let shard = command_string(cmd, name)?;
    let zone = zone_field(s, cmd, name)?;
    s.cluster.remove_shard_from_zone(&shard, &zone)?;
    Ok(ok_doc())
}

/// `{updateZoneKeyRange: ns, min, max, zone}`, `zone: null` removing the range, as
/// `UpdateZoneKeyRangeRequest::_parseFromCommand` reads it: the namespace, the range
/// (`ChunkRange::fromBSON`), then `zone`, a string or null.
pub(super) fn update_zone_key_range(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = command_string(cmd, name)?;
    if !split_ns(&ns).is_ok_and(|(_, c)| !c.is_empty()) {
        return Err(
            ClusterError::InvalidNamespace(format!("{ns} is not a valid namespace")).into(),
        );
    }
    let bound = |field: &str| {
        match cmd.get(field) {
        Some(Bson::Document(d)) if !d.is_empty() => Ok(d.clone()),
        Some(Bson::Document(_)) => Err(StatementError::from(ClusterError::BadValue(format!(
            "The field '{field}' cannot be empty"
        )))),
        other => Err(ClusterError::TypeMismatch(format!(
            "The field '{field}' cannot be parsed :: caused by :: {field} field must be an object, not {}",
            other.map_or("missing", crate::query::update::type_name)
        ))
        .into()),
    }
    };
    let (min, max) = (bound("min")?, bound("max")?);
    let zone = match cmd.get("zone") {
        Some(Bson::String(z)) => Some(z.clone()),
        Some(Bson::Null) => None,
        None => {
            return Err(ClusterError::Coded(
                Code::NoSuchKey,
                "Missing expected field \"zone\"".to_string(),
            )
            .into())
        }
        Some(other) => {
            return Err(ClusterError::TypeMismatch(format!(
                "\"zone\" had the wrong type. Expected string or null, found {}",
                crate::query::update::type_name(other)
            ))
            .into())
        }
    };
    s.cluster
        .update_zone_key_range(&ns, &min, &max, zone.as_deref())?;
    Ok(ok_doc())
}

/// 6.0+ `{moveChunk: ns, find | bounds, to}` (cluster_move_chunk_cmd.cpp, a typed
/// command): the IDL's types (`bounds` an array of objects), the collection, then in
/// order "bounds can only have exactly 2 elements", "cannot specify bounds and query at
/// the same time", "need to specify query or bounds" (InvalidOptions), the destination,
/// and the chunk by `find` (656450) or by bounds (656451, 656452).
pub(super) fn move_chunk_typed(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = command_string(cmd, name)?;
    let to = match cmd.get("to") {
        Some(Bson::String(t)) => t.clone(),
        None => return Err(missing_field(name, "to")),
        Some(other) => return Err(wrong_type(name, "to", other, "string")),
    };
    let find = match cmd.get("find") {
        None => None,
        Some(Bson::Document(d)) => Some(d.clone()),
        Some(other) => return Err(wrong_type(name, "find", other, "object")),
    };
    let bounds = match cmd.get("bounds") {
        None => None,
        Some(Bson::Array(items)) => Some(bound_objects(name, items)?),
        Some(other) => return Err(wrong_type(name, "bounds", other, "array")),
    };
    if !split_ns(&ns).is_ok_and(|(_, c)| !c.is_empty()) {
        return Err(
            ClusterError::InvalidNamespace(format!("Invalid namespace specified '{ns}'")).into(),
        );
    }
    s.cluster.sharding(&ns)?;
    let invalid = |m: &str| StatementError::from(ClusterError::InvalidOptions(m.to_string()));
    if bounds.as_ref().is_some_and(|b| b.len() != 2) {
        return Err(invalid("bounds can only have exactly 2 elements"));
    }
    let recode = |e: ClusterError| match e {
        ClusterError::Errmsg(m) if m.starts_with("no shard key found") => {
            ClusterError::Coded(Code::Location656450, m)
        }
        ClusterError::Errmsg(m) if m.starts_with("shard key bounds") => {
            ClusterError::Coded(Code::Location656451, m)
        }
        ClusterError::Errmsg(m) if m.starts_with("no chunk found") => {
            ClusterError::Coded(Code::Location656452, m)
        }
        other => other,
    };
    match (find, bounds) {
        (Some(_), Some(_)) => Err(invalid("cannot specify bounds and query at the same time")),
        (None, None) => Err(invalid("need to specify query or bounds")),
        (Some(find), None) => {
            s.cluster.move_chunk(&ns, &find, &to).map_err(recode)?;
            Ok(doc! { "millis": 0, "ok": 1 })
        }
        (None, Some(b)) => {
            s.cluster
                .move_chunk_bounds(&ns, &b[0], &b[1], &to)
                .map_err(recode)?;
            Ok(doc! { "millis": 0, "ok": 1 })
        }
    }
}

/// The IDL parser's error for a required field left out (40414).
pub(super) fn missing_field(command: &str, field: &str) -> StatementError {
    ClusterError::Location40414(format!(
        "BSON field '{command}.{field}' is missing but a required field"
    ))
    .into()
}

/// The IDL parser's error for a field of the wrong type.
pub(super) fn wrong_type(
    command: &str,
    field: &str,
    value: &Bson,
    expected: &str,
) -> StatementError {
    type_mismatch(command, field, value, &format!("type '{expected}'"))
}

/// The IDL parser's error for a number field (`safeInt64`, `safeDouble`) of another type.
pub(super) fn wrong_number_type(command: &str, field: &str, value: &Bson) -> StatementError {
    type_mismatch(
        command,
        field,
        value,
        "types '[long, int, decimal, double]'",
    )
}

fn type_mismatch(command: &str, field: &str, value: &Bson, expected: &str) -> StatementError {
    ClusterError::TypeMismatch(format!(
        "BSON field '{command}.{field}' is the wrong type '{}', expected {expected}",
        crate::query::update::type_name(value)
    ))
    .into()
}

/// An optional whole-number field: an int, a long or a finite double (cut to a whole
/// number), else the IDL parser's error.
pub(super) fn optional_int(
    cmd: &Document,
    command: &str,
    field: &str,
) -> Result<Option<i64>, StatementError> {
    match cmd.get(field) {
        None => Ok(None),
        Some(Bson::Int32(n)) => Ok(Some(i64::from(*n))),
        Some(Bson::Int64(n)) => Ok(Some(*n)),
        Some(Bson::Double(d)) if d.is_finite() => Ok(Some(*d as i64)),
        Some(other) => Err(wrong_number_type(command, field, other)),
    }
}

/// `bounds` as `array<object>`: each element an object, else the IDL's error naming its
/// position.
fn bound_objects(command: &str, items: &[Bson]) -> Result<Vec<Document>, StatementError> {
    items
        .iter()
        .enumerate()
        .map(|(i, b)| match b {
            Bson::Document(d) => Ok(d.clone()),
            other => Err(wrong_type(command, &format!("bounds.{i}"), other, "object")),
        })
        .collect()
}

/// `{moveChunk: ns, find, to}` or `{moveChunk: ns, bounds, to}`.
pub(super) fn move_chunk(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    if s.cluster.version() >= VersionMode::V70 {
        return move_chunk_typed(s, cmd, name);
    }
    let ns = command_string(cmd, name)?;
    let to = command_string(cmd, "to")?;
    // cluster_move_chunk_cmd.cpp: "check that only one of the two chunk specification
    // methods is used" (`find.isEmpty() == bounds.isEmpty()`).
    let find = match cmd.get("find") {
        Some(Bson::Document(d)) if !d.is_empty() => Some(d),
        _ => None,
    };
    let bounds_given = matches!(cmd.get("bounds"), Some(Bson::Array(a)) if !a.is_empty());
    if let (Some(find), false) = (find, bounds_given) {
        s.cluster.move_chunk(&ns, find, &to)?;
    } else if find.is_none() && bounds_given {
        let (lo, hi) = bounds(cmd)?;
        s.cluster.move_chunk_bounds(&ns, &lo, &hi, &to)?;
    } else {
        return Err(ClusterError::Errmsg(
            "need to specify either a find query, or both lower and upper bounds.".into(),
        )
        .into());
    }
    Ok(doc! { "millis": 0, "ok": 1 })
}

/// A `bounds` field of two objects, as the 3.6 to 5.0 chunk commands read it.
pub(super) fn bounds(cmd: &Document) -> Result<(Document, Document), StatementError> {
    match cmd.get("bounds") {
        Some(Bson::Array(a)) if a.len() == 2 => match (&a[0], &a[1]) {
            (Bson::Document(lo), Bson::Document(hi)) => Ok((lo.clone(), hi.clone())),
            _ => {
                Err(ClusterError::BadValue("bounds must be an array of two objects".into()).into())
            }
        },
        _ => Err(ClusterError::BadValue("bounds must be an array of two objects".into()).into()),
    }
}
