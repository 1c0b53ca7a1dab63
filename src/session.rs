//! The mongosh-compatible interpreter: runs scripts against a cluster and returns one
//! outcome per statement, printed the way mongosh prints it. `sh.` helpers, `db.<coll>.`
//! methods, `adminCommand` and the `sim.` helpers each have a file.

mod admin;
mod collection;
pub(crate) mod interpreter;
mod sh;
pub(crate) mod status;

pub use interpreter::{Outcome, Output, Session};
pub use status::data_format;
