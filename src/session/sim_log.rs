//! What the `sim.` helpers did, kept while an exporter asks for it
//! ([`Session::start_sim_log`]): ShardLab's own commands have no mongosh equivalent as
//! written, so the exporter (`sim::export`) writes each from what it did, the exact
//! documents a workload generated among them.

use super::interpreter::Session;
use crate::engine::analyze::QuerySample;
use crate::engine::cluster::InsertedIds;
use bson::{Bson, Document};

/// One `sim.` helper's call and what it did.
#[derive(Debug, Clone, PartialEq)]
pub enum SimCall {
    /// `sim.version(v)`: the version mode set, as its label (`"8.0"`).
    Version(String),
    /// `sim.chunkSize(n)`: the chunk size set, in bytes.
    ChunkSize(u64),
    /// `sim.seed(n)`: the generators reseeded.
    Seed(i64),
    /// `sim.retryWrites(b)`: whether the shell's writes are retryable.
    RetryWrites(bool),
    /// `sim.reset(...)`: a new, empty cluster of this many shards, version and chunk size.
    Reset {
        /// The new cluster's shards.
        shards: u32,
        /// Its version mode's label.
        version: String,
        /// Its chunk size in bytes.
        chunk_size: u64,
    },
    /// `sim.balance()`: one balancer round run on demand.
    Balanced {
        /// How many migrations the round made.
        migrations: u64,
        /// Whether the balancer was on (`sh.startBalancer()`) when the round ran.
        balancer_on: bool,
    },
    /// `sim.generate(ns, ...)`: the documents stored, each with its `_id`, in order.
    Generated {
        /// The namespace they went into.
        ns: String,
        /// The documents, as stored.
        docs: Vec<Document>,
    },
    /// `sim.queries(ns, ...)`: each generated operation, with the error MongoDB gave it
    /// (a refused write is counted but changes nothing).
    Queried {
        /// The namespace they ran on.
        ns: String,
        /// The operations in order, each with its error's text, if any.
        ops: Vec<(QuerySample, Option<String>)>,
    },
    /// `sim.preset(id)`: a new cluster of the lesson's shape with its script run.
    Preset(String),
    /// A helper that only read something (`sim.clock()`, `sim.events()`,
    /// `sim.explain(...)`, a setting read without a value): its name.
    Looked(String),
}

impl Session {
    /// Starts keeping what each `sim.` helper does; [`Session::take_sim_log`] hands it
    /// over and ends it.
    pub fn start_sim_log(&mut self) {
        self.sim_log = Some(Vec::new());
    }

    /// The `sim.` calls kept since [`Session::start_sim_log`], in order; stops keeping
    /// them.
    pub fn take_sim_log(&mut self) -> Vec<SimCall> {
        self.sim_log.take().unwrap_or_default()
    }

    /// Keeps `call` if a log is kept.
    pub(super) fn log_sim(&mut self, call: SimCall) {
        if let Some(log) = &mut self.sim_log {
            log.push(call);
        }
    }

    /// Keeps the documents a `sim.generate` stored: those before the first that failed,
    /// each given the `_id` the cluster gave it (in front, where the cluster puts it).
    pub(super) fn log_generated(&mut self, ns: &str, docs: &[Document], ids: &InsertedIds) {
        if self.sim_log.is_none() {
            return;
        }
        let stored = docs
            .iter()
            .zip(ids.iter())
            .map(|(d, id)| {
                if d.contains_key("_id") {
                    d.clone()
                } else {
                    let mut with_id = Document::new();
                    with_id.insert("_id", id);
                    with_id.extend(d.clone());
                    with_id
                }
            })
            .collect();
        self.log_sim(SimCall::Generated {
            ns: ns.to_string(),
            docs: stored,
        });
    }

    /// What a helper that keeps no record of its own did, read from the session after it
    /// ran and from its reply; `None` for the helpers that keep their own
    /// (`generate`, `queries`).
    pub(super) fn sim_call_of(&self, helper: &str, set: bool, reply: &Bson) -> Option<SimCall> {
        let c = &self.cluster;
        let reply = reply.as_document();
        Some(match helper {
            "generate" | "queries" => return None,
            "version" if set => SimCall::Version(c.version().label().to_string()),
            "chunkSize" if set => SimCall::ChunkSize(c.chunk_size()),
            "retryWrites" if set => SimCall::RetryWrites(c.retryable_writes),
            "seed" => SimCall::Seed(reply.and_then(|r| r.get_i64("seed").ok()).unwrap_or(0)),
            "reset" => SimCall::Reset {
                shards: c.shards().count() as u32,
                version: c.version().label().to_string(),
                chunk_size: c.chunk_size(),
            },
            "balance" => SimCall::Balanced {
                migrations: reply
                    .and_then(|r| r.get_array("migrations").ok())
                    .map_or(0, |m| m.len() as u64),
                balancer_on: c.balancer_enabled,
            },
            "preset" => SimCall::Preset(
                reply
                    .and_then(|r| r.get_str("preset").ok())
                    .unwrap_or_default()
                    .to_string(),
            ),
            other => SimCall::Looked(other.to_string()),
        })
    }
}
