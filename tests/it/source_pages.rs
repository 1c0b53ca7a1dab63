//! The commands of the five source documents, in the form shown, and the commands a
//! reader's next question leads to (`tests/source_pages/commands.js`), run in the session
//! and through the CLI. The end-to-end test `source-pages.test.mjs` types the same file into
//! the page's console and compares it with the CLI.
//!
//! Sources of the answers: mongosh's parser refuses `<namespace>` (a SyntaxError, as
//! `packages/shell-evaluator` hands the text to Babel) and names an undefined variable
//! (`ReferenceError: namespace is not defined`); the shard key update rules are
//! `src/mongo/db/s/README_sessions_and_transactions.md`'s and `update_stage.cpp`'s; the
//! hashes are `hasher.cpp`'s (2.3 and 2.9 truncate to 2, so they collide).

use shardlab::Session;

const COMMANDS: &str = include_str!("../source_pages/commands.js");

/// The statements of the file, one a line, without the comment lines.
fn statements() -> Vec<&'static str> {
    COMMANDS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        .collect()
}

/// What the session prints for each statement, in order.
fn printed() -> Vec<(String, String)> {
    let mut session = Session::default();
    statements()
        .into_iter()
        .map(|s| {
            let out: Vec<String> = session.run(s).iter().filter_map(|o| o.render()).collect();
            (s.to_string(), out.join("\n"))
        })
        .collect()
}

fn answer<'a>(all: &'a [(String, String)], statement: &str) -> &'a str {
    &all.iter()
        .find(|(s, _)| s.starts_with(statement))
        .unwrap_or_else(|| panic!("no statement {statement}"))
        .1
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn placeholders_and_undefined_names_fail_as_mongosh_fails() {
    let all = printed();
    let shown = answer(&all, "sh.shardCollection(<namespace>");
    assert!(shown.contains("SyntaxError"), "{shown}");
    let undefined = answer(&all, "sh.shardCollection( namespace, key )");
    assert_eq!(undefined, "ReferenceError: namespace is not defined");
    let field = answer(
        &all,
        "sh.shardCollection( \"database.collection\", { <field>",
    );
    assert!(field.contains("SyntaxError"), "{field}");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn every_runnable_command_of_the_pages_answers_as_mongodb_does() {
    let all = printed();
    let ok = |s: &str| {
        let a = answer(&all, s);
        assert!(
            !a.contains("Error") && !a.contains("undefined"),
            "{s} answered {a}"
        );
        a.to_string()
    };
    assert!(ok("sh.shardCollection(\"test.events\"").contains("collectionsharded: 'test.events'"));
    assert!(ok("sh.shardCollection(\"test.users\"").contains("collectionsharded: 'test.users'"));
    // A shard key value changes: the document moves with it, and findOneAndUpdate returns
    // it after the update.
    assert!(ok("db.events.updateOne({ _id: 1, x: 5 }").contains("modifiedCount: 1"));
    assert_eq!(
        ok("db.events.findOneAndUpdate({ _id: 1, x: 500 }"),
        "{ _id: 1, x: 7 }"
    );
    assert!(ok("db.events.replaceOne({ _id: 1, x: 7 }").contains("modifiedCount: 1"));
    // The page's $or finds the document without x; on a collection that does not exist it
    // finds nothing and prints nothing, as mongosh prints an empty cursor.
    assert_eq!(answer(&all, "db.shardedcollection.find("), "");
    // Neither document has y, so both match.
    assert_eq!(
        ok("db.events.find( { $or:"),
        "[ { _id: 1, x: 9 }, { _id: 2 } ]"
    );
    assert_eq!(ok("db.events.find({ x: null })"), "[ { _id: 2 } ]");
    assert!(ok("db.events.updateOne({ _id: 2, x: null }").contains("modifiedCount: 1"));
    assert_eq!(
        ok("db.events.findOneAndUpdate({ _id: 3, x: null }"),
        "{ _id: 3, x: null, note: 'added' }"
    );
    assert_eq!(ok("db.events.countDocuments()"), "3");
    assert!(
        ok("sh.shardCollection( \"database.collection\", { \"fieldA\"")
            .contains("collectionsharded: 'database.collection'")
    );
    // 2.3 and 2.9 truncate to 2 before hashing: the same hash.
    assert_eq!(
        ok("convertShardKeyToHashed(2.3)"),
        ok("convertShardKeyToHashed(2.9)")
    );
    assert_eq!(ok("db.events.createIndex({_id: 'hashed'})"), "_id_hashed");
    assert_eq!(
        ok("db.events.createIndex({projectId: 1, _id: 1})"),
        "projectId_1__id_1"
    );
    assert!(ok("sh.shardCollection(\"test.projects\"").contains("collectionsharded"));
    // Three documents cannot be cut into analyzeShardKey's 100 split points: MongoDB's
    // error (analyze_shard_key_cmd.cpp, 4952606), which mongosh prints as it is.
    assert!(answer(&all, "db.adminCommand({ analyzeShardKey").contains("4952606"));
    assert!(ok("db.events.getShardDistribution()").contains("Totals"));
    let chunks: u64 = ok("db.getSiblingDB(\"config\").chunks.countDocuments({})")
        .parse()
        .expect("a count");
    assert!(chunks >= 3, "{chunks}");
    let collections = ok("db.getSiblingDB(\"config\").collections.find(");
    assert!(collections.contains("_id: 'test.events'"), "{collections}");
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_cli_prints_what_the_session_prints() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardlab"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/source_pages/commands.js"
        ))
        .output()
        .expect("the CLI runs");
    let cli = String::from_utf8_lossy(&out.stdout);
    let session: Vec<String> = printed()
        .into_iter()
        .map(|(_, a)| a)
        .filter(|a| !a.is_empty())
        .collect();
    let errors = String::from_utf8_lossy(&out.stderr);
    let both = format!("{cli}{errors}");
    for answer in &session {
        // A syntax error names its place in the file, not in the one line.
        let answer = match answer.rfind(" (") {
            Some(at) if answer.starts_with("SyntaxError") => &answer[..at],
            _ => answer.as_str(),
        };
        assert!(both.contains(answer), "the CLI did not print {answer}");
    }
}
