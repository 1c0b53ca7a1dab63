//! Shard key patterns (spec §2) and key extraction (spec §3).
#![allow(clippy::unwrap_used)]

use crate::order::{bin, cws, date, dec, oid, regex, ts};
use bson::{doc, Bson, Document};
use shardlab::keys::{
    format_bson_obj, format_bson_value, FieldKind, KeyPattern, KeyValue, ShardKeyError,
};
use shardlab::values::hash64;

/// Every refusal of `parseShardKeyPattern`, with MongoDB's words and code name.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn pattern_errors() {
    let cases: Vec<(Document, &str, &str)> = vec![
        (doc! {}, "Shard key is empty", "BadValue"),
        (doc! {"": 1}, "Field  is empty", "BadValue"),
        (doc! {"a..b": 1}, "Field a..b contains empty parts", "BadValue"),
        (doc! {".a": 1}, "Field .a contains empty parts", "BadValue"),
        (doc! {"a.": 1}, "Field a. contains empty parts", "BadValue"),
        (doc! {"$a": 1}, "Field $a contains parts that start with '$'", "BadValue"),
        (doc! {"a.$b": 1}, "Field a.$b contains parts that start with '$'", "BadValue"),
        (doc! {"$id": 1}, "Field $id contains parts that start with '$'", "BadValue"),
        (
            doc! {"a": "hashed", "b": "hashed"},
            "Shard key { a: \"hashed\", b: \"hashed\" } can contain at most one 'hashed' field. Failed to parse field b",
            "BadValue",
        ),
        (
            doc! {"a": 1, "b": "hashed", "c": 1, "d": "hashed"},
            "Shard key { a: 1, b: \"hashed\", c: 1, d: \"hashed\" } can contain at most one 'hashed' field. Failed to parse field d",
            "BadValue",
        ),
        (
            doc! {"a": -1},
            "Shard key { a: -1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": 1, "b": 2},
            "Shard key { a: 1, b: 2 }numerical fields must be set to a value of 1 (ascending). Failed to parse field b",
            "BadValue",
        ),
        (
            doc! {"a": 2.0},
            "Shard key { a: 2.0 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": 0.5},
            "Shard key { a: 0.5 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": "1"},
            "Shard key { a: \"1\" }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": "2d"},
            "Shard key { a: \"2d\" }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": "HASHED"},
            "Shard key { a: \"HASHED\" }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": true},
            "Shard key { a: true }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": {"b": 1}},
            "Shard key { a: { b: 1 } }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": dec("1.5")},
            "Shard key { a: 1.5 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a",
            "BadValue",
        ),
        (
            doc! {"a": 1i64, "b": 5_000_000_000i64},
            "Shard key { a: 1, b: 5000000000 }numerical fields must be set to a value of 1 (ascending). Failed to parse field b",
            "BadValue",
        ),
        // Fields are checked in order, the name of each before its value.
        (doc! {"a": 2, "": 1}, "Shard key { a: 2, : 1 }numerical fields must be set to a value of 1 (ascending). Failed to parse field a", "BadValue"),
        (doc! {"a": 1, "b..c": 2}, "Field b..c contains empty parts", "BadValue"),
    ];
    for (pattern, message, code) in cases {
        let err = KeyPattern::parse(&pattern).expect_err(message);
        assert_eq!(err.to_string(), message, "{pattern:?}");
        assert_eq!(err.code_name(), code, "{pattern:?}");
    }
}

/// Patterns MongoDB accepts, with the kinds of their fields.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn accepted_patterns() {
    use FieldKind::{Ascending as A, Hashed as H};
    let cases: Vec<(Document, Vec<FieldKind>, Option<usize>, &str)> = vec![
        (doc! {"a": 1}, vec![A], None, "{ a: 1 }"),
        (doc! {"a": 1.0}, vec![A], None, "{ a: 1 }"),
        (doc! {"a": 1i64}, vec![A], None, "{ a: 1 }"),
        (doc! {"a": dec("1")}, vec![A], None, "{ a: 1 }"),
        (doc! {"a": dec("1.00")}, vec![A], None, "{ a: 1 }"),
        // MongoDB's safeNumberInt truncates doubles, so 1.5 is accepted as 1.
        (doc! {"a": 1.5}, vec![A], None, "{ a: 1 }"),
        (doc! {"a": "hashed"}, vec![H], Some(0), "{ a: \"hashed\" }"),
        (
            doc! {"a": 1, "b.c": 1},
            vec![A, A],
            None,
            "{ a: 1, b.c: 1 }",
        ),
        (
            doc! {"a": 1, "b": "hashed", "c": 1},
            vec![A, H, A],
            Some(1),
            "{ a: 1, b: \"hashed\", c: 1 }",
        ),
        (
            doc! {"b": "hashed", "a": 1},
            vec![H, A],
            Some(0),
            "{ b: \"hashed\", a: 1 }",
        ),
        // DBRef parts are allowed after the first part.
        (doc! {"a.$id": 1}, vec![A], None, "{ a.$id: 1 }"),
        (
            doc! {"a.$ref": 1, "a.$db": 1},
            vec![A, A],
            None,
            "{ a.$ref: 1, a.$db: 1 }",
        ),
    ];
    for (pattern, kinds, hashed, shown) in cases {
        let p = KeyPattern::parse(&pattern).unwrap();
        let got: Vec<FieldKind> = p.fields().iter().map(|(_, k)| *k).collect();
        assert_eq!(got, kinds, "{pattern:?}");
        assert_eq!(p.hashed_index(), hashed, "{pattern:?}");
        assert_eq!(p.is_hashed(), hashed.is_some(), "{pattern:?}");
        assert_eq!(p.has_hashed_prefix(), hashed == Some(0), "{pattern:?}");
        assert_eq!(p.to_string(), shown, "{pattern:?}");
        assert_eq!(p.global_min().0, vec![Bson::MinKey; kinds.len()]);
        assert_eq!(p.global_max().0, vec![Bson::MaxKey; kinds.len()]);
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn unique_hashed_is_refused() {
    let hashed = KeyPattern::parse(&doc! {"a": 1, "b": "hashed"}).unwrap();
    let err = hashed.check_unique(true).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by declaring an additional (non-hashed) unique index on the field."
    );
    assert_eq!(err.code_name(), "InvalidOptions");
    assert_eq!(hashed.check_unique(false), Ok(()));
    let ranged = KeyPattern::parse(&doc! {"a": 1}).unwrap();
    assert_eq!(ranged.check_unique(true), Ok(()));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn refine_prefix_rule() {
    let p = |d: Document| KeyPattern::parse(&d).unwrap();
    let old = p(doc! {"customer_id": 1});
    assert!(old.is_extended_by(&p(doc! {"customer_id": 1, "order_id": 1})));
    assert!(old.is_extended_by(&old));
    assert!(!old.is_extended_by(&p(doc! {"order_id": 1, "customer_id": 1})));
    assert!(!old.is_extended_by(&p(doc! {"customer_id": "hashed"})));
}

/// Extraction: dotted paths, missing fields, hashing, and the refusals.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn extraction() {
    let h = |v: Bson| Bson::Int64(hash64(&v, 0));
    let ok = |v: Vec<Bson>| Ok::<Vec<Bson>, ShardKeyError>(v);
    let arrays = Err(ShardKeyError::ArrayValue);
    let cases: Vec<(Document, Document, Result<Vec<Bson>, ShardKeyError>)> = vec![
        (doc! {"x": 1}, doc! {"x": 5}, ok(vec![Bson::Int32(5)])),
        (
            doc! {"x": 1, "y": 1},
            doc! {"x": "hello"},
            ok(vec![Bson::String("hello".into()), Bson::Null]),
        ),
        (
            doc! {"x": 1, "y": 1},
            doc! {"z": "oops"},
            ok(vec![Bson::Null, Bson::Null]),
        ),
        (
            doc! {"a.b": 1},
            doc! {"a": {"b": 7}},
            ok(vec![Bson::Int32(7)]),
        ),
        (
            doc! {"a.b.c": 1},
            doc! {"a": {"b": {"c": "deep"}}},
            ok(vec![Bson::String("deep".into())]),
        ),
        (doc! {"a.b": 1}, doc! {"a": {"c": 7}}, ok(vec![Bson::Null])),
        // A scalar in the middle of the path means the field is missing.
        (doc! {"a.b": 1}, doc! {"a": 5}, ok(vec![Bson::Null])),
        // A dotted pattern field does not match a literal dotted field name.
        (doc! {"a.b": 1}, doc! {"a.b": 5}, ok(vec![Bson::Null])),
        // Whole embedded documents are valid key values.
        (
            doc! {"a": 1},
            doc! {"a": {"b": 1}},
            ok(vec![Bson::Document(doc! {"b": 1})]),
        ),
        (
            doc! {"a": 1},
            doc! {"a": {"b": [1, 2]}},
            ok(vec![Bson::Document(doc! {"b": [1, 2]})]),
        ),
        (doc! {"a": 1}, doc! {"a": Bson::Null}, ok(vec![Bson::Null])),
        (
            doc! {"a": 1},
            doc! {"a": Bson::MinKey},
            ok(vec![Bson::MinKey]),
        ),
        // Arrays anywhere on the path are refused.
        (doc! {"a": 1}, doc! {"a": [1, 2]}, arrays.clone()),
        (doc! {"a": 1}, doc! {"a": []}, arrays.clone()),
        (doc! {"a.b": 1}, doc! {"a": [{"b": 1}]}, arrays.clone()),
        (doc! {"a.b": 1}, doc! {"a": {"b": [1]}}, arrays.clone()),
        (
            doc! {"x": 1, "a": 1},
            doc! {"x": 1, "a": [1]},
            arrays.clone(),
        ),
        (doc! {"a": "hashed"}, doc! {"a": [1]}, arrays.clone()),
        // The hashed field is NumberLong(hash64(value, 0)); missing hashes null.
        (
            doc! {"a": "hashed"},
            doc! {"a": 42},
            ok(vec![Bson::Int64(-944302157085130861)]),
        ),
        (
            doc! {"a": "hashed"},
            doc! {"b": 1},
            ok(vec![Bson::Int64(2338878944348059895)]),
        ),
        (
            doc! {"a": "hashed"},
            doc! {"a": Bson::Null},
            ok(vec![Bson::Int64(2338878944348059895)]),
        ),
        (
            doc! {"a": 1, "b": "hashed", "c": 1},
            doc! {"a": "x", "b": 2.7, "c": 3},
            ok(vec![
                Bson::String("x".into()),
                h(Bson::Int64(2)),
                Bson::Int32(3),
            ]),
        ),
        (
            doc! {"a.b": "hashed"},
            doc! {"a": {"b": "abc"}},
            ok(vec![Bson::Int64(8478485326885698097)]),
        ),
        // A regex is hashed like any value, but refused in a ranged field.
        (
            doc! {"a": "hashed"},
            doc! {"a": regex("x", "i")},
            ok(vec![h(regex("x", "i"))]),
        ),
        (
            doc! {"a": 1},
            doc! {"a": regex("x", "i")},
            Err(ShardKeyError::NotValidForStorage {
                element: "a: /x/i".into(),
            }),
        ),
    ];
    for (pattern, doc, want) in cases {
        let p = KeyPattern::parse(&pattern).unwrap();
        let got = p.extract(&doc).map(|k| k.0);
        assert_eq!(got, want, "{pattern:?} on {doc:?}");
    }
}

/// The cases of MongoDB's `shard_key_pattern_test.cpp` (`ExtractDocShardKey*`, the 7.0
/// file): where MongoDB's `extractShardKeyFromDoc` gives an empty key (an array on the
/// path), inserting refuses the document, so ShardLab's extraction fails there.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn mongodb_extract_doc_shard_key_cases() {
    let p = |d: Document| KeyPattern::parse(&d).unwrap();
    let ok = |v: Vec<Bson>| Ok::<Vec<Bson>, ShardKeyError>(v);
    let arrays = Err(ShardKeyError::ArrayValue);
    let (ten, thirty) = (Bson::Int32(10), Bson::Int32(30));
    let dbref = Bson::Document(doc! {"$ref": "coll", "$id": 1});
    let single = p(doc! {"a": 1});
    let compound = p(doc! {"a": 1, "b": 1.0});
    let nested = p(doc! {"a.b": 1, "c": 1.0});
    let deep = p(doc! {"a.b.c": 1});
    let numeric = p(doc! {"a.0.1": 1});
    type Case<'a> = (&'a KeyPattern, Document, Result<Vec<Bson>, ShardKeyError>);
    let cases: Vec<Case> = vec![
        // ExtractDocShardKeySingle
        (&single, doc! {"a": 10, "b": "20"}, ok(vec![ten.clone()])),
        (
            &single,
            doc! {"a": {"b": 10}, "c": 30},
            ok(vec![Bson::Document(doc! {"b": 10})]),
        ),
        (&single, doc! {"a": dbref.clone()}, ok(vec![dbref.clone()])),
        (
            &single,
            doc! {"a": {"$gt": 10}},
            ok(vec![Bson::Document(doc! {"$gt": 10})]),
        ),
        (&single, doc! {}, ok(vec![Bson::Null])),
        (&single, doc! {"b": 10}, ok(vec![Bson::Null])),
        (&single, doc! {"": 10}, ok(vec![Bson::Null])),
        (&single, doc! {"a": [1, 2]}, arrays.clone()),
        // ExtractDocShardKeyCompound
        (
            &compound,
            doc! {"c": 30, "b": "20", "a": 10},
            ok(vec![ten.clone(), "20".into()]),
        ),
        (
            &compound,
            doc! {"a": 10, "b": {"$gt": 20}},
            ok(vec![ten.clone(), Bson::Document(doc! {"$gt": 20})]),
        ),
        (&compound, doc! {"a": 10, "b": [1, 2]}, arrays.clone()),
        (
            &compound,
            doc! {"b": 20},
            ok(vec![Bson::Null, Bson::Int32(20)]),
        ),
        (
            &compound,
            doc! {"": 10, "b": "20"},
            ok(vec![Bson::Null, "20".into()]),
        ),
        // ExtractDocShardKeyNested
        (
            &nested,
            doc! {"a": {"b": 10}, "c": 30},
            ok(vec![ten.clone(), thirty.clone()]),
        ),
        (
            &nested,
            doc! {"a": {"d": [1, 2], "b": 10}, "c": 30, "d": 40},
            ok(vec![ten.clone(), thirty.clone()]),
        ),
        (
            &nested,
            doc! {"a": {"b": dbref.clone()}, "c": 30},
            ok(vec![dbref, thirty.clone()]),
        ),
        (
            &nested,
            doc! {"a": 10, "c": 30},
            ok(vec![Bson::Null, thirty.clone()]),
        ),
        (
            &nested,
            doc! {"a": {"d": 40}, "c": 30},
            ok(vec![Bson::Null, thirty.clone()]),
        ),
        (
            &nested,
            doc! {"a": [{"b": 10}, {"b": 20}], "c": 30},
            arrays.clone(),
        ),
        (
            &nested,
            doc! {"a": {"b": [10, 20]}, "c": 30},
            arrays.clone(),
        ),
        // ExtractDocShardKeyDeepNested
        (&deep, doc! {"a": {"b": {"c": 10}}}, ok(vec![ten.clone()])),
        (&deep, doc! {"a": [{"b": {"c": 10}}]}, arrays.clone()),
        (&deep, doc! {"a": {"b": [{"c": 10}]}}, arrays.clone()),
        (&deep, doc! {"a": {"b": {"c": [10, 20]}}}, arrays.clone()),
        (
            &deep,
            doc! {"a": [{"b": [{"c": 10}, {"c": 20}]}, {"b": [{"c": 30}, {"c": 40}]}]},
            arrays.clone(),
        ),
        // ExtractDocShardKeyWithNumericFieldName
        (
            &numeric,
            doc! {"a": {"0": {"1": {"shardKey": 1}}}},
            ok(vec![Bson::Document(doc! {"shardKey": 1})]),
        ),
        (&numeric, doc! {"a": {"0": [0, 1]}}, arrays.clone()),
        (&numeric, doc! {"a": [{"1": 1}]}, arrays.clone()),
        (
            &numeric,
            doc! {"a": {"0": {"1": ["array"]}}},
            arrays.clone(),
        ),
        (&numeric, doc! {"a": [{"0": {"1": "value"}}]}, arrays),
        (&numeric, doc! {"a.0.1": "value"}, ok(vec![Bson::Null])),
        (
            &numeric,
            doc! {"a": {"0": {"2": "value"}}},
            ok(vec![Bson::Null]),
        ),
        (&numeric, doc! {"a.0.1": ["value"]}, ok(vec![Bson::Null])),
        (
            &numeric,
            doc! {"a.0": {"1": ["value"]}},
            ok(vec![Bson::Null]),
        ),
        (
            &numeric,
            doc! {"a": {"0": {"2": ["value"]}}},
            ok(vec![Bson::Null]),
        ),
    ];
    for (pattern, doc, want) in cases {
        assert_eq!(
            pattern.extract(&doc).map(|k| k.0),
            want,
            "{pattern} on {doc}"
        );
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn extraction_errors_have_mongodb_words() {
    let p = KeyPattern::parse(&doc! {"a.b": 1}).unwrap();
    let err = p.extract(&doc! {"a": [{"b": 1}]}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Shard key cannot contain array values or array descendants."
    );
    assert_eq!(err.code_name(), "ShardKeyNotFound");
    let p = KeyPattern::parse(&doc! {"r": 1}).unwrap();
    let err = p.extract(&doc! {"r": regex("^a", "")}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Shard key element r: /^a/ is not valid for storage"
    );
    assert_eq!(err.code_name(), "BadValue");
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn key_values_compare_field_by_field() {
    let p = KeyPattern::parse(&doc! {"a": 1, "b": 1}).unwrap();
    let k = |d: Document| p.extract(&d).unwrap();
    assert!(k(doc! {"a": 1, "b": 9}) < k(doc! {"a": 2, "b": 0}));
    assert!(k(doc! {"a": 1, "b": 1}) < k(doc! {"a": 1.0, "b": 2}));
    assert_eq!(k(doc! {"a": 1}), k(doc! {"a": 1i64, "b": Bson::Null}));
    assert!(p.global_min() < k(doc! {}));
    assert!(k(doc! {"a": Bson::MaxKey}) < p.global_max());
    assert_eq!(
        p.to_document(&KeyValue(vec![Bson::Int32(1), Bson::Null])),
        doc! {"a": 1, "b": Bson::Null}
    );
}

/// Values printed as MongoDB's `BSONElement::toString` prints them (used in the
/// pattern error messages).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn values_print_like_mongodb() {
    let cases: Vec<(Bson, &str)> = vec![
        (Bson::Int32(1), "1"),
        (Bson::Int64(-5), "-5"),
        (Bson::Double(1.0), "1.0"),
        (Bson::Double(-2.0), "-2.0"),
        (Bson::Double(1.5), "1.5"),
        (Bson::Double(0.1), "0.1"),
        (Bson::Double(1.0 / 3.0), "0.3333333333333333"),
        (Bson::Double(1e15), "1000000000000000.0"),
        (Bson::Double(1e16), "1e+16.0"),
        (Bson::Double(1.25e20), "1.25e+20"),
        (Bson::Double(1e-5), "1e-05.0"),
        (Bson::Double(0.0001), "0.0001"),
        (Bson::Double(f64::INFINITY), "inf.0"),
        (dec("1.50"), "1.50"),
        (dec("1E+3"), "1E+3"),
        (dec("12.3E+7"), "1.23E+8"),
        (dec("0.000001"), "0.000001"),
        (dec("1E-7"), "1E-7"),
        (dec("-0"), "-0"),
        (dec("NaN"), "NaN"),
        (dec("-Infinity"), "-Infinity"),
        (Bson::String("hashed".into()), "\"hashed\""),
        (Bson::Boolean(true), "true"),
        (Bson::Null, "null"),
        (Bson::Undefined, "undefined"),
        (Bson::MinKey, "MinKey"),
        (Bson::MaxKey, "MaxKey"),
        (
            oid("010203040506070809101112"),
            "ObjectId('010203040506070809101112')",
        ),
        (date(86_400_000), "new Date(86400000)"),
        (ts(5, 2), "Timestamp(5, 2)"),
        (regex("a+", "i"), "/a+/i"),
        (bin(0, &[0xab, 0x01]), "BinData(0, AB01)"),
        (
            bin(4, &[0x12; 16]),
            "UUID(\"12121212-1212-1212-1212-121212121212\")",
        ),
        (Bson::Array(vec![]), "[]"),
        (
            Bson::Array(vec![Bson::Int32(1), Bson::Int32(2)]),
            "[ 1, 2 ]",
        ),
        (Bson::Document(doc! {}), "{}"),
        (Bson::JavaScriptCode("f()".into()), "f()"),
        (cws("f()", doc! {"x": 1}), "CodeWScope( f(), { x: 1 })"),
    ];
    for (v, want) in cases {
        assert_eq!(format_bson_value(&v), want, "{v:?}");
    }
    assert_eq!(
        format_bson_obj(&doc! {"a": 1, "b": {"c": "x"}}),
        "{ a: 1, b: { c: \"x\" } }"
    );
}

mod properties {
    use super::*;
    use crate::order::strategy::{arb_bson, arb_document_of};
    use proptest::prelude::*;

    proptest! {
        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn extraction_never_panics(
            doc in arb_document_of(arb_bson()),
            dotted in any::<bool>(),
            hashed in any::<bool>(),
        ) {
            let first = if dotted { "a.b" } else { "a" };
            let kind = if hashed { Bson::String("hashed".into()) } else { Bson::Int32(1) };
            let pattern = doc! {first: kind, "c": 1};
            let p = KeyPattern::parse(&pattern).unwrap();
            match p.extract(&doc) {
                Ok(key) => {
                    prop_assert_eq!(key.0.len(), 2);
                    if hashed {
                        prop_assert!(matches!(key.0[0], Bson::Int64(_)));
                    }
                }
                Err(e) => {
                    let expected = matches!(
                        e,
                        ShardKeyError::ArrayValue | ShardKeyError::NotValidForStorage { .. }
                    );
                    prop_assert!(expected, "unexpected error {:?}", e);
                }
            }
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]

        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn parsing_never_panics(pattern in arb_document_of(arb_bson())) {
            let _ = KeyPattern::parse(&pattern);
        }
    }
}
