//! The browser's services the page uses: storage, the address and its options, the crash
//! record, the keyboard, and the one client of the engine. It imports only the model.

pub mod engine_client;
pub mod network;
pub mod recovery;
pub mod scene_channel;
pub mod sessions;
pub mod share;
pub mod shortcuts;
pub mod storage;
