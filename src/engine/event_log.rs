//! The cluster's event log, stored in shared segments so that copying a cluster (a
//! timeline snapshot) does not copy its history.
//!
//! The log is append-only. Events go to an open tail; [`EventLog::seal`] turns a tail of at
//! least [`SEGMENT`] events into an immutable, reference-counted segment. A clone copies
//! the segment pointers and the open tail only. Sealing happens only when the owner asks
//! (the timeline, between steps), so the events of the step just run are always one
//! contiguous slice of the tail ([`EventLog::open_since`]).

use crate::engine::events::{Event, EventKind};
use std::iter::{Chain, FlatMap};
use std::rc::Rc;
use std::slice;

/// The fewest events [`EventLog::seal`] turns into a segment.
pub const SEGMENT: usize = 256;

/// The event log: sealed shared segments, then an open tail.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    sealed: Vec<Rc<[Event]>>,
    sealed_len: usize,
    tail: Vec<Event>,
}

/// An iterator over the log's events, oldest first (double-ended).
pub type Iter<'a> = Chain<
    FlatMap<slice::Iter<'a, Rc<[Event]>>, &'a [Event], fn(&'a Rc<[Event]>) -> &'a [Event]>,
    slice::Iter<'a, Event>,
>;

fn segment(s: &Rc<[Event]>) -> &[Event] {
    s
}

impl EventLog {
    /// The number of events.
    pub fn len(&self) -> usize {
        self.sealed_len + self.tail.len()
    }

    /// Whether the log is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every event, oldest first.
    pub fn iter(&self) -> Iter<'_> {
        let f: fn(&Rc<[Event]>) -> &[Event] = segment;
        self.sealed.iter().flat_map(f).chain(self.tail.iter())
    }

    /// The events from index `start` on, oldest first.
    pub fn since(&self, start: usize) -> impl Iterator<Item = &Event> {
        // Skip whole segments rather than event by event.
        let mut skipped = 0;
        let mut first = self.sealed.len();
        for (i, s) in self.sealed.iter().enumerate() {
            if skipped + s.len() > start {
                first = i;
                break;
            }
            skipped += s.len();
        }
        let f: fn(&Rc<[Event]>) -> &[Event] = segment;
        self.sealed[first..]
            .iter()
            .flat_map(f)
            .chain(self.tail.iter())
            .skip(start.saturating_sub(skipped))
    }

    /// The event at `index`.
    pub fn get(&self, index: usize) -> Option<&Event> {
        if index >= self.sealed_len {
            return self.tail.get(index - self.sealed_len);
        }
        let mut offset = 0;
        for s in &self.sealed {
            if index < offset + s.len() {
                return s.get(index - offset);
            }
            offset += s.len();
        }
        None
    }

    /// The newest event.
    pub fn last(&self) -> Option<&Event> {
        self.tail
            .last()
            .or_else(|| self.sealed.last().and_then(|s| s.last()))
    }

    /// The events from index `start` on when they are all in the open tail (always the
    /// case for the events since the last [`EventLog::seal`]).
    pub fn open_since(&self, start: usize) -> Option<&[Event]> {
        let from = start.checked_sub(self.sealed_len)?;
        self.tail.get(from.min(self.tail.len())..)
    }

    /// Appends an event with the next sequence number, at simulated time `at_ms`.
    pub(crate) fn push(&mut self, kind: EventKind, at_ms: i64) {
        let seq = self.len() as u64 + 1;
        self.tail.push(Event { seq, at_ms, kind });
    }

    /// Turns the open tail into a shared segment if it holds at least [`SEGMENT`] events.
    pub fn seal(&mut self) {
        if self.tail.len() >= SEGMENT {
            self.sealed_len += self.tail.len();
            self.sealed.push(Rc::from(std::mem::take(&mut self.tail)));
        }
    }

    /// The number of events that `other` does not share with `self` (all of them without
    /// `other`): the open tail and the segments `other` lacks.
    pub(crate) fn unshared_events(&self, other: Option<&EventLog>) -> usize {
        let theirs = crate::support::ptr_set::PtrSet::new(
            other
                .into_iter()
                .flat_map(|o| o.sealed.iter().map(Rc::as_ptr)),
        );
        let segments: usize = self
            .sealed
            .iter()
            .filter(|s| !theirs.contains(Rc::as_ptr(s)))
            .map(|s| s.len())
            .sum();
        segments + self.tail.len()
    }

    /// The number of sealed segments, for memory estimates.
    pub(crate) fn segment_count(&self) -> usize {
        self.sealed.len()
    }
}

impl<'a> IntoIterator for &'a EventLog {
    type Item = &'a Event;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
