//! The ranking of candidate shard keys: what was measured of each candidate after its
//! replay ([`Figures`]), the candidates sorted by each measure, and for each candidate
//! the reasons it wins or loses, in the terms of MongoDB's "Choose a Shard Key" page
//! (cardinality, frequency, monotonic change, query isolation) and of what the replay
//! showed (recent inserts, the data's spread, jumbo chunks, refused documents).
//!
//! Each reason is a value: its measure, its verdict, the candidate's place on the measure
//! and a [`Message`] of [`RANK_MESSAGES`] (an id and its values), whose English the CLI
//! prints and which a page can word in its reader's language.
//!
//! Verdicts, per measure (`shards` the cluster's shard count):
//! - **refused**: loses when any document was refused (a key field holding an array).
//! - **cardinality**: loses under [`MIN_DISTINCT`] distinct values, the number
//!   analyzeShardKey needs for its ranges.
//! - **frequency**: loses when the most common value holds more than 1% of the
//!   documents (one of analyzeShardKey's 100 ranges' worth).
//! - **monotonic change**: loses when analyzeShardKey calls the key monotonic.
//! - **recent inserts** and **data spread**: lose when the busiest or fullest shard has at
//!   least [`LOPSIDED`] (1.5) times an even share (`1.5 / shards`); no verdict on one
//!   shard.
//! - **jumbo**: loses with any jumbo chunk.
//! - **query isolation**: no verdict; says which queries the key can route.
//! - **read distribution** and **write distribution** (only with a query sample):
//!   analyzeShardKey's `readDistribution` and `writeDistribution` of the sampled queries.
//!   Candidates are sorted by the share of sampled reads (writes) targeted to a single
//!   shard, more being better, equal shares by the scatter-gather share, less being
//!   better. A candidate wins when at least half are single-shard, loses when at least
//!   half are scatter-gather (sent to every shard), and neither otherwise. A key whose
//!   distribution analyzeShardKey cannot measure (fewer than 99 split points) gets a
//!   neutral reason saying why, and is placed last.
//!
//! The overall order: candidates without refused documents first, then fewer lost
//! measures, then the smaller sum of places over the measures, then the order given.

use super::compare::layout;
use super::rank_candidates::MIN_DISTINCT;
use crate::engine::message::{msg, Message};
use crate::keys::shard_key::FieldKind;
use crate::keys::KeyPattern;
use bson::{doc, Bson, Document};

/// The sentences of a ranking, in the form of `engine::MESSAGES` (an id and an English
/// template with `{name}` placeholders).
pub const RANK_MESSAGES: &[(&str, &str)] = &[
    ("rank.proposed.high", "{field} had {distinct} distinct values in the first {sample} documents: high cardinality."),
    ("rank.proposed.hashed", "{field} grows with insertion order in the first {sample} documents: hashing it spreads the inserts a ranged key sends to one chunk."),
    ("rank.proposed.compound", "{field} has only {distinct} distinct values: as the prefix of a compound key with {suffix}, its documents stay together for queries by {field} and can still be split."),
    ("rank.proposed.id_generated", "The documents have no _id, so the cluster gives each a new ObjectId, which grows with insertion time."),
    ("rank.proposed.id_monotonic", "_id grows with insertion order in the first {sample} documents."),
    ("rank.proposed.id", "_id is unique, so it has the highest cardinality."),
    ("rank.given", "Given as a candidate."),
    ("rank.refused", "Refused documents: {refused} of {total} documents were refused with {code_name} ({code}): {error}"),
    ("rank.cardinality.low", "Low cardinality: {distinct} distinct values, so at most {distinct} chunks can ever hold its documents (analyzeShardKey needs at least {wanted} distinct values for its {ranges} ranges)."),
    ("rank.cardinality.high", "Cardinality: {distinct} distinct values in {docs} documents, enough to split the data into many chunks."),
    ("rank.frequency.high", "High frequency: its most common value, {value}, is in {share} of the documents ({count}); documents of one value can never be split into different chunks."),
    ("rank.frequency.low", "Low frequency: its most common value, {value}, is in only {share} of the documents ({count})."),
    ("rank.monotonic", "Monotonic change: analyzeShardKey finds it monotonic (record-id correlation {r}): each new document's key lies beyond the last, so inserts go to the chunk at the end of the key range, on one shard."),
    ("rank.not_monotonic", "No monotonic change: analyzeShardKey finds it not monotonic (record-id correlation {r}), so inserts land across the key range."),
    ("rank.recent.hot", "Hot shard: {share} of the latest {window} inserts went to {shard}."),
    ("rank.recent.spread", "Recent inserts spread: the busiest shard, {shard}, took {share} of the latest {window}."),
    ("rank.distribution.uneven", "Uneven data: {shard} holds {share} of the documents after the replay."),
    ("rank.distribution.even", "Even data: the fullest shard, {shard}, holds {share} of the documents after the replay."),
    ("rank.jumbo", "Jumbo chunks: {jumbo} of its {chunks} chunks grew past the chunk size with one key value; the balancer can neither split nor move them."),
    ("rank.isolation.ranged", "Query isolation: queries that give {fields}, by equality or by range, go only to the shards whose chunks hold those values."),
    ("rank.isolation.compound", "Query isolation: queries that give {first}, or {first} and {rest}, go only to the shards whose chunks hold those values."),
    ("rank.isolation.hashed", "Query isolation: equality on {field} goes to one shard, but a range of {field} goes to every shard, since hashing scatters neighbouring values."),
    ("rank.unmeasured", "analyzeShardKey could not measure it: {code_name} ({code}): {error}"),
    ("rank.stopped", "The replay stopped early: {error}"),
    ("rank.reads.targeted", "Targeted reads: {single} of the {total} sampled reads go to a single shard; {multi} go to several shards and {scatter} to every shard (scatter-gather)."),
    ("rank.reads.mixed", "Partly targeted reads: of the {total} sampled reads, {single} go to a single shard, {multi} to several shards and {scatter} to every shard (scatter-gather)."),
    ("rank.reads.scatter", "Scatter-gather reads: {scatter} of the {total} sampled reads go to every shard, since their filters give no range of the key; {single} go to a single shard and {multi} to several."),
    ("rank.writes.targeted", "Targeted writes: {single} of the {total} sampled writes go to a single shard; {multi} go to several shards and {scatter} to every shard. Shard key updates: {key_updates}; single writes without the shard key: {single_without}; multi writes without it: {multi_without}."),
    ("rank.writes.mixed", "Partly targeted writes: of the {total} sampled writes, {single} go to a single shard, {multi} to several shards and {scatter} to every shard. Shard key updates: {key_updates}; single writes without the shard key: {single_without}; multi writes without it: {multi_without}."),
    ("rank.writes.scatter", "Scatter-gather writes: {scatter} of the {total} sampled writes go to every shard; {single} go to a single shard and {multi} to several. Shard key updates: {key_updates}; single writes without the shard key: {single_without}; multi writes without it: {multi_without}."),
    ("rank.queries.unmeasured", "No read and write distribution: {why} analyzeShardKey's error: {code_name} ({code}): {error}"),
];

/// A MongoDB error as a ranking reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedError {
    /// The error's code.
    pub code: i32,
    /// Its code name.
    pub code_name: String,
    /// MongoDB's message.
    pub message: String,
}

/// A document a candidate's cluster refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Its line in the file (0 when it did not come from a file).
    pub line: u64,
    /// The server's error.
    pub error: RankedError,
}

/// What analyzeShardKey's `keyCharacteristics` said of the candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyFigures {
    /// `numDistinctValues`.
    pub distinct: u64,
    /// `numDocsTotal`.
    pub documents: u64,
    /// The first of `mostCommonValues`: the value as the server prints it, and its
    /// frequency.
    pub most_common: Option<(String, u64)>,
    /// `monotonicity.type` is `"monotonic"`.
    pub monotonic: bool,
    /// `monotonicity.recordIdCorrelationCoefficient`.
    pub correlation: f64,
}

/// analyzeShardKey's `readDistribution` and `writeDistribution` of a candidate, as the
/// command answers them (`engine::analyze`).
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// `readDistribution`: `sampleSize`, then when any read was sampled
    /// `percentageOfSingleShardReads`, `percentageOfMultiShardReads`,
    /// `percentageOfScatterGatherReads` and `numReadsByRange`.
    pub read: Document,
    /// `writeDistribution`: the same for writes, with `percentageOfShardKeyUpdates`,
    /// `percentageOfSingleWritesWithoutShardKey` and
    /// `percentageOfMultiWritesWithoutShardKey`.
    pub write: Document,
}

/// How one side of a distribution targeted its queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Targeted {
    /// `sampleSize.total`.
    pub total: u64,
    /// The percentage (0 to 100) sent to a single shard.
    pub single: f64,
    /// The percentage sent to several shards.
    pub multi: f64,
    /// The percentage sent to every shard.
    pub scatter: f64,
}

impl Distribution {
    /// The reads' targeting, `None` when no read was sampled.
    pub fn reads(&self) -> Option<Targeted> {
        targeted(&self.read, "Reads")
    }

    /// The writes' targeting, `None` when no write was sampled.
    pub fn writes(&self) -> Option<Targeted> {
        targeted(&self.write, "Writes")
    }

    /// A percentage of `writeDistribution` (0 when absent).
    pub fn write_percentage(&self, field: &str) -> f64 {
        self.write.get_f64(field).unwrap_or(0.0)
    }
}

fn targeted(d: &Document, noun: &str) -> Option<Targeted> {
    let total = d
        .get_document("sampleSize")
        .ok()
        .and_then(|s| s.get_i64("total").ok())
        .unwrap_or(0);
    let p = |kind: &str| {
        d.get_f64(format!("percentageOf{kind}{noun}"))
            .unwrap_or(0.0)
    };
    (total > 0).then(|| Targeted {
        total: total as u64,
        single: p("SingleShard"),
        multi: p("MultiShard"),
        scatter: p("ScatterGather"),
    })
}

/// What the replay and analyzeShardKey measured of one candidate.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The key pattern.
    pub key: Document,
    /// The key as the server prints it (`{ ts: 1 }`).
    pub label: String,
    /// Why the candidate is here (proposed from the fields seen, or given).
    pub why: Message,
    /// Documents inserted.
    pub inserted: u64,
    /// Documents refused.
    pub refused: u64,
    /// The first few refused, in file order.
    pub refusals: Vec<Refusal>,
    /// Why the replay stopped before the end, if it did (a limit of the cluster).
    pub stopped: Option<RankedError>,
    /// analyzeShardKey's figures, or its error.
    pub characteristics: Result<KeyFigures, RankedError>,
    /// With a query sample, analyzeShardKey's read and write distribution, or its error
    /// and why in plain words (an `analyze.*` message).
    pub distribution: Option<Result<Distribution, (RankedError, Message)>>,
    /// Documents per shard, in shard order.
    pub docs_per_shard: Vec<(String, u64)>,
    /// Chunks per shard, in shard order.
    pub chunks_per_shard: Vec<(String, u64)>,
    /// Jumbo chunks.
    pub jumbo: u64,
    /// The busiest shard of the latest inserts, its share (0 to 1) and the inserts
    /// counted (see `sim::rank`'s window).
    pub recent: (String, f64, u64),
}

impl Figures {
    /// The reads' (`true`) or writes' targeting, when a sample was measured and held
    /// any.
    pub fn targeting(&self, reads: bool) -> Option<Targeted> {
        let d = self.distribution.as_ref()?.as_ref().ok()?;
        if reads {
            d.reads()
        } else {
            d.writes()
        }
    }

    /// Chunks on all shards.
    pub fn chunks(&self) -> u64 {
        self.chunks_per_shard.iter().map(|(_, n)| n).sum()
    }

    /// The fullest shard and its share of the documents (0 with none).
    pub fn fullest(&self) -> (String, f64) {
        let total: u64 = self.docs_per_shard.iter().map(|(_, n)| n).sum();
        let (name, most) =
            self.docs_per_shard.iter().fold(
                ("", 0u64),
                |best, (s, n)| if *n > best.1 { (s, *n) } else { best },
            );
        (name.to_string(), share(most, total))
    }
}

fn share(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

/// What a candidate is measured by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Documents the key refused.
    Refused,
    /// Distinct key values (more is better).
    Cardinality,
    /// The most common value's share of the documents.
    Frequency,
    /// analyzeShardKey's monotonicity (the record-id correlation's size).
    MonotonicChange,
    /// The busiest shard's share of the latest inserts.
    RecentInserts,
    /// The fullest shard's share of the documents.
    DataSpread,
    /// Jumbo chunks.
    Jumbo,
    /// Which queries the key routes to some shards only (no figure).
    QueryIsolation,
    /// The sampled reads not sent to a single shard (with a query sample).
    ReadDistribution,
    /// The sampled writes not sent to a single shard (with a query sample).
    WriteDistribution,
}

impl Measure {
    /// The measures candidates are sorted by, in the order reasons are given.
    pub const RANKED: [Measure; 7] = [
        Measure::Refused,
        Measure::Cardinality,
        Measure::Frequency,
        Measure::MonotonicChange,
        Measure::RecentInserts,
        Measure::DataSpread,
        Measure::Jumbo,
    ];

    /// The measures a query sample adds to [`Measure::RANKED`].
    pub const QUERIED: [Measure; 2] = [Measure::ReadDistribution, Measure::WriteDistribution];

    /// The measure's name in the JSON form.
    pub fn name(self) -> &'static str {
        match self {
            Measure::Refused => "refused",
            Measure::Cardinality => "cardinality",
            Measure::Frequency => "frequency",
            Measure::MonotonicChange => "monotonicChange",
            Measure::RecentInserts => "recentInserts",
            Measure::DataSpread => "dataSpread",
            Measure::Jumbo => "jumbo",
            Measure::QueryIsolation => "queryIsolation",
            Measure::ReadDistribution => "readDistribution",
            Measure::WriteDistribution => "writeDistribution",
        }
    }

    /// The candidate's score on the measure, lower being better; `None` when it was not
    /// measured.
    pub fn score(self, f: &Figures) -> Option<f64> {
        let key = f.characteristics.as_ref().ok();
        Some(match self {
            Measure::Refused => f.refused as f64,
            Measure::Cardinality => -(key?.distinct as f64),
            Measure::Frequency => {
                let k = key?;
                share(k.most_common.as_ref().map_or(0, |m| m.1), k.documents)
            }
            Measure::MonotonicChange => key?.correlation.abs(),
            Measure::RecentInserts => f.recent.1,
            Measure::DataSpread => f.fullest().1,
            Measure::Jumbo => f.jumbo as f64,
            Measure::QueryIsolation => return None,
            Measure::ReadDistribution => 100.0 - f.targeting(true)?.single,
            Measure::WriteDistribution => 100.0 - f.targeting(false)?.single,
        })
    }

    /// What breaks a tie of [`Measure::score`]s, lower being better: the scatter-gather
    /// percentage for the distributions, 0 for the others.
    pub fn tiebreak(self, f: &Figures) -> f64 {
        match self {
            Measure::ReadDistribution => f.targeting(true).map_or(0.0, |t| t.scatter),
            Measure::WriteDistribution => f.targeting(false).map_or(0.0, |t| t.scatter),
            _ => 0.0,
        }
    }
}

/// Whether a reason counts for or against a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// For it.
    Wins,
    /// Against it.
    Loses,
    /// Neither: a fact to know.
    Neutral,
}

impl Verdict {
    /// The verdict's name in the JSON form.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Wins => "wins",
            Verdict::Loses => "loses",
            Verdict::Neutral => "neutral",
        }
    }
}

/// One reason a candidate wins or loses.
#[derive(Debug, Clone, PartialEq)]
pub struct Reason {
    /// The measure.
    pub kind: Measure,
    /// For or against.
    pub verdict: Verdict,
    /// The candidate's place on the measure (1 is best; equal scores share a place), 0
    /// when the measure has no figure.
    pub place: u32,
    /// The sentence, a message of [`RANK_MESSAGES`].
    pub message: Message,
}

impl Reason {
    /// The reason in English.
    pub fn english(&self) -> String {
        self.message.english_in(RANK_MESSAGES)
    }
}

/// One candidate's place in the ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedCandidate {
    /// Its place overall (1 is best).
    pub place: u32,
    /// The measures it loses on.
    pub losses: u32,
    /// What was measured.
    pub figures: Figures,
    /// Why it wins or loses, measure by measure.
    pub reasons: Vec<Reason>,
}

/// The candidates ranked.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    /// The shards of each candidate's cluster.
    pub shards: u32,
    /// The version mode (`"8.0"`).
    pub version: String,
    /// The maximum chunk size the replay used, in bytes.
    pub chunk_size: u64,
    /// Documents read from the input.
    pub documents: u64,
    /// Records of the input that could not be read.
    pub unreadable: u64,
    /// With a query sample, the reads and the writes it holds.
    pub queries: Option<(u64, u64)>,
    /// The candidates, best first.
    pub candidates: Vec<RankedCandidate>,
    /// For each ranked measure, the candidates' labels from best to worst.
    pub orders: Vec<(Measure, Vec<String>)>,
}

/// Places on one measure: competition ranking (1, 1, 3), unmeasured candidates last.
fn places(figures: &[Figures], measure: Measure) -> Vec<u32> {
    let scores: Vec<Option<(f64, f64)>> = figures
        .iter()
        .map(|f| Some((measure.score(f)?, measure.tiebreak(f))))
        .collect();
    let better = |a: Option<(f64, f64)>, b: Option<(f64, f64)>| match (a, b) {
        (Some(a), Some(b)) => a < b,
        (Some(_), None) => true,
        _ => false,
    };
    scores
        .iter()
        .map(|&s| 1 + scores.iter().filter(|&&o| better(o, s)).count() as u32)
        .collect()
}

/// Ranks measured candidates (in the order given) on a cluster of `shards` shards; with
/// `queried`, on the read and write distribution of a query sample too.
pub fn rank(
    figures: Vec<Figures>,
    shards: u32,
    queried: bool,
) -> (Vec<RankedCandidate>, Vec<(Measure, Vec<String>)>) {
    let extra: &[Measure] = if queried { &Measure::QUERIED } else { &[] };
    let all_places: Vec<(Measure, Vec<u32>)> = Measure::RANKED
        .iter()
        .chain(extra)
        .map(|&m| (m, places(&figures, m)))
        .collect();
    let orders = all_places
        .iter()
        .map(|(m, p)| {
            let mut idx: Vec<usize> = (0..figures.len()).collect();
            idx.sort_by_key(|&i| p[i]);
            (*m, idx.iter().map(|&i| figures[i].label.clone()).collect())
        })
        .collect();
    let mut ranked: Vec<(usize, u64, RankedCandidate)> = figures
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let mut reasons: Vec<Reason> = all_places
                .iter()
                .filter_map(|(m, p)| reason(*m, &f, shards, p[i]))
                .collect();
            reasons.push(isolation(&f.key));
            let losses = reasons
                .iter()
                .filter(|r| r.verdict == Verdict::Loses)
                .count() as u32;
            let sum: u64 = all_places.iter().map(|(_, p)| u64::from(p[i])).sum();
            let candidate = RankedCandidate {
                place: 0,
                losses,
                figures: f,
                reasons,
            };
            (i, sum, candidate)
        })
        .collect();
    ranked.sort_by_key(|(i, sum, c)| (c.figures.refused > 0, c.losses, *sum, *i));
    let candidates = ranked
        .into_iter()
        .enumerate()
        .map(|(at, (_, _, mut c))| {
            c.place = at as u32 + 1;
            c
        })
        .collect();
    (candidates, orders)
}

/// A share as a percentage with one decimal; a share too small to show is "<0.1%".
fn pct(v: f64) -> String {
    if v > 0.0 && v < 0.0005 {
        return "<0.1%".to_string();
    }
    format!("{:.1}%", v * 100.0)
}

/// How many times an even share (`1 / shards`) a shard may take before the measure is
/// lost.
pub const LOPSIDED: f64 = 1.5;

/// Whether a share of `shards` is at least [`LOPSIDED`] times an even one.
fn lopsided(share: f64, shards: u32) -> Option<bool> {
    (shards > 1).then(|| share * f64::from(shards) >= LOPSIDED)
}

/// The reason of one measure, if it has something to say.
fn reason(m: Measure, f: &Figures, shards: u32, place: u32) -> Option<Reason> {
    let (verdict, message) = match (m, &f.characteristics) {
        (Measure::Refused, _) => refused_reason(f)?,
        (Measure::Cardinality, Err(e)) => (
            Verdict::Loses,
            msg!(
                "rank.unmeasured",
                code_name = e.code_name.as_str(),
                code = e.code.to_string(),
                error = e.message.as_str()
            ),
        ),
        (Measure::Cardinality, Ok(k)) if k.distinct < MIN_DISTINCT => (
            Verdict::Loses,
            msg!(
                "rank.cardinality.low",
                distinct = k.distinct,
                wanted = MIN_DISTINCT - 1,
                ranges = MIN_DISTINCT
            ),
        ),
        (Measure::Cardinality, Ok(k)) => (
            Verdict::Wins,
            msg!(
                "rank.cardinality.high",
                distinct = k.distinct,
                docs = k.documents
            ),
        ),
        (Measure::Frequency, Ok(k)) => frequency_reason(k)?,
        (Measure::MonotonicChange, Ok(k)) => {
            let r = format!("{}", k.correlation);
            if k.monotonic {
                (Verdict::Loses, msg!("rank.monotonic", r = r))
            } else {
                (Verdict::Wins, msg!("rank.not_monotonic", r = r))
            }
        }
        (Measure::RecentInserts, _) if f.recent.2 > 0 => {
            let (shard, s, window) = (f.recent.0.as_str(), pct(f.recent.1), f.recent.2);
            match lopsided(f.recent.1, shards)? {
                true => (
                    Verdict::Loses,
                    msg!("rank.recent.hot", share = s, window = window, shard = shard),
                ),
                false => (
                    Verdict::Wins,
                    msg!(
                        "rank.recent.spread",
                        share = s,
                        window = window,
                        shard = shard
                    ),
                ),
            }
        }
        (Measure::DataSpread, _) if f.inserted > 0 => {
            let (shard, s) = f.fullest();
            match lopsided(s, shards)? {
                true => (
                    Verdict::Loses,
                    msg!("rank.distribution.uneven", shard = shard, share = pct(s)),
                ),
                false => (
                    Verdict::Wins,
                    msg!("rank.distribution.even", shard = shard, share = pct(s)),
                ),
            }
        }
        (Measure::Jumbo, _) if f.jumbo > 0 => (
            Verdict::Loses,
            msg!("rank.jumbo", jumbo = f.jumbo, chunks = f.chunks()),
        ),
        (Measure::ReadDistribution | Measure::WriteDistribution, _) => {
            distribution_reason(m == Measure::ReadDistribution, f.distribution.as_ref()?)?
        }
        _ => return None,
    };
    Some(Reason {
        kind: m,
        verdict,
        place,
        message,
    })
}

/// The reason of the read (`reads`) or write distribution: how the sampled queries were
/// targeted, or, once (on the reads), why analyzeShardKey could not measure them.
fn distribution_reason(
    reads: bool,
    measured: &Result<Distribution, (RankedError, Message)>,
) -> Option<(Verdict, Message)> {
    let d = match measured {
        Ok(d) => d,
        Err((e, why)) if reads => {
            let args = vec![
                ("why", why.clone().into()),
                ("code_name", e.code_name.as_str().into()),
                ("code", e.code.to_string().into()),
                ("error", e.message.as_str().into()),
            ];
            return Some((
                Verdict::Neutral,
                Message::new("rank.queries.unmeasured", args),
            ));
        }
        Err(_) => return None,
    };
    let t = if reads { d.reads() } else { d.writes() }?;
    let (verdict, kind) = if t.single >= 50.0 {
        (Verdict::Wins, "targeted")
    } else if t.scatter >= 50.0 {
        (Verdict::Loses, "scatter")
    } else {
        (Verdict::Neutral, "mixed")
    };
    let percent = |v: f64| pct(v / 100.0);
    let mut args = vec![
        ("total", t.total.into()),
        ("single", percent(t.single).into()),
        ("multi", percent(t.multi).into()),
        ("scatter", percent(t.scatter).into()),
    ];
    if !reads {
        for (name, field) in [
            ("key_updates", "percentageOfShardKeyUpdates"),
            ("single_without", "percentageOfSingleWritesWithoutShardKey"),
            ("multi_without", "percentageOfMultiWritesWithoutShardKey"),
        ] {
            args.push((name, percent(d.write_percentage(field)).into()));
        }
    }
    let side = if reads { "reads" } else { "writes" };
    let id = match (side, kind) {
        ("reads", "targeted") => "rank.reads.targeted",
        ("reads", "scatter") => "rank.reads.scatter",
        ("reads", _) => "rank.reads.mixed",
        (_, "targeted") => "rank.writes.targeted",
        (_, "scatter") => "rank.writes.scatter",
        _ => "rank.writes.mixed",
    };
    Some((verdict, Message::new(id, args)))
}

fn refused_reason(f: &Figures) -> Option<(Verdict, Message)> {
    let first = f.refusals.first().filter(|_| f.refused > 0)?;
    let e = &first.error;
    let total = f.refused + f.inserted;
    Some((
        Verdict::Loses,
        msg!(
            "rank.refused",
            refused = f.refused,
            total = total,
            code_name = e.code_name.as_str(),
            code = e.code.to_string(),
            error = e.message.as_str()
        ),
    ))
}

fn frequency_reason(k: &KeyFigures) -> Option<(Verdict, Message)> {
    let (value, count) = k.most_common.as_ref()?;
    let s = share(*count, k.documents);
    let verdict = if s * MIN_DISTINCT as f64 > 1.0 {
        Verdict::Loses
    } else {
        Verdict::Wins
    };
    let id = if verdict == Verdict::Loses {
        "rank.frequency.high"
    } else {
        "rank.frequency.low"
    };
    let args = vec![
        ("value", value.as_str().into()),
        ("share", pct(s).into()),
        ("count", (*count).into()),
    ];
    Some((verdict, Message::new(id, args)))
}

/// Which queries the key routes to some shards only: structural, no verdict.
fn isolation(key: &Document) -> Reason {
    let fields: Vec<(String, FieldKind)> = KeyPattern::parse(key)
        .map(|p| p.fields().to_vec())
        .unwrap_or_default();
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    let hashed = fields.iter().find(|(_, k)| *k == FieldKind::Hashed);
    let message = match (hashed, names.as_slice()) {
        (Some((field, _)), _) => msg!("rank.isolation.hashed", field = field.as_str()),
        (None, [first, rest @ ..]) if !rest.is_empty() => {
            msg!(
                "rank.isolation.compound",
                first = *first,
                rest = rest.join(", ")
            )
        }
        _ => msg!("rank.isolation.ranged", fields = names.join(", ")),
    };
    Reason {
        kind: Measure::QueryIsolation,
        verdict: Verdict::Neutral,
        place: 0,
        message,
    }
}

impl Ranking {
    /// The ranking as a plain-text table, then each candidate's reasons.
    pub fn render_table(&self) -> String {
        let mut header = [
            "#",
            "key",
            "distinct",
            "top value",
            "monotonic",
            "recent hot",
            "fullest",
            "chunks",
            "jumbo",
            "refused",
        ]
        .map(String::from)
        .to_vec();
        if self.queries.is_some() {
            header.extend(
                [
                    "1-shard reads",
                    "scatter reads",
                    "1-shard writes",
                    "scatter writes",
                ]
                .map(String::from),
            );
        }
        let mut rows = vec![header];
        for c in &self.candidates {
            let mut row = table_row(c);
            if self.queries.is_some() {
                row.extend(distribution_cells(&c.figures));
            }
            rows.push(row);
        }
        let mut out = format!(
            "{} documents on {} shards, version {}, chunk size {} ({} unreadable)\n",
            self.documents,
            self.shards,
            self.version,
            crate::values::inspect::data_format(self.chunk_size as f64),
            self.unreadable
        );
        if let Some((reads, writes)) = self.queries {
            out.push_str(&format!(
                "query sample: {reads} reads and {writes} writes\n"
            ));
        }
        out.push('\n');
        out.push_str(&layout(&rows));
        for c in &self.candidates {
            out.push_str(&format!("\n{}. {}\n", c.place, c.figures.label));
            out.push_str(&format!(
                "   why tried: {}\n",
                c.figures.why.english_in(RANK_MESSAGES)
            ));
            for r in &c.reasons {
                let mark = match r.verdict {
                    Verdict::Wins => '+',
                    Verdict::Loses => '-',
                    Verdict::Neutral => ' ',
                };
                out.push_str(&format!("   {mark} {}\n", r.english()));
            }
            if let Some(e) = &c.figures.stopped {
                out.push_str(&format!(
                    "   ! {}\n",
                    msg!("rank.stopped", error = e.message.as_str()).english_in(RANK_MESSAGES)
                ));
            }
        }
        out
    }
}

/// The distribution's four cells: single-shard and scatter-gather percentages of the
/// reads and of the writes, `-` when none was sampled or the key was not measured.
fn distribution_cells(f: &Figures) -> Vec<String> {
    let cells = |t: Option<Targeted>| match t {
        Some(t) => [pct(t.single / 100.0), pct(t.scatter / 100.0)],
        None => ["-".to_string(), "-".to_string()],
    };
    let mut out = cells(f.targeting(true)).to_vec();
    out.extend(cells(f.targeting(false)));
    out
}

fn table_row(c: &RankedCandidate) -> Vec<String> {
    let f = &c.figures;
    let (distinct, top, monotonic) = match &f.characteristics {
        Ok(k) => (
            k.distinct.to_string(),
            k.most_common
                .as_ref()
                .map_or("-".into(), |(_, n)| pct(share(*n, k.documents))),
            if k.monotonic { "yes" } else { "no" }.to_string(),
        ),
        Err(e) => (e.code_name.clone(), "-".into(), "-".into()),
    };
    vec![
        c.place.to_string(),
        f.label.clone(),
        distinct,
        top,
        monotonic,
        pct(f.recent.1),
        pct(f.fullest().1),
        f.chunks().to_string(),
        f.jumbo.to_string(),
        f.refused.to_string(),
    ]
}

fn long(n: u64) -> Bson {
    Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX))
}

fn error_document(e: &RankedError) -> Document {
    doc! { "code": e.code, "codeName": e.code_name.as_str(), "errmsg": e.message.as_str() }
}

fn per_shard(list: &[(String, u64)]) -> Document {
    list.iter().map(|(s, n)| (s.clone(), long(*n))).collect()
}

impl RankedCandidate {
    /// The candidate as one document of the JSON form.
    pub fn to_document(&self) -> Document {
        let f = &self.figures;
        let characteristics = match &f.characteristics {
            Ok(k) => Bson::Document(doc! {
                "numDistinctShardKeyValues": long(k.distinct),
                "mostCommonValue": k.most_common.as_ref().map_or(Bson::Null, |(v, _)| Bson::String(v.clone())),
                "mostCommonFrequency": long(k.most_common.as_ref().map_or(0, |m| m.1)),
                "monotonicity": if k.monotonic { "monotonic" } else { "not monotonic" },
                "recordIdCorrelationCoefficient": k.correlation,
            }),
            Err(e) => Bson::Document(doc! { "error": error_document(e) }),
        };
        let reasons: Vec<Bson> = self
            .reasons
            .iter()
            .map(|r| {
                let args: Document = r
                    .message
                    .args
                    .iter()
                    .map(|(n, a)| (n.to_string(), Bson::String(arg_english(a))))
                    .collect();
                Bson::Document(doc! {
                    "kind": r.kind.name(), "verdict": r.verdict.name(), "place": i64::from(r.place),
                    "id": r.message.id, "args": args, "text": r.english(),
                })
            })
            .collect();
        let refusals: Vec<Bson> = f
            .refusals
            .iter()
            .map(|r| {
                Bson::Document(doc! { "line": long(r.line), "error": error_document(&r.error) })
            })
            .collect();
        let mut out = doc! {
            "place": i64::from(self.place), "key": f.key.clone(), "label": f.label.as_str(),
            "why": f.why.english_in(RANK_MESSAGES), "losses": i64::from(self.losses),
            "inserted": long(f.inserted), "refused": long(f.refused), "refusals": refusals,
            "stopped": f.stopped.as_ref().map_or(Bson::Null, |e| Bson::Document(error_document(e))),
            "keyCharacteristics": characteristics, "chunks": long(f.chunks()), "jumboChunks": long(f.jumbo),
            "docsPerShard": per_shard(&f.docs_per_shard), "chunksPerShard": per_shard(&f.chunks_per_shard),
            "recentInserts": doc! { "window": long(f.recent.2), "hottestShard": f.recent.0.as_str(), "hottestShare": f.recent.1 },
            "reasons": reasons,
        };
        match &f.distribution {
            None => {}
            Some(Ok(d)) => {
                out.insert("readDistribution", d.read.clone());
                out.insert("writeDistribution", d.write.clone());
            }
            Some(Err((e, _))) => {
                out.insert("readWriteDistributionError", error_document(e));
            }
        }
        out
    }
}

fn arg_english(a: &crate::engine::message::Arg) -> String {
    match a {
        crate::engine::message::Arg::Text(t) => t.clone(),
        crate::engine::message::Arg::Message(m) => m.english_in(RANK_MESSAGES),
    }
}

impl Ranking {
    /// The ranking as one document (the CLI's `--json`).
    pub fn to_document(&self) -> Document {
        let orders: Document = self
            .orders
            .iter()
            .map(|(m, labels)| (m.name().to_string(), Bson::from(labels.clone())))
            .collect();
        let mut out = doc! {
            "documents": long(self.documents), "unreadable": long(self.unreadable),
            "shards": i64::from(self.shards), "version": self.version.as_str(),
            "chunkSizeBytes": long(self.chunk_size),
            "candidates": self.candidates.iter().map(|c| Bson::Document(c.to_document())).collect::<Vec<_>>(),
            "orders": orders,
        };
        if let Some((reads, writes)) = self.queries {
            out.insert(
                "querySample",
                doc! { "reads": long(reads), "writes": long(writes) },
            );
        }
        out
    }
}
