//! What the page's side panels draw, each asked of the engine for one session at its
//! cursor: the event log, the key-space heatmap, the insights (analyzeShardKey and the
//! charts), the inspector, and the workload's fit to the shard key. Every figure and
//! sentence is the engine's; the page only lays them out.

use serde::{Deserialize, Deserializer, Serialize};

/// One event of the cluster's log, newest first in [`Reply::Events`](crate::Reply).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventRow {
    /// Its sequence number.
    pub seq: u64,
    /// Its changelog name, such as `split` or `moveChunk.commit`.
    pub kind: String,
    /// What happened, in an English sentence with bounds as mongosh prints them.
    pub text: String,
    /// The sentence as a message of the page's text catalogue; `text` is its English.
    #[serde(default)]
    pub message: Option<MessageView>,
    /// The timeline step just after it, to jump to.
    pub step: Option<u64>,
}

/// The heatmap's grid: the key space (rows) over groups of steps (columns).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeatView {
    /// The collection.
    pub ns: String,
    /// The key as mongosh prints it (empty when the collection is not sharded).
    pub key: String,
    /// Whether the axis is the int64 hash space.
    pub hashed: bool,
    /// Steps in the timeline (the x axis's last step; a click on column `c` jumps to
    /// step `min((c + 1) * per_column, steps)`).
    pub steps: u64,
    /// The rows, bottom (MinKey side) first: the shard owning each row's middle at the
    /// cursor, by shard index.
    pub row_shards: Vec<u32>,
    /// Steps per column.
    pub per_column: u64,
    /// Columns.
    pub columns: u32,
    /// The cursor, a step number.
    pub cursor: u64,
    /// Cells row by row (`cells[row * columns + column]`), in inserts. On the wire, their
    /// little-endian bytes ([`f32_bytes`]): a grid holds a cell per device pixel, and a
    /// byte string crosses the worker boundary as one typed array.
    #[serde(with = "f32_bytes")]
    pub cells: Vec<f32>,
    /// The largest cell.
    pub max_cell: f32,
    /// Where each chunk at the cursor starts, in key order (the MinKey chunk first), as
    /// fractions of the axis from the bottom: a line goes between neighbours.
    pub boundaries: Vec<f64>,
    /// The shards in the strip, each once by index, with their names.
    pub shards: Vec<(u32, String)>,
    /// The pattern the engine reads in the grid, by name (`hot edge`, `band`, `even`,
    /// `uneven`, `too little data`: a glossary term), with its sentence as the page shows
    /// it beside the name (the name not repeated). Absent when the grid is empty.
    pub pattern: Option<(String, String)>,
    /// The pattern's name and sentence as messages of the page's catalogue (`heat.name.*`,
    /// `heat.pattern.*`), for a page to word in its reader's language.
    #[serde(default)]
    pub pattern_words: Option<(MessageView, MessageView)>,
    /// Why the grid is empty, when it is.
    pub empty: Option<String>,
    /// Why the grid is empty as a message of the page's text catalogue; `empty` is its
    /// English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty_words: Option<MessageView>,
    /// What the vertical axis shows, in a sentence (empty when the grid is).
    #[serde(default)]
    pub axis: String,
    /// A ranked axis's sentence as a message of the page's catalogue (`heat.axis.*`);
    /// absent for a hashed key's axis, which the page words from the key.
    #[serde(default)]
    pub axis_words: Option<MessageView>,
}

/// The insights panel: analyzeShardKey's report on the key of the collection shown, and
/// the charts' series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightsView {
    /// The collection.
    pub ns: String,
    /// The key as mongosh prints it.
    pub key: String,
    /// The cursor the answer was computed at, a step number.
    pub step: u64,
    /// The report's figures, or MongoDB's error; absent unless asked for.
    #[serde(default, with = "crate::fallible::option")]
    pub report: Option<Result<Analysis, String>>,
    /// Shards by name, in the cluster's order, with their colour index.
    pub shards: Vec<(String, u32)>,
    /// Documents per shard after each step, oldest first (at most about 160 points).
    pub docs: Vec<StepPoint>,
    /// Inserts per shard in each of the latest 60 steps.
    pub inserts: Vec<StepPoint>,
}

/// One step's figure per shard, in the order of [`InsightsView::shards`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepPoint {
    /// The step's number, from 1.
    pub step: u64,
    /// The figure per shard.
    pub per_shard: Vec<u64>,
}

/// analyzeShardKey's figures, as the page shows them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// Named figures of the key's characteristics, in the order the page lists them:
    /// `numDocsTotal`, `numDistinctValues`, `monotonicity` (its type),
    /// `recordIdCorrelationCoefficient` (two decimals) and `avgDocSizeBytes`, numbers as
    /// the page prints them (absent ones as 0).
    pub characteristics: Vec<(String, String)>,
    /// The most common values as mongosh prints them, with their frequencies.
    pub most_common: Vec<(String, String)>,
    /// Read distribution shares (single, multi, scatter) in percent, when reported.
    pub reads: Option<[f64; 3]>,
    /// Write distribution shares, when reported.
    pub writes: Option<[f64; 3]>,
    /// A note on what was left out and why (MongoDB's reason).
    pub note: Option<String>,
    /// The note as a message of the page's text catalogue (ShardLab's sentences, with
    /// MongoDB's error as it prints it); `note` is its English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_words: Option<MessageView>,
}

/// What the inspector is asked about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Inspecting {
    /// Nothing: the insert form and where the latest insert landed.
    Nothing,
    /// The chunk holding a key (a chunk's `key` handle from a frame), from document `skip`
    /// or from the page holding document `mark`.
    Chunk {
        /// The key, as [`crate::ChunkFrame::key`] carries it.
        key: String,
        /// The first document listed.
        skip: Option<u64>,
        /// A document to mark, by insertion number.
        mark: Option<u64>,
    },
    /// The chunk at a point of the key-space bar, in [0, 1] (as the frame's bar lays
    /// the chunks out), or the document of the latest insert whose tick is nearest within
    /// `reach`, marked in its chunk.
    At {
        /// The point.
        at: f64,
        /// How far from the point a tick may be to be taken, as a share of the bar (the
        /// page's 4 CSS pixels over the bar's width); no tick is taken when absent.
        #[serde(default)]
        reach: Option<f64>,
    },
    /// Why a shard holds what it holds.
    Shard {
        /// Its name.
        shard: String,
    },
    /// What a balancer round would do now.
    Round,
}

/// What the inspector shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    /// The insert form's example document, in the shell's syntax; empty (and nothing else
    /// set) when the collection is not sharded at the cursor, where the page shows no
    /// inspector.
    pub example: String,
    /// Where the latest single-document insert landed.
    pub landing: Option<LandingView>,
    /// The chunk asked about, or why it cannot be shown (MongoDB's error, or a handle
    /// that names no key).
    #[serde(default, with = "crate::fallible::option")]
    pub chunk: Option<Result<ChunkDocsView, String>>,
    /// The explanations asked about (a shard's, a round's), or MongoDB's error.
    #[serde(default, with = "crate::fallible::option")]
    pub explanations: Option<Result<Vec<ExplanationView>, String>>,
}

/// Where a document landed and why.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LandingView {
    /// Its insertion number.
    pub seq: u64,
    /// Its shard key value, as mongosh prints it.
    pub key: String,
    /// The key handle of its chunk (the chunk's lower bound), to open it.
    pub key_handle: String,
    /// For a hashed key: the field, its value and its hash as mongosh prints them, and
    /// the hash in decimal (a JavaScript number cannot hold every int64).
    pub hashed: Option<(String, String, String, String)>,
    /// The chunk's bounds.
    pub chunk: (String, String),
    /// Its shard.
    pub shard: String,
    /// Why, in English.
    pub why: String,
    /// Why, as messages of the page's text catalogue, for a page to word in its reader's
    /// language; `why` is their English.
    #[serde(default)]
    pub why_messages: Vec<MessageView>,
}

/// A sentence (or a phrase) of the engine's as a message of the page's text catalogue:
/// its id and its placeholders' values, for a page to word in its reader's language.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageView {
    /// The message's id, a key of the catalogue.
    pub id: String,
    /// Each placeholder's name and value.
    pub args: Vec<(String, ArgView)>,
}

/// A placeholder's value: on the wire a string, or a message object of its own (read by
/// what it is, in one pass: serde's untagged reader would buffer every value first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ArgView {
    /// Words no language changes: a figure, a bound, a shard's name, as mongosh prints them.
    Text(String),
    /// A phrase of its own, worded in the reader's language.
    Message(MessageView),
}

/// A page of a chunk's documents, with the chunk's explanations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkDocsView {
    /// The chunk's lower bound, as mongosh prints it.
    pub min: String,
    /// Its upper bound.
    pub max: String,
    /// Its handle (for paging).
    pub key: String,
    /// Its shard.
    pub shard: String,
    /// Documents in it.
    pub total: u64,
    /// The first row's position in the chunk, from 0.
    pub skip: u64,
    /// The document marked, by insertion number (the one asked for, or the tick's).
    pub mark: Option<u64>,
    /// Whether the key is hashed (rows then carry the hashed value).
    pub hashed: bool,
    /// The rows.
    pub rows: Vec<DocView>,
    /// Why the chunk is where and what it is, or MongoDB's error.
    #[serde(with = "crate::fallible")]
    pub explanations: Result<Vec<ExplanationView>, String>,
}

/// One document of a chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocView {
    /// Its insertion number.
    pub seq: u64,
    /// Its `_id`, as mongosh prints it.
    pub id: String,
    /// Its shard key value.
    pub key: String,
    /// The hashed value, for a hashed key.
    pub hashed: Option<String>,
}

/// One explanation: its rule, its sentence and its figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplanationView {
    /// The topic's name (`chunk`, `shard`, `round`, ...).
    pub topic: String,
    /// The rule's short name, in English.
    pub rule: String,
    /// The rule's short name as a message of the page's text catalogue, if it has one.
    #[serde(default)]
    pub rule_message: Option<MessageView>,
    /// The sentence, in English.
    pub sentence: String,
    /// The sentence as messages of the page's text catalogue; `sentence` is their English.
    #[serde(default)]
    pub messages: Vec<MessageView>,
    /// The figures, as mongosh prints them.
    pub facts: Vec<(String, String)>,
}

/// How the workload's documents fit the shard key of the collection shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FitView {
    /// The workload as the form shows it (a name, or its template as mongosh prints it),
    /// or why it cannot be read.
    #[serde(with = "crate::fallible")]
    pub shown: Result<String, String>,
    /// The key as mongosh prints it (empty when the collection is not sharded).
    pub key: String,
    /// Key fields the workload's documents never have.
    pub missing: Vec<String>,
    /// Key fields the workload leaves out of some documents (when none is missing).
    pub sometimes: Vec<String>,
    /// The template with the missing fields added, as mongosh prints it.
    pub fixed: Option<String>,
    /// Workloads that write every key field.
    pub fitting: Vec<String>,
}

/// How keeping a session's JSON form (`page.keep`) went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kept {
    /// The JSON form's length, in bytes (the page says when it nears the size that can
    /// be kept, [`crate::scenario_room`]).
    pub bytes: u64,
    /// Whether it was written: not when it is over the size a session opens from (the copy
    /// that last fitted stays), nor when the store refused it (`why`).
    pub kept: bool,
    /// Why the store refused it, in words (a full store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A list of `f32`s carried as their little-endian bytes, four per number. Through
/// serde-wasm-bindgen a byte string is a `Uint8Array`, cloned between threads and read
/// into the page's memory as one block, where a list of numbers is cloned and then read
/// one number, one call across the boundary, at a time: a heatmap of a hundred thousand
/// cells took the page's main thread tens of milliseconds to read that way.
pub mod f32_bytes {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    /// Writes `values` as their bytes.
    pub fn serialize<S: Serializer>(values: &[f32], serializer: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        serializer.serialize_bytes(&bytes)
    }

    /// Reads the numbers back from their bytes (a byte string, or a list of byte values
    /// as JSON carries bytes); a length that is not a multiple of four is refused.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f32>, D::Error> {
        deserializer.deserialize_byte_buf(Floats)
    }

    struct Floats;

    impl Floats {
        fn read<E: Error>(bytes: &[u8]) -> Result<Vec<f32>, E> {
            if bytes.len() % 4 != 0 {
                return Err(E::invalid_length(bytes.len(), &Floats));
            }
            Ok(bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect())
        }
    }

    impl<'de> Visitor<'de> for Floats {
        type Value = Vec<f32>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the little-endian bytes of 32-bit floats, four per number")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<f32>, E> {
            Floats::read(bytes)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f32>, A::Error> {
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element::<u8>()? {
                bytes.push(b);
            }
            Floats::read(&bytes)
        }
    }
}

/// Bytes as a byte string: a `Uint8Array` through serde-wasm-bindgen, read in one block;
/// a list of byte values (JSON's way) is read too.
pub mod byte_buf {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};
    use std::fmt;

    /// Writes the bytes.
    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    /// Reads them back, refusing more than [`crate::MAX_SOURCE_BYTES`].
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(Bytes)
    }

    struct Bytes;

    fn bounded<E: Error>(bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        if bytes.len() > crate::MAX_SOURCE_BYTES {
            return Err(E::custom(format!(
                "a slice is at most {} bytes",
                crate::MAX_SOURCE_BYTES
            )));
        }
        Ok(bytes)
    }

    impl<'de> Visitor<'de> for Bytes {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            bounded(bytes.to_vec())
        }

        fn visit_byte_buf<E: Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            bounded(bytes)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element::<u8>()? {
                if bytes.len() == crate::MAX_SOURCE_BYTES {
                    return bounded(vec![0; crate::MAX_SOURCE_BYTES + 1]);
                }
                bytes.push(b);
            }
            Ok(bytes)
        }
    }
}

impl<'de> Deserialize<'de> for ArgView {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgVisitor;
        impl<'de> serde::de::Visitor<'de> for ArgVisitor {
            type Value = ArgView;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a message {id, args}")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ArgView, E> {
                Ok(ArgView::Text(v.to_string()))
            }

            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<ArgView, E> {
                Ok(ArgView::Text(v))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<ArgView, A::Error> {
                MessageView::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(ArgView::Message)
            }
        }
        deserializer.deserialize_any(ArgVisitor)
    }
}
