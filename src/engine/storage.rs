//! What each shard's storage engine reports about a collection: the numbers behind
//! `collStats`, `$collStats`' `storageStats` and `dbStats`.
//!
//! ShardLab keeps every document's BSON bytes, so the numbers a storage engine counts
//! exactly are exact here: a collection's documents on a shard (`count`) and their BSON
//! size (`size`, `dataSize`; `avgObjSize` is the one divided by the other). What a real
//! shard measures on disk depends on WiredTiger's pages, compression and free space,
//! which ShardLab does not have. Those sizes are modelled, plainly and the same way
//! everywhere, and nothing else is claimed for them:
//!
//! - **A file is whole blocks.** WiredTiger allocates a table's file in blocks of
//!   [`BLOCK_BYTES`] (its `allocation_size`, 4 KiB), and an empty table already takes one.
//!   A size here is one block plus the bytes it stores rounded up to whole blocks
//!   ([`file_bytes`]); nothing is compressed and no space is free (`freeStorageSize` 0).
//! - **A collection's file** (`storageSize`) stores its documents' BSON bytes.
//! - **An index's file** (`indexSizes`) stores one entry per document: its key as a BSON
//!   document of the indexed values under empty names (what an index key was before
//!   `KeyString`; a missing field counts as `null`, a hashed field as the 64-bit hash, an
//!   array as the whole array: ShardLab does not model multikey entries), plus
//!   [`RECORD_ID_BYTES`] for the record id the entry points to.
//! - **Which shards hold a collection**: the shards owning its chunks, and its
//!   database's primary shard, where `shardCollection` created it; an unsharded
//!   collection lives on the primary only. (A shard whose last chunk left keeps an empty
//!   collection in MongoDB; ShardLab does not remember it.) Every one of those shards has
//!   every index of the collection.
//! - **No engine details.** The `wiredTiger` section of `collStats` and the index
//!   details are WiredTiger's own counters: ShardLab reports none (`indexDetails` is
//!   empty), and no filesystem either (`dbStats` has no `fsUsedSize`/`fsTotalSize` per
//!   shard, as an in-memory engine's answer has none).

use crate::engine::chunks::ShardIdx;
use crate::engine::cluster::{Cluster, ClusterError, Collection};
use crate::values::path::{walk_path, PathEnd};
use bson::{Bson, Document, RawBsonRef, RawDocument};

/// WiredTiger's `allocation_size`: the unit a table's file grows by.
pub const BLOCK_BYTES: u64 = 4096;

/// What one index entry spends on the record id it points to.
pub const RECORD_ID_BYTES: u64 = 8;

/// The bytes a file storing `stored` bytes takes: one block, plus the bytes rounded up to
/// whole blocks.
pub fn file_bytes(stored: u64) -> u64 {
    BLOCK_BYTES.saturating_mul(1 + stored.div_ceil(BLOCK_BYTES))
}

/// One collection as one shard's storage engine holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardCollectionStorage {
    /// The shard.
    pub shard: ShardIdx,
    /// The documents on the shard.
    pub docs: u64,
    /// Their BSON bytes.
    pub data_bytes: u64,
    /// The collection's file (see the module's model).
    pub storage_bytes: u64,
    /// Each index's name and file bytes, `_id_` first, then in creation order.
    pub indexes: Vec<(String, u64)>,
}

impl ShardCollectionStorage {
    /// The bytes of all the collection's indexes on the shard.
    pub fn index_bytes(&self) -> u64 {
        self.indexes.iter().map(|(_, b)| *b).sum()
    }

    /// `averageObjectSize`: the data bytes over the documents, rounded down (0 when empty).
    pub fn avg_obj_size(&self) -> u64 {
        self.data_bytes.checked_div(self.docs).unwrap_or(0)
    }
}

impl Cluster {
    /// The shards that hold collection `ns` (see the module's model), in shard order.
    pub fn shards_holding(&self, ns: &str) -> Vec<ShardIdx> {
        let Some(coll) = self.collections.get(ns) else {
            return Vec::new();
        };
        let primary = self.primary_of(ns);
        let mut out: Vec<ShardIdx> = vec![primary];
        if let Some(s) = &coll.sharding {
            out.extend(s.table.iter().map(|c| c.shard));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The shards owning chunks of `ns` (the primary shard for an unsharded collection),
    /// in shard order: where mongos sends `collStats` and `$collStats`.
    pub fn shards_owning(&self, ns: &str) -> Vec<ShardIdx> {
        let Some(coll) = self.collections.get(ns) else {
            return Vec::new();
        };
        let mut out: Vec<ShardIdx> = match &coll.sharding {
            Some(s) => s.table.iter().map(|c| c.shard).collect(),
            None => vec![self.primary_of(ns)],
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Collection `ns` on each of `shards`, measured as the module describes. Reading
    /// every document once per index is charged to the statement's budget.
    pub fn collection_storage(
        &self,
        ns: &str,
        shards: &[ShardIdx],
    ) -> Result<Vec<ShardCollectionStorage>, ClusterError> {
        let Some(coll) = self.collections.get(ns) else {
            return Ok(Vec::new());
        };
        let mut patterns = vec![bson::doc! { "_id": 1 }];
        patterns.extend(coll.indexes.iter().cloned());
        let names: Vec<String> = std::iter::once("_id_".to_string())
            .chain(coll.indexes.iter().map(|k| coll.index_name_of(k)))
            .collect();
        let mut out: Vec<ShardCollectionStorage> = shards
            .iter()
            .map(|&shard| ShardCollectionStorage {
                shard,
                docs: 0,
                data_bytes: 0,
                storage_bytes: 0,
                indexes: Vec::new(),
            })
            .collect();
        let mut entry_bytes: Vec<Vec<u64>> = vec![vec![0; patterns.len()]; shards.len()];
        crate::support::budget::charge(coll.docs.len() as u64 * patterns.len() as u64)
            .map_err(ClusterError::from)?;
        for_each_document(self, ns, coll, |shard, raw, size| {
            let Some(at) = shards.iter().position(|s| *s == shard) else {
                return;
            };
            out[at].docs += 1;
            out[at].data_bytes += u64::from(size);
            for (i, pattern) in patterns.iter().enumerate() {
                entry_bytes[at][i] += key_bytes(raw, pattern) + RECORD_ID_BYTES;
            }
        });
        for (st, entries) in out.iter_mut().zip(entry_bytes) {
            st.storage_bytes = file_bytes(st.data_bytes);
            st.indexes = names
                .iter()
                .zip(entries)
                .map(|(name, bytes)| (name.clone(), file_bytes(bytes)))
                .collect();
        }
        Ok(out)
    }
}

/// Calls `f` with the shard, raw bytes and size of every document of `ns`, the chunks'
/// documents on their chunk's shard, an unsharded collection's on the primary.
fn for_each_document(
    cluster: &Cluster,
    ns: &str,
    coll: &Collection,
    mut f: impl FnMut(ShardIdx, &RawDocument, u32),
) {
    match &coll.sharding {
        Some(s) => {
            for c in s.table.iter() {
                for (_, stored) in crate::engine::store::range(&coll.docs, &c.min, &c.max) {
                    f(c.shard, stored.raw(), stored.size());
                }
            }
        }
        None => {
            let primary = cluster.primary_of(ns);
            for stored in coll.docs.values() {
                f(primary, stored.raw(), stored.size());
            }
        }
    }
}

/// The BSON size of a document's key in the index on `pattern`: a document of the
/// indexed values under empty names (see the module's model).
fn key_bytes(doc: &RawDocument, pattern: &Document) -> u64 {
    // The document's length and its terminating byte.
    let mut bytes = 5;
    for (field, kind) in pattern {
        // Each element: its type byte and an empty name's terminating byte.
        bytes += 2;
        if matches!(kind, Bson::String(s) if s == "hashed") {
            bytes += 8;
            continue;
        }
        if let PathEnd::Found(v) = walk_path(doc, field) {
            bytes += raw_value_len(v);
        }
    }
    bytes
}

/// The encoded length of a raw BSON value (without its type byte and name).
fn raw_value_len(v: RawBsonRef<'_>) -> u64 {
    let string = |s: &str| 4 + s.len() as u64 + 1;
    match v {
        RawBsonRef::Double(_)
        | RawBsonRef::DateTime(_)
        | RawBsonRef::Timestamp(_)
        | RawBsonRef::Int64(_) => 8,
        RawBsonRef::Int32(_) => 4,
        RawBsonRef::Boolean(_) => 1,
        RawBsonRef::ObjectId(_) => 12,
        RawBsonRef::Decimal128(_) => 16,
        RawBsonRef::String(s) | RawBsonRef::Symbol(s) | RawBsonRef::JavaScriptCode(s) => string(s),
        RawBsonRef::Document(d) => d.as_bytes().len() as u64,
        RawBsonRef::Array(a) => a.as_bytes().len() as u64,
        RawBsonRef::Binary(b) => 4 + 1 + b.bytes.len() as u64,
        RawBsonRef::RegularExpression(r) => {
            r.pattern.as_str().len() as u64 + 1 + r.options.as_str().len() as u64 + 1
        }
        RawBsonRef::JavaScriptCodeWithScope(c) => {
            4 + string(c.code) + c.scope.as_bytes().len() as u64
        }
        RawBsonRef::DbPointer(_) => {
            // The namespace is not reachable through `bson`'s raw pointer; count it as
            // the value's fixed part (length, terminator and ObjectId).
            4 + 1 + 12
        }
        RawBsonRef::Null | RawBsonRef::Undefined | RawBsonRef::MinKey | RawBsonRef::MaxKey => 0,
    }
}
