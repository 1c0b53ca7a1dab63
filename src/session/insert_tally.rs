//! What the `insertMany` calls of a stretch of statements did, document by document, so
//! that an import can say which of its lines went in and why the others did not, from
//! the very statements its timeline step replays.

/// The `insertMany` (and `insert`) calls made while a tally was kept, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InsertTally {
    /// One entry per call that reached its writes.
    pub calls: Vec<InsertCall>,
}

/// One call's writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InsertCall {
    /// The namespace written to.
    pub ns: String,
    /// How many documents went in.
    pub inserted: u64,
    /// Each document refused, by its position in the call, with the server's message
    /// (a duplicate `_id` is `E11000 duplicate key error ...`).
    pub errors: Vec<(u64, String)>,
    /// When the whole command stopped (a limit of the session, say), the position of the
    /// first document it did not try and why: that document and the ones after it, other
    /// than those in `errors`, did not go in.
    pub stopped: Option<(u64, String)>,
}
