//! The playground's session: what a user does to it ([`Act`]) and what a view draws of it
//! ([`PageView`]).
//!
//! The engine owns the session, its timeline, its console's output, the workload driver
//! (a batch at a time up to a total, then a lesson's closing commands) and the statistics
//! per step; the page keeps only what it draws. Every act answers with a [`PageView`] of
//! the session at its cursor, so the page never asks twice for one change.

use crate::{Frame, MessageView, Position};
use serde::{Deserialize, Serialize};

/// The settings of a new playground cluster, as the settings form has them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageSetup {
    /// Shards, from 1 to [`crate::MAX_SHARDS`].
    pub shards: u32,
    /// The behaviour era: `"3.6"`, `"5.0"` or `"8.0"`.
    pub version: String,
    /// The chunk size in bytes ([`crate::MIN_CHUNK_SIZE`] to [`crate::MAX_CHUNK_SIZE`]).
    pub chunk_size: u64,
    /// The shard key as typed, such as `{x: 1}`.
    pub key: String,
    /// Whether the key is unique.
    pub unique: bool,
    /// `numInitialChunks`, when set.
    pub initial_chunks: Option<u32>,
    /// The collection, such as `test.events`.
    pub ns: String,
}

/// The workload the play button runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// A workload's name (`monotonic`, ...) or a document template.
    pub spec: String,
    /// Documents per batch, 1 to [`crate::MAX_BATCH`].
    pub batch: u32,
    /// The collection's size the workload fills up to, 1 to [`MAX_TOTAL`].
    pub total: u64,
    /// Whether a balancer round follows each batch.
    pub balance: bool,
}

/// The largest total a workload fills a collection up to.
pub const MAX_TOTAL: u64 = 1_000_000;

/// Simulated time one tick of "Let time pass" lets pass, in milliseconds: two balancer
/// rounds while it moves chunks (1 s apart), so migrations show one by one.
pub const PASS_TIME_MS: u64 = 2_000;

/// Most replayed commands one `advance` runs.
pub const MAX_ADVANCE: u32 = 10_000;

/// Something the user did to the playground's session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Act {
    /// Shell source typed in the console: echoed as input, then run as the next step
    /// (forking when the cursor is not at the end).
    Command {
        /// The statements, as typed.
        source: String,
    },
    /// A command a form or a lesson runs for the user: echoed as automatic, then run.
    Auto {
        /// The statements.
        source: String,
    },
    /// The workload's next batch into the collection shown, as the next step; when the
    /// collection then holds the workload's total, a lesson's closing commands run once.
    /// A collection already full runs nothing and answers with a notice.
    Batch {
        /// The workload.
        workload: WorkloadSpec,
        /// Whether the batch is echoed in the console (the first of a run is).
        echo: bool,
    },
    /// One tick of "Let time pass": a `sleep` of [`PASS_TIME_MS`] as the next step.
    PassTime {
        /// Whether it is echoed (the first of a run is).
        echo: bool,
    },
    /// The cursor one step forward (at the end: nothing).
    Forward,
    /// The cursor one step back.
    Back,
    /// The cursor to step `to`.
    Jump {
        /// From 0 (before any step) to the session's length.
        to: u64,
    },
    /// Forgets the steps after the cursor.
    Fork,
    /// Shows collection `ns` (until a command touches another).
    View {
        /// The collection.
        ns: String,
    },
    /// Replays up to `commands` more of the scenario a `replay` start holds.
    Advance {
        /// Commands to replay, 1 to [`MAX_ADVANCE`].
        commands: u32,
        /// Whether the view carries the picture; without it, its frame is empty (a view
        /// draws every few slices, not every one: a picture of thousands of chunks costs).
        #[serde(default)]
        picture: bool,
    },
    /// Ends the replay under way, keeping the steps replayed so far (all of them when it
    /// is over), with the cursor at the scenario's position or the last step replayed.
    Finish,
    /// Nothing changes: the view as it is (after the page lost it, or a worker restart).
    Look,
}

/// The kind of a console line of the playground.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PageLineKind {
    /// A command as typed.
    Input,
    /// A command run for the user (a form's, a lesson's, the workload's).
    Auto,
    /// What a statement printed.
    Output,
    /// MongoDB's or the shell's error.
    Error,
}

/// One console line of the playground.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageLine {
    /// Its kind.
    pub kind: PageLineKind,
    /// The text, as mongosh prints it.
    pub text: String,
    /// The line as a message of the page's text catalogue when it is ShardLab's own words
    /// (the welcome, a lesson's opening line, a replay's progress), for a page to word in
    /// its reader's language; `text` is its English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<MessageView>,
    /// For a line typed or run (an echo): the database the shell was in when it was
    /// typed, which mongosh's prompt shows (`test> `, `config> ` after `use config`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
}

/// The cluster's settings at the cursor, for the collection shown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewSettings {
    /// The collection shown: the one picked, else the one the last command touched, else
    /// the first sharded one, else the one the setup named.
    pub ns: String,
    /// Its shard key as mongosh prints it (the setup's, as typed, when it is not sharded).
    pub key: String,
    /// Whether the key is unique.
    pub unique: bool,
    /// The key's field names, in order (empty when the collection is not sharded).
    pub fields: Vec<String>,
    /// Live shards.
    pub shards: u32,
    /// The era, `"3.6"`, `"5.0"` or `"8.0"`.
    pub version: String,
    /// The chunk size in bytes.
    pub chunk_size: u64,
    /// A filter to start the query box from, in shell syntax: an equality on the key's
    /// first field with a value a document holds, so of the field's actual type. Absent
    /// when the collection is not sharded or no document holds the field yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example_filter: Option<String>,
}

/// One collection of the cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionInfo {
    /// Its namespace.
    pub ns: String,
    /// For an unsharded collection, its database's primary shard.
    pub primary: Option<String>,
    /// Its shard key as mongosh prints it, empty when it is not sharded.
    pub key: String,
    /// Its documents.
    pub docs: u64,
}

/// Where the latest single-document insert into the collection shown landed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Landed {
    /// Its insertion number.
    pub seq: u64,
    /// Where it falls on the key-space bar, in [0, 1].
    pub at: Option<f64>,
    /// The key handle of the chunk it landed in (its lower bound).
    pub chunk: Option<String>,
}

/// A replay under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayProgress {
    /// Commands replayed so far.
    pub done: u64,
    /// Commands the scenario holds.
    pub total: u64,
}

/// The playground's session at its cursor: what every panel of the page draws from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageView {
    /// The cursor.
    pub position: Position,
    /// The command of the step at the cursor (`None` before the first).
    pub step: Option<String>,
    /// The console lines this act printed, echo included, in order.
    pub lines: Vec<PageLine>,
    /// Whether a statement of this act failed (its error is among `lines`).
    pub failed: bool,
    /// After a batch: whether the collection now holds the workload's total (or the batch
    /// failed), so playing stops.
    pub done: bool,
    /// A sentence for the notice bar, when the act has one (a full collection, a jump
    /// past the end).
    pub notice: Option<String>,
    /// The notice as a message of the page's text catalogue; `notice` is its English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_words: Option<MessageView>,
    /// The settings at the cursor.
    pub settings: ViewSettings,
    /// Every collection, in namespace order.
    pub collections: Vec<CollectionInfo>,
    /// Documents in the collection shown: the workload's progress.
    pub count: u64,
    /// The collection shown.
    pub frame: Frame,
    /// Where the latest single-document insert landed.
    pub landed: Option<Landed>,
    /// Documents the latest inserting step up to the cursor inserted into the collection
    /// shown.
    pub latest_inserts: u64,
    /// Inserts per shard over the latest inserted documents (the hot window), by shard
    /// name, in shard order.
    pub hot: Vec<(String, u64)>,
    /// How many inserted documents `hot` counts (whole steps, so at least the window).
    pub hot_counted: u64,
    /// The lesson the session was opened from, by id.
    pub lesson: Option<String>,
    /// The steps the session's own setup made (a lesson's, or the settings form's two):
    /// a session with no more steps holds nothing of the user's.
    #[serde(default)]
    pub setup_steps: u64,
    /// Whether the lesson's closing commands ran.
    pub after_done: bool,
    /// The replay under way, if any.
    pub replay: Option<ReplayProgress>,
    /// The shell's database at the cursor (`use <db>` changes it): mongosh's prompt.
    #[serde(default)]
    pub db: String,
}

/// What applying the settings form's draft does to the cluster at the cursor, as the
/// engine plans it: the page shows the choice and runs the command the engine wrote.
/// Its `kind` names the case, as every union of the protocol does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SetupPlan {
    /// The draft's key is not one MongoDB takes.
    Invalid {
        /// MongoDB's (or the shell's) error.
        error: String,
    },
    /// Nothing differs from the cluster.
    Nothing {
        /// The key as mongosh prints it.
        key: String,
    },
    /// Commands on this cluster, one timeline step.
    Step {
        /// The key as mongosh prints it.
        key: String,
        /// The script.
        script: String,
        /// Whether the collection is not sharded yet (the button says "Shard collection").
        shards: bool,
    },
    /// The collection holds documents and the key changes: refine, reshard or start over.
    ChangeKey {
        /// The key as mongosh prints it.
        key: String,
        /// The collection.
        ns: String,
        /// The documents at stake.
        docs: u64,
        /// The current key as mongosh prints it.
        old: String,
        /// The refine script, or why this version or key cannot refine.
        #[serde(with = "crate::fallible")]
        refine: Result<String, String>,
        /// The reshard script, or why this version cannot reshard.
        #[serde(with = "crate::fallible")]
        reshard: Result<String, String>,
        /// Why refine is closed, as a message of the page's text catalogue (the error's
        /// English is `refine`'s).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refine_words: Option<Box<crate::MessageView>>,
        /// Why reshard is closed, as a message of the page's text catalogue.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reshard_words: Option<Box<crate::MessageView>>,
        /// The script that drops the collection and shards it again.
        over: String,
    },
    /// The version or the shard count changes: a new cluster.
    NewCluster {
        /// The key as mongosh prints it.
        key: String,
    },
}

/// The command that inserts one document typed in the inspector's form into `ns`,
/// as the engine writes it (see [`crate::Call::InsertCommand`]).
pub type InsertCommand = String;
