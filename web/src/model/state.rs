//! The page's state: the engine's latest view of the playground's session and the page's
//! own UI state (the tab, the console's lines, the workload form, notices).
//!
//! The engine owns the session (ARCHITECTURE.md, "One engine, many views"); this state
//! only mirrors what the engine last answered. The reducer is pure: it touches no storage,
//! clock, `window` or engine. What must go to the engine is sent by the page's driver
//! (`effects::driver`), which then hands the answer back as [`Action::Viewed`].

use crate::i18n::{Words, K};
use crate::queries::{Answer, Answers, Asker};
use crate::scenes::Scene;
use serde::{Deserialize, Serialize};
use shardlab_protocol::{
    Catalog, Frame, Inspecting, PageLine, PageLineKind, PageSetup, PageView, Position, RankSpec,
    Room, ShardFrame, Start, WorkloadSpec,
};
use std::rc::Rc;

/// The first screen the build pre-renders (`web/prerender`): what the engine, run natively
/// at build time, answered for the default scenario. The release build writes it into
/// `index.html` as JSON beside the HTML rendered from it, and a first visit starts from it
/// ([`Playground::first_screen`]) so that its first render matches that HTML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstScreen {
    /// The engine's catalogue.
    pub catalog: Catalog,
    /// The engine's first view of the session [`FirstScreen::start`] opens.
    pub view: PageView,
}

impl FirstScreen {
    /// The opening the picture is of: the page's default, a new cluster from the settings
    /// form's start. (It is not in the JSON: the page knows it, and reading a `Start`
    /// would cost its wasm a decoder it needs nowhere else.)
    pub fn start() -> Start {
        Start::Setup(default_setup())
    }

    /// The first number of the requests a first visit's `<head>` sends the engine before
    /// the page's wasm has come (the early console, `index.html`): the opening of
    /// [`FirstScreen::start`] under this number, then the commands typed. The page's own
    /// requests count from 1 and never reach it, so the two never share a number.
    pub const EARLY_IDS_FROM: u64 = 1 << 52;
}

pub use crate::notices::{Notice, Offer};
pub use crate::opening::{default_setup, DEFAULT_NS};

/// The workload form's start: the monotonic workload, 25 a batch up to 1,000.
pub fn default_workload() -> Workload {
    WorkloadSpec {
        spec: "monotonic".to_string(),
        batch: 25,
        total: 1000,
        balance: true,
    }
}

/// The workload the play button runs (the protocol's form).
pub type Workload = WorkloadSpec;

/// The most documents a batch inserts.
pub const MAX_BATCH: u32 = shardlab_protocol::MAX_BATCH;
/// The largest total a workload fills up to.
pub const MAX_TOTAL: u64 = shardlab_protocol::MAX_TOTAL;

/// What the page shows: its tab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// The playground.
    #[default]
    Playground,
    /// Key comparison.
    Compare,
    /// Guided lessons.
    Guide,
}

impl Mode {
    /// The tab's name in links and the saved session.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Playground => "playground",
            Mode::Compare => "compare",
            Mode::Guide => "guide",
        }
    }

    /// The tab a link or saved session names.
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "playground" => Some(Mode::Playground),
            "compare" => Some(Mode::Compare),
            "guide" => Some(Mode::Guide),
            _ => None,
        }
    }
}

/// One console line.
pub type ConsoleLine = PageLine;
/// The kinds of console line.
pub type LineKind = PageLineKind;

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

/// Up to this many ticks a second, every tick is drawn; faster, every second tick is.
pub const DRAW_EVERY_TICK_UP_TO: u32 = 15;

/// How many pictures a second a workload playing at `speed` ticks a second draws.
pub fn drawings_per_second(speed: u32) -> u32 {
    if speed > DRAW_EVERY_TICK_UP_TO {
        speed.div_ceil(2)
    } else {
        speed
    }
}

/// While playing, each side panel redraws on one answer in this many (a few times a
/// second).
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

    /// The revision (modulo [`CALM_EVERY`]) on which this panel catches up while playing.
    fn phase(self) -> u64 {
        match self {
            Calm::Timeline => 0,
            Calm::Insights => CALM_EVERY / 2,
        }
    }
}

/// Everything the page shows.
#[derive(Clone, Debug)]
pub struct Playground {
    /// The engine's session this state draws (`page-1`, `page-2`, ...): answers for an
    /// earlier one are dropped.
    pub session: Rc<str>,
    /// The engine's latest view of it.
    pub view: Rc<PageView>,
    /// The collection shown, with every shard's chunks (a view leaves out the chunks of a
    /// shard that did not change: they are carried over from the previous frame).
    pub frame: Rc<Frame>,
    /// The lessons, workloads and versions, once the engine has told.
    pub catalog: Rc<Catalog>,
    /// The settings form's values: the cluster's, once the engine answered.
    pub settings: PageSetup,
    /// The workload form's values.
    pub workload: Workload,
    /// Whether the workload is playing.
    pub playing: bool,
    /// Whether simulated time passes ("Let time pass"): a `sleep` step a tick.
    pub passing: bool,
    /// Ticks per second.
    pub speed: u32,
    /// The console's lines.
    pub console: Rc<Vec<ConsoleLine>>,
    /// How many lines the console dropped or replaced before its first: the first line's
    /// number, which keys the lines, so that dropping the oldest redraws none of the rest.
    pub console_first: u64,
    /// Commands typed in the console, oldest first.
    pub history: Rc<Vec<String>>,
    /// A notice for the user.
    pub notice: Option<Notice>,
    /// Whether the session's saved form nears or passes what can be kept: a standing
    /// state of the session, shown beside the notices (which come and go) until the room
    /// is ample again or the user dismisses it.
    pub room: Option<Notice>,
    /// Bumped on every change drawn.
    pub rev: u64,
    /// One revision per [`Calm`] panel (see [`Playground::calm_rev`]).
    pub calm_revs: [u64; 2],
    /// Whether each [`Calm`] panel is out of sight.
    pub hidden: [bool; 2],
    /// What the inspector shows, for the collection named first.
    pub inspect: Option<(String, Inspecting)>,
    /// The tab the page shows.
    pub mode: Mode,
    /// The page's words: the language it speaks, once its catalogue is in
    /// ([`Action::Language`]). Every sentence the page draws reads them.
    pub words: Words,
    /// State the page's other panels publish for links and the saved session.
    pub page: Rc<Vec<(String, String)>>,
    /// Whether the next workload batch is echoed in the console (the first of a run).
    pub echo_batch: bool,
    /// A replay under way: no action but its own is taken meanwhile.
    pub replaying: Option<Progress>,
    /// Commands typed in the console while a replay runs or before the engine answered
    /// the first time: they run, in order, once it is over.
    pub waiting: Rc<Vec<String>>,
    /// Acts sent and not answered yet (the driver sends no new batch while one is out).
    pub in_flight: u32,
    /// Whether the engine has answered for this session yet.
    pub ready: bool,
    /// The start of the build's pre-rendered first screen, while the state draws its
    /// picture (see [`FirstScreen`]) and the engine has not answered yet: the cluster is
    /// drawn, saying that the engine is getting ready.
    pub first_screen: Option<Rc<Start>>,
    /// The user's documents the Compare tab was last asked to replay, with the keys.
    pub compare_sample: Option<Rc<CompareSample>>,
    /// Where a demo is on its way through its scenes, across sessions.
    pub demo: DemoFlow,
    /// The settings form's draft, when the user has edited it since the settings last
    /// changed ([`Action::Draft`]); see [`Playground::draft`].
    pub edited: Option<PageSetup>,
    /// The cursor as it was at each [`Calm`] panel's calm revision: what those panels ask
    /// the engine about (see [`crate::asking::wanted`]).
    pub calm_at: [Position; 2],
    /// The engine's latest answers to the panels' questions ([`crate::queries`]). A new
    /// session keeps them until its own come, so that nothing flickers.
    pub answers: Rc<Answers>,
    /// The query box's filter as typed, and what it was started over for (see
    /// [`Playground::filter`]).
    pub typed_filter: TypedFilter,
    /// The heatmap's canvas as last measured, in device pixels: its height and the width
    /// its cells take ([`Action::HeatCanvas`]); the grid asked of the engine fills it.
    pub heat_canvas: Option<(u32, u32)>,
    /// The workload's template as the user edited it ([`Action::TemplateDraft`]), with the
    /// template shown when they did (see [`Playground::template_draft`]).
    pub template_edit: Option<(String, String)>,
    /// The `analyzeShardKey` report last asked for ([`Action::Analyze`]): the session and
    /// collection it was asked of, and the click's number.
    pub analysis: Option<(Rc<str>, String, u32)>,
    /// The candidate keys' ranking last asked for ([`Action::Rank`]): the session it was
    /// asked of, what was asked, and the click's number (from 1).
    pub ranking: Option<(Rc<str>, Rc<RankSpec>, u32)>,
}

/// The query box's filter as the user typed it ([`Action::Filter`]), with the collection
/// and key it was started over for and whether the engine had an example filter then.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypedFilter {
    /// The filter.
    pub text: String,
    /// The collection and key it is for.
    pub of: (String, String),
    /// Whether the engine had an example filter for them.
    pub had_example: bool,
}

/// A demo's way through its scenes (`components/scenes_panel.rs`), which goes on across
/// the sessions its scenes open: a new session's state carries it over. No panel draws
/// it; changing it redraws nothing.
#[derive(Clone, Debug, Default)]
pub struct DemoFlow {
    /// A scene whose scenario is being opened.
    pub switching: Option<Switching>,
    /// A step a lesson's workload plays towards.
    pub reaching: Option<Reaching>,
    /// A ready-made demo asked for (its id), and the session it was asked from: its
    /// scenes are set once another session (its lesson's) is up.
    pub pending: Option<(&'static str, Rc<str>)>,
}

/// A scene whose scenario is being opened: the session it was asked from, the demo and
/// the scene to show once the new session is up.
#[derive(Clone, Debug)]
pub struct Switching {
    /// The session the scene was asked from.
    pub from: Rc<str>,
    /// The demo's scenes.
    pub list: Rc<Vec<Scene>>,
    /// The scene to show.
    pub to: usize,
}

/// A step to show once the playing workload made it: in which session, and whether the
/// workload was seen playing (before that, a stopped workload has not started yet).
#[derive(Clone, Debug)]
pub struct Reaching {
    /// The session.
    pub session: Rc<str>,
    /// The step.
    pub step: u64,
    /// Whether the workload was seen playing.
    pub played: bool,
}

/// A change to the [`DemoFlow`].
#[derive(Clone, Debug)]
pub enum DemoChange {
    /// A scene's scenario is being opened, or no longer.
    Switching(Option<Switching>),
    /// A step is played towards, or no longer.
    Reaching(Option<Reaching>),
    /// A ready-made demo waits for its lesson, or no longer.
    Pending(Option<(&'static str, Rc<str>)>),
}

/// The documents of a collection of the page's session, replayed on the Compare tab
/// batch by batch in the order they went in, one column per candidate key.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareSample {
    /// The page's session, which holds them.
    pub session: String,
    /// Their collection.
    pub ns: String,
    /// How many there are.
    pub documents: u64,
    /// The candidate keys, one column each.
    pub keys: Vec<String>,
    /// The columns' version mode.
    pub version: String,
    /// The columns' chunk size, in bytes.
    pub chunk_size: u64,
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev && Rc::ptr_eq(&self.session, &other.session)
    }
}

/// The session a state names before the engine has opened the page's first one: nothing
/// is asked about it.
pub const NO_SESSION: &str = "page-0";

impl Default for Playground {
    fn default() -> Self {
        Playground::opening(NO_SESSION)
    }
}

/// What the user can do, and what the engine answers.
#[derive(Clone, Debug)]
pub enum Action {
    /// Run a command typed in the console.
    Command(String),
    /// Run a command on the user's behalf (a button), echoed in the console.
    Auto(String),
    /// Start over with these settings, on a new cluster.
    Setup(PageSetup),
    /// Show this collection.
    View(String),
    /// Show this tab.
    SetMode(Mode),
    /// Replay the user's documents on the Compare tab, and show it.
    CompareSample(CompareSample),
    /// A panel's state for links and the saved session: `None` removes it.
    Page(&'static str, Option<String>),
    /// A demo's way through its scenes moves on (see [`DemoFlow`]): no panel draws again
    /// for it.
    Demo(DemoChange),
    /// Start over with a lesson.
    LoadPreset(String),
    /// Open the scenario a workshop scene shows (a lesson or a session's link form), as a
    /// session of its own; the scenes panel then shows the scene's step.
    OpenScene(crate::scenes::Shows),
    /// Change the workload (stops playing).
    SetWorkload(Workload),
    /// The workload of the lesson just opened (playing, if asked already, goes on).
    LessonWorkload(Workload),
    /// Start playing the workload.
    Play,
    /// Stop playing.
    Pause,
    /// One batch forward (or one step forward when scrubbed back).
    Step,
    /// One step back.
    StepBack,
    /// One tick of the playing workload (or of passing time).
    Tick,
    /// Starts or stops letting simulated time pass.
    PassTime,
    /// A calm panel went out of sight (`true`) or came back into it (`false`).
    Hidden(Calm, bool),
    /// Move the cursor to step `n`.
    Jump(u64),
    /// Shows a subject in the inspector (of the collection shown), or closes it.
    Inspect(Option<Inspecting>),
    /// Discard the steps after the cursor.
    Fork,
    /// Change the speed.
    SetSpeed(u32),
    /// Show or clear a notice.
    Notice(Option<Notice>),
    /// Show or clear what the page says about the room left for the session's saved form.
    Room(Option<Notice>),
    /// The driver sent an act for the session (counted until answered).
    Sent,
    /// Cancel what the engine is doing for the page: the session goes back to how it was
    /// before it.
    Cancel,
    /// The engine's view of `session` after an act (or an open).
    Viewed(Rc<str>, Rc<PageView>),
    /// An act failed in the engine (not a shell error: those are console lines).
    Refused(Rc<str>, String),
    /// The lessons, workloads and versions.
    Cataloged(Rc<Catalog>),
    /// The page now draws another session (a new cluster, a lesson, a link, a replay):
    /// the state to start from, its notice already set, and whether its workload is its
    /// own (a lesson's) rather than the one the form holds now.
    Switch(Box<Playground>, bool),
    /// A replay's progress.
    Replaying(Option<Progress>),
    /// A typed command waits for the replay (or the first answer) to end.
    Wait(String),
    /// The waiting commands were handed to the engine.
    Drained,
    /// A replay is over: the page's own state the scenario carried (checked here), and
    /// the notice saying how it went.
    Concluded {
        /// The scenario's name/value pairs.
        page: Vec<(String, String)>,
        /// How the replay went.
        notice: Option<Notice>,
    },
    /// The saved session stays as it is until the user does something (see
    /// [`crate::update::Model::hold`]).
    Hold,
    /// The session just opened is a scene's (see [`crate::update::Model::scene_owned`]).
    SceneOpened,
    /// Show scene `n` of the demo (see [`crate::demo::show`]).
    ShowScene(usize),
    /// End the demo (see [`crate::demo::end`]).
    EndDemo,
    /// The page speaks these words now: their catalogue is in (or could not be read).
    Language(Words),
    /// The engine saved this session's link form (`None`: past what a link holds); see
    /// [`crate::update::Model::saved`].
    LinkForm(Rc<str>, Option<String>),
    /// Open a new session for the page (`true`: the first, keeping the page's UI as it
    /// is); see [`crate::update`].
    Open(Box<crate::opening::Opening>, bool),
    /// The engine answered an opening of the page's current session.
    OpeningAnswered,
    /// The engine refused an imported scenario (its words): back to the session the
    /// import replaced, if it is still open.
    BackFromImport(String),
    /// A view of a panel that asks the engine came on screen (`true`) or went: the model
    /// asks its question while one is ([`crate::queries`]).
    InSight(Asker, bool),
    /// The settings form's draft, as the user edits it: the engine plans it.
    Draft(PageSetup),
    /// The query box's filter, as the user types it: the engine routes it.
    Filter(String),
    /// The heatmap's canvas, measured: its height and the width of its cells, in device
    /// pixels.
    HeatCanvas(u32, u32),
    /// The workload's template, as the user edits it: the engine checks it.
    TemplateDraft(String),
    /// "Analyze this key": a report on the collection shown, asked anew on each click.
    Analyze,
    /// "Rank": the candidate keys ranked as asked, anew on each click.
    Rank(RankSpec),
    /// The user's Cancel found nothing to stop.
    NotStopped,
    /// The next replay opened stops after this many commands (of how many): what a
    /// cancelled replay had replayed.
    StopAt(usize, usize),
    /// The engine's answer to a panel's question, with the question's number.
    Answered(Asker, u64, Answer),
    /// The engine saved a session's form: where it stands against what can be kept (the
    /// page says so when that moved: `crate::update::Model::room`).
    Measured(Box<Measure>),
}

/// A saved form measured (see [`Action::Measured`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// The session saved.
    pub session: Rc<str>,
    /// Where its form stands against what can be kept.
    pub room: Room,
    /// Its size, in bytes.
    pub size: usize,
    /// The page's own state the save carried.
    pub page: Vec<(String, String)>,
    /// The form itself, where the page has it (it saves it itself).
    pub text: Option<Rc<str>>,
}

impl Playground {
    /// A state for engine session `session`, before its first answer.
    pub fn opening(session: &str) -> Self {
        Playground {
            session: Rc::from(session),
            view: Rc::new(PageView::default()),
            frame: Rc::new(Frame::default()),
            catalog: Rc::new(Catalog::default()),
            settings: default_setup(),
            workload: default_workload(),
            playing: false,
            passing: false,
            speed: 4,
            console: Rc::new(Vec::new()),
            console_first: 0,
            history: Rc::new(Vec::new()),
            notice: None,
            room: None,
            rev: 0,
            calm_revs: [0; 2],
            hidden: [false; 2],
            inspect: None,
            mode: Mode::default(),
            words: Words::ENGLISH,
            page: Rc::new(Vec::new()),
            echo_batch: true,
            replaying: None,
            waiting: Rc::new(Vec::new()),
            in_flight: 0,
            ready: false,
            first_screen: None,
            compare_sample: None,
            demo: DemoFlow::default(),
            edited: None,
            calm_at: [Position::default(); 2],
            answers: Rc::new(Answers::new()),
            typed_filter: TypedFilter::default(),
            heat_canvas: None,
            template_edit: None,
            analysis: None,
            ranking: None,
        }
    }

    /// The state a first visit starts from: the build's picture of the default scenario
    /// (see [`FirstScreen`]), drawn while the engine loads. The page's first render from
    /// it is the pre-rendered HTML, which the page hydrates.
    pub fn first_screen(first: &FirstScreen) -> Self {
        let mut state = Playground {
            catalog: Rc::new(first.catalog.clone()),
            ..Playground::default()
        };
        state.take_view(Rc::new(first.view.clone()));
        state.ready = false;
        state.first_screen = Some(Rc::new(FirstScreen::start()));
        state
    }

    /// Keeps `old`'s pre-rendered first screen (its picture, settings and console) until
    /// the engine's own answer replaces it, if it is of `start`, what opens now; anything
    /// else waits for its answer.
    pub fn keep_first_screen(&mut self, old: &Playground, start: &Start) {
        if old.first_screen.as_deref() == Some(start) {
            self.first_screen = old.first_screen.clone();
            self.view = old.view.clone();
            self.frame = old.frame.clone();
            self.settings = old.settings.clone();
            self.console = old.console.clone();
        }
    }

    /// Whether the state draws a cluster: the engine's answer for the session, or the
    /// pre-rendered first screen's picture until it comes.
    pub fn pictured(&self) -> bool {
        self.ready || self.first_screen.is_some()
    }

    /// A state for a new session that keeps this one's console history, speed, tab,
    /// panels' state, catalog and revisions.
    pub fn successor(&self, session: &str) -> Playground {
        Playground {
            history: self.history.clone(),
            speed: self.speed,
            mode: self.mode,
            words: self.words,
            page: self.page.clone(),
            catalog: self.catalog.clone(),
            workload: self.workload.clone(),
            rev: self.rev + 1,
            calm_revs: self.calm_revs,
            answers: self.answers.clone(),
            typed_filter: self.typed_filter.clone(),
            heat_canvas: self.heat_canvas,
            ..Playground::opening(session)
        }
    }

    /// The settings form's values as the user sees them: the settings, or the draft
    /// edited since they last changed.
    pub fn draft(&self) -> &PageSetup {
        self.edited.as_ref().unwrap_or(&self.settings)
    }

    /// The query box's filter: as typed, or started over as the engine's example (an
    /// equality on the key's first field with a value the collection holds, else `{}`)
    /// when the collection or its key changed since, or once when the collection got its
    /// first document (replacing only the `{}` placeholder, never a typed filter).
    pub fn filter(&self) -> String {
        self.started_filter()
            .map_or_else(|| self.typed_filter.text.clone(), |f| f.text)
    }

    /// The filter started over, if it is due (see [`Playground::filter`]).
    fn started_filter(&self) -> Option<TypedFilter> {
        let example = self.view.settings.example_filter.clone();
        let of = (self.settings.ns.clone(), self.frame.key.clone());
        let typed = &self.typed_filter;
        let first_document = example.is_some() && !typed.had_example && typed.text == "{}";
        (typed.of != of || first_document).then(|| TypedFilter {
            had_example: example.is_some(),
            text: example.unwrap_or_else(|| "{}".to_string()),
            of,
        })
    }

    /// The shards the query box's filter goes to, as the engine last answered: the
    /// cluster outlines them.
    pub fn targeted(&self) -> Vec<String> {
        match self.answers.get(&Asker::Target).map(|a| &*a.result) {
            Some(Ok(shardlab_protocol::Reply::Target(t))) => t.shards.clone(),
            _ => Vec::new(),
        }
    }

    /// The shape of the documents the workload generates, as a `sim.generate` template
    /// (the engine's answer about the workload; the workload's own text until it comes).
    pub fn template_shown(&self) -> String {
        match self.answers.get(&Asker::KeyFit).map(|a| &*a.result) {
            Some(Ok(shardlab_protocol::Reply::WorkloadFit(f))) => f.shown.clone().ok(),
            _ => None,
        }
        .unwrap_or_else(|| self.workload.spec.clone())
    }

    /// The template in the workload's editor: as the user edited it, until the template
    /// shown changes (another workload, a template applied), then that one.
    pub fn template_draft(&self) -> String {
        let shown = self.template_shown();
        match &self.template_edit {
            Some((at, draft)) if *at == shown => draft.clone(),
            _ => shown,
        }
    }

    /// The number of the click on Rank this session asked last, if any.
    pub fn ranked(&self) -> Option<u32> {
        self.ranking
            .as_ref()
            .filter(|r| r.0 == self.session)
            .map(|r| r.2)
    }

    /// The latest answer to `asker`'s question.
    pub fn answer(&self, asker: Asker) -> Option<Answer> {
        self.answers.get(&asker).cloned()
    }

    /// The cursor a calm panel asks about: where it was at the panel's calm revision.
    pub fn calm_at(&self, panel: Calm) -> Position {
        self.calm_at[panel as usize]
    }

    /// The revision a calm panel redraws on.
    pub fn calm_rev(&self, panel: Calm) -> u64 {
        self.calm_revs[panel as usize]
    }

    /// The collection's documents at the cursor: the workload's progress.
    pub fn count(&self) -> u64 {
        self.view.count
    }

    /// Whether the cursor is at the end of the timeline.
    pub fn at_end(&self) -> bool {
        self.view.position.position >= self.view.position.length
    }

    /// The inspector's subject, if it is one of the collection shown.
    pub fn inspecting(&self) -> Option<&Inspecting> {
        self.inspect
            .as_ref()
            .filter(|(ns, _)| *ns == self.settings.ns)
            .map(|(_, i)| i)
    }

    /// The lesson the session was opened from.
    pub fn lesson(&self) -> Option<&shardlab_protocol::LessonInfo> {
        let id = self.view.lesson.as_deref()?;
        self.catalog.lessons.iter().find(|l| l.id == id)
    }

    /// A panel's published state.
    pub fn page_value(&self, name: &str) -> Option<&str> {
        self.page
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The page's own state for links and the saved session: the lesson, the workload,
    /// the viewed collection, the tab, and what the other panels published.
    pub fn page_entries(&self) -> Vec<(String, String)> {
        let w = &self.workload;
        let mut out: Vec<(String, String)> = Vec::new();
        let mut put = |name: &str, value: String| out.push((name.to_string(), value));
        if let Some(id) = &self.view.lesson {
            put("lesson", id.clone());
            put(
                "after",
                if self.view.after_done { "1" } else { "0" }.to_string(),
            );
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

    /// Applies the page's own state read from a link or a saved session, checking every
    /// value (a link can say anything); returns what was left out and why. The lesson and
    /// the collection shown are the engine's to check: they come back as `(lesson, view)`.
    pub fn apply_page(
        &mut self,
        page: &[(String, String)],
    ) -> (Vec<String>, Option<String>, Option<String>) {
        let mut problems = Vec::new();
        let (mut lesson, mut view) = (None, None);
        for (name, value) in page {
            let shown: String = value.chars().take(40).collect();
            let ok = match name.as_str() {
                "lesson" => {
                    lesson = Some(value.clone());
                    true
                }
                "after" => true,
                "workload" | "batch" | "total" | "balance" => self.apply_workload(name, value),
                "view" => {
                    view = Some(value.clone());
                    true
                }
                "tab" => match Mode::parse(value) {
                    Some(m) => {
                        self.mode = m;
                        true
                    }
                    None => false,
                },
                // The scenes are checked here (a link can say anything); the scene on
                // screen is checked against them by the scenes panel.
                crate::scenes::SCENES_ENTRY => match crate::scenes::parse(value) {
                    Ok(_) => {
                        self.publish(name, value);
                        true
                    }
                    Err(e) => {
                        problems.push(self.words.tf(K::StateScenesLeftOut, &[("error", &e)]));
                        continue;
                    }
                },
                "guide" | "compare" | crate::scenes::SCENE_ENTRY => {
                    self.publish(name, value);
                    true
                }
                other => {
                    let other: String = other.chars().take(40).collect();
                    problems.push(self.words.tf(K::StateUnknownSetting, &[("name", &other)]));
                    continue;
                }
            };
            if !ok {
                problems.push(
                    self.words
                        .tf(K::StateNotValid, &[("value", &shown), ("name", name)]),
                );
            }
        }
        (problems, lesson, view)
    }

    /// Takes one of the workload's settings from a link; `false` if its value is not one.
    fn apply_workload(&mut self, name: &str, value: &str) -> bool {
        match name {
            "workload" => {
                let ok = !value.trim().is_empty() && value.len() <= 16 << 10;
                if ok {
                    self.workload.spec = value.to_string();
                }
                ok
            }
            "batch" => match value.parse::<u32>() {
                Ok(n) if (1..=MAX_BATCH).contains(&n) => {
                    self.workload.batch = n;
                    true
                }
                _ => false,
            },
            "total" => match value.parse::<u64>() {
                Ok(n) if (1..=MAX_TOTAL).contains(&n) => {
                    self.workload.total = n;
                    true
                }
                _ => false,
            },
            _ => {
                self.workload.balance = value != "0";
                true
            }
        }
    }

    /// Keeps a panel's published state, in place of what it published before.
    fn publish(&mut self, name: &str, value: &str) {
        let mut own = (*self.page).clone();
        own.retain(|(n, _)| n != name);
        own.push((name.to_string(), value.to_string()));
        self.page = Rc::new(own);
    }

    /// Ends a replay: applies the page's own state it carried and says how it went, with
    /// any of that state that was left out.
    fn conclude(&mut self, page: &[(String, String)], notice: Option<Notice>) {
        let (problems, _, _) = self.apply_page(page);
        let mut notice = notice;
        if !problems.is_empty() {
            let text = self.words.tf(
                K::StateSettingsLeftOut,
                &[("problems", &problems.join("; "))],
            );
            notice = Some(match notice {
                Some(n) => Notice {
                    words: None,
                    text: format!("{} {text}", n.text),
                    offer: n.offer,
                },
                None => Notice::plain(text),
            });
        }
        if notice.is_some() {
            self.notice = notice;
        }
        self.replaying = None;
    }

    /// Takes in the engine's view: the frame (carrying over unchanged shards' chunks), the
    /// settings, and the console lines it printed.
    fn take_view(&mut self, view: Rc<PageView>) {
        // The frame is moved out of the view, not copied: the page keeps one copy of the
        // picture (in `frame`), and a workload's answers carry every changed shard's chunks.
        let mut view = Rc::unwrap_or_clone(view);
        let frame = std::mem::take(&mut view.frame);
        // A replay's slice without its picture (an empty frame) leaves the picture shown.
        if !(view.replay.is_some() && frame.ns.is_empty()) {
            self.frame = Rc::new(merge_into(&self.frame, frame));
        }
        let view = Rc::new(view);
        let s = &view.settings;
        self.settings.ns = s.ns.clone();
        if !s.key.is_empty() {
            self.settings.key = s.key.clone();
            self.settings.unique = s.unique;
        }
        self.settings.shards = s.shards;
        if !s.version.is_empty() {
            self.settings.version = s.version.clone();
        }
        if s.chunk_size > 0 {
            self.settings.chunk_size = s.chunk_size;
        }
        if view.replay.is_some() || self.view.replay.is_some() || self.first_screen.is_some() {
            // A replay's pictures say how far it has come, each in place of the last, and
            // its end says what it restored; the engine's first answer replaces the
            // pre-rendered first screen's lines, which are the same.
            self.console_first += self.console.len() as u64;
            self.console = Rc::new(view.lines.clone());
        } else if !view.lines.is_empty() {
            let mut console = (*self.console).clone();
            console.extend(view.lines.iter().cloned());
            // Keep the console to a readable length.
            let excess = console.len().saturating_sub(400);
            console.drain(..excess);
            self.console_first += excess as u64;
            self.console = Rc::new(console);
        }
        if let Some(text) = &view.notice {
            self.notice = Some(Notice {
                words: view.notice_words.clone(),
                ..Notice::plain(text.clone())
            });
        }
        if view.done {
            self.playing = false;
        }
        if view.failed {
            self.playing = false;
            self.passing = false;
        }
        self.view = view;
        self.ready = true;
        self.first_screen = None;
    }

    /// A new session's state, keeping what the page keeps across sessions, taken from the
    /// state as it is now, not from the snapshot the driver made the new one from (actions
    /// may have come in between: a panel publishing its state just before a lesson opens).
    fn switched(&self, mut fresh: Playground, own_workload: bool) -> Rc<Self> {
        if !own_workload {
            fresh.workload = self.workload.clone();
        }
        fresh.history = self.history.clone();
        fresh.speed = self.speed;
        fresh.mode = self.mode;
        fresh.page = self.page.clone();
        fresh.catalog = self.catalog.clone();
        fresh.hidden = self.hidden;
        fresh.calm_revs = self.calm_revs;
        fresh.answers = self.answers.clone();
        fresh.typed_filter = self.typed_filter.clone();
        fresh.heat_canvas = self.heat_canvas;
        fresh.waiting = self.waiting.clone();
        fresh.demo = self.demo.clone();
        // Play or Let time pass pressed before the page's first session opened goes on
        // in it: its ticks wait for the session's first answer.
        if &*self.session == NO_SESSION {
            fresh.playing |= self.playing;
            fresh.passing |= self.passing;
        }
        fresh.rev = self.rev + 1;
        Rc::new(fresh)
    }

    /// The update proper; [`Playground::next`] adds the calm revisions.
    fn apply(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Switch(state, own_workload) => return self.switched(*state, own_workload),
            Action::Viewed(session, view) => {
                if session != self.session {
                    return self;
                }
                next.in_flight = next.in_flight.saturating_sub(1);
                next.take_view(view);
            }
            Action::Refused(session, message) => {
                if session != self.session {
                    return self;
                }
                next.in_flight = next.in_flight.saturating_sub(1);
                next.playing = false;
                next.passing = false;
                next.notice = Some(Notice::plain(message));
            }
            Action::Sent => next.in_flight += 1,
            // The driver stops the engine; what follows arrives as the engine's answers.
            Action::Cancel => return self,
            Action::Cataloged(catalog) => next.catalog = catalog,
            // The progress bar alone: no panel draws again for it.
            Action::Replaying(progress) => {
                next.replaying = progress;
                return Rc::new(next);
            }
            // Only the panel that asked draws it (its props carry the answer): no revision
            // moves, so no other panel asks again.
            Action::Answered(asker, _, answer) => {
                let mut answers = (*next.answers).clone();
                answers.insert(asker, answer);
                next.answers = Rc::new(answers);
                return Rc::new(next);
            }
            // Bookkeeping: no panel draws again for it.
            Action::Demo(change) => {
                match change {
                    DemoChange::Switching(s) => next.demo.switching = s,
                    DemoChange::Reaching(r) => next.demo.reaching = r,
                    DemoChange::Pending(p) => next.demo.pending = p,
                }
                return Rc::new(next);
            }
            Action::Wait(cmd) => {
                let mut waiting = (*next.waiting).clone();
                waiting.push(cmd);
                next.waiting = Rc::new(waiting);
            }
            Action::Drained => next.waiting = Rc::new(Vec::new()),
            Action::Concluded { page, notice } => next.conclude(&page, notice),
            Action::Command(cmd) => {
                let mut history = (*next.history).clone();
                if history.last() != Some(&cmd) {
                    history.push(cmd);
                }
                next.history = Rc::new(history);
            }
            other => next.act(other),
        }
        next.rev += 1;
        Rc::new(next)
    }

    /// What the user typed or chose in a panel, and what a panel measured of itself.
    fn edit(&mut self, action: Action) {
        match action {
            Action::Draft(draft) => self.edited = Some(draft),
            Action::HeatCanvas(rows, cells) => self.heat_canvas = Some((rows, cells)),
            Action::Inspect(subject) => {
                self.inspect = subject.map(|i| (self.settings.ns.clone(), i));
            }
            Action::SetSpeed(s) => self.speed = s.clamp(1, 30),
            Action::Page(name, value) => {
                let mut page = (*self.page).clone();
                page.retain(|(n, _)| n != name);
                if let Some(v) = value {
                    page.push((name.to_string(), v));
                }
                self.page = Rc::new(page);
            }
            Action::Analyze => {
                let n = self.analysis.as_ref().map_or(0, |a| a.2.wrapping_add(1));
                self.analysis = Some((self.session.clone(), self.settings.ns.clone(), n));
            }
            Action::Rank(spec) => {
                let n = self.ranking.as_ref().map_or(1, |r| r.2.wrapping_add(1));
                self.ranking = Some((self.session.clone(), Rc::new(spec), n));
            }
            Action::TemplateDraft(text) => self.template_edit = Some((self.template_shown(), text)),
            Action::Filter(text) => {
                self.typed_filter = self
                    .started_filter()
                    .unwrap_or_else(|| self.typed_filter.clone());
                self.typed_filter.text = text;
            }
            _ => {}
        }
    }

    /// The actions that change only the page's own state. (What they ask of the engine,
    /// the driver sends.)
    fn act(&mut self, action: Action) {
        match action {
            Action::SetWorkload(w) => {
                self.workload = w;
                self.playing = false;
            }
            Action::LessonWorkload(w) => self.workload = w,
            Action::Play => {
                self.playing = true;
                self.echo_batch = true;
            }
            Action::Pause => {
                self.playing = false;
                self.passing = false;
            }
            Action::PassTime => {
                self.passing = !self.passing;
                self.echo_batch = self.passing;
            }
            Action::Tick => self.echo_batch = false,
            Action::Step => {
                self.playing = false;
                self.echo_batch = true;
            }
            Action::StepBack | Action::Jump(_) | Action::Fork => self.playing = false,
            Action::SetMode(mode) => self.mode = mode,
            Action::Language(words) => self.words = words,
            Action::CompareSample(sample) => {
                self.compare_sample = Some(Rc::new(sample));
                self.mode = Mode::Compare;
            }
            Action::Hidden(panel, hidden) => self.hidden[panel as usize] = hidden,
            Action::Draft(_)
            | Action::Page(..)
            | Action::Inspect(_)
            | Action::SetSpeed(_)
            | Action::Analyze
            | Action::Rank(_)
            | Action::HeatCanvas(..)
            | Action::TemplateDraft(_)
            | Action::Filter(_) => self.edit(action),
            Action::Notice(n) => self.notice = n,
            Action::Room(n) => self.room = n,
            Action::View(_)
            | Action::Auto(_)
            | Action::Setup(_)
            | Action::LoadPreset(_)
            | Action::OpenScene(_)
            | Action::Command(_)
            | Action::Sent
            | Action::Cancel
            | Action::Viewed(..)
            | Action::Refused(..)
            | Action::Cataloged(_)
            | Action::Switch(..)
            | Action::Replaying(_)
            | Action::Demo(_)
            | Action::Wait(_)
            | Action::Drained
            | Action::Concluded { .. }
            | Action::Hold
            | Action::SceneOpened
            | Action::ShowScene(_)
            | Action::LinkForm(..)
            | Action::Open(..)
            | Action::OpeningAnswered
            | Action::BackFromImport(_)
            | Action::InSight(..)
            | Action::Answered(..)
            | Action::Measured(_)
            | Action::NotStopped
            | Action::StopAt(..)
            | Action::EndDemo => {}
        }
    }
}

/// The model's newest playground, shown: the view's handle adopts it as it is (the page's
/// one update is [`crate::update::update`]; nothing else changes the playground).
pub struct Shown(pub Rc<Playground>);

impl Playground {
    /// The playground after `action` (the update proper, `Playground::apply`), with the
    /// calm panels' revisions caught up where they are due.
    pub fn next(self: Rc<Self>, action: Action) -> Rc<Self> {
        let answer = matches!(action, Action::Viewed(..));
        // A demo's bookkeeping catches no panel up.
        let quiet = matches!(action, Action::Demo(_) | Action::Answered(..));
        let before = self.clone();
        let mut next = self.apply(action);
        if quiet {
            return next;
        }
        // The cluster's settings changed (a command, a step, a lesson, a link): the form
        // shows them, whatever was drafted.
        if next.edited.is_some() && next.settings != before.settings {
            Rc::make_mut(&mut next).edited = None;
        }
        // The query box's filter starts over when its collection or key changed.
        if let Some(started) = next.started_filter() {
            Rc::make_mut(&mut next).typed_filter = started;
        }
        // While a workload plays, the side panels catch up in turn, a few times a second,
        // rather than with every answer.
        let paced = answer && (next.playing || next.passing);
        let due = |panel: Calm| {
            next.calm_rev(panel) != next.rev
                && (!paced
                    || (!next.hidden[panel as usize] && next.rev % CALM_EVERY == panel.phase()))
        };
        if Calm::ALL.iter().any(|p| due(*p)) {
            let mut calm = (*next).clone();
            for panel in Calm::ALL.into_iter().filter(|p| due(*p)) {
                calm.calm_revs[panel as usize] = calm.rev;
                calm.calm_at[panel as usize] = calm.view.position;
            }
            return Rc::new(calm);
        }
        next
    }
}

/// `next` with the chunks of each shard it leaves out (`chunks: None`) taken from `previous`.
pub fn merge_frame(previous: &Frame, next: &Frame) -> Frame {
    merge_into(previous, next.clone())
}

/// [`merge_frame`], taking the next frame as it is.
fn merge_into(previous: &Frame, mut frame: Frame) -> Frame {
    let next_ns = frame.ns.clone();
    for shard in &mut frame.shards {
        if shard.chunks.is_none() {
            shard.chunks = previous
                .shards
                .iter()
                .find(|s| s.name == shard.name && previous.ns == next_ns)
                .and_then(|s: &ShardFrame| s.chunks.clone())
                .or_else(|| Some(Vec::new()));
        }
    }
    frame
}
