//! Query semantics: the matcher, updates, sorting and projection.
#![allow(clippy::unwrap_used)]

use bson::{doc, Bson, Document};
use shardlab::query::{apply_update, apply_update_for_insert, matches, project, sort_documents};
use shardlab::ClusterError;

/// A regular expression value.
fn re(pattern: &str, options: &str) -> Bson {
    crate::order::regex(pattern, options)
}

/// The matcher's truth table: each filter against each document, with the expected
/// answer, across operators, types, dotted paths, arrays and null or missing fields.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn matcher_truth_table() {
    let cases: Vec<(Document, Document, bool)> = vec![
        // Implicit equality and $eq across numeric types.
        (doc! {"x": 5}, doc! {"x": 5}, true),
        (doc! {"x": 5}, doc! {"x": 5.0}, true),
        (doc! {"x": 5}, doc! {"x": 5_i64}, true),
        (doc! {"x": 5}, doc! {"x": "5"}, false),
        (doc! {"x": {"$eq": 5}}, doc! {"x": 5}, true),
        (doc! {"x": 5}, doc! {"y": 5}, false),
        (doc! {}, doc! {"y": 5}, true),
        (doc! {"x": 5, "y": 6}, doc! {"x": 5, "y": 6}, true),
        (doc! {"x": 5, "y": 6}, doc! {"x": 5, "y": 7}, false),
        // $ne.
        (doc! {"x": {"$ne": 5}}, doc! {"x": 6}, true),
        (doc! {"x": {"$ne": 5}}, doc! {"x": 5}, false),
        (doc! {"x": {"$ne": 5}}, doc! {"y": 5}, true),
        (doc! {"x": {"$ne": 5}}, doc! {"x": [4, 5]}, false),
        (doc! {"x": {"$ne": null}}, doc! {"y": 1}, false),
        (doc! {"x": {"$ne": null}}, doc! {"x": 1}, true),
        // Ranges with type bracketing.
        (doc! {"x": {"$gt": 5}}, doc! {"x": 6}, true),
        (doc! {"x": {"$gt": 5}}, doc! {"x": 5}, false),
        (doc! {"x": {"$gte": 5}}, doc! {"x": 5}, true),
        (doc! {"x": {"$gt": 5}}, doc! {"x": "6"}, false),
        (doc! {"x": {"$gt": 5}}, doc! {"x": "a"}, false),
        (doc! {"x": {"$lt": "b"}}, doc! {"x": "a"}, true),
        (doc! {"x": {"$lt": "b"}}, doc! {"x": 1}, false),
        (doc! {"x": {"$lt": 5}}, doc! {"x": null}, false),
        (doc! {"x": {"$lt": 5}}, doc! {"y": 1}, false),
        (doc! {"x": {"$lte": 5.5}}, doc! {"x": 5}, true),
        (doc! {"x": {"$gt": 1, "$lt": 3}}, doc! {"x": 2}, true),
        (doc! {"x": {"$gt": 1, "$lt": 3}}, doc! {"x": 3}, false),
        (
            doc! {"x": {"$gt": 9_007_199_254_740_992_i64}},
            doc! {"x": 9_007_199_254_740_993_i64},
            true,
        ),
        (
            doc! {"x": {"$gt": 9_007_199_254_740_992.0}},
            doc! {"x": 9_007_199_254_740_993_i64},
            true,
        ),
        // NaN is below every number and only equal to itself.
        (doc! {"x": {"$lt": 0}}, doc! {"x": f64::NAN}, true),
        (doc! {"x": {"$gt": f64::NAN}}, doc! {"x": 1}, false),
        (doc! {"x": {"$gte": f64::NAN}}, doc! {"x": f64::NAN}, true),
        (doc! {"x": f64::NAN}, doc! {"x": f64::NAN}, true),
        // MinKey and MaxKey operands compare with every type.
        (doc! {"x": {"$gt": Bson::MinKey}}, doc! {"x": "a"}, true),
        (doc! {"x": {"$gt": Bson::MinKey}}, doc! {"x": null}, true),
        (
            doc! {"x": {"$lt": Bson::MaxKey}},
            doc! {"x": {"a": 1}},
            true,
        ),
        (doc! {"x": {"$lt": Bson::MinKey}}, doc! {"x": 1}, false),
        (doc! {"x": {"$gt": Bson::MaxKey}}, doc! {"x": 1}, false),
        // null matches null and missing, not undefined.
        (doc! {"x": null}, doc! {"x": null}, true),
        (doc! {"x": null}, doc! {"y": 1}, true),
        (doc! {"x": null}, doc! {"x": 0}, false),
        (doc! {"x": null}, doc! {"x": Bson::Undefined}, false),
        (doc! {"x": {"$gte": null}}, doc! {"y": 1}, true),
        (doc! {"x": {"$gt": null}}, doc! {"x": null}, false),
        (doc! {"x": {"$in": [null]}}, doc! {"y": 1}, true),
        (doc! {"x": {"$in": [1, null]}}, doc! {"x": 1}, true),
        (doc! {"x": {"$nin": [null]}}, doc! {"y": 1}, false),
        (doc! {"a.b": null}, doc! {"a": 5}, true),
        (doc! {"a.b": null}, doc! {"a": [{"b": 1}, {"c": 1}]}, true),
        (doc! {"a.b": null}, doc! {"a": [{"b": 1}]}, false),
        // $in and $nin.
        (doc! {"x": {"$in": [1, 2, 3]}}, doc! {"x": 2}, true),
        (doc! {"x": {"$in": [1, 2, 3]}}, doc! {"x": 4}, false),
        (doc! {"x": {"$in": []}}, doc! {"x": 4}, false),
        (doc! {"x": {"$in": [1, 2]}}, doc! {"x": [5, 2]}, true),
        (doc! {"x": {"$nin": [1, 2]}}, doc! {"x": 3}, true),
        (doc! {"x": {"$nin": [1, 2]}}, doc! {"x": 2}, false),
        (doc! {"x": {"$nin": [1, 2]}}, doc! {"y": 2}, true),
        // $exists.
        (doc! {"x": {"$exists": true}}, doc! {"x": null}, true),
        (doc! {"x": {"$exists": true}}, doc! {"y": 1}, false),
        (doc! {"x": {"$exists": false}}, doc! {"y": 1}, true),
        (doc! {"x": {"$exists": 0}}, doc! {"x": 1}, false),
        (
            doc! {"a.b": {"$exists": true}},
            doc! {"a": [{"c": 1}, {"b": 2}]},
            true,
        ),
        (
            doc! {"a.b": {"$exists": true}},
            doc! {"a": [{"c": 1}]},
            false,
        ),
        // $and, $or, $nor.
        (
            doc! {"$and": [{"x": 1}, {"y": 2}]},
            doc! {"x": 1, "y": 2},
            true,
        ),
        (
            doc! {"$and": [{"x": 1}, {"y": 2}]},
            doc! {"x": 1, "y": 3},
            false,
        ),
        (
            doc! {"$or": [{"x": 1}, {"y": 2}]},
            doc! {"x": 0, "y": 2},
            true,
        ),
        (
            doc! {"$or": [{"x": 1}, {"y": 2}]},
            doc! {"x": 0, "y": 3},
            false,
        ),
        (
            doc! {"$nor": [{"x": 1}, {"y": 2}]},
            doc! {"x": 0, "y": 3},
            true,
        ),
        (doc! {"$nor": [{"x": 1}, {"y": 2}]}, doc! {"x": 1}, false),
        (
            doc! {"z": 1, "$or": [{"x": 1}, {"y": 2}]},
            doc! {"x": 1},
            false,
        ),
        // $not.
        (doc! {"x": {"$not": {"$gt": 5}}}, doc! {"x": 3}, true),
        (doc! {"x": {"$not": {"$gt": 5}}}, doc! {"x": 7}, false),
        (doc! {"x": {"$not": {"$gt": 5}}}, doc! {"y": 7}, true),
        (doc! {"x": {"$not": {"$gt": 5}}}, doc! {"x": "abc"}, true),
        (doc! {"x": {"$not": re("^a", "")}}, doc! {"x": "abc"}, false),
        // Dotted paths and arrays.
        (doc! {"a.b": 1}, doc! {"a": {"b": 1}}, true),
        (doc! {"a.b": 1}, doc! {"a": {"b": 2}}, false),
        (doc! {"a.b.c": 1}, doc! {"a": {"b": {"c": 1}}}, true),
        (doc! {"a.b": 1}, doc! {"a": [{"b": 2}, {"b": 1}]}, true),
        (doc! {"a.b": 1}, doc! {"a": [{"b": [0, 1]}]}, true),
        (doc! {"a.0": 7}, doc! {"a": [7, 8]}, true),
        (doc! {"a.1": 7}, doc! {"a": [7, 8]}, false),
        (doc! {"a.0.b": 7}, doc! {"a": [{"b": 7}]}, true),
        (doc! {"x": 2}, doc! {"x": [1, 2, 3]}, true),
        (doc! {"x": [1, 2]}, doc! {"x": [1, 2]}, true),
        (doc! {"x": [1, 2]}, doc! {"x": [2, 1]}, false),
        (doc! {"x": [1, 2]}, doc! {"x": [[1, 2], 3]}, true),
        (doc! {"x": 1}, doc! {"x": [[1]]}, false),
        (doc! {"x": {"$gt": 2}}, doc! {"x": [1, 3]}, true),
        (doc! {"x": {"$gt": 2, "$lt": 3}}, doc! {"x": [1, 4]}, true),
        (doc! {"x": {"$gt": 5}}, doc! {"x": [[9]]}, false),
        (doc! {"x": {"a": 1}}, doc! {"x": {"a": 1}}, true),
        (doc! {"x": {"a": 1}}, doc! {"x": {"a": 1, "b": 2}}, false),
        (doc! {"x": null}, doc! {"x": []}, false),
        // Regular expressions.
        (doc! {"s": re("^ab", "")}, doc! {"s": "abc"}, true),
        (doc! {"s": re("^ab", "")}, doc! {"s": "cab"}, false),
        (doc! {"s": re("AB", "i")}, doc! {"s": "xaby"}, true),
        (doc! {"s": {"$regex": "b+c$"}}, doc! {"s": "abbbc"}, true),
        (
            doc! {"s": {"$regex": "^x", "$options": "m"}},
            doc! {"s": "a\nxy"},
            true,
        ),
        (doc! {"s": {"$regex": "^x"}}, doc! {"s": "a\nxy"}, false),
        (
            doc! {"s": re("^(cat|dog)s?$", "")},
            doc! {"s": "dogs"},
            true,
        ),
        (
            doc! {"s": re("^[a-c]{2,3}\\d$", "")},
            doc! {"s": "abc1"},
            true,
        ),
        (
            doc! {"s": re("^[a-c]{2,3}\\d$", "")},
            doc! {"s": "abcd1"},
            false,
        ),
        (doc! {"s": re("a", "")}, doc! {"s": 1}, false),
        (doc! {"s": re("a", "")}, doc! {"s": ["x", "ya"]}, true),
        (
            doc! {"s": {"$in": [re("^z", ""), 5]}},
            doc! {"s": "zed"},
            true,
        ),
        (doc! {"s": {"$in": [re("^z", ""), 5]}}, doc! {"s": 5}, true),
        // Other types by value.
        (doc! {"b": true}, doc! {"b": true}, true),
        (doc! {"b": true}, doc! {"b": 1}, false),
        (
            doc! {"d": {"$gt": crate::order::date(5)}},
            doc! {"d": crate::order::date(6)},
            true,
        ),
        (
            doc! {"d": {"$gt": crate::order::date(5)}},
            doc! {"d": 6},
            false,
        ),
    ];
    for (filter, doc, expected) in cases {
        assert_eq!(
            matches(&filter, &doc).unwrap(),
            expected,
            "filter {filter} on {doc}"
        );
    }
}

/// Filters MongoDB refuses, with its wording.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn matcher_errors() {
    let cases: Vec<(Document, &str)> = vec![
        (doc! {"x": {"$foo": 1}}, "unknown operator: $foo"),
        (doc! {"x": {"$gt": 1, "y": 1}}, "unknown operator: y"),
        (doc! {"$foo": 1}, "unknown top level operator: $foo"),
        (doc! {"x": {"$in": 5}}, "$in needs an array"),
        (doc! {"x": {"$nin": 5}}, "$nin needs an array"),
        (doc! {"$and": []}, "$and/$or/$nor must be a nonempty array"),
        (doc! {"$or": 1}, "$and/$or/$nor must be a nonempty array"),
        (
            doc! {"$or": [1]},
            "$or/$and/$nor entries need to be full objects",
        ),
        (doc! {"x": {"$not": {}}}, "$not cannot be empty"),
        (doc! {"x": {"$not": 5}}, "$not needs a regex or a document"),
        (doc! {"x": {"$options": "i"}}, "$options needs a $regex"),
    ];
    for (filter, message) in cases {
        // The error comes even though the document could never match.
        let doc = doc! {"never": 1};
        assert_eq!(
            matches(&filter, &doc),
            Err(ClusterError::BadValue(message.to_owned())),
            "filter {filter}"
        );
    }
    // A bad operator after a failing predicate is still reported.
    assert!(matches(&doc! {"a": 1, "b": {"$bad": 1}}, &doc! {"a": 2}).is_err());
}

/// Operator updates and replacements.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn updates() {
    let cases: Vec<(Document, Document, Document)> = vec![
        (
            doc! {"_id": 1, "x": 1},
            doc! {"$set": {"x": 2}},
            doc! {"_id": 1, "x": 2},
        ),
        (
            doc! {"_id": 1},
            doc! {"$set": {"a.b.c": 1}},
            doc! {"_id": 1, "a": {"b": {"c": 1}}},
        ),
        (
            doc! {"_id": 1, "a": {"z": 0}},
            doc! {"$set": {"a.b": 1}},
            doc! {"_id": 1, "a": {"z": 0, "b": 1}},
        ),
        (
            doc! {"_id": 1, "a": [1, 2]},
            doc! {"$set": {"a.3": 9}},
            doc! {"_id": 1, "a": [1, 2, null, 9]},
        ),
        (
            doc! {"_id": 1, "a": [{"b": 1}]},
            doc! {"$set": {"a.0.b": 5}},
            doc! {"_id": 1, "a": [{"b": 5}]},
        ),
        (
            doc! {"_id": 1, "x": 1, "y": 2},
            doc! {"$unset": {"x": ""}},
            doc! {"_id": 1, "y": 2},
        ),
        (
            doc! {"_id": 1},
            doc! {"$unset": {"a.b": 1}},
            doc! {"_id": 1},
        ),
        (
            doc! {"_id": 1, "a": [1, 2]},
            doc! {"$unset": {"a.0": 1}},
            doc! {"_id": 1, "a": [null, 2]},
        ),
        // $inc and MongoDB's numeric promotion.
        (
            doc! {"_id": 1, "n": 1},
            doc! {"$inc": {"n": 2}},
            doc! {"_id": 1, "n": 3},
        ),
        (
            doc! {"_id": 1},
            doc! {"$inc": {"n": 2}},
            doc! {"_id": 1, "n": 2},
        ),
        (
            doc! {"_id": 1, "n": i32::MAX},
            doc! {"$inc": {"n": 1}},
            doc! {"_id": 1, "n": i64::from(i32::MAX) + 1},
        ),
        (
            doc! {"_id": 1, "n": 1},
            doc! {"$inc": {"n": 1_i64}},
            doc! {"_id": 1, "n": 2_i64},
        ),
        (
            doc! {"_id": 1, "n": 1},
            doc! {"$inc": {"n": 0.5}},
            doc! {"_id": 1, "n": 1.5},
        ),
        (
            doc! {"_id": 1, "n": 1},
            doc! {"$inc": {"n": -3}},
            doc! {"_id": 1, "n": -2},
        ),
        // $setOnInsert does nothing to an existing document; setting the same _id is fine.
        (
            doc! {"_id": 1},
            doc! {"$setOnInsert": {"a": 1}},
            doc! {"_id": 1},
        ),
        (
            doc! {"_id": 1, "x": 1},
            doc! {"$set": {"_id": 1, "x": 3}},
            doc! {"_id": 1, "x": 3},
        ),
        // Replacement keeps _id, first.
        (
            doc! {"_id": 1, "x": 1, "y": 1},
            doc! {"z": 5},
            doc! {"_id": 1, "z": 5},
        ),
        (
            doc! {"_id": 1, "x": 1},
            doc! {"z": 5, "_id": 1},
            doc! {"_id": 1, "z": 5},
        ),
        (doc! {"_id": 1, "x": 1}, doc! {}, doc! {"_id": 1}),
    ];
    for (before, update, after) in cases {
        let got = apply_update(&before, &update).unwrap();
        assert_eq!(got, after, "{update} on {before}");
        // Types matter too: Document equality in bson compares them.
    }
    // An int64 that would overflow is refused, as MongoDB's `SafeNum` refuses it (it
    // used to become a double here).
    let err = apply_update(&doc! {"_id": 1, "n": i64::MAX}, &doc! {"$inc": {"n": 1}}).unwrap_err();
    assert_eq!(err.code_name(), "BadValue");
    assert_eq!(
        apply_update_for_insert(
            &doc! {"_id": 1},
            &doc! {"$setOnInsert": {"a": 1}, "$set": {"b": 2}}
        )
        .unwrap(),
        doc! {"_id": 1, "a": 1, "b": 2}
    );
}

/// Updates MongoDB refuses, with its wording and code name.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn update_errors() {
    let cases: Vec<(Document, Document, &str, &str)> = vec![
        (
            doc! {"_id": 1},
            doc! {"$set": {"_id": 2}},
            "ImmutableField",
            "Performing an update on the path '_id' would modify the immutable field '_id'",
        ),
        (
            doc! {"_id": 1},
            doc! {"$unset": {"_id": 1}},
            "ImmutableField",
            "Performing an update on the path '_id' would modify the immutable field '_id'",
        ),
        (
            doc! {"_id": 1},
            doc! {"_id": 2, "x": 1},
            "ImmutableField",
            "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2",
        ),
        (
            doc! {"_id": 1, "x": "a"},
            doc! {"$inc": {"x": 1}},
            "TypeMismatch",
            "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'x' of non-numeric type string",
        ),
        (
            doc! {"_id": 1, "x": 1},
            doc! {"$inc": {"x": "a"}},
            "TypeMismatch",
            "Cannot increment with non-numeric argument: {x: \"a\"}",
        ),
        (
            doc! {"_id": 1},
            doc! {"$set": {"a": 1}, "x": 1},
            "FailedToParse",
            "Unknown modifier: x. Expected a valid update modifier or pipeline-style update specified as an array",
        ),
        (
            doc! {"_id": 1},
            doc! {"$push": {"a": 1}},
            "FailedToParse",
            "Unknown modifier: $push. Expected a valid update modifier or pipeline-style update specified as an array",
        ),
        (
            doc! {"_id": 1},
            doc! {"$set": {"a": 1}, "$inc": {"a": 1}},
            "ConflictingUpdateOperators",
            "Updating the path 'a' would create a conflict at 'a'",
        ),
        (
            doc! {"_id": 1},
            doc! {"$set": {"a": 1, "a.b": 1}},
            "ConflictingUpdateOperators",
            "Updating the path 'a.b' would create a conflict at 'a'",
        ),
        (
            doc! {"_id": 1, "a": 5},
            doc! {"$set": {"a.b": 1}},
            "PathNotViable",
            "Cannot create field 'b' in element {a: 5}",
        ),
        (
            doc! {"_id": 1},
            doc! {"x": 1, "$set": {"a": 1}},
            "DollarPrefixedFieldName",
            "The dollar ($) prefixed field '$set' in '$set' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.",
        ),
    ];
    for (before, update, code, message) in cases {
        let err = apply_update(&before, &update).unwrap_err();
        assert_eq!(
            (err.code_name(), err.to_string().as_str()),
            (code, message),
            "{update}"
        );
    }
}

/// Sorting: by type class then value, missing as null, arrays by their extreme
/// element, descending with -1, stable.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn sorting() {
    let mut docs = vec![
        doc! {"_id": 1, "x": "b"},
        doc! {"_id": 2, "x": 3},
        doc! {"_id": 3},
        doc! {"_id": 4, "x": 1.5},
        doc! {"_id": 5, "x": null},
        doc! {"_id": 6, "x": [10, 0]},
        doc! {"_id": 7, "x": Bson::MinKey},
    ];
    let ids = |docs: &[Document]| {
        docs.iter()
            .map(|d| d.get_i32("_id").unwrap())
            .collect::<Vec<_>>()
    };
    sort_documents(&mut docs, &doc! {"x": 1});
    // Null and missing tie, so their input order stays.
    assert_eq!(ids(&docs), vec![7, 3, 5, 6, 4, 2, 1]);
    sort_documents(&mut docs, &doc! {"x": -1});
    assert_eq!(ids(&docs), vec![1, 6, 2, 4, 3, 5, 7]);

    let mut docs = vec![
        doc! {"_id": 1, "a": {"b": 2}, "c": 1},
        doc! {"_id": 2, "a": {"b": 1}, "c": 1},
        doc! {"_id": 3, "a": {"b": 1}, "c": 2},
    ];
    sort_documents(&mut docs, &doc! {"c": -1, "a.b": 1});
    assert_eq!(ids(&docs), vec![3, 2, 1]);
}

/// Inclusion and exclusion projections.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn projections() {
    let d = doc! {"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 4, "f": 5}, 6]};
    let cases: Vec<(Document, Document)> = vec![
        (doc! {}, d.clone()),
        (doc! {"a": 1}, doc! {"_id": 1, "a": 1}),
        (doc! {"a": true, "_id": 0}, doc! {"a": 1}),
        (doc! {"b.c": 1}, doc! {"_id": 1, "b": {"c": 2}}),
        (doc! {"e.c": 1}, doc! {"_id": 1, "e": [{"c": 4}]}),
        (
            doc! {"a": 0},
            doc! {"_id": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 4, "f": 5}, 6]},
        ),
        (
            doc! {"b.c": 0, "e.c": 0},
            doc! {"_id": 1, "a": 1, "b": {"d": 3}, "e": [{"f": 5}, 6]},
        ),
        (
            doc! {"_id": 0},
            doc! {"a": 1, "b": {"c": 2, "d": 3}, "e": [{"c": 4, "f": 5}, 6]},
        ),
        (doc! {"_id": 1}, doc! {"_id": 1}),
        (doc! {"a": 1, "_id": 1, "zz": 1}, doc! {"_id": 1, "a": 1}),
    ];
    for (projection, expected) in cases {
        assert_eq!(project(&d, &projection).unwrap(), expected, "{projection}");
    }
    assert_eq!(
        project(&d, &doc! {"a": 1, "b": 0}),
        Err(ClusterError::BadValue(
            "Cannot do exclusion on field b in inclusion projection".to_owned()
        ))
    );
    assert_eq!(
        project(&d, &doc! {"a": 0, "b": 1}),
        Err(ClusterError::BadValue(
            "Cannot do inclusion on field b in exclusion projection".to_owned()
        ))
    );
}

/// The regular expression matcher on its own: syntax, options, and subjects or
/// patterns large enough to threaten the stack.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn regular_expressions() {
    use shardlab::query::Regex;
    let a1001 = "a".repeat(1001);
    let cases: Vec<(&str, &str, &str, bool)> = vec![
        ("abc", "", "xabcx", true),
        ("^abc$", "", "abc\n", true),
        ("^abc$", "", "abcd", false),
        ("a.c", "", "a\nc", false),
        ("a.c", "s", "a\nc", true),
        ("[^0-9]+", "", "123", false),
        ("[^0-9]+", "", "12a3", true),
        ("\\bcat\\b", "", "a cat sat", true),
        ("\\bcat\\b", "", "concatenate", false),
        ("colou?r", "", "color", true),
        ("x{3}", "", "xx", false),
        ("x{3}", "", "axxxb", true),
        ("x{2,}y", "", "xxxy", true),
        ("(ab)+$", "", "ababab", true),
        ("(?:ab|cd){2}", "", "abcd", true),
        ("[A-Z]", "i", "q", true),
        ("a b # comment", "x", "ab", true),
        ("a\\.b", "", "axb", false),
        ("a\\.b", "", "a.b", true),
        ("\\d\\s\\w", "", "1 a", true),
        ("a{,2}", "", "a{,2}", true),
        ("", "", "", true),
        // Look-around and back-references, which the hand-written matcher refused.
        ("a(?=b)", "", "ab", true),
        ("a(?=b)", "", "ac", false),
        ("(a)\\1", "", "aa", true),
        ("(a)\\1", "", "ab", false),
        // A count past 1,000 is a count, not text (PCRE allows up to 65,535).
        ("^a{1001}$", "", a1001.as_str(), true),
        ("^a{1001}$", "", "a{1001}", false),
    ];
    for (pattern, options, text, expected) in cases {
        let re = Regex::new(pattern, options).unwrap();
        assert_eq!(
            re.is_match(text).unwrap(),
            expected,
            "/{pattern}/{options} on {text:?}"
        );
    }
    for bad in [
        "(", ")", "*a", "(?R)", "(?1)", "a{65536}", "a{3,2}", "[z-a]", "[abc",
    ] {
        assert!(Regex::new(bad, "").is_err(), "{bad}");
    }
    assert!(Regex::new("a", "q").is_err());
    // Long subjects and hostile patterns finish without exhausting the stack.
    let long = "a".repeat(100_000);
    assert_eq!(Regex::new("^a*$", "").unwrap().is_match(&long), Ok(true));
    assert_eq!(
        Regex::new("^[a-z]+$", "").unwrap().is_match(&long),
        Ok(true)
    );
    assert_eq!(
        Regex::new("^(a|aa)*b$", "").unwrap().is_match(&long),
        Ok(false)
    );
    assert_eq!(
        Regex::new("(a*)*b", "").unwrap().is_match(&"a".repeat(40)),
        Ok(false)
    );
    assert!(Regex::new(&"(".repeat(10_000), "").is_err());
}

/// Deeply nested filters and very long paths are refused rather than overflowing.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn depth_limits() {
    let mut filter = doc! {"x": 1};
    for _ in 0..150 {
        filter = doc! {"$and": [filter]};
    }
    assert!(matches(&filter, &doc! {"x": 1}).is_err());
    let mut shallow = doc! {"x": 1};
    for _ in 0..50 {
        shallow = doc! {"$or": [shallow]};
    }
    assert!(matches(&shallow, &doc! {"x": 1}).unwrap());
    let long_path = vec!["a"; 5_000].join(".");
    assert!(matches(&doc! {long_path.clone(): 1}, &doc! {}).is_err());
    assert!(apply_update(&doc! {}, &doc! {"$set": {long_path.clone(): 1}}).is_err());
    assert!(project(&doc! {}, &doc! {long_path: 1}).is_err());
}
