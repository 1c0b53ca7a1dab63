//! `find` projections: inclusion and exclusion of fields, dotted paths into embedded
//! documents and arrays.

use super::filter::{bad, truthy};
use super::path::check_path_length;
use crate::keys::shard_key::format_bson_element;
use crate::values::error::ClusterError;
use bson::{Bson, Document};

/// A projection's paths as a tree: a leaf keeps or drops a whole field.
#[derive(Debug, Default)]
struct PathTree {
    /// True when the whole field at this node is named.
    leaf: bool,
    /// Sub-paths, in the order written.
    children: Vec<(String, PathTree)>,
}

impl PathTree {
    /// Adds a dotted path.
    fn add(&mut self, parts: &[&str]) {
        let Some((first, rest)) = parts.split_first() else {
            self.leaf = true;
            return;
        };
        let index = match self.children.iter().position(|(k, _)| k == first) {
            Some(i) => i,
            None => {
                self.children
                    .push(((*first).to_owned(), PathTree::default()));
                self.children.len() - 1
            }
        };
        if let Some((_, child)) = self.children.get_mut(index) {
            child.add(rest);
        }
    }

    /// The sub-tree for a field name.
    fn child(&self, name: &str) -> Option<&PathTree> {
        self.children
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t)
    }
}

/// Applies a `find` projection: inclusion (`{a: 1}`) or exclusion (`{a: 0}`), with
/// `_id` included unless excluded, dotted paths into embedded documents and arrays.
/// Mixing inclusion and exclusion (other than `_id`) is refused with MongoDB's text.
pub fn project(doc: &Document, projection: &Document) -> Result<Document, ClusterError> {
    let mut include_id = true;
    let mut mode: Option<bool> = None;
    let mut tree = PathTree::default();
    for (path, value) in projection {
        let include = match value {
            Bson::Boolean(b) => *b,
            Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
                truthy(value)
            }
            _ => {
                return Err(bad(&format!(
                    "ShardLab supports only inclusion and exclusion projections, not {}",
                    format_bson_element(path, value)
                )))
            }
        };
        check_path_length(path)?;
        if path == "_id" {
            include_id = include;
            continue;
        }
        match mode {
            Some(true) if !include => {
                return Err(bad(&format!(
                    "Cannot do exclusion on field {path} in inclusion projection"
                )))
            }
            Some(false) if include => {
                return Err(bad(&format!(
                    "Cannot do inclusion on field {path} in exclusion projection"
                )))
            }
            _ => mode = Some(include),
        }
        let parts: Vec<&str> = path.split('.').collect();
        tree.add(&parts);
    }
    match mode {
        // Only `_id` named: `{_id: 0}` excludes it, `{_id: 1}` keeps only it.
        None if projection.is_empty() => Ok(doc.clone()),
        None if include_id => Ok(doc
            .get("_id")
            .map(|id| {
                let mut d = Document::new();
                d.insert("_id", id.clone());
                d
            })
            .unwrap_or_default()),
        None => {
            let mut out = doc.clone();
            out.remove("_id");
            Ok(out)
        }
        Some(true) => {
            let mut out = include_fields(doc, &tree);
            if include_id {
                if let Some(id) = doc.get("_id") {
                    if !out.contains_key("_id") {
                        // `_id` keeps its place: rebuild with it in document order.
                        let mut ordered = Document::new();
                        for (k, _) in doc {
                            if k == "_id" {
                                ordered.insert("_id", id.clone());
                            } else if let Some(v) = out.get(k) {
                                ordered.insert(k.clone(), v.clone());
                            }
                        }
                        out = ordered;
                    }
                }
            }
            Ok(out)
        }
        Some(false) => {
            let mut out = exclude_fields(doc, &tree);
            if !include_id {
                out.remove("_id");
            }
            Ok(out)
        }
    }
}

/// Keeps only the fields the tree names, in document order.
fn include_fields(doc: &Document, tree: &PathTree) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        let Some(sub) = tree.child(k) else {
            continue;
        };
        if sub.leaf {
            out.insert(k.clone(), v.clone());
            continue;
        }
        match v {
            Bson::Document(d) => {
                out.insert(k.clone(), include_fields(d, sub));
            }
            Bson::Array(items) => {
                let kept: Vec<Bson> = items
                    .iter()
                    .filter_map(|item| match item {
                        Bson::Document(d) => Some(Bson::Document(include_fields(d, sub))),
                        _ => None,
                    })
                    .collect();
                out.insert(k.clone(), kept);
            }
            // A scalar where the projection expects a document has nothing to keep.
            _ => {}
        }
    }
    out
}

/// Drops the fields the tree names, in document order.
fn exclude_fields(doc: &Document, tree: &PathTree) -> Document {
    let mut out = Document::new();
    for (k, v) in doc {
        match tree.child(k) {
            None => {
                out.insert(k.clone(), v.clone());
            }
            Some(sub) if sub.leaf => {}
            Some(sub) => match v {
                Bson::Document(d) => {
                    out.insert(k.clone(), exclude_fields(d, sub));
                }
                Bson::Array(items) => {
                    let kept: Vec<Bson> = items
                        .iter()
                        .map(|item| match item {
                            Bson::Document(d) => Bson::Document(exclude_fields(d, sub)),
                            other => other.clone(),
                        })
                        .collect();
                    out.insert(k.clone(), kept);
                }
                other => {
                    out.insert(k.clone(), other.clone());
                }
            },
        }
    }
    out
}
