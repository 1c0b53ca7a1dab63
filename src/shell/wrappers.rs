//! Extended JSON v2 type wrappers inside object literals (`{$numberLong: "5"}`,
//! `{$date: ...}`, `{$binary: {...}}`, ...): one function per wrapper kind, found through
//! a table by the wrapper's key.

use super::context::EvalError;
use super::lexer::Span;
use super::literals::{
    bson_regex, parse_decimal128, parse_double_string, parse_oid, parse_uuid, strict_int,
};
use crate::values::encoding::{parse_iso, BASE64};
use crate::values::js::make_db_pointer;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document, JavaScriptCodeWithScope, Timestamp};

/// Converts the value of a one-key wrapper; the key is passed for error messages.
type Wrapper = fn(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError>;

/// The one-key wrappers, by key.
const ONE_KEY_WRAPPERS: &[(&str, Wrapper)] = &[
    ("$numberInt", number_int),
    ("$numberLong", number_long),
    ("$numberDouble", number_double),
    ("$numberDecimal", number_decimal),
    ("$oid", oid),
    ("$symbol", symbol),
    ("$code", code),
    ("$date", date),
    ("$minKey", min_max_key),
    ("$maxKey", min_max_key),
    ("$undefined", undefined),
    ("$uuid", uuid),
    ("$binary", binary),
    ("$regularExpression", regular_expression),
    ("$timestamp", timestamp),
    ("$dbPointer", db_pointer),
];

/// Turns an Extended JSON v2 type wrapper into its value; any other document is
/// returned unchanged. Only exact wrapper shapes count, so query operators such as
/// `{$gt: 5}` or `{$regex: "a", $options: "i"}` stay documents.
pub fn convert_wrapper(doc: Document, span: Span) -> Result<Bson, EvalError> {
    let Some(first) = doc.keys().next() else {
        return Ok(Bson::Document(doc));
    };
    if !first.starts_with('$') || doc.len() > 2 {
        return Ok(Bson::Document(doc));
    }
    if doc.len() == 1 {
        let key = first.as_str();
        let Some((_, convert)) = ONE_KEY_WRAPPERS.iter().find(|(k, _)| *k == key) else {
            return Ok(Bson::Document(doc));
        };
        let value = doc.get(key).unwrap_or(&Bson::Null);
        return convert(key, value, span);
    }
    // Two-key wrappers.
    let str_of = |key: &str| wrapper_str(key, doc.get(key).unwrap_or(&Bson::Null), span);
    if keys_are(&doc, &["$code", "$scope"]) {
        let code = str_of("$code")?.to_string();
        let Ok(scope) = doc.get_document("$scope") else {
            return Err(bad_wrapper("$scope", "expected a document", span));
        };
        return Ok(Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
            code,
            scope: scope.clone(),
        }));
    }
    if keys_are(&doc, &["$binary", "$type"]) {
        let b64 = str_of("$binary")?;
        let st = str_of("$type")?;
        return binary_from(b64, st, "$binary", span);
    }
    Ok(Bson::Document(doc))
}

fn bad_wrapper(key: &str, detail: impl Into<String>, span: Span) -> EvalError {
    EvalError::BadWrapper {
        key: key.to_string(),
        detail: detail.into(),
        span,
    }
}

/// A wrapper's value that must be a string.
fn wrapper_str<'a>(key: &str, value: &'a Bson, span: Span) -> Result<&'a str, EvalError> {
    value
        .as_str()
        .ok_or_else(|| bad_wrapper(key, "expected a string", span))
}

/// A wrapper's value that must be a document with exactly `keys`; `shape` says so in
/// the error.
fn wrapper_doc<'a>(
    key: &str,
    value: &'a Bson,
    keys: &[&str],
    shape: &str,
    span: Span,
) -> Result<&'a Document, EvalError> {
    match value {
        Bson::Document(inner) if keys_are(inner, keys) => Ok(inner),
        _ => Err(bad_wrapper(key, shape, span)),
    }
}

/// An integral number in a wrapper field (`t`, `i`, `$date`), from any numeric type.
fn integral(v: &Bson) -> Option<i64> {
    match v {
        Bson::Int32(i) => Some(i64::from(*i)),
        Bson::Int64(i) => Some(*i),
        Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.3e18 => Some(*d as i64),
        _ => None,
    }
}

fn keys_are(doc: &Document, keys: &[&str]) -> bool {
    doc.len() == keys.len() && keys.iter().all(|k| doc.contains_key(k))
}

/// `{$numberInt: "5"}`.
fn number_int(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    strict_int(s)
        .and_then(|v| i32::try_from(v).ok())
        .map(Bson::Int32)
        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not an int32"), span))
}

/// `{$numberLong: "5"}`.
fn number_long(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    strict_int(s)
        .map(Bson::Int64)
        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not an int64"), span))
}

/// `{$numberDouble: "1.5"}`, also `"NaN"` and the infinities.
fn number_double(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    parse_double_string(s)
        .map(Bson::Double)
        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not a double"), span))
}

/// `{$numberDecimal: "1.5"}`.
fn number_decimal(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    parse_decimal128(s)
        .map(Bson::Decimal128)
        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not a decimal"), span))
}

/// `{$oid: "<24 hex digits>"}`.
fn oid(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    parse_oid(s)
        .map(Bson::ObjectId)
        .ok_or_else(|| bad_wrapper(key, "expected 24 hexadecimal characters", span))
}

/// `{$symbol: "..."}`.
fn symbol(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    Ok(Bson::Symbol(wrapper_str(key, value, span)?.to_string()))
}

/// `{$code: "..."}` without a scope.
fn code(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    Ok(Bson::JavaScriptCode(
        wrapper_str(key, value, span)?.to_string(),
    ))
}

/// `{$date: "<ISO-8601>"}` or `{$date: <milliseconds>}` (a `$numberLong` included).
fn date(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let ms = match value {
        Bson::String(s) => parse_iso(s)
            .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not an ISO date"), span))?,
        other => integral(other)
            .ok_or_else(|| bad_wrapper(key, "expected {$numberLong} or a string", span))?,
    };
    Ok(Bson::DateTime(DateTime::from_millis(ms)))
}

/// `{$minKey: 1}` and `{$maxKey: 1}`.
fn min_max_key(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    if integral(value) != Some(1) {
        return Err(bad_wrapper(key, "expected 1", span));
    }
    Ok(if key == "$minKey" {
        Bson::MinKey
    } else {
        Bson::MaxKey
    })
}

/// `{$undefined: true}`.
fn undefined(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    if *value != Bson::Boolean(true) {
        return Err(bad_wrapper(key, "expected true", span));
    }
    Ok(Bson::Undefined)
}

/// `{$uuid: "<dashed UUID>"}`.
fn uuid(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let s = wrapper_str(key, value, span)?;
    let bytes = parse_uuid(s)
        .filter(|_| s.len() == 36)
        .ok_or_else(|| bad_wrapper(key, "expected a dashed UUID string", span))?;
    Ok(Bson::Binary(Binary {
        subtype: BinarySubtype::Uuid,
        bytes,
    }))
}

/// `{$binary: {base64, subType}}`.
fn binary(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let shape = "expected {base64, subType}";
    let inner = wrapper_doc(key, value, &["base64", "subType"], shape, span)?;
    let b64 = inner
        .get_str("base64")
        .map_err(|_| bad_wrapper(key, "base64 must be a string", span))?;
    let st = inner
        .get_str("subType")
        .map_err(|_| bad_wrapper(key, "subType must be a string", span))?;
    binary_from(b64, st, key, span)
}

/// `{$regularExpression: {pattern, options}}`.
fn regular_expression(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let shape = "expected {pattern, options}";
    let inner = wrapper_doc(key, value, &["pattern", "options"], shape, span)?;
    let (Ok(p), Ok(o)) = (inner.get_str("pattern"), inner.get_str("options")) else {
        return Err(bad_wrapper(
            key,
            "pattern and options must be strings",
            span,
        ));
    };
    if !o.chars().all(|c| "ilmsux".contains(c)) {
        return Err(bad_wrapper(key, format!("invalid options '{o}'"), span));
    }
    Ok(Bson::RegularExpression(
        bson_regex(p, o).map_err(|e| bad_wrapper(key, e, span))?,
    ))
}

/// `{$timestamp: {t, i}}`.
fn timestamp(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let inner = wrapper_doc(key, value, &["t", "i"], "expected {t, i}", span)?;
    let part = |k: &str| {
        inner
            .get(k)
            .and_then(integral)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| bad_wrapper(key, format!("{k} must be a uint32"), span))
    };
    Ok(Bson::Timestamp(Timestamp {
        time: part("t")?,
        increment: part("i")?,
    }))
}

/// `{$dbPointer: {$ref, $id}}`.
fn db_pointer(key: &str, value: &Bson, span: Span) -> Result<Bson, EvalError> {
    let inner = wrapper_doc(key, value, &["$ref", "$id"], "expected {$ref, $id}", span)?;
    let (Ok(ns), Ok(id)) = (inner.get_str("$ref"), inner.get_object_id("$id")) else {
        return Err(bad_wrapper(
            key,
            "expected a string $ref and an ObjectId $id",
            span,
        ));
    };
    make_db_pointer(ns, id)
        .ok_or_else(|| bad_wrapper(key, "namespace contains a NUL character", span))
}

/// Binary data from base64 text and a subtype in hex, for both `$binary` forms.
fn binary_from(b64: &str, subtype_hex: &str, key: &str, span: Span) -> Result<Bson, EvalError> {
    let bytes = BASE64
        .decode(b64)
        .map_err(|_| bad_wrapper(key, "invalid base64", span))?;
    if subtype_hex.is_empty() || subtype_hex.len() > 2 {
        return Err(bad_wrapper(
            key,
            "subType must be one or two hex digits",
            span,
        ));
    }
    let st = u8::from_str_radix(subtype_hex, 16)
        .map_err(|_| bad_wrapper(key, "subType must be one or two hex digits", span))?;
    Ok(Bson::Binary(Binary {
        subtype: BinarySubtype::from(st),
        bytes,
    }))
}
