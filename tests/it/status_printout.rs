//! A real cluster read from what `sh.status({verbose: true})` printed
//! (`workload::read_status_printout`), from the printouts in
//! `tests/fixtures/cluster/status/`: `mongosh-v80.txt` is mongosh 2.x's printout of the
//! cluster whose config exports are `tests/fixtures/cluster/v80` (a hashed key, a zone, a
//! jumbo chunk; the unsplittable `shop.audit` is not listed, as mongosh leaves it out);
//! `mongosh1-v44.txt` and `legacy-v44.txt` are one 4.4 cluster as mongosh 1.x and the
//! legacy mongo shell print it (`config.system.sessions`, a unique key, a collection not
//! balancing, a date in a bound, a zone on a compound key).

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use crate::cli::shardlab;
use expect_test::expect;
use shardlab::engine::VersionMode;
use shardlab::workload::{
    assemble, is_status_printout, read_status_printout, ClusterImport, MetadataCollection,
    MetadataReader, PrintoutShell,
};
use shardlab::{ClusterConfig, Session};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cluster")
}

fn printout(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("status").join(name)).unwrap()
}

fn import_of(name: &str, text: &str) -> ClusterImport {
    read_status_printout(name, text.as_bytes())
        .unwrap()
        .assemble()
        .unwrap()
}

fn error_of(text: &str) -> String {
    match read_status_printout("status.txt", text.as_bytes()).and_then(|p| p.assemble()) {
        Ok(_) => panic!("read: {text}"),
        Err(e) => e.to_string(),
    }
}

/// The v80 fixture's config exports, imported as `import-cluster DIR` imports them.
fn v80_exports() -> ClusterImport {
    let mut reader = MetadataReader::new();
    let dir = fixtures().join("v80");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            Some((MetadataCollection::from_file_name(&name)?, name, p))
        })
        .collect();
    files.sort_by_key(|f| f.0);
    for (c, name, path) in files {
        reader.begin(c, &name).unwrap();
        reader.push(&std::fs::read(path).unwrap()).unwrap();
        reader.end().unwrap();
    }
    assemble(&reader.finish().unwrap()).unwrap()
}

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

/// What `sh.status({verbose: true})` prints from its `databases` section on.
fn databases(s: &mut Session) -> String {
    let out: String = s
        .run("sh.status({verbose: true})")
        .into_iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n");
    out[out.find("\ndatabases\n").unwrap()..].to_string()
}

fn shards(s: &Session) -> Vec<String> {
    s.cluster
        .all_shards()
        .iter()
        .map(|x| {
            let zones: Vec<&str> = x.zones.iter().map(|z| z.as_str()).collect();
            format!("{} {} {zones:?}", x.name, x.host)
        })
        .collect()
}

#[test]
fn the_v80_printout_loads_the_cluster_its_config_exports_load() {
    let text = printout("mongosh-v80.txt");
    assert!(is_status_printout(text.as_bytes()));
    let read = read_status_printout("mongosh-v80.txt", text.as_bytes()).unwrap();
    assert_eq!(read.shell, PrintoutShell::Mongosh);
    assert_eq!(read.version, VersionMode::V80);
    let from_printout = read.assemble().unwrap();
    assert_eq!(from_printout.steps.len(), 1);
    let exports = v80_exports();
    assert_eq!(exports.version, VersionMode::V80);
    let (mut a, mut b) = (session_of(&from_printout), session_of(&exports));
    for ns in ["shop.orders", "shop.users"] {
        assert_eq!(chunks(&a, ns), chunks(&b, ns), "{ns}");
    }
    assert_eq!(
        chunks(&a, "shop.orders"),
        [
            "{ customerId: MinKey(), orderId: MinKey() } -> { customerId: 'c100', orderId: MinKey() } on shard01 1|1",
            "{ customerId: 'c100', orderId: MinKey() } -> { customerId: 'c500', orderId: MinKey() } on shard02 1|3 jumbo",
            "{ customerId: 'c500', orderId: MinKey() } -> { customerId: MaxKey(), orderId: MaxKey() } on shard03 2|0",
        ]
    );
    assert_eq!(shards(&a), shards(&b));
    // The zones, keys, flags and primaries, as sh.status() shows them, are the same too.
    assert_eq!(databases(&mut a), databases(&mut b));
    a.cluster.check().unwrap();
}

#[test]
fn shardlab_reads_back_what_its_own_sh_status_prints() {
    // ShardLab prints each chunk over several lines, as mongosh did before 1.0: the
    // layout does not matter, only the values.
    let mut b = session_of(&v80_exports());
    let printed: String = b
        .run("sh.status({verbose: true})")
        .into_iter()
        .filter_map(|o| o.render())
        .collect::<Vec<_>>()
        .join("\n");
    let mut a = session_of(&import_of("printed.txt", &printed));
    for ns in ["shop.orders", "shop.users"] {
        assert_eq!(chunks(&a, ns), chunks(&b, ns), "{ns}");
    }
    assert_eq!(databases(&mut a), databases(&mut b));
}

#[test]
fn mongosh_1_and_the_mongo_shell_print_the_same_44_cluster() {
    let events = [
        "{ tenant: MinKey(), ts: MinKey() } -> { tenant: 'acme', ts: ISODate('2021-01-01T00:00:00.000Z') } on rs0 2|1",
        "{ tenant: 'acme', ts: ISODate('2021-01-01T00:00:00.000Z') } -> { tenant: 'globex', ts: MinKey() } on rs1 3|0",
        "{ tenant: 'globex', ts: MinKey() } -> { tenant: 'initech', ts: MinKey() } on rs0 3|1 jumbo",
        "{ tenant: 'initech', ts: MinKey() } -> { tenant: MaxKey(), ts: MaxKey() } on rs1 2|3",
    ];
    let mut seen = Vec::new();
    for (name, shell) in [
        ("mongosh1-v44.txt", PrintoutShell::Mongosh),
        ("legacy-v44.txt", PrintoutShell::Legacy),
    ] {
        let read = read_status_printout(name, printout(name).as_bytes()).unwrap();
        assert_eq!(read.shell, shell, "{name}");
        assert_eq!(read.version, VersionMode::V50, "{name}");
        let mut s = session_of(&read.assemble().unwrap());
        assert_eq!(chunks(&s, "app.events"), events, "{name}");
        assert_eq!(
            chunks(&s, "app.users"),
            ["{ email: MinKey() } -> { email: MaxKey() } on rs0 1|0"],
            "{name}"
        );
        assert_eq!(
            chunks(&s, "config.system.sessions"),
            ["{ _id: MinKey() } -> { _id: MaxKey() } on rs0 1|0"],
            "{name}"
        );
        let users = s.cluster.sharding("app.users").unwrap();
        assert!(users.unique && !users.balancing, "{name}");
        assert_eq!(
            shards(&s),
            [
                "rs0 rs0/node1.example.org:27018,node2.example.org:27018 []",
                "rs1 rs1/node3.example.org:27018,node4.example.org:27018 [\"US\"]"
            ],
            "{name}"
        );
        let dbs = databases(&mut s);
        for line in [
            "tag: 'US',",
            "min: { tenant: 'acme', ts: MinKey() },",
            "max: { tenant: 'globex', ts: MinKey() }",
            "_id: 'app',\n      primary: 'rs1',",
            "_id: 'reports',\n      primary: 'rs0',",
            "balancing: false,",
            "unique: true,",
        ] {
            assert!(dbs.contains(line), "{name}: no {line:?} in\n{dbs}");
        }
        seen.push(dbs);
    }
    assert_eq!(seen[0], seen[1]);
}

#[test]
fn the_era_is_read_from_what_the_printout_shows() {
    let v80 = printout("mongosh-v80.txt");
    let no_config_version = v80.replace("    replSetConfigVersion: Long('-1')\n", "");
    let no_config_version = no_config_version.replace(
        "1 }),\n    replSetConfigVersion",
        "1 })\n    replSetConfigVersion",
    );
    let read = read_status_printout("s.txt", no_config_version.as_bytes()).unwrap();
    // Without replSetConfigVersion, shardedDataDistribution still says 6.0.3 or later.
    assert_eq!(read.version, VersionMode::V70, "{}", read.version_reason);
    let v44 = printout("mongosh1-v44.txt");
    let read = read_status_printout("s.txt", v44.as_bytes()).unwrap();
    assert_eq!(read.version, VersionMode::V50);
    let with_automerge = v44.replace(
        "---\nbalancer\n",
        "---\nautomerge\n{ 'Currently enabled': 'yes' }\n---\nbalancer\n",
    );
    let read = read_status_printout("s.txt", with_automerge.as_bytes()).unwrap();
    assert_eq!(read.version, VersionMode::V70);
}

#[test]
fn mongosh_1_0_timestamps_colours_and_crlf_are_read() {
    let v44 = printout("mongosh1-v44.txt");
    // mongosh 1.0.0 to 1.0.3 printed `Timestamp(<i>, <t>)`, the low bits first.
    let old = v44.replace("Timestamp({ t: 3, i: 1 })", "Timestamp(1, 3)");
    let old = old.replace("Timestamp({ t: 2, i: 3 })", "Timestamp(3, 2)");
    let old = old.replace("Timestamp({ t: 2, i: 1 })", "Timestamp(1, 2)");
    let old = old.replace("Timestamp({ t: 3, i: 0 })", "Timestamp(0, 3)");
    let old = old.replace("Timestamp({ t: 1, i: 0 })", "Timestamp(0, 1)");
    let s = session_of(&import_of("old.txt", &old));
    let a = session_of(&import_of("new.txt", &v44));
    assert_eq!(chunks(&s, "app.events"), chunks(&a, "app.events"));
    // A terminal's colours and Windows line ends.
    let coloured = v44
        .replace(
            "shards\n",
            "\u{1b}[1m\u{1b}[33mshards\u{1b}[39m\u{1b}[22m\n",
        )
        .replace("'rs0'", "\u{1b}[32m'rs0'\u{1b}[39m")
        .replace('\n', "\r\n");
    let c = session_of(&import_of("colour.txt", &coloured));
    assert_eq!(chunks(&c, "app.events"), chunks(&a, "app.events"));
}

#[test]
fn a_printout_that_leaves_chunks_out_is_refused_with_what_to_do() {
    let v80 = printout("mongosh-v80.txt");
    let not_verbose = v80.replacen(
        "          { min: { _id: Long('3074457345618258602') }, max: { _id: MaxKey() }, 'on shard': 'shard03', 'last modified': Timestamp({ t: 1, i: 2 }) }\n",
        "          'too many chunks to print, use verbose if you want to force print'\n",
        1,
    );
    expect![[r#"status.txt, line 164: shop.users: the printout leaves chunks out ('too many chunks to print, use verbose if you want to force print'): print it again with sh.status({verbose: true}) (in mongosh, printjson(sh.status({verbose: true})) also prints more than 100 chunks a collection and every nesting level)"#]]
    .assert_eq(&error_of(&not_verbose));
    let more_items = v80.replacen(
        "          { min: { _id: Long('3074457345618258602') }, max: { _id: MaxKey() }, 'on shard': 'shard03', 'last modified': Timestamp({ t: 1, i: 2 }) }\n",
        "          ... 1 more item\n",
        1,
    );
    expect![[r#"status.txt, line 164: the printout leaves values out here, '... more items' (Node prints at most 100 entries of a list): print it again with sh.status({verbose: true}) (in mongosh, printjson(sh.status({verbose: true})) also prints more than 100 chunks a collection and every nesting level)"#]]
    .assert_eq(&error_of(&more_items));
    let shallow = v80.replacen(
        "max: { customerId: 'c100', orderId: MinKey() }\n",
        "max: [Object]\n",
        1,
    );
    expect![[r#"status.txt, line 147: the printout leaves values out here, '[Object]' (mongosh prints 6 levels of nesting): print it again with sh.status({verbose: true}) (in mongosh, printjson(sh.status({verbose: true})) also prints more than 100 chunks a collection and every nesting level)"#]]
    .assert_eq(&error_of(&shallow));
    // A chunk deleted by hand: the counts of chunkMetadata no longer match.
    let dropped = v80.replacen(
        "          { min: { _id: Long('3074457345618258602') }, max: { _id: MaxKey() }, 'on shard': 'shard03', 'last modified': Timestamp({ t: 1, i: 2 }) }\n",
        "",
        1,
    );
    let dropped = dropped.replacen(
        "'shard02', 'last modified': Timestamp({ t: 1, i: 1 }) },\n        ]",
        "'shard02', 'last modified': Timestamp({ t: 1, i: 1 }) }\n        ]",
        1,
    );
    expect!["status.txt, line 151: shop.users: the printout counts 1 chunk(s) on shard03 but lists 0: the list is cut or edited; print it again with sh.status({verbose: true}) (in mongosh, printjson(sh.status({verbose: true})) also prints more than 100 chunks a collection and every nesting level)"]
    .assert_eq(&error_of(&dropped));
    let legacy = printout("legacy-v44.txt");
    let cut = legacy.replacen(
        "                        { \"email\" : { \"$minKey\" : 1 } } -->> { \"email\" : { \"$maxKey\" : 1 } } on : rs0 Timestamp(1, 0) \n",
        "                        too many chunks to print, use verbose if you want to force print\n",
        1,
    );
    expect![[r#"status.txt, line 42: the printout leaves chunks out ('too many chunks to print, use verbose if you want to force print'): print it again with sh.status(true)"#]]
    .assert_eq(&error_of(&cut));
}

#[test]
fn gaps_overlaps_unknown_shards_and_bad_values_name_their_line() {
    let v80 = printout("mongosh-v80.txt");
    let gap = v80.replacen(
        "max: { customerId: 'c100', orderId: MinKey() }, 'on shard'",
        "max: { customerId: 'c090', orderId: MinKey() }, 'on shard'",
        1,
    );
    expect![[r#"status.txt: lines 139 and 140: The chunks of shop.orders do not cover its key space: a gap between the chunks [{ customerId: MinKey, orderId: MinKey }, { customerId: "c090", orderId: MinKey }) and [{ customerId: "c100", orderId: MinKey }, { customerId: "c500", orderId: MinKey })"#]]
    .assert_eq(&error_of(&gap));
    let overlap = v80.replacen(
        "max: { customerId: 'c100', orderId: MinKey() }, 'on shard'",
        "max: { customerId: 'c200', orderId: MinKey() }, 'on shard'",
        1,
    );
    assert!(
        error_of(&overlap).ends_with("overlap"),
        "{}",
        error_of(&overlap)
    );
    let unknown = v80.replacen(
        "'on shard': 'shard03', 'last modified': Timestamp({ t: 2, i: 0 })",
        "'on shard': 'shard09', 'last modified': Timestamp({ t: 2, i: 0 })",
        1,
    );
    let unknown = unknown.replacen(
        "{ shard: 'shard03', nChunks: 1 }",
        "{ shard: 'shard09', nChunks: 1 }",
        1,
    );
    expect!["status.txt, line 141: the field 'shard': Shard shard09 not found in config.shards"]
        .assert_eq(&error_of(&unknown));
    let bad = v80.replacen("Timestamp({ t: 2, i: 0 })", "Timestamp({ t: 2, i: 0 )", 1);
    expect!["status.txt, line 141: cannot read the value: SyntaxError: Unexpected token ')', expected ',' or '}'"]
    .assert_eq(&error_of(&bad));
    let bad_key = v80.replacen(
        "'on shard': 'shard01', 'last modified': Timestamp({ t: 1, i: 1 })",
        "'on shard': 'shard01', 'last modified': 'yesterday'",
        1,
    );
    expect!["status.txt, line 139: the chunk has no Timestamp 'last modified'"]
        .assert_eq(&error_of(&bad_key));
}

#[test]
fn empty_binary_and_other_texts_are_refused_plainly() {
    expect![[r#"status.txt: the file is empty: paste the whole output of sh.status({verbose: true}) into it"#]]
    .assert_eq(&error_of(" \n\n"));
    let binary = read_status_printout("status.txt", b"\x00\x01shardingVersion\n\xff").unwrap_err();
    expect![[r#"status.txt: the file is not text: a sh.status() printout is the text mongosh or the mongo shell printed"#]]
    .assert_eq(&binary.to_string());
    expect![[r#"status.txt: not a sh.status() printout: it has no 'shardingVersion' line (mongosh) or '--- Sharding Status ---' line (the mongo shell)"#]]
    .assert_eq(&error_of("{\"_id\": \"shard01\"}\n"));
    expect![[r#"status.txt: the printout has no 'databases' section: paste the whole output of sh.status({verbose: true})"#]]
    .assert_eq(&error_of(&printout("mongosh-v80.txt")[..900]));
    assert!(!is_status_printout(b"{\"_id\": \"shard01\"}"));
    // Deep nesting stays an error, not a stack overflow.
    let deep = printout("mongosh-v80.txt").replacen(
        "shardKey: { _id: 'hashed' }",
        &format!("shardKey: {}{}", "{ a: ".repeat(5000), "1 }".repeat(5000)),
        1,
    );
    let e = error_of(&deep);
    assert!(
        e.starts_with("status.txt, line 152: cannot read the value: "),
        "{e}"
    );
}

#[test]
fn the_cli_imports_a_printout_file_or_a_directory_holding_one() {
    let file = fixtures().join("status/mongosh-v80.txt");
    let run = shardlab(
        &["import-cluster", file.to_str().unwrap()],
        "sh.moveChunk(\"shop.users\", {_id: 1}, \"shard01\").ok\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("shardingVersion\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("\n1\n"), "{}", run.stdout);
    let stderr = run.stderr.replace(file.to_str().unwrap(), "FILE");
    expect![[r#"
        FILE: sh.status() as mongosh prints it; the cluster takes version 8.0 (its shards have replSetConfigVersion, which 8.0 added)
    "#]]
    .assert_eq(&stderr);
    let dir = std::env::temp_dir().join(format!("shardlab-status-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("status.txt"), printout("legacy-v44.txt")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a printout\n").unwrap();
    let run = shardlab(&["import-cluster", dir.to_str().unwrap()], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    expect![[r#"
        status.txt: sh.status() as the mongo shell prints it; the cluster takes version 5.0 (the mongo shell's printout shows nothing of a later release, so 5.0, as an import of config exports assumes)
    "#]]
    .assert_eq(&run.stderr);
    std::fs::write(dir.join("chunks.json"), "{}\n").unwrap();
    let run = shardlab(&["import-cluster", dir.to_str().unwrap()], "");
    let stderr = run.stderr.replace(dir.to_str().unwrap(), "DIR");
    assert_eq!(run.code, 1);
    expect![[r#"
        shardlab import-cluster: DIR holds both config exports (DIR/chunks.json) and a sh.status() printout (DIR/status.txt): the two cannot be mixed, import one of them
    "#]]
    .assert_eq(&stderr);
    let run = shardlab(
        &["import-cluster", dir.join("notes.txt").to_str().unwrap()],
        "",
    );
    let stderr = run.stderr.replace(dir.to_str().unwrap(), "DIR");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(run.code, 1);
    expect![[r#"
        shardlab import-cluster: DIR/notes.txt is not a sh.status() printout (it has no 'shardingVersion' or '--- Sharding Status ---' line): give the output of sh.status({verbose: true}) or a directory of config exports
    "#]]
    .assert_eq(&stderr);
}

#[test]
fn a_printout_of_many_chunks_loads_in_both_shells_layouts() {
    // 5,000 chunks of `big.c` on {x: 1}, alternating between two shards. (The image a
    // `sim.loadCluster` step holds is a shell value, at most 100,000 values: about
    // 14,000 chunks, for a printout as for config exports.)
    const N: usize = 5_000;
    let bound = |i: usize, legacy: bool| match (i, legacy) {
        (0, false) => "{ x: MinKey() }".to_string(),
        (0, true) => "{ \"x\" : { \"$minKey\" : 1 } }".to_string(),
        (i, _) if i == N && !legacy => "{ x: MaxKey() }".to_string(),
        (i, _) if i == N => "{ \"x\" : { \"$maxKey\" : 1 } }".to_string(),
        (i, false) => format!("{{ x: {} }}", i * 10),
        (i, true) => format!("{{ \"x\" : {} }}", i * 10),
    };
    let shard = |i: usize| if i % 2 == 0 { "sA" } else { "sB" };
    let mut mongosh = String::from("shardingVersion\n{ _id: 1 }\n---\nshards\n[\n  { _id: 'sA', host: 'sA/a:1', state: 1 },\n  { _id: 'sB', host: 'sB/b:1', state: 1 }\n]\n---\ndatabases\n[\n  {\n    database: { _id: 'big', primary: 'sA' },\n    collections: {\n      'big.c': {\n        shardKey: { x: 1 },\n        unique: false,\n        balancing: true,\n        chunkMetadata: [ { shard: 'sA', nChunks: 2500 }, { shard: 'sB', nChunks: 2500 } ],\n        chunks: [\n");
    let mut legacy = String::from("--- Sharding Status --- \n  shards:\n        {  \"_id\" : \"sA\",  \"host\" : \"sA/a:1\",  \"state\" : 1 }\n        {  \"_id\" : \"sB\",  \"host\" : \"sB/b:1\",  \"state\" : 1 }\n  databases:\n        {  \"_id\" : \"big\",  \"primary\" : \"sA\",  \"partitioned\" : true }\n                big.c\n                        shard key: { \"x\" : 1 }\n                        unique: false\n                        balancing: true\n                        chunks:\n                                sA\t2500\n                                sB\t2500\n");
    for i in 0..N {
        mongosh.push_str(&format!(
            "          {{ min: {}, max: {}, 'on shard': '{}', 'last modified': Timestamp({{ t: 1, i: {i} }}) }}{}\n",
            bound(i, false),
            bound(i + 1, false),
            shard(i),
            if i + 1 < N { "," } else { "" }
        ));
        legacy.push_str(&format!(
            "                        {} -->> {} on : {} Timestamp(1, {i}) \n",
            bound(i, true),
            bound(i + 1, true),
            shard(i)
        ));
    }
    mongosh.push_str("        ],\n        tags: []\n      }\n    }\n  }\n]\n");
    for text in [mongosh, legacy] {
        let s = session_of(&import_of("big.txt", &text));
        let all = chunks(&s, "big.c");
        assert_eq!(all.len(), N);
        assert_eq!(all[1], "{ x: 10 } -> { x: 20 } on sB 1|1");
        assert_eq!(all[N - 1], "{ x: 49990 } -> { x: MaxKey() } on sB 1|4999");
    }
}

#[test]
fn the_mongo_shells_values_broken_over_lines_are_read() {
    // `tojson` prints a value of 80 characters or more over several lines, tab-indented.
    let legacy = printout("legacy-v44.txt");
    let broken = legacy
        .replace(
            "shard key: { \"tenant\" : 1, \"ts\" : 1 }",
            "shard key: {\n\t\"tenant\" : 1,\n\t\"ts\" : 1\n}",
        )
        .replace(
            "tag: US  { \"tenant\" : \"acme\", \"ts\" : { \"$minKey\" : 1 } } -->>",
            "tag: US  {\n\t\"tenant\" : \"acme\",\n\t\"ts\" : { \"$minKey\" : 1 }\n} -->>",
        )
        .replace(
            "-->> { \"tenant\" : \"globex\", \"ts\" : { \"$minKey\" : 1 } } on : rs1",
            "-->> {\n\t\"tenant\" : \"globex\",\n\t\"ts\" : { \"$minKey\" : 1 }\n} on : rs1",
        );
    assert_ne!(broken, legacy);
    let mut a = session_of(&import_of("broken.txt", &broken));
    let mut b = session_of(&import_of("legacy.txt", &legacy));
    assert_eq!(chunks(&a, "app.events"), chunks(&b, "app.events"));
    assert_eq!(databases(&mut a), databases(&mut b));
}
