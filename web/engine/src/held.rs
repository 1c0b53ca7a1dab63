//! One open session as the engine holds it: its timeline, what its view was last sent,
//! and each step's statistics (documents and inserts per shard, per collection), which the
//! charts, the hot window and the comparison's summary read without replaying anything.

use crate::frames::SentFrames;
use shardlab::engine::inserts_per_shard;
use shardlab::sim::Timeline;
use shardlab::workload::presets::Preset;
use shardlab::VersionMode;

/// One step's figures for one collection, by shard name in shard order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionStats {
    /// Documents per live shard after the step.
    pub docs: Vec<(String, u64)>,
    /// Inserts per shard during the step (shards that took none left out).
    pub inserts: Vec<(String, u64)>,
}

/// One step's figures, per collection in namespace order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Each collection's figures.
    pub collections: Vec<(String, CollectionStats)>,
}

impl StepStats {
    /// The figures of the step just run on `timeline`.
    pub fn of(timeline: &Timeline) -> StepStats {
        let cluster = &timeline.session().cluster;
        let collections = cluster
            .collections()
            .keys()
            .map(|ns| {
                let docs = cluster
                    .shard_stats(ns)
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !cluster.all_shards()[*i].removed)
                    .map(|(i, s)| (cluster.shard_name(i as u32).to_string(), s.docs))
                    .collect();
                let inserts = inserts_per_shard(timeline.events_at(), ns);
                (ns.clone(), CollectionStats { docs, inserts })
            })
            .collect();
        StepStats { collections }
    }

    /// The figures of collection `ns`, if it existed after the step.
    pub fn of_ns(&self, ns: &str) -> Option<&CollectionStats> {
        self.collections
            .iter()
            .find(|(n, _)| n == ns)
            .map(|(_, c)| c)
    }
}

/// The engine's test-only trap: with it armed ([`arm_trap`]), a step whose command is
/// [`TEST_TRAP`] panics, killing the engine as a bug would, so that the end-to-end tests can
/// check that the page survives its engine and restores the session into a new one.
pub const TEST_TRAP: &str = "sim.__trapEngine()";

thread_local! {
    static TRAP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Arms the test-only trap (the worker does when the page, whose address says
/// `?selftest=trap`, names it so).
pub fn arm_trap() {
    TRAP.with(|t| t.set(true));
}

/// One open session.
pub struct Held {
    /// The steps and the cluster at the cursor.
    pub timeline: Timeline,
    /// What its view was last sent.
    pub sent: SentFrames,
    /// Each step's figures, one entry per step of the timeline (a replayed scenario's
    /// steps included).
    pub stats: Vec<StepStats>,
    /// The key as typed, for a Compare column whose key MongoDB refused.
    pub typed_key: Option<(String, VersionMode)>,
    /// The playground's own state, for a session opened for the page (`playground`).
    pub page: Option<PageState>,
    /// An import of the user's documents under way (an [`ImportJob`], see `import`), held
    /// without its type: only the code that makes and reads it names it, which is in the
    /// engine's second part in the browser, so the file readers it holds (gzip's among
    /// them, whose drop finishes the stream) stay out of the first part, which only drops
    /// it.
    pub importing: Option<Box<dyn std::any::Any>>,
}

/// A session as it was before a request that the engine runs again once its second part
/// has loaded (see `Engine::handle`): all of it but an import under way, which such a
/// request leaves alone (each of an import's requests needs the part before it does
/// anything).
pub struct HeldCopy {
    timeline: Timeline,
    sent: SentFrames,
    stats: Vec<StepStats>,
    typed_key: Option<(String, VersionMode)>,
    page: Option<PageState>,
}

impl Held {
    /// A copy of the session to put back ([`Held::put_back`]). The cluster's clones share
    /// their storage, so this costs about the steps' text.
    pub fn copy(&self) -> HeldCopy {
        HeldCopy {
            timeline: self.timeline.clone(),
            sent: self.sent.clone(),
            stats: self.stats.clone(),
            typed_key: self.typed_key.clone(),
            page: self.page.clone(),
        }
    }

    /// Puts the session back as [`Held::copy`] found it.
    pub fn put_back(&mut self, copy: HeldCopy) {
        self.timeline = copy.timeline;
        self.sent = copy.sent;
        self.stats = copy.stats;
        self.typed_key = copy.typed_key;
        self.page = copy.page;
    }
}

/// An import of the user's documents under way in one session: the file's reader, the
/// batches read so far (inserted at the end, as one step) and what did not go in.
#[derive(Debug)]
pub struct ImportJob {
    /// The reader of the file, slice by slice.
    pub importer: shardlab::workload::Importer,
    /// The `insertMany` batches read so far.
    pub batches: Vec<shardlab::workload::InsertBatch>,
    /// The records that did not go in, listed up to the protocol's bound.
    pub failures: Vec<shardlab_protocol::ImportFailure>,
    /// How many did not go in.
    pub failed: u64,
    /// Documents read so far.
    pub documents: u64,
    /// Bytes read so far.
    pub bytes: u64,
    /// The batches' statements' bytes so far, a line break after each.
    pub statement_bytes: u64,
    /// Why the file cannot be read on, once it cannot.
    pub stopped: Option<String>,
    /// Once the file has ended: the step its batches go into, run ahead on a copy of the
    /// session a few batches per `end`, and how many batches have run.
    pub staged: Option<(shardlab::sim::StagedStep, usize)>,
}

impl ImportJob {
    /// A job reading with `importer`, nothing read yet.
    pub fn new(importer: shardlab::workload::Importer) -> Self {
        ImportJob {
            importer,
            batches: Vec::new(),
            failures: Vec::new(),
            failed: 0,
            documents: 0,
            bytes: 0,
            statement_bytes: 0,
            stopped: None,
            staged: None,
        }
    }
}

/// What a playground session keeps beside its timeline: what the page used to keep in its
/// own state, and which decides what the next view shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PageState {
    /// The collection picked in the list, until a command touches another one.
    pub picked: Option<String>,
    /// The lesson the session was opened from.
    pub lesson: Option<&'static Preset>,
    /// Whether the lesson's closing commands ran.
    pub after_done: bool,
    /// The collection shown as last derived (the setup's at first): what is shown when
    /// nothing picked, touched or sharded names another.
    pub ns: String,
    /// Its key as last derived: the setup's, as typed, until a sharded collection is shown.
    pub key: String,
    /// Whether that key is unique.
    pub unique: bool,
    /// A replay under way.
    pub replay: Option<PendingReplay>,
}

/// A scenario replaying into a playground session a slice at a time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PendingReplay {
    /// The scenario's commands.
    pub commands: Vec<String>,
    /// How many of them ran.
    pub next: usize,
    /// The cursor once it is over (the scenario's position, clamped to its commands).
    pub position: u64,
    /// The page's own state the scenario carries.
    pub page: Vec<(String, String)>,
}

impl Held {
    /// A session around `timeline`, whose existing steps are recorded as inserting
    /// nothing (a summary counts the steps this engine ran).
    pub fn new(timeline: Timeline) -> Self {
        let steps = timeline.len() as usize;
        Held {
            timeline,
            sent: SentFrames::default(),
            stats: vec![StepStats::default(); steps],
            typed_key: None,
            page: None,
            importing: None,
        }
    }

    /// Runs `command` as the next step (discarding the steps after the cursor) and records
    /// its figures.
    pub fn push(&mut self, command: &str) -> Vec<shardlab::Outcome> {
        if command.trim() == TEST_TRAP && TRAP.with(|t| t.get()) {
            panic!("{TEST_TRAP} ran with the trap armed: a deliberate panic to test the recovery");
        }
        let outcomes = self.timeline.push(command);
        self.stats
            .truncate(self.timeline.position().saturating_sub(1) as usize);
        self.stats.push(StepStats::of(&self.timeline));
        outcomes
    }

    /// Runs `command` as the next step, like [`Held::push`], and says what each of its
    /// inserts did (an import's batches).
    pub fn push_tallied(&mut self, command: &str) -> shardlab::session::InsertTally {
        let (_, tally) = self.timeline.push_tallied(command);
        self.stats
            .truncate(self.timeline.position().saturating_sub(1) as usize);
        self.stats.push(StepStats::of(&self.timeline));
        tally
    }

    /// Pushes a step run ahead ([`shardlab::sim::Timeline::push_staged`]), with its
    /// figures, as [`Held::push_tallied`] pushes one.
    pub fn push_staged(
        &mut self,
        staged: shardlab::sim::StagedStep,
    ) -> shardlab::session::InsertTally {
        let tally = self.timeline.push_staged(staged);
        self.stats
            .truncate(self.timeline.position().saturating_sub(1) as usize);
        self.stats.push(StepStats::of(&self.timeline));
        tally
    }

    /// Forgets the steps after the cursor, and their figures.
    pub fn fork(&mut self) {
        self.timeline.fork();
        self.stats.truncate(self.timeline.position() as usize);
    }

    /// Each step's figures up to the cursor, oldest first.
    pub fn stats_upto_cursor(&self) -> &[StepStats] {
        let upto = (self.timeline.position() as usize).min(self.stats.len());
        &self.stats[..upto]
    }

    /// The inserts into `ns` of each step up to the cursor, oldest first.
    pub fn inserts_into(&self, ns: &str) -> Vec<Vec<(String, u64)>> {
        self.stats_upto_cursor()
            .iter()
            .map(|step| {
                step.of_ns(ns)
                    .map(|c| c.inserts.clone())
                    .unwrap_or_default()
            })
            .collect()
    }
}
