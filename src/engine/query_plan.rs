//! How a shard reads a query's documents: through the shard key index, the `_id` index
//! or a collection scan, as a shard's query planner chooses, and that plan as `explain()`
//! shows it.
//!
//! Every shard has an index on the shard key (`shardCollection` makes it) and on `_id`.
//! The store keeps a collection's documents ordered by shard key ([`DocStore`]), so an
//! equality or a range on the shard key reads only the documents in the key ranges the
//! filter allows ([`targeting::key_ranges`], the bounds mongos targets with). The `_id`
//! index ([`IdIndex`]) knows which shards hold an `_id`, so a query on `_id` reads only
//! the shards that hold a matching one. Anything else scans the targeted shards. The
//! filter is still applied to every document read, so the index only decides which
//! documents are looked at, never which match.

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{index_name, Cluster, ClusterError, Collection, VersionMode};
use crate::engine::store::{DocKey, IdKey, IdSlot, Stored};
use crate::engine::targeting;
use crate::keys::shard_key::{FieldKind, KeyPattern, KeyValue};
use crate::query;
use bson::{doc, Bson, Document};

/// Which documents a shard reads for a filter.
#[derive(Debug, Clone, PartialEq)]
enum Access {
    /// Every document (`COLLSCAN`).
    Scan,
    /// The shard key index over these ranges, inclusive at both ends.
    ShardKey(Vec<(KeyValue, KeyValue)>),
    /// The `_id` index over these ranges of `_id` values, inclusive at both ends.
    Id(Vec<(KeyValue, KeyValue)>),
}

/// The pattern of the `_id` index.
fn id_pattern() -> Option<KeyPattern> {
    KeyPattern::parse(&doc! { "_id": 1 }).ok()
}

/// The `_id` index entry bound for the first value of a one-field key.
fn id_slot(key: &KeyValue, shard: ShardIdx) -> IdSlot {
    let value = key.0.first().cloned().unwrap_or(Bson::Null);
    IdSlot::new(IdKey::of(&doc! { "_id": value }), shard)
}

impl Cluster {
    /// How the documents of `coll` matching `filter` are read: the shard key index when
    /// the filter bounds the key's first field, else the `_id` index when it bounds
    /// `_id`, else a scan.
    fn access(coll: &Collection, filter: &Document) -> Access {
        if let Some(s) = &coll.sharding {
            if let Some(ranges) = targeting::key_ranges(&s.pattern, filter) {
                return Access::ShardKey(ranges);
            }
        }
        if filter.contains_key("_id") {
            if let Some(ranges) = id_pattern().and_then(|p| targeting::key_ranges(&p, filter)) {
                return Access::Id(ranges);
            }
        }
        Access::Scan
    }

    /// Calls `f` with every document of `coll` on one of `shards` that `filter` may match,
    /// read as [`Cluster::access`] decides, with the shard holding it. A document may be
    /// visited more than once (overlapping ranges, or an `_id` both found by its place and
    /// on a shard read whole); the caller applies the filter, puts the documents in its
    /// order and drops repeats.
    pub(crate) fn for_each_candidate<'a>(
        &self,
        ns: &str,
        coll: &'a Collection,
        filter: &Document,
        shards: &[ShardIdx],
        mut f: impl FnMut(ShardIdx, &'a DocKey, u64, &'a Stored) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        match Cluster::access(coll, filter) {
            Access::Scan => self.scan_shards(ns, coll, shards, &mut f),
            Access::ShardKey(ranges) => {
                let Some(s) = &coll.sharding else {
                    return self.scan_shards(ns, coll, shards, &mut f);
                };
                for (lo, hi) in &ranges {
                    for c in s.table.overlapping(lo, hi) {
                        if !shards.contains(&c.shard) {
                            continue;
                        }
                        // The part of [lo, hi] in the chunk's [min, max).
                        let start = (DocKey::of(if c.min > *lo { &c.min } else { lo }), 0);
                        let entries = if *hi < c.max {
                            coll.docs.range(start..=(DocKey::of(hi), u64::MAX))
                        } else {
                            coll.docs.range(start..(DocKey::of(&c.max), 0))
                        };
                        for ((key, seq), stored) in entries {
                            f(c.shard, key, *seq, stored)?;
                        }
                    }
                }
                Ok(())
            }
            Access::Id(ranges) => self.id_lookup(ns, coll, &ranges, shards, &mut f),
        }
    }

    /// The documents whose `_id` is in one of `ranges`, found through the `_id` index:
    /// each lone `_id` on a shard at its place in the store, checked there (the document
    /// must have the `_id` and sit on that shard); a shard where that fails, or which
    /// holds the `_id` several times, is read whole.
    fn id_lookup<'a>(
        &self,
        ns: &str,
        coll: &'a Collection,
        ranges: &[(KeyValue, KeyValue)],
        shards: &[ShardIdx],
        f: &mut impl FnMut(ShardIdx, &'a DocKey, u64, &'a Stored) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let primary = self.primary_of(ns);
        // An unsharded collection's documents are all on its primary, whichever shard
        // its `_id` entries name (they keep the shard of their insert).
        let owner = |key: &DocKey| match &coll.sharding {
            Some(s) => s.table.chunk_for(&key.to_key()).map(|c| c.shard),
            None => Some(primary),
        };
        let mut whole: Vec<ShardIdx> = Vec::new();
        for (lo, hi) in ranges {
            let entries = coll.ids.range(id_slot(lo, 0)..=id_slot(hi, ShardIdx::MAX));
            for (slot, at) in entries {
                let shard = if coll.sharding.is_some() {
                    slot.shard
                } else {
                    primary
                };
                if !shards.contains(&shard) || whole.contains(&shard) {
                    continue;
                }
                let found = coll.docs.get_key_value(&(at.key.clone(), at.seq));
                let placed = found.filter(|(_, stored)| {
                    slot.count() == 1 && stored.id() == slot.id && owner(&at.key) == Some(shard)
                });
                match placed {
                    Some(((key, seq), stored)) => f(shard, key, *seq, stored)?,
                    None => whole.push(shard),
                }
            }
        }
        self.scan_shards(ns, coll, &whole, f)
    }

    /// Every document of `coll` on one of `shards`, chunk by chunk in key order.
    fn scan_shards<'a>(
        &self,
        ns: &str,
        coll: &'a Collection,
        shards: &[ShardIdx],
        f: &mut impl FnMut(ShardIdx, &'a DocKey, u64, &'a Stored) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        let Some(s) = &coll.sharding else {
            let primary = self.primary_of(ns);
            if shards.contains(&primary) {
                for ((key, seq), stored) in &coll.docs {
                    f(primary, key, *seq, stored)?;
                }
            }
            return Ok(());
        };
        for c in s.table.iter().filter(|c| shards.contains(&c.shard)) {
            for ((key, seq), stored) in crate::engine::store::range(&coll.docs, &c.min, &c.max) {
                f(c.shard, key, *seq, stored)?;
            }
        }
        Ok(())
    }

    /// The plan each targeted shard reports in `explain()` for `filter` on `ns`: `FETCH`
    /// over an `IXSCAN` of the shard key index or the `_id` index, `IDHACK` (8.0:
    /// `EXPRESS_IXSCAN`) for a query on `_id` alone, or `COLLSCAN`, with the
    /// `SHARDING_FILTER` a sharded collection's reads need where `ShardFilter` puts it.
    pub fn shard_winning_plan(&self, ns: &str, filter: &Document) -> Document {
        let Some(coll) = self.collection(ns) else {
            return collscan(filter);
        };
        let sharding = coll.sharding.as_ref();
        let filtered = sharding.is_some_and(|s| {
            self.version() == VersionMode::V36
                || targeting::is_full_key_equality(&s.pattern, filter).is_none()
        });
        if is_simple_id_query(filter) {
            let plan = self.id_hack();
            // The express path (8.0) filters orphans itself and shows no stage for it.
            return if filtered && self.version() < VersionMode::V70 {
                sharding_filter(plan)
            } else {
                plan
            };
        }
        let shard_key = sharding.and_then(|s| {
            let bounds = targeting::index_bounds(&s.pattern, filter)?;
            Some((s.pattern.clone(), s.unique, bounds, true))
        });
        let id = || {
            let p = id_pattern()?;
            let bounds = targeting::index_bounds(&p, filter)?;
            // The `_id` index holds the shard key only when the key is `_id`.
            let covers = sharding.is_some_and(|s| s.pattern == p);
            Some((p, true, bounds, covers))
        };
        match shard_key.or_else(id) {
            Some((pattern, unique, bounds, covers)) => {
                let shard_filter = match (filtered, covers) {
                    (false, _) => ShardFilter::None,
                    (true, true) => ShardFilter::OverScan,
                    (true, false) => ShardFilter::OverFetch,
                };
                fetch_ixscan(&pattern, unique, &bounds, filter, shard_filter)
            }
            None if filtered => sharding_filter(collscan(filter)),
            None => collscan(filter),
        }
    }

    /// The plan of a query on `_id` alone: `IDHACK` (3.6 to 7.x, `IDHackStage` in
    /// src/mongo/db/query/get_executor.cpp, whose explain has no fields of its own at the
    /// `queryPlanner` level); 8.0's express path instead reports `isCached`, the stage,
    /// the index's key pattern (as text) and name
    /// (src/mongo/db/query/plan_explainer_express.cpp, `getWinningPlanStats`).
    fn id_hack(&self) -> Document {
        if self.version() >= VersionMode::V70 {
            return doc! {
                "isCached": false,
                "stage": "EXPRESS_IXSCAN",
                "keyPattern": "{ _id: 1 }",
                "indexName": "_id_",
            };
        }
        doc! { "stage": "IDHACK" }
    }
}

/// Where a shard's plan filters out documents of chunks it does not own (orphans), as
/// `QueryPlannerAnalysis::analyzeDataAccess` (src/mongo/db/query/planner_analysis.cpp)
/// places the `SHARDING_FILTER`: over the index scan when the index holds every shard key
/// field and nothing has fetched the documents yet, so only owned entries are fetched
/// (`FETCH` over `SHARDING_FILTER` over `IXSCAN`); over what fetched them otherwise, a
/// `FETCH` that applies part of the filter, one over an index without the key, or a
/// `COLLSCAN` (query_planner_hashed_index_test.cpp, the `CompoundHashedShardKey*`
/// cases). Every read of a sharded collection has one in 3.6; from 4.8 a filter with an
/// equality on the whole shard key has none, since only the shard owning that key is
/// asked (`fillOutPlannerParams` in get_executor.cpp; jstests/sharding/query/
/// shard_filtering_optimizations, "requires_fcv_48").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShardFilter {
    /// An unsharded collection, or the whole key given.
    None,
    /// Between `FETCH` and an `IXSCAN` of an index holding the shard key.
    OverScan,
    /// Over the stage that fetched the documents.
    OverFetch,
}

/// A collection scan applying the whole filter, which an empty filter leaves out
/// (`statsToBSON` writes a stage's `filter` only when it has one).
fn collscan(filter: &Document) -> Document {
    let filter = query::explain_form(filter);
    if filter.is_empty() {
        return doc! { "stage": "COLLSCAN", "direction": "forward" };
    }
    doc! { "stage": "COLLSCAN", "filter": filter, "direction": "forward" }
}

/// `SHARDING_FILTER` over `stage`.
fn sharding_filter(stage: Document) -> Document {
    doc! { "stage": "SHARDING_FILTER", "inputStage": stage }
}

/// `isSimpleIdQuery` (src/mongo/db/query/canonical_query.cpp / query_planner_common):
/// the filter is `{_id: v}` alone, with `v` a value that is not a document with an
/// operator, an array or a regular expression, so that the `_id` index finds it directly.
fn is_simple_id_query(filter: &Document) -> bool {
    if filter.len() != 1 {
        return false;
    }
    match filter.get("_id") {
        Some(Bson::Document(d)) => !d.keys().any(|k| k.starts_with('$')),
        Some(Bson::Array(_) | Bson::RegularExpression(_)) | None => false,
        Some(_) => true,
    }
}

/// An index's name: `_id_` for the `_id` index (MongoDB names it so rather than by its
/// pattern), else the fields and kinds joined by `_`.
fn index_name_of(key_pattern: &Document) -> String {
    if *key_pattern == doc! { "_id": 1 } {
        return "_id_".to_string();
    }
    index_name(key_pattern)
}

/// `FETCH` over `IXSCAN` (with the `SHARDING_FILTER` where `shard_filter` says), as `statsToBSON` (src/mongo/db/query/plan_explainer_impl.cpp)
/// writes them: the fetch's `filter` (what the index bounds do not answer exactly) before
/// its `inputStage`; the scan's `keyPattern`, `indexName`, `isMultiKey`,
/// `multiKeyPaths` (tracked for ascending indexes only), `isUnique`, `isSparse`,
/// `isPartial`, `indexVersion`, `direction` and `indexBounds`, in that order.
fn fetch_ixscan(
    pattern: &KeyPattern,
    unique: bool,
    bounds: &[Vec<String>],
    filter: &Document,
    shard_filter: ShardFilter,
) -> Document {
    let key_pattern = pattern.to_pattern_document();
    let mut scan = doc! { "stage": "IXSCAN" };
    let covered = covered_filter(pattern, filter);
    if !covered.is_empty() {
        scan.insert("filter", query::explain_form(&covered));
    }
    scan.extend(doc! {
        "keyPattern": key_pattern.clone(),
        "indexName": index_name_of(&key_pattern),
        "isMultiKey": false,
    });
    if !pattern.is_hashed() {
        let paths: Document = pattern
            .fields()
            .iter()
            .map(|(f, _)| (f.clone(), Bson::Array(Vec::new())))
            .collect();
        scan.insert("multiKeyPaths", paths);
    }
    scan.insert("isUnique", unique);
    scan.insert("isSparse", false);
    scan.insert("isPartial", false);
    scan.insert("indexVersion", 2);
    scan.insert("direction", "forward");
    let index_bounds: Document = pattern
        .fields()
        .iter()
        .zip(bounds)
        .map(|((f, _), b)| {
            let list = b.iter().map(|s| Bson::String(s.clone())).collect();
            (f.clone(), Bson::Array(list))
        })
        .collect();
    scan.insert("indexBounds", index_bounds);
    let mut fetch = doc! { "stage": "FETCH" };
    let residual = residual_filter(pattern, filter);
    // A `FETCH` that applies part of the filter is planned with the scan, before the
    // shard filter is placed, so the filter goes over it.
    let over_scan = shard_filter == ShardFilter::OverScan && residual.is_empty();
    if !residual.is_empty() {
        fetch.insert("filter", query::explain_form(&residual));
    }
    fetch.insert(
        "inputStage",
        if over_scan {
            sharding_filter(scan)
        } else {
            scan
        },
    );
    if shard_filter != ShardFilter::None && !over_scan {
        return sharding_filter(fetch);
    }
    fetch
}

/// The part of `filter` the index bounds do not answer exactly, which the `FETCH` stage
/// applies: every top-level condition (those of a top-level `$and` included) except
/// those on an ascending key field whose bounds are exact (an equality, a range or a
/// `$in` of plain values; `null`, arrays, documents and regular expressions need the
/// documents themselves, and a hashed field always does, since its bounds hold hashes)
/// and the regular expressions on such a field, which the scan applies
/// ([`covered_filter`]).
fn residual_filter(pattern: &KeyPattern, filter: &Document) -> Document {
    let conditions = flat_conditions(filter);
    let kept: Vec<(String, Bson)> = conditions
        .into_iter()
        .filter(|(name, value)| {
            let key = ascending_key_field(pattern, name);
            !(key && (exact_condition(value) || regex_condition(value) || prefix_regex(value)))
        })
        .collect();
    rebuild(kept)
}

/// The conditions the `IXSCAN` applies to the index keys themselves: regular expressions
/// on an ascending key field, whose bounds are `INEXACT_COVERED`
/// (`IndexBoundsBuilder::translateRegex`), so the planner filters the keys before
/// fetching (`QueryPlannerAccess::finishLeafNode` puts the filter on the index scan).
fn covered_filter(pattern: &KeyPattern, filter: &Document) -> Document {
    let kept: Vec<(String, Bson)> = flat_conditions(filter)
        .into_iter()
        .filter(|(name, value)| ascending_key_field(pattern, name) && regex_condition(value))
        .collect();
    rebuild(kept)
}

/// A regular expression the index bounds answer exactly (see [`regex_condition`]).
fn prefix_regex(value: &Bson) -> bool {
    let regex = match value {
        Bson::RegularExpression(_) => true,
        Bson::Document(ops) => {
            ops.contains_key("$regex") && ops.keys().all(|k| k == "$regex" || k == "$options")
        }
        _ => false,
    };
    regex && !regex_condition(value)
}

/// Whether `name` is an ascending field of the shard key index.
fn ascending_key_field(pattern: &KeyPattern, name: &str) -> bool {
    pattern
        .fields()
        .iter()
        .any(|(f, kind)| f == name && *kind == FieldKind::Ascending)
}

/// A condition that is only a regular expression (`/re/` or `{$regex, $options}`) the
/// index bounds do not answer exactly. A simple prefix (`/^abc/`, no flags, nothing but
/// plain characters after the `^`) is exact (`IndexBoundsBuilder::simpleRegex`: the
/// whole regex is the prefix), so neither stage filters it.
fn regex_condition(value: &Bson) -> bool {
    let (pattern, options) = match value {
        Bson::RegularExpression(r) => (r.pattern.to_string(), r.options.to_string()),
        Bson::Document(ops)
            if ops.contains_key("$regex")
                && ops.keys().all(|k| k == "$regex" || k == "$options") =>
        {
            let options = match ops.get("$options") {
                Some(Bson::String(o)) => o.clone(),
                _ => String::new(),
            };
            match ops.get("$regex") {
                Some(Bson::String(p)) => (p.clone(), options),
                Some(Bson::RegularExpression(r)) => (r.pattern.to_string(), r.options.to_string()),
                _ => return false,
            }
        }
        _ => return false,
    };
    let simple_prefix = options.is_empty()
        && pattern.strip_prefix('^').is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-'))
        });
    !simple_prefix
}

/// The top-level conditions of `filter`, a top-level `$and`'s children's among them
/// (the optimizer flattens an `$and` into its parent).
fn flat_conditions(filter: &Document) -> Vec<(String, Bson)> {
    let mut out = Vec::with_capacity(filter.len());
    for (name, value) in filter {
        match (name.as_str(), value) {
            ("$and", Bson::Array(items))
                if items.iter().all(|i| matches!(i, Bson::Document(_))) =>
            {
                for item in items {
                    if let Bson::Document(d) = item {
                        out.extend(flat_conditions(d));
                    }
                }
            }
            _ => out.push((name.clone(), value.clone())),
        }
    }
    out
}

/// Conditions as one filter: a document, or an `$and` of one-field documents when a
/// field comes more than once.
fn rebuild(conditions: Vec<(String, Bson)>) -> Document {
    let mut names: Vec<&String> = conditions.iter().map(|(n, _)| n).collect();
    names.sort();
    let repeated = names.windows(2).any(|w| w[0] == w[1]);
    if !repeated {
        return conditions.into_iter().collect();
    }
    let list = conditions
        .into_iter()
        .map(|(n, v)| {
            let mut d = Document::new();
            d.insert(n, v);
            Bson::Document(d)
        })
        .collect();
    doc! { "$and": Bson::Array(list) }
}

/// Whether a field's condition is answered exactly by its index bounds.
fn exact_condition(value: &Bson) -> bool {
    let plain = targeting::plain_value;
    let range = |op: &str| matches!(op, "$eq" | "$gt" | "$gte" | "$lt" | "$lte");
    match value {
        Bson::Document(ops) if ops.keys().all(|k| k.starts_with('$')) && !ops.is_empty() => {
            ops.iter().all(|(op, v)| match (op.as_str(), v) {
                (op, v) if range(op) => plain(v),
                ("$in", Bson::Array(items)) => items.iter().all(plain),
                // A negation's complemented bounds are exact when its child's are
                // (`IndexBoundsBuilder::translate`, NOT).
                ("$ne", v) => plain(v),
                ("$nin", Bson::Array(items)) => items.iter().all(plain),
                ("$not", Bson::Document(inner)) if inner.len() == 1 => inner
                    .iter()
                    .all(|(op, v)| op != "$eq" && range(op) && plain(v)),
                _ => false,
            })
        }
        other => plain(other),
    }
}
