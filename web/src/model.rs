//! The lowest layer: the page's state and its pure update. It imports nothing from the
//! layers above (platform, effects, components).

pub mod asking;
pub mod compare;
pub mod demo;
pub mod i18n;
pub mod notices;
pub mod opening;
pub mod options;
pub mod palette;
pub mod queries;
pub mod saved;
pub mod scenes;
pub mod state;
pub mod update;
pub mod words;
