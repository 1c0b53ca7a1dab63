//! Robustness, round three: work bounded per statement (a regex engine that matches or
//! errs, a budget that reaches the whole statement and undoes what it half did), long
//! flat input that never reaches the stack, memory budgeted per session, and two small
//! wrong answers.
//!
//! Native only: the tests spawn threads with small stacks and run the CLI binary.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use shardlab::query::Regex;
use shardlab::sim::{from_query, to_query, Scenario, Timeline};
use shardlab::support::budget;
use shardlab::{ClusterConfig, ClusterError, Session};

/// Runs `script` in a fresh session and returns each statement's printed result.
fn run(script: &str) -> (Session, Vec<String>) {
    let mut s = Session::new(ClusterConfig::default());
    let out = s
        .run(script)
        .iter()
        .map(|o| o.render().unwrap_or_default())
        .collect();
    (s, out)
}

/// Runs `f` on a thread with a 256 KiB stack, so that a test proves its statement does
/// not lean on a big stack (a debug build's main thread has 8 MiB, wasm32 1 MiB).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `count` documents `{s: <length 'a's>}` inserted in one statement.
fn documents_of_as(count: usize, length: usize) -> String {
    let one = format!("{{s: \"{}\"}}", "a".repeat(length));
    format!("db.p.insertMany([{}])", vec![one; count].join(", "))
}

// ---------------------------------------------------------------------------------------
// The regex engine: right and bounded.
// ---------------------------------------------------------------------------------------

/// PCRE's counted repetitions go up to 65,535 (pcre2_compile.c, `MAX_REPEAT_COUNT`); past
/// that, or out of order, the pattern is refused with PCRE's words under MongoDB's code
/// 51091 ("Regular expression is invalid: ...", `RegexMatchExpression`,
/// src/mongo/db/matcher/expression_leaf.cpp; jstests/core/regex_error.js expects 51091).
#[test]
fn counted_repetitions_are_counts_up_to_pcres_limit() {
    let a1001 = "a".repeat(1001);
    let re = Regex::new("^a{1001}$", "").unwrap();
    assert_eq!(re.is_match(&a1001), Ok(true));
    assert_eq!(re.is_match(&a1001[1..]), Ok(false));
    assert_eq!(
        re.is_match("a{1001}"),
        Ok(false),
        "a count, not literal text"
    );
    let re = Regex::new("^a{65535}$", "").unwrap();
    assert_eq!(re.is_match(&"a".repeat(65_535)), Ok(true));
    for (pattern, why) in [
        ("a{65536}", "number too big in {} quantifier"),
        ("a{2,1}", "numbers out of order in {} quantifier"),
        ("(a", "missing closing parenthesis"),
        ("[a", "missing terminating ] for character class"),
        ("a)", "unmatched closing parenthesis"),
    ] {
        assert_eq!(
            Regex::new(pattern, ""),
            Err(ClusterError::Location51091(format!(
                "Regular expression is invalid: {why}"
            ))),
            "{pattern}"
        );
    }
    // A brace that starts no quantifier is a literal, as in PCRE.
    assert_eq!(Regex::new("x{y", "").unwrap().is_match("x{y"), Ok(true));
    assert_eq!(Regex::new("a{,2}", "").unwrap().is_match("a{,2}"), Ok(true));
}

/// Back-references and look-around, which PCRE has, match; the options MongoDB takes are
/// `i m s x u` (regex_options.js; anything else is code 51108 since 5.1,
/// jstests/core/regex_error.js).
#[test]
fn pcre_features_and_options() {
    let cases = [
        (r"(ab)\1", "", "xabab", true),
        (r"(ab)\1", "", "abba", false),
        (r"(?<w>o)\k<w>", "", "foo", true),
        ("a(?=b)", "", "ab", true),
        ("a(?!b)", "", "ab", false),
        ("(?<=a)b", "", "ab", true),
        ("(?<!a)b", "", "ab", false),
        ("(?>a+)b", "", "aab", true),
        (r"\Qa.b\E", "", "a.b", true),
        (r"\Qa.b\E", "", "axb", false),
        ("^abc$", "", "abc\n", true),
        ("^b$", "m", "a\nb\nc", true),
        ("^b$", "", "a\nb\nc", false),
        ("a.b", "s", "a\nb", true),
        ("é", "i", "É", true),
        ("A B", "x", "AB", true),
        ("x", "u", "x", true),
        (r"^\p{L}+$", "", "héllo", true),
        (r"\p{Greek}", "", "λ", true),
        (r"\bcat\b", "", "a cat", true),
        (r"[\W]", "", "abc", false),
        (r"[x\D]", "", "1a", true),
        // `\h`, `\v` are white space in PCRE (hex digit and vertical tab in the crate).
        (r"\h", "", "abc", false),
        (r"a\hb", "", "a\tb", true),
        (r"\v", "", "a\nb", true),
        (r"[[:alpha:]]+$", "", "12ab", true),
        (r"[[:digit:]]", "", "ab", false),
        (r"a\cMb", "", "a\rb", true),
        (r"a\012b", "", "a\nb", true),
        (r"b\Rc", "", "b\r\nc", true),
        ("^(a)?(?(1)b|c)$", "", "c", true),
        ("^(a)?(?(1)b|c)$", "", "ac", false),
        // \d and \w are ASCII: MongoDB compiles with UTF but not UCP.
        (r"^\d$", "", "٣", false),
        (r"^\w$", "", "é", false),
        // So are \b and \B, which stand on \w: MongoDB's `flagsToPcreOptions`
        // (src/mongo/util/regex_util.cpp) sets UTF and the letters' options, never UCP,
        // and PCRE2 without UCP takes only ASCII letters, digits and `_` as word
        // characters. `é` is not one, so no boundary follows it at the end...
        (r"\bcafé\b", "", "café", false),
        (r"é\B", "", "é", true),
        // ...and one comes between it and an ASCII letter.
        (r"\bcaf", "", "écaf", true),
        (r"\bcat\b", "i", "a CAT!", true),
        (r"a\Bb", "", "ab", true),
        (r"a\Bb", "", "a b", false),
        (r"(?<=\bfoo)bar", "", "foobar", true),
        (r"(?<=\bfoo)bar", "", "xfoobar", false),
        // Under `i` too: the Kelvin sign folds to `k` but is no word character.
        (r"a\b", "i", "a\u{212A}", true),
        // In a class `\b` is a backspace; `\<` and `\>` are the characters themselves.
        (r"^[\b]$", "", "\u{8}", true),
        (r"^a\<b\>$", "", "a<b>", true),
    ];
    for (pattern, options, text, expected) in cases {
        assert_eq!(
            Regex::new(pattern, options)
                .unwrap_or_else(|e| panic!("/{pattern}/: {e}"))
                .is_match(text),
            Ok(expected),
            "/{pattern}/{options} on {text:?}"
        );
    }
    assert_eq!(
        Regex::new("a", "g"),
        Err(ClusterError::Location51108(
            "invalid flag in regex options: g".to_string()
        ))
    );
    // Features the crate lacks are refused with MongoDB's code, never read as something
    // else (the crate would read `(?R)` as a flag group and match everything).
    for pattern in ["(?R)", "a(?1)", "(?&name)", "(?P>n)"] {
        let err = Regex::new(pattern, "").unwrap_err();
        assert!(
            matches!(&err, ClusterError::Location51091(m) if m.contains("not supported by ShardLab")),
            "{pattern}: {err:?}"
        );
    }
}

/// A match either finishes or fails: a long subject that matches is a match (the old
/// matcher's depth cap answered "no match"), and a search past the backtracking limit is
/// the time-limit error, not `false`.
#[test]
fn a_regex_matches_or_errs_never_a_silent_no_match() {
    let long = "a".repeat(200_000);
    for pattern in ["^(a|b)*$", "^(?:aa|a)+$", "^a*a*a*$", "(a+)+$"] {
        assert_eq!(
            Regex::new(pattern, "").unwrap().is_match(&long),
            Ok(true),
            "{pattern}"
        );
    }
    let backtracking = Regex::new(r"^(a*)*\1b$", "").unwrap();
    assert_eq!(
        backtracking.is_match(&"a".repeat(40)),
        Err(ClusterError::MaxTimeMSExpired(
            "operation exceeded time limit".to_string()
        ))
    );
}

// ---------------------------------------------------------------------------------------
// The work budget per statement.
// ---------------------------------------------------------------------------------------

/// The issue's case: one pathological regex over 2,000 documents ran for 26 s. Now the
/// statement fails with MongoDB's `MaxTimeMSExpired` (code 50, "operation exceeded time
/// limit", src/mongo/base/error_codes.yml) at the first document whose search passes the
/// limit, and the next statement runs.
#[test]
fn a_pathological_regex_over_2000_documents_fails_at_the_backtracking_limit() {
    let script = format!(
        "{}\ndb.p.countDocuments({{s: /^(a*)*\\1b$/}})\ndb.p.countDocuments({{s: /^(a+)+b$/}})\ndb.p.countDocuments({{s: /a/}})",
        documents_of_as(2_000, 40)
    );
    let (_, out) = run(&script);
    assert_eq!(
        out[1],
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    // Nested quantifiers without back-references run on automata: linear, no failure.
    assert_eq!(out[2], "0");
    assert_eq!(out[3], "2000");
}

/// A pattern whose every match stays under the per-match limit but past the cheap probe
/// pays the whole limit up front for each: the statement's budget, not the number of
/// documents, bounds how many such searches it makes.
#[test]
fn searches_under_the_per_match_limit_add_up_to_the_budget() {
    let mut s = Session::default();
    s.run(&documents_of_as(2_000, 15));
    let out = budget::within(3_000_000, || {
        s.run(r"db.p.countDocuments({s: /^(a*)*\1b$/})")
    });
    assert_eq!(
        out[0].render().unwrap(),
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    // Under the probe's limit, each match costs little: a short subject passes.
    let out = budget::within(3_000_000, || s.run(r"db.p.countDocuments({s: /^(a)\1/})"));
    assert_eq!(out[0].render().unwrap(), "2000");
}

/// A statement whose work passes its budget fails as a whole and leaves nothing it half
/// did: the same script with and without the failed statement ends in the same session
/// (documents, events, ObjectIds, variables), though the simulated clock, as a real one,
/// counts the time the failed statement took. `budget::within` gives the statements run
/// inside it a smaller shared budget, so the test needs no large collection.
#[test]
fn a_statement_past_its_budget_fails_and_keeps_nothing() {
    let setup = r#"sh.shardCollection("test.q", {x: 1})
var kept = {a: 1}
sim.generate("test.q", {x: "increasing"}, 2000)"#;
    let heavy = r#"sim.queries("test.q", {kind: "updateMany", key: "x"}, 200)"#;
    let after = r#"db.q.insertOne({x: -1})
db.q.countDocuments()
db.q.find({x: -1}, {x: 1})
kept
sim.events(1)[0].details"#;
    let mut with = Session::default();
    with.run(setup);
    let failed = budget::within(3_000_000, || with.run(heavy));
    assert_eq!(
        failed[0].render().unwrap(),
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    let with_out: Vec<_> = with.run(after).iter().map(|o| o.render()).collect();
    let mut without = Session::default();
    without.run(setup);
    let without_out: Vec<_> = without.run(after).iter().map(|o| o.render()).collect();
    assert_eq!(with_out, without_out);
    assert_eq!(with_out[1].as_deref(), Some("2001"));
    with.cluster.check().unwrap();
    // A single write pays for its scan before it changes anything.
    let failed = budget::within(20_000, || with.run("db.q.updateMany({}, {$set: {y: 1}})"));
    assert_eq!(
        failed[0].render().unwrap(),
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    let out = with.run("db.q.countDocuments({y: 1})");
    assert_eq!(out[0].render().unwrap(), "0");
}

/// `sim.queries` at its documented limit (10,000 operations) on a collection that makes
/// each one scan took over 15 minutes; now the statement stops at its budget, and keeps
/// none of the writes it ran before it stopped. (The budget here is a fiftieth of a
/// statement's, so the test stops after a few scans rather than 2.5 million documents'
/// worth: the charge per scanned document and the stop are the same at any budget.)
#[test]
fn sim_queries_at_its_limit_stops_at_the_budget() {
    let (mut s, out) = run(r#"sh.shardCollection("test.q", {x: 1})
sim.generate("test.q", {x: "increasing"}, 20000)"#);
    assert_eq!(out.len(), 2, "{out:?}");
    let stopped = budget::within(budget::STATEMENT_WORK / 50, || {
        s.run(r#"sim.queries("test.q", {kind: "updateMany", key: "x"}, 10000)"#)
    });
    assert_eq!(
        stopped[0].render().unwrap(),
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    let after: Vec<_> = s
        .run("db.q.countDocuments()\ndb.q.countDocuments({touched: true})")
        .iter()
        .map(|o| o.render().unwrap())
        .collect();
    assert_eq!(after, ["20000", "0"]);
    s.cluster.check().unwrap();
}

/// A preset's script runs inside `sim.preset`'s statement and shares its budget: running
/// out ends the preset, and the session (variables included) is as it was before.
#[test]
fn a_preset_past_the_budget_leaves_the_session_as_it_was() {
    let mut s = Session::default();
    s.run("var mine = 5\ndb.own.insertOne({a: 1})");
    let out = budget::within(100, || s.run(r#"sim.preset("monotonic")"#));
    assert_eq!(
        out[0].render().unwrap(),
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    let after: Vec<_> = s
        .run("mine\ndb.own.countDocuments()")
        .iter()
        .map(|o| o.render().unwrap())
        .collect();
    assert_eq!(after, ["5", "1"]);
}

// ---------------------------------------------------------------------------------------
// Length never reaches the stack.
// ---------------------------------------------------------------------------------------

/// The shapes the issue found killing the CLI, at the issue's lengths, and at the
/// longest the parser accepts, each run on a 256 KiB stack.
fn long_shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("plus", format!("'a'{}", " + 'a'".repeat(n))),
        ("member", format!("x{}", ".a".repeat(n))),
        ("index", format!("x{}", "[0]".repeat(n))),
        ("calls", format!("db.c.find(){}", ".limit(1)".repeat(n))),
        ("times", format!("1{}", " * 1".repeat(n))),
        ("siblings", format!("db{}", ".getSiblingDB('d')".repeat(n))),
    ]
}

#[test]
fn long_flat_chains_are_refused_without_the_stack() {
    let shapes = [
        long_shapes(20_000).swap_remove(0),
        long_shapes(100_000).swap_remove(1),
        long_shapes(100_000).swap_remove(2),
        long_shapes(100_000).swap_remove(3),
        long_shapes(100_000).swap_remove(4),
        long_shapes(100_000).swap_remove(5),
    ];
    for (name, text) in shapes {
        let out = on_small_stack(move || run(&format!("var x = {{a: [1]}}\n{text}\n1 + 1")).1);
        assert!(
            out[1].starts_with("SyntaxError: expression too long: more than 1000 operators"),
            "{name}: {}",
            out[1]
        );
        assert_eq!(out[2], "2", "{name}: the next statement runs");
    }
}

#[test]
fn the_longest_chains_accepted_run_in_loops() {
    // Each `.limit(1)` and `.getSiblingDB('d')` is two levels (a property, a call).
    let cases = [
        (long_shapes(990).swap_remove(0), "a".repeat(991)),
        (long_shapes(990).swap_remove(4), "1".to_string()),
        (long_shapes(495).swap_remove(3), "[ { a: 1 } ]".to_string()),
        (long_shapes(495).swap_remove(5), "d".to_string()),
    ];
    for ((name, text), expected) in cases {
        let out =
            on_small_stack(move || run(&format!("db.c.insertOne({{a: 1}})\n{text}\nx = 1")).1);
        let got = out[1].replace("_id: ObjectId('6553f100c1675e0bb9150280'), ", "");
        assert_eq!(got, expected, "{name}");
    }
    // A member chain from a value reads one property after another.
    let out = on_small_stack(|| run(&format!("var x = {{a: 1}}\nx{}", ".a".repeat(990))).1);
    assert_eq!(
        out[1],
        "TypeError: Cannot read properties of undefined (reading 'a')"
    );
}

/// The same long chain typed into the timeline (the console), imported as a script, and
/// opened from a share link: refused alike, and what follows it runs.
#[test]
fn a_long_chain_typed_imported_and_linked() {
    let long = format!("'a'{}", " + 'a'".repeat(20_000));
    let expected = "SyntaxError: expression too long";
    on_small_stack(move || {
        let mut typed = Timeline::new(ClusterConfig::default());
        let out = typed.push(&long);
        assert!(out[0].render().unwrap().starts_with(expected));
        let mut imported = Timeline::new(ClusterConfig::default());
        let out = imported.push_script(&format!("{long}\ndb.c.insertOne({{a: 1}})"));
        assert!(out[0].render().unwrap().starts_with(expected));
        assert_eq!(
            imported
                .session()
                .cluster
                .collection("test.c")
                .unwrap()
                .doc_count(),
            1
        );
        let scenario = Scenario::from_config(
            &ClusterConfig::default(),
            vec![long, "db.c.insertOne({a: 2})".to_string()],
            None,
        );
        let linked = from_query(&to_query(&scenario)).unwrap().build();
        assert_eq!(linked.cluster.collection("test.c").unwrap().doc_count(), 1);
    });
}

// ---------------------------------------------------------------------------------------
// Memory budgeted per session; input refused before it is built.
// ---------------------------------------------------------------------------------------

/// The shell's variables share one budget with what the cluster took in (512 MiB): past
/// it an assignment is refused with a clear error and nothing is lost. The documents are
/// written and deleted again, which counts toward the budget (a timeline keeps them) while
/// the test holds little memory.
#[test]
fn variables_and_documents_share_one_memory_budget() {
    let mut script = String::from("var s = \"xxxxxxxx\"\n");
    for _ in 0..20 {
        script.push_str("s = s + s\n");
    }
    // 8 MiB strings: 61 written (488 MiB) and `s` held (8 MiB), then variables until the
    // budget is passed.
    for _ in 0..61 {
        script.push_str("db.big.insertOne({s: s})\ndb.big.deleteMany({})\n");
    }
    script.push_str("var v1 = s\nvar v2 = s\nvar v3 = s\nv1.length\nv3\ns.length");
    let (_, out) = run(&script);
    let tail = &out[out.len() - 6..];
    assert_eq!(tail[0], "", "v1 fits");
    assert!(
        tail[1].starts_with("MongoServerError[ExceededMemoryLimit]: assigning v2 would take the session past its memory budget of 512 MiB"),
        "{}",
        tail[1]
    );
    assert!(tail[1].ends_with("v2 is left as it was"), "{}", tail[1]);
    assert!(tail[2].contains("assigning v3"), "{}", tail[2]);
    assert_eq!(tail[3], "8388608", "what was kept is intact");
    assert_eq!(tail[4], "ReferenceError: v3 is not defined");
    assert_eq!(tail[5], "8388608");
}

/// The parser refuses input past its budget before building it: a statement over 2,000,000
/// tokens as soon as it gets there, an array or object literal past 100,000 items as soon as it gets
/// there (a 50 MB literal took 2.5–3.4 GB).
#[test]
fn oversized_input_is_refused_before_it_is_built() {
    let huge = format!("var a = [{}1]", "1,".repeat(9_000_000));
    let (_, out) = run(&huge);
    assert_eq!(
        out,
        ["SyntaxError: statement too long: more than 2000000 tokens; split it into smaller statements (1:1)"]
    );
    let items = format!("var a = [{}1]\n2", "1,".repeat(100_000));
    let (_, out) = run(&items);
    assert_eq!(
        out[0],
        "SyntaxError: literal too long: more than 100000 items in one array or object (1:200010)"
    );
    assert_eq!(out.last().unwrap(), "2");
    let fields: String = (0..100_001).map(|i| format!("k{i}: 1, ")).collect();
    let (_, out) = run(&format!("var o = {{{fields}}}\n3"));
    assert!(
        out[0].starts_with("SyntaxError: literal too long"),
        "{}",
        out[0]
    );
    assert_eq!(out[1], "3");
}

/// A script past the lexer's limits on one script runs statement by statement, as the CLI
/// runs a file: the limits hold for each statement (an import's step of many batches is
/// such a script). Two million line breaks are past the token limit and cost nothing to
/// run; before, the whole script was refused.
#[test]
fn a_script_past_one_scripts_limits_runs_statement_by_statement() {
    let long = format!("var n = 1\n{}n + 1\n", "\n".repeat(2_100_000));
    let (_, out) = run(&long);
    assert_eq!(out.last().map(String::as_str), Some("2"), "{out:?}");
    assert!(out.iter().all(|l| !l.contains("Error")), "{out:?}");
    // Past 16 MiB in all, each statement a 1 MiB string's length.
    let over = format!("'{}'.length\n", "x".repeat(1 << 20)).repeat(17);
    let (_, out) = run(&over);
    assert_eq!(out, vec!["1048576"; 17]);
}

// ---------------------------------------------------------------------------------------
// Small wrong answers.
// ---------------------------------------------------------------------------------------

/// `db.getCollectionNames()` is an array in mongosh (packages/shell-api/src/database.ts,
/// `getCollectionNames(): Promise<StringKey<D>[]>`), so `.length` and `[i]` read it.
#[test]
fn get_collection_names_reads_on() {
    let (_, out) = run(
        "db.a.insertOne({})\ndb.b.insertOne({})\ndb.getCollectionNames().length\ndb.getCollectionNames()[1]",
    );
    assert_eq!(out[2..], ["2", "b"]);
}

/// A lone CR ends a line, as in JavaScript (ECMA-262, LineTerminator): a script saved with
/// CR-only line endings runs statement by statement, not as one SyntaxError.
#[test]
fn cr_only_line_endings_separate_statements() {
    let (_, out) = run("db.c.insertOne({a: 1})\rdb.c.countDocuments()\r'x' + 1\r\n2\n");
    assert_eq!(out[1..], ["1", "x1", "2"]);
    // Errors still name the right line.
    let (_, out) = run("1\r2\r)");
    assert_eq!(
        out[2],
        "SyntaxError: Unexpected token ')', expected an expression (3:1)"
    );
}

// ---------------------------------------------------------------------------------------
// The CLI.
// ---------------------------------------------------------------------------------------

/// Runs the `shardlab` binary on `script` with `stdout` as its output; returns its exit
/// status and what it printed on standard error.
fn cli(script: &str, stdout: std::process::Stdio) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .stdin(std::process::Stdio::piped())
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A full disk (`/dev/full`): the CLI could not write what it computed, so it exits 2
/// with the message it printed before; `--help` too, rather than panicking.
#[test]
fn the_cli_exits_2_when_it_cannot_write() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let (code, _, err) = cli("1 + 1\n", full.into());
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "shardlab: cannot write the output: No space left on device (os error 28)\n"
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg("--help")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(2));
}

/// The issue's long chains through the binary: refused with a SyntaxError (exit status
/// 1), the next statement still runs, and the process does not die of a stack overflow.
#[test]
fn the_cli_refuses_long_chains_and_goes_on() {
    let mut script = String::from("var x = {a: [1]}\n");
    for (_, text) in long_shapes(100_000).into_iter().skip(1).take(3) {
        script.push_str(&text);
        script.push('\n');
    }
    script.push_str(&format!("'a'{}\n", " + 'a'".repeat(20_000)));
    script.push_str("'done'\n");
    let (code, out, err) = cli(&script, std::process::Stdio::piped());
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[..4]
        .iter()
        .all(|l| l.starts_with("SyntaxError: expression too long")));
    assert_eq!(lines[4], "done");
}

// ---------------------------------------------------------------------------------------
// The script language's operators and variables within the same bounds.
// ---------------------------------------------------------------------------------------

/// The script language's operator levels (`&&`, `||`, `??`, comparisons, equality,
/// `*`/`%`) are read in loops like `+`: a 20,000-term chain is refused by its height on a
/// 256 KiB stack, and the longest accepted runs in loops. Operators that nest instead
/// (`?:`, `=`, `!`, `typeof`, templates inside templates) stop at the nesting limit, on
/// the 1 MiB stack wasm32 gives.
#[test]
fn script_operator_chains_are_bounded_without_the_stack() {
    let flat = |n: usize| {
        vec![
            ("and", format!("a{}", " && a".repeat(n))),
            ("or", format!("a{}", " || a".repeat(n))),
            ("nullish", format!("a{}", " ?? a".repeat(n))),
            ("less", format!("1{}", " < 1".repeat(n))),
            ("equal", format!("a{}", " === a".repeat(n))),
            ("times", format!("1{}", " * 1".repeat(n))),
            ("rem", format!("1{}", " % 7".repeat(n))),
        ]
    };
    for (name, text) in flat(20_000) {
        let out = on_small_stack(move || run(&format!("var a = 1\n{text}\n1 + 1")).1);
        assert!(
            out[1].starts_with("SyntaxError: expression too long: more than 1000 operators"),
            "{name}: {}",
            out[1]
        );
        assert_eq!(out[2], "2", "{name}: the next statement runs");
    }
    let want = ["1", "1", "1", "true", "false", "1", "1"];
    for ((name, text), want) in flat(990).into_iter().zip(want) {
        let out = on_small_stack(move || run(&format!("var a = 1\n{text}")).1);
        assert_eq!(out[1], want, "{name}");
    }
    let nested = [
        ("conditional", format!("{}a", "a ? a : ".repeat(20_000))),
        ("assign", format!("{}1", "a = ".repeat(20_000))),
        ("not", format!("{}a", "!".repeat(20_000))),
        ("typeof", format!("{}a", "typeof ".repeat(20_000))),
        (
            "template",
            format!("{}a{}", "`${".repeat(20_000), "}`".repeat(20_000)),
        ),
    ];
    // Nesting recurses (at most `MAX_DEPTH` levels): on wasm32's 1 MiB stack.
    for (name, text) in nested {
        let out = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || run(&format!("var a = 1\n{text}\n1 + 1")).1)
            .unwrap()
            .join()
            .unwrap();
        assert!(
            out[1].starts_with("SyntaxError: expression nested too deeply"),
            "{name}: {}",
            out[1]
        );
        assert_eq!(out[2], "2", "{name}: the next statement runs");
    }
}

/// An array a global variable holds, grown in place by `push` in a loop, counts against
/// the session's memory budget as an assignment does: past it the push is refused, the
/// array keeps what it had, and the loop ends. Documents written and deleted take up most
/// of the budget first (4 MiB strings, 125 of them), so the test holds little memory.
#[test]
fn arrays_grown_in_place_share_the_memory_budget() {
    let mut script = String::from("var s = \"xxxxxxxx\"\n");
    for _ in 0..19 {
        script.push_str("s = s + s\n");
    }
    for _ in 0..125 {
        script.push_str("db.big.insertOne({s: s})\ndb.big.deleteMany({})\n");
    }
    script.push_str("var t = s.substring(0, 1048576)\ns = 'x'\nvar a = []\n");
    script.push_str("for (let i = 0; i < 15; i++) a.push(t)\na.length\nvar b = t\nb.length");
    let (_, out) = run(&script);
    let tail = &out[out.len() - 4..];
    assert!(
        tail[0].starts_with(
            "MongoServerError[ExceededMemoryLimit]: changing a would take the session past its memory budget of 512 MiB"
        ),
        "{}",
        tail[0]
    );
    assert!(tail[0].ends_with("a is left as it was"), "{}", tail[0]);
    // 500 MiB written, t (1 MiB) held: ten more 1 MiB elements fit, not eleven.
    assert_eq!(tail[1], "10");
    // The array's measured size is held: another megabyte no longer fits.
    assert!(
        tail[2].contains("assigning b would take the session past"),
        "{}",
        tail[2]
    );
    assert_eq!(tail[3], "ReferenceError: b is not defined");
}
