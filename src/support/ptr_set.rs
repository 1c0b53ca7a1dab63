//! [`PtrSet`]: a set of addresses, sorted once and then searched.

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
        v.sort_unstable();
        PtrSet(v)
    }

    /// Whether `p` is in the set.
    pub(crate) fn contains<T: ?Sized>(&self, p: *const T) -> bool {
        self.0.binary_search(&(p.cast::<()>() as usize)).is_ok()
    }
}
