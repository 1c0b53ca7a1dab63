//! Shard key patterns (spec §2) and extracting a document's shard key (spec §3).

use crate::order::compare_values;
use bson::{Bson, Document};
use std::cmp::Ordering;
use std::fmt;

/// Why a shard key pattern or a document's key was refused, in MongoDB's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardKeyError {
    /// The pattern has no fields.
    #[error("Shard key is empty")]
    Empty,
    /// A field of the pattern has a value other than 1 or "hashed".
    #[error("Shard key {pattern}numerical fields must be set to a value of 1 (ascending). Failed to parse field {field}")]
    NotAscending {
        /// The pattern as mongosh would print it.
        pattern: String,
        /// The offending field.
        field: String,
    },
    /// The document holds an array on the path of a shard key field.
    #[error("Shard key cannot contain array values or array descendants.")]
    ArrayValue,
}

impl ShardKeyError {
    /// MongoDB's code name for this error.
    pub fn code_name(&self) -> &'static str {
        match self {
            ShardKeyError::ArrayValue => "ShardKeyNotFound",
            _ => "BadValue",
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
    /// Parses and validates a pattern document.
    pub fn parse(pattern: &Document) -> Result<Self, ShardKeyError> {
        if pattern.is_empty() {
            return Err(ShardKeyError::Empty);
        }
        let mut fields = Vec::with_capacity(pattern.len());
        for (name, v) in pattern {
            let kind = match v {
                Bson::Int32(1) | Bson::Int64(1) => FieldKind::Ascending,
                Bson::Double(d) if *d == 1.0 => FieldKind::Ascending,
                Bson::String(s) if s == "hashed" => FieldKind::Hashed,
                _ => {
                    return Err(ShardKeyError::NotAscending {
                        pattern: format!("{pattern}"),
                        field: name.clone(),
                    })
                }
            };
            fields.push((name.clone(), kind));
        }
        Ok(KeyPattern { fields })
    }

    /// The fields in pattern order.
    pub fn fields(&self) -> &[(String, FieldKind)] {
        &self.fields
    }

    /// True when some field is hashed.
    pub fn is_hashed(&self) -> bool {
        self.fields.iter().any(|(_, k)| *k == FieldKind::Hashed)
    }

    /// The smallest key: MinKey in every field.
    pub fn global_min(&self) -> KeyValue {
        KeyValue(vec![Bson::MinKey; self.fields.len()])
    }

    /// The largest key: MaxKey in every field.
    pub fn global_max(&self) -> KeyValue {
        KeyValue(vec![Bson::MaxKey; self.fields.len()])
    }

    /// Extracts a document's shard key value. A missing field becomes null.
    pub fn extract(&self, doc: &Document) -> Result<KeyValue, ShardKeyError> {
        let mut out = Vec::with_capacity(self.fields.len());
        for (path, _kind) in &self.fields {
            let mut cur: Option<&Bson> = None;
            let mut container = Some(doc);
            for part in path.split('.') {
                let Some(d) = container else {
                    cur = None;
                    break;
                };
                cur = d.get(part);
                container = match cur {
                    Some(Bson::Document(inner)) => Some(inner),
                    Some(Bson::Array(_)) => return Err(ShardKeyError::ArrayValue),
                    _ => None,
                };
            }
            out.push(cur.cloned().unwrap_or(Bson::Null));
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
}

impl fmt::Display for KeyPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .fields
            .iter()
            .map(|(n, k)| match k {
                FieldKind::Ascending => format!("{n}: 1"),
                FieldKind::Hashed => format!("{n}: \"hashed\""),
            })
            .collect();
        write!(f, "{{ {} }}", parts.join(", "))
    }
}

/// A shard key value: one BSON value per pattern field, compared field by field.
#[derive(Debug, Clone)]
pub struct KeyValue(pub Vec<Bson>);

impl PartialEq for KeyValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for KeyValue {}
impl PartialOrd for KeyValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
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
