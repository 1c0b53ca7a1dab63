//! What the `sim.` helpers did, kept while an exporter asks for it
//! (`Session::start_sim_log`, in `sim.rs`): ShardLab's own commands have no mongosh equivalent as
//! written, so the exporter (`sim::export`) writes each from what it did, the exact
//! documents a workload generated among them.

use crate::engine::analyze::QuerySample;
use bson::Document;

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
