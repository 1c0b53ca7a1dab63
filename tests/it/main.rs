//! The core's integration tests: one binary, one module per area.

mod analyze;
mod case_fold_table;
mod cli;
mod compare;
mod engine;
mod engine_props;
#[cfg(feature = "insight")]
mod explain;
mod fidelity_commands;
mod fidelity_output;
mod hash;
mod layers;
mod order;
mod page_model;
mod query;
mod reliability;
mod scenario;
mod shard_key;
mod shell_js;
mod shell_parse;
mod shell_print;
mod skeleton;
mod targeting;
mod throughput;
mod timeline;
mod workload;
