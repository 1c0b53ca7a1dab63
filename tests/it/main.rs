//! The core's integration tests: one binary, one module per area.

mod analyze;
mod engine;
mod hash;
mod order;
mod query;
mod shard_key;
mod shell_parse;
mod shell_print;
mod skeleton;
mod targeting;
mod workload;
