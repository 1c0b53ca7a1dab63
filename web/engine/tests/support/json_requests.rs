//! Requests as JSON, the way an outsider writes them, for the engine's protocol tests:
//! included by `#[path]` into the test binaries that speak JSON (`import.rs`,
//! `import_cluster.rs`), so that each keeps one copy.

use serde_json::{json, Value};
use shardlab_engine::Engine;
use shardlab_protocol::Request;

/// Sends a request written as JSON: the answer and the events, as JSON.
pub fn send(engine: &mut Engine, request: Value) -> (Value, Vec<Value>) {
    let request: Request = serde_json::from_value(request).expect("a request");
    let handled = engine.handle(request);
    let events = handled
        .events
        .into_iter()
        .map(|e| serde_json::to_value(e).expect("an event as JSON"))
        .collect();
    (
        serde_json::to_value(handled.response).expect("an answer as JSON"),
        events,
    )
}

/// Calls `method` on `session`: the answer.
pub fn call(engine: &mut Engine, session: &str, method: &str, params: Value) -> Value {
    send(
        engine,
        json!({"v": 3, "id": 1, "session": session, "method": method, "params": params}),
    )
    .0
}

/// The answer's result, which must not be an error.
pub fn ok(answer: Value) -> Value {
    assert!(answer.get("error").is_none(), "an error: {answer}");
    answer["result"].clone()
}
