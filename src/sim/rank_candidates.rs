//! Which shard keys to try on a user's documents when none is given: a profile of the
//! top-level fields of the first [`PROFILE_DOCUMENTS`] documents, and candidates
//! proposed from it.
//!
//! The heuristic, in the terms of MongoDB's "Choose a Shard Key" page:
//!
//! - Only fields present in at least 90% of the documents and never an array are
//!   considered: a shard key field may not hold an array, and a missing field makes one
//!   null value that every such document shares.
//! - A field is **high-cardinality** when it has at least [`MIN_DISTINCT`] distinct values
//!   and at least half as many as the documents holding it; **low-cardinality** when it
//!   has fewer than [`MIN_DISTINCT`] (analyzeShardKey's own 100 ranges need at least 99
//!   distinct split points).
//! - A field is **monotonic** when, of the comparisons of each document's value with the
//!   previous document's in insertion order, at least 90% go the same way.
//! - Proposed, in this order and at most [`MAX_PROPOSALS`]: `{_id: 1}` and
//!   `{_id: "hashed"}` (an `_id` the file lacks is the cluster's ObjectId, which grows);
//!   each high-cardinality field ranged (`{f: 1}`), and hashed as well when it is
//!   monotonic (`{f: "hashed"}`, which spreads what a ranged key sends to one end); each
//!   low-cardinality field of at least two values as the prefix of a compound key with the first
//!   high-cardinality field that is not monotonic, or `_id` (`{tenant: 1, _id: 1}`), which
//!   keeps queries by that field together and still splits.

use crate::engine::message::{msg, Message};
use crate::values::hash::hash64;
use crate::values::order::compare_values;
use bson::{Bson, Document};

/// How many documents the profile reads before candidates are proposed.
pub const PROFILE_DOCUMENTS: u64 = 10_000;

/// The fewest distinct values of a high-cardinality field (and so the most of a
/// low-cardinality one, less one): analyzeShardKey's number of ranges.
pub const MIN_DISTINCT: u64 = 100;

/// The most candidates proposed.
pub const MAX_PROPOSALS: usize = 8;

/// The most top-level fields the profile follows (the first met).
pub const MAX_FIELDS: usize = 64;

/// The most distinct values counted per field; past it a field counts as having this many.
const DISTINCT_CAP: usize = 4096;

/// What the profile saw of one top-level field.
#[derive(Debug, Clone)]
struct FieldSeen {
    name: String,
    present: u64,
    arrays: u64,
    /// The hashes of the distinct values met (MongoDB's hash: 1 and 1.0 are one value),
    /// sorted, at most [`DISTINCT_CAP`].
    distinct: Vec<i64>,
    last: Option<Bson>,
    up: u64,
    down: u64,
}

/// The top-level fields of the documents read so far.
#[derive(Debug, Clone, Default)]
pub struct FieldProfile {
    fields: Vec<FieldSeen>,
    documents: u64,
}

/// A candidate key proposed, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// The key pattern.
    pub key: Document,
    /// Why it was proposed (`rank.proposed.*`).
    pub why: Message,
}

impl FieldProfile {
    /// Documents read.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// Reads one document's top-level fields.
    pub fn add(&mut self, doc: &Document) {
        self.documents += 1;
        for (name, value) in doc {
            let at = match self.fields.iter().position(|f| f.name == *name) {
                Some(at) => at,
                None if self.fields.len() < MAX_FIELDS => {
                    self.fields.push(FieldSeen::new(name));
                    self.fields.len() - 1
                }
                None => continue,
            };
            self.fields[at].add(value);
        }
    }

    /// The candidates this profile suggests (see the module's notes).
    pub fn propose(&self) -> Vec<Proposal> {
        let sample = self.documents;
        let usable: Vec<&FieldSeen> = self
            .fields
            .iter()
            .filter(|f| f.arrays == 0 && f.present * 10 >= sample * 9 && f.name != "_id")
            .collect();
        let high: Vec<&FieldSeen> = usable.iter().copied().filter(|f| f.high()).collect();
        let suffix = high
            .iter()
            .find(|f| !f.monotonic())
            .map_or("_id", |f| f.name.as_str());
        let mut out = id_proposals(self.fields.iter().find(|f| f.name == "_id"), sample);
        for f in &high {
            let (distinct, field) = (f.distinct_count(), f.name.as_str());
            let why = msg!(
                "rank.proposed.high",
                field = field,
                distinct = distinct,
                sample = sample
            );
            out.push(proposal(bson::doc! { field: 1 }, why));
            if f.monotonic() {
                let why = msg!("rank.proposed.hashed", field = field, sample = sample);
                out.push(proposal(bson::doc! { field: "hashed" }, why));
            }
        }
        for f in usable
            .iter()
            .filter(|f| (2..MIN_DISTINCT).contains(&f.distinct_count()))
        {
            let field = f.name.as_str();
            let why = msg!(
                "rank.proposed.compound",
                field = field,
                distinct = f.distinct_count(),
                suffix = suffix
            );
            out.push(proposal(bson::doc! { field: 1, suffix: 1 }, why));
        }
        out.truncate(MAX_PROPOSALS);
        out
    }
}

/// `{_id: 1}` and `{_id: "hashed"}`, said to grow when the file has no `_id` (the
/// cluster's ObjectIds) or its `_id`s are monotonic.
fn id_proposals(id: Option<&FieldSeen>, sample: u64) -> Vec<Proposal> {
    let grows = id.is_none_or(FieldSeen::monotonic);
    let why = if id.is_none() {
        msg!("rank.proposed.id_generated")
    } else if grows {
        msg!("rank.proposed.id_monotonic", sample = sample)
    } else {
        msg!("rank.proposed.id")
    };
    vec![
        proposal(bson::doc! { "_id": 1 }, why.clone()),
        proposal(bson::doc! { "_id": "hashed" }, why),
    ]
}

fn proposal(key: Document, why: Message) -> Proposal {
    Proposal { key, why }
}

impl FieldSeen {
    fn new(name: &str) -> Self {
        FieldSeen {
            name: name.to_string(),
            present: 0,
            arrays: 0,
            distinct: Vec::new(),
            last: None,
            up: 0,
            down: 0,
        }
    }

    fn add(&mut self, value: &Bson) {
        self.present += 1;
        if matches!(value, Bson::Array(_)) {
            self.arrays += 1;
            return;
        }
        if self.distinct.len() < DISTINCT_CAP {
            let h = hash64(value, 0);
            if let Err(at) = self.distinct.binary_search(&h) {
                self.distinct.insert(at, h);
            }
        }
        if let Some(last) = &self.last {
            match compare_values(last, value) {
                std::cmp::Ordering::Less => self.up += 1,
                std::cmp::Ordering::Greater => self.down += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        // Only small values are kept for the next comparison; a large one ends the run.
        self.last = (matches!(value, Bson::String(s) if s.len() <= 1024)
            || !matches!(value, Bson::String(_) | Bson::Document(_) | Bson::Binary(_)))
        .then(|| value.clone());
    }

    fn distinct_count(&self) -> u64 {
        self.distinct.len() as u64
    }

    /// A field whose count reached the cap had at least that many values.
    fn high(&self) -> bool {
        let n = self.distinct_count();
        n >= DISTINCT_CAP as u64 || (n >= MIN_DISTINCT && n * 2 >= self.present)
    }

    /// At least 90% of the comparisons of consecutive values go one way (and there were
    /// some).
    fn monotonic(&self) -> bool {
        let steps = self.up + self.down;
        steps >= 10 && (self.up * 10 >= steps * 9 || self.down * 10 >= steps * 9)
    }
}
