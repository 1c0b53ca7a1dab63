//! MongoDB's query language over documents: filters, update operators, sort and
//! projection, and the regex engine behind `$regex`. Imports only the layers below.
//!
//! One file each: [`filter`] parses and matches filters, [`update`] applies update
//! operators, [`sort`] and [`projection`] shape what `find` returns, [`regex`] is the
//! matcher behind `$regex` (with [`case_fold`] for its `i` flag), and [`path`] holds the
//! limits on dotted paths they share.

pub(crate) mod case_fold;
pub(crate) mod filter;
pub(crate) mod path;
pub(crate) mod projection;
pub(crate) mod regex;
pub(crate) mod sort;
pub(crate) mod update;

pub use filter::matches;
pub use projection::project;
pub use regex::Regex;
pub use sort::sort_documents;
pub use update::{apply_update, apply_update_for_insert};
