//! The Compare tab's state: two or more clusters, each with its own shard key and version
//! mode, run the same workload in lockstep, in the engine.
//!
//! Every configuration is an engine session (`Start::Compare`). The state here is what the
//! tab shows and asks for: the shared ticks decided so far, and for each column the ticks
//! its session has run and the picture and summary row it answered with. [`drive`] brings
//! every column's session up to the shared ticks, one tick at a time and one request a
//! tick for every column (`page.compareStep`), so the page answers while the engine works; a column rebuilt with a new key or version gets a new
//! session that replays the ticks. The summary's figures come from the core's
//! `sim::summarise`, in the engine.

use crate::engine_client;
use crate::state::{MAX_BATCH, MAX_TOTAL};
use shardlab_protocol::{
    Call, ColumnStep, CompareColumn as ColumnSpec, CompareRow, EngineError, Frame, Reply,
    SampleRun, Start, WorkloadRun,
};
use shardlab_protocol::{DEFAULT_VERSION, VERSIONS};
use std::cell::RefCell;

/// The newest version mode, which a third Compare column starts on.
const NEWEST_VERSION: &str = VERSIONS[VERSIONS.len() - 1];
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::{Reducible, UseReducerHandle};

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
        });
    }

    /// Column `i` with a new key or version: a new session, which replays the ticks.
    fn rebuild(&mut self, i: usize, key: String, version: String) {
        let session = self.new_session();
        if let Some(c) = self.columns.get_mut(i) {
            *c = CompareColumn {
                key,
                version,
                session,
                ran: 0,
                picture: None,
                row: None,
                error: None,
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
    /// A session's setup or a request failed.
    Failed {
        /// The session.
        session: String,
        /// MongoDB's or the engine's message.
        message: String,
    },
    /// The engine started again: every column's session is gone.
    EngineRestarted,
}

impl Reducible for Comparison {
    type Action = CompareAction;

    fn reduce(self: Rc<Self>, action: CompareAction) -> Rc<Self> {
        let mut next = (*self).clone();
        let changed = match action {
            CompareAction::Ran {
                session,
                ran,
                frame,
                row,
            } => next.record_ran(&session, ran, *frame, row),
            CompareAction::Failed { session, message } => next.record_failure(&session, message),
            CompareAction::EngineRestarted => {
                next.rebuild_all();
                true
            }
            CompareAction::SetKey(..)
            | CompareAction::SetVersion(..)
            | CompareAction::SetWorkload(_)
            | CompareAction::UseSample(_)
            | CompareAction::AddColumn
            | CompareAction::RemoveColumn(_) => next.configure(action),
            playback => next.playback(playback),
        };
        // An action that changes nothing keeps the same state (and revision), so that
        // nothing redraws or asks the engine again.
        if !changed {
            return self;
        }
        next.rev += 1;
        Rc::new(next)
    }
}

/// The reducer's parts, one per kind of action; each says whether it changed anything.
impl Comparison {
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
    /// column names any more changes nothing.
    fn record_ran(&mut self, session: &str, ran: u64, frame: Frame, row: CompareRow) -> bool {
        let Some(c) = self.columns.iter_mut().find(|c| c.session == session) else {
            return false;
        };
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

/// The name the Compare tab's steps go under (they name their sessions themselves).
const COMPARE_SESSION: &str = "compare";

/// What the driver has asked of each session: opened, and ticks requested. The Compare
/// tab keeps one for as long as it is drawn; clones share it.
#[derive(Clone, Default)]
pub struct Asked {
    sessions: Rc<RefCell<BTreeMap<String, u64>>>,
}

/// Sends the requests that bring every column's session up to the shared ticks: opens a
/// new session, then asks for every column's next tick in one `page.compareStep`, which
/// runs each column's batch and answers with each column's picture and row. Sessions no
/// column names any more are closed.
pub fn drive(state: &UseReducerHandle<Comparison>, asked: &Asked) {
    let live: Vec<String> = state.columns.iter().map(|c| c.session.clone()).collect();
    let gone: Vec<String> = {
        let mut a = asked.sessions.borrow_mut();
        let gone: Vec<String> = a.keys().filter(|s| !live.contains(s)).cloned().collect();
        for s in &gone {
            a.remove(s);
        }
        gone
    };
    for session in gone {
        engine_client::request(&session, Call::Close, |_| ());
    }
    let mut steps = Vec::new();
    for column in &state.columns {
        let ticks = asked.sessions.borrow().get(&column.session).copied();
        match ticks {
            None => open(state, asked, column),
            Some(ticks) if ticks == column.ran && ticks < state.ticks && column.error.is_none() => {
                steps.push(next_tick(state, asked, &column.session, ticks));
            }
            Some(_) => {}
        }
    }
    if !steps.is_empty() {
        step(state, asked, steps);
    }
}

/// Opens a column's session; its setup's first error, if any, is the column's.
fn open(state: &UseReducerHandle<Comparison>, asked: &Asked, column: &CompareColumn) {
    asked
        .sessions
        .borrow_mut()
        .insert(column.session.clone(), 0);
    let start = Start::Compare {
        column: ColumnSpec {
            key: column.key.clone(),
            version: column.version.clone(),
        },
        chunk_size: state.chunk_size,
    };
    let session = column.session.clone();
    let (handle, asked) = (state.clone(), asked.clone());
    engine_client::request(
        &session.clone(),
        Call::Open(start),
        move |answer| match answer {
            Ok(Reply::Open(opened)) if !opened.errors.is_empty() => {
                handle.dispatch(CompareAction::Failed {
                    session,
                    message: opened.errors[0].clone(),
                })
            }
            Ok(_) => step(
                &handle,
                &asked,
                vec![(ColumnStep { session, run: None }, 0)],
            ),
            Err(e) => failed(&handle, &asked, session, e),
        },
    );
}

/// Tick number `tick` of `session`, noted as asked: its batch, and the ticks the column
/// will have run once it is answered.
fn next_tick(state: &Comparison, asked: &Asked, session: &str, tick: u64) -> (ColumnStep, u64) {
    asked
        .sessions
        .borrow_mut()
        .insert(session.to_string(), tick + 1);
    let run = WorkloadRun {
        ns: COMPARE_NS.to_string(),
        name: state.workload.clone(),
        count: state.tick_size(tick),
        balance: true,
        sample: state.sample.as_ref().map(|(session, ns)| SampleRun {
            session: session.clone(),
            ns: ns.clone(),
            from: state.documents(tick),
        }),
    };
    let step = ColumnStep {
        session: session.to_string(),
        run: Some(run),
    };
    (step, tick + 1)
}

/// Asks for the columns' steps in one request, then hands each column's picture and row
/// (after the ticks paired with it) to the state, or its error.
fn step(state: &UseReducerHandle<Comparison>, asked: &Asked, steps: Vec<(ColumnStep, u64)>) {
    let ran: BTreeMap<String, u64> = steps
        .iter()
        .map(|(s, ran)| (s.session.clone(), *ran))
        .collect();
    let columns = steps.into_iter().map(|(s, _)| s).collect();
    let (handle, asked) = (state.clone(), asked.clone());
    engine_client::request(
        COMPARE_SESSION,
        Call::CompareStep { columns },
        move |answer| {
            let columns = match answer {
                Ok(Reply::CompareStep { columns }) => columns,
                Ok(_) => return,
                Err(e) => {
                    for session in ran.into_keys() {
                        failed(&handle, &asked, session, e.clone());
                    }
                    return;
                }
            };
            for column in columns {
                let Some(&ran) = ran.get(&column.session) else {
                    continue;
                };
                match (column.frame, column.row, column.error) {
                    (Some(frame), Some(row), _) => handle.dispatch(CompareAction::Ran {
                        session: column.session,
                        ran,
                        frame,
                        row,
                    }),
                    (_, _, Some(e)) => failed(&handle, &asked, column.session, e),
                    _ => {}
                }
            }
        },
    );
}

/// A request failed: the engine restarted (the driver reopens every session; a worker
/// that died between requests answers the next one for a live column with
/// `NoSuchSession`), or the column shows the error. A session no column names any more
/// (closed when its key changed) may answer `NoSuchSession` to what was still in flight:
/// that is expected, and changes nothing.
fn failed(state: &UseReducerHandle<Comparison>, asked: &Asked, session: String, e: EngineError) {
    // The sessions asked of (`drive` forgets a column's session when it closes it): the
    // handle's own columns may be older than the answer.
    let live = asked.sessions.borrow().contains_key(&session);
    if e.code_name == "NoSuchSession" && !live {
        return;
    }
    if e.code_name == engine_client::ENGINE_RESTARTED || e.code_name == "NoSuchSession" {
        // Every request in flight fails at once; the first one starts the columns over.
        let first = {
            let mut a = asked.sessions.borrow_mut();
            let first = !a.is_empty();
            a.clear();
            first
        };
        if first {
            state.dispatch(CompareAction::EngineRestarted);
        }
        return;
    }
    state.dispatch(CompareAction::Failed {
        session,
        message: e.message,
    });
}
