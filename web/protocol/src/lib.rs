//! The one protocol between ShardLab's engine and its views.
//!
//! The engine (the core, in a Web Worker or, without one, in the page) owns every session;
//! the page, its panels, the Compare tab and, later, documentation elements and the
//! JavaScript module talk to it only through these messages. They are plain `serde` types
//! that both sides compile, so a message is typed once and checked on both sides; in the
//! browser they cross the boundary with `serde-wasm-bindgen`, and natively (tests, tools)
//! they are JSON.
//!
//! The shapes, as JSON:
//!
//! - a request: `{"v": 2, "id": 7, "session": "page", "method": "run", "params": {"source": "sh.status()"}}`;
//! - its answer: `{"id": 7, "result": {"ran": {"lines": [...], "position": {...}}}}` or
//!   `{"id": 7, "error": {"code": 2, "codeName": "BadValue", "message": "..."}}`;
//! - an event the engine pushes: `{"session": "page", "event": "frame", "data": {...}}`.
//!
//! A mistake in a user's shell command is not a protocol error: `run` answers with the
//! console lines, MongoDB's error among them. A protocol error means the request itself was
//! wrong (an unknown session, a field out of bounds, another protocol version). Every
//! request is checked by [`Request::check`] as if an attacker wrote it, since other pages
//! will be able to send them.

mod frame;
mod limits;
mod page;
mod panels;
mod script;

pub use frame::{BarFrame, ChunkFrame, Frame, ShardFrame, Tick};
pub use limits::*;
pub use page::*;
pub use panels::*;
pub use script::{Json, JsonObject, StatementError, StatementResult};
use serde::{Deserialize, Serialize};

/// The protocol's version. A request carries it in `v`; the engine refuses another.
pub const PROTOCOL_VERSION: u32 = 2;

/// A request from a view to the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The protocol version the sender speaks ([`PROTOCOL_VERSION`]).
    pub v: u32,
    /// The sender's number for this request, echoed in the answer.
    pub id: u64,
    /// The session the request is about (see [`check_session_id`]).
    pub session: String,
    /// What is asked, with its parameters.
    #[serde(flatten)]
    pub call: Call,
}

/// What a request asks, serialised as `"method"` and `"params"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "method",
    content = "params",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Call {
    /// Which protocol version and methods the engine speaks.
    Hello,
    /// Starts a session under the request's name, replacing none: opening a name in use is
    /// an error.
    Open(Start),
    /// Ends a session and frees what it holds.
    Close,
    /// Runs shell source (one or more statements) as the next step of the session.
    Run {
        /// The statements, as typed.
        source: String,
    },
    /// Runs shell source as the next step of the session, like `run`, and answers with
    /// one entry per statement: its value, its error or what it printed (the JavaScript
    /// module's `run`).
    Evaluate {
        /// The statements, as typed.
        source: String,
        /// Whether each statement is a step of its own (so a view can play the script a
        /// statement at a time); a script that does not parse is one step.
        #[serde(default)]
        each: bool,
    },
    /// Every chunk, shard and zone of one collection at the cursor, whole (unlike
    /// `frame`, it leaves nothing out and changes nothing the next `frame` compares with).
    Cluster {
        /// The collection; the one the last command touched when absent.
        ns: Option<String>,
    },
    /// `analyzeShardKey` of a candidate key on a collection, run on a copy of the session
    /// (the session gains no step), answered as one statement's entry.
    Analyze {
        /// The collection.
        ns: String,
        /// The candidate key, such as `{x: 1}`.
        key: String,
    },
    /// Moves the session's cursor one step forward (`by` > 0) or back.
    Step {
        /// Steps to move: +1 or -1, or more.
        by: i64,
    },
    /// Moves the session's cursor to step `to`.
    Jump {
        /// The step to show, from 0 (before any command) to the session's length.
        to: u64,
    },
    /// Forgets the steps after the cursor, so the next command continues from here.
    Fork,
    /// The picture of one collection at the cursor. The first frame of a session is whole;
    /// later ones leave out what did not change since the previous frame.
    Frame {
        /// The collection to draw; the one the last command touched when absent.
        ns: Option<String>,
    },
    /// Checks a shard key pattern as typed, as `shardCollection` would.
    CheckKey {
        /// The pattern, such as `{x: "hashed"}`.
        key: String,
    },
    /// Whether console input is unfinished (an open bracket or string), so Enter should
    /// start a new line rather than run it.
    NeedsMoreInput {
        /// The console's text.
        source: String,
    },
    /// Which shards a filter on a collection would be sent to.
    Target {
        /// The collection.
        ns: String,
        /// The filter, in the shell's language, such as `{x: 42}`.
        filter: String,
    },
    /// A page of one chunk's documents, in the chunk's key order.
    ChunkDocs {
        /// The collection.
        ns: String,
        /// The chunk, by its position in the collection's key order (0 is the MinKey chunk).
        chunk: u32,
        /// The page, from 0, of [`CHUNK_PAGE_ROWS`] rows.
        page: u32,
    },
    /// Why MongoDB did what it did to a chunk, a shard, or in a balancer round.
    Explain(Subject),
    /// One workload on several configurations in lockstep, summarised per configuration.
    Compare(CompareSpec),
    /// The session in its shareable, versioned form (what a link or a saved session holds).
    Scenario,
    /// Inserts `count` documents of a named workload into `ns` as the next step, followed
    /// by a balancer round when `balance` is set: the step the workload player and the
    /// Compare tab take.
    Generate {
        /// The collection.
        ns: String,
        /// The workload generator's name, such as `monotonic`.
        workload: String,
        /// Documents to insert, 1 to [`MAX_BATCH`].
        count: u32,
        /// Whether a balancer round follows.
        balance: bool,
    },
    /// How `ns` fared under the session's workload: the Compare tab's row, with the
    /// comparison's fixed query mix routed on the cluster at the cursor.
    Summary {
        /// The collection.
        ns: String,
    },
    /// Something the user did to a playground session (see [`Act`]); answers with the
    /// session's [`PageView`].
    Act(Act),
    /// The lessons, workloads and versions the engine knows, for the page's forms.
    Catalog,
    /// The latest events of the cluster's log (at most [`MAX_EVENTS`]), newest first.
    Events {
        /// The collection shown, whose bounds the sentences print.
        ns: String,
    },
    /// The key-space heatmap of a collection.
    Heat {
        /// The collection.
        ns: String,
        /// Rows, 1 to 4,096.
        rows: u32,
        /// Columns, 1 to 8,192.
        columns: u32,
    },
    /// The insights panel's charts' series and, when `analyze` is set, analyzeShardKey's
    /// report on a collection's key (run on a copy of the session, after a mixed query
    /// sample: costly, so asked for only when the user asks).
    Insights {
        /// The collection.
        ns: String,
        /// Whether to run analyzeShardKey; without it the answer has the charts alone.
        #[serde(default)]
        analyze: bool,
    },
    /// What the inspector shows about a collection.
    Inspect {
        /// The collection.
        ns: String,
        /// The subject.
        subject: Inspecting,
    },
    /// What applying the settings form's draft would do (see [`SetupPlan`]).
    PlanSetup {
        /// The draft.
        draft: PageSetup,
    },
    /// The command that inserts one document, typed in the inspector's form, into `ns`.
    InsertCommand {
        /// The collection.
        ns: String,
        /// The document as typed.
        doc: String,
    },
    /// How a workload's documents fit a collection's shard key.
    WorkloadFit {
        /// The collection.
        ns: String,
        /// The workload's name or template.
        spec: String,
    },
    /// The session in its shareable form with the page's own state (`page`, name/value
    /// pairs the engine carries and never reads): the link form, or the JSON form a saved
    /// session and an export hold.
    Link {
        /// The page's state, within the scenario format's limits.
        page: Vec<(String, String)>,
        /// Whether to answer with the JSON form rather than the link form.
        json: bool,
    },
}

/// How a session starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "from",
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
    tag = "about",
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

/// The engine's answer to one request.
///
/// On the wire it is `{id, result}` or `{id, error}`, read in one pass through
/// [`ResponseWire`] (reading a flattened field would buffer the whole answer first).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ResponseWire")]
pub struct Response {
    /// The request's `id`.
    pub id: u64,
    /// `result` or `error`.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A [`Response`] as it is read: exactly one of `result` and `error` is present.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ResponseWire {
    /// The request's `id`.
    pub id: u64,
    /// The result, when the request was carried out.
    #[serde(default)]
    pub result: Option<Reply>,
    /// The error, when it was refused.
    #[serde(default)]
    pub error: Option<EngineError>,
}

impl TryFrom<ResponseWire> for Response {
    type Error = &'static str;

    fn try_from(w: ResponseWire) -> Result<Self, Self::Error> {
        let outcome = match (w.result, w.error) {
            (Some(reply), None) => Outcome::Result(reply),
            (None, Some(e)) => Outcome::Error(e),
            _ => return Err("an answer carries exactly one of `result` and `error`"),
        };
        Ok(Response { id: w.id, outcome })
    }
}

/// An answer's result or error, serialised as the field `result` or `error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// The request was carried out.
    Result(Reply),
    /// The request was refused.
    Error(EngineError),
}

/// A request's result: an object whose one field names the kind of result and holds it,
/// such as `{"position": {"position": 2, "length": 5}}`; a result without content is the
/// kind's name alone (`"closed"`). This is serde's own (external) tagging, which a reader
/// decodes in one pass; a tag inside the object (protocol version 1's `kind`) made the
/// page buffer every answer before decoding it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Reply {
    /// The engine's protocol version and the methods it takes.
    Hello {
        /// [`PROTOCOL_VERSION`].
        version: u32,
        /// The methods, as a request names them.
        methods: Vec<String>,
    },
    /// The session's cursor after `step`, `jump` or `fork`.
    Position(Position),
    /// A session opened: its cursor, and the errors its setup met (a key MongoDB refuses).
    Opened {
        /// The cursor.
        position: Position,
        /// MongoDB's messages, in the order the setup met them.
        errors: Vec<String>,
    },
    /// What `run` printed, and where the cursor is now.
    Ran {
        /// The console lines, one per statement that printed something.
        lines: Vec<ConsoleLine>,
        /// The cursor after the step.
        position: Position,
    },
    /// What `evaluate` did, one entry per statement, and where the cursor is now.
    Evaluated {
        /// The entries, in source order.
        statements: Vec<StatementResult>,
        /// The cursor after the step.
        position: Position,
    },
    /// `analyzeShardKey`'s answer.
    Analyzed(StatementResult),
    /// The session was closed.
    Closed,
    /// A picture of one collection.
    Frame(Frame),
    /// A shard key pattern checked.
    KeyCheck {
        /// The pattern as mongosh prints it, when MongoDB takes it.
        key: Option<String>,
        /// MongoDB's error, when it refuses it.
        error: Option<EngineError>,
    },
    /// Whether console input is unfinished.
    NeedsMoreInput {
        /// True while a bracket or string is open.
        more: bool,
    },
    /// Where a filter is sent.
    Targets(Targeting),
    /// A page of a chunk's documents.
    ChunkDocs(ChunkPage),
    /// Explanations, one sentence each.
    Explained {
        /// The sentences, in the order MongoDB's rules apply.
        sentences: Vec<String>,
    },
    /// One collection's summary under its workload.
    Summary(CompareRow),
    /// A comparison's rows.
    Compared {
        /// One row per configuration, in the request's order.
        rows: Vec<CompareRow>,
    },
    /// A playground session at its cursor.
    Page(Box<PageView>),
    /// A playground session opened from a scenario to replay: the view before the first
    /// step, and the page's own state the scenario carries (unchecked: a link can say
    /// anything).
    Replaying {
        /// The view, with the replay's progress.
        view: Box<PageView>,
        /// The page's name/value pairs, as the scenario holds them.
        page: Vec<(String, String)>,
        /// The cursor the scenario asks for, when not at its end.
        position: Option<u64>,
        /// The scenario's JSON form, which a page offers for download when the user
        /// cancels the replay.
        json: String,
    },
    /// What the engine knows and allows: the lessons, workloads, versions, limits,
    /// defaults, palette and languages.
    Catalog(Box<Catalog>),
    /// The latest events, newest first.
    Events {
        /// The rows.
        rows: Vec<EventRow>,
    },
    /// A heatmap's grid.
    Heat(Box<HeatView>),
    /// The insights panel's content.
    Insights(Box<InsightsView>),
    /// The inspector's content.
    Inspection(Box<Inspection>),
    /// A workload's fit to a key.
    WorkloadFit(FitView),
    /// What applying the draft would do.
    Plan(SetupPlan),
    /// A command to run.
    Command {
        /// The command's text.
        text: String,
    },
    /// The session's shareable form.
    Scenario {
        /// The link form (`v2.…`), as `?s=` or `#s=` carries it.
        text: String,
    },
}

/// What the engine knows that the page's forms offer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
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

/// The version mode a new session of the module or the element runs when none is named:
/// the newest era.
pub const DEFAULT_VERSION: &str = "8.0";
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

/// One console line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLine {
    /// Output or error.
    pub kind: LineKind,
    /// The text, as mongosh prints it.
    pub text: String,
}

/// The kind of a console line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LineKind {
    /// What a statement returned.
    Output,
    /// MongoDB's or the shell's error.
    Error,
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

/// A page of one chunk's documents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkPage {
    /// The chunk's lower bound, as mongosh prints it.
    pub min: String,
    /// Its upper bound.
    pub max: String,
    /// Its shard.
    pub shard: String,
    /// Documents in the chunk.
    pub total: u64,
    /// This page's number, from 0.
    pub page: u32,
    /// The page's rows.
    pub rows: Vec<DocRow>,
}

/// One document of a chunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocRow {
    /// Its insertion number in the collection.
    pub seq: u64,
    /// Its `_id`, as mongosh prints it.
    pub id: String,
    /// Its shard key value, as mongosh prints it.
    pub key: String,
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
}

/// An event the engine pushes to its views, unasked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventMessage {
    /// The session it concerns.
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
        /// The link form of the session.
        text: String,
        /// Steps in the session.
        steps: u64,
    },
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
    /// A request in this protocol's version.
    pub fn new(id: u64, session: impl Into<String>, call: Call) -> Self {
        Request {
            v: PROTOCOL_VERSION,
            id,
            session: session.into(),
            call,
        }
    }

    /// Checks everything a request carries against the protocol's limits, as if an
    /// attacker wrote it: the version, the session's name, and each text and count.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.v != PROTOCOL_VERSION {
            return Err(EngineError::bad_value(format!(
                "this engine speaks protocol version {PROTOCOL_VERSION}, not {}",
                self.v
            )));
        }
        check_session_id(&self.session)?;
        limits::check_call(&self.call)
    }
}
