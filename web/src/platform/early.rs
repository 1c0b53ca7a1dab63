//! The requests a first visit's early console made before the page listened (ARCHITECTURE.md,
//! "The first answer before the page").
//!
//! On a first visit, `index.html`'s script answers the console before the page's wasm has
//! come: through the engine's worker the `<head>` started, it opens the default scenario
//! (the request the build wrote, numbered from [`FirstScreen::EARLY_IDS_FROM`]) and runs each
//! command typed as the page does. It also holds each command it ran, as typed, for the page
//! to enter again once it listens. The page's client adopts that worker with the record of
//! what was asked ([`Early::read`]), and when the page makes the same requests itself (its
//! opening of the default scenario, then each command entered again, in order) each is
//! answered from what the engine said to the early one ([`Early::claim`]), so nothing runs
//! twice. An opening that differs leaves the early session to be closed, and a command that
//! differs is sent as any other.

use crate::state::FirstScreen;
use shardlab_protocol::{Act, Call};
use std::collections::{BTreeMap, VecDeque};
use wasm_bindgen::JsValue;

/// What the early console asked, and what of it the page has not taken yet.
#[derive(Default)]
pub struct Early {
    /// The opening's number, from adoption on.
    open_id: Option<u64>,
    /// The opening as JSON text, until the page's own opening is compared with it.
    open: Option<String>,
    /// Whether the page took the early session as its own.
    adopted: bool,
    /// The early session's handle, once its opening is answered.
    handle: Option<String>,
    /// The commands run in it, in order, not claimed yet: number and source.
    acts: VecDeque<(u64, String)>,
    /// Answers that came before the page's request for them.
    answers: BTreeMap<u64, JsValue>,
    /// The page's number for each early request it claimed whose answer has not come.
    claimed: BTreeMap<u64, u64>,
    /// Whether the early session is to be closed (the page opened another).
    close: bool,
    /// The engine's events about the early session (the saves after each command), kept
    /// until the page has taken every early request, then handed on in order.
    events: Vec<JsValue>,
}

/// What becomes of one of the page's requests.
pub enum Claim {
    /// It is not one the early console made: it goes to the engine.
    Send,
    /// It is: its answer is this one, already come.
    Answered(JsValue),
    /// It is: its answer will come under the early number, and be handed on.
    Awaited,
}

/// What to do with an answer to an early request.
pub enum Heard {
    /// Hand it on as the answer to the page's request of this number.
    Page(u64),
    /// Kept (or dropped) until the page asks; nothing to do now.
    Kept,
    /// The early session's opening answered, and the page opened another: close it.
    Close(String),
}

impl Early {
    /// The record the early console left on `window.shardlabEngine.early`
    /// (`{open: {id, text}, acts: [{id, source}]}`); nothing if there is none or it is not
    /// one.
    pub fn read(record: &JsValue) -> Early {
        let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &JsValue::from_str(k)).ok();
        let Some(open) = get(record, "open") else {
            return Early::default();
        };
        let id = get(&open, "id").and_then(|v| v.as_f64()).map(|v| v as u64);
        let text = get(&open, "text").and_then(|v| v.as_string());
        let (Some(id), Some(text)) = (id.filter(|id| is_early(*id)), text) else {
            return Early::default();
        };
        let mut acts = VecDeque::new();
        if let Some(list) = get(record, "acts").filter(js_sys::Array::is_array) {
            for act in js_sys::Array::from(&list).iter() {
                let id = get(&act, "id").and_then(|v| v.as_f64()).map(|v| v as u64);
                let source = get(&act, "source").and_then(|v| v.as_string());
                if let (Some(id), Some(source)) = (id.filter(|id| is_early(*id)), source) {
                    acts.push_back((id, source));
                }
            }
        }
        Early {
            open_id: Some(id),
            open: Some(text),
            acts,
            ..Early::default()
        }
    }

    /// Whether the page's request `page_id` (`call`, about the engine's session `session`)
    /// is one the early console made. `same_open` says whether an opening, numbered as the
    /// early one, is the early one's JSON text. Once the page's first opening is compared,
    /// an early session it did not take can take no command.
    pub fn claim(
        &mut self,
        page_id: u64,
        session: Option<&str>,
        call: &Call,
        same_open: impl FnOnce(u64, &str) -> bool,
    ) -> Claim {
        let early = match call {
            Call::Open(_) => {
                let (Some(text), Some(id)) = (self.open.take(), self.open_id) else {
                    return Claim::Send;
                };
                if !same_open(id, &text) {
                    self.acts.clear();
                    self.events.clear();
                    self.close = true;
                    return Claim::Send;
                }
                self.adopted = true;
                id
            }
            Call::Act(Act::Command { source })
                if self.adopted && session.is_some() && session == self.handle.as_deref() =>
            {
                match self.acts.front() {
                    Some((id, s)) if s == source => {
                        let id = *id;
                        self.acts.pop_front();
                        id
                    }
                    _ => return Claim::Send,
                }
            }
            _ => return Claim::Send,
        };
        match self.answers.remove(&early) {
            Some(answer) => Claim::Answered(answer),
            None => {
                self.claimed.insert(early, page_id);
                Claim::Awaited
            }
        }
    }

    /// The engine answered the early request `id` (`data`, as it wrote it).
    pub fn heard(&mut self, id: u64, data: &JsValue) -> Heard {
        if Some(id) == self.open_id {
            self.handle = js_sys::Reflect::get(data, &JsValue::from_str("result"))
                .and_then(|r| js_sys::Reflect::get(&r, &JsValue::from_str("session")))
                .ok()
                .and_then(|s| s.as_string());
            if let Some(handle) = self.take_close() {
                return Heard::Close(handle);
            }
        }
        if let Some(page_id) = self.claimed.remove(&id) {
            return Heard::Page(page_id);
        }
        let awaited = (Some(id) == self.open_id && self.open.is_some())
            || self.acts.iter().any(|(a, _)| *a == id);
        if awaited {
            self.answers.insert(id, data.clone());
        }
        Heard::Kept
    }

    /// Keeps `data`, an event about the engine's session `session`, if that is the early
    /// session and the page has not taken all of it yet (see [`Early::settled_events`]).
    pub fn stash(&mut self, session: &str, data: &JsValue) -> bool {
        let kept = self.handle.as_deref() == Some(session) && !self.close && !self.settled();
        if kept {
            self.events.push(data.clone());
        }
        kept
    }

    /// The events kept, once the page has taken the early session and every command run in
    /// it, and has had every answer: then they are the page's session's, in order.
    pub fn settled_events(&mut self) -> Vec<JsValue> {
        if self.settled() {
            std::mem::take(&mut self.events)
        } else {
            Vec::new()
        }
    }

    fn settled(&self) -> bool {
        self.adopted && self.acts.is_empty() && self.claimed.is_empty()
    }

    /// The early session to close now: the page opened another after its opening was
    /// answered.
    pub fn take_close(&mut self) -> Option<String> {
        let handle = self.handle.clone().filter(|_| self.close)?;
        self.close = false;
        Some(handle)
    }
}

/// Whether `id` numbers an early request (never one of the page's own).
pub fn is_early(id: u64) -> bool {
    id >= FirstScreen::EARLY_IDS_FROM
}
