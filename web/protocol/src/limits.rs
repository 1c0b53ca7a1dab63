//! What a request may carry. The engine checks every request against these before it
//! does anything, because other pages will be able to send requests.

use crate::{
    Act, Call, EngineError, Inspecting, PageSetup, RunSpec, Start, Subject, WorkloadSpec,
    MAX_ADVANCE, MAX_TOTAL,
};

/// Longest session name, in bytes.
pub const MAX_SESSION_ID_BYTES: usize = 64;
/// Sessions one engine holds at once.
pub const MAX_SESSIONS: usize = 64;
/// Longest shell source one `run` carries (1 MiB).
pub const MAX_SOURCE_BYTES: usize = 1 << 20;
/// Longest scenario text a session opens from (48 MiB): a saved session, an imported file,
/// a scenario handed to `session`. The core's scenario reader takes no more
/// (`shardlab::sim::MAX_JSON_BYTES`; the engine's tests keep the two equal), so a
/// session whose scenario grows past it can no longer be kept.
pub const MAX_SCENARIO_BYTES: usize = 48 << 20;
/// How a session's scenario text stands against [`MAX_SCENARIO_BYTES`], so that a view can
/// say so before the session can no longer be kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// Under three quarters of the limit.
    Ample,
    /// Three quarters of the limit or more: kept, but not for much longer.
    Nearly,
    /// Over the limit: a session cannot open from it, so it cannot be kept.
    Over,
}

/// Where a scenario text of `bytes` stands (see [`Room`]).
pub fn scenario_room(bytes: usize) -> Room {
    if bytes > MAX_SCENARIO_BYTES {
        Room::Over
    } else if bytes >= MAX_SCENARIO_BYTES / 4 * 3 {
        Room::Nearly
    } else {
        Room::Ample
    }
}

/// Most text one `importCluster` carries, its files' texts together (64 MiB): a cluster's
/// config exports, whose changelog is the large part.
pub const MAX_CLUSTER_IMPORT_BYTES: usize = 64 << 20;
/// Most files one `importCluster` carries (one for each config collection is six).
pub const MAX_CLUSTER_IMPORT_FILES: usize = 16;

/// Longest shard key, filter or collection name a request carries (16 KiB).
pub const MAX_FIELD_BYTES: usize = 16 << 10;
/// Most shards a session's cluster has, as the core allows.
pub const MAX_SHARDS: u32 = 64;
/// Most configurations one comparison runs.
pub const MAX_COLUMNS: usize = 4;
/// Most workload commands one comparison runs.
pub const MAX_COMPARE_TICKS: u32 = 2_000;
/// Most documents one workload step inserts, as the playground's workload form allows.
pub const MAX_BATCH: u32 = 5_000;
/// The smallest chunk size a session takes, in bytes (the core's floor).
pub const MIN_CHUNK_SIZE: u64 = 1024;
/// The largest chunk size, in bytes: 1024 MB, MongoDB's upper bound for `chunksize`.
pub const MAX_CHUNK_SIZE: u64 = 1024 * 1024 * 1024;
/// Rows in a page of a chunk's documents.
pub const CHUNK_PAGE_ROWS: u32 = 25;
/// Most steps one `step` or `jump` may name beyond the session (none).
pub const MAX_STEP: i64 = 1 << 40;

/// A session's name: 1 to [`MAX_SESSION_ID_BYTES`] bytes of ASCII letters, digits, `-`,
/// `_`, `.` or `:`.
pub fn check_session_id(id: &str) -> Result<(), EngineError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_SESSION_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    if ok {
        Ok(())
    } else {
        Err(EngineError::bad_value(format!(
            "a session name is 1 to {MAX_SESSION_ID_BYTES} letters, digits, '-', '_', '.' or ':'"
        )))
    }
}

fn within(what: &str, text: &str, max: usize) -> Result<(), EngineError> {
    if text.len() <= max {
        Ok(())
    } else {
        Err(too_long(what, text.len() as u64, max))
    }
}

/// The error for `what` of `len` bytes where at most `max` are taken: the engine's, and a
/// view's that refuses a file by its size before reading it.
pub fn too_long(what: &str, len: u64, max: usize) -> EngineError {
    EngineError::bad_value(format!("{what} is {len} bytes, over the limit of {max}"))
}

fn version(text: &str) -> Result<(), EngineError> {
    if crate::is_version(text) {
        return Ok(());
    }
    Err(EngineError::bad_value(format!(
        "unknown version mode '{}': use {}",
        text.chars().take(16).collect::<String>(),
        crate::VERSIONS
            .iter()
            .map(|v| format!("\"{v}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn chunk_size(bytes: u64) -> Result<(), EngineError> {
    if (MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&bytes) {
        Ok(())
    } else {
        Err(EngineError::bad_value(format!(
            "a chunk size is {MIN_CHUNK_SIZE} to {MAX_CHUNK_SIZE} bytes, not {bytes}"
        )))
    }
}

/// Checks one call's parameters.
pub(crate) fn check_call(call: &Call) -> Result<(), EngineError> {
    const NS: &str = "the namespace";
    match call {
        Call::Close | Call::Fork | Call::Catalog | Call::Export => Ok(()),
        Call::Open(start) => check_start(start),
        Call::Act(act) => check_act(act),
        Call::Scenario { page, .. } => check_page(page),
        Call::Keep { id, page, record } => {
            within("a saved session's id", id, MAX_SESSION_ID_BYTES)?;
            within("a saved session's record", record, MAX_SOURCE_BYTES)?;
            check_page(page)
        }
        Call::Compare(spec) => check_compare(spec),
        Call::Inspect { ns, subject } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            check_subject(subject)
        }
        Call::Heat { ns, rows, columns } => {
            if *rows == 0 || *rows > 4096 || *columns == 0 || *columns > 8192 {
                return Err(EngineError::bad_value(
                    "a heatmap has 1 to 4096 rows and 1 to 8192 columns",
                ));
            }
            within(NS, ns, MAX_FIELD_BYTES)
        }
        Call::Run(run) => check_run(run),
        Call::CompareStep { columns } => check_compare_step(columns),
        Call::Import(crate::ImportCall::Begin {
            ns,
            file_name,
            format,
            sort_by,
            column_types,
            ..
        }) => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            check_import_texts(file_name, format, sort_by, column_types)
        }
        Call::Import(crate::ImportCall::Preview {
            bytes,
            file_name,
            format,
            column_types,
            ..
        }) => {
            if bytes.len() > MAX_SOURCE_BYTES {
                return Err(too_long("a preview", bytes.len() as u64, MAX_SOURCE_BYTES));
            }
            check_import_texts(file_name, format, &None, column_types)
        }
        Call::Import(_) => Ok(()),
        Call::ImportCluster { files } => check_metadata_files(files),
        Call::Step { by } if by.unsigned_abs() > MAX_STEP as u64 => {
            Err(EngineError::bad_value("a step moves by at most 2^40"))
        }
        Call::Step { .. } | Call::Jump { .. } => Ok(()),
        Call::Explain(subject) => check_explain(subject),
        Call::Rank(spec) => check_rank(spec),
        other => check_texts(other),
    }
}

/// An `importCluster`'s files: some, not too many, named within bounds, and their texts
/// together within [`MAX_CLUSTER_IMPORT_BYTES`].
fn check_metadata_files(files: &[crate::MetadataFile]) -> Result<(), EngineError> {
    if files.is_empty() {
        return Err(EngineError::bad_value(
            "importCluster takes the config exports as files (at least shards.json, collections.json and chunks.json) or one sh.status({verbose: true}) printout",
        ));
    }
    if files.len() > MAX_CLUSTER_IMPORT_FILES {
        return Err(EngineError::bad_value(format!(
            "importCluster takes at most {MAX_CLUSTER_IMPORT_FILES} files, one for each config collection, not {}",
            files.len()
        )));
    }
    for f in files {
        within("a file's name", &f.name, MAX_FIELD_BYTES)?;
    }
    let total: u64 = files.iter().map(|f| f.text.len() as u64).sum();
    if total > MAX_CLUSTER_IMPORT_BYTES as u64 {
        return Err(EngineError::bad_value(format!(
            "the config exports are {total} bytes together, over importCluster's limit of {} MiB ({MAX_CLUSTER_IMPORT_BYTES} bytes)",
            MAX_CLUSTER_IMPORT_BYTES >> 20
        )));
    }
    Ok(())
}

/// `run`'s source, or its workload's batch: one of them.
fn check_run(run: &RunSpec) -> Result<(), EngineError> {
    let Some(w) = &run.workload else {
        return within("the source", &run.source, MAX_SOURCE_BYTES);
    };
    if !run.source.is_empty() {
        return Err(EngineError::bad_value(
            "run takes a source or a workload, not both",
        ));
    }
    check_workload_run(w)
}

/// A workload's batch: its size, names and the session it may replay.
fn check_workload_run(w: &crate::WorkloadRun) -> Result<(), EngineError> {
    const NS: &str = "the namespace";
    if w.count == 0 || w.count > MAX_BATCH {
        return Err(EngineError::bad_value(format!(
            "a workload step inserts 1 to {MAX_BATCH} documents"
        )));
    }
    within(NS, &w.ns, MAX_FIELD_BYTES)?;
    if let Some(sample) = &w.sample {
        check_session_id(&sample.session)?;
        within(NS, &sample.ns, MAX_FIELD_BYTES)?;
    }
    within("the workload", &w.name, MAX_FIELD_BYTES)
}

/// A Compare tab's tick: 1 to [`MAX_COLUMNS`] columns, each a session's name and a batch
/// as `run` takes it.
fn check_compare_step(columns: &[crate::ColumnStep]) -> Result<(), EngineError> {
    if columns.is_empty() || columns.len() > MAX_COLUMNS {
        return Err(EngineError::bad_value(format!(
            "a comparison's step has 1 to {MAX_COLUMNS} columns"
        )));
    }
    for c in columns {
        check_session_id(&c.session)?;
        if let Some(w) = &c.run {
            check_workload_run(w)?;
        }
    }
    Ok(())
}

/// `rank`'s keys, texts and counts.
fn check_rank(spec: &crate::RankSpec) -> Result<(), EngineError> {
    within("the namespace", &spec.ns, MAX_FIELD_BYTES)?;
    if spec.keys.len() > crate::MAX_RANK_KEYS {
        return Err(EngineError::bad_value(format!(
            "at most {} candidate keys can be ranked at once, not {}",
            crate::MAX_RANK_KEYS,
            spec.keys.len()
        )));
    }
    for key in &spec.keys {
        within("the shard key", key, MAX_FIELD_BYTES)?;
    }
    if let Some(field) = &spec.sort_by {
        within("the sort field", field, MAX_FIELD_BYTES)?;
    }
    if let Some(text) = &spec.queries {
        within("the query sample", text, crate::MAX_RANK_QUERIES_BYTES)?;
    }
    if let Some(ns) = &spec.queries_ns {
        within("the query sample's namespace", ns, MAX_FIELD_BYTES)?;
    }
    if let Some(shards) = spec.shards {
        if shards == 0 || shards > MAX_SHARDS {
            return Err(EngineError::bad_value(format!(
                "a cluster has 1 to {MAX_SHARDS} shards, not {shards}"
            )));
        }
    }
    if let Some(mb) = spec.chunk_size_mb {
        if mb == 0 || mb > crate::MAX_RANK_CHUNK_MB {
            return Err(EngineError::bad_value(format!(
                "chunkSizeMB is 1 to {}, not {mb}",
                crate::MAX_RANK_CHUNK_MB
            )));
        }
    }
    spec.version.as_deref().map_or(Ok(()), version)
}

/// The calls whose parameters are texts with a length limit each.
fn check_texts(call: &Call) -> Result<(), EngineError> {
    const NS: &str = "the namespace";
    match call {
        Call::Events { ns } | Call::Insights { ns, .. } | Call::Summary { ns } => {
            within(NS, ns, MAX_FIELD_BYTES)
        }
        Call::PlanSetup { draft } => {
            within("the shard key", &draft.key, MAX_FIELD_BYTES)?;
            within(NS, &draft.ns, MAX_FIELD_BYTES)
        }
        Call::InsertCommand { ns, doc } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            within("the document", doc, MAX_SOURCE_BYTES)
        }
        Call::WorkloadFit { ns, spec } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            within("the workload", spec, MAX_FIELD_BYTES)
        }
        Call::Analyze { ns, key } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            within("the shard key", key, MAX_FIELD_BYTES)
        }
        Call::NeedsMoreInput { source } => within("the source", source, MAX_SOURCE_BYTES),
        Call::Frame { ns, .. } => ns
            .as_deref()
            .map_or(Ok(()), |ns| within(NS, ns, MAX_FIELD_BYTES)),
        Call::CheckKey { key } => within("the shard key", key, MAX_FIELD_BYTES),
        Call::Target { ns, filter } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            within("the filter", filter, MAX_FIELD_BYTES)
        }
        _ => Ok(()),
    }
}

/// How a session starts.
fn check_start(start: &Start) -> Result<(), EngineError> {
    match start {
        Start::Setup(setup) => check_setup(setup),
        Start::Lesson { id } => within("the lesson", id, MAX_FIELD_BYTES),
        Start::Replay { text } | Start::Scenario { text } => {
            within("the scenario", text, MAX_SCENARIO_BYTES)
        }
        Start::Config(c) => {
            if c.shards == 0 || c.shards > MAX_SHARDS {
                return Err(EngineError::bad_value(format!(
                    "a cluster has 1 to {MAX_SHARDS} shards, not {}",
                    c.shards
                )));
            }
            if let Some(bytes) = c.chunk_size {
                chunk_size(bytes)?;
            }
            version(&c.version)
        }
        Start::Compare {
            column,
            chunk_size: size,
        } => {
            chunk_size(*size)?;
            within("the shard key", &column.key, MAX_FIELD_BYTES)?;
            version(&column.version)
        }
    }
}

/// The inspector's subject.
fn check_subject(subject: &Inspecting) -> Result<(), EngineError> {
    match subject {
        Inspecting::Chunk { key, .. } => within("the key handle", key, MAX_SOURCE_BYTES),
        Inspecting::Shard { shard } => within("the shard", shard, MAX_FIELD_BYTES),
        Inspecting::At { at, reach }
            if !at.is_finite() || reach.is_some_and(|r| !r.is_finite()) =>
        {
            Err(EngineError::bad_value(
                "a point of the key-space bar and its reach are numbers",
            ))
        }
        Inspecting::Nothing | Inspecting::At { .. } | Inspecting::Round => Ok(()),
    }
}

/// What an explanation is about.
fn check_explain(subject: &Subject) -> Result<(), EngineError> {
    const NS: &str = "the namespace";
    match subject {
        Subject::Chunk { ns, .. } => within(NS, ns, MAX_FIELD_BYTES),
        Subject::Shard { ns, shard } => {
            within(NS, ns, MAX_FIELD_BYTES)?;
            within("the shard", shard, MAX_FIELD_BYTES)
        }
        Subject::Round { ns } => ns
            .as_deref()
            .map_or(Ok(()), |ns| within(NS, ns, MAX_FIELD_BYTES)),
    }
}

/// The page's own state a link carries.
fn check_page(page: &[(String, String)]) -> Result<(), EngineError> {
    if page.len() > MAX_PAGE_ENTRIES {
        return Err(EngineError::bad_value(format!(
            "a scenario carries at most {MAX_PAGE_ENTRIES} page entries"
        )));
    }
    for (name, value) in page {
        within("a page entry's name", name, MAX_FIELD_BYTES)?;
        within("a page entry's value", value, MAX_FIELD_BYTES)?;
    }
    Ok(())
}

/// A comparison's configurations and workload.
fn check_compare(spec: &crate::CompareSpec) -> Result<(), EngineError> {
    if spec.columns.is_empty() || spec.columns.len() > MAX_COLUMNS {
        return Err(EngineError::bad_value(format!(
            "a comparison has 1 to {MAX_COLUMNS} configurations"
        )));
    }
    if spec.ticks > MAX_COMPARE_TICKS || spec.batch == 0 || spec.batch > MAX_BATCH {
        return Err(EngineError::bad_value(format!(
            "a comparison runs at most {MAX_COMPARE_TICKS} commands of 1 to {MAX_BATCH} documents"
        )));
    }
    chunk_size(spec.chunk_size)?;
    within("the workload", &spec.workload, MAX_FIELD_BYTES)?;
    for c in &spec.columns {
        within("the shard key", &c.key, MAX_FIELD_BYTES)?;
        version(&c.version)?;
    }
    Ok(())
}

/// Most name/value pairs of the page's own state one link carries.
pub const MAX_PAGE_ENTRIES: usize = 64;

fn check_setup(s: &PageSetup) -> Result<(), EngineError> {
    if s.shards == 0 || s.shards > MAX_SHARDS {
        return Err(EngineError::bad_value(format!(
            "a cluster has 1 to {MAX_SHARDS} shards, not {}",
            s.shards
        )));
    }
    chunk_size(s.chunk_size)?;
    within("the shard key", &s.key, MAX_FIELD_BYTES)?;
    within("the namespace", &s.ns, MAX_FIELD_BYTES)?;
    version(&s.version)
}

fn check_workload(w: &WorkloadSpec) -> Result<(), EngineError> {
    if w.batch == 0 || w.batch > MAX_BATCH || w.total == 0 || w.total > MAX_TOTAL {
        return Err(EngineError::bad_value(format!(
            "a workload inserts 1 to {MAX_BATCH} documents a batch, up to a total of 1 to {MAX_TOTAL}"
        )));
    }
    within("the workload", &w.spec, MAX_FIELD_BYTES)
}

fn check_act(act: &Act) -> Result<(), EngineError> {
    match act {
        Act::Command { source } | Act::Auto { source } => {
            within("the source", source, MAX_SOURCE_BYTES)
        }
        Act::Batch { workload, .. } => check_workload(workload),
        Act::View { ns } => within("the namespace", ns, MAX_FIELD_BYTES),
        Act::Advance { commands, .. } if *commands == 0 || *commands > MAX_ADVANCE => Err(
            EngineError::bad_value(format!("an advance replays 1 to {MAX_ADVANCE} commands")),
        ),
        Act::PassTime { .. }
        | Act::Forward
        | Act::Back
        | Act::Jump { .. }
        | Act::Fork
        | Act::Advance { .. }
        | Act::Finish
        | Act::Look => Ok(()),
    }
}

/// Most events one `events` answer lists.
pub const MAX_EVENTS: usize = 100;

/// Most columns an import may choose types for.
const MAX_COLUMN_TYPES: usize = 1024;

/// An import's names within their bounds.
fn check_import_texts(
    file_name: &Option<String>,
    format: &Option<String>,
    sort_by: &Option<String>,
    column_types: &[crate::ColumnTypeChoice],
) -> Result<(), EngineError> {
    for (what, text) in [
        ("the file name", file_name),
        ("the format", format),
        ("the sort field", sort_by),
    ] {
        if let Some(text) = text {
            within(what, text, MAX_FIELD_BYTES)?;
        }
    }
    if column_types.len() > MAX_COLUMN_TYPES {
        return Err(EngineError::bad_value(format!(
            "types were chosen for {} columns: at most {MAX_COLUMN_TYPES} can be",
            column_types.len()
        )));
    }
    for choice in column_types {
        within("a column's name", &choice.name, MAX_FIELD_BYTES)?;
        within("a column's type", &choice.spec, MAX_FIELD_BYTES)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_has_room_up_to_three_quarters_and_is_kept_up_to_the_limit() {
        assert_eq!(scenario_room(0), Room::Ample);
        assert_eq!(scenario_room(MAX_SCENARIO_BYTES / 4 * 3 - 1), Room::Ample);
        assert_eq!(scenario_room(MAX_SCENARIO_BYTES / 4 * 3), Room::Nearly);
        assert_eq!(scenario_room(MAX_SCENARIO_BYTES), Room::Nearly);
        assert_eq!(scenario_room(MAX_SCENARIO_BYTES + 1), Room::Over);
    }
}
