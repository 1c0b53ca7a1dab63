//! The document inspector: a chunk's documents, a page at a time, in the chunk's key
//! order, each with its `_id`, its shard key value and, for a hashed key, the value that
//! was hashed beside the hash.
//!
//! A page costs what it shows: the store keeps documents in key order in leaves of at most
//! 32 entries, so a page is read by position ([`crate::support::shared_map::Slices`]) after
//! one search for the chunk's range; nothing is sorted and nothing before `skip` is read.

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{not_sharded, Cluster, ClusterError};
use crate::engine::explain::Landing;
use crate::engine::store::DocKey;
use crate::keys::shard_key::KeyValue;
use bson::Bson;

/// The most documents one page may hold.
pub const MAX_PAGE_DOCS: u64 = 1000;

/// One document of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct DocRow {
    /// The document's `_id`.
    pub id: Bson,
    /// Its shard key value (the hashed field holds the hash).
    pub key: KeyValue,
    /// For a hashed key, the hashed field's value in the document (null when missing).
    pub hashed_value: Option<Bson>,
    /// The document's insertion number in its collection (the one its collection's
    /// record of recent inserts gives it).
    pub seq: u64,
}

/// A page of a chunk's documents.
#[derive(Debug, Clone, PartialEq)]
pub struct DocPage {
    /// The chunk's lower bound.
    pub min: KeyValue,
    /// The chunk's upper bound.
    pub max: KeyValue,
    /// The chunk's shard.
    pub shard: ShardIdx,
    /// The position of the hashed field in the key, if the key is hashed.
    pub hashed_field: Option<usize>,
    /// The documents in the chunk.
    pub total: u64,
    /// How many were skipped before this page.
    pub skip: u64,
    /// The page, in key order (documents with equal keys in insertion order).
    pub rows: Vec<DocRow>,
}

impl Cluster {
    /// The documents `skip..skip + limit` of the chunk of `ns` that contains `key` (a key
    /// value in key space, such as the chunk's lower bound), in key order. `limit` is at
    /// most [`MAX_PAGE_DOCS`]; a `skip` past the end gives an empty page.
    pub fn chunk_documents(
        &self,
        ns: &str,
        key: &KeyValue,
        skip: u64,
        limit: u64,
    ) -> Result<DocPage, ClusterError> {
        if limit > MAX_PAGE_DOCS {
            return Err(ClusterError::BadValue(format!(
                "limit must be between 0 and {MAX_PAGE_DOCS}, got {limit}"
            )));
        }
        let (s, chunk) = self.chunk_at(ns, key)?;
        let coll = self.collections.get(ns).ok_or_else(|| not_sharded(ns))?;
        let slices = crate::engine::store::range(&coll.docs, &chunk.min, &chunk.max).slices();
        let total = slices.len() as u64;
        let hashed_field = s.pattern.hashed_index();
        let hashed_name = hashed_field
            .and_then(|i| s.pattern.fields().get(i))
            .map(|(n, _)| n);
        let start = skip.min(total);
        let end = start.saturating_add(limit).min(total);
        let mut rows = Vec::with_capacity((end - start) as usize);
        for i in start..end {
            let Some(((k, seq), stored)) = slices.get(i as usize) else {
                break;
            };
            let hashed_value = hashed_name.map(|name| {
                crate::values::path::lookup_path(&stored.doc(), name)
                    .cloned()
                    .unwrap_or(Bson::Null)
            });
            rows.push(DocRow {
                id: stored.id().to_bson(),
                key: k.to_key(),
                hashed_value,
                seq: *seq,
            });
        }
        Ok(DocPage {
            min: chunk.min.clone(),
            max: chunk.max.clone(),
            shard: chunk.shard,
            hashed_field,
            total,
            skip,
            rows,
        })
    }

    /// Where the document inserted `seq`-th with shard key `key` sits in its chunk of `ns`:
    /// the chunk's lower bound and the document's position in the chunk's key order (the
    /// `skip` of [`Cluster::chunk_documents`] that starts at it). `None` when no such
    /// document is stored.
    pub fn document_position(&self, ns: &str, key: &KeyValue, seq: u64) -> Option<(KeyValue, u64)> {
        let (_, chunk) = self.chunk_at(ns, key).ok()?;
        let coll = self.collections.get(ns)?;
        let at = (DocKey::of(key), seq);
        coll.docs.get(&at)?;
        let before = coll
            .docs
            .range((DocKey::of(&chunk.min), 0)..at)
            .slices()
            .len() as u64;
        Some((chunk.min, before))
    }

    /// Where the document inserted `seq`-th sits in the chunk of `ns` holding `key`, found
    /// by its insertion number alone (a view names a chunk by its lower bound and a
    /// document by its number): the chunk's lower bound and the document's position in the
    /// chunk's key order. `None` when the chunk holds no such document. It reads the
    /// chunk's documents once.
    pub fn position_in_chunk(&self, ns: &str, key: &KeyValue, seq: u64) -> Option<(KeyValue, u64)> {
        let (_, chunk) = self.chunk_at(ns, key).ok()?;
        let coll = self.collections.get(ns)?;
        let at = crate::engine::store::range(&coll.docs, &chunk.min, &chunk.max)
            .position(|entry| entry.0 .1 == seq)?;
        Some((chunk.min, at as u64))
    }

    /// Where the newest document of `ns` landed ([`Cluster::explain_document`]), with its
    /// insertion number. `None` when `ns` has no documents inserted since it was last
    /// emptied, or the newest one is gone (deleted or moved by an update).
    pub fn latest_landing(&self, ns: &str) -> Option<(u64, Result<Landing, ClusterError>)> {
        let (seq, _, doc) = self.collections.get(ns)?.latest_insert()?;
        Some((seq, self.explain_document(ns, &doc)))
    }
}
