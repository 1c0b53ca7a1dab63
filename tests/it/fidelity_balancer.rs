//! The balancer, splitting and merging against MongoDB's own tests: the cases of
//! `src/mongo/db/s/balancer/balancer_policy_test.cpp` (the 4.4/5.x chunk-count policy and
//! the 7.0/8.0 data-size one), rebuilt through the shell the way its `generateCluster` lays
//! a cluster out; `balancer_policy.cpp` of 3.6, 5.0, 7.0 and 8.0 where no test covers a
//! rule; jstests/sharding/balancing_based_on_size.js, balancer_collection_status.js and
//! merge_all_chunks_on_shard.js; split_vector_test.cpp through `splitFind`; the donor's
//! ChunkTooBig test and the auto-splitter's top-chunk move. Each test names its source.
#![allow(clippy::unwrap_used)]

use bson::Bson;
use shardlab::Session;

const NS: &str = "test.c";

/// One shard of a generated cluster: its chunk count and its zones.
type Spec<'a> = (usize, &'a [&'a str]);

const NONE: &[&str] = &[];

/// Runs `script`, every statement succeeding.
fn run(s: &mut Session, script: &str) {
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
}

/// What `statement` printed, or its error.
fn answer(s: &mut Session, statement: &str) -> String {
    let outcomes = s.run(statement);
    let o = outcomes.last().unwrap();
    match &o.result {
        Ok(_) => o.render().unwrap_or_default(),
        Err(e) => format!("{}: {}", e.code_name, e.message),
    }
}

/// A shard's name from its position: `shard01` first.
fn shard(i: usize) -> String {
    format!("shard{:02}", i + 1)
}

/// A key inside the `i`-th chunk of a generated cluster (`-1` for `[MinKey, 1)`).
fn key_in(i: usize) -> i64 {
    if i == 0 {
        -1
    } else {
        i as i64
    }
}

/// `generateCluster` through the shell: `test.c` sharded on `{x: 1}` in `version`, with
/// chunks `[MinKey, 1), [1, 2), … [N - 1, MaxKey)` dealt in order, the first shard's
/// first, and each shard in its zones. Chunks start on shard01, the primary shard.
fn generate(version: &str, specs: &[Spec]) -> Session {
    let total: usize = specs.iter().map(|s| s.0).sum();
    let mut script = format!(
        "sim.reset({{shards: {}, version: '{version}'}})\nsh.shardCollection('{NS}', {{x: 1}})\n",
        specs.len()
    );
    for i in 1..total {
        script.push_str(&format!("sh.splitAt('{NS}', {{x: {i}}})\n"));
    }
    let owners = specs
        .iter()
        .enumerate()
        .flat_map(|(k, s)| std::iter::repeat_n(k, s.0));
    for (i, k) in owners.enumerate().filter(|(_, k)| *k != 0) {
        script.push_str(&format!(
            "sh.moveChunk('{NS}', {{x: {}}}, '{}')\n",
            key_in(i),
            shard(k)
        ));
    }
    for (k, (_, zones)) in specs.iter().enumerate() {
        for z in *zones {
            script.push_str(&format!("sh.addShardToZone('{}', '{z}')\n", shard(k)));
        }
    }
    let mut s = Session::default();
    run(&mut s, &script);
    s
}

/// A zone range of `test.c` on `x`, `None` standing for MinKey or MaxKey.
fn zone(s: &mut Session, min: Option<i64>, max: Option<i64>, name: &str) {
    let b = |v: Option<i64>, end: &str| v.map_or(end.to_string(), |v| v.to_string());
    run(
        s,
        &format!(
            "sh.updateZoneKeyRange('{NS}', {{x: {}}}, {{x: {}}}, '{name}')",
            b(min, "MinKey"),
            b(max, "MaxKey")
        ),
    );
}

/// Starts draining the shards at `shards` (`removeShard`'s first call).
fn drain(s: &mut Session, shards: &[usize]) {
    for &k in shards {
        run(
            s,
            &format!("db.adminCommand({{removeShard: '{}'}})", shard(k)),
        );
    }
}

/// Makes the chunks at `chunks` jumbo as 5.0 does: each gets documents of one shard key
/// value, past the (small) chunk size, and the auto-splitter finds no split point.
fn make_jumbo(s: &mut Session, chunks: &[usize]) {
    run(s, "sim.chunkSize(1024)");
    for &i in chunks {
        run(
            s,
            &format!(
                "db.c.insertMany(Array.from({{length: 30}}, () => ({{x: {}, pad: 'p'.repeat(100)}})))",
                key_in(i)
            ),
        );
    }
    for &i in chunks {
        let n = answer(
            s,
            &format!(
                "db.getSiblingDB('config').chunks.countDocuments({{min: {{x: {}}}, jumbo: true}})",
                if i == 0 {
                    "MinKey".to_string()
                } else {
                    i.to_string()
                }
            ),
        );
        assert_eq!(n, "1", "chunk {i} is jumbo");
    }
}

/// One balancer round for `test.c`: each migration as `from -> to @ lower bound`.
fn round(s: &mut Session) -> Vec<String> {
    let migrations = s.cluster.balance_collection_round(NS).unwrap();
    s.cluster.check().unwrap();
    migrations
        .iter()
        .map(|m| {
            let min = match &m.min.0[0] {
                Bson::MinKey => "MinKey".to_string(),
                v => v.to_string(),
            };
            format!(
                "{} -> {} @ {min}",
                s.cluster.shard_name(m.from),
                s.cluster.shard_name(m.to)
            )
        })
        .collect()
}

/// `balancerCollectionStatus`'s `firstComplianceViolation`, or `compliant`.
fn violation(s: &mut Session) -> String {
    let out = answer(s, &format!("sh.balancerCollectionStatus('{NS}')"));
    match out.split("firstComplianceViolation: '").nth(1) {
        Some(rest) => rest.split('\'').next().unwrap().to_string(),
        None if out.contains("balancerCompliant: true") => "compliant".into(),
        None => out,
    }
}

// balancer_policy_test.cpp: Basic, SmallClusterShouldBePerfectlyBalanced,
// SingleChunkShouldNotMove, BalanceThresholdObeyed.
#[test]
fn the_50_policy_balances_chunk_counts_around_the_rounded_ideal() {
    let mut s = generate("5.0", &[(4, NONE), (0, NONE), (3, NONE)]);
    assert_eq!(violation(&mut s), "chunksImbalance");
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
    let mut s = generate("5.0", &[(1, NONE), (2, NONE), (0, NONE)]);
    assert_eq!(round(&mut s), ["shard02 -> shard03 @ 1"]);
    let mut s = generate("5.0", &[(1, NONE), (0, NONE)]);
    assert!(round(&mut s).is_empty());
    assert_eq!(violation(&mut s), "compliant");
    let mut s = generate("5.0", &[(2, NONE), (2, NONE), (1, NONE), (1, NONE)]);
    assert!(round(&mut s).is_empty());
}

// balancer_policy_test.cpp: ParallelBalancing,
// ParallelBalancingDoesNotPutChunksOnShardsAboveTheOptimal,
// ParallelBalancingDoesNotMoveChunksFromShardsBelowOptimal.
#[test]
fn the_50_policy_moves_in_parallel_one_migration_per_shard() {
    let mut s = generate("5.0", &[(4, NONE), (4, NONE), (0, NONE), (0, NONE)]);
    assert_eq!(
        round(&mut s),
        ["shard01 -> shard03 @ MinKey", "shard02 -> shard04 @ 4"]
    );
    let specs: [Spec; 6] = [
        (100, NONE),
        (90, NONE),
        (90, NONE),
        (80, NONE),
        (0, NONE),
        (0, NONE),
    ];
    let mut s = generate("5.0", &specs);
    assert_eq!(
        round(&mut s),
        ["shard01 -> shard05 @ MinKey", "shard02 -> shard06 @ 100"]
    );
    let mut s = generate("5.0", &[(100, NONE), (30, NONE), (5, NONE), (0, NONE)]);
    assert_eq!(round(&mut s), ["shard01 -> shard04 @ MinKey"]);
}

// balancer_policy_test.cpp: JumboChunksNotMoved, JumboChunksNotMovedParallel.
#[test]
fn jumbo_chunks_are_not_moved() {
    let mut s = generate("5.0", &[(4, NONE), (0, NONE)]);
    make_jumbo(&mut s, &[0, 2, 3]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ 1"]);
    let mut s = generate("5.0", &[(4, NONE), (0, NONE), (4, NONE), (0, NONE)]);
    make_jumbo(&mut s, &[0, 2, 3, 4, 5, 7]);
    assert_eq!(
        round(&mut s),
        ["shard01 -> shard02 @ 1", "shard03 -> shard04 @ 6"]
    );
}

// balancer_policy_test.cpp: JumboChunksNotMovedWhileEnforcingZones.
#[test]
fn jumbo_chunks_are_not_moved_while_enforcing_zones() {
    let mut s = generate("5.0", &[(3, NONE), (3, &["a"])]);
    make_jumbo(&mut s, &[0, 2]);
    zone(&mut s, None, None, "a");
    assert_eq!(violation(&mut s), "zoneViolation");
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ 1"]);
    // The jumbo chunks stay outside their zone, and are no violation the balancer acts on.
    assert!(round(&mut s).is_empty());
    assert_eq!(violation(&mut s), "compliant");
}

// balancer_policy_test.cpp: DrainingSingleChunk, DrainingWithTwoChunksFirstOneSelected,
// DrainingMultipleShardsFirstOneSelected, DrainingMultipleShardsWontAcceptChunks.
#[test]
fn draining_shards_are_emptied_first_in_key_order() {
    for version in ["3.6", "5.0", "8.0"] {
        let mut s = generate(version, &[(1, NONE), (5, NONE)]);
        drain(&mut s, &[0]);
        assert_eq!(
            violation(&mut s).as_str(),
            if version == "3.6" {
                "CommandNotFound: no such cmd: balancerCollectionStatus"
            } else {
                "draining"
            }
        );
        assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"], "{version}");
        let mut s = generate(version, &[(2, NONE), (5, NONE)]);
        drain(&mut s, &[0]);
        assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"], "{version}");
        let mut s = generate(version, &[(4, NONE), (0, NONE), (0, NONE)]);
        drain(&mut s, &[1]);
        if version != "3.6" {
            drain(&mut s, &[2]);
        }
        // 3.6 drains one shard at a time; shard03 still takes chunks there.
        let expected: &[&str] = if version == "3.6" {
            &["shard01 -> shard03 @ MinKey"]
        } else {
            &[]
        };
        assert_eq!(round(&mut s), expected, "{version}");
    }
    let mut s = generate("5.0", &[(1, NONE), (2, NONE), (16, NONE)]);
    drain(&mut s, &[0, 1]);
    assert_eq!(round(&mut s), ["shard01 -> shard03 @ MinKey"]);
}

// balancer_policy_test.cpp: DrainingSingleChunkPerShard (several shards drain at once
// from 4.4 on).
#[test]
fn several_draining_shards_each_give_a_chunk() {
    for version in ["5.0", "8.0"] {
        let mut s = generate(version, &[(1, NONE), (5, NONE), (1, NONE), (5, NONE)]);
        drain(&mut s, &[0, 2]);
        assert_eq!(
            round(&mut s),
            ["shard01 -> shard02 @ MinKey", "shard03 -> shard04 @ 6"],
            "{version}"
        );
    }
}

// balancer_policy.cpp, `balance` (3.6, 5.0, 7.0, 8.0): "if (chunk.getJumbo()) {
// numJumboChunks++; continue; }" in the draining step; SERVER-86055 ("the balancer will
// drain all the chunks from that shard except the jumbo ones").
#[test]
fn a_draining_shard_keeps_its_jumbo_chunks() {
    let mut s = generate("5.0", &[(2, NONE), (1, NONE)]);
    make_jumbo(&mut s, &[0]);
    drain(&mut s, &[0]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ 1"]);
    assert!(round(&mut s).is_empty());
    // The jumbo chunk is no violation the balancer acts on; removeShard waits for it.
    assert_eq!(violation(&mut s), "compliant");
    let out = answer(&mut s, "db.adminCommand({removeShard: 'shard01'})");
    assert!(out.contains("jumboChunks: Long('1')"), "{out}");
    // Once the flag is cleared, the chunk drains.
    run(
        &mut s,
        "db.adminCommand({clearJumboFlag: 'test.c', find: {x: -1}})",
    );
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
}

// balancer_policy_test.cpp: DrainingSingleAppropriateShardFoundDueToTag,
// DrainingNoAppropriateShardsFoundDueToTag, BalancerRespectsTagsWhenDraining.
#[test]
fn a_draining_shard_gives_zone_chunks_only_to_the_zone() {
    let mut s = generate("5.0", &[(4, &["NYC"]), (4, &["LAX"]), (1, &["LAX"])]);
    zone(&mut s, Some(8), None, "LAX");
    drain(&mut s, &[2]);
    assert_eq!(round(&mut s), ["shard03 -> shard02 @ 8"]);
    let mut s = generate("5.0", &[(4, &["NYC"]), (4, &["LAX"]), (1, &["SEA"])]);
    zone(&mut s, Some(8), None, "SEA");
    drain(&mut s, &[2]);
    assert!(round(&mut s).is_empty());
    let mut s = generate("5.0", &[(6, &["a"]), (1, &["a", "b"]), (2, &["b"])]);
    zone(&mut s, None, Some(7), "a");
    zone(&mut s, Some(8), None, "b");
    drain(&mut s, &[1]);
    assert_eq!(round(&mut s), ["shard02 -> shard01 @ 6"]);
}

// balancer_policy_test.cpp: BalancerRespectsTagPolicyBeforeImbalance,
// OverloadedShardCannotDonateDueToTags, BalancerTagAlreadyBalanced.
#[test]
fn zone_violations_come_before_imbalance() {
    let mut s = generate("5.0", &[(2, &["a"]), (6, &["a"]), (2, NONE)]);
    zone(&mut s, None, Some(100), "a");
    assert_eq!(violation(&mut s), "zoneViolation");
    assert_eq!(round(&mut s), ["shard03 -> shard01 @ 8"]);
    let mut s = generate("5.0", &[(5, &["a"]), (0, NONE), (0, NONE)]);
    zone(&mut s, None, None, "a");
    assert!(round(&mut s).is_empty());
    assert_eq!(violation(&mut s), "compliant");
    let mut s = generate("5.0", &[(2, &["a"]), (2, &["a"])]);
    zone(&mut s, None, None, "a");
    assert!(round(&mut s).is_empty());
}

// balancer_policy_test.cpp: BalancerFixesIncorrectTagsWithCrossShardViolationOfTags,
// BalancerFixesIncorrectTagInOtherwiseBalancedCluster,
// BalancerFixesIncorrectTagsInOtherwiseBalancedClusterParallel.
#[test]
fn chunks_outside_their_zone_move_into_it() {
    let mut s = generate("5.0", &[(3, &["a"]), (3, &["a"]), (3, &["b"])]);
    zone(&mut s, None, Some(1), "b");
    zone(&mut s, Some(8), None, "a");
    assert_eq!(round(&mut s), ["shard01 -> shard03 @ MinKey"]);
    let mut s = generate("5.0", &[(3, &["a"]), (3, &["a"]), (3, NONE)]);
    zone(&mut s, None, Some(10), "a");
    assert_eq!(round(&mut s), ["shard03 -> shard01 @ 6"]);
    let mut s = generate("5.0", &[(3, &["a"]), (3, &["a"]), (3, NONE), (3, NONE)]);
    zone(&mut s, None, Some(20), "a");
    assert_eq!(
        round(&mut s),
        ["shard03 -> shard01 @ 6", "shard04 -> shard02 @ 9"]
    );
}

// balancer_policy_test.cpp: BalancerFixesIncorrectTagsInOtherwiseBalancedCluster (either
// shard of the zones may take the chunk; ties go to the first shard).
#[test]
fn a_chunk_of_one_of_several_zones_goes_to_a_shard_of_its_zone() {
    let mut s = generate(
        "5.0",
        &[
            (4, NONE),
            (2, &["Zone1", "Zone2"]),
            (2, &["Zone1", "Zone2"]),
            (2, NONE),
        ],
    );
    for (i, z) in ["Zone1", "Zone2", "Zone1", "Zone2"].iter().enumerate() {
        let min = (i > 0).then_some(i as i64);
        zone(&mut s, min, Some(i as i64 + 1), z);
    }
    let moves = round(&mut s);
    assert_eq!(moves.len(), 1);
    assert!(
        moves[0] == "shard01 -> shard02 @ MinKey" || moves[0] == "shard01 -> shard03 @ MinKey",
        "{moves:?}"
    );
}

// balancer_policy_test.cpp: BalancerMostOverLoadShardHasMultipleTags.
#[test]
fn zones_are_balanced_in_name_order() {
    let mut s = generate("5.0", &[(5, &["a", "b", "c"]), (1, &["b"]), (1, &["c"])]);
    zone(&mut s, None, Some(1), "a");
    zone(&mut s, Some(1), Some(3), "b");
    zone(&mut s, Some(3), Some(5), "c");
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ 1"]);
}

// balancer_policy_test.cpp: ChunksInNoZoneSpanOnAllShardsWithEmptyZones (the zone range
// put on a chunk's bounds: a real balancer round first splits a chunk that straddles a
// zone boundary, which would make that chunk a zone violation) and
// BalancingNoZoneIgnoreTotalShardSize.
#[test]
fn chunks_in_no_zone_balance_over_every_shard() {
    let mut s = generate("5.0", &[(3, NONE), (1, &["a"])]);
    zone(&mut s, Some(3), None, "a");
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
    let mut s = generate("5.0", &[(3, &["a"]), (6, &["a"]), (3, NONE)]);
    zone(&mut s, None, Some(6), "a");
    assert!(round(&mut s).is_empty());
}

// balancer_policy.cpp, `_getLeastLoadedReceiverShard` (3.6 to 8.0): the recipient is the
// suitable shard with the fewest chunks of the whole collection
// (`numberOfChunksInShard`), whatever their zones; its chunks of the zone then face the
// ideal (`numberOfChunksInShardWithTag`).
#[test]
fn the_recipient_is_the_shard_with_the_fewest_chunks_of_the_collection() {
    for version in ["3.6", "5.0"] {
        let mut s = generate(version, &[(4, &["a"]), (5, &["a"]), (1, &["a"])]);
        zone(&mut s, None, Some(4), "a");
        zone(&mut s, Some(9), None, "a");
        // Zone a: 5 chunks over 3 shards. shard02 holds none of them but 5 others;
        // shard03 holds 1 chunk in all, so it takes shard01's first chunk of the zone.
        assert_eq!(round(&mut s), ["shard01 -> shard03 @ MinKey"], "{version}");
    }
}

// 3.4/3.6 balancer_policy.cpp, `balance`: ideal = ceil(chunks / shards); the donor's
// excess over it must reach the threshold, 1 under 20 chunks (kAggressiveImbalanceThreshold)
// and 2 from 20 on (kDefaultImbalanceThreshold).
#[test]
fn the_36_policy_balances_around_the_ceiling_with_its_threshold() {
    let mut s = generate("3.6", &[(4, NONE), (0, NONE), (3, NONE)]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
    // 21 chunks: ideal 7, shard01's 8 is only 1 over it.
    let mut s = generate("3.6", &[(8, NONE), (7, NONE), (6, NONE)]);
    assert!(round(&mut s).is_empty());
    // 22 chunks: ideal 8, 10 is 2 over it.
    let mut s = generate("3.6", &[(10, NONE), (6, NONE), (6, NONE)]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
    // 3.6 balancer.cpp, `_mainThread`: `selectChunksToMove(opCtx, _balancedLastTime)`.
    // The round after one that moved a chunk is aggressive: 9 is 1 over the ideal, and
    // that is enough now.
    assert_eq!(round(&mut s), ["shard01 -> shard03 @ 1"]);
    assert!(round(&mut s).is_empty());
}

/// An 8.0 cluster of `shards` with a 1 MiB chunk size and `test.c` cut at `cuts`, chunk
/// `i` on `owners[i]` holding `docs[i]` documents of 1 MiB with distinct keys.
fn sized(shards: usize, cuts: &[i64], owners: &[usize], docs: &[i64]) -> Session {
    let mut script = format!(
        "sim.reset({{shards: {shards}, version: '8.0', chunkSize: 1048576}})\n\
         sh.shardCollection('{NS}', {{x: 1}})\n\
         const big = 'X'.repeat(1024 * 1024)\n"
    );
    for c in cuts {
        script.push_str(&format!("sh.splitAt('{NS}', {{x: {c}}})\n"));
    }
    let lows: Vec<i64> = std::iter::once(-1_000_000)
        .chain(cuts.iter().copied())
        .collect();
    for (i, (&k, &n)) in owners.iter().zip(docs).enumerate() {
        if k != 0 {
            script.push_str(&format!(
                "sh.moveChunk('{NS}', {{x: {}}}, '{}')\n",
                lows[i],
                shard(k)
            ));
        }
        script.push_str(&format!(
            "for (let i = 0; i < {n}; i++) {{ db.c.insertOne({{x: {} + i, s: big}}) }}\n",
            lows[i]
        ));
    }
    let mut s = Session::default();
    run(&mut s, &script);
    s
}

// jstests/sharding/balancing_based_on_size.js: 10 MB on shard0, 3 MB on shard1 (in four
// chunks there); the balancer converges until the two differ by less than three chunk
// sizes (the test allows 2 MB), and later rounds move nothing.
#[test]
fn the_80_policy_balances_data_size_until_shards_differ_by_less_than_three_chunks() {
    let mut s = sized(2, &[0, 1, 2, 3], &[0, 1, 1, 1, 1], &[10, 1, 1, 1, 0]);
    assert_eq!(violation(&mut s), "chunksImbalance");
    for _ in 0..3 {
        assert_eq!(round(&mut s).len(), 1);
    }
    assert!(round(&mut s).is_empty());
    assert_eq!(violation(&mut s), "compliant");
    let sizes: Vec<u64> = (0..2)
        .map(|k| {
            let table = &s.cluster.sharding(NS).unwrap().table;
            table.iter().filter(|c| c.shard == k).map(|c| c.bytes).sum()
        })
        .collect();
    assert!(sizes[0] - sizes[1] <= 2 * 1048576 + 1024, "{sizes:?}");
}

// balancer_policy.cpp (7.0/8.0), `_singleZoneBalanceBasedOnDataSize`: the donor must hold
// more than the ideal (the zone's data over its shards, draining ones counted) and at
// least three chunk sizes more than the recipient; nothing compares the recipient with
// the ideal. Here the ideal is 22/4 = 5.5 MiB: the least loaded shard that may receive,
// shard03 with 6 MiB, is above it, and shard01's 10 MiB are still 4 MiB more.
#[test]
fn the_80_policy_does_not_ask_the_recipient_to_be_below_the_ideal() {
    let mut s = sized(4, &[0, 100], &[0, 2, 3], &[10, 6, 6]);
    drain(&mut s, &[1]);
    assert_eq!(round(&mut s), ["shard01 -> shard03 @ MinKey"]);
}

// balancer_policy.cpp (7.0/8.0), `balance`: a draining shard that gives nothing while the
// collection has no migration yet leaves the round (`availableShards->erase`), so the
// next most loaded shard donates; a chunk already marked jumbo stays on the draining
// shard (a chunk not yet marked leaves it however big: `ForceJumbo::kForceBalancer`).
#[test]
fn an_80_draining_shard_left_with_jumbo_chunks_leaves_the_round() {
    let mut s = sized(3, &[0, 100], &[0, 1, 2], &[0, 7, 0]);
    run(
        &mut s,
        "for (let i = 0; i < 10; i++) { db.c.insertOne({x: -5, s: big}) }",
    );
    // shard01's 10 MiB of one key value: the round chooses them for shard03, the donor
    // refuses a range it cannot cut, and the balancer marks the chunk jumbo.
    assert!(round(&mut s).is_empty());
    let jumbo = answer(
        &mut s,
        "db.getSiblingDB('config').chunks.countDocuments({jumbo: true})",
    );
    assert_eq!(jumbo, "1");
    drain(&mut s, &[0]);
    assert_eq!(round(&mut s), ["shard02 -> shard03 @ 0"]);
}

// jstests/sharding/balancer_collection_status.js: a new collection is compliant; three
// chunks on one shard are `chunksImbalance`; balanced after rounds; a chunk moved off
// its zone is `zoneViolation` (moved to the first shard here: the rounds already left it
// on the third); compliant again after rounds. The 5.3+ version of the test
// also checks `chunkSize` (1 with a 1 MB chunk size).
#[test]
fn balancer_collection_status_follows_the_jstest() {
    let mut s = Session::default();
    run(
        &mut s,
        "sim.reset({shards: 3, version: '5.0'})\nsh.shardCollection('db.col', {key: 1})",
    );
    let status =
        |s: &mut Session| answer(s, "db.adminCommand({balancerCollectionStatus: 'db.col'})");
    assert_eq!(
        answer(&mut s, "db.adminCommand({balancerCollectionStatus: 'db'})"),
        "InvalidNamespace: Invalid namespace specified 'db'"
    );
    // 4.4/5.0: through the catalog cache, in its words.
    assert_eq!(
        answer(
            &mut s,
            "db.adminCommand({balancerCollectionStatus: 'db.col2'})"
        ),
        "NamespaceNotSharded: Collection db.col2 is not sharded."
    );
    assert_eq!(
        answer(
            &mut s,
            "db.adminCommand({balancerCollectionStatus: 'nodb.col'})"
        ),
        "NamespaceNotFound: database nodb not found"
    );
    assert_eq!(status(&mut s), "{ balancerCompliant: true, ok: 1 }");
    run(
        &mut s,
        "sh.splitAt('db.col', {key: 10})\nsh.splitAt('db.col', {key: 20})",
    );
    assert!(status(&mut s).contains("firstComplianceViolation: 'chunksImbalance'"));
    for _ in 0..3 {
        run(&mut s, "sim.balance('db.col')");
    }
    assert_eq!(status(&mut s), "{ balancerCompliant: true, ok: 1 }");
    run(
        &mut s,
        "sh.moveChunk('db.col', {key: 10}, 'shard01')\n\
         sh.addShardToZone('shard01', 'zone0')\n\
         sh.updateZoneKeyRange('db.col', {key: MinKey}, {key: 10}, 'zone0')\n\
         sh.addShardToZone('shard02', 'zone1')\n\
         sh.updateZoneKeyRange('db.col', {key: 10}, {key: 20}, 'zone1')",
    );
    assert!(status(&mut s).contains("firstComplianceViolation: 'zoneViolation'"));
    for _ in 0..3 {
        run(&mut s, "sim.balance('db.col')");
    }
    assert_eq!(status(&mut s), "{ balancerCompliant: true, ok: 1 }");
    // 8.0 adds the chunk size in MB, rounded up to two decimals, and reads
    // `config.collections`: any namespace not sharded is "unsharded or undefined".
    run(&mut s, "sim.reset({shards: 3, version: '8.0', chunkSize: 1048576})\nsh.shardCollection('db.col', {key: 1})");
    for ns in ["db.col2", "nodb.col"] {
        assert_eq!(
            answer(
                &mut s,
                &format!("db.adminCommand({{balancerCollectionStatus: '{ns}'}})")
            ),
            "NamespaceNotSharded: Collection unsharded or undefined"
        );
    }
    assert_eq!(
        status(&mut s),
        "{ chunkSize: 1, balancerCompliant: true, ok: 1 }"
    );
    run(&mut s, "sim.chunkSize(1024)");
    assert!(
        status(&mut s).starts_with("{ chunkSize: 0.01,"),
        "{}",
        status(&mut s)
    );
    // 3.6's mongos has no such command.
    run(
        &mut s,
        "sim.reset({shards: 3, version: '3.6'})\nsh.shardCollection('db.col', {key: 1})",
    );
    assert_eq!(
        status(&mut s),
        "CommandNotFound: no such cmd: balancerCollectionStatus"
    );
}

// migration_chunk_cloner_source.cpp, `_storeCurrentLocs`: with the donor's average
// document size, a full chunk holds `maxChunkSize / avgRecSize` documents; 3.6 refuses a
// chunk of more than 130% of that ("130 * maxRecsWhenFull / 100 /* slack */"), 4.4 on of
// more than twice that ("2 * maxRecsWhenFull; // pad some slack").
#[test]
fn a_chunk_too_big_to_move_is_refused_by_each_eras_slack() {
    let setup = |version: &str| {
        let mut s = Session::default();
        run(
            &mut s,
            &format!(
                "sim.reset({{shards: 2, version: '{version}', chunkSize: 10240}})\n\
                 sh.disableAutoSplit()\n\
                 sh.shardCollection('{NS}', {{x: 1}})\n\
                 db.c.insertMany(Array.from({{length: 15}}, (_, i) => ({{_id: i, x: i, pad: 'p'.repeat(1000)}})))"
            ),
        );
        s
    };
    let mut s = setup("3.6");
    assert_eq!(
        answer(&mut s, "sh.moveChunk('test.c', {x: 1}, 'shard02')"),
        "ChunkTooBig: Cannot move chunk: the maximum number of documents for a chunk is 11, the maximum chunk size is 10240, average document size is 1031. Found 15 documents in chunk  ns: test.c { x: MinKey } -> { x: MaxKey }"
    );
    let mut s = setup("5.0");
    assert_eq!(
        answer(&mut s, "sh.moveChunk('test.c', {x: 1}, 'shard02')"),
        "{ millis: 0, ok: 1 }"
    );
}

// split_vector_test.cpp, ForceSplit: `splitFind` (mongos's `selectMedianKey`: splitVector
// with `force`) counts the chunk's keys, then takes the key after half of them: 100
// documents with `_id` 0 to 99 split at 50, in every era.
#[test]
fn split_find_cuts_at_the_median_key() {
    for version in ["3.6", "5.0", "8.0"] {
        let mut s = Session::default();
        run(
            &mut s,
            &format!(
                "sim.reset({{shards: 2, version: '{version}'}})\n\
                 sh.shardCollection('foo.bar', {{_id: 1}})\n\
                 db.getSiblingDB('foo').bar.insertMany(Array.from({{length: 100}}, (_, i) => ({{_id: i}})))\n\
                 sh.splitFind('foo.bar', {{_id: 7}})"
            ),
        );
        let bounds = answer(
            &mut s,
            "db.getSiblingDB('config').chunks.find({}, {min: 1, _id: 0}).toArray().map(c => c.min._id)",
        );
        assert_eq!(bounds, "[ MinKey(), 50 ]", "{version}");
    }
}

// split_vector_test.cpp, SplitVectorJumboTest: a range whose documents all share one key
// value has no split point, so `splitFind` finds no median (`selectMedianKey`:
// CannotSplit); a split at an explicit key inside the chunk still works.
#[test]
fn a_chunk_of_one_key_value_has_no_median() {
    let mut s = Session::default();
    run(
        &mut s,
        "sh.shardCollection('foo.bar2', {a: 1})\n\
         db.getSiblingDB('foo').bar2.insertMany(Array.from({length: 1000}, () => ({a: 1})))",
    );
    assert_eq!(
        answer(&mut s, "sh.splitFind('foo.bar2', {a: 1})"),
        "CannotSplit: Unable to find median in chunk because chunk is indivisible."
    );
    assert_eq!(
        answer(&mut s, "sh.splitAt('foo.bar2', {a: 1})"),
        "{ ok: 1 }"
    );
}

/// The 7.0/8.0 `generateCluster` of balancer_policy_test.cpp: per shard, its chunk count,
/// its data in chunk sizes (documents of about 1 KiB, with a 1 KiB chunk size, all in the
/// shard's first chunk), and whether it drains. Chunks are dealt as in [`generate`].
fn generate_sized(specs: &[(usize, usize, bool)]) -> Session {
    let counts: Vec<Spec> = specs.iter().map(|s| (s.0, NONE)).collect();
    let mut s = generate("8.0", &counts);
    run(&mut s, "sim.chunkSize(1024)");
    let mut first = 0;
    for (units, chunks) in specs.iter().map(|s| (s.1, s.0)) {
        if units > 0 {
            run(
                &mut s,
                &format!(
                    "db.c.insertMany(Array.from({{length: {units}}}, (_, j) => ({{x: {first} + j / 1000, s: 'X'.repeat(990)}})))"
                ),
            );
        }
        first += chunks;
    }
    let draining: Vec<usize> = (0..specs.len()).filter(|&k| specs[k].2).collect();
    drain(&mut s, &draining);
    s
}

// balancer_policy_test.cpp (7.0/8.0, balancing by data size): Basic, BasicWithManyChunks,
// SmallSingleChunkShouldNotMove, BalanceThresholdObeyed, ParallelBalancing,
// ParallelBalancingDoesNotMoveDataFromShardsBelowIdealZoneSize.
#[test]
fn the_80_policy_cases_of_balancer_policy_test() {
    let mut s = generate_sized(&[(4, 4, false), (0, 0, false), (3, 3, false)]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
    // The donor is the shard with the most data, not the most chunks.
    let mut s = generate_sized(&[(10, 1, false), (2, 3, false), (20, 0, false)]);
    assert_eq!(round(&mut s), ["shard02 -> shard03 @ 10"]);
    let mut s = generate_sized(&[(1, 1, false), (0, 0, false)]);
    assert!(round(&mut s).is_empty());
    let mut s = generate_sized(&[(2, 2, false), (2, 2, false), (1, 1, false), (1, 1, false)]);
    assert!(round(&mut s).is_empty());
    let mut s = generate_sized(&[(4, 4, false), (4, 4, false), (0, 0, false), (0, 0, false)]);
    assert_eq!(
        round(&mut s),
        ["shard01 -> shard03 @ MinKey", "shard02 -> shard04 @ 4"]
    );
    // Ideal 135 / 4: shard02's 30 are under it, so only shard01 gives.
    let mut s = generate_sized(&[
        (1, 100, false),
        (1, 30, false),
        (1, 5, false),
        (1, 0, false),
    ]);
    assert_eq!(round(&mut s), ["shard01 -> shard04 @ MinKey"]);
}

// balancer_policy_test.cpp (7.0/8.0): DrainingFromShardWithFewData, DrainingSingleChunk.
#[test]
fn the_80_policy_drains_whatever_the_data_sizes() {
    let mut s = generate_sized(&[(1, 20, false), (1, 1, true)]);
    assert_eq!(round(&mut s), ["shard02 -> shard01 @ 1"]);
    let mut s = generate_sized(&[(1, 2, true), (5, 0, false)]);
    assert_eq!(round(&mut s), ["shard01 -> shard02 @ MinKey"]);
}

/// jstests/sharding/merge_all_chunks_on_shard.js, `buildInitialScenario`: `test.c` cut at
/// 0 to 9, with [1, 3) and [7, 10) moved to shard02 (8.0 mode, balancer stopped).
fn merge_scenario() -> Session {
    let mut s = Session::default();
    let mut script = String::from(
        "sim.reset({shards: 2, version: '8.0'})\nsh.stopBalancer()\nsh.shardCollection('test.c', {x: 1})\n",
    );
    for i in 0..10 {
        script.push_str(&format!("sh.splitAt('test.c', {{x: {i}}})\n"));
    }
    for (lo, hi) in [(1, 2), (2, 3), (7, 8), (8, 9), (9, 10)] {
        script.push_str(&format!(
            "db.adminCommand({{moveRange: 'test.c', min: {{x: {lo}}}, max: {{x: {hi}}}, toShard: 'shard02'}})\n"
        ));
    }
    run(&mut s, &script);
    s
}

/// The chunks of `shard` as `[min, max)` pairs of `x`.
fn ranges_on(s: &mut Session, shard: &str) -> String {
    answer(
        s,
        &format!(
            "db.getSiblingDB('config').chunks.find({{shard: '{shard}'}}).toArray().map(c => [c.min.x, c.max.x])"
        ),
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ")
}

// jstests/sharding/merge_all_chunks_on_shard.js, mergeAllChunksOnShardTest and
// mergeAllChunksOnShardConsideringHistoryWindowTest; sharding_catalog_manager_chunk_operations.cpp
// (`commitMergeAllChunksOnShard`): runs of adjacent chunks that came to the shard before
// the history window (300 s) merge; younger ones stay.
#[test]
fn merge_all_chunks_on_shard_merges_the_old_runs() {
    let mut s = merge_scenario();
    let merge = |s: &mut Session, shard: &str| {
        answer(
            s,
            &format!("db.adminCommand({{mergeAllChunksOnShard: 'test.c', shard: '{shard}'}})"),
        )
    };
    // Inside the history window nothing merges.
    assert_eq!(merge(&mut s, "shard01"), "{ ok: 1 }");
    assert_eq!(
        answer(
            &mut s,
            "db.getSiblingDB('config').chunks.countDocuments({})"
        ),
        "12"
    );
    run(&mut s, "sleep(301000)");
    assert_eq!(merge(&mut s, "shard01"), "{ ok: 1 }");
    assert_eq!(
        ranges_on(&mut s, "shard01"),
        "[ [ MinKey(), 1 ], [ 3, 7 ], [ 10, MaxKey() ] ]"
    );
    assert_eq!(merge(&mut s, "shard02"), "{ ok: 1 }");
    assert_eq!(ranges_on(&mut s, "shard02"), "[ [ 1, 3 ], [ 7, 10 ] ]");
    // Chunks moved back are inside the window again: they stay apart.
    run(
        &mut s,
        "db.adminCommand({moveRange: 'test.c', min: {x: 1}, max: {x: 3}, toShard: 'shard01'})",
    );
    assert_eq!(merge(&mut s, "shard01"), "{ ok: 1 }");
    assert_eq!(
        ranges_on(&mut s, "shard01"),
        "[ [ MinKey(), 1 ], [ 1, 3 ], [ 3, 7 ], [ 10, MaxKey() ] ]"
    );
}

// jstests/sharding/merge_all_chunks_on_shard.js, mergeAllChunksWithMaxNumberOfChunksTest:
// with `maxNumberOfChunksToMerge: 2`, each command merges two chunks, so 11 chunks on one
// shard go down one at a time.
#[test]
fn merge_all_chunks_on_shard_honours_its_maximum() {
    let mut s = Session::default();
    let mut script = String::from(
        "sim.reset({shards: 2, version: '8.0'})\nsh.stopBalancer()\nsh.shardCollection('test.c', {x: 1})\n",
    );
    for i in 0..10 {
        script.push_str(&format!("sh.splitAt('test.c', {{x: {i}}})\n"));
    }
    script.push_str("sleep(301000)");
    run(&mut s, &script);
    for left in (1..=10).rev() {
        run(
            &mut s,
            "db.adminCommand({mergeAllChunksOnShard: 'test.c', shard: 'shard01', maxNumberOfChunksToMerge: NumberInt(2)})",
        );
        assert_eq!(
            answer(
                &mut s,
                "db.getSiblingDB('config').chunks.countDocuments({})"
            ),
            left.to_string()
        );
    }
}

// cluster_merge_all_chunks_on_shard_cmd.cpp (7.0 on): the shard is looked up first
// (`ShardRegistry::getShard`); the IDL requires `shard`; an unsharded namespace is refused
// by the config server (`getCollectionAndVersion`); 3.6 and 5.0 have no such command.
#[test]
fn merge_all_chunks_on_shard_refuses_as_mongodb_does() {
    let mut s = merge_scenario();
    for (cmd, expected) in [
        (
            "{mergeAllChunksOnShard: 'test.c', shard: 'shard09'}",
            "ShardNotFound: Shard shard09 not found",
        ),
        (
            "{mergeAllChunksOnShard: 'test.nope', shard: 'shard01'}",
            "ConflictingOperationInProgress: Sharded collection 'test.nope' no longer exists",
        ),
        (
            "{mergeAllChunksOnShard: 'test.c'}",
            "Location40414: BSON field 'mergeAllChunksOnShard.shard' is missing but a required field",
        ),
    ] {
        assert_eq!(
            answer(&mut s, &format!("db.adminCommand({cmd})")),
            expected
        );
    }
    run(&mut s, "sim.reset({shards: 2, version: '5.0'})");
    assert_eq!(
        answer(
            &mut s,
            "db.adminCommand({mergeAllChunksOnShard: 'test.c', shard: 'shard01'})"
        ),
        "CommandNotFound: no such cmd: mergeAllChunksOnShard"
    );
}

// Chunk size and auto-split per era: 64 MB and auto-split up to 5.0 (chunk_splitter.cpp
// runs on inserts); 128 MB from 6.0 (`BalancerConfiguration::kDefaultMaxChunkSizeBytes`),
// where nothing splits on inserts (6.0.3 removed the auto-splitter) and the balancer
// moves ranges instead.
#[test]
fn chunk_size_and_auto_split_follow_the_era() {
    for (version, default_mb, splits) in [("3.6", 64, true), ("5.0", 64, true), ("8.0", 128, false)]
    {
        let mut s = Session::default();
        run(
            &mut s,
            &format!("sim.reset({{shards: 2, version: '{version}'}})\nsh.shardCollection('test.c', {{x: 1}})"),
        );
        if version == "8.0" {
            let status = answer(&mut s, "sh.balancerCollectionStatus('test.c')");
            assert!(
                status.starts_with(&format!("{{ chunkSize: {default_mb},")),
                "{status}"
            );
        }
        assert_eq!(
            answer(&mut s, "sim.chunkSize()"),
            format!("{{ chunkSize: {}, ok: 1 }}", default_mb * 1024 * 1024)
        );
        run(
            &mut s,
            "sim.chunkSize(8192)\n\
             db.c.insertMany(Array.from({length: 300}, (_, i) => ({x: i, pad: 'p'.repeat(100)})))",
        );
        let chunks: u64 = answer(
            &mut s,
            "db.getSiblingDB('config').chunks.countDocuments({})",
        )
        .parse()
        .unwrap();
        assert_eq!(chunks > 1, splits, "{version}: {chunks} chunks");
    }
}

// The top-chunk move after an auto-split: 4.4/5.0's chunk_splitter.cpp moves the piece the
// top-chunk rule cut (`topChunkMinKey`) whatever it holds; 3.6's mongos moves what the
// shard's splitChunk suggests (split_chunk.cpp, `checkIfSingleDoc`): a piece of a single
// document only. Here the largest key value, 1000, has two documents.
#[test]
fn the_top_chunk_moves_after_an_auto_split_as_each_era_decides() {
    for (version, top_on) in [("3.6", "shard01"), ("5.0", "shard02")] {
        let mut s = Session::default();
        run(
            &mut s,
            &format!(
                "sim.reset({{shards: 2, version: '{version}', chunkSize: 8192}})\n\
                 sh.shardCollection('test.c', {{x: 1}})\n\
                 sh.splitAt('test.c', {{x: 0}})\n\
                 db.c.insertMany([{{x: 1000, pad: 'p'.repeat(100)}}, {{x: 1000, pad: 'p'.repeat(100)}}])\n\
                 db.c.insertMany(Array.from({{length: 200}}, (_, i) => ({{x: i, pad: 'p'.repeat(100)}})))"
            ),
        );
        let top = answer(
            &mut s,
            "db.getSiblingDB('config').chunks.findOne({min: {x: 1000}}).shard",
        );
        assert_eq!(top, top_on, "{version}");
    }
}
