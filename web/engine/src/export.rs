//! The `export` method: the session's commands up to the cursor as a mongosh script that
//! builds the same scenario on a real sharded cluster (the core's `sim::export_scenario`).
//! A first visit does not ask for it: the service reaches it through `crate::later`, so
//! that in the browser it loads with the engine's second part.

use crate::held::Held;
use shardlab_protocol::{EngineError, Reply};

/// The session's commands up to the cursor as a mongosh script (`export`).
pub fn export(held: &Held) -> Result<Reply, EngineError> {
    let timeline = &held.timeline;
    let mut scenario = timeline.to_scenario();
    scenario.position = Some(timeline.position());
    shardlab::sim::export_scenario(&scenario)
        .map(|text| Reply::Export { text })
        .map_err(|e| EngineError::illegal_operation(e.to_string()))
}
