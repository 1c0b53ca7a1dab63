//! The crate's sorts, and [`PtrSet`].
//!
//! The sorts are the standard library's stable sorts, named once here so that every call
//! site reads the same (an earlier merge sort of our own, written to save the wasm a few
//! instantiations, is gone: the standard library does this).

use std::cmp::Ordering;

/// Sorts `v` with `compare`, stably.
pub(crate) fn sort_by<T>(v: &mut [T], compare: impl FnMut(&T, &T) -> Ordering) {
    v.sort_by(compare);
}

/// Sorts `v` by the key `f` gives each element, stably.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], f: impl FnMut(&T) -> K) {
    v.sort_by_key(f);
}

/// Sorts `v` in ascending order, stably.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    v.sort();
}

/// A set of addresses, for telling which shared pieces two snapshots have in common:
/// sorted once, then searched. (A `HashSet` per pointer type would add a hash table
/// instantiation for each to the wasm.)
pub(crate) struct PtrSet(Vec<usize>);

impl PtrSet {
    /// The set of the given addresses.
    pub(crate) fn new<T: ?Sized>(pointers: impl IntoIterator<Item = *const T>) -> PtrSet {
        let mut v: Vec<usize> = pointers
            .into_iter()
            .map(|p| p.cast::<()>() as usize)
            .collect();
        sort(&mut v);
        PtrSet(v)
    }

    /// Whether `p` is in the set.
    pub(crate) fn contains<T: ?Sized>(&self, p: *const T) -> bool {
        self.0.binary_search(&(p.cast::<()>() as usize)).is_ok()
    }
}
