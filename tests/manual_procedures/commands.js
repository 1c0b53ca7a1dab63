// The procedures of the MongoDB manual's sharding administration pages, each command in
// the form the page shows (the pages' placeholders filled with the names set up here), as
// a learner runs them one after another against an 8.0 cluster of three shards.
// tests/it/manual_procedures.rs runs this file through the CLI and the session and
// compares what they print with expected.txt, character for character. Each step names
// the page it comes from and the source its answer was checked against; a line that
// does not begin with "//" is a statement (a statement may span lines, as the pages
// write it).
sim.reset({shards: 3, version: "8.0", seed: 1})
// The collections the pages' examples name, sharded and given a few documents.
sh.shardCollection("students.grades", { student_id: 1 })
db.getSiblingDB("students").grades.insertMany([{ student_id: 1, grade: "A" }, { student_id: 2, grade: "B" }])
sh.shardCollection("records.users", { zipcode: 1 })
db.getSiblingDB("records").users.insertMany([{ zipcode: "10001" }, { zipcode: "10280" }, { zipcode: "11201" }])

// "Manage Sharded Cluster Balancer", Check the Balancer State. shard.ts getBalancerState:
// no `balancer` document in config.settings reads as true.
sh.getBalancerState()
// Check if Balancer is Running. shard.ts isBalancerRunning: the `balancerStatus` reply
// (balancer_status.idl: mode, inBalancerRound, numBalancerRounds; 7.0+ the config
// server's term).
sh.isBalancerRunning()
// Schedule the Balancing Window: switch to the config database, make sure the balancer
// is not stopped, then upsert the window. balancerStart upserts `{$set: {stopped: false,
// mode: 'full'}}` (BalancerConfiguration::setBalancerMode; the update driver adds the
// fields by name), so the window's update matches that document (mongosh's UpdateResult,
// result.ts).
use config
sh.startBalancer()
db.settings.updateOne(
   { _id: "balancer" },
   { $set: { activeWindow : { start : "23:00", stop : "6:00" } } },
   { upsert: true }
)
db.settings.find()
// The window in sh.status(): helpers.ts "Balancer active window is set between
// `${start} and ${stop} server local time`".
sh.status()
// Remove a Balancing Window Schedule.
db.settings.updateOne( { _id : "balancer" }, { $unset : { activeWindow : true } } )
// Disable the Balancer: balancerStop's reply, then the state (`stopped: true`), then the
// wait for a round in progress (none: the loop never runs and prints nothing).
sh.stopBalancer()
sh.getBalancerState()
while( sh.isBalancerRunning().inBalancerRound ) {
         print("waiting...");
         sleep(1000);
}
// Enable the Balancer.
sh.startBalancer()
sh.getBalancerState()
// Disable Balancing on a Collection, Enable Balancing on a Collection, Confirm Balancing
// is Enabled or Disabled: shard.ts updates config.collections' `noBalance`
// (UpdateResult), which the confirmation reads back.
sh.disableBalancing("students.grades")
db.getSiblingDB("config").collections.findOne({_id : "students.grades"}).noBalance;
sh.enableBalancing("students.grades")
db.getSiblingDB("config").collections.findOne({_id : "students.grades"}).noBalance;
// Change Replication Behavior for Chunk Migration: `_secondaryThrottle` and
// `_waitForDelete` in the balancer document (BalancerSettingsType::kSchema allows both).
db.settings.updateOne(
   { "_id" : "balancer" },
   { $set : { "_secondaryThrottle" : { "w": "majority" }  } },
   { upsert : true }
)
db.settings.updateOne(
   { "_id" : "balancer" },
   { $set : { "_waitForDelete" : true } },
   { upsert : true }
)
// "Balance Ranges that Exceed Size Limit" (jumbo chunks): attemptToBalanceJumboChunks.
db.settings.updateOne(
   { _id: "balancer" },
   { $set: { attemptToBalanceJumboChunks : true } },
   { upsert: true }
)
db.settings.find()
// balancerCollectionStatus (balancer_collection_status.idl, 7.0+: the range size in MiB).
sh.balancerCollectionStatus("students.grades")

// "Modify Range Size in a Sharded Cluster": the chunksize document (upserted: there is
// none yet), then one collection's own size (configureCollectionBalancing, 5.3+).
db.settings.updateOne(
   { _id: "chunksize" },
   { $set: { _id: "chunksize", value: 64 } },
   { upsert: true }
)
db.adminCommand( {
   configureCollectionBalancing: "students.grades",
   chunkSize: 256
} )
sh.balancerCollectionStatus("students.grades")

// "Merge Chunks in a Sharded Cluster": three chunks on the primary shard, two of them
// merged (mergeChunks), then every mergeable run on a shard (mergeAllChunksOnShard, 7.0+:
// only chunks on the shard since before the snapshot history window, 300 s by default,
// so the two minute-old chunks stay two), and the AutoMerger's switches (shard.ts:
// updates of config.settings' `automerge` and config.collections' `enableAutoMerge`).
use test
sh.shardCollection("test.events", { x: 1 })
sh.splitAt("test.events", { x: 10 })
sh.splitAt("test.events", { x: 20 })
db.adminCommand( { mergeChunks: "test.events", bounds: [ { x: 10 }, { x: MaxKey } ] } )
db.getSiblingDB("config").chunks.countDocuments({ uuid: db.getSiblingDB("config").collections.findOne({ _id: "test.events" }).uuid })
db.adminCommand( { mergeAllChunksOnShard: "test.events", shard: "shard01" } )
db.getSiblingDB("config").chunks.countDocuments({ uuid: db.getSiblingDB("config").collections.findOne({ _id: "test.events" }).uuid })
sh.stopAutoMerger()
sh.isAutoMergerEnabled()
sh.startAutoMerger()
sh.disableAutoMerger("test.events")
sh.enableAutoMerger("test.events")

// "Migrate Ranges in a Sharded Cluster": sh.moveChunk (moveChunk's reply with the
// migration's time) and moveRange (6.0+), then where the chunks are.
sh.splitAt("test.events", { x: 40 })
sh.moveChunk("test.events", { x: 45 }, "shard02")
db.adminCommand( { moveRange: "test.events", min: { x: 40 }, toShard: "shard03" } )
db.getSiblingDB("config").chunks.find({}, { _id: 0, min: 1, max: 1, shard: 1 }).sort({ min: 1 })

// "Manage Shard Zones": shards into zones, a range per zone (addShardToZone and
// updateZoneKeyRange reply `ok`), the zones in config.shards and config.tags, then the
// removals: a zone with a range cannot leave its last shard (ZoneStillInUse,
// sharding_catalog_manager_zone_operations.cpp), so its range goes first.
sh.addShardToZone("shard01", "JFK")
sh.addShardToZone("shard02", "NRT")
sh.updateZoneKeyRange("records.users", { zipcode: "10001" }, { zipcode: "10281" }, "JFK")
sh.updateZoneKeyRange("records.users", { zipcode: "11201" }, { zipcode: "11240" }, "NRT")
use config
db.shards.find({ tags: "JFK" })
db.tags.find({ tag: "JFK" }, { _id: 0 })
sh.removeShardFromZone("shard02", "NRT")
sh.removeRangeFromZone("records.users", { zipcode: "11201" }, { zipcode: "11240" })
sh.removeShardFromZone("shard02", "NRT")
sh.removeRangeFromZone("records.users", { zipcode: "10001" }, { zipcode: "10281" })

// "Add Shards to a Cluster": a replica set's connection string names the shard after
// the set (ShardingCatalogManager::_validateHostAsShard); adding it again is the shard
// already there (_checkIfShardExists).
sh.addShard( "rs4/mongodb3.example.net:27018" )
sh.addShard( "rs4/mongodb3.example.net:27018" )
// "Remove Shards from a Sharded Cluster": list the shards, start draining one that holds
// a chunk (`started`), check the status (`ongoing`, what remains), let the balancer move
// its chunk off (a balancer round every 10 s), and remove it (`completed`).
db.adminCommand( { listShards: 1 } )
db.adminCommand( { removeShard: "shard03" } )
db.adminCommand( { removeShard: "shard03" } )
sleep(30000)
db.adminCommand( { removeShard: "shard03" } )

// "Refine a Shard Key": the index on the new key first, then the refine (4.4+).
use test
sh.shardCollection("test.orders", { customer_id: 1 })
db.orders.insertMany([{ customer_id: 1, order_id: 1 }, { customer_id: 1, order_id: 2 }])
db.orders.createIndex( { customer_id: 1, order_id: 1 } )
db.adminCommand( {
   refineCollectionShardKey: "test.orders",
   key: { customer_id: 1, order_id: 1 }
} )
db.getSiblingDB("config").collections.findOne({ _id: "test.orders" }).key
// "Reshard a Collection" (5.0+): sh.reshardCollection sends reshardCollection.
sh.reshardCollection("test.orders", { order_id: 1 })
db.getSiblingDB("config").collections.findOne({ _id: "test.orders" }).key

// "View Cluster Configuration": the databases, the shards (config.shards and mongosh's
// sh.listShards), and the whole status.
use config
db.databases.find()
db.getSiblingDB("config").shards.find()
sh.listShards()
db.printShardingStatus()
