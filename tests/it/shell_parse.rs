//! Parsing shell input: statements, call chains, literals, constructors, Extended JSON
//! wrappers, errors with positions, and round trips through the printers.

#![allow(clippy::unwrap_used)]

use bson::Bson;
use proptest::prelude::*;
use shardlab::shell::{
    flatten, parse_ejson, parse_script, parse_script_recovering, parse_value, to_canonical_ejson,
    EvalContext, Expr, StmtKind,
};
use shardlab::shell::{format_value_with, FormatOptions};

/// 2020-01-01T00:00:00Z, the clock every test context reads.
const NOW: i64 = 1_577_836_800_000;

fn ctx() -> EvalContext {
    EvalContext::at(NOW)
}

fn ejson_of(src: &str) -> String {
    match parse_value(src, &mut ctx()) {
        Ok(v) => to_canonical_ejson(&v),
        Err(e) => format!("error: {e}"),
    }
}

/// Source text and the canonical Extended JSON of its value.
const LITERALS: &[(&str, &str)] = &[
    // Numbers: integral and within int32 is Int32, anything else Double.
    ("1", r#"{"$numberInt":"1"}"#),
    ("1.0", r#"{"$numberInt":"1"}"#),
    ("2.5", r#"{"$numberDouble":"2.5"}"#),
    ("3000000000", r#"{"$numberDouble":"3000000000.0"}"#),
    ("2147483647", r#"{"$numberInt":"2147483647"}"#),
    ("2147483648", r#"{"$numberDouble":"2147483648.0"}"#),
    ("-2147483648", r#"{"$numberInt":"-2147483648"}"#),
    ("-2147483649", r#"{"$numberDouble":"-2147483649.0"}"#),
    ("0x10", r#"{"$numberInt":"16"}"#),
    ("0o17", r#"{"$numberInt":"15"}"#),
    ("0b101", r#"{"$numberInt":"5"}"#),
    ("1e3", r#"{"$numberInt":"1000"}"#),
    ("1_000", r#"{"$numberInt":"1000"}"#),
    (".5", r#"{"$numberDouble":"0.5"}"#),
    ("-0", r#"{"$numberDouble":"-0.0"}"#),
    ("-1", r#"{"$numberInt":"-1"}"#),
    ("+5", r#"{"$numberInt":"5"}"#),
    ("- 2.5", r#"{"$numberDouble":"-2.5"}"#),
    ("1e400", r#"{"$numberDouble":"Infinity"}"#),
    ("NaN", r#"{"$numberDouble":"NaN"}"#),
    ("Infinity", r#"{"$numberDouble":"Infinity"}"#),
    ("-Infinity", r#"{"$numberDouble":"-Infinity"}"#),
    ("1000 * 60", r#"{"$numberInt":"60000"}"#),
    ("7 / 2", r#"{"$numberDouble":"3.5"}"#),
    ("(1 + 2) * 3 - 4 % 3", r#"{"$numberInt":"8"}"#),
    // Strings and escapes.
    (r#"'a\'b'"#, r#""a'b""#),
    (r#""a\"b""#, r#""a\"b""#),
    (r#"'\n\t\\\0'"#, r#""\n\t\\\u0000""#),
    (r#"'\u00e9\x41'"#, r#""éA""#),
    (r#"'\u{1F600}'"#, r#""😀""#),
    (r#"'\uD83D\uDE00'"#, r#""😀""#),
    ("`tpl`", r#""tpl""#),
    ("'a' + 1 + 'b'", r#""a1b""#),
    ("'line\\\ncontinued'", r#""linecontinued""#),
    // Keywords.
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    ("undefined", r#"{"$undefined":true}"#),
    // Objects and arrays.
    (
        r#"{a: 1, 'b c': "x", "d": [1, 2, {e: null},],}"#,
        r#"{"a":{"$numberInt":"1"},"b c":"x","d":[{"$numberInt":"1"},{"$numberInt":"2"},{"e":null}]}"#,
    ),
    ("{}", "{}"),
    ("[]", "[]"),
    ("{a: 1, a: 2, b: 3}", r#"{"a":{"$numberInt":"2"},"b":{"$numberInt":"3"}}"#),
    ("{b: 1, 2: 'x', 1: 'y', '01': 'z'}", r#"{"1":"y","2":"x","b":{"$numberInt":"1"},"01":"z"}"#),
    ("{new: 1, class: 2, 1.5: 3}", r#"{"new":{"$numberInt":"1"},"class":{"$numberInt":"2"},"1.5":{"$numberInt":"3"}}"#),
    ("{$gt: 5}", r#"{"$gt":{"$numberInt":"5"}}"#),
    ("{x: {$gte: MinKey, $lt: MaxKey}}", r#"{"x":{"$gte":{"$minKey":1},"$lt":{"$maxKey":1}}}"#),
    ("{$regex: 'a', $options: 'i'}", r#"{"$regex":"a","$options":"i"}"#),
    ("{$type: 'string'}", r#"{"$type":"string"}"#),
    ("{$date: 1, x: 2}", r#"{"$date":{"$numberInt":"1"},"x":{"$numberInt":"2"}}"#),
    // Constructors, with and without `new`.
    ("ObjectId('507f1f77bcf86cd799439011')", r#"{"$oid":"507f1f77bcf86cd799439011"}"#),
    ("new ObjectId('507F1F77BCF86CD799439011')", r#"{"$oid":"507f1f77bcf86cd799439011"}"#),
    ("ObjectId()", r#"{"$oid":"5e0be1000000000000000000"}"#),
    ("[ObjectId(), ObjectId()]", r#"[{"$oid":"5e0be1000000000000000000"},{"$oid":"5e0be1000000000000000001"}]"#),
    ("NumberInt(5)", r#"{"$numberInt":"5"}"#),
    ("NumberInt('12')", r#"{"$numberInt":"12"}"#),
    ("NumberInt(2.7)", r#"{"$numberInt":"2"}"#),
    ("NumberInt('abc')", r#"{"$numberInt":"0"}"#),
    ("NumberInt(4294967297)", r#"{"$numberInt":"1"}"#),
    ("Int32(-3)", r#"{"$numberInt":"-3"}"#),
    ("NumberLong(5)", r#"{"$numberLong":"5"}"#),
    ("NumberLong('9223372036854775807')", r#"{"$numberLong":"9223372036854775807"}"#),
    ("NumberLong('-9223372036854775808')", r#"{"$numberLong":"-9223372036854775808"}"#),
    ("NumberLong(-3.9)", r#"{"$numberLong":"-3"}"#),
    ("NumberLong()", r#"{"$numberLong":"0"}"#),
    ("Long('5')", r#"{"$numberLong":"5"}"#),
    ("Long(5)", r#"{"$numberLong":"5"}"#),
    ("Long(-1)", r#"{"$numberLong":"4294967295"}"#),
    ("Long(0, 1)", r#"{"$numberLong":"4294967296"}"#),
    ("NumberDecimal('1.5')", r#"{"$numberDecimal":"1.5"}"#),
    ("Decimal128('1.50')", r#"{"$numberDecimal":"1.50"}"#),
    ("NumberDecimal(0.1)", r#"{"$numberDecimal":"0.1"}"#),
    ("NumberDecimal('-0')", r#"{"$numberDecimal":"-0"}"#),
    ("NumberDecimal('1e+3')", r#"{"$numberDecimal":"1E+3"}"#),
    ("NumberDecimal('Infinity')", r#"{"$numberDecimal":"Infinity"}"#),
    ("NumberDecimal('1234567890123456789012345678901234')", r#"{"$numberDecimal":"1234567890123456789012345678901234"}"#),
    ("NumberDecimal()", r#"{"$numberDecimal":"0"}"#),
    ("Double(1)", r#"{"$numberDouble":"1.0"}"#),
    ("ISODate('2020-01-01T00:00:00Z')", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("ISODate('2020-01-01')", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("ISODate('2020-01-01T00:00:00.123+01:00')", r#"{"$date":{"$numberLong":"1577833200123"}}"#),
    ("ISODate('20200101T000000Z')", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("ISODate('2020-01-01 00:00')", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("ISODate()", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("new Date()", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("new Date(0)", r#"{"$date":{"$numberLong":"0"}}"#),
    ("new Date('1970-01-01T00:00:01.5Z')", r#"{"$date":{"$numberLong":"1500"}}"#),
    ("new Date(2020, 0, 1)", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("new Date(2020, 12, 1)", r#"{"$date":{"$numberLong":"1609459200000"}}"#),
    ("new Date(ISODate('2020-01-01'))", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("Date()", r#""Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)""#),
    ("Date.now()", r#"{"$numberDouble":"1577836800000.0"}"#),
    ("Timestamp(1, 3)", r#"{"$timestamp":{"t":1,"i":3}}"#),
    ("Timestamp({t: 4294967295, i: 2})", r#"{"$timestamp":{"t":4294967295,"i":2}}"#),
    ("new Timestamp({t: 5, i: 6})", r#"{"$timestamp":{"t":5,"i":6}}"#),
    ("Timestamp()", r#"{"$timestamp":{"t":0,"i":0}}"#),
    ("MinKey()", r#"{"$minKey":1}"#),
    ("new MaxKey()", r#"{"$maxKey":1}"#),
    ("MinKey", r#"{"$minKey":1}"#),
    ("BinData(0, 'AQID')", r#"{"$binary":{"base64":"AQID","subType":"00"}}"#),
    ("BinData(3, 'AQ')", r#"{"$binary":{"base64":"AQ==","subType":"03"}}"#),
    ("UUID('01234567-89ab-cdef-0123-456789abcdef')", r#"{"$binary":{"base64":"ASNFZ4mrze8BI0VniavN7w==","subType":"04"}}"#),
    ("UUID('0123456789ABCDEF0123456789abcdef')", r#"{"$binary":{"base64":"ASNFZ4mrze8BI0VniavN7w==","subType":"04"}}"#),
    ("HexData(5, '0a0B')", r#"{"$binary":{"base64":"Cgs=","subType":"05"}}"#),
    ("MD5('00112233445566778899aabbccddeeff')", r#"{"$binary":{"base64":"ABEiM0RVZneImaq7zN3u/w==","subType":"05"}}"#),
    ("Binary.createFromBase64('AQID', 128)", r#"{"$binary":{"base64":"AQID","subType":"80"}}"#),
    ("Binary.createFromHexString('ff')", r#"{"$binary":{"base64":"/w==","subType":"00"}}"#),
    ("/ab+c/i", r#"{"$regularExpression":{"pattern":"ab+c","options":"i"}}"#),
    ("/a\\/b[/]/gmi", r#"{"$regularExpression":{"pattern":"a\\/b[/]","options":"im"}}"#),
    ("{name: /^a/}", r#"{"name":{"$regularExpression":{"pattern":"^a","options":""}}}"#),
    ("[/x/, 4 / 2 / 1]", r#"[{"$regularExpression":{"pattern":"x","options":""}},{"$numberInt":"2"}]"#),
    ("new RegExp('a+', 'si')", r#"{"$regularExpression":{"pattern":"a+","options":"is"}}"#),
    ("BSONRegExp('a', 'xm')", r#"{"$regularExpression":{"pattern":"a","options":"mx"}}"#),
    ("Code('x')", r#"{"$code":"x"}"#),
    ("Code('x', {a: 1})", r#"{"$code":"x","$scope":{"a":{"$numberInt":"1"}}}"#),
    ("BSONSymbol('s')", r#"{"$symbol":"s"}"#),
    ("DBRef('c', 5)", r#"{"$ref":"c","$id":{"$numberInt":"5"}}"#),
    ("DBRef('c', 5, 'db')", r#"{"$ref":"c","$id":{"$numberInt":"5"},"$db":"db"}"#),
    // Extended JSON v2 wrappers, canonical and relaxed.
    ("{$numberInt: '7'}", r#"{"$numberInt":"7"}"#),
    ("{$numberLong: '-7'}", r#"{"$numberLong":"-7"}"#),
    ("{$numberDouble: '1.0'}", r#"{"$numberDouble":"1.0"}"#),
    ("{$numberDouble: 'NaN'}", r#"{"$numberDouble":"NaN"}"#),
    ("{$numberDouble: 'Infinity'}", r#"{"$numberDouble":"Infinity"}"#),
    ("{$numberDouble: '-Infinity'}", r#"{"$numberDouble":"-Infinity"}"#),
    ("{$numberDouble: '-0.0'}", r#"{"$numberDouble":"-0.0"}"#),
    ("{$numberDouble: '1.2345678921232E+18'}", r#"{"$numberDouble":"1234567892123200000.0"}"#),
    ("{$numberDecimal: '1.5'}", r#"{"$numberDecimal":"1.5"}"#),
    ("{$oid: '507f1f77bcf86cd799439011'}", r#"{"$oid":"507f1f77bcf86cd799439011"}"#),
    ("{$date: {$numberLong: '1577836800000'}}", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("{$date: '2020-01-01T00:00:00Z'}", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("{$date: 1577836800000}", r#"{"$date":{"$numberLong":"1577836800000"}}"#),
    ("{$minKey: 1}", r#"{"$minKey":1}"#),
    ("{$maxKey: 1}", r#"{"$maxKey":1}"#),
    ("{$binary: {base64: 'AQID', subType: '80'}}", r#"{"$binary":{"base64":"AQID","subType":"80"}}"#),
    ("{$binary: {subType: '4', base64: 'ASNFZ4mrze8BI0VniavN7w=='}}", r#"{"$binary":{"base64":"ASNFZ4mrze8BI0VniavN7w==","subType":"04"}}"#),
    ("{$binary: 'AQID', $type: '00'}", r#"{"$binary":{"base64":"AQID","subType":"00"}}"#),
    ("{$uuid: '01234567-89ab-cdef-0123-456789abcdef'}", r#"{"$binary":{"base64":"ASNFZ4mrze8BI0VniavN7w==","subType":"04"}}"#),
    ("{$regularExpression: {pattern: 'a', options: 'mi'}}", r#"{"$regularExpression":{"pattern":"a","options":"im"}}"#),
    ("{$timestamp: {t: 1, i: 2}}", r#"{"$timestamp":{"t":1,"i":2}}"#),
    ("{$symbol: 's'}", r#"{"$symbol":"s"}"#),
    ("{$code: 'c'}", r#"{"$code":"c"}"#),
    ("{$code: 'c', $scope: {x: 1}}", r#"{"$code":"c","$scope":{"x":{"$numberInt":"1"}}}"#),
    ("{$scope: {}, $code: 'c'}", r#"{"$code":"c","$scope":{}}"#),
    ("{$dbPointer: {$ref: 'db.c', $id: {$oid: '507f1f77bcf86cd799439011'}}}", r#"{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"507f1f77bcf86cd799439011"}}}"#),
    ("{$undefined: true}", r#"{"$undefined":true}"#),
    ("{a: {$numberLong: '5'}, b: [{$oid: '507f1f77bcf86cd799439011'}]}", r#"{"a":{"$numberLong":"5"},"b":[{"$oid":"507f1f77bcf86cd799439011"}]}"#),
    // Evaluation errors.
    ("ObjectId('xyz')", "error: 1:1: ObjectId: input must be a 24 character hex string"),
    ("NumberLong('12x')", "error: 1:1: NumberLong: '12x' is not a valid 64-bit integer"),
    ("NumberDecimal('1.2.3')", "error: 1:1: NumberDecimal: '1.2.3' is not a valid Decimal128 string"),
    ("NumberDecimal('12345678901234567890123456789012345')", "error: 1:1: NumberDecimal: '12345678901234567890123456789012345' is not a valid Decimal128 string"),
    ("ISODate('2020-02-30')", "error: 1:1: ISODate: '2020-02-30' is not a valid ISO date"),
    ("Timestamp(-1, 0)", "error: 1:1: Timestamp: t must be an integer from 0 to 4294967295"),
    ("UUID('0123')", "error: 1:1: UUID: UUID must be a 32 hex digit string, with or without dashes"),
    ("/a/q", "error: 1:1: RegExp: Invalid regular expression flags 'q'"),
    ("{x: {$numberLong: 'abc'}}", "error: 1:5: invalid Extended JSON $numberLong: 'abc' is not an int64"),
    ("{$numberInt: '3000000000'}", "error: 1:1: invalid Extended JSON $numberInt: '3000000000' is not an int32"),
    ("{$oid: 5}", "error: 1:1: invalid Extended JSON $oid: expected a string"),
    ("{$binary: {base64: '!!', subType: '00'}}", "error: 1:1: invalid Extended JSON $binary: invalid base64"),
    ("{$timestamp: {t: 1}}", "error: 1:1: invalid Extended JSON $timestamp: expected {t, i}"),
    ("foo", "error: 1:1: ReferenceError: foo is not defined"),
    ("{a: bar}", "error: 1:5: ReferenceError: bar is not defined"),
    ("db.c.find()", "error: 1:1: db.c.find() is not a value"),
    ("[1, sh.status()]", "error: 1:5: sh.status() is not a value"),
    ("-'x'", "error: 1:1: TypeError: unary - needs a number"),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn literals_evaluate_to_bson() {
    let mut failures = Vec::new();
    for (src, want) in LITERALS {
        let got = ejson_of(src);
        if got != *want {
            failures.push(format!("{src}\n   want {want}\n    got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Renders a statement as its flattened chain, with values as canonical EJSON.
fn render(src: &str) -> Vec<String> {
    let script = match parse_script(src) {
        Ok(s) => s,
        Err(e) => return vec![format!("error: {e}")],
    };
    script
        .statements
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Use { db } => format!("use {db}"),
            StmtKind::Show { what, arg } => format!("show {what} {arg:?}"),
            StmtKind::Declare { kind, name, init } => {
                format!(
                    "{kind:?} {name} = {}",
                    init.as_ref().map_or("-".into(), chain)
                )
            }
            StmtKind::Assign { name, value } => format!("{name} = {}", chain(value)),
            StmtKind::Expr(e) => chain(e),
            StmtKind::Js(js) => format!("js {js:?}"),
        })
        .collect()
}

fn chain(e: &Expr) -> String {
    let Some(segments) = flatten(e) else {
        return match shardlab::shell::eval_value(e, &mut ctx()) {
            Ok(v) => to_canonical_ejson(&v),
            Err(err) => format!("<{err}>"),
        };
    };
    segments
        .iter()
        .map(|s| match &s.args {
            None => s.name.clone(),
            Some(args) => format!(
                "{}({})",
                s.name,
                args.iter().map(chain).collect::<Vec<_>>().join(", ")
            ),
        })
        .collect::<Vec<_>>()
        .join(" . ")
}

/// Script text and its statements rendered by [`render`].
const SCRIPTS: &[(&str, &[&str])] = &[
    ("sh.status()", &["sh . status()"]),
    ("use test\ndb.c.find()", &["use test", "db . c . find()"]),
    ("use my-db; show dbs", &["use my-db", "show dbs None"]),
    ("show collections\nshow profile 5", &["show collections None", "show profile Some(\"5\")"]),
    (
        "db.c.find({\n  x: 1\n})",
        &[r#"db . c . find({"x":{"$numberInt":"1"}})"#],
    ),
    (
        "db.coll.find({x: 1}).sort({x: 1}).limit(5)",
        &[r#"db . coll . find({"x":{"$numberInt":"1"}}) . sort({"x":{"$numberInt":"1"}}) . limit({"$numberInt":"5"})"#],
    ),
    (
        "db.c.find()\n  .sort({x: -1})\n\n  .limit(2)\nsh.status()",
        &[
            r#"db . c . find() . sort({"x":{"$numberInt":"-1"}}) . limit({"$numberInt":"2"})"#,
            "sh . status()",
        ],
    ),
    ("db.c.find().\n  limit(2)", &[r#"db . c . find() . limit({"$numberInt":"2"})"#]),
    ("db.c.find()?.limit(1)", &[r#"db . c . find() . limit({"$numberInt":"1"})"#]),
    (
        "db.getSiblingDB(\"x\").coll.insertOne({})",
        &[r#"db . getSiblingDB("x") . coll . insertOne({})"#],
    ),
    (r#"db["weird-name"].find()"#, &["db . weird-name . find()"]),
    ("db.getCollection('c').drop()", &[r#"db . getCollection("c") . drop()"#]),
    (
        "db.adminCommand({ shardCollection: 'test.c', key: { x: 'hashed' } })",
        &[r#"db . adminCommand({"shardCollection":"test.c","key":{"x":"hashed"}})"#],
    ),
    ("convertShardKeyToHashed(5)", &[r#"convertShardKeyToHashed({"$numberInt":"5"})"#]),
    (
        "sim.generate(\"test.c\", {x: {$seq: 1}}, 1000)",
        &[r#"sim . generate("test.c", {"x":{"$seq":{"$numberInt":"1"}}}, {"$numberInt":"1000"})"#],
    ),
    (
        "// a comment\nsh.status() /* inline\n comment */ db.c.drop() // trailing",
        &["sh . status()", "db . c . drop()"],
    ),
    (
        "var x = 5\nconst y = {a: 1}; let z\nx = NumberLong(2)",
        &[
            r#"Var x = {"$numberInt":"5"}"#,
            r#"Const y = {"a":{"$numberInt":"1"}}"#,
            "Let z = -",
            r#"x = NumberLong({"$numberInt":"2"})"#,
        ],
    ),
    ("db.c.find({a: 1 +\n 2})\n(1)", &[r#"db . c . find({"a":{"$numberInt":"3"}})"#, r#"{"$numberInt":"1"}"#]),
    ("db.c.find({name: /^a/i})", &[r#"db . c . find({"name":{"$regularExpression":{"pattern":"^a","options":"i"}}})"#]),
    ("x = 10 / 2 / 5", &[r#"x = {"$numberInt":"1"}"#]),
    ("new Date().getTime()", &["<1:1: new Date().getTime() is not a value>"]),
    ("\n\n;;\n", &[]),
    // Errors carry line and column.
    ("db.c.find({x: 1)", &["error: 1:16: SyntaxError: Unexpected token ')', expected ',' or '}'"]),
    ("db.c.find(", &["error: 1:11: SyntaxError: Unexpected end of input, expected an expression"]),
    ("{a: 'abc", &["error: 1:5: SyntaxError: Unterminated string constant"]),
    ("db.c.find({\n  x: @\n})", &["error: 2:6: SyntaxError: '@' is not supported by this shell"]),
    ("/* open", &["error: 1:1: SyntaxError: Unterminated comment"]),
    ("1 2", &["error: 1:3: SyntaxError: Unexpected token '2', expected ';' or a line break"]),
    ("db.c.insertOne({a: 1} {b: 2})", &["error: 1:23: SyntaxError: Unexpected token '{', expected ',' or ')'"]),
    ("x = 3in", &["error: 1:5: SyntaxError: Invalid number '3in'"]),
    ("'\\uZZ'", &["error: 1:2: SyntaxError: Invalid escape sequence in string: expected 4 hex digits"]),
    ("a ** b", &["error: 1:3: SyntaxError: '**' is not supported by this shell"]),
    ("use", &["error: 1:1: MongoshInvalidInputError: Missing required argument for 'use'"]),
    ("db.c.find({x() {}})", &["error: 1:12: SyntaxError: 'shorthand properties and methods' is not supported by this shell"]),
    ("[1,,2]", &["error: 1:4: SyntaxError: 'array holes' is not supported by this shell"]),
    ("db.c.\nfind(", &["error: 2:6: SyntaxError: Unexpected end of input, expected an expression"]),
    ("x = /abc", &["error: 1:5: SyntaxError: Unterminated regexp literal"]),
    ("class A {}", &["error: 1:1: SyntaxError: 'class' is not supported by this shell"]),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn scripts_parse_into_statements() {
    let mut failures = Vec::new();
    for (src, want) in SCRIPTS {
        let got = render(src);
        if got != *want {
            failures.push(format!("{src:?}\n   want {want:?}\n    got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = "[".repeat(100_000);
    let err = parse_script(&src).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:65: SyntaxError: expression nested too deeply"
    );
    let src = "-".repeat(100_000) + "1";
    assert!(parse_script(&src).is_err());
    let ok = "[".repeat(63) + &"]".repeat(63);
    assert!(parse_script(&ok).is_ok());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn recovering_parse_keeps_good_statements() {
    let (script, errors) =
        parse_script_recovering("sh.status()\ndb.c.find({x: 1)\ndb.c.count()\n1 +\n");
    assert_eq!(script.statements.len(), 2);
    let msgs: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        msgs,
        [
            "2:16: SyntaxError: Unexpected token ')', expected ',' or '}'",
            "5:1: SyntaxError: Unexpected end of input, expected an expression",
        ]
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn variables_are_read_back() {
    let mut c = ctx();
    c.variables
        .insert("d", parse_value("{a: {b: [1, 2]}}", &mut ctx()).unwrap());
    let got = parse_value("[d.a.b[1], d['a'].b.length, d.missing]", &mut c).unwrap();
    assert_eq!(
        to_canonical_ejson(&got),
        r#"[{"$numberInt":"2"},{"$numberInt":"2"},{"$undefined":true}]"#
    );
}

/// Extended JSON text and the canonical form of its value.
const EJSON_IN: &[(&str, &str)] = &[
    (
        r#"{"a": 1, "b": 3000000000, "c": 1.0, "d": -5, "e": 1e2}"#,
        r#"{"a":{"$numberInt":"1"},"b":{"$numberLong":"3000000000"},"c":{"$numberDouble":"1.0"},"d":{"$numberInt":"-5"},"e":{"$numberDouble":"100.0"}}"#,
    ),
    (
        r#"{"b": 1, "2": 2, "1": 3}"#,
        r#"{"b":{"$numberInt":"1"},"2":{"$numberInt":"2"},"1":{"$numberInt":"3"}}"#,
    ),
    (
        r#"{"n": 99999999999999999999}"#,
        r#"{"n":{"$numberDouble":"100000000000000000000.0"}}"#,
    ),
    (
        r#"{"d": {"$date": "2020-01-01T00:00:00Z"}}"#,
        r#"{"d":{"$date":{"$numberLong":"1577836800000"}}}"#,
    ),
    (
        r#"[{"$numberLong": "1"}, {"$minKey": 1}]"#,
        r#"[{"$numberLong":"1"},{"$minKey":1}]"#,
    ),
];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn ejson_text_parses() {
    for (src, want) in EJSON_IN {
        let v = parse_ejson(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(to_canonical_ejson(&v), *want, "{src}");
    }
    let err = parse_ejson("ObjectId('507f1f77bcf86cd799439011')").unwrap_err();
    assert_eq!(err.to_string(), "1:1: not valid Extended JSON: ObjectId()");
    let err = parse_ejson("{\"a\": 1,\n \"b\": }").unwrap_err();
    assert_eq!(
        err.to_string(),
        "2:7: SyntaxError: Unexpected token '}', expected an expression"
    );
}

// ---------------------------------------------------------------------------
// Properties.

fn leaf() -> impl Strategy<Value = Bson> {
    let key_string = "[a-zA-Z0-9 _$'\"`\\\\\n\t\u{0}-\u{1f}é😀]{0,12}";
    prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        any::<f64>().prop_map(Bson::Double),
        prop_oneof![
            Just(0.5f64),
            Just(-0.0),
            Just(1e21),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(-1e-7)
        ]
        .prop_map(Bson::Double),
        key_string.prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::Undefined),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(bson::oid::ObjectId::from_bytes(b))),
        (-8_640_000_000_000_000i64..=8_640_000_000_000_000i64)
            .prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        any::<i64>().prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(bson::Timestamp { time, increment })),
        (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..20)).prop_map(|(st, bytes)| {
            Bson::Binary(bson::Binary {
                subtype: bson::spec::BinarySubtype::from(st),
                bytes,
            })
        }),
        proptest::collection::vec(any::<u8>(), 16).prop_map(|bytes| Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Uuid,
            bytes,
        })),
        ("-?[0-9]{1,34}", -6176i32..6111, any::<bool>()).prop_filter_map(
            "representable decimal",
            |(digits, exp, _)| {
                let s = format!("{digits}E{exp}");
                s.parse::<bson::Decimal128>().ok().map(Bson::Decimal128)
            }
        ),
        prop_oneof![
            Just("NaN"),
            Just("Infinity"),
            Just("-Infinity"),
            Just("-0"),
            Just("1.50")
        ]
        .prop_map(|s| Bson::Decimal128(s.parse().unwrap())),
        ("[a-z][a-z0-9.*^$+?| ]{0,9}", "i?l?m?s?u?x?").prop_map(|(p, o)| {
            Bson::RegularExpression(bson::Regex {
                pattern: p.try_into().unwrap(),
                options: o.try_into().unwrap(),
            })
        }),
        key_string.prop_map(Bson::JavaScriptCode),
        key_string.prop_map(Bson::Symbol),
    ]
}

fn arb_bson() -> impl Strategy<Value = Bson> {
    let key = "[a-zA-Z0-9 _$.'\"é-]{0,8}";
    leaf().prop_recursive(4, 40, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Bson::Array),
            proptest::collection::vec((key, inner.clone()), 0..8)
                .prop_map(|kvs| { Bson::Document(kvs.into_iter().collect()) }),
            (key, proptest::collection::vec((key, inner), 0..4)).prop_map(|(code, kvs)| {
                Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                    code,
                    scope: kvs.into_iter().collect(),
                })
            }),
        ]
    })
}

/// What mongosh's printed form can carry: a Double that is integral and fits in 32 bits
/// prints like an Int32 and reads back as one; documents take JavaScript's key order.
fn as_mongosh_sees_it(v: &Bson) -> Bson {
    match v {
        Bson::Double(d) => shardlab::shell::js_number(*d),
        Bson::Array(a) => Bson::Array(a.iter().map(as_mongosh_sees_it).collect()),
        Bson::Document(d) => Bson::Document(shardlab::shell::js_key_order(
            d.iter()
                .map(|(k, v)| (k.clone(), as_mongosh_sees_it(v)))
                .collect(),
        )),
        Bson::JavaScriptCodeWithScope(c) => {
            Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                code: c.code.clone(),
                scope: shardlab::shell::js_key_order(
                    c.scope
                        .iter()
                        .map(|(k, v)| (k.clone(), as_mongosh_sees_it(v)))
                        .collect(),
                ),
            })
        }
        other => other.clone(),
    }
}

/// Whether a document is a `{$ref, $id}` DBRef or an Extended JSON wrapper shape, which
/// read back as something else; the generator avoids them.
fn has_special_shapes(v: &Bson) -> bool {
    match v {
        Bson::Array(a) => a.iter().any(has_special_shapes),
        Bson::Document(d) => {
            d.keys().next().is_some_and(|k| k.starts_with('$'))
                || d.values().any(has_special_shapes)
        }
        Bson::JavaScriptCodeWithScope(c) => {
            c.scope.keys().next().is_some_and(|k| k.starts_with('$'))
                || c.scope.values().any(has_special_shapes)
        }
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn printed_values_parse_back(v in arb_bson()) {
        prop_assume!(!has_special_shapes(&v));
        let printed = format_value_with(&v, &FormatOptions::lossless());
        let back = parse_value(&printed, &mut ctx())
            .map_err(|e| TestCaseError::fail(format!("{printed}\n{e}")))?;
        prop_assert_eq!(
            to_canonical_ejson(&back),
            to_canonical_ejson(&as_mongosh_sees_it(&v)),
            "printed: {}", printed
        );
    }

    #[test]
    fn canonical_ejson_parses_back(v in arb_bson()) {
        prop_assume!(!has_special_shapes(&v));
        let text = to_canonical_ejson(&v);
        let back = parse_ejson(&text)
            .map_err(|e| TestCaseError::fail(format!("{text}\n{e}")))?;
        prop_assert_eq!(to_canonical_ejson(&back), text);
    }

    #[test]
    fn parser_never_panics(s in "\\PC{0,60}") {
        let _ = parse_script(&s);
        let _ = parse_script_recovering(&s);
        let _ = parse_value(&s, &mut ctx());
        let _ = parse_ejson(&s);
    }

    #[test]
    fn parser_never_panics_on_shell_like_input(
        s in "[a-z.(){}\\[\\]:,;'\"/\\\\ \n0-9$+*%-=!?`]{0,40}"
    ) {
        let _ = parse_script(&s);
        let _ = parse_script_recovering(&s);
        let _ = parse_value(&s, &mut ctx());
        let _ = parse_ejson(&s);
    }
}
