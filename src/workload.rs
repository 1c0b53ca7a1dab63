//! What drives a simulated cluster: seeded document and query generators, and the
//! lessons' preset scenarios as shell commands. Imports only the layers below.

pub(crate) mod generate;
pub mod presets;

pub use generate::{
    generate, generate_queries, key_fit, preset, preset_names, presets_fitting, spec_of,
    with_key_fields, KeyFit, Template, CONTINENTS,
};
