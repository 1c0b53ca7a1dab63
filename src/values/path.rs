//! Dotted paths (`a.b.c`) into documents: the one walk through embedded documents, over
//! a parsed [`Document`] or raw BSON.
//!
//! Three readers share it: [`lookup_path`] (analyzeShardKey, the query workloads),
//! shard key extraction (`keys::shard_key`, which refuses arrays on the way) and chunk
//! bounds typed by the user (`engine::split::key_from_bound`). Walkers whose rules for
//! arrays differ stay with those rules: query matching and sorting (`query::filter`) look
//! into every element of an array met on the way, and updates (`query::update`) address
//! array elements by position and create what is missing, so neither is this walk.

use bson::{Bson, Document, RawBsonRef, RawDocument};

/// A document a dotted path can walk: a parsed [`Document`] or [`RawDocument`] bytes.
pub(crate) trait PathDocument {
    /// A borrowed value of a field.
    type Value<'a>: Copy
    where
        Self: 'a;

    /// The value of one field of this document (no dots).
    fn field<'a>(&'a self, name: &str) -> Option<Self::Value<'a>>;

    /// The embedded document a value is, if it is one.
    fn as_document<'a>(value: Self::Value<'a>) -> Option<&'a Self>;
}

impl PathDocument for Document {
    type Value<'a> = &'a Bson;

    fn field<'a>(&'a self, name: &str) -> Option<Self::Value<'a>> {
        self.get(name)
    }

    fn as_document<'a>(value: Self::Value<'a>) -> Option<&'a Self> {
        match value {
            Bson::Document(d) => Some(d),
            _ => None,
        }
    }
}

impl PathDocument for RawDocument {
    type Value<'a> = RawBsonRef<'a>;

    fn field<'a>(&'a self, name: &str) -> Option<Self::Value<'a>> {
        super::raw::raw_get(self, name)
    }

    fn as_document<'a>(value: Self::Value<'a>) -> Option<&'a Self> {
        match value {
            RawBsonRef::Document(d) => Some(d),
            _ => None,
        }
    }
}

/// Where a walk along a dotted path stopped.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathEnd<V> {
    /// Every part was found: the value at the end of the path.
    Found(V),
    /// A part names no field of the document reached so far.
    Missing,
    /// A part's value is not a document, yet more parts follow: that value (callers
    /// that refuse arrays look at it; for the others the field is missing).
    Blocked(V),
}

/// Walks `path` from `doc`, descending through embedded documents only.
pub(crate) fn walk_path<'a, D: PathDocument + ?Sized>(
    doc: &'a D,
    path: &str,
) -> PathEnd<D::Value<'a>> {
    if !path.as_bytes().contains(&b'.') {
        // A top-level field, the usual case, needs no splitting.
        return match doc.field(path) {
            Some(value) => PathEnd::Found(value),
            None => PathEnd::Missing,
        };
    }
    let mut current = doc;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(value) = current.field(part) else {
            return PathEnd::Missing;
        };
        if parts.peek().is_none() {
            return PathEnd::Found(value);
        }
        match D::as_document(value) {
            Some(inner) => current = inner,
            None => return PathEnd::Blocked(value),
        }
    }
    // `split` yields at least one part, so the loop always returns.
    PathEnd::Missing
}

/// The value at a dotted path, descending through embedded documents only: a path that
/// meets anything else on the way (an array included) reaches nothing.
pub(crate) fn lookup_path<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    match walk_path(doc, path) {
        PathEnd::Found(value) => Some(value),
        PathEnd::Missing | PathEnd::Blocked(_) => None,
    }
}
