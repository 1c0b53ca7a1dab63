//! The database and zone commands of `db.adminCommand(...)`: `enableSharding`,
//! `addShardToZone`, `removeShardFromZone` and `updateZoneKeyRange`, parsed as mongos
//! parses them; the rules themselves are the engine's, shared with the `sh.` helpers.

use super::interpreter::{ok_doc, Session, StatementError};
use crate::engine::cluster::{split_ns, ClusterError, VersionMode};
use crate::values::error::Code;
use bson::{Bson, Document};

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
        None if s.cluster.version() == VersionMode::V80 => Err(ClusterError::Location40414(
            format!("BSON field '{name}.zone' is missing but a required field"),
        )
        .into()),
        None => Err(ClusterError::Coded(
            Code::NoSuchKey,
            "Missing expected field \"zone\"".to_string(),
        )
        .into()),
        Some(other) => Err(ClusterError::TypeMismatch(format!(
            "BSON field '{name}.zone' is the wrong type '{}', expected type 'string'",
            crate::query::update::type_name(other)
        ))
        .into()),
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
        Some(other) => {
            return Err(ClusterError::TypeMismatch(format!(
                "BSON field '{name}.primaryShard' is the wrong type '{}', expected type 'string'",
                crate::query::update::type_name(other)
            ))
            .into())
        }
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
