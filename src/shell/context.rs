//! What evaluation reads and how it fails: the deterministic inputs and the variables of
//! a script ([`EvalContext`]), and why an expression has no value ([`EvalError`]).

use super::lexer::Span;
use bson::oid::ObjectId;
use bson::Document;
use thiserror::Error;

/// The inputs that make evaluation deterministic, plus the variables a script set.
#[derive(Debug, Clone)]
pub struct EvalContext {
    /// Milliseconds since the epoch that `new Date()`, `ISODate()` and `Date.now()` see.
    pub now_millis: i64,
    /// The 5-byte "random" field of every generated ObjectId.
    pub object_id_process: [u8; 5],
    /// The counter of the next generated ObjectId (24 bits are used).
    pub object_id_counter: u32,
    /// The state of the generator behind `UUID()` without arguments.
    pub uuid_state: u64,
    /// Variables bound by `var`, `let`, `const` or assignment, in the order they were first
    /// bound. (A `Document` rather than a `BTreeMap`: the bson crate's map is in the build
    /// anyway, and another B-tree instantiation is not.)
    pub variables: Document,
    /// Whether object literals order integer-like keys first, as JavaScript objects do.
    pub js_key_order: bool,
}

impl Default for EvalContext {
    fn default() -> Self {
        EvalContext {
            now_millis: 0,
            object_id_process: [0; 5],
            object_id_counter: 0,
            uuid_state: 0,
            variables: Document::new(),
            js_key_order: true,
        }
    }
}

impl EvalContext {
    /// A context whose clock reads `now_millis`.
    pub fn at(now_millis: i64) -> Self {
        EvalContext {
            now_millis,
            ..EvalContext::default()
        }
    }

    /// The next ObjectId: the clock's seconds, the process field, then the counter.
    pub fn next_object_id(&mut self) -> ObjectId {
        let secs = u32::try_from(
            self.now_millis
                .div_euclid(1000)
                .clamp(0, i64::from(u32::MAX)),
        )
        .unwrap_or(0);
        let c = self.object_id_counter & 0x00ff_ffff;
        self.object_id_counter = self.object_id_counter.wrapping_add(1);
        let counter = [(c >> 16) as u8, (c >> 8) as u8, c as u8];
        ObjectId::from_parts(secs, self.object_id_process, counter)
    }

    /// The next version-4 UUID from a SplitMix64 stream (deterministic, not random).
    pub fn next_uuid(&mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for half in out.chunks_mut(8) {
            self.uuid_state = self.uuid_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.uuid_state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            half.copy_from_slice(&z.to_be_bytes());
        }
        out[6] = (out[6] & 0x0f) | 0x40;
        out[8] = (out[8] & 0x3f) | 0x80;
        out
    }
}

/// Why an expression has no BSON value.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum EvalError {
    /// The expression is a command or method call, not a value (e.g. `db.c.find()`).
    #[error("{span}: {what} is not a value")]
    NotAValue {
        /// The expression's text, shortened.
        what: String,
        /// Where it is.
        span: Span,
    },
    /// A name that is neither a variable nor a known global.
    #[error("{span}: ReferenceError: {name} is not defined")]
    Reference {
        /// The name.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// A constructor called with arguments it does not accept.
    #[error("{span}: {func}: {detail}")]
    BadArgument {
        /// The constructor, such as `ObjectId`.
        func: String,
        /// What was wrong.
        detail: String,
        /// Where the call is.
        span: Span,
    },
    /// An Extended JSON wrapper whose keys match but whose contents are invalid.
    #[error("{span}: invalid Extended JSON {key}: {detail}")]
    BadWrapper {
        /// The wrapper key, such as `$numberLong`.
        key: String,
        /// What was wrong.
        detail: String,
        /// Where the object literal is.
        span: Span,
    },
    /// An operator applied to values it does not support.
    #[error("{span}: TypeError: {detail}")]
    Type {
        /// What was wrong.
        detail: String,
        /// Where it is.
        span: Span,
    },
    /// A value past one of MongoDB's limits (nested too deep, too large): MongoDB's own
    /// error, as the server would return it for the command carrying the value.
    #[error("{span}: {error}")]
    Limit {
        /// The error, with MongoDB's code.
        error: crate::values::error::ClusterError,
        /// Where the value is built.
        span: Span,
    },
    /// A string longer than any document could hold: JavaScript's `RangeError`.
    #[error("{span}: RangeError: Invalid string length")]
    StringLength {
        /// Where the string is built.
        span: Span,
    },
    /// A construct that Extended JSON text may not contain.
    #[error("{span}: not valid Extended JSON: {detail}")]
    NotJson {
        /// What was found.
        detail: String,
        /// Where it is.
        span: Span,
    },
}
