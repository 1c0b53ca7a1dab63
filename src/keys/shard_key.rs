//! Shard key patterns (spec §2) and extracting a document's shard key (spec §3).
//!
//! Validation follows MongoDB's `parseShardKeyPattern` (`shard_key_pattern.cpp`)
//! check by check and in the same order, so the first error reported for a bad
//! pattern is the one MongoDB would report, word for word.

use crate::values::decimal::Decimal;
use crate::values::error::ClusterError;
use crate::values::hash::convert_shard_key_to_hashed;
use crate::values::order::{compare_values, db_pointer_parts};
use crate::values::path::{walk_path, PathEnd};
use bson::{Bson, Document, RawBsonRef, RawDocument};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt::{self, Write as _};

/// Why a shard key pattern or a document's key was refused, in MongoDB's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardKeyError {
    /// The pattern has no fields.
    #[error("Shard key is empty")]
    Empty,
    /// A field name holds a NUL byte, which no BSON document can carry: the driver
    /// refuses to encode it before any command is sent.
    #[error("key {field} must not contain null bytes")]
    NulInName {
        /// The offending field name.
        field: String,
    },
    /// A field name of the pattern is the empty string.
    #[error("Field {field} is empty")]
    EmptyField {
        /// The offending field name.
        field: String,
    },
    /// A field name does not survive being split on dots and joined again.
    ///
    /// MongoDB keeps this check, but its `FieldRef` keeps empty parts, so every
    /// stray dot is reported as [`ShardKeyError::EmptyParts`] first; this variant
    /// exists so the full set of MongoDB's messages is represented.
    #[error("Field {field} contains extra dot")]
    ExtraDot {
        /// The offending field name.
        field: String,
    },
    /// A dotted field name has an empty part (`a..b`, `.a`, `a.`).
    #[error("Field {field} contains empty parts")]
    EmptyParts {
        /// The offending field name.
        field: String,
    },
    /// A part of a field name starts with `$` (other than a DBRef's `$id`, `$ref`
    /// or `$db` after the first part).
    #[error("Field {field} contains parts that start with '$'")]
    DollarPrefix {
        /// The offending field name.
        field: String,
    },
    /// More than one field of the pattern is `"hashed"`.
    #[error(
        "Shard key {pattern} can contain at most one 'hashed' field. Failed to parse field {field}"
    )]
    TooManyHashed {
        /// The whole pattern as MongoDB's `BSONObj::toString` prints it.
        pattern: String,
        /// The second hashed field.
        field: String,
    },
    /// A field has a value other than 1 or `"hashed"`.
    ///
    /// MongoDB's message really has no space between the pattern and "numerical"
    /// (its source concatenates `keyPattern.toString()` and `"numerical fields..."`);
    /// it is reproduced as MongoDB prints it.
    #[error("Shard key {pattern}numerical fields must be set to a value of 1 (ascending). Failed to parse field {field}")]
    NotAscending {
        /// The whole pattern as MongoDB's `BSONObj::toString` prints it.
        pattern: String,
        /// The offending field.
        field: String,
    },
    /// `unique: true` was asked for a hashed shard key.
    #[error("Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by declaring an additional (non-hashed) unique index on the field.")]
    UniqueHashed,
    /// The document holds an array on the path of a shard key field, or as its value.
    #[error("Shard key cannot contain array values or array descendants.")]
    ArrayValue,
    /// The value of a ranged shard key field is a regular expression, which MongoDB
    /// does not accept as a stored shard key value.
    #[error("Shard key element {element} is not valid for storage")]
    NotValidForStorage {
        /// The element as MongoDB prints it, `<field>: <value>`.
        element: String,
    },
}

impl ShardKeyError {
    /// MongoDB's code name for this error.
    pub fn code_name(&self) -> &'static str {
        match self {
            ShardKeyError::ArrayValue => "ShardKeyNotFound",
            ShardKeyError::UniqueHashed => "InvalidOptions",
            _ => "BadValue",
        }
    }

    /// MongoDB's numeric error code for this error.
    pub fn code(&self) -> i32 {
        match self {
            ShardKeyError::ArrayValue => 61,
            ShardKeyError::UniqueHashed => 72,
            _ => 2,
        }
    }
}

/// How one field of a shard key orders its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// `1`: ranged, ascending.
    Ascending,
    /// `"hashed"`: the value's 64-bit hash is the key.
    Hashed,
}

/// A validated shard key pattern such as `{x: 1}` or `{tenant: 1, _id: "hashed"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPattern {
    fields: Vec<(String, FieldKind)>,
}

impl KeyPattern {
    /// Parses and validates a pattern document, with MongoDB's checks in MongoDB's
    /// order: for each field in turn, empty name, extra dot, then each dotted part
    /// (empty, then `$`-prefixed), then the value (at most one `"hashed"`, otherwise
    /// a number whose `safeNumberInt` is 1).
    pub fn parse(pattern: &Document) -> Result<Self, ShardKeyError> {
        if pattern.is_empty() {
            return Err(ShardKeyError::Empty);
        }
        let mut fields = Vec::with_capacity(pattern.len());
        let mut hashed = 0;
        for (name, value) in pattern {
            check_field_name(name)?;
            let kind = if matches!(value, Bson::String(s) if s == "hashed") {
                hashed += 1;
                if hashed > 1 {
                    return Err(ShardKeyError::TooManyHashed {
                        pattern: format_bson_obj(pattern),
                        field: name.clone(),
                    });
                }
                FieldKind::Hashed
            } else if safe_number_int(value) == Some(1) {
                FieldKind::Ascending
            } else {
                return Err(ShardKeyError::NotAscending {
                    pattern: format_bson_obj(pattern),
                    field: name.clone(),
                });
            };
            fields.push((name.clone(), kind));
        }
        Ok(KeyPattern { fields })
    }

    /// Refuses `unique: true` on a hashed key, as `shardCollection` does.
    pub fn check_unique(&self, unique: bool) -> Result<(), ShardKeyError> {
        if unique && self.is_hashed() {
            Err(ShardKeyError::UniqueHashed)
        } else {
            Ok(())
        }
    }

    /// `ShardKeyPattern::isUniqueIndexCompatible` (shard_key_pattern.cpp): a unique index
    /// stays unique across shards under this key if it starts with `_id` or this key's
    /// field names are a prefix of its own.
    pub fn is_unique_index_compatible(&self, index: &Document) -> bool {
        if index.keys().next().is_some_and(|k| k == "_id") {
            return true;
        }
        let fields: Vec<&String> = index.keys().collect();
        self.fields.len() <= fields.len()
            && self
                .fields
                .iter()
                .zip(fields)
                .all(|((name, _), iname)| name == iname)
    }

    /// The fields in pattern order.
    pub fn fields(&self) -> &[(String, FieldKind)] {
        &self.fields
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Always false: a parsed pattern has at least one field. Present because
    /// `len` is.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// True when some field is hashed.
    pub fn is_hashed(&self) -> bool {
        self.hashed_index().is_some()
    }

    /// The position of the hashed field, if there is one.
    pub fn hashed_index(&self) -> Option<usize> {
        self.fields
            .iter()
            .position(|(_, k)| *k == FieldKind::Hashed)
    }

    /// True when the first field is hashed (`{a: "hashed"}`, `{a: "hashed", b: 1}`).
    pub fn has_hashed_prefix(&self) -> bool {
        self.hashed_index() == Some(0)
    }

    /// True when `other` starts with every field of this pattern, in order and of
    /// the same kind: the rule `refineCollectionShardKey` applies (spec §2).
    pub fn is_extended_by(&self, other: &KeyPattern) -> bool {
        other.fields.len() >= self.fields.len()
            && self.fields.iter().zip(&other.fields).all(|(a, b)| a == b)
    }

    /// The smallest key: MinKey in every field.
    pub fn global_min(&self) -> KeyValue {
        KeyValue(vec![Bson::MinKey; self.fields.len()])
    }

    /// The largest key: MaxKey in every field.
    pub fn global_max(&self) -> KeyValue {
        KeyValue(vec![Bson::MaxKey; self.fields.len()])
    }

    /// Extracts a document's shard key value (spec §3).
    ///
    /// Dotted paths descend into embedded documents; a missing field, or a path
    /// that runs into a non-document, gives null. An array on the path or as the
    /// value is an error. The hashed field becomes `NumberLong(hash64(value, 0))`,
    /// null when missing. A regular expression in a ranged field is refused.
    pub fn extract(&self, doc: &Document) -> Result<KeyValue, ShardKeyError> {
        self.extract_with(
            |path| Ok(lookup(doc, path)?.map(Cow::Borrowed)),
            Vec::with_capacity(self.fields.len()),
        )
    }

    /// [`KeyPattern::extract`] on a document stored as raw BSON.
    pub(crate) fn extract_raw(&self, doc: &RawDocument) -> Result<KeyValue, ShardKeyError> {
        self.extract_raw_into(doc, Vec::with_capacity(self.fields.len()))
    }

    /// [`KeyPattern::extract_raw`] into a vector the caller lends (cleared first), so that
    /// a stream of inserts can reuse one allocation.
    pub(crate) fn extract_raw_into(
        &self,
        doc: &RawDocument,
        out: Vec<Bson>,
    ) -> Result<KeyValue, ShardKeyError> {
        self.extract_with(|path| Ok(lookup_raw(doc, path)?.map(Cow::Owned)), out)
    }

    fn extract_with<'a>(
        &self,
        mut find: impl FnMut(&str) -> Result<Option<Cow<'a, Bson>>, ShardKeyError>,
        mut out: Vec<Bson>,
    ) -> Result<KeyValue, ShardKeyError> {
        out.clear();
        for (path, kind) in &self.fields {
            let value = find(path)?.unwrap_or(Cow::Owned(Bson::Null));
            match kind {
                FieldKind::Hashed => out.push(Bson::Int64(convert_shard_key_to_hashed(&value))),
                FieldKind::Ascending => {
                    if let Bson::RegularExpression(_) = value.as_ref() {
                        return Err(ShardKeyError::NotValidForStorage {
                            element: format_bson_element(path, &value),
                        });
                    }
                    out.push(value.into_owned());
                }
            }
        }
        Ok(KeyValue(out))
    }

    /// Turns a key value into the document shape mongosh prints (`{ x: 5 }`).
    pub fn to_document(&self, key: &KeyValue) -> Document {
        self.fields
            .iter()
            .zip(&key.0)
            .map(|((name, _), v)| (name.clone(), v.clone()))
            .collect()
    }

    /// The pattern as a document: `1` (int32) for ranged fields, `"hashed"` for the
    /// hashed one.
    pub fn to_pattern_document(&self) -> Document {
        self.fields
            .iter()
            .map(|(name, kind)| {
                let v = match kind {
                    FieldKind::Ascending => Bson::Int32(1),
                    FieldKind::Hashed => Bson::String("hashed".to_owned()),
                };
                (name.clone(), v)
            })
            .collect()
    }
}

impl fmt::Display for KeyPattern {
    /// Prints the normalized pattern as MongoDB does, e.g. `{ a: 1, b: "hashed" }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_bson_obj(&self.to_pattern_document()))
    }
}

/// Checks one field name of a pattern the way MongoDB's `FieldRef` sees it.
fn check_field_name(name: &str) -> Result<(), ShardKeyError> {
    if name.contains('\0') {
        return Err(ShardKeyError::NulInName {
            field: name.to_owned(),
        });
    }
    if name.is_empty() {
        return Err(ShardKeyError::EmptyField {
            field: name.to_owned(),
        });
    }
    // MongoDB compares the re-joined parts with the name; splitting keeps empty
    // parts, so the two always agree and the empty-part check below reports stray
    // dots. The comparison is kept to mirror MongoDB's sequence of checks.
    let parts: Vec<&str> = name.split('.').collect();
    if parts.join(".") != name {
        return Err(ShardKeyError::ExtraDot {
            field: name.to_owned(),
        });
    }
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            return Err(ShardKeyError::EmptyParts {
                field: name.to_owned(),
            });
        }
        let dbref = i != 0 && matches!(*part, "$db" | "$id" | "$ref");
        if part.starts_with('$') && !dbref {
            return Err(ShardKeyError::DollarPrefix {
                field: name.to_owned(),
            });
        }
    }
    Ok(())
}

/// MongoDB's `BSONElement::safeNumberInt` for numbers, `None` for anything else:
/// doubles truncate (so `1.5` counts as 1, as in MongoDB), decimals round half to
/// even, and out-of-range values clamp.
fn safe_number_int(v: &Bson) -> Option<i64> {
    let clamp = |x: i64| x.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
    match v {
        Bson::Int32(i) => Some(i64::from(*i)),
        Bson::Int64(i) => Some(clamp(*i)),
        Bson::Double(d) if d.is_nan() => Some(0),
        // A saturating cast truncates toward zero, then clamps.
        Bson::Double(d) => Some(clamp(*d as i64)),
        Bson::Decimal128(d) => Some(clamp(Decimal::from_bson(d).to_i64_saturating())),
        _ => None,
    }
}

/// Finds the value at a dotted path, as MongoDB's `getFieldDottedOrArray` does for
/// shard key extraction: `Ok(None)` when missing, an error on any array met.
fn lookup<'a>(doc: &'a Document, path: &str) -> Result<Option<&'a Bson>, ShardKeyError> {
    match walk_path(doc, path) {
        PathEnd::Found(Bson::Array(_)) | PathEnd::Blocked(Bson::Array(_)) => {
            Err(ShardKeyError::ArrayValue)
        }
        PathEnd::Found(v) => Ok(Some(v)),
        // A scalar in the middle of the path: the field is simply missing.
        PathEnd::Missing | PathEnd::Blocked(_) => Ok(None),
    }
}

/// [`lookup`] in raw BSON, copying the value found.
fn lookup_raw(doc: &RawDocument, path: &str) -> Result<Option<Bson>, ShardKeyError> {
    match walk_path(doc, path) {
        PathEnd::Found(RawBsonRef::Array(_)) | PathEnd::Blocked(RawBsonRef::Array(_)) => {
            Err(ShardKeyError::ArrayValue)
        }
        PathEnd::Found(v) => Ok(Bson::try_from(v).ok()),
        // A scalar in the middle of the path: the field is simply missing.
        PathEnd::Missing | PathEnd::Blocked(_) => Ok(None),
    }
}

/// A shard key value: one BSON value per pattern field, compared field by field.
#[derive(Debug, Clone)]
pub struct KeyValue(pub Vec<Bson>);

eq_from_ord!(KeyValue);
impl Ord for KeyValue {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.0.iter().zip(&other.0) {
            match compare_values(a, b) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

/// Prints a document as MongoDB's `BSONObj::toString` does: `{ a: 1, b: "x" }`,
/// `{}` when empty, field names unquoted, strings in double quotes.
pub fn format_bson_obj(doc: &Document) -> String {
    let mut out = String::new();
    write_obj(&mut out, doc);
    out
}

/// Prints one element as MongoDB's `BSONElement::toString` does: `name: value`.
pub fn format_bson_element(name: &str, value: &Bson) -> String {
    let mut out = String::new();
    out.push_str(name);
    out.push_str(": ");
    write_value(&mut out, value);
    out
}

/// Prints one value as MongoDB's `BSONElement::toString` does without its name.
pub fn format_bson_value(value: &Bson) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// Writes a document in `BSONObj::toString` form.
fn write_obj(out: &mut String, doc: &Document) {
    if doc.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{ ");
    for (i, (name, value)) in doc.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
        out.push_str(": ");
        write_value(out, value);
    }
    out.push_str(" }");
}

/// Writes a value in `BSONElement::toString` form.
fn write_value(out: &mut String, value: &Bson) {
    // Writing into a String cannot fail, so the `fmt::Result`s below are ignored.
    match value {
        Bson::Document(doc) => write_obj(out, doc),
        Bson::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push_str("[ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push_str(" ]");
        }
        Bson::Double(d) => out.push_str(&double_nice(*d)),
        Bson::Int32(i) => {
            let _ = write!(out, "{i}");
        }
        Bson::Int64(i) => {
            let _ = write!(out, "{i}");
        }
        Bson::Decimal128(d) => {
            let _ = write!(out, "{}", Decimal::from_bson(d));
        }
        Bson::String(s) | Bson::Symbol(s) => {
            out.push('"');
            // MongoDB cuts strings whose BSON size (bytes + NUL) exceeds 160 bytes.
            if s.len() + 1 > 160 {
                out.push_str(&String::from_utf8_lossy(&s.as_bytes()[..150]));
                out.push_str("...\"");
            } else {
                out.push_str(s);
                out.push('"');
            }
        }
        Bson::JavaScriptCode(code) => {
            if code.len() + 1 > 80 {
                out.push_str(&String::from_utf8_lossy(&code.as_bytes()[..70]));
                out.push_str("...");
            } else {
                out.push_str(code);
            }
        }
        Bson::JavaScriptCodeWithScope(cws) => {
            out.push_str("CodeWScope( ");
            out.push_str(&cws.code);
            out.push_str(", ");
            write_obj(out, &cws.scope);
            out.push(')');
        }
        Bson::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Bson::Null => out.push_str("null"),
        Bson::Undefined => out.push_str("undefined"),
        Bson::MinKey => out.push_str("MinKey"),
        Bson::MaxKey => out.push_str("MaxKey"),
        Bson::ObjectId(oid) => {
            let _ = write!(out, "ObjectId('{}')", oid.to_hex());
        }
        Bson::DateTime(dt) => {
            let _ = write!(out, "new Date({})", dt.timestamp_millis());
        }
        Bson::Timestamp(ts) => {
            let _ = write!(out, "Timestamp({}, {})", ts.time, ts.increment);
        }
        Bson::RegularExpression(re) => {
            let _ = write!(out, "/{}/{}", re.pattern.as_str(), re.options.as_str());
        }
        Bson::Binary(bin) => write_binary(out, bin),
        Bson::DbPointer(p) => {
            let (namespace, id) = db_pointer_parts(p).unwrap_or_default();
            let _ = write!(
                out,
                "DBRef('{namespace}',{})",
                bson::oid::ObjectId::from_bytes(id).to_hex()
            );
        }
    }
}

/// Writes binary data in `BSONElement::toString` form: `UUID("...")` for a 16-byte
/// UUID, else `BinData(subtype, HEX)` cut after 70 bytes when longer than 80.
fn write_binary(out: &mut String, bin: &bson::Binary) {
    let subtype = u8::from(bin.subtype);
    if subtype == 4 && bin.bytes.len() == 16 {
        let hex: String = bin.bytes.iter().map(|b| format!("{b:02x}")).collect();
        let _ = write!(
            out,
            "UUID(\"{}-{}-{}-{}-{}\")",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        );
    } else {
        let _ = write!(out, "BinData({subtype}, ");
        let shown = if bin.bytes.len() > 80 {
            &bin.bytes[..70]
        } else {
            &bin.bytes[..]
        };
        for b in shown {
            let _ = write!(out, "{b:02X}");
        }
        out.push_str(if bin.bytes.len() > 80 { "...)" } else { ")" });
    }
}

/// MongoDB's `StringBuilder::appendDoubleNice`: C's `%.16g`, then `.0` appended
/// when the text has no `.`, `E` or `N`. The check is case-sensitive, so glibc's
/// `inf`, `nan` and exponent forms such as `1e+20` really do get `.0` appended.
fn double_nice(x: f64) -> String {
    let mut s = format_g16(x);
    if !s.contains(['.', 'E', 'N']) {
        s.push_str(".0");
    }
    s
}

/// C's `printf("%.16g", x)` as glibc prints it.
fn format_g16(x: f64) -> String {
    const PRECISION: i32 = 16;
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // The exponent %g chooses by is the one of %e after rounding to 16 digits.
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, x);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exponent) {
        let mantissa = strip_fraction_zeros(mantissa);
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
    } else {
        // Here 0 <= 15 - exponent <= 19, so the cast is exact.
        let fixed = format!("{:.*}", (PRECISION - 1 - exponent) as usize, x);
        strip_fraction_zeros(&fixed).to_owned()
    }
}

/// Removes trailing zeros after a decimal point, and the point if nothing is left.
fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

impl From<ShardKeyError> for ClusterError {
    fn from(e: ShardKeyError) -> Self {
        let message = e.to_string();
        match e.code_name() {
            "ShardKeyNotFound" => ClusterError::ShardKeyNotFound(message),
            "InvalidOptions" => ClusterError::InvalidOptions(message),
            "CannotCreateIndex" | "BadValue" => ClusterError::BadValue(message),
            _ => ClusterError::BadValue(message),
        }
    }
}
