//! What JavaScript makes of values, as mongosh shows them: the text of a Number
//! (`Number.prototype.toString`), the key order of an object, and the DBPointer wrapper.

use bson::oid::ObjectId;
use bson::{Bson, Document};

/// The BSON value the driver stores for a JavaScript number: Int32 when integral,
/// not `-0` and within 32 bits, otherwise Double.
pub fn js_number(v: f64) -> Bson {
    if v.fract() == 0.0
        && !(v == 0.0 && v.is_sign_negative())
        && v >= f64::from(i32::MIN)
        && v <= f64::from(i32::MAX)
    {
        Bson::Int32(v as i32)
    } else {
        Bson::Double(v)
    }
}

/// Formats a number as JavaScript's `Number.prototype.toString()` does
/// (`1`, `2.5`, `1e+21`, `1e-7`, `NaN`, `-Infinity`; `-0` prints as `0`).
pub fn js_number_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if v < 0.0 { "-" } else { "" };
    // Rust's `{:e}` gives the shortest digits that round-trip, like ECMAScript's.
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let e: i64 = exp.parse().unwrap_or(0);
    let k = digits.len() as i64;
    let n = e + 1;
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let exp = n - 1;
        let sign = if exp >= 0 { '+' } else { '-' };
        if k == 1 {
            format!("{digits}e{sign}{}", exp.abs())
        } else {
            format!("{}.{}e{sign}{}", &digits[..1], &digits[1..], exp.abs())
        }
    };
    format!("{sign}{body}")
}

/// Whether `key` is a JavaScript array index ("0", "1", ... up to 2^32 - 2).
fn is_array_index(key: &str) -> bool {
    !key.is_empty()
        && key.bytes().all(|c| c.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'))
        && key.parse::<u64>().is_ok_and(|n| n < 4_294_967_295)
}

/// Reorders a document's keys as a JavaScript object orders its properties: array
/// indices first in numeric order, then the other keys in insertion order.
pub fn js_key_order(doc: Document) -> Document {
    if !doc.keys().any(|k| is_array_index(k)) {
        return doc;
    }
    let mut ints: Vec<(u64, String, Bson)> = Vec::new();
    let mut rest: Vec<(String, Bson)> = Vec::new();
    for (k, v) in doc {
        if is_array_index(&k) {
            ints.push((k.parse().unwrap_or(0), k, v));
        } else {
            rest.push((k, v));
        }
    }
    ints.sort_by_key(|(n, _, _)| *n);
    let mut out = Document::new();
    for (_, k, v) in ints {
        out.insert(k, v);
    }
    for (k, v) in rest {
        out.insert(k, v);
    }
    out
}

/// Builds a DBPointer (whose fields bson keeps private) by decoding raw BSON bytes.
pub fn make_db_pointer(namespace: &str, id: ObjectId) -> Option<Bson> {
    let ns = namespace.as_bytes();
    if ns.contains(&0) {
        return None;
    }
    let str_len = i32::try_from(ns.len() + 1).ok()?;
    let mut body = vec![0x0c, b'p', 0];
    body.extend_from_slice(&str_len.to_le_bytes());
    body.extend_from_slice(ns);
    body.push(0);
    body.extend_from_slice(&id.bytes());
    body.push(0);
    let total = i32::try_from(body.len() + 4).ok()?;
    let mut bytes = total.to_le_bytes().to_vec();
    bytes.extend_from_slice(&body);
    let doc = Document::from_reader(bytes.as_slice()).ok()?;
    doc.get("p").cloned()
}

/// A DBPointer's namespace and id (`None` for any other value).
pub fn db_pointer_parts(value: &Bson) -> Option<(String, ObjectId)> {
    match value {
        Bson::DbPointer(p) => {
            crate::values::order::db_pointer_parts(p).map(|(ns, id)| (ns, ObjectId::from_bytes(id)))
        }
        _ => None,
    }
}

/// What JavaScript's `typeof` answers for a shell value: mongosh's BSON values other
/// than strings, numbers and booleans (`Long`, `ObjectId`, dates, `null`, ...) are
/// objects.
pub fn js_typeof(value: &Bson) -> &'static str {
    match value {
        Bson::String(_) => "string",
        Bson::Int32(_) | Bson::Double(_) => "number",
        Bson::Boolean(_) => "boolean",
        Bson::Undefined => "undefined",
        _ => "object",
    }
}
