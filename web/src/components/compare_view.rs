//! The Compare tab's drawing: the transport, one column per configuration with its key
//! and version editors and a compact picture of its cluster, and the summary table. The
//! model and its update are [`crate::compare`]'s, carried out by the runtime in
//! [`crate::comparison`]; the figures are the engine's answers.

use crate::compare::{
    CompareAction, CompareColumn, Comparison, COMPARE_QUERIES, COMPARE_WORKLOADS, MAX_COLUMNS,
};
use crate::comparison::{Runtime, Shown};
use crate::i18n::{Words, K};
use crate::palette::shard_style;
use crate::state::CompareSample;
use shardlab_protocol::{CompareRow, Frame, ShardFrame};
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Properties of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    /// Whether the comparison tab is the one shown. The page keeps the comparison mounted
    /// once opened, so that its columns and progress survive a visit to another tab; while
    /// hidden it is paused and leaves the keyboard to the playground.
    pub visible: bool,
    /// The comparison a link or the saved session carries (see [`Comparison::encode`]).
    #[prop_or_default]
    pub published: Option<String>,
    /// Called with the comparison, encoded, whenever it settles (paused or changed), so
    /// that links and the saved session carry it.
    #[prop_or_default]
    pub on_publish: Callback<String>,
    /// The user's documents to replay, as the Candidate keys panel last asked: each new
    /// request starts the comparison over on them.
    #[prop_or_default]
    pub sample: Option<Rc<CompareSample>>,
}

/// The comparison page.
#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    let w = super::lang_switch::use_words();
    let (state, runtime) = use_comparison(props.published.clone());
    let dispatch = runtime.callback();
    {
        // Published when it settles: not on every tick while it plays. A replay of the
        // user's documents is not: a link cannot carry them.
        let on_publish = props.on_publish.clone();
        let settled = (!state.playing && state.sample.is_none()).then_some(state.rev);
        let state = state.clone();
        use_effect_with(settled, move |settled| {
            if settled.is_some() {
                on_publish.emit(state.encode());
            }
        });
    }
    {
        let dispatch = dispatch.clone();
        use_effect_with(props.sample.clone(), move |sample| {
            if let Some(sample) = sample {
                dispatch.emit(CompareAction::UseSample(sample.clone()));
            }
        });
    }
    {
        let dispatch = dispatch.clone();
        use_effect_with(props.visible, move |visible| {
            if !*visible {
                dispatch.emit(CompareAction::Pause);
            }
        });
    }
    use_compare_keys(state.playing, props.visible, &dispatch);
    let rows: Vec<CompareRow> = state.columns.iter().filter_map(|c| c.row.clone()).collect();
    html! {
        <section class="panel compare" aria-label={w.t(K::CompareViewCompareShardKeys)} data-testid="compare">
            { compare_head(w, &state, &dispatch) }
            <div class="compare-columns" style={format!("--columns: {}", state.columns.len())}>
                { for state.columns.iter().enumerate().map(|(i, c)| html! {
                    <CompareColumnView key={format!("{i}-{}-{}", c.key, c.version)} index={i}
                        column={ColumnProp(c.clone(), state.rev)} removable={state.columns.len() > 2}
                        dispatch={dispatch.clone()} />
                }) }
                if state.columns.len() < MAX_COLUMNS {
                    <button class="secondary compare-add" data-testid="compare-add"
                        onclick={dispatch.reform(|_| CompareAction::AddColumn)}>{ w.t(K::CompareViewAddAConfiguration) }</button>
                }
            </div>
            { summary_table(w, &rows) }
        </section>
    }
}

/// The comparison as its runtime shows it, and the runtime, made once from the comparison
/// a link or the saved session carries (or the default one); it asks for its columns'
/// sessions once mounted, and its timer stops when the tab goes.
#[hook]
fn use_comparison(published: Option<String>) -> (Rc<Comparison>, Runtime) {
    let shown = use_reducer(move || {
        Shown(Rc::new(
            published
                .and_then(|text| Comparison::decode(&text).ok())
                .unwrap_or_default(),
        ))
    });
    let runtime = {
        let (first, dispatcher) = (shown.0.clone(), shown.dispatcher());
        use_memo((), move |_| {
            Runtime::new(
                (*first).clone(),
                Callback::from(move |next| dispatcher.dispatch(next)),
            )
        })
    };
    {
        let runtime = (*runtime).clone();
        use_effect_with((), move |_| {
            runtime.start();
            move || runtime.stop()
        });
    }
    (shown.0.clone(), (*runtime).clone())
}

/// While the comparison is shown, space plays or pauses it and the right arrow steps it
/// (the playground's own shortcuts stand aside in this mode).
#[hook]
fn use_compare_keys(playing: bool, visible: bool, dispatch: &Callback<CompareAction>) {
    let dispatch = dispatch.clone();
    use_effect_with((playing, visible), move |(playing, visible)| {
        let playing = *playing;
        let listener = visible.then(|| {
            crate::keys::listen(move |key| {
                let action = match key {
                    " " if playing => CompareAction::Pause,
                    " " => CompareAction::Play,
                    "ArrowRight" => CompareAction::Step,
                    _ => return false,
                };
                dispatch.emit(action);
                true
            })
        });
        move || drop(listener)
    });
}

/// The title, the workload picker, the transport and the progress bar.
fn compare_head(w: Words, state: &Comparison, dispatch: &Callback<CompareAction>) -> Html {
    let on_workload = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        CompareAction::SetWorkload(select.value())
    });
    let done = state.drawn();
    let progress = done as f64 / state.total.max(1) as f64;
    html! {
        <div class="compare-head">
            <div>
                <h2>{ w.t(K::CompareViewCompareShardKeysSideBy) }</h2>
                <p class="muted">{ w.tf(K::CompareViewEachColumnIsItsOwn, &[("n", &(state.chunk_size / 1024)), ("batch", &state.batch)]) }</p>
            </div>
            <div class="transport compare-transport">
                <label class="field">
                    <span>{ w.t(K::CompareViewWorkload) }</span>
                    <select data-testid="compare-workload" onchange={on_workload} aria-label={w.t(K::CompareViewComparisonWorkload)}>
                        if let Some((_, ns)) = &state.sample {
                            <option value="" selected=true disabled=true>
                                { w.tf(K::CompareViewSampleOf, &[("ns", ns), ("docs", &state.total)]) }
                            </option>
                        }
                        { for COMPARE_WORKLOADS.iter().map(|w| html! {
                            <option value={*w} selected={state.sample.is_none() && *w == state.workload}>{ *w }</option>
                        }) }
                    </select>
                </label>
                <div class="buttons" role="group" aria-label={w.t(K::CompareViewComparisonPlayback)}>
                    if state.playing {
                        <button class="primary" data-testid="compare-play" aria-label={w.t(K::CompareViewPauseTheComparison)}
                            onclick={dispatch.reform(|_| CompareAction::Pause)}>{ w.t(K::CompareViewPause) }</button>
                    } else {
                        <button class="primary" data-testid="compare-play" aria-label={w.t(K::CompareViewPlayTheComparison)}
                            onclick={dispatch.reform(|_| CompareAction::Play)}>{ w.t(K::CompareViewPlay) }</button>
                    }
                    <button data-testid="compare-step" aria-label={w.t(K::CompareViewStepTheComparison)}
                        onclick={dispatch.reform(|_| CompareAction::Step)}>{ w.t(K::CompareViewStep) }</button>
                    <button class="secondary" data-testid="compare-reset"
                        onclick={dispatch.reform(|_| CompareAction::Reset)}>{ w.t(K::CompareViewReset) }</button>
                </div>
                <div class="progress" role="progressbar" aria-label={w.t(K::CompareViewComparisonProgress)}
                    aria-valuemin="0" aria-valuemax={state.total.to_string()} aria-valuenow={done.to_string()}
                    data-testid="compare-progress" data-done={done.to_string()} data-total={state.total.to_string()}
                    data-settled={state.settled().to_string()} aria-busy={(!state.settled()).to_string()}>
                    <div class="progress-fill" style={format!("width: {:.1}%", progress * 100.0)}></div>
                    <span class="progress-text">{ w.tf(K::CompareViewDoneTotalDocs, &[("done", &done), ("total", &state.total)]) }</span>
                </div>
            </div>
        </div>
    }
}

/// The summary table below the columns.
fn summary_table(w: Words, rows: &[CompareRow]) -> Html {
    let hottest = rows
        .iter()
        .map(|r| r.hottest_shard_share)
        .fold(0.0, f64::max);
    // The window the engine counted the hottest shard's share over.
    let window = rows.first().map_or(0, |r| r.hot_window);
    html! {
        <div class="compare-summary">
            <table class="compare-table" data-testid="compare-table">
                <caption>{ w.tf(K::CompareViewWhereTheWritesWent, &[("window", &window)]) }</caption>
                <thead>
                    <tr>
                        <th scope="col">{ w.t(K::CompareViewConfiguration) }</th>
                        <th scope="col">{ w.t(K::CompareViewInsertsPerShard) }</th>
                        <th scope="col" class="num">{ w.tf(K::CompareViewHottestShardLastWindow, &[("window", &window)]) }</th>
                        <th scope="col" class="num">{ w.t(K::CompareViewChunks) }</th>
                        <th scope="col" class="num">{ w.t(K::CompareViewJumbo) }</th>
                        <th scope="col">{ w.t(K::CompareViewQueryRoutingSingleMultiScatter) }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| summary_row(w, r, hottest, rows.len() > 1)) }
                </tbody>
            </table>
            <p class="muted query-mix">{ w.t(K::CompareViewQueryMix) }
                { for COMPARE_QUERIES.iter().map(|text| html! { <code>{ *text }</code> }) }
            </p>
        </div>
    }
}

/// A share as a whole percentage.
fn pct(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// One configuration's row: `hottest` is the highest hottest-shard share in the table,
/// marked when the table `compares` more than one row.
fn summary_row(w: Words, r: &CompareRow, hottest: f64, compares: bool) -> Html {
    let total: u64 = r.inserts_per_shard.iter().map(|(_, n)| n).sum();
    let chunks: u64 = r.chunks_per_shard.iter().map(|(_, n)| n).sum();
    let (single, multi, scatter) = (
        r.single_shard_share,
        r.multi_shard_share,
        r.scatter_gather_share,
    );
    let inserts = |sep: &str| {
        r.inserts_per_shard
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let worst = r.hottest_shard_share > 0.0 && r.hottest_shard_share >= hottest && compares;
    html! {
        <tr data-testid="compare-row" data-label={r.label.clone()}
            data-hottest-share={format!("{:.4}", r.hottest_shard_share)}
            data-chunks={chunks.to_string()} data-jumbo={r.jumbo_chunks.to_string()}
            data-single={format!("{single:.4}")} data-multi={format!("{multi:.4}")}
            data-scatter={format!("{scatter:.4}")}>
            <th scope="row"><code>{ r.label.clone() }</code></th>
            <td>
                <div class="stack" role="img" aria-label={w.tf(K::CompareViewInsertsPerShardN, &[("n", &(inserts(", ")))])}>
                    { for r.inserts_per_shard.iter().enumerate().map(|(i, (s, n))| html! {
                        <div class="seg"
                            style={format!("{} width: {:.2}%; background: var(--shard-colour); background-image: var(--shard-pattern)", shard_style(i as u32), *n as f64 * 100.0 / total.max(1) as f64)}
                            title={format!("{s}: {n}")}></div>
                    }) }
                </div>
                <span class="muted">{ inserts(" · ") }</span>
            </td>
            <td class={classes!("num", worst.then_some("worst"))}>{ pct(r.hottest_shard_share) }</td>
            <td class="num">{ chunks }</td>
            <td class={classes!("num", (r.jumbo_chunks > 0).then_some("worst"))}>{ r.jumbo_chunks }</td>
            <td>
                <div class="stack" role="img" aria-label={w.tf(K::CompareViewSingleNMultiN2Scatter, &[("n", &(pct(single))), ("n2", &(pct(multi))), ("n3", &(pct(scatter)))])}>
                    <div class="seg single" style={format!("width: {:.1}%", single * 100.0)}></div>
                    <div class="seg multi" style={format!("width: {:.1}%", multi * 100.0)}></div>
                    <div class="seg scatter" style={format!("width: {:.1}%", scatter * 100.0)}></div>
                </div>
                <span class="muted">{ format!("{} / {} / {}", pct(single), pct(multi), pct(scatter)) }</span>
            </td>
        </tr>
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
    let w = super::lang_switch::use_words();
    let column = &props.column.0;
    let i = props.index;
    let draft = column.draft().to_string();
    let validation = column.validation();
    let valid = validation.is_ok();
    let on_input = props.dispatch.reform(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        CompareAction::Type(i, input.value())
    });
    let (on_change, on_keydown) = key_apply_callbacks(
        draft.clone(),
        props.dispatch.clone(),
        column.key.clone(),
        i,
        valid,
    );
    let on_version = props.dispatch.reform(move |e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        CompareAction::SetVersion(i, select.value())
    });
    let empty = Frame::default();
    let v = column.picture.as_deref().unwrap_or(&empty);
    let input_id = format!("compare-key-{i}");
    html! {
        <section class="compare-column" data-testid="compare-column" data-key={v.key.clone()}
            data-version={column.version.clone()} aria-label={w.tf(K::CompareViewConfigurationN, &[("n", &(i + 1))])}>
            <div class="compare-config">
                <label class="field grow" for={input_id.clone()}>
                    <span>{ w.t(K::CompareViewShardKey) }</span>
                    <input id={input_id} type="text" value={draft} oninput={on_input}
                        onchange={on_change} onkeydown={on_keydown} spellcheck="false"
                        aria-invalid={validation.is_err().to_string()} data-testid="compare-key" />
                </label>
                <label class="field">
                    <span>{ w.t(K::CompareViewVersion) }</span>
                    <select onchange={on_version} data-testid="compare-version" aria-label={w.tf(K::CompareViewVersionOfConfigurationN, &[("n", &(i + 1))])}>
                        { for shardlab_protocol::VERSIONS.iter().map(|m| html! {
                            <option value={*m} selected={*m == column.version}>{ *m }</option>
                        }) }
                    </select>
                </label>
                if props.removable {
                    <button class="link-button" aria-label={w.tf(K::CompareViewRemoveConfigurationN, &[("n", &(i + 1))])}
                        data-testid="compare-remove"
                        onclick={props.dispatch.reform(move |_| CompareAction::RemoveColumn(i))}>{ w.t(K::CompareViewRemove) }</button>
                }
            </div>
            if let Err(e) = &validation {
                <p class="validation invalid">{ e.clone() }</p>
            } else if let Some(e) = &column.error {
                <p class="validation invalid">{ e.clone() }</p>
            }
            <p class="muted compare-totals">{ format!("{} · {}", w.count(v.docs, "doc"), w.count(v.chunks, "chunk")) }</p>
            { mini_bar(w, v) }
            <div class="mini-shards">
                { for v.shards.iter().map(|s| mini_shard(w, s)) }
            </div>
        </section>
    }
}

/// The key input's change and Enter handlers: both apply the draft to column `i` when it is
/// `valid` and differs from the `current` key.
fn key_apply_callbacks(
    draft: String,
    dispatch: Callback<CompareAction>,
    current: String,
    i: usize,
    valid: bool,
) -> (Callback<Event>, Callback<KeyboardEvent>) {
    let apply = Callback::from(move |()| {
        if valid && draft != current {
            dispatch.emit(CompareAction::SetKey(i, draft.clone()));
        }
    });
    let on_change = apply.reform(|_: Event| ());
    let on_keydown = Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" {
            apply.emit(());
        }
    });
    (on_change, on_keydown)
}

/// The key space as a thin strip of chunks coloured by shard.
fn mini_bar(w: Words, v: &Frame) -> Html {
    if !v.sharded {
        return html! {};
    }
    let mut mins = vec![""; v.bar.len()];
    for c in v.shards.iter().flat_map(|s| s.chunks.iter().flatten()) {
        if let Some(m) = mins.get_mut(c.order as usize) {
            *m = &c.min;
        }
    }
    html! {
        <div class="bar mini-bar" role="img" aria-label={w.tf(K::CompareViewNAcrossTheKeySpace, &[("n", &(w.count(v.bar.len() as u64, "chunk")))])}>
            { for v.bar.iter().zip(&mins).map(|(b, min)| html! {
                <div class="segment"
                    style={format!("{} left: {:.3}%; width: {:.3}%", shard_style(b.shard), b.lo * 100.0, ((b.hi - b.lo) * 100.0).max(0.2))}
                    title={w.tf(K::CompareViewChunkStartingAtMin, &[("min", &min)])}></div>
            }) }
            { for v.ticks.iter().map(|t| html! {
                <span class={classes!("tick", t.fresh.then_some("new"))} style={format!("left: {:.3}%", t.at * 100.0)}></span>
            }) }
        </div>
    }
}

/// One shard as a small column of chunk blocks.
fn mini_shard(w: Words, s: &ShardFrame) -> Html {
    let chunks = s.chunks.as_deref().unwrap_or(&[]);
    html! {
        <div class="mini-shard" style={shard_style(s.index)} data-shard-id={s.name.clone()}>
            <div class="mini-shard-head">
                <strong>{ s.name.clone() }</strong>
                <span class="muted">{ w.count(s.docs, "doc") }</span>
            </div>
            <ol class="mini-chunks" aria-label={w.tf(K::CompareViewNOnName, &[("n", &(w.count(chunks.len() as u64, "chunk"))), ("name", &s.name)])}>
                { for chunks.iter().map(|c| html! {
                    <li class={classes!("mini-chunk", c.jumbo.then_some("jumbo"), (c.gained > 0).then_some("hot"),
                            c.is_max.then_some("is-max"), c.is_min.then_some("is-min"))}
                        data-testid="compare-chunk" data-min={c.min.clone()} data-max={c.max.clone()}
                        title={format!("[{}, {}) · {}{}", c.min, c.max, w.count(c.docs, "doc"), if c.jumbo { w.t(K::CompareViewJumbo2) } else { "" })}>
                        if c.is_max { <span aria-hidden="true">{ w.t(K::CompareViewMax) }</span> }
                        else if c.is_min { <span aria-hidden="true">{ w.t(K::CompareViewMin) }</span> }
                        else if c.jumbo { <span aria-hidden="true">{ "J" }</span> }
                    </li>
                }) }
            </ol>
        </div>
    }
}
