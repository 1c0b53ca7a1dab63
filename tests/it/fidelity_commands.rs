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
