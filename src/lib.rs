//! ShardLab's core: a pure, deterministic model of how MongoDB shards a collection.
//!
//! The crate knows nothing of the web. It takes commands and returns results plus
//! events; the Yew app in `web/` and the `shardlab` CLI are thin drivers of it.
//!
//! The behaviour reference is `shared/spec/mongodb-sharding.md`; section numbers in
//! the doc comments below (`§5`) point into it.

/// Implements `PartialEq`, `Eq` and `PartialOrd` from a type's own `Ord`, for the types
/// whose equality is "compares equal" (MongoDB's order, where `1` equals `1.0`).
macro_rules! eq_from_ord {
    ($t:ty) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                self.cmp(other) == std::cmp::Ordering::Equal
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
    };
}

pub mod engine;
pub mod keys;
pub mod query;
pub mod session;
pub mod shell;
pub mod sim;
pub mod support;
pub mod values;
pub mod workload;

pub use engine::{Cluster, ClusterConfig, ClusterError, VersionMode};
pub use keys::{KeyPattern, KeyValue, ShardKeyError};
pub use session::{Outcome, Output, Session};
pub use values::{compare_values, convert_shard_key_to_hashed, hash64, Decimal};
