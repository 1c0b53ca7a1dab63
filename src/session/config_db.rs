//! The config database from the shell: `db.getSiblingDB("config").chunks.find(...)`,
//! `use config` then `db.chunks.find()`, `countDocuments` and `aggregate`, over the
//! documents [`crate::engine::config_catalog`] lays out for the cluster's version mode.
//! Writes to the `config.settings` documents the cluster reads (`chunksize`, `balancer`,
//! `autosplit`, `automerge`) are accepted as the manual's procedures and mongosh's helpers
//! make them, through the era's validator, and change what the cluster does; every
//! other write is refused with the error an authenticated user without the cluster's
//! internal privileges gets from a mongos.

use super::interpreter::{Output, Session, StatementError};
use crate::engine::cluster::{ClusterError, VersionMode};
use crate::engine::config_catalog::config_documents;
use crate::query;
use crate::shell::parser::Segment;
use crate::shell::Expr;
use crate::values::error::Code;
use bson::{Bson, Document};

/// The methods that write, with the command the driver sends for each.
const WRITES: &[(&str, &str)] = &[
    ("insertOne", "insert"),
    ("insertMany", "insert"),
    ("insert", "insert"),
    ("updateOne", "update"),
    ("updateMany", "update"),
    ("replaceOne", "update"),
    ("update", "update"),
    ("deleteOne", "delete"),
    ("deleteMany", "delete"),
    ("remove", "delete"),
    ("findOneAndUpdate", "findAndModify"),
    ("findOneAndReplace", "findAndModify"),
    ("findOneAndDelete", "findAndModify"),
    ("findAndModify", "findAndModify"),
    ("bulkWrite", "insert"),
    ("drop", "drop"),
    ("createIndex", "createIndexes"),
    ("createIndexes", "createIndexes"),
    ("ensureIndex", "createIndexes"),
    ("dropIndex", "dropIndexes"),
    ("dropIndexes", "dropIndexes"),
    ("renameCollection", "renameCollection"),
];

/// The collection part of `ns` when it is in the config database.
pub(super) fn config_collection(ns: &str) -> Option<&str> {
    ns.strip_prefix("config.")
}

impl Session {
    /// A method called on a config collection, when it is one the config database
    /// answers differently (reads from the catalog, refused writes); `None` lets the
    /// ordinary collection methods answer (`getName`, ...).
    pub(super) fn config_chain(
        &mut self,
        ns: &str,
        rest: &[Segment],
    ) -> Option<Result<Output, StatementError>> {
        let coll = config_collection(ns)?;
        let method = rest.first()?;
        let args = method.args.as_deref()?;
        let chained = &rest[1..];
        let name = method.name.as_str();
        if let Some((_, command)) = WRITES.iter().find(|(m, _)| *m == name) {
            if coll == "settings" {
                if let Some(out) = self.setting_write(name, args) {
                    return Some(out.and_then(|o| super::interpreter::navigate(o, chained)));
                }
            }
            return Some(self.refuse_config_write(coll, name, command, args));
        }
        let docs = || config_documents(&self.cluster, coll).unwrap_or_default();
        Some(match name {
            "find" | "findOne" => self.config_find(docs(), name == "findOne", args, chained),
            "countDocuments" | "count" => self.config_count(docs(), args, chained),
            "estimatedDocumentCount" => {
                let n = docs().len() as i32;
                super::interpreter::navigate(Output::Value(Bson::Int32(n)), chained)
            }
            "aggregate" => {
                let docs = docs();
                self.aggregate_documents(ns, docs, args, chained)
            }
            "distinct" => self.config_distinct(docs(), args, chained),
            _ => return None,
        })
    }

    /// `find(filter, projection)` and `findOne`, with the cursor methods chained on it.
    fn config_find(
        &mut self,
        docs: Vec<Document>,
        one: bool,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let filter = self.opt_doc_arg(args, 0, "filter")?;
        let mut projection = match self.opt_arg(args, 1)? {
            Some(Bson::Document(p)) => Some(p),
            _ => None,
        };
        let (mut sort, mut skip, mut limit, mut count) = (None, 0usize, None, false);
        let mut array = false;
        let mut rest: &[Segment] = &[];
        for (i, seg) in chained.iter().enumerate() {
            let Some(a) = seg.args.as_deref() else {
                rest = &chained[i..];
                break;
            };
            match seg.name.as_str() {
                "sort" => sort = Some(self.doc_arg(a, 0, "sort")?),
                "limit" => limit = Some(self.int_arg(a, 0, "limit")?.unsigned_abs() as usize),
                "skip" => skip = self.int_arg(a, 0, "skip")?.max(0) as usize,
                "count" | "itcount" | "size" => count = true,
                "projection" => projection = Some(self.doc_arg(a, 0, "projection")?),
                "toArray" => {
                    array = true;
                    rest = &chained[i + 1..];
                    break;
                }
                "pretty" => {}
                other => {
                    return Err(StatementError::type_error(format!(
                        "cursor.{other} is not a function"
                    )))
                }
            }
        }
        let mut docs = matching(docs, &filter)?;
        if let Some(sort) = &sort {
            query::sort_documents(&mut docs, sort);
        }
        let limit = match (one, limit) {
            (true, _) => 1,
            (_, Some(l)) if l > 0 => l,
            _ => usize::MAX,
        };
        let docs: Vec<Document> = docs.into_iter().skip(skip).take(limit).collect();
        if count {
            let n = Output::Value(Bson::Int32(docs.len() as i32));
            return super::interpreter::navigate(n, rest);
        }
        let docs = match &projection {
            Some(p) => docs
                .iter()
                .map(|d| query::project(d, p))
                .collect::<Result<Vec<_>, _>>()?,
            None => docs,
        };
        let out = if one {
            Output::Value(docs.into_iter().next().map_or(Bson::Null, Bson::Document))
        } else if array {
            super::cursor::to_array(docs)
        } else {
            Output::Cursor(docs)
        };
        super::interpreter::navigate(out, rest)
    }

    /// `countDocuments(filter, {skip, limit})` (and the legacy `count(filter)`).
    fn config_count(
        &mut self,
        docs: Vec<Document>,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let filter = self.opt_doc_arg(args, 0, "filter")?;
        let options = self.opt_doc_arg(args, 1, "options")?;
        let n = count_with_options(matching(docs, &filter)?.len() as i64, &options);
        super::interpreter::navigate(Output::Value(Bson::Int32(n as i32)), chained)
    }

    /// `distinct(field, filter)`: each value of `field` once (an array's elements
    /// counted one by one), in the order first met, as an array.
    fn config_distinct(
        &mut self,
        docs: Vec<Document>,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let field = self.str_arg(args, 0, "field")?;
        let filter = self.opt_doc_arg(args, 1, "filter")?;
        let docs = matching(docs, &filter)?;
        let all = docs.iter().flat_map(|d| {
            crate::query::filter::path_values(d, &field)
                .into_iter()
                .flatten()
                .filter(|v| !matches!(v, Bson::Array(_)))
                .cloned()
                .collect::<Vec<_>>()
        });
        let values = crate::query::pipeline::distinct_values(all);
        super::interpreter::navigate(Output::Value(Bson::Array(values)), chained)
    }

    /// A write to the config database, refused as a mongos refuses a user without the
    /// privilege: `not authorized on config to execute command { ... }`, the command as
    /// the driver sends it (without its session and cluster time fields), printed as
    /// `BSONObj::toString` prints it (`Command::checkAuthorization`,
    /// src/mongo/db/commands.cpp).
    fn refuse_config_write(
        &mut self,
        coll: &str,
        method: &str,
        command: &str,
        args: &[Expr],
    ) -> Result<Output, StatementError> {
        let mut cmd = Document::new();
        cmd.insert(command, coll);
        let first = self.opt_arg(args, 0)?;
        let second = self.opt_arg(args, 1)?;
        match command {
            "insert" => {
                let docs = match first {
                    Some(Bson::Array(a)) => a,
                    Some(d) => vec![d],
                    None => Vec::new(),
                };
                cmd.insert("documents", docs);
                cmd.insert("ordered", true);
            }
            "update" => {
                let mut u = Document::new();
                u.insert("q", first.unwrap_or(Bson::Document(Document::new())));
                u.insert("u", second.unwrap_or(Bson::Document(Document::new())));
                if method == "updateMany" {
                    u.insert("multi", true);
                }
                cmd.insert("updates", vec![Bson::Document(u)]);
                cmd.insert("ordered", true);
            }
            "delete" => {
                let mut d = Document::new();
                d.insert("q", first.unwrap_or(Bson::Document(Document::new())));
                d.insert("limit", i32::from(method == "deleteOne"));
                cmd.insert("deletes", vec![Bson::Document(d)]);
                cmd.insert("ordered", true);
            }
            _ => {}
        }
        cmd.insert("$db", "config");
        Err(ClusterError::Coded(
            Code::Unauthorized,
            format!(
                "not authorized on config to execute command {}",
                crate::keys::shard_key::format_bson_obj(&cmd)
            ),
        )
        .into())
    }
}

impl Session {
    /// A write to one of the `config.settings` documents the cluster reads (`chunksize`,
    /// `balancer`, `autosplit`, `automerge`), which administrators make as the manual's
    /// "Modify Range Size" and "Manage Sharded Cluster Balancer" show (`use config`, then
    /// `db.settings.updateOne({_id: "chunksize"}, {$set: {_id: "chunksize", value:
    /// <MiB>}}, {upsert: true})`, or `{_id: "balancer"}` with `{$set: {activeWindow:
    /// {start, stop}}}`), and mongosh's `sh.enableAutoSplit()` and `sh.stopAutoMerger()`
    /// send as they are (shard.ts: `{_id: 'autosplit'}`/`{_id: 'automerge'}` with `{$set:
    /// {enabled}}`, upserted): `updateOne`, `updateMany`, `update`, `replaceOne`,
    /// `insertOne`, `deleteOne` and `deleteMany` whose filter (or document) has that
    /// `_id`. `None` for any other write, which stays refused. The cluster takes the new
    /// settings as its next refresh would ([`crate::engine::Cluster::write_chunksize_setting`],
    /// [`crate::engine::Cluster::write_balancer_setting`],
    /// [`crate::engine::Cluster::write_autosplit_setting`],
    /// [`crate::engine::Cluster::write_automerge_setting`]).
    fn setting_write(
        &mut self,
        name: &str,
        args: &[Expr],
    ) -> Option<Result<Output, StatementError>> {
        let first = match self.opt_arg(args, 0) {
            Ok(Some(Bson::Document(d))) => d,
            Ok(_) => return None,
            Err(e) => return Some(Err(e)),
        };
        let key = match first.get("_id") {
            Some(Bson::String(id)) => Setting::from_id(id)?,
            _ => return None,
        };
        let current = self.current_setting(key);
        Some(match name {
            "insertOne" | "insert" => self.setting_insert(key, first, current),
            "deleteOne" | "deleteMany" | "remove" => {
                let found = match current {
                    Some(doc) => matching(vec![doc], &first).map(|m| !m.is_empty()),
                    None => Ok(false),
                };
                found.map_err(StatementError::from).map(|found| {
                    if found {
                        self.store_setting(key, None);
                    }
                    Output::Value(Bson::Document(bson::doc! {
                        "acknowledged": true,
                        "deletedCount": i32::from(found),
                    }))
                })
            }
            "updateOne" | "updateMany" | "update" | "replaceOne" => {
                let update = match self.update_arg(name, args) {
                    Ok(u) => u,
                    Err(e) => return Some(Err(e)),
                };
                let upsert = match self.opt_arg(args, 2) {
                    Ok(o) => matches!(
                        o,
                        Some(Bson::Document(o)) if o.get("upsert") == Some(&Bson::Boolean(true))
                    ),
                    Err(e) => return Some(Err(e)),
                };
                self.setting_update(key, &first, &update, upsert, current)
            }
            _ => return None,
        })
    }

    /// What mongosh's `sh.enableAutoSplit()`, `sh.disableAutoSplit()`,
    /// `sh.startAutoMerger()` and `sh.stopAutoMerger()` send (shard.ts): `updateOne({_id:
    /// <setting>}, {$set: {enabled}}, {upsert: true})` on `config.settings`, answered as
    /// that write is, its `UpdateResult` or the server's error (8.0's validator has no
    /// branch for `autosplit`).
    pub(super) fn upsert_enabled_setting(
        &mut self,
        key: Setting,
        enabled: bool,
    ) -> Result<Output, StatementError> {
        let filter = bson::doc! { "_id": key.id() };
        let update = bson::doc! { "$set": { "enabled": enabled } };
        let current = self.current_setting(key);
        self.setting_update(key, &filter, &update, true, current)
    }

    /// The settings document of `key` as `config.settings` holds it now.
    fn current_setting(&self, key: Setting) -> Option<Document> {
        crate::engine::config_catalog::setting_docs(&self.cluster)
            .iter()
            .map(crate::engine::config_catalog::SettingDoc::to_document)
            .find(|d| d.get("_id") == Some(&Bson::String(key.id().into())))
    }

    /// Keeps a settings document as written (`None`: deleted).
    fn store_setting(&mut self, key: Setting, doc: Option<Document>) {
        match key {
            Setting::ChunkSize => self.cluster.write_chunksize_setting(doc),
            Setting::Balancer => self.cluster.write_balancer_setting(doc),
            Setting::AutoSplit => self.cluster.write_autosplit_setting(doc),
            Setting::AutoMerge => self.cluster.write_automerge_setting(doc),
        }
    }

    /// `insertOne({_id: "chunksize", value})`: a second document of the same `_id` is a
    /// duplicate (E11000 on `config.settings`' `_id_` index).
    fn setting_insert(
        &mut self,
        key: Setting,
        doc: Document,
        current: Option<Document>,
    ) -> Result<Output, StatementError> {
        if current.is_some() {
            return Err(duplicate_setting(key));
        }
        let doc = id_first(doc);
        self.check_settings_schema(&doc)?;
        self.store_setting(key, Some(doc));
        Ok(Output::Value(Bson::Document(bson::doc! {
            "acknowledged": true,
            "insertedId": key.id(),
        })))
    }

    /// An update or replacement of a settings document, an upsert inserting it when
    /// there is none, with mongosh's `UpdateResult` (result.ts). An upsert whose filter
    /// misses the document that is there inserts a second one of the same `_id`, which
    /// the `_id_` index refuses.
    fn setting_update(
        &mut self,
        key: Setting,
        filter: &Document,
        update: &Document,
        upsert: bool,
        current: Option<Document>,
    ) -> Result<Output, StatementError> {
        let matched = match &current {
            Some(doc) => matching(vec![doc.clone()], filter)?.pop(),
            None => None,
        };
        let (new, upserted) = match &matched {
            Some(doc) => (
                query::update::apply_update(doc, update).map_err(write_error_of)?,
                false,
            ),
            None if upsert => (
                query::update::upsert_document(filter, update).map_err(write_error_of)?,
                true,
            ),
            None => {
                return Ok(update_result(Bson::Null, 0, 0, 0));
            }
        };
        let new = id_first(new);
        let modified = matched.as_ref().is_some_and(|old| *old != new);
        if upserted || modified {
            self.check_settings_schema(&new)?;
            if upserted && current.is_some() {
                return Err(duplicate_setting(key));
            }
            self.store_setting(key, Some(new));
        }
        Ok(if upserted {
            update_result(Bson::String(key.id().into()), 0, 0, 1)
        } else {
            update_result(Bson::Null, 1, i32::from(modified), 0)
        })
    }

    /// The `$jsonSchema` validator on `config.settings` from FCV 6.2
    /// (`ShardingCatalogManager::_initConfigSettings`, sharding_catalog_manager.cpp): a
    /// document must fit exactly one branch of its `oneOf` (3.6 and 5.0 have none and
    /// take any document). Each branch names the `_id`s it takes; a document whose `_id`
    /// no branch names fits none (jstests/sharding/config_settings_schema.js:
    /// `notARealSetting` is refused).
    /// - 7.0 mode (7.0's validator): the `chunksize` branch
    ///   (`{_id: {enum: ['chunksize']}, value: {bsonType: 'number', minimum: 1, maximum:
    ///   1024}}` and no other field), and a branch without a schema for `balancer`,
    ///   `autosplit`, `automerge`, `ReadWriteConcernDefaults` and `audit`.
    /// - 8.0 mode: `BalancerSettingsType::kSchema` (only the balancer's fields, each of
    ///   its type), `ChunkSizeSettingsType::kSchema` (as above), and the branch without a
    ///   schema for `automerge`, `ReadWriteConcernDefaults` and `audit` only: auto-splitting
    ///   and `AutoSplitSettingsType` are gone, so an `autosplit` document is refused, as
    ///   mongosh's `sh.enableAutoSplit()` is by such a server.
    ///
    /// A document it refuses is the write error `DocumentValidationFailure` (121),
    /// "Document failed validation".
    fn check_settings_schema(&self, doc: &Document) -> Result<(), StatementError> {
        if settings_validator_accepts(self.cluster.version(), doc) {
            Ok(())
        } else {
            let mut e = StatementError::server_coded(
                121,
                "DocumentValidationFailure",
                "Document failed validation",
            );
            e.kind = super::interpreter::ErrorKind::Write;
            Err(e)
        }
    }
}

/// Whether `config.settings`' validator in `version`'s era takes `doc` (see
/// `check_settings_schema`): exactly one branch of its `oneOf` fits.
fn settings_validator_accepts(version: VersionMode, doc: &Document) -> bool {
    let no_schema: &[&str] = match version {
        VersionMode::V36 | VersionMode::V50 => return true,
        VersionMode::V70 => &[
            BALANCER,
            AUTOSPLIT,
            AUTOMERGE,
            "ReadWriteConcernDefaults",
            "audit",
        ],
        VersionMode::V80 => &[AUTOMERGE, "ReadWriteConcernDefaults", "audit"],
    };
    let id_in = |ids: &[&str]| matches!(doc.get("_id"), Some(Bson::String(id)) if ids.contains(&id.as_str()));
    let number = |v: &Bson| match v {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(d) => Some(*d),
        Bson::Decimal128(d) => crate::values::decimal::Decimal::from_bson(d)
            .to_string()
            .parse()
            .ok(),
        _ => None,
    };
    let chunksize = id_in(&[CHUNKSIZE])
        && doc.iter().all(|(k, v)| match k.as_str() {
            "_id" => true,
            "value" => number(v).is_some_and(|n| (1.0..=1024.0).contains(&n)),
            _ => false,
        });
    // BalancerSettingsType::kSchema: `mode` one of full and off, booleans, `activeWindow`
    // an object with `start` and `stop`, `_secondaryThrottle` a boolean or an object.
    let balancer = version == VersionMode::V80
        && id_in(&[BALANCER])
        && doc.iter().all(|(k, v)| match k.as_str() {
            "_id" => true,
            "mode" => matches!(v, Bson::String(m) if m == "full" || m == "off"),
            "stopped" | "_waitForDelete" | "attemptToBalanceJumboChunks" => {
                matches!(v, Bson::Boolean(_))
            }
            "activeWindow" => {
                matches!(v, Bson::Document(w) if w.contains_key("start") && w.contains_key("stop"))
            }
            "_secondaryThrottle" => matches!(v, Bson::Boolean(_) | Bson::Document(_)),
            _ => false,
        });
    [chunksize, balancer, id_in(no_schema)]
        .iter()
        .filter(|fits| **fits)
        .count()
        == 1
}

/// The duplicate key error of a second settings document of `key`'s `_id` (E11000 on
/// `config.settings`' `_id_` index), a write error.
fn duplicate_setting(key: Setting) -> StatementError {
    write_error(
        ClusterError::DuplicateKey(format!(
            "E11000 duplicate key error collection: config.settings index: _id_ dup key: {{ _id: \"{}\" }}",
            key.id()
        ))
        .into(),
    )
}

/// The `_id` of `config.settings`' chunk size document.
const CHUNKSIZE: &str = "chunksize";

/// The `_id` of `config.settings`' balancer document.
const BALANCER: &str = "balancer";

/// The `_id` of `config.settings`' auto-split document (3.4 to 6.0).
const AUTOSPLIT: &str = "autosplit";

/// The `_id` of `config.settings`' AutoMerger document (7.0 on).
const AUTOMERGE: &str = "automerge";

/// The settings documents an administrator may write.
#[derive(Debug, Clone, Copy)]
pub(super) enum Setting {
    /// `{_id: "chunksize", value}`.
    ChunkSize,
    /// `{_id: "balancer", mode, stopped, activeWindow, ...}`.
    Balancer,
    /// `{_id: "autosplit", enabled}`.
    AutoSplit,
    /// `{_id: "automerge", enabled}`.
    AutoMerge,
}

impl Setting {
    /// The document's `_id`.
    fn id(self) -> &'static str {
        match self {
            Setting::ChunkSize => CHUNKSIZE,
            Setting::Balancer => BALANCER,
            Setting::AutoSplit => AUTOSPLIT,
            Setting::AutoMerge => AUTOMERGE,
        }
    }

    /// The setting whose document has this `_id`.
    fn from_id(id: &str) -> Option<Self> {
        [
            Setting::ChunkSize,
            Setting::Balancer,
            Setting::AutoSplit,
            Setting::AutoMerge,
        ]
        .into_iter()
        .find(|s| s.id() == id)
    }
}

/// `doc` with `_id` first, as the server stores an inserted document.
fn id_first(mut doc: Document) -> Document {
    match doc.remove("_id") {
        Some(id) => {
            let mut out = bson::doc! { "_id": id };
            out.extend(doc);
            out
        }
        None => doc,
    }
}

/// mongosh's `UpdateResult` (result.ts), which names the upserted `_id` `insertedId`.
fn update_result(inserted: Bson, matched: i32, modified: i32, upserted: i32) -> Output {
    Output::Value(Bson::Document(bson::doc! {
        "acknowledged": true,
        "insertedId": inserted,
        "matchedCount": matched,
        "modifiedCount": modified,
        "upsertedCount": upserted,
    }))
}

/// A single write's server error as mongosh prints it: a write error, with a code but
/// no code name (see [`super::interpreter::ErrorKind::Write`]).
fn write_error(mut e: StatementError) -> StatementError {
    e.kind = super::interpreter::ErrorKind::Write;
    e
}

fn write_error_of(e: ClusterError) -> StatementError {
    write_error(e.into())
}

/// The documents that match `filter`.
fn matching(docs: Vec<Document>, filter: &Document) -> Result<Vec<Document>, ClusterError> {
    let f = crate::query::filter::parse_filter(filter)?;
    crate::query::pipeline::keep_matching(&f, docs)
}

/// `countDocuments`'s count of `n` matching documents under its `{skip, limit}` options:
/// the driver counts with `$skip` and `$limit` stages before `$group` (the Node driver's
/// `CountDocumentsOperation`).
pub(super) fn count_with_options(n: i64, options: &Document) -> i64 {
    let whole = |k: &str| match options.get(k) {
        Some(Bson::Int32(n)) => Some(i64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Double(d)) if d.fract() == 0.0 => Some(*d as i64),
        _ => None,
    };
    let mut n = (n - whole("skip").unwrap_or(0).max(0)).max(0);
    if let Some(l) = whole("limit").filter(|l| *l > 0) {
        n = n.min(l);
    }
    n
}
