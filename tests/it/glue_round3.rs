//! Round three's pieces joined up as MongoDB joins them: the config layout's times read
//! from the simulated clock, the AutoMerger's settings in `config.settings` and
//! `config.collections`, the AutoMerger running on the clock beside the balancer (8.0
//! mode), and mongos's database list with `admin` and `config`. Each test names the
//! MongoDB or mongosh source file its answers come from.
#![allow(clippy::unwrap_used)]

use expect_test::{expect, Expect};
use shardlab::Session;

/// Runs `script` in a new session and returns every statement with what the shell printed
/// (`> statement`, then the answer), checking the cluster's invariants at the end.
fn transcript(script: &str) -> String {
    super::transcripts::of(script, EVERY_OK)
}

/// Every statement shown, and every one must succeed.
const EVERY_OK: super::transcripts::Shape = super::transcripts::Shape {
    every_statement: true,
    all_ok: true,
    cut: false,
};

fn check(script: &str, expected: Expect) {
    expected.assert_eq(&transcript(script));
}

/// Runs `setup` quietly, then `script` as [`transcript`] shows it.
fn check_after(setup: &str, script: &str, expected: Expect) {
    let mut session = Session::default();
    for o in session.run(setup) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let out = super::transcripts::write(&mut session, script, EVERY_OK);
    session.cluster.check().unwrap();
    expected.assert_eq(&out);
}

/// Runs `script` and returns what its last statement printed.
fn last(script: &str) -> String {
    let mut session = Session::default();
    let outcomes = session.run(script);
    for o in &outcomes {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    session.cluster.check().unwrap();
    outcomes.last().and_then(|o| o.render()).unwrap_or_default()
}

/// `test.c` on `{x: 1}` in `version` with two shards: 300 documents, split at 50, 100,
/// 150 and 200, and `[100, 150)` moved to shard02, so that shard01 holds two runs of
/// adjacent chunks, `[MinKey, 100)` and `[150, MaxKey)`.
pub(crate) fn split_up(version: &str) -> String {
    format!(
        "sim.reset({{shards: 2, version: '{version}'}})\n\
         sh.shardCollection('test.c', {{x: 1}})\n\
         sim.generate('test.c', {{x: 'increasing'}}, 300)\n\
         sh.splitAt('test.c', {{x: 50}})\n\
         sh.splitAt('test.c', {{x: 100}})\n\
         sh.splitAt('test.c', {{x: 150}})\n\
         sh.splitAt('test.c', {{x: 200}})\n\
         sh.moveChunk('test.c', {{x: 120}}, 'shard02')\n"
    )
}

const COUNT_CHUNKS: &str = "db.getSiblingDB('config').chunks.countDocuments({})";

// config.changelog's `time` (type_changelog.cpp, written by ShardingLogging::logChange
// with the config server's clock) and a chunk's `onCurrentShardSince` and
// `history[].validAfter` (type_chunk.cpp, the cluster time of the commit in
// sharding_catalog_manager_chunk_operations.cpp) are the times things happened: here the
// simulated clock's, two events of one second told apart by the timestamp's increment.
#[test]
fn changelog_times_and_chunk_history_read_the_simulated_clock() {
    check(
        "sim.reset({shards: 2, version: '8.0'})\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sleep(5000)\n\
         sh.splitAt('test.c', {x: 10})\n\
         sleep(60000)\n\
         sh.moveChunk('test.c', {x: 10}, 'shard02')\n\
         db.getSiblingDB('config').changelog.find({}, {_id: 0, time: 1, what: 1})\n\
         db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, onCurrentShardSince: 1, history: 1})\n\
         db.getSiblingDB('config').collections.find({}, {_id: 0, lastmod: 1, timestamp: 1})",
        expect![[r#"
            > sim.reset({shards: 2, version: '8.0'})
            { ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sleep(5000)
            > sh.splitAt('test.c', {x: 10})
            { ok: 1 }
            > sleep(60000)
            > sh.moveChunk('test.c', {x: 10}, 'shard02')
            { millis: 0, ok: 1 }
            > db.getSiblingDB('config').changelog.find({}, {_id: 0, time: 1, what: 1})
            [
              {
                time: ISODate('2025-01-01T00:00:00.001Z'),
                what: 'shardCollection.start'
              },
              {
                time: ISODate('2025-01-01T00:00:00.001Z'),
                what: 'shardCollection.end'
              },
              { time: ISODate('2025-01-01T00:00:05.003Z'), what: 'split' },
              {
                time: ISODate('2025-01-01T00:01:05.005Z'),
                what: 'moveChunk.start'
              },
              { time: ISODate('2025-01-01T00:01:05.005Z'), what: 'moveChunk.to' },
              {
                time: ISODate('2025-01-01T00:01:05.005Z'),
                what: 'moveChunk.commit'
              },
              { time: ISODate('2025-01-01T00:01:05.005Z'), what: 'moveChunk.from' }
            ]
            > db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, onCurrentShardSince: 1, history: 1})
            [
              {
                min: { x: MinKey() },
                onCurrentShardSince: Timestamp({ t: 1735689600, i: 2 }),
                history: [
                  {
                    validAfter: Timestamp({ t: 1735689600, i: 2 }),
                    shard: 'shard01'
                  }
                ]
              },
              {
                min: { x: 10 },
                onCurrentShardSince: Timestamp({ t: 1735689665, i: 2 }),
                history: [
                  {
                    validAfter: Timestamp({ t: 1735689665, i: 2 }),
                    shard: 'shard02'
                  },
                  {
                    validAfter: Timestamp({ t: 1735689600, i: 2 }),
                    shard: 'shard01'
                  }
                ]
              }
            ]
            > db.getSiblingDB('config').collections.find({}, {_id: 0, lastmod: 1, timestamp: 1})
            [
              {
                lastmod: ISODate('2025-01-01T00:00:00.001Z'),
                timestamp: Timestamp({ t: 1735689600, i: 2 })
              }
            ]
        "#]],
    );
}

// The same commands reach the same times, so the config layout stays deterministic.
#[test]
fn the_config_layout_is_the_same_on_every_run() {
    let script = format!(
        "{}sleep(3610000)\n\
         db.getSiblingDB('config').changelog.find()\n\
         db.getSiblingDB('config').chunks.find()",
        split_up("8.0")
    );
    assert_eq!(transcript(&script), transcript(&script));
}

// mongosh's sh.startAutoMerger()/stopAutoMerger() upsert {_id: 'automerge'} in
// config.settings and disableAutoMerger/enableAutoMerger set or unset enableAutoMerge in
// config.collections (packages/shell-api/src/shard.ts); configureCollectionBalancing sets
// maxChunkSizeBytes as a long and enableAutoMerge, and chunkSize 0 unsets the size
// (ShardingCatalogManager::configureCollectionBalancing,
// sharding_catalog_manager_collection_operations.cpp; the fields of
// src/mongo/s/catalog/type_collection.idl).
#[test]
fn settings_and_collections_show_what_the_auto_merger_helpers_wrote() {
    let coll = "db.getSiblingDB('config').collections.find({}, {_id: 0, key: 1, noBalance: 1, maxChunkSizeBytes: 1, enableAutoMerge: 1})";
    let settings = "db.getSiblingDB('config').settings.find()";
    check(
        &format!(
            "sim.reset({{shards: 2, version: '8.0'}})\n\
             sh.shardCollection('test.c', {{x: 1}})\n\
             {settings}\n\
             sh.stopAutoMerger()\n\
             {settings}\n\
             db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: 64, enableAutoMerger: false}})\n\
             {coll}\n\
             sh.enableAutoMerger('test.c')\n\
             db.adminCommand({{configureCollectionBalancing: 'test.c', chunkSize: 0}})\n\
             {coll}\n\
             sh.disableAutoMerger('test.c')\n\
             sh.startAutoMerger()\n\
             {coll}\n\
             {settings}"
        ),
        expect![[r#"
            > sim.reset({shards: 2, version: '8.0'})
            { ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > db.getSiblingDB('config').settings.find()
            > sh.stopAutoMerger()
            {
              acknowledged: true,
              insertedId: 'automerge',
              matchedCount: 0,
              modifiedCount: 0,
              upsertedCount: 1
            }
            > db.getSiblingDB('config').settings.find()
            [ { _id: 'automerge', enabled: false } ]
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 64, enableAutoMerger: false})
            { ok: 1 }
            > db.getSiblingDB('config').collections.find({}, {_id: 0, key: 1, noBalance: 1, maxChunkSizeBytes: 1, enableAutoMerge: 1})
            [
              {
                key: { x: 1 },
                noBalance: false,
                maxChunkSizeBytes: Long('67108864'),
                enableAutoMerge: false
              }
            ]
            > sh.enableAutoMerger('test.c')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > db.adminCommand({configureCollectionBalancing: 'test.c', chunkSize: 0})
            { ok: 1 }
            > db.getSiblingDB('config').collections.find({}, {_id: 0, key: 1, noBalance: 1, maxChunkSizeBytes: 1, enableAutoMerge: 1})
            [ { key: { x: 1 }, noBalance: false } ]
            > sh.disableAutoMerger('test.c')
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > sh.startAutoMerger()
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > db.getSiblingDB('config').collections.find({}, {_id: 0, key: 1, noBalance: 1, maxChunkSizeBytes: 1, enableAutoMerge: 1})
            [ { key: { x: 1 }, noBalance: false, enableAutoMerge: false } ]
            > db.getSiblingDB('config').settings.find()
            [ { _id: 'automerge', enabled: true } ]
        "#]],
    );
}

// The AutoMerger (auto_merger_policy.cpp) starts a round when the balancer's round finds
// its interval timer's whole seconds past autoMergerIntervalSecs (3,600) since the last
// round began (_checkInternalUpdatesWithLock, called from Balancer::_mainThread in
// balancer.cpp): the cluster's began with the balancer's idle round at the start, so an
// hour of sleep is not yet enough, and the balancer's round at 3,610 s is the first that
// starts one. Each mergeAllChunksOnShard (commitMergeAllChunksOnShard in
// sharding_catalog_manager_chunk_operations.cpp) merges each run of adjacent chunks of
// the shard into one, with the next minor version and the run's latest
// onCurrentShardSince, and logs a `merge` (logMergeToChangelog).
#[test]
fn the_auto_merger_merges_each_shards_adjacent_chunks_after_its_interval() {
    check_after(
        &split_up("8.0"),
        &format!(
            "{COUNT_CHUNKS}\n\
             sleep(3600000)\n\
             {COUNT_CHUNKS}\n\
             sleep(10000)\n\
             db.getSiblingDB('config').chunks.find({{}}, {{_id: 0, min: 1, max: 1, shard: 1, lastmod: 1, onCurrentShardSince: 1}})\n\
             db.getSiblingDB('config').changelog.find({{what: 'merge'}}, {{_id: 0, time: 1, what: 1, details: 1}})\n\
             sim.events(2)"
        ),
        expect![[r#"
            > db.getSiblingDB('config').chunks.countDocuments({})
            5
            > sleep(3600000)
            > db.getSiblingDB('config').chunks.countDocuments({})
            5
            > sleep(10000)
            > db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, max: 1, shard: 1, lastmod: 1, onCurrentShardSince: 1})
            [
              {
                min: { x: MinKey() },
                max: { x: 100 },
                shard: 'shard01',
                lastmod: Timestamp({ t: 2, i: 2 }),
                onCurrentShardSince: Timestamp({ t: 1735689600, i: 2 })
              },
              {
                min: { x: 100 },
                max: { x: 150 },
                shard: 'shard02',
                lastmod: Timestamp({ t: 2, i: 0 }),
                onCurrentShardSince: Timestamp({ t: 1735689600, i: 9 })
              },
              {
                min: { x: 150 },
                max: { x: MaxKey() },
                shard: 'shard01',
                lastmod: Timestamp({ t: 2, i: 3 }),
                onCurrentShardSince: Timestamp({ t: 1735689600, i: 2 })
              }
            ]
            > db.getSiblingDB('config').changelog.find({what: 'merge'}, {_id: 0, time: 1, what: 1, details: 1})
            [
              {
                time: ISODate('2025-01-01T01:00:10.000Z'),
                what: 'merge',
                details: { owningShard: 'shard01', min: { x: MinKey() }, max: { x: 100 } }
              },
              {
                time: ISODate('2025-01-01T01:00:10.000Z'),
                what: 'merge',
                details: { owningShard: 'shard01', min: { x: 150 }, max: { x: MaxKey() } }
              }
            ]
            > sim.events(2)
            [
              {
                seq: Long('9'),
                time: ISODate('2025-01-01T01:00:10.000Z'),
                what: 'merge',
                details: 'test.c: merged into [{ MinKey }, { 100 })'
              },
              {
                seq: Long('10'),
                time: ISODate('2025-01-01T01:00:10.000Z'),
                what: 'merge',
                details: 'test.c: merged into [{ 150 }, { MaxKey })'
              }
            ]
        "#]],
    );
}

// A chunk merges only once it has been on its shard longer than the history window,
// max(minSnapshotHistoryWindowInSeconds 300, transactionLifetimeLimitSeconds 60, 10)
// (getHistoryWindowInSeconds, sharding_catalog_manager_chunk_operations.cpp): a chunk
// moved back 20 s before the round splits the run, and the next round, an hour later,
// merges it too.
#[test]
fn a_chunk_newer_than_the_history_window_waits_for_the_next_round() {
    check_after(
        &split_up("8.0"),
        "sleep(3590000)\n\
             sh.moveChunk('test.c', {x: 120}, 'shard01')\n\
             sleep(30000)\n\
             db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, max: 1, shard: 1})\n\
             sleep(3610000)\n\
             db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, max: 1, shard: 1})",
        expect![[r#"
            > sleep(3590000)
            > sh.moveChunk('test.c', {x: 120}, 'shard01')
            { millis: 0, ok: 1 }
            > sleep(30000)
            > db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, max: 1, shard: 1})
            [
              { min: { x: MinKey() }, max: { x: 100 }, shard: 'shard01' },
              { min: { x: 100 }, max: { x: 150 }, shard: 'shard01' },
              { min: { x: 150 }, max: { x: MaxKey() }, shard: 'shard01' }
            ]
            > sleep(3610000)
            > db.getSiblingDB('config').chunks.find({}, {_id: 0, min: 1, max: 1, shard: 1})
            [ { min: { x: MinKey() }, max: { x: MaxKey() }, shard: 'shard01' } ]
        "#]],
    );
}

// One mergeAllChunksOnShard merges at most AutoMergerPolicy::MAX_NUMBER_OF_CHUNKS_TO_MERGE
// (1,000) chunks (auto_merger_policy.h); a pair that merged something is taken again
// once the pass is through, autoMergerThrottlingMS (15 s) after the last action
// (Balancer::_consumeActionStreamLoop's applyThrottling).
#[test]
fn one_request_merges_at_most_a_thousand_chunks_and_the_rest_follow_15_s_later() {
    let mut setup = String::from(
        "sim.reset({shards: 1, version: '8.0'})\nsh.shardCollection('test.c', {x: 1})\n",
    );
    for x in 1..=1100 {
        setup.push_str(&format!("sh.splitAt('test.c', {{x: {x}}})\n"));
    }
    check_after(
        &setup,
        &format!(
            "{COUNT_CHUNKS}\n\
             sleep(3610000)\n\
             {COUNT_CHUNKS}\n\
             sleep(15000)\n\
             {COUNT_CHUNKS}\n\
             db.getSiblingDB('config').changelog.find({{what: 'merge'}}, {{_id: 0, time: 1, details: 1}})"
        ),
        expect![[r#"
            > db.getSiblingDB('config').chunks.countDocuments({})
            1101
            > sleep(3610000)
            > db.getSiblingDB('config').chunks.countDocuments({})
            102
            > sleep(15000)
            > db.getSiblingDB('config').chunks.countDocuments({})
            1
            > db.getSiblingDB('config').changelog.find({what: 'merge'}, {_id: 0, time: 1, details: 1})
            [
              {
                time: ISODate('2025-01-01T01:00:10.000Z'),
                details: { owningShard: 'shard01', min: { x: MinKey() }, max: { x: 1000 } }
              },
              {
                time: ISODate('2025-01-01T01:00:25.000Z'),
                details: {
                  owningShard: 'shard01',
                  min: { x: MinKey() },
                  max: { x: MaxKey() }
                }
              }
            ]
        "#]],
    );
}

// 3.6 and 5.0 have no AutoMerger (it came with 7.0: auto_merger_policy.cpp's
// feature_flags::gAutoMerger); in 8.0 it does not run while the balancer is off
// (Balancer::_mainThread disables it), while the `automerge` setting is off
// (shouldBalanceForAutoMerge), or for a collection with enableAutoMerge false (the
// policy's $match on config.collections).
#[test]
fn no_auto_merge_before_7_0_nor_while_it_is_switched_off() {
    let two_hours = format!("sleep(7300000)\n{COUNT_CHUNKS}");
    for version in ["3.6", "5.0"] {
        assert_eq!(
            last(&format!("{}{two_hours}", split_up(version))),
            "5",
            "{version}"
        );
    }
    for off in [
        "sh.stopBalancer()",
        "sh.stopAutoMerger()",
        "sh.disableAutoMerger('test.c')",
    ] {
        let script = format!("{}{off}\n{two_hours}", split_up("8.0"));
        assert_eq!(last(&script), "5", "{off}");
    }
    assert_eq!(last(&format!("{}{two_hours}", split_up("8.0"))), "3");
}

// Enabling the AutoMerger starts its round at once (AutoMergerPolicy::enable -> _init):
// after sh.startAutoMerger() the next balancer round, at most 10 s later, merges.
#[test]
fn starting_the_auto_merger_again_merges_at_the_next_balancer_round() {
    let script = format!(
        "{}sh.stopAutoMerger()\n\
         sleep(7300000)\n\
         sh.startAutoMerger()\n\
         sleep(10000)\n\
         {COUNT_CHUNKS}",
        split_up("8.0")
    );
    assert_eq!(last(&script), "3");
}

// The AutoMerger's rounds take no balancer rounds: numBalancerRounds counts the same
// over a long sleep with the AutoMerger as without it (balancer.cpp's _endRound counts
// the balancer's own loop only).
#[test]
fn the_auto_merger_leaves_the_balancer_rounds_as_they_were() {
    let rounds = |first: &str| {
        last(&format!(
            "{}{first}\nsleep(2147483647)\nsleep(2147483647)\n\
             db.adminCommand({{balancerStatus: 1}}).numBalancerRounds",
            split_up("8.0")
        ))
    };
    assert_eq!(
        rounds("sh.startAutoMerger()"),
        rounds("sh.stopAutoMerger()")
    );
    assert_eq!(rounds("sh.startAutoMerger()"), "Long('429496')");
}

// mongos lists admin and config from the config server and the other databases from the
// shards, in name order, with sizeOnDisk, empty and shards, then totalSize and
// totalSizeMb (src/mongo/s/commands/cluster_list_databases_cmd.cpp; 3.6 appends sizes
// with appendNumber, an int when it fits, later releases as the reply IDL's longs);
// mongosh's `show dbs` prints the names and sizes as a table (formatDatabases and
// formatBytes in packages/cli-repl/src/format-output.ts).
#[test]
fn show_dbs_and_list_databases_include_admin_and_config() {
    check(
        "sim.reset({shards: 2, version: '8.0'})\n\
         sh.shardCollection('test.c', {x: 1})\n\
         sim.generate('test.c', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 3000)\n\
         show dbs\n\
         db.adminCommand({listDatabases: 1})\n\
         db.adminCommand({listDatabases: 1, nameOnly: true})\n\
         db.adminCommand({listDatabases: 1, filter: {name: 'admin'}})\n\
         sim.reset({version: '3.6'})\n\
         db.adminCommand({listDatabases: 1})",
        expect![[r#"
            > sim.reset({shards: 2, version: '8.0'})
            { ok: 1 }
            > sh.shardCollection('test.c', {x: 1})
            { collectionsharded: 'test.c', ok: 1 }
            > sim.generate('test.c', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 3000)
            { ns: 'test.c', inserted: 3000, ok: 1 }
            > show dbs
            admin       59 B
            config  1.31 KiB
            test    2.97 MiB
            > db.adminCommand({listDatabases: 1})
            {
              databases: [
                {
                  name: 'admin',
                  sizeOnDisk: Long('59'),
                  empty: false,
                  shards: { config: Long('59') }
                },
                {
                  name: 'config',
                  sizeOnDisk: Long('1340'),
                  empty: false,
                  shards: { config: Long('1340') }
                },
                {
                  name: 'test',
                  sizeOnDisk: Long('3117000'),
                  empty: false,
                  shards: { shard01: Long('3117000') }
                }
              ],
              totalSize: Long('3118399'),
              totalSizeMb: Long('2'),
              ok: 1
            }
            > db.adminCommand({listDatabases: 1, nameOnly: true})
            {
              databases: [ { name: 'admin' }, { name: 'config' }, { name: 'test' } ],
              ok: 1
            }
            > db.adminCommand({listDatabases: 1, filter: {name: 'admin'}})
            {
              databases: [
                {
                  name: 'admin',
                  sizeOnDisk: Long('59'),
                  empty: false,
                  shards: { config: Long('59') }
                }
              ],
              totalSize: Long('59'),
              totalSizeMb: Long('0'),
              ok: 1
            }
            > sim.reset({version: '3.6'})
            { ok: 1 }
            > db.adminCommand({listDatabases: 1})
            {
              databases: [
                {
                  name: 'admin',
                  sizeOnDisk: 59,
                  empty: false,
                  shards: { config: 59 }
                },
                {
                  name: 'config',
                  sizeOnDisk: 255,
                  empty: false,
                  shards: { config: 255 }
                },
                {
                  name: 'test',
                  sizeOnDisk: 0,
                  empty: false,
                  shards: { shard01: 0 }
                }
              ],
              totalSize: 314,
              totalSizeMb: 0,
              ok: 1
            }
        "#]],
    );
}

// One long sleep takes every AutoMerger round that falls in it, an hour apart, as the
// balancer's rounds go on meanwhile: the chunk too new for the first round merges in the
// second.
#[test]
fn one_long_sleep_takes_every_auto_merger_round_in_it() {
    let script = format!(
        "{}sleep(3590000)\n\
         sh.moveChunk('test.c', {{x: 120}}, 'shard01')\n\
         sleep(2147483647)\n\
         {COUNT_CHUNKS}",
        split_up("8.0")
    );
    assert_eq!(last(&script), "1");
}
