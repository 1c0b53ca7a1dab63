//! The key space over time: where each timeline step's inserts landed, kept as compact
//! per-step aggregates, drawn as a grid (key ranges × steps) and named as a pattern ("hot
//! edge", "band", "even").
//!
//! **The axis.** Every shard key value maps to a point of one `u64` axis, in key order
//! ([`key_coordinate`]): for a hashed first field the hash itself (the int64 hash space,
//! linear), otherwise the first field's canonical type class in the top byte and the value
//! in the other 56 bits (integers and dates linearly, strings by their first 7 bytes,
//! ObjectIds by their timestamp and counter). Values that differ only past those bits (or
//! in later fields of a compound key) share a point: heat is drawn per key range, so a
//! tie only makes a range coarser.
//!
//! **What a step keeps.** For each collection it inserted into: the number of inserts, how
//! many went beyond every key seen before (above: the MaxKey side; below: the MinKey
//! side), and at most [`MAX_RANGES_PER_STEP`] ranges `[lo, hi]` of the axis with their
//! counts. A step of at most [`RECENT_INSERTS`](crate::engine::cluster::RECENT_INSERTS) inserts reads the keys themselves from
//! the collection's record of recent inserts; a larger one reads how many documents each
//! chunk gained, aligning the chunks before and after the step by version (a chunk whose
//! version is unchanged kept its range; the ones that changed form runs between them).
//! Either way the ranges are then merged, closest first, down to the cap. Nothing is kept
//! for a step that inserted nothing.
//!
//! **Cost.** Recording reads a step's inserts (at most 512 keys) or walks the chunk list
//! once; a step keeps at most 64 ranges of 24 bytes. The grid reads every kept range once,
//! spreading each over the rows it covers with a difference array, so its cost is the
//! ranges kept plus rows × columns, whatever the number of chunks or documents.

use crate::engine::chunks::{ChunkVersion, ShardIdx};
use crate::engine::cluster::Cluster;
use crate::engine::message::{msg, Message};
use crate::keys::shard_key::{KeyPattern, KeyValue};
use crate::session::interpreter::Session;
use crate::sim::heat_axis::{Axis, MAX_BANDS};
use crate::values::order::canonical_class;
use bson::Bson;

/// The most axis ranges one step keeps per collection.
pub const MAX_RANGES_PER_STEP: usize = 64;

/// The point of a shard key value on the heat axis (see the module's notes): order
/// preserving (a larger key never gets a smaller point), linear in the hash for a hashed
/// first field.
pub fn key_coordinate(pattern: &KeyPattern, key: &KeyValue) -> u64 {
    let Some(first) = key.0.first() else { return 0 };
    match first {
        Bson::MinKey => 0,
        Bson::MaxKey => u64::MAX,
        Bson::Int64(h) if pattern.has_hashed_prefix() => (*h as u64) ^ (1 << 63),
        v => value_coordinate(v),
    }
}

/// Half of the value part of a point: the value 0 of a signed quantity.
const MID: u64 = 1 << 55;
/// The value part's mask (56 bits).
const LOW: u64 = (1 << 56) - 1;

/// A signed quantity in the 56 value bits, clamped.
fn signed(v: i64) -> u64 {
    (v.clamp(-(MID as i64), MID as i64 - 1) + MID as i64) as u64
}

/// The first 7 bytes of `bytes`, big-endian.
fn prefix7(bytes: &[u8]) -> u64 {
    let mut out = 0u64;
    for i in 0..7 {
        out = (out << 8) | u64::from(bytes.get(i).copied().unwrap_or(0));
    }
    out
}

fn value_coordinate(v: &Bson) -> u64 {
    // Classes run from -1 (MinKey) to 127 (MaxKey): shifted by one they fit in a byte.
    let class = (canonical_class(v) + 1).clamp(0, 255) as u64;
    let value = match v {
        Bson::Double(d) if d.is_nan() => 0,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => {
            crate::values::hash::number_for_hash(v).map_or(MID, signed)
        }
        Bson::String(s) | Bson::Symbol(s) => prefix7(s.as_bytes()),
        Bson::ObjectId(oid) => {
            let b = oid.bytes();
            // The timestamp and the counter: the middle bytes are one process's constant.
            (u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])) << 24)
                | (u64::from(b[9]) << 16)
                | (u64::from(b[10]) << 8)
                | u64::from(b[11])
        }
        Bson::Boolean(b) => u64::from(*b),
        Bson::DateTime(d) => signed(d.timestamp_millis()),
        Bson::Timestamp(t) => (u64::from(t.time) << 24) | u64::from(t.increment & 0xff_ffff),
        _ => MID,
    };
    (class << 56) | (value & LOW)
}

/// One kept range of one step: `count` inserts with points in `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    lo: u64,
    hi: u64,
    count: u32,
}

/// What one step kept for one collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StepNs {
    /// The step's position (1-based: the step that led to this position).
    step: u32,
    /// Index into [`HeatLog::namespaces`].
    ns: u16,
    /// The step's ranges: `ranges[start..end]`.
    start: u32,
    end: u32,
    /// Inserts in the step.
    total: u32,
    /// Inserts beyond every key seen before, above and below.
    above: u32,
    below: u32,
    /// The lowest and highest points of the step's keys (of its latest 512 when it
    /// inserted more).
    keys: (u64, u64),
}

/// A sharded collection's key pattern and each chunk's version and document count, in key
/// order.
type ChunkCounts = (KeyPattern, Vec<(ChunkVersion, u64)>);

/// The collections before a step, as [`HeatLog::record`] compares them: each one's name,
/// insert counter and, when sharded, its chunk counts.
#[derive(Debug, Clone)]
pub struct Before {
    collections: Vec<(String, u64, Option<ChunkCounts>)>,
}

/// The per-step aggregates of a timeline (see the module's notes).
#[derive(Debug, Clone, Default)]
pub struct HeatLog {
    namespaces: Vec<String>,
    /// Per namespace, the lowest and highest points inserted so far.
    extent: Vec<Option<(u64, u64)>>,
    steps: Vec<StepNs>,
    ranges: Vec<Range>,
}

impl HeatLog {
    /// What [`HeatLog::record`] needs of the session before a step: each collection's
    /// insert counter and, for a sharded one, its key pattern and each chunk's version and
    /// document count in key order (one pass over the chunks, no keys copied).
    pub fn before(session: &Session) -> Before {
        let collections = session
            .cluster
            .collections()
            .iter()
            .map(|(ns, c)| {
                let chunks = c.sharding.as_ref().map(|s| {
                    (
                        s.pattern.clone(),
                        s.table.iter().map(|ch| (ch.version, ch.docs)).collect(),
                    )
                });
                (ns.clone(), c.next_insert(), chunks)
            })
            .collect();
        Before { collections }
    }

    /// Records step `step` (1-based), run on the session that `before` was taken from.
    pub fn record(&mut self, step: u64, before: Before, session: &Session) {
        let step = u32::try_from(step).unwrap_or(u32::MAX);
        for (ns, coll) in session.cluster.collections() {
            let Some(sharding) = coll.sharding.as_ref() else {
                continue;
            };
            let prior = before.collections.iter().find(|(n, _, _)| n == ns);
            let now = coll.next_insert();
            // Without a record before the step, or with a counter that went back (the
            // collection was made anew in the step), every document is the step's.
            let (from, prior_chunks) = match prior {
                Some((_, f, chunks)) if *f <= now => (
                    *f,
                    chunks
                        .as_ref()
                        .filter(|(p, _)| *p == sharding.pattern)
                        .map(|(_, c)| c),
                ),
                _ => (0, None),
            };
            let inserted = now.saturating_sub(from);
            if inserted == 0 {
                continue;
            }
            let pattern = &sharding.pattern;
            // The step's latest keys (all of them when there are at most 512).
            let sample: Vec<Range> = coll
                .recent_inserts_from(from)
                .map(|(_, key)| {
                    let c = key_coordinate(pattern, &key);
                    Range {
                        lo: c,
                        hi: c,
                        count: 1,
                    }
                })
                .collect();
            let idx = self.namespace(ns);
            let (above, below) = self.beyond(idx, &sample);
            let keys = (
                sample.iter().map(|p| p.lo).min().unwrap_or(0),
                sample.iter().map(|p| p.hi).max().unwrap_or(0),
            );
            if sample.len() as u64 == inserted {
                self.push_step(step, idx, sample, (above, below), keys);
            } else {
                // A larger step: exact counts per key range from the chunks, and the
                // inserts beyond every earlier key estimated from the latest 512.
                let scale = |n: u32| {
                    let est = u128::from(n) * u128::from(inserted) / sample.len().max(1) as u128;
                    u32::try_from(est).unwrap_or(u32::MAX)
                };
                let ranges = chunk_gains(&session.cluster, ns, prior_chunks, pattern);
                self.push_step(step, idx, ranges, (scale(above), scale(below)), keys);
            }
        }
    }

    /// The index of `ns` among the namespaces, added if new (`None` past 65,535).
    fn namespace(&mut self, ns: &str) -> Option<usize> {
        if let Some(i) = self.namespaces.iter().position(|n| n == ns) {
            return Some(i);
        }
        if self.namespaces.len() >= usize::from(u16::MAX) {
            return None;
        }
        self.namespaces.push(ns.to_string());
        self.extent.push(None);
        Some(self.namespaces.len() - 1)
    }

    /// How many of `points` lie above, and below, every point namespace `idx` had before.
    fn beyond(&self, idx: Option<usize>, points: &[Range]) -> (u32, u32) {
        let Some(Some((lo, hi))) = idx.and_then(|i| self.extent.get(i)) else {
            return (0, 0);
        };
        let above = points.iter().filter(|p| p.lo > *hi).map(|p| p.count).sum();
        let below = points.iter().filter(|p| p.hi < *lo).map(|p| p.count).sum();
        (above, below)
    }

    /// Keeps one step's ranges for namespace `idx`, with its inserts beyond every earlier
    /// key.
    fn push_step(
        &mut self,
        step: u32,
        idx: Option<usize>,
        mut points: Vec<Range>,
        (above, below): (u32, u32),
        keys: (u64, u64),
    ) {
        let Some(idx) = idx.filter(|_| !points.is_empty()) else {
            return;
        };
        self.widen(idx, keys);
        let total = points.iter().map(|p| p.count).sum();
        merge_ranges(&mut points, MAX_RANGES_PER_STEP);
        let start = self.ranges.len() as u32;
        self.ranges.extend(points);
        self.steps.push(StepNs {
            step,
            ns: idx as u16,
            start,
            end: self.ranges.len() as u32,
            total,
            above,
            below,
            keys,
        });
    }

    /// Widens namespace `idx`'s extent of inserted points to cover `keys`.
    fn widen(&mut self, idx: usize, (lo, hi): (u64, u64)) {
        if let Some(e) = self.extent.get_mut(idx) {
            *e = Some(e.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
        }
    }

    /// Forgets the steps after position `keep` (a fork).
    pub fn truncate(&mut self, keep: u64) {
        let cut = self.steps.partition_point(|s| u64::from(s.step) <= keep);
        let ranges = self
            .steps
            .get(cut)
            .map_or(self.ranges.len(), |s| s.start as usize);
        self.steps.truncate(cut);
        self.ranges.truncate(ranges);
        // The extents are recomputed from what is left.
        for e in &mut self.extent {
            *e = None;
        }
        let kept: Vec<(usize, (u64, u64))> = self
            .steps
            .iter()
            .map(|s| (usize::from(s.ns), s.keys))
            .collect();
        for (idx, keys) in kept {
            self.widen(idx, keys);
        }
    }

    /// The kept steps of `ns` up to position `upto`.
    fn steps_of(&self, ns: &str, upto: u64) -> impl Iterator<Item = &StepNs> + '_ {
        let idx = self.namespaces.iter().position(|n| n == ns);
        self.steps
            .iter()
            .filter(move |s| Some(usize::from(s.ns)) == idx && u64::from(s.step) <= upto)
    }

    /// The number of ranges kept, for memory estimates and tests.
    pub fn kept_ranges(&self) -> usize {
        self.ranges.len()
    }

    /// The bytes the aggregates hold, estimated.
    pub fn kept_bytes(&self) -> u64 {
        (self.ranges.capacity() * std::mem::size_of::<Range>()
            + self.steps.capacity() * std::mem::size_of::<StepNs>()) as u64
    }
}

/// How many documents each part of the key space gained in a step that inserted more
/// than the record of recent inserts holds: chunks whose version did not change kept their
/// range, and each run of changed chunks between two of them is compared as a whole.
/// Without the chunks before the step (a collection sharded in it), every document counts.
fn chunk_gains(
    cluster: &Cluster,
    ns: &str,
    prior: Option<&Vec<(ChunkVersion, u64)>>,
    pattern: &KeyPattern,
) -> Vec<Range> {
    let Ok(s) = cluster.sharding(ns) else {
        return Vec::new();
    };
    let point = |k: &KeyValue| key_coordinate(pattern, k);
    let mut out = Vec::new();
    let mut push = |lo: u64, hi: u64, gain: u64| {
        if gain > 0 {
            out.push(Range {
                lo,
                hi: hi.saturating_sub(1).max(lo),
                count: u32::try_from(gain).unwrap_or(u32::MAX),
            });
        }
    };
    let Some(prior) = prior else {
        for c in s.table.iter() {
            push(point(&c.min), point(&c.max), c.docs);
        }
        return out;
    };
    // The versions every chunk had before the step are at most the collection version
    // then; every chunk a split, merge or move made in the step has a higher one.
    let old_top = prior.iter().map(|(v, _)| *v).max().unwrap_or_default();
    let mut i = 0;
    // A run of changed chunks: its start point, its documents now.
    let mut run: Option<(u64, u64)> = None;
    let mut run_before = 0u64;
    for c in s.table.iter() {
        let unchanged = c.version <= old_top;
        if unchanged {
            // Skip (into the run) the chunks before it that no longer exist.
            while i < prior.len() && prior[i].0 != c.version {
                run_before += prior[i].1;
                i += 1;
            }
            if let Some((lo, docs)) = run.take() {
                push(lo, point(&c.min), docs.saturating_sub(run_before));
            }
            run_before = 0;
            let before = prior.get(i).map_or(0, |p| p.1);
            i += 1;
            push(point(&c.min), point(&c.max), c.docs.saturating_sub(before));
        } else {
            let r = run.get_or_insert((point(&c.min), 0));
            r.1 += c.docs;
        }
    }
    if let Some((lo, docs)) = run {
        run_before += prior[i.min(prior.len())..].iter().map(|p| p.1).sum::<u64>();
        push(lo, u64::MAX, docs.saturating_sub(run_before));
    }
    out
}

/// Sorts ranges and merges them, the closest neighbours first, until at most `cap` remain
/// (equal points always merge).
fn merge_ranges(ranges: &mut Vec<Range>, cap: usize) {
    ranges.sort_by_key(|r| (r.lo, r.hi));
    let mut merged: Vec<Range> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match merged.last_mut() {
            Some(m) if m.lo == r.lo && m.hi == r.hi => m.count = m.count.saturating_add(r.count),
            _ => merged.push(r),
        }
    }
    while merged.len() > cap.max(1) {
        // The pair whose union is narrowest; ties go to the first.
        let mut best = 0;
        let mut best_width = u64::MAX;
        for i in 0..merged.len() - 1 {
            let width = merged[i + 1].hi.saturating_sub(merged[i].lo);
            if width < best_width {
                best = i;
                best_width = width;
            }
        }
        let next = merged.remove(best + 1);
        let m = &mut merged[best];
        m.lo = m.lo.min(next.lo);
        m.hi = m.hi.max(next.hi);
        m.count = m.count.saturating_add(next.count);
    }
    *ranges = merged;
}

/// How a grid is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeatOptions {
    /// Rows (key ranges), at least 1 and at most 4,096.
    pub rows: u32,
    /// Columns (groups of consecutive steps), at least 1 and at most 8,192.
    pub columns: u32,
    /// Whether a ranged key's axis goes by rank, each distinct point an equal band (see
    /// `sim/heat_axis.rs`), rather than linearly. A hashed key's axis is always the
    /// linear hash space.
    pub ranked: bool,
}

impl Default for HeatOptions {
    fn default() -> Self {
        HeatOptions {
            rows: 128,
            columns: 2048,
            ranked: false,
        }
    }
}

/// One row of a grid: a range of the axis and the shard owning its middle at the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatRow {
    /// The row's lowest point.
    pub lo: u64,
    /// The row's highest point.
    pub hi: u64,
    /// The shard owning the chunk at the row's middle, at the cursor.
    pub shard: ShardIdx,
    /// Inserts in the row over every column.
    pub inserts: f64,
}

/// A chunk boundary at the cursor, placed on the grid's axis.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkMark {
    /// The chunk's lower bound.
    pub min: KeyValue,
    /// Where it sits: 0 at the bottom (MinKey side) of the axis, 1 at the top.
    pub at: f64,
    /// The chunk's shard.
    pub shard: ShardIdx,
}

/// The key space over time, ready to draw: `rows` key ranges (MinKey side first) by
/// `columns` groups of steps, each cell the inserts that landed in the range.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatGrid {
    /// The collection.
    pub ns: String,
    /// Whether the axis is the int64 hash space.
    pub hashed: bool,
    /// The axis: the lowest and highest points drawn.
    pub axis: (u64, u64),
    /// The bands of a ranked axis, one per distinct point (0 when the axis is linear).
    pub bands: u32,
    /// The rows, bottom (MinKey side) first.
    pub rows: Vec<HeatRow>,
    /// How many steps each column holds; column `c` is steps `c * per_column + 1` to
    /// `(c + 1) * per_column`.
    pub per_column: u64,
    /// The number of columns.
    pub columns: u32,
    /// The timeline's cursor (a step number; 0 before the first step).
    pub cursor: u64,
    /// The cells, row by row: `cells[row * columns + column]`, in inserts.
    pub cells: Vec<f32>,
    /// The largest cell, for the colour scale.
    pub max_cell: f32,
    /// The chunk boundaries at the cursor.
    pub chunks: Vec<ChunkMark>,
}

impl HeatGrid {
    /// The cell of `row` and `column` (0 outside the grid).
    pub fn cell(&self, row: usize, column: usize) -> f32 {
        if column >= self.columns as usize {
            return 0.0;
        }
        self.cells
            .get(row * self.columns as usize + column)
            .copied()
            .unwrap_or(0.0)
    }
}

impl HeatLog {
    /// The grid of `ns` for steps 1 to `steps`, its rows and chunk marks from `cluster`
    /// (the cluster at the cursor, step `cursor`). `None` when `ns` is not sharded there.
    pub fn grid(
        &self,
        ns: &str,
        cluster: &Cluster,
        steps: u64,
        cursor: u64,
        options: HeatOptions,
    ) -> Option<HeatGrid> {
        let s = cluster.sharding(ns).ok()?;
        let pattern = &s.pattern;
        let hashed = pattern.has_hashed_prefix();
        let rows = options.rows.clamp(1, 4096) as usize;
        let columns_wanted = u64::from(options.columns.clamp(1, 8192));
        let per_column = steps.div_ceil(columns_wanted).max(1);
        let columns = steps.div_ceil(per_column).max(1) as usize;
        let chunk_points: Vec<(u64, ShardIdx, &KeyValue)> = s
            .table
            .iter()
            .map(|c| (key_coordinate(pattern, &c.min), c.shard, &c.min))
            .collect();
        // The axis: the whole hash space, or what was inserted and the inner chunk
        // bounds, linearly from the lowest to the highest or by rank.
        let axis = if hashed {
            Axis::Linear(0, u64::MAX)
        } else {
            let inner = chunk_points.iter().skip(1).map(|p| p.0);
            let kept = self.steps_of(ns, steps).flat_map(|st| {
                self.ranges[st.start as usize..st.end as usize]
                    .iter()
                    .flat_map(|r| [r.lo, r.hi])
            });
            let points: Vec<u64> = inner.chain(kept).collect();
            match (options.ranked, points.iter().min(), points.iter().max()) {
                (true, ..) => Axis::ranked(points).unwrap_or(Axis::Linear(0, u64::MAX)),
                (false, Some(lo), Some(hi)) => Axis::Linear(*lo, (*hi).max(lo.saturating_add(1))),
                _ => Axis::Linear(0, u64::MAX),
            }
        };
        let mut cells = vec![0f32; rows * columns];
        let mut diff = vec![0f64; rows + 1];
        let mut column_steps = self.steps_of(ns, steps).peekable();
        for col in 0..columns {
            let last = (col as u64 + 1) * per_column;
            let mut any = false;
            while let Some(st) = column_steps.next_if(|st| u64::from(st.step) <= last) {
                any = true;
                for r in &self.ranges[st.start as usize..st.end as usize] {
                    let (a, b) = axis.rows(r.lo, r.hi, rows);
                    let share = f64::from(r.count) / (b - a + 1) as f64;
                    diff[a] += share;
                    diff[b + 1] -= share;
                }
            }
            if !any {
                continue;
            }
            let mut acc = 0f64;
            for (row, d) in diff.iter_mut().take(rows).enumerate() {
                acc += *d;
                *d = 0.0;
                cells[row * columns + col] = acc.max(0.0) as f32;
            }
            diff[rows] = 0.0;
        }
        let max_cell = cells.iter().copied().fold(0f32, f32::max);
        let shard_at = |p: u64| -> ShardIdx {
            let i = chunk_points.partition_point(|c| c.0 <= p);
            chunk_points.get(i.saturating_sub(1)).map_or(0, |c| c.1)
        };
        let rows_out = (0..rows)
            .map(|r| {
                let lo = axis.point(r as f64 / rows as f64);
                let hi = axis.point((r + 1) as f64 / rows as f64);
                HeatRow {
                    lo,
                    hi,
                    shard: shard_at(lo / 2 + hi / 2),
                    inserts: (0..columns)
                        .map(|c| f64::from(cells[r * columns + c]))
                        .sum(),
                }
            })
            .collect();
        let chunks = chunk_points
            .iter()
            .map(|(p, shard, min)| ChunkMark {
                min: (*min).clone(),
                at: axis.at(*p),
                shard: *shard,
            })
            .collect();
        Some(HeatGrid {
            ns: ns.to_string(),
            hashed,
            axis: axis.ends(),
            bands: axis.bands(),
            rows: rows_out,
            per_column,
            columns: columns as u32,
            cursor,
            cells,
            max_cell,
            chunks,
        })
    }
}

/// The patterns [`HeatLog::classify`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternKind {
    /// Inserts go beyond every earlier key, at the MaxKey side (`max_side`) or the MinKey
    /// side: a monotonic key.
    HotEdge {
        /// Whether the edge is the MaxKey side.
        max_side: bool,
    },
    /// A narrow range takes most inserts, step after step: a hot value or tenant.
    Band,
    /// Inserts spread over the whole key space: a hashed key, or random values.
    Even,
    /// None of these.
    Uneven,
    /// Too few inserts to tell.
    TooLittle,
}

/// What the heat shows, with the figures the classifier used.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatPattern {
    /// The pattern.
    pub kind: PatternKind,
    /// Its name: `"hot edge"`, `"band"`, `"even"`, `"uneven"` or `"too little data"`.
    pub name: &'static str,
    /// Its name as a message of the page's catalogue (`heat.name.*`).
    pub name_words: Message,
    /// A sentence saying what it means, the name first (but for too little data).
    pub sentence: String,
    /// The sentence without the name, as a message of the page's catalogue
    /// (`heat.pattern.*`), which a page shows beside the name.
    pub words: Message,
    /// The figures: `inserts`, `steps`, `maxSideShare`, `minSideShare` (inserts beyond
    /// every earlier key), `hottestShare` and `hottestWidth` (the narrowest run of the
    /// 32 equal parts of the axis holding half the inserts, and its width as a fraction
    /// of the axis), `persistence` (the share of steps in which that run took at least
    /// half the step's inserts) and `evenness` (the normalised entropy over the 32 parts).
    pub figures: Vec<(&'static str, f64)>,
}

/// The pattern's sentence as the CLI prints it: the name, capitalised, before `words`
/// (whose first letter is then lower case), but for too little data, which has none.
fn named_sentence(kind: PatternKind, name: &str, words: &str) -> String {
    if kind == PatternKind::TooLittle {
        return words.to_string();
    }
    let mut out = String::with_capacity(name.len() + words.len() + 2);
    let mut n = name.chars();
    out.extend(n.next().map(|c| c.to_ascii_uppercase()));
    out.push_str(n.as_str());
    out.push_str(": ");
    let mut w = words.chars();
    out.extend(w.next().map(|c| c.to_ascii_lowercase()));
    out.push_str(w.as_str());
    out
}

/// What a ranked axis shows, as a message of the page's catalogue (`heat.axis.*`): a
/// hashed key's axis the page words itself.
pub fn axis_words(bands: u32) -> Message {
    if bands as usize >= MAX_BANDS {
        msg!("heat.axis.ranked_sampled", bands = u64::from(bands))
    } else {
        msg!("heat.axis.ranked", bands = u64::from(bands))
    }
}

/// The parts of the axis the classifier counts in.
const PARTS: usize = 32;

impl HeatLog {
    /// Names the pattern of `ns`'s inserts in steps 1 to `upto`, on the axis of `cluster`'s
    /// grid (the cluster at the cursor).
    pub fn classify(&self, ns: &str, cluster: &Cluster, upto: u64) -> HeatPattern {
        let grid = self.grid(
            ns,
            cluster,
            upto,
            upto,
            HeatOptions {
                rows: PARTS as u32,
                columns: u32::try_from(upto.clamp(1, 8192)).unwrap_or(8192),
                ranked: false,
            },
        );
        let steps: Vec<&StepNs> = self.steps_of(ns, upto).collect();
        let total: f64 = steps.iter().map(|s| f64::from(s.total)).sum();
        // The first step has nothing before it to go beyond.
        let later: f64 = steps.iter().skip(1).map(|s| f64::from(s.total)).sum();
        let above: f64 = steps.iter().map(|s| f64::from(s.above)).sum();
        let below: f64 = steps.iter().map(|s| f64::from(s.below)).sum();
        let (max_side, min_side) = if later > 0.0 {
            (above / later, below / later)
        } else {
            (0.0, 0.0)
        };
        let mut parts = [0f64; PARTS];
        if let Some(g) = &grid {
            for (p, row) in parts.iter_mut().zip(&g.rows) {
                *p = row.inserts;
            }
        }
        let sum: f64 = parts.iter().sum();
        // The narrowest run of parts holding half the inserts.
        let (mut best_start, mut best_len) = (0, PARTS);
        for start in 0..PARTS {
            let mut acc = 0.0;
            for len in 1..=PARTS - start {
                acc += parts[start + len - 1];
                if acc >= sum / 2.0 {
                    if len < best_len {
                        best_start = start;
                        best_len = len;
                    }
                    break;
                }
            }
        }
        let hottest: f64 = parts[best_start..best_start + best_len].iter().sum();
        let hottest_share = if sum > 0.0 { hottest / sum } else { 0.0 };
        let entropy: f64 = parts
            .iter()
            .filter(|p| **p > 0.0)
            .map(|p| {
                let q = p / sum;
                -q * q.ln()
            })
            .sum::<f64>()
            / (PARTS as f64).ln();
        // How often the hottest run took half a step's inserts.
        let persistence = match &grid {
            Some(g) if !steps.is_empty() => {
                let mut held = 0usize;
                let mut active = 0usize;
                for c in 0..g.columns as usize {
                    let col: f64 = (0..PARTS).map(|r| f64::from(g.cell(r, c))).sum();
                    if col <= 0.0 {
                        continue;
                    }
                    active += 1;
                    let inside: f64 = (best_start..best_start + best_len)
                        .map(|r| f64::from(g.cell(r, c)))
                        .sum();
                    if inside >= col / 2.0 {
                        held += 1;
                    }
                }
                held as f64 / active.max(1) as f64
            }
            _ => 0.0,
        };
        let width = best_len as f64 / PARTS as f64;
        let figures = vec![
            ("inserts", total),
            ("steps", steps.len() as f64),
            ("maxSideShare", max_side),
            ("minSideShare", min_side),
            ("hottestShare", hottest_share),
            ("hottestWidth", width),
            ("persistence", persistence),
            ("evenness", entropy),
        ];
        let pct = |x: f64| format!("{:.0}%", x * 100.0);
        let (kind, name, words) = if total < 20.0 || steps.len() < 2 {
            (
                PatternKind::TooLittle,
                "too little data",
                msg!("heat.pattern.too_little"),
            )
        } else if max_side >= 0.6 || min_side >= 0.6 {
            let top = max_side >= min_side;
            let side = if top {
                msg!("heat.side.above")
            } else {
                msg!("heat.side.below")
            };
            (
                PatternKind::HotEdge { max_side: top },
                "hot edge",
                msg!(
                    "heat.pattern.hot_edge",
                    share = pct(if top { max_side } else { min_side }),
                    side = side,
                    end = if top { "MaxKey" } else { "MinKey" },
                ),
            )
        } else if width <= 0.125 && hottest_share >= 0.5 && persistence >= 0.5 {
            (
                PatternKind::Band,
                "band",
                msg!(
                    "heat.pattern.band",
                    width = pct(width),
                    share = pct(hottest_share),
                    persistence = pct(persistence),
                ),
            )
        } else if entropy >= 0.85 {
            (
                PatternKind::Even,
                "even",
                msg!("heat.pattern.even", evenness = format!("{entropy:.2}")),
            )
        } else {
            (
                PatternKind::Uneven,
                "uneven",
                msg!("heat.pattern.uneven", width = pct(width)),
            )
        };
        let name_words = match kind {
            PatternKind::HotEdge { .. } => msg!("heat.name.hot_edge"),
            PatternKind::Band => msg!("heat.name.band"),
            PatternKind::Even => msg!("heat.name.even"),
            PatternKind::Uneven => msg!("heat.name.uneven"),
            PatternKind::TooLittle => msg!("heat.name.too_little"),
        };
        let sentence = named_sentence(kind, name, &words.english());
        HeatPattern {
            kind,
            name,
            name_words,
            sentence,
            words,
            figures,
        }
    }
}
