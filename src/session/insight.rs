//! `sim.explain` and `sim.chunkDocs`: why the cluster looks as it does, and a chunk's
//! documents page by page. Built with the `insight` feature (on by default; the
//! playground's wasm leaves it out to keep within its download budget, see
//! ARCHITECTURE.md).

use super::interpreter::{Session, StatementError};
use crate::engine::cluster::ClusterError;
use crate::engine::{Cluster, Explanation};
use crate::keys::KeyValue;
use crate::shell::Expr;
use bson::{doc, Bson, Document};

/// The explanations of a chunk, a shard and a balancer round ([`Cluster::explain_chunk`],
/// [`Cluster::explain_shard`], [`Cluster::explain_round`]), as functions: `sim.explain`
/// and the engine's inspector and `explain` ask [`explainer`] for them. With the
/// `lazy-explain` feature the core does not name them itself: the browser's engine
/// installs them (`install_explainer`) from the part of its module that loads after
/// the first answer, so that they are not in the first download.
#[derive(Clone, Copy)]
pub struct Explainer {
    /// Why a chunk is as it is.
    pub chunk: fn(&Cluster, &str, &KeyValue) -> Result<Vec<Explanation>, ClusterError>,
    /// What a shard holds and why.
    pub shard: fn(&Cluster, &str, &str) -> Result<Vec<Explanation>, ClusterError>,
    /// What the next balancer round does and why.
    pub round: fn(&Cluster, Option<&str>) -> Result<Vec<Explanation>, ClusterError>,
}

#[cfg(feature = "lazy-explain")]
static EXPLAINER: crate::support::part::Later<Explainer> = crate::support::part::Later::new();

/// Installs the explanations (the first installed stay). Each is an argument rather than
/// a field of a constant, so that the code that calls this names them, not a constant.
#[cfg(feature = "lazy-explain")]
#[inline(never)]
pub fn install_explainer(
    chunk: fn(&Cluster, &str, &KeyValue) -> Result<Vec<Explanation>, ClusterError>,
    shard: fn(&Cluster, &str, &str) -> Result<Vec<Explanation>, ClusterError>,
    round: fn(&Cluster, Option<&str>) -> Result<Vec<Explanation>, ClusterError>,
) {
    EXPLAINER.install(Explainer {
        chunk,
        shard,
        round,
    });
}

/// The explanations, or, with `lazy-explain` before they are installed, the statement's
/// error (`ClusterError::PartNotLoaded`, with the reason their part could not load).
pub fn explainer() -> Result<Explainer, ClusterError> {
    #[cfg(feature = "lazy-explain")]
    return EXPLAINER
        .get()
        .ok_or_else(|| crate::query::regex::part_not_loaded("explanations", "them"));
    #[cfg(not(feature = "lazy-explain"))]
    Ok(Explainer {
        chunk: Cluster::explain_chunk,
        shard: Cluster::explain_shard,
        round: Cluster::explain_round,
    })
}

/// What `sim.explain` takes, for its error messages.
const EXPLAIN_FORMS: &str =
    "sim.explain takes {ns, chunk: <key>}, {ns, shard: <name>}, {ns, doc: <document>} or {balancer: true, ns?}";

/// `sim.explain(spec)`: why the cluster looks as it does, each answer naming MongoDB's rule.
/// `{ns, chunk: <key>}` explains the chunk holding that key value (its lower bound, or any
/// value inside it, in key space: a hashed field takes a hash); `{ns, shard}` what a shard
/// holds; `{ns, doc}` where a document lands; `{balancer: true}` (with `ns` or for every
/// collection) what the next balancer round does and why.
pub(super) fn explain(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let spec = s.doc_arg(args, 0, "explain spec")?;
    let bad = |m: String| StatementError::from(ClusterError::InvalidOptions(m));
    for key in spec.keys() {
        if !["ns", "chunk", "shard", "doc", "balancer"].contains(&key.as_str()) {
            return Err(bad(format!("unknown field '{key}': {EXPLAIN_FORMS}")));
        }
    }
    let ns = match spec.get("ns") {
        None => None,
        Some(Bson::String(ns)) => Some(ns.clone()),
        Some(other) => {
            return Err(bad(format!(
                "ns must be a string, got {}",
                crate::shell::format_value(other)
            )))
        }
    };
    let subjects = ["chunk", "shard", "doc", "balancer"]
        .iter()
        .filter(|k| spec.contains_key(**k))
        .count();
    if subjects != 1 {
        return Err(bad(format!("give exactly one subject: {EXPLAIN_FORMS}")));
    }
    let list = |es: Vec<Explanation>| -> Bson {
        Bson::Array(es.iter().map(|e| Bson::Document(e.to_document())).collect())
    };
    if let Some(b) = spec.get("balancer") {
        if *b != Bson::Boolean(true) {
            return Err(bad(format!("balancer must be true: {EXPLAIN_FORMS}")));
        }
        let es = (explainer()?.round)(&s.cluster, ns.as_deref())?;
        let mut d = Document::new();
        if let Some(ns) = ns {
            d.insert("ns", ns);
        }
        d.insert("subject", "balancer round");
        d.insert("explanations", list(es));
        d.insert("ok", 1);
        return Ok(Bson::Document(d));
    }
    let Some(ns) = ns else {
        return Err(bad(format!("missing ns: {EXPLAIN_FORMS}")));
    };
    let mut d = doc! { "ns": ns.clone() };
    match (spec.get("chunk"), spec.get("shard"), spec.get("doc")) {
        (Some(Bson::Document(bound)), _, _) => {
            let sharding = s.cluster.sharding(&ns)?;
            let key = crate::engine::split::key_from_bound(&sharding.pattern, bound)?;
            let chunk = sharding.table.chunk_for(&key).cloned();
            let es = (explainer()?.chunk)(&s.cluster, &ns, &key)?;
            if let Some(c) = chunk {
                d.insert("chunk", chunk_doc(s, &ns, &c.min, &c.max, c.shard)?);
            }
            d.insert("explanations", list(es));
        }
        (_, Some(Bson::String(shard)), _) => {
            let es = (explainer()?.shard)(&s.cluster, &ns, shard)?;
            d.insert("shard", shard.clone());
            d.insert("explanations", list(es));
        }
        (_, _, Some(Bson::Document(doc))) => {
            let landing = s.cluster.explain_document(&ns, doc)?;
            let sh = s.cluster.sharding(&ns)?;
            d.insert("key", sh.pattern.to_document(&landing.key));
            if let Some((field, value, hash)) = &landing.hashed {
                d.insert(
                    "hashed",
                    doc! { "field": field.clone(), "value": value.clone(), "hash": *hash },
                );
            }
            d.insert(
                "chunk",
                chunk_doc(
                    s,
                    &ns,
                    &landing.chunk_min,
                    &landing.chunk_max,
                    landing.shard,
                )?,
            );
            d.insert("explanations", list(vec![landing.explanation]));
        }
        _ => {
            return Err(bad(format!(
                "chunk and doc must be objects, shard a string: {EXPLAIN_FORMS}"
            )))
        }
    }
    d.insert("ok", 1);
    Ok(Bson::Document(d))
}

/// `sim.chunkDocs(ns, key, {skip, limit})`: a page of the documents of the chunk holding
/// `key` (its lower bound or any key value inside it), in key order: each document's
/// `_id`, shard key value and, for a hashed key, the hashed value and its hash. `limit`
/// defaults to 20 and is at most 1,000.
pub(super) fn chunk_docs(s: &mut Session, args: &[Expr]) -> Result<Bson, StatementError> {
    let ns = s.str_arg(args, 0, "namespace")?;
    let bound = s.doc_arg(args, 1, "chunk key")?;
    let opts = s.opt_doc_arg(args, 2, "options")?;
    let bad = |m: String| StatementError::from(ClusterError::BadValue(m));
    let count = |key: &str, default: u64| -> Result<u64, StatementError> {
        let v = match opts.get(key) {
            None => return Ok(default),
            Some(Bson::Int32(n)) => i64::from(*n),
            Some(Bson::Int64(n)) => *n,
            Some(Bson::Double(d)) if d.fract() == 0.0 && d.abs() < 9.0e15 => *d as i64,
            Some(other) => {
                return Err(bad(format!(
                    "{key} must be a whole number, got {}",
                    crate::shell::format_value(other)
                )))
            }
        };
        u64::try_from(v).map_err(|_| bad(format!("{key} must not be negative, got {v}")))
    };
    for key in opts.keys() {
        if key != "skip" && key != "limit" {
            return Err(StatementError::from(ClusterError::InvalidOptions(format!(
                "unknown option '{key}': sim.chunkDocs takes {{skip, limit}}"
            ))));
        }
    }
    let (skip, limit) = (count("skip", 0)?, count("limit", 20)?);
    let sharding = s.cluster.sharding(&ns)?;
    let key = crate::engine::split::key_from_bound(&sharding.pattern, &bound)?;
    let page = s.cluster.chunk_documents(&ns, &key, skip, limit)?;
    let sharding = s.cluster.sharding(&ns)?;
    let docs: Vec<Bson> = page
        .rows
        .iter()
        .map(|r| {
            let mut d = doc! { "_id": r.id.clone(), "key": sharding.pattern.to_document(&r.key) };
            if let (Some(v), Some(i)) = (&r.hashed_value, page.hashed_field) {
                d.insert("value", v.clone());
                d.insert("hash", r.key.0.get(i).cloned().unwrap_or(Bson::Null));
            }
            Bson::Document(d)
        })
        .collect();
    let js = |n: u64| crate::values::js::js_number(n as f64);
    Ok(Bson::Document(doc! {
        "ns": ns.clone(),
        "chunk": chunk_doc(s, &ns, &page.min, &page.max, page.shard)?,
        "total": js(page.total),
        "skip": js(page.skip),
        "docs": docs,
        "ok": 1,
    }))
}

/// A chunk of `ns` as the answers show it: `{min, max, shard}`, the bounds as documents.
fn chunk_doc(
    s: &Session,
    ns: &str,
    min: &crate::keys::shard_key::KeyValue,
    max: &crate::keys::shard_key::KeyValue,
    shard: crate::engine::store::ShardIdx,
) -> Result<Document, StatementError> {
    let pattern = &s.cluster.sharding(ns)?.pattern;
    Ok(doc! {
        "min": pattern.to_document(min),
        "max": pattern.to_document(max),
        "shard": s.cluster.shard_name(shard),
    })
}
