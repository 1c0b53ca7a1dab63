//! Reads and writes routed through the routing table: find, count, update (including
//! shard key changes that move a document between shards, spec §9) and delete.

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{
    id_move, id_remove, index_name, Cluster, ClusterError, DocAt, DocKey, IdKey, IdSlot, Stored,
    VersionMode,
};
use crate::engine::events::EventKind;
use crate::engine::targeting::{self, TargetKind};
use crate::keys::shard_key::{format_bson_obj, KeyPattern, KeyValue};
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UpdateOutcome {
    /// Documents the filter matched.
    pub matched: u64,
    /// Documents changed.
    pub modified: u64,
    /// Documents that moved to another shard because their shard key changed.
    pub moved: u64,
    /// The `_id` of the document an upsert inserted, when nothing matched.
    pub upserted_id: Option<Bson>,
}

/// Where a stored document is: its shard key and its insertion number.
type Entry = (KeyValue, u64);

/// What a findAndModify does to the one document it finds.
#[derive(Debug, Clone, Copy)]
pub enum Modify<'a> {
    /// An operator update or a replacement.
    Update(&'a Document),
    /// Deletes it (`findOneAndDelete`).
    Remove,
}

/// A findAndModify request (`findOneAndUpdate`, `findOneAndReplace`, `findOneAndDelete`).
#[derive(Debug, Clone, Copy)]
pub struct FindAndModify<'a> {
    /// Which documents qualify.
    pub filter: &'a Document,
    /// Which of them is taken first; natural order without one.
    pub sort: Option<&'a Document>,
    /// What is done to it.
    pub modify: Modify<'a>,
    /// Insert a document when none matches (updates only).
    pub upsert: bool,
    /// Return the document after the change (`returnDocument: 'after'`) rather than
    /// before it.
    pub return_new: bool,
}

/// Where mongos sends a single-document write or an upsert.
#[derive(Debug, Clone, Copy, Default)]
struct SingleWrite {
    /// The one shard it goes to when mongos found it by a replacement document rather
    /// than by the filter.
    only: Option<ShardIdx>,
    /// Whether it runs through 7.1+'s two-phase protocol for writes without a shard key.
    two_phase: bool,
}

impl SingleWrite {
    /// A write sent to `shard`.
    fn to(shard: ShardIdx) -> Self {
        SingleWrite {
            only: Some(shard),
            two_phase: false,
        }
    }
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
        // Parsed once for every document: a regular expression compiles once.
        let parsed = query::parse_filter(filter)?;
        let Some(coll) = self.collection(ns) else {
            // Like MongoDB, reading a collection that does not exist finds nothing.
            return Ok((Vec::new(), target));
        };
        let mut hits: Vec<(ShardIdx, u64, Document)> = Vec::new();
        self.for_each_candidate(ns, coll, filter, &target.shards, |shard, _, seq, stored| {
            let doc = stored.doc();
            if parsed.matches(&doc)? {
                hits.push((shard, seq, doc));
            }
            Ok(())
        })?;
        hits.sort_by_key(|(shard, seq, _)| (*shard, *seq));
        // Overlapping key ranges may read a document twice; its seq is unique.
        hits.dedup_by_key(|(shard, seq, _)| (*shard, *seq));
        Ok((hits.into_iter().map(|(_, _, d)| d).collect(), target))
    }

    /// The (key, seq) entries matching `filter` on the targeted shards, in find order.
    /// `only` narrows the write to the one shard mongos sent it to by other means than the
    /// filter (a replacement document's key).
    fn matching_entries(
        &self,
        ns: &str,
        filter: &Document,
        only: Option<ShardIdx>,
    ) -> Result<Vec<Entry>, ClusterError> {
        Ok(self.matching(ns, filter, only, false)?.0)
    }

    /// [`Cluster::matching_entries`] with the documents themselves, in the same order.
    fn matching_docs(
        &self,
        ns: &str,
        filter: &Document,
        only: Option<ShardIdx>,
    ) -> Result<(Vec<Entry>, Vec<Document>), ClusterError> {
        self.matching(ns, filter, only, true)
    }

    /// The shared body of [`Cluster::matching_entries`] and [`Cluster::matching_docs`]:
    /// the documents are kept only when asked for, so that an `updateMany` holds no copy
    /// of what it matched.
    fn matching(
        &self,
        ns: &str,
        filter: &Document,
        only: Option<ShardIdx>,
        keep_docs: bool,
    ) -> Result<(Vec<Entry>, Vec<Document>), ClusterError> {
        let mut target = self.target(ns, filter)?;
        if let Some(shard) = only {
            target.shards = vec![shard];
        }
        let Some(coll) = self.collection(ns) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let parsed = query::parse_filter(filter)?;
        let mut hits = Vec::new();
        self.for_each_candidate(
            ns,
            coll,
            filter,
            &target.shards,
            |shard, key, seq, stored| {
                let doc = stored.doc();
                if parsed.matches(&doc)? {
                    hits.push((shard, key.to_key(), seq, keep_docs.then_some(doc)));
                }
                Ok(())
            },
        )?;
        hits.sort_by_key(|(shard, _, seq, _)| (*shard, *seq));
        // Overlapping key ranges may read a document twice; its seq is unique.
        hits.dedup_by_key(|(shard, _, seq, _)| (*shard, *seq));
        let mut entries = Vec::with_capacity(hits.len());
        let mut docs = Vec::with_capacity(if keep_docs { hits.len() } else { 0 });
        for (_, key, seq, doc) in hits {
            entries.push((key, seq));
            docs.extend(doc);
        }
        Ok((entries, docs))
    }

    /// The check mongos's ChunkManagerTargeter makes before a single-document write
    /// (`multi: false`) or an upsert on a sharded collection, in the mode's era. `update` is
    /// `None` for a delete. Answers where mongos sends the write: to one shard it found
    /// by a replacement document rather than by the filter, or through 7.1+'s two-phase
    /// protocol.
    fn check_single_write(
        &self,
        ns: &str,
        filter: &Document,
        update: Option<&Document>,
        upsert: bool,
        multi: bool,
    ) -> Result<SingleWrite, ClusterError> {
        let Ok(s) = self.sharding(ns) else {
            return Ok(SingleWrite::default());
        };
        let version = self.version();
        let full_key = targeting::is_full_key_equality(&s.pattern, filter).is_some();
        let refused = |targeted: Option<usize>| {
            single_write_refusal(version, &s.pattern, filter, update, upsert, multi, targeted)
        };
        if version == VersionMode::V80 {
            // chunk_manager_targeter.cpp (7.1+), targetUpdate: only a multi upsert still
            // needs the full key (`(!featureFlagUpdateOneWithoutShardKey || multi) &&
            // isUpsert`); a single write without it goes through the two-phase protocol
            // (write_without_shard_key_util.cpp), except one on an exact `_id`, which is
            // sent to the shards its filter targets unless it is an upsert reaching several.
            if multi {
                return if upsert && !full_key {
                    Err(refused(None))
                } else {
                    Ok(SingleWrite::default())
                };
            }
            let two_phase = !full_key
                && (!is_exact_id_query(filter)
                    || (upsert && self.target(ns, filter)?.shards.len() > 1));
            return Ok(SingleWrite {
                only: None,
                two_phase,
            });
        }
        let replacement = update.filter(|u| !is_op_style(u));
        if version == VersionMode::V36 {
            // chunk_manager_targeter.cpp (3.6), targetUpdate/targetDelete: an op-style
            // write or a delete targets by the filter's full key, a replacement by the
            // replacement's own key (extractShardKeyFromDoc: every field present).
            let by_doc = replacement.filter(|r| has_every_key_field(&s.pattern, r));
            if let Some(r) = by_doc {
                let key = s.pattern.extract(r)?;
                return Ok(SingleWrite::to(self.shard_for_key(ns, &key)));
            }
            let by_query = replacement.is_none() && full_key;
            if by_query || (!upsert && is_exact_id_query(filter)) {
                return Ok(SingleWrite::default());
            }
            return Err(refused(None));
        }
        // chunk_manager_targeter.cpp (4.4 to 7.0), targetUpdate: an upsert needs the full
        // key in its filter; any other update may go wherever the filter targets one shard.
        if upsert && !full_key {
            return Err(refused(None));
        }
        if multi {
            return Ok(SingleWrite::default());
        }
        let Some(_) = update else {
            // targetDelete: 5.0.0 still wants the full key or an exact _id; 7.0 targets a
            // delete by its query as it does an update (SERVER-44422, in 7.0.1), so a
            // filter that reaches one shard is enough.
            let one_shard =
                version == VersionMode::V70 && self.target(ns, filter)?.shards.len() == 1;
            return if full_key || one_shard || is_exact_id_query(filter) {
                Ok(SingleWrite::default())
            } else {
                Err(refused(None))
            };
        };
        let target = self.target(ns, filter)?;
        if full_key || target.shards.len() == 1 {
            return Ok(SingleWrite::default());
        }
        if let Some(r) = replacement {
            // getUpdateExprForTargeting: missing key fields count as null
            // (emplaceMissingShardKeyValuesForDocument), so a replacement always targets one.
            let key = s.pattern.extract(r)?;
            return Ok(SingleWrite::to(self.shard_for_key(ns, &key)));
        }
        if is_exact_id_query(filter) {
            return Ok(SingleWrite::default());
        }
        Err(refused(Some(target.shards.len())))
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
        self.update_with(ns, filter, update, multi, false)
    }

    /// [`Cluster::update`] with the `upsert` option, whose targeting mongos checks. An
    /// upsert that matches nothing inserts the document the filter and the update make
    /// ([`crate::query::upsert_document`]), as mongod does: with a shard key equal to
    /// `null` in the filter, that is a document whose key is `null`.
    pub fn update_with(
        &mut self,
        ns: &str,
        filter: &Document,
        update: &Document,
        multi: bool,
        upsert: bool,
    ) -> Result<UpdateOutcome, ClusterError> {
        let route = if multi && !upsert {
            SingleWrite::default()
        } else {
            self.check_single_write(ns, filter, Some(update), upsert, multi)?
        };
        let mut entries = self.matching_entries(ns, filter, route.only)?;
        if !multi {
            entries.truncate(1);
        }
        let mut outcome = UpdateOutcome {
            matched: entries.len() as u64,
            ..UpdateOutcome::default()
        };
        if entries.is_empty() && upsert {
            let doc = self.upsert_insert(ns, filter, update)?;
            outcome.upserted_id = doc.get("_id").cloned();
            return Ok(outcome);
        }
        for (key, seq) in entries {
            if let Some((_, _, moved)) =
                self.update_entry(ns, filter, update, multi, &key, seq, route.two_phase)?
            {
                outcome.modified += 1;
                outcome.moved += u64::from(moved);
            }
        }
        Ok(outcome)
    }

    /// Inserts the document an upsert makes when nothing matched, and returns it as stored.
    fn upsert_insert(
        &mut self,
        ns: &str,
        filter: &Document,
        update: &Document,
    ) -> Result<Document, ClusterError> {
        let mut doc = crate::query::upsert_document(filter, update)?;
        if !doc.contains_key("_id") {
            let mut with_id = bson::doc! { "_id": self.next_object_id() };
            with_id.extend(doc);
            doc = with_id;
        }
        self.insert_many(ns, [&doc]).map_err(|(_, e)| e)?;
        Ok(doc)
    }

    /// Applies `update` to the stored document at (key, seq): returns the document before
    /// and after and whether it moved to another shard, or `None` when the update changed
    /// nothing. A shard key change follows the era's rules (spec §9); `two_phase` is true
    /// for a write mongos ran through 7.1+'s protocol for writes without a shard key,
    /// which may change the key without the full key in its filter.
    #[allow(clippy::too_many_arguments)]
    fn update_entry(
        &mut self,
        ns: &str,
        filter: &Document,
        update: &Document,
        multi: bool,
        key: &KeyValue,
        seq: u64,
        two_phase: bool,
    ) -> Result<Option<(Document, Document, bool)>, ClusterError> {
        let Some(coll) = self.collections.get(ns) else {
            return Ok(None);
        };
        let Some(stored) = coll.docs.get(&(DocKey::of(key), seq)) else {
            return Ok(None);
        };
        let old_doc = stored.doc();
        let new_doc = query::apply_update(&old_doc, update)?;
        if new_doc == old_doc {
            return Ok(None);
        }
        let new_key = match &coll.sharding {
            Some(s) => s.pattern.extract(&new_doc)?,
            None => KeyValue(Vec::new()),
        };
        if new_key != *key {
            let s = self.sharding(ns)?;
            if self.version() == VersionMode::V36 {
                return Err(immutable_key_error(&s.pattern, update, &old_doc, &new_doc));
            }
            let full_key = targeting::is_full_key_equality(&s.pattern, filter).is_some();
            self.check_shard_key_change(full_key, multi, two_phase)?;
        }
        let moved = self.replace_entry(ns, key, seq, new_key, new_doc.clone())?;
        Ok(Some((old_doc, new_doc, moved)))
    }

    /// update_stage.cpp's checks on a write that changes a document's shard key value.
    /// 4.2 to 6.x (`wasExistingShardKeyUpdated`): the full key in the query (31025),
    /// then `multi`, then a retryable write or a transaction. From 7.0
    /// (`_checkRestrictionsOnUpdatingShardKeyAreNotViolated`) `multi` comes first; a
    /// write of the two-phase protocol (7.1+) carries
    /// `$_allowShardKeyUpdatesWithoutFullShardKeyInQuery`, true only when the client's
    /// write was retryable or in a transaction, and skips the full key check. The last
    /// check stays in every era: `featureFlagUpdateDocumentShardKeyUsingTransactionApi`,
    /// which would lift it, is off by default.
    fn check_shard_key_change(
        &self,
        full_key: bool,
        multi: bool,
        two_phase: bool,
    ) -> Result<(), ClusterError> {
        let no_full_key = || {
            ClusterError::Location31025(
                "Shard key update is not allowed without specifying the full shard key in the query".into(),
            )
        };
        let multi_refused = || {
            ClusterError::InvalidOptions(
                "Multi-update operations are not allowed when updating the shard key field.".into(),
            )
        };
        if self.version() == VersionMode::V50 {
            if !full_key {
                return Err(no_full_key());
            }
            if multi {
                return Err(multi_refused());
            }
        } else {
            if multi {
                return Err(multi_refused());
            }
            if !two_phase && !full_key {
                return Err(no_full_key());
            }
        }
        if !self.retryable_writes {
            return Err(ClusterError::IllegalOperation(
                "Must run update to shard key field in a multi-statement transaction or with retryWrites: true.".into(),
            ));
        }
        Ok(())
    }

    /// Where mongos sends a findAndModify on `ns` (cluster_find_and_modify_cmd.cpp): to
    /// the shard owning the filter's shard key (`getShardKey`, an equality on every key
    /// field, `null` included), refused without one in 3.6 and 5.0; 7.0 takes a filter
    /// that reaches one shard; from 7.1 a filter without the key runs through the
    /// two-phase write protocol (`useTwoPhaseProtocol`, write_without_shard_key_util.cpp)
    /// on the shards the filter targets (`None`).
    fn find_and_modify_target(
        &self,
        ns: &str,
        filter: &Document,
    ) -> Result<Option<ShardIdx>, ClusterError> {
        let Ok(s) = self.sharding(ns) else {
            return Ok(None);
        };
        if let Some(key) = targeting::is_full_key_equality(&s.pattern, filter) {
            return Ok(Some(self.shard_for_key(ns, &key)));
        }
        match self.version() {
            VersionMode::V80 => Ok(None),
            // SERVER-44422 (7.0.1): targeted by its query (`targetSingleShard`), so a
            // filter that reaches one shard is enough.
            VersionMode::V70 => {
                let shards = self.target(ns, filter)?.shards;
                match shards.as_slice() {
                    [one] => Ok(Some(*one)),
                    _ => Err(ClusterError::ShardKeyNotFound(format!(
                        "Query with sharded findAndModify expected to only target one shard, but the query targeted {} shard(s)",
                        shards.len()
                    ))),
                }
            }
            VersionMode::V36 | VersionMode::V50 => Err(ClusterError::ShardKeyNotFound(
                "Query for sharded findAndModify must contain the shard key".into(),
            )),
        }
    }

    /// Runs a findAndModify: finds the first matching document (by `sort` when given),
    /// updates, replaces or deletes it, and returns it before or after the change; an
    /// upsert that matches nothing inserts, and returns the new document only when asked
    /// for the document after. `None` is mongosh's `null`.
    pub fn find_and_modify(
        &mut self,
        ns: &str,
        req: &FindAndModify<'_>,
    ) -> Result<Option<Document>, ClusterError> {
        let only = self.find_and_modify_target(ns, req.filter)?;
        let (entries, mut docs) = self.matching_docs(ns, req.filter, only)?;
        let pick = match req.sort.filter(|s| !s.is_empty()) {
            Some(sort) => crate::query::sort_order(&docs, sort).first().copied(),
            None => (!docs.is_empty()).then_some(0),
        };
        let Some(i) = pick else {
            return match req.modify {
                Modify::Update(update) if req.upsert => {
                    let doc = self.upsert_insert(ns, req.filter, update)?;
                    Ok(req.return_new.then_some(doc))
                }
                _ => Ok(None),
            };
        };
        let (key, seq) = entries[i].clone();
        let found = docs.swap_remove(i);
        match req.modify {
            Modify::Remove => {
                self.remove_entries(ns, vec![(key, seq)]);
                Ok(Some(found))
            }
            Modify::Update(update) => {
                let two_phase = only.is_none() && self.sharding(ns).is_ok();
                let changed =
                    self.update_entry(ns, req.filter, update, false, &key, seq, two_phase)?;
                Ok(Some(match (changed, req.return_new) {
                    (Some((_, new, _)), true) => new,
                    _ => found,
                }))
            }
        }
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
        id_move(
            &mut coll.ids,
            id,
            from,
            to,
            DocAt::new(DocKey::of(&new_key), seq),
        );
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
            self.check_single_write(ns, filter, None, false, false)?;
        }
        let mut entries = self.matching_entries(ns, filter, None)?;
        if !multi {
            entries.truncate(1);
        }
        Ok(self.remove_entries(ns, entries))
    }

    /// Removes the stored documents at `entries` and records one delete event; returns
    /// how many it removed.
    fn remove_entries(&mut self, ns: &str, entries: Vec<(KeyValue, u64)>) -> u64 {
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
        count
    }
}

/// An update document of `$` operators rather than a replacement.
fn is_op_style(update: &Document) -> bool {
    update.keys().next().is_some_and(|k| k.starts_with('$'))
}

/// True when `doc` has every field of the key, as 3.6's `extractShardKeyFromDoc` wants
/// (it gives an empty key, not nulls, for a missing field).
fn has_every_key_field(pattern: &KeyPattern, doc: &Document) -> bool {
    pattern
        .fields()
        .iter()
        .all(|(path, _)| path_value(doc, path).is_some())
}

/// The value at a dotted path, descending through embedded documents only.
fn path_value<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    match (doc.get(head)?, rest) {
        (value, None) => Some(value),
        (Bson::Document(d), Some(rest)) => path_value(d, rest),
        _ => None,
    }
}

/// `isExactIdQuery`: the filter pins `_id` to one value (`{_id: v}` or `{_id: {$eq: v}}`,
/// beside any other conditions).
fn is_exact_id_query(filter: &Document) -> bool {
    match filter.get("_id") {
        Some(Bson::Document(d)) => {
            !d.keys().any(|k| k.starts_with('$')) || (d.len() == 1 && d.contains_key("$eq"))
        }
        Some(Bson::Array(_) | Bson::RegularExpression(_)) | None => false,
        Some(_) => true,
    }
}

/// The write as mongos prints it in a targeting error: `UpdateOpEntry::toBSON()` or
/// `DeleteOpEntry::toBSON()` from write_ops.idl. 3.6's entries hold q, u, multi, upsert
/// (q, limit for a delete); 4.2+ added `hint` (default `{}`, serialized always) to updates
/// and 4.4+ to deletes. mongosh sends neither collation nor arrayFilters here.
fn write_request(
    version: VersionMode,
    filter: &Document,
    update: Option<&Document>,
    upsert: bool,
    multi: bool,
) -> String {
    let hint = if version == VersionMode::V36 {
        ""
    } else {
        "hint: {}, "
    };
    match update {
        Some(u) => format!(
            "{{ q: {}, u: {}, {hint}multi: {multi}, upsert: {upsert} }}",
            format_bson_obj(filter),
            format_bson_obj(u)
        ),
        None => {
            let hint = hint.trim_end_matches(", ");
            let tail = if hint.is_empty() {
                String::new()
            } else {
                format!(", {hint}")
            };
            format!("{{ q: {}, limit: 1{tail} }}", format_bson_obj(filter))
        }
    }
}

/// The error mongos gives when it cannot target a single-document write or an upsert,
/// in the era's words (chunk_manager_targeter.cpp, targetUpdate/targetDelete).
/// `targeted` is the number of shards a 4.4/5.0 op-style update reached.
fn single_write_refusal(
    version: VersionMode,
    pattern: &KeyPattern,
    filter: &Document,
    update: Option<&Document>,
    upsert: bool,
    multi: bool,
    targeted: Option<usize>,
) -> ClusterError {
    let request = write_request(version, filter, update, upsert, multi);
    let key = format_bson_obj(&pattern.to_pattern_document());
    if let Some(n) = targeted {
        return ClusterError::InvalidOptions(format!(
            "A {{multi:false}} update on a sharded collection must contain an exact match on _id (and have the collection default collation) or target a single shard (and have the simple collation), but this update targeted {n} shards. Update request: {request}, shard key pattern: {key}"
        ));
    }
    if upsert && version == VersionMode::V36 {
        return ClusterError::ShardKeyNotFound(format!(
            "An upsert on a sharded collection must contain the shard key and have the simple collation. Update request: {request}, shard key pattern: {key}"
        ));
    }
    if upsert {
        // targetByShardKey's uassert on an empty key, under uassertStatusOKWithContext's
        // message.
        return ClusterError::ShardKeyNotFound(
            "Failed to target upsert by query :: could not extract exact shard key".into(),
        );
    }
    let (what, name) = match update {
        Some(_) => ("update", "Update"),
        None => ("delete", "Delete"),
    };
    ClusterError::ShardKeyNotFound(format!(
        "A single {what} on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). {name} request: {request}, shard key pattern: {key}"
    ))
}

/// 3.6 keeps the shard key immutable (4.2 made it mutable, spec §9): the shard's update
/// refuses a change to it as it refuses one to `_id`. An operator update names the path it
/// took (modifier_node.cpp, checkImmutablePathsNotModified), a replacement the new value or
/// the original document (object_replace_node.cpp, ObjectReplaceNode::apply).
fn immutable_key_error(
    pattern: &KeyPattern,
    update: &Document,
    old_doc: &Document,
    new_doc: &Document,
) -> ClusterError {
    let changed = pattern
        .fields()
        .iter()
        .map(|(f, _)| f.as_str())
        .find(|f| path_value(old_doc, f) != path_value(new_doc, f))
        .unwrap_or_default();
    if is_op_style(update) {
        let touches = |p: &str| {
            p == changed
                || p.starts_with(&format!("{changed}."))
                || changed.starts_with(&format!("{p}."))
        };
        let path = update
            .values()
            .filter_map(Bson::as_document)
            .flat_map(Document::keys)
            .find(|p| touches(p))
            .map_or(changed, String::as_str);
        return ClusterError::ImmutableField(format!(
            "Performing an update on the path '{path}' would modify the immutable field '{changed}'"
        ));
    }
    match path_value(new_doc, changed) {
        Some(v) => ClusterError::ImmutableField(format!(
            "After applying the update, the (immutable) field '{changed}' was found to have been altered to {}",
            crate::keys::shard_key::format_bson_element(changed, v)
        )),
        None => ClusterError::ImmutableField(format!(
            "After applying the update, the '{changed}' (required and immutable) field was found to have been removed --{}",
            format_bson_obj(old_doc)
        )),
    }
}
