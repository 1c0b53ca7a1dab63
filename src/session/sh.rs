//! `sh.` helpers, with the result shapes mongosh returns.

use super::interpreter::{call_args, ok_doc, Output, Session, StatementError};
use super::status;

use crate::engine::balancer::RemoveShardState;
use crate::shell::parser::Segment;
use bson::{doc, Bson, Document};

impl Session {
    pub(super) fn sh_command(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let Some(method) = rest.first() else {
            return Err(StatementError::type_error("sh is not a value"));
        };
        let out = self.sh_method(method)?;
        super::interpreter::navigate(out, &rest[1..])
    }

    fn sh_method(&mut self, method: &Segment) -> Result<Output, StatementError> {
        let args = call_args(method)?;
        let name = method.name.as_str();
        let value = match name {
            "shardCollection" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let key = self.doc_arg(args, 1, "key")?;
                let unique = matches!(self.opt_arg(args, 2)?, Some(Bson::Boolean(true)));
                let options = self.opt_doc_arg(args, 3, "options")?;
                let n = match options.get("numInitialChunks") {
                    Some(Bson::Int32(n)) => Some(u32::try_from(*n).unwrap_or(0)),
                    Some(Bson::Int64(n)) => Some(u32::try_from(*n).unwrap_or(0)),
                    Some(Bson::Double(d)) => Some(*d as u32),
                    _ => None,
                };
                self.cluster.shard_collection(&ns, &key, unique, n)?;
                doc! { "collectionsharded": ns, "ok": 1 }
            }
            "enableSharding" => {
                let db = self.str_arg(args, 0, "database")?;
                self.cluster.enable_sharding(&db)?;
                doc! { "ok": 1 }
            }
            "status" => {
                let opts = self.opt_arg(args, 0)?;
                let verbose = match opts {
                    Some(Bson::Boolean(b)) => b,
                    Some(Bson::Document(d)) => {
                        matches!(d.get("verbose"), Some(Bson::Boolean(true)))
                    }
                    _ => false,
                };
                return Ok(Output::Sections(status::sh_status(&self.cluster, verbose)));
            }
            "addShard" => {
                let _host = self.opt_arg(args, 0)?;
                let name = self.cluster.add_shard();
                doc! { "shardAdded": name, "ok": 1 }
            }
            "removeShard" => {
                let shard = self.str_arg(args, 0, "shard")?;
                remove_shard_reply(&shard, self.cluster.remove_shard(&shard)?)
            }
            "splitAt" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let middle = self.doc_arg(args, 1, "middle")?;
                self.cluster.split_at(&ns, &middle)?;
                ok_doc()
            }
            "splitFind" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let query = self.doc_arg(args, 1, "query")?;
                self.cluster.split_find(&ns, &query)?;
                ok_doc()
            }
            "moveChunk" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let find = self.doc_arg(args, 1, "query")?;
                let to = self.str_arg(args, 2, "destination shard")?;
                self.cluster.move_chunk(&ns, &find, &to)?;
                doc! { "millis": 0, "ok": 1 }
            }
            "moveRange" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let to = self.str_arg(args, 1, "destination shard")?;
                let min = self.doc_arg(args, 2, "min")?;
                let max = match self.opt_arg(args, 3)? {
                    Some(Bson::Document(d)) => Some(d),
                    _ => None,
                };
                self.cluster.move_range(&ns, &to, &min, max.as_ref())?;
                ok_doc()
            }
            "addShardToZone" | "addShardTag" => {
                let shard = self.str_arg(args, 0, "shard")?;
                let zone = self.str_arg(args, 1, "zone")?;
                self.cluster.add_shard_to_zone(&shard, &zone)?;
                ok_doc()
            }
            "removeShardFromZone" | "removeShardTag" => {
                let shard = self.str_arg(args, 0, "shard")?;
                let zone = self.str_arg(args, 1, "zone")?;
                self.cluster.remove_shard_from_zone(&shard, &zone)?;
                ok_doc()
            }
            "updateZoneKeyRange" | "addTagRange" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let min = self.doc_arg(args, 1, "min")?;
                let max = self.doc_arg(args, 2, "max")?;
                let zone = match self.opt_arg(args, 3)? {
                    Some(Bson::String(z)) => Some(z),
                    _ => None,
                };
                self.cluster
                    .update_zone_key_range(&ns, &min, &max, zone.as_deref())?;
                ok_doc()
            }
            "removeRangeFromZone" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let min = self.doc_arg(args, 1, "min")?;
                let max = self.doc_arg(args, 2, "max")?;
                self.cluster.update_zone_key_range(&ns, &min, &max, None)?;
                ok_doc()
            }
            "startBalancer" | "stopBalancer" | "setBalancerState" => {
                let on = match name {
                    "startBalancer" => true,
                    "stopBalancer" => false,
                    _ => matches!(self.opt_arg(args, 0)?, Some(Bson::Boolean(true))),
                };
                self.cluster.balancer_enabled = on;
                ok_doc()
            }
            "getBalancerState" => {
                return Ok(Output::Value(Bson::Boolean(self.cluster.balancer_enabled)))
            }
            "isBalancerRunning" => doc! {
                "mode": if self.cluster.balancer_enabled { "full" } else { "off" },
                "inBalancerRound": false,
                "numBalancerRounds": 0_i64,
                "ok": 1,
            },
            "enableBalancing" | "disableBalancing" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                self.cluster
                    .set_collection_balancing(&ns, name == "enableBalancing")?;
                update_reply()
            }
            "enableAutoSplit" | "disableAutoSplit" => {
                self.cluster.autosplit_enabled =
                    name == "enableAutoSplit" && self.cluster.version().auto_splits();
                update_reply()
            }
            "balancerCollectionStatus" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                status::balancer_collection_status(&self.cluster, &ns)?
            }
            "reshardCollection" => {
                let ns = self.str_arg(args, 0, "namespace")?;
                let key = self.doc_arg(args, 1, "key")?;
                self.cluster.reshard_collection(&ns, &key)?;
                ok_doc()
            }
            other => {
                return Err(StatementError::type_error(format!(
                    "sh.{other} is not a function"
                )));
            }
        };
        Ok(Output::Value(Bson::Document(value)))
    }
}

/// The reply of an update of `config.settings`, as mongosh prints it for the balancing
/// and auto-split helpers.
fn update_reply() -> Document {
    doc! {
        "acknowledged": true,
        "insertedId": Bson::Null,
        "matchedCount": 1,
        "modifiedCount": 1,
        "upsertedCount": 0,
    }
}

/// `removeShard`'s reply for each state.
pub(super) fn remove_shard_reply(shard: &str, state: RemoveShardState) -> Document {
    let note = "you need to drop or movePrimary these databases";
    match state {
        RemoveShardState::Started { dbs_to_move } => doc! {
            "msg": "draining started successfully",
            "state": "started",
            "shard": shard,
            "note": note,
            "dbsToMove": dbs_to_move,
            "ok": 1,
        },
        RemoveShardState::Ongoing {
            chunks,
            dbs_to_move,
            jumbo_chunks,
        } => doc! {
            "msg": "draining ongoing",
            "state": "ongoing",
            "remaining": {
                "chunks": chunks as i64,
                "dbs": dbs_to_move.len() as i64,
                "jumboChunks": jumbo_chunks as i64,
            },
            "note": note,
            "dbsToMove": dbs_to_move,
            "ok": 1,
        },
        RemoveShardState::Completed => doc! {
            "msg": "removeshard completed successfully",
            "state": "completed",
            "shard": shard,
            "ok": 1,
        },
    }
}
