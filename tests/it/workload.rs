//! Seeded document and query generators.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use proptest::prelude::*;
use shardlab::support::SplitMix64;
use shardlab::values::compare_values;
use shardlab::workload::{generate, generate_queries, preset, preset_names, CONTINENTS};
use std::cmp::Ordering;
use std::collections::BTreeMap;

fn gen(spec: Document, count: u64, seed: u64) -> Vec<Document> {
    generate(&spec, count, 0, &mut SplitMix64::new(seed)).unwrap()
}

fn field(docs: &[Document], name: &str) -> Vec<Bson> {
    docs.iter().filter_map(|d| d.get(name).cloned()).collect()
}

/// Frequencies of a field's values, keyed by their printed form.
fn frequencies(docs: &[Document], name: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for v in field(docs, name) {
        *out.entry(v.to_string()).or_insert(0) += 1;
    }
    out
}

fn strictly_increasing(values: &[Bson]) -> bool {
    values
        .windows(2)
        .all(|w| compare_values(&w[0], &w[1]) == Ordering::Less)
}

/// Counters, ObjectIds and dates grow with every document, and carry on across calls.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn monotonic_generators_grow_across_calls() {
    let spec = doc! { "x": "increasing", "id": "objectId", "ts": "date", "y": "decreasing" };
    let mut rng = SplitMix64::new(7);
    let mut docs = generate(&spec, 500, 0, &mut rng).unwrap();
    docs.extend(generate(&spec, 500, 500, &mut rng).unwrap());
    assert!(strictly_increasing(&field(&docs, "x")));
    assert!(strictly_increasing(&field(&docs, "id")));
    assert!(strictly_increasing(&field(&docs, "ts")));
    let mut y = field(&docs, "y");
    y.reverse();
    assert!(strictly_increasing(&y));
    assert_eq!(docs[0].get("x"), Some(&Bson::Int32(0)));
    assert_eq!(docs[999].get("x"), Some(&Bson::Int32(999)));
}

/// Integers follow mongosh: Int32 when they fit, Int64 beyond.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn integers_are_int32_then_int64() {
    let docs = gen(
        doc! { "x": { "gen": "increasing", "start": 2_147_483_646_i64 } },
        3,
        1,
    );
    assert_eq!(
        field(&docs, "x"),
        vec![
            Bson::Int32(2_147_483_646),
            Bson::Int32(2_147_483_647),
            Bson::Int64(2_147_483_648)
        ]
    );
}

/// Continents: exactly seven values, Asia the most common.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn continents_have_seven_values() {
    let docs = gen(preset("continents").unwrap(), 5000, 3);
    let freq = frequencies(&docs, "continent");
    assert_eq!(freq.len(), 7);
    for c in CONTINENTS {
        assert!(freq.contains_key(&format!("\"{c}\"")), "{c} missing");
    }
    let top = freq.iter().max_by_key(|(_, n)| **n).unwrap();
    assert_eq!(top.0, "\"Asia\"");
}

/// Zipf: value 1 is the most frequent, and far more frequent than the median value.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn zipf_top_value_is_most_frequent() {
    let docs = gen(preset("zipf").unwrap(), 20_000, 4);
    let freq = frequencies(&docs, "x");
    let top = freq.iter().max_by_key(|(_, n)| **n).unwrap();
    assert_eq!(top.0, "1");
    assert!(freq["1"] > 20 * freq.get("500").copied().unwrap_or(0).max(1) / 2);
}

/// Multi-tenant: the biggest tenant holds a large share; many tenants are small.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn tenants_are_skewed() {
    let docs = gen(preset("multiTenant").unwrap(), 10_000, 5);
    let freq = frequencies(&docs, "projectId");
    let mut sizes: Vec<u64> = freq.values().copied().collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    assert!(sizes.len() > 30, "{} tenants", sizes.len());
    assert!(sizes[0] > 2000, "biggest tenant {}", sizes[0]);
    assert!(sizes[0] > 20 * sizes[sizes.len() / 2]);
    assert!(matches!(docs[0].get("projectId"), Some(Bson::ObjectId(_))));
    assert!(strictly_increasing(&field(&docs, "_id")));
}

/// Every preset compiles and generates; nested templates and literals come through.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn presets_and_shapes() {
    for name in preset_names() {
        let docs = gen(preset(name).unwrap(), 10, 1);
        assert_eq!(docs.len(), 10, "{name}");
    }
    assert!(preset("nope").is_none());
    let docs = gen(
        doc! {
            "meta": { "source": "import", "n": "increasing" },
            "tag": "literal text",
            "k": { "gen": "const", "value": [1, 2] },
            "u": "uuid",
            "s": { "gen": "uniformString", "length": 5 },
            "c": { "gen": "choice", "values": ["a", "b"], "weights": [0, 1] },
            "pad": { "gen": "padding", "bytes": 3 },
            "r": { "gen": "uniformInt", "min": -2, "max": 2 },
        },
        20,
        9,
    );
    let d = &docs[3];
    assert_eq!(
        d.get_document("meta").unwrap(),
        &doc! { "source": "import", "n": 3 }
    );
    assert_eq!(d.get_str("tag").unwrap(), "literal text");
    assert_eq!(
        d.get_array("k").unwrap(),
        &vec![Bson::Int32(1), Bson::Int32(2)]
    );
    assert!(matches!(d.get("u"), Some(Bson::Binary(b)) if b.bytes.len() == 16));
    assert_eq!(d.get_str("s").unwrap().len(), 5);
    assert_eq!(d.get_str("pad").unwrap(), "xxx");
    assert!(docs.iter().all(|d| d.get_str("c").unwrap() == "b"));
    assert!(docs
        .iter()
        .all(|d| (-2..=2).contains(&d.get_i32("r").unwrap())));
}

/// Mistakes come back as BadValue with a useful message.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn errors() {
    let cases: Vec<(Document, u64, &str)> = vec![
        (
            doc! { "x": { "gen": "fibonacci" } },
            1,
            "unknown generator \"fibonacci\" for field 'x'; valid generators are: increasing, decreasing, objectId, date, uniformInt, uniformString, continent, zipf, uuid, choice, tenant, missing, const, padding",
        ),
        (doc! { "x": "increasing" }, 100_001, "cannot generate 100001 documents in one call; the limit is 100000"),
        (doc! { "a": { "b": { "gen": "uniformInt", "min": 5, "max": 1 } } }, 1, "'min' (5) of field 'a.b' is greater than 'max' (1)"),
        (doc! { "x": { "gen": "missing", "p": 2 } }, 1, "'p' of field 'x' must be between 0 and 1, got 2"),
        (doc! { "x": { "gen": "choice", "values": [] } }, 1, "'values' of field 'x' must be a non-empty array"),
        (doc! { "x": { "gen": "zipf", "n": 0 } }, 1, "'n' of field 'x' must be between 1 and 1000000, got 0"),
    ];
    for (spec, count, message) in cases {
        let err = generate(&spec, count, 0, &mut SplitMix64::new(1)).unwrap_err();
        assert_eq!(err.code_name(), "BadValue");
        assert_eq!(err.to_string(), message);
    }
}

/// A fixed seed gives fixed documents, on every platform.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn snapshot_of_a_seed() {
    let docs = gen(
        doc! {
            "z": { "gen": "zipf", "n": 100, "s": 1.3 },
            "t": { "gen": "tenant", "tenants": 5 },
            "i": { "gen": "uniformInt", "min": 0, "max": 9 },
        },
        4,
        42,
    );
    let text: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
    expect_test::expect![[r#"
        { "z": 11, "t": ObjectId("5f5f61807e4a110001000001"), "i": 2 }
        { "z": 2, "t": ObjectId("5f5f61807e4a110001000001"), "i": 8 }
        { "z": 1, "t": ObjectId("5f6204807e4a110001000003"), "i": 3 }
        { "z": 5, "t": ObjectId("5f5f61807e4a110001000001"), "i": 4 }"#]]
    .assert_eq(&text.join("\n"));
}

/// Query workloads: the kinds come in the asked ratios and draw values from documents.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn query_workloads() {
    let docs = gen(preset("monotonic").unwrap(), 1000, 1);
    let mut rng = SplitMix64::new(2);
    let ops = generate_queries(
        &doc! { "kind": "mixed", "key": "x", "other": "ts",
        "ratios": { "eq": 0.5, "range": 0.2, "other": 0.2, "updateKey": 0.1 } },
        2000,
        &mut rng,
        &docs,
    )
    .unwrap();
    assert_eq!(ops.len(), 2000);
    let eq = ops
        .iter()
        .filter(|o| o.command == "find" && matches!(o.filter.get("x"), Some(Bson::Int32(_))))
        .count();
    let range = ops
        .iter()
        .filter(|o| matches!(o.filter.get("x"), Some(Bson::Document(_))))
        .count();
    let other = ops.iter().filter(|o| o.filter.contains_key("ts")).count();
    let updates = ops.iter().filter(|o| o.command == "updateOne").count();
    assert!((900..1100).contains(&eq), "eq {eq}");
    assert!((320..480).contains(&range), "range {range}");
    assert!((320..480).contains(&other), "other {other}");
    assert!((140..260).contains(&updates), "updates {updates}");
    let update = ops.iter().find(|o| o.command == "updateOne").unwrap();
    assert!(update
        .update
        .as_ref()
        .unwrap()
        .get_document("$set")
        .unwrap()
        .contains_key("x"));

    let err = generate_queries(&doc! { "key": "x" }, 1, &mut rng, &[]).unwrap_err();
    assert_eq!(err.code_name(), "BadValue");
    let err =
        generate_queries(&doc! { "key": "x", "kind": "joins" }, 1, &mut rng, &docs).unwrap_err();
    assert!(err
        .to_string()
        .starts_with("unknown query workload kind 'joins'"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The same seed gives the same documents; the count is exact.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn deterministic_and_exact(seed in any::<u64>(), count in 0u64..300, which in 0usize..9) {
        let spec = preset(preset_names()[which]).unwrap();
        let a = gen(spec.clone(), count, seed);
        let b = gen(spec, count, seed);
        prop_assert_eq!(a.len() as u64, count);
        prop_assert_eq!(a, b);
    }

    /// "missing" leaves the field out about p of the time.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn missing_drops_about_p(seed in any::<u64>(), p in 0.0f64..=1.0) {
        let docs = gen(doc! { "x": { "gen": "missing", "p": p, "of": "increasing" } }, 2000, seed);
        let missing = docs.iter().filter(|d| !d.contains_key("x")).count() as f64 / 2000.0;
        // Five standard deviations of a binomial proportion at n = 2000 is under 0.056.
        prop_assert!((missing - p).abs() < 0.06, "p {} observed {}", p, missing);
    }
}

/// A lesson's text never names a shard count its setup does not build: the presets'
/// titles and texts say it through `{shards}`, and every step of `static/lessons.json`
/// that runs a preset names that preset's count, if any.
#[test]
fn lesson_texts_name_the_setups_shard_count() {
    use shardlab::workload::presets::{number_words, PRESETS};
    // The phrases that name the cluster's whole count ("at least two shards stay empty"
    // is a part of it).
    let said = |text: &str| -> Vec<u32> {
        let lower = text.to_lowercase();
        (1..=12)
            .filter(|n| {
                ["the", "across", "all", "on", "with", "over", ","]
                    .iter()
                    .any(|w| lower.contains(&format!("{w} {} shards", number_words(*n))))
            })
            .collect()
    };
    for p in PRESETS {
        assert_eq!(
            said(p.heading),
            Vec::<u32>::new(),
            "{}: a count in the heading",
            p.id
        );
        assert_eq!(
            said(p.text),
            Vec::<u32>::new(),
            "{}: a count in the text",
            p.id
        );
        for n in said(&p.title()).into_iter().chain(said(&p.lesson())) {
            assert_eq!(n, p.shards, "{}", p.id);
        }
    }
    assert_eq!(
        PRESETS
            .iter()
            .find(|p| p.id == "low-cardinality")
            .map(|p| p.title())
            .as_deref(),
        Some("Seven continents, nine shards")
    );
    let lessons =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/static/lessons.json"))
            .expect("static/lessons.json");
    let mut checked = 0;
    // Each step's scenario comes before the texts it explains, so a step's texts run from
    // its scenario to the next one.
    for part in lessons.split("\"scenario\":").skip(1) {
        let Some(p) = PRESETS
            .iter()
            .find(|p| part.contains(&format!("\"preset\": \"{}\"", p.id)))
        else {
            continue;
        };
        for n in said(part) {
            assert_eq!(n, p.shards, "lessons.json, the step running {}", p.id);
            checked += 1;
        }
    }
    assert!(checked >= 2, "the low-cardinality step names its shards");
}
