//! The playground's components.

pub mod app;
pub mod cluster_view;
pub mod console;
pub mod controls;
pub mod insights;
pub mod key_bar;
pub mod timeline_panel;
pub mod workload_panel;

pub use app::App;
