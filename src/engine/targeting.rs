//! Query targeting on mongos (spec §8): which shards a filter is sent to.
//!
//! The steps follow `ChunkManager::getShardIdsForQuery`:
//!
//! 1. The fast path: when the filter has an equality on every shard key field (the
//!    hashed field hashed), the key is looked up and one shard is targeted.
//! 2. Otherwise the filter becomes index bounds over the shard key index: for each
//!    field, a sorted list of intervals. `$and` intersects, `$or` unions field by field
//!    (as `collapseQuerySolution` does), and `$nor`, `$ne`, `$nin`, `$not`, `$exists`
//!    and regular expressions leave a field unconstrained. A range on the hashed
//!    field leaves it unconstrained too, since a hashed index cannot answer ranges.
//! 3. When the first key field is unconstrained the shard key index cannot be used,
//!    and the query goes to every shard that owns chunks of the collection.
//! 4. Otherwise the bounds are flattened into key ranges (`flattenBounds`): while
//!    fields are single points they are appended to every range; the first field
//!    with a non-point interval (a range, or several `$in` points) fans out, one
//!    range per interval; every later field only adds its overall lowest and
//!    highest bound. Each range `[min, max]` (inclusive at both ends, as mongos
//!    compares them) goes to the shards owning chunks that overlap it.
//! 5. When no range is left (an unsatisfiable filter such as `{x: {$in: []}}`),
//!    mongos still targets one shard: the owner of the first chunk (SERVER-4914).
//!
//! The classification ([`TargetKind`]) is analyzeShardKey's and depends on the
//! filter's shape, not on how many shards happen to be hit.

use crate::engine::chunks::{RoutingTable, ShardIdx};
use crate::keys::shard_key::{FieldKind, KeyPattern, KeyValue};
use crate::query::filter::{is_nan, parse_filter, Filter, Predicate};
use crate::values::error::ClusterError;
use crate::values::hash::convert_shard_key_to_hashed;
use crate::values::order::{canonical_class, compare_values};
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document, Timestamp};
use std::cmp::Ordering;

/// How a query is targeted, as analyzeShardKey counts reads and writes (spec §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// Equality on the full shard key (the hashed field hashed): exactly one shard.
    SingleShard,
    /// Key ranges narrower than the whole key space: ranges, `$in`, prefix equality,
    /// `$or` of equalities. This holds even when the ranges land on one shard.
    MultiShard,
    /// No usable key range: the first shard key field is unconstrained (no shard key
    /// field, a range on a hashed first field, a missing prefix) or the ranges cover
    /// MinKey..MaxKey. Every shard owning chunks of the collection is targeted.
    ScatterGather,
}

/// Where a query goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Targeting {
    /// The targeted shards, sorted and without duplicates.
    pub shards: Vec<ShardIdx>,
    /// The classification of the query's shape.
    pub kind: TargetKind,
    /// The key ranges `[min, max]` (inclusive at both ends) that were looked up:
    /// `(key, key)` for a single-shard query, MinKey..MaxKey for scatter-gather.
    pub ranges: Vec<(KeyValue, KeyValue)>,
}

impl Targeting {
    /// The stage mongos `explain()` reports: `SINGLE_SHARD` when one shard is
    /// targeted, `SHARD_MERGE` otherwise.
    pub fn stage(&self) -> &'static str {
        if self.shards.len() == 1 {
            "SINGLE_SHARD"
        } else {
            "SHARD_MERGE"
        }
    }
}

/// Works out which shards a query with `filter` is sent to (see the module comment).
///
/// The only errors are the filter's own parse errors (an unknown operator, a `$in`
/// without an array, ...).
pub fn target(
    pattern: &KeyPattern,
    table: &RoutingTable,
    filter: &Document,
) -> Result<Targeting, ClusterError> {
    let parsed = parse_filter(filter)?;
    if let Some(key) = full_key_equality(pattern, &parsed) {
        let shards = table
            .chunk_for(&key)
            .map(|c| vec![c.shard])
            .unwrap_or_default();
        return Ok(Targeting {
            shards,
            kind: TargetKind::SingleShard,
            ranges: vec![(key.clone(), key)],
        });
    }
    let bounds = field_bounds(pattern, &parsed);
    if bounds.first().is_none_or(Option::is_none) {
        return Ok(scatter_gather(pattern, table));
    }
    let ranges = flatten(bounds);
    let (global_min, global_max) = (pattern.global_min(), pattern.global_max());
    if ranges
        .iter()
        .any(|(lo, hi)| *lo == global_min && *hi == global_max)
    {
        return Ok(scatter_gather(pattern, table));
    }
    let mut shards: Vec<ShardIdx> = ranges
        .iter()
        .flat_map(|(lo, hi)| table.overlapping(lo, hi).map(|c| c.shard))
        .collect();
    if shards.is_empty() {
        // SERVER-4914: callers expect at least one shard, so an unsatisfiable filter
        // goes to the owner of the first chunk.
        shards.extend(table.iter().next().map(|c| c.shard));
    }
    crate::support::sort::sort(&mut shards);
    shards.dedup();
    Ok(Targeting {
        shards,
        kind: TargetKind::MultiShard,
        ranges,
    })
}

/// The shard key value when `filter` has an equality (`x: v`, `$eq`, or a `$in` of one
/// value) on every shard key field, reached through the top level and `$and` (and a
/// one-branch `$or`), with the hashed field hashed. `None` otherwise, also when two
/// equalities on a field disagree, when a value is an array, or when the filter does
/// not parse. Used for single-shard targeting and for shard key updates (spec §9).
pub fn is_full_key_equality(pattern: &KeyPattern, filter: &Document) -> Option<KeyValue> {
    full_key_equality(pattern, &parse_filter(filter).ok()?)
}

/// [`is_full_key_equality`] over a parsed filter.
fn full_key_equality(pattern: &KeyPattern, filter: &Filter) -> Option<KeyValue> {
    let mut found = Vec::new();
    collect_equalities(filter, &mut found);
    let mut key = Vec::with_capacity(pattern.len());
    for (field, kind) in pattern.fields() {
        let mut values = found.iter().filter(|(p, _)| *p == field).map(|(_, v)| *v);
        let value = values.next()?;
        let agree = values.all(|other| {
            canonical_class(other) == canonical_class(value) && compare_values(other, value).is_eq()
        });
        if !agree || matches!(value, Bson::Array(_)) {
            return None;
        }
        key.push(match kind {
            FieldKind::Hashed => Bson::Int64(convert_shard_key_to_hashed(value)),
            FieldKind::Ascending => value.clone(),
        });
    }
    Some(KeyValue(key))
}

/// Gathers the equalities a filter imposes on every document it matches.
fn collect_equalities<'a>(filter: &'a Filter, out: &mut Vec<(&'a str, &'a Bson)>) {
    match filter {
        Filter::And(children) => {
            for c in children {
                collect_equalities(c, out);
            }
        }
        // The query canonicalizer turns a one-branch `$or` into its branch.
        Filter::Or(children) if children.len() == 1 => {
            for c in children {
                collect_equalities(c, out);
            }
        }
        Filter::Field(path, preds) => {
            for p in preds {
                match p {
                    Predicate::Eq(v) => out.push((path, v)),
                    // A `$in` of one value is rewritten to an equality.
                    Predicate::In(items) => {
                        if let [v] = items.as_slice() {
                            if !matches!(v, Bson::RegularExpression(_)) {
                                out.push((path, v));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Filter::Or(_) | Filter::Nor(_) => {}
    }
}

/// The scatter-gather answer: every shard owning a chunk.
fn scatter_gather(pattern: &KeyPattern, table: &RoutingTable) -> Targeting {
    let mut shards: Vec<ShardIdx> = table.iter().map(|c| c.shard).collect();
    crate::support::sort::sort(&mut shards);
    shards.dedup();
    Targeting {
        shards,
        kind: TargetKind::ScatterGather,
        ranges: vec![(pattern.global_min(), pattern.global_max())],
    }
}

/// An interval of one shard key field's values.
#[derive(Debug, Clone)]
struct Interval {
    lo: Bson,
    lo_inclusive: bool,
    hi: Bson,
    hi_inclusive: bool,
}

/// The bounds of one field: `None` when unconstrained (MinKey..MaxKey), otherwise
/// sorted, disjoint, non-empty intervals (an empty list matches nothing).
type FieldBounds = Option<Vec<Interval>>;

impl Interval {
    /// The single value `v`.
    fn point(v: Bson) -> Self {
        Interval {
            lo: v.clone(),
            lo_inclusive: true,
            hi: v,
            hi_inclusive: true,
        }
    }

    /// MinKey..MaxKey.
    fn everything() -> Self {
        Interval {
            lo: Bson::MinKey,
            lo_inclusive: true,
            hi: Bson::MaxKey,
            hi_inclusive: true,
        }
    }

    /// True when the interval holds exactly one value.
    fn is_point(&self) -> bool {
        self.lo_inclusive && self.hi_inclusive && compare_values(&self.lo, &self.hi).is_eq()
    }

    /// True when the interval holds no value.
    fn is_empty(&self) -> bool {
        match compare_values(&self.lo, &self.hi) {
            Ordering::Greater => true,
            Ordering::Equal => !(self.lo_inclusive && self.hi_inclusive),
            Ordering::Less => false,
        }
    }

    /// The values in both intervals.
    fn intersect(&self, other: &Interval) -> Interval {
        let (lo, lo_inclusive) = match compare_values(&self.lo, &other.lo) {
            Ordering::Greater => (&self.lo, self.lo_inclusive),
            Ordering::Less => (&other.lo, other.lo_inclusive),
            Ordering::Equal => (&self.lo, self.lo_inclusive && other.lo_inclusive),
        };
        let (hi, hi_inclusive) = match compare_values(&self.hi, &other.hi) {
            Ordering::Less => (&self.hi, self.hi_inclusive),
            Ordering::Greater => (&other.hi, other.hi_inclusive),
            Ordering::Equal => (&self.hi, self.hi_inclusive && other.hi_inclusive),
        };
        Interval {
            lo: lo.clone(),
            lo_inclusive,
            hi: hi.clone(),
            hi_inclusive,
        }
    }
}

/// Sorts intervals, drops empty ones and merges those that overlap or touch
/// (`IndexBoundsBuilder::unionize`).
fn normalize(mut list: Vec<Interval>) -> Vec<Interval> {
    list.retain(|i| !i.is_empty());
    crate::support::sort::sort_by(&mut list, |a, b| {
        compare_values(&a.lo, &b.lo).then_with(|| b.lo_inclusive.cmp(&a.lo_inclusive))
    });
    let mut out: Vec<Interval> = Vec::with_capacity(list.len());
    for next in list {
        if let Some(cur) = out.last_mut() {
            let touch = match compare_values(&next.lo, &cur.hi) {
                Ordering::Less => true,
                Ordering::Equal => cur.hi_inclusive || next.lo_inclusive,
                Ordering::Greater => false,
            };
            if touch {
                match compare_values(&next.hi, &cur.hi) {
                    Ordering::Greater => {
                        cur.hi = next.hi;
                        cur.hi_inclusive = next.hi_inclusive;
                    }
                    Ordering::Equal => cur.hi_inclusive |= next.hi_inclusive,
                    Ordering::Less => {}
                }
                continue;
            }
        }
        out.push(next);
    }
    out
}

/// The intersection of two fields' bounds.
fn intersect_field(a: FieldBounds, b: FieldBounds) -> FieldBounds {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => Some(normalize(
            a.iter()
                .flat_map(|x| b.iter().map(move |y| x.intersect(y)))
                .collect(),
        )),
    }
}

/// The union of two fields' bounds.
fn union_field(a: FieldBounds, b: FieldBounds) -> FieldBounds {
    match (a, b) {
        (Some(mut a), Some(b)) => {
            a.extend(b);
            Some(normalize(a))
        }
        _ => None,
    }
}

/// The bounds a filter puts on each shard key field, in pattern order.
fn field_bounds(pattern: &KeyPattern, filter: &Filter) -> Vec<FieldBounds> {
    let unconstrained = || vec![None; pattern.len()];
    match filter {
        Filter::And(children) => {
            children
                .iter()
                .map(|c| field_bounds(pattern, c))
                .fold(unconstrained(), |acc, b| {
                    acc.into_iter()
                        .zip(b)
                        .map(|(x, y)| intersect_field(x, y))
                        .collect()
                })
        }
        Filter::Or(children) => {
            let branches: Vec<Vec<FieldBounds>> =
                children.iter().map(|c| field_bounds(pattern, c)).collect();
            // A branch that cannot use the shard key index makes the whole `$or` a
            // collection scan, so it gives no bounds at all.
            if branches
                .iter()
                .any(|b| b.first().is_none_or(Option::is_none))
            {
                return unconstrained();
            }
            let mut merged = branches.into_iter();
            let first = merged.next().unwrap_or_else(unconstrained);
            merged.fold(first, |acc, b| {
                acc.into_iter()
                    .zip(b)
                    .map(|(x, y)| union_field(x, y))
                    .collect()
            })
        }
        Filter::Nor(_) => unconstrained(),
        Filter::Field(path, preds) => {
            let mut out = unconstrained();
            if let Some(i) = pattern.fields().iter().position(|(f, _)| f == path) {
                let kind = pattern.fields()[i].1;
                let b = preds
                    .iter()
                    .map(|p| predicate_bounds(p, kind))
                    .fold(None, intersect_field);
                if let Some(slot) = out.get_mut(i) {
                    *slot = b;
                }
            }
            out
        }
    }
}

/// The bounds one predicate puts on a field of the given kind.
fn predicate_bounds(pred: &Predicate, kind: FieldKind) -> FieldBounds {
    let has_regex = |items: &[Bson]| {
        items
            .iter()
            .any(|v| matches!(v, Bson::RegularExpression(_)))
    };
    match (kind, pred) {
        (FieldKind::Hashed, Predicate::Eq(v)) => Some(vec![hashed_point(v)]),
        (FieldKind::Hashed, Predicate::In(items)) if !has_regex(items) => {
            Some(normalize(items.iter().map(hashed_point).collect()))
        }
        (FieldKind::Ascending, Predicate::Eq(v)) => Some(normalize(equality_points(v))),
        (FieldKind::Ascending, Predicate::In(items)) if !has_regex(items) => {
            Some(normalize(items.iter().flat_map(equality_points).collect()))
        }
        (FieldKind::Ascending, Predicate::Gt(v)) => Some(normalize(range(v, true, false))),
        (FieldKind::Ascending, Predicate::Gte(v)) => Some(normalize(range(v, true, true))),
        (FieldKind::Ascending, Predicate::Lt(v)) => Some(normalize(range(v, false, false))),
        (FieldKind::Ascending, Predicate::Lte(v)) => Some(normalize(range(v, false, true))),
        // A hashed index cannot answer ranges, and the negations and regular
        // expressions are left to the shards' own filtering.
        _ => None,
    }
}

/// The hashed point for an equality on the hashed field.
fn hashed_point(v: &Bson) -> Interval {
    Interval::point(Bson::Int64(convert_shard_key_to_hashed(v)))
}

/// The index points an equality covers: the value itself, and for an array also its
/// first element (undefined for an empty array), as a multikey index is probed.
fn equality_points(v: &Bson) -> Vec<Interval> {
    match v {
        Bson::Array(items) => vec![
            Interval::point(items.first().cloned().unwrap_or(Bson::Undefined)),
            Interval::point(v.clone()),
        ],
        other => vec![Interval::point(other.clone())],
    }
}

/// The interval of a range operator under type bracketing: from the operand to the
/// end of its canonical type class (`lower` for `$gt`/`$gte`), or from the start of
/// the class to the operand.
fn range(v: &Bson, lower: bool, inclusive: bool) -> Vec<Interval> {
    let singleton_class = matches!(v, Bson::Null | Bson::Undefined) || is_nan(v);
    match v {
        Bson::MinKey if lower => vec![Interval {
            lo_inclusive: inclusive,
            ..Interval::everything()
        }],
        Bson::MaxKey if !lower => vec![Interval {
            hi_inclusive: inclusive,
            ..Interval::everything()
        }],
        Bson::MinKey | Bson::MaxKey => {
            if inclusive {
                vec![Interval::point(v.clone())]
            } else {
                Vec::new()
            }
        }
        _ if singleton_class => {
            if inclusive {
                vec![Interval::point(v.clone())]
            } else {
                Vec::new()
            }
        }
        _ => {
            let (class_min, class_max, max_inclusive) = class_bounds(v);
            if lower {
                vec![Interval {
                    lo: v.clone(),
                    lo_inclusive: inclusive,
                    hi: class_max,
                    hi_inclusive: max_inclusive,
                }]
            } else {
                vec![Interval {
                    lo: class_min,
                    lo_inclusive: true,
                    hi: v.clone(),
                    hi_inclusive: inclusive,
                }]
            }
        }
    }
}

/// The lowest value of a value's canonical type class and the class's upper end,
/// with whether that end is inclusive. These follow MongoDB's
/// `appendMinForType`/`appendMaxForType`: numbers run from NaN to +Infinity,
/// strings from `""` up to (not including) `{}`, and so on. For binData the upper
/// end is the smallest ObjectId, and the classes from regex upward are bounded
/// loosely (from the largest timestamp to MaxKey); both are wider than MongoDB's
/// bounds, never narrower, so no document is missed.
fn class_bounds(v: &Bson) -> (Bson, Bson, bool) {
    let empty_binary = || {
        Bson::Binary(Binary {
            subtype: BinarySubtype::Generic,
            bytes: Vec::new(),
        })
    };
    let max_timestamp = || {
        Bson::Timestamp(Timestamp {
            time: u32::MAX,
            increment: u32::MAX,
        })
    };
    match canonical_class(v) {
        10 => (Bson::Double(f64::NAN), Bson::Double(f64::INFINITY), true),
        15 => (
            Bson::String(String::new()),
            Bson::Document(Document::new()),
            false,
        ),
        20 => (
            Bson::Document(Document::new()),
            Bson::Array(Vec::new()),
            false,
        ),
        25 => (Bson::Array(Vec::new()), empty_binary(), false),
        30 => (
            empty_binary(),
            Bson::ObjectId(ObjectId::from_bytes([0; 12])),
            false,
        ),
        35 => (
            Bson::ObjectId(ObjectId::from_bytes([0; 12])),
            Bson::ObjectId(ObjectId::from_bytes([0xff; 12])),
            true,
        ),
        40 => (Bson::Boolean(false), Bson::Boolean(true), true),
        45 => (
            Bson::DateTime(DateTime::from_millis(i64::MIN)),
            Bson::DateTime(DateTime::from_millis(i64::MAX)),
            true,
        ),
        47 => (
            Bson::Timestamp(Timestamp {
                time: 0,
                increment: 0,
            }),
            max_timestamp(),
            true,
        ),
        _ => (max_timestamp(), Bson::MaxKey, false),
    }
}

/// Turns per-field bounds into key ranges as `ShardKeyPattern::flattenBounds` does.
fn flatten(bounds: Vec<FieldBounds>) -> Vec<(KeyValue, KeyValue)> {
    let fields: Vec<Vec<Interval>> = bounds
        .into_iter()
        .map(|b| b.unwrap_or_else(|| vec![Interval::everything()]))
        .collect();
    if fields.iter().any(Vec::is_empty) {
        return Vec::new();
    }
    let mut builders: Vec<(Vec<Bson>, Vec<Bson>)> = vec![(Vec::new(), Vec::new())];
    let mut equality_only = true;
    for intervals in &fields {
        let (Some(first), Some(last)) = (intervals.first(), intervals.last()) else {
            return Vec::new();
        };
        if equality_only && intervals.len() == 1 && first.is_point() {
            for (lo, hi) in &mut builders {
                lo.push(first.lo.clone());
                hi.push(first.hi.clone());
            }
        } else if equality_only {
            // The first field that is not a single point fans out, once.
            equality_only = false;
            builders = builders
                .iter()
                .flat_map(|(lo, hi)| {
                    intervals.iter().map(move |iv| {
                        let mut lo = lo.clone();
                        let mut hi = hi.clone();
                        lo.push(iv.lo.clone());
                        hi.push(iv.hi.clone());
                        (lo, hi)
                    })
                })
                .collect();
        } else {
            // Later fields only widen each range to their overall bounds.
            for (lo, hi) in &mut builders {
                lo.push(first.lo.clone());
                hi.push(last.hi.clone());
            }
        }
    }
    builders
        .into_iter()
        .map(|(lo, hi)| (KeyValue(lo), KeyValue(hi)))
        .collect()
}
