//! The lessons' scenario presets: named, documented sequences of shell commands.
//!
//! Each preset sets up a cluster and a shard key, then runs a workload in batches (with a
//! balancer round after each batch when the balancer is on), then any closing commands.
//! The CLI runs one with `sim.preset("<id>")`; the playground loads the same steps.

use crate::engine::cluster::VersionMode;

/// A lesson's scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// The identifier used by `sim.preset(...)` and in links.
    pub id: &'static str,
    /// A short title, as [`Preset::title`] fills it in: `{shards}` stands for the
    /// number of shards in words, so the title says what the setup builds.
    pub heading: &'static str,
    /// What to watch for, in a sentence or two (`{shards}` as in [`Preset::heading`]).
    pub text: &'static str,
    /// The version mode.
    pub version: VersionMode,
    /// Number of shards.
    pub shards: u32,
    /// The maximum chunk size in bytes.
    pub chunk_size: u64,
    /// The collection the lesson uses.
    pub ns: &'static str,
    /// The shard key, in shell syntax, such as `{x: 1}`: the setup shards [`Preset::ns`]
    /// on it first.
    pub key: &'static str,
    /// Commands run once the collection is sharded, to finish setting the scene (zones
    /// and so on).
    pub after_sharding: &'static [&'static str],
    /// The workload: a preset name (see [`crate::workload::generate::preset`]) or a template
    /// literal in shell syntax.
    pub workload: &'static str,
    /// Documents per batch.
    pub batch: u32,
    /// Total documents.
    pub total: u32,
    /// Whether a balancer round follows each batch.
    pub balance: bool,
    /// Commands run after the workload (queries, refinements, ...).
    pub after: &'static [&'static str],
}

const KIB: u64 = 1024;

/// Every preset, in teaching order.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "monotonic",
        heading: "Ranged key on a counter",
        text: "Every new x is the largest yet, so every insert lands in the chunk that ends at MaxKey. In 5.0 the splitter cuts that chunk at its largest key and moves the new top chunk to the emptiest shard, but each batch still hits one shard at a time.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 32 * KIB,
        ns: "test.events",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "monotonic",
        batch: 25,
        // Ends between two splits of the top chunk, so the hot shard is plain to see.
        total: 900,
        balance: true,
        after: &[],
    },
    Preset {
        id: "decreasing",
        heading: "Ranged key counting down",
        text: "A key that only shrinks sends every insert to the chunk that starts at MinKey: the same hot spot, at the other end of the key space.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 32 * KIB,
        ns: "test.events",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "decreasing",
        batch: 25,
        total: 1000,
        balance: true,
        after: &[],
    },
    Preset {
        id: "hashed",
        heading: "Hashed _id spreads the writes",
        text: "Hashing the growing ObjectId scatters neighbouring values across the whole int64 space, so inserts spread over every shard. The price: a range query on _id must ask every shard.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 32 * KIB,
        ns: "test.events",
        key: "{_id: \"hashed\"}",
        after_sharding: &[],
        workload: "objectIds",
        batch: 50,
        total: 1000,
        balance: true,
        after: &[
            "db.events.find({_id: {$gt: ObjectId(\"000000000000000000000000\")}}).explain().queryPlanner.winningPlan.stage",
        ],
    },
    Preset {
        id: "low-cardinality",
        heading: "Seven continents, {shards} shards",
        text: "A key with seven possible values can never make more than seven chunks that hold documents (the first split also leaves an empty chunk below the smallest value). Once each continent has its own chunk, chunks can only grow: they turn jumbo, and of the {shards} shards at most seven ever hold documents.",
        version: VersionMode::V50,
        shards: 9,
        chunk_size: 8 * KIB,
        ns: "test.people",
        key: "{continent: 1}",
        after_sharding: &[],
        workload: "continents",
        batch: 50,
        total: 1000,
        balance: true,
        after: &[],
    },
    Preset {
        id: "high-frequency",
        heading: "A few values dominate",
        text: "When one value is far more frequent than the rest, its documents cannot be split apart: that chunk becomes jumbo and the balancer leaves it where it is.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.orders",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "zipf",
        batch: 50,
        total: 1000,
        balance: true,
        after: &[],
    },
    Preset {
        id: "multi-tenant",
        heading: "Multi-tenant key {projectId: 1, _id: 1}",
        text: "With projectId first, one tenant's documents sit together and its queries hit one shard; adding _id lets a big tenant's range still split. Compare with {projectId: 1} alone (jumbo chunks for big tenants) and {_id: \"hashed\"} (every tenant query is scattered).",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.records",
        key: "{projectId: 1, _id: 1}",
        after_sharding: &[],
        workload: "multiTenant",
        batch: 50,
        total: 1000,
        balance: true,
        after: &[],
    },
    Preset {
        id: "missing-fields",
        heading: "Documents without the key",
        text: "A document that lacks a shard key field is stored as if the field were null, so all of them gather in the chunk that holds null, just above MinKey.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.events",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "missingFields",
        batch: 50,
        total: 600,
        balance: true,
        after: &["db.events.find({x: null}).explain().queryPlanner.winningPlan.stage"],
    },
    Preset {
        id: "targeting",
        heading: "Targeted versus scatter-gather",
        text: "A query with the shard key goes to the one shard that owns it; a query without it must ask every shard and merge the answers.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.users",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "uniform",
        batch: 100,
        total: 800,
        balance: true,
        after: &[
            "db.users.find({x: 42}).explain().queryPlanner.winningPlan.stage",
            "db.users.find({ts: {$gt: ISODate(\"2025-01-01\")}}).explain().queryPlanner.winningPlan.stage",
        ],
    },
    Preset {
        id: "refine",
        heading: "Refining a key to split a jumbo chunk",
        text: "All orders of one big customer share {customer: 1}, so their chunk is jumbo. Refining the key to {customer: 1, order: 1} clears the flag and gives the splitter new points to cut at.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.orders",
        key: "{customer: 1}",
        after_sharding: &[],
        workload: "{customer: {gen: \"choice\", values: [\"acme\", \"acme\", \"acme\", \"globex\", \"initech\"]}, order: \"increasing\", payload: {gen: \"padding\", bytes: 100}}",
        batch: 50,
        total: 400,
        balance: true,
        after: &[
            "db.orders.createIndex({customer: 1, order: 1})",
            "db.adminCommand({refineCollectionShardKey: \"test.orders\", key: {customer: 1, order: 1}})",
            "sh.splitFind(\"test.orders\", {customer: \"acme\", order: 1})",
            "sim.balance()",
        ],
    },
    Preset {
        id: "presplit",
        heading: "Pre-split hashed chunks",
        text: "Sharding an empty collection on a hashed key creates chunks up front, with split points spaced evenly around 0 in the hash space: two per shard in 5.0, one per shard in 8.0.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.events",
        key: "{_id: \"hashed\"}",
        after_sharding: &[],
        workload: "objectIds",
        batch: 50,
        total: 300,
        balance: true,
        after: &[],
    },
    Preset {
        id: "zones",
        heading: "Zones pin ranges to shards",
        text: "Shard03 is in zone EU and the range of region \"EU\" belongs to that zone, so the balancer carries every EU chunk to shard03 and keeps it there.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.people",
        key: "{continent: 1, x: 1}",
        after_sharding: &[
            "sh.addShardToZone(\"shard03\", \"EU\")",
            "sh.updateZoneKeyRange(\"test.people\", {continent: \"Europe\", x: MinKey}, {continent: \"Europe\", x: MaxKey}, \"EU\")",
        ],
        workload: "{continent: \"continent\", x: \"uniformInt\", payload: {gen: \"padding\", bytes: 100}}",
        batch: 50,
        total: 800,
        balance: true,
        after: &[],
    },
    Preset {
        id: "hashed-floats",
        heading: "Hashed floats collide",
        text: "Hashing truncates a double to an integer first, so 2.2, 2.3 and 2.9 hash to the same value as 2: they always share a chunk, which is why hashing floats is discouraged.",
        version: VersionMode::V50,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.floats",
        key: "{v: \"hashed\"}",
        after_sharding: &[],
        workload: "{v: {gen: \"choice\", values: [2.2, 2.3, 2.9, 5.5, 7.1, 9.9]}, payload: {gen: \"padding\", bytes: 100}}",
        batch: 50,
        total: 200,
        balance: true,
        after: &[
            "convertShardKeyToHashed(2.2)",
            "convertShardKeyToHashed(2.3)",
            "convertShardKeyToHashed(2.9)",
            "convertShardKeyToHashed(2)",
        ],
    },
    Preset {
        id: "balancing-50-vs-80",
        heading: "5.0 versus 8.0 balancing",
        text: "Run this in 5.0 and in 8.0: 5.0 splits chunks as they grow and balances chunk counts; 8.0 never auto-splits and moves about one chunk size of data at a time until shards differ by less than three chunk sizes.",
        version: VersionMode::V80,
        shards: 3,
        chunk_size: 8 * KIB,
        ns: "test.events",
        key: "{x: 1}",
        after_sharding: &[],
        workload: "uniform",
        batch: 100,
        total: 1000,
        balance: true,
        after: &[],
    },
];

/// A preset by id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// The command that lets `ms` milliseconds of simulated time pass (mongosh's `sleep`):
/// the background balancer takes the rounds that fall due meanwhile. The playground's
/// "Let time pass" takes one such step per tick.
pub fn sleep_command(ms: u64) -> String {
    format!("sleep({ms})")
}

/// The command that sets the cluster's chunk size to `bytes`. The playground's settings,
/// its new clusters and the comparison's columns all write it with this one function.
pub fn chunk_size_command(bytes: u64) -> String {
    format!("sim.chunkSize({bytes})")
}

/// The command that inserts `count` documents of `workload` into `ns`, followed by a
/// balancer round when `balance` is set. `workload` is a generator preset's name (see
/// [`crate::workload::generate::preset`]) or a template literal in shell syntax (starting
/// with `{`). The presets' batches, the playground's ticks and the comparison's ticks are
/// all written by this one function.
pub fn generate_command(ns: &str, workload: &str, count: u32, balance: bool) -> String {
    let workload = if workload.trim_start().starts_with('{') {
        workload.trim().to_string()
    } else {
        format!("\"{workload}\"")
    };
    let generate = format!("sim.generate(\"{ns}\", {workload}, {count})");
    if balance {
        format!("{generate}; sim.balance()")
    } else {
        generate
    }
}

/// `text` as a string literal of the shell, quotes and control characters escaped.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    crate::shell::ejson::write_json_string(&mut out, text);
    out
}

/// The collection `ns` as a shell expression that works whatever database is in use:
/// `db.getSiblingDB("test").getCollection("events")`.
pub(crate) fn collection_expr(ns: &str) -> String {
    let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
    format!(
        "db.getSiblingDB({}).getCollection({})",
        literal(db),
        literal(coll)
    )
}

/// `sh.shardCollection` of `ns` on `key` (a pattern in shell syntax, such as `{x: 1}`),
/// with `unique` and `numInitialChunks` when they are set.
pub fn shard_command(ns: &str, key: &str, unique: bool, initial_chunks: Option<u32>) -> String {
    let mut args = format!("{}, {}", literal(ns), key.trim());
    if unique || initial_chunks.is_some() {
        args.push_str(&format!(", {unique}"));
    }
    if let Some(n) = initial_chunks {
        args.push_str(&format!(", {{numInitialChunks: {n}}}"));
    }
    format!("sh.shardCollection({args})")
}

/// Refining `ns`'s shard key to `key`, as a user does it: an index on the new key, then
/// `refineCollectionShardKey` (which requires that index). One step, so that stepping
/// back undoes both.
pub fn refine_command(ns: &str, key: &str) -> String {
    format!(
        "{}.createIndex({}); db.adminCommand({{refineCollectionShardKey: {}, key: {}}})",
        collection_expr(ns),
        key.trim(),
        literal(ns),
        key.trim()
    )
}

/// Resharding `ns` on `key`, keeping its documents.
pub fn reshard_command(ns: &str, key: &str) -> String {
    format!("sh.reshardCollection({}, {})", literal(ns), key.trim())
}

/// Inserting one document into `ns`: `doc` is a document in shell syntax, as typed.
pub fn insert_one_command(ns: &str, doc: &str) -> String {
    format!("{}.insertOne({})", collection_expr(ns), doc.trim())
}

/// A document to start an insert from: every field of `pattern` (a dotted field as the
/// embedded documents it names) set to the value `sample` gives for it, a value the
/// collection's documents hold, so of the field's own type (`{continent: 'Africa'}`), or
/// 42 when it gives none, e.g. `{x: 42}` or `{customer: 42, order: 42}`.
pub fn example_document(
    pattern: &crate::keys::shard_key::KeyPattern,
    sample: impl Fn(&str) -> Option<bson::Bson>,
) -> String {
    fn name(part: &str) -> String {
        if !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            part.to_string()
        } else {
            literal(part)
        }
    }
    let fields: Vec<String> = pattern
        .fields()
        .iter()
        .map(|(field, _)| {
            let parts: Vec<&str> = field.split('.').collect();
            let mut value = sample(field).map_or_else(
                || "42".to_string(),
                |v| crate::values::format_value_with(&v, &crate::values::FormatOptions::lossless()),
            );
            for part in parts.iter().skip(1).rev() {
                value = format!("{{{}: {value}}}", name(part));
            }
            format!(
                "{}: {value}",
                name(parts.first().copied().unwrap_or_default())
            )
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// Starting `ns` over on `key`: the collection dropped, then sharded again. One step.
pub fn start_over_command(
    ns: &str,
    key: &str,
    unique: bool,
    initial_chunks: Option<u32>,
) -> String {
    format!(
        "{}.drop(); {}",
        collection_expr(ns),
        shard_command(ns, key, unique, initial_chunks)
    )
}

/// `n` in words up to twelve, in digits beyond (`{shards}` in a preset's texts).
pub fn number_words(n: u32) -> String {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n as usize)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

impl Preset {
    /// The title, with the setup's numbers in it (see [`Preset::heading`]).
    pub fn title(&self) -> String {
        self.fill(self.heading)
    }

    /// What to watch for, with the setup's numbers in it.
    pub fn lesson(&self) -> String {
        self.fill(self.text)
    }

    fn fill(&self, template: &str) -> String {
        template.replace("{shards}", &number_words(self.shards))
    }

    /// The workload step run once per batch.
    pub fn batch_command(&self, count: u32) -> String {
        generate_command(self.ns, self.workload, count, self.balance)
    }

    /// Commands that configure the cluster before the setup (chunk size).
    pub fn config_commands(&self) -> Vec<String> {
        vec![chunk_size_command(self.chunk_size)]
    }

    /// The command that shards the collection on the preset's key.
    pub fn shard_command(&self) -> String {
        shard_command(self.ns, self.key, false, None)
    }

    /// Everything that runs before the workload, in order: the configuration, sharding
    /// the collection, then the rest of the scene (the settings of the version mode and
    /// the shard count are in [`Preset::version`] and [`Preset::shards`]).
    pub fn setup_commands(&self) -> Vec<String> {
        let mut commands = self.config_commands();
        commands.push(self.shard_command());
        commands.extend(self.after_sharding.iter().map(|s| s.to_string()));
        commands
    }

    /// The batches of the workload, in order: [`Preset::total`] documents,
    /// [`Preset::batch`] at a time.
    pub fn batch_commands(&self) -> Vec<String> {
        let mut commands = Vec::new();
        let mut done = 0;
        while done < self.total {
            let n = self.batch.min(self.total - done);
            commands.push(self.batch_command(n));
            done += n;
        }
        commands
    }

    /// The whole preset as one script, as the CLI runs it.
    pub fn script(&self) -> String {
        let mut lines = vec![format!("sim.version(\"{}\")", self.version.label())];
        lines.extend(self.setup_commands());
        lines.extend(self.batch_commands());
        lines.extend(self.after.iter().map(|s| s.to_string()));
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_shards_its_collection_first() {
        for p in PRESETS {
            let setup = p.setup_commands();
            assert_eq!(setup[0], format!("sim.chunkSize({})", p.chunk_size));
            assert_eq!(
                setup[1],
                format!("sh.shardCollection(\"{}\", {})", p.ns, p.key),
                "{}",
                p.id
            );
            assert_eq!(setup.len(), 2 + p.after_sharding.len(), "{}", p.id);
        }
    }

    #[test]
    fn a_batch_names_its_workload_or_writes_its_template() {
        assert_eq!(
            generate_command("test.c", "monotonic", 25, true),
            "sim.generate(\"test.c\", \"monotonic\", 25); sim.balance()"
        );
        assert_eq!(
            generate_command("test.c", " {x: \"increasing\"} ", 5, false),
            "sim.generate(\"test.c\", {x: \"increasing\"}, 5)"
        );
        let p = preset("refine").expect("the refine preset");
        assert_eq!(
            p.batch_command(50),
            generate_command(p.ns, p.workload, 50, true)
        );
        assert_eq!(p.batch_commands().len(), 8);
    }
}
