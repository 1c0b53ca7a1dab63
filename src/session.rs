//! The mongosh-compatible interpreter: runs scripts against a cluster and returns one
//! outcome per statement, printed the way mongosh prints it. `sh.` helpers, `db.<coll>.`
//! methods, `adminCommand` and the `sim.` helpers each have a file.

mod admin;
mod aggregate;
mod clock;
mod collection;
mod config_db;
mod cursor;
mod databases;
mod find_and_modify;
mod help;
mod idl_commands;
mod importing;
mod insert_tally;
#[cfg(feature = "insight")]
mod insight;
pub(crate) mod interpreter;
mod js_eval;
mod js_methods;
mod js_places;
mod js_values;
mod later;
mod sampling;
pub(crate) mod script;
mod script_state;
mod sh;
mod sim;
mod sim_log;
mod stats;
pub(crate) mod status;

pub use crate::values::inspect::data_format;
#[cfg(feature = "lazy-analyze")]
pub use admin::install_analyzer;
pub use admin::Analyzer;
pub use aggregate::sharded_data_distribution;
pub use cursor::{DISPLAY_BATCH_SIZE, NO_CURSOR};
pub use databases::format_bytes;
pub use importing::{batch_results, BatchResult};
pub use insert_tally::{InsertCall, InsertTally};
#[cfg(feature = "lazy-explain")]
pub use insight::install_explainer;
#[cfg(feature = "insight")]
pub use insight::{explainer, Explainer};
pub use interpreter::{Outcome, Output, Session, TYPE_IT_FOR_MORE};
pub use script::{MAX_CALL_DEPTH, MAX_STEPS, STACK_BUDGET};
pub use sh::{has_command, wrong_arg_type};
pub use sim_log::SimCall;

/// Installs what the core's `lazy-shell` feature leaves out of its first part: the shell's
/// commands a first visit does not run (the browser's engine calls it from the second
/// part of its module, `web/engine/src/rest.rs`; see ARCHITECTURE.md, "The engine in two
/// parts"). Until it has, a statement that needs one fails before it does anything, and
/// the engine, seeing the part wanted (`support::part::take_wanted`), runs its request
/// again once the part has loaded.
#[cfg(feature = "lazy-shell")]
pub fn install_shell_part() {
    later::install();
}
