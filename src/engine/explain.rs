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
use crate::engine::message::{msg, Arg, Message};
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
    /// The sentence as messages of [`MESSAGES`](crate::engine::MESSAGES), one after another.
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
            let (rule, message) = if self.version() >= VersionMode::V70 {
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
        if chunk.jumbo {
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
                ..
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
                ..
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
                    ..
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
