//! The user's own documents into a session: a file read a slice at a time as mongoimport
//! reads it (the core's `workload::Importer`), its documents inserted at the end as one
//! step of the session, in mongoimport's batches, and what did not go in reported by line.

use crate::held::{Held, ImportJob};
use shardlab::workload::{
    step_fits, Failure, ImportFormat, ImportItem, ImportOptions, Importer, MAX_IMPORT_STEP_BYTES,
};
use shardlab_protocol::{
    ColumnTypeChoice, EngineError, ImportCall, ImportFailure, ImportPreview, ImportProgress,
    Position, IMPORT_DOCS_PER_CALL, MAX_IMPORT_FAILURES,
};

/// The batches and failures the importer has ready, taken into the job.
fn take_items(job: &mut ImportJob) {
    take_items_within(job, step_fits);
}

/// [`take_items`], the step's statements held to what `fits` (their bytes).
fn take_items_within(job: &mut ImportJob, fits: fn(u64) -> bool) {
    while let Some(item) = job.importer.next_item() {
        match item {
            ImportItem::Batch(_) if job.stopped.is_some() => {}
            ImportItem::Batch(b) => {
                let bytes = job.statement_bytes + b.statement.len() as u64 + 1;
                if !fits(bytes) {
                    job.stopped = Some(format!(
                        "at line {}: one import is one step of the session, which holds at most {} MiB of insertMany statements",
                        b.lines.first().copied().unwrap_or(0),
                        MAX_IMPORT_STEP_BYTES >> 20,
                    ));
                    continue;
                }
                job.statement_bytes = bytes;
                job.documents += b.lines.len() as u64;
                job.batches.push(b);
            }
            ImportItem::Failure(f) => fail(job, f),
        }
    }
}

/// Counts a record that did not go in (unread, or refused by the cluster), and lists it
/// while the list is short.
fn fail(job: &mut ImportJob, f: Failure) {
    job.failed += 1;
    if job.failures.len() < MAX_IMPORT_FAILURES {
        job.failures.push(ImportFailure {
            line: f.line,
            column: f.column,
            reason: f.reason,
        });
    }
}

fn progress(job: &ImportJob, position: Position) -> ImportProgress {
    ImportProgress {
        bytes: job.bytes,
        documents: job.documents,
        failed: job.failed,
        inserted: 0,
        failures: Vec::new(),
        stopped: job.stopped.clone(),
        done: false,
        position,
        preview: None,
    }
}

/// The import's options from a request's: `format` checked.
fn options(
    file_name: Option<String>,
    format: Option<String>,
    columns_have_types: bool,
    ignore_blanks: bool,
    column_types: Vec<ColumnTypeChoice>,
) -> Result<ImportOptions, EngineError> {
    let format = match format.as_deref() {
        None | Some("") => None,
        Some(f) => Some(ImportFormat::parse(f).ok_or_else(|| {
            EngineError::bad_value(format!(
                "unknown import type '{}': use json or csv",
                f.chars().take(16).collect::<String>()
            ))
        })?),
    };
    Ok(ImportOptions {
        format,
        file_name,
        columns_have_types,
        ignore_blanks,
        column_types: column_types.into_iter().map(|c| (c.name, c.spec)).collect(),
        ..ImportOptions::default()
    })
}

/// A first look at a file's first bytes.
fn preview(bytes: &[u8], complete: bool, options: ImportOptions) -> ImportPreview {
    let p = shardlab::workload::preview(bytes, complete, options);
    ImportPreview {
        format: p.format,
        columns: p
            .columns
            .into_iter()
            .map(|(name, spec)| ColumnTypeChoice { name, spec })
            .collect(),
        fields: p.fields,
        documents: p.documents,
        failed: p.failed,
        error: p.error,
        type_choices: shardlab::workload::COLUMN_TYPE_CHOICES
            .iter()
            .map(|c| c.to_string())
            .collect(),
    }
}

fn position(held: &Held) -> Position {
    Position {
        position: held.timeline.position(),
        length: held.timeline.len(),
    }
}

/// Carries out one request of an import.
pub fn import(held: &mut Held, call: ImportCall) -> Result<ImportProgress, EngineError> {
    match call {
        ImportCall::Begin {
            ns,
            file_name,
            format,
            columns_have_types,
            ignore_blanks,
            sort_by,
            column_types,
        } => {
            if held.page.as_ref().is_some_and(|p| p.replay.is_some()) {
                return Err(EngineError::bad_value(
                    "a replay is under way: advance or finish it first",
                ));
            }
            let options = options(
                file_name,
                format,
                columns_have_types,
                ignore_blanks,
                column_types,
            )?;
            let sort_by = sort_by.filter(|s| !s.trim().is_empty());
            let job = ImportJob::new(Importer::new(&ns, options, sort_by.as_deref()));
            let progress = progress(&job, position(held));
            held.importing = Some(Box::new(job));
            Ok(progress)
        }
        ImportCall::Slice { bytes } => {
            let at = position(held);
            let job = job(held)?;
            if job.staged.is_some() {
                return Err(EngineError::bad_value(
                    "the file has ended: its documents are going in",
                ));
            }
            job.bytes += bytes.len() as u64;
            if job.stopped.is_none() {
                if let Err(e) = job.importer.push(&bytes) {
                    job.stopped = Some(e.to_string());
                }
                take_items(job);
            }
            Ok(progress(job, at))
        }
        ImportCall::End => end(held),
        ImportCall::Preview {
            bytes,
            complete,
            file_name,
            format,
            columns_have_types,
            column_types,
        } => {
            let options = options(file_name, format, columns_have_types, false, column_types)?;
            Ok(ImportProgress {
                preview: Some(preview(&bytes, complete, options)),
                position: position(held),
                ..ImportProgress::default()
            })
        }
        ImportCall::Cancel => {
            held.importing = None;
            Ok(ImportProgress {
                done: true,
                position: position(held),
                ..ImportProgress::default()
            })
        }
    }
}

/// The file has ended: the next batches go in, on a copy of the session; with the last
/// of them the step joins the timeline and the import is over.
fn end(held: &mut Held) -> Result<ImportProgress, EngineError> {
    let at = position(held);
    let first = job(held)?.staged.is_none();
    let stage = first.then(|| held.timeline.stage());
    let job = job(held)?;
    if let Some(staged) = stage {
        if job.stopped.is_none() {
            if let Err(e) = job.importer.finish() {
                job.stopped = Some(e.to_string());
            }
            take_items(job);
        }
        job.staged = Some((staged, 0));
    }
    let Some((staged, ran)) = job.staged.as_mut() else {
        return Err(no_import());
    };
    let mut sent = 0;
    while let Some(batch) = job.batches.get(*ran) {
        if sent >= IMPORT_DOCS_PER_CALL {
            break;
        }
        staged.run(&batch.statement);
        sent += batch.lines.len() as u64;
        *ran += 1;
    }
    let ran = *ran;
    if ran < job.batches.len() {
        let mut progress = progress(job, at);
        progress.inserted = job.batches[..ran]
            .iter()
            .map(|b| b.lines.len() as u64)
            .sum();
        return Ok(progress);
    }
    let mut job = held
        .importing
        .take()
        .and_then(|j| j.downcast::<ImportJob>().ok())
        .ok_or_else(no_import)?;
    let mut progress = progress(&job, at);
    progress.done = true;
    if let Some((staged, _)) = job.staged.take().filter(|_| !job.batches.is_empty()) {
        let tally = held.push_staged(staged);
        let result = shardlab::session::batch_results(&job.batches, &tally);
        progress.inserted = result.inserted;
        for f in result.failures {
            fail(&mut job, f);
        }
        if progress.stopped.is_none() {
            progress.stopped = result.stopped;
        }
    }
    job.failures.sort_by_key(|f| f.line);
    progress.failed = job.failed;
    progress.failures = job.failures;
    progress.position = position(held);
    Ok(progress)
}

fn no_import() -> EngineError {
    EngineError::bad_value("no import is under way in this session: begin one first")
}

fn job(held: &mut Held) -> Result<&mut ImportJob, EngineError> {
    held.importing
        .as_deref_mut()
        .and_then(|j| j.downcast_mut::<ImportJob>())
        .ok_or_else(no_import)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_past_its_bound_stops_where_it_crosses_it_and_keeps_what_came_before() {
        let mut job = ImportJob::new(Importer::new("test.t", ImportOptions::default(), None));
        let mut text = String::new();
        for i in 0..2500 {
            text.push_str(&format!(
                "{{\"_id\": {i}, \"pad\": \"{}\"}}\n",
                "x".repeat(400)
            ));
        }
        job.importer.push(text.as_bytes()).expect("JSON lines");
        job.importer.finish().expect("a whole file");
        // Two batches of 1,000 fit in 1 MiB; the third would cross it.
        take_items_within(&mut job, |bytes| bytes <= 1 << 20);
        assert_eq!(job.documents, 2000);
        assert_eq!(job.batches.len(), 2);
        assert!(job.statement_bytes <= 1 << 20);
        let stopped = job.stopped.as_deref().unwrap_or_default();
        assert!(stopped.starts_with("at line 2001: "), "{stopped}");
    }

    #[test]
    fn an_import_of_many_tokens_goes_in_whole_and_its_step_replays() {
        // Documents of 10,000 numbers each: about 20,000 tokens in 20 KB, so 2,400,000
        // tokens in all, past what the lexer reads in one script; each batch is within it.
        let mut job = ImportJob::new(Importer::new("test.t", ImportOptions::default(), None));
        let numbers = vec!["1"; 10_000].join(",");
        let mut text = String::new();
        for i in 0..120 {
            text.push_str(&format!("{{\"_id\": {i}, \"a\": [{numbers}]}}\n"));
        }
        job.importer.push(text.as_bytes()).expect("JSON lines");
        job.importer.finish().expect("a whole file");
        take_items(&mut job);
        assert_eq!(job.stopped, None);
        assert_eq!(job.documents, 120);
        assert!(job.batches.len() > 1, "{}", job.batches.len());
        let step = shardlab::workload::import_step(&job.batches).expect("a step");
        assert!(
            shardlab::shell::parse_script(&step).is_err(),
            "past one script's limit"
        );
        // The step, read statement by statement, runs every batch.
        let mut session = shardlab::Session::new(shardlab::ClusterConfig::default());
        let outcomes = session.run(&step);
        assert_eq!(outcomes.len(), job.batches.len());
        assert!(outcomes.iter().all(|o| o.result.is_ok()), "every batch ran");
        let count = session.run("db.t.countDocuments()");
        assert_eq!(count[0].render().as_deref(), Some("120"));
    }
}
