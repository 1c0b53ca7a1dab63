//! The playground's session: what the user does to it ([`Act`]) and the [`PageView`] it
//! answers with. These are the decisions the page's own state used to make (the console's
//! echo, the workload's batches up to a total, a lesson's closing commands, the collection
//! shown, the replay of a saved or shared scenario a slice at a time); the page now only
//! draws the answers, and measures time: it decides when a replay has run long enough and
//! sends [`Act::Finish`], so nothing here reads a clock.

use crate::held::{Held, PageState, PendingReplay};
use crate::queries::message_view;
use crate::view_model::{bar_position, cluster_view, ClusterView};
use shardlab::engine::{Arg, Message};
use shardlab::sim::{
    from_json, from_query, to_json, to_query_checked, LatestInserts, Scenario, Timeline,
    TimelineError, HOT_WINDOW,
};
use shardlab::workload::presets::{self, generate_command, Preset, PRESETS};
use shardlab::{ClusterConfig, Outcome, VersionMode};
use shardlab_protocol::{
    Act, ArgView, Catalog, CollectionInfo, EngineError, Event, Landed, LessonInfo, MessageView,
    PageLine, PageLineKind, PageSetup, PageView, Position, ReplayProgress, Reply, Start,
    VersionInfo, ViewSettings, WorkloadSpec, PASS_TIME_MS,
};
use shardlab_protocol::{
    CatalogDefaults, CatalogLimits, Opened, Replaying, COMPARE_WORKLOADS, LANGUAGES, METHODS,
    PROTOCOL_VERSION, SHARD_COLOURS,
};

/// The first console line of a session opened from the settings (the English of
/// `engine.console.welcome`).
pub const INTRO: &str =
    "ShardLab shell: type mongosh commands, e.g. sh.status() or db.events.find({x: 5}).explain()";

/// The console's first line of a session opened from the settings, as a message.
fn welcome() -> PageLine {
    said(Message::new("engine.console.welcome", Vec::new()), None)
}

/// A console line of ShardLab's own: `m`'s English, and the message for a page to word
/// (`view`, when the page words it otherwise than the core's message: a lesson's title
/// and text are the catalogue's `preset.*`).
fn said(m: Message, view: Option<MessageView>) -> PageLine {
    PageLine {
        kind: PageLineKind::Output,
        text: m.english(),
        message: Some(view.unwrap_or_else(|| message_view(&m))),
        db: None,
    }
}

/// The collection a replayed session shows when nothing else names one: the settings
/// form's default, as the page's replays had it.
const DEFAULT_NS: &str = "test.events";
/// The key shown beside [`DEFAULT_NS`] until a sharded collection is shown.
const DEFAULT_KEY: &str = "{x: 1}";

/// The shell helpers of the page's forms that not every version has (the key editor's
/// refine and reshard).
const FORM_COMMANDS: &[&str] = &["refineCollectionShardKey", "reshardCollection"];

/// The event that tells the views to save the session: its link form, while the session
/// fits in a link (a link past that would not open), and its length.
pub fn save_event(timeline: &Timeline) -> Event {
    Event::Save {
        text: to_query_checked(&timeline.to_scenario()).ok(),
        steps: timeline.len(),
    }
}

/// The most of a step's command a view is sent (4 KiB): an import's step holds its
/// documents, megabytes that the page's one line of it would never show, and that would
/// hold up the page's thread on every view at that step.
pub const MAX_STEP_SHOWN: usize = 4 << 10;

/// A step's command as a view shows it: whole, or its start and an ellipsis.
fn shown_step(step: &str) -> String {
    if step.len() <= MAX_STEP_SHOWN {
        return step.to_string();
    }
    let mut end = MAX_STEP_SHOWN;
    while !step.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &step[..end])
}

/// What one act printed and decided, before the view is drawn.
#[derive(Default)]
struct Printed {
    lines: Vec<PageLine>,
    failed: bool,
    done: bool,
    notice: Option<Message>,
    /// Whether the session's steps changed, so the views save it.
    changed: bool,
    /// Whether the view leaves out the picture (a replay's slice the page does not draw).
    no_picture: bool,
}

impl Printed {
    fn line(line: PageLine) -> Printed {
        Printed {
            lines: vec![line],
            ..Printed::default()
        }
    }

    fn extend(&mut self, more: Printed) {
        self.lines.extend(more.lines);
        self.failed |= more.failed;
        self.changed |= more.changed;
    }
}

/// Opens a playground session from the settings form, a lesson or a scenario to replay;
/// the answer is the session's first view (with the replay's page state for a replay).
pub fn open(start: Start, events: &mut Vec<Event>) -> Result<(Held, Opened), EngineError> {
    let (mut held, state, printed) = match start {
        Start::Setup(setup) => from_setup(&setup)?,
        Start::Lesson { id } => from_lesson(&id)?,
        Start::Replay { text } => return open_replay(&text, events),
        _ => {
            return Err(EngineError::bad_value(
                "this start does not open a playground",
            ))
        }
    };
    events.push(save_event(&held.timeline));
    let view = first_view(&mut held, state, printed);
    Ok((held, opened(Some(view), None)))
}

/// A new session's first view; the session keeps `state` as its page state.
fn first_view(held: &mut Held, state: PageState, printed: Printed) -> PageView {
    let mut playground = Playground::new(held, state);
    let view = playground.view(printed);
    let state = playground.state;
    held.page = Some(state);
    view
}

/// A new cluster from the settings form: the chunk size and `shardCollection` as its two
/// first steps, echoed after the intro.
fn from_setup(setup: &PageSetup) -> Result<(Held, PageState, Printed), EngineError> {
    let version = VersionMode::parse(&setup.version).ok_or_else(|| {
        EngineError::bad_value(format!("unknown version mode '{}'", setup.version))
    })?;
    let commands = [
        presets::chunk_size_command(setup.chunk_size),
        presets::shard_command(&setup.ns, &setup.key, setup.unique, setup.initial_chunks),
    ];
    let state = PageState {
        ns: setup.ns.clone(),
        key: setup.key.clone(),
        unique: setup.unique,
        ..PageState::default()
    };
    let (held, printed) = build(config(setup.shards, version), &commands, welcome());
    Ok((held, state, printed))
}

/// A lesson's cluster, by id: its setup steps run, echoed after the lesson's text.
fn from_lesson(id: &str) -> Result<(Held, PageState, Printed), EngineError> {
    let preset = presets::preset(id).ok_or_else(|| {
        // A hostile id could be long: the sentence names only its start.
        let shown: String = id.chars().take(40).collect();
        EngineError::bad_value(format!("There is no lesson called '{shown}'."))
    })?;
    let state = PageState {
        ns: preset.ns.to_string(),
        key: preset.key.to_string(),
        lesson: Some(preset),
        ..PageState::default()
    };
    let intro = lesson_line(preset);
    let config = config(preset.shards, preset.version);
    let (held, printed) = build(config, &preset.setup_commands(), intro);
    Ok((held, state, printed))
}

/// A lesson's opening line, "Lesson: ‹title›. ‹text›", its title and text worded by the
/// page from the catalogue's `preset.<id>.title` and `.text`.
fn lesson_line(preset: &Preset) -> PageLine {
    let english = Message::new(
        "engine.console.lesson",
        vec![
            ("title", Arg::Text(preset.title())),
            ("text", Arg::Text(preset.lesson())),
        ],
    );
    let part = |name: &str| {
        ArgView::Message(MessageView {
            id: format!("preset.{}.{name}", preset.id),
            args: vec![(
                "shards".to_string(),
                ArgView::Text(preset.shards.to_string()),
            )],
        })
    };
    let view = MessageView {
        id: english.id.to_string(),
        args: vec![
            ("title".to_string(), part("title")),
            ("text".to_string(), part("text")),
        ],
    };
    said(english, Some(view))
}

/// The playground's clusters: no chunk size of their own (the setup sets it) and seed 1.
fn config(shards: u32, version: VersionMode) -> ClusterConfig {
    ClusterConfig {
        shards,
        version,
        chunk_size: None,
        seed: 1,
    }
}

/// Runs `commands` on a new timeline, one step each, echoing them and their results after
/// the `intro` line.
fn build(config: ClusterConfig, commands: &[String], intro: PageLine) -> (Held, Printed) {
    let mut held = Held::new(Timeline::new(config));
    let mut printed = Printed::line(intro);
    printed.changed = true;
    for command in commands {
        let db = held.timeline.session().db.clone();
        let outcomes = held.push(command);
        printed.lines.push(PageLine {
            kind: PageLineKind::Auto,
            text: command.clone(),
            message: None,
            db: Some(db),
        });
        printed.failed |= log_outcomes(&mut printed.lines, &outcomes, true);
    }
    (held, printed)
}

/// A session on a scenario's cluster with none of its steps run yet: they run with
/// [`Act::Advance`] until [`Act::Finish`].
fn open_replay(text: &str, events: &mut Vec<Event>) -> Result<(Held, Opened), EngineError> {
    let scenario = parse_scenario(text)?;
    let total = scenario.commands.len();
    let applied = scenario.applied();
    let state = PageState {
        ns: DEFAULT_NS.to_string(),
        key: DEFAULT_KEY.to_string(),
        replay: Some(PendingReplay {
            commands: scenario.commands.clone(),
            next: 0,
            position: applied as u64,
            page: scenario.page.clone(),
        }),
        ..PageState::default()
    };
    let mut held = Held::new(Timeline::new(scenario.config()));
    events.push(Event::Progress {
        done: 0,
        total: total as u64,
    });
    let printed = Printed::line(replaying_line(total, 0));
    let view = first_view(&mut held, state, printed);
    let replay = Replaying {
        json: shardlab::sim::to_json(&scenario),
        page: scenario.page,
        position: (applied < total).then_some(applied as u64),
    };
    Ok((held, opened(Some(view), Some(replay))))
}

/// A playground's opening, for the engine to name and place its cursor.
fn opened(view: Option<PageView>, replay: Option<Replaying>) -> Opened {
    Opened {
        session: String::new(),
        position: Position::default(),
        errors: Vec::new(),
        view: view.map(Box::new),
        replay: replay.map(Box::new),
    }
}

/// A scenario as a link carries it or as its JSON form.
fn parse_scenario(text: &str) -> Result<Scenario, EngineError> {
    if text.trim_start().starts_with('{') {
        from_json(text)
    } else {
        from_query(text.trim())
    }
    .map_err(|e| EngineError::bad_value(e.to_string()))
}

fn replaying_line(total: usize, done: usize) -> PageLine {
    let m = Message::new(
        "engine.console.replaying",
        vec![
            ("total", Arg::from(total as u64)),
            ("done", Arg::from(done as u64)),
        ],
    );
    said(m, None)
}

/// Carries out one act on a playground session and answers with its view.
pub fn act(held: &mut Held, act: Act, events: &mut Vec<Event>) -> Result<PageView, EngineError> {
    let state = held.page.take().ok_or_else(|| {
        EngineError::bad_value(
            "this session is not a playground: open one from a setup, a lesson or a replay",
        )
    })?;
    let mut playground = Playground::new(held, state);
    let result = playground.act(act, events);
    let state = playground.state;
    held.page = Some(state);
    result
}

/// The session's scenario with the page's own state, as a link or as JSON.
pub fn link(held: &Held, page: Vec<(String, String)>, json: bool) -> Result<Reply, EngineError> {
    let text = if json {
        json_form(held, page)
    } else {
        to_query_checked(&with_page(held, page))
            .map_err(|e| EngineError::bad_value(e.to_string()))?
    };
    Ok(Reply::Scenario { text })
}

/// The session's scenario with the page's own state, as JSON (a saved session's form).
pub fn json_form(held: &Held, page: Vec<(String, String)>) -> String {
    to_json(&with_page(held, page))
}

/// The session's scenario with the cursor and the page's own state.
fn with_page(held: &Held, page: Vec<(String, String)>) -> Scenario {
    let timeline = &held.timeline;
    let mut scenario = timeline.to_scenario();
    // The page's links always said where the cursor was, at the end too.
    scenario.position = Some(timeline.position());
    scenario.page = page;
    scenario
}

/// The lessons, workloads and versions the page's forms offer.
pub fn catalog() -> Catalog {
    Catalog {
        protocol: PROTOCOL_VERSION,
        methods: METHODS.iter().map(|m| m.to_string()).collect(),
        lessons: PRESETS.iter().map(lesson_info).collect(),
        workloads: shardlab::workload::preset_names()
            .iter()
            .map(|n| n.to_string())
            .collect(),
        versions: shardlab_protocol::VERSIONS
            .iter()
            .filter_map(|v| VersionMode::parse(v))
            .map(|v| VersionInfo {
                label: v.label().to_string(),
                lacks: FORM_COMMANDS
                    .iter()
                    .filter(|c| !shardlab::session::has_command(v, c))
                    .map(|c| c.to_string())
                    .collect(),
            })
            .collect(),
        limits: CatalogLimits::current(),
        defaults: CatalogDefaults::current(),
        palette: SHARD_COLOURS.iter().map(|c| c.to_string()).collect(),
        languages: LANGUAGES.iter().map(|l| l.to_string()).collect(),
        compare_workloads: COMPARE_WORKLOADS.iter().map(|w| w.to_string()).collect(),
    }
}

fn lesson_info(p: &Preset) -> LessonInfo {
    LessonInfo {
        id: p.id.to_string(),
        title: p.title(),
        lesson: p.lesson(),
        setup: PageSetup {
            shards: p.shards,
            version: p.version.label().to_string(),
            chunk_size: p.chunk_size,
            key: p.key.to_string(),
            unique: false,
            initial_chunks: None,
            ns: p.ns.to_string(),
        },
        workload: WorkloadSpec {
            spec: p.workload.to_string(),
            batch: p.batch,
            total: u64::from(p.total),
            balance: p.balance,
        },
        steps: p
            .batch_commands()
            .into_iter()
            .chain(p.after.iter().map(|s| s.to_string()))
            .collect(),
    }
}

/// Console lines for `outcomes`: each one that prints, or only the errors when `all` is
/// false (a workload's later batches are not echoed); says whether any failed.
fn log_outcomes(lines: &mut Vec<PageLine>, outcomes: &[Outcome], all: bool) -> bool {
    for o in outcomes {
        let failed = o.result.is_err();
        if !(all || failed) {
            continue;
        }
        if let Some(text) = o.render() {
            let kind = if failed {
                PageLineKind::Error
            } else {
                PageLineKind::Output
            };
            lines.push(PageLine {
                kind,
                text,
                message: None,
                db: None,
            });
        }
    }
    outcomes.iter().any(|o| o.result.is_err())
}

/// One playground session while an act runs: its timeline and its page state, taken
/// apart so that both can change.
struct Playground<'a> {
    held: &'a mut Held,
    state: PageState,
}

impl<'a> Playground<'a> {
    fn new(held: &'a mut Held, state: PageState) -> Self {
        Playground { held, state }
    }

    fn act(&mut self, act: Act, events: &mut Vec<Event>) -> Result<PageView, EngineError> {
        // While a replay runs only its own acts come in: anything else would land in the
        // middle of it (the page keeps typed commands until it is over).
        let replay_act = matches!(
            act,
            Act::Advance { .. } | Act::Finish | Act::Look | Act::View { .. }
        );
        if self.state.replay.is_some() && !replay_act {
            return Err(EngineError::bad_value(
                "a replay is under way: advance or finish it first",
            ));
        }
        let printed = match act {
            Act::Command { source } => match source.trim() {
                "" => Printed::default(),
                command => self.push(command, PageLineKind::Input),
            },
            Act::Auto { source } => self.push(&source, PageLineKind::Auto),
            Act::Batch { workload, echo } => self.batch(&workload, echo),
            Act::PassTime { echo } => {
                let command = presets::sleep_command(PASS_TIME_MS);
                self.push(&command, echo_kind(echo))
            }
            Act::Forward => {
                self.held.timeline.step_forward();
                Printed::default()
            }
            Act::Back => {
                self.held.timeline.step_back();
                Printed::default()
            }
            // A step past the end moves nothing: the notice says why.
            Act::Jump { to } => Printed {
                notice: self.held.timeline.jump(to).err().map(|e| match e {
                    TimelineError::OutOfRange { requested, len } => Message::new(
                        "engine.notice.past_end",
                        vec![("requested", Arg::from(requested)), ("len", Arg::from(len))],
                    ),
                }),
                ..Printed::default()
            },
            Act::Fork => {
                self.held.fork();
                Printed {
                    changed: true,
                    ..Printed::default()
                }
            }
            Act::View { ns } => {
                self.state.picked = Some(ns);
                Printed::default()
            }
            Act::Advance { commands, picture } => {
                let mut printed = self.advance(commands, events)?;
                printed.no_picture = !picture;
                printed
            }
            Act::Finish => self.finish()?,
            Act::Look => {
                // A view that asks again has lost what it was sent: its frame is whole.
                self.held.sent.forget();
                Printed::default()
            }
        };
        if printed.changed {
            events.push(save_event(&self.held.timeline));
        }
        Ok(self.view(printed))
    }

    /// Runs one command as the next step (forking when the cursor is not at the end),
    /// echoed as `kind`; [`PageLineKind::Output`] means not echoed, and only its errors
    /// printed. A command that touches a collection makes it the one shown.
    fn push(&mut self, command: &str, kind: PageLineKind) -> Printed {
        let mut printed = Printed {
            changed: true,
            ..Printed::default()
        };
        let echoed = kind != PageLineKind::Output;
        if echoed {
            printed.lines.push(PageLine {
                kind,
                text: command.to_string(),
                message: None,
                db: Some(self.held.timeline.session().db.clone()),
            });
        }
        let touches = self.held.timeline.session().touches();
        let outcomes = self.held.push(command);
        if self.held.timeline.session().touches() != touches {
            self.state.picked = None;
        }
        printed.failed = log_outcomes(&mut printed.lines, &outcomes, echoed);
        // The page derived the collection shown after every step; the fallback (the one
        // shown last) depends on it.
        self.derive();
        printed
    }

    /// The workload's next batch into the collection shown; once it holds the total, a
    /// lesson's closing commands, once. A full collection runs nothing.
    fn batch(&mut self, workload: &WorkloadSpec, echo: bool) -> Printed {
        self.derive();
        let count = self.count();
        if count >= workload.total {
            return Printed {
                done: true,
                notice: Some(Message::new(
                    "engine.notice.workload_full",
                    vec![
                        ("ns", Arg::from(self.state.ns.as_str())),
                        ("count", Arg::from(count)),
                        ("total", Arg::from(workload.total)),
                    ],
                )),
                ..Printed::default()
            };
        }
        let n = u64::from(workload.batch.max(1)).min(workload.total - count);
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let command = generate_command(&self.state.ns, &workload.spec, n, workload.balance);
        let mut printed = self.push(&command, echo_kind(echo));
        if printed.failed {
            printed.done = true;
            return printed;
        }
        if self.count() >= workload.total {
            printed.done = true;
            // A lesson's closing commands (a refine, an explain, ...) run once its
            // workload is done.
            if let Some(preset) = self.state.lesson.filter(|_| !self.state.after_done) {
                self.state.after_done = true;
                for command in preset.after {
                    let after = self.push(command, PageLineKind::Auto);
                    printed.extend(after);
                }
            }
        }
        printed
    }

    /// Replays up to `commands` more of the pending scenario.
    fn advance(&mut self, commands: u32, events: &mut Vec<Event>) -> Result<Printed, EngineError> {
        let Some(replay) = self.state.replay.as_mut() else {
            return Err(no_replay());
        };
        // Only the session's plain calls (`run`, `step`, `fork`) could have changed it
        // meanwhile: the replay goes on from its own last step, or not at all.
        let timeline = &mut self.held.timeline;
        if timeline.steps() != &replay.commands[..replay.next.min(replay.commands.len())] {
            return Err(EngineError::bad_value(
                "the session changed during its replay: finish the replay",
            ));
        }
        let _ = timeline.jump(timeline.len());
        let end = replay
            .next
            .saturating_add(commands as usize)
            .min(replay.commands.len());
        for command in &replay.commands[replay.next.min(end)..end] {
            self.held.push(command);
        }
        replay.next = end;
        // The page drew each picture of a replay afresh (no heat since the previous one,
        // every shard's chunks), so the view does too.
        self.held.sent.forget();
        let total = replay.commands.len();
        events.push(Event::Progress {
            done: end as u64,
            total: total as u64,
        });
        Ok(Printed::line(replaying_line(total, end)))
    }

    /// Ends the pending replay, keeping the steps replayed, with the cursor at the
    /// scenario's position or the last step replayed; applies the scenario's page state
    /// that the engine owns (the lesson, whether its closing commands ran, the collection
    /// shown).
    fn finish(&mut self) -> Result<Printed, EngineError> {
        let replay = self.state.replay.take().ok_or_else(no_replay)?;
        let timeline = &mut self.held.timeline;
        let len = timeline.len();
        // Clamped to the steps there are, so the jump cannot fail.
        let _ = timeline.jump(replay.position.min(len));
        let position = timeline.position();
        self.state.after_done = true;
        for (name, value) in &replay.page {
            match name.as_str() {
                "lesson" => {
                    if let Some(preset) = presets::preset(value) {
                        self.state.lesson = Some(preset);
                    }
                }
                "after" => self.state.after_done = value == "1",
                "view" => self.state.picked = Some(value.clone()),
                _ => {}
            }
        }
        let restored = Message::new(
            "engine.console.restored",
            vec![("steps", Arg::from(len)), ("position", Arg::from(position))],
        );
        let mut printed = Printed::line(said(restored, None));
        printed.changed = true;
        Ok(printed)
    }

    /// Derives the collection shown at the cursor: the one picked, else the one the last
    /// command touched, else the first sharded one, else the one shown before; its key
    /// and uniqueness when it is sharded.
    fn derive(&mut self) {
        let session = self.held.timeline.session();
        let collections = session.cluster.collections();
        let state = &mut self.state;
        let ns = state
            .picked
            .clone()
            .filter(|ns| collections.contains_key(ns))
            .or_else(|| session.touched().map(str::to_string))
            .or_else(|| {
                collections
                    .iter()
                    .find(|(_, c)| c.sharding.is_some())
                    .map(|(ns, _)| ns.clone())
            })
            .unwrap_or_else(|| state.ns.clone());
        if let Some(sharding) = collections.get(&ns).and_then(|c| c.sharding.as_ref()) {
            state.key = key_text(sharding);
            state.unique = sharding.unique;
        }
        state.ns = ns;
    }

    /// Documents in the collection shown.
    fn count(&self) -> u64 {
        let cluster = &self.held.timeline.session().cluster;
        cluster
            .collection(&self.state.ns)
            .map_or(0, |c| c.doc_count())
    }

    /// The session at its cursor, with what this act printed.
    fn view(&mut self, printed: Printed) -> PageView {
        self.derive();
        if printed.no_picture {
            return self.progress_view(printed);
        }
        let cluster = &self.held.timeline.session().cluster;
        let picture = cluster_view(cluster, &self.state.ns, &self.held.sent.memory());
        let landed = self.landed(&picture);
        let (hot, hot_counted) = self.hot(&picture);
        let position = self.held.timeline.position();
        let frame = self.held.sent.send(picture, position);
        let timeline = &self.held.timeline;
        PageView {
            position: Position {
                position,
                length: timeline.len(),
            },
            step: position
                .checked_sub(1)
                .and_then(|i| timeline.steps().get(i as usize))
                .map(|step| shown_step(step)),
            lines: printed.lines,
            failed: printed.failed,
            done: printed.done,
            notice: printed.notice.as_ref().map(Message::english),
            notice_words: printed.notice.as_ref().map(message_view),
            settings: self.settings(),
            collections: self.collections(),
            count: self.count(),
            frame,
            landed,
            latest_inserts: self.latest_insert_count(),
            hot,
            hot_counted,
            lesson: self.state.lesson.map(|p| p.id.to_string()),
            setup_steps: self
                .state
                .lesson
                .map_or(2, |p| p.setup_commands().len() as u64),
            after_done: self.state.after_done,
            replay: self.state.replay.as_ref().map(|r| ReplayProgress {
                done: r.next as u64,
                total: r.commands.len() as u64,
            }),
            db: timeline.session().db.clone(),
        }
    }

    /// A replay's progress without its picture: the cursor, the lines and the count, and
    /// an empty frame (no collection) that a view draws nothing from.
    fn progress_view(&self, printed: Printed) -> PageView {
        PageView {
            position: Position {
                position: self.held.timeline.position(),
                length: self.held.timeline.len(),
            },
            lines: printed.lines,
            failed: printed.failed,
            settings: self.settings(),
            count: self.count(),
            lesson: self.state.lesson.map(|p| p.id.to_string()),
            setup_steps: self
                .state
                .lesson
                .map_or(2, |p| p.setup_commands().len() as u64),
            after_done: self.state.after_done,
            replay: self.state.replay.as_ref().map(|r| ReplayProgress {
                done: r.next as u64,
                total: r.commands.len() as u64,
            }),
            db: self.held.timeline.session().db.clone(),
            ..PageView::default()
        }
    }

    /// The settings at the cursor, for the collection shown.
    fn settings(&self) -> ViewSettings {
        let cluster = &self.held.timeline.session().cluster;
        ViewSettings {
            ns: self.state.ns.clone(),
            key: self.state.key.clone(),
            unique: self.state.unique,
            fields: cluster
                .sharding(&self.state.ns)
                .map(|s| s.pattern.fields().iter().map(|(f, _)| f.clone()).collect())
                .unwrap_or_default(),
            shards: cluster.all_shards().iter().filter(|s| !s.removed).count() as u32,
            version: cluster.config().version.label().to_string(),
            chunk_size: cluster.chunk_size(),
            example_filter: self.example_filter(),
        }
    }

    /// The query box's first filter: an equality on the key's first field, with a value
    /// a stored document holds (see [`ViewSettings::example_filter`]).
    fn example_filter(&self) -> Option<String> {
        let cluster = &self.held.timeline.session().cluster;
        let sharding = cluster.sharding(&self.state.ns).ok()?;
        let (field, _) = sharding.pattern.fields().first()?;
        let value = cluster.collection(&self.state.ns)?.sample_value(field)?;
        let mut filter = bson::Document::new();
        filter.insert(field.clone(), value);
        Some(shardlab::shell::format_value_with(
            &bson::Bson::Document(filter),
            &shardlab::shell::FormatOptions::lossless(),
        ))
    }

    /// Every collection, in namespace order.
    fn collections(&self) -> Vec<CollectionInfo> {
        let cluster = &self.held.timeline.session().cluster;
        cluster
            .collections()
            .iter()
            .map(|(ns, c)| CollectionInfo {
                ns: ns.clone(),
                key: c.sharding.as_ref().map(key_text).unwrap_or_default(),
                primary: c
                    .sharding
                    .is_none()
                    .then(|| {
                        let db = ns.split('.').next().unwrap_or_default();
                        cluster
                            .databases()
                            .get(db)
                            .map(|d| cluster.shard_name(d.primary).to_string())
                    })
                    .flatten(),
                docs: c.doc_count(),
            })
            .collect()
    }

    /// Documents the latest step up to the cursor that inserted into the collection
    /// shown inserted (0 when none did): steps that insert nothing leave it as it was.
    fn latest_insert_count(&self) -> u64 {
        self.held
            .stats_upto_cursor()
            .iter()
            .rev()
            .filter_map(|step| step.of_ns(&self.state.ns))
            .map(|c| c.inserts.iter().map(|(_, n)| n).sum::<u64>())
            .find(|n| *n > 0)
            .unwrap_or(0)
    }

    /// The latest insert, when it was of exactly one document into the collection shown
    /// and it is still stored: where it falls on the bar and which chunk holds it.
    fn landed(&self, picture: &ClusterView) -> Option<Landed> {
        if self.latest_insert_count() != 1 {
            return None;
        }
        let cluster = &self.held.timeline.session().cluster;
        let (seq, key, _) = cluster.collection(&self.state.ns)?.latest_insert()?;
        let chunk = picture
            .bar
            .partition_point(|b| b.chunk.key <= key)
            .checked_sub(1)
            .and_then(|i| picture.bar.get(i))
            .map(|b| crate::view_model::key_handle(&b.chunk.key));
        Some(Landed {
            seq,
            at: bar_position(picture, &key, seq),
            chunk,
        })
    }

    /// Inserts per shard over the latest [`HOT_WINDOW`] inserted documents, every shard
    /// drawn in shard order (then any other shard that took some, so they add up).
    fn hot(&self, picture: &ClusterView) -> (Vec<(String, u64)>, u64) {
        let ns = self.state.ns.as_str();
        let steps = self.held.stats_upto_cursor();
        let last = LatestInserts::of(
            steps.iter().rev().map(|step| {
                step.of_ns(ns)
                    .into_iter()
                    .flat_map(|c| c.inserts.iter().map(|(s, n)| (s.as_str(), *n)))
            }),
            HOT_WINDOW,
        );
        let mut hot: Vec<(String, u64)> = picture
            .shards
            .iter()
            .map(|s| (s.name.clone(), last.on(&s.name)))
            .collect();
        for (shard, n) in &last.per_shard {
            if !hot.iter().any(|(s, _)| s == shard) {
                hot.push((shard.to_string(), *n));
            }
        }
        (hot, last.counted)
    }
}

/// How a step of a run is echoed: the first of a run (`echo`) as automatic, the rest not.
fn echo_kind(echo: bool) -> PageLineKind {
    if echo {
        PageLineKind::Auto
    } else {
        PageLineKind::Output
    }
}

fn key_text(sharding: &shardlab::engine::Sharding) -> String {
    crate::queries::key_text(&sharding.pattern)
}

fn no_replay() -> EngineError {
    EngineError::bad_value("there is no replay under way: open the session with a replay start")
}
