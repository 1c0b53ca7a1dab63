//! The view model's pictures as protocol frames. A shard whose chunk list is the same
//! `Rc` as in the previous frame sends no chunks: the view keeps what it has.

use crate::view_model::{
    human_bytes, key_handle, short_bound, ChunkView, ClusterView, FrameMemory,
};
use shardlab_protocol::{BarFrame, ChunkFrame, Frame, ShardFrame, Tick};
use std::collections::HashMap;
use std::rc::Rc;

/// Converts `view` to a frame for a view that last received `previous` (or nothing, when
/// `previous` is `None`, so every shard's chunks are sent).
pub fn to_frame(view: &ClusterView, previous: Option<&ClusterView>, position: u64) -> Frame {
    // Each chunk's place in key order, found by identity from the bar (which lists every
    // chunk in key order).
    let orders: HashMap<*const ChunkView, u32> = view
        .bar
        .iter()
        .enumerate()
        .map(|(i, b)| (Rc::as_ptr(&b.chunk), i as u32))
        .collect();
    let order_of = |c: &Rc<ChunkView>| orders.get(&Rc::as_ptr(c)).copied().unwrap_or(0);
    let shards = view
        .shards
        .iter()
        .map(|s| {
            let same = previous
                .and_then(|p| p.shards.iter().find(|q| q.index == s.index))
                .is_some_and(|q| Rc::ptr_eq(&q.chunks, &s.chunks));
            ShardFrame {
                name: s.name.clone(),
                index: s.index as u32,
                draining: s.draining,
                zones: s.zones.clone(),
                docs: s.docs,
                bytes: s.bytes,
                size: human_bytes(s.bytes),
                chunks: (!same).then(|| {
                    s.chunks
                        .iter()
                        .map(|c| chunk_frame(c, order_of(c)))
                        .collect()
                }),
            }
        })
        .collect();
    Frame {
        ns: view.ns.clone(),
        position,
        sharded: view.sharded,
        hashed: view.hashed,
        key: view.key.clone(),
        docs: view.docs,
        chunks: view.chunks,
        shards,
        bar: view
            .bar
            .iter()
            .map(|b| BarFrame {
                min: b.min.to_string(),
                key: key_handle(&b.chunk.key),
                lo: b.lo,
                hi: b.hi,
                shard: b.shard as u32,
                gained: b.gained,
            })
            .collect(),
        ticks: view
            .ticks
            .iter()
            .zip(&view.tick_docs)
            .map(|((at, fresh), (seq, key))| Tick {
                at: *at,
                fresh: *fresh,
                seq: *seq,
                key: key_handle(key),
                chunk: view
                    .bar
                    .partition_point(|b| b.chunk.key <= *key)
                    .checked_sub(1)
                    .and_then(|i| view.bar.get(i))
                    .map(|b| key_handle(&b.chunk.key))
                    .unwrap_or_default(),
            })
            .collect(),
    }
}

fn chunk_frame(c: &ChunkView, order: u32) -> ChunkFrame {
    ChunkFrame {
        order,
        key: key_handle(&c.key),
        short_min: short_bound(&c.min),
        short_max: short_bound(&c.max),
        last_modified: c.last_modified(),
        size: human_bytes(c.bytes),
        min: c.min.to_string(),
        max: c.max.to_string(),
        is_min: c.is_min,
        is_max: c.is_max,
        docs: c.docs,
        bytes: c.bytes,
        jumbo: c.jumbo,
        gained: c.gained,
        arrived_from: c.arrived_from.clone(),
        fresh: c.fresh,
        version: c.version,
    }
}

/// What a session remembers of the last frame it sent: the picture, for the next frame's
/// heat and for leaving out unchanged shards.
#[derive(Clone, Default)]
pub struct SentFrames {
    last: Option<ClusterView>,
}

impl SentFrames {
    /// The memory the next picture compares with.
    pub fn memory(&self) -> FrameMemory {
        self.last
            .as_ref()
            .map(ClusterView::memory)
            .unwrap_or_default()
    }

    /// Records `view` as sent and returns its frame.
    pub fn send(&mut self, view: ClusterView, position: u64) -> Frame {
        let previous = self
            .last
            .as_ref()
            .filter(|p| p.ns == view.ns && p.key == view.key);
        let frame = to_frame(&view, previous, position);
        self.last = Some(view);
        frame
    }

    /// Forgets the last frame, so the next one is whole (a view that lost its copy).
    pub fn forget(&mut self) {
        self.last = None;
    }
}
