//! The playground's state as a reducer around the core's [`Cluster`].
//!
//! The cluster lives behind `Rc<RefCell<..>>` so that an action mutates it in place
//! instead of cloning a large cluster on every insert; `rev` changes on every action so
//! that Yew sees a new state.

use bson::doc;
use shardlab::{Cluster, ClusterConfig};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// The namespace the playground works on.
pub const NS: &str = "test.events";

/// The playground's small default chunk size, so splits happen with hundreds of documents.
pub const CHUNK_SIZE: u64 = 2 * 1024;

/// Everything the page shows.
#[derive(Clone)]
pub struct State {
    /// The simulated cluster.
    pub cluster: Rc<RefCell<Cluster>>,
    /// The shard key field the collection is sharded on.
    pub key_field: String,
    /// The next value the increasing-key workload will insert.
    pub next_value: i64,
    /// The keys inserted by the last action, to heat the chunks that took them.
    pub last_batch: Vec<i64>,
    /// The last error, in MongoDB's words.
    pub error: Option<String>,
    /// Bumped on every action so Yew re-renders.
    pub rev: u64,
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl State {
    /// A fresh cluster whose collection is sharded on `{<field>: 1}`.
    pub fn new(key_field: &str) -> Self {
        let mut cluster = Cluster::new(ClusterConfig {
            chunk_size: Some(CHUNK_SIZE),
            ..ClusterConfig::default()
        });
        let error = cluster
            .shard_collection(NS, &doc! { key_field: 1 }, false, None)
            .err()
            .map(|e| format!("MongoServerError[{}]: {e}", e.code_name()));
        State {
            cluster: Rc::new(RefCell::new(cluster)),
            key_field: key_field.to_string(),
            next_value: 0,
            last_batch: Vec::new(),
            error,
            rev: 0,
        }
    }
}

impl Default for State {
    fn default() -> Self {
        State::new("x")
    }
}

/// A whole number as mongosh would store it: an int32 when it fits, else an int64.
fn number(v: i64) -> bson::Bson {
    i32::try_from(v).map_or(bson::Bson::Int64(v), bson::Bson::Int32)
}

/// What the user can do.
pub enum Action {
    /// Start over with a collection sharded on this field.
    Reshard(String),
    /// Insert this many documents with increasing key values.
    InsertIncreasing(u32),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Reshard(field) => {
                let field = field.trim();
                if field.is_empty() {
                    let mut next = (*self).clone();
                    next.error = Some("MongoServerError[BadValue]: Shard key is empty".into());
                    next.rev += 1;
                    return Rc::new(next);
                }
                let mut next = State::new(field);
                next.rev = self.rev + 1;
                Rc::new(next)
            }
            Action::InsertIncreasing(n) => {
                let mut next = (*self).clone();
                let start = self.next_value;
                let docs = (start..start + i64::from(n))
                    .map(|v| doc! { "_id": number(v), self.key_field.as_str(): number(v), "payload": "an event recorded by the workload" })
                    .collect();
                let result = next.cluster.borrow_mut().insert_many(NS, docs);
                next.error = result
                    .err()
                    .map(|(_, e)| format!("MongoServerError[{}]: {e}", e.code_name()));
                next.last_batch = (start..start + i64::from(n)).collect();
                next.next_value = start + i64::from(n);
                next.rev += 1;
                Rc::new(next)
            }
        }
    }
}
