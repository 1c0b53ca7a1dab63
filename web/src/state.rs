//! The playground's state as a Yew reducer around the core's [`Timeline`].
//!
//! Every user action becomes a shell command pushed onto the timeline, so the console,
//! the timeline, share links and the picture all come from one list of commands. The
//! timeline lives behind `Rc<RefCell<..>>` and is changed in place; `rev` tells Yew that
//! something changed.

use shardlab::engine::inserts_per_shard;
use shardlab::engine::{ClusterConfig, VersionMode};
use shardlab::sim::LatestInserts;
use shardlab::sim::Timeline;
use shardlab::workload::presets::{generate_command, Preset};
use shardlab::{KeyValue, Outcome};
use shardlab_engine::view_model::{cluster_view, ClusterView, FrameMemory};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::Reducible;

/// The namespace the playground shows when nothing else was chosen.
pub const DEFAULT_NS: &str = "test.events";

/// The cluster settings a scenario starts from.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The behaviour era.
    pub version: VersionMode,
    /// Number of shards.
    pub shards: u32,
    /// Maximum chunk size in bytes.
    pub chunk_size: u64,
    /// The shard key, as typed (`{x: 1}`).
    pub key: String,
    /// Whether the key is unique.
    pub unique: bool,
    /// `numInitialChunks`, if set.
    pub initial_chunks: Option<u32>,
    /// The collection.
    pub ns: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: VersionMode::V50,
            shards: 3,
            chunk_size: 8 * 1024,
            key: "{x: 1}".to_string(),
            unique: false,
            initial_chunks: None,
            ns: DEFAULT_NS.to_string(),
        }
    }
}

impl Settings {
    /// The commands that build this scenario's starting point.
    pub fn setup_commands(&self) -> Vec<String> {
        vec![
            shardlab::workload::presets::chunk_size_command(self.chunk_size),
            shardlab::workload::presets::shard_command(
                &self.ns,
                &self.key,
                self.unique,
                self.initial_chunks,
            ),
        ]
    }

    /// The cluster configuration.
    pub fn config(&self) -> ClusterConfig {
        ClusterConfig {
            shards: self.shards,
            version: self.version,
            chunk_size: None,
            seed: 1,
        }
    }
}

/// The workload the play button runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// A workload preset name or a template literal.
    pub spec: String,
    /// Documents per tick.
    pub batch: u32,
    /// The collection's size the workload fills up to: Play inserts batches until the
    /// viewed collection holds this many documents. How far it has come is read from the
    /// cluster ([`Playground::count`]), never kept beside it.
    pub total: u64,
    /// Whether a balancer round follows each batch.
    pub balance: bool,
}

impl Workload {
    /// The most documents a tick inserts.
    pub const MAX_BATCH: u32 = 5_000;
    /// The largest total a workload fills up to.
    pub const MAX_TOTAL: u64 = 1_000_000;
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            spec: "monotonic".to_string(),
            batch: 25,
            total: 1000,
            balance: true,
        }
    }
}

/// What the page shows: its tab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The playground: one cluster, the console, the timeline.
    #[default]
    Playground,
    /// Several clusters running one workload side by side.
    Compare,
    /// A guided lesson above the playground.
    Guide,
}

impl Mode {
    /// The name a link carries.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Playground => "playground",
            Mode::Compare => "compare",
            Mode::Guide => "guide",
        }
    }

    /// The mode a link names.
    pub fn parse(name: &str) -> Option<Mode> {
        [Mode::Playground, Mode::Compare, Mode::Guide]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// One line of the console.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsoleLine {
    /// What kind of line it is.
    pub kind: LineKind,
    /// The text.
    pub text: String,
}

/// The kinds of console line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// A command the user typed.
    Input,
    /// A command the page ran on the user's behalf (shown so it can be typed next time).
    Auto,
    /// A result.
    Output,
    /// An error, in MongoDB's words.
    Error,
}

/// Something the page tells the user, and what they can do about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// What the notice offers, if anything.
    pub offer: Option<Offer>,
}

impl Notice {
    /// A notice that only informs.
    pub fn plain(text: impl Into<String>) -> Self {
        Notice {
            text: text.into(),
            offer: None,
        }
    }
}

/// What a notice offers.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    /// "Return to your session": the user's session kept under
    /// [`crate::share::PREVIOUS_KEY`] before a link or a lesson replaced it.
    ReturnToSession,
    /// A download of a session that was set aside (a `data:` URL of its scenario JSON).
    Download(Rc<str>),
    /// Both: a download of a scenario whose replay was cancelled, and the way back to the
    /// user's own session that it replaced.
    DownloadOrReturn(Rc<str>),
}

/// How much replaying a stored or shared scenario may spend before it stops: a hostile or
/// runaway scenario must not freeze the page.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// The most commands replayed.
    pub commands: usize,
    /// The most time spent, in milliseconds (`performance.now`). The check is made before
    /// each command; each command is bounded by the core's own limits.
    pub millis: f64,
}

impl Budget {
    /// The budget of a replay run in one go (an import, a return to the user's session,
    /// the start after a crash): 20,000 commands or 5 seconds, since the page does not
    /// answer until it is over.
    pub const REPLAY: Budget = Budget {
        commands: 20_000,
        millis: 5_000.0,
    };

    /// The budget of a replay the page runs a slice at a time (a shared link, the saved
    /// session): 20,000 commands or 30 seconds. The page answers throughout, so the time
    /// only caps how long the user waits.
    pub const SLICED: Budget = Budget {
        commands: 20_000,
        millis: 30_000.0,
    };
}

/// Where a replay stopped because it ran out of [`Budget`].
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// The commands replayed before the stop.
    pub replayed: usize,
    /// The commands the scenario holds.
    pub total: usize,
    /// Whether the time ran out (else the number of commands did).
    pub timed_out: bool,
}

impl Cut {
    /// Why and where the replay stopped, as a sentence about `what` ("Your saved session").
    pub fn describe(&self, what: &str, budget: &Budget) -> String {
        let why = if self.timed_out {
            format!(
                "replaying it took longer than {} seconds",
                budget.millis / 1000.0
            )
        } else {
            format!("it has more than {} steps", budget.commands)
        };
        format!(
            "{what} stopped replaying at step {} of {}: {why}. The playground holds the {} steps before it.",
            self.replayed + 1,
            self.total,
            self.replayed
        )
    }
}

/// A replay of a stored or shared scenario that runs a slice at a time: the page runs
/// [`Replay::advance`] for a few milliseconds, draws [`Replay::snapshot`] now and then and
/// yields to the browser in between, so that it answers input throughout a long replay.
pub struct Replay {
    /// The cluster the scenario starts from.
    config: ClusterConfig,
    /// The scenario's commands.
    commands: Vec<String>,
    /// Where the cursor goes once the replay is over.
    position: u64,
    /// What the whole replay may spend.
    budget: Budget,
    /// The timeline the commands run on, shared with the pictures drawn while it runs.
    timeline: Rc<RefCell<Timeline>>,
    /// The charts' history, one entry per replayed step.
    stats: Vec<Rc<StepStats>>,
    /// The page state the scenario carries (see [`Playground::apply_page`]), applied once
    /// the replay is over.
    page: Vec<(String, String)>,
    /// The index of the next command to replay.
    next: usize,
    /// When the replay started (`performance.now`).
    started: f64,
    /// Where it stopped, if the budget ran out.
    cut: Option<Cut>,
    /// Whether it is over (every command replayed, or the budget ran out).
    over: bool,
}

impl Replay {
    /// A replay of `commands` on a new cluster of `config` within `budget`, which moves the
    /// cursor to `position` once it is over. Nothing runs until [`Replay::advance`].
    pub fn new(
        config: ClusterConfig,
        commands: Vec<String>,
        position: u64,
        budget: Budget,
    ) -> Self {
        Replay {
            timeline: Rc::new(RefCell::new(Timeline::new(config.clone()))),
            stats: Vec::with_capacity(commands.len().min(budget.commands)),
            config,
            commands,
            position,
            budget,
            page: Vec::new(),
            next: 0,
            started: now_ms(),
            cut: None,
            over: false,
        }
    }

    /// The replay with the page state a scenario carries, applied once it is over.
    pub fn with_page(mut self, page: Vec<(String, String)>) -> Self {
        self.page = page;
        self
    }

    /// Replays commands for about `slice_ms` milliseconds (at least one command, each
    /// bounded by the core's own limits); says whether the replay is over. The budget is
    /// checked before each command, so a replay cut short keeps the steps before the cut.
    pub fn advance(&mut self, slice_ms: f64) -> bool {
        let slice_started = now_ms();
        while !self.over {
            let Some(command) = self.commands.get(self.next) else {
                self.over = true;
                break;
            };
            let timed_out = now_ms() - self.started > self.budget.millis;
            if self.next >= self.budget.commands || timed_out {
                self.cut = Some(Cut {
                    replayed: self.next,
                    total: self.commands.len(),
                    timed_out,
                });
                self.over = true;
                break;
            }
            let mut timeline = self.timeline.borrow_mut();
            run(&mut timeline, command);
            self.stats.push(Rc::new(step_stats(&timeline)));
            drop(timeline);
            self.next += 1;
            // Over with its last command, so that no picture shows every step replayed
            // while the replay still runs.
            self.over = self.next == self.commands.len();
            if now_ms() - slice_started >= slice_ms {
                break;
            }
        }
        self.over
    }

    /// The commands replayed so far.
    pub fn replayed(&self) -> usize {
        self.next
    }

    /// The commands the scenario holds.
    pub fn total(&self) -> usize {
        self.commands.len()
    }

    /// The budget the replay runs within.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The playground as replayed so far, marked as replaying `what`, for the page to draw
    /// while the replay runs.
    pub fn snapshot(&self, what: &'static str) -> Playground {
        let mut state = self.playground(format!(
            "Replaying a scenario of {} steps: {} replayed so far.",
            self.total(),
            self.next
        ));
        state.replaying = Some(Progress {
            what,
            done: self.next,
            goal: self.total().min(self.budget.commands),
        });
        state
    }

    /// The playground the replay ends with, whether it is over or was cancelled: the
    /// steps replayed, with the cursor at the saved position (or the last step replayed),
    /// and where the budget cut it short, if it did.
    pub fn finish(self) -> (Playground, Option<Cut>) {
        {
            let mut timeline = self.timeline.borrow_mut();
            let end = self.position.min(timeline.len());
            let _ = timeline.jump(end);
        }
        let (len, position) = {
            let timeline = self.timeline.borrow();
            (timeline.len(), timeline.position())
        };
        let mut state = self.playground(format!(
            "Restored a scenario of {len} steps, at step {position}."
        ));
        state.after_done = true;
        let problems = state.apply_page(&self.page);
        if !problems.is_empty() {
            state.notice = Some(Notice::plain(format!(
                "Parts of the scenario's page settings were left out: {}.",
                problems.join("; ")
            )));
        }
        state.refresh();
        (state, self.cut)
    }

    /// A playground around the timeline as it is, with one console line. The settings
    /// shown come from the cluster (see [`Playground::derive_settings`]).
    fn playground(&self, line: String) -> Playground {
        let settings = Settings {
            version: self.config.version,
            shards: self.config.shards,
            ..Settings::default()
        };
        let console = vec![ConsoleLine {
            kind: LineKind::Output,
            text: line,
        }];
        Playground::assemble_shared(
            settings,
            Workload::default(),
            self.timeline.clone(),
            console,
            self.stats.clone(),
        )
    }
}

/// The time in milliseconds from the page's clock (`performance.now`), or 0 without one.
fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Runs one command on the timeline. Every command the page runs goes through here, so the
/// test-only trap (see [`crate::recovery::selftest`]) fires wherever a command runs.
fn run(timeline: &mut Timeline, command: &str) -> Vec<Outcome> {
    crate::recovery::selftest(command);
    timeline.push(command)
}

/// Per timeline step and collection: documents per shard after the step, and inserts per
/// shard during it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Each collection's figures, in namespace order.
    pub collections: Vec<(String, CollectionStats)>,
}

/// One collection's figures for one step (see [`StepStats`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CollectionStats {
    /// Documents per shard (by shard name) after the step.
    pub docs: BTreeMap<String, u64>,
    /// Inserts per shard during the step.
    pub inserts: BTreeMap<String, u64>,
}

impl StepStats {
    /// The figures of collection `ns`, if it existed after the step.
    pub fn of(&self, ns: &str) -> Option<&CollectionStats> {
        self.collections
            .iter()
            .find(|(n, _)| n == ns)
            .map(|(_, c)| c)
    }
}

/// Everything the page shows.
#[derive(Clone)]
pub struct Playground {
    /// The scenario's steps and the cluster at the cursor.
    pub timeline: Rc<RefCell<Timeline>>,
    /// How the scenario started.
    pub settings: Settings,
    /// The running workload.
    pub workload: Workload,
    /// Whether the workload is playing.
    pub playing: bool,
    /// Whether simulated time passes while the user watches ("Let time pass"): each tick
    /// is a `sleep` step, in which the background balancer takes its rounds.
    pub passing: bool,
    /// Ticks per second.
    pub speed: u32,
    /// The console's lines.
    pub console: Rc<Vec<ConsoleLine>>,
    /// Commands typed in the console, oldest first.
    pub history: Rc<Vec<String>>,
    /// The picture at the cursor.
    pub view: Rc<ClusterView>,
    /// Statistics per step, for the charts (index = step number - 1). Each step's entry is
    /// shared, so a tick copies pointers rather than every step's maps.
    pub stats: Rc<Vec<Rc<StepStats>>>,
    /// The preset the scenario came from, if any.
    pub preset: Option<&'static Preset>,
    /// A notice for the user (a bad link, corrupt storage, ...).
    pub notice: Option<Notice>,
    /// Whether the lesson's closing commands already ran.
    pub after_done: bool,
    /// Bumped on every action.
    pub rev: u64,
    /// One revision per [`Calm`] panel. Each follows `rev`, but while a workload plays only
    /// on one tick in [`CALM_EVERY`], and each panel on a different one, so that no tick
    /// redraws the cluster, the timeline and the charts together. They catch up at once
    /// when playing stops or on any other action.
    pub calm_revs: [u64; 2],
    /// Whether the picture (`view`, `rev`) lags one fast tick behind the timeline (see
    /// [`DRAW_EVERY_TICK_UP_TO`]).
    pub stale: bool,
    /// Whether each [`Calm`] panel is out of sight (skipped by the browser): while a
    /// workload plays, a hidden panel is not redrawn, and it catches up when it comes back.
    pub hidden: [bool; 2],
    /// The collection picked in the collection list, until a command touches another
    /// one (see [`Playground::derive_settings`]).
    pub picked: Option<String>,
    /// What the inspector shows, for the collection named first (see
    /// [`Playground::inspecting`]): read from the cluster at the cursor on every drawing.
    pub inspect: Option<(String, Inspect)>,
    /// The tab the page shows.
    pub mode: Mode,
    /// State the page's other panels publish for links and the saved session (the guided
    /// lesson's step, the comparison), by name (see [`Playground::page_entries`]).
    pub page: Rc<Vec<(String, String)>>,
    /// Whether the next workload batch is echoed in the console (the first of a run).
    pub echo_batch: bool,
    /// A replay under way (see [`Replay`]): while it runs, the playground shows the steps
    /// replayed so far and takes no action but the replay's own, so that nothing the user
    /// does lands in the middle of it.
    pub replaying: Option<Progress>,
    /// Commands typed in the console while a replay runs: they run, in order, once it is
    /// over (or cancelled), so that nothing typed meanwhile is lost or lands mid-replay.
    pub waiting: Rc<Vec<String>>,
}

/// How far a replay under way has come, for the progress bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// What is replaying, as the start of a sentence ("Replaying the shared scenario").
    pub what: &'static str,
    /// The commands replayed so far.
    pub done: usize,
    /// The commands it will replay: the scenario's, or the budget's if fewer.
    pub goal: usize,
}

/// Up to this many ticks a second, every tick is drawn; faster, every second tick is (at
/// least eight pictures a second), so that the drawing keeps within the frame budget.
pub const DRAW_EVERY_TICK_UP_TO: u32 = 15;

/// How many pictures a second a workload playing at `speed` ticks a second draws.
pub fn drawings_per_second(speed: u32) -> u32 {
    if speed > DRAW_EVERY_TICK_UP_TO {
        speed.div_ceil(2)
    } else {
        speed
    }
}

/// Simulated time one tick of "Let time pass" lets pass, in milliseconds: two balancer
/// rounds while it moves chunks (1 s apart), so migrations show one by one.
pub const PASS_TIME_MS: u64 = 2_000;

/// While playing, each side panel redraws on one tick in this many (a few times a second).
pub const CALM_EVERY: u64 = 8;

/// The side panels that redraw calmly while a workload plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Calm {
    /// The timeline and its event log.
    Timeline,
    /// The insights: analyzeShardKey and the charts.
    Insights,
}

impl Calm {
    /// Both panels.
    const ALL: [Calm; 2] = [Calm::Timeline, Calm::Insights];

    /// The tick (modulo [`CALM_EVERY`]) on which this panel catches up while playing:
    /// half a cycle apart.
    fn phase(self) -> u64 {
        match self {
            Calm::Timeline => 0,
            Calm::Insights => CALM_EVERY / 2,
        }
    }
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl Default for Playground {
    fn default() -> Self {
        Playground::from_settings(Settings::default(), Workload::default())
    }
}

/// What the inspector was asked to show. Only the subject is kept: what it shows is read
/// from the cluster at the cursor each time it is drawn, so it follows the timeline.
#[derive(Clone, Debug, PartialEq)]
pub enum Inspect {
    /// The chunk holding `key` (a key value in key space: a hashed field holds the hash),
    /// its documents from position `skip` (by default the page holding `mark`, else the
    /// first), the one inserted `mark`-th highlighted.
    Chunk {
        /// A key value in the chunk.
        key: KeyValue,
        /// The first document shown.
        skip: Option<u64>,
        /// The insertion number of a document to highlight.
        mark: Option<u64>,
    },
    /// Why a shard holds what it holds.
    Shard(String),
    /// Why the balancer moves (or does not move) chunks of the collection.
    Round,
}

impl Inspect {
    /// The subject as text (canonical Extended JSON), to hand it to the extras module.
    pub fn to_text(&self) -> String {
        let num = |n: u64| bson::Bson::Int64(i64::try_from(n).unwrap_or(i64::MAX));
        let doc = match self {
            Inspect::Chunk { key, skip, mark } => {
                let mut d = bson::doc! { "chunk": key.0.clone() };
                if let Some(s) = skip {
                    d.insert("skip", num(*s));
                }
                if let Some(m) = mark {
                    d.insert("mark", num(*m));
                }
                d
            }
            Inspect::Shard(name) => bson::doc! { "shard": name.clone() },
            Inspect::Round => bson::doc! { "round": true },
        };
        shardlab::shell::to_canonical_ejson(&bson::Bson::Document(doc))
    }

    /// Reads [`Inspect::to_text`]'s text back; `None` for anything else.
    pub fn from_text(text: &str) -> Option<Inspect> {
        let bson::Bson::Document(d) = shardlab::shell::parse_ejson(text).ok()? else {
            return None;
        };
        let num = |name: &str| match d.get(name) {
            None => Some(None),
            Some(bson::Bson::Int64(n)) => u64::try_from(*n).ok().map(Some),
            Some(_) => None,
        };
        match (d.get("chunk"), d.get("shard"), d.get("round")) {
            (Some(bson::Bson::Array(key)), None, None) if !key.is_empty() => Some(Inspect::Chunk {
                key: KeyValue(key.clone()),
                skip: num("skip")?,
                mark: num("mark")?,
            }),
            (None, Some(bson::Bson::String(name)), None) => Some(Inspect::Shard(name.clone())),
            (None, None, Some(bson::Bson::Boolean(true))) => Some(Inspect::Round),
            _ => None,
        }
    }
}

/// What the user can do.
pub enum Action {
    /// Run a command typed in the console.
    Command(String),
    /// Run a command on the user's behalf (a button), echoed in the console.
    Auto(String),
    /// Start over with these settings, on a new cluster.
    Setup(Settings),
    /// Show this collection.
    View(String),
    /// Show this tab.
    SetMode(Mode),
    /// A panel's state for links and the saved session (see [`Playground::page`]):
    /// `None` removes it.
    Page(&'static str, Option<String>),
    /// Start over with a lesson preset.
    LoadPreset(&'static str),
    /// Change the workload (stops playing).
    SetWorkload(Workload),
    /// Start playing the workload.
    Play,
    /// Stop playing.
    Pause,
    /// One batch forward (or one step forward when scrubbed back).
    Step,
    /// One step back.
    StepBack,
    /// Run one tick of the playing workload. Above [`DRAW_EVERY_TICK_UP_TO`] ticks a
    /// second, the picture is redrawn on every second tick (and when playing stops).
    Tick,
    /// Starts or stops letting simulated time pass (one `sleep` step a tick).
    PassTime,
    /// A calm panel went out of sight (`true`) or came back into it (`false`), as the
    /// browser reports for `content-visibility: auto`.
    Hidden(Calm, bool),
    /// Move the cursor to step `n`.
    Jump(u64),
    /// Shows a subject in the inspector (of the collection shown), or closes it.
    Inspect(Option<Inspect>),
    /// Discard the steps after the cursor.
    Fork,
    /// Change the speed.
    SetSpeed(u32),
    /// Show or clear a notice.
    Notice(Option<Notice>),
    /// Replace the state (a shared link, a restored session).
    Restore(Box<Playground>),
    /// Replace the state with a replay's: the steps replayed so far while it runs, then
    /// the playground it ends with. The only action taken while a replay runs.
    Replayed(Box<Playground>),
}

impl Playground {
    /// A new scenario from settings: a fresh timeline running the setup commands.
    pub fn from_settings(settings: Settings, workload: Workload) -> Self {
        let intro = "ShardLab shell: type mongosh commands, e.g. sh.status() or db.events.find({x: 5}).explain()";
        let commands = settings.setup_commands();
        let config = settings.config();
        Playground::build(settings, workload, config, &commands, intro.to_string())
    }

    /// A new scenario from a lesson preset.
    pub fn from_preset(preset: &'static Preset) -> Self {
        let settings = Settings {
            version: preset.version,
            shards: preset.shards,
            chunk_size: preset.chunk_size,
            key: preset.key.to_string(),
            unique: false,
            initial_chunks: None,
            ns: preset.ns.to_string(),
        };
        let workload = Workload {
            spec: preset.workload.to_string(),
            batch: preset.batch,
            total: u64::from(preset.total),
            balance: preset.balance,
        };
        let commands = preset.setup_commands();
        let config = settings.config();
        let intro = format!("Lesson: {}. {}", preset.title, preset.lesson);
        let mut state = Playground::build(settings, workload, config, &commands, intro);
        state.preset = Some(preset);
        state
    }

    /// The collection's documents at the cursor, the workload's progress.
    pub fn count(&self) -> u64 {
        let timeline = self.timeline.borrow();
        timeline
            .session()
            .cluster
            .collections()
            .get(&self.settings.ns)
            .map_or(0, |c| c.doc_count())
    }

    /// Makes the settings the page shows those of the cluster at the cursor: the viewed
    /// collection is the one picked in the list, else the one the last command touched,
    /// else the first sharded one, else the one the form named; its key and uniqueness,
    /// the live shards, the chunk size and the version come from the cluster. Nothing the
    /// page shows about the cluster is kept apart from it.
    pub fn derive_settings(&mut self) {
        let timeline = self.timeline.borrow();
        let session = timeline.session();
        let cluster = &session.cluster;
        let collections = cluster.collections();
        let ns = self
            .picked
            .clone()
            .filter(|ns| collections.contains_key(ns))
            .or_else(|| session.touched().map(str::to_string))
            .or_else(|| first_sharded(&timeline).map(|(ns, _)| ns))
            .unwrap_or_else(|| self.settings.ns.clone());
        let mut settings = self.settings.clone();
        if let Some(sharding) = collections.get(&ns).and_then(|c| c.sharding.as_ref()) {
            settings.key =
                shardlab::shell::format_document(&sharding.pattern.to_pattern_document());
            settings.unique = sharding.unique;
        }
        settings.ns = ns;
        settings.version = cluster.config().version;
        settings.shards = cluster.all_shards().iter().filter(|s| !s.removed).count() as u32;
        settings.chunk_size = cluster.chunk_size();
        drop(timeline);
        self.settings = settings;
    }

    /// The page's own state for links and the saved session: the lesson, the workload,
    /// the viewed collection, the tab, and what the other panels published.
    pub fn page_entries(&self) -> Vec<(String, String)> {
        let w = &self.workload;
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |name: &str, value: String| out.push((name.to_string(), value));
        if let Some(p) = self.preset {
            put("lesson", p.id.to_string());
            put("after", if self.after_done { "1" } else { "0" }.to_string());
        }
        put("workload", w.spec.clone());
        put("batch", w.batch.to_string());
        put("total", w.total.to_string());
        put("balance", if w.balance { "1" } else { "0" }.to_string());
        put("view", self.settings.ns.clone());
        put("tab", self.mode.name().to_string());
        for (name, value) in self.page.iter() {
            put(name, value.clone());
        }
        out
    }

    /// Applies page state read from a link or a saved session (see
    /// [`Playground::page_entries`]), checking every value: a link can say anything.
    /// Returns what was left out and why, one phrase each.
    pub fn apply_page(&mut self, page: &[(String, String)]) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, value) in page {
            let shown: String = value.chars().take(40).collect();
            let ok = match name.as_str() {
                "lesson" => match shardlab::workload::presets::preset(value) {
                    Some(p) => {
                        self.preset = Some(p);
                        true
                    }
                    None => {
                        problems.push(format!("there is no lesson called '{shown}'"));
                        continue;
                    }
                },
                "after" => {
                    self.after_done = value == "1";
                    true
                }
                "workload" => {
                    let known = shardlab::workload::preset_names().contains(&value.as_str());
                    let ok = known || shardlab::workload::spec_of(value).is_ok();
                    if ok {
                        self.workload.spec = value.clone();
                    }
                    ok
                }
                "batch" => match value.parse::<u32>() {
                    Ok(n) if (1..=Workload::MAX_BATCH).contains(&n) => {
                        self.workload.batch = n;
                        true
                    }
                    _ => false,
                },
                "total" => match value.parse::<u64>() {
                    Ok(n) if (1..=Workload::MAX_TOTAL).contains(&n) => {
                        self.workload.total = n;
                        true
                    }
                    _ => false,
                },
                "balance" => {
                    self.workload.balance = value != "0";
                    true
                }
                "view" => {
                    self.picked = Some(value.clone());
                    true
                }
                "tab" => match Mode::parse(value) {
                    Some(m) => {
                        self.mode = m;
                        true
                    }
                    None => false,
                },
                "guide" | "compare" => {
                    let mut page = (*self.page).clone();
                    page.retain(|(n, _)| n != name);
                    page.push((name.clone(), value.clone()));
                    self.page = Rc::new(page);
                    true
                }
                other => {
                    let other: String = other.chars().take(40).collect();
                    problems.push(format!("unknown setting '{other}'"));
                    continue;
                }
            };
            if !ok {
                problems.push(format!("'{shown}' is not a valid {name}"));
            }
        }
        problems
    }

    /// A panel's published state (see [`Playground::page`]).
    pub fn page_value(&self, name: &str) -> Option<&str> {
        self.page
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A playground that replays `commands` step by step within `budget` (recording the
    /// charts' history), then moves the cursor to `position`, all in one go (see [`Replay`]
    /// for the replay the page runs a slice at a time). When the budget runs out, the
    /// replay stops before the next command and keeps the steps before it; the [`Cut`]
    /// says where.
    pub fn replay(
        config: ClusterConfig,
        commands: &[String],
        position: u64,
        budget: &Budget,
        page: &[(String, String)],
    ) -> (Self, Option<Cut>) {
        let mut replay = Replay::new(config, commands.to_vec(), position, budget.clone())
            .with_page(page.to_vec());
        while !replay.advance(f64::INFINITY) {}
        replay.finish()
    }

    /// Runs `commands` on a new timeline, one step each, recording the charts' history, and
    /// echoes them and their results in the console after the `intro`.
    fn build(
        settings: Settings,
        workload: Workload,
        config: ClusterConfig,
        commands: &[String],
        intro: String,
    ) -> Self {
        let mut timeline = Timeline::new(config);
        let mut console = vec![ConsoleLine {
            kind: LineKind::Output,
            text: intro,
        }];
        let mut stats = Vec::with_capacity(commands.len());
        for cmd in commands {
            let outcomes = run(&mut timeline, cmd);
            console.push(ConsoleLine {
                kind: LineKind::Auto,
                text: cmd.clone(),
            });
            log_outcomes(&mut console, &outcomes);
            stats.push(Rc::new(step_stats(&timeline)));
        }
        Playground::assemble(settings, workload, timeline, console, stats)
    }

    /// A playground around a timeline that has run its commands.
    fn assemble(
        settings: Settings,
        workload: Workload,
        timeline: Timeline,
        console: Vec<ConsoleLine>,
        stats: Vec<Rc<StepStats>>,
    ) -> Self {
        let timeline = Rc::new(RefCell::new(timeline));
        Playground::assemble_shared(settings, workload, timeline, console, stats)
    }

    /// [`Playground::assemble`] around a shared timeline: a replay under way keeps running
    /// commands on the timeline its pictures show.
    fn assemble_shared(
        settings: Settings,
        workload: Workload,
        timeline: Rc<RefCell<Timeline>>,
        console: Vec<ConsoleLine>,
        stats: Vec<Rc<StepStats>>,
    ) -> Self {
        let mut state = Playground {
            timeline,
            settings,
            workload,
            playing: false,
            passing: false,
            speed: 4,
            console: Rc::new(console),
            history: Rc::new(Vec::new()),
            view: Rc::new(ClusterView::default()),
            stats: Rc::new(stats),
            preset: None,
            notice: None,
            after_done: false,
            rev: 0,
            calm_revs: [0; 2],
            stale: false,
            hidden: [false; 2],
            picked: None,
            inspect: None,
            mode: Mode::default(),
            page: Rc::new(Vec::new()),
            echo_batch: true,
            replaying: None,
            waiting: Rc::new(Vec::new()),
        };
        state.derive_settings();
        state.view = Rc::new(cluster_view(
            &state.timeline.borrow().session().cluster,
            &state.settings.ns,
            &FrameMemory::default(),
        ));
        state
    }

    /// Whether ticks come too fast to draw each one: a workload playing above
    /// [`DRAW_EVERY_TICK_UP_TO`] ticks a second.
    pub fn draws_in_pairs(&self) -> bool {
        self.playing && self.speed > DRAW_EVERY_TICK_UP_TO
    }

    /// Recomputes the settings and the picture after the timeline moved.
    fn refresh(&mut self) {
        self.derive_settings();
        self.stale = false;
        let memory = self.view.memory();
        let timeline = self.timeline.borrow();
        self.view = Rc::new(cluster_view(
            &timeline.session().cluster,
            &self.settings.ns,
            &memory,
        ));
        self.rev += 1;
    }

    /// Runs one command at the cursor (forking if scrubbed back) and logs it; says whether
    /// it failed. A command that touches a collection makes it the viewed one.
    fn push(&mut self, command: &str, kind: LineKind) -> bool {
        // The console's lines are only copied when something is printed, so a quiet tick
        // keeps the same `Rc` and the console skips rendering.
        let mut printed: Vec<ConsoleLine> = Vec::new();
        if kind != LineKind::Output {
            printed.push(ConsoleLine {
                kind,
                text: command.to_string(),
            });
        }
        let mut stats = (*self.stats).clone();
        let failed = {
            let mut timeline = self.timeline.borrow_mut();
            stats.truncate(timeline.position() as usize);
            let touches = timeline.session().touches();
            let outcomes = run(&mut timeline, command);
            if timeline.session().touches() != touches {
                self.picked = None;
            }
            if kind != LineKind::Output {
                log_outcomes(&mut printed, &outcomes);
            } else {
                for o in outcomes.iter().filter(|o| o.result.is_err()) {
                    if let Some(text) = o.render() {
                        printed.push(ConsoleLine {
                            kind: LineKind::Error,
                            text,
                        });
                    }
                }
            }
            stats.push(Rc::new(step_stats(&timeline)));
            outcomes.iter().any(|o| o.result.is_err())
        };
        if !printed.is_empty() {
            let mut console = (*self.console).clone();
            console.extend(printed);
            // Keep the console to a readable length.
            let excess = console.len().saturating_sub(400);
            console.drain(..excess);
            self.console = Rc::new(console);
        }
        self.stats = Rc::new(stats);
        if self.draws_in_pairs() && !self.stale {
            // A fast tick: drawn with the next one. The settings follow at once: the next
            // batch is counted against them.
            self.derive_settings();
            self.stale = true;
        } else {
            self.refresh();
        }
        failed
    }

    /// Whether the viewed collection holds the workload's total.
    fn workload_done(&self) -> bool {
        self.count() >= self.workload.total
    }

    /// The notice for a workload asked to run on a collection that is already full.
    fn full_notice(&self) -> Notice {
        Notice::plain(format!(
            "{} already holds {} documents, the workload's total of {}. Raise Total to insert more.",
            self.settings.ns,
            self.count(),
            self.workload.total
        ))
    }

    /// The command of the workload's next batch into the viewed collection and its number
    /// of documents; `None` when the collection holds the workload's total.
    fn next_batch(&self) -> Option<(String, u32)> {
        let left = self.workload.total.saturating_sub(self.count());
        if left == 0 {
            return None;
        }
        let n = u64::from(self.workload.batch.max(1)).min(left) as u32;
        let w = &self.workload;
        Some((
            generate_command(&self.settings.ns, &w.spec, n, w.balance),
            n,
        ))
    }

    /// Runs one batch of the workload; stops playing when the total is reached, or when a
    /// batch fails (its error is in the console).
    fn tick(&mut self) {
        let Some((command, _)) = self.next_batch() else {
            self.playing = false;
            return;
        };
        let kind = self.run_echo();
        if self.push(&command, kind) {
            self.playing = false;
            return;
        }
        if self.workload_done() {
            self.playing = false;
            // A lesson's closing commands (a refine, an explain, ...) run once its
            // workload is done.
            if let Some(preset) = self.preset.filter(|_| !self.after_done) {
                self.after_done = true;
                for cmd in preset.after {
                    self.push(cmd, LineKind::Auto);
                }
            }
        }
    }

    /// How a timer's step is shown: steps of a run (workload batches, `sleep` steps) are
    /// not echoed one by one, only the first of each run is.
    fn run_echo(&mut self) -> LineKind {
        let first = std::mem::replace(&mut self.echo_batch, false);
        if first {
            LineKind::Auto
        } else {
            LineKind::Output
        }
    }

    /// One tick of "Let time pass": a `sleep` step (echoed once per run, as workload
    /// batches are); an error stops the clock.
    fn pass_time(&mut self) {
        let command = shardlab::workload::presets::sleep_command(PASS_TIME_MS);
        let kind = self.run_echo();
        if self.push(&command, kind) {
            self.passing = false;
        }
    }

    /// The document of the latest insert up to the cursor, when that insert was of exactly
    /// one document into the collection shown (an `insertOne`) and it is still stored:
    /// its insertion number and shard key value.
    pub fn landed(&self) -> Option<(u64, KeyValue)> {
        if self.latest_insert_count() != 1 {
            return None;
        }
        let timeline = self.timeline.borrow();
        let (seq, key, _) = timeline
            .session()
            .cluster
            .collection(&self.settings.ns)?
            .latest_insert()?;
        Some((seq, key))
    }

    /// The inspector's subject, if it is one of the collection shown.
    pub fn inspecting(&self) -> Option<&Inspect> {
        self.inspect
            .as_ref()
            .filter(|(ns, _)| *ns == self.settings.ns)
            .map(|(_, i)| i)
    }

    /// How many documents the latest step up to the cursor that inserted into the
    /// collection shown inserted (0 when none did). Steps that insert nothing (a read, a
    /// balancer round) leave it as it was.
    pub fn latest_insert_count(&self) -> u64 {
        let position = self.timeline.borrow().position() as usize;
        let steps = &self.stats[..position.min(self.stats.len())];
        steps
            .iter()
            .rev()
            .filter_map(|step| step.of(&self.settings.ns))
            .map(|c| c.inserts.values().sum::<u64>())
            .find(|n| *n > 0)
            .unwrap_or(0)
    }

    /// Inserts per shard over the last `window` inserted documents up to the cursor, as
    /// the core counts the latest inserts (whole steps, newest first, until at least
    /// `window` documents are counted).
    pub fn last_inserts(&self, window: u64) -> LatestInserts<'_> {
        let position = self.timeline.borrow().position() as usize;
        let steps = &self.stats[..position.min(self.stats.len())];
        let ns = self.settings.ns.as_str();
        LatestInserts::of(
            steps.iter().rev().map(move |step| {
                step.of(ns)
                    .into_iter()
                    .flat_map(|c| c.inserts.iter().map(|(s, n)| (s.as_str(), *n)))
            }),
            window,
        )
    }
}

/// Appends rendered outcomes to the console.
fn log_outcomes(console: &mut Vec<ConsoleLine>, outcomes: &[Outcome]) {
    for o in outcomes {
        if let Some(text) = o.render() {
            let kind = if o.result.is_err() {
                LineKind::Error
            } else {
                LineKind::Output
            };
            console.push(ConsoleLine { kind, text });
        }
    }
}

/// The first sharded collection of the timeline's cluster and its shard key as mongosh
/// prints it, if any collection is sharded.
fn first_sharded(timeline: &Timeline) -> Option<(String, String)> {
    timeline
        .session()
        .cluster
        .collections()
        .iter()
        .find_map(|(ns, c)| {
            let key = c.sharding.as_ref()?.pattern.to_pattern_document();
            Some((ns.clone(), shardlab::shell::format_document(&key)))
        })
}

/// The statistics of the step just run, for every collection.
fn step_stats(timeline: &Timeline) -> StepStats {
    let cluster = &timeline.session().cluster;
    let mut collections = Vec::new();
    for ns in cluster.collections().keys() {
        // Filled by insertion: collecting into a map sorts, and every sort is kilobytes of
        // wasm.
        let mut docs = BTreeMap::new();
        for (i, s) in cluster.shard_stats(ns).iter().enumerate() {
            if !cluster.all_shards()[i].removed {
                docs.insert(cluster.shard_name(i as u32).to_string(), s.docs);
            }
        }
        let mut inserts = BTreeMap::new();
        for (shard, n) in inserts_per_shard(timeline.events_at(), ns) {
            inserts.insert(shard, n);
        }
        collections.push((ns.clone(), CollectionStats { docs, inserts }));
    }
    StepStats { collections }
}

impl Reducible for Playground {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let tick = matches!(action, Action::Tick);
        // The command is recorded before it runs, so that if it kills the page the banner
        // after the reload can name it. It is cleared once the result is drawn and saved
        // (the page's saving hook), or here when nothing changed and nothing is drawn.
        let running = !self.ignores(&action) && self.announce(&action);
        let rev = self.rev;
        let next = self.apply(action);
        if running && next.rev == rev {
            crate::recovery::end();
        }
        // While a workload plays, the side panels catch up in turn, a few times a second,
        // rather than with every tick. A replay draws every panel with each picture: it
        // spaces its pictures by what they cost to draw (see the page's `Pace`).
        let paced = tick && next.playing;
        let due = |panel: Calm| {
            next.calm_rev(panel) != next.rev
                && (!paced
                    || (!next.hidden[panel as usize] && next.rev % CALM_EVERY == panel.phase()))
        };
        if Calm::ALL.iter().any(|p| due(*p)) {
            let mut calm = (*next).clone();
            for panel in Calm::ALL.into_iter().filter(|p| due(*p)) {
                calm.calm_revs[panel as usize] = calm.rev;
            }
            return Rc::new(calm);
        }
        next
    }
}

impl Playground {
    /// The revision a calm panel redraws on (see [`Playground::calm_revs`]).
    pub fn calm_rev(&self, panel: Calm) -> u64 {
        self.calm_revs[panel as usize]
    }

    /// The reducer proper; [`Reducible::reduce`] adds the calm revisions.
    fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        if self.ignores(&action) {
            return self;
        }
        let mut next = (*self).clone();
        match action {
            Action::Setup(settings) => {
                let fresh = Playground::from_settings(settings, next.workload.clone());
                let mut fresh = next.carry_over(fresh);
                fresh.notice = next.set_aside("Started a new cluster.");
                return Rc::new(fresh);
            }
            Action::LoadPreset(id) => match shardlab::workload::presets::preset(id) {
                Some(preset) => {
                    let mut fresh = next.carry_over(Playground::from_preset(preset));
                    fresh.notice =
                        next.set_aside(&format!("Opened the lesson '{}'.", preset.title));
                    return Rc::new(fresh);
                }
                None => {
                    next.notice = Some(Notice::plain(format!("There is no lesson called '{id}'.")));
                    next.rev += 1;
                }
            },
            Action::Restore(state) | Action::Replayed(state) => {
                let mut state = *state;
                state.rev = next.rev + 1;
                if state.replaying.is_some() {
                    state.waiting = next.waiting.clone();
                } else {
                    // Each is recorded as the command in flight, as if typed now.
                    for cmd in next.waiting.iter() {
                        crate::recovery::begin("running", Some(cmd));
                        state.command(cmd);
                    }
                }
                return Rc::new(state);
            }
            Action::Command(cmd) if next.replaying.is_some() => {
                let mut waiting = (*next.waiting).clone();
                waiting.push(cmd.trim().to_string());
                next.waiting = Rc::new(waiting);
                next.rev += 1;
            }
            other => next.act(other),
        }
        // Nothing draws a stale picture once the workload stops (a pause, a step): draw it.
        if next.stale && !next.playing {
            next.refresh();
        }
        Rc::new(next)
    }

    /// Records the command in flight (see [`crate::recovery`]) for the actions that come
    /// from the user and run commands or replay the timeline; says whether it did.
    fn announce(&self, action: &Action) -> bool {
        // While a replay runs, the record names it; a command typed meanwhile waits.
        if self.replaying.is_some() {
            return false;
        }
        // A step at the end of the timeline runs a batch; elsewhere it replays one.
        let batch = match action {
            Action::Tick => true,
            Action::Step => self.timeline.borrow().at_end(),
            _ => false,
        };
        let (doing, command) = match action {
            Action::Command(c) | Action::Auto(c) => ("running", c.trim().to_string()),
            Action::Setup(s) => (
                "applying the cluster settings",
                s.setup_commands().join("; "),
            ),
            Action::LoadPreset(id) => ("opening the lesson", (*id).to_string()),
            Action::Tick | Action::Step if batch => match self.next_batch() {
                Some((c, _)) => ("running the workload's next batch", c),
                None => return false,
            },
            Action::Step | Action::StepBack | Action::Jump(_) => {
                ("moving along the timeline", String::new())
            }
            Action::Fork => ("forking the timeline", String::new()),
            _ => return false,
        };
        let command = (!command.is_empty()).then_some(command.as_str());
        crate::recovery::begin(doing, command);
        true
    }

    /// Whether `action` would change nothing: an empty command, a tick while paused, or a
    /// panel's visibility as it already is, or anything but the replay's own pictures while
    /// a replay runs.
    fn ignores(&self, action: &Action) -> bool {
        // While a replay runs, only its own pictures, commands typed in the console (they
        // wait for its end) and the browser's visibility reports come in.
        if self.replaying.is_some() {
            return match action {
                Action::Command(cmd) => cmd.trim().is_empty(),
                Action::Replayed(_) | Action::Hidden(..) => false,
                _ => true,
            };
        }
        match action {
            // A picture of a replay that is starting (an import) comes in; the end of one
            // that is over already came.
            Action::Replayed(picture) => picture.replaying.is_none(),
            Action::Command(cmd) => cmd.trim().is_empty(),
            Action::Tick => !self.playing && !self.passing,
            Action::Hidden(panel, hidden) => self.hidden[*panel as usize] == *hidden,
            _ => false,
        }
    }

    /// A new scenario that keeps this one's console history, speed, tab and revisions.
    fn carry_over(&self, mut fresh: Playground) -> Playground {
        fresh.history = self.history.clone();
        fresh.speed = self.speed;
        fresh.mode = self.mode;
        fresh.page = self.page.clone();
        fresh.rev = self.rev + 1;
        fresh
    }

    /// Keeps this session for "Return to your session" before a new scenario replaces it,
    /// unless it holds nothing of the user's (no more steps than its own setup); the
    /// notice the new scenario shows, starting with `what`.
    fn set_aside(&self, what: &str) -> Option<Notice> {
        let steps = self.timeline.borrow().len();
        let own = self.preset.map_or(2, |p| p.setup_commands().len() as u64);
        // A guided lesson replaces the cluster at every step by design.
        if steps <= own || self.mode == Mode::Guide {
            return None;
        }
        let saved = crate::share::saved_form(self);
        if crate::storage::try_set_string(crate::share::PREVIOUS_KEY, &saved) {
            Some(Notice {
                text: format!("{what} Your previous session of {steps} steps is kept."),
                offer: Some(Offer::ReturnToSession),
            })
        } else {
            Some(Notice::plain(format!(
                "{what} Your previous session could not be kept: the browser's storage refused it."
            )))
        }
    }

    /// Brings this playground (a copy kept elsewhere: the extras module's) up to a
    /// scenario of the same cluster whose steps are `commands`, with the cursor at step
    /// `position`: the steps it lacks are run, when its own steps are the start of
    /// `commands`. Returns `false`, changing nothing, when they are not (a fork, a new
    /// lesson): the caller then replays the scenario.
    pub fn follow(&mut self, commands: &[String], position: u64) -> bool {
        let len = {
            let timeline = self.timeline.borrow();
            if !commands.starts_with(timeline.steps()) {
                return false;
            }
            timeline.steps().len()
        };
        if len < commands.len() {
            let _ = self.timeline.borrow_mut().jump(len as u64);
            for command in &commands[len..] {
                self.push(command, LineKind::Auto);
            }
        }
        if self.timeline.borrow().position() != position {
            let _ = self.timeline.borrow_mut().jump(position);
            self.refresh();
        }
        true
    }

    /// The actions that change the scenario in place.
    fn act(&mut self, action: Action) {
        match action {
            Action::Command(cmd) => self.command(cmd.trim()),
            Action::Auto(cmd) => {
                self.push(&cmd, LineKind::Auto);
            }
            Action::SetWorkload(w) => {
                self.workload = w;
                self.playing = false;
                self.rev += 1;
            }
            Action::Play => {
                if self.workload_done() {
                    self.notice = Some(self.full_notice());
                } else {
                    self.playing = true;
                    self.echo_batch = true;
                }
                self.rev += 1;
            }
            Action::View(ns) => {
                self.picked = Some(ns);
                self.refresh();
            }
            Action::SetMode(mode) => {
                self.mode = mode;
                self.rev += 1;
            }
            Action::Page(name, value) => {
                let mut page = (*self.page).clone();
                page.retain(|(n, _)| n != name);
                if let Some(v) = value {
                    page.push((name.to_string(), v));
                }
                self.page = Rc::new(page);
                self.rev += 1;
            }
            Action::Pause => {
                self.playing = false;
                self.passing = false;
                self.rev += 1;
            }
            Action::PassTime => {
                self.passing = !self.passing;
                self.echo_batch = self.passing;
                self.rev += 1;
            }
            // A tick plays the workload, or else lets time pass.
            Action::Tick if !self.playing => self.pass_time(),
            Action::Tick => self.tick(),
            Action::Hidden(panel, hidden) => self.hidden[panel as usize] = hidden,
            Action::Step => self.step(),
            Action::StepBack => {
                self.playing = false;
                self.timeline.borrow_mut().step_back();
                self.refresh();
            }
            Action::Jump(n) => {
                self.playing = false;
                let result = self.timeline.borrow_mut().jump(n);
                if let Err(e) = result {
                    self.notice = Some(Notice::plain(e.to_string()));
                }
                self.refresh();
            }
            Action::Fork => self.fork(),
            Action::Inspect(subject) => {
                self.inspect = subject.map(|i| (self.settings.ns.clone(), i));
                self.rev += 1;
            }
            Action::SetSpeed(s) => {
                self.speed = s.clamp(1, 30);
                self.rev += 1;
            }
            Action::Notice(n) => {
                self.notice = n;
                self.rev += 1;
            }
            // Each starts a new scenario: see `apply`.
            Action::Setup(_) | Action::LoadPreset(_) | Action::Restore(_) | Action::Replayed(_) => {
            }
        }
    }

    /// Runs a command typed in the console and adds it to the history.
    fn command(&mut self, cmd: &str) {
        let mut history = (*self.history).clone();
        if history.last().map(String::as_str) != Some(cmd) {
            history.push(cmd.to_string());
        }
        self.history = Rc::new(history);
        self.push(cmd, LineKind::Input);
    }

    /// One batch forward at the end of the timeline (starting the workload over when it
    /// is done), else one step forward.
    fn step(&mut self) {
        self.playing = false;
        let at_end = self.timeline.borrow().at_end();
        if at_end {
            if self.workload_done() {
                self.notice = Some(self.full_notice());
                self.rev += 1;
                return;
            }
            self.echo_batch = true;
            self.tick();
            self.playing = false;
        } else {
            self.timeline.borrow_mut().step_forward();
            self.refresh();
        }
    }

    /// Discards the steps after the cursor, and their statistics.
    fn fork(&mut self) {
        self.playing = false;
        let position = {
            let mut t = self.timeline.borrow_mut();
            t.fork();
            t.position() as usize
        };
        let mut stats = (*self.stats).clone();
        stats.truncate(position);
        self.stats = Rc::new(stats);
        self.refresh();
    }
}
