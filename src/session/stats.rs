//! Storage statistics as the shell and mongos give them: `db.coll.stats()` (mongosh's
//! sum of `$collStats` per shard), `db.stats()` and the `collStats` and `dbStats`
//! commands mongos answers. The numbers come from the engine's storage model
//! (`engine/storage.rs`); the shapes, field orders and types are MongoDB's and mongosh's,
//! per version mode.

use super::find_and_modify::truthy;
use super::interpreter::{ErrorKind, Output, Session, StatementError};
use crate::engine::cluster::{ClusterError, VersionMode};
use crate::engine::ShardCollectionStorage;
use crate::values::js::{js_number, js_typeof};
use bson::{doc, Bson, Document};

/// A count or size as `BSONObjBuilder::appendNumber` writes a `long long` (4.4 on): an
/// int32 when it fits, else an int64.
fn num(n: u64) -> Bson {
    i32::try_from(n).map_or_else(|_| Bson::Int64(n as i64), Bson::Int32)
}

/// A value as JavaScript's `Number(x)` reads a BSON number (mongosh's
/// `coerceToJSNumber`); anything else is NaN.
fn to_f64(v: &Bson) -> f64 {
    match v {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        _ => f64::NAN,
    }
}

/// One shard's `storageStats`, as `appendCollectionStorageStats`
/// (src/mongo/db/stats/storage_stats.cpp) writes it at scale 1 in each era, for a
/// collection that exists: 8.0 counts orphans after the documents and writes the index
/// sizes before the total; 4.4/5.0 have `freeStorageSize`, `indexBuilds`, `totalSize`
/// and `scaleFactor`, which 3.6 did not. `capped` is the record store's first custom
/// statistic; ShardLab's engine has no `wiredTiger` section and no index details (see
/// `engine/storage.rs`).
fn storage_stats(version: VersionMode, st: &ShardCollectionStorage) -> Document {
    let mut d = doc! { "size": num(st.data_bytes), "count": num(st.docs) };
    if st.docs > 0 {
        d.insert("avgObjSize", num(st.avg_obj_size()));
    }
    if matches!(version, VersionMode::V70 | VersionMode::V80) {
        d.insert("numOrphanDocs", 0);
    }
    d.insert("storageSize", num(st.storage_bytes));
    if version != VersionMode::V36 {
        d.insert("freeStorageSize", 0);
    }
    d.insert("capped", false);
    d.insert("nindexes", st.indexes.len() as i32);
    d.insert("indexDetails", Document::new());
    if version != VersionMode::V36 {
        d.insert("indexBuilds", Bson::Array(Vec::new()));
    }
    d.insert("totalIndexSize", num(st.index_bytes()));
    let sizes: Document = st
        .indexes
        .iter()
        .map(|(name, bytes)| (name.clone(), num(*bytes)))
        .collect();
    let total = num(st.storage_bytes + st.index_bytes());
    match version {
        VersionMode::V36 => {
            d.insert("indexSizes", sizes);
        }
        VersionMode::V50 => {
            d.insert("totalSize", total);
            d.insert("indexSizes", sizes);
            d.insert("scaleFactor", 1);
        }
        VersionMode::V70 | VersionMode::V80 => {
            d.insert("indexSizes", sizes);
            d.insert("totalSize", total);
            d.insert("scaleFactor", 1);
        }
    }
    d
}

/// The answer of a shard's storage engine for a collection it does not have
/// (`appendCollectionStorageStats`' zeros), which `collStats` passes on.
fn missing_storage_stats(version: VersionMode) -> Document {
    let mut d = doc! { "size": 0, "count": 0 };
    if matches!(version, VersionMode::V70 | VersionMode::V80) {
        d.insert("numOrphanDocs", 0);
    }
    d.insert("storageSize", 0);
    if version != VersionMode::V36 {
        d.insert("totalSize", 0);
    }
    d.insert("nindexes", 0);
    d.insert("totalIndexSize", 0);
    d.insert("indexDetails", Document::new());
    d.insert("indexSizes", Document::new());
    if version != VersionMode::V36 {
        d.insert("scaleFactor", 1);
    }
    d
}

/// What mongosh's `stats()` was given: a number is the scale; an object its options.
struct StatsOptions {
    /// `options.scale || 1`, as JavaScript divides by it.
    scale: f64,
    /// `options.indexDetails`.
    index_details: bool,
    /// `options.indexDetailsName`, or the name of the index on `indexDetailsKey`.
    filter_name: Option<String>,
    /// `options.indexDetailsKey`.
    filter_key: Option<Document>,
}

/// JavaScript's `Number(v)` for the scale a division uses.
fn js_to_number(v: &Bson) -> f64 {
    match v {
        Bson::Boolean(b) => f64::from(u8::from(*b)),
        Bson::Null => 0.0,
        Bson::String(s) if s.trim().is_empty() => 0.0,
        Bson::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        other => to_f64(other),
    }
}

/// Reads `stats()`'s argument as collection.ts does: a number is `{scale}`; the index
/// detail filters are checked (`MongoshInvalidInputError`, `CommonErrors.InvalidArgument`)
/// before anything is sent; a value that is neither fails where JavaScript would.
fn stats_options(arg: Option<Bson>) -> Result<StatsOptions, StatementError> {
    let options = match arg {
        None => Document::new(),
        Some(Bson::Int32(_) | Bson::Double(_)) => {
            let scale = arg.as_ref().map_or(f64::NAN, to_f64);
            return Ok(StatsOptions {
                scale: if scale == 0.0 || scale.is_nan() {
                    1.0
                } else {
                    scale
                },
                index_details: false,
                filter_name: None,
                filter_key: None,
            });
        }
        Some(Bson::Document(d)) => d,
        Some(Bson::Null) => {
            return Err(StatementError::type_error(
                "Cannot read properties of null (reading 'indexDetailsKey')",
            ))
        }
        // A primitive's properties read as undefined, and strict mode refuses the
        // assignment of `options.scale`.
        Some(other) => {
            return Err(StatementError::type_error(format!(
                "Cannot create property 'scale' on {} '{}'",
                js_typeof(&other),
                crate::shell::format_value(&other).trim_matches('\'')
            )))
        }
    };
    let key = options.get("indexDetailsKey");
    let name = options.get("indexDetailsName");
    if truthy(key) && truthy(name) {
        return Err(StatementError::invalid_input(
            "Cannot filter indexDetails on both indexDetailsKey and indexDetailsName",
        ));
    }
    if let Some(k) = key.filter(|k| truthy(Some(k))) {
        if js_typeof(k) != "object" {
            return Err(StatementError::invalid_input(format!(
                "Expected options.indexDetailsKey to be a document, got {}",
                js_typeof(k)
            )));
        }
    }
    if let Some(n) = name.filter(|n| truthy(Some(n))) {
        if !matches!(n, Bson::String(_)) {
            return Err(StatementError::invalid_input(format!(
                "Expected options.indexDetailsName to be a string, got {}",
                js_typeof(n)
            )));
        }
    }
    let scale = match options.get("scale") {
        s if truthy(s) => s.map_or(1.0, js_to_number),
        _ => 1.0,
    };
    Ok(StatsOptions {
        scale,
        index_details: truthy(options.get("indexDetails")),
        filter_name: match name {
            Some(Bson::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        },
        filter_key: match key {
            Some(Bson::Document(d)) => Some(d.clone()),
            _ => None,
        },
    })
}

/// mongosh's `scaleIndividualShardStatistics` (packages/shell-api/src/helpers.ts): the
/// sizes divided by the scale as JavaScript numbers, `scaleFactor` the scale.
fn scale_shard_stats(stats: &Document, scale: f64) -> Document {
    stats
        .iter()
        .map(|(k, v)| {
            let scaled = match k.as_str() {
                "size" | "maxSize" | "storageSize" | "totalIndexSize" | "totalSize" => {
                    js_number(to_f64(v) / scale)
                }
                "scaleFactor" => js_number(scale),
                "indexSizes" => match v {
                    Bson::Document(sizes) => Bson::Document(
                        sizes
                            .iter()
                            .map(|(n, s)| (n.clone(), js_number(to_f64(s) / scale)))
                            .collect(),
                    ),
                    other => other.clone(),
                },
                _ => v.clone(),
            };
            (k.clone(), scaled)
        })
        .collect()
}

/// mongosh's `_aggregateAndScaleCollStats` (packages/shell-api/src/collection.ts) over
/// `$collStats`' documents, one per shard (`shard`, `storageStats`): `ok` first; the
/// fields that must match across shards from the first shard that has them; each shard's
/// statistics scaled; `sharded` from `config.collections`; the sums in the order first
/// met, scaled where they are sizes; the index sizes; the average object size from the
/// unscaled sizes; then `ns`, `nindexes` and `scaleFactor`.
fn aggregate_coll_stats(
    per_shard: &[(String, Document)],
    ns: &str,
    sharded: bool,
    scale: f64,
) -> Document {
    let mut result = doc! { "ok": 1 };
    let mut shard_stats = Document::new();
    let mut counts: Vec<(String, f64)> = Vec::new();
    let mut index_sizes: Vec<(String, f64)> = Vec::new();
    let mut unscaled_size = 0.0;
    let mut max_size: f64 = 0.0;
    let mut nindexes = Bson::Int32(0);
    for (shard, stats) in per_shard {
        let shard_count = stats.get("count").map_or(0.0, to_f64);
        for (field, value) in stats {
            match field.as_str() {
                "ns" | "ok" | "lastExtentSize" | "paddingFactor" => {}
                "userFlags" | "capped" | "max" | "paddingFactorNote" | "indexDetails"
                | "wiredTiger"
                    if !result.contains_key(field) =>
                {
                    result.insert(field.clone(), value.clone());
                }
                "count" | "size" | "storageSize" | "totalIndexSize" | "totalSize"
                | "numOrphanDocs" => match counts.iter_mut().find(|(f, _)| f == field) {
                    Some((_, sum)) => *sum += to_f64(value),
                    None => counts.push((field.clone(), to_f64(value))),
                },
                "avgObjSize" => unscaled_size += to_f64(value) * shard_count,
                "maxSize" => max_size = max_size.max(to_f64(value)),
                "indexSizes" => {
                    if let Bson::Document(sizes) = value {
                        for (name, size) in sizes {
                            match index_sizes.iter_mut().find(|(n, _)| n == name) {
                                Some((_, sum)) => *sum += to_f64(size),
                                None => index_sizes.push((name.clone(), to_f64(size))),
                            }
                        }
                    }
                }
                "nindexes" if to_f64(&nindexes) == 0.0 || to_f64(value) > to_f64(&nindexes) => {
                    nindexes = value.clone();
                }
                _ => {}
            }
        }
        shard_stats.insert(shard.clone(), scale_shard_stats(stats, scale));
    }
    result.insert("shards", shard_stats);
    result.insert("sharded", sharded);
    let mut total_count = 0.0;
    for (field, sum) in &counts {
        let value = match field.as_str() {
            "size" | "storageSize" | "totalIndexSize" | "totalSize" => sum / scale,
            _ => *sum,
        };
        if field == "count" {
            total_count = *sum;
        }
        result.insert(field.clone(), js_number(value));
    }
    result.insert(
        "indexSizes",
        index_sizes
            .into_iter()
            .map(|(name, size)| (name, js_number(size / scale)))
            .collect::<Document>(),
    );
    let avg = if total_count > 0.0 {
        unscaled_size / total_count
    } else {
        0.0
    };
    result.insert("avgObjSize", js_number(avg));
    if matches!(result.get("capped"), Some(Bson::Boolean(true))) {
        result.insert("maxSize", js_number(max_size / scale));
    }
    result.insert("ns", ns);
    result.insert("nindexes", nindexes);
    if per_shard
        .first()
        .is_some_and(|(_, s)| s.contains_key("scaleFactor"))
    {
        result.insert("scaleFactor", js_number(scale));
    }
    result
}

/// collection.ts `stats()`'s `updateStats`: the index details go unless asked for, and
/// with a filter only the named index's stay.
fn trim_index_details(stats: &mut Document, options: &StatsOptions) {
    if !stats.contains_key("indexDetails") {
        return;
    }
    if !options.index_details {
        stats.remove("indexDetails");
        return;
    }
    let Some(keep) = &options.filter_name else {
        return;
    };
    if let Ok(details) = stats.get_document_mut("indexDetails") {
        let names: Vec<String> = details.keys().filter(|k| *k != keep).cloned().collect();
        for name in names {
            details.remove(&name);
        }
    }
}

impl Session {
    /// `db.<coll>.stats(options)` as mongosh builds it from `$collStats` (see
    /// [`aggregate_coll_stats`]). A database mongos does not know answers the aggregation
    /// with no documents, which mongosh reports itself; a collection the primary shard
    /// does not have fails the stage (`NamespaceNotFound`).
    pub(super) fn collection_stats(
        &mut self,
        ns: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        let mut options = stats_options(self.opt_arg(args, 0)?)?;
        let version = self.cluster.version();
        let db = ns.split_once('.').map_or(ns, |(db, _)| db);
        if !self.cluster.databases().contains_key(db) {
            return Err(runtime_error(format!(
                "Error running $collStats aggregation stage on {ns}"
            )));
        }
        if self.cluster.collection(ns).is_none() {
            let missing = if !matches!(version, VersionMode::V70 | VersionMode::V80)
                && self.cluster.collections_in(db).next().is_none()
            {
                format!("Database [{db}] not found.")
            } else {
                format!("Collection [{ns}] not found.")
            };
            return Err(ClusterError::NamespaceNotFound(format!(
                "Unable to retrieve storageStats in $collStats stage :: caused by :: {missing}"
            ))
            .into());
        }
        let shards = self.cluster.shards_owning(ns);
        let per_shard: Vec<(String, Document)> = self
            .cluster
            .collection_storage(ns, &shards)?
            .iter()
            .map(|st| {
                (
                    self.cluster.shard_name(st.shard).to_string(),
                    storage_stats(version, st),
                )
            })
            .collect();
        // mongosh asks `config.collections` for the namespace (`dropped` and
        // `unsplittable` not true): a sharded collection's entry.
        let sharded = self.cluster.sharding(ns).is_ok();
        if options.filter_name.is_none() {
            if let Some(key) = &options.filter_key {
                // `getIndexes()` compared by `JSON.stringify` of the key: field order
                // counts.
                let coll = self.cluster.collection(ns);
                let id = doc! { "_id": 1 };
                options.filter_name = if crate::engine::cluster::same_pattern(key, &id) {
                    Some("_id_".to_string())
                } else {
                    coll.and_then(|c| {
                        c.indexes
                            .iter()
                            .find(|k| crate::engine::cluster::same_pattern(k, key))
                            .map(|k| c.index_name_of(k))
                    })
                };
            }
        }
        let mut result = aggregate_coll_stats(&per_shard, ns, sharded, options.scale);
        trim_index_details(&mut result, &options);
        if let Ok(shards) = result.get_document_mut("shards") {
            for (_, s) in shards.iter_mut() {
                if let Bson::Document(s) = s {
                    trim_index_details(s, &options);
                }
            }
        }
        Ok(Output::Value(Bson::Document(result)))
    }

    /// `db.stats(scaleOrOptions)`: database.ts checks the argument
    /// (`assertArgsDefinedType([...], [['number', 'object']], 'Database.stats')`) and sends
    /// `{dbStats: 1, scale: 1, ...options}` (a number is `{scale}`).
    pub(super) fn database_stats(
        &mut self,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        let mut cmd = doc! { "dbStats": 1, "scale": 1 };
        match self.opt_arg(args, 0)? {
            None | Some(Bson::Null) => {}
            Some(n @ (Bson::Int32(_) | Bson::Double(_))) => {
                cmd.insert("scale", n);
            }
            Some(Bson::Document(options)) => {
                for (k, v) in options {
                    cmd.insert(k, v);
                }
            }
            Some(other) if js_typeof(&other) == "object" => {}
            Some(other) => {
                return Err(StatementError::invalid_input(format!(
                    "Argument at position 0 must be of type number or object, got {} instead (Database.stats)",
                    js_typeof(&other)
                )))
            }
        }
        let db = self.db.clone();
        Ok(Output::Value(Bson::Document(db_stats(self, &db, &cmd)?)))
    }
}

/// A `MongoshRuntimeError` with mongosh's `CommonErrors.CommandFailed` (`COMMON-10004`).
fn runtime_error(message: String) -> StatementError {
    StatementError {
        kind: ErrorKind::Runtime,
        code: 0,
        code_name: String::new(),
        message: format!("[COMMON-10004] {message}"),
        span: None,
        detail: String::new(),
    }
}

/// The `scale` of `dbStats`, read as the IDL reads a `safeInt64` (any number, cut to a
/// whole one), and then refused unless positive: "Scale must be greater than zero"
/// (cluster_db_stats_cmd.cpp).
fn db_stats_scale(cmd: &Document) -> Result<i64, StatementError> {
    let scale = match cmd.get("scale") {
        None => 1,
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(d)) if d.is_finite() => *d as i64,
        Some(Bson::Double(_)) => 0,
        Some(Bson::Decimal128(d)) => {
            crate::values::decimal::Decimal::from_bson(d).to_i64_saturating()
        }
        Some(other) => {
            return Err(super::idl_commands::wrong_number_type(
                "dbStats", "scale", other,
            ))
        }
    };
    if scale <= 0 {
        return Err(ClusterError::BadValue("Scale must be greater than zero".into()).into());
    }
    Ok(scale)
}

/// What one shard holds of a database: its collections, documents, data bytes, storage
/// bytes, indexes and index bytes.
#[derive(Debug, Clone, Copy, Default)]
struct ShardDatabase {
    collections: u64,
    objects: u64,
    data: u64,
    storage: u64,
    indexes: u64,
    index_bytes: u64,
}

/// Database `db` on every shard, by shard index: each collection measured once on the
/// shards that hold it (see `engine/storage.rs`).
fn database_on_shards(s: &Session, db: &str) -> Result<Vec<ShardDatabase>, StatementError> {
    let mut out = vec![ShardDatabase::default(); s.cluster.all_shards().len()];
    let namespaces: Vec<String> = s
        .cluster
        .collections_in(db)
        .map(|(ns, _)| ns.clone())
        .collect();
    for ns in namespaces {
        let shards = s.cluster.shards_holding(&ns);
        for st in s.cluster.collection_storage(&ns, &shards)? {
            let Some(t) = out.get_mut(st.shard as usize) else {
                continue;
            };
            t.collections += 1;
            t.objects += st.docs;
            t.data += st.data_bytes;
            t.storage += st.storage_bytes;
            t.indexes += st.indexes.len() as u64;
            t.index_bytes += st.index_bytes();
        }
    }
    Ok(out)
}

/// One shard's `dbStats` for database `db` (`DatabaseImpl::getStats`, the same fields
/// from 5.0 to 8.0; 3.6 has `numExtents` in place of `totalSize` and `scaleFactor`).
/// Sizes are divided by the scale as doubles; no filesystem figures (see
/// `engine/storage.rs`).
fn shard_db_stats(
    version: VersionMode,
    db: &str,
    held: ShardDatabase,
    scale: i64,
    free_storage: bool,
) -> Document {
    let ShardDatabase {
        collections,
        objects,
        data,
        storage,
        indexes,
        index_bytes,
    } = held;
    let scale_f = scale as f64;
    let mut d =
        doc! { "db": db, "collections": num(collections), "views": 0, "objects": num(objects) };
    d.insert(
        "avgObjSize",
        if objects == 0 {
            0.0
        } else {
            data as f64 / objects as f64
        },
    );
    d.insert("dataSize", data as f64 / scale_f);
    d.insert("storageSize", storage as f64 / scale_f);
    if version == VersionMode::V36 {
        d.insert("numExtents", 0);
        d.insert("indexes", num(indexes));
        d.insert("indexSize", index_bytes as f64 / scale_f);
        d.insert("ok", 1);
        return d;
    }
    if free_storage {
        d.insert("freeStorageSize", 0.0);
    }
    d.insert("indexes", num(indexes));
    d.insert("indexSize", index_bytes as f64 / scale_f);
    if free_storage {
        d.insert("indexFreeStorageSize", 0.0);
    }
    d.insert("totalSize", (storage + index_bytes) as f64 / scale_f);
    if free_storage {
        d.insert("totalFreeStorageSize", 0.0);
    }
    d.insert("scaleFactor", num(scale as u64));
    d.insert("ok", 1);
    d
}

/// `{dbStats: 1, scale, freeStorage}` on database `db` through mongos
/// (cluster_db_stats_cmd.cpp): every shard's answer under `raw` by its connection
/// string, then `db` and the sums. 8.0 writes them in mongod's order (the index figures
/// before `totalSize`, the free-storage ones when asked); 4.4 to 7.0 wrote `totalSize`
/// after `storageSize`; 3.6's mongos summed extents and file sizes instead.
pub(super) fn db_stats(s: &Session, db: &str, cmd: &Document) -> Result<Document, StatementError> {
    let scale = db_stats_scale(cmd)?;
    let free_storage = truthy(cmd.get("freeStorage"));
    let version = s.cluster.version();
    let mut raw = Document::new();
    let mut sums = [0.0f64; 7];
    let held = database_on_shards(s, db)?;
    for (idx, shard) in s.cluster.shards() {
        let on_shard = held.get(idx as usize).copied().unwrap_or_default();
        let d = shard_db_stats(version, db, on_shard, scale, free_storage);
        let get = |k: &str| d.get(k).map_or(0.0, to_f64);
        let objects = get("objects");
        sums[0] += get("collections");
        sums[1] += objects;
        sums[2] += get("avgObjSize") * objects;
        sums[3] += get("dataSize");
        sums[4] += get("storageSize");
        sums[5] += get("indexes");
        sums[6] += get("indexSize");
        raw.insert(shard.host.clone(), d);
    }
    let [collections, objects, unscaled, data, storage, indexes, index_size] = sums;
    let avg = if objects == 0.0 {
        0.0
    } else {
        unscaled / objects
    };
    let mut out = doc! { "raw": raw };
    if version == VersionMode::V36 {
        out.insert("objects", js_number(objects));
        out.insert("avgObjSize", avg);
        out.insert("dataSize", js_number(data));
        out.insert("storageSize", js_number(storage));
        out.insert("numExtents", 0);
        out.insert("indexes", js_number(indexes));
        out.insert("indexSize", js_number(index_size));
        out.insert("fileSize", 0);
        out.insert("extentFreeList", doc! { "num": 0, "totalSize": 0 });
        out.insert("ok", 1);
        return Ok(out);
    }
    out.insert("db", db);
    out.insert("collections", js_number(collections));
    out.insert("views", 0);
    out.insert("objects", js_number(objects));
    out.insert("avgObjSize", js_number(avg));
    out.insert("dataSize", js_number(data));
    out.insert("storageSize", js_number(storage));
    let total = js_number(storage + index_size);
    if version == VersionMode::V50 {
        out.insert("totalSize", total);
        out.insert("indexes", js_number(indexes));
        out.insert("indexSize", js_number(index_size));
    } else {
        if free_storage {
            out.insert("freeStorageSize", 0);
        }
        out.insert("indexes", js_number(indexes));
        out.insert("indexSize", js_number(index_size));
        if free_storage {
            out.insert("indexFreeStorageSize", 0);
        }
        out.insert("totalSize", total);
        if free_storage {
            out.insert("totalFreeStorageSize", 0);
        }
    }
    out.insert("scaleFactor", num(scale as u64));
    out.insert("fsUsedSize", 0);
    out.insert("fsTotalSize", 0);
    out.insert("ok", 1);
    Ok(out)
}

/// `{collStats: <coll>, scale}` on database `db` through mongos
/// (cluster_coll_stats_cmd.cpp, deprecated from 6.2 and still answered): `sharded` (and
/// the primary shard of an unsharded collection), the fields that must match across
/// shards from the first, `ns`, the sums by name, the index sizes by name, the average
/// object size, `maxSize`, `nindexes`, `scaleFactor`, `nchunks` and every shard's own
/// answer scaled. Each shard answers with the namespace and its storage statistics (the
/// zeros of a collection it does not have).
pub(super) fn coll_stats(
    s: &Session,
    db: &str,
    cmd: &Document,
) -> Result<Document, StatementError> {
    let name = match cmd.iter().next() {
        Some((_, Bson::String(c))) => c.clone(),
        Some((_, other)) => {
            return Err(ClusterError::InvalidNamespace(format!(
                "collection name has invalid type {}",
                crate::query::update::type_name(other)
            ))
            .into())
        }
        None => String::new(),
    };
    let ns = format!("{db}.{name}");
    if name.is_empty() {
        return Err(
            ClusterError::InvalidNamespace(format!("Invalid namespace specified '{ns}'")).into(),
        );
    }
    let scale = match cmd.get("scale") {
        Some(v @ (Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_))) => {
            let n = match v {
                Bson::Decimal128(d) => {
                    crate::values::decimal::Decimal::from_bson(d).to_i64_saturating() as f64
                }
                other => to_f64(other),
            };
            let n = n.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i64;
            if n < 1 {
                return Err(StatementError::server_coded(
                    4_390_200,
                    "Location4390200",
                    "scale has to be >= 1",
                ));
            }
            n
        }
        v if truthy(v) => {
            return Err(StatementError::server_coded(
                4_390_201,
                "Location4390201",
                "scale has to be a number >= 1",
            ))
        }
        _ => 1,
    };
    s.cluster.check_database_exists(&ns)?;
    let version = s.cluster.version();
    let sharding = s.cluster.sharding(&ns).ok();
    let mut result = Document::new();
    result.insert("sharded", sharding.is_some());
    if sharding.is_none() {
        result.insert("primary", s.cluster.shard_name(s.cluster.primary_of(&ns)));
    }
    let replies: Vec<(String, Document)> = if s.cluster.collection(&ns).is_some() {
        let shards = s.cluster.shards_owning(&ns);
        s.cluster
            .collection_storage(&ns, &shards)?
            .iter()
            .map(|st| {
                let mut d = doc! { "ns": ns.clone() };
                d.extend(storage_stats(version, st));
                d.insert("ok", 1);
                (s.cluster.shard_name(st.shard).to_string(), d)
            })
            .collect()
    } else {
        let mut d = doc! { "ns": ns.clone() };
        d.extend(missing_storage_stats(version));
        d.insert("ok", 1);
        vec![(
            s.cluster.shard_name(s.cluster.primary_of(&ns)).to_string(),
            d,
        )]
    };
    let mut counts: std::collections::BTreeMap<&str, i64> = std::collections::BTreeMap::new();
    let mut index_sizes: std::collections::BTreeMap<String, i64> =
        std::collections::BTreeMap::new();
    let (mut unscaled, mut max_size, mut nindexes) = (0i64, 0i64, 0i32);
    let mut shard_stats = Document::new();
    let long = |v: &Bson| to_f64(v) as i64;
    for (shard, reply) in &replies {
        let count = reply.get("count").map_or(0, long);
        for (field, value) in reply {
            match field.as_str() {
                "userFlags" | "capped" | "max" | "paddingFactorNote" | "indexDetails"
                | "wiredTiger"
                    if !result.contains_key(field) =>
                {
                    result.insert(field.clone(), value.clone());
                }
                "count" | "size" | "storageSize" | "totalIndexSize" | "totalSize" => {
                    *counts.entry(field.as_str()).or_default() += long(value);
                }
                "avgObjSize" => unscaled += long(value) * count,
                "maxSize" => max_size = max_size.max(long(value)),
                "indexSizes" => {
                    if let Bson::Document(sizes) = value {
                        for (n, size) in sizes {
                            *index_sizes.entry(n.clone()).or_default() += long(size);
                        }
                    }
                }
                "nindexes" => nindexes = nindexes.max(long(value) as i32),
                _ => {}
            }
        }
        // cluster_coll_stats_cmd.cpp's `scaleIndividualShardStatistics`: whole numbers.
        let scaled: Document = reply
            .iter()
            .map(|(k, v)| {
                let v = match k.as_str() {
                    "size" | "maxSize" | "storageSize" | "totalIndexSize" | "totalSize" => {
                        num((long(v) / scale).max(0) as u64)
                    }
                    "scaleFactor" => num(scale as u64),
                    "indexSizes" => match v {
                        Bson::Document(sizes) => Bson::Document(
                            sizes
                                .iter()
                                .map(|(n, b)| (n.clone(), num((long(b) / scale).max(0) as u64)))
                                .collect(),
                        ),
                        other => other.clone(),
                    },
                    _ => v.clone(),
                };
                (k.clone(), v)
            })
            .collect();
        shard_stats.insert(shard.clone(), scaled);
    }
    result.insert("ns", ns.clone());
    for (field, sum) in &counts {
        let v = if *field == "count" { *sum } else { sum / scale };
        result.insert(*field, num(v.max(0) as u64));
    }
    result.insert(
        "indexSizes",
        index_sizes
            .into_iter()
            .map(|(n, b)| (n, num((b / scale).max(0) as u64)))
            .collect::<Document>(),
    );
    let total_count = counts.get("count").copied().unwrap_or(0);
    result.insert(
        "avgObjSize",
        if total_count > 0 {
            unscaled as f64 / total_count as f64
        } else {
            0.0
        },
    );
    result.insert("maxSize", Bson::Int64(max_size / scale));
    result.insert("nindexes", nindexes);
    result.insert("scaleFactor", scale as i32);
    result.insert("nchunks", sharding.map_or(1, |sh| sh.table.len() as i32));
    result.insert("shards", shard_stats);
    result.insert("ok", 1);
    Ok(result)
}
