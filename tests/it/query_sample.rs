//! A query sample read from a file (`workload::read_queries`) and the read and write
//! distribution it gives each ranked candidate, reasoned from MongoDB's
//! `analyze_shard_key_read_write_distribution.cpp`: a filter with equality on the whole
//! key targets one shard, a filter with a range (or `$in`) of the key some shards, a
//! filter without the key every shard; a write without equality on the key is a write
//! without the shard key, single or multi as the command says.

#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::engine::QuerySample;
use shardlab::sim::{Measure, RankOptions, Ranker, Ranking, Verdict};
use shardlab::workload::{read_queries, QueryFile, QueryFileError, QueryFileOptions};
use shardlab::{ClusterConfig, VersionMode};
use std::path::PathBuf;
use std::sync::Arc;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/queries")
        .join(name);
    std::fs::read(path).unwrap()
}

fn read(bytes: &[u8], ns: Option<&str>) -> Result<QueryFile, QueryFileError> {
    read_queries(
        bytes,
        &QueryFileOptions {
            file_name: None,
            ns: ns.map(str::to_string),
        },
    )
}

fn commands(file: &QueryFile) -> Vec<(&str, u64)> {
    file.queries
        .iter()
        .zip(&file.lines)
        .map(|(q, l)| (q.command.as_str(), *l))
        .collect()
}

#[test]
fn bare_filters_are_finds_and_bad_lines_are_reported_by_line() {
    let file = read(&fixture("filters.ndjson"), None).unwrap();
    assert_eq!(
        commands(&file),
        [("find", 1), ("find", 2), ("find", 3), ("find", 6)]
    );
    assert_eq!(
        file.queries[1].filter,
        doc! { "ts": { "$gte": 10, "$lt": 20 } }
    );
    assert_eq!((file.records, file.failed), (6, 2));
    let lines: Vec<u64> = file.failures.iter().map(|f| f.line).collect();
    assert_eq!(lines, [4, 5]);
    assert!(
        file.failures[0].reason.contains("unknown operator: $nope"),
        "{:?}",
        file.failures[0]
    );
    assert_eq!((file.reads(), file.writes()), (4, 0));
}

#[test]
fn sampled_queries_are_read_as_mongodb_stores_them() {
    let bytes = fixture("sampledQueries.json");
    // Two collections' samples: one must be chosen, as analyzeShardKey analyzes one.
    let e = read(&bytes, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the query file holds sampled queries of 2 collections (app.events, app.other): choose one namespace"
    );
    let file = read(&bytes, Some("app.events")).unwrap();
    assert_eq!(
        commands(&file),
        [
            ("find", 1),
            ("aggregate", 2),
            ("count", 3),
            ("distinct", 4),
            ("updateOne", 5),
            ("updateMany", 6),
            ("deleteMany", 7),
            ("findOneAndDelete", 8),
        ]
    );
    assert_eq!(file.queries[5].update, Some(doc! { "$inc": { "ts": 1 } }));
    assert_eq!((file.reads(), file.writes()), (4, 4));
    // The insert is read and not counted; another namespace's query is left out.
    let notes: Vec<u64> = file.notes.iter().map(|n| n.line).collect();
    assert_eq!((notes, file.left_out), (vec![9, 11], 2));
    assert_eq!(file.failed, 1);
    assert_eq!(
        file.failures[0].to_string(),
        "line 10: BadValue: Enumeration value 'explain' for field '$_analyzeShardKeyReadWriteDistribution.cmdName' is not a valid value."
    );
    assert_eq!(
        file.namespaces,
        [("app.events".to_string(), 10), ("app.other".to_string(), 1)]
    );
}

#[test]
fn sampled_query_fields_are_checked_in_mongodbs_words() {
    let one = |line: &str| {
        let file = read(line.as_bytes(), None).unwrap();
        assert_eq!(file.failed, 1, "{line}: {:?}", file.queries);
        file.failures[0].reason.clone()
    };
    assert_eq!(
        one(r#"{"cmdName": "find"}"#),
        "Location40414: BSON field '$_analyzeShardKeyReadWriteDistribution.cmd' is missing but a required field"
    );
    assert_eq!(
        one(r#"{"cmdName": 1, "cmd": {}}"#),
        "TypeMismatch: BSON field '$_analyzeShardKeyReadWriteDistribution.cmdName' is the wrong type 'int', expected type 'string'"
    );
    assert_eq!(
        one(r#"{"cmdName": "count", "cmd": {"filter": 3}}"#),
        "TypeMismatch: BSON field 'ReadDistributionMetricsCalculator.filter' is the wrong type 'int', expected type 'object'"
    );
    assert_eq!(
        one(r#"{"cmdName": "delete", "cmd": {"deletes": [{"q": {}, "limit": 2}]}}"#),
        "BadValue: The limit field in delete objects must be 0 or 1. Got 2"
    );
    assert_eq!(
        one(r#"{"cmdName": "findAndModify", "cmd": {"query": {}}}"#),
        "FailedToParse: Either an update or remove=true must be specified"
    );
    // A replacement without upsert is a replaceOne; a pipeline update an updateOne.
    let file = read(
        br#"[{"cmdName": "update", "cmd": {"updates": [
              {"q": {"a": 1}, "u": {"ts": 4}, "upsert": true},
              {"q": {"a": 1}, "u": [{"$set": {"b": 1}}]}]}},
            {"cmdName": "bulkWrite", "cmd": {"ops": [
              {"insert": 0, "document": {"a": 1}},
              {"delete": 0, "filter": {"a": 2}, "multi": true}], "nsInfo": [{"ns": "app.events"}]}}]"#,
        None,
    )
    .unwrap();
    assert_eq!(
        commands(&file),
        [("replaceOne", 1), ("updateOne", 1), ("deleteMany", 4)]
    );
    assert!(file.queries[0].upsert);
    assert_eq!(file.queries[1].update, None);
}

#[test]
fn hostile_query_files_are_refused_with_a_reason() {
    let e = read(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", None).unwrap_err();
    assert!(e.to_string().contains("not text"), "{e}");
    let huge = vec![b' '; shardlab::workload::MAX_QUERY_FILE_BYTES + 1];
    assert!(matches!(
        read(&huge, None),
        Err(QueryFileError::FileTooLarge(_))
    ));
    let deep = format!(
        "{}1{}\n{{\"a\": 1}}\n",
        "{\"a\": ".repeat(200),
        "}".repeat(200)
    );
    let file = read(deep.as_bytes(), None).unwrap();
    assert_eq!((file.failed, file.queries.len()), (1, 1));
    assert_eq!(file.failures[0].line, 1);
    let many = "{}\n".repeat(shardlab::workload::MAX_QUERIES + 1);
    assert!(matches!(
        read(many.as_bytes(), None),
        Err(QueryFileError::TooManyQueries)
    ));
}

/// 1,200 documents: `ts` 0..1200 (enough distinct values for analyzeShardKey's 100
/// ranges), `tenant` one of two.
fn ranked_with(queries: Vec<QuerySample>) -> Ranking {
    let options = RankOptions {
        cluster: ClusterConfig {
            shards: 2,
            version: VersionMode::V80,
            chunk_size: Some(1 << 20),
            seed: 7,
        },
        sort_by: None,
        queries: Some(Arc::from(queries)),
    };
    let keys = [doc! { "ts": 1 }, doc! { "tenant": 1 }];
    let mut ranker = Ranker::new(&keys, options).unwrap();
    for i in 0..1200u64 {
        let d: Document = doc! { "ts": i as i64, "tenant": format!("t{}", i % 2) };
        ranker.push(d, i + 1, 40);
    }
    ranker.finish()
}

#[test]
fn rank_measures_the_sampled_read_and_write_distribution() {
    let file = read(&fixture("sampledQueries.json"), Some("app.events")).unwrap();
    let ranking = ranked_with(file.queries);
    assert_eq!(ranking.queries, Some((4, 4)));
    let ts = ranking
        .candidates
        .iter()
        .find(|c| c.figures.label == "{ ts: 1 }")
        .unwrap();
    let d = ts.figures.distribution.clone().unwrap().unwrap();
    // Reads: ts 7 (one shard), tenant (every shard), {} (every shard), ts $in (some).
    assert_eq!(
        d.read,
        doc! {
            "sampleSize": { "total": 4i64, "find": 1i64, "aggregate": 1i64, "count": 1i64, "distinct": 1i64 },
            "percentageOfSingleShardReads": 25.0,
            "percentageOfMultiShardReads": 25.0,
            "percentageOfScatterGatherReads": 50.0,
            "numReadsByRange": d.read.get_array("numReadsByRange").unwrap().clone(),
        }
    );
    let by_range = d.read.get_array("numReadsByRange").unwrap();
    assert_eq!(by_range.len(), 100);
    // Every range is read by the two scatter-gather reads; the first by ts 7 and $in too.
    let counts: Vec<i64> = by_range.iter().map(|b| b.as_i64().unwrap()).collect();
    assert_eq!(counts[0], 4);
    assert!(counts[1..].iter().all(|&n| n == 2), "{counts:?}");
    // Writes: update ts 3 (one shard), updateMany by tenant changing ts (every shard,
    // a shard key update, a multi write without the key), deleteMany ts < 5 (some
    // shards, a multi write without the key), findAndModify ts 9 (one shard).
    let w = &d.write;
    assert_eq!(
        w.get_document("sampleSize").unwrap(),
        &doc! { "total": 4i64, "update": 2i64, "delete": 1i64, "findAndModify": 1i64 }
    );
    assert_eq!(w.get_f64("percentageOfSingleShardWrites").unwrap(), 50.0);
    assert_eq!(w.get_f64("percentageOfMultiShardWrites").unwrap(), 25.0);
    assert_eq!(w.get_f64("percentageOfScatterGatherWrites").unwrap(), 25.0);
    assert_eq!(w.get_f64("percentageOfShardKeyUpdates").unwrap(), 25.0);
    assert_eq!(
        w.get_f64("percentageOfSingleWritesWithoutShardKey")
            .unwrap(),
        0.0
    );
    assert_eq!(
        w.get_f64("percentageOfMultiWritesWithoutShardKey").unwrap(),
        50.0
    );

    let verdict = |m: Measure| ts.reasons.iter().find(|r| r.kind == m).map(|r| r.verdict);
    // Half the reads are scatter-gather; half the writes single-shard.
    assert_eq!(verdict(Measure::ReadDistribution), Some(Verdict::Loses));
    assert_eq!(verdict(Measure::WriteDistribution), Some(Verdict::Wins));

    // Two values of tenant give no 99 split points: MongoDB's error, said plainly.
    let tenant = ranking
        .candidates
        .iter()
        .find(|c| c.figures.label == "{ tenant: 1 }")
        .unwrap();
    let (e, _) = tenant.figures.distribution.clone().unwrap().unwrap_err();
    assert_eq!(
        (e.code, e.code_name.as_str()),
        (4_952_606, "Location4952606")
    );
    let reason = tenant
        .reasons
        .iter()
        .find(|r| r.kind == Measure::ReadDistribution)
        .unwrap();
    assert_eq!(reason.verdict, Verdict::Neutral);
    assert!(
        reason.english().contains("2 distinct values"),
        "{}",
        reason.english()
    );
    // Sorted by each new measure: the measured key first.
    for m in [Measure::ReadDistribution, Measure::WriteDistribution] {
        let order = ranking.orders.iter().find(|(o, _)| *o == m).unwrap();
        assert_eq!(order.1, ["{ ts: 1 }", "{ tenant: 1 }"], "{m:?}");
    }
}

#[test]
fn rank_sorts_by_the_share_of_targeted_reads() {
    // Equality on a hashed field targets one shard as a ranged one does, but a range of
    // it scatters.
    let range = |lo: i64| QuerySample {
        command: "find".into(),
        filter: doc! { "ts": { "$gte": lo, "$lt": lo + 10 } },
        update: None,
        upsert: false,
    };
    let options = RankOptions {
        queries: Some(Arc::from(vec![range(0), range(500)])),
        ..RankOptions::default()
    };
    let keys = [doc! { "ts": "hashed" }, doc! { "ts": 1 }];
    let mut ranker = Ranker::new(&keys, options).unwrap();
    for i in 0..1200u64 {
        ranker.push(doc! { "ts": i as i64 }, i + 1, 20);
    }
    let ranking = ranker.finish();
    let order = ranking
        .orders
        .iter()
        .find(|(m, _)| *m == Measure::ReadDistribution)
        .unwrap();
    // A range of ts is multi-shard on the ranged key and scatter-gather on the hashed
    // one: neither is single-shard, so the scatter-gather share decides.
    assert_eq!(order.1, ["{ ts: 1 }", "{ ts: \"hashed\" }"]);
    let hashed = ranking
        .candidates
        .iter()
        .find(|c| c.figures.label == "{ ts: \"hashed\" }")
        .unwrap();
    let t = hashed.figures.targeting(true).unwrap();
    assert_eq!(
        (t.total, t.single, t.multi, t.scatter),
        (2, 0.0, 0.0, 100.0)
    );
    let table = ranking.render_table();
    assert!(
        table.contains("query sample: 2 reads and 0 writes"),
        "{table}"
    );
    assert!(table.contains("scatter reads"), "{table}");
}
