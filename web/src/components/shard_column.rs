//! One shard drawn as a column of its chunks.

use super::chunk_block::ChunkBlock;
use yew::prelude::*;

/// What a chunk block needs to draw itself, already rendered to text by the core.
#[derive(Clone, PartialEq)]
pub struct ChunkView {
    /// The lower bound in mongosh notation.
    pub min: String,
    /// The upper bound in mongosh notation.
    pub max: String,
    /// True for the chunk starting at MinKey.
    pub is_min: bool,
    /// True for the chunk ending at MaxKey.
    pub is_max: bool,
    /// Documents in the chunk.
    pub docs: u64,
    /// Bytes in the chunk.
    pub bytes: u64,
    /// Whether the chunk is jumbo.
    pub jumbo: bool,
    /// How many of the last batch's inserts landed here.
    pub recent: u64,
}

/// Properties of [`ShardColumn`].
#[derive(Properties, PartialEq)]
pub struct ShardColumnProps {
    /// The shard's name.
    pub name: AttrValue,
    /// Its chunks, in key order.
    pub chunks: Vec<ChunkView>,
}

/// A shard and its chunks.
#[function_component(ShardColumn)]
pub fn shard_column(props: &ShardColumnProps) -> Html {
    let docs: u64 = props.chunks.iter().map(|c| c.docs).sum();
    let bytes: u64 = props.chunks.iter().map(|c| c.bytes).sum();
    html! {
        <section class="shard" data-testid="shard" data-shard-id={props.name.clone()}
            aria-label={format!("Shard {}", props.name)}>
            <h2 class="shard-name">{ props.name.clone() }</h2>
            <p class="shard-totals">
                { format!("{} chunks · {docs} docs · {}", props.chunks.len(), human_bytes(bytes)) }
            </p>
            <ol class="chunks">
                { for props.chunks.iter().map(|c| html! {
                    <ChunkBlock shard={props.name.clone()} chunk={c.clone()} />
                }) }
            </ol>
        </section>
    }
}

/// Formats a byte count as mongosh does: B, KiB, MiB, GiB with two decimals.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes}B")
    } else {
        format!("{:.2}{}", value, UNITS[unit])
    }
}
