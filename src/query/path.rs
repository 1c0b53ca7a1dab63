//! Dotted paths as the query language limits and reads them: the most parts a path may
//! have, and a part read as an array position. Filters, updates, sorts and projections
//! all walk paths with their own rules for arrays (see each file); these are the rules
//! they share.

use crate::values::error::ClusterError;

/// The most parts a dotted path may have. Paths are walked recursively, so this
/// bounds the stack a hostile path can use.
pub(super) const MAX_PATH_PARTS: usize = 200;

/// Refuses a dotted path with more than [`MAX_PATH_PARTS`] parts.
pub(super) fn check_path_length(path: &str) -> Result<(), ClusterError> {
    if path.split('.').count() > MAX_PATH_PARTS {
        return Err(ClusterError::BadValue(format!(
            "the path '{path}' has more than {MAX_PATH_PARTS} parts"
        )));
    }
    Ok(())
}

/// A path part read as an array position: plain decimal digits only.
pub(super) fn array_index(part: &str) -> Option<usize> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    part.parse().ok()
}
