//! Decodes arbitrary text as a share link (`?s=v1.…`) and as a scenario's JSON (an
//! imported file or a stored session), then replays what decodes the way the page does:
//! every command on a timeline, with stepping back and forth. Links and stored sessions
//! are written by anyone, so a decode error is fine and a panic, stack overflow, abort or
//! out-of-memory is a bug.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shardlab::sim::{from_json, from_query, to_query, Timeline};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for decoded in [from_query(&text), from_json(&text)] {
        let Ok(scenario) = decoded else { continue };
        let mut timeline = Timeline::from_scenario(&scenario);
        let _ = timeline.session().cluster.check();
        while timeline.step_back() {}
        let _ = timeline.jump(timeline.len());
        // What replays must encode again.
        let _ = to_query(&timeline.to_scenario());
    }
});
