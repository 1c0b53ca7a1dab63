//! An import's `insertMany` statements run in a session, and what each of its
//! documents came to: the lines that went in and, for the others, the server's reason
//! (a duplicate `_id`, a shard key the cluster refuses), read from the inserts' tally.

use super::insert_tally::InsertTally;
use super::interpreter::Session;
use crate::workload::{Failure, InsertBatch};

/// What a stretch of an import's batches came to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchResult {
    /// Documents inserted.
    pub inserted: u64,
    /// Documents refused, with their lines, in the batches' order.
    pub failures: Vec<Failure>,
    /// Why the import cannot go on, when a whole command was refused (a limit of the
    /// session, as mongoimport stops on an error it cannot continue through).
    pub stopped: Option<String>,
}

/// Reads what `batches` (run in order, one `insertMany` each) did from the tally their
/// run kept.
pub fn batch_results(batches: &[InsertBatch], tally: &InsertTally) -> BatchResult {
    let mut result = BatchResult::default();
    for (k, batch) in batches.iter().enumerate() {
        let line = |i: u64| {
            usize::try_from(i)
                .ok()
                .and_then(|i| batch.lines.get(i))
                .copied()
                .unwrap_or(0)
        };
        let Some(call) = tally.calls.get(k) else {
            // A statement that never reached its writes (it cannot, as the import writes
            // them, but a step can be edited): its documents did not go in.
            for &l in &batch.lines {
                result.failures.push(Failure {
                    line: l,
                    column: None,
                    reason: "the statement did not run".to_string(),
                });
            }
            continue;
        };
        result.inserted += call.inserted;
        let mut refused: Vec<(u64, String)> = call.errors.clone();
        if let Some((from, why)) = &call.stopped {
            for i in *from..batch.lines.len() as u64 {
                if !call.errors.iter().any(|(e, _)| *e == i) {
                    refused.push((i, why.clone()));
                }
            }
            result.stopped.get_or_insert_with(|| why.clone());
        }
        refused.sort_by_key(|(i, _)| *i);
        for (i, reason) in refused {
            result.failures.push(Failure {
                line: line(i),
                column: None,
                reason,
            });
        }
    }
    result
}

impl Session {
    /// Runs one batch of an import (its `insertMany` statement, as a timeline step
    /// would) and says which of its documents went in.
    pub fn run_import_batch(&mut self, batch: &InsertBatch) -> BatchResult {
        self.start_insert_tally();
        let outcomes = self.run(&batch.statement);
        let tally = self.take_insert_tally();
        let mut result = batch_results(std::slice::from_ref(batch), &tally);
        if tally.calls.is_empty() {
            // The statement failed before any write: every document failed with it.
            if let Some(Err(e)) = outcomes.last().map(|o| &o.result) {
                for f in &mut result.failures {
                    f.reason = e.message.clone();
                }
                result.stopped = Some(e.message.clone());
            }
        }
        result
    }
}
