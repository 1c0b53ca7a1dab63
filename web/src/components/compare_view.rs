//! Side-by-side comparison: two or more clusters, each with its own shard key and version
//! mode, run the same workload in lockstep.
//!
//! Every configuration owns a [`Timeline`]. One shared list of workload commands is pushed
//! onto each of them, so at any moment every cluster has seen exactly the same commands;
//! changing one column's key or version rebuilds that column by replaying the shared list,
//! which keeps the lockstep. The summary table reads each cluster the way
//! [`shardlab::sim`] does: where the latest inserts went, chunks and jumbo chunks, and
//! how a fixed mix of queries is routed.

use super::controls::validate_key;
use crate::view_model::{cluster_view, ClusterView, ShardView};
use bson::{doc, Document};
use shardlab::engine::TargetKind;
use shardlab::engine::{ClusterConfig, VersionMode};
use shardlab::sim::Timeline;
use shardlab::sim::HOT_WINDOW;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The collection every column shards and fills.
pub const COMPARE_NS: &str = "test.events";

/// The most columns the comparison shows at once.
pub const MAX_COLUMNS: usize = 4;

/// Workloads offered for the comparison: all of them have the numeric field `x` that the
/// query mix filters on.
pub const COMPARE_WORKLOADS: &[&str] = &["monotonic", "decreasing", "uniform"];

/// The fixed query mix whose routing the table reports, with a caption per query.
pub fn query_mix() -> Vec<(&'static str, Document)> {
    vec![
        ("{x: 500}", doc! { "x": 500 }),
        (
            "{x: {$gte: 100, $lt: 200}}",
            doc! { "x": { "$gte": 100, "$lt": 200 } },
        ),
        ("{x: {$in: [10, 900]}}", doc! { "x": { "$in": [10, 900] } }),
        ("{ts: {$exists: true}}", doc! { "ts": { "$exists": true } }),
    ]
}

/// One configuration under comparison.
#[derive(Clone)]
pub struct CompareColumn {
    /// The shard key as typed, such as `{x: "hashed"}`.
    pub key: String,
    /// The behaviour era.
    pub version: VersionMode,
    /// The commands this cluster has run.
    pub timeline: Rc<RefCell<Timeline>>,
    /// Inserts per shard, one entry per workload tick, oldest first.
    pub inserts: Vec<BTreeMap<String, u64>>,
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
            format!("sim.chunkSize({chunk_size})"),
            format!("sh.shardCollection(\"{COMPARE_NS}\", {})", key.trim()),
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
        let mut per_shard = BTreeMap::new();
        for e in timeline.events_at() {
            if let shardlab::engine::EventKind::Insert { ns, per_shard: p } = &e.kind {
                if ns == COMPARE_NS {
                    for (shard, n) in p {
                        *per_shard.entry(shard.clone()).or_insert(0) += n;
                    }
                }
            }
        }
        self.inserts.push(per_shard);
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

    /// This column's row of the summary table.
    pub fn summary(&self) -> SummaryRow {
        let label = if self.view.sharded {
            format!("{} · {}", self.view.key, self.version.label())
        } else {
            format!("{} · {}", self.key.trim(), self.version.label())
        };
        let timeline = self.timeline.borrow();
        let cluster = &timeline.session().cluster;
        let mut totals: BTreeMap<String, u64> = BTreeMap::new();
        for step in &self.inserts {
            for (shard, n) in step {
                *totals.entry(shard.clone()).or_insert(0) += n;
            }
        }
        let inserts_per_shard = self
            .view
            .shards
            .iter()
            .map(|s| (s.name.clone(), totals.get(&s.name).copied().unwrap_or(0)))
            .collect();
        let (mut single, mut multi, mut scatter) = (0u32, 0u32, 0u32);
        let queries = query_mix();
        for (_, filter) in &queries {
            match cluster.target(COMPARE_NS, filter).map(|t| t.kind) {
                Ok(TargetKind::SingleShard) => single += 1,
                Ok(TargetKind::MultiShard) => multi += 1,
                Ok(TargetKind::ScatterGather) | Err(_) => scatter += 1,
            }
        }
        let n = queries.len().max(1) as f64;
        SummaryRow {
            label,
            inserts_per_shard,
            hottest_share: hottest_share(&self.inserts, HOT_WINDOW),
            chunks: self.view.chunks,
            jumbo: self
                .view
                .shards
                .iter()
                .flat_map(|s| s.chunks.iter())
                .filter(|c| c.jumbo)
                .count() as u64,
            single: f64::from(single) / n,
            multi: f64::from(multi) / n,
            scatter: f64::from(scatter) / n,
        }
    }
}

/// One row of the summary table.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// The key and version, as shown.
    pub label: String,
    /// Documents the workload inserted, per shard, in shard order.
    pub inserts_per_shard: Vec<(String, u64)>,
    /// The busiest shard's share of the latest [`HOT_WINDOW`] inserts (0 to 1).
    pub hottest_share: f64,
    /// Chunks of the collection.
    pub chunks: u64,
    /// Jumbo chunks.
    pub jumbo: u64,
    /// Share of the query mix routed to one shard by full key equality.
    pub single: f64,
    /// Share routed by key ranges to a subset of the chunks.
    pub multi: f64,
    /// Share broadcast to every shard.
    pub scatter: f64,
}

/// The busiest shard's share of the latest `window` inserts: whole ticks are counted,
/// newest first, until at least `window` documents are in (0 when nothing was inserted).
pub fn hottest_share(ticks: &[BTreeMap<String, u64>], window: u64) -> f64 {
    // A handful of shards: a list, not another B-tree instantiation.
    let mut per_shard: Vec<(&str, u64)> = Vec::new();
    let mut counted = 0u64;
    for tick in ticks.iter().rev() {
        if counted >= window {
            break;
        }
        for (shard, n) in tick {
            shardlab::sim::bump(&mut per_shard, shard, *n);
            counted += n;
        }
    }
    if counted == 0 {
        return 0.0;
    }
    per_shard.iter().map(|(_, n)| *n).max().unwrap_or(0) as f64 / counted as f64
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
        let n = u64::from(self.batch).min(left);
        let command = format!(
            "sim.generate(\"{COMPARE_NS}\", \"{}\", {n}); sim.balance()",
            self.workload
        );
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
            CompareAction::AddColumn => {
                if next.columns.len() < MAX_COLUMNS {
                    // A third column defaults to the ranged key under 8.0's balancer, the
                    // other axis the comparison can show.
                    let column = CompareColumn::build(
                        "{x: 1}",
                        VersionMode::V80,
                        next.chunk_size,
                        &next.commands,
                    );
                    next.columns.push(column);
                }
            }
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

/// Properties of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    /// Whether the comparison tab is the one shown. The page keeps the comparison mounted
    /// once opened, so that its columns and progress survive a visit to another tab; while
    /// hidden it is paused and leaves the keyboard to the playground.
    pub visible: bool,
}

/// The comparison page.
#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    let state = use_reducer(Comparison::default);
    {
        let state = state.clone();
        use_effect_with(props.visible, move |visible| {
            if !*visible {
                state.dispatch(CompareAction::Pause);
            }
        });
    }
    {
        let state = state.clone();
        use_effect_with(state.playing, move |playing| {
            let interval = playing.then(|| {
                let state = state.clone();
                gloo::timers::callback::Interval::new(100, move || {
                    state.dispatch(CompareAction::Tick)
                })
            });
            move || drop(interval)
        });
    }
    // While the comparison is shown, space plays or pauses it and the right arrow steps it
    // (the playground's own shortcuts stand aside in this mode).
    {
        let state = state.clone();
        use_effect_with((state.playing, props.visible), move |(playing, visible)| {
            let playing = *playing;
            let listener = visible.then(|| {
                gloo::events::EventListener::new(&gloo::utils::document(), "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                        return;
                    };
                    let typing = gloo::utils::document().active_element().is_some_and(|el| {
                        matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                    });
                    if typing || e.ctrl_key() || e.meta_key() || e.alt_key() {
                        return;
                    }
                    let action = match e.key().as_str() {
                        " " if playing => CompareAction::Pause,
                        " " => CompareAction::Play,
                        "ArrowRight" => CompareAction::Step,
                        _ => return,
                    };
                    e.prevent_default();
                    state.dispatch(action);
                })
            });
            move || drop(listener)
        });
    }
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a: CompareAction| state.dispatch(a))
    };
    let on_workload = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        CompareAction::SetWorkload(select.value())
    });
    let done = state.done();
    let rows: Vec<SummaryRow> = state.columns.iter().map(CompareColumn::summary).collect();
    let progress = done as f64 / state.total.max(1) as f64;
    html! {
        <section class="panel compare" aria-label="Compare shard keys" data-testid="compare">
            <div class="compare-head">
                <div>
                    <h2>{ "Compare shard keys side by side" }</h2>
                    <p class="muted">{ format!(
                        "Each column is its own 3-shard cluster with {} KiB chunks. Every tick inserts the same {} documents into all of them, then runs a balancer round.",
                        state.chunk_size / 1024, state.batch) }</p>
                </div>
                <div class="transport compare-transport">
                    <label class="field">
                        <span>{ "Workload" }</span>
                        <select data-testid="compare-workload" onchange={on_workload} aria-label="Comparison workload">
                            { for COMPARE_WORKLOADS.iter().map(|w| html! {
                                <option value={*w} selected={*w == state.workload}>{ *w }</option>
                            }) }
                        </select>
                    </label>
                    <div class="buttons" role="group" aria-label="Comparison playback">
                        if state.playing {
                            <button class="primary" data-testid="compare-play" aria-label="Pause the comparison"
                                onclick={dispatch.reform(|_| CompareAction::Pause)}>{ "Pause" }</button>
                        } else {
                            <button class="primary" data-testid="compare-play" aria-label="Play the comparison"
                                onclick={dispatch.reform(|_| CompareAction::Play)}>{ "Play" }</button>
                        }
                        <button data-testid="compare-step" aria-label="Step the comparison"
                            onclick={dispatch.reform(|_| CompareAction::Step)}>{ "Step ›" }</button>
                        <button class="secondary" data-testid="compare-reset"
                            onclick={dispatch.reform(|_| CompareAction::Reset)}>{ "Reset" }</button>
                    </div>
                    <div class="progress" role="progressbar" aria-label="Comparison progress"
                        aria-valuemin="0" aria-valuemax={state.total.to_string()} aria-valuenow={done.to_string()}
                        data-testid="compare-progress" data-done={done.to_string()} data-total={state.total.to_string()}>
                        <div class="progress-fill" style={format!("width: {:.1}%", progress * 100.0)}></div>
                        <span class="progress-text">{ format!("{done} / {} docs", state.total) }</span>
                    </div>
                </div>
            </div>
            <div class="compare-columns" style={format!("--columns: {}", state.columns.len())}>
                { for state.columns.iter().enumerate().map(|(i, c)| html! {
                    <CompareColumnView key={format!("{i}-{}-{}", c.key, c.version.label())} index={i}
                        column={ColumnProp(c.clone(), state.rev)} removable={state.columns.len() > 2}
                        dispatch={dispatch.clone()} />
                }) }
                if state.columns.len() < MAX_COLUMNS {
                    <button class="secondary compare-add" data-testid="compare-add"
                        onclick={dispatch.reform(|_| CompareAction::AddColumn)}>{ "+ Add a configuration" }</button>
                }
            </div>
            { summary_table(&rows) }
        </section>
    }
}

/// The summary table below the columns.
fn summary_table(rows: &[SummaryRow]) -> Html {
    let pct = |v: f64| format!("{:.0}%", v * 100.0);
    let hottest = rows.iter().map(|r| r.hottest_share).fold(0.0, f64::max);
    html! {
        <div class="compare-summary">
            <table class="compare-table" data-testid="compare-table">
                <caption>{ format!("Where the writes went, and how the query mix below is routed. The hottest-shard share counts the latest {HOT_WINDOW} inserts: near 100% means one shard takes every write; an even spread over three shards is about 33%.") }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ "Configuration" }</th>
                        <th scope="col">{ "Inserts per shard" }</th>
                        <th scope="col" class="num">{ format!("Hottest shard (last {HOT_WINDOW})") }</th>
                        <th scope="col" class="num">{ "Chunks" }</th>
                        <th scope="col" class="num">{ "Jumbo" }</th>
                        <th scope="col">{ "Query routing: single / multi / scatter" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| {
                        let total: u64 = r.inserts_per_shard.iter().map(|(_, n)| n).sum();
                        html! {
                            <tr data-testid="compare-row" data-label={r.label.clone()}
                                data-hottest-share={format!("{:.4}", r.hottest_share)}
                                data-chunks={r.chunks.to_string()} data-jumbo={r.jumbo.to_string()}
                                data-single={format!("{:.4}", r.single)} data-multi={format!("{:.4}", r.multi)}
                                data-scatter={format!("{:.4}", r.scatter)}>
                                <th scope="row"><code>{ r.label.clone() }</code></th>
                                <td>
                                    <div class="stack" role="img" aria-label={format!("inserts per shard: {}", r.inserts_per_shard.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", "))}>
                                        { for r.inserts_per_shard.iter().enumerate().map(|(i, (s, n))| html! {
                                            <div class={classes!("seg", format!("shard-c{}", i % 8))}
                                                style={format!("width: {:.2}%; background: var(--shard-colour)", *n as f64 * 100.0 / total.max(1) as f64)}
                                                title={format!("{s}: {n}")}></div>
                                        }) }
                                    </div>
                                    <span class="muted">{ r.inserts_per_shard.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(" · ") }</span>
                                </td>
                                <td class={classes!("num", (r.hottest_share > 0.0 && r.hottest_share >= hottest && rows.len() > 1).then_some("worst"))}>
                                    { pct(r.hottest_share) }
                                </td>
                                <td class="num">{ r.chunks }</td>
                                <td class={classes!("num", (r.jumbo > 0).then_some("worst"))}>{ r.jumbo }</td>
                                <td>
                                    <div class="stack" role="img" aria-label={format!("single {}, multi {}, scatter {}", pct(r.single), pct(r.multi), pct(r.scatter))}>
                                        <div class="seg single" style={format!("width: {:.1}%", r.single * 100.0)}></div>
                                        <div class="seg multi" style={format!("width: {:.1}%", r.multi * 100.0)}></div>
                                        <div class="seg scatter" style={format!("width: {:.1}%", r.scatter * 100.0)}></div>
                                    </div>
                                    <span class="muted">{ format!("{} / {} / {}", pct(r.single), pct(r.multi), pct(r.scatter)) }</span>
                                </td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            <p class="muted query-mix">{ "Query mix: " }
                { for query_mix().iter().map(|(text, _)| html! { <code>{ *text }</code> }) }
            </p>
        </div>
    }
}

/// A column handed to [`CompareColumnView`], compared by the comparison's revision.
#[derive(Clone)]
pub struct ColumnProp(pub CompareColumn, pub u64);

impl PartialEq for ColumnProp {
    fn eq(&self, other: &Self) -> bool {
        self.1 == other.1
    }
}

/// Properties of [`CompareColumnView`].
#[derive(Properties, PartialEq)]
pub struct CompareColumnProps {
    /// The column's position.
    pub index: usize,
    /// The configuration.
    pub column: ColumnProp,
    /// Whether the column may be removed.
    pub removable: bool,
    /// Dispatches to the comparison.
    pub dispatch: Callback<CompareAction>,
}

/// One configuration: its key and version editors and a compact picture of its cluster.
#[function_component(CompareColumnView)]
pub fn compare_column_view(props: &CompareColumnProps) -> Html {
    let column = &props.column.0;
    let i = props.index;
    let draft = use_state(|| column.key.clone());
    let validation = validate_key(&draft, false);
    let on_input = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            draft.set(input.value());
        })
    };
    let apply = {
        let draft = draft.clone();
        let dispatch = props.dispatch.clone();
        let current = column.key.clone();
        Callback::from(move |()| {
            if validate_key(&draft, false).is_ok() && *draft != current {
                dispatch.emit(CompareAction::SetKey(i, (*draft).clone()));
            }
        })
    };
    let on_change = apply.reform(|_: Event| ());
    let on_keydown = {
        let apply = apply.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                apply.emit(());
            }
        })
    };
    let on_version = props.dispatch.reform(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        CompareAction::SetVersion(
            i,
            VersionMode::parse(&select.value()).unwrap_or(VersionMode::V50),
        )
    });
    let v = &column.view;
    let input_id = format!("compare-key-{i}");
    html! {
        <section class="compare-column" data-testid="compare-column" data-key={v.key.clone()}
            data-version={column.version.label()} aria-label={format!("Configuration {}", i + 1)}>
            <div class="compare-config">
                <label class="field grow" for={input_id.clone()}>
                    <span>{ "Shard key" }</span>
                    <input id={input_id} type="text" value={(*draft).clone()} oninput={on_input}
                        onchange={on_change} onkeydown={on_keydown} spellcheck="false"
                        aria-invalid={validation.is_err().to_string()} data-testid="compare-key" />
                </label>
                <label class="field">
                    <span>{ "Version" }</span>
                    <select onchange={on_version} data-testid="compare-version" aria-label={format!("Version of configuration {}", i + 1)}>
                        { for [VersionMode::V50, VersionMode::V80].iter().map(|m| html! {
                            <option value={m.label()} selected={*m == column.version}>{ m.label() }</option>
                        }) }
                    </select>
                </label>
                if props.removable {
                    <button class="link-button" aria-label={format!("Remove configuration {}", i + 1)}
                        data-testid="compare-remove"
                        onclick={props.dispatch.reform(move |_| CompareAction::RemoveColumn(i))}>{ "remove" }</button>
                }
            </div>
            if let Err(e) = &validation {
                <p class="validation invalid">{ e.clone() }</p>
            } else if let Some(e) = &column.error {
                <p class="validation invalid">{ e.clone() }</p>
            }
            <p class="muted compare-totals">{ format!("{} docs · {} chunks", v.docs, v.chunks) }</p>
            { mini_bar(v) }
            <div class="mini-shards">
                { for v.shards.iter().map(mini_shard) }
            </div>
        </section>
    }
}

/// The key space as a thin strip of chunks coloured by shard.
fn mini_bar(v: &ClusterView) -> Html {
    if !v.sharded {
        return html! {};
    }
    html! {
        <div class="bar mini-bar" role="img" aria-label={format!("{} chunks across the key space", v.bar.len())}>
            { for v.bar.iter().map(|b| html! {
                <div class={classes!("segment", format!("shard-c{}", b.shard % 8))}
                    style={format!("left: {:.3}%; width: {:.3}%", b.lo * 100.0, ((b.hi - b.lo) * 100.0).max(0.2))}
                    title={format!("chunk starting at {}", b.min)}></div>
            }) }
            { for v.ticks.iter().map(|(x, new)| html! {
                <span class={classes!("tick", new.then_some("new"))} style={format!("left: {:.3}%", x * 100.0)}></span>
            }) }
        </div>
    }
}

/// One shard as a small column of chunk blocks.
fn mini_shard(s: &ShardView) -> Html {
    html! {
        <div class={classes!("mini-shard", format!("shard-c{}", s.index % 8))} data-shard-id={s.name.clone()}>
            <div class="mini-shard-head">
                <strong>{ s.name.clone() }</strong>
                <span class="muted">{ format!("{} docs", s.docs) }</span>
            </div>
            <ol class="mini-chunks" aria-label={format!("{} chunks on {}", s.chunks.len(), s.name)}>
                { for s.chunks.iter().map(|c| html! {
                    <li class={classes!("mini-chunk", c.jumbo.then_some("jumbo"), (c.gained > 0).then_some("hot"),
                            c.is_max.then_some("is-max"), c.is_min.then_some("is-min"))}
                        data-testid="compare-chunk" data-min={c.min.clone()} data-max={c.max.clone()}
                        title={format!("[{}, {}) · {} docs{}", c.min, c.max, c.docs, if c.jumbo { " · jumbo" } else { "" })}>
                        if c.is_max { <span aria-hidden="true">{ "Max" }</span> }
                        else if c.is_min { <span aria-hidden="true">{ "Min" }</span> }
                        else if c.jumbo { <span aria-hidden="true">{ "J" }</span> }
                    </li>
                }) }
            </ol>
        </div>
    }
}
