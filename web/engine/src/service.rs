//! The engine's sessions and its dispatch: one request in, one answer and any events out.
//!
//! Every request is checked ([`Request::check`]) before anything runs, because other pages
//! will be able to send them; a request that decodes but names no open session, or a
//! chunk that is not there, is refused with an error, never a panic.

use crate::held::Held;
use crate::playground::{self, save_event};
use crate::queries;
use crate::view_model::cluster_view;
use shardlab::sim::{from_json, from_query, Timeline};
use shardlab::workload::presets::generate_command;
use shardlab::{ClusterConfig, VersionMode};
use shardlab_protocol::{
    scenario_room, Call, EngineError, Event, EventMessage, Kept, Opened, Outcome, Position, Reply,
    Request, Response, Room, SessionConfig, Start, MAX_SESSIONS, PROTOCOL_VERSION,
};
use std::collections::BTreeMap;

/// The methods this engine takes, as requests name them.
pub use shardlab_protocol::METHODS;

/// The engine: every open session, by name.
#[derive(Default)]
pub struct Engine {
    sessions: BTreeMap<String, Held>,
    /// The number of the next session's handle (`s1`, `s2`, ...).
    opened: u64,
    /// Whether the engine's host writes the page's saved sessions (`page.keep`).
    keeps: bool,
    /// Whether the host runs a request again once the engine's second part has loaded
    /// (see [`Handled::wants_part`]).
    retries: bool,
}

/// What one request produced.
pub struct Handled {
    /// The answer, to send first.
    pub response: Response,
    /// Events to send after it.
    pub events: Vec<EventMessage>,
    /// Whether the request needed the engine's second part, which has not loaded: the
    /// engine put everything back as it was before the request, and the host loads the
    /// part and hands the request in again (only a host that said it does,
    /// [`Engine::retries_for_parts`]). The answer and the events are then empty.
    pub wants_part: bool,
    /// With [`Handled::wants_part`]: the request only reads its session for a panel
    /// (`events`, `heat`, `page.insights`, `inspect`, `page.workloadFit`), so the host
    /// need not hold the requests after it: it runs this one once the part is in, and its
    /// answer then reads the session as it is by then (the page asks the panels again
    /// after each step, so nothing it shows is left stale).
    pub reads_only: bool,
    /// A session's JSON form for the host to write into the page's store (`page.keep`)
    /// before it sends the answer; if the store refuses it, the host sends
    /// [`Engine::not_kept`]'s answer instead.
    pub keep: Option<Keeping>,
}

/// A saved session for the engine's host to write (see [`Handled::keep`]).
pub struct Keeping {
    /// The request it answers.
    pub request: u64,
    /// The saved session's id in the page's store.
    pub id: String,
    /// The session's JSON form, with the page's state.
    pub text: String,
    /// The page's record of the session, as JSON text, written beside it.
    pub record: String,
}

/// The handle of the `n`th session opened (`s1`, `s2`, ...).
fn handle_name(n: u64) -> String {
    format!("s{n}")
}

/// The sessions a request may change: the one it names, and a Compare tick's columns.
fn named_sessions(request: &Request) -> impl Iterator<Item = &str> {
    let columns = match &request.call {
        Call::CompareStep { columns } => columns.as_slice(),
        _ => &[],
    };
    request
        .session
        .as_deref()
        .into_iter()
        .chain(columns.iter().map(|c| c.session.as_str()))
}

impl Engine {
    /// An engine with no sessions.
    pub fn new() -> Self {
        Engine::default()
    }

    /// The names of the open sessions, in order.
    pub fn sessions(&self) -> impl Iterator<Item = &str> {
        self.sessions.keys().map(String::as_str)
    }

    /// Tells the engine that its host writes the page's saved sessions (`page.keep`):
    /// a worker, which has the page's IndexedDB. Without it, `page.keep` is refused.
    pub fn keeps_sessions(&mut self) {
        self.keeps = true;
    }

    /// Tells the engine that its host runs a request again once the engine's second part
    /// has loaded, when the request needed it ([`Handled::wants_part`]): the worker does.
    /// Elsewhere the part loads before the first request, and a statement that needs a
    /// part that could not load fails with the reason.
    pub fn retries_for_parts(&mut self) {
        self.retries = true;
    }

    /// Carries out one request. Before the engine's second part has loaded (in a host
    /// that runs requests again), the sessions the request names are copied first, and
    /// if anything in it needed the part, they are put back, a session it opened is
    /// closed again, and the answer is [`Handled::wants_part`]: so a request runs whole
    /// with its part, never twice with effects.
    pub fn handle(&mut self, request: Request) -> Handled {
        if !self.retries || crate::later::part_loaded() {
            return self.carry_out(request);
        }
        let reads_only = crate::panels::is_panel(&request.call);
        let opened = self.opened;
        let copies: Vec<(String, crate::held::HeldCopy)> = named_sessions(&request)
            .filter_map(|name| Some((name.to_string(), self.sessions.get(name)?.copy())))
            .collect();
        shardlab::support::part::take_wanted();
        let handled = self.carry_out(request);
        if !shardlab::support::part::take_wanted() {
            return handled;
        }
        if self.opened != opened {
            // A session the request opened: its handle is given again on the next try.
            self.sessions.remove(&handle_name(self.opened));
            self.opened = opened;
        }
        for (name, copy) in copies {
            if let Some(held) = self.sessions.get_mut(&name) {
                held.put_back(copy);
            }
        }
        Handled {
            wants_part: true,
            reads_only,
            events: Vec::new(),
            keep: None,
            ..handled
        }
    }

    /// Carries out one request, the engine's second part loaded or not.
    fn carry_out(&mut self, request: Request) -> Handled {
        let mut events = Vec::new();
        let method = request.call.method().to_string();
        let mut session = request.session.clone().unwrap_or_default();
        let mut keep = None;
        // Events of other sessions than the request's (`page.compareStep`'s columns).
        let mut tagged = Vec::new();
        let outcome = match request.check() {
            Ok(()) => match request.call {
                Call::Keep { id, page, record } => self
                    .keep(&session, request.id, (id, record), page)
                    .map(|(kept, keeping)| {
                        keep = keeping;
                        Reply::Kept(kept)
                    }),
                Call::CompareStep { columns } => Ok(self.compare_step(columns, &mut tagged)),
                call => self.dispatch(&mut session, call, &mut events),
            },
            Err(e) => Err(e),
        };
        let events = events
            .into_iter()
            .map(|event| EventMessage::new(session.clone(), event))
            .chain(tagged)
            .collect();
        Handled {
            response: Response {
                id: request.id,
                outcome: match outcome {
                    Ok(reply) => Outcome::Result(reply),
                    Err(e) => Outcome::Error(Some(method), e),
                },
            },
            events,
            wants_part: false,
            reads_only: false,
            keep,
        }
    }

    /// `page.keep`: the session's JSON form for the host to write with the page's record
    /// of it, unless it is over the size a session opens from (then nothing is written,
    /// and the copy that last fitted stays).
    fn keep(
        &self,
        session: &str,
        request: u64,
        (id, record): (String, String),
        page: Vec<(String, String)>,
    ) -> Result<(Kept, Option<Keeping>), EngineError> {
        if !self.keeps {
            return Err(EngineError::bad_value(
                "this engine's host keeps no sessions: ask for the session's JSON form \
                 (`scenario` with `json`) and keep it yourself",
            ));
        }
        let held = self
            .sessions
            .get(session)
            .ok_or_else(|| EngineError::no_such_session(session))?;
        let text = playground::json_form(held, page);
        let bytes = text.len() as u64;
        if scenario_room(text.len()) == Room::Over {
            let kept = Kept {
                bytes,
                kept: false,
                why: None,
            };
            return Ok((kept, None));
        }
        let kept = Kept {
            bytes,
            kept: true,
            why: None,
        };
        let keeping = Keeping {
            request,
            id,
            text,
            record,
        };
        Ok((kept, Some(keeping)))
    }

    /// The answer to `page.keep` request `request` when the page's store refused its
    /// `bytes` (see [`Handled::keep`]), with the store's reason.
    pub fn not_kept(request: u64, bytes: u64, why: String) -> Response {
        Response {
            id: request,
            outcome: Outcome::Result(Reply::Kept(Kept {
                bytes,
                kept: false,
                why: Some(why),
            })),
        }
    }

    /// An answer to a message that is not a request this engine can read: another
    /// protocol version says so, anything else is `BadValue` with the reader's complaint.
    pub fn refuse(id: u64, v: Option<u64>, why: String) -> Response {
        let error = match v {
            Some(v) if v != u64::from(PROTOCOL_VERSION) => {
                EngineError::unsupported_version(u32::try_from(v).unwrap_or(u32::MAX))
            }
            _ => EngineError::bad_value(why),
        };
        Response {
            id,
            outcome: Outcome::Error(None, error),
        }
    }

    /// Carries out a checked call about `session` (which `open` sets to the handle it
    /// gives).
    fn dispatch(
        &mut self,
        session: &mut String,
        call: Call,
        events: &mut Vec<Event>,
    ) -> Result<Reply, EngineError> {
        match call {
            Call::Catalog => Ok(Reply::Catalog(Box::new(playground::catalog()))),
            Call::Open(start) => {
                *session = self.next_handle();
                self.open(session, start, events)
            }
            Call::Close => match self.sessions.remove(session.as_str()) {
                Some(_) => Ok(Reply::Close),
                None => Err(EngineError::no_such_session(session)),
            },
            Call::CheckKey { key } => Ok(match queries::validate_key(&key, false) {
                Ok(key) => Reply::CheckKey {
                    key: Some(key),
                    error: None,
                },
                Err(message) => Reply::CheckKey {
                    key: None,
                    error: Some(EngineError::bad_value(message)),
                },
            }),
            Call::InsertCommand { ns, doc } => Ok(Reply::InsertCommand {
                text: shardlab::workload::presets::insert_one_command(&ns, &doc),
            }),
            Call::NeedsMoreInput { source } => Ok(Reply::NeedsMoreInput {
                more: shardlab::shell::needs_more_input(&source),
            }),
            Call::Compare(spec) => {
                (crate::later::later("compare")?.compare)(&spec).map(|rows| Reply::Compare { rows })
            }
            Call::Run(run) if run.workload.as_ref().is_some_and(|w| w.sample.is_some()) => {
                let run = self.sample_run(run)?;
                let held = self
                    .sessions
                    .get_mut(session.as_str())
                    .ok_or_else(|| EngineError::no_such_session(session))?;
                on_session(held, Call::Run(run), events)
            }
            call => {
                let held = self
                    .sessions
                    .get_mut(session.as_str())
                    .ok_or_else(|| EngineError::no_such_session(session))?;
                on_session(held, call, events)
            }
        }
    }

    /// `page.compareStep`: each column's batch, then its picture and row, as `run`,
    /// `frame` and `page.summary` answer them one after the other; a column's events are
    /// its session's.
    fn compare_step(
        &mut self,
        columns: Vec<shardlab_protocol::ColumnStep>,
        tagged: &mut Vec<EventMessage>,
    ) -> Reply {
        let columns = columns
            .into_iter()
            .map(|column| {
                let mut events = Vec::new();
                let stepped = self.step_column(&column, &mut events);
                tagged.extend(
                    events
                        .into_iter()
                        .map(|e| EventMessage::new(column.session.clone(), e)),
                );
                let (frame, row, error) = match stepped {
                    Ok((frame, row)) => (Some(Box::new(frame)), Some(row), None),
                    Err(e) => (None, None, Some(e)),
                };
                shardlab_protocol::ColumnStepped {
                    session: column.session,
                    frame,
                    row,
                    error,
                }
            })
            .collect();
        Reply::CompareStep { columns }
    }

    /// One column of `page.compareStep`.
    fn step_column(
        &mut self,
        column: &shardlab_protocol::ColumnStep,
        events: &mut Vec<Event>,
    ) -> Result<(shardlab_protocol::Frame, shardlab_protocol::CompareRow), EngineError> {
        let ns = shardlab_protocol::COMPARE_NS;
        if let Some(workload) = &column.run {
            let run = shardlab_protocol::RunSpec {
                workload: Some(workload.clone()),
                ..shardlab_protocol::RunSpec::default()
            };
            let run = match workload.sample {
                Some(_) => self.sample_run(run)?,
                None => run,
            };
            let held = self.held(&column.session)?;
            on_session(held, Call::Run(run), events)?;
        }
        let held = self.held(&column.session)?;
        let frame = match read_session(
            held,
            Call::Frame {
                ns: Some(ns.to_string()),
                whole: false,
            },
        )? {
            Reply::Frame(frame) => frame,
            _ => return Err(EngineError::bad_value("a frame answers with a picture")),
        };
        Ok((frame, summary(held, ns)))
    }

    /// An open session, or `NoSuchSession`.
    fn held(&mut self, session: &str) -> Result<&mut Held, EngineError> {
        self.sessions
            .get_mut(session)
            .ok_or_else(|| EngineError::no_such_session(session))
    }

    /// A workload batch read from another session's collection
    /// ([`shardlab_protocol::SampleRun`]) as the `run` of its source: the next documents
    /// in insertion order as `insertMany` statements, then the balancer round.
    fn sample_run(
        &self,
        run: shardlab_protocol::RunSpec,
    ) -> Result<shardlab_protocol::RunSpec, EngineError> {
        let Some((w, sample)) = run.workload.and_then(|w| Some((w.clone(), w.sample?))) else {
            return Err(EngineError::bad_value("a sample batch names its documents"));
        };
        let source = self
            .sessions
            .get(sample.session.as_str())
            // Not `NoSuchSession`, which says the session the request is about is gone.
            .ok_or_else(|| {
                EngineError::bad_value(format!(
                    "no open session '{}' holds the documents to replay",
                    sample.session
                ))
            })?;
        let source = crate::comparison::sample_source(
            &source.timeline.session().cluster,
            &w.ns,
            &sample,
            w.count,
            w.balance,
        )?;
        Ok(shardlab_protocol::RunSpec::source(source))
    }

    /// A handle no session of this engine has had.
    fn next_handle(&mut self) -> String {
        self.opened += 1;
        handle_name(self.opened)
    }

    fn open(
        &mut self,
        session: &str,
        start: Start,
        events: &mut Vec<Event>,
    ) -> Result<Reply, EngineError> {
        if self.sessions.len() >= MAX_SESSIONS {
            return Err(EngineError::bad_value(format!(
                "an engine holds at most {MAX_SESSIONS} sessions: close one first"
            )));
        }
        let mut errors = Vec::new();
        let held = match start {
            start @ (Start::Setup(_) | Start::Lesson { .. } | Start::Replay { .. }) => {
                let (held, mut opened) = playground::open(start, events)?;
                opened.session = session.to_string();
                opened.position = position(&held.timeline);
                self.sessions.insert(session.to_string(), held);
                return Ok(Reply::Open(Box::new(opened)));
            }
            Start::Config(config) => Held::new(Timeline::new(cluster_config(&config)?)),
            Start::Compare { column, chunk_size } => {
                compare_column(&column, chunk_size, &mut errors)?
            }
            Start::Scenario { text } => {
                let scenario = if text.trim_start().starts_with('{') {
                    from_json(&text)
                } else {
                    from_query(text.trim())
                }
                .map_err(|e| EngineError::bad_value(e.to_string()))?;
                events.push(Event::Progress {
                    done: 0,
                    total: scenario.commands.len() as u64,
                });
                Held::new(Timeline::from_scenario(&scenario))
            }
        };
        let reply = Reply::Open(Box::new(Opened {
            session: session.to_string(),
            position: position(&held.timeline),
            errors,
            view: None,
            replay: None,
        }));
        events.push(save_event(&held.timeline));
        self.sessions.insert(session.to_string(), held);
        Ok(reply)
    }
}

/// A Compare column: its cluster and setup steps, with the errors the setup met.
fn compare_column(
    column: &shardlab_protocol::CompareColumn,
    chunk_size: u64,
    errors: &mut Vec<String>,
) -> Result<Held, EngineError> {
    let version = VersionMode::parse(&column.version).ok_or_else(|| {
        EngineError::bad_value(format!("unknown version mode '{}'", column.version))
    })?;
    // The key is pasted into the setup command, so it must read as one shard key pattern.
    let key = queries::validate_key(&column.key, false).map_err(EngineError::bad_value)?;
    let mut held = Held::new(Timeline::new(ClusterConfig {
        shards: 3,
        version,
        chunk_size: None,
        seed: 1,
    }));
    held.typed_key = Some((column.key.trim().to_string(), version));
    for command in crate::comparison::setup_commands(&key, chunk_size) {
        for outcome in held.push(&command) {
            if let Err(e) = &outcome.result {
                errors.push(e.to_string());
            }
        }
    }
    Ok(held)
}

/// A new cluster's settings, from the protocol's (already checked) form.
fn cluster_config(c: &SessionConfig) -> Result<ClusterConfig, EngineError> {
    let version = VersionMode::parse(&c.version)
        .ok_or_else(|| EngineError::bad_value(format!("unknown version mode '{}'", c.version)))?;
    Ok(ClusterConfig {
        shards: c.shards,
        version,
        chunk_size: c.chunk_size,
        seed: c.seed,
    })
}

fn position(timeline: &Timeline) -> Position {
    Position {
        position: timeline.position(),
        length: timeline.len(),
    }
}

/// The calls that read or change one open session.
fn on_session(held: &mut Held, call: Call, events: &mut Vec<Event>) -> Result<Reply, EngineError> {
    match call {
        Call::Run(run) => {
            let source = match &run.workload {
                Some(w) => {
                    if !shardlab::workload::preset_names().contains(&w.name.as_str()) {
                        return Err(EngineError::bad_value(format!(
                            "unknown workload: use one of {}",
                            shardlab::workload::preset_names().join(", ")
                        )));
                    }
                    generate_command(&w.ns, &w.name, w.count, w.balance)
                }
                None => run.source,
            };
            let statements = crate::script::evaluate(held, &source, run.each);
            events.push(save_event(&held.timeline));
            Ok(Reply::Run {
                statements,
                position: position(&held.timeline),
            })
        }
        Call::Step { by } => {
            let timeline = &mut held.timeline;
            for _ in 0..by.unsigned_abs().min(timeline.len()) {
                let moved = if by > 0 {
                    timeline.step_forward()
                } else {
                    timeline.step_back()
                };
                if !moved {
                    break;
                }
            }
            Ok(Reply::Step(position(timeline)))
        }
        Call::Jump { to } => {
            let timeline = &mut held.timeline;
            timeline
                .jump(to)
                .map_err(|e| EngineError::bad_value(e.to_string()))?;
            Ok(Reply::Jump(position(timeline)))
        }
        Call::Fork => {
            held.fork();
            events.push(save_event(&held.timeline));
            Ok(Reply::Fork(position(&held.timeline)))
        }
        Call::Act(act) => playground::act(held, act, events).map(|v| Reply::Act(Box::new(v))),
        Call::Import(call) => {
            let ended = matches!(call, shardlab_protocol::ImportCall::End);
            let progress = (crate::later::later("import")?.import)(held, call)?;
            if ended && progress.inserted > 0 {
                events.push(save_event(&held.timeline));
            }
            Ok(Reply::Import(progress))
        }
        Call::ImportCluster { files } => {
            let imported = (crate::later::later("importCluster")?.import_cluster)(held, files)?;
            events.push(save_event(&held.timeline));
            Ok(Reply::ImportCluster(Box::new(imported)))
        }
        Call::Scenario { page, json } => playground::link(held, page, json),
        Call::Export => (crate::later::later("export")?.export)(held),
        call => read_session(held, call),
    }
}

/// The calls that only read one open session.
fn read_session(held: &mut Held, call: Call) -> Result<Reply, EngineError> {
    let timeline = &held.timeline;
    let session = timeline.session();
    let cluster = &session.cluster;
    match call {
        Call::Frame { ns, whole: true } => Ok(Reply::Frame(crate::script::whole_cluster(held, ns))),
        Call::Frame { ns, whole: false } => {
            let ns = ns
                .or_else(|| session.touched().map(str::to_string))
                .or_else(|| cluster.collections().keys().next().cloned())
                .unwrap_or_default();
            let view = cluster_view(cluster, &ns, &held.sent.memory());
            Ok(Reply::Frame(held.sent.send(view, timeline.position())))
        }
        Call::Target { ns, filter } => queries::target_filter(cluster, &ns, &filter)
            .map(Reply::Target)
            .map_err(EngineError::bad_value),
        Call::Summary { ns } => Ok(Reply::Summary(summary(held, &ns))),
        Call::Analyze { ns, key } => crate::script::analyze(held, &ns, &key).map(Reply::Analyze),
        Call::Rank(spec) => {
            (crate::later::later("rank")?.rank)(cluster, timeline.position(), &spec)
                .map(|view| Reply::Rank(Box::new(view)))
        }
        Call::PlanSetup { draft } => Ok(Reply::PlanSetup(queries::plan_setup(cluster, &draft))),
        #[cfg(feature = "insight")]
        Call::Explain(subject) => crate::insight::explain(cluster, &subject)
            .map(|sentences| Reply::Explain { sentences })
            .map_err(|e| server(&e)),
        #[cfg(not(feature = "insight"))]
        Call::Explain(_) => Err(EngineError::bad_value(
            "this engine was built without explanations",
        )),
        call if crate::panels::is_panel(&call) => {
            (crate::later::later(call.method())?.panels)(held, call)
        }
        _ => Err(EngineError::bad_value(
            "this method does not read a session",
        )),
    }
}

/// How `ns` fared: the comparison's row, labelled with the key as the cluster has it (as
/// typed when MongoDB refused it) and the version.
fn summary(held: &Held, ns: &str) -> shardlab_protocol::CompareRow {
    let cluster = &held.timeline.session().cluster;
    let version = held
        .typed_key
        .as_ref()
        .map_or(cluster.config().version, |(_, v)| *v);
    let key = match cluster.sharding(ns) {
        Ok(s) => queries::key_text(&s.pattern),
        Err(_) => held
            .typed_key
            .as_ref()
            .map_or_else(String::new, |(k, _)| k.clone()),
    };
    let label = format!("{key} · {}", version.label());
    crate::comparison::summarise(&label, cluster, ns, &held.inserts_into(ns))
}

/// MongoDB's error, as the protocol carries it.
#[cfg(feature = "insight")]
fn server(e: &shardlab::ClusterError) -> EngineError {
    EngineError {
        code: e.code(),
        code_name: e.code_name().to_string(),
        message: e.to_string(),
    }
}
