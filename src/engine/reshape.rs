//! Operations that change a collection's shard key: `refineCollectionShardKey` (spec §2:
//! bounds extended with MinKey/MaxKey, jumbo flags cleared) and `reshardCollection`
//! (every document redistributed under a new key).

use crate::engine::chunks::{Chunk, ChunkVersion, RoutingTable, ShardIdx};
use crate::engine::cluster::{
    id_add, not_sharded, recount_all, Cluster, ClusterError, Collection, DocKey, DocStore, IdIndex,
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
    crate::support::sort::sort_by(&mut docs, |a, b| a.0.cmp(&b.0));
    Ok(DocStore::from_sorted(docs))
}

impl Cluster {
    /// `createIndex(keys)`: records an index; returns its name.
    pub fn create_index(&mut self, ns: &str, keys: &Document) -> Result<String, ClusterError> {
        if keys.is_empty() {
            return Err(ClusterError::BadValue(
                "Index keys cannot be an empty field.".into(),
            ));
        }
        self.ensure_collection(ns)?;
        let name = crate::engine::cluster::index_name(keys);
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| not_sharded(ns))?;
        if !coll.indexes.contains(keys) {
            coll.indexes.push(keys.clone());
        }
        Ok(name)
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

    /// `refineCollectionShardKey`: extends the shard key with new suffix fields.
    pub fn refine_shard_key(&mut self, ns: &str, key: &Document) -> Result<(), ClusterError> {
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
        if !self.has_supporting_index(ns, &new) {
            return Err(ClusterError::InvalidOptions(
                "Please create an index that starts with the proposed shard key before refining the shard key of the collection".into(),
            ));
        }
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
        for z in &mut sharding.zones {
            z.min = extend(&z.min);
            z.max = extend(&z.max);
        }
        sharding.pattern = new.clone();
        recount_all(&mut sharding.table, &docs);
        if let Some(coll) = self.collections.get_mut(ns) {
            coll.docs = docs;
            coll.recent.clear();
        }
        self.push_event(EventKind::Refine {
            ns: ns.to_string(),
            key: format_bson_obj(&new.to_pattern_document()),
        });
        Ok(())
    }

    /// `reshardCollection`: redistributes every document under a new shard key. The new
    /// chunks split the documents evenly by count (as many chunks as before, at least one
    /// per shard) and are dealt to the shards round robin.
    pub fn reshard_collection(&mut self, ns: &str, key: &Document) -> Result<(), ClusterError> {
        let old_chunks = self.sharding(ns)?.table.len();
        let new = KeyPattern::parse(key)?;
        // Resharding to the current key is a no-op that succeeds and leaves every chunk
        // where it is, the collection keeping its UUID (MongoDB's
        // `jstests/sharding/resharding_nop.js`, 5.0 on; 8.0 rebuilds only when asked with
        // `forceRedistribution`, which the playground does not take).
        if self.sharding(ns)?.pattern == new {
            return Ok(());
        }
        let unique = self.sharding(ns)?.unique;
        new.check_unique(unique)?;
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let docs = rekeyed(ns, coll, &new)?;
        let shards: Vec<ShardIdx> = self
            .shards()
            .filter(|(_, s)| !s.draining)
            .map(|(i, _)| i)
            .collect();
        let n = old_chunks.max(shards.len()).max(1);
        let keys: Vec<&DocKey> = docs.iter().map(|((k, _), _)| k).collect();
        let mut points: Vec<KeyValue> = Vec::new();
        let global_min = new.global_min();
        for i in 1..n {
            let idx = i * keys.len() / n;
            if let Some(k) = keys.get(idx) {
                if points
                    .last()
                    .is_none_or(|p| k.cmp_key(p) != std::cmp::Ordering::Equal)
                    && k.cmp_key(&global_min) != std::cmp::Ordering::Equal
                {
                    points.push(k.to_key());
                }
            }
        }
        let mut chunks = Vec::with_capacity(points.len() + 1);
        let mut lo = new.global_min();
        for i in 0..=points.len() {
            let hi = points.get(i).cloned().unwrap_or_else(|| new.global_max());
            chunks.push(Chunk {
                min: lo,
                max: hi.clone(),
                shard: shards.get(i % shards.len().max(1)).copied().unwrap_or(0),
                jumbo: false,
                version: ChunkVersion {
                    major: 1,
                    minor: i as u32,
                },
                docs: 0,
                bytes: 0,
                written: 0,
            });
            lo = hi;
        }
        let mut table = RoutingTable::from_chunks(chunks);
        recount_all(&mut table, &docs);
        let mut ids = IdIndex::new();
        for c in table.iter() {
            for (_, stored) in crate::engine::store::range(&docs, &c.min, &c.max) {
                id_add(&mut ids, stored.id(), c.shard);
            }
        }
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
            s.zones.clear();
        }
        self.push_event(EventKind::Reshard {
            ns: ns.to_string(),
            key: format_bson_obj(&new.to_pattern_document()),
        });
        Ok(())
    }
}
