//! The components' way to the engine for a question a click asks once (an export, the
//! ranking, the inspector's insert, the console's "is this statement complete?"). A
//! component never calls the engine client (nor any other platform service:
//! `tests/it/web_layers.rs` fails if one does); it asks here, and the answer comes back to
//! the callback it gave, as the component's state or an [`Action`](crate::state::Action)
//! it dispatches. What a panel draws of the playground is the model's question instead
//! (`crate::asking`).

use crate::engine_client;
use shardlab_protocol::{Call, EngineError, Reply};

/// What an answer is: the engine's reply, or its error.
pub type Answer = Result<Reply, EngineError>;

/// Asks the engine `call` about `session`, once; `done` gets the answer.
pub fn ask(session: &str, call: Call, done: impl FnOnce(Answer) + 'static) {
    engine_client::request(session, call, done);
}

/// Tells `listener` about the engine's loading: a sentence of the catalogue while it waits
/// for the network, `None` once it is up.
pub fn on_status(listener: impl Fn(Option<crate::i18n::K>) + 'static) {
    engine_client::on_status(listener);
}
