//! The config database as each version mode lays it out, read from the shell
//! (`db.getSiblingDB("config").chunks.find()`, `use config`), its aggregations, its
//! refused writes, `$shardedDataDistribution` and `sh.getShardedDataDistribution()`.
//! Each case names the MongoDB or mongosh source its answer follows.
#![allow(clippy::unwrap_used)]

use expect_test::{expect, Expect};
use shardlab::engine::{
    ChangelogDoc, ChunkDoc, CollectionDoc, DatabaseDoc, SettingDoc, ShardDoc, TagDoc,
    CONFIG_COLLECTIONS,
};
use shardlab::session::Session;

/// Runs `script` in a new session of `version` and prints every outcome as mongosh
/// prints it, one after the other.
fn run(version: &str, script: &str) -> String {
    let mut session = Session::default();
    let reset = session.run(&format!("sim.reset({{version: '{version}'}})"));
    assert!(reset[0].result.is_ok(), "{:?}", reset[0].result);
    let out: Vec<String> = session
        .run(script)
        .iter()
        .filter_map(|o| o.render())
        .collect();
    session.cluster.check().unwrap();
    out.join("\n")
}

/// What the last statement of `script` printed, in a new session of `version`.
fn last_output(version: &str, script: &str) -> String {
    let mut session = Session::default();
    session.run(&format!("sim.reset({{version: '{version}'}})"));
    let out = session.run(script);
    out.last().and_then(|o| o.render()).unwrap_or_default()
}

fn check(version: &str, script: &str, expected: Expect) {
    expected.assert_eq(&run(version, script));
}

/// A collection on `{x: 1}` with four documents, split at 10 and that chunk moved.
const SPLIT_AND_MOVE: &str = "sh.shardCollection('test.users', {x: 1})
db.users.insertMany([{x: 1}, {x: 5}, {x: 10}, {x: 20}])
sh.splitAt('test.users', {x: 10})
sh.moveChunk('test.users', {x: 10}, 'shard02')
";

#[test]
fn chunks_in_3_6_name_their_collection_by_ns_with_a_string_id() {
    // type_chunk.cpp (3.6), ChunkType::toBSON: `_id` from genID(ns, min) (the namespace,
    // `-`, then `field_value` per bound field), `ns`, `min`, `max`, `shard`, then
    // ChunkVersion::appendForChunk's `lastmod` and `lastmodEpoch`; no history yet.
    check(
        "3.6",
        &format!(
            "{SPLIT_AND_MOVE}db.getSiblingDB('config').chunks.find({{}}, {{lastmodEpoch: 0}})"
        ),
        expect![[r#"
            { collectionsharded: 'test.users', ok: 1 }
            {
              acknowledged: true,
              insertedIds: {
                '0': ObjectId('6553f101c1675e0bb9150280'),
                '1': ObjectId('6553f101c1675e0bb9150281'),
                '2': ObjectId('6553f101c1675e0bb9150282'),
                '3': ObjectId('6553f101c1675e0bb9150283')
              }
            }
            { ok: 1 }
            { millis: 0, ok: 1 }
            [
              {
                _id: 'test.users-x_MinKey',
                ns: 'test.users',
                min: { x: MinKey() },
                max: { x: 10 },
                shard: 'shard01',
                lastmod: Timestamp({ t: 2, i: 1 })
              },
              {
                _id: 'test.users-x_10',
                ns: 'test.users',
                min: { x: 10 },
                max: { x: MaxKey() },
                shard: 'shard02',
                lastmod: Timestamp({ t: 2, i: 0 })
              }
            ]"#]],
    );
}

#[test]
fn chunks_from_5_0_name_their_collection_by_uuid_with_history() {
    // type_chunk.cpp (5.x), ChunkType::toConfigBSON: `_id` (an ObjectId), `uuid`, `min`,
    // `max`, `shard`, `lastmod`, then addHistoryToBSON's `history`; 8.0's also writes
    // `onCurrentShardSince`, equal to the first `validAfter`. The moved chunk's history
    // starts at the migration, the other's at shardCollection.
    let script =
        format!("{SPLIT_AND_MOVE}use config\ndb.chunks.find({{}}, {{_id: 0, uuid: 0, min: 0}})");
    let tail = |s: String| {
        s.split("switched to db config\n")
            .nth(1)
            .unwrap()
            .to_string()
    };
    expect![[r#"
        [
          {
            max: { x: 10 },
            shard: 'shard01',
            lastmod: Timestamp({ t: 2, i: 1 }),
            history: [
              {
                validAfter: Timestamp({ t: 1735689600, i: 2 }),
                shard: 'shard01'
              }
            ]
          },
          {
            max: { x: MaxKey() },
            shard: 'shard02',
            lastmod: Timestamp({ t: 2, i: 0 }),
            history: [
              {
                validAfter: Timestamp({ t: 1735689600, i: 6 }),
                shard: 'shard02'
              },
              {
                validAfter: Timestamp({ t: 1735689600, i: 2 }),
                shard: 'shard01'
              }
            ]
          }
        ]"#]]
    .assert_eq(&tail(run("5.0", &script)));
    expect![[r#"
        [
          {
            max: { x: 10 },
            shard: 'shard01',
            lastmod: Timestamp({ t: 2, i: 1 }),
            onCurrentShardSince: Timestamp({ t: 1735689600, i: 2 }),
            history: [
              {
                validAfter: Timestamp({ t: 1735689600, i: 2 }),
                shard: 'shard01'
              }
            ]
          },
          {
            max: { x: MaxKey() },
            shard: 'shard02',
            lastmod: Timestamp({ t: 2, i: 0 }),
            onCurrentShardSince: Timestamp({ t: 1735689600, i: 6 }),
            history: [
              {
                validAfter: Timestamp({ t: 1735689600, i: 6 }),
                shard: 'shard02'
              },
              {
                validAfter: Timestamp({ t: 1735689600, i: 2 }),
                shard: 'shard01'
              }
            ]
          }
        ]"#]]
    .assert_eq(&tail(run("8.0", &script)));
}

#[test]
fn a_chunk_names_the_uuid_of_its_collection() {
    // type_collection.idl: config.collections keeps the `uuid` config.chunks refers to.
    let script = "sh.shardCollection('test.c', {x: 1})
var c = db.getSiblingDB('config').collections.findOne({_id: 'test.c'})
db.getSiblingDB('config').chunks.countDocuments({uuid: c.uuid})";
    assert!(
        run("8.0", script).ends_with("\n1"),
        "{}",
        run("8.0", script)
    );
    assert!(run("3.6", script).ends_with("\n0"));
}

#[test]
fn collections_follow_their_era_layout() {
    // 3.6: CollectionType::toBSON (type_collection.cpp): `_id`, `lastmodEpoch`,
    // `lastmod`, `dropped`, `key`, `unique`, `uuid`, and `noBalance` only once set.
    // 5.0+: type_collection.idl's field order, `timestamp` added, `unique` and
    // `noBalance` always written (the IDL gives them defaults).
    let script = "sh.shardCollection('test.c', {x: 'hashed'})
sh.disableBalancing('test.c')
db.getSiblingDB('config').collections.find({}, {lastmodEpoch: 0})";
    expect![[r#"
        [
          {
            _id: 'test.c',
            lastmod: ISODate('2025-01-01T00:00:00.001Z'),
            dropped: false,
            key: { x: 'hashed' },
            unique: false,
            uuid: UUID('e3a526b3-0216-4165-bcbc-e424755297e1'),
            noBalance: true
          }
        ]"#]]
    .assert_eq(&last_output("3.6", script));
    expect![[r#"
        [
          {
            _id: 'test.c',
            lastmod: ISODate('2025-01-01T00:00:00.001Z'),
            timestamp: Timestamp({ t: 1735689600, i: 2 }),
            uuid: UUID('e3a526b3-0216-4165-bcbc-e424755297e1'),
            key: { x: 'hashed' },
            unique: false,
            noBalance: true
          }
        ]"#]]
    .assert_eq(&last_output("8.0", script));
}

#[test]
fn databases_shards_tags_and_settings_per_era() {
    // type_database.idl: `partitioned` until 6.x, the version from 5.0.
    // type_shard.cpp, ShardType::toBSON: `_id`, `host`, `draining`, `tags`, `state`,
    // `topologyTime` (5.0+), `replSetConfigVersion: Long('-1')` (8.0). A draining shard
    // is marked (removeShard).
    // assignKeyRangeToZone (sharding_catalog_manager_zone_operations.cpp): 3.6 writes
    // `_id: {ns, min}`; later releases upsert by `{ns, min}`, so `_id` is an ObjectId.
    // balancer_configuration.cpp: balancerStop writes `mode: 'off', stopped: true`;
    // mongosh's disableAutoSplit upserts `{_id: 'autosplit', enabled: false}` (shard.ts,
    // whatever the server); 8.0 prints a deprecation warning first, and its
    // config.settings validator, which has no branch for `autosplit`
    // (sharding_catalog_manager.cpp `_initConfigSettings`), refuses the document.
    let script = "sh.addShardToZone('shard01', 'A')
sh.shardCollection('test.c', {x: 1})
sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')
db.adminCommand({removeShard: 'shard03'})
sh.stopBalancer()
sh.disableAutoSplit()
use config
db.databases.find()
db.shards.find({}, {host: 0})
db.tags.find()
db.settings.find()";
    let tail = |s: String| {
        s.split("switched to db config\n")
            .nth(1)
            .unwrap()
            .to_string()
    };
    expect![[r#"
        [ { _id: 'test', primary: 'shard01', partitioned: true } ]
        [
          { _id: 'shard01', tags: [ 'A' ], state: 1 },
          { _id: 'shard02', state: 1 },
          { _id: 'shard03', draining: true, state: 1 }
        ]
        [
          {
            _id: { ns: 'test.c', min: { x: 0 } },
            ns: 'test.c',
            min: { x: 0 },
            max: { x: 10 },
            tag: 'A'
          }
        ]
        [
          { _id: 'balancer', mode: 'off', stopped: true },
          { _id: 'autosplit', enabled: false }
        ]"#]]
    .assert_eq(&tail(run("3.6", script)));
    expect![[r#"
        [
          {
            _id: 'test',
            primary: 'shard01',
            version: {
              uuid: UUID('d4b11706-1186-465c-aa83-b9c0daaef29a'),
              timestamp: Timestamp({ t: 1735689600, i: 1 }),
              lastMod: 1
            }
          }
        ]
        [
          {
            _id: 'shard01',
            tags: [ 'A' ],
            state: 1,
            topologyTime: Timestamp({ t: 1735689600, i: 1 }),
            replSetConfigVersion: Long('-1')
          },
          {
            _id: 'shard02',
            state: 1,
            topologyTime: Timestamp({ t: 1735689600, i: 1 }),
            replSetConfigVersion: Long('-1')
          },
          {
            _id: 'shard03',
            draining: true,
            state: 1,
            topologyTime: Timestamp({ t: 1735689600, i: 1 }),
            replSetConfigVersion: Long('-1')
          }
        ]
        [
          {
            _id: ObjectId('67748580576e53f0bace0e8c'),
            ns: 'test.c',
            min: { x: 0 },
            max: { x: 10 },
            tag: 'A'
          }
        ]
        [ { _id: 'balancer', mode: 'off', stopped: true } ]"#]]
    .assert_eq(&tail(run("8.0", script)));
}

#[test]
fn a_split_and_a_migration_appear_in_the_changelog() {
    // sharding_catalog_manager_chunk_operations.cpp, commitChunkSplit: a split of one
    // point logs `split` with `before`, `left` and `right`; more points log one
    // `multi-split` per new chunk with `number` and `of`. migration_source_manager.cpp
    // and migration_destination_manager.cpp log `moveChunk.start`, `moveChunk.to`,
    // `moveChunk.commit` and `moveChunk.from` (with `note: 'success'`, which mongosh's
    // sh.status counts as a successful migration).
    let script = format!(
        "{SPLIT_AND_MOVE}db.adminCommand({{split: 'test.users', middle: {{x: 5}}}})
use config
db.changelog.find({{}}, {{_id: 0, what: 1, server: 1, shard: 1}})
db.changelog.find({{what: 'moveChunk.from'}}, {{_id: 0, details: 1}})
db.changelog.countDocuments({{what: /^moveChunk/}})"
    );
    let tail = |s: String| {
        s.split("switched to db config\n")
            .nth(1)
            .unwrap()
            .to_string()
    };
    expect![[r#"
        [
          {
            server: 'localhost:27117',
            shard: 'shard01',
            what: 'shardCollection.start'
          },
          {
            server: 'localhost:27117',
            shard: 'shard01',
            what: 'shardCollection.end'
          },
          { server: 'localhost:27019', shard: 'config', what: 'split' },
          {
            server: 'localhost:27117',
            shard: 'shard01',
            what: 'moveChunk.start'
          },
          { server: 'localhost:27217', shard: 'shard02', what: 'moveChunk.to' },
          {
            server: 'localhost:27117',
            shard: 'shard01',
            what: 'moveChunk.commit'
          },
          {
            server: 'localhost:27117',
            shard: 'shard01',
            what: 'moveChunk.from'
          },
          { server: 'localhost:27019', shard: 'config', what: 'split' }
        ]
        [
          {
            details: {
              min: { x: 10 },
              max: { x: MaxKey() },
              to: 'shard02',
              from: 'shard01',
              note: 'success'
            }
          }
        ]
        4"#]]
    .assert_eq(&tail(run("8.0", &script)));
}

#[test]
fn a_split_at_one_point_logs_before_left_and_right() {
    // commitChunkSplit (sharding_catalog_manager_chunk_operations.cpp): one split point
    // logs `split` with the chunk `before` and the `left` and `right` chunks.
    let script = "sh.shardCollection('test.c', {x: 1})
db.adminCommand({split: 'test.c', middle: {x: 10}})
db.getSiblingDB('config').changelog.find({what: 'split'}, {_id: 0, details: 1})";
    expect![[r#"
        [
          {
            details: {
              before: {
                min: { x: MinKey() },
                max: { x: MaxKey() },
                lastmod: Timestamp({ t: 1, i: 0 }),
                lastmodEpoch: ObjectId('677485805113377041f32536')
              },
              left: {
                min: { x: MinKey() },
                max: { x: 10 },
                lastmod: Timestamp({ t: 1, i: 1 }),
                lastmodEpoch: ObjectId('677485805113377041f32536')
              },
              right: {
                min: { x: 10 },
                max: { x: MaxKey() },
                lastmod: Timestamp({ t: 1, i: 2 }),
                lastmodEpoch: ObjectId('677485805113377041f32536')
              },
              owningShard: 'shard01'
            }
          }
        ]"#]]
    .assert_eq(&last_output("5.0", script));
}

#[test]
fn writes_to_the_config_database_are_refused() {
    // Command::checkAuthorization (src/mongo/db/commands.cpp): "not authorized on
    // <db> to execute command <the command>", Unauthorized (13).
    check(
        "8.0",
        "use config
db.chunks.insertOne({a: 1})
db.chunks.deleteMany({})
db.getSiblingDB('config').collections.drop()
db.chunks.countDocuments()",
        expect![[r#"
            switched to db config
            MongoServerError[Unauthorized]: not authorized on config to execute command { insert: "chunks", documents: [ { a: 1 } ], ordered: true, $db: "config" }
            MongoServerError[Unauthorized]: not authorized on config to execute command { delete: "chunks", deletes: [ { q: {}, limit: 0 } ], ordered: true, $db: "config" }
            MongoServerError[Unauthorized]: not authorized on config to execute command { drop: "collections", $db: "config" }
            0"#]],
    );
}

#[test]
fn count_documents_find_options_and_the_chunks_per_shard_query() {
    // The tutorials' query: chunks per shard with $group and $sum, sorted; countDocuments
    // with a filter; find with sort, skip, limit and projection; distinct.
    check(
        "5.0",
        "sh.shardCollection('test.c', {x: 1})
sh.splitAt('test.c', {x: 10})
sh.splitAt('test.c', {x: 20})
sh.splitAt('test.c', {x: 30})
sh.moveChunk('test.c', {x: 20}, 'shard02')
sh.moveChunk('test.c', {x: 30}, 'shard03')
use config
db.chunks.aggregate([{$group: {_id: '$shard', count: {$sum: 1}}}, {$sort: {count: -1, _id: 1}}])
db.chunks.countDocuments({shard: 'shard01'})
db.chunks.find({}, {_id: 0, min: 1, shard: 1}).sort({shard: -1}).skip(1).limit(2)
db.chunks.find().count()
db.chunks.aggregate([{$match: {shard: {$ne: 'shard01'}}}, {$count: 'moved'}])
db.chunks.aggregate([{$project: {_id: 0, shard: 1, lastmod: 1}}, {$limit: 1}])
db.chunks.distinct('shard', {shard: {$ne: 'shard02'}})",
        expect![[r#"
            { collectionsharded: 'test.c', ok: 1 }
            { ok: 1 }
            { ok: 1 }
            { ok: 1 }
            { millis: 0, ok: 1 }
            { millis: 0, ok: 1 }
            switched to db config
            [
              { _id: 'shard01', count: 2 },
              { _id: 'shard02', count: 1 },
              { _id: 'shard03', count: 1 }
            ]
            2
            [
              { min: { x: 20 }, shard: 'shard02' },
              { min: { x: MinKey() }, shard: 'shard01' }
            ]
            4
            [ { moved: 2 } ]
            [ { shard: 'shard01', lastmod: Timestamp({ t: 3, i: 1 }) } ]
            [ 'shard01', 'shard03' ]"#]],
    );
}

#[test]
fn pipeline_errors_are_the_servers() {
    // document_source.cpp (40323, 40324), document_source_group.cpp (15955),
    // accumulator parsing (15952), document_source_sort.cpp (15975),
    // document_source_limit.cpp (15958).
    check(
        "8.0",
        "use config
db.chunks.aggregate([{$group: {count: {$sum: 1}}}])
db.chunks.aggregate([{$group: {_id: 1, n: {$median: 1}}}])
db.chunks.aggregate([{$bogus: {}}])
db.chunks.aggregate([{$match: {}, $sort: {a: 1}}])
db.chunks.aggregate([{$sort: {a: 2}}])
db.chunks.aggregate([{$limit: 0}])",
        expect![[r#"
            switched to db config
            MongoServerError[Location15955]: a group specification must include an _id
            MongoServerError[Location15952]: Unknown group operator '$median'
            MongoServerError[Location40324]: Unrecognized pipeline stage name: '$bogus'
            MongoServerError[Location40323]: A pipeline stage specification object must contain exactly one field.
            MongoServerError[Location15975]: $sort key ordering must be 1 (for ascending) or -1 (for descending)
            MongoServerError[Location15958]: the limit must be positive"#]],
    );
}

#[test]
fn user_collections_aggregate_too() {
    check(
        "8.0",
        "db.c.insertMany([{g: 'a', v: 1}, {g: 'b', v: 2}, {g: 'a', v: 3}])
db.c.aggregate([{$group: {_id: '$g', total: {$sum: '$v'}, avg: {$avg: '$v'}}}, {$sort: {_id: 1}}])
db.c.aggregate({$match: {g: 'a'}}, {$project: {_id: 0, v: 1, twice: {$multiply: ['$v', 2]}}})",
        expect![[r#"
            {
              acknowledged: true,
              insertedIds: {
                '0': ObjectId('6553f100c1675e0bb9150280'),
                '1': ObjectId('6553f100c1675e0bb9150281'),
                '2': ObjectId('6553f100c1675e0bb9150282')
              }
            }
            [ { _id: 'a', total: 4, avg: 2 }, { _id: 'b', total: 2, avg: 2 } ]
            [ { v: 1, twice: 2 }, { v: 3, twice: 6 } ]"#]],
    );
}

#[test]
fn sharded_data_distribution_in_8_0() {
    // document_source_sharded_data_distribution.cpp: per sharded collection, each shard
    // holding it with `shardName`, `numOrphanedDocs`, `numOwnedDocuments`,
    // `ownedSizeBytes` (avgObjSize x owned) and `orphanedSizeBytes`; only on the admin
    // database (6789102), only with `{}` (6789100). mongosh's shard.ts runs it for
    // sh.getShardedDataDistribution().
    check(
        "8.0",
        &format!(
            "{SPLIT_AND_MOVE}db.getSiblingDB('admin').aggregate([{{$shardedDataDistribution: {{}}}}, {{$project: {{ns: 1, n: {{$size: '$shards'}}}}}}])
sh.getShardedDataDistribution().toArray()[0].shards[1]
db.aggregate([{{$shardedDataDistribution: {{}}}}])
db.getSiblingDB('admin').aggregate([{{$shardedDataDistribution: {{x: 1}}}}])
db.getSiblingDB('admin').aggregate([{{$match: {{}}}}, {{$shardedDataDistribution: {{}}}}])
db.users.aggregate([{{$shardedDataDistribution: {{}}}}])
sh.getShardedDataDistribution({{x: 1}})"
        ),
        expect![[r#"
            { collectionsharded: 'test.users', ok: 1 }
            {
              acknowledged: true,
              insertedIds: {
                '0': ObjectId('6553f101c1675e0bb9150280'),
                '1': ObjectId('6553f101c1675e0bb9150281'),
                '2': ObjectId('6553f101c1675e0bb9150282'),
                '3': ObjectId('6553f101c1675e0bb9150283')
              }
            }
            { ok: 1 }
            { millis: 0, ok: 1 }
            [ { ns: 'test.users', n: 2 } ]
            TypeError: toArray is not a function
            MongoServerError[Location6789102]: The $shardedDataDistribution stage must be run on the admin database
            MongoServerError[Location6789100]: The $shardedDataDistribution stage specification must be an empty object
            MongoServerError[Location40602]: $shardedDataDistribution is only valid as the first stage in a pipeline
            MongoServerError[Location6789102]: The $shardedDataDistribution stage must be run on the admin database
            MongoServerError[Location6789100]: The $shardedDataDistribution stage specification must be an empty object"#]],
    );
}

#[test]
fn sharded_data_distribution_is_unknown_before_6_0_3() {
    // document_source.cpp: an unknown stage is 40324; mongosh's shard.ts
    // getShardedDataDistribution wraps that message with its own note.
    for version in ["3.6", "5.0"] {
        expect![[r#"
            MongoServerError[Location40324]: Unrecognized pipeline stage name: '$shardedDataDistribution'
            MongoServerError[Location40324]: sh.getShardedDataDistribution only works on mongos and MongoDB server versions greater than 6.0.3 [Original Error: Unrecognized pipeline stage name: '$shardedDataDistribution']"#]]
        .assert_eq(&run(
            version,
            "db.getSiblingDB('admin').aggregate([{$shardedDataDistribution: {}}])
sh.getShardedDataDistribution()",
        ));
    }
}

#[test]
fn sh_status_has_the_distribution_section_in_8_0_only() {
    // helpers.ts, getPrintableShardStatus: `shardedDataDistribution` between `balancer`
    // and `databases`, the stage's documents, or `undefined` where the stage fails.
    let keys = |version: &str| {
        let mut s = Session::default();
        s.run(&format!(
            "sim.reset({{version: '{version}'}})\nsh.shardCollection('test.c', {{x: 1}})"
        ));
        let out = s.run("sh.status()");
        let Ok(shardlab::session::Output::Sections(d)) = &out[0].result else {
            panic!("{:?}", out[0].result)
        };
        let v = d.get("shardedDataDistribution").cloned();
        (d.keys().cloned().collect::<Vec<_>>().join(","), v)
    };
    let (k80, v80) = keys("8.0");
    assert_eq!(
        k80,
        "shardingVersion,shards,active mongoses,autosplit,balancer,shardedDataDistribution,databases"
    );
    assert_eq!(
        v80.unwrap().as_array().unwrap().len(),
        1,
        "one sharded collection"
    );
    assert_eq!(keys("5.0").1, Some(bson::Bson::Undefined));
    assert_eq!(keys("3.6").1, None);
}

#[test]
fn show_collections_lists_the_config_collections() {
    let out = run("8.0", "use config\nshow collections");
    assert_eq!(
        out,
        format!("switched to db config\n{}", CONFIG_COLLECTIONS.join("\n"))
    );
}

#[test]
fn every_config_document_reads_back_as_it_was_written() {
    // The layout types read their own documents back (the import of a config
    // database uses the same types), in every era.
    for version in ["3.6", "5.0", "8.0"] {
        let mut s = Session::default();
        // A zone range before its collection is sharded exists from 4.0 on.
        let pending = match version {
            "3.6" => "",
            _ => "sh.updateZoneKeyRange('test.z', {x: 0}, {x: 10}, 'A')",
        };
        for o in s.run(&format!(
            "sim.reset({{version: '{version}'}})
sh.addShardToZone('shard01', 'A')
{pending}
{SPLIT_AND_MOVE}sh.updateZoneKeyRange('test.users', {{x: 0}}, {{x: 5}}, 'A')
sh.stopBalancer()
sim.chunkSize(1048576)
db.adminCommand({{removeShard: 'shard03'}})"
        )) {
            assert!(o.result.is_ok(), "{version}: {} {:?}", o.source, o.result);
        }
        for name in CONFIG_COLLECTIONS {
            let docs = shardlab::engine::config_documents(&s.cluster, name).unwrap();
            assert!(!docs.is_empty(), "{version}: config.{name} is empty");
            for d in &docs {
                let back = match name {
                    "shards" => ShardDoc::from_document(d).map(|x| x.to_document()),
                    "databases" => DatabaseDoc::from_document(d).map(|x| x.to_document()),
                    "collections" => CollectionDoc::from_document(d).map(|x| x.to_document()),
                    "chunks" => ChunkDoc::from_document(d).map(|x| x.to_document()),
                    "tags" => TagDoc::from_document(d).map(|x| x.to_document()),
                    "settings" => SettingDoc::from_document(d).map(|x| x.to_document()),
                    _ => ChangelogDoc::from_document(d).map(|x| x.to_document()),
                };
                assert_eq!(back.as_ref(), Ok(d), "{version}: config.{name}");
            }
        }
    }
    // A document missing a field it needs is refused in words, not with a panic.
    let err = ChunkDoc::from_document(&bson::doc! { "_id": 1, "min": {} }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "config.chunks: the field 'max' is missing or has the wrong type"
    );
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_cli_reads_the_config_database() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // The same session behind the binary: plain output as mongosh prints it, and
    // `--json`'s canonical Extended JSON (a Timestamp as `$timestamp`).
    let script = "sh.shardCollection('test.c', {x: 1})
db.getSiblingDB('config').chunks.find({}, {_id: 0, shard: 1, lastmod: 1})
use config
db.chunks.insertOne({})
";
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_shardlab"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    expect![[r#"
        { collectionsharded: 'test.c', ok: 1 }
        [ { shard: 'shard01', lastmod: Timestamp({ t: 1, i: 0 }) } ]
        switched to db config
        MongoServerError[Unauthorized]: not authorized on config to execute command { insert: "chunks", documents: [ {} ], ordered: true, $db: "config" }
    "#]]
    .assert_eq(&run(&[]));
    expect![[r#"
        {"collectionsharded":"test.c","ok":{"$numberInt":"1"}}
        [{"shard":"shard01","lastmod":{"$timestamp":{"t":1,"i":0}}}]
        "switched to db config"
        {"error": {"code": 13, "codeName": "Unauthorized", "errmsg": "not authorized on config to execute command { insert: \"chunks\", documents: [ {} ], ordered: true, $db: \"config\" }"}}
    "#]].assert_eq(&run(&["--json"]));
}

#[test]
fn splits_and_merges_name_the_shard_that_owned_the_chunk_then() {
    // commitChunkSplit logs `owningShard` (the shard the split ran on) after `right`;
    // 7.0's logMergeToChangelog writes `owningShard` before the merged range. The split
    // at 20 ran on shard01, before its range moved to shard02; 3.6 has no such field.
    let script = "sh.shardCollection('test.c', {x: 1})
sh.splitAt('test.c', {x: 10})
sh.splitAt('test.c', {x: 20})
sh.moveChunk('test.c', {x: 10}, 'shard02')
sh.splitAt('test.c', {x: 30})
db.adminCommand({mergeChunks: 'test.c', bounds: [{x: 20}, {x: MaxKey}]})
db.getSiblingDB('config').changelog.aggregate([
  {$match: {what: {$in: ['split', 'merge']}}},
  {$project: {_id: 0, what: 1, min: {$ifNull: ['$details.left.min', '$details.min']}, owningShard: '$details.owningShard'}}
])";
    expect![[r#"
        [
          { what: 'split', min: { x: MinKey() }, owningShard: 'shard01' },
          { what: 'split', min: { x: 10 }, owningShard: 'shard01' },
          { what: 'split', min: { x: 20 }, owningShard: 'shard01' },
          { what: 'merge', min: { x: 20 }, owningShard: 'shard01' }
        ]"#]]
    .assert_eq(&last_output("8.0", script));
    expect![[r#"
        [
          { what: 'split', min: { x: MinKey() } },
          { what: 'split', min: { x: 10 } },
          { what: 'split', min: { x: 20 } },
          { what: 'merge', min: { x: 20 } }
        ]"#]]
    .assert_eq(&last_output("3.6", script));
}

#[test]
fn lookup_joins_chunks_to_their_collection_by_uuid() {
    // From 5.0 a chunk names its collection by `uuid` only, so counting chunks per
    // namespace joins config.collections ($lookup's equality form,
    // document_source_lookup.cpp; $unwind, document_source_unwind.cpp).
    let script = "sh.shardCollection('test.a', {x: 1})
sh.shardCollection('test.b', {y: 1})
sh.splitAt('test.a', {x: 5})
use config
db.chunks.aggregate([
  {$lookup: {from: 'collections', localField: 'uuid', foreignField: 'uuid', as: 'coll'}},
  {$unwind: '$coll'},
  {$group: {_id: '$coll._id', chunks: {$sum: 1}}},
  {$sort: {_id: 1}}
])
db.chunks.aggregate([{$lookup: {from: 'collections', localField: 'uuid', as: 'c'}}])
db.chunks.aggregate([{$unwind: 'history'}])";
    check(
        "5.0",
        script,
        expect![[r#"
            { collectionsharded: 'test.a', ok: 1 }
            { collectionsharded: 'test.b', ok: 1 }
            { ok: 1 }
            switched to db config
            [ { _id: 'test.a', chunks: 2 }, { _id: 'test.b', chunks: 1 } ]
            MongoServerError[FailedToParse]: $lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified
            MongoServerError[Location28818]: path option to $unwind stage should be prefixed with a '$': history"#]],
    );
}

#[test]
fn groups_and_sets_compare_values_as_mongodb_does() {
    // $group and $addToSet compare with MongoDB's value order: 1, 1.0 and Long(1) are
    // one key (src/mongo/db/pipeline/document_source_group.cpp keys by value). A group
    // by `_id` over many documents keeps every group.
    check(
        "8.0",
        "db.c.insertMany([{_id: 1, v: 1, s: 'a'}, {_id: 2, v: 1.0, s: 'a'}, {_id: 3, v: NumberLong(1), s: 'b'}, {_id: 4, s: 'b'}])
db.c.aggregate([{$group: {_id: '$v', n: {$count: {}}, s: {$addToSet: '$s'}, first: {$first: '$_id'}, last: {$last: '$_id'}}}])
sim.generate('test.many', {x: {counter: {start: 1}}}, 5000)
db.many.aggregate([{$group: {_id: '$_id'}}, {$count: 'groups'}])",
        expect![[r#"
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3, '3': 4 } }
            [
              { _id: 1, n: 3, s: [ 'a', 'b' ], first: 1, last: 3 },
              { _id: null, n: 1, s: [ 'b' ], first: 4, last: 4 }
            ]
            { ns: 'test.many', inserted: 5000, ok: 1 }
            [ { groups: 5000 } ]"#]],
    );
}

#[test]
fn reading_the_config_database_leaves_the_viewed_collection() {
    // The page shows the collection the last command touched; a look at config.chunks
    // is a look at the cluster, not a change of collection.
    let mut s = Session::default();
    s.run("sh.shardCollection('test.c', {x: 1})\ndb.c.find()");
    let (touched, touches) = (s.touched().map(str::to_string), s.touches());
    s.run("db.getSiblingDB('config').chunks.find()\nuse config\ndb.chunks.countDocuments()\ndb.getCollection('tags').find()");
    assert_eq!(s.touched().map(str::to_string), touched);
    assert_eq!(s.touches(), touches);
}

#[test]
fn sh_status_prints_the_config_shards_documents() {
    // helpers.ts, getPrintableShardStatus: `shards` is config.shards sorted by `_id`,
    // so a draining or zoned shard prints as type_shard.cpp writes it, and 3.6 has no
    // `topologyTime`.
    for version in ["3.6", "8.0"] {
        let script = "sh.addShardToZone('shard02', 'EU')
db.adminCommand({removeShard: 'shard03'})
sh.status().shards
db.getSiblingDB('config').shards.find().sort({_id: 1})";
        let mut s = Session::default();
        s.run(&format!("sim.reset({{version: '{version}'}})"));
        let out = s.run(script);
        assert_eq!(out[2].render(), out[3].render(), "{version}");
        let has_time = out[2].render().unwrap().contains("topologyTime");
        assert_eq!(has_time, version == "8.0");
    }
}

#[test]
fn a_split_at_several_points_logs_one_multi_split_per_chunk() {
    // commitChunkSplit: more than one split point logs `multi-split` once per new chunk,
    // each with the chunk `before`, its `number` `of` the total, the `chunk` and
    // `owningShard`. A chunk that grew while auto-splitting was off is cut at several
    // points at once by the next write's auto-split.
    let script = "sim.chunkSize(32768)
sh.disableAutoSplit()
sh.shardCollection('test.e', {x: 1})
sim.generate('test.e', 'monotonic', 3000)
sh.enableAutoSplit()
db.e.insertOne({x: 5})
db.getSiblingDB('config').changelog.find({what: 'multi-split'}, {_id: 0, 'details.number': 1, 'details.of': 1, 'details.chunk': 1, 'details.owningShard': 1}).limit(2)";
    expect![[r#"
        [
          {
            details: {
              number: 1,
              of: 14,
              chunk: {
                min: { x: MinKey() },
                max: { x: 1 },
                lastmod: Timestamp({ t: 1, i: 1 }),
                lastmodEpoch: ObjectId('677485804373cc5571e5baf0')
              },
              owningShard: 'shard01'
            }
          },
          {
            details: {
              number: 2,
              of: 14,
              chunk: {
                min: { x: 1 },
                max: { x: 422 },
                lastmod: Timestamp({ t: 1, i: 2 }),
                lastmodEpoch: ObjectId('677485804373cc5571e5baf0')
              },
              owningShard: 'shard01'
            }
          }
        ]"#]]
    .assert_eq(&last_output("5.0", script));
}
