//! The procedures of the MongoDB manual's sharding administration pages
//! (`tests/manual_procedures/commands.js`: managing the balancer and its window, range
//! size, merging, migrating, zones, adding and draining shards, refining and resharding,
//! viewing the configuration), run in the session and through the CLI, compared with
//! `tests/manual_procedures/expected.txt` character for character. Each step of the file
//! names its page and the source its answer was checked against (mongosh's shard.ts,
//! helpers.ts, database.ts and result.ts; MongoDB's balancer_configuration.cpp,
//! sharding_catalog_manager*.cpp and the commands' IDL). `UPDATE_EXPECT=1` rewrites the
//! expected file; read its diff before committing it.
//!
//! Below the walk, the balancing window's effect: rounds outside it move nothing, and the
//! first round inside it does.

use crate::transcripts::{self, Shape};
use shardlab::Session;

const COMMANDS: &str = include_str!("../manual_procedures/commands.js");
const EXPECTED: &str = include_str!("../manual_procedures/expected.txt");
#[cfg(not(target_arch = "wasm32"))]
const EXPECTED_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/manual_procedures/expected.txt"
);

/// The walk as the session prints it: every statement as `> statement` and its answer.
fn transcript() -> String {
    let mut session = Session::default();
    let out = transcripts::write(
        &mut session,
        COMMANDS,
        Shape {
            every_statement: true,
            ..Shape::default()
        },
    );
    session
        .cluster
        .check()
        .expect("the cluster's invariants hold");
    out
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_walk_answers_as_expected() {
    let got = transcript();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(EXPECTED_PATH, &got).expect("the expected file is written");
        return;
    }
    let expected = EXPECTED;
    if got != expected {
        let at = got
            .lines()
            .zip(expected.lines())
            .position(|(g, e)| g != e)
            .unwrap_or(got.lines().count().min(expected.lines().count()));
        let show = |t: &str| {
            t.lines()
                .skip(at.saturating_sub(3))
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "the walk differs from expected.txt at line {}:\n--- expected\n{}\n--- got\n{}",
            at + 1,
            show(expected),
            show(&got)
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_cli_prints_the_walk_character_for_character() {
    // What the CLI prints is each answer of the session on its own lines, in order, and
    // nothing else: the statements that print nothing (a `while` that never runs) leave
    // no line.
    let mut session = Session::default();
    let answers: String = session
        .run(COMMANDS)
        .iter()
        .filter_map(|o| o.render())
        .map(|a| format!("{a}\n"))
        .collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/manual_procedures/commands.js"
        ))
        .output()
        .expect("the CLI runs");
    let cli = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(cli, answers);
    // One step fails on purpose (a zone still in use), so the CLI's status is a failure,
    // and nothing goes to standard error.
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    // The session's answers are those of expected.txt (the test above), so the CLI's
    // are too; the file holds the failing step.
    let expected = EXPECTED;
    assert!(
        expected.contains("MongoServerError[ZoneStillInUse]"),
        "the walk's failing step"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_walk_reaches_what_the_pages_promise() {
    let t = transcript();
    // Schedule the Balancing Window: sh.status() shows it (helpers.ts), and removing it
    // removes the line from the next status.
    assert!(
        t.contains("'Balancer active window is set between': '23:00 and 6:00 server local time'")
    );
    assert_eq!(t.matches("Balancer active window").count(), 1, "{t}");
    // Disable/enable balancing on a collection: noBalance reads true, then false.
    let no_balance: Vec<&str> = t
        .split("> db.getSiblingDB(\"config\").collections.findOne({_id : \"students.grades\"}).noBalance\n")
        .skip(1)
        .map(|rest| rest.lines().next().unwrap_or_default())
        .collect();
    assert_eq!(no_balance, ["true", "false"]);
    // The collection's own range size wins over the cluster's (balancerCollectionStatus).
    assert!(t.contains("{ chunkSize: 256, balancerCompliant: true, ok: 1 }"));
    // The drained shard is gone from the status, the added one is there by its set name.
    let status = &t[t
        .rfind("> db.printShardingStatus()")
        .expect("the last step")..];
    assert!(!status.contains("'shard03'"), "{status}");
    assert!(status.contains("_id: 'rs4'"), "{status}");
    // The refined key, then the resharded one.
    assert!(t.contains("{ customer_id: 1, order_id: 1 }\n"));
    assert!(t.contains("{ order_id: 1 }\n"));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn db_print_sharding_status_prints_what_sh_status_prints() {
    // database.ts printShardingStatus and shard.ts status both return
    // getPrintableShardStatus as a 'StatsResult'.
    let mut s = Session::default();
    let setup = "sh.shardCollection('test.c', {x: 1})\nsh.splitAt('test.c', {x: 5})";
    assert!(s.run(setup).iter().all(|o| o.result.is_ok()));
    let print = |s: &mut Session, cmd: &str| {
        s.run(cmd)
            .pop()
            .and_then(|o| o.render())
            .unwrap_or_default()
    };
    let status = print(&mut s, "sh.status()");
    assert!(status.contains("'test.c'"), "{status}");
    assert_eq!(print(&mut s, "db.printShardingStatus()"), status);
    assert_eq!(
        print(&mut s, "sh.status(true)"),
        print(&mut s, "db.printShardingStatus(true)")
    );
}

/// A collection on `{x: 1}` whose chunks all sit on shard01, with a 1 MiB range size and
/// 6,000 documents of about 1 KB: the balancer has ranges to move as soon as it runs.
const UNBALANCED: &str = "sim.version('8.0')
sim.chunkSize(1048576)
sh.shardCollection('test.w', {x: 1})
sim.generate('test.w', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 6000)
use config
";

/// The number of chunk migrations of the last day that `sh.status()` reports.
fn migrations(s: &mut Session) -> String {
    s.run("sh.status()")
        .pop()
        .and_then(|o| o.render())
        .and_then(|t| {
            t.split("'Migration Results for the last 24 hours': ")
                .nth(1)
                .map(|r| r.lines().next().unwrap_or_default().to_string())
        })
        .unwrap_or_default()
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_balancer_moves_nothing_outside_its_window() {
    // balancer_configuration.cpp, isTimeInBalancingWindow: a round whose time of day is
    // outside [start, stop] skips balancing (balancer.cpp, shouldBalance); the clock starts
    // at 2025-01-01T00:00 UTC, so a 1:00 to 2:00 window opens an hour later.
    let mut s = Session::default();
    let window = "db.settings.updateOne({ _id: \"balancer\" }, { $set: { activeWindow : { start : \"1:00\", stop : \"2:00\" } } }, { upsert: true })";
    for o in s.run(&format!("{UNBALANCED}{window}")) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    s.run("sleep(3590000)");
    assert_eq!(migrations(&mut s), "'No recent migrations'");
    // Rounds kept running (every 10 s), they only balanced nothing.
    let rounds = s
        .run("sh.isBalancerRunning().numBalancerRounds")
        .pop()
        .and_then(|o| o.render())
        .unwrap_or_default();
    assert_eq!(rounds, "Long('359')");
    // The round at 1:00:00 is inside: it moves a range, and the next rounds follow a
    // second apart.
    s.run("sleep(15000)");
    let moved = migrations(&mut s);
    assert!(
        moved.starts_with("{ '") && moved.ends_with("': 'Success' }"),
        "{moved}"
    );
    // Without the window the same cluster balances at once.
    let mut open = Session::default();
    for o in open.run(UNBALANCED) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    open.run("sleep(15000)");
    assert_ne!(migrations(&mut open), "'No recent migrations'");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_window_over_midnight_and_a_stopped_balancer() {
    // 23:00 to 6:00 holds midnight, where the clock starts: the balancer moves ranges.
    let mut s = Session::default();
    let window = "db.settings.updateOne({ _id: \"balancer\" }, { $set: { activeWindow : { start : \"23:00\", stop : \"6:00\" } } }, { upsert: true })";
    for o in s.run(&format!("{UNBALANCED}{window}")) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    s.run("sleep(15000)");
    assert_ne!(migrations(&mut s), "'No recent migrations'");
    // `stopped: true` written by hand stops it, and mongosh reads the state from it
    // (shard.ts getBalancerState: `!doc.stopped`); `mode: 'off'` alone stops the balancer
    // but still reads as enabled.
    let mut off = Session::default();
    let stop = "db.settings.updateOne({ _id: \"balancer\" }, { $set: { mode: \"off\" } }, { upsert: true })";
    for o in off.run(&format!("{UNBALANCED}{stop}")) {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    off.run("sleep(60000)");
    assert_eq!(migrations(&mut off), "'No recent migrations'");
    let state = off
        .run("sh.getBalancerState()")
        .pop()
        .and_then(|o| o.render())
        .unwrap_or_default();
    assert_eq!(state, "true");
    // 8.0's validator (BalancerSettingsType::kSchema) refuses a mode it does not know.
    let refused = off
        .run("db.settings.updateOne({ _id: \"balancer\" }, { $set: { mode: \"sometimes\" } })")
        .pop()
        .and_then(|o| o.render())
        .unwrap_or_default();
    assert_eq!(refused, "MongoServerError: Document failed validation");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn add_shard_names_the_shard_after_its_replica_set() {
    // sharding_catalog_manager_shard_operations.cpp: _validateHostAsShard defaults the name
    // to the set's; _checkIfShardExists answers a retry with the shard already there and
    // refuses a set or a host another shard has; the name 'config' is refused.
    let mut s = Session::default();
    let answers: Vec<String> = s
        .run(
            "sh.addShard(\"rs4/a.example.net:27018\")
sh.addShard(\"rs4/a.example.net:27018,b.example.net:27018\")
sh.addShard(\"rs4/c.example.net:27018\")
sh.addShard(\"rs5/a.example.net:27018\")
sh.addShard(\"config/d.example.net:27019\")
db.adminCommand({listShards: 1}).shards.length
db.adminCommand({listShards: 1}).shards[3]
db.getSiblingDB(\"config\").shards.findOne({_id: \"rs4\"})",
        )
        .iter()
        .map(|o| o.render().unwrap_or_default())
        .collect();
    assert_eq!(answers[0], "{ shardAdded: 'rs4', ok: 1 }");
    assert_eq!(answers[1], "{ shardAdded: 'rs4', ok: 1 }");
    assert_eq!(
        answers[2],
        "MongoServerError[IllegalOperation]: A shard named rs4 containing the replica set 'rs4' already exists"
    );
    assert_eq!(
        answers[3],
        "MongoServerError[IllegalOperation]: 'a.example.net:27018' is already a member of the existing shard 'rs4/a.example.net:27018' (rs4)."
    );
    assert_eq!(
        answers[4],
        "MongoServerError[BadValue]: use of shard replica set with name 'config' is not allowed"
    );
    assert_eq!(answers[5], "4");
    // listShards answers config.shards' documents: the new shard's topologyTime is the
    // time it joined, as the collection shows it.
    assert_eq!(answers[6], answers[7]);
    assert!(
        answers[6].contains("host: 'rs4/a.example.net:27018'"),
        "{}",
        answers[6]
    );
}
