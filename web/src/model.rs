//! The lowest layer: the page's state and its pure reducer. It imports nothing from the
//! layers above (platform, effects, components).

pub mod i18n;
pub mod palette;
pub mod scenes;
pub mod state;
pub mod words;
