//! One scenario per engine rule (spec §5-§9), driven through the shell and printed as a
//! transcript. Update with `UPDATE_EXPECT=1 cargo test --test it engine` and read the diff.
#![allow(clippy::unwrap_used)]

use expect_test::{expect, Expect};
use shardlab::Session;

/// Runs a script and prints each statement that printed something, with its result.
fn transcript(script: &str) -> String {
    let shape = super::transcripts::Shape {
        cut: true,
        ..Default::default()
    };
    super::transcripts::of(script, shape)
}

fn check(script: &str, expected: Expect) {
    expected.assert_eq(&transcript(script));
}

/// An `insertMany` of documents `{<field>: i, pad: <40 chars>}` for i in `range`.
fn insert(coll: &str, field: &str, values: impl IntoIterator<Item = i64>) -> String {
    let docs: Vec<String> = values
        .into_iter()
        .map(|i| format!("{{{field}: {i}, pad: 'pppppppppppppppppppppppppppppppppppppppp'}}"))
        .collect();
    format!("db.{coll}.insertMany([{}])", docs.join(", "))
}

/// The chunk table of `ns` as `[min, max) on shard (docs) version jumbo`, one per line.
fn chunks(session: &Session, ns: &str) -> String {
    let s = session.cluster.sharding(ns).unwrap();
    s.table
        .iter()
        .map(|c| {
            format!(
                "[{}, {}) {} docs={} v{}|{}{}\n",
                s.bound_string(&c.min),
                s.bound_string(&c.max),
                session.cluster.shard_name(c.shard),
                c.docs,
                c.version.major,
                c.version.minor,
                if c.jumbo { " jumbo" } else { "" }
            )
        })
        .collect()
}

fn run_and_chunks(script: &str, ns: &str) -> String {
    let mut session = Session::default();
    let mut errors = String::new();
    for o in session.run(script) {
        if let Err(e) = &o.result {
            errors.push_str(&format!("{e}\n"));
        }
    }
    session.cluster.check().unwrap();
    format!("{errors}{}", chunks(&session, ns))
}

#[test]
fn monotonic_inserts_split_at_the_top_and_move_the_new_top_chunk() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.events', {{ts: 1}})\n{}",
        insert("events", "ts", 0..60)
    );
    expect![[r#"
        [{ ts: MinKey() }, { ts: 1 }) shard02 docs=1 v2|0
        [{ ts: 1 }, { ts: 20 }) shard01 docs=19 v5|1
        [{ ts: 20 }, { ts: 35 }) shard03 docs=15 v4|1
        [{ ts: 35 }, { ts: 50 }) shard01 docs=15 v4|2
        [{ ts: 50 }, { ts: MaxKey() }) shard02 docs=10 v5|0
    "#]]
    .assert_eq(&run_and_chunks(&script, "test.events"));
}

#[test]
fn decreasing_inserts_pile_into_the_minkey_chunk() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.events', {{ts: 1}})\n{}",
        insert("events", "ts", (0..60).rev())
    );
    expect![[r#"
        [{ ts: MinKey() }, { ts: 13 }) shard01 docs=13 v4|0
        [{ ts: 13 }, { ts: 28 }) shard03 docs=15 v4|1
        [{ ts: 28 }, { ts: 43 }) shard02 docs=15 v3|1
        [{ ts: 43 }, { ts: MaxKey() }) shard01 docs=17 v2|1
    "#]]
    .assert_eq(&run_and_chunks(&script, "test.events"));
}

#[test]
fn a_chunk_of_one_key_value_turns_jumbo_and_the_balancer_skips_it() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.c', {{k: 1}})\n{}\nsim.balance()",
        insert("c", "k", std::iter::repeat_n(7, 40))
    );
    expect![[r#"
        [{ k: MinKey() }, { k: MaxKey() }) shard01 docs=40 v1|0 jumbo
    "#]]
    .assert_eq(&run_and_chunks(&script, "test.c"));
}

#[test]
fn hashed_keys_are_presplit_per_version() {
    check(
        r#"
        sh.shardCollection("test.h5", {_id: "hashed"})
        sh.status().databases
        "#,
        expect![[r#"
            > sh.shardCollection("test.h5", {_id: "hashed"})
            { collectionsharded: 'test.h5', ok: 1 }
            > sh.status().databases
            [
              {
                database: { _id: 'config', primary: 'config', partitioned: true },
                collections: {}
              },
              {
                database: {
                  _id: 'test',
                  primary: 'shard01',
                  partitioned: true,
                  version: {
                    uuid: UUID('d4b11706-1186-465c-aa83-b9c0daaef29a'),
                    timestamp: Timestamp({ t: 1735689600, i: 1 }),
                    lastMod: 1
                  }
                },
                collections: {
                  'test.h5': {
                    shardKey: { _id: 'hashed' },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 2 },
                      { shard: 'shard02', nChunks: 2 },
                      { shard: 'shard03', nChunks: 2 }
                    ],
                    chunks: [
                      {
                        min: { _id: MinKey() },
                        max: { _id: Long('-6148914691236517204') },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 0 })
                      },
                      {
                        min: { _id: Long('-6148914691236517204') },
                        max: { _id: Long('-3074457345618258602') },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 1 })
                      },
                      {
                        min: { _id: Long('-3074457345618258602') },
                        max: { _id: Long('0') },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 1, i: 2 })
                      },
                      {
                        min: { _id: Long('0') },
                        max: { _id: Long('3074457345618258602') },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 1, i: 3 })
                      },
                      {
                        min: { _id: Long('3074457345618258602') },
                        max: { _id: Long('6148914691236517204') },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 1, i: 4 })
                      },
                      {
                        min: { _id: Long('6148914691236517204') },
                        max: { _id: MaxKey() },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 1, i: 5 })
                      }
                    ],
                    tags: []
                  }
                }
              }
            ]
        "#]],
    );
    check(
        r#"
        sim.version("8.0")
        sh.shardCollection("test.h8", {_id: "hashed"})
        sh.shardCollection("test.n5", {_id: "hashed"}, false, {numInitialChunks: 5})
        sh.shardCollection("test.ch", {h: "hashed", a: 1})
        sh.status()
        "#,
        expect![[r#"
            > sim.version("8.0")
            { version: '8.0', ok: 1 }
            > sh.shardCollection("test.h8", {_id: "hashed"})
            { collectionsharded: 'test.h8', ok: 1 }
            > sh.shardCollection("test.n5", {_id: "hashed"}, false, {numInitialChunks: 5})
            { collectionsharded: 'test.n5', ok: 1 }
            > sh.shardCollection("test.ch", {h: "hashed", a: 1})
            { collectionsharded: 'test.ch', ok: 1 }
            > sh.status()
            shardingVersion
            { _id: 1, clusterId: ObjectId('658f00000000000000000001') }
            ---
            shards
            [
              {
                _id: 'shard01',
                host: 'shard01/localhost:27117',
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 }),
                replSetConfigVersion: Long('-1')
              },
              {
                _id: 'shard02',
                host: 'shard02/localhost:27217',
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 }),
                replSetConfigVersion: Long('-1')
              },
              {
                _id: 'shard03',
                host: 'shard03/localhost:27317',
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 }),
                replSetConfigVersion: Long('-1')
              }
            ]
            ---
            active mongoses
            [ { '8.0.4': 1 } ]
            ---
            autosplit
            { 'Currently enabled': 'yes' }
            ---
            balancer
            {
              'Currently enabled': 'yes',
              'Currently running': 'no',
              'Failed balancer rounds in last 5 attempts': 0,
              'Migration Results for the last 24 hours': 'No recent migrations'
            }
            ---
            shardedDataDistribution
            [
              {
                ns: 'test.ch',
                shards: [
                  {
                    shardName: 'shard01',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard02',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard03',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  }
                ]
              },
              {
                ns: 'test.h8',
                shards: [
                  {
                    shardName: 'shard01',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard02',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard03',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  }
                ]
              },
              {
                ns: 'test.n5',
                shards: [
                  {
                    shardName: 'shard01',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard02',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  },
                  {
                    shardName: 'shard03',
                    numOrphanedDocs: 0,
                    numOwnedDocuments: 0,
                    ownedSizeBytes: 0,
                    orphanedSizeBytes: 0
                  }
                ]
              }
            ]
            ---
            databases
            [
              {
                database: { _id: 'config', primary: 'config', partitioned: true },
                collections: {}
              },
              {
                database: {
                  _id: 'test',
                  primary: 'shard01',
                  version: {
                    uuid: UUID('d4b11706-1186-465c-aa83-b9c0daaef29a'),
                    timestamp: Timestamp({ t: 1735689600, i: 1 }),
                    lastMod: 1
                  }
                },
                collections: {
                  'test.ch': {
                    shardKey: { h: 'hashed', a: 1 },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 1 },
                      { shard: 'shard02', nChunks: 1 },
                      { shard: 'shard03', nChunks: 1 }
                    ],
                    chunks: [
                      {
                        min: { h: MinKey(), a: MinKey() },
                        max: { h: Long('-3074457345618258602'), a: MinKey() },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 0 })
                      },
                      {
                        min: { h: Long('-3074457345618258602'), a: MinKey() },
                        max: { h: Long('3074457345618258602'), a: MinKey() },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 1, i: 1 })
                      },
                      {
                        min: { h: Long('3074457345618258602'), a: MinKey() },
                        max: { h: MaxKey(), a: MaxKey() },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 1, i: 2 })
                      }
                    ],
                    tags: []
                  },
                  'test.h8': {
                    shardKey: { _id: 'hashed' },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 1 },
                      { shard: 'shard02', nChunks: 1 },
                      { shard: 'shard03', nChunks: 1 }
                    ],
                    chunks: [
                      {
                        min: { _id: MinKey() },
                        max: { _id: Long('-3074457345618258602') },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 0 })
                      },
                      {
                        min: { _id: Long('-3074457345618258602') },
                        max: { _id: Long('3074457345618258602') },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 1, i: 1 })
                      },
                      {
                        min: { _id: Long('3074457345618258602') },
                        max: { _id: MaxKey() },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 1, i: 2 })
                      }
                    ],
                    tags: []
                  },
                  'test.n5': {
                    shardKey: { _id: 'hashed' },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 1 },
                      { shard: 'shard02', nChunks: 1 },
                      { shard: 'shard03', nChunks: 1 }
                    ],
                    chunks: [
                      {
                        min: { _id: MinKey() },
                        max: { _id: Long('-3074457345618258602') },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 0 })
                      },
                      {
                        min: { _id: Long('-3074457345618258602') },
                        max: { _id: Long('3074457345618258602') },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 1, i: 1 })
                      },
                      {
                        min: { _id: Long('3074457345618258602') },
                        max: { _id: MaxKey() },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 1, i: 2 })
                      }
                    ],
                    tags: []
                  }
                }
              }
            ]
        "#]],
    );
}

#[test]
fn manual_split_move_merge_and_their_errors() {
    let script = format!(
        "{}\ndb.m.createIndex({{x: 1}})\nsh.shardCollection('test.m', {{x: 1}})\nsh.splitAt('test.m', {{x: 10}})\nsh.splitAt('test.m', {{x: 20}})\nsh.splitAt('test.m', {{x: 10}})\nsh.splitFind('test.m', {{x: 25}})\nsh.moveChunk('test.m', {{x: 15}}, 'shard02')\nsh.moveChunk('test.m', {{x: 15}}, 'shard02')\nsh.moveChunk('test.m', {{x: 15}}, 'shard09')\ndb.adminCommand({{mergeChunks: 'test.m', bounds: [{{x: 20}}, {{x: MaxKey}}]}})\ndb.adminCommand({{mergeChunks: 'test.m', bounds: [{{x: MinKey}}, {{x: 20}}]}})\ndb.adminCommand({{mergeChunks: 'test.m', bounds: [{{x: 20}}, {{x: 25}}]}})\ndb.adminCommand({{mergeChunks: 'test.m', bounds: [{{x: 5}}, {{x: 20}}]}})",
        insert("m", "x", 0..40)
    );
    expect![[r#"
        MongoServerError[UnknownError]: new split key { x: 10 } is a boundary key of existing chunk [{ x: 10 },{ x: 20 })
        MongoServerError[InvalidOptions]: Destination shard cannot be the same as source
        MongoServerError[ShardNotFound]: Could not move chunk in test.m to shard09 because that shard does not exist
        MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: MinKey }, { x: 20 })
        MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 20 }, { x: 25 })
        MongoServerError[IllegalOperation]: Failed to commit chunk merge :: caused by :: could not merge chunks, shard shard01 does not contain a sequence of chunks that exactly fills the range [{ x: 5 }, { x: 20 })
        [{ x: MinKey() }, { x: 10 }) shard01 docs=10 v2|1
        [{ x: 10 }, { x: 20 }) shard02 docs=10 v2|0
        [{ x: 20 }, { x: MaxKey() }) shard01 docs=20 v2|2
    "#]].assert_eq(&run_and_chunks(&script, "test.m"));
}

#[test]
fn the_50_balancer_moves_chunks_by_count_one_per_shard_per_round() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.stopBalancer()\nsh.shardCollection('test.b', {{x: 1}})\n{}\nsh.startBalancer()\nsim.balance()\nsim.balance()\nsim.balance()\nsim.balance()",
        insert("b", "x", (0..200).map(|i| (i * 7919) % 1000))
    );
    expect![[r#"
        [{ x: MinKey() }, { x: 28 }) shard02 docs=6 v2|0
        [{ x: 28 }, { x: 84 }) shard03 docs=11 v3|0
        [{ x: 84 }, { x: 140 }) shard02 docs=12 v4|0
        [{ x: 140 }, { x: 196 }) shard03 docs=11 v5|0
        [{ x: 196 }, { x: 271 }) shard01 docs=14 v5|1
        [{ x: 271 }, { x: 327 }) shard01 docs=11 v1|31
        [{ x: 327 }, { x: 380 }) shard01 docs=11 v1|32
        [{ x: 380 }, { x: 436 }) shard01 docs=11 v1|19
        [{ x: 436 }, { x: 514 }) shard01 docs=15 v1|20
        [{ x: 514 }, { x: 570 }) shard01 docs=11 v1|29
        [{ x: 570 }, { x: 623 }) shard01 docs=11 v1|30
        [{ x: 623 }, { x: 676 }) shard01 docs=10 v1|33
        [{ x: 676 }, { x: 732 }) shard01 docs=11 v1|34
        [{ x: 732 }, { x: 769 }) shard01 docs=9 v1|27
        [{ x: 769 }, { x: 838 }) shard01 docs=12 v1|28
        [{ x: 838 }, { x: 875 }) shard01 docs=9 v1|21
        [{ x: 875 }, { x: 947 }) shard01 docs=14 v1|22
        [{ x: 947 }, { x: MaxKey() }) shard01 docs=11 v1|4
    "#]]
    .assert_eq(&run_and_chunks(&script, "test.b"));
}

#[test]
fn the_80_balancer_moves_about_one_chunk_size_of_data_at_a_time() {
    let script = format!(
        "sim.version('8.0')\nsim.chunkSize(1024)\nsh.shardCollection('test.b', {{x: 1}})\n{}\nsim.balance()\nsim.balance()\nsim.balance()\ndb.b.getShardDistribution()",
        insert("b", "x", 0..200)
    );
    expect![[r#"
        Shard shard01 at shard01/localhost:27117
        {
          data: '12KiB',
          docs: 167,
          chunks: 1,
          'estimated data per chunk': '12KiB',
          'estimated docs per chunk': 167
        }
        ---
        Shard shard02 at shard02/localhost:27217
        {
          data: '1KiB',
          docs: 22,
          chunks: 2,
          'estimated data per chunk': '869B',
          'estimated docs per chunk': 11
        }
        ---
        Shard shard03 at shard03/localhost:27317
        {
          data: '869B',
          docs: 11,
          chunks: 1,
          'estimated data per chunk': '869B',
          'estimated docs per chunk': 11
        }
        ---
        Totals
        {
          data: '15KiB',
          docs: 200,
          chunks: 4,
          'Shard shard01': [
            '83.5 % data',
            '83.5 % docs in cluster',
            '79B avg obj size on shard'
          ],
          'Shard shard02': [ '11 % data', '11 % docs in cluster', '79B avg obj size on shard' ],
          'Shard shard03': [
            '5.5 % data',
            '5.5 % docs in cluster',
            '79B avg obj size on shard'
          ]
        }
        [{ x: MinKey() }, { x: 11 }) shard02 docs=11 v2|0
        [{ x: 11 }, { x: 22 }) shard03 docs=11 v3|0
        [{ x: 22 }, { x: 33 }) shard02 docs=11 v4|0
        [{ x: 33 }, { x: MaxKey() }) shard01 docs=167 v4|1
    "#]]
    .assert_eq(&transcript_tail(&script, "test.b"));
}

/// The transcript of the last statement plus the chunk table.
fn transcript_tail(script: &str, ns: &str) -> String {
    let mut session = Session::default();
    let outcomes = session.run(script);
    let errors: String = outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().err().map(|e| format!("{e}\n")))
        .collect();
    let last = outcomes.last().and_then(|o| o.render()).unwrap_or_default();
    session.cluster.check().unwrap();
    format!("{errors}{last}\n{}", chunks(&session, ns))
}

#[test]
fn the_36_balancer_waits_for_its_threshold() {
    let script = format!(
        "sim.version('3.6')\nsim.chunkSize(1024)\nsh.stopBalancer()\nsh.shardCollection('test.b', {{x: 1}})\n{}\nsh.startBalancer()\nsim.balance()\nsim.balance()",
        insert("b", "x", (0..120).map(|i| (i * 7919) % 1000))
    );
    expect![[r#"
        [{ x: MinKey() }, { x: 28 }) shard02 docs=4 v2|0
        [{ x: 28 }, { x: 140 }) shard03 docs=13 v3|0
        [{ x: 140 }, { x: 271 }) shard01 docs=14 v3|1
        [{ x: 271 }, { x: 380 }) shard01 docs=13 v1|11
        [{ x: 380 }, { x: 436 }) shard01 docs=7 v1|19
        [{ x: 436 }, { x: 514 }) shard01 docs=9 v1|20
        [{ x: 514 }, { x: 623 }) shard01 docs=14 v1|17
        [{ x: 623 }, { x: 732 }) shard01 docs=13 v1|18
        [{ x: 732 }, { x: 838 }) shard01 docs=13 v1|15
        [{ x: 838 }, { x: 947 }) shard01 docs=14 v1|16
        [{ x: 947 }, { x: MaxKey() }) shard01 docs=6 v1|4
    "#]]
    .assert_eq(&run_and_chunks(&script, "test.b"));
}

#[test]
fn zones_pull_their_chunks_and_refuse_overlaps() {
    check(
        r#"
        sh.shardCollection("test.z", {region: 1, id: 1})
        sh.addShardToZone("shard03", "EU")
        sh.updateZoneKeyRange("test.z", {region: "EU", id: MinKey}, {region: "EU", id: MaxKey}, "EU")
        sh.updateZoneKeyRange("test.z", {region: "EU", id: 5}, {region: "US", id: MinKey}, "EU")
        sh.updateZoneKeyRange("test.z", {region: "AA", id: MinKey}, {region: "AB", id: MinKey}, "ASIA")
        sh.removeShardFromZone("shard03", "EU")
        sim.balance()
        sh.balancerCollectionStatus("test.z")
        sh.status().databases
        "#,
        expect![[r#"
            > sh.shardCollection("test.z", {region: 1, id: 1})
            { collectionsharded: 'test.z', ok: 1 }
            > sh.addShardToZone("shard03", "EU")
            { ok: 1 }
            > sh.updateZoneKeyRange("test.z", {region: "EU", id: MinKey}, {region: "EU", id: MaxKey}, "EU")
            { ok: 1 }
            > sh.updateZoneKeyRange("test.z", {region: "EU", id: 5}, {region: "US", id: MinKey}, "EU")
            MongoServerError[RangeOverlapConflict]: Zone range: { region: "EU", id: 5 } -->> { region: "US", id: MinKey }  on  EU is overlapping with existing: { region: "EU", id: MinKey } -->> { region: "EU", id: MaxKey }  on  EU
            > sh.updateZoneKeyRange("test.z", {region: "AA", id: MinKey}, {region: "AB", id: MinKey}, "ASIA")
            MongoServerError[ZoneNotFound]: zone ASIA does not exist
            > sh.removeShardFromZone("shard03", "EU")
            MongoServerError[ZoneStillInUse]: cannot remove a shard from zone if a chunk range is associated with it
            > sim.balance()
            {
              migrations: [
                {
                  ns: 'test.z',
                  min: { region: 'EU', id: MinKey() },
                  max: { region: 'EU', id: MaxKey() },
                  from: 'shard01',
                  to: 'shard03'
                }
              ],
              ok: 1
            }
            > sh.balancerCollectionStatus("test.z")
            {
              balancerCompliant: false,
              firstComplianceViolation: 'chunksImbalance',
              ok: 1
            }
            > sh.status().databases
            [
              {
                database: { _id: 'config', primary: 'config', partitioned: true },
                collections: {}
              },
              {
                database: {
                  _id: 'test',
                  primary: 'shard01',
                  partitioned: true,
                  version: {
                    uuid: UUID('d4b11706-1186-465c-aa83-b9c0daaef29a'),
                    timestamp: Timestamp({ t: 1735689600, i: 1 }),
                    lastMod: 1
                  }
                },
                collections: {
                  'test.z': {
                    shardKey: { region: 1, id: 1 },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 2 },
                      { shard: 'shard03', nChunks: 1 }
                    ],
                    chunks: [
                      {
                        min: { region: MinKey(), id: MinKey() },
                        max: { region: 'EU', id: MinKey() },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 2, i: 1 })
                      },
                      {
                        min: { region: 'EU', id: MinKey() },
                        max: { region: 'EU', id: MaxKey() },
                        'on shard': 'shard03',
                        'last modified': Timestamp({ t: 2, i: 0 })
                      },
                      {
                        min: { region: 'EU', id: MaxKey() },
                        max: { region: MaxKey(), id: MaxKey() },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 1, i: 3 })
                      }
                    ],
                    tags: [
                      {
                        tag: 'EU',
                        min: { region: 'EU', id: MinKey() },
                        max: { region: 'EU', id: MaxKey() }
                      }
                    ]
                  }
                }
              }
            ]
        "#]],
    );
}

#[test]
fn refining_a_key_extends_the_bounds_and_lets_a_jumbo_chunk_split() {
    let docs: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "{{customer: 'acme', order: {i}, pad: 'pppppppppppppppppppppppppppppppppppppppp'}}"
            )
        })
        .collect();
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.o', {{customer: 1}})\ndb.o.insertMany([{}])\ndb.adminCommand({{refineCollectionShardKey: 'test.o', key: {{customer: 1, order: 1}}}})\ndb.o.createIndex({{customer: 1, order: 1}})\ndb.adminCommand({{refineCollectionShardKey: 'test.o', key: {{customer: 1, order: 1}}}})\ndb.adminCommand({{refineCollectionShardKey: 'test.o', key: {{order: 1}}}})\nsh.splitFind('test.o', {{customer: 'acme', order: 3}})",
        docs.join(", ")
    );
    expect![[r#"
        MongoServerError[InvalidOptions]: Please create an index that starts with the proposed shard key before refining the shard key of the collection
        MongoServerError[InvalidOptions]: refineCollectionShardKey shard key { order: 1 } does not extend the current shard key { customer: 1, order: 1 }
        [{ customer: MinKey(), order: MinKey() }, { customer: 'acme', order: 20 }) shard01 docs=20 v1|1
        [{ customer: 'acme', order: 20 }, { customer: MaxKey(), order: MaxKey() }) shard01 docs=20 v1|2
    "#]].assert_eq(&run_and_chunks(&script, "test.o"));
}

#[test]
fn resharding_redistributes_every_document() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.r', {{x: 1}})\n{}\nsh.reshardCollection('test.r', {{pad: 1, x: 1}})\ndb.r.countDocuments({{}})",
        insert("r", "x", 0..50)
    );
    expect![[r#"
        [{ pad: MinKey(), x: MinKey() }, { pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 12 }) shard01 docs=12 v1|0
        [{ pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 12 }, { pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 25 }) shard02 docs=13 v1|1
        [{ pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 25 }, { pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 37 }) shard03 docs=12 v1|2
        [{ pad: 'pppppppppppppppppppppppppppppppppppppppp', x: 37 }, { pad: MaxKey(), x: MaxKey() }) shard01 docs=13 v1|3
    "#]].assert_eq(&run_and_chunks(&script, "test.r"));
}

#[test]
fn shard_key_updates_move_documents_only_with_the_full_key() {
    check(
        r#"
        sh.shardCollection("test.u", {x: 1})
        sh.splitAt("test.u", {x: 100})
        sh.moveChunk("test.u", {x: 150}, "shard02")
        db.u.insertOne({_id: 1, x: 5})
        db.u.updateOne({_id: 1}, {$set: {x: 150}})
        db.u.updateOne({x: 5}, {$set: {x: 150}})
        db.u.find({x: 150}).explain().queryPlanner.winningPlan.shards
        db.u.updateMany({x: {$gt: 0}}, {$set: {x: 7}})
        db.u.updateMany({x: 150}, {$set: {x: 7}})
        db.u.updateOne({x: 150}, {$set: {_id: 2}})
        db.u.find()
        "#,
        expect![[r#"
            > sh.shardCollection("test.u", {x: 1})
            { collectionsharded: 'test.u', ok: 1 }
            > sh.splitAt("test.u", {x: 100})
            { ok: 1 }
            > sh.moveChunk("test.u", {x: 150}, "shard02")
            { millis: 0, ok: 1 }
            > db.u.insertOne({_id: 1, x: 5})
            { acknowledged: true, insertedId: 1 }
            > db.u.updateOne({_id: 1}, {$set: {x: 150}})
            MongoServerError: Shard key update is not allowed without specifying the full shard key in the query
            > db.u.updateOne({x: 5}, {$set: {x: 150}})
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > db.u.find({x: 150}).explain().queryPlanner.winningPlan.shards
            [
              {
                shardName: 'shard02',
                connectionString: 'shard02/localhost:27217',
                namespace: 'test.u',
                indexFilterSet: false,
                parsedQuery: { x: { '$eq': 150 } },
                winningPlan: {
                  stage: 'FETCH',
                  inputStage: {
                    stage: 'IXSCAN',
                    keyPattern: { x: 1 },
                    indexName: 'x_1',
                    isMultiKey: false,
                    multiKeyPaths: { x: [] },
                    isUnique: false,
                    isSparse: false,
                    isPartial: false,
                    indexVersion: 2,
                    direction: 'forward',
                    indexBounds: { x: [ '[150, 150]' ] }
                  }
                },
                rejectedPlans: []
              }
            ]
            > db.u.updateMany({x: {$gt: 0}}, {$set: {x: 7}})
            MongoServerError: Shard key update is not allowed without specifying the full shard key in the query
            > db.u.updateMany({x: 150}, {$set: {x: 7}})
            MongoServerError: Multi-update operations are not allowed when updating the shard key field.
            > db.u.updateOne({x: 150}, {$set: {_id: 2}})
            MongoServerError: Performing an update on the path '_id' would modify the immutable field '_id'
            > db.u.find()
            [ { _id: 1, x: 150 } ]
        "#]],
    );
}

#[test]
fn unique_keys_are_cluster_wide_but_id_is_unique_only_per_shard() {
    check(
        r#"
        sh.shardCollection("test.q", {x: 1}, true)
        db.q.insertOne({_id: 1, x: 1})
        db.q.insertOne({_id: 2, x: 1})
        sh.shardCollection("test.p", {x: 1})
        sh.splitAt("test.p", {x: 100})
        sh.moveChunk("test.p", {x: 150}, "shard02")
        db.p.insertOne({_id: 1, x: 1})
        db.p.insertOne({_id: 1, x: 2})
        db.p.insertOne({_id: 1, x: 150})
        db.p.find({_id: 1})
        "#,
        expect![[r#"
            > sh.shardCollection("test.q", {x: 1}, true)
            { collectionsharded: 'test.q', ok: 1 }
            > db.q.insertOne({_id: 1, x: 1})
            { acknowledged: true, insertedId: 1 }
            > db.q.insertOne({_id: 2, x: 1})
            MongoServerError: E11000 duplicate key error collection: test.q index: x_1 dup key: { x: 1 }
            > sh.shardCollection("test.p", {x: 1})
            { collectionsharded: 'test.p', ok: 1 }
            > sh.splitAt("test.p", {x: 100})
            { ok: 1 }
            > sh.moveChunk("test.p", {x: 150}, "shard02")
            { millis: 0, ok: 1 }
            > db.p.insertOne({_id: 1, x: 1})
            { acknowledged: true, insertedId: 1 }
            > db.p.insertOne({_id: 1, x: 2})
            MongoServerError: E11000 duplicate key error collection: test.p index: _id_ dup key: { _id: 1 }
            > db.p.insertOne({_id: 1, x: 150})
            { acknowledged: true, insertedId: 1 }
            > db.p.find({_id: 1})
            [ { _id: 1, x: 1 }, { _id: 1, x: 150 } ]
        "#]],
    );
}

#[test]
fn queries_target_one_shard_or_scatter() {
    check(
        r#"
        sh.shardCollection("test.t", {a: 1, b: 1})
        sh.splitAt("test.t", {a: 10, b: MinKey})
        sh.splitAt("test.t", {a: 20, b: MinKey})
        sh.moveChunk("test.t", {a: 15, b: 1}, "shard02")
        sh.moveChunk("test.t", {a: 25, b: 1}, "shard03")
        db.t.find({a: 15, b: 3}).explain().queryPlanner.winningPlan.stage
        db.t.find({a: 15}).explain().queryPlanner.winningPlan.stage
        db.t.find({a: {$in: [5, 25]}}).explain().queryPlanner.winningPlan.shards.length
        db.t.find({b: 3}).explain().queryPlanner.winningPlan.stage
        db.t.find({a: {$gte: 12, $lt: 18}}).explain().queryPlanner.winningPlan.stage
        db.t.find({a: null}).explain().queryPlanner.winningPlan.stage
        "#,
        expect![[r#"
            > sh.shardCollection("test.t", {a: 1, b: 1})
            { collectionsharded: 'test.t', ok: 1 }
            > sh.splitAt("test.t", {a: 10, b: MinKey})
            { ok: 1 }
            > sh.splitAt("test.t", {a: 20, b: MinKey})
            { ok: 1 }
            > sh.moveChunk("test.t", {a: 15, b: 1}, "shard02")
            { millis: 0, ok: 1 }
            > sh.moveChunk("test.t", {a: 25, b: 1}, "shard03")
            { millis: 0, ok: 1 }
            > db.t.find({a: 15, b: 3}).explain().queryPlanner.winningPlan.stage
            SINGLE_SHARD
            > db.t.find({a: 15}).explain().queryPlanner.winningPlan.stage
            SINGLE_SHARD
            > db.t.find({a: {$in: [5, 25]}}).explain().queryPlanner.winningPlan.shards.length
            2
            > db.t.find({b: 3}).explain().queryPlanner.winningPlan.stage
            SHARD_MERGE
            > db.t.find({a: {$gte: 12, $lt: 18}}).explain().queryPlanner.winningPlan.stage
            SINGLE_SHARD
            > db.t.find({a: null}).explain().queryPlanner.winningPlan.stage
            SINGLE_SHARD
        "#]],
    );
}

#[test]
fn removing_a_shard_drains_it_first() {
    let script = format!(
        "sim.chunkSize(1024)\nsh.shardCollection('test.d', {{x: 1}})\n{}\nsim.balance()\ndb.adminCommand({{removeShard: 'shard02'}})\nsim.balance()\nsim.balance()\nsim.balance()\nsim.balance()\ndb.adminCommand({{removeShard: 'shard02'}})\ndb.adminCommand({{removeShard: 'shard02'}})",
        insert("d", "x", (0..80).map(|i| (i * 37) % 80))
    );
    check(
        &script,
        expect![[r#"
            > sim.chunkSize(1024)
            { chunkSize: 1024, ok: 1 }
            > sh.shardCollection('test.d', {x: 1})
            { collectionsharded: 'test.d', ok: 1 }
            > db.d.insertMany([{x: 0, pad: 'pppppppppppppppppppppppppppppppppppppppp'}, {x: 37, pad: 'pppppppppppp…
            {
              acknowledged: true,
              insertedIds: {
                '0': ObjectId('6553f101c1675e0bb9150280'),
                '1': ObjectId('6553f101c1675e0bb9150281'),
                '2': ObjectId('6553f101c1675e0bb9150282'),
                '3': ObjectId('6553f101c1675e0bb9150283'),
                '4': ObjectId('6553f101c1675e0bb9150284'),
                '5': ObjectId('6553f101c1675e0bb9150285'),
                '6': ObjectId('6553f101c1675e0bb9150286'),
                '7': ObjectId('6553f101c1675e0bb9150287'),
                '8': ObjectId('6553f101c1675e0bb9150288'),
                '9': ObjectId('6553f101c1675e0bb9150289'),
                '10': ObjectId('6553f101c1675e0bb915028a'),
                '11': ObjectId('6553f101c1675e0bb915028b'),
                '12': ObjectId('6553f101c1675e0bb915028c'),
                '13': ObjectId('6553f101c1675e0bb915028d'),
                '14': ObjectId('6553f101c1675e0bb915028e'),
                '15': ObjectId('6553f101c1675e0bb915028f'),
                '16': ObjectId('6553f101c1675e0bb9150290'),
                '17': ObjectId('6553f101c1675e0bb9150291'),
                '18': ObjectId('6553f101c1675e0bb9150292'),
                '19': ObjectId('6553f101c1675e0bb9150293'),
                '20': ObjectId('6553f101c1675e0bb9150294'),
                '21': ObjectId('6553f101c1675e0bb9150295'),
                '22': ObjectId('6553f101c1675e0bb9150296'),
                '23': ObjectId('6553f101c1675e0bb9150297'),
                '24': ObjectId('6553f101c1675e0bb9150298'),
                '25': ObjectId('6553f101c1675e0bb9150299'),
                '26': ObjectId('6553f101c1675e0bb915029a'),
                '27': ObjectId('6553f101c1675e0bb915029b'),
                '28': ObjectId('6553f101c1675e0bb915029c'),
                '29': ObjectId('6553f101c1675e0bb915029d'),
                '30': ObjectId('6553f101c1675e0bb915029e'),
                '31': ObjectId('6553f101c1675e0bb915029f'),
                '32': ObjectId('6553f101c1675e0bb91502a0'),
                '33': ObjectId('6553f101c1675e0bb91502a1'),
                '34': ObjectId('6553f101c1675e0bb91502a2'),
                '35': ObjectId('6553f101c1675e0bb91502a3'),
                '36': ObjectId('6553f101c1675e0bb91502a4'),
                '37': ObjectId('6553f101c1675e0bb91502a5'),
                '38': ObjectId('6553f101c1675e0bb91502a6'),
                '39': ObjectId('6553f101c1675e0bb91502a7'),
                '40': ObjectId('6553f101c1675e0bb91502a8'),
                '41': ObjectId('6553f101c1675e0bb91502a9'),
                '42': ObjectId('6553f101c1675e0bb91502aa'),
                '43': ObjectId('6553f101c1675e0bb91502ab'),
                '44': ObjectId('6553f101c1675e0bb91502ac'),
                '45': ObjectId('6553f101c1675e0bb91502ad'),
                '46': ObjectId('6553f101c1675e0bb91502ae'),
                '47': ObjectId('6553f101c1675e0bb91502af'),
                '48': ObjectId('6553f101c1675e0bb91502b0'),
                '49': ObjectId('6553f101c1675e0bb91502b1'),
                '50': ObjectId('6553f101c1675e0bb91502b2'),
                '51': ObjectId('6553f101c1675e0bb91502b3'),
                '52': ObjectId('6553f101c1675e0bb91502b4'),
                '53': ObjectId('6553f101c1675e0bb91502b5'),
                '54': ObjectId('6553f101c1675e0bb91502b6'),
                '55': ObjectId('6553f101c1675e0bb91502b7'),
                '56': ObjectId('6553f101c1675e0bb91502b8'),
                '57': ObjectId('6553f101c1675e0bb91502b9'),
                '58': ObjectId('6553f101c1675e0bb91502ba'),
                '59': ObjectId('6553f101c1675e0bb91502bb'),
                '60': ObjectId('6553f101c1675e0bb91502bc'),
                '61': ObjectId('6553f101c1675e0bb91502bd'),
                '62': ObjectId('6553f101c1675e0bb91502be'),
                '63': ObjectId('6553f101c1675e0bb91502bf'),
                '64': ObjectId('6553f101c1675e0bb91502c0'),
                '65': ObjectId('6553f101c1675e0bb91502c1'),
                '66': ObjectId('6553f101c1675e0bb91502c2'),
                '67': ObjectId('6553f101c1675e0bb91502c3'),
                '68': ObjectId('6553f101c1675e0bb91502c4'),
                '69': ObjectId('6553f101c1675e0bb91502c5'),
                '70': ObjectId('6553f101c1675e0bb91502c6'),
                '71': ObjectId('6553f101c1675e0bb91502c7'),
                '72': ObjectId('6553f101c1675e0bb91502c8'),
                '73': ObjectId('6553f101c1675e0bb91502c9'),
                '74': ObjectId('6553f101c1675e0bb91502ca'),
                '75': ObjectId('6553f101c1675e0bb91502cb'),
                '76': ObjectId('6553f101c1675e0bb91502cc'),
                '77': ObjectId('6553f101c1675e0bb91502cd'),
                '78': ObjectId('6553f101c1675e0bb91502ce'),
                '79': ObjectId('6553f101c1675e0bb91502cf')
              }
            }
            > sim.balance()
            {
              migrations: [
                {
                  ns: 'test.d',
                  min: { x: 1 },
                  max: { x: 10 },
                  from: 'shard01',
                  to: 'shard02'
                }
              ],
              ok: 1
            }
            > db.adminCommand({removeShard: 'shard02'})
            {
              msg: 'draining started successfully',
              state: 'started',
              shard: 'shard02',
              note: 'you need to drop or movePrimary these databases',
              dbsToMove: [],
              ok: 1
            }
            > sim.balance()
            {
              migrations: [
                {
                  ns: 'test.d',
                  min: { x: MinKey() },
                  max: { x: 1 },
                  from: 'shard02',
                  to: 'shard03'
                }
              ],
              ok: 1
            }
            > sim.balance()
            {
              migrations: [
                {
                  ns: 'test.d',
                  min: { x: 1 },
                  max: { x: 10 },
                  from: 'shard02',
                  to: 'shard03'
                }
              ],
              ok: 1
            }
            > sim.balance()
            { migrations: [], ok: 1 }
            > sim.balance()
            { migrations: [], ok: 1 }
            > db.adminCommand({removeShard: 'shard02'})
            {
              msg: 'removeshard completed successfully',
              state: 'completed',
              shard: 'shard02',
              ok: 1
            }
            > db.adminCommand({removeShard: 'shard02'})
            MongoServerError[ShardNotFound]: Could not drop shard 'shard02' because it does not exist
        "#]],
    );
}

#[test]
fn shard_key_pattern_errors_use_mongodb_words() {
    check(
        r#"
        sh.shardCollection("test.e1", {})
        sh.shardCollection("test.e2", {a: -1})
        sh.shardCollection("test.e3", {a: "hashed", b: "hashed"})
        sh.shardCollection("test.e4", {"a..b": 1})
        sh.shardCollection("test.e5", {a: "hashed"}, true)
        sh.shardCollection("test.e6", {"$a": 1})
        db.e7.insertOne({x: [1, 2]})
        sh.shardCollection("test.e7", {x: 1})
        db.e7.createIndex({x: 1})
        sh.shardCollection("test.e7", {x: 1})
        sh.shardCollection("test.ok", {x: 1})
        sh.shardCollection("test.ok", {x: 1})
        sh.shardCollection("test.ok", {y: 1})
        db.ok.insertOne({x: [1]})
        "#,
        expect![[r#"
            > sh.shardCollection("test.e1", {})
            MongoServerError[BadValue]: Shard key is empty
            > sh.shardCollection("test.e2", {a: -1})
            MongoServerError[BadValue]: Shard key { a: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a
            > sh.shardCollection("test.e3", {a: "hashed", b: "hashed"})
            MongoServerError[BadValue]: Shard key { a: "hashed", b: "hashed" } can contain at most one 'hashed' field. Failed to parse field b
            > sh.shardCollection("test.e4", {"a..b": 1})
            MongoServerError[BadValue]: Field a..b contains empty parts
            > sh.shardCollection("test.e5", {a: "hashed"}, true)
            MongoServerError[InvalidOptions]: Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by declaring an additional (non-hashed) unique index on the field.
            > sh.shardCollection("test.e6", {"$a": 1})
            MongoServerError[BadValue]: Field $a contains parts that start with '$'
            > db.e7.insertOne({x: [1, 2]})
            {
              acknowledged: true,
              insertedId: ObjectId('6553f100c1675e0bb9150280')
            }
            > sh.shardCollection("test.e7", {x: 1})
            MongoServerError[InvalidOptions]: Please create an index that starts with the proposed shard key before sharding the collection
            > db.e7.createIndex({x: 1})
            x_1
            > sh.shardCollection("test.e7", {x: 1})
            MongoServerError[ShardKeyNotFound]: Shard key cannot contain array values or array descendants.
            > sh.shardCollection("test.ok", {x: 1})
            { collectionsharded: 'test.ok', ok: 1 }
            > sh.shardCollection("test.ok", {x: 1})
            { collectionsharded: 'test.ok', ok: 1 }
            > sh.shardCollection("test.ok", {y: 1})
            MongoServerError[AlreadyInitialized]: sharding already enabled for collection test.ok
            > db.ok.insertOne({x: [1]})
            MongoServerError: Shard key cannot contain array values or array descendants.
        "#]],
    );
}

#[test]
fn a_chunk_across_a_zone_boundary_is_a_zone_violation_until_the_balancer_splits_it() {
    check(
        r#"
        sh.shardCollection("test.zb", {x: 1})
        sh.addShardToZone("shard02", "HOT")
        sh.updateZoneKeyRange("test.zb", {x: 100}, {x: 200}, "HOT")
        sh.balancerCollectionStatus("test.zb").firstComplianceViolation
        sim.balance()
        sh.balancerCollectionStatus("test.zb")
        "#,
        expect![[r#"
            > sh.shardCollection("test.zb", {x: 1})
            { collectionsharded: 'test.zb', ok: 1 }
            > sh.addShardToZone("shard02", "HOT")
            { ok: 1 }
            > sh.updateZoneKeyRange("test.zb", {x: 100}, {x: 200}, "HOT")
            { ok: 1 }
            > sh.balancerCollectionStatus("test.zb").firstComplianceViolation
            zoneViolation
            > sim.balance()
            {
              migrations: [
                {
                  ns: 'test.zb',
                  min: { x: 100 },
                  max: { x: 200 },
                  from: 'shard01',
                  to: 'shard02'
                }
              ],
              ok: 1
            }
            > sh.balancerCollectionStatus("test.zb")
            {
              balancerCompliant: false,
              firstComplianceViolation: 'chunksImbalance',
              ok: 1
            }
        "#]],
    );
}

/// An ordered `insertMany` stops at its first bad document, whatever stopped it (a
/// duplicate `_id`, an array `_id`, a field name with a NUL), with the documents before it
/// stored and their `_id`s returned; a batch longer than one encoding group (the engine
/// encodes about 64 KiB at a time) goes in whole and in order.
#[test]
fn insert_many_stops_at_the_first_bad_document_and_keeps_the_ones_before() {
    use bson::{doc, Bson, Document};
    use shardlab::{Cluster, ClusterConfig};
    let mut cluster = Cluster::new(ClusterConfig::default());
    cluster
        .shard_collection("test.c", &doc! { "x": 1 }, false, None)
        .unwrap();
    let cases: [(Vec<Document>, usize, &str); 3] = [
        (
            vec![
                doc! { "_id": 1, "x": 1 },
                doc! { "_id": 2, "x": 2 },
                doc! { "_id": 1, "x": 3 },
                doc! { "_id": [1], "x": 4 },
            ],
            2,
            "DuplicateKey",
        ),
        (
            vec![
                doc! { "x": 5 },
                doc! { "_id": [1], "x": 6 },
                doc! { "x": 7 },
            ],
            1,
            "BadValue",
        ),
        (
            vec![
                doc! { "x": 8 },
                doc! { "x": 9, "a\0b": 1 },
                doc! { "_id": 2, "x": 10 },
            ],
            1,
            "BadValue",
        ),
    ];
    let mut stored = 0;
    for (docs, inserted, kind) in cases {
        let (ids, err) = cluster.insert_many("test.c", &docs).unwrap_err();
        assert_eq!(ids.len(), inserted, "{docs:?}");
        assert!(format!("{err:?}").starts_with(kind), "{err:?}");
        stored += inserted;
        assert_eq!(
            cluster.collection("test.c").unwrap().doc_count(),
            stored as u64
        );
        cluster.check().unwrap();
    }
    let many: Vec<Document> = (0..3_000)
        .map(|i| doc! { "x": 100 + i, "pad": "p".repeat(i as usize % 50) })
        .collect();
    let ids = cluster.insert_many("test.c", &many).unwrap().to_vec();
    assert_eq!(ids.len(), many.len());
    assert!(ids
        .windows(2)
        .all(|w| matches!((&w[0], &w[1]), (Bson::ObjectId(a), Bson::ObjectId(b)) if a < b)));
    assert_eq!(
        cluster.collection("test.c").unwrap().doc_count(),
        stored as u64 + 3_000
    );
    let found: std::collections::BTreeMap<i32, String> = cluster
        .collection("test.c")
        .unwrap()
        .documents()
        .map(|d| {
            (
                d.get_i32("x").unwrap(),
                d.get_str("pad").unwrap_or("").to_string(),
            )
        })
        .collect();
    for d in &many {
        assert_eq!(
            found.get(&d.get_i32("x").unwrap()).map(String::as_str),
            d.get_str("pad").ok()
        );
    }
    cluster.check().unwrap();
}

/// A collection remembers the keys of its latest 512 inserts, oldest first, also once the
/// ring has wrapped around several times; asking from an insertion number gives the later
/// ones alone.
#[test]
fn the_latest_inserts_are_remembered_in_order() {
    use bson::{doc, Bson};
    use shardlab::{Cluster, ClusterConfig, KeyValue};
    let mut cluster = Cluster::new(ClusterConfig::default());
    cluster
        .shard_collection("test.r", &doc! { "k": 1 }, false, None)
        .unwrap();
    let key = |i: i64| KeyValue(vec![Bson::Int64(i * 7 % 1000)]);
    let mut inserted = 0i64;
    for batch in [1i64, 300, 211, 1, 900, 345] {
        let docs: Vec<_> = (inserted..inserted + batch)
            .map(|i| doc! { "k": i * 7 % 1000 })
            .collect();
        cluster.insert_many("test.r", &docs).unwrap();
        inserted += batch;
        let coll = cluster.collection("test.r").unwrap();
        let first = (inserted - 512).max(0);
        let all: Vec<(u64, KeyValue)> = coll.recent_inserts().collect();
        let expected: Vec<(u64, KeyValue)> =
            (first..inserted).map(|i| (i as u64, key(i))).collect();
        assert_eq!(all, expected, "after {inserted}");
        let from = (inserted - 100).max(0) as u64;
        assert!(coll
            .recent_inserts_from(from)
            .eq(expected.into_iter().filter(|(s, _)| *s >= from)));
    }
}
