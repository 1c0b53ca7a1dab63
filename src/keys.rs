//! Shard keys: parsing and validating key patterns, key values, and extracting a
//! document's key. Imports only the layers below: [`crate::values`], [`crate::support`].

pub(crate) mod shard_key;

pub use shard_key::{format_bson_obj, format_bson_value, FieldKind};
pub use shard_key::{KeyPattern, KeyValue, ShardKeyError};
