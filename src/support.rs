//! The lowest layer: general-purpose pieces that know nothing of BSON or sharding. A
//! seeded random number generator, the crate's one sort, and an ordered map whose clones
//! share storage, and the work budget every statement runs under.

pub mod budget;
pub(crate) mod rng;
pub(crate) mod shared_map;
pub(crate) mod sort;

pub use rng::SplitMix64;
