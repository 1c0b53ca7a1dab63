//! The manual commands' answers, error paths first, each case checked against the MongoDB
//! source named in its comment (for the era of the version mode it runs in).
#![allow(clippy::unwrap_used)]

use shardlab::session::Session;

/// Runs `script` and returns the last statement's error as the shell prints it, or `ok`.
fn last_answer(script: &str) -> String {
    let mut session = Session::default();
    let outcomes = session.run(script);
    session.cluster.check().unwrap();
    match outcomes.last().map(|o| &o.result) {
        Some(Err(e)) => e.to_string(),
        _ => "ok".to_string(),
    }
}

/// The chunks of `ns` as `min -> max on shard`, one per line, after `script`.
fn chunks_after(script: &str, ns: &str) -> String {
    let mut session = Session::default();
    for o in session.run(script) {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    session.cluster.check().unwrap();
    let s = session.cluster.sharding(ns).unwrap();
    s.table
        .iter()
        .map(|c| {
            format!(
                "{} -> {} on {}\n",
                s.bound_string(&c.min),
                s.bound_string(&c.max),
                session.cluster.shard_name(c.shard)
            )
        })
        .collect()
}

const X: &str = "sh.shardCollection('test.c', {x: 1})\n";
const AB: &str = "sh.shardCollection('test.c', {a: 1, b: 1})\n";

/// (setup, command, expected answer): the error paths of the manual commands.
const CASES: &[(&str, &str, &str)] = &[
    // cluster_split_cmd.cpp, ClusterSplitCommand::errmsgRun: `isShardKey(middle)` fails
    // for a field that is not the key's.
    (
        X,
        "db.adminCommand({split: 'test.c', middle: {y: 5}})",
        "MongoServerError[UnknownError]: new split key { y: 5 } is not valid for shard key pattern { x: 1 }",
    ),
    // cluster_split_cmd.cpp, errmsgRun: a missing field fails `isShardKey` too.
    (
        AB,
        "sh.splitAt('test.c', {a: 5})",
        "MongoServerError[UnknownError]: new split key { a: 5 } is not valid for shard key pattern { a: 1, b: 1 }",
    ),
    // shard_key_pattern.cpp, ShardKeyPattern::isShardKey looks fields up by name, and
    // normalizeShardKey puts them in order: another order is accepted.
    (AB, "sh.splitAt('test.c', {b: 1, a: 5})", "ok"),
    // cluster_split_cmd.cpp, errmsgRun: `extractShardKeyFromQuery` gives nothing.
    (
        X,
        "sh.splitFind('test.c', {y: 1})",
        "MongoServerError[UnknownError]: no shard key found in chunk query { y: 1 }",
    ),
    // cluster_split_cmd.cpp, SplitCollectionCmd::errmsgRun (the same words 3.6 to 8.0),
    // its checks in order: find with bounds, none of the three, find with middle,
    // bounds with middle ...
    (
        X,
        "db.adminCommand({split: 'test.c', find: {x: 5}, bounds: [{x: MinKey()}, {x: MaxKey()}]})",
        "MongoServerError[UnknownError]: cannot specify bounds and find at the same time",
    ),
    (
        X,
        "db.adminCommand({split: 'test.c'})",
        "MongoServerError[UnknownError]: need to specify find/bounds or middle",
    ),
    (
        X,
        "db.adminCommand({split: 'test.c', find: {x: 5}, middle: {x: 5}})",
        "MongoServerError[UnknownError]: cannot specify find and middle together",
    ),
    (
        X,
        "db.adminCommand({split: 'test.c', middle: {x: 5}, bounds: [{x: MinKey()}, {x: MaxKey()}]})",
        "MongoServerError[UnknownError]: cannot specify bounds and middle together",
    ),
    (
        X,
        "db.adminCommand({split: 'test.c', bounds: [{x: MinKey()}]})",
        "MongoServerError[UnknownError]: upper bound not specified",
    ),
    // ... then the bounds must be whole shard keys and exactly one chunk's
    // (ChunkRange::toString prints "[min, max)").
    (
        X,
        "db.adminCommand({split: 'test.c', bounds: [{x: MinKey()}, {y: 1}]})",
        "MongoServerError[UnknownError]: shard key bounds [{ x: MinKey },{ y: 1 }) are not valid for shard key pattern { x: 1 }",
    ),
    (
        X,
        "db.adminCommand({split: 'test.c', bounds: [{x: MinKey()}, {x: 10}]})",
        "MongoServerError[UnknownError]: no chunk found with the shard key bounds [{ x: MinKey }, { x: 10 })",
    ),
    (
        "sh.shardCollection('test.c', {x: 1})\ndb.c.insertMany([{x: 1}, {x: 2}, {x: 3}])\n",
        "db.adminCommand({split: 'test.c', bounds: [{x: MinKey()}, {x: MaxKey()}]})",
        "ok",
    ),
    // cluster_move_chunk_cmd.cpp (3.6 to 5.0), errmsgRun: "check that only one of the
    // two chunk specification methods is used", so not both.
    (
        X,
        "db.adminCommand({moveChunk: 'test.c', find: {x: 1}, bounds: [{x: MinKey()}, {x: MaxKey()}], to: 'shard02'})",
        "MongoServerError[UnknownError]: need to specify either a find query, or both lower and upper bounds.",
    ),
    // cluster_move_chunk_cmd.cpp (4.4/5.0), errmsgRun: LOGV2 22755 with
    // UserAssertAfterLog(ShardNotFound).
    (
        X,
        "sh.moveChunk('test.c', {x: 1}, 'shard99')",
        "MongoServerError[ShardNotFound]: Could not move chunk in test.c to shard99 because that shard does not exist",
    ),
    // cluster_move_chunk_cmd.cpp (3.6), errmsgRun: the quoted message.
    (
        "sim.version('3.6')\nsh.shardCollection('test.c', {x: 1})\n",
        "sh.moveChunk('test.c', {x: 1}, 'shard99')",
        "MongoServerError[ShardNotFound]: Could not move chunk in 'test.c' to shard 'shard99' because that shard does not exist",
    ),
    // cluster_move_chunk_cmd.cpp (8.0), ClusterMoveChunkCmd::typedRun: LOGV2 22755 again.
    (
        "sim.version('8.0')\nsh.shardCollection('test.c', {x: 1})\n",
        "sh.moveChunk('test.c', {x: 1}, 'shard99')",
        "MongoServerError[ShardNotFound]: Could not move chunk in test.c to shard99 because that shard does not exist",
    ),
    // cluster_move_chunk_cmd.cpp, errmsgRun: the destination is checked before `find`.
    (
        X,
        "sh.moveChunk('test.c', {y: 1}, 'shard99')",
        "MongoServerError[ShardNotFound]: Could not move chunk in test.c to shard99 because that shard does not exist",
    ),
    // cluster_move_chunk_cmd.cpp, errmsgRun: no equality on the whole key in `find`.
    (
        AB,
        "sh.moveChunk('test.c', {a: 1}, 'shard02')",
        "MongoServerError[UnknownError]: no shard key found in chunk query { a: 1 }",
    ),
    // cluster_move_chunk_cmd.cpp, errmsgRun: bounds that are not shard keys.
    (
        X,
        "db.adminCommand({moveChunk: 'test.c', bounds: [{y: 1}, {y: 5}], to: 'shard02'})",
        "MongoServerError[UnknownError]: shard key bounds [{ y: 1 },{ y: 5 }) are not valid for shard key pattern { x: 1 }",
    ),
    // cluster_merge_chunks_cmd.cpp, ClusterMergeChunksCommand::errmsgRun: the same check.
    (
        X,
        "db.adminCommand({mergeChunks: 'test.c', bounds: [{y: 1}, {y: 5}]})",
        "MongoServerError[UnknownError]: shard key bounds [{ y: 1 },{ y: 5 }) are not valid for shard key pattern { x: 1 }",
    ),
    // type_chunk.cpp (3.6/5.0), ChunkRange::fromBSON: min >= max is FailedToParse.
    (
        "sh.shardCollection('test.c', {x: 1})\nsh.addShardToZone('shard01', 'EU')\n",
        "sh.updateZoneKeyRange('test.c', {x: 10}, {x: 5}, 'EU')",
        "MongoServerError[FailedToParse]: min: { x: 10 } should be less than max: { x: 5 }",
    ),
    // chunk_range.cpp (8.0), ChunkRange::validate: the same range is BadValue.
    (
        "sim.version('8.0')\nsh.shardCollection('test.c', {x: 1})\nsh.addShardToZone('shard01', 'EU')\n",
        "sh.updateZoneKeyRange('test.c', {x: 10}, {x: 10}, 'EU')",
        "MongoServerError[BadValue]: min: { x: 10 } should be less than max: { x: 10 }",
    ),
    // sharding_catalog_manager_zone_operations.cpp, includeFullShardKey: the bound's
    // fields must be a prefix of the shard key's.
    (
        "sh.shardCollection('test.c', {x: 1})\nsh.addShardToZone('shard01', 'EU')\n",
        "sh.updateZoneKeyRange('test.c', {y: 1}, {y: 5}, 'EU')",
        "MongoServerError[ShardKeyNotFound]: min: { y: 1 } is not a prefix of the shard key { x: 1 } of ns: test.c",
    ),
    // includeFullShardKey: a prefix is accepted and filled out with MinKey
    // (KeyPattern::extendRangeBound).
    (
        "sh.shardCollection('test.c', {a: 1, b: 1})\nsh.addShardToZone('shard01', 'EU')\n",
        "sh.updateZoneKeyRange('test.c', {a: 1}, {a: 5}, 'EU')",
        "ok",
    ),
    // includeFullShardKey: the fields must also come in the key's order.
    (
        "sh.shardCollection('test.c', {a: 1, b: 1})\nsh.addShardToZone('shard01', 'EU')\n",
        "sh.updateZoneKeyRange('test.c', {a: 1, b: 1}, {b: 1, a: 5}, 'EU')",
        "MongoServerError[ShardKeyNotFound]: max: { b: 1, a: 5 } is not a prefix of the shard key { a: 1, b: 1 } of ns: test.c",
    ),
    // ShardingCatalogManager::assignKeyRangeToZone: the zone is checked before the bounds.
    (
        X,
        "sh.updateZoneKeyRange('test.c', {y: 1}, {y: 5}, 'EU')",
        "MongoServerError[ZoneNotFound]: zone EU does not exist",
    ),
    // ShardingCatalogManager::addShardToZone: the update matched no shard.
    (
        X,
        "sh.addShardToZone('shard99', 'EU')",
        "MongoServerError[ShardNotFound]: shard shard99 does not exist",
    ),
    // ShardingCatalogManager::removeShardFromZone: the shard is looked up first.
    (
        X,
        "sh.removeShardFromZone('shard99', 'EU')",
        "MongoServerError[ShardNotFound]: shard shard99 does not exist",
    ),
    // configsvr_remove_shard_command.cpp (3.6 and 4.x), run: the registry has no such shard.
    (
        X,
        "db.adminCommand({removeShard: 'shard99'})",
        "MongoServerError[ShardNotFound]: Could not drop shard 'shard99' because it does not exist",
    ),
    (
        "sim.version('3.6')\n",
        "db.adminCommand({removeShard: 'shard99'})",
        "MongoServerError[ShardNotFound]: Could not drop shard 'shard99' because it does not exist",
    ),
    // cluster_clear_jumbo_flag_cmd.cpp, ClearJumboFlagCommand::run: neither find nor bounds.
    (
        X,
        "db.adminCommand({clearJumboFlag: 'test.c'})",
        "MongoServerError[InvalidOptions]: need to specify find or bounds",
    ),
    // cluster_clear_jumbo_flag_cmd.cpp, run: both.
    (
        X,
        "db.adminCommand({clearJumboFlag: 'test.c', find: {x: 1}, bounds: [{x: MinKey}, {x: MaxKey}]})",
        "MongoServerError[InvalidOptions]: cannot specify bounds and find at the same time",
    ),
    // cluster_clear_jumbo_flag_cmd.cpp, run: bounds of three elements.
    (
        X,
        "db.adminCommand({clearJumboFlag: 'test.c', bounds: [{x: 1}, {x: 2}, {x: 3}]})",
        "MongoServerError[InvalidOptions]: bounds can only have exactly 2 elements",
    ),
    // cluster_clear_jumbo_flag_cmd.cpp, run: uassert 51260.
    (
        X,
        "db.adminCommand({clearJumboFlag: 'test.c', find: {y: 1}})",
        "MongoServerError[Location51260]: no shard key found in chunk query { y: 1 }",
    ),
    // cluster_clear_jumbo_flag_cmd.cpp, run: uassert 51261 (ChunkRange::toString).
    (
        X,
        "db.adminCommand({clearJumboFlag: 'test.c', bounds: [{x: 0}, {x: 5}]})",
        "MongoServerError[Location51261]: no chunk found with the shard key bounds [{ x: 0 }, { x: 5 })",
    ),
    // shard_key_util.cpp, validShardKeyIndexExists step 3 (jstests/sharding/
    // shard_collection_basic.js: "If shardCollection has unique:true it must have a
    // unique index"): the index on exactly the key must be unique, even when empty.
    (
        "db.u.createIndex({aKey: 1})\n",
        "sh.shardCollection('test.u', {aKey: 1}, true)",
        "MongoServerError[InvalidOptions]: can't shard collection test.u, { aKey: 1 } index not unique, and unique index explicitly specified",
    ),
    (
        "db.u.createIndex({aKey: 1}, {unique: true})\n",
        "sh.shardCollection('test.u', {aKey: 1}, true)",
        "ok",
    ),
    // Only an index on exactly the key counts; without one the unique index is created.
    (
        "db.u.createIndex({aKey: 1, b: 1})\n",
        "sh.shardCollection('test.u', {aKey: 1}, true)",
        "ok",
    ),
    ("", "sh.shardCollection('test.u', {_id: 1}, true)", "ok"),
    // service_entry_point_common.cpp, checkAuthorization: an admin-only command on
    // another database (jstests/sharding/shard_collection_basic.js: "shardCollection
    // may only be run against admin database").
    (
        "",
        "db.getSiblingDB('test').runCommand({shardCollection: 'db.foo', key: {_id: 1}})",
        "MongoServerError[Unauthorized]: shardCollection may only be run against the admin database.",
    ),
    (
        X,
        "db.runCommand({split: 'test.c', middle: {x: 5}})",
        "MongoServerError[Unauthorized]: split may only be run against the admin database.",
    ),
    (
        "",
        "db.getSiblingDB('admin').runCommand({shardCollection: 'db.foo', key: {_id: 1}})",
        "ok",
    ),
    // hashcmd.cpp: `_hashBSONElement` is not admin-only.
    ("", "db.runCommand({_hashBSONElement: 1})", "ok"),
    // mongosh shard.ts, each helper's `assertArgsDefinedType` (helpers.ts): a missing
    // argument, then one of the wrong `typeof`, refused before anything is sent.
    (
        X,
        "sh.splitAt('test.c')",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 1 (Shard.splitAt)",
    ),
    (
        X,
        "sh.splitAt('test.c', 'x')",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 1 must be of type object, got string instead (Shard.splitAt)",
    ),
    (
        X,
        "sh.splitFind(5, {x: 1})",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type string, got number instead (Shard.splitFind)",
    ),
    (
        X,
        "sh.moveChunk('test.c', {x: 1})",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 2 (Shard.moveChunk)",
    ),
    (
        "",
        "sh.addShardTag('shard01')",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 1 (Shard.addShardTag)",
    ),
    (
        X,
        "sh.updateZoneKeyRange('test.c', {x: 1}, {x: 2})",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 3 (Shard.updateZoneKeyRange)",
    ),
    (
        X,
        "sh.removeRangeFromZone('test.c', {x: 1})",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 2 (Shard.removeRangeFromZone)",
    ),
    (
        "",
        "sh.balancerCollectionStatus()",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Shard.balancerCollectionStatus)",
    ),
    (
        "",
        "sh.enableBalancing(NumberLong(5))",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type string, got object instead (Shard.enableBalancing)",
    ),
    (
        "",
        "sh.startBalancer('x')",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type number, got string instead (Shard.startBalancer)",
    ),
    (
        "",
        "sh.setBalancerState('yes')",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type boolean, got string instead (Shard.setBalancerState)",
    ),
    (
        "",
        "sh.shardCollection('test.c')",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 1 (Shard.shardCollection)",
    ),
    (
        "",
        "sh.shardCollection('test.c', {x: 1}, 'yes')",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 2 must be of type boolean or object, got string instead (Shard.shardCollection)",
    ),
    (
        "",
        "sh.shardCollection('test.c', {x: 1}, true, 5)",
        "MongoshInvalidInputError: [COMMON-10001] Argument at position 3 must be of type object, got number instead (Shard.shardCollection)",
    ),
    (
        "",
        "sh.enableSharding()",
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Shard.enableSharding)",
    ),
];

#[test]
fn manual_commands_answer_with_mongodbs_codes_and_words() {
    let mut failures = Vec::new();
    for (setup, command, expected) in CASES {
        let got = last_answer(&format!("{setup}{command}"));
        if got != *expected {
            failures.push(format!(
                "{command}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// moveChunk's `find` on a dotted key reads the field by its dotted name, as mongos's
/// `ShardKeyPattern::extractShardKeyFromQuery` does (cluster_move_chunk_cmd.cpp): the
/// chunk holding 15 moves, not the one holding null.
#[test]
fn move_chunk_finds_a_dotted_key_by_its_dotted_name() {
    let script = "sh.shardCollection('test.d', {'a.b': 1})\n\
                  sh.splitAt('test.d', {'a.b': 10})\n\
                  sh.moveChunk('test.d', {'a.b': 15}, 'shard02')";
    assert_eq!(
        chunks_after(script, "test.d"),
        "{ 'a.b': MinKey() } -> { 'a.b': 10 } on shard01\n\
         { 'a.b': 10 } -> { 'a.b': MaxKey() } on shard02\n"
    );
}

/// Resharding to the current key is a no-op that leaves the chunks alone
/// (jstests/sharding/resharding_nop.js, 5.0 on).
#[test]
fn resharding_to_the_same_key_leaves_the_chunks_alone() {
    let setup = "sh.shardCollection('test.r', {x: 1})\n\
                 sh.splitAt('test.r', {x: 10})\n\
                 sh.moveChunk('test.r', {x: 15}, 'shard03')\n";
    let before = chunks_after(setup, "test.r");
    let after = chunks_after(
        &format!("{setup}sh.reshardCollection('test.r', {{x: 1}})"),
        "test.r",
    );
    assert_eq!(before, after);
}

/// The number of migrations one 3.6 balancer round makes for a collection whose chunks
/// are spread `counts[i]` on shard `i + 1`.
fn v36_round(counts: [usize; 3]) -> usize {
    let total: usize = counts.iter().sum();
    let mut script = String::from("sim.version('3.6')\nsh.shardCollection('test.b', {x: 1})\n");
    for i in 1..total {
        script.push_str(&format!("sh.splitAt('test.b', {{x: {i}}})\n"));
    }
    let mut chunk = counts[0];
    for (shard, &n) in counts.iter().enumerate().skip(1) {
        for _ in 0..n {
            script.push_str(&format!(
                "sh.moveChunk('test.b', {{x: {chunk}}}, 'shard0{}')\n",
                shard + 1
            ));
            chunk += 1;
        }
    }
    let mut session = Session::default();
    for o in session.run(&script) {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    session
        .cluster
        .balance_collection_round("test.b")
        .unwrap()
        .len()
}

/// 3.4/3.6 `balancer_policy.cpp`, BalancerPolicy::_singleZoneBalance: ideal =
/// ceil(chunks / shards); the donor must be above it and the recipient below it, and the
/// donor's excess over it must be at least 1 under 20 chunks, 2 from 20 on.
#[test]
fn the_36_balancer_follows_its_ideal_and_threshold() {
    let cases: &[([usize; 3], usize)] = &[
        // 21 chunks, ideal 7: 9 - 7 = 2 reaches the threshold of 2 (the 3.2 table's
        // difference of 3 would not reach its 4).
        ([9, 6, 6], 1),
        // 21 chunks, ideal 7: 8 - 7 = 1 is under 2.
        ([8, 7, 6], 0),
        // 10 chunks, ideal 4: the donor is not above it.
        ([4, 3, 3], 0),
        // 10 chunks, ideal 4: 5 - 4 = 1 reaches 1 under 20 chunks.
        ([5, 3, 2], 1),
        // 4 chunks, ideal 2: one move; the other shard with none is left for the next
        // round, since the donor is busy.
        ([4, 0, 0], 1),
    ];
    for (counts, moves) in cases {
        assert_eq!(v36_round(*counts), *moves, "{counts:?}");
    }
}

const V36: &str = "sim.version('3.6')\n";
const V80: &str = "sim.version('8.0')\n";
/// Zone `A` on shard02 and `B` on shard03.
const ZONES: &str = "sh.addShardToZone('shard02', 'A')\nsh.addShardToZone('shard03', 'B')\n";

/// Zone ranges before sharding and `shardCollection`'s options: (setup, command, answer).
const SHARDING_CASES: &[(&str, &str, &str)] = &[
    // sharding_catalog_manager_zone_operations.cpp (3.6), includeFullShardKey: no
    // config.collections entry is NamespaceNotSharded, before the zone is looked up.
    (
        V36,
        "sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')",
        "MongoServerError[NamespaceNotSharded]: test.c is not sharded",
    ),
    // sharding_catalog_manager_zone_operations.cpp (4.0+), assignKeyRangeToZone: an
    // unsharded namespace keeps the range as given.
    (ZONES, "sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')", "ok"),
    (ZONES, "sh.addTagRange('test.c', {x: 0}, {x: 10}, 'A')", "ok"),
    // assignKeyRangeToZone: the zone is still checked first.
    (
        "",
        "sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')",
        "MongoServerError[ZoneNotFound]: zone A does not exist",
    ),
    // chunk_range.cpp, ChunkRange::extractKeyPattern: both bounds must name the same fields.
    (
        ZONES,
        "sh.updateZoneKeyRange('test.c', {x: 0}, {y: 10}, 'A')",
        "MongoServerError[ShardKeyNotFound]: the shard key of min { x: 0 } doesn't match with the shard key of max { y: 10 }",
    ),
    // checkForOverlappingZonedKeyRange over the namespace's ranges (DistributionStatus::
    // addRangeToZone's message).
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n",
        "sh.updateZoneKeyRange('test.c', {x: 5}, {x: 15}, 'A')",
        "MongoServerError[RangeOverlapConflict]: Zone range: { x: 5 } -->> { x: 15 }  on  A is overlapping with existing: { x: 0 } -->> { x: 10 }  on  A",
    ),
    // removeShardFromZone: a range of a namespace not sharded yet keeps the zone in use.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n",
        "sh.removeShardFromZone('shard02', 'A')",
        "MongoServerError[ZoneStillInUse]: cannot remove a shard from zone if a chunk range is associated with it",
    ),
    // shard_key_util.cpp, validateShardKeyAgainstExistingZones: the zone must name every
    // field of the key, in order.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n",
        "sh.shardCollection('test.c', {x: 1, y: 1})",
        "MongoServerError[InvalidOptions]: the proposed shard key { x: 1, y: 1 } does not match with the shard key of the existing zone { x: 0 } -->> { x: 10 }",
    ),
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {y: 0}, {y: 10}, 'A')\n",
        "sh.shardCollection('test.c', {x: 1})",
        "MongoServerError[InvalidOptions]: the proposed shard key { x: 1 } does not match with the shard key of the existing zone { y: 0 } -->> { y: 10 }",
    ),
    // validateShardKeyAgainstExistingZones: a hashed field's bounds must be NumberLong,
    // MinKey or MaxKey.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n",
        "sh.shardCollection('test.c', {x: 'hashed'})",
        "MongoServerError[InvalidOptions]: cannot do hash sharding with the proposed key { x: \"hashed\" } because there exists a zone { x: 0 } -->> { x: 10 } whose boundaries are not of type NumberLong, MinKey or MaxKey",
    ),
    // initial_split_policy.cpp (4.4/5.0), AbstractTagsBasedSplitPolicy::createFirstChunks:
    // uassert 50973 for a zone left without shards.
    (
        "sh.addShardToZone('shard03', 'Z')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'Z')\n\
         db.adminCommand({removeShard: 'shard03'})\ndb.adminCommand({removeShard: 'shard03'})\n",
        "sh.shardCollection('test.c', {x: 1})",
        "MongoServerError[Location50973]: Cannot shard collection test.c due to zone Z which is not assigned to a shard. Please assign this zone to a shard.",
    ),
    // initial_split_policy.cpp, PresplitHashedZonesSplitPolicy::_validate: uassert 31387.
    (
        "",
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31387]: 'presplitHashedZones' is only supported when the collection is empty, zones are set up and shard key pattern has a hashed field",
    ),
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n",
        "sh.shardCollection('test.c', {x: 1}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31387]: 'presplitHashedZones' is only supported when the collection is empty, zones are set up and shard key pattern has a hashed field",
    ),
    // _validate: uassert 31412, a hashed prefix needs one zone over the whole key.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {x: NumberLong(0)}, {x: MaxKey}, 'A')\n",
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31412]: For hashed prefix shard keys, 'presplitHashedZones' is only supported when there is a single zone defined which covers entire shard key range",
    ),
    // _validate: uassert 31388, MinKey before the hashed field in the lower bound.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {c: MinKey, h: MinKey}, {c: 'US', h: MinKey}, 'A')\n",
        "sh.shardCollection('test.c', {c: 1, h: 'hashed'}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31388]: One or more zones are not defined in a manner that supports hashed pre-splitting. Cannot have MinKey or MaxKey in the lower bound for fields preceding the hashed field but found one, for zone A",
    ),
    // _validate: uassert 31390, the bounds agree before the hashed field.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {c: 'US', h: MinKey}, {c: 'US', h: MaxKey}, 'A')\n",
        "sh.shardCollection('test.c', {c: 1, h: 'hashed'}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31390]: One or more zones are not defined in a manner that supports hashed pre-splitting. The value preceding hashed field of the upper bound should be greater than that of lower bound, for zone A",
    ),
    // _validate: uassert 31389, the hashed field of the lower bound is not MinKey.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {c: 'US', h: NumberLong(5)}, {c: 'UT', h: MinKey}, 'A')\n",
        "sh.shardCollection('test.c', {c: 1, h: 'hashed'}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31389]: One or more zones are not defined in a manner that supports hashed pre-splitting. The hashed field value for lower bound must be MinKey, for zone A",
    ),
    // _validate: uassert 31391, a field after the hashed one is not MinKey.
    (
        "sh.addShardToZone('shard02', 'A')\nsh.updateZoneKeyRange('test.c', {c: 'US', h: MinKey, s: 5}, {c: 'UT', h: MinKey, s: MinKey}, 'A')\n",
        "sh.shardCollection('test.c', {c: 1, h: 'hashed', s: 1}, false, {presplitHashedZones: true})",
        "MongoServerError[Location31391]: One or more zones are not defined in a manner that supports hashed pre-splitting. The fields after the hashed field must have MinKey value, for zone A",
    ),
    // create_collection_coordinator.cpp (5.0), _checkCommandArguments: at most 8192 per
    // shard and 1,000,000 in all.
    (
        "",
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: 30000})",
        "MongoServerError[InvalidOptions]: numInitialChunks cannot be more than either: 24576, 8192 * number of shards; or 1000000",
    ),
    // _checkCommandArguments (4.4+): a negative count too.
    (
        "",
        "db.adminCommand({shardCollection: 'test.c', key: {x: 'hashed'}, numInitialChunks: -1})",
        "MongoServerError[InvalidOptions]: numInitialChunks cannot be more than either: 24576, 8192 * number of shards; or 1000000",
    ),
    // configsvr_shard_collection_command.cpp (3.6): the same bound, negatives pass.
    (
        V36,
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: 30000})",
        "MongoServerError[InvalidOptions]: numInitialChunks cannot be more than either: 24576, 8192 * number of shards; or 1000000",
    ),
    (V36, "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: -1})", "ok"),
    // 3.6 has no numInitialChunks check for a ranged key: the option is not used.
    (V36, "sh.shardCollection('test.c', {x: 1}, false, {numInitialChunks: 5})", "ok"),
    // 7.2 removed the option (SERVER-74747); 8.0 parses it and ignores it (SERVER-83005).
    (V80, "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: 30000})", "ok"),
    (V80, "sh.shardCollection('test.c', {x: 1}, false, {numInitialChunks: 5})", "ok"),
    // initial_split_policy.cpp (4.4/5.0), calculateOptimizationStrategy: a ranged key.
    (
        "",
        "sh.shardCollection('test.c', {x: 1}, false, {numInitialChunks: 5})",
        "MongoServerError[InvalidOptions]: numInitialChunks is only supported when the collection is empty and has a hashed field in the shard key pattern",
    ),
    // calculateOptimizationStrategy: a collection that is not empty.
    (
        "db.c.insertOne({x: 1})\ndb.c.createIndex({x: 'hashed'})\n",
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: 5})",
        "MongoServerError[InvalidOptions]: numInitialChunks is only supported when the collection is empty and has a hashed field in the shard key pattern",
    ),
    // calculateOptimizationStrategy: a ranged prefix without presplitHashedZones.
    (
        "",
        "sh.shardCollection('test.c', {c: 1, h: 'hashed'}, false, {numInitialChunks: 4})",
        "MongoServerError[InvalidOptions]: When the prefix of the hashed shard key is a range field, 'numInitialChunks' can only be used when the 'presplitHashedZones' is true",
    ),
    // configsvr_shard_collection_command.cpp (3.6) and the 4.4+ coordinator: a collation
    // other than simple makes a collator.
    (
        "",
        "sh.shardCollection('test.c', {x: 1}, false, {collation: {locale: 'fr'}})",
        "MongoServerError[BadValue]: The collation for shardCollection must be {locale: 'simple'}, but found: { locale: \"fr\" }",
    ),
    ("", "sh.shardCollection('test.c', {x: 1}, false, {collation: {locale: 'simple'}})", "ok"),
];

#[test]
fn zones_before_sharding_and_shard_collection_options_answer_as_mongodb() {
    let mut failures = Vec::new();
    for (setup, command, expected) in SHARDING_CASES {
        let got = last_answer(&format!("{setup}{command}"));
        if got != *expected {
            failures.push(format!(
                "{setup}{command}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `SingleChunkPerTagSplitPolicy` (initial_split_policy.cpp, AbstractTagsBasedSplitPolicy::
/// createFirstChunks): one chunk per zone range on the zone's shards in turn, and one per
/// gap round-robin over every shard (sorted in 4.4/5.0).
#[test]
fn sharding_an_empty_collection_follows_the_zones_set_before() {
    let script = format!(
        "{ZONES}sh.updateZoneKeyRange('test.z', {{x: 0}}, {{x: 10}}, 'A')\n\
         sh.updateZoneKeyRange('test.z', {{x: 20}}, {{x: 30}}, 'B')\n\
         sh.updateZoneKeyRange('test.z', {{x: 40}}, {{x: 50}}, 'A')\n\
         sh.shardCollection('test.z', {{x: 1}})"
    );
    assert_eq!(
        chunks_after(&script, "test.z"),
        "{ x: MinKey() } -> { x: 0 } on shard01\n\
         { x: 0 } -> { x: 10 } on shard02\n\
         { x: 10 } -> { x: 20 } on shard02\n\
         { x: 20 } -> { x: 30 } on shard03\n\
         { x: 30 } -> { x: 40 } on shard03\n\
         { x: 40 } -> { x: 50 } on shard02\n\
         { x: 50 } -> { x: MaxKey() } on shard01\n"
    );
}

/// `PresplitHashedZonesSplitPolicy::buildSplitInfoForTag` (4.4/5.0): numInitialChunks
/// defaults to twice the shards with zones (3 here: 6), each gets ⌈6 / 3⌉ = 2 chunks of
/// each of its zone ranges, split on the hashed field after the zone's prefix
/// (`calculateHashedSplitPoints`).
#[test]
fn presplit_hashed_zones_spreads_each_zone_over_its_shards() {
    let setup = "sh.addShardToZone('shard01', 'A')\nsh.addShardToZone('shard02', 'A')\n\
                 sh.addShardToZone('shard03', 'B')\n\
                 sh.updateZoneKeyRange('test.p', {c: 'A', h: MinKey}, {c: 'B', h: MinKey}, 'A')\n\
                 sh.updateZoneKeyRange('test.p', {c: 'B', h: MinKey}, {c: 'C', h: MinKey}, 'B')\n";
    let command =
        "sh.shardCollection('test.p', {c: 1, h: 'hashed'}, false, {presplitHashedZones: true})";
    let half = i64::MAX / 4 * 2;
    assert_eq!(
        chunks_after(&format!("{setup}{command}"), "test.p"),
        format!(
            "{{ c: MinKey(), h: MinKey() }} -> {{ c: 'A', h: MinKey() }} on shard01\n\
             {{ c: 'A', h: MinKey() }} -> {{ c: 'A', h: Long('-{half}') }} on shard01\n\
             {{ c: 'A', h: Long('-{half}') }} -> {{ c: 'A', h: Long('0') }} on shard01\n\
             {{ c: 'A', h: Long('0') }} -> {{ c: 'A', h: Long('{half}') }} on shard02\n\
             {{ c: 'A', h: Long('{half}') }} -> {{ c: 'B', h: MinKey() }} on shard02\n\
             {{ c: 'B', h: MinKey() }} -> {{ c: 'B', h: Long('0') }} on shard03\n\
             {{ c: 'B', h: Long('0') }} -> {{ c: 'C', h: MinKey() }} on shard03\n\
             {{ c: 'C', h: MinKey() }} -> {{ c: MaxKey(), h: MaxKey() }} on shard02\n"
        )
    );
    // 8.0 (gOneChunkPerShardEmptyCollectionWithHashedShardKey): one chunk per shard of
    // each zone.
    assert_eq!(
        chunks_after(&format!("{V80}{setup}{command}"), "test.p"),
        "{ c: MinKey(), h: MinKey() } -> { c: 'A', h: MinKey() } on shard01\n\
         { c: 'A', h: MinKey() } -> { c: 'A', h: Long('0') } on shard01\n\
         { c: 'A', h: Long('0') } -> { c: 'B', h: MinKey() } on shard02\n\
         { c: 'B', h: MinKey() } -> { c: 'C', h: MinKey() } on shard03\n\
         { c: 'C', h: MinKey() } -> { c: MaxKey(), h: MaxKey() } on shard02\n"
    );
}

/// A collection on `{x: 1}` split at 10 with the upper chunk on shard02, so a filter without
/// the key reaches two shards; one document on each side.
const TWO: &str = "sh.shardCollection('test.c', {x: 1})\nsh.splitAt('test.c', {x: 10})\nsh.moveChunk('test.c', {x: 10}, 'shard02')\ndb.c.insertOne({_id: 1, x: 5, y: 1})\ndb.c.insertOne({_id: 2, x: 15, y: 2})\n";

/// (version, command after [`TWO`], expected answer): single-document writes and upserts on
/// a sharded collection, as each era's mongos targets them.
const CRUD_CASES: &[(&str, &str, &str)] = &[
    // chunk_manager_targeter.cpp (3.6), ChunkManagerTargeter::targetUpdate: no full key,
    // no exact _id; the request is UpdateOpEntry::toBSON() of 3.6's write_ops.idl.
    (
        "3.6",
        "db.c.updateOne({y: 1}, {$set: {z: 1}})",
        "MongoServerError: A single update on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Update request: { q: { y: 1 }, u: { $set: { z: 1 } }, multi: false, upsert: false }, shard key pattern: { x: 1 }",
    ),
    // chunk_manager_targeter.cpp (3.6), targetDelete: DeleteOpEntry::toBSON() (q, limit).
    (
        "3.6",
        "db.c.deleteOne({y: 1})",
        "MongoServerError: A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Delete request: { q: { y: 1 }, limit: 1 }, shard key pattern: { x: 1 }",
    ),
    // targetUpdate (3.6): isExactIdQuery lets an exact _id through.
    ("3.6", "db.c.updateOne({_id: 2}, {$set: {z: 1}})", "ok"),
    // targetUpdate (3.6): a replacement targets by its own key (extractShardKeyFromDoc) ...
    ("3.6", "db.c.replaceOne({y: 1}, {x: 5, y: 3})", "ok"),
    // ... and one without every key field gives an empty key, then the same refusal.
    (
        "3.6",
        "db.c.replaceOne({y: 1}, {y: 3})",
        "MongoServerError: A single update on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Update request: { q: { y: 1 }, u: { y: 3 }, multi: false, upsert: false }, shard key pattern: { x: 1 }",
    ),
    // targetUpdate (3.6): an upsert must target one shard by its key.
    (
        "3.6",
        "db.c.updateOne({y: 1}, {$set: {z: 1}}, {upsert: true})",
        "MongoServerError: An upsert on a sharded collection must contain the shard key and have the simple collation. Update request: { q: { y: 1 }, u: { $set: { z: 1 } }, multi: false, upsert: true }, shard key pattern: { x: 1 }",
    ),
    // modifier_node.cpp (3.6), checkImmutablePathsNotModified: the shard key is immutable
    // before 4.2.
    (
        "3.6",
        "db.c.updateOne({x: 5}, {$set: {x: 20}})",
        "MongoServerError: Performing an update on the path 'x' would modify the immutable field 'x'",
    ),
    // object_replace_node.cpp (3.6), ObjectReplaceNode::apply: a replacement's new value.
    (
        "3.6",
        "db.c.replaceOne({_id: 1}, {x: 6})",
        "MongoServerError: After applying the update, the (immutable) field 'x' was found to have been altered to x: 6",
    ),
    // ObjectReplaceNode::apply (3.6): a removed key field names the original document.
    (
        "3.6",
        "db.c.replaceOne({_id: 1}, {y: 9})",
        "MongoServerError: After applying the update, the 'x' (required and immutable) field was found to have been removed --{ _id: 1, x: 5, y: 1 }",
    ),
    // chunk_manager_targeter.cpp (5.0), targetUpdate: an op-style update that reaches two
    // shards; UpdateOpEntry::toBSON() of 4.2+'s write_ops.idl serializes hint (default {}).
    (
        "5.0",
        "db.c.updateOne({y: 1}, {$set: {z: 1}})",
        "MongoServerError: A {multi:false} update on a sharded collection must contain an exact match on _id (and have the collection default collation) or target a single shard (and have the simple collation), but this update targeted 2 shards. Update request: { q: { y: 1 }, u: { $set: { z: 1 } }, hint: {}, multi: false, upsert: false }, shard key pattern: { x: 1 }",
    ),
    // targetUpdate (5.0): a filter that targets one shard is enough, full key or not.
    ("5.0", "db.c.updateOne({x: {$gte: 12}}, {$set: {z: 1}})", "ok"),
    // targetDelete (5.0) still wants the full key or an exact _id (extractShardKeyFromQuery).
    (
        "5.0",
        "db.c.deleteOne({x: {$gte: 12}})",
        "MongoServerError: A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Delete request: { q: { x: { $gte: 12 } }, limit: 1, hint: {} }, shard key pattern: { x: 1 }",
    ),
    ("5.0", "db.c.deleteOne({_id: 2})", "ok"),
    // targetUpdate (5.0): targetByShardKey on the upsert's query.
    (
        "5.0",
        "db.c.updateOne({x: {$gte: 12}}, {$set: {z: 1}}, {upsert: true})",
        "MongoServerError: Failed to target upsert by query :: could not extract exact shard key",
    ),
    // targetUpdate (5.0): a replacement without the key targets the null key's shard
    // (emplaceMissingShardKeyValuesForDocument); the document there loses its key, a key
    // change without the full key in the query (update_stage.cpp, 31025).
    (
        "5.0",
        "db.c.replaceOne({y: 1}, {y: 3})",
        "MongoServerError: Shard key update is not allowed without specifying the full shard key in the query",
    ),
    // update_stage.cpp (4.2+): a key change with the full key in the query moves the document.
    ("5.0", "db.c.updateOne({x: 5}, {$set: {x: 20}})", "ok"),
    // update_stage.cpp (4.2 to 6.x), wasExistingShardKeyUpdated: a key change without the
    // full key in the query is refused before `multi` is looked at ...
    (
        "5.0",
        "db.c.updateMany({y: 1}, {$set: {x: 6}})",
        "MongoServerError: Shard key update is not allowed without specifying the full shard key in the query",
    ),
    (
        "5.0",
        "db.c.updateMany({x: 5}, {$set: {x: 6}})",
        "MongoServerError: Multi-update operations are not allowed when updating the shard key field.",
    ),
    // ... and from 7.0 (_checkRestrictionsOnUpdatingShardKeyAreNotViolated, PM-1632)
    // `multi` first.
    (
        "8.0",
        "db.c.updateMany({y: 1}, {$set: {x: 6}})",
        "MongoServerError: Multi-update operations are not allowed when updating the shard key field.",
    ),
    // A multi update that leaves every key as it was is no key change.
    ("5.0", "db.c.updateMany({y: 1}, {$set: {x: 5, z: 1}})", "ok"),
    // write_without_shard_key_util.cpp (7.1+): 8.0 runs these without the shard key.
    ("8.0", "db.c.updateOne({y: 1}, {$set: {z: 1}})", "ok"),
    ("8.0", "db.c.deleteOne({y: 1})", "ok"),
    ("8.0", "db.c.updateOne({y: 1}, {$set: {z: 1}}, {upsert: true})", "ok"),
];

#[test]
fn single_writes_on_a_sharded_collection_are_targeted_as_each_era_did() {
    let mut failures = Vec::new();
    for (version, command, expected) in CRUD_CASES {
        let got = last_answer(&format!("sim.version('{version}')\n{TWO}{command}"));
        if got != *expected {
            failures.push(format!(
                "{version} {command}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `{x: 1}` sharded in `version`, one document, and a collection that is not sharded.
fn refine_setup(version: &str, unique: bool) -> String {
    format!(
        "sim.version('{version}')\n\
         sh.shardCollection('test.c', {{x: 1}}, {unique})\n\
         db.c.insertOne({{x: 1, y: 2}})\n\
         db.u.insertOne({{x: 1}})\n"
    )
}

/// (version, unique, command, expected answer): refineCollectionShardKey and
/// reshardCollection, their error paths and the versions without them.
const RESHAPE_CASES: &[(&str, bool, &str, &str)] = &[
    // cluster_refine_collection_shard_key_cmd.cpp (4.4/5.0) and
    // refine_collection_shard_key_coordinator.cpp (8.0) read the routing table with
    // `getShardedCollectionRoutingInfoWithRefresh` (catalog_cache.cpp), whose answer for a
    // collection that is missing or not sharded this is.
    (
        "5.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.nope', key: {x: 1, y: 1}})",
        "MongoServerError[NamespaceNotSharded]: Collection test.nope is not sharded.",
    ),
    (
        "8.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.u', key: {x: 1, y: 1}})",
        "MongoServerError[NamespaceNotSharded]: Collection test.u is not sharded.",
    ),
    // sharding_catalog_client_impl.cpp, getDatabase, reached first when the database is
    // missing (jstests/sharding/refine_collection_shard_key_basic.js: "namespace 'db.foo'
    // does not exist" fails with NamespaceNotFound).
    (
        "5.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'db.foo', key: {_id: 1, aKey: 1}})",
        "MongoServerError[NamespaceNotFound]: database db not found",
    ),
    (
        "8.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'db.foo', key: {_id: 1, aKey: 1}})",
        "MongoServerError[NamespaceNotFound]: database db not found",
    ),
    (
        "8.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'config.collections', key: {_id: 1, aKey: 1}})",
        "MongoServerError[NamespaceNotSharded]: Collection config.collections is not sharded.",
    ),
    // ... and with the database there, a collection that is not sharded (the same file:
    // "Should fail because namespace 'db.foo' is not sharded").
    (
        "8.0",
        false,
        "db.getSiblingDB('db').foo.insertOne({aKey: 1})\ndb.adminCommand({refineCollectionShardKey: 'db.foo', key: {_id: 1, aKey: 1}})",
        "MongoServerError[NamespaceNotSharded]: Collection db.foo is not sharded.",
    ),
    // configsvr_refine_collection_shard_key_command.cpp, _internalRun: the new key must
    // extend the current one (`ShardKeyPattern::isExtendedBy`, field names and values)...
    (
        "5.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {y: 1, x: 1}})",
        "MongoServerError[InvalidOptions]: refineCollectionShardKey shard key { y: 1, x: 1 } does not extend the current shard key { x: 1 }",
    ),
    // ... so a field turned hashed does not extend it either.
    (
        "8.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 'hashed', y: 1}})",
        "MongoServerError[InvalidOptions]: refineCollectionShardKey shard key { x: \"hashed\", y: 1 } does not extend the current shard key { x: 1 }",
    ),
    // _internalRun: the very same key returns at once.
    (
        "5.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1}})",
        "ok",
    ),
    // shard_key_util.cpp, ValidationBehaviorsRefineShardKey::verifyCanCreateShardKeyIndex
    // (4.4): no index starts with the new key.
    (
        "5.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[InvalidOptions]: Please create an index that starts with the proposed shard key before refining the shard key of the collection",
    ),
    // The same (7.x/8.0, and ValidationBehaviorsLocalRefineShardKey): new words, then the
    // reasons an index was unusable, none here.
    (
        "8.0",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[InvalidOptions]: Please create an index that starts with the proposed shard key before refining the collection's shard key. ",
    ),
    // validShardKeyIndexExists, step 1: the unique index on the current key cannot keep
    // uniqueness under a longer key (`isUniqueIndexCompatible`), even with an index for it.
    (
        "5.0",
        true,
        "db.c.createIndex({x: 1, y: 1})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[InvalidOptions]: can't shard collection 'test.c' with unique index on { x: 1 } and proposed shard key { x: 1, y: 1 }. Uniqueness can't be maintained unless shard key is a prefix",
    ),
    (
        "5.0",
        false,
        "db.c.createIndex({x: 1, y: 1, z: 1})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "ok",
    ),
    // shard_key_util.cpp, validShardKeyIndexExists step 1: every unique index counts, a
    // user's as well as the shard key's, in listIndexes order; `isUniqueIndexCompatible`
    // wants the new key's field names as a prefix of the index's.
    (
        "5.0",
        false,
        "db.c.createIndex({x: 1, z: 1}, {unique: true})\ndb.c.createIndex({x: 1, y: 1})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[InvalidOptions]: can't shard collection 'test.c' with unique index on { x: 1, z: 1 } and proposed shard key { x: 1, y: 1 }. Uniqueness can't be maintained unless shard key is a prefix",
    ),
    (
        "8.0",
        false,
        "db.c.createIndex({x: 1, z: 1}, {unique: true})\ndb.c.createIndex({x: 1, y: 1})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[InvalidOptions]: can't shard collection 'test.c' with unique index on { x: 1, z: 1 } and proposed shard key { x: 1, y: 1 }. Uniqueness can't be maintained unless shard key is a prefix",
    ),
    // A unique index the new key prefixes is compatible, and supports the new key.
    (
        "5.0",
        false,
        "db.c.createIndex({x: 1, y: 1, z: 1}, {unique: true})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "ok",
    ),
    // An index starting with `_id` is always compatible.
    (
        "5.0",
        false,
        "db.c.createIndex({_id: 1, z: 1}, {unique: true})\ndb.c.createIndex({x: 1, y: 1})\ndb.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "ok",
    ),
    // create_indexes.cpp, checkUniqueIndexConstraints: on a sharded collection a unique
    // index must be compatible with the shard key (CannotCreateIndex).
    (
        "5.0",
        false,
        "db.c.createIndex({z: 1}, {unique: true})",
        "MongoServerError[CannotCreateIndex]: cannot create unique index over { z: 1 } with shard key pattern { x: 1 }",
    ),
    ("8.0", false, "db.c.createIndex({x: 1, z: 1}, {unique: true})", "ok"),
    ("5.0", false, "db.u.createIndex({z: 1}, {unique: true})", "ok"),
    // strategy.cpp (3.6), runCommand: mongos has no such command before 4.4 / 5.0 / 6.0.
    (
        "3.6",
        false,
        "db.adminCommand({refineCollectionShardKey: 'test.c', key: {x: 1, y: 1}})",
        "MongoServerError[CommandNotFound]: no such cmd: refineCollectionShardKey",
    ),
    (
        "3.6",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}})",
        "MongoServerError[CommandNotFound]: no such cmd: reshardCollection",
    ),
    (
        "3.6",
        false,
        "sh.reshardCollection('test.c', {y: 1})",
        "MongoServerError[CommandNotFound]: no such cmd: reshardCollection",
    ),
    (
        "5.0",
        false,
        "sh.moveRange('test.c', 'shard02', {x: 5})",
        "MongoServerError[CommandNotFound]: no such cmd: moveRange",
    ),
    (
        "5.0",
        false,
        "db.adminCommand({noSuchCommand: 1})",
        "MongoServerError[CommandNotFound]: no such cmd: noSuchCommand",
    ),
    // cluster_move_range_cmd.cpp (7.0 on), typedRun: neither bound given.
    (
        "8.0",
        false,
        "db.adminCommand({moveRange: 'test.c', toShard: 'shard02'})",
        "MongoServerError[InvalidOptions]: Missing required parameter 'min' or 'max'",
    ),
    // cluster_reshard_collection_cmd.cpp / configsvr_reshard_collection_cmd.cpp (5.0):
    // the routing table first, then `unique`.
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.u', key: {y: 1}})",
        "MongoServerError[NamespaceNotSharded]: Collection test.u is not sharded.",
    ),
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, unique: true})",
        "MongoServerError[BadValue]: The unique field must be false",
    ),
    (
        "8.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, unique: true})",
        "MongoServerError[BadValue]: The unique field must be false",
    ),
    // jstests/sharding/reshard_collection_basic.js: "Fail if sharding is disabled" (the
    // database does not exist: getDatabase's NamespaceNotFound) ...
    (
        "8.0",
        false,
        "db.adminCommand({reshardCollection: 'db.foo', key: {newKey: 1}})",
        "MongoServerError[NamespaceNotFound]: database db not found",
    ),
    // ... and "Fail if collation is specified and is not {locale: 'simple'}"
    // (cluster_reshard_collection_cmd.cpp), after `unique`.
    (
        "8.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, collation: {locale: 'en_US'}})",
        "MongoServerError[BadValue]: The collation for reshardCollection must be {locale: 'simple'}, but found: { locale: \"en_US\" }",
    ),
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, unique: true, collation: {locale: 'en_US'}})",
        "MongoServerError[BadValue]: The unique field must be false",
    ),
    (
        "8.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, collation: {locale: 'simple'}})",
        "ok",
    ),
    // configsvr_reshard_collection_cmd.cpp: a collection with zones needs `zones`.
    (
        "5.0",
        false,
        "sh.addShardToZone('shard01', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\ndb.adminCommand({reshardCollection: 'test.c', key: {y: 1}})",
        "MongoServerError[BadValue]: Must specify value for zones field",
    ),
    (
        "5.0",
        false,
        "sh.addShardToZone('shard01', 'A')\nsh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\ndb.adminCommand({reshardCollection: 'test.c', key: {y: 1}, zones: []})",
        "ok",
    ),
    // configsvr_reshard_collection_cmd.cpp (5.0 on): `resharding::checkForOverlappingZones`
    // (resharding_util.cpp), after the same-key no-op.
    (
        "5.0",
        false,
        "sh.addShardToZone('shard01', 'A')\ndb.adminCommand({reshardCollection: 'test.c', key: {y: 1}, zones: [{zone: 'A', min: {y: 0}, max: {y: 10}}, {zone: 'A', min: {y: 5}, max: {y: 20}}]})",
        "MongoServerError[BadValue]: Zone ranges must not overlap",
    ),
    (
        "8.0",
        false,
        "sh.addShardToZone('shard01', 'A')\nsh.reshardCollection('test.c', {y: 1}, {zones: [{zone: 'A', min: {y: 5}, max: {y: 20}}, {zone: 'A', min: {y: 0}, max: {y: 10}}]})",
        "MongoServerError[BadValue]: Zone ranges must not overlap",
    ),
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {x: 1}, zones: [{zone: 'A', min: {x: 0}, max: {x: 10}}, {zone: 'A', min: {x: 5}, max: {x: 20}}]})",
        "ok",
    ),
    // keypattern.cpp, KeyPattern::extendRangeBound (massert 16634 and 16649), as
    // ReshardingSplitPolicy::createFirstChunks (initial_split_policy.cpp) applies it to
    // each zone bound; mongos reports the shard's massert code.
    (
        "5.0",
        false,
        "sh.addShardToZone('shard01', 'A')\ndb.adminCommand({reshardCollection: 'test.c', key: {y: 1}, zones: [{zone: 'A', min: {z: 0}, max: {z: 10}}]})",
        "MongoServerError[Location16634]: field names of bound { z: 0 } do not match those of keyPattern { y: 1 }",
    ),
    (
        "5.0",
        false,
        "sh.addShardToZone('shard01', 'A')\ndb.adminCommand({reshardCollection: 'test.c', key: {y: 1}, zones: [{zone: 'A', min: {y: 0, z: 0}, max: {y: 10, z: 0}}]})",
        "MongoServerError[Location16649]: keyPattern { y: 1 } shorter than bound { y: 0, z: 0 }",
    ),
    // initial_split_policy.cpp, selectBestShard (uassert 4952607): a zone no shard has.
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {y: 1}, zones: [{zone: 'B', min: {y: 0}, max: {y: 10}}]})",
        "MongoServerError[Location4952607]: no shards found for zone: B, while creating initial chunks for new resharded collection",
    ),
    // The key is parsed as shardCollection parses it (ShardKeyPattern).
    (
        "5.0",
        false,
        "db.adminCommand({reshardCollection: 'test.c', key: {}})",
        "MongoServerError[BadValue]: Shard key is empty",
    ),
];

#[test]
fn refine_and_reshard_answer_as_each_era_did() {
    let mut failures = Vec::new();
    for (version, unique, command, expected) in RESHAPE_CASES {
        let got = last_answer(&format!("{}{command}", refine_setup(version, *unique)));
        if got != *expected {
            failures.push(format!(
                "{version} {command}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// configsvr_reshard_collection_cmd.cpp (5.0): `numInitialChunks` sets the new key's
/// chunk count (it defaults to the collection's).
#[test]
fn reshard_takes_num_initial_chunks() {
    let script = "sh.shardCollection('test.r', {x: 1})\n\
                  db.r.insertMany([{y: 1}, {y: 2}, {y: 3}, {y: 4}, {y: 5}, {y: 6}, {y: 7}, {y: 8}])\n\
                  db.adminCommand({reshardCollection: 'test.r', key: {y: 1}, numInitialChunks: 4})";
    assert_eq!(chunks_after(script, "test.r").lines().count(), 4);
}

/// initial_split_policy.cpp, ReshardingSplitPolicy::createFirstChunks: the zone bounds
/// (a prefix bound extended with MinKey, `extendRangeBound`) are split points, and each
/// chunk goes to the least-loaded shard of its zone, or of all shards outside the zones
/// (`selectBestShard`). resharding_coordinator_service.cpp: the given zones replace the
/// collection's (`removeTagsDocs`, then `updateTagsDocsForTempNss`).
#[test]
fn reshard_places_chunks_by_the_given_zones_and_keeps_them() {
    let script = "sh.shardCollection('test.r', {x: 1})\n\
                  sh.addShardToZone('shard02', 'A')\n\
                  sh.addShardToZone('shard03', 'OLD')\n\
                  sh.updateZoneKeyRange('test.r', {x: 0}, {x: 5}, 'OLD')\n\
                  db.adminCommand({reshardCollection: 'test.r', key: {y: 1, z: 1}, zones: [{zone: 'A', min: {y: 0}, max: {y: 10}}]})";
    assert_eq!(
        chunks_after(script, "test.r"),
        "{ y: MinKey(), z: MinKey() } -> { y: 0, z: MinKey() } on shard01\n\
         { y: 0, z: MinKey() } -> { y: 10, z: MinKey() } on shard02\n\
         { y: 10, z: MinKey() } -> { y: MaxKey(), z: MaxKey() } on shard03\n"
    );
    let mut session = Session::default();
    session.run(script);
    let zones: Vec<String> = session
        .cluster
        .sharding("test.r")
        .unwrap()
        .zones
        .iter()
        .map(|z| z.zone.clone())
        .collect();
    assert_eq!(zones, ["A"]);
}

/// The last statement's reply document after `script`.
fn last_reply(script: &str) -> bson::Document {
    let mut session = Session::default();
    let outcomes = session.run(script);
    match outcomes.last().map(|o| &o.result) {
        Some(Ok(shardlab::session::Output::Value(bson::Bson::Document(d)))) => d.clone(),
        other => panic!("{other:?}"),
    }
}

/// A collection with a chunk on shard02.
const DRAIN: &str = "sh.shardCollection('test.c', {x: 1})\n\
                     sh.splitAt('test.c', {x: 10})\n\
                     sh.moveChunk('test.c', {x: 10}, 'shard02')\n\
                     db.adminCommand({removeShard: 'shard02'})\n";

/// ShardingCatalogManager::removeShard (3.6): one draining shard at a time
/// (ConflictingOperationInProgress); 4.4 on, several may drain.
#[test]
fn removing_a_second_shard_while_one_drains_is_refused_only_in_36() {
    assert_eq!(
        last_answer(&format!(
            "sim.version('3.6')\n{DRAIN}db.adminCommand({{removeShard: 'shard03'}})"
        )),
        "MongoServerError[ConflictingOperationInProgress]: Can't have more than one draining shard at a time"
    );
    for version in ["5.0", "8.0"] {
        assert_eq!(
            last_answer(&format!(
                "sim.version('{version}')\n{DRAIN}db.adminCommand({{removeShard: 'shard03'}})"
            )),
            "ok"
        );
    }
}

/// The reply while the shard drains: configsvr_remove_shard_command.cpp (3.6) counts
/// `remaining: {chunks, dbs}`; 4.4 on (ShardingCatalogManager::appendShardDrainingStatus
/// in 8.0) adds `jumboChunks`; `note` and `dbsToMove` follow in both.
#[test]
fn a_draining_shard_reports_what_remains_as_each_era_did() {
    let expected = [
        ("3.6", "{ \"chunks\": 1, \"dbs\": 0 }"),
        ("5.0", "{ \"chunks\": 1, \"dbs\": 0, \"jumboChunks\": 0 }"),
        ("8.0", "{ \"chunks\": 1, \"dbs\": 0, \"jumboChunks\": 0 }"),
    ];
    for (version, remaining) in expected {
        let reply = last_reply(&format!(
            "sim.version('{version}')\n{DRAIN}db.adminCommand({{removeShard: 'shard02'}})"
        ));
        let keys: Vec<&str> = reply.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["msg", "state", "remaining", "note", "dbsToMove", "ok"],
            "{version}"
        );
        assert_eq!(reply.get_str("state").unwrap(), "ongoing");
        assert_eq!(
            reply.get_document("remaining").unwrap().to_string(),
            remaining,
            "{version}"
        );
    }
}

/// (version, script, expected answer of its last statement): removeShard's refusals.
const REMOVE_CASES: &[(&str, &str, &str)] = &[
    // ShardingCatalogManager::removeShard (3.6): at least one other shard must remain.
    (
        "3.6",
        "db.adminCommand({removeShard: 'shard02'})\n\
         db.adminCommand({removeShard: 'shard02'})\n\
         db.adminCommand({removeShard: 'shard03'})\n\
         db.adminCommand({removeShard: 'shard03'})\n\
         db.adminCommand({removeShard: 'shard01'})",
        "MongoServerError[IllegalOperation]: Can't remove last shard",
    ),
    // ShardingCatalogManager::removeShard (4.4 on): at least one other shard that is not
    // draining must remain.
    (
        "5.0",
        "db.adminCommand({removeShard: 'shard02'})\n\
         db.adminCommand({removeShard: 'shard03'})\n\
         db.adminCommand({removeShard: 'shard01'})",
        "MongoServerError[IllegalOperation]: Operation not allowed because it would remove the last shard",
    ),
    // ShardingCatalogManager::removeShard (6.0 on), `_isShardRequiredByZoneStillInUse`:
    // the only shard of a zone with a range stays.
    (
        "8.0",
        "sh.addShardToZone('shard02', 'A')\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n\
         db.adminCommand({removeShard: 'shard02'})",
        "MongoServerError[ZoneStillInUse]: Operation not allowed because it would remove the only shard for zone A which has a chunk range is associated with it",
    ),
    (
        "8.0",
        "sh.addShardToZone('shard02', 'A')\n\
         sh.addShardToZone('shard03', 'A')\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sh.updateZoneKeyRange('test.c', {x: 0}, {x: 10}, 'A')\n\
         db.adminCommand({removeShard: 'shard02'})",
        "ok",
    ),
];

#[test]
fn remove_shard_refuses_as_each_era_did() {
    let mut failures = Vec::new();
    for (version, script, expected) in REMOVE_CASES {
        let got = last_answer(&format!("sim.version('{version}')\n{script}"));
        if got != *expected {
            failures.push(format!(
                "{version} {script}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `{x: 1}` split at 0, 10, 20 and 30 with `[10, 20)` moved to shard02, in `version`:
/// shard01 holds `[MinKey, 0)`, `[0, 10)`, `[20, 30)`, `[30, MaxKey)`.
fn merge_setup(version: &str) -> String {
    format!(
        "sim.version('{version}')\n\
         sh.shardCollection('test.c', {{x: 1}})\n\
         sh.splitAt('test.c', {{x: 0}})\n\
         sh.splitAt('test.c', {{x: 10}})\n\
         sh.splitAt('test.c', {{x: 20}})\n\
         sh.splitAt('test.c', {{x: 30}})\n\
         sh.moveChunk('test.c', {{x: 15}}, 'shard02')\n"
    )
}

/// (version, bounds, expected answer): mergeChunks over [`merge_setup`]'s chunks. Every
/// era's mongos (cluster_merge_chunks_cmd.cpp) sends the command to the shard owning the
/// chunk that holds the lower bound, shard01 here, and passes its error on with its code.
const MERGE_CASES: &[(&str, &str, &str)] = &[
    // 3.6, merge_chunks_command.cpp `mergeChunks`: the walk over shard01's chunks from 0
    // reaches [20, 30), which does not start below 20.
    (
        "3.6",
        "[{x: 0}, {x: 20}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c range ending at { x: 20 } does not belong to shard shard01",
    ),
    // 5.0: the shard's merge_chunks_command.cpp wraps the config server's refusal
    // (ShardingCatalogManager::commitChunksMerge: shard01's chunks starting in the range
    // are [0, 10) alone) with uassertStatusOKWithContext.
    (
        "5.0",
        "[{x: 0}, {x: 20}]",
        "MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 0 }, { x: 20 })",
    ),
    // 8.0: chunk_operation_precondition_checks.cpp `checkRangeOwnership` on the shard:
    // after [0, 10) shard01's next chunk starts at 20, not 10. StaleConfig, which mongos
    // (strategy.cpp, RunAndRetry::_onNeedRetargetting) returns once its retries are spent.
    (
        "8.0",
        "[{x: 0}, {x: 20}]",
        "MongoServerError[StaleConfig]: Range with bounds [{ x: 0 }, { x: 20 }) is not owned by this shard.",
    ),
    // 3.6 `mergeChunks`: both ends are shard01's, with [10, 20) between them.
    (
        "3.6",
        "[{x: 0}, {x: 30}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c has a hole in the range [{ x: 0 }, { x: 30 }) at [{ x: 10 }, { x: 20 })",
    ),
    (
        "5.0",
        "[{x: 0}, {x: 30}]",
        "MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 0 }, { x: 30 })",
    ),
    (
        "8.0",
        "[{x: 0}, {x: 30}]",
        "MongoServerError[StaleConfig]: Range with bounds [{ x: 0 }, { x: 30 }) is not owned by this shard.",
    ),
    // A lower bound inside [0, 10): 3.6 names the bound; 5.0's config server finds only
    // [20, 30) starting in the range; 8.0's walk does not start at 5.
    (
        "3.6",
        "[{x: 5}, {x: 30}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c does not contain a chunk starting at { x: 5 }",
    ),
    (
        "5.0",
        "[{x: 5}, {x: 30}]",
        "MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 5 }, { x: 30 })",
    ),
    (
        "8.0",
        "[{x: 5}, {x: 30}]",
        "MongoServerError[StaleConfig]: Range with bounds [{ x: 5 }, { x: 30 }) is not owned by this shard.",
    ),
    // An upper bound inside [30, MaxKey): 8.0's walk passes 35 without ending on it.
    (
        "3.6",
        "[{x: 20}, {x: 35}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c does not contain a chunk ending at { x: 35 }",
    ),
    (
        "5.0",
        "[{x: 20}, {x: 35}]",
        "MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 20 }, { x: 35 })",
    ),
    (
        "8.0",
        "[{x: 20}, {x: 35}]",
        "MongoServerError[StaleConfig]: Shard does not contain a sequence of chunks that exactly fills the range [{ x: 20 }, { x: 35 })",
    ),
    // Both bounds off the chunk boundaries (3.6 names both).
    (
        "3.6",
        "[{x: 5}, {x: 35}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c does not contain a chunk starting at { x: 5 } or ending at { x: 35 }",
    ),
    // One chunk: 3.6 refuses it; 5.0 on the config server answers that it was merged
    // already ("Check if the chunk(s) have already been merged. If so, return success").
    (
        "3.6",
        "[{x: 20}, {x: 30}]",
        "MongoServerError[IllegalOperation]: could not merge chunks, collection test.c already contains chunk for [{ x: 20 }, { x: 30 })",
    ),
    ("5.0", "[{x: 20}, {x: 30}]", "ok"),
    ("8.0", "[{x: 20}, {x: 30}]", "ok"),
    // Chunks of one shard exactly filling the range merge in every era.
    ("3.6", "[{x: 20}, {x: MaxKey}]", "ok"),
    ("5.0", "[{x: MinKey}, {x: 10}]", "ok"),
    ("8.0", "[{x: 20}, {x: MaxKey}]", "ok"),
];

#[test]
fn merge_chunks_refuses_as_each_era_did() {
    let mut failures = Vec::new();
    for (version, bounds, expected) in MERGE_CASES {
        let got = last_answer(&format!(
            "{}db.adminCommand({{mergeChunks: 'test.c', bounds: {bounds}}})",
            merge_setup(version)
        ));
        if got != *expected {
            failures.push(format!(
                "{version} {bounds}\n  expected: {expected}\n       got: {got}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A merge changes the chunks only when it merges: 5.0's no-op on one chunk leaves the
/// table as it was, and a merge leaves one chunk on the shard for the range.
#[test]
fn merge_chunks_merges_only_what_it_accepts() {
    let base = merge_setup("5.0");
    let before = chunks_after(&base, "test.c");
    assert_eq!(
        chunks_after(
            &format!(
                "{base}db.adminCommand({{mergeChunks: 'test.c', bounds: [{{x: 20}}, {{x: 30}}]}})"
            ),
            "test.c"
        ),
        before
    );
    assert_eq!(
        chunks_after(
            &format!("{base}db.adminCommand({{mergeChunks: 'test.c', bounds: [{{x: 20}}, {{x: MaxKey}}]}})"),
            "test.c"
        ),
        "{ x: MinKey() } -> { x: 0 } on shard01\n\
         { x: 0 } -> { x: 10 } on shard01\n\
         { x: 10 } -> { x: 20 } on shard02\n\
         { x: 20 } -> { x: MaxKey() } on shard01\n"
    );
}

/// mergeChunks on a collection that is not sharded: mongos reads the routing table
/// first (cluster_merge_chunks_cmd.cpp, `getShardedCollectionRoutingInfo` in 5.0/7.0,
/// `getRefreshedCollectionRoutingInfoAssertSharded_DEPRECATED` in 8.0).
#[test]
fn merge_chunks_on_an_unsharded_collection_is_namespace_not_sharded() {
    for version in ["5.0", "8.0"] {
        assert_eq!(
            last_answer(&format!(
                "sim.version('{version}')\ndb.adminCommand({{mergeChunks: 'test.nope', bounds: [{{x: 0}}, {{x: 5}}]}})"
            )),
            "MongoServerError[NamespaceNotSharded]: Collection test.nope is not sharded."
        );
    }
}

/// moveRange with only `max` (8.0 mode; cluster_move_range_cmd.cpp 7.0 on accepts
/// `min` or `max`). The donor computes the lower bound (migration_source_manager.cpp,
/// `MigrationSourceManager` with `computeOtherBound(..., needMaxBound: false)`): in the
/// chunk ending at `max`, or holding it (`getChunkForMaxBound`), the first split point of
/// `autoSplitVector` scanning back from `max` with a limit of one, else the chunk's min.
#[test]
fn move_range_with_only_max_computes_min_in_80() {
    // Under the chunk size nothing splits: the whole chunk ending at 50 moves.
    let base = "sim.version('8.0')\n\
                sh.shardCollection('test.c', {x: 1})\n\
                db.c.insertMany([{x: 1}, {x: 20}, {x: 60}])\n\
                sh.splitAt('test.c', {x: 50})\n";
    assert_eq!(
        chunks_after(
            &format!("{base}db.adminCommand({{moveRange: 'test.c', toShard: 'shard02', max: {{x: 50}}}})"),
            "test.c"
        ),
        "{ x: MinKey() } -> { x: 50 } on shard02\n\
         { x: 50 } -> { x: MaxKey() } on shard01\n"
    );
    // A bound inside a chunk: the range ends there and starts at the chunk's min.
    assert_eq!(
        chunks_after(
            &format!("{base}db.adminCommand({{moveRange: 'test.c', toShard: 'shard02', max: {{x: 70}}}})"),
            "test.c"
        ),
        "{ x: MinKey() } -> { x: 50 } on shard01\n\
         { x: 50 } -> { x: 70 } on shard02\n\
         { x: 70 } -> { x: MaxKey() } on shard01\n"
    );
    // Over the chunk size the lower bound is about one chunk size of data below `max`,
    // as `min` alone gives about one chunk size above it.
    let docs: Vec<String> = (0..100).map(|i| format!("{{x: {i}}}")).collect();
    let big = format!(
        "sim.version('8.0')\n\
         sim.chunkSize(1024)\n\
         sh.stopBalancer()\n\
         sh.shardCollection('test.c', {{x: 1}})\n\
         db.c.insertMany([{}])\n",
        docs.join(", ")
    );
    let back = chunks_after(
        &format!(
            "{big}db.adminCommand({{moveRange: 'test.c', toShard: 'shard02', max: {{x: 50}}}})"
        ),
        "test.c",
    );
    let forward = chunks_after(
        &format!(
            "{big}db.adminCommand({{moveRange: 'test.c', toShard: 'shard02', min: {{x: 50}}}})"
        ),
        "test.c",
    );
    expect_test::expect![[r#"
        { x: MinKey() } -> { x: 25 } on shard01
        { x: 25 } -> { x: 50 } on shard02
        { x: 50 } -> { x: MaxKey() } on shard01
        ---
        { x: MinKey() } -> { x: 50 } on shard01
        { x: 50 } -> { x: 74 } on shard02
        { x: 74 } -> { x: MaxKey() } on shard01
    "#]]
    .assert_eq(&format!("{back}---\n{forward}"));
}

/// shard.ts `_runShardCollection`: an object in `unique`'s place is the options, so
/// `numInitialChunks` there is honoured (jstests/sharding/shard_collection_basic.js
/// passes it as the fourth argument and counts 5 chunks).
#[test]
fn shard_collection_takes_an_object_in_uniques_place_as_options() {
    for script in [
        "sh.shardCollection('test.c', {x: 'hashed'}, {numInitialChunks: 5})",
        "sh.shardCollection('test.c', {x: 'hashed'}, false, {numInitialChunks: 5})",
    ] {
        assert_eq!(
            chunks_after(script, "test.c").lines().count(),
            5,
            "{script}"
        );
    }
}

/// `{'a.b': 1, 'c.d': 'hashed'}` in 5.0 over five shards, the i-th chunk on the i-th:
/// [MinKey, null), [null, -100), [-100, 0), [0, 100), [100, MaxKey), as
/// `chunk_manager_targeter_test.cpp` lays them out.
const RANGE_PREFIX_HASHED: &str = "sim.reset({shards: 5})\n\
     sim.version('5.0')\n\
     sh.shardCollection('test.c', {'a.b': 1, 'c.d': 'hashed'})\n\
     sh.splitAt('test.c', {'a.b': null, 'c.d': MinKey()})\n\
     sh.splitAt('test.c', {'a.b': -100, 'c.d': MinKey()})\n\
     sh.splitAt('test.c', {'a.b': 0, 'c.d': MinKey()})\n\
     sh.splitAt('test.c', {'a.b': 100, 'c.d': MinKey()})\n\
     sh.moveChunk('test.c', {'a.b': -1000, 'c.d': 1}, 'shard02')\n\
     sh.moveChunk('test.c', {'a.b': -10, 'c.d': 1}, 'shard03')\n\
     sh.moveChunk('test.c', {'a.b': 10, 'c.d': 1}, 'shard04')\n\
     sh.moveChunk('test.c', {'a.b': 1000, 'c.d': 1}, 'shard05')\n";

/// The shard (0-based) whose document count `statement` raised, or its error.
fn inserted_on(session: &mut Session, statement: &str) -> Result<usize, String> {
    let before = session.cluster.shard_stats("test.c");
    let outcome = session.run(statement).pop().unwrap();
    outcome.result.map_err(|e| e.to_string())?;
    let after = session.cluster.shard_stats("test.c");
    Ok((0..after.len())
        .find(|&i| after[i].docs > before[i].docs)
        .unwrap())
}

/// `chunk_manager_targeter_test.cpp`, TargetInsertWithRangePrefixHashedShardKey: where
/// inserts go, a missing field as null, and arrays on the key's paths refused.
#[test]
fn mongodb_targeter_inserts_with_range_prefix_hashed_key() {
    let mut session = Session::default();
    for o in session.run(RANGE_PREFIX_HASHED) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let arrays = Err(
        "MongoServerError: Shard key cannot contain array values or array descendants.".to_string(),
    );
    let cases: Vec<(&str, Result<usize, String>)> = vec![
        ("db.c.insertOne({a: {b: -111}, c: {d: '1'}})", Ok(1)),
        ("db.c.insertOne({a: {b: -10}})", Ok(2)),
        ("db.c.insertOne({a: {b: 0}, c: {d: 4}})", Ok(3)),
        ("db.c.insertOne({a: {b: 1000}, c: null, d: {}})", Ok(4)),
        ("db.c.insertOne({})", Ok(1)),
        ("db.c.insertOne({a: 10})", Ok(1)),
        ("db.c.insertOne({a: [1, 2]})", arrays.clone()),
        ("db.c.insertOne({c: [1, 2]})", arrays.clone()),
        ("db.c.insertOne({c: {d: [1, 2]}})", arrays),
        // TargetDeleteWithRangePrefixHashedShardKey: MinKey sorts below null.
        ("db.c.insertOne({a: {b: MinKey()}, c: {d: 4}})", Ok(0)),
    ];
    for (statement, want) in cases {
        assert_eq!(inserted_on(&mut session, statement), want, "{statement}");
    }
}

/// `chunk_manager_targeter_test.cpp`, TargetUpdateWithRangePrefixHashedShardKey and
/// TargetDeleteWithRangePrefixHashedShardKey, with one document in each chunk: a
/// replacement whose query targets several shards goes by the replacement's key, an
/// op-style update by the query, an upsert needs the full key, and a single delete
/// needs the full key (then goes to its chunk, MinKey's included).
#[test]
fn mongodb_targeter_updates_and_deletes_with_range_prefix_hashed_key() {
    let setup = format!(
        "{RANGE_PREFIX_HASHED}db.c.insertMany([{{_id: 10, a: {{b: -1000}}}}, {{_id: 11, a: {{b: -50}}}}, {{_id: 12, a: {{b: 50}}}}, {{_id: 13, a: {{b: 500}}}}, {{_id: 14, a: {{b: MinKey()}}, c: {{d: 4}}}}, {{_id: 15, a: {{b: -101}}, c: {{d: 5}}}}])\n"
    );
    let delete_without_key = |q: &str| {
        format!("MongoServerError: A single delete on a sharded collection must contain an exact match on _id (and have the collection default collation) or contain the shard key (and have the simple collation). Delete request: {{ q: {q}, limit: 1, hint: {{}} }}, shard key pattern: {{ a.b: 1, c.d: \"hashed\" }}")
    };
    let cases: Vec<(&str, String)> = vec![
        // The query targets shards 3 and 4; the replacement's key, shard 2, has no match.
        ("db.c.replaceOne({'a.b': {$gt: 2}}, {a: {b: -1}})", "matched 0".into()),
        (
            "db.c.updateOne({$and: [{'a.b': {$gte: 0}}, {'a.b': {$lt: 99}}]}, {$set: {p: 1}})",
            "matched 1".into(),
        ),
        // An exact `_id` lets a single op-style update go to every shard.
        ("db.c.updateOne({_id: 11}, {$set: {p: 111}})", "matched 1".into()),
        // A replacement without the key fields goes to the chunk holding null.
        ("db.c.replaceOne({_id: 11}, {p: 111})", "matched 0".into()),
        (
            "db.c.replaceOne({'a.b': 100, 'c.d': {$exists: false}}, {a: {b: -111}}, {upsert: true})",
            "MongoServerError: Failed to target upsert by query :: could not extract exact shard key".into(),
        ),
        ("db.c.deleteOne({'a.b': {$gt: 2}})", delete_without_key("{ a.b: { $gt: 2 } }")),
        ("db.c.deleteOne({'a.b': -101})", delete_without_key("{ a.b: -101 }")),
        ("db.c.deleteOne({'a.b': -101, 'c.d': 5})", "deleted 1".into()),
        ("db.c.deleteOne({'a.b': MinKey(), 'c.d': 4})", "deleted 1".into()),
    ];
    for (statement, want) in cases {
        let mut session = Session::default();
        for o in session.run(&setup) {
            assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
        }
        let got = match session.run(statement).pop().unwrap().result {
            Ok(shardlab::Output::Value(bson::Bson::Document(d))) => match d.get("deletedCount") {
                Some(n) => format!("deleted {n}"),
                None => format!("matched {}", d.get("matchedCount").unwrap()),
            },
            Ok(other) => format!("{other:?}"),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, want, "{statement}");
    }
}

/// `{split: ns, bounds}` splits the chunk with exactly those bounds at its median, as
/// `find` does (cluster_split_cmd.cpp: `selectMedianKey`, splitVector with `force`).
#[test]
fn split_by_bounds_cuts_that_chunk_at_its_median() {
    let setup =
        "sh.shardCollection('test.c', {x: 1})\ndb.c.insertMany([{x: 1}, {x: 2}, {x: 3}, {x: 4}])\n";
    assert_eq!(
        chunks_after(
            &format!("{setup}db.adminCommand({{split: 'test.c', bounds: [{{x: MinKey()}}, {{x: MaxKey()}}]}})"),
            "test.c"
        ),
        chunks_after(&format!("{setup}sh.splitFind('test.c', {{x: 1}})"), "test.c"),
    );
    assert_eq!(
        chunks_after(
            &format!("{setup}db.adminCommand({{split: 'test.c', bounds: [{{x: MinKey()}}, {{x: MaxKey()}}]}})"),
            "test.c"
        ),
        "{ x: MinKey() } -> { x: 3 } on shard01\n{ x: 3 } -> { x: MaxKey() } on shard01\n"
    );
}
