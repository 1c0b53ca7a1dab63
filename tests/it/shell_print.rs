//! Printing values as mongosh does, and canonical Extended JSON output.
//!
//! The layout table's expectations were produced by Node 20's `util.inspect` with
//! mongosh's options (`compact: 3`, `breakLength: 80`, `depth: 6`) on the same source
//! text, with `MinKey()` and `Timestamp()` stubbed to print as mongosh prints them.

#![allow(clippy::unwrap_used)]

use bson::{doc, Bson};
use shardlab::shell::{
    format_document, format_value, parse_value, to_canonical_ejson, EvalContext,
};
use shardlab::shell::{format_value_with, FormatOptions};

fn value(src: &str) -> Bson {
    let mut ctx = EvalContext::at(1_577_836_800_000);
    parse_value(src, &mut ctx).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Source text and Node's `util.inspect` output for it.
const LAYOUT: &[(&str, &str)] = &[
    (r#"{a: 1, b: 'x'}"#, r#"{ a: 1, b: 'x' }"#),
    (
        r#"{a: {b: {c: {d: 1}}}}"#,
        r#"{
  a: { b: { c: { d: 1 } } }
}"#,
    ),
    (r#"{a: {b: {c: 1}}}"#, r#"{ a: { b: { c: 1 } } }"#),
    (
        r#"[0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 105, 112, 119, 126, 133, 140, 147, 154, 161, 168, 175, 182, 189, 196, 203]"#,
        r#"[
    0,   7,  14,  21,  28,  35,  42,  49,
   56,  63,  70,  77,  84,  91,  98, 105,
  112, 119, 126, 133, 140, 147, 154, 161,
  168, 175, 182, 189, 196, 203
]"#,
    ),
    (
        r#"['a','bb','ccc','dddd','e','ff','ggg','hhhh','i','jj']"#,
        r#"[
  'a',    'bb',   'ccc',
  'dddd', 'e',    'ff',
  'ggg',  'hhhh', 'i',
  'jj'
]"#,
    ),
    (
        r#"[1, 'two', 3, 'four', 5, 'six', 7]"#,
        r#"[
  1, 'two',
  3, 'four',
  5, 'six',
  7
]"#,
    ),
    (
        r#"{shardKey: {x: 1}, unique: false, balancing: true, chunkMetadata: [{shard: 'shard01', nChunks: 3}], chunks: [{min: {x: MinKey()}, max: {x: 0}, 'on shard': 'shard01', 'last modified': Timestamp(1, 0)}]}"#,
        r#"{
  shardKey: { x: 1 },
  unique: false,
  balancing: true,
  chunkMetadata: [ { shard: 'shard01', nChunks: 3 } ],
  chunks: [
    {
      min: { x: MinKey() },
      max: { x: 0 },
      'on shard': 'shard01',
      'last modified': Timestamp({ t: 1, i: 0 })
    }
  ]
}"#,
    ),
    (
        r#"{'last modified': 1, $gt: 2, _id: 3, a1: 4, '1a': 5, '': 6, "it's": 7}"#,
        r#"{
  'last modified': 1,
  '$gt': 2,
  _id: 3,
  a1: 4,
  '1a': 5,
  '': 6,
  "it's": 7
}"#,
    ),
    (
        r#"["it's", 'say "hi"', 'both \' and "', "all ' \" `", 'tab\there', 'nl\nx', '\x00\x7f\x9f\u00a0', 'back\\slash']"#,
        r#"[
  "it's",
  'say "hi"',
  `both ' and "`,
  'all \' " `',
  'tab\there',
  'nl\nx',
  '\x00\x7F\x9F ',
  'back\\slash'
]"#,
    ),
    (
        r#"{s: 'line one is here\nline two is here and it is quite long so that it will be split\nend'}"#,
        r#"{
  s: 'line one is here\n' +
    'line two is here and it is quite long so that it will be split\n' +
    'end'
}"#,
    ),
    (
        r#"[-0, 0, 1e21, 1e-7, 123456789012, 0.1, -1.5, NaN, Infinity, -Infinity]"#,
        r#"[
            -0,         0,
         1e+21,      1e-7,
  123456789012,       0.1,
          -1.5,       NaN,
      Infinity, -Infinity
]"#,
    ),
    (
        r#"{a: {}, b: [], c: [[]], d: [{}]}"#,
        r#"{ a: {}, b: [], c: [ [] ], d: [ {} ] }"#,
    ),
    (
        r#"{l1: {l2: {l3: {l4: {l5: {l6: {l7: {l8: 1}}}}}}}}"#,
        r#"{
  l1: {
    l2: {
      l3: {
        l4: { l5: { l6: { l7: [Object] } } }
      }
    }
  }
}"#,
    ),
    (
        r#"[[[[[[[[1]]]]]]]]"#,
        r#"[
  [
    [
      [
        [ [ [ [Array] ] ] ]
      ]
    ]
  ]
]"#,
    ),
    (
        r#"[{a: 1}, {b: 2}, {c: 3}, {d: 4}, {e: 5}, {f: 6}, {g: 7}]"#,
        r#"[
  { a: 1 }, { b: 2 },
  { c: 3 }, { d: 4 },
  { e: 5 }, { f: 6 },
  { g: 7 }
]"#,
    ),
    (
        r#"{aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb', cccccccccc: 'dddddddddddddddddddd', eeeeee: 'ffffffffff'}"#,
        r#"{
  aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb',
  cccccccccc: 'dddddddddddddddddddd',
  eeeeee: 'ffffffffff'
}"#,
    ),
    (
        r#"{aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb', cccccccccc: 'dddddddddddddddddddd', eeeeee: 'fffffffff'}"#,
        r#"{
  aaaaaaaaaa: 'bbbbbbbbbbbbbbbbbbbb',
  cccccccccc: 'dddddddddddddddddddd',
  eeeeee: 'fffffffff'
}"#,
    ),
    (
        r#"{b: 1, 2: 'x', 1: 'y', '01': 'z'}"#,
        r#"{ '1': 'y', '2': 'x', b: 1, '01': 'z' }"#,
    ),
    (
        r#"{a: [1, 2, 3], b: {c: [4, 5, {d: 6}]}}"#,
        r#"{
  a: [ 1, 2, 3 ],
  b: { c: [ 4, 5, { d: 6 } ] }
}"#,
    ),
    (
        r#"[1000000, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]"#,
        r#"[
  1000000,  2,  3,  4,
        5,  6,  7,  8,
        9, 10, 11, 12,
       13, 14, 15, 16,
       17, 18, 19, 20,
       21, 22, 23, 24,
       25, 26
]"#,
    ),
    (
        r#"[1.5, 2.25, 3.125, 4, 5, 6, 7, 8.5]"#,
        r#"[
  1.5, 2.25, 3.125,
    4,    5,     6,
    7,  8.5
]"#,
    ),
    (
        r#"{x: [MinKey(), MaxKey(), MinKey(), MaxKey(), MinKey(), MaxKey(), MinKey()]}"#,
        r#"{
  x: [
    MinKey(), MaxKey(),
    MinKey(), MaxKey(),
    MinKey(), MaxKey(),
    MinKey()
  ]
}"#,
    ),
    (
        r#"{_id: 'test.c-x_MinKey', ns: 'test.c', min: {x: MinKey()}, max: {x: 0}, shard: 'shard01', lastmod: Timestamp(1, 0), history: [{validAfter: Timestamp(1700000000, 5), shard: 'shard01'}]}"#,
        r#"{
  _id: 'test.c-x_MinKey',
  ns: 'test.c',
  min: { x: MinKey() },
  max: { x: 0 },
  shard: 'shard01',
  lastmod: Timestamp({ t: 1, i: 0 }),
  history: [
    {
      validAfter: Timestamp({ t: 1700000000, i: 5 }),
      shard: 'shard01'
    }
  ]
}"#,
    ),
    (
        r#"[['a', 1], ['b', 2], ['c', 3], ['d', 4], ['e', 5], ['f', 6], ['g', 7], ['h', 8]]"#,
        r#"[
  [ 'a', 1 ],
  [ 'b', 2 ],
  [ 'c', 3 ],
  [ 'd', 4 ],
  [ 'e', 5 ],
  [ 'f', 6 ],
  [ 'g', 7 ],
  [ 'h', 8 ]
]"#,
    ),
    (
        r#"{k: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'}"#,
        r#"{
  k: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
}"#,
    ),
    (
        r#"{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10, k: 11, l: 12, m: 13, n: 14, o: 15}"#,
        r#"{
  a: 1,
  b: 2,
  c: 3,
  d: 4,
  e: 5,
  f: 6,
  g: 7,
  h: 8,
  i: 9,
  j: 10,
  k: 11,
  l: 12,
  m: 13,
  n: 14,
  o: 15
}"#,
    ),
    (
        r#"[true, false, null, undefined, true, false, null, undefined]"#,
        r#"[
  true, false,
  null, undefined,
  true, false,
  null, undefined
]"#,
    ),
    (
        r#"{'Shard shard01 at shard01/localhost:27018': {data: '292.26MiB', docs: 1000, chunks: 3, 'estimated data per chunk': '97.42MiB', 'estimated docs per chunk': 333}}"#,
        r#"{
  'Shard shard01 at shard01/localhost:27018': {
    data: '292.26MiB',
    docs: 1000,
    chunks: 3,
    'estimated data per chunk': '97.42MiB',
    'estimated docs per chunk': 333
  }
}"#,
    ),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn layout_matches_node_util_inspect() {
    for (src, want) in LAYOUT {
        assert_eq!(format_value(&value(src)), *want, "source: {src}");
    }
}

/// Source text and how mongosh prints each BSON type.
const TYPES: &[(&str, &str)] = &[
    ("5", "5"),
    ("2.5", "2.5"),
    ("{$numberDouble: '1'}", "1"),
    ("-0", "-0"),
    ("1e21", "1e+21"),
    ("0.000001", "0.000001"),
    ("1e-7", "1e-7"),
    ("NaN", "NaN"),
    ("-Infinity", "-Infinity"),
    ("NumberLong(5)", "Long('5')"),
    (
        "NumberLong('-4611686018427387902')",
        "Long('-4611686018427387902')",
    ),
    ("NumberDecimal('1.5')", "Decimal128('1.5')"),
    ("NumberDecimal('1.50')", "Decimal128('1.50')"),
    ("NumberDecimal('1E+3')", "Decimal128('1E+3')"),
    ("NumberDecimal('-0')", "Decimal128('-0')"),
    ("NumberDecimal('NaN')", "Decimal128('NaN')"),
    (
        "ObjectId('507f1f77bcf86cd799439011')",
        "ObjectId('507f1f77bcf86cd799439011')",
    ),
    ("Timestamp(1, 3)", "Timestamp({ t: 1, i: 3 })"),
    (
        "ISODate('2020-01-01')",
        "ISODate('2020-01-01T00:00:00.000Z')",
    ),
    ("new Date(-1)", "ISODate('1969-12-31T23:59:59.999Z')"),
    (
        "new Date(253402300800000)",
        "ISODate('+010000-01-01T00:00:00.000Z')",
    ),
    (
        "new Date(-62198755200000)",
        "ISODate('-000001-01-01T00:00:00.000Z')",
    ),
    ("MinKey", "MinKey()"),
    ("MaxKey()", "MaxKey()"),
    ("true", "true"),
    ("null", "null"),
    ("undefined", "undefined"),
    ("'x'", "'x'"),
    ("\"it's\"", "\"it's\""),
    ("BinData(0, 'AQID')", "Binary.createFromBase64('AQID', 0)"),
    ("BinData(128, '')", "Binary.createFromBase64('', 128)"),
    (
        "UUID('01234567-89ab-cdef-0123-456789abcdef')",
        "UUID('01234567-89ab-cdef-0123-456789abcdef')",
    ),
    ("BinData(4, 'AQID')", "Binary.createFromBase64('AQID', 4)"),
    (
        "MD5('00112233445566778899aabbccddeeff')",
        "MD5('00112233445566778899aabbccddeeff')",
    ),
    ("/ab+c/i", "/ab+c/i"),
    (
        "{$regularExpression: {pattern: 'a/b', options: 'mi'}}",
        "/a\\/b/im",
    ),
    ("{$regularExpression: {pattern: '', options: ''}}", "/(?:)/"),
    (
        "Code('function() { return 1 }')",
        "Code('function() { return 1 }')",
    ),
    ("Code('x', {a: 1})", "Code('x', { a: 1 })"),
    ("BSONSymbol('sym')", "BSONSymbol('sym')"),
    (
        "DBRef('c', ObjectId('507f1f77bcf86cd799439011'))",
        "DBRef('c', ObjectId('507f1f77bcf86cd799439011'))",
    ),
    ("DBRef('c', 5, 'db')", "DBRef('c', 5, 'db')"),
    (
        "{$dbPointer: {$ref: 'db.c', $id: {$oid: '507f1f77bcf86cd799439011'}}}",
        "DBRef('db.c', ObjectId('507f1f77bcf86cd799439011'))",
    ),
    ("{$undefined: true}", "undefined"),
    ("{ '$gt': 5 }", "{ '$gt': 5 }"),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn every_type_prints_as_mongosh() {
    for (src, want) in TYPES {
        assert_eq!(format_value(&value(src)), *want, "source: {src}");
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn documents_print_with_mongosh_types_inside() {
    let d = doc! {
        "_id": Bson::ObjectId(bson::oid::ObjectId::from_bytes([0x65; 12])),
        "n": Bson::Int64(-4_611_686_018_427_387_902),
        "min": Bson::MinKey,
        "ts": Bson::Timestamp(bson::Timestamp { time: 1, increment: 3 }),
    };
    assert_eq!(
        format_document(&d),
        "{\n  _id: ObjectId('656565656565656565656565'),\n  n: Long('-4611686018427387902'),\n  min: MinKey(),\n  ts: Timestamp({ t: 1, i: 3 })\n}"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn limits_truncate_like_node() {
    let opts = FormatOptions {
        max_string_length: Some(5),
        max_array_length: Some(2),
        ..FormatOptions::default()
    };
    assert_eq!(
        format_value_with(&value("['abcdefgh', 'x', 'y']"), &opts),
        "[ 'abcde'... 3 more characters, 'x', ... 1 more item ]"
    );
    let lossless = FormatOptions::lossless();
    assert_eq!(
        format_value_with(&value("{l1: {l2: {l3: {l4: {l5: {l6: {l7: {l8: 1}}}}}}}}"), &lossless),
        "{\n  l1: {\n    l2: {\n      l3: {\n        l4: {\n          l5: { l6: { l7: { l8: 1 } } }\n        }\n      }\n    }\n  }\n}"
    );
}

/// Source text and its canonical Extended JSON.
const EJSON: &[(&str, &str)] = &[
    ("1", r#"{"$numberInt":"1"}"#),
    ("-2147483648", r#"{"$numberInt":"-2147483648"}"#),
    ("NumberLong(1)", r#"{"$numberLong":"1"}"#),
    ("2.5", r#"{"$numberDouble":"2.5"}"#),
    ("Double(1)", r#"{"$numberDouble":"1.0"}"#),
    ("-0", r#"{"$numberDouble":"-0.0"}"#),
    ("3000000000", r#"{"$numberDouble":"3000000000.0"}"#),
    ("1e21", r#"{"$numberDouble":"1e+21"}"#),
    ("1.5e-7", r#"{"$numberDouble":"1.5e-7"}"#),
    ("NaN", r#"{"$numberDouble":"NaN"}"#),
    ("Infinity", r#"{"$numberDouble":"Infinity"}"#),
    ("-Infinity", r#"{"$numberDouble":"-Infinity"}"#),
    ("NumberDecimal('1.50')", r#"{"$numberDecimal":"1.50"}"#),
    ("'a\"b\\\\c\\n\\u0001é'", r#""a\"b\\c\n\u0001é""#),
    ("true", "true"),
    ("null", "null"),
    ("[1, 'x']", r#"[{"$numberInt":"1"},"x"]"#),
    (
        "{b: 1, a: {c: []}}",
        r#"{"b":{"$numberInt":"1"},"a":{"c":[]}}"#,
    ),
    (
        "ObjectId('507f1f77bcf86cd799439011')",
        r#"{"$oid":"507f1f77bcf86cd799439011"}"#,
    ),
    (
        "ISODate('2020-01-01T00:00:00.123Z')",
        r#"{"$date":{"$numberLong":"1577836800123"}}"#,
    ),
    ("new Date(-1)", r#"{"$date":{"$numberLong":"-1"}}"#),
    (
        "BinData(0, 'AQID')",
        r#"{"$binary":{"base64":"AQID","subType":"00"}}"#,
    ),
    (
        "UUID('01234567-89ab-cdef-0123-456789abcdef')",
        r#"{"$binary":{"base64":"ASNFZ4mrze8BI0VniavN7w==","subType":"04"}}"#,
    ),
    (
        "BinData(128, 'AA==')",
        r#"{"$binary":{"base64":"AA==","subType":"80"}}"#,
    ),
    (
        "/a.b/mi",
        r#"{"$regularExpression":{"pattern":"a.b","options":"im"}}"#,
    ),
    ("Timestamp(1, 3)", r#"{"$timestamp":{"t":1,"i":3}}"#),
    ("Code('x')", r#"{"$code":"x"}"#),
    (
        "Code('x', {a: 1})",
        r#"{"$code":"x","$scope":{"a":{"$numberInt":"1"}}}"#,
    ),
    ("BSONSymbol('s')", r#"{"$symbol":"s"}"#),
    (
        "{$dbPointer: {$ref: 'db.c', $id: {$oid: '507f1f77bcf86cd799439011'}}}",
        r#"{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"507f1f77bcf86cd799439011"}}}"#,
    ),
    ("MinKey()", r#"{"$minKey":1}"#),
    ("MaxKey()", r#"{"$maxKey":1}"#),
    ("undefined", r#"{"$undefined":true}"#),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn canonical_ejson_for_every_type() {
    for (src, want) in EJSON {
        assert_eq!(to_canonical_ejson(&value(src)), *want, "source: {src}");
    }
}

/// Relaxed Extended JSON as a tree (what the JavaScript module's values are made of):
/// plain JSON where JavaScript has the type, the wrapper where it lacks it, as
/// `EJSON.serialize(v, {relaxed: true})` writes them. Each expectation is written in
/// canonical Extended JSON of the tree.
#[test]
fn relaxed_tree_keeps_wrappers_only_where_javascript_lacks_the_type() {
    use shardlab::shell::to_relaxed_tree;
    let cases: &[(&str, &str)] = &[
        ("1", r#"{"$numberLong":"1"}"#),
        ("2.5", r#"{"$numberDouble":"2.5"}"#),
        (
            "NumberLong('9007199254740991')",
            r#"{"$numberLong":"9007199254740991"}"#,
        ),
        (
            "NumberLong('9007199254740992')",
            r#"{"$numberLong":"9007199254740992"}"#,
        ),
        ("1/0", r#"{"$numberDouble":"Infinity"}"#),
        ("NumberDecimal('1.50')", r#"{"$numberDecimal":"1.50"}"#),
        (
            "ISODate('2020-01-02T03:04:05.006Z')",
            r#"{"$date":"2020-01-02T03:04:05.006Z"}"#,
        ),
        ("new Date(-1)", r#"{"$date":{"$numberLong":"-1"}}"#),
        (
            "Timestamp({t: 5, i: 2})",
            r#"{"$timestamp":{"t":{"$numberLong":"5"},"i":{"$numberLong":"2"}}}"#,
        ),
        (
            "/ab/mi",
            r#"{"$regularExpression":{"pattern":"ab","options":"im"}}"#,
        ),
        ("MinKey()", r#"{"$minKey":{"$numberLong":"1"}}"#),
        (
            "BinData(0, 'AQI=')",
            r#"{"$binary":{"base64":"AQI=","subType":"00"}}"#,
        ),
        ("{a: [null, true, 'x']}", r#"{"a":[null,true,"x"]}"#),
    ];
    for (src, want) in cases {
        let tree = to_relaxed_tree(&value(src));
        assert_eq!(to_canonical_ejson(&tree), *want, "{src}");
    }
    // The wrapper for a number beyond 2^53 is a string, the exact digits; inside the
    // range the tree holds the number itself (an Int64, which JSON writes as a number).
    let big = to_relaxed_tree(&Bson::Int64(9_007_199_254_740_993));
    assert_eq!(
        big,
        Bson::Document(doc! {"$numberLong": "9007199254740993"})
    );
    assert_eq!(to_relaxed_tree(&Bson::Int64(-3)), Bson::Int64(-3));
    assert_eq!(to_relaxed_tree(&Bson::Int32(7)), Bson::Int64(7));
    assert_eq!(to_relaxed_tree(&Bson::Double(0.5)), Bson::Double(0.5));
}
