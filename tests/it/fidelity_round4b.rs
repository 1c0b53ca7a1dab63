//! Round four, second part: the config database after a migration (the versions
//! `commitChunkMigration` writes and the chunks' `history`) and the changelog's `details`
//! for splits and migrations, per version mode. Each case names the MongoDB source its
//! expectations come from; none is ShardLab's own output copied back.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document, Timestamp};
use shardlab::session::Session;

/// A session of `version` that ran `script`, every statement of which must succeed.
fn session(version: &str, script: &str) -> Session {
    let mut s = Session::default();
    let reset = s.run(&format!("sim.reset({{version: '{version}'}})"));
    assert!(reset[0].result.is_ok(), "{:?}", reset[0].result);
    for o in s.run(script) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    s.cluster.check().unwrap();
    s
}

/// The documents of `config.<name>`.
fn config(s: &Session, name: &str) -> Vec<Document> {
    shardlab::engine::config_documents(&s.cluster, name).unwrap()
}

/// `config.chunks` as `(min.x, shard, lastmod)`, in key order.
fn chunk_versions(s: &Session) -> Vec<(Bson, String, Timestamp)> {
    config(s, "chunks")
        .iter()
        .map(|c| {
            (
                c.get_document("min").unwrap().get("x").unwrap().clone(),
                c.get_str("shard").unwrap().to_string(),
                c.get_timestamp("lastmod").unwrap(),
            )
        })
        .collect()
}

fn ts(major: u32, minor: u32) -> Timestamp {
    Timestamp {
        time: major,
        increment: minor,
    }
}

/// The `history` of the chunk whose lower bound is `x`, as `(validAfter, shard)`.
fn history(s: &Session, x: Bson) -> Vec<(Timestamp, String)> {
    let chunks = config(s, "chunks");
    let chunk = chunks
        .iter()
        .find(|c| c.get_document("min").unwrap().get("x") == Some(&x))
        .unwrap();
    chunk
        .get_array("history")
        .unwrap()
        .iter()
        .map(|h| {
            let h = h.as_document().unwrap();
            (
                h.get_timestamp("validAfter").unwrap(),
                h.get_str("shard").unwrap().to_string(),
            )
        })
        .collect()
}

/// The changelog's entries of kind `what`, as `(shard, details)`.
fn changelog(s: &Session, what: &str) -> Vec<Document> {
    config(s, "changelog")
        .into_iter()
        .filter(|d| d.get_str("what").ok() == Some(what))
        .map(|d| d.get_document("details").unwrap().clone())
        .collect()
}

/// The collection's `lastmodEpoch` and (5.0 on) `timestamp`, from `config.collections`.
fn generation(s: &Session) -> (Bson, Option<Timestamp>) {
    let colls = config(s, "collections");
    let c = colls
        .iter()
        .find(|c| c.get_str("_id").ok() == Some("test.c"))
        .unwrap();
    (
        c.get("lastmodEpoch").unwrap().clone(),
        c.get_timestamp("timestamp").ok(),
    )
}

/// `test.c` on `{x: 1}` with the balancer stopped (so that only the statements move
/// chunks), cut at 10 and 20: one chunk at version 1|0, then `commitChunkSplit` gives the
/// pieces of each split the next minor versions, so [MinKey, 10) 1|1, [10, 20) 1|3 and
/// [20, MaxKey) 1|4, all on the primary shard.
const THREE_CHUNKS: &str = "sh.stopBalancer()
sh.shardCollection('test.c', {x: 1})
for (let i = 0; i < 30; i++) { db.c.insertOne({x: i}) }
sh.splitAt('test.c', {x: 10})
sh.splitAt('test.c', {x: 20})
";

// --- 1. What commitChunkMigration writes to config.chunks ------------------------------

// sharding_catalog_manager_chunk_operations.cpp, `commitChunkMigration` (3.6's in
// src/mongo/s/catalog/, 4.4 to 8.0's in src/mongo/db/s/config/): the moved chunk gets
// the collection version's major plus one and minor 0; the donor's "control chunk", a
// chunk it still holds (`getControlChunkForMigrate`: `{ns|uuid, shard: <donor>, min:
// {$ne: <moved min>}}` with limit 1, which the `{uuid: 1, shard: 1, min: 1}` index
// answers in key order; 3.6's donor picks it from its metadata the same way) gets the
// same major with minor 1. Every other chunk keeps its version. Same in every era.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_migration_bumps_the_moved_chunk_and_the_donors_control_chunk() {
    for version in ["3.6", "5.0", "8.0"] {
        let s = session(
            version,
            &format!("{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')"),
        );
        assert_eq!(
            chunk_versions(&s),
            vec![
                (Bson::MinKey, "shard01".to_string(), ts(2, 1)),
                (Bson::Int32(10), "shard02".to_string(), ts(2, 0)),
                (Bson::Int32(20), "shard01".to_string(), ts(1, 4)),
            ],
            "{version}"
        );
    }
}

// The same function: when the donor has no other chunk there is no control chunk, and
// only the moved chunk's version changes. A second migration starts from the new
// collection version (2|1 here), so the next major is 3.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn without_a_chunk_left_on_the_donor_there_is_no_control_chunk() {
    for version in ["3.6", "5.0", "8.0"] {
        let s = session(
            version,
            &format!(
                "{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')
sh.moveChunk('test.c', {{x: 15}}, 'shard03')"
            ),
        );
        assert_eq!(
            chunk_versions(&s),
            vec![
                (Bson::MinKey, "shard01".to_string(), ts(2, 1)),
                (Bson::Int32(10), "shard03".to_string(), ts(3, 0)),
                (Bson::Int32(20), "shard01".to_string(), ts(1, 4)),
            ],
            "{version}"
        );
    }
}

// 6.0 on, `moveRange` sends a range and `commitChunkMigration` cuts the chunk as it
// commits (its "moveRange scenario" block): the moved range takes major + 1 and minor 0,
// the piece on its left the next minor, the piece on its right the next, and then the
// control chunk; the pieces keep the original chunk's `history` (`leftSplitChunk =
// currentChunk`). No `split` goes to the changelog: `commitChunkSplit` is not called.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn move_range_in_8_0_cuts_the_chunk_in_the_commit() {
    let s = session(
        "8.0",
        "sh.stopBalancer()
sh.shardCollection('test.c', {x: 1})
for (let i = 0; i < 100; i++) { db.c.insertOne({x: i}) }
sh.splitAt('test.c', {x: 90})
sh.moveRange('test.c', 'shard02', {x: 40}, {x: 60})",
    );
    // The split at 90 gave [MinKey, 90) 1|1 and [90, MaxKey) 1|2.
    assert_eq!(
        chunk_versions(&s),
        vec![
            (Bson::MinKey, "shard01".to_string(), ts(2, 1)),
            (Bson::Int32(40), "shard02".to_string(), ts(2, 0)),
            (Bson::Int32(60), "shard01".to_string(), ts(2, 2)),
            (Bson::Int32(90), "shard01".to_string(), ts(2, 3)),
        ]
    );
    assert_eq!(changelog(&s, "split").len(), 1);
    let original = history(&s, Bson::Int32(90));
    assert_eq!(original.len(), 1);
    assert_eq!(history(&s, Bson::MinKey), original);
    assert_eq!(history(&s, Bson::Int32(60)), original);
    let moved = history(&s, Bson::Int32(40));
    assert_eq!(moved.len(), 2);
    assert_eq!(moved[0].1, "shard02");
    assert_eq!(moved[1], original[0]);
}

// `commitChunkMigration` (4.4 to 8.0): the moved chunk's history is the old one with
// `{validAfter: <commit>, shard: <recipient>}` put first, after dropping from the back
// the entries older than the history window (`getHistoryWindowInSeconds`: at least
// `minSnapshotHistoryWindowInSeconds`, 300 s from 5.0) while more than one is left.
// Splits copy a chunk's history to its pieces (`commitChunkSplit`); 7.0 on,
// `onCurrentShardSince` is the newest entry's time. 3.6 has no history.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_migration_puts_the_recipient_first_in_the_history_and_trims_old_entries() {
    for version in ["5.0", "8.0"] {
        let s = session(
            version,
            &format!("{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')"),
        );
        let created = history(&s, Bson::MinKey);
        assert_eq!(created.len(), 1, "{version}");
        assert_eq!(created[0].1, "shard01");
        assert_eq!(history(&s, Bson::Int32(20)), created, "{version}");
        let moved = history(&s, Bson::Int32(10));
        assert_eq!(moved.len(), 2, "{version}");
        assert_eq!(moved[0].1, "shard02");
        assert!(moved[0].0 > created[0].0, "{version}");
        assert_eq!(moved[1], created[0], "{version}");

        // Within the window a second migration keeps every entry.
        let s = session(
            version,
            &format!(
                "{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')
sh.moveChunk('test.c', {{x: 15}}, 'shard03')"
            ),
        );
        let kept = history(&s, Bson::Int32(10));
        let shards: Vec<&str> = kept.iter().map(|h| h.1.as_str()).collect();
        assert_eq!(shards, ["shard03", "shard02", "shard01"], "{version}");

        // Past it, the creation entry goes; the one before the new entry stays.
        let s = session(
            version,
            &format!(
                "{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')
sleep(400000)
sh.moveChunk('test.c', {{x: 15}}, 'shard03')"
            ),
        );
        let trimmed = history(&s, Bson::Int32(10));
        let shards: Vec<&str> = trimmed.iter().map(|h| h.1.as_str()).collect();
        assert_eq!(shards, ["shard03", "shard02"], "{version}");
        assert_eq!(trimmed[1], moved[0], "{version}");
        let chunks = config(&s, "chunks");
        let moved_doc = chunks
            .iter()
            .find(|c| c.get_document("min").unwrap().get("x") == Some(&Bson::Int32(10)))
            .unwrap();
        if version == "8.0" {
            assert_eq!(
                moved_doc.get_timestamp("onCurrentShardSince").unwrap(),
                trimmed[0].0
            );
        } else {
            assert!(moved_doc.get("onCurrentShardSince").is_none());
        }
    }
    let s = session(
        "3.6",
        &format!("{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')"),
    );
    assert!(config(&s, "chunks")
        .iter()
        .all(|c| c.get("history").is_none()));
}

// --- 2. The changelog's details -----------------------------------------------------------

/// `lastmod` as the era's changelog writes it (see the tests below).
fn lastmod(version: &str, s: &Session, major: u32, minor: u32) -> Document {
    let (epoch, timestamp) = generation(s);
    if version == "8.0" {
        doc! {"lastmod": {"e": epoch, "t": timestamp.unwrap(), "v": ts(major, minor)}}
    } else {
        doc! {"lastmod": ts(major, minor), "lastmodEpoch": epoch}
    }
}

fn range(min: Bson, max: Bson) -> Document {
    doc! {"min": {"x": min}, "max": {"x": max}}
}

fn with(mut d: Document, more: Document) -> Document {
    d.extend(more);
    d
}

// `commitChunkSplit` logs `split` with `before` (the range and the collection version
// the split started from), `left` and `right` (`appendShortVersion`: the range and the
// piece's new version), and, 5.0 on, `owningShard`. The version is written by
// `ChunkVersion::addToBSON` in 3.6 (`toBSONWithPrefix`: `lastmod` and `lastmodEpoch`),
// `appendLegacyWithField` in 4.4 and 5.0 (the same two fields), and from 6.0 by
// `ChunkVersion::serialize` as chunk_version.idl's `ChunkVersion60Format` under
// `lastmod`: `{e: <epoch>, t: <timestamp>, v: Timestamp(major, minor)}`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn split_details_carry_the_versions_before_and_after() {
    for version in ["3.6", "5.0", "8.0"] {
        let s = session(
            version,
            "sh.stopBalancer()
sh.shardCollection('test.c', {x: 1})
db.c.insertMany([{x: 1}, {x: 50}])
sh.splitAt('test.c', {x: 10})",
        );
        let splits = changelog(&s, "split");
        assert_eq!(splits.len(), 1, "{version}");
        let mut expected = doc! {
            "before": with(range(Bson::MinKey, Bson::MaxKey), lastmod(version, &s, 1, 0)),
            "left": with(range(Bson::MinKey, Bson::Int32(10)), lastmod(version, &s, 1, 1)),
            "right": with(range(Bson::Int32(10), Bson::MaxKey), lastmod(version, &s, 1, 2)),
        };
        if version != "3.6" {
            expected.insert("owningShard", "shard01");
        }
        assert_eq!(splits[0], expected, "{version}");
    }
}

// The same function logs a split into more than two pieces as one `multi-split` per
// piece: `before`, `number` (from 1), `of`, and `chunk` with the piece's version, the
// collection version's next minors in key order. (The balancer's zone splits use
// `splitChunkAtMultiplePoints`.)
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn multi_split_details_number_each_piece() {
    for version in ["3.6", "5.0", "8.0"] {
        let s = session(
            version,
            "sh.shardCollection('test.c', {x: 1})
db.c.insertMany([{x: 1}, {x: 50}])
sh.addShardToZone('shard01', 'A')
sh.updateZoneKeyRange('test.c', {x: 10}, {x: 20}, 'A')
sim.balance()",
        );
        let parts = changelog(&s, "multi-split");
        assert_eq!(parts.len(), 3, "{version}: {parts:?}");
        let before = with(
            range(Bson::MinKey, Bson::MaxKey),
            lastmod(version, &s, 1, 0),
        );
        let pieces = [
            (Bson::MinKey, Bson::Int32(10)),
            (Bson::Int32(10), Bson::Int32(20)),
            (Bson::Int32(20), Bson::MaxKey),
        ];
        for (i, (min, max)) in pieces.into_iter().enumerate() {
            let n = i as u32 + 1;
            let mut expected = doc! {
                "before": before.clone(),
                "number": n as i32,
                "of": 3,
                "chunk": with(range(min, max), lastmod(version, &s, 1, n)),
            };
            if version != "3.6" {
                expected.insert("owningShard", "shard01");
            }
            assert_eq!(parts[i], expected, "{version}");
        }
    }
}

// migration_source_manager.cpp, `commitChunkMetadataOnConfig`: `moveChunk.commit`'s
// details are `{min, max, from, to}` in 3.6 and, 4.4 on, also `counts`, the recipient's
// clone counts as migration_destination_manager.cpp's `report` builds them (`cloned`,
// `clonedBytes`, `catchup`, `steady`, each a long). ShardLab's migrations are atomic, so
// every document is cloned and none is caught up afterwards. move_timing_helper.cpp's
// destructor ends `moveChunk.from` with `to`, `from` (4.4 on; 3.6's donor wrote `from`
// before `to`) and `note: 'success'`. The step timings are not written: ShardLab takes
// no time inside a migration.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn move_chunk_commit_details_count_what_was_cloned() {
    for version in ["3.6", "5.0", "8.0"] {
        let s = session(
            version,
            &format!("{THREE_CHUNKS}sh.moveChunk('test.c', {{x: 15}}, 'shard02')"),
        );
        let commits = changelog(&s, "moveChunk.commit");
        assert_eq!(commits.len(), 1, "{version}");
        let mut expected = with(
            range(Bson::Int32(10), Bson::Int32(20)),
            doc! {"from": "shard01", "to": "shard02"},
        );
        if version != "3.6" {
            let bytes = db_bytes(&s, 10, 20);
            expected.insert(
                "counts",
                doc! {"cloned": 10i64, "clonedBytes": bytes, "catchup": 0i64, "steady": 0i64},
            );
        }
        assert_eq!(commits[0], expected, "{version}");
        let from = changelog(&s, "moveChunk.from");
        let ends: Vec<&str> = from[0].keys().map(String::as_str).collect();
        if version == "3.6" {
            assert_eq!(ends, ["min", "max", "from", "to", "note"]);
        } else {
            assert_eq!(ends, ["min", "max", "to", "from", "note"]);
        }
        assert_eq!(from[0].get_str("note").ok(), Some("success"));
    }
}

/// The BSON size of the documents `{_id: ObjectId, x: int32}` with `lo <= x < hi`: each
/// is 4 (length) + 1 + 4 + 12 (`_id`) + 1 + 2 + 4 (`x`) + 1 (end) = 29 bytes
/// (bsonspec.org).
fn db_bytes(_: &Session, lo: i32, hi: i32) -> i64 {
    i64::from(hi - lo) * 29
}
