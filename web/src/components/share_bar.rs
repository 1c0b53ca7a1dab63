//! The share bar: copy a link, export or import the scenario as JSON, and export the
//! cluster picture as SVG or PNG.

use super::import_dialog::ImportDocuments;
use super::query::{reply, use_in_sight};
use crate::ask;
use crate::export::{
    base_url, copy_to_clipboard, download, download_url, export_png, show_in_address,
};
use crate::i18n::{Words, K};
use crate::queries::{Answer, Asker};
use crate::startup::Opening;
use crate::state::{Action, Notice};
use shardlab_protocol::{too_long, Call, Frame, PageView, Reply, MAX_SCENARIO_BYTES};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// What the share bar and the embedded view's "Open in ShardLab" link need of the page:
/// the session, the page's own state a link carries, and the picture the exports draw.
#[derive(Clone, Debug)]
pub struct Sharing {
    /// The engine session shown.
    pub session: Rc<str>,
    /// The engine's latest view of it: the link is asked again when it changes (compared
    /// by pointer: every answer is a new one).
    pub view: Rc<PageView>,
    /// The page's own state a link or an export carries (tab, lesson step, forms).
    pub page: Vec<(String, String)>,
    /// The collection shown.
    pub ns: String,
    /// Its picture, which the SVG and PNG exports draw.
    pub frame: Rc<Frame>,
    /// Whether the session has answered and no replay runs.
    pub settled: bool,
    /// Whether a replay runs (imports wait for it).
    pub replaying: bool,
    /// The engine's latest link form of the scenario, for "Open in ShardLab".
    pub link: Option<Answer>,
}

impl PartialEq for Sharing {
    fn eq(&self, other: &Self) -> bool {
        self.session == other.session
            && Rc::ptr_eq(&self.view, &other.view)
            && self.page == other.page
            && self.ns == other.ns
            && (Rc::ptr_eq(&self.frame, &other.frame) || self.frame == other.frame)
            && self.settled == other.settled
            && self.link == other.link
            && self.replaying == other.replaying
    }
}

/// Properties of [`ShareBar`].
#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    /// What the bar shares.
    pub sharing: Rc<Sharing>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
    /// Opens an imported scenario (the engine replays it a slice at a time).
    pub on_import: Callback<Opening>,
}

/// The share bar.
#[function_component(ShareBar)]
pub fn share_bar(props: &ShareBarProps) -> Html {
    let w = super::lang_switch::use_words();
    let link = use_state(|| None::<String>);
    let on_copy = copy_link_callback(
        w,
        link.clone(),
        props.sharing.clone(),
        props.dispatch.clone(),
    );
    let on_export_json = export_json_callback(w, props.sharing.clone(), props.dispatch.clone());
    let on_export_mongosh =
        export_mongosh_callback(w, props.sharing.clone(), props.dispatch.clone());
    let on_export_svg = {
        let state = props.sharing.clone();
        Callback::from(move |_| {
            let svg = picture_svg(w, &state);
            download("shardlab-cluster.svg", &download_url("image/svg+xml", &svg));
        })
    };
    let on_export_png = {
        let state = props.sharing.clone();
        Callback::from(move |_| export_png(picture_svg(w, &state)))
    };
    let on_import = import_callback(w, props.dispatch.clone(), props.on_import.clone());
    html! {
        <div class="share-bar" role="toolbar" aria-label={w.t(K::ShareBarShareAndExport)}>
            <button class="secondary" data-testid="share-link" onclick={on_copy}>{ w.t(K::ShareBarCopyLink) }</button>
            <span class="share-group" role="group" aria-label={w.t(K::ShareBarExportCaption)}>
                <span class="share-caption" aria-hidden="true">{ w.t(K::ShareBarExportCaption) }</span>
                <button class="secondary" data-testid="export-json" onclick={on_export_json}
                    title={w.t(K::ShareBarExportJsonLabel)}>{ w.t(K::ShareBarExportJson) }</button>
                <button class="secondary" data-testid="export-mongosh" onclick={on_export_mongosh}
                    title={w.t(K::ShareBarExportMongoshLabel)}>{ w.t(K::ShareBarExportMongosh) }</button>
                <button class="secondary" data-testid="export-svg" onclick={on_export_svg}>{ "SVG" }</button>
                <button class="secondary" data-testid="export-png" onclick={on_export_png}>{ "PNG" }</button>
            </span>
            <span class="share-group" role="group" aria-label={w.t(K::ShareBarImportCaption)}>
                <span class="share-caption" aria-hidden="true">{ w.t(K::ShareBarImportCaption) }</span>
                <label class="button-like secondary" title={w.t(K::ShareBarOpenAScenarioExportedAs)}>
                    { w.t(K::ShareBarImportJson) }
                    <input type="file" accept="application/json,.json" data-testid="import-json" onchange={on_import}
                        disabled={props.sharing.replaying} aria-label={w.t(K::ShareBarImportAScenarioJsonFile)} />
                </label>
                <ImportDocuments session={props.sharing.session.clone()} ns={props.sharing.ns.clone()}
                    disabled={props.sharing.replaying} dispatch={props.dispatch.clone()} />
            </span>
            if let Some(url) = &*link {
                <input class="share-url" readonly=true value={url.clone()} data-testid="share-url" aria-label={w.t(K::ShareBarShareLink)} />
            }
        </div>
    }
}

/// The cluster picture as SVG, titled with the namespace and its key: what both picture
/// exports draw.
fn picture_svg(w: Words, state: &Sharing) -> String {
    crate::export::cluster_svg(
        w,
        &state.frame,
        &w.tf(
            K::ShareBarPictureTitle,
            &[("ns", &state.ns), ("key", &state.frame.key)],
        ),
    )
}

/// "Copy link": asks the engine for the link, copies it, puts it in the address bar and
/// shows it in `link`; an engine refusal becomes a notice.
fn copy_link_callback(
    w: Words,
    link: UseStateHandle<Option<String>>,
    state: Rc<Sharing>,
    dispatch: Callback<Action>,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let link = link.clone();
        let dispatch = dispatch.clone();
        with_link(w, &state, false, move |answer| match answer {
            Ok(text) => {
                // In the fragment, which never reaches the server: no host refuses a long one.
                let fragment = format!("#s={text}");
                let url = format!("{}{fragment}", base_url(w.lang()));
                copy_to_clipboard(&url);
                crate::startup::clear_link_from_address();
                show_in_address(&fragment);
                link.set(Some(url));
            }
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(e)))),
        })
    })
}

/// "Export JSON": downloads the engine's JSON form of the scenario; a refusal becomes a
/// notice.
fn export_json_callback(
    w: Words,
    state: Rc<Sharing>,
    dispatch: Callback<Action>,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let dispatch = dispatch.clone();
        with_link(w, &state, true, move |answer| match answer {
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
fn export_mongosh_callback(
    w: Words,
    state: Rc<Sharing>,
    dispatch: Callback<Action>,
) -> Callback<MouseEvent> {
    Callback::from(move |_| {
        let dispatch = dispatch.clone();
        ask::ask(&state.session, Call::Export, move |answer| match answer {
            Ok(Reply::Export { text }) => download(
                "shardlab-scenario.mongosh.js",
                &download_url("text/javascript", &text),
            ),
            Ok(_) => {}
            Err(e) => dispatch.emit(Action::Notice(Some(Notice::plain(
                w.tf(K::ShareBarExportMongoshRefused, &[("error", &e.message)]),
            )))),
        });
    })
}

/// "Import JSON": reads the chosen file and opens it, then clears the input so that the
/// same file can be chosen again.
fn import_callback(
    w: Words,
    dispatch: Callback<Action>,
    on_import: Callback<Opening>,
) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        // A file too large to open is refused by its size, unread (a file of gigabytes
        // would not fit in the page's memory), in the engine's words.
        if file.size() > MAX_SCENARIO_BYTES as f64 {
            let error = too_long("the scenario", file.size() as u64, MAX_SCENARIO_BYTES);
            dispatch.emit(Action::Notice(Some(Notice::plain(
                w.tf(K::DriverImportRefusedKept, &[("error", &error.message)]),
            ))));
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
                None => dispatch.emit(Action::Notice(Some(Notice::plain(
                    w.t(K::ShareBarThatFileCouldNotBe),
                )))),
            }
        });
        input.set_value("");
    })
}

/// Asks the engine for the session's shareable form (the link form, or the JSON form of an
/// export), with the page's own state; `done` gets it or MongoDB's words on why not.
fn with_link(
    w: Words,
    state: &Sharing,
    json: bool,
    done: impl FnOnce(Result<String, String>) + 'static,
) {
    ask::ask(
        &state.session.clone(),
        Call::Scenario {
            page: state.page.clone(),
            json,
        },
        move |answer| {
            done(match answer {
                Ok(Reply::Scenario { text }) => Ok(text),
                Ok(_) => Err(w.t(K::ShareBarTheEngineAnsweredSomethingElse).to_string()),
                Err(e) => Err(e.message),
            })
        },
    );
}

/// Properties of [`OpenLink`].
#[derive(Properties, PartialEq)]
pub struct OpenLinkProps {
    /// What the link opens.
    pub sharing: Rc<Sharing>,
    /// Dispatches an action.
    pub dispatch: Callback<Action>,
}

/// The embedded view's "Open in ShardLab" link: the same scenario in the full page.
#[function_component(OpenLink)]
pub fn open_link(props: &OpenLinkProps) -> Html {
    let w = super::lang_switch::use_words();
    use_in_sight(Asker::OpenLink, &props.dispatch);
    let href = match reply(&props.sharing.link) {
        Some(Ok(Reply::Scenario { text })) => format!("{}#s={text}", base_url(w.lang())),
        _ => base_url(w.lang()),
    };
    html! {
        <a class="open-link" href={href} target="_blank" rel="noopener" data-testid="open-in-shardlab">{ w.t(K::ShareBarOpenInShardlab) }</a>
    }
}
