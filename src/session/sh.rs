//! `sh.` helpers, with the result shapes mongosh returns.

use super::config_db::Setting;
use super::interpreter::{call_args, ok_doc, Output, Session, StatementError};
use super::status;

use crate::engine::balancer::RemoveShardState;
use crate::engine::cluster::{ClusterError, ShardOptions, VersionMode};
use crate::engine::reshape::{ReshardOptions, ReshardZone};
use crate::shell::parser::Segment;
use crate::shell::Expr;
use bson::{doc, Bson, Document};

impl Session {
    /// Runs one of the `sh.` helpers a first visit does not run ([`super::later::LATER_SH`])
    /// by name, each called directly (see [`super::later`]); `None` for another name.
    pub(super) fn later_sh(
        &mut self,
        name: &str,
        args: &[Expr],
    ) -> Option<Result<Output, StatementError>> {
        Some(match name {
            "addShard" => add_shard(self, args, name),
            "listShards" => list_shards(self, args, name),
            "moveRange" => move_range(self, args, name),
            "balancerCollectionStatus" => balancer_collection_status(self, args, name),
            "reshardCollection" => reshard_collection(self, args, name),
            "getShardedDataDistribution" => self.get_sharded_data_distribution(args),
            _ => return None,
        })
    }

    pub(super) fn sh_command(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let Some(method) = rest.first() else {
            return Err(StatementError::type_error("sh is not a value"));
        };
        let out = self.sh_method(method)?;
        super::interpreter::navigate(out, &rest[1..])
    }

    fn sh_method(&mut self, method: &Segment) -> Result<Output, StatementError> {
        let args = call_args(method)?;
        let name = method.name.as_str();
        if name == "help" {
            let has = |n: &str| {
                SH_HELPERS.iter().any(|(h, _)| *h == n) || super::later::LATER_SH.contains(&n)
            };
            return Ok(Output::Message(super::help::sh_help(has)));
        }
        let not_a_function = || StatementError::type_error(format!("sh.{name} is not a function"));
        if let Some((_, helper)) = SH_HELPERS.iter().find(|(n, _)| *n == name) {
            return helper(self, args, name);
        }
        if !super::later::LATER_SH.contains(&name) {
            return Err(not_a_function());
        }
        let call = super::later::LaterCall::Sh(name, args);
        self.later(&format!("sh.{name}"), call)
            .unwrap_or_else(|| Err(not_a_function()))
    }
}

/// Runs one `sh.` helper: the session, the argument expressions and the name called
/// (some helpers answer to two names).
type ShHelper = fn(&mut Session, &[Expr], &str) -> Result<Output, StatementError>;

/// Every `sh.` helper a first visit runs, by the names it answers to; the others are
/// [`super::later::LATER_SH`].
const SH_HELPERS: &[(&str, ShHelper)] = &[
    ("shardCollection", shard_collection),
    ("enableSharding", enable_sharding),
    ("status", status_sections),
    ("splitAt", split_at),
    ("splitFind", split_find),
    ("moveChunk", move_chunk),
    ("addShardToZone", add_shard_to_zone),
    ("addShardTag", add_shard_to_zone),
    ("removeShardFromZone", remove_shard_from_zone),
    ("removeShardTag", remove_shard_from_zone),
    ("updateZoneKeyRange", update_zone_key_range),
    ("addTagRange", update_zone_key_range),
    ("removeRangeFromZone", remove_range_from_zone),
    ("removeTagRange", remove_range_from_zone),
    ("startBalancer", set_balancer_state),
    ("stopBalancer", set_balancer_state),
    ("setBalancerState", set_balancer_state),
    ("getBalancerState", get_balancer_state),
    ("isBalancerRunning", is_balancer_running),
    ("enableBalancing", set_balancing),
    ("disableBalancing", set_balancing),
    ("enableAutoSplit", set_auto_split),
    ("disableAutoSplit", set_auto_split),
    ("startAutoMerger", set_auto_merger),
    ("stopAutoMerger", set_auto_merger),
    ("isAutoMergerEnabled", is_auto_merger_enabled),
    ("enableAutoMerger", set_collection_auto_merger),
    ("disableAutoMerger", set_collection_auto_merger),
];

/// A helper's reply document as the value mongosh prints.
fn reply(d: Document) -> Result<Output, StatementError> {
    Ok(Output::Value(Bson::Document(d)))
}

/// mongosh's `assertArgsDefinedType` (helpers.ts) for argument `i` of `Shard.<func>`:
/// a missing (undefined) argument is refused unless `optional`, and a value whose
/// JavaScript `typeof` is none of `expected` is refused, both as
/// `MongoshInvalidInputError` before anything is sent. `None` when absent and optional.
fn checked_arg(
    s: &mut Session,
    args: &[Expr],
    i: usize,
    (expected, optional): (&[&str], bool),
    func: &str,
) -> Result<Option<Bson>, StatementError> {
    let Some(value) = s.opt_arg(args, i)? else {
        if optional {
            return Ok(None);
        }
        return Err(StatementError::invalid_input(format!(
            "Missing required argument at position {i} (Shard.{func})"
        )));
    };
    if !expected.contains(&crate::values::js_typeof(&value)) {
        return Err(wrong_arg_type(i, expected, &value, func));
    }
    Ok(Some(value))
}

/// mongosh's refusal of argument `i` of `Shard.<func>` whose `typeof` is none of
/// `expected` (helpers.ts, `assertArgsDefinedType`), as the console prints it for, say,
/// `sh.shardCollection(ns, 5)`.
pub fn wrong_arg_type(i: usize, expected: &[&str], value: &Bson, func: &str) -> StatementError {
    StatementError::invalid_input(format!(
        "Argument at position {i} must be of type {}, got {} instead (Shard.{func})",
        expected.join(" or "),
        crate::values::js_typeof(value)
    ))
}

/// A required string argument of `Shard.<func>` ([`checked_arg`]).
fn string_arg(
    s: &mut Session,
    args: &[Expr],
    i: usize,
    func: &str,
) -> Result<String, StatementError> {
    match checked_arg(s, args, i, (&["string"], false), func)? {
        Some(Bson::String(v)) => Ok(v),
        _ => Err(StatementError::invalid_input(format!(
            "Missing required argument at position {i} (Shard.{func})"
        ))),
    }
}

/// A required object argument of `Shard.<func>` ([`checked_arg`]); an object that is
/// not a document (`null`, an array, a `Long`) passes mongosh's check and is refused
/// here as the shell's `TypeError`.
fn object_arg(
    s: &mut Session,
    args: &[Expr],
    i: usize,
    func: &str,
    what: &str,
) -> Result<Document, StatementError> {
    match checked_arg(s, args, i, (&["object"], false), func)? {
        Some(Bson::Document(d)) => Ok(d),
        other => Err(StatementError::type_error(format!(
            "{what} must be an object, got {}",
            crate::values::inspect::format_value(&other.unwrap_or(Bson::Undefined))
        ))),
    }
}

/// `sh.shardCollection(ns, key, unique, options)`: mongosh merges `options` into the
/// command (`numInitialChunks`, `presplitHashedZones`, `collation`).
fn shard_collection(s: &mut Session, args: &[Expr], name: &str) -> Result<Output, StatementError> {
    let (ns, key, unique, options) = shard_collection_args(s, args, name)?;
    let unique = matches!(unique, Some(Bson::Boolean(true)));
    let options = shard_options(unique, &options);
    s.cluster.shard_collection_with(&ns, &key, &options)?;
    reply(doc! { "collectionsharded": ns, "ok": 1 })
}

/// The arguments of `sh.shardCollection` and `sh.reshardCollection` as shard.ts's
/// `_runShardCollection` takes them: a string, an object, then `unique` (a boolean, or
/// an object taken as the options in its place) and the options.
fn shard_collection_args(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<(String, Document, Option<Bson>, Document), StatementError> {
    let ns = string_arg(s, args, 0, name)?;
    let key = object_arg(s, args, 1, name, "key")?;
    let unique = checked_arg(s, args, 2, (&["boolean", "object"], true), name)?;
    let options = checked_arg(s, args, 3, (&["object"], true), name)?;
    Ok(match (unique, options) {
        (Some(Bson::Document(d)), _) => (ns, key, None, d),
        (unique, Some(Bson::Document(d))) => (ns, key, unique, d),
        (unique, _) => (ns, key, unique, Document::new()),
    })
}

/// `shardCollection`'s options read from a command or mongosh's options document: a
/// number of any type for `numInitialChunks` (truncated, as the command's integer field
/// takes it), a true value for `presplitHashedZones`.
pub(super) fn shard_options(unique: bool, d: &Document) -> ShardOptions {
    let num_initial_chunks = match d.get("numInitialChunks") {
        Some(Bson::Int32(n)) => Some(i64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Double(x)) => Some(*x as i64),
        _ => None,
    };
    ShardOptions {
        unique,
        num_initial_chunks,
        presplit_hashed_zones: matches!(d.get("presplitHashedZones"), Some(Bson::Boolean(true))),
        collation: match d.get("collation") {
            Some(Bson::Document(c)) => Some(c.clone()),
            _ => None,
        },
    }
}

/// `sh.enableSharding(db)`.
fn enable_sharding(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let db = string_arg(s, args, 0, "enableSharding")?;
    let primary = match checked_arg(s, args, 1, (&["string"], true), "enableSharding")? {
        Some(Bson::String(p)) => Some(p),
        _ => None,
    };
    s.cluster.enable_sharding(&db, primary.as_deref())?;
    reply(doc! { "ok": 1 })
}

/// `sh.status()`, `sh.status(true)` or `sh.status({verbose: true})`.
fn status_sections(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let verbose = match s.opt_arg(args, 0)? {
        Some(Bson::Boolean(b)) => b,
        Some(Bson::Document(d)) => matches!(d.get("verbose"), Some(Bson::Boolean(true))),
        _ => false,
    };
    Ok(Output::Sections(status::sh_status(&s.cluster, verbose)))
}

impl Session {
    /// `db.printShardingStatus(verbose)`: mongosh's database.ts prints what
    /// `sh.status()` prints.
    pub(super) fn print_sharding_status(
        &mut self,
        args: &[Expr],
    ) -> Result<Output, StatementError> {
        status_sections(self, args, "printShardingStatus")
    }
}

/// `sh.addShard(host)`: the host is only checked, as MongoDB parses it (an empty host is
/// refused); the new shard gets the next name. Without a host, ShardLab adds one anyway.
fn add_shard(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let name = match s.opt_arg(args, 0)? {
        Some(Bson::String(host)) => s.cluster.add_shard_at(&host)?,
        _ => s.cluster.add_shard(),
    };
    reply(doc! { "shardAdded": name, "ok": 1 })
}

/// `sh.listShards(filter)` (shard.ts): `listShards`' `shards`, the command given the
/// filter when there is one. (mongosh has no `sh.removeShard`: a shard is drained with
/// `db.adminCommand({removeShard: name})`.)
fn list_shards(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let mut cmd = doc! { "listShards": 1 };
    if let Some(filter) = checked_arg(s, args, 0, (&["object"], true), "listShards")? {
        cmd.insert("filter", filter);
    }
    let reply = s.admin_command_on("admin", &cmd)?;
    let shards = match reply {
        Output::Value(Bson::Document(mut d)) => d.remove("shards").unwrap_or(Bson::Array(vec![])),
        _ => Bson::Array(vec![]),
    };
    Ok(Output::Value(shards))
}

/// `sh.splitAt(ns, middle)`.
fn split_at(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, "splitAt")?;
    let middle = object_arg(s, args, 1, "splitAt", "middle")?;
    s.cluster.split_at(&ns, &middle)?;
    reply(ok_doc())
}

/// `sh.splitFind(ns, query)`.
fn split_find(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, "splitFind")?;
    let query = object_arg(s, args, 1, "splitFind", "query")?;
    s.cluster.split_find(&ns, &query)?;
    reply(ok_doc())
}

/// `sh.moveChunk(ns, query, shard)`.
fn move_chunk(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, "moveChunk")?;
    let find = object_arg(s, args, 1, "moveChunk", "query")?;
    let to = string_arg(s, args, 2, "moveChunk")?;
    // mongosh sends `{moveChunk: ns, find: query, to: destination}` (shard.ts).
    let cmd = doc! { "moveChunk": ns, "find": find, "to": to };
    reply(super::idl_commands::move_chunk(s, &cmd, "moveChunk")?)
}

/// `sh.moveRange(ns, shard, min, max)`.
fn move_range(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    require_command(s, "moveRange")?;
    let ns = string_arg(s, args, 0, "moveRange")?;
    let to = string_arg(s, args, 1, "moveRange")?;
    let mut bound = |i: usize| match checked_arg(s, args, i, (&["object"], true), "moveRange") {
        Ok(Some(Bson::Document(d))) => Ok(Some(d)),
        Ok(_) => Ok(None),
        Err(e) => Err(e),
    };
    let min = bound(2)?;
    let max = bound(3)?;
    s.cluster.move_range(&ns, &to, min.as_ref(), max.as_ref())?;
    reply(ok_doc())
}

/// `sh.addShardToZone(shard, zone)` (alias `addShardTag`).
fn add_shard_to_zone(s: &mut Session, args: &[Expr], name: &str) -> Result<Output, StatementError> {
    let shard = string_arg(s, args, 0, name)?;
    let zone = string_arg(s, args, 1, name)?;
    s.cluster.add_shard_to_zone(&shard, &zone)?;
    reply(ok_doc())
}

/// `sh.removeShardFromZone(shard, zone)` (alias `removeShardTag`).
fn remove_shard_from_zone(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<Output, StatementError> {
    let shard = string_arg(s, args, 0, name)?;
    let zone = string_arg(s, args, 1, name)?;
    s.cluster.remove_shard_from_zone(&shard, &zone)?;
    reply(ok_doc())
}

/// `sh.updateZoneKeyRange(ns, min, max, zone)` (alias `addTagRange`); a null zone
/// removes the range.
fn update_zone_key_range(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, name)?;
    let min = object_arg(s, args, 1, name, "min")?;
    let max = object_arg(s, args, 2, name, "max")?;
    // `true` in mongosh's list: any value but undefined, null included; mongosh sends
    // it as it is, and the server answers for a zone that is neither a string nor null.
    let Some(zone) = s.opt_arg(args, 3)? else {
        return Err(StatementError::invalid_input(format!(
            "Missing required argument at position 3 (Shard.{name})"
        )));
    };
    let cmd = doc! { "updateZoneKeyRange": ns, "min": min, "max": max, "zone": zone };
    reply(super::idl_commands::update_zone_key_range(
        s,
        &cmd,
        "updateZoneKeyRange",
    )?)
}

/// `sh.removeRangeFromZone(ns, min, max)`.
fn remove_range_from_zone(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, name)?;
    let min = object_arg(s, args, 1, name, "min")?;
    let max = object_arg(s, args, 2, name, "max")?;
    s.cluster.update_zone_key_range(&ns, &min, &max, None)?;
    reply(ok_doc())
}

/// `sh.startBalancer()`, `sh.stopBalancer()` and `sh.setBalancerState(on)`.
fn set_balancer_state(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<Output, StatementError> {
    // shard.ts: `timeout = 60000` must be a number; `state` a boolean.
    let on = match name {
        "startBalancer" | "stopBalancer" => {
            checked_arg(s, args, 0, (&["number"], true), name)?;
            name == "startBalancer"
        }
        _ => matches!(
            checked_arg(s, args, 0, (&["boolean"], false), name)?,
            Some(Bson::Boolean(true))
        ),
    };
    s.cluster.set_balancer_mode(on);
    reply(ok_doc())
}

/// `sh.getBalancerState()`.
fn get_balancer_state(s: &mut Session, _: &[Expr], _: &str) -> Result<Output, StatementError> {
    Ok(Output::Value(Bson::Boolean(
        status::balancer_shown_enabled(&s.cluster),
    )))
}

/// `sh.isBalancerRunning()`.
fn is_balancer_running(s: &mut Session, _: &[Expr], _: &str) -> Result<Output, StatementError> {
    reply(super::clock::balancer_status(&s.cluster))
}

/// `sh.enableBalancing(ns)` and `sh.disableBalancing(ns)`.
fn set_balancing(s: &mut Session, args: &[Expr], name: &str) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, name)?;
    s.cluster
        .set_collection_balancing(&ns, name == "enableBalancing")?;
    reply(update_reply())
}

/// `sh.enableAutoSplit()` and `sh.disableAutoSplit()` (shard.ts): an upsert of
/// `{_id: 'autosplit'}` in `config.settings` setting `enabled`, answered as that write is
/// (8.0's validator refuses it); versions without auto-splitting keep it off whatever
/// the document says.
fn set_auto_split(s: &mut Session, _: &[Expr], name: &str) -> Result<Output, StatementError> {
    let enable = name == "enableAutoSplit";
    if !s.cluster.version().auto_splits() {
        // shard.ts, from 6.0.3: a deprecation warning, then the update all the same.
        s.deprecation_warning_text(AUTO_SPLIT_DEPRECATED);
    }
    s.upsert_enabled_setting(Setting::AutoSplit, enable)
}

/// What shard.ts `enableAutoSplit`/`disableAutoSplit` announce to a 6.0.3+ server.
const AUTO_SPLIT_DEPRECATED: &str = "Starting in MongoDB 6.0.3, automatic chunk splitting is not \
     performed. This is because of balancing policy improvements. Auto-splitting commands still \
     exist, but do not perform an operation. For details, see Balancing Policy Changes: \
     https://www.mongodb.com/docs/manual/release-notes/6.0/#balancing-policy-changes\n";

/// `sh.startAutoMerger()` and `sh.stopAutoMerger()` (shard.ts, 7.0 on): an upsert of
/// `{_id: 'automerge'}` in `config.settings` setting `enabled`, answered with its
/// `UpdateResult` (the first one inserts the document). mongosh sends it whatever the
/// server, so every mode keeps the setting; only 7.0+ servers run an AutoMerger.
fn set_auto_merger(s: &mut Session, _: &[Expr], name: &str) -> Result<Output, StatementError> {
    s.upsert_enabled_setting(Setting::AutoMerge, name == "startAutoMerger")
}

/// `sh.isAutoMergerEnabled()` (shard.ts): `true` when `config.settings` has no
/// `automerge` document, else its `enabled` as it is (nothing printed when it has none).
fn is_auto_merger_enabled(s: &mut Session, _: &[Expr], _: &str) -> Result<Output, StatementError> {
    Ok(Output::Value(match &s.cluster.automerge_setting {
        None => Bson::Boolean(true),
        Some(doc) => doc.get("enabled").cloned().unwrap_or(Bson::Undefined),
    }))
}

/// `sh.disableAutoMerger(ns)` and `sh.enableAutoMerger(ns)`: `config.collections`'
/// `enableAutoMerge` set to false, or unset; an unsharded namespace has no document there,
/// so nothing matches.
fn set_collection_auto_merger(
    s: &mut Session,
    args: &[Expr],
    name: &str,
) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, name)?;
    let new = (name == "disableAutoMerger").then_some(false);
    let Some(sharding) = s
        .cluster
        .collections
        .get_mut(&ns)
        .and_then(|c| c.sharding.as_mut())
    else {
        return reply(settings_update_reply(0, 0));
    };
    let changed = sharding.auto_merge != new;
    sharding.auto_merge = new;
    reply(settings_update_reply(1, i32::from(changed)))
}

/// An `UpdateResult` of a `config` update that inserted nothing.
fn settings_update_reply(matched: i32, modified: i32) -> Document {
    doc! {
        "acknowledged": true,
        "insertedId": Bson::Null,
        "matchedCount": matched,
        "modifiedCount": modified,
        "upsertedCount": 0,
    }
}

/// `sh.balancerCollectionStatus(ns)`.
fn balancer_collection_status(
    s: &mut Session,
    args: &[Expr],
    _: &str,
) -> Result<Output, StatementError> {
    let ns = string_arg(s, args, 0, "balancerCollectionStatus")?;
    require_command(s, "balancerCollectionStatus")?;
    reply(status::balancer_collection_status(&s.cluster, &ns)?)
}

/// `sh.reshardCollection(ns, key, unique, options)`: as for `sh.shardCollection`, mongosh
/// takes an object in `unique`'s place as the options, and merges the options into the
/// command (shard.ts, `_runShardCollection`).
fn reshard_collection(s: &mut Session, args: &[Expr], _: &str) -> Result<Output, StatementError> {
    require_command(s, "reshardCollection")?;
    let (ns, key, unique, options) = shard_collection_args(s, args, "reshardCollection")?;
    let mut cmd = doc! { "reshardCollection": ns.clone(), "key": key.clone() };
    if let Some(unique) = unique {
        cmd.insert("unique", unique);
    }
    cmd.extend(options);
    let opts = reshard_options(&cmd)?;
    s.cluster.reshard_collection_with(&ns, &key, &opts)?;
    reply(ok_doc())
}

/// The reply of an update of `config.settings`, as mongosh prints it for the balancing
/// and auto-split helpers.
fn update_reply() -> Document {
    doc! {
        "acknowledged": true,
        "insertedId": Bson::Null,
        "matchedCount": 1,
        "modifiedCount": 1,
        "upsertedCount": 0,
    }
}

/// mongos's answer to a command it does not have, `CommandNotFound` (59): 3.6's
/// `runAgainstRegistered`, 4.x's `runCommand` and 5.0 to 8.0's
/// `ParseAndRunCommand::_parseCommand` (src/mongo/s/commands/strategy.cpp) all say
/// "no such cmd: <name>". mongod's "no such command: '<name>'"
/// (service_entry_point_common.cpp) is not the router's, and ShardLab is a mongos.
pub(super) fn no_such_command(name: &str) -> ClusterError {
    ClusterError::CommandNotFound(format!("no such cmd: {name}"))
}

/// The commands newer than some version mode, with the mode they first exist in:
/// balancerCollectionStatus and refineCollectionShardKey came in 4.4, reshardCollection in
/// 5.0 (all in the 5.0 mode, which stands for 4.4 and 5.0), configureCollectionBalancing in
/// 5.3 and moveRange in 6.0.
const SINCE: &[(&str, VersionMode)] = &[
    ("balancerCollectionStatus", VersionMode::V50),
    ("refineCollectionShardKey", VersionMode::V50),
    ("reshardCollection", VersionMode::V50),
    ("moveRange", VersionMode::V70),
    ("mergeAllChunksOnShard", VersionMode::V70),
    ("configureCollectionBalancing", VersionMode::V70),
];

/// Refuses, as an older mongos does, a command its version mode did not have yet. The
/// shell's helpers (`sh.reshardCollection`, `sh.moveRange`) send the same command, so the
/// server's answer is the same.
pub(super) fn require_command(s: &Session, name: &str) -> Result<(), StatementError> {
    if has_command(s.cluster.version(), name) {
        Ok(())
    } else {
        Err(no_such_command(name).into())
    }
}

/// Whether a mongos of `version`'s era has the admin command `name` (see `SINCE`); the
/// page asks before it offers a refine or a reshard.
pub fn has_command(version: VersionMode, name: &str) -> bool {
    SINCE
        .iter()
        .find(|(n, _)| *n == name)
        .is_none_or(|(_, since)| version >= *since)
}

/// `removeShard`'s reply for each state.
pub(super) fn remove_shard_reply(shard: &str, state: RemoveShardState) -> Document {
    let note = "you need to drop or movePrimary these databases";
    match state {
        RemoveShardState::Started { dbs_to_move } => doc! {
            "msg": "draining started successfully",
            "state": "started",
            "shard": shard,
            "note": note,
            "dbsToMove": dbs_to_move,
            "ok": 1,
        },
        RemoveShardState::Ongoing {
            chunks,
            dbs_to_move,
            jumbo_chunks,
        } => {
            let mut remaining = doc! {
                "chunks": chunks as i64,
                "dbs": dbs_to_move.len() as i64,
            };
            if let Some(jumbo) = jumbo_chunks {
                remaining.insert("jumboChunks", jumbo as i64);
            }
            doc! {
                "msg": "draining ongoing",
                "state": "ongoing",
                "remaining": remaining,
                "note": note,
                "dbsToMove": dbs_to_move,
                "ok": 1,
            }
        }
        RemoveShardState::Completed => doc! {
            "msg": "removeshard completed successfully",
            "state": "completed",
            "shard": shard,
            "ok": 1,
        },
    }
}

/// `reshardCollection`'s options read from the command: `zones` is an array of
/// `{zone, min, max}` documents (`ReshardingZoneType`, a string and two objects).
pub(super) fn reshard_options(cmd: &Document) -> Result<ReshardOptions, StatementError> {
    let zones = match cmd.get("zones") {
        None => None,
        Some(Bson::Array(items)) => {
            let mut zones = Vec::with_capacity(items.len());
            for item in items {
                let zone = match item {
                    Bson::Document(d) => match (d.get("zone"), d.get("min"), d.get("max")) {
                        (
                            Some(Bson::String(zone)),
                            Some(Bson::Document(min)),
                            Some(Bson::Document(max)),
                        ) => ReshardZone {
                            zone: zone.clone(),
                            min: min.clone(),
                            max: max.clone(),
                        },
                        _ => return Err(bad_zones()),
                    },
                    _ => return Err(bad_zones()),
                };
                zones.push(zone);
            }
            Some(zones)
        }
        Some(_) => return Err(bad_zones()),
    };
    Ok(ReshardOptions {
        unique: matches!(cmd.get("unique"), Some(Bson::Boolean(true))),
        num_initial_chunks: shard_options(false, cmd).num_initial_chunks,
        zones,
        collation: match cmd.get("collation") {
            Some(Bson::Document(c)) => Some(c.clone()),
            _ => None,
        },
    })
}

/// A `zones` option that is not an array of `{zone: <string>, min: <object>, max:
/// <object>}` (ShardLab's words, not the IDL parser's).
fn bad_zones() -> StatementError {
    ClusterError::BadValue(
        "'zones' must be an array of {zone: <string>, min: <object>, max: <object>}".into(),
    )
    .into()
}
