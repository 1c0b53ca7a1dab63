//! `db.adminCommand(...)` / `db.runCommand(...)`: one function per command, found through
//! a table by the command's name, and the sampling of the queries the shell runs.

use super::idl_commands::{self, missing_field, optional_int, wrong_number_type, wrong_type};
use super::interpreter::{ok_doc, Output, Session, StatementError};
use super::sh::{no_such_command, remove_shard_reply, require_command, reshard_options};
use super::status;
use crate::engine::cluster::ClusterError;
use crate::values::error::Code;
use bson::{doc, Bson, Document};

use super::sampling::{AnalyzerConfig, SampledQuery};

fn ns_of(cmd: &Document, name: &str) -> Result<String, StatementError> {
    match cmd.get(name) {
        Some(Bson::String(s)) => Ok(s.clone()),
        _ => Err(ClusterError::BadValue(format!("'{name}' must be of type String")).into()),
    }
}

/// A required object field of a command parsed by its IDL (`shardCollection`,
/// `reshardCollection`): missing is 40414, another type is TypeMismatch, in the IDL
/// parser's words.
fn idl_object(cmd: &Document, command: &str, field: &str) -> Result<Document, StatementError> {
    match cmd.get(field) {
        Some(Bson::Document(d)) => Ok(d.clone()),
        None => Err(missing_field(command, field)),
        Some(other) => Err(wrong_type(command, field, other, "object")),
    }
}

fn doc_field(cmd: &Document, name: &str) -> Result<Document, StatementError> {
    match cmd.get(name) {
        Some(Bson::Document(d)) => Ok(d.clone()),
        _ => Err(ClusterError::BadValue(format!("'{name}' must be of type Object")).into()),
    }
}

impl Session {
    /// Runs one of the admin commands a first visit does not run
    /// ([`super::later::LATER_ADMIN`]) by name, each called directly (see [`super::later`]);
    /// `None` for another name.
    pub(super) fn later_admin(
        &mut self,
        cmd: &Document,
        name: &str,
    ) -> Option<Result<Output, StatementError>> {
        let reply = match name {
            "refineCollectionShardKey" => refine_collection_shard_key(self, cmd, name),
            "reshardCollection" => reshard_collection(self, cmd, name),
            "mergeChunks" => merge_chunks(self, cmd, name),
            "clearJumboFlag" => clear_jumbo_flag(self, cmd, name),
            "moveRange" => move_range(self, cmd, name),
            "balancerCollectionStatus" => balancer_collection_status(self, cmd, name),
            "configureCollectionBalancing" => configure_collection_balancing(self, cmd, name),
            "_hashBSONElement" => hash_bson_element(self, cmd, name),
            "addShard" => add_shard(self, cmd, name),
            "removeShard" => remove_shard(self, cmd, name),
            "movePrimary" => move_primary(self, cmd, name),
            "listShards" => list_shards(self, cmd, name),
            "configureQueryAnalyzer" => configure_query_analyzer(self, cmd, name),
            "mergeAllChunksOnShard" => merge_all_chunks_on_shard(self, cmd, name),
            "analyzeShardKey" => analyze_shard_key(self, cmd, name),
            _ => return None,
        };
        Some(reply.map(|d| Output::Value(Bson::Document(d))))
    }

    /// Records a read for analyzeShardKey's read distribution, if sampling is on.
    pub(super) fn record_read(&mut self, ns: &str, filter: &Document) {
        if let Some(list) = self.sampling.get_mut(ns) {
            list.push(SampledQuery {
                command: "find".into(),
                filter: filter.clone(),
                update: None,
                upsert: false,
            });
        }
    }

    /// Records a write for analyzeShardKey's write distribution, if sampling is on;
    /// `upsert` as the write's option says (an upserting replacement is not targeted by its
    /// replacement document).
    pub(super) fn record_write(
        &mut self,
        ns: &str,
        filter: &Document,
        method: &str,
        update: Option<&Document>,
        upsert: bool,
    ) {
        if let Some(list) = self.sampling.get_mut(ns) {
            list.push(SampledQuery {
                command: method.into(),
                filter: filter.clone(),
                update: update.cloned(),
                upsert,
            });
        }
    }

    /// Runs `db.adminCommand(cmd)`: the command is named by the document's first key.
    pub(super) fn admin_command(&mut self, cmd: &Document) -> Result<Output, StatementError> {
        self.admin_command_on("admin", cmd)
    }

    /// Runs `cmd` on database `db` (`db.runCommand(cmd)`; `db.adminCommand` runs on
    /// `admin`). Every command here but `_hashBSONElement` and `ping` is admin-only
    /// (`adminOnly()`), so on another database it is refused once found, as
    /// `checkAuthorization` (service_entry_point_common.cpp) refuses it: `Unauthorized`,
    /// "<name> may only be run against the admin database.". A command mongos does not
    /// have is `CommandNotFound` in the router's words (see [`no_such_command`]).
    pub(super) fn admin_command_on(
        &mut self,
        db: &str,
        cmd: &Document,
    ) -> Result<Output, StatementError> {
        let Some(name) = cmd.keys().next().cloned() else {
            return Err(ClusterError::FailedToParse("no command specified".into()).into());
        };
        // The statistics commands run on the database they are sent to.
        match name.as_str() {
            "collStats" | "collstats" => {
                let reply = super::stats::coll_stats(self, db, cmd)?;
                return Ok(Output::Value(Bson::Document(reply)));
            }
            "dbStats" | "dbstats" => {
                let reply = super::stats::db_stats(self, db, cmd)?;
                return Ok(Output::Value(Bson::Document(reply)));
            }
            _ => {}
        }
        let command = ADMIN_COMMANDS.iter().find(|(n, _)| *n == name);
        if command.is_none() && !super::later::LATER_ADMIN.contains(&name.as_str()) {
            return Err(no_such_command(&name).into());
        }
        require_command(self, &name)?;
        if db != "admin" && !NOT_ADMIN_ONLY.contains(&name.as_str()) {
            return Err(ClusterError::Coded(
                Code::Unauthorized,
                format!("{name} may only be run against the admin database."),
            )
            .into());
        }
        match command {
            Some((_, command)) => Ok(Output::Value(Bson::Document(command(self, cmd, &name)?))),
            None => {
                let call = super::later::LaterCall::Admin(cmd, &name);
                self.later(&format!("the {name} command"), call)
                    .unwrap_or_else(|| Err(no_such_command(&name).into()))
            }
        }
    }
}

/// The commands of [`ADMIN_COMMANDS`] that run on any database (`adminOnly()` false).
const NOT_ADMIN_ONLY: &[&str] = &["_hashBSONElement", "ping"];

/// Runs one admin command: the session, the command document and the command's name.
type AdminCommand = fn(&mut Session, &Document, &str) -> Result<Document, StatementError>;

/// Every admin command a first visit runs, by name; the others are
/// [`super::later::LATER_ADMIN`].
const ADMIN_COMMANDS: &[(&str, AdminCommand)] = &[
    ("listDatabases", list_databases),
    ("enableSharding", idl_commands::enable_sharding),
    ("shardCollection", shard_collection),
    ("split", split),
    ("moveChunk", idl_commands::move_chunk),
    ("addShardToZone", idl_commands::add_shard_to_zone),
    ("removeShardFromZone", idl_commands::remove_shard_from_zone),
    ("updateZoneKeyRange", idl_commands::update_zone_key_range),
    ("balancerStart", balancer_start_stop),
    ("balancerStop", balancer_start_stop),
    ("balancerStatus", balancer_status),
    ("ping", ping),
];

/// `{ping: 1}`: generic.cpp's `PingCommand`, which appends nothing to `{ok: 1}` and runs
/// on any database.
fn ping(_: &mut Session, _: &Document, _: &str) -> Result<Document, StatementError> {
    Ok(doc! { "ok": 1 })
}

/// `{shardCollection: ns, key, unique, numInitialChunks, presplitHashedZones, collation}`.
fn shard_collection(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let key = idl_object(cmd, name, "key")?;
    if let Some(collation) = cmd
        .get("collation")
        .filter(|c| !matches!(c, Bson::Document(_)))
    {
        return Err(wrong_type(name, "collation", collation, "object"));
    }
    let unique = matches!(cmd.get("unique"), Some(Bson::Boolean(true)));
    s.cluster
        .shard_collection_with(&ns, &key, &super::sh::shard_options(unique, cmd))?;
    Ok(doc! { "collectionsharded": ns, "ok": 1 })
}

/// `{refineCollectionShardKey: ns, key}`.
fn refine_collection_shard_key(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let key = doc_field(cmd, "key")?;
    s.cluster.refine_shard_key(&ns, &key)?;
    Ok(ok_doc())
}

/// `{reshardCollection: ns, key, unique, numInitialChunks, zones}`.
fn reshard_collection(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let key = idl_object(cmd, name, "key")?;
    let opts = reshard_options(cmd)?;
    s.cluster.reshard_collection_with(&ns, &key, &opts)?;
    Ok(ok_doc())
}

/// `{mergeChunks: ns, bounds: [min, max]}`, its checks in the order of
/// cluster_merge_chunks_cmd.cpp's `errmsgRun` (the same words 3.6 to 8.0): the
/// namespace (`parseNsFullyQualified`), then `bounds` (`FieldParser::extract`, a missing
/// field being an empty list), its size and each bound, then the collection.
fn merge_chunks(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    if !crate::engine::cluster::split_ns(&ns).is_ok_and(|(_, c)| !c.is_empty()) {
        return Err(
            ClusterError::InvalidNamespace(format!("Invalid namespace specified '{ns}'")).into(),
        );
    }
    let errmsg = |m: &str| StatementError::from(ClusterError::Errmsg(m.to_string()));
    let list = match cmd.get("bounds") {
        None => Vec::new(),
        Some(Bson::Array(a)) => a.clone(),
        Some(other) => {
            return Err(errmsg(&format!(
                "wrong type for 'bounds' field, expected array, found {}",
                crate::keys::shard_key::format_bson_element("bounds", other)
            )))
        }
    };
    let mut objects = Vec::with_capacity(list.len());
    for b in &list {
        match b {
            Bson::Document(d) => objects.push(d.clone()),
            other => {
                return Err(errmsg(&format!(
                    "wrong type for 'bounds' field, expected array, found {}",
                    crate::keys::shard_key::format_bson_element(
                        "bounds",
                        &Bson::Array(vec![other.clone()])
                    )
                )))
            }
        }
    }
    match objects.as_slice() {
        [] => Err(errmsg("no bounds were specified")),
        [lo, _] if lo.is_empty() => Err(errmsg("no min key specified")),
        [_, hi] if hi.is_empty() => Err(errmsg("no max key specified")),
        [lo, hi] => {
            s.cluster.merge_chunks(&ns, lo, hi)?;
            Ok(ok_doc())
        }
        _ => Err(errmsg("only a min and max bound may be specified")),
    }
}

/// An `InvalidOptions` error for the shell.
fn invalid(message: &str) -> StatementError {
    ClusterError::InvalidOptions(message.to_string()).into()
}

/// `{clearJumboFlag: ns, find}` or `{clearJumboFlag: ns, bounds}`.
fn clear_jumbo_flag(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    s.cluster.sharding(&ns)?;
    // The checks of `cluster_clear_jumbo_flag_cmd.cpp`, in its order.
    let bounds_given = cmd.get("bounds");
    if matches!(bounds_given, Some(Bson::Array(a)) if a.len() != 2) {
        return Err(invalid("bounds can only have exactly 2 elements"));
    }
    match (cmd.get("find"), bounds_given) {
        (Some(_), Some(_)) => Err(invalid("cannot specify bounds and find at the same time")),
        (None, None) => Err(invalid("need to specify find or bounds")),
        (Some(Bson::Document(find)), None) => Ok(s.cluster.clear_jumbo_flag(&ns, find)?),
        _ => {
            let (lo, hi) = idl_commands::bounds(cmd)?;
            Ok(s.cluster.clear_jumbo_flag_bounds(&ns, &lo, &hi)?)
        }
    }?;
    Ok(ok_doc())
}

/// `{split: ns, middle}`, `{split: ns, find}` or `{split: ns, bounds: [min, max]}`, with
/// the checks of `cluster_split_cmd.cpp` (`SplitCollectionCmd::errmsgRun`, the same
/// words from 3.6 to 8.0) in its order, after the routing table.
fn split(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    s.cluster.sharding(&ns)?;
    let errmsg = |m: &str| -> StatementError { ClusterError::Errmsg(m.into()).into() };
    let non_empty_doc = |field: &str| match cmd.get(field) {
        Some(Bson::Document(d)) if !d.is_empty() => Some(d.clone()),
        _ => None,
    };
    let find = non_empty_doc("find");
    let middle = non_empty_doc("middle");
    let bounds_given = matches!(cmd.get("bounds"), Some(Bson::Array(a)) if !a.is_empty());
    // A non-empty array has its "0"; it may lack its "1".
    if matches!(cmd.get("bounds"), Some(Bson::Array(a)) if a.len() == 1) {
        return Err(errmsg("upper bound not specified"));
    }
    if find.is_some() && bounds_given {
        return Err(errmsg("cannot specify bounds and find at the same time"));
    }
    match (find, middle, bounds_given) {
        (None, None, false) => Err(errmsg("need to specify find/bounds or middle")),
        (Some(_), Some(_), _) => Err(errmsg("cannot specify find and middle together")),
        (_, Some(_), true) => Err(errmsg("cannot specify bounds and middle together")),
        (Some(find), None, _) => Ok(s.cluster.split_find(&ns, &find)?),
        (None, None, true) => {
            let (lo, hi) = idl_commands::bounds(cmd)?;
            Ok(s.cluster.split_bounds(&ns, &lo, &hi)?)
        }
        (None, Some(middle), false) => Ok(s.cluster.split_at(&ns, &middle)?),
    }?;
    Ok(ok_doc())
}

/// `{moveRange: ns, toShard, min, max}`.
fn move_range(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let to = ns_of(cmd, "toShard")?;
    // cluster_move_range_cmd.cpp (7.0 on), typedRun: one bound at least, checked by the
    // engine; the missing one is computed on the donor shard.
    let bound = |field: &str| match cmd.get(field) {
        None => Ok(None),
        Some(Bson::Document(d)) => Ok(Some(d.clone())),
        Some(_) => doc_field(cmd, field).map(Some),
    };
    let min = bound("min")?;
    let max = bound("max")?;
    s.cluster.move_range(&ns, &to, min.as_ref(), max.as_ref())?;
    Ok(ok_doc())
}

/// `{balancerCollectionStatus: ns}`.
fn balancer_collection_status(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    Ok(status::balancer_collection_status(&s.cluster, &ns)?)
}

/// `{listDatabases: 1, nameOnly, filter}`: mongos's list (`session/databases.rs`). The
/// shards apply a `filter` to their own entries before mongos sums them; ShardLab
/// applies it to the summed entries, which is the same for a filter on `name`.
fn list_databases(s: &mut Session, cmd: &Document, _: &str) -> Result<Document, StatementError> {
    let name_only = cmd.get("nameOnly").is_some_and(truthy);
    let filter = match cmd.get("filter") {
        None => None,
        Some(Bson::Document(f)) => Some(crate::query::filter::parse_filter(f)?),
        Some(other) => return Err(wrong_type("listDatabases", "filter", other, "object")),
    };
    Ok(super::databases::list_databases(
        &s.cluster,
        name_only,
        filter.as_ref(),
    )?)
}

/// JavaScript's truthiness of a command option, as `BSONElement::trueValue` reads it.
fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Int32(n) => *n != 0,
        Bson::Int64(n) => *n != 0,
        Bson::Double(d) => *d != 0.0,
        Bson::Null | Bson::Undefined => false,
        _ => true,
    }
}

/// `{configureCollectionBalancing: ns, chunkSize, defragmentCollection, enableAutoMerger}`
/// (5.3 on; mongosh has no helper for it): the options as the IDL reads them (`chunkSize`
/// a number in MB, the others booleans), applied by the engine.
fn configure_collection_balancing(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let chunk_size = optional_int(cmd, "configureCollectionBalancing", "chunkSize")?;
    let flag = |field: &str| -> Result<Option<bool>, StatementError> {
        match cmd.get(field) {
            None => Ok(None),
            Some(Bson::Boolean(b)) => Ok(Some(*b)),
            Some(other) => Err(wrong_type(
                "configureCollectionBalancing",
                field,
                other,
                "bool",
            )),
        }
    };
    let defragment = flag("defragmentCollection")?;
    let auto_merge = flag("enableAutoMerger")?;
    s.cluster
        .configure_collection_balancing(&ns, chunk_size, defragment, auto_merge)?;
    Ok(ok_doc())
}

/// `{mergeAllChunksOnShard: ns, shard, maxNumberOfChunksToMerge}` (7.0 on): `shard` a
/// string the IDL requires, `maxNumberOfChunksToMerge` an optional number; `{ok: 1}`.
fn merge_all_chunks_on_shard(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let shard = match cmd.get("shard") {
        Some(Bson::String(shard)) => shard.clone(),
        None => return Err(missing_field(name, "shard")),
        Some(other) => return Err(wrong_type(name, "shard", other, "string")),
    };
    let max = optional_int(cmd, name, "maxNumberOfChunksToMerge")?
        .map(|n| usize::try_from(n).unwrap_or(0));
    s.cluster
        .merge_all_chunks_on_shard_command(&ns, &shard, max)?;
    Ok(ok_doc())
}

/// `{balancerStart: 1}` and `{balancerStop: 1}`.
fn balancer_start_stop(
    s: &mut Session,
    _: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    s.cluster.set_balancer_mode(name == "balancerStart");
    Ok(ok_doc())
}

/// `{balancerStatus: 1}`.
fn balancer_status(s: &mut Session, _: &Document, _: &str) -> Result<Document, StatementError> {
    Ok(super::clock::balancer_status(&s.cluster))
}

/// `{_hashBSONElement: value, seed}`: the shard key hash of a value.
fn hash_bson_element(
    _: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let key = cmd.get(name).cloned().unwrap_or(Bson::Null);
    let seed = match cmd.get("seed") {
        None => 0,
        Some(Bson::Int32(n)) => *n,
        Some(Bson::Int64(n)) => *n as i32,
        Some(Bson::Double(d)) => *d as i32,
        Some(_) => return Err(ClusterError::BadValue("seed must be a number".into()).into()),
    };
    let out = crate::values::hash::hash64(&key, seed);
    Ok(doc! { "key": key, "seed": seed, "out": out, "ok": 1 })
}

/// `{addShard: host}`: the host is only checked, as MongoDB parses it (an empty host is
/// refused); the new shard gets the next name.
fn add_shard(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let shard = match cmd.get(name) {
        Some(Bson::String(host)) => s.cluster.add_shard_at(host)?,
        _ => s.cluster.add_shard(),
    };
    Ok(doc! { "shardAdded": shard, "ok": 1 })
}

/// `{removeShard: name}`.
fn remove_shard(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let shard = ns_of(cmd, name)?;
    Ok(remove_shard_reply(&shard, s.cluster.remove_shard(&shard)?))
}

/// `{movePrimary: db, to}`.
fn move_primary(s: &mut Session, cmd: &Document, name: &str) -> Result<Document, StatementError> {
    let db = ns_of(cmd, name)?;
    let to = ns_of(cmd, "to")?;
    s.cluster.move_primary(&db, &to)?;
    Ok(ok_doc())
}

/// `{listShards: 1}`: each shard's `config.shards` document in its era's layout
/// (`ShardType::toBSON`, type_shard.cpp): `_id`, `host`, `draining: true` while it drains,
/// its zones as `tags`, `state`, from 5.0 `topologyTime`, and in 8.0
/// `replSetConfigVersion: Long('-1')`.
fn list_shards(s: &mut Session, _: &Document, _: &str) -> Result<Document, StatementError> {
    // The documents of config.shards (`ShardType::toBSON`), as `sh.status()` and a read
    // of the collection show them: a shard added later has its own `topologyTime`.
    let shards: Vec<Bson> = crate::engine::config_catalog::shard_docs(&s.cluster)
        .iter()
        .map(|d| Bson::Document(d.to_document()))
        .collect();
    Ok(doc! { "shards": shards, "ok": 1 })
}

/// `{configureQueryAnalyzer: ns, mode, samplesPerSecond}`: turns query sampling on or off,
/// checked as the IDL parser and configure_query_analyzer_cmd.cpp (7.0 on) check it, and
/// answers `{newConfiguration, oldConfiguration, ok}` (the pre-image's configuration only
/// when the command replaced one).
fn configure_query_analyzer(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    let ns = ns_of(cmd, name)?;
    let new = analyzer_config(cmd)?;
    check_analyzer_namespace(&ns)?;
    if new.full {
        let Some(rate) = new.rate else {
            return Err(invalid(
                "'samplesPerSecond' must be specified when 'mode' is not \"off\"",
            ));
        };
        if rate <= 0.0 {
            return Err(invalid("'samplesPerSecond' must be greater than 0"));
        }
        if rate > MAX_SAMPLES_PER_SECOND {
            return Err(invalid(
                "'samplesPerSecond' must be less than or equal to 50",
            ));
        }
    } else if new.rate.is_some() {
        return Err(invalid(
            "Cannot specify 'samplesPerSecond' when 'mode' is \"off\"",
        ));
    }
    if s.cluster.collection(&ns).is_none() {
        return Err(ClusterError::NamespaceNotFound("The namespace does not exist".into()).into());
    }
    let old = s.sampling.configure(&ns, new);
    let mut reply = doc! { "newConfiguration": config_document(new) };
    if let Some(old) = old {
        reply.insert("oldConfiguration", config_document(old));
    }
    reply.insert("ok", 1);
    Ok(reply)
}

/// `kMaxSamplesPerSecond` (configure_query_analyzer_cmd.cpp).
const MAX_SAMPLES_PER_SECOND: f64 = 50.0;

/// The request's `QueryAnalyzerConfiguration` as the IDL parser reads it: `mode` is
/// required and one of "full" or "off"; `samplesPerSecond` is any number.
fn analyzer_config(cmd: &Document) -> Result<AnalyzerConfig, StatementError> {
    let full = match cmd.get("mode") {
        None => return Err(missing_field("configureQueryAnalyzer", "mode")),
        Some(Bson::String(m)) if m == "full" => true,
        Some(Bson::String(m)) if m == "off" => false,
        Some(Bson::String(m)) => {
            return Err(ClusterError::BadValue(format!(
            "Enumeration value '{m}' for field 'configureQueryAnalyzer.mode' is not a valid value."
        ))
            .into())
        }
        Some(other) => {
            return Err(wrong_type(
                "configureQueryAnalyzer",
                "mode",
                other,
                "string",
            ))
        }
    };
    let rate = match cmd.get("samplesPerSecond") {
        None => None,
        Some(Bson::Int32(n)) => Some(f64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n as f64),
        Some(Bson::Double(d)) => Some(*d),
        Some(Bson::Decimal128(d)) => {
            Some(crate::values::decimal::Decimal::from_bson(d).to_i64_saturating() as f64)
        }
        Some(other) => {
            return Err(wrong_number_type(
                "configureQueryAnalyzer",
                "samplesPerSecond",
                other,
            ))
        }
    };
    Ok(AnalyzerConfig { full, rate })
}

/// `validateNamespace` (analyze_shard_key_util.cpp): no internal database, no system
/// collection.
fn check_analyzer_namespace(ns: &str) -> Result<(), StatementError> {
    let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
    if matches!(db, "admin" | "config" | "local") {
        return Err(ClusterError::IllegalOperation(
            "Cannot run against an internal collection".into(),
        )
        .into());
    }
    if coll.starts_with("system.") {
        return Err(ClusterError::IllegalOperation(
            "Cannot run against a system collection".into(),
        )
        .into());
    }
    Ok(())
}

/// A configuration as the reply prints it: the mode, then the rate when there is one.
fn config_document(c: AnalyzerConfig) -> Document {
    let mut d = doc! { "mode": if c.full { "full" } else { "off" } };
    if let Some(rate) = c.rate {
        d.insert("samplesPerSecond", rate);
    }
    d
}

/// `{analyzeShardKey: ns, key, keyCharacteristics, readWriteDistribution}`.
fn analyze_shard_key(
    s: &mut Session,
    cmd: &Document,
    name: &str,
) -> Result<Document, StatementError> {
    // Before anything is read: a statement whose analysis has not loaded does nothing.
    let analyze = analyzer()?;
    let ns = ns_of(cmd, name)?;
    let key = doc_field(cmd, "key")?;
    let samples = s.sampling.samples(&ns);
    let flag = |name: &str| !matches!(cmd.get(name), Some(Bson::Boolean(false)));
    let options = crate::engine::analyze::AnalyzeOptions {
        key_characteristics: flag("keyCharacteristics"),
        read_write_distribution: flag("readWriteDistribution"),
        sample_rate_and_size: cmd.contains_key("sampleRate") && cmd.contains_key("sampleSize"),
    };
    Ok(analyze(&s.cluster, &ns, &key, &samples, options)?)
}

/// What `analyzeShardKey` analyses with: [`crate::engine::analyze_shard_key_with`]. With
/// the `lazy-analyze` feature the core does not name it itself: the browser's engine
/// installs it (`install_analyzer`) from the part of its module that loads after the
/// first answer, so that the analysis is not in the first download.
pub type Analyzer = fn(
    &crate::engine::Cluster,
    &str,
    &Document,
    &[crate::engine::QuerySample],
    crate::engine::AnalyzeOptions,
) -> Result<Document, ClusterError>;

#[cfg(feature = "lazy-analyze")]
static ANALYZER: crate::support::part::Later<Analyzer> = crate::support::part::Later::new();

/// Installs the analysis every `analyzeShardKey` uses from now on (the first one installed
/// stays).
#[cfg(feature = "lazy-analyze")]
pub fn install_analyzer(analyzer: Analyzer) {
    ANALYZER.install(analyzer);
}

/// The analysis, or, with `lazy-analyze` before it is installed, the statement's error
/// (`ClusterError::PartNotLoaded`, with the reason its part could not load).
fn analyzer() -> Result<Analyzer, ClusterError> {
    #[cfg(feature = "lazy-analyze")]
    return ANALYZER
        .get()
        .ok_or_else(|| crate::query::regex::part_not_loaded("analyzeShardKey", "it"));
    #[cfg(not(feature = "lazy-analyze"))]
    Ok(crate::engine::analyze::analyze_shard_key_with)
}
