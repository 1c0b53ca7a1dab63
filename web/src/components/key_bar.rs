//! The key-space bar: the whole key range from MinKey to MaxKey as one strip, cut into
//! chunks coloured by their shard. New inserts show as ticks on the chunks that took them.

use crate::view_model::ClusterView;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`KeyBar`].
#[derive(Properties, PartialEq)]
pub struct KeyBarProps {
    /// The picture to draw.
    pub view: Rc<ClusterView>,
}

/// The key-space bar.
#[function_component(KeyBar)]
pub fn key_bar(props: &KeyBarProps) -> Html {
    let v = &props.view;
    if !v.sharded {
        return html! {};
    }
    let gained: std::collections::BTreeMap<&str, u64> = v
        .shards
        .iter()
        .flat_map(|s| s.chunks.iter().map(|c| (c.min.as_str(), c.gained)))
        .collect();
    let caption = if v.hashed {
        "Hashed key space: Long('-9223372036854775808') … Long('9223372036854775807'); chunks sit where their hashes fall"
    } else {
        "Key space from MinKey() to MaxKey(); each chunk's width grows with its documents"
    };
    // With many chunks, neighbours on the same shard are drawn as one segment: they would
    // be under a pixel wide each, and thousands of elements slow every frame.
    let mut segments: Vec<(f64, f64, usize, String, u64)> = Vec::with_capacity(v.bar.len());
    for (lo, hi, shard, min) in &v.bar {
        let ticks = gained.get(min.as_str()).copied().unwrap_or(0);
        match segments.last_mut() {
            Some(last) if v.bar.len() > 150 && last.2 == *shard => {
                last.1 = *hi;
                last.4 += ticks;
            }
            _ => segments.push((*lo, *hi, *shard, min.clone(), ticks)),
        }
    }
    html! {
        <section class="panel keybar" aria-label="Key space">
            <div class="keybar-head">
                <span class="keybar-title">{ format!("Key space of {}", v.key) }</span>
                <span class="keybar-caption">{ caption }</span>
            </div>
            <div class="bar" data-testid="key-bar" data-hashed={v.hashed.to_string()} role="img"
                aria-label={format!("{} chunks across the key space", v.bar.len())}>
                { for segments.iter().map(|(lo, hi, shard, min, ticks)| {
                    let ticks = *ticks;
                    let style = format!("left: {:.3}%; width: {:.3}%", lo * 100.0, ((hi - lo) * 100.0).max(0.15));
                    html! {
                        <div class={classes!("segment", format!("shard-c{}", shard % 8), (ticks > 0).then_some("hot"))}
                            style={style} title={format!("chunk starting at {min}")} data-min={min.clone()}
                            data-ticks={ticks.to_string()}>
                        </div>
                    }
                }) }
                { for v.ticks.iter().map(|(x, new)| html! {
                    <span class={classes!("tick", new.then_some("new"))} style={format!("left: {:.3}%", x * 100.0)}></span>
                }) }
            </div>
            <div class="bar-ends"><span>{ "MinKey()" }</span><span>{ "MaxKey()" }</span></div>
        </section>
    }
}
