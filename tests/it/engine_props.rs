//! Invariants of the cluster engine under any sequence of operations (spec §5-§7): the
//! chunks tile the key space, every document sits in the chunk that covers its key on
//! that chunk's shard, no document is lost or duplicated, and the same operations give
//! the same cluster. Errors from operations are fine; panics are not.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use proptest::prelude::*;
use shardlab::{Cluster, ClusterConfig, VersionMode};

const NS: &str = "test.c";

/// A shard key value of a generated document.
#[derive(Debug, Clone)]
enum Key {
    Int(i64),
    Str(u8),
    Missing,
    /// MinKey and MaxKey as shard key values: MinKey routes to the first chunk, MaxKey
    /// (the global maximum of a one-field key) is refused, and neither may be lost.
    Min,
    Max,
}

/// One generated document: its key, a second field and a padding length; `id` is an
/// explicit `_id` from a small range (so duplicates happen), or none for an ObjectId.
#[derive(Debug, Clone)]
struct Doc {
    key: Key,
    j: i64,
    pad: usize,
    id: Option<i64>,
}

/// The shard keys `reshardCollection` may switch to.
const RESHARD_KEYS: [&str; 4] = ["k1", "j1", "khashed", "j1k1"];

#[derive(Debug, Clone)]
enum Op {
    Insert(Vec<Doc>),
    SplitAt(i64),
    /// `splitAt` at the key space's ends, MinKey (`false`) or MaxKey (`true`): refused.
    SplitAtEnd(bool),
    /// Sets the first key field of the `n`-th document to MinKey or MaxKey.
    UpdateKeyToEnd(usize, bool),
    MoveChunk(i64, u32),
    Merge(usize, usize),
    Balance(u8),
    Version(VersionMode),
    ChunkSize(u64),
    /// Changes the first shard key field of the `n`-th document to a new value, with a
    /// filter on the full shard key.
    UpdateKey(usize, i64),
    Delete(i64, bool),
    Refine,
    Reshard(usize),
    AddShard,
    RemoveShard(u32),
    MovePrimary(u32),
    AddToZone(u32, bool),
    ZoneRange(i64, i64, Option<bool>),
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![
        6 => (-40i64..40).prop_map(Key::Int),
        2 => (0u8..6).prop_map(Key::Str),
        1 => Just(Key::Missing),
        1 => Just(Key::Min),
        1 => Just(Key::Max),
    ]
}

fn document() -> impl Strategy<Value = Doc> {
    (
        key(),
        -3i64..3,
        0usize..80,
        prop_oneof![3 => Just(None), 1 => (0i64..30).prop_map(Some)],
    )
        .prop_map(|(key, j, pad, id)| Doc { key, j, pad, id })
}

fn version() -> impl Strategy<Value = VersionMode> {
    prop_oneof![
        Just(VersionMode::V36),
        Just(VersionMode::V50),
        Just(VersionMode::V80)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => prop::collection::vec(document(), 1..25).prop_map(Op::Insert),
        2 => (-40i64..40).prop_map(Op::SplitAt),
        1 => any::<bool>().prop_map(Op::SplitAtEnd),
        1 => ((0usize..500), any::<bool>()).prop_map(|(n, m)| Op::UpdateKeyToEnd(n, m)),
        2 => ((-40i64..40), 0u32..5).prop_map(|(k, s)| Op::MoveChunk(k, s)),
        1 => ((0usize..20), 1usize..4).prop_map(|(a, n)| Op::Merge(a, n)),
        3 => (1u8..4).prop_map(Op::Balance),
        1 => version().prop_map(Op::Version),
        1 => (1024u64..8192).prop_map(Op::ChunkSize),
        2 => ((0usize..500), -40i64..40).prop_map(|(n, v)| Op::UpdateKey(n, v)),
        2 => ((-40i64..40), any::<bool>()).prop_map(|(k, m)| Op::Delete(k, m)),
        1 => Just(Op::Refine),
        1 => (0usize..RESHARD_KEYS.len()).prop_map(Op::Reshard),
        1 => Just(Op::AddShard),
        1 => (0u32..5).prop_map(Op::RemoveShard),
        1 => (0u32..5).prop_map(Op::MovePrimary),
        1 => ((0u32..5), any::<bool>()).prop_map(|(s, z)| Op::AddToZone(s, z)),
        1 => ((-40i64..40), (1i64..30), prop::option::of(any::<bool>()))
            .prop_map(|(lo, w, z)| Op::ZoneRange(lo, lo + w, z)),
    ]
}

/// The starting point: shards, version, chunk size, seed, and a ranged or hashed key.
#[derive(Debug, Clone)]
struct Setup {
    shards: u32,
    version: VersionMode,
    chunk_size: u64,
    seed: u64,
    hashed: bool,
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        1u32..5,
        version(),
        1024u64..6144,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(shards, version, chunk_size, seed, hashed)| Setup {
            shards,
            version,
            chunk_size,
            seed,
            hashed,
        })
}

/// A cluster under test and the number of documents it must hold.
struct Run {
    cluster: Cluster,
    expected: u64,
}

fn to_bson(key: &Key) -> Option<Bson> {
    match key {
        Key::Int(i) => Some(Bson::Int64(*i)),
        Key::Str(s) => Some(Bson::String(format!("s{s}"))),
        Key::Missing => None,
        Key::Min => Some(Bson::MinKey),
        Key::Max => Some(Bson::MaxKey),
    }
}

/// The name of the `i`-th shard ever added (it may be removed or missing: the error path
/// is part of what is tested).
fn shard(i: u32) -> String {
    format!("shard{:02}", i + 1)
}

fn zone_name(first: bool) -> &'static str {
    if first {
        "east"
    } else {
        "west"
    }
}

impl Run {
    fn new(s: &Setup) -> Self {
        let mut cluster = Cluster::new(ClusterConfig {
            shards: s.shards,
            version: s.version,
            chunk_size: Some(s.chunk_size),
            seed: s.seed,
        });
        let key = if s.hashed {
            doc! { "k": "hashed" }
        } else {
            doc! { "k": 1 }
        };
        cluster.shard_collection(NS, &key, false, None).unwrap();
        Run {
            cluster,
            expected: 0,
        }
    }

    /// The current shard key's field names.
    fn key_fields(&self) -> Vec<String> {
        let s = self.cluster.sharding(NS).unwrap();
        s.pattern.fields().iter().map(|(f, _)| f.clone()).collect()
    }

    fn apply(&mut self, op: &Op) {
        let c = &mut self.cluster;
        match op {
            Op::Insert(docs) => {
                let docs: Vec<Document> = docs
                    .iter()
                    .map(|d| {
                        let mut out = Document::new();
                        if let Some(id) = d.id {
                            out.insert("_id", id);
                        }
                        if let Some(k) = to_bson(&d.key) {
                            out.insert("k", k);
                        }
                        out.insert("j", d.j);
                        out.insert("pad", "p".repeat(d.pad));
                        out
                    })
                    .collect();
                let inserted = match c.insert_many(NS, docs) {
                    Ok(ids) => ids.len(),
                    Err((ids, _)) => ids.len(),
                };
                self.expected += inserted as u64;
            }
            Op::SplitAt(k) => {
                let bound = self.bound(*k);
                let _ = self.cluster.split_at(NS, &bound);
            }
            Op::SplitAtEnd(max) => {
                let end = if *max { Bson::MaxKey } else { Bson::MinKey };
                let bound: Document = self
                    .key_fields()
                    .into_iter()
                    .map(|f| (f, end.clone()))
                    .collect();
                let before = self.cluster.sharding(NS).unwrap().table.len();
                assert!(
                    self.cluster.split_at(NS, &bound).is_err(),
                    "split at {bound}"
                );
                assert_eq!(self.cluster.sharding(NS).unwrap().table.len(), before);
            }
            Op::UpdateKeyToEnd(n, max) => {
                self.update_key(*n, if *max { Bson::MaxKey } else { Bson::MinKey })
            }
            Op::MoveChunk(k, s) => {
                let find = self.bound(*k);
                let to = shard(*s);
                let _ = self.cluster.move_chunk(NS, &find, &to);
            }
            Op::Merge(a, n) => {
                let s = c.sharding(NS).unwrap();
                let chunks: Vec<_> = s.table.iter().collect();
                if chunks.is_empty() {
                    return;
                }
                let first = a % chunks.len();
                let last = (first + n).min(chunks.len() - 1);
                let lo = s.pattern.to_document(&chunks[first].min);
                let hi = s.pattern.to_document(&chunks[last].max);
                let _ = c.merge_chunks(NS, &lo, &hi);
            }
            Op::Balance(n) => {
                for _ in 0..*n {
                    c.balance_round();
                }
            }
            Op::Version(v) => c.set_version(*v),
            Op::ChunkSize(b) => c.set_chunk_size(*b).unwrap(),
            Op::UpdateKey(n, v) => self.update_key(*n, Bson::Int64(*v)),
            Op::Delete(k, multi) => {
                if let Ok(n) = c.delete(NS, &doc! { "k": *k }, *multi) {
                    self.expected -= n;
                }
            }
            Op::Refine => {
                let mut key = c.sharding(NS).unwrap().pattern.to_pattern_document();
                key.insert(format!("r{}", key.len()), 1);
                c.create_index(NS, &key).unwrap();
                let _ = c.refine_shard_key(NS, &key);
            }
            Op::Reshard(i) => {
                let key = match RESHARD_KEYS[*i] {
                    "k1" => doc! { "k": 1 },
                    "j1" => doc! { "j": 1 },
                    "khashed" => doc! { "k": "hashed" },
                    _ => doc! { "j": 1, "k": 1 },
                };
                let _ = c.reshard_collection(NS, &key);
            }
            Op::AddShard => {
                c.add_shard();
            }
            Op::RemoveShard(s) => {
                // removeShard is called again after each balancer round, as an operator
                // would, until it completes or gives up; invariants hold at every step.
                let name = shard(*s);
                for _ in 0..12 {
                    match self.cluster.remove_shard(&name) {
                        Ok(shardlab::engine::RemoveShardState::Completed) | Err(_) => break,
                        Ok(_) => {}
                    }
                    self.cluster.balance_round();
                    self.invariants().unwrap();
                }
            }
            Op::MovePrimary(s) => {
                let to = shard(*s);
                let _ = c.move_primary("test", &to);
            }
            Op::AddToZone(s, z) => {
                let name = shard(*s);
                let _ = c.add_shard_to_zone(&name, zone_name(*z));
            }
            Op::ZoneRange(lo, hi, z) => {
                let (lo, hi) = (self.bound(*lo), self.bound(*hi));
                let _ = self
                    .cluster
                    .update_zone_key_range(NS, &lo, &hi, z.map(zone_name));
            }
        }
    }

    /// Sets the first shard key field of the `n`-th document (modulo the count) to
    /// `value`, with a filter on the full shard key.
    fn update_key(&mut self, n: usize, value: Bson) {
        let coll = self.cluster.collection(NS).unwrap();
        let count = coll.doc_count() as usize;
        if count == 0 {
            return;
        }
        let target = coll.documents().nth(n % count).unwrap().clone();
        let fields = self.key_fields();
        let mut filter = Document::new();
        for f in &fields {
            filter.insert(f.clone(), target.get(f).cloned().unwrap_or(Bson::Null));
        }
        let update = doc! { "$set": { fields[0].clone(): value } };
        let _ = self.cluster.update(NS, &filter, &update, false);
    }

    /// A full key bound for the current shard key: `k` (or the first field) is `v`, later
    /// fields are MinKey. For a hashed field the bound is the hash value itself.
    fn bound(&self, v: i64) -> Document {
        let mut out = Document::new();
        for (i, f) in self.key_fields().into_iter().enumerate() {
            out.insert(f, if i == 0 { Bson::Int64(v) } else { Bson::MinKey });
        }
        out
    }

    /// The invariants: the engine's own check (chunks tile the key space, chunk counts
    /// match their documents, documents stored under their key, chunks on live shards,
    /// `_id` index complete), plus the document count and a scatter-gather find that sees
    /// every document exactly once.
    fn invariants(&self) -> Result<(), String> {
        let c = &self.cluster;
        c.check()?;
        let coll = c.collection(NS).ok_or("collection vanished")?;
        if coll.doc_count() != self.expected {
            return Err(format!(
                "{} documents stored, {} expected",
                coll.doc_count(),
                self.expected
            ));
        }
        let s = c.sharding(NS).map_err(|e| e.to_string())?;
        for (key, _, doc) in coll.entries() {
            let chunk = s.table.chunk_for(&key).ok_or("no chunk for a key")?;
            if chunk.min > key || key >= chunk.max {
                return Err(format!("{doc} is outside its chunk"));
            }
            let shard = &c.all_shards()[chunk.shard as usize];
            if shard.removed {
                return Err(format!("{doc} is on removed shard {}", shard.name));
            }
            if c.shard_for_key(NS, &key) != chunk.shard {
                return Err(format!("{doc} routes to a shard other than its chunk's"));
            }
        }
        let stats: u64 = c.shard_stats(NS).iter().map(|st| st.docs).sum();
        if stats != self.expected {
            return Err(format!("shard stats count {stats} documents"));
        }
        let (found, _) = c.find(NS, &Document::new()).map_err(|e| e.to_string())?;
        if found.len() as u64 != self.expected {
            return Err(format!("a full scan finds {} documents", found.len()));
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn any_operation_sequence_keeps_the_invariants(
        s in setup(),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let mut run = Run::new(&s);
        for (i, op) in ops.iter().enumerate() {
            run.apply(op);
            if let Err(e) = run.invariants() {
                return Err(TestCaseError::fail(format!("after op {i} {op:?}: {e}")));
            }
        }
    }

    #[test]
    fn the_same_operations_give_the_same_cluster(
        s in setup(),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let state = |s: &Setup| {
            let mut run = Run::new(s);
            for op in &ops {
                run.apply(op);
            }
            format!("{:?}", run.cluster)
        };
        prop_assert_eq!(state(&s), state(&s));
    }
}

/// Any BSON value, nested a few levels, with field names that may hold a NUL byte.
fn bson_value() -> impl Strategy<Value = Bson> {
    use bson::spec::BinarySubtype;
    let leaf = prop_oneof![
        any::<f64>().prop_map(Bson::Double),
        ".{0,12}".prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::Undefined),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(bson::oid::ObjectId::from_bytes(b))),
        any::<i64>().prop_map(|t| Bson::DateTime(bson::DateTime::from_millis(t))),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(bson::Timestamp { time, increment })),
        any::<[u8; 16]>().prop_map(|b| Bson::Decimal128(bson::Decimal128::from_bytes(b))),
        "[a-z]{0,8}".prop_map(Bson::JavaScriptCode),
        "[a-z]{0,8}".prop_map(Bson::Symbol),
        ("[a-z.*]{0,8}", "[imsx]{0,3}").prop_map(|(p, o)| {
            Bson::RegularExpression(bson::Regex {
                pattern: p.try_into().unwrap(),
                options: o.try_into().unwrap(),
            })
        }),
        (
            prop_oneof![
                Just(BinarySubtype::Generic),
                Just(BinarySubtype::BinaryOld),
                Just(BinarySubtype::Uuid),
                Just(BinarySubtype::UserDefined(0x80)),
            ],
            prop::collection::vec(any::<u8>(), 0..20)
        )
            .prop_map(|(subtype, bytes)| Bson::Binary(bson::Binary { subtype, bytes })),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Bson::Array),
            prop::collection::vec(("[a-z\0]{0,4}", inner.clone()), 0..6)
                .prop_map(|fields| Bson::Document(fields.into_iter().collect())),
            (
                "[a-z]{0,6}",
                prop::collection::vec(("[a-z]{1,3}", inner), 0..3)
            )
                .prop_map(|(code, scope)| {
                    Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                        code,
                        scope: scope.into_iter().collect(),
                    })
                }),
        ]
    })
}

proptest! {
#![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

/// The engine stores documents as their BSON encoding: a collection's data size is the
/// encoder's length, and a document the encoder refuses (a NUL in a field name) is
/// refused, not stored.
#[test]
fn stored_size_is_the_encoded_length(
    fields in prop::collection::vec(("[a-z_\0]{0,5}", bson_value()), 0..8),
) {
    let mut doc = bson::doc! { "_id": 1 };
    doc.extend(fields.into_iter().filter(|(k, _)| k != "_id"));
    let encoded = doc.to_vec().map_or(0, |b| b.len() as u64);
    let mut cluster = Cluster::new(ClusterConfig::default());
    let inserted = cluster.insert_many("test.sizes", [&doc]).is_ok();
    prop_assert_eq!(inserted, encoded > 0);
    let stored = cluster.collection("test.sizes").map_or(0, |c| c.data_size());
    prop_assert_eq!(stored, encoded);
}}
