//! The `shardlab` CLI reads its script in pieces and runs it statement by statement
//! (`shell/script_stream.rs`): the output is what the whole script gives, whatever the
//! size of the reads; a script far over 16 MiB of small statements runs; errors name the
//! whole file's line; one statement past the lexer's limits ends the script, as mongosh
//! ends a file at its first uncaught error.

#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used)]

use crate::cli::{Run, ScriptFile};
use shardlab::Session;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `shardlab` with `args` and `stdin`, reading `buffer` bytes at a time when given.
fn shardlab(args: &[&str], stdin: &str, buffer: Option<usize>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shardlab"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(n) = buffer {
        command.env("SHARDLAB_READ_BUFFER", n.to_string());
    }
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let text = stdin.to_string();
    // Written from a thread of its own: the binary answers as it reads.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap(),
    }
}

/// What the CLI printed when it read a script whole: every outcome of one `Session::run`
/// of the whole text, rendered and each followed by a line break.
fn whole(script: &str, json: bool) -> String {
    let mut out = String::new();
    for o in Session::default().run(script) {
        let line = if json { o.render_json() } else { o.render() };
        if let Some(line) = line {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Statements across lines every way the shell allows: open brackets, strings, template
/// literals, comments, chains continued on the next line, `;` between statements,
/// functions, loops and `let` variables used by later statements, a statement the parser
/// recovers from over several lines, and characters of several bytes.
const MIXED: &str = r#"// header comment
/* block
   comment */ x = 1; y = 2
db.c.insertMany([
  {_id: 1, s: "a;b\n"},
  {_id: 2, s: `multi
line ${x} template`}
])
db.c.find()
  .sort({_id: -1})

  .limit(1)
function add(a, b) {
  // inner
  return a + b
}
let total = 0
for (let i = 0; i < 10; i++) {
  total = add(total, i)
}
total
if (total > 3) { print("big") }
else { print("small") }
const re = /a;b/; "xa;b".replace(re, "-")
"héllo wörld ✓"; 'tab\there'
foo(
bar)
x = ) (
1 + 1
var o = {a: [1, 2,
  3]}; o.a.length
use other
db
sh.status().shards.length
db.c.countDocuments(
  {}
)
"#;

#[test]
fn the_output_is_the_whole_scripts_whatever_the_reads() {
    let file = ScriptFile::new(MIXED);
    let plain = whole(MIXED, false);
    assert!(plain.contains("(28:5)"), "{plain}");
    assert!(plain.contains("'multi\\nline 1 template'"), "{plain}");
    assert!(plain.contains("héllo wörld ✓"), "{plain}");
    // Reads of one byte split every character of several bytes and every token; seven
    // and sixty-four bytes end reads inside statements, strings and comments.
    for buffer in [Some(1), Some(2), Some(3), Some(7), Some(64), None] {
        let run = shardlab(&[file.path()], "", buffer);
        assert_eq!(run.stdout, plain, "reading {buffer:?} bytes at a time");
        assert_eq!((run.code, run.stderr.as_str()), (1, ""));
        let piped = shardlab(&["-"], MIXED, buffer);
        assert_eq!(piped.stdout, plain, "standard input, {buffer:?} bytes");
    }
    let json = whole(MIXED, true);
    for buffer in [Some(5), None] {
        assert_eq!(shardlab(&["--json", file.path()], "", buffer).stdout, json);
    }
}

/// A statement that spans lines across the edge of a read, with a small read buffer: the
/// array starts in one read and ends several reads later.
#[test]
fn a_statement_across_the_read_buffers_edge_runs_once() {
    let script = "db.c.insertOne({_id: 0})\ndb.c.insertMany([\n  {_id: 1, k: 'one'},\n  {_id: 2, k: 'two'}\n]).insertedIds\ndb.c.countDocuments({})\n";
    let run = shardlab(&["-"], script, Some(16));
    assert_eq!(
        run.stdout,
        "{ acknowledged: true, insertedId: 0 }\n{ '0': 1, '1': 2 }\n3\n"
    );
    assert_eq!(run.stdout, whole(script, false));
}

/// `var n = <i>; var pad = "..."` lines (they print nothing) past `bytes`, then `tail`.
fn generated(bytes: usize, tail: &str) -> (String, usize) {
    let pad = "x".repeat(100);
    let mut text = String::with_capacity(bytes + 200);
    text.push_str("db.c.insertOne({_id: 'first'})\n");
    let mut lines = 1;
    while text.len() < bytes {
        text.push_str(&format!("var n = {lines}; var pad = \"{pad}\"\n"));
        lines += 1;
    }
    text.push_str(tail);
    (text, lines)
}

const MIB: usize = 1 << 20;

/// A generated load script of 17 MiB (the whole-script limit is 16 MiB), about 134,000
/// lines of two small statements each, runs to its end.
#[test]
fn a_script_over_16_mib_of_small_statements_runs() {
    let (text, lines) = generated(17 * MIB, "db.c.countDocuments({}) + n\n");
    assert!(text.len() > shardlab::shell::MAX_SCRIPT_BYTES);
    let file = ScriptFile::new(&text);
    let run = shardlab(&[file.path()], "", None);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    // The insert's answer, then `1 + n`, n being the last line's number.
    assert_eq!(
        run.stdout,
        format!(
            "{{ acknowledged: true, insertedId: 'first' }}\n{}\n",
            1 + (lines - 1)
        )
    );
}

/// A syntax error past the first 16 MiB names its line in the whole file, and the
/// statements after it run.
#[test]
fn an_error_on_line_n_of_a_big_file_names_line_n() {
    let (mut text, lines) = generated(17 * MIB, "x = )\n");
    text.push_str("n\n");
    let file = ScriptFile::new(&text);
    let run = shardlab(&["--json", file.path()], "", None);
    let bad_line = lines + 1;
    let out: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(
        out[1],
        format!(
            r#"{{"error": {{"code": 0, "codeName": "SyntaxError", "errmsg": "Unexpected token ')', expected an expression ({bad_line}:5)"}}}}"#
        )
    );
    assert_eq!(out[2], format!(r#"{{"$numberInt":"{}"}}"#, lines - 1));
    assert_eq!(run.code, 1);
}

/// One statement longer than 16 MiB, or of more than 2,000,000 tokens, is refused with
/// the limit's name and where it starts, and nothing after it runs: mongosh stops a file
/// at its first uncaught error (`loadExternalFile` is not in a `try` in cli-repl.ts) and
/// exits with status 1.
#[test]
fn a_statement_over_the_limit_ends_the_script() {
    let bytes = format!("x = 1\nvar big = \"{}\"\nx + 1\n", "a".repeat(17 * MIB));
    let run = shardlab(&["-"], &bytes, None);
    assert_eq!(
        run.stdout,
        "1\nSyntaxError: statement too long: more than 16777216 bytes; split it into smaller statements (2:1)\n"
    );
    assert_eq!((run.code, run.stderr.as_str()), (1, ""));

    let tokens = format!("y = 2\n\n  var a = [{}1]\ny\n", "1,".repeat(1_000_001));
    let file = ScriptFile::new(&tokens);
    let run = shardlab(&["--json", file.path()], "", None);
    assert_eq!(
        run.stdout,
        "{\"$numberInt\":\"2\"}\n{\"error\": {\"code\": 0, \"codeName\": \"SyntaxError\", \"errmsg\": \"statement too long: more than 2000000 tokens; split it into smaller statements (3:3)\"}}\n"
    );
    assert_eq!(run.code, 1);

    // Under the limit, a statement far longer than the reads runs.
    let fits = format!("var s = \"{}\"\ns.length\n", "a".repeat(15 * MIB));
    assert_eq!(
        shardlab(&["-"], &fits, None).stdout,
        format!("{}\n", 15 * MIB)
    );
}

/// Text the lexer refuses: a file runs nothing (a first reading finds it), as when the CLI
/// read it whole; standard input, read once, runs the statements on the lines before it
/// and stops there.
#[test]
fn text_the_lexer_refuses_stops_the_script() {
    let script = "x = 1\ny = \"open\nz = 3\n";
    let error = "SyntaxError: Unterminated string constant (2:5)\n";
    assert_eq!(whole(script, false), error);
    let file = ScriptFile::new(script);
    for buffer in [Some(1), Some(4), None] {
        let run = shardlab(&[file.path()], "", buffer);
        assert_eq!((run.code, run.stdout.as_str()), (1, error));
        let piped = shardlab(&[], script, buffer);
        assert_eq!(
            (piped.code, piped.stdout.clone()),
            (1, format!("1\n{error}"))
        );
    }
}

/// Bytes that are not UTF-8 in a file read as U+FFFD, as `String::from_utf8_lossy` reads
/// the whole file, even when a character is split between reads.
#[test]
fn bytes_that_are_not_utf8() {
    let path =
        std::env::temp_dir().join(format!("shardlab-cli-stream-bad-{}.js", std::process::id()));
    std::fs::write(&path, b"'a\xe2\x9c'\n'\xe2\x9c\x93'\n'\xff'\n").unwrap();
    for buffer in [Some(1), Some(2), None] {
        let run = shardlab(&[path.to_str().unwrap()], "", buffer);
        assert_eq!(run.stdout, "a\u{fffd}\n✓\n\u{fffd}\n", "{buffer:?}");
    }
    let _ = std::fs::remove_file(&path);
}

/// The statements and errors a script read in two parts gives, wherever it is split,
/// are the whole script's: the same text, lines and columns, in the same order.
#[test]
fn pieces_parse_as_the_whole_script_wherever_it_is_split() {
    use shardlab::shell::{parse_script_recovering, ScriptStream};
    let describe = |statements: &[shardlab::shell::Stmt], errors: &[String], texts: &[&str]| {
        let mut out: Vec<String> = statements
            .iter()
            .zip(texts)
            .map(|(s, t)| format!("{}:{} {t}", s.span.line, s.span.column))
            .collect();
        out.extend(errors.iter().cloned());
        out
    };
    let (script, errors) = parse_script_recovering(MIXED);
    let texts: Vec<&str> = script
        .statements
        .iter()
        .map(|s| &MIXED[s.span.start as usize..s.span.end as usize])
        .collect();
    let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    let expected = describe(&script.statements, &errors, &texts);
    for at in (0..=MIXED.len()).filter(|&i| MIXED.is_char_boundary(i)) {
        let mut stream = ScriptStream::new();
        let mut pieces = Vec::new();
        for (part, end) in [(&MIXED[..at], false), (&MIXED[at..], true)] {
            stream.push(part);
            while let Some(p) = stream.next_piece(end) {
                pieces.push(p);
            }
        }
        let (mut statements, mut errors, mut texts) = (Vec::new(), Vec::new(), Vec::new());
        for p in &pieces {
            assert!(!p.stop);
            for s in &p.script.statements {
                texts.push(p.text[s.span.start as usize..s.span.end as usize].to_string());
                statements.push(s.clone());
            }
            errors.extend(p.errors.iter().map(|e| e.to_string()));
        }
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert_eq!(
            describe(&statements, &errors, &texts),
            expected,
            "split at byte {at}"
        );
    }
}
