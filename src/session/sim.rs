//! The `sim.` helpers: ShardLab's own commands (not mongosh's, so they cannot be mistaken
//! for it) to set the simulated cluster up, generate workloads and load the lesson
//! presets. One function per helper, found through a table by the helper's name.

use super::interpreter::{call_args, Output, Session, StatementError};
use super::sampling::SampledQuery;
use super::sim_log::SimCall;
use crate::engine::cluster::InsertedIds;
use crate::engine::cluster::{ClusterConfig, ClusterError, VersionMode};
use crate::engine::targeting::TargetKind;
use crate::shell::parser::Segment;
use crate::shell::Expr;
use bson::{doc, Bson, Document};

/// `sim.<name> is not a function`.
fn not_a_function(name: &str) -> StatementError {
    StatementError::type_error(format!("sim.{name} is not a function"))
}

/// Runs one `sim.` helper with its argument expressions.
type SimHelper = fn(&mut Session, &[Expr]) -> Result<Bson, StatementError>;

/// Every `sim.` helper a first visit runs, by name; the others are
/// [`super::later::LATER_SIM`].
const SIM_HELPERS: &[(&str, SimHelper)] = &[
    ("version", version),
    ("chunkSize", chunk_size),
    ("seed", seed),
    ("retryWrites", retry_writes),
    ("balance", balance),
    ("generate", generate),
];

impl Session {
    /// Runs one of the `sim.` helpers a first visit does not run ([`super::later::LATER_SIM`])
    /// by name, each called directly (see [`super::later`]); `None` for another name.
    pub(super) fn later_sim(
        &mut self,
        name: &str,
        args: &[Expr],
    ) -> Option<Result<Bson, StatementError>> {
        Some(match name {
            "reset" => reset(self, args),
            "clock" => super::clock::sim_clock(self, args),
            "queries" => queries(self, args),
            "preset" => preset(self, args),
            "presets" => presets(self, args),
            "events" => events(self, args),
            "loadCluster" => load_cluster(self, args),
            "replayChange" => replay_change(self, args),
            #[cfg(feature = "insight")]
            "explain" => super::insight::explain(self, args),
            #[cfg(feature = "insight")]
            "chunkDocs" => super::insight::chunk_docs(self, args),
            _ => return None,
        })
    }

    /// Runs `sim.<helper>(...)`.
    pub(super) fn sim_command(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let Some(method) = rest.first() else {
            return Err(StatementError::type_error("sim is not a value"));
        };
        let args = call_args(method)?;
        let name = method.name.as_str();
        let logging = self.sim_log.is_some();
        let reply = match SIM_HELPERS.iter().find(|(n, _)| *n == name) {
            Some((_, helper)) => helper(self, args)?,
            None if super::later::LATER_SIM.contains(&name) => {
                let call = super::later::LaterCall::Sim(name, args);
                match self.later(&format!("sim.{name}"), call) {
                    Some(reply) => super::script::output_value(reply?),
                    None => return Err(not_a_function(name)),
                }
            }
            None => return Err(not_a_function(name)),
        };
        // `sim.reset` and `sim.preset` put a new session in place: the log goes on in it.
        if logging && self.sim_log.is_none() {
            self.start_sim_log();
        }
        if let Some(call) = self.sim_call_of(name, !args.is_empty(), &reply) {
            self.log_sim(call);
        }
        super::interpreter::navigate(Output::Value(reply), &rest[1..])
    }

    /// The workload spec an argument names: a preset name or a template document.
    fn workload_spec(&mut self, args: &[Expr], i: usize) -> Result<Document, StatementError> {
        match self.arg(args, i, "workload")? {
            Bson::Document(d) => Ok(d),
            Bson::String(name) => crate::workload::generate::preset(&name).ok_or_else(|| {
                ClusterError::BadValue(format!(
                    "unknown workload '{name}'; the presets are: {}",
                    crate::workload::generate::preset_names().join(", ")
                ))
                .into()
            }),
            other => Err(StatementError::type_error(format!(
                "workload must be a preset name or a template object, got {}",
                crate::shell::format_value(&other)
            ))),
        }
    }
}

/// `sim.version()` reads the MongoDB version mode; `sim.version("5.0")` sets it.
fn version(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    if let Some(v) = s.opt_arg(args, 0)? {
        let text = match v {
            Bson::String(text) => text,
            other => crate::shell::format_value(&other),
        };
        let mode = VersionMode::parse(&text).ok_or_else(|| {
            StatementError::from(ClusterError::BadValue(format!(
                "unknown version mode '{text}': use \"3.6\", \"5.0\", \"7.0\" or \"8.0\""
            )))
        })?;
        s.cluster.set_version(mode);
    }
    Ok(Bson::Document(
        doc! { "version": s.cluster.version().label(), "ok": 1 },
    ))
}

/// `sim.chunkSize()` reads the chunk size in bytes; `sim.chunkSize(n)` sets it.
fn chunk_size(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    if let Some(v) = s.opt_arg(args, 0)? {
        let bytes = match v {
            Bson::Int32(n) => i64::from(n),
            Bson::Int64(n) => n,
            Bson::Double(d) => d as i64,
            _ => -1,
        };
        s.cluster
            .set_chunk_size(u64::try_from(bytes).unwrap_or(0))?;
    }
    let size = crate::values::js::js_number(s.cluster.chunk_size() as f64);
    Ok(Bson::Document(doc! { "chunkSize": size, "ok": 1 }))
}

/// `sim.retryWrites()` reads whether the shell's writes are retryable; `sim.retryWrites(b)`
/// sets it, as connecting mongosh with `retryWrites=true` or `false` would (true by
/// default, as the driver's default is).
fn retry_writes(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    match s.opt_arg(args, 0)? {
        None => {}
        Some(Bson::Boolean(on)) => s.cluster.retryable_writes = on,
        Some(other) => {
            return Err(ClusterError::BadValue(format!(
                "retryWrites must be a boolean, got {}",
                crate::values::inspect::format_value(&other)
            ))
            .into())
        }
    }
    Ok(Bson::Document(
        doc! { "retryWrites": s.cluster.retryable_writes, "ok": 1 },
    ))
}

/// `sim.seed(n)`: reseeds the cluster and the workload generators.
fn seed(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let seed = s.int_arg(args, 0, "seed")?;
    s.cluster.reseed(seed as u64);
    s.rng = crate::support::rng::SplitMix64::new(seed as u64);
    Ok(Bson::Document(doc! { "seed": seed, "ok": 1 }))
}

/// `sim.reset({shards, version, chunkSize, seed})`: a new, empty cluster. Options out of
/// range are refused with the errors the same settings give elsewhere (`sim.chunkSize`,
/// a share link's shard count), never quietly clamped.
fn reset(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let opts = s.opt_doc_arg(args, 0, "options")?;
    let mut config = ClusterConfig {
        seed: s.cluster.config().seed,
        ..ClusterConfig::default()
    };
    let bad = |m: String| StatementError::from(ClusterError::BadValue(m));
    // An integral number, as JavaScript would pass it, or the option's own error.
    let integer = |key: &str| -> Result<Option<i64>, StatementError> {
        match opts.get(key) {
            None => Ok(None),
            Some(Bson::Int32(n)) => Ok(Some(i64::from(*n))),
            Some(Bson::Int64(n)) => Ok(Some(*n)),
            Some(Bson::Double(d)) if d.fract() == 0.0 && d.abs() < 9.0e15 => Ok(Some(*d as i64)),
            Some(other) => Err(bad(format!(
                "{key} must be an integer, got {}",
                crate::values::inspect::format_value(other)
            ))),
        }
    };
    if let Some(n) = integer("shards")? {
        let max = crate::engine::cluster::MAX_SHARDS;
        config.shards = u32::try_from(n)
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| bad(format!("shards must be between 1 and {max}, got {n}")))?;
    }
    if let Some(v) = opts.get("version") {
        let Bson::String(v) = v else {
            return Err(bad("version must be a string such as \"8.0\"".to_string()));
        };
        config.version =
            VersionMode::parse(v).ok_or_else(|| bad(format!("unknown version mode '{v}'")))?;
    }
    if let Some(seed) = integer("seed")? {
        config.seed = seed as u64;
    }
    let chunk_size = integer("chunkSize")?;
    let mut fresh = Session::new(config);
    if let Some(n) = chunk_size {
        // The same rule, and error, as `sim.chunkSize(n)`.
        fresh
            .cluster
            .set_chunk_size(u64::try_from(n).unwrap_or(0))?;
    }
    *s = fresh;
    Ok(Bson::Document(doc! { "ok": 1 }))
}

/// `sim.loadCluster(image)`: the cluster becomes a real cluster's sharding metadata
/// (`engine::ClusterImage`'s document: its shards, databases, sharded collections with
/// their chunks and zone ranges, and its era), with no documents; what was there goes.
fn load_cluster(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let Some(Bson::Document(image)) = s.opt_arg(args, 0)? else {
        return Err(ClusterError::BadValue(
            "sim.loadCluster takes the cluster's metadata as a document".into(),
        )
        .into());
    };
    let image = crate::engine::ClusterImage::from_document(&image)?;
    s.cluster.load_image(&image)?;
    let chunks: usize = image.collections.iter().map(|c| c.chunks.len()).sum();
    Ok(Bson::Document(doc! {
        "shards": image.shards.len() as i64,
        "collections": image.collections.len() as i64,
        "chunks": chunks as i64,
        "ok": 1,
    }))
}

/// `sim.replayChange(entry)`: applies one `config.changelog` entry (`{what, ns,
/// details}`) to the chunks of its collection, as it happened on the real cluster.
fn replay_change(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let Some(Bson::Document(entry)) = s.opt_arg(args, 0)? else {
        return Err(ClusterError::BadValue(
            "sim.replayChange takes a config.changelog entry as a document".into(),
        )
        .into());
    };
    s.cluster.replay_change(&entry)?;
    Ok(Bson::Document(doc! { "ok": 1 }))
}

/// `sim.balance()` runs one balancer round (`sim.balance(ns)`: for one collection) and
/// lists the migrations it made.
fn balance(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let migrations = match s.opt_arg(args, 0)? {
        Some(Bson::String(ns)) => s.cluster.balance_collection_round(&ns)?,
        _ => s.cluster.balance_round(),
    };
    s.cluster.note_manual_round();
    let list: Vec<Bson> = migrations
        .iter()
        .map(|m| {
            let sharding = s.cluster.sharding(&m.ns).ok();
            let show = |k: &crate::keys::shard_key::KeyValue| {
                sharding.map_or(Bson::Null, |sh| Bson::Document(sh.pattern.to_document(k)))
            };
            Bson::Document(doc! {
                "ns": m.ns.clone(),
                "min": show(&m.min),
                "max": show(&m.max),
                "from": s.cluster.shard_name(m.from),
                "to": s.cluster.shard_name(m.to),
            })
        })
        .collect();
    Ok(Bson::Document(doc! { "migrations": list, "ok": 1 }))
}

/// `sim.generate(ns, workload, count)`: inserts generated documents, continuing the
/// spec's counters where the previous call for the same namespace and spec stopped.
fn generate(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let ns = s.str_arg(args, 0, "namespace")?;
    let spec = s.workload_spec(args, 1)?;
    let count = s.int_arg(args, 2, "count")?;
    let count = u64::try_from(count).map_err(|_| {
        StatementError::from(ClusterError::BadValue("count must not be negative".into()))
    })?;
    let counter_key = format!(
        "{ns} {}",
        crate::shell::ejson::document_to_canonical_ejson(&spec)
    );
    let start = s.generated.get(&counter_key).copied().unwrap_or(0);
    let docs = crate::workload::generate::generate(&spec, count, start, &mut s.rng)?;
    s.generated.insert(counter_key, start + count);
    let n = docs.len() as i64;
    let result = s.cluster.insert_many(&ns, &docs);
    let (Ok(ids) | Err((ids, _))) = &result;
    s.log_generated(&ns, &docs, ids);
    result.map_err(|(_, e)| e)?;
    let inserted = crate::values::js::js_number(n as f64);
    Ok(Bson::Document(
        doc! { "ns": ns, "inserted": inserted, "ok": 1 },
    ))
}

/// `sim.queries(ns, spec, count)`: runs a generated query workload against a collection
/// and counts how each operation was targeted.
fn queries(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let ns = s.str_arg(args, 0, "namespace")?;
    let spec = s.doc_arg(args, 1, "query workload")?;
    let count = s.int_arg(args, 2, "count")?.max(0) as u64;
    // About a thousand documents to draw values from, spread over the collection.
    let known: Vec<Document> = s
        .cluster
        .collection(&ns)
        .map(|c| {
            c.documents()
                .step_by(((c.doc_count() / 1000).max(1)) as usize)
                .collect()
        })
        .unwrap_or_default();
    // Several writes in one statement: if the budget runs out part way, the session goes
    // back to what it was before the first (see `support::budget`).
    let checkpoint = s.checkpoint();
    let ops = crate::workload::generate::generate_queries(&spec, count, &mut s.rng, &known)?;
    let (mut single, mut multi, mut scatter) = (0i64, 0i64, 0i64);
    let mut log = Vec::new();
    for op in &ops {
        match run_generated_op(s, &ns, op) {
            Ok((kind, refused)) => {
                match kind {
                    TargetKind::SingleShard => single += 1,
                    TargetKind::MultiShard => multi += 1,
                    TargetKind::ScatterGather => scatter += 1,
                }
                if s.sim_log.is_some() {
                    log.push((op.clone(), refused));
                }
            }
            Err(e) => {
                s.restore(checkpoint);
                return Err(e);
            }
        }
    }
    s.log_sim(SimCall::Queried {
        ns: ns.clone(),
        ops: log,
    });
    Ok(Bson::Document(doc! {
        "ns": ns,
        "queries": ops.len() as i32,
        "singleShard": single as i32,
        "multiShard": multi as i32,
        "scatterGather": scatter as i32,
        "ok": 1,
    }))
}

/// Targets and runs one generated operation, sampling it as the shell's own would be;
/// returns how it was targeted and, for a write MongoDB refused, its error's text.
fn run_generated_op(
    s: &mut Session,
    ns: &str,
    op: &SampledQuery,
) -> Result<(TargetKind, Option<String>), StatementError> {
    let target = s.cluster.target(ns, &op.filter)?;
    let refused = match (op.command.as_str(), &op.update) {
        ("find", _) => {
            s.record_read(ns, &op.filter);
            None
        }
        (cmd, Some(update)) => {
            s.record_write(ns, &op.filter, cmd, Some(update), false);
            // A generated write that MongoDB would refuse is counted but not applied,
            // as a failed write changes nothing; running out of budget ends the run.
            let result = s
                .cluster
                .update(ns, &op.filter, update, cmd == "updateMany");
            out_of_budget(result.map(|_| ()))?
        }
        (cmd, None) => {
            s.record_write(ns, &op.filter, cmd, None, false);
            let result = s.cluster.delete(ns, &op.filter, cmd == "deleteMany");
            out_of_budget(result.map(|_| ()))?
        }
    };
    Ok((target.kind, refused))
}

/// Passes on the statement's budget running out; a generated operation's own error is
/// part of the workload's result, answered as its text.
fn out_of_budget(result: Result<(), ClusterError>) -> Result<Option<String>, StatementError> {
    match result {
        Err(e @ ClusterError::MaxTimeMSExpired(_)) => Err(e.into()),
        Err(e) => Ok(Some(StatementError::from(e).to_string())),
        Ok(()) => Ok(None),
    }
}

/// `sim.preset(id)`: a new cluster of the preset's shape, its script run, and a summary
/// of where the documents went.
fn preset(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let id = s.str_arg(args, 0, "preset")?;
    let preset = crate::workload::presets::preset(&id).ok_or_else(|| {
        StatementError::from(ClusterError::BadValue(format!(
            "unknown preset '{id}'; the presets are: {}",
            crate::workload::presets::PRESETS
                .iter()
                .map(|p| p.id)
                .collect::<Vec<_>>()
                .join(", ")
        )))
    })?;
    // A preset starts from a new cluster of its own shape, then runs its script; the
    // reply summarises where the documents went.
    // The old session is moved aside whole (variables included, nothing copied) and put
    // back if the script runs out of budget, so that the session is left as it was.
    let seed = s.cluster.config().seed;
    let before = std::mem::replace(
        s,
        Session::new(ClusterConfig {
            shards: preset.shards,
            version: preset.version,
            chunk_size: None,
            seed,
        }),
    );
    let mut failures = Vec::new();
    for outcome in s.run(&preset.script()) {
        if let Err(e) = outcome.result {
            if super::interpreter::is_budget_error(&e) {
                *s = before;
                return Err(e);
            }
            failures.push(Bson::String(format!("{}: {e}", outcome.source)));
        }
    }
    let mut d = doc! { "preset": preset.id, "title": preset.title(), "lesson": preset.lesson() };
    summarise_collection(s, preset.ns, &mut d);
    if !failures.is_empty() {
        d.insert("errors", failures);
    }
    d.insert("ok", 1);
    Ok(Bson::Document(d))
}

/// Adds where a collection's documents are to a preset's reply: the total, each shard's
/// documents and chunks, and the jumbo chunks.
fn summarise_collection(s: &Session, ns: &str, d: &mut Document) {
    let stats = s.cluster.shard_stats(ns);
    let total: u64 = stats.iter().map(|st| st.docs).sum();
    let per_shard: Document = s
        .cluster
        .shards()
        .map(|(i, shard)| {
            let st = stats[i as usize];
            (
                shard.name.clone(),
                Bson::Document(doc! { "docs": st.docs as i32, "chunks": st.chunks as i32 }),
            )
        })
        .collect();
    d.insert("documents", total as i32);
    d.insert("shards", per_shard);
    let jumbo = s
        .cluster
        .sharding(ns)
        .map(|sh| sh.table.iter().filter(|c| c.jumbo).count())
        .unwrap_or(0);
    d.insert("jumboChunks", jumbo as i32);
}

/// `sim.presets()`: the lesson presets, by id and title.
fn presets(_: &mut Session, _: &[Expr]) -> Result<Bson, StatementError> {
    let list: Vec<Bson> = crate::workload::presets::PRESETS
        .iter()
        .map(|p| Bson::Document(doc! { "id": p.id, "title": p.title() }))
        .collect();
    Ok(Bson::Array(list))
}

/// `sim.events(n)`: the last `n` (default 20) events of the cluster's log.
fn events(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let n = s
        .opt_arg(args, 0)?
        .and_then(|v| v.as_i32())
        .unwrap_or(20)
        .max(0) as usize;
    let events = s.cluster.events();
    let list: Vec<Bson> = events
        .since(events.len().saturating_sub(n))
        .map(|e| {
            Bson::Document(doc! {
                "seq": e.seq as i64,
                "time": bson::DateTime::from_millis(e.at_ms),
                "what": e.kind.changelog_name(),
                "details": e.kind.describe(),
            })
        })
        .collect();
    Ok(Bson::Array(list))
}

/// The log of what the `sim.` helpers did (see [`SimCall`]).
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
