//! Exports the cluster view as a standalone SVG picture, for slides.

use crate::i18n::{Words, K};
use crate::palette::{heat_step, shard_colour, HEAT_ALPHAS, HOT_RGB};
use shardlab_protocol::{ChunkFrame, Frame};
use wasm_bindgen::{JsCast, JsValue};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Draws the shards as columns of chunk blocks, with the key-space bar on top.
pub fn cluster_svg(w: Words, view: &Frame, title: &str) -> String {
    const COL_W: f64 = 260.0;
    const GAP: f64 = 16.0;
    const CHUNK_H: f64 = 44.0;
    let shards = view.shards.len().max(1) as f64;
    let width = GAP + shards * (COL_W + GAP);
    let tallest = view
        .shards
        .iter()
        .map(|s| s.chunks.as_ref().map_or(0, Vec::len))
        .max()
        .unwrap_or(0) as f64;
    let height = 140.0 + tallest * (CHUNK_H + 6.0) + 20.0;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n<text x=\"{GAP}\" y=\"26\" font-size=\"18\" font-weight=\"700\" fill=\"#0a6e4f\">{}</text>\n",
        escape(title)
    );
    // The key-space bar.
    let bar_w = width - 2.0 * GAP;
    for b in &view.bar {
        out.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"40\" width=\"{:.1}\" height=\"18\" fill=\"{}\"/>\n",
            GAP + b.lo * bar_w,
            ((b.hi - b.lo) * bar_w).max(0.5),
            shard_colour(b.shard)
        ));
    }
    for (i, s) in view.shards.iter().enumerate() {
        let x = GAP + i as f64 * (COL_W + GAP);
        let colour = shard_colour(s.index);
        let chunks = s.chunks.as_deref().unwrap_or_default();
        out.push_str(&format!(
            "<rect x=\"{x}\" y=\"72\" width=\"{COL_W}\" height=\"{:.1}\" rx=\"8\" fill=\"#fafbfc\" stroke=\"#dde1e8\"/>\n<rect x=\"{x}\" y=\"72\" width=\"{COL_W}\" height=\"5\" fill=\"{colour}\"/>\n<text x=\"{:.1}\" y=\"98\" font-size=\"15\" font-weight=\"700\">{}</text>\n<text x=\"{:.1}\" y=\"116\" font-size=\"11\" fill=\"#5d6678\">{}</text>\n",
            height - 84.0,
            x + 10.0,
            escape(&s.name),
            x + 10.0,
            escape(&format!("{} · {} · {}", w.count(chunks.len() as u64, "chunk"), w.count(s.docs, "doc"), s.size))
        ));
        for (j, c) in chunks.iter().enumerate() {
            let y = 126.0 + j as f64 * (CHUNK_H + 6.0);
            out.push_str(&chunk_svg(w, c, x + 8.0, y, COL_W - 16.0, CHUNK_H, colour));
        }
    }
    out.push_str("</svg>\n");
    out
}

/// One chunk block at `(x, y)`, `width` by `h`: tinted by its heat as the page tints it, its
/// range, and its counts with the documents it just gained (`+25`) as the page shows them.
fn chunk_svg(w: Words, c: &ChunkFrame, x: f64, y: f64, width: f64, h: f64, colour: &str) -> String {
    let stroke = if c.jumbo {
        "#a2407a\" stroke-dasharray=\"5 3".to_string()
    } else if c.gained > 0 {
        format!("rgba({HOT_RGB}, 0.55)\" stroke-width=\"2")
    } else {
        "#dde1e8".to_string()
    };
    let fill = heat_step(c.gained).map_or("#ffffff".to_string(), |i| {
        format!("#ffffff\"/>\n<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{h}\" rx=\"5\" fill=\"rgba({HOT_RGB}, {})", HEAT_ALPHAS[i])
    });
    let mark = |on: bool, key: K| {
        if on {
            format!(" · {}", w.t(key))
        } else {
            String::new()
        }
    };
    let stats = format!(
        "{} · {}{}{}{}",
        w.count(c.docs, "doc"),
        c.size,
        mark(c.is_min, K::ClusterViewMinkeyChunk),
        mark(c.is_max, K::ClusterViewMaxkeyChunk),
        if c.jumbo {
            w.t(K::CompareViewJumbo2)
        } else {
            ""
        }
    );
    let gained = if c.gained > 0 {
        format!(
            "<tspan fill=\"#8f3b00\" font-weight=\"700\"> +{}</tspan>",
            c.gained
        )
    } else {
        String::new()
    };
    format!(
        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{h}\" rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\"/>\n<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"4\" height=\"{h}\" fill=\"{colour}\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10.5\" font-family=\"Menlo, monospace\">{}</text>\n<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10.5\" fill=\"#5d6678\">{}{gained}</text>\n",
        x + 8.0,
        y + 17.0,
        escape(&format!("[{}, {})", c.min, c.max)),
        x + 8.0,
        y + 34.0,
        escape(&stats),
    )
}

/// A `blob:` address of `text` as a file of type `mime`, for a download link: the
/// components' way to the platform's [`crate::share::download_url`].
pub fn download_url(mime: &str, text: &str) -> String {
    crate::share::download_url(mime, text)
}

/// Starts a download of `data` (a data: URL) as `name`.
pub fn download(name: &str, href: &str) {
    let document = gloo::utils::document();
    if let Ok(a) = document.create_element("a") {
        if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
            a.set_href(href);
            a.set_download(name);
            a.click();
        }
    }
}

/// Copies text to the clipboard where the browser allows it; failures are harmless since
/// the link is also shown and put in the address bar.
pub fn copy_to_clipboard(text: &str) {
    let navigator = gloo::utils::window().navigator();
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .unwrap_or(JsValue::UNDEFINED);
    if clipboard.is_undefined() {
        return;
    }
    if let Ok(write) = js_sys::Reflect::get(&clipboard, &JsValue::from_str("writeText")) {
        if let Some(f) = write.dyn_ref::<js_sys::Function>() {
            // The returned promise is dropped: a refusal must not disturb the page.
            let _ = f.call1(&clipboard, &JsValue::from_str(text));
        }
    }
}

/// The page's address without its query string.
pub fn base_url(lang: crate::i18n::Lang) -> String {
    let location = gloo::utils::window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    // A link opens in the language it was made in (English needs no word).
    match lang {
        crate::i18n::Lang::En => format!("{origin}{path}"),
        lang => format!("{origin}{path}?lang={}", lang.tag()),
    }
}

/// Puts `fragment` (`#s=…`) in the address bar in place of the address's own, without a
/// new entry in the history.
pub fn show_in_address(fragment: &str) {
    if let Ok(history) = gloo::utils::window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(fragment));
    }
}

/// Renders the SVG onto a canvas and downloads it as a PNG.
pub fn export_png(svg: String) {
    let document = gloo::utils::document();
    let Ok(img) = document
        .create_element("img")
        .map(|e| e.unchecked_into::<web_sys::HtmlImageElement>())
    else {
        return;
    };
    let src = download_url("image/svg+xml", &svg);
    let img2 = img.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let document = gloo::utils::document();
        let Ok(canvas) = document
            .create_element("canvas")
            .map(|e| e.unchecked_into::<web_sys::HtmlCanvasElement>())
        else {
            return;
        };
        canvas.set_width(img2.natural_width() * 2);
        canvas.set_height(img2.natural_height() * 2);
        if let Ok(Some(ctx)) = canvas.get_context("2d") {
            if let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() {
                let _ = ctx.scale(2.0, 2.0);
                let _ = ctx.draw_image_with_html_image_element(&img2, 0.0, 0.0);
                if let Ok(url) = canvas.to_data_url() {
                    download("shardlab-cluster.png", &url);
                }
            }
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&src);
}
