//! `help`, `sh.help()`, `db.help()` and `db.<collection>.help()`: mongosh's help texts
//! for the commands ShardLab has, in mongosh's layout.
//!
//! The layout is `formatHelp` in mongosh's `packages/cli-repl/src/format-output.ts`: a
//! blank line, the title and a colon indented by two spaces, a blank line, then one line
//! per method, its name indented by four and its description starting at column 47
//! (further lines of a description start there too), and, when the class has a link, a
//! blank line and `For more information on usage: <link>`. The words are mongosh's own
//! (`packages/i18n/src/locales/en_US.ts`), in the order its classes declare the methods
//! (`packages/shell-api/src/decorators.ts` walks the class's prototype).

/// The column where descriptions start (`argLen` in `formatHelp`).
const ARG_LEN: usize = 47;

/// Formats a help text as mongosh's `formatHelp` does.
fn format_help(title: &str, methods: &[(&str, &str)], docs: Option<&str>) -> String {
    let mut out = format!("\n  {title}:\n\n");
    for (name, description) in methods {
        let first = format!("    {name}");
        out.push_str(&first);
        for (i, line) in description.split('\n').enumerate() {
            if i == 0 {
                out.push_str(&" ".repeat(ARG_LEN.saturating_sub(first.len())));
            } else {
                out.push('\n');
                if !line.trim().is_empty() {
                    out.push_str(&" ".repeat(ARG_LEN));
                }
            }
            out.push_str(line);
        }
        out.push('\n');
    }
    if let Some(link) = docs {
        out.push_str(&format!("\n  For more information on usage: {link}"));
    }
    out
}

/// `help`: the shell's own commands (`shell-api.classes.ShellApi.help`).
pub(crate) fn shell_help() -> String {
    format_help(
        "Shell Help",
        &[
            ("use", "Set current database"),
            (
                "show",
                "'show databases'/'show dbs': Print a list of all available databases\n\
                 'show collections'/'show tables': Print a list of all collections for current database",
            ),
            ("print", "Prints the contents of an object to the output"),
            ("printjson", "Alias for print()"),
            (
                "convertShardKeyToHashed",
                "Returns the hashed value for the input using the same hashing function as a hashed index.",
            ),
        ],
        Some("https://mongodb.com/docs/manual/reference/method"),
    )
}

/// `sh.help()`: the `sh` helpers ShardLab has (`shell-api.classes.Shard.help`), in the
/// order mongosh lists them.
pub(crate) fn sh_help(has: impl Fn(&str) -> bool) -> String {
    const SHARD: &[(&str, &str)] = &[
        ("enableSharding", "Enables sharding on a specific database. Uses the enableSharding command"),
        ("shardCollection", "Enables sharding for a collection. Uses the shardCollection command"),
        ("reshardCollection", "Enables sharding for a collection. Uses the reshardCollection command"),
        ("status", "Prints a formatted report of the sharding configuration and the information regarding existing chunks in a sharded cluster. The default behavior suppresses the detailed chunk information if the total number of chunks is greater than or equal to 20."),
        ("addShard", "Adds a shard to a sharded cluster. Uses the addShard command"),
        ("addShardToZone", "Associates a shard to a zone. Uses the addShardToZone command"),
        ("addShardTag", "3.4+ only. Calls addShardTag for a sharded DB. Aliases to sh.addShardToZone()."),
        ("updateZoneKeyRange", "Associates a range of shard keys to a zone. Uses the updateZoneKeyRange command"),
        ("addTagRange", "3.4+ only. Adds a tag range for a sharded DB. This method aliases to sh.updateZoneKeyRange()"),
        ("removeRangeFromZone", "3.4+ only. Removes an association between a range of shard keys and a zone."),
        ("removeShardFromZone", "3.4+ only. Removes the association between a shard and a zone. Uses the removeShardFromZone command"),
        ("removeShardTag", "3.4+ only. Removes a shard tag for a sharded DB. Aliases to sh.removeShardFromZone"),
        ("enableAutoSplit", "Enables auto-splitting for the sharded cluster. Calls update on the config.settings collection"),
        ("disableAutoSplit", "Disables auto-splitting for the sharded cluster. Calls update on the config.settings collection"),
        ("splitAt", "Divides an existing chunk into two chunks using a specific value of the shard key as the dividing point. Uses the split command"),
        ("splitFind", "Splits a chunk at the shard key value specified by the query at the median. Uses the split command"),
        ("moveChunk", "Moves the chunk that contains the document specified by the query to the destination shard. Uses the moveChunk command"),
        ("moveRange", "Moves a range of documents specified by the min and max keys to the destination shard. Uses the moveRange command"),
        ("balancerCollectionStatus", "Returns information on whether the chunks of a sharded collection are balanced. Uses the balancerCollectionStatus command"),
        ("enableBalancing", "Activates the sharded collection balancer process."),
        ("disableBalancing", "Disable balancing on a single collection in a sharded database. Does not affect balancing of other collections in a sharded cluster."),
        ("getBalancerState", "Returns true when the balancer is enabled and false if the balancer is disabled. This does not reflect the current state of balancing operations: use sh.isBalancerRunning() to check the balancer's current state."),
        ("isBalancerRunning", "Returns true if the balancer process is currently running and migrating chunks and false if the balancer process is not running. Uses the balancerStatus command"),
        ("startBalancer", "Enables the balancer. Uses the balancerStart command"),
        ("stopBalancer", "Disables the balancer. uses the balancerStop command"),
        ("setBalancerState", "Calls sh.startBalancer if state is true, otherwise calls sh.stopBalancer"),
        ("getShardedDataDistribution", "Returns data-size distribution information for all existing sharded collections"),
        ("startAutoMerger", "Globally enable auto-merger (active only if balancer is up)"),
        ("stopAutoMerger", "Globally disable auto-merger"),
        ("isAutoMergerEnabled", "Returns whether the auto-merger is enabled"),
        ("disableAutoMerger", "Disable auto-merging on one collection"),
        ("enableAutoMerger", "Re-enable auto-merge on one collection"),
        ("listShards", "Returns a list of the configured shards in a sharded cluster, optionally filtered (e.g. by draining state)"),
    ];
    let methods: Vec<(&str, &str)> = SHARD.iter().copied().filter(|(n, _)| has(n)).collect();
    format_help("The Shard Class", &methods, None)
}

/// `db.<collection>.help()`: the collection methods ShardLab has
/// (`shell-api.classes.Collection.help`), in the order mongosh lists them.
pub(crate) fn collection_help() -> String {
    const COLLECTION: &[(&str, &str)] = &[
        ("aggregate", "Calculates aggregate values for the data in a collection or a view."),
        ("countDocuments", "Returns the count of documents that match the query for a collection or view."),
        ("count", "Returns the count of documents that would match a find() query for the collection or view."),
        ("distinct", "Finds the distinct values for a specified field across a single collection or view and returns the results in an array."),
        ("deleteMany", "Removes all documents that match the filter from a collection."),
        ("deleteOne", "Removes a single document from a collection."),
        ("estimatedDocumentCount", "Returns the count of all documents in a collection or view."),
        ("find", "Selects documents in a collection or view."),
        ("findAndModify", "Modifies and returns a single document."),
        ("findOne", "Selects documents in a collection or view."),
        ("findOneAndDelete", "Deletes a single document based on the filter and sort criteria, returning the deleted document."),
        ("findOneAndReplace", "Modifies and replaces a single document based on the filter and sort criteria."),
        ("findOneAndUpdate", "Updates a single document based on the filter and sort criteria."),
        ("getIndexes", "Returns an array that holds a list of documents that identify and describe the existing indexes on the collection."),
        ("insert", "Inserts a document or documents into a collection."),
        ("insertMany", "Inserts multiple documents into a collection."),
        ("insertOne", "Inserts a document into a collection."),
        ("remove", "Removes documents from a collection."),
        ("replaceOne", "Replaces a single document within the collection based on the filter."),
        ("updateMany", "Updates all documents that match the specified filter for a collection."),
        ("createIndex", "Creates one index on a collection"),
        ("ensureIndex", "Creates one index on a collection"),
        ("drop", "Removes a collection or view from the database."),
        ("getFullName", "Returns the name of the collection prefixed with the database name."),
        ("getName", "Returns the name of the collection."),
        ("updateOne", "Updates a single document within the collection based on the filter."),
        ("stats", "Returns statistics about the collection."),
        ("getShardDistribution", "Prints the data distribution statistics for a sharded collection."),
        ("analyzeShardKey", "Returns metrics for evaluating a shard key. That is, ‘key’ can be a candidate shard key for an unsharded or sharded collection, or the current shard key for a sharded collection."),
        ("configureQueryAnalyzer", "Starts or stops collecting metrics about reads and writes against an unsharded or sharded collection."),
    ];
    format_help("Collection Class", COLLECTION, None)
}

/// `db.help()`: the database methods ShardLab has (`shell-api.classes.Database.help`), in
/// the order `packages/shell-api/src/database.ts` declares them.
pub(crate) fn database_help() -> String {
    format_help(
        "Database Class",
        &[
            ("getName", "Returns the name of the DB"),
            (
                "getCollectionNames",
                "Returns an array containing the names of all collections in the current database.",
            ),
            ("runCommand", "Runs an arbitrary command on the database."),
            ("adminCommand", "Runs an arbitrary command against the admin database."),
            (
                "getSiblingDB",
                "Returns another database without modifying the db variable in the shell environment.",
            ),
            (
                "getCollection",
                "Returns a collection or a view object that is functionally equivalent to using the db.<collectionName>.",
            ),
            ("stats", "returns the db stats. uses the dbStats command"),
            ("printShardingStatus", "Calls sh.status(verbose)"),
        ],
        None,
    )
}
