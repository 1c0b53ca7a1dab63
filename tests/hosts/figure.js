// A figure's script served as a file (`<shard-lab src="figure.js">`).
sh.shardCollection("test.events", {x: 1})
sim.generate("test.events", "uniform", 2000)
sim.generate("test.events", "uniform", 2000)
