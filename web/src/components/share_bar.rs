//! The share bar: copy a link, export or import the scenario as JSON, and export the
//! cluster picture as SVG or PNG.

use crate::share::{data_url, scenario_of, share_query};
use crate::startup::Pending;
use crate::state::{Action, Notice, Playground};
use shardlab::sim::to_json;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Starts a download of `data` (a data: URL) as `name`.
fn download(name: &str, href: &str) {
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
fn copy_to_clipboard(text: &str) {
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
pub fn base_url() -> String {
    let location = gloo::utils::window().location();
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    format!("{origin}{path}")
}

/// Properties of [`ShareBar`].
#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Runs the replay of an imported scenario a slice at a time (see
    /// [`crate::startup::Pending`]).
    pub on_replay: Callback<Pending>,
}

/// The share bar.
#[function_component(ShareBar)]
pub fn share_bar(props: &ShareBarProps) -> Html {
    let link = use_state(|| None::<String>);
    let on_copy = {
        let link = link.clone();
        let state = props.state.clone();
        Callback::from(move |_| {
            let query = share_query(&state);
            let url = format!("{}?{query}", base_url());
            copy_to_clipboard(&url);
            if let Ok(history) = gloo::utils::window().history() {
                let _ =
                    history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("?{query}")));
            }
            link.set(Some(url));
        })
    };
    let on_export_json = {
        let state = props.state.clone();
        Callback::from(move |_| {
            download(
                "shardlab-scenario.json",
                &data_url("application/json", &to_json(&scenario_of(&state))),
            )
        })
    };
    let on_export_svg = {
        let state = props.state.clone();
        Callback::from(move |_| {
            let svg = crate::export::cluster_svg(
                &state.view,
                &format!("ShardLab · {} on {}", state.settings.ns, state.view.key),
            );
            download("shardlab-cluster.svg", &data_url("image/svg+xml", &svg));
        })
    };
    let on_export_png = {
        let state = props.state.clone();
        Callback::from(move |_| {
            let svg = crate::export::cluster_svg(
                &state.view,
                &format!("ShardLab · {} on {}", state.settings.ns, state.view.key),
            );
            export_png(svg);
        })
    };
    let on_import = {
        let dispatch = props.dispatch.clone();
        let on_replay = props.on_replay.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let dispatch = dispatch.clone();
            let on_replay = on_replay.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                let problem = match text.ok().and_then(|t| t.as_string()) {
                    Some(text) => match crate::startup::import(&text) {
                        Ok(pending) => return on_replay.emit(pending),
                        Err(e) => format!("That file is not a ShardLab scenario: {e}"),
                    },
                    None => "That file could not be read.".to_string(),
                };
                dispatch.emit(Action::Notice(Some(Notice::plain(problem))));
            });
            input.set_value("");
        })
    };
    html! {
        <div class="share-bar" role="toolbar" aria-label="Share and export">
            <button class="secondary" data-testid="share-link" onclick={on_copy}>{ "Copy link" }</button>
            <button class="secondary" data-testid="export-json" onclick={on_export_json}>{ "Export JSON" }</button>
            <label class="button-like secondary" title="Open a scenario exported as JSON">
                { "Import JSON" }
                <input type="file" accept="application/json,.json" data-testid="import-json" onchange={on_import}
                    disabled={props.state.replaying.is_some()} aria-label="Import a scenario JSON file" />
            </label>
            <button class="secondary" data-testid="export-svg" onclick={on_export_svg}>{ "SVG" }</button>
            <button class="secondary" data-testid="export-png" onclick={on_export_png}>{ "PNG" }</button>
            if let Some(url) = &*link {
                <input class="share-url" readonly=true value={url.clone()} data-testid="share-url" aria-label="Share link" />
            }
        </div>
    }
}

/// Renders the SVG onto a canvas and downloads it as a PNG.
fn export_png(svg: String) {
    let document = gloo::utils::document();
    let Ok(img) = document
        .create_element("img")
        .map(|e| e.unchecked_into::<web_sys::HtmlImageElement>())
    else {
        return;
    };
    let src = data_url("image/svg+xml", &svg);
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
