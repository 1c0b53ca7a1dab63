//! One stable sort for the whole crate.
//!
//! The standard library's sorts are instantiated once per element type and comparator, and
//! each copy is several kilobytes of code: in the playground's wasm, twenty of them weighed
//! about 70 KB. Here one small merge sort runs on positions, with the comparator behind
//! `dyn`; the slice is then put in that order in place. Equal elements keep their relative
//! order, so the result is the standard stable sort's (even its one instance cost 3.5 KB).

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

/// Sorts positions stably: insertion sort within runs of [`RUN`], then bottom-up merges of
/// runs, a tie always taken from the left run.
#[inline(never)]
fn sort_positions(order: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    let n = order.len();
    for start in (0..n).step_by(RUN) {
        for i in start + 1..(start + RUN).min(n) {
            let mut j = i;
            while j > start && compare(order[j - 1], order[j]) == Ordering::Greater {
                order.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut from = order.to_vec();
    let mut to = vec![0; n];
    let mut width = RUN;
    while width < n {
        for lo in (0..n).step_by(2 * width) {
            let (mid, hi) = ((lo + width).min(n), (lo + 2 * width).min(n));
            let (mut i, mut j) = (lo, mid);
            for slot in &mut to[lo..hi] {
                // The right run's element goes first only if strictly smaller.
                if j < hi && (i >= mid || compare(from[j], from[i]) == Ordering::Less) {
                    *slot = from[j];
                    j += 1;
                } else {
                    *slot = from[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    order.copy_from_slice(&from);
}

/// The length of the runs sorted by insertion before merging.
const RUN: usize = 16;

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
    use crate::support::rng::SplitMix64;

    /// Agrees with the standard stable sort on random slices with many ties.
    #[test]
    fn agrees_with_the_standard_stable_sort() {
        let mut rng = SplitMix64::new(7);
        for len in [0usize, 1, 2, 3, 10, 16, 17, 31, 33, 100, 1000, 4097] {
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
