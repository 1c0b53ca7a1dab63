//! "Export for mongosh": a session's commands written as a mongosh script that builds
//! the same scenario on a real sharded cluster.
//!
//! The commands are run again, one statement at a time, in a session of their own that
//! keeps a log of what each `sim.` helper did ([`Session::start_sim_log`]). mongosh's own
//! commands pass through as written; each `sim.` helper becomes the real commands that do
//! what it did (the exact documents a workload generated, as `insertMany` batches; the
//! chunk size as the manual sets it in `config.settings`) or, where MongoDB has nothing
//! like it (the simulated clock, the explanations), a comment saying what it did. Values
//! are printed by the shell's printer ([`format_script_value`]), which mongosh reads
//! back to the same BSON.

use super::scenario::Scenario;
use crate::engine::analyze::QuerySample;
use crate::engine::cluster::{ClusterConfig, VersionMode};
use crate::session::{Session, SimCall};
use crate::shell::{format_script_value, parse_ejson, parse_script_recovering, ParseError, Script};
use crate::values::limits::measure;
use crate::workload::presets::collection_expr;
use bson::{Bson, Document};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The most documents one exported `insertMany` holds: mongoimport's batch size.
pub const EXPORT_BATCH_DOCUMENTS: usize = 1000;

/// The most BSON bytes of documents one exported `insertMany` holds, so that its text
/// stays under the 16 MiB a shell statement may be (the playground's and mongosh's
/// driver splits larger batches itself).
const EXPORT_BATCH_BYTES: u64 = 4 << 20;

/// The most values (fields, array items) one exported `insertMany` holds: half the
/// shell's 100,000 per literal.
const EXPORT_BATCH_VALUES: u64 = 50_000;

/// How many bytes of imported documents the script writes out before it writes a
/// `mongoimport` command line in a comment instead: a script of more is slow for
/// mongosh to read, and mongoimport reads the original file faster.
pub const MAX_INLINE_IMPORT_BYTES: usize = 16 << 20;

/// How long the script lets a real balancer run where ShardLab ran a round on demand:
/// MongoDB's balancer starts a round every 10 seconds while it has work
/// (`kBalanceRoundDefaultInterval`, balancer.cpp).
const BALANCER_ROUND_MS: u64 = 10_000;

/// Why a session gives no script.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The session holds no command a real cluster would run.
    #[error(
        "nothing to export: the session has no commands that change the cluster yet \
         (run sh.shardCollection, insertMany or sim.generate first)"
    )]
    Nothing,
}

/// Builds the script of one session, statement by statement.
#[derive(Debug)]
pub struct Exporter {
    /// The session the commands run in again, to learn what each did.
    session: Session,
    /// The cluster's shape when the session started.
    config: ClusterConfig,
    /// The script's body, after its header and opening lines.
    body: String,
    /// The collections the session wrote, dropped at the start.
    namespaces: BTreeSet<String>,
    /// The version modes the session ran in, in order.
    versions: Vec<VersionMode>,
    /// The most shards the cluster had.
    shards: u32,
    /// How many real commands the body holds.
    commands: u64,
    /// Bytes of imported documents written so far.
    imported_bytes: usize,
}

/// Exports `scenario`'s commands up to its position (what its cluster shows).
pub fn export_scenario(scenario: &Scenario) -> Result<String, ExportError> {
    let mut exporter = Exporter::new(scenario.config());
    for step in scenario.commands.iter().take(scenario.applied()) {
        exporter.text(step);
    }
    exporter.finish()
}

impl Exporter {
    /// An exporter of a session that starts from a new cluster of `config`.
    pub fn new(config: ClusterConfig) -> Self {
        let session = Session::new(config.clone());
        Exporter {
            versions: vec![session.cluster.version()],
            shards: config.shards,
            session,
            config,
            body: String::new(),
            namespaces: BTreeSet::new(),
            commands: 0,
            imported_bytes: 0,
        }
    }

    /// Exports the statements of `src` (a timeline step, or a whole script).
    pub fn text(&mut self, src: &str) {
        let (script, errors) = parse_script_recovering(src);
        self.parsed(src, &script, &errors);
    }

    /// Exports parsed statements: `src` is the text their spans point into.
    pub fn parsed(&mut self, src: &str, script: &Script, errors: &[ParseError]) {
        for stmt in &script.statements {
            let text = src
                .get(stmt.span.start as usize..stmt.span.end as usize)
                .unwrap_or("");
            self.statement(text);
        }
        for e in errors {
            self.comment(&format!("ShardLab could not read a statement here: {e}"));
        }
    }

    /// Exports one statement.
    fn statement(&mut self, source: &str) {
        let source = source.trim();
        if source.is_empty() {
            return;
        }
        let before = self.user_namespaces();
        self.session.start_sim_log();
        let outcomes = self.session.run(source);
        let calls = self.session.take_sim_log();
        self.note_state();
        let failed = outcomes.iter().find_map(|o| o.result.as_ref().err());
        if calls.is_empty() {
            match failed {
                Some(e) => self.failed(source, &e.to_string()),
                None => self.command(source),
            }
            return;
        }
        if !source.starts_with("sim.") {
            self.comment(&format!(
                "ShardLab ran this JavaScript around its sim. helpers; what the helpers did \
                 follows, the statement's other commands are not written out:\n{source}"
            ));
        }
        for call in calls {
            self.sim_call(source, call, &before);
        }
    }

    /// The collections of the user's databases that exist now.
    fn user_namespaces(&self) -> Vec<String> {
        self.session
            .cluster
            .collections()
            .keys()
            .filter(|ns| {
                let db = ns.split('.').next().unwrap_or_default();
                !matches!(db, "admin" | "config" | "local")
            })
            .cloned()
            .collect()
    }

    /// Notes the collections, shards and version mode the session has now.
    fn note_state(&mut self) {
        self.namespaces.extend(self.user_namespaces());
        let c = &self.session.cluster;
        self.shards = self.shards.max(c.shards().count() as u32);
        if self.versions.last() != Some(&c.version()) {
            self.versions.push(c.version());
        }
    }

    /// A real shell command: as written, or re-printed when it is an import's batch.
    fn command(&mut self, source: &str) {
        if let Some(db) = source.strip_prefix("use ") {
            // mongosh reads `use` only at its prompt; a script changes `db` itself.
            let db = db.trim().trim_end_matches(';').trim();
            let _ = writeln!(
                self.body,
                "db = db.getSiblingDB({});",
                format_script_value(&Bson::String(db.into()))
            );
            self.commands += 1;
            return;
        }
        if let Some(line) = shell_only(source) {
            self.comment(&line);
            return;
        }
        if let Some((head, docs)) = ejson_insert(source) {
            self.import_batch(head, &docs);
            return;
        }
        self.commands += 1;
        self.body.push_str(source);
        if !source.ends_with(';') && !source.ends_with('}') {
            self.body.push(';');
        }
        self.body.push('\n');
    }

    /// A statement that failed in ShardLab: left out, so that mongosh (which stops a
    /// script at its first error) runs the rest.
    fn failed(&mut self, source: &str, error: &str) {
        let first = error.lines().next().unwrap_or_default();
        self.comment(&format!(
            "Left out: in ShardLab this failed with {first}\n{source}"
        ));
    }

    /// Writes `text` as comment lines.
    fn comment(&mut self, text: &str) {
        for line in text.lines() {
            let _ = writeln!(self.body, "// {line}");
        }
    }

    /// An import's batch (documents in canonical Extended JSON, which mongosh would read
    /// as plain fields named `$oid`, `$date`, ...), printed in mongosh's syntax; past
    /// [`MAX_INLINE_IMPORT_BYTES`], a `mongoimport` command line in a comment.
    fn import_batch(&mut self, head: &str, docs: &[Document]) {
        let ns = self
            .session
            .touched()
            .unwrap_or("<db>.<collection>")
            .to_string();
        let (db, coll) = ns.split_once('.').unwrap_or((&ns, ""));
        if self.imported_bytes > MAX_INLINE_IMPORT_BYTES {
            self.comment(&format!(
                "{} more imported documents: import them from your file with\n  \
                 mongoimport --uri \"$MONGODB_URI\" --db {db} --collection {coll} --file <your file>",
                docs.len()
            ));
            return;
        }
        let before = self.body.len();
        let line = format!(
            "{head}.insertMany([\n{}\n], {{ordered: false}});\n",
            docs.iter()
                .map(|d| format!("  {}", format_script_value(&Bson::Document(d.clone()))))
                .collect::<Vec<_>>()
                .join(",\n")
        );
        self.body.push_str(&line);
        self.imported_bytes += self.body.len() - before;
        self.commands += 1;
    }

    /// Writes what one `sim.` helper did. `before` lists the collections that existed
    /// before the statement ran.
    fn sim_call(&mut self, source: &str, call: SimCall, before: &[String]) {
        match call {
            SimCall::Generated { ns, docs } => self.generated(&ns, &docs),
            SimCall::Queried { ns, ops } => self.queried(&ns, &ops),
            SimCall::ChunkSize(bytes) => {
                self.comment(&format!("ShardLab: {source}"));
                self.chunk_size(bytes);
            }
            SimCall::Balanced {
                migrations,
                balancer_on,
            } => self.balanced(source, migrations, balancer_on),
            SimCall::Reset {
                shards,
                version,
                chunk_size,
            } => {
                self.comment(&format!(
                    "ShardLab: {source}\nShardLab started over on a new, empty cluster of \
                     {shards} shard(s) in MongoDB {version}'s mode. A real cluster stays: \
                     the collections written so far are dropped instead."
                ));
                self.drop_all(before);
                self.chunk_size(chunk_size);
            }
            SimCall::Preset(id) => self.preset(source, &id, before),
            other => self.comment(&note_of(source, &other)),
        }
    }

    /// `drop()` of each collection in `namespaces`.
    fn drop_all(&mut self, namespaces: &[String]) {
        for ns in namespaces {
            let _ = writeln!(self.body, "{}.drop();", collection_expr(ns));
            self.commands += 1;
        }
    }

    /// The chunk size as MongoDB's manual sets it ("Modify Range Size in a Sharded
    /// Cluster"): `config.settings`' `chunksize` document, in whole megabytes from 1 to
    /// 1024; a size ShardLab allowed outside that is rounded into it, and said so.
    fn chunk_size(&mut self, bytes: u64) {
        let mb = bytes.div_ceil(1 << 20).clamp(1, 1024);
        if mb << 20 != bytes {
            self.comment(&format!(
                "ShardLab's chunks were {bytes} bytes; MongoDB takes the chunk size in whole \
                 megabytes from 1 to 1024, so a real cluster's chunks are {mb} MB and split \
                 and migrate at other sizes than ShardLab's."
            ));
        }
        let _ = writeln!(
            self.body,
            "db.getSiblingDB(\"config\").settings.updateOne({{_id: \"chunksize\"}}, \
             {{$set: {{_id: \"chunksize\", value: {mb}}}}}, {{upsert: true}});"
        );
        self.commands += 1;
    }

    /// A balancer round run on demand: MongoDB has no command for one round, so the
    /// script gives the real balancer a round's time, switching it on for that time if
    /// it was off.
    fn balanced(&mut self, source: &str, migrations: u64, balancer_on: bool) {
        self.comment(&format!(
            "ShardLab: {source} ran one balancer round on demand ({migrations} migration(s)).\n\
             MongoDB has no command that runs one round: its balancer runs on its own \
             schedule,\na round every 10 seconds while it has work, and a migration can take \
             longer.\nThe next lines give it a round's time; its chunks may end up \
             elsewhere than ShardLab's."
        ));
        if !balancer_on {
            self.body.push_str("sh.startBalancer();\n");
        }
        let _ = writeln!(self.body, "sleep({BALANCER_ROUND_MS});");
        if !balancer_on {
            self.body.push_str("sh.stopBalancer();\n");
        }
        self.commands += 1;
    }

    /// A lesson preset: its cluster replaces the session's, so the collections before it
    /// are dropped, then its own commands are exported from a session of its shape.
    fn preset(&mut self, source: &str, id: &str, before: &[String]) {
        let Some(preset) = crate::workload::presets::preset(id) else {
            return;
        };
        self.comment(&format!(
            "ShardLab: {source} opened the lesson on a new cluster of {} shard(s); a real \
             cluster stays, so the collections written so far are dropped and the lesson's \
             commands follow.",
            preset.shards
        ));
        self.drop_all(before);
        let mut inner = Exporter::new(ClusterConfig {
            shards: preset.shards,
            version: preset.version,
            chunk_size: None,
            seed: self.session.cluster.config().seed,
        });
        inner.text(&preset.script());
        self.body.push_str(&inner.body);
        self.commands += inner.commands;
        self.namespaces.extend(inner.namespaces);
        self.versions.extend(inner.versions);
        self.shards = self.shards.max(inner.shards);
    }

    /// The documents a workload generated, exactly, in `insertMany` batches.
    fn generated(&mut self, ns: &str, docs: &[Document]) {
        self.comment(&format!(
            "ShardLab generated these {} document(s) into {ns} (sim.generate); here they are, \
             each with the _id it got.",
            docs.len()
        ));
        for batch in batches(docs) {
            let _ = writeln!(
                self.body,
                "{}.insertMany([\n{}\n]);",
                collection_expr(ns),
                batch
                    .iter()
                    .map(|d| format!("  {}", format_script_value(&Bson::Document(d.clone()))))
                    .collect::<Vec<_>>()
                    .join(",\n")
            );
            self.commands += 1;
        }
    }

    /// A generated query workload, one real command an operation; an operation MongoDB
    /// refused is a comment, since mongosh would stop the script there.
    fn queried(&mut self, ns: &str, ops: &[(QuerySample, Option<String>)]) {
        self.comment(&format!(
            "ShardLab ran {} generated operation(s) on {ns} (sim.queries):",
            ops.len()
        ));
        let coll = collection_expr(ns);
        for (op, refused) in ops {
            let filter = format_script_value(&Bson::Document(op.filter.clone()));
            let line = match (op.command.as_str(), &op.update) {
                ("find", _) => format!("{coll}.find({filter}).toArray();"),
                (cmd, Some(update)) => format!(
                    "{coll}.{cmd}({filter}, {});",
                    format_script_value(&Bson::Document(update.clone()))
                ),
                (cmd, None) => format!("{coll}.{cmd}({filter});"),
            };
            match refused {
                Some(e) => self.comment(&format!("Left out: refused in ShardLab with {e}\n{line}")),
                None => {
                    self.body.push_str(&line);
                    self.body.push('\n');
                    self.commands += 1;
                }
            }
        }
    }

    /// The whole script: the header, the opening lines and the body; [`ExportError`]
    /// when there is no command to run.
    pub fn finish(self) -> Result<String, ExportError> {
        if self.commands == 0 {
            return Err(ExportError::Nothing);
        }
        let mut out = self.header();
        out.push_str("\n// Start again from nothing, so that the script can be run again:\n");
        for ns in &self.namespaces {
            let _ = writeln!(out, "{}.drop();", collection_expr(ns));
        }
        let start = Session::new(self.config.clone()).cluster.chunk_size();
        let mut opening = Exporter::new(self.config.clone());
        opening.comment("The chunk size the scenario started with:");
        opening.chunk_size(start);
        out.push_str(&opening.body);
        out.push('\n');
        out.push_str(&self.body);
        Ok(out)
    }

    /// The header: what cluster the script needs, how to start one, what it changes.
    fn header(&self) -> String {
        let versions: Vec<&str> = self.versions.iter().map(|v| v.label()).collect();
        let latest = self.versions.last().copied().unwrap_or(self.config.version);
        let dropped: Vec<&str> = self.namespaces.iter().map(String::as_str).collect();
        format!(
            "// A ShardLab scenario, exported for mongosh: it builds the same cluster state \
             on a real sharded cluster.\n\
             // Needs: a sharded cluster of {shards} shard(s), reached through a mongos; \
             ShardLab ran it in MongoDB {versions}'s mode.\n\
             // It drops and creates again: {dropped} (so it is safe to run again), and sets \
             the cluster's chunk size (config.settings).\n\
             // Start a local cluster and run this script in one line (Node.js, npm's \
             mongodb-runner):\n\
             //   npx mongodb-runner exec -t sharded --shards {shards} --version {latest}.x \
             -- sh -c 'mongosh \"$MONGODB_URI\" this-script.js'\n\
             // or run it on a cluster of your own: mongosh \"mongodb://<mongos>/test\" \
             this-script.js\n\
             // ShardLab's sim. helpers are written as the real commands that do what they \
             did, or as comments where MongoDB has nothing like them.\n\
             // Documents ShardLab gave an _id carry it here; those your own commands \
             inserted without one get new ObjectIds from mongosh.\n",
            shards = self.shards,
            versions = versions.join(", then "),
            latest = latest.label(),
            dropped = if dropped.is_empty() {
                "no collection".to_string()
            } else {
                dropped.join(", ")
            },
        )
    }
}

/// Splits documents into `insertMany` batches within [`EXPORT_BATCH_DOCUMENTS`],
/// [`EXPORT_BATCH_BYTES`] and [`EXPORT_BATCH_VALUES`] (a document past them alone).
fn batches(docs: &[Document]) -> Vec<&[Document]> {
    let mut out = Vec::new();
    let (mut start, mut bytes, mut values) = (0usize, 0u64, 0u64);
    for (i, d) in docs.iter().enumerate() {
        let m = measure(&Bson::Document(d.clone()), u64::MAX).unwrap_or_default();
        let full = i - start >= EXPORT_BATCH_DOCUMENTS
            || bytes + m.bytes > EXPORT_BATCH_BYTES
            || values + m.values > EXPORT_BATCH_VALUES;
        if full && i > start {
            out.push(&docs[start..i]);
            (start, bytes, values) = (i, 0, 0);
        }
        bytes += m.bytes;
        values += m.values;
    }
    if start < docs.len() {
        out.push(&docs[start..]);
    }
    out
}

/// An `insertMany` whose documents are canonical Extended JSON, as an import's batches
/// are (`workload::import_step`): the collection's expression and the documents.
fn ejson_insert(source: &str) -> Option<(&str, Vec<Document>)> {
    let (head, rest) = source.split_once(".insertMany([{\"")?;
    let array = rest.strip_suffix("], {ordered: false})")?;
    let Ok(Bson::Array(items)) = parse_ejson(&format!("[{{\"{array}]")) else {
        return None;
    };
    let docs = items
        .into_iter()
        .map(|b| match b {
            Bson::Document(d) => Some(d),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((head, docs))
}

/// A mongosh command that works only typed at its prompt (`show`, `it`), as a comment
/// with what a script writes instead.
fn shell_only(source: &str) -> Option<String> {
    let word = source.split_whitespace().next().unwrap_or_default();
    let instead = match word {
        "show" => "the commands behind it, such as db.adminCommand({listDatabases: 1})",
        "it" => "cursor.toArray()",
        _ => return None,
    };
    Some(format!(
        "{source}\n(mongosh reads this only at its prompt; a script writes {instead})"
    ))
}

/// The comment for a `sim.` helper with no real equivalent.
fn note_of(source: &str, call: &SimCall) -> String {
    let what = match call {
        SimCall::Version(v) => format!(
            "switched the simulated cluster to MongoDB {v}'s behaviour; a real cluster \
             behaves as the version you started"
        ),
        SimCall::Seed(n) => format!(
            "reseeded ShardLab's generators with {n}; the documents below are written out, \
             so nothing depends on it"
        ),
        SimCall::RetryWrites(on) => format!(
            "set retryable writes to {on}; in mongosh that is the connection string's \
             retryWrites={on}"
        ),
        SimCall::Looked(helper) => format!(
            "only showed something (sim.{helper}): the simulated clock, the event log (a real \
             cluster's is config.changelog) or ShardLab's explanations; nothing to run"
        ),
        _ => String::new(),
    };
    format!("ShardLab: {source}\n{what}")
}
