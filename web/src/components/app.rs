//! The page: controls on top, the shards as columns below.

use super::controls::Controls;
use super::shard_column::{ChunkView, ShardColumn};
use crate::state::{Action, State, NS};
use bson::Bson;
use yew::prelude::*;

/// The root component.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let on_reshard = {
        let state = state.clone();
        Callback::from(move |field: String| state.dispatch(Action::Reshard(field)))
    };
    let on_insert = {
        let state = state.clone();
        Callback::from(move |n: u32| state.dispatch(Action::InsertIncreasing(n)))
    };

    let cluster = state.cluster.borrow();
    let shards: Vec<_> = cluster.shards().map(|(i, s)| (i, s.name.clone())).collect();
    let mut columns: Vec<Vec<ChunkView>> = vec![Vec::new(); cluster.all_shards().len()];
    let mut total_docs = 0;
    let mut total_chunks = 0;
    if let (Some(coll), Ok(sharding)) = (cluster.collection(NS), cluster.sharding(NS)) {
        total_docs = coll.doc_count();
        for c in sharding.table.iter() {
            total_chunks += 1;
            let recent = state
                .last_batch
                .iter()
                .filter(|v| {
                    let key = shardlab::KeyValue(vec![Bson::Int64(**v)]);
                    key >= c.min && key < c.max
                })
                .count() as u64;
            columns[c.shard as usize].push(ChunkView {
                min: sharding.bound_string(&c.min),
                max: sharding.bound_string(&c.max),
                is_min: c.min == sharding.pattern.global_min(),
                is_max: c.max == sharding.pattern.global_max(),
                docs: c.docs,
                bytes: c.bytes,
                jumbo: c.jumbo,
                recent,
            });
        }
    }

    html! {
        <main class="playground">
            <header class="masthead">
                <h1>{ "ShardLab" }</h1>
                <p class="tagline">{ "Watch a shard key decide where your documents go." }</p>
            </header>
            <Controls key_field={state.key_field.clone()} on_reshard={on_reshard} on_insert={on_insert} />
            if let Some(err) = &state.error {
                <p class="error" role="alert" data-testid="error">{ err }</p>
            }
            <p class="summary" data-testid="summary">
                { format!("{NS} sharded on {{ {}: 1 }} · {total_docs} documents · {total_chunks} chunks", state.key_field) }
            </p>
            <section class="shards" aria-label="Shards">
                { for shards.into_iter().map(|(i, name)| html! {
                    <ShardColumn name={name} chunks={columns[i as usize].clone()} />
                }) }
            </section>
        </main>
    }
}
