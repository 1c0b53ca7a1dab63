//! Operations that change a collection's shard key: `refineCollectionShardKey` (spec §2:
//! bounds extended with MinKey/MaxKey, jumbo flags cleared) and `reshardCollection`
//! (every document redistributed under a new key).

use crate::engine::chunks::{Chunk, RoutingTable, ShardIdx};
use crate::engine::cluster::{
    index_ids, not_sharded, recount_all, Cluster, ClusterError, Collection, DocKey, DocStore,
    VersionMode, ZoneRange, ZoneRanges,
};
use crate::engine::events::EventKind;
use crate::keys::shard_key::{format_bson_obj, FieldKind, KeyPattern, KeyValue};
use bson::{Bson, Document};

/// Whether `index` (a createIndex key pattern) starts with the fields of `pattern`, with
/// the same kind (1 or "hashed") for each.
fn index_supports(index: &Document, pattern: &KeyPattern) -> bool {
    let fields: Vec<(&String, &Bson)> = index.iter().collect();
    pattern.fields().len() <= fields.len()
        && pattern
            .fields()
            .iter()
            .zip(fields)
            .all(|((name, kind), (iname, ival))| {
                name == iname
                    && match kind {
                        FieldKind::Hashed => matches!(ival, Bson::String(s) if s == "hashed"),
                        FieldKind::Ascending => {
                            matches!(ival, Bson::Int32(1) | Bson::Int64(1))
                                || matches!(ival, Bson::Double(d) if *d == 1.0)
                        }
                    }
            })
}

/// The collection's documents keyed by `new` instead, in that key's order. Fails, and
/// changes nothing, if a document cannot be keyed.
fn rekeyed(ns: &str, coll: &Collection, new: &KeyPattern) -> Result<DocStore, ClusterError> {
    let mut docs = Vec::new();
    let global_max = new.global_max();
    for ((_, seq), stored) in &coll.docs {
        let key = new.extract_raw(stored.raw())?;
        if key >= global_max {
            // No chunk of the new key could hold it (see `untargetable_key`).
            return Err(crate::engine::cluster::untargetable_key(ns, new, &key));
        }
        let key = DocKey::new(key);
        docs.push(((key, *seq), stored.clone()));
    }
    docs.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(DocStore::from_sorted(docs))
}

/// A range of `reshardCollection`'s `zones` (`ReshardingZoneType`: `zone`, `min`, `max`),
/// its bounds as given, in the new key's fields.
#[derive(Debug, Clone)]
pub struct ReshardZone {
    /// The zone's name.
    pub zone: String,
    /// The inclusive lower bound.
    pub min: Document,
    /// The exclusive upper bound.
    pub max: Document,
}

/// `reshardCollection`'s options beyond the key.
#[derive(Debug, Clone, Default)]
pub struct ReshardOptions {
    /// `unique: true`, which resharding refuses.
    pub unique: bool,
    /// `numInitialChunks`: how many chunks the new key starts with.
    pub num_initial_chunks: Option<i64>,
    /// `zones`, when given: the collection's zone ranges under the new key, replacing its
    /// current ones (`[]` drops them).
    pub zones: Option<Vec<ReshardZone>>,
    /// `collation`, when given: only the simple collation is accepted.
    pub collation: Option<Document>,
}

/// `resharding::checkForOverlappingZones` (resharding_util.cpp): sorted by lower bound,
/// each range must start at or after the previous one's upper bound. Bounds compare by
/// value, as given (before they are extended to the new key).
fn check_for_overlapping_zones(zones: &[ReshardZone]) -> Result<(), ClusterError> {
    let raw = |d: &Document| KeyValue(d.values().cloned().collect());
    let mut ranges: Vec<(KeyValue, KeyValue)> =
        zones.iter().map(|z| (raw(&z.min), raw(&z.max))).collect();
    ranges.sort_by(|a, b| a.0.cmp(&b.0));
    if ranges.windows(2).any(|w| w[0].1 > w[1].0) {
        return Err(ClusterError::BadValue(
            "Zone ranges must not overlap".into(),
        ));
    }
    Ok(())
}

/// `KeyPattern::extendRangeBound(bound, false)` (keypattern.cpp), as
/// `ReshardingSplitPolicy::createFirstChunks` applies it to each zone bound: the bound's
/// fields must be the key's first fields, in order (massert 16649 for a bound longer than
/// the key, 16634 for another name), and the key's remaining fields are MinKey.
fn extend_range_bound(key: &KeyPattern, bound: &Document) -> Result<KeyValue, ClusterError> {
    let pattern = format_bson_obj(&key.to_pattern_document());
    let shown = format_bson_obj(bound);
    let mut fields = key.fields().iter();
    let mut values = Vec::with_capacity(key.len());
    for (name, value) in bound {
        let Some((field, _)) = fields.next() else {
            return Err(ClusterError::Location16649(format!(
                "keyPattern {pattern} shorter than bound {shown}"
            )));
        };
        if name != field {
            return Err(ClusterError::Location16634(format!(
                "field names of bound {shown} do not match those of keyPattern {pattern}"
            )));
        }
        values.push(value.clone());
    }
    values.resize(key.len(), Bson::MinKey);
    Ok(KeyValue(values))
}

impl Cluster {
    /// `createIndex(keys)`: records an index; returns its name.
    pub fn create_index(&mut self, ns: &str, keys: &Document) -> Result<String, ClusterError> {
        self.create_index_with(ns, keys, false)
    }

    /// `createIndex(keys, {unique})`: records an index, unique if asked; returns its name.
    /// On a sharded collection a unique index must keep uniqueness under the shard key
    /// (create_indexes.cpp, `checkUniqueIndexConstraints`: the shard key is a field-name
    /// prefix of the index, or the index starts with `_id`).
    pub fn create_index_with(
        &mut self,
        ns: &str,
        keys: &Document,
        unique: bool,
    ) -> Result<String, ClusterError> {
        self.create_named_index(ns, keys, unique, None)
    }

    /// `createIndex(keys, {unique, name})`: as [`Cluster::create_index_with`], under
    /// `name` when given. An index on the same key under another name, or of the same
    /// name on another key, is refused as `IndexCatalogImpl::_doesSpecConflictWithExisting`
    /// (index_catalog_impl.cpp) refuses it.
    pub fn create_named_index(
        &mut self,
        ns: &str,
        keys: &Document,
        unique: bool,
        name: Option<&str>,
    ) -> Result<String, ClusterError> {
        let default_name = crate::engine::cluster::index_name(keys);
        let name = name.map_or_else(|| default_name.clone(), str::to_string);
        if crate::engine::cluster::same_pattern(keys, &bson::doc! { "_id": 1 }) {
            // The `_id` index exists already: the server answers "all indexes already
            // exist", and the driver answers the name it asked for.
            self.ensure_collection(ns)?;
            return Ok(name);
        }
        if let Some(coll) = self.collection(ns) {
            self.check_index_name(coll, keys, &name)?;
        }
        if keys.is_empty() {
            return Err(ClusterError::BadValue(
                "Index keys cannot be an empty field.".into(),
            ));
        }
        if unique {
            if let Some(s) = self.collection(ns).and_then(|c| c.sharding.as_ref()) {
                if !s.pattern.is_unique_index_compatible(keys) {
                    return Err(ClusterError::CannotCreateIndex(format!(
                        "cannot create unique index over {} with shard key pattern {}",
                        format_bson_obj(keys),
                        format_bson_obj(&s.pattern.to_pattern_document())
                    )));
                }
            }
        }
        self.ensure_collection(ns)?;
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| not_sharded(ns))?;
        if !coll.has_index(keys) {
            coll.indexes.push(keys.clone());
            if unique {
                coll.unique_indexes.push(keys.clone());
            }
            if name != default_name {
                coll.index_names.insert(default_name, name.clone());
            }
        }
        Ok(name)
    }

    /// Refuses an index named `name` on `keys` that clashes with one of `coll`'s: an
    /// index of that name on another key (IndexKeySpecsConflict from 4.4; 3.6 says
    /// IndexOptionsConflict), or one on the same key under another name.
    fn check_index_name(
        &self,
        coll: &crate::engine::cluster::Collection,
        keys: &Document,
        name: &str,
    ) -> Result<(), ClusterError> {
        use crate::engine::cluster::same_pattern;
        let id_key = bson::doc! { "_id": 1 };
        let existing = std::iter::once((id_key.clone(), "_id_".to_string())).chain(
            coll.indexes
                .iter()
                .map(|k| (k.clone(), coll.index_name_of(k))),
        );
        let spec = |k: &Document, n: &str| {
            format_bson_obj(&bson::doc! { "v": 2, "key": k.clone(), "name": n })
        };
        for (key, existing_name) in existing {
            let same_key = same_pattern(&key, keys);
            if existing_name == name && !same_key {
                return Err(
                    if self.version() == crate::engine::cluster::VersionMode::V36 {
                        ClusterError::IndexOptionsConflict(format!(
                            "Index with name: {name} already exists with different options"
                        ))
                    } else {
                        ClusterError::IndexKeySpecsConflict(format!(
                            "An existing index has the same name as the requested index. When \
                         index names are not specified, they are auto generated and can cause \
                         conflicts. Please refer to our documentation. Requested index: {}, \
                         existing index: {}",
                            spec(keys, name),
                            spec(&key, &existing_name)
                        ))
                    },
                );
            }
            if same_key && existing_name != name {
                return Err(ClusterError::IndexOptionsConflict(format!(
                    "Index already exists with a different name: {existing_name}"
                )));
            }
        }
        Ok(())
    }

    /// Whether `ns` has an index usable for shard key `pattern` (the shard key index
    /// itself, or `_id` for `{_id: 1}`).
    pub fn has_supporting_index(&self, ns: &str, pattern: &KeyPattern) -> bool {
        let Some(coll) = self.collection(ns) else {
            return false;
        };
        let id_key = pattern.fields().len() == 1
            && pattern.fields()[0].0 == "_id"
            && pattern.fields()[0].1 == FieldKind::Ascending;
        id_key || coll.indexes.iter().any(|i| index_supports(i, pattern))
    }

    /// `shardkeyutil::validateShardKeyIndexExistsOrCreateIfPossible` with the refine
    /// behaviours (shard_key_util.cpp), for the indexes the playground keeps: keys only,
    /// none sparse, partial or collated; unique as created (`createIndex` with `unique:
    /// true`, or the shard key index of a collection sharded with `unique: true`).
    fn check_refine_index(
        &self,
        ns: &str,
        old: &KeyPattern,
        new: &KeyPattern,
    ) -> Result<(), ClusterError> {
        let sharding = self.sharding(ns)?;
        let coll = self.collection(ns).ok_or_else(|| not_sharded(ns))?;
        let old_doc = old.to_pattern_document();
        // Step 1, `validShardKeyIndexExists`: every unique index, in listIndexes order
        // (`_id` first, which is always compatible, then in creation order), must keep
        // uniqueness under the new key (`ShardKeyPattern::isUniqueIndexCompatible`).
        let unique = coll.indexes.iter().filter(|i| {
            coll.is_unique_index(i)
                || (sharding.unique && crate::engine::cluster::same_pattern(i, &old_doc))
        });
        for index in unique {
            if !new.is_unique_index_compatible(index) {
                return Err(ClusterError::InvalidOptions(format!(
                    "can't shard collection '{ns}' with unique index on {} and proposed shard key {}. Uniqueness can't be maintained unless shard key is a prefix",
                    format_bson_obj(index),
                    format_bson_obj(&new.to_pattern_document())
                )));
            }
        }
        if self.has_supporting_index(ns, new) {
            return Ok(());
        }
        // Step 4, `ValidationBehaviorsRefineShardKey::verifyCanCreateShardKeyIndex`: the
        // 4.4 wording, and from 7.x the reasons (none for a plain missing index) after it.
        Err(ClusterError::InvalidOptions(match self.version() {
            VersionMode::V70 | VersionMode::V80 => "Please create an index that starts with the proposed shard key before refining the collection's shard key. ".into(),
            _ => "Please create an index that starts with the proposed shard key before refining the shard key of the collection".into(),
        }))
    }

    /// `refineCollectionShardKey`: extends the shard key with new suffix fields.
    pub fn refine_shard_key(&mut self, ns: &str, key: &Document) -> Result<(), ClusterError> {
        self.check_database_exists(ns)?;
        let old = self.sharding(ns)?.pattern.clone();
        let new = KeyPattern::parse(key)?;
        // Refining to the very same key changes nothing and succeeds.
        if new == old {
            return Ok(());
        }
        if !old.is_extended_by(&new) {
            return Err(ClusterError::InvalidOptions(format!(
                "refineCollectionShardKey shard key {} does not extend the current shard key {}",
                format_bson_obj(&new.to_pattern_document()),
                format_bson_obj(&old.to_pattern_document())
            )));
        }
        self.check_refine_index(ns, &old, &new)?;
        // Re-key every document first so that a bad document changes nothing.
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let docs = rekeyed(ns, coll, &new)?;
        let extra = new.len() - old.len();
        let old_max = old.global_max();
        let extend = |k: &KeyValue| {
            let fill = if *k == old_max {
                Bson::MaxKey
            } else {
                Bson::MinKey
            };
            let mut v = k.0.clone();
            v.extend(std::iter::repeat_n(fill, extra));
            KeyValue(v)
        };
        let sharding = self.sharding_mut(ns)?;
        let chunks: Vec<Chunk> = sharding
            .table
            .iter()
            .map(|c| Chunk {
                min: extend(&c.min),
                max: extend(&c.max),
                jumbo: false,
                // A refined key is a new routing table: every writes tracker starts over.
                written: 0,
                ..c.clone()
            })
            .collect();
        sharding.table = RoutingTable::from_chunks(chunks);
        let zones = sharding
            .zones
            .iter()
            .map(|z| ZoneRange {
                min: extend(&z.min),
                max: extend(&z.max),
                zone: z.zone.clone(),
            })
            .collect();
        sharding.zones = ZoneRanges::from_ranges(zones);
        sharding.pattern = new.clone();
        recount_all(&mut sharding.table, &docs);
        // The documents are filed under their refined keys: the `_id` index's places follow.
        let ids = index_ids(&sharding.table, &docs);
        if let Some(coll) = self.collections.get_mut(ns) {
            coll.docs = docs;
            coll.ids = ids;
            coll.recent.clear();
        }
        self.push_event(EventKind::Refine {
            ns: ns.to_string(),
            key: new.to_pattern_document(),
            old_key: old.to_pattern_document(),
        });
        self.restart_defragmentation(ns);
        Ok(())
    }

    /// `reshardCollection`: redistributes every document under a new shard key. The new
    /// chunks split the documents evenly by count (as many chunks as before, at least one
    /// per shard) and each goes to the shard with the fewest of them so far.
    pub fn reshard_collection(&mut self, ns: &str, key: &Document) -> Result<(), ClusterError> {
        self.reshard_collection_with(ns, key, &ReshardOptions::default())
    }

    /// `reshardCollection` with its options, checked in the order of the 5.0 router and
    /// config server (cluster_reshard_collection_cmd.cpp, configsvr_reshard_collection_cmd
    /// .cpp): sharded, `unique` false, `zones` given when the collection has zones, the
    /// same key a no-op, then `zones` must not overlap. The given zones replace the
    /// collection's (the coordinator's commit deletes the old `config.tags` documents and
    /// renames the new ones, resharding_coordinator_service.cpp); without `zones` the
    /// collection had none, and has none after.
    pub(crate) fn reshard_collection_with(
        &mut self,
        ns: &str,
        key: &Document,
        opts: &ReshardOptions,
    ) -> Result<(), ClusterError> {
        self.check_database_exists(ns)?;
        let current = self.sharding(ns)?;
        if opts.unique {
            return Err(ClusterError::BadValue(
                "The unique field must be false".into(),
            ));
        }
        // cluster_reshard_collection_cmd.cpp / configsvr_reshard_collection_cmd.cpp: any
        // collation but the simple one makes a collator.
        if let Some(collation) = opts
            .collation
            .as_ref()
            .filter(|c| c.get("locale") != Some(&Bson::String("simple".into())))
        {
            return Err(ClusterError::BadValue(format!(
                "The collation for reshardCollection must be {{locale: 'simple'}}, but found: {}",
                crate::keys::shard_key::format_bson_obj(collation)
            )));
        }
        if !current.zones.is_empty() && opts.zones.is_none() {
            return Err(ClusterError::BadValue(
                "Must specify value for zones field".into(),
            ));
        }
        // numInitialChunks defaults to the collection's chunk count (`cm.numChunks()`).
        let old_chunks = opts
            .num_initial_chunks
            .map_or(current.table.len(), |n| n.max(1) as usize);
        let new = KeyPattern::parse(key)?;
        // Resharding to the current key is a no-op that succeeds and leaves every chunk
        // where it is, the collection keeping its UUID (MongoDB's
        // `jstests/sharding/resharding_nop.js`, 5.0 on; 8.0 rebuilds only when asked with
        // `forceRedistribution`, which the playground does not take).
        if self.sharding(ns)?.pattern == new {
            return Ok(());
        }
        if let Some(zones) = &opts.zones {
            check_for_overlapping_zones(zones)?;
        }
        let unique = self.sharding(ns)?.unique;
        new.check_unique(unique)?;
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let docs = rekeyed(ns, coll, &new)?;
        let (chunks, zones) = self.resharded_chunks(&new, &docs, old_chunks, opts)?;
        let mut table = RoutingTable::from_chunks(chunks);
        recount_all(&mut table, &docs);
        let ids = index_ids(&table, &docs);
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| not_sharded(ns))?;
        coll.docs = docs;
        coll.ids = ids;
        coll.recent.clear();
        if let Some(s) = coll.sharding.as_mut() {
            s.pattern = new.clone();
            s.table = table;
            s.zones = ZoneRanges::from_ranges(zones);
        }
        self.push_event(EventKind::Reshard {
            ns: ns.to_string(),
            key: format_bson_obj(&new.to_pattern_document()),
        });
        self.restart_defragmentation(ns);
        Ok(())
    }

    /// The new key's first chunks and zone ranges, as `ReshardingSplitPolicy::
    /// createFirstChunks` (initial_split_policy.cpp) makes them: every zone bound (extended
    /// to the new key) is a split point, then sampled keys until there are
    /// `numInitialChunks` chunks (ShardLab's sample: the documents at even steps of the
    /// new key's order); each chunk goes, in key order, to the shard with the fewest new
    /// chunks among those of its zone (`selectBestShard`; any shard outside the zones),
    /// the first in shard order on a tie.
    fn resharded_chunks(
        &self,
        new: &KeyPattern,
        docs: &DocStore,
        num_initial: usize,
        opts: &ReshardOptions,
    ) -> Result<(Vec<Chunk>, Vec<ZoneRange>), ClusterError> {
        let mut zones = Vec::new();
        for z in opts.zones.iter().flatten() {
            zones.push(ZoneRange {
                min: extend_range_bound(new, &z.min)?,
                max: extend_range_bound(new, &z.max)?,
                zone: z.zone.clone(),
            });
        }
        zones.sort_by(ZoneRange::by_min);
        let (global_min, global_max) = (new.global_min(), new.global_max());
        let mut points: Vec<KeyValue> = zones
            .iter()
            .flat_map(|z| [z.min.clone(), z.max.clone()])
            .filter(|p| *p != global_min && *p != global_max)
            .collect();
        points.sort();
        points.dedup();
        let shards: Vec<ShardIdx> = self
            .shards()
            .filter(|(_, s)| !s.draining)
            .map(|(i, _)| i)
            .collect();
        let n = num_initial.max(shards.len()).max(1);
        let keys: Vec<&DocKey> = docs.iter().map(|((k, _), _)| k).collect();
        let mut wanted = (n - 1).saturating_sub(points.len());
        for i in 1..n {
            if wanted == 0 {
                break;
            }
            let Some(k) = keys.get(i * keys.len() / n) else {
                continue;
            };
            let k = k.to_key();
            if k != global_min && k < global_max {
                if let Err(at) = points.binary_search(&k) {
                    points.insert(at, k);
                    wanted -= 1;
                }
            }
        }
        if let Some(asked) = opts.num_initial_chunks {
            self.check_reshard_cardinality(asked, &points, &keys, &global_min)?;
        }
        let mut counts: Vec<usize> = Vec::new();
        let mut chunks = Vec::with_capacity(points.len() + 1);
        let mut lo = global_min;
        for hi in points.into_iter().chain(std::iter::once(global_max)) {
            // `ZoneInfo::getZoneForChunk`: the zone whose range holds the whole chunk.
            let zone = zones.iter().find(|z| z.min <= lo && hi <= z.max);
            let candidates = match zone {
                Some(z) => self.zone_members(&z.zone),
                None => shards.clone(),
            };
            let count = |s: ShardIdx| counts.get(s as usize).copied().unwrap_or(0);
            let Some(best) = candidates.iter().copied().min_by_key(|&s| count(s)) else {
                return Err(ClusterError::Location4952607(format!(
                    "no shards found for zone: {}, while creating initial chunks for new resharded collection",
                    zone.map_or("", |z| z.zone.as_str())
                )));
            };
            if counts.len() <= best as usize {
                counts.resize(best as usize + 1, 0);
            }
            counts[best as usize] += 1;
            chunks.push(Chunk::empty(lo, hi.clone(), best, chunks.len() as u32));
            lo = hi;
        }
        Ok((chunks, zones))
    }

    /// `SamplingBasedSplitPolicy::createFirstSplitPoints` (initial_split_policy.cpp): the
    /// zones' bounds and the sampled distinct keys must give `numInitialChunks - 1` split
    /// points, else 4952606 (reshard_collection_basic.js: "Fail if splitting collection
    /// into multiple chunks while it is still empty"), worded as 5.0 and 8.0 word it.
    fn check_reshard_cardinality(
        &self,
        asked: i64,
        zone_points: &[KeyValue],
        keys: &[&DocKey],
        global_min: &KeyValue,
    ) -> Result<(), ClusterError> {
        let mut distinct: Vec<KeyValue> = Vec::new();
        for k in keys {
            let k = k.to_key();
            if k != *global_min
                && distinct.last() != Some(&k)
                && zone_points.binary_search(&k).is_err()
            {
                distinct.push(k);
            }
        }
        let possible = zone_points.len() + distinct.len() + 1;
        if i64::try_from(possible).unwrap_or(i64::MAX) >= asked {
            return Ok(());
        }
        Err(ClusterError::Location4952606(match self.version() {
            VersionMode::V70 | VersionMode::V80 => format!(
                "The shard key provided does not have enough cardinality to make the required number of chunks of {asked}, it can only make {possible} chunks"
            ),
            _ => "The shard key provided does not have enough cardinality to make the required amount of chunks".to_string(),
        }))
    }
}
