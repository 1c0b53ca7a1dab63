//! Round four of the fidelity work: how mongosh prints an array from `toArray()` and what
//! `printjson` prints, MongoDB's answer to an unknown command, and the manual's "Modify
//! Range Size" procedure through `config.settings`. Each test names the MongoDB or
//! mongosh source its answers come from.
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

/// Runs `setup`, which must succeed, then `command`, and returns what `command` printed:
/// the lines it printed (`print`) and its result, one after the other.
fn answer(setup: &str, command: &str) -> String {
    let mut session = Session::default();
    for o in session.run(setup) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let outcomes = session.run(command);
    session.cluster.check().unwrap();
    outcomes
        .iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A script inserting `n` documents `{_id: i, x: i}` into `test.c`, one statement.
fn insert_n(n: u32) -> String {
    format!("for (let i = 0; i < {n}; i++) {{ db.c.insertOne({{_id: i, x: i}}) }}\n")
}

// --- 1. toArray() prints an array, not a cursor ------------------------------------------

// mongosh packages/shell-api/src/abstract-cursor.ts `toArray` returns a plain array of
// every document, which packages/cli-repl/src/format-output.ts `formatOutput` prints
// through `formatSimpleType` (util.inspect with the shell's options), never through
// `formatCursorIterationResult`, the only place `Type "it" for more`
// (shell-api.classes.Cursor.iteration.type-it-for-more) is added. A cursor itself prints
// 20 documents (mongo.ts `_displayBatchSize`) and the line.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn to_array_prints_every_document_without_type_it() {
    let all = answer(&insert_n(25), "db.c.find().toArray()");
    assert!(!all.contains("Type \"it\" for more"), "{all}");
    for i in 0..25 {
        assert!(
            all.contains(&format!("{{ _id: {i}, x: {i} }}")),
            "{i}: {all}"
        );
    }
    let cursor = answer(&insert_n(25), "db.c.find()");
    assert!(cursor.ends_with("\nType \"it\" for more"), "{cursor}");
    assert!(!cursor.contains("_id: 20"), "{cursor}");
    // Node's util.inspect `groupArrayElements` (lib/internal/util/inspect.js): 25 entries
    // of 16 to 18 characters give round(sqrt(2.5 * 16.1 * 25) / 16.1) = 2 columns, each
    // entry padded to its column's widest entry plus the separator.
    expect![[r#"
        [
          { _id: 0, x: 0 },   { _id: 1, x: 1 },
          { _id: 2, x: 2 },   { _id: 3, x: 3 },
          { _id: 4, x: 4 },   { _id: 5, x: 5 },
          { _id: 6, x: 6 },   { _id: 7, x: 7 },
          { _id: 8, x: 8 },   { _id: 9, x: 9 },
          { _id: 10, x: 10 }, { _id: 11, x: 11 },
          { _id: 12, x: 12 }, { _id: 13, x: 13 },
          { _id: 14, x: 14 }, { _id: 15, x: 15 },
          { _id: 16, x: 16 }, { _id: 17, x: 17 },
          { _id: 18, x: 18 }, { _id: 19, x: 19 },
          { _id: 20, x: 20 }, { _id: 21, x: 21 },
          { _id: 22, x: 22 }, { _id: 23, x: 23 },
          { _id: 24, x: 24 }
        ]"#]]
    .assert_eq(&all);
}

// mongosh packages/shell-api/src/collection.ts `find` makes the cursor the current one
// (`_instanceState.currentCursor = cursor`); `toArray` exhausts it, so shell-api.ts `it`
// gets an empty `CursorIterationResult` from abstract-cursor.ts `_it`, which
// format-output.ts `formatCursorIterationResult` prints as `no cursor`. An array's
// `length` reads the whole array. An empty array prints as util.inspect's `[]`, where an
// empty cursor prints nothing (`formatCursor` returns '').
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn to_array_exhausts_the_current_cursor() {
    check(
        &format!(
            "{}db.c.find().toArray().length\nit\ndb.c.find({{x: 99}}).toArray()\ndb.c.find({{x: 99}})",
            insert_n(25)
        ),
        expect![[r#"
            > for (let i = 0; i < 25; i++) { db.c.insertOne({_id: i, x: i}) }
            { acknowledged: true, insertedId: 24 }
            > db.c.find().toArray().length
            25
            > it
            no cursor
            > db.c.find({x: 99}).toArray()
            []
            > db.c.find({x: 99})
        "#]],
    );
}

// format-output.ts: an array prints with the shell's options (mongosh-repl.ts
// `getFormatOptions`: `inspectDepth` 6, packages/types/src/index.ts; `maxArrayLength`
// unset, so Node's default of 100 items and `... n more items`), while a cursor prints
// with `fullDepthInspectOptions` (depth, array and string lengths unlimited).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn to_array_uses_the_shells_depth_and_array_length() {
    let many = answer(
        "for (let i = 0; i < 105; i++) { db.c.insertOne({_id: i}) }",
        "db.c.find().toArray()",
    );
    assert!(
        many.ends_with("{ _id: 99 },\n  ... 5 more items\n]"),
        "{many}"
    );
    assert!(!many.contains("_id: 100"), "{many}");
    let deep = "db.d.insertOne({_id: 1, a: {b: {c: {d: {e: {f: {g: 1}}}}}}})";
    // The array is level 0, the document 1, `a`'s value 2 ... `f`'s value 7 > 6.
    let array = answer(deep, "db.d.find().toArray()");
    assert!(array.contains("f: [Object]"), "{array}");
    let cursor = answer(deep, "db.d.find()");
    assert!(cursor.contains("f: { g: 1 }"), "{cursor}");
}

// The same for an aggregation's cursor (packages/shell-api/src/aggregation-cursor.ts
// extends AbstractCursor) and for the config database's collections, read through the
// same `find`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn to_array_of_aggregate_and_config_reads() {
    let agg = answer(
        &insert_n(25),
        "db.c.aggregate([{$match: {x: {$gte: 1}}}]).toArray()",
    );
    assert!(!agg.contains("Type \"it\""), "{agg}");
    assert!(agg.contains("{ _id: 24, x: 24 }"), "{agg}");
    let config = answer("use config", "db.shards.find({}, {_id: 1}).toArray()");
    expect![[r#"[ { _id: 'shard01' }, { _id: 'shard02' }, { _id: 'shard03' } ]"#]]
        .assert_eq(&config);
}

// The CLI's `--json` prints each result as one line of canonical Extended JSON
// (src/bin/shardlab.rs): an array from `toArray()` holds every document, as the value
// mongosh's `toArray` returns does.
#[cfg(not(target_arch = "wasm32"))]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn to_array_under_json_gives_every_document() {
    let script = format!("{}db.c.find().toArray()\n", insert_n(45));
    let stdout = crate::cli::shardlab(&["--json"], &script).stdout;
    let last = stdout.lines().last().unwrap();
    let value = shardlab::shell::parse_ejson(last).unwrap();
    let bson::Bson::Array(docs) = value else {
        panic!("{last}")
    };
    assert_eq!(docs.len(), 45);
    assert_eq!(
        docs[44],
        bson::Bson::Document(bson::doc! {"_id": 44, "x": 44})
    );
}

// --- 2. printjson prints as the old shell did --------------------------------------------

// mongosh packages/cli-repl/src/mongosh-repl.ts `onPrint`: for `printjson` (MONGOSH-955)
// the format options are `compact: false`, `depth`, `maxArrayLength` and
// `maxStringLength` Infinity, so Node's util.inspect (`reduceToSingleString`) opens a
// line for every entry of every non-empty object and array and groups no array. The
// expected text of the first case is mongosh-repl.spec.ts's 'prints out content in a
// legacy printjson format'. Empty objects and arrays stay `{}` and `[]` (util.inspect's
// `formatRaw` returns them before any layout).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn printjson_opens_a_line_per_entry() {
    check(
        "printjson({ a: { b: { c: 1 } } })
printjson({a: 1, b: [1, 2, 3, 4, 5, 6, 7, 8], e: {}, f: []})
print({ a: { b: { c: 1 } } })",
        expect![[r#"
            > printjson({ a: { b: { c: 1 } } })
            {
              a: {
                b: {
                  c: 1
                }
              }
            }
            > printjson({a: 1, b: [1, 2, 3, 4, 5, 6, 7, 8], e: {}, f: []})
            {
              a: 1,
              b: [
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8
              ],
              e: {},
              f: []
            }
            > print({ a: { b: { c: 1 } } })
            { a: { b: { c: 1 } } }
        "#]],
    );
}

// mongosh-repl.ts `onPrint` formats each argument through format-output.ts
// `formatSimpleType` and joins them with a space: a string is printed as it is (both
// `print` and `printjson` set `allowControlCharacters`), `undefined` as nothing;
// shell-api.ts `printjson` and `print` both hand their arguments to `_print`, and
// decorators.ts `toShellResult` keeps a primitive as its own printable value.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn printjson_prints_strings_bare_and_joins_arguments() {
    check(
        "printjson('str')
printjson(1, 'a\\tb', {x: 1})
print(undefined)
print('a', {x: [1, 2]})",
        expect![[r#"
            > printjson('str')
            str
            > printjson(1, 'a\tb', {x: 1})
            1 a	b {
              x: 1
            }
            > print(undefined)

            > print('a', {x: [1, 2]})
            a { x: [ 1, 2 ] }
        "#]],
    );
}

// The Infinity limits of mongosh-repl.ts `onPrint`: nothing is cut at the shell's depth
// of 6 (util.inspect's `[Object]`), at 100 array items or at 10,000 characters, where
// `print` (mongosh-repl.ts `getFormatOptions`, Node's defaults) cuts all three. The same
// holds for `printjson` passed as a function (`forEach(printjson)`) and inside a script.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn printjson_has_no_limits() {
    let deep = "{a: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}}";
    let printjson = answer("", &format!("printjson({deep})"));
    assert!(printjson.contains("h: 1"), "{printjson}");
    let print = answer("", &format!("print({deep})"));
    assert!(print.contains("[Object]"), "{print}");

    let long = "var a = []; for (let i = 0; i < 150; i++) { a.push(i) }";
    let printjson = answer(long, "printjson(a)");
    assert_eq!(printjson.lines().count(), 152, "{printjson}");
    assert!(!printjson.contains("more items"), "{printjson}");
    let print = answer(long, "print(a)");
    assert!(print.ends_with("... 50 more items\n]"), "{print}");

    let text = "var s = 'x'.repeat(10005)";
    let printjson = answer(text, "printjson({s: s})");
    assert!(!printjson.contains("more characters"), "{printjson}");
    let print = answer(text, "print({s: s})");
    assert!(print.contains("... 5 more characters"), "{print}");

    let each = answer(
        "db.c.insertMany([{_id: 1, x: 1}, {_id: 2, x: 2}])",
        "db.c.find().forEach(printjson)",
    );
    assert_eq!(
        each, "{\n  _id: 1,\n  x: 1\n}\n{\n  _id: 2,\n  x: 2\n}",
        "{each}"
    );
    let script = answer(
        "db.c.insertMany([{_id: 1, x: 1}])",
        "for (const d of db.c.find().toArray()) { printjson(d) }",
    );
    assert_eq!(script, "{\n  _id: 1,\n  x: 1\n}", "{script}");
}

// --- 3. An unknown command --------------------------------------------------------------

// mongos answers a command it does not have with CommandNotFound (59) and "no such cmd:
// <name>" in every era: src/mongo/s/commands/strategy.cpp, 3.6's `runAgainstRegistered`,
// 4.x's `runCommand` and 5.0 to 8.0's `ParseAndRunCommand::_parseCommand` (`"no such cmd:
// {}"_format(_commandName)`). mongod's "no such command: '<name>'"
// (src/mongo/db/service_entry_point_common.cpp) is not what a mongos says. mongosh's
// database.ts `runCommand`/`adminCommand` throw the driver's MongoServerError, which
// packages/cli-repl/src/format-output.ts `formatError` prints as `name[codeName]: message`,
// with no errInfo, result or writeErrors to add.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn an_unknown_command_is_the_routers_command_not_found() {
    for version in ["3.6", "5.0", "8.0"] {
        let setup = format!("sim.version('{version}')");
        for command in [
            "db.adminCommand({noSuchCmd: 1})",
            "db.runCommand({noSuchCmd: 1})",
            "db.getSiblingDB('admin').runCommand({noSuchCmd: 1, other: 2})",
        ] {
            assert_eq!(
                answer(&setup, command),
                "MongoServerError[CommandNotFound]: no such cmd: noSuchCmd",
                "{version}: {command}"
            );
        }
    }
    let mut session = Session::default();
    let outcome = session.run("db.adminCommand({noSuchCmd: 1})").remove(0);
    assert_eq!(
        outcome.render_json().unwrap(),
        r#"{"error": {"code": 59, "codeName": "CommandNotFound", "errmsg": "no such cmd: noSuchCmd"}}"#
    );
}

// mongosh database.ts `runCommand` and `adminCommand`: `assertArgsDefinedType([cmd],
// [['string', 'object']], 'Database.runCommand')` (helpers.ts: "Missing required argument
// at position 0", "Argument at position 0 must be of type string or object, got <typeof>
// instead", each with ` (<caller>)`, a MongoshInvalidInputError of CommonErrors
// .InvalidArgument, COMMON-10001), then a string is sent as `{[cmd]: 1}`. `ping` is
// src/mongo/db/commands/generic.cpp's `PingCommand`: `{ok: 1}`, on any database.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn run_command_takes_a_string_or_an_object() {
    check(
        "db.runCommand('noSuchCmd')
db.adminCommand('noSuchCmd')
db.runCommand('ping')
db.runCommand({ping: 1})
db.runCommand(5)
db.adminCommand(true)
db.runCommand()",
        expect![[r#"
            > db.runCommand('noSuchCmd')
            MongoServerError[CommandNotFound]: no such cmd: noSuchCmd
            > db.adminCommand('noSuchCmd')
            MongoServerError[CommandNotFound]: no such cmd: noSuchCmd
            > db.runCommand('ping')
            { ok: 1 }
            > db.runCommand({ping: 1})
            { ok: 1 }
            > db.runCommand(5)
            MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type string or object, got number instead (Database.runCommand)
            > db.adminCommand(true)
            MongoshInvalidInputError: [COMMON-10001] Argument at position 0 must be of type string or object, got boolean instead (Database.adminCommand)
            > db.runCommand()
            MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 (Database.runCommand)
        "#]],
    );
}

// --- 4. The manual's "Modify Range Size" through config.settings -------------------------

/// The manual's procedure, as it shows it.
const MODIFY_RANGE_SIZE: &str = "use config
db.settings.updateOne({ _id: \"chunksize\" }, { $set: { _id: \"chunksize\", value: 64 } }, { upsert: true })";

// The manual's "Modify Range Size in a Sharded Cluster": the upsert is an ordinary write
// to config.settings, answered with mongosh's UpdateResult (result.ts: the upserted `_id`
// as `insertedId`), and the document reads back as written. Again, the same value
// matches and modifies nothing.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn modify_range_size_is_accepted_and_reads_back() {
    let again = MODIFY_RANGE_SIZE.lines().nth(1).unwrap();
    for version in ["5.0", "8.0"] {
        let script =
            format!("sim.version('{version}')\n{MODIFY_RANGE_SIZE}\ndb.settings.find()\n{again}");
        let expected = r#"> sim.version('VERSION')
{ version: 'VERSION', ok: 1 }
> use config
switched to db config
> db.settings.updateOne({ _id: "chunksize" }, { $set: { _id: "chunksize", value: 64 } }, { upsert: true })
{
  acknowledged: true,
  insertedId: 'chunksize',
  matchedCount: 0,
  modifiedCount: 0,
  upsertedCount: 1
}
> db.settings.find()
[ { _id: 'chunksize', value: 64 } ]
> db.settings.updateOne({ _id: "chunksize" }, { $set: { _id: "chunksize", value: 64 } }, { upsert: true })
{
  acknowledged: true,
  insertedId: null,
  matchedCount: 1,
  modifiedCount: 0,
  upsertedCount: 0
}
"#;
        assert_eq!(
            transcript(&script),
            expected.replace("VERSION", version),
            "{version}"
        );
    }
}

// balancer_configuration.cpp `BalancerConfiguration::_refreshChunkSizeSettings`: the
// balancer (and 5.0's auto-splitter, through `getMaxChunkSizeBytes`) takes the chunksize
// document's `value` in MiB at its next refresh. 3,000 documents of about 1 KB are one
// chunk under 5.0's default of 64 MiB and are cut into 1 MiB chunks once the document
// says 1; 8.0's `balancerCollectionStatus` reports the size in force in MiB
// (cluster_balancer_collection_status_cmd.cpp, `chunkSize`).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_new_chunk_size_takes_effect() {
    let fill = "sh.shardCollection('test.c', {x: 1})
db.getSiblingDB('config').settings.updateOne({_id: 'chunksize'}, {$set: {_id: 'chunksize', value: SIZE}}, {upsert: true})
db.c.insertMany(Array.from({length: 3000}, (_, j) => ({x: j, s: 'X'.repeat(1000)})))";
    let chunks = |size: &str| {
        answer(
            &fill.replace("SIZE", size),
            "db.getSiblingDB('config').chunks.countDocuments()",
        )
    };
    assert_eq!(chunks("64"), "1");
    assert_eq!(chunks("1"), "3");
    let status = "db.adminCommand({balancerCollectionStatus: 'test.c'})";
    let setup = "sim.version('8.0')\nsh.shardCollection('test.c', {x: 1})";
    assert_eq!(
        answer(setup, status),
        "{ chunkSize: 128, balancerCompliant: true, ok: 1 }"
    );
    assert_eq!(
        answer(&format!("{setup}\n{MODIFY_RANGE_SIZE}"), status),
        "{ chunkSize: 64, balancerCompliant: true, ok: 1 }"
    );
    // Deleting the document brings the default back (`_refreshChunkSizeSettings` on
    // NoMatchingDocument keeps `ChunkSizeSettingsType::createDefault()`).
    assert_eq!(
        answer(
            &format!("{setup}\n{MODIFY_RANGE_SIZE}\ndb.settings.deleteOne({{_id: 'chunksize'}})"),
            status
        ),
        "{ chunkSize: 128, balancerCompliant: true, ok: 1 }"
    );
}

// 8.0: config.settings has a validator (sharding_catalog_manager.cpp `_initConfigSettings`,
// `$jsonSchema` oneOf the settings' schemas; `ChunkSizeSettingsType::kSchema` in
// balancer_configuration.cpp: only `_id` and a numeric `value` from 1 to 1024). The cases
// are jstests/sharding/config_settings_schema.js's (FCV 6.2 on): -1, a string, 5000 and an
// extra field fail with DocumentValidationFailure (121, "Document failed validation", a
// write error: mongosh prints `MongoServerError: <errmsg>`); 3.5 is accepted by the schema
// but `ChunkSizeSettingsType::fromBSON` (a whole number of MiB) refuses it, so the size in
// force stays. 5.0 has no validator: every write is accepted, and only a value `fromBSON`
// takes (a whole 1 to 1024; extra fields ignored) changes the size.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn chunk_size_values_are_checked_as_each_era_checks_them() {
    let write = |v: &str| {
        format!("db.settings.updateOne({{_id: 'chunksize'}}, {{$set: {{value: {v}}}}}, {{upsert: true}})")
    };
    let size = "sim.chunkSize()";
    let setup80 = "sim.version('8.0')\nuse config";
    for bad in ["-1", "'string'", "5000", "100, extraField: 10"] {
        assert_eq!(
            answer(setup80, &write(bad)),
            "MongoServerError: Document failed validation",
            "{bad}"
        );
        assert_eq!(
            answer(setup80, &format!("{}\ndb.settings.find()", write(bad))),
            "MongoServerError: Document failed validation",
            "{bad}: nothing written"
        );
    }
    let setup = format!("{setup80}\n{}", write("5"));
    assert_eq!(answer(&setup, size), "{ chunkSize: 5242880, ok: 1 }");
    assert_eq!(
        answer(&format!("{setup}\n{}", write("3.5")), "db.settings.find()"),
        "[ { _id: 'chunksize', value: 3.5 } ]"
    );
    assert_eq!(
        answer(&format!("{setup}\n{}", write("3.5")), size),
        "{ chunkSize: 5242880, ok: 1 }"
    );

    let setup50 = format!("sim.version('5.0')\nuse config\n{}", write("2"));
    for (v, reads) in [
        ("5000", "{ _id: 'chunksize', value: 5000 }"),
        ("'string'", "{ _id: 'chunksize', value: 'string' }"),
        ("3.5", "{ _id: 'chunksize', value: 3.5 }"),
    ] {
        let written = format!("{setup50}\n{}", write(v));
        assert_eq!(
            answer(&written, "db.settings.find()"),
            format!("[ {reads} ]")
        );
        assert_eq!(
            answer(&written, size),
            "{ chunkSize: 2097152, ok: 1 }",
            "{v}"
        );
    }
    let extra = format!("{setup50}\n{}", write("3, extraField: 10"));
    assert_eq!(answer(&extra, size), "{ chunkSize: 3145728, ok: 1 }");
}

// The other writes to a chunksize document: `insertOne` (a second one is a duplicate
// `_id`, E11000 on config.settings' `_id_` index, printed as a write error), `replaceOne`
// (the replacement keeps `_id`) and `deleteOne` (mongosh's DeleteResult). The `balancer`
// document is open to writes too (the manual's balancing window): an update without
// `upsert` finds none to change.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn other_chunksize_writes_and_refused_writes() {
    check(
        "sim.version('8.0')
use config
db.settings.insertOne({value: 7, _id: 'chunksize'})
db.settings.find()
db.settings.insertOne({_id: 'chunksize', value: 5})
db.settings.replaceOne({_id: 'chunksize'}, {value: 9})
db.settings.find()
db.settings.deleteOne({_id: 'chunksize'})
db.settings.find()
db.settings.updateOne({_id: 'balancer'}, {$set: {stopped: true}})",
        expect![[r#"
            > sim.version('8.0')
            { version: '8.0', ok: 1 }
            > use config
            switched to db config
            > db.settings.insertOne({value: 7, _id: 'chunksize'})
            { acknowledged: true, insertedId: 'chunksize' }
            > db.settings.find()
            [ { _id: 'chunksize', value: 7 } ]
            > db.settings.insertOne({_id: 'chunksize', value: 5})
            MongoServerError: E11000 duplicate key error collection: config.settings index: _id_ dup key: { _id: "chunksize" }
            > db.settings.replaceOne({_id: 'chunksize'}, {value: 9})
            {
              acknowledged: true,
              insertedId: null,
              matchedCount: 1,
              modifiedCount: 1,
              upsertedCount: 0
            }
            > db.settings.find()
            [ { _id: 'chunksize', value: 9 } ]
            > db.settings.deleteOne({_id: 'chunksize'})
            { acknowledged: true, deletedCount: 1 }
            > db.settings.find()
            > db.settings.updateOne({_id: 'balancer'}, {$set: {stopped: true}})
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
