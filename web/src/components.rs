//! The playground's components.

pub mod app;
pub mod chunk_block;
pub mod controls;
pub mod shard_column;

pub use app::App;
