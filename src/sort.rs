//! One stable sort for the whole crate.
//!
//! The standard library's sorts are instantiated once per element type and comparator, and
//! each copy is several kilobytes of code: in the playground's wasm, twenty of them weighed
//! about 70 KB. Here the standard sort runs once, on positions, with the comparator behind
//! `dyn`; the slice is then put in that order in place. The order is the standard stable
//! sort's, so equal elements keep their relative order.

use std::cmp::Ordering;

/// Sorts `v` with `compare`, stably.
pub(crate) fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_positions(&mut order, &mut |a, b| compare(&v[a], &v[b]));
    permute(v, order);
}

/// Sorts `v` by the key `f` gives each element, stably.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v` in ascending order, stably.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The one instantiation of the standard sort.
#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

/// Rearranges `v` so that position `i` holds what was at `order[i]`, following each cycle
/// of the permutation with swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start || from == at {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Agrees with the standard stable sort on random slices with many ties.
    #[test]
    fn agrees_with_the_standard_stable_sort() {
        let mut rng = SplitMix64::new(7);
        for len in [0usize, 1, 2, 3, 10, 100, 1000] {
            let v: Vec<(u64, usize)> = (0..len).map(|i| (rng.next_u64() % 13, i)).collect();
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std = v.clone();
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "length {len}");
            let mut all = v.clone();
            sort(&mut all);
            let mut std_all = v;
            std_all.sort();
            assert_eq!(all, std_all);
        }
    }
}
