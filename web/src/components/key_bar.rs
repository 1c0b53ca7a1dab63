//! The key-space bar: the whole key range from MinKey to MaxKey as one strip, cut into
//! chunks coloured by their shard. New inserts show as ticks on the chunks that took them.
//!
//! The strip is drawn on a canvas: while a workload plays, every segment and tick moves on
//! every tick, and a few hundred positioned elements would each need restyling, layout and
//! paint. Hovering the strip names the chunk under the pointer.

use crate::i18n::{Words, K};
use crate::palette::SHARD_COLOURS;
use crate::state::Action;
use shardlab_protocol::{BarFrame, Frame, Inspecting};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

/// The strip's height in CSS pixels (the stylesheet's `.bar`).
const HEIGHT: f64 = 34.0;

/// Properties of [`KeyBar`].
#[derive(Properties, PartialEq)]
pub struct KeyBarProps {
    /// The picture to draw.
    pub frame: Rc<Frame>,
    /// Where the document just inserted landed, in [0, 1], marked on the strip.
    #[prop_or_default]
    pub mark: Option<f64>,
    /// Where a click on the strip goes: it opens the chunk, or the document of the tick,
    /// under the pointer in the inspector.
    #[prop_or_default]
    pub dispatch: Option<Callback<Action>>,
}

/// How close, in CSS pixels, a click must come to a tick to open its document.
const TICK_REACH: f64 = 4.0;

/// The segments to draw: with many chunks, neighbours on the same shard are merged, since
/// each would be under a pixel wide.
pub fn segments(v: &Frame) -> Vec<BarFrame> {
    let mut segments: Vec<BarFrame> = Vec::with_capacity(v.bar.len());
    for b in &v.bar {
        match segments.last_mut() {
            Some(last) if v.bar.len() > 150 && last.shard == b.shard => {
                last.hi = b.hi;
                last.gained += b.gained;
            }
            _ => segments.push(b.clone()),
        }
    }
    segments
}

/// The narrowest chunk, in CSS pixels, that gets a white line at its end.
const SEPARATED_FROM: f64 = 4.0;

/// Draws the strip `width` CSS pixels wide (one pixel before it is laid out), with the
/// latest insert's `mark` as a fraction of the key space.
pub fn draw(canvas: &HtmlCanvasElement, v: &Frame, mark: Option<f64>, width: f64) {
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let ratio = crate::screen::pixel_ratio();
    let (px_w, px_h) = (
        (width * ratio).round() as u32,
        (HEIGHT * ratio).round() as u32,
    );
    if canvas.width() != px_w || canvas.height() != px_h {
        canvas.set_width(px_w);
        canvas.set_height(px_h);
    }
    let _ = ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, width, HEIGHT);
    // Each fill style is set once and every rectangle of it drawn in a run: a canvas call
    // costs a crossing into JavaScript (and a string, for a style), and hundreds of
    // segments restyled one by one cost more than drawing them.
    let rects: Vec<(f64, f64, usize, bool)> = segments(v)
        .iter()
        .map(|b| {
            // Edges snapped to device pixels, so that neighbours meet without an
            // anti-aliased seam (white gaps once there are many chunks).
            let snap = |f: f64| (f * width * ratio).round() / ratio;
            let x = snap(b.lo);
            let w = (snap(b.hi) - x).max(1.0 / ratio);
            (x, w, b.shard as usize % SHARD_COLOURS.len(), b.gained > 0)
        })
        .collect();
    for (colour, fill) in SHARD_COLOURS.iter().enumerate() {
        ctx.set_fill_style_str(fill);
        for hot in [false, true] {
            ctx.set_global_alpha(if hot { 1.0 } else { 0.85 });
            for &(x, w, _, _) in rects.iter().filter(|r| r.2 == colour && r.3 == hot) {
                ctx.fill_rect(x, 0.0, w, HEIGHT);
            }
        }
    }
    ctx.set_global_alpha(1.0);
    ctx.set_fill_style_str("rgba(0, 0, 0, 0.35)");
    for &(x, w, _, _) in rects.iter().filter(|r| r.3) {
        ctx.fill_rect(x, HEIGHT - 5.0, w, 5.0);
    }
    // A white line between chunks wide enough to show one; narrower chunks meet without,
    // or their lines would turn the strip white.
    ctx.set_fill_style_str("#ffffff");
    for &(x, w, _, _) in rects.iter().filter(|r| r.1 >= SEPARATED_FROM) {
        ctx.fill_rect(x + w - 1.0, 0.0, 1.0, HEIGHT);
    }
    for (new, top, h, colour) in [
        (false, 3.0, 9.0, "rgba(255, 255, 255, 0.55)"),
        (true, 2.0, 14.0, "#111111"),
    ] {
        ctx.set_fill_style_str(colour);
        for t in v.ticks.iter().filter(|t| t.fresh == new) {
            ctx.fill_rect(t.at * width - 1.0, top, 2.0, h);
        }
    }
    // The document just inserted: a dark bar with a white edge, over everything.
    if let Some(x) = mark {
        let x = (x * width).clamp(2.0, (width - 2.0).max(2.0));
        ctx.set_fill_style_str("#ffffff");
        ctx.fill_rect(x - 3.0, 0.0, 6.0, HEIGHT);
        ctx.set_fill_style_str("#b3001b");
        ctx.fill_rect(x - 2.0, 0.0, 4.0, HEIGHT);
    }
}

/// The key-space bar.
#[function_component(KeyBar)]
pub fn key_bar(props: &KeyBarProps) -> Html {
    let w = super::lang_switch::use_words();
    let canvas = use_node_ref();
    use_strip_drawing(&canvas, &props.frame, props.mark);
    let v = &props.frame;
    if !v.sharded {
        return html! {};
    }
    let on_hover = hover_callback(w, props.frame.clone());
    let on_click = props
        .dispatch
        .clone()
        .map(|dispatch| click_callback(props.frame.clone(), dispatch));
    let caption = if v.hashed {
        w.t(K::KeyBarHashedKeySpaceLong9223372036854775808)
    } else {
        w.t(K::KeyBarKeySpaceFromMinkeyTo)
    };
    html! {
        <section class="panel keybar" aria-label={w.t(K::KeyBarKeySpace)}>
            <div class="keybar-head">
                <span class="keybar-title">{ w.tf(K::KeyBarKeySpaceOfKey, &[("key", &v.key)]) }</span>
                <span class="keybar-caption">{ caption }</span>
            </div>
            <div class="bar" data-testid="key-bar" data-hashed={v.hashed.to_string()} role="img"
                data-mark={props.mark.map(|m| format!("{m:.6}"))}
                aria-label={w.tf(K::CompareViewNAcrossTheKeySpace, &[("n", &(w.count(v.bar.len() as u64, "chunk")))])}>
                <canvas ref={canvas} class="bar-canvas" onmousemove={on_hover} onclick={on_click}></canvas>
            </div>
            <div class="bar-ends"><span>{ "MinKey()" }</span><span>{ "MaxKey()" }</span></div>
        </section>
    }
}

/// Draws `frame` (and `mark`) on the canvas whenever either changes, and again at the new
/// size whenever the window is resized.
#[hook]
fn use_strip_drawing(canvas: &NodeRef, frame: &Rc<Frame>, mark: Option<f64>) {
    // The strip's width, measured when first drawn and on each resize only: reading it on
    // every tick would force a layout in the middle of rendering.
    let width = use_mut_ref(|| None::<f64>);
    {
        let canvas = canvas.clone();
        let width = width.clone();
        use_effect_with((frame.clone(), mark), move |(view, mark)| {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let w = *width
                    .borrow_mut()
                    .get_or_insert_with(|| f64::from(c.client_width().max(1)));
                draw(&c, view, *mark, w);
            }
            || ()
        });
    }
    // A new width redraws the strip at the new size.
    let canvas = canvas.clone();
    let view = frame.clone();
    use_effect_with((frame.clone(), mark), move |_| {
        let listener =
            gloo::events::EventListener::new(&gloo::utils::window(), "resize", move |_| {
                if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                    let w = f64::from(c.client_width().max(1));
                    *width.borrow_mut() = Some(w);
                    draw(&c, &view, mark, w);
                }
            });
        move || drop(listener)
    });
}

/// Hovering names the chunk under the pointer (and its shard) in the canvas's title.
fn hover_callback(w: Words, view: Rc<Frame>) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let Some(c) = e.target_dyn_into::<HtmlCanvasElement>() else {
            return;
        };
        let x = f64::from(e.offset_x()) / f64::from(c.client_width().max(1));
        let i = view.bar.partition_point(|b| b.lo <= x).saturating_sub(1);
        if let Some(b) = view.bar.get(i) {
            let shard = view
                .shards
                .iter()
                .find(|s| s.index == b.shard)
                .map_or("", |s| s.name.as_str());
            c.set_title(&w.tf(
                K::KeyBarChunkStartingAtMinOn,
                &[("min", &b.min), ("shard", &shard)],
            ));
        }
    })
}

/// A click inspects the document of the nearest tick within reach, or else the chunk under
/// the pointer.
fn click_callback(view: Rc<Frame>, dispatch: Callback<Action>) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let Some(c) = e.target_dyn_into::<HtmlCanvasElement>() else {
            return;
        };
        let width = f64::from(c.client_width().max(1));
        let x = f64::from(e.offset_x()) / width;
        let near = view
            .ticks
            .iter()
            .enumerate()
            .map(|(i, t)| (i, ((t.at - x) * width).abs()))
            .filter(|(_, d)| *d <= TICK_REACH)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let subject = match near.and_then(|(i, _)| view.ticks.get(i)) {
            Some(t) => Inspecting::Chunk {
                key: t.chunk.clone(),
                skip: None,
                mark: Some(t.seq),
            },
            None => {
                let i = view.bar.partition_point(|b| b.lo <= x).saturating_sub(1);
                let Some(b) = view.bar.get(i) else { return };
                Inspecting::Chunk {
                    key: b.key.clone(),
                    skip: None,
                    mark: None,
                }
            }
        };
        dispatch.emit(Action::Inspect(Some(subject)));
    })
}
