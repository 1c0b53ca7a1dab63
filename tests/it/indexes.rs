//! Indexes that are used: a shard reads the shard key index for an equality or a range on
//! the key, the `_id` index for one on `_id`, and scans otherwise; `explain()` reports each
//! shard's plan as MongoDB's does; and whatever the index, a query finds exactly what a
//! scan of every document would, in the same order.
//!
//! The plan shapes follow `statsToBSON` (src/mongo/db/query/plan_explainer_impl.cpp):
//! `FETCH` (its `filter` the part of the query the bounds do not answer) over `IXSCAN`
//! with `keyPattern`, `indexName`, `isMultiKey`, `multiKeyPaths`, `isUnique`,
//! `isSparse`, `isPartial`, `indexVersion`, `direction` and `indexBounds`, each bound as
//! `Interval::toString` prints it (src/mongo/db/query/interval.cpp); `COLLSCAN` with its
//! `filter` and `direction`; a query on `_id` alone is `IDHACK` (`IDHackStage`,
//! src/mongo/db/query/get_executor.cpp) up to 7.x and 8.0's express path
//! (src/mongo/db/query/plan_explainer_express.cpp) after; a sharded collection's reads
//! filter out orphans with `SHARDING_FILTER` where the planner puts it.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use expect_test::{expect, Expect};
use proptest::prelude::*;
use shardlab::engine::{Chunk, ChunkVersion};
use shardlab::keys::KeyValue;
use shardlab::{Cluster, ClusterConfig, VersionMode};

/// Runs a script and prints each statement that printed something, with its result.
fn transcript(script: &str) -> String {
    super::transcripts::of(script, Default::default())
}

fn check(script: &str, expected: Expect) {
    expected.assert_eq(&transcript(script));
}

/// An equality and a range on the shard key read its index (`x_1`), with the rest of the
/// filter left to `FETCH`; a filter without the key scans.
#[test]
fn the_shard_key_index_answers_equalities_and_ranges() {
    check(
        r#"
        sh.shardCollection("test.u", {x: 1})
        db.u.insertMany([{_id: 1, x: 5, y: 1}, {_id: 2, x: 15, y: 3}, {_id: 3, x: 25, y: 3}])
        db.u.find({x: 15}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        db.u.find({x: {$gte: 10, $lt: 20}, y: 3}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        db.u.find({x: {$in: [5, 25]}})
        db.u.find({x: {$in: [5, 25]}}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage.inputStage.indexBounds
        db.u.find({x: null}).explain().queryPlanner.winningPlan.shards[0].winningPlan.filter
        db.u.find({y: 3}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        db.u.find({y: 3})
        "#,
        expect![[r#"
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > db.u.insertMany([{_id: 1, x: 5, y: 1}, {_id: 2, x: 15, y: 3}, {_id: 3, x: 25, y: 3}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3 } }
            > db.u.find({x: 15}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              stage: 'FETCH',
              inputStage: {
                stage: 'IXSCAN',
                keyPattern: { x: 1 },
                indexName: 'x_1',
                isMultiKey: false,
                multiKeyPaths: { x: [] },
                isUnique: false,
                isSparse: false,
                isPartial: false,
                indexVersion: 2,
                direction: 'forward',
                indexBounds: { x: [ '[15, 15]' ] }
              }
            }
            > db.u.find({x: {$gte: 10, $lt: 20}, y: 3}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              stage: 'SHARDING_FILTER',
              inputStage: {
                stage: 'FETCH',
                filter: { y: { '$eq': 3 } },
                inputStage: {
                  stage: 'IXSCAN',
                  keyPattern: { x: 1 },
                  indexName: 'x_1',
                  isMultiKey: false,
                  multiKeyPaths: { x: [] },
                  isUnique: false,
                  isSparse: false,
                  isPartial: false,
                  indexVersion: 2,
                  direction: 'forward',
                  indexBounds: { x: [ '[10, 20)' ] }
                }
              }
            }
            > db.u.find({x: {$in: [5, 25]}})
            [ { _id: 1, x: 5, y: 1 }, { _id: 3, x: 25, y: 3 } ]
            > db.u.find({x: {$in: [5, 25]}}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage.inputStage.indexBounds
            { x: [ '[5, 5]', '[25, 25]' ] }
            > db.u.find({x: null}).explain().queryPlanner.winningPlan.shards[0].winningPlan.filter
            { x: { '$eq': null } }
            > db.u.find({y: 3}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              stage: 'SHARDING_FILTER',
              inputStage: {
                stage: 'COLLSCAN',
                filter: { y: { '$eq': 3 } },
                direction: 'forward'
              }
            }
            > db.u.find({y: 3})
            [ { _id: 2, x: 15, y: 3 }, { _id: 3, x: 25, y: 3 } ]
        "#]],
    );
}

/// Each targeted shard reports its own plan: a range over two shards is an `IXSCAN` on
/// both, under mongos's `SHARD_MERGE`.
#[test]
fn every_targeted_shard_reports_an_index_scan() {
    check(
        r#"
        sh.shardCollection("test.u", {x: 1})
        sh.splitAt("test.u", {x: 100})
        sh.moveChunk("test.u", {x: 150}, "shard02")
        db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.stage
        db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[0].shardName
        db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[1].shardName
        db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[1].winningPlan.inputStage.inputStage.indexBounds
        "#,
        expect![[r#"
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > sh.splitAt("test.u", {x: 100})
            { ok: 1 }
            > sh.moveChunk("test.u", {x: 150}, "shard02")
            { millis: 0, ok: 1 }
            > db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.stage
            SHARD_MERGE
            > db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[0].shardName
            shard01
            > db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[1].shardName
            shard02
            > db.u.find({x: {$gt: 50}}).explain().queryPlanner.winningPlan.shards[1].winningPlan.inputStage.inputStage.indexBounds
            { x: [ '(50, inf.0]' ] }
        "#]],
    );
}

/// A hashed key's index (`x_hashed`) holds hashes: an equality reads the hash's point
/// and `FETCH` checks the value; no multikey paths are tracked for it. A compound key's
/// later fields are scanned whole when the filter leaves them free; a unique key's index
/// is unique.
#[test]
fn hashed_compound_and_unique_shard_key_indexes() {
    check(
        r#"
        sh.shardCollection("test.h", {x: "hashed"})
        db.h.find({x: 5}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        sh.shardCollection("test.c", {a: 1, b: 1}, true)
        db.c.find({a: 5}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage
        "#,
        expect![[r#"
            > sh.shardCollection("test.h", {x: "hashed"})
            { collectionsharded: 'test.h', ok: 1 }
            > db.h.find({x: 5}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              stage: 'FETCH',
              filter: { x: { '$eq': 5 } },
              inputStage: {
                stage: 'IXSCAN',
                keyPattern: { x: 'hashed' },
                indexName: 'x_hashed',
                isMultiKey: false,
                isUnique: false,
                isSparse: false,
                isPartial: false,
                indexVersion: 2,
                direction: 'forward',
                indexBounds: { x: [ '[4470791281878691347, 4470791281878691347]' ] }
              }
            }
            > sh.shardCollection("test.c", {a: 1, b: 1}, true)
            { collectionsharded: 'test.c', ok: 1 }
            > db.c.find({a: 5}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage
            {
              stage: 'SHARDING_FILTER',
              inputStage: {
                stage: 'IXSCAN',
                keyPattern: { a: 1, b: 1 },
                indexName: 'a_1_b_1',
                isMultiKey: false,
                multiKeyPaths: { a: [], b: [] },
                isUnique: true,
                isSparse: false,
                isPartial: false,
                indexVersion: 2,
                direction: 'forward',
                indexBounds: { a: [ '[5, 5]' ], b: [ '[MinKey, MaxKey]' ] }
              }
            }
        "#]],
    );
}

/// `_id` alone is `IDHACK` in 5.0 and the express path's `EXPRESS_IXSCAN` in 8.0; a
/// range on `_id` reads the `_id` index (`_id_`, unique) when the shard key is another
/// field.
#[test]
fn queries_on_id_read_the_id_index() {
    check(
        r#"
        sh.shardCollection("test.u", {x: 1})
        db.u.insertMany([{_id: 1, x: 5}, {_id: 7, x: 15}])
        db.u.find({_id: 7}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        db.u.find({_id: {$gt: 5}}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        db.u.find({_id: {$gt: 5}})
        sim.reset({version: '8.0'})
        sh.shardCollection("test.u", {x: 1})
        db.u.find({_id: 7}).explain().queryPlanner.winningPlan.shards[0].winningPlan
        "#,
        expect![[r#"
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > db.u.insertMany([{_id: 1, x: 5}, {_id: 7, x: 15}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 7 } }
            > db.u.find({_id: 7}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            { stage: 'SHARDING_FILTER', inputStage: { stage: 'IDHACK' } }
            > db.u.find({_id: {$gt: 5}}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              stage: 'SHARDING_FILTER',
              inputStage: {
                stage: 'FETCH',
                inputStage: {
                  stage: 'IXSCAN',
                  keyPattern: { _id: 1 },
                  indexName: '_id_',
                  isMultiKey: false,
                  multiKeyPaths: { _id: [] },
                  isUnique: true,
                  isSparse: false,
                  isPartial: false,
                  indexVersion: 2,
                  direction: 'forward',
                  indexBounds: { _id: [ '(5, inf.0]' ] }
                }
              }
            }
            > db.u.find({_id: {$gt: 5}})
            [ { _id: 7, x: 15 } ]
            > sim.reset({version: '8.0'})
            { ok: 1 }
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > db.u.find({_id: 7}).explain().queryPlanner.winningPlan.shards[0].winningPlan
            {
              isCached: false,
              stage: 'EXPRESS_IXSCAN',
              keyPattern: '{ _id: 1 }',
              indexName: '_id_'
            }
        "#]],
    );
}

/// A shard key value of a generated document: small integers (so that equalities hit),
/// a double equal to one of them, strings, null, or no key at all.
fn key_value() -> impl Strategy<Value = Option<Bson>> {
    prop_oneof![
        4 => (0i64..40).prop_map(|i| Some(Bson::Int64(i))),
        1 => (0i32..40).prop_map(|i| Some(Bson::Double(f64::from(i)))),
        1 => (0u8..4).prop_map(|i| Some(Bson::String(format!("s{i}")))),
        1 => Just(Some(Bson::Null)),
        1 => Just(None),
    ]
}

/// A generated document: its `_id` (from a small range, so that the same `_id` lands
/// on several shards), its key `x`, and `y`.
fn document() -> impl Strategy<Value = Document> {
    (0i64..8, key_value(), 0i64..5).prop_map(|(id, x, y)| {
        let mut d = doc! { "_id": id };
        if let Some(x) = x {
            d.insert("x", x);
        }
        d.insert("y", y);
        d
    })
}

/// A condition on one field: an equality, `$in`, a range, or two bounds.
fn condition() -> impl Strategy<Value = Bson> {
    let value = prop_oneof![
        4 => (-2i64..42).prop_map(Bson::Int64),
        1 => (0i32..40).prop_map(|i| Bson::Double(f64::from(i) + 0.5)),
        1 => (0u8..5).prop_map(|i| Bson::String(format!("s{i}"))),
        1 => Just(Bson::Null),
    ];
    let op = prop_oneof![Just("$gt"), Just("$gte"), Just("$lt"), Just("$lte")];
    prop_oneof![
        3 => value.clone(),
        1 => prop::collection::vec(value.clone(), 0..4).prop_map(|v| Bson::Document(doc! { "$in": v })),
        2 => (op.clone(), value.clone()).prop_map(|(op, v)| {
            let mut d = Document::new();
            d.insert(op, v);
            Bson::Document(d)
        }),
        1 => (op.clone(), value.clone(), op, value).prop_map(|(a, u, b, v)| {
            let mut d = Document::new();
            d.insert(a, u);
            d.insert(b, v);
            Bson::Document(d)
        }),
    ]
}

/// A condition on the key `x`, on `_id` or on `y`.
fn single() -> impl Strategy<Value = Document> {
    let field = prop_oneof![Just("x"), Just("_id"), Just("y")];
    (field, condition()).prop_map(|(f, c)| {
        let mut d = Document::new();
        d.insert(f, c);
        d
    })
}

/// A filter: one condition, two (on one field or two), or an `$or` of two.
fn filter() -> impl Strategy<Value = Document> {
    prop_oneof![
        3 => single(),
        2 => (single(), single()).prop_map(|(mut a, b)| {
            a.extend(b);
            a
        }),
        1 => (single(), single()).prop_map(|(a, b)| doc! { "$or": [a, b] }),
    ]
}

/// What happens to the cluster before the queries: splits, migrations and updates that
/// move documents between shards (so that the `_id` index's places move too).
#[derive(Debug, Clone)]
enum Step {
    Split(i64),
    Move(i64, u8),
    SetKey(i64, i64),
    Delete(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (0i64..40).prop_map(Step::Split),
        3 => (0i64..40, 0u8..3).prop_map(|(k, s)| Step::Move(k, s)),
        2 => (0i64..8, 0i64..40).prop_map(|(id, x)| Step::SetKey(id, x)),
        1 => (0i64..8).prop_map(Step::Delete),
    ]
}

/// The shard keys tried: a range key, a hashed key, a compound key, `_id`, or none.
const KEYS: [&str; 5] = ["x1", "xhashed", "x1y1", "id1", "unsharded"];

fn key_document(name: &str) -> Option<Document> {
    match name {
        "x1" => Some(doc! { "x": 1 }),
        "xhashed" => Some(doc! { "x": "hashed" }),
        "x1y1" => Some(doc! { "x": 1, "y": 1 }),
        "id1" => Some(doc! { "_id": 1 }),
        _ => None,
    }
}

/// A cluster with the documents and steps applied (errors, such as a refused key or a
/// duplicate `_id`, are part of the game).
fn build(key: &str, docs: &[Document], steps: &[Step], version: VersionMode) -> Cluster {
    let ns = "test.p";
    let mut cluster = Cluster::new(ClusterConfig {
        shards: 3,
        version,
        chunk_size: Some(1024),
        seed: 1,
    });
    if let Some(k) = key_document(key) {
        cluster.shard_collection(ns, &k, false, None).unwrap();
    }
    for d in docs {
        let _ = cluster.insert_many(ns, std::slice::from_ref(d));
    }
    let shards = ["shard01", "shard02", "shard03"];
    // A whole key for a split point or a chunk to move (a hashed key's split point is a
    // hash; splitting there by value is refused, which is fine).
    let point = |x: i64| match key {
        "id1" => doc! { "_id": x },
        "x1y1" => doc! { "x": x, "y": 0 },
        _ => doc! { "x": x },
    };
    for s in steps {
        let _ = match s {
            Step::Split(x) => cluster.split_at(ns, &point(*x)).map(|_| ()),
            Step::Move(x, to) => cluster
                .move_chunk(ns, &point(*x), shards[*to as usize])
                .map(|_| ()),
            Step::SetKey(id, x) => {
                let filter = doc! { "_id": *id };
                let (found, _) = cluster.find(ns, &filter).unwrap();
                match found.first().and_then(|d| d.get("x")).cloned() {
                    Some(old) => cluster
                        .update(
                            ns,
                            &doc! { "_id": *id, "x": old },
                            &doc! { "$set": { "x": *x } },
                            false,
                        )
                        .map(|_| ()),
                    None => Ok(()),
                }
            }
            Step::Delete(id) => cluster.delete(ns, &doc! { "_id": *id }, false).map(|_| ()),
        };
    }
    cluster.check().unwrap();
    cluster
}

/// What a scan of every document finds: the documents of every shard, in find's order
/// (shard by shard, insertion order within one), that match.
fn scanned(cluster: &Cluster, filter: &Document) -> Result<Vec<Document>, String> {
    let (all, _) = cluster.find("test.p", &Document::new()).unwrap();
    let mut out = Vec::new();
    for d in all {
        if shardlab::query::matches(filter, &d).map_err(|e| e.to_string())? {
            out.push(d);
        }
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever the key, the documents' places and the filter, `find` through the
    /// indexes returns what a scan of every document returns, in the same order, and a
    /// multi-update and a multi-delete touch as many documents.
    #[test]
    fn index_lookups_find_what_a_scan_finds(
        key in prop::sample::select(KEYS.to_vec()),
        docs in prop::collection::vec(document(), 0..60),
        steps in prop::collection::vec(step(), 0..24),
        filters in prop::collection::vec(filter(), 1..6),
        v80 in any::<bool>(),
    ) {
        let version = if v80 { VersionMode::V80 } else { VersionMode::V50 };
        let mut cluster = build(key, &docs, &steps, version);
        for f in &filters {
            let want = scanned(&cluster, f);
            let got = cluster.find("test.p", f).map(|(d, _)| d).map_err(|e| e.to_string());
            prop_assert_eq!(&got, &want, "filter {}", f);
            let Ok(want) = want else { continue };
            let updated = cluster
                .update("test.p", f, &doc! { "$inc": { "seen": 1 } }, true)
                .unwrap();
            prop_assert_eq!(updated.matched, want.len() as u64, "update {}", f);
        }
        let f = &filters[0];
        let want = scanned(&cluster, f).map(|d| d.len() as u64);
        let deleted = cluster.delete("test.p", f, true).map_err(|e| e.to_string());
        prop_assert_eq!(deleted, want, "delete {}", f);
        prop_assert!(scanned(&cluster, f).is_ok_and(|d| d.is_empty()));
        cluster.check().unwrap();
    }
}

/// One zone command of the model below: add `[lo, hi)` to a zone, or remove it.
#[derive(Debug, Clone)]
enum ZoneOp {
    Add(i64, i64, bool),
    Remove(i64, i64),
}

fn zone_op() -> impl Strategy<Value = ZoneOp> {
    prop_oneof![
        4 => (0i64..60, 1i64..8, any::<bool>()).prop_map(|(lo, w, a)| ZoneOp::Add(lo, lo + w, a)),
        1 => (0i64..60, 1i64..8).prop_map(|(lo, w)| ZoneOp::Remove(lo, lo + w)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Zone ranges found by search behave as a list searched from the start: the same
    /// commands succeed, an overlap names the same existing range (the first in key
    /// order), the ranges end up the same, and every chunk is in the same zone.
    #[test]
    fn zone_ranges_answer_as_a_scan_would(ops in prop::collection::vec(zone_op(), 0..40)) {
        let ns = "test.z";
        let mut cluster = Cluster::new(ClusterConfig::default());
        cluster.shard_collection(ns, &doc! { "x": 1 }, false, None).unwrap();
        cluster.add_shard_to_zone("shard01", "A").unwrap();
        cluster.add_shard_to_zone("shard02", "B").unwrap();
        let mut model: Vec<(i64, i64, &str)> = Vec::new();
        for op in &ops {
            let (lo, hi, zone) = match *op {
                ZoneOp::Add(lo, hi, a) => (lo, hi, Some(if a { "A" } else { "B" })),
                ZoneOp::Remove(lo, hi) => (lo, hi, None),
            };
            let got = cluster
                .update_zone_key_range(ns, &doc! { "x": lo }, &doc! { "x": hi }, zone)
                .map_err(|e| e.to_string());
            let want = match zone {
                None => {
                    model.retain(|&(l, h, _)| !(l == lo && h == hi));
                    Ok(())
                }
                Some(z) => match model.iter().find(|&&(l, h, _)| l < hi && lo < h) {
                    Some(&(l, h, _)) if l == lo && h == hi && model.contains(&(l, h, z)) => Ok(()),
                    Some(&(l, h, other)) => Err(format!(
                        "Zone range: {{ x: {lo} }} -->> {{ x: {hi} }}  on  {z} is overlapping with existing: {{ x: {l} }} -->> {{ x: {h} }}  on  {other}"
                    )),
                    None => {
                        model.push((lo, hi, z));
                        model.sort();
                        Ok(())
                    }
                },
            };
            prop_assert_eq!(got, want);
        }
        let s = cluster.sharding(ns).unwrap();
        let ranges: Vec<(i64, i64, String)> = s
            .zones
            .iter()
            .map(|z| {
                let n = |k: &KeyValue| k.0[0].as_i64().unwrap();
                (n(&z.min), n(&z.max), z.zone.clone())
            })
            .collect();
        let expected: Vec<(i64, i64, String)> =
            model.iter().map(|&(l, h, z)| (l, h, z.to_string())).collect();
        prop_assert_eq!(ranges, expected);
        for lo in 0..70i64 {
            for w in 1..6i64 {
                let chunk = Chunk {
                    min: KeyValue(vec![Bson::Int64(lo)]),
                    max: KeyValue(vec![Bson::Int64(lo + w)]),
                    shard: 0,
                    jumbo: false,
                    version: ChunkVersion { major: 1, minor: 0 },
                    docs: 0,
                    bytes: 0,
                    written: 0,
                };
                let want = model
                    .iter()
                    .find(|&&(l, h, _)| l <= lo && lo + w <= h)
                    .map(|&(_, _, z)| z.to_string());
                prop_assert_eq!(Cluster::zone_of(&s.zones, &chunk), want, "chunk [{}, {})", lo, lo + w);
            }
        }
    }
}

/// The stages of the first targeted shard's winning plan for `find(filter)` on `test.c`,
/// outermost first (`FETCH > SHARDING_FILTER > IXSCAN`), after `setup`.
fn shard_stages(version: &str, setup: &str, filter: &str) -> String {
    let mut session = shardlab::Session::default();
    let script = format!(
        "sim.version('{version}')\n{setup}\ndb.c.find({filter}).explain().queryPlanner.winningPlan.shards[0].winningPlan"
    );
    let outcomes = session.run(&script);
    for o in &outcomes {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let Some(Ok(shardlab::session::Output::Value(Bson::Document(mut plan)))) =
        outcomes.last().map(|o| o.result.clone())
    else {
        panic!("no plan for {filter}");
    };
    let mut stages = Vec::new();
    loop {
        stages.push(plan.get_str("stage").unwrap().to_string());
        match plan.get_document("inputStage") {
            Ok(input) => plan = input.clone(),
            Err(_) => break,
        }
    }
    stages.join(" > ")
}

/// Where a shard's plan filters out orphans (`SHARDING_FILTER`), after the placement of
/// `QueryPlannerAnalysis::analyzeDataAccess` (src/mongo/db/query/planner_analysis.cpp):
/// between `FETCH` and the scan of an index that holds the shard key, over the stage that
/// fetched otherwise (query_planner_hashed_index_test.cpp's `CompoundHashedShardKey*`
/// cases: a `FETCH` that applies a predicate, an index without every key field), over
/// `COLLSCAN` and `IDHACK` (get_executor.cpp, "Might have to filter out orphaned docs").
/// 3.6 filters every read of a sharded collection; from 4.8 an equality on the whole
/// key needs none: jstests/sharding's shard filtering optimisation test (requires_fcv_48,
/// "queries which specify the shard key fully with an equality predicate may omit a
/// SHARDING_FILTER stage"), whose find() cases are the 5.0 rows below.
#[test]
fn reads_of_a_sharded_collection_filter_orphans_where_the_planner_puts_it() {
    let single =
        "sh.shardCollection('test.c', {a: 1})\ndb.c.insertOne({_id: true, a: true, b: true})";
    let compound = "sh.shardCollection('test.c', {a: 1, b: 1})";
    let hashed = "sh.shardCollection('test.c', {a: 'hashed'})";
    let cases: &[(&str, &str, &str, &str)] = &[
        // The jstest's find() cases (5.0 = 4.8+).
        ("5.0", single, "{a: true}", "FETCH > IXSCAN"),
        ("5.0", single, "{a: true, b: true}", "FETCH > IXSCAN"),
        (
            "5.0",
            compound,
            "{a: true}",
            "FETCH > SHARDING_FILTER > IXSCAN",
        ),
        ("5.0", compound, "{a: true, b: true}", "FETCH > IXSCAN"),
        (
            "5.0",
            compound,
            "{a: true, b: {$in: [true, false]}}",
            "FETCH > SHARDING_FILTER > IXSCAN",
        ),
        ("5.0", hashed, "{a: true}", "FETCH > IXSCAN"),
        ("5.0", hashed, "{a: true, b: true}", "FETCH > IXSCAN"),
        // A hashed field's predicate is applied by a FETCH planned with the scan.
        (
            "5.0",
            hashed,
            "{a: {$in: [true, false]}}",
            "SHARDING_FILTER > FETCH > IXSCAN",
        ),
        ("5.0", hashed, "{b: true}", "SHARDING_FILTER > COLLSCAN"),
        // A range with a predicate on another field: the FETCH applying it is filtered.
        (
            "5.0",
            single,
            "{a: {$gt: 1}, b: true}",
            "SHARDING_FILTER > FETCH > IXSCAN",
        ),
        // The _id index does not hold the key {a: 1}.
        (
            "5.0",
            single,
            "{_id: {$gt: 1}}",
            "SHARDING_FILTER > FETCH > IXSCAN",
        ),
        ("5.0", single, "{_id: 1}", "SHARDING_FILTER > IDHACK"),
        // 3.6: every read, the whole key given or not.
        (
            "3.6",
            single,
            "{a: true}",
            "FETCH > SHARDING_FILTER > IXSCAN",
        ),
        ("3.6", single, "{_id: 1}", "SHARDING_FILTER > IDHACK"),
        ("3.6", single, "{}", "SHARDING_FILTER > COLLSCAN"),
        // 8.0: the express path filters orphans itself.
        ("8.0", single, "{_id: 1}", "EXPRESS_IXSCAN"),
        ("8.0", single, "{a: true}", "FETCH > IXSCAN"),
        ("8.0", single, "{b: true}", "SHARDING_FILTER > COLLSCAN"),
    ];
    let mut failures = Vec::new();
    for (version, setup, filter, expected) in cases {
        let got = shard_stages(version, setup, filter);
        if got != *expected {
            failures.push(format!(
                "{version} {filter}: expected {expected}, got {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The query as explain prints it (`parsedQuery`, a stage's `filter`): the canonical
/// `MatchExpression` serialized, each condition one leaf, an equality as `$eq`, several
/// leaves an `$and` sorted as `CanonicalQuery::sortTree` sorts them (`MatchType` in the
/// order of src/mongo/db/matcher/expression.h, `EQ`, `LTE`, `LT`, `GT`, `GTE`, ...,
/// `MATCH_IN`, then the path), a `$in` list as its sorted equality set; a scan of an
/// empty filter has no `filter` (`statsToBSON`; mongosh prints
/// `{ stage: 'COLLSCAN', direction: 'forward' }`).
#[test]
fn explain_prints_the_parsed_query() {
    check(
        r#"
        sh.shardCollection("test.u", {x: 1})
        db.u.find({x: 15}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
        db.u.find({x: {$gte: 10, $lt: 20}, y: 3}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
        db.u.find({y: 3, x: {$in: [25, 5, 25]}}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
        db.u.find({}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
        db.u.find({}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage
        "#,
        expect![[r#"
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > db.u.find({x: 15}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
            { x: { '$eq': 15 } }
            > db.u.find({x: {$gte: 10, $lt: 20}, y: 3}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
            {
              '$and': [ { y: { '$eq': 3 } }, { x: { '$lt': 20 } }, { x: { '$gte': 10 } } ]
            }
            > db.u.find({y: 3, x: {$in: [25, 5, 25]}}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
            {
              '$and': [
                { y: { '$eq': 3 } },
                { x: { '$in': [ 5, 25 ] } }
              ]
            }
            > db.u.find({}).explain().queryPlanner.winningPlan.shards[0].parsedQuery
            {}
            > db.u.find({}).explain().queryPlanner.winningPlan.shards[0].winningPlan.inputStage
            { stage: 'COLLSCAN', direction: 'forward' }
        "#]],
    );
}
