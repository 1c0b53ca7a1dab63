//! The document inspector: a chunk's documents, where an insert landed, and why.

use crate::state::{Action, Playground};
use yew::prelude::*;

/// Properties of [`Inspector`].
#[derive(Properties, PartialEq, Clone)]
pub struct InspectorProps {
    /// The page state.
    pub state: Playground,
    /// Where actions go.
    pub dispatch: Callback<Action>,
}

/// The inspector panel (being built).
#[function_component(Inspector)]
pub fn inspector(_props: &InspectorProps) -> Html {
    html! {}
}
