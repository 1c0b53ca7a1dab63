//! The timeline: any position, however reached, shows the same cluster as replaying that
//! many steps from scratch; forks drop the future; snapshots stay within their bounds.
#![allow(clippy::unwrap_used)]

use shardlab::engine::EventKind;
use shardlab::sim::{from_query, to_query};
use shardlab::sim::{Timeline, TimelineError, TimelineOptions};
use shardlab::{ClusterConfig, Session, VersionMode};

fn config() -> ClusterConfig {
    ClusterConfig {
        shards: 3,
        version: VersionMode::V50,
        chunk_size: Some(1024),
        seed: 7,
    }
}

/// A workload with splits, migrations, variables and a refused command along the way.
fn steps(n: usize) -> Vec<String> {
    let mut out = vec![
        "sh.shardCollection(\"test.c\", {x: 1})".to_string(),
        "let pad = \"0123456789012345678901234567890123456789\"".to_string(),
    ];
    for i in 0..n {
        let step = match i % 10 {
            3 => format!(
                "db.c.insertMany([{{x: {}, pad: pad}}, {{x: {}, pad: pad}}])",
                1000 - i,
                2000 + i
            ),
            7 => "db.c.insertOne({pad: pad})".to_string(),
            9 => "db.c.insertOne({x: ".to_string(),
            _ => format!("db.c.insertOne({{x: {}, pad: pad}})", (i * 37) % 500),
        };
        out.push(step);
    }
    out
}

/// What a session looks like from outside: `sh.status()`, the event log's length and the
/// per-shard figures of the collection.
fn fingerprint(session: &Session) -> String {
    let mut probe = session.clone();
    let status: Vec<String> = probe
        .run("sh.status()")
        .iter()
        .filter_map(|o| o.render())
        .collect();
    format!(
        "{}\nevents: {}\nstats: {:?}",
        status.join("\n"),
        session.cluster.events().len(),
        session.cluster.shard_stats("test.c")
    )
}

fn replayed(steps: &[String], n: usize) -> Session {
    let mut s = Session::new(config());
    for step in &steps[..n] {
        s.run(step);
    }
    s
}

fn small_options() -> TimelineOptions {
    TimelineOptions {
        interval: 4,
        max_snapshots: 5,
        snapshot_budget: u64::MAX,
    }
}

fn timeline_of(steps: &[String], options: TimelineOptions) -> Timeline {
    let mut t = Timeline::with_options(config(), options);
    for s in steps {
        t.push(s);
    }
    t
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn every_position_matches_a_fresh_replay() {
    let steps = steps(60);
    let mut t = timeline_of(&steps, small_options());
    assert_eq!(t.len(), steps.len() as u64);
    assert!(t
        .session()
        .cluster
        .events()
        .iter()
        .any(|e| matches!(e.kind, EventKind::MoveChunkCommit { .. })));
    // Walk backwards and forwards, then jump around.
    let mut order: Vec<usize> = (0..=steps.len()).rev().collect();
    order.extend([5, 61, 0, 33, 34, 12, 62, 8, 8, 40]);
    for n in order {
        t.jump(n as u64).unwrap();
        assert_eq!(t.position(), n as u64);
        assert_eq!(
            fingerprint(t.session()),
            fingerprint(&replayed(&steps, n)),
            "position {n}"
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn stepping_stops_at_both_ends() {
    let steps = steps(3);
    let mut t = timeline_of(&steps, TimelineOptions::default());
    assert!(!t.step_forward());
    assert!(t.step_back());
    assert_eq!(t.position(), 4);
    assert!(t.step_forward());
    assert_eq!(t.jump(0), Ok(()));
    assert!(!t.step_back());
    assert_eq!(t.events_at(), &[]);
    assert_eq!(
        t.jump(6),
        Err(TimelineError::OutOfRange {
            requested: 6,
            len: 5
        })
    );
    assert_eq!(
        t.jump(6).unwrap_err().to_string(),
        "position 6 is past the end of the timeline (5 steps)"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn pushing_in_the_past_forks() {
    let steps = steps(30);
    let mut t = timeline_of(&steps, small_options());
    t.jump(10).unwrap();
    let outcomes = t.push("db.c.insertOne({x: 12345})");
    assert_eq!(outcomes.len(), 1);
    assert!(outcomes[0].result.is_ok());
    assert_eq!(t.len(), 11);
    assert_eq!(t.position(), 11);
    assert_eq!(t.steps()[10], "db.c.insertOne({x: 12345})");
    assert!(t.snapshot_positions().iter().all(|&p| p <= 11));
    let mut expected: Vec<String> = steps[..10].to_vec();
    expected.push("db.c.insertOne({x: 12345})".to_string());
    for n in [11, 3, 11, 10] {
        t.jump(n).unwrap();
        assert_eq!(
            fingerprint(t.session()),
            fingerprint(&replayed(&expected, n as usize))
        );
    }
    // An explicit fork at the end changes nothing; in the middle it drops the rest.
    t.jump(11).unwrap();
    t.fork();
    assert_eq!(t.len(), 11);
    t.jump(4).unwrap();
    t.fork();
    assert_eq!(t.len(), 4);
    assert!(t.at_end());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn each_position_shows_its_own_events() {
    let mut t = Timeline::new(config());
    t.push("sh.shardCollection(\"test.c\", {x: \"hashed\"})");
    t.push("db.c.insertMany([{x: 1}, {x: 2}, {x: 3}, {x: 4}])");
    t.push("db.c.find({x: 1})");
    let names = |t: &Timeline| -> Vec<&'static str> {
        t.events_at()
            .iter()
            .map(|e| e.kind.changelog_name())
            .collect()
    };
    assert_eq!(names(&t), Vec::<&str>::new(), "a read changes nothing");
    t.step_back();
    assert_eq!(names(&t), vec!["insert"]);
    t.step_back();
    assert_eq!(names(&t), vec!["shardCollection.end"]);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn scripts_become_one_step_per_statement() {
    let mut t = Timeline::new(config());
    let outcomes =
        t.push_script("use shop\ndb.orders.insertOne({a: 1}); db.orders.countDocuments({})");
    assert_eq!(t.len(), 3);
    assert_eq!(t.steps()[2], "db.orders.countDocuments({})");
    assert_eq!(
        outcomes.last().and_then(|o| o.render()),
        Some("1".to_string())
    );
    // A script with a syntax error stays one step, so it replays the same way.
    t.push_script("db.x.insertOne({a: 1}); db.x.insertOne({");
    assert_eq!(t.len(), 4);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn snapshots_stay_within_their_bounds() {
    let options = TimelineOptions {
        interval: 2,
        max_snapshots: 6,
        snapshot_budget: u64::MAX,
    };
    let mut t = Timeline::with_options(config(), options);
    t.push("sh.shardCollection(\"test.c\", {x: 1})");
    for i in 0..400 {
        t.push(&format!("db.c.insertOne({{x: {i}}})"));
        let positions = t.snapshot_positions();
        assert!(positions.len() <= 6, "{positions:?}");
        assert!(positions.iter().all(|p| p % t.snapshot_spacing() == 0));
        // The grid is never coarser than the limit requires.
        assert!(t.len() / (t.snapshot_spacing() / 2).max(1) > 6 || t.snapshot_spacing() == 2);
    }
    assert_eq!(t.snapshot_spacing(), 64);
    assert_eq!(t.snapshot_positions(), vec![64, 128, 192, 256, 320, 384]);
    let memory = t.memory_estimate();
    assert_eq!(memory.snapshots, 6);
    assert!(memory.total() > memory.current_bytes);

    // A small byte budget thins harder.
    let tight = TimelineOptions {
        interval: 2,
        max_snapshots: 1000,
        snapshot_budget: 200_000,
    };
    let mut t = Timeline::with_options(config(), tight);
    t.push("sh.shardCollection(\"test.c\", {x: 1})");
    for i in 0..400 {
        t.push(&format!("db.c.insertOne({{x: {i}}})"));
        assert!(t.memory_estimate().snapshot_bytes <= 200_000);
    }
    // Forking back to a short timeline makes the grid dense again.
    t.jump(10).unwrap();
    t.fork();
    assert_eq!(t.snapshot_spacing(), 2);
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_timeline_travels_as_a_scenario() {
    let steps = steps(12);
    let mut t = timeline_of(&steps, small_options());
    t.jump(5).unwrap();
    let scenario = t.to_scenario();
    assert_eq!(scenario.position, Some(5));
    let back = Timeline::from_scenario(&from_query(&to_query(&scenario)).unwrap());
    assert_eq!(back.len(), t.len());
    assert_eq!(back.position(), 5);
    assert_eq!(fingerprint(back.session()), fingerprint(t.session()));
    assert_eq!(fingerprint(&scenario.build()), fingerprint(t.session()));
    t.jump(t.len()).unwrap();
    assert_eq!(t.to_scenario().position, None);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn jumps_match_replays_from_scratch(
            interval in 1u64..6,
            max_snapshots in 1usize..6,
            jumps in proptest::collection::vec(0usize..=42, 1..12),
        ) {
            let steps = steps(40);
            let options = TimelineOptions { interval, max_snapshots, snapshot_budget: u64::MAX };
            let mut t = timeline_of(&steps, options);
            for n in jumps {
                t.jump(n as u64).unwrap();
                prop_assert_eq!(fingerprint(t.session()), fingerprint(&replayed(&steps, n)), "position {}", n);
                prop_assert!(t.snapshot_positions().len() <= max_snapshots);
            }
        }
    }
}
