//! MongoDB's query language over documents: filters, update operators, sort and
//! projection, and the regex engine behind `$regex`. Imports only the layers below.
//!
//! One file each: `filter.rs` parses and matches filters, `update.rs` applies update
//! operators, `sort.rs` and `projection.rs` shape what `find` returns, `pipeline.rs` runs
//! the aggregation stages learners use, `regex.rs` is `$regex` (PCRE's syntax through the
//! `fancy-regex` crate, bounded), and `path.rs` holds
//! the limits on dotted paths they share.

pub(crate) mod filter;
pub(crate) mod path;
pub(crate) mod pipeline;
pub(crate) mod projection;
pub(crate) mod regex;
pub(crate) mod sort;
pub(crate) mod update;

pub use filter::{distinct_values, explain_form, matches, not_as_nor};
pub use pipeline::run_pipeline;
pub use projection::project;
#[cfg(feature = "lazy-regex")]
pub use regex::install_compiler;
pub use regex::{compiler_ready, fancy_compile, Compiler, Matcher, Regex};
pub use sort::{sort_documents, sort_order, sort_value};
pub use update::{apply_update, apply_update_for_insert, upsert_document};
