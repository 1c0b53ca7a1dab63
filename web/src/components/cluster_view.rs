//! The shards as columns of chunk blocks, with per-shard totals, badges and animations.

use crate::i18n::{Words, K};
use crate::palette::{heat_step, shard_style};
use crate::state::{drawings_per_second, Action, DRAW_EVERY_TICK_UP_TO};
use shardlab_protocol::{ChunkFrame, Frame, Inspecting, ShardFrame};
use std::rc::Rc;
use yew::prelude::*;

/// Where the cluster panel's picture stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The engine has not answered yet, on the page's first session (no catalogue).
    Starting,
    /// The session a lesson, a link or a new cluster opens has not answered yet.
    Opening,
    /// The build's pre-rendered first screen, until the engine's first answer.
    FirstScreen,
    /// The engine's own picture.
    Answered,
}

/// Properties of [`ClusterPanel`]: the picture and what marks it, nothing else of the
/// page's state, so that the panel redraws only when one of them changes.
#[derive(Properties)]
pub struct ClusterPanelProps {
    /// Where the picture stands.
    pub stage: Stage,
    /// The collection shown, with every shard's chunks.
    pub frame: Rc<Frame>,
    /// The collection's namespace, as the settings name it.
    pub ns: AttrValue,
    /// Inserts per shard over the latest inserted documents, by shard name.
    pub hot: Vec<(String, u64)>,
    /// How many inserted documents `hot` counts.
    pub hot_counted: u64,
    /// The key handle of the chunk the document just inserted landed in.
    pub landed: Option<String>,
    /// The key handle of the chunk the inspector shows.
    pub selected: Option<String>,
    /// Whether a workload plays fast (see [`plays_fast`]): blocks then appear
    /// without their animations.
    pub fast: bool,
    /// How many drawings a column waits between redraws (see [`stagger`]).
    pub stagger: u64,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Shards the query box's filter targets, outlined.
    pub targeted: Vec<String>,
}

impl PartialEq for ClusterPanelProps {
    fn eq(&self, other: &Self) -> bool {
        // Every answer of the engine is a new frame; one that draws the same picture (a
        // `find` in the console) is compared once here, not column by column.
        (Rc::ptr_eq(&self.frame, &other.frame) || self.frame == other.frame)
            && self.stage == other.stage
            && self.ns == other.ns
            && self.hot == other.hot
            && self.hot_counted == other.hot_counted
            && self.landed == other.landed
            && self.selected == other.selected
            && self.fast == other.fast
            && self.stagger == other.stagger
            && self.dispatch == other.dispatch
            && self.targeted == other.targeted
    }
}

/// Whether a workload plays too fast for the blocks' animations: more than
/// [`DRAW_EVERY_TICK_UP_TO`] ticks a second.
pub fn plays_fast(playing: bool, speed: u32) -> bool {
    playing && speed > DRAW_EVERY_TICK_UP_TO
}

/// The cluster panel.
#[function_component(ClusterPanel)]
pub fn cluster_panel(props: &ClusterPanelProps) -> Html {
    let w = super::lang_switch::use_words();
    // The columns as last drawn, with their recent-insert counts, and the drawings so far
    // (the columns take turns by it).
    let drawn = use_mut_ref(Vec::<(Rc<ShardFrame>, u64)>::new);
    let drawings = use_mut_ref(|| 0u64);
    let words = match props.stage {
        Stage::Starting => Some(("starting", w.t(K::ClusterViewStartingTheEngine))),
        Stage::Opening => Some(("opening", w.t(K::ClusterViewOpeningTheSession))),
        Stage::FirstScreen | Stage::Answered => None,
    };
    if let Some((id, words)) = words {
        // Until the session's first answer there is no cluster to draw, only the wait:
        // for the engine itself on the page's first session (no catalog yet), then for
        // the session a lesson, a link or a new cluster opens.
        return html! {
            <section class="panel cluster" aria-label={w.t(K::ClusterViewCluster)} data-testid="cluster" aria-busy="true">
                <p class="summary muted" data-testid={id}>{ words }</p>
            </section>
        };
    }
    let tick = {
        let mut n = drawings.borrow_mut();
        *n += 1;
        *n
    };
    let on = |name: &str| {
        props
            .hot
            .iter()
            .find(|(s, _)| s == name)
            .map_or(0, |(_, n)| *n)
    };
    let columns = staggered(
        &mut drawn.borrow_mut(),
        &props.frame.shards,
        |s| on(&s.name),
        props.stagger,
        tick,
    );
    let first = props.stage == Stage::FirstScreen;
    html! {
        // Playing fast, blocks appear without their split and arrival animations (the
        // stylesheet's `.cluster.fast`): too many to follow, and each costs paint every frame.
        <section class={classes!("panel", "cluster", props.fast.then_some("fast"))} aria-label={w.t(K::ClusterViewCluster)} data-testid="cluster"
            data-last-window={props.hot_counted.to_string()} aria-busy={first.then_some("true")}>
            { cluster_head(w, props, first) }
            <div class="shards" style={format!("--columns: {}", props.frame.shards.len().max(1))}>
                { for columns.into_iter().map(|(s, last_inserts)| {
                    let (key, targeted) = (s.name.clone(), props.targeted.contains(&s.name));
                    html! {
                        <ShardColumn key={key} targeted={targeted} shard={s}
                            dispatch={props.dispatch.clone()} last_inserts={last_inserts}
                            landed={props.landed.clone()} selected={props.selected.clone()} />
                    }
                }) }
            </div>
        </section>
    }
}

/// The panel's head: the summary (the build's on the pre-rendered first screen, `first`;
/// the engine's own once it answered), the balancer's "why?" and "Add shard".
fn cluster_head(w: Words, props: &ClusterPanelProps, first: bool) -> Html {
    let (v, dispatch) = (&props.frame, &props.dispatch);
    html! {
        <div class="cluster-head">
            <p class="summary" data-testid={if first { "first-summary" } else { "summary" }}>
                if v.sharded {
                    { w.tf(K::ClusterViewNsShardedOnKeyN, &[("ns", &props.ns), ("key", &v.key), ("n", &(w.count(v.docs, "document"))), ("n2", &(w.count(v.chunks, "chunk")))]) }
                } else {
                    { w.tf(K::ClusterViewNsIsNotShardedYet, &[("ns", &props.ns)]) }
                }
            </p>
            if first {
                <p class="summary-note muted" data-testid="getting-ready" role="status">{ w.t(K::ClusterViewStartingTheEngine) }</p>
            }
            if v.sharded {
                <button class="link-button" data-testid="why-balancer" title={w.t(K::ClusterViewWhyTheBalancerMovesOr)}
                    onclick={dispatch.reform(|_| Action::Inspect(Some(Inspecting::Round)))}>{ w.t(K::ClusterViewBalancerWhy) }</button>
            }
            <button class="secondary" data-testid="add-shard" onclick={dispatch.reform(|_| Action::Auto("sh.addShard()".into()))}>
                { w.t(K::ClusterViewAddShard) }
            </button>
        </div>
    }
}

/// While a workload plays fast, how many drawings a shard column waits between redraws:
/// at most [`MAX_STAGGER`], so that a column still redraws about four times a second or
/// more; 1 (every drawing) when paused or at up to eight ticks a second.
pub fn stagger(playing: bool, speed: u32) -> u64 {
    if !playing || speed <= 8 {
        return 1;
    }
    u64::from(drawings_per_second(speed).div_ceil(4)).clamp(1, MAX_STAGGER)
}

/// The most drawings a column waits between redraws (at 30 ticks a second, 15 drawings,
/// a column redraws 3.75 times a second).
pub const MAX_STAGGER: u64 = 4;

/// The columns to draw on tick `tick`: with `every` above 1, a column redraws only on one
/// tick in `every`, the columns taking turns (a quarter of them per tick at top speed), so
/// that no tick redraws every column at once; the others keep what they last drew. A new
/// column, or any column when `every` is 1, shows the cluster as it is. `drawn` remembers
/// what each column shows, shared with the columns (a waiting column is the very picture
/// it drew, so Yew sees it unchanged at once, and nothing is copied twice).
pub fn staggered(
    drawn: &mut Vec<(Rc<ShardFrame>, u64)>,
    shards: &[ShardFrame],
    recent: impl Fn(&ShardFrame) -> u64,
    every: u64,
    tick: u64,
) -> Vec<(Rc<ShardFrame>, u64)> {
    let columns: Vec<(Rc<ShardFrame>, u64)> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let waiting = every > 1 && (tick + i as u64) % every != 0;
            match drawn.iter().find(|(d, _)| d.name == s.name) {
                Some(old) if waiting => old.clone(),
                _ => (Rc::new(s.clone()), recent(s)),
            }
        })
        .collect();
    drawn.clone_from(&columns);
    columns
}

/// Properties of [`ShardColumn`].
#[derive(Properties)]
struct ShardColumnProps {
    shard: Rc<ShardFrame>,
    dispatch: Callback<Action>,
    targeted: bool,
    last_inserts: u64,
    /// The key handle of the chunk the document just inserted landed in.
    landed: Option<String>,
    /// The key handle of the chunk the inspector shows.
    selected: Option<String>,
}

impl PartialEq for ShardColumnProps {
    fn eq(&self, other: &Self) -> bool {
        // A column waiting its turn holds the very picture it drew: no need to compare
        // its chunks one by one.
        (Rc::ptr_eq(&self.shard, &other.shard) || self.shard == other.shard)
            && self.dispatch == other.dispatch
            && self.targeted == other.targeted
            && self.last_inserts == other.last_inserts
            && self.landed == other.landed
            && self.selected == other.selected
    }
}

/// One shard. A component of its own, so that Yew skips shards whose picture did not
/// change; its chunk blocks likewise.
#[function_component(ShardColumn)]
fn shard_column_component(props: &ShardColumnProps) -> Html {
    let w = super::lang_switch::use_words();
    // Whether the column draws all its chunks: from the first scroll or focus inside it.
    let all = use_state_eq(|| false);
    let show_all = {
        let all = all.clone();
        Callback::from(move |()| all.set(true))
    };
    shard_column(w, props, (!*all).then_some(show_all))
}

/// Properties of [`ChunkBlock`]: only what the block draws.
#[derive(Properties, PartialEq)]
struct ChunkBlockProps {
    shard: AttrValue,
    chunk: ChunkFrame,
    /// Out of sight below the column's scroll area: drawn as an empty, hidden block that
    /// keeps the test contract's attributes.
    far: bool,
    /// Whether the document just inserted landed here.
    landed: bool,
    /// Whether the inspector shows this chunk.
    selected: bool,
    dispatch: Callback<Action>,
}

#[function_component(ChunkBlock)]
fn chunk_block_component(props: &ChunkBlockProps) -> Html {
    let w = super::lang_switch::use_words();
    if props.far {
        far_chunk_block(&props.shard, &props.chunk)
    } else {
        chunk_block(w, props)
    }
}

/// Chunks a column draws before it is scrolled or focused: more than its scroll area
/// (520 px, at least 44 px a block) can show. The rest wait, hidden, behind a spacer of
/// about their height, so that a shard of hundreds of chunks costs the browser no layout
/// or paint for blocks nobody can see. Badged blocks (MinKey, MaxKey, jumbo) are always
/// drawn, in place, so that the guide can point at them.
const DRAWN_AT_FIRST: usize = 14;

/// The height, in pixels, a spacer gives each hidden block (58 px on average, and the
/// 5 px gap).
const HIDDEN_BLOCK_PX: usize = 63;

fn shard_column(w: Words, props: &ShardColumnProps, show_all: Option<Callback<()>>) -> Html {
    let (s, dispatch, targeted, last_inserts) = (
        &props.shard,
        &props.dispatch,
        props.targeted,
        props.last_inserts,
    );
    let name = s.name.clone();
    let drain = dispatch
        .reform(move |_| Action::Auto(format!("db.adminCommand({{removeShard: \"{name}\"}})")));
    let why = {
        let name = s.name.clone();
        dispatch.reform(move |_| {
            Action::Inspect(Some(Inspecting::Shard {
                shard: name.clone(),
            }))
        })
    };
    let shard_id = AttrValue::from(s.name.clone());
    let chunks: &[ChunkFrame] = s.chunks.as_deref().unwrap_or_default();
    let windowed = show_all.is_some() && chunks.len() > DRAWN_AT_FIRST;
    let mut blocks = Vec::with_capacity(chunks.len() + 1);
    let mut hidden = 0;
    for (i, c) in chunks.iter().enumerate() {
        let landed = props.landed.as_ref() == Some(&c.key);
        let selected = props.selected.as_ref() == Some(&c.key);
        let far = windowed
            && i >= DRAWN_AT_FIRST
            && !(c.is_min || c.is_max || c.jumbo || landed || selected);
        if !far && hidden > 0 {
            blocks.push(spacer(hidden, &c.min));
            hidden = 0;
        }
        hidden += usize::from(far);
        blocks.push(html! {
            <ChunkBlock key={c.min.clone()} shard={shard_id.clone()} chunk={c.clone()} far={far}
                landed={landed} selected={selected} dispatch={dispatch.clone()} />
        });
    }
    if hidden > 0 {
        blocks.push(spacer(hidden, "end"));
    }
    let on_scroll = show_all.as_ref().map(|f| f.reform(|_: Event| ()));
    let on_focus = show_all.map(|f| f.reform(|_: FocusEvent| ()));
    html! {
        <section class={classes!("shard", s.draining.then_some("draining"), targeted.then_some("targeted"))} style={shard_style(s.index)}
            data-testid="shard" data-shard-id={shard_id.clone()} data-last-inserts={last_inserts.to_string()}
            data-targeted={if targeted { "true" } else { "false" }} aria-label={w.tf(K::ClusterViewShardName, &[("name", &s.name)])}>
            <header class="shard-head">
                <h2 class="shard-name">{ s.name.clone() }</h2>
                <button class="link-button" title={w.tf(K::ClusterViewWhyNameHoldsWhatIt, &[("name", &s.name)])}
                    aria-label={w.tf(K::ClusterViewWhyDoesNameHoldWhat, &[("name", &s.name)])} data-testid="why-shard"
                    onclick={why}>{ w.t(K::ClusterViewWhy) }</button>
                <button class="link-button" title={w.tf(K::ClusterViewDrainNameRemoveshard, &[("name", &s.name)])}
                    aria-label={w.tf(K::ClusterViewDrainName, &[("name", &s.name)])} data-testid="drain" onclick={drain}>
                    { if s.draining { w.t(K::ClusterViewDraining) } else { w.t(K::ClusterViewDrain) } }
                </button>
            </header>
            <p class="shard-totals" data-testid="shard-totals" data-docs={s.docs.to_string()}>
                // Three pieces that wrap between, never inside, one another (two lines at most).
                <span>{ w.count(chunks.len() as u64, "chunk") }</span>{ " · " }
                <span>{ w.count(s.docs, "doc") }</span>{ " · " }
                <span>{ s.size.clone() }</span>
            </p>
            if !s.zones.is_empty() {
                <p class="zones">{ for s.zones.iter().map(|z| html! { <span class="badge badge-zone">{ w.tf(K::ClusterViewZoneZ, &[("z", &z)]) }</span> }) }</p>
            }
            <ol class="chunks" onscroll={on_scroll} onfocusin={on_focus}>
                { for blocks }
            </ol>
        </section>
    }
}

/// Stands in for `n` hidden blocks before the block starting at `next` (or at the end).
fn spacer(n: usize, next: &str) -> Html {
    html! {
        <li key={format!("hidden-before-{next}")} class="chunks-hidden" aria-hidden="true"
            style={format!("height: {}px", n * HIDDEN_BLOCK_PX - 5)}></li>
    }
}

/// Heat classes, by [`heat_step`]. A class rather than an inline style, so a hot block
/// changes one attribute.
const HEAT: [&str; 4] = ["heat-1", "heat-2", "heat-3", "heat-4"];

/// A block out of sight: the test contract's attributes only, hidden by the stylesheet.
fn far_chunk_block(shard: &AttrValue, c: &ChunkFrame) -> Html {
    html! {
        <li class="chunk far" data-testid="chunk" data-shard-id={shard.clone()}
            data-min={c.min.clone()} data-max={c.max.clone()} data-count={c.docs.to_string()}
            data-jumbo={if c.jumbo { "true" } else { "false" }} data-recent={c.gained.to_string()}>
        </li>
    }
}

fn chunk_block(w: Words, props: &ChunkBlockProps) -> Html {
    let (shard, c) = (&props.shard, &props.chunk);
    let inspect = {
        let key = c.key.clone();
        move || {
            Action::Inspect(Some(Inspecting::Chunk {
                key: key.clone(),
                skip: None,
                mark: None,
            }))
        }
    };
    let onclick = {
        let inspect = inspect.clone();
        props.dispatch.reform(move |_: MouseEvent| inspect())
    };
    let onkeydown = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                dispatch.emit(inspect());
            }
        })
    };
    let heat = heat_step(c.gained).map(|i| HEAT[i]);
    let class = classes!(
        "chunk",
        c.jumbo.then_some("jumbo"),
        (c.gained > 0).then_some("hot"),
        heat,
        c.fresh.then_some("fresh"),
        c.arrived_from.is_some().then_some("arrived"),
        props.landed.then_some("landed"),
        props.selected.then_some("selected"),
    );
    let badges = c.is_min || c.is_max || c.jumbo || c.arrived_from.is_some();
    html! {
        <li class={class} data-testid="chunk" data-shard-id={shard.clone()}
            data-min={c.min.clone()} data-max={c.max.clone()} data-count={c.docs.to_string()}
            data-jumbo={if c.jumbo { "true" } else { "false" }} data-recent={c.gained.to_string()}
            tabindex="0" role="button" {onclick} {onkeydown}
            data-landed={if props.landed { "true" } else { "false" }}
            aria-pressed={if props.selected { "true" } else { "false" }}
            aria-label={w.tf(K::ClusterViewChunkFromMinToMax, &[("min", &c.min), ("max", &c.max), ("n", &(w.count(c.docs, "document"))), ("n2", &(if c.jumbo { w.t(K::ClusterViewJumbo) } else { "" }))])}
            title={w.tf(K::ClusterViewLastModifiedLastModified, &[("last_modified", &c.last_modified)])}>
            if badges {
                <div class="badges">
                    if c.is_min { <span class="badge badge-min">{ w.t(K::ClusterViewMinkeyChunk) }</span> }
                    if c.is_max { <span class="badge badge-max">{ w.t(K::ClusterViewMaxkeyChunk) }</span> }
                    if c.jumbo { <span class="badge badge-jumbo">{ w.t(K::ClusterViewJumboBadge) }</span> }
                    if let Some(from) = &c.arrived_from { <span class="badge badge-moved">{ w.tf(K::ClusterViewFromFrom, &[("from", &from)]) }</span> }
                </div>
            }
            <code class="range" title={format!("[{}, {})", c.min, c.max)}>
                { format!("[{},", c.short_min) }<wbr />{ format!(" {})", c.short_max) }
            </code>
            <span class="chunk-stats">{ format!("{} · {}", w.count(c.docs, "doc"), c.size) }
                // Always there, so that heat coming and going changes a text, not the tree.
                <span class="gained">{ if c.gained > 0 { format!(" +{}", c.gained) } else { String::new() } }</span>
            </span>
        </li>
    }
}
