//! The core's integration tests: one binary, one module per area.

mod skeleton;
mod hash;
mod order;
mod shard_key;
mod shell_parse;
mod shell_print;
