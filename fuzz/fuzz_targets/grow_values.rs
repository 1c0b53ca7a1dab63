//! Builds scripts that read and grow variables: deep nesting (`x = {a: x}`), doubling
//! (`x = {l: x, r: x}`, `s = s + s`), arrays of variables, and then stores, finds, prints
//! and updates them. Each input byte picks a step, so the fuzzer explores every mix of
//! depth, width and size. Any panic, stack overflow, abort or out-of-memory is a bug: the
//! evaluator's depth and size limits must refuse these values in MongoDB's words.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shardlab::Session;

/// The most steps a script gets: enough to pass every limit several times over.
const MAX_STEPS: usize = 1200;

fuzz_target!(|data: &[u8]| {
    let mut script = String::from("var x = 1\nvar s = \"ab\"\nvar y = [1]\n");
    for &b in data.iter().take(MAX_STEPS) {
        let n = usize::from(b >> 3) + 1;
        let line = match b & 7 {
            0 => format!("x = {}x{}", "{a: ".repeat(n), "}".repeat(n)),
            1 => "x = {l: x, r: x}".to_owned(),
            2 => "s = s + s".to_owned(),
            3 => format!("y = [{}]", vec!["x"; n].join(", ")),
            4 => "db.c.insertOne({_id: x, v: y, s: s})".to_owned(),
            5 => "db.c.find({_id: x}).toArray()".to_owned(),
            6 => "x".to_owned(),
            _ => "db.c.updateOne({}, {$set: {v: x}}, {upsert: true})".to_owned(),
        };
        script.push_str(&line);
        script.push('\n');
    }
    let mut session = Session::default();
    session.run_each(&script, |outcome| {
        let _ = outcome.render();
        let _ = outcome.render_json();
        true
    });
});
