//! The engine's answers that a first visit does not ask for before its first answer: the
//! imports (documents and a real cluster's metadata), the ranking of candidate shard keys,
//! the Compare's run, the export as a mongosh script, and the panels' answers (`events`,
//! `heat`, `page.insights`, `inspect`, `page.workloadFit`), which the page asks for once it
//! has loaded, after the first answer.
//!
//! The service reaches them only through [`later`]. In the browser's module in parts
//! (feature `split`, wasm32) they are not named here at all: the second part installs
//! them when it loads (`rest.rs`, `install`), so that their code and everything only it
//! reaches (the file readers, gzip, the ranking's reports) is not in the first download;
//! until it has, a request that needs them fails with [`not_loaded`]'s error before it
//! does anything (a panel's, which only reads, the worker runs once the part is in while
//! the requests after it go on: see `service::Handled::reads_only`). Everywhere else they
//! are plain calls.

use crate::held::Held;
use shardlab::Cluster;
use shardlab_protocol::{
    Call, ClusterImported, CompareRow, CompareSpec, EngineError, ImportCall, ImportProgress,
    MetadataFile, RankSpec, RankView, Reply,
};

/// The answers this module holds, as functions.
#[derive(Clone, Copy)]
pub struct Later {
    /// One request of an import of documents (`import`).
    pub import: fn(&mut Held, ImportCall) -> Result<ImportProgress, EngineError>,
    /// An import of a real cluster's metadata (`importCluster`).
    pub import_cluster: fn(&mut Held, Vec<MetadataFile>) -> Result<ClusterImported, EngineError>,
    /// Candidate shard keys ranked (`rank`).
    pub rank: fn(&Cluster, u64, &RankSpec) -> Result<RankView, EngineError>,
    /// A Compare's run (`compare`).
    pub compare: fn(&CompareSpec) -> Result<Vec<CompareRow>, EngineError>,
    /// The session as a mongosh script (`export`).
    pub export: fn(&Held) -> Result<Reply, EngineError>,
    /// A panel's answer (`events`, `heat`, `page.insights`, `inspect`, `page.workloadFit`).
    pub panels: fn(&Held, Call) -> Result<Reply, EngineError>,
}

#[cfg(not(all(target_arch = "wasm32", feature = "split")))]
const WHOLE: Later = Later {
    import: crate::import::import,
    import_cluster: crate::cluster_import::import_cluster,
    rank: crate::rank::rank,
    compare: crate::comparison::run,
    export: crate::export::export,
    panels: crate::panels::answer,
};

#[cfg(all(target_arch = "wasm32", feature = "split"))]
static INSTALLED: shardlab::support::part::Later<Later> = shardlab::support::part::Later::new();

/// Installs the answers (the browser's second part does, as it loads; the first
/// installed stay). Each is an argument rather than a field of a constant, so that the
/// first part names none of them.
#[cfg(all(target_arch = "wasm32", feature = "split"))]
#[inline(never)]
pub fn install(
    import: fn(&mut Held, ImportCall) -> Result<ImportProgress, EngineError>,
    import_cluster: fn(&mut Held, Vec<MetadataFile>) -> Result<ClusterImported, EngineError>,
    rank: fn(&Cluster, u64, &RankSpec) -> Result<RankView, EngineError>,
    compare: fn(&CompareSpec) -> Result<Vec<CompareRow>, EngineError>,
    export: fn(&Held) -> Result<Reply, EngineError>,
    panels: fn(&Held, Call) -> Result<Reply, EngineError>,
) {
    INSTALLED.install(Later {
        import,
        import_cluster,
        rank,
        compare,
        export,
        panels,
    });
}

/// Whether the answers are there: always, but in the browser's module in parts only once
/// its second part has loaded.
pub fn installed() -> bool {
    #[cfg(all(target_arch = "wasm32", feature = "split"))]
    return INSTALLED.ready();
    #[cfg(not(all(target_arch = "wasm32", feature = "split")))]
    true
}

/// Whether the engine's second part has loaded: always, but in the browser's module in
/// parts only once it has installed these answers and what it installs in the core (all
/// in one function, `rest.rs`'s `install`).
pub fn part_loaded() -> bool {
    installed() && shardlab::query::compiler_ready()
}

/// The answers, or, where they load separately and have not loaded, the error of the
/// request `method` that needs them: raised before it does anything.
pub fn later(method: &str) -> Result<Later, EngineError> {
    #[cfg(all(target_arch = "wasm32", feature = "split"))]
    {
        if let Some(later) = INSTALLED.get() {
            return Ok(later);
        }
        let failure = shardlab::support::part::failure();
        Err(not_loaded(method, failure.as_deref()))
    }
    #[cfg(not(all(target_arch = "wasm32", feature = "split")))]
    {
        let _ = method;
        Ok(WHOLE)
    }
}

/// The error of a request `method` whose part of the engine has not loaded, with the
/// reason it could not, when it tried: `InternalError`, as a statement's
/// (`ClusterError::PartNotLoaded`).
pub fn not_loaded(method: &str, why: Option<&str>) -> EngineError {
    let message = match why {
        Some(why) => format!(
            "`{method}` needs a part of the engine that could not load ({why}): it did not \
             run, and the next request that needs it tries again"
        ),
        None => {
            format!("`{method}` needs a part of the engine that has not loaded yet: it did not run")
        }
    };
    EngineError {
        code: 1,
        code_name: "InternalError".into(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_not_loaded_says_which_request_and_why() {
        let e = not_loaded("importCluster", Some("HTTP status 404"));
        assert_eq!((e.code, e.code_name.as_str()), (1, "InternalError"));
        assert!(e.message.contains("`importCluster`"), "{}", e.message);
        assert!(e.message.contains("(HTTP status 404)"), "{}", e.message);
        assert!(e.message.contains("tries again"), "{}", e.message);
        let e = not_loaded("rank", None);
        assert!(e.message.contains("has not loaded yet"), "{}", e.message);
    }
}
