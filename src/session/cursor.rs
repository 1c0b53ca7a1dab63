//! The shell's current cursor: a cursor prints a batch of 20 documents at a time, and
//! `it` prints the next batch, as mongosh's `AbstractFiniteCursor._it()` and
//! `ShellApi.it()` do (packages/shell-api/src/abstract-cursor.ts, shell-api.ts).

use super::interpreter::{Output, Session, StatementError};
use bson::Document;
use std::collections::VecDeque;

/// How many documents a cursor prints at a time: mongosh's default `displayBatchSize`
/// (packages/shell-api/src/mongo.ts `_displayBatchSize`, the config's 20).
pub const DISPLAY_BATCH_SIZE: usize = 20;

/// What mongosh prints for `it` when there is no cursor, or the cursor is exhausted
/// (`shell-api.classes.Cursor.iteration.no-cursor` in packages/i18n/src/locales/en_US.ts).
pub const NO_CURSOR: &str = "no cursor";

impl Session {
    /// `find()` and `aggregate()` make a new current cursor (collection.ts sets
    /// `_instanceState.currentCursor` as it builds one), so an older cursor's documents
    /// are no longer reached by `it`.
    pub(crate) fn forget_cursor(&mut self) {
        self.cursor_rest = None;
    }

    /// `it`: the current cursor's next batch, or `no cursor` when there is none or it
    /// has nothing left (`formatCursorIterationResult` in
    /// packages/cli-repl/src/format-output.ts).
    pub(crate) fn iterate_cursor(&mut self) -> Result<Output, StatementError> {
        let batch = next_batch(self.cursor_rest.as_mut());
        if batch.is_empty() {
            return Ok(Output::Message(NO_CURSOR.to_string()));
        }
        self.cursor_iterating = true;
        Ok(Output::Cursor(batch))
    }

    /// A statement's result as it prints: a cursor becomes the current cursor and shows
    /// its first batch. Returns the result and whether the cursor has more documents
    /// (`cursorHasMore = !this.isExhausted()` in abstract-cursor.ts `_it()`).
    pub(crate) fn cursor_batch(
        &mut self,
        result: Result<Output, StatementError>,
    ) -> (Result<Output, StatementError>, bool) {
        let iterating = std::mem::take(&mut self.cursor_iterating);
        let Ok(Output::Cursor(docs)) = result else {
            return (result, false);
        };
        let batch = if iterating {
            docs
        } else {
            let rest = self.cursor_rest.insert(docs.into());
            next_batch(Some(rest))
        };
        let more = self.cursor_rest.as_ref().is_some_and(|r| !r.is_empty());
        (Ok(Output::Cursor(batch)), more)
    }
}

/// `cursor.toArray()`: every document the cursor has left, as a plain array
/// (abstract-cursor.ts `toArray`). mongosh prints an array as any other value
/// (format-output.ts `formatSimpleType`: `util.inspect` with the shell's `inspectDepth` and
/// Node's 100-item `maxArrayLength`), without `Type "it" for more`, which
/// `formatCursorIterationResult` adds to a cursor's batch only; `--json` gives it whole.
pub(crate) fn to_array(docs: Vec<Document>) -> Output {
    Output::Value(bson::Bson::Array(
        docs.into_iter().map(bson::Bson::Document).collect(),
    ))
}

/// Takes up to [`DISPLAY_BATCH_SIZE`] documents from the front of a cursor.
fn next_batch(rest: Option<&mut VecDeque<Document>>) -> Vec<Document> {
    match rest {
        Some(rest) => {
            let n = rest.len().min(DISPLAY_BATCH_SIZE);
            rest.drain(..n).collect()
        }
        None => Vec::new(),
    }
}
