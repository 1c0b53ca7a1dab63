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

use std::rc::Rc;

use yew::prelude::*;
use yew::virtual_dom::VComp;

use super::candidates::{Candidates, CandidatesProps};
use super::compare_view::{CompareView, CompareViewProps};
use super::guide::{Guide, GuideProps};
use super::heatmap::{Heatmap, HeatmapProps};
use super::insights::{Insights, InsightsProps};
use super::inspector::{Inspector, InspectorProps};
use super::scenes_panel::{ScenesPanel, ScenesProps};
use crate::i18n::K;
use crate::loading::{last_error, load_when_due, NotLoaded};

/// A panel's view, once its part has loaded: a function of the part's.
pub type Render<P> = fn(&Rc<P>) -> Html;

/// One panel in a part of its own (see [`crate::effects::loading::Part`]).
pub type Part<P> = crate::effects::loading::Part<Render<P>>;

/// Declares a panel's part: `part!(NAME, module, Props, Component)`.
macro_rules! part {
    ($(#[$doc:meta])* $name:ident, $module:ident, $props:ty, $panel:ident) => {
        $(#[$doc])*
        pub static $name: Part<$props> = {
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
            Part::new(stringify!($module), || Box::pin(load()))
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

/// Loads every part, run while the page is idle after the engine's first answer: the
/// panels that are always there load theirs (each started in a task of its own), then,
/// when the page is next idle, the parts of the panels a click opens (Compare, the guide)
/// load one after the other, so that the click finds its panel ready. A part that fails
/// here is tried again when its panel is used.
pub fn prefetch() {
    if !crate::loading::first_answered() {
        return;
    }
    when_idle(prefetch_clicked);
}

/// Loads the parts of the panels a click opens, one after the other.
fn prefetch_clicked() {
    wasm_bindgen_futures::spawn_local(async {
        let _ = COMPARE.fetch().await;
        let _ = GUIDE.fetch().await;
    });
}

/// Runs `f` when the browser is next idle (`requestIdleCallback`, or a moment later where
/// there is none).
pub fn when_idle(f: fn()) {
    crate::loading::when_idle(f);
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
    let w = super::lang_switch::use_words();
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
            if part.ready().is_some() {
                go();
            } else {
                load_when_due(always, go);
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
                .unwrap_or_else(|| w.t(K::LazyTheNetworkOrTheServer).to_string());
            html! {
                <div class="lazy-part failed" role="alert" data-testid="part-failed" data-part={part.name}>
                    <p>{ w.tf(K::LazyThisPanelCouldNotLoad, &[("why", &why)]) }</p>
                    <button class="secondary" data-testid="part-retry" onclick={retry}>{ w.t(K::LazyTryAgain) }</button>
                </div>
            }
        }
        _ => html! {
            <div class="lazy-part" role="status" data-testid="part-loading" data-part={part.name}>
                { w.t(K::LazyLoadingThisPanel) }
            </div>
        },
    }
}
