//! Query targeting on mongos (spec §8): which shards a filter is sent to.
//!
//! The steps follow `ChunkManager::getShardIdsForQuery`:
//!
//! 1. The fast path: when the filter has an equality on every shard key field (the
//!    hashed field hashed), the key is looked up and one shard is targeted.
//! 2. Otherwise the filter becomes index bounds over the shard key index: for each
//!    field, a sorted list of intervals. `$and` intersects, `$or` unions field by field
//!    (as `collapseQuerySolution` does), `$exists: false` is the null point, and
//!    `$nor`, `$ne`, `$nin`, `$not` and `$exists: true` leave a field unconstrained. A
//!    regular expression on a ranged field covers the strings it can match plus the
//!    regular expression value itself (`IndexBoundsBuilder::translateRegex`). A range
//!    or regular expression on the hashed field leaves it unconstrained, since a hashed
//!    index cannot answer either.
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
use crate::values::path::{walk_path, PathEnd};
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
    /// The stage mongos `explain()` reports for an unsorted read: `SINGLE_SHARD` when
    /// one shard is targeted, `SHARD_MERGE` otherwise (see [`mongos_stage`]).
    pub fn stage(&self) -> &'static str {
        mongos_stage(self.shards.len(), false)
    }
}

/// The stage mongos `explain()` names for a read sent to `shards` shards, as
/// `ClusterExplain::getStageNameForReadOp` (src/mongo/s/commands/cluster_explain.cpp)
/// picks it: `SINGLE_SHARD` for one shard; otherwise `SHARD_MERGE_SORT` when the
/// command has a sort, since mongos then merges the shards' sorted streams, and
/// `SHARD_MERGE` when it has none.
pub fn mongos_stage(shards: usize, sorted: bool) -> &'static str {
    match (shards, sorted) {
        (1, _) => "SINGLE_SHARD",
        (_, true) => "SHARD_MERGE_SORT",
        (_, false) => "SHARD_MERGE",
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
    // mongos plans the query against the shard key index (`getIndexBoundsForQuery`,
    // shard_key_pattern_query_util.cpp), so a negation's complemented bounds are its
    // ranges too: `{x: {$ne: 5}}` is [MinKey, 5] and [5, MaxKey], several ranges, which
    // `getShardIdsAndChunksForQuery` describes as kMultipleKeys (multi-shard), though
    // every chunk overlaps them.
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
    shards.sort_unstable();
    shards.dedup();
    Ok(Targeting {
        shards,
        kind: TargetKind::MultiShard,
        ranges,
    })
}

/// The shard key value when `filter` has an equality (`x: v`, `$eq`, or a `$in` of one
/// value) on every shard key field or on a parent path of it (`{a: {b: 1}}` for
/// `a.b`), reached through the top level and `$and` (and a one-branch `$or`), with the
/// hashed field hashed. `None` otherwise, also when a path is matched twice (even with
/// the same value), when a value is an array or a regular expression, or when the
/// filter does not parse. Used for single-shard targeting and for shard key updates (spec §9).
pub fn is_full_key_equality(pattern: &KeyPattern, filter: &Document) -> Option<KeyValue> {
    full_key_equality(pattern, &parse_filter(filter).ok()?)
}

/// [`is_full_key_equality`] over a parsed filter, as `extractShardKeyFromQuery`
/// (src/mongo/s/shard_key_pattern_query_util.cpp) works: the equalities on paths
/// related to the key's (`pathsupport::extractFullEqualityMatches`) must not
/// conflict, each key field takes its value from the equality on it or on a parent
/// path (`findEqualityElement`), and that value must be valid for storage.
fn full_key_equality(pattern: &KeyPattern, filter: &Filter) -> Option<KeyValue> {
    let mut found = Vec::new();
    collect_equalities(filter, &mut found);
    let mut equalities: Vec<(&str, &Bson)> = Vec::with_capacity(found.len());
    for (path, value) in found {
        let mut related = pattern
            .fields()
            .iter()
            .filter(|(f, _)| is_path_prefix(path, f) || is_path_prefix(f, path))
            .peekable();
        if related.peek().is_none() {
            continue;
        }
        // An equality below a key field ("must be exactly specified"), or on a path
        // already matched or under one ("is matched twice"), gives no key.
        if related.any(|(f, _)| !is_path_prefix(path, f))
            || equalities
                .iter()
                .any(|(p, _)| is_path_prefix(p, path) || is_path_prefix(path, p))
        {
            return None;
        }
        equalities.push((path, value));
    }
    let mut key = Vec::with_capacity(pattern.len());
    for (field, kind) in pattern.fields() {
        let (path, value) = equalities.iter().find(|(p, _)| is_path_prefix(p, field))?;
        let value = if path.len() == field.len() {
            *value
        } else {
            match value {
                Bson::Document(d) => match walk_path(d, &field[path.len() + 1..]) {
                    PathEnd::Found(v) => v,
                    PathEnd::Missing | PathEnd::Blocked(_) => return None,
                },
                _ => return None,
            }
        };
        if !valid_for_storage(value) {
            return None;
        }
        key.push(match kind {
            FieldKind::Hashed => Bson::Int64(convert_shard_key_to_hashed(value)),
            FieldKind::Ascending => value.clone(),
        });
    }
    Some(KeyValue(key))
}

/// Whether dotted path `prefix` is `path` or one of its parents, part by part.
fn is_path_prefix(prefix: &str, path: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// `isValidShardKeyElementForStorage`: not an array or a regular expression, and an
/// embedded document without `$`-prefixed field names other than a DBRef's
/// (`storageValidEmbedded`).
fn valid_for_storage(value: &Bson) -> bool {
    fn embedded_ok(value: &Bson) -> bool {
        match value {
            Bson::Document(d) => d.iter().all(|(name, v)| {
                (!name.starts_with('$') || matches!(name.as_str(), "$ref" | "$id" | "$db"))
                    && embedded_ok(v)
            }),
            Bson::Array(items) => items.iter().all(embedded_ok),
            _ => true,
        }
    }
    !matches!(value, Bson::Array(_) | Bson::RegularExpression(_)) && embedded_ok(value)
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
                    Predicate::In(items, _) => {
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
    shards.sort_unstable();
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
    list.sort_by(|a, b| {
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
        (FieldKind::Hashed, Predicate::In(items, _)) if !has_regex(items) => {
            Some(normalize(items.iter().map(hashed_point).collect()))
        }
        (FieldKind::Ascending, Predicate::Eq(v)) => Some(normalize(equality_points(v))),
        // `$in` unions its values' points with its regular expressions' bounds.
        (FieldKind::Ascending, Predicate::In(items, _)) => Some(normalize(
            items
                .iter()
                .flat_map(|v| match v {
                    Bson::RegularExpression(r) => {
                        regex_bounds(r.pattern.as_str(), r.options.as_str())
                    }
                    other => equality_points(other),
                })
                .collect(),
        )),
        (FieldKind::Ascending, Predicate::Regex(r)) => {
            Some(normalize(regex_bounds(&r.pattern, &r.options)))
        }
        (FieldKind::Ascending, Predicate::Gt(v)) => Some(normalize(range(v, true, false))),
        (FieldKind::Ascending, Predicate::Gte(v)) => Some(normalize(range(v, true, true))),
        (FieldKind::Ascending, Predicate::Lt(v)) => Some(normalize(range(v, false, false))),
        (FieldKind::Ascending, Predicate::Lte(v)) => Some(normalize(range(v, false, true))),
        // `{$exists: true}` on a non-sparse index is every key, `[MinKey, MaxKey]`,
        // fetched and filtered (`IndexBoundsBuilder::translate`, EXISTS: INEXACT_FETCH).
        (FieldKind::Ascending, Predicate::Exists(true)) => Some(vec![Interval::everything()]),
        // `{$exists: false}` (MongoDB's NOT over EXISTS) is the null point, since a
        // missing field is indexed as null (`IndexBoundsBuilder::translate`, "If we have
        // a NOT -> EXISTS, we must handle separately").
        (FieldKind::Ascending, Predicate::Exists(false)) => Some(vec![Interval::point(Bson::Null)]),
        (FieldKind::Ascending, Predicate::Not(inner))
            if matches!(inner.as_slice(), [Predicate::Exists(true)]) =>
        {
            Some(vec![Interval::point(Bson::Null)])
        }
        // `IndexBoundsBuilder::translate` indexes a NOT by its child's bounds
        // complemented (`OrderedIntervalList::complement`), exact when the child's are:
        // `$ne` and `$nin` of plain values, `$not` of one range of a plain value.
        (FieldKind::Ascending, Predicate::Ne(v)) if plain_value(v) => {
            Some(complement(&[Interval::point(v.clone())]))
        }
        (FieldKind::Ascending, Predicate::Nin(items, _)) if items.iter().all(plain_value) => {
            Some(complement(&normalize(
                items.iter().cloned().map(Interval::point).collect(),
            )))
        }
        (FieldKind::Ascending, Predicate::Not(inner)) => match inner.as_slice() {
            [p @ (Predicate::Gt(v) | Predicate::Gte(v) | Predicate::Lt(v) | Predicate::Lte(v))]
                if plain_value(v) =>
            {
                Some(complement(&predicate_bounds(p, kind)?))
            }
            _ => None,
        },
        // A hashed index cannot answer ranges or regular expressions, and other
        // negations are left to the shards' own filtering.
        _ => None,
    }
}

/// A value whose equality bounds are exact: not null (which also matches a missing
/// field), an array, a document or a regular expression.
pub(crate) fn plain_value(v: &Bson) -> bool {
    !matches!(
        v,
        Bson::Array(_)
            | Bson::Document(_)
            | Bson::RegularExpression(_)
            | Bson::Null
            | Bson::Undefined
    )
}

/// MinKey..MaxKey less `list` (sorted and disjoint), as `OrderedIntervalList::complement`
/// makes it: each gap between the intervals, its ends open where an interval's were
/// closed.
fn complement(list: &[Interval]) -> Vec<Interval> {
    let mut out = Vec::with_capacity(list.len() + 1);
    let mut lo = Bson::MinKey;
    let mut lo_inclusive = true;
    for i in list {
        out.push(Interval {
            lo: lo.clone(),
            lo_inclusive,
            hi: i.lo.clone(),
            hi_inclusive: !i.lo_inclusive,
        });
        lo = i.hi.clone();
        lo_inclusive = !i.hi_inclusive;
    }
    out.push(Interval {
        lo,
        lo_inclusive,
        hi: Bson::MaxKey,
        hi_inclusive: true,
    });
    normalize(out)
}

/// The bounds of a regular expression on a ranged field, as
/// `IndexBoundsBuilder::translateRegex` (src/mongo/db/query/index_bounds_builder.cpp)
/// builds them: the strings starting with its literal prefix, `[prefix, prefix with its
/// last byte raised by one)`, or every string `["", {})` when it has no prefix; and the
/// regular expression itself as a point, since regular expression values sort after
/// strings and an index holds them too.
fn regex_bounds(pattern: &str, options: &str) -> Vec<Interval> {
    let prefix = regex_prefix(pattern.as_bytes(), options);
    let mut out = Vec::with_capacity(2);
    if prefix.is_empty() {
        out.push(Interval {
            lo: Bson::String(String::new()),
            lo_inclusive: true,
            hi: Bson::Document(Document::new()),
            hi_inclusive: false,
        });
    } else if let Some(lo) = least_string_from(&prefix) {
        let mut end = prefix;
        if let Some(last) = end.last_mut() {
            *last = last.wrapping_add(1);
        }
        // When no string sorts at or above the raised prefix, the range runs to the
        // end of the strings.
        let hi = least_string_from(&end).map_or(Bson::Document(Document::new()), Bson::String);
        out.push(Interval {
            lo: Bson::String(lo),
            lo_inclusive: true,
            hi,
            hi_inclusive: false,
        });
    }
    let regex = (
        bson::raw::CString::try_from(pattern),
        bson::raw::CString::try_from(options),
    );
    if let (Ok(pattern), Ok(options)) = regex {
        out.push(Interval::point(Bson::RegularExpression(bson::Regex {
            pattern,
            options,
        })));
    }
    out
}

/// The literal prefix every match of a regular expression starts with, read as
/// `analyze_regex::getRegexPrefixMatch` (src/mongo/db/query/analyze_regex.cpp) reads
/// it, byte by byte: the pattern must be anchored with `^` (or `\A`, which also allows
/// the `m` flag), hold no unescaped `|`, and have no flags but `m`, `s` and `x`; the
/// prefix then runs up to the first metacharacter or escape of a letter or digit, and
/// a following `*` or `?` takes its last byte back. Empty when there is none.
fn regex_prefix(pattern: &[u8], options: &str) -> Vec<u8> {
    let (rest, multiline_ok) = if let Some(r) = pattern.strip_prefix(b"\\A") {
        (r, true)
    } else if let Some(r) = pattern.strip_prefix(b"^") {
        (r, false)
    } else {
        return Vec::new();
    };
    if may_have_unescaped_pipe(rest) {
        return Vec::new();
    }
    let mut extended = false;
    for flag in options.bytes() {
        match flag {
            b'm' if multiline_ok => {}
            b's' => {}
            b'x' => extended = true,
            _ => return Vec::new(),
        }
    }
    let mut prefix = Vec::new();
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        i += 1;
        match c {
            b'*' | b'?' => {
                prefix.pop();
                return prefix;
            }
            b'\\' => {
                let Some(&escaped) = rest.get(i) else {
                    return prefix;
                };
                i += 1;
                if escaped == b'Q' {
                    // `\Q...\E` quotes everything up to the `\E`.
                    while let Some(&q) = rest.get(i) {
                        i += 1;
                        if q == b'\\' && rest.get(i) == Some(&b'E') {
                            i += 1;
                            break;
                        }
                        prefix.push(q);
                    }
                } else if escaped.is_ascii_alphanumeric() {
                    return prefix;
                } else {
                    prefix.push(escaped);
                }
            }
            b'^' | b'$' | b'.' | b'[' | b'(' | b')' | b'+' | b'{' => return prefix,
            b'#' if extended => return prefix,
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' if extended => {}
            other => prefix.push(other),
        }
    }
    prefix
}

/// `stringMayHaveUnescapedPipe`: a `|` not preceded by a backslash, or preceded by an
/// escaped backslash. Like MongoDB's, it may report a pipe that has no meaning (inside
/// a class), which only costs the prefix.
fn may_have_unescaped_pipe(s: &[u8]) -> bool {
    s.iter().enumerate().any(|(i, &c)| {
        c == b'|'
            && match i {
                0 => true,
                1 => s[0] != b'\\',
                _ => s[i - 1] != b'\\' || s[i - 2] == b'\\',
            }
    })
}

/// The least UTF-8 string whose bytes sort at or above `bytes`, or `None` when every
/// string sorts below them. MongoDB builds regex bounds byte by byte, so a prefix cut
/// inside a character (by `?` or `*`), or a last byte raised past a character's end,
/// is not UTF-8; this finds the string that bounds the same set of strings.
fn least_string_from(bytes: &[u8]) -> Option<String> {
    let err = match std::str::from_utf8(bytes) {
        Ok(s) => return Some(s.to_owned()),
        Err(e) => e,
    };
    let (valid, rest) = bytes.split_at(err.valid_up_to());
    let mut out = String::from_utf8(valid.to_vec()).ok()?;
    match least_char_above(rest) {
        Some(c) => {
            out.push(c);
            Some(out)
        }
        // No character sorts above the rest: step past every string starting with
        // `valid` by raising its last character.
        None => loop {
            let last = out.pop()?;
            if let Some(next) = next_char(last) {
                out.push(next);
                return Some(out);
            }
        },
    }
}

/// The least character whose UTF-8 bytes sort above `rest` (UTF-8 preserves code point
/// order, so a binary search over code points finds it).
fn least_char_above(rest: &[u8]) -> Option<char> {
    // Code points without the surrogates, numbered densely.
    const COUNT: u32 = 0x11_0000 - 0x800;
    let nth = |n: u32| char::from_u32(if n < 0xD800 { n } else { n + 0x800 });
    let above = |n: u32| {
        let mut buf = [0u8; 4];
        nth(n).is_some_and(|c| c.encode_utf8(&mut buf).as_bytes() > rest)
    };
    let (mut lo, mut hi) = (0, COUNT);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if above(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    if lo < COUNT {
        nth(lo)
    } else {
        None
    }
}

/// The character after `c` in code point order, skipping the surrogates.
fn next_char(c: char) -> Option<char> {
    match c as u32 {
        0xD7FF => char::from_u32(0xE000),
        n => char::from_u32(n + 1),
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

/// The key ranges `[min, max]` (inclusive at both ends) of the index `pattern` that hold
/// every document `filter` can match, as [`target`] looks them up: `None` when the
/// index cannot narrow the search (its first field is unconstrained) or the filter does
/// not parse; an empty list when nothing can match.
pub(crate) fn key_ranges(
    pattern: &KeyPattern,
    filter: &Document,
) -> Option<Vec<(KeyValue, KeyValue)>> {
    let parsed = parse_filter(filter).ok()?;
    if let Some(key) = full_key_equality(pattern, &parsed) {
        return Some(vec![(key.clone(), key)]);
    }
    let bounds = field_bounds(pattern, &parsed);
    if bounds.first().is_none_or(Option::is_none) {
        return None;
    }
    Some(flatten(bounds))
}

/// The bounds a shard's planner scans the index `pattern` with for `filter`: per key
/// field, its intervals in `Interval::toString` form (src/mongo/db/query/interval.cpp:
/// `[` or `(`, the bounds as `BSONElement::toString` prints them, `]` or `)`), an
/// unconstrained field as `[MinKey, MaxKey]`. `None` when the index cannot be used
/// (its first field is unconstrained) or the filter does not parse.
pub(crate) fn index_bounds(pattern: &KeyPattern, filter: &Document) -> Option<Vec<Vec<String>>> {
    let parsed = parse_filter(filter).ok()?;
    let bounds = field_bounds(pattern, &parsed);
    if bounds.first().is_none_or(Option::is_none) {
        return None;
    }
    let show = |i: &Interval| {
        format!(
            "{}{}, {}{}",
            if i.lo_inclusive { '[' } else { '(' },
            crate::keys::shard_key::format_bson_value(&i.lo),
            crate::keys::shard_key::format_bson_value(&i.hi),
            if i.hi_inclusive { ']' } else { ')' }
        )
    };
    Some(
        bounds
            .into_iter()
            .map(|b| match b {
                Some(list) => list.iter().map(show).collect(),
                None => vec![show(&Interval::everything())],
            })
            .collect(),
    )
}
