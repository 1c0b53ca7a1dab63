//! The shapes of `sh.status()`, `getShardDistribution()` and `balancerCollectionStatus`
//! (spec §11), built from the cluster.

use crate::engine::cluster::{Cluster, ClusterError, Sharding, VersionMode};
use crate::values::inspect::data_format;
use crate::values::js::js_number_to_string;
use bson::{doc, Bson, Document, Timestamp};

/// Above this many chunks, `sh.status()` without `verbose` prints a notice instead.
const MAX_CHUNKS_PRINTED: usize = 20;

/// A count as a JavaScript number prints in mongosh: an int32 when it fits.
fn js_count(n: u64) -> Bson {
    i32::try_from(n).map_or(Bson::Double(n as f64), Bson::Int32)
}

/// mongosh's percentage: `floor(part / total * 10000) / 100`.
fn percent(part: f64, total: f64) -> String {
    if total == 0.0 {
        return "0".to_string();
    }
    js_number_to_string((part / total * 10000.0).floor() / 100.0)
}

/// The version string a mongos of this era reports.
fn mongos_version(v: VersionMode) -> &'static str {
    match v {
        VersionMode::V36 => "3.6.23",
        VersionMode::V50 => "5.0.31",
        VersionMode::V80 => "8.0.4",
    }
}

/// `sh.status(verbose)` as the sections mongosh prints.
pub fn sh_status(cluster: &Cluster, verbose: bool) -> Document {
    let mut out = Document::new();
    out.insert(
        "shardingVersion",
        doc! { "_id": 1, "clusterId": bson::oid::ObjectId::from_bytes([0x65, 0x8f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) },
    );
    out.insert("shards", shards_section(cluster));
    out.insert(
        "active mongoses",
        vec![Bson::Document(
            doc! { mongos_version(cluster.version()): 1 },
        )],
    );
    out.insert(
        "autosplit",
        doc! { "Currently enabled": if cluster.autosplit_enabled { "yes" } else { "no" } },
    );
    out.insert("balancer", balancer_section(cluster));
    let mut databases = Vec::new();
    for (db, info) in cluster.databases() {
        let mut collections = Document::new();
        for (ns, coll) in cluster.collections() {
            if ns.split('.').next() != Some(db.as_str()) {
                continue;
            }
            let Some(s) = &coll.sharding else { continue };
            collections.insert(ns.clone(), collection_section(cluster, ns, s, verbose));
        }
        databases.push(Bson::Document(doc! {
            "database": { "_id": db.clone(), "primary": cluster.shard_name(info.primary), "partitioned": true },
            "collections": collections,
        }));
    }
    out.insert("databases", databases);
    out
}

/// `sh.status()`'s `shards` section: each shard with its draining flag, zones and
/// topology time.
fn shards_section(cluster: &Cluster) -> Vec<Bson> {
    cluster
        .shards()
        .map(|(_, s)| {
            let mut d = doc! { "_id": s.name.clone(), "host": s.host.clone(), "state": 1 };
            if s.draining {
                d.insert("draining", true);
            }
            if !s.zones.is_empty() {
                d.insert(
                    "tags",
                    s.zones
                        .iter()
                        .cloned()
                        .map(Bson::String)
                        .collect::<Vec<_>>(),
                );
            }
            d.insert(
                "topologyTime",
                Timestamp {
                    time: 1_735_689_600,
                    increment: 1,
                },
            );
            Bson::Document(d)
        })
        .collect()
}

/// `sh.status()`'s `balancer` section.
fn balancer_section(cluster: &Cluster) -> Document {
    let migrations = if cluster.migrations == 0 {
        Bson::String("No recent migrations".to_string())
    } else {
        Bson::Document(doc! { cluster.migrations.to_string(): "Success" })
    };
    doc! {
        "Currently enabled": if cluster.balancer_enabled { "yes" } else { "no" },
        "Currently running": "no",
        "Failed balancer rounds in last 5 attempts": 0,
        "Migration Results for the last 24 hours": migrations,
    }
}

/// One sharded collection in `sh.status()`: its key, chunk counts per shard, the chunks
/// themselves (unless there are too many and `verbose` is off) and its zone ranges.
fn collection_section(cluster: &Cluster, ns: &str, s: &Sharding, verbose: bool) -> Document {
    let mut meta: Vec<(String, u64)> = Vec::new();
    for (i, stat) in cluster.shard_stats(ns).iter().enumerate() {
        if stat.chunks > 0 {
            meta.push((cluster.shard_name(i as u32).to_string(), stat.chunks));
        }
    }
    crate::support::sort::sort(&mut meta);
    let chunks: Bson = if s.table.len() >= MAX_CHUNKS_PRINTED && !verbose {
        Bson::String("too many chunks to print, use verbose if you want to force print".into())
    } else {
        Bson::Array(
            s.table
                .iter()
                .map(|c| {
                    let mut d = doc! {
                        "min": s.pattern.to_document(&c.min),
                        "max": s.pattern.to_document(&c.max),
                        "on shard": cluster.shard_name(c.shard),
                        "last modified": Timestamp { time: c.version.major, increment: c.version.minor },
                    };
                    if c.jumbo {
                        d.insert("jumbo", "yes");
                    }
                    Bson::Document(d)
                })
                .collect(),
        )
    };
    let tags: Vec<Bson> = s
        .zones
        .iter()
        .map(|z| {
            Bson::Document(doc! {
                "tag": z.zone.clone(),
                "min": s.pattern.to_document(&z.min),
                "max": s.pattern.to_document(&z.max),
            })
        })
        .collect();
    doc! {
        "shardKey": s.pattern.to_pattern_document(),
        "unique": s.unique,
        "balancing": s.balancing,
        "chunkMetadata": meta.into_iter().map(|(shard, n)| Bson::Document(doc! { "shard": shard, "nChunks": js_count(n) })).collect::<Vec<_>>(),
        "chunks": chunks,
        "tags": tags,
    }
}

/// `db.coll.getShardDistribution()` as the sections mongosh prints.
pub fn shard_distribution(cluster: &Cluster, ns: &str) -> Result<Document, ClusterError> {
    let coll = cluster
        .collection(ns)
        .ok_or_else(|| ClusterError::NamespaceNotFound(format!("Collection {ns} not found")))?;
    let stats = cluster.shard_stats(ns);
    let total_bytes: u64 = stats.iter().map(|s| s.bytes).sum();
    let total_docs: u64 = stats.iter().map(|s| s.docs).sum();
    let total_chunks: u64 = stats.iter().map(|s| s.chunks).sum();
    let sharded = coll.sharding.is_some();
    let mut out = Document::new();
    let mut totals = doc! {
        "data": data_format(total_bytes as f64),
        "docs": js_count(total_docs),
        "chunks": js_count(total_chunks),
    };
    for (i, shard) in cluster.all_shards().iter().enumerate() {
        let st = stats[i];
        let holds = if sharded {
            st.chunks > 0
        } else {
            i as u32 == cluster.primary_of(ns)
        };
        if !holds {
            continue;
        }
        let chunks = st.chunks.max(1) as f64;
        out.insert(
            format!("Shard {} at {}", shard.name, shard.host),
            doc! {
                "data": data_format(st.bytes as f64),
                "docs": js_count(st.docs),
                "chunks": js_count(st.chunks),
                "estimated data per chunk": data_format(st.bytes as f64 / chunks),
                "estimated docs per chunk": js_count((st.docs as f64 / chunks).floor() as u64),
            },
        );
        let avg = st.bytes.checked_div(st.docs).unwrap_or(0) as f64;
        totals.insert(
            format!("Shard {}", shard.name),
            vec![
                Bson::String(format!(
                    "{} % data",
                    percent(st.bytes as f64, total_bytes as f64)
                )),
                Bson::String(format!(
                    "{} % docs in cluster",
                    percent(st.docs as f64, total_docs as f64)
                )),
                Bson::String(format!("{} avg obj size on shard", data_format(avg))),
            ],
        );
    }
    out.insert("Totals", totals);
    Ok(out)
}

/// `sh.balancerCollectionStatus(ns)`.
pub fn balancer_collection_status(cluster: &Cluster, ns: &str) -> Result<Document, ClusterError> {
    if cluster.sharding(ns).is_err() {
        return Err(ClusterError::NamespaceNotSharded(
            "Collection unsharded or undefined".into(),
        ));
    }
    let mut d = Document::new();
    d.insert(
        "chunkSize",
        (cluster.chunk_size() as f64 / (1024.0 * 1024.0) * 100.0).round() / 100.0,
    );
    match cluster.first_violation(ns) {
        None => {
            d.insert("balancerCompliant", true);
        }
        Some(v) => {
            d.insert("balancerCompliant", false);
            d.insert("firstComplianceViolation", v);
        }
    }
    d.insert("ok", 1);
    Ok(d)
}
