//! The shell's printing and argument checks against mongosh's own source
//! (mongodb-js/mongosh): cursors and `it`, result objects, `show dbs`, argument errors
//! from shell-api's `assertArgsDefinedType` and from the Node driver beneath it.
//!
//! Each case names the mongosh (or Node driver, or server) source file its answer comes
//! from.
#![allow(clippy::unwrap_used)]

use shardlab::Session;

/// Runs `script` in a new session and returns what each statement printed, one answer
/// after another, separated by newlines.
fn printed(script: &str) -> String {
    let mut session = Session::default();
    let text = session
        .run(script)
        .iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n");
    session.cluster.check().unwrap();
    text
}

/// Runs `setup` (which must succeed) and then `command`, and returns what `command`
/// printed.
fn answer(setup: &str, command: &str) -> String {
    let mut session = Session::default();
    for o in session.run(setup) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    let text = session
        .run(command)
        .iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n");
    session.cluster.check().unwrap();
    text
}

/// `n` documents `{_id: 0}` to `{_id: n - 1}` in `test.d`.
fn docs(n: u32) -> String {
    format!("for (var i = 0; i < {n}; i++) db.d.insertOne({{_id: i}})")
}

/// packages/shell-api/src/abstract-cursor.ts `_it()` iterates `_displayBatchSize()` (20)
/// documents and sets `cursorHasMore = !this.isExhausted()`; packages/cli-repl/src/
/// format-output.ts `formatCursorIterationResult` prints the array, then
/// `Type "it" for more` (i18n `shell-api.classes.Cursor.iteration.type-it-for-more`).
/// shell-api.ts `it()` goes on with the current cursor; an exhausted cursor's (or no
/// cursor's) empty iteration prints `no cursor`.
#[test]
fn a_cursor_prints_twenty_documents_and_it_goes_on() {
    let out = answer(&docs(45), "db.d.find({}, {_id: 1})\nit\nit\nit\nit");
    let parts: Vec<&str> = out.split("Type \"it\" for more").collect();
    assert_eq!(parts.len(), 3, "{out}");
    assert!(parts[0].contains("{ _id: 19 }") && !parts[0].contains("{ _id: 20 }"));
    assert!(parts[1].contains("{ _id: 20 }") && parts[1].contains("{ _id: 39 }"));
    assert!(!parts[1].contains("{ _id: 40 }"), "{out}");
    assert!(parts[2].contains("{ _id: 40 }") && parts[2].contains("{ _id: 44 }"));
    assert!(parts[2].ends_with("]\nno cursor\nno cursor"), "{out}");
    // The first batch is the 20 documents as util.inspect lays out an array of 20
    // short objects (two columns, as Node's groupArrayElements chooses).
    assert!(out.starts_with("[\n  { _id: 0 },  { _id: 1 },\n"), "{out}");
}

/// Exactly 20 documents: the cursor is exhausted after the first batch, so nothing
/// follows the array (`isExhausted()`); 21 leave one for `it`.
#[test]
fn a_cursor_of_exactly_one_batch_has_no_more() {
    let out = answer(&docs(20), "db.d.find()");
    assert!(!out.contains("Type"), "{out}");
    assert!(out.contains("{ _id: 19 }"));
    assert_eq!(
        answer(&docs(20), "db.d.find()\nit").lines().last(),
        Some("no cursor")
    );
    let out = answer(&docs(21), "db.d.find()\nit");
    assert!(
        out.ends_with("]\nType \"it\" for more\n[ { _id: 20 } ]"),
        "{out}"
    );
}

/// `it` with no cursor yet: shell-api.ts `it()` returns an empty CursorIterationResult,
/// printed `no cursor`. An empty cursor prints nothing (`formatCursor` returns '').
#[test]
fn it_without_a_cursor_and_an_empty_cursor() {
    assert_eq!(printed("it"), "no cursor");
    assert_eq!(printed("db.none.find()"), "");
    assert_eq!(printed("db.none.find()\nit"), "no cursor");
}

/// collection.ts `find` and `aggregate` make the new cursor current: a `find()` that is
/// not printed (`toArray()`) leaves `it` nothing of the older cursor.
#[test]
fn a_new_find_replaces_the_current_cursor() {
    let out = answer(&docs(25), "db.d.find()\ndb.d.find().toArray().length\nit");
    assert!(out.ends_with("\n25\nno cursor"), "{out}");
    let out = answer(&docs(25), "db.d.aggregate([{$match: {}}])\nit");
    assert!(out.contains("Type \"it\" for more"), "{out}");
    assert!(
        out.ends_with("{ _id: 24 }\n]") || out.contains("{ _id: 24 }"),
        "{out}"
    );
}

/// result.ts: InsertOneResult `{acknowledged, insertedId}`, InsertManyResult
/// `{acknowledged, insertedIds}`, UpdateResult `{acknowledged, insertedId, matchedCount,
/// modifiedCount, upsertedCount}` (the upserted `_id` as `insertedId`), DeleteResult
/// `{acknowledged, deletedCount}`.
#[test]
fn write_results_have_mongosh_fields_in_order() {
    assert_eq!(
        printed("db.c.insertOne({_id: 1})"),
        "{ acknowledged: true, insertedId: 1 }"
    );
    assert_eq!(
        printed("db.c.insertMany([{_id: 2}, {_id: 3}])"),
        "{ acknowledged: true, insertedIds: { '0': 2, '1': 3 } }"
    );
    let update = "{\n  acknowledged: true,\n  insertedId: null,\n  matchedCount: 1,\n  \
                  modifiedCount: 1,\n  upsertedCount: 0\n}";
    assert_eq!(
        answer(
            "db.c.insertOne({_id: 1})",
            "db.c.updateOne({_id: 1}, {$set: {y: 1}})"
        ),
        update
    );
    let upsert = "{\n  acknowledged: true,\n  insertedId: 9,\n  matchedCount: 0,\n  \
                  modifiedCount: 0,\n  upsertedCount: 1\n}";
    assert_eq!(
        printed("db.c.updateOne({_id: 9}, {$set: {y: 1}}, {upsert: true})"),
        upsert
    );
    assert_eq!(
        answer(
            "db.c.insertMany([{_id: 1}, {_id: 2}])",
            "db.c.deleteMany({})"
        ),
        "{ acknowledged: true, deletedCount: 2 }"
    );
    assert_eq!(
        printed("db.c.deleteOne({_id: 5})"),
        "{ acknowledged: true, deletedCount: 0 }"
    );
}

/// collection.ts: `assertArgsDefinedType([x], [true], 'Collection.<method>')` for the
/// first argument of insertOne, insertMany, deleteOne, deleteMany, updateOne,
/// updateMany, replaceOne and createIndex: helpers.ts raises MongoshInvalidInputError
/// `Missing required argument at position 0 (Collection.<method>)` with COMMON-10001.
#[test]
fn missing_first_arguments_are_mongosh_invalid_input() {
    for method in [
        "insertOne",
        "insertMany",
        "deleteOne",
        "deleteMany",
        "updateOne",
        "updateMany",
        "replaceOne",
        "createIndex",
    ] {
        assert_eq!(
            printed(&format!("db.c.{method}()")),
            format!(
                "MongoshInvalidInputError: [COMMON-10001] Missing required argument at \
                 position 0 (Collection.{method})"
            )
        );
    }
    // findOneAndUpdate/findOneAndDelete check their filter the same way.
    assert_eq!(
        printed("db.c.findOneAndDelete()"),
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 \
         (Collection.findOneAndDelete)"
    );
}

/// The Node driver's `makeUpdateStatement` (src/operations/update.ts): a missing or
/// non-object update is `Document must be a valid JavaScript object`; an empty pipeline
/// has no atomic operator (`hasAtomicOperators([])` is false).
#[test]
fn update_arguments_are_checked_as_the_driver_does() {
    assert_eq!(
        printed("db.c.updateOne({})"),
        "MongoInvalidArgumentError: Document must be a valid JavaScript object"
    );
    assert_eq!(
        printed("db.c.replaceOne({_id: 1}, 5)"),
        "MongoInvalidArgumentError: Document must be a valid JavaScript object"
    );
    assert_eq!(
        printed("db.c.updateMany({}, [])"),
        "MongoInvalidArgumentError: Update document requires atomic operators"
    );
    assert_eq!(
        printed("db.c.updateOne({}, {a: 1})"),
        "MongoInvalidArgumentError: Update document requires atomic operators"
    );
    assert_eq!(
        printed("db.c.replaceOne({}, {$set: {a: 1}})"),
        "MongoInvalidArgumentError: Replacement document must not contain atomic operators"
    );
}

/// The driver's FindCursor `limit`/`skip` (src/cursor/find_cursor.ts): `typeof value !==
/// 'number'` is `Operation "limit" requires an integer`; `formatSort` (src/sort.ts)
/// takes a field name, ignores null, and refuses other non-objects. A negative limit
/// is sent as `limit: n, singleBatch: true`.
#[test]
fn cursor_chain_arguments_are_checked_as_the_driver_does() {
    let setup = docs(5);
    assert_eq!(
        answer(&setup, "db.d.find().limit()"),
        "MongoInvalidArgumentError: Operation \"limit\" requires an integer"
    );
    assert_eq!(
        answer(&setup, "db.d.find().skip('a')"),
        "MongoInvalidArgumentError: Operation \"skip\" requires an integer"
    );
    assert_eq!(
        answer(&setup, "db.d.find().limit(NumberLong(2))"),
        "MongoInvalidArgumentError: Operation \"limit\" requires an integer"
    );
    assert_eq!(
        answer(&setup, "db.d.find().sort(5)"),
        "MongoInvalidArgumentError: Invalid sort format: 5 Sort must be a valid object"
    );
    assert_eq!(
        answer(&setup, "db.d.find().sort('_id').limit(-2)"),
        "[ { _id: 0 }, { _id: 1 } ]"
    );
    assert_eq!(
        answer(&setup, "db.d.find().limit(2).skip(1).sort({_id: -1})"),
        "[ { _id: 3 }, { _id: 2 } ]"
    );
    // cursor.count() sends the cursor's limit and skip (FindCursor.count spreads
    // findOptions into the count command).
    assert_eq!(answer(&setup, "db.d.find().limit(3).count()"), "3");
    assert_eq!(answer(&setup, "db.d.find().skip(4).count()"), "1");
}

/// A negative skip reaches the server: the find command's IDL validator (`gte: 0`,
/// find_command.idl from 4.4) answers Location51024; 3.6's `QueryRequest::validate`
/// answers BadValue.
#[test]
fn a_negative_skip_is_the_servers_error_per_version() {
    assert_eq!(
        answer(&docs(2), "db.d.find().skip(-1)"),
        "MongoServerError[Location51024]: BSON field 'skip' value must be >= 0, actual \
         value '-1'"
    );
    assert_eq!(
        answer(
            &format!("sim.reset({{version: '3.6'}})\n{}", docs(2)),
            "db.d.find().skip(-1)"
        ),
        "MongoServerError[BadValue]: Skip value must be non-negative, but received: -1"
    );
}

/// countDocuments' options: the driver counts with `$skip` and `$limit` stages
/// (CountDocumentsOperation); estimatedDocumentCount ignores any filter.
#[test]
fn count_documents_honours_skip_and_limit() {
    let setup = docs(30);
    assert_eq!(answer(&setup, "db.d.countDocuments()"), "30");
    assert_eq!(answer(&setup, "db.d.countDocuments({}, {limit: 5})"), "5");
    assert_eq!(answer(&setup, "db.d.countDocuments({}, {skip: 25})"), "5");
    assert_eq!(
        answer(
            &setup,
            "db.d.countDocuments({_id: {$lt: 10}}, {skip: 2, limit: 3})"
        ),
        "3"
    );
    assert_eq!(answer(&setup, "db.d.countDocuments({}, {skip: 40})"), "0");
    assert_eq!(answer(&setup, "db.d.estimatedDocumentCount()"), "30");
}

/// collection.ts `createIndex` answers the one name `_createIndexes` returns and refuses
/// options that are not an object; `ensureIndex` answers the array of names.
#[test]
fn create_index_answers_and_checks_its_options() {
    assert_eq!(printed("db.c.createIndex({a: 1})"), "a_1");
    assert_eq!(printed("db.c.createIndex({a: -1, b: 1})"), "a_-1_b_1");
    assert_eq!(printed("db.c.createIndex({h: 'hashed'})"), "h_hashed");
    assert_eq!(printed("db.c.ensureIndex({b: 1})"), "[ 'b_1' ]");
    assert_eq!(
        printed("db.c.createIndex({a: 1}, 5)"),
        "MongoshInvalidInputError: [COMMON-10001] The \"options\" argument must be an object."
    );
    assert_eq!(
        printed("db.c.createIndex({a: 1}, [])"),
        "MongoshInvalidInputError: [COMMON-10001] The \"options\" argument must be an object."
    );
    assert_eq!(
        answer("db.c.createIndex({a: 1})\ndb.c.createIndex({b: 1}, {unique: true})", "db.c.getIndexes()"),
        "[\n  { v: 2, key: { _id: 1 }, name: '_id_' },\n  { v: 2, key: { a: 1 }, name: 'a_1' },\n  \
         { v: 2, key: { b: 1 }, name: 'b_1', unique: true }\n]"
    );
}

/// format-output.ts `formatBytes`: numeral's `0 ib` up to 1000 bytes, `0.00 ib` above,
/// numeral rounding half up on the decimal text (`Math.round(value + 'e+2')`).
#[test]
fn show_dbs_sizes_round_as_numeral_does() {
    use shardlab::session::format_bytes as fb;
    assert_eq!(fb(59), "59 B");
    assert_eq!(fb(1000), "1000 B");
    assert_eq!(fb(1001), "1001.00 B");
    assert_eq!(fb(1024), "1.00 KiB");
    assert_eq!(fb(1152), "1.13 KiB");
    assert_eq!(fb(45_056), "44.00 KiB");
    assert_eq!(fb(3 * 1024 * 1024 / 2), "1.50 MiB");
}

/// database.ts `_getCollectionNamesWithTypes` sorts `show collections` with
/// `localeCompare` (ICU: punctuation, digits, then letters, lowercase before uppercase);
/// `getCollectionNames()` keeps listCollections' order (the catalog's, by name).
#[test]
fn show_collections_sorts_as_locale_compare() {
    let setup = "db.B.insertOne({})\ndb.a.insertOne({})\ndb.A.insertOne({})\n\
                 db.c.insertOne({})\ndb._x.insertOne({})\ndb['1z'].insertOne({})";
    assert_eq!(answer(setup, "show collections"), "_x\n1z\na\nA\nB\nc");
    assert_eq!(
        answer(setup, "db.getCollectionNames()"),
        "[ '1z', 'A', 'B', '_x', 'a', 'c' ]"
    );
    assert_eq!(answer("use shop", "db.getName()"), "shop");
}

/// format-output.ts prints a `Cursor`, a `CursorIterationResult` and an `ExplainOutput`
/// with `fullDepthInspectOptions` (no depth, array or string limit), other values with
/// `inspectDepth` 6 and Node's 100-item limit; a property read from an explain is a
/// plain document again.
#[test]
fn cursors_and_explains_print_in_full() {
    let setup = "var a = []; for (var i = 0; i < 120; i++) a.push(i)\n\
                 db.c.insertOne({_id: 1, a: a, n: {b: {c: {d: {e: {f: {g: {h: 1}}}}}}}})";
    let found = answer(setup, "db.c.find()");
    assert!(
        !found.contains("more items") && found.contains("119"),
        "{found}"
    );
    assert!(found.contains("g: { h: 1 }"), "{found}");
    let one = answer(setup, "db.c.findOne()");
    assert!(one.contains("... 20 more items"), "{one}");
    assert!(one.contains("g: [Object]"), "{one}");

    let setup = "sh.shardCollection('test.o', {k: 1})\ndb.o.insertOne({k: 1})";
    let explain = answer(setup, "db.o.find({k: 1}).explain()");
    assert!(
        !explain.contains("[Object]") && !explain.contains("[Array]"),
        "{explain}"
    );
    let planner = answer(setup, "db.o.find({k: 1}).explain().queryPlanner");
    assert!(planner.contains("[Array]"), "{planner}");
}

/// collection.ts `_createIndexes` sends `{...options, key}`, so `{name}` names the index,
/// and the driver answers the names it sent (an index that exists already answers its
/// name again; `{_id: 1}` is the `_id` index: "all indexes already exist"). The server's
/// `_doesSpecConflictWithExisting` (index_catalog_impl.cpp) refuses the same key under
/// another name (IndexOptionsConflict) and the same name on another key
/// (IndexKeySpecsConflict; 3.6: IndexOptionsConflict "already exists with different
/// options").
#[test]
fn create_index_takes_its_name_and_refuses_clashes() {
    let setup = "db.c.createIndex({a: 1}, {name: 'foo'})";
    assert_eq!(printed(setup), "foo");
    assert_eq!(
        answer(setup, "db.c.createIndex({a: 1}, {name: 'foo'})"),
        "foo"
    );
    assert_eq!(
        answer(setup, "db.c.createIndex({a: 1})"),
        "MongoServerError[IndexOptionsConflict]: Index already exists with a different name: foo"
    );
    assert_eq!(
        answer(setup, "db.c.createIndex({b: 1}, {name: 'foo'})"),
        "MongoServerError[IndexKeySpecsConflict]: An existing index has the same name as the \
         requested index. When index names are not specified, they are auto generated and can \
         cause conflicts. Please refer to our documentation. Requested index: { v: 2, key: { \
         b: 1 }, name: \"foo\" }, existing index: { v: 2, key: { a: 1 }, name: \"foo\" }"
    );
    assert_eq!(answer(setup, "db.c.createIndex({_id: 1})"), "_id_1");
    assert_eq!(
        answer(setup, "db.c.getIndexes()"),
        "[\n  { v: 2, key: { _id: 1 }, name: '_id_' },\n  { v: 2, key: { a: 1 }, name: 'foo' }\n]"
    );
    assert_eq!(
        answer(
            &format!("sim.reset({{version: '3.6'}})\n{setup}"),
            "db.c.createIndex({b: 1}, {name: 'foo'})"
        ),
        "MongoServerError[IndexOptionsConflict]: Index with name: foo already exists with \
         different options"
    );
}

/// database.ts `getSiblingDB` returns another Database (printed as its name) and leaves
/// the current one; it and `getCollection` check their name with
/// `assertArgsDefinedType([x], ['string'], 'Database.getSiblingDB' | 'Database.getColl')`
/// and then mongo.ts `_getDb`'s `isValidDatabaseName` (no `/\. "` or NUL) or
/// `isValidCollectionName` (no `$` or NUL), helpers.ts.
#[test]
fn sibling_databases_and_collections_by_name() {
    assert_eq!(
        printed("db.getSiblingDB('other')\ndb.getName()"),
        "other\ntest"
    );
    assert_eq!(printed("db.getSiblingDB('other').getName()"), "other");
    assert_eq!(printed("db.getCollection('x')"), "test.x");
    let invalid = "MongoshInvalidInputError: [COMMON-10001] ";
    for (command, message) in [
        (
            "db.getSiblingDB()",
            "Missing required argument at position 0 (Database.getSiblingDB)",
        ),
        (
            "db.getSiblingDB(5)",
            "Argument at position 0 must be of type string, got number instead \
             (Database.getSiblingDB)",
        ),
        ("db.getSiblingDB('a.b')", "Invalid database name: a.b"),
        ("db.getSiblingDB('')", "Invalid database name: "),
        (
            "db.getCollection()",
            "Missing required argument at position 0 (Database.getColl)",
        ),
        (
            "db.getCollection({})",
            "Argument at position 0 must be of type string, got object instead \
             (Database.getColl)",
        ),
        ("db.getCollection('a$b')", "Invalid collection name: a$b"),
    ] {
        assert_eq!(printed(command), format!("{invalid}{message}"), "{command}");
    }
}

/// insertMany passes a non-array through (collection.ts), and the driver's
/// InsertManyOperation refuses it (src/operations/insert.ts) — the error a person
/// meets when they forget the brackets.
#[test]
fn insert_many_without_an_array() {
    assert_eq!(
        printed("db.c.insertMany({a: 1}, {a: 2})"),
        "MongoInvalidArgumentError: Argument \"docs\" must be an array of documents"
    );
    assert_eq!(
        printed("db.c.insertMany({a: 1})\ndb.c.countDocuments()"),
        "MongoInvalidArgumentError: Argument \"docs\" must be an array of documents\n0"
    );
}

/// collection.ts `count`, `insert` and `remove` call `printDeprecationWarning`, which
/// prints `DeprecationWarning: <message>` once a session (shell-instance-state.ts).
#[test]
fn legacy_methods_warn_once() {
    let warning = "DeprecationWarning: Collection.count() is deprecated. Use countDocuments or \
         estimatedDocumentCount.";
    assert_eq!(
        printed("db.c.count()\ndb.c.count()"),
        format!("{warning}\n0\n0")
    );
    let out = printed("db.c.insert({_id: 1})\ndb.c.remove({_id: 1})");
    assert!(
        out.starts_with(
            "DeprecationWarning: Collection.insert() is deprecated. Use insertOne, insertMany, \
         or bulkWrite.\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "\nDeprecationWarning: Collection.remove() is deprecated. Use deleteOne, deleteMany, \
         findOneAndDelete, or bulkWrite.\n"
        ),
        "{out}"
    );
}

/// collection.ts `remove(query, options)`: helpers.ts `processRemoveOptions` takes a
/// boolean or `{justOne}`; justOne deletes one document, else all that match.
#[test]
fn remove_just_one() {
    let setup = "db.c.insertMany([{a: 1}, {a: 1}, {a: 1}])";
    let out = answer(setup, "db.c.remove({a: 1}, true)");
    assert!(
        out.ends_with("{ acknowledged: true, deletedCount: 1 }"),
        "{out}"
    );
    let out = answer(setup, "db.c.remove({a: 1}, {justOne: true})");
    assert!(
        out.ends_with("{ acknowledged: true, deletedCount: 1 }"),
        "{out}"
    );
    let out = answer(setup, "db.c.remove({a: 1})");
    assert!(
        out.ends_with("{ acknowledged: true, deletedCount: 3 }"),
        "{out}"
    );
}

/// collection.ts `aggregate(...args)`: no argument is the empty pipeline, and stages may
/// be given one by one instead of in an array.
#[test]
fn aggregate_without_a_pipeline_and_with_loose_stages() {
    let setup = "db.c.insertMany([{_id: 1, a: 1}, {_id: 2, a: 2}])";
    assert_eq!(
        answer(setup, "db.c.aggregate()"),
        "[ { _id: 1, a: 1 }, { _id: 2, a: 2 } ]"
    );
    assert_eq!(
        answer(
            setup,
            "db.c.aggregate({$match: {a: 1}}, {$project: {_id: 0}})"
        ),
        "[ { a: 1 } ]"
    );
}

/// collection.ts `updateOne`/`updateMany`/`replaceOne` spread their options into the
/// driver's (`{...baseOptions, ...options}`): options that are not an object add none.
#[test]
fn update_options_that_are_not_objects_add_nothing() {
    let setup = "db.c.insertOne({_id: 1})";
    let out = answer(setup, "db.c.updateMany({}, {$set: {a: 1}}, 5)");
    assert!(
        out.contains("matchedCount: 1,\n  modifiedCount: 1,"),
        "{out}"
    );
    let out = answer(setup, "db.c.updateOne({_id: 2}, {$set: {a: 1}}, 'upsert')");
    assert!(out.contains("upsertedCount: 0"), "{out}");
}

/// mongo.ts `show(cmd)`: an argument it does not know is `'<cmd>' is not a valid
/// argument for "show".` (its `default:` case); a bare `show` passes `undefined`.
#[test]
fn show_with_an_unknown_argument() {
    assert_eq!(
        printed("show foo"),
        "MongoshInvalidInputError: [COMMON-10001] 'foo' is not a valid argument for \"show\"."
    );
    assert_eq!(
        printed("show"),
        "MongoshInvalidInputError: [COMMON-10001] 'undefined' is not a valid argument for \
         \"show\"."
    );
}

/// helpers.ts `getPrintableShardStatus` prints config.version as `shardingVersion` and
/// config.shards as `shards`: before SERVER-68888 (6.2) config.version also held
/// `minCompatibleVersion: 5, currentVersion: 6` (3.6 to 6.0 clusters print them), and 8.0
/// shards carry `replSetConfigVersion: Long('-1')` (listShards too).
#[test]
fn sh_status_sharding_version_and_shards_per_version() {
    let status = |v: &str| printed(&format!("sim.reset({{version: '{v}'}})\nsh.status()"));
    for v in ["3.6", "5.0"] {
        let out = status(v);
        assert!(
            out.contains(
                "shardingVersion\n{\n  _id: 1,\n  minCompatibleVersion: 5,\n  currentVersion: 6,\n  \
                 clusterId: ObjectId("
            ),
            "{v}: {out}"
        );
        assert!(!out.contains("replSetConfigVersion"), "{v}: {out}");
    }
    let out = status("8.0");
    assert!(
        out.contains("shardingVersion\n{ _id: 1, clusterId: ObjectId("),
        "{out}"
    );
    assert!(
        out.contains("topologyTime: Timestamp({ t: 1735689600, i: 1 }),\n    replSetConfigVersion: Long('-1')\n  }"),
        "{out}"
    );
    let shards = printed("sim.reset({version: '8.0'})\ndb.adminCommand({listShards: 1}).shards[0]");
    assert!(
        shards.ends_with("replSetConfigVersion: Long('-1')\n}"),
        "{shards}"
    );
}

/// helpers.ts reads `autosplit` from config.settings: no document is `'yes'` (8.0
/// clusters print `{ 'Currently enabled': 'yes' }` though they never split). shard.ts
/// `disableAutoSplit` upserts `{enabled: false}` in every era, after a deprecation
/// warning from 6.0.3; 7.0's config.settings validator takes the document (its branch
/// without a schema lists `autosplit`), 8.0's has no branch for it and refuses it
/// (sharding_catalog_manager.cpp `_initConfigSettings`), so 8.0 still says `'yes'`.
#[test]
fn sh_status_autosplit_reads_the_settings_document() {
    assert_eq!(
        answer("sim.reset({version: '8.0'})", "sh.status().autosplit"),
        "{ 'Currently enabled': 'yes' }"
    );
    let warning =
        "DeprecationWarning: Starting in MongoDB 6.0.3, automatic chunk splitting is not \
         performed.";
    let out = printed("sim.reset({version: '7.0'})\nsh.disableAutoSplit()\nsh.status().autosplit");
    assert!(out.contains(warning), "{out}");
    assert!(out.ends_with("{ 'Currently enabled': 'no' }"), "{out}");
    let out = printed("sim.reset({version: '8.0'})\nsh.disableAutoSplit()\nsh.status().autosplit");
    assert!(out.contains(warning), "{out}");
    assert!(
        out.contains("MongoServerError: Document failed validation"),
        "{out}"
    );
    assert!(out.ends_with("{ 'Currently enabled': 'yes' }"), "{out}");
    let out = printed("sim.reset({version: '5.0'})\nsh.disableAutoSplit()\nsh.status().autosplit");
    assert!(!out.contains("DeprecationWarning"), "{out}");
    assert!(out.ends_with("{ 'Currently enabled': 'no' }"), "{out}");
}

/// collection.ts `insertOne` inserts `{ ...doc }` and `insertMany` each `{ ...doc }`:
/// JavaScript's spread of a number, a boolean or null is `{}`, of a string its
/// characters by index, of an array its elements by index; `undefined` is a missing
/// argument (assertArgsDefinedType).
#[test]
fn inserts_copy_documents_with_javascripts_spread() {
    let out = printed(
        "db.c.insertOne(5)\ndb.c.insertOne('ab')\ndb.c.insertMany([true, [7, 8]])\n\
         db.c.insertOne(null)\ndb.c.find({}, {_id: 0}).toArray()",
    );
    assert!(
        out.ends_with("[ {}, { '0': 'a', '1': 'b' }, {}, { '0': 7, '1': 8 }, {} ]"),
        "{out}"
    );
    assert_eq!(
        printed("db.c.insertOne(undefined)"),
        "MongoshInvalidInputError: [COMMON-10001] Missing required argument at position 0 \
         (Collection.insertOne)"
    );
}
