//! The mongosh-compatible interpreter: runs scripts against a cluster and returns one
//! outcome per statement, printed the way mongosh prints it. `sh.` helpers, `db.<coll>.`
//! methods, `adminCommand` and the `sim.` helpers each have a file.

mod admin;
mod aggregate;
mod clock;
mod collection;
mod config_db;
mod databases;
mod find_and_modify;
#[cfg(feature = "insight")]
mod insight;
pub(crate) mod interpreter;
mod sampling;
mod sh;
mod sim;
pub(crate) mod status;

pub use crate::values::inspect::data_format;
pub use aggregate::sharded_data_distribution;
pub use interpreter::{Outcome, Output, Session};
pub use sh::has_command;
