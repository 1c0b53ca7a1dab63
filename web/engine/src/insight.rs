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
    let explain = shardlab::session::explainer()?;
    let list = match subject {
        Subject::Chunk { ns, chunk } => {
            (explain.chunk)(cluster, ns, &chunk_min(cluster, ns, *chunk)?)?
        }
        Subject::Shard { ns, shard } => (explain.shard)(cluster, ns, shard)?,
        Subject::Round { ns } => (explain.round)(cluster, ns.as_deref())?,
    };
    Ok(list.into_iter().map(|e| e.sentence).collect())
}
