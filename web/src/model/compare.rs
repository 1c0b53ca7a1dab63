//! The Compare tab's model and its pure update: two or more clusters, each with its own
//! shard key and version mode, run the same workload in lockstep, in the engine.
//!
//! Every configuration is an engine session (`Start::Compare`). The model is what the tab
//! shows and what it has asked: the shared ticks decided so far, for each column the ticks
//! its session has run and the picture and summary row it answered with, and for each
//! session the ticks asked of it. [`update`] takes one [`CompareAction`] (a control, the
//! timer's tick or an engine answer) and returns the requests that bring every column's
//! session up to the shared ticks as [`CompareEffect`]s: one tick at a time, and one
//! request a tick for every column (`page.compareStep`), so the page answers while the
//! engine works. A column rebuilt with a new key or version gets a new session that
//! replays the ticks. `effects/comparison.rs` is the runtime that sends the requests and
//! turns the answers back into actions. The summary's figures come from the core's
//! `sim::summarise`, in the engine.

use crate::state::{MAX_BATCH, MAX_TOTAL};
use shardlab_protocol::{
    ColumnStep, CompareColumn as ColumnSpec, CompareRow, Frame, SampleRun, Start, WorkloadRun,
};
use shardlab_protocol::{DEFAULT_VERSION, VERSIONS};

/// The newest version mode, which a third Compare column starts on.
const NEWEST_VERSION: &str = VERSIONS[VERSIONS.len() - 1];
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

pub use shardlab_protocol::{COMPARE_NS, COMPARE_QUERIES, COMPARE_WORKLOADS};

/// The most columns the comparison shows at once.
pub const MAX_COLUMNS: usize = shardlab_protocol::MAX_COLUMNS;

/// One configuration under comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareColumn {
    /// The shard key as typed, such as `{x: "hashed"}`.
    pub key: String,
    /// The behaviour era: `"5.0"` or `"8.0"`.
    pub version: String,
    /// The engine session that runs it (a new one each time the column is rebuilt).
    pub session: String,
    /// Shared ticks its session has run and drawn.
    pub ran: u64,
    /// Its picture after those ticks (every shard's chunks filled in).
    pub picture: Option<Rc<Frame>>,
    /// Its summary row after those ticks.
    pub row: Option<CompareRow>,
    /// The first error its setup met (a key MongoDB refuses, say), or the engine's.
    pub error: Option<String>,
    /// The key as the user is typing it, with the key it was typed over (see
    /// [`CompareColumn::draft`]).
    pub typed: Option<(String, String)>,
    /// The engine's latest check of a key typed here: the key, and the key as
    /// shardCollection would take it or MongoDB's complaint.
    pub checked: Option<(String, Result<String, String>)>,
}

impl CompareColumn {
    /// The key in the column's editor: as typed, until the column's key changes.
    pub fn draft(&self) -> &str {
        match &self.typed {
            Some((over, typed)) if *over == self.key => typed,
            _ => &self.key,
        }
    }

    /// The key in the editor, checked by the engine as shardCollection would: the
    /// normalised key, or the engine's complaint (the latest answer, for an earlier draft
    /// until the draft's own comes; valid before any).
    pub fn validation(&self) -> Result<String, String> {
        self.checked
            .as_ref()
            .map_or_else(|| Ok(String::new()), |(_, r)| r.clone())
    }
}

/// What has been asked of a column's session.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asked {
    /// Its opening, not answered yet: nothing else is asked of it until it is (the engine
    /// client knows a session by name only once it is open).
    Opening,
    /// Open, and this many ticks requested.
    Ticks(u64),
}

/// The comparison's state.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The configurations, left to right.
    pub columns: Vec<CompareColumn>,
    /// The workload generator's name.
    pub workload: String,
    /// Documents per tick.
    pub batch: u32,
    /// Documents in all.
    pub total: u64,
    /// The maximum chunk size in bytes.
    pub chunk_size: u64,
    /// Shared ticks decided so far.
    pub ticks: u64,
    /// Whether the shared workload is playing.
    pub playing: bool,
    /// Bumped on every change.
    pub rev: u64,
    /// The number the next session is named by.
    next_session: u64,
    /// The user's documents replayed instead of a generated workload: the page's session
    /// that holds them and their collection ([`CompareAction::UseSample`]). Not carried
    /// in links or the saved session, which cannot hold the documents.
    pub sample: Option<(String, String)>,
    /// What has been asked of each live session: its opening, then the ticks requested.
    /// A session no column names any more is closed and forgotten.
    asked: BTreeMap<String, Asked>,
    /// The keys sent to be checked and not answered yet.
    checking: BTreeSet<String>,
}

impl PartialEq for Comparison {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl Default for Comparison {
    fn default() -> Self {
        let mut c = Comparison {
            columns: Vec::new(),
            workload: "monotonic".to_string(),
            batch: shardlab_protocol::COMPARE_BATCH,
            // Like the monotonic lesson, ends between two splits of the top chunk.
            total: 900,
            chunk_size: shardlab_protocol::COMPARE_CHUNK_SIZE,
            ticks: 0,
            playing: false,
            rev: 0,
            next_session: 0,
            sample: None,
            asked: BTreeMap::new(),
            checking: BTreeSet::new(),
        };
        c.push_column("{x: 1}", DEFAULT_VERSION);
        c.push_column("{x: \"hashed\"}", DEFAULT_VERSION);
        c
    }
}

impl Comparison {
    /// Documents the shared ticks decided so far insert.
    pub fn done(&self) -> u64 {
        self.documents(self.ticks)
    }

    /// Documents every column has run and drawn: what the progress bar shows.
    pub fn drawn(&self) -> u64 {
        let ran = self.columns.iter().map(|c| c.ran).min().unwrap_or(0);
        self.documents(ran)
    }

    /// Documents `ticks` ticks insert.
    fn documents(&self, ticks: u64) -> u64 {
        ticks.saturating_mul(u64::from(self.batch)).min(self.total)
    }

    /// Documents tick number `tick` (from 0) inserts.
    pub fn tick_size(&self, tick: u64) -> u32 {
        let left = self.total.saturating_sub(self.documents(tick));
        u64::from(self.batch).min(left) as u32
    }

    /// Whether every column has caught up with the shared ticks.
    pub fn settled(&self) -> bool {
        self.columns.iter().all(|c| c.ran >= self.ticks)
    }

    fn new_session(&mut self) -> String {
        self.next_session += 1;
        format!("compare-{}", self.next_session)
    }

    fn push_column(&mut self, key: &str, version: &str) {
        let session = self.new_session();
        self.columns.push(CompareColumn {
            key: key.to_string(),
            version: version.to_string(),
            session,
            ran: 0,
            picture: None,
            row: None,
            error: None,
            typed: None,
            checked: None,
        });
    }

    /// Column `i` with a new key or version: a new session, which replays the ticks.
    fn rebuild(&mut self, i: usize, key: String, version: String) {
        let session = self.new_session();
        if let Some(c) = self.columns.get_mut(i) {
            // What is being typed stays (it goes with the key it was typed over).
            *c = CompareColumn {
                key,
                version,
                session,
                ran: 0,
                picture: None,
                row: None,
                error: None,
                typed: c.typed.take(),
                checked: c.checked.take(),
            };
        }
    }

    /// Every column starts over with no workload run.
    fn reset(&mut self) {
        self.ticks = 0;
        for i in 0..self.columns.len() {
            let (key, version) = (self.columns[i].key.clone(), self.columns[i].version.clone());
            self.rebuild(i, key, version);
        }
    }

    /// One more shared tick, when every column has caught up (so that a slow engine
    /// slows the comparison rather than piling up requests); stops playing at the end.
    fn tick(&mut self) {
        if self.done() < self.total && self.settled() {
            self.ticks += 1;
        }
        // The last tick is asked for: the comparison has played to its end (the columns
        // may still be drawing it, which the progress bar shows).
        if self.done() >= self.total {
            self.playing = false;
        }
    }
}

/// The most ticks a shared comparison may ask to replay.
pub const MAX_SHARED_TICKS: u64 = 2_000;

/// The most documents a shared comparison may ask each column to replay when it opens.
pub const MAX_SHARED_DOCS: u64 = 50_000;

impl Comparison {
    /// The comparison as a link carries it, one item a line: the workload, documents per
    /// tick, in all, the chunk size, the ticks run, then one line per column (`5.0 {x: 1}`).
    pub fn encode(&self) -> String {
        let mut lines = vec![
            self.workload.clone(),
            self.batch.to_string(),
            self.total.to_string(),
            self.chunk_size.to_string(),
            self.ticks.to_string(),
        ];
        for c in &self.columns {
            lines.push(format!("{} {}", c.version, c.key.trim().replace('\n', " ")));
        }
        lines.join("\n")
    }

    /// A comparison rebuilt from [`Comparison::encode`]'s text, every value checked (a link
    /// can say anything); the engine replays its ticks.
    pub fn decode(text: &str) -> Result<Comparison, String> {
        let lines: Vec<&str> = text.lines().collect();
        let [workload, batch, total, chunk_size, ticks, columns @ ..] = lines.as_slice() else {
            return Err("the comparison is incomplete".to_string());
        };
        if !COMPARE_WORKLOADS.contains(workload) {
            return Err(format!(
                "the comparison's workload '{}' is not one it offers",
                workload.chars().take(40).collect::<String>()
            ));
        }
        let number = |text: &str, what: &str, lo: u64, hi: u64| {
            text.parse::<u64>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| format!("the comparison's {what} must be between {lo} and {hi}"))
        };
        let batch = number(batch, "documents per tick", 1, u64::from(MAX_BATCH))?;
        let total = number(total, "total", 1, MAX_TOTAL)?;
        let chunk_size = number(chunk_size, "chunk size", 1024, 1 << 30)?;
        let ticks = number(ticks, "ticks", 0, MAX_SHARED_TICKS)?;
        let replayed = ticks.saturating_mul(batch).min(total);
        if replayed > MAX_SHARED_DOCS {
            return Err(format!(
                "the comparison asks to replay {replayed} documents, at most {MAX_SHARED_DOCS} are replayed from a link"
            ));
        }
        if !(2..=MAX_COLUMNS).contains(&columns.len()) {
            return Err(format!("a comparison has 2 to {MAX_COLUMNS} columns"));
        }
        let mut out = Comparison {
            columns: Vec::new(),
            workload: (*workload).to_string(),
            batch: batch as u32,
            total,
            chunk_size,
            ticks: 0,
            ..Comparison::default()
        };
        for line in columns {
            let (version, key) = line.split_once(' ').unwrap_or((line, ""));
            if !shardlab_protocol::is_version(version) {
                return Err("a comparison column names an unknown version".to_string());
            }
            if key.len() > 1024 {
                return Err("a comparison column's key is too long".to_string());
            }
            out.push_column(key, version);
        }
        // Only ticks that insert something count.
        while out.ticks < ticks && out.done() < out.total {
            out.ticks += 1;
        }
        Ok(out)
    }
}

/// What the comparison's controls, and the engine's answers, can do.
pub enum CompareAction {
    /// Start playing the shared workload.
    Play,
    /// Stop playing.
    Pause,
    /// Run one tick while playing.
    Tick,
    /// Run one tick now.
    Step,
    /// Start every column over.
    Reset,
    /// Give column `i` a new shard key.
    SetKey(usize, String),
    /// Give column `i` a new version mode.
    SetVersion(usize, String),
    /// Pick another workload (starts over).
    SetWorkload(String),
    /// Replay the user's documents on these candidate keys (starts over, and plays).
    UseSample(Rc<crate::state::CompareSample>),
    /// Add a column.
    AddColumn,
    /// Remove column `i`.
    RemoveColumn(usize),
    /// A session ran its ticks up to `ran` and answered with its picture and row.
    Ran {
        /// The session.
        session: String,
        /// The ticks it has run.
        ran: u64,
        /// Its picture (shards that did not change hold no chunks).
        frame: Box<Frame>,
        /// Its summary row.
        row: CompareRow,
    },
    /// The user typed `text` in column `i`'s key editor.
    Type(usize, String),
    /// The engine checked a typed key: as shardCollection would take it, or MongoDB's
    /// complaint.
    Checked {
        /// The key checked.
        key: String,
        /// The key normalised, or the complaint.
        result: Result<String, String>,
    },
    /// A session's setup or a request failed.
    Failed {
        /// The session.
        session: String,
        /// MongoDB's or the engine's message.
        message: String,
    },
    /// A session's setup answered without an error: its first picture is asked for.
    Opened {
        /// The session.
        session: String,
    },
    /// A request found its session gone: the engine started again (its sessions are gone),
    /// or the session is unknown to it.
    Lost {
        /// The session.
        session: String,
    },
}

/// What the runtime is to do for the comparison: the engine requests its update returns.
#[derive(Clone, Debug, PartialEq)]
pub enum CompareEffect {
    /// Close a session no column names any more.
    Close(String),
    /// Open a column's session; its answer comes back as [`CompareAction::Opened`] or
    /// [`CompareAction::Failed`].
    Open {
        /// The session.
        session: String,
        /// How it starts: the column's key and version, the chunk size.
        start: Start,
    },
    /// Ask for these columns' steps in one `page.compareStep`; each column's picture and
    /// row come back as [`CompareAction::Ran`] with the ticks paired with its session here.
    Step {
        /// One step a column.
        columns: Vec<ColumnStep>,
        /// The ticks each session will have run once answered.
        ran: BTreeMap<String, u64>,
    },
    /// Check a key typed in a column as shardCollection would (`page.checkKey`); the
    /// answer comes back as [`CompareAction::Checked`].
    Check(String),
}

/// One action, and the requests it calls for. An action that changes nothing the tab
/// shows keeps the revision, so that nothing redraws; the requests are whatever brings
/// every column's session up to the shared ticks, asked once.
pub fn update(c: &mut Comparison, action: CompareAction) -> Vec<CompareEffect> {
    let mut effects = Vec::new();
    let changed = match action {
        CompareAction::Ran {
            session,
            ran,
            frame,
            row,
        } => c.record_ran(&session, ran, *frame, row),
        CompareAction::Failed { session, message } => c.record_failure(&session, message),
        CompareAction::Opened { session } => {
            // Open now (unless the column was rebuilt meanwhile): its first picture, before
            // any tick, unless a tick is due (its answer brings the picture).
            if c.asked.get(&session) == Some(&Asked::Opening) {
                c.asked.insert(session.clone(), Asked::Ticks(0));
            }
            if c.asked.get(&session) == Some(&Asked::Ticks(0)) && c.ticks == 0 {
                effects.push(CompareEffect::Step {
                    columns: vec![ColumnStep {
                        session: session.clone(),
                        run: None,
                    }],
                    ran: BTreeMap::from([(session, 0)]),
                });
            }
            false
        }
        CompareAction::Lost { session } => c.lost(&session),
        CompareAction::Type(i, text) => match c.columns.get_mut(i) {
            Some(column) => {
                column.typed = Some((column.key.clone(), text));
                true
            }
            None => false,
        },
        CompareAction::Checked { key, result } => c.checked(key, result),
        CompareAction::SetKey(..)
        | CompareAction::SetVersion(..)
        | CompareAction::SetWorkload(_)
        | CompareAction::UseSample(_)
        | CompareAction::AddColumn
        | CompareAction::RemoveColumn(_) => c.configure(action),
        playback => c.playback(playback),
    };
    if changed {
        c.rev += 1;
    }
    effects.extend(plan(c));
    effects
}

/// The requests that bring every column's session up to the shared ticks, noted as
/// asked: a new session is opened, sessions no column names are closed, and every column
/// whose session is open, has run what was asked of it and is behind gets its next tick,
/// all of them in one step. Asking again before an answer asks nothing.
pub fn plan(c: &mut Comparison) -> Vec<CompareEffect> {
    let mut effects = Vec::new();
    let live: Vec<&str> = c.columns.iter().map(|col| col.session.as_str()).collect();
    let gone: Vec<String> = c
        .asked
        .keys()
        .filter(|s| !live.contains(&s.as_str()))
        .cloned()
        .collect();
    for session in gone {
        c.asked.remove(&session);
        effects.push(CompareEffect::Close(session));
    }
    let (mut steps, mut ran) = (Vec::new(), BTreeMap::new());
    for i in 0..c.columns.len() {
        let column = &c.columns[i];
        match c.asked.get(&column.session).copied() {
            None => {
                c.asked.insert(column.session.clone(), Asked::Opening);
                effects.push(CompareEffect::Open {
                    session: column.session.clone(),
                    start: Start::Compare {
                        column: ColumnSpec {
                            key: column.key.clone(),
                            version: column.version.clone(),
                        },
                        chunk_size: c.chunk_size,
                    },
                });
            }
            Some(Asked::Ticks(ticks))
                if ticks == column.ran && ticks < c.ticks && column.error.is_none() =>
            {
                let session = column.session.clone();
                steps.push(c.next_tick(&session, ticks));
                c.asked.insert(session.clone(), Asked::Ticks(ticks + 1));
                ran.insert(session, ticks + 1);
            }
            Some(_) => {}
        }
    }
    if !steps.is_empty() {
        effects.push(CompareEffect::Step {
            columns: steps,
            ran,
        });
    }
    effects.extend(c.checks());
    effects
}

/// The reducer's parts, one per kind of action; each says whether it changed anything.
impl Comparison {
    /// The keys in the columns' editors not checked yet, each asked once.
    fn checks(&mut self) -> Vec<CompareEffect> {
        let mut effects = Vec::new();
        for column in &self.columns {
            let draft = column.draft();
            let answered = column.checked.as_ref().is_some_and(|(k, _)| k == draft);
            if !answered && self.checking.insert(draft.to_string()) {
                effects.push(CompareEffect::Check(draft.to_string()));
            }
        }
        effects
    }

    /// The engine checked `key`: every column whose editor holds it shows the answer (one
    /// for a key typed since is not the latest, and is dropped).
    fn checked(&mut self, key: String, result: Result<String, String>) -> bool {
        self.checking.remove(&key);
        let mut changed = false;
        for column in &mut self.columns {
            if column.draft() == key {
                column.checked = Some((key.clone(), result.clone()));
                changed = true;
            }
        }
        changed
    }

    /// The transport: play, pause, the timer's tick, step and reset.
    fn playback(&mut self, action: CompareAction) -> bool {
        match action {
            CompareAction::Play => {
                if self.done() >= self.total {
                    self.reset();
                }
                self.playing = true;
            }
            CompareAction::Pause => self.playing = false,
            CompareAction::Tick if !self.playing => return false,
            CompareAction::Tick => self.tick(),
            CompareAction::Step => {
                self.playing = false;
                if self.done() >= self.total {
                    self.reset();
                }
                self.ticks += u64::from(self.done() < self.total);
            }
            CompareAction::Reset => {
                self.playing = false;
                self.reset();
            }
            _ => {}
        }
        true
    }

    /// The configuration: a column's key or version, the workload, adding and removing
    /// columns.
    fn configure(&mut self, action: CompareAction) -> bool {
        match action {
            CompareAction::SetKey(i, key) => {
                let version = self
                    .columns
                    .get(i)
                    .map_or_else(|| DEFAULT_VERSION.into(), |c| c.version.clone());
                self.rebuild(i, key, version);
            }
            CompareAction::SetVersion(i, version) => {
                let key = self
                    .columns
                    .get(i)
                    .map_or_else(|| "{x: 1}".into(), |c| c.key.clone());
                self.rebuild(i, key, version);
            }
            CompareAction::SetWorkload(w) => {
                self.workload = w;
                self.sample = None;
                self.playing = false;
                self.reset();
            }
            CompareAction::UseSample(sample) => self.use_sample(&sample),
            CompareAction::AddColumn if self.columns.len() < MAX_COLUMNS => {
                // A third column defaults to the ranged key under the newest era's
                // balancer, the other axis the comparison can show.
                self.push_column("{x: 1}", NEWEST_VERSION);
            }
            CompareAction::AddColumn => return false,
            CompareAction::RemoveColumn(i) if self.columns.len() > 2 && i < self.columns.len() => {
                self.columns.remove(i);
            }
            // Removing one of the last two columns (or none) changes nothing but still
            // counts as a change, as it always has.
            _ => {}
        }
        true
    }

    /// The user's documents on one column per candidate key (the first
    /// [`MAX_COLUMNS`]), all of them in about 60 ticks, played from the start.
    fn use_sample(&mut self, sample: &crate::state::CompareSample) {
        self.columns.clear();
        for key in sample.keys.iter().take(MAX_COLUMNS) {
            self.push_column(key, &sample.version);
        }
        self.sample = Some((sample.session.clone(), sample.ns.clone()));
        self.total = sample.documents.clamp(1, MAX_TOTAL);
        self.batch = self.total.div_ceil(60).clamp(
            u64::from(shardlab_protocol::COMPARE_BATCH),
            u64::from(MAX_BATCH),
        ) as u32;
        self.chunk_size = sample.chunk_size;
        self.ticks = 0;
        self.playing = true;
    }

    /// A session's answer after running up to `ran` ticks; an answer from a session no
    /// column names any more, or one older than what the column shows, changes nothing.
    fn record_ran(&mut self, session: &str, ran: u64, frame: Frame, row: CompareRow) -> bool {
        let Some(c) = self.columns.iter_mut().find(|c| c.session == session) else {
            return false;
        };
        if ran < c.ran {
            // An older answer than the one drawn.
            return false;
        }
        c.picture = Some(Rc::new(merge(c.picture.as_deref(), frame)));
        c.row = Some(row);
        c.ran = ran;
        true
    }

    /// A session's failure: its column keeps the first error it met.
    fn record_failure(&mut self, session: &str, message: String) -> bool {
        let Some(c) = self.columns.iter_mut().find(|c| c.session == session) else {
            return false;
        };
        c.error.get_or_insert(message);
        true
    }

    /// A session gone from the engine: it restarted (a worker that died between requests
    /// answers the next one for a live column that it does not know the session), and
    /// every request in flight fails at once. The first failure of a live session starts
    /// the columns over, on new sessions that replay the ticks; the failures of sessions
    /// no column names any more (closed when a key changed, or before that restart) change
    /// nothing.
    fn lost(&mut self, session: &str) -> bool {
        if !self.asked.contains_key(session) {
            return false;
        }
        self.asked.clear();
        self.rebuild_all();
        true
    }

    /// Tick number `tick` of `session`: its batch.
    fn next_tick(&self, session: &str, tick: u64) -> ColumnStep {
        let run = WorkloadRun {
            ns: COMPARE_NS.to_string(),
            name: self.workload.clone(),
            count: self.tick_size(tick),
            balance: true,
            sample: self.sample.as_ref().map(|(session, ns)| SampleRun {
                session: session.clone(),
                ns: ns.clone(),
                from: self.documents(tick),
            }),
        };
        ColumnStep {
            session: session.to_string(),
            run: Some(run),
        }
    }

    /// Every column gets a new session, which replays the ticks (the engine restarted and
    /// its sessions are gone).
    fn rebuild_all(&mut self) {
        for i in 0..self.columns.len() {
            let (key, version) = (self.columns[i].key.clone(), self.columns[i].version.clone());
            self.rebuild(i, key, version);
        }
    }
}

/// A frame with every shard's chunks: those the engine left out (unchanged) are taken
/// from the previous picture.
fn merge(previous: Option<&Frame>, mut frame: Frame) -> Frame {
    for s in &mut frame.shards {
        if s.chunks.is_none() {
            s.chunks = previous
                .and_then(|p| p.shards.iter().find(|q| q.index == s.index))
                .and_then(|q| q.chunks.clone());
        }
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str) -> CompareRow {
        CompareRow {
            label: label.to_string(),
            inserts_per_shard: Vec::new(),
            chunks_per_shard: Vec::new(),
            docs_per_shard: Vec::new(),
            hottest_shard_share: 0.0,
            hot_window: 0,
            jumbo_chunks: 0,
            single_shard_share: 0.0,
            multi_shard_share: 0.0,
            scatter_gather_share: 0.0,
            errors: Vec::new(),
        }
    }

    /// The engine's answer for `session` after `ran` ticks.
    fn ran(session: &str, ran: u64) -> CompareAction {
        CompareAction::Ran {
            session: session.to_string(),
            ran,
            frame: Box::default(),
            row: row(session),
        }
    }

    fn sessions(c: &Comparison) -> Vec<String> {
        c.columns.iter().map(|col| col.session.clone()).collect()
    }

    /// The sessions a step asks of, each with the ticks it will have run.
    fn stepped(effects: &[CompareEffect]) -> Vec<(String, u64)> {
        effects
            .iter()
            .filter_map(|e| match e {
                CompareEffect::Step { ran, .. } => Some(ran.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The default comparison with both its sessions opened and their first pictures in.
    fn opened() -> Comparison {
        let mut c = Comparison::default();
        plan(&mut c);
        for s in sessions(&c) {
            update(&mut c, CompareAction::Opened { session: s.clone() });
            update(&mut c, ran(&s, 0));
        }
        c
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn each_column_s_session_is_opened_once_then_asked_for_its_first_picture() {
        let mut c = Comparison::default();
        let effects = plan(&mut c);
        let opens: Vec<&String> = effects
            .iter()
            .filter_map(|e| match e {
                CompareEffect::Open { session, .. } => Some(session),
                _ => None,
            })
            .collect();
        assert_eq!(opens, ["compare-1", "compare-2"]);
        assert!(plan(&mut c).is_empty(), "asked once");
        let effects = update(
            &mut c,
            CompareAction::Opened {
                session: "compare-1".into(),
            },
        );
        assert_eq!(stepped(&effects), [("compare-1".to_string(), 0)]);
        match &effects[0] {
            CompareEffect::Step { columns, .. } => assert!(columns[0].run.is_none()),
            other => panic!("a step, not {other:?}"),
        }
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn one_request_a_tick_asks_every_column_and_the_next_waits_for_every_answer() {
        let mut c = opened();
        let effects = update(&mut c, CompareAction::Step);
        assert_eq!(
            stepped(&effects),
            [("compare-1".to_string(), 1), ("compare-2".to_string(), 1)]
        );
        assert_eq!(effects.len(), 1, "one request for both columns");
        // Playing, a tick adds no shared tick until every column has drawn the last.
        update(&mut c, CompareAction::Play);
        assert!(stepped(&update(&mut c, CompareAction::Tick)).is_empty());
        assert_eq!(c.ticks, 1);
        assert!(stepped(&update(&mut c, ran("compare-1", 1))).is_empty());
        assert!(!c.settled());
        update(&mut c, ran("compare-2", 1));
        assert!(c.settled());
        let effects = update(&mut c, CompareAction::Tick);
        assert_eq!(c.ticks, 2);
        assert_eq!(
            stepped(&effects),
            [("compare-1".to_string(), 2), ("compare-2".to_string(), 2)]
        );
        match &effects[0] {
            CompareEffect::Step { columns, .. } => {
                let run = columns[0].run.as_ref().expect("a batch");
                assert_eq!(run.count, c.batch);
                assert_eq!(run.name, "monotonic");
            }
            other => panic!("a step, not {other:?}"),
        }
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_new_key_closes_the_column_s_session_and_opens_one_that_replays_the_ticks() {
        let mut c = opened();
        update(&mut c, CompareAction::Step);
        update(&mut c, ran("compare-1", 1));
        update(&mut c, ran("compare-2", 1));
        let effects = update(&mut c, CompareAction::SetKey(1, "{y: 1}".into()));
        assert_eq!(effects[0], CompareEffect::Close("compare-2".into()));
        assert!(
            matches!(&effects[1], CompareEffect::Open { session, .. } if session == "compare-3")
        );
        assert_eq!(c.columns[1].ran, 0);
        // The new session replays tick 1, whose answer brings its picture.
        let effects = update(
            &mut c,
            CompareAction::Opened {
                session: "compare-3".into(),
            },
        );
        assert_eq!(stepped(&effects), [("compare-3".to_string(), 1)]);
        update(&mut c, ran("compare-3", 1));
        assert!(c.settled());
        // The old session's late answer changes nothing.
        let rev = c.rev;
        assert!(update(&mut c, ran("compare-2", 1)).is_empty());
        assert_eq!(c.rev, rev);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn nothing_is_asked_of_a_session_before_it_is_open_and_older_answers_are_dropped() {
        let mut c = Comparison::default();
        plan(&mut c);
        assert!(stepped(&update(&mut c, CompareAction::Step)).is_empty());
        // Once open, the tick due is asked (its answer brings the first picture).
        let effects = update(
            &mut c,
            CompareAction::Opened {
                session: "compare-1".into(),
            },
        );
        assert_eq!(stepped(&effects), [("compare-1".to_string(), 1)]);
        update(&mut c, ran("compare-1", 1));
        update(&mut c, ran("compare-1", 0));
        assert_eq!(c.columns[0].ran, 1);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_restarted_engine_starts_every_column_over_once() {
        let mut c = opened();
        update(&mut c, CompareAction::Step);
        let before = sessions(&c);
        let effects = update(
            &mut c,
            CompareAction::Lost {
                session: "compare-1".into(),
            },
        );
        let after = sessions(&c);
        assert!(after.iter().all(|s| !before.contains(s)), "{after:?}");
        let opens = effects
            .iter()
            .filter(|e| matches!(e, CompareEffect::Open { .. }))
            .count();
        assert_eq!(opens, 2);
        assert!(
            !effects.iter().any(|e| matches!(e, CompareEffect::Close(_))),
            "the old sessions are gone with the engine"
        );
        // The other request in flight failing too starts nothing again.
        let rev = c.rev;
        let effects = update(
            &mut c,
            CompareAction::Lost {
                session: "compare-2".into(),
            },
        );
        assert_eq!((c.rev, sessions(&c)), (rev, after));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, CompareEffect::Open { .. })),
            "{effects:?}"
        );
        // Nor does a session closed on purpose answering that it is unknown.
        assert!(update(
            &mut c,
            CompareAction::Lost {
                session: "compare-1".into(),
            },
        )
        .is_empty());
        assert_eq!(c.rev, rev);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_failed_setup_stops_its_column_only() {
        let mut c = opened();
        update(
            &mut c,
            CompareAction::Failed {
                session: "compare-1".into(),
                message: "bad key".into(),
            },
        );
        let effects = update(&mut c, CompareAction::Step);
        assert_eq!(stepped(&effects), [("compare-2".to_string(), 1)]);
        assert_eq!(c.columns[0].error.as_deref(), Some("bad key"));
    }

    fn checks(effects: &[CompareEffect]) -> Vec<String> {
        effects
            .iter()
            .filter_map(|e| match e {
                CompareEffect::Check(k) => Some(k.clone()),
                _ => None,
            })
            .collect()
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_typed_key_is_checked_once_and_only_its_latest_answer_is_shown() {
        let mut c = Comparison::default();
        let first = plan(&mut c);
        // Each column's key is checked once, a key two columns share once.
        let keys: Vec<String> = c.columns.iter().map(|col| col.key.clone()).collect();
        let mut unique = keys.clone();
        unique.dedup();
        assert_eq!(checks(&first), unique);
        assert!(checks(&plan(&mut c)).is_empty(), "asked once");
        assert_eq!(
            c.columns[0].validation(),
            Ok(String::new()),
            "valid before any answer"
        );
        // Typing asks about what is typed; an answer about an earlier draft is dropped.
        update(&mut c, CompareAction::Type(0, "{y".into()));
        let effects = update(&mut c, CompareAction::Type(0, "{y: 1}".into()));
        assert_eq!(c.columns[0].draft(), "{y: 1}");
        assert_eq!(checks(&effects), ["{y: 1}".to_string()]);
        update(
            &mut c,
            CompareAction::Checked {
                key: "{y".into(),
                result: Err("Unexpected token".into()),
            },
        );
        assert_eq!(c.columns[0].validation(), Ok(String::new()));
        update(
            &mut c,
            CompareAction::Checked {
                key: "{y: 1}".into(),
                result: Ok("{ y: 1 }".into()),
            },
        );
        assert_eq!(c.columns[0].validation(), Ok("{ y: 1 }".into()));
        // Applied: the column's key is the draft, and a later key change shows the new key.
        update(&mut c, CompareAction::SetKey(0, "{y: 1}".into()));
        assert_eq!(c.columns[0].draft(), "{y: 1}");
        update(&mut c, CompareAction::SetKey(0, "{z: 1}".into()));
        assert_eq!(c.columns[0].draft(), "{z: 1}");
    }
}
