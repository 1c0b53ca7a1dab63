//! Dotted paths (`a.b.c`) into documents.

use bson::{Bson, Document};

/// The value at a dotted path, descending through embedded documents only.
pub(crate) fn lookup_path<'a>(doc: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut current = doc;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        let v = current.get(part)?;
        if parts.peek().is_none() {
            return Some(v);
        }
        match v {
            Bson::Document(inner) => current = inner,
            _ => return None,
        }
    }
    None
}
