//! Round four, third part: storage statistics (`db.coll.stats()`, `db.stats()`, the
//! `collStats` and `dbStats` commands through mongos) and chunk defragmentation
//! (`configureCollectionBalancing`'s `defragmentCollection`). Each case names the mongosh
//! or MongoDB source its expectations come from; the sizes are worked out here from the
//! documents' BSON encoding and the storage model `engine/storage.rs` states (4 KiB
//! blocks), never copied from ShardLab's output.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::session::{Output, Session};

/// A session of `version` that ran `script`, every statement of which must succeed.
fn session(version: &str, script: &str) -> Session {
    let mut s = Session::default();
    let reset = s.run(&format!("sim.reset({{version: '{version}'}})"));
    assert!(reset[0].result.is_ok(), "{:?}", reset[0].result);
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    s.cluster.check().unwrap();
    s
}

/// The value of one statement, which must succeed.
fn value(s: &mut Session, statement: &str) -> Bson {
    let out = s.run(statement).pop().unwrap();
    match out.result {
        Ok(Output::Value(v)) => v,
        other => panic!("{statement}: {other:?}"),
    }
}

/// The document one statement answers.
fn document(s: &mut Session, statement: &str) -> Document {
    match value(s, statement) {
        Bson::Document(d) => d,
        other => panic!("{statement}: {other:?}"),
    }
}

/// Runs statements that must succeed, whatever they answer.
fn run_ok(s: &mut Session, script: &str) {
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
}

/// What one statement printed, as mongosh prints it (an error included).
fn printed(s: &mut Session, statement: &str) -> String {
    s.run(statement)
        .iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n")
}

fn keys(d: &Document) -> Vec<&str> {
    d.keys().map(String::as_str).collect()
}

fn sub<'a>(d: &'a Document, key: &str) -> &'a Document {
    d.get_document(key)
        .unwrap_or_else(|_| panic!("{key} in {d:?}"))
}

/// A number as mongosh holds it (a JavaScript number).
fn number(v: &Bson) -> f64 {
    match v {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        other => panic!("not a number: {other:?}"),
    }
}

fn num(d: &Document, key: &str) -> f64 {
    number(d.get(key).unwrap_or_else(|| panic!("{key} in {d:?}")))
}

/// The model's file size for `bytes` stored: one 4 KiB block, plus the bytes in whole
/// blocks (WiredTiger's `allocation_size`; see `engine/storage.rs`).
fn file(bytes: u64) -> f64 {
    (4096 * (1 + bytes.div_ceil(4096))) as f64
}

/// The documents of the first script: `{_id: i, x: i, s: 'a' * i}`, i in 0..10.
fn sample_docs() -> Vec<Document> {
    (0..10)
        .map(|i| doc! { "_id": i, "x": i, "s": "a".repeat(i as usize) })
        .collect()
}

fn bson_size(d: &Document) -> u64 {
    d.to_vec().unwrap().len() as u64
}

/// An index entry of the model: the key's values under empty names as a BSON document,
/// plus 8 bytes of record id.
fn entry(values: Vec<Bson>) -> u64 {
    let key: Document = values.into_iter().map(|v| (String::new(), v)).collect();
    bson_size(&key) + 8
}

/// `test.c` sharded on `{x: 1}`, x < 5 on shard01 and x >= 5 on shard02, an index on a
/// field no document has, and an unsharded `test.u` with one document.
const SAMPLE: &str = "sh.shardCollection('test.c', {x: 1})
for (let i = 0; i < 10; i++) { db.c.insertOne({_id: i, x: i, s: 'a'.repeat(i)}) }
sh.splitAt('test.c', {x: 5})
sh.moveChunk('test.c', {x: 5}, 'shard02')
db.c.createIndex({name: 1})
db.u.insertOne({_id: 1})";

/// What each of the sample's shards stores of `test.c`: its documents' count and bytes,
/// and each index's entry bytes (`_id_`, `x_1`, `name_1`).
fn sample_shard(on_shard: impl Fn(i32) -> bool) -> (u64, u64, [u64; 3]) {
    let docs: Vec<Document> = sample_docs()
        .into_iter()
        .filter(|d| on_shard(d.get_i32("x").unwrap()))
        .collect();
    let bytes = docs.iter().map(bson_size).sum();
    let ids = docs
        .iter()
        .map(|d| entry(vec![d.get("_id").unwrap().clone()]))
        .sum();
    let xs = docs
        .iter()
        .map(|d| entry(vec![d.get("x").unwrap().clone()]))
        .sum();
    let names = docs.iter().map(|_| entry(vec![Bson::Null])).sum();
    (docs.len() as u64, bytes, [ids, xs, names])
}

// --- 1. db.coll.stats() ---------------------------------------------------------------

// mongosh packages/shell-api/src/collection.ts, `stats()` and `_aggregateAndScaleCollStats`:
// `$collStats: {storageStats: {scale: 1}}` gives one document per shard; the result starts
// as `{ok: 1}`, takes `capped` (and `indexDetails`, deleted unless asked for) from the
// first shard, then `shards` (each scaled by `scaleIndividualShardStatistics`),
// `sharded` from config.collections, the sums in the order first met (`size`, `count`,
// `numOrphanDocs`, `storageSize`, `totalIndexSize`, `totalSize`), `indexSizes`,
// `avgObjSize` from the unscaled per-shard averages, `ns`, `nindexes`, `scaleFactor`.
// Each shard's `storageStats` in 8.0: src/mongo/db/stats/storage_stats.cpp
// (`_appendRecordStats`, `_appendRecordStore`, `_appendInProgressIndexesStats`,
// `_appendTotalSize`, in that order).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn collection_stats_sum_each_shards_storage_stats() {
    let mut s = session("8.0", SAMPLE);
    let stats = document(&mut s, "db.c.stats()");
    assert_eq!(
        keys(&stats),
        [
            "ok",
            "capped",
            "shards",
            "sharded",
            "size",
            "count",
            "numOrphanDocs",
            "storageSize",
            "totalIndexSize",
            "totalSize",
            "indexSizes",
            "avgObjSize",
            "ns",
            "nindexes",
            "scaleFactor"
        ]
    );
    let shards = sub(&stats, "shards");
    assert_eq!(keys(shards), ["shard01", "shard02"]);
    let mut total = (0.0, 0.0, 0.0);
    for (name, on_shard) in [
        ("shard01", (|x| x < 5) as fn(i32) -> bool),
        ("shard02", |x| x >= 5),
    ] {
        let (count, bytes, entries) = sample_shard(on_shard);
        let st = sub(shards, name);
        assert_eq!(
            keys(st),
            [
                "size",
                "count",
                "avgObjSize",
                "numOrphanDocs",
                "storageSize",
                "freeStorageSize",
                "capped",
                "nindexes",
                "indexBuilds",
                "totalIndexSize",
                "indexSizes",
                "totalSize",
                "scaleFactor"
            ],
            "{name}"
        );
        assert_eq!(num(st, "size"), bytes as f64, "{name}");
        assert_eq!(num(st, "count"), count as f64);
        // `averageObjectSize` is the record store's data size over its records, in whole
        // bytes.
        assert_eq!(num(st, "avgObjSize"), (bytes / count) as f64);
        assert_eq!(num(st, "storageSize"), file(bytes));
        let index_sizes = sub(st, "indexSizes");
        assert_eq!(keys(index_sizes), ["_id_", "x_1", "name_1"]);
        for (name, e) in ["_id_", "x_1", "name_1"].iter().zip(entries) {
            assert_eq!(num(index_sizes, name), file(e));
        }
        let index_total: f64 = entries.iter().map(|e| file(*e)).sum();
        assert_eq!(num(st, "totalIndexSize"), index_total);
        assert_eq!(num(st, "totalSize"), file(bytes) + index_total);
        assert_eq!(st.get("nindexes"), Some(&Bson::Int32(3)));
        total.0 += bytes as f64;
        total.1 += count as f64;
        total.2 += (bytes / count) as f64 * count as f64;
    }
    assert_eq!(stats.get("sharded"), Some(&Bson::Boolean(true)));
    assert_eq!(num(&stats, "size"), total.0);
    assert_eq!(num(&stats, "count"), total.1);
    // 155 bytes over 5 documents and 180 over 5: the cluster's average is 33.5, a
    // JavaScript number with a fraction.
    assert_eq!(
        stats.get("avgObjSize"),
        Some(&Bson::Double(total.2 / total.1))
    );
    assert_eq!(total.2 / total.1, 33.5);
    assert_eq!(
        num(&stats, "storageSize"),
        num(sub(shards, "shard01"), "storageSize") + num(sub(shards, "shard02"), "storageSize")
    );
    assert_eq!(stats.get("ns"), Some(&Bson::String("test.c".into())));
    assert_eq!(stats.get("scaleFactor"), Some(&Bson::Int32(1)));
}

// collection.ts `stats(originalOptions)`: a number is `{scale}`; mongosh divides the
// summed sizes and each shard's (`scaleIndividualShardStatistics`) by the scale as
// JavaScript numbers, so a size can have a fraction; counts and `avgObjSize` stay
// unscaled, and `scaleFactor` is the scale.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn collection_stats_scale_divides_sizes_only() {
    let mut s = session("8.0", SAMPLE);
    let plain = document(&mut s, "db.c.stats()");
    for statement in ["db.c.stats(1024)", "db.c.stats({scale: 1024})"] {
        let scaled = document(&mut s, statement);
        for key in ["size", "storageSize", "totalIndexSize", "totalSize"] {
            assert_eq!(
                num(&scaled, key),
                num(&plain, key) / 1024.0,
                "{statement} {key}"
            );
        }
        assert_eq!(num(&scaled, "size"), 335.0 / 1024.0);
        for key in ["count", "avgObjSize", "nindexes", "numOrphanDocs"] {
            assert_eq!(scaled.get(key), plain.get(key), "{statement} {key}");
        }
        assert_eq!(
            num(sub(&scaled, "indexSizes"), "_id_"),
            num(sub(&plain, "indexSizes"), "_id_") / 1024.0
        );
        let shard = sub(sub(&scaled, "shards"), "shard02");
        assert_eq!(
            num(shard, "size"),
            sample_shard(|x| x >= 5).1 as f64 / 1024.0
        );
        assert_eq!(shard.get("scaleFactor"), Some(&Bson::Int32(1024)));
        assert_eq!(scaled.get("scaleFactor"), Some(&Bson::Int32(1024)));
    }
}

// The per-shard `storageStats` of each era, src/mongo/db/stats/storage_stats.cpp: 4.4/5.0
// write `totalSize` before `indexSizes` and have no `numOrphanDocs` (6.0); 3.6 has no
// `freeStorageSize`, `indexBuilds`, `totalSize` or `scaleFactor` (4.2/4.4), so mongosh's
// sum has no `totalSize` and no `scaleFactor` either (it adds `scaleFactor` only when the
// first shard has one).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn collection_stats_follow_each_eras_storage_stats() {
    let mut s = session("5.0", SAMPLE);
    let stats = document(&mut s, "db.c.stats()");
    assert_eq!(
        keys(sub(sub(&stats, "shards"), "shard01")),
        [
            "size",
            "count",
            "avgObjSize",
            "storageSize",
            "freeStorageSize",
            "capped",
            "nindexes",
            "indexBuilds",
            "totalIndexSize",
            "totalSize",
            "indexSizes",
            "scaleFactor"
        ]
    );
    assert_eq!(
        keys(&stats),
        [
            "ok",
            "capped",
            "shards",
            "sharded",
            "size",
            "count",
            "storageSize",
            "totalIndexSize",
            "totalSize",
            "indexSizes",
            "avgObjSize",
            "ns",
            "nindexes",
            "scaleFactor"
        ]
    );
    let mut s = session("3.6", SAMPLE);
    let stats = document(&mut s, "db.c.stats()");
    assert_eq!(
        keys(sub(sub(&stats, "shards"), "shard02")),
        [
            "size",
            "count",
            "avgObjSize",
            "storageSize",
            "capped",
            "nindexes",
            "totalIndexSize",
            "indexSizes"
        ]
    );
    assert!(!stats.contains_key("scaleFactor") && !stats.contains_key("totalSize"));
    let (_, low, _) = sample_shard(|x| x < 5);
    let (_, high, _) = sample_shard(|x| x >= 5);
    assert_eq!(num(&stats, "size"), (low + high) as f64);
}

// collection.ts `stats()`: the index-detail filters are checked before anything is sent
// (packages/shell-api/src/collection.spec.ts, 'indexDetails': "throws when
// indexDetailsName and indexDetailsKey are given", "throws when indexDetailsKey is not an
// object", "throws when indexDetailsName is not a string", each a
// MongoshInvalidInputError with CommonErrors.InvalidArgument, COMMON-10001);
// `indexDetails` is kept only when asked for ("not returned when no args", "returned all
// when true"), in its place after `capped`. An unsharded collection's one document comes
// from the primary shard and config.collections has no entry for it.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn collection_stats_options_and_unsharded_collections() {
    let mut s = session("8.0", SAMPLE);
    assert_eq!(
        printed(
            &mut s,
            "db.c.stats({indexDetails: true, indexDetailsName: 'x_1', indexDetailsKey: {x: 1}})"
        ),
        "MongoshInvalidInputError: [COMMON-10001] Cannot filter indexDetails on both indexDetailsKey and indexDetailsName"
    );
    assert_eq!(
        printed(&mut s, "db.c.stats({indexDetails: true, indexDetailsKey: 'x'})"),
        "MongoshInvalidInputError: [COMMON-10001] Expected options.indexDetailsKey to be a document, got string"
    );
    assert_eq!(
        printed(&mut s, "db.c.stats({indexDetails: true, indexDetailsName: {}})"),
        "MongoshInvalidInputError: [COMMON-10001] Expected options.indexDetailsName to be a string, got object"
    );
    let with = document(&mut s, "db.c.stats({indexDetails: true})");
    assert_eq!(keys(&with)[..4], ["ok", "capped", "indexDetails", "shards"]);
    assert!(sub(sub(&with, "shards"), "shard01").contains_key("indexDetails"));
    let without = document(&mut s, "db.c.stats({indexDetails: false})");
    assert!(!without.contains_key("indexDetails"));
    assert!(!sub(sub(&without, "shards"), "shard01").contains_key("indexDetails"));

    let u = document(&mut s, "db.u.stats()");
    assert_eq!(u.get("sharded"), Some(&Bson::Boolean(false)));
    assert_eq!(keys(sub(&u, "shards")), ["shard01"]);
    let one = bson_size(&doc! { "_id": 1 });
    assert_eq!(num(&u, "size"), one as f64);
    assert_eq!(num(&u, "storageSize"), file(one));
    assert_eq!(
        num(sub(&u, "indexSizes"), "_id_"),
        file(entry(vec![Bson::Int32(1)]))
    );
    assert_eq!(u.get("nindexes"), Some(&Bson::Int32(1)));
}

// A collection the primary shard does not have fails the `$collStats` stage
// (storage_stats.cpp returns NamespaceNotFound "Collection [<ns>] not found.", which
// DocumentSourceCollStats wraps with "Unable to retrieve storageStats in $collStats
// stage"); for a database mongos does not know the aggregation answers no document and
// collection.ts throws its own MongoshRuntimeError (CommonErrors.CommandFailed,
// COMMON-10004).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn collection_stats_of_what_does_not_exist() {
    let mut s = session("8.0", SAMPLE);
    assert_eq!(
        printed(&mut s, "db.nope.stats()"),
        "MongoServerError[NamespaceNotFound]: Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [test.nope] not found."
    );
    assert_eq!(
        printed(&mut s, "db.getSiblingDB('elsewhere').c.stats()"),
        "MongoshRuntimeError: [COMMON-10004] Error running $collStats aggregation stage on elsewhere.c"
    );
}

// --- 2. db.stats() and the dbStats command -----------------------------------------------

// mongosh packages/shell-api/src/database.ts `stats(scaleOrOptions = 1)`: sends
// `{dbStats: 1, scale: 1, ...options}`. mongos (src/mongo/s/commands/
// cluster_db_stats_cmd.cpp) asks every shard and answers `raw` (each shard's reply by its
// connection string), `db`, then the sums: `avgObjSize` from each shard's unscaled average
// times its objects; 8.0 in mongod's order, the index figures before `totalSize`. Each
// shard's reply is `DatabaseImpl::getStats` (src/mongo/db/catalog/database_impl.cpp):
// sizes divided by the scale as doubles.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn db_stats_answers_every_shard_and_the_sums() {
    let mut s = session("8.0", SAMPLE);
    let stats = document(&mut s, "db.stats()");
    assert_eq!(
        keys(&stats),
        [
            "raw",
            "db",
            "collections",
            "views",
            "objects",
            "avgObjSize",
            "dataSize",
            "storageSize",
            "indexes",
            "indexSize",
            "totalSize",
            "scaleFactor",
            "fsUsedSize",
            "fsTotalSize",
            "ok"
        ]
    );
    let raw = sub(&stats, "raw");
    assert_eq!(
        keys(raw),
        [
            "shard01/localhost:27117",
            "shard02/localhost:27217",
            "shard03/localhost:27317"
        ]
    );
    let primary = sub(raw, "shard01/localhost:27117");
    assert_eq!(
        keys(primary),
        [
            "db",
            "collections",
            "views",
            "objects",
            "avgObjSize",
            "dataSize",
            "storageSize",
            "indexes",
            "indexSize",
            "totalSize",
            "scaleFactor",
            "ok"
        ]
    );
    let (_, low, low_entries) = sample_shard(|x| x < 5);
    let (_, high, high_entries) = sample_shard(|x| x >= 5);
    let u = bson_size(&doc! { "_id": 1 });
    // shard01 holds `test.c`'s low half and `test.u`; shard02 the high half; shard03
    // nothing of the database.
    assert_eq!(num(primary, "collections"), 2.0);
    assert_eq!(num(primary, "objects"), 6.0);
    assert_eq!(num(primary, "dataSize"), (low + u) as f64);
    assert_eq!(num(primary, "avgObjSize"), (low + u) as f64 / 6.0);
    assert_eq!(num(primary, "storageSize"), file(low) + file(u));
    assert_eq!(num(primary, "indexes"), 4.0);
    let low_indexes: f64 = low_entries.iter().map(|e| file(*e)).sum();
    let u_index = file(entry(vec![Bson::Int32(1)]));
    assert_eq!(num(primary, "indexSize"), low_indexes + u_index);
    let empty = sub(raw, "shard03/localhost:27317");
    assert_eq!(num(empty, "collections"), 0.0);
    assert_eq!(num(empty, "dataSize"), 0.0);

    let high_indexes: f64 = high_entries.iter().map(|e| file(*e)).sum();
    assert_eq!(stats.get("db"), Some(&Bson::String("test".into())));
    assert_eq!(num(&stats, "collections"), 3.0);
    assert_eq!(num(&stats, "objects"), 11.0);
    assert_eq!(num(&stats, "dataSize"), (low + u + high) as f64);
    assert_eq!(
        stats.get("avgObjSize"),
        Some(&Bson::Double((low + u + high) as f64 / 11.0))
    );
    assert_eq!(
        num(&stats, "totalSize"),
        file(low) + file(u) + file(high) + low_indexes + u_index + high_indexes
    );
    assert_eq!(num(&stats, "indexes"), 7.0);

    let kib = document(&mut s, "db.stats(1024)");
    assert_eq!(num(&kib, "dataSize"), (low + u + high) as f64 / 1024.0);
    assert_eq!(kib.get("scaleFactor"), Some(&Bson::Int32(1024)));
    assert_eq!(kib.get("avgObjSize"), stats.get("avgObjSize"));
    assert_eq!(
        document(&mut s, "db.runCommand({dbStats: 1, scale: 1024})"),
        kib
    );
    assert_eq!(
        printed(&mut s, "db.stats({scale: 0})"),
        "MongoServerError[BadValue]: Scale must be greater than zero"
    );
    // helpers.ts `assertArgsDefinedType([...], [['number', 'object']], 'Database.stats')`.
    assert_eq!(
        printed(&mut s, "db.stats('x')"),
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type number or object, got string instead (Database.stats)"
    );
}

// cluster_db_stats_cmd.cpp before the 8.0 line wrote `totalSize` right after
// `storageSize`; 3.6's mongos (a RunOnAllShardsCommand) summed extents and file sizes
// and wrote neither `db` nor the collection counts.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn db_stats_follow_each_eras_mongos() {
    let mut s = session("5.0", SAMPLE);
    let stats = document(&mut s, "db.stats()");
    assert_eq!(
        keys(&stats)[5..12],
        [
            "avgObjSize",
            "dataSize",
            "storageSize",
            "totalSize",
            "indexes",
            "indexSize",
            "scaleFactor"
        ]
    );
    let mut s = session("3.6", SAMPLE);
    let stats = document(&mut s, "db.stats()");
    assert_eq!(
        keys(&stats),
        [
            "raw",
            "objects",
            "avgObjSize",
            "dataSize",
            "storageSize",
            "numExtents",
            "indexes",
            "indexSize",
            "fileSize",
            "extentFreeList",
            "ok"
        ]
    );
    assert_eq!(num(&stats, "objects"), 11.0);
}

// --- 3. The collStats command through mongos ------------------------------------------

// src/mongo/s/commands/cluster_coll_stats_cmd.cpp: `sharded`, the fields copied from the
// first shard (`capped`, `indexDetails`), `ns`, the sums from a std::map (so by name:
// `count`, `size`, `storageSize`, `totalIndexSize`, `totalSize`), `indexSizes` by name,
// `avgObjSize` as a double, `maxSize` (a long), `nindexes`, `scaleFactor`, `nchunks`, and
// each shard's reply scaled in whole numbers; a scale below 1 is 4390200, a scale that is
// not a number 4390201; an unsharded collection names its primary shard.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn coll_stats_command_through_mongos() {
    let mut s = session("8.0", SAMPLE);
    let stats = document(&mut s, "db.runCommand({collStats: 'c'})");
    assert_eq!(
        keys(&stats),
        [
            "sharded",
            "capped",
            "indexDetails",
            "ns",
            "count",
            "size",
            "storageSize",
            "totalIndexSize",
            "totalSize",
            "indexSizes",
            "avgObjSize",
            "maxSize",
            "nindexes",
            "scaleFactor",
            "nchunks",
            "shards",
            "ok"
        ]
    );
    assert_eq!(keys(sub(&stats, "indexSizes")), ["_id_", "name_1", "x_1"]);
    let (_, low, _) = sample_shard(|x| x < 5);
    let (_, high, _) = sample_shard(|x| x >= 5);
    assert_eq!(num(&stats, "size"), (low + high) as f64);
    assert_eq!(stats.get("avgObjSize"), Some(&Bson::Double(33.5)));
    assert_eq!(stats.get("maxSize"), Some(&Bson::Int64(0)));
    assert_eq!(stats.get("nchunks"), Some(&Bson::Int32(2)));
    let shard = sub(sub(&stats, "shards"), "shard01");
    assert_eq!(shard.get("ns"), Some(&Bson::String("test.c".into())));
    assert_eq!(keys(shard).last(), Some(&"ok"));

    let kib = document(&mut s, "db.runCommand({collStats: 'c', scale: 1024})");
    // Whole numbers: 335 / 1024 is 0 in the sum, 155 / 1024 is 0 on a shard.
    assert_eq!(num(&kib, "size"), 0.0);
    assert_eq!(
        num(&kib, "storageSize"),
        num(&stats, "storageSize") / 1024.0
    );
    assert_eq!(
        printed(&mut s, "db.runCommand({collStats: 'c', scale: 0})"),
        "MongoServerError[Location4390200]: scale has to be >= 1"
    );
    assert_eq!(
        printed(&mut s, "db.runCommand({collStats: 'c', scale: 'x'})"),
        "MongoServerError[Location4390201]: scale has to be a number >= 1"
    );
    let u = document(&mut s, "db.runCommand({collStats: 'u'})");
    assert_eq!(keys(&u)[..2], ["sharded", "primary"]);
    assert_eq!(u.get("primary"), Some(&Bson::String("shard01".into())));
    assert_eq!(u.get("nchunks"), Some(&Bson::Int32(1)));
}

// --- 4. Defragmentation -------------------------------------------------------------

/// A fragmented `test.c` in 8.0 mode: 600 documents of about 1 KiB under a 1 MB chunk
/// size, split every 50 keys and four of the twelve chunks moved, as
/// defragmentation_util.js's `createFragmentedCollection` fragments one.
const FRAGMENTED: &str = "sh.shardCollection('test.c', {x: 1})
db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 1})
sim.generate('test.c', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 600)
for (let i = 1; i < 12; i++) { sh.splitAt('test.c', {x: i * 50}) }
sh.moveChunk('test.c', {x: 100}, 'shard02')
sh.moveChunk('test.c', {x: 200}, 'shard03')
sh.moveChunk('test.c', {x: 250}, 'shard02')
sh.moveChunk('test.c', {x: 400}, 'shard03')";

/// `balancer_defragmentation_policy.cpp`: 25% of the collection's chunk size (1 MB).
const SMALL_CHUNK: f64 = ((1_048_576 / 100) * 25) as f64;

fn config(s: &Session, name: &str) -> Vec<Document> {
    shardlab::engine::config_documents(&s.cluster, name).unwrap()
}

fn collection_entry(s: &Session) -> Document {
    config(s, "collections")
        .into_iter()
        .find(|d| d.get_str("_id").ok() == Some("test.c"))
        .unwrap()
}

/// defragmentation_util.js `checkPostDefragmentationState`: no two adjacent chunks on one
/// shard in the same zone (config.tags' range holding each) are left unmerged.
fn assert_no_mergeable_siblings(s: &Session) {
    let tags = config(s, "tags");
    let x = |d: &Document, k: &str| d.get_document(k).unwrap().get("x").unwrap().clone();
    let zone_of = |c: &Document| {
        tags.iter()
            .find(|t| {
                use shardlab::compare_values;
                compare_values(&x(t, "min"), &x(c, "min")).is_le()
                    && compare_values(&x(c, "max"), &x(t, "max")).is_le()
            })
            .map(|t| t.get_str("tag").unwrap().to_string())
    };
    let chunks = config(s, "chunks");
    for pair in chunks.windows(2) {
        let same_shard = pair[0].get_str("shard").ok() == pair[1].get_str("shard").ok();
        assert!(
            !(same_shard && zone_of(&pair[0]) == zone_of(&pair[1])),
            "{:?} and {:?} should have been merged",
            pair[0],
            pair[1]
        );
    }
}

// jstests/sharding/balancer_defragmentation_merge_chunks.js, "Begin and end
// defragmentation with balancer off": the flag makes the collection
// `defragmentingChunks` at once; the balancer's state is built only by a balancer round
// (Balancer::_mainThread, `startCollectionDefragmentations`), so meanwhile
// `reportProgressOn` answers `{currentPhase: 'none'}`; `defragmentCollection: false`
// (`abortCollectionDefragmentation`) persists the phase `finished` and the flags go only
// when the balancer runs ("Phase 3 still has to run" in later versions of the jstest).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn defragmentation_with_the_balancer_off() {
    let mut s = session("8.0", FRAGMENTED);
    run_ok(
        &mut s,
        "sh.stopBalancer()
db.adminCommand({configureCollectionBalancing: 'test.c', defragmentCollection: true})",
    );
    let entry = collection_entry(&s);
    assert_eq!(
        entry.get("defragmentCollection"),
        Some(&Bson::Boolean(true))
    );
    assert!(!entry.contains_key("defragmentationPhase"));
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_eq!(
        status,
        doc! {
            "chunkSize": 1.0,
            "balancerCompliant": false,
            "firstComplianceViolation": "defragmentingChunks",
            "details": { "currentPhase": "none" },
            "ok": 1,
        }
    );
    document(
        &mut s,
        "db.adminCommand({configureCollectionBalancing: 'test.c', defragmentCollection: false})",
    );
    assert_eq!(
        collection_entry(&s).get("defragmentationPhase"),
        Some(&Bson::String("finished".into()))
    );
    run_ok(&mut s, "sleep(60000)");
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_eq!(
        status.get("firstComplianceViolation"),
        Some(&Bson::String("defragmentingChunks".into()))
    );
    run_ok(&mut s, "sh.startBalancer()\nsleep(10000)");
    let entry = collection_entry(&s);
    assert!(!entry.contains_key("defragmentCollection"));
    assert!(!entry.contains_key("defragmentationPhase"));
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_ne!(
        status.get("firstComplianceViolation"),
        Some(&Bson::String("defragmentingChunks".into()))
    );
    // Aborted before any phase ran: the twelve chunks are as they were.
    assert_eq!(config(&s, "chunks").len(), 12);
}

// balancer_chunk_selection_policy / balancer_policy.cpp `canBalanceCollection`: a
// collection with `defragmentCollection` set is no candidate for the ordinary balancing.
// 4 MB on one shard under a 1 MB chunk size is a migration for the 8.0 policy (donor and
// recipient differ by three chunk sizes), until the flag is set.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_collection_being_defragmented_is_not_balanced() {
    let setup = "sh.shardCollection('test.d', {x: 1})
db.adminCommand({configureCollectionBalancing: 'test.d', chunkSize: 1})
sim.generate('test.d', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 4000)
sh.stopBalancer()";
    let mut plain = session("8.0", setup);
    run_ok(&mut plain, "sh.startBalancer()");
    assert_eq!(
        value(&mut plain, "sim.balance('test.d').migrations.length"),
        Bson::Int32(1)
    );
    let mut flagged = session("8.0", setup);
    run_ok(
        &mut flagged,
        "db.adminCommand({configureCollectionBalancing: 'test.d', defragmentCollection: true})
sh.startBalancer()",
    );
    assert_eq!(
        value(&mut flagged, "sim.balance('test.d').migrations.length"),
        Bson::Int32(0)
    );
}

// balancer_defragmentation_policy.cpp: the first balancer round builds phase 1
// (`MergeAndMeasureChunksPhase`), whose merges and `dataSize` measurements (`estimate:
// true`: the documents times the shard's average object size) run at once and persist
// `estimatedDataSizeBytes`; phase 2 (`moveAndMergeChunks`) is then persisted and reports
// its small chunks (estimate at most 25% of the chunk size) as
// `remainingChunksToProcess`. Rounds move small chunks next to a sibling and merge them;
// then phase 3 merges what is left adjacent and `_clearDefragmentationState` unsets the
// flags and the estimates. The end state passes defragmentation_util.js
// `checkPostDefragmentationState`, and no document is lost.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn defragmentation_merges_moves_and_finishes() {
    let mut s = session("8.0", FRAGMENTED);
    let before = config(&s, "chunks").len();
    assert_eq!(before, 12);
    document(
        &mut s,
        "db.adminCommand({configureCollectionBalancing: 'test.c', defragmentCollection: true})",
    );
    // The balancer's first round is 10 s after the cluster started.
    run_ok(&mut s, "sleep(10000)");
    assert_eq!(
        collection_entry(&s).get("defragmentationPhase"),
        Some(&Bson::String("moveAndMergeChunks".into()))
    );
    let chunks = config(&s, "chunks");
    for pair in chunks.windows(2) {
        assert_ne!(
            pair[0].get_str("shard").ok(),
            pair[1].get_str("shard").ok(),
            "phase 1 merges adjacent chunks of a shard"
        );
    }
    let stats = document(&mut s, "db.c.stats()");
    let mut small = 0;
    for c in &chunks {
        let (lo, hi) = (
            c.get_document("min").unwrap().get("x").unwrap().clone(),
            c.get_document("max").unwrap().get("x").unwrap().clone(),
        );
        let shard = c.get_str("shard").unwrap();
        let avg = num(sub(sub(&stats, "shards"), shard), "avgObjSize");
        let docs = number(&value(
            &mut s,
            &format!(
                "db.c.countDocuments({{x: {{$gte: {}, $lt: {}}}}})",
                shardlab::shell::format_value(&lo),
                shardlab::shell::format_value(&hi)
            ),
        ));
        let estimate = c.get_i64("estimatedDataSizeBytes").unwrap() as f64;
        assert_eq!(estimate, docs * avg, "{c:?}");
        if estimate <= SMALL_CHUNK {
            small += 1;
        }
    }
    assert!(small > 0);
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_eq!(
        sub(&status, "details"),
        &doc! {
            "currentPhase": "moveAndMergeChunks",
            "progress": { "remainingChunksToProcess": small as i64 },
        }
    );
    // That round moved nothing, so the next is 10 s later; it moves small chunks (a
    // changelog `moveChunk.commit` each) and merges each with its sibling.
    let moves_before = config(&s, "changelog")
        .iter()
        .filter(|d| d.get_str("what").ok() == Some("moveChunk.commit"))
        .count();
    run_ok(&mut s, "sleep(10000)");
    let moves_after = config(&s, "changelog")
        .iter()
        .filter(|d| d.get_str("what").ok() == Some("moveChunk.commit"))
        .count();
    assert!(moves_after > moves_before);
    run_ok(&mut s, "sleep(300000)");
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_eq!(status.get("balancerCompliant"), Some(&Bson::Boolean(true)));
    let entry = collection_entry(&s);
    assert!(!entry.contains_key("defragmentCollection"));
    assert!(!entry.contains_key("defragmentationPhase"));
    let after = config(&s, "chunks");
    assert!(after.len() < before, "{after:?}");
    assert!(after
        .iter()
        .all(|c| !c.contains_key("estimatedDataSizeBytes")));
    assert_no_mergeable_siblings(&s);
    assert_eq!(value(&mut s, "db.c.countDocuments()"), Bson::Int32(600));
    s.cluster.check().unwrap();
}

// balancer_defragmentation_policy.cpp `areMergeable` and `_getChunkSiblings` compare the
// zones of two chunks (`ZoneInfo::getZoneForRange`): chunks in different zones are
// never merged, so a zone range stays a chunk boundary; a chunk moved by hand under
// phase 2 makes its migration or merge fail, which restarts defragmentation from phase 1
// (`_abort(kMergeAndMeasureChunks)`); it still ends in checkPostDefragmentationState's
// shape (jstests/sharding/balancer_defragmentation_merge_chunks.js also moves chunks by
// hand while it runs).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn defragmentation_respects_zones_and_chunks_moved_by_hand() {
    let mut s = session(
        "8.0",
        &format!(
            "{FRAGMENTED}
sh.addShardToZone('shard01', 'Z')
sh.addShardToZone('shard02', 'Z')
sh.updateZoneKeyRange('test.c', {{x: 100}}, {{x: 300}}, 'Z')
db.adminCommand({{configureCollectionBalancing: 'test.c', defragmentCollection: true}})
sleep(10000)
sh.moveChunk('test.c', {{x: 0}}, 'shard03')
sleep(300000)"
        ),
    );
    let status = document(&mut s, "sh.balancerCollectionStatus('test.c')");
    assert_eq!(status.get("balancerCompliant"), Some(&Bson::Boolean(true)));
    let bounds: Vec<Bson> = config(&s, "chunks")
        .iter()
        .map(|c| c.get_document("min").unwrap().get("x").unwrap().clone())
        .collect();
    assert!(bounds.contains(&Bson::Int32(100)), "{bounds:?}");
    assert!(bounds.contains(&Bson::Int32(300)), "{bounds:?}");
    assert_no_mergeable_siblings(&s);
    assert_eq!(value(&mut s, "db.c.countDocuments()"), Bson::Int32(600));
}

// The same commands give the same cluster (the policy's shard and collection orders
// are fixed where MongoDB's are hash-map or random orders).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn defragmentation_is_deterministic() {
    let script = format!(
        "{FRAGMENTED}
db.adminCommand({{configureCollectionBalancing: 'test.c', defragmentCollection: true}})
sleep(12000)"
    );
    let a = session("8.0", &script);
    let b = session("8.0", &script);
    assert_eq!(config(&a, "chunks"), config(&b, "chunks"));
    assert_eq!(config(&a, "changelog"), config(&b, "changelog"));
    assert_eq!(a.cluster.now_ms(), b.cluster.now_ms());
}

// configure_collection_balancing.idl and ShardingCatalogManager::
// configureCollectionBalancing: `defragmentCollection` is a bool; `false` reads the
// collection's catalog entry first (`abortCollectionDefragmentation`,
// ShardingCatalogClient::getCollection: NamespaceNotFound), `true` is a field of the
// update, which must match the sharded collection (NamespaceNotSharded). The command is
// 5.3's, so the 5.0 mode's mongos does not know it, and mongosh has no
// `sh.configureCollectionBalancing` helper (packages/shell-api/src/shard.ts).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn configure_collection_balancing_refuses_bad_input() {
    let mut s = session("8.0", "sh.shardCollection('test.c', {x: 1})");
    assert_eq!(
        printed(
            &mut s,
            "db.adminCommand({configureCollectionBalancing: 'test.c', defragmentCollection: 1})"
        ),
        "MongoServerError[TypeMismatch]: BSON field 'configureCollectionBalancing.defragmentCollection' is the wrong type 'int', expected type 'bool'"
    );
    assert_eq!(
        printed(
            &mut s,
            "db.adminCommand({configureCollectionBalancing: 'test.nope', defragmentCollection: false})"
        ),
        "MongoServerError[NamespaceNotFound]: collection test.nope not found"
    );
    assert_eq!(
        printed(
            &mut s,
            "db.adminCommand({configureCollectionBalancing: 'test.nope', defragmentCollection: true})"
        ),
        "MongoServerError[NamespaceNotSharded]: Expected to match one doc for query { _id: \"test.nope\" } but matched 0"
    );
    assert_eq!(
        printed(
            &mut s,
            "sh.configureCollectionBalancing('test.c', {defragmentCollection: true})"
        ),
        "TypeError: sh.configureCollectionBalancing is not a function"
    );
    let mut old = session("5.0", "sh.shardCollection('test.c', {x: 1})");
    assert_eq!(
        printed(
            &mut old,
            "db.adminCommand({configureCollectionBalancing: 'test.c', defragmentCollection: true})"
        ),
        "MongoServerError[CommandNotFound]: no such cmd: configureCollectionBalancing"
    );
    assert_eq!(
        document(&mut old, "sh.balancerCollectionStatus('test.c')"),
        doc! { "balancerCompliant": true, "ok": 1 }
    );
}
