//! Why the cluster looks the way it does: explanations of a chunk (not split yet, jumbo,
//! left where it is), a shard (what it holds and why), a balancer round and a document's
//! landing, as data the page draws and `sim.explain` prints.
//!
//! Nothing here decides anything: every figure is read from the engine's state, and every
//! verdict comes from the rule's own code. The split check reads the chunk's write tracker
//! against [`SPLIT_TEST_FACTOR`] and asks [`auto_split_vector`] for the points it would cut;
//! the balancer's verdicts are the decisions of [`Cluster::balancer_round_plan`], which runs
//! the balancer's own policy code on a copy of the cluster.

use crate::engine::balancer::{BalancePolicy, RoundStep, ZoneDecision, ZoneOutcome};
use crate::engine::chunks::{Chunk, ShardIdx};
use crate::engine::cluster::{
    not_sharded, untargetable_key, Cluster, ClusterError, Sharding, VersionMode, SPLIT_TEST_FACTOR,
};
use crate::engine::events::EventKind;
use crate::engine::split::{auto_split_vector, SplitInput};
use crate::keys::shard_key::KeyValue;
use crate::values::inspect::data_format;
use bson::{Bson, Document};

/// What an explanation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Whether and when a chunk splits.
    Split,
    /// Why a chunk is jumbo.
    Jumbo,
    /// Why the balancer moves a chunk or leaves it.
    Balancer,
    /// Why a shard holds what it holds.
    Holding,
    /// A draining shard.
    Draining,
    /// Zones.
    Zones,
    /// 5.0's move of a new single-document top (or bottom) chunk.
    TopChunk,
    /// One step of a balancer round.
    Round,
    /// Where a document lands.
    Landing,
}

impl Topic {
    /// The topic's name, as `sim.explain` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Topic::Split => "split",
            Topic::Jumbo => "jumbo",
            Topic::Balancer => "balancer",
            Topic::Holding => "holding",
            Topic::Draining => "draining",
            Topic::Zones => "zones",
            Topic::TopChunk => "topChunk",
            Topic::Round => "round",
            Topic::Landing => "landing",
        }
    }
}

/// The sentences an explanation can be made of, each a message of the page's text
/// catalogue (`static/i18n/en.json` holds each id with the same English text, which
/// `tests/it/i18n_catalogues.rs` checks): its id and its English text with `{name}`
/// placeholders. The engine says which message with which values ([`Message`]); a page
/// words it in its reader's language, and `sim.explain` prints the English.
pub const MESSAGES: &[(&str, &str)] = &[
    (
        "explain.landing.hashed",
        "Its {field} {value} hashes to {hash} (convertShardKeyToHashed: the first 8 bytes of an MD5 of the value, read as a signed 64-bit integer). A hashed key's chunks are ranges of hashes, and {range} (min included, max excluded) holds that hash, on {shard}, so mongos routes the document to {shard}.",
    ),
    (
        "explain.landing.range",
        "Its shard key value {key} falls in the chunk {range} (min included, max excluded), which lives on {shard}, so mongos routes the document to {shard}.",
    ),
    (
        "explain.landing.missing",
        " A missing shard key field ({fields}) counts as null.",
    ),
    ("explain.count.chunk", "1 chunk"),
    ("explain.count.chunks", "{n} chunks"),
    ("explain.count.document", "1 document"),
    ("explain.count.documents", "{n} documents"),
    ("explain.jumbo.one_value", "Jumbo chunk: it grew past the maximum chunk size ({bytes} > {max}) and all of its {docs} documents share one shard key value, so autoSplitVector finds no split point. The balancer does not move a jumbo chunk (except off a draining shard) until clearJumboFlag clears the flag."),
    ("explain.jumbo.flag_stays", "Jumbo chunk: it was marked when it was over the maximum chunk size ({max}) with a single shard key value. It now holds more than one value, but the flag stays until a split or clearJumboFlag; the balancer does not move it meanwhile."),
    ("explain.split.never", "MongoDB 6.0.3 and later never split a chunk as it grows: this one holds {bytes} against a range size of {max}, and stays whole until the balancer cuts about one range size off it to move it."),
    ("explain.split.disabled", "Auto-splitting is turned off (sh.disableAutoSplit()), so this chunk ({bytes}) is not split however large it grows."),
    ("explain.split.check_points", "When it is checked, autoSplitVector will cut it at {points} point(s)."),
    ("explain.split.check_one_value", "Even then it has no split point: all {docs} documents share one shard key value."),
    ("explain.split.check_one_value_jumbo", "Even then it has no split point: all {docs} documents share one shard key value, so the check will mark it jumbo."),
    ("explain.split.check_small_shard", "Even then autoSplitVector cuts nothing while the collection's data on {shard} ({bytes}) is under the maximum chunk size ({max})."),
    ("explain.split.check_too_few", "Even then autoSplitVector finds no split point: it cuts every (maximum chunk size / average document size on the shard) documents, and this chunk's {docs} documents do not reach that."),
    ("explain.split.one_value", "No split point: all {docs} documents share one shard key value, and a chunk is only ever cut between different values, so autoSplitVector returns nothing."),
    ("explain.split.one_value_jumbo", "No split point: all {docs} documents share one shard key value, and a chunk is only ever cut between different values, so autoSplitVector returns nothing; it is over the maximum chunk size ({bytes} > {max}), so the splitter's next check (after {next} more written) marks it jumbo."),
    ("explain.split.threshold", "Not split yet: 5.0's splitter looks at a chunk only after a fifth of the maximum chunk size ({threshold}) has been written to it since it was created, moved or last checked; {written} has been written since, so the next check comes after {next} more. {check}"),
    ("explain.split.due", "The splitter's check is due. {check}"),
    ("explain.balancer.stopped", "The balancer is stopped (sh.stopBalancer()), so no chunk moves unless you move it."),
    ("explain.balancer.disabled", "Balancing is disabled for {ns} (sh.disableBalancing), so its chunks stay where they are."),
    ("explain.balancer.moves_it", "The next balancer round moves this chunk to {to}. {why}"),
    ("explain.balancer.skips_jumbo", "The balancer skips jumbo chunks: it moves a jumbo chunk only off a draining shard."),
    ("explain.balancer.zone_not_reached", "The next balancer round does not reach this chunk's zone."),
    ("explain.balancer.moves_another", "{why} The balancer moves the donor's first movable chunk, {range}, not this one."),
    ("explain.balancer.stays", "{why} So this chunk stays on {shard}."),
    ("explain.whose.zone", "zone {zone}'s chunks over its {shards} shard(s)"),
    ("explain.whose.no_zone", "the chunks in no zone"),
    ("explain.load", "{shard} ({load})"),
    ("explain.load.none", "none"),
    ("explain.ideal.ceil", "ceil({total} chunks / {shards} shards) = {ideal}"),
    ("explain.ideal.round", "round({total} chunks / {shards} shards) = {ideal}"),
    ("explain.ideal.size", "{total} / {shards} shards = {ideal}"),
    ("explain.unit.size", "data size"),
    ("explain.unit.count", "chunk counts"),
    ("explain.decision.move", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard, {donor}, is above it and the least loaded, {recipient}, below, so a chunk moves."),
    ("explain.decision.move_size", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard, {donor}, is above it and the least loaded, {recipient}, below, and they differ by at least {factor} × the range size ({threshold}), so a chunk moves."),
    ("explain.decision.no_shards", "No shard is in the zone of {whose}, so nothing can balance them."),
    ("explain.decision.no_data", "The collection holds no data yet, so the data-size balancer has nothing to move."),
    ("explain.decision.no_donor", "Every shard already takes part in a migration this round (each shard joins at most one per round)."),
    ("explain.decision.no_recipient", "No shard can receive a chunk: every candidate is busy this round, draining, or outside the zone."),
    ("explain.decision.same_shard", "The {version} balancer compares {unit} of {whose}: the most loaded shard, {donor}, is also the least loaded that may receive, so nothing moves."),
    ("explain.decision.balanced", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}, and the most loaded shard, {donor}, is not above it, so the collection counts as balanced."),
    ("explain.decision.recipient_not_below", "The {version} balancer compares {unit} of {whose}: the ideal is {ideal}; the most loaded shard is {donor}, but the least loaded that may receive, {recipient}, is not below the ideal, so nothing moves."),
    ("explain.decision.size_gap_small", "The 8.0 balancer compares data size, not chunk counts: {donor} and {recipient} differ by {gap}, under {factor} × the range size ({threshold}), so nothing moves."),
    ("explain.decision.excess_small", "The 3.6 balancer compares chunk counts of {whose}: the ideal is {ideal}, and the most loaded shard, {donor}, is only {excess} over it; 3.6 moves a chunk when the excess reaches {threshold} (1 under 20 chunks, 2 from 20 on)."),
    ("explain.decision.all_jumbo", "The most loaded shard, {donor}, should give a chunk, but all its chunks of {whose} are jumbo, and the balancer skips jumbo chunks."),
    ("explain.drain.moves", "{shard} is draining (removeShard): the balancer empties it first, one chunk per round, non-jumbo chunks first, to the least loaded shard; {range} goes to {to} ({chunks} chunk(s) were left on it)."),
    ("explain.drain.stuck", "{shard} is draining (removeShard), but no shard can take its chunks this round."),
    ("explain.zone_violation.moves", "{range} lies in zone {zone}'s range but sits on {shard}, which is not in the zone: the balancer moves it to {to}, a shard of the zone, before any other balancing."),
    ("explain.zone_violation.stuck", "A chunk of zone {zone} sits on {shard}, outside the zone, but could not move this round."),
    ("explain.round.stopped", "The balancer is stopped (sh.stopBalancer()): rounds do not run."),
    ("explain.round.disabled", "Balancing is disabled for {ns}."),
    ("explain.holding", "{shard} holds {chunks} of {total} ({docs}, {bytes}). {why}"),
    ("explain.holding.never_split", " In 6.0.3+ chunks never split on insert, and one range may grow to {max} before the balancer cuts it: a sharded collection can sit whole on one shard."),
    ("explain.holding.still", "{shard} holds {chunks} of {total} ({docs}). {why}"),
    ("explain.holding.balancer_stopped", "The balancer is stopped, so chunks stay where splits and manual moves put them."),
    ("explain.holding.balancing_disabled", "Balancing is disabled for the collection, so chunks stay where splits and manual moves put them."),
    ("explain.draining", "removeShard started draining {shard}: each round the balancer first moves one of its chunks (non-jumbo first) to the least loaded shard that may take it; {chunks} chunk(s) remain, {jumbo} of them jumbo, and it leaves the cluster once it holds none."),
    ("explain.zones.none", "{shard} is in no zone: a chunk inside a zone's range may live only on that zone's shards, so {shard} holds only chunks outside every zone range (the balancer moves the others away first)."),
    ("explain.zones.some", "{shard} is in zone(s) {zones}: chunks inside those zones' ranges may live only on their shards, and each zone is balanced over its own shards; {count} of its chunks lie in a zone range."),
    ("explain.top_chunk", "{shard} received {moves} single-document top (or bottom) chunk(s): when 5.0 splits the chunk at either end of an ordered key, it cuts at the extreme key, so the new end chunk holds one document, and moves that chunk to the least loaded shard (the top-chunk optimisation). That is how a shard ends up holding a chunk with one document."),
];

/// One sentence of an explanation as a message of [`MESSAGES`]: its id and the values of
/// its placeholders, as mongosh prints them.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message's id, a key of the page's catalogue.
    pub id: &'static str,
    /// Each placeholder's value.
    pub args: Vec<(&'static str, Arg)>,
}

/// A placeholder's value: a text as mongosh prints it (a figure, a bound, a shard's
/// name), or a message of its own (a phrase a language words, such as "3 chunks").
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A text no language changes.
    Text(String),
    /// A phrase worded in the reader's language.
    Message(Message),
}

impl From<String> for Arg {
    fn from(text: String) -> Arg {
        Arg::Text(text)
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Arg {
        Arg::Text(text.to_string())
    }
}

impl From<u64> for Arg {
    fn from(v: u64) -> Arg {
        Arg::Text(v.to_string())
    }
}

impl From<Message> for Arg {
    fn from(m: Message) -> Arg {
        Arg::Message(m)
    }
}

/// A [`Message`] of [`MESSAGES`]: `msg!(<id>, docs = 3u64, shard = name)`.
macro_rules! msg {
    ($id:literal $(, $name:ident = $value:expr)* $(,)?) => {
        Message::new($id, vec![$((stringify!($name), Arg::from($value))),*])
    };
}

impl Message {
    fn new(id: &'static str, args: Vec<(&'static str, Arg)>) -> Message {
        Message { id, args }
    }

    /// The message's English template (empty for an id [`MESSAGES`] lacks, which a test
    /// rules out).
    fn template(&self) -> &'static str {
        MESSAGES
            .iter()
            .find(|(id, _)| *id == self.id)
            .map_or("", |(_, text)| *text)
    }

    /// The message in English: its text with the placeholders filled.
    pub fn english(&self) -> String {
        let mut out = String::with_capacity(self.template().len() + 64);
        self.write_english(&mut out);
        out
    }

    fn write_english(&self, out: &mut String) {
        // One pass, so that a value holding braces is never read as a placeholder.
        let mut rest = self.template();
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let named = after.find('}').and_then(|close| {
                let value = self.args.iter().find(|(n, _)| *n == &after[..close])?;
                Some((&value.1, close))
            });
            match named {
                Some((value, close)) => {
                    match value {
                        Arg::Text(text) => out.push_str(text),
                        Arg::Message(m) => m.write_english(out),
                    }
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
    }
}

/// One answer to "why": the MongoDB rule at work, a sentence in plain language naming it,
/// and the figures the sentence uses, read from the engine's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    /// What it explains.
    pub topic: Topic,
    /// The rule's short name, e.g. `"split-check threshold"` or `"data-size balancing"`.
    pub rule: &'static str,
    /// One or two sentences saying why, naming the rule.
    pub sentence: String,
    /// The figures, in the order worth showing: sizes in bytes and counts as integers,
    /// bounds as documents, shards by name.
    pub facts: Vec<(&'static str, Bson)>,
    /// The sentence as messages of [`MESSAGES`], one after another.
    pub messages: Vec<Message>,
}

impl Explanation {
    /// An explanation whose sentence is `message`, in English.
    fn new(topic: Topic, rule: &'static str, message: Message) -> Explanation {
        Explanation::of_messages(topic, rule, vec![message])
    }

    /// An explanation whose sentence is `messages`, in English.
    fn of_messages(topic: Topic, rule: &'static str, messages: Vec<Message>) -> Explanation {
        let sentence = messages.iter().map(Message::english).collect();
        Explanation {
            topic,
            rule,
            sentence,
            facts: Vec::new(),
            messages,
        }
    }

    fn fact(mut self, name: &'static str, value: impl Into<Bson>) -> Explanation {
        self.facts.push((name, value.into()));
        self
    }

    /// The figure named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Bson> {
        self.facts.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// The figure named `name` as an integer, if it is one.
    pub fn number(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Bson::Int32(v) => Some(i64::from(*v)),
            Bson::Int64(v) => Some(*v),
            _ => None,
        }
    }

    /// The explanation as `sim.explain` prints it: `{topic, rule, why, facts}`.
    pub fn to_document(&self) -> Document {
        let facts: Document = self
            .facts
            .iter()
            .map(|(n, v)| ((*n).to_string(), v.clone()))
            .collect();
        bson::doc! {
            "topic": self.topic.name(),
            "rule": self.rule,
            "why": self.sentence.clone(),
            "facts": facts,
        }
    }
}

/// Where a document lands (spec §3, §5): its shard key value, for a hashed key the hash,
/// the chunk `[min, max)` holding that value, the chunk's shard, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Landing {
    /// The document's shard key value (the hashed field holds the hash).
    pub key: KeyValue,
    /// For a hashed key, the hashed field's name, its value in the document and the hash
    /// (`convertShardKeyToHashed`).
    pub hashed: Option<(String, Bson, i64)>,
    /// The chunk's lower bound (inclusive).
    pub chunk_min: KeyValue,
    /// The chunk's upper bound (exclusive).
    pub chunk_max: KeyValue,
    /// The chunk's shard.
    pub shard: ShardIdx,
    /// The sentence saying why, with its facts.
    pub explanation: Explanation,
}

/// A count as a BSON integer: an int32 when it fits (printed as a plain number), else an
/// int64.
fn n(v: u64) -> Bson {
    match i32::try_from(v) {
        Ok(small) => Bson::Int32(small),
        Err(_) => Bson::Int64(i64::try_from(v).unwrap_or(i64::MAX)),
    }
}

/// Bytes as mongosh prints sizes (`51.76KiB`).
fn size(bytes: u64) -> String {
    data_format(bytes as f64)
}

/// A bound as a document, for the facts.
fn bound(s: &Sharding, key: &KeyValue) -> Bson {
    Bson::Document(s.pattern.to_document(key))
}

impl BalancePolicy {
    /// The rule's short name.
    pub fn rule(self) -> &'static str {
        match self {
            BalancePolicy::ChunkCountCeil => "3.6 chunk-count balancing",
            BalancePolicy::ChunkCountRound => "5.0 chunk-count balancing",
            BalancePolicy::DataSize => "8.0 data-size balancing",
        }
    }

    /// A load in the policy's unit.
    fn load(self, v: u64) -> Arg {
        if self.by_size() {
            Arg::Text(size(v))
        } else {
            Arg::Message(chunk_count(v))
        }
    }

    /// How the policy's ideal is computed, in words.
    fn ideal_text(self, d: &ZoneDecision) -> Message {
        let (total, shards) = (d.total, d.shards);
        match self {
            BalancePolicy::ChunkCountCeil => {
                msg!(
                    "explain.ideal.ceil",
                    total = total,
                    shards = shards,
                    ideal = d.ideal
                )
            }
            BalancePolicy::ChunkCountRound => {
                msg!(
                    "explain.ideal.round",
                    total = total,
                    shards = shards,
                    ideal = d.ideal
                )
            }
            BalancePolicy::DataSize => msg!(
                "explain.ideal.size",
                total = size(total),
                shards = shards,
                ideal = size(d.ideal)
            ),
        }
    }
}

impl Cluster {
    /// The chunk of `ns` containing `key` (a key value in key space: a hashed field's
    /// value is the hash), with the collection's sharding.
    pub(super) fn chunk_at(
        &self,
        ns: &str,
        key: &KeyValue,
    ) -> Result<(&Sharding, Chunk), ClusterError> {
        let s = self.sharding(ns)?;
        if key.0.len() != s.pattern.len() {
            return Err(ClusterError::BadValue(format!(
                "a chunk of {ns} is named by a shard key value of {} field(s), got {}",
                s.pattern.len(),
                key.0.len()
            )));
        }
        let chunk = s
            .table
            .chunk_for(key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        Ok((s, chunk))
    }

    /// Why the chunk of `ns` containing `key` is as it is: whether and when it splits (or
    /// why it is jumbo), then what the balancer does with it.
    pub fn explain_chunk(
        &self,
        ns: &str,
        key: &KeyValue,
    ) -> Result<Vec<Explanation>, ClusterError> {
        let (s, chunk) = self.chunk_at(ns, key)?;
        let mut out = vec![self.explain_split(ns, s, &chunk)];
        out.push(self.explain_chunk_balancing(ns, s, &chunk)?);
        Ok(out)
    }

    /// The split side of [`Cluster::explain_chunk`].
    fn explain_split(&self, ns: &str, s: &Sharding, chunk: &Chunk) -> Explanation {
        let max_size = self.chunk_size_for(ns);
        let (shard_docs, shard_bytes) = s.table.shard_totals(chunk.shard);
        let single = self
            .collections
            .get(ns)
            .is_some_and(|c| c.single_key_in(&chunk.min, &chunk.max));
        let base = |e: Explanation| {
            e.fact("min", bound(s, &chunk.min))
                .fact("max", bound(s, &chunk.max))
                .fact("shard", self.shard_name(chunk.shard))
                .fact("docs", n(chunk.docs))
                .fact("bytes", n(chunk.bytes))
                .fact("maxChunkSizeBytes", n(max_size))
        };
        if chunk.jumbo {
            let message = if single {
                msg!(
                    "explain.jumbo.one_value",
                    bytes = size(chunk.bytes),
                    max = size(max_size),
                    docs = chunk.docs
                )
            } else {
                msg!("explain.jumbo.flag_stays", max = size(max_size))
            };
            return base(Explanation::new(Topic::Jumbo, "jumbo chunk", message))
                .fact("oneKeyValue", single);
        }
        if !self.autosplit_enabled {
            let (rule, message) = if self.version() == VersionMode::V80 {
                (
                    "no auto-split (6.0.3+)",
                    msg!(
                        "explain.split.never",
                        bytes = size(chunk.bytes),
                        max = size(max_size)
                    ),
                )
            } else {
                (
                    "auto-split disabled",
                    msg!("explain.split.disabled", bytes = size(chunk.bytes)),
                )
            };
            return base(Explanation::new(Topic::Split, rule, message));
        }
        // What the splitter would find if it looked now: autoSplitVector's own answer.
        let input = SplitInput {
            shard_docs,
            shard_bytes,
            max_size,
        };
        let points = self.collections.get(ns).map_or(0, |c| {
            let keys = crate::engine::store::range(&c.docs, &chunk.min, &chunk.max).slices();
            auto_split_vector(&keys, input, None).len()
        });
        let threshold = max_size / SPLIT_TEST_FACTOR;
        let over = chunk.bytes > max_size;
        let check = if points > 0 {
            msg!("explain.split.check_points", points = points as u64)
        } else if single && chunk.docs > 0 {
            if over {
                msg!("explain.split.check_one_value_jumbo", docs = chunk.docs)
            } else {
                msg!("explain.split.check_one_value", docs = chunk.docs)
            }
        } else if shard_bytes < max_size {
            msg!(
                "explain.split.check_small_shard",
                shard = self.shard_name(chunk.shard),
                bytes = size(shard_bytes),
                max = size(max_size)
            )
        } else {
            msg!("explain.split.check_too_few", docs = chunk.docs)
        };
        let next_check = threshold.saturating_sub(chunk.written);
        let (rule, message) = if single && chunk.docs > 1 {
            let message = if over {
                msg!(
                    "explain.split.one_value_jumbo",
                    docs = chunk.docs,
                    bytes = size(chunk.bytes),
                    max = size(max_size),
                    next = size(next_check)
                )
            } else {
                msg!("explain.split.one_value", docs = chunk.docs)
            };
            ("no split point (one key value)", message)
        } else if chunk.written < threshold {
            (
                "split-check threshold",
                msg!(
                    "explain.split.threshold",
                    threshold = size(threshold),
                    written = size(chunk.written),
                    next = size(next_check),
                    check = check
                ),
            )
        } else if points > 0 {
            ("autoSplitVector", msg!("explain.split.due", check = check))
        } else {
            ("autoSplitVector", check)
        };
        let avg = shard_bytes.checked_div(shard_docs).unwrap_or(0);
        base(Explanation::new(Topic::Split, rule, message))
            .fact("writtenSinceCheck", n(chunk.written))
            .fact("splitCheckThreshold", n(threshold))
            .fact("shardDataBytes", n(shard_bytes))
            .fact("avgDocSizeOnShard", n(avg))
            .fact("oneKeyValue", single)
            .fact("splitPointsNow", n(points as u64))
    }

    /// The balancer side of [`Cluster::explain_chunk`].
    fn explain_chunk_balancing(
        &self,
        ns: &str,
        s: &Sharding,
        chunk: &Chunk,
    ) -> Result<Explanation, ClusterError> {
        let here = self.shard_name(chunk.shard).to_string();
        let zone = Cluster::zone_of(&s.zones, chunk);
        let with_facts = |e: Explanation| {
            e.fact("shard", here.as_str())
                .fact("zone", zone.clone().map_or(Bson::Null, Bson::String))
        };
        if !self.balancer_enabled {
            return Ok(with_facts(Explanation::new(
                Topic::Balancer,
                "balancer stopped",
                msg!("explain.balancer.stopped"),
            )));
        }
        if !s.balancing {
            return Ok(with_facts(Explanation::new(
                Topic::Balancer,
                "balancing disabled",
                msg!("explain.balancer.disabled", ns = ns),
            )));
        }
        let plan = self.balancer_round_plan(ns)?;
        let moved = plan.iter().find_map(|step| match step {
            RoundStep::Drain { migration, .. } | RoundStep::ZoneViolation { migration, .. } => {
                migration
                    .as_ref()
                    .filter(|m| m.min == chunk.min)
                    .map(|m| (step, m.to))
            }
            RoundStep::Zone(d) => match &d.outcome {
                ZoneOutcome::Move { chunk: c } if c.min == chunk.min => {
                    d.recipient.map(|(to, _)| (step, to))
                }
                _ => None,
            },
        });
        if let Some((step, to)) = moved {
            let (rule, why) = self.round_step_text(ns, step);
            return Ok(with_facts(Explanation::new(
                Topic::Balancer,
                rule,
                msg!(
                    "explain.balancer.moves_it",
                    to = self.shard_name(to),
                    why = why
                ),
            ))
            .fact("to", self.shard_name(to)));
        }
        if chunk.jumbo && !self.shards[chunk.shard as usize].draining {
            return Ok(with_facts(Explanation::new(
                Topic::Balancer,
                "jumbo chunk",
                msg!("explain.balancer.skips_jumbo"),
            )));
        }
        // The decision that ended the balancing of this chunk's zone.
        let decision = plan.iter().rev().find_map(|step| match step {
            RoundStep::Zone(d) if d.zone == zone => Some(d),
            _ => None,
        });
        let Some(d) = decision else {
            return Ok(with_facts(Explanation::new(
                Topic::Balancer,
                "balancer round",
                msg!("explain.balancer.zone_not_reached"),
            )));
        };
        let (rule, why) = self.decision_text(d);
        let message = match &d.outcome {
            ZoneOutcome::Move { chunk: c } => msg!(
                "explain.balancer.moves_another",
                why = why,
                range = crate::engine::split::format_range(
                    &s.bound_string(&c.min),
                    &s.bound_string(&c.max)
                )
            ),
            _ => msg!("explain.balancer.stays", why = why, shard = here.as_str()),
        };
        Ok(with_facts(self.decision_facts(
            Explanation::new(Topic::Balancer, rule, message),
            d,
        )))
    }

    /// The rule and sentence of one zone decision.
    fn decision_text(&self, d: &ZoneDecision) -> (&'static str, Message) {
        let p = d.policy;
        let whose = || match &d.zone {
            Some(z) => msg!("explain.whose.zone", zone = z.as_str(), shards = d.shards),
            None => msg!("explain.whose.no_zone"),
        };
        let name = |s: Option<(ShardIdx, u64)>| match s {
            Some((i, l)) => msg!("explain.load", shard = self.shard_name(i), load = p.load(l)),
            None => msg!("explain.load.none"),
        };
        let unit = || {
            if p.by_size() {
                msg!("explain.unit.size")
            } else {
                msg!("explain.unit.count")
            }
        };
        let version = self.version().label();
        let factor = crate::engine::balancer::MIGRATION_SIZE_FACTOR;
        let text = match &d.outcome {
            ZoneOutcome::Move { .. } if p == BalancePolicy::DataSize => msg!(
                "explain.decision.move_size",
                version = version,
                unit = unit(),
                whose = whose(),
                ideal = p.ideal_text(d),
                donor = name(d.donor),
                recipient = name(d.recipient),
                factor = factor.to_string(),
                threshold = size(d.threshold)
            ),
            ZoneOutcome::Move { .. } => msg!(
                "explain.decision.move",
                version = version,
                unit = unit(),
                whose = whose(),
                ideal = p.ideal_text(d),
                donor = name(d.donor),
                recipient = name(d.recipient)
            ),
            ZoneOutcome::NoShards => msg!("explain.decision.no_shards", whose = whose()),
            ZoneOutcome::NoData => msg!("explain.decision.no_data"),
            ZoneOutcome::NoDonor => msg!("explain.decision.no_donor"),
            ZoneOutcome::NoRecipient => msg!("explain.decision.no_recipient"),
            ZoneOutcome::SameShard => msg!(
                "explain.decision.same_shard",
                version = version,
                unit = unit(),
                whose = whose(),
                donor = name(d.donor)
            ),
            ZoneOutcome::DonorNotAboveIdeal => msg!(
                "explain.decision.balanced",
                version = version,
                unit = unit(),
                whose = whose(),
                ideal = p.ideal_text(d),
                donor = name(d.donor)
            ),
            ZoneOutcome::RecipientNotBelowIdeal => msg!(
                "explain.decision.recipient_not_below",
                version = version,
                unit = unit(),
                whose = whose(),
                ideal = p.ideal_text(d),
                donor = name(d.donor),
                recipient = name(d.recipient)
            ),
            ZoneOutcome::BelowThreshold => {
                self.below_threshold(d, name(d.donor), name(d.recipient), whose())
            }
            ZoneOutcome::NoMovableChunk => msg!(
                "explain.decision.all_jumbo",
                donor = name(d.donor),
                whose = whose()
            ),
        };
        (p.rule(), text)
    }

    /// The sentence of a decision whose gap is under the policy's threshold.
    fn below_threshold(
        &self,
        d: &ZoneDecision,
        donor: Message,
        recipient: Message,
        whose: Message,
    ) -> Message {
        let load = |s: Option<(ShardIdx, u64)>| s.map_or(0, |x| x.1);
        match d.policy {
            BalancePolicy::DataSize => msg!(
                "explain.decision.size_gap_small",
                donor = donor,
                recipient = recipient,
                gap = size(load(d.donor).saturating_sub(load(d.recipient))),
                factor = crate::engine::balancer::MIGRATION_SIZE_FACTOR.to_string(),
                threshold = size(d.threshold)
            ),
            _ => msg!(
                "explain.decision.excess_small",
                whose = whose,
                ideal = d.policy.ideal_text(d),
                donor = donor,
                excess = load(d.donor).saturating_sub(d.ideal),
                threshold = d.threshold
            ),
        }
    }

    /// A decision's figures.
    fn decision_facts(&self, e: Explanation, d: &ZoneDecision) -> Explanation {
        let loads: Document = self
            .shards()
            .filter(|(_, s)| !s.removed)
            .map(|(i, s)| {
                (
                    s.name.clone(),
                    n(d.loads.get(i as usize).copied().unwrap_or(0)),
                )
            })
            .collect();
        let shard = |s: Option<(ShardIdx, u64)>| {
            s.map_or(Bson::Null, |(i, _)| {
                Bson::String(self.shard_name(i).to_string())
            })
        };
        e.fact("policy", d.policy.rule())
            .fact(
                "unit",
                if d.policy.by_size() {
                    "bytes"
                } else {
                    "chunks"
                },
            )
            .fact("loads", loads)
            .fact("ideal", n(d.ideal))
            .fact("threshold", n(d.threshold))
            .fact("donor", shard(d.donor))
            .fact("recipient", shard(d.recipient))
    }

    /// The rule and sentence of one round step.
    fn round_step_text(&self, ns: &str, step: &RoundStep) -> (&'static str, Message) {
        let range = |m: &crate::engine::balancer::Migration| {
            self.sharding(ns).map_or(String::new(), |s| {
                crate::engine::split::format_range(&s.bound_string(&m.min), &s.bound_string(&m.max))
            })
        };
        match step {
            RoundStep::Drain {
                from,
                chunks,
                migration,
            } => (
                "draining",
                match migration {
                    Some(m) => msg!(
                        "explain.drain.moves",
                        shard = self.shard_name(*from),
                        range = range(m),
                        to = self.shard_name(m.to),
                        chunks = *chunks
                    ),
                    None => msg!("explain.drain.stuck", shard = self.shard_name(*from)),
                },
            ),
            RoundStep::ZoneViolation {
                from,
                zone,
                migration,
            } => (
                "zones",
                match migration {
                    Some(m) => msg!(
                        "explain.zone_violation.moves",
                        range = range(m),
                        zone = zone.as_str(),
                        shard = self.shard_name(*from),
                        to = self.shard_name(m.to)
                    ),
                    None => msg!(
                        "explain.zone_violation.stuck",
                        zone = zone.as_str(),
                        shard = self.shard_name(*from)
                    ),
                },
            ),
            RoundStep::Zone(d) => self.decision_text(d),
        }
    }

    /// What one balancer round would do now, step by step, for `ns` (or for every
    /// collection whose balancing is on), each step with its rule: a round with nothing to
    /// do still explains why.
    pub fn explain_round(&self, ns: Option<&str>) -> Result<Vec<Explanation>, ClusterError> {
        let namespaces: Vec<String> = match ns {
            Some(ns) => {
                self.sharding(ns)?;
                vec![ns.to_string()]
            }
            None => self
                .collections
                .iter()
                .filter(|(_, c)| c.sharding.as_ref().is_some_and(|s| s.balancing))
                .map(|(ns, _)| ns.clone())
                .collect(),
        };
        if !self.balancer_enabled {
            return Ok(vec![Explanation::new(
                Topic::Round,
                "balancer stopped",
                msg!("explain.round.stopped"),
            )]);
        }
        let mut out = Vec::new();
        for ns in namespaces {
            if self.sharding(&ns).is_ok_and(|s| !s.balancing) {
                out.push(
                    Explanation::new(
                        Topic::Round,
                        "balancing disabled",
                        msg!("explain.round.disabled", ns = ns.as_str()),
                    )
                    .fact("ns", ns.as_str()),
                );
                continue;
            }
            for step in self.balancer_round_plan(&ns)? {
                let (rule, message) = self.round_step_text(&ns, &step);
                let mut e = Explanation::new(Topic::Round, rule, message).fact("ns", ns.as_str());
                match &step {
                    RoundStep::Zone(d) => {
                        e = self.decision_facts(e, d);
                        if let (ZoneOutcome::Move { chunk }, Ok(s)) =
                            (&d.outcome, self.sharding(&ns))
                        {
                            e = e.fact("moves", bound(s, &chunk.min));
                        }
                    }
                    RoundStep::Drain { migration, .. }
                    | RoundStep::ZoneViolation { migration, .. } => {
                        if let (Some(m), Ok(s)) = (migration, self.sharding(&ns)) {
                            e = e
                                .fact("moves", bound(s, &m.min))
                                .fact("from", self.shard_name(m.from))
                                .fact("to", self.shard_name(m.to));
                        }
                    }
                }
                out.push(e);
            }
        }
        Ok(out)
    }

    /// Why shard `shard` holds what it holds of `ns`: the balancing policy's view of it,
    /// then draining, zones and 5.0's top-chunk moves where they apply.
    pub fn explain_shard(&self, ns: &str, shard: &str) -> Result<Vec<Explanation>, ClusterError> {
        let s = self.sharding(ns)?;
        let idx = self
            .shard_index(shard)
            .map_err(|_| ClusterError::ShardNotFound(format!("shard {shard} does not exist")))?;
        let sh = &self.shards[idx as usize];
        let (docs, bytes) = s.table.shard_totals(idx);
        let (mut chunks, mut jumbo, mut total_docs) = (0u64, 0u64, 0u64);
        for c in s.table.iter() {
            total_docs += c.docs;
            if c.shard == idx {
                chunks += 1;
                jumbo += u64::from(c.jumbo);
            }
        }
        let holding = |e: Explanation| {
            e.fact("shard", shard)
                .fact("chunks", n(chunks))
                .fact("docs", n(docs))
                .fact("bytes", n(bytes))
                .fact("jumboChunks", n(jumbo))
                .fact("collectionDocs", n(total_docs))
                .fact("collectionChunks", n(s.table.len() as u64))
        };
        let mut out = Vec::new();
        // The policy's view: the last decision for the chunks in no zone (or a zone of
        // the shard's) in the round the balancer would run now.
        let plan = if self.balancer_enabled && s.balancing {
            self.balancer_round_plan(ns)?
        } else {
            Vec::new()
        };
        let decision = plan.iter().rev().find_map(|step| match step {
            RoundStep::Zone(d) if d.zone.as_deref().is_none_or(|z| sh.zones.contains(z)) => Some(d),
            _ => None,
        });
        let total = chunk_count(s.table.len() as u64);
        match decision {
            Some(d) => {
                let (rule, why) = self.decision_text(d);
                let mut messages = vec![msg!(
                    "explain.holding",
                    shard = shard,
                    chunks = chunks,
                    total = total,
                    docs = doc_count(docs),
                    bytes = size(bytes),
                    why = why
                )];
                if d.policy == BalancePolicy::DataSize && !self.autosplit_enabled {
                    messages.push(msg!(
                        "explain.holding.never_split",
                        max = size(self.chunk_size_for(ns))
                    ));
                }
                out.push(self.decision_facts(
                    holding(Explanation::of_messages(Topic::Holding, rule, messages)),
                    d,
                ));
            }
            None => {
                let why = if !self.balancer_enabled {
                    msg!("explain.holding.balancer_stopped")
                } else {
                    msg!("explain.holding.balancing_disabled")
                };
                out.push(holding(Explanation::new(
                    Topic::Holding,
                    "balancer stopped",
                    msg!(
                        "explain.holding.still",
                        shard = shard,
                        chunks = chunks,
                        total = total,
                        docs = doc_count(docs),
                        why = why
                    ),
                )));
            }
        }
        if sh.draining {
            out.push(
                Explanation::new(
                    Topic::Draining,
                    "draining",
                    msg!(
                        "explain.draining",
                        shard = shard,
                        chunks = chunks,
                        jumbo = jumbo
                    ),
                )
                .fact("shard", shard)
                .fact("chunks", n(chunks))
                .fact("jumboChunks", n(jumbo)),
            );
        }
        if !s.zones.is_empty() || !sh.zones.is_empty() {
            let zones: Vec<Bson> = sh.zones.iter().map(|z| Bson::String(z.clone())).collect();
            let in_zones = s
                .table
                .iter()
                .filter(|c| c.shard == idx && Cluster::zone_of(&s.zones, c).is_some())
                .count() as u64;
            let message = if sh.zones.is_empty() {
                msg!("explain.zones.none", shard = shard)
            } else {
                msg!(
                    "explain.zones.some",
                    shard = shard,
                    zones = sh.zones.iter().cloned().collect::<Vec<_>>().join(", "),
                    count = in_zones
                )
            };
            out.push(
                Explanation::new(Topic::Zones, "zones", message)
                    .fact("shard", shard)
                    .fact("zones", zones)
                    .fact("chunksInZoneRanges", n(in_zones)),
            );
        }
        let moves = self.top_chunk_moves(ns, shard);
        if moves > 0 {
            out.push(
                Explanation::new(
                    Topic::TopChunk,
                    "top-chunk move",
                    msg!("explain.top_chunk", shard = shard, moves = moves),
                )
                .fact("shard", shard)
                .fact("topChunkMoves", n(moves)),
            );
        }
        Ok(out)
    }

    /// How many of the moves into `shard` recorded in the event log were 5.0's top-chunk
    /// moves: a move of a chunk ending at the global maximum (or starting at the global
    /// minimum) right after the split that created it.
    fn top_chunk_moves(&self, ns: &str, shard: &str) -> u64 {
        let Ok(s) = self.sharding(ns) else { return 0 };
        let (gmin, gmax) = (s.pattern.global_min(), s.pattern.global_max());
        let mut last_split: Option<(&KeyValue, &KeyValue, Option<&KeyValue>)> = None;
        let mut count = 0;
        for e in self.events().iter() {
            match &e.kind {
                EventKind::Split {
                    ns: n,
                    min,
                    max,
                    points,
                } if n == ns => last_split = Some((min, max, points.last())),
                EventKind::MoveChunkStart { .. } | EventKind::Jumbo { .. } => {}
                EventKind::MoveChunkCommit {
                    ns: n,
                    min,
                    max,
                    to,
                    ..
                } if n == ns => {
                    let top = *max == gmax
                        && last_split.is_some_and(|(_, m, p)| *m == gmax && p == Some(min));
                    let bottom = *min == gmin
                        && last_split.is_some_and(|(m, _, p)| *m == gmin && p == Some(max));
                    if to == shard && (top || bottom) {
                        count += 1;
                    }
                    last_split = None;
                }
                _ => last_split = None,
            }
        }
        count
    }

    /// Where `doc` would land in `ns` (spec §3, §5): its shard key value (for a hashed key
    /// its hash, `convertShardKeyToHashed`), the chunk `[min, max)` holding the value, and
    /// that chunk's shard, with a sentence saying why.
    pub fn explain_document(&self, ns: &str, doc: &Document) -> Result<Landing, ClusterError> {
        let s = self.sharding(ns)?;
        let key = s.pattern.extract(doc)?;
        let chunk = s
            .table
            .chunk_for(&key)
            .cloned()
            .ok_or_else(|| not_sharded(ns))?;
        if key >= chunk.max {
            return Err(untargetable_key(ns, &s.pattern, &key));
        }
        let hashed = s.pattern.hashed_index().and_then(|i| {
            let (name, _) = s.pattern.fields().get(i)?;
            let value = crate::values::path::lookup_path(doc, name)
                .cloned()
                .unwrap_or(Bson::Null);
            match key.0.get(i) {
                Some(Bson::Int64(h)) => Some((name.clone(), value, *h)),
                _ => None,
            }
        });
        let missing: Vec<&str> = s
            .pattern
            .fields()
            .iter()
            .filter(|(name, _)| crate::values::path::lookup_path(doc, name).is_none())
            .map(|(name, _)| name.as_str())
            .collect();
        let range = crate::engine::split::format_range(
            &s.bound_string(&chunk.min),
            &s.bound_string(&chunk.max),
        );
        let shard = self.shard_name(chunk.shard);
        let key_text = s.bound_string(&key);
        let mut messages = vec![match &hashed {
            Some((name, value, h)) => msg!(
                "explain.landing.hashed",
                field = name.as_str(),
                value = crate::values::inspect::format_value(value),
                hash = crate::values::inspect::format_value(&Bson::Int64(*h)),
                range = range,
                shard = shard
            ),
            None => msg!(
                "explain.landing.range",
                key = key_text,
                range = range,
                shard = shard
            ),
        }];
        if !missing.is_empty() {
            messages.push(msg!("explain.landing.missing", fields = missing.join(", ")));
        }
        let rule = if hashed.is_some() {
            "hashed routing"
        } else {
            "range routing"
        };
        let mut e = Explanation::of_messages(Topic::Landing, rule, messages)
            .fact("key", Bson::Document(s.pattern.to_document(&key)));
        if let Some((_, value, h)) = &hashed {
            e = e.fact("value", value.clone()).fact("hash", Bson::Int64(*h));
        }
        let e = e
            .fact("min", bound(s, &chunk.min))
            .fact("max", bound(s, &chunk.max))
            .fact("shard", shard);
        Ok(Landing {
            key,
            hashed,
            chunk_min: chunk.min.clone(),
            chunk_max: chunk.max.clone(),
            shard: chunk.shard,
            explanation: e,
        })
    }
}

/// A count of chunks: "1 chunk", "3 chunks".
fn chunk_count(n: u64) -> Message {
    if n == 1 {
        msg!("explain.count.chunk")
    } else {
        msg!("explain.count.chunks", n = n)
    }
}

/// A count of documents: "1 document", "3 documents".
fn doc_count(n: u64) -> Message {
    if n == 1 {
        msg!("explain.count.document")
    } else {
        msg!("explain.count.documents", n = n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id the code names with `msg!` is a template of [`MESSAGES`], and every template
    /// is named somewhere: no sentence falls back to an empty English, none is dead.
    #[test]
    fn every_message_named_is_a_template_and_every_template_is_named() {
        let source = include_str!("explain.rs");
        let code = &source[source.find("pub const MESSAGES").unwrap_or(0)..];
        let code = &code[code.find("\n];").unwrap_or(0)..];
        let code = &code[..code.find("#[cfg(test)]").unwrap_or(code.len())];
        let named: Vec<&str> = code
            .split("msg!(")
            .skip(1)
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .filter(|id| id.starts_with("explain."))
            .collect();
        assert!(named.len() > 40, "found {} uses", named.len());
        for id in &named {
            assert!(MESSAGES.iter().any(|(m, _)| m == id), "{id} is no template");
        }
        for (id, _) in MESSAGES {
            assert!(named.contains(id), "{id} is never used");
        }
        let mut ids: Vec<&str> = MESSAGES.iter().map(|(id, _)| *id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), MESSAGES.len(), "an id is given twice");
    }

    /// A message's English fills its placeholders with texts and with the English of the
    /// messages among its values, and never reads a value's braces as a placeholder.
    #[test]
    fn english_fills_texts_and_nested_messages() {
        let load = msg!("explain.load", shard = "shard01", load = chunk_count(3));
        assert_eq!(load.english(), "shard01 (3 chunks)");
        assert_eq!(chunk_count(1).english(), "1 chunk");
        assert_eq!(doc_count(1).english(), "1 document");
        let why = msg!("explain.round.disabled", ns = "{shard}");
        let stays = msg!("explain.balancer.stays", why = why, shard = "shard02");
        assert_eq!(
            stays.english(),
            "Balancing is disabled for {shard}. So this chunk stays on shard02."
        );
        // A placeholder without a value stays as written.
        assert_eq!(
            msg!("explain.round.disabled").english(),
            "Balancing is disabled for {ns}."
        );
    }
}
