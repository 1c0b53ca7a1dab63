//! BSON values as MongoDB sees them: their total order, exact decimal and float
//! arithmetic, the shard key hash, raw BSON access, dotted paths, MongoDB's error codes,
//! and the text forms MongoDB and mongosh print. Imports only [`crate::support`].

pub(crate) mod bigint;
pub mod decimal;
pub(crate) mod encoding;
pub mod error;
pub mod hash;
pub mod inspect;
pub mod js;
pub mod limits;
pub mod order;
pub(crate) mod path;
pub(crate) mod raw;

pub use decimal::Decimal;
pub use error::ClusterError;
pub use hash::{convert_shard_key_to_hashed, hash64, number_for_hash};
pub use inspect::{
    data_format, format_document, format_script_value, format_value, format_value_with,
    FormatOptions,
};
pub use js::{js_key_order, js_number, js_number_to_string, js_typeof};
pub use order::{canonical_class, compare_values};
