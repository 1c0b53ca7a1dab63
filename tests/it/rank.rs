//! Candidate shard keys ranked on a user's documents (`sim::Ranker`), reasoned from
//! MongoDB's semantics: a monotonic key sends every new document to the chunk at the end
//! of the key range, a hashed key spreads them, a key of few values cannot be split past
//! its values, and a key field holding an array is refused with `ShardKeyNotFound`.

#![allow(clippy::unwrap_used)]

use bson::{doc, Document};
use shardlab::sim::{Measure, RankOptions, RankedCandidate, Ranker, Ranking, Verdict};
use shardlab::{ClusterConfig, VersionMode};

/// A 5.0 cluster of three shards with MongoDB's smallest chunk size (1 MB), where the
/// auto-splitter runs and marks jumbo chunks.
fn options() -> RankOptions {
    RankOptions {
        cluster: ClusterConfig {
            shards: 3,
            version: VersionMode::V50,
            chunk_size: Some(1 << 20),
            seed: 1,
        },
        sort_by: None,
        queries: None,
    }
}

/// `n` documents of about 400 bytes: `ts` growing with `i`, `tenant` one of three,
/// `user` scattered by a multiplicative hash of `i`.
fn documents(n: u64) -> impl Iterator<Item = Document> {
    (0..n).map(|i| {
        doc! {
            "ts": i as i64,
            "tenant": format!("t{}", i % 3),
            "user": ((i.wrapping_mul(2_654_435_761)) % 1_000_003) as i64,
            "pad": "x".repeat(360),
        }
    })
}

fn ranked(
    keys: &[Document],
    docs: impl Iterator<Item = Document>,
    options: RankOptions,
) -> Ranking {
    let mut ranker = Ranker::new(keys, options).unwrap();
    for (i, d) in docs.enumerate() {
        ranker.push(d, i as u64 + 1, 400);
    }
    ranker.finish()
}

fn candidate<'a>(r: &'a Ranking, label: &str) -> &'a RankedCandidate {
    r.candidates
        .iter()
        .find(|c| c.figures.label == label)
        .unwrap_or_else(|| panic!("no candidate {label}: {}", r.render_table()))
}

fn verdict(c: &RankedCandidate, m: Measure) -> Option<Verdict> {
    c.reasons.iter().find(|r| r.kind == m).map(|r| r.verdict)
}

#[test]
fn rank_monotonic_key_takes_every_recent_insert_on_one_shard_and_hashed_id_spreads() {
    let r = ranked(
        &[doc! {"ts": 1}, doc! {"_id": "hashed"}],
        documents(6000),
        options(),
    );
    let ts = candidate(&r, "{ ts: 1 }");
    let key = ts.figures.characteristics.as_ref().unwrap();
    assert!(key.monotonic, "{}", r.render_table());
    assert_eq!(key.distinct, 6000);
    // Every insert goes to the chunk holding MaxKey, on one shard at a time.
    assert!(ts.figures.recent.1 > 0.9, "{}", r.render_table());
    assert_eq!(verdict(ts, Measure::MonotonicChange), Some(Verdict::Loses));
    assert_eq!(verdict(ts, Measure::RecentInserts), Some(Verdict::Loses));
    let hashed = candidate(&r, "{ _id: \"hashed\" }");
    let key = hashed.figures.characteristics.as_ref().unwrap();
    // analyzeShardKey reports a single hashed field as not monotonic.
    assert!(!key.monotonic);
    assert!(hashed.figures.recent.1 < 0.5, "{}", r.render_table());
    assert!(hashed.figures.fullest().1 < 0.5, "{}", r.render_table());
    assert_eq!(verdict(hashed, Measure::RecentInserts), Some(Verdict::Wins));
    assert_eq!(r.candidates[0].figures.label, "{ _id: \"hashed\" }");
    assert_eq!(r.documents, 6000);
    assert_eq!(hashed.figures.inserted, 6000);
}

#[test]
fn rank_low_cardinality_tenant_has_three_values_and_jumbo_chunks() {
    // 12,000 documents of about 400 bytes: 1.6 MB per tenant, past the 1 MB chunk size,
    // and a chunk of one value can never be split.
    let r = ranked(
        &[doc! {"tenant": 1}, doc! {"user": 1}],
        documents(12_000),
        options(),
    );
    let tenant = candidate(&r, "{ tenant: 1 }");
    let key = tenant.figures.characteristics.as_ref().unwrap();
    assert_eq!(key.distinct, 3);
    assert_eq!(key.most_common.as_ref().unwrap().1, 4000);
    assert!(tenant.figures.jumbo >= 1, "{}", r.render_table());
    assert!(tenant.figures.chunks() <= 4, "{}", r.render_table());
    assert_eq!(verdict(tenant, Measure::Cardinality), Some(Verdict::Loses));
    assert_eq!(verdict(tenant, Measure::Frequency), Some(Verdict::Loses));
    assert_eq!(verdict(tenant, Measure::Jumbo), Some(Verdict::Loses));
    let user = candidate(&r, "{ user: 1 }");
    assert_eq!(user.figures.jumbo, 0);
    assert!(user.place < tenant.place);
}

#[test]
fn rank_array_in_a_key_field_is_mongodbs_shard_key_not_found() {
    let docs = vec![
        doc! {"a": 1, "b": 1},
        doc! {"a": [1, 2], "b": 2},
        doc! {"a": {"x": [3]}, "b": 3},
        doc! {"a": 4, "b": 4},
    ];
    let r = ranked(
        &[doc! {"a": 1}, doc! {"a.x": 1}, doc! {"b": 1}],
        docs.into_iter(),
        options(),
    );
    let a = candidate(&r, "{ a: 1 }");
    assert_eq!((a.figures.inserted, a.figures.refused), (3, 1));
    let refusal = &a.figures.refusals[0];
    assert_eq!(refusal.line, 2);
    assert_eq!(
        (refusal.error.code, refusal.error.code_name.as_str()),
        (61, "ShardKeyNotFound")
    );
    assert_eq!(
        refusal.error.message,
        "Shard key cannot contain array values or array descendants."
    );
    assert_eq!(verdict(a, Measure::Refused), Some(Verdict::Loses));
    // An array met on the way along a.x is refused too (`getFieldDottedOrArray`), as is
    // an array at its end.
    let ax = candidate(&r, "{ a.x: 1 }");
    assert_eq!(ax.figures.refused, 2);
    let lines: Vec<u64> = ax.figures.refusals.iter().map(|r| r.line).collect();
    assert_eq!(lines, [2, 3]);
    let b = candidate(&r, "{ b: 1 }");
    assert_eq!((b.figures.inserted, b.figures.refused), (4, 0));
    assert_eq!(r.candidates[0].figures.label, "{ b: 1 }");
}

#[test]
fn rank_proposes_keys_from_the_fields_seen() {
    // More documents than the profile counts distinct values of (4,096) per field.
    let r = ranked(&[], documents(6000), options());
    let labels: Vec<&str> = r
        .candidates
        .iter()
        .map(|c| c.figures.label.as_str())
        .collect();
    for wanted in [
        "{ _id: 1 }",
        "{ _id: \"hashed\" }",
        "{ ts: 1 }",
        "{ ts: \"hashed\" }",
        "{ user: 1 }",
        "{ tenant: 1, user: 1 }",
    ] {
        assert!(labels.contains(&wanted), "{wanted} not in {labels:?}");
    }
    // `pad` holds one value: neither a key nor a prefix.
    assert!(!labels.iter().any(|l| l.contains("pad")), "{labels:?}");
    // Without `_id` in the documents, the cluster's ObjectIds grow: {_id: 1} is monotonic.
    let id = candidate(&r, "{ _id: 1 }");
    assert!(id.figures.characteristics.as_ref().unwrap().monotonic);
}

#[test]
fn rank_sorted_replay_makes_a_shuffled_field_monotonic() {
    let shuffled: Vec<Document> = documents(3000)
        .map(|mut d| {
            let user = d.get_i64("user").unwrap();
            d.insert("ts", user);
            d
        })
        .collect();
    let unsorted = ranked(&[doc! {"ts": 1}], shuffled.clone().into_iter(), options());
    let key = unsorted.candidates[0]
        .figures
        .characteristics
        .as_ref()
        .unwrap();
    assert!(!key.monotonic);
    let sorted = ranked(
        &[doc! {"ts": 1}],
        shuffled.into_iter(),
        RankOptions {
            sort_by: Some("ts".into()),
            ..options()
        },
    );
    let key = sorted.candidates[0]
        .figures
        .characteristics
        .as_ref()
        .unwrap();
    assert!(key.monotonic);
}

#[test]
fn rank_refuses_a_key_mongodb_refuses() {
    let e = Ranker::new(&[doc! {"a": "text"}], options()).unwrap_err();
    assert!(e.to_string().starts_with("{ a: \"text\" }: "), "{e}");
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use crate::cli::shardlab;
    use expect_test::expect;
    use std::path::PathBuf;

    /// A fixture file of its own, removed when dropped.
    struct Fixture(PathBuf);

    impl Fixture {
        fn new(name: &str, bytes: &[u8]) -> Self {
            let path =
                std::env::temp_dir().join(format!("shardlab-rank-{}-{name}", std::process::id()));
            std::fs::write(&path, bytes).unwrap();
            Fixture(path)
        }

        fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// A whole number of the JSON output (plain JSON integers read as Int32).
    fn int(d: &bson::Document, key: &str) -> i64 {
        match d.get(key) {
            Some(bson::Bson::Int32(n)) => i64::from(*n),
            Some(bson::Bson::Int64(n)) => *n,
            other => panic!("{key}: {other:?}"),
        }
    }

    fn lines(n: u64) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "{{\"ts\": {i}, \"tenant\": \"t{}\", \"pad\": \"{}\"}}\n",
                    i % 2,
                    "x".repeat(100)
                )
            })
            .collect()
    }

    #[test]
    fn analyze_prints_the_ranking_table() {
        let f = Fixture::new("table.ndjson", lines(300).as_bytes());
        let run = shardlab(
            &[
                "analyze",
                f.path(),
                "--key",
                "{ts: 1}",
                "--key",
                "{tenant: 1}",
                "--shards",
                "2",
            ],
            "",
        );
        assert_eq!((run.code, run.stderr.as_str()), (0, ""));
        expect![[r#"
            300 documents on 2 shards, version 5.0, chunk size 1MiB (0 unreadable)

            #            key  distinct  top value  monotonic  recent hot  fullest  chunks  jumbo  refused
            1      { ts: 1 }       300       0.3%        yes      100.0%   100.0%       1      0        0
            2  { tenant: 1 }         2      50.0%         no      100.0%   100.0%       1      0        0

            1. { ts: 1 }
               why tried: Given as a candidate.
               + Cardinality: 300 distinct values in 300 documents, enough to split the data into many chunks.
               + Low frequency: its most common value, { ts: 0 }, is in only 0.3% of the documents (1).
               - Monotonic change: analyzeShardKey finds it monotonic (record-id correlation 1): each new document's key lies beyond the last, so inserts go to the chunk at the end of the key range, on one shard.
               - Hot shard: 100.0% of the latest 100 inserts went to shard01.
               - Uneven data: shard01 holds 100.0% of the documents after the replay.
                 Query isolation: queries that give ts, by equality or by range, go only to the shards whose chunks hold those values.

            2. { tenant: 1 }
               why tried: Given as a candidate.
               - Low cardinality: 2 distinct values, so at most 2 chunks can ever hold its documents (analyzeShardKey needs at least 99 distinct values for its 100 ranges).
               - High frequency: its most common value, { tenant: "t0" }, is in 50.0% of the documents (150); documents of one value can never be split into different chunks.
               + No monotonic change: analyzeShardKey finds it not monotonic (record-id correlation 0.5049833887), so inserts land across the key range.
               - Hot shard: 100.0% of the latest 100 inserts went to shard01.
               - Uneven data: shard01 holds 100.0% of the documents after the replay.
                 Query isolation: queries that give tenant, by equality or by range, go only to the shards whose chunks hold those values.
        "#]].assert_eq(&run.stdout);
    }

    /// A query fixture of `tests/fixtures/queries/`.
    fn queries(name: &str) -> String {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/queries")
            .join(name)
            .to_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn analyze_with_queries_prints_the_read_and_write_distribution() {
        // 1,200 documents: enough, with 1,200 distinct ts, for analyzeShardKey's 100
        // ranges; tenant's two values are not.
        let f = Fixture::new("queries.ndjson", lines(1200).as_bytes());
        let sample = queries("sampledQueries.json");
        let run = shardlab(
            &[
                "analyze",
                f.path(),
                "--key",
                "{ts: 1}",
                "--key",
                "{tenant: 1}",
                "--shards",
                "2",
                "--queries",
                &sample,
                "--queries-ns",
                "app.events",
            ],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let stderr = run.stderr.replace(&sample, "QUERIES");
        expect![[r#"
            QUERIES: line 10: BadValue: Enumeration value 'explain' for field '$_analyzeShardKeyReadWriteDistribution.cmdName' is not a valid value.
            QUERIES: line 9: a sampled insert: analyzeShardKey counts no insert in its read or write distribution (not counted)
            QUERIES: line 11: a sampled query of app.other, not of the collection analyzed (not counted)
        "#]]
        .assert_eq(&stderr);
        expect![[r#"
            1200 documents on 2 shards, version 5.0, chunk size 1MiB (0 unreadable)
            query sample: 4 reads and 4 writes

            #            key  distinct  top value  monotonic  recent hot  fullest  chunks  jumbo  refused  1-shard reads  scatter reads  1-shard writes  scatter writes
            1      { ts: 1 }      1200       0.1%        yes      100.0%   100.0%       1      0        0          25.0%          50.0%           50.0%           25.0%
            2  { tenant: 1 }         2      50.0%         no      100.0%   100.0%       1      0        0              -              -               -               -

            1. { ts: 1 }
               why tried: Given as a candidate.
               + Cardinality: 1200 distinct values in 1200 documents, enough to split the data into many chunks.
               + Low frequency: its most common value, { ts: 0 }, is in only 0.1% of the documents (1).
               - Monotonic change: analyzeShardKey finds it monotonic (record-id correlation 1): each new document's key lies beyond the last, so inserts go to the chunk at the end of the key range, on one shard.
               - Hot shard: 100.0% of the latest 200 inserts went to shard01.
               - Uneven data: shard01 holds 100.0% of the documents after the replay.
               - Scatter-gather reads: 50.0% of the 4 sampled reads go to every shard, since their filters give no range of the key; 25.0% go to a single shard and 25.0% to several.
               + Targeted writes: 50.0% of the 4 sampled writes go to a single shard; 25.0% go to several shards and 25.0% to every shard. Shard key updates: 25.0%; single writes without the shard key: 0.0%; multi writes without it: 50.0%.
                 Query isolation: queries that give ts, by equality or by range, go only to the shards whose chunks hold those values.

            2. { tenant: 1 }
               why tried: Given as a candidate.
               - Low cardinality: 2 distinct values, so at most 2 chunks can ever hold its documents (analyzeShardKey needs at least 99 distinct values for its 100 ranges).
               - High frequency: its most common value, { tenant: "t0" }, is in 50.0% of the documents (600); documents of one value can never be split into different chunks.
               + No monotonic change: analyzeShardKey finds it not monotonic (record-id correlation 0.5012489592), so inserts land across the key range.
               - Hot shard: 100.0% of the latest 200 inserts went to shard01.
               - Uneven data: shard01 holds 100.0% of the documents after the replay.
                 No read and write distribution: MongoDB measures reads and writes over 100 ranges of about equal document counts. It finds the 99 boundaries between them by sampling 990 documents (10 per boundary), sorting their keys and keeping every 10th; each boundary must be a different key value. This key has 2 distinct values, fewer than the 99 boundaries needed. The distributions appear only for a key with more distinct values, such as one refined with another field. analyzeShardKey's error: Location4952606 (4952606): Failed to find split points that partition the data into 100 chunks with roughly equal number of documents using the shard key being analyzed :: caused by :: The shard key provided does not have enough cardinality to make the required amount of chunks
                 Query isolation: queries that give tenant, by equality or by range, go only to the shards whose chunks hold those values.
        "#]].assert_eq(&run.stdout);
    }

    #[test]
    fn analyze_with_queries_json_carries_mongodbs_documents() {
        let f = Fixture::new("queries-json.ndjson", lines(1200).as_bytes());
        let sample = queries("filters.ndjson");
        let run = shardlab(
            &[
                "analyze",
                f.path(),
                "--key",
                "{ts: 1}",
                "--queries",
                &sample,
                "--json",
            ],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stderr.contains("line 4: "), "{}", run.stderr);
        assert!(run.stderr.contains("line 5, column 7: "), "{}", run.stderr);
        let v = shardlab::shell::parse_ejson(&run.stdout).unwrap();
        let d = v.as_document().unwrap();
        let sample = d.get_document("querySample").unwrap();
        assert_eq!((int(sample, "reads"), int(sample, "writes")), (4, 0));
        let c = d.get_array("candidates").unwrap()[0].as_document().unwrap();
        let read = c.get_document("readDistribution").unwrap();
        // ts 7: one shard; a range and an $in of ts: some shards; tenant: every shard.
        // Whole percentages read back as integers from the JSON.
        assert_eq!(int(read, "percentageOfSingleShardReads"), 25);
        assert_eq!(int(read, "percentageOfMultiShardReads"), 50);
        assert_eq!(int(read, "percentageOfScatterGatherReads"), 25);
        assert_eq!(read.get_array("numReadsByRange").unwrap().len(), 100);
        let write = c.get_document("writeDistribution").unwrap();
        assert_eq!(int(write.get_document("sampleSize").unwrap(), "total"), 0);
        let orders = d.get_document("orders").unwrap();
        assert!(orders.contains_key("readDistribution"), "{orders}");
    }

    #[test]
    fn analyze_refuses_a_query_file_it_cannot_read() {
        let f = Fixture::new("queries-bad.ndjson", lines(10).as_bytes());
        let two = queries("sampledQueries.json");
        refused(
            f.path(),
            &["--key", "{ts: 1}", "--queries", &two],
            2,
            "holds sampled queries of 2 collections (app.events, app.other): choose one namespace",
        );
        let binary = Fixture::new("queries.bin", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        refused(
            f.path(),
            &["--key", "{ts: 1}", "--queries", binary.path()],
            2,
            "the file is not text",
        );
        refused(
            f.path(),
            &["--key", "{ts: 1}", "--queries", "/nonexistent/queries.json"],
            2,
            "cannot read the queries /nonexistent/queries.json",
        );
    }

    #[test]
    fn analyze_json_is_one_document() {
        let f = Fixture::new("json.ndjson", lines(50).as_bytes());
        let run = shardlab(&["analyze", f.path(), "--key", "{tenant: 1}", "--json"], "");
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stdout.lines().count(), 1);
        let v = shardlab::shell::parse_ejson(&run.stdout).unwrap();
        let d = v.as_document().unwrap();
        assert_eq!(int(d, "documents"), 50);
        let c = d.get_array("candidates").unwrap()[0].as_document().unwrap();
        assert_eq!(c.get_str("label").unwrap(), "{ tenant: 1 }");
        let k = c.get_document("keyCharacteristics").unwrap();
        assert_eq!(int(k, "numDistinctShardKeyValues"), 2);
        assert_eq!(int(k, "mostCommonFrequency"), 25);
    }

    /// Runs `shardlab analyze FILE args...` and checks its exit status and that its
    /// standard error holds `says`; answers the run.
    fn refused(file: &str, args: &[&str], code: i32, says: &str) -> crate::cli::Run {
        let mut all = vec!["analyze", file];
        all.extend_from_slice(args);
        let run = shardlab(&all, "");
        assert_eq!(run.code, code, "{}", run.stderr);
        assert!(run.stderr.contains(says), "{}", run.stderr);
        run
    }

    #[test]
    fn analyze_bad_input() {
        let key = ["--key", "{a: 1}"];
        let empty = Fixture::new("empty.json", b"");
        refused(empty.path(), &key, 1, "holds no documents to analyze");
        let binary = Fixture::new("binary.json", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        refused(binary.path(), &key, 1, "Failed: the file is not text");

        let cut = Fixture::new("cut.json", b"{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3");
        let run = refused(cut.path(), &["--key", "{a: 1}", "--json"], 0, "line 3");
        let v = shardlab::shell::parse_ejson(&run.stdout).unwrap();
        let d = v.as_document().unwrap();
        assert_eq!((int(d, "documents"), int(d, "unreadable")), (2, 1));

        let cut = cut.path();
        refused(
            cut,
            &["--key", "{a: "],
            2,
            "shardlab: cannot read --key '{a: '",
        );
        refused(
            cut,
            &["--key", "[1]"],
            2,
            "shardlab: --key must be a document",
        );
        refused(
            cut,
            &["--key", "{a: 'text'}"],
            2,
            "shardlab: { a: \"text\" }: ",
        );
        refused(
            cut,
            &["--shards", "0"],
            2,
            "--shards must be a number from 1 to 64",
        );
        refused(cut, &["--nope"], 2, "unknown option --nope");
    }
}
