//! The core's integration tests: one binary, one module per area.

mod analyze;
mod cli;
mod clock;
mod compare;
mod config_db;
mod engine;
mod engine_props;
#[cfg(feature = "insight")]
mod explain;
mod fidelity_commands;
mod fidelity_commands2;
mod fidelity_output;
mod fidelity_round3;
mod glue_round3;
mod hash;
mod i18n_catalogues;
mod indexes;
mod layers;
mod order;
mod page_model;
mod query;
mod reliability;
mod robustness3;
mod scenario;
mod shard_key;
mod shell_js;
mod shell_parse;
mod shell_print;
mod skeleton;
mod source_pages;
mod targeting;
mod throughput;
mod timeline;
mod transcripts;
mod web_layers;
mod workload;
