//! The sharding commands' errors and results, and explain's output, ported from MongoDB's
//! own jstests and sources: each case names the file it comes from and runs in the
//! version mode of that file's era. An expected answer ending in `*` is a prefix (the
//! jstest checks the code only); `ok` is success.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::session::{Output, Session};

const V80: &str = "sim.version('8.0')\n";
const V50: &str = "sim.version('5.0')\n";
const V36: &str = "sim.version('3.6')\n";

/// Runs `script` and returns the last statement's answer: its error as the shell prints
/// it, or `ok`. Every earlier statement must succeed.
fn last_answer(script: &str) -> String {
    let mut session = Session::default();
    let outcomes = session.run(script);
    session.cluster.check().unwrap();
    let (last, before) = outcomes.split_last().unwrap();
    for o in before {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    match &last.result {
        Err(e) => e.to_string(),
        Ok(_) => "ok".to_string(),
    }
}

/// Checks every `(setup, command, expected)` case, reporting all that differ.
fn check_cases(cases: &[(&str, &str, &str)]) {
    let mut failures = Vec::new();
    for (setup, command, expected) in cases {
        let got = last_answer(&format!("{setup}{command}"));
        let matches = match expected.strip_suffix('*') {
            Some(prefix) => got.starts_with(prefix),
            None => got == *expected,
        };
        if !matches {
            failures.push(format!(
                "{command}\n  expected {expected}\n  got      {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// jstests/sharding/move_range_basic.js (8.0 mode: moveRange is 6.0+).
#[test]
fn move_range_basic() {
    let setup = "sim.version('8.0')\nsh.shardCollection('db.c', {a: 1})\n";
    check_cases(&[
        // "Fail if one of the bounds is not a valid shard key": InvalidOptions, in the
        // words of the donor's checkShardKeyPattern (chunk_operation_precondition_checks.cpp).
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', min: {a: MinKey()}, max: {invalidShardKey: 10}, toShard: 'shard02'})",
            "MongoServerError[InvalidOptions]: The range [{ a: MinKey }, { invalidShardKey: 10 }) is not valid for collection db.c with key pattern { a: 1 }",
        ),
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', min: {invalidShardKey: 10}, toShard: 'shard02'})",
            "MongoServerError[InvalidOptions]: *",
        ),
        // "Fail if the `to` shard does not exists".
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', min: {a: MinKey()}, max: {a: MaxKey()}, toShard: 'WrongShard'})",
            "MongoServerError[ShardNotFound]: Could not find destination shard :: caused by :: Shard WrongShard not found",
        ),
        // Both bounds, only min, only max.
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', min: {a: MinKey()}, max: {a: MaxKey()}, toShard: 'shard02'})",
            "ok",
        ),
        (
            &format!("{setup}db.adminCommand({{moveRange: 'db.c', min: {{a: MinKey()}}, max: {{a: MaxKey()}}, toShard: 'shard02'}})\n"),
            "db.adminCommand({moveRange: 'db.c', min: {a: MinKey()}, toShard: 'shard01'})",
            "ok",
        ),
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', max: {a: MaxKey()}, toShard: 'shard02'})",
            "ok",
        ),
        // cluster_move_range_cmd.cpp: one bound at least.
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', toShard: 'shard02'})",
            "MongoServerError[InvalidOptions]: Missing required parameter 'min' or 'max'",
        ),
        // shardsvr_move_range_command.cpp, _runImpl: the donor being the recipient is a
        // migration with nothing to do; moveChunk goes the same way from 6.0
        // (cluster_move_chunk_cmd.cpp sends _configsvrMoveRange).
        (
            setup,
            "db.adminCommand({moveRange: 'db.c', min: {a: MinKey()}, toShard: 'shard01'})",
            "ok",
        ),
        (setup, "sh.moveChunk('db.c', {a: 1}, 'shard01')", "ok"),
        (
            "sh.shardCollection('db.c', {a: 1})\n",
            "sh.moveChunk('db.c', {a: 1}, 'shard01')",
            "MongoServerError[InvalidOptions]: Destination shard cannot be the same as source",
        ),
    ]);
}

/// A range moved to the shard that holds it changes nothing (8.0).
#[test]
fn move_range_to_its_own_shard_changes_nothing() {
    let mut s = Session::default();
    for o in s.run("sim.version('8.0')\nsh.shardCollection('db.c', {a: 1})\ndb.getSiblingDB('db').c.insertMany([{a: 1}, {a: 2}])\nsh.splitAt('db.c', {a: 2})") {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    let before: Vec<_> = s
        .cluster
        .sharding("db.c")
        .unwrap()
        .table
        .iter()
        .cloned()
        .collect();
    let out = s.run("db.adminCommand({moveRange: 'db.c', min: {a: 2}, toShard: 'shard01'})");
    assert!(out[0].result.is_ok(), "{:?}", out[0].result);
    let after: Vec<_> = s
        .cluster
        .sharding("db.c")
        .unwrap()
        .table
        .iter()
        .cloned()
        .collect();
    assert_eq!(before, after);
    s.cluster.check().unwrap();
}

/// jstests/sharding/enable_sharding.js, with the words of cluster_enable_sharding_cmd.cpp
/// and ShardingCatalogManager::createDatabase (8.0), configsvr_enable_sharding_command.cpp
/// (3.6 to 5.0).
#[test]
fn enable_sharding() {
    check_cases(&[
        // "enableSharding can run only against the admin database".
        (
            V80,
            "db.getSiblingDB('test').runCommand({enableSharding: 'db'})",
            "MongoServerError[Unauthorized]: enableSharding may only be run against the admin database.",
        ),
        // "Cannot shard system databases except for the config db".
        (V80, "db.adminCommand({enableSharding: 'config'})", "ok"),
        (
            V80,
            "db.adminCommand({enableSharding: 'local'})",
            "MongoServerError[InvalidOptions]: Database local could not be created :: caused by :: Cannot manually create database 'local'",
        ),
        (
            V80,
            "db.adminCommand({enableSharding: 'admin'})",
            "MongoServerError[InvalidOptions]: Database admin could not be created :: caused by :: Cannot manually create database 'admin'",
        ),
        (
            V50,
            "db.adminCommand({enableSharding: 'admin'})",
            "MongoServerError[InvalidOptions]: can't shard admin database",
        ),
        (V50, "db.adminCommand({enableSharding: 'config'})", "ok"),
        (
            V36,
            "db.adminCommand({enableSharding: 'config'})",
            "MongoServerError[InvalidOptions]: can't shard config database",
        ),
        // "Cannot shard db with the name that just differ on case".
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\n",
            "db.adminCommand({enableSharding: 'DB'})",
            "MongoServerError[DatabaseDifferCase]: Database DB could not be created :: caused by :: can't have 2 databases that just differ on case  have: db want to add: DB",
        ),
        (
            "sim.version('3.6')\ndb.adminCommand({enableSharding: 'db'})\n",
            "sh.enableSharding('DB')",
            "MongoServerError[DatabaseDifferCase]: can't have 2 databases that just differ on case  have: db want to add: DB",
        ),
        // "Cannot shard invalid db name".
        (V80, "db.adminCommand({enableSharding: 'a.b'})", "MongoServerError[InvalidNamespace]: *"),
        (V80, "db.adminCommand({enableSharding: ''})", "MongoServerError[InvalidNamespace]: *"),
        (
            V50,
            "db.adminCommand({enableSharding: 'a.b'})",
            "MongoServerError[InvalidNamespace]: invalid db name specified: a.b",
        ),
        // "Attempting to shard already sharded database returns success".
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\n",
            "db.adminCommand({enableSharding: 'db'})",
            "ok",
        ),
        // "Sharding a collection before enableSharding works".
        (V80, "db.adminCommand({shardCollection: 'testdb.testcoll', key: {_id: 1}})", "ok"),
        // "Cannot enable sharding on a database using a wrong shard name".
        (
            V80,
            "db.adminCommand({enableSharding: 'db2', primaryShard: 'shard02_unenxisting_name_postfix'})",
            "MongoServerError[ShardNotFound]: *",
        ),
        // "Enabling sharding on a database with a valid shard name must work", again, and
        // "Cannot enable sharding of a database already created with a different primary
        // shard name".
        (V80, "db.adminCommand({enableSharding: 'db_on_shard1', primaryShard: 'shard02'})", "ok"),
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db_on_shard1', primaryShard: 'shard02'})\n",
            "sh.enableSharding('db_on_shard1', 'shard02')",
            "ok",
        ),
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db_on_shard1', primaryShard: 'shard02'})\n",
            "db.adminCommand({enableSharding: 'db_on_shard1', primaryShard: 'shard01'})",
            "MongoServerError[NamespaceExists]: Database db_on_shard1 could not be created :: caused by :: database already created on a primary which is different from shard01",
        ),
    ]);
}

/// The primary shard `enableSharding` is given is the database's (enable_sharding.js:
/// `config.databases.findOne({_id: 'db_on_shard1'}).primary`).
#[test]
fn enable_sharding_sets_the_primary_shard() {
    let mut s = Session::default();
    for o in s.run("sim.version('8.0')\ndb.adminCommand({enableSharding: 'db_on_shard1', primaryShard: 'shard02'})") {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    let out = s.run("db.getSiblingDB('config').databases.findOne({_id: 'db_on_shard1'}).primary");
    assert_eq!(out[0].render().unwrap(), "shard02");
}

/// jstests/sharding/shard_collection_basic.js; the namespace checks of
/// CreateCollectionCoordinator::_checkCommandArguments (8.0) and
/// ConfigSvrShardCollectionCommand (3.6), the same words.
#[test]
fn shard_collection_basic() {
    check_cases(&[
        // "Verify wrong arguments errors".
        (V80, "db.adminCommand({shardCollection: 'foo', key: {_id: 1}})", "MongoServerError[InvalidNamespace]: *"),
        (
            V80,
            "db.adminCommand({shardCollection: 'foo', key: 'aaa'})",
            "MongoServerError[TypeMismatch]: BSON field 'shardCollection.key' is the wrong type 'string', expected type 'object'",
        ),
        // "Verify namespace length limit": 235 (NamespaceString::MaxNsShardedCollectionLen).
        (V80, "db.adminCommand({shardCollection: 'db.' + 'x'.repeat(232), key: {_id: 1}})", "ok"),
        (
            V80,
            "db.adminCommand({shardCollection: 'db.' + 'x'.repeat(233), key: {_id: 1}})",
            "MongoServerError[InvalidNamespace]: Namespace too long. Namespace: db.*",
        ),
        // "shardCollection may only be run against admin database".
        (
            V80,
            "db.getSiblingDB('test').runCommand({shardCollection: 'db.foo', key: {_id: 1}})",
            "MongoServerError[Unauthorized]: *",
        ),
        // "Can't shard if key is not specified" (the IDL's 40414), or empty.
        (
            V80,
            "db.adminCommand({shardCollection: 'db.foo'})",
            "MongoServerError[Location40414]: BSON field 'shardCollection.key' is missing but a required field",
        ),
        (V80, "db.adminCommand({shardCollection: 'db.foo', key: {}})", "MongoServerError[BadValue]: *"),
        // "Verify key format", "Shard key cannot contain embedded objects".
        (V80, "db.adminCommand({shardCollection: 'db.foo', key: {aKey: 'hahahashed'}})", "MongoServerError[BadValue]: *"),
        (V80, "db.adminCommand({shardCollection: 'db.foo', key: {_id: {a: 1}}})", "MongoServerError[BadValue]: *"),
        (V80, "db.adminCommand({shardCollection: 'db.foo', key: {_id: {'a.b': 1}}})", "MongoServerError[BadValue]: *"),
        // "Shard key can contain dotted path to embedded element".
        (V80, "db.adminCommand({shardCollection: 'db.shard_key_dotted_path', key: {'_id.a': 1}})", "ok"),
        // Idempotency: the same options again succeed; another key or unique fails.
        (
            "sim.version('8.0')\ndb.adminCommand({shardCollection: 'db.foo', key: {_id: 1}})\n",
            "db.adminCommand({shardCollection: 'db.foo', key: {_id: 1}, collation: {locale: 'simple'}})",
            "ok",
        ),
        (
            "sim.version('8.0')\ndb.adminCommand({shardCollection: 'db.foo', key: {_id: 1}})\n",
            "db.adminCommand({shardCollection: 'db.foo', key: {x: 1}})",
            "MongoServerError[AlreadyInitialized]: *",
        ),
        (
            "sim.version('8.0')\ndb.adminCommand({shardCollection: 'db.foo', key: {_id: 1}})\n",
            "db.adminCommand({shardCollection: 'db.foo', key: {_id: 1}, unique: true})",
            "MongoServerError[AlreadyInitialized]: *",
        ),
        // "Can't shard on unique hashed key".
        (
            V80,
            "db.adminCommand({shardCollection: 'db.foo', key: {aKey: 'hashed'}, unique: true})",
            "MongoServerError[InvalidOptions]: Hashed shard keys cannot be declared unique. *",
        ),
    ]);
}

/// shard_collection_basic.js, continued: collation, the mongosh helper's options, and
/// the namespaces that cannot be sharded.
#[test]
fn shard_collection_basic_options_and_namespaces() {
    check_cases(&[
        // Collation: not an object, not the simple one.
        (
            V80,
            "db.adminCommand({shardCollection: 'db.foo', key: {_id: 1}, collation: true})",
            "MongoServerError[TypeMismatch]: BSON field 'shardCollection.collation' is the wrong type 'bool', expected type 'object'",
        ),
        (V80, "db.adminCommand({shardCollection: 'db.foo', key: {_id: 1}, collation: {locale: 'en_US'}})", "MongoServerError[BadValue]: *"),
        // "shardCollections() 'options' parameter must be an object" (mongosh).
        (V80, "sh.shardCollection('db.foo', {a: 1}, false, 'not an object')", "MongoshInvalidInputError: *"),
        // The config database: only config.system.sessions; no system collection.
        (
            V80,
            "db.adminCommand({shardCollection: 'config.foo', key: {_id: 1}})",
            "MongoServerError[IllegalOperation]: only special collections in the config db may be sharded",
        ),
        (
            V36,
            "db.adminCommand({shardCollection: 'config.foo', key: {_id: 1}})",
            "MongoServerError[IllegalOperation]: only special collections in the config db may be sharded",
        ),
        (V80, "db.adminCommand({shardCollection: 'config.system.sessions', key: {_id: 1}})", "ok"),
        (
            V80,
            "db.adminCommand({shardCollection: 'test.system.foo', key: {_id: 1}})",
            "MongoServerError[IllegalOperation]: can't shard system namespaces",
        ),
        // admin and local: mongos creates the database first, which is refused.
        (
            V80,
            "db.adminCommand({shardCollection: 'admin.foo', key: {_id: 1}})",
            "MongoServerError[InvalidOptions]: Database admin could not be created :: caused by :: Cannot manually create database 'admin'",
        ),
        (
            V50,
            "db.adminCommand({shardCollection: 'local.foo', key: {_id: 1}})",
            "MongoServerError[InvalidOptions]: can't shard local database",
        ),
    ]);
}

/// jstests/sharding/update_zone_key_range.js (5.0 mode: `ChunkRange::fromBSON` answers
/// FailedToParse for min >= max), and sharding_catalog_manager_zone_operations.cpp.
#[test]
fn update_zone_key_range() {
    let zone = "sim.version('5.0')\ndb.adminCommand({addShardToZone: 'shard01', zone: 'x'})\ndb.adminCommand({enableSharding: 'test'})\n";
    let ranged = format!("{zone}db.adminCommand({{shardCollection: 'test.ranged', key: {{x: 1}}}})\ndb.adminCommand({{updateZoneKeyRange: 'test.ranged', min: {{x: 0}}, max: {{x: 10}}, zone: 'x'}})\n");
    let compound = format!("{zone}db.adminCommand({{shardCollection: 'test.compound', key: {{_id: 1, x: 1}}}})\ndb.adminCommand({{updateZoneKeyRange: 'test.compound', min: {{_id: 0, x: 0}}, max: {{_id: 100, x: 10}}, zone: 'x'}})\n");
    let unsharded = format!("{zone}db.adminCommand({{updateZoneKeyRange: 'test.unsharded', min: {{x: 0}}, max: {{x: 10}}, zone: 'x'}})\n");
    check_cases(&[
        (&ranged, "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: -10}, max: {x: 20}, zone: 'x'})", "MongoServerError[RangeOverlapConflict]: *"),
        (
            &ranged,
            "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: 10}, max: {x: 0}, zone: 'x'})",
            "MongoServerError[FailedToParse]: min: { x: 10 } should be less than max: { x: 0 }",
        ),
        (&ranged, "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: 0}, max: {x: 10}, zone: null})", "ok"),
        (&unsharded, "db.adminCommand({updateZoneKeyRange: 'test.unsharded', min: {x: -10}, max: {x: 20}, zone: 'x'})", "MongoServerError[RangeOverlapConflict]: *"),
        (&unsharded, "db.adminCommand({updateZoneKeyRange: 'test.unsharded', min: {x: 10}, max: {x: 0}, zone: 'x'})", "MongoServerError[FailedToParse]: *"),
        (&unsharded, "db.adminCommand({updateZoneKeyRange: 'test.unsharded', min: {x: 0}, max: {x: 10}, zone: null})", "ok"),
        (&compound, "db.adminCommand({updateZoneKeyRange: 'test.compound', min: {_id: 100, x: 10}, max: {_id: 100, x: 1}, zone: 'x'})", "MongoServerError[FailedToParse]: *"),
        (&compound, "db.adminCommand({updateZoneKeyRange: 'test.compound', min: {_id: 10, x: 1}, max: {_id: 1, x: 10}, zone: 'x'})", "MongoServerError[FailedToParse]: *"),
        (&compound, "db.adminCommand({updateZoneKeyRange: 'test.compound', min: {_id: 10, x: 10}, max: {_id: 1, x: 1}, zone: 'x'})", "MongoServerError[FailedToParse]: *"),
        (&compound, "db.adminCommand({updateZoneKeyRange: 'test.compound', min: {_id: 0, x: 0}, max: {_id: 0, x: 0}, zone: 'x'})", "MongoServerError[FailedToParse]: *"),
        (&compound, "db.adminCommand({updateZoneKeyRange: 'test.compound', min: {_id: 0, x: 0}, max: {_id: 100, x: 10}, zone: null})", "ok"),
        // UpdateZoneKeyRangeRequest::_parseFromCommand: the namespace, then zone a string
        // or null (bsonExtractField: NoSuchKey when missing).
        (zone, "db.adminCommand({updateZoneKeyRange: 'test', min: {x: 0}, max: {x: 10}, zone: 'x'})", "MongoServerError[InvalidNamespace]: test is not a valid namespace"),
        (&ranged, "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: 20}, max: {x: 30}})", "MongoServerError[NoSuchKey]: Missing expected field \"zone\""),
        (
            &ranged,
            "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: 20}, max: {x: 30}, zone: 5})",
            "MongoServerError[TypeMismatch]: \"zone\" had the wrong type. Expected string or null, found int",
        ),
        // mongosh sends the helper's zone as it is (shard.ts updateZoneKeyRange).
        (&ranged, "sh.updateZoneKeyRange('test.ranged', {x: 20}, {x: 30}, 5)", "MongoServerError[TypeMismatch]: *"),
        // assignKeyRangeToZone: the zone must exist; the bounds a prefix of the key.
        (&ranged, "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {x: 20}, max: {x: 30}, zone: 'nope'})", "MongoServerError[ZoneNotFound]: zone nope does not exist"),
        (
            &ranged,
            "db.adminCommand({updateZoneKeyRange: 'test.ranged', min: {y: 20}, max: {y: 30}, zone: 'x'})",
            "MongoServerError[ShardKeyNotFound]: min: { y: 20 } is not a prefix of the shard key { x: 1 } of ns: test.ranged",
        ),
        // checkHashedShardKeyRange (4.4+): a hashed field's bounds are NumberLong, MinKey
        // or MaxKey.
        (
            &format!("{zone}sh.shardCollection('test.h', {{x: 'hashed'}})\n"),
            "sh.updateZoneKeyRange('test.h', {x: 0}, {x: 10}, 'x')",
            "MongoServerError[InvalidOptions]: there exists a field in the range { x: 0 } -->> { x: 10 } not of type NumberLong, MinKey, or MaxKey which corresponds to a hashed field in the shard key pattern { x: \"hashed\" }",
        ),
        (
            &format!("{zone}sh.shardCollection('test.h', {{x: 'hashed'}})\n"),
            "sh.updateZoneKeyRange('test.h', {x: MinKey}, {x: NumberLong(10)}, 'x')",
            "ok",
        ),
        // mongosh's alias of removeRangeFromZone.
        (&ranged, "sh.removeTagRange('test.ranged', {x: 0}, {x: 10})", "ok"),
    ]);
}

/// jstests/sharding/add_shard_to_zone.js and remove_shard_from_zone.js, as admin
/// commands (ShardingCatalogManager::addShardToZone, removeShardFromZone).
#[test]
fn shard_zone_membership() {
    let zoned = "sim.version('8.0')\nsh.shardCollection('test.z', {x: 1})\ndb.adminCommand({addShardToZone: 'shard01', zone: 'x'})\ndb.adminCommand({updateZoneKeyRange: 'test.z', min: {x: 0}, max: {x: 10}, zone: 'x'})\n";
    check_cases(&[
        (V80, "db.adminCommand({addShardToZone: 'shard01', zone: 'x'})", "ok"),
        (
            "sim.version('8.0')\ndb.adminCommand({addShardToZone: 'shard01', zone: 'x'})\n",
            "db.adminCommand({addShardToZone: 'shard01', zone: 'x'})",
            "ok",
        ),
        (V80, "db.adminCommand({addShardToZone: 'unknownShard', zone: 'x'})", "MongoServerError[ShardNotFound]: shard unknownShard does not exist"),
        (V80, "db.adminCommand({addShardToZone: 'shard01'})", "MongoServerError[Location40414]: BSON field 'addShardToZone.zone' is missing but a required field"),
        (V80, "db.adminCommand({removeShardFromZone: 'shard01', zone: 'x'})", "ok"),
        (V80, "db.adminCommand({removeShardFromZone: 'unknownShard', zone: 'x'})", "MongoServerError[ShardNotFound]: shard unknownShard does not exist"),
        (
            zoned,
            "db.adminCommand({removeShardFromZone: 'shard01', zone: 'x'})",
            "MongoServerError[ZoneStillInUse]: cannot remove a shard from zone if a chunk range is associated with it",
        ),
        (zoned, "sh.removeShardTag('shard01', 'x')", "MongoServerError[ZoneStillInUse]: *"),
        (
            &format!("{zoned}db.adminCommand({{addShardToZone: 'shard02', zone: 'x'}})\n"),
            "db.adminCommand({removeShardFromZone: 'shard01', zone: 'x'})",
            "ok",
        ),
        (
            &format!("{zoned}db.adminCommand({{updateZoneKeyRange: 'test.z', min: {{x: 0}}, max: {{x: 10}}, zone: null}})\n"),
            "db.adminCommand({removeShardFromZone: 'shard01', zone: 'x'})",
            "ok",
        ),
    ]);
}

/// jstests/sharding/reshard_collection_basic.js (reshardCollection is 5.0+).
#[test]
fn reshard_collection_basic() {
    let sharded = "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\ndb.adminCommand({shardCollection: 'db.foo', key: {oldKey: 1}})\n";
    let tagged = format!("{sharded}db.adminCommand({{addShardToZone: 'shard02', zone: 'x1'}})\ndb.adminCommand({{updateZoneKeyRange: 'db.foo', min: {{oldKey: 0}}, max: {{oldKey: 5}}, zone: 'x1'}})\n");
    let filled = format!("{sharded}for (let x = 0; x < 500; x++) {{ db.getSiblingDB('db').foo.insertOne({{oldKey: x, newKey: 500 - x}}) }}\n");
    check_cases(&[
        // "Fail if sharding is disabled", "Fail if collection is unsharded".
        (V80, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}})", "MongoServerError[NamespaceNotFound]: *"),
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\n",
            "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}})",
            "MongoServerError[NamespaceNotSharded]: *",
        ),
        // "Fail if missing required key".
        (
            sharded,
            "db.adminCommand({reshardCollection: 'db.foo'})",
            "MongoServerError[Location40414]: BSON field 'reshardCollection.key' is missing but a required field",
        ),
        // "Fail if unique is specified and is true", "collation is not simple".
        (sharded, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, unique: true})", "MongoServerError[BadValue]: *"),
        (sharded, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, collation: {locale: 'en_US'}})", "MongoServerError[BadValue]: *"),
        // "Fail if the zone provided is not assigned to a shard".
        (
            sharded,
            "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, unique: false, collation: {locale: 'simple'}, zones: [{zone: 'x0', min: {newKey: 5}, max: {newKey: 10}}], numInitialChunks: 2})",
            "MongoServerError[Location4952607]: *",
        ),
        // "Fail if splitting collection into multiple chunks while it is still empty".
        (
            sharded,
            "db.adminCommand({reshardCollection: 'db.foo', key: {b: 1}, numInitialChunks: 2})",
            "MongoServerError[Location4952606]: The shard key provided does not have enough cardinality to make the required number of chunks of 2, it can only make 1 chunks",
        ),
        (sharded, "db.adminCommand({reshardCollection: 'db.foo', key: {b: 'hashed'}, numInitialChunks: 2})", "MongoServerError[Location4952606]: *"),
        (
            "sim.version('5.0')\ndb.adminCommand({enableSharding: 'db'})\ndb.adminCommand({shardCollection: 'db.foo', key: {oldKey: 1}})\n",
            "db.adminCommand({reshardCollection: 'db.foo', key: {b: 1}, numInitialChunks: 2})",
            "MongoServerError[Location4952606]: The shard key provided does not have enough cardinality to make the required amount of chunks",
        ),
        // "Fail if authoritative tags exist in config.tags collection and zones are not
        // provided".
        (&tagged, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, unique: false, collation: {locale: 'simple'}, numInitialChunks: 2})", "MongoServerError[BadValue]: *"),
        // Success cases.
        (&filled, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, collation: {locale: 'simple'}})", "ok"),
        (&filled, "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, unique: false, collation: {locale: 'simple'}, numInitialChunks: 2})", "ok"),
    ]);
}

/// "Succeed if the zone provided is assigned to a shard but not a range for the source
/// collection" (reshard_collection_basic.js): the zone's bounds split the new key's
/// range, three chunks, the zone's on its shard.
#[test]
fn reshard_with_a_zone_splits_at_its_bounds() {
    let mut s = Session::default();
    let script = "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\ndb.adminCommand({shardCollection: 'db.foo', key: {oldKey: 1}})\nfor (let x = 0; x < 500; x++) { db.getSiblingDB('db').foo.insertOne({oldKey: x, newKey: 500 - x}) }\ndb.adminCommand({addShardToZone: 'shard02', zone: 'x2'})\ndb.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}, unique: false, collation: {locale: 'simple'}, zones: [{zone: 'x2', min: {newKey: 5}, max: {newKey: 10}}]})";
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    s.cluster.check().unwrap();
    let sharding = s.cluster.sharding("db.foo").unwrap();
    let zone_chunk = sharding
        .table
        .iter()
        .find(|c| sharding.bound_string(&c.min) == "{ newKey: 5 }")
        .unwrap();
    assert_eq!(sharding.bound_string(&zone_chunk.max), "{ newKey: 10 }");
    assert_eq!(s.cluster.shard_name(zone_chunk.shard), "shard02");
}

/// jstests/sharding/merge_chunks_basic.js, in the words of cluster_merge_chunks_cmd.cpp's
/// errmsgRun (3.6 to 8.0).
#[test]
fn merge_chunks_basic() {
    let split = "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\ndb.adminCommand({shardCollection: 'db.foo', key: {a: 1}})\ndb.adminCommand({split: 'db.foo', middle: {a: 0}})\ndb.adminCommand({split: 'db.foo', middle: {a: -1}})\ndb.adminCommand({split: 'db.foo', middle: {a: 1}})\n";
    check_cases(&[
        // "Fail if invalid namespace", "database does not exist", "collection is unsharded".
        (V80, "db.adminCommand({mergeChunks: '', bounds: [{a: -1}, {a: 1}]})", "MongoServerError[InvalidNamespace]: Invalid namespace specified ''"),
        (V80, "db.adminCommand({mergeChunks: 'a.b', bounds: [{a: -1}, {a: 1}]})", "MongoServerError[*"),
        (
            "sim.version('8.0')\ndb.adminCommand({enableSharding: 'db'})\n",
            "db.adminCommand({mergeChunks: 'db.xxx', bounds: [{a: -1}, {a: 1}]})",
            "MongoServerError[NamespaceNotSharded]: *",
        ),
        // "Errors if either bounds is not a valid shard key", "Fail if a wrong key".
        (
            split,
            "db.adminCommand({mergeChunks: 'db.foo', bounds: [{x: -1}, {a: 1}]})",
            "MongoServerError[UnknownError]: shard key bounds [{ x: -1 },{ a: 1 }) are not valid for shard key pattern { a: 1 }",
        ),
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}, {x: 1}]})", "MongoServerError[UnknownError]: *"),
        // "Fail if chunks do not contain a bound".
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}, {a: 10}]})", "MongoServerError[*"),
        // The bounds field itself.
        (split, "db.adminCommand({mergeChunks: 'db.foo'})", "MongoServerError[UnknownError]: no bounds were specified"),
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: []})", "MongoServerError[UnknownError]: no bounds were specified"),
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}]})", "MongoServerError[UnknownError]: only a min and max bound may be specified"),
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{}, {a: 1}]})", "MongoServerError[UnknownError]: no min key specified"),
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}, {}]})", "MongoServerError[UnknownError]: no max key specified"),
        // "Validate metadata": [-1, 0) and [0, 1) merge.
        (split, "db.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}, {a: 1}]})", "ok"),
    ]);
}

/// The merge leaves three chunks, one of them [-1, 1) (merge_chunks_basic.js).
#[test]
fn merge_chunks_joins_the_range() {
    let mut s = Session::default();
    let script = "sim.version('8.0')\ndb.adminCommand({shardCollection: 'db.foo', key: {a: 1}})\ndb.adminCommand({split: 'db.foo', middle: {a: 0}})\ndb.adminCommand({split: 'db.foo', middle: {a: -1}})\ndb.adminCommand({split: 'db.foo', middle: {a: 1}})\ndb.adminCommand({mergeChunks: 'db.foo', bounds: [{a: -1}, {a: 1}]})";
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let sharding = s.cluster.sharding("db.foo").unwrap();
    let bounds: Vec<String> = sharding
        .table
        .iter()
        .map(|c| {
            format!(
                "{} -> {}",
                sharding.bound_string(&c.min),
                sharding.bound_string(&c.max)
            )
        })
        .collect();
    assert_eq!(
        bounds,
        [
            "{ a: MinKey() } -> { a: -1 }",
            "{ a: -1 } -> { a: 1 }",
            "{ a: 1 } -> { a: MaxKey() }"
        ]
    );
}

/// The first shard's entry of `filter`'s explain on `test.c`, sharded on `{x: 1}` with
/// three documents on one shard (8.0).
fn shard_explain(filter: &str) -> Document {
    let mut s = Session::default();
    let script = format!(
        "sim.version('8.0')\nsh.shardCollection('test.c', {{x: 1}})\ndb.c.insertMany([{{x: 1, y: 1}}, {{x: 5, y: 2}}, {{x: 10, y: 3}}])\ndb.c.find({filter}).explain().queryPlanner.winningPlan.shards[0]"
    );
    let out = s.run(&script);
    match &out.last().unwrap().result {
        Ok(Output::Value(Bson::Document(d))) => d.clone(),
        other => panic!("{filter}: {other:?}"),
    }
}

/// The shard key index scan explain prints, with `filter` when it has one.
fn ixscan(filter: Option<Document>, bounds: &[&str]) -> Document {
    let mut d = doc! { "stage": "IXSCAN" };
    if let Some(f) = filter {
        d.insert("filter", f);
    }
    d.extend(doc! {
        "keyPattern": { "x": 1 },
        "indexName": "x_1",
        "isMultiKey": false,
        "multiKeyPaths": { "x": [] },
        "isUnique": false,
        "isSparse": false,
        "isPartial": false,
        "indexVersion": 2,
        "direction": "forward",
        "indexBounds": { "x": bounds.iter().map(|b| Bson::String(b.to_string())).collect::<Vec<_>>() },
    });
    d
}

/// How explain serializes a query (`parsedQuery` and a `COLLSCAN`'s `filter`):
/// MatchExpression::serialize of the canonical query. `$or`/`$nor` children each
/// serialized and sorted (CanonicalQuery::sortTree); negations as NotMatchExpression
/// writes them, `{path: {$not: <negated leaf>}}` ($ne is NOT(EQ), $nin NOT(IN), $exists:
/// false NOT(EXISTS)); a regex as RegexMatchExpression's `{$regex, $options}`.
#[test]
fn explain_serializes_the_canonical_query() {
    let cases: &[(&str, Document)] = &[
        (
            "{$or: [{y: 2}, {x: 1}]}",
            doc! { "$or": [{ "x": { "$eq": 1 } }, { "y": { "$eq": 2 } }] },
        ),
        (
            "{$nor: [{x: 1}, {y: 2}]}",
            doc! { "$nor": [{ "x": { "$eq": 1 } }, { "y": { "$eq": 2 } }] },
        ),
        ("{$or: [{y: 2}]}", doc! { "y": { "$eq": 2 } }),
        ("{y: {$ne: 5}}", doc! { "y": { "$not": { "$eq": 5 } } }),
        (
            "{y: {$nin: [5, 1, 5]}}",
            doc! { "y": { "$not": { "$in": [1, 5] } } },
        ),
        ("{y: {$exists: true}}", doc! { "y": { "$exists": true } }),
        (
            "{y: {$exists: false}}",
            doc! { "y": { "$not": { "$exists": true } } },
        ),
        (
            "{y: {$not: {$gt: 3}}}",
            doc! { "y": { "$not": { "$gt": 3 } } },
        ),
        (
            "{y: /ab/i}",
            doc! { "y": { "$regex": "ab", "$options": "i" } },
        ),
        ("{y: {$regex: 'ab'}}", doc! { "y": { "$regex": "ab" } }),
        // InMatchExpression::getOptimizer: one value is an equality, one regex a regex.
        ("{y: {$in: [7, 7]}}", doc! { "y": { "$eq": 7 } }),
        ("{y: {$in: [/ab/]}}", doc! { "y": { "$regex": "ab" } }),
        ("{y: {$nin: [7]}}", doc! { "y": { "$not": { "$eq": 7 } } }),
        (
            "{$and: [{y: {$gt: 1}}, {y: {$lt: 9}}]}",
            doc! { "$and": [{ "y": { "$lt": 9 } }, { "y": { "$gt": 1 } }] },
        ),
        (
            "{y: 1, $or: [{y: 2}, {y: 3}]}",
            doc! { "$and": [{ "$or": [{ "y": { "$eq": 2 } }, { "y": { "$eq": 3 } }] }, { "y": { "$eq": 1 } }] },
        ),
    ];
    let mut failures = Vec::new();
    for (filter, expected) in cases {
        let shard = shard_explain(filter);
        let parsed = shard.get_document("parsedQuery").unwrap();
        if parsed != expected {
            failures.push(format!(
                "{filter}: parsedQuery {parsed}, expected {expected}"
            ));
        }
        // None of these uses the shard key index: the scan applies the same filter.
        let scan = shard
            .get_document("winningPlan")
            .and_then(|p| p.get_document("inputStage"))
            .unwrap();
        if scan.get_document("filter").ok() != Some(expected) {
            failures.push(format!("{filter}: COLLSCAN {scan}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Negations on the shard key read through the index and still find exactly the
/// matching documents, a document without the key (indexed as null) among them.
#[test]
fn negations_on_the_shard_key_find_what_they_match() {
    let mut s = Session::default();
    let script = "sim.version('8.0')\nsh.shardCollection('test.c', {x: 1})\ndb.c.insertMany([{x: 1}, {x: 5}, {x: 'a'}, {y: 1}])\nsh.splitAt('test.c', {x: 5})\nsh.moveChunk('test.c', {x: 5}, 'shard02')";
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    for (filter, expected) in [
        ("{x: {$ne: 5}}", 3),
        ("{x: {$nin: [1, 5]}}", 2),
        ("{x: {$not: {$gt: 3}}}", 3),
        ("{x: {$not: {$lte: 3}}}", 3),
    ] {
        let out = s.run(&format!("db.c.countDocuments({filter})"));
        let got = match &out[0].result {
            Ok(Output::Value(Bson::Int32(n))) => i64::from(*n),
            Ok(Output::Value(Bson::Int64(n))) => *n,
            other => panic!("{filter}: {other:?}"),
        };
        assert_eq!(got, expected, "{filter}");
    }
}

/// The plans of shard key conditions: a regular expression on the key is applied to the
/// index keys by the scan (`INEXACT_COVERED` bounds), under the shard filter and a
/// `FETCH` without filter; a simple prefix regex's bounds are exact; a top-level `$and`
/// of ranges reads as the range (planner_analysis.cpp places the `SHARDING_FILTER`
/// between `FETCH` and `IXSCAN`).
#[test]
fn explain_plans_of_shard_key_conditions() {
    let over_scan = |scan: Document| doc! { "stage": "FETCH", "inputStage": { "stage": "SHARDING_FILTER", "inputStage": scan } };
    let over_fetch = |filter: Document, scan: Document| doc! { "stage": "SHARDING_FILTER", "inputStage": { "stage": "FETCH", "filter": filter, "inputStage": scan } };

    let cases: &[(&str, Document)] = &[
        (
            "{x: /ab/i}",
            over_scan(ixscan(
                Some(doc! { "x": { "$regex": "ab", "$options": "i" } }),
                &["[\"\", {})", "[/ab/i, /ab/i]"],
            )),
        ),
        (
            "{x: /^ab/}",
            over_scan(ixscan(None, &["[\"ab\", \"ac\")", "[/^ab/, /^ab/]"])),
        ),
        (
            "{$and: [{x: {$gt: 1}}, {x: {$lt: 9}}]}",
            over_scan(ixscan(None, &["(1, 9)"])),
        ),
        (
            "{x: {$gt: 1, $lt: 9}}",
            over_scan(ixscan(None, &["(1, 9)"])),
        ),
        (
            "{x: {$in: [5, 1]}}",
            over_scan(ixscan(None, &["[1, 1]", "[5, 5]"])),
        ),
        // $exists: every key (true) or the null point (false), fetched and filtered
        // (INEXACT_FETCH), the shard filter over the FETCH that filters.
        (
            "{x: {$exists: true}}",
            over_fetch(
                doc! { "x": { "$exists": true } },
                ixscan(None, &["[MinKey, MaxKey]"]),
            ),
        ),
        (
            "{x: {$exists: false}}",
            over_fetch(
                doc! { "x": { "$not": { "$exists": true } } },
                ixscan(None, &["[null, null]"]),
            ),
        ),
        // Negations: the child's bounds complemented, exact (IndexBoundsBuilder::translate,
        // NOT; OrderedIntervalList::complement).
        (
            "{x: {$ne: 5}}",
            over_scan(ixscan(None, &["[MinKey, 5)", "(5, MaxKey]"])),
        ),
        (
            "{x: {$nin: [5, 1]}}",
            over_scan(ixscan(None, &["[MinKey, 1)", "(1, 5)", "(5, MaxKey]"])),
        ),
        (
            "{x: {$not: {$gt: 3}}}",
            over_scan(ixscan(None, &["[MinKey, 3]", "(inf.0, MaxKey]"])),
        ),
    ];
    let mut failures = Vec::new();
    for (filter, expected) in cases {
        let shard = shard_explain(filter);
        let plan = shard.get_document("winningPlan").unwrap();
        if plan != expected {
            failures.push(format!(
                "{filter}:\n  got      {plan}\n  expected {expected}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// jstests/sharding/move_chunk_basic.js and compound_hashed_shard_key_sharding_cmds.js's
/// moveChunk cases in 8.0 mode, in the words of 6.0+ cluster_move_chunk_cmd.cpp, a typed
/// command: the IDL's types, then "bounds can only have exactly 2 elements", "cannot
/// specify bounds and query at the same time", "need to specify query or bounds"
/// (InvalidOptions), the destination, then 656450, 656451, 656452.
#[test]
fn move_chunk_basic_typed() {
    let hashed = "sim.version('8.0')\nsh.shardCollection('db.h', {_id: 'hashed'})\n";
    let ranged = "sim.version('8.0')\nsh.shardCollection('db.foo', {a: 1})\n";
    check_cases(&[
        // "Fail if invalid namespace", "collection is unsharded".
        (V80, "db.adminCommand({moveChunk: '', find: {_id: 1}, to: 'shard02'})", "MongoServerError[InvalidNamespace]: Invalid namespace specified ''"),
        (V80, "db.adminCommand({moveChunk: 'db.xxx', find: {_id: 1}, to: 'shard02'})", "MongoServerError[NamespaceNotSharded]: *"),
        // "Error if either of the bounds is not a valid shard key" (NaN is no object).
        (
            hashed,
            "db.adminCommand({moveChunk: 'db.h', bounds: [NaN, {_id: MaxKey()}], to: 'shard02'})",
            "MongoServerError[TypeMismatch]: BSON field 'moveChunk.bounds.0' is the wrong type 'double', expected type 'object'",
        ),
        (
            hashed,
            "db.adminCommand({moveChunk: 'db.h', bounds: [{_id: MinKey()}], to: 'shard02'})",
            "MongoServerError[InvalidOptions]: bounds can only have exactly 2 elements",
        ),
        // "Fail if find and bounds are both set".
        (
            hashed,
            "db.adminCommand({moveChunk: 'db.h', find: {_id: 1}, bounds: [{_id: MinKey()}, {_id: MaxKey()}], to: 'shard02'})",
            "MongoServerError[InvalidOptions]: cannot specify bounds and query at the same time",
        ),
        (hashed, "db.adminCommand({moveChunk: 'db.h', to: 'shard02'})", "MongoServerError[InvalidOptions]: need to specify query or bounds"),
        // "Fail if find is not a valid shard key".
        (
            ranged,
            "db.adminCommand({moveChunk: 'db.foo', find: {xxx: 1}, to: 'shard02'})",
            "MongoServerError[Location656450]: no shard key found in chunk query { xxx: 1 }",
        ),
        (ranged, "sh.moveChunk('db.foo', {xxx: 1}, 'shard02')", "MongoServerError[Location656450]: *"),
        (
            ranged,
            "db.adminCommand({moveChunk: 'db.foo', bounds: [{x: MinKey()}, {a: MaxKey()}], to: 'shard02'})",
            "MongoServerError[Location656451]: shard key bounds [{ x: MinKey },{ a: MaxKey }) are not valid for shard key pattern { a: 1 }",
        ),
        (
            ranged,
            "db.adminCommand({moveChunk: 'db.foo', bounds: [{a: MinKey()}, {a: 5}], to: 'shard02'})",
            "MongoServerError[Location656452]: no chunk found with the shard key bounds [{ a: MinKey }, { a: 5 })",
        ),
        // "Fail if to shard does not exists".
        (ranged, "db.adminCommand({moveChunk: 'db.foo', find: {a: 1}, to: 'WrongShard'})", "MongoServerError[ShardNotFound]: *"),
        (ranged, "db.adminCommand({moveChunk: 'db.foo', find: {a: 1}, to: 'shard02'})", "ok"),
        (hashed, "db.adminCommand({moveChunk: 'db.h', bounds: [{_id: MinKey()}, {_id: NumberLong('-3074457345618258602')}], to: 'shard03'})", "ok"),
    ]);
}

/// 3.6's NotMatchExpression::serialize writes every negation as a `$nor` of its child
/// (expression_tree.cpp: "As a fix, we change it to $nor, which is always parseable");
/// 4.4 on write the single-path `{path: {$not: ...}}`.
#[test]
fn explain_negations_in_3_6() {
    let mut s = Session::default();
    let script = "sim.version('3.6')\nsh.shardCollection('test.c', {x: 1})\ndb.c.insertMany([{x: 1, y: 1}])\ndb.c.find({y: {$ne: 5}, x: 1}).explain().queryPlanner.winningPlan.shards[0]";
    let out = s.run(script);
    let Ok(Output::Value(Bson::Document(shard))) = &out.last().unwrap().result else {
        panic!("{:?}", out.last().unwrap().result);
    };
    let nor = doc! { "$nor": [{ "y": { "$eq": 5 } }] };
    assert_eq!(
        shard.get_document("parsedQuery").unwrap(),
        &doc! { "$and": [{ "x": { "$eq": 1 } }, nor.clone()] }
    );
    let fetch = shard
        .get_document("winningPlan")
        .and_then(|p| p.get_document("inputStage"))
        .unwrap();
    assert_eq!(fetch.get_document("filter").unwrap(), &nor);
}
