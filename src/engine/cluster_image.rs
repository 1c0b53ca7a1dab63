//! A cluster made from a real cluster's sharding metadata: its shards, its sharded
//! collections with their keys, chunks (exact bounds, owners, versions, jumbo flags) and
//! zone ranges, as `config.shards`, `config.collections`, `config.chunks` and
//! `config.tags` hold them (the reading of those files is `workload::cluster_files`).
//!
//! An image is a document, so that loading one is a shell command (`sim.loadCluster`) and
//! a timeline step like any other: the saved session keeps the metadata as that step's
//! text, and replaying it makes the same cluster. The metadata has no documents, so every
//! chunk loads with zero documents and zero bytes: ShardLab shows the chunks' ranges and
//! owners as they are, and invents nothing inside them.

use crate::engine::chunks::{Chunk, ChunkVersion, RoutingTable, ShardIdx};
use crate::engine::cluster::{Cluster, ClusterError, Shard, VersionMode, ZoneRange, ZoneSet};
use crate::engine::config_catalog::ShardDoc;
use crate::engine::split::shard_key_bound;
use crate::keys::shard_key::{format_bson_obj, KeyPattern, KeyValue};
use bson::{Bson, Document, Timestamp};

/// At most this many shards, collections, chunks (in all) and zone ranges load.
pub const MAX_IMAGE_CHUNKS: usize = 1_000_000;

/// One chunk of an image: `config.chunks`' `min`, `max`, `shard`, `lastmod`, `jumbo`.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageChunk {
    /// The inclusive lower bound, a key of the collection's pattern.
    pub min: Document,
    /// The exclusive upper bound.
    pub max: Document,
    /// The owning shard's name.
    pub shard: String,
    /// `lastmod`: `t` is the major version, `i` the minor.
    pub lastmod: Timestamp,
    /// `jumbo: true`.
    pub jumbo: bool,
}

/// A zone range of an image (`config.tags`' `min`, `max`, `tag`).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageZone {
    /// The inclusive lower bound.
    pub min: Document,
    /// The exclusive upper bound.
    pub max: Document,
    /// The zone's name.
    pub tag: String,
}

/// A sharded collection of an image.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageCollection {
    /// The namespace (`config.collections`' `_id`).
    pub ns: String,
    /// The shard key pattern.
    pub key: Document,
    /// Whether the key is unique.
    pub unique: bool,
    /// `noBalance: true`.
    pub no_balance: bool,
    /// Its chunks, in any order.
    pub chunks: Vec<ImageChunk>,
    /// Its zone ranges, in any order.
    pub zones: Vec<ImageZone>,
}

/// A whole cluster's sharding metadata.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterImage {
    /// `config.shards`' documents, in order.
    pub shards: Vec<ShardDoc>,
    /// Databases and their primary shards (`config.databases`' `_id` and `primary`).
    pub databases: Vec<(String, String)>,
    /// The sharded collections.
    pub collections: Vec<ImageCollection>,
    /// The era the metadata is of, when known: the cluster takes it as its version mode.
    pub version: Option<VersionMode>,
}

/// How a list of chunks fails to tile its key space, by the chunks' places in the list
/// (sorted by lower bound).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TilingProblem {
    /// The first chunk does not start at the global minimum.
    StartsLate(usize),
    /// The last chunk does not end at the global maximum.
    EndsEarly(usize),
    /// A chunk's lower bound is not below its upper bound.
    Empty(usize),
    /// Chunk `.1` starts after chunk `.0` ends.
    Gap(usize, usize),
    /// Chunk `.1` starts before chunk `.0` ends.
    Overlap(usize, usize),
}

/// Whether `chunks`, sorted by lower bound, tile `[global min, global max)` exactly.
pub fn tiling_problem(
    pattern: &KeyPattern,
    chunks: &[(KeyValue, KeyValue)],
) -> Option<TilingProblem> {
    let Some(first) = chunks.first() else {
        return Some(TilingProblem::StartsLate(0));
    };
    if first.0 != pattern.global_min() {
        return Some(TilingProblem::StartsLate(0));
    }
    for (i, (min, max)) in chunks.iter().enumerate() {
        if min >= max {
            return Some(TilingProblem::Empty(i));
        }
        if let Some((next_min, _)) = chunks.get(i + 1) {
            match next_min.cmp(max) {
                std::cmp::Ordering::Greater => return Some(TilingProblem::Gap(i, i + 1)),
                std::cmp::Ordering::Less => return Some(TilingProblem::Overlap(i, i + 1)),
                std::cmp::Ordering::Equal => {}
            }
        }
    }
    let last = chunks.len() - 1;
    (chunks[last].1 != pattern.global_max()).then_some(TilingProblem::EndsEarly(last))
}

/// A bound of `pattern` as a key, or MongoDB's error for a bound that is not one.
pub fn image_bound(pattern: &KeyPattern, bound: &Document) -> Result<KeyValue, ClusterError> {
    shard_key_bound(pattern, bound).ok_or_else(|| {
        ClusterError::BadValue(format!(
            "Bound {} is not valid for shard key pattern {}",
            format_bson_obj(bound),
            format_bson_obj(&pattern.to_pattern_document())
        ))
    })
}

fn bad(what: &str) -> ClusterError {
    ClusterError::FailedToParse(format!("sim.loadCluster: {what}"))
}

fn doc_of<'a>(d: &'a Document, field: &str, what: &str) -> Result<&'a Document, ClusterError> {
    match d.get(field) {
        Some(Bson::Document(v)) => Ok(v),
        _ => Err(bad(&format!("{what} needs the document field '{field}'"))),
    }
}

fn str_of<'a>(d: &'a Document, field: &str, what: &str) -> Result<&'a str, ClusterError> {
    match d.get(field) {
        Some(Bson::String(v)) => Ok(v),
        _ => Err(bad(&format!("{what} needs the string field '{field}'"))),
    }
}

fn array_of<'a>(d: &'a Document, field: &str) -> Result<Vec<&'a Document>, ClusterError> {
    match d.get(field) {
        None => Ok(Vec::new()),
        Some(Bson::Array(items)) => items
            .iter()
            .map(|v| match v {
                Bson::Document(d) => Ok(d),
                _ => Err(bad(&format!("every entry of '{field}' must be a document"))),
            })
            .collect(),
        Some(_) => Err(bad(&format!("'{field}' must be an array"))),
    }
}

impl ImageChunk {
    fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("min", self.min.clone());
        d.insert("max", self.max.clone());
        d.insert("shard", self.shard.clone());
        d.insert("lastmod", self.lastmod);
        if self.jumbo {
            d.insert("jumbo", true);
        }
        d
    }

    fn from_document(d: &Document) -> Result<Self, ClusterError> {
        Ok(ImageChunk {
            min: doc_of(d, "min", "a chunk")?.clone(),
            max: doc_of(d, "max", "a chunk")?.clone(),
            shard: str_of(d, "shard", "a chunk")?.to_string(),
            lastmod: match d.get("lastmod") {
                Some(Bson::Timestamp(t)) => *t,
                _ => return Err(bad("a chunk needs the Timestamp field 'lastmod'")),
            },
            jumbo: matches!(d.get("jumbo"), Some(Bson::Boolean(true))),
        })
    }
}

impl ImageCollection {
    fn to_document(&self) -> Document {
        let mut d = Document::new();
        d.insert("_id", self.ns.clone());
        d.insert("key", self.key.clone());
        d.insert("unique", self.unique);
        if self.no_balance {
            d.insert("noBalance", true);
        }
        let chunks: Vec<Bson> = self.chunks.iter().map(|c| c.to_document().into()).collect();
        d.insert("chunks", chunks);
        let zones: Vec<Bson> = self
            .zones
            .iter()
            .map(|z| {
                let mut t = Document::new();
                t.insert("min", z.min.clone());
                t.insert("max", z.max.clone());
                t.insert("tag", z.tag.clone());
                t.into()
            })
            .collect();
        d.insert("tags", zones);
        d
    }

    fn from_document(d: &Document) -> Result<Self, ClusterError> {
        let zones = array_of(d, "tags")?
            .into_iter()
            .map(|t| {
                Ok(ImageZone {
                    min: doc_of(t, "min", "a zone range")?.clone(),
                    max: doc_of(t, "max", "a zone range")?.clone(),
                    tag: str_of(t, "tag", "a zone range")?.to_string(),
                })
            })
            .collect::<Result<_, ClusterError>>()?;
        Ok(ImageCollection {
            ns: str_of(d, "_id", "a collection")?.to_string(),
            key: doc_of(d, "key", "a collection")?.clone(),
            unique: matches!(d.get("unique"), Some(Bson::Boolean(true))),
            no_balance: matches!(d.get("noBalance"), Some(Bson::Boolean(true))),
            chunks: array_of(d, "chunks")?
                .into_iter()
                .map(ImageChunk::from_document)
                .collect::<Result<_, _>>()?,
            zones,
        })
    }
}

impl ClusterImage {
    /// The image as the document `sim.loadCluster` takes: `{shards: [<config.shards
    /// documents>], databases: [{_id, primary}], collections: [{_id, key, unique,
    /// noBalance, chunks: [{min, max, shard, lastmod, jumbo}], tags: [{min, max, tag}]}]}`.
    pub fn to_document(&self) -> Document {
        let mut d = Document::new();
        let shards: Vec<Bson> = self.shards.iter().map(|s| s.to_document().into()).collect();
        d.insert("shards", shards);
        let dbs: Vec<Bson> = self
            .databases
            .iter()
            .map(|(db, primary)| {
                bson::doc! { "_id": db.clone(), "primary": primary.clone() }.into()
            })
            .collect();
        d.insert("databases", dbs);
        let colls: Vec<Bson> = self
            .collections
            .iter()
            .map(|c| c.to_document().into())
            .collect();
        d.insert("collections", colls);
        if let Some(v) = self.version {
            d.insert("version", v.label());
        }
        d
    }

    /// Reads [`ClusterImage::to_document`]'s shape back, refusing what is not it.
    pub fn from_document(d: &Document) -> Result<Self, ClusterError> {
        let shards = array_of(d, "shards")?
            .into_iter()
            .map(ShardDoc::from_document)
            .collect::<Result<_, _>>()?;
        let databases = array_of(d, "databases")?
            .into_iter()
            .map(|db| {
                Ok((
                    str_of(db, "_id", "a database")?.to_string(),
                    str_of(db, "primary", "a database")?.to_string(),
                ))
            })
            .collect::<Result<_, ClusterError>>()?;
        let collections = array_of(d, "collections")?
            .into_iter()
            .map(ImageCollection::from_document)
            .collect::<Result<_, _>>()?;
        let version = match d.get("version") {
            None => None,
            Some(Bson::String(v)) => Some(
                VersionMode::parse(v).ok_or_else(|| bad(&format!("unknown version mode '{v}'")))?,
            ),
            Some(_) => return Err(bad("'version' must be a string such as \"8.0\"")),
        };
        Ok(ClusterImage {
            shards,
            databases,
            collections,
            version,
        })
    }
}

impl Cluster {
    /// Replaces the cluster's shards, databases and collections with `image`'s, checking
    /// everything first: nothing changes unless the whole image loads. Each collection's
    /// chunks must tile its key space, name shards of the image, and its zone ranges must
    /// not overlap; every chunk has zero documents (the metadata holds none).
    pub fn load_image(&mut self, image: &ClusterImage) -> Result<(), ClusterError> {
        let mut next = self.clone();
        if let Some(v) = image.version {
            next.set_version(v);
        }
        next.shards = image_shards(image)?;
        next.databases.clear();
        next.collections.clear();
        next.pending_zones.clear();
        for (db, primary) in &image.databases {
            let idx = next.shard_index(primary)?;
            next.create_database(db, Some(idx))?;
        }
        let total: usize = image.collections.iter().map(|c| c.chunks.len()).sum();
        if total > MAX_IMAGE_CHUNKS {
            return Err(ClusterError::ExceededMemoryLimit(format!(
                "sim.loadCluster: {total} chunks, more than the {MAX_IMAGE_CHUNKS} a playground holds"
            )));
        }
        for coll in &image.collections {
            next.load_collection(coll)?;
        }
        // `config.system.sessions` is a sharded collection of every cluster, but the
        // config database has no `config.databases` document (mongosh adds its own).
        next.databases.remove("config");
        *self = next;
        Ok(())
    }

    fn load_collection(&mut self, coll: &ImageCollection) -> Result<(), ClusterError> {
        let pattern = KeyPattern::parse(&coll.key)?;
        pattern.check_unique(coll.unique)?;
        let mut chunks = Vec::with_capacity(coll.chunks.len());
        for c in &coll.chunks {
            chunks.push(Chunk {
                jumbo: c.jumbo,
                version: ChunkVersion {
                    major: c.lastmod.time,
                    minor: c.lastmod.increment,
                },
                ..Chunk::empty(
                    image_bound(&pattern, &c.min)?,
                    image_bound(&pattern, &c.max)?,
                    self.shard_index(&c.shard)?,
                    0,
                )
            });
        }
        chunks.sort_by(|a, b| a.min.cmp(&b.min));
        let ranges: Vec<(KeyValue, KeyValue)> = chunks
            .iter()
            .map(|c| (c.min.clone(), c.max.clone()))
            .collect();
        if let Some(problem) = tiling_problem(&pattern, &ranges) {
            return Err(tiling_error(&coll.ns, &pattern, &ranges, problem));
        }
        let zones = image_zones(&coll.ns, &pattern, &coll.zones)?;
        let first_owner: ShardIdx = chunks.first().map_or(0, |c| c.shard);
        let db = crate::engine::cluster::split_ns(&coll.ns)?.0.to_string();
        if !self.databases.contains_key(&db) {
            self.create_database(&db, Some(first_owner))?;
        }
        self.ensure_collection(&coll.ns)?;
        self.install_sharding(
            &coll.ns,
            pattern,
            coll.unique,
            RoutingTable::from_chunks(chunks),
            zones,
            Vec::new(),
        )?;
        if coll.no_balance {
            self.sharding_mut(&coll.ns)?.balancing = false;
        }
        Ok(())
    }
}

/// The shards of an image, with their zones; names must be distinct and there must be one.
fn image_shards(image: &ClusterImage) -> Result<Vec<Shard>, ClusterError> {
    if image.shards.is_empty() {
        return Err(bad("the cluster has no shards (config.shards is empty)"));
    }
    let mut shards: Vec<Shard> = Vec::with_capacity(image.shards.len());
    for s in &image.shards {
        if s.id.is_empty() || shards.iter().any(|t| t.name == s.id) {
            return Err(bad(&format!(
                "the shard name '{}' is empty or repeated",
                s.id
            )));
        }
        shards.push(Shard {
            name: s.id.clone(),
            host: s.host.clone(),
            draining: s.draining,
            removed: false,
            zones: s.tags.iter().flatten().cloned().collect::<ZoneSet>(),
        });
    }
    Ok(shards)
}

/// The zone ranges of a collection, refused when two overlap, in MongoDB's words.
fn image_zones(
    ns: &str,
    pattern: &KeyPattern,
    zones: &[ImageZone],
) -> Result<Vec<ZoneRange>, ClusterError> {
    let mut ranges = Vec::with_capacity(zones.len());
    for z in zones {
        ranges.push(ZoneRange {
            min: image_bound(pattern, &z.min)?,
            max: image_bound(pattern, &z.max)?,
            zone: z.tag.clone(),
        });
    }
    ranges.sort_by(ZoneRange::by_min);
    for pair in ranges.windows(2) {
        if pair[1].min < pair[0].max {
            let text = |z: &ZoneRange| {
                format!(
                    "{{ min: {}, max: {} }}",
                    format_bson_obj(&pattern.to_document(&z.min)),
                    format_bson_obj(&pattern.to_document(&z.max))
                )
            };
            return Err(ClusterError::RangeOverlapConflict(format!(
                "Zone range: {} is overlapping with existing: {} ({ns})",
                text(&pair[1]),
                text(&pair[0])
            )));
        }
    }
    Ok(ranges)
}

/// The words for a [`TilingProblem`], naming the chunks by their bounds.
pub fn tiling_error(
    ns: &str,
    pattern: &KeyPattern,
    ranges: &[(KeyValue, KeyValue)],
    problem: TilingProblem,
) -> ClusterError {
    let name = |i: usize| {
        ranges.get(i).map_or_else(String::new, |(min, max)| {
            format!(
                "[{}, {})",
                format_bson_obj(&pattern.to_document(min)),
                format_bson_obj(&pattern.to_document(max))
            )
        })
    };
    let text = match problem {
        TilingProblem::StartsLate(_) if ranges.is_empty() => "it has no chunks".to_string(),
        TilingProblem::StartsLate(i) => {
            format!("the first chunk {} does not start at MinKey", name(i))
        }
        TilingProblem::EndsEarly(i) => format!("the last chunk {} does not end at MaxKey", name(i)),
        TilingProblem::Empty(i) => format!("the chunk {} is empty", name(i)),
        TilingProblem::Gap(a, b) => format!("a gap between the chunks {} and {}", name(a), name(b)),
        TilingProblem::Overlap(a, b) => format!("the chunks {} and {} overlap", name(a), name(b)),
    };
    ClusterError::Coded(
        crate::values::error::Code::IncompatibleShardingMetadata,
        format!("The chunks of {ns} do not cover its key space: {text}"),
    )
}
