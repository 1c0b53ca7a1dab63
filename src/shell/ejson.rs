//! Canonical Extended JSON v2: output and parsing.
//!
//! Output is compact (no spaces), keeps key order, and spells every value with its
//! type wrapper, as the Extended JSON specification's canonical mode requires.
//! Doubles follow js-bson (the library inside mongosh): integral values as
//! `Number.prototype.toFixed(1)` (`"1.0"`, `"1e+21"` past 10^21), others as
//! `Number.prototype.toString()` (`"2.5"`, `"1e-7"`), and `"-0.0"`, `"NaN"`,
//! `"Infinity"`, `"-Infinity"`. Strings are escaped as `JSON.stringify` does.

use super::context::EvalError;
use super::ejson_strict::parse_strict_json;
use super::eval::eval_json;
use super::parser::{parse_expression, ParseError};
use crate::values::encoding::{hex_encode, BASE64};
use crate::values::js::{db_pointer_parts, js_number_to_string};
use bson::{Bson, Document};
use std::fmt::Write;
use thiserror::Error;

/// Why Extended JSON text could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EjsonError {
    /// The text is not valid JSON syntax.
    #[error(transparent)]
    Syntax(#[from] ParseError),
    /// The JSON is valid but a value or wrapper in it is not.
    #[error(transparent)]
    Value(#[from] EvalError),
}

/// Formats a value as compact canonical Extended JSON v2.
pub fn to_canonical_ejson(value: &Bson) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Formats a document as compact canonical Extended JSON v2.
pub fn document_to_canonical_ejson(doc: &Document) -> String {
    let mut out = String::new();
    write_document(&mut out, doc);
    out
}

/// Formats a value as compact relaxed Extended JSON v2: numbers JavaScript holds exactly
/// as plain JSON numbers, the other types wrapped as [`to_relaxed_tree`] wraps them.
pub fn to_relaxed_ejson(value: &Bson) -> String {
    let mut out = String::new();
    write_relaxed(&mut out, &to_relaxed_tree(value));
    out
}

/// Writes a tree [`to_relaxed_tree`] made: its finite doubles and safe integers plain.
fn write_relaxed(out: &mut String, value: &Bson) {
    match value {
        Bson::Double(d) if d.is_finite() => out.push_str(&js_number_to_string(*d)),
        Bson::Int64(i) => {
            let _ = write!(out, "{i}");
        }
        Bson::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_relaxed(out, v);
            }
            out.push(']');
        }
        Bson::Document(d) => {
            out.push('{');
            for (i, (k, v)) in d.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, k);
                out.push(':');
                write_relaxed(out, v);
            }
            out.push('}');
        }
        other => write_value(out, other),
    }
}

/// Parses Extended JSON (canonical or relaxed) text into a value. Plain JSON integers
/// become Int32, or Int64 when they do not fit; other JSON numbers become Double.
pub fn parse_ejson(text: &str) -> Result<Bson, EjsonError> {
    // Strict JSON (what `mongoexport` writes) is read quickly, to the same value; the
    // shell's reader reads the rest, and says what is wrong with a text neither reads.
    if let Some(value) = parse_strict_json(text) {
        return Ok(value);
    }
    let expr = parse_expression(text)?;
    Ok(eval_json(&expr)?)
}

/// Formats a double as js-bson's canonical `$numberDouble` string.
pub fn canonical_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 && v.is_sign_negative() {
        return "-0.0".into();
    }
    if v.fract() == 0.0 {
        // `toFixed(1)` switches to `toString()` from 1e21 on.
        if v.abs() >= 1e21 {
            return js_number_to_string(v);
        }
        return format!("{v:.1}");
    }
    js_number_to_string(v)
}

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` does.
pub fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_document(out: &mut String, doc: &Document) {
    out.push('{');
    for (i, (k, v)) in doc.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

fn wrap(out: &mut String, key: &str, inner: impl FnOnce(&mut String)) {
    out.push_str("{\"");
    out.push_str(key);
    out.push_str("\":");
    inner(out);
    out.push('}');
}

fn write_value(out: &mut String, value: &Bson) {
    match value {
        Bson::Double(d) => wrap(out, "$numberDouble", |o| {
            write_json_string(o, &canonical_double(*d))
        }),
        Bson::String(s) => write_json_string(out, s),
        Bson::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, v);
            }
            out.push(']');
        }
        Bson::Document(d) => write_document(out, d),
        Bson::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Bson::Null => out.push_str("null"),
        Bson::RegularExpression(r) => wrap(out, "$regularExpression", |o| {
            o.push_str("{\"pattern\":");
            write_json_string(o, r.pattern.as_str());
            o.push_str(",\"options\":");
            let mut opts: Vec<char> = r.options.as_str().chars().collect();
            opts.sort_unstable();
            write_json_string(o, &opts.into_iter().collect::<String>());
            o.push('}');
        }),
        Bson::JavaScriptCode(c) => wrap(out, "$code", |o| write_json_string(o, c)),
        Bson::JavaScriptCodeWithScope(c) => {
            out.push_str("{\"$code\":");
            write_json_string(out, &c.code);
            out.push_str(",\"$scope\":");
            write_document(out, &c.scope);
            out.push('}');
        }
        Bson::Int32(i) => wrap(out, "$numberInt", |o| {
            let _ = write!(o, "\"{i}\"");
        }),
        Bson::Int64(i) => wrap(out, "$numberLong", |o| {
            let _ = write!(o, "\"{i}\"");
        }),
        Bson::Timestamp(t) => wrap(out, "$timestamp", |o| {
            let _ = write!(o, "{{\"t\":{},\"i\":{}}}", t.time, t.increment);
        }),
        Bson::Binary(b) => wrap(out, "$binary", |o| {
            let _ = write!(
                o,
                "{{\"base64\":\"{}\",\"subType\":\"{}\"}}",
                BASE64.encode(&b.bytes),
                hex_encode(&[u8::from(b.subtype)])
            );
        }),
        Bson::ObjectId(id) => wrap(out, "$oid", |o| {
            let _ = write!(o, "\"{}\"", id.to_hex());
        }),
        Bson::DateTime(d) => wrap(out, "$date", |o| {
            let _ = write!(o, "{{\"$numberLong\":\"{}\"}}", d.timestamp_millis());
        }),
        Bson::Symbol(s) => wrap(out, "$symbol", |o| write_json_string(o, s)),
        Bson::Decimal128(d) => wrap(out, "$numberDecimal", |o| {
            let _ = write!(o, "\"{}\"", crate::values::decimal::Decimal::from_bson(d));
        }),
        Bson::Undefined => out.push_str("{\"$undefined\":true}"),
        Bson::MaxKey => out.push_str("{\"$maxKey\":1}"),
        Bson::MinKey => out.push_str("{\"$minKey\":1}"),
        Bson::DbPointer(_) => {
            // Not `unwrap_or_default`: `ObjectId::default()` generates a random id, which
            // would pull an RNG into the build for a branch that never runs.
            let (ns, id) = db_pointer_parts(value)
                .unwrap_or_else(|| (String::new(), bson::oid::ObjectId::from_bytes([0; 12])));
            wrap(out, "$dbPointer", |o| {
                o.push_str("{\"$ref\":");
                write_json_string(o, &ns);
                let _ = write!(o, ",\"$id\":{{\"$oid\":\"{}\"}}}}", id.to_hex());
            });
        }
    }
}

/// A value in relaxed Extended JSON v2, as a tree of the types JSON has: documents,
/// arrays, strings, booleans, null, and numbers as `Double` (integers as `Int64` within
/// ±(2^53 − 1), the integers a JavaScript number holds exactly). The types JavaScript
/// lacks keep their wrappers, as `EJSON.serialize(v, {relaxed: true})` writes them:
/// `{$oid}`, `{$numberDecimal}`, `{$date: "<ISO>"}` (years 1970 to 9999, else
/// `{$date: {$numberLong}}`), `{$numberDouble}` for NaN and ±Infinity, and the others as in
/// canonical mode. An Int64 beyond a JavaScript number's exact range stays
/// `{$numberLong}`, so no digit is lost.
pub fn to_relaxed_tree(value: &Bson) -> Bson {
    const SAFE: i64 = (1 << 53) - 1;
    let wrap = |key: &str, inner: Bson| Bson::Document(bson::doc! { key: inner });
    match value {
        Bson::Double(d) if d.is_finite() => Bson::Double(*d),
        Bson::Double(d) => wrap("$numberDouble", Bson::String(canonical_double(*d))),
        Bson::Int32(i) => Bson::Int64(i64::from(*i)),
        Bson::Int64(i) if (-SAFE..=SAFE).contains(i) => Bson::Int64(*i),
        Bson::Int64(i) => wrap("$numberLong", Bson::String(i.to_string())),
        Bson::String(_) | Bson::Boolean(_) | Bson::Null => value.clone(),
        Bson::Array(a) => Bson::Array(a.iter().map(to_relaxed_tree).collect()),
        Bson::Document(d) => Bson::Document(relaxed_document(d)),
        Bson::DateTime(d) => {
            let ms = d.timestamp_millis();
            // 1970-01-01 to 9999-12-31T23:59:59.999Z.
            if (0..=253_402_300_799_999).contains(&ms) {
                wrap(
                    "$date",
                    Bson::String(crate::values::encoding::format_iso(ms)),
                )
            } else {
                wrap("$date", wrap("$numberLong", Bson::String(ms.to_string())))
            }
        }
        Bson::ObjectId(id) => wrap("$oid", Bson::String(id.to_hex())),
        Bson::Decimal128(d) => wrap(
            "$numberDecimal",
            Bson::String(crate::values::decimal::Decimal::from_bson(d).to_string()),
        ),
        Bson::Timestamp(t) => wrap(
            "$timestamp",
            Bson::Document(bson::doc! { "t": i64::from(t.time), "i": i64::from(t.increment) }),
        ),
        Bson::Binary(b) => wrap(
            "$binary",
            Bson::Document(bson::doc! {
                "base64": BASE64.encode(&b.bytes),
                "subType": hex_encode(&[u8::from(b.subtype)]),
            }),
        ),
        other => relaxed_rare(other),
    }
}

/// The rarer types, whose relaxed form is their canonical one.
fn relaxed_rare(value: &Bson) -> Bson {
    let wrap = |key: &str, inner: Bson| Bson::Document(bson::doc! { key: inner });
    match value {
        Bson::RegularExpression(r) => {
            let mut opts: Vec<char> = r.options.as_str().chars().collect();
            opts.sort_unstable();
            let options: String = opts.into_iter().collect();
            wrap(
                "$regularExpression",
                Bson::Document(bson::doc! { "pattern": r.pattern.as_str(), "options": options }),
            )
        }
        Bson::JavaScriptCode(c) => wrap("$code", Bson::String(c.clone())),
        Bson::JavaScriptCodeWithScope(c) => Bson::Document(bson::doc! {
            "$code": c.code.clone(),
            "$scope": relaxed_document(&c.scope),
        }),
        Bson::Symbol(s) => wrap("$symbol", Bson::String(s.clone())),
        Bson::Undefined => wrap("$undefined", Bson::Boolean(true)),
        Bson::MaxKey => wrap("$maxKey", Bson::Int64(1)),
        Bson::MinKey => wrap("$minKey", Bson::Int64(1)),
        Bson::DbPointer(_) => {
            let (ns, id) = db_pointer_parts(value)
                .unwrap_or_else(|| (String::new(), bson::oid::ObjectId::from_bytes([0; 12])));
            wrap(
                "$dbPointer",
                Bson::Document(bson::doc! { "$ref": ns, "$id": { "$oid": id.to_hex() } }),
            )
        }
        // Every other type is handled by `to_relaxed_tree`.
        other => other.clone(),
    }
}

fn relaxed_document(doc: &Document) -> Document {
    doc.iter()
        .map(|(k, v)| (k.clone(), to_relaxed_tree(v)))
        .collect()
}
