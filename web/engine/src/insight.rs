//! The engine's answers that need the core's `insight` feature: why MongoDB did what it
//! did.

use crate::queries::chunk_min;
use shardlab::{Cluster, ClusterError};

/// Why MongoDB did what it did, one sentence per rule.
pub fn explain(
    cluster: &Cluster,
    subject: &shardlab_protocol::Subject,
) -> Result<Vec<String>, ClusterError> {
    use shardlab_protocol::Subject;
    let list = match subject {
        Subject::Chunk { ns, chunk } => {
            cluster.explain_chunk(ns, &chunk_min(cluster, ns, *chunk)?)?
        }
        Subject::Shard { ns, shard } => cluster.explain_shard(ns, shard)?,
        Subject::Round { ns } => cluster.explain_round(ns.as_deref())?,
    };
    Ok(list.into_iter().map(|e| e.sentence).collect())
}
