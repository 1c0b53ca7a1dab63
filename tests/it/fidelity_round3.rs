//! Round three of the fidelity work: findOneAndUpdate and its siblings with their shard key
//! rules per era, upserts on a null shard key, the query analyzer's helpers and checks,
//! configureCollectionBalancing, the AutoMerger's helpers, and the answers fixed against
//! the source. Each test names the MongoDB or mongosh source file its answers come from.
#![allow(clippy::unwrap_used)]

use expect_test::{expect, Expect};
use shardlab::Session;

/// Runs `script` in a new session and returns every statement with what the shell printed
/// (`> statement`, then the answer), checking the cluster's invariants at the end.
fn transcript(script: &str) -> String {
    let shape = super::transcripts::Shape {
        every_statement: true,
        ..Default::default()
    };
    super::transcripts::of(script, shape)
}

fn check(script: &str, expected: Expect) {
    expected.assert_eq(&transcript(script));
}

/// Runs `setup` and then `command`, and returns what `command` printed.
fn answer(setup: &str, command: &str) -> String {
    let mut session = Session::default();
    for o in session.run(setup) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let outcomes = session.run(command);
    session.cluster.check().unwrap();
    outcomes.last().and_then(|o| o.render()).unwrap_or_default()
}

/// A collection sharded on `{x: 1}` in `version`, split at 100 with `[100, MaxKey)` on
/// shard02, holding three documents: `x` 1 and 200 and one without `x`.
fn sharded(version: &str) -> String {
    format!(
        "sim.version('{version}')\n\
         sh.shardCollection('test.c', {{x: 1}})\n\
         sh.splitAt('test.c', {{x: 100}})\n\
         sh.moveChunk('test.c', {{x: 100}}, 'shard02')\n\
         db.c.insertMany([{{_id: 1, x: 1, v: 1}}, {{_id: 2, x: 200, v: 2}}, {{_id: 3, v: 3}}])\n"
    )
}

/// A read of `filter` (an equality on `x`) and the shard it targets: mongos reads only
/// that shard, so the document is found only if it sits on the shard owning its key.
fn on_owning_shard(filter: &str) -> String {
    format!(
        "db.c.find({filter})\ndb.c.find({filter}).explain().queryPlanner.winningPlan.shards[0].shardName"
    )
}

// mongosh packages/shell-api/src/collection.ts (findOneAndUpdate, findOneAndReplace,
// findOneAndDelete return `result.value`: the document or null; findAndModify maps onto
// them) and helpers.ts (processFindAndModifyOptions: returnDocument, else returnOriginal,
// else returnNewDocument, else new; the document before by default; any other
// returnDocument is a MongoshInvalidInputError; assertArgsDefinedType); the Node driver's
// src/operations/find_and_modify.ts (its MongoInvalidArgumentErrors).
#[test]
fn find_one_and_modify_options_and_shapes() {
    check(
        "db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 2, v: 2}, {_id: 3, x: 3, v: 3}])
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}})
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnDocument: 'after'})
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnNewDocument: true, projection: {_id: 0}})
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnOriginal: false, returnNewDocument: false})
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {new: true})
db.c.findOneAndUpdate({}, {$set: {top: true}}, {sort: {v: -1}, returnDocument: 'after'})
db.c.findOneAndUpdate({x: 9}, {$set: {v: 9}})
db.c.findOneAndUpdate({x: 9}, {$set: {v: 9}}, {upsert: true})
db.c.findOneAndUpdate({x: 8}, {$set: {v: 8}, $setOnInsert: {n: 1}}, {upsert: true, returnDocument: 'after'})
db.c.findOneAndReplace({x: 2}, {x: 2, w: 1}, {returnDocument: 'after'})
db.c.findOneAndDelete({x: {$gte: 2}}, {sort: {x: -1}, projection: {x: 1}})
db.c.findAndModify({query: {x: 2}, update: {$set: {z: 1}}, new: true, fields: {z: 1}})
db.c.findAndModify({query: {x: 2}, remove: true})
db.c.findAndModify({query: {x: 3}})
db.c.findOneAndUpdate({x: 1}, {$inc: {v: 1}}, {returnDocument: 'later'})
db.c.findOneAndUpdate({x: 1}, {v: 1})
db.c.findOneAndReplace({x: 1}, {$set: {v: 1}})
db.c.findOneAndUpdate()
db.c.findOneAndUpdate({x: 1})
db.c.findOneAndReplace({x: 1}, null)
db.c.findOneAndDelete(5)
db.c.findAndModify()
db.c.countDocuments()",
        expect![[r#"
            > db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 2, v: 2}, {_id: 3, x: 3, v: 3}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3 } }
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}})
            { _id: 1, x: 1, v: 1 }
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnDocument: 'after'})
            { _id: 1, x: 1, v: 21 }
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnNewDocument: true, projection: {_id: 0}})
            { x: 1, v: 31 }
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {returnOriginal: false, returnNewDocument: false})
            { _id: 1, x: 1, v: 41 }
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 10}}, {new: true})
            { _id: 1, x: 1, v: 51 }
            > db.c.findOneAndUpdate({}, {$set: {top: true}}, {sort: {v: -1}, returnDocument: 'after'})
            { _id: 1, x: 1, v: 51, top: true }
            > db.c.findOneAndUpdate({x: 9}, {$set: {v: 9}})
            null
            > db.c.findOneAndUpdate({x: 9}, {$set: {v: 9}}, {upsert: true})
            null
            > db.c.findOneAndUpdate({x: 8}, {$set: {v: 8}, $setOnInsert: {n: 1}}, {upsert: true, returnDocument: 'after'})
            { _id: ObjectId('6553f102c1675e0bb9150281'), x: 8, n: 1, v: 8 }
            > db.c.findOneAndReplace({x: 2}, {x: 2, w: 1}, {returnDocument: 'after'})
            { _id: 2, x: 2, w: 1 }
            > db.c.findOneAndDelete({x: {$gte: 2}}, {sort: {x: -1}, projection: {x: 1}})
            { _id: ObjectId('6553f101c1675e0bb9150280'), x: 9 }
            > db.c.findAndModify({query: {x: 2}, update: {$set: {z: 1}}, new: true, fields: {z: 1}})
            { _id: 2, z: 1 }
            > db.c.findAndModify({query: {x: 2}, remove: true})
            { _id: 2, x: 2, w: 1, z: 1 }
            > db.c.findAndModify({query: {x: 3}})
            MongoshInvalidInputError: [COMMON-10001] Must specify options.update or options.remove
            > db.c.findOneAndUpdate({x: 1}, {$inc: {v: 1}}, {returnDocument: 'later'})
            MongoshInvalidInputError: [COMMON-10001] returnDocument needs to be either 'before' or 'after'
            > db.c.findOneAndUpdate({x: 1}, {v: 1})
            MongoInvalidArgumentError: Update document requires atomic operators
            > db.c.findOneAndReplace({x: 1}, {$set: {v: 1}})
            MongoInvalidArgumentError: Replacement document must not contain atomic operators
            > db.c.findOneAndUpdate()
            MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Collection.findOneAndUpdate)
            > db.c.findOneAndUpdate({x: 1})
            MongoInvalidArgumentError: Argument "update" must be an object
            > db.c.findOneAndReplace({x: 1}, null)
            MongoInvalidArgumentError: Argument "replacement" must be an object
            > db.c.findOneAndDelete(5)
            MongoInvalidArgumentError: Argument "filter" must be an object
            > db.c.findAndModify()
            MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Collection.findAndModify)
            > db.c.countDocuments()
            3
        "#]],
    );
}

// src/mongo/s/commands/cluster_find_and_modify_cmd.cpp: up to 6.x `getShardKey` needs an
// equality on the whole shard key in the filter ("Query for sharded findAndModify must
// contain the shard key", ShardKeyNotFound) and sends the command to the chunk owning it;
// 3.6 keeps the shard key immutable (the shard's update refuses the change, as
// modifier_node.cpp does for updateOne); from 4.2 a changed key moves the document (the
// WouldChangeOwningShard path), and a document missing the key is reached with
// `key: null` beside `_id`.
#[test]
fn find_and_modify_shard_key_rules_before_7_0() {
    let v36 = sharded("3.6").replace(", {_id: 3, v: 3}", "");
    check(
        &format!(
            "{v36}db.c.findOneAndUpdate({{_id: 1}}, {{$set: {{v: 5}}}})
db.c.findOneAndUpdate({{x: 1}}, {{$set: {{v: 5}}}}, {{returnDocument: 'after'}})
db.c.findOneAndUpdate({{x: 1}}, {{$set: {{x: 150}}}})
db.c.findOneAndDelete({{v: 2}})"
        ),
        expect![[r#"
            > sim.version('3.6')
            { version: '3.6', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sh.splitAt('test.c', {x: 100})
            { ok: 1 }
            > sh.moveChunk('test.c', {x: 100}, 'shard02')
            { millis: 0, ok: 1 }
            > db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 200, v: 2}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2 } }
            > db.c.findOneAndUpdate({_id: 1}, {$set: {v: 5}})
            MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key
            > db.c.findOneAndUpdate({x: 1}, {$set: {v: 5}}, {returnDocument: 'after'})
            { _id: 1, x: 1, v: 5 }
            > db.c.findOneAndUpdate({x: 1}, {$set: {x: 150}})
            MongoServerError[ImmutableField]: Performing an update on the path 'x' would modify the immutable field 'x'
            > db.c.findOneAndDelete({v: 2})
            MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key
        "#]],
    );
    let v50 = sharded("5.0");
    check(
        &format!(
            "{v50}db.c.findOneAndUpdate({{_id: 1}}, {{$set: {{v: 5}}}})
db.c.findOneAndUpdate({{x: 1}}, {{$set: {{x: 150}}}}, {{returnDocument: 'after'}})
{}
db.c.findOneAndUpdate({{_id: 3, x: null}}, {{$set: {{x: 120}}}}, {{returnDocument: 'after'}})
{}
db.c.findOneAndUpdate({{x: 5}}, {{$set: {{v: 5}}}}, {{upsert: true, returnDocument: 'after'}})
db.c.findOneAndUpdate({{v: 5}}, {{$set: {{w: 5}}}}, {{upsert: true}})",
            on_owning_shard("{x: 150}"),
            on_owning_shard("{x: 120}")
        ),
        expect![[r#"
            > sim.version('5.0')
            { version: '5.0', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sh.splitAt('test.c', {x: 100})
            { ok: 1 }
            > sh.moveChunk('test.c', {x: 100}, 'shard02')
            { millis: 0, ok: 1 }
            > db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 200, v: 2}, {_id: 3, v: 3}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3 } }
            > db.c.findOneAndUpdate({_id: 1}, {$set: {v: 5}})
            MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key
            > db.c.findOneAndUpdate({x: 1}, {$set: {x: 150}}, {returnDocument: 'after'})
            { _id: 1, x: 150, v: 1 }
            > db.c.find({x: 150})
            [ { _id: 1, x: 150, v: 1 } ]
            > db.c.find({x: 150}).explain().queryPlanner.winningPlan.shards[0].shardName
            shard02
            > db.c.findOneAndUpdate({_id: 3, x: null}, {$set: {x: 120}}, {returnDocument: 'after'})
            { _id: 3, v: 3, x: 120 }
            > db.c.find({x: 120})
            [ { _id: 3, v: 3, x: 120 } ]
            > db.c.find({x: 120}).explain().queryPlanner.winningPlan.shards[0].shardName
            shard02
            > db.c.findOneAndUpdate({x: 5}, {$set: {v: 5}}, {upsert: true, returnDocument: 'after'})
            { _id: ObjectId('6553f107c1675e0bb9150280'), x: 5, v: 5 }
            > db.c.findOneAndUpdate({v: 5}, {$set: {w: 5}}, {upsert: true})
            MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key
        "#]],
    );
}

// src/mongo/s/commands/cluster_find_and_modify_cmd.cpp (7.0 on): a filter without the
// shard key runs through the two-phase protocol (write_without_shard_key_util.cpp,
// useTwoPhaseProtocol), which finds the document on whichever shard holds it (by `sort`
// across the shards); a retryable write (mongosh's default) may then change the key
// (allowShardKeyUpdatesWithoutFullShardKeyInQuery), and an upsert needs no key.
#[test]
fn find_and_modify_without_shard_key_from_7_0() {
    let v80 = sharded("8.0");
    check(
        &format!(
            "{v80}db.c.findOneAndUpdate({{v: 2}}, {{$set: {{w: 1}}}}, {{returnDocument: 'after'}})
db.c.findOneAndUpdate({{}}, {{$set: {{first: true}}}}, {{sort: {{v: -1}}, projection: {{v: 1}}}})
db.c.findOneAndUpdate({{_id: 1}}, {{$set: {{x: 300}}}}, {{returnDocument: 'after'}})
{}
db.c.findOneAndDelete({{v: 3}})
db.c.findOneAndUpdate({{_id: 9}}, {{$set: {{v: 9}}}}, {{upsert: true, returnDocument: 'after'}})
db.c.countDocuments()",
            on_owning_shard("{x: 300}")
        ),
        expect![[r#"
            > sim.version('8.0')
            { version: '8.0', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sh.splitAt('test.c', {x: 100})
            { ok: 1 }
            > sh.moveChunk('test.c', {x: 100}, 'shard02')
            { millis: 0, ok: 1 }
            > db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 200, v: 2}, {_id: 3, v: 3}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3 } }
            > db.c.findOneAndUpdate({v: 2}, {$set: {w: 1}}, {returnDocument: 'after'})
            { _id: 2, x: 200, v: 2, w: 1 }
            > db.c.findOneAndUpdate({}, {$set: {first: true}}, {sort: {v: -1}, projection: {v: 1}})
            { _id: 3, v: 3 }
            > db.c.findOneAndUpdate({_id: 1}, {$set: {x: 300}}, {returnDocument: 'after'})
            { _id: 1, x: 300, v: 1 }
            > db.c.find({x: 300})
            [ { _id: 1, x: 300, v: 1 } ]
            > db.c.find({x: 300}).explain().queryPlanner.winningPlan.shards[0].shardName
            shard02
            > db.c.findOneAndDelete({v: 3})
            { _id: 3, v: 3, first: true }
            > db.c.findOneAndUpdate({_id: 9}, {$set: {v: 9}}, {upsert: true, returnDocument: 'after'})
            { _id: 9, v: 9 }
            > db.c.countDocuments()
            3
        "#]],
    );
}

// src/mongo/db/update/update_driver.cpp (populateDocumentWithQueryFields): an upsert that
// matches nothing inserts the filter's equalities (`_id` first, dotted paths as embedded
// documents, `$eq` and `$and` included) with the update applied, `$setOnInsert` too; so a
// filter with the shard key equal to null (the Shard Keys page's recipe for documents
// missing the key) inserts a document whose key is null. mongosh's UpdateResult (result.ts)
// names the upserted `_id` `insertedId`. chunk_manager_targeter.cpp (4.4/5.0) sends it to
// the chunk of the null key.
#[test]
fn upsert_with_a_null_shard_key_inserts() {
    let v50 = sharded("5.0");
    check(
        &format!(
            "{v50}db.c.updateOne({{_id: 10, x: null}}, {{$set: {{a: 1}}}}, {{upsert: true}})
db.c.find({{_id: 10}})
db.c.updateOne({{_id: 10, x: null}}, {{$set: {{a: 2}}}}, {{upsert: true}})
db.c.updateOne({{x: 7, 'p.q': 1, $and: [{{r: {{$eq: 2}}}}], s: {{$gt: 1}}}}, {{$inc: {{n: 1}}, $setOnInsert: {{t: 1}}}}, {{upsert: true}})
db.c.find({{x: 7}})
db.c.replaceOne({{_id: 11, x: 8}}, {{x: 8, b: 1}}, {{upsert: true}})
db.c.find({{_id: 11}})
db.c.updateMany({{x: null}}, {{$set: {{m: 1}}}}, {{upsert: true}})
db.c.countDocuments({{x: null}})"
        ),
        expect![[r#"
            > sim.version('5.0')
            { version: '5.0', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sh.splitAt('test.c', {x: 100})
            { ok: 1 }
            > sh.moveChunk('test.c', {x: 100}, 'shard02')
            { millis: 0, ok: 1 }
            > db.c.insertMany([{_id: 1, x: 1, v: 1}, {_id: 2, x: 200, v: 2}, {_id: 3, v: 3}])
            { acknowledged: true, insertedIds: { '0': 1, '1': 2, '2': 3 } }
            > db.c.updateOne({_id: 10, x: null}, {$set: {a: 1}}, {upsert: true})
            {
              acknowledged: true,
              insertedId: 10,
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 1
            }
            > db.c.find({_id: 10})
            [ { _id: 10, x: null, a: 1 } ]
            > db.c.updateOne({_id: 10, x: null}, {$set: {a: 2}}, {upsert: true})
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > db.c.updateOne({x: 7, 'p.q': 1, $and: [{r: {$eq: 2}}], s: {$gt: 1}}, {$inc: {n: 1}, $setOnInsert: {t: 1}}, {upsert: true})
            {
              acknowledged: true,
              insertedId: ObjectId('6553f106c1675e0bb9150280'),
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 1
            }
            > db.c.find({x: 7})
            [
              {
                _id: ObjectId('6553f106c1675e0bb9150280'),
                p: { q: 1 },
                r: 2,
                x: 7,
                n: 1,
                t: 1
              }
            ]
            > db.c.replaceOne({_id: 11, x: 8}, {x: 8, b: 1}, {upsert: true})
            {
              acknowledged: true,
              insertedId: 11,
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 1
            }
            > db.c.find({_id: 11})
            [ { _id: 11, x: 8, b: 1 } ]
            > db.c.updateMany({x: null}, {$set: {m: 1}}, {upsert: true})
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 2,
              modifiedCount: 2,
              upsertedCount: 0
            }
            > db.c.countDocuments({x: null})
            2
        "#]],
    );
}

// mongosh collection.ts (configureQueryAnalyzer, analyzeShardKey: 7.0 on, the admin
// command on the collection's namespace with the options merged in);
// src/mongo/db/s/configure_query_analyzer_cmd.cpp (the checks of `mode` and
// `samplesPerSecond`, kMaxSamplesPerSecond = 50, the reply's newConfiguration and the
// pre-image's oldConfiguration: "off" updates only an analyzer that is on, so it has no
// old configuration otherwise; "off" leaves the old rate in the document);
// analyze_shard_key_util.cpp (validateNamespace, validateCollectionOptions); the IDL
// parser's messages for a missing field and a bad enumeration value.
#[test]
fn configure_query_analyzer_checks_and_replies() {
    check(
        "sim.version('8.0')
db.c.insertOne({_id: 1, x: 1})
db.c.configureQueryAnalyzer({mode: 'off'})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 5})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 2.5})
db.c.configureQueryAnalyzer({mode: 'off'})
db.c.configureQueryAnalyzer({mode: 'off'})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})
db.c.configureQueryAnalyzer({mode: 'off', samplesPerSecond: 1})
db.c.configureQueryAnalyzer({mode: 'full'})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 0})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 51})
db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 'fast'})
db.c.configureQueryAnalyzer({mode: 'on'})
db.c.configureQueryAnalyzer({})
db.nothing.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})
db.adminCommand({configureQueryAnalyzer: 'config.c', mode: 'full', samplesPerSecond: 1})
db.getCollection('system.views').configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})",
        expect![[r#"
            > sim.version('8.0')
            { version: '8.0', ok: 1 }
            > db.c.insertOne({_id: 1, x: 1})
            { acknowledged: true, insertedId: 1 }
            > db.c.configureQueryAnalyzer({mode: 'off'})
            { newConfiguration: { mode: 'off' }, ok: 1 }
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 5})
            { newConfiguration: { mode: 'full', samplesPerSecond: 5 }, ok: 1 }
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 2.5})
            {
              newConfiguration: { mode: 'full', samplesPerSecond: 2.5 },
              oldConfiguration: { mode: 'full', samplesPerSecond: 5 },
              ok: 1
            }
            > db.c.configureQueryAnalyzer({mode: 'off'})
            {
              newConfiguration: { mode: 'off' },
              oldConfiguration: { mode: 'full', samplesPerSecond: 2.5 },
              ok: 1
            }
            > db.c.configureQueryAnalyzer({mode: 'off'})
            { newConfiguration: { mode: 'off' }, ok: 1 }
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})
            {
              newConfiguration: { mode: 'full', samplesPerSecond: 1 },
              oldConfiguration: { mode: 'off', samplesPerSecond: 2.5 },
              ok: 1
            }
            > db.c.configureQueryAnalyzer({mode: 'off', samplesPerSecond: 1})
            MongoServerError[InvalidOptions]: Cannot specify 'samplesPerSecond' when 'mode' is "off"
            > db.c.configureQueryAnalyzer({mode: 'full'})
            MongoServerError[InvalidOptions]: 'samplesPerSecond' must be specified when 'mode' is not "off"
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 0})
            MongoServerError[InvalidOptions]: 'samplesPerSecond' must be greater than 0
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 51})
            MongoServerError[InvalidOptions]: 'samplesPerSecond' must be less than or equal to 50
            > db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 'fast'})
            MongoServerError[TypeMismatch]: BSON field 'configureQueryAnalyzer.samplesPerSecond' is the wrong type 'string', expected types '[long, int, decimal, double]'
            > db.c.configureQueryAnalyzer({mode: 'on'})
            MongoServerError[BadValue]: Enumeration value 'on' for field 'configureQueryAnalyzer.mode' is not a valid value.
            > db.c.configureQueryAnalyzer({})
            MongoServerError[Location40414]: BSON field 'configureQueryAnalyzer.mode' is missing but a required field
            > db.nothing.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})
            MongoServerError[NamespaceNotFound]: The namespace does not exist
            > db.adminCommand({configureQueryAnalyzer: 'config.c', mode: 'full', samplesPerSecond: 1})
            MongoServerError[IllegalOperation]: Cannot run against an internal collection
            > db.getCollection('system.views').configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})
            MongoServerError[IllegalOperation]: Cannot run against a system collection
        "#]],
    );
    // The helpers are the 7.0 admin commands: a 5.0 mongos has no such command.
    assert_eq!(
        answer(
            "db.c.insertOne({x: 1})",
            "db.c.configureQueryAnalyzer({mode: 'full', samplesPerSecond: 1})"
        ),
        "MongoServerError[CommandNotFound]: no such cmd: configureQueryAnalyzer"
    );
    assert_eq!(
        answer("db.c.insertOne({x: 1})", "db.c.analyzeShardKey({x: 1})"),
        "MongoServerError[CommandNotFound]: no such cmd: analyzeShardKey"
    );
}

// src/mongo/db/s/analyze_shard_key_cmd_util.cpp (calculateCardinalityAndFrequency): the
// supporting index decides `isUnique`, true when it is unique and has exactly the key's
// fields; a unique index made by createIndex counts as well as the shard key's own, and
// `{y: 1, x: 1}` is not `{x: 1, y: 1}`.
#[test]
fn analyze_shard_key_is_unique_with_a_unique_index() {
    let setup = "sim.version('8.0')
db.c.insertMany([{_id: 1, x: 1, y: 1}, {_id: 2, x: 2, y: 1}, {_id: 3, x: 3, y: 2}])
db.c.createIndex({x: 1}, {unique: true})
db.c.createIndex({y: 1, x: 1}, {unique: true})
db.c.createIndex({x: 1, y: 1})";
    let is_unique = |key: &str| {
        answer(
            setup,
            &format!(
                "db.c.analyzeShardKey({key}, {{readWriteDistribution: false}}).keyCharacteristics.isUnique"
            ),
        )
    };
    assert_eq!(is_unique("{x: 1}"), "true");
    // `{y: 1, x: 1}` is unique but has a field more than `{y: 1}`.
    assert_eq!(is_unique("{y: 1}"), "false");
    assert_eq!(is_unique("{y: 1, x: 1}"), "true");
    assert_eq!(is_unique("{x: 1, y: 1}"), "false");
    // collection.ts: assertArgsDefinedType([key], [true], 'Collection.analyzeShardKey').
    assert_eq!(
        answer(setup, "db.c.analyzeShardKey()"),
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Collection.analyzeShardKey)"
    );
}

// src/mongo/db/s/shard_key_util.cpp (validShardKeyIndexExists, step 1; shardCollection's
// own check in 3.6, cluster_commands/commands_admin.cpp): every unique index must keep
// uniqueness under the new key (ShardKeyPattern::isUniqueIndexCompatible: `_id` first, or
// the key's fields a prefix of the index's), whether or not the collection is empty.
#[test]
fn shard_collection_refuses_an_incompatible_unique_index() {
    let setup = "db.c.createIndex({email: 1}, {unique: true})\ndb.c.createIndex({x: 1})";
    assert_eq!(
        answer(setup, "sh.shardCollection('test.c', {x: 1})"),
        "MongoServerError[InvalidOptions]: can't shard collection 'test.c' with unique index on { email: 1 } and proposed shard key { x: 1 }. Uniqueness can't be maintained unless shard key is a prefix"
    );
    assert_eq!(
        answer(
            &format!("sim.version('3.6')\n{setup}"),
            "db.adminCommand({shardCollection: 'test.c', key: {x: 'hashed'}})"
        ),
        "MongoServerError[InvalidOptions]: can't shard collection 'test.c' with unique index on { email: 1 } and proposed shard key { x: \"hashed\" }. Uniqueness can't be maintained unless shard key is a prefix"
    );
    // The key is a prefix of the unique index: its uniqueness holds within each shard.
    assert_eq!(
        answer(setup, "sh.shardCollection('test.c', {email: 1})"),
        "{ collectionsharded: 'test.c', ok: 1 }"
    );
}

// src/mongo/db/s/config/configsvr_balancer_collection_status_command.cpp: a name that is
// not a collection's is refused (`nss.isValid()`) before anything else, with
// InvalidNamespace, as the jstest balancer_collection_status.js checks.
#[test]
fn balancer_collection_status_of_a_database_name() {
    assert_eq!(
        answer(
            "sh.shardCollection('test.c', {x: 1})",
            "sh.balancerCollectionStatus('test')"
        ),
        "MongoServerError[InvalidNamespace]: Invalid namespace specified 'test'"
    );
    assert_eq!(
        answer(
            "sh.shardCollection('test.c', {x: 1})",
            "db.adminCommand({balancerCollectionStatus: 'test.nothing'})"
        ),
        // 5.0 reads the routing table through the catalog cache (catalog_cache.cpp,
        // getShardedCollectionRoutingInfoWithRefresh); 8.0's words are in
        // fidelity_balancer.rs.
        "MongoServerError[NamespaceNotSharded]: Collection test.nothing is not sharded."
    );
}

// src/mongo/s/catalog/type_shard.cpp (ShardType::toBSON): `_id`, `host`, `draining` while
// the shard drains, its zones as `tags`, `state`, and from 5.0 `topologyTime`.
#[test]
fn list_shards_marks_a_draining_shard() {
    let setup = "sh.addShardToZone('shard02', 'EU')\ndb.adminCommand({removeShard: 'shard03'})";
    check(
        &format!("{setup}\ndb.adminCommand({{listShards: 1}}).shards"),
        expect![[r#"
            > sh.addShardToZone('shard02', 'EU')
            { ok: 1 }
            > db.adminCommand({removeShard: 'shard03'})
            {
              msg: 'draining started successfully',
              state: 'started',
              shard: 'shard03',
              note: 'you need to drop or movePrimary these databases',
              dbsToMove: [],
              ok: 1
            }
            > db.adminCommand({listShards: 1}).shards
            [
              {
                _id: 'shard01',
                host: 'shard01/localhost:27117',
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 })
              },
              {
                _id: 'shard02',
                host: 'shard02/localhost:27217',
                tags: [ 'EU' ],
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 })
              },
              {
                _id: 'shard03',
                host: 'shard03/localhost:27317',
                draining: true,
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 })
              }
            ]
        "#]],
    );
    check(
        &format!("sim.version('3.6')\n{setup}\ndb.adminCommand({{listShards: 1}}).shards"),
        expect![[r#"
            > sim.version('3.6')
            { version: '3.6', ok: 1 }
            > sh.addShardToZone('shard02', 'EU')
            { ok: 1 }
            > db.adminCommand({removeShard: 'shard03'})
            {
              msg: 'draining started successfully',
              state: 'started',
              shard: 'shard03',
              note: 'you need to drop or movePrimary these databases',
              dbsToMove: [],
              ok: 1
            }
            > db.adminCommand({listShards: 1}).shards
            [
              { _id: 'shard01', host: 'shard01/localhost:27117', state: 1 },
              {
                _id: 'shard02',
                host: 'shard02/localhost:27217',
                tags: [ 'EU' ],
                state: 1
              },
              {
                _id: 'shard03',
                host: 'shard03/localhost:27317',
                draining: true,
                state: 1
              }
            ]
        "#]],
    );
}

// src/mongo/db/s/config/sharding_catalog_manager_collection_operations.cpp
// (ShardingCatalogManager::configureCollectionBalancing, 5.3 on): no option is a no-op; a
// chunk size in [1, 1024] MB (0 restores the cluster's) is checked before the update of
// config.collections, which must match the sharded collection; the config server checks
// the namespace first. The balancer and the splitter then use the collection's size
// (balancer_collection_status: `chunkSize` in MB); moveRange without `max` moves about
// one chunk of it.
#[test]
fn configure_collection_balancing_sets_a_collection_chunk_size() {
    let setup = "sim.version('8.0')
sh.shardCollection('test.c', {x: 1})
sim.generate('test.c', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 3000)";
    check(
        &format!(
            "{setup}
db.adminCommand({{configureCollectionBalancing: 'test.c'}})
db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: 2048}})
db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: -1}})
db.adminCommand({{configureCollectionBalancing: 'test.other', chunkSize: 1}})
db.adminCommand({{configureCollectionBalancing: 'test', chunkSize: 1}})
db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: '1'}})
db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: 1, defragmentCollection: false}})
sh.balancerCollectionStatus('test.c').chunkSize
sh.moveRange('test.c', 'shard02', {{x: MinKey()}})
db.c.getShardDistribution()
db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: 0}})
sh.balancerCollectionStatus('test.c').chunkSize
sh.configureCollectionBalancing('test.c', {{chunkSize: 1}})"
        ),
        expect![[r#"
            > sim.version('8.0')
            { version: '8.0', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sim.generate('test.c', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 3000)
            { ns: 'test.c', inserted: 3000, ok: 1 }
            > db.adminCommand({configureCollectionBalancing: 'test.c'})
            { ok: 1 }
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 2048})
            MongoServerError[InvalidOptions]: Chunk size '2048' out of range [1MB, 1GB]
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: -1})
            MongoServerError[InvalidOptions]: Chunk size '-1' out of range [1MB, 1GB]
            > db.adminCommand({configureCollectionBalancing: 'test.other', chunkSize: 1})
            MongoServerError[NamespaceNotSharded]: Expected to match one doc for query { _id: "test.other" } but matched 0
            > db.adminCommand({configureCollectionBalancing: 'test', chunkSize: 1})
            MongoServerError[InvalidNamespace]: Invalid namespace specified 'test'
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: '1'})
            MongoServerError[TypeMismatch]: BSON field 'configureCollectionBalancing.chunkSize' is the wrong type 'string', expected types '[long, int, decimal, double]'
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 1, defragmentCollection: false})
            { ok: 1 }
            > sh.balancerCollectionStatus('test.c').chunkSize
            1
            > sh.moveRange('test.c', 'shard02', {x: MinKey()})
            { ok: 1 }
            > db.c.getShardDistribution()
            Shard shard01 at shard01/localhost:27117
            {
              data: '1.97MiB',
              docs: 1992,
              chunks: 1,
              'estimated data per chunk': '1.97MiB',
              'estimated docs per chunk': 1992
            }
            ---
            Shard shard02 at shard02/localhost:27217
            {
              data: '1022KiB',
              docs: 1008,
              chunks: 1,
              'estimated data per chunk': '1022KiB',
              'estimated docs per chunk': 1008
            }
            ---
            Totals
            {
              data: '2.97MiB',
              docs: 3000,
              chunks: 2,
              'Shard shard01': [
                '66.4 % data',
                '66.4 % docs in cluster',
                '1KiB avg obj size on shard'
              ],
              'Shard shard02': [
                '33.6 % data',
                '33.6 % docs in cluster',
                '1KiB avg obj size on shard'
              ]
            }
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 0})
            { ok: 1 }
            > sh.balancerCollectionStatus('test.c').chunkSize
            128
            > sh.configureCollectionBalancing('test.c', {chunkSize: 1})
            TypeError: sh.configureCollectionBalancing is not a function
        "#]],
    );
    assert_eq!(
        answer(
            "sh.shardCollection('test.c', {x: 1})",
            "db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 1})"
        ),
        "MongoServerError[CommandNotFound]: no such cmd: configureCollectionBalancing"
    );
}

// mongosh packages/shell-api/src/shard.ts (startAutoMerger, stopAutoMerger: an upsert of
// `{_id: 'automerge'}` in config.settings answered with its UpdateResult;
// isAutoMergerEnabled: true without the document; enableAutoMerger/disableAutoMerger:
// config.collections' enableAutoMerge) and helpers.ts (getPrintableShardStatus: the
// `automerge` section only when config.settings has the document, after `autosplit`).
#[test]
fn auto_merger_helpers_and_status_section() {
    check(
        "sim.version('8.0')
sh.shardCollection('test.c', {x: 1})
sh.isAutoMergerEnabled()
sh.status().automerge
sh.stopAutoMerger()
sh.stopAutoMerger()
sh.isAutoMergerEnabled()
sh.status().automerge
sh.startAutoMerger()
sh.isAutoMergerEnabled()
sh.disableAutoMerger('test.c')
sh.disableAutoMerger('test.c')
sh.enableAutoMerger('test.c')
sh.disableAutoMerger('test.nothing')",
        expect![[r#"
            > sim.version('8.0')
            { version: '8.0', ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sh.isAutoMergerEnabled()
            true
            > sh.status().automerge
            undefined
            > sh.stopAutoMerger()
            {
              acknowledged: true,
              insertedId: 'automerge',
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 1
            }
            > sh.stopAutoMerger()
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 0,
              upsertedCount: 0
            }
            > sh.isAutoMergerEnabled()
            false
            > sh.status().automerge
            { 'Currently enabled': 'no' }
            > sh.startAutoMerger()
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > sh.isAutoMergerEnabled()
            true
            > sh.disableAutoMerger('test.c')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > sh.disableAutoMerger('test.c')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 0,
              upsertedCount: 0
            }
            > sh.enableAutoMerger('test.c')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > sh.disableAutoMerger('test.nothing')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 0
            }
        "#]],
    );
}

/// The titles of `sh.status()`'s sections after `script`.
fn status_sections(script: &str) -> Vec<String> {
    let mut session = Session::default();
    session.run(script);
    match session.run("sh.status()").pop().map(|o| o.result) {
        Some(Ok(shardlab::Output::Sections(d))) => d.keys().cloned().collect(),
        other => panic!("{other:?}"),
    }
}

// mongosh helpers.ts (getPrintableShardStatus): `automerge` follows `autosplit` and comes
// before `balancer`, once config.settings has its document (in any version: mongosh
// writes it whatever the server).
#[test]
fn status_automerge_section_place() {
    assert!(!status_sections("sim.version('8.0')").contains(&"automerge".to_string()));
    for version in ["8.0", "5.0"] {
        assert_eq!(
            status_sections(&format!("sim.version('{version}')\nsh.stopAutoMerger()")),
            [
                "shardingVersion",
                "shards",
                "active mongoses",
                "autosplit",
                "automerge",
                "balancer",
                // 6.0.3's section (helpers.ts keeps its key, undefined, where the stage
                // fails, as on a 5.0 server).
                "shardedDataDistribution",
                "databases"
            ]
        );
    }
}

/// Runs the `shardlab` binary on `stdin` with `args` and returns its output and status.
#[cfg(not(target_arch = "wasm32"))]
fn cli(args: &[&str], stdin: &str) -> (String, i32) {
    use std::io::Write;
    use std::process::{Command, Stdio};
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
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

// The CLI prints findOneAndUpdate's document or null as mongosh does (collection.ts:
// `result.value`), and its refusals (cluster_find_and_modify_cmd.cpp's ShardKeyNotFound in
// 5.0, helpers.ts' MongoshInvalidInputError) as error lines, exiting 1; under `--json` the
// document is one canonical Extended JSON line and an error the `{"error": ...}` line.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn cli_prints_find_one_and_update() {
    let script = "sh.shardCollection('test.c', {x: 1})
db.c.insertOne({_id: 1, x: 1, n: 1})
db.c.findOneAndUpdate({x: 1}, {$inc: {n: 1}}, {returnDocument: 'after'})
db.c.findOneAndUpdate({x: 2}, {$inc: {n: 1}})
db.c.findOneAndUpdate({_id: 1}, {$inc: {n: 1}})
db.c.findOneAndUpdate({x: 1}, {$inc: {n: 1}}, {returnDocument: 'new'})
db.c.findOneAndDelete({x: 1}, {projection: {_id: 0}})
";
    let (plain, code) = cli(&[], script);
    assert_eq!(code, 1);
    expect![[r#"
        { collectionsharded: 'test.c', ok: 1 }
        { acknowledged: true, insertedId: 1 }
        { _id: 1, x: 1, n: 2 }
        null
        MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key
        MongoshInvalidInputError: [COMMON-10001] returnDocument needs to be either 'before' or 'after'
        { x: 1, n: 2 }
    "#]].assert_eq(&plain);
    let (json, code) = cli(&["--json"], script);
    assert_eq!(code, 1);
    expect![[r#"
        {"collectionsharded":"test.c","ok":{"$numberInt":"1"}}
        {"acknowledged":true,"insertedId":{"$numberInt":"1"}}
        {"_id":{"$numberInt":"1"},"x":{"$numberInt":"1"},"n":{"$numberInt":"2"}}
        null
        {"error": {"code": 61, "codeName": "ShardKeyNotFound", "errmsg": "Query for sharded findAndModify must contain the shard key"}}
        {"error": {"code": 0, "codeName": "MongoshInvalidInputError", "errmsg": "[COMMON-10001] returnDocument needs to be either 'before' or 'after'"}}
        {"x":{"$numberInt":"1"},"n":{"$numberInt":"2"}}
    "#]].assert_eq(&json);
}
