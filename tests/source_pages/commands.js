// Every command the five source documents show (../shared/seeds/), in the form shown,
// and the commands a reader's next question leads to. tests/it/source_pages.rs runs this
// file in the CLI and tests/e2e/source-pages.test.mjs types it into the page's console;
// both must print what MongoDB and mongosh print. One statement a line.
sim.reset({shards: 3, version: "8.0", seed: 1})
// "Shard Keys": sharding a collection, first as the page writes it, with placeholders
// that mongosh cannot parse, then with names the reader never defined, then filled in.
sh.shardCollection(<namespace>, <key>) // Optional parameters omitted
sh.shardCollection( namespace, key )
sh.shardCollection("test.events", { x: 1 })
// A unique shard key.
sh.shardCollection("test.users", { email: 1 }, true)
// Changing a document's shard key value (4.2+): updateOne, replaceOne, findOneAndUpdate.
db.events.insertOne({ _id: 1, x: 5 })
db.events.updateOne({ _id: 1, x: 5 }, { $set: { x: 500 } })
db.events.findOneAndUpdate({ _id: 1, x: 500 }, { $set: { x: 7 } }, { returnDocument: "after" })
db.events.replaceOne({ _id: 1, x: 7 }, { _id: 1, x: 9 })
// Documents missing the shard key: finding them, and setting the missing field.
db.events.insertOne({ _id: 2 })
db.shardedcollection.find( { $or: [ { x: { $exists: false } }, { y: { $exists: false } } ] } )
db.events.find( { $or: [ { x: { $exists: false } }, { y: { $exists: false } } ] } )
db.events.find({ x: null })
db.events.updateOne({ _id: 2, x: null }, { $set: { x: 42 } })
db.events.findOneAndUpdate({ _id: 3, x: null }, { $set: { note: "added" } }, { upsert: true, returnDocument: "after" })
db.events.countDocuments()
// "Hashed Sharding": the forms the page shows, then the collision it warns of.
sh.shardCollection( "database.collection", { <field> : "hashed" } )
sh.shardCollection( "database.collection", { "fieldA" : 1, "fieldB" : 1, "fieldC" : "hashed" } )
convertShardKeyToHashed(2.3)
convertShardKeyToHashed(2.9)
// Bugsnag's post: a hashed _id index, then the compound key it settles on.
db.events.createIndex({_id: 'hashed'})
db.events.createIndex({projectId: 1, _id: 1})
sh.shardCollection("test.projects", { projectId: 1, _id: 1 })
// "Choose a Shard Key": 7.0's analyzeShardKey.
db.adminCommand({ analyzeShardKey: "test.events", key: { x: 1 } })
// The next questions: where did the chunks go?
db.events.getShardDistribution()
db.getSiblingDB("config").chunks.countDocuments({})
db.getSiblingDB("config").collections.find({}, { _id: 1, key: 1, unique: 1 })
