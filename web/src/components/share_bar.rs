//! The share bar: copy a link, export or import the scenario as JSON, and export the
//! cluster picture as SVG or PNG.

use super::import_dialog::ImportDocuments;
use super::query::use_engine_query;
use crate::ask;
use crate::export::download_url;
use crate::i18n::{t, tf, K};
use crate::startup::Opening;
use crate::state::{Action, Notice, Playground};
use shardlab_protocol::{too_long, Call, Reply, MAX_SCENARIO_BYTES};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlInputElement;
use yew::prelude::*;

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
    // A link opens in the language it was made in (English needs no word).
    match crate::i18n::current() {
        crate::i18n::Lang::En => format!("{origin}{path}"),
        lang => format!("{origin}{path}?lang={}", lang.tag()),
    }
}

/// Properties of [`ShareBar`].
#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    /// The page state.
    pub state: Playground,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Opens an imported scenario (the engine replays it a slice at a time).
    pub on_import: Callback<Opening>,
}

/// The share bar.
#[function_component(ShareBar)]
pub fn share_bar(props: &ShareBarProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let link = use_state(|| None::<String>);
    let on_copy = copy_link_callback(link.clone(), props.state.clone(), props.dispatch.clone());
    let on_export_json = export_json_callback(props.state.clone(), props.dispatch.clone());
    let on_export_mongosh = export_mongosh_callback(props.state.clone(), props.dispatch.clone());
    let on_export_svg = {
        let state = props.state.clone();
        Callback::from(move |_| {
            let svg = picture_svg(&state);
            download("shardlab-cluster.svg", &download_url("image/svg+xml", &svg));
        })
    };
    let on_export_png = {
        let state = props.state.clone();
        Callback::from(move |_| export_png(picture_svg(&state)))
    };
    let on_import = import_callback(props.dispatch.clone(), props.on_import.clone());
    html! {
        <div class="share-bar" role="toolbar" aria-label={t(K::ShareBarShareAndExport)}>
            <button class="secondary" data-testid="share-link" onclick={on_copy}>{ t(K::ShareBarCopyLink) }</button>
            <span class="share-group" role="group" aria-label={t(K::ShareBarExportCaption)}>
                <span class="share-caption" aria-hidden="true">{ t(K::ShareBarExportCaption) }</span>
                <button class="secondary" data-testid="export-json" onclick={on_export_json}
                    title={t(K::ShareBarExportJsonLabel)}>{ t(K::ShareBarExportJson) }</button>
                <button class="secondary" data-testid="export-mongosh" onclick={on_export_mongosh}
                    title={t(K::ShareBarExportMongoshLabel)}>{ t(K::ShareBarExportMongosh) }</button>
                <button class="secondary" data-testid="export-svg" onclick={on_export_svg}>{ "SVG" }</button>
                <button class="secondary" data-testid="export-png" onclick={on_export_png}>{ "PNG" }</button>
            </span>
            <span class="share-group" role="group" aria-label={t(K::ShareBarImportCaption)}>
                <span class="share-caption" aria-hidden="true">{ t(K::ShareBarImportCaption) }</span>
                <label class="button-like secondary" title={t(K::ShareBarOpenAScenarioExportedAs)}>
                    { t(K::ShareBarImportJson) }
                    <input type="file" accept="application/json,.json" data-testid="import-json" onchange={on_import}
                        disabled={props.state.replaying.is_some()} aria-label={t(K::ShareBarImportAScenarioJsonFile)} />
                </label>
                <ImportDocuments session={props.state.session.clone()} ns={props.state.settings.ns.clone()}
                    disabled={props.state.replaying.is_some()} dispatch={props.dispatch.clone()} />
            </span>
            if let Some(url) = &*link {
                <input class="share-url" readonly=true value={url.clone()} data-testid="share-url" aria-label={t(K::ShareBarShareLink)} />
            }
        </div>
    }
}

/// The cluster picture as SVG, titled with the namespace and its key: what both picture
/// exports draw.
fn picture_svg(state: &Playground) -> String {
    crate::export::cluster_svg(
        &state.frame,
        &tf(
            K::ShareBarPictureTitle,
            &[("ns", &state.settings.ns), ("key", &state.frame.key)],
        ),
    )
}

/// "Copy link": asks the engine for the link, copies it, puts it in the address bar and
/// shows it in `link`; an engine refusal becomes a notice.
fn copy_link_callback(
    link: UseStateHandle<Option<String>>,
    state: Playground,
    dispatch: Callback<Action>,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let link = link.clone();
        let dispatch = dispatch.clone();
        with_link(&state, false, move |answer| match answer {
            Ok(text) => {
                // In the fragment, which never reaches the server: no host refuses a long one.
                let fragment = format!("#s={text}");
                let url = format!("{}{fragment}", base_url());
                copy_to_clipboard(&url);
                crate::startup::clear_link_from_address();
                if let Ok(history) = gloo::utils::window().history() {
                    let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&fragment));
                }
                link.set(Some(url));
            }
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(e)))),
        })
    })
}

/// "Export JSON": downloads the engine's JSON form of the scenario; a refusal becomes a
/// notice.
fn export_json_callback(state: Playground, dispatch: Callback<Action>) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let dispatch = dispatch.clone();
        with_link(&state, true, move |answer| match answer {
            Ok(json) => download(
                "shardlab-scenario.json",
                &download_url("application/json", &json),
            ),
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(e)))),
        })
    })
}

/// "Export for mongosh": downloads the engine's mongosh script of the session up to the
/// cursor, which builds the same scenario on a real sharded cluster; a refusal (nothing
/// to export yet) becomes a notice.
fn export_mongosh_callback(state: Playground, dispatch: Callback<Action>) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let dispatch = dispatch.clone();
        ask::ask(&state.session, Call::Export, move |answer| match answer {
            Ok(Reply::Export { text }) => download(
                "shardlab-scenario.mongosh.js",
                &download_url("text/javascript", &text),
            ),
            Ok(_) => {}
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(tf(
                K::ShareBarExportMongoshRefused,
                &[("error", &e.message)],
            ))))),
        });
    })
}

/// "Import JSON": reads the chosen file and opens it, then clears the input so that the
/// same file can be chosen again.
fn import_callback(dispatch: Callback<Action>, on_import: Callback<Opening>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        // A file too large to open is refused by its size, unread (a file of gigabytes
        // would not fit in the page's memory), in the engine's words.
        if file.size() > MAX_SCENARIO_BYTES as f64 {
            let error = too_long("the scenario", file.size() as u64, MAX_SCENARIO_BYTES);
            dispatch.emit(Action::Notice(Some(Notice::plain(tf(
                K::DriverImportRefusedKept,
                &[("error", &error.message)],
            )))));
            input.set_value("");
            return;
        }
        let dispatch = dispatch.clone();
        let on_import = on_import.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
            match text.ok().and_then(|t| t.as_string()) {
                // The engine reads it: a file it cannot read gives a notice then.
                Some(text) => on_import.emit(crate::startup::import(&text)),
                None => dispatch.emit(Action::Notice(Some(Notice::plain(t(
                    K::ShareBarThatFileCouldNotBe,
                ))))),
            }
        });
        input.set_value("");
    })
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

/// Asks the engine for the session's shareable form (the link form, or the JSON form of an
/// export), with the page's own state; `done` gets it or MongoDB's words on why not.
fn with_link(state: &Playground, json: bool, done: impl FnOnce(Result<String, String>) + 'static) {
    ask::ask(
        &state.session.clone(),
        Call::Scenario {
            page: state.page_entries(),
            json,
        },
        move |answer| {
            done(match answer {
                Ok(Reply::Scenario { text }) => Ok(text),
                Ok(_) => Err(t(K::ShareBarTheEngineAnsweredSomethingElse).to_string()),
                Err(e) => Err(e.message),
            })
        },
    );
}

/// Properties of [`OpenLink`].
#[derive(Properties, PartialEq)]
pub struct OpenLinkProps {
    /// The page state.
    pub state: Playground,
}

/// The embedded view's "Open in ShardLab" link: the same scenario in the full page.
#[function_component(OpenLink)]
pub fn open_link(props: &OpenLinkProps) -> Html {
    let _lang = crate::i18n::use_lang();
    let state = &props.state;
    let answer = use_engine_query(
        (state.rev, state.session.clone()),
        state.session.clone(),
        state.ready && state.replaying.is_none(),
        {
            let (page,) = (state.page_entries(),);
            move || Call::Scenario { page, json: false }
        },
    );
    let href = match answer.as_deref() {
        Some(Ok(Reply::Scenario { text })) => format!("{}#s={text}", base_url()),
        _ => base_url(),
    };
    html! {
        <a class="open-link" href={href} target="_blank" rel="noopener" data-testid="open-in-shardlab">{ t(K::ShareBarOpenInShardlab) }</a>
    }
}
