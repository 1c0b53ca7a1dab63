//! Reading raw BSON bytes in place: one field of an encoded document without decoding
//! the rest.

use bson::oid::ObjectId;
use bson::{RawBsonRef, RawDocument};

/// The value of the top-level field `name` of `doc`, as `RawDocument::get` finds it (`None`
/// also for malformed bytes). Scalars are read by a quick walk over the elements; other
/// values are left to `bson`'s reader.
pub(crate) fn raw_get<'a>(doc: &'a RawDocument, name: &str) -> Option<RawBsonRef<'a>> {
    let Some((kind, value)) = find_element(doc.as_bytes(), name.as_bytes()) else {
        return doc.get(name).ok().flatten();
    };
    let fixed = |n: usize| value.get(..n);
    Some(match kind {
        0x01 => RawBsonRef::Double(f64::from_le_bytes(fixed(8)?.try_into().ok()?)),
        0x07 => RawBsonRef::ObjectId(ObjectId::from_bytes(fixed(12)?.try_into().ok()?)),
        0x08 => RawBsonRef::Boolean(*value.first()? != 0),
        0x0A => RawBsonRef::Null,
        0x10 => RawBsonRef::Int32(i32::from_le_bytes(fixed(4)?.try_into().ok()?)),
        0x12 => RawBsonRef::Int64(i64::from_le_bytes(fixed(8)?.try_into().ok()?)),
        0x03 => RawBsonRef::Document(RawDocument::from_bytes(value).ok()?),
        _ => return doc.get(name).ok().flatten(),
    })
}

/// The type byte and value bytes of the top-level element named `name` in BSON `bytes`.
pub(crate) fn find_element<'a>(bytes: &'a [u8], name: &[u8]) -> Option<(u8, &'a [u8])> {
    let mut at = 4;
    loop {
        let kind = *bytes.get(at)?;
        if kind == 0 {
            return None;
        }
        let key = bytes.get(at + 1..)?;
        let key_len = key.iter().position(|&b| b == 0)?;
        let value_at = at + 1 + key_len + 1;
        let len = value_len(kind, bytes.get(value_at..)?)?;
        // Names are short: a loop compares them faster than a call to `memcmp`.
        if key_len == name.len() && key.iter().zip(name).all(|(a, b)| a == b) {
            return Some((kind, bytes.get(value_at..value_at + len)?));
        }
        at = value_at + len;
    }
}

/// The length of a value of BSON type `kind` whose bytes start `value`.
pub(crate) fn value_len(kind: u8, value: &[u8]) -> Option<usize> {
    let length = || -> Option<usize> {
        let n = i32::from_le_bytes(value.get(..4)?.try_into().ok()?);
        usize::try_from(n).ok()
    };
    let cstring = |from: usize| -> Option<usize> {
        Some(value.get(from..)?.iter().position(|&b| b == 0)? + 1)
    };
    Some(match kind {
        0x01 | 0x09 | 0x11 | 0x12 => 8,
        0x02 | 0x0D | 0x0E => 4 + length()?,
        0x03 | 0x04 | 0x0F => length()?,
        0x05 => 5 + length()?,
        0x06 | 0x0A | 0x7F | 0xFF => 0,
        0x07 => 12,
        0x08 => 1,
        0x0B => {
            let pattern = cstring(0)?;
            pattern + cstring(pattern)?
        }
        0x0C => 4 + length()? + 12,
        0x10 => 4,
        0x13 => 16,
        _ => return None,
    })
}
