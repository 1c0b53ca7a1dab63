//! What `shardCollection` writes to `config.changelog` in each version mode: a
//! `shardCollection.start` and a `shardCollection.end`, logged by the config server in 3.6
//! (`ShardingCatalogManager::shardCollection`, sharding_catalog_manager_collection_operations.cpp)
//! and by the create collection coordinator on the database's primary shard from 5.0 on
//! (create_collection_coordinator.cpp, `_logStartCreateCollection` and
//! `_logEndCreateCollection`; 8.0's `logStartCreateCollection` and `logEndCreateCollection`).
#![allow(clippy::unwrap_used)]

use expect_test::expect;
use shardlab::session::Session;

/// What the last statement of `script` printed, in a new session of `version`; the
/// cluster's invariants hold afterwards.
fn last_output(version: &str, script: &str) -> String {
    let mut session = Session::default();
    let reset = session.run(&format!("sim.reset({{version: '{version}'}})"));
    assert!(reset[0].result.is_ok(), "{:?}", reset[0].result);
    let out = session.run(script);
    session.cluster.check().unwrap();
    out.last().and_then(|o| o.render()).unwrap_or_default()
}

/// The `shardCollection` entries of the changelog, without their `_id` and `time`.
const ENTRIES: &str =
    "db.getSiblingDB('config').changelog.find({what: /^shardCollection/}, {_id: 0, time: 0})";

/// 3.6, sharding_catalog_manager_collection_operations.cpp: the config server logs the
/// start with `shardKey`, `collection`, `uuid`, `primary` (`ShardRemote::toString`: the
/// shard's name, `:`, its connection string) and `numChunks` (the split points it was
/// given plus one), and the end with the `version` of the chunks it wrote
/// (chunk_version.cpp's `toString`, `<major>|<minor>||<epoch>`). 3.6's change log has no
/// `shard` field, and its `server` is the config server's.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn in_3_6_the_config_server_logs_the_key_the_uuid_and_the_primary_with_its_hosts() {
    let script = format!("sh.shardCollection('test.e', {{x: 1}})\n{ENTRIES}");
    expect![[r#"
        [
          {
            server: 'localhost:27019',
            clientAddr: '',
            what: 'shardCollection.start',
            ns: 'test.e',
            details: {
              shardKey: { x: 1 },
              collection: 'test.e',
              uuid: UUID('8097663c-03c1-4dec-ad9a-3f975903d46e'),
              primary: 'shard01:shard01/localhost:27117',
              numChunks: 1
            }
          },
          {
            server: 'localhost:27019',
            clientAddr: '',
            what: 'shardCollection.end',
            ns: 'test.e',
            details: { version: '1|0||677485804373cc5571e5baf0' }
          }
        ]"#]]
    .assert_eq(&last_output("3.6", &script));
}

/// 5.0, create_collection_coordinator.cpp: the coordinator runs on the database's primary
/// shard, which logs both entries (`shard` is its name, `server` its host): the start
/// with `shardKey`, `collection` and `primary` (the shard's name), the end with the
/// collection's `uuid`, its `version` (`toString` now ends in `||<timestamp>`), `empty`
/// and `numChunks` (`appendNumber`, an int). The uuid and the version's epoch and
/// timestamp are those `config.collections` shows.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn in_5_0_the_primary_shard_logs_the_start_and_the_end_with_the_collections_version() {
    let script = format!(
        "sh.shardCollection('test.e', {{x: 1}})
{ENTRIES}
db.getSiblingDB('config').collections.findOne({{_id: 'test.e'}}, {{_id: 0, lastmodEpoch: 1, timestamp: 1, uuid: 1}})"
    );
    let mut session = Session::default();
    session.run("sim.reset({version: '5.0'})");
    let out = session.run(&script);
    let shown: Vec<String> = out.iter().filter_map(|o| o.render()).collect();
    expect![[r#"
        { collectionsharded: 'test.e', ok: 1 }
        [
          {
            server: 'localhost:27117',
            shard: 'shard01',
            clientAddr: '',
            what: 'shardCollection.start',
            ns: 'test.e',
            details: { shardKey: { x: 1 }, collection: 'test.e', primary: 'shard01' }
          },
          {
            server: 'localhost:27117',
            shard: 'shard01',
            clientAddr: '',
            what: 'shardCollection.end',
            ns: 'test.e',
            details: {
              uuid: UUID('8097663c-03c1-4dec-ad9a-3f975903d46e'),
              version: '1|0||677485804373cc5571e5baf0||Timestamp(1735689600, 2)',
              empty: true,
              numChunks: 1
            }
          }
        ]
        {
          lastmodEpoch: ObjectId('677485804373cc5571e5baf0'),
          timestamp: Timestamp({ t: 1735689600, i: 2 }),
          uuid: UUID('8097663c-03c1-4dec-ad9a-3f975903d46e')
        }"#]]
    .assert_eq(&shown.join("\n"));
}

/// 7.0 (create_collection_coordinator.cpp) and 8.0 (the same file's free
/// `logEndCreateCollection`) name the end's version `placementVersion`; the rest is 5.0's.
/// The primary shard that logs is the database's, whichever it is.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn from_7_0_the_end_names_the_placement_version_and_the_databases_primary_logs() {
    let script = format!(
        "db.adminCommand({{enableSharding: 'other', primaryShard: 'shard02'}})
sh.shardCollection('other.e', {{x: 1}})
{ENTRIES}"
    );
    let expected = expect![[r#"
        [
          {
            server: 'localhost:27217',
            shard: 'shard02',
            clientAddr: '',
            what: 'shardCollection.start',
            ns: 'other.e',
            details: { shardKey: { x: 1 }, collection: 'other.e', primary: 'shard02' }
          },
          {
            server: 'localhost:27217',
            shard: 'shard02',
            clientAddr: '',
            what: 'shardCollection.end',
            ns: 'other.e',
            details: {
              uuid: UUID('db5e59f0-4856-4473-851c-5d4ba1368c0e'),
              placementVersion: '1|0||677485806f5d30e4cd16f0c7||Timestamp(1735689600, 2)',
              empty: true,
              numChunks: 1
            }
          }
        ]"#]];
    expected.assert_eq(&last_output("7.0", &script));
    expected.assert_eq(&last_output("8.0", &script));
}

/// A hashed key on an empty collection is pre-split as it is created. From 4.4 on the
/// chunks are written at once, and `numChunks` counts them all (two per shard in 5.0,
/// one per shard from 6.0, `InitialSplitPolicy`); the version is the last chunk's.
/// 3.6's `configsvrShardCollection` gives `shardCollection` only the points between the
/// shards' "big chunks" (`determinePresplittingPoints`' `initSplits`), then moves and
/// splits them, so its entries count one chunk per shard.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_hashed_pre_split_counts_the_chunks_the_creation_wrote() {
    let script = "sh.shardCollection('test.h', {x: 'hashed'})
db.getSiblingDB('config').changelog.find({what: /^shardCollection/}, {_id: 0, 'details.numChunks': 1, 'details.version': 1, 'details.placementVersion': 1}).toArray()";
    expect![[r#"
        [
          { details: { numChunks: 3 } },
          { details: { version: '1|2||6774858055e3b20b1809e849' } }
        ]"#]]
    .assert_eq(&last_output("3.6", script));
    expect![[r#"
        [
          { details: {} },
          {
            details: {
              version: '1|5||6774858055e3b20b1809e849||Timestamp(1735689600, 2)',
              numChunks: 6
            }
          }
        ]"#]]
    .assert_eq(&last_output("5.0", script));
    expect![[r#"
        [
          { details: {} },
          {
            details: {
              placementVersion: '1|2||6774858055e3b20b1809e849||Timestamp(1735689600, 2)',
              numChunks: 3
            }
          }
        ]"#]]
    .assert_eq(&last_output("8.0", script));
}

/// A collection that already holds documents is cut into chunks as it is created: 3.6's
/// `createFirstChunks` and 5.0's `UnoptimizedSplitPolicy` ask the primary shard for split
/// points and write the chunks `1|0`, `1|1`, ... in key order
/// (`generateShardCollectionInitialChunks`); nothing is logged as a split. 5.0's end
/// counts the chunks and says the collection was not `empty`; 3.6's start counts only
/// the split points it was given (none), its end gives the last chunk's version.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_collection_with_documents_is_created_in_chunks_without_a_split() {
    let script = "sim.chunkSize(32768)
sim.generate('test.f', 'monotonic', 3000)
db.f.createIndex({x: 1})
sh.shardCollection('test.f', {x: 1})
const chunks = db.getSiblingDB('config').chunks.find({}, {lastmod: 1}).sort({min: 1}).toArray()
const log = db.getSiblingDB('config').changelog.find({}, {_id: 0, what: 1, 'details.numChunks': 1, 'details.empty': 1, 'details.version': 1}).toArray()
({chunks: chunks.length, first: chunks[0].lastmod, last: chunks[chunks.length - 1].lastmod, log: log})";
    expect![[r#"
        {
          chunks: 15,
          first: Timestamp({ t: 1, i: 0 }),
          last: Timestamp({ t: 1, i: 14 }),
          log: [
            { what: 'shardCollection.start', details: {} },
            {
              what: 'shardCollection.end',
              details: {
                version: '1|14||6774858021a7c8b2b3be57f4||Timestamp(1735689600, 3)',
                empty: false,
                numChunks: 15
              }
            }
          ]
        }"#]]
    .assert_eq(&last_output("5.0", script));
    expect![[r#"
        {
          chunks: 15,
          first: Timestamp({ t: 1, i: 0 }),
          last: Timestamp({ t: 1, i: 14 }),
          log: [
            { what: 'shardCollection.start', details: { numChunks: 1 } },
            {
              what: 'shardCollection.end',
              details: { version: '1|14||6774858021a7c8b2b3be57f4' }
            }
          ]
        }"#]]
    .assert_eq(&last_output("3.6", script));
}

/// The entries record the collection as it was created: refining its key later leaves the
/// start's `shardKey` as it was, and sharding it again after a drop logs a new pair with
/// the new incarnation's uuid (type_changelog.cpp keeps every entry).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_entries_keep_the_collection_as_it_was_created() {
    let script = "sh.shardCollection('test.e', {x: 1})
db.e.createIndex({x: 1, y: 1})
db.adminCommand({refineCollectionShardKey: 'test.e', key: {x: 1, y: 1}})
const refined = db.getSiblingDB('config').collections.findOne({_id: 'test.e'}).key
db.e.drop()
sh.shardCollection('test.e', {z: 1})
({refined: refined, log: db.getSiblingDB('config').changelog.find({what: /^shardCollection/}, {_id: 0, what: 1, 'details.shardKey': 1, 'details.uuid': 1}).toArray()})";
    expect![[r#"
        {
          refined: { x: 1, y: 1 },
          log: [
            { what: 'shardCollection.start', details: { shardKey: { x: 1 } } },
            {
              what: 'shardCollection.end',
              details: { uuid: UUID('8097663c-03c1-4dec-ad9a-3f975903d46e') }
            },
            { what: 'shardCollection.start', details: { shardKey: { z: 1 } } },
            {
              what: 'shardCollection.end',
              details: { uuid: UUID('7a54db8a-958f-4007-b768-b31c53e83b0a') }
            }
          ]
        }"#]]
    .assert_eq(&last_output("8.0", script));
}

/// The same commands give the same entries, `_id`s and times included: the ids are made
/// from the simulated clock and the event's place in the log, not from a wall clock.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_entries_are_deterministic() {
    let script = "sh.shardCollection('test.e', {x: 1})
sh.shardCollection('test.h', {y: 'hashed'})
db.getSiblingDB('config').changelog.find({what: /^shardCollection/}).toArray()";
    for version in ["3.6", "5.0", "7.0", "8.0"] {
        let first = last_output(version, script);
        assert_eq!(first, last_output(version, script), "{version}");
        assert_eq!(
            first.matches("shardCollection.start").count(),
            2,
            "{version}"
        );
        assert_eq!(first.matches("shardCollection.end").count(), 2, "{version}");
    }
}

/// refineCollectionShardKey (4.4 to 8.0), sharding_catalog_manager_collection_operations.cpp's
/// `refineCollectionShardKey`: the config server logs `refineCollectionShardKey.start` with
/// the `oldKey`, the `newKey`, the `oldEpoch` and the `newEpoch` it is about to write, then
/// `refineCollectionShardKey.end` with no details. The new epoch is `config.collections`'
/// `lastmodEpoch` afterwards.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_refined_key_logs_both_keys_and_both_epochs() {
    let script = "sh.shardCollection('test.e', {x: 1})
const before = db.getSiblingDB('config').collections.findOne({_id: 'test.e'}).lastmodEpoch
db.e.createIndex({x: 1, y: 1})
db.adminCommand({refineCollectionShardKey: 'test.e', key: {x: 1, y: 1}})
const after = db.getSiblingDB('config').collections.findOne({_id: 'test.e'}).lastmodEpoch
({before: before, after: after, log: db.getSiblingDB('config').changelog.find({what: /^refine/}, {_id: 0, time: 0}).toArray()})";
    let expected = expect![[r#"
        {
          before: ObjectId('677485804373cc5571e5baf0'),
          after: ObjectId('677485809c3cd3c21dd8ff4f'),
          log: [
            {
              server: 'localhost:27019',
              shard: 'config',
              clientAddr: '',
              what: 'refineCollectionShardKey.start',
              ns: 'test.e',
              details: {
                oldKey: { x: 1 },
                newKey: { x: 1, y: 1 },
                oldEpoch: ObjectId('677485804373cc5571e5baf0'),
                newEpoch: ObjectId('677485809c3cd3c21dd8ff4f')
              }
            },
            {
              server: 'localhost:27019',
              shard: 'config',
              clientAddr: '',
              what: 'refineCollectionShardKey.end',
              ns: 'test.e',
              details: {}
            }
          ]
        }"#]];
    expected.assert_eq(&last_output("5.0", script));
    expected.assert_eq(&last_output("8.0", script));
}
