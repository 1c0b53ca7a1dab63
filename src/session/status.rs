//! The shapes of `sh.status()`, `getShardDistribution()` and `balancerCollectionStatus`
//! (spec §11), built from the cluster.

use crate::engine::cluster::{Cluster, ClusterError, Sharding, VersionMode};
use crate::engine::config_catalog::{shard_docs, DatabaseDoc};
use crate::values::inspect::data_format;
use crate::values::js::js_number_to_string;
use bson::{doc, Bson, Document, Timestamp};

/// How many chunks (and zone ranges) of a collection `sh.status()` prints without
/// `verbose` before its notice.
const MAX_PRINTED: usize = 20;

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
        VersionMode::V70 => "7.0.14",
        VersionMode::V80 => "8.0.4",
    }
}

/// `sh.status(verbose)` as the sections mongosh prints.
pub fn sh_status(cluster: &Cluster, verbose: bool) -> Document {
    let mut out = Document::new();
    let cluster_id = bson::oid::ObjectId::from_bytes([0x65, 0x8f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    // config.version: until SERVER-68888 (6.2) it also held `minCompatibleVersion: 5`
    // and `currentVersion: 6`, as 3.6 to 6.0 clusters' `sh.status()` shows.
    let version = if cluster.version() >= VersionMode::V70 {
        doc! { "_id": 1, "clusterId": cluster_id }
    } else {
        doc! { "_id": 1, "minCompatibleVersion": 5, "currentVersion": 6, "clusterId": cluster_id }
    };
    out.insert("shardingVersion", version);
    out.insert("shards", shards_section(cluster));
    out.insert(
        "active mongoses",
        vec![Bson::Document(
            doc! { mongos_version(cluster.version()): 1 },
        )],
    );
    out.insert(
        "autosplit",
        // helpers.ts: `autosplit === null || autosplit.enabled ? 'yes' : 'no'`, over the
        // config.settings document (none in 8.0 until a helper writes one).
        doc! { "Currently enabled": if autosplit_shown(cluster) { "yes" } else { "no" } },
    );
    // helpers.ts adds `automerge` only when `config.settings` has its document, and reads
    // its `enabled` as JavaScript does (`automerge.enabled ? 'yes' : 'no'`).
    if let Some(doc) = &cluster.automerge_setting {
        let on = super::find_and_modify::truthy(doc.get("enabled"));
        out.insert(
            "automerge",
            doc! { "Currently enabled": if on { "yes" } else { "no" } },
        );
    }
    out.insert("balancer", balancer_section(cluster));
    // mongosh asks every server for `$shardedDataDistribution` and keeps `undefined`
    // where the stage is unknown, as before 6.0.3 (`getPrintableShardStatus`,
    // packages/shell-api/src/helpers.ts); 3.6 predates mongosh and prints no section.
    match cluster.version() {
        VersionMode::V36 => {}
        VersionMode::V50 => {
            out.insert("shardedDataDistribution", Bson::Undefined);
        }
        VersionMode::V70 | VersionMode::V80 => {
            let sdd = super::aggregate::sharded_data_distribution(cluster);
            out.insert("shardedDataDistribution", sdd);
        }
    }
    out.insert("databases", databases_section(cluster, verbose));
    out
}

/// `sh.status()`'s `databases` list, as `getPrintableShardStatus` (mongosh's
/// packages/shell-api/src/helpers.ts) builds it: every document of `config.databases`,
/// plus the `config` database that mongosh adds itself (it has no such document), sorted
/// with JavaScript's `localeCompare`. Each entry holds the database's document and its
/// sharded collections by namespace.
fn databases_section(cluster: &Cluster, verbose: bool) -> Vec<Bson> {
    let mut databases: Vec<(String, Document)> = cluster
        .databases()
        .iter()
        .map(|(db, info)| {
            let primary = cluster.shard_name(info.primary).to_string();
            (
                db.clone(),
                database_document(cluster.version(), db, primary),
            )
        })
        .collect();
    databases.push((
        "config".to_string(),
        doc! { "_id": "config", "primary": "config", "partitioned": true },
    ));
    // Each name's collation key is made once, not once per comparison.
    let mut keyed: Vec<(CollationKey, (String, Document))> = databases
        .into_iter()
        .map(|entry| (collation_key(&entry.0), entry))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let databases = keyed.into_iter().map(|(_, entry)| entry);
    databases
        .into_iter()
        .map(|(db, database)| {
            let mut collections = Document::new();
            for (ns, coll) in cluster.collections_in(&db) {
                let Some(s) = &coll.sharding else { continue };
                collections.insert(ns.clone(), collection_section(cluster, ns, s, verbose));
            }
            Bson::Document(doc! { "database": database, "collections": collections })
        })
        .collect()
}

/// A database's document in `config.databases`, in the shape its release stores
/// (see [`DatabaseDoc::of`]).
fn database_document(version: VersionMode, db: &str, primary: String) -> Document {
    DatabaseDoc::of(version, db, &primary).to_document()
}

/// What [`collation_key`] makes of a name.
type CollationKey = (Vec<u32>, Vec<bool>, String);

/// The primary weights of ICU's root collation for printable ASCII, lowest first, as
/// Node's `localeCompare` orders them: punctuation, then symbols, then digits, then
/// letters (case-folded here; case only breaks ties).
const ASCII_COLLATION: &str =
    "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz";

/// A name's key for JavaScript's `a.localeCompare(b)` over the names a cluster holds,
/// which mongosh uses to sort the databases: keys compare as the characters' primary
/// weights (ASCII as [`ASCII_COLLATION`], anything else after it by code point), then
/// lowercase before uppercase at the first difference, then the bytes.
fn collation_key(s: &str) -> CollationKey {
    let primary = |c: char| {
        let folded = c.to_ascii_lowercase();
        ASCII_COLLATION
            .find(folded)
            .map_or(ASCII_COLLATION.len() as u32 + c as u32, |i| i as u32)
    };
    (
        s.chars().map(primary).collect(),
        s.chars().map(|c| c.is_ascii_uppercase()).collect(),
        s.to_string(),
    )
}

/// `sh.status()`'s `shards` section: mongosh prints the documents of `config.shards`
/// (`getPrintableShardStatus`), so they are [`shard_docs`]'s, in their era's layout.
fn shards_section(cluster: &Cluster) -> Vec<Bson> {
    shard_docs(cluster)
        .iter()
        .map(|s| Bson::Document(s.to_document()))
        .collect()
}

/// `sh.status()`'s `balancer` section.
fn balancer_section(cluster: &Cluster) -> Document {
    // mongosh counts `moveChunk.from` changelog entries with `time > yesterday`.
    let recent = cluster.migrations_after(cluster.now_ms() - 86_400_000);
    let migrations = if recent == 0 {
        Bson::String("No recent migrations".to_string())
    } else {
        Bson::Document(doc! { recent.to_string(): "Success" })
    };
    let enabled = balancer_shown_enabled(cluster);
    let mut section = doc! {
        "Currently enabled": if enabled { "yes" } else { "no" },
        "Currently running": "no",
    };
    // helpers.ts: "Balancer active window is set between" `${start} and ${stop} server
    // local time`, when the `balancer` document has an `activeWindow` (whatever it
    // holds: the template prints `undefined` for a missing field).
    if let Some(Bson::Document(w)) = cluster
        .balancer_setting
        .as_ref()
        .and_then(|d| d.get("activeWindow"))
    {
        let text = |k: &str| match w.get(k) {
            Some(Bson::String(s)) => s.clone(),
            Some(v) => crate::values::inspect::format_value(v),
            None => "undefined".to_string(),
        };
        section.insert(
            "Balancer active window is set between",
            format!("{} and {} server local time", text("start"), text("stop")),
        );
    }
    section.insert("Failed balancer rounds in last 5 attempts", 0);
    section.insert("Migration Results for the last 24 hours", migrations);
    section
}

/// One sharded collection in `sh.status()`, in the field order of mongosh's
/// `getPrintableShardStatus`: its key, `unique`, `balancing`, `allowMigrations` (ShardLab
/// has no `setAllowMigrations`, so always `true`), chunk counts per shard, the chunks and
/// its zone ranges.
fn collection_section(cluster: &Cluster, ns: &str, s: &Sharding, verbose: bool) -> Document {
    let mut meta: Vec<(String, u64)> = Vec::new();
    for (i, stat) in cluster.shard_stats(ns).iter().enumerate() {
        if stat.chunks > 0 {
            meta.push((cluster.shard_name(i as u32).to_string(), stat.chunks));
        }
    }
    meta.sort();
    let chunks = s.table.iter().map(|c| {
        let mut d = doc! {
            "min": s.pattern.to_document(&c.min),
            "max": s.pattern.to_document(&c.max),
            "on shard": cluster.shard_name(c.shard),
            "last modified": Timestamp { time: c.version.major, increment: c.version.minor },
        };
        if c.jumbo {
            d.insert("jumbo", "yes");
        }
        d
    });
    let tags = s.zones.iter().map(|z| {
        doc! {
            "tag": z.zone.clone(),
            "min": s.pattern.to_document(&z.min),
            "max": s.pattern.to_document(&z.max),
        }
    });
    doc! {
        "shardKey": s.pattern.to_pattern_document(),
        "unique": s.unique,
        "balancing": s.balancing,
        "allowMigrations": true,
        "chunkMetadata": meta.into_iter().map(|(shard, n)| Bson::Document(doc! { "shard": shard, "nChunks": js_count(n) })).collect::<Vec<_>>(),
        "chunks": first_chunks(chunks, verbose),
        "tags": first_tags(tags, verbose),
    }
}

/// The chunk list as mongosh's loop over `config.chunks` builds it: every chunk with
/// `verbose`; otherwise the first [`MAX_PRINTED`], and when a 21st exists, the notice
/// in its place.
fn first_chunks(chunks: impl Iterator<Item = Document>, verbose: bool) -> Vec<Bson> {
    let mut out = Vec::new();
    for c in chunks {
        if out.len() < MAX_PRINTED || verbose {
            out.push(Bson::Document(c));
        } else {
            out.push(Bson::String(
                "too many chunks to print, use verbose if you want to force print".into(),
            ));
            break;
        }
    }
    out
}

/// The zone list as mongosh's loop over `config.tags` builds it. Unlike the chunk loop,
/// it checks for the notice right after adding a range, so exactly 20 ranges already
/// print the notice after them.
fn first_tags(tags: impl Iterator<Item = Document>, verbose: bool) -> Vec<Bson> {
    let mut out = Vec::new();
    for t in tags {
        if out.len() < MAX_PRINTED || verbose {
            out.push(Bson::Document(t));
        }
        if out.len() == MAX_PRINTED && !verbose {
            out.push(Bson::String(
                "too many tags to print, use verbose if you want to force print".into(),
            ));
            break;
        }
    }
    out
}

/// `db.coll.getShardDistribution()` as the sections mongosh prints.
pub fn shard_distribution(cluster: &Cluster, ns: &str) -> Result<Document, ClusterError> {
    if cluster.collection(ns).is_none() {
        return Err(ClusterError::NamespaceNotFound(format!(
            "Collection {ns} not found"
        )));
    }
    let stats = cluster.shard_stats(ns);
    let total_bytes: u64 = stats.iter().map(|s| s.bytes).sum();
    let total_docs: u64 = stats.iter().map(|s| s.docs).sum();
    let total_chunks: u64 = stats.iter().map(|s| s.chunks).sum();
    let mut out = Document::new();
    let mut totals = doc! {
        "data": data_format(total_bytes as f64),
        "docs": js_count(total_docs),
        "chunks": js_count(total_chunks),
    };
    for (i, shard) in cluster.all_shards().iter().enumerate() {
        let st = stats[i];
        if st.chunks == 0 {
            continue;
        }
        // mongosh's `getShardDistribution` (collection.ts) estimates 0 for a shard
        // without chunks rather than dividing by zero.
        let (per_chunk_bytes, per_chunk_docs) = match st.chunks {
            0 => (0.0, 0),
            n => (st.bytes as f64 / n as f64, st.docs / n),
        };
        out.insert(
            format!("Shard {} at {}", shard.name, shard.host),
            doc! {
                "data": data_format(st.bytes as f64),
                "docs": js_count(st.docs),
                "chunks": js_count(st.chunks),
                "estimated data per chunk": data_format(per_chunk_bytes),
                "estimated docs per chunk": js_count(per_chunk_docs),
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
/// A name without a collection part (a database's) is refused first, as the config
/// server's `_configsvrBalancerCollectionStatus` does (`nss.isValid()`).
pub fn balancer_collection_status(cluster: &Cluster, ns: &str) -> Result<Document, ClusterError> {
    if !ns
        .split_once('.')
        .is_some_and(|(db, c)| !db.is_empty() && !c.is_empty())
    {
        return Err(ClusterError::InvalidNamespace(format!(
            "Invalid namespace specified '{ns}'"
        )));
    }
    if cluster.sharding(ns).is_err() {
        // 4.4/5.0 read the routing table through the catalog cache
        // (`getShardedCollectionRoutingInfoWithRefresh`): a database it does not know is
        // NamespaceNotFound, an unsharded collection NamespaceNotSharded in its words, as
        // the 4.4 balancer_collection_status.js expects; from 5.3 the config server reads
        // `config.collections` and answers both alike.
        if cluster.version() == VersionMode::V50 {
            let db = ns.split_once('.').map_or(ns, |(db, _)| db);
            if !cluster.databases().contains_key(db) {
                return Err(ClusterError::NamespaceNotFound(format!(
                    "database {db} not found"
                )));
            }
            return Err(ClusterError::NamespaceNotSharded(format!(
                "Collection {ns} is not sharded."
            )));
        }
        return Err(ClusterError::NamespaceNotSharded(
            "Collection unsharded or undefined".into(),
        ));
    }
    let mut d = Document::new();
    // 4.4/5.0's reply has no chunkSize (balancer_collection_status.idl of 4.4; the jstest
    // balancer_collection_status.js checks it from 5.3). 7.0/8.0 give the size in MB as a
    // double rounded up to two decimals (`std::ceil(maxChunkSizeMB * 100.0) / 100.0`).
    if cluster.version() >= VersionMode::V70 {
        let mb = cluster.chunk_size_for(ns) as f64 / (1024.0 * 1024.0);
        d.insert("chunkSize", (mb * 100.0).ceil() / 100.0);
    }
    // 6.0 on, `Balancer::getBalancerStatusForNs` answers a collection being
    // defragmented before anything else, with the policy's `reportProgressOn`.
    if let Some(defrag) = cluster.sharding(ns).ok().and_then(|s| s.defrag.as_ref()) {
        let details = match defrag.progress() {
            Some((phase, remaining)) => doc! {
                "currentPhase": phase.name(),
                "progress": { "remainingChunksToProcess": remaining as i64 },
            },
            None => doc! { "currentPhase": "none" },
        };
        d.insert("balancerCompliant", false);
        d.insert("firstComplianceViolation", "defragmentingChunks");
        d.insert("details", details);
        d.insert("ok", 1);
        return Ok(d);
    }
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

/// Whether `sh.status()` says auto-split is enabled: yes without an `autosplit`
/// settings document, else its `enabled` read as JavaScript does (helpers.ts
/// `autosplit === null || autosplit.enabled`), whatever the cluster makes of it.
fn autosplit_shown(cluster: &Cluster) -> bool {
    match &cluster.autosplit_setting {
        Some(doc) => super::find_and_modify::truthy(doc.get("enabled")),
        None => true,
    }
}

/// What mongosh reads as the balancer's state (shard.ts `getBalancerState`, helpers.ts
/// `sh.status()`'s "Currently enabled"): no `balancer` document, or one whose `stopped`
/// is falsy. A document with `mode: 'off'` alone still reads as enabled.
pub(super) fn balancer_shown_enabled(cluster: &Cluster) -> bool {
    match &cluster.balancer_setting {
        Some(doc) => !super::find_and_modify::truthy(doc.get("stopped")),
        None => cluster.balancer_enabled,
    }
}
