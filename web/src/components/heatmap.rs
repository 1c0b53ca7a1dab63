//! The key space over time: a heatmap of where each step's inserts landed.
//!
//! Y is the viewed collection's key space (MinKey at the bottom, MaxKey at the top; for a
//! hashed key the int64 hash space), X the timeline's steps, and the colour how many
//! documents each key range received in each step. The engine computes the grid, its chunk
//! boundaries and the pattern's name (`Call::Heat`, asked again when the timeline's calm
//! revision, the collection shown or the canvas's size changes); this panel only paints
//! them, keeping the last picture until the next answer arrives.
//!
//! The cells are painted with one `putImageData` at the canvas's device-pixel size (one
//! grid row per device pixel row, at most one column per device pixel column), so the cost
//! is the canvas's pixels, whatever the number of chunks or steps. The few lines drawn over
//! them (chunk boundaries, the cursor) are plain rectangles.

use super::query::{error_text, use_in_sight, Answer};
use super::term::Term;
use crate::i18n::{Words, K};
use crate::palette::{shard_colour, SHARD_COLOURS};
use crate::queries::Asker;
use crate::state::Action;
use shardlab_protocol::{HeatView, MessageView, Position, Reply};
use std::rc::Rc;
use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use yew::prelude::*;

/// The width of the shard strip beside the cells, in CSS pixels.
const STRIP: f64 = 12.0;
/// The space between the cells and the strip, in CSS pixels.
const GAP: f64 = 4.0;
/// The closest two chunk boundaries may be, in CSS pixels, for either to get a line:
/// thousands of chunks would otherwise paint the cells solid.
const LINE_SPACING: f64 = 2.0;
/// The size guessed before the canvas was first measured, in CSS pixels.
const GUESS: (f64, f64) = (800.0, 220.0);
/// The colour of a cell that received nothing (the page's chart background).
const EMPTY: [u8; 3] = [0xfa, 0xfb, 0xfc];
/// The colour scale, from the least heat above nothing to the most: pale yellow through
/// orange and red to a dark crimson. Each stop is darker than the one before it, so the
/// scale reads in order in grey too.
const STOPS: [[u8; 3]; 5] = [
    [0xff, 0xf0, 0xa8],
    [0xfd, 0xb4, 0x4b],
    [0xf0, 0x6e, 0x2a],
    [0xc4, 0x23, 0x2a],
    [0x5e, 0x0c, 0x36],
];
/// The cursor's line (the page's ink).
const CURSOR: &str = "#1b2130";
/// A chunk boundary across the cells.
const BOUNDARY: &str = "rgba(27, 33, 48, 0.32)";
/// The veil over the steps after the cursor.
const FUTURE: &str = "rgba(255, 255, 255, 0.55)";

/// The canvas's size: CSS pixels and the device pixel ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Size {
    width: f64,
    height: f64,
    ratio: f64,
}

impl Size {
    /// The canvas in device pixels.
    fn pixels(&self) -> (u32, u32) {
        (
            (self.width * self.ratio).round().max(1.0) as u32,
            (self.height * self.ratio).round().max(1.0) as u32,
        )
    }

    /// The width of the cells (the canvas less the strip and the gap), in device pixels.
    fn cells_width(&self) -> u32 {
        let (w, _) = self.pixels();
        w.saturating_sub(((STRIP + GAP) * self.ratio).round() as u32)
            .max(1)
    }
}

/// What the last painting laid out, for clicks.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// The share of the canvas's width the cells take (the rest is the strip). A share
    /// rather than pixels, so that a click maps right even on a canvas stretched by a
    /// layout change that is not yet measured.
    cells_share: f64,
    columns: u32,
    per_column: u64,
    steps: u64,
}

/// The colour scale as 256 entries (entry 0 is the least heat above nothing).
fn ramp() -> Vec<[u8; 3]> {
    (0..256)
        .map(|i| {
            let t = i as f64 / 255.0 * (STOPS.len() - 1) as f64;
            let k = (t.floor() as usize).min(STOPS.len() - 2);
            let f = t - k as f64;
            let (a, b) = (STOPS[k], STOPS[k + 1]);
            let mix = |j: usize| {
                (f64::from(a[j]) + (f64::from(b[j]) - f64::from(a[j])) * f).round() as u8
            };
            [mix(0), mix(1), mix(2)]
        })
        .collect()
}

/// `#rrggbb` as three bytes.
fn rgb(hex: &str) -> [u8; 3] {
    let byte = |i: usize| {
        hex.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .unwrap_or(0)
    };
    [byte(1), byte(3), byte(5)]
}

fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
}

/// The cells and the shard strip of `grid` as RGBA pixels, `w` by `h` device pixels, the
/// cells `cells_w` wide and the strip from `strip_x`.
fn pixels(grid: &HeatView, (w, h): (usize, usize), cells_w: usize, strip_x: usize) -> Vec<u8> {
    let rows = grid.row_shards.len().max(1);
    let columns = grid.columns.max(1) as usize;
    let ramp = ramp();
    let shards: Vec<[u8; 3]> = SHARD_COLOURS.iter().map(|c| rgb(c)).collect();
    let scale = if grid.max_cell > 0.0 {
        255.0 / grid.max_cell
    } else {
        0.0
    };
    // The column under each pixel column, worked out once rather than per pixel.
    let column_of: Vec<usize> = (0..cells_w)
        .map(|x| (x * columns / cells_w.max(1)).min(columns - 1))
        .collect();
    let mut data = vec![0u8; w * h * 4];
    for (y, line) in data.chunks_exact_mut(w * 4).enumerate() {
        // The top pixel row is the top (MaxKey side) row.
        let row = rows - 1 - (y * rows / h.max(1)).min(rows - 1);
        // A grid shorter than it says (a malformed answer) paints as empty, not a panic.
        let cells = grid
            .cells
            .get(row * columns..(row + 1) * columns)
            .unwrap_or(&[]);
        for (px, &c) in line.chunks_exact_mut(4).zip(&column_of) {
            let v = cells.get(c).copied().unwrap_or(0.0);
            let colour = if v > 0.0 {
                ramp[((v * scale).ceil() as usize).clamp(1, 256) - 1]
            } else {
                EMPTY
            };
            px[..3].copy_from_slice(&colour);
            px[3] = 255;
        }
        let shard = grid.row_shards.get(row).copied().unwrap_or(0) as usize % shards.len();
        for px in line[(strip_x * 4).min(w * 4)..].chunks_exact_mut(4) {
            px[..3].copy_from_slice(&shards[shard]);
            px[3] = 255;
        }
    }
    data
}

/// The chunks' lower bounds, as fractions of the axis from the bottom: the first chunk's
/// (0) and each boundary inside the axis.
fn chunk_starts(grid: &HeatView) -> Vec<f64> {
    let mut at = vec![0.0];
    at.extend(
        grid.boundaries
            .iter()
            .copied()
            .filter(|b| *b > 0.0 && *b < 1.0),
    );
    at
}

/// Paints `grid` on `canvas` at `size`: the cells and the strip in one `putImageData`,
/// then the chunk boundaries, the veil over the steps after the cursor and the cursor.
fn paint(canvas: &HtmlCanvasElement, grid: &HeatView, size: Size) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = size.pixels();
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let cells_w = size.cells_width() as usize;
    let strip_x = ((size.width - STRIP) * size.ratio).round().max(0.0) as usize;
    let data = pixels(grid, (w as usize, h as usize), cells_w, strip_x);
    if let Ok(image) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&data), w, h) {
        let _ = ctx.put_image_data(&image, 0.0, 0.0);
    }
    let (cw, hf) = (cells_w as f64, f64::from(h));
    let strip_w = f64::from(w) - strip_x as f64;
    // Chunk boundaries, where both neighbours are far enough away to tell lines apart.
    let spacing = LINE_SPACING * size.ratio / hf;
    let at = chunk_starts(grid);
    let lines: Vec<f64> = (1..at.len())
        .filter(|&i| {
            at[i] - at[i - 1] >= spacing && at.get(i + 1).copied().unwrap_or(1.0) - at[i] >= spacing
        })
        .map(|i| ((1.0 - at[i]) * hf).round())
        .collect();
    ctx.set_fill_style_str(BOUNDARY);
    for y in &lines {
        ctx.fill_rect(0.0, y - 1.0, cw, 1.0);
    }
    ctx.set_fill_style_str("#ffffff");
    for y in &lines {
        ctx.fill_rect(strip_x as f64, y - 1.0, strip_w, 1.0);
    }
    // The cursor at the right edge of its step; the steps after it under a veil.
    let span = (u64::from(grid.columns.max(1)) * grid.per_column.max(1)) as f64;
    let x = (cw * grid.cursor.min(grid.steps) as f64 / span).round();
    if x < cw {
        ctx.set_fill_style_str(FUTURE);
        ctx.fill_rect(x, 0.0, cw - x, hf);
    }
    let line = (2.0 * size.ratio).round();
    ctx.set_fill_style_str(CURSOR);
    // Kept inside the cells (`max` last: a canvas narrower than the line starts at 0).
    ctx.fill_rect((x - line / 2.0).min(cw - line).max(0.0), 0.0, line, hf);
}

/// The legend's colour scale in CSS pixels (the stylesheet's `.heat-legend-ramp`).
const LEGEND: (f64, f64) = (120.0, 10.0);

/// Paints the colour scale on the legend's canvas, unless it is painted at this ratio.
fn paint_legend(canvas: &HtmlCanvasElement) {
    let ratio = crate::screen::pixel_ratio();
    let (w, h) = (
        (LEGEND.0 * ratio).round() as u32,
        (LEGEND.1 * ratio).round() as u32,
    );
    if canvas.width() == w && canvas.height() == h {
        return;
    }
    let Some(ctx) = context(canvas) else { return };
    canvas.set_width(w);
    canvas.set_height(h);
    let ramp = ramp();
    let mut data = vec![255u8; (w * h * 4) as usize];
    for line in data.chunks_exact_mut(w as usize * 4) {
        for (x, px) in line.chunks_exact_mut(4).enumerate() {
            let colour = ramp[(x * 255 / (w as usize).max(2).saturating_sub(1)).min(255)];
            px[..3].copy_from_slice(&colour);
        }
    }
    if let Ok(image) = ImageData::new_with_u8_clamped_array_and_sh(Clamped(&data), w, h) {
        let _ = ctx.put_image_data(&image, 0.0, 0.0);
    }
}

/// The canvas's size now, if it is laid out (not inside something hidden).
fn measure(canvas: &HtmlCanvasElement) -> Option<Size> {
    let (width, height) = (canvas.client_width(), canvas.client_height());
    (width > 0 && height > 0).then(|| Size {
        width: f64::from(width),
        height: f64::from(height),
        ratio: crate::screen::pixel_ratio(),
    })
}

/// A number of inserts for the legend: whole above 10, one decimal below.
fn amount(v: f64) -> String {
    if v >= 10.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Why there is nothing to ask the engine for, if so.
fn local_empty(w: Words, ns: &str, steps: u64) -> Option<String> {
    if ns.is_empty() {
        Some(w.t(K::HeatmapNoCollectionToShowYet).to_string())
    } else if steps == 0 {
        Some(w.t(K::HeatmapNoStepsYetNothingHas).to_string())
    } else {
        None
    }
}

/// The grid in an answer, if it is one.
fn heat_of(answer: &Answer) -> Option<&HeatView> {
    match answer.as_ref() {
        Ok(Reply::Heat(view)) => Some(view),
        _ => None,
    }
}

/// Properties of [`Heatmap`]: what it draws, and the engine's latest grid (the model asks
/// for it again at the timeline's calm cursor, not on every tick of a workload:
/// `crate::asking`).
#[derive(Properties, PartialEq)]
pub struct HeatmapProps {
    /// The engine's latest grid.
    pub heat: Option<crate::queries::Answer>,
    /// The collection shown.
    pub ns: AttrValue,
    /// Its shard key, if the collection shown is sharded (else empty).
    pub key: AttrValue,
    /// The timeline's cursor and length, as of that revision.
    pub at: Position,
    /// Dispatches an action (a click on a column jumps to its step).
    pub dispatch: Callback<Action>,
}

/// The canvas's size, measured anew on each resize of the window (reading it on every
/// redraw would force a layout in the middle of rendering).
#[hook]
fn use_canvas_size(canvas: &NodeRef) -> UseStateHandle<Option<Size>> {
    let size = use_state(|| None::<Size>);
    {
        let (canvas, size) = (canvas.clone(), size.clone());
        use_effect_with((), move |_| {
            let listener =
                gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                    if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                        size.set(measure(&c));
                    }
                });
            move || drop(listener)
        });
    }
    size
}

/// Where a painting goes and what it records.
#[derive(Clone)]
struct Canvases {
    canvas: NodeRef,
    legend: NodeRef,
    panel: NodeRef,
    size: UseStateHandle<Option<Size>>,
    layout: Rc<std::cell::RefCell<Option<Layout>>>,
    /// The answer (by address) and size last painted.
    painted: Rc<std::cell::RefCell<Option<(usize, Size)>>>,
}

/// Paints the latest answer after a render, unless that answer is already painted at this
/// size on this canvas; measures the canvas first if it was not yet.
fn paint_answer(to: &Canvases, answer: Option<&Answer>) {
    let Some(c) = to.canvas.cast::<HtmlCanvasElement>() else {
        // The canvas is not shown: measure it anew when it comes back.
        *to.layout.borrow_mut() = None;
        return;
    };
    let Some((answer, grid)) = answer.and_then(|a| Some((a, heat_of(a)?))) else {
        return;
    };
    let measured = match *to.size {
        Some(s) => s,
        // Not laid out (hidden): nothing to paint until it is measured again.
        None => match measure(&c) {
            Some(m) => {
                to.size.set(Some(m));
                m
            }
            None => return,
        },
    };
    let id = (Rc::as_ptr(answer) as usize, measured);
    if *to.painted.borrow() == Some(id) && c.has_attribute("data-drawn-at") {
        return;
    }
    *to.painted.borrow_mut() = Some(id);
    let started = crate::screen::now_ms();
    paint(&c, grid, measured);
    let _ = c.set_attribute(
        "data-draw-ms",
        &format!("{:.2}", crate::screen::now_ms() - started),
    );
    // The cursor this picture shows, so that a reader can wait for the picture of a
    // given step.
    let _ = c.set_attribute("data-drawn-at", &grid.cursor.to_string());
    if let Some(p) = to.panel.cast::<web_sys::Element>() {
        let (w, h) = measured.pixels();
        for (name, value) in [
            ("data-rows", grid.row_shards.len().to_string()),
            ("data-columns", grid.columns.to_string()),
            ("data-per-column", grid.per_column.to_string()),
            ("data-cells-width", measured.cells_width().to_string()),
            ("data-canvas-width", w.to_string()),
            ("data-canvas-height", h.to_string()),
            ("data-chunks", chunk_starts(grid).len().to_string()),
        ] {
            let _ = p.set_attribute(name, &value);
        }
    }
    *to.layout.borrow_mut() = Some(Layout {
        cells_share: f64::from(measured.cells_width()) / f64::from(measured.pixels().0),
        columns: grid.columns,
        per_column: grid.per_column,
        // The steps of the picture drawn, which a click maps to.
        steps: grid.steps,
    });
    if let Some(l) = to.legend.cast::<HtmlCanvasElement>() {
        paint_legend(&l);
    }
}

/// A click on the cells jumps to the last step of the column clicked.
fn on_column_click(
    layout: Rc<std::cell::RefCell<Option<Layout>>>,
    dispatch: Callback<Action>,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let Some(l) = *layout.borrow() else { return };
        let Some(width) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|el| f64::from(el.client_width()))
            .filter(|w| *w > 0.0)
        else {
            return;
        };
        // Where in the cells, from 0 (the first step) to 1 (the last).
        let at = f64::from(e.offset_x()) / width / l.cells_share;
        if !(0.0..1.0).contains(&at) || l.steps == 0 {
            return;
        }
        let column = ((at * f64::from(l.columns)) as u64).min(u64::from(l.columns.max(1)) - 1);
        // The column's last step, the timeline's last for a partial column.
        let step = ((column + 1) * l.per_column).clamp(1, l.steps);
        dispatch.emit(Action::Jump(step));
    })
}

/// The panel's heading: its title, the collection and its key.
fn head(w: Words, ns: &str, key: &str) -> Html {
    html! {
        <div class="heat-head">
            <h2>{ w.t(K::HeatmapKeySpaceOverTime) }</h2>
            <span class="muted">{ if key.is_empty() { ns.to_string() } else { format!("{ns} · {key}") } }</span>
        </div>
    }
}

/// What the panel is about, with the glossary's "heat".
fn intro(w: Words) -> Html {
    html! {
        <p class="muted heat-intro">
            { w.t(K::HeatmapEachColumnIsAStep) }
            <Term id="heat" label={w.t(K::HeatmapHeat)} />
            { w.t(K::HeatmapHowManyDocumentsEachRange) }
        </p>
    }
}

/// The Y axis's ends and the sentence saying what it is (for a ranged key, the engine's
/// `axis`: the axis goes by rank).
fn y_axis(w: Words, hashed: bool, key: &str, axis: &str) -> (Html, Html, String) {
    if hashed {
        (
            html! { <span title={w.t(K::HeatmapInt64Max9223372036854775807)}>{ "MaxKey" }<br />{ w.t(K::HeatmapInt64Max) }</span> },
            html! { <span title={w.t(K::HeatmapInt64Min9223372036854775808)}>{ w.t(K::HeatmapInt64Min) }<br />{ "MinKey" }</span> },
            w.tf(K::HeatmapYTheHashSpaceOf, &[("key", &key)]),
        )
    } else {
        (
            html! { <span>{ "MaxKey" }</span> },
            html! { <span>{ "MinKey" }</span> },
            axis.to_string(),
        )
    }
}

/// The legend: the colour scale with its unit and top, and the strip's shards.
fn legend_view(w: Words, grid: &HeatView, legend: &NodeRef) -> Html {
    let max_per_step = f64::from(grid.max_cell) / grid.per_column.max(1) as f64;
    let unit = if grid.per_column > 1 {
        w.tf(
            K::HeatmapInsertsPerKeyRangePer,
            &[("per_column", &grid.per_column)],
        )
    } else {
        w.t(K::HeatmapInsertsPerKeyRangePer2).to_string()
    };
    // The shards in the strip, each once, in the page's colours.
    let shard_names = grid.shards.iter().map(|(i, name)| {
        html! {
            <li><span class="heat-swatch" style={format!("background: {}", shard_colour(*i))}></span>{ name.clone() }</li>
        }
    });
    let cursor = grid.cursor;
    html! {
        <div class="heat-legend">
            <span class="heat-scale">
                <span class="heat-unit">{ w.t(K::HeatmapColour) }{ unit }</span>
                <span class="heat-ramp">
                    <span class="heat-swatch heat-none" title={w.t(K::HeatmapNoInserts)}></span>
                    <span>{ "0" }</span>
                    <canvas ref={legend.clone()} class="heat-legend-ramp" data-testid="heat-legend" aria-hidden="true"></canvas>
                    <span data-testid="heat-max">{ w.tf(K::HeatmapNMax, &[("n", &(amount(max_per_step)))]) }</span>
                </span>
            </span>
            <span class="heat-shards">
                <span class="heat-unit">{ w.tf(K::HeatmapStripEachRangeSShard, &[("cursor", &cursor)]) }</span>
                <ul>{ for shard_names }</ul>
            </span>
        </div>
    }
}

/// The panel with nothing to draw, and why.
fn empty_view(
    w: Words,
    panel: &NodeRef,
    ns: &str,
    key: &str,
    position: Position,
    why: Html,
) -> Html {
    html! {
        <section class="panel heatmap" ref={panel.clone()} aria-label={w.t(K::HeatmapKeySpaceOverTime)}
            data-testid="heatmap" data-ns={ns.to_string()} data-pattern="" data-steps={position.length.to_string()}
            data-cursor={position.position.to_string()}>
            { head(w, ns, key) }
            { intro(w) }
            { why }
        </section>
    }
}

/// The panel with the engine's grid.
fn grid_view(
    w: Words,
    to: &Canvases,
    grid: &HeatView,
    position: Position,
    on_click: Callback<MouseEvent>,
) -> Html {
    let (steps, cursor) = (position.length, position.position);
    let axis = grid
        .axis_words
        .as_ref()
        .and_then(|m| w.messages(std::slice::from_ref(m)));
    let (top, bottom, axis_note) = y_axis(
        w,
        grid.hashed,
        &grid.key,
        axis.as_deref().unwrap_or(&grid.axis),
    );
    // The pattern's English name stays the panel's `data-pattern`; its words are the page's.
    let (name, english) = grid.pattern.clone().unwrap_or_default();
    let one = |m: &MessageView| w.messages(std::slice::from_ref(m));
    let worded = grid
        .pattern_words
        .as_ref()
        .and_then(|(n, s)| Some((one(n)?, one(s)?)));
    let (shown_name, sentence) = worded.unwrap_or_else(|| (name.clone(), english));
    let label = w.tf(
        K::HeatmapKeySpaceOverTimeOf,
        &[
            ("ns", &grid.ns),
            ("steps", &steps),
            ("cursor", &cursor),
            ("name", &shown_name),
        ],
    );
    html! {
        <section class="panel heatmap" ref={to.panel.clone()} aria-label={w.t(K::HeatmapKeySpaceOverTime)}
            data-testid="heatmap" data-ns={grid.ns.clone()} data-pattern={name.clone()}
            data-steps={steps.to_string()} data-cursor={cursor.to_string()}
            data-hashed={grid.hashed.to_string()} data-max-cell={grid.max_cell.to_string()}>
            { head(w, &grid.ns, &grid.key) }
            { intro(w) }
            <p class="muted heat-axis-note" data-testid="heat-axis">{ axis_note }</p>
            <div class="heat-figure">
                <div class="heat-y" aria-hidden="true">{ top }{ bottom }</div>
                <canvas ref={to.canvas.clone()} class="heat-canvas" data-testid="heatmap-canvas" tabindex="0"
                    role="img" aria-label={label} onclick={on_click}></canvas>
                <div class="heat-x" aria-hidden="true">
                    <span data-testid="heat-first">{ w.t(K::HeatmapStep1) }</span>
                    <span>{ w.t(K::HeatmapSteps) }</span>
                    <span data-testid="heat-last">{ w.tf(K::HeatmapStepSteps, &[("steps", &steps)]) }</span>
                </div>
            </div>
            { legend_view(w, grid, &to.legend) }
            <p class="heat-pattern" data-testid="heat-pattern">
                <span class="heat-badge">{ shown_name.clone() }</span>{ " " }{ sentence }
            </p>
        </section>
    }
}

/// The heatmap panel.
#[function_component(Heatmap)]
pub fn heatmap(props: &HeatmapProps) -> Html {
    let w = super::lang_switch::use_words();
    let to = use_canvases();
    let ns = props.ns.to_string();
    let at = props.at;
    let steps = at.length;
    // The grid at the size last measured (or a guess before the first measurement); a
    // measurement that changes it asks again.
    let guess = to.size.unwrap_or(Size {
        width: GUESS.0,
        height: GUESS.1,
        ratio: crate::screen::pixel_ratio(),
    });
    let local = local_empty(w, &ns, steps);
    let answer = use_painted_grid(props, &to, guess, local.is_none());
    let key = props.key.to_string();
    if let Some(why) = local {
        return empty_view(w, &to.panel, &ns, &key, at, empty_why(why, None));
    }
    match answer.as_ref() {
        None => empty_view(w, &to.panel, &ns, &key, at, Html::default()),
        Some(a) => match (a.as_ref(), heat_of(a)) {
            (Err(e), _) => empty_view(
                w,
                &to.panel,
                &ns,
                &key,
                at,
                empty_why(error_text(e), Some("error")),
            ),
            (_, Some(grid)) if grid.empty.is_none() => {
                let on_click = on_column_click(to.layout.clone(), props.dispatch.clone());
                grid_view(w, &to, grid, at, on_click)
            }
            (_, grid) => {
                // The engine's reason, in the page's language.
                let why = grid
                    .and_then(|g| {
                        let words = g.empty_words.as_ref();
                        words
                            .and_then(|m| w.messages(std::slice::from_ref(m)))
                            .or_else(|| g.empty.clone())
                    })
                    .unwrap_or_default();
                let drawn = grid.map_or(ns.as_str(), |g| g.ns.as_str());
                empty_view(w, &to.panel, drawn, &key, at, empty_why(why, None))
            }
        },
    }
}

/// The panel's canvases, its size as last measured, and what was painted on them.
#[hook]
fn use_canvases() -> Canvases {
    let canvas = use_node_ref();
    Canvases {
        size: use_canvas_size(&canvas),
        canvas,
        legend: use_node_ref(),
        panel: use_node_ref(),
        layout: use_mut_ref(|| None::<Layout>),
        painted: use_mut_ref(|| None::<(usize, Size)>),
    }
}

/// The engine's latest grid (none while there is nothing to ask), painted on the
/// canvases after every render that brings a new answer or size. The model asks for the
/// grid that fills the canvas as measured, which this tells it.
#[hook]
fn use_painted_grid(props: &HeatmapProps, to: &Canvases, size: Size, asks: bool) -> Option<Answer> {
    use_in_sight(Asker::Heat, &props.dispatch);
    {
        let (_, height) = size.pixels();
        let dispatch = props.dispatch.clone();
        use_effect_with((height, size.cells_width()), move |(height, cells)| {
            dispatch.emit(Action::HeatCanvas(*height, *cells));
            || ()
        });
    }
    let answer = props
        .heat
        .as_ref()
        .filter(|_| asks)
        .map(|a| a.result.clone());
    {
        // Paint after every render that brings a new answer or size.
        let (to, answer) = (to.clone(), answer.clone());
        use_effect(move || paint_answer(&to, answer.as_ref()));
    }
    answer
}

/// Why the panel has nothing to draw, as its paragraph (with `class`, as `error`).
fn empty_why(why: String, class: Option<&'static str>) -> Html {
    html! { <p class={classes!("heat-empty", class)} data-testid="heatmap-empty">{ why }</p> }
}
