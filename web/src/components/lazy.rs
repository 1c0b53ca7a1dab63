//! Panels in parts of their own: the panels that need a click are split from the page's
//! module (feature `split`, which only `scripts/build-page.mjs` turns on) and load on first
//! use, or when the page is idle after the engine's first answer ([`prefetch`]).
//!
//! Each panel is a [`Part`]: a `#[wasm_split]` function that `wasm-split-cli` moves, with
//! everything only it reaches, into a `split_<name>.wasm` of its own. [`Lazy`] draws a
//! short "loading" line in the panel's place until its part has loaded, then the panel; a
//! part that fails to load says why, with a button that tries again, and is tried again on
//! the panel's next use. The first render is always the line, on the server (the first
//! screen) as in the browser, so that hydration matches. Without `split` the "part" is
//! the panel itself, ready on the next turn of the event loop.
//!
//! The attribute expands to an import that the splitter rewrites and an `extern "C"`
//! export: code the macro writes, hence the `unsafe_code` allowance on this module only.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::thread::LocalKey;

use yew::prelude::*;
use yew::virtual_dom::VComp;

use super::candidates::{Candidates, CandidatesProps};
use super::compare_view::{CompareView, CompareViewProps};
use super::guide::{Guide, GuideProps};
use super::heatmap::{Heatmap, HeatmapProps};
use super::insights::{Insights, InsightsProps};
use super::inspector::{Inspector, InspectorProps};
use super::scenes_panel::{ScenesPanel, ScenesProps};
use crate::i18n::{t, tf, K};

/// A part that did not load (the loader's reason is in [`last_error`]).
#[derive(Debug)]
pub struct NotLoaded;

#[cfg(feature = "split")]
impl From<wasm_split_helpers::SplitLoaderError> for NotLoaded {
    fn from(_: wasm_split_helpers::SplitLoaderError) -> Self {
        NotLoaded
    }
}

/// A panel's view, once its part has loaded: a function of the part's.
pub type Render<P> = fn(&Rc<P>) -> Html;

/// What loading a part gives.
type Loading<P> = Pin<Box<dyn Future<Output = Result<Render<P>, NotLoaded>>>>;

/// One panel in a part of its own: its view once loaded, and how to load it.
pub struct Part<P: 'static> {
    /// The part's name, as the build names its file (`split_<name>.wasm`).
    pub name: &'static str,
    /// The panel's view, once the part has loaded.
    loaded: &'static LocalKey<Cell<Option<Render<P>>>>,
    /// Loads the part (once; a failed load is tried again on the next call).
    load: fn() -> Loading<P>,
}

impl<P> Part<P> {
    /// The panel's view, if its part has loaded.
    pub fn ready(&self) -> Option<Render<P>> {
        self.loaded.with(Cell::get)
    }

    /// Loads the part and keeps the panel's view.
    pub async fn fetch(&'static self) -> Result<Render<P>, NotLoaded> {
        if let Some(render) = self.ready() {
            return Ok(render);
        }
        let render = (self.load)().await?;
        self.loaded.with(|l| l.set(Some(render)));
        Ok(render)
    }
}

/// Declares a panel's part: `part!(NAME, module, Props, Component)`.
macro_rules! part {
    ($(#[$doc:meta])* $name:ident, $module:ident, $props:ty, $panel:ident) => {
        $(#[$doc])*
        pub static $name: Part<$props> = {
            thread_local! {
                static LOADED: Cell<Option<Render<$props>>> = const { Cell::new(None) };
            }
            /// Runs in the part: everything only the panel names moves there with it.
            #[cfg(feature = "split")]
            #[wasm_split_helpers::wasm_split($module, fallible)]
            fn load() -> Result<Render<$props>, NotLoaded> {
                Ok(|props: &Rc<$props>| VComp::new::<$panel>(Rc::clone(props), None).into())
            }
            /// Without `split`, the panel is in the one module.
            #[cfg(not(feature = "split"))]
            async fn load() -> Result<Render<$props>, NotLoaded> {
                Ok(|props: &Rc<$props>| VComp::new::<$panel>(Rc::clone(props), None).into())
            }
            Part {
                name: stringify!($module),
                loaded: &LOADED,
                load: || Box::pin(load()),
            }
        };
    };
}

part!(
    /// The Compare tab.
    COMPARE, compare, CompareViewProps, CompareView
);
part!(
    /// The guided lesson.
    GUIDE, guide, GuideProps, Guide
);
part!(
    /// The chunk inspector.
    INSPECTOR, inspector, InspectorProps, Inspector
);
part!(
    /// The insights' charts.
    INSIGHTS, insights, InsightsProps, Insights
);
part!(
    /// The heatmap.
    HEATMAP, heatmap, HeatmapProps, Heatmap
);
part!(
    /// The Workshop scenes panel.
    SCENES, scenes, ScenesProps, ScenesPanel
);
part!(
    /// The Candidate keys panel.
    CANDIDATES, candidates, CandidatesProps, Candidates
);

thread_local! {
    /// Whether the engine has answered once: the panels that are always there load from
    /// then on (before it, only a panel opened by a click loads).
    static AFTER_FIRST_ANSWER: Cell<bool> = const { Cell::new(false) };
    /// The panels waiting for the first answer, told when it comes.
    static WAITING: RefCell<Vec<Callback<()>>> = const { RefCell::new(Vec::new()) };
}

/// Loads every part, run while the page is idle after the engine's first answer: the
/// panels that are always there load theirs, then the parts of the panels a click opens
/// (Compare, the guide) load one after the other, so that the click finds its panel
/// ready. A part that fails here is tried again when its panel is used.
pub fn prefetch() {
    if AFTER_FIRST_ANSWER.with(|a| a.replace(true)) {
        return;
    }
    for waiting in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        waiting.emit(());
    }
    wasm_bindgen_futures::spawn_local(async {
        let _ = COMPARE.fetch().await;
        let _ = GUIDE.fetch().await;
    });
}

/// Runs `f` when the browser is next idle (`requestIdleCallback`, or a moment later where
/// there is none).
pub fn when_idle(f: fn()) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let callback = Closure::once_into_js(f);
    let window = gloo::utils::window();
    if window
        .request_idle_callback(callback.unchecked_ref())
        .is_err()
    {
        gloo::timers::callback::Timeout::new(200, f).forget();
    }
}

/// Why the latest part failed to load, as the loader said it (the page's
/// `__wasm_split.js`, rewritten by the build), if it said.
pub fn last_error() -> Option<String> {
    let why = js_sys::Reflect::get(&js_sys::global(), &"shardlabPartError".into()).ok()?;
    why.as_string()
}

/// Properties of [`Lazy`].
#[derive(Properties)]
pub struct LazyProps<P: PartialEq + 'static> {
    /// The panel's part.
    pub part: &'static Part<P>,
    /// The panel's properties.
    pub props: Rc<P>,
    /// Whether the panel is there before any click (the inspector, the insights, ...):
    /// it then loads after the engine's first answer, not at once.
    #[prop_or_default]
    pub always: bool,
}

impl<P: PartialEq + 'static> PartialEq for LazyProps<P> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.part, other.part)
            && self.props == other.props
            && self.always == other.always
    }
}

/// Where a part is.
#[derive(Clone, PartialEq)]
enum Status {
    /// Not loaded yet, or loading.
    Loading,
    /// Loaded.
    Ready,
    /// It failed, for this reason (if the loader gave one).
    Failed(Option<String>),
}

/// A panel in a part of its own: a short "loading" line until the part has loaded, then
/// the panel; a part that fails says why and offers to try again.
#[function_component]
pub fn Lazy<P: PartialEq + 'static>(props: &LazyProps<P>) -> Html {
    let _lang = crate::i18n::use_lang();
    let part = props.part;
    // Until its part is in, the line: so on the server and in the first render after it,
    // which hydrates the first screen's HTML (no part has loaded by then). A panel opened
    // again once its part is in draws at once.
    let status = use_state(|| {
        if part.ready().is_some() {
            Status::Ready
        } else {
            Status::Loading
        }
    });
    let attempt = use_state(|| 0_u32);
    {
        let status = status.clone();
        let always = props.always;
        use_effect_with(*attempt, move |_| {
            let go = move || {
                let status = status.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    status.set(match part.fetch().await {
                        Ok(_) => Status::Ready,
                        Err(NotLoaded) => Status::Failed(last_error()),
                    });
                });
            };
            if part.ready().is_some() || !always || AFTER_FIRST_ANSWER.with(Cell::get) {
                go();
            } else {
                WAITING.with(|w| w.borrow_mut().push(Callback::from(move |()| go())));
            }
        });
    }
    match (&*status, part.ready()) {
        (Status::Ready, Some(render)) => render(&props.props),
        (Status::Failed(why), _) => {
            let retry = {
                let (status, attempt) = (status.clone(), attempt.clone());
                Callback::from(move |_: MouseEvent| {
                    status.set(Status::Loading);
                    attempt.set(*attempt + 1);
                })
            };
            let why = why
                .clone()
                .unwrap_or_else(|| t(K::LazyTheNetworkOrTheServer).to_string());
            html! {
                <div class="lazy-part failed" role="alert" data-testid="part-failed" data-part={part.name}>
                    <p>{ tf(K::LazyThisPanelCouldNotLoad, &[("why", &why)]) }</p>
                    <button class="secondary" data-testid="part-retry" onclick={retry}>{ t(K::LazyTryAgain) }</button>
                </div>
            }
        }
        _ => html! {
            <div class="lazy-part" role="status" data-testid="part-loading" data-part={part.name}>
                { t(K::LazyLoadingThisPanel) }
            </div>
        },
    }
}
