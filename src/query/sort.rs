//! `sort()`: the order of documents by one or more paths, with MongoDB's rules for
//! arrays and missing fields.

use super::filter::walk_document;
use super::path::MAX_PATH_PARTS;
use crate::values::order::compare_values;
use bson::{Bson, Document};
use std::cmp::Ordering;

/// Sorts documents as MongoDB's `sort()` does: field by field with
/// [`compare_values`], a missing field as null, a negative value meaning descending
/// (anything else ascends). An array
/// sorts by its smallest element ascending and its largest descending; an empty
/// array sorts below null. The sort is stable.
pub fn sort_documents(docs: &mut [Document], sort: &Document) {
    // The documents are put in [`sort_order`]'s order, so that the wasm module carries one
    // sort (of positions) rather than two.
    let order = sort_order(docs, sort);
    let mut taken: Vec<Document> = docs.iter_mut().map(std::mem::take).collect();
    for (slot, i) in docs.iter_mut().zip(order) {
        *slot = std::mem::take(&mut taken[i]);
    }
}

/// The positions of `docs` in the order [`sort_documents`] would put them: what a
/// findAndModify's `sort` needs to pick one document without moving any.
pub fn sort_order(docs: &[Document], sort: &Document) -> Vec<usize> {
    let keys = sort_keys(sort);
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by(|a, b| compare_by(&keys, &docs[*a], &docs[*b]));
    order
}

/// The value a document sorts by on `path` in an ascending sort: the smallest of the
/// values the path reaches (into arrays too), null when it reaches none (a missing field
/// sorts as null), undefined when it reaches only empty arrays. Compare two with
/// [`compare_values`].
pub fn sort_value(doc: &Document, path: &str) -> Bson {
    sort_key(doc, path, false)
}

/// A sort document's paths, each with whether it descends.
fn sort_keys(sort: &Document) -> Vec<(&str, bool)> {
    sort.iter()
        .map(|(path, dir)| {
            let descending = match dir {
                Bson::Int32(i) => *i < 0,
                Bson::Int64(i) => *i < 0,
                Bson::Double(d) => *d < 0.0,
                _ => false,
            };
            (path.as_str(), descending)
        })
        .collect()
}

/// Two documents compared path by path.
fn compare_by(keys: &[(&str, bool)], a: &Document, b: &Document) -> Ordering {
    for (path, descending) in keys {
        let ka = sort_key(a, path, *descending);
        let kb = sort_key(b, path, *descending);
        let o = compare_values(&ka, &kb);
        let o = if *descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The value a document sorts by on one path.
///
/// It walks the path as a filter does (into every element of an array on the way), not
/// with `values::path`'s walk, which stops at arrays: MongoDB sorts by the smallest or
/// largest of all the values a path reaches.
fn sort_key(doc: &Document, path: &str, descending: bool) -> Bson {
    let parts: Vec<&str> = path.split('.').collect();
    if parts.len() > MAX_PATH_PARTS {
        // No filter or update accepts such a path; a sort by it sorts as missing.
        return Bson::Null;
    }
    let mut values = Vec::new();
    walk_document(doc, &parts, &mut values, false);
    if values.is_empty() {
        // Only empty arrays were reached: MongoDB sorts them as undefined.
        return Bson::Undefined;
    }
    let pick = values.into_iter().map(|v| v.unwrap_or(&Bson::Null));
    let best = if descending {
        pick.max_by(|a, b| compare_values(a, b))
    } else {
        pick.min_by(|a, b| compare_values(a, b))
    };
    best.cloned().unwrap_or(Bson::Null)
}
