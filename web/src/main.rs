//! ShardLab's playground: a Yew app that draws the core's simulated cluster.
//!
//! Nothing about sharding is decided here: the app sends user actions to the core and
//! draws what the core reports.

fn main() {
    shardlab_web::start();
}
