//! The Compare tab's state: two or more clusters, each with its own shard key and version
//! mode, run the same workload in lockstep.
//!
//! Every configuration owns a [`Timeline`]. One shared list of workload commands is pushed
//! onto each of them, so at any moment every cluster has seen exactly the same commands;
//! changing one column's key or version rebuilds that column by replaying the shared list,
//! which keeps the lockstep. The summary table's figures come from the core's
//! [`shardlab::sim::summarise`], which the CLI's comparison uses too: this module only
//! records where each tick's inserts went and hands that to it.

use crate::state::Workload;
use bson::Document;
use shardlab::engine::{inserts_per_shard, ClusterConfig, VersionMode};
use shardlab::sim::{summarise, ComparisonRow, Timeline};
use shardlab::workload::presets::generate_command;
use shardlab_engine::view_model::{cluster_view, ClusterView};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

pub use shardlab_engine::comparison::{query_mix, COMPARE_NS, COMPARE_WORKLOADS};

/// The most columns the comparison shows at once.
pub const MAX_COLUMNS: usize = shardlab_protocol::MAX_COLUMNS;

/// One configuration under comparison.
#[derive(Clone)]
pub struct CompareColumn {
    /// The shard key as typed, such as `{x: "hashed"}`.
    pub key: String,
    /// The behaviour era.
    pub version: VersionMode,
    /// The commands this cluster has run.
    pub timeline: Rc<RefCell<Timeline>>,
    /// Inserts per shard, one entry per workload tick, oldest first (as the core's
    /// [`inserts_per_shard`] counts them).
    pub inserts: Vec<Vec<(String, u64)>>,
    /// The picture of the collection after the latest tick.
    pub view: Rc<ClusterView>,
    /// The first error a setup command reported (a key MongoDB refuses, say).
    pub error: Option<String>,
}

impl CompareColumn {
    /// A new cluster with this key and version that has run `workload` already.
    pub fn build(key: &str, version: VersionMode, chunk_size: u64, workload: &[String]) -> Self {
        let mut timeline = Timeline::new(ClusterConfig {
            shards: 3,
            version,
            chunk_size: None,
            seed: 1,
        });
        let mut error = None;
        for cmd in [
            shardlab::workload::presets::chunk_size_command(chunk_size),
            shardlab::workload::presets::shard_command(COMPARE_NS, key, false, None),
        ] {
            for outcome in timeline.push(&cmd) {
                if let Err(e) = &outcome.result {
                    error.get_or_insert_with(|| e.to_string());
                }
            }
        }
        let mut column = CompareColumn {
            key: key.to_string(),
            version,
            timeline: Rc::new(RefCell::new(timeline)),
            inserts: Vec::new(),
            view: Rc::new(ClusterView::default()),
            error,
        };
        for cmd in workload {
            column.run(cmd);
        }
        column.refresh();
        column
    }

    /// Pushes one workload command and records where its inserts went.
    fn run(&mut self, command: &str) {
        let mut timeline = self.timeline.borrow_mut();
        timeline.push(command);
        self.inserts
            .push(inserts_per_shard(timeline.events_at(), COMPARE_NS));
    }

    /// Redraws the picture, remembering the previous frame for heat marks.
    fn refresh(&mut self) {
        let memory = self.view.memory();
        let view = cluster_view(
            &self.timeline.borrow().session().cluster,
            COMPARE_NS,
            &memory,
        );
        self.view = Rc::new(view);
    }

    /// The label of this column's row: the key as the cluster has it (as typed when the
    /// collection is not sharded) and the version.
    pub fn label(&self) -> String {
        if self.view.sharded {
            format!("{} · {}", self.view.key, self.version.label())
        } else {
            format!("{} · {}", self.key.trim(), self.version.label())
        }
    }

    /// This column's row of the summary table, as the core sums it up.
    pub fn summary(&self) -> ComparisonRow {
        let queries: Vec<Document> = query_mix().into_iter().map(|(_, q)| q).collect();
        let timeline = self.timeline.borrow();
        summarise(
            &self.label(),
            &timeline.session().cluster,
            COMPARE_NS,
            &self.inserts,
            &queries,
        )
    }
}

/// The comparison's state.
#[derive(Clone)]
pub struct Comparison {
    /// The configurations, left to right.
    pub columns: Vec<CompareColumn>,
    /// The workload generator's name.
    pub workload: String,
    /// Documents per tick.
    pub batch: u32,
    /// Documents in all.
    pub total: u64,
    /// The maximum chunk size in bytes.
    pub chunk_size: u64,
    /// The workload commands every column has run, in order.
    pub commands: Rc<Vec<String>>,
    /// Whether the shared workload is playing.
    pub playing: bool,
    /// Bumped on every change.
    pub rev: u64,
}

impl PartialEq for Comparison {
    fn eq(&self, other: &Self) -> bool {
        self.rev == other.rev
    }
}

impl Default for Comparison {
    fn default() -> Self {
        let chunk_size = 32 * 1024;
        Comparison {
            columns: vec![
                CompareColumn::build("{x: 1}", VersionMode::V50, chunk_size, &[]),
                CompareColumn::build("{x: \"hashed\"}", VersionMode::V50, chunk_size, &[]),
            ],
            workload: "monotonic".to_string(),
            batch: 25,
            // Like the monotonic lesson, ends between two splits of the top chunk.
            total: 900,
            chunk_size,
            commands: Rc::new(Vec::new()),
            playing: false,
            rev: 0,
        }
    }
}

impl Comparison {
    /// Documents inserted so far.
    pub fn done(&self) -> u64 {
        (self.commands.len() as u64 * u64::from(self.batch)).min(self.total)
    }

    /// Runs one shared tick on every column; stops playing at the end.
    fn tick(&mut self) {
        let left = self.total.saturating_sub(self.done());
        if left == 0 {
            self.playing = false;
            return;
        }
        let n = u64::from(self.batch).min(left) as u32;
        let command = generate_command(COMPARE_NS, &self.workload, n, true);
        for column in &mut self.columns {
            column.run(&command);
            column.refresh();
        }
        let mut commands = (*self.commands).clone();
        commands.push(command);
        self.commands = Rc::new(commands);
        if self.done() >= self.total {
            self.playing = false;
        }
    }

    /// Rebuilds every column from scratch with no workload run.
    fn reset(&mut self) {
        self.commands = Rc::new(Vec::new());
        let chunk_size = self.chunk_size;
        for column in &mut self.columns {
            *column = CompareColumn::build(&column.key, column.version, chunk_size, &[]);
        }
    }

    /// Rebuilds one column with a new key or version, replaying the shared workload.
    fn rebuild(&mut self, i: usize, key: String, version: VersionMode) {
        let chunk_size = self.chunk_size;
        if let Some(column) = self.columns.get_mut(i) {
            *column = CompareColumn::build(&key, version, chunk_size, &self.commands);
        }
    }

    /// Adds a column, up to [`MAX_COLUMNS`]. A third column defaults to the ranged key
    /// under 8.0's balancer, the other axis the comparison can show.
    fn add_column(&mut self) {
        if self.columns.len() < MAX_COLUMNS {
            let column =
                CompareColumn::build("{x: 1}", VersionMode::V80, self.chunk_size, &self.commands);
            self.columns.push(column);
        }
    }
}

/// The most ticks a shared comparison may ask to replay.
pub const MAX_SHARED_TICKS: u64 = 2_000;

/// The most documents a shared comparison may ask each column to replay when it opens: the
/// replay runs in one go on every column, so a link must not be able to freeze the page.
pub const MAX_SHARED_DOCS: u64 = 50_000;

impl Comparison {
    /// The comparison as a link carries it, one item a line: the workload, documents per
    /// tick, in all, the chunk size, the ticks run, then one line per column (`5.0 {x: 1}`).
    pub fn encode(&self) -> String {
        let mut lines = vec![
            self.workload.clone(),
            self.batch.to_string(),
            self.total.to_string(),
            self.chunk_size.to_string(),
            self.commands.len().to_string(),
        ];
        for c in &self.columns {
            lines.push(format!(
                "{} {}",
                c.version.label(),
                c.key.trim().replace('\n', " ")
            ));
        }
        lines.join("\n")
    }

    /// A comparison rebuilt from [`Comparison::encode`]'s text, every value checked (a link
    /// can say anything), with its ticks replayed on every column.
    pub fn decode(text: &str) -> Result<Comparison, String> {
        let lines: Vec<&str> = text.lines().collect();
        let [workload, batch, total, chunk_size, ticks, columns @ ..] = lines.as_slice() else {
            return Err("the comparison is incomplete".to_string());
        };
        if !COMPARE_WORKLOADS.contains(workload) {
            return Err(format!(
                "the comparison's workload '{}' is not one it offers",
                workload.chars().take(40).collect::<String>()
            ));
        }
        let number = |text: &str, what: &str, lo: u64, hi: u64| {
            text.parse::<u64>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| format!("the comparison's {what} must be between {lo} and {hi}"))
        };
        let batch = number(
            batch,
            "documents per tick",
            1,
            u64::from(Workload::MAX_BATCH),
        )? as u32;
        let total = number(total, "total", 1, Workload::MAX_TOTAL)?;
        let chunk_size = number(chunk_size, "chunk size", 1024, 1 << 30)?;
        let ticks = number(ticks, "ticks", 0, MAX_SHARED_TICKS)?;
        let replayed = ticks.saturating_mul(u64::from(batch)).min(total);
        if replayed > MAX_SHARED_DOCS {
            return Err(format!(
                "the comparison asks to replay {replayed} documents, at most {MAX_SHARED_DOCS} are replayed from a link"
            ));
        }
        if !(2..=MAX_COLUMNS).contains(&columns.len()) {
            return Err(format!("a comparison has 2 to {MAX_COLUMNS} columns"));
        }
        let mut configs = Vec::new();
        for line in columns {
            let (version, key) = line.split_once(' ').unwrap_or((line, ""));
            let version = VersionMode::parse(version)
                .ok_or_else(|| "a comparison column names an unknown version".to_string())?;
            if key.len() > 1024 {
                return Err("a comparison column's key is too long".to_string());
            }
            configs.push((key.to_string(), version));
        }
        let mut out = Comparison {
            columns: Vec::new(),
            workload: (*workload).to_string(),
            batch,
            total,
            chunk_size,
            commands: Rc::new(Vec::new()),
            playing: false,
            rev: 0,
        };
        // The shared commands, as the ticks wrote them.
        let mut commands = Vec::new();
        while (commands.len() as u64) < ticks {
            let done = (commands.len() as u64 * u64::from(batch)).min(total);
            let left = total.saturating_sub(done);
            if left == 0 {
                break;
            }
            let n = u64::from(batch).min(left) as u32;
            commands.push(generate_command(COMPARE_NS, &out.workload, n, true));
        }
        for (key, version) in configs {
            out.columns
                .push(CompareColumn::build(&key, version, chunk_size, &commands));
        }
        out.commands = Rc::new(commands);
        Ok(out)
    }
}

/// What the comparison's controls can do.
pub enum CompareAction {
    /// Start playing the shared workload.
    Play,
    /// Stop playing.
    Pause,
    /// Run one tick while playing.
    Tick,
    /// Run one tick now.
    Step,
    /// Start every column over.
    Reset,
    /// Give column `i` a new shard key.
    SetKey(usize, String),
    /// Give column `i` a new version mode.
    SetVersion(usize, VersionMode),
    /// Pick another workload (starts over).
    SetWorkload(String),
    /// Add a column.
    AddColumn,
    /// Remove column `i`.
    RemoveColumn(usize),
}

impl Reducible for Comparison {
    type Action = CompareAction;

    fn reduce(self: Rc<Self>, action: CompareAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            CompareAction::Play => {
                if next.done() >= next.total {
                    next.reset();
                }
                next.playing = true;
            }
            CompareAction::Pause => next.playing = false,
            CompareAction::Tick => {
                if !next.playing {
                    return self;
                }
                next.tick();
            }
            CompareAction::Step => {
                next.playing = false;
                if next.done() >= next.total {
                    next.reset();
                }
                next.tick();
            }
            CompareAction::Reset => {
                next.playing = false;
                next.reset();
            }
            CompareAction::SetKey(i, key) => {
                let version = next.columns.get(i).map_or(VersionMode::V50, |c| c.version);
                next.rebuild(i, key, version);
            }
            CompareAction::SetVersion(i, version) => {
                let key = next
                    .columns
                    .get(i)
                    .map_or_else(|| "{x: 1}".to_string(), |c| c.key.clone());
                next.rebuild(i, key, version);
            }
            CompareAction::SetWorkload(w) => {
                next.workload = w;
                next.playing = false;
                next.reset();
            }
            CompareAction::AddColumn => next.add_column(),
            CompareAction::RemoveColumn(i) => {
                if next.columns.len() > 2 && i < next.columns.len() {
                    next.columns.remove(i);
                }
            }
        }
        next.rev += 1;
        Rc::new(next)
    }
}
