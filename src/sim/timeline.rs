//! Replay, step and fork over a list of shell commands.
//!
//! A [`Timeline`] is a cluster configuration plus the commands ("steps") typed so far and a
//! cursor. The state at any position is defined as "a new [`Session`] with the first `n`
//! steps run, one after another"; because the core is deterministic, that state can be
//! rebuilt at will, so the timeline keeps only some of them:
//!
//! - the session at the cursor;
//! - snapshots of the session at every multiple of the *spacing* (initially
//!   [`TimelineOptions::interval`], `K`).
//!
//! Moving the cursor to `n` starts from the nearest snapshot at or before `n` (or from the
//! cursor itself when it lies between that snapshot and `n`) and replays the steps in
//! between, so a jump replays fewer than `spacing` steps.
//!
//! **Snapshots share.** A session's documents, the leaves of its document stores and
//! `_id` indexes, and the sealed segments of its event log are reference counted, so a
//! snapshot copies pointers: about one pointer per 16 to 32 documents plus its own routing
//! table and recent-insert keys. What a snapshot adds over the one before it is only what
//! changed in between: the leaves written to since (up to 32 entries each), the documents
//! inserted since, and the events logged since. Restoring a snapshot is as cheap.
//!
//! **The memory bound.** Each snapshot is charged [`estimate_snapshot_bytes`]: what it
//! holds that the previous snapshot does not share. Every leaf, document and event segment
//! held by some snapshot is charged to at least one of them, so the sum of the charges
//! bounds what the snapshots hold together beyond the session at the cursor (it
//! over-counts what a snapshot shares with an earlier, non-adjacent one). Whenever there
//! are more than [`TimelineOptions::max_snapshots`] (`M`) snapshots, or the charges pass
//! [`TimelineOptions::snapshot_budget`], the spacing doubles and the snapshots that are not
//! on the new grid are dropped (their neighbours' charges are recomputed). The timeline
//! therefore holds at most `M` snapshots within the budget, plus the session at the cursor
//! ([`estimate_session_bytes`]), plus the text of the steps and eight bytes per step.
//!
//! With the defaults (`K = 128`, `M = 1,024`, a 512 MiB budget), 100,000 single-document
//! inserts with random keys settle at a spacing of 1,024: 97 snapshots charged 464 MiB,
//! measured at about 400 MiB resident beyond the 147 MiB session at the cursor. Random
//! keys are the worst case, since nearly every step copies a leaf of the store and one of
//! the index; monotonic keys touch one leaf per step and keep a denser grid.
//!
//! **The jump cost** is one copy of a snapshot (pointer copies: 0.5 ms at 100,000
//! documents) plus the replay of fewer than `spacing` steps (about 20 µs each for an
//! insert): a median of 18 ms and a 95th percentile of 40 ms over random jumps in that
//! history, against 133 ms and 231 ms when snapshots were deep copies 16,384 steps apart.

use crate::engine::cluster::{ClusterConfig, Footprint};
use crate::engine::events::Event;
use crate::session::interpreter::{Outcome, Session};
use crate::session::InsertTally;
#[cfg(feature = "insight")]
use crate::sim::heat::{HeatGrid, HeatLog, HeatOptions, HeatPattern};
use crate::sim::scenario::Scenario;
use crate::support::shared_map::LEAF_MAX;
use thiserror::Error;

/// Why the cursor could not move.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimelineError {
    /// The requested position is past the last step.
    #[error("position {requested} is past the end of the timeline ({len} steps)")]
    OutOfRange {
        /// The position asked for.
        requested: u64,
        /// The number of steps.
        len: u64,
    },
}

/// How densely a timeline keeps snapshots, and how much memory they may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineOptions {
    /// The initial snapshot spacing `K`, in steps (at least 1).
    pub interval: u64,
    /// The most snapshots kept at once, `M` (at least 1).
    pub max_snapshots: usize,
    /// The most memory the snapshots may take together, in estimated bytes
    /// (see [`estimate_session_bytes`]).
    pub snapshot_budget: u64,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        TimelineOptions {
            interval: 128,
            max_snapshots: 1024,
            snapshot_budget: 512 * 1024 * 1024,
        }
    }
}

/// What a timeline holds in memory, in estimated bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryEstimate {
    /// Number of snapshots kept.
    pub snapshots: u64,
    /// Their estimated size together.
    pub snapshot_bytes: u64,
    /// The estimated size of the session at the cursor.
    pub current_bytes: u64,
    /// The steps' text and per-step bookkeeping.
    pub steps_bytes: u64,
}

impl MemoryEstimate {
    /// Everything together.
    pub fn total(&self) -> u64 {
        self.snapshot_bytes + self.current_bytes + self.steps_bytes
    }
}

/// A saved session at a step boundary.
#[derive(Debug, Clone)]
struct Snapshot {
    position: u64,
    /// What it holds beyond the previous snapshot ([`estimate_snapshot_bytes`]).
    bytes: u64,
    session: Session,
}

/// A list of commands with a cursor, snapshots and deterministic replay.
#[derive(Debug, Clone)]
pub struct Timeline {
    config: ClusterConfig,
    options: TimelineOptions,
    steps: Vec<String>,
    /// For each step, how many events the log held before it ran (0 after a `sim.reset`
    /// inside the step), so that the step's own events can be shown.
    event_starts: Vec<u64>,
    position: u64,
    current: Session,
    /// Snapshots in increasing position, all on multiples of `spacing`, none at 0 (a new
    /// session is cheaper to make than to copy).
    snapshots: Vec<Snapshot>,
    spacing: u64,
    /// Where each step's inserts landed in the key space (recorded as steps are pushed;
    /// a step's record does not depend on the cursor).
    #[cfg(feature = "insight")]
    heat: HeatLog,
    /// Counts every change of the steps or of the session at the cursor, so that a
    /// [`StagedStep`] can tell whether the timeline it was staged on is still as it was.
    revision: u64,
}

/// A step run ahead on a copy of the session at the cursor, a few statements at a time
/// ([`StagedStep::run`]), that becomes the timeline's next step at once
/// ([`Timeline::push_staged`]). An import of many documents runs so: between its batches
/// the engine can say how far it got, and until it is pushed the timeline, and whatever
/// else reads it, sees nothing of it. Running a step's statements in several calls does
/// what running them in one does, since a session keeps nothing per call, only per
/// statement; so a later replay of the step's text rebuilds the same session.
#[derive(Debug, Clone)]
pub struct StagedStep {
    session: Session,
    text: String,
    /// The timeline's revision the copy was taken at.
    revision: u64,
    events_before: u64,
    #[cfg(feature = "insight")]
    heat_before: crate::sim::heat::Before,
}

impl StagedStep {
    /// Runs statements as the next part of the step, after what ran before (the step's
    /// text gains them on a line of their own), tallying what each `insertMany` did.
    pub fn run(&mut self, statements: &str) -> Vec<Outcome> {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(statements);
        self.session.run(statements)
    }

    /// The step's text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The session as the step has left it so far.
    pub fn session(&self) -> &Session {
        &self.session
    }
}

impl Timeline {
    /// An empty timeline on a new cluster, with the default options.
    pub fn new(config: ClusterConfig) -> Self {
        Timeline::with_options(config, TimelineOptions::default())
    }

    /// An empty timeline with explicit snapshot options (zeros are raised to one).
    pub fn with_options(config: ClusterConfig, options: TimelineOptions) -> Self {
        let options = TimelineOptions {
            interval: options.interval.max(1),
            max_snapshots: options.max_snapshots.max(1),
            snapshot_budget: options.snapshot_budget,
        };
        Timeline {
            current: Session::new(config.clone()),
            config,
            spacing: options.interval,
            options,
            steps: Vec::new(),
            event_starts: Vec::new(),
            position: 0,
            snapshots: Vec::new(),
            #[cfg(feature = "insight")]
            heat: HeatLog::default(),
            revision: 0,
        }
    }

    /// A timeline holding a scenario's commands, with the cursor at its position.
    pub fn from_scenario(scenario: &Scenario) -> Self {
        Timeline::from_scenario_with_options(scenario, TimelineOptions::default())
    }

    /// [`Timeline::from_scenario`] with explicit snapshot options.
    pub fn from_scenario_with_options(scenario: &Scenario, options: TimelineOptions) -> Self {
        let mut timeline = Timeline::with_options(scenario.config(), options);
        for command in &scenario.commands {
            timeline.push(command);
        }
        // The position was clamped to the commands there are, so the jump cannot fail.
        let _ = timeline.jump(scenario.applied() as u64);
        timeline
    }

    /// The scenario to share: settings, every step, and the cursor when it is not at the end.
    pub fn to_scenario(&self) -> Scenario {
        let position = (self.position < self.len()).then_some(self.position);
        Scenario::from_config(&self.config, self.steps.clone(), position)
    }

    /// The configuration the timeline starts from.
    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    /// The snapshot options.
    pub fn options(&self) -> TimelineOptions {
        self.options
    }

    /// The number of steps.
    pub fn len(&self) -> u64 {
        self.steps.len() as u64
    }

    /// Whether there are no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The cursor: how many steps the current session has run.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Whether the cursor is after the last step.
    pub fn at_end(&self) -> bool {
        self.position == self.len()
    }

    /// The steps, in order.
    pub fn steps(&self) -> &[String] {
        &self.steps
    }

    /// The session at the cursor.
    pub fn session(&self) -> &Session {
        &self.current
    }

    /// The current snapshot spacing: a jump replays fewer steps than this.
    pub fn snapshot_spacing(&self) -> u64 {
        self.spacing
    }

    /// The positions that have a snapshot, in order (position 0 needs none).
    pub fn snapshot_positions(&self) -> Vec<u64> {
        self.snapshots.iter().map(|s| s.position).collect()
    }

    /// The events of the step that led to the cursor (none at position 0).
    pub fn events_at(&self) -> &[Event] {
        let events = self.current.cluster.events();
        let Some(idx) = self.position.checked_sub(1) else {
            return &[];
        };
        let start = self.event_starts.get(idx as usize).copied().unwrap_or(0);
        let start = usize::try_from(start)
            .unwrap_or(usize::MAX)
            .min(events.len());
        // The log is sealed only between steps, so a step's events are in its open tail.
        events.open_since(start).unwrap_or(&[])
    }

    /// Runs a command as a new step at the cursor and moves the cursor past it. When the
    /// cursor is not at the end, the steps after it are discarded first (a fork).
    pub fn push(&mut self, command: &str) -> Vec<Outcome> {
        self.push_with(command, false).0
    }

    /// Runs a command as a new step as [`Timeline::push`] does, and answers what each
    /// `insertMany` in it did, document by document: an import's step
    /// (`workload::import_step`) says so which of its lines went in. A replay of the step
    /// does the same again; the tally is taken only now.
    pub fn push_tallied(&mut self, command: &str) -> (Vec<Outcome>, InsertTally) {
        self.push_with(command, true)
    }

    /// A step to run ahead on a copy of the session at the cursor (see [`StagedStep`]).
    pub fn stage(&self) -> StagedStep {
        let mut session = self.current.clone();
        session.cluster.seal_events();
        let events_before = session.cluster.events().len() as u64;
        #[cfg(feature = "insight")]
        let heat_before = HeatLog::before(&session);
        session.start_insert_tally();
        StagedStep {
            session,
            text: String::new(),
            revision: self.revision,
            events_before,
            #[cfg(feature = "insight")]
            heat_before,
        }
    }

    /// Makes a staged step the next step at the cursor, as [`Timeline::push_tallied`]
    /// would have run it, and answers what each of its `insertMany`s did. When the
    /// timeline has changed since the step was staged, its text runs again here on the
    /// session at the cursor, so the step is what its text does wherever it lands.
    pub fn push_staged(&mut self, staged: StagedStep) -> InsertTally {
        if staged.revision != self.revision {
            return self.push_tallied(&staged.text).1;
        }
        if !self.at_end() {
            self.fork();
        }
        let StagedStep {
            mut session,
            text,
            events_before,
            #[cfg(feature = "insight")]
            heat_before,
            ..
        } = staged;
        let tallied = session.take_insert_tally();
        let after = session.cluster.events().len() as u64;
        self.current = session;
        self.steps.push(text);
        #[cfg(feature = "insight")]
        self.heat
            .record(self.steps.len() as u64, heat_before, &self.current);
        self.event_starts.push(if after >= events_before {
            events_before
        } else {
            0
        });
        self.position += 1;
        self.revision += 1;
        self.maybe_snapshot();
        tallied
    }

    fn push_with(&mut self, command: &str, tally: bool) -> (Vec<Outcome>, InsertTally) {
        self.revision += 1;
        if !self.at_end() {
            self.fork();
        }
        self.current.cluster.seal_events();
        let before = self.current.cluster.events().len() as u64;
        #[cfg(feature = "insight")]
        let heat_before = HeatLog::before(&self.current);
        if tally {
            self.current.start_insert_tally();
        }
        let outcomes = self.current.run(command);
        let tallied = self.current.take_insert_tally();
        let after = self.current.cluster.events().len() as u64;
        self.steps.push(command.to_string());
        #[cfg(feature = "insight")]
        self.heat
            .record(self.steps.len() as u64, heat_before, &self.current);
        self.event_starts
            .push(if after >= before { before } else { 0 });
        self.position += 1;
        self.maybe_snapshot();
        (outcomes, tallied)
    }

    /// Runs a script as one step per statement. A script that does not parse is pushed as
    /// one step, so its syntax error is shown and replays the same way.
    pub fn push_script(&mut self, script: &str) -> Vec<Outcome> {
        let pieces: Vec<String> = match crate::shell::parse_script(script) {
            Ok(parsed) if parsed.statements.len() > 1 => parsed
                .statements
                .iter()
                .filter_map(|s| script.get(s.span.start as usize..s.span.end as usize))
                .map(str::to_string)
                .collect(),
            _ => vec![script.to_string()],
        };
        let mut outcomes = Vec::new();
        for piece in &pieces {
            outcomes.extend(self.push(piece));
        }
        outcomes
    }

    /// Moves the cursor one step forward; `false` at the end.
    pub fn step_forward(&mut self) -> bool {
        if self.at_end() {
            return false;
        }
        self.replay_to(self.position + 1);
        true
    }

    /// Moves the cursor one step back; `false` at the start.
    pub fn step_back(&mut self) -> bool {
        match self.position.checked_sub(1) {
            Some(n) => {
                self.replay_to(n);
                true
            }
            None => false,
        }
    }

    /// Moves the cursor to position `n` (0 is the new cluster, [`Timeline::len`] the end).
    pub fn jump(&mut self, n: u64) -> Result<(), TimelineError> {
        if n > self.len() {
            return Err(TimelineError::OutOfRange {
                requested: n,
                len: self.len(),
            });
        }
        self.replay_to(n);
        Ok(())
    }

    /// Discards the steps after the cursor, so that the next push starts a new branch.
    pub fn fork(&mut self) {
        self.revision += 1;
        let keep = self.position as usize;
        self.steps.truncate(keep);
        self.event_starts.truncate(keep);
        #[cfg(feature = "insight")]
        self.heat.truncate(keep as u64);
        self.snapshots.retain(|s| s.position <= self.position);
        // A shorter timeline may afford a denser grid again; the missing snapshots are
        // taken as replays pass their positions.
        while self.spacing > self.options.interval
            && self.len() / (self.spacing / 2) <= self.options.max_snapshots as u64
        {
            self.spacing /= 2;
        }
    }

    /// What the timeline holds in memory, estimated.
    pub fn memory_estimate(&self) -> MemoryEstimate {
        let steps_bytes: u64 = self
            .steps
            .iter()
            .map(|s| s.capacity() as u64 + std::mem::size_of::<String>() as u64 + 8)
            .sum::<u64>();
        #[cfg(feature = "insight")]
        let steps_bytes = steps_bytes + self.heat.kept_bytes();
        MemoryEstimate {
            snapshots: self.snapshots.len() as u64,
            snapshot_bytes: self.snapshots.iter().map(|s| s.bytes).sum(),
            current_bytes: estimate_session_bytes(&self.current),
            steps_bytes,
        }
    }

    /// Rebuilds the session at `n` (at most the length) from the best starting point.
    fn replay_to(&mut self, n: u64) {
        if n == self.position {
            return;
        }
        self.revision += 1;
        // The last snapshot at or before `n`; position 0 is a new session.
        let idx = self.snapshots.partition_point(|s| s.position <= n);
        let base = idx.checked_sub(1).and_then(|i| self.snapshots.get(i));
        let base_pos = base.map_or(0, |s| s.position);
        if !(base_pos..=n).contains(&self.position) {
            match base {
                Some(s) => {
                    self.current = s.session.clone();
                    self.position = s.position;
                }
                None => {
                    self.current = Session::new(self.config.clone());
                    self.position = 0;
                }
            }
        }
        while self.position < n {
            let Some(step) = self.steps.get(self.position as usize) else {
                break;
            };
            self.current.cluster.seal_events();
            self.current.run(step);
            self.position += 1;
            self.maybe_snapshot();
        }
    }

    /// Takes a snapshot when the cursor is on the grid and has none, then thins.
    fn maybe_snapshot(&mut self) {
        let p = self.position;
        if p == 0 || p % self.spacing != 0 {
            return;
        }
        let idx = self.snapshots.partition_point(|s| s.position < p);
        if self.snapshots.get(idx).is_some_and(|s| s.position == p) {
            return;
        }
        let previous = idx.checked_sub(1).map(|i| &self.snapshots[i].session);
        let bytes = estimate_snapshot_bytes(&self.current, previous);
        self.snapshots.insert(
            idx,
            Snapshot {
                position: p,
                bytes,
                session: self.current.clone(),
            },
        );
        // The next snapshot, if any, now follows this one.
        self.recharge(idx + 1);
        self.thin();
    }

    /// Recomputes the charge of the snapshot at `idx` against its predecessor.
    fn recharge(&mut self, idx: usize) {
        if idx >= self.snapshots.len() {
            return;
        }
        let previous = idx.checked_sub(1).map(|i| &self.snapshots[i].session);
        let bytes = estimate_snapshot_bytes(&self.snapshots[idx].session, previous);
        self.snapshots[idx].bytes = bytes;
    }

    /// Doubles the spacing until both limits hold.
    fn thin(&mut self) {
        loop {
            let total: u64 = self.snapshots.iter().map(|s| s.bytes).sum();
            if self.snapshots.len() <= self.options.max_snapshots
                && total <= self.options.snapshot_budget
            {
                return;
            }
            match self.spacing.checked_mul(2) {
                Some(s) => self.spacing = s,
                None => {
                    self.snapshots.clear();
                    return;
                }
            }
            let spacing = self.spacing;
            self.snapshots.retain(|s| s.position % spacing == 0);
            for i in 0..self.snapshots.len() {
                self.recharge(i);
            }
        }
    }
}

/// Heap bytes of a document beyond its BSON bytes: the allocation of its `Rc<[u8]>` (two
/// counts and the allocator's header). Documents are stored as raw BSON (`store.rs`).
const DOC_OVERHEAD: u64 = 32;
/// Heap bytes per BSON byte of a document: stored as its bytes, so one.
const DOC_BYTE_FACTOR: u64 = 1;
/// Heap bytes of a shard key value in the store: none for a number or an ObjectId (held
/// inline), a boxed `Bson` otherwise; this is the average of the two.
const KEY_HEAP: u64 = (std::mem::size_of::<bson::Bson>() as u64 + 16) / 2;
/// Bytes of a document store leaf: its `Rc` box and a vector of up to 33 entries.
const DOC_LEAF: u64 = 64
    + (LEAF_MAX as u64 + 1)
        * std::mem::size_of::<(
            (crate::engine::store::DocKey, u64),
            crate::engine::store::Stored,
        )>() as u64;
/// Bytes per leaf in a map's own index: the leaf pointer and the leaf's first key (a
/// document key and number, or an `_id` and shard), copied by a snapshot's first write.
const LEAF_INDEX: u64 = 8 + std::mem::size_of::<(crate::engine::store::DocKey, u64)>() as u64;
/// Bytes of an `_id` index leaf.
const ID_LEAF: u64 = 64
    + (LEAF_MAX as u64 + 1)
        * std::mem::size_of::<(crate::engine::store::IdSlot, crate::engine::store::DocAt)>() as u64;
/// Bytes per event in the log: an insert event holds a namespace and a per-shard list of
/// shard names and counts.
const EVENT_BYTES: u64 = 360;
/// Bytes per chunk in a routing table.
const CHUNK_BYTES: u64 = 256;
/// Bytes per recent-insert entry: a number and a compact shard key value.
const RECENT_BYTES: u64 =
    std::mem::size_of::<(u64, crate::engine::store::DocKey)>() as u64 + KEY_HEAP;
/// Everything else a session holds: shards, databases, variables.
const SESSION_BASE: u64 = 4096;

fn footprint_bytes(f: &Footprint, docs: u64, doc_bytes: u64) -> u64 {
    SESSION_BASE
        + f.leaf_pointers * LEAF_INDEX
        + f.doc_leaves * DOC_LEAF
        + f.doc_entries * KEY_HEAP
        + f.id_leaves * ID_LEAF
        + docs * DOC_OVERHEAD
        + doc_bytes * DOC_BYTE_FACTOR
        + f.chunks * CHUNK_BYTES
        + f.recent * RECENT_BYTES
        + f.segments * 16
        + f.events * EVENT_BYTES
}

/// An estimate of the heap a session holds on its own: documents, the stores and indexes
/// over them, chunks and the event log. It walks every document's size once.
pub fn estimate_session_bytes(session: &Session) -> u64 {
    let f = session.cluster.footprint(None);
    footprint_bytes(&f, f.new_docs, f.new_doc_bytes)
}

/// An estimate of what `session` holds that `previous` does not share with it: its own
/// leaf pointers, routing tables and recent keys, the leaves and event segments that are
/// not `previous`'s, and the documents `previous` does not hold. Without `previous`, the
/// whole session ([`estimate_session_bytes`]). Its cost is proportional to the number of
/// leaves plus the entries of the unshared ones.
pub fn estimate_snapshot_bytes(session: &Session, previous: Option<&Session>) -> u64 {
    let f = session.cluster.footprint(previous.map(|p| &p.cluster));
    footprint_bytes(&f, f.new_docs, f.new_doc_bytes)
}

#[cfg(feature = "insight")]
impl Timeline {
    /// The key space of `ns` over every step, as a grid of key ranges by groups of steps,
    /// its rows and chunk boundaries read at the cursor (see `sim::heat`).
    /// `None` when `ns` is not sharded at the cursor.
    pub fn heat_grid(&self, ns: &str, options: HeatOptions) -> Option<HeatGrid> {
        self.heat.grid(
            ns,
            &self.current.cluster,
            self.len(),
            self.position,
            options,
        )
    }

    /// The pattern of `ns`'s inserts up to the cursor: hot edge, band or even, with the
    /// figures behind the name.
    pub fn heat_pattern(&self, ns: &str) -> HeatPattern {
        self.heat.classify(ns, &self.current.cluster, self.position)
    }

    /// The per-step insert aggregates behind [`Timeline::heat_grid`].
    pub fn heat(&self) -> &HeatLog {
        &self.heat
    }
}

impl Timeline {
    /// The step (1-based position) whose command produced the event with sequence number
    /// `seq`, if that event is in the log at the cursor.
    pub fn step_of_event(&self, seq: u64) -> Option<u64> {
        let index = seq.checked_sub(1)?;
        let upto = self.position as usize;
        let starts = self.event_starts.get(..upto)?;
        // The last step whose first event index is at or before this event's index.
        let step = starts.partition_point(|&start| start <= index);
        (step > 0).then_some(step as u64)
    }
}
