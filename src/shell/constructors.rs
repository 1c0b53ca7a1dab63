//! The mongosh constructors and static helpers (`ObjectId()`, `NumberLong()`,
//! `ISODate()`, `BinData()`, ...): a table from the name called to a small function per
//! constructor, or per group of constructors that read their arguments alike.

use super::context::{EvalContext, EvalError};
use super::lexer::Span;
use super::literals::{
    bson_regex, parse_decimal128, parse_int, parse_oid, parse_uuid, strict_int, to_int32, to_number,
};
use crate::values::encoding::{format_js_date_string, hex_decode, parse_iso, utc_millis, BASE64};
use crate::values::js::{js_number, js_number_to_string};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document, JavaScriptCodeWithScope, Timestamp};

/// One constructor call: the name as called, the evaluated arguments, whether `new` was
/// written (which tells `Date()`, a string, from `new Date()`), and where the call is.
pub(super) struct Call<'a> {
    name: &'a str,
    args: &'a [Bson],
    is_new: bool,
    span: Span,
}

impl Call<'_> {
    /// The argument at `i`, if given.
    fn arg(&self, i: usize) -> Option<&Bson> {
        self.args.get(i)
    }

    /// A `BadArgument` error for this constructor.
    fn bad(&self, detail: impl Into<String>) -> EvalError {
        EvalError::BadArgument {
            func: self.name.to_string(),
            detail: detail.into(),
            span: self.span,
        }
    }

    /// An optional unsigned 32-bit argument (missing, null and undefined read as 0).
    fn u32_arg(&self, v: Option<&Bson>, what: &str) -> Result<u32, EvalError> {
        match v {
            None | Some(Bson::Undefined | Bson::Null) => Ok(0),
            Some(b) => {
                let n = match b {
                    Bson::Int64(i) => *i as f64,
                    other => to_number(other).unwrap_or(f64::NAN),
                };
                if n.fract() != 0.0 || !(0.0..=4_294_967_295.0).contains(&n) {
                    return Err(self.bad(format!("{what} must be an integer from 0 to 4294967295")));
                }
                Ok(n as u32)
            }
        }
    }

    /// A string argument.
    fn str_arg<'b>(&self, v: Option<&'b Bson>, what: &str) -> Result<&'b str, EvalError> {
        match v {
            Some(Bson::String(s)) => Ok(s),
            _ => Err(self.bad(format!("{what} must be a string"))),
        }
    }

    /// A binary subtype argument, 0 to 255 (missing reads as 0).
    fn subtype_arg(&self, v: Option<&Bson>) -> Result<BinarySubtype, EvalError> {
        let n = v.and_then(to_number).unwrap_or(0.0);
        if n.fract() != 0.0 || !(0.0..=255.0).contains(&n) {
            return Err(self.bad("subtype must be an integer from 0 to 255"));
        }
        Ok(BinarySubtype::from(n as u8))
    }
}

/// Evaluates one constructor call.
type Constructor = fn(&Call, &mut EvalContext) -> Result<Bson, EvalError>;

/// Every constructor and static helper, by the name it is called with.
const CONSTRUCTORS: &[(&str, Constructor)] = &[
    ("ObjectId", object_id),
    ("ObjectID", object_id),
    ("ObjectId.createFromHexString", object_id),
    ("NumberInt", int32),
    ("Int32", int32),
    ("NumberLong", int64),
    ("Long", int64),
    ("NumberDecimal", decimal),
    ("Decimal128", decimal),
    ("Double", double),
    ("ISODate", date),
    ("Date", date),
    ("Date.now", date_now),
    ("Timestamp", timestamp),
    ("MinKey", |_, _| Ok(Bson::MinKey)),
    ("MaxKey", |_, _| Ok(Bson::MaxKey)),
    ("BinData", base64_binary),
    ("Binary.createFromBase64", base64_binary),
    ("HexData", hex_binary),
    ("Binary.createFromHexString", hex_binary),
    ("MD5", hex_binary),
    ("UUID", uuid),
    ("Code", code),
    ("BSONSymbol", symbol),
    ("BSONRegExp", regexp),
    ("RegExp", regexp),
    ("DBRef", dbref),
];

/// Whether `name` is a constructor or static helper this module evaluates.
pub(crate) fn is_constructor(name: &str) -> bool {
    CONSTRUCTORS.iter().any(|(n, _)| *n == name)
}

/// Evaluates a constructor call. `is_new` tells `Date()` (a string) from `new Date()`.
pub(crate) fn construct(
    name: &str,
    args: &[Bson],
    is_new: bool,
    ctx: &mut EvalContext,
    span: Span,
) -> Result<Bson, EvalError> {
    let Some((_, constructor)) = CONSTRUCTORS.iter().find(|(n, _)| *n == name) else {
        return Err(EvalError::NotAValue {
            what: format!("{name}()"),
            span,
        });
    };
    let call = Call {
        name,
        args,
        is_new,
        span,
    };
    constructor(&call, ctx)
}

/// `ObjectId()`, `ObjectId(hex)` and `ObjectId.createFromHexString(hex)`.
fn object_id(c: &Call, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    let bad_hex = || c.bad("input must be a 24 character hex string");
    match c.arg(0) {
        None | Some(Bson::Undefined | Bson::Null) if c.name != "ObjectId.createFromHexString" => {
            Ok(Bson::ObjectId(ctx.next_object_id()))
        }
        Some(Bson::String(s)) => parse_oid(s).map(Bson::ObjectId).ok_or_else(bad_hex),
        Some(Bson::ObjectId(o)) => Ok(Bson::ObjectId(*o)),
        _ => Err(bad_hex()),
    }
}

/// `NumberInt(v)` (which parses strings as `parseInt` does) and `Int32(v)`.
fn int32(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let number_int = c.name == "NumberInt";
    let n = match c.arg(0) {
        None => 0.0,
        Some(Bson::String(s)) if number_int => parse_int(s).unwrap_or(f64::NAN),
        Some(Bson::String(s)) => s.trim().parse::<f64>().unwrap_or(f64::NAN),
        Some(Bson::Int64(i)) => *i as f64,
        Some(v) => to_number(v).ok_or_else(|| c.bad("expected a number or a string"))?,
    };
    let n = if number_int { n.trunc() } else { n };
    Ok(Bson::Int32(to_int32(n)))
}

/// `NumberLong(v)` and `Long(v)`, which also takes js-bson's `new Long(low, high)`.
fn int64(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    match c.arg(0) {
        None => Ok(Bson::Int64(0)),
        Some(Bson::String(s)) => strict_int(s.strip_prefix('+').unwrap_or(s))
            .map(Bson::Int64)
            .ok_or_else(|| c.bad(format!("'{s}' is not a valid 64-bit integer"))),
        Some(Bson::Int64(i)) => Ok(Bson::Int64(*i)),
        Some(v) => {
            let n = to_number(v).ok_or_else(|| c.bad("expected a number or a string"))?;
            if c.name == "Long" {
                // js-bson's `new Long(low, high)`: two 32-bit halves.
                let high = c.arg(1).and_then(to_number).map_or(0, to_int32);
                let low = to_int32(n) as u32;
                Ok(Bson::Int64((i64::from(high) << 32) | i64::from(low)))
            } else if n.is_nan() {
                Ok(Bson::Int64(0))
            } else {
                // `as` saturates at the i64 range, as Long.fromNumber does.
                Ok(Bson::Int64(n.trunc() as i64))
            }
        }
    }
}

/// `NumberDecimal(v)` and `Decimal128(v)`.
fn decimal(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let s = match c.arg(0) {
        None => "0".to_string(),
        Some(Bson::String(s)) => s.clone(),
        Some(Bson::Decimal128(d)) => return Ok(Bson::Decimal128(*d)),
        Some(Bson::Int64(i)) => i.to_string(),
        Some(v) => to_number(v)
            .map(js_number_to_string)
            .ok_or_else(|| c.bad("expected a string"))?,
    };
    parse_decimal128(&s)
        .map(Bson::Decimal128)
        .ok_or_else(|| c.bad(format!("'{s}' is not a valid Decimal128 string")))
}

/// `Double(v)`.
fn double(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let n = match c.arg(0) {
        None => 0.0,
        Some(Bson::String(s)) => s.trim().parse::<f64>().unwrap_or(f64::NAN),
        Some(Bson::Int64(i)) => *i as f64,
        Some(v) => to_number(v).ok_or_else(|| c.bad("expected a number"))?,
    };
    Ok(Bson::Double(n))
}

/// `Date.now()`: the clock's milliseconds as a number.
fn date_now(_: &Call, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    Ok(js_number(ctx.now_millis as f64))
}

/// `ISODate(...)` and `new Date(...)`; `Date()` without `new` is the clock as a string.
fn date(c: &Call, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    if c.name == "Date" && !c.is_new {
        return Ok(Bson::String(format_js_date_string(ctx.now_millis)));
    }
    let ms = match c.args {
        [] => ctx.now_millis,
        [Bson::Undefined] if c.name == "ISODate" => ctx.now_millis,
        [Bson::String(s)] => {
            parse_iso(s).ok_or_else(|| c.bad(format!("'{s}' is not a valid ISO date")))?
        }
        [Bson::DateTime(d)] => d.timestamp_millis(),
        [Bson::Int64(i)] => *i,
        [v] => {
            let n = to_number(v).ok_or_else(|| c.bad("expected a date, string or number"))?;
            if !n.is_finite() || n.abs() > 8.64e15 {
                return Err(c.bad("Invalid Date"));
            }
            n.trunc() as i64
        }
        parts => date_from_parts(c, parts)?,
    };
    Ok(Bson::DateTime(DateTime::from_millis(ms)))
}

/// `new Date(year, month, day, hours, minutes, seconds, ms)`, in UTC.
fn date_from_parts(c: &Call, parts: &[Bson]) -> Result<i64, EvalError> {
    let mut f = [f64::NAN, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    for (slot, v) in f.iter_mut().zip(parts.iter()) {
        *slot = to_number(v).unwrap_or(f64::NAN);
    }
    // Two-digit years mean 19xx, as in JavaScript.
    if (0.0..=99.0).contains(&f[0].trunc()) {
        f[0] = 1900.0 + f[0].trunc();
    }
    Ok(
        utc_millis(f[0], f[1], f[2], f[3], f[4], f[5], f[6]).ok_or_else(|| c.bad("Invalid Date"))?
            as i64,
    )
}

/// `Timestamp(t, i)`, `Timestamp({t, i})` and `Timestamp(<Long>)`.
fn timestamp(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    if let Some(Bson::Document(d)) = c.arg(0) {
        return Ok(Bson::Timestamp(Timestamp {
            time: c.u32_arg(d.get("t"), "t")?,
            increment: c.u32_arg(d.get("i"), "i")?,
        }));
    }
    if let (Some(Bson::Int64(v)), None) = (c.arg(0), c.arg(1)) {
        return Ok(Bson::Timestamp(Timestamp {
            time: (*v >> 32) as u32,
            increment: *v as u32,
        }));
    }
    Ok(Bson::Timestamp(Timestamp {
        time: c.u32_arg(c.arg(0), "t")?,
        increment: c.u32_arg(c.arg(1), "i")?,
    }))
}

/// `BinData(subtype, base64)` and `Binary.createFromBase64(base64, subtype)`.
fn base64_binary(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let (st, data) = if c.name == "BinData" {
        (c.subtype_arg(c.arg(0))?, c.str_arg(c.arg(1), "data")?)
    } else {
        (c.subtype_arg(c.arg(1))?, c.str_arg(c.arg(0), "data")?)
    };
    let bytes = BASE64.decode(data).map_err(|_| c.bad("invalid base64"))?;
    Ok(Bson::Binary(Binary { subtype: st, bytes }))
}

/// `HexData(subtype, hex)`, `Binary.createFromHexString(hex, subtype)` and `MD5(hex)`.
fn hex_binary(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let (st, data) = match c.name {
        "HexData" => (c.subtype_arg(c.arg(0))?, c.str_arg(c.arg(1), "data")?),
        "MD5" => (BinarySubtype::Md5, c.str_arg(c.arg(0), "data")?),
        _ => (c.subtype_arg(c.arg(1))?, c.str_arg(c.arg(0), "data")?),
    };
    let bytes = hex_decode(data).ok_or_else(|| c.bad("invalid hex string"))?;
    Ok(Bson::Binary(Binary { subtype: st, bytes }))
}

/// `UUID()` (the next generated one) and `UUID(hex)`.
fn uuid(c: &Call, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    let bytes = match c.arg(0) {
        None | Some(Bson::Undefined) => ctx.next_uuid().to_vec(),
        Some(Bson::String(s)) => parse_uuid(s)
            .ok_or_else(|| c.bad("UUID must be a 32 hex digit string, with or without dashes"))?,
        _ => return Err(c.bad("expected a string")),
    };
    Ok(Bson::Binary(Binary {
        subtype: BinarySubtype::Uuid,
        bytes,
    }))
}

/// `Code(code)` and `Code(code, scope)`.
fn code(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let code = match c.arg(0) {
        None => String::new(),
        Some(Bson::String(s)) => s.clone(),
        Some(Bson::JavaScriptCode(s)) => s.clone(),
        _ => return Err(c.bad("code must be a string")),
    };
    match c.arg(1) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(Bson::JavaScriptCode(code)),
        Some(Bson::Document(scope)) => Ok(Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
            code,
            scope: scope.clone(),
        })),
        _ => Err(c.bad("scope must be an object")),
    }
}

/// `BSONSymbol(value)`.
fn symbol(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    Ok(Bson::Symbol(c.str_arg(c.arg(0), "value")?.to_string()))
}

/// `BSONRegExp(pattern, flags)` and `RegExp(pattern, flags)`.
fn regexp(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    if let Some(Bson::RegularExpression(r)) = c.arg(0) {
        return Ok(Bson::RegularExpression(r.clone()));
    }
    let pattern = c.str_arg(c.arg(0), "pattern")?;
    let flags = match c.arg(1) {
        None | Some(Bson::Undefined) => "",
        Some(Bson::String(s)) => s.as_str(),
        _ => return Err(c.bad("flags must be a string")),
    };
    bson_regex(pattern, flags)
        .map(Bson::RegularExpression)
        .map_err(|e| c.bad(e))
}

/// `DBRef(namespace, id, db)`: the `{$ref, $id, $db}` document.
fn dbref(c: &Call, _: &mut EvalContext) -> Result<Bson, EvalError> {
    let ns = c.str_arg(c.arg(0), "namespace")?;
    let id = c.arg(1).cloned().ok_or_else(|| c.bad("missing id"))?;
    let mut d = Document::new();
    d.insert("$ref", ns);
    d.insert("$id", id);
    match c.arg(2) {
        None | Some(Bson::Undefined | Bson::Null) => {}
        Some(Bson::String(db)) => {
            d.insert("$db", db.clone());
        }
        _ => return Err(c.bad("db must be a string")),
    }
    Ok(Bson::Document(d))
}
