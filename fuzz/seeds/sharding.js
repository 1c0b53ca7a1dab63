sh.enableSharding("test")
sh.shardCollection("test.users", {userId: 1})
db.users.insertMany([{_id: 1, userId: NumberLong(5), name: "a"}, {_id: 2, userId: 200, name: "b"}])
sh.splitAt("test.users", {userId: 100})
sh.moveChunk("test.users", {userId: 150}, "shard02")
db.users.find({userId: {$gte: 0}}).sort({userId: -1}).limit(1)
db.users.find({userId: 200}).explain().queryPlanner.winningPlan.stage
sh.status()
db.users.getShardDistribution()
