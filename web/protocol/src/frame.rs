//! The picture of one collection, as the engine sends it to a view.
//!
//! A frame carries what changed: a shard whose chunks are the same blocks as in the
//! previous frame of the same session and collection sends `chunks: null`, and the view
//! keeps the list it has. The engine's view model already knows which blocks changed
//! (it keeps an unchanged block's `Rc` from frame to frame), so this costs no comparison.

use serde::{Deserialize, Serialize};

/// One collection at the session's cursor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// The collection drawn.
    pub ns: String,
    /// The step the frame shows.
    pub position: u64,
    /// Whether the collection is sharded.
    pub sharded: bool,
    /// Whether its key is hashed (the key-space bar is then the int64 hash space).
    pub hashed: bool,
    /// The shard key as mongosh prints it (empty when not sharded).
    pub key: String,
    /// Documents in the collection.
    pub docs: u64,
    /// Chunks of the collection.
    pub chunks: u64,
    /// The shards, in the cluster's order.
    pub shards: Vec<ShardFrame>,
    /// The key-space bar, one segment per chunk in key order.
    pub bar: Vec<BarFrame>,
    /// Where the latest inserts fall on the bar.
    pub ticks: Vec<Tick>,
}

/// One shard as drawn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShardFrame {
    /// Its name, such as `shard01`.
    pub name: String,
    /// Its place in the cluster's shard list, which picks its colour.
    pub index: u32,
    /// Whether it is draining.
    pub draining: bool,
    /// Its zones.
    pub zones: Vec<String>,
    /// Documents of the collection on it.
    pub docs: u64,
    /// Bytes of the collection on it.
    pub bytes: u64,
    /// The bytes as mongosh prints sizes (`51.76KiB`).
    pub size: String,
    /// Its chunks in key order, or `None` when they are the blocks of the previous frame.
    pub chunks: Option<Vec<ChunkFrame>>,
}

/// One chunk as drawn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkFrame {
    /// Its position in the collection's key order, which names it to the engine.
    pub order: u32,
    /// Its lower bound, lossless (canonical Extended JSON of the key value): the handle
    /// that names the chunk holding it to the inspector, whatever the cursor.
    pub key: String,
    /// The lower bound in mongosh notation, such as `{ x: MinKey() }`.
    pub min: String,
    /// The upper bound.
    pub max: String,
    /// Whether it starts at MinKey.
    pub is_min: bool,
    /// Whether it ends at MaxKey.
    pub is_max: bool,
    /// Documents in it.
    pub docs: u64,
    /// Bytes in it.
    pub bytes: u64,
    /// The bytes as mongosh prints sizes.
    pub size: String,
    /// The lower bound shortened for a narrow block (long quoted values elided).
    pub short_min: String,
    /// The upper bound shortened.
    pub short_max: String,
    /// "Last modified", its version as mongosh prints it (`Timestamp({ t: 1, i: 2 })`).
    pub last_modified: String,
    /// Whether it is jumbo.
    pub jumbo: bool,
    /// Documents it gained since the previous frame.
    pub gained: u64,
    /// The shard that held its range in the previous frame, when another.
    pub arrived_from: Option<String>,
    /// Whether it is new since the previous frame (a split's piece).
    pub fresh: bool,
    /// Its version, major and minor.
    pub version: (u32, u32),
}

/// One chunk on the key-space bar.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BarFrame {
    /// The chunk's lower bound as mongosh prints it.
    pub min: String,
    /// Its key handle (see [`ChunkFrame::key`]).
    pub key: String,
    /// Where it starts, in [0, 1].
    pub lo: f64,
    /// Where it ends.
    pub hi: f64,
    /// Its shard's index.
    pub shard: u32,
    /// Documents it gained since the previous frame.
    pub gained: u64,
}

/// A recent insert on the key-space bar.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tick {
    /// Where it falls, in [0, 1].
    pub at: f64,
    /// Whether it is new since the previous frame.
    pub fresh: bool,
    /// Its insertion number.
    pub seq: u64,
    /// Its shard key value's handle.
    pub key: String,
    /// The key handle of the chunk holding it (see [`ChunkFrame::key`]).
    pub chunk: String,
}
