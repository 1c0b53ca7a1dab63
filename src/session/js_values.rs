//! JavaScript's rules for the script's values: truthiness, `ToNumber`, `ToString`, the
//! arithmetic and comparison operators, properties, and the built-in functions and
//! methods tutorials use (`Math`, `Date.now`, `Object.keys`, `parseInt`, array and
//! string methods). Numbers are doubles, as in JavaScript; a result is stored as Int32
//! when integral and in range, as mongosh's driver does, so it prints without a point.

use super::interpreter::{Output, Session, StatementError};
use super::script_state::Value;
use crate::shell::constructors::{construct, is_constructor};
use crate::shell::parser::{BinaryOp, CompareOp, Expr, UnaryOp};
use crate::shell::Span;
use crate::values::inspect::format_value;
use crate::values::js::{js_number, js_number_to_string};
use crate::values::limits::MAX_STRING_BYTES;
use bson::Bson;

/// How far past its end an element may be set (`a[i] = x`), so one assignment cannot
/// allocate without bound.
const MAX_ARRAY_GROWTH: usize = 100_000;

/// JavaScript's `RangeError` for a string too long to build.
pub(crate) fn string_too_long() -> StatementError {
    StatementError::from(crate::shell::EvalError::StringLength {
        span: Span::default(),
    })
}

/// The value as BSON, for a document, a variable or a command; functions have none.
pub(crate) fn into_bson(v: Value) -> Result<Bson, StatementError> {
    match v {
        Value::Data(b) => Ok(b),
        other => Err(StatementError::type_error(format!(
            "{} cannot be stored in a document or passed to a command by this shell",
            describe(&other)
        ))),
    }
}

/// A short text for a value in error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Data(b) => format_value(b),
        other => match value_output(other.clone()) {
            Output::Message(m) => m,
            _ => String::new(),
        },
    }
}

/// How a value prints as a statement's result (mongosh prints nothing for `undefined`,
/// `cli-repl/src/format-output.ts` `formatSimpleType`).
pub(crate) fn value_output(v: Value) -> Output {
    match v {
        Value::Data(Bson::Undefined) => Output::Nothing,
        Value::Data(b) => Output::Value(b),
        Value::Func(c) => Output::Message(match c.name() {
            Some(n) => format!("[Function: {n}]"),
            None => "[Function (anonymous)]".to_string(),
        }),
        Value::Native(n) => Output::Message(format!("[Function: {n}]")),
    }
}

/// Strings made from the pieces of a string (its characters, the parts `split` cuts),
/// refused past the number of values one shell value may hold, so that splitting a long
/// string cannot exhaust memory.
pub(crate) fn pieces<'a>(
    parts: impl Iterator<Item = &'a str>,
) -> Result<Vec<Bson>, StatementError> {
    let mut out = Vec::new();
    for p in parts {
        if out.len() as u64 >= crate::values::limits::MAX_VALUES {
            return Err(StatementError::from(
                crate::values::limits::too_many_values(),
            ));
        }
        out.push(Bson::String(p.to_string()));
    }
    Ok(out)
}

/// The characters of a string, each as a string (see [`pieces`]).
pub(crate) fn characters(s: &str) -> Result<Vec<Bson>, StatementError> {
    pieces(s.char_indices().map(|(i, c)| &s[i..i + c.len_utf8()]))
}

/// What `typeof` answers (see [`crate::values::js_typeof`]).
pub(crate) fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Func(_) | Value::Native(_) => "function",
        Value::Data(b) => crate::values::js_typeof(b),
    }
}

/// JavaScript's truthiness.
pub(crate) fn truthy(v: &Value) -> bool {
    match v {
        Value::Data(b) => match b {
            Bson::Boolean(b) => *b,
            Bson::Null | Bson::Undefined => false,
            Bson::Int32(i) => *i != 0,
            Bson::Int64(i) => *i != 0,
            Bson::Double(d) => *d != 0.0 && !d.is_nan(),
            Bson::String(s) => !s.is_empty(),
            _ => true,
        },
        _ => true,
    }
}

/// JavaScript's `ToNumber`.
pub(crate) fn number(v: &Value) -> f64 {
    let Value::Data(b) = v else {
        return f64::NAN;
    };
    match b {
        Bson::Int32(i) => f64::from(*i),
        Bson::Int64(i) => *i as f64,
        Bson::Double(d) => *d,
        Bson::Boolean(b) => f64::from(u8::from(*b)),
        Bson::Null => 0.0,
        Bson::DateTime(d) => d.timestamp_millis() as f64,
        Bson::String(s) => string_to_number(s),
        Bson::Decimal128(d) => crate::values::decimal::Decimal::from_bson(d)
            .to_string()
            .parse()
            .unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

fn string_to_number(s: &str) -> f64 {
    let t = s.trim();
    match t {
        "" => 0.0,
        "Infinity" | "+Infinity" => f64::INFINITY,
        "-Infinity" => f64::NEG_INFINITY,
        _ if t.starts_with("0x") || t.starts_with("0X") => u64::from_str_radix(&t[2..], 16)
            .map(|n| n as f64)
            .unwrap_or(f64::NAN),
        // Rust also reads "inf" and "nan", which JavaScript does not.
        _ if t
            .chars()
            .any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') =>
        {
            f64::NAN
        }
        _ => t.parse().unwrap_or(f64::NAN),
    }
}

/// JavaScript's `ToString`, as `String(v)` and template literals use it.
pub(crate) fn js_string(v: &Value) -> String {
    let Value::Data(b) = v else {
        return describe(v);
    };
    match b {
        Bson::String(s) => s.clone(),
        Bson::Int32(i) => i.to_string(),
        Bson::Int64(i) => i.to_string(),
        Bson::Double(d) => js_number_to_string(*d),
        Bson::Boolean(b) => b.to_string(),
        Bson::Null => "null".into(),
        Bson::Undefined => "undefined".into(),
        Bson::ObjectId(o) => o.to_hex(),
        Bson::DateTime(d) => crate::values::encoding::format_js_date_string(d.timestamp_millis()),
        Bson::Document(_) => "[object Object]".into(),
        Bson::Array(a) => a
            .iter()
            .map(|x| match x {
                Bson::Null | Bson::Undefined => String::new(),
                x => js_string(&Value::Data(x.clone())),
            })
            .collect::<Vec<_>>()
            .join(","),
        other => format_value(other),
    }
}

/// A prefix operator.
pub(crate) fn unary(op: UnaryOp, v: &Value) -> Result<Bson, StatementError> {
    Ok(match op {
        UnaryOp::Not => Bson::Boolean(!truthy(v)),
        UnaryOp::Neg => js_number(-number(v)),
        UnaryOp::Plus => js_number(number(v)),
    })
}

/// An arithmetic operator: `+` joins strings when either side is a string or an
/// object (JavaScript turns objects into strings first); otherwise numbers.
pub(crate) fn binary(op: BinaryOp, l: &Value, r: &Value) -> Result<Bson, StatementError> {
    let stringy = |v: &Value| {
        matches!(
            v,
            Value::Data(Bson::String(_) | Bson::Document(_) | Bson::Array(_)) | Value::Func(_)
        )
    };
    if op == BinaryOp::Add && (stringy(l) || stringy(r)) {
        let (a, b) = (js_string(l), js_string(r));
        if a.len() + b.len() > MAX_STRING_BYTES {
            return Err(string_too_long());
        }
        return Ok(Bson::String(a + &b));
    }
    let (a, b) = (number(l), number(r));
    Ok(js_number(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Rem => a % b,
    }))
}

fn is_number(b: &Bson) -> bool {
    matches!(b, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_))
}

/// `===`: numbers by value whatever their BSON type; other values by content (where
/// JavaScript compares objects by identity, the script compares what they hold).
fn strict_eq(l: &Value, r: &Value) -> bool {
    match (l, r) {
        (Value::Data(a), Value::Data(b)) if is_number(a) && is_number(b) => number(l) == number(r),
        (Value::Data(a), Value::Data(b)) => a == b,
        (Value::Func(a), Value::Func(b)) => std::rc::Rc::ptr_eq(a, b),
        (Value::Native(a), Value::Native(b)) => a == b,
        _ => false,
    }
}

/// `==`: `null` equals `undefined`, and numbers, strings and booleans compare as numbers.
fn loose_eq(l: &Value, r: &Value) -> bool {
    let nullish = |v: &Value| matches!(v, Value::Data(Bson::Null | Bson::Undefined));
    if nullish(l) || nullish(r) {
        return nullish(l) && nullish(r);
    }
    let primitive = |v: &Value| matches!(v, Value::Data(b) if is_number(b) || matches!(b, Bson::String(_) | Bson::Boolean(_)));
    if primitive(l) && primitive(r) && std::mem::discriminant(l) == std::mem::discriminant(r) {
        if let (Value::Data(Bson::String(a)), Value::Data(Bson::String(b))) = (l, r) {
            return a == b;
        }
        return number(l) == number(r);
    }
    strict_eq(l, r)
}

/// A comparison operator.
pub(crate) fn compare(op: CompareOp, l: &Value, r: &Value) -> bool {
    match op {
        CompareOp::StrictEq => strict_eq(l, r),
        CompareOp::StrictNe => !strict_eq(l, r),
        CompareOp::Eq => loose_eq(l, r),
        CompareOp::Ne => !loose_eq(l, r),
        _ => {
            let ord = match (l, r) {
                (Value::Data(Bson::String(a)), Value::Data(Bson::String(b))) => {
                    Some(a.encode_utf16().cmp(b.encode_utf16()))
                }
                _ => number(l).partial_cmp(&number(r)),
            };
            let Some(ord) = ord else {
                return false;
            };
            match op {
                CompareOp::Lt => ord.is_lt(),
                CompareOp::Le => ord.is_le(),
                CompareOp::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            }
        }
    }
}

/// `base.key` (or `base[key]`).
pub(crate) fn property(base: &Value, key: &str) -> Result<Value, StatementError> {
    let data = match base {
        Value::Data(b) => b,
        Value::Native(ns) => return Ok(namespace_member(ns, key)),
        Value::Func(f) => {
            return Ok(Value::Data(match (key, f.name()) {
                ("name", Some(n)) => Bson::String(n.to_string()),
                ("length", _) => js_number(f.def.params.len() as f64),
                _ => Bson::Undefined,
            }))
        }
    };
    data_property(data, key).map(Value::Data)
}

/// `data.key` (or `data[key]`) of a BSON value, copying only the result.
pub(crate) fn data_property(data: &Bson, key: &str) -> Result<Bson, StatementError> {
    let v = match data {
        Bson::Document(d) => d.get(key).cloned().unwrap_or(Bson::Undefined),
        Bson::Array(a) if key == "length" => js_number(a.len() as f64),
        Bson::Array(a) => index(key)
            .and_then(|i| a.get(i).cloned())
            .unwrap_or(Bson::Undefined),
        Bson::String(s) if key == "length" => js_number(s.encode_utf16().count() as f64),
        Bson::String(s) => index(key)
            .and_then(|i| s.chars().nth(i))
            .map_or(Bson::Undefined, |c| Bson::String(c.to_string())),
        Bson::Null | Bson::Undefined => {
            return Err(StatementError::type_error(format!(
                "Cannot read properties of {} (reading '{key}')",
                if *data == Bson::Null {
                    "null"
                } else {
                    "undefined"
                }
            )))
        }
        _ => Bson::Undefined,
    };
    Ok(v)
}

fn index(key: &str) -> Option<usize> {
    key.parse::<usize>().ok()
}

/// `Math.PI`, `Math.floor`, `Date.now`, ...: constants, or the shell function so named.
fn namespace_member(ns: &str, key: &str) -> Value {
    match (ns, key) {
        ("Math", "PI") => Value::Data(Bson::Double(std::f64::consts::PI)),
        ("Math", "E") => Value::Data(Bson::Double(std::f64::consts::E)),
        ("Math" | "Object" | "Date" | "JSON" | "Array", _) => Value::Native(format!("{ns}.{key}")),
        _ => Value::Data(Bson::Undefined),
    }
}

/// Sets element `key` of an array, growing it with `undefined` as JavaScript leaves
/// holes.
pub(crate) fn set_element(a: &mut Vec<Bson>, key: &str, v: Bson) -> Result<(), StatementError> {
    let Some(i) = index(key) else {
        // A named property on an array: kept by JavaScript, not by a BSON array.
        return Ok(());
    };
    if i < a.len() {
        a[i] = v;
        return Ok(());
    }
    if i - a.len() > MAX_ARRAY_GROWTH {
        return Err(StatementError {
            kind: super::interpreter::ErrorKind::Range,
            code: 0,
            code_name: String::new(),
            message: "Invalid array length".into(),
            span: None,
            detail: String::new(),
        });
    }
    a.resize(i, Bson::Undefined);
    a.push(v);
    Ok(())
}

fn arg(args: &[Value], i: usize) -> Value {
    args.get(i).cloned().unwrap_or(Value::UNDEFINED)
}

fn num(x: f64) -> Value {
    Value::Data(js_number(x))
}

/// `Math.<name>(args)`.
fn math(name: &str, args: &[Value], random: &mut crate::support::rng::SplitMix64) -> Option<Value> {
    let x = number(&arg(args, 0));
    let v = match name {
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        // JavaScript rounds halves up (towards +Infinity), unlike Rust's `round`.
        "round" => (x + 0.5).floor(),
        "trunc" => x.trunc(),
        "abs" => x.abs(),
        "sqrt" => x.sqrt(),
        "sign" if x.is_nan() || x == 0.0 => x,
        "sign" => x.signum(),
        "pow" => x.powf(number(&arg(args, 1))),
        "random" => random.unit(),
        "min" | "max" => {
            let mut acc = if name == "min" {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            for a in args {
                let n = number(a);
                if n.is_nan() {
                    return Some(num(f64::NAN));
                }
                acc = if name == "min" {
                    acc.min(n)
                } else {
                    acc.max(n)
                };
            }
            acc
        }
        _ => return None,
    };
    Some(num(v))
}

impl Session {
    /// Calls a shell function by name: `print`, `Math.floor`, a constructor, ...
    pub(crate) fn call_native(
        &mut self,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, StatementError> {
        if let Some(m) = name.strip_prefix("Math.") {
            return math(m, &args, &mut self.script.random)
                .ok_or_else(|| StatementError::type_error(format!("Math.{m} is not a function")));
        }
        match name {
            "print" | "printjson" => return self.print_line(name, args),
            "Object.keys" => return Ok(object_keys(&arg(&args, 0))),
            "Array.isArray" => {
                let is = matches!(arg(&args, 0), Value::Data(Bson::Array(_)));
                return Ok(Value::Data(Bson::Boolean(is)));
            }
            "Array.from" => return self.array_from(&args),
            "String" => {
                return Ok(Value::Data(Bson::String(if args.is_empty() {
                    String::new()
                } else {
                    js_string(&args[0])
                })))
            }
            "Number" => {
                return Ok(num(if args.is_empty() {
                    0.0
                } else {
                    number(&args[0])
                }))
            }
            "isNaN" => return Ok(Value::Data(Bson::Boolean(number(&arg(&args, 0)).is_nan()))),
            "parseFloat" => return Ok(num(parse_float(&js_string(&arg(&args, 0))))),
            "parseInt" => return Ok(num(parse_int(&js_string(&arg(&args, 0)), &arg(&args, 1)))),
            _ => {}
        }
        if is_constructor(name) {
            let vals = args
                .into_iter()
                .map(into_bson)
                .collect::<Result<Vec<_>, _>>()?;
            return construct(name, &vals, false, &mut self.ctx, Span::default())
                .map(Value::Data)
                .map_err(StatementError::from);
        }
        Err(StatementError::type_error(format!(
            "{name} is not a function"
        )))
    }
}

/// How many elements `Array.from({length: n})` may make: MongoDB's limit on the values
/// one shell value may hold (see [`crate::values::limits`]).
const MAX_FROM_LENGTH: f64 = crate::values::limits::MAX_VALUES as f64;

impl Session {
    /// `Array.from(array or string or {length: n}, [f])`: the elements, each through `f`
    /// (with its index) when given.
    fn array_from(&mut self, args: &[Value]) -> Result<Value, StatementError> {
        let items: Vec<Bson> = match arg(args, 0) {
            Value::Data(Bson::Array(a)) => a,
            Value::Data(Bson::String(s)) => characters(&s)?,
            Value::Data(Bson::Document(d)) => {
                let n = number(&Value::Data(
                    d.get("length").cloned().unwrap_or(Bson::Undefined),
                ));
                let n = if n.is_nan() { 0.0 } else { n.max(0.0).trunc() };
                if n > MAX_FROM_LENGTH {
                    return Err(StatementError::from(
                        crate::values::limits::too_many_values(),
                    ));
                }
                vec![Bson::Undefined; n as usize]
            }
            _ => Vec::new(),
        };
        let Some(f) = args.get(1) else {
            return Ok(Value::Data(Bson::Array(items)));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, x) in items.into_iter().enumerate() {
            let v = self.call_value(f, vec![Value::Data(x), num(i as f64)])?;
            out.push(into_bson(v)?);
        }
        crate::values::limits::measure(
            &Bson::Array(out.clone()),
            crate::values::limits::MAX_BSON_BYTES,
        )?;
        Ok(Value::Data(Bson::Array(out)))
    }
}

fn object_keys(v: &Value) -> Value {
    let keys = match v {
        Value::Data(Bson::Document(d)) => d.keys().map(|k| Bson::String(k.clone())).collect(),
        Value::Data(Bson::Array(a)) => (0..a.len()).map(|i| Bson::String(i.to_string())).collect(),
        _ => Vec::new(),
    };
    Value::Data(Bson::Array(keys))
}

fn parse_float(s: &str) -> f64 {
    let t = s.trim_start();
    let end = t
        .char_indices()
        .take_while(|(i, c)| {
            c.is_ascii_digit()
                || *c == '.'
                || ((*c == '-' || *c == '+') && *i == 0)
                || *c == 'e'
                || *c == 'E'
        })
        .map(|(i, c)| i + c.len_utf8())
        .last()
        .unwrap_or(0);
    (0..=end)
        .rev()
        .find_map(|e| t[..e].parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

fn parse_int(s: &str, radix: &Value) -> f64 {
    let t = s.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let given = number(radix);
    let auto = given.is_nan() || given == 0.0;
    let mut radix = if auto { 10 } else { given as u32 };
    let mut t = t;
    if (auto || radix == 16) && (t.starts_with("0x") || t.starts_with("0X")) {
        radix = 16;
        t = &t[2..];
    }
    if !(2..=36).contains(&radix) {
        return f64::NAN;
    }
    let digits: String = t.chars().take_while(|c| c.is_digit(radix)).collect();
    if digits.is_empty() {
        return f64::NAN;
    }
    let v = digits.chars().fold(0.0, |acc, c| {
        acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
    });
    if neg {
        -v
    } else {
        v
    }
}

/// The text of a place for an error message: `a`, `a.b`, or `value`.
pub(crate) fn place_text(e: &Expr) -> String {
    crate::shell::parser::flatten(e)
        .filter(|s| s.iter().all(|seg| seg.args.is_none()))
        .map(|s| {
            s.iter()
                .map(|seg| seg.name.as_str())
                .collect::<Vec<_>>()
                .join(".")
        })
        .unwrap_or_else(|| "value".to_string())
}
