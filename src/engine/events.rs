//! The event log: everything that changes a cluster, in order (spec §11 changelog names).

use crate::engine::chunks::ChunkVersion;
use crate::engine::message::{msg, Message};
use crate::keys::shard_key::{format_bson_obj, KeyValue};
use bson::Document;

/// A shard's identifier, such as `shard01`.
pub type ShardName = String;

/// What a zone event changed.
#[derive(Debug, Clone, PartialEq)]
pub enum ZoneChange {
    /// A shard joined a zone (`addShardToZone`).
    Joined {
        /// The shard.
        shard: String,
        /// The zone.
        zone: String,
    },
    /// A shard left a zone (`removeShardFromZone`).
    Left {
        /// The shard.
        shard: String,
        /// The zone.
        zone: String,
    },
    /// A zone range of a collection was removed (`updateZoneKeyRange` with a null zone).
    RangeRemoved {
        /// The namespace.
        ns: String,
    },
    /// A zone got a range of a collection.
    RangeAdded {
        /// The zone.
        zone: String,
        /// The namespace.
        ns: String,
    },
}

impl ZoneChange {
    /// The change as a message of the page's catalogue.
    fn message(&self) -> Message {
        match self {
            ZoneChange::Joined { shard, zone } => {
                msg!(
                    "event.zone.joined",
                    shard = shard.as_str(),
                    zone = zone.as_str()
                )
            }
            ZoneChange::Left { shard, zone } => {
                msg!(
                    "event.zone.left",
                    shard = shard.as_str(),
                    zone = zone.as_str()
                )
            }
            ZoneChange::RangeRemoved { ns } => msg!("event.zone.range_removed", ns = ns.as_str()),
            ZoneChange::RangeAdded { zone, ns } => {
                msg!(
                    "event.zone.range_added",
                    zone = zone.as_str(),
                    ns = ns.as_str()
                )
            }
        }
    }
}

/// One thing that happened to the cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// A batch of inserts into one namespace; `per_shard` counts how many landed on each shard.
    Insert {
        /// The namespace.
        ns: String,
        /// Documents inserted per shard, in shard order.
        per_shard: Vec<(ShardName, u64)>,
    },
    /// A chunk was split in two (`split`) or more (`multi-split`).
    Split {
        /// The namespace.
        ns: String,
        /// The chunk's bounds before the split.
        min: KeyValue,
        /// The chunk's upper bound before the split.
        max: KeyValue,
        /// The split points, in order.
        points: Vec<KeyValue>,
        /// The collection version before the split: the pieces take its next minor
        /// versions, in key order (`commitChunkSplit`).
        version: ChunkVersion,
        /// Whether the cut is a migration's own: 6.0's `moveRange` cuts the chunk in
        /// `commitChunkMigration`, which writes no `split` to the changelog.
        in_move: bool,
    },
    /// A chunk started moving (`moveChunk.start`).
    MoveChunkStart {
        /// The namespace.
        ns: String,
        /// The chunk's lower bound.
        min: KeyValue,
        /// The chunk's upper bound.
        max: KeyValue,
        /// The donor shard.
        from: ShardName,
        /// The recipient shard.
        to: ShardName,
    },
    /// A chunk finished moving (`moveChunk.commit`).
    MoveChunkCommit {
        /// The namespace.
        ns: String,
        /// The chunk's lower bound.
        min: KeyValue,
        /// The chunk's upper bound.
        max: KeyValue,
        /// The donor shard.
        from: ShardName,
        /// The recipient shard.
        to: ShardName,
        /// The documents the recipient cloned.
        docs: u64,
        /// Their size in bytes.
        bytes: u64,
    },
    /// A chunk could not be split and was marked jumbo.
    Jumbo {
        /// The namespace.
        ns: String,
        /// The chunk's lower bound.
        min: KeyValue,
        /// The chunk's upper bound.
        max: KeyValue,
    },
    /// A collection was sharded.
    ShardCollection {
        /// The namespace.
        ns: String,
        /// The key pattern.
        key: Document,
        /// The database's primary shard, where the collection was created.
        primary: ShardName,
        /// Whether the collection held no documents when it was sharded.
        empty: bool,
        /// How many chunks the collection was created with: what `shardCollection` wrote
        /// before returning (3.6's hashed pre-split writes one per shard and splits them
        /// afterwards).
        chunks: u32,
    },
    /// Adjacent chunks on one shard were merged into `[min, max)`.
    Merge {
        /// The namespace.
        ns: String,
        /// The merged chunk's lower bound.
        min: KeyValue,
        /// The merged chunk's upper bound.
        max: KeyValue,
    },
    /// A chunk's jumbo flag was cleared.
    ClearJumbo {
        /// The namespace.
        ns: String,
        /// The chunk's lower bound.
        min: KeyValue,
    },
    /// The shard key was refined to a longer key.
    Refine {
        /// The namespace.
        ns: String,
        /// The new key pattern.
        key: Document,
        /// The key pattern it extends.
        old_key: Document,
    },
    /// The collection was resharded on a new key.
    Reshard {
        /// The namespace.
        ns: String,
        /// The new key pattern as mongosh prints it.
        key: String,
    },
    /// A shard joined the cluster.
    AddShard {
        /// The shard's name.
        shard: ShardName,
    },
    /// A shard started draining.
    RemoveShardStart {
        /// The shard's name.
        shard: ShardName,
    },
    /// A drained shard left the cluster.
    RemoveShard {
        /// The shard's name.
        shard: ShardName,
    },
    /// Zones or zone ranges changed.
    Zone {
        /// What changed.
        change: ZoneChange,
    },
    /// A shard key update moved a document to another shard.
    DocumentMoved {
        /// The namespace.
        ns: String,
        /// The shard the document left.
        from: ShardName,
        /// The shard the document now lives on.
        to: ShardName,
    },
    /// A collection's documents were removed by a delete.
    Delete {
        /// The namespace.
        ns: String,
        /// How many documents were removed.
        count: u64,
    },
}

/// A key value as MongoDB prints it in log lines: `{ 5, "a" }` style, one value per field.
fn key_text(k: &KeyValue) -> String {
    let parts: Vec<String> =
        k.0.iter()
            .map(crate::keys::shard_key::format_bson_value)
            .collect();
    format!("{{ {} }}", parts.join(", "))
}

impl EventKind {
    /// A one-line description in words, for `sim.events()` and logs, with shard key values
    /// as MongoDB prints them in log lines (`{ 5, "a" }`).
    pub fn describe(&self) -> String {
        self.describe_with(&key_text)
    }

    /// [`EventKind::describe`] with shard key values written by `bound` (the playground
    /// writes them with their field names, as mongosh prints chunk bounds).
    pub fn describe_with(&self, bound: &dyn Fn(&KeyValue) -> String) -> String {
        self.message_with(bound).english()
    }

    /// The description as a message of the page's text catalogue, with shard key values
    /// written by `bound`.
    pub fn message_with(&self, bound: &dyn Fn(&KeyValue) -> String) -> Message {
        match self {
            EventKind::Insert { ns, per_shard } => {
                let parts: Vec<String> =
                    per_shard.iter().map(|(s, n)| format!("{s}: {n}")).collect();
                msg!("event.insert", ns = ns.as_str(), counts = parts.join(", "))
            }
            EventKind::Split {
                ns,
                min,
                max,
                points,
                ..
            } => msg!(
                "event.split",
                ns = ns.as_str(),
                min = bound(min),
                max = bound(max),
                points = points.iter().map(bound).collect::<Vec<_>>().join(", ")
            ),
            EventKind::MoveChunkStart {
                ns,
                min,
                max,
                from,
                to,
            } => msg!(
                "event.moving",
                ns = ns.as_str(),
                min = bound(min),
                max = bound(max),
                from = from.to_string(),
                to = to.to_string()
            ),
            EventKind::MoveChunkCommit {
                ns,
                min,
                max,
                from,
                to,
                ..
            } => msg!(
                "event.moved",
                ns = ns.as_str(),
                min = bound(min),
                max = bound(max),
                from = from.to_string(),
                to = to.to_string()
            ),
            EventKind::Jumbo { ns, min, max } => msg!(
                "event.jumbo",
                ns = ns.as_str(),
                min = bound(min),
                max = bound(max)
            ),
            EventKind::ShardCollection { ns, key, .. } => {
                msg!(
                    "event.sharded",
                    ns = ns.as_str(),
                    key = format_bson_obj(key)
                )
            }
            EventKind::Merge { ns, min, max } => msg!(
                "event.merged",
                ns = ns.as_str(),
                min = bound(min),
                max = bound(max)
            ),
            EventKind::ClearJumbo { ns, min } => {
                msg!("event.cleared_jumbo", ns = ns.as_str(), min = bound(min))
            }
            EventKind::Refine { ns, key, .. } => {
                msg!(
                    "event.refined",
                    ns = ns.as_str(),
                    key = format_bson_obj(key)
                )
            }
            EventKind::Reshard { ns, key } => {
                msg!("event.resharded", ns = ns.as_str(), key = key.to_string())
            }
            EventKind::AddShard { shard } => msg!("event.added_shard", shard = shard.to_string()),
            EventKind::RemoveShardStart { shard } => {
                msg!("event.draining", shard = shard.to_string())
            }
            EventKind::RemoveShard { shard } => {
                msg!("event.removed_shard", shard = shard.to_string())
            }
            EventKind::Zone { change } => change.message(),
            EventKind::DocumentMoved { ns, from, to } => msg!(
                "event.document_moved",
                ns = ns.as_str(),
                from = from.to_string(),
                to = to.to_string()
            ),
            EventKind::Delete { ns, count } => {
                msg!("event.deleted", ns = ns.as_str(), count = count.to_string())
            }
        }
    }

    /// The documents this event inserted into `ns`, per shard in shard order: empty unless
    /// it is an insert into `ns`.
    pub fn inserts_into(&self, ns: &str) -> &[(ShardName, u64)] {
        match self {
            EventKind::Insert { ns: n, per_shard } if n == ns => per_shard,
            _ => &[],
        }
    }

    /// The config changelog name MongoDB uses for this kind of event.
    pub fn changelog_name(&self) -> &'static str {
        match self {
            EventKind::Insert { .. } => "insert",
            EventKind::Split { points, .. } if points.len() > 1 => "multi-split",
            EventKind::Split { .. } => "split",
            EventKind::MoveChunkStart { .. } => "moveChunk.start",
            EventKind::MoveChunkCommit { .. } => "moveChunk.commit",
            EventKind::Jumbo { .. } => "jumbo",
            EventKind::ShardCollection { .. } => "shardCollection.end",
            EventKind::Merge { .. } => "merge",
            EventKind::ClearJumbo { .. } => "clearJumboFlag",
            EventKind::Refine { .. } => "refineCollectionShardKey.end",
            EventKind::Reshard { .. } => "resharding.coordinator.end",
            EventKind::AddShard { .. } => "addShard",
            EventKind::RemoveShardStart { .. } => "removeShard.start",
            EventKind::RemoveShard { .. } => "removeShard",
            EventKind::Zone { .. } => "zone",
            EventKind::DocumentMoved { .. } => "update.shardKeyChange",
            EventKind::Delete { .. } => "delete",
        }
    }
}

/// An event with its place in the log. `seq` is a logical clock: it starts at 1 and
/// grows by one per event; `at_ms` is the cluster's simulated clock when it happened
/// ([`crate::engine::EPOCH_MS`] onwards), so the log never depends on wall-clock time.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The logical time of the event.
    pub seq: u64,
    /// The simulated time of the event, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// What happened.
    pub kind: EventKind,
}

/// The documents `events` inserted into `ns`, per shard: each shard that received any once,
/// in the order the shards first appear. The one place inserts are counted per shard: the
/// comparison, the playground's charts and its recent-insert shares all read it.
pub fn inserts_per_shard<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    ns: &str,
) -> Vec<(ShardName, u64)> {
    // A cluster has a handful of shards, so a list does (a map would add another copy of
    // the B-tree code to the wasm).
    let mut counts: Vec<(ShardName, u64)> = Vec::new();
    for e in events {
        for (shard, n) in e.kind.inserts_into(ns) {
            match counts.iter_mut().find(|(s, _)| s == shard) {
                Some((_, c)) => *c += n,
                None => counts.push((shard.clone(), *n)),
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zone event's line is the same English as ever, and a message a page words.
    #[test]
    fn zone_events_say_what_changed() {
        let (shard, zone, ns) = ("shard01".to_string(), "EU".to_string(), "test.people");
        let cases = [
            (
                ZoneChange::Joined {
                    shard: shard.clone(),
                    zone: zone.clone(),
                },
                "event.zone.joined",
                "shard01 joined zone EU",
            ),
            (
                ZoneChange::Left {
                    shard,
                    zone: zone.clone(),
                },
                "event.zone.left",
                "shard01 left zone EU",
            ),
            (
                ZoneChange::RangeRemoved { ns: ns.to_string() },
                "event.zone.range_removed",
                "removed a zone range of test.people",
            ),
            (
                ZoneChange::RangeAdded {
                    zone,
                    ns: ns.to_string(),
                },
                "event.zone.range_added",
                "zone EU got a range of test.people",
            ),
        ];
        for (change, id, english) in cases {
            let m = EventKind::Zone { change }.message_with(&|_| String::new());
            assert_eq!((m.id, m.english().as_str()), (id, english));
        }
    }
}
