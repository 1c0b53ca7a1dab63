//! The JavaScript that tutorials use, run by ShardLab's own interpreter: loops,
//! branches, functions and closures, operators, template literals, `Math`, `Date` and
//! array basics, `help`, mongosh's echo of assignments and loops, determinism, and the
//! budget that ends a runaway script.
//!
//! Printing follows mongosh: a statement prints its completion value (mongosh evaluates
//! the whole input and formats the result, `packages/cli-repl/src/mongosh-repl.ts`
//! `eval` then `writer`), `undefined` prints nothing (`formatSimpleType` in
//! `packages/cli-repl/src/format-output.ts`), a top-level string prints bare, and numbers
//! are JavaScript doubles printed without a decimal point when integral.
#![allow(clippy::unwrap_used)]

use bson::Bson;
use expect_test::{expect, Expect};
use shardlab::session::{MAX_CALL_DEPTH, MAX_STEPS, STACK_BUDGET};
use shardlab::sim::Timeline;
use shardlab::{ClusterConfig, Output, Session, VersionMode};

/// Every outcome of a script as the console prints it, one per line (`-` for nothing).
fn console(session: &mut Session, script: &str) -> String {
    session
        .run(script)
        .iter()
        .map(|o| o.render().unwrap_or_else(|| "-".into()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn check(script: &str, expect: Expect) {
    let mut session = Session::default();
    expect.assert_eq(&(console(&mut session, script) + "\n"));
    session.cluster.check().unwrap();
}

/// The value of a script's last statement.
fn last(session: &mut Session, script: &str) -> Bson {
    match session.run(script).pop().unwrap().result {
        Ok(Output::Value(v)) => v,
        Ok(Output::Cursor(docs)) => Bson::Array(docs.into_iter().map(Bson::Document).collect()),
        other => panic!("{other:?}"),
    }
}

fn config(seed: u64) -> ClusterConfig {
    ClusterConfig {
        shards: 2,
        version: VersionMode::V80,
        chunk_size: None,
        seed,
    }
}

/// The tutorials' loop (a `for` over `insertOne`) fills a collection; mongosh prints the
/// loop's completion value, the last `insertOne`'s result.
#[test]
fn the_tutorial_loop_inserts_a_thousand_documents() {
    let mut session = Session::default();
    let outcomes = session.run(
        "sh.shardCollection('test.c', {x: 1})\n\
         for (var i = 0; i < 1000; i++) db.c.insertOne({x: i, label: `doc ${i}`})\n\
         db.c.countDocuments()\n\
         db.c.findOne({x: 999}, {_id: 0})\n\
         i",
    );
    let shown: Vec<String> = outcomes.iter().map(|o| o.render().unwrap()).collect();
    assert!(
        shown[1].starts_with("{\n  acknowledged: true,"),
        "{}",
        shown[1]
    );
    assert_eq!(shown[2], "1000");
    assert_eq!(shown[3], "{ x: 999, label: 'doc 999' }");
    assert_eq!(shown[4], "1000");
    session.cluster.check().unwrap();
}

#[test]
fn loops_branches_break_and_continue() {
    check(
        r#"var out = []
for (let i = 0; i < 10; i++) {
  if (i % 2 == 0) continue
  else if (i > 7) break
  out.push(i)
}
out
let n = 0
while (n < 5) n++
n
do { n-- } while (n > 2)
n
for (const w of ["a", "b"]) print(w)
for (const c of "hi") print(c)
var total = 0; for (var k of [1, 2, 3]) { total += k }
total
for (let i = 0, j = 5; i < j; i += 2, j--) print(i, j)
typeof j
var p = 1, q
q
for (const key in {a: 1, b: 2}) print(key)
for (var ix in ["x", "y"]) print(ix)
"#,
        expect![[r#"
            -
            4
            [ 1, 3, 5, 7 ]
            -
            4
            5
            3
            2
            a
            b
            -
            h
            i
            -
            -
            6
            6
            0 5
            2 4
            -
            undefined
            -
            -
            a
            b
            -
            0
            1
            -
        "#]],
    );
}

#[test]
fn functions_arrows_closures_and_recursion() {
    check(
        r#"function fact(n) { if (n <= 1) return 1; return n * fact(n - 1) }
fact(10)
const square = x => x * x
square(12)
const add = (a, b) => { return a + b }
add(2, 3)
function counter() { let c = 0; return () => ++c }
var next = counter()
next(); next()
next()
var twice = function (f, x) { return f(f(x)) }
twice(square, 3)
function early() { for (let i = 0; ; i++) { if (i == 3) return i } }
early()
function noReturn() {}
noReturn()
fact
function outer(n) { function inner(k) { return k + n } const twice = k => inner(inner(k)); return twice }
var plus2 = outer(1)
for (let i = 0; i < 3; i++) { const add = outer(i); plus2 = add }
plus2(10)
"#,
        expect![[r#"
            -
            3628800
            -
            144
            -
            5
            -
            -
            1
            2
            3
            -
            81
            -
            3
            -
            -
            [Function: fact]
            -
            -
            [Function: twice]
            14
        "#]],
    );
}

#[test]
fn operators_follow_javascript() {
    check(
        r#"7 / 2
7 % 3
2 * 3 + 4
"a" + 1 + 2
1 + 2 + "a"
var i = 5; i += 2; i -= 1; i *= 3; i /= 2; i
i++ + ++i
1 < 2
"10" < "9"
10 < 9
"5" == 5
"5" === 5
null == undefined
null === undefined
1 !== 2
!0
0 || "fallback"
1 && "second"
null ?? "default"
3 > 2 ? "yes" : "no"
0.1 + 0.2
1 / 0
typeof 1
typeof "s"
typeof nothingDeclared
typeof print
typeof {a: 1}
typeof NumberLong(1)
var a = 1, b
var name = "n"; ({name, size: 2})
"#,
        expect![[r#"
            3.5
            1
            10
            a12
            3a
            -
            7
            6
            18
            9
            9
            20
            true
            true
            false
            true
            false
            true
            false
            true
            true
            fallback
            second
            default
            yes
            0.30000000000000004
            Infinity
            number
            string
            undefined
            function
            object
            object
            -
            -
            { name: 'n', size: 2 }
        "#]],
    );
}

#[test]
fn template_literals_strings_and_arrays() {
    check(
        r#"var name = "shard"
`${name}01 has ${2 * 3} chunks`
`plain`
name.length
name.toUpperCase()
"a,b,c".split(",")
var a = [3, 1, 2]
a.length
a[0]
a.push(4)
a
a.map(x => x * 10)
a.filter(x => x > 1)
a.forEach((x, i) => print(i, x))
a.reduce((s, x) => s + x, 0)
a.indexOf(2)
a.includes(9)
a.join("-")
a.slice(1, 3)
a.sort()
a[5] = "z"
a
var doc = {n: 1}
doc.n = 2
doc.m = [1]
doc.m.push(2)
doc
Array.from({length: 3}, (_, i) => ({x: i}))
Array.isArray(doc.m)
"#,
        expect![[r#"
            -
            shard01 has 6 chunks
            plain
            5
            SHARD
            [ 'a', 'b', 'c' ]
            -
            3
            3
            4
            [ 3, 1, 2, 4 ]
            [ 30, 10, 20, 40 ]
            [ 3, 2, 4 ]
            0 3
            1 1
            2 2
            3 4
            -
            10
            2
            false
            3-1-2-4
            [ 1, 2 ]
            [ 1, 2, 3, 4 ]
            z
            [ 1, 2, 3, 4, undefined, 'z' ]
            -
            2
            [ 1 ]
            2
            { n: 2, m: [ 1, 2 ] }
            [ { x: 0 }, { x: 1 }, { x: 2 } ]
            true
        "#]],
    );
}

#[test]
fn math_and_date_basics() {
    check(
        r#"Math.floor(7.9)
Math.round(2.5)
Math.round(-2.5)
Math.min(3, 1, 2)
Math.max()
Math.abs(-4)
var r = Math.random(); r >= 0 && r < 1
[1.5, 2.5].map(Math.floor)
Date.now()
new Date()
new Date().getTime() == Date.now()
new Date(0).toISOString()
"#,
        expect![[r#"
            7
            3
            -2
            1
            -Infinity
            4
            -
            true
            [ 1, 2 ]
            1735689600009
            ISODate('2025-01-01T00:00:00.010Z')
            true
            1970-01-01T00:00:00.000Z
        "#]],
    );
}

/// A command's result is data the script can walk: a cursor's documents take
/// `forEach`, `map` and the other array methods, and a command's reply its properties.
/// `printjson` lays each document out a line per field (mongosh-repl.ts `onPrint`).
#[test]
fn command_results_feed_the_script() {
    check(
        r#"db.c.insertMany([{_id: 1, n: 5}, {_id: 2, n: 7}]).insertedIds
db.c.find().forEach(d => print(d._id, d.n))
db.c.find().toArray().map(d => d.n * 2)
db.c.find().sort({n: -1}).toArray()[0].n
var docs = db.c.find().toArray(); docs.length
let sum = 0; db.c.find().forEach(function (d) { sum += d.n }); sum
function count(coll) { return db.getCollection(coll).countDocuments() }
count("c") + 1
db.c.find().forEach(printjson)
"#,
        expect![[r#"
            { '0': 1, '1': 2 }
            1 5
            2 7
            -
            [ 10, 14 ]
            7
            -
            2
            -
            -
            12
            -
            3
            {
              _id: 1,
              n: 5
            }
            {
              _id: 2,
              n: 7
            }
            -
        "#]],
    );
}

/// mongosh echoes an assignment's value (`x = 5` prints 5) and prints nothing for a
/// declaration (`var x = 5`), whose completion value is empty.
#[test]
fn assignments_echo_and_declarations_do_not() {
    check(
        "x = 5\nvar y = 6\nlet z = 7\nconst w = 8\nx = 'text'\nw = 9\nw\nfunction f() { w++ }\nf()\nconst w = 1\nvar w = 2\nw = 3\n",
        expect![[r#"
            5
            -
            -
            -
            text
            TypeError: Assignment to constant variable.
            8
            -
            TypeError: Assignment to constant variable.
            -
            -
            3
        "#]],
    );
}

/// `help`, `sh.help()`, `db.help()` and `db.coll.help()` in mongosh's layout (`formatHelp` in
/// `packages/cli-repl/src/format-output.ts`) with mongosh's words
/// (`packages/i18n/src/locales/en_US.ts`, `shell-api.classes.ShellApi.help`,
/// `...Shard.help`, `...Database.help`, `...Collection.help`).
#[test]
fn help_texts_have_mongosh_layout() {
    let mut session = Session::default();
    let help = console(&mut session, "help");
    let want = [
        "",
        "  Shell Help:",
        "",
        "    use                                        Set current database",
        "    show                                       'show databases'/'show dbs': Print a list of all available databases",
        "                                               'show collections'/'show tables': Print a list of all collections for current database",
        "    print                                      Prints the contents of an object to the output",
        "    printjson                                  Alias for print()",
        "    convertShardKeyToHashed                    Returns the hashed value for the input using the same hashing function as a hashed index.",
        "",
        "  For more information on usage: https://mongodb.com/docs/manual/reference/method",
    ];
    assert_eq!(help, want.join("\n"));
    let sh = console(&mut session, "sh.help()");
    assert!(
        sh.starts_with("\n  The Shard Class:\n\n    enableSharding "),
        "{sh}"
    );
    assert!(sh.contains(
        "\n    shardCollection                            Enables sharding for a collection. Uses the shardCollection command\n"
    ));
    let db = console(&mut session, "db.help()");
    assert!(
        db.starts_with("\n  Database Class:\n\n    getName "),
        "{db}"
    );
    let coll = console(&mut session, "db.users.help()");
    assert!(coll.starts_with("\n  Collection Class:\n\n"), "{coll}");
    assert!(coll.contains(
        "\n    insertOne                                  Inserts a document into a collection.\n"
    ));
}

/// The same seed gives the same `Math.random()` sequence; another seed another one.
#[test]
fn math_random_follows_the_session_seed() {
    let draw = |seed| {
        let mut s = Session::new(config(seed));
        last(
            &mut s,
            "var xs = []; for (let i = 0; i < 5; i++) xs.push(Math.random()); xs",
        )
    };
    assert_eq!(draw(7), draw(7));
    assert_ne!(draw(7), draw(8));
    // `Math.random()` draws from its own stream: the workload generator's draws
    // (`sim.generate`) are the same whether or not a script drew numbers first.
    let generated = |script: &str| {
        let mut s = Session::new(config(3));
        s.run(script);
        s.run("sim.generate('test.w', {x: {gen: 'uniformInt', min: 0, max: 1000}}, 20)");
        let docs = last(&mut s, "db.w.find({}, {_id: 0}).toArray()");
        assert_eq!(docs.as_array().map(Vec::len), Some(20));
        docs
    };
    assert_eq!(generated(""), generated("Math.random(); Math.random()"));
}

/// A loop that never ends stops at the step budget with MongoDB's time-limit error, and
/// runaway recursion with JavaScript's RangeError: each ends at its budget, not by a clock.
#[test]
fn runaway_loops_and_recursion_end_with_an_error() {
    let mut session = Session::default();
    let out = console(
        &mut session,
        "while (true) {}\nfor (;;) {}\nfunction f(n) { return f(n + 1) }\nf(0)\nvar n = 0; do { n++ } while (true)\nn\n[1, 2].forEach(function g(x) { g(x) })",
    );
    expect![[r#"
        MongoServerError[MaxTimeMSExpired]: operation exceeded time limit: the statement ran more than 1000000 loop iterations, function calls and commands
        MongoServerError[MaxTimeMSExpired]: operation exceeded time limit: the statement ran more than 1000000 loop iterations, function calls and commands
        -
        RangeError: Maximum call stack size exceeded
        -
        MongoServerError[MaxTimeMSExpired]: operation exceeded time limit: the statement ran more than 1000000 loop iterations, function calls and commands
        1000000
        ReferenceError: g is not defined"#]]
    .assert_eq(&out);
    assert_eq!(MAX_STEPS, 1_000_000);
    // The budget is per statement: the next statement runs afresh.
    assert_eq!(
        last(&mut session, "var m = 0; while (m < 10) m++; m"),
        Bson::Int32(10)
    );
}

/// Runaway recursion ends with JavaScript's RangeError on a thread with the 1 MiB of
/// stack a wasm32 program gets, through the shell's commands and through deeply nested
/// expressions alike: calls stop at `MAX_CALL_DEPTH` frames, or earlier when they have
/// taken `STACK_BUDGET` of the stack (an unoptimised build's frames are larger). Every
/// build allows the recursion tutorials use.
#[test]
fn runaway_recursion_ends_within_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let mut session = Session::default();
            let out = console(
                &mut session,
                "var d = 0
                 function down(n) { d++; db.c.insertOne({n: n}); return 1 + down(n + 1) }
                 down(0)
                 var e = 0
                 function deep(n) { e++; return 1 + (1 + (1 + (1 + [deep(n + 1)].map(x => x)[0]))) }
                 deep(0)
                 function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) }
                 fact(25)",
            );
            let d = last(&mut session, "d");
            let e = last(&mut session, "e");
            (out, d, e)
        })
        .unwrap();
    let (out, d, e) = handle.join().unwrap();
    expect![[r#"
        -
        -
        RangeError: Maximum call stack size exceeded
        -
        -
        RangeError: Maximum call stack size exceeded
        -
        1.5511210043330986e+25"#]]
    .assert_eq(&out);
    for (depth, least) in [(d, 25), (e, 10)] {
        let Bson::Int32(depth) = depth else {
            panic!("{depth}")
        };
        assert!((least..=MAX_CALL_DEPTH as i32).contains(&depth), "{depth}");
    }
    assert_eq!(STACK_BUDGET, 512 * 1024);
}

/// A syntax error inside a loop is reported with its place, and the statements around
/// it still run.
#[test]
fn syntax_errors_in_scripts_have_a_place() {
    check(
        "for (let i = 0; i < 2; i++) {\n  print(i\n}\n1 + 1\nfunction (x) {}\nbreak\n",
        expect![[r#"
            SyntaxError: Unexpected token '}', expected ',' or ')' (3:1)
            2
            [Function (anonymous)]
            SyntaxError: Illegal break statement
        "#]],
    );
}

/// Mistakes while a script runs get JavaScript's own words (V8's messages, as mongosh
/// shows them).
#[test]
fn runtime_errors_use_javascripts_words() {
    check(
        "var x = 5\nx()\nMath.nope()\nvar o = {a: 1}\no.a()\no.b.c()\nnothing + 1\nfor (const v of 5) {}\n[].reduce((a, b) => a)\nfunction f() { continue }\nf()\n\"ab\".repeat(60000).split(\"\").length\n\"x\".padStart(2e7)\n",
        expect![[r#"
            -
            TypeError: x is not a function
            TypeError: Math.nope is not a function
            -
            TypeError: o.a is not a function
            TypeError: Cannot read properties of undefined (reading 'c')
            ReferenceError: nothing is not defined
            TypeError: 5 is not iterable
            TypeError: Reduce of empty array with no initial value
            -
            SyntaxError: Illegal continue statement: no surrounding iteration statement
            MongoServerError[ExceededMemoryLimit]: a value built in the shell may hold at most 100000 values (documents, arrays and scalars)
            RangeError: Invalid string length
        "#]],
    );
}

/// Building an array with `push` in a loop, then inserting it, is linear: the array
/// changes where it lives (10,000 pushes once took minutes). What it holds is still
/// bounded by MongoDB's limits, and a push past them leaves the array as it was.
#[test]
fn arrays_built_in_loops_grow_in_place_within_the_limits() {
    check(
        r#"const docs = []
for (let i = 0; i < 10000; i++) docs.push({x: i, name: "user" + i})
db.c.insertMany(docs).acknowledged
db.c.countDocuments({x: {$gte: 9990}})
const byIndex = []
for (let i = 0; i < 5000; i++) byIndex[i] = i * 2
byIndex[4999] + byIndex.length
var h = []; for (let i = 0; i < 20; i++) h.push("x".repeat(1000000))
h.length
function local() { const b = []; for (let i = 0; i < 3; i++) b.push(i); b.pop(); b.unshift(9); return b }
local()
"#,
        expect![[r#"
            -
            10000
            true
            10
            -
            9998
            14998
            -
            MongoServerError[BSONObjectTooLarge]: BSONObj size: 17000148 (0x10366D4) is invalid. Size must be between 0 and 16793600(16MB)
            16
            -
            [ 9, 0, 1 ]
        "#]],
    );
}

/// A copy of a session (a timeline snapshot is one) shares no closure state with the
/// original: a counter advanced in one is not advanced in the other.
#[test]
fn a_session_copy_has_its_own_closures() {
    let mut a = Session::default();
    a.run("function make() { let c = 10; return () => ++c }\nvar next = make(); next()");
    let mut b = a.clone();
    assert_eq!(last(&mut a, "next()"), Bson::Int32(12));
    assert_eq!(last(&mut a, "next()"), Bson::Int32(13));
    assert_eq!(last(&mut b, "next()"), Bson::Int32(12));
    // Two closures over one scope still share it in the copy.
    let mut c = Session::default();
    c.run("var inc = null, get = null\nfunction setup() { let n = 0; inc = () => ++n; get = () => n }\nsetup()\ninc(); inc()");
    let mut d = c.clone();
    assert_eq!(last(&mut d, "inc(); get()"), Bson::Int32(3));
    assert_eq!(last(&mut c, "get()"), Bson::Int32(2));
}

/// The timeline keeps one step per top-level statement, a loop being one statement, and
/// replays it to the same cluster.
#[test]
fn a_loop_is_one_timeline_step_and_replays_the_same() {
    let mut t = Timeline::new(config(1));
    t.push_script(
        "function fill(n) { for (let i = 0; i < n; i++) db.t.insertOne({x: i, r: Math.random()}) }\n\
         fill(50)\n\
         db.t.countDocuments()",
    );
    assert_eq!(t.len(), 3);
    let docs = |t: &Timeline| {
        let mut s = t.session().clone();
        last(&mut s, "db.t.find({}, {_id: 0}).toArray()")
    };
    let before = docs(&t);
    t.jump(0).unwrap();
    t.jump(3).unwrap();
    assert_eq!(docs(&t), before);
}

// ---------------------------------------------------------------------------------------
// The script language on the simulated clock and the statement's work budget (main's
// h/clock and h/robust).
// ---------------------------------------------------------------------------------------

/// `sleep(ms)` works at top level, in a loop, in a function and in a callback, and
/// `Date.now()` / `new Date()` read the simulated clock it advances: mongosh's `sleep` is
/// `setTimeout` (`packages/shell-api/src/shell-api.ts`), so a script's clock moves by
/// what it slept. A function named `sleep` replaces the shell's.
#[test]
fn sleep_and_dates_follow_the_simulated_clock_in_scripts() {
    let mut session = Session::default();
    let out = console(
        &mut session,
        r#"var t0 = Date.now()
sleep(1000)
for (let i = 0; i < 3; i++) { sleep(1000) }
function nap(ms) { sleep(ms); return Date.now() }
nap(500) - t0 >= 4500
[1, 2].forEach(x => sleep(1000))
var t1 = new Date().getTime(); t1 - t0 >= 6500 && t1 - t0 < 7000
Date.now() >= t1
function sleep(x) { return x * 2 }
sleep(21)"#,
    );
    expect![[r#"
        -
        -
        -
        -
        true
        -
        -
        true
        true
        -
        42"#]]
    .assert_eq(&out);
}

/// A loop is one statement: its commands share the statement's work budget
/// (`support::budget`), so a loop of scans ends with MongoDB's `MaxTimeMSExpired`
/// (code 50, "operation exceeded time limit", src/mongo/base/error_codes.yml) once their
/// work adds up, long before the step budget; the next statement has a budget of its own.
#[test]
fn a_loops_commands_share_the_statements_work_budget() {
    use shardlab::support::budget;
    let mut session = Session::default();
    let docs = vec!["{s: 'a'}"; 2_000].join(", ");
    session.run(&format!("db.p.insertMany([{docs}])\nvar n = 0"));
    let out = budget::within(400_000, || {
        console(
            &mut session,
            "for (let i = 0; i < 1000; i++) { db.p.countDocuments({s: 'x'}); n++ }",
        )
    });
    assert_eq!(
        out,
        "MongoServerError[MaxTimeMSExpired]: operation exceeded time limit"
    );
    let n = last(&mut session, "n");
    let n = n.as_f64().or(n.as_i32().map(f64::from)).unwrap();
    assert!((1.0..20.0).contains(&n), "{n}");
    assert_eq!(
        last(
            &mut session,
            "var k = 0; for (let i = 0; i < 5; i++) { db.p.countDocuments({s: 'a'}); k++ }; k"
        ),
        Bson::Int32(5)
    );
}

/// `db.coll.help()` lists the collection methods ShardLab now answers (aggregate,
/// findAndModify, findOneAndDelete/Replace/Update) and `sh.help()` the AutoMerger's
/// helpers, in mongosh's order and words (`packages/i18n/src/locales/en_US.ts`,
/// `shell-api.classes.Collection.help` and `...Shard.help`). `distinct` is left out: on
/// a collection other than the config database's, ShardLab does not answer it.
#[test]
fn help_lists_the_methods_main_answers() {
    let mut session = Session::default();
    let coll = console(&mut session, "db.users.help()");
    let names: Vec<&str> = coll
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let want = [
        "aggregate",
        "countDocuments",
        "find",
        "findAndModify",
        "findOne",
        "findOneAndDelete",
        "findOneAndReplace",
        "findOneAndUpdate",
        "getIndexes",
    ];
    let at: Vec<usize> = want
        .iter()
        .map(|w| names.iter().position(|n| n == w).unwrap_or(usize::MAX))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    assert!(names.contains(&"distinct"));
    assert!(!names.contains(&"mapReduce"), "mapReduce is not answered");
    assert!(coll.contains(
        "\n    findOneAndUpdate                           Updates a single document based on the filter and sort criteria.\n"
    ));
    let sh = console(&mut session, "sh.help()");
    for (name, words) in [
        (
            "isBalancerRunning",
            "Returns true if the balancer process is currently running",
        ),
        (
            "getShardedDataDistribution",
            "Returns data-size distribution information",
        ),
        ("startAutoMerger", "Globally enable auto-merger"),
        (
            "isAutoMergerEnabled",
            "Returns whether the auto-merger is enabled",
        ),
        (
            "disableAutoMerger",
            "Disable auto-merging on one collection",
        ),
        ("enableAutoMerger", "Re-enable auto-merge on one collection"),
    ] {
        let line = sh
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing from {sh}"));
        assert!(line.contains(words), "{line}");
    }
}
