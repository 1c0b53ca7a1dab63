//! The config database as each release lays it out: one type per config collection,
//! built from the cluster and written as the documents a mongos would return
//! (src/mongo/s/catalog/type_shard.cpp, type_database.idl, type_collection.idl,
//! type_chunk.cpp, type_tags.cpp, type_changelog.cpp, the balancer's settings types).
//!
//! Each type also reads its documents back ([`ChunkDoc::from_document`] and the others),
//! so that the same layout is what a cluster can be imported from. Which fields a
//! document has is decided once, when it is built for a [`VersionMode`]; writing it and
//! reading it back need no mode.
//!
//! ShardLab keeps no wall clock: the time of an event is the simulated clock's when it
//! happened (`Event::at_ms`, see `engine/clock.rs`), and its cluster time (a `Timestamp`)
//! is that second with the event's order among the events of the same second, so that two
//! events never share one, as the config server's oplog times never do.

use crate::engine::chunks::ChunkVersion;
use crate::engine::cluster::{Cluster, ClusterError, VersionMode};
use crate::engine::events::EventKind;
use crate::keys::shard_key::{KeyPattern, KeyValue};
use bson::oid::ObjectId;
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document, Timestamp};

/// The config collections ShardLab publishes, in the order `show collections` lists them.
pub const CONFIG_COLLECTIONS: [&str; 7] = [
    "changelog",
    "chunks",
    "collections",
    "databases",
    "settings",
    "shards",
    "tags",
];

/// The simulated time, in seconds since 1970, before the first event (2025-01-01).
pub const EPOCH_SECS: u32 = 1_735_689_600;

/// The host name the config server logs its changes under (`server` in `config.changelog`).
pub const CONFIG_SERVER_HOST: &str = "localhost:27019";

/// When something happened, as the config layout records it: the simulated time in
/// milliseconds since 1970 and the cluster time the config server stamps its writes with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stamp {
    /// Milliseconds since the Unix epoch (the simulated clock).
    pub(crate) ms: i64,
    /// The cluster time: the second, and the order of the write within it.
    pub(crate) ts: Timestamp,
}

impl Default for Stamp {
    fn default() -> Self {
        Stamp::START
    }
}

impl Stamp {
    /// The cluster's start (2025-01-01), when its shards and databases were set up: the
    /// first increment of the first second.
    pub(crate) const START: Stamp = Stamp {
        ms: crate::engine::clock::EPOCH_MS,
        ts: Timestamp {
            time: EPOCH_SECS,
            increment: 1,
        },
    };

    /// The whole seconds of the stamp (what an ObjectId made then carries).
    fn secs(&self) -> u32 {
        self.ts.time
    }
}

/// Gives each event of the log, oldest first, its [`Stamp`]: its own time, and an
/// increment that counts the events of its second from 1 (from 2 in the first second,
/// whose first increment is [`Stamp::START`]'s).
#[derive(Debug, Clone)]
pub(crate) struct Stamper {
    last: Timestamp,
}

impl Default for Stamper {
    fn default() -> Self {
        Stamper {
            last: Stamp::START.ts,
        }
    }
}

impl Stamper {
    /// The stamp of the next event, which happened at `at_ms` (never before the last).
    pub(crate) fn stamp(&mut self, at_ms: i64) -> Stamp {
        let secs = u32::try_from(at_ms.div_euclid(1000).max(0)).unwrap_or(u32::MAX);
        // The log is in time order; a second already passed would still count on.
        self.last = if secs <= self.last.time {
            Timestamp {
                time: self.last.time,
                increment: self.last.increment.saturating_add(1),
            }
        } else {
            Timestamp {
                time: secs,
                increment: 1,
            }
        };
        Stamp {
            ms: at_ms,
            ts: self.last,
        }
    }
}

/// Every event of the cluster's log with its [`Stamp`], oldest first.
pub(crate) fn stamped_events(
    cluster: &Cluster,
) -> impl Iterator<Item = (&crate::engine::events::Event, Stamp)> {
    let mut stamper = Stamper::default();
    cluster
        .events()
        .iter()
        .map(move |e| (e, stamper.stamp(e.at_ms)))
}

/// A stable version 4 UUID made from two hashes of `name`.
pub fn name_uuid(name: &str) -> Binary {
    let name = Bson::String(name.to_string());
    let mut bytes = Vec::with_capacity(16);
    bytes.extend_from_slice(&crate::values::hash::hash64(&name, 0).to_be_bytes());
    bytes.extend_from_slice(&crate::values::hash::hash64(&name, 1).to_be_bytes());
    // Version 4 and the RFC 4122 variant, as a randomly made UUID is marked.
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Binary {
        subtype: BinarySubtype::Uuid,
        bytes,
    }
}

/// An ObjectId made at `secs` from a hash of `name`: what the config server would have
/// generated, made deterministic.
fn name_oid(secs: u32, name: &Bson) -> ObjectId {
    let mut bytes = [0u8; 12];
    bytes[..4].copy_from_slice(&secs.to_be_bytes());
    bytes[4..].copy_from_slice(&crate::values::hash::hash64(name, 7).to_be_bytes());
    ObjectId::from_bytes(bytes)
}

/// Reads the fields of one config document, with an error naming what is wrong.
struct Reader<'a> {
    doc: &'a Document,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn bad(&self, field: &str) -> ClusterError {
        ClusterError::FailedToParse(format!(
            "config.{}: the field '{field}' is missing or has the wrong type",
            self.what
        ))
    }
    fn get(&self, field: &str) -> Result<&'a Bson, ClusterError> {
        self.doc.get(field).ok_or_else(|| self.bad(field))
    }
    fn string(&self, field: &str) -> Result<String, ClusterError> {
        match self.get(field)? {
            Bson::String(s) => Ok(s.clone()),
            _ => Err(self.bad(field)),
        }
    }
    fn document(&self, field: &str) -> Result<Document, ClusterError> {
        match self.get(field)? {
            Bson::Document(d) => Ok(d.clone()),
            _ => Err(self.bad(field)),
        }
    }
    fn timestamp(&self, field: &str) -> Result<Timestamp, ClusterError> {
        match self.get(field)? {
            Bson::Timestamp(t) => Ok(*t),
            _ => Err(self.bad(field)),
        }
    }
    fn opt<T>(
        &self,
        field: &str,
        read: impl Fn(&Bson) -> Option<T>,
    ) -> Result<Option<T>, ClusterError> {
        match self.doc.get(field) {
            None => Ok(None),
            Some(v) => read(v).map(Some).ok_or_else(|| self.bad(field)),
        }
    }
}

fn as_bool(v: &Bson) -> Option<bool> {
    match v {
        Bson::Boolean(b) => Some(*b),
        _ => None,
    }
}

fn as_timestamp(v: &Bson) -> Option<Timestamp> {
    match v {
        Bson::Timestamp(t) => Some(*t),
        _ => None,
    }
}

fn as_oid(v: &Bson) -> Option<ObjectId> {
    match v {
        Bson::ObjectId(o) => Some(*o),
        _ => None,
    }
}

fn as_uuid(v: &Bson) -> Option<Binary> {
    match v {
        Bson::Binary(b) if b.subtype == BinarySubtype::Uuid => Some(b.clone()),
        _ => None,
    }
}

/// A document of `config.shards` (type_shard.cpp's `toBSON`: `_id`, `host`, `draining`
/// when set, `tags` when the shard has zones, `state`, and `topologyTime` from 5.0).
#[derive(Debug, Clone, PartialEq)]
pub struct ShardDoc {
    /// The shard's name.
    pub id: String,
    /// Its replica set connection string.
    pub host: String,
    /// Set while `removeShard` drains it.
    pub draining: bool,
    /// Its zones, when it has any.
    pub tags: Option<Vec<String>>,
    /// `1`: the shard is aware it is a shard (3.4+).
    pub state: i32,
    /// When the shard joined the topology (5.0+).
    pub topology_time: Option<Timestamp>,
    /// The shard's replica set config version the config server last saw (8.0+: `-1`
    /// until a shard reports one; listShards and `sh.status()` of 8.0 clusters show
    /// `replSetConfigVersion: Long('-1')`).
    pub repl_set_config_version: Option<i64>,
}

impl ShardDoc {
    /// The document, in the source's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        d.insert("host", self.host.clone());
        if self.draining {
            d.insert("draining", true);
        }
        if let Some(tags) = &self.tags {
            d.insert("tags", tags.clone());
        }
        d.insert("state", self.state);
        if let Some(t) = self.topology_time {
            d.insert("topologyTime", t);
        }
        if let Some(v) = self.repl_set_config_version {
            d.insert("replSetConfigVersion", v);
        }
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "shards",
        };
        let tags = r.opt("tags", |v| match v {
            Bson::Array(a) => a
                .iter()
                .map(|t| match t {
                    Bson::String(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        })?;
        Ok(ShardDoc {
            id: r.string("_id")?,
            host: r.string("host")?,
            draining: r.opt("draining", as_bool)?.unwrap_or(false),
            tags,
            state: r
                .opt("state", |v| match v {
                    Bson::Int32(n) => Some(*n),
                    _ => None,
                })?
                .unwrap_or(0),
            topology_time: r.opt("topologyTime", as_timestamp)?,
            repl_set_config_version: r.opt("replSetConfigVersion", |v| match v {
                Bson::Int64(n) => Some(*n),
                _ => None,
            })?,
        })
    }
}

/// The version of a database (5.0+, src/mongo/s/database_version.idl).
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseVersion {
    /// The database's UUID.
    pub uuid: Binary,
    /// When it was created.
    pub timestamp: Timestamp,
    /// Bumped by each `movePrimary`.
    pub last_mod: i32,
}

/// A document of `config.databases` (type_database.idl): `_id`, `primary`,
/// `partitioned` before 7.0, and the database version from 5.0.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseDoc {
    /// The database's name.
    pub id: String,
    /// Its primary shard.
    pub primary: String,
    /// `partitioned`, deprecated in 6.0 and gone in 7.0.
    pub partitioned: Option<bool>,
    /// The database version (5.0+).
    pub version: Option<DatabaseVersion>,
}

impl DatabaseDoc {
    /// A database's document in `version`'s layout. ShardLab does not record whether
    /// `sh.enableSharding` ran, so `partitioned` is `true`; the UUID comes from the
    /// name, and `lastMod` stays 1 because primary moves are not counted.
    pub fn of(version: VersionMode, db: &str, primary: &str) -> Self {
        DatabaseDoc {
            id: db.to_string(),
            primary: primary.to_string(),
            partitioned: (version < VersionMode::V70).then_some(true),
            version: (version != VersionMode::V36).then(|| DatabaseVersion {
                uuid: name_uuid(db),
                timestamp: Stamp::START.ts,
                last_mod: 1,
            }),
        }
    }

    /// The document, in the source's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        d.insert("primary", self.primary.clone());
        if let Some(p) = self.partitioned {
            d.insert("partitioned", p);
        }
        if let Some(v) = &self.version {
            let mut vd = Document::new();
            vd.insert("uuid", Bson::Binary(v.uuid.clone()));
            vd.insert("timestamp", v.timestamp);
            vd.insert("lastMod", v.last_mod);
            d.insert("version", vd);
        }
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "databases",
        };
        let version = match doc.get("version") {
            None => None,
            Some(Bson::Document(v)) => {
                let vr = Reader {
                    doc: v,
                    what: "databases",
                };
                Some(DatabaseVersion {
                    uuid: as_uuid(vr.get("uuid")?).ok_or_else(|| vr.bad("uuid"))?,
                    timestamp: vr.timestamp("timestamp")?,
                    last_mod: match vr.get("lastMod")? {
                        Bson::Int32(n) => *n,
                        _ => return Err(vr.bad("lastMod")),
                    },
                })
            }
            Some(_) => return Err(r.bad("version")),
        };
        Ok(DatabaseDoc {
            id: r.string("_id")?,
            primary: r.string("primary")?,
            partitioned: r.opt("partitioned", as_bool)?,
            version,
        })
    }
}

/// A document of `config.collections`: 3.6's `CollectionType::toBSON` (`_id`,
/// `lastmodEpoch`, `lastmod`, `dropped`, `key`, `unique`, `uuid`, `noBalance` when
/// set), or type_collection.idl's from 5.0 (`_id`, `lastmodEpoch`, `lastmod`,
/// `timestamp`, `uuid`, `key`, `unique`, `noBalance`, the last two always written
/// because the IDL gives them defaults). `maxChunkSizeBytes` (a long),
/// `defragmentCollection`, `enableAutoMerge` and `defragmentationPhase` follow when
/// `configureCollectionBalancing`, `sh.disableAutoMerger` or the balancer's
/// defragmentation set them: `$set` appends a field the document lacks, so they come
/// last, in the IDL's order. (`noAutoSplit` was 6.0's answer to
/// `enableAutoSplitter`; 7.0's type_collection.idl has neither, and ShardLab's
/// `configureCollectionBalancing` takes 7.0's options.)
#[derive(Debug, Clone, PartialEq)]
pub struct CollectionDoc {
    /// The namespace.
    pub id: String,
    /// This incarnation's epoch.
    pub epoch: ObjectId,
    /// When it was sharded.
    pub lastmod: DateTime,
    /// 3.6's `dropped` flag; `Some` only in 3.6's layout.
    pub dropped: Option<bool>,
    /// When it was sharded, as a cluster time (5.0+).
    pub timestamp: Option<Timestamp>,
    /// The collection's UUID.
    pub uuid: Binary,
    /// The shard key pattern.
    pub key: Document,
    /// Whether the shard key is unique.
    pub unique: bool,
    /// `noBalance`, when written.
    pub no_balance: Option<bool>,
    /// The collection's own maximum chunk size in bytes, when set.
    pub max_chunk_size_bytes: Option<i64>,
    /// Whether the AutoMerger may merge this collection's chunks, when set.
    pub enable_auto_merge: Option<bool>,
    /// `defragmentCollection`, set while the collection is being defragmented.
    pub defragment_collection: Option<bool>,
    /// `defragmentationPhase`, once the balancer built the first phase.
    pub defragmentation_phase: Option<String>,
}

impl CollectionDoc {
    /// The document, in its era's field order (3.6's when `dropped` is there).
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        d.insert("lastmodEpoch", self.epoch);
        d.insert("lastmod", self.lastmod);
        if let Some(dropped) = self.dropped {
            d.insert("dropped", dropped);
            d.insert("key", self.key.clone());
            d.insert("unique", self.unique);
            d.insert("uuid", Bson::Binary(self.uuid.clone()));
        } else {
            if let Some(t) = self.timestamp {
                d.insert("timestamp", t);
            }
            d.insert("uuid", Bson::Binary(self.uuid.clone()));
            d.insert("key", self.key.clone());
            d.insert("unique", self.unique);
        }
        if let Some(nb) = self.no_balance {
            d.insert("noBalance", nb);
        }
        if let Some(bytes) = self.max_chunk_size_bytes {
            d.insert("maxChunkSizeBytes", bytes);
        }
        if let Some(on) = self.defragment_collection {
            d.insert("defragmentCollection", on);
        }
        if let Some(on) = self.enable_auto_merge {
            d.insert("enableAutoMerge", on);
        }
        if let Some(phase) = &self.defragmentation_phase {
            d.insert("defragmentationPhase", phase.clone());
        }
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "collections",
        };
        Ok(CollectionDoc {
            id: r.string("_id")?,
            epoch: as_oid(r.get("lastmodEpoch")?).ok_or_else(|| r.bad("lastmodEpoch"))?,
            lastmod: match r.get("lastmod")? {
                Bson::DateTime(t) => *t,
                _ => return Err(r.bad("lastmod")),
            },
            dropped: r.opt("dropped", as_bool)?,
            timestamp: r.opt("timestamp", as_timestamp)?,
            uuid: as_uuid(r.get("uuid")?).ok_or_else(|| r.bad("uuid"))?,
            key: r.document("key")?,
            unique: r.opt("unique", as_bool)?.unwrap_or(false),
            no_balance: r.opt("noBalance", as_bool)?,
            max_chunk_size_bytes: r.opt("maxChunkSizeBytes", |v| match v {
                Bson::Int64(n) => Some(*n),
                Bson::Int32(n) => Some(i64::from(*n)),
                _ => None,
            })?,
            enable_auto_merge: r.opt("enableAutoMerge", as_bool)?,
            defragment_collection: r.opt("defragmentCollection", as_bool)?,
            defragmentation_phase: r
                .opt("defragmentationPhase", |v| v.as_str().map(str::to_string))?,
        })
    }
}

/// One entry of a chunk's `history` (4.2+): the shard that owns it from `valid_after`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHistory {
    /// From when the shard owns the chunk.
    pub valid_after: Timestamp,
    /// The shard.
    pub shard: String,
}

/// A document of `config.chunks` (type_chunk.cpp's `toConfigBSON`): `_id`, then `ns`
/// (3.6) or `uuid` (5.0+), `min`, `max`, `shard`, `lastmod` (a Timestamp of major and
/// minor version), `lastmodEpoch` (3.6), `jumbo` when set, `onCurrentShardSince`
/// (7.0+) and `history` (4.2+).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkDoc {
    /// 3.6: `genID(ns, min)`, a string; 5.0+: an ObjectId.
    pub id: Bson,
    /// The namespace (3.6).
    pub ns: Option<String>,
    /// The collection's UUID (5.0+).
    pub uuid: Option<Binary>,
    /// The inclusive lower bound.
    pub min: Document,
    /// The exclusive upper bound.
    pub max: Document,
    /// The owning shard.
    pub shard: String,
    /// The chunk version: `t` the major, `i` the minor version.
    pub lastmod: Timestamp,
    /// The collection epoch (3.6).
    pub epoch: Option<ObjectId>,
    /// Set when the chunk is jumbo.
    pub jumbo: bool,
    /// When the chunk came to its shard (7.0+).
    pub on_current_shard_since: Option<Timestamp>,
    /// Where the chunk has been, newest first (4.2+).
    pub history: Vec<ChunkHistory>,
    /// `estimatedDataSizeBytes`, the size defragmentation measured (6.0+), while it runs.
    pub estimated_data_size_bytes: Option<i64>,
}

impl ChunkDoc {
    /// The document, in the source's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        if let Some(ns) = &self.ns {
            d.insert("ns", ns.clone());
        }
        if let Some(uuid) = &self.uuid {
            d.insert("uuid", Bson::Binary(uuid.clone()));
        }
        d.insert("min", self.min.clone());
        d.insert("max", self.max.clone());
        d.insert("shard", self.shard.clone());
        d.insert("lastmod", self.lastmod);
        if let Some(e) = self.epoch {
            d.insert("lastmodEpoch", e);
        }
        if self.jumbo {
            d.insert("jumbo", true);
        }
        if !self.history.is_empty() {
            if let Some(t) = self.on_current_shard_since {
                d.insert("onCurrentShardSince", t);
            }
            let history: Vec<Bson> = self
                .history
                .iter()
                .map(|h| {
                    let mut e = Document::new();
                    e.insert("validAfter", h.valid_after);
                    e.insert("shard", h.shard.clone());
                    Bson::Document(e)
                })
                .collect();
            d.insert("history", history);
        }
        // `setChunkEstimatedSize` adds it with `$set`, after the fields a chunk is
        // written with.
        if let Some(bytes) = self.estimated_data_size_bytes {
            d.insert("estimatedDataSizeBytes", bytes);
        }
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "chunks",
        };
        let history = match doc.get("history") {
            None => Vec::new(),
            Some(Bson::Array(items)) => items
                .iter()
                .map(|h| match h {
                    Bson::Document(h) => {
                        let hr = Reader {
                            doc: h,
                            what: "chunks",
                        };
                        Ok(ChunkHistory {
                            valid_after: hr.timestamp("validAfter")?,
                            shard: hr.string("shard")?,
                        })
                    }
                    _ => Err(r.bad("history")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(r.bad("history")),
        };
        Ok(ChunkDoc {
            id: r.get("_id")?.clone(),
            ns: r.opt("ns", |v| v.as_str().map(str::to_string))?,
            uuid: r.opt("uuid", as_uuid)?,
            min: r.document("min")?,
            max: r.document("max")?,
            shard: r.string("shard")?,
            lastmod: r.timestamp("lastmod")?,
            epoch: r.opt("lastmodEpoch", as_oid)?,
            jumbo: r.opt("jumbo", as_bool)?.unwrap_or(false),
            on_current_shard_since: r.opt("onCurrentShardSince", as_timestamp)?,
            history,
            estimated_data_size_bytes: r.opt("estimatedDataSizeBytes", |v| match v {
                Bson::Int64(n) => Some(*n),
                Bson::Int32(n) => Some(i64::from(*n)),
                _ => None,
            })?,
        })
    }
}

/// A document of `config.tags`, a zone range: `_id`, `ns`, `min`, `max`, `tag`, in the
/// order `assignKeyRangeToZone` writes them. 3.6's `_id` is `{ns, min}`; later
/// releases upsert by `{ns, min}` and the document gets an ObjectId.
#[derive(Debug, Clone, PartialEq)]
pub struct TagDoc {
    /// The range's `_id`.
    pub id: Bson,
    /// The namespace.
    pub ns: String,
    /// The inclusive lower bound.
    pub min: Document,
    /// The exclusive upper bound.
    pub max: Document,
    /// The zone's name.
    pub tag: String,
}

impl TagDoc {
    /// The document, in the source's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        d.insert("ns", self.ns.clone());
        d.insert("min", self.min.clone());
        d.insert("max", self.max.clone());
        d.insert("tag", self.tag.clone());
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader { doc, what: "tags" };
        Ok(TagDoc {
            id: r.get("_id")?.clone(),
            ns: r.string("ns")?,
            min: r.document("min")?,
            max: r.document("max")?,
            tag: r.string("tag")?,
        })
    }
}

/// A document of `config.settings`.
#[derive(Debug, Clone, PartialEq)]
pub enum SettingDoc {
    /// `{_id: 'balancer', mode, stopped}` as `balancerStop`/`balancerStart` write it
    /// (src/mongo/s/balancer_configuration.cpp).
    Balancer {
        /// `full` or `off`.
        mode: String,
        /// Whether the balancer is stopped.
        stopped: bool,
    },
    /// `{_id: 'autosplit', enabled}` (3.4 to 5.x; mongosh's `sh.enableAutoSplit`).
    AutoSplit {
        /// Whether chunks split on their own.
        enabled: bool,
    },
    /// `{_id: 'automerge', enabled}` (7.0+; mongosh's `sh.startAutoMerger`).
    AutoMerge {
        /// Whether the AutoMerger runs.
        enabled: bool,
    },
    /// `{_id: 'chunksize', value}`: the maximum chunk size in MiB.
    ChunkSize {
        /// The size in MiB.
        value_mb: i32,
    },
    /// A document an administrator wrote through the config database that the typed
    /// forms above do not hold as it is (`{_id: 'chunksize', value: 3.5}`, which 8.0's
    /// schema accepts and the balancer then refuses; `{_id: 'automerge', enabled: 0}`,
    /// which no schema checks; in 3.6 and 5.0 anything at all).
    Written(Document),
}

impl SettingDoc {
    /// The document.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        match self {
            SettingDoc::Balancer { mode, stopped } => {
                d.insert("_id", "balancer");
                d.insert("mode", mode.clone());
                d.insert("stopped", *stopped);
            }
            SettingDoc::AutoSplit { enabled } | SettingDoc::AutoMerge { enabled } => {
                let id = match self {
                    SettingDoc::AutoSplit { .. } => "autosplit",
                    _ => "automerge",
                };
                d.insert("_id", id);
                d.insert("enabled", *enabled);
            }
            SettingDoc::ChunkSize { value_mb } => {
                d.insert("_id", "chunksize");
                d.insert("value", *value_mb);
            }
            SettingDoc::Written(doc) => d = doc.clone(),
        }
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "settings",
        };
        // An `autosplit` or `automerge` document of another shape than `{_id, enabled:
        // <bool>}` is kept as it was written.
        let enabled = |typed: fn(bool) -> SettingDoc| match (doc.len(), doc.get("enabled")) {
            (2, Some(Bson::Boolean(b))) => typed(*b),
            _ => SettingDoc::Written(doc.clone()),
        };
        Ok(match r.string("_id")?.as_str() {
            "balancer" => SettingDoc::Balancer {
                mode: r
                    .opt("mode", |v| v.as_str().map(str::to_string))?
                    .unwrap_or_else(|| "full".to_string()),
                stopped: r.opt("stopped", as_bool)?.unwrap_or(false),
            },
            "autosplit" => enabled(|enabled| SettingDoc::AutoSplit { enabled }),
            "automerge" => enabled(|enabled| SettingDoc::AutoMerge { enabled }),
            "chunksize" => match (doc.len(), doc.get("value")) {
                (2, Some(Bson::Int32(n))) => SettingDoc::ChunkSize { value_mb: *n },
                _ => SettingDoc::Written(doc.clone()),
            },
            _ => return Err(r.bad("_id")),
        })
    }
}

/// A document of `config.changelog` (type_changelog.cpp's `toBSON`: `_id`, `server`,
/// `shard` (4.4+), `clientAddr`, `time`, `what`, `ns`, `details`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangelogDoc {
    /// `<server>-<time>-<ObjectId>`, as `ShardingLogging` names a change.
    pub id: String,
    /// The host that logged it.
    pub server: String,
    /// The shard that logged it, `config` for the config server (4.4+).
    pub shard: Option<String>,
    /// The client's address (empty: the change is the cluster's own).
    pub client_addr: String,
    /// When it happened.
    pub time: DateTime,
    /// What happened: `split`, `multi-split`, `moveChunk.start`, ...
    pub what: String,
    /// The namespace.
    pub ns: String,
    /// The change's details.
    pub details: Document,
}

impl ChangelogDoc {
    /// The document, in the source's field order.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.id.clone());
        d.insert("server", self.server.clone());
        if let Some(s) = &self.shard {
            d.insert("shard", s.clone());
        }
        d.insert("clientAddr", self.client_addr.clone());
        d.insert("time", self.time);
        d.insert("what", self.what.clone());
        d.insert("ns", self.ns.clone());
        d.insert("details", self.details.clone());
        d
    }

    /// Reads a document back.
    pub fn from_document(doc: &Document) -> Result<Self, ClusterError> {
        let r = Reader {
            doc,
            what: "changelog",
        };
        Ok(ChangelogDoc {
            id: r.string("_id")?,
            server: r.string("server")?,
            shard: r.opt("shard", |v| v.as_str().map(str::to_string))?,
            client_addr: r.string("clientAddr")?,
            time: match r.get("time")? {
                Bson::DateTime(t) => *t,
                _ => return Err(r.bad("time")),
            },
            what: r.string("what")?,
            ns: r.string("ns")?,
            details: r.document("details")?,
        })
    }
}

/// What the event log says about one sharded namespace: when its current incarnation
/// was made (sharded or resharded) and when its key was last refined, which give its
/// UUID, epoch and timestamps.
#[derive(Debug, Clone, Default)]
struct Incarnation {
    count: u32,
    created: u64,
    epoch_seq: u64,
    /// When it was made.
    created_at: Stamp,
    /// When it was made or its key last refined.
    epoch_at: Stamp,
}

/// The incarnation of each namespace sharded so far, from the event log.
fn incarnations(cluster: &Cluster) -> std::collections::BTreeMap<String, Incarnation> {
    let mut map: std::collections::BTreeMap<String, Incarnation> = Default::default();
    for (e, at) in stamped_events(cluster) {
        note_incarnation(&mut map, &e.kind, e.seq, at);
    }
    map
}

/// Notes in `map` what event `kind` (number `seq`, stamped `at`) does to its namespace's
/// incarnation.
fn note_incarnation(
    map: &mut std::collections::BTreeMap<String, Incarnation>,
    kind: &EventKind,
    seq: u64,
    at: Stamp,
) {
    match kind {
        EventKind::ShardCollection { ns, .. } | EventKind::Reshard { ns, .. } => {
            let inc = map.entry(ns.clone()).or_default();
            inc.count += 1;
            inc.created = seq;
            inc.epoch_seq = seq;
            inc.created_at = at;
            inc.epoch_at = at;
        }
        EventKind::Refine { ns, .. } => {
            let inc = map.entry(ns.clone()).or_default();
            inc.epoch_seq = seq;
            inc.epoch_at = at;
        }
        _ => {}
    }
}

impl Incarnation {
    fn uuid(&self, ns: &str) -> Binary {
        name_uuid(&format!("{ns}#{}", self.count))
    }
    fn epoch(&self, ns: &str) -> ObjectId {
        name_oid(
            self.epoch_at.secs(),
            &Bson::String(format!("{ns}@{}", self.epoch_seq)),
        )
    }
}

/// `config.shards`: the shards that have not left.
pub fn shard_docs(cluster: &Cluster) -> Vec<ShardDoc> {
    let v = cluster.version();
    // `topologyTime` is the cluster time `addShard` committed at (add_shard.cpp); the
    // shards the cluster started with joined at its start.
    let mut joined: Vec<(&str, Timestamp)> = Vec::new();
    if v != VersionMode::V36 {
        for (e, at) in stamped_events(cluster) {
            if let EventKind::AddShard { shard } = &e.kind {
                joined.retain(|(s, _)| *s != shard.as_str());
                joined.push((shard.as_str(), at.ts));
            }
        }
    }
    cluster
        .shards()
        .map(|(_, s)| ShardDoc {
            id: s.name.clone(),
            host: s.host.clone(),
            draining: s.draining,
            tags: (!s.zones.is_empty()).then(|| s.zones.iter().cloned().collect()),
            state: 1,
            topology_time: (v != VersionMode::V36).then(|| {
                joined
                    .iter()
                    .find(|(n, _)| *n == s.name)
                    .map_or(Stamp::START.ts, |(_, t)| *t)
            }),
            repl_set_config_version: (v >= VersionMode::V70).then_some(-1),
        })
        .collect()
}

/// `config.databases`.
pub fn database_docs(cluster: &Cluster) -> Vec<DatabaseDoc> {
    cluster
        .databases()
        .iter()
        .map(|(db, info)| DatabaseDoc::of(cluster.version(), db, cluster.shard_name(info.primary)))
        .collect()
}

/// `config.collections`: the sharded collections.
pub fn collection_docs(cluster: &Cluster) -> Vec<CollectionDoc> {
    let v = cluster.version();
    let incs = incarnations(cluster);
    let mut out = Vec::new();
    for (ns, coll) in cluster.collections() {
        let Some(s) = &coll.sharding else { continue };
        let inc = incs.get(ns).cloned().unwrap_or_default();
        let modern = v != VersionMode::V36;
        out.push(CollectionDoc {
            id: ns.clone(),
            epoch: inc.epoch(ns),
            lastmod: DateTime::from_millis(inc.created_at.ms),
            dropped: (!modern).then_some(false),
            timestamp: modern.then_some(inc.epoch_at.ts),
            uuid: inc.uuid(ns),
            key: s.pattern.to_pattern_document(),
            unique: s.unique,
            no_balance: if modern {
                Some(!s.balancing)
            } else {
                (!s.balancing).then_some(true)
            },
            max_chunk_size_bytes: s.chunk_size.map(|b| i64::try_from(b).unwrap_or(i64::MAX)),
            enable_auto_merge: s.auto_merge,
            defragment_collection: s.defrag.as_ref().map(|_| true),
            defragmentation_phase: s
                .defrag
                .as_ref()
                .and_then(|d| d.phase)
                .map(|p| p.name().to_string()),
        });
    }
    out
}

/// Whether `[min, max)` holds `key`, comparing the fields both have (a key from before
/// a refine has fewer).
fn contains(min: &KeyValue, max: &KeyValue, key: &KeyValue) -> bool {
    use std::cmp::Ordering;
    key_cmp(min, key) != Ordering::Greater && key_cmp(key, max) == Ordering::Less
}

/// Whether `[a_min, a_max)` and `[b_min, b_max)` share a key, comparing as [`contains`].
fn overlaps(a_min: &KeyValue, a_max: &KeyValue, b_min: &KeyValue, b_max: &KeyValue) -> bool {
    use std::cmp::Ordering;
    key_cmp(a_min, b_max) == Ordering::Less && key_cmp(b_min, a_max) == Ordering::Less
}

/// Compares two keys on the fields both have.
fn key_cmp(a: &KeyValue, b: &KeyValue) -> std::cmp::Ordering {
    a.0.iter()
        .zip(&b.0)
        .map(|(x, y)| crate::values::order::compare_values(x, y))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

/// `config.chunks`, in namespace then key order.
pub fn chunk_docs(cluster: &Cluster) -> Vec<ChunkDoc> {
    let v = cluster.version();
    let incs = incarnations(cluster);
    let moves = moves_by_namespace(cluster);
    let merges = merges_by_namespace(cluster);
    let mut out = Vec::new();
    for (ns, coll) in cluster.collections() {
        let Some(s) = &coll.sharding else { continue };
        let inc = incs.get(ns).cloned().unwrap_or_default();
        let uuid = inc.uuid(ns);
        let past = Past {
            moves: moves.get(ns).map_or(&[], Vec::as_slice),
            merges: merges.get(ns).map_or(&[], Vec::as_slice),
            inc: &inc,
        };
        for c in s.table.iter() {
            let min = s.pattern.to_document(&c.min);
            let since = on_shard_since(moves.get(ns).map_or(&[], Vec::as_slice), &inc, c);
            let shard = cluster.shard_name(c.shard).to_string();
            let history = if v == VersionMode::V36 {
                Vec::new()
            } else {
                past.history(&c.min, &c.max, u64::MAX, &shard)
            };
            let id = match v {
                VersionMode::V36 => Bson::String(chunk_id_36(ns, &min)),
                _ => Bson::ObjectId(name_oid(
                    inc.created_at.secs(),
                    &Bson::Array(vec![
                        Bson::Binary(uuid.clone()),
                        Bson::Document(min.clone()),
                    ]),
                )),
            };
            out.push(ChunkDoc {
                id,
                ns: (v == VersionMode::V36).then(|| ns.clone()),
                uuid: (v != VersionMode::V36).then(|| uuid.clone()),
                max: s.pattern.to_document(&c.max),
                min,
                lastmod: Timestamp {
                    time: c.version.major,
                    increment: c.version.minor,
                },
                epoch: (v == VersionMode::V36).then(|| inc.epoch(ns)),
                jumbo: c.jumbo,
                // 7.0 on, `onCurrentShardSince` is the newest entry's `validAfter`: the
                // commit sets both from one time (`commitChunkMigration`).
                on_current_shard_since: (v >= VersionMode::V70)
                    .then(|| history.first().map_or(since.ts, |h| h.valid_after)),
                history,
                shard,
                estimated_data_size_bytes: s
                    .defrag
                    .as_ref()
                    .and_then(|d| d.estimate(&c.min, &c.max)),
            });
        }
    }
    out
}

/// 3.6's chunk `_id`, `ChunkType::genID`: the namespace, `-`, then each bound field as
/// `name_value` with the value as `BSONElement::toString` prints it.
pub fn chunk_id_36(ns: &str, min: &Document) -> String {
    let mut id = format!("{ns}-");
    for (name, value) in min {
        id.push_str(name);
        id.push('_');
        id.push_str(&crate::keys::shard_key::format_bson_value(value));
    }
    id
}

/// `config.tags`: every zone range, sharded collections' first, in namespace and key
/// order, then those set before their collection was sharded.
pub fn tag_docs(cluster: &Cluster) -> Vec<TagDoc> {
    let v = cluster.version();
    let make = |ns: &str, min: Document, max: Document, tag: &str| {
        let id = match v {
            VersionMode::V36 => {
                let mut id = Document::new();
                id.insert("ns", ns);
                id.insert("min", min.clone());
                Bson::Document(id)
            }
            _ => Bson::ObjectId(name_oid(
                EPOCH_SECS,
                &Bson::Array(vec![
                    Bson::String(ns.to_string()),
                    Bson::Document(min.clone()),
                ]),
            )),
        };
        TagDoc {
            id,
            ns: ns.to_string(),
            min,
            max,
            tag: tag.to_string(),
        }
    };
    let mut out = Vec::new();
    for (ns, coll) in cluster.collections() {
        let Some(s) = &coll.sharding else { continue };
        for z in s.zones.iter() {
            let (min, max) = (s.pattern.to_document(&z.min), s.pattern.to_document(&z.max));
            out.push(make(ns, min, max, &z.zone));
        }
    }
    for (ns, zones) in &cluster.pending_zones {
        for z in zones {
            out.push(make(ns, z.min.clone(), z.max.clone(), &z.zone));
        }
    }
    out
}

/// `config.settings`: a document for each setting changed from its default, as the
/// helpers that change them write one (the balancer stopped, a chunk size other than the
/// era's), and the `autosplit` and `automerge` documents as `sh.enableAutoSplit()`,
/// `sh.startAutoMerger()` and the like (mongosh's shard.ts sends them to any server) or an
/// administrator through the config database last wrote them.
pub fn setting_docs(cluster: &Cluster) -> Vec<SettingDoc> {
    let v = cluster.version();
    let mut out = Vec::new();
    if let Some(doc) = &cluster.balancer_setting {
        out.push(SettingDoc::Written(doc.clone()));
    } else if !cluster.balancer_enabled {
        out.push(SettingDoc::Balancer {
            mode: "off".to_string(),
            stopped: true,
        });
    }
    for doc in [&cluster.autosplit_setting, &cluster.automerge_setting]
        .into_iter()
        .flatten()
    {
        out.push(
            SettingDoc::from_document(doc).unwrap_or_else(|_| SettingDoc::Written(doc.clone())),
        );
    }
    if let Some(doc) = &cluster.chunksize_setting {
        out.push(
            SettingDoc::from_document(doc).unwrap_or_else(|_| SettingDoc::Written(doc.clone())),
        );
    } else if cluster.chunk_size() != v.default_chunk_size() {
        out.push(SettingDoc::ChunkSize {
            value_mb: i32::try_from(cluster.chunk_size() >> 20).unwrap_or(i32::MAX),
        });
    }
    out
}

/// The keys of an event as documents of the collection's current key.
fn bounds(pattern: Option<&KeyPattern>, min: &KeyValue, max: &KeyValue) -> (Document, Document) {
    match pattern {
        Some(p) => (p.to_document(min), p.to_document(max)),
        None => (Document::new(), Document::new()),
    }
}

fn range_doc(min: &Document, max: &Document) -> Document {
    let mut d = Document::new();
    d.insert("min", min.clone());
    d.insert("max", max.clone());
    d
}

/// A chunk version as the changelog writes it under `field`: before 6.0
/// `appendLegacyWithField` (3.6's `addToBSON`), `lastmod: Timestamp(major, minor)` and
/// `lastmodEpoch`; from 6.0 `ChunkVersion::serialize`, one document of the
/// `ChunkVersion60Format` (chunk_version.idl): `{e: epoch, t: timestamp, v:
/// Timestamp(major, minor)}`.
fn append_version(d: &mut Document, field: &str, version: ChunkVersion, era: &EventEra) {
    let v = Timestamp {
        time: version.major,
        increment: version.minor,
    };
    if era.mode >= VersionMode::V70 {
        let mut f = Document::new();
        f.insert("e", era.epoch);
        f.insert("t", era.timestamp);
        f.insert("v", v);
        d.insert(field, f);
    } else {
        d.insert(field, v);
        d.insert(format!("{field}Epoch"), era.epoch);
    }
}

/// What the changelog's versions carry besides the numbers: the collection's epoch and
/// timestamp when the event happened, and the era.
struct EventEra {
    mode: VersionMode,
    epoch: ObjectId,
    timestamp: Timestamp,
}

/// The entries one event writes to `config.changelog`: `(what, logging shard,
/// details)`. Splits and merges name the shard that owned the chunk (`owningShard`,
/// 4.4+) when it is known.
fn changelog_entries(
    kind: &EventKind,
    pattern: Option<&KeyPattern>,
    owning: Option<&str>,
    era: &EventEra,
) -> Vec<(&'static str, String, Document)> {
    let owned = |mut d: Document| {
        if let Some(shard) = owning {
            d.insert("owningShard", shard);
        }
        d
    };
    match kind {
        // 8.0's `moveRange` cuts the chunk inside `commitChunkMigration`, which logs no
        // split (sharding_catalog_manager_chunk_operations.cpp).
        EventKind::Split { in_move: true, .. } => Vec::new(),
        EventKind::Split {
            min,
            max,
            points,
            version,
            ..
        } => {
            // `commitChunkSplit`: `before` is the range with the collection version the
            // split started from; each piece takes the next minor version in key order
            // (`appendShortVersion`).
            let (lo, hi) = bounds(pattern, min, max);
            let mut edges = vec![lo.clone()];
            edges.extend(points.iter().map(|p| bounds(pattern, p, p).0));
            edges.push(hi.clone());
            let mut next = *version;
            let pieces: Vec<Document> = edges
                .windows(2)
                .map(|w| {
                    next.minor += 1;
                    let mut d = range_doc(&w[0], &w[1]);
                    append_version(&mut d, "lastmod", next, era);
                    d
                })
                .collect();
            let mut before = range_doc(&lo, &hi);
            append_version(&mut before, "lastmod", *version, era);
            if pieces.len() == 2 {
                let mut d = Document::new();
                d.insert("before", before);
                d.insert("left", pieces[0].clone());
                d.insert("right", pieces[1].clone());
                vec![("split", "config".to_string(), owned(d))]
            } else {
                let of = pieces.len() as i32;
                pieces
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let mut d = Document::new();
                        d.insert("before", before.clone());
                        d.insert("number", i as i32 + 1);
                        d.insert("of", of);
                        d.insert("chunk", p);
                        ("multi-split", "config".to_string(), owned(d))
                    })
                    .collect()
            }
        }
        EventKind::MoveChunkStart {
            min, max, from, to, ..
        } => {
            let (lo, hi) = bounds(pattern, min, max);
            let mut d = range_doc(&lo, &hi);
            d.insert("from", from.clone());
            d.insert("to", to.clone());
            vec![("moveChunk.start", from.clone(), d)]
        }
        EventKind::MoveChunkCommit {
            min,
            max,
            from,
            to,
            docs,
            bytes,
            ..
        } => {
            let (lo, hi) = bounds(pattern, min, max);
            let mut moved = range_doc(&lo, &hi);
            moved.insert("from", from.clone());
            moved.insert("to", to.clone());
            let mut from_side = range_doc(&lo, &hi);
            if era.mode == VersionMode::V36 {
                from_side.insert("from", from.clone());
                from_side.insert("to", to.clone());
            } else {
                // move_timing_helper.cpp's destructor (4.4 on) appends `to`, then `from`.
                from_side.insert("to", to.clone());
                from_side.insert("from", from.clone());
                // migration_source_manager.cpp (4.4 on) logs the recipient's clone counts
                // with the commit (`"counts" << *_recipientCloneCounts`), as
                // migration_destination_manager.cpp's `report` builds them: every
                // document and byte of the range, none caught up afterwards, as
                // ShardLab's migrations are atomic.
                let mut counts = Document::new();
                counts.insert("cloned", i64::try_from(*docs).unwrap_or(i64::MAX));
                counts.insert("clonedBytes", i64::try_from(*bytes).unwrap_or(i64::MAX));
                counts.insert("catchup", 0i64);
                counts.insert("steady", 0i64);
                moved.insert("counts", counts);
            }
            from_side.insert("note", "success");
            let mut to_side = range_doc(&lo, &hi);
            to_side.insert("note", "success");
            vec![
                ("moveChunk.to", to.clone(), to_side),
                ("moveChunk.commit", from.clone(), moved),
                ("moveChunk.from", from.clone(), from_side),
            ]
        }
        EventKind::Merge { min, max, .. } => {
            // 7.0's logMergeToChangelog writes `owningShard` before the range.
            let (lo, hi) = bounds(pattern, min, max);
            let mut d = owned(Document::new());
            d.extend(range_doc(&lo, &hi));
            vec![("merge", "config".to_string(), d)]
        }
        _ => Vec::new(),
    }
}

/// A collection's creation by `shardCollection`, as its changelog entries need it.
struct Created<'a> {
    ns: &'a str,
    key: &'a Document,
    primary: &'a str,
    empty: bool,
    chunks: u32,
    uuid: Binary,
}

/// The entries `shardCollection` writes to `config.changelog`, `shardCollection.start`
/// then `shardCollection.end`:
/// - 3.6: the config server's `ShardingCatalogManager::shardCollection`
///   (sharding_catalog_manager_collection_operations.cpp) logs the start with `shardKey`,
///   `collection`, `uuid`, `primary` (`ShardRemote::toString`: the shard's name, `:`, its
///   connection string) and `numChunks` (the split points it was given, plus one: the
///   hashed pre-split's, else none), and the end with the `version` of the chunks it wrote
///   (`ChunkVersion::toString`, `<major>|<minor>||<epoch>`).
/// - 5.0 on: the create collection coordinator on the database's primary shard
///   (create_collection_coordinator.cpp, `_logStartCreateCollection` and
///   `_logEndCreateCollection`; 8.0's `logStartCreateCollection` and
///   `logEndCreateCollection`) logs the start with `shardKey`, `collection` and `primary`
///   (the shard's name), and the end with the collection's `uuid`, its version (`version`
///   in 5.0, `placementVersion` from 7.0; `ChunkVersion::toString` now ends in
///   `||<timestamp>`), `empty` and `numChunks` (`appendNumber`: an int).
fn shard_collection_entries(
    cluster: &Cluster,
    c: &Created,
    era: &EventEra,
) -> Vec<(&'static str, String, Document)> {
    let last = c.chunks.saturating_sub(1);
    let mut version = format!("1|{last}||{}", era.epoch.to_hex());
    if era.mode != VersionMode::V36 {
        let ts = era.timestamp;
        version.push_str(&format!("||Timestamp({}, {})", ts.time, ts.increment));
    }
    let numbered = |n: u32| Bson::Int32(i32::try_from(n).unwrap_or(i32::MAX));
    let mut start = Document::new();
    start.insert("shardKey", c.key.clone());
    start.insert("collection", c.ns);
    let mut end = Document::new();
    if era.mode == VersionMode::V36 {
        start.insert("uuid", c.uuid.clone());
        let host = cluster
            .all_shards()
            .iter()
            .find(|s| s.name == c.primary)
            .map_or("", |s| s.host.as_str());
        start.insert("primary", format!("{}:{host}", c.primary));
        start.insert("numChunks", numbered(if c.empty { c.chunks } else { 1 }));
        end.insert("version", version);
        return vec![
            ("shardCollection.start", "config".to_string(), start),
            ("shardCollection.end", "config".to_string(), end),
        ];
    }
    start.insert("primary", c.primary);
    end.insert("uuid", c.uuid.clone());
    let field = match era.mode {
        VersionMode::V36 | VersionMode::V50 => "version",
        VersionMode::V70 | VersionMode::V80 => "placementVersion",
    };
    end.insert(field, version);
    end.insert("empty", c.empty);
    end.insert("numChunks", numbered(c.chunks));
    vec![
        ("shardCollection.start", c.primary.to_string(), start),
        ("shardCollection.end", c.primary.to_string(), end),
    ]
}

/// One committed migration, as the chunks' history and the changelog need it.
#[derive(Debug, Clone)]
struct Move {
    seq: u64,
    at: Stamp,
    min: KeyValue,
    max: KeyValue,
    from: String,
    to: String,
}

/// The migrations of each namespace, oldest first.
type Moves = std::collections::BTreeMap<String, Vec<Move>>;

fn moves_by_namespace(cluster: &Cluster) -> Moves {
    let mut moves = Moves::new();
    for (e, at) in stamped_events(cluster) {
        if let EventKind::MoveChunkCommit {
            ns,
            min,
            max,
            from,
            to,
            ..
        } = &e.kind
        {
            moves.entry(ns.clone()).or_default().push(Move {
                seq: e.seq,
                at,
                min: min.clone(),
                max: max.clone(),
                from: from.clone(),
                to: to.clone(),
            });
        }
    }
    moves
}

/// MongoDB's `getHistoryWindowInSeconds` (sharding_catalog_manager_chunk_operations.cpp):
/// the largest of `minSnapshotHistoryWindowInSeconds` (300 from 5.0),
/// `transactionLifetimeLimitSeconds` (60) and 10. A migration drops the oldest entries of
/// the moved chunk's `history` that are older than this when it commits, keeping one.
pub const HISTORY_WINDOW_SECS: i64 = 300;

/// One committed merge, as the chunks' history needs it.
#[derive(Debug, Clone)]
struct MergeAt {
    seq: u64,
    min: KeyValue,
    max: KeyValue,
}

fn merges_by_namespace(cluster: &Cluster) -> std::collections::BTreeMap<String, Vec<MergeAt>> {
    let mut merges: std::collections::BTreeMap<String, Vec<MergeAt>> = Default::default();
    for e in cluster.events().iter() {
        if let EventKind::Merge { ns, min, max } = &e.kind {
            merges.entry(ns.clone()).or_default().push(MergeAt {
                seq: e.seq,
                min: min.clone(),
                max: max.clone(),
            });
        }
    }
    merges
}

/// What a namespace's chunks went through: its migrations and merges, oldest first, and
/// its incarnation.
struct Past<'a> {
    moves: &'a [Move],
    merges: &'a [MergeAt],
    inc: &'a Incarnation,
}

impl Past<'_> {
    /// The `history` of the range `[min, max)` just before event `before` (a chunk's now,
    /// with `u64::MAX`), newest first, when `owner` owned it then, as the config server
    /// wrote it (sharding_catalog_manager_chunk_operations.cpp, 5.0 to 8.0): sharding
    /// gives each chunk `[{validAfter: <creation>, shard}]`; a split copies the chunk's
    /// history to every piece (`commitChunkSplit`, and `moveRange`'s pieces in
    /// `commitChunkMigration`); a migration copies it, drops its oldest entries while more
    /// than one is left and the oldest is older than [`HISTORY_WINDOW_SECS`] before the
    /// commit, and puts `{validAfter: <commit>, shard: <recipient>}` first
    /// (`commitChunkMigration`); a merge leaves one entry, the latest `validAfter` of the
    /// merged chunks' first entries (`commitChunksMerge`, `commitMergeAllChunksOnShard`).
    fn history(
        &self,
        min: &KeyValue,
        max: &KeyValue,
        before: u64,
        owner: &str,
    ) -> Vec<ChunkHistory> {
        let created = self.inc.created;
        let last_move = self
            .moves
            .iter()
            .rev()
            .filter(|m| m.seq < before && m.seq > created)
            .find(|m| overlaps(&m.min, &m.max, min, max));
        let last_merge = self
            .merges
            .iter()
            .rev()
            .filter(|m| m.seq < before && m.seq > created)
            .find(|m| overlaps(&m.min, &m.max, min, max));
        let entry = |valid_after: Timestamp, shard: &str| ChunkHistory {
            valid_after,
            shard: shard.to_string(),
        };
        match (last_move, last_merge) {
            (_, Some(g)) if last_move.is_none_or(|m| g.seq > m.seq) => {
                let front = self
                    .moves
                    .iter()
                    .rev()
                    .filter(|m| m.seq < g.seq && m.seq > created)
                    .find(|m| overlaps(&m.min, &m.max, &g.min, &g.max))
                    .map_or(self.inc.created_at.ts, |m| m.at.ts);
                vec![entry(front, owner)]
            }
            (Some(m), _) => {
                let mut h = self.history(&m.min, &m.max, m.seq, &m.from);
                let commit = i64::from(m.at.ts.time);
                while h.len() > 1
                    && h.last().is_some_and(|o| {
                        i64::from(o.valid_after.time) + HISTORY_WINDOW_SECS < commit
                    })
                {
                    h.pop();
                }
                h.insert(0, entry(m.at.ts, &m.to));
                h
            }
            _ => vec![entry(self.inc.created_at.ts, owner)],
        }
    }
}

/// When `chunk` came to its shard (`onCurrentShardSince`, the newest `history` entry):
/// the time of the last migration of this incarnation that moved any of its keys, else
/// the collection's creation. A migration gives the chunk it moves its own time, a split
/// keeps the chunk's, and a merge takes the latest of the merged chunks' (the config
/// server's `commitMergeAllChunksOnShard` and `mergeChunks`), which is this rule's answer
/// too: the latest migration among all the merged keys.
fn on_shard_since(
    moves: &[Move],
    inc: &Incarnation,
    chunk: &crate::engine::chunks::Chunk,
) -> Stamp {
    moves
        .iter()
        .rev()
        .take_while(|m| m.seq > inc.created)
        .find(|m| overlaps(&m.min, &m.max, &chunk.min, &chunk.max))
        .map_or(inc.created_at, |m| m.at)
}

/// When each chunk of `ns` came to its shard, in key order (see [`on_shard_since`]), in
/// milliseconds since the Unix epoch: what the AutoMerger compares with its history window.
pub(crate) fn chunks_on_shard_since_ms(cluster: &Cluster, ns: &str) -> Vec<i64> {
    let Ok(s) = cluster.sharding(ns) else {
        return Vec::new();
    };
    let incs = incarnations(cluster);
    let inc = incs.get(ns).cloned().unwrap_or_default();
    let moves = moves_by_namespace(cluster);
    let moves = moves.get(ns).map_or(&[][..], Vec::as_slice);
    s.table
        .iter()
        .map(|c| on_shard_since(moves, &inc, c).ms)
        .collect()
}

/// The shard that owned the key range starting at `key` of `ns` when event `seq`
/// happened: the donor of the first later migration of a range holding `key` (nothing
/// else moves a range), else its owner now, if the collection is still the one the event
/// changed; `None` when that cannot be told.
fn owner_at(
    cluster: &Cluster,
    ns: &str,
    seq: u64,
    key: &KeyValue,
    moves: &Moves,
    created: Option<u64>,
) -> Option<String> {
    let recreated = created.is_some_and(|c| c > seq);
    let later = moves.get(ns).into_iter().flatten().find(|m| {
        m.seq > seq
            && !(recreated && created.is_some_and(|c| m.seq > c))
            && contains(&m.min, &m.max, key)
    });
    match later {
        Some(m) => Some(m.from.clone()),
        None if !recreated && cluster.sharding(ns).is_ok() => Some(
            cluster
                .shard_name(cluster.shard_for_key(ns, key))
                .to_string(),
        ),
        None => None,
    }
}

/// `config.changelog`: the sharded collections, refined keys, splits, migrations and merges
/// of the event log, oldest first.
pub fn changelog_docs(cluster: &Cluster) -> Vec<ChangelogDoc> {
    let v = cluster.version();
    let moves = moves_by_namespace(cluster);
    let incs = incarnations(cluster);
    let mut out = Vec::new();
    // Each namespace's incarnation as the events go by, for the versions' epoch.
    let mut running: std::collections::BTreeMap<String, Incarnation> = Default::default();
    for (e, at) in stamped_events(cluster) {
        // A refine logs the epoch it replaces.
        let old_epoch = match &e.kind {
            EventKind::Refine { ns, .. } => running.get(ns).map(|inc| inc.epoch(ns)),
            _ => None,
        };
        note_incarnation(&mut running, &e.kind, e.seq, at);
        if let EventKind::Refine { ns, key, old_key } = &e.kind {
            let new_epoch = running.get(ns).cloned().unwrap_or_default().epoch(ns);
            // sharding_catalog_manager_collection_operations.cpp (4.4 to 8.0),
            // `refineCollectionShardKey`: the config server logs the keys and epochs
            // before it rewrites the metadata, and an empty end once it has.
            let mut start = Document::new();
            start.insert("oldKey", old_key.clone());
            start.insert("newKey", key.clone());
            start.insert("oldEpoch", old_epoch.unwrap_or(new_epoch));
            start.insert("newEpoch", new_epoch);
            let entries = [
                ("refineCollectionShardKey.start", start),
                ("refineCollectionShardKey.end", Document::new()),
            ];
            for (i, (what, details)) in entries.into_iter().enumerate() {
                let entry = Entry { seq: e.seq, at, i };
                let shard = "config".to_string();
                out.push(changelog_doc(cluster, entry, what, shard, ns, details));
            }
            continue;
        }
        if let EventKind::ShardCollection {
            ns,
            key,
            primary,
            empty,
            chunks,
        } = &e.kind
        {
            let inc = running.get(ns).cloned().unwrap_or_default();
            let era = EventEra {
                mode: v,
                epoch: inc.epoch(ns),
                timestamp: inc.epoch_at.ts,
            };
            let created = Created {
                ns,
                key,
                primary,
                empty: *empty,
                chunks: *chunks,
                uuid: inc.uuid(ns),
            };
            let entries = shard_collection_entries(cluster, &created, &era);
            for (i, (what, shard, details)) in entries.into_iter().enumerate() {
                let entry = Entry { seq: e.seq, at, i };
                out.push(changelog_doc(cluster, entry, what, shard, ns, details));
            }
            continue;
        }
        let (ns, first) = match &e.kind {
            EventKind::Split { ns, min, .. } | EventKind::Merge { ns, min, .. } => (ns, Some(min)),
            EventKind::MoveChunkStart { ns, .. } | EventKind::MoveChunkCommit { ns, .. } => {
                (ns, None)
            }
            _ => continue,
        };
        let owning = match first {
            Some(min) if v != VersionMode::V36 => {
                let created = incs.get(ns).map(|i| i.created);
                owner_at(cluster, ns, e.seq, min, &moves, created)
            }
            _ => None,
        };
        let pattern = cluster.sharding(ns).ok().map(|s| &s.pattern);
        let inc = running.get(ns).cloned().unwrap_or_default();
        let era = EventEra {
            mode: v,
            epoch: inc.epoch(ns),
            timestamp: inc.epoch_at.ts,
        };
        let entries = changelog_entries(&e.kind, pattern, owning.as_deref(), &era);
        for (i, (what, shard, details)) in entries.into_iter().enumerate() {
            let entry = Entry { seq: e.seq, at, i };
            out.push(changelog_doc(cluster, entry, what, shard, ns, details));
        }
    }
    out
}

/// Which entry of the changelog: the `i`th that event `seq`, stamped `at`, wrote.
struct Entry {
    seq: u64,
    at: Stamp,
    i: usize,
}

/// One `config.changelog` document. Its `time` is the event's on the simulated clock
/// (every entry of one event shares it); its `_id` is `ShardingLogging`'s
/// `<server>-<time>-<ObjectId>`, the ObjectId made from the entry's place.
fn changelog_doc(
    cluster: &Cluster,
    entry: Entry,
    what: &str,
    shard: String,
    ns: &str,
    details: Document,
) -> ChangelogDoc {
    let server = if shard == "config" {
        CONFIG_SERVER_HOST.to_string()
    } else {
        cluster
            .all_shards()
            .iter()
            .find(|s| s.name == shard)
            .and_then(|s| s.host.split_once('/').map(|(_, h)| h.to_string()))
            .unwrap_or_else(|| shard.clone())
    };
    let Entry { seq, at, i } = entry;
    let millis = at.ms;
    let oid = name_oid(at.secs(), &Bson::Int64(seq as i64 * 8 + i as i64));
    ChangelogDoc {
        id: format!("{server}-{}-{}", iso_time(millis), oid.to_hex()),
        server,
        shard: (cluster.version() != VersionMode::V36).then_some(shard),
        client_addr: String::new(),
        time: DateTime::from_millis(millis),
        what: what.to_string(),
        ns: ns.to_string(),
        details,
    }
}

/// `Date_t::toString`'s form of a time, as changelog ids carry it: `2025-01-01T00:00:01.000+00:00`.
fn iso_time(millis: i64) -> String {
    let iso = crate::values::encoding::format_iso(millis);
    // `format_iso` ends in `Z`; the server writes the offset.
    format!("{}+00:00", iso.trim_end_matches('Z'))
}

/// The documents of config collection `name` (`chunks`, `shards`, ...), or `None` when
/// ShardLab does not publish that collection.
pub fn config_documents(cluster: &Cluster, name: &str) -> Option<Vec<Document>> {
    Some(match name {
        "shards" => shard_docs(cluster)
            .iter()
            .map(ShardDoc::to_document)
            .collect(),
        "databases" => database_docs(cluster)
            .iter()
            .map(DatabaseDoc::to_document)
            .collect(),
        "collections" => collection_docs(cluster)
            .iter()
            .map(CollectionDoc::to_document)
            .collect(),
        "chunks" => chunk_docs(cluster)
            .iter()
            .map(ChunkDoc::to_document)
            .collect(),
        "tags" => tag_docs(cluster).iter().map(TagDoc::to_document).collect(),
        "settings" => setting_docs(cluster)
            .iter()
            .map(SettingDoc::to_document)
            .collect(),
        "changelog" => changelog_docs(cluster)
            .iter()
            .map(ChangelogDoc::to_document)
            .collect(),
        _ => return None,
    })
}
