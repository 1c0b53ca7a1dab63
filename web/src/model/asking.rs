//! What the panels draw from the engine, declared by the model. The view says which
//! panels are on screen ([`Action::InSight`]); for the playground as it is, [`wanted`]
//! says the question each of them wants answered; [`Asked::plan`], run after every
//! message, compares those with what was asked and returns the requests to send
//! ([`Effect::Ask`]); an answer ([`Action::Answered`]) is kept only when it answers its
//! panel's latest question, and the panel draws it from the playground
//! ([`Playground::answers`]). Pure, as the rest of the model: the driver sends the
//! requests.
//!
//! [`Effect::Ask`]: crate::update::Effect::Ask
//! [`Action::InSight`]: crate::state::Action::InSight
//! [`Action::Answered`]: crate::state::Action::Answered

use crate::queries::{Ask, Asker, Question};
use crate::state::{Calm, Playground, NO_SESSION};
use shardlab_protocol::{Call, Inspecting, Position};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What the model asked: the panels on screen, and each one's latest question.
#[derive(Clone, Debug, Default)]
pub struct Asked {
    /// How many views of each panel are on screen.
    in_sight: BTreeMap<Asker, u32>,
    /// Each panel's latest question, and its number.
    latest: BTreeMap<Asker, (Rc<Question>, u64)>,
    /// The number of the next question.
    next: u64,
}

impl Asked {
    /// A view of `asker` came on screen (`true`) or went (`false`).
    pub fn sight(&mut self, asker: Asker, shown: bool) {
        let n = self.in_sight.entry(asker).or_default();
        *n = if shown {
            n.saturating_add(1)
        } else {
            n.saturating_sub(1)
        };
        if *n == 0 {
            self.in_sight.remove(&asker);
        }
    }

    /// Whether `asker` is on screen.
    pub fn shown(&self, asker: Asker) -> bool {
        self.in_sight.contains_key(&asker)
    }

    /// The requests that bring what was asked up to what `page` wants: each panel on
    /// screen whose question changed asks it, once. A panel gone from sight, or with
    /// nothing to ask, forgets its question, so that a late answer to it is dropped (the
    /// panel keeps drawing its last answer meanwhile).
    pub fn plan(&mut self, page: &Playground) -> Vec<Ask> {
        let mut wanted = wanted(page);
        wanted.retain(|asker, _| self.shown(*asker));
        self.latest.retain(|asker, _| wanted.contains_key(asker));
        let mut asks = Vec::new();
        for (asker, question) in wanted {
            if self
                .latest
                .get(&asker)
                .is_some_and(|(asked, _)| **asked == question)
            {
                continue;
            }
            self.next += 1;
            let question = Rc::new(question);
            self.latest.insert(asker, (question.clone(), self.next));
            asks.push(Ask {
                asker,
                id: self.next,
                question,
            });
        }
        asks
    }

    /// The question an answer numbered `id` answers, if it is still `asker`'s latest.
    pub fn answers(&self, asker: Asker, id: u64) -> Option<Rc<Question>> {
        self.latest
            .get(&asker)
            .filter(|(_, latest)| *latest == id)
            .map(|(q, _)| q.clone())
    }
}

/// The question each panel wants answered about `page`, whether or not it is on screen.
/// Nothing is asked before the engine has answered for the session. The timeline and the
/// inspector ask about the cursor as it was at their calm revision (while a workload
/// plays, a few times a second: [`Playground::calm_at`]).
pub fn wanted(page: &Playground) -> BTreeMap<Asker, Question> {
    if !page.ready || &*page.session == NO_SESSION {
        return BTreeMap::new();
    }
    Asker::ALL
        .into_iter()
        .filter_map(|asker| {
            let (call, at, by) = question(page, asker)?;
            let session = page.session.clone();
            Some((
                asker,
                Question {
                    session,
                    call,
                    at,
                    by,
                },
            ))
        })
        .collect()
}

/// What `asker` asks about `page`, if anything: the call, the cursor the answer is about
/// (where it changes with the cluster), and anything else it depends on.
fn question(page: &Playground, asker: Asker) -> Option<(Call, Option<Position>, String)> {
    let ns = page.settings.ns.clone();
    let shown = |calm: Calm| !page.hidden[calm as usize];
    Some(match asker {
        Asker::Plan => (
            Call::PlanSetup {
                draft: page.draft().clone(),
            },
            Some(page.view.position),
            String::new(),
        ),
        // The warning depends on the workload and the key, not on the cursor.
        Asker::KeyFit => (
            Call::WorkloadFit {
                ns,
                spec: page.workload.spec.clone(),
            },
            None,
            page.settings.key.clone(),
        ),
        Asker::Charts if shown(Calm::Insights) => (
            Call::Insights { ns, analyze: false },
            Some(page.calm_at(Calm::Insights)),
            String::new(),
        ),
        Asker::Timeline if shown(Calm::Timeline) => (
            Call::Events { ns },
            Some(page.calm_at(Calm::Timeline)),
            String::new(),
        ),
        // An unsharded collection has no chunks to inspect and no key to insert by.
        Asker::Inspector if page.frame.sharded && page.frame.ns == ns => (
            Call::Inspect {
                subject: page.inspecting().cloned().unwrap_or(Inspecting::Nothing),
                ns,
            },
            Some(page.calm_at(Calm::Timeline)),
            String::new(),
        ),
        // A replay under way makes no link.
        Asker::OpenLink if page.replaying.is_none() => (
            Call::Scenario {
                page: page.page_entries(),
                json: false,
            },
            Some(page.view.position),
            String::new(),
        ),
        // Where the query box's filter goes, on the cluster at the cursor.
        Asker::Target => (
            Call::Target {
                ns,
                filter: page.filter(),
            },
            Some(page.view.position),
            String::new(),
        ),
        // The template as edited, checked as the workload would run it.
        Asker::Template => (
            Call::WorkloadFit {
                ns,
                spec: page.template_draft(),
            },
            None,
            String::new(),
        ),
        Asker::Heat => return heat(page, ns),
        Asker::Report | Asker::Rank => return clicked(page, asker),
        _ => return None,
    })
}

/// What a click asked: the report of the collection shown then, or the ranking as the
/// form said, numbered by the click so that asking again at the same step asks the engine
/// again, and about the moment it was asked (the cursor moving on asks nothing). One
/// asked in an earlier session asks nothing of this one.
fn clicked(page: &Playground, asker: Asker) -> Option<(Call, Option<Position>, String)> {
    let (session, call, n) = match asker {
        Asker::Report => {
            let (session, ns, n) = page.analysis.clone()?;
            (session, Call::Insights { ns, analyze: true }, n)
        }
        _ => {
            let (session, spec, n) = page.ranking.clone()?;
            (session, Call::Rank((*spec).clone()), n)
        }
    };
    (session == page.session).then(|| (call, None, n.to_string()))
}

/// The heatmap's question: a grid that fills its canvas, a row per device pixel, a column
/// per pixel or per step, whichever is fewer (within `Call::Heat`'s bounds), at the calm
/// cursor. With no collection, no step yet or no canvas measured, there is nothing to ask.
fn heat(page: &Playground, ns: String) -> Option<(Call, Option<Position>, String)> {
    let (rows, cells) = page.heat_canvas?;
    let steps = page.calm_at(Calm::Timeline).length;
    if ns.is_empty() || steps == 0 {
        return None;
    }
    let columns = u32::try_from(steps.clamp(1, 8192))
        .unwrap_or(8192)
        .min(cells);
    let (rows, columns) = (rows.clamp(1, 4096), columns.max(1));
    Some((
        Call::Heat { ns, rows, columns },
        Some(page.calm_at(Calm::Timeline)),
        String::new(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{Action, Calm};
    use shardlab_protocol::Frame;

    /// A playground the engine has answered for, at `position` of `length` steps, its
    /// collection sharded.
    fn answered(position: u64, length: u64) -> Rc<Playground> {
        let mut p = Playground::opening("page-1");
        p.ready = true;
        let mut view = (*p.view).clone();
        view.position = Position { position, length };
        p.view = Rc::new(view);
        p.calm_at = [Position { position, length }; 2];
        p.heat_canvas = Some((220, 780));
        p.frame = Rc::new(Frame {
            ns: p.settings.ns.clone(),
            sharded: true,
            ..(*p.frame).clone()
        });
        Rc::new(p)
    }

    fn all_in_sight() -> Asked {
        let mut asked = Asked::default();
        for a in Asker::ALL {
            asked.sight(a, true);
        }
        asked
    }

    fn askers(asks: &[Ask]) -> Vec<Asker> {
        asks.iter().map(|a| a.asker).collect()
    }

    #[test]
    fn only_the_panels_on_screen_ask_and_each_question_is_asked_once() {
        let page = answered(3, 3);
        let mut asked = Asked::default();
        assert!(
            asked.plan(&page).is_empty(),
            "nothing on screen, nothing asked"
        );
        asked.sight(Asker::Timeline, true);
        let asks = asked.plan(&page);
        assert_eq!(askers(&asks), vec![Asker::Timeline]);
        assert_eq!(
            asks[0].question.call,
            Call::Events {
                ns: page.settings.ns.clone()
            }
        );
        assert!(
            asked.plan(&page).is_empty(),
            "the same question is not asked twice"
        );
        // A second view of the same panel asks nothing more; one of the two going leaves
        // the other asking.
        asked.sight(Asker::Timeline, true);
        asked.sight(Asker::Timeline, false);
        assert!(asked.plan(&page).is_empty());
        assert!(asked.answers(Asker::Timeline, asks[0].id).is_some());
    }

    #[test]
    fn nothing_is_asked_before_the_engine_answered_for_the_session() {
        let mut page = (*answered(1, 1)).clone();
        page.ready = false;
        assert!(all_in_sight().plan(&page).is_empty());
        assert!(wanted(&Playground::default()).is_empty());
    }

    #[test]
    fn a_new_cursor_asks_again_and_the_older_answer_is_dropped() {
        let mut asked = all_in_sight();
        let first = asked.plan(&answered(1, 1));
        assert_eq!(first.len(), 9, "every panel asks: {:?}", askers(&first));
        let second = asked.plan(&answered(2, 2));
        // The key-fit warning depends on the workload and the key, not the cursor.
        assert_eq!(
            askers(&second),
            vec![
                Asker::Plan,
                Asker::Timeline,
                Asker::Charts,
                Asker::Inspector,
                Asker::OpenLink,
                Asker::Target,
                Asker::Heat
            ]
        );
        let old = first
            .iter()
            .find(|a| a.asker == Asker::Timeline)
            .expect("asked");
        let new = second
            .iter()
            .find(|a| a.asker == Asker::Timeline)
            .expect("asked");
        assert_eq!(asked.answers(Asker::Timeline, old.id), None);
        assert_eq!(
            asked.answers(Asker::Timeline, new.id),
            Some(new.question.clone())
        );
    }

    #[test]
    fn a_panel_gone_from_sight_forgets_its_question_and_asks_again_when_back() {
        let page = answered(4, 4);
        let mut asked = all_in_sight();
        let asks = asked.plan(&page);
        let timeline = asks
            .iter()
            .find(|a| a.asker == Asker::Timeline)
            .expect("asked");
        asked.sight(Asker::Timeline, false);
        assert!(asked.plan(&page).is_empty());
        assert_eq!(asked.answers(Asker::Timeline, timeline.id), None);
        asked.sight(Asker::Timeline, true);
        assert_eq!(askers(&asked.plan(&page)), vec![Asker::Timeline]);
    }

    #[test]
    fn the_questions_follow_what_they_ask_by() {
        let page = answered(2, 2);
        let mut asked = all_in_sight();
        asked.plan(&page);
        // The timeline out of sight (scrolled away): no log is asked for.
        let hidden = page.clone().next(Action::Hidden(Calm::Timeline, true));
        assert!(asked.plan(&hidden).is_empty());
        assert!(!wanted(&hidden).contains_key(&Asker::Timeline));
        // A draft typed in the form is planned.
        let mut draft = page.draft().clone();
        draft.key = "{y: 1}".into();
        let drafted = hidden.clone().next(Action::Draft(draft.clone()));
        let asks = asked.plan(&drafted);
        assert_eq!(askers(&asks), vec![Asker::Plan]);
        assert_eq!(asks[0].question.call, Call::PlanSetup { draft });
        // An unsharded collection has nothing to inspect.
        let mut unsharded = (*page).clone();
        unsharded.frame = Rc::new(Frame {
            sharded: false,
            ..(*page.frame).clone()
        });
        assert!(!wanted(&unsharded).contains_key(&Asker::Inspector));
        // A replay under way makes no link.
        let mut replaying = (*page).clone();
        replaying.replaying = Some(crate::state::Progress {
            what: "Replaying",
            done: 0,
            goal: 1,
        });
        assert!(!wanted(&replaying).contains_key(&Asker::OpenLink));
    }

    #[test]
    fn a_ranking_is_asked_once_per_click_of_its_own_session_only() {
        let page = answered(3, 3);
        let mut asked = Asked::default();
        asked.sight(Asker::Rank, true);
        assert!(asked.plan(&page).is_empty(), "no click, nothing asked");
        let spec = shardlab_protocol::RankSpec {
            ns: page.settings.ns.clone(),
            keys: vec!["{a: 1}".into()],
            ..Default::default()
        };
        let clicked = page.clone().next(Action::Rank(spec.clone()));
        let asks = asked.plan(&clicked);
        assert_eq!(askers(&asks), vec![Asker::Rank]);
        assert_eq!(asks[0].question.call, Call::Rank(spec.clone()));
        assert_eq!(asks[0].question.by, "1");
        // The cursor moving on does not ask again: a ranking is of the moment it was asked.
        let later = Rc::new(Playground {
            view: answered(4, 4).view.clone(),
            ..(*clicked).clone()
        });
        assert!(asked.plan(&later).is_empty());
        // The same ranking clicked again is asked again, numbered by its click.
        let again = later.next(Action::Rank(spec));
        let second = asked.plan(&again);
        assert_eq!(askers(&second), vec![Asker::Rank]);
        assert_eq!(second[0].question.by, "2");
        assert_eq!(
            asked.answers(Asker::Rank, asks[0].id),
            None,
            "the first is dropped"
        );
        // A ranking asked of another session asks nothing of this one.
        let mut other = (*again).clone();
        other.session = Rc::from("page-9");
        assert!(!wanted(&other).contains_key(&Asker::Rank));
        assert_eq!((again.ranked(), other.ranked()), (Some(2), None));
    }

    /// `page` with the engine's example filter `example` and the key `key`.
    fn with(page: &Rc<Playground>, example: Option<&str>, key: &str) -> Rc<Playground> {
        let mut p = (**page).clone();
        let mut view = (*p.view).clone();
        view.settings.example_filter = example.map(str::to_string);
        p.view = Rc::new(view);
        p.frame = Rc::new(Frame {
            key: key.to_string(),
            ..(*p.frame).clone()
        });
        Rc::new(p).next(Action::Tick)
    }

    #[test]
    fn the_query_box_filter_starts_over_with_the_collection_or_key_and_keeps_what_was_typed() {
        let empty = with(&answered(1, 1), None, "{x: 1}");
        assert_eq!(empty.filter(), "{}", "no document yet: the placeholder");
        // The first document: the placeholder becomes the engine's example.
        let first = with(&empty, Some("{x: 5}"), "{x: 1}");
        assert_eq!(first.filter(), "{x: 5}");
        // What is typed stays, even "{}" typed on purpose, while the key stays.
        let typed = first.clone().next(Action::Filter("{}".into()));
        assert_eq!(typed.filter(), "{}");
        let later = with(&typed, Some("{x: 7}"), "{x: 1}");
        assert_eq!(later.filter(), "{}");
        // A new key starts it over, so it never targets a key that is gone.
        let rekeyed = with(&later, Some("{y: 1}"), "{y: 1}");
        assert_eq!(rekeyed.filter(), "{y: 1}");
        // It is what the query box asks the engine to route.
        let mut asked = Asked::default();
        asked.sight(Asker::Target, true);
        let asks = asked.plan(&rekeyed);
        assert_eq!(
            asks[0].question.call,
            Call::Target {
                ns: rekeyed.settings.ns.clone(),
                filter: "{y: 1}".into()
            }
        );
    }

    #[test]
    fn the_heatmap_asks_for_the_grid_that_fills_its_canvas_at_the_calm_cursor() {
        let page = answered(3, 40);
        let question = wanted(&page).remove(&Asker::Heat).expect("asked");
        // A row per device pixel, a column per step while there are fewer steps than
        // pixels.
        let ns = page.settings.ns.clone();
        assert_eq!(
            question.call,
            Call::Heat {
                ns: ns.clone(),
                rows: 220,
                columns: 40
            }
        );
        let wide = answered(3, 5000);
        assert_eq!(
            wanted(&wide).remove(&Asker::Heat).expect("asked").call,
            Call::Heat {
                ns,
                rows: 220,
                columns: 780
            }
        );
        // Not measured yet, or no step yet: nothing to ask.
        let mut unmeasured = (*page).clone();
        unmeasured.heat_canvas = None;
        assert!(!wanted(&unmeasured).contains_key(&Asker::Heat));
        assert!(!wanted(&answered(0, 0)).contains_key(&Asker::Heat));
    }

    #[test]
    fn the_template_edited_is_kept_until_the_template_shown_changes() {
        let page = answered(1, 1);
        let shown = page.template_shown();
        assert_eq!(
            page.template_draft(),
            shown,
            "nothing edited: the template shown"
        );
        let edited = page.clone().next(Action::TemplateDraft("{a: 1}".into()));
        assert_eq!(edited.template_draft(), "{a: 1}");
        let asks = {
            let mut asked = Asked::default();
            asked.sight(Asker::Template, true);
            asked.plan(&edited)
        };
        assert_eq!(
            asks[0].question.call,
            Call::WorkloadFit {
                ns: edited.settings.ns.clone(),
                spec: "{a: 1}".into()
            }
        );
        // Another workload: its template is shown, the edit dropped.
        let mut other = (*edited).clone();
        other.workload.spec = "low-cardinality".into();
        assert_eq!(other.template_draft(), "low-cardinality");
    }
}
