//! The components' way to the engine. A component never calls the engine client (nor any
//! other platform service: `tests/it/web_layers.rs` fails if one does); it asks here, and
//! the answer comes back to the callback it gave, as the component's state or an
//! [`Action`](crate::state::Action) it dispatches. A panel that asks again while an answer
//! is out holds a [`Latest`]: only the latest question's answer reaches it.

use crate::engine_client;
use shardlab_protocol::{Call, EngineError, Reply};
use std::cell::Cell;
use std::rc::Rc;

/// What an answer is: the engine's reply, or its error.
pub type Answer = Result<Reply, EngineError>;

/// Asks the engine `call` about `session`, once; `done` gets the answer.
pub fn ask(session: &str, call: Call, done: impl FnOnce(Answer) + 'static) {
    engine_client::request(session, call, done);
}

/// A panel's questions where the latest wins: an answer to a question asked before the
/// latest one is dropped. Clones share the count.
#[derive(Clone, Default)]
pub struct Latest {
    asked: Rc<Cell<u64>>,
}

impl Latest {
    /// Makes every question asked so far stale, and gives the next question's number.
    pub fn forget(&self) -> u64 {
        let n = self.asked.get().wrapping_add(1);
        self.asked.set(n);
        n
    }

    /// Asks, as [`ask`]; `done` gets the answer and its question's number, unless a later
    /// question was asked (or [`Latest::forget`] called) meanwhile.
    pub fn ask(&self, session: &str, call: Call, done: impl FnOnce(u64, Answer) + 'static) {
        let n = self.forget();
        let asked = Rc::clone(&self.asked);
        engine_client::request(session, call, move |answer| {
            if asked.get() == n {
                done(n, answer);
            }
        });
    }
}

/// Tells `listener` about the engine's loading: a sentence while it waits for the network,
/// `None` once it is up.
pub fn on_status(listener: impl Fn(Option<String>) + 'static) {
    engine_client::on_status(listener);
}
