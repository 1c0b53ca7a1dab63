//! One chunk drawn as a block: its range, document count and size, and badges.

use super::shard_column::{human_bytes, ChunkView};
use yew::prelude::*;

/// Properties of [`ChunkBlock`].
#[derive(Properties, PartialEq)]
pub struct ChunkBlockProps {
    /// The owning shard's name.
    pub shard: AttrValue,
    /// The chunk.
    pub chunk: ChunkView,
}

/// A chunk block. Its data attributes are the end-to-end tests' contract.
#[function_component(ChunkBlock)]
pub fn chunk_block(props: &ChunkBlockProps) -> Html {
    let c = &props.chunk;
    let class = classes!(
        "chunk",
        c.jumbo.then_some("jumbo"),
        (c.recent > 0).then_some("hot"),
    );
    let heat = format!("--heat: {:.2}", (c.recent as f64 / 50.0).min(1.0));
    html! {
        <li class={class} style={heat} data-testid="chunk" data-shard-id={props.shard.clone()}
            data-min={c.min.clone()} data-max={c.max.clone()} data-count={c.docs.to_string()}
            data-jumbo={c.jumbo.to_string()} data-recent={c.recent.to_string()}
            aria-label={format!("Chunk from {} to {}, {} documents", c.min, c.max, c.docs)}>
            <div class="badges">
                if c.is_min { <span class="badge badge-min">{ "MinKey chunk" }</span> }
                if c.is_max { <span class="badge badge-max">{ "MaxKey chunk" }</span> }
                if c.jumbo { <span class="badge badge-jumbo">{ "jumbo" }</span> }
            </div>
            <code class="range">{ format!("[{}, {})", c.min, c.max) }</code>
            <span class="chunk-stats">{ format!("{} docs · {}", c.docs, human_bytes(c.bytes)) }</span>
        </li>
    }
}
