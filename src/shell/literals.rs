//! The text and number forms that constructors and Extended JSON wrappers both read:
//! ObjectId and UUID hex, Decimal128 and double strings, integers, regex flags, and
//! JavaScript's number conversions.

use crate::values::encoding::hex_decode;
use bson::oid::ObjectId;
use bson::raw::CString;
use bson::{Bson, Decimal128, Regex};

/// ECMAScript `ToInt32`: truncate and wrap modulo 2^32.
pub(super) fn to_int32(v: f64) -> i32 {
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
pub(super) fn parse_int(s: &str) -> Option<f64> {
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
    let v = t[..end].parse::<f64>().ok()?;
    Some(if neg { -v } else { v })
}

/// Sorts regex flags and keeps those BSON knows (`i`, `l`, `m`, `s`, `u`, `x`).
/// JavaScript-only flags (`d`, `g`, `v`, `y`) are dropped.
pub(super) fn bson_regex(pattern: &str, flags: &str) -> Result<Regex, String> {
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
    opts.sort_unstable();
    let options: String = opts.into_iter().collect();
    Ok(Regex {
        pattern: CString::try_from(pattern.to_string())
            .map_err(|_| "regular expression pattern contains a NUL character".to_string())?,
        options: CString::try_from(options).map_err(|e| e.to_string())?,
    })
}

/// Parses a Decimal128 string as MongoDB does: digits with an optional point and
/// exponent, or `NaN`/`Infinity`; inexact rounding is an error.
pub(crate) fn parse_decimal128(s: &str) -> Option<Decimal128> {
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
pub(super) fn parse_oid(s: &str) -> Option<ObjectId> {
    if s.len() != 24 {
        return None;
    }
    let bytes: [u8; 12] = hex_decode(s)?.try_into().ok()?;
    Some(ObjectId::from_bytes(bytes))
}

/// Parses a UUID written as 32 hex digits, with or without the four dashes.
pub(super) fn parse_uuid(s: &str) -> Option<Vec<u8>> {
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

/// An integer written in decimal with an optional `-` (the Extended JSON integer form).
pub(super) fn strict_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses an Extended JSON `$numberDouble` string: a decimal number, `NaN`,
/// `Infinity` or `-Infinity`.
pub(super) fn parse_double_string(s: &str) -> Option<f64> {
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
    s.parse::<f64>().ok()
}

/// JavaScript's `ToNumber` for the values a script can hold; `None` for those it does not
/// convert here (objects, arrays, other BSON types).
pub(crate) fn to_number(v: &Bson) -> Option<f64> {
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
