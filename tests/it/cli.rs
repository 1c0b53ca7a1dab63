//! The `shardlab` CLI, driven through the real binary: plain and `--json` output, errors,
//! exit statuses, standard input and the usage errors.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson};
use expect_test::{expect, Expect};
use shardlab::shell::parse_ejson;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// What one run of the binary printed and how it exited (`cli_stream.rs` uses it too).
pub(crate) struct Run {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

/// Runs `shardlab` with `args`, feeding `stdin` to it (other test files use it too).
pub(crate) fn shardlab(args: &[&str], stdin: &str) -> Run {
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
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap(),
    }
}

/// A script written to a file of its own, removed when dropped (`cli_stream.rs` uses it too).
pub(crate) struct ScriptFile(PathBuf);

impl ScriptFile {
    pub(crate) fn new(text: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "shardlab-cli-{}-{}.js",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, text).unwrap();
        ScriptFile(path)
    }

    pub(crate) fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for ScriptFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs a script from a file, with `--json` or not.
fn run_file(script: &str, json: bool) -> Run {
    let file = ScriptFile::new(script);
    let mut args = Vec::new();
    if json {
        args.push("--json");
    }
    args.push(file.path());
    shardlab(&args, "")
}

fn check_plain(script: &str, expect: Expect) {
    let run = run_file(script, false);
    assert_eq!(run.stderr, "");
    expect.assert_eq(&run.stdout);
}

/// Every line of `--json` output, parsed back as Extended JSON.
fn json_values(stdout: &str) -> Vec<Bson> {
    stdout
        .lines()
        .map(|line| parse_ejson(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

#[test]
fn plain_output_prints_values_as_mongosh_does() {
    check_plain(
        r#"sh.shardCollection("test.users", {userId: 1})
db.users.insertOne({_id: 1, userId: NumberLong(5), at: Timestamp(1, 2)})
db.users.findOne()
convertShardKeyToHashed(NumberLong(1))
"a string prints bare"
"#,
        expect![[r#"
            { collectionsharded: 'test.users', ok: 1 }
            { acknowledged: true, insertedId: 1 }
            { _id: 1, userId: Long('5'), at: Timestamp({ t: 1, i: 2 }) }
            Long('5902408780260971510')
            a string prints bare
        "#]],
    );
}

/// One script that touches every command family: the language (`var`, `use`, `show`,
/// `print`), `sh.*`, `db.<coll>.*`, `db.adminCommand`, and the `sim.*` helpers.
#[test]
fn plain_output_of_every_command_family() {
    check_plain(
        r#"sim.version()
sh.enableSharding("test")
sh.shardCollection("test.orders", {customer: 1, _id: 1})
db.orders.insertMany([
  {_id: 1, customer: "alice", total: 10.5},
  {_id: 2, customer: "bob", total: NumberDecimal("20.25")},
  {_id: ObjectId("65a1b2c3d4e5f60718293a4b"), customer: "carol", at: ISODate("2024-01-01T00:00:00Z")}
])
sh.splitAt("test.orders", {customer: "bob", _id: MinKey()})
sh.moveChunk("test.orders", {customer: "carol", _id: 0}, "shard02")
db.orders.find({customer: {$gte: "b"}}, {_id: 0, customer: 1}).sort({customer: -1})
db.orders.countDocuments({})
db.orders.find({customer: "alice"}).explain().queryPlanner.winningPlan.stage
db.orders.find({total: {$gt: 0}}).explain().queryPlanner.winningPlan.stage
db.orders.updateOne({customer: "alice", _id: 1}, {$set: {total: 11}})
db.orders.deleteMany({customer: "nobody"})
db.orders.getIndexes()
db.orders.getShardDistribution()
sh.addShardToZone("shard03", "EU")
sh.updateZoneKeyRange("test.orders", {customer: "x", _id: MinKey()}, {customer: MaxKey(), _id: MaxKey()}, "EU")
sh.getBalancerState()
sh.stopBalancer()
sh.isBalancerRunning()
sh.balancerCollectionStatus("test.orders")
sh.addShard("shard04/localhost:27417")
db.adminCommand({removeShard: "shard04"})
db.adminCommand({listShards: 1})
db.adminCommand({_hashBSONElement: NumberLong(1), seed: 0})
db.adminCommand({split: "test.orders", middle: {customer: "c", _id: MinKey()}})
db.adminCommand({mergeChunks: "test.orders", bounds: [{customer: "bob", _id: MinKey()}, {customer: MaxKey(), _id: MaxKey()}]})
db.adminCommand({noSuchCommand: 1})
db.orders.noSuchMethod()
sh.status()
var n = 3
n
use other
db
show dbs
print("printed", 1, {a: [1, 2]})
sim.reset({shards: 2, seed: 42})
sh.shardCollection("test.events", {x: 1})
sim.generate("test.events", {x: {counter: {start: 1}}}, 5)
sim.queries("test.events", {key: "x", kind: "eq"}, 4)
sim.balance()
sim.events(2)
sim.chunkSize()
sim.seed(7)
"#,
        expect![[r#"
            { version: '5.0', ok: 1 }
            { ok: 1 }
            { collectionsharded: 'test.orders', ok: 1 }
            {
              acknowledged: true,
              insertedIds: { '0': 1, '1': 2, '2': ObjectId('65a1b2c3d4e5f60718293a4b') }
            }
            { ok: 1 }
            { millis: 0, ok: 1 }
            [ { customer: 'carol' }, { customer: 'bob' } ]
            3
            SINGLE_SHARD
            SHARD_MERGE
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            { acknowledged: true, deletedCount: 0 }
            [
              { v: 2, key: { _id: 1 }, name: '_id_' },
              { v: 2, key: { customer: 1, _id: 1 }, name: 'customer_1__id_1' }
            ]
            Shard shard01 at shard01/localhost:27117
            {
              data: '45B',
              docs: 1,
              chunks: 1,
              'estimated data per chunk': '45B',
              'estimated docs per chunk': 1
            }
            ---
            Shard shard02 at shard02/localhost:27217
            {
              data: '109B',
              docs: 2,
              chunks: 1,
              'estimated data per chunk': '109B',
              'estimated docs per chunk': 2
            }
            ---
            Totals
            {
              data: '154B',
              docs: 3,
              chunks: 2,
              'Shard shard01': [
                '29.22 % data',
                '33.33 % docs in cluster',
                '45B avg obj size on shard'
              ],
              'Shard shard02': [
                '70.77 % data',
                '66.66 % docs in cluster',
                '54B avg obj size on shard'
              ]
            }
            { ok: 1 }
            { ok: 1 }
            true
            { ok: 1 }
            {
              mode: 'off',
              inBalancerRound: false,
              numBalancerRounds: Long('0'),
              ok: 1
            }
            {
              balancerCompliant: false,
              firstComplianceViolation: 'zoneViolation',
              ok: 1
            }
            { shardAdded: 'shard04', ok: 1 }
            {
              msg: 'draining started successfully',
              state: 'started',
              shard: 'shard04',
              note: 'you need to drop or movePrimary these databases',
              dbsToMove: [],
              ok: 1
            }
            {
              shards: [
                {
                  _id: 'shard01',
                  host: 'shard01/localhost:27117',
                  state: 1,
                  topologyTime: Timestamp({ t: 1735689600, i: 1 })
                },
                {
                  _id: 'shard02',
                  host: 'shard02/localhost:27217',
                  state: 1,
                  topologyTime: Timestamp({ t: 1735689600, i: 1 })
                },
                {
                  _id: 'shard03',
                  host: 'shard03/localhost:27317',
                  tags: [ 'EU' ],
                  state: 1,
                  topologyTime: Timestamp({ t: 1735689600, i: 1 })
                },
                {
                  _id: 'shard04',
                  host: 'shard04/localhost:27417',
                  draining: true,
                  state: 1,
                  topologyTime: Timestamp({ t: 1735689600, i: 9 })
                }
              ],
              ok: 1
            }
            { key: Long('1'), seed: 0, out: Long('5902408780260971510'), ok: 1 }
            { ok: 1 }
            { ok: 1 }
            MongoServerError[CommandNotFound]: no such cmd: noSuchCommand
            TypeError: db.orders.noSuchMethod is not a function
            shardingVersion
            {
              _id: 1,
              minCompatibleVersion: 5,
              currentVersion: 6,
              clusterId: ObjectId('658f00000000000000000001')
            }
            ---
            shards
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
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 })
              },
              {
                _id: 'shard03',
                host: 'shard03/localhost:27317',
                tags: [ 'EU' ],
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 1 })
              },
              {
                _id: 'shard04',
                host: 'shard04/localhost:27417',
                draining: true,
                state: 1,
                topologyTime: Timestamp({ t: 1735689600, i: 9 })
              }
            ]
            ---
            active mongoses
            [ { '5.0.31': 1 } ]
            ---
            autosplit
            { 'Currently enabled': 'yes' }
            ---
            balancer
            {
              'Currently enabled': 'no',
              'Currently running': 'no',
              'Failed balancer rounds in last 5 attempts': 0,
              'Migration Results for the last 24 hours': { '1': 'Success' }
            }
            ---
            shardedDataDistribution
            undefined
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
                  partitioned: true,
                  version: {
                    uuid: UUID('d4b11706-1186-465c-aa83-b9c0daaef29a'),
                    timestamp: Timestamp({ t: 1735689600, i: 1 }),
                    lastMod: 1
                  }
                },
                collections: {
                  'test.orders': {
                    shardKey: { customer: 1, _id: 1 },
                    unique: false,
                    balancing: true,
                    allowMigrations: true,
                    chunkMetadata: [
                      { shard: 'shard01', nChunks: 1 },
                      { shard: 'shard02', nChunks: 1 }
                    ],
                    chunks: [
                      {
                        min: { customer: MinKey(), _id: MinKey() },
                        max: { customer: 'bob', _id: MinKey() },
                        'on shard': 'shard01',
                        'last modified': Timestamp({ t: 2, i: 1 })
                      },
                      {
                        min: { customer: 'bob', _id: MinKey() },
                        max: { customer: MaxKey(), _id: MaxKey() },
                        'on shard': 'shard02',
                        'last modified': Timestamp({ t: 2, i: 4 })
                      }
                    ],
                    tags: [
                      {
                        tag: 'EU',
                        min: { customer: 'x', _id: MinKey() },
                        max: { customer: MaxKey(), _id: MaxKey() }
                      }
                    ]
                  }
                }
              }
            ]
            3
            switched to db other
            other
            admin       59 B
            config  4.59 KiB
            test       154 B
            printed 1 { a: [ 1, 2 ] }
            { ok: 1 }
            { collectionsharded: 'test.events', ok: 1 }
            { ns: 'test.events', inserted: 5, ok: 1 }
            {
              ns: 'test.events',
              queries: 4,
              singleShard: 4,
              multiShard: 0,
              scatterGather: 0,
              ok: 1
            }
            { migrations: [], ok: 1 }
            [
              {
                seq: Long('1'),
                time: ISODate('2025-01-01T00:00:00.001Z'),
                what: 'shardCollection.end',
                details: 'test.events: sharded on { x: 1 }'
              },
              {
                seq: Long('2'),
                time: ISODate('2025-01-01T00:00:00.002Z'),
                what: 'insert',
                details: 'test.events: inserted shard01: 5'
              }
            ]
            { chunkSize: 67108864, ok: 1 }
            { seed: Long('7'), ok: 1 }
        "#]],
    );
}

#[test]
fn json_output_is_one_canonical_extended_json_value_per_line() {
    let run = run_file(
        r#"db.c.insertOne({_id: ObjectId("65a1b2c3d4e5f60718293a4b"), k: MinKey(), n: NumberLong(5), d: 1.5})
db.c.findOne()
convertShardKeyToHashed(NumberLong(1))
"bare string"
"#,
        true,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"acknowledged":true,"insertedId":{"$oid":"65a1b2c3d4e5f60718293a4b"}}"#,
            r#"{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"k":{"$minKey":1},"n":{"$numberLong":"5"},"d":{"$numberDouble":"1.5"}}"#,
            r#"{"$numberLong":"5902408780260971510"}"#,
            r#""bare string""#,
        ]
    );
    let values = json_values(&run.stdout);
    let oid = bson::oid::ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").unwrap();
    assert_eq!(
        values[1],
        Bson::Document(doc! { "_id": oid, "k": Bson::MinKey, "n": 5_i64, "d": 1.5 })
    );
    assert_eq!(values[2], Bson::Int64(5_902_408_780_260_971_510));
}

#[test]
fn json_errors_have_the_error_line_shape() {
    let run = run_file(
        "db.adminCommand({noSuchCommand: 1})\nsh.shardCollection(\"test.c\", {k: \"sideways\"})\ndb.c.bogus()\nfoo(\n",
        true,
    );
    assert_eq!(run.code, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"error": {"code": 59, "codeName": "CommandNotFound", "errmsg": "no such cmd: noSuchCommand"}}"#,
            r#"{"error": {"code": 2, "codeName": "BadValue", "errmsg": "Shard key { k: \"sideways\" }numerical fields must be set to a value of 1 (ascending). Failed to parse field k"}}"#,
            r#"{"error": {"code": 0, "codeName": "TypeError", "errmsg": "db.c.bogus is not a function"}}"#,
            r#"{"error": {"code": 0, "codeName": "SyntaxError", "errmsg": "Unexpected end of input, expected an expression (5:1)"}}"#,
        ]
    );
    // Each line is a document holding exactly `error: {code, codeName, errmsg}`.
    for value in json_values(&run.stdout) {
        let Bson::Document(d) = value else {
            panic!("not a document: {value}")
        };
        assert_eq!(d.keys().collect::<Vec<_>>(), ["error"]);
        let error = d.get_document("error").unwrap();
        assert_eq!(
            error.keys().collect::<Vec<_>>(),
            ["code", "codeName", "errmsg"]
        );
        assert!(error.get_i32("code").is_ok());
    }
}

#[test]
fn an_error_does_not_stop_the_script_and_exits_1() {
    let script = "db.c.insertOne({_id: 1})\ndb.c.insertOne({_id: 1})\ndb.c.countDocuments({})\n";
    let plain = run_file(script, false);
    assert_eq!(plain.code, 1);
    expect![[r#"
        { acknowledged: true, insertedId: 1 }
        MongoServerError: E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }
        1
    "#]]
    .assert_eq(&plain.stdout);

    let json = run_file(script, true);
    assert_eq!(json.code, 1);
    let values = json_values(&json.stdout);
    assert_eq!(values.len(), 3);
    assert!(matches!(&values[1], Bson::Document(d) if d.contains_key("error")));
    assert_eq!(values[2], Bson::Int32(1));
}

#[test]
fn exit_status_is_0_without_errors() {
    let run = run_file("db.c.insertOne({a: 1})\ndb.c.countDocuments({})\n", false);
    assert_eq!(run.code, 0);
    assert_eq!(run.stderr, "");
    let run = run_file("", true);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

#[test]
fn reads_standard_input_without_a_file_or_with_dash() {
    let script = "db.c.insertOne({_id: 7})\ndb.c.findOne()\n";
    let expected = "{ acknowledged: true, insertedId: 7 }\n{ _id: 7 }\n";
    let bare = shardlab(&[], script);
    assert_eq!((bare.code, bare.stdout.as_str()), (0, expected));
    let dash = shardlab(&["-"], script);
    assert_eq!((dash.code, dash.stdout.as_str()), (0, expected));
    let json = shardlab(&["--json", "-"], script);
    assert_eq!(
        json.stdout,
        "{\"acknowledged\":true,\"insertedId\":{\"$numberInt\":\"7\"}}\n{\"_id\":{\"$numberInt\":\"7\"}}\n"
    );
    let failing = shardlab(&["-"], "nope\n");
    assert_eq!(failing.code, 1);
    assert_eq!(failing.stdout, "ReferenceError: nope is not defined\n");
}

#[test]
fn a_cursor_prints_as_one_line_array_under_json() {
    let run = run_file(
        "db.c.insertMany([{_id: 1, x: 1}, {_id: 2, x: 2}, {_id: 3, x: 3}])\ndb.c.find({x: {$gte: 2}}).sort({x: -1})\ndb.c.find({x: 99})\n",
        true,
    );
    assert_eq!(run.code, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[1],
        r#"[{"_id":{"$numberInt":"3"},"x":{"$numberInt":"3"}},{"_id":{"$numberInt":"2"},"x":{"$numberInt":"2"}}]"#
    );
    assert_eq!(lines[2], "[]");

    // Plain output prints the same cursor as mongosh prints an array.
    let plain = run_file(
        "db.c.insertMany([{_id: 1}, {_id: 2}])\ndb.c.find()\n",
        false,
    );
    assert!(
        plain.stdout.ends_with("[ { _id: 1 }, { _id: 2 } ]\n"),
        "{}",
        plain.stdout
    );
}

#[test]
fn sh_status_under_json_is_the_status_object() {
    let run = run_file(
        "sh.shardCollection(\"test.c\", {k: 1})\nsh.status()\n",
        true,
    );
    assert_eq!(run.code, 0);
    let values = json_values(&run.stdout);
    let Bson::Document(status) = &values[1] else {
        panic!("sh.status() is not a document: {}", values[1])
    };
    assert_eq!(
        status.keys().collect::<Vec<_>>(),
        [
            "shardingVersion",
            "shards",
            "active mongoses",
            "autosplit",
            "balancer",
            "shardedDataDistribution",
            "databases"
        ]
    );
    assert_eq!(status.get_array("shards").unwrap().len(), 3);
    assert_eq!(
        status
            .get_document("autosplit")
            .unwrap()
            .get_str("Currently enabled")
            .unwrap(),
        "yes"
    );
    let balancer = status.get_document("balancer").unwrap();
    for key in [
        "Currently enabled",
        "Currently running",
        "Failed balancer rounds in last 5 attempts",
        "Migration Results for the last 24 hours",
    ] {
        assert!(balancer.contains_key(key), "balancer lacks {key}");
    }
    // mongosh's getPrintableShardStatus (helpers.ts) lists the `config` database too,
    // sorted with localeCompare, so `test` comes second.
    let databases = status.get_array("databases").unwrap();
    let Bson::Document(test) = &databases[1] else {
        panic!("{databases:?}")
    };
    assert_eq!(
        test.get_document("database")
            .unwrap()
            .get_str("_id")
            .unwrap(),
        "test"
    );
    let coll = test
        .get_document("collections")
        .unwrap()
        .get_document("test.c")
        .unwrap();
    assert_eq!(coll.get_document("shardKey").unwrap(), &doc! { "k": 1 });
    let chunks = coll.get_array("chunks").unwrap();
    let Bson::Document(chunk) = &chunks[0] else {
        panic!("{chunks:?}")
    };
    // The bounds print as canonical `{"$minKey":1}` / `{"$maxKey":1}`.
    assert_eq!(
        chunk.get_document("min").unwrap(),
        &doc! { "k": Bson::MinKey }
    );
    assert!(run
        .stdout
        .contains(r#""min":{"k":{"$minKey":1}},"max":{"k":{"$maxKey":1}}"#));
}

#[test]
fn a_preset_runs() {
    let run = run_file(
        "sim.preset(\"monotonic\")\nsh.status().databases.length\n",
        true,
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    let values = json_values(&run.stdout);
    let Bson::Document(reply) = &values[0] else {
        panic!("{}", values[0])
    };
    assert_eq!(reply.get_str("preset").unwrap(), "monotonic");
    assert_eq!(reply.get_i32("documents").unwrap(), 900);
    assert!(!reply.contains_key("errors"), "{reply}");
    let per_shard = reply.get_document("shards").unwrap();
    let docs: i32 = per_shard
        .values()
        .map(|s| s.as_document().unwrap().get_i32("docs").unwrap())
        .sum();
    assert_eq!(docs, 900, "every document is on some shard");
    // `config` (which mongosh's getPrintableShardStatus always adds) and `test`.
    assert_eq!(values[1], Bson::Int32(2));
}

#[test]
fn an_unknown_option_exits_2_with_usage() {
    let run = shardlab(&["--bogus"], "");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("shardlab: unknown option --bogus\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("usage: shardlab [--json] [FILE]"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unreadable_file_exits_2() {
    let missing =
        std::env::temp_dir().join(format!("shardlab-cli-missing-{}.js", std::process::id()));
    let run = shardlab(&[missing.to_str().unwrap()], "");
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("shardlab: cannot read "),
        "{}",
        run.stderr
    );
    // A directory cannot be read as a script either.
    let dir = shardlab(&[std::env::temp_dir().to_str().unwrap()], "");
    assert_eq!(dir.code, 2);
}

/// A reader that goes away after the first line (`shardlab script.js | head -1`) ends the
/// run quietly: no panic, no message, and the statements after it are not run.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    let script: String = (0..20_000).map(|i| format!("{i}\n")).collect();
    let file = ScriptFile::new(&script);
    let mut child = Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg(file.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut first).unwrap();
    assert_eq!(
        first, "0\n",
        "each result is written as its statement completes"
    );
    drop(out);
    let done = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&done.stderr), "");
    assert_eq!(done.status.code(), Some(0), "{:?}", done.status);
}

/// A script with the tutorials' loop and function: the loop is one statement whose
/// completion value (the last `insertOne`'s result) mongosh prints, `print()` inside a
/// loop prints each line, and a runaway loop ends with an error and exit status 1 rather
/// than hanging (see tests/it/shell_js.rs for the language itself).
#[test]
fn a_script_with_a_for_loop_runs() {
    let script = r#"for (var i = 0; i < 1000; i++) db.c.insertOne({_id: i, x: i % 7})
db.c.countDocuments({x: 3})
function label(n) { return `item ${n}` }
for (const n of [1, 2]) print(label(n))
total = 0
while (true) total++
"#;
    let run = run_file(script, false);
    expect![[r#"
        { acknowledged: true, insertedId: 999 }
        143
        item 1
        item 2
        0
        MongoServerError[MaxTimeMSExpired]: operation exceeded time limit: the statement ran more than 1000000 loop iterations, function calls and commands
    "#]]
    .assert_eq(&run.stdout);
    assert_eq!(run.code, 1);
    let run = run_file(script, true);
    let values = json_values(&run.stdout);
    assert_eq!(values[1], Bson::Int32(143));
    assert_eq!(values[2], Bson::String("item 1\nitem 2".into()));
    assert_eq!(
        values[4],
        Bson::Document(
            doc! {"error": {"code": 50, "codeName": "MaxTimeMSExpired", "errmsg": "operation exceeded time limit: the statement ran more than 1000000 loop iterations, function calls and commands"}}
        )
    );
}
