//! The Compare tab's runtime: it owns the comparison's model ([`crate::compare`]), hands
//! every action to its pure update, shows the result, and carries out what the update
//! returns (engine requests), turning the answers back into actions. It also runs the
//! timer that ticks the comparison while it plays. The tab's view sends actions here and
//! draws what it is shown.

use crate::compare::{update, CompareAction, CompareEffect, Comparison};
use crate::engine_client;
use shardlab_protocol::{Call, EngineError, Reply};
use std::cell::RefCell;
use std::rc::Rc;
use yew::{Callback, Reducible};

pub use crate::compare::{COMPARE_QUERIES, COMPARE_WORKLOADS, MAX_COLUMNS};

/// The name the Compare tab's steps go under (they name their sessions themselves).
const COMPARE_SESSION: &str = "compare";

/// How often a playing comparison ticks, in milliseconds.
const TICK_MS: u32 = 100;

/// What the Compare tab draws: the comparison as its runtime last showed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown(pub Rc<Comparison>);

impl Reducible for Shown {
    type Action = Rc<Comparison>;

    fn reduce(self: Rc<Self>, next: Rc<Comparison>) -> Rc<Self> {
        Rc::new(Shown(next))
    }
}

/// The runtime: cheap to clone, shared by the tab's callbacks and the engine's answers.
#[derive(Clone)]
pub struct Runtime {
    inner: Rc<Inner>,
}

struct Inner {
    /// The one comparison; only [`update`] changes it.
    model: RefCell<Comparison>,
    /// Shows a new revision of it.
    show: Callback<Rc<Comparison>>,
    /// The timer ticking the comparison while it plays.
    timer: RefCell<Option<gloo::timers::callback::Interval>>,
}

impl Runtime {
    /// A runtime owning `first`, showing each new revision through `show`.
    pub fn new(first: Comparison, show: Callback<Rc<Comparison>>) -> Runtime {
        Runtime {
            inner: Rc::new(Inner {
                model: RefCell::new(first),
                show,
                timer: RefCell::new(None),
            }),
        }
    }

    /// The callback the view sends its actions to.
    pub fn callback(&self) -> Callback<CompareAction> {
        let runtime = self.clone();
        Callback::from(move |action| runtime.handle(action))
    }

    /// Sends what the comparison needs before any action: its columns' sessions.
    pub fn start(&self) {
        let effects = crate::compare::plan(&mut self.inner.model.borrow_mut());
        self.carry_out(effects);
    }

    /// Stops the timer (the tab is gone).
    pub fn stop(&self) {
        self.inner.timer.borrow_mut().take();
    }

    /// One action: the update, then the new revision shown, the timer set as it plays,
    /// and the requests sent.
    pub fn handle(&self, action: CompareAction) {
        let (effects, shown, playing) = {
            let mut model = self.inner.model.borrow_mut();
            let rev = model.rev;
            let effects = update(&mut model, action);
            let shown = (model.rev != rev).then(|| Rc::new(model.clone()));
            (effects, shown, model.playing)
        };
        if let Some(shown) = shown {
            self.inner.show.emit(shown);
        }
        self.keep_time(playing);
        self.carry_out(effects);
    }

    /// A timer ticking every [`TICK_MS`] while the comparison plays, none while it does not.
    fn keep_time(&self, playing: bool) {
        let mut timer = self.inner.timer.borrow_mut();
        if playing && timer.is_none() {
            let runtime = Rc::downgrade(&self.inner);
            *timer = Some(gloo::timers::callback::Interval::new(TICK_MS, move || {
                if let Some(inner) = runtime.upgrade() {
                    Runtime { inner }.handle(CompareAction::Tick);
                }
            }));
        } else if !playing {
            timer.take();
        }
    }

    fn carry_out(&self, effects: Vec<CompareEffect>) {
        for effect in effects {
            match effect {
                CompareEffect::Close(session) => {
                    engine_client::request(&session, Call::Close, |_| ());
                }
                CompareEffect::Open { session, start } => self.open(session, start),
                CompareEffect::Step { columns, ran } => self.step(columns, ran),
                CompareEffect::Check(key) => self.check(key),
            }
        }
    }

    /// Checks a key typed in a column, as shardCollection would (the engine answers
    /// `page.checkKey` without a session of the tab's).
    fn check(&self, key: String) {
        let runtime = self.clone();
        let call = Call::CheckKey { key: key.clone() };
        engine_client::request("compare-check", call, move |answer| {
            let result = match answer {
                Ok(Reply::CheckKey { key: Some(k), .. }) => Ok(k),
                Ok(Reply::CheckKey { error: Some(e), .. }) => Err(e.message),
                Err(e) => Err(e.message),
                Ok(_) => Ok(String::new()),
            };
            runtime.handle(CompareAction::Checked { key, result });
        });
    }

    /// Opens a column's session; its setup's first error, if any, is the column's.
    fn open(&self, session: String, start: shardlab_protocol::Start) {
        let runtime = self.clone();
        engine_client::request(
            &session.clone(),
            Call::Open(start),
            move |answer| match answer {
                Ok(Reply::Open(opened)) if !opened.errors.is_empty() => {
                    runtime.handle(CompareAction::Failed {
                        session,
                        message: opened.errors[0].clone(),
                    })
                }
                Ok(_) => runtime.handle(CompareAction::Opened { session }),
                Err(e) => runtime.failed(session, e),
            },
        );
    }

    /// Asks for the columns' steps in one request, then hands each column's picture and
    /// row (after the ticks paired with it) to the update, or its error.
    fn step(
        &self,
        columns: Vec<shardlab_protocol::ColumnStep>,
        ran: std::collections::BTreeMap<String, u64>,
    ) {
        let runtime = self.clone();
        engine_client::request(
            COMPARE_SESSION,
            Call::CompareStep { columns },
            move |answer| {
                let columns = match answer {
                    Ok(Reply::CompareStep { columns }) => columns,
                    Ok(_) => return,
                    Err(e) => {
                        for session in ran.into_keys() {
                            runtime.failed(session, e.clone());
                        }
                        return;
                    }
                };
                for column in columns {
                    let Some(&ran) = ran.get(&column.session) else {
                        continue;
                    };
                    match (column.frame, column.row, column.error) {
                        (Some(frame), Some(row), _) => runtime.handle(CompareAction::Ran {
                            session: column.session,
                            ran,
                            frame,
                            row,
                        }),
                        (_, _, Some(e)) => runtime.failed(column.session, e),
                        _ => {}
                    }
                }
            },
        );
    }

    /// A request failed: its session is gone (the engine restarted, or does not know it),
    /// or the column shows the error.
    fn failed(&self, session: String, e: EngineError) {
        if e.code_name == engine_client::ENGINE_RESTARTED || e.code_name == "NoSuchSession" {
            self.handle(CompareAction::Lost { session });
        } else {
            self.handle(CompareAction::Failed {
                session,
                message: e.message,
            });
        }
    }
}
