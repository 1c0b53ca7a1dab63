//! The key space over time: a heatmap of where each step's inserts landed.

use crate::state::{Action, Playground};
use yew::prelude::*;

/// Properties of [`Heatmap`].
#[derive(Properties, Clone)]
pub struct HeatmapProps {
    /// The page state.
    pub state: Playground,
    /// Where actions go (a click on a cell jumps to its step).
    pub dispatch: Callback<Action>,
}

impl PartialEq for HeatmapProps {
    fn eq(&self, other: &Self) -> bool {
        self.state.calm_rev(crate::state::Calm::Insights)
            == other.state.calm_rev(crate::state::Calm::Insights)
    }
}

/// The heatmap panel (being built).
#[function_component(Heatmap)]
pub fn heatmap(_props: &HeatmapProps) -> Html {
    html! {}
}
