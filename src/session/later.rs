//! The shell's commands a first visit does not run: the `sim.` helpers, `sh.` helpers and
//! admin commands named in [`LATER_SIM`], [`LATER_SH`] and [`LATER_ADMIN`], the collection
//! methods of [`LaterCall::Collection`], the config database's own answers, aggregation
//! (`aggregate` on a collection or a database, with the pipeline's stages) and
//! JavaScript's `toUpperCase` and `toLowerCase` (Unicode's case tables).
//!
//! The session reaches them only through `Session::later`, which runs them through
//! [`run`]. With
//! the `lazy-shell` feature the core does not name [`run`] itself: the browser's engine
//! installs it ([`crate::session::install_shell_part`]) from the part of its module that
//! loads after the first answer, so that their code, and everything only they reach, is not
//! in the first download. Until it has, such a statement fails before it does anything
//! (`ClusterError::PartNotLoaded`), and the engine, seeing the part wanted, loads it and
//! runs the request again (see `crate::support::part`). Everywhere else `Session::later`
//! calls [`run`] directly. This file names none of the files that call it: what it runs
//! are methods of the session, defined beside their kind's other commands.

use super::interpreter::{Output, Session, StatementError};
use crate::shell::parser::Segment;
use crate::shell::Expr;
use bson::{Bson, Document};

/// The `sim.` helpers that load later, run by `Session::later_sim` (`sim.rs`).
pub(super) const LATER_SIM: &[&str] = &[
    "reset",
    "clock",
    "queries",
    "preset",
    "presets",
    "events",
    "loadCluster",
    "replayChange",
    #[cfg(feature = "insight")]
    "explain",
    #[cfg(feature = "insight")]
    "chunkDocs",
];

/// The `sh.` helpers that load later, run by `Session::later_sh` (`sh.rs`).
pub(super) const LATER_SH: &[&str] = &[
    "addShard",
    "listShards",
    "moveRange",
    "balancerCollectionStatus",
    "reshardCollection",
    "getShardedDataDistribution",
];

/// The admin commands that load later, run by `Session::later_admin` (`admin.rs`).
pub(super) const LATER_ADMIN: &[&str] = &[
    "refineCollectionShardKey",
    "reshardCollection",
    "mergeChunks",
    "clearJumboFlag",
    "moveRange",
    "balancerCollectionStatus",
    "configureCollectionBalancing",
    "_hashBSONElement",
    "addShard",
    "removeShard",
    "movePrimary",
    "listShards",
    "configureQueryAnalyzer",
    "mergeAllChunksOnShard",
    "analyzeShardKey",
];

/// A command that loads later, with what it needs.
pub(super) enum LaterCall<'a> {
    /// `sim.<name>(args)`, one of [`LATER_SIM`].
    Sim(&'a str, &'a [Expr]),
    /// `sh.<name>(args)`, one of [`LATER_SH`].
    Sh(&'a str, &'a [Expr]),
    /// An admin command named `name`, one of [`LATER_ADMIN`].
    Admin(&'a Document, &'a str),
    /// A method called on a collection of the config database (`ns`), with what is
    /// chained after it; `None` when the config database answers it as any collection.
    Config(&'a str, &'a [Segment]),
    /// `aggregate(args)` on collection `ns`, with what is chained after it.
    Aggregate(&'a str, &'a [Expr], &'a [Segment]),
    /// `db.aggregate(args)`, with what is chained after it.
    DbAggregate(&'a [Expr], &'a [Segment]),
    /// A collection method (`ns`, the method's name, its arguments) a first visit does not
    /// run: `findAndModify` and its `findOneAnd…` forms, `analyzeShardKey`,
    /// `configureQueryAnalyzer`, the indexes, `getShardDistribution`, `distinct`, `stats`.
    Collection(&'a str, &'a str, &'a [Expr]),
    /// JavaScript's `toUpperCase` (`true`) or `toLowerCase` of a string: Unicode's case
    /// tables, which nothing else in a first visit reads.
    Case(&'a str, bool),
}

/// Runs one [`LaterCall`]: each called directly, so that what only they reach is in the
/// part that installs this function. `None` when a config collection's method is not one
/// the config database answers itself.
fn run(s: &mut Session, call: LaterCall) -> Option<Result<Output, StatementError>> {
    // Methods, each defined beside its kind's other commands.
    Some(match call {
        LaterCall::Sim(name, args) => s.later_sim(name, args)?.map(Output::Value),
        LaterCall::Sh(name, args) => s.later_sh(name, args)?,
        LaterCall::Admin(cmd, name) => s.later_admin(cmd, name)?,
        LaterCall::Config(ns, rest) => s.config_chain(ns, rest)?,
        LaterCall::Aggregate(ns, args, chained) => s.collection_aggregate(ns, args, chained),
        LaterCall::DbAggregate(args, chained) => s.db_aggregate(args, chained),
        LaterCall::Collection(ns, name, args) => s.later_collection_method(ns, name, args)?,
        LaterCall::Case(text, upper) => Ok(Output::Value(Bson::String(match upper {
            true => text.to_uppercase(),
            false => text.to_lowercase(),
        }))),
    })
}

/// What runs a [`LaterCall`].
type Runner = fn(&mut Session, LaterCall) -> Option<Result<Output, StatementError>>;

#[cfg(feature = "lazy-shell")]
static RUNNER: crate::support::part::Later<Runner> = crate::support::part::Later::new();

/// Installs [`run`] (the browser's engine does, from its second part).
#[cfg(feature = "lazy-shell")]
#[inline(never)]
pub(super) fn install() {
    RUNNER.install(run);
}

impl Session {
    /// Runs `call`, or, with `lazy-shell` before [`run`] is installed, fails with the
    /// statement's error (`ClusterError::PartNotLoaded`, naming `what`) before doing
    /// anything.
    pub(super) fn later(
        &mut self,
        what: &str,
        call: LaterCall,
    ) -> Option<Result<Output, StatementError>> {
        #[cfg(feature = "lazy-shell")]
        let runner: Runner = match RUNNER.get() {
            Some(runner) => runner,
            None => return Some(Err(crate::query::regex::part_not_loaded(what, "it").into())),
        };
        #[cfg(not(feature = "lazy-shell"))]
        let runner: Runner = {
            let _ = what;
            run
        };
        runner(self, call)
    }

    /// `db.aggregate(args)`, with what is chained after it.
    pub(super) fn later_db_aggregate(
        &mut self,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let call = LaterCall::DbAggregate(args, chained);
        self.later("aggregation", call)
            .unwrap_or(Ok(Output::Nothing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cluster::ClusterConfig;

    // The lists say which names go to `run`: each must be one `run` answers (with its
    // own error, for these empty calls), or the name would answer "not a function".
    #[test]
    fn every_command_named_here_is_one_run_answers() {
        let mut s = Session::new(ClusterConfig::default());
        for name in LATER_SIM {
            assert!(s.later_sim(name, &[]).is_some(), "sim.{name}");
        }
        for name in LATER_SH {
            assert!(s.later_sh(name, &[]).is_some(), "sh.{name}");
        }
        for name in LATER_ADMIN {
            let cmd = bson::doc! { *name: 1 };
            assert!(s.later_admin(&cmd, name).is_some(), "{name}");
        }
        assert!(
            s.later_sim("version", &[]).is_none(),
            "a first visit's helper"
        );
        assert!(
            s.later_sh("status", &[]).is_none(),
            "a first visit's helper"
        );
    }
}
