//! The engine's read-only answers about a cluster: a shard key checked as typed, unfinished
//! console input, where a filter goes, a chunk's documents and why MongoDB did what it did.
//! Errors are in mongosh's words (`SyntaxError: …`, `MongoServerError[Code]: …`), as the
//! console would print them.

use bson::Bson;
use shardlab::engine::{Arg, Message};
use shardlab::keys::KeyPattern;
use shardlab::shell::{parse_value, EvalContext};
use shardlab::{Cluster, ClusterError, KeyValue, ShardKeyError};
use shardlab_protocol::{ArgView, MessageView, PageSetup, SetupPlan, Targeting};

/// MongoDB's error as mongosh prints a server error.
pub fn server_error(e: &ClusterError) -> String {
    format!("MongoServerError[{}]: {e}", e.code_name())
}

/// Reads a shard key as typed, with the core's checks; the error is in MongoDB's words.
pub fn parse_key(text: &str, unique: bool) -> Result<KeyPattern, String> {
    let value =
        parse_value(text, &mut EvalContext::default()).map_err(|e| format!("SyntaxError: {e}"))?;
    let doc = match value {
        Bson::Document(doc) => doc,
        // What the console prints for `sh.shardCollection(ns, 5)`: mongosh's words.
        other if shardlab::values::js_typeof(&other) != "object" => {
            let e = shardlab::session::wrong_arg_type(1, &["object"], &other, "shardCollection");
            return Err(e.to_string());
        }
        // `null`, an array or a `Long` pass mongosh's check; the shell refuses them.
        other => return Err(not_an_object("key", &other)),
    };
    let key_error = |e: ShardKeyError| format!("MongoServerError[{}]: {e}", e.code_name());
    let pattern = KeyPattern::parse(&doc).map_err(key_error)?;
    pattern.check_unique(unique).map_err(key_error)?;
    Ok(pattern)
}

/// The shell's error for a `what` that is not an object, as the console prints it.
fn not_an_object(what: &str, value: &Bson) -> String {
    format!(
        "TypeError: {what} must be an object, got {}",
        shardlab::shell::format_value(value)
    )
}

/// A key pattern as mongosh prints it.
pub fn key_text(pattern: &KeyPattern) -> String {
    shardlab::shell::format_document(&pattern.to_pattern_document())
}

/// Checks a shard key as typed; `Ok` holds the pattern as mongosh prints it.
pub fn validate_key(text: &str, unique: bool) -> Result<String, String> {
    parse_key(text, unique).map(|p| key_text(&p))
}

/// Where the filter typed as `text` on `ns` goes: the explain stage and the shards, or why
/// it cannot be targeted.
pub fn target_filter(cluster: &Cluster, ns: &str, text: &str) -> Result<Targeting, String> {
    match parse_value(text, &mut EvalContext::default()) {
        Ok(Bson::Document(filter)) => cluster
            .target(ns, &filter)
            .map(|t| Targeting {
                stage: t.stage.to_string(),
                broadcast: matches!(t.kind, shardlab::engine::TargetKind::ScatterGather),
                shards: t
                    .shards
                    .iter()
                    .map(|&i| cluster.shard_name(i).to_string())
                    .collect(),
            })
            .map_err(|e| server_error(&e)),
        // What the console prints for `db.c.find(42)`.
        Ok(other) => Err(not_an_object("filter", &other)),
        Err(e) => Err(format!("SyntaxError: {e}")),
    }
}

/// Why a way to a new key is closed: the version (its label) has no `command`.
fn lacks(version: &str, command: &str) -> Message {
    Message::new(
        "engine.plan.no_command",
        vec![
            ("version", Arg::from(version)),
            ("command", Arg::from(command)),
        ],
    )
}

/// Why a way to a new key is closed, as a message for the page to word, if it is.
fn closed_words(way: &Result<String, Message>) -> Option<Box<MessageView>> {
    way.as_ref().err().map(|m| Box::new(message_view(m)))
}

/// A shard key value as mongosh prints a bound (`{ x: 42 }`), or its values when the
/// collection's key is gone.
pub fn bound_text(cluster: &Cluster, ns: &str, key: &KeyValue) -> String {
    match cluster.sharding(ns) {
        Ok(s) => s.bound_string(key),
        Err(_) => key
            .0
            .iter()
            .map(shardlab::shell::format_value)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The lower bound of the `order`-th chunk of `ns` in key order.
pub fn chunk_min(cluster: &Cluster, ns: &str, order: u32) -> Result<KeyValue, ClusterError> {
    let sharding = cluster.sharding(ns)?;
    sharding
        .table
        .iter()
        .nth(order as usize)
        .map(|c| c.min.clone())
        .ok_or_else(|| {
            ClusterError::BadValue(format!(
                "{ns} has {} chunks; there is no chunk {order}",
                sharding.table.len()
            ))
        })
}

pub use crate::view_model::{key_handle, parse_key_handle};

/// What applying the settings form's `draft` does to `cluster`: the same rules the form
/// followed when the page decided them (a new version or shard count needs a new cluster;
/// a new key on a collection with documents offers refine, reshard or start over; else
/// one step of commands), with the commands written by the core's builders.
pub fn plan_setup(cluster: &Cluster, draft: &PageSetup) -> SetupPlan {
    use shardlab::workload::presets::{
        chunk_size_command, refine_command, reshard_command, shard_command, start_over_command,
    };
    let pattern = match parse_key(&draft.key, draft.unique) {
        Ok(p) => p,
        Err(error) => return SetupPlan::Invalid { error },
    };
    let key = key_text(&pattern);
    let version = cluster.config().version;
    let shards = cluster.all_shards().iter().filter(|s| !s.removed).count() as u32;
    if draft.version != version.label() || draft.shards != shards {
        return SetupPlan::NewCluster { key };
    }
    let prefix = if draft.chunk_size != cluster.chunk_size() {
        format!("{}; ", chunk_size_command(draft.chunk_size))
    } else {
        String::new()
    };
    let ns = draft.ns.trim();
    let coll = cluster.collections().get(ns);
    let docs = coll.map_or(0, |c| c.doc_count());
    let sharding = coll.and_then(|c| c.sharding.as_ref());
    let command = match sharding {
        None => shard_command(ns, &draft.key, draft.unique, draft.initial_chunks),
        Some(s) if s.pattern == pattern && s.unique == draft.unique => String::new(),
        Some(s) if docs > 0 => {
            let has = |c: &str| shardlab::session::has_command(version, c);
            let missing = |c: &str| lacks(version.label(), c);
            let old = key_text(&s.pattern);
            let extends = s.pattern.is_extended_by(&pattern) && s.pattern.len() < pattern.len();
            let refine = if !has("refineCollectionShardKey") {
                Err(missing("refineCollectionShardKey"))
            } else if !extends {
                Err(Message::new(
                    "engine.plan.refine_prefix",
                    vec![
                        ("key", Arg::from(key.as_str())),
                        ("old", Arg::from(old.as_str())),
                    ],
                ))
            } else {
                Ok(format!("{prefix}{}", refine_command(ns, &draft.key)))
            };
            let reshard = if has("reshardCollection") {
                Ok(format!("{prefix}{}", reshard_command(ns, &draft.key)))
            } else {
                Err(missing("reshardCollection"))
            };
            let over = format!(
                "{prefix}{}",
                start_over_command(ns, &draft.key, draft.unique, draft.initial_chunks)
            );
            return SetupPlan::ChangeKey {
                key,
                ns: ns.to_string(),
                docs,
                old,
                refine_words: closed_words(&refine),
                reshard_words: closed_words(&reshard),
                refine: refine.map_err(|m| m.english()),
                reshard: reshard.map_err(|m| m.english()),
                over,
            };
        }
        Some(_) => start_over_command(ns, &draft.key, draft.unique, draft.initial_chunks),
    };
    let script = format!("{prefix}{command}");
    let script = script.trim().trim_end_matches(';').trim().to_string();
    if script.is_empty() {
        SetupPlan::Nothing { key }
    } else {
        SetupPlan::Step {
            key,
            script,
            shards: sharding.is_none(),
        }
    }
}

/// A message of the core's (an explanation's sentence, an event) as the protocol
/// carries it.
pub fn message_view(m: &shardlab::engine::Message) -> MessageView {
    let arg = |a: &shardlab::engine::Arg| match a {
        shardlab::engine::Arg::Text(text) => ArgView::Text(text.clone()),
        shardlab::engine::Arg::Message(m) => ArgView::Message(message_view(m)),
    };
    MessageView {
        id: m.id.to_string(),
        args: m
            .args
            .iter()
            .map(|(n, v)| (n.to_string(), arg(v)))
            .collect(),
    }
}
