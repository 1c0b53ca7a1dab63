//! Long flat input: the fuzzer picks a shape, a link of text and a count, and the target
//! repeats the link up to 100,000 times into one statement (`'a' + 'a' + …`, `x.a.a…`,
//! `x[0][0]…`, `db.c.find().limit(1)…`, `[[[…`, or any link the fuzzer writes), then runs
//! it in a fresh session on a thread with wasm32's 1 MiB stack. A stack overflow, a panic
//! or an allocation of gigabytes is a bug: the parser must refuse such a chain past its
//! height or nesting limit, or the session run it in loops, whatever its length. (The
//! integration tests run the flat chains on 256 KiB; nesting, capped at 64 levels, takes
//! more than that in an unoptimised build.)

#![no_main]

use libfuzzer_sys::fuzz_target;
use shardlab::Session;

/// The most times a link is repeated: the lengths the issue found crashing the CLI.
const MAX_REPEAT: usize = 100_000;

/// The longest link the fuzzer may write, so that a script stays a few MB.
const MAX_LINK: usize = 16;

/// The shapes worth covering however the fuzzer's bytes fall: a prefix, and the link.
const SHAPES: &[(&str, &str)] = &[
    ("'a'", " + 'a'"),
    ("1", " * 1"),
    ("x", ".a"),
    ("x", "[0]"),
    ("db.c.find()", ".limit(1)"),
    ("db", ".getSiblingDB('d')"),
    ("[", "["),
    ("-", "-"),
    ("x", "?.a"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let Some((count, rest)) = rest.split_first_chunk::<2>() else {
        return;
    };
    let count = usize::from(u16::from_le_bytes(*count)) * MAX_REPEAT / usize::from(u16::MAX);
    let own = String::from_utf8_lossy(&rest[..rest.len().min(MAX_LINK)]).into_owned();
    let (prefix, link) = match SHAPES.get(usize::from(shape)) {
        Some((p, l)) => ((*p).to_string(), (*l).to_string()),
        // Past the fixed shapes, the fuzzer's own link after a variable.
        None => ("x".to_string(), own),
    };
    let mut script = String::from("var x = {a: [1]}\ndb.c.insertOne({a: 1})\n");
    script.push_str(&prefix);
    for _ in 0..count {
        script.push_str(&link);
    }
    script.push('\n');
    let run = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            let mut session = Session::default();
            session.run_each(&script, |outcome| {
                let _ = outcome.render();
                true
            });
        })
        .expect("a thread");
    run.join().expect("the session ran without panicking");
});
