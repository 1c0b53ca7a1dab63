//! Evaluates value expressions to BSON: literals, the mongosh constructors
//! (`ObjectId()`, `NumberLong()`, `ISODate()`, ...), Extended JSON v2 wrappers inside
//! object literals, variables and simple arithmetic.
//!
//! Numbers follow mongosh: every numeric literal is a JavaScript number, and the
//! driver stores a number as Int32 when it is integral, not `-0`, and fits in 32 bits;
//! any other number is a Double. Nothing here reads a clock or a random source: the
//! current time and the `ObjectId()`/`UUID()` generators come from [`EvalContext`].

use super::lexer::Span;
use super::parser::{BinaryOp, Expr, ExprKind, UnaryOp};
use crate::values::encoding::{format_js_date_string, hex_decode, parse_iso, utc_millis, BASE64};
use crate::values::js::{js_key_order, js_number, js_number_to_string, make_db_pointer};
use bson::oid::ObjectId;
use bson::raw::CString;
use bson::spec::BinarySubtype;
use bson::{
    Binary, Bson, DateTime, Decimal128, Document, JavaScriptCodeWithScope, Regex, Timestamp,
};
use thiserror::Error;

/// The inputs that make evaluation deterministic, plus the variables a script set.
#[derive(Debug, Clone)]
pub struct EvalContext {
    /// Milliseconds since the epoch that `new Date()`, `ISODate()` and `Date.now()` see.
    pub now_millis: i64,
    /// The 5-byte "random" field of every generated ObjectId.
    pub object_id_process: [u8; 5],
    /// The counter of the next generated ObjectId (24 bits are used).
    pub object_id_counter: u32,
    /// The state of the generator behind `UUID()` without arguments.
    pub uuid_state: u64,
    /// Variables bound by `var`, `let`, `const` or assignment, in the order they were first
    /// bound. (A `Document` rather than a `BTreeMap`: the bson crate's map is in the build
    /// anyway, and another B-tree instantiation is not.)
    pub variables: Document,
    /// Whether object literals order integer-like keys first, as JavaScript objects do.
    pub js_key_order: bool,
}

impl Default for EvalContext {
    fn default() -> Self {
        EvalContext {
            now_millis: 0,
            object_id_process: [0; 5],
            object_id_counter: 0,
            uuid_state: 0,
            variables: Document::new(),
            js_key_order: true,
        }
    }
}

impl EvalContext {
    /// A context whose clock reads `now_millis`.
    pub fn at(now_millis: i64) -> Self {
        EvalContext {
            now_millis,
            ..EvalContext::default()
        }
    }

    /// The next ObjectId: the clock's seconds, the process field, then the counter.
    pub fn next_object_id(&mut self) -> ObjectId {
        let secs = u32::try_from(
            self.now_millis
                .div_euclid(1000)
                .clamp(0, i64::from(u32::MAX)),
        )
        .unwrap_or(0);
        let c = self.object_id_counter & 0x00ff_ffff;
        self.object_id_counter = self.object_id_counter.wrapping_add(1);
        let counter = [(c >> 16) as u8, (c >> 8) as u8, c as u8];
        ObjectId::from_parts(secs, self.object_id_process, counter)
    }

    /// The next version-4 UUID from a SplitMix64 stream (deterministic, not random).
    pub fn next_uuid(&mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for half in out.chunks_mut(8) {
            self.uuid_state = self.uuid_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.uuid_state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            half.copy_from_slice(&z.to_be_bytes());
        }
        out[6] = (out[6] & 0x0f) | 0x40;
        out[8] = (out[8] & 0x3f) | 0x80;
        out
    }
}

/// Why an expression has no BSON value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EvalError {
    /// The expression is a command or method call, not a value (e.g. `db.c.find()`).
    #[error("{span}: {what} is not a value")]
    NotAValue {
        /// The expression's text, shortened.
        what: String,
        /// Where it is.
        span: Span,
    },
    /// A name that is neither a variable nor a known global.
    #[error("{span}: ReferenceError: {name} is not defined")]
    Reference {
        /// The name.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// A constructor called with arguments it does not accept.
    #[error("{span}: {func}: {detail}")]
    BadArgument {
        /// The constructor, such as `ObjectId`.
        func: String,
        /// What was wrong.
        detail: String,
        /// Where the call is.
        span: Span,
    },
    /// An Extended JSON wrapper whose keys match but whose contents are invalid.
    #[error("{span}: invalid Extended JSON {key}: {detail}")]
    BadWrapper {
        /// The wrapper key, such as `$numberLong`.
        key: String,
        /// What was wrong.
        detail: String,
        /// Where the object literal is.
        span: Span,
    },
    /// An operator applied to values it does not support.
    #[error("{span}: TypeError: {detail}")]
    Type {
        /// What was wrong.
        detail: String,
        /// Where it is.
        span: Span,
    },
    /// A construct that Extended JSON text may not contain.
    #[error("{span}: not valid Extended JSON: {detail}")]
    NotJson {
        /// What was found.
        detail: String,
        /// Where it is.
        span: Span,
    },
}

/// How literals are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// mongosh: JavaScript numbers, constructors, variables.
    Shell,
    /// Extended JSON text: JSON values only, integers as Int32/Int64.
    Json,
}

/// Evaluates an expression to a BSON value in shell mode.
pub fn eval_value(expr: &Expr, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    Evaluator {
        ctx,
        mode: Mode::Shell,
    }
    .eval(expr)
}

/// Evaluates an expression parsed from Extended JSON text: only JSON values are
/// allowed, integers become Int32 (or Int64 when they do not fit), other numbers
/// Double, keys keep their order, and wrappers become typed values.
pub fn eval_json(expr: &Expr) -> Result<Bson, EvalError> {
    let mut ctx = EvalContext {
        js_key_order: false,
        ..EvalContext::default()
    };
    Evaluator {
        ctx: &mut ctx,
        mode: Mode::Json,
    }
    .eval(expr)
}

/// ECMAScript `ToInt32`: truncate and wrap modulo 2^32.
fn to_int32(v: f64) -> i32 {
    if !v.is_finite() {
        return 0;
    }
    let m = v.trunc().rem_euclid(4_294_967_296.0);
    let m = if m >= 2_147_483_648.0 {
        m - 4_294_967_296.0
    } else {
        m
    };
    m as i32
}

/// JavaScript's `parseInt(s, 10)`; `None` stands for NaN.
fn parse_int(s: &str) -> Option<f64> {
    let t = s.trim_start();
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let end = t.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    let v = crate::values::float::parse_f64(&t[..end])?;
    Some(if neg { -v } else { v })
}

/// Sorts regex flags and keeps those BSON knows (`i`, `l`, `m`, `s`, `u`, `x`).
/// JavaScript-only flags (`d`, `g`, `v`, `y`) are dropped.
fn bson_regex(pattern: &str, flags: &str) -> Result<Regex, String> {
    let mut opts: Vec<char> = Vec::new();
    for c in flags.chars() {
        match c {
            'i' | 'l' | 'm' | 's' | 'u' | 'x' => {
                if !opts.contains(&c) {
                    opts.push(c);
                }
            }
            'd' | 'g' | 'v' | 'y' => {}
            _ => return Err(format!("Invalid regular expression flags '{flags}'")),
        }
    }
    crate::support::sort::sort(&mut opts);
    let options: String = opts.into_iter().collect();
    Ok(Regex {
        pattern: CString::try_from(pattern.to_string())
            .map_err(|_| "regular expression pattern contains a NUL character".to_string())?,
        options: CString::try_from(options).map_err(|e| e.to_string())?,
    })
}

/// Parses a Decimal128 string as MongoDB does: digits with an optional point and
/// exponent, or `NaN`/`Infinity`; inexact rounding is an error.
pub fn parse_decimal128(s: &str) -> Option<Decimal128> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    let special = matches!(lower.as_str(), "nan" | "inf" | "infinity");
    if !special {
        let (mant, exp) = match lower.split_once('e') {
            Some((m, e)) => (m, Some(e)),
            None => (lower.as_str(), None),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let digits_ok = |t: &str| t.bytes().all(|c| c.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !digits_ok(int) || !digits_ok(frac) {
            return None;
        }
        if let Some(e) = exp {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            if e.is_empty() || !digits_ok(e) {
                return None;
            }
        }
    }
    crate::values::decimal::parse_decimal128_bytes(s).map(Decimal128::from_bytes)
}

/// Parses an ObjectId from 24 hex digits.
fn parse_oid(s: &str) -> Option<ObjectId> {
    if s.len() != 24 {
        return None;
    }
    let bytes: [u8; 12] = hex_decode(s)?.try_into().ok()?;
    Some(ObjectId::from_bytes(bytes))
}

/// Parses a UUID written as 32 hex digits, with or without the four dashes.
fn parse_uuid(s: &str) -> Option<Vec<u8>> {
    let dashed = s.len() == 36
        && s.char_indices()
            .all(|(i, c)| (c == '-') == matches!(i, 8 | 13 | 18 | 23));
    let hex: String = if dashed {
        s.chars().filter(|&c| c != '-').collect()
    } else {
        s.to_string()
    };
    if hex.len() != 32 {
        return None;
    }
    hex_decode(&hex)
}

fn bad_wrapper(key: &str, detail: impl Into<String>, span: Span) -> EvalError {
    EvalError::BadWrapper {
        key: key.to_string(),
        detail: detail.into(),
        span,
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
    let str_of = |key: &str| -> Result<&str, EvalError> {
        doc.get(key)
            .and_then(Bson::as_str)
            .ok_or_else(|| bad_wrapper(key, "expected a string", span))
    };
    if doc.len() == 1 {
        let key = first.as_str();
        let value = doc.get(key).cloned().unwrap_or(Bson::Null);
        let converted = match key {
            "$numberInt" => {
                let s = str_of(key)?;
                Bson::Int32(
                    strict_int(s)
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not an int32"), span))?,
                )
            }
            "$numberLong" => {
                let s = str_of(key)?;
                Bson::Int64(
                    strict_int(s)
                        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not an int64"), span))?,
                )
            }
            "$numberDouble" => {
                let s = str_of(key)?;
                Bson::Double(
                    parse_double_string(s)
                        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not a double"), span))?,
                )
            }
            "$numberDecimal" => {
                let s = str_of(key)?;
                Bson::Decimal128(
                    parse_decimal128(s)
                        .ok_or_else(|| bad_wrapper(key, format!("'{s}' is not a decimal"), span))?,
                )
            }
            "$oid" => {
                let s = str_of(key)?;
                Bson::ObjectId(
                    parse_oid(s).ok_or_else(|| {
                        bad_wrapper(key, "expected 24 hexadecimal characters", span)
                    })?,
                )
            }
            "$symbol" => Bson::Symbol(str_of(key)?.to_string()),
            "$code" => Bson::JavaScriptCode(str_of(key)?.to_string()),
            "$date" => {
                let ms = match &value {
                    Bson::String(s) => parse_iso(s).ok_or_else(|| {
                        bad_wrapper(key, format!("'{s}' is not an ISO date"), span)
                    })?,
                    other => integral(other).ok_or_else(|| {
                        bad_wrapper(key, "expected {$numberLong} or a string", span)
                    })?,
                };
                Bson::DateTime(DateTime::from_millis(ms))
            }
            "$minKey" | "$maxKey" => {
                if integral(&value) != Some(1) {
                    return Err(bad_wrapper(key, "expected 1", span));
                }
                if key == "$minKey" {
                    Bson::MinKey
                } else {
                    Bson::MaxKey
                }
            }
            "$undefined" => {
                if value != Bson::Boolean(true) {
                    return Err(bad_wrapper(key, "expected true", span));
                }
                Bson::Undefined
            }
            "$uuid" => {
                let s = str_of(key)?;
                let bytes = parse_uuid(s)
                    .filter(|_| s.len() == 36)
                    .ok_or_else(|| bad_wrapper(key, "expected a dashed UUID string", span))?;
                Bson::Binary(Binary {
                    subtype: BinarySubtype::Uuid,
                    bytes,
                })
            }
            "$binary" => {
                let Bson::Document(inner) = &value else {
                    return Err(bad_wrapper(key, "expected {base64, subType}", span));
                };
                if !keys_are(inner, &["base64", "subType"]) {
                    return Err(bad_wrapper(key, "expected {base64, subType}", span));
                }
                let b64 = inner
                    .get_str("base64")
                    .map_err(|_| bad_wrapper(key, "base64 must be a string", span))?;
                let st = inner
                    .get_str("subType")
                    .map_err(|_| bad_wrapper(key, "subType must be a string", span))?;
                binary_from(b64, st, key, span)?
            }
            "$regularExpression" => {
                let Bson::Document(inner) = &value else {
                    return Err(bad_wrapper(key, "expected {pattern, options}", span));
                };
                if !keys_are(inner, &["pattern", "options"]) {
                    return Err(bad_wrapper(key, "expected {pattern, options}", span));
                }
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
                Bson::RegularExpression(bson_regex(p, o).map_err(|e| bad_wrapper(key, e, span))?)
            }
            "$timestamp" => {
                let Bson::Document(inner) = &value else {
                    return Err(bad_wrapper(key, "expected {t, i}", span));
                };
                if !keys_are(inner, &["t", "i"]) {
                    return Err(bad_wrapper(key, "expected {t, i}", span));
                }
                let part = |k: &str| {
                    inner
                        .get(k)
                        .and_then(integral)
                        .and_then(|v| u32::try_from(v).ok())
                        .ok_or_else(|| bad_wrapper(key, format!("{k} must be a uint32"), span))
                };
                Bson::Timestamp(Timestamp {
                    time: part("t")?,
                    increment: part("i")?,
                })
            }
            "$dbPointer" => {
                let Bson::Document(inner) = &value else {
                    return Err(bad_wrapper(key, "expected {$ref, $id}", span));
                };
                if !keys_are(inner, &["$ref", "$id"]) {
                    return Err(bad_wrapper(key, "expected {$ref, $id}", span));
                }
                let (Ok(ns), Ok(id)) = (inner.get_str("$ref"), inner.get_object_id("$id")) else {
                    return Err(bad_wrapper(
                        key,
                        "expected a string $ref and an ObjectId $id",
                        span,
                    ));
                };
                make_db_pointer(ns, id)
                    .ok_or_else(|| bad_wrapper(key, "namespace contains a NUL character", span))?
            }
            _ => return Ok(Bson::Document(doc)),
        };
        return Ok(converted);
    }
    // Two-key wrappers.
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

/// An integer written in decimal with an optional `-` (the Extended JSON integer form).
fn strict_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an Extended JSON `$numberDouble` string: a decimal number, `NaN`,
/// `Infinity` or `-Infinity`.
pub fn parse_double_string(s: &str) -> Option<f64> {
    match s {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let body = s.strip_prefix('-').unwrap_or(s);
    let (mant, exp) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits_ok = |t: &str| t.bytes().all(|c| c.is_ascii_digit());
    if int.is_empty() || !digits_ok(int) || !digits_ok(frac) || (mant.ends_with('.')) {
        return None;
    }
    if let Some(e) = exp {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if e.is_empty() || !digits_ok(e) {
            return None;
        }
    }
    crate::values::float::parse_f64(s)
}

struct Evaluator<'a> {
    ctx: &'a mut EvalContext,
    mode: Mode,
}

/// The known global names that are values on their own.
fn global_value(name: &str) -> Option<Bson> {
    match name {
        "MinKey" => Some(Bson::MinKey),
        "MaxKey" => Some(Bson::MaxKey),
        "NaN" => Some(Bson::Double(f64::NAN)),
        "Infinity" => Some(Bson::Double(f64::INFINITY)),
        _ => None,
    }
}

/// A short description of an expression for error messages.
fn describe(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Member {
            object, property, ..
        } => format!("{}.{property}", describe(object)),
        ExprKind::Index { object, .. } => format!("{}[...]", describe(object)),
        ExprKind::Call { callee, .. } => format!("{}()", describe(callee)),
        ExprKind::New { callee, .. } => format!("new {}()", describe(callee)),
        _ => "expression".into(),
    }
}

impl Evaluator<'_> {
    fn eval(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let span = expr.span;
        if self.mode == Mode::Json {
            return self.eval_json(expr);
        }
        match &expr.kind {
            ExprKind::Number { value, .. } => Ok(js_number(*value)),
            ExprKind::String(s) => Ok(Bson::String(s.clone())),
            ExprKind::Regex { pattern, flags } => bson_regex(pattern, flags)
                .map(Bson::RegularExpression)
                .map_err(|detail| EvalError::BadArgument {
                    func: "RegExp".into(),
                    detail,
                    span,
                }),
            ExprKind::Bool(b) => Ok(Bson::Boolean(*b)),
            ExprKind::Null => Ok(Bson::Null),
            ExprKind::Undefined => Ok(Bson::Undefined),
            ExprKind::Ident(name) => {
                if let Some(v) = self.ctx.variables.get(name) {
                    return Ok(v.clone());
                }
                if let Some(v) = global_value(name) {
                    return Ok(v);
                }
                if is_constructor(name) || is_shell_global(name) {
                    return Err(EvalError::NotAValue {
                        what: name.clone(),
                        span,
                    });
                }
                Err(EvalError::Reference {
                    name: name.clone(),
                    span,
                })
            }
            ExprKind::Array(items) => Ok(Bson::Array(
                items
                    .iter()
                    .map(|e| self.eval(e))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Object(fields) => {
                let mut doc = Document::new();
                for (k, v) in fields {
                    let v = self.eval(v)?;
                    doc.insert(k.clone(), v);
                }
                if self.ctx.js_key_order {
                    doc = js_key_order(doc);
                }
                convert_wrapper(doc, span)
            }
            ExprKind::Member {
                object, property, ..
            } => {
                if !self.is_value_root(object) {
                    return Err(EvalError::NotAValue {
                        what: describe(expr),
                        span,
                    });
                }
                let obj = self.eval(object)?;
                Ok(property_of(&obj, property))
            }
            ExprKind::Index { object, index } => {
                if !self.is_value_root(object) {
                    return Err(EvalError::NotAValue {
                        what: describe(expr),
                        span,
                    });
                }
                let obj = self.eval(object)?;
                let key = match self.eval(index)? {
                    Bson::String(s) => s,
                    Bson::Int32(i) => i.to_string(),
                    Bson::Double(d) => js_number_to_string(d),
                    _ => {
                        return Err(EvalError::Type {
                            detail: "unsupported index type".into(),
                            span: index.span,
                        })
                    }
                };
                Ok(property_of(&obj, &key))
            }
            ExprKind::Call { callee, args } => self.call(callee, args, false, span),
            ExprKind::New { callee, args } => self.call(callee, args, true, span),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                match op {
                    UnaryOp::Not => Ok(Bson::Boolean(!truthy(&v))),
                    UnaryOp::Neg | UnaryOp::Plus => {
                        let n = to_number(&v).ok_or_else(|| EvalError::Type {
                            detail: format!(
                                "unary {} needs a number",
                                if *op == UnaryOp::Neg { '-' } else { '+' }
                            ),
                            span,
                        })?;
                        Ok(js_number(if *op == UnaryOp::Neg { -n } else { n }))
                    }
                }
            }
            ExprKind::Binary { op, left, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                if *op == BinaryOp::Add
                    && (matches!(l, Bson::String(_)) || matches!(r, Bson::String(_)))
                {
                    let (Some(a), Some(b)) = (to_js_string(&l), to_js_string(&r)) else {
                        return Err(EvalError::Type {
                            detail: "cannot concatenate this value".into(),
                            span,
                        });
                    };
                    return Ok(Bson::String(a + &b));
                }
                let (Some(a), Some(b)) = (to_number(&l), to_number(&r)) else {
                    return Err(EvalError::Type {
                        detail: "arithmetic needs numbers".into(),
                        span,
                    });
                };
                Ok(js_number(match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div => a / b,
                    BinaryOp::Rem => a % b,
                }))
            }
        }
    }

    /// Whether a member chain starts at something that holds a value (a variable or
    /// a literal) rather than at a shell object such as `db` or `sh`.
    fn is_value_root(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Ident(n) => self.ctx.variables.contains_key(n),
            ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => {
                self.is_value_root(object)
            }
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Ident(n) => is_constructor(n),
                _ => false,
            },
            _ => true,
        }
    }

    fn eval_json(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Number { value, raw } => Ok(json_number(raw, *value, false)),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => match &operand.kind {
                ExprKind::Number { value, raw } => Ok(json_number(raw, *value, true)),
                _ => Err(EvalError::NotJson {
                    detail: "'-' before a non-number".into(),
                    span,
                }),
            },
            ExprKind::String(s) => Ok(Bson::String(s.clone())),
            ExprKind::Bool(b) => Ok(Bson::Boolean(*b)),
            ExprKind::Null => Ok(Bson::Null),
            ExprKind::Array(items) => Ok(Bson::Array(
                items
                    .iter()
                    .map(|e| self.eval_json(e))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Object(fields) => {
                let mut doc = Document::new();
                for (k, v) in fields {
                    let v = self.eval_json(v)?;
                    doc.insert(k.clone(), v);
                }
                convert_wrapper(doc, span)
            }
            _ => Err(EvalError::NotJson {
                detail: describe(expr),
                span,
            }),
        }
    }

    fn call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        is_new: bool,
        span: Span,
    ) -> Result<Bson, EvalError> {
        let name = match &callee.kind {
            ExprKind::Ident(n) if !self.ctx.variables.contains_key(n) => n.clone(),
            ExprKind::Member {
                object, property, ..
            } => match &object.kind {
                ExprKind::Ident(o) if !self.ctx.variables.contains_key(o) => {
                    format!("{o}.{property}")
                }
                _ => {
                    return Err(EvalError::NotAValue {
                        what: describe(callee) + "()",
                        span,
                    })
                }
            },
            _ => {
                return Err(EvalError::NotAValue {
                    what: describe(callee) + "()",
                    span,
                })
            }
        };
        if !is_constructor(&name) {
            return Err(EvalError::NotAValue {
                what: format!("{name}()"),
                span,
            });
        }
        let vals: Vec<Bson> = args
            .iter()
            .map(|a| self.eval(a))
            .collect::<Result<_, _>>()?;
        construct(&name, &vals, is_new, self.ctx, span)
    }
}

/// Whether `name` is a constructor or static helper this module evaluates.
fn is_constructor(name: &str) -> bool {
    matches!(
        name,
        "ObjectId"
            | "ObjectID"
            | "ObjectId.createFromHexString"
            | "NumberInt"
            | "Int32"
            | "NumberLong"
            | "Long"
            | "NumberDecimal"
            | "Decimal128"
            | "Double"
            | "ISODate"
            | "Date"
            | "Date.now"
            | "Timestamp"
            | "MinKey"
            | "MaxKey"
            | "BinData"
            | "HexData"
            | "UUID"
            | "MD5"
            | "Binary.createFromBase64"
            | "Binary.createFromHexString"
            | "Code"
            | "BSONSymbol"
            | "BSONRegExp"
            | "RegExp"
            | "DBRef"
    )
}

/// Names that are shell objects, not values, so a bare mention is not a reference error.
fn is_shell_global(name: &str) -> bool {
    matches!(
        name,
        "db" | "sh" | "rs" | "sim" | "print" | "printjson" | "Binary"
    )
}

fn json_number(raw: &str, value: f64, negative: bool) -> Bson {
    let integer_form = raw.bytes().all(|c| c.is_ascii_digit());
    if integer_form {
        let text = if negative {
            format!("-{raw}")
        } else {
            raw.to_string()
        };
        if let Ok(i) = text.parse::<i32>() {
            return Bson::Int32(i);
        }
        if let Ok(i) = text.parse::<i64>() {
            return Bson::Int64(i);
        }
    }
    Bson::Double(if negative { -value } else { value })
}

fn property_of(obj: &Bson, key: &str) -> Bson {
    match obj {
        Bson::Document(d) => d.get(key).cloned().unwrap_or(Bson::Undefined),
        Bson::Array(a) if key == "length" => js_number(a.len() as f64),
        Bson::Array(a) => key
            .parse::<usize>()
            .ok()
            .and_then(|i| a.get(i).cloned())
            .unwrap_or(Bson::Undefined),
        Bson::String(s) if key == "length" => js_number(s.encode_utf16().count() as f64),
        _ => Bson::Undefined,
    }
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        Bson::Int32(i) => *i != 0,
        Bson::Double(d) => *d != 0.0 && !d.is_nan(),
        Bson::String(s) => !s.is_empty(),
        _ => true,
    }
}

fn to_number(v: &Bson) -> Option<f64> {
    match v {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Double(d) => Some(*d),
        Bson::Boolean(b) => Some(if *b { 1.0 } else { 0.0 }),
        Bson::Null => Some(0.0),
        Bson::Undefined => Some(f64::NAN),
        Bson::DateTime(d) => Some(d.timestamp_millis() as f64),
        _ => None,
    }
}

fn to_js_string(v: &Bson) -> Option<String> {
    match v {
        Bson::String(s) => Some(s.clone()),
        Bson::Int32(i) => Some(i.to_string()),
        Bson::Double(d) => Some(js_number_to_string(*d)),
        Bson::Boolean(b) => Some(b.to_string()),
        Bson::Null => Some("null".into()),
        Bson::Undefined => Some("undefined".into()),
        Bson::Int64(i) => Some(i.to_string()),
        Bson::Decimal128(d) => Some(crate::values::decimal::Decimal::from_bson(d).to_string()),
        Bson::ObjectId(o) => Some(o.to_hex()),
        Bson::DateTime(d) => Some(format_js_date_string(d.timestamp_millis())),
        _ => None,
    }
}

fn bad_arg(func: &str, detail: impl Into<String>, span: Span) -> EvalError {
    EvalError::BadArgument {
        func: func.to_string(),
        detail: detail.into(),
        span,
    }
}

fn arg_u32(func: &str, v: Option<&Bson>, what: &str, span: Span) -> Result<u32, EvalError> {
    match v {
        None | Some(Bson::Undefined | Bson::Null) => Ok(0),
        Some(b) => {
            let n = match b {
                Bson::Int64(i) => *i as f64,
                other => to_number(other).unwrap_or(f64::NAN),
            };
            if n.fract() != 0.0 || !(0.0..=4_294_967_295.0).contains(&n) {
                return Err(bad_arg(
                    func,
                    format!("{what} must be an integer from 0 to 4294967295"),
                    span,
                ));
            }
            Ok(n as u32)
        }
    }
}

fn arg_str<'b>(
    func: &str,
    v: Option<&'b Bson>,
    what: &str,
    span: Span,
) -> Result<&'b str, EvalError> {
    match v {
        Some(Bson::String(s)) => Ok(s),
        _ => Err(bad_arg(func, format!("{what} must be a string"), span)),
    }
}

fn subtype_arg(func: &str, v: Option<&Bson>, span: Span) -> Result<BinarySubtype, EvalError> {
    let n = v.and_then(to_number).unwrap_or(0.0);
    if n.fract() != 0.0 || !(0.0..=255.0).contains(&n) {
        return Err(bad_arg(
            func,
            "subtype must be an integer from 0 to 255",
            span,
        ));
    }
    Ok(BinarySubtype::from(n as u8))
}

/// Evaluates a constructor call. `is_new` tells `Date()` (a string) from `new Date()`.
fn construct(
    name: &str,
    args: &[Bson],
    is_new: bool,
    ctx: &mut EvalContext,
    span: Span,
) -> Result<Bson, EvalError> {
    let a0 = args.first();
    match name {
        "ObjectId" | "ObjectID" | "ObjectId.createFromHexString" => match a0 {
            None | Some(Bson::Undefined | Bson::Null) if name != "ObjectId.createFromHexString" => {
                Ok(Bson::ObjectId(ctx.next_object_id()))
            }
            Some(Bson::String(s)) => parse_oid(s)
                .map(Bson::ObjectId)
                .ok_or_else(|| bad_arg(name, "input must be a 24 character hex string", span)),
            Some(Bson::ObjectId(o)) => Ok(Bson::ObjectId(*o)),
            _ => Err(bad_arg(
                name,
                "input must be a 24 character hex string",
                span,
            )),
        },
        "NumberInt" | "Int32" => {
            let n = match a0 {
                None => 0.0,
                Some(Bson::String(s)) if name == "NumberInt" => parse_int(s).unwrap_or(f64::NAN),
                Some(Bson::String(s)) => {
                    crate::values::float::parse_f64(s.trim()).unwrap_or(f64::NAN)
                }
                Some(Bson::Int64(i)) => *i as f64,
                Some(v) => to_number(v)
                    .ok_or_else(|| bad_arg(name, "expected a number or a string", span))?,
            };
            let n = if name == "NumberInt" { n.trunc() } else { n };
            Ok(Bson::Int32(to_int32(n)))
        }
        "NumberLong" | "Long" => {
            let from_number = |n: f64| -> i64 {
                if n.is_nan() {
                    0
                } else {
                    // `as` saturates at the i64 range, as Long.fromNumber does.
                    n.trunc() as i64
                }
            };
            match a0 {
                None => Ok(Bson::Int64(0)),
                Some(Bson::String(s)) => strict_int(s.strip_prefix('+').unwrap_or(s))
                    .map(Bson::Int64)
                    .ok_or_else(|| {
                        bad_arg(name, format!("'{s}' is not a valid 64-bit integer"), span)
                    }),
                Some(Bson::Int64(i)) => Ok(Bson::Int64(*i)),
                Some(v) => {
                    let n = to_number(v)
                        .ok_or_else(|| bad_arg(name, "expected a number or a string", span))?;
                    if name == "Long" {
                        // js-bson's `new Long(low, high)`: two 32-bit halves.
                        let high = args.get(1).and_then(to_number).map_or(0, to_int32);
                        let low = to_int32(n) as u32;
                        Ok(Bson::Int64((i64::from(high) << 32) | i64::from(low)))
                    } else {
                        Ok(Bson::Int64(from_number(n)))
                    }
                }
            }
        }
        "NumberDecimal" | "Decimal128" => {
            let s = match a0 {
                None => "0".to_string(),
                Some(Bson::String(s)) => s.clone(),
                Some(Bson::Decimal128(d)) => return Ok(Bson::Decimal128(*d)),
                Some(Bson::Int64(i)) => i.to_string(),
                Some(v) => to_number(v)
                    .map(js_number_to_string)
                    .ok_or_else(|| bad_arg(name, "expected a string", span))?,
            };
            parse_decimal128(&s).map(Bson::Decimal128).ok_or_else(|| {
                bad_arg(
                    name,
                    format!("'{s}' is not a valid Decimal128 string"),
                    span,
                )
            })
        }
        "Double" => {
            let n = match a0 {
                None => 0.0,
                Some(Bson::String(s)) => {
                    crate::values::float::parse_f64(s.trim()).unwrap_or(f64::NAN)
                }
                Some(Bson::Int64(i)) => *i as f64,
                Some(v) => to_number(v).ok_or_else(|| bad_arg(name, "expected a number", span))?,
            };
            Ok(Bson::Double(n))
        }
        "Date.now" => Ok(js_number(ctx.now_millis as f64)),
        "Date" if !is_new => Ok(Bson::String(format_js_date_string(ctx.now_millis))),
        "ISODate" | "Date" => {
            let ms = match args {
                [] => ctx.now_millis,
                [Bson::Undefined] if name == "ISODate" => ctx.now_millis,
                [Bson::String(s)] => parse_iso(s)
                    .ok_or_else(|| bad_arg(name, format!("'{s}' is not a valid ISO date"), span))?,
                [Bson::DateTime(d)] => d.timestamp_millis(),
                [Bson::Int64(i)] => *i,
                [v] => {
                    let n = to_number(v)
                        .ok_or_else(|| bad_arg(name, "expected a date, string or number", span))?;
                    if !n.is_finite() || n.abs() > 8.64e15 {
                        return Err(bad_arg(name, "Invalid Date", span));
                    }
                    n.trunc() as i64
                }
                parts => {
                    let mut f = [f64::NAN, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0];
                    for (slot, v) in f.iter_mut().zip(parts.iter()) {
                        *slot = to_number(v).unwrap_or(f64::NAN);
                    }
                    // Two-digit years mean 19xx, as in JavaScript.
                    if (0.0..=99.0).contains(&f[0].trunc()) {
                        f[0] = 1900.0 + f[0].trunc();
                    }
                    utc_millis(f[0], f[1], f[2], f[3], f[4], f[5], f[6])
                        .ok_or_else(|| bad_arg(name, "Invalid Date", span))?
                        as i64
                }
            };
            Ok(Bson::DateTime(DateTime::from_millis(ms)))
        }
        "Timestamp" => {
            if let Some(Bson::Document(d)) = a0 {
                return Ok(Bson::Timestamp(Timestamp {
                    time: arg_u32(name, d.get("t"), "t", span)?,
                    increment: arg_u32(name, d.get("i"), "i", span)?,
                }));
            }
            if let (Some(Bson::Int64(v)), None) = (a0, args.get(1)) {
                return Ok(Bson::Timestamp(Timestamp {
                    time: (*v >> 32) as u32,
                    increment: *v as u32,
                }));
            }
            Ok(Bson::Timestamp(Timestamp {
                time: arg_u32(name, a0, "t", span)?,
                increment: arg_u32(name, args.get(1), "i", span)?,
            }))
        }
        "MinKey" => Ok(Bson::MinKey),
        "MaxKey" => Ok(Bson::MaxKey),
        "BinData" | "Binary.createFromBase64" => {
            let (st, data) = if name == "BinData" {
                (
                    subtype_arg(name, a0, span)?,
                    arg_str(name, args.get(1), "data", span)?,
                )
            } else {
                (
                    subtype_arg(name, args.get(1), span)?,
                    arg_str(name, a0, "data", span)?,
                )
            };
            let bytes = BASE64
                .decode(data)
                .map_err(|_| bad_arg(name, "invalid base64", span))?;
            Ok(Bson::Binary(Binary { subtype: st, bytes }))
        }
        "HexData" | "Binary.createFromHexString" | "MD5" => {
            let (st, data) = match name {
                "HexData" => (
                    subtype_arg(name, a0, span)?,
                    arg_str(name, args.get(1), "data", span)?,
                ),
                "MD5" => (BinarySubtype::Md5, arg_str(name, a0, "data", span)?),
                _ => (
                    subtype_arg(name, args.get(1), span)?,
                    arg_str(name, a0, "data", span)?,
                ),
            };
            let bytes =
                hex_decode(data).ok_or_else(|| bad_arg(name, "invalid hex string", span))?;
            Ok(Bson::Binary(Binary { subtype: st, bytes }))
        }
        "UUID" => {
            let bytes = match a0 {
                None | Some(Bson::Undefined) => ctx.next_uuid().to_vec(),
                Some(Bson::String(s)) => parse_uuid(s).ok_or_else(|| {
                    bad_arg(
                        name,
                        "UUID must be a 32 hex digit string, with or without dashes",
                        span,
                    )
                })?,
                _ => return Err(bad_arg(name, "expected a string", span)),
            };
            Ok(Bson::Binary(Binary {
                subtype: BinarySubtype::Uuid,
                bytes,
            }))
        }
        "Code" => {
            let code = match a0 {
                None => String::new(),
                Some(Bson::String(s)) => s.clone(),
                Some(Bson::JavaScriptCode(s)) => s.clone(),
                _ => return Err(bad_arg(name, "code must be a string", span)),
            };
            match args.get(1) {
                None | Some(Bson::Null | Bson::Undefined) => Ok(Bson::JavaScriptCode(code)),
                Some(Bson::Document(scope)) => {
                    Ok(Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
                        code,
                        scope: scope.clone(),
                    }))
                }
                _ => Err(bad_arg(name, "scope must be an object", span)),
            }
        }
        "BSONSymbol" => Ok(Bson::Symbol(arg_str(name, a0, "value", span)?.to_string())),
        "BSONRegExp" | "RegExp" => {
            if let Some(Bson::RegularExpression(r)) = a0 {
                return Ok(Bson::RegularExpression(r.clone()));
            }
            let pattern = arg_str(name, a0, "pattern", span)?;
            let flags = match args.get(1) {
                None | Some(Bson::Undefined) => "",
                Some(Bson::String(s)) => s.as_str(),
                _ => return Err(bad_arg(name, "flags must be a string", span)),
            };
            bson_regex(pattern, flags)
                .map(Bson::RegularExpression)
                .map_err(|e| bad_arg(name, e, span))
        }
        "DBRef" => {
            let ns = arg_str(name, a0, "namespace", span)?;
            let id = args
                .get(1)
                .cloned()
                .ok_or_else(|| bad_arg(name, "missing id", span))?;
            let mut d = Document::new();
            d.insert("$ref", ns);
            d.insert("$id", id);
            match args.get(2) {
                None | Some(Bson::Undefined | Bson::Null) => {}
                Some(Bson::String(db)) => {
                    d.insert("$db", db.clone());
                }
                _ => return Err(bad_arg(name, "db must be a string", span)),
            }
            Ok(Bson::Document(d))
        }
        _ => Err(EvalError::NotAValue {
            what: format!("{name}()"),
            span,
        }),
    }
}
