//! How a collection holds its documents: raw BSON bytes, ordered by a compact shard key.
//!
//! A million small documents must fit in a browser tab, so the store keeps each document
//! as the bytes MongoDB would store (decoded only when a query or the shell reads it) and
//! each shard key value in a compact form: a number, an ObjectId, a date or a short
//! string sits inline, and only other values are boxed. The compact forms order exactly
//! as [`compare_values`] orders the values they stand for: the common pairs (two
//! integers, two ObjectIds, two dates, two strings) compare directly and every other pair
//! is compared as BSON.

use crate::keys::shard_key::{FieldKind, KeyPattern, KeyValue, ShardKeyError};
use crate::support::shared_map::SharedMap;
use crate::values::error::ClusterError;
use crate::values::order::compare_values;
use crate::values::raw::raw_get;
use bson::oid::ObjectId;
use bson::{Bson, Document, RawBsonRef, RawDocument};
use std::cmp::Ordering;
use std::rc::Rc;

/// Index of a shard in the cluster's shard list.
pub type ShardIdx = u32;

/// One BSON value, stored compactly (16 bytes) for the values keys are usually made of:
/// numbers, ObjectIds, dates and short strings sit inline, so that comparing two keys
/// while searching the store reads no other memory.
#[derive(Debug, Clone)]
pub(crate) enum Atom {
    Int32(i32),
    Int64(i64),
    Double(f64),
    ObjectId([u8; 12]),
    DateTime(i64),
    /// A string of at most [`SHORT_STRING`] bytes: its length, then its bytes.
    Str(u8, [u8; SHORT_STRING]),
    Other(Box<Bson>),
}

/// The longest string an [`Atom`] holds inline (what its 16 bytes leave beside the
/// variant and the length); a longer one is boxed.
const SHORT_STRING: usize = 14;

/// A string's inline [`Atom`], if it is short enough.
fn short_string(s: &str) -> Option<Atom> {
    let mut bytes = [0u8; SHORT_STRING];
    bytes.get_mut(..s.len())?.copy_from_slice(s.as_bytes());
    Some(Atom::Str(s.len() as u8, bytes))
}

/// Compares a string with any value as [`compare_values`] compares a BSON string with
/// it, without making the string: against a string or a symbol by bytes, against any
/// other type by the type alone (no other type shares the string's canonical class).
fn compare_str(s: &[u8], other: &Bson) -> Ordering {
    match other {
        Bson::String(t) | Bson::Symbol(t) => s.cmp(t.as_bytes()),
        // The empty string does not allocate.
        _ => compare_values(&Bson::String(String::new()), other),
    }
}

impl Atom {
    pub(crate) fn new(value: Bson) -> Atom {
        match value {
            Bson::Int32(v) => Atom::Int32(v),
            Bson::Int64(v) => Atom::Int64(v),
            Bson::Double(v) => Atom::Double(v),
            Bson::ObjectId(o) => Atom::ObjectId(o.bytes()),
            Bson::DateTime(d) => Atom::DateTime(d.timestamp_millis()),
            Bson::String(s) => {
                short_string(&s).unwrap_or_else(|| Atom::Other(Box::new(Bson::String(s))))
            }
            other => Atom::Other(Box::new(other)),
        }
    }

    /// The compact form of a borrowed value: copies a number, an ObjectId, a date or a
    /// short string without cloning the `Bson` first.
    pub(crate) fn of(value: &Bson) -> Atom {
        match value {
            Bson::Int32(v) => Atom::Int32(*v),
            Bson::Int64(v) => Atom::Int64(*v),
            Bson::Double(v) => Atom::Double(*v),
            Bson::ObjectId(o) => Atom::ObjectId(o.bytes()),
            Bson::DateTime(d) => Atom::DateTime(d.timestamp_millis()),
            Bson::String(s) => {
                short_string(s).unwrap_or_else(|| Atom::Other(Box::new(value.clone())))
            }
            other => Atom::Other(Box::new(other.clone())),
        }
    }

    fn from_raw(value: RawBsonRef<'_>) -> Option<Atom> {
        Some(match value {
            RawBsonRef::Int32(v) => Atom::Int32(v),
            RawBsonRef::Int64(v) => Atom::Int64(v),
            RawBsonRef::Double(v) => Atom::Double(v),
            RawBsonRef::ObjectId(o) => Atom::ObjectId(o.bytes()),
            RawBsonRef::DateTime(d) => Atom::DateTime(d.timestamp_millis()),
            RawBsonRef::String(s) if s.len() <= SHORT_STRING => short_string(s)?,
            other => Atom::Other(Box::new(Bson::try_from(other).ok()?)),
        })
    }

    /// The value as BSON.
    pub(crate) fn to_bson(&self) -> Bson {
        self.with(Bson::clone)
    }

    /// Calls `f` with the value as BSON, without copying a boxed value.
    fn with<R>(&self, f: impl FnOnce(&Bson) -> R) -> R {
        match self {
            Atom::Int32(v) => f(&Bson::Int32(*v)),
            Atom::Int64(v) => f(&Bson::Int64(*v)),
            Atom::Double(v) => f(&Bson::Double(*v)),
            Atom::ObjectId(b) => f(&Bson::ObjectId(ObjectId::from_bytes(*b))),
            Atom::DateTime(v) => f(&Bson::DateTime(bson::DateTime::from_millis(*v))),
            Atom::Str(..) => f(&Bson::String(
                String::from_utf8_lossy(self.short_bytes()).into_owned(),
            )),
            Atom::Other(b) => f(b),
        }
    }

    /// The bytes of a short string (none for any other atom).
    #[inline]
    fn short_bytes(&self) -> &[u8] {
        match self {
            Atom::Str(len, bytes) => bytes.get(..usize::from(*len)).unwrap_or_default(),
            _ => &[],
        }
    }

    // The indexes compare atoms a few times per insert: the usual pairs are compared
    // inline, the others by a call.
    #[inline(always)]
    fn compare(&self, other: &Atom) -> Ordering {
        match (self, other) {
            (Atom::Int32(a), Atom::Int32(b)) => a.cmp(b),
            (Atom::Int64(a), Atom::Int64(b)) => a.cmp(b),
            (Atom::Int32(a), Atom::Int64(b)) => i64::from(*a).cmp(b),
            (Atom::Int64(a), Atom::Int32(b)) => a.cmp(&i64::from(*b)),
            (Atom::ObjectId(a), Atom::ObjectId(b)) => oid_cmp(a, b),
            (Atom::DateTime(a), Atom::DateTime(b)) => a.cmp(b),
            (Atom::Str(..), Atom::Str(..)) => self.short_bytes().cmp(other.short_bytes()),
            _ => self.compare_as_bson(other),
        }
    }

    #[inline(never)]
    fn compare_as_bson(&self, other: &Atom) -> Ordering {
        match (self, other) {
            (Atom::Str(..), _) => other.with(|b| compare_str(self.short_bytes(), b)),
            (_, Atom::Str(..)) => self.with(|a| compare_str(other.short_bytes(), a)).reverse(),
            _ => self.with(|a| other.with(|b| compare_values(a, b))),
        }
    }

    #[inline]
    fn compare_bson(&self, other: &Bson) -> Ordering {
        match (self, other) {
            (Atom::Int64(a), Bson::Int64(b)) => a.cmp(b),
            (Atom::Int32(a), Bson::Int32(b)) => a.cmp(b),
            (Atom::ObjectId(a), Bson::ObjectId(b)) => oid_cmp(a, &b.bytes()),
            (Atom::DateTime(a), Bson::DateTime(b)) => a.cmp(&b.timestamp_millis()),
            // MaxKey and MinKey, the bounds of the key space (the top chunk's upper bound,
            // which every insert of increasing keys is checked against), are above and
            // below every value an inline atom holds.
            (Atom::Other(_), Bson::MaxKey | Bson::MinKey) => self.compare_bson_slow(other),
            (_, Bson::MaxKey) => Ordering::Less,
            (_, Bson::MinKey) => Ordering::Greater,
            _ => self.compare_bson_slow(other),
        }
    }

    #[inline(never)]
    fn compare_bson_slow(&self, other: &Bson) -> Ordering {
        match self {
            Atom::Str(..) => compare_str(self.short_bytes(), other),
            _ => self.with(|a| compare_values(a, other)),
        }
    }
}

/// Compares two ObjectIds' bytes as `[u8; 12]` does (lexicographically), as two
/// big-endian integers: the `_id` index compares ObjectIds on every insert, and this avoids
/// a call to `memcmp` for twelve bytes.
#[inline]
fn oid_cmp(a: &[u8; 12], b: &[u8; 12]) -> Ordering {
    let split = |x: &[u8; 12]| {
        let (hi, lo) = x.split_at(8);
        (
            u64::from_be_bytes(hi.try_into().unwrap_or_default()),
            u32::from_be_bytes(lo.try_into().unwrap_or_default()),
        )
    };
    split(a).cmp(&split(b))
}

/// A shard key value as the store keeps it: one compact value per key field. Orders as
/// the [`KeyValue`] it stands for.
#[derive(Debug)]
pub(crate) enum DocKey {
    /// The empty key of an unsharded collection.
    Empty,
    One(Atom),
    // A thin pointer (rather than `Box<[Atom]>`) keeps a key at 16 bytes.
    Many(Box<Atoms>),
}

/// The values of a key of several fields: two (the usual compound key) inline, so that
/// comparing two keys follows one pointer each.
#[derive(Debug, Clone)]
pub(crate) enum Atoms {
    Two([Atom; 2]),
    More(Vec<Atom>),
}

impl Atoms {
    fn new(values: Vec<Atom>) -> Atoms {
        match <[Atom; 2]>::try_from(values) {
            Ok(two) => Atoms::Two(two),
            Err(values) => Atoms::More(values),
        }
    }

    fn as_slice(&self) -> &[Atom] {
        match self {
            Atoms::Two(two) => two,
            Atoms::More(v) => v,
        }
    }
}

// Every insert copies its key once (the store and the recent inserts each keep one): the
// usual key, a number, an ObjectId, a date or a short string, is copied inline.
impl Clone for DocKey {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            DocKey::One(Atom::Int64(v)) => DocKey::One(Atom::Int64(*v)),
            DocKey::One(Atom::ObjectId(b)) => DocKey::One(Atom::ObjectId(*b)),
            DocKey::One(Atom::DateTime(v)) => DocKey::One(Atom::DateTime(*v)),
            DocKey::One(Atom::Str(len, b)) => DocKey::One(Atom::Str(*len, *b)),
            other => other.clone_slow(),
        }
    }
}

impl DocKey {
    #[inline(never)]
    fn clone_slow(&self) -> Self {
        match self {
            DocKey::Empty => DocKey::Empty,
            DocKey::One(a) => DocKey::One(a.clone()),
            DocKey::Many(v) => DocKey::Many(v.clone()),
        }
    }

    /// The compact form of a key value.
    pub(crate) fn new(key: KeyValue) -> DocKey {
        let mut values = key.0;
        match values.len() {
            0 => DocKey::Empty,
            1 => values
                .pop()
                .map_or(DocKey::Empty, |v| DocKey::One(Atom::new(v))),
            _ => DocKey::Many(Box::new(Atoms::new(
                values.into_iter().map(Atom::new).collect(),
            ))),
        }
    }

    /// The compact form of a borrowed key value (copies it).
    pub(crate) fn of(key: &KeyValue) -> DocKey {
        match key.0.as_slice() {
            [] => DocKey::Empty,
            [one] => DocKey::One(Atom::of(one)),
            many => DocKey::Many(Box::new(Atoms::new(many.iter().map(Atom::of).collect()))),
        }
    }

    fn atoms(&self) -> &[Atom] {
        match self {
            DocKey::Empty => &[],
            DocKey::One(a) => std::slice::from_ref(a),
            DocKey::Many(v) => v.as_slice(),
        }
    }

    /// The key value this stands for, built in `out`'s vector (its contents are dropped).
    pub(crate) fn to_key_in(&self, mut out: Vec<Bson>) -> KeyValue {
        out.clear();
        out.extend(self.atoms().iter().map(Atom::to_bson));
        KeyValue(out)
    }

    /// The key value this stands for.
    pub(crate) fn to_key(&self) -> KeyValue {
        KeyValue(self.atoms().iter().map(Atom::to_bson).collect())
    }

    /// Compares with a key value, as `self.to_key().cmp(key)` would, without copying.
    #[inline]
    pub(crate) fn cmp_key(&self, key: &KeyValue) -> Ordering {
        // The usual case, a key of one field, without going through slices.
        if let (DocKey::One(a), [b]) = (self, key.0.as_slice()) {
            return a.compare_bson(b);
        }
        let atoms = self.atoms();
        for (a, b) in atoms.iter().zip(&key.0) {
            match a.compare_bson(b) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        atoms.len().cmp(&key.0.len())
    }
}

eq_from_ord!(DocKey);
impl Ord for DocKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // The usual case, a key of one field, without going through slices.
        if let (DocKey::One(a), DocKey::One(b)) = (self, other) {
            return a.compare(b);
        }
        let (a, b) = (self.atoms(), other.atoms());
        for (x, y) in a.iter().zip(b) {
            match x.compare(y) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        a.len().cmp(&b.len())
    }
}

/// The smallest BSON document: a length of 5 and the terminating NUL.
const EMPTY_DOCUMENT: [u8; 5] = [5, 0, 0, 0, 0];

/// A stored document: its BSON bytes, shared between the snapshots that hold it.
///
/// The bytes are a slice of a buffer that may hold other documents too: `insertMany`
/// encodes a whole batch into one buffer ([`StoredBatch`]), so that storing a thousand
/// documents costs one allocation rather than a thousand. A buffer is freed once the last
/// document in it is gone.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    // A thin pointer (the slice's length lives in the shared allocation), so that a
    // stored document costs 16 bytes besides its encoding.
    buf: Rc<Box<[u8]>>,
    start: u32,
    len: u32,
}

/// Encodes `doc` at the end of `buf`, putting `id` first as `_id` when given. On failure
/// `buf` is left as it was.
fn encode_into(
    buf: &mut Vec<u8>,
    doc: &Document,
    id: Option<ObjectId>,
) -> Result<(), ClusterError> {
    let start = open_document(buf);
    if let Some(id) = id {
        buf.push(0x07);
        buf.extend_from_slice(b"_id\0");
        buf.extend_from_slice(&id.bytes());
    }
    let written = write_elements(buf, doc, 1);
    close_document(buf, start);
    written.map_err(|refused| {
        buf.truncate(start);
        refused.into_error()
    })
}

impl Stored {
    /// Encodes a document, putting `id` first as `_id` when given (a document without
    /// one gets a generated ObjectId in front, as the shell does).
    pub(crate) fn encode(doc: &Document, id: Option<ObjectId>) -> Result<Stored, ClusterError> {
        let mut batch = StoredBatch::with_capacity(256, 1);
        batch.push(doc, id)?;
        Ok(batch.finish().next().unwrap_or_else(|| Stored {
            buf: Rc::new(Box::from(&EMPTY_DOCUMENT[..])),
            start: 0,
            len: EMPTY_DOCUMENT.len() as u32,
        }))
    }

    /// The BSON size in bytes.
    pub(crate) fn size(&self) -> u32 {
        self.len
    }

    fn bytes(&self) -> &[u8] {
        self.buf
            .get(self.start as usize..(self.start + self.len) as usize)
            .unwrap_or(&EMPTY_DOCUMENT)
    }

    /// The document as raw BSON.
    pub(crate) fn raw(&self) -> &RawDocument {
        RawDocument::from_bytes(self.bytes()).unwrap_or_else(|_| empty_raw())
    }

    /// The document, decoded.
    pub(crate) fn doc(&self) -> Document {
        Document::try_from(self.raw()).unwrap_or_default()
    }

    /// The document's `_id` (null when it has none).
    pub(crate) fn id(&self) -> IdKey {
        match raw_get(self.raw(), "_id") {
            Some(v) => {
                IdKey(Atom::from_raw(v).unwrap_or_else(|| Atom::Other(Box::new(Bson::Null))))
            }
            _ => IdKey(Atom::Other(Box::new(Bson::Null))),
        }
    }

    /// The number, ObjectId, date or short string held by the element starting at `at`
    /// (a [`Pushed::key_at`]), in compact form; `None` for any other value.
    pub(crate) fn scalar_at(&self, at: u32) -> Option<Atom> {
        let element = self.bytes().get(at as usize..)?;
        let (&kind, rest) = element.split_first()?;
        let name_len = rest.iter().position(|&b| b == 0)?;
        scalar_atom(kind, rest.get(name_len + 1..)?)
    }

    /// Where the document's bytes start: two stored documents with the same address are
    /// one document, shared.
    pub(crate) fn ptr(&self) -> *const u8 {
        self.bytes().as_ptr()
    }
}

/// Whether a field is named `_id` (three bytes compared inline, not by a call to `memcmp`).
fn is_id(name: &str) -> bool {
    matches!(name.as_bytes(), [b'_', b'i', b'd'])
}

/// An `_id` element holding a zero ObjectId: the room `insertMany` keeps for a generated
/// `_id` at the front of a document.
const ID_PLACEHOLDER: [u8; 17] = [
    0x07, b'_', b'i', b'd', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// What [`StoredBatch::push_new`] learnt of a document while encoding it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pushed {
    /// The ObjectId given to a document that had no `_id`.
    pub(crate) generated: Option<ObjectId>,
    /// Where the shard key's field starts in the encoding (its type byte), when the key is
    /// one top-level field and the document has it.
    pub(crate) key_at: Option<u32>,
}

/// Documents encoded together into one buffer: `insertMany`'s batch, stored with a single
/// allocation. Documents are added with [`StoredBatch::push`], then [`StoredBatch::finish`]
/// hands out one [`Stored`] per document.
#[derive(Debug, Default)]
pub(crate) struct StoredBatch {
    /// The encodings, one after another, written where they will stay.
    buf: Vec<u8>,
    ends: Vec<u32>,
}

impl StoredBatch {
    /// Starts an empty batch with room for about `bytes` bytes in `docs` documents (it
    /// grows if they need more).
    pub(crate) fn with_capacity(bytes: usize, docs: usize) -> StoredBatch {
        StoredBatch {
            buf: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(docs),
        }
    }

    /// Encodes one more document; a document that cannot be encoded is not added.
    pub(crate) fn push(
        &mut self,
        doc: &Document,
        id: Option<ObjectId>,
    ) -> Result<(), ClusterError> {
        encode_into(&mut self.buf, doc, id)?;
        self.ends.push(self.buf.len() as u32);
        Ok(())
    }

    /// Encodes one more document for `insertMany`, in one pass over its fields: a
    /// document without `_id` gets an ObjectId from `next_id` in front (as the shell
    /// gives one), and the position of its top-level field `key_field` (the shard key's,
    /// when that is a single top-level field) is noted, so that neither needs another
    /// look at the document. A document with an array `_id`, or that cannot be encoded,
    /// is not added; `next_id` is then called as it would have been had it been stored.
    pub(crate) fn push_new(
        &mut self,
        doc: &Document,
        key_field: Option<&str>,
        next_id: impl FnOnce() -> ObjectId,
    ) -> Result<Pushed, ClusterError> {
        let buf = &mut self.buf;
        let start = open_document(buf);
        // Room for a generated `_id`, first; taken out again if the document has one.
        buf.extend_from_slice(&ID_PLACEHOLDER);
        let mut own_id = None;
        let mut key_at = None;
        let mut failed = None;
        for (name, value) in doc {
            let at = buf.len() - start;
            if let Err(refused) = write_element(buf, name, value, 1) {
                failed = Some(refused);
                break;
            }
            if is_id(name) {
                own_id = Some(value);
            }
            // Names are short: compared byte by byte rather than by a call to `memcmp`.
            if key_at.is_none()
                && key_field.is_some_and(|f| {
                    f.len() == name.len() && f.bytes().zip(name.bytes()).all(|(a, b)| a == b)
                })
            {
                key_at = Some(at);
            }
        }
        let array_id = || ClusterError::BadValue("can't use an array for _id".to_string());
        if let Some(refused) = failed {
            buf.truncate(start);
            // An array `_id` is reported before a field the encoder refused, and a
            // document without `_id` has used up an ObjectId, as when `_id` is looked
            // for before encoding.
            let id = doc.iter().find(|(name, _)| is_id(name));
            return Err(match id.map(|(_, value)| value) {
                Some(Bson::Array(_)) => array_id(),
                Some(_) => refused.into_error(),
                None => {
                    next_id();
                    refused.into_error()
                }
            });
        }
        let generated = match own_id {
            Some(Bson::Array(_)) => {
                buf.truncate(start);
                return Err(array_id());
            }
            Some(Bson::RegularExpression(_)) => {
                buf.truncate(start);
                return Err(ClusterError::BadValue(
                    "can't use a regex for _id".to_string(),
                ));
            }
            Some(Bson::Undefined) => {
                buf.truncate(start);
                return Err(ClusterError::BadValue(
                    "can't use a undefined for _id".to_string(),
                ));
            }
            Some(_) => {
                buf.drain(start + 4..start + 4 + ID_PLACEHOLDER.len());
                key_at = key_at.map(|at| at - ID_PLACEHOLDER.len());
                None
            }
            None => {
                let oid = next_id();
                let id_at = start + 4 + ID_PLACEHOLDER.len() - 12;
                buf[id_at..id_at + 12].copy_from_slice(&oid.bytes());
                Some(oid)
            }
        };
        close_document(buf, start);
        self.ends.push(buf.len() as u32);
        Ok(Pushed {
            generated,
            key_at: key_at.map(|at| at as u32),
        })
    }

    /// The bytes encoded so far.
    pub(crate) fn bytes(&self) -> u32 {
        self.buf.len() as u32
    }

    /// The encoded documents, in the order they were pushed, sharing one buffer.
    pub(crate) fn finish(self) -> impl Iterator<Item = Stored> {
        let StoredBatch { buf, ends } = self;
        // The bytes stay where they were encoded: the buffer only gives back its spare
        // room (which shrinks it in place).
        let shared = Rc::new(buf.into_boxed_slice());
        let mut start = 0;
        ends.into_iter().map(move |end| {
            let stored = Stored {
                buf: Rc::clone(&shared),
                start,
                len: end - start,
            };
            start = end;
            stored
        })
    }
}

// BSON encoding, byte for byte as `bson`'s `Document::to_vec` writes it (the tests check
// that), but into a caller's buffer: encoding every insert through `to_vec` would cost a
// handful of allocations per document.

/// Starts a document: a length placeholder. Returns where it starts.
fn open_document(buf: &mut Vec<u8>) -> usize {
    let start = buf.len();
    buf.extend_from_slice(&[0; 4]);
    start
}

/// Ends the document begun at `start`: the trailing NUL, then its length.
fn close_document(buf: &mut Vec<u8>, start: usize) {
    buf.push(0);
    let len = (buf.len() - start) as i32;
    buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// The deepest a stored document may nest, counting itself: MongoDB's
/// `BSONDepth::getMaxDepthForUserStorage()`, the 200 levels any BSON may have less the 20
/// the server keeps for itself. (The manual rounds this down to "100 levels".)
pub const MAX_STORED_DEPTH: u32 = 180;

/// Why the encoder refused a document.
#[derive(Debug)]
enum Refused {
    /// A field name or regex holding NUL; the message says which.
    Invalid(String),
    /// Nested past [`MAX_STORED_DEPTH`].
    TooDeep,
}

impl Refused {
    fn into_error(self) -> ClusterError {
        match self {
            Refused::Invalid(message) => ClusterError::BadValue(message),
            Refused::TooDeep => ClusterError::Overflow(format!(
                "cannot insert document because it exceeds {MAX_STORED_DEPTH} levels of nesting"
            )),
        }
    }
}

/// Writes the elements of a document at nesting level `depth` (the stored document
/// itself is level 1); fails on a field name (or regex) holding NUL, or past
/// [`MAX_STORED_DEPTH`].
fn write_elements(buf: &mut Vec<u8>, doc: &Document, depth: u32) -> Result<(), Refused> {
    for (key, value) in doc {
        write_element(buf, key, value, depth)?;
    }
    Ok(())
}

/// Whether a value at level `depth` descends one level too far. Empty documents and
/// arrays do not count, as in MongoDB's `validateDepth`.
fn too_deep(value: &Bson, depth: u32) -> bool {
    depth >= MAX_STORED_DEPTH
        && match value {
            Bson::Document(d) => !d.is_empty(),
            Bson::Array(a) => !a.is_empty(),
            Bson::JavaScriptCodeWithScope(c) => !c.scope.is_empty(),
            _ => false,
        }
}

/// Writes one element: its type, its name and its value. (Inlined natively, where it
/// is hot; a single copy in the downloaded wasm.)
#[cfg_attr(not(target_arch = "wasm32"), inline)]
fn write_element(buf: &mut Vec<u8>, key: &str, value: &Bson, depth: u32) -> Result<(), Refused> {
    buf.push(value.element_type() as u8);
    if write_cstring(buf, key).is_err() {
        return Err(Refused::Invalid(format!(
            "key {key} must not contain null bytes"
        )));
    }
    // The scalars of a typical document are written here, without a call.
    match value {
        Bson::Int32(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::Int64(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::Double(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::String(s) => write_string(buf, s),
        Bson::ObjectId(o) => buf.extend_from_slice(&o.bytes()),
        Bson::Boolean(v) => buf.push(u8::from(*v)),
        _ => write_value(buf, value, depth)?,
    }
    Ok(())
}

#[inline]
fn write_cstring(buf: &mut Vec<u8>, s: &str) -> Result<(), ()> {
    // A plain loop rather than `contains` (a call to `memchr`): names are short.
    if s.bytes().any(|b| b == 0) {
        return Err(());
    }
    buf.extend_from_slice(s.as_bytes());
    buf.push(0);
    Ok(())
}

#[inline]
fn write_string(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
    buf.extend_from_slice(s.as_bytes());
    buf.push(0);
}

fn write_value(buf: &mut Vec<u8>, value: &Bson, depth: u32) -> Result<(), Refused> {
    if too_deep(value, depth) {
        return Err(Refused::TooDeep);
    }
    match value {
        Bson::Double(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::String(s) | Bson::JavaScriptCode(s) | Bson::Symbol(s) => write_string(buf, s),
        Bson::Document(d) => {
            let start = open_document(buf);
            write_elements(buf, d, depth + 1)?;
            close_document(buf, start);
        }
        Bson::Array(items) => {
            let start = open_document(buf);
            for (i, item) in items.iter().enumerate() {
                buf.push(item.element_type() as u8);
                // Not `write!` on the buffer: `std::io::Write` brings io::Error's code and
                // texts into the wasm.
                buf.extend_from_slice(i.to_string().as_bytes());
                buf.push(0);
                write_value(buf, item, depth + 1)?;
            }
            close_document(buf, start);
        }
        Bson::Binary(b) => {
            let old = b.subtype == bson::spec::BinarySubtype::BinaryOld;
            let len = b.bytes.len() + if old { 4 } else { 0 };
            buf.extend_from_slice(&(len as i32).to_le_bytes());
            buf.push(u8::from(b.subtype));
            if old {
                buf.extend_from_slice(&(b.bytes.len() as i32).to_le_bytes());
            }
            buf.extend_from_slice(&b.bytes);
        }
        Bson::Undefined | Bson::Null | Bson::MinKey | Bson::MaxKey => {}
        Bson::ObjectId(o) => buf.extend_from_slice(&o.bytes()),
        Bson::Boolean(v) => buf.push(u8::from(*v)),
        Bson::DateTime(d) => buf.extend_from_slice(&d.timestamp_millis().to_le_bytes()),
        Bson::RegularExpression(re) => {
            let bad = || Refused::Invalid("regular expression must not contain null bytes".into());
            write_cstring(buf, re.pattern.as_str()).map_err(|()| bad())?;
            write_cstring(buf, re.options.as_str()).map_err(|()| bad())?;
        }
        Bson::JavaScriptCodeWithScope(c) => {
            // A total length, the code, then the scope document.
            let start = buf.len();
            buf.extend_from_slice(&[0; 4]);
            write_string(buf, &c.code);
            let scope = open_document(buf);
            write_elements(buf, &c.scope, depth + 1)?;
            close_document(buf, scope);
            let len = (buf.len() - start) as i32;
            buf[start..start + 4].copy_from_slice(&len.to_le_bytes());
        }
        Bson::Int32(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::Timestamp(t) => {
            buf.extend_from_slice(&t.increment.to_le_bytes());
            buf.extend_from_slice(&t.time.to_le_bytes());
        }
        Bson::Int64(v) => buf.extend_from_slice(&v.to_le_bytes()),
        Bson::Decimal128(d) => buf.extend_from_slice(&d.bytes()),
        Bson::DbPointer(_) => {
            // Its namespace is private to `bson`: encode it alone, under an empty name,
            // and keep the value's bytes (after 4 bytes of length, the type byte and the
            // name's NUL; before the document's NUL).
            let mut alone = Document::new();
            alone.insert("", value.clone());
            let bytes = alone
                .to_vec()
                .map_err(|_| Refused::Invalid(String::new()))?;
            buf.extend_from_slice(bytes.get(6..bytes.len() - 1).unwrap_or_default());
        }
    }
    Ok(())
}

/// The shard key's field when the key is one top-level ascending field: the one
/// [`StoredBatch::push_new`] notes the place of, so that [`doc_key`] reads it directly.
pub(crate) fn key_field(pattern: &KeyPattern) -> Option<&str> {
    match pattern.fields() {
        [(path, FieldKind::Ascending)] if !path.contains('.') => Some(path),
        _ => None,
    }
}

/// A stored document's shard key value in its compact form: what `DocKey::of` makes of
/// the value [`KeyPattern::extract_raw_into`] extracts. A number, an ObjectId, a date or a
/// short string at `key_at` (where the encoder saw the [`key_field`]) is read straight into
/// a [`DocKey`];
/// anything else goes through the pattern, extracting into `scratch`'s vector (which is
/// handed back, so that it is reused).
pub(crate) fn doc_key(
    pattern: &KeyPattern,
    stored: &Stored,
    key_at: Option<u32>,
    scratch: &mut Vec<Bson>,
) -> Result<DocKey, ShardKeyError> {
    if let Some(atom) = key_at.and_then(|at| stored.scalar_at(at)) {
        return Ok(DocKey::One(atom));
    }
    let key = pattern.extract_raw_into(stored.raw(), std::mem::take(scratch))?;
    let compact = DocKey::of(&key);
    *scratch = key.0;
    Ok(compact)
}

/// The compact form of a number, an ObjectId, a date or a short string from its BSON type
/// byte and value bytes (`None` for other types, or too few bytes).
fn scalar_atom(kind: u8, value: &[u8]) -> Option<Atom> {
    let fixed = |n: usize| value.get(..n);
    Some(match kind {
        0x01 => Atom::Double(f64::from_le_bytes(fixed(8)?.try_into().ok()?)),
        0x07 => Atom::ObjectId(fixed(12)?.try_into().ok()?),
        0x10 => Atom::Int32(i32::from_le_bytes(fixed(4)?.try_into().ok()?)),
        0x12 => Atom::Int64(i64::from_le_bytes(fixed(8)?.try_into().ok()?)),
        0x09 => Atom::DateTime(i64::from_le_bytes(fixed(8)?.try_into().ok()?)),
        0x02 => {
            // A length (with the final NUL), the bytes, the NUL.
            let len = usize::try_from(i32::from_le_bytes(fixed(4)?.try_into().ok()?)).ok()?;
            let text = value.get(4..4 + len.checked_sub(1)?)?;
            short_string(std::str::from_utf8(text).ok()?)?
        }
        _ => return None,
    })
}

fn empty_raw() -> &'static RawDocument {
    match RawDocument::from_bytes(&EMPTY_DOCUMENT) {
        Ok(d) => d,
        // Five bytes of empty document always parse.
        Err(_) => unreachable!("the empty document is valid BSON"),
    }
}

/// The document store: documents by (shard key, insertion number). The map's leaves and
/// the documents are shared (`Rc`), so that a copy of a collection, such as a timeline
/// snapshot, copies pointers rather than documents.
pub(crate) type DocStore = SharedMap<(DocKey, u64), Stored>;

/// A value of the `_id` index, ordered as MongoDB orders BSON values.
#[derive(Debug, Clone)]
pub(crate) struct IdKey(Atom);

impl IdKey {
    /// The `_id` of a document (null when it has none).
    pub(crate) fn of(doc: &Document) -> IdKey {
        IdKey(Atom::new(doc.get("_id").cloned().unwrap_or(Bson::Null)))
    }

    /// The `_id` of a document that got the generated ObjectId `oid` (what [`Stored::id`]
    /// reads back from its bytes, without reading them).
    pub(crate) fn object_id(oid: ObjectId) -> IdKey {
        IdKey(Atom::ObjectId(oid.bytes()))
    }

    /// The value as BSON.
    pub(crate) fn to_bson(&self) -> Bson {
        self.0.to_bson()
    }
}

eq_from_ord!(IdKey);
impl Ord for IdKey {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.compare(&other.0)
    }
}

/// An entry of the `_id` index: an `_id` on one shard, and how many documents there hold
/// it. Entries order (and are equal) by `_id` and shard alone; the count rides in the
/// bytes the pair leaves spare, so that an entry takes 24 bytes rather than the 32 of a
/// `((IdKey, ShardIdx), u32)`.
#[derive(Debug, Clone)]
pub(crate) struct IdSlot {
    pub(crate) id: IdKey,
    pub(crate) shard: ShardIdx,
    count: u32,
}

impl IdSlot {
    /// The entry for `id` on `shard` holding one document; as a search key, any entry for
    /// that `_id` and shard.
    pub(crate) fn new(id: IdKey, shard: ShardIdx) -> IdSlot {
        IdSlot {
            id,
            shard,
            count: 1,
        }
    }

    /// How many documents on the shard hold the `_id`.
    pub(crate) fn count(&self) -> u32 {
        self.count
    }
}

eq_from_ord!(IdSlot);
impl Ord for IdSlot {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.id
            .cmp(&other.id)
            .then_with(|| self.shard.cmp(&other.shard))
    }
}

/// Where a document is filed in the store: its key and insertion number, the key of its
/// [`DocStore`] entry.
#[derive(Debug, Clone)]
pub(crate) struct DocAt {
    /// The document's shard key, compact.
    pub(crate) key: DocKey,
    /// Its insertion number.
    pub(crate) seq: u64,
}

impl DocAt {
    /// The place of the document filed under `key` and `seq`.
    pub(crate) fn new(key: DocKey, seq: u64) -> DocAt {
        DocAt { key, seq }
    }
}

/// The `_id` index: how many documents hold each `_id` on each shard, and where one of
/// them is filed. The place is exact while the count is 1 and was last set by an insert,
/// a migration or a move; a reader checks it against the store (the document there must
/// have the `_id` and sit on the shard) and otherwise reads the shard.
pub(crate) type IdIndex = SharedMap<IdSlot, DocAt>;

/// Counts one more document with `id` on `shard`, filed at `at`.
pub(crate) fn id_add(ids: &mut IdIndex, id: IdKey, shard: ShardIdx, at: DocAt) {
    let slot = IdSlot::new(id, shard);
    if !ids.update_key(&slot, |s| s.count += 1) {
        ids.insert(slot, at);
    }
}

/// Counts one document fewer with `id` on `shard`.
pub(crate) fn id_remove(ids: &mut IdIndex, id: IdKey, shard: ShardIdx) {
    let slot = IdSlot::new(id, shard);
    match ids.get_key(&slot).map(IdSlot::count) {
        Some(1) => {
            ids.remove(&slot);
        }
        Some(_) => {
            ids.update_key(&slot, |s| s.count -= 1);
        }
        None => {}
    }
}

/// Moves one document with `id` from `from`'s count to `to`'s (a migration, or an update
/// that changed its shard key), now filed at `at`. A lone document is re-keyed in place;
/// the general case removes and adds.
pub(crate) fn id_move(ids: &mut IdIndex, id: IdKey, from: ShardIdx, to: ShardIdx, at: DocAt) {
    let slot = IdSlot::new(id, from);
    let to_slot = IdSlot::new(slot.id.clone(), to);
    if ids.rekey_in_place(&slot, to_slot.clone(), |s, _| s.count == 1) {
        ids.insert(to_slot, at);
        return;
    }
    let IdSlot { id, .. } = slot;
    id_remove(ids, id.clone(), from);
    id_add(ids, id, to, at);
}

/// The entries of `docs` whose keys are in `[min, max)`.
pub(crate) fn range<'a>(
    docs: &'a DocStore,
    min: &KeyValue,
    max: &KeyValue,
) -> crate::support::shared_map::Iter<'a, (DocKey, u64), Stored> {
    docs.range((DocKey::of(min), 0)..(DocKey::of(max), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    /// Every BSON type, nested in documents and arrays, encodes as `bson` encodes it.
    #[test]
    fn encoding_matches_bson() -> Result<(), Box<dyn std::error::Error>> {
        use bson::spec::BinarySubtype;
        use bson::{doc, Binary, DateTime, Decimal128, JavaScriptCodeWithScope, Regex, Timestamp};
        let doc = doc! {
            "d": 1.5, "s": "héllo", "e": "", "o": { "a": 1, "b": { "c": [1, "x", null] } },
            "arr": [1_i64, 2.5, [true, false], { "k": Bson::MinKey }],
            "bin": Binary { subtype: BinarySubtype::Generic, bytes: vec![1, 2, 3] },
            "old": Binary { subtype: BinarySubtype::BinaryOld, bytes: vec![9, 8] },
            "u": Bson::Undefined, "oid": ObjectId::from_bytes([7; 12]), "t": true,
            "dt": DateTime::from_millis(-5), "n": Bson::Null,
            "re": Regex {
                pattern: bson::raw::CString::try_from("a.*b")?,
                options: bson::raw::CString::try_from("im")?,
            },
            "ptr": crate::values::js::make_db_pointer("db.c", ObjectId::from_bytes([2; 12]))
                .unwrap_or(Bson::Null),
            "js": Bson::JavaScriptCode("f()".into()),
            "sym": Bson::Symbol("sy".into()),
            "jsc": JavaScriptCodeWithScope { code: "g()".into(), scope: doc! { "x": 1 } },
            "i": -7_i32, "ts": Timestamp { time: 3, increment: 9 }, "l": i64::MIN,
            "dec": Decimal128::from_bytes([3; 16]), "min": Bson::MinKey, "max": Bson::MaxKey,
        };
        let ours = Stored::encode(&doc, None)?;
        assert_eq!(ours.bytes(), &doc.to_vec()?[..]);
        assert_eq!(ours.doc(), doc);
        let id = ObjectId::from_bytes([1; 12]);
        let with_id = Stored::encode(&doc, Some(id))?;
        let mut expected = doc! { "_id": id };
        expected.extend(doc);
        assert_eq!(with_id.bytes(), &expected.to_vec()?[..]);
        assert!(Stored::encode(&doc! { "a\0b": 1 }, None).is_err());
        Ok(())
    }

    /// A batch encodes each document as `encode` does, skips one that cannot be encoded,
    /// and hands them out in order, sharing one buffer.
    #[test]
    fn a_batch_encodes_like_single_documents() -> Result<(), Box<dyn std::error::Error>> {
        let docs = [
            doc! { "a": 1, "s": "x" },
            doc! { "bad\0name": 1 },
            doc! { "b": [1, 2, { "c": 3.5 }] },
            doc! {},
        ];
        let ids = [None, None, Some(ObjectId::from_bytes([7; 12])), None];
        let mut batch = StoredBatch::with_capacity(16, 4);
        let mut expected = Vec::new();
        for (d, id) in docs.iter().zip(ids) {
            match Stored::encode(d, id) {
                Ok(one) => {
                    batch.push(d, id)?;
                    expected.push(one);
                }
                Err(_) => assert!(batch.push(d, id).is_err()),
            }
        }
        let total: u32 = expected.iter().map(Stored::size).sum();
        assert_eq!(batch.bytes(), total);
        let stored: Vec<Stored> = batch.finish().collect();
        assert_eq!(stored.len(), 3);
        for (got, want) in stored.iter().zip(&expected) {
            assert_eq!(got.bytes(), want.bytes());
            assert_eq!(got.doc(), want.doc());
        }
        assert!(Rc::ptr_eq(&stored[0].buf, &stored[2].buf));
        assert_ne!(stored[0].ptr(), stored[1].ptr());
        Ok(())
    }

    /// `push_new` stores what `push` stores given the `_id` it generates, notes where the
    /// key's field is, refuses an array `_id` before a bad field name, and uses up an
    /// ObjectId exactly for each document without `_id`.
    #[test]
    fn push_new_encodes_in_one_pass() -> Result<(), Box<dyn std::error::Error>> {
        let docs = [
            doc! { "k": 5_i64, "s": "x" },
            doc! { "a": 1, "_id": "mine", "k": 2.5 },
            doc! { "_id": 7, "k": "text" },
            doc! { "s": 1 },
            doc! { "k": ObjectId::from_bytes([3; 12]), "_id": ObjectId::from_bytes([4; 12]) },
            doc! { "_id": [1, 2], "k": 1 },
            doc! { "bad\0name": 1, "k": 1 },
            doc! { "bad\0name": 1, "_id": [1] },
            doc! { "k": 9, "bad\0name": 1, "_id": 3 },
        ];
        let mut batch = StoredBatch::with_capacity(64, 1);
        let mut counter = 0u8;
        let mut expected = Vec::new();
        for d in &docs {
            let before = counter;
            let pushed = batch.push_new(d, Some("k"), || {
                counter += 1;
                ObjectId::from_bytes([counter; 12])
            });
            let has_id = d.get("_id").is_some();
            assert_eq!(counter - before, u8::from(!has_id), "{d}");
            let array_id = matches!(d.get("_id"), Some(Bson::Array(_)));
            let bad_name = d.keys().any(|k| k.contains('\0'));
            match pushed {
                Ok(p) => {
                    assert!(!array_id && !bad_name, "{d}");
                    assert_eq!(p.generated.is_some(), !has_id);
                    let one = Stored::encode(d, p.generated)?;
                    let found = crate::values::raw::find_element(one.bytes(), b"k")
                        .and_then(|(t, v)| scalar_atom(t, v));
                    let at = p.key_at.and_then(|at| one.scalar_at(at));
                    assert_eq!(format!("{at:?}"), format!("{found:?}"), "{d}");
                    assert_eq!(p.key_at.is_some(), d.contains_key("k"), "{d}");
                    expected.push(one);
                }
                Err(e) => {
                    let message = e.to_string();
                    assert!(array_id || bad_name, "{d}");
                    assert_eq!(message.contains("array"), array_id, "{d}: {message}");
                }
            }
        }
        let stored: Vec<Stored> = batch.finish().collect();
        assert_eq!(stored.len(), expected.len());
        for (got, want) in stored.iter().zip(&expected) {
            assert_eq!(got.bytes(), want.bytes());
        }
        Ok(())
    }

    /// The quick field reader finds what `bson`'s reader finds, for every type.
    #[test]
    fn raw_get_agrees_with_bson() -> Result<(), Box<dyn std::error::Error>> {
        let doc = doc! {
            "s": "x", "o": { "a": 1 }, "arr": [1, 2], "re": Bson::RegularExpression(bson::Regex {
                pattern: bson::raw::CString::try_from("p")?,
                options: bson::raw::CString::try_from("i")?,
            }),
            "d": 2.5, "oid": ObjectId::from_bytes([4; 12]), "t": true, "n": Bson::Null,
            "i": 3, "l": 4_i64, "dec": bson::Decimal128::from_bytes([1; 16]),
            "ts": bson::Timestamp { time: 1, increment: 2 }, "max": Bson::MaxKey,
        };
        let stored = Stored::encode(&doc, None)?;
        let raw = stored.raw();
        for name in doc.keys().map(String::as_str).chain(["missing", ""]) {
            let ours = raw_get(raw, name).map(Bson::try_from).transpose()?;
            let theirs = raw.get(name)?.map(Bson::try_from).transpose()?;
            assert_eq!(ours, theirs, "{name}");
        }
        Ok(())
    }

    /// The key read where the encoder saw it gives what the pattern's own extraction
    /// gives, for every type of value, missing and nested fields, hashed and compound
    /// patterns, and the scratch vector lent to it is handed back.
    #[test]
    fn doc_key_agrees_with_the_pattern() -> Result<(), Box<dyn std::error::Error>> {
        let values = [
            Bson::Int32(-3),
            Bson::Int64(1 << 40),
            Bson::Double(2.5),
            Bson::Double(f64::NAN),
            Bson::ObjectId(ObjectId::from_bytes([9; 12])),
            Bson::String("k".into()),
            Bson::String("fourteen bytes".into()),
            Bson::String("a longer string".into()),
            Bson::DateTime(bson::DateTime::from_millis(1_700_000_000_000)),
            Bson::Null,
            Bson::Boolean(true),
            Bson::Document(doc! { "b": 4 }),
            Bson::Array(vec![Bson::Int32(1)]),
            Bson::MaxKey,
        ];
        let patterns = [
            doc! { "k": 1 },
            doc! { "k": "hashed" },
            doc! { "k.b": 1 },
            doc! { "k": 1, "z": 1 },
            doc! { "z": 1 },
        ];
        let mut scratch: Vec<Bson> = Vec::new();
        for pattern in &patterns {
            let pattern = KeyPattern::parse(pattern)?;
            for value in &values {
                for d in [
                    doc! { "_id": 1, "k": value.clone(), "z": 7 },
                    doc! { "k": value.clone() },
                ] {
                    let mut batch = StoredBatch::with_capacity(64, 1);
                    let pushed = batch
                        .push_new(&d, key_field(&pattern), || ObjectId::from_bytes([5; 12]))?;
                    let stored = batch.finish().next().ok_or("stored")?;
                    let ours = doc_key(&pattern, &stored, pushed.key_at, &mut scratch);
                    let theirs = pattern.extract_raw(stored.raw()).map(|k| DocKey::of(&k));
                    match (ours, theirs) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.to_key(), b.to_key(), "{pattern:?} {d}");
                            assert_eq!(a.cmp(&b), Ordering::Equal);
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b),
                        (a, b) => panic!("{pattern:?} {d}: {a:?} against {b:?}"),
                    }
                }
            }
        }
        assert!(scratch.capacity() > 0, "the lent vector comes back");
        Ok(())
    }

    /// The `_id` index counts like a map of (`_id`, shard) to counts through random adds,
    /// removals and moves, including several documents with one `_id` on one shard.
    #[test]
    fn id_index_counts_like_a_map() {
        let mut rng = crate::support::rng::SplitMix64::new(23);
        let mut ids = IdIndex::new();
        let mut model: std::collections::BTreeMap<(i64, ShardIdx), u32> = Default::default();
        let key = |i: i64| IdKey(Atom::Int64(i));
        for step in 0..20_000 {
            let (id, shard) = (rng.below(60) as i64, rng.below(3) as ShardIdx);
            match rng.below(3) {
                0 => {
                    id_add(&mut ids, key(id), shard, DocAt::new(DocKey::Empty, 0));
                    *model.entry((id, shard)).or_default() += 1;
                }
                1 => {
                    id_remove(&mut ids, key(id), shard);
                    if let Some(n) = model.get_mut(&(id, shard)) {
                        *n -= 1;
                        if *n == 0 {
                            model.remove(&(id, shard));
                        }
                    }
                }
                _ if model.contains_key(&(id, shard)) => {
                    let to = rng.below(3) as ShardIdx;
                    id_move(&mut ids, key(id), shard, to, DocAt::new(DocKey::Empty, 0));
                    for (s, delta) in [(shard, -1i64), (to, 1)] {
                        let n = model.entry((id, s)).or_default();
                        *n = (i64::from(*n) + delta) as u32;
                        if *n == 0 {
                            model.remove(&(id, s));
                        }
                    }
                }
                _ => {}
            }
            if step % 101 == 0 {
                let got: Vec<(Bson, ShardIdx, u32)> = ids
                    .iter()
                    .map(|(s, _)| (s.id.to_bson(), s.shard, s.count()))
                    .collect();
                let want: Vec<(Bson, ShardIdx, u32)> = model
                    .iter()
                    .map(|(&(i, s), &n)| (Bson::Int64(i), s, n))
                    .collect();
                assert_eq!(got, want, "step {step}");
            }
        }
    }

    /// Compact keys order as the values they stand for, compared with each other and
    /// with the values themselves, and give those values back.
    #[test]
    fn compact_keys_order_as_their_values() {
        let values = [
            Bson::MinKey,
            Bson::Null,
            Bson::Int32(-3),
            Bson::Int64(7),
            Bson::Double(2.5),
            Bson::String(String::new()),
            Bson::String("t1".into()),
            Bson::String("t10".into()),
            Bson::String("fourteen bytes".into()),
            Bson::String("fifteen bytes!!".into()),
            Bson::String("é".into()),
            Bson::Symbol("t1".into()),
            Bson::Symbol("t2".into()),
            Bson::Document(doc! { "a": 1 }),
            Bson::ObjectId(ObjectId::from_bytes([9; 12])),
            Bson::Boolean(true),
            Bson::DateTime(bson::DateTime::from_millis(-1)),
            Bson::DateTime(bson::DateTime::from_millis(1_700_000_000_000)),
            Bson::Timestamp(bson::Timestamp {
                time: 1,
                increment: 1,
            }),
            Bson::MaxKey,
        ];
        let keys = |a: &Bson, b: &Bson| {
            [
                KeyValue(vec![a.clone()]),
                KeyValue(vec![a.clone(), b.clone()]),
            ]
        };
        for a in &values {
            for b in &values {
                for (ka, kb) in keys(a, b).iter().zip(keys(b, a).iter()) {
                    let want = ka.cmp(kb);
                    assert_eq!(DocKey::of(ka).cmp(&DocKey::of(kb)), want, "{ka:?} {kb:?}");
                    assert_eq!(DocKey::new(ka.clone()).cmp_key(kb), want, "{ka:?} {kb:?}");
                    let back = DocKey::of(ka).to_key();
                    assert_eq!(format!("{:?}", back.0), format!("{:?}", ka.0));
                }
            }
        }
    }

    #[test]
    fn compact_forms_are_small() {
        assert_eq!(std::mem::size_of::<Stored>(), 16);
        // The `_id` index's entry: the `_id`, shard and count in 24 bytes, the document's
        // place in 24 more.
        assert_eq!(std::mem::size_of::<(IdSlot, DocAt)>(), 48);
        assert_eq!(std::mem::size_of::<Atom>(), 16);
        assert_eq!(std::mem::size_of::<DocKey>(), 16);
    }
}
