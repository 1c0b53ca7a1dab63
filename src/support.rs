//! The lowest layer: general-purpose pieces that know nothing of BSON or sharding. A
//! seeded random number generator, a sorted set of addresses, and an ordered map whose clones
//! share storage, the work budget every statement runs under, and what the core knows of
//! the browser's engine loading in parts.

pub mod budget;
pub mod part;
pub(crate) mod ptr_set;
pub(crate) mod rng;
pub(crate) mod shared_map;

pub use rng::SplitMix64;
