//! The page's effects in one place: what goes to the engine, the replays, and the saving.
//!
//! The driver is the page's runtime: it owns the [`Model`], and every message, whether a
//! component sent it or an effect brought it back, goes through the one
//! [`update`]. The update returns [`Effect`]s as values; the driver
//! carries them out (engine requests, new sessions, stopping the engine) and sends what
//! comes of them back as messages, then shows the model's newest playground to the view.
//! The engine runs in a worker, so nothing here waits: a slow engine slows the playground,
//! never the page.

use crate::engine_client::{self, ENGINE_RESTARTED};
use crate::i18n::{Lang, Words, K};
use crate::platform::now_ms;
use crate::queries::{Answer, Ask};
use crate::recovery;
use crate::sessions;
use crate::startup::{self, Budget, Cut, Ending, Opening, Source};
use crate::state::{Action, Measure, Notice, Playground, Progress, Shown};
use crate::update::{update, Effect, Model};
use shardlab_protocol::{
    scenario_room, Act, Call, EngineError, Event, Opened, PageView, Replaying, Reply, Room, Start,
    MAX_SCENARIO_BYTES,
};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A replay under way: the engine replays the scenario a slice at a time, asked by
/// `advance` after the page has drawn the previous slice.
struct Run {
    session: Rc<str>,
    source: Source,
    what: &'static str,
    total: usize,
    done: usize,
    started: f64,
    /// Commands per `advance`, tuned to take about [`SLICE_MS`] of the engine's time.
    chunk: u32,
    /// When the last picture was asked for (`performance.now`).
    pictured: f64,
    /// What drawing the last picture cost the page, in milliseconds.
    picture_cost: f64,
    cancelled: bool,
    /// Where a replay reopened after a forced Cancel stops (see [`Driver::cancel`]): the
    /// commands replayed before it, and the scenario's.
    stop_at: Option<(usize, usize)>,
    /// Whether a slice is in the engine.
    asking: bool,
    page: Vec<(String, String)>,
    json: String,
}

/// How long Cancel waits for the slice in the engine before it stops the engine, in
/// milliseconds: a replay stops within a second whatever its commands cost.
const CANCEL_WAIT_MS: u32 = 400;

/// One `advance` asked of the engine.
struct Slice {
    session: Rc<str>,
    chunk: u32,
    done: usize,
    total: usize,
    what: &'static str,
    picture: bool,
}

/// How long one `advance` should keep the engine busy, in milliseconds.
const SLICE_MS: f64 = 60.0;

/// How often a replay under way draws its picture, in milliseconds.
const PICTURE_MS: f64 = 500.0;

/// The view's handle on the playground adopts what the driver shows, as it is (the model's
/// own `Rc`, not a copy; the page's one update is [`update`]).
impl Reducible for Playground {
    type Action = Shown;

    fn reduce(self: Rc<Self>, shown: Shown) -> Rc<Self> {
        shown.0
    }
}

/// The page's driver: cheap to clone, shared by every callback.
#[derive(Clone)]
pub struct Driver {
    /// Shows the model's newest playground to the view.
    show: Callback<Shown>,
    /// Everything the page remembers; changed by [`update`] alone.
    model: Rc<RefCell<Model>>,
    run: Rc<RefCell<Option<Run>>>,
    embed: bool,
}

impl PartialEq for Driver {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.model, &other.model)
    }
}

impl Driver {
    /// A driver whose model starts from `first`, showing each new playground through
    /// `show`.
    pub fn new(show: Callback<Shown>, first: Rc<Playground>, embed: bool) -> Driver {
        let driver = Driver {
            show,
            model: Rc::new(RefCell::new(Model::new(first))),
            run: Rc::default(),
            embed,
        };
        // The session's link form, each time the engine saves it, for a restart.
        {
            let driver = driver.clone();
            engine_client::listen(move |message| {
                if let Event::Save { text, .. } = &message.event {
                    let session = Rc::from(message.session.as_str());
                    driver.handle(Action::LinkForm(session, text.clone()));
                }
            });
        }
        // A worker that dies between requests took the page's session with it, and no
        // answer will say so: it is opened again at once.
        {
            let driver = driver.clone();
            engine_client::on_idle_stop(move |_| {
                if driver.has_session() {
                    driver.restart();
                }
            });
        }
        driver
    }

    /// Holds the saved session as it is until the user does something (see
    /// [`Model::hold`]).
    pub fn hold(&self) {
        self.handle(Action::Hold);
    }

    /// Whether the saved session is held.
    pub fn holding(&self) -> bool {
        self.model.borrow().hold
    }

    /// Whether the page has opened a session yet (the start's, or one the user asked for).
    pub fn has_session(&self) -> bool {
        &*self.state().session != crate::state::NO_SESSION
    }

    /// The model's playground as it is now (the view may not have drawn it yet).
    pub fn state(&self) -> Rc<Playground> {
        self.model.borrow().page.clone()
    }

    /// The page's words, as the model has them now: what the driver says is in them.
    pub fn words(&self) -> Words {
        self.model.borrow().page.words
    }

    /// `lang`'s words, if the page has read them.
    pub fn catalogue(&self, lang: Lang) -> Option<Words> {
        self.model.borrow().catalogue(lang)
    }

    /// The callback components send messages to.
    pub fn callback(&self) -> Callback<Action> {
        let driver = self.clone();
        Callback::from(move |action| driver.handle(action))
    }

    /// Takes one message: the model is updated, its newest playground shown, and the
    /// effects the update asked for carried out, in order.
    pub fn handle(&self, action: Action) {
        let (effects, shown) = {
            let mut model = self.model.borrow_mut();
            let before = model.page.clone();
            let effects = update(&mut model, action);
            let changed = !Rc::ptr_eq(&before, &model.page);
            (effects, changed.then(|| model.page.clone()))
        };
        if let Some(page) = shown {
            self.show.emit(Shown(page));
        }
        for effect in effects {
            self.carry_out(effect);
        }
    }

    /// Carries out one effect the update asked for.
    fn carry_out(&self, effect: Effect) {
        let w = self.words();
        match effect {
            Effect::Send(act) => self.send(act),
            Effect::Run(cmd) => {
                recovery::begin("running", Some(&cmd));
                recovery::selftest(&cmd);
                self.send(Act::Command { source: cmd });
            }
            Effect::StopEngine => {
                // The model says so first (`Model::cancelled`): the requests in flight
                // fail, and the restart reads it, while the engine is being stopped.
                if !engine_client::cancel() {
                    self.handle(Action::NotStopped);
                }
            }
            Effect::OpenSetup(setup) => {
                let notice = self.set_aside(w.t(K::DriverStartedANewCluster));
                self.open(
                    Opening {
                        start: Start::Setup(setup),
                        notice,
                        source: None,
                    },
                    false,
                );
            }
            Effect::OpenLesson(id) => {
                let notice = self.set_aside(w.t(K::DriverOpenedTheLessonLesson));
                self.open(
                    Opening {
                        start: Start::Lesson { id },
                        notice,
                        source: None,
                    },
                    false,
                );
            }
            Effect::OpenScene {
                shows,
                replace_stored,
            } => {
                if !self.embed && !replace_stored {
                    sessions::start_new();
                }
                self.open(startup::scene(&shows, self.embed), false);
                self.handle(Action::SceneOpened);
            }
            Effect::ScrollToTop => gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0),
            Effect::OpenSession {
                session,
                opening,
                stop_at,
            } => {
                let driver = self.clone();
                let name = session.clone();
                engine_client::request(&name, Call::Open(opening.start.clone()), move |answer| {
                    driver.opened(session, opening, stop_at, answer)
                });
            }
            Effect::Close(session) => engine_client::request(&session, Call::Close, |_| ()),
            Effect::TellRoom(measure) => self.tell_room(&measure),
            Effect::Ask(ask) => self.ask(ask),
        }
    }

    /// Says where the session's saved form stands against what can be kept.
    fn tell_room(&self, measure: &Measure) {
        let w = self.words();
        match &measure.text {
            // The page has the form (it saves it itself): the notice offers it.
            Some(text) => {
                let saved = sessions::text(&sessions::current());
                let notice = (measure.room != Room::Ample)
                    .then(|| room_notice(w, measure.room, measure.size, text, saved));
                self.handle(Action::Room(notice));
            }
            None => tell_room(
                w,
                &self.callback(),
                &measure.session,
                measure.room,
                measure.size,
                measure.page.clone(),
            ),
        }
    }

    /// Asks the engine a panel's question; the answer comes back as a message.
    fn ask(&self, ask: Ask) {
        let driver = self.clone();
        let (asker, id, question) = (ask.asker, ask.id, ask.question);
        engine_client::request(
            &question.session.clone(),
            question.call.clone(),
            move |result| {
                let answer = Answer {
                    question,
                    result: Rc::new(result),
                };
                driver.handle(Action::Answered(asker, id, answer));
            },
        );
    }

    /// Sends `act` for the page's session; its answer comes back as a message.
    pub fn send(&self, act: Act) {
        let w = self.words();
        let session = self.state().session.clone();
        self.handle(Action::Sent);
        let driver = self.clone();
        engine_client::request(&session.clone(), Call::Act(act), move |answer| {
            recovery::end();
            match answer {
                Ok(Reply::Act(view)) => driver.handle(Action::Viewed(session, Rc::new(*view))),
                Ok(_) => driver.handle(Action::Refused(
                    session,
                    w.t(K::DriverEngineAnsweredSomethingElse).into(),
                )),
                Err(e) if e.code_name == ENGINE_RESTARTED => {
                    driver.handle(Action::Refused(session, e.message));
                    driver.restart();
                }
                Err(e) => driver.handle(Action::Refused(session, engine_words(&e))),
            }
        });
    }

    /// Before a new scenario replaces this session: the new one is a session of its own,
    /// and this one stays stored. The notice the new scenario shows, starting with `what`,
    /// when this one holds steps of the user's (beyond its own setup) to return to.
    fn set_aside(&self, what: &str) -> Option<Notice> {
        let w = self.words();
        if self.embed {
            return None;
        }
        let s = self.state();
        let steps = s.view.position.length;
        let kept = sessions::start_new();
        if !kept || steps <= s.view.setup_steps || s.mode == crate::state::Mode::Guide {
            return None;
        }
        Some(Notice {
            words: None,
            text: w.tf(
                K::DriverWhatYourPreviousSessionOf,
                &[("what", &what), ("steps", &steps)],
            ),
            offer: Some(crate::state::Offer::ReturnToSession),
        })
    }

    /// Opens a new session for the page and draws it from then on; the old one is closed
    /// (see [`Action::Open`]). `boot` keeps the state's UI as it is (the first opening).
    pub fn open(&self, opening: Opening, boot: bool) {
        self.handle(Action::Open(Box::new(opening), boot));
    }

    /// A refused import: the page goes back to the session it replaced, as it was, and
    /// says why. False if there is none to go back to.
    fn back_from_import(&self, error: &str) -> bool {
        let went_back = self.model.borrow().before_import.is_some();
        if went_back {
            self.handle(Action::BackFromImport(error.to_string()));
        }
        went_back
    }

    /// The engine's answer to an opening.
    fn opened(
        &self,
        session: Rc<str>,
        opening: Opening,
        stop_at: Option<(usize, usize)>,
        answer: Result<Reply, EngineError>,
    ) {
        // Latest wins: an opening another replaced before its answer came (lessons picked
        // one after another) is not drawn, and nothing of it (its lesson's workload, its
        // notice, a fallback after a refusal) reaches the page; the session it opened is
        // closed.
        if *self.state().session != *session {
            if answer.is_ok() {
                engine_client::request(&session, Call::Close, |_| ());
            }
            return;
        }
        if answer.is_ok() {
            self.handle(Action::OpeningAnswered);
        }
        // A playground's opening carries its first view, and a replay's what the scenario
        // holds besides its steps.
        let answer = answer.map(|reply| match reply {
            Reply::Open(opened) => match *opened {
                Opened {
                    view: Some(view),
                    replay: None,
                    ..
                } => Some(Ok(view)),
                Opened {
                    view: Some(view),
                    replay: Some(replay),
                    ..
                } => Some(Err((view, *replay))),
                _ => None,
            },
            _ => None,
        });
        match answer {
            Ok(Some(Ok(view))) => self.opened_playground(session, &opening, *view),
            Ok(Some(Err((view, replaying)))) => {
                self.start_run(session, opening, stop_at, *view, replaying)
            }
            Ok(_) => {}
            Err(e) if e.code_name == ENGINE_RESTARTED => self.open(opening, false),
            Err(e) => self.open_refused(&opening, &e),
        }
    }

    /// A playground the engine opened: its first view drawn, with its lesson's notice and
    /// workload, and the commands typed meanwhile run.
    fn opened_playground(&self, session: Rc<str>, opening: &Opening, view: PageView) {
        let view = Rc::new(view);
        self.lesson_notice(&view);
        // Opened before the catalog came (a lesson in the address): its workload now.
        if matches!(opening.start, Start::Lesson { .. }) {
            let s = self.state();
            let lesson = view
                .lesson
                .as_deref()
                .and_then(|id| s.catalog.lessons.iter().find(|l| l.id == id));
            if let Some(lesson) = lesson {
                self.handle(Action::LessonWorkload(lesson.workload.clone()));
            }
        }
        self.handle(Action::Viewed(session, view));
        recovery::end();
        self.drain();
    }

    /// A replay the engine opened: its first view drawn, then its commands replayed a
    /// slice at a time (see [`Driver::advance`]).
    fn start_run(
        &self,
        session: Rc<str>,
        opening: Opening,
        stop_at: Option<(usize, usize)>,
        view: PageView,
        replaying: Replaying,
    ) {
        let w = self.words();
        let Replaying { page, json, .. } = replaying;
        let total = view.replay.map_or(0, |r| r.total) as usize;
        self.handle(Action::Viewed(session.clone(), Rc::new(view)));
        let what = opening.what(w);
        let Some(source) = opening.source else {
            return;
        };
        let run = Run {
            session,
            what,
            source,
            total,
            done: 0,
            started: now_ms(),
            chunk: 8,
            pictured: f64::NEG_INFINITY,
            picture_cost: 0.0,
            cancelled: false,
            stop_at,
            asking: false,
            page,
            json,
        };
        *self.run.borrow_mut() = Some(run);
        self.advance();
    }

    /// An opening the engine refused: an import goes back to the session it replaced,
    /// anything else opens what stands in for it, saying why.
    fn open_refused(&self, opening: &Opening, e: &EngineError) {
        let w = self.words();
        let message = engine_words(e);
        if matches!(opening.source, Some(Source::Import { .. })) && self.back_from_import(&message)
        {
            recovery::end();
            return;
        }
        let refused_link = matches!(opening.source, Some(Source::Link { .. }))
            || matches!(opening.start, Start::Lesson { .. });
        if refused_link && !self.embed {
            // The saved session stays as it was until the user changes something.
            self.hold();
        }
        let next = match (&opening.source, &opening.start) {
            (Some(source), _) => startup::unreadable(w, source, &message),
            (None, Start::Lesson { id }) => {
                let id: String = id.chars().take(40).collect();
                startup::refused(
                    w,
                    &w.tf(K::DriverThereIsNoLessonCalled, &[("id", &id)]),
                    self.embed,
                )
            }
            _ => Opening {
                notice: Some(Notice::plain(message)),
                ..Opening::fresh()
            },
        };
        recovery::end();
        self.open(next, false);
    }

    /// A lesson's notice names it, once the engine said which lesson it opened.
    fn lesson_notice(&self, view: &PageView) {
        let w = self.words();
        let s = self.state();
        let Some(notice) = s.notice.as_ref().filter(|n| n.text.contains("{lesson}")) else {
            return;
        };
        let title = view
            .lesson
            .as_deref()
            .and_then(|id| s.catalog.lessons.iter().find(|l| l.id == id))
            .map_or_else(
                || view.lesson.clone().unwrap_or_default(),
                |l| w.lesson_words(l).0,
            );
        self.handle(Action::Notice(Some(Notice {
            words: None,
            text: notice.text.replace("{lesson}", &title),
            offer: notice.offer.clone(),
        })));
    }

    /// Asks the engine for the next slice of the replay under way, or ends it.
    fn advance(&self) {
        let w = self.words();
        if let Some(ending) = self.ending() {
            return self.finish(ending);
        }
        let Some(slice) = self.next_slice() else {
            return;
        };
        self.handle(Action::Replaying(Some(Progress {
            what: slice.what,
            done: slice.done,
            goal: slice.total.min(Budget::REPLAY.commands),
        })));
        let asked = now_ms();
        if let Some(run) = self.run.borrow_mut().as_mut() {
            run.asking = true;
        }
        let driver = self.clone();
        let call = Call::Act(Act::Advance {
            commands: slice.chunk,
            picture: slice.picture,
        });
        engine_client::request(&slice.session.clone(), call, move |answer| {
            let took = now_ms() - asked;
            match answer {
                Ok(Reply::Act(view)) => driver.advanced(slice, *view, took),
                // The scenario stopped the engine: it is set aside, not replayed again.
                Err(e) if e.code_name == ENGINE_RESTARTED => {
                    let run = driver.run.borrow_mut().take();
                    if let Some(run) = run {
                        recovery::end();
                        let why = w.t(K::DriverReplayStoppedTheEngine);
                        driver.open(startup::unreadable(w, &run.source, why), false);
                    }
                }
                _ => driver.finish(Ending::Over),
            }
        });
    }

    /// How the replay under way ends now, if it does: cancelled, over, or cut by the budget.
    fn ending(&self) -> Option<Ending> {
        let run = self.run.borrow();
        let run = run.as_ref()?;
        let budget = Budget::REPLAY;
        let elapsed = now_ms() - run.started;
        if run.cancelled {
            Some(Ending::Cancelled {
                replayed: run.done,
                total: run.total,
            })
        } else if let Some((at, total)) = run.stop_at.filter(|(at, _)| run.done >= *at) {
            Some(Ending::Cancelled {
                replayed: at,
                total,
            })
        } else if run.done >= run.total {
            Some(Ending::Over)
        } else if run.done >= budget.commands || elapsed > budget.millis {
            Some(Ending::Cut(Cut {
                replayed: run.done,
                total: run.total,
                timed_out: run.done < budget.commands,
            }))
        } else {
            None
        }
    }

    /// The next slice to ask for: its size, and whether it carries a picture (one every
    /// PICTURE_MS, or three times what the last cost to draw: drawing thousands of chunks
    /// each slice would cost more than the replay).
    fn next_slice(&self) -> Option<Slice> {
        let mut run = self.run.borrow_mut();
        let run = run.as_mut()?;
        let picture = now_ms() - run.pictured >= PICTURE_MS.max(3.0 * run.picture_cost);
        if picture {
            run.pictured = now_ms();
        }
        let end = run.stop_at.map_or(run.total, |(at, _)| at.min(run.total));
        let left = (end.saturating_sub(run.done)).min(Budget::REPLAY.commands - run.done);
        Some(Slice {
            session: run.session.clone(),
            chunk: run.chunk.min(left.max(1) as u32),
            done: run.done,
            total: run.total,
            what: run.what,
            picture,
        })
    }

    /// A slice's answer: the progress, the next slice's size (aimed at SLICE_MS, measured
    /// on slices without a picture, whose wait does not include the page drawing, and
    /// changed by half or double at most), the picture when there is one, then the next
    /// slice once the page has drawn it.
    fn advanced(&self, slice: Slice, view: PageView, took: f64) {
        if let Some(run) = self.run.borrow_mut().as_mut() {
            run.asking = false;
            run.done = view.replay.map_or(run.total, |r| r.done as usize);
            if !slice.picture {
                let per = took / f64::from(slice.chunk.max(1));
                let aim = (SLICE_MS / per.max(0.01)) as u32;
                run.chunk = aim
                    .clamp(slice.chunk / 2, slice.chunk.saturating_mul(2))
                    .clamp(1, 2_000);
            }
        }
        // A slice without a picture changes only the progress bar (sent with the next
        // slice's request): nothing else is drawn again.
        if slice.picture {
            self.handle(Action::Viewed(slice.session, Rc::new(view)));
        }
        let drawn = now_ms();
        let driver = self.clone();
        after_yielding(move || {
            // A picture costs what the page took to draw it.
            if slice.picture {
                if let Some(run) = driver.run.borrow_mut().as_mut() {
                    run.picture_cost = now_ms() - drawn;
                }
            }
            driver.advance()
        });
    }

    /// Cancels the replay under way: it ends with the steps replayed so far.
    ///
    /// The replay ends at the next slice's answer. If the slice in the engine takes longer
    /// than 400 ms (a costly command), the engine is stopped under it and the
    /// scenario is replayed again, in a new engine, up to the steps replayed before it.
    pub fn cancel(&self) {
        let session = match self.run.borrow_mut().as_mut() {
            Some(run) => {
                run.cancelled = true;
                run.session.clone()
            }
            None => return,
        };
        let driver = self.clone();
        gloo::timers::callback::Timeout::new(CANCEL_WAIT_MS, move || driver.force_cancel(&session))
            .forget();
    }

    /// Stops the engine under a replay's slow slice (see [`Driver::cancel`]).
    fn force_cancel(&self, session: &Rc<str>) {
        let run = {
            let mut slot = self.run.borrow_mut();
            if !slot
                .as_ref()
                .is_some_and(|r| r.session == *session && r.asking)
            {
                return;
            }
            slot.take()
        };
        let Some(run) = run else {
            return;
        };
        // The slice in flight fails; with the run taken, nothing else answers it.
        if !engine_client::cancel() {
            *self.run.borrow_mut() = Some(run);
            return;
        }
        self.handle(Action::StopAt(run.done, run.total));
        self.open(startup::again(run.json, run.source), false);
    }

    /// Ends the replay: the engine keeps what it replayed, the page applies the scenario's
    /// own state, and the user is told how it went.
    fn finish(&self, ending: Ending) {
        let Some(run) = self.run.borrow_mut().take() else {
            return;
        };
        let driver = self.clone();
        let session = run.session.clone();
        engine_client::request(&session.clone(), Call::Act(Act::Finish), move |answer| {
            if let Ok(Reply::Act(view)) = answer {
                driver.handle(Action::Viewed(session, Rc::new(*view)));
            }
            driver.concluded(run, ending);
        });
    }

    /// After a replay's last answer: the page's own state from the scenario, the notice,
    /// and the commands that waited.
    fn concluded(&self, run: Run, ending: Ending) {
        let w = self.words();
        let notice = startup::conclude(w, &run.source, &ending, &run.json);
        let mut page = run.page;
        // The saved session's own page state is written at once on each change, its
        // scenario a moment later: the later of the two wins.
        if matches!(run.source, Source::Session { .. }) {
            if let Some(meta) = sessions::meta(&sessions::current()) {
                page.extend(meta.page);
            }
        }
        self.handle(Action::Concluded { page, notice });
        recovery::end();
        self.drain();
    }

    /// Runs the commands typed while the session was opening or replaying, in order (the
    /// update hands them over: see [`Action::Drained`]).
    fn drain(&self) {
        if !self.state().waiting.is_empty() {
            self.handle(Action::Drained);
        }
    }

    /// Runs the commands still waiting once the session is ready and not replaying. An
    /// opening's answer and a replay's conclusion drain them at once; the page also calls
    /// this after each draw that leaves commands waiting, for a session made ready by
    /// any other answer.
    pub fn drain_if_ready(&self) {
        let s = self.state();
        if s.ready && s.replaying.is_none() {
            self.drain();
        }
    }

    /// The engine stopped under the page's session: it is replayed into a new engine from
    /// its last saved form: the link form the engine last sent, or, for a session past what
    /// a link holds, the copy kept in this tab's saved session.
    fn restart(&self) {
        let saved = self.model.borrow().saved_form();
        match saved {
            Some(None) => {
                let driver = self.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let kept = sessions::read_text(&sessions::current()).await;
                    driver.restart_from(kept);
                });
            }
            Some(Some(text)) => self.restart_from(Some(text)),
            None => self.restart_from(None),
        }
    }

    /// [`Driver::restart`] from `text`, or afresh, saying so, when there is none.
    fn restart_from(&self, text: Option<String>) {
        let w = self.words();
        let why = engine_client::stopped_why();
        match text {
            Some(text) => {
                let cancelled = self.model.borrow().cancelled;
                self.open(startup::restart(text, cancelled, why), false)
            }
            None => self.open(
                Opening {
                    notice: Some(Notice::plain(
                        w.tf(K::DriverTheEngineStoppedAndStarted, &[("why", &why)]),
                    )),
                    ..Opening::fresh()
                },
                false,
            ),
        }
    }

    /// Saves the page's session (its JSON form with the page's own state) as this tab's
    /// session, once the user has done something on the page (a step, a lesson, a tab) or
    /// it was saved before: a playground, lesson or link nobody touched opens again from
    /// the address, and is not kept as a session of its own. A save that fails says so at
    /// once and offers the session for download.
    pub fn save(&self) {
        let s = self.state();
        let own = s.view.position.length.saturating_sub(s.view.setup_steps);
        let worth = self.model.borrow().touched || own > 0;
        if !sessions::ready() || (!worth && sessions::meta(&sessions::current()).is_none()) {
            return;
        }
        let saving = sessions::Saving {
            name: session_name(&s),
            auto: Some(auto_name(&s)),
            steps: s.view.position.length,
            own,
            collections: s.view.collections.iter().map(|c| c.ns.clone()).collect(),
            page: s.page_entries(),
        };
        if engine_client::in_page() {
            self.save_text(&s.session, saving);
        } else {
            self.keep(&s.session, saving);
        }
    }

    /// [`Driver::save`] through the engine's worker, which writes the session's JSON form
    /// and the page's record of it into this tab's saved session itself, in one
    /// transaction (`page.keep`): however large the session, its text never crosses to
    /// the page, whose thread stays free.
    fn keep(&self, session: &Rc<str>, saving: sessions::Saving) {
        let w = self.words();
        let Some((meta, record)) = sessions::record(saving.clone()) else {
            return;
        };
        let dispatch = self.callback();
        let driver = self.clone();
        let at = session.clone();
        let call = Call::Keep {
            id: meta.id.clone(),
            page: saving.page.clone(),
            record,
        };
        engine_client::request(session, call, move |answer| {
            let kept = match answer {
                Ok(Reply::Kept(kept)) => kept,
                Err(e) => return not_saved(w, &dispatch, &e),
                Ok(_) => return,
            };
            let size = usize::try_from(kept.bytes).unwrap_or(usize::MAX);
            driver.handle(Action::Measured(Box::new(Measure {
                session: at.clone(),
                room: scenario_room(size),
                size,
                page: saving.page.clone(),
                text: None,
            })));
            if let Some(why) = kept.why {
                return refused(w, &dispatch, &at, &why, saving.page);
            }
            if kept.kept {
                sessions::kept(meta);
            }
        });
    }

    /// [`Driver::save`] with the engine in the page: the session's JSON form is the
    /// page's already, and the page writes it.
    fn save_text(&self, session: &Rc<str>, saving: sessions::Saving) {
        let w = self.words();
        let dispatch = self.callback();
        let driver = self.clone();
        let at = session.clone();
        let call = Call::Scenario {
            page: saving.page.clone(),
            json: true,
        };
        engine_client::request(session, call, move |answer| {
            let text = match answer {
                Ok(Reply::Scenario { text }) => text,
                Err(e) => return not_saved(w, &dispatch, &e),
                Ok(_) => return,
            };
            let now = scenario_room(text.len());
            driver.handle(Action::Measured(Box::new(Measure {
                session: at.clone(),
                room: now,
                size: text.len(),
                page: saving.page.clone(),
                text: Some(Rc::from(text.as_str())),
            })));
            if now == Room::Over {
                // Kept as it last fitted: a session that cannot open again is not
                // written over the copy that can.
                return;
            }
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(why) = sessions::save(w, text.clone(), saving).await {
                    dispatch.emit(Action::Notice(Some(refused_notice(w, &why, &text))));
                }
            });
        });
    }

    /// Asks the engine for the lessons, workloads and versions, once.
    pub fn catalog(&self) {
        let dispatch = self.callback();
        engine_client::request("page-catalog", Call::Catalog, move |answer| {
            if let Ok(Reply::Catalog(catalog)) = answer {
                dispatch.emit(Action::Cataloged(Rc::new(*catalog)));
            }
        });
    }
}

/// What the page says when its session's saved form nears the size that can be kept, or
/// passes it: the download offered is a copy that can be opened again (the text itself
/// while it fits; once over, the copy last saved).
fn room_notice(w: Words, room: Room, size: usize, text: &str, saved: Option<String>) -> Notice {
    let limit = MAX_SCENARIO_BYTES;
    let download = |text: &str| {
        Some(crate::state::Offer::Download(Rc::from(
            crate::share::download_url("application/json", text),
        )))
    };
    match room {
        Room::Over => match (saved, sessions::meta(&sessions::current())) {
            (Some(saved), Some(meta)) => Notice {
                words: None,
                text: w.tf(
                    K::DriverSessionTooLargeToKeep,
                    &[("size", &size), ("limit", &limit), ("steps", &meta.steps)],
                ),
                offer: download(&saved),
            },
            _ => Notice::plain(w.tf(
                K::DriverSessionTooLargeNothingKept,
                &[("size", &size), ("limit", &limit)],
            )),
        },
        _ => Notice {
            words: None,
            text: w.tf(
                K::DriverSessionNearlyTooLarge,
                &[("size", &size), ("limit", &limit)],
            ),
            offer: download(text),
        },
    }
}

/// A save the engine could not answer: the engine stopped, or the session was replaced or
/// closed since (whatever replays or replaces it saves it), or it could not write the
/// session's saved form (a page value over the scenario's limits), which is said, not
/// skipped in silence.
fn not_saved(w: Words, dispatch: &Callback<Action>, e: &EngineError) {
    if e.code_name == ENGINE_RESTARTED || e.code_name == "NoSuchSession" {
        return;
    }
    dispatch.emit(Action::Notice(Some(Notice::plain(
        w.tf(K::DriverSessionNotSaved, &[("why", &engine_words(e))]),
    ))));
}

/// The store refused the session (`why`): said at once, with the session to download.
fn refused_notice(w: Words, why: &str, text: &str) -> Notice {
    Notice {
        words: None,
        text: w.tf(K::DriverYourSessionCouldNotBe, &[("why", &why)]),
        offer: Some(crate::state::Offer::Download(Rc::from(
            crate::share::download_url("application/json", text),
        ))),
    }
}

/// [`refused_notice`] for a session whose text the page does not have: asked of the
/// engine first (a rare, failed save is worth the wait).
fn refused(
    w: Words,
    dispatch: &Callback<Action>,
    session: &str,
    why: &str,
    page: Vec<(String, String)>,
) {
    let dispatch = dispatch.clone();
    let why = why.to_string();
    let call = Call::Scenario { page, json: true };
    engine_client::request(session, call, move |answer| {
        if let Ok(Reply::Scenario { text }) = answer {
            dispatch.emit(Action::Notice(Some(refused_notice(w, &why, &text))));
        }
    });
}

/// Says that the session's saved form (of `size` bytes) nears or passed the size that can
/// be kept (see [`room_notice`]), or clears that once there is room again: a standing
/// state of the session, apart from the notices, so that it neither hides nor is hidden
/// by what the step itself said (an import's summary). The text to download is asked of
/// the engine, or read from the copy last kept.
fn tell_room(
    w: Words,
    dispatch: &Callback<Action>,
    session: &str,
    room: Room,
    size: usize,
    page: Vec<(String, String)>,
) {
    let dispatch = dispatch.clone();
    if room == Room::Ample {
        return dispatch.emit(Action::Room(None));
    }
    if room == Room::Over {
        wasm_bindgen_futures::spawn_local(async move {
            let saved = sessions::read_text(&sessions::current()).await;
            dispatch.emit(Action::Room(Some(room_notice(w, room, size, "", saved))));
        });
        return;
    }
    let call = Call::Scenario { page, json: true };
    engine_client::request(session, call, move |answer| {
        if let Ok(Reply::Scenario { text }) = answer {
            dispatch.emit(Action::Room(Some(room_notice(w, room, size, &text, None))));
        }
    });
}

/// An engine error as the page shows it: MongoDB's words.
pub fn engine_words(e: &EngineError) -> String {
    e.message.clone()
}

/// Runs `f` in a task of its own, once the browser has had its turn (drawing, input): a
/// message on a fresh channel rather than a zero timeout, which browsers delay by 4 ms
/// once timeouts nest.
pub fn after_yielding(f: impl FnOnce() + 'static) {
    let Ok(channel) = web_sys::MessageChannel::new() else {
        gloo::timers::callback::Timeout::new(0, f).forget();
        return;
    };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    channel
        .port1()
        .set_onmessage(Some(callback.unchecked_ref()));
    if channel
        .port2()
        .post_message(&wasm_bindgen::JsValue::NULL)
        .is_err()
    {
        channel.port1().set_onmessage(None);
        let callback: js_sys::Function = callback.unchecked_into();
        gloo::timers::callback::Timeout::new(0, move || {
            let _ = callback.call0(&wasm_bindgen::JsValue::NULL);
        })
        .forget();
    }
}

/// The catalog's entry for the lesson the session shows, if it shows one.
fn shown_lesson(s: &Playground) -> Option<&shardlab_protocol::LessonInfo> {
    let id = s.view.lesson.as_deref()?;
    s.catalog.lessons.iter().find(|l| l.id == id)
}

/// What a session is named by: its lesson, else its first collection.
fn auto_name(s: &Playground) -> sessions::AutoName {
    match shown_lesson(s) {
        Some(l) => sessions::AutoName::Lesson {
            id: l.id.clone(),
            shards: l.setup.shards,
        },
        None => sessions::AutoName::Playground {
            ns: s.view.collections.first().map(|c| c.ns.clone()),
        },
    }
}

/// A session's name in "Recent sessions", in English: its lesson's title, else its
/// collections ([`auto_name`] words it in the reader's language).
fn session_name(s: &Playground) -> String {
    match shown_lesson(s) {
        Some(lesson) => lesson.title.clone(),
        None => match s.view.collections.first() {
            Some(c) => format!("Playground: {}", c.ns),
            None => "Playground".to_string(),
        },
    }
}
