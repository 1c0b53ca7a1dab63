//! `db.adminCommand(...)` / `db.runCommand(...)` and the `sim.` helpers, which are not
//! mongosh and so cannot be mistaken for it.

use super::interpreter::{call_args, ok_doc, Output, Session, StatementError};
use super::sh::remove_shard_reply;
use super::status;
use crate::engine::cluster::{ClusterConfig, ClusterError, VersionMode};
use crate::shell::parser::Segment;
use bson::{doc, Bson, Document};

use super::sampling::SampledQuery;

fn ns_of(cmd: &Document, name: &str) -> Result<String, StatementError> {
    match cmd.get(name) {
        Some(Bson::String(s)) => Ok(s.clone()),
        _ => Err(ClusterError::BadValue(format!("'{name}' must be of type String")).into()),
    }
}

fn doc_field(cmd: &Document, name: &str) -> Result<Document, StatementError> {
    match cmd.get(name) {
        Some(Bson::Document(d)) => Ok(d.clone()),
        _ => Err(ClusterError::BadValue(format!("'{name}' must be of type Object")).into()),
    }
}

fn bounds(cmd: &Document) -> Result<(Document, Document), StatementError> {
    match cmd.get("bounds") {
        Some(Bson::Array(a)) if a.len() == 2 => match (&a[0], &a[1]) {
            (Bson::Document(lo), Bson::Document(hi)) => Ok((lo.clone(), hi.clone())),
            _ => {
                Err(ClusterError::BadValue("bounds must be an array of two objects".into()).into())
            }
        },
        _ => Err(ClusterError::BadValue("bounds must be an array of two objects".into()).into()),
    }
}

impl Session {
    /// Records a read for analyzeShardKey's read distribution, if sampling is on.
    pub(super) fn record_read(&mut self, ns: &str, filter: &Document) {
        if let Some(list) = self.sampling.get_mut(ns) {
            list.push(SampledQuery {
                command: "find".into(),
                filter: filter.clone(),
                update: None,
            });
        }
    }

    /// Records a write for analyzeShardKey's write distribution, if sampling is on.
    pub(super) fn record_write(
        &mut self,
        ns: &str,
        filter: &Document,
        method: &str,
        update: Option<&Document>,
    ) {
        if let Some(list) = self.sampling.get_mut(ns) {
            list.push(SampledQuery {
                command: method.into(),
                filter: filter.clone(),
                update: update.cloned(),
            });
        }
    }

    pub(super) fn admin_command(&mut self, cmd: &Document) -> Result<Output, StatementError> {
        let Some(name) = cmd.keys().next().cloned() else {
            return Err(ClusterError::FailedToParse("no command specified".into()).into());
        };
        let reply = match name.as_str() {
            "shardCollection" => {
                let ns = ns_of(cmd, &name)?;
                let key = doc_field(cmd, "key")?;
                let unique = matches!(cmd.get("unique"), Some(Bson::Boolean(true)));
                let n = match cmd.get("numInitialChunks") {
                    Some(Bson::Int32(n)) => Some(u32::try_from(*n).unwrap_or(0)),
                    Some(Bson::Int64(n)) => Some(u32::try_from(*n).unwrap_or(0)),
                    _ => None,
                };
                self.cluster.shard_collection(&ns, &key, unique, n)?;
                doc! { "collectionsharded": ns, "ok": 1 }
            }
            "refineCollectionShardKey" => {
                let ns = ns_of(cmd, &name)?;
                let key = doc_field(cmd, "key")?;
                self.cluster.refine_shard_key(&ns, &key)?;
                ok_doc()
            }
            "reshardCollection" => {
                let ns = ns_of(cmd, &name)?;
                let key = doc_field(cmd, "key")?;
                self.cluster.reshard_collection(&ns, &key)?;
                ok_doc()
            }
            "mergeChunks" => {
                let ns = ns_of(cmd, &name)?;
                let (lo, hi) = bounds(cmd)?;
                self.cluster.merge_chunks(&ns, &lo, &hi)?;
                ok_doc()
            }
            "clearJumboFlag" => {
                let ns = ns_of(cmd, &name)?;
                let find = match cmd.get("find") {
                    Some(Bson::Document(d)) => d.clone(),
                    _ => bounds(cmd)?.0,
                };
                self.cluster.clear_jumbo_flag(&ns, &find)?;
                ok_doc()
            }
            "split" => {
                let ns = ns_of(cmd, &name)?;
                if let Some(Bson::Document(middle)) = cmd.get("middle") {
                    self.cluster.split_at(&ns, middle)?;
                } else if let Some(Bson::Document(find)) = cmd.get("find") {
                    self.cluster.split_find(&ns, find)?;
                } else {
                    return Err(ClusterError::Errmsg(
                        "need to specify find, bounds or middle".into(),
                    )
                    .into());
                }
                ok_doc()
            }
            "moveChunk" => {
                let ns = ns_of(cmd, &name)?;
                let to = ns_of(cmd, "to")?;
                if let Some(Bson::Document(find)) = cmd.get("find") {
                    self.cluster.move_chunk(&ns, find, &to)?;
                } else if cmd.contains_key("bounds") {
                    let (lo, hi) = bounds(cmd)?;
                    self.cluster.move_chunk_bounds(&ns, &lo, &hi, &to)?;
                } else {
                    return Err(ClusterError::Errmsg(
                        "need to specify either a find query, or both lower and upper bounds."
                            .into(),
                    )
                    .into());
                }
                doc! { "millis": 0, "ok": 1 }
            }
            "moveRange" => {
                let ns = ns_of(cmd, &name)?;
                let to = ns_of(cmd, "toShard")?;
                let min = doc_field(cmd, "min")?;
                let max = match cmd.get("max") {
                    Some(Bson::Document(d)) => Some(d.clone()),
                    _ => None,
                };
                self.cluster.move_range(&ns, &to, &min, max.as_ref())?;
                ok_doc()
            }
            "balancerCollectionStatus" => {
                let ns = ns_of(cmd, &name)?;
                status::balancer_collection_status(&self.cluster, &ns)?
            }
            "balancerStart" | "balancerStop" => {
                self.cluster.balancer_enabled = name == "balancerStart";
                ok_doc()
            }
            "balancerStatus" => doc! {
                "mode": if self.cluster.balancer_enabled { "full" } else { "off" },
                "inBalancerRound": false,
                "numBalancerRounds": 0_i64,
                "ok": 1,
            },
            "_hashBSONElement" => {
                let key = cmd.get(&name).cloned().unwrap_or(Bson::Null);
                let seed = match cmd.get("seed") {
                    None => 0,
                    Some(Bson::Int32(n)) => *n,
                    Some(Bson::Int64(n)) => *n as i32,
                    Some(Bson::Double(d)) => *d as i32,
                    Some(_) => {
                        return Err(ClusterError::BadValue("seed must be a number".into()).into())
                    }
                };
                let out = crate::values::hash::hash64(&key, seed);
                doc! { "key": key, "seed": seed, "out": out, "ok": 1 }
            }
            "addShard" => {
                let shard = self.cluster.add_shard();
                doc! { "shardAdded": shard, "ok": 1 }
            }
            "removeShard" => {
                let shard = ns_of(cmd, &name)?;
                remove_shard_reply(&shard, self.cluster.remove_shard(&shard)?)
            }
            "movePrimary" => {
                let db = ns_of(cmd, &name)?;
                let to = ns_of(cmd, "to")?;
                self.cluster.move_primary(&db, &to)?;
                ok_doc()
            }
            "listShards" => {
                let shards: Vec<Bson> = self
                    .cluster
                    .shards()
                    .map(|(_, s)| {
                        Bson::Document(
                            doc! { "_id": s.name.clone(), "host": s.host.clone(), "state": 1 },
                        )
                    })
                    .collect();
                doc! { "shards": shards, "ok": 1 }
            }
            "configureQueryAnalyzer" => {
                let ns = ns_of(cmd, &name)?;
                let mode = match cmd.get("mode") {
                    Some(Bson::String(m)) if m == "full" || m == "off" => m.clone(),
                    _ => {
                        return Err(
                            ClusterError::BadValue("mode must be 'full' or 'off'".into()).into(),
                        )
                    }
                };
                let rate = cmd
                    .get("samplesPerSecond")
                    .cloned()
                    .unwrap_or(Bson::Int32(1));
                if mode == "full" {
                    self.sampling.start(&ns);
                } else {
                    self.sampling.stop(&ns);
                }
                doc! { "ok": 1, "newConfiguration": { "mode": mode, "samplesPerSecond": rate } }
            }
            "analyzeShardKey" => {
                let ns = ns_of(cmd, &name)?;
                let key = doc_field(cmd, "key")?;
                let samples = self.sampling.samples(&ns);
                let flag = |name: &str| !matches!(cmd.get(name), Some(Bson::Boolean(false)));
                let options = crate::engine::analyze::AnalyzeOptions {
                    key_characteristics: flag("keyCharacteristics"),
                    read_write_distribution: flag("readWriteDistribution"),
                };
                crate::engine::analyze::analyze_shard_key_with(
                    &self.cluster,
                    &ns,
                    &key,
                    &samples,
                    options,
                )?
            }
            other => {
                return Err(
                    ClusterError::CommandNotFound(format!("no such command: '{other}'")).into(),
                );
            }
        };
        Ok(Output::Value(Bson::Document(reply)))
    }

    /// The workload spec an argument names: a preset name or a template document.
    fn workload_spec(
        &mut self,
        args: &[crate::shell::Expr],
        i: usize,
    ) -> Result<Document, StatementError> {
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

    pub(super) fn sim_command(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let Some(method) = rest.first() else {
            return Err(StatementError::type_error("sim is not a value"));
        };
        let args = call_args(method)?;
        let reply = match method.name.as_str() {
            "version" => {
                if let Some(v) = self.opt_arg(args, 0)? {
                    let text = match v {
                        Bson::String(s) => s,
                        other => crate::shell::format_value(&other),
                    };
                    let mode = VersionMode::parse(&text).ok_or_else(|| {
                        StatementError::from(ClusterError::BadValue(format!(
                            "unknown version mode '{text}': use \"3.6\", \"5.0\" or \"8.0\""
                        )))
                    })?;
                    self.cluster.set_version(mode);
                }
                doc! { "version": self.cluster.version().label(), "ok": 1 }
            }
            "chunkSize" => {
                if let Some(v) = self.opt_arg(args, 0)? {
                    let bytes = match v {
                        Bson::Int32(n) => i64::from(n),
                        Bson::Int64(n) => n,
                        Bson::Double(d) => d as i64,
                        _ => -1,
                    };
                    self.cluster
                        .set_chunk_size(u64::try_from(bytes).unwrap_or(0))?;
                }
                doc! { "chunkSize": crate::values::js::js_number(self.cluster.chunk_size() as f64), "ok": 1 }
            }
            "seed" => {
                let seed = self.int_arg(args, 0, "seed")?;
                self.cluster.reseed(seed as u64);
                self.rng = crate::support::rng::SplitMix64::new(seed as u64);
                doc! { "seed": seed, "ok": 1 }
            }
            "reset" => {
                let opts = self.opt_doc_arg(args, 0, "options")?;
                let mut config = ClusterConfig {
                    seed: self.cluster.config().seed,
                    ..ClusterConfig::default()
                };
                if let Some(Bson::Int32(n)) = opts.get("shards") {
                    config.shards = (*n).clamp(1, 64) as u32;
                }
                if let Some(Bson::String(v)) = opts.get("version") {
                    config.version = VersionMode::parse(v).ok_or_else(|| {
                        StatementError::from(ClusterError::BadValue(format!(
                            "unknown version mode '{v}'"
                        )))
                    })?;
                }
                if let Some(n) = opts
                    .get("chunkSize")
                    .and_then(|v| v.as_i64().or(v.as_i32().map(i64::from)))
                {
                    config.chunk_size = Some(u64::try_from(n).unwrap_or(1024).max(1024));
                }
                if let Some(n) = opts
                    .get("seed")
                    .and_then(|v| v.as_i64().or(v.as_i32().map(i64::from)))
                {
                    config.seed = n as u64;
                }
                *self = Session::new(config);
                doc! { "ok": 1 }
            }
            "balance" => {
                let migrations = match self.opt_arg(args, 0)? {
                    Some(Bson::String(ns)) => self.cluster.balance_collection_round(&ns)?,
                    _ => self.cluster.balance_round(),
                };
                let list: Vec<Bson> = migrations
                    .iter()
                    .map(|m| {
                        let s = self.cluster.sharding(&m.ns).ok();
                        let show = |k: &crate::keys::shard_key::KeyValue| {
                            s.map_or(Bson::Null, |s| Bson::Document(s.pattern.to_document(k)))
                        };
                        Bson::Document(doc! {
                            "ns": m.ns.clone(),
                            "min": show(&m.min),
                            "max": show(&m.max),
                            "from": self.cluster.shard_name(m.from),
                            "to": self.cluster.shard_name(m.to),
                        })
                    })
                    .collect();
                doc! { "migrations": list, "ok": 1 }
            }
            "generate" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let spec = self.workload_spec(args, 1)?;
                let count = self.int_arg(args, 2, "count")?;
                let count = u64::try_from(count).map_err(|_| {
                    StatementError::from(ClusterError::BadValue(
                        "count must not be negative".into(),
                    ))
                })?;
                let counter_key = format!(
                    "{ns} {}",
                    crate::shell::ejson::document_to_canonical_ejson(&spec)
                );
                let start = self.generated.get(&counter_key).copied().unwrap_or(0);
                let docs = crate::workload::generate::generate(&spec, count, start, &mut self.rng)?;
                self.generated.insert(counter_key, start + count);
                let n = docs.len() as i64;
                self.cluster.insert_many(&ns, docs).map_err(|(_, e)| e)?;
                doc! { "ns": ns, "inserted": crate::values::js::js_number(n as f64), "ok": 1 }
            }
            "queries" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let spec = self.doc_arg(args, 1, "query workload")?;
                let count = self.int_arg(args, 2, "count")?.max(0) as u64;
                let known: Vec<Document> = self
                    .cluster
                    .collection(&ns)
                    .map(|c| {
                        c.documents()
                            .step_by(((c.doc_count() / 1000).max(1)) as usize)
                            .collect()
                    })
                    .unwrap_or_default();
                let ops = crate::workload::generate::generate_queries(
                    &spec,
                    count,
                    &mut self.rng,
                    &known,
                )?;
                let (mut single, mut multi, mut scatter) = (0i64, 0i64, 0i64);
                for op in &ops {
                    let target = self.cluster.target(&ns, &op.filter)?;
                    match target.kind {
                        crate::engine::targeting::TargetKind::SingleShard => single += 1,
                        crate::engine::targeting::TargetKind::MultiShard => multi += 1,
                        crate::engine::targeting::TargetKind::ScatterGather => scatter += 1,
                    }
                    match (op.command.as_str(), &op.update) {
                        ("find", _) => self.record_read(&ns, &op.filter),
                        (cmd, Some(update)) => {
                            self.record_write(&ns, &op.filter, cmd, Some(update));
                            // A generated write that MongoDB would refuse is counted but
                            // not applied, as a failed write changes nothing.
                            let _ =
                                self.cluster
                                    .update(&ns, &op.filter, update, cmd == "updateMany");
                        }
                        (cmd, None) => {
                            self.record_write(&ns, &op.filter, cmd, None);
                            let _ = self.cluster.delete(&ns, &op.filter, cmd == "deleteMany");
                        }
                    }
                }
                doc! {
                    "ns": ns,
                    "queries": ops.len() as i32,
                    "singleShard": single as i32,
                    "multiShard": multi as i32,
                    "scatterGather": scatter as i32,
                    "ok": 1,
                }
            }
            "preset" => {
                let id = self.str_arg(args, 0, "preset")?;
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
                // A preset starts from a new cluster of its own shape, then runs its
                // script; the reply summarises where the documents went.
                *self = Session::new(ClusterConfig {
                    shards: preset.shards,
                    version: preset.version,
                    chunk_size: None,
                    seed: self.cluster.config().seed,
                });
                let mut failures = Vec::new();
                for outcome in self.run(&preset.script()) {
                    if let Err(e) = outcome.result {
                        failures.push(Bson::String(format!("{}: {e}", outcome.source)));
                    }
                }
                let mut d =
                    doc! { "preset": preset.id, "title": preset.title, "lesson": preset.lesson };
                let stats = self.cluster.shard_stats(preset.ns);
                let total: u64 = stats.iter().map(|s| s.docs).sum();
                let per_shard: Document = self
                    .cluster
                    .shards()
                    .map(|(i, s)| {
                        let st = stats[i as usize];
                        (
                            s.name.clone(),
                            Bson::Document(
                                doc! { "docs": st.docs as i32, "chunks": st.chunks as i32 },
                            ),
                        )
                    })
                    .collect();
                d.insert("documents", total as i32);
                d.insert("shards", per_shard);
                let jumbo = self
                    .cluster
                    .sharding(preset.ns)
                    .map(|s| s.table.iter().filter(|c| c.jumbo).count())
                    .unwrap_or(0);
                d.insert("jumboChunks", jumbo as i32);
                if !failures.is_empty() {
                    d.insert("errors", failures);
                }
                d.insert("ok", 1);
                d
            }
            "presets" => {
                let list: Vec<Bson> = crate::workload::presets::PRESETS
                    .iter()
                    .map(|p| Bson::Document(doc! { "id": p.id, "title": p.title }))
                    .collect();
                return Ok(Output::Value(Bson::Array(list)));
            }
            "events" => {
                let n = self
                    .opt_arg(args, 0)?
                    .and_then(|v| v.as_i32())
                    .unwrap_or(20)
                    .max(0) as usize;
                let events = self.cluster.events();
                let list: Vec<Bson> = events
                    .since(events.len().saturating_sub(n))
                    .map(|e| Bson::Document(doc! { "seq": e.seq as i64, "what": e.kind.changelog_name(), "details": e.kind.describe() }))
                    .collect();
                return Ok(Output::Value(Bson::Array(list)));
            }
            other => {
                return Err(StatementError::type_error(format!(
                    "sim.{other} is not a function"
                )));
            }
        };
        Ok(Output::Value(Bson::Document(reply)))
    }
}
