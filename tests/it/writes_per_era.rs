//! Writes that do not name the whole shard key, era by era: multi upserts, single-document
//! writes (updateOne, replaceOne, deleteOne, findOneAndUpdate) and changes of a shard
//! key value, in the 3.6, 5.0 (4.4/5.0.0), 7.0 (6.0.3 to 7.0) and 8.0 (7.1+) modes.
//!
//! Sources, by the era's `chunk_manager_targeter.cpp` (targetUpdate, targetDelete),
//! `cluster_find_and_modify_cmd.cpp`, `write_without_shard_key_util.cpp`
//! (useTwoPhaseProtocol) and `update_stage.cpp` (the checks on a shard key change), with
//! MongoDB 7.1's release notes for the first release that takes an upsert without the
//! full key ("UpdateOne upsert Behavior on Sharded Collections").

use shardlab::Session;

/// `test.c` on `{x: 1}`, split at 10 with the upper chunk on shard02: a filter without
/// the key reaches both shards, `{x: {$gte: 12}}` only shard02, `{x: {$lt: 10}}` only
/// shard01. One document on each side.
const TWO: &str = "sh.shardCollection('test.c', {x: 1})
sh.splitAt('test.c', {x: 10})
sh.moveChunk('test.c', {x: 10}, 'shard02')
db.c.insertOne({_id: 1, x: 5, y: 1})
db.c.insertOne({_id: 2, x: 15, y: 2})
";

/// What the session prints for the last statement of `script`, run in `version` after
/// [`TWO`]; every earlier statement must succeed, and the cluster must keep its
/// invariants.
fn last_printed(version: &str, script: &str) -> String {
    let mut session = Session::default();
    let setup = format!("sim.version('{version}')\n{TWO}");
    for o in session.run(&setup) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let outcomes = session.run(script);
    session
        .cluster
        .check()
        .expect("the cluster's invariants hold");
    let (last, earlier) = outcomes.split_last().expect("a statement");
    for o in earlier {
        assert!(o.result.is_ok(), "{version} {}: {:?}", o.source, o.result);
    }
    last.render().unwrap_or_default()
}

/// The targeting error mongos gives for an upsert without the full key in its filter
/// (targetByShardKey's `uassertStatusOKWithContext` message around "could not extract
/// exact shard key", ShardKeyNotFound) from 4.4 on.
const NO_UPSERT_KEY: &str =
    "MongoServerError: Failed to target upsert by query :: could not extract exact shard key";

/// The refusal of a `{multi: false}` op-style update that reaches two shards without an
/// exact `_id` (InvalidOptions, 72), 4.4 to 7.0; UpdateOpEntry::toBSON() serializes
/// `hint` (default `{}`), `multi` and `upsert` always.
fn multi_false_refusal(q: &str, u: &str) -> String {
    format!(
        "MongoServerError: A {{multi:false}} update on a sharded collection must contain an exact match on _id (and have the collection default collation) or target a single shard (and have the simple collation), but this update targeted 2 shards. Update request: {{ q: {q}, u: {u}, hint: {{}}, multi: false, upsert: false }}, shard key pattern: {{ x: 1 }}"
    )
}

/// update_stage.cpp (4.2+), 31025: a shard key change whose query lacks the full key.
const NO_FULL_KEY: &str = "MongoServerError: Shard key update is not allowed without specifying the full shard key in the query";

/// update_stage.cpp (4.2+), IllegalOperation (20): a shard key change outside a
/// retryable write or a transaction. An update's is a write error (no code name in
/// mongosh's message); findAndModify's a command error.
const NOT_RETRYABLE: &str = "Must run update to shard key field in a multi-statement transaction or with retryWrites: true.";

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn update_many_with_upsert_needs_the_full_shard_key_in_every_era() {
    let command = "db.c.updateMany({y: 1}, {$set: {z: 1}}, {upsert: true})";
    // chunk_manager_targeter.cpp (3.6), targetUpdate: "Upserts are required to target a
    // single shard", with UpdateOpEntry::toBSON() of 3.6 (no hint; `multi: true` here).
    assert_eq!(
        last_printed("3.6", command),
        "MongoServerError: An upsert on a sharded collection must contain the shard key and have the simple collation. Update request: { q: { y: 1 }, u: { $set: { z: 1 } }, multi: true, upsert: true }, shard key pattern: { x: 1 }"
    );
    // 4.4 to 7.0: `if (isUpsert) return targetByShardKey(extractShardKeyFromQuery(..))`.
    assert_eq!(last_printed("5.0", command), NO_UPSERT_KEY);
    assert_eq!(last_printed("7.0", command), NO_UPSERT_KEY);
    // 7.1+: `(!featureFlagUpdateOneWithoutShardKey || updateOp.getMulti()) && isUpsert`
    // still targets a multi upsert by the full key; only updateOne is freed.
    assert_eq!(last_printed("8.0", command), NO_UPSERT_KEY);
    // With the full key the multi upsert inserts, in every era since 4.4; the document
    // has the filter's equality fields and the update's.
    assert_eq!(
        last_printed(
            "8.0",
            "db.c.updateMany({x: 30, y: 3}, {$set: {z: 1}}, {upsert: true})\ndb.c.find({x: 30}, {_id: 0})"
        ),
        "[ { x: 30, y: 3, z: 1 } ]"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn update_one_without_the_shard_key_before_and_after_7_1() {
    let op_style = "db.c.updateOne({y: 1}, {$set: {z: 1}})";
    let refusal = multi_false_refusal("{ y: 1 }", "{ $set: { z: 1 } }");
    // chunk_manager_targeter.cpp, targetUpdate (4.4 to 7.0, the flag off): two shards,
    // no exact _id.
    assert_eq!(last_printed("5.0", op_style), refusal);
    assert_eq!(last_printed("7.0", op_style), refusal);
    // 7.1+: the same filter runs through the two-phase protocol and updates the one
    // document it finds.
    assert_eq!(
        last_printed("8.0", &format!("{op_style}\ndb.c.find({{z: 1}})")),
        "[ { _id: 1, x: 5, y: 1, z: 1 } ]"
    );
    // A filter that reaches one shard needs no key in any era since 4.4 (targetUpdate's
    // `endPoints.size() == 1`).
    for v in ["5.0", "7.0", "8.0"] {
        assert_eq!(
            last_printed(
                v,
                "db.c.updateOne({x: {$gte: 12}}, {$set: {z: 2}})\ndb.c.find({z: 2}, {_id: 1})"
            ),
            "[ { _id: 2 } ]",
            "{v}"
        );
    }
    // A replacement that reaches two shards is targeted by its own key up to 7.0
    // (extractShardKeyFromDoc), by the two-phase protocol from 7.1: both replace _id 1.
    for v in ["5.0", "7.0", "8.0"] {
        assert_eq!(
            last_printed(
                v,
                "db.c.replaceOne({y: 1}, {x: 5, y: 1, r: 1})\ndb.c.find({r: 1})"
            ),
            "[ { _id: 1, x: 5, y: 1, r: 1 } ]",
            "{v}"
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn update_one_with_upsert_and_no_shard_key_inserts_from_7_1() {
    let upsert = "db.c.updateOne({y: 9}, {$set: {z: 1}}, {upsert: true})";
    // 4.4 to 7.0: an upsert is targeted by the filter's full key (7.1's release notes:
    // "Starting in MongoDB 7.1, ... you do not need to include the full shard key").
    assert_eq!(last_printed("5.0", upsert), NO_UPSERT_KEY);
    assert_eq!(last_printed("7.0", upsert), NO_UPSERT_KEY);
    // 7.1+: the two-phase protocol upserts; the new document has no x, so it sits in
    // the chunk of the null key (spec §3) on shard01.
    assert_eq!(
        last_printed("8.0", &format!("{upsert}\ndb.c.find({{y: 9}}, {{_id: 0}})")),
        "[ { y: 9, z: 1 } ]"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn delete_one_without_the_shard_key_per_era() {
    let one_shard = "db.c.deleteOne({x: {$gte: 12}})";
    // targetDelete (5.0.0): extractShardKeyFromQuery must find the full key or an exact
    // _id; DeleteOpEntry::toBSON() serializes q, limit and hint.
    assert_eq!(
        last_printed("5.0", one_shard),
        "MongoServerError: A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Delete request: { q: { x: { $gte: 12 } }, limit: 1, hint: {} }, shard key pattern: { x: 1 }"
    );
    // 7.0 (SERVER-44422, 7.0.1): a delete is targeted by its query; one shard is enough.
    assert_eq!(
        last_printed("7.0", one_shard),
        "{ acknowledged: true, deletedCount: 1 }"
    );
    // ... but two shards without an exact _id are not.
    assert_eq!(
        last_printed("7.0", "db.c.deleteOne({y: 1})"),
        "MongoServerError: A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Delete request: { q: { y: 1 }, limit: 1, hint: {} }, shard key pattern: { x: 1 }"
    );
    // 7.1+: the two-phase protocol deletes one matching document.
    assert_eq!(
        last_printed("8.0", "db.c.deleteOne({y: 1})\ndb.c.countDocuments()"),
        "1"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn find_one_and_update_without_the_shard_key_per_era() {
    let two_shards = "db.c.findOneAndUpdate({y: 2}, {$set: {z: 2}})";
    // cluster_find_and_modify_cmd.cpp (5.0.0), getShardKey: ShardKeyNotFound, a
    // command error (mongosh names the code).
    assert_eq!(
        last_printed("5.0", two_shards),
        "MongoServerError[ShardKeyNotFound]: Query for sharded findAndModify must contain the shard key"
    );
    // 7.0 (SERVER-44422), targetSingleShard: targeted by the query, one shard or none.
    assert_eq!(
        last_printed("7.0", two_shards),
        "MongoServerError[ShardKeyNotFound]: Query with sharded findAndModify expected to only target one shard, but the query targeted 2 shard(s)"
    );
    assert_eq!(
        last_printed(
            "7.0",
            "db.c.findOneAndUpdate({x: {$gte: 12}}, {$set: {z: 2}})"
        ),
        "{ _id: 2, x: 15, y: 2 }"
    );
    // 7.1+: useTwoPhaseProtocol (no full key, `_id` or not) finds it on any shard; the
    // document before the change is returned.
    assert_eq!(last_printed("8.0", two_shards), "{ _id: 2, x: 15, y: 2 }");
    assert_eq!(
        last_printed(
            "8.0",
            "db.c.findOneAndUpdate({_id: 2}, {$set: {x: 3}}, {returnDocument: 'after'})"
        ),
        "{ _id: 2, x: 3, y: 2 }"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_retryable_update_one_changing_the_key_without_the_full_key() {
    // The filter reaches shard01 alone, so every era since 4.4 sends it there; it names
    // no full key. (`{x: {$lt: 10}}` would reach shard02 too: mongos takes a range's
    // bounds as inclusive when it looks for the chunks.) The new value 20 belongs to
    // shard02.
    let change = "db.c.updateOne({x: {$lt: 9}}, {$set: {x: 20}})";
    // update_stage.cpp up to 7.0: the shard refuses the change without the full key.
    assert_eq!(last_printed("5.0", change), NO_FULL_KEY);
    assert_eq!(last_printed("7.0", change), NO_FULL_KEY);
    // 7.1+: targetUpdate finds no shard key in the filter, so the write takes the
    // two-phase protocol, which sends `$_allowShardKeyUpdatesWithoutFullShardKeyInQuery:
    // true` for a retryable write (mongosh's default): the document moves to shard02,
    // the one shard a find on x: 20 reads.
    assert_eq!(
        last_printed("8.0", &format!("{change}\ndb.c.find({{x: 20}})")),
        "[ { _id: 1, x: 20, y: 1 } ]"
    );
    assert_eq!(
        last_printed("8.0", &format!("{change}\ndb.c.find({{x: 20}}).explain().queryPlanner.winningPlan.shards[0].shardName")),
        "shard02"
    );
    // An exact _id is not sent through the protocol (useTwoPhaseProtocol's exception
    // for updateOne and deleteOne), so the shard's full key check stands.
    assert_eq!(
        last_printed("8.0", "db.c.updateOne({_id: 1}, {$set: {x: 20}})"),
        NO_FULL_KEY
    );
    // With the full key the change is allowed in every era since 4.2.
    for v in ["5.0", "7.0", "8.0"] {
        assert_eq!(
            last_printed(
                v,
                "db.c.updateOne({x: 5}, {$set: {x: 20}})\ndb.c.find({_id: 1})"
            ),
            "[ { _id: 1, x: 20, y: 1 } ]",
            "{v}"
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_shard_key_change_needs_a_retryable_write() {
    // retryWrites=false: the change is refused after the full key check (4.2 to 6.x)
    // or after `multi` (7.0+), even with the full key in the filter.
    for v in ["5.0", "7.0", "8.0"] {
        assert_eq!(
            last_printed(
                v,
                "sim.retryWrites(false)\ndb.c.updateOne({x: 5}, {$set: {x: 20}})"
            ),
            format!("MongoServerError: {NOT_RETRYABLE}"),
            "{v}"
        );
    }
    // 5.0 checks the full key first; 8.0's two-phase write carries the flag as false.
    assert_eq!(
        last_printed(
            "5.0",
            "sim.retryWrites(false)\ndb.c.updateOne({x: {$lt: 9}}, {$set: {x: 20}})"
        ),
        NO_FULL_KEY
    );
    assert_eq!(
        last_printed(
            "8.0",
            "sim.retryWrites(false)\ndb.c.findOneAndUpdate({y: 1}, {$set: {x: 20}})"
        ),
        format!("MongoServerError[IllegalOperation]: {NOT_RETRYABLE}")
    );
    // A change that keeps the key needs nothing, and the setting reads back.
    assert_eq!(
        last_printed(
            "8.0",
            "sim.retryWrites(false)\ndb.c.updateOne({x: 5}, {$set: {w: 1}})\nsim.retryWrites()"
        ),
        "{ retryWrites: false, ok: 1 }"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_7_0_mode_is_its_own() {
    // 7.0 is the modern era (data-size balancer, 128 MB chunks) before 7.1's writes
    // without a shard key; 6.0 counts as 7.0 and 7.1 as 8.0.
    let mut s = Session::default();
    let shown: Vec<String> = ["6.0", "7.0", "7.1", "8.0"]
        .iter()
        .map(|v| {
            s.run(&format!("sim.version('{v}')"))
                .pop()
                .and_then(|o| o.render())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(
        shown,
        [
            "{ version: '7.0', ok: 1 }",
            "{ version: '7.0', ok: 1 }",
            "{ version: '8.0', ok: 1 }",
            "{ version: '8.0', ok: 1 }"
        ]
    );
    assert_eq!(
        last_printed("7.0", "sim.chunkSize()"),
        "{ chunkSize: 134217728, ok: 1 }"
    );
    // sh.status()'s `active mongoses` names a 7.0 mongos.
    assert!(last_printed("7.0", "sh.status()").contains("[ { '7.0.14': 1 } ]"));
}
