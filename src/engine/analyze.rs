//! `analyzeShardKey` (spec §10): how good a candidate shard key would be, from the
//! documents a collection holds and the queries sampled against it.
//!
//! The computation follows MongoDB 7.x (`analyze_shard_key_cmd_util.cpp` and
//! `analyze_shard_key_read_write_distribution.cpp`):
//!
//! - **Supporting index.** The key's field names must be a prefix of an index: `_id`, the
//!   current shard key's index, or one made with `createIndex` (the index type, ranged or
//!   hashed, does not matter). Without one, `keyCharacteristics` is left out, or the
//!   command fails when only `keyCharacteristics` was asked for.
//! - **Cardinality and frequency** group the documents by the key as the index stores it
//!   (the hashed field hashed, a missing field as null). `mostCommonValues` is the top 5 by
//!   frequency, ties in key order. A unique key takes a shortcut, as MongoDB does: every
//!   value is distinct and the "most common" values are the first 5 documents in natural
//!   (insertion) order, each with frequency 1.
//! - **Monotonicity** scans the key in index order, collecting the record id (insertion
//!   number) of every entry, and takes the Pearson correlation of those record ids with
//!   their positions 1..n, rounded to 10 decimal places; `|r| >= 0.7` is `"monotonic"`. A
//!   single distinct value gives 0 and `"not monotonic"`; so does a key of one hashed field.
//! - **Read and write distribution.** The candidate key has no chunks yet, so MongoDB makes
//!   100 ranges of about equal document counts (`analyzeShardKeyNumRanges`) with the
//!   sampling split policy resharding uses: `$sample` 990 documents (10 per split point),
//!   sort their keys, keep every 10th, de-duplicated, until 99 split points. Fewer than 99
//!   distinct points fail the whole command: the key's cardinality is too low. Each sampled
//!   query is then targeted against those 100 ranges: full-key equality is single-shard, no
//!   usable key range is scatter-gather, anything else is multi-shard (by the filter's
//!   shape, not by how many ranges it hits), and `numReadsByRange` counts every range a
//!   query touches. The `$sample` here is drawn from the cluster's seed, so it repeats.

use crate::engine::chunks::{Chunk, RoutingTable};
use crate::engine::cluster::{split_ns, Cluster, Collection, DocKey, Stored};
use crate::engine::message::{msg, Message};
use crate::engine::targeting::{self, TargetKind};
use crate::keys::shard_key::{FieldKind, KeyPattern, KeyValue};
use crate::support::rng::SplitMix64;
use crate::values::error::ClusterError;
use crate::values::path::lookup_path;
use bson::{Bson, Document};

/// A sampled query, as `configureQueryAnalyzer` records it, or a generated one (the query
/// workloads produce the same shape), or one read from a file
/// (`workload::read_queries`): the command name (`find`, `aggregate`, `count`,
/// `distinct`, `updateOne`, `updateMany`, `replaceOne`, `deleteOne`, `deleteMany`,
/// `findOneAndUpdate`, `findOneAndReplace`, `findOneAndDelete`), its filter and, for
/// updates, the update document.
#[derive(Debug, Clone, PartialEq)]
pub struct QuerySample {
    /// The command, as mongosh names the method.
    pub command: String,
    /// The query filter.
    pub filter: Document,
    /// The update (operators or a replacement) for update commands.
    pub update: Option<Document>,
    /// Whether the update upserts: an upserting replacement is never targeted by its
    /// replacement document.
    pub upsert: bool,
}

impl QuerySample {
    /// Whether analyzeShardKey counts it as a read (`find`, `aggregate`, `count`,
    /// `distinct`).
    pub fn is_read(&self) -> bool {
        matches!(kind_of(&self.command), Some(Kind::Read(_)))
    }

    /// Whether analyzeShardKey counts it as a write (an update, a delete or a
    /// findAndModify).
    pub fn is_write(&self) -> bool {
        matches!(kind_of(&self.command), Some(Kind::Write { .. }))
    }
}

/// The number of key ranges for the read and write distribution (MongoDB's
/// `analyzeShardKeyNumRanges` default).
pub const NUM_RANGES: usize = 100;

/// Documents sampled per split point (MongoDB's `analyzeShardKeyNumSamplesPerRange`).
pub const SAMPLES_PER_RANGE: usize = 10;

/// Why analyzeShardKey measured no read and write distribution for a key of a collection
/// of `docs` documents with `distinct` distinct key values, in plain words, and what would
/// make the distributions appear (see the module's notes on the 100 ranges).
pub fn distribution_skipped_reason(docs: u64, distinct: u64) -> String {
    distribution_skipped_message(docs, distinct).english()
}

/// [`distribution_skipped_reason`] as a message of the page's catalogue (`analyze.*`).
pub fn distribution_skipped_message(docs: u64, distinct: u64) -> Message {
    let (ranges, per) = (NUM_RANGES as u64, SAMPLES_PER_RANGE as u64);
    let (wanted, sample) = (ranges - 1, (ranges - 1) * per);
    let how = msg!(
        "analyze.how",
        ranges = ranges,
        wanted = wanted,
        sample = sample,
        per = per
    );
    if docs < sample {
        msg!(
            "analyze.few_docs",
            how = how,
            docs = docs,
            most = docs.div_ceil(per),
            wanted = wanted,
            distinct = distinct,
            sample = sample,
            per = per
        )
    } else if distinct < wanted {
        msg!(
            "analyze.few_values",
            how = how,
            distinct = distinct,
            wanted = wanted
        )
    } else {
        msg!(
            "analyze.uneven",
            how = how,
            distinct = distinct,
            wanted = wanted,
            per = per
        )
    }
}

/// The note beside a report without its read and write distribution: why (a message of
/// [`distribution_skipped_message`]) and MongoDB's own error, as it prints it.
pub fn distribution_skipped_note(docs: u64, distinct: u64, error: &str) -> Message {
    msg!(
        "analyze.skipped",
        why = distribution_skipped_message(docs, distinct),
        error = error
    )
}

/// How many most common values are reported (MongoDB's `analyzeShardKeyNumMostCommonValues`).
pub const NUM_MOST_COMMON_VALUES: usize = 5;

/// `|r|` at or above which a key is reported monotonic
/// (`analyzeShardKeyMonotonicityCorrelationCoefficientThreshold`).
pub const MONOTONICITY_THRESHOLD: f64 = 0.7;

/// The size of an empty BSON document, the floor of `avgDocSizeBytes`.
const EMPTY_DOC_SIZE: i64 = 5;

/// Which parts of the analysis to compute, as the command's options say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalyzeOptions {
    /// `keyCharacteristics` (default true).
    pub key_characteristics: bool,
    /// `readWriteDistribution` (default true).
    pub read_write_distribution: bool,
    /// Whether both `sampleRate` and `sampleSize` were given:
    /// ShardLab reads every document, so only their conflict matters.
    pub sample_rate_and_size: bool,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            key_characteristics: true,
            read_write_distribution: true,
            sample_rate_and_size: false,
        }
    }
}

/// `analyzeShardKey` with both parts of the analysis, as `db.adminCommand({analyzeShardKey:
/// ns, key})` runs it. See [`analyze_shard_key_with`].
pub fn analyze_shard_key(
    cluster: &Cluster,
    ns: &str,
    key: &Document,
    samples: &[QuerySample],
) -> Result<Document, ClusterError> {
    analyze_shard_key_with(cluster, ns, key, samples, AnalyzeOptions::default())
}

/// `analyzeShardKey` of candidate `key` on `ns`, with `samples` as the sampled queries.
/// Returns MongoDB's reply: `keyCharacteristics`, `readDistribution`, `writeDistribution`
/// (each when asked for) and `ok: 1`.
pub fn analyze_shard_key_with(
    cluster: &Cluster,
    ns: &str,
    key: &Document,
    samples: &[QuerySample],
    options: AnalyzeOptions,
) -> Result<Document, ClusterError> {
    split_ns(ns)?;
    // analyze_shard_key_cmd.cpp (the shard's AnalyzeShardKeyCmd::typedRun), before the
    // namespace is looked at.
    if !options.key_characteristics && !options.read_write_distribution {
        return Err(ClusterError::InvalidOptions(
            "Cannot skip analyzing all metrics".into(),
        ));
    }
    if options.sample_rate_and_size {
        return Err(ClusterError::InvalidOptions(
            "Cannot specify both 'sampleRate' and 'sampleSize'".into(),
        ));
    }
    let pattern = KeyPattern::parse(key)?;
    let coll = cluster.collection(ns).ok_or_else(|| {
        ClusterError::NamespaceNotFound(
            "Cannot analyze a shard key for a non-existing collection".into(),
        )
    })?;
    let mut reply = Document::new();
    // The entries in index order are shared by both parts; find them once.
    let mut entries: Option<IndexOrder<'_>> = None;
    if options.key_characteristics {
        if coll.doc_count() == 0 {
            return Err(ClusterError::IllegalOperation(
                "Cannot analyze the characteristics of a shard key for an empty collection".into(),
            ));
        }
        match supporting_index(coll, &pattern) {
            Some(index) => {
                let sorted = IndexOrder::of(coll, &pattern)?;
                reply.insert(
                    "keyCharacteristics",
                    key_characteristics(coll, &pattern, &sorted, index.unique),
                );
                entries = Some(sorted);
            }
            None if !options.read_write_distribution => {
                return Err(ClusterError::IllegalOperation(
                    "Cannot analyze the characteristics of a shard key that does not have a supporting index".into(),
                ));
            }
            None => {}
        }
    }
    if options.read_write_distribution {
        let sorted = match entries {
            Some(e) => e,
            None => IndexOrder::of(coll, &pattern)?,
        };
        let table = candidate_ranges(cluster, ns, &pattern, &sorted)?;
        let (read, write) = distributions(&pattern, &table, samples)?;
        reply.insert("readDistribution", read);
        reply.insert("writeDistribution", write);
    }
    reply.insert("ok", 1);
    Ok(reply)
}

/// One document seen through the candidate key's index: its key, record id, size.
#[derive(Clone, Copy)]
struct Entry<'a> {
    key: &'a DocKey,
    record: u64,
    doc: &'a Stored,
}

/// Every document of a collection in the candidate key's index order (key, then record
/// id), walked as often as the analysis needs.
enum IndexOrder<'a> {
    /// The key is the collection's shard key: its documents are stored in that order
    /// already, and are walked where they lie, with nothing copied (a ranking measures
    /// each candidate on its own key, on a cluster of the whole sample).
    Stored(&'a Collection),
    /// Another key: every document's key, sorted.
    Sorted(Vec<(DocKey, u64, &'a Stored)>),
}

impl<'a> IndexOrder<'a> {
    /// The documents of `coll` in the order of `pattern`'s index.
    fn of(coll: &'a Collection, pattern: &KeyPattern) -> Result<IndexOrder<'a>, ClusterError> {
        let same_key = coll
            .sharding
            .as_ref()
            .is_some_and(|s| s.pattern == *pattern);
        if same_key {
            return Ok(IndexOrder::Stored(coll));
        }
        let mut out = Vec::with_capacity(coll.docs.len());
        for ((_, record), stored) in &coll.docs {
            let key = DocKey::new(pattern.extract_raw(stored.raw())?);
            out.push((key, *record, stored));
        }
        // Documents are stored in the current key's order; the candidate's differs.
        // Record ids are unique, so any sort gives the one index order; the crate's
        // shared sort keeps another copy of the standard one out of the wasm.
        out.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        Ok(IndexOrder::Sorted(out))
    }

    /// How many documents there are.
    fn len(&self) -> usize {
        match self {
            IndexOrder::Stored(coll) => coll.docs.len(),
            IndexOrder::Sorted(v) => v.len(),
        }
    }

    /// Calls `f` with every entry, in index order.
    fn each<'s>(&'s self, mut f: impl FnMut(Entry<'s>)) {
        match self {
            IndexOrder::Stored(coll) => {
                for ((key, record), doc) in &coll.docs {
                    f(Entry {
                        key,
                        record: *record,
                        doc,
                    });
                }
            }
            IndexOrder::Sorted(v) => {
                for (key, record, doc) in v {
                    f(Entry {
                        key,
                        record: *record,
                        doc,
                    });
                }
            }
        }
    }
}

/// The index that supports the key, as `findCompatiblePrefixedIndex` picks it.
struct IndexSpec {
    unique: bool,
}

/// The best index whose field names start with the key's: fewer fields first, then unique.
fn supporting_index(coll: &Collection, pattern: &KeyPattern) -> Option<IndexSpec> {
    let names: Vec<&str> = pattern.fields().iter().map(|(n, _)| n.as_str()).collect();
    let mut candidates: Vec<(Vec<String>, bool)> = vec![(vec!["_id".to_string()], true)];
    if let Some(s) = &coll.sharding {
        candidates.push((
            s.pattern.fields().iter().map(|(n, _)| n.clone()).collect(),
            s.unique,
        ));
    }
    for index in &coll.indexes {
        // A unique index created with `createIndex(keys, {unique: true})` is one too.
        candidates.push((index.keys().cloned().collect(), coll.is_unique_index(index)));
    }
    let mut best: Option<(usize, bool)> = None;
    for (fields, unique) in candidates {
        let is_prefix =
            names.len() <= fields.len() && names.iter().zip(&fields).all(|(a, b)| *a == b);
        if !is_prefix {
            continue;
        }
        let better = match best {
            None => true,
            Some((n, u)) => n > fields.len() || (!u && unique),
        };
        if better {
            // A unique index makes the key unique only when it has no extra fields.
            best = Some((fields.len(), unique && fields.len() == names.len()));
        }
    }
    best.map(|(_, unique)| IndexSpec { unique })
}

fn long(n: u64) -> Bson {
    Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX))
}

/// Rounds as MongoDB rounds every analyzeShardKey metric: to 10 decimal places.
fn round10(x: f64) -> f64 {
    (x * 1e10).round() / 1e10
}

/// `calculatePercentage`: `part / total` as a percentage.
fn percentage(part: u64, total: u64) -> f64 {
    round10(part as f64 * 100.0 / total as f64)
}

/// The key's fields as they appear in `doc`, missing fields left out
/// (`extractElementsBasedOnTemplate`).
fn raw_key_document(pattern: &KeyPattern, doc: &Document) -> Document {
    let mut out = Document::new();
    for (name, _) in pattern.fields() {
        if let Some(v) = lookup_path(doc, name) {
            out.insert(name.clone(), v.clone());
        }
    }
    out
}

/// The value shown in `mostCommonValues`: the index key (null for a missing field), or,
/// when a field is hashed, a real document's values since a hash means nothing to a reader.
fn shown_value(pattern: &KeyPattern, entry: &Entry<'_>) -> Document {
    if pattern.is_hashed() {
        raw_key_document(pattern, &entry.doc.doc())
    } else {
        pattern.to_document(&entry.key.to_key())
    }
}

fn key_characteristics<'e>(
    coll: &Collection,
    pattern: &KeyPattern,
    entries: &'e IndexOrder<'_>,
    unique: bool,
) -> Document {
    let n = entries.len() as u64;
    let avg = (coll.data_size() / n.max(1)) as i64;
    let mut out = Document::new();
    out.insert("numDocsTotal", long(n));
    if coll.sharding.is_some() {
        // The simulator never leaves orphans behind: migrations delete at once.
        out.insert("numOrphanDocs", long(0));
    }
    out.insert("avgDocSizeBytes", Bson::Int64(avg.max(EMPTY_DOC_SIZE)));
    out.insert("numDocsSampled", long(n));
    out.insert("isUnique", unique);
    let (distinct, most_common) = if unique {
        // MongoDB's shortcut for a unique key: `$match {}` then `$limit 5`, natural order.
        let mut firsts: Vec<Entry<'e>> = Vec::with_capacity(NUM_MOST_COMMON_VALUES + 1);
        entries.each(|e| {
            if firsts.len() < NUM_MOST_COMMON_VALUES
                || firsts.last().is_some_and(|last| e.record < last.record)
            {
                let at = firsts.partition_point(|f| f.record < e.record);
                firsts.insert(at, e);
                firsts.truncate(NUM_MOST_COMMON_VALUES);
            }
        });
        let values: Vec<(Document, u64)> = firsts
            .iter()
            .map(|e| (raw_key_document(pattern, &e.doc.doc()), 1u64))
            .collect();
        (n, values)
    } else {
        // Runs of equal keys are contiguous in index order. The most frequent runs,
        // equal frequencies in key order (as a stable sort by descending frequency would
        // give), are picked as the runs end, each run by its first entry.
        let mut distinct = 0u64;
        let mut top: Vec<(Entry<'e>, u64)> = Vec::with_capacity(NUM_MOST_COMMON_VALUES + 1);
        let mut close = |run: (Entry<'e>, u64)| {
            distinct += 1;
            let at = top.iter().position(|t| t.1 < run.1).unwrap_or(top.len());
            if at < NUM_MOST_COMMON_VALUES {
                top.insert(at, run);
                top.truncate(NUM_MOST_COMMON_VALUES);
            }
        };
        let mut run: Option<(Entry<'e>, u64)> = None;
        entries.each(|e| match &mut run {
            Some((first, count)) if *first.key == *e.key => *count += 1,
            _ => {
                if let Some(ended) = run.replace((e, 1)) {
                    close(ended);
                }
            }
        });
        if let Some(ended) = run {
            close(ended);
        }
        let values: Vec<(Document, u64)> = top
            .iter()
            .map(|(e, f)| (shown_value(pattern, e), *f))
            .collect();
        (distinct, values)
    };
    out.insert("numDistinctValues", long(distinct));
    let mcv: Vec<Bson> = most_common
        .into_iter()
        .map(|(value, f): (Document, u64)| {
            let mut d = Document::new();
            d.insert("value", value);
            d.insert("frequency", long(f));
            Bson::Document(d)
        })
        .collect();
    out.insert("mostCommonValues", mcv);
    let (r, monotonic) = monotonicity(pattern, entries);
    let mut m = Document::new();
    m.insert("recordIdCorrelationCoefficient", r);
    m.insert(
        "type",
        if monotonic {
            "monotonic"
        } else {
            "not monotonic"
        },
    );
    out.insert("monotonicity", m);
    out
}

/// The record-id correlation and whether it passes the threshold.
fn monotonicity(pattern: &KeyPattern, entries: &IndexOrder<'_>) -> (f64, bool) {
    let single_hashed = pattern.len() == 1 && pattern.fields()[0].1 == FieldKind::Hashed;
    if single_hashed {
        return (0.0, false);
    }
    let mut one_value = true;
    let mut previous: Option<&DocKey> = None;
    entries.each(|e| {
        one_value &= previous.is_none_or(|p| *p == *e.key);
        previous = Some(e.key);
    });
    if one_value {
        return (0.0, false);
    }
    let r = round10(pearson(entries.len(), |f| entries.each(|e| f(e.record))));
    (r, r.abs() >= MONOTONICITY_THRESHOLD)
}

/// Pearson's r between positions 1..n and the `n` values `ys` hands out, in two passes
/// for precision.
fn pearson(n: usize, ys: impl Fn(&mut dyn FnMut(u64))) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let nf = n as f64;
    let mean_x = (nf + 1.0) / 2.0;
    let mut sum_y = 0.0;
    ys(&mut |y| sum_y += y as f64);
    let mean_y = sum_y / nf;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    let mut i = 0usize;
    ys(&mut |y| {
        let dx = (i + 1) as f64 - mean_x;
        let dy = y as f64 - mean_y;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
        i += 1;
    });
    if sxx == 0.0 || syy == 0.0 {
        return 0.0;
    }
    sxy / (sxx.sqrt() * syy.sqrt())
}

/// FNV-1a, to mix the namespace into the sampling seed.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The 100 ranges MongoDB splits the candidate key into (see the module comment), as a
/// routing table whose "shard" numbers are the range numbers 0..100.
fn candidate_ranges(
    cluster: &Cluster,
    ns: &str,
    pattern: &KeyPattern,
    entries: &IndexOrder<'_>,
) -> Result<RoutingTable, ClusterError> {
    let wanted = NUM_RANGES - 1;
    let sample_size = wanted * SAMPLES_PER_RANGE;
    let n = entries.len();
    let picked: Vec<usize> = if n <= sample_size {
        (0..n).collect()
    } else {
        // Floyd's algorithm: `sample_size` distinct positions, seeded.
        let mut rng = SplitMix64::new(cluster.config().seed ^ fnv1a(ns));
        // The chosen positions as a bitmap: read back in increasing order.
        let mut set = vec![0u64; n.div_ceil(64)];
        let insert = |set: &mut [u64], t: usize| {
            let (word, bit) = (t / 64, 1u64 << (t % 64));
            let new = set[word] & bit == 0;
            set[word] |= bit;
            new
        };
        for j in (n - sample_size)..n {
            let t = rng.below(j as u64 + 1) as usize;
            if !insert(&mut set, t) {
                insert(&mut set, j);
            }
        }
        (0..n)
            .filter(|&t| set[t / 64] & (1 << (t % 64)) != 0)
            .collect()
    };
    // Positions are in index order, so the sampled keys are already sorted. The last key
    // of every group of 10 is a split point candidate, as the resharding sampler skips 9.
    // Sorted, so a repeated key can only follow itself.
    let lasts: Vec<usize> = picked
        .chunks(SAMPLES_PER_RANGE)
        .filter_map(|group| group.last().copied())
        .collect();
    let mut keys: Vec<&DocKey> = Vec::with_capacity(lasts.len());
    let mut at = 0usize;
    entries.each(|e| {
        if lasts.get(keys.len()) == Some(&at) {
            keys.push(e.key);
        }
        at += 1;
    });
    let mut points: Vec<&DocKey> = Vec::new();
    for key in keys {
        if points.len() >= wanted {
            break;
        }
        if points
            .last()
            .is_none_or(|p| p.cmp(&key) != std::cmp::Ordering::Equal)
        {
            points.push(key);
        }
    }
    if points.len() < wanted {
        return Err(ClusterError::Location4952606(format!(
            "Failed to find split points that partition the data into {NUM_RANGES} chunks with roughly equal number of documents using the shard key being analyzed :: caused by :: The shard key provided does not have enough cardinality to make the required amount of chunks"
        )));
    }
    let mut bounds: Vec<KeyValue> = Vec::with_capacity(NUM_RANGES + 1);
    bounds.push(pattern.global_min());
    bounds.extend(points.into_iter().map(DocKey::to_key));
    bounds.push(pattern.global_max());
    let chunks = bounds
        .windows(2)
        .enumerate()
        .map(|(i, w)| Chunk::empty(w[0].clone(), w[1].clone(), i as u32, 0))
        .collect();
    Ok(RoutingTable::from_chunks(chunks))
}

/// How a sampled command is counted.
enum Kind {
    Read(usize),
    Write { slot: usize, multi: bool },
}

/// Sorts a sampled command into its `sampleSize` slot, or `None` for a command that
/// analyzeShardKey does not sample (inserts, for instance).
fn kind_of(command: &str) -> Option<Kind> {
    let k = match command {
        "find" | "findOne" => Kind::Read(0),
        "aggregate" => Kind::Read(1),
        "count" | "countDocuments" => Kind::Read(2),
        "distinct" => Kind::Read(3),
        "update" | "updateOne" | "replaceOne" => Kind::Write {
            slot: 0,
            multi: false,
        },
        "updateMany" => Kind::Write {
            slot: 0,
            multi: true,
        },
        "delete" | "deleteOne" => Kind::Write {
            slot: 1,
            multi: false,
        },
        "deleteMany" => Kind::Write {
            slot: 1,
            multi: true,
        },
        "findAndModify" | "findOneAndUpdate" | "findOneAndReplace" | "findOneAndDelete" => {
            Kind::Write {
                slot: 2,
                multi: false,
            }
        }
        _ => return None,
    };
    Some(k)
}

/// Counters shared by reads and writes.
struct Tally {
    sizes: [u64; 4],
    single: u64,
    multi: u64,
    scatter: u64,
    by_range: Vec<u64>,
}

impl Tally {
    fn new(ranges: usize) -> Self {
        Tally {
            sizes: [0; 4],
            single: 0,
            multi: 0,
            scatter: 0,
            by_range: vec![0; ranges],
        }
    }

    fn total(&self) -> u64 {
        self.sizes.iter().sum()
    }

    fn add(&mut self, t: &targeting::Targeting) {
        match t.kind {
            TargetKind::SingleShard => self.single += 1,
            TargetKind::MultiShard => self.multi += 1,
            TargetKind::ScatterGather => self.scatter += 1,
        }
        for &range in &t.shards {
            if let Some(n) = self.by_range.get_mut(range as usize) {
                *n += 1;
            }
        }
    }

    /// `sampleSize` then, when anything was sampled, the percentages and the per-range
    /// counts, with `noun` naming them (`Reads` or `Writes`).
    fn to_document(&self, slots: &[&str], noun: &str) -> Document {
        let total = self.total();
        let mut size = Document::new();
        size.insert("total", long(total));
        for (name, n) in slots.iter().zip(self.sizes) {
            size.insert(*name, long(n));
        }
        let mut out = Document::new();
        out.insert("sampleSize", size);
        if total > 0 {
            out.insert(
                format!("percentageOfSingleShard{noun}"),
                percentage(self.single, total),
            );
            out.insert(
                format!("percentageOfMultiShard{noun}"),
                percentage(self.multi, total),
            );
            out.insert(
                format!("percentageOfScatterGather{noun}"),
                percentage(self.scatter, total),
            );
            let by_range: Vec<Bson> = self.by_range.iter().map(|&n| long(n)).collect();
            out.insert(format!("num{noun}ByRange"), by_range);
        }
        out
    }
}

/// Whether an update path touches a key field: the same path, or one inside the other.
fn touches(path: &str, field: &str) -> bool {
    path == field
        || path
            .strip_prefix(field)
            .is_some_and(|rest| rest.starts_with('.'))
        || field
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Whether `update` changes the candidate key. Operator updates count when an operator
/// names a key field (both ends of a `$rename`); a replacement counts when the filter pins
/// the full key and the replacement's key differs from it. MongoDB decides from the
/// document diff it records with each sampled update; a sample here carries no diff, so
/// this reads the update's shape instead.
fn updates_key(pattern: &KeyPattern, filter: &Document, update: &Document) -> bool {
    let is_operator = update.keys().next().is_some_and(|k| k.starts_with('$'));
    if is_operator {
        update.iter().any(|(op, args)| {
            let Bson::Document(args) = args else {
                return false;
            };
            args.iter().any(|(path, value)| {
                pattern.fields().iter().any(|(field, _)| {
                    touches(path, field)
                        || (op == "$rename"
                            && matches!(value, Bson::String(to) if touches(to, field)))
                })
            })
        })
    } else {
        match (
            targeting::is_full_key_equality(pattern, filter),
            pattern.extract(update),
        ) {
            (Some(old), Ok(new)) => old != new,
            _ => false,
        }
    }
}

/// A filter of equalities on the key fields of a replacement document, when it has them
/// all: MongoDB's "secondary filter" for non-upsert replacement updates.
fn replacement_filter(pattern: &KeyPattern, replacement: &Document) -> Option<Document> {
    let mut filter = Document::new();
    for (name, _) in pattern.fields() {
        filter.insert(name.clone(), lookup_path(replacement, name)?.clone());
    }
    Some(filter)
}

fn distributions(
    pattern: &KeyPattern,
    table: &RoutingTable,
    samples: &[QuerySample],
) -> Result<(Document, Document), ClusterError> {
    let mut reads = Tally::new(table.len());
    let mut writes = Tally::new(table.len());
    let (mut key_updates, mut single_without_key, mut multi_without_key) = (0u64, 0u64, 0u64);
    for sample in samples {
        let Some(kind) = kind_of(&sample.command) else {
            continue;
        };
        let mut t = targeting::target(pattern, table, &sample.filter)?;
        match kind {
            Kind::Read(slot) => {
                reads.sizes[slot] += 1;
                reads.add(&t);
            }
            Kind::Write { slot, multi } => {
                writes.sizes[slot] += 1;
                let replacement = sample
                    .update
                    .as_ref()
                    .filter(|u| u.keys().next().is_some_and(|k| !k.starts_with('$')));
                // analyze_shard_key_read_write_distribution.cpp: only an update command's
                // non-upsert replacement is targeted by its replacement document, never a
                // findAndModify's.
                if t.kind != TargetKind::SingleShard && slot != 2 && !sample.upsert {
                    if let Some(f) = replacement.and_then(|r| replacement_filter(pattern, r)) {
                        t = targeting::target(pattern, table, &f)?;
                    }
                }
                writes.add(&t);
                if t.kind != TargetKind::SingleShard {
                    if multi {
                        multi_without_key += 1;
                    } else {
                        single_without_key += 1;
                    }
                }
                if let Some(update) = &sample.update {
                    if updates_key(pattern, &sample.filter, update) {
                        key_updates += 1;
                    }
                }
            }
        }
    }
    let read = reads.to_document(&["find", "aggregate", "count", "distinct"], "Reads");
    let mut write = writes.to_document(&["update", "delete", "findAndModify"], "Writes");
    let total = writes.total();
    if total > 0 {
        write.insert(
            "percentageOfShardKeyUpdates",
            percentage(key_updates, total),
        );
        write.insert(
            "percentageOfSingleWritesWithoutShardKey",
            percentage(single_without_key, total),
        );
        write.insert(
            "percentageOfMultiWritesWithoutShardKey",
            percentage(multi_without_key, total),
        );
    }
    Ok((read, write))
}
