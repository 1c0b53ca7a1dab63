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

pub mod analyze;
pub mod balancer;
mod bigint;
mod case_fold;
pub mod chunks;
pub mod cluster;
pub mod compare;
pub mod crud;
pub mod decimal;
pub mod error;
pub mod event_log;
pub mod events;
mod float;
pub mod hash;
pub mod order;
pub mod presets;
pub mod query;
pub mod reshape;
pub mod rng;
pub mod scenario;
pub mod session;
pub mod shard_key;
mod shared_map;
pub mod shell;
mod sort;
pub mod split;
mod store;
pub mod targeting;
pub mod timeline;
pub mod workload;

pub use cluster::{Cluster, ClusterConfig, VersionMode};
pub use decimal::Decimal;
pub use error::ClusterError;
pub use hash::{convert_shard_key_to_hashed, hash64};
pub use order::compare_values;
pub use session::{Outcome, Output, Session};
pub use shard_key::{KeyPattern, KeyValue, ShardKeyError};
