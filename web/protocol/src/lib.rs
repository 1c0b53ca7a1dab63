//! The one protocol between ShardLab's engine and its views.
//!
//! The engine (the core, in a Web Worker or, without one, in the page) owns every session;
//! the page, its panels, the Compare tab and, later, documentation elements and the
//! JavaScript module talk to it only through these messages. They are plain `serde` types
//! that both sides compile, so a message is typed once and checked on both sides; in the
//! browser they cross the boundary with `serde-wasm-bindgen`, and natively (tests, tools)
//! they are JSON.
//!
//! The shapes, as JSON (protocol version 3; ARCHITECTURE.md, "The engine's API"):
//!
//! - a request: `{"v": 3, "id": 7, "session": "s1", "method": "run", "params": {"source": "sh.status()"}}`;
//! - its answer: `{"v": 3, "id": 7, "method": "run", "result": {"statements": [...], "position": {...}}}`
//!   or `{"v": 3, "id": 7, "method": "run", "error": {"code": 2, "codeName": "BadValue", "message": "..."}}`;
//! - an event the engine pushes: `{"v": 3, "session": "s1", "event": "save", "data": {...}}`.
//!
//! The engine names sessions: `open` answers with the handle (`s1`) that later requests
//! carry. Every union inside a message names its case in `kind`.
//!
//! A mistake in a user's shell command is not a protocol error: `run` answers with the
//! console lines, MongoDB's error among them. A protocol error means the request itself was
//! wrong (an unknown session, a field out of bounds, another protocol version). Every
//! request is checked by [`Request::check`] as if an attacker wrote it, since other pages
//! will be able to send them.

mod fallible;
mod frame;
mod limits;
mod page;
mod panels;
mod rank;
mod script;
mod wire;

pub use frame::{BarFrame, ChunkFrame, Frame, ShardFrame, Tick};
pub use limits::*;
pub use page::*;
pub use panels::*;
pub use rank::*;
pub use script::{Json, JsonObject, StatementError, StatementResult};
use serde::{Deserialize, Serialize};
pub use wire::RequestSeed;

/// The protocol's version. A request carries it in `v`; the engine refuses another with
/// an answer that says which it speaks (see [`Request::check`]).
pub const PROTOCOL_VERSION: u32 = 3;

/// A request from a view to the engine: `{"v": 3, "id": 7, "session": "s1", "method":
/// "run", "params": {...}}` (read and written by `wire.rs`: the method names the variant
/// of [`Call`], `params` holds its content).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The protocol version the sender speaks ([`PROTOCOL_VERSION`]).
    pub v: u32,
    /// The sender's number for this request, echoed in the answer.
    pub id: u64,
    /// The session the request is about: the handle `open` answered with. Absent for the
    /// methods that need none (`catalog`, `open`, `compare` and the page's form checks).
    pub session: Option<String>,
    /// What is asked, with its parameters.
    pub call: Call,
}

/// What a request asks, serialised as `"method"` and `"params"`. The answer's `result` is
/// the [`Reply`] variant of the same name.
///
/// In Rust it keeps serde's own (external) tagging, whose reader decodes each variant's
/// content straight into its type: the request's reader (`wire.rs`) shows it the method as
/// the variant and `params` as its content, so nothing is buffered on the way.
///
/// The engine's own methods are those a stranger needs: the catalogue, sessions, running
/// statements, moving in time, and asking about the cluster. The page's playground has a
/// few more, named `page.…`, which serve its panels and forms and which no other view needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Call {
    /// What the engine knows and allows: its protocol version and methods, the lessons,
    /// workloads, versions, limits, defaults, palette and languages.
    Catalog,
    /// Starts a session; the answer names the handle the engine gave it.
    Open(Start),
    /// Ends a session and frees what it holds.
    Close,
    /// Runs statements as the session's next step: the shell source as typed, or a named
    /// workload's batch (the Compare tab's step). Answers with one entry per statement.
    Run(RunSpec),
    /// Moves the session's cursor `by` steps: forward when positive, back when negative.
    Step {
        /// Steps to move.
        by: i64,
    },
    /// Moves the session's cursor to step `to`.
    Jump {
        /// The step to show, from 0 (before any command) to the session's length.
        to: u64,
    },
    /// Forgets the steps after the cursor, so the next command continues from here.
    Fork,
    /// The session in its shareable, versioned form: the link form, or the JSON form a
    /// saved session and an export hold, with the page's own state (`page`, name/value
    /// pairs the engine carries and never reads).
    Scenario {
        /// The page's state, within the scenario format's limits.
        #[serde(default)]
        page: Vec<(String, String)>,
        /// Whether to answer with the JSON form rather than the link form.
        #[serde(default)]
        json: bool,
    },
    /// The session's commands up to the cursor as a mongosh script that builds the same
    /// scenario on a real sharded cluster (the core's `sim::export_scenario`): mongosh's
    /// commands as written, each `sim.` helper as the real commands that do what it did or
    /// a comment saying what it did. A session with nothing to export is refused with
    /// `IllegalOperation`.
    Export,
    /// The picture of one collection at the cursor. Without `whole`, the first frame of a
    /// session is whole and later ones leave out what did not change since the previous
    /// frame; with it, every chunk, shard and zone, leaving the next frame's comparison
    /// alone.
    Frame {
        /// The collection to draw; the one the last command touched when absent.
        #[serde(default)]
        ns: Option<String>,
        /// Whether to answer with everything.
        #[serde(default)]
        whole: bool,
    },
    /// What there is to know about a chunk (its documents, a page at a time, and why it
    /// is where it is), a shard, the next balancer round, or the latest insert.
    Inspect {
        /// The collection.
        ns: String,
        /// The subject.
        subject: Inspecting,
    },
    /// Why MongoDB did what it did to a chunk, a shard, or in a balancer round.
    Explain(Subject),
    /// `analyzeShardKey` of a candidate key on a collection, run on a copy of the session
    /// (the session gains no step), answered as one statement's entry.
    Analyze {
        /// The collection.
        ns: String,
        /// The candidate key, such as `{x: 1}`.
        key: String,
    },
    /// Candidate shard keys ranked on a collection's documents at the cursor, read in
    /// the order they were inserted and replayed into one cluster per candidate (the
    /// core's `sim::Ranker`); the session is only read. A collection over
    /// [`MAX_RANK_DOCUMENTS`] documents or [`MAX_RANK_BYTES`] bytes is refused.
    Rank(RankSpec),
    /// Which shards a filter on a collection would be sent to.
    Target {
        /// The collection.
        ns: String,
        /// The filter, in the shell's language, such as `{x: 42}`.
        filter: String,
    },
    /// One workload on several configurations in lockstep, summarised per configuration.
    Compare(CompareSpec),
    /// The user's own documents, read from their file as `mongoimport` reads it, a slice
    /// at a time: `begin`, any number of `slice`s, then `end`, which inserts them as one
    /// step of the session (or `cancel`).
    Import(ImportCall),
    /// A real cluster's sharding metadata, as `mongoexport` (or `bsondump`) wrote its
    /// config collections: the session becomes a new session of the metadata's era whose
    /// first step loads the cluster as it was before its changelog, and whose later steps
    /// replay the changelog's chunk changes one a step. Or, alone, one file holding what
    /// `sh.status({verbose: true})` printed (mongosh's or the legacy shell's, known by its
    /// text whatever its name): the session becomes the cluster it shows, in one step. All
    /// or nothing: a refused import leaves the session as it was.
    ImportCluster {
        /// The exported files, named for their collection (`chunks.json`,
        /// `config.chunks.json`, `chunks.bson.json`, ...), or one `sh.status()` printout,
        /// their texts together at most [`MAX_CLUSTER_IMPORT_BYTES`].
        files: Vec<MetadataFile>,
    },
    /// The page: something the user did to a playground session (see [`Act`]); answers
    /// with the session's [`PageView`].
    #[serde(rename = "page.act")]
    Act(Act),
    /// The page: how `ns` fared under the session's workload (the Compare tab's row, with
    /// the comparison's fixed query mix routed on the cluster at the cursor).
    #[serde(rename = "page.summary")]
    Summary {
        /// The collection.
        ns: String,
    },
    /// The page: one tick of the Compare tab for every column at once. Each named session
    /// runs its workload batch (when one is given), then answers with its picture of
    /// [`COMPARE_NS`] and its row, as `run`, `frame` and `page.summary` would one after the
    /// other. The request names no session of its own; a column's failure is that
    /// column's answer and leaves the others alone.
    #[serde(rename = "page.compareStep")]
    CompareStep {
        /// The columns, in the tab's order: 1 to [`MAX_COLUMNS`].
        columns: Vec<ColumnStep>,
    },
    /// The latest events of the cluster's log (at most [`MAX_EVENTS`]), newest first.
    Events {
        /// The collection shown, whose bounds the sentences print.
        ns: String,
    },
    /// The key-space heatmap of a collection: inserts per key range per stretch of steps.
    Heat {
        /// The collection.
        ns: String,
        /// Rows, 1 to 4,096.
        rows: u32,
        /// Columns, 1 to 8,192.
        columns: u32,
    },
    /// The page: the insights panel's charts' series and, when `analyze` is set,
    /// analyzeShardKey's report on a collection's key (run on a copy of the session, after
    /// a mixed query sample: costly, so asked for only when the user asks).
    #[serde(rename = "page.insights")]
    Insights {
        /// The collection.
        ns: String,
        /// Whether to run analyzeShardKey; without it the answer has the charts alone.
        #[serde(default)]
        analyze: bool,
    },
    /// The page: checks a shard key pattern as typed, as `shardCollection` would.
    #[serde(rename = "page.checkKey")]
    CheckKey {
        /// The pattern, such as `{x: "hashed"}`.
        key: String,
    },
    /// The page: whether console input is unfinished (an open bracket or string), so Enter
    /// should start a new line rather than run it.
    #[serde(rename = "page.needsMoreInput")]
    NeedsMoreInput {
        /// The console's text.
        source: String,
    },
    /// The page: what applying the settings form's draft would do (see [`SetupPlan`]).
    #[serde(rename = "page.planSetup")]
    PlanSetup {
        /// The draft.
        draft: PageSetup,
    },
    /// The page: the command that inserts one document, typed in the inspector's form,
    /// into `ns`.
    #[serde(rename = "page.insertCommand")]
    InsertCommand {
        /// The collection.
        ns: String,
        /// The document as typed.
        doc: String,
    },
    /// The page: how a workload's documents fit a collection's shard key.
    #[serde(rename = "page.workloadFit")]
    WorkloadFit {
        /// The collection.
        ns: String,
        /// The workload's name or template.
        spec: String,
    },
    /// The page: keeps the session's JSON form (with the page's own state) as the page's
    /// saved session `id`, written by the engine's host straight into the page's store
    /// (IndexedDB `shardlab`: the text in `scenarios`, `record` in `meta`, in one
    /// transaction), so that the text never crosses to the page. A host that keeps no
    /// sessions (the engine in the page) refuses it.
    #[serde(rename = "page.keep")]
    Keep {
        /// The saved session's id in the page's store.
        id: String,
        /// The page's state, within the scenario format's limits.
        #[serde(default)]
        page: Vec<(String, String)>,
        /// The page's record of the session (what "Recent sessions" lists), as JSON
        /// text: the engine hands it on unread.
        record: String,
    },
}

/// Every method, as a request names it: the engine's own, then the page's.
pub const METHODS: &[&str] = &[
    "catalog",
    "open",
    "close",
    "run",
    "step",
    "jump",
    "fork",
    "scenario",
    "export",
    "frame",
    "inspect",
    "explain",
    "analyze",
    "rank",
    "target",
    "compare",
    "import",
    "importCluster",
    "events",
    "heat",
    "page.act",
    "page.summary",
    "page.compareStep",
    "page.insights",
    "page.checkKey",
    "page.needsMoreInput",
    "page.planSetup",
    "page.insertCommand",
    "page.workloadFit",
    "page.keep",
];

impl Call {
    /// The method's name, as the request's `method` and the answer's carry it.
    pub fn method(&self) -> &'static str {
        match self {
            Call::Catalog => "catalog",
            Call::Open(_) => "open",
            Call::Close => "close",
            Call::Run(_) => "run",
            Call::Step { .. } => "step",
            Call::Jump { .. } => "jump",
            Call::Fork => "fork",
            Call::Scenario { .. } => "scenario",
            Call::Export => "export",
            Call::Frame { .. } => "frame",
            Call::Inspect { .. } => "inspect",
            Call::Explain(_) => "explain",
            Call::Analyze { .. } => "analyze",
            Call::Rank(_) => "rank",
            Call::Target { .. } => "target",
            Call::Compare(_) => "compare",
            Call::Import(_) => "import",
            Call::ImportCluster { .. } => "importCluster",
            Call::Act(_) => "page.act",
            Call::Summary { .. } => "page.summary",
            Call::CompareStep { .. } => "page.compareStep",
            Call::Events { .. } => "events",
            Call::Heat { .. } => "heat",
            Call::Insights { .. } => "page.insights",
            Call::CheckKey { .. } => "page.checkKey",
            Call::NeedsMoreInput { .. } => "page.needsMoreInput",
            Call::PlanSetup { .. } => "page.planSetup",
            Call::InsertCommand { .. } => "page.insertCommand",
            Call::WorkloadFit { .. } => "page.workloadFit",
            Call::Keep { .. } => "page.keep",
        }
    }

    /// Whether the method takes parameters (its request carries `params`).
    pub fn has_params(&self) -> bool {
        !matches!(
            self,
            Call::Catalog | Call::Close | Call::Fork | Call::Export
        )
    }

    /// Whether the method is about one session, so that its request must name one.
    pub fn needs_session(&self) -> bool {
        !matches!(
            self,
            Call::Catalog
                | Call::Open(_)
                | Call::Compare(_)
                | Call::CompareStep { .. }
                | Call::CheckKey { .. }
                | Call::NeedsMoreInput { .. }
                | Call::InsertCommand { .. }
        )
    }
}

/// What `run` runs: shell `source`, or a named `workload`'s batch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSpec {
    /// The statements, as typed.
    #[serde(default)]
    pub source: String,
    /// Whether each statement is a step of its own (so a view can play a script a
    /// statement at a time); a script that does not parse is one step.
    #[serde(default)]
    pub each: bool,
    /// A workload's batch instead of `source`: `count` documents of the named workload into
    /// `ns`, followed by a balancer round when `balance` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadRun>,
}

impl RunSpec {
    /// Shell source to run as one step.
    pub fn source(source: impl Into<String>) -> Self {
        RunSpec {
            source: source.into(),
            ..RunSpec::default()
        }
    }
}

/// One column of a Compare tab's tick (`page.compareStep`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColumnStep {
    /// The column's session.
    pub session: String,
    /// The batch to run first; without it, the column only answers with its picture and
    /// row (a column just opened).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<WorkloadRun>,
}

/// One column's answer to a Compare tab's tick: its picture and row, or what went wrong.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ColumnStepped {
    /// The column's session.
    pub session: String,
    /// The column's picture of [`COMPARE_NS`] after the batch, unless it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Box<Frame>>,
    /// The column's row after the batch, unless it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<CompareRow>,
    /// Why the column has no answer: its session is gone, or its batch was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<EngineError>,
}

/// A workload's batch, as `run` takes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadRun {
    /// The collection.
    pub ns: String,
    /// The workload generator's name, such as `monotonic`.
    pub name: String,
    /// Documents to insert, 1 to [`MAX_BATCH`].
    pub count: u32,
    /// Whether a balancer round follows.
    #[serde(default)]
    pub balance: bool,
    /// Instead of generating documents, the next `count` documents of another open
    /// session's collection (the Compare tab replaying the user's own documents); `name`
    /// is then only a label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleRun>,
}

/// Where a workload's batch reads documents from instead of generating them: a
/// collection of another open session, at its cursor, in the order its documents were
/// inserted (as `rank` reads them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SampleRun {
    /// The session that holds the documents.
    pub session: String,
    /// Its collection (`db.coll`).
    pub ns: String,
    /// How many of its documents earlier batches took: this batch starts after them.
    pub from: u64,
}

/// How a session starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Start {
    /// A new cluster.
    Config(SessionConfig),
    /// A shared or saved scenario, replayed.
    Scenario {
        /// The scenario as a link carries it (`v1.…`, `v2.…`) or as its JSON form.
        text: String,
    },
    /// A playground cluster from the settings form: the chunk size and `shardCollection`
    /// as its first two steps.
    Setup(PageSetup),
    /// A playground cluster from a lesson, by id: its setup steps run.
    Lesson {
        /// The lesson's id, such as `monotonic`.
        id: String,
    },
    /// A playground from a saved or shared scenario whose steps replay a slice at a time,
    /// with [`Act::Advance`] until [`Act::Finish`], so that the page answers throughout.
    Replay {
        /// The scenario as a link carries it or as its JSON form.
        text: String,
    },
    /// A column of the Compare tab: a 3-shard cluster of one version with `test.events`
    /// sharded on `key` and the given chunk size.
    Compare {
        /// The shard key and version.
        column: CompareColumn,
        /// The chunk size in bytes.
        chunk_size: u64,
    },
}

/// The settings of a new cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionConfig {
    /// Shards, from 1 to [`MAX_SHARDS`].
    pub shards: u32,
    /// The behaviour era: `"3.6"`, `"5.0"` or `"8.0"`.
    pub version: String,
    /// The chunk size in bytes ([`MIN_CHUNK_SIZE`] to [`MAX_CHUNK_SIZE`]); the era's
    /// default (128 MB, or 64 MB in 3.6) when absent.
    pub chunk_size: Option<u64>,
    /// The seed of every random choice.
    pub seed: u64,
}

/// What an explanation is about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Subject {
    /// A chunk of a collection, by its position in key order.
    Chunk {
        /// The collection.
        ns: String,
        /// The chunk's position in key order.
        chunk: u32,
    },
    /// A shard, for one collection.
    Shard {
        /// The collection.
        ns: String,
        /// The shard's name.
        shard: String,
    },
    /// The balancer's next round, for one collection or all of them.
    Round {
        /// The collection, or every collection.
        ns: Option<String>,
    },
}

/// A comparison to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareSpec {
    /// The configurations, one row each: at least one, at most [`MAX_COLUMNS`].
    pub columns: Vec<CompareColumn>,
    /// The workload's name (`monotonic`, `uniform`, ...).
    pub workload: String,
    /// Documents each workload command inserts ([`COMPARE_BATCH`] when left out).
    #[serde(default = "compare_batch")]
    pub batch: u32,
    /// Workload commands to run, at most [`MAX_COMPARE_TICKS`].
    pub ticks: u32,
    /// The chunk size in bytes every column uses ([`COMPARE_CHUNK_SIZE`] when left out).
    #[serde(default = "compare_chunk_size")]
    pub chunk_size: u64,
}

/// The documents a comparison's workload command inserts unless told otherwise: the Compare
/// tab's and the element's.
pub const COMPARE_BATCH: u32 = 25;
/// The chunk size a comparison uses unless told otherwise (32 KiB: a few hundred
/// documents make the first splits).
pub const COMPARE_CHUNK_SIZE: u64 = 32 * 1024;

fn compare_batch() -> u32 {
    COMPARE_BATCH
}

fn compare_chunk_size() -> u64 {
    COMPARE_CHUNK_SIZE
}

/// The collection every Compare column shards and fills.
pub const COMPARE_NS: &str = "test.events";

/// Workloads the comparison offers: all of them write the numeric field `x` that the query
/// mix filters on.
pub const COMPARE_WORKLOADS: &[&str] = &["monotonic", "decreasing", "uniform"];

/// The fixed query mix whose routing a comparison reports, in the shell's syntax: the
/// engine reads each with its shell parser, and a view shows the same text.
pub const COMPARE_QUERIES: &[&str] = &[
    "{x: 500}",
    "{x: {$gte: 100, $lt: 200}}",
    "{x: {$in: [10, 900]}}",
    "{ts: {$exists: true}}",
];

/// One configuration of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareColumn {
    /// The shard key as typed, such as `{x: "hashed"}`.
    pub key: String,
    /// The behaviour era: `"3.6"`, `"5.0"` or `"8.0"`.
    pub version: String,
}

/// The engine's answer to one request: `{"v": 3, "id": 7, "method": "run", "result":
/// {...}}`, or `{"v": 3, "id": 7, "method": "run", "error": {"code": 2, "codeName":
/// "BadValue", "message": "..."}}`. The `result` of a method is its [`Reply`] variant's
/// content; a method without content (`close`) has none.
///
/// Read in one pass: `method` comes before `result`, and names the type `result` is read
/// as (see `wire.rs`); nothing is buffered.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The request's `id`.
    pub id: u64,
    /// `result` or `error`.
    pub outcome: Outcome,
}

/// An answer's result or error.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The request was carried out.
    Result(Reply),
    /// The request was refused: the method it named (`None` when it named none the engine
    /// knows) and why.
    Error(Option<String>, EngineError),
}

/// A request's result, named as its request's method (`run` answers [`Reply::Run`]). On
/// the wire the name is the answer's `method` and the content its `result` (see
/// [`Response`]); serde's own derive reads each variant's content in one pass, which
/// adjacent tagging would not (it compiles a second, buffered reader of every result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Reply {
    /// What the engine knows and allows.
    Catalog(Box<Catalog>),
    /// A session opened.
    Open(Box<Opened>),
    /// The session was closed.
    Close,
    /// What `run` did, one entry per statement, and where the cursor is now.
    Run {
        /// The entries, in source order.
        statements: Vec<StatementResult>,
        /// The cursor after the step.
        position: Position,
    },
    /// The cursor after `step`.
    Step(Position),
    /// The cursor after `jump`.
    Jump(Position),
    /// The cursor after `fork`.
    Fork(Position),
    /// The session's shareable form.
    Scenario {
        /// The link form (`v2.…`, as `?s=` or `#s=` carries it), or the JSON form.
        text: String,
    },
    /// The session as a mongosh script.
    Export {
        /// The script: a header saying what cluster it needs and how to start one, then
        /// the commands.
        text: String,
    },
    /// A picture of one collection.
    Frame(Frame),
    /// What there is to know about the subject.
    Inspect(Box<Inspection>),
    /// Explanations, one sentence each, in the order MongoDB's rules apply.
    Explain {
        /// The sentences.
        sentences: Vec<String>,
    },
    /// `analyzeShardKey`'s answer.
    Analyze(StatementResult),
    /// Candidate shard keys ranked.
    Rank(Box<RankView>),
    /// Where a filter is sent.
    Target(Targeting),
    /// A comparison's rows.
    Compare {
        /// One row per configuration, in the request's order.
        rows: Vec<CompareRow>,
    },
    /// How an import stands.
    Import(ImportProgress),
    /// What a cluster's metadata made of the session.
    ImportCluster(Box<ClusterImported>),
    /// A playground session at its cursor.
    #[serde(rename = "page.act")]
    Act(Box<PageView>),
    /// One collection's summary under its workload.
    #[serde(rename = "page.summary")]
    Summary(CompareRow),
    /// Every column's answer to its part of the Compare tab's tick, in the request's order.
    #[serde(rename = "page.compareStep")]
    CompareStep {
        /// One entry per column asked.
        columns: Vec<ColumnStepped>,
    },
    /// The latest events, newest first.
    Events {
        /// The rows.
        rows: Vec<EventRow>,
    },
    /// A heatmap's grid.
    Heat(Box<HeatView>),
    /// The insights panel's content.
    #[serde(rename = "page.insights")]
    Insights(Box<InsightsView>),
    /// A shard key pattern checked.
    #[serde(rename = "page.checkKey")]
    CheckKey {
        /// The pattern as mongosh prints it, when MongoDB takes it.
        key: Option<String>,
        /// MongoDB's error, when it refuses it.
        error: Option<EngineError>,
    },
    /// Whether console input is unfinished.
    #[serde(rename = "page.needsMoreInput")]
    NeedsMoreInput {
        /// True while a bracket or string is open.
        more: bool,
    },
    /// What applying the draft would do.
    #[serde(rename = "page.planSetup")]
    PlanSetup(SetupPlan),
    /// A command to run.
    #[serde(rename = "page.insertCommand")]
    InsertCommand {
        /// The command's text.
        text: String,
    },
    /// A workload's fit to a key.
    #[serde(rename = "page.workloadFit")]
    WorkloadFit(FitView),
    /// How `page.keep` went.
    #[serde(rename = "page.keep")]
    Kept(Kept),
}

impl Reply {
    /// The method this is the answer to, as the answer's `method` names it.
    pub fn method(&self) -> &'static str {
        match self {
            Reply::Catalog(_) => "catalog",
            Reply::Open(_) => "open",
            Reply::Close => "close",
            Reply::Run { .. } => "run",
            Reply::Step(_) => "step",
            Reply::Jump(_) => "jump",
            Reply::Fork(_) => "fork",
            Reply::Scenario { .. } => "scenario",
            Reply::Export { .. } => "export",
            Reply::Frame(_) => "frame",
            Reply::Inspect(_) => "inspect",
            Reply::Explain { .. } => "explain",
            Reply::Analyze(_) => "analyze",
            Reply::Rank(_) => "rank",
            Reply::Target(_) => "target",
            Reply::Compare { .. } => "compare",
            Reply::Import(_) => "import",
            Reply::ImportCluster(_) => "importCluster",
            Reply::Events { .. } => "events",
            Reply::Heat(_) => "heat",
            Reply::Act(_) => "page.act",
            Reply::Summary(_) => "page.summary",
            Reply::CompareStep { .. } => "page.compareStep",
            Reply::Insights(_) => "page.insights",
            Reply::CheckKey { .. } => "page.checkKey",
            Reply::NeedsMoreInput { .. } => "page.needsMoreInput",
            Reply::PlanSetup(_) => "page.planSetup",
            Reply::InsertCommand { .. } => "page.insertCommand",
            Reply::WorkloadFit(_) => "page.workloadFit",
            Reply::Kept(_) => "page.keep",
        }
    }
}

/// One request of an import (see [`Call::Import`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ImportCall {
    /// Starts reading a file into `ns`; an import under way in the session is dropped.
    Begin {
        /// The collection the documents go into (`db.coll`).
        ns: String,
        /// The file's name, which says its format by its extension (`.json`, `.jsonl`,
        /// `.ndjson`, `.csv`, any of them `.gz`).
        #[serde(default)]
        file_name: Option<String>,
        /// The format, when the name does not say it: `json` (documents one after
        /// another, or one array) or `csv`.
        #[serde(default)]
        format: Option<String>,
        /// Whether the CSV header names each column's type (`--columnsHaveTypes`).
        #[serde(default)]
        columns_have_types: bool,
        /// Whether empty CSV fields are left out (`--ignoreBlanks`).
        #[serde(default)]
        ignore_blanks: bool,
        /// A dotted field to insert the documents in order of, as a timestamp or an
        /// ObjectId orders them; file order when absent.
        #[serde(default)]
        sort_by: Option<String>,
        /// Types chosen for CSV columns: the header reads as if it spelled them.
        #[serde(default)]
        column_types: Vec<ColumnTypeChoice>,
    },
    /// A first look at a file, importing nothing: its format, CSV columns and the
    /// fields its first documents hold, read from its first bytes as `begin` with the
    /// same options would read them. The answer's `preview` says it.
    Preview {
        /// The file's first bytes (at most [`MAX_SOURCE_BYTES`]).
        #[serde(with = "panels::byte_buf")]
        bytes: Vec<u8>,
        /// Whether `bytes` is the whole file.
        #[serde(default)]
        complete: bool,
        /// As `begin` takes it.
        #[serde(default)]
        file_name: Option<String>,
        /// As `begin` takes it.
        #[serde(default)]
        format: Option<String>,
        /// As `begin` takes it.
        #[serde(default)]
        columns_have_types: bool,
        /// As `begin` takes it.
        #[serde(default)]
        column_types: Vec<ColumnTypeChoice>,
    },
    /// The next slice of the file: its bytes (a `Uint8Array`, or a list of numbers), at
    /// most [`MAX_SOURCE_BYTES`].
    Slice {
        /// The bytes.
        #[serde(with = "panels::byte_buf")]
        bytes: Vec<u8>,
    },
    /// The file has ended: its documents go in as one step. They go in a few batches a
    /// call ([`IMPORT_DOCS_PER_CALL`] documents or so), so that a view can show how far
    /// they got: while the answer says `done: false`, send `end` again. The step joins
    /// the session whole, with the last call; until then the session is as it was, and
    /// `cancel` drops what was inserted.
    End,
    /// The import is dropped; nothing goes in.
    Cancel,
}

/// How an import stands: after each slice, what was read; after `end`, what went in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportProgress {
    /// Bytes read so far.
    pub bytes: u64,
    /// Documents read so far (to go in at the end).
    pub documents: u64,
    /// Records that could not be read or inserted, so far.
    pub failed: u64,
    /// While its documents go in (`end` answered `done: false`): how many were sent to
    /// the cluster so far. Once it has ended: documents inserted (0 when nothing went in).
    pub inserted: u64,
    /// Once it has ended: each record that did not go in, by line, in file order (the
    /// first [`MAX_IMPORT_FAILURES`] of them).
    pub failures: Vec<ImportFailure>,
    /// Why the import stopped short, when it did (a file it cannot read on, a limit).
    pub stopped: Option<String>,
    /// Whether it has ended (its step is in the session).
    pub done: bool,
    /// The session's cursor.
    pub position: Position,
    /// The answer to a `preview`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<ImportPreview>,
}

/// About how many documents one `end` of an import inserts before it answers (whole
/// `insertMany` batches, so a little more at times).
pub const IMPORT_DOCS_PER_CALL: u64 = 5_000;

/// A type chosen for a CSV column, as a typed header spells it after the dot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnTypeChoice {
    /// The column, as the header names it.
    pub name: String,
    /// `int64()`, `string()`, `date_ms(yyyy-MM-dd)`, `auto()`, ...
    #[serde(rename = "type")]
    pub spec: String,
}

/// What a file's first bytes show (the answer to an import's `preview`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportPreview {
    /// `json`, `jsonArray` or `csv`, once known.
    pub format: Option<String>,
    /// The CSV columns with their types' names (`auto` for an untyped header).
    pub columns: Vec<ColumnTypeChoice>,
    /// The dotted fields the first documents hold, in the order first met.
    pub fields: Vec<String>,
    /// Documents read from the bytes.
    pub documents: u64,
    /// Records of the bytes that could not be read.
    pub failed: u64,
    /// Why the file cannot be imported, when its first bytes show it already.
    pub error: Option<String>,
    /// The types a column can be given.
    pub type_choices: Vec<String>,
}

/// Most failures an import's answer lists (the count says how many there were).
pub const MAX_IMPORT_FAILURES: usize = 1000;

/// A record that did not go in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportFailure {
    /// Its line in the file, from 1.
    pub line: u64,
    /// The column, when the reason has one.
    pub column: Option<u64>,
    /// Why, in mongoimport's or the server's words.
    pub reason: String,
}

/// One exported config collection (or a `sh.status()` printout), as `importCluster`
/// takes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataFile {
    /// The file's name, which says its collection: `shards`, `databases`, `collections`,
    /// `chunks`, `tags` or `changelog`, maybe after `config.`, then `.json`, `.jsonl`,
    /// `.ndjson` or `.bson.json`; a path before it is ignored. A printout's name is
    /// free (it is known by its text) and only names it in errors.
    pub name: String,
    /// The file's text: Extended JSON documents one after another, or one array; or
    /// what `sh.status({verbose: true})` printed.
    pub text: String,
}

/// What `importCluster` made of the session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterImported {
    /// The cursor: at the end, after the last replayed change.
    pub position: Position,
    /// The sharded collections loaded, in namespace order.
    pub ns: Vec<String>,
    /// The version mode the session now runs, the metadata's era (`"5.0"`, `"7.0"` or
    /// `"8.0"`).
    pub version: String,
    /// Changelog entries replayed, one step each after the load.
    pub replayed: u64,
    /// Changelog entries not replayed, by name, with why.
    pub skipped: Vec<SkippedChanges>,
    /// Steps the import made (the load, the replayed changes, and the jumbo flags the
    /// export holds when changes were replayed).
    pub steps: u64,
}

/// Changelog entries an import did not replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedChanges {
    /// The entries' `what`, such as `moveChunk.start`.
    pub what: String,
    /// How many.
    pub count: u64,
    /// Why: `changes no chunk`, `unknown event`, or why the replay could not go back
    /// this far.
    pub reason: String,
}

/// A session the engine opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    /// The handle the engine gave it, which every request about it names in `session`.
    pub session: String,
    /// The cursor.
    pub position: Position,
    /// MongoDB's messages, in the order the setup met them (a key MongoDB refuses).
    #[serde(default)]
    pub errors: Vec<String>,
    /// A playground session's view (`setup`, `lesson` and `replay` starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<Box<PageView>>,
    /// A `replay` start: what the scenario holds besides its steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<Box<Replaying>>,
}

/// What a scenario to replay holds besides its steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Replaying {
    /// The page's name/value pairs, as the scenario holds them (unchecked: a link can say
    /// anything).
    pub page: Vec<(String, String)>,
    /// The cursor the scenario asks for, when not at its end.
    pub position: Option<u64>,
    /// The scenario's JSON form, which a page offers for download when the user cancels
    /// the replay.
    pub json: String,
}

/// What the engine knows that the page's forms offer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// The protocol version the engine speaks ([`PROTOCOL_VERSION`]).
    #[serde(default)]
    pub protocol: u32,
    /// The methods it takes ([`METHODS`]).
    #[serde(default)]
    pub methods: Vec<String>,
    /// The lessons, in teaching order.
    pub lessons: Vec<LessonInfo>,
    /// The workloads' names.
    pub workloads: Vec<String>,
    /// The version modes, oldest first.
    pub versions: Vec<VersionInfo>,
    /// What a request may carry: the bounds every view's forms and attributes offer.
    #[serde(default)]
    pub limits: CatalogLimits,
    /// What a session or a comparison uses when a caller leaves a setting out.
    #[serde(default)]
    pub defaults: CatalogDefaults,
    /// Each shard's colour, by shard index ([`SHARD_COLOURS`]).
    #[serde(default)]
    pub palette: Vec<String>,
    /// The languages the page and the element have words for, as BCP 47 tags; English
    /// first, every other language's catalogue beside the page as `i18n/<tag>.json`.
    #[serde(default)]
    pub languages: Vec<String>,
    /// The workloads a comparison offers ([`COMPARE_WORKLOADS`]).
    #[serde(default)]
    pub compare_workloads: Vec<String>,
}

/// The protocol's bounds, as the catalogue tells views (each one of this crate's constants).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogLimits {
    /// [`MAX_SHARDS`].
    pub max_shards: u32,
    /// [`MIN_CHUNK_SIZE`], in bytes.
    pub min_chunk_size: u64,
    /// [`MAX_CHUNK_SIZE`], in bytes.
    pub max_chunk_size: u64,
    /// [`MAX_COLUMNS`].
    pub max_compare_columns: u32,
    /// [`MAX_COMPARE_TICKS`].
    pub max_compare_ticks: u32,
    /// [`MAX_BATCH`].
    pub max_batch: u32,
    /// [`MAX_SOURCE_BYTES`].
    pub max_source_bytes: u64,
    /// [`MAX_SCENARIO_BYTES`].
    pub max_scenario_bytes: u64,
    /// [`MAX_FIELD_BYTES`].
    pub max_field_bytes: u64,
    /// [`MAX_SESSIONS`].
    pub max_sessions: u32,
    /// [`MAX_CLUSTER_IMPORT_BYTES`].
    #[serde(default)]
    pub max_cluster_import_bytes: u64,
}

impl CatalogLimits {
    /// The protocol's limits.
    pub fn current() -> Self {
        CatalogLimits {
            max_shards: MAX_SHARDS,
            min_chunk_size: MIN_CHUNK_SIZE,
            max_chunk_size: MAX_CHUNK_SIZE,
            max_compare_columns: MAX_COLUMNS as u32,
            max_compare_ticks: MAX_COMPARE_TICKS,
            max_batch: MAX_BATCH,
            max_source_bytes: MAX_SOURCE_BYTES as u64,
            max_scenario_bytes: MAX_SCENARIO_BYTES as u64,
            max_field_bytes: MAX_FIELD_BYTES as u64,
            max_sessions: MAX_SESSIONS as u32,
            max_cluster_import_bytes: MAX_CLUSTER_IMPORT_BYTES as u64,
        }
    }
}

/// The settings a view uses when its caller leaves them out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogDefaults {
    /// The version mode of a new session ([`DEFAULT_VERSION`]).
    pub version: String,
    /// Shards in a new session ([`DEFAULT_SHARDS`]).
    pub shards: u32,
    /// The seed of a new session ([`DEFAULT_SEED`]).
    pub seed: u64,
    /// A comparison's workload (the first of [`COMPARE_WORKLOADS`]).
    pub compare_workload: String,
    /// A comparison's workload commands ([`COMPARE_TICKS`]).
    pub compare_ticks: u32,
    /// A comparison's documents per command ([`COMPARE_BATCH`]).
    pub compare_batch: u32,
    /// A comparison's chunk size in bytes ([`COMPARE_CHUNK_SIZE`]).
    pub compare_chunk_size: u64,
}

impl CatalogDefaults {
    /// The protocol's defaults.
    pub fn current() -> Self {
        CatalogDefaults {
            version: DEFAULT_VERSION.to_string(),
            shards: DEFAULT_SHARDS,
            seed: DEFAULT_SEED,
            compare_workload: COMPARE_WORKLOADS[0].to_string(),
            compare_ticks: COMPARE_TICKS,
            compare_batch: COMPARE_BATCH,
            compare_chunk_size: COMPARE_CHUNK_SIZE,
        }
    }
}

/// The version modes the engine runs, oldest first, as requests name them (the core's
/// `VersionMode` labels; an engine test keeps the two lists the same). Every view's
/// menus and checks take them from here or from the catalogue.
pub const VERSIONS: &[&str] = &["3.6", "5.0", "7.0", "8.0"];

/// Whether `text` names one of [`VERSIONS`].
pub fn is_version(text: &str) -> bool {
    VERSIONS.contains(&text)
}

/// The version mode a new session runs when none is named, in every view (the page's
/// settings, the module, the element, the CLI): 5.0, the era whose auto-splitter shows
/// chunks splitting as documents arrive.
pub const DEFAULT_VERSION: &str = "5.0";
/// Shards in a new session when none is said.
pub const DEFAULT_SHARDS: u32 = 3;
/// The seed of a new session when none is said.
pub const DEFAULT_SEED: u64 = 1;
/// Workload commands a comparison runs when none is said (the element's).
pub const COMPARE_TICKS: u32 = 40;

/// Each shard's colour, by shard index, up to the 64 shards a cluster may have: every view
/// draws shard `i` in colour `i`.
///
/// The first eight are the Okabe-Ito palette, which stays distinguishable for the common
/// forms of colour blindness. The next 56 step round the hue circle by the golden angle
/// at alternating lightness and saturation, so any eight consecutive shards differ
/// clearly (at least 20 ΔE apart).
pub const SHARD_COLOURS: [&str; 64] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#9c8a00", "#444444",
    "#864727", "#1fd691", "#982fa2", "#bee236", "#275786", "#d61f45", "#2fa239", "#7736e2",
    "#866727", "#1fd6cf", "#a22f85", "#85e236", "#273786", "#d6361f", "#2fa25f", "#b036e2",
    "#868627", "#1fa0d6", "#a22f5f", "#4be236", "#372786", "#d6731f", "#2fa286", "#e236db",
    "#668627", "#1f63d6", "#a22f38", "#36e25b", "#572786", "#d6b11f", "#2f98a2", "#e236a1",
    "#468627", "#1f25d6", "#a24c2f", "#36e294", "#772786", "#bed61f", "#2f72a2", "#e23667",
    "#278628", "#551fd6", "#a2732f", "#36e2ce", "#862776", "#81d61f", "#2f4ba2", "#e23e36",
    "#278647", "#931fd6", "#a2992f", "#36bde2", "#862756", "#44d61f", "#392fa2", "#e27836",
];

/// The languages views have words for: English, then the rest, as `i18n/<tag>.json` names them.
pub const LANGUAGES: &[&str] = &["en", "zh-CN"];

/// One lesson.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LessonInfo {
    /// Its id, as links name it.
    pub id: String,
    /// A short title.
    pub title: String,
    /// What to watch for.
    pub lesson: String,
    /// Its cluster.
    pub setup: PageSetup,
    /// Its workload.
    pub workload: WorkloadSpec,
    /// Its workload as shell statements, one step each after the setup (the batches, then
    /// the lesson's closing commands): what an element with `preset` and no script plays.
    #[serde(default)]
    pub steps: Vec<String>,
}

/// One version mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    /// `"3.6"`, `"5.0"` or `"8.0"`.
    pub label: String,
    /// The shell helpers of the page's forms this version lacks, such as
    /// `refineCollectionShardKey`.
    pub lacks: Vec<String>,
}

/// A session's timeline cursor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    /// Steps run up to the cursor.
    pub position: u64,
    /// Steps in the session.
    pub length: u64,
}

/// Where a filter goes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Targeting {
    /// The explain stage: `SINGLE_SHARD` or `SHARD_MERGE`.
    pub stage: String,
    /// Whether mongos broadcasts it to every shard holding chunks.
    pub broadcast: bool,
    /// The shards it is sent to, in shard order.
    pub shards: Vec<String>,
}

/// One configuration's row of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareRow {
    /// The configuration: its key and version.
    pub label: String,
    /// Documents the workload inserted, per shard.
    pub inserts_per_shard: Vec<(String, u64)>,
    /// Chunks per shard at the end.
    pub chunks_per_shard: Vec<(String, u64)>,
    /// Documents per shard at the end.
    pub docs_per_shard: Vec<(String, u64)>,
    /// The busiest shard's share of the latest inserts, 0 to 1.
    pub hottest_shard_share: f64,
    /// How many of the latest inserts that share counts.
    pub hot_window: u64,
    /// Chunks flagged jumbo.
    pub jumbo_chunks: u64,
    /// The share of the query mix sent to one shard.
    pub single_shard_share: f64,
    /// The share routed by key ranges to a subset of the chunks.
    pub multi_shard_share: f64,
    /// The share sent to every shard.
    pub scatter_gather_share: f64,
    /// Commands that failed, with MongoDB's message.
    pub errors: Vec<String>,
}

/// A refused request: a code and code name as MongoDB's errors have, and a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineError {
    /// The numeric code (MongoDB's, where the error is one of MongoDB's).
    pub code: i32,
    /// The code's name, such as `BadValue`.
    pub code_name: String,
    /// What went wrong, in a sentence.
    pub message: String,
}

impl EngineError {
    /// MongoDB's `BadValue` (2): a parameter out of bounds or of the wrong shape.
    pub fn bad_value(message: impl Into<String>) -> Self {
        EngineError {
            code: 2,
            code_name: "BadValue".into(),
            message: message.into(),
        }
    }

    /// MongoDB's `NoSuchSession` (206): the request names no open session.
    pub fn no_such_session(session: &str) -> Self {
        EngineError {
            code: 206,
            code_name: "NoSuchSession".into(),
            message: format!("no session named '{session}' is open"),
        }
    }

    /// MongoDB's `IllegalOperation` (20): the request cannot be done in the session's
    /// state.
    pub fn illegal_operation(message: impl Into<String>) -> Self {
        EngineError {
            code: 20,
            code_name: "IllegalOperation".into(),
            message: message.into(),
        }
    }

    /// A request in another protocol version: `BadValue`, saying which this engine speaks.
    pub fn unsupported_version(v: u32) -> Self {
        EngineError::bad_value(format!(
            "unsupported protocol version {v}: this engine speaks version {PROTOCOL_VERSION} \
             (ARCHITECTURE.md, \"The engine's API\")"
        ))
    }
}

/// An event the engine pushes to its views, unasked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventMessage {
    /// The protocol version ([`PROTOCOL_VERSION`]).
    #[serde(default = "protocol_version")]
    pub v: u32,
    /// The session it concerns: its handle.
    pub session: String,
    /// The event, as `event` and `data`.
    #[serde(flatten)]
    pub event: Event,
}

/// What the engine pushes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "event",
    content = "data",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// A replay or a long command advanced.
    Progress {
        /// Steps done.
        done: u64,
        /// Steps in all.
        total: u64,
    },
    /// Something the user should be told (a replay cut short, a refused link).
    Notice {
        /// The sentence.
        text: String,
    },
    /// The session changed: its shareable form, to save.
    Save {
        /// The link form of the session, while the session fits in a link; `None` (`null`)
        /// past that (a session of large imports), when only its JSON form can hold it.
        text: Option<String>,
        /// Steps in the session.
        steps: u64,
    },
}

fn protocol_version() -> u32 {
    PROTOCOL_VERSION
}

impl EventMessage {
    /// An event about `session`, in this protocol's version.
    pub fn new(session: impl Into<String>, event: Event) -> Self {
        EventMessage {
            v: PROTOCOL_VERSION,
            session: session.into(),
            event,
        }
    }
}

/// Anything the engine sends: an answer (it has an `id`) or an event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FromEngine {
    /// The answer to a request.
    Answer(Response),
    /// An event.
    Event(EventMessage),
}

impl Request {
    /// A request in this protocol's version about `session` (`None` for the methods that
    /// are about no session).
    pub fn new(id: u64, session: Option<&str>, call: Call) -> Self {
        Request {
            v: PROTOCOL_VERSION,
            id,
            session: session.map(str::to_string),
            call,
        }
    }

    /// Checks everything a request carries against the protocol's limits, as if an
    /// attacker wrote it: the version, the session's handle, and each text and count.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.v != PROTOCOL_VERSION {
            return Err(EngineError::unsupported_version(self.v));
        }
        match (&self.session, self.call.needs_session()) {
            (Some(session), true) => check_session_id(session)?,
            (None, true) => {
                return Err(EngineError::bad_value(
                    "this method is about a session: name the handle `open` answered with in `session`",
                ))
            }
            (Some(_), false) if matches!(self.call, Call::Open(_)) => {
                return Err(EngineError::bad_value(
                    "the engine names sessions: `open` takes no `session`, and answers with the handle",
                ))
            }
            (Some(session), false) => check_session_id(session)?,
            (None, false) => {}
        }
        limits::check_call(&self.call)
    }
}
