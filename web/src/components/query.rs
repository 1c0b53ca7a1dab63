//! What a panel draws from the engine: the model declares the question
//! ([`crate::queries`]) and the driver asks it; a panel says only that it is on screen,
//! and draws the answer its props carry.

use crate::ask::Latest;
use crate::queries::{self, Asker};
use crate::state::Action;
use shardlab_protocol::{Call, EngineError, Reply};
use std::rc::Rc;
use yew::prelude::*;

/// Tells the model that a view of `asker` is on screen while the component is mounted:
/// the model asks its question meanwhile.
#[hook]
pub fn use_in_sight(asker: Asker, dispatch: &Callback<Action>) {
    let dispatch = dispatch.clone();
    use_effect_with(asker, move |asker| {
        let asker = *asker;
        dispatch.emit(Action::InSight(asker, true));
        move || dispatch.emit(Action::InSight(asker, false))
    });
}

/// The reply an answer carries, or its error.
pub fn reply(answer: &Option<queries::Answer>) -> Option<&Result<Reply, EngineError>> {
    answer.as_ref().map(|a| &*a.result)
}

// The panels below the playground's first screen (the insights, the heatmap, the query
// box) and the Compare tab still ask for themselves, with these hooks.

/// An answer from the engine.
pub type Answer = Rc<Result<Reply, EngineError>>;

/// Sends `call()` about `session` whenever `key` changes (and `enabled` holds); gives the
/// answer to the latest request, or the previous one until it comes.
#[hook]
pub fn use_engine_query<K, F>(key: K, session: Rc<str>, enabled: bool, call: F) -> Option<Answer>
where
    K: PartialEq + Clone + 'static,
    F: FnOnce() -> Call + 'static,
{
    let answer = use_state(|| None::<Answer>);
    let latest = use_memo((), |_| Latest::default());
    {
        let answer = answer.clone();
        let latest = latest.clone();
        use_effect_with((key, enabled), move |(_, enabled)| {
            // Whatever was asked before is stale now, even when nothing is asked anew (a
            // panel hidden meanwhile keeps its last answer, not a later one for an old key).
            latest.forget();
            // Nothing is asked before the page's first session is open.
            if *enabled && &*session != crate::state::NO_SESSION {
                latest.ask(&session, call(), move |_, result| {
                    answer.set(Some(Rc::new(result)));
                });
            }
            || ()
        });
    }
    (*answer).clone()
}

/// [`use_engine_query`], with the key each answer was asked for: a panel that draws its
/// answer by what was asked (the inspector's subject) reads it here rather than from the
/// key asked last, which the answer on show may not be for yet.
#[hook]
pub fn use_keyed_query<K, F>(
    key: K,
    session: Rc<str>,
    enabled: bool,
    call: F,
) -> Option<(K, Answer)>
where
    K: PartialEq + Clone + 'static,
    F: FnOnce() -> Call + 'static,
{
    let answer = use_engine_query(key.clone(), session, enabled, call);
    // An answer that arrives is to the latest request, so to the key of the render it
    // first shows in: it is recorded then, by its address.
    let seen = use_mut_ref(|| None::<(Answer, K)>);
    let mut seen = seen.borrow_mut();
    let answer = answer?;
    match seen.as_ref() {
        Some((known, asked)) if Rc::ptr_eq(&answer, known) => Some((asked.clone(), answer)),
        _ => {
            *seen = Some((answer.clone(), key.clone()));
            Some((key, answer))
        }
    }
}

/// An engine error as a panel shows it: MongoDB's message (the code name stays out, as
/// in the page's other panels).
pub fn error_text(error: &EngineError) -> String {
    error.message.clone()
}
