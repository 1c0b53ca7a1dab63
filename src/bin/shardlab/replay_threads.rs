//! `analyze`'s replays on threads: each candidate's cluster made, fed and measured on a
//! thread of its own (`sim::Replayer`). The core stays single-threaded (a cluster shares
//! its storage through `Rc`s, so it lives and dies on the thread that made it); each
//! replay is independent of the others and gets the same batches in the same order, so
//! the figures are the ones `Ranker::new`'s in-place replays give.

use bson::Document;
use shardlab::engine::{Message, QuerySample};
use shardlab::sim::{Figures, RankError, Replay, Replayer};
use shardlab::ClusterConfig;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Batches a replay may fall behind the reader by: enough to keep every thread busy,
/// few enough that memory does not grow with the file.
const QUEUED_BATCHES: usize = 2;

/// One batch, shared by every replay.
type Batch = Arc<(Vec<Document>, Vec<u64>)>;

/// One replay's thread.
struct Worker {
    batches: SyncSender<Batch>,
    figures: Receiver<Figures>,
    thread: JoinHandle<()>,
}

/// The replays, a thread each, in the order started, and the batches some replay still
/// reads.
#[derive(Default)]
pub struct Threads {
    workers: Vec<Worker>,
    /// Every batch sent, until each replay has let go of it: it is then dropped here, in
    /// the reader's thread that made its documents, not in whichever replay finished
    /// last (the allocator frees a block fastest in the thread that allocated it, and
    /// the replays do not wait on the reader's allocator for it).
    in_flight: Vec<Batch>,
}

impl Replayer for Threads {
    fn start(
        &mut self,
        key: Document,
        why: Message,
        config: &ClusterConfig,
        queries: Option<Arc<[QuerySample]>>,
    ) -> Result<(), RankError> {
        let (ready_tx, ready) = channel();
        let (batches, batch_rx) = sync_channel::<Batch>(QUEUED_BATCHES);
        let (figures_tx, figures) = channel();
        let config = config.clone();
        let thread = std::thread::spawn(move || {
            let mut replay = match Replay::new(key, why, &config, queries) {
                Ok(r) => r,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            for batch in batch_rx {
                replay.insert_batch(&batch.0, &batch.1);
            }
            let _ = figures_tx.send(replay.figures());
            // The process ends once the ranking is printed: the cluster is left to the
            // operating system rather than freed piece by piece (a tenth of the run).
            std::mem::forget(replay);
        });
        match ready.recv() {
            Ok(Ok(())) => {
                self.workers.push(Worker {
                    batches,
                    figures,
                    thread,
                });
                Ok(())
            }
            Ok(Err(e)) => Err(e),
            // The thread panicked before it answered: its panic goes on here.
            Err(_) => rethrow(thread),
        }
    }

    fn insert_batch(&mut self, docs: Vec<Document>, lines: Vec<u64>) {
        // The batches every replay has finished are freed before a new one is sent.
        self.in_flight.retain(|b| Arc::strong_count(b) > 1);
        let batch: Batch = Arc::new((docs, lines));
        for worker in &self.workers {
            // A thread that stopped has panicked; `figures` passes its panic on.
            let _ = worker.batches.send(Arc::clone(&batch));
        }
        self.in_flight.push(batch);
    }

    fn figures(self: Box<Self>) -> Vec<Figures> {
        let workers = self.workers;
        let mut waiting = Vec::with_capacity(workers.len());
        for w in workers {
            // Dropping the sender ends the thread's batches.
            drop(w.batches);
            waiting.push((w.figures, w.thread));
        }
        waiting
            .into_iter()
            .map(|(figures, thread)| match figures.recv() {
                Ok(f) => f,
                Err(_) => rethrow(thread),
            })
            .collect()
    }
}

/// Passes a replay thread's panic on to the caller.
fn rethrow(thread: JoinHandle<()>) -> ! {
    match thread.join() {
        Err(panic) => std::panic::resume_unwind(panic),
        Ok(()) => unreachable!("a replay thread ended without answering"),
    }
}
