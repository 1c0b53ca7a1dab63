//! The work budget of one statement: one meter that every costly loop of a statement
//! charges (regex steps, documents scanned, keys compared, bytes parsed), so the bound
//! holds for the whole statement, not for each document.
//!
//! The meter is a thread-local count rather than a parameter: the one budget has to
//! reach the regex matcher, the filter, the sort and the parser through the engine's and
//! the session's many entry points, and a parameter would widen every signature between
//! them. It counts work, never time, so the core stays deterministic: the same statement
//! on the same session fails at the same step natively and in wasm. Outside a statement
//! (a library caller driving the engine directly) nothing is metered.
//!
//! A statement that runs out keeps nothing it half did. Every charge of a single read or
//! write comes before its first change (an update or delete scans for its documents, and
//! pays for the scan, before it writes; inserts are bounded by the memory budget
//! instead), so it fails untouched; a command that runs several writes (`sim.queries`,
//! `sim.preset`) puts the session back as it was before its first.

use std::cell::Cell;

/// The work one statement may do, in units of about one regex step or one byte
/// examined (a document scanned costs [`DOC_SCAN_UNITS`]). Fifty million units is about
/// half a second natively in a debug build's worst case of regex work and a second or two
/// in the page: a regex examines about 50 MB, and a filter scans 2.5 million documents,
/// more than the playground's largest workload (1,000,000) holds, so a full scan of any
/// collection the page can fill still answers, as it would on MongoDB. MongoDB bounds an operation by `maxTimeMS`, which ShardLab cannot read
/// (the core reads no clock); counting work gives the same protection deterministically.
pub const STATEMENT_WORK: u64 = 50_000_000;

/// What scanning one document (decoding it and testing a filter) costs in budget units.
/// It takes about a hundred times a regex step; it is charged at a fifth of that, so that
/// the budget that stops a runaway regex still lets a filter scan every document a
/// session's memory budget can hold (the scan is linear, the regex's worst case is not).
pub const DOC_SCAN_UNITS: u64 = 20;

thread_local! {
    /// Units left to the running statement; `None` outside any statement.
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The running statement has used up its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted;

/// Charges `units` of work to the running statement, if any; fails once its budget is
/// spent (and stays spent, so every later charge of the statement fails too).
pub fn charge(units: u64) -> Result<(), Exhausted> {
    LEFT.with(|left| match left.get() {
        None => Ok(()),
        Some(have) if have >= units => {
            left.set(Some(have - units));
            Ok(())
        }
        Some(_) => {
            left.set(Some(0));
            Err(Exhausted)
        }
    })
}

/// The units left to the running statement (`u64::MAX` outside any statement), so a
/// matcher can cap its own search at what is left.
pub fn remaining() -> u64 {
    LEFT.with(|left| left.get().unwrap_or(u64::MAX))
}

/// Runs `f` as one statement with `units` of work. A statement run inside another (a
/// preset's script, run by `sim.preset`) shares the outer statement's budget rather than
/// starting a new one, so nesting cannot multiply the bound.
pub fn within<R>(units: u64, f: impl FnOnce() -> R) -> R {
    let outer = LEFT.with(Cell::get);
    if outer.is_some() {
        return f();
    }
    LEFT.with(|left| left.set(Some(units)));
    // Restores "no statement" even when `f` unwinds, so a panic cannot leave a later
    // statement on this thread with a spent budget.
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LEFT.with(|left| left.set(None));
        }
    }
    let _reset = Reset;
    f()
}
