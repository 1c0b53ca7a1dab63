//! BSON values as MongoDB sees them: their total order, exact decimal and float
//! arithmetic, the shard key hash, raw BSON access, dotted paths, and the text forms
//! MongoDB and mongosh print. Imports only [`crate::support`].

pub(crate) mod bigint;
pub(crate) mod decimal;
pub(crate) mod float;
pub(crate) mod hash;
pub(crate) mod order;

pub use decimal::Decimal;
pub use hash::{convert_shard_key_to_hashed, hash64, number_for_hash};
pub use order::{canonical_class, compare_values};
