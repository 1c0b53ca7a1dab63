use bson::doc;
use shardlab::{Cluster, ClusterConfig};

#[test]
fn placeholder() {
    let mut c = Cluster::new(ClusterConfig::default());
    c.shard_collection("test.c", &doc! {"x": 1}).unwrap();
}
