//! The total order MongoDB uses for BSON values (spec §1).
//!
//! Values compare first by canonical type class, then by value within the class.
//! This one order is used everywhere: chunk bounds, split points, sorting, zones.
//! It mirrors MongoDB's `compareElementValues` and `BSONObj::woCompare` with field
//! names considered and no collation.

use crate::values::decimal::Decimal;
use bson::{Bson, DbPointer, Document};
use std::cmp::Ordering;

/// The canonical type class of a value (spec §1 table). Numbers share one class,
/// as do strings and symbols, so that values of those types compare by value.
pub fn canonical_class(v: &Bson) -> i32 {
    match v {
        Bson::MinKey => -1,
        Bson::Undefined => 0,
        Bson::Null => 5,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 10,
        Bson::String(_) | Bson::Symbol(_) => 15,
        Bson::Document(_) => 20,
        Bson::Array(_) => 25,
        Bson::Binary(_) => 30,
        Bson::ObjectId(_) => 35,
        Bson::Boolean(_) => 40,
        Bson::DateTime(_) => 45,
        Bson::Timestamp(_) => 47,
        Bson::RegularExpression(_) => 50,
        Bson::DbPointer(_) => 55,
        Bson::JavaScriptCode(_) => 60,
        Bson::JavaScriptCodeWithScope(_) => 65,
        Bson::MaxKey => 127,
    }
}

/// Compares two BSON values as MongoDB does.
///
/// The order is total: it is reflexive, antisymmetric and transitive over every
/// value, NaN included (NaN equals NaN and sorts below every other number).
pub fn compare_values(a: &Bson, b: &Bson) -> Ordering {
    // The common cases first: two integers of one width.
    match (a, b) {
        (Bson::Int64(x), Bson::Int64(y)) => return x.cmp(y),
        (Bson::Int32(x), Bson::Int32(y)) => return x.cmp(y),
        _ => {}
    }
    let (ca, cb) = (canonical_class(a), canonical_class(b));
    if ca != cb {
        return ca.cmp(&cb);
    }
    match (a, b) {
        (Bson::String(x) | Bson::Symbol(x), Bson::String(y) | Bson::Symbol(y)) => {
            x.as_bytes().cmp(y.as_bytes())
        }
        (Bson::Document(x), Bson::Document(y)) => compare_documents(x, y),
        (Bson::Array(x), Bson::Array(y)) => compare_arrays(x, y),
        (Bson::Binary(x), Bson::Binary(y)) => x
            .bytes
            .len()
            .cmp(&y.bytes.len())
            .then_with(|| u8::from(x.subtype).cmp(&u8::from(y.subtype)))
            .then_with(|| x.bytes.cmp(&y.bytes)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.timestamp_millis().cmp(&y.timestamp_millis()),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            (x.time, x.increment).cmp(&(y.time, y.increment))
        }
        (Bson::RegularExpression(x), Bson::RegularExpression(y)) => x
            .pattern
            .as_str()
            .as_bytes()
            .cmp(y.pattern.as_str().as_bytes())
            .then_with(|| {
                x.options
                    .as_str()
                    .as_bytes()
                    .cmp(y.options.as_str().as_bytes())
            }),
        (Bson::DbPointer(x), Bson::DbPointer(y)) => compare_db_pointers(x, y),
        (Bson::JavaScriptCode(x), Bson::JavaScriptCode(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Bson::JavaScriptCodeWithScope(x), Bson::JavaScriptCodeWithScope(y)) => x
            .code
            .as_bytes()
            .cmp(y.code.as_bytes())
            .then_with(|| compare_documents(&x.scope, &y.scope)),
        _ => match (Number::of(a), Number::of(b)) {
            (Some(x), Some(y)) => compare_numbers(x, y),
            // MinKey, MaxKey, null and undefined: every value of the class is equal.
            _ => Ordering::Equal,
        },
    }
}

/// Compares two documents as `BSONObj::woCompare` does with field names considered:
/// element by element, canonical class first, then field name (raw bytes), then
/// value; a proper prefix sorts first.
pub fn compare_documents(a: &Document, b: &Document) -> Ordering {
    let mut ia = a.iter();
    let mut ib = b.iter();
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some((ka, va)), Some((kb, vb))) => {
                let o = canonical_class(va)
                    .cmp(&canonical_class(vb))
                    .then_with(|| ka.as_bytes().cmp(kb.as_bytes()))
                    .then_with(|| compare_values(va, vb));
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

/// Compares two arrays as documents whose field names are "0", "1", ...: since the
/// names of elements at the same position are equal, only the values matter.
fn compare_arrays(a: &[Bson], b: &[Bson]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = compare_values(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Compares DBPointers as MongoDB does: by the size of the value first (so by
/// namespace length), then by the value's bytes (namespace, then ObjectId).
fn compare_db_pointers(a: &DbPointer, b: &DbPointer) -> Ordering {
    let (pa, pb) = (db_pointer_parts(a), db_pointer_parts(b));
    match (pa, pb) {
        (Some((na, ia)), Some((nb, ib))) => na
            .len()
            .cmp(&nb.len())
            .then_with(|| na.as_bytes().cmp(nb.as_bytes()))
            .then_with(|| ia.cmp(&ib)),
        // The parts are always readable; this only keeps the order total otherwise.
        (pa, pb) => pa.is_some().cmp(&pb.is_some()),
    }
}

/// Reads a DBPointer's namespace and ObjectId bytes.
///
/// The `bson` crate keeps both fields private, so they are read back from the value's
/// BSON encoding, where the namespace is length-prefixed (a namespace holding ", " or
/// anything else is read exactly).
pub fn db_pointer_parts(p: &DbPointer) -> Option<(String, [u8; 12])> {
    let mut doc = bson::Document::new();
    doc.insert("p", Bson::DbPointer(p.clone()));
    let bytes = doc.to_vec().ok()?;
    // Layout: i32 total, 0x0c, "p\0", i32 string length, string bytes, NUL, 12-byte id.
    let len_bytes: [u8; 4] = bytes.get(7..11)?.try_into().ok()?;
    let len = usize::try_from(i32::from_le_bytes(len_bytes)).ok()?;
    let ns_end = 11 + len.checked_sub(1)?;
    let ns = String::from_utf8(bytes.get(11..ns_end)?.to_vec()).ok()?;
    let id: [u8; 12] = bytes.get(ns_end + 1..ns_end + 13)?.try_into().ok()?;
    Some((ns, id))
}

/// A BSON number, borrowed for comparison.
#[derive(Debug, Clone, Copy)]
pub enum Number {
    /// An int32 or int64.
    Int(i64),
    /// A double.
    Double(f64),
    /// A decimal128.
    Decimal(Decimal),
}

impl Number {
    /// The number held by a value, if it is one.
    pub fn of(v: &Bson) -> Option<Number> {
        match v {
            Bson::Int32(i) => Some(Number::Int(i64::from(*i))),
            Bson::Int64(i) => Some(Number::Int(*i)),
            Bson::Double(d) => Some(Number::Double(*d)),
            Bson::Decimal128(d) => Some(Number::Decimal(Decimal::from_bson(d))),
            _ => None,
        }
    }
}

/// Compares two numbers by exact mathematical value, whatever their types.
pub fn compare_numbers(a: Number, b: Number) -> Ordering {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => x.cmp(&y),
        (Number::Double(x), Number::Double(y)) => compare_doubles(x, y),
        (Number::Int(x), Number::Double(y)) => compare_i64_f64(x, y),
        (Number::Double(x), Number::Int(y)) => compare_i64_f64(y, x).reverse(),
        (Number::Decimal(x), Number::Decimal(y)) => x.cmp_decimal(&y),
        (Number::Decimal(x), Number::Int(y)) => x.cmp_i64(y),
        (Number::Int(x), Number::Decimal(y)) => y.cmp_i64(x).reverse(),
        (Number::Decimal(x), Number::Double(y)) => x.cmp_f64(y),
        (Number::Double(x), Number::Decimal(y)) => y.cmp_f64(x).reverse(),
    }
}

/// Compares doubles with NaN equal to NaN and below everything; `-0.0 == 0.0`.
fn compare_doubles(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Compares an `i64` with a double exactly, even beyond 2^53 where casting the
/// integer to `f64` would round.
fn compare_i64_f64(x: i64, y: f64) -> Ordering {
    // 2^63 as a double; every double at or above it exceeds every i64.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if y.is_nan() {
        return Ordering::Greater;
    }
    if y >= TWO_POW_63 {
        return Ordering::Less;
    }
    if y < -TWO_POW_63 {
        return Ordering::Greater;
    }
    let truncated = y.trunc();
    // The double is within [-2^63, 2^63) and integral, so the cast is exact.
    let whole = truncated as i64;
    x.cmp(&whole).then_with(|| {
        let fraction = y - truncated;
        if fraction > 0.0 {
            Ordering::Less
        } else if fraction < 0.0 {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    })
}
