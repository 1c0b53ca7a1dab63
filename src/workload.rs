//! What drives a simulated cluster: seeded document and query generators, and the
//! lessons' preset scenarios as shell commands. Imports only the layers below.

pub(crate) mod generate;
pub mod presets;

pub use generate::{generate, generate_queries, preset, preset_names, CONTINENTS};
