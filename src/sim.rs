//! The top layer: the timeline of steps with snapshots and replay, the versioned
//! scenario codec behind share links and saved sessions, and the comparison of several
//! configurations in lockstep.

pub(crate) mod compare;
pub(crate) mod export;
#[cfg(feature = "insight")]
pub(crate) mod heat;
#[cfg(feature = "insight")]
pub(crate) mod heat_axis;
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
pub use scenario::{
    from_json, from_query, to_json, to_query, to_query_checked, Scenario, ScenarioError,
    MAX_COMMANDS, MAX_DECODED_BYTES, MAX_JSON_BYTES, MAX_PAGE_ENTRIES, MAX_PAGE_NAME_BYTES,
    MAX_PAGE_VALUE_BYTES, MAX_SHARDS,
};
pub use timeline::{estimate_session_bytes, Timeline, TimelineError, TimelineOptions};
