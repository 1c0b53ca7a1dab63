//! Reads and writes routed through the routing table: find, count, update (including
//! shard key changes that move a document between shards, spec §9) and delete.

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{
    id_move, id_remove, index_name, Cluster, ClusterError, Collection, DocKey, IdKey, IdSlot,
    Stored, VersionMode,
};
use crate::engine::events::EventKind;
use crate::engine::targeting::{self, TargetKind};
use crate::keys::shard_key::{format_bson_obj, KeyValue};
use crate::query::filter as query;
use bson::{Bson, Document};

/// Where a query went, as mongos decided it (spec §8).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTarget {
    /// The shards the query was sent to, in order.
    pub shards: Vec<ShardIdx>,
    /// Single-shard, multi-shard or scatter-gather, as analyzeShardKey counts them.
    pub kind: TargetKind,
    /// The mongos explain stage: `SINGLE_SHARD` or `SHARD_MERGE`.
    pub stage: &'static str,
}

/// What an update did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UpdateOutcome {
    /// Documents the filter matched.
    pub matched: u64,
    /// Documents changed.
    pub modified: u64,
    /// Documents that moved to another shard because their shard key changed.
    pub moved: u64,
}

impl Cluster {
    /// Which shards a query with `filter` goes to.
    pub fn target(&self, ns: &str, filter: &Document) -> Result<QueryTarget, ClusterError> {
        match self.collection(ns).and_then(|c| c.sharding.as_ref()) {
            Some(s) => {
                let t = targeting::target(&s.pattern, &s.table, filter)?;
                Ok(QueryTarget {
                    stage: t.stage(),
                    shards: t.shards.clone(),
                    kind: t.kind,
                })
            }
            None => Ok(QueryTarget {
                shards: vec![self.primary_of(ns)],
                kind: TargetKind::SingleShard,
                stage: "SINGLE_SHARD",
            }),
        }
    }

    /// The documents matching `filter`, shard by shard in shard order and in insertion
    /// order within a shard (a collection scan's natural order), with the targeting.
    pub fn find(
        &self,
        ns: &str,
        filter: &Document,
    ) -> Result<(Vec<Document>, QueryTarget), ClusterError> {
        let target = self.target(ns, filter)?;
        let Some(coll) = self.collection(ns) else {
            // Like MongoDB, reading a collection that does not exist finds nothing.
            query::matches(filter, &Document::new())?;
            return Ok((Vec::new(), target));
        };
        let mut hits: Vec<(ShardIdx, u64, Document)> = Vec::new();
        self.for_each_placed(ns, coll, |shard, _, seq, stored| {
            if target.shards.contains(&shard) {
                let doc = stored.doc();
                if query::matches(filter, &doc)? {
                    hits.push((shard, seq, doc));
                }
            }
            Ok(())
        })?;
        crate::support::sort::sort_by_key(&mut hits, |(shard, seq, _)| (*shard, *seq));
        Ok((hits.into_iter().map(|(_, _, d)| d).collect(), target))
    }

    /// Calls `f` with every stored document of `coll` and the shard holding it, chunk by
    /// chunk in key order.
    fn for_each_placed<'a>(
        &self,
        ns: &str,
        coll: &'a Collection,
        mut f: impl FnMut(ShardIdx, &'a DocKey, u64, &'a Stored) -> Result<(), ClusterError>,
    ) -> Result<(), ClusterError> {
        match &coll.sharding {
            Some(s) => {
                for c in s.table.iter() {
                    for ((key, seq), stored) in
                        crate::engine::store::range(&coll.docs, &c.min, &c.max)
                    {
                        f(c.shard, key, *seq, stored)?;
                    }
                }
            }
            None => {
                let primary = self.primary_of(ns);
                for ((key, seq), stored) in &coll.docs {
                    f(primary, key, *seq, stored)?;
                }
            }
        }
        Ok(())
    }

    /// The (key, seq) entries matching `filter` on the targeted shards, in find order.
    fn matching_entries(
        &self,
        ns: &str,
        filter: &Document,
    ) -> Result<Vec<(KeyValue, u64)>, ClusterError> {
        let target = self.target(ns, filter)?;
        let Some(coll) = self.collection(ns) else {
            return Ok(Vec::new());
        };
        let mut hits = Vec::new();
        self.for_each_placed(ns, coll, |shard, key, seq, stored| {
            if target.shards.contains(&shard) && query::matches(filter, &stored.doc())? {
                hits.push((shard, key.to_key(), seq));
            }
            Ok(())
        })?;
        crate::support::sort::sort_by_key(&mut hits, |(shard, _, seq)| (*shard, *seq));
        Ok(hits.into_iter().map(|(_, k, s)| (k, s)).collect())
    }

    /// 4.4/5.0 refuse a single-document write whose filter pins neither the shard key nor
    /// `_id`; 7.1+ accepts it.
    fn check_single_write(
        &self,
        ns: &str,
        filter: &Document,
        what: &str,
    ) -> Result<(), ClusterError> {
        let Ok(s) = self.sharding(ns) else {
            return Ok(());
        };
        if self.version() == VersionMode::V80 {
            return Ok(());
        }
        let has_key = targeting::is_full_key_equality(&s.pattern, filter).is_some();
        let has_id = matches!(filter.get("_id"), Some(v) if !matches!(v, Bson::Document(d) if d.keys().any(|k| k.starts_with('$') && k != "$eq")));
        if has_key || has_id {
            return Ok(());
        }
        Err(ClusterError::InvalidOptions(format!(
            "A single {what} on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation)."
        )))
    }

    /// Updates one (`multi: false`) or all matching documents with an update document
    /// (`$set`, `$unset`, `$inc`) or a replacement.
    pub fn update(
        &mut self,
        ns: &str,
        filter: &Document,
        update: &Document,
        multi: bool,
    ) -> Result<UpdateOutcome, ClusterError> {
        if !multi {
            self.check_single_write(ns, filter, "update")?;
        }
        let mut entries = self.matching_entries(ns, filter)?;
        if !multi {
            entries.truncate(1);
        }
        let mut outcome = UpdateOutcome {
            matched: entries.len() as u64,
            ..UpdateOutcome::default()
        };
        for (key, seq) in entries {
            let Some(coll) = self.collections.get(ns) else {
                break;
            };
            let Some(stored) = coll.docs.get(&(DocKey::of(&key), seq)) else {
                continue;
            };
            let old_doc = stored.doc();
            let new_doc = query::apply_update(&old_doc, update)?;
            if new_doc == old_doc {
                continue;
            }
            let new_key = match &coll.sharding {
                Some(s) => s.pattern.extract(&new_doc)?,
                None => KeyValue(Vec::new()),
            };
            if new_key != key {
                let s = self.sharding(ns)?;
                if multi {
                    return Err(ClusterError::InvalidOptions(
                        "Multi-update operations are not allowed when updating the shard key field.".into(),
                    ));
                }
                if targeting::is_full_key_equality(&s.pattern, filter).is_none() {
                    return Err(ClusterError::Location31025(
                        "Shard key update is not allowed without specifying the full shard key in the query".into(),
                    ));
                }
            }
            let moved = self.replace_entry(ns, &key, seq, new_key, new_doc)?;
            outcome.modified += 1;
            outcome.moved += u64::from(moved);
        }
        Ok(outcome)
    }

    /// Replaces the stored document at (key, seq), re-routing it if its key changed.
    /// Returns whether it moved to another shard.
    fn replace_entry(
        &mut self,
        ns: &str,
        key: &KeyValue,
        seq: u64,
        new_key: KeyValue,
        new_doc: Document,
    ) -> Result<bool, ClusterError> {
        let from = self.shard_for_key(ns, key);
        let to = self.shard_for_key(ns, &new_key);
        let coll = self
            .collections
            .get_mut(ns)
            .ok_or_else(|| crate::engine::cluster::not_sharded(ns))?;
        if new_key != *key {
            if let Some(s) = &coll.sharding {
                if new_key >= s.pattern.global_max() {
                    return Err(crate::engine::cluster::untargetable_key(
                        ns, &s.pattern, &new_key,
                    ));
                }
                let k = DocKey::of(&new_key);
                if s.unique
                    && coll
                        .docs
                        .range((k.clone(), 0)..=(k, u64::MAX))
                        .next()
                        .is_some()
                {
                    return Err(ClusterError::DuplicateKey(format!(
                        "E11000 duplicate key error collection: {ns} index: {} dup key: {}",
                        index_name(&s.pattern.to_pattern_document()),
                        format_bson_obj(&s.pattern.to_document(&new_key))
                    )));
                }
            }
            let id = IdKey::of(&new_doc);
            if from != to && coll.ids.contains_key(&IdSlot::new(id.clone(), to)) {
                return Err(ClusterError::DuplicateKey(format!(
                    "E11000 duplicate key error collection: {ns} index: _id_ dup key: {{ _id: {} }}",
                    crate::keys::shard_key::format_bson_value(&id.to_bson())
                )));
            }
        }
        let stored = Stored::encode(&new_doc, None)?;
        self.written.take(1, u64::from(stored.size()))?;
        let Some(old) = coll.docs.remove(&(DocKey::of(key), seq)) else {
            return Ok(false);
        };
        let size = stored.size();
        let id = stored.id();
        id_move(&mut coll.ids, id, from, to);
        let mut split_candidate = None;
        if let Some(s) = coll.sharding.as_mut() {
            if let Some(c) = s.table.chunk_for_mut(key) {
                c.docs -= 1;
                c.bytes -= u64::from(old.size());
            }
            if let Some(c) = s.table.chunk_for_mut(&new_key) {
                c.docs += 1;
                c.bytes += u64::from(size);
                c.written += u64::from(size);
                split_candidate = Some(c.min.clone());
            }
        }
        coll.docs.insert((DocKey::new(new_key), seq), stored);
        if from != to {
            let (f, t) = (
                self.shard_name(from).to_string(),
                self.shard_name(to).to_string(),
            );
            self.push_event(EventKind::DocumentMoved {
                ns: ns.to_string(),
                from: f,
                to: t,
            });
        }
        if let (Some(min), true) = (split_candidate, self.autosplit_enabled) {
            self.maybe_auto_split(ns, &min);
        }
        Ok(from != to)
    }

    /// Deletes one (`multi: false`) or all matching documents; returns how many.
    pub fn delete(
        &mut self,
        ns: &str,
        filter: &Document,
        multi: bool,
    ) -> Result<u64, ClusterError> {
        if !multi {
            self.check_single_write(ns, filter, "delete")?;
        }
        let mut entries = self.matching_entries(ns, filter)?;
        if !multi {
            entries.truncate(1);
        }
        let count = entries.len() as u64;
        for (key, seq) in entries {
            let shard = self.shard_for_key(ns, &key);
            let Some(coll) = self.collections.get_mut(ns) else {
                break;
            };
            let Some(old) = coll.docs.remove(&(DocKey::of(&key), seq)) else {
                continue;
            };
            id_remove(&mut coll.ids, old.id(), shard);
            if let Some(c) = coll
                .sharding
                .as_mut()
                .and_then(|s| s.table.chunk_for_mut(&key))
            {
                c.docs -= 1;
                c.bytes -= u64::from(old.size());
            }
        }
        if count > 0 {
            self.push_event(EventKind::Delete {
                ns: ns.to_string(),
                count,
            });
        }
        Ok(count)
    }
}
