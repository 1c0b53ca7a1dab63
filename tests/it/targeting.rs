//! Query targeting on mongos (spec §8).
#![allow(clippy::unwrap_used)]

use crate::order::regex;
use bson::{doc, Bson, Document};
use shardlab::engine::{is_full_key_equality, target, TargetKind};
use shardlab::engine::{Chunk, ChunkVersion, RoutingTable};
use shardlab::keys::{KeyPattern, KeyValue};
use shardlab::values::convert_shard_key_to_hashed;
use TargetKind::{MultiShard, ScatterGather, SingleShard};

/// A chunk `[min, max)` on a shard.
fn chunk(min: Vec<Bson>, max: Vec<Bson>, shard: u32) -> Chunk {
    Chunk {
        min: KeyValue(min),
        max: KeyValue(max),
        shard,
        jumbo: false,
        version: ChunkVersion { major: 1, minor: 0 },
        docs: 0,
        bytes: 0,
        written: 0,
    }
}

/// Checks each filter's shards and kind on one routing table.
fn check(pattern: &KeyPattern, table: &RoutingTable, cases: Vec<(Document, Vec<u32>, TargetKind)>) {
    for (filter, shards, kind) in cases {
        let t = target(pattern, table, &filter).unwrap();
        assert_eq!(
            (t.shards.clone(), t.kind),
            (shards, kind),
            "filter {filter}"
        );
        let stage = if t.shards.len() == 1 {
            "SINGLE_SHARD"
        } else {
            "SHARD_MERGE"
        };
        assert_eq!(t.stage(), stage);
    }
}

/// `{x: 1}` over four shards: [MinKey, 0) on 0, [0, 10) on 1, [10, 20) on 2,
/// [20, MaxKey) on 3.
fn ranged() -> (KeyPattern, RoutingTable) {
    let pattern = KeyPattern::parse(&doc! {"x": 1}).unwrap();
    let table = RoutingTable::from_chunks(vec![
        chunk(vec![Bson::MinKey], vec![Bson::Int32(0)], 0),
        chunk(vec![Bson::Int32(0)], vec![Bson::Int32(10)], 1),
        chunk(vec![Bson::Int32(10)], vec![Bson::Int32(20)], 2),
        chunk(vec![Bson::Int32(20)], vec![Bson::MaxKey], 3),
    ]);
    (pattern, table)
}

/// Ranged single-field key: equality, ranges, `$in`, `$or`, null, no key.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn ranged_key() {
    let (pattern, table) = ranged();
    let all = vec![0, 1, 2, 3];
    check(
        &pattern,
        &table,
        vec![
            (doc! {"x": 5}, vec![1], SingleShard),
            (doc! {"x": {"$eq": 15}}, vec![2], SingleShard),
            (doc! {"x": 5.5, "y": "other"}, vec![1], SingleShard),
            (doc! {"x": {"$in": [25]}}, vec![3], SingleShard),
            (doc! {"$and": [{"x": 5}, {"y": 1}]}, vec![1], SingleShard),
            (doc! {"x": null}, vec![0], SingleShard),
            (doc! {"x": "a string"}, vec![3], SingleShard),
            // Ranges are classified by shape, even when they land on one shard.
            (doc! {"x": {"$gt": 5, "$lt": 15}}, vec![1, 2], MultiShard),
            (doc! {"x": {"$gte": 1, "$lte": 9}}, vec![1], MultiShard),
            (doc! {"x": {"$gte": 10}}, vec![2, 3], MultiShard),
            // Bounds are inclusive at both ends, as mongos looks them up: `$lt: 10`
            // still reaches the chunk starting at 10.
            (doc! {"x": {"$gte": 0, "$lt": 10}}, vec![1, 2], MultiShard),
            // `$lt: 0` runs from NaN, which sorts below every number, up to 0.
            (doc! {"x": {"$lt": 0}}, vec![0, 1], MultiShard),
            // Type bracketing: strings sort above numbers, in the last chunk.
            (doc! {"x": {"$gt": "a"}}, vec![3], MultiShard),
            (doc! {"x": {"$in": [5, 25]}}, vec![1, 3], MultiShard),
            (doc! {"x": {"$in": [5, 6]}}, vec![1], MultiShard),
            (doc! {"$or": [{"x": 5}, {"x": 15}]}, vec![1, 2], MultiShard),
            (
                doc! {"$or": [{"x": {"$lt": -5}}, {"x": 15}]},
                vec![0, 2],
                MultiShard,
            ),
            (
                doc! {"x": {"$gt": 5}, "$or": [{"y": 1}, {"z": 2}]},
                vec![1, 2, 3],
                MultiShard,
            ),
            // An unsatisfiable filter still goes to one shard: the first chunk's.
            (doc! {"x": {"$in": []}}, vec![0], MultiShard),
            (doc! {"x": {"$gt": 5, "$lt": 5}}, vec![0], MultiShard),
            // No usable range: every shard.
            (doc! {}, all.clone(), ScatterGather),
            (doc! {"y": 1}, all.clone(), ScatterGather),
            (
                doc! {"$or": [{"x": 5}, {"y": 15}]},
                all.clone(),
                ScatterGather,
            ),
            // A negation is planned on the shard key index with its child's bounds
            // complemented (IndexBoundsBuilder::translate, NOT): [MinKey, 5) and
            // (5, MaxKey], two ranges, so kMultipleKeys in getShardIdsAndChunksForQuery
            // (chunk_manager.cpp), though every chunk overlaps them.
            (doc! {"x": {"$ne": 5}}, all.clone(), MultiShard),
            (doc! {"x": {"$nin": [5, 15]}}, all.clone(), MultiShard),
            (doc! {"x": {"$exists": true}}, all.clone(), ScatterGather),
            // index_bounds_builder.cpp, IndexBoundsBuilder::translate: "If we have a NOT ->
            // EXISTS, we must handle separately": the [null, null] point, where a
            // missing key is indexed, so only the chunk holding null.
            (doc! {"x": {"$exists": false}}, vec![0], MultiShard),
            (doc! {"x": {"$not": {"$exists": true}}}, vec![0], MultiShard),
            (doc! {"$nor": [{"x": 5}]}, all.clone(), ScatterGather),
            (doc! {"x": {"$gt": Bson::MinKey}}, all, ScatterGather),
        ],
    );
    let t = target(&pattern, &table, &doc! {"x": {"$in": [25, 5]}}).unwrap();
    assert_eq!(
        t.ranges,
        vec![
            (
                KeyValue(vec![Bson::Int32(5)]),
                KeyValue(vec![Bson::Int32(5)])
            ),
            (
                KeyValue(vec![Bson::Int32(25)]),
                KeyValue(vec![Bson::Int32(25)])
            ),
        ]
    );
    let t = target(&pattern, &table, &doc! {"x": {"$gt": 5}}).unwrap();
    assert_eq!(
        t.ranges,
        vec![(
            KeyValue(vec![Bson::Int32(5)]),
            KeyValue(vec![Bson::Double(f64::INFINITY)])
        )]
    );
}

/// A filter that does not parse is an error, not a scatter.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn bad_filter() {
    let (pattern, table) = ranged();
    let err = target(&pattern, &table, &doc! {"x": {"$foo": 1}}).unwrap_err();
    assert_eq!(err.to_string(), "unknown operator: $foo");
}

/// Compound `{a: 1, b: 1}`: prefix equality targets the shards owning the prefix.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn compound_key() {
    let pattern = KeyPattern::parse(&doc! {"a": 1, "b": 1}).unwrap();
    let (min, max) = (Bson::MinKey, Bson::MaxKey);
    let table = RoutingTable::from_chunks(vec![
        chunk(
            vec![min.clone(), min.clone()],
            vec![Bson::Int32(1), min.clone()],
            0,
        ),
        chunk(
            vec![Bson::Int32(1), min.clone()],
            vec![Bson::Int32(1), Bson::Int32(50)],
            1,
        ),
        chunk(
            vec![Bson::Int32(1), Bson::Int32(50)],
            vec![Bson::Int32(2), min.clone()],
            2,
        ),
        chunk(
            vec![Bson::Int32(2), min.clone()],
            vec![max.clone(), max.clone()],
            0,
        ),
    ]);
    check(
        &pattern,
        &table,
        vec![
            (doc! {"a": 1, "b": 7}, vec![1], SingleShard),
            (doc! {"b": 70, "a": 1}, vec![2], SingleShard),
            (doc! {"a": 1}, vec![1, 2], MultiShard),
            (doc! {"a": 1, "b": {"$gt": 60}}, vec![2], MultiShard),
            (doc! {"a": 1, "b": {"$lt": 10}}, vec![1], MultiShard),
            (doc! {"a": {"$gte": 2}}, vec![0], MultiShard),
            (doc! {"a": {"$in": [0, 2]}, "b": 3}, vec![0], MultiShard),
            (doc! {"a": 0}, vec![0], MultiShard),
            (doc! {"b": 7}, vec![0, 1, 2], ScatterGather),
        ],
    );
    let t = target(&pattern, &table, &doc! {"a": 1}).unwrap();
    assert_eq!(
        t.ranges,
        vec![(
            KeyValue(vec![Bson::Int32(1), min.clone()]),
            KeyValue(vec![Bson::Int32(1), max.clone()])
        )]
    );
    // After the range on `a`, `b` only widens the bounds with its own lowest and
    // highest values (`flattenBounds`).
    let t = target(
        &pattern,
        &table,
        &doc! {"a": {"$gte": 2, "$lte": 3}, "b": 4},
    )
    .unwrap();
    assert_eq!(
        t.ranges,
        vec![(
            KeyValue(vec![Bson::Int32(2), Bson::Int32(4)]),
            KeyValue(vec![Bson::Int32(3), Bson::Int32(4)])
        )]
    );
}

/// Hashed `{x: "hashed"}`: equality and `$in` go to the hashes' chunks; a range is
/// scatter-gather.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn hashed_key() {
    let pattern = KeyPattern::parse(&doc! {"x": "hashed"}).unwrap();
    let table = RoutingTable::from_chunks(vec![
        chunk(vec![Bson::MinKey], vec![Bson::Int64(0)], 0),
        chunk(vec![Bson::Int64(0)], vec![Bson::MaxKey], 1),
    ]);
    let owner = |v: Bson| u32::from(convert_shard_key_to_hashed(&v) >= 0);
    let values: Vec<Bson> = (0..8).map(Bson::Int32).collect();
    let mut owners: Vec<u32> = values.iter().cloned().map(owner).collect();
    owners.sort_unstable();
    owners.dedup();
    check(
        &pattern,
        &table,
        vec![
            (doc! {"x": 5}, vec![owner(Bson::Int32(5))], SingleShard),
            (
                doc! {"x": "abc"},
                vec![owner(Bson::String("abc".into()))],
                SingleShard,
            ),
            (doc! {"x": null}, vec![owner(Bson::Null)], SingleShard),
            (doc! {"x": {"$in": values.clone()}}, owners, MultiShard),
            (doc! {"x": {"$gt": 5}}, vec![0, 1], ScatterGather),
            (doc! {"x": {"$gte": 5, "$lt": 6}}, vec![0, 1], ScatterGather),
        ],
    );
    assert_eq!(
        is_full_key_equality(&pattern, &doc! {"x": 5}),
        Some(KeyValue(vec![Bson::Int64(convert_shard_key_to_hashed(
            &Bson::Int32(5)
        ))]))
    );
}

/// Compound keys with a hashed field: a point prefix then the hashed points, and a
/// hashed prefix with a range on it.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn compound_hashed_key() {
    let pattern = KeyPattern::parse(&doc! {"t": 1, "h": "hashed"}).unwrap();
    let (min, max) = (Bson::MinKey, Bson::MaxKey);
    let table = RoutingTable::from_chunks(vec![
        chunk(
            vec![min.clone(), min.clone()],
            vec![Bson::Int32(1), Bson::Int64(0)],
            0,
        ),
        chunk(
            vec![Bson::Int32(1), Bson::Int64(0)],
            vec![Bson::Int32(2), min.clone()],
            1,
        ),
        chunk(
            vec![Bson::Int32(2), min.clone()],
            vec![max.clone(), max.clone()],
            2,
        ),
    ]);
    let h7 = convert_shard_key_to_hashed(&Bson::Int32(7));
    let single = if h7 < 0 { 0 } else { 1 };
    check(
        &pattern,
        &table,
        vec![
            (doc! {"t": 1, "h": 7}, vec![single], SingleShard),
            (doc! {"t": 1}, vec![0, 1], MultiShard),
            (doc! {"t": 1, "h": {"$gt": 7}}, vec![0, 1], MultiShard),
            (doc! {"t": 3, "h": {"$gt": 7}}, vec![2], MultiShard),
            (doc! {"h": 7}, vec![0, 1, 2], ScatterGather),
        ],
    );
}

/// `is_full_key_equality` finds the key through `$eq`, `$and` and one-value `$in`, and
/// refuses partial keys, ranges, arrays and conflicting equalities.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn full_key_equality() {
    let pattern = KeyPattern::parse(&doc! {"a": 1, "b.c": 1}).unwrap();
    let key = |a: i32, c: i32| Some(KeyValue(vec![Bson::Int32(a), Bson::Int32(c)]));
    let cases: Vec<(Document, Option<KeyValue>)> = vec![
        (doc! {"a": 1, "b.c": 2}, key(1, 2)),
        (doc! {"a": {"$eq": 1}, "b.c": {"$in": [2]}}, key(1, 2)),
        (doc! {"$and": [{"a": 1}, {"b.c": 2}], "z": 9}, key(1, 2)),
        (doc! {"$or": [{"a": 1, "b.c": 2}]}, key(1, 2)),
        // A path matched twice gives no key, even with the same value
        // (shard_key_pattern_test.cpp: `{$and:[{a:10},{a:10}]}`).
        (doc! {"a": 1, "b.c": 2, "$and": [{"a": 1}]}, None),
        (
            doc! {"a": null, "b.c": null},
            Some(KeyValue(vec![Bson::Null, Bson::Null])),
        ),
        (doc! {"a": 1}, None),
        // An equality on a parent path supplies the subfield
        // (shard_key_pattern_test.cpp: `{a:{b:10}, c:30}` under `{'a.b': 1, c: 1}`).
        (doc! {"a": 1, "b": {"c": 2}}, key(1, 2)),
        (doc! {"a": 1, "b.c": {"$gt": 2}}, None),
        (doc! {"a": 1, "b.c": {"$in": [2, 3]}}, None),
        (doc! {"a": 1, "b.c": [2]}, None),
        (doc! {"a": 1, "b.c": 2, "$and": [{"a": 2}]}, None),
        (doc! {"$or": [{"a": 1, "b.c": 2}, {"a": 1, "b.c": 2}]}, None),
        (doc! {"a": {"$bad": 1}, "b.c": 2}, None),
    ];
    for (filter, expected) in cases {
        assert_eq!(
            is_full_key_equality(&pattern, &filter),
            expected,
            "{filter}"
        );
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;
    use shardlab::query::matches;

    /// A filter on `x` of one of the shapes the property covers.
    fn arb_filter() -> impl Strategy<Value = Document> {
        let value = || {
            prop_oneof![
                (-60i32..60).prop_map(Bson::Int32),
                (-60.0f64..60.0).prop_map(Bson::Double)
            ]
        };
        prop_oneof![
            value().prop_map(|v| doc! {"x": v}),
            value().prop_map(|v| doc! {"x": {"$gt": v}}),
            value().prop_map(|v| doc! {"x": {"$lt": v}}),
            (value(), value()).prop_map(|(a, b)| doc! {"x": {"$gte": a, "$lte": b}}),
            prop::collection::vec(value(), 0..4).prop_map(|vs| doc! {"x": {"$in": vs}}),
            (value(), value()).prop_map(|(a, b)| doc! {"$or": [{"x": a}, {"x": {"$gt": b}}]}),
            Just(doc! {"x": null}),
        ]
    }

    /// A document with an integer `x`, or without `x`.
    fn arb_doc() -> impl Strategy<Value = Document> {
        prop_oneof![
            4 => (-60i32..60).prop_map(|x| doc! {"x": x}),
            1 => Just(doc! {"y": 1}),
        ]
    }

    /// Chunks tiling the key space from sorted split points, on shards 0..4.
    fn table_from(pattern: &KeyPattern, mut splits: Vec<Bson>, shards: &[u32]) -> RoutingTable {
        splits.sort_by(shardlab::compare_values);
        splits.dedup_by(|a, b| shardlab::compare_values(a, b).is_eq());
        let mut bounds = vec![pattern.global_min()];
        bounds.extend(splits.into_iter().map(|s| KeyValue(vec![s])));
        bounds.push(pattern.global_max());
        RoutingTable::from_chunks(
            bounds
                .windows(2)
                .enumerate()
                .map(|(i, w)| chunk(w[0].0.clone(), w[1].0.clone(), shards[i % shards.len()]))
                .collect(),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]

        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn targeting_never_misses_a_matching_document(
            hashed in any::<bool>(),
            int_splits in prop::collection::vec(-60i32..60, 0..6),
            hash_splits in prop::collection::vec(any::<i64>(), 0..6),
            shards in prop::collection::vec(0u32..4, 1..8),
            docs in prop::collection::vec(arb_doc(), 0..40),
            filter in arb_filter(),
        ) {
            let (pattern, splits) = if hashed {
                (
                    KeyPattern::parse(&doc! {"x": "hashed"}).unwrap(),
                    hash_splits.into_iter().map(Bson::Int64).collect(),
                )
            } else {
                (
                    KeyPattern::parse(&doc! {"x": 1}).unwrap(),
                    int_splits.into_iter().map(Bson::Int32).collect(),
                )
            };
            let table = table_from(&pattern, splits, &shards);
            let t = target(&pattern, &table, &filter).unwrap();
            prop_assert!(!t.shards.is_empty());
            for d in &docs {
                if matches(&filter, d).unwrap() {
                    let key = pattern.extract(d).unwrap();
                    let owner = table.chunk_for(&key).unwrap().shard;
                    prop_assert!(
                        t.shards.contains(&owner),
                        "{} matches {} but lives on shard {} outside {:?}", d, filter, owner, t.shards
                    );
                }
            }
        }
    }
}

/// The cases of MongoDB's `chunk_manager_query_test.cpp` (`getShardIdsForQuery`): chunks
/// split at the given points, the i-th chunk on shard i.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn mongodb_chunk_manager_query_cases() {
    let table_of = |pattern: &KeyPattern, points: Vec<Vec<Bson>>| {
        let mut bounds = vec![pattern.global_min().0];
        bounds.extend(points);
        bounds.push(pattern.global_max().0);
        RoutingTable::from_chunks(
            bounds
                .windows(2)
                .enumerate()
                .map(|(i, w)| chunk(w[0].clone(), w[1].clone(), i as u32))
                .collect(),
        )
    };
    let s = |v: &str| Bson::String(v.to_string());
    let a = KeyPattern::parse(&doc! {"a": 1}).unwrap();
    let xyz = table_of(&a, vec![vec![s("x")], vec![s("y")], vec![s("z")]]);
    let single = table_of(&a, Vec::new());
    let cases: Vec<(&RoutingTable, Document, Vec<u32>)> = vec![
        (&single, doc! {}, vec![0]),
        (&xyz, doc! {}, vec![0, 1, 2, 3]),
        (&xyz, doc! {"b": 1}, vec![0, 1, 2, 3]),
        (&single, doc! {"a": "x"}, vec![0]),
        (&xyz, doc! {"a": "y"}, vec![2]),
        (&xyz, doc! {"a": {"$in": ["u", "y"]}}, vec![0, 2]),
        (&xyz, doc! {"a": {"$gt": "x"}}, vec![1, 2, 3]),
        (&xyz, doc! {"a": {"$gte": "x"}}, vec![1, 2, 3]),
        (&xyz, doc! {"a": {"$lt": "y"}}, vec![0, 1, 2]),
        (&xyz, doc! {"a": {"$lte": "y"}}, vec![0, 1, 2]),
        (&xyz, doc! {"$or": [{"a": "u"}, {"a": "y"}]}, vec![0, 2]),
        (
            &xyz,
            doc! {"$or": [{"a": "u"}, {"a": {"$gte": "y"}}]},
            vec![0, 2, 3],
        ),
        (
            &xyz,
            doc! {"$or": [{"a": "u"}, {"a": {"$gte": "zz"}}, {}]},
            vec![0, 1, 2, 3],
        ),
        // An unsatisfiable filter still goes to one shard: the first chunk's.
        (&single, doc! {"a": {"$gt": "x", "$lt": "x"}}, vec![0]),
        (&xyz, doc! {"a": {"$gt": "x", "$lt": "x"}}, vec![0]),
        (
            &xyz,
            doc! {"$or": [{"a": "x"}, {"a": {"$gt": "u", "$lt": "u"}}, {"a": {"$gte": "y"}}]},
            vec![1, 2, 3],
        ),
        (&xyz, doc! {"a": 5}, vec![0]),
    ];
    for (table, filter, want) in cases {
        let t = target(&a, table, &filter).unwrap();
        assert_eq!(t.shards, want, "filter {filter}");
    }
    let ab = KeyPattern::parse(&doc! {"a": 1, "b": 1}).unwrap();
    let xyz2 = table_of(
        &ab,
        vec![
            vec![s("x"), Bson::MinKey],
            vec![s("y"), Bson::MinKey],
            vec![s("z"), Bson::MinKey],
        ],
    );
    let in_table = table_of(
        &ab,
        vec![
            vec![Bson::Int32(5), Bson::Int32(10)],
            vec![Bson::Int32(5), Bson::Int32(20)],
        ],
    );
    let cases: Vec<(&RoutingTable, Document, Vec<u32>)> = vec![
        (&xyz2, doc! {"a": 1, "b": {"$gt": 4, "$lt": 4}}, vec![0]),
        (
            &xyz2,
            doc! {"a": {"$gt": 1}, "b": {"$gt": 4, "$lt": 4}},
            vec![0],
        ),
        // Only the first `$in` fans out; the second widens each range.
        (
            &in_table,
            doc! {"a": {"$in": [0, 5, 10]}, "b": {"$in": [0, 5, 25]}},
            vec![0, 1, 2],
        ),
    ];
    for (table, filter, want) in cases {
        let t = target(&ab, table, &filter).unwrap();
        assert_eq!(t.shards, want, "filter {filter}");
    }
}

/// The cases of MongoDB's `shard_key_pattern_test.cpp` (`ExtractQueryShardKey*`, the
/// 7.0 file): `extractShardKeyFromQuery` finds the full shard key only through
/// equalities under `$and` (and a one-branch `$or`), an equality on a parent path
/// supplies its subfields, and a path matched twice, an array or a regular expression
/// on the way give no key. (`$all` cases are left out: ShardLab's filters have no
/// `$all`.)
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn mongodb_extract_shard_key_from_query() {
    let p = |d: Document| KeyPattern::parse(&d).unwrap();
    let key = |v: Vec<Bson>| Some(KeyValue(v));
    let (ten, twenty, s20) = (Bson::Int32(10), Bson::Int32(20), Bson::String("20".into()));
    let hashed = Bson::Int64(convert_shard_key_to_hashed(&Bson::String("12345".into())));
    let single = p(doc! {"a": 1});
    let compound = p(doc! {"a": 1, "b": 1.0});
    let nested = p(doc! {"a.b": 1, "c": 1.0});
    let deep = p(doc! {"a.b.c": 1});
    let numeric = p(doc! {"a.0.0": 1});
    let hashed_ab = p(doc! {"a.b": "hashed"});
    let hashed_cd = p(doc! {"a.b": "hashed", "c.d": 1});
    let cases: Vec<(&KeyPattern, Document, Option<KeyValue>)> = vec![
        // ExtractQueryShardKeySingle
        (&single, doc! {"a": 10}, key(vec![ten.clone()])),
        (&single, doc! {"a": 10, "b": "20"}, key(vec![ten.clone()])),
        (
            &single,
            doc! {"a": {"b": 10}, "c": 30},
            key(vec![Bson::Document(doc! {"b": 10})]),
        ),
        (
            &single,
            doc! {"a": 10, "b": {"$gt": 20}},
            key(vec![ten.clone()]),
        ),
        (&single, doc! {"a": {"$gt": 10}}, None),
        (&single, doc! {"a": 10, "b": {"$invalid": "20"}}, None),
        (&single, doc! {"a": {"$eq": [10, 20]}, "c": 30}, None),
        (&single, doc! {"a": {"$eq": 10}}, key(vec![ten.clone()])),
        (
            &single,
            doc! {"$or": [{"a": {"$eq": 10}}]},
            key(vec![ten.clone()]),
        ),
        (
            &single,
            doc! {"$and": [{"a": {"$eq": 10}}, {"b": "20"}]},
            key(vec![ten.clone()]),
        ),
        (&single, doc! {"$or": [{"a": {"$eq": 10}}, {"a": 10}]}, None),
        (&single, doc! {"$and": [{"a": 10}, {"a": 10}]}, None),
        (
            &single,
            doc! {"$or": [{"a": {"$eq": 10}}, {"b": "20"}]},
            None,
        ),
        (&single, doc! {"a": regex("abc", ""), "b": "20"}, None),
        // ExtractQueryShardKeyCompound
        (
            &compound,
            doc! {"a": 10, "b": "20"},
            key(vec![ten.clone(), s20.clone()]),
        ),
        (
            &compound,
            doc! {"a": 10, "b": "20", "c": 30},
            key(vec![ten.clone(), s20.clone()]),
        ),
        (
            &compound,
            doc! {"c": 30, "b": "20", "a": 10},
            key(vec![ten.clone(), s20.clone()]),
        ),
        (&compound, doc! {"a": 10, "b": [1, 2]}, None),
        (&compound, doc! {"a": 10, "b": {"$invalid": true}}, None),
        (&compound, doc! {"b": 20}, None),
        (&compound, doc! {"": 10, "b": "20"}, None),
        (
            &compound,
            doc! {"$and": [{"a": {"$eq": 10}, "b": {"$eq": "20"}}]},
            key(vec![ten.clone(), s20.clone()]),
        ),
        (
            &compound,
            doc! {"$and": [{"a": {"$eq": 10}}, {"b": {"$eq": "20"}}]},
            key(vec![ten.clone(), s20.clone()]),
        ),
        (&compound, doc! {"a": 10, "b": {"$gt": 20}}, None),
        (
            &compound,
            doc! {"$or": [{"a": {"$eq": 10}}, {"b": "20"}]},
            None,
        ),
        (
            &compound,
            doc! {"b": 20, "a": 10},
            key(vec![ten.clone(), twenty]),
        ),
        // ExtractQueryShardKeyNested
        (
            &nested,
            doc! {"a": {"b": 10}, "c": 30},
            key(vec![ten.clone(), Bson::Int32(30)]),
        ),
        (
            &nested,
            doc! {"a.b": {"$eq": 10}, "c": 30, "d": 40},
            key(vec![ten.clone(), Bson::Int32(30)]),
        ),
        (
            &nested,
            doc! {"$or": [{"a.b": 10, "c": 30, "d": 40}]},
            key(vec![ten.clone(), Bson::Int32(30)]),
        ),
        (
            &nested,
            doc! {"a": {"b": 10, "d": 40}, "c": 30},
            key(vec![ten.clone(), Bson::Int32(30)]),
        ),
        (
            &nested,
            doc! {"$and": [{"a.b": {"$eq": 10}}, {"c": 30}]},
            key(vec![ten.clone(), Bson::Int32(30)]),
        ),
        // A nested `$eq` is a document, not an operator.
        (&nested, doc! {"a": {"b": {"$eq": 10}}, "c": 30}, None),
        (
            &nested,
            doc! {"$and": [{"a": {"b": {"$eq": 10}}}, {"c": 30}]},
            None,
        ),
        (
            &nested,
            doc! {"$or": [{"a": {"b": {"$eq": 10}}}, {"c": 30}]},
            None,
        ),
        (&nested, doc! {"a": 10, "c": 30}, None),
        (&nested, doc! {"a": {"b": 10}, "c": {"$gt": 30}}, None),
        (&nested, doc! {"a": {"d": 40}, "c": 30}, None),
        (&nested, doc! {"a": [{"b": 10}, {"b": 20}], "c": 30}, None),
        (&nested, doc! {"a": {"b": {"$eq": [10, 20]}}, "c": 30}, None),
        // ExtractQueryShardKeyDeepNested
        (&deep, doc! {"a": {"b": {"c": 10}}}, key(vec![ten.clone()])),
        (&deep, doc! {"a.b.c": 10}, key(vec![ten.clone()])),
        (&deep, doc! {"a.b.c": {"$eq": 10}}, key(vec![ten.clone()])),
        (&deep, doc! {"a.b.c": [10]}, None),
        (&deep, doc! {"a.b": [{"c": 10}]}, None),
        (&deep, doc! {"a": [{"b": {"c": 10}}]}, None),
        (&deep, doc! {"a": {"b": [{"c": 10}]}}, None),
        (&deep, doc! {"a": {"b": {"c": [10, 20]}}}, None),
        (&deep, doc! {"a": {"b": [{"c": 10}, {"c": 20}]}}, None),
        (
            &deep,
            doc! {"a": [{"b": {"c": 10}}, {"b": {"c": 20}}]},
            None,
        ),
        // ExtractQueryShardKeyWithNumericFieldNames
        (
            &numeric,
            doc! {"a": {"0": {"0": 10}}},
            key(vec![ten.clone()]),
        ),
        (&numeric, doc! {"a.0.0": 10}, key(vec![ten.clone()])),
        (
            &numeric,
            doc! {"a.0.0": {"$eq": 10}},
            key(vec![ten.clone()]),
        ),
        (
            &numeric,
            doc! {"a.0": {"0": "value"}},
            key(vec![Bson::String("value".into())]),
        ),
        (&numeric, doc! {"a.0.0": [10]}, None),
        (&numeric, doc! {"a.0": [{"0": 10}]}, None),
        (&numeric, doc! {"a": [{"0": {"0": 10}}]}, None),
        (&numeric, doc! {"a": {"0": [{"0": 10}]}}, None),
        (&numeric, doc! {"a.0": {"0": ["value"]}}, None),
        (&numeric, doc! {"a": {"0": {"2": ["value"]}}}, None),
        (&numeric, doc! {"a.0": {"2": ["value"]}}, None),
        (&numeric, doc! {}, None),
        // ExtractQueryShardKeyHashed
        (&hashed_ab, doc! {"a.b": "12345"}, key(vec![hashed.clone()])),
        (
            &hashed_ab,
            doc! {"a": {"b": "12345"}},
            key(vec![hashed.clone()]),
        ),
        (
            &hashed_ab,
            doc! {"a.b": {"$eq": "12345"}},
            key(vec![hashed.clone()]),
        ),
        (
            &hashed_ab,
            doc! {"a": {"b": "12345"}, "c": 30},
            key(vec![hashed.clone()]),
        ),
        (
            &hashed_ab,
            doc! {"a": {"c": 30, "b": "12345"}},
            key(vec![hashed.clone()]),
        ),
        (
            &hashed_ab,
            doc! {"$and": [{"a.b": {"$eq": "12345"}}]},
            key(vec![hashed.clone()]),
        ),
        (&hashed_ab, doc! {"a": {"b": {"$eq": "12345"}}}, None),
        (&hashed_ab, doc! {"a.b": {"$gt": "12345"}}, None),
        (&hashed_ab, doc! {"a": {"c": "12345"}}, None),
        (&hashed_ab, doc! {"a": {"b": ["12345"]}}, None),
        (&hashed_ab, doc! {"a": [{"b": "12345"}]}, None),
        (
            &hashed_cd,
            doc! {"a.b": "12345", "c.d": "12345"},
            key(vec![hashed.clone(), Bson::String("12345".into())]),
        ),
        (
            &hashed_cd,
            doc! {"a": {"b": "12345", "p": 1}, "c": {"d": "12345", "q": 2}},
            key(vec![hashed, Bson::String("12345".into())]),
        ),
        (&hashed_cd, doc! {"a.b": "12345"}, None),
        (&hashed_cd, doc! {"a.b": [10], "c.d": 1}, None),
    ];
    for (pattern, filter, want) in cases {
        assert_eq!(
            is_full_key_equality(pattern, &filter),
            want,
            "{pattern} on {filter}"
        );
    }
}
