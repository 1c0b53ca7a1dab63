//! An ordered map whose clones share their storage, for the timeline's snapshots.
//!
//! A [`SharedMap`] is a sorted run of small leaves (sorted vectors of at most
//! [`LEAF_MAX`] entries), each behind an `Rc`. Cloning the map copies only the list of
//! leaf pointers, one pointer per [`LEAF_MAX`]`/2` to [`LEAF_MAX`] entries; a write copies
//! the one leaf it touches if another clone still shares it (`Rc::make_mut`). So a
//! snapshot of a collection costs a few bytes per document, and the snapshots of a
//! timeline together cost what changed between them rather than a copy of everything.
//!
//! It offers the subset of `BTreeMap` that the cluster needs, with the same ordering and
//! iteration order, so that replacing one by the other changes no behaviour. The core is
//! single-threaded (wasm32), so `Rc` suffices.

use std::cmp::Ordering::{Greater, Less};
use std::ops::{Bound, RangeBounds};
use std::rc::Rc;

/// The most entries in a leaf; a fuller leaf splits into two halves.
pub(crate) const LEAF_MAX: usize = 32;

/// A position in the map: a leaf index and an offset within that leaf.
type Pos = (usize, usize);

/// Where an absent key goes, from [`SharedMap::vacant`]: valid for that key until the map
/// next changes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Vacant(Option<(usize, usize)>);

/// An ordered map with cheap, structure-sharing clones (see the module documentation).
#[derive(Debug)]
pub(crate) struct SharedMap<K, V> {
    /// Non-empty sorted leaves; every key of a leaf is below every key of the next.
    leaves: Vec<Rc<Vec<(K, V)>>>,
    /// The first key of each leaf, so that finding a leaf searches one contiguous vector
    /// rather than chasing a pointer per step (shared between clones until one writes).
    firsts: Rc<Vec<K>>,
    len: usize,
}

impl<K, V> Clone for SharedMap<K, V> {
    fn clone(&self) -> Self {
        SharedMap {
            leaves: self.leaves.clone(),
            firsts: Rc::clone(&self.firsts),
            len: self.len,
        }
    }
}

impl<K, V> Default for SharedMap<K, V> {
    fn default() -> Self {
        SharedMap {
            leaves: Vec::new(),
            firsts: Rc::new(Vec::new()),
            len: 0,
        }
    }
}

impl<K: Ord + Clone, V: Clone> SharedMap<K, V> {
    /// An empty map.
    pub(crate) fn new() -> Self {
        SharedMap::default()
    }

    /// A map from entries already in strictly increasing key order (a `BTreeMap`'s).
    pub(crate) fn from_sorted(entries: impl IntoIterator<Item = (K, V)>) -> Self {
        let mut map = SharedMap::new();
        let mut leaf = Vec::with_capacity(LEAF_MAX);
        for e in entries {
            leaf.push(e);
            if leaf.len() == LEAF_MAX * 3 / 4 {
                map.len += leaf.len();
                Rc::make_mut(&mut map.firsts).push(leaf[0].0.clone());
                map.leaves.push(Rc::new(std::mem::take(&mut leaf)));
            }
        }
        if !leaf.is_empty() {
            map.len += leaf.len();
            Rc::make_mut(&mut map.firsts).push(leaf[0].0.clone());
            map.leaves.push(Rc::new(leaf));
        }
        map
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no entries.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every entry.
    pub(crate) fn clear(&mut self) {
        self.leaves.clear();
        self.firsts = Rc::new(Vec::new());
        self.len = 0;
    }

    /// The number of leaves, for memory estimates.
    pub(crate) fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// The leaves of `self` that `other` does not share (all of them without `other`):
    /// what a snapshot holds beyond the previous one.
    pub(crate) fn unshared_leaves<'a>(
        &'a self,
        other: Option<&SharedMap<K, V>>,
    ) -> impl Iterator<Item = &'a [(K, V)]> + 'a {
        let theirs = crate::support::ptr_set::PtrSet::new(
            other
                .into_iter()
                .flat_map(|o| o.leaves.iter().map(Rc::as_ptr)),
        );
        self.leaves
            .iter()
            .filter(move |l| !theirs.contains(Rc::as_ptr(l)))
            .map(|l| l.as_slice())
    }

    /// The leaf that holds `key` if any leaf does: the last leaf starting at or before it.
    #[inline]
    fn leaf_for(&self, key: &K) -> usize {
        // Appends (increasing keys: ObjectIds, timestamps) go to the last leaf; checking it
        // first saves a binary search that chases a pointer per step.
        // Keys are compared with `cmp` alone: `<=` on a tuple key may compare its first
        // element twice.
        let last = self.firsts.len().saturating_sub(1);
        if self
            .firsts
            .get(last)
            .is_some_and(|first| first.cmp(key) != Greater)
        {
            return last;
        }
        self.firsts
            .partition_point(|first| first.cmp(key) != Greater)
            .saturating_sub(1)
    }

    /// Where `key` is or would be inserted.
    #[inline]
    fn find(&self, key: &K) -> Option<(usize, Result<usize, usize>)> {
        let last = self.leaves.last()?;
        // An append (a key above every other: increasing ObjectIds, timestamps, insertion
        // numbers) is told by one comparison with the last entry.
        if last.last().is_some_and(|e| e.0.cmp(key) == Less) {
            return Some((self.leaves.len() - 1, Err(last.len())));
        }
        let i = self.leaf_for(key);
        Some((i, self.leaves[i].binary_search_by(|e| e.0.cmp(key))))
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        match self.find(key)? {
            (i, Ok(j)) => Some(&self.leaves[i][j].1),
            _ => None,
        }
    }

    /// The stored entry of `key`: its own copy of the key, and its value.
    pub(crate) fn get_key_value(&self, key: &K) -> Option<(&K, &V)> {
        match self.find(key)? {
            (i, Ok(j)) => {
                let (k, v) = &self.leaves[i][j];
                Some((k, v))
            }
            _ => None,
        }
    }

    /// Whether `key` has a value.
    pub(crate) fn contains_key(&self, key: &K) -> bool {
        self.get(key).is_some()
    }

    /// Inserts or replaces; returns the value replaced.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Some((i, Ok(j))) => Some(std::mem::replace(
                &mut Rc::make_mut(&mut self.leaves[i])[j].1,
                value,
            )),
            Some((i, Err(j))) => {
                self.insert_vacant(Vacant(Some((i, j))), key, value);
                None
            }
            None => {
                self.insert_vacant(Vacant(None), key, value);
                None
            }
        }
    }

    /// Where `key` would go if it is absent (`None` if it has a value), so that a caller
    /// can check other things before inserting it with [`SharedMap::insert_vacant`] without
    /// searching twice.
    pub(crate) fn vacant(&self, key: &K) -> Option<Vacant> {
        match self.find(key) {
            Some((_, Ok(_))) => None,
            Some((i, Err(j))) => Some(Vacant(Some((i, j)))),
            None => Some(Vacant(None)),
        }
    }

    /// Inserts `key`, absent, where [`SharedMap::vacant`] found for it (the map must not
    /// have changed since).
    pub(crate) fn insert_vacant(&mut self, at: Vacant, key: K, value: V) {
        let Vacant(Some((i, j))) = at else {
            let mut leaf = Vec::with_capacity(LEAF_MAX + 1);
            self.firsts = Rc::new(vec![key.clone()]);
            leaf.push((key, value));
            self.leaves.push(Rc::new(leaf));
            self.len = 1;
            return;
        };
        let leaf = Rc::make_mut(&mut self.leaves[i]);
        if j == 0 {
            Rc::make_mut(&mut self.firsts)[i] = key.clone();
        }
        leaf.insert(j, (key, value));
        self.len += 1;
        if leaf.len() > LEAF_MAX {
            // An append leaves the full leaf as it is and starts a new one, so that
            // increasing keys fill their leaves; otherwise the leaf splits in half.
            let mid = if j == LEAF_MAX {
                LEAF_MAX
            } else {
                leaf.len() / 2
            };
            let mut right = Vec::with_capacity(LEAF_MAX + 1);
            right.extend(leaf.drain(mid..));
            Rc::make_mut(&mut self.firsts).insert(i + 1, right[0].0.clone());
            self.leaves.insert(i + 1, Rc::new(right));
        }
    }

    /// The stored key equal to `key`: the entry's own copy, with whatever it carries
    /// beyond what orders it.
    pub(crate) fn get_key(&self, key: &K) -> Option<&K> {
        match self.find(key)? {
            (i, Ok(j)) => Some(&self.leaves[i][j].0),
            _ => None,
        }
    }

    /// Changes the stored key equal to `key` with `f`, which must leave its order as it is
    /// (it may change what the key carries beyond that). Returns whether the key was there.
    pub(crate) fn update_key(&mut self, key: &K, f: impl FnOnce(&mut K)) -> bool {
        let Some((i, Ok(j))) = self.find(key) else {
            return false;
        };
        // The index of first keys is only searched, so its copy of the key can stay as
        // it was: it orders the same.
        f(&mut Rc::make_mut(&mut self.leaves[i])[j].0);
        true
    }

    /// Gives the entry of `old` the key `new`, in place, if its entry passes `keep` and
    /// `new` sorts where `old` is (strictly between its neighbours, so that no other entry
    /// has it). Returns whether it did; otherwise nothing changes. One search instead of
    /// the four of a removal and an insertion.
    pub(crate) fn rekey_in_place(
        &mut self,
        old: &K,
        new: K,
        keep: impl FnOnce(&K, &V) -> bool,
    ) -> bool {
        let Some((i, Ok(j))) = self.find(old) else {
            return false;
        };
        let leaf = &self.leaves[i];
        if !keep(&leaf[j].0, &leaf[j].1) {
            return false;
        }
        let prev = match j.checked_sub(1) {
            Some(p) => leaf.get(p),
            None => i.checked_sub(1).and_then(|p| self.leaves[p].last()),
        };
        let next = match leaf.get(j + 1) {
            Some(n) => Some(n),
            None => self.leaves.get(i + 1).and_then(|l| l.first()),
        };
        if prev.is_some_and(|p| p.0.cmp(&new) != Less)
            || next.is_some_and(|n| n.0.cmp(&new) != Greater)
        {
            return false;
        }
        if j == 0 {
            Rc::make_mut(&mut self.firsts)[i] = new.clone();
        }
        Rc::make_mut(&mut self.leaves[i])[j].0 = new;
        true
    }

    /// Removes `key`; returns its value.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let (i, Ok(j)) = self.find(key)? else {
            return None;
        };
        let leaf = Rc::make_mut(&mut self.leaves[i]);
        let (_, v) = leaf.remove(j);
        self.len -= 1;
        if leaf.is_empty() {
            self.leaves.remove(i);
            Rc::make_mut(&mut self.firsts).remove(i);
        } else if j == 0 {
            Rc::make_mut(&mut self.firsts)[i] = leaf[0].0.clone();
        }
        Some(v)
    }

    /// The first position whose key is within `bound` taken as a lower bound.
    fn lower(&self, bound: Bound<&K>) -> Pos {
        match bound {
            Bound::Unbounded => (0, 0),
            Bound::Included(k) => {
                let i = self.leaf_for(k);
                (i, self.leaves[i].partition_point(|e| e.0.cmp(k) == Less))
            }
            Bound::Excluded(k) => {
                let i = self.leaf_for(k);
                (i, self.leaves[i].partition_point(|e| e.0.cmp(k) != Greater))
            }
        }
    }

    /// The first position past `bound` taken as an upper bound.
    fn upper(&self, bound: Bound<&K>) -> Pos {
        match bound {
            Bound::Unbounded => (self.leaves.len(), 0),
            Bound::Included(k) => {
                let i = self.leaf_for(k);
                (i, self.leaves[i].partition_point(|e| e.0.cmp(k) != Greater))
            }
            Bound::Excluded(k) => {
                let i = self.leaf_for(k);
                (i, self.leaves[i].partition_point(|e| e.0.cmp(k) == Less))
            }
        }
    }

    /// The entries with keys in `range`, in key order.
    pub(crate) fn range<R: RangeBounds<K>>(&self, range: R) -> Iter<'_, K, V> {
        if self.leaves.is_empty() {
            return self.iter();
        }
        Iter {
            leaves: &self.leaves,
            front: self.lower(range.start_bound()),
            back: self.upper(range.end_bound()),
        }
    }
}

impl<K, V> SharedMap<K, V> {
    /// Every entry in key order.
    pub(crate) fn iter(&self) -> Iter<'_, K, V> {
        Iter {
            leaves: &self.leaves,
            front: (0, 0),
            back: (self.leaves.len(), 0),
        }
    }

    /// Every value in key order.
    pub(crate) fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

impl<'a, K, V> IntoIterator for &'a SharedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// An iterator over a [`SharedMap`]'s entries between two positions.
#[derive(Debug, Clone)]
pub(crate) struct Iter<'a, K, V> {
    leaves: &'a [Rc<Vec<(K, V)>>],
    /// The next entry from the front.
    front: Pos,
    /// One past the next entry from the back.
    back: Pos,
}

impl<'a, K, V> Iter<'a, K, V> {
    /// The entries left, with positional access ([`Slices::get`]) instead of iteration.
    pub(crate) fn slices(&self) -> Slices<'a, K, V> {
        let mut parts = Vec::new();
        let mut ends = Vec::new();
        let mut total = 0;
        let ((i, j), (k, l)) = (self.front, self.back);
        if (i, j) < (k, l) {
            for leaf in i..=k.min(self.leaves.len().saturating_sub(1)) {
                let entries = self.leaves[leaf].as_slice();
                let from = if leaf == i { j } else { 0 };
                let to = if leaf == k { l } else { entries.len() };
                if let Some(part) = entries.get(from..to).filter(|p| !p.is_empty()) {
                    total += part.len();
                    parts.push(part);
                    ends.push(total);
                }
            }
        }
        Slices { parts, ends }
    }
}

/// A run of consecutive entries of a [`SharedMap`], by position: the pieces of leaves it
/// spans, so that reading the `i`th entry costs a search over the pieces rather than a
/// walk over the entries before it.
#[derive(Debug, Clone)]
pub(crate) struct Slices<'a, K, V> {
    parts: Vec<&'a [(K, V)]>,
    /// The number of entries up to the end of each part.
    ends: Vec<usize>,
}

impl<'a, K, V> Slices<'a, K, V> {
    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// The entry at position `i` (`None` past the end).
    pub(crate) fn get(&self, i: usize) -> Option<&'a (K, V)> {
        let p = self.ends.partition_point(|&end| end <= i);
        let before = p.checked_sub(1).map_or(0, |q| self.ends[q]);
        self.parts.get(p)?.get(i - before)
    }
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        while self.front < self.back {
            let leaf = &self.leaves[self.front.0];
            if let Some((k, v)) = leaf.get(self.front.1) {
                self.front.1 += 1;
                return Some((k, v));
            }
            self.front = (self.front.0 + 1, 0);
        }
        None
    }

    /// Exact, from the leaves' lengths (one addition per leaf between the two ends), so
    /// that collecting a range allocates once.
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {
    fn len(&self) -> usize {
        let ((i, j), (k, l)) = (self.front, self.back);
        if (i, j) >= (k, l) {
            return 0;
        }
        // Every entry of leaves `i..k`, less the `j` before the front, plus the `l` of leaf
        // `k` before the back (`k` may be one past the last leaf, with `l` = 0).
        let whole: usize = self.leaves[i..k].iter().map(|leaf| leaf.len()).sum();
        whole + l - j
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        while self.front < self.back {
            if self.back.1 == 0 {
                let prev = self.back.0 - 1;
                self.back = (prev, self.leaves[prev].len());
                continue;
            }
            self.back.1 -= 1;
            let (k, v) = &self.leaves[self.back.0][self.back.1];
            return Some((k, v));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Random inserts, removals and range queries agree with a `BTreeMap`, and a clone
    /// taken midway keeps its own contents.
    #[test]
    fn agrees_with_btreemap() {
        let mut rng = crate::support::rng::SplitMix64::new(3);
        let mut map = SharedMap::new();
        let mut model = BTreeMap::new();
        let mut frozen = None;
        for step in 0..20_000u64 {
            let k = rng.below(3_000);
            if rng.below(4) == 0 {
                assert_eq!(map.remove(&k), model.remove(&k));
            } else {
                assert_eq!(map.insert(k, step), model.insert(k, step));
            }
            if step == 10_000 {
                frozen = Some((map.clone(), model.clone()));
            }
            if step % 97 == 0 {
                let (a, b) = (rng.below(3_100), rng.below(3_100));
                let (lo, hi) = (a.min(b), a.max(b));
                let got: Vec<_> = map.range(lo..hi).collect();
                let want: Vec<_> = model.range(lo..hi).collect();
                assert_eq!(got, want);
                assert_eq!(map.range(lo..hi).len(), want.len());
                let mut it = map.range(lo..=hi);
                let mut left = model.range(lo..=hi).count();
                while left > 0 {
                    assert_eq!(it.len(), left);
                    it.next();
                    it.next_back();
                    left = left.saturating_sub(2);
                }
                assert_eq!(it.len(), 0);
                let got: Vec<_> = map.range(lo..=hi).rev().collect();
                let want: Vec<_> = model.range(lo..=hi).rev().collect();
                assert_eq!(got, want);
                assert_eq!(map.len(), model.len());
                // The index of first keys follows the leaves.
                assert!(map.firsts.iter().eq(map.leaves.iter().map(|l| &l[0].0)));
            }
        }
        assert!(map.iter().eq(model.iter()));
        let (map, model) = frozen.unwrap_or_default();
        assert!(map.iter().eq(model.iter()));
        let rebuilt = SharedMap::from_sorted(model.clone());
        assert!(rebuilt.iter().eq(model.iter()));
        assert_eq!(rebuilt.len(), model.len());
    }

    /// A range read by position holds the range's entries, in order, whatever leaves it
    /// starts and ends in.
    #[test]
    fn slices_read_a_range_by_position() {
        let mut rng = crate::support::rng::SplitMix64::new(5);
        let mut map = SharedMap::new();
        for _ in 0..3_000 {
            let k = rng.below(5_000);
            map.insert(k, k * 2);
        }
        for _ in 0..500 {
            let (a, b) = (rng.below(5_200), rng.below(5_200));
            let (lo, hi) = (a.min(b), a.max(b));
            let want: Vec<_> = map.range(lo..hi).collect();
            let slices = map.range(lo..hi).slices();
            assert_eq!(slices.len(), want.len());
            let got: Vec<_> = (0..slices.len())
                .filter_map(|i| slices.get(i).map(|(k, v)| (k, v)))
                .collect();
            assert_eq!(got, want);
            assert!(slices.get(slices.len()).is_none());
            // Part of a range, once its ends have been read.
            let mut it = map.range(lo..hi);
            it.next();
            it.next_back();
            let rest: Vec<_> = it.clone().collect();
            let part = it.slices();
            assert!((0..part.len())
                .filter_map(|i| part.get(i))
                .map(|(k, v)| (k, v))
                .eq(rest));
        }
    }

    /// Re-keying in place agrees with a `BTreeMap` model: it happens exactly when the old
    /// key is there, its value passes, and no other key lies between the old and the new.
    #[test]
    fn rekey_in_place_agrees_with_btreemap() {
        let mut rng = crate::support::rng::SplitMix64::new(11);
        let mut map = SharedMap::new();
        let mut model = BTreeMap::new();
        for step in 0..30_000u64 {
            let k = rng.below(4_000);
            match rng.below(3) {
                0 => {
                    let new = if rng.below(2) == 0 {
                        k + 1
                    } else {
                        k.saturating_sub(1)
                    };
                    let (lo, hi) = (k.min(new), k.max(new));
                    let others = model.range(lo..=hi).filter(|(x, _)| **x != k).count();
                    let expected = model.get(&k).is_some_and(|v| v % 2 == 0) && others == 0;
                    assert_eq!(
                        map.rekey_in_place(&k, new, |_, v| v % 2 == 0),
                        expected,
                        "{k} -> {new}"
                    );
                    if expected {
                        let v = model.remove(&k).unwrap_or_default();
                        model.insert(new, v);
                    }
                }
                _ => {
                    assert_eq!(map.insert(k, step), model.insert(k, step));
                }
            }
            if step % 211 == 0 {
                assert!(map.iter().eq(model.iter()));
                assert!(map.firsts.iter().eq(map.leaves.iter().map(|l| &l[0].0)));
            }
        }
        assert!(map.iter().eq(model.iter()));
    }
}
