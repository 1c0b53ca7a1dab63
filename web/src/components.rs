//! The playground's components: each draws a slice of the page's state and the engine's
//! answers to its own queries.

pub mod app;
pub mod candidates;
pub mod cluster_view;
pub mod compare_view;
pub mod console;
pub mod controls;
pub mod guide;
pub mod heatmap;
pub mod import_dialog;
pub mod insights;
pub mod inspector;
pub mod key_bar;
pub mod lang_switch;
pub mod lazy;
pub mod notice;
pub mod panel_props;
pub mod presenter;
pub mod query;
pub mod query_box;
pub mod recent;
pub mod reveal;
pub mod scenes_panel;
pub mod share_bar;
pub mod shortcuts_help;
pub mod tabs;
pub mod term;
pub mod timeline_panel;
pub mod workload_panel;
pub mod workshop;

pub use app::App;
