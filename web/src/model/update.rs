//! The page's one update: a message in, the model changed, and the effects it asks for
//! out, as values. Pure: no storage, clock, address or engine here; the driver
//! (`effects/driver.rs`) carries the effects out and sends what comes of them back as
//! messages.
//!
//! Messages are [`Action`]s of two kinds:
//! - **asked**: what a person or a panel asks for (a command typed, Step, a lesson picked).
//!   Whether it is taken depends on the model (a replay under way, a session not ready
//!   yet), and it may ask the engine for something;
//! - **heard**: what an effect brought back (the engine's view, a refusal, a replay's
//!   progress, the session switched). These are always taken as they are.

use crate::asking::Asked;
use crate::demo;
use crate::i18n::{Lang, Words, K};
use crate::opening::{Opening, Source};
use crate::queries::Ask;
use crate::scenes::Shows;
use crate::state::{Action, Measure, Notice, Playground, Progress};
use shardlab_protocol::{Act, PageSetup, Room, Start};
use std::rc::Rc;

/// Everything the page remembers: the playground shown, and how its saved form is kept.
#[derive(Clone, Debug)]
pub struct Model {
    /// The playground the page draws. Panels draw from a snapshot of it.
    pub page: Rc<Playground>,
    /// Whether the saved session must stay as it is until the user does something: a
    /// link or a lesson that could not be opened gave a fresh playground instead.
    pub hold: bool,
    /// Whether the user has done anything on the page yet.
    pub touched: bool,
    /// Whether this tab's session was opened by a scene of a demo, with nothing typed in
    /// it since: the next scene's session takes its place in storage rather than adding
    /// one more to "Recent sessions" (a scene shows it again any time).
    pub scene_owned: bool,
    /// The link form of a page session as the engine last saved it ([`Action::LinkForm`]),
    /// with that session's name; `None` inside for a session grown past what a link holds.
    /// Should the engine stop under the page's session, it is replayed from this.
    pub saved: Option<(Rc<str>, Option<String>)>,
    /// The number of the page's next session (`page-1`, `page-2`, ...).
    pub next_session: u64,
    /// The session an import replaced, still open in the engine until the imported
    /// scenario opens: a file the engine refuses leaves the page on it exactly as it was.
    pub before_import: Option<Rc<Playground>>,
    /// The panels on screen that ask the engine, and what each asked last.
    pub asked: Asked,
    /// Where the page's session last stood against the size that can be kept, and which
    /// session that was: the page says so when it moves ([`Action::Measured`]).
    pub room: (Rc<str>, Room),
    /// Whether the engine is being stopped by the user's Cancel: the restart that follows
    /// says so ([`Action::NotStopped`] when there was nothing to stop).
    pub cancelled: bool,
    /// Where the next replay opened stops ([`Action::StopAt`]).
    pub stop_at: Option<(usize, usize)>,
    /// Every language's words read so far ([`Action::Language`]): a language the reader
    /// comes back to is not fetched again.
    pub catalogues: Vec<Words>,
}

impl Model {
    /// `lang`'s words, if the page has read them (English always has).
    pub fn catalogue(&self, lang: Lang) -> Option<Words> {
        if lang == Lang::En {
            return Some(Words::ENGLISH);
        }
        self.catalogues.iter().copied().find(|w| w.lang() == lang)
    }

    /// A model drawing `page`, nothing done yet.
    pub fn new(page: Rc<Playground>) -> Model {
        Model {
            page,
            hold: false,
            touched: false,
            scene_owned: false,
            saved: None,
            next_session: 1,
            before_import: None,
            asked: Asked::default(),
            room: (Rc::from(""), Room::Ample),
            cancelled: false,
            stop_at: None,
            catalogues: Vec::new(),
        }
    }

    /// The page session's link form as the engine last saved it: `None` if it saved none
    /// of this session, `Some(None)` if the session had grown past what a link holds.
    pub fn saved_form(&self) -> Option<Option<String>> {
        self.saved
            .as_ref()
            .filter(|(session, _)| *session == self.page.session)
            .map(|(_, text)| text.clone())
    }
}

/// What the update asks the world to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Send this act for the page's session; its answer comes back as
    /// [`Action::Viewed`] or [`Action::Refused`].
    Send(Act),
    /// Run a command typed in the console: noted as running (for the report after a
    /// crash), then sent as [`Act::Command`].
    Run(String),
    /// Stop the engine under the requests in flight (the user's Cancel).
    StopEngine,
    /// Open a new session with these settings, the current one set aside.
    OpenSetup(PageSetup),
    /// Open a lesson as a new session, the current one set aside.
    OpenLesson(String),
    /// Open what a scene of a demo shows as a new session. `replace_stored`: the session
    /// shown is a scene's own with nothing typed in it, so the new one takes its place in
    /// storage.
    OpenScene {
        /// What the scene shows.
        shows: Shows,
        /// Whether the new session replaces the stored one (else that one is kept).
        replace_stored: bool,
    },
    /// Bring the page's top into view (where the scene bar and a scene's panels are).
    ScrollToTop,
    /// Open a session named `session` as `opening` says; the engine's answer comes back
    /// to the driver, which draws it (a playground) or replays it (a scenario).
    OpenSession {
        /// The new session's name.
        session: Rc<str>,
        /// What it opens.
        opening: Opening,
        /// For a replay: where it stops (the commands replayed before a Cancel, of how
        /// many), so that it keeps what was replayed.
        stop_at: Option<(usize, usize)>,
    },
    /// Close a session of the page's the engine still holds.
    Close(Rc<str>),
    /// Ask the engine a panel's question; the answer comes back as
    /// [`Action::Answered`] with the ask's number.
    Ask(Ask),
    /// Say where the session's saved form stands against what can be kept (a notice
    /// offering a copy to download, or none once there is room again).
    TellRoom(Box<Measure>),
}

/// How many rounds of what a demo has due (see [`demo::follow`]) one message may bring:
/// each round clears what made it due, so one is the most a message brings today.
const DEMO_ROUNDS: usize = 4;

/// Takes one message: the model changed, and the effects to carry out, in order. Then
/// whatever the demo has due now that the page is as the message left it.
pub fn update(model: &mut Model, msg: Action) -> Vec<Effect> {
    let mut effects = take_one(model, msg);
    effects.extend(follow_demo(model));
    // What the panels on screen want to know of the playground as it is now.
    effects.extend(model.asked.plan(&model.page).into_iter().map(Effect::Ask));
    effects
}

/// What a demo has due after a message (see [`demo::follow`]).
fn follow_demo(model: &mut Model) -> Vec<Effect> {
    let mut effects = Vec::new();
    for _ in 0..DEMO_ROUNDS {
        let due = demo::follow(&model.page);
        if due.is_empty() {
            break;
        }
        for msg in due {
            effects.extend(take_one(model, msg));
        }
    }
    effects
}

/// One message, and the messages a demo's scene or its end stands for.
fn take_one(model: &mut Model, msg: Action) -> Vec<Effect> {
    match msg {
        Action::ShowScene(i) => {
            let Some(msgs) = demo::show(&model.page, i) else {
                return Vec::new();
            };
            let mut effects: Vec<Effect> =
                msgs.into_iter().flat_map(|m| take_one(model, m)).collect();
            // The scene bar and the scene's panels are at the page's top.
            effects.push(Effect::ScrollToTop);
            effects
        }
        Action::EndDemo => demo::end()
            .into_iter()
            .flat_map(|m| take_one(model, m))
            .collect(),
        msg => take_plain(model, msg),
    }
}

/// One message that stands for itself.
fn take_plain(model: &mut Model, msg: Action) -> Vec<Effect> {
    if heard(&msg) {
        return take(model, msg);
    }
    note_doing(model, &msg);
    let s = model.page.clone();
    if s.replaying.is_some() {
        return while_replaying(model, msg);
    }
    // Before the engine has answered for this session (it may not be open yet), there
    // is no step to take or go to: the Step buttons wait the same way, disabled. (Play
    // and Let time pass only say what to do; their ticks wait for the engine.)
    if !s.ready
        && matches!(
            msg,
            Action::Step | Action::StepBack | Action::Jump(_) | Action::Fork
        )
    {
        return Vec::new();
    }
    let (effects, taken) = ask(&s, model.scene_owned, msg);
    if effects.contains(&Effect::StopEngine) {
        model.cancelled = true;
    }
    if let Some(action) = taken {
        model.page = model.page.clone().next(action);
    }
    effects
}

/// Whether `msg` is something an effect brought back, taken as it is.
fn heard(msg: &Action) -> bool {
    matches!(
        msg,
        Action::Sent
            | Action::Viewed(..)
            | Action::Refused(..)
            | Action::Cataloged(_)
            | Action::Switch(..)
            | Action::Replaying(_)
            | Action::Wait(_)
            | Action::Drained
            | Action::Concluded { .. }
            | Action::LessonWorkload(_)
            | Action::Hold
            | Action::SceneOpened
            | Action::Language(_)
            | Action::LinkForm(..)
            | Action::Open(..)
            | Action::OpeningAnswered
            | Action::BackFromImport(_)
            | Action::InSight(..)
            | Action::Draft(_)
            | Action::Filter(_)
            | Action::HeatCanvas(..)
            | Action::TemplateDraft(_)
            | Action::Analyze
            | Action::Rank(_)
            | Action::Answered(..)
            | Action::Measured(_)
            | Action::NotStopped
            | Action::StopAt(..)
    )
}

/// A message an effect brought back. The waiting commands handed over
/// ([`Action::Drained`]) run, in order.
fn take(model: &mut Model, msg: Action) -> Vec<Effect> {
    match msg {
        Action::Hold => model.hold = true,
        Action::SceneOpened => model.scene_owned = true,
        Action::Language(words) => {
            if words.is_read() && model.catalogue(words.lang()).is_none() {
                model.catalogues.push(words);
            }
            model.page = model.page.clone().next(Action::Language(words));
        }
        Action::LinkForm(session, text) => model.saved = Some((session, text)),
        Action::Open(opening, boot) => return open(model, *opening, boot),
        Action::OpeningAnswered => return release_before_import(model),
        Action::BackFromImport(error) => return back_from_import(model, &error),
        Action::InSight(asker, shown) => model.asked.sight(asker, shown),
        Action::NotStopped => model.cancelled = false,
        Action::StopAt(done, total) => model.stop_at = Some((done, total)),
        Action::Measured(measure) => {
            let (session, now) = (measure.session.clone(), measure.room);
            let before = std::mem::replace(&mut model.room, (session.clone(), now));
            // Said when the room moved, or when another session is short of it too (a
            // session with ample room after another says nothing new).
            if before.1 != now || (before.0 != session && now != Room::Ample) {
                return vec![Effect::TellRoom(measure)];
            }
        }
        // An answer to a question asked since is dropped.
        Action::Answered(asker, id, answer) => {
            if model.asked.answers(asker, id).is_some() {
                model.page = model.page.clone().next(Action::Answered(asker, id, answer));
            }
        }
        Action::Switch(..) => {
            model.scene_owned = false;
            model.page = model.page.clone().next(msg);
        }
        Action::Drained => {
            let waiting = model.page.waiting.clone();
            model.page = model.page.clone().next(Action::Drained);
            return waiting
                .iter()
                .map(|cmd| {
                    model.page = model.page.clone().next(Action::Command(cmd.clone()));
                    Effect::Run(cmd.clone())
                })
                .collect();
        }
        msg => model.page = model.page.clone().next(msg),
    }
    Vec::new()
}

/// Opens a new session for the page and draws it from then on: the next name, a
/// playground that keeps what the page keeps across sessions, and the old session closed
/// (kept open instead while an import replaces it). `boot` keeps the playground's UI as it
/// is (the first opening).
fn open(model: &mut Model, opening: Opening, boot: bool) -> Vec<Effect> {
    let old = model.page.clone();
    let name: Rc<str> = Rc::from(format!("page-{}", model.next_session).as_str());
    model.next_session += 1;
    let (fresh, own_workload) = fresh_for(&old, &name, &opening, boot);
    let mut effects = take(model, Action::Switch(Box::new(fresh), own_workload));
    let importing = matches!(opening.source, Some(Source::Import { .. }));
    if !boot && !old.session.is_empty() {
        if importing {
            // Kept open until the file opens (the first session an import replaced, if
            // the engine restarted under it and it is opened again).
            model.before_import.get_or_insert(old);
        } else {
            effects.push(Effect::Close(old.session.clone()));
        }
    }
    if !importing {
        effects.extend(release_before_import(model));
    }
    // A restart after the user's Cancel reads the flag before it opens; an opening
    // consumes it, and takes where a replay it opens stops.
    model.cancelled = false;
    effects.push(Effect::OpenSession {
        session: name,
        opening,
        stop_at: model.stop_at.take(),
    });
    effects
}

/// The playground of the session `name` opening `opening` after `old`, and whether it
/// brings its own workload (a lesson does).
fn fresh_for(old: &Playground, name: &str, opening: &Opening, boot: bool) -> (Playground, bool) {
    let mut fresh = old.successor(name);
    if boot {
        fresh.mode = old.mode;
        fresh.keep_first_screen(old, &opening.start);
    }
    fresh.notice = opening.notice.clone();
    fresh.waiting = old.waiting.clone();
    if let Start::Setup(setup) = &opening.start {
        fresh.settings = setup.clone();
    }
    // A lesson brings its own cluster and workload (the catalog says which).
    let mut own_workload = false;
    if let Start::Lesson { id } = &opening.start {
        if let Some(lesson) = old.catalog.lessons.iter().find(|l| l.id == *id) {
            fresh.settings = lesson.setup.clone();
            fresh.workload = lesson.workload.clone();
            own_workload = true;
        }
    }
    if opening.source.is_some() {
        fresh.replaying = Some(Progress {
            what: opening.what(old.words),
            done: 0,
            goal: 0,
        });
    }
    (fresh, own_workload)
}

/// Closes the session an import replaced, once an opening was answered or something
/// else replaced it too.
fn release_before_import(model: &mut Model) -> Vec<Effect> {
    model
        .before_import
        .take()
        .map(|old| Effect::Close(old.session.clone()))
        .into_iter()
        .collect()
}

/// A refused import: the page goes back to the session it replaced, as it was, says why,
/// and asks the engine for its picture now (nothing changed, unless a request was under
/// way while the import was tried).
fn back_from_import(model: &mut Model, error: &str) -> Vec<Effect> {
    let Some(old) = model.before_import.take() else {
        return Vec::new();
    };
    let mut back = (*old).clone();
    back.notice = Some(Notice::plain(
        back.words
            .tf(K::DriverImportRefusedKept, &[("error", &error)]),
    ));
    back.playing = false;
    back.passing = false;
    back.in_flight = 0;
    let mut effects = take(model, Action::Switch(Box::new(back), false));
    effects.push(Effect::Send(Act::Look));
    effects
}

/// Notes what a message asked says of the user: whether they are doing something on the
/// page, and whether they typed in a scene's session.
fn note_doing(model: &mut Model, msg: &Action) {
    // Whatever the user does, the page is theirs again: it is saved from now on. (The
    // browser's visibility reports, the timer and notices are not the user's doing.)
    if !matches!(
        msg,
        Action::Hidden(..) | Action::Tick | Action::Notice(_) | Action::Room(_) | Action::Demo(_)
    ) {
        model.hold = false;
        model.touched = true;
    }
    // Something typed makes a scene's session the user's own.
    if matches!(msg, Action::Command(_)) {
        model.scene_owned = false;
    }
}

/// While a replay runs, only commands typed in the console (they wait for its end) and
/// the browser's visibility reports, notices and a demo's bookkeeping are taken.
fn while_replaying(model: &mut Model, msg: Action) -> Vec<Effect> {
    match msg {
        Action::Command(cmd) if !cmd.trim().is_empty() => {
            model.page = model
                .page
                .clone()
                .next(Action::Wait(cmd.trim().to_string()));
        }
        Action::Hidden(..) | Action::Notice(_) | Action::Room(_) | Action::Demo(_) => {
            model.page = model.page.clone().next(msg);
        }
        _ => {}
    }
    Vec::new()
}

/// What a message asked, outside a replay, asks of the engine; and the action the
/// playground takes for it, if any (a cancel, an empty command and a tick with nothing
/// to do change nothing; a command that must wait is kept waiting).
fn ask(s: &Playground, scene_owned: bool, msg: Action) -> (Vec<Effect>, Option<Action>) {
    let effect = match &msg {
        Action::Cancel => {
            // The requests in flight fail once the engine is stopped; what follows
            // arrives as the engine's answers.
            let stop = (s.in_flight > 0).then_some(Effect::StopEngine);
            return (stop.into_iter().collect(), None);
        }
        Action::Command(cmd) => return command(s, cmd),
        Action::Tick => return tick(s),
        Action::Step => Effect::Send(if s.at_end() {
            Act::Batch {
                workload: s.workload.clone(),
                echo: true,
            }
        } else {
            Act::Forward
        }),
        Action::Auto(cmd) => Effect::Send(Act::Auto {
            source: cmd.clone(),
        }),
        Action::View(ns) => Effect::Send(Act::View { ns: ns.clone() }),
        Action::Setup(setup) => Effect::OpenSetup(setup.clone()),
        Action::LoadPreset(id) => Effect::OpenLesson(id.clone()),
        // The session it replaces stays stored, as for a lesson (a demo says nothing),
        // unless another scene opened it and nothing was typed since.
        Action::OpenScene(shows) => Effect::OpenScene {
            shows: shows.clone(),
            replace_stored: scene_owned,
        },
        Action::StepBack => Effect::Send(Act::Back),
        Action::Jump(to) => Effect::Send(Act::Jump { to: *to }),
        Action::Fork => Effect::Send(Act::Fork),
        _ => return (Vec::new(), Some(msg)),
    };
    (vec![effect], Some(msg))
}

/// A command typed in the console: run by the engine, or kept waiting until the session
/// is ready.
fn command(s: &Playground, cmd: &str) -> (Vec<Effect>, Option<Action>) {
    let cmd = cmd.trim().to_string();
    if cmd.is_empty() {
        return (Vec::new(), None);
    }
    if !s.ready {
        return (Vec::new(), Some(Action::Wait(cmd)));
    }
    (vec![Effect::Run(cmd.clone())], Some(Action::Command(cmd)))
}

/// One tick of the timer: the workload's next batch, or a `sleep` step, unless the
/// engine is still busy with the previous one.
fn tick(s: &Playground) -> (Vec<Effect>, Option<Action>) {
    if s.in_flight > 0 || !s.ready || !(s.playing || s.passing) {
        return (Vec::new(), None);
    }
    let echo = s.echo_batch;
    let act = if s.playing {
        Act::Batch {
            workload: s.workload.clone(),
            echo,
        }
    } else {
        Act::PassTime { echo }
    };
    (vec![Effect::Send(act)], Some(Action::Tick))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Lang, Words, K};
    use crate::opening::{Opening, Source};
    use crate::state::{Notice, Progress};
    use shardlab_protocol::{PageView, Position};

    /// A model whose session `page-1` has had no answer yet.
    fn opening() -> Model {
        Model::new(Rc::new(Playground::opening("page-1")))
    }

    /// The engine's answer for `page-1`, at step `at` of `of`.
    fn viewed(at: u64, of: u64) -> Action {
        let view = PageView {
            position: Position {
                position: at,
                length: of,
            },
            ..PageView::default()
        };
        Action::Viewed(Rc::from("page-1"), Rc::new(view))
    }

    /// A model whose session has answered, at the end of its timeline.
    fn ready() -> Model {
        let mut model = opening();
        assert!(update(&mut model, viewed(2, 2)).is_empty());
        assert!(model.page.ready);
        model
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn commands_typed_before_the_first_answer_wait_then_run_in_order() {
        let mut model = opening();
        assert!(update(&mut model, Action::Command(" db.a.find() ".into())).is_empty());
        assert!(update(&mut model, Action::Command("   ".into())).is_empty());
        assert!(update(&mut model, Action::Command("sh.status()".into())).is_empty());
        assert_eq!(*model.page.waiting, ["db.a.find()", "sh.status()"]);
        assert!(model.page.history.is_empty(), "nothing ran yet");
        update(&mut model, viewed(2, 2));
        let ran = update(&mut model, Action::Drained);
        assert_eq!(
            ran,
            [
                Effect::Run("db.a.find()".into()),
                Effect::Run("sh.status()".into())
            ]
        );
        assert!(model.page.waiting.is_empty());
        assert_eq!(*model.page.history, ["db.a.find()", "sh.status()"]);
        // Typed once the session is ready: run at once, trimmed, and kept once.
        let ran = update(&mut model, Action::Command(" db.b.find() ".into()));
        assert_eq!(ran, [Effect::Run("db.b.find()".into())]);
        assert_eq!(
            model.page.history.last().map(String::as_str),
            Some("db.b.find()")
        );
        assert_eq!(model.page.history.len(), 3);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn steps_wait_for_the_first_answer_and_go_forward_or_run_a_batch() {
        let mut model = opening();
        for action in [
            Action::Step,
            Action::StepBack,
            Action::Jump(1),
            Action::Fork,
        ] {
            assert!(update(&mut model, action).is_empty());
        }
        let mut model = ready();
        update(&mut model, Action::Play);
        let workload = model.page.workload.clone();
        assert_eq!(
            update(&mut model, Action::Step),
            [Effect::Send(Act::Batch {
                workload,
                echo: true
            })]
        );
        assert!(!model.page.playing, "a step stops playing");
        update(&mut model, viewed(1, 3));
        assert_eq!(
            update(&mut model, Action::Step),
            [Effect::Send(Act::Forward)]
        );
        assert_eq!(
            update(&mut model, Action::Jump(0)),
            [Effect::Send(Act::Jump { to: 0 })]
        );
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_tick_sends_a_batch_only_when_playing_and_nothing_is_in_flight() {
        let mut model = ready();
        assert!(update(&mut model, Action::Tick).is_empty(), "not playing");
        update(&mut model, Action::Play);
        let workload = model.page.workload.clone();
        let sent = update(&mut model, Action::Tick);
        assert_eq!(
            sent,
            [Effect::Send(Act::Batch {
                workload: workload.clone(),
                echo: true
            })]
        );
        update(&mut model, Action::Sent);
        assert!(update(&mut model, Action::Tick).is_empty(), "one in flight");
        update(&mut model, viewed(3, 3));
        // The ticks after the first batch are not echoed in the console.
        assert_eq!(
            update(&mut model, Action::Tick),
            [Effect::Send(Act::Batch {
                workload,
                echo: false
            })]
        );
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_replay_takes_only_typed_commands_notices_and_what_effects_bring() {
        let mut model = ready();
        update(
            &mut model,
            Action::Replaying(Some(Progress {
                what: Words::ENGLISH.t(K::RecentSavedSession),
                done: 1,
                goal: 9,
            })),
        );
        let before = model.page.clone();
        for action in [Action::Step, Action::Play, Action::LoadPreset("x".into())] {
            assert!(update(&mut model, action).is_empty());
        }
        assert!(Rc::ptr_eq(&before, &model.page), "nothing asked was taken");
        assert!(update(&mut model, Action::Command("sh.status()".into())).is_empty());
        assert_eq!(*model.page.waiting, ["sh.status()"]);
        update(
            &mut model,
            Action::Notice(Some(Notice::plain(Words::ENGLISH.t(K::RecentSavedSession)))),
        );
        assert!(model.page.notice.is_some());
        update(&mut model, viewed(5, 5));
        assert_eq!(
            model.page.view.position.position, 5,
            "the engine's view is drawn"
        );
        // The language, once its words are in, is taken too, and kept by the next session.
        let chinese = Words::from_catalogue(
            Lang::ZhCn,
            vec![("recent.saved_session".into(), "已保存的会话".into())],
        );
        update(&mut model, Action::Language(chinese));
        assert_eq!(model.page.words, chinese);
        assert_eq!(model.page.words.t(K::RecentSavedSession), "已保存的会话");
        assert_eq!(model.page.successor("page-2").words, chinese);
        assert_eq!(
            model.catalogue(Lang::ZhCn),
            Some(chinese),
            "kept for a return"
        );
        update(&mut model, Action::Language(Words::ENGLISH));
        assert_eq!(model.page.words.t(K::RecentSavedSession), "Saved session");
        assert_eq!(model.catalogue(Lang::ZhCn), Some(chinese));
        let mut fresh = opening();
        update(&mut fresh, Action::Language(chinese));
        assert!(!fresh.touched, "not the user's doing on the page");
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_restart_replays_the_link_form_saved_of_the_page_s_own_session() {
        let mut model = ready();
        assert_eq!(model.saved_form(), None);
        let page = model.page.clone();
        update(
            &mut model,
            Action::LinkForm(Rc::from("page-1"), Some("v1".into())),
        );
        assert_eq!(model.saved_form(), Some(Some("v1".into())));
        assert!(Rc::ptr_eq(&page, &model.page), "nothing to draw");
        // Another session's form is not this one's; one past what a link holds is none.
        update(
            &mut model,
            Action::LinkForm(Rc::from("page-9"), Some("v2".into())),
        );
        assert_eq!(model.saved_form(), None);
        update(&mut model, Action::LinkForm(Rc::from("page-1"), None));
        assert_eq!(model.saved_form(), Some(None));
    }

    /// The sessions `effects` open and close, in order.
    fn sessions_of(effects: &[Effect]) -> Vec<String> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::OpenSession { session, .. } => Some(format!("open {session}")),
                Effect::Close(session) => Some(format!("close {session}")),
                _ => None,
            })
            .collect()
    }

    fn import() -> Box<Opening> {
        Box::new(Opening::replay(
            "{}".into(),
            Source::Import { json: "{}".into() },
        ))
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn each_opening_names_the_next_session_draws_it_and_closes_the_old_one() {
        let mut model = Model::new(Rc::new(Playground::opening("page-0")));
        let effects = update(&mut model, Action::Open(Box::new(Opening::fresh()), true));
        assert_eq!(
            sessions_of(&effects),
            ["open page-1"],
            "the first keeps nothing"
        );
        assert_eq!(&*model.page.session, "page-1");
        update(&mut model, viewed(2, 2));
        let effects = update(&mut model, Action::Open(Box::new(Opening::fresh()), false));
        assert_eq!(sessions_of(&effects), ["close page-1", "open page-2"]);
        assert_eq!(&*model.page.session, "page-2");
        assert!(!model.page.ready, "not drawn until the engine answers");
        // A replay shows its progress from the start.
        update(&mut model, Action::Open(import(), false));
        assert!(model.page.replaying.is_some());
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn an_import_keeps_the_session_it_replaced_until_the_file_opens_or_is_refused() {
        let mut model = Model::new(Rc::new(Playground::opening("page-0")));
        update(&mut model, Action::Open(Box::new(Opening::fresh()), true));
        update(&mut model, viewed(2, 2));
        let effects = update(&mut model, Action::Open(import(), false));
        assert_eq!(
            sessions_of(&effects),
            ["open page-2"],
            "page-1 is kept open"
        );
        assert_eq!(&*model.page.session, "page-2");
        assert_eq!(
            model
                .before_import
                .as_ref()
                .map(|p| p.view.position.position),
            Some(2)
        );
        // Refused: back to the session it replaced, as it was, saying why, and its
        // picture asked for again.
        let effects = update(&mut model, Action::BackFromImport("bad file".into()));
        assert_eq!(effects, [Effect::Send(Act::Look)]);
        assert_eq!(model.page.view.position.position, 2);
        assert!(model.page.notice.is_some());
        assert!(model.before_import.is_none());
        // Opened: the replaced session is closed once the engine answers.
        update(&mut model, Action::Open(import(), false));
        let effects = update(&mut model, Action::OpeningAnswered);
        assert_eq!(sessions_of(&effects), ["close page-1"]);
        assert!(model.before_import.is_none());
        assert!(update(&mut model, Action::BackFromImport("late".into())).is_empty());
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn cancel_stops_the_engine_only_under_a_request() {
        let mut model = ready();
        assert!(update(&mut model, Action::Cancel).is_empty());
        update(&mut model, Action::Sent);
        assert_eq!(update(&mut model, Action::Cancel), [Effect::StopEngine]);
        // The model says the engine is being stopped by Cancel until the restart opens;
        // nothing to stop clears it.
        assert!(model.cancelled);
        update(&mut model, Action::NotStopped);
        assert!(!model.cancelled);
        update(&mut model, Action::Cancel);
        update(&mut model, Action::StopAt(3, 10));
        let effects = update(&mut model, Action::Open(Box::new(Opening::fresh()), false));
        assert!(!model.cancelled, "the opening consumed it");
        assert!(effects.iter().any(|e| matches!(
            e,
            Effect::OpenSession {
                stop_at: Some((3, 10)),
                ..
            }
        )));
        assert_eq!(model.stop_at, None, "taken by the opening");
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn the_saved_session_is_held_until_the_user_does_something() {
        let mut model = ready();
        assert!(!model.touched);
        update(&mut model, Action::Hold);
        assert!(model.hold);
        for quiet in [Action::Tick, Action::Notice(None), Action::Room(None)] {
            update(&mut model, quiet);
            assert!(model.hold && !model.touched, "not the user's doing");
        }
        update(&mut model, Action::SetSpeed(8));
        assert!(!model.hold && model.touched);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_scene_session_is_replaced_in_storage_until_something_is_typed_in_it() {
        let mut model = ready();
        let shows = Shows::Lesson("monotonic".into());
        let open = |model: &mut Model| update(model, Action::OpenScene(shows.clone()));
        assert_eq!(
            open(&mut model),
            [Effect::OpenScene {
                shows: shows.clone(),
                replace_stored: false
            }]
        );
        let next = Box::new(model.page.successor("page-2"));
        update(&mut model, Action::Switch(next, false));
        update(&mut model, Action::SceneOpened);
        assert!(model.scene_owned);
        assert_eq!(
            open(&mut model),
            [Effect::OpenScene {
                shows: shows.clone(),
                replace_stored: true
            }]
        );
        update(&mut model, Action::Command("db.a.find()".into()));
        assert!(!model.scene_owned, "typed in: the user's own");
        update(&mut model, Action::SceneOpened);
        let next = Box::new(model.page.successor("page-3"));
        update(&mut model, Action::Switch(next, false));
        assert!(!model.scene_owned, "any other opening is not a scene's");
    }

    /// A save of `session` measured at `room`.
    fn measured(session: &str, room: Room) -> Action {
        Action::Measured(Box::new(Measure {
            session: Rc::from(session),
            room,
            size: 10,
            page: Vec::new(),
            text: None,
        }))
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn the_room_left_is_said_when_it_moves_and_not_again() {
        let mut model = opening();
        // Each save, and the room the page says, if it says anything. Another session
        // short of room too is said; one with ample room after it is not news, but room
        // coming back is.
        let saves = [
            ("page-1", Room::Ample, None),
            ("page-1", Room::Nearly, Some(Room::Nearly)),
            ("page-1", Room::Nearly, None),
            ("page-2", Room::Nearly, Some(Room::Nearly)),
            ("page-2", Room::Ample, Some(Room::Ample)),
            ("page-3", Room::Ample, None),
            ("page-3", Room::Over, Some(Room::Over)),
        ];
        for (session, room, said) in saves {
            let told: Vec<Room> = update(&mut model, measured(session, room))
                .iter()
                .filter_map(|e| match e {
                    Effect::TellRoom(m) => Some(m.room),
                    _ => None,
                })
                .collect();
            assert_eq!(told, Vec::from_iter(said), "{session} at {room:?}");
        }
    }
}

/// A demo's way through its scenes, walked through the update (here rather than beside
/// `demo.rs`, which the update uses and which must not use it back).
#[cfg(test)]
mod demo_tests {
    use super::*;
    use crate::demo::{demo_of, keep};
    use crate::scenes::{self, Scene, Shows, DEMOS};
    use crate::state::DemoChange;
    use shardlab_protocol::{Act, PageView, Position};

    /// The engine's answer for `session`, at step `at` of `of`, of lesson `lesson`.
    fn viewed(session: &str, at: u64, of: u64, lesson: Option<&str>) -> Action {
        let view = PageView {
            position: Position {
                position: at,
                length: of,
            },
            lesson: lesson.map(str::to_string),
            setup_steps: 2,
            ..PageView::default()
        };
        Action::Viewed(Rc::from(session), Rc::new(view))
    }

    /// A scene of the session loaded at `step`, or of a lesson, `step` past its setup.
    fn scene(step: u64, lesson: Option<&str>) -> Scene {
        Scene {
            scenario: lesson.map(|l| Shows::Lesson(l.to_string())),
            step,
            views: scenes::all_views(),
            title: format!("{step}"),
            note: String::new(),
        }
    }

    /// `page-1` answered at step 5 of 5 of `lesson`, holding a demo of `list`.
    fn with_demo(list: &[Scene], lesson: Option<&str>) -> Model {
        let mut model = Model::new(Rc::new(Playground::opening("page-1")));
        update(&mut model, viewed("page-1", 5, 5, lesson));
        update(&mut model, keep(list, Words::ENGLISH));
        model
    }

    fn shown(model: &Model) -> Option<usize> {
        demo_of(&model.page).1
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_scene_of_the_session_loaded_jumps_to_its_step_and_brings_the_top_into_view() {
        let mut model = with_demo(&[scene(3, None), scene(4, None)], None);
        let effects = update(&mut model, Action::ShowScene(1));
        assert_eq!(
            effects,
            [Effect::Send(Act::Jump { to: 4 }), Effect::ScrollToTop]
        );
        assert_eq!(shown(&model), Some(1));
        // A scene past the list, and any scene while a replay runs, moves nothing.
        assert!(update(&mut model, Action::ShowScene(2)).is_empty());
        update(&mut model, Action::EndDemo);
        assert_eq!(shown(&model), None);
        assert_eq!(demo_of(&model.page).0.len(), 2, "the scenes stay");
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_lesson_step_not_played_yet_is_played_towards_then_jumped_to() {
        let mut model = with_demo(&[scene(6, Some("monotonic"))], Some("monotonic"));
        // Step 2 + 6 = 8, past the 5 the session has: the workload plays towards it.
        let effects = update(&mut model, Action::ShowScene(0));
        assert_eq!(effects, [Effect::ScrollToTop]);
        assert!(model.page.playing);
        let reaching = model.page.demo.reaching.clone().expect("played towards");
        assert_eq!((reaching.step, reaching.played), (8, true), "seen playing");
        // An answer short of it changes nothing; the one that has it jumps there.
        assert!(update(&mut model, viewed("page-1", 7, 7, Some("monotonic"))).is_empty());
        let effects = update(&mut model, viewed("page-1", 9, 9, Some("monotonic")));
        assert_eq!(effects, [Effect::Send(Act::Jump { to: 8 })]);
        assert!(model.page.demo.reaching.is_none());
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_scene_of_another_lesson_opens_it_then_carries_the_demo_across() {
        let list = [scene(0, None), scene(1, Some("hashed"))];
        let mut model = with_demo(&list, Some("monotonic"));
        let effects = update(&mut model, Action::ShowScene(1));
        assert_eq!(
            effects,
            [
                Effect::OpenScene {
                    shows: Shows::Lesson("hashed".into()),
                    replace_stored: false
                },
                Effect::ScrollToTop
            ]
        );
        assert!(model.page.demo.switching.is_some());
        // The lesson's session opens: the demo and the scene on screen come with it,
        // and its step (2 + 1) is asked for once it answers.
        let fresh = Box::new(model.page.successor("page-2"));
        update(&mut model, Action::Switch(fresh, true));
        assert!(model.page.demo.switching.is_some(), "not up yet");
        let effects = update(&mut model, viewed("page-2", 5, 5, Some("hashed")));
        assert_eq!(effects, [Effect::Send(Act::Jump { to: 3 })]);
        assert!(model.page.demo.switching.is_none());
        assert_eq!(shown(&model), Some(1));
        assert_eq!(demo_of(&model.page).0, list);
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn a_ready_made_demo_sets_its_scenes_once_its_lesson_is_up_and_plays() {
        let demo = &DEMOS[0];
        let mut model = with_demo(&[], None);
        update(
            &mut model,
            Action::Demo(DemoChange::Pending(Some((demo.id, Rc::from("page-1"))))),
        );
        assert!(
            model.page.demo.pending.is_some(),
            "the same session: not yet"
        );
        let fresh = Box::new(model.page.successor("page-2"));
        update(&mut model, Action::Switch(fresh, true));
        update(&mut model, viewed("page-2", 2, 2, Some(demo.lesson)));
        assert!(model.page.demo.pending.is_none());
        assert_eq!(demo_of(&model.page).0, demo.scenes(2, Words::ENGLISH));
        assert!(model.page.playing);
    }
}
