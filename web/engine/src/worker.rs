//! The engine's entry in the browser (wasm32 only): a Web Worker, or the page when workers
//! are forbidden, hands each message to [`WorkerEngine::handle`] and posts back what it
//! returns, the answer first and then the events.

use crate::service::Engine;
use serde::Deserialize;
use shardlab_protocol::{EngineError, FromEngine, Outcome, Request, Response};
use wasm_bindgen::prelude::*;

/// The engine as JavaScript holds it.
#[wasm_bindgen]
pub struct WorkerEngine {
    engine: Engine,
}

/// Just the `id` and `v` of a message that did not decode, to answer it (saying which
/// version this engine speaks when it names another).
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default)]
    id: u64,
    #[serde(default)]
    v: Option<u64>,
}

/// Address space set aside for the heap when the engine starts (256 MiB).
///
/// The wasm allocator (dlmalloc) grows linear memory 64 KiB at a time, and a heap grown
/// that way in many small steps makes both `memory.grow` and allocation slow: inserting
/// a million documents took about 3× longer than with the heap grown once up front. Growing
/// it once costs nothing visible: the pages are not touched, so the browser does not back
/// them with memory until they are used. Where the space is not available (a small
/// device), the reservation simply fails and the heap grows as usual.
const HEAP_HEADROOM: usize = 256 << 20;

#[wasm_bindgen]
impl WorkerEngine {
    /// An engine with no sessions.
    #[wasm_bindgen(constructor)]
    pub fn new() -> WorkerEngine {
        let mut headroom: Vec<u8> = Vec::new();
        if headroom.try_reserve_exact(HEAP_HEADROOM).is_ok() {
            // Freed at once: the allocator keeps the grown memory as free space.
            drop(headroom);
        }
        WorkerEngine {
            engine: Engine::new(),
        }
    }

    /// Arms the test-only trap (see [`crate::held::TEST_TRAP`]): the worker does when the
    /// page names it so, which the page does only when its own address says
    /// `?selftest=trap`.
    #[wasm_bindgen(js_name = armTrap)]
    pub fn arm_trap(&self) {
        crate::held::arm_trap();
    }

    /// Carries out one request (a plain object of the protocol's shape) and returns the
    /// messages to post: the answer, then any events. A message that is not a request is
    /// answered with `BadValue`, under its `id` when it has one.
    pub fn handle(&mut self, message: JsValue) -> Vec<JsValue> {
        let out: Vec<FromEngine> = match serde_wasm_bindgen::from_value::<Request>(message.clone())
        {
            Ok(request) => {
                let handled = self.engine.handle(request);
                std::iter::once(FromEngine::Answer(handled.response))
                    .chain(handled.events.into_iter().map(FromEngine::Event))
                    .collect()
            }
            Err(e) => {
                let (id, v) = serde_wasm_bindgen::from_value::<IdOnly>(message)
                    .map_or((0, None), |m| (m.id, m.v));
                vec![FromEngine::Answer(crate::service::Engine::refuse(
                    id,
                    v,
                    format!(
                        "not a request of protocol version {}: {e}",
                        shardlab_protocol::PROTOCOL_VERSION
                    ),
                ))]
            }
        };
        // JSON-compatible (null for none, objects for maps), but a byte string is a
        // `Uint8Array`: what the protocol carries as bytes is bulk ([`shardlab_protocol::f32_bytes`]).
        let serializer =
            serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false);
        out.iter()
            .map(|m| {
                serde::Serialize::serialize(m, &serializer).unwrap_or_else(|e| {
                    // An answer that does not encode is still an answer: its request must
                    // not wait for ever.
                    let id = match m {
                        FromEngine::Answer(r) => r.id,
                        FromEngine::Event(_) => 0,
                    };
                    let failed = FromEngine::Answer(Response {
                        id,
                        outcome: Outcome::Error(
                            None,
                            EngineError {
                                code: 1,
                                code_name: "InternalError".into(),
                                message: format!("the engine's answer did not encode: {e}"),
                            },
                        ),
                    });
                    serde::Serialize::serialize(&failed, &serializer).unwrap_or(JsValue::NULL)
                })
            })
            .collect()
    }
}

impl Default for WorkerEngine {
    fn default() -> Self {
        WorkerEngine::new()
    }
}
