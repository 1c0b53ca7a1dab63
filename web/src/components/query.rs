//! What a panel draws from the engine: the model declares the question
//! ([`crate::queries`]) and the driver asks it; a panel says only that it is on screen,
//! and draws the answer its props carry.

use crate::queries::{self, Asker};
use crate::state::Action;
use shardlab_protocol::{EngineError, Reply};
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

/// A reply as the panels draw it (the result an answer carries).
pub type Answer = Rc<Result<Reply, EngineError>>;

/// An engine error as a panel shows it: MongoDB's message (the code name stays out, as
/// in the page's other panels).
pub fn error_text(error: &EngineError) -> String {
    error.message.clone()
}
