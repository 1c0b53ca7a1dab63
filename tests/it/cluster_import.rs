//! A real cluster's sharding metadata brought into ShardLab (`workload::MetadataReader`,
//! `workload::assemble`, `sim.loadCluster`, `sim.replayChange`, `shardlab
//! import-cluster`), from the fixtures in `tests/fixtures/cluster/`: the same cluster
//! exported from 4.4 (`mongoexport -o DIR/config/<c>.json`, chunks keyed by `ns`), 6.0
//! (`bsondump` output, `<c>.bson.json`, keyed by `uuid`) and 8.0 (`--jsonArray`,
//! `config.<c>.json`, with `onCurrentShardSince` and an `unsplittable` collection).
//!
//! The cluster: shards shard01 (zone EU), shard02, shard03; `shop.orders` on `{customerId:
//! 1, orderId: 1}` with chunks [MinKey, c100) on shard01 (1|1), [c100, c500) on shard02
//! (1|3, jumbo), [c500, MaxKey) on shard03 (2|0), and the zone EU on [MinKey, c100);
//! `shop.users` on `{_id: "hashed"}` with three chunks split at ±3074457345618258602, one
//! per shard. Its changelog: a split of [c100, MaxKey) (1|2) at c500 into 1|3 and 1|4, then
//! the migration of [c500, MaxKey) from shard02 to shard03, with the migration's other
//! entries (start, to, from), which change no chunk.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use crate::cli::shardlab;
use shardlab::engine::VersionMode;
use shardlab::workload::{
    assemble, ClusterImport, MetadataCollection, MetadataError, MetadataReader,
};
use shardlab::{ClusterConfig, Session};
use std::path::{Path, PathBuf};

fn fixture_dir(era: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cluster")
        .join(era)
}

/// The fixture's files of one era: (collection, file name, text).
fn fixture(era: &str) -> Vec<(MetadataCollection, String, String)> {
    let dir = fixture_dir(era);
    let mut files = Vec::new();
    for place in [dir.join("config"), dir.clone()] {
        let Ok(entries) = std::fs::read_dir(&place) else {
            continue;
        };
        for e in entries {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if let Some(c) = MetadataCollection::from_file_name(&name) {
                files.push((c, name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort_by_key(|f| f.0);
    files
}

/// Reads files through the reader 7 bytes at a time, so documents cross the slices.
fn read(files: &[(MetadataCollection, String, String)]) -> Result<ClusterImport, MetadataError> {
    read_bytes(
        &files
            .iter()
            .map(|(c, n, t)| (*c, n.clone(), t.as_bytes().to_vec()))
            .collect::<Vec<_>>(),
    )
}

fn read_bytes(
    files: &[(MetadataCollection, String, Vec<u8>)],
) -> Result<ClusterImport, MetadataError> {
    let mut reader = MetadataReader::new();
    for (c, name, bytes) in files {
        reader.begin(*c, name)?;
        for piece in bytes.chunks(7) {
            reader.push(piece)?;
        }
        reader.end()?;
    }
    assemble(&reader.finish()?)
}

/// A session that ran every step of the import.
fn session_of(import: &ClusterImport) -> Session {
    let mut s = Session::new(ClusterConfig {
        version: import.version,
        ..ClusterConfig::default()
    });
    for step in &import.steps {
        for o in s.run(step) {
            assert!(o.result.is_ok(), "{step}: {:?}", o.result);
        }
    }
    s
}

/// Each chunk of `ns` as `min -> max on shard t|i (jumbo)`.
fn chunks(s: &Session, ns: &str) -> Vec<String> {
    let sharding = s.cluster.sharding(ns).unwrap();
    sharding
        .table
        .iter()
        .map(|c| {
            format!(
                "{} -> {} on {} {}|{}{}",
                sharding.bound_string(&c.min),
                sharding.bound_string(&c.max),
                s.cluster.shard_name(c.shard),
                c.version.major,
                c.version.minor,
                if c.jumbo { " jumbo" } else { "" }
            )
        })
        .collect()
}

fn status(s: &mut Session) -> String {
    s.run("sh.status()")
        .into_iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n")
}

const ORDERS: [&str; 3] = [
    "{ customerId: MinKey(), orderId: MinKey() } -> { customerId: 'c100', orderId: MinKey() } on shard01 1|1",
    "{ customerId: 'c100', orderId: MinKey() } -> { customerId: 'c500', orderId: MinKey() } on shard02 1|3 jumbo",
    "{ customerId: 'c500', orderId: MinKey() } -> { customerId: MaxKey(), orderId: MaxKey() } on shard03 2|0",
];

const USERS: [&str; 3] = [
    "{ _id: MinKey() } -> { _id: Long('-3074457345618258602') } on shard01 1|0",
    "{ _id: Long('-3074457345618258602') } -> { _id: Long('3074457345618258602') } on shard02 1|1",
    "{ _id: Long('3074457345618258602') } -> { _id: MaxKey() } on shard03 1|2",
];

#[test]
fn every_era_loads_the_exported_chunks_exactly() {
    for (era, mode) in [
        ("v44", VersionMode::V50),
        ("v60", VersionMode::V50),
        ("v80", VersionMode::V80),
    ] {
        let import = read(&fixture(era)).unwrap();
        assert_eq!(import.version, mode, "{era}");
        let s = session_of(&import);
        assert_eq!(chunks(&s, "shop.orders"), ORDERS, "{era}");
        assert_eq!(chunks(&s, "shop.users"), USERS, "{era}");
        // 8.0's unsplittable collection is tracked, not sharded.
        assert!(s.cluster.sharding("shop.audit").is_err(), "{era}");
        let names: Vec<&str> = s
            .cluster
            .all_shards()
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(names, ["shard01", "shard02", "shard03"], "{era}");
        s.cluster.check().unwrap();
    }
}

#[test]
fn sh_status_prints_the_imported_cluster() {
    let mut s = session_of(&read(&fixture("v44")).unwrap());
    let out = status(&mut s);
    for line in [
        "host: 'shard01/db1.example.net:27018,db2.example.net:27018',",
        "tags: [ 'EU' ],",
        "primary: 'shard02',",
        "'shop.orders': {",
        "shardKey: { customerId: 1, orderId: 1 },",
        "'shop.users': {",
        "shardKey: { _id: 'hashed' },",
        "{ shard: 'shard01', nChunks: 1 },",
        "{ shard: 'shard02', nChunks: 1 },",
        "{ shard: 'shard03', nChunks: 1 }",
        "max: { customerId: 'c500', orderId: MinKey() },",
        "'last modified': Timestamp({ t: 1, i: 3 }),\n            jumbo: 'yes'",
        "'last modified': Timestamp({ t: 2, i: 0 })",
        "min: { _id: Long('3074457345618258602') },",
        "tag: 'EU',",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    // Each collection's chunkMetadata counts its three chunks once per shard, nine in all.
    assert_eq!(out.matches("nChunks: 1").count(), 6, "{out}");
}

#[test]
fn commands_run_on_the_imported_cluster() {
    let mut s = session_of(&read(&fixture("v60")).unwrap());
    let out = s.run(r#"sh.moveChunk("shop.orders", {customerId: "c700", orderId: 1}, "shard01")"#);
    assert!(out[0].result.is_ok(), "{:?}", out[0].result);
    let after = chunks(&s, "shop.orders");
    // The migration bumps the collection version's major (2|0) to 3|0 on the moved chunk.
    assert!(after[2].ends_with("on shard01 3|0"), "{after:?}");
    let out = s.run(r#"sh.splitAt("shop.orders", {customerId: "c050", orderId: 7})"#);
    assert!(out[0].result.is_ok(), "{:?}", out[0].result);
    assert_eq!(chunks(&s, "shop.orders").len(), 4);
    s.cluster.check().unwrap();
}

#[test]
fn the_changelog_replays_from_the_state_before_it() {
    let import = read(&fixture("v80")).unwrap();
    // The load, the split, the migration and the export's jumbo flag.
    assert_eq!(import.steps.len(), 4, "{:#?}", import.steps);
    assert!(import.steps[1].contains("\"what\":\"split\""));
    assert!(import.steps[2].contains("\"what\":\"moveChunk.commit\""));
    let skipped: Vec<(&str, u64, &str)> = import
        .skipped
        .iter()
        .map(|s| (s.what.as_str(), s.count, s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("moveChunk.start", 1, "changes no chunk"),
            ("moveChunk.to", 1, "changes no chunk"),
            ("moveChunk.from", 1, "changes no chunk")
        ]
    );
    let mut s = Session::new(ClusterConfig {
        version: import.version,
        ..ClusterConfig::default()
    });
    let mut seen = Vec::new();
    for step in &import.steps {
        assert!(s.run(step)[0].result.is_ok(), "{step}");
        seen.push(chunks(&s, "shop.orders"));
    }
    // Before the split: [c100, MaxKey) whole on shard02 at the `before` version 1|2.
    assert_eq!(seen[0], [ORDERS[0], "{ customerId: 'c100', orderId: MinKey() } -> { customerId: MaxKey(), orderId: MaxKey() } on shard02 1|2"]);
    // The split gives the left and right pieces their logged versions.
    assert_eq!(seen[1][1], ORDERS[1].replace(" jumbo", ""));
    assert!(seen[1][2].ends_with("on shard02 1|4"), "{:?}", seen[1]);
    assert_eq!(seen[2][2], ORDERS[2]);
    assert_eq!(seen[3], ORDERS);
    assert_eq!(chunks(&s, "shop.users"), USERS);
}

/// The fixture of 4.4 with one file's text changed.
fn edited(
    collection: MetadataCollection,
    edit: impl Fn(&str) -> String,
) -> Vec<(MetadataCollection, String, String)> {
    fixture("v44")
        .into_iter()
        .map(|(c, n, t)| {
            if c == collection {
                (c, n, edit(&t))
            } else {
                (c, n, t)
            }
        })
        .collect()
}

fn error_of(files: &[(MetadataCollection, String, String)]) -> String {
    read(files)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| "no error".to_string())
}

#[test]
fn missing_chunks_are_named() {
    let files: Vec<_> = fixture("v44")
        .into_iter()
        .filter(|f| f.0 != MetadataCollection::Chunks)
        .collect();
    let e = error_of(&files);
    assert!(
        e.starts_with("chunks.json: the export has no config.chunks"),
        "{e}"
    );
}

#[test]
fn overlapping_and_missing_ranges_name_both_chunks() {
    let first_max = |to: &'static str| {
        edited(MetadataCollection::Chunks, move |t| {
            t.replacen(r#""max":{"customerId":"c100""#, to, 1)
        })
    };
    let overlap = first_max(r#""max":{"customerId":"c200""#);
    let e = error_of(&overlap);
    assert_eq!(
        e,
        "chunks.json: lines 1 and 2: The chunks of shop.orders do not cover its key space: the chunks [{ customerId: MinKey, orderId: MinKey }, { customerId: \"c200\", orderId: MinKey }) and [{ customerId: \"c100\", orderId: MinKey }, { customerId: \"c500\", orderId: MinKey }) overlap"
    );
    let gap = first_max(r#""max":{"customerId":"c050""#);
    let e = error_of(&gap);
    assert!(
        e.contains("lines 1 and 2: ") && e.contains("a gap between the chunks"),
        "{e}"
    );
    let no_top = edited(MetadataCollection::Chunks, |t| {
        t.lines()
            .filter(|l| !l.contains(r#""max":{"customerId":{"$maxKey""#))
            .collect::<Vec<_>>()
            .join("\n")
    });
    let e = error_of(&no_top);
    assert!(
        e.contains("line 2: ") && e.contains("does not end at MaxKey"),
        "{e}"
    );
}

#[test]
fn unknown_changelog_events_are_skipped_by_name() {
    let files = edited(MetadataCollection::Changelog, |t| {
        let line = t
            .lines()
            .next()
            .unwrap()
            .replace(r#""what":"split""#, r#""what":"fancyNewEvent""#);
        format!("{t}{line}\n")
    });
    let import = read(&files).unwrap();
    let unknown = import
        .skipped
        .iter()
        .find(|s| s.what == "fancyNewEvent")
        .unwrap();
    assert_eq!(
        (unknown.count, unknown.reason.as_str()),
        (1, "unknown event")
    );
    assert_eq!(import.steps.len(), 4);
}

#[test]
fn a_changelog_that_does_not_lead_to_the_chunks_stops_the_replay_there() {
    // The migration's donor is not where the chunk came from: the replay starts after it.
    let files = edited(MetadataCollection::Changelog, |t| {
        t.lines()
            .map(|l| {
                if l.contains("moveChunk.commit") {
                    l.replace(r#""to":"shard03""#, r#""to":"shard01""#)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let import = read(&files).unwrap();
    assert_eq!(import.steps.len(), 1, "{:#?}", import.steps);
    let reasons: Vec<String> = import
        .skipped
        .iter()
        .filter(|s| s.reason.starts_with("before the replay"))
        .map(|s| format!("{} x{}: {}", s.what, s.count, s.reason))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[1].contains("is not on the recipient shard"),
        "{reasons:?}"
    );
    assert_eq!(chunks(&session_of(&import), "shop.orders"), ORDERS);
}

#[test]
fn a_mix_of_eras_is_refused() {
    let files = edited(MetadataCollection::Chunks, |t| {
        t.replacen(
            r#""ns":"shop.users""#,
            r#""uuid":{"$binary":{"base64":"AgICAgICAgICAgICAgICAg==","subType":"04"}}"#,
            1,
        )
    });
    let e = error_of(&files);
    assert!(
        e.starts_with(
            "chunks.json, line 4: this chunk names its collection by uuid, but line 1's by ns"
        ),
        "{e}"
    );
}

#[test]
fn empty_binary_and_truncated_files_are_refused_with_their_place() {
    let e = error_of(&edited(MetadataCollection::Chunks, |_| String::new()));
    assert_eq!(
        e,
        "chunks.json: the file holds no documents: config.chunks cannot be empty"
    );
    let mut files: Vec<_> = fixture("v44")
        .into_iter()
        .map(|(c, n, t)| (c, n, t.into_bytes()))
        .collect();
    files[0].2 = vec![0x1f, 0x00, 0x07, 0x00, 0x00, 0x00, 0x10, 0x61];
    let e = read_bytes(&files).err().unwrap().to_string();
    assert!(e.starts_with("shards.json: the file is not text"), "{e}");
    let e = error_of(&edited(MetadataCollection::Chunks, |t| {
        t.trim_end()[..t.trim_end().len() - 9].to_string()
    }));
    assert!(e.starts_with("chunks.json, line 6: "), "{e}");
    let e = error_of(&edited(MetadataCollection::Chunks, |t| {
        t.replacen(r#""shard":"shard01""#, r#""shard":7"#, 1)
    }));
    assert_eq!(
        e,
        "chunks.json, line 1: config.chunks: the field 'shard' is missing or has the wrong type"
    );
    let e = error_of(&edited(MetadataCollection::Chunks, |t| {
        t.replacen(r#""shard":"shard01""#, r#""shard":"shard09""#, 1)
    }));
    assert_eq!(
        e,
        "chunks.json, line 1: the field 'shard': Shard shard09 not found in config.shards"
    );
}

#[test]
fn a_long_changelog_streams_through() {
    // 20,000 entries that change no chunk, read 7 bytes at a time: only their count is kept.
    let files = edited(MetadataCollection::Changelog, |t| {
        let start = t
            .lines()
            .find(|l| l.contains("moveChunk.start"))
            .unwrap()
            .to_string();
        let mut out = t.to_string();
        for _ in 0..20_000 {
            out.push_str(&start);
            out.push('\n');
        }
        out
    });
    let import = read(&files).unwrap();
    assert_eq!(import.skipped[0].what, "moveChunk.start");
    assert_eq!(import.skipped[0].count, 20_001);
}

#[test]
fn the_cli_prints_the_status_then_runs_the_script() {
    let dir = fixture_dir("v44");
    let run = shardlab(
        &["import-cluster", dir.to_str().unwrap()],
        "sh.moveChunk(\"shop.users\", {_id: 1}, \"shard02\").ok\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("shardingVersion\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("'last modified': Timestamp({ t: 2, i: 0 })"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("\n1\n"), "{}", run.stdout);
    assert_eq!(
        run.stderr,
        "config.changelog: 2 change(s) replayed\nconfig.changelog: skipped moveChunk.start x1: changes no chunk\nconfig.changelog: skipped moveChunk.to x1: changes no chunk\nconfig.changelog: skipped moveChunk.from x1: changes no chunk\n"
    );
}

#[test]
fn the_cli_names_what_is_wrong_with_a_directory() {
    let run = shardlab(&["import-cluster", "/nonexistent-shardlab-dir"], "");
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            1,
            "shardlab import-cluster: /nonexistent-shardlab-dir is not a directory\n"
        )
    );
    let run = shardlab(&["import-cluster"], "");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .starts_with("shardlab: import-cluster needs a DIR"),
        "{}",
        run.stderr
    );
    let dir = std::env::temp_dir().join(format!("shardlab-cluster-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::write(dir.join("config/chunks.bson"), b"\x05\x00\x00\x00\x00").unwrap();
    let run = shardlab(&["import-cluster", dir.to_str().unwrap()], "");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("chunks.bson is mongodump's BSON: run `bsondump"),
        "{}",
        run.stderr
    );
}

#[test]
fn config_system_sessions_is_listed_once_under_config() {
    let mut files = edited(MetadataCollection::Collections, |t| {
        format!(
            "{t}{}\n",
            r#"{"_id":"config.system.sessions","lastmodEpoch":{"$oid":"65e1a0000000000000000009"},"lastmod":{"$date":"2024-03-01T10:00:00Z"},"dropped":false,"key":{"_id":1},"unique":false,"uuid":{"$binary":{"base64":"CQkJCQkJCQkJCQkJCQkJCQ==","subType":"04"}}}"#
        )
    });
    for f in files
        .iter_mut()
        .filter(|f| f.0 == MetadataCollection::Chunks)
    {
        f.2.push_str(r#"{"_id":"config.system.sessions-_id_MinKey","ns":"config.system.sessions","min":{"_id":{"$minKey":1}},"max":{"_id":{"$maxKey":1}},"shard":"shard01","lastmod":{"$timestamp":{"t":1,"i":0}},"lastmodEpoch":{"$oid":"65e1a0000000000000000009"}}"#);
        f.2.push('\n');
    }
    let mut s = session_of(&read(&files).unwrap());
    let out = status(&mut s);
    // mongosh adds the config database itself: one entry, holding the sessions collection.
    assert_eq!(out.matches("_id: 'config'").count(), 1, "{out}");
    assert_eq!(
        out.matches("'config.system.sessions': {").count(),
        1,
        "{out}"
    );
}
