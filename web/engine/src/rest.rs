//! The second part of the browser's engine (feature `split`, wasm32 only): what the first
//! answers do not need, split from the module by `wasm-split-cli` at the `#[wasm_split]`
//! function below and loaded on first use or right after the first answer
//! (`web/engine/js/worker.js`). It holds `$regex`'s matcher (the `fancy-regex` and
//! `regex-automata` code and the Unicode tables behind it, installed into the core by
//! `shardlab::query::install_compiler`), `analyzeShardKey`'s analysis
//! (`shardlab::session::install_analyzer`), the explanations of a chunk, a shard and a
//! balancer round (`shardlab::session::install_explainer`) and the answers of `crate::later` (the imports,
//! the ranking of candidate keys, the Compare's run, the export, the panels' answers,
//! installed by `later::install`):
//! what a first visit does not run (ARCHITECTURE.md, "The engine in two parts").
//!
//! The attribute expands to an import that the splitter rewrites and an `extern "C"`
//! export: code the macro writes, hence the `unsafe_code` allowance on this module only.

use wasm_split_helpers::{wasm_split, SplitLoaderError};

/// The part did not load (the browser console has the loader's reason).
#[derive(Debug)]
pub struct NotLoaded;

impl From<SplitLoaderError> for NotLoaded {
    fn from(_: SplitLoaderError) -> Self {
        NotLoaded
    }
}

/// Runs in the second part: everything only it names moves there with it.
#[wasm_split(rest, fallible)]
fn install() -> Result<(), NotLoaded> {
    shardlab::query::install_compiler(shardlab::query::fancy_compile);
    shardlab::session::install_analyzer(shardlab::engine::analyze_shard_key_with);
    shardlab::session::install_explainer(
        shardlab::Cluster::explain_chunk,
        shardlab::Cluster::explain_shard,
        shardlab::Cluster::explain_round,
    );
    shardlab::session::install_shell_part();
    crate::later::install(
        crate::import::import,
        crate::cluster_import::import_cluster,
        crate::rank::rank,
        crate::comparison::run,
        crate::export::export,
        crate::panels::answer,
    );
    Ok(())
}

/// Loads the second part (once; a failed load is tried again on the next call) and
/// installs what it holds.
pub async fn load() -> Result<(), NotLoaded> {
    install().await
}

/// Whether the second part has loaded.
pub fn loaded() -> bool {
    crate::later::part_loaded()
}

/// Records why the part could not load (`Some`): the statements that need it say so,
/// until it is forgotten (`None`).
pub fn failed(why: Option<String>) {
    shardlab::support::part::failed(why);
}
