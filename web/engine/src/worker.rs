//! The engine's entry in the browser (wasm32 only): a Web Worker, or the page when workers
//! are forbidden, hands each message to [`WorkerEngine::handle`] and posts back what it
//! returns, the answer first and then the events.

use crate::service::{Engine, Keeping};
use serde::{Deserialize, Serialize};
use shardlab_protocol::{EngineError, FromEngine, Outcome, Request, Response};
use wasm_bindgen::prelude::*;

/// The engine as JavaScript holds it.
#[wasm_bindgen]
pub struct WorkerEngine {
    engine: Engine,
}

/// A message's `method`, read first so that its `params` are decoded straight into the
/// method's parameters ([`shardlab_protocol::RequestSeed`]), and its `id` and `v`, to
/// answer a message that did not decode (saying which version this engine speaks when it
/// names another).
#[derive(Default, Deserialize)]
struct Head {
    #[serde(default)]
    id: u64,
    #[serde(default)]
    v: Option<u64>,
    #[serde(default)]
    method: Option<String>,
}

/// Decodes a request, its `method` read first.
fn decode(message: &JsValue) -> (Head, Result<Request, String>) {
    use serde::de::DeserializeSeed;
    let mut head = match serde_wasm_bindgen::from_value::<Head>(message.clone()) {
        Ok(head) => head,
        Err(e) => return (Head::default(), Err(e.to_string())),
    };
    let Some(method) = head.method.take() else {
        return (head, Err("missing field `method`".into()));
    };
    let read = shardlab_protocol::RequestSeed(method)
        .deserialize(serde_wasm_bindgen::Deserializer::from(message.clone()))
        .map_err(|e| e.to_string());
    (head, read)
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

    /// Tells the engine that this host writes the page's saved sessions (`page.keep`):
    /// the worker does, where IndexedDB is.
    #[wasm_bindgen(js_name = keepsSessions)]
    pub fn keeps_sessions(&mut self) {
        self.engine.keeps_sessions();
    }

    /// Tells the engine that this host runs a request again once the engine's second
    /// part has loaded, when the request needed it: the worker does (see
    /// [`WorkerEngine::handle`]).
    #[wasm_bindgen(js_name = retriesForParts)]
    pub fn retries_for_parts(&mut self) {
        self.engine.retries_for_parts();
    }

    /// Carries out one request (a plain object of the protocol's shape) and returns the
    /// messages to post: the answer, then any events. A message that is not a request is
    /// answered with `BadValue`, under its `id` when it has one.
    ///
    /// A `page.keep` that is to be written comes first as `{keep: {request, id, text,
    /// record, bytes}}`, not a message: the host writes `text` under `id` and the page's
    /// `record` (JSON text) into the page's store in one transaction, then posts the rest, or, if the store refuses, posts [`WorkerEngine::not_kept`]'s
    /// answer in the answer's place.
    ///
    /// In a host that runs requests again ([`WorkerEngine::retries_for_parts`]), a request
    /// that needed the engine's second part before it loaded answers `[{wantsPart: true,
    /// readsOnly}]` alone, having changed nothing: the host loads the part ([`load_rest`])
    /// and hands the request in again, or, if the part could not load, says why
    /// ([`rest_failed`]), hands it in again (its statements that need the part then fail
    /// with the reason), and forgets the reason, so that the next request that needs the
    /// part tries again. The requests after it wait, unless `readsOnly` says it is a
    /// panel's, which only reads: those go on meanwhile.
    pub fn handle(&mut self, message: JsValue) -> Vec<JsValue> {
        let mut order = None;
        let (head, read) = decode(&message);
        let out: Vec<FromEngine> = match read {
            Ok(request) => {
                let handled = self.engine.handle(request);
                if handled.wants_part {
                    return vec![wants_part(handled.reads_only)];
                }
                order = handled.keep.map(keep_order).filter(|o| !o.is_null());
                std::iter::once(FromEngine::Answer(handled.response))
                    .chain(handled.events.into_iter().map(FromEngine::Event))
                    .collect()
            }
            Err(e) => {
                vec![FromEngine::Answer(crate::service::Engine::refuse(
                    head.id,
                    head.v,
                    format!(
                        "not a request of protocol version {}: {e}",
                        shardlab_protocol::PROTOCOL_VERSION
                    ),
                ))]
            }
        };
        order.into_iter().chain(out.iter().map(encode)).collect()
    }

    /// The answer to `page.keep` request `request` (of `bytes`) when the page's store
    /// refused it, saying `why`.
    #[wasm_bindgen(js_name = notKept)]
    pub fn not_kept(&self, request: f64, bytes: f64, why: String) -> JsValue {
        // Ids and lengths are whole numbers below 2^53, as JavaScript carries them.
        let answer = Engine::not_kept(request as u64, bytes as u64, why);
        encode(&FromEngine::Answer(answer))
    }
}

/// Loads the engine's second part (`rest.rs`): resolves once it has loaded, at once where
/// the module is whole; rejects with a reason when it could not load, and the next call
/// tries again. A host calls it right after the first answer, and before a request
/// that may need it: without it, [`WorkerEngine::handle`] runs such a request, and each
/// statement that needs the part fails with an `InternalError` before it does anything.
#[wasm_bindgen(js_name = loadRest)]
pub async fn load_rest() -> Result<(), JsValue> {
    #[cfg(feature = "split")]
    crate::rest::load()
        .await
        .map_err(|_| JsValue::from_str("the engine's second part did not load"))?;
    Ok(())
}

/// Whether the engine's second part has loaded (always, where the module is whole).
#[wasm_bindgen(js_name = restLoaded)]
pub fn rest_loaded() -> bool {
    #[cfg(feature = "split")]
    return crate::rest::loaded();
    #[cfg(not(feature = "split"))]
    true
}

/// Tells the engine why its second part could not load (a reason), or to forget it
/// (`undefined`): while it knows, a statement that needs the part fails with that
/// reason before it does anything, rather than asking for the part
/// ([`WorkerEngine::handle`]'s `{wantsPart: true}`).
#[wasm_bindgen(js_name = restFailed)]
pub fn rest_failed(why: Option<String>) {
    #[cfg(feature = "split")]
    crate::rest::failed(why);
    #[cfg(not(feature = "split"))]
    let _ = why;
}

/// `{wantsPart: true, readsOnly}`: what [`WorkerEngine::handle`] returns for a request to
/// run again once the engine's second part has loaded; `readsOnly` when the requests
/// after it need not wait for it ([`crate::service::Handled::reads_only`]).
fn wants_part(reads_only: bool) -> JsValue {
    #[derive(Serialize)]
    struct WantsPart {
        #[serde(rename = "wantsPart")]
        wants_part: bool,
        #[serde(rename = "readsOnly")]
        reads_only: bool,
    }
    serde::Serialize::serialize(
        &WantsPart {
            wants_part: true,
            reads_only,
        },
        &serializer(),
    )
    .unwrap_or(JsValue::NULL)
}

/// The host's order to write a saved session (see [`WorkerEngine::handle`]).
#[derive(Serialize)]
struct KeepOrder<'a> {
    keep: KeepFields<'a>,
}

#[derive(Serialize)]
struct KeepFields<'a> {
    request: u64,
    bytes: u64,
    id: &'a str,
    text: &'a str,
    record: &'a str,
}

fn keep_order(keep: Keeping) -> JsValue {
    let order = KeepOrder {
        keep: KeepFields {
            request: keep.request,
            bytes: keep.text.len() as u64,
            id: &keep.id,
            text: &keep.text,
            record: &keep.record,
        },
    };
    serde::Serialize::serialize(&order, &serializer()).unwrap_or(JsValue::NULL)
}

/// The serializer of every message: JSON-compatible (null for none, objects for maps), but
/// a byte string is a `Uint8Array`: what the protocol carries as bytes is bulk
/// ([`shardlab_protocol::f32_bytes`]).
fn serializer() -> serde_wasm_bindgen::Serializer {
    serde_wasm_bindgen::Serializer::json_compatible().serialize_bytes_as_arrays(false)
}

/// One message as a plain object.
fn encode(m: &FromEngine) -> JsValue {
    let serializer = serializer();
    serde::Serialize::serialize(m, &serializer).unwrap_or_else(|e| {
        // An answer that does not encode is still an answer: its request must not wait
        // for ever.
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
}

impl Default for WorkerEngine {
    fn default() -> Self {
        WorkerEngine::new()
    }
}
