//! A real cluster's sharding metadata into a session (`importCluster`): the config
//! exports read as the CLI's `import-cluster` reads them (`workload::MetadataReader`, then
//! `workload::assemble`), and the session made a new one of the metadata's era whose steps
//! are the import's: `sim.loadCluster(...)`, then one `sim.replayChange(...)` a changelog
//! entry, so that a view's timeline scrubs through the replay.
//!
//! A file whose text is what `sh.status({verbose: true})` printed (mongosh's or the legacy
//! shell's, known by its text whatever its name, `workload::is_status_printout`) is read
//! alone by `workload::read_status_printout`: it is the whole cluster, so a printout with
//! config exports or a second printout is refused.
//!
//! The import is all or nothing: the new timeline is built beside the session's and takes
//! its place only once every step ran, so a refused import leaves the session as it was.

use crate::held::{Held, PageState};
use shardlab::sim::Timeline;
use shardlab::workload::{
    assemble, is_status_printout, read_status_printout, ClusterImport, MetadataCollection,
    MetadataReader, METADATA_COLLECTIONS,
};
use shardlab::ClusterConfig;
use shardlab_protocol::{ClusterImported, EngineError, MetadataFile, Position, SkippedChanges};

/// The slices a file's text is read in, as the CLI reads a file through its buffer.
const SLICE: usize = 1 << 20;

/// The collection a file holds, by its name, or the error naming the file.
fn collection_of(name: &str) -> Result<MetadataCollection, EngineError> {
    MetadataCollection::from_file_name(name).ok_or_else(|| {
        let names: Vec<&str> = METADATA_COLLECTIONS.iter().map(|c| c.name()).collect();
        EngineError::bad_value(format!(
            "{}: not a config collection's export: name each file for its collection ({}), as in chunks.json, config.chunks.json or chunks.bson.json",
            name.chars().take(256).collect::<String>(),
            names.join(", ")
        ))
    })
}

/// Reads the files and makes `held` the session whose cluster they describe, or says why
/// not and leaves `held` alone.
pub fn import_cluster(
    held: &mut Held,
    files: Vec<MetadataFile>,
) -> Result<ClusterImported, EngineError> {
    if held.page.as_ref().is_some_and(|p| p.replay.is_some()) {
        return Err(EngineError::bad_value(
            "a replay is under way: advance or finish it first",
        ));
    }
    let metadata = |e: shardlab::workload::MetadataError| EngineError::bad_value(e.to_string());
    let short = |name: &str| name.chars().take(256).collect::<String>();
    let (printouts, exports): (Vec<&MetadataFile>, Vec<&MetadataFile>) = files
        .iter()
        .partition(|f| is_status_printout(f.text.as_bytes()));
    let import = match (printouts.as_slice(), exports.first()) {
        ([p], None) => {
            let printout = read_status_printout(&p.name, p.text.as_bytes()).map_err(metadata)?;
            printout.assemble().map_err(metadata)?
        }
        ([p, q, ..], _) => {
            return Err(EngineError::bad_value(format!(
                "{} and {} are both sh.status() printouts: import one",
                short(&p.name),
                short(&q.name)
            )))
        }
        ([p], Some(e)) => {
            return Err(EngineError::bad_value(format!(
                "{} is a sh.status() printout and {} a config export: the two cannot be mixed, import one of them",
                short(&p.name),
                short(&e.name)
            )))
        }
        ([], _) => read_exports(&exports)?,
    };
    install(held, import)
}

/// The config exports read as the CLI reads them.
fn read_exports(files: &[&MetadataFile]) -> Result<ClusterImport, EngineError> {
    let mut named = files
        .iter()
        .map(|f| collection_of(&f.name).map(|c| (c, *f)))
        .collect::<Result<Vec<_>, _>>()?;
    // In the order the CLI reads them (shards first), whatever order they came in; two
    // files of one collection are refused by the reader, naming both.
    named.sort_by_key(|(c, _)| *c);
    let metadata = |e: shardlab::workload::MetadataError| EngineError::bad_value(e.to_string());
    let mut reader = MetadataReader::new();
    for (collection, file) in &named {
        // A text is never gzipped (a view inflates a `.gz` file before it sends its
        // text), so the reader is not told to inflate it.
        let name = file.name.strip_suffix(".gz").unwrap_or(&file.name);
        reader.begin(*collection, name).map_err(metadata)?;
        for slice in file.text.as_bytes().chunks(SLICE) {
            reader.push(slice).map_err(metadata)?;
        }
        reader.end().map_err(metadata)?;
    }
    assemble(&reader.finish().map_err(metadata)?).map_err(metadata)
}

/// Makes `held` the session of `import`'s steps, or says why not and leaves it alone.
fn install(held: &mut Held, import: ClusterImport) -> Result<ClusterImported, EngineError> {
    // A new session of the metadata's era, as the CLI opens one: the metadata holds no
    // chunk size or seed, so the era's defaults stand.
    let config = ClusterConfig {
        version: import.version,
        ..ClusterConfig::default()
    };
    let mut next = Held::new(Timeline::with_options(config, held.timeline.options()));
    for step in &import.steps {
        if let Some(e) = next.push(step).into_iter().find_map(|o| o.result.err()) {
            return Err(EngineError {
                code: e.code,
                code_name: e.name().to_string(),
                message: e.message,
            });
        }
    }
    let mut ns: Vec<String> = import
        .image
        .collections
        .iter()
        .map(|c| c.ns.clone())
        .collect();
    ns.sort();
    // A playground session shows the first collection of the user's (not `config.`'s).
    next.page = held.page.as_ref().map(|_| {
        let shown = ns
            .iter()
            .find(|n| !n.starts_with("config."))
            .or(ns.first())
            .cloned();
        PageState {
            picked: shown.clone(),
            ns: shown.unwrap_or_default(),
            ..PageState::default()
        }
    });
    *held = next;
    Ok(ClusterImported {
        position: Position {
            position: held.timeline.position(),
            length: held.timeline.len(),
        },
        ns,
        version: import.version.label().to_string(),
        replayed: import.replayed,
        skipped: import
            .skipped
            .into_iter()
            .map(|s| SkippedChanges {
                what: s.what,
                count: s.count,
                reason: s.reason,
            })
            .collect(),
        steps: import.steps.len() as u64,
    })
}
