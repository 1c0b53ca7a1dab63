//! MongoDB's 64-bit value hash, used by hashed indexes and hashed shard keys (spec §4).
//!
//! `hash64(value, seed)` is the first 8 bytes, read as a little-endian `i64`, of the
//! MD5 of the seed followed by the value's canonical encoding (`BSONElementHasher` in
//! MongoDB's `hasher.cpp`). Numbers of every type are squashed to an `i64` first, so
//! `2`, `NumberLong(2)`, `2.9` and `NumberDecimal("2.5")` share a hash.
//!
//! The digest is fed piece by piece, so hashing a scalar allocates nothing.

use crate::values::decimal::Decimal;
use crate::values::order::{canonical_class, db_pointer_parts};
use bson::{Bson, Document};
use md5::{Digest, Md5};

/// The seed MongoDB uses for hashed indexes and hashed shard keys.
pub const DEFAULT_HASH_SEED: i32 = 0;

/// Hashes a value with the given seed, exactly as MongoDB's
/// `BSONElementHasher::hash64` does.
pub fn hash64(value: &Bson, seed: i32) -> i64 {
    let mut md5 = Md5::new();
    md5.update(seed.to_le_bytes());
    feed(&mut md5, value, None);
    let digest = md5.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_le_bytes(first)
}

/// The hashed shard key value of a field value: `hash64(value, 0)`
/// (MongoDB's `convertShardKeyToHashed`).
pub fn convert_shard_key_to_hashed(value: &Bson) -> i64 {
    hash64(value, DEFAULT_HASH_SEED)
}

/// Converts a number to the `i64` MongoDB hashes (`safeNumberLongForHash`), or
/// `None` for a value that is not a number.
///
/// Doubles truncate toward zero and saturate, NaN gives 0, and exactly 2^63 gives
/// `i64::MIN`: MongoDB keeps that historical quirk so existing hashed indexes stay
/// valid. Decimals round half to even and saturate, with no such quirk.
pub fn number_for_hash(value: &Bson) -> Option<i64> {
    match value {
        Bson::Int32(i) => Some(i64::from(*i)),
        Bson::Int64(i) => Some(*i),
        Bson::Double(d) => Some(double_for_hash(*d)),
        Bson::Decimal128(d) => Some(Decimal::from_bson(d).to_i64_saturating()),
        _ => None,
    }
}

/// The double case of [`number_for_hash`].
fn double_for_hash(d: f64) -> i64 {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    if d.is_nan() {
        0
    } else if d == TWO_POW_63 {
        i64::MIN
    } else {
        // Rust's float-to-int cast truncates toward zero and saturates, which is
        // exactly MongoDB's rule for every other double, infinities included.
        d as i64
    }
}

/// Feeds one value: its class, its name when nested, then its payload.
fn feed(md5: &mut Md5, value: &Bson, name: Option<&[u8]>) {
    md5.update(canonical_class(value).to_le_bytes());
    if let Some(name) = name {
        md5.update(name);
        md5.update([0u8]);
    }
    match value {
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            let n = number_for_hash(value).unwrap_or(0);
            md5.update(n.to_le_bytes());
        }
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => feed_string(md5, s),
        Bson::Document(doc) => feed_fields(md5, doc),
        Bson::Array(items) => {
            let mut buf = [0u8; 20];
            for (i, item) in items.iter().enumerate() {
                let name = index_name(i, &mut buf);
                feed(md5, item, Some(name));
            }
            feed_end(md5);
        }
        Bson::Binary(bin) => {
            md5.update(len_i32(bin.bytes.len()).to_le_bytes());
            md5.update([u8::from(bin.subtype)]);
            md5.update(&bin.bytes);
        }
        Bson::ObjectId(oid) => md5.update(oid.bytes()),
        Bson::Boolean(b) => md5.update([u8::from(*b)]),
        Bson::DateTime(dt) => md5.update(dt.timestamp_millis().to_le_bytes()),
        Bson::Timestamp(ts) => {
            md5.update(ts.increment.to_le_bytes());
            md5.update(ts.time.to_le_bytes());
        }
        Bson::RegularExpression(re) => {
            md5.update(re.pattern.as_str().as_bytes());
            md5.update([0u8]);
            md5.update(re.options.as_str().as_bytes());
            md5.update([0u8]);
        }
        Bson::DbPointer(p) => {
            // The parts are always readable (see `db_pointer_parts`); an unreadable
            // pointer hashes as an empty namespace and a zero id rather than panicking.
            let (namespace, id) = db_pointer_parts(p).unwrap_or_default();
            feed_string(md5, &namespace);
            md5.update(id);
        }
        Bson::JavaScriptCodeWithScope(cws) => {
            md5.update(cws.code.as_bytes());
            md5.update([0u8]);
            feed_fields(md5, &cws.scope);
        }
        Bson::Null | Bson::Undefined | Bson::MinKey | Bson::MaxKey => {}
    }
}

/// Feeds a BSON string: length including the terminating NUL, bytes, NUL.
fn feed_string(md5: &mut Md5, s: &str) {
    md5.update(len_i32(s.len() + 1).to_le_bytes());
    md5.update(s.as_bytes());
    md5.update([0u8]);
}

/// Feeds every field of a document with its name, then the end marker.
fn feed_fields(md5: &mut Md5, doc: &Document) {
    for (name, value) in doc {
        feed(md5, value, Some(name.as_bytes()));
    }
    feed_end(md5);
}

/// Feeds the end-of-object marker: class 0, an empty name and no payload. MongoDB
/// hashes the EOO element with its (empty, unterminated) name, so this is exactly
/// four zero bytes.
fn feed_end(md5: &mut Md5) {
    md5.update(0i32.to_le_bytes());
}

/// A length as BSON writes it. Real BSON values are far below 2 GiB; a longer
/// one is clamped rather than wrapped.
fn len_i32(len: usize) -> i32 {
    i32::try_from(len).unwrap_or(i32::MAX)
}

/// Writes an array index as decimal digits into `buf` without allocating.
fn index_name(mut i: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut pos = buf.len();
    loop {
        pos -= 1;
        // A digit is below 10, so the cast is exact.
        buf[pos] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    &buf[pos..]
}
