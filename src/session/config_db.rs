//! The config database from the shell: `db.getSiblingDB("config").chunks.find(...)`,
//! `use config` then `db.chunks.find()`, `countDocuments` and `aggregate`, over the
//! documents [`crate::engine::config_catalog`] lays out for the cluster's version mode.
//! The config database is read-only here: writes are refused with the error an
//! authenticated user without the cluster's internal privileges gets from a mongos.

use super::interpreter::{Output, Session, StatementError};
use crate::engine::cluster::ClusterError;
use crate::engine::config_catalog::config_documents;
use crate::query;
use crate::shell::parser::Segment;
use crate::shell::Expr;
use crate::values::error::Code;
use bson::{Bson, Document};

/// The methods that write, with the command the driver sends for each.
const WRITES: &[(&str, &str)] = &[
    ("insertOne", "insert"),
    ("insertMany", "insert"),
    ("insert", "insert"),
    ("updateOne", "update"),
    ("updateMany", "update"),
    ("replaceOne", "update"),
    ("update", "update"),
    ("deleteOne", "delete"),
    ("deleteMany", "delete"),
    ("remove", "delete"),
    ("findOneAndUpdate", "findAndModify"),
    ("findOneAndReplace", "findAndModify"),
    ("findOneAndDelete", "findAndModify"),
    ("findAndModify", "findAndModify"),
    ("bulkWrite", "insert"),
    ("drop", "drop"),
    ("createIndex", "createIndexes"),
    ("createIndexes", "createIndexes"),
    ("ensureIndex", "createIndexes"),
    ("dropIndex", "dropIndexes"),
    ("dropIndexes", "dropIndexes"),
    ("renameCollection", "renameCollection"),
];

/// The collection part of `ns` when it is in the config database.
pub(super) fn config_collection(ns: &str) -> Option<&str> {
    ns.strip_prefix("config.")
}

impl Session {
    /// A method called on a config collection, when it is one the config database
    /// answers differently (reads from the catalog, refused writes); `None` lets the
    /// ordinary collection methods answer (`getName`, ...).
    pub(super) fn config_chain(
        &mut self,
        ns: &str,
        rest: &[Segment],
    ) -> Option<Result<Output, StatementError>> {
        let coll = config_collection(ns)?;
        let method = rest.first()?;
        let args = method.args.as_deref()?;
        let chained = &rest[1..];
        let name = method.name.as_str();
        if let Some((_, command)) = WRITES.iter().find(|(m, _)| *m == name) {
            return Some(self.refuse_config_write(coll, name, command, args));
        }
        let docs = || config_documents(&self.cluster, coll).unwrap_or_default();
        Some(match name {
            "find" | "findOne" => self.config_find(docs(), name == "findOne", args, chained),
            "countDocuments" | "count" => self.config_count(docs(), args, chained),
            "estimatedDocumentCount" => {
                let n = docs().len() as i32;
                super::interpreter::navigate(Output::Value(Bson::Int32(n)), chained)
            }
            "aggregate" => {
                let docs = docs();
                self.aggregate_documents(ns, docs, args, chained)
            }
            "distinct" => self.config_distinct(docs(), args, chained),
            _ => return None,
        })
    }

    /// `find(filter, projection)` and `findOne`, with the cursor methods chained on it.
    fn config_find(
        &mut self,
        docs: Vec<Document>,
        one: bool,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let filter = self.opt_doc_arg(args, 0, "filter")?;
        let mut projection = match self.opt_arg(args, 1)? {
            Some(Bson::Document(p)) => Some(p),
            _ => None,
        };
        let (mut sort, mut skip, mut limit, mut count) = (None, 0usize, None, false);
        let mut array = false;
        let mut rest: &[Segment] = &[];
        for (i, seg) in chained.iter().enumerate() {
            let Some(a) = seg.args.as_deref() else {
                rest = &chained[i..];
                break;
            };
            match seg.name.as_str() {
                "sort" => sort = Some(self.doc_arg(a, 0, "sort")?),
                "limit" => limit = Some(self.int_arg(a, 0, "limit")?.unsigned_abs() as usize),
                "skip" => skip = self.int_arg(a, 0, "skip")?.max(0) as usize,
                "count" | "itcount" | "size" => count = true,
                "projection" => projection = Some(self.doc_arg(a, 0, "projection")?),
                "toArray" => {
                    array = true;
                    rest = &chained[i + 1..];
                    break;
                }
                "pretty" => {}
                other => {
                    return Err(StatementError::type_error(format!(
                        "cursor.{other} is not a function"
                    )))
                }
            }
        }
        let mut docs = matching(docs, &filter)?;
        if let Some(sort) = &sort {
            query::sort_documents(&mut docs, sort);
        }
        let limit = match (one, limit) {
            (true, _) => 1,
            (_, Some(l)) if l > 0 => l,
            _ => usize::MAX,
        };
        let docs: Vec<Document> = docs.into_iter().skip(skip).take(limit).collect();
        if count {
            let n = Output::Value(Bson::Int32(docs.len() as i32));
            return super::interpreter::navigate(n, rest);
        }
        let docs = match &projection {
            Some(p) => docs
                .iter()
                .map(|d| query::project(d, p))
                .collect::<Result<Vec<_>, _>>()?,
            None => docs,
        };
        let out = if one {
            Output::Value(docs.into_iter().next().map_or(Bson::Null, Bson::Document))
        } else if array {
            super::cursor::to_array(docs)
        } else {
            Output::Cursor(docs)
        };
        super::interpreter::navigate(out, rest)
    }

    /// `countDocuments(filter, {skip, limit})` (and the legacy `count(filter)`).
    fn config_count(
        &mut self,
        docs: Vec<Document>,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let filter = self.opt_doc_arg(args, 0, "filter")?;
        let options = self.opt_doc_arg(args, 1, "options")?;
        let n = count_with_options(matching(docs, &filter)?.len() as i64, &options);
        super::interpreter::navigate(Output::Value(Bson::Int32(n as i32)), chained)
    }

    /// `distinct(field, filter)`: each value of `field` once (an array's elements
    /// counted one by one), in the order first met, as an array.
    fn config_distinct(
        &mut self,
        docs: Vec<Document>,
        args: &[Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let field = self.str_arg(args, 0, "field")?;
        let filter = self.opt_doc_arg(args, 1, "filter")?;
        let docs = matching(docs, &filter)?;
        let all = docs.iter().flat_map(|d| {
            crate::query::filter::path_values(d, &field)
                .into_iter()
                .flatten()
                .filter(|v| !matches!(v, Bson::Array(_)))
                .cloned()
                .collect::<Vec<_>>()
        });
        let values = crate::query::pipeline::distinct_values(all);
        super::interpreter::navigate(Output::Value(Bson::Array(values)), chained)
    }

    /// A write to the config database, refused as a mongos refuses a user without the
    /// privilege: `not authorized on config to execute command { ... }`, the command as
    /// the driver sends it (without its session and cluster time fields), printed as
    /// `BSONObj::toString` prints it (`Command::checkAuthorization`,
    /// src/mongo/db/commands.cpp).
    fn refuse_config_write(
        &mut self,
        coll: &str,
        method: &str,
        command: &str,
        args: &[Expr],
    ) -> Result<Output, StatementError> {
        let mut cmd = Document::new();
        cmd.insert(command, coll);
        let first = self.opt_arg(args, 0)?;
        let second = self.opt_arg(args, 1)?;
        match command {
            "insert" => {
                let docs = match first {
                    Some(Bson::Array(a)) => a,
                    Some(d) => vec![d],
                    None => Vec::new(),
                };
                cmd.insert("documents", docs);
                cmd.insert("ordered", true);
            }
            "update" => {
                let mut u = Document::new();
                u.insert("q", first.unwrap_or(Bson::Document(Document::new())));
                u.insert("u", second.unwrap_or(Bson::Document(Document::new())));
                if method == "updateMany" {
                    u.insert("multi", true);
                }
                cmd.insert("updates", vec![Bson::Document(u)]);
                cmd.insert("ordered", true);
            }
            "delete" => {
                let mut d = Document::new();
                d.insert("q", first.unwrap_or(Bson::Document(Document::new())));
                d.insert("limit", i32::from(method == "deleteOne"));
                cmd.insert("deletes", vec![Bson::Document(d)]);
                cmd.insert("ordered", true);
            }
            _ => {}
        }
        cmd.insert("$db", "config");
        Err(ClusterError::Coded(
            Code::Unauthorized,
            format!(
                "not authorized on config to execute command {}",
                crate::keys::shard_key::format_bson_obj(&cmd)
            ),
        )
        .into())
    }
}

/// The documents that match `filter`.
fn matching(docs: Vec<Document>, filter: &Document) -> Result<Vec<Document>, ClusterError> {
    let f = crate::query::filter::parse_filter(filter)?;
    crate::query::pipeline::keep_matching(&f, docs)
}

/// `countDocuments`'s count of `n` matching documents under its `{skip, limit}` options:
/// the driver counts with `$skip` and `$limit` stages before `$group` (the Node driver's
/// `CountDocumentsOperation`).
pub(super) fn count_with_options(n: i64, options: &Document) -> i64 {
    let whole = |k: &str| match options.get(k) {
        Some(Bson::Int32(n)) => Some(i64::from(*n)),
        Some(Bson::Int64(n)) => Some(*n),
        Some(Bson::Double(d)) if d.fract() == 0.0 => Some(*d as i64),
        _ => None,
    };
    let mut n = (n - whole("skip").unwrap_or(0).max(0)).max(0);
    if let Some(l) = whole("limit").filter(|l| *l > 0) {
        n = n.min(l);
    }
    n
}
