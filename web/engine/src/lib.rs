//! ShardLab's engine: the core behind the protocol.
//!
//! One [`Engine`] owns every session of a page: the page's own, each Compare run and,
//! later, each documentation element. Views send it [`shardlab_protocol::Request`]s and get
//! [`shardlab_protocol::Response`]s and pushed events back. In the browser it runs in a
//! dedicated Web Worker (`worker`, wasm32 only) or, where workers are forbidden, in the
//! page through the same messages; natively it is what the protocol's tests drive.
//!
//! Layers, lowest first: `view_model` (pure pictures of a cluster), `frames` (those
//! pictures as protocol frames, with what changed), `queries` and `insight` (the
//! engine's read-only answers), `held` (one session's timeline and figures), `import`
//! (the user's documents into a session), `cluster_import` (a real cluster's metadata
//! into a session), `panels`
//! (the page's side panels), `script` (the JavaScript module's runs and reads),
//! `rank` (candidate shard keys ranked on a collection's documents), `comparison`, `later`
//! (the imports, the ranking and the Compare's run, which the browser's module loads after
//! the first answer), `playground` (the playground's session: the
//! page's acts and the view it draws), `service` (sessions and dispatch), `rest` (the browser module's second
//! part: `$regex`'s matcher and `later`'s answers, loaded after the first answer), `worker` (the wasm
//! entry). A module imports only from those before it.

pub mod cluster_import;
pub mod comparison;
pub mod export;
pub mod frames;
pub mod held;
pub mod import;
#[cfg(feature = "insight")]
pub mod insight;
pub mod later;
pub mod panels;
pub mod playground;
pub mod queries;
pub mod rank;
#[cfg(all(target_arch = "wasm32", feature = "split"))]
#[allow(unsafe_code)]
mod rest;
pub mod script;
pub mod service;
pub mod view_model;
#[cfg(all(target_arch = "wasm32", feature = "worker"))]
pub mod worker;

pub use service::Engine;
