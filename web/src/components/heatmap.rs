//! The key space over time: a heatmap of where each step's inserts landed.
//!
//! Y is the viewed collection's key space (MinKey at the bottom, MaxKey at the top; for a
//! hashed key the int64 hash space), X the timeline's steps, and the colour how many
//! documents each key range received in each step. The core computes the grid, its chunk
//! boundaries and the pattern's name (`Timeline::heat_grid`, `Timeline::heat_pattern`);
//! this panel only paints them.
//!
//! The cells are painted with one `putImageData` at the canvas's device-pixel size (one
//! grid row per device pixel row, at most one column per device pixel column), so the cost
//! is the canvas's pixels, whatever the number of chunks or steps. The few lines drawn over
//! them (chunk boundaries, the cursor) are plain rectangles.

use super::term::Term;
use crate::export::COLOURS;
use crate::state::Action;
use shardlab::sim::{HeatGrid, HeatOptions, HeatPattern};
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

    /// The grid that fills the cells: a row per device pixel, and a column per device
    /// pixel or per step, whichever is fewer.
    fn options(&self, steps: u64) -> HeatOptions {
        let (_, h) = self.pixels();
        HeatOptions {
            rows: h.clamp(1, 4096),
            columns: u32::try_from(steps.clamp(1, 8192))
                .unwrap_or(8192)
                .min(self.cells_width()),
        }
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

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

fn ratio() -> f64 {
    gloo::utils::window().device_pixel_ratio().max(1.0)
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

/// Paints `grid` on `canvas` at `size`: the cells and the strip in one `putImageData`,
/// then the chunk boundaries, the veil over the steps after the cursor and the cursor.
fn paint(canvas: &HtmlCanvasElement, grid: &HeatGrid, size: Size, steps: u64) {
    let Some(ctx) = context(canvas) else { return };
    let (w, h) = size.pixels();
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    let cells_w = size.cells_width() as usize;
    let strip_x = ((size.width - STRIP) * size.ratio).round().max(0.0) as usize;
    let (w, h) = (w as usize, h as usize);
    let rows = grid.rows.len().max(1);
    let columns = grid.columns.max(1) as usize;
    let ramp = ramp();
    let shards: Vec<[u8; 3]> = COLOURS.iter().map(|c| rgb(c)).collect();
    let scale = if grid.max_cell > 0.0 {
        255.0 / grid.max_cell
    } else {
        0.0
    };
    // The column under each pixel column, worked out once rather than per pixel.
    let column_of: Vec<usize> = (0..cells_w)
        .map(|x| (x * columns / cells_w).min(columns - 1))
        .collect();
    let mut data = vec![0u8; w * h * 4];
    for (y, line) in data.chunks_exact_mut(w * 4).enumerate() {
        // The top pixel row is the top (MaxKey side) row.
        let row = rows - 1 - (y * rows / h).min(rows - 1);
        let cells = &grid.cells[row * columns..(row + 1) * columns];
        for (px, &c) in line.chunks_exact_mut(4).zip(&column_of) {
            let v = cells[c];
            let colour = if v > 0.0 {
                ramp[((v * scale).ceil() as usize).clamp(1, 256) - 1]
            } else {
                EMPTY
            };
            px[..3].copy_from_slice(&colour);
            px[3] = 255;
        }
        let shard = grid.rows[row].shard as usize % shards.len();
        for px in line[strip_x * 4..].chunks_exact_mut(4) {
            px[..3].copy_from_slice(&shards[shard]);
            px[3] = 255;
        }
    }
    if let Ok(image) =
        ImageData::new_with_u8_clamped_array_and_sh(Clamped(&data), w as u32, h as u32)
    {
        let _ = ctx.put_image_data(&image, 0.0, 0.0);
    }
    let (cw, hf) = (cells_w as f64, h as f64);
    let strip_w = w as f64 - strip_x as f64;
    // Chunk boundaries, where both neighbours are far enough away to tell lines apart.
    let spacing = LINE_SPACING * size.ratio / hf;
    let at: Vec<f64> = grid.chunks.iter().map(|c| c.at).collect();
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
    let span = (columns as u64 * grid.per_column).max(1) as f64;
    let x = (cw * grid.cursor.min(steps) as f64 / span).round();
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
    let ratio = ratio();
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
        ratio: ratio(),
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

/// Why there is nothing to draw, if so.
fn empty_reason(ns: &str, steps: u64, grid: Option<&HeatGrid>) -> Option<String> {
    match grid {
        None if ns.is_empty() => Some("No collection to show yet.".to_string()),
        None if steps == 0 => Some("No steps yet: nothing has happened on the timeline.".to_string()),
        None => Some(format!(
            "{ns} is not sharded at this step, so it has no key space to draw. Shard it (or pick a sharded collection) to see where its inserts land."
        )),
        Some(g) if g.max_cell <= 0.0 => Some(format!(
            "No inserts into {ns} yet: play or step the workload to see where they land."
        )),
        Some(_) => None,
    }
}

/// The heatmap panel.
#[function_component(Heatmap)]
pub fn heatmap(props: &super::controls::CalmPanelProps) -> Html {
    let canvas = use_node_ref();
    let legend = use_node_ref();
    let panel = use_node_ref();
    // The canvas's size, measured when first drawn and on each resize only: reading it on
    // every redraw would force a layout in the middle of rendering.
    let size = use_mut_ref(|| None::<Size>);
    let layout = use_mut_ref(|| None::<Layout>);
    let redraw = use_force_update();
    {
        let canvas = canvas.clone();
        let size = size.clone();
        use_effect_with((), move |_| {
            let listener =
                gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                    if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                        *size.borrow_mut() = measure(&c);
                        redraw.force_update();
                    }
                });
            move || drop(listener)
        });
    }

    let state = &props.state;
    let ns = state.settings.ns.clone();
    let timeline = state.timeline.borrow();
    let steps = timeline.len();
    let cursor = timeline.position();
    // The grid at the size last measured (or a guess before the first measurement); the
    // painting recomputes it only if the canvas turns out to have another size.
    let guess = size.borrow().unwrap_or(Size {
        width: GUESS.0,
        height: GUESS.1,
        ratio: ratio(),
    });
    let started = now_ms();
    let grid = (steps > 0)
        .then(|| timeline.heat_grid(&ns, guess.options(steps)))
        .flatten();
    let grid_ms = now_ms() - started;
    let empty = empty_reason(&ns, steps, grid.as_ref());
    let pattern: Option<HeatPattern> = empty.is_none().then(|| timeline.heat_pattern(&ns));
    let key = timeline
        .session()
        .cluster
        .sharding(&ns)
        .map(|s| shardlab::shell::format_document(&s.pattern.to_pattern_document()))
        .unwrap_or_default();
    drop(timeline);

    {
        // Paint after every render (the panel renders on its calm revision, a resize or
        // nothing else): the grid was computed for this render.
        let canvas = canvas.clone();
        let legend = legend.clone();
        let panel = panel.clone();
        let size = size.clone();
        let layout = layout.clone();
        let state = state.clone();
        let ns = ns.clone();
        let grid = grid.clone().filter(|_| empty.is_none());
        use_effect(move || {
            let Some(c) = canvas.cast::<HtmlCanvasElement>() else {
                // The canvas is not shown: measure it anew when it comes back.
                *size.borrow_mut() = None;
                *layout.borrow_mut() = None;
                return;
            };
            let Some(mut grid) = grid else { return };
            let mut grid_ms = grid_ms;
            let known = *size.borrow();
            // Not laid out (hidden): nothing to paint until it is measured again.
            let Some(measured) = known.or_else(|| measure(&c)) else {
                return;
            };
            *size.borrow_mut() = Some(measured);
            if measured.options(steps) != guess.options(steps) {
                let started = now_ms();
                if let Some(g) = state
                    .timeline
                    .borrow()
                    .heat_grid(&ns, measured.options(steps))
                {
                    grid = g;
                }
                grid_ms = now_ms() - started;
            }
            let started = now_ms();
            paint(&c, &grid, measured, steps);
            let total = grid_ms + now_ms() - started;
            let _ = c.set_attribute("data-draw-ms", &format!("{total:.2}"));
            // The cursor this picture shows, so that a reader can wait for the picture of
            // a given step.
            let _ = c.set_attribute("data-drawn-at", &grid.cursor.to_string());
            if let Some(p) = panel.cast::<web_sys::Element>() {
                let (w, h) = measured.pixels();
                for (name, value) in [
                    ("data-rows", grid.rows.len().to_string()),
                    ("data-columns", grid.columns.to_string()),
                    ("data-per-column", grid.per_column.to_string()),
                    ("data-cells-width", measured.cells_width().to_string()),
                    ("data-canvas-width", w.to_string()),
                    ("data-canvas-height", h.to_string()),
                    ("data-chunks", grid.chunks.len().to_string()),
                ] {
                    let _ = p.set_attribute(name, &value);
                }
            }
            *layout.borrow_mut() = Some(Layout {
                cells_share: f64::from(measured.cells_width()) / f64::from(measured.pixels().0),
                columns: grid.columns,
                per_column: grid.per_column,
                steps,
            });
            if let Some(l) = legend.cast::<HtmlCanvasElement>() {
                paint_legend(&l);
            }
        });
    }

    let head = html! {
        <div class="heat-head">
            <h2>{ "Key space over time" }</h2>
            <span class="muted">{ if key.is_empty() { ns.clone() } else { format!("{ns} · {key}") } }</span>
        </div>
    };
    let intro = html! {
        <p class="muted heat-intro">
            { "Each column is a step of the timeline and each row a range of the key space; the colour is the " }
            <Term id="heat" label="heat" />
            { ": how many documents each range received in that step. Click a column to jump to its step." }
        </p>
    };
    let (Some(grid), None, Some(pattern)) = (grid, empty.as_ref(), pattern) else {
        return html! {
            <section class="panel heatmap" ref={panel} aria-label="Key space over time"
                data-testid="heatmap" data-ns={ns} data-pattern="" data-steps={steps.to_string()}
                data-cursor={cursor.to_string()}>
                { head }
                { intro }
                <p class="heat-empty" data-testid="heatmap-empty">{ empty.unwrap_or_default() }</p>
            </section>
        };
    };

    let on_click = {
        let layout = layout.clone();
        let dispatch = props.dispatch.clone();
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
    };
    let (top, bottom, axis_note) = if grid.hashed {
        (
            html! { <span title="int64 max: 9223372036854775807">{ "MaxKey" }<br />{ "int64 max" }</span> },
            html! { <span title="int64 min: -9223372036854775808">{ "int64 min" }<br />{ "MinKey" }</span> },
            format!("Y: the hash space of {key}, the int64 hashes from -9223372036854775808 at the bottom to 9223372036854775807 at the top."),
        )
    } else {
        (
            html! { <span>{ "MaxKey" }</span> },
            html! { <span>{ "MinKey" }</span> },
            format!("Y: the key space of {key}, from MinKey at the bottom to MaxKey at the top, stretched over the keys inserted so far."),
        )
    };
    let max_per_step = f64::from(grid.max_cell) / grid.per_column as f64;
    let unit = if grid.per_column > 1 {
        format!(
            "inserts per key range per step (each column averages {} steps)",
            grid.per_column
        )
    } else {
        "inserts per key range per step".to_string()
    };
    // The shards in the strip, each once, in the page's colours.
    let mut shown: Vec<u32> = grid.rows.iter().map(|r| r.shard).collect();
    shown.sort_unstable();
    shown.dedup();
    let shard_names: Vec<Html> = shown
        .iter()
        .map(|&i| {
            let name = state
                .view
                .shards
                .iter()
                .find(|s| s.index == i as usize)
                .map_or_else(|| format!("shard {i}"), |s| s.name.clone());
            html! {
                <li><span class="heat-swatch" style={format!("background: {}", COLOURS[i as usize % COLOURS.len()])}></span>{ name }</li>
            }
        })
        .collect();
    let label = format!(
        "Key space over time of {ns}: {steps} steps, cursor at step {cursor}, pattern: {}. Click a column to jump to its step; the timeline slider and the left and right arrow keys move the cursor.",
        pattern.name
    );
    let last = steps.to_string();
    // The sentence starts with the pattern's name, which the badge already shows.
    let sentence = pattern
        .sentence
        .get(pattern.name.len() + 2..)
        .filter(|_| {
            pattern
                .sentence
                .to_lowercase()
                .starts_with(&format!("{}: ", pattern.name))
        })
        .map_or_else(
            || pattern.sentence.clone(),
            |rest| {
                let mut c = rest.chars();
                c.next()
                    .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
            },
        );
    html! {
        <section class="panel heatmap" ref={panel} aria-label="Key space over time"
            data-testid="heatmap" data-ns={ns.clone()} data-pattern={pattern.name}
            data-steps={last.clone()} data-cursor={cursor.to_string()}
            data-hashed={grid.hashed.to_string()} data-max-cell={grid.max_cell.to_string()}>
            { head }
            { intro }
            <p class="muted heat-axis-note" data-testid="heat-axis">{ axis_note }</p>
            <div class="heat-figure">
                <div class="heat-y" aria-hidden="true">{ top }{ bottom }</div>
                <canvas ref={canvas} class="heat-canvas" data-testid="heatmap-canvas" tabindex="0"
                    role="img" aria-label={label} onclick={on_click}></canvas>
                <div class="heat-x" aria-hidden="true">
                    <span data-testid="heat-first">{ "step 1" }</span>
                    <span>{ "steps →" }</span>
                    <span data-testid="heat-last">{ format!("step {last}") }</span>
                </div>
            </div>
            <div class="heat-legend">
                <span class="heat-scale">
                    <span class="heat-unit">{ "Colour: " }{ unit }</span>
                    <span class="heat-ramp">
                        <span class="heat-swatch heat-none" title="no inserts"></span>
                        <span>{ "0" }</span>
                        <canvas ref={legend} class="heat-legend-ramp" data-testid="heat-legend" aria-hidden="true"></canvas>
                        <span data-testid="heat-max">{ format!("{} (max)", amount(max_per_step)) }</span>
                    </span>
                </span>
                <span class="heat-shards">
                    <span class="heat-unit">{ format!("Strip: each range's shard at step {cursor}; lines: chunk boundaries") }</span>
                    <ul>{ for shard_names }</ul>
                </span>
            </div>
            <p class="heat-pattern" data-testid="heat-pattern">
                <span class="heat-badge">{ pattern.name }</span>{ " " }{ sentence }
            </p>
        </section>
    }
}
