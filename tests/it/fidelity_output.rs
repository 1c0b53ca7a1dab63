//! mongosh's and mongos's exact output, case by case: `dataFormat`'s sizes,
//! `getShardDistribution()`, the `sh.status()` databases list, `explain()`'s mongos stage,
//! and the targeting of regular expressions on a ranged shard key.
//!
//! Each case names the source file (and function) its expected value comes from: mongosh's
//! repository (mongodb-js/mongosh) or MongoDB's (mongodb/mongo). The sizes were computed
//! by running mongosh's `dataFormat` under Node.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::engine::{target, Chunk, ChunkVersion, RoutingTable, TargetKind};
use shardlab::keys::{KeyPattern, KeyValue};
use shardlab::values::data_format;
use shardlab::{Output, Session};

/// Runs a script and returns the last statement's result as a value (sections as a
/// document), panicking on any error along the way.
fn last_value(script: &str) -> Bson {
    let mut session = Session::default();
    let mut last = Bson::Null;
    for o in session.run(script) {
        last = match o.result {
            Ok(Output::Value(v)) => v,
            Ok(Output::Sections(d)) => Bson::Document(d),
            Ok(Output::Cursor(docs)) => Bson::Array(docs.into_iter().map(Bson::Document).collect()),
            Ok(_) => Bson::Null,
            Err(e) => panic!("{}: {e}", o.source),
        };
    }
    session.cluster.check().unwrap();
    last
}

/// A document inside a value, by a path of keys.
fn at<'a>(mut v: &'a Bson, path: &[&str]) -> &'a Bson {
    for key in path {
        v = match v {
            Bson::Document(d) => d.get(*key).unwrap_or_else(|| panic!("no {key} in {d}")),
            other => panic!("{other} has no {key}"),
        };
    }
    v
}

/// mongosh's `dataFormat` (packages/shell-api/src/helpers.ts): each unit rounds its own
/// way, and each boundary belongs to the larger unit.
#[test]
fn data_format_rounds_per_unit_as_mongosh_does() {
    // (bytes, what helpers.ts `dataFormat` returns under Node)
    let cases: &[(f64, &str)] = &[
        // `bytes < 1024`: Math.floor(bytes) + 'B'.
        (0.0, "0B"),
        (0.5, "0B"),
        (1023.0, "1023B"),
        (1023.9, "1023B"),
        // `bytes < 1024 * 1024`: Math.floor(bytes / 1024) + 'KiB', no decimals.
        (1024.0, "1KiB"),
        (1536.0, "1KiB"),
        (2047.5, "1KiB"),
        (1_048_575.0, "1023KiB"),
        // `bytes < 1024 ** 3`: Math.floor(Math.floor(bytes / 1024) / 1024 * 100) / 100.
        (1_048_576.0, "1MiB"),
        (1_572_864.0, "1.5MiB"),
        // Flooring to whole KiB first: 1059062 / 1024 ** 2 = 1.0100002, but
        // floor(1059062 / 1024) = 1034 and 1034 / 1024 = 1.0097.
        (1_059_062.0, "1MiB"),
        (1_069_548.0, "1.01MiB"),
        (306_453_000.0, "292.25MiB"),
        (1_073_741_823.0, "1023.99MiB"),
        // Otherwise: floor to whole MiB first, then / 1024 truncated to two decimals.
        (1_073_741_824.0, "1GiB"),
        (1_084_479_514.0, "1GiB"),
        (1_095_217_249.0, "1.01GiB"),
        (1_610_612_736.0, "1.5GiB"),
        // There is no TiB.
        (5_497_558_138_880.0, "5120GiB"),
        // NaN fails every comparison and falls through to GiB.
        (f64::NAN, "NaNGiB"),
    ];
    for &(bytes, expected) in cases {
        assert_eq!(data_format(bytes), expected, "dataFormat({bytes})");
    }
}

/// collection.ts `getShardDistribution`: per shard `data`, `docs`, `chunks`, the
/// estimates per chunk (`size / numChunks` through `dataFormat`, and
/// `Math.floor(count / numChunks)`), then the totals with `Math.floor(x * 10000) / 100`
/// percentages and each shard's `avgObjSize` through `dataFormat`.
#[test]
fn shard_distribution_estimates_and_percentages() {
    let docs: Vec<String> = (0..30)
        .map(|i| format!("{{x: {i}, pad: '{}'}}", "p".repeat(i % 5)))
        .collect();
    let script = format!(
        "sh.shardCollection('test.d', {{x: 1}})\n\
         db.d.insertMany([{}])\n\
         sh.splitAt('test.d', {{x: 10}})\n\
         sh.splitAt('test.d', {{x: 20}})\n\
         sh.moveChunk('test.d', {{x: 25}}, 'shard02')\n\
         db.d.getShardDistribution()",
        docs.join(", ")
    );
    let out = last_value(&script);
    let Bson::Document(sections) = &out else {
        panic!("{out}")
    };
    let titles: Vec<&str> = sections.keys().map(String::as_str).collect();
    assert_eq!(
        titles,
        [
            "Shard shard01 at shard01/localhost:27117",
            "Shard shard02 at shard02/localhost:27217",
            "Totals"
        ]
    );
    let shard01 = sections.get_document(titles[0]).unwrap();
    let shard02 = sections.get_document(titles[1]).unwrap();
    let totals = sections.get_document("Totals").unwrap();
    let (b1, b2) = (bytes_of(shard01), bytes_of(shard02));
    // The 20 documents of chunks [MinKey, 10) and [10, 20) stay on shard01; the 10 of
    // [20, MaxKey) move to shard02.
    assert_eq!(shard01.get_i32("docs").unwrap(), 20);
    assert_eq!(shard01.get_i32("chunks").unwrap(), 2);
    assert_eq!(shard01.get_i32("estimated docs per chunk").unwrap(), 10);
    assert_eq!(
        shard01.get_str("estimated data per chunk").unwrap(),
        data_format(b1 / 2.0)
    );
    assert_eq!(shard02.get_i32("docs").unwrap(), 10);
    assert_eq!(shard02.get_i32("estimated docs per chunk").unwrap(), 10);
    assert_eq!(totals.get_str("data").unwrap(), data_format(b1 + b2));
    assert_eq!(totals.get_i32("docs").unwrap(), 30);
    assert_eq!(totals.get_i32("chunks").unwrap(), 3);
    let percent = |part: f64, total: f64| ((part / total * 10000.0).floor() / 100.0).to_string();
    assert_eq!(
        totals.get_array("Shard shard01").unwrap(),
        &vec![
            Bson::String(format!("{} % data", percent(b1, b1 + b2))),
            // 20 / 30 * 10000 = 6666.66..., floored: 66.66, not 66.67.
            Bson::String("66.66 % docs in cluster".into()),
            Bson::String(format!(
                "{} avg obj size on shard",
                data_format((b1 / 20.0).floor())
            )),
        ]
    );
    assert_eq!(
        at(&out, &["Totals", "Shard shard02"]),
        &Bson::Array(vec![
            Bson::String(format!("{} % data", percent(b2, b1 + b2))),
            Bson::String("33.33 % docs in cluster".into()),
            Bson::String(format!(
                "{} avg obj size on shard",
                data_format((b2 / 10.0).floor())
            )),
        ])
    );
}

/// The bytes a shard holds, read back from its `data` text (below 1 KiB here, where
/// `dataFormat` prints them whole).
fn bytes_of(shard: &Document) -> f64 {
    let data = shard.get_str("data").unwrap();
    data.strip_suffix('B').unwrap().parse().unwrap()
}

/// The `_id`s of `sh.status().databases`, in order.
fn database_ids(status_databases: &Bson) -> Vec<String> {
    let Bson::Array(list) = status_databases else {
        panic!("{status_databases}")
    };
    list.iter()
        .map(|d| at(d, &["database", "_id"]).as_str().unwrap().to_string())
        .collect()
}

/// helpers.ts `getPrintableShardStatus`: every `config.databases` document plus
/// `{ _id: 'config', primary: 'config', partitioned: true }`, which mongosh pushes itself,
/// sorted with `a._id.localeCompare(b._id)` (ICU order: case-insensitive first, so
/// `Zeta` sorts after `test`, and `admin` is not listed since it has no document).
#[test]
fn status_lists_every_database_with_config_in_locale_order() {
    let script = "db.getSiblingDB('Zeta').c.insertOne({a: 1})\n\
                  db.getSiblingDB('alpha').c.insertOne({a: 1})\n\
                  sh.shardCollection('test.c', {x: 1})\n\
                  sh.status().databases";
    let databases = last_value(script);
    // Node: ['test', 'Zeta', 'config', 'alpha'].sort((a, b) => a.localeCompare(b)).
    assert_eq!(
        database_ids(&databases),
        ["alpha", "config", "test", "Zeta"]
    );
    let Bson::Array(list) = &databases else {
        unreachable!()
    };
    assert_eq!(
        list[1],
        Bson::Document(doc! {
            "database": { "_id": "config", "primary": "config", "partitioned": true },
            "collections": {},
        })
    );
}

/// The `config.databases` document of each era, as mongosh prints it unchanged: 3.6
/// stores `{_id, primary, partitioned}`; 5.0 adds `version: {uuid, timestamp, lastMod}`
/// (src/mongo/s/database_version.idl's field order); 7.0 drops `partitioned`
/// (deprecated in 6.0, src/mongo/s/catalog/type_database.idl).
#[test]
fn status_database_documents_follow_each_release() {
    let keys = |version: &str| {
        let script = format!(
            "sim.reset({{version: '{version}'}})\n\
             sh.shardCollection('test.c', {{x: 1}})\n\
             sh.status().databases"
        );
        let databases = last_value(&script);
        let Bson::Array(list) = &databases else {
            panic!("{databases}")
        };
        let Bson::Document(test) = at(&list[1], &["database"]) else {
            panic!("{databases}")
        };
        let mut keys: Vec<String> = test.keys().cloned().collect();
        if let Ok(v) = test.get_document("version") {
            keys.extend(v.keys().map(|k| format!("version.{k}")));
        }
        keys
    };
    assert_eq!(keys("3.6"), ["_id", "primary", "partitioned"]);
    assert_eq!(
        keys("5.0"),
        [
            "_id",
            "primary",
            "partitioned",
            "version",
            "version.uuid",
            "version.timestamp",
            "version.lastMod"
        ]
    );
    assert_eq!(
        keys("8.0"),
        [
            "_id",
            "primary",
            "version",
            "version.uuid",
            "version.timestamp",
            "version.lastMod"
        ]
    );
}

/// A script that shards `test.c` on `{x: 1}` and splits it into `n` chunks.
fn split_into(n: usize) -> String {
    let mut script = String::from("sh.shardCollection('test.c', {x: 1})\n");
    for i in 1..n {
        script.push_str(&format!("sh.splitAt('test.c', {{x: {i}}})\n"));
    }
    script
}

/// helpers.ts `getPrintableShardStatus`, one collection: the fields in the order
/// `shardKey, unique, balancing, allowMigrations, chunkMetadata, chunks, tags`; the
/// chunk loop keeps the first 20 chunks and puts the notice in place of the 21st; with
/// exactly 20 there is no notice; `verbose` lists them all.
#[test]
fn status_prints_the_first_20_chunks_then_the_notice() {
    let notice =
        Bson::String("too many chunks to print, use verbose if you want to force print".into());
    let chunks_of = |n: usize, verbose: bool| {
        let script = format!(
            "{}sh.status({verbose}).databases[1].collections['test.c']",
            split_into(n)
        );
        let coll = last_value(&script);
        let Bson::Document(d) = &coll else {
            panic!("{coll}")
        };
        let keys: Vec<&str> = d.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "shardKey",
                "unique",
                "balancing",
                "allowMigrations",
                "chunkMetadata",
                "chunks",
                "tags"
            ]
        );
        assert!(d.get_bool("allowMigrations").unwrap());
        d.get_array("chunks").unwrap().clone()
    };
    let twenty = chunks_of(20, false);
    assert_eq!(twenty.len(), 20);
    assert!(twenty.iter().all(|c| matches!(c, Bson::Document(_))));
    let more = chunks_of(23, false);
    assert_eq!(more.len(), 21);
    // The 20th chunk ends at MaxKey in the first split and at 20 in the second.
    assert_eq!(more[..19], twenty[..19]);
    assert_eq!(more[20], notice);
    assert_eq!(at(&more[19], &["max", "x"]), &Bson::Int32(20));
    let all = chunks_of(23, true);
    assert_eq!(all.len(), 23);
    assert!(!all.contains(&notice));
}

/// helpers.ts `getPrintableShardStatus`, the zone loop: it tests for the notice right
/// after adding a range, so exactly 20 ranges already get the notice after them.
#[test]
fn status_prints_the_tags_notice_after_the_20th_range() {
    let tags_of = |n: usize| {
        let mut script = String::from(
            "sh.shardCollection('test.c', {x: 1})\nsh.addShardToZone('shard01', 'Z')\n",
        );
        for i in 0..n {
            script.push_str(&format!(
                "sh.updateZoneKeyRange('test.c', {{x: {}}}, {{x: {}}}, 'Z')\n",
                2 * i,
                2 * i + 1
            ));
        }
        script.push_str("sh.status().databases[1].collections['test.c'].tags");
        let Bson::Array(tags) = last_value(&script) else {
            panic!()
        };
        tags
    };
    let notice =
        Bson::String("too many tags to print, use verbose if you want to force print".into());
    assert_eq!(tags_of(19).len(), 19);
    let twenty = tags_of(20);
    assert_eq!(twenty.len(), 21);
    assert_eq!(twenty[20], notice);
    assert_eq!(tags_of(22).len(), 21);
}

/// `db.c.find(...)[.sort(...)].explain().queryPlanner.winningPlan.stage` on `test.e`,
/// sharded on `{x: 1}` with `[MinKey, 10)` on shard01 and `[10, MaxKey)` on shard02.
fn explain_stage(query: &str) -> Bson {
    let script = format!(
        "sh.shardCollection('test.e', {{x: 1}})\n\
         sh.splitAt('test.e', {{x: 10}})\n\
         sh.moveChunk('test.e', {{x: 10}}, 'shard02')\n\
         db.e.{query}.explain().queryPlanner.winningPlan.stage"
    );
    last_value(&script)
}

/// `ClusterExplain::getStageNameForReadOp` (src/mongo/s/commands/cluster_explain.cpp):
/// one shard is `SINGLE_SHARD` whatever the sort; several are `SHARD_MERGE_SORT` when the
/// find has a sort and `SHARD_MERGE` when it has none (an empty sort is no sort).
#[test]
fn explain_names_the_mongos_stage_by_shards_and_sort() {
    let cases = [
        ("find({x: {$gt: 0}}).sort({x: 1})", "SHARD_MERGE_SORT"),
        ("find().sort({y: -1})", "SHARD_MERGE_SORT"),
        ("find({x: {$gt: 0}})", "SHARD_MERGE"),
        ("find().sort({})", "SHARD_MERGE"),
        ("find({x: 5}).sort({x: 1})", "SINGLE_SHARD"),
        ("find({x: 15})", "SINGLE_SHARD"),
    ];
    for (query, stage) in cases {
        assert_eq!(explain_stage(query), Bson::String(stage.into()), "{query}");
    }
}

/// `ClusterExplain::buildPlannerInfo` (src/mongo/s/commands/cluster_explain.cpp): each
/// shard's entry starts with `shardName` and `connectionString`, then the shard's own
/// `queryPlanner` fields, whose order `generatePlannerInfo`
/// (src/mongo/db/query/explain.cpp) sets: `namespace`, `indexFilterSet`, `parsedQuery`,
/// `winningPlan`, `rejectedPlans` up to 7.0 (8.0 moves `indexFilterSet` after
/// `parsedQuery`).
#[test]
fn explain_lists_each_shard_in_mongos_order() {
    let script = "sim.reset({version: '5.0'})\n\
                  sh.shardCollection('test.e', {x: 1})\n\
                  sh.splitAt('test.e', {x: 10})\n\
                  sh.moveChunk('test.e', {x: 10}, 'shard02')\n\
                  db.e.find().sort({x: 1}).explain()";
    let explain = last_value(script);
    let planner = at(&explain, &["queryPlanner"]).as_document().unwrap();
    let keys: Vec<&str> = planner.keys().map(String::as_str).collect();
    assert_eq!(keys, ["mongosPlannerVersion", "winningPlan"]);
    let Bson::Array(shards) = at(&explain, &["queryPlanner", "winningPlan", "shards"]) else {
        panic!("{explain}")
    };
    let names: Vec<&str> = shards
        .iter()
        .map(|s| at(s, &["shardName"]).as_str().unwrap())
        .collect();
    assert_eq!(names, ["shard01", "shard02"]);
    let keys: Vec<&str> = shards[0]
        .as_document()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "shardName",
            "connectionString",
            "namespace",
            "indexFilterSet",
            "parsedQuery",
            "winningPlan",
            "rejectedPlans"
        ]
    );
}

/// A chunk `[min, max)` of `{x: 1}` on a shard.
fn chunk(min: Bson, max: Bson, shard: u32) -> Chunk {
    Chunk {
        min: KeyValue(vec![min]),
        max: KeyValue(vec![max]),
        shard,
        jumbo: false,
        version: ChunkVersion { major: 1, minor: 0 },
        docs: 0,
        bytes: 0,
        written: 0,
    }
}

/// `IndexBoundsBuilder::translateRegex` (src/mongo/db/query/index_bounds_builder.cpp)
/// with the prefix of `analyze_regex::getRegexPrefixMatch`
/// (src/mongo/db/query/analyze_regex.cpp), looked up chunk by chunk as
/// `ChunkManager::getShardIdsForQuery` does (bounds inclusive at both ends): a prefix
/// regex covers `[prefix, prefix with its last byte + 1)`, any other covers every string
/// `["", {})`, and both add the regular expression itself as a point, which sorts after
/// strings and objects (here into the top chunk, on shard 4).
#[test]
fn a_regex_on_a_ranged_key_targets_its_strings_and_itself() {
    let pattern = KeyPattern::parse(&doc! {"x": 1}).unwrap();
    let s = |v: &str| Bson::String(v.into());
    let table = RoutingTable::from_chunks(vec![
        chunk(Bson::MinKey, Bson::Int32(0), 0),
        chunk(Bson::Int32(0), s("abc"), 1),
        chunk(s("abc"), s("abe"), 2),
        chunk(s("abe"), s("b"), 3),
        chunk(s("b"), Bson::Document(doc! {"a": 1}), 5),
        chunk(Bson::Document(doc! {"a": 1}), Bson::MaxKey, 4),
    ]);
    let re = |p: &str, o: &str| {
        Bson::RegularExpression(bson::Regex {
            pattern: bson::raw::CString::try_from(p).unwrap(),
            options: bson::raw::CString::try_from(o).unwrap(),
        })
    };
    let strings = vec![1, 2, 3, 4, 5];
    let cases: Vec<(Document, Vec<u32>)> = vec![
        // Prefix "abc": ["abc", "abd") lies in shard 2's chunk, plus the regex point.
        (doc! {"x": re("^abc", "")}, vec![2, 4]),
        (doc! {"x": {"$regex": "^abc"}}, vec![2, 4]),
        // `.*` at the end keeps the prefix (and makes the bounds exact).
        (doc! {"x": re("^abc.*", "")}, vec![2, 4]),
        // `\A` anchors too, and allows the `m` flag.
        (doc! {"x": re("\\Aabc", "m")}, vec![2, 4]),
        // `x` skips white space in the prefix; `s` is allowed.
        (
            doc! {"x": {"$regex": "^a b c", "$options": "xs"}},
            vec![2, 4],
        ),
        // Not anchored: every string, but never the numbers of shard 0.
        (doc! {"x": re("abc", "")}, strings.clone()),
        // `i` (any flag but m, s, x) and `^` with `m` give no prefix.
        (doc! {"x": re("^abc", "i")}, strings.clone()),
        (
            doc! {"x": {"$regex": "^abc", "$options": "m"}},
            strings.clone(),
        ),
        // An unescaped pipe gives no prefix; an escaped one is a literal: "a|b".
        (doc! {"x": re("^abc|^b", "")}, strings.clone()),
        (doc! {"x": re("^a\\|b", "")}, vec![3, 4]),
        // `?` and `*` take the last character back: "ab" covers ["ab", "ac").
        (doc! {"x": re("^abd?", "")}, vec![1, 2, 3, 4]),
        // An escaped punctuation mark is literal, `\Q...\E` quotes: "a.c" < "abc".
        (doc! {"x": re("^a\\.c", "")}, vec![1, 4]),
        (doc! {"x": re("^\\Qa.c\\E", "")}, vec![1, 4]),
        // An escaped letter or digit, or a metacharacter, ends the prefix.
        (doc! {"x": re("^a\\d", "")}, strings.clone()),
        (doc! {"x": re("^(abc)", "")}, strings.clone()),
        // UTF-8: "é" covers ["é", "ê"), above "b".
        (doc! {"x": re("^é", "")}, vec![4, 5]),
        // `$in` unions its values' points with its regexes' bounds.
        (doc! {"x": {"$in": [re("^abc", ""), 7]}}, vec![1, 2, 4]),
    ];
    for (filter, shards) in cases {
        let t = target(&pattern, &table, &filter).unwrap();
        assert_eq!(
            (t.shards.clone(), t.kind),
            (shards, TargetKind::MultiShard),
            "{filter}"
        );
    }
    // `$not` of a regex cannot use the index (index_bounds_builder.cpp: a NOT's child
    // "can't be things like $mod, $regex"): every shard.
    let t = target(&pattern, &table, &doc! {"x": {"$not": re("^abc", "")}}).unwrap();
    assert_eq!(
        (t.shards, t.kind),
        (vec![0, 1, 2, 3, 4, 5], TargetKind::ScatterGather)
    );
}

/// A hashed index cannot answer a regular expression (`IndexBoundsBuilder::translate`
/// accepts only equalities and `$in` on a hashed field), so mongos sends it everywhere.
#[test]
fn a_regex_on_a_hashed_key_is_scatter_gather() {
    let pattern = KeyPattern::parse(&doc! {"x": "hashed"}).unwrap();
    let table = RoutingTable::from_chunks(vec![
        chunk(Bson::MinKey, Bson::Int64(0), 0),
        chunk(Bson::Int64(0), Bson::MaxKey, 1),
    ]);
    for filter in [
        doc! {"x": {"$regex": "^abc"}},
        doc! {"x": {"$regex": "abc"}},
    ] {
        let t = target(&pattern, &table, &filter).unwrap();
        assert_eq!((t.shards, t.kind), (vec![0, 1], TargetKind::ScatterGather));
    }
}

/// collection.ts `_getShardedCollectionInfo` (and shard.spec.ts, "fails when running
/// against an unsharded collection"): without a `config.collections` entry the helper
/// throws `MongoshInvalidInputError` with `ShellApiErrors.NotConnectedToShardedCluster`.
#[test]
fn shard_distribution_of_an_unsharded_collection_is_refused() {
    let mut session = Session::default();
    let outcomes = session.run("db.test.insertOne({a: 1})\ndb.test.getShardDistribution()");
    let err = outcomes.last().unwrap().result.clone().unwrap_err();
    assert_eq!(
        err.to_string(),
        "MongoshInvalidInputError: [SHAPI-10001] Collection test is not sharded"
    );
}

/// `undefined` in a document the shell sends is `null` on the server: mongosh's driver
/// serializes it so (js-bson `serializeInto`, `ignoreUndefined: false`; mongosh's manual,
/// "Undefined Values"), in inserts, filters and updates alike; the shell's own values keep it.
#[test]
fn undefined_in_what_the_shell_sends_is_null() {
    let stored = last_value(
        "db.u.insertOne({_id: 1, a: undefined, b: [undefined, 1], c: {d: undefined}})\n\
         db.u.findOne({_id: 1})",
    );
    assert_eq!(
        stored,
        Bson::Document(
            doc! { "_id": 1, "a": Bson::Null, "b": [Bson::Null, 1], "c": { "d": Bson::Null } }
        )
    );
    // A filter on undefined matches what one on null does: null and missing fields.
    let found = last_value(
        "db.u.insertMany([{_id: 1, a: null}, {_id: 2}, {_id: 3, a: 5}])\n\
         db.u.find({a: undefined}, {_id: 1})",
    );
    assert_eq!(
        found,
        Bson::Array(vec![doc! { "_id": 1 }.into(), doc! { "_id": 2 }.into()])
    );
    let updated = last_value(
        "db.u.insertOne({_id: 3, a: 5})\n\
         db.u.updateOne({_id: 3}, {$set: {a: undefined}})\n\
         db.u.findOne({_id: 3})",
    );
    assert_eq!(updated, Bson::Document(doc! { "_id": 3, "a": Bson::Null }));
    // The shell's own object is not sent anywhere: it keeps its undefined.
    assert_eq!(
        last_value("let x = {a: undefined}; x"),
        Bson::Document(doc! { "a": Bson::Undefined })
    );
}

/// `distinct`: mongod keeps the values in a `BSONElementSet` (distinct.cpp), so they come
/// in BSON order, one of each equal value (1 and 1.0 are one); an array gives its
/// elements (`dps::extractAllElementsAlongPath`), a missing field nothing, and the query
/// chooses the documents, not the values.
#[test]
fn distinct_answers_in_bson_order_with_arrays_unwound() {
    let script = "db.d.insertMany([{a: 3}, {a: [1, 2]}, {a: 1.0}, {a: 'x'}, {b: 1}, {a: null}, {a: {c: 1}}, {a: [[5]]}])\n";
    assert_eq!(
        last_value(&format!("{script}db.d.distinct('a')")),
        Bson::Array(vec![
            Bson::Null,
            1.into(),
            2.into(),
            3.into(),
            "x".into(),
            doc! { "c": 1 }.into(),
            Bson::Array(vec![5.into()]),
        ])
    );
    assert_eq!(
        last_value(&format!("{script}db.d.distinct('a', {{a: {{$gt: 2}}}})")),
        Bson::Array(vec![3.into()])
    );
    assert_eq!(
        last_value(&format!("{script}db.d.distinct('a', {{a: {{$gt: 1}}}})")),
        Bson::Array(vec![1.into(), 2.into(), 3.into()])
    );
    assert_eq!(
        last_value(&format!("{script}db.d.distinct('a.c')")),
        Bson::Array(vec![1.into()])
    );
}
