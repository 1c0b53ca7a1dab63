//! Reading a real cluster's sharding metadata as the tools write it: `mongoexport` of
//! `config.shards`, `config.databases`, `config.collections`, `config.chunks`,
//! `config.tags` and `config.changelog` (Extended JSON, relaxed or canonical, one
//! document after another or `--jsonArray`), or `bsondump` of a `mongodump`'s `.bson`
//! files (canonical Extended JSON, a document a line). Each file is read slice by slice
//! through the document importer's reader ([`ImportReader`]), and each document is read
//! as MongoDB's own types read it (`engine::config_catalog`'s `ShardDoc`, `ChunkDoc`,
//! ...): only what the cluster needs is kept, so a large changelog streams.
//!
//! Files are named for their collection: `chunks.json` (as `mongoexport -o` is usually
//! told), `config.chunks.json`, or `chunks.bson.json`, each maybe gzipped
//! ([`MetadataCollection::from_file_name`]).

use crate::engine::{ChangelogDoc, ChunkDoc, CollectionDoc, DatabaseDoc, ShardDoc, TagDoc};
use crate::workload::import::{ImportError, ImportOptions, ImportReader, Record};
use bson::{Bson, Document};
use thiserror::Error;

/// The config collections an import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MetadataCollection {
    /// `config.shards`.
    Shards,
    /// `config.databases` (optional: each database's primary shard).
    Databases,
    /// `config.collections`.
    Collections,
    /// `config.chunks`.
    Chunks,
    /// `config.tags` (optional).
    Tags,
    /// `config.changelog` (optional).
    Changelog,
}

/// Every collection, in the order they are read.
pub const METADATA_COLLECTIONS: [MetadataCollection; 6] = [
    MetadataCollection::Shards,
    MetadataCollection::Databases,
    MetadataCollection::Collections,
    MetadataCollection::Chunks,
    MetadataCollection::Tags,
    MetadataCollection::Changelog,
];

impl MetadataCollection {
    /// The collection's name in the config database.
    pub fn name(self) -> &'static str {
        match self {
            MetadataCollection::Shards => "shards",
            MetadataCollection::Databases => "databases",
            MetadataCollection::Collections => "collections",
            MetadataCollection::Chunks => "chunks",
            MetadataCollection::Tags => "tags",
            MetadataCollection::Changelog => "changelog",
        }
    }

    /// The collection a name gives (`chunks` or `config.chunks`).
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.strip_prefix("config.").unwrap_or(name);
        METADATA_COLLECTIONS.into_iter().find(|c| c.name() == name)
    }

    /// The collection a file holds, by its name: `chunks.json`, `config.chunks.json`,
    /// `chunks.bson.json` (bsondump's output kept beside the dump's name), `.jsonl` or
    /// `.ndjson` for `.json`, each maybe followed by `.gz`.
    pub fn from_file_name(file: &str) -> Option<Self> {
        let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let base = base.strip_suffix(".gz").unwrap_or(base);
        let stem = [".json", ".jsonl", ".ndjson"]
            .iter()
            .find_map(|e| base.strip_suffix(e))?;
        let stem = stem.strip_suffix(".bson").unwrap_or(stem);
        MetadataCollection::parse(stem)
    }

    /// Whether a cluster's metadata may leave the collection out.
    pub fn optional(self) -> bool {
        matches!(
            self,
            MetadataCollection::Databases
                | MetadataCollection::Tags
                | MetadataCollection::Changelog
        )
    }
}

/// Why the metadata cannot be imported, naming the file and, where there is one, the line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}{}: {message}", line.map_or(String::new(), |l| format!(", line {l}")))]
pub struct MetadataError {
    /// The file (or, for a missing one, the collection's usual file name).
    pub file: String,
    /// The line (1-based), when the problem is one document's.
    pub line: Option<u64>,
    /// What is wrong, in MongoDB's words where it has them.
    pub message: String,
}

/// A document of the metadata with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<T> {
    /// The file it was read from.
    pub file: String,
    /// Its first line in the file.
    pub line: u64,
    /// What it says.
    pub value: T,
}

/// Everything read from the files, as MongoDB's types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetadataDocs {
    /// `config.shards`.
    pub shards: Vec<Located<ShardDoc>>,
    /// `config.databases`.
    pub databases: Vec<Located<DatabaseDoc>>,
    /// `config.collections`, with each document's `unsplittable` flag (8.0).
    pub collections: Vec<Located<(CollectionDoc, bool)>>,
    /// `config.chunks`.
    pub chunks: Vec<Located<ChunkDoc>>,
    /// `config.tags`.
    pub tags: Vec<Located<TagDoc>>,
    /// The `config.changelog` entries that change chunks (`engine::REPLAYED_CHANGES`).
    pub changes: Vec<Located<ChangelogDoc>>,
    /// The other changelog entries, counted by `what`, in the order first seen.
    pub skipped: Vec<(String, u64)>,
    /// The files read, by collection.
    pub files: Vec<(MetadataCollection, String)>,
}

/// Reads the metadata's files, one at a time, in slices.
#[derive(Debug, Default)]
pub struct MetadataReader {
    docs: MetadataDocs,
    current: Option<(MetadataCollection, String, ImportReader)>,
}

impl MetadataReader {
    /// A reader with nothing read.
    pub fn new() -> Self {
        MetadataReader::default()
    }

    /// Starts reading `file`, which holds `collection`'s documents.
    pub fn begin(
        &mut self,
        collection: MetadataCollection,
        file: &str,
    ) -> Result<(), MetadataError> {
        if let Some((_, other)) = self.docs.files.iter().find(|(c, _)| *c == collection) {
            return Err(MetadataError {
                file: file.to_string(),
                line: None,
                message: format!(
                    "config.{} was read already, from {other}",
                    collection.name()
                ),
            });
        }
        let options = ImportOptions {
            file_name: Some(file.to_string()),
            ..ImportOptions::default()
        };
        self.docs.files.push((collection, file.to_string()));
        self.current = Some((collection, file.to_string(), ImportReader::new(options)));
        Ok(())
    }

    /// Reads the next slice of the current file.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), MetadataError> {
        let Some((_, file, reader)) = &mut self.current else {
            return Ok(());
        };
        let result = reader.push(bytes);
        let file = file.clone();
        result.map_err(|e| read_error(&file, e))?;
        self.drain()
    }

    /// Ends the current file.
    pub fn end(&mut self) -> Result<(), MetadataError> {
        if let Some((_, file, reader)) = &mut self.current {
            let result = reader.finish();
            let file = file.clone();
            result.map_err(|e| read_error(&file, e))?;
            self.drain()?;
        }
        let Some((collection, file, _)) = self.current.take() else {
            return Ok(());
        };
        if !collection.optional() && self.count(collection) == 0 {
            return Err(MetadataError {
                file,
                line: None,
                message: format!(
                    "the file holds no documents: config.{} cannot be empty",
                    collection.name()
                ),
            });
        }
        Ok(())
    }

    /// What was read.
    pub fn finish(mut self) -> Result<MetadataDocs, MetadataError> {
        self.end()?;
        Ok(self.docs)
    }

    fn count(&self, collection: MetadataCollection) -> usize {
        let d = &self.docs;
        match collection {
            MetadataCollection::Shards => d.shards.len(),
            MetadataCollection::Databases => d.databases.len(),
            MetadataCollection::Collections => d.collections.len(),
            MetadataCollection::Chunks => d.chunks.len(),
            MetadataCollection::Tags => d.tags.len(),
            MetadataCollection::Changelog => d.changes.len() + d.skipped.len(),
        }
    }

    fn drain(&mut self) -> Result<(), MetadataError> {
        loop {
            let Some((collection, file, reader)) = &mut self.current else {
                return Ok(());
            };
            let (collection, file) = (*collection, file.clone());
            let record = reader.next_record().map_err(|e| read_error(&file, e))?;
            match record {
                None => return Ok(()),
                Some(Record::Failure(f)) => {
                    return Err(MetadataError {
                        file,
                        line: Some(f.line),
                        message: f
                            .column
                            .map_or(f.reason.clone(), |c| format!("column {c}: {}", f.reason)),
                    })
                }
                Some(Record::Document(d)) => {
                    let at = |message: String| MetadataError {
                        file: file.clone(),
                        line: Some(d.line),
                        message,
                    };
                    self.keep(collection, &file, d.line, d.document)
                        .map_err(|e| at(e.to_string()))?;
                }
            }
        }
    }

    fn keep(
        &mut self,
        collection: MetadataCollection,
        file: &str,
        line: u64,
        doc: Document,
    ) -> Result<(), crate::engine::ClusterError> {
        fn at<T>(file: &str, line: u64, value: T) -> Located<T> {
            Located {
                file: file.to_string(),
                line,
                value,
            }
        }
        let d = &mut self.docs;
        match collection {
            MetadataCollection::Shards => {
                d.shards
                    .push(at(file, line, ShardDoc::from_document(&doc)?))
            }
            MetadataCollection::Databases => {
                d.databases
                    .push(at(file, line, DatabaseDoc::from_document(&doc)?))
            }
            MetadataCollection::Collections => {
                let unsplittable = matches!(doc.get("unsplittable"), Some(Bson::Boolean(true)));
                let located = Located {
                    file: file.to_string(),
                    line,
                    value: (CollectionDoc::from_document(&doc)?, unsplittable),
                };
                d.collections.push(located);
            }
            MetadataCollection::Chunks => {
                d.chunks
                    .push(at(file, line, ChunkDoc::from_document(&doc)?))
            }
            MetadataCollection::Tags => d.tags.push(at(file, line, TagDoc::from_document(&doc)?)),
            MetadataCollection::Changelog => {
                let entry = ChangelogDoc::from_document(&doc)?;
                if crate::engine::REPLAYED_CHANGES.contains(&entry.what.as_str()) {
                    d.changes.push(Located {
                        file: file.to_string(),
                        line,
                        value: entry,
                    });
                } else if let Some(n) = d.skipped.iter_mut().find(|(w, _)| *w == entry.what) {
                    n.1 += 1;
                } else {
                    d.skipped.push((entry.what, 1));
                }
            }
        }
        Ok(())
    }
}

fn read_error(file: &str, e: ImportError) -> MetadataError {
    MetadataError {
        file: file.to_string(),
        line: None,
        message: e.to_string(),
    }
}
