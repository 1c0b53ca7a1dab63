//! The top layer: the timeline of steps with snapshots and replay, the versioned
//! scenario codec behind share links and saved sessions, the comparison of several
//! configurations in lockstep, and candidate shard keys ranked on a user's documents.

pub(crate) mod compare;
pub(crate) mod export;
#[cfg(feature = "insight")]
pub(crate) mod heat;
#[cfg(feature = "insight")]
pub(crate) mod heat_axis;
pub(crate) mod rank;
pub(crate) mod rank_candidates;
pub(crate) mod rank_report;
pub(crate) mod scenario;
pub(crate) mod timeline;

pub use compare::{
    bump, compare, render_table, summarise, CompareError, ComparisonRow, LatestInserts, HOT_WINDOW,
};
pub use export::{
    export_scenario, ExportError, Exporter, EXPORT_BATCH_DOCUMENTS, MAX_INLINE_IMPORT_BYTES,
};
#[cfg(feature = "insight")]
pub use heat::{
    axis_words as heat_axis_words, key_coordinate, ChunkMark, HeatGrid, HeatLog, HeatOptions,
    HeatPattern, HeatRow, PatternKind, MAX_RANGES_PER_STEP,
};
#[cfg(feature = "insight")]
pub use heat_axis::MAX_BANDS;
pub use rank::{
    RankError, RankOptions, Ranker, Replay, Replayer, DEFAULT_RANK_CHUNK_BYTES, MAX_CANDIDATES,
    MAX_REFUSALS_KEPT, RANK_NS, SLICE_DOCUMENTS,
};
pub use rank_candidates::{FieldProfile, Proposal, MAX_PROPOSALS, MIN_DISTINCT, PROFILE_DOCUMENTS};
pub use rank_report::{
    rank, Distribution, Figures, KeyFigures, Measure, RankedCandidate, RankedError, Ranking,
    Reason, Refusal, Targeted, Verdict, LOPSIDED, RANK_MESSAGES,
};
pub use scenario::{
    from_json, from_query, to_json, to_query, to_query_checked, Scenario, ScenarioError,
    MAX_COMMANDS, MAX_DECODED_BYTES, MAX_JSON_BYTES, MAX_PAGE_ENTRIES, MAX_PAGE_NAME_BYTES,
    MAX_PAGE_VALUE_BYTES, MAX_SHARDS,
};
pub use timeline::{estimate_session_bytes, StagedStep, Timeline, TimelineError, TimelineOptions};
