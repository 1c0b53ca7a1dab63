//! The simulated clock and the balancer that runs on its own: `sleep(ms)`, the rounds at
//! MongoDB's intervals, a stopped balancer, `balancerStatus` per era, the last day's
//! migrations, determinism and replay. The schedule is `Balancer::_mainThread` in
//! `src/mongo/db/s/balancer/balancer.cpp` (3.6, 5.0 and master): a round that moved chunks
//! is followed by another `kShortBalanceRoundInterval` (1 s) later, any other round by
//! `kBalanceRoundDefaultInterval` (10 s); `_endRound` counts every round.
#![allow(clippy::unwrap_used)]

use expect_test::expect;
use shardlab::engine::{EventKind, EPOCH_MS, ROUND_INTERVAL_MS, SHORT_ROUND_INTERVAL_MS};
use shardlab::session::Session;
use shardlab::sim::{from_query, to_query, Timeline};

/// Runs `script` on `session`, every statement succeeding, and returns what each printed.
fn run_ok(session: &mut Session, script: &str) -> Vec<String> {
    session
        .run(script)
        .into_iter()
        .map(|o| {
            assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
            o.render().unwrap_or_default()
        })
        .collect()
}

/// 3,000 documents of `test.c` keyed by a counter, cut into 30 chunks all on shard01:
/// the same imbalance in every era (8.0 does not auto-split, so the cuts are explicit).
fn unbalanced(version: &str) -> Session {
    let mut s = Session::default();
    let mut script = format!(
        "sim.reset({{shards: 3, version: \"{version}\", chunkSize: 16384}})\n\
         sh.shardCollection(\"test.c\", {{x: 1}})\n\
         sim.generate(\"test.c\", {{x: \"increasing\", pad: {{gen: \"padding\", bytes: 100}}}}, 3000)\n"
    );
    for x in (100..3000).step_by(100) {
        script.push_str(&format!("sh.splitAt(\"test.c\", {{x: {x}}})\n"));
    }
    run_ok(&mut s, &script);
    s
}

/// Chunks per shard of `test.c`.
fn chunk_counts(s: &Session) -> Vec<u64> {
    s.cluster
        .shard_stats("test.c")
        .iter()
        .map(|st| st.chunks)
        .collect()
}

/// Milliseconds since the clock's start of every committed migration, in order.
fn migration_times(s: &Session) -> Vec<i64> {
    s.cluster
        .events()
        .iter()
        .filter(|e| matches!(e.kind, EventKind::MoveChunkCommit { .. }))
        .map(|e| e.at_ms - EPOCH_MS)
        .collect()
}

#[test]
fn generate_then_sleep_balances_the_cluster() {
    // The issue's report: after sim.generate the balancer is "enabled" but nothing moves
    // until time passes. A minute later the chunk counts are even.
    let mut s = Session::default();
    run_ok(
        &mut s,
        "sim.chunkSize(8192)\n\
         sh.shardCollection(\"test.events\", {x: 1})\n\
         sim.generate(\"test.events\", \"uniform\", 3000)",
    );
    let before: Vec<u64> = s
        .cluster
        .shard_stats("test.events")
        .iter()
        .map(|st| st.chunks)
        .collect();
    assert!(before[0] > before[1] + before[2], "{before:?}");
    let out = run_ok(
        &mut s,
        "sleep(60000)\n\
         sh.status().databases[1].collections[\"test.events\"].chunkMetadata",
    );
    assert_eq!(
        out[0], "",
        "sleep prints nothing (mongosh's sleep resolves to undefined)"
    );
    expect![[r#"
        [
          { shard: 'shard01', nChunks: 19 },
          { shard: 'shard02', nChunks: 19 },
          { shard: 'shard03', nChunks: 19 }
        ]"#]]
    .assert_eq(&out[1]);
    s.cluster.check().unwrap();
}

#[test]
fn rounds_come_at_the_eras_intervals() {
    for version in ["3.6", "5.0", "8.0"] {
        let mut s = unbalanced(version);
        let start = s.now_ms() - EPOCH_MS;
        assert!(
            start < ROUND_INTERVAL_MS,
            "{version}: the setup ran {start} ms"
        );
        // (3.6 and 5.0 moved the top chunk as they split it: spec §6.)
        let setup = migration_times(&s).len();
        // Up to the first round (10 s after the start) nothing moves.
        s.cluster.advance_clock(ROUND_INTERVAL_MS - 1 - start);
        assert_eq!(migration_times(&s).len(), setup, "{version}");
        assert_eq!(s.cluster.balancer_rounds(), 0);
        s.cluster.advance_clock(120_000);
        let times = migration_times(&s)[setup..].to_vec();
        assert_eq!(
            times[0], ROUND_INTERVAL_MS,
            "{version}: the first round at 10 s"
        );
        // While rounds move chunks, each follows the last by 1 s.
        let mut rounds: Vec<i64> = times.clone();
        rounds.dedup();
        for pair in rounds.windows(2) {
            assert_eq!(
                pair[1] - pair[0],
                SHORT_ROUND_INTERVAL_MS,
                "{version}: {rounds:?}"
            );
        }
        // The first round that finds nothing comes 1 s after the last move, and the
        // next ones every 10 s after that.
        let last = *rounds.last().unwrap();
        let now = s.now_ms() - EPOCH_MS;
        let next = s.cluster.next_balancer_round_ms() - EPOCH_MS;
        let first_idle = last + SHORT_ROUND_INTERVAL_MS;
        assert_eq!((next - first_idle) % ROUND_INTERVAL_MS, 0, "{version}");
        assert!(next > now && next - ROUND_INTERVAL_MS <= now, "{version}");
        // Every round counts: the moving ones, then the idle ones up to now.
        let idle = (now - (last + SHORT_ROUND_INTERVAL_MS)) / ROUND_INTERVAL_MS + 1;
        assert_eq!(
            s.cluster.balancer_rounds(),
            (rounds.len() as i64 + idle) as u64,
            "{version}"
        );
        // And the balancer left the collection balanced by its era's rule (3.6's mongos
        // has no balancerCollectionStatus command; the engine answers the same question).
        assert_eq!(s.cluster.first_violation("test.c"), None, "{version}");
        if version != "3.6" {
            let status = run_ok(&mut s, "sh.balancerCollectionStatus(\"test.c\")");
            assert!(
                status[0].contains("balancerCompliant: true"),
                "{version}: {status:?}"
            );
        }
        s.cluster.check().unwrap();
    }
}

#[test]
fn a_stopped_balancer_moves_nothing_but_counts_its_rounds() {
    let mut s = unbalanced("5.0");
    let before = chunk_counts(&s);
    let moved = migration_times(&s).len();
    let out = run_ok(
        &mut s,
        "sh.stopBalancer()\nsleep(60000)\nsh.isBalancerRunning()",
    );
    assert_eq!(chunk_counts(&s), before);
    assert_eq!(migration_times(&s).len(), moved);
    // balancer.cpp, _mainThread: while `shouldBalance()` is false the loop still ends a
    // round (`_endRound(kBalanceRoundDefaultInterval)`), so the count goes on: rounds at
    // 10, 20, ..., 60 s.
    expect![[r#"
        {
          mode: 'off',
          inBalancerRound: false,
          numBalancerRounds: Long('6'),
          ok: 1
        }"#]]
    .assert_eq(&out[2]);
    // sim.balance() is a round run on demand: it counts, and moves nothing while the
    // balancer is off (balancer.cpp, _moveChunks: "Skipping balancing round").
    let out = run_ok(
        &mut s,
        "sim.balance()\nsh.isBalancerRunning().numBalancerRounds",
    );
    assert_eq!(out[0], "{ migrations: [], ok: 1 }");
    assert_eq!(out[1], "Long('7')");
    run_ok(&mut s, "sh.startBalancer()\nsleep(60000)");
    let after = chunk_counts(&s);
    assert!(
        after.iter().max().unwrap() - after.iter().min().unwrap() <= 1,
        "{after:?}"
    );
}

#[test]
fn balancer_status_has_each_eras_shape() {
    // mongosh's sh.isBalancerRunning() returns the `balancerStatus` reply as it is
    // (packages/shell-api/src/shard.ts). balancer.cpp, Balancer::report: mode,
    // inBalancerRound and numBalancerRounds (a long long) in 3.6 and 5.0; the 7.0+ report
    // adds the config server's `term`.
    let mut shapes = Vec::new();
    for version in ["3.6", "5.0", "8.0"] {
        let mut s = Session::default();
        let out = run_ok(
            &mut s,
            &format!("sim.version(\"{version}\")\nsleep(25000)\nsh.isBalancerRunning()"),
        );
        let command = run_ok(&mut s, "db.adminCommand({balancerStatus: 1})");
        assert_eq!(out[2], command[0], "{version}: the helper is the command");
        shapes.push(format!("{version}: {}", out[2]));
    }
    expect![[r#"
        3.6: {
          mode: 'full',
          inBalancerRound: false,
          numBalancerRounds: Long('2'),
          ok: 1
        }
        5.0: {
          mode: 'full',
          inBalancerRound: false,
          numBalancerRounds: Long('2'),
          ok: 1
        }
        8.0: {
          mode: 'full',
          inBalancerRound: false,
          numBalancerRounds: Long('2'),
          term: Long('1'),
          ok: 1
        }"#]]
    .assert_eq(&shapes.join("\n"));
}

#[test]
fn sh_status_counts_the_migrations_of_the_last_day() {
    // mongosh's getPrintableShardStatus (packages/shell-api/src/helpers.ts) counts the
    // changelog's `moveChunk.from` entries with `time > yesterday`.
    let mut s = unbalanced("5.0");
    let out = run_ok(
        &mut s,
        "sleep(60000)\n\
         sh.status().balancer[\"Migration Results for the last 24 hours\"]\n\
         sleep(86400000)\n\
         sh.status().balancer[\"Migration Results for the last 24 hours\"]",
    );
    let moved = migration_times(&s).len();
    assert!(moved > 0);
    assert_eq!(out[1], format!("{{ '{moved}': 'Success' }}"));
    assert_eq!(out[3], "No recent migrations");
}

#[test]
fn sleep_takes_its_delay_as_nodes_timers_do() {
    // mongosh's sleep is `setTimeout(resolve, ms)` (packages/shell-api/src/shell-api.ts);
    // Node's timers make a delay that is not a number between 1 and 2^31 - 1 into 1 ms.
    // Each statement also costs 1 ms of its own.
    for (arg, slept) in [
        ("2000", 2000),
        ("\"2000\"", 2000),
        ("1.9", 1),
        ("-5", 1),
        ("0", 1),
        ("\"soon\"", 1),
        ("", 1),
        ("1e12", 1),
        ("2147483647", 2_147_483_647),
    ] {
        let mut s = Session::default();
        let before = s.now_ms();
        run_ok(&mut s, &format!("sleep({arg})"));
        assert_eq!(s.now_ms() - before, slept + 1, "sleep({arg})");
    }
}

#[test]
fn a_long_sleep_counts_idle_rounds_without_running_them() {
    // 2^31 - 1 ms is nearly 25 days: 214,748 rounds of 10 s, counted, not run one by one.
    let mut s = Session::default();
    run_ok(&mut s, "sleep(2147483647)");
    assert_eq!(s.cluster.balancer_rounds(), 214_748);
}

#[test]
fn new_date_reads_the_simulated_clock() {
    let mut s = Session::default();
    let out = run_ok(&mut s, "sleep(60000)\nnew Date()\nsim.clock()");
    // The sleep's minute, then the sleep statement's own millisecond.
    assert_eq!(out[1], "ISODate('2025-01-01T00:01:00.001Z')");
    expect![[r#"
        {
          now: ISODate('2025-01-01T00:01:00.002Z'),
          elapsedMillis: 60002,
          balancer: {
            mode: 'full',
            rounds: 6,
            nextRound: ISODate('2025-01-01T00:01:10.000Z')
          },
          ok: 1
        }"#]]
    .assert_eq(&out[2]);
}

#[test]
fn every_lesson_ends_before_the_first_background_round() {
    // Why the lessons replay to the clusters they always did: their commands' costs add
    // up to well under the 10 s before the balancer's first round, so only their own
    // sim.balance() rounds move chunks.
    for preset in shardlab::workload::presets::PRESETS {
        let mut s = Session::default();
        run_ok(&mut s, &format!("sim.preset(\"{}\")", preset.id));
        let elapsed = s.now_ms() - EPOCH_MS;
        assert!(
            elapsed < ROUND_INTERVAL_MS / 10,
            "{}: {elapsed} ms",
            preset.id
        );
        assert!(s.cluster.next_balancer_round_ms() - EPOCH_MS == ROUND_INTERVAL_MS);
    }
}

/// A script that gives the background balancer work, with time passing in between.
const STORY: &str = "sim.reset({shards: 4, chunkSize: 8192, seed: 3})
sh.shardCollection(\"test.events\", {x: 1})
sim.generate(\"test.events\", \"uniform\", 2000)
sleep(4500)
sim.generate(\"test.events\", \"monotonic\", 1500)
sleep(30000)
db.events.insertOne({x: 5})
sleep(7000)";

/// What a session shows: its chunks, its clock and its whole event log.
fn picture(s: &mut Session) -> String {
    run_ok(
        s,
        "sh.status().databases[1].collections\nsim.clock()\nsim.events(100000)",
    )
    .join("\n")
}

#[test]
fn the_same_commands_give_the_same_cluster_at_the_same_time() {
    let mut a = Session::default();
    let mut b = Session::default();
    run_ok(&mut a, STORY);
    for line in STORY.lines() {
        run_ok(&mut b, line);
    }
    assert!(!migration_times(&a).is_empty());
    assert_eq!(picture(&mut a), picture(&mut b));
}

#[test]
fn a_scenario_replays_its_clock_and_its_background_rounds() {
    let mut timeline = Timeline::new(Default::default());
    for line in STORY.lines() {
        timeline.push(line);
    }
    let mut direct = Session::default();
    run_ok(&mut direct, STORY);
    let expected = picture(&mut direct);
    assert_eq!(picture(&mut timeline.session().clone()), expected);

    // Through a link and back.
    let link = to_query(&timeline.to_scenario());
    let replayed = Timeline::from_scenario(&from_query(&link).unwrap());
    assert_eq!(picture(&mut replayed.session().clone()), expected);

    // Back to the start and forward again, through the timeline's snapshots.
    timeline.jump(2).unwrap();
    assert!(migration_times(timeline.session()).is_empty());
    timeline.jump(timeline.len()).unwrap();
    assert_eq!(picture(&mut timeline.session().clone()), expected);
}

#[test]
fn the_cli_sleeps_in_simulated_time() {
    let script = "sim.chunkSize(8192)
sh.shardCollection(\"test.events\", {x: 1})
sim.generate(\"test.events\", \"uniform\", 3000)
sleep(60000)
sh.status().databases[1].collections[\"test.events\"].chunkMetadata
sh.isBalancerRunning().numBalancerRounds
";
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    expect![[r#"
        { chunkSize: 8192, ok: 1 }
        { collectionsharded: 'test.events', ok: 1 }
        { ns: 'test.events', inserted: 3000, ok: 1 }
        [
          { shard: 'shard01', nChunks: 19 },
          { shard: 'shard02', nChunks: 19 },
          { shard: 'shard03', nChunks: 19 }
        ]
        Long('36')
    "#]]
    .assert_eq(&String::from_utf8(out.stdout).unwrap());
}

#[test]
fn one_advance_takes_at_most_the_stated_number_of_moving_rounds() {
    // 2,101 chunks on shard01 of two: about 1,050 rounds of one migration each (a shard
    // takes part in one migration a round), more than one advance may take.
    let mut s = Session::default();
    let mut script = String::from(
        "sim.reset({shards: 2, version: \"5.0\"})\nsh.shardCollection(\"test.c\", {x: 1})\n",
    );
    for x in 1..=2100 {
        script.push_str(&format!("sh.splitAt(\"test.c\", {{x: {x}}})\n"));
    }
    run_ok(&mut s, &script);
    let done = s.cluster.advance_clock(3_000_000);
    let cap = u64::from(shardlab::engine::MAX_ROUNDS_PER_ADVANCE);
    assert_eq!((done.rounds, done.migrations), (cap, cap));
    // The rounds left are due at once: the next advance, however short, takes one.
    assert_eq!(s.cluster.next_balancer_round_ms(), s.now_ms());
    let more = s.cluster.advance_clock(1);
    assert_eq!((more.rounds, more.migrations), (1, 1));
    s.cluster.advance_clock(3_000_000);
    let counts = chunk_counts(&s);
    assert!(counts[0].abs_diff(counts[1]) <= 1, "{counts:?}");
}

#[test]
fn a_chunk_too_big_to_move_is_marked_jumbo_not_moved_back_and_forth() {
    // Every document has the same key, so no split can shrink the chunk that holds them.
    // The donor refuses it (migration_chunk_cloner_source.cpp: ChunkTooBig) and the
    // balancer marks it jumbo (balancer.cpp, _moveChunks -> splitOrMarkJumbo), after
    // which it stays put: the background balancer must not carry it round forever.
    let mut s = Session::default();
    run_ok(
        &mut s,
        "sim.reset({shards: 3, version: \"8.0\", chunkSize: 8192})\n\
         sh.shardCollection(\"test.c\", {x: 1})\n\
         sim.generate(\"test.c\", {x: \"same\", pad: {gen: \"padding\", bytes: 100}}, 3000)\n\
         sh.splitAt(\"test.c\", {x: 0})\n\
         sleep(60000)",
    );
    let jumbo = |s: &Session| {
        s.cluster
            .events()
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Jumbo { .. }))
            .count()
    };
    assert_eq!(jumbo(&s), 1);
    let moved = migration_times(&s).len();
    run_ok(&mut s, "sleep(600000)");
    assert_eq!(migration_times(&s).len(), moved);
    assert_eq!(jumbo(&s), 1);
    s.cluster.check().unwrap();
}

#[test]
fn the_clock_stops_at_its_end_without_overflowing() {
    let mut s = Session::default();
    s.cluster.advance_clock(i64::MAX);
    let end = s.now_ms();
    s.cluster.advance_clock(i64::MAX);
    run_ok(
        &mut s,
        "sleep(2147483647)\nsim.clock()\nsh.isBalancerRunning()",
    );
    assert_eq!(s.now_ms(), end);
    assert!(s.cluster.next_balancer_round_ms() > end);
}
