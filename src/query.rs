//! MongoDB's query language over documents: filters, update operators, sort and
//! projection, and the regex engine behind `$regex`. Imports only the layers below.

pub(crate) mod case_fold;
pub(crate) mod filter;
pub use filter::{apply_update, apply_update_for_insert, matches, project, sort_documents, Regex};
