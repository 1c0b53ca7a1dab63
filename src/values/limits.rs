//! The limits every value meets, in MongoDB's numbers: how deep a value may nest and how
//! large it may be. Measuring walks the value with a list of its own, never the call
//! stack, and stops as soon as a limit is passed, so a hostile value costs no more than
//! the limit to refuse.

use crate::values::error::ClusterError;
use bson::Bson;

/// The deepest a value may nest: `BSONDepth::kDefaultMaxAllowableDepth`, the depth of any
/// BSON the server accepts (a stored document gets 20 levels less).
pub const MAX_BSON_DEPTH: u32 = 200;

/// The largest a value may be, in BSON bytes: `BSONObjMaxInternalSize`, the 16 MiB user
/// limit plus the 16 KiB the server allows itself for a command around it.
pub const MAX_BSON_BYTES: u64 = 16 * 1024 * 1024 + 16 * 1024;

/// The longest a string may be, in UTF-8 bytes: a longer one could not be stored in any
/// document (`BSONObjMaxUserSize`, 16 MiB).
pub const MAX_STRING_BYTES: usize = 16 * 1024 * 1024;

/// The most values (documents, arrays and scalars, counted one each) a value built in
/// the shell may hold. BSON's 16 MiB would allow about two million tiny ones, which take
/// about 200 bytes each once decoded, and a statement may hold a few copies of a value
/// on its way into a document (fuzzing found 100,000 values to cost about a second and a
/// few hundred MB natively in the worst case): far more would not fit in a page.
pub const MAX_VALUES: u64 = 100_000;

/// MongoDB's error for a value holding more than [`MAX_VALUES`] values.
pub fn too_many_values() -> ClusterError {
    ClusterError::ExceededMemoryLimit(format!(
        "a value built in the shell may hold at most {MAX_VALUES} values (documents, arrays and scalars)"
    ))
}

/// A value's nesting depth (a scalar is 0, `{a: 1}` is 1), its size as a BSON element's
/// value, and how many values it holds (itself included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Measure {
    /// Levels of documents and arrays.
    pub depth: u32,
    /// Bytes of its BSON encoding (for a document or an array, the whole embedded
    /// document; for a scalar, its value bytes).
    pub bytes: u64,
    /// Values held, itself included.
    pub values: u64,
}

/// MongoDB's error for a value nested past [`MAX_BSON_DEPTH`].
pub fn too_deep() -> ClusterError {
    ClusterError::Overflow("BSONObj exceeds maximum nested object depth".to_string())
}

/// MongoDB's error for a value of `bytes` bytes, past [`MAX_BSON_BYTES`].
pub fn too_large(bytes: u64) -> ClusterError {
    ClusterError::BsonObjectTooLarge(format!(
        "BSONObj size: {bytes} (0x{bytes:X}) is invalid. Size must be between 0 and {MAX_BSON_BYTES}(16MB)"
    ))
}

/// Measures `value`, refusing it as soon as it nests past [`MAX_BSON_DEPTH`] or grows
/// past `budget` bytes (at most [`MAX_BSON_BYTES`]).
pub fn measure(value: &Bson, budget: u64) -> Result<Measure, ClusterError> {
    measure_after(value, &Measure::default(), budget)
}

/// Measures `value` as a part of something already measured as `before`, refusing it as
/// soon as the whole would pass `limit` bytes (at most [`MAX_BSON_BYTES`]) or
/// [`MAX_VALUES`] values; the error gives the whole's size so far. The measure returned
/// is the value's alone.
pub fn measure_after(value: &Bson, before: &Measure, limit: u64) -> Result<Measure, ClusterError> {
    let limit = limit.min(MAX_BSON_BYTES);
    let mut total = Measure::default();
    // Each entry is a value still to count and its depth.
    let mut pending: Vec<(&Bson, u32)> = vec![(value, 0)];
    while let Some((v, depth)) = pending.pop() {
        let (bytes, children) = scalar_bytes(v);
        total.bytes += bytes;
        total.values += 1;
        if before.values + total.values > MAX_VALUES {
            return Err(too_many_values());
        }
        if let Some(level) = children {
            let depth = depth + 1;
            if depth > MAX_BSON_DEPTH {
                return Err(too_deep());
            }
            total.depth = total.depth.max(depth);
            match level {
                Children::Document(d) => {
                    for (k, child) in d {
                        // Type byte, name and its NUL.
                        total.bytes += 2 + k.len() as u64;
                        pending.push((child, depth));
                    }
                }
                Children::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        total.bytes += 2 + decimal_len(i);
                        pending.push((child, depth));
                    }
                }
            }
        }
        if before.bytes + total.bytes > limit {
            return Err(too_large(before.bytes + total.bytes));
        }
    }
    Ok(total)
}

/// The children of a document or an array.
enum Children<'a> {
    Document(&'a bson::Document),
    Array(&'a [Bson]),
}

/// A value's own bytes (for a document or an array, its length prefix and final NUL),
/// and its children if it has any.
fn scalar_bytes(v: &Bson) -> (u64, Option<Children<'_>>) {
    let n = match v {
        Bson::Document(d) => return (5, Some(Children::Document(d))),
        Bson::Array(a) => return (5, Some(Children::Array(a))),
        Bson::JavaScriptCodeWithScope(c) => {
            return (
                4 + 5 + c.code.len() as u64 + 5,
                Some(Children::Document(&c.scope)),
            )
        }
        Bson::String(s) | Bson::JavaScriptCode(s) | Bson::Symbol(s) => 5 + s.len(),
        Bson::Binary(b) => 5 + b.bytes.len(),
        Bson::RegularExpression(r) => r.pattern.len() + r.options.len() + 2,
        Bson::DbPointer(_) => 5 + 12 + 16,
        Bson::Double(_) | Bson::Int64(_) | Bson::DateTime(_) | Bson::Timestamp(_) => 8,
        Bson::Int32(_) => 4,
        Bson::Decimal128(_) => 16,
        Bson::ObjectId(_) => 12,
        Bson::Boolean(_) => 1,
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => 0,
    };
    (n as u64, None)
}

/// The number of decimal digits of `i`.
fn decimal_len(mut i: usize) -> u64 {
    let mut n = 1;
    while i >= 10 {
        i /= 10;
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn a_document_measures_as_its_encoding() {
        let d = doc! {
            "a": 1, "b": "xyz", "c": [1, 2.5, {"d": null}], "e": {"f": bson::oid::ObjectId::from_bytes([1; 12])},
            "g": true, "h": 5i64,
        };
        let encoded = d.to_vec().expect("encodes").len() as u64;
        let m = measure(&Bson::Document(d), MAX_BSON_BYTES).expect("within limits");
        assert_eq!(m.depth, 3);
        assert_eq!(m.bytes, encoded);
        assert_eq!(m.values, 12);
    }

    #[test]
    fn depth_and_size_past_the_limits_are_refused() {
        let mut v = Bson::Int32(1);
        for _ in 0..MAX_BSON_DEPTH {
            v = Bson::Document(doc! { "a": v });
        }
        assert_eq!(
            measure(&v, MAX_BSON_BYTES).map(|m| m.depth),
            Ok(MAX_BSON_DEPTH)
        );
        let deeper = Bson::Array(vec![v]);
        assert_eq!(
            measure(&deeper, MAX_BSON_BYTES).map_err(|e| e.code_name()),
            Err("Overflow")
        );
        let big = Bson::String("x".repeat(1000));
        let err = measure(&big, 999).expect_err("over the budget");
        assert_eq!(err.code_name(), "BSONObjectTooLarge");
        assert!(
            err.to_string()
                .starts_with("BSONObj size: 1005 (0x3ED) is invalid."),
            "{err}"
        );
    }
}
