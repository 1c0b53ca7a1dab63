//! Each panel's properties, built from the page's state: only what the panel draws (and
//! the dispatch), so that a change elsewhere in the state (a console line, a notice, an
//! act sent, a tick) redraws none of it. The page builds them where it places the panels
//! (`app.rs`); the calm panels' are taken at their calm revision ([`use_calm`]).

use super::cluster_view::{plays_fast, stagger, ClusterPanelProps, Stage};
use super::controls::ControlsProps;
use super::guide::GuideProps;
use super::heatmap::HeatmapProps;
use super::insights::InsightsProps;
use super::inspector::InspectorProps;
use super::query_box::QueryBoxProps;
use super::scenes_panel::{Demoing, ScenesProps};
use super::share_bar::Sharing;
use super::tabs::Mode;
use super::timeline_panel::TimelineProps;
use super::workload_panel::{Transport, WorkloadProps};
use crate::queries::Asker;
use crate::state::{Action, Calm, Playground};
use shardlab_protocol::Inspecting;
use std::rc::Rc;
use yew::prelude::*;

/// The cluster panel's: the picture, the marks on it and how fast it changes.
pub fn cluster(
    state: &Playground,
    dispatch: &Callback<Action>,
    targeted: Vec<String>,
) -> ClusterPanelProps {
    let stage = if state.first_screen.is_some() {
        Stage::FirstScreen
    } else if state.ready {
        Stage::Answered
    } else if state.catalog.versions.is_empty() {
        Stage::Starting
    } else {
        Stage::Opening
    };
    let selected = match state.inspecting() {
        Some(Inspecting::Chunk { key, .. }) => Some(key.clone()),
        _ => None,
    };
    ClusterPanelProps {
        stage,
        frame: state.frame.clone(),
        ns: AttrValue::from(state.settings.ns.clone()),
        hot: state.view.hot.clone(),
        hot_counted: state.view.hot_counted,
        landed: state.view.landed.as_ref().and_then(|l| l.chunk.clone()),
        selected,
        fast: plays_fast(state.playing, state.speed),
        stagger: stagger(state.playing, state.speed),
        dispatch: dispatch.clone(),
        targeted,
    }
}

/// The share bar's and the "Open in ShardLab" link's: the session, the page's own state
/// a link carries, and the picture.
pub fn sharing(state: &Playground) -> Sharing {
    Sharing {
        session: state.session.clone(),
        view: state.view.clone(),
        page: state.page_entries(),
        ns: state.settings.ns.clone(),
        frame: state.frame.clone(),
        settled: state.ready && state.replaying.is_none(),
        replaying: state.replaying.is_some(),
        link: state.answer(Asker::OpenLink),
    }
}

/// The inspector's: what it asks the engine about, and its revision.
pub fn inspector(state: &Playground, dispatch: &Callback<Action>) -> InspectorProps {
    let ns = &state.settings.ns;
    InspectorProps {
        session: state.session.clone(),
        ns: AttrValue::from(ns.clone()),
        subject: state.inspecting().cloned(),
        sharded: state.frame.sharded && state.frame.ns == *ns,
        answer: state.answer(Asker::Inspector),
        dispatch: dispatch.clone(),
    }
}

/// The heatmap's: what it asks the engine for, and its revision.
pub fn heatmap(state: &Playground, dispatch: &Callback<Action>) -> HeatmapProps {
    let ns = &state.settings.ns;
    let sharded = state.frame.sharded && state.frame.ns == *ns;
    HeatmapProps {
        heat: state.answer(Asker::Heat),
        ns: AttrValue::from(ns.clone()),
        key: AttrValue::from(if sharded {
            state.frame.key.clone()
        } else {
            String::new()
        }),
        at: state.view.position,
        dispatch: dispatch.clone(),
    }
}

/// The scenes panel's and the scene bar's: the session and where it stands, and the demo.
pub fn scenes(state: &Playground, dispatch: &Callback<Action>) -> ScenesProps {
    ScenesProps {
        state: Rc::new(Demoing {
            session: state.session.clone(),
            at: state.view.position,
            ready: state.ready,
            replaying: state.replaying.is_some(),
            page: state.page.clone(),
            link_page: state.page_entries(),
            catalog: state.catalog.clone(),
        }),
        dispatch: dispatch.clone(),
    }
}

/// The timeline's: the cursor, the step's command and what the log is asked about.
pub fn timeline(state: &Playground, dispatch: &Callback<Action>) -> TimelineProps {
    TimelineProps {
        at: state.view.position,
        step: state.view.step.clone().map(AttrValue::from),
        events: state.answer(Asker::Timeline),
        dispatch: dispatch.clone(),
    }
}

/// The insights': the collection, its key and the cursor.
pub fn insights(state: &Playground, dispatch: &Callback<Action>) -> InsightsProps {
    let frame = &state.frame;
    let key = if frame.sharded && frame.ns == state.settings.ns {
        &frame.key
    } else {
        &state.settings.key
    };
    InsightsProps {
        session: state.session.clone(),
        ns: AttrValue::from(state.settings.ns.clone()),
        key: AttrValue::from(key.clone()),
        at: state.view.position,
        charts: state.answer(Asker::Charts),
        asked: state.analysis.clone(),
        report: state.answer(Asker::Report),
        dispatch: dispatch.clone(),
    }
}

/// The query box's: the collection, its filter and the engine's latest answer about it.
pub fn query_box(state: &Playground, dispatch: &Callback<Action>) -> QueryBoxProps {
    QueryBoxProps {
        ns: AttrValue::from(state.settings.ns.clone()),
        filter: AttrValue::from(state.filter()),
        answer: state.answer(Asker::Target),
        dispatch: dispatch.clone(),
    }
}

/// The guided lesson's: its published place, whether its run is over, and the revision
/// its outline is put back on.
pub fn guide(state: &Playground, dispatch: &Callback<Action>) -> GuideProps {
    GuideProps {
        published: state
            .page_value("guide")
            .map(|v| AttrValue::from(v.to_string())),
        playing: state.playing,
        count: state.count(),
        total: state.workload.total,
        redrawn: state.rev,
        dispatch: dispatch.clone(),
        on_close: dispatch.reform(|()| Action::SetMode(Mode::Playground)),
    }
}

/// The scenario controls': the settings, the collections at the cursor and the versions.
pub fn controls(state: &Playground, dispatch: &Callback<Action>) -> ControlsProps {
    ControlsProps {
        at: state.view.position,
        settings: state.settings.clone(),
        draft: state.draft().clone(),
        plan: state.answer(Asker::Plan),
        collections: state.view.collections.clone(),
        catalog: state.catalog.clone(),
        dispatch: dispatch.clone(),
    }
}

/// The workload's, for its form, its key-fit warning and its template.
pub fn workload(state: &Playground, dispatch: &Callback<Action>) -> WorkloadProps {
    WorkloadProps {
        ready: state.ready,
        workload: state.workload.clone(),
        ns: AttrValue::from(state.settings.ns.clone()),
        key: AttrValue::from(state.settings.key.clone()),
        fit: state.answer(Asker::KeyFit),
        template_shown: AttrValue::from(state.template_shown()),
        template_draft: AttrValue::from(state.template_draft()),
        template_check: state.answer(Asker::Template),
        dispatch: dispatch.clone(),
    }
}

/// The transport's: playing, the speed, the cursor and the workload's progress.
pub fn transport(state: &Playground) -> Transport {
    Transport {
        playing: state.playing,
        passing: state.passing,
        speed: state.speed,
        ready: state.ready,
        at: state.view.position,
        count: state.count(),
        total: state.workload.total,
    }
}

/// A calm panel's properties (see [`Calm`]), built from the state as it was at the
/// panel's calm revision: while a workload plays, a few times a second rather than with
/// every answer, and at once for anything else.
#[hook]
pub fn use_calm<P, F>(state: &UseReducerHandle<Playground>, calm: Calm, build: F) -> Rc<P>
where
    P: 'static,
    F: FnOnce(&Playground) -> P + 'static,
{
    let now = state.clone();
    use_memo((state.session.clone(), state.calm_rev(calm)), move |_| {
        build(&now)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::{Words, K};
    use crate::state::Notice;
    use shardlab_protocol::{CollectionInfo, Frame, Landed, PageView, Position};

    /// The picture of `test.events` at step `position`: 25 documents a step.
    fn picture(position: u64) -> Frame {
        Frame {
            ns: "test.events".into(),
            position,
            docs: position * 25,
            ..Frame::default()
        }
    }

    /// A page that has drawn the engine's answer for `page-1`, at step 3 of 5.
    fn drawn() -> Rc<Playground> {
        let view = PageView {
            position: Position {
                position: 3,
                length: 5,
            },
            frame: picture(3),
            count: 75,
            collections: vec![CollectionInfo {
                ns: "test.events".into(),
                docs: 75,
                ..CollectionInfo::default()
            }],
            ..PageView::default()
        };
        let state = Rc::new(Playground::opening("page-1"));
        state.next(Action::Viewed(Rc::from("page-1"), Rc::new(view)))
    }

    /// The same page after `actions`, none of which changes what the panels draw.
    fn after(state: &Rc<Playground>, actions: Vec<Action>) -> Rc<Playground> {
        actions
            .into_iter()
            .fold(state.clone(), |s, action| s.next(action))
    }

    /// Actions that move the page's revision on but change nothing any panel here draws:
    /// a notice, an act sent, a command typed (before its answer), a panel published.
    fn unrelated() -> Vec<Action> {
        vec![
            Action::Notice(Some(Notice::plain(Words::ENGLISH.t(K::RecentSavedSession)))),
            Action::Sent,
            Action::Command("db.events.find()".into()),
            Action::Page("compare", Some("x".into())),
        ]
    }

    /// The engine's next answer, with the cursor at `position` of `length`.
    fn answer(state: &Rc<Playground>, position: u64, length: u64) -> Rc<Playground> {
        let view = PageView {
            position: Position { position, length },
            frame: picture(position),
            ..(*state.view).clone()
        };
        state
            .clone()
            .next(Action::Viewed(Rc::from("page-1"), Rc::new(view)))
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn props_stay_equal_across_changes_the_panels_do_not_draw() {
        let dispatch = Callback::from(|_: Action| ());
        let before = drawn();
        let later = after(&before, unrelated());
        assert_ne!(before.rev, later.rev, "the actions moved the revision on");
        let no_targets = Vec::new;
        assert!(
            cluster(&before, &dispatch, no_targets()) == cluster(&later, &dispatch, no_targets())
        );
        assert!(timeline(&before, &dispatch) == timeline(&later, &dispatch));
        assert!(insights(&before, &dispatch) == insights(&later, &dispatch));
        assert!(query_box(&before, &dispatch) == query_box(&later, &dispatch));
        assert!(controls(&before, &dispatch) == controls(&later, &dispatch));
        assert!(workload(&before, &dispatch) == workload(&later, &dispatch));
        assert!(transport(&before) == transport(&later));
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn props_change_with_what_the_panels_draw() {
        let dispatch = Callback::from(|_: Action| ());
        let before = drawn();
        // A step back: the cursor moves, and with it the cluster at it.
        let back = answer(&before, 2, 5);
        assert!(timeline(&before, &dispatch) != timeline(&back, &dispatch));
        assert!(insights(&before, &dispatch) != insights(&back, &dispatch));
        // The query box's question is the model's, asked again at the new cursor: the box
        // draws the answer when it comes, and a filter typed at once.
        assert!(query_box(&before, &dispatch) == query_box(&back, &dispatch));
        let typed = after(&before, vec![Action::Filter("{x: 2}".into())]);
        assert!(query_box(&before, &dispatch) != query_box(&typed, &dispatch));
        assert_eq!(typed.filter(), "{x: 2}");
        assert!(controls(&before, &dispatch) != controls(&back, &dispatch));
        assert!(transport(&before) != transport(&back));
        // The engine's answer brings a new picture: the cluster redraws; an answer with
        // the same picture (a `find` in the console) is a new frame equal to the last.
        assert!(cluster(&before, &dispatch, vec![]) != cluster(&back, &dispatch, vec![]));
        let same = answer(&before, 3, 5);
        assert!(!Rc::ptr_eq(&before.frame, &same.frame));
        assert!(cluster(&before, &dispatch, vec![]) == cluster(&same, &dispatch, vec![]));
        // A chunk inspected, a document landed, a shard targeted: only the cluster.
        let chunk = Inspecting::Chunk {
            key: "{x: 1}".into(),
            skip: None,
            mark: None,
        };
        let inspected = before.clone().next(Action::Inspect(Some(chunk)));
        assert!(cluster(&before, &dispatch, vec![]) != cluster(&inspected, &dispatch, vec![]));
        assert!(timeline(&before, &dispatch) == timeline(&inspected, &dispatch));
        let mut landed = (*before).clone();
        landed.view = Rc::new(PageView {
            landed: Some(Landed {
                seq: 1,
                at: None,
                chunk: Some("{x: 1}".into()),
            }),
            ..(*before.view).clone()
        });
        assert!(cluster(&before, &dispatch, vec![]) != cluster(&landed, &dispatch, vec![]));
        assert!(
            cluster(&before, &dispatch, vec![])
                != cluster(&before, &dispatch, vec!["shard01".into()])
        );
        // Faster play: the transport, and the cluster once it plays fast.
        let playing = after(&before, vec![Action::Play]);
        let fast = after(&playing, vec![Action::SetSpeed(30)]);
        assert!(transport(&playing) != transport(&fast));
        assert!(cluster(&playing, &dispatch, vec![]) != cluster(&fast, &dispatch, vec![]));
        assert!(controls(&playing, &dispatch) == controls(&fast, &dispatch));
    }

    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn the_panels_that_ask_the_engine_take_only_what_they_ask_by() {
        let dispatch = Callback::from(|_: Action| ());
        let before = drawn();
        // A notice and the console's history: none of these panels draws them.
        let mut noticed = (*before).clone();
        noticed.notice = Some(Notice::plain(Words::ENGLISH.t(K::RecentSavedSession)));
        noticed.history = Rc::new(vec!["db.events.find()".into()]);
        noticed.rev += 1;
        assert!(inspector(&before, &dispatch) == inspector(&noticed, &dispatch));
        assert!(heatmap(&before, &dispatch) == heatmap(&noticed, &dispatch));
        assert!(sharing(&before) == sharing(&noticed));
        assert!(scenes(&before, &dispatch) == scenes(&noticed, &dispatch));
        // The timeline's calm revision: the model asks the inspector's and the heatmap's
        // questions again; they draw the answers that come.
        let mut calm = (*before).clone();
        calm.calm_revs[Calm::Timeline as usize] += 1;
        assert!(inspector(&before, &dispatch) == inspector(&calm, &dispatch));
        assert!(heatmap(&before, &dispatch) == heatmap(&calm, &dispatch));
        assert!(sharing(&before) == sharing(&calm));
        // An answer to a panel's question: that panel alone draws it.
        let inspected_answer = crate::queries::Answer {
            question: Rc::new(crate::queries::Question {
                session: before.session.clone(),
                call: shardlab_protocol::Call::Events {
                    ns: "test.events".into(),
                },
                at: None,
                by: String::new(),
            }),
            result: Rc::new(Err(shardlab_protocol::EngineError {
                code: 1,
                code_name: "InternalError".into(),
                message: "m".into(),
            })),
        };
        let answered = after(
            &before,
            vec![Action::Answered(Asker::Inspector, 1, inspected_answer)],
        );
        assert!(inspector(&before, &dispatch) != inspector(&answered, &dispatch));
        assert!(heatmap(&before, &dispatch) == heatmap(&answered, &dispatch));
        assert!(sharing(&before) == sharing(&answered));
        assert!(controls(&before, &dispatch) == controls(&answered, &dispatch));
        // A subject inspected: the inspector alone.
        let chunk = Inspecting::Chunk {
            key: "{x: 1}".into(),
            skip: None,
            mark: None,
        };
        let mut inspected = (*before).clone();
        inspected.inspect = Some((inspected.settings.ns.clone(), chunk));
        assert!(inspector(&before, &dispatch) != inspector(&inspected, &dispatch));
        assert!(heatmap(&before, &dispatch) == heatmap(&inspected, &dispatch));
        // The engine's next answer: a link asks again, the scenes see the cursor move.
        let back = answer(&before, 2, 5);
        assert!(sharing(&before) != sharing(&back));
        assert!(scenes(&before, &dispatch) != scenes(&back, &dispatch));
        // A panel published: a link carries it, and the scenes panel reads its entries.
        let published = after(&before, vec![Action::Page("compare", Some("x".into()))]);
        assert!(sharing(&before) != sharing(&published));
        assert!(scenes(&before, &dispatch) != scenes(&published, &dispatch));
        // An act sent: neither follows what is in flight.
        let sent = after(&before, vec![Action::Sent]);
        assert!(sharing(&before) == sharing(&sent));
        assert!(scenes(&before, &dispatch) == scenes(&sent, &dispatch));
    }
}
