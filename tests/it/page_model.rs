//! What the page derives from the session: the collection a command touched last, and
//! whether a workload's documents hold the shard key's fields.

use shardlab::keys::KeyPattern;
use shardlab::session::Session;
use shardlab::workload::{key_fit, preset, presets_fitting, with_key_fields, Template};

fn pattern(text: &str) -> KeyPattern {
    let value =
        shardlab::shell::parse_value(text, &mut Default::default()).expect("test input is valid");
    let bson::Bson::Document(doc) = value else {
        panic!("{text} is not a document")
    };
    KeyPattern::parse(&doc).expect("test input is valid")
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn the_last_collection_a_command_touched_is_the_viewed_one() {
    let mut s = Session::default();
    assert_eq!(s.touched(), None);
    s.run("use t");
    assert_eq!(s.touched(), None, "use names a database, not a collection");
    s.run("sh.shardCollection(\"t.h\", {ts: \"hashed\"})");
    assert_eq!(s.touched(), Some("t.h"));
    s.run("db.other.insertOne({a: 1})");
    assert_eq!(s.touched(), Some("t.other"));
    s.run("sim.generate(\"t.h\", \"uniform\", 10)");
    assert_eq!(s.touched(), Some("t.h"), "sim.generate inserts into t.h");
    s.run("db.other.find({a: 1})");
    assert_eq!(
        s.touched(),
        Some("t.other"),
        "a read touches its collection too"
    );
    s.run("db.getSiblingDB(\"admin\").runCommand({listShards: 1})");
    assert_eq!(
        s.touched(),
        Some("t.other"),
        "an admin command naming none keeps it"
    );
    s.run("db.other.drop()");
    assert_eq!(s.touched(), None, "a dropped collection is not shown");
    s.run("db.nothing.find()");
    assert_eq!(
        s.touched(),
        None,
        "a collection that does not exist is not shown"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_workload_that_lacks_a_key_field_says_so_and_can_be_fixed() {
    let uniform = preset("uniform").expect("test input is valid");
    let key = pattern("{userId: 1, x: 1}");
    let fit = key_fit(&uniform, &key).expect("test input is valid");
    assert_eq!(fit.missing, vec!["userId".to_string()]);
    assert!(fit.sometimes.is_empty());
    assert!(!fit.fits());

    // The fix adds a generator for the field, and the documents then hold it.
    let fixed = with_key_fields(&uniform, &key).expect("test input is valid");
    assert!(key_fit(&fixed, &key).expect("test input is valid").fits());
    let doc = Template::compile(&fixed)
        .expect("test input is valid")
        .document(0, &mut shardlab::support::SplitMix64::new(1));
    assert!(doc.get("userId").is_some(), "{doc}");

    // A dotted key field is written nested under its parent.
    let nested = pattern("{\"user.id\": 1}");
    let fixed = with_key_fields(&uniform, &nested).expect("test input is valid");
    let doc = Template::compile(&fixed)
        .expect("test input is valid")
        .document(0, &mut shardlab::support::SplitMix64::new(1));
    assert!(
        doc.get_document("user")
            .expect("test input is valid")
            .get("id")
            .is_some(),
        "{doc}"
    );

    // `_id` always fits; a `missing` generator fits only sometimes.
    assert!(key_fit(&uniform, &pattern("{_id: \"hashed\"}"))
        .expect("test input is valid")
        .fits());
    let missing = preset("missingFields").expect("test input is valid");
    assert_eq!(
        key_fit(&missing, &pattern("{x: 1}"))
            .expect("test input is valid")
            .sometimes,
        vec!["x".to_string()]
    );

    // The workloads that hold a key's fields: those writing x for {x: 1}, none for userId.
    let for_x = presets_fitting(&pattern("{x: 1}"));
    for name in ["monotonic", "decreasing", "uniform", "zipf"] {
        assert!(for_x.contains(&name), "{name} writes x: {for_x:?}");
    }
    assert!(!for_x.contains(&"continents") && !for_x.contains(&"missingFields"));
    assert_eq!(
        presets_fitting(&pattern("{projectId: 1, _id: 1}")),
        vec!["multiTenant"]
    );
    assert!(presets_fitting(&key).is_empty());
}

fn docs(s: &Session, ns: &str) -> u64 {
    s.cluster.collections().get(ns).map_or(0, |c| c.doc_count())
}

fn key_of(s: &Session, ns: &str) -> String {
    let sharding = s.cluster.sharding(ns).expect("sharded");
    shardlab::shell::format_document(&sharding.pattern.to_pattern_document())
}

/// The three ways the page changes a full collection's key are single shell steps that
/// run as typed: refine and reshard keep the documents, starting over drops them.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn key_changes_are_one_step_each_and_keep_or_drop_as_they_say() {
    use shardlab::workload::presets::{
        refine_command, reshard_command, shard_command, start_over_command,
    };
    let setup = |s: &mut Session| {
        s.run("use other");
        for o in s.run(&shard_command("test.events", "{customer: 1}", false, None)) {
            assert!(o.result.is_ok(), "{:?}", o.result);
        }
        s.run("sim.generate(\"test.events\", {customer: {gen: \"zipf\", n: 20}, order: \"increasing\"}, 300)");
        assert_eq!(docs(s, "test.events"), 300);
    };

    let mut s = Session::default();
    setup(&mut s);
    for o in s.run(&refine_command("test.events", "{customer: 1, order: 1}")) {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    assert_eq!(key_of(&s, "test.events"), "{ customer: 1, order: 1 }");
    assert_eq!(docs(&s, "test.events"), 300);

    let mut s = Session::default();
    setup(&mut s);
    for o in s.run(&reshard_command("test.events", "{order: \"hashed\"}")) {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    assert_eq!(key_of(&s, "test.events"), "{ order: 'hashed' }");
    assert_eq!(docs(&s, "test.events"), 300);

    let mut s = Session::default();
    setup(&mut s);
    for o in s.run(&start_over_command("test.events", "{order: 1}", true, None)) {
        assert!(o.result.is_ok(), "{:?}", o.result);
    }
    assert_eq!(key_of(&s, "test.events"), "{ order: 1 }");
    assert!(s.cluster.sharding("test.events").expect("sharded").unique);
    assert_eq!(docs(&s, "test.events"), 0);

    // A namespace with quotes stays one string: no statement can be smuggled in.
    let mut s = Session::default();
    let odd = "test.a\"); db.x.insertOne({y: 1}); (\"";
    s.run(&shard_command(odd, "{x: 1}", false, Some(4)));
    assert!(s.cluster.collections().get("test.x").is_none());
}
