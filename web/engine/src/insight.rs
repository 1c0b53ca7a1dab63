//! The engine's answers that need the core's `insight` feature: a page of a chunk's
//! documents, and why MongoDB did what it did.

use crate::queries::{bound_text, chunk_min};
use shardlab::shell::format_value;
use shardlab::{Cluster, ClusterError};
use shardlab_protocol::{ChunkPage, DocRow, CHUNK_PAGE_ROWS};

/// Page `page` of the `order`-th chunk's documents.
pub fn chunk_page(
    cluster: &Cluster,
    ns: &str,
    order: u32,
    page: u32,
) -> Result<ChunkPage, ClusterError> {
    let min = chunk_min(cluster, ns, order)?;
    let rows = u64::from(CHUNK_PAGE_ROWS);
    let docs = cluster.chunk_documents(ns, &min, u64::from(page) * rows, rows)?;
    Ok(ChunkPage {
        min: bound_text(cluster, ns, &docs.min),
        max: bound_text(cluster, ns, &docs.max),
        shard: cluster.shard_name(docs.shard).to_string(),
        total: docs.total,
        page,
        rows: docs
            .rows
            .iter()
            .map(|r| DocRow {
                seq: r.seq,
                id: format_value(&r.id),
                key: bound_text(cluster, ns, &r.key),
            })
            .collect(),
    })
}

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
