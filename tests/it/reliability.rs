//! Hostile and edge-case input keeps the model's invariants: no acknowledged document is
//! lost, the chunks always tile the key space, and every refusal carries MongoDB's code,
//! code name and words.
#![allow(clippy::unwrap_used)]

use shardlab::{ClusterConfig, Session};

/// Runs `script` in a fresh session and returns each statement's printed result.
fn run(script: &str) -> (Session, Vec<String>) {
    let mut s = Session::new(ClusterConfig::default());
    let out = s
        .run(script)
        .iter()
        .map(|o| o.render().unwrap_or_default())
        .collect();
    (s, out)
}

/// The last statement's printed result.
fn last(script: &str) -> String {
    let (s, out) = run(script);
    s.cluster.check().expect("the model's invariants hold");
    out.last().cloned().unwrap_or_default()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_maxkey_shard_key_is_refused_not_lost() {
    let setup = r#"sh.shardCollection("test.c", {a: 1})
db.c.insertOne({_id: 1, a: MaxKey()})"#;
    assert_eq!(
        last(setup),
        "MongoServerError: Cannot target single shard using key { a: MaxKey } for namespace test.c"
    );
    // Nothing was stored: the count agrees with the distribution, and the `_id` is free.
    let (s, out) = run(&format!(
        "{setup}\ndb.c.countDocuments()\ndb.c.insertOne({{_id: 1, a: 5}})\ndb.c.countDocuments()"
    ));
    s.cluster.check().unwrap();
    assert_eq!(out[2], "0");
    assert!(out[3].contains("acknowledged: true"), "{}", out[3]);
    assert_eq!(out[4], "1");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn maxkey_below_the_global_maximum_routes_and_is_found() {
    // A compound key whose first field is MaxKey is still below { MaxKey, MaxKey }, and a
    // hashed MaxKey is a number: both route, and find() returns them.
    let out = last(
        r#"sh.shardCollection("test.c", {a: 1, b: 1})
db.c.insertOne({_id: 1, a: MaxKey(), b: 1})
db.c.countDocuments()"#,
    );
    assert_eq!(out, "1");
    let out = last(
        r#"sh.shardCollection("test.h", {a: "hashed"})
db.h.insertOne({_id: 1, a: MaxKey()})
db.h.find({}, {_id: 1}).toArray().length"#,
    );
    assert_eq!(out, "1");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn an_update_to_a_maxkey_shard_key_is_refused() {
    let out = last(
        r#"sh.shardCollection("test.c", {a: 1})
db.c.insertOne({_id: 1, a: 1})
db.c.updateOne({a: 1}, {$set: {a: MaxKey()}})"#,
    );
    assert_eq!(
        out,
        "MongoServerError: Cannot target single shard using key { a: MaxKey } for namespace test.c"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn splitting_at_minkey_or_maxkey_is_refused_with_a_code() {
    let out = last(
        r#"sh.shardCollection("test.c", {a: 1})
sh.splitAt("test.c", {a: MaxKey()})"#,
    );
    assert_eq!(
        out,
        "MongoServerError[UnknownError]: new split key { a: MaxKey } is a boundary key of existing chunk [{ a: MinKey },{ a: MaxKey })"
    );
    let (s, out) = run(r#"sh.shardCollection("test.c", {a: 1})
sh.splitAt("test.c", {a: MinKey()})
db.adminCommand({split: "test.c", middle: {a: MaxKey()}})
sh.status()"#);
    s.cluster.check().unwrap();
    assert_eq!(
        out[1],
        "MongoServerError[UnknownError]: new split key { a: MinKey } is a boundary key of existing chunk [{ a: MinKey },{ a: MaxKey })"
    );
    assert!(
        out[2].starts_with("MongoServerError[UnknownError]: new split key { a: MaxKey }"),
        "{}",
        out[2]
    );
    let chunks = s.cluster.sharding("test.c").unwrap().table.len();
    assert_eq!(chunks, 1, "no chunk was added");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn regex_ids_are_refused_and_null_or_undefined_ones_replaced() {
    assert_eq!(
        last("db.c.insertOne({_id: /x/})"),
        "MongoServerError: can't use a regex for _id"
    );
    // mongosh's driver gives `_id: null` or `undefined` a new ObjectId before sending
    // (`maybeAddIdToDocuments`, `doc._id == null`): mongod never sees it.
    for id in ["undefined", "null"] {
        let out = last(&format!(
            "db.c.insertOne({{_id: {id}, a: 1}})\ndb.c.findOne({{a: 1}})"
        ));
        assert!(
            out.starts_with("{ _id: ObjectId('") && out.ends_with("'), a: 1 }"),
            "{id}: {out}"
        );
    }
    assert_eq!(
        last("db.c.insertOne({_id: /x/})\ndb.c.countDocuments()"),
        "0"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_last_shard_that_keeps_data_cannot_be_drained() {
    let (s, out) = run(r#"db.adminCommand({removeShard: "shard01"})
db.adminCommand({removeShard: "shard02"})
db.adminCommand({removeShard: "shard03"})"#);
    s.cluster.check().unwrap();
    assert!(out[0].contains("started"), "{}", out[0]);
    assert!(out[1].contains("started"), "{}", out[1]);
    assert_eq!(
        out[2],
        "MongoServerError[IllegalOperation]: Operation not allowed because it would remove the last shard"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_shard_with_an_empty_host_is_refused() {
    let mut c = shardlab::Cluster::new(ClusterConfig::default());
    let before = c.live_shard_count();
    let err = c.add_shard_at("").unwrap_err();
    assert_eq!(err.code_name(), "FailedToParse");
    assert_eq!(
        err.to_string(),
        "Empty host component parsing HostAndPort from \"\""
    );
    assert!(c.add_shard_at(":27018").is_err());
    assert_eq!(c.live_shard_count(), before);
    assert!(c.add_shard_at("host4:27018").is_ok());
    assert_eq!(c.live_shard_count(), before + 1);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_nul_in_a_namespace_is_refused() {
    let mut c = shardlab::Cluster::new(ClusterConfig::default());
    let err = c
        .shard_collection("te\0st.c", &bson::doc! {"a": 1}, false, None)
        .unwrap_err();
    assert_eq!(err.code_name(), "InvalidNamespace");
    assert!(c
        .insert_many("test.c\0x", vec![bson::doc! {"a": 1}])
        .is_err());
}

/// A document of `levels` levels counting itself (`{a: {a: ... {a: inner}}}`).
fn nested(levels: usize, inner: bson::Bson) -> bson::Document {
    let mut d = bson::doc! { "a": inner };
    for _ in 1..levels {
        d = bson::doc! { "a": d };
    }
    d
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn documents_nested_past_180_levels_are_refused() {
    let mut c = shardlab::Cluster::new(ClusterConfig::default());
    // 180 levels counting the document itself are stored; an empty document one level
    // further does not count; a non-empty one does.
    assert!(c
        .insert_many("test.c", [nested(180, bson::Bson::Int32(1))])
        .is_ok());
    assert!(c
        .insert_many("test.c", [nested(180, bson::Bson::Document(bson::doc! {}))])
        .is_ok());
    let (_, err) = c
        .insert_many("test.c", [nested(181, bson::Bson::Int32(1))])
        .unwrap_err();
    assert_eq!(err.code(), 15);
    assert_eq!(err.code_name(), "Overflow");
    assert_eq!(
        err.to_string(),
        "cannot insert document because it exceeds 180 levels of nesting"
    );
    assert_eq!(c.collection("test.c").unwrap().doc_count(), 2);
    c.check().unwrap();
}

/// `lines` copies of `line`, after `first`.
fn script(first: &str, line: &str, lines: usize) -> String {
    let mut s = format!("{first}\n");
    for _ in 0..lines {
        s.push_str(line);
        s.push('\n');
    }
    s
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn values_built_through_variables_stop_at_200_levels() {
    // 10,000 `x = {a: x}` (once quadratic and unbounded) stop at MongoDB's depth, and
    // the insert of what was built is refused at the storage depth.
    let s = script("var x = 1", "x = {a: x}", 10_000) + "db.c.insertOne(x)";
    let (session, out) = run(&s);
    // mongosh echoes each assignment's value (see tests/it/shell_js.rs).
    assert!(out[200].starts_with("{\n  a: {"), "200 levels are built");
    assert_eq!(
        out[201],
        "MongoServerError[Overflow]: BSONObj exceeds maximum nested object depth"
    );
    assert_eq!(
        out.last().unwrap(),
        "MongoServerError[Overflow]: cannot insert document because it exceeds 180 levels of nesting"
    );
    session.cluster.check().unwrap();
    // Deep literals assigned 60 levels at a time stop the same way.
    let deep = format!("x = {}x{}", "{a:".repeat(60), "}".repeat(60));
    let out = last(&(script("var x = 1", &deep, 74) + "db.c.insertOne({_id: x})"));
    assert!(out.starts_with("MongoServerError[Overflow]: "), "{out}");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn doubling_a_value_or_a_string_stops_at_the_limits() {
    let (_, out) =
        run(&(script("var a = {x: 1}", "a = {l: a, r: a}", 22) + "db.c.insertOne({a: a})"));
    assert!(
        out.iter().any(|l| l.starts_with("MongoServerError[ExceededMemoryLimit]: a value built in the shell may hold at most 100000 values")),
        "{out:?}"
    );
    assert!(
        out.last().unwrap().contains("acknowledged: true"),
        "what was built is kept"
    );
    let (_, out) = run(&(script("var s = \"ab\"", "s = s + s", 33) + "s.length"));
    assert_eq!(out[24], "RangeError: Invalid string length");
    assert_eq!(out.last().unwrap(), "16777216");
    // Many copies of a large value are refused before they are all made.
    let (_, out) = run(
        &(script("var s = \"ab\"", "s = s + s", 23) + "var t = [s, s, s, s, s, s, s, s, s, s]")
    );
    assert!(
        out.last()
            .unwrap()
            .starts_with("MongoServerError[BSONObjectTooLarge]: BSONObj size: "),
        "{out:?}"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn generation_past_its_budget_is_refused_up_front() {
    assert_eq!(
        last(r#"sim.generate("test.e", "monotonic", 1000000)"#),
        "MongoServerError[BadValue]: cannot generate 1000000 documents in one call; the limit is 100000"
    );
    let out = last(
        r#"sim.generate("test.e", {x: "increasing", pad: {gen: "padding", bytes: 1000000}}, 1000)
db.e.countDocuments()"#,
    );
    assert_eq!(out, "0");
    let (_, out) = run(
        r#"sim.generate("test.e", {x: "increasing", pad: {gen: "padding", bytes: 1000000}}, 1000)"#,
    );
    assert!(
        out[0].starts_with(
            "MongoServerError[ExceededMemoryLimit]: cannot generate 1000 documents of about 1000"
        ),
        "{}",
        out[0]
    );
    assert!(
        out[0].ends_with("the limit is 64 MiB per call"),
        "{}",
        out[0]
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn reset_refuses_options_out_of_range() {
    let (_, out) = run(r#"sim.reset({shards: 100000})
sim.reset({shards: NaN})
sim.reset({chunkSize: 0})
sim.chunkSize(0)
sim.reset({shards: 5, chunkSize: 2048})
sh.status().shards.length"#);
    assert_eq!(
        out[0],
        "MongoServerError[BadValue]: shards must be between 1 and 64, got 100000"
    );
    assert_eq!(
        out[1],
        "MongoServerError[BadValue]: shards must be an integer, got NaN"
    );
    assert_eq!(out[2], out[3], "sim.reset and sim.chunkSize refuse alike");
    assert_eq!(out[4], "{ ok: 1 }");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn inc_past_int64_is_refused() {
    let (s, out) = run(
        r#"db.c.insertOne({_id: 1, a: NumberLong("9223372036854775807"), b: 2147483647})
db.c.updateOne({_id: 1}, {$inc: {a: 1}})
db.c.updateOne({_id: 1}, {$inc: {b: 1}})
db.c.findOne()"#,
    );
    assert_eq!(
        out[1],
        "MongoServerError: Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: 1}"
    );
    assert_eq!(
        out[3], "{ _id: 1, a: Long('9223372036854775807'), b: Long('2147483648') }",
        "int32 overflow widens to int64; the int64 is unchanged"
    );
    s.cluster.check().unwrap();
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn an_empty_shard_host_and_a_nul_in_a_key_field_are_refused() {
    let (s, out) = run(r#"sh.addShard("")
db.adminCommand({addShard: ""})
sh.addShard("host4:27018")
sh.shardCollection("test.c", {"a\u0000b": 1})"#);
    let refused =
        "MongoServerError[FailedToParse]: Empty host component parsing HostAndPort from \"\"";
    assert_eq!(out[0], refused);
    assert_eq!(out[1], refused);
    assert_eq!(out[2], "{ shardAdded: 'shard04', ok: 1 }");
    assert_eq!(
        out[3],
        "MongoServerError[BadValue]: key a\0b must not contain null bytes"
    );
    assert!(s.cluster.sharding("test.c").is_err());
}

/// A write's error as mongosh prints it: one write's (`insertOne`, `updateOne`, ...) is a
/// `writeErrors` entry, which carries no code name, so mongosh prints
/// `MongoServerError: <errmsg>`; `insertMany`'s is the driver's `MongoBulkWriteError`
/// (bulk.ts `handleWriteError`: the first write error's `errmsg`), which mongosh prints
/// with the `BulkWriteResult` and the `WriteError`s (format-output.ts `formatError`).
/// Unordered, the writes after a failed one still run.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn write_errors_print_as_mongosh_prints_them() {
    let dup = "E11000 duplicate key error collection: test.c index: _id_ dup key: { _id: 1 }";
    assert_eq!(
        last("db.c.insertOne({_id: 1})\ndb.c.insertOne({_id: 1})"),
        format!("MongoServerError: {dup}")
    );
    let (s, out) = run("db.c.insertMany([{_id: 1}, {_id: 1}, {_id: 2}])\ndb.c.countDocuments()");
    s.cluster.check().expect("the model's invariants hold");
    assert_eq!(
        out[0],
        format!(
            "MongoBulkWriteError: {dup}
Result: BulkWriteResult {{
  insertedCount: 1,
  matchedCount: 0,
  modifiedCount: 0,
  deletedCount: 0,
  upsertedCount: 0,
  upsertedIds: {{}},
  insertedIds: {{ '0': 1 }}
}}
Write Errors: [
  WriteError {{
    err: {{
      index: 1,
      code: 11000,
      errmsg: '{dup}',
      errInfo: undefined,
      op: {{ _id: 1 }}
    }}
  }}
]"
        )
    );
    assert_eq!(
        out[1], "1",
        "ordered: the writes after the error did not run"
    );
    let (_, out) = run(
        "db.c.insertMany([{_id: 1}, {_id: 1}, {_id: 2}, {_id: 2}], {ordered: false})\n\
         db.c.countDocuments()",
    );
    assert!(
        out[0].starts_with(&format!("MongoBulkWriteError: {dup}\n")),
        "{}",
        out[0]
    );
    assert!(
        out[0].contains("insertedCount: 2,") && out[0].contains("insertedIds: { '0': 1, '2': 2 }"),
        "{}",
        out[0]
    );
    assert_eq!(out[0].matches("WriteError {").count(), 2, "{}", out[0]);
    assert_eq!(out[1], "2", "unordered: every write ran");
    // The driver refuses an empty batch before sending anything.
    assert_eq!(
        last("db.c.insertMany([])"),
        "MongoInvalidArgumentError: Invalid BulkOperation, Batch cannot be empty"
    );
}
