//! The side panels' one way to ask the engine something: [`use_engine_query`].
//!
//! A panel names what its answer depends on (a key such as the session, a revision, the
//! collection shown and the subject); whenever that key changes, the hook sends the
//! panel's call and keeps the answer. The latest key wins: an answer that comes back for
//! an older key is dropped. Until the new answer arrives the previous one stays, so a
//! panel never flickers to empty between two steps.

use crate::engine_client;
use shardlab_protocol::{Call, EngineError, Reply};
use std::rc::Rc;
use yew::prelude::*;

/// An engine answer and the key it was asked for.
#[derive(Debug)]
pub struct Answer<K> {
    /// What the panel depended on when it asked.
    pub key: K,
    /// The engine's reply, or its error.
    pub result: Result<Reply, EngineError>,
}

/// Asks the engine `call()` about `session` whenever `(session, key)` changes, and returns
/// the latest answer (that of an earlier key until the new one arrives). `call` returning
/// `None` asks nothing (a hidden panel, nothing to show) and keeps the last answer.
#[hook]
pub fn use_engine_query<K, F>(key: K, session: Rc<str>, call: F) -> Option<Rc<Answer<K>>>
where
    K: PartialEq + Clone + 'static,
    F: FnOnce(&K) -> Option<Call> + 'static,
{
    let answer = use_state(|| None::<Rc<Answer<K>>>);
    // The number of the latest request: an answer to any other is stale.
    let latest = use_mut_ref(|| 0u64);
    {
        let answer = answer.clone();
        use_effect_with((session, key), move |(session, key)| {
            // Whatever was asked before is now stale, even if nothing is asked anew.
            let ticket = {
                let mut latest = latest.borrow_mut();
                *latest += 1;
                *latest
            };
            if let Some(call) = call(key) {
                let key = key.clone();
                let latest = latest.clone();
                engine_client::request(session, call, move |result| {
                    if *latest.borrow() == ticket {
                        answer.set(Some(Rc::new(Answer { key, result })));
                    }
                });
            }
        });
    }
    (*answer).clone()
}

/// An engine error as the page shows it: MongoDB's message, after its code name when it
/// has one (`BadValue: ...`), as mongosh prints a server error's essentials.
pub fn error_text(error: &EngineError) -> String {
    if error.code_name.is_empty() {
        error.message.clone()
    } else {
        format!("{}: {}", error.code_name, error.message)
    }
}
