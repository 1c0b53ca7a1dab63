//! ShardLab's playground: a Yew app, a view of the engine that runs in a worker.
//!
//! Nothing about sharding is decided here: the app sends the user's actions to the engine
//! and draws what it answers. (The engine, which holds the sessions, grows its heap up
//! front: see `web/engine/src/worker.rs`.)

fn main() {
    shardlab_web::start();
}
