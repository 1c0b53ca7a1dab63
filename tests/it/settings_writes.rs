//! Writes to `config.settings`' `autosplit` and `automerge` documents, made as an
//! administrator makes them (`use config`, then `db.settings.updateOne(...)`) and as
//! mongosh's `sh.enableAutoSplit()` and `sh.stopAutoMerger()` send them (shard.ts: an
//! upsert of `{$set: {enabled}}`): accepted where MongoDB's validator takes them, shown
//! by `find()` as written, and taken by the cluster (the splitter before 6.0.3, the
//! AutoMerger from 7.0) as its settings refresh takes them. Each test names its source.
#![allow(clippy::unwrap_used)]

use shardlab::Session;

/// Runs `script` in a new session, every statement of which must succeed, and returns
/// what its last statement printed.
fn last(script: &str) -> String {
    let mut session = Session::default();
    let outcomes = session.run(script);
    for o in &outcomes {
        assert!(o.result.is_ok(), "{}: {:?}", o.source, o.result);
    }
    session.cluster.check().unwrap();
    outcomes.last().and_then(|o| o.render()).unwrap_or_default()
}

/// Runs `script` in a new session and returns what each statement printed, errors
/// included, one line each (multi-line answers joined by spaces).
fn each(script: &str) -> Vec<String> {
    let mut session = Session::default();
    let out = session
        .run(script)
        .iter()
        .map(|o| {
            o.render()
                .unwrap_or_default()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    session.cluster.check().unwrap();
    out
}

const COUNT_CHUNKS: &str = "db.getSiblingDB('config').chunks.countDocuments({})";

/// `test.c` on `{x: 1}`, two shards, in `version`, with a 10 KiB maximum chunk size, so
/// that a few dozen documents of 1 KB outgrow a chunk.
fn small_chunks(version: &str) -> String {
    format!(
        "sim.reset({{shards: 2, version: '{version}', chunkSize: 10240}})\n\
         sh.shardCollection('test.c', {{x: 1}})\n"
    )
}

/// Inserts 200 documents of about 1 KB into `test.c` (keys `from` to `from + 199`), then
/// counts the chunks.
fn insert_and_count(from: u32) -> String {
    format!(
        "use test\n\
         db.c.insertMany(Array.from({{length: 200}}, (_, i) => ({{x: {from} + i, pad: 'p'.repeat(1000)}})))\n\
         {COUNT_CHUNKS}"
    )
}

const AUTOSPLIT_OFF: &str = "use config\n\
     db.settings.updateOne({_id: 'autosplit'}, {$set: {enabled: false}}, {upsert: true})\n";

// balancer_configuration.cpp (3.4 to 5.0): `AutoSplitSettingsType::fromBSON` reads
// `{_id: 'autosplit', enabled}`, and a 5.0 shard's ChunkSplitter (3.6: mongos's
// updateChunkWriteStatsAndSplitIfNeeded) refreshes it (`refreshAndCheck`) before each
// auto-split and returns when `getShouldAutoSplit()` is false. config.settings has no
// validator before FCV 6.2 (ShardingCatalogManager::_initConfigSettings), so the
// manual's upsert is taken as written.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn autosplit_off_written_to_config_settings_stops_splitting() {
    for version in ["3.6", "5.0"] {
        let on = last(&format!("{}{}", small_chunks(version), insert_and_count(0)));
        assert_ne!(on, "1", "{version}: the control splits");
        let script = format!(
            "{}{AUTOSPLIT_OFF}{}",
            small_chunks(version),
            insert_and_count(0)
        );
        assert_eq!(last(&script), "1", "{version}");
    }
}

// The write itself, as the brief's transcript has it: mongosh's UpdateResult (result.ts)
// for an upsert, `{_id: 'autosplit', enabled: false}` in config.settings (helpers.ts's
// sh.status() then reads `enabled` and prints 'no'), exactly as sh.disableAutoSplit()
// (shard.ts) leaves them.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_autosplit_upsert_answers_and_shows_as_written() {
    let out = each(&format!(
        "sim.reset({{version: '5.0'}})\n{AUTOSPLIT_OFF}db.settings.find()\nsh.status().autosplit"
    ));
    assert_eq!(
        out[2..],
        [
            "{ acknowledged: true, insertedId: 'autosplit', matchedCount: 0, modifiedCount: 0, upsertedCount: 1 }",
            "[ { _id: 'autosplit', enabled: false } ]",
            "{ 'Currently enabled': 'no' }",
        ]
    );
    let helper =
        each("sim.reset({version: '5.0'})\nsh.disableAutoSplit()\nuse config\ndb.settings.find()");
    assert_eq!(helper[1], out[2]);
    assert_eq!(helper[3], out[3]);
}

// Deleting the document restores the default: `_refreshAutoSplitSettings` starts from
// `AutoSplitSettingsType::createDefault()` (enabled) and keeps it on NoMatchingDocument.
// helpers.ts prints 'yes' again (`autosplit === null`).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn deleting_the_autosplit_document_splits_again() {
    let script = format!(
        "{}{AUTOSPLIT_OFF}{}\nuse config\n\
         db.settings.deleteOne({{_id: 'autosplit'}})\n\
         db.settings.find({{_id: 'autosplit'}}).count()\n\
         sh.status().autosplit\n{}",
        small_chunks("5.0"),
        insert_and_count(0),
        insert_and_count(1000)
    );
    let out = each(&script);
    let n = out.len();
    assert_eq!(out[n - 8], "1", "no split while off");
    assert_eq!(out[n - 6], "{ acknowledged: true, deletedCount: 1 }");
    assert_eq!(out[n - 5], "0");
    assert_eq!(out[n - 4], "{ 'Currently enabled': 'yes' }");
    let chunks: u32 = out[n - 1].parse().unwrap();
    assert!(chunks > 1, "splits once the document is gone: {chunks}");
}

// insertOne and replaceOne write the same document (no validator in 5.0); re-enabling
// with `enabled: true` lets the next inserts split. A second insertOne of the `_id` is
// the `_id_` index's E11000.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn insert_and_replace_of_the_autosplit_document() {
    let script = format!(
        "{}use config\n\
         db.settings.insertOne({{_id: 'autosplit', enabled: false}})\n\
         db.settings.insertOne({{_id: 'autosplit', enabled: false}})\n{}\n\
         use config\n\
         db.settings.replaceOne({{_id: 'autosplit'}}, {{enabled: true}})\n\
         db.settings.find({{_id: 'autosplit'}})\n{}",
        small_chunks("5.0"),
        insert_and_count(0),
        insert_and_count(1000)
    );
    let out = each(&script);
    let n = out.len();
    assert_eq!(out[3], "{ acknowledged: true, insertedId: 'autosplit' }");
    assert_eq!(
        out[4],
        "MongoServerError: E11000 duplicate key error collection: config.settings index: _id_ dup key: { _id: \"autosplit\" }"
    );
    assert_eq!(out[7], "1", "no split while off");
    assert_eq!(
        out[n - 5],
        "{ acknowledged: true, insertedId: null, matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }"
    );
    assert_eq!(out[n - 4], "[ { _id: 'autosplit', enabled: true } ]");
    let chunks: u32 = out[n - 1].parse().unwrap();
    assert!(chunks > 1, "splits once re-enabled: {chunks}");
}

// AutoSplitSettingsType::fromBSON takes `enabled` with bsonExtractBooleanField, a boolean
// only: `{enabled: 'off'}` fails the refresh, and a 5.0 ChunkSplitter's
// `uassertStatusOK(balancerConfig->refreshAndCheck(opCtx))` then gives up every split.
// helpers.ts reads the same document as JavaScript does: a non-empty string is truthy,
// so sh.status() still says 'yes'.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn an_autosplit_document_the_refresh_cannot_read_stops_splitting() {
    let script = format!(
        "{}use config\n\
         db.settings.updateOne({{_id: 'autosplit'}}, {{$set: {{enabled: 'off'}}}}, {{upsert: true}})\n\
         sh.status().autosplit\n{}",
        small_chunks("5.0"),
        insert_and_count(0)
    );
    let out = each(&script);
    let n = out.len();
    assert_eq!(out[n - 4], "{ 'Currently enabled': 'yes' }");
    assert_eq!(out[n - 1], "1");
}

// From 6.0.3 nothing splits on its own: 7.0's validator takes the document (its branch
// without a schema lists `autosplit`, sharding_catalog_manager.cpp `_initConfigSettings`),
// and 8.0's, which has no branch for `autosplit` (AutoSplitSettingsType is gone from
// balancer_configuration.cpp), refuses it with DocumentValidationFailure (121), as a
// 7.1+ mongos answers sh.enableAutoSplit(). Nothing is written then.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_autosplit_document_per_validator() {
    let find = "db.settings.find()";
    let seven = each(&format!(
        "sim.reset({{version: '7.0'}})\n{AUTOSPLIT_OFF}\
         db.settings.updateOne({{_id: 'autosplit'}}, {{$set: {{anything: 1}}}})\n{find}"
    ));
    assert_eq!(
        seven[4],
        "[ { _id: 'autosplit', enabled: false, anything: 1 } ]"
    );
    let eight = each(&format!(
        "sim.reset({{version: '8.0'}})\n{AUTOSPLIT_OFF}\
         db.settings.insertOne({{_id: 'autosplit', enabled: false}})\n{find}\nsh.status().autosplit"
    ));
    assert_eq!(eight[2], "MongoServerError: Document failed validation");
    assert_eq!(eight[3], "MongoServerError: Document failed validation");
    assert_eq!(eight[4], "");
    assert_eq!(eight[5], "{ 'Currently enabled': 'yes' }");
}

/// `test.c` with two runs of adjacent chunks on shard01 the AutoMerger can merge (five
/// chunks, three once merged): the round-three fixture.
use crate::glue_round3::split_up as mergeable;

const AUTOMERGE_OFF: &str = "use config\n\
     db.settings.updateOne({_id: 'automerge'}, {$set: {enabled: false}}, {upsert: true})\n";

// balancer_configuration.cpp (7.0 on): `_refreshAutoMergeSettings` reads
// `{_id: 'automerge', enabled}` at each balancer round, and `shouldBalanceForAutoMerge()`
// is false while it is off, so the AutoMerger (auto_merger_policy.cpp) merges nothing
// however long the chunks have sat on their shard (more than two hours here, past
// `autoMergerIntervalSecs` and the 300 s history window). Both 7.0's and 8.0's validators
// take the document (`automerge` is in the branch without a schema).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn automerge_off_written_to_config_settings_stops_the_auto_merger() {
    let wait = format!("sleep(7300000)\n{COUNT_CHUNKS}");
    for version in ["7.0", "8.0"] {
        assert_eq!(
            last(&format!("{}{wait}", mergeable(version))),
            "3",
            "{version}: the control merges"
        );
        assert_eq!(
            last(&format!("{}{AUTOMERGE_OFF}{wait}", mergeable(version))),
            "5",
            "{version}"
        );
    }
}

// Deleting the document restores the default (`AutoMergeSettingsType::createDefault()`,
// enabled): the next balancer round, at most 10 s later, enables the AutoMerger, which
// starts a round at once (AutoMergerPolicy::enable). Writing `enabled: true` instead does
// the same. sh.isAutoMergerEnabled() (shard.ts) answers the document's `enabled`, true
// without one; helpers.ts's sh.status() has an `automerge` section only while there is
// a document.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn deleting_or_reenabling_automerge_lets_the_auto_merger_run() {
    for back_on in [
        "db.settings.deleteOne({_id: 'automerge'})",
        "db.settings.updateOne({_id: 'automerge'}, {$set: {enabled: true}})",
    ] {
        let script = format!(
            "{}{AUTOMERGE_OFF}sh.isAutoMergerEnabled()\nsh.status().automerge\n\
             sleep(7300000)\n{COUNT_CHUNKS}\n{back_on}\nsleep(60000)\n{COUNT_CHUNKS}\n\
             sh.isAutoMergerEnabled()\nsh.status().automerge",
            mergeable("8.0")
        );
        let out = each(&script);
        let n = out.len();
        assert_eq!(out[n - 9], "false", "{back_on}");
        assert_eq!(out[n - 8], "{ 'Currently enabled': 'no' }", "{back_on}");
        assert_eq!(out[n - 6], "5", "{back_on}: off");
        assert_eq!(out[n - 3], "3", "{back_on}: merged once back on");
        assert_eq!(out[n - 2], "true", "{back_on}");
    }
    let gone = each(&format!(
        "{}{AUTOMERGE_OFF}db.settings.deleteOne({{_id: 'automerge'}})\n\
         Object.keys(sh.status())",
        mergeable("8.0")
    ));
    assert!(!gone.last().unwrap().contains("automerge"), "{gone:?}");
}

// The helpers and the direct write are the same write (shard.ts stopAutoMerger:
// `updateOne({_id: 'automerge'}, {$set: {enabled: false}}, {upsert: true})`): after
// either, config.settings holds `{_id: 'automerge', enabled: false}`, and a helper
// that follows an administrator's write updates that document.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_auto_merger_helpers_and_the_direct_write_agree() {
    let direct = each(&format!(
        "sim.reset({{version: '8.0'}})\n{AUTOMERGE_OFF}db.settings.find()"
    ));
    let helper =
        each("sim.reset({version: '8.0'})\nsh.stopAutoMerger()\nuse config\ndb.settings.find()");
    assert_eq!(direct[2], helper[1]);
    assert_eq!(direct[3], helper[3]);
    assert_eq!(direct[3], "[ { _id: 'automerge', enabled: false } ]");
    let then = each(&format!(
        "sim.reset({{version: '8.0'}})\n{AUTOMERGE_OFF}sh.startAutoMerger()\ndb.settings.find()"
    ));
    assert_eq!(
        then[3],
        "{ acknowledged: true, insertedId: null, matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }"
    );
    assert_eq!(then[4], "[ { _id: 'automerge', enabled: true } ]");
}

// 7.0's and 8.0's validators keep no schema for `automerge`
// (jstests/sharding/config_settings_schema.js: `{$set: {anything: true}}` on it is
// accepted), but `AutoMergeSettingsType::fromBSON` wants `enabled` a boolean: a document
// without one fails `refreshAndCheck`, and balancer.cpp's main loop then skips every
// round ("Skipping balancing round"), migrations and merges alike, until it is fixed.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn an_automerge_document_the_refresh_cannot_read_skips_the_balancer_rounds() {
    let unbalanced = "sim.reset({shards: 2, version: '8.0', chunkSize: 1048576})\n\
         sh.shardCollection('test.w', {x: 1})\n\
         sim.generate('test.w', {x: 'increasing', pad: {gen: 'padding', bytes: 1000}}, 6000)\n";
    let moves = "sleep(60000)\n\
         db.getSiblingDB('config').changelog.countDocuments({what: 'moveChunk.commit'})";
    let control = last(&format!("{unbalanced}{moves}"));
    assert_ne!(control, "0", "the control migrates");
    let script = format!(
        "{unbalanced}use config\n\
         db.settings.updateOne({{_id: 'automerge'}}, {{$set: {{anything: true}}}}, {{upsert: true}})\n\
         db.settings.find({{_id: 'automerge'}})\n{moves}"
    );
    let out = each(&script);
    let n = out.len();
    assert_eq!(out[n - 3], "[ { _id: 'automerge', anything: true } ]");
    assert_eq!(out[n - 1], "0");
    // Fixed, the rounds balance again.
    let fixed = format!(
        "{script}\ndb.settings.updateOne({{_id: 'automerge'}}, {{$set: {{enabled: true}}}})\n{moves}"
    );
    assert_ne!(each(&fixed).last().unwrap(), "0");
}
