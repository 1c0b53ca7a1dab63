//! `db.<collection>.` methods, with the result shapes mongosh returns.

use super::interpreter::{call_args, ErrorKind, Output, Session, StatementError};
use super::status;
use crate::engine::cluster::VersionMode;
use crate::engine::crud::QueryTarget;
use crate::query;
use crate::shell::parser::Segment;
use bson::{doc, Bson, Document};

/// A `find()` being built up by chained cursor methods.
#[derive(Default)]
struct Cursor {
    filter: Document,
    projection: Option<Document>,
    sort: Option<Document>,
    skip: u64,
    limit: Option<u64>,
}

/// The methods whose first argument mongosh checks with `assertArgsDefinedType(..., [true],
/// 'Collection.<name>')` before anything else (packages/shell-api/src/collection.ts).
const REQUIRED_FIRST_ARGUMENT: &[&str] = &[
    "insertOne",
    "insertMany",
    "insert",
    "deleteOne",
    "deleteMany",
    "remove",
    "updateOne",
    "updateMany",
    "replaceOne",
    "createIndex",
];

/// `db.<collection>.<name> is not a function`.
fn not_a_function(ns: &str, name: &str) -> StatementError {
    StatementError::type_error(format!("db.{}.{name} is not a function", short(ns)))
}

impl Session {
    pub(super) fn collection_chain(
        &mut self,
        ns: &str,
        rest: &[Segment],
    ) -> Result<Output, StatementError> {
        let Some(method) = rest.first() else {
            return Ok(Output::Message(ns.to_string()));
        };
        if matches!(method.name.as_str(), "find" | "aggregate") && method.args.is_some() {
            self.forget_cursor();
        }
        if method.args.is_some() {
            self.deprecation_warning(method.name.as_str());
        }
        if super::config_db::config_collection(ns).is_some() {
            let call = super::later::LaterCall::Config(ns, rest);
            if let Some(out) = self.later("config database", call) {
                return out;
            }
        }
        let args = call_args(method)?;
        let chained = &rest[1..];
        let name = method.name.as_str();
        if name == "help" {
            return Ok(Output::Message(super::help::collection_help()));
        }
        if matches!(name, "find" | "findOne") {
            return self.find_chain(ns, name, args, chained);
        }
        if name == "aggregate" {
            let call = super::later::LaterCall::Aggregate(ns, args, chained);
            return self
                .later("aggregation", call)
                .unwrap_or_else(|| Ok(Output::Nothing));
        }
        let out = self.collection_method(ns, name, args)?;
        super::interpreter::navigate(out, chained)
    }

    fn find_chain(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
        chained: &[Segment],
    ) -> Result<Output, StatementError> {
        let mut cursor = Cursor {
            filter: self.opt_doc_arg(args, 0, "filter")?,
            projection: match self.opt_arg(args, 1)? {
                Some(Bson::Document(p)) => Some(p),
                _ => None,
            },
            ..Cursor::default()
        };
        if name == "findOne" {
            cursor.limit = Some(1);
        }
        self.run_cursor(ns, cursor, chained, name == "findOne")
    }

    fn collection_method(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        if args.is_empty() && REQUIRED_FIRST_ARGUMENT.contains(&name) {
            // assertArgsDefinedType([doc|docs|filter|keys], [true], 'Collection.<name>')
            // in packages/shell-api/src/collection.ts.
            return Err(StatementError::invalid_input(format!(
                "Missing required argument at position 0 (Collection.{name})"
            )));
        }
        let out = match name {
            "insertOne" => {
                // collection.ts inserts `{ ...doc }`.
                let d = match self.arg(args, 0, "document")?.clone() {
                    Bson::Document(d) => d,
                    Bson::Undefined => {
                        return Err(StatementError::invalid_input(
                            "Missing required argument at position 0 (Collection.insertOne)",
                        ))
                    }
                    other => spread(other.clone()).ok_or_else(|| {
                        StatementError::type_error(format!(
                            "document must be an object, got {}",
                            crate::shell::format_value(&other)
                        ))
                    })?,
                };
                let d = with_driver_id(d);
                let ids = self
                    .cluster
                    .insert_many(ns, vec![d])
                    .map_err(|(_, e)| write_error(e.into()))?;
                doc! { "acknowledged": true, "insertedId": ids.iter().next().unwrap_or(Bson::Null) }
            }
            "insertMany" | "insert" => self.insert_many(ns, name, args)?,
            "countDocuments" | "count" => {
                let filter = self.opt_doc_arg(args, 0, "filter")?;
                let options = self.opt_doc_arg(args, 1, "options")?;
                let (docs, _) = self.cluster.find(ns, &filter)?;
                let n = super::config_db::count_with_options(docs.len() as i64, &options);
                return Ok(Output::Value(Bson::Int32(n as i32)));
            }
            "estimatedDocumentCount" => {
                let n = self.cluster.collection(ns).map_or(0, |c| c.doc_count());
                return Ok(Output::Value(Bson::Int32(n as i32)));
            }
            "updateOne" | "updateMany" | "replaceOne" => {
                self.update_method(ns, name, args).map_err(write_error)?
            }
            "deleteOne" | "deleteMany" | "remove" => {
                let filter = self.doc_arg(args, 0, "filter")?;
                // helpers.ts `processRemoveOptions`: `remove(q, true)` or
                // `remove(q, {justOne: true})` deletes one document.
                let just_one = name == "remove"
                    && match self.opt_arg(args, 1)? {
                        Some(Bson::Boolean(b)) => b,
                        Some(Bson::Document(o)) => super::find_and_modify::truthy(o.get("justOne")),
                        _ => false,
                    };
                self.record_write(ns, &filter, name, None, false);
                let n = self
                    .cluster
                    .delete(ns, &filter, name != "deleteOne" && !just_one)
                    .map_err(|e| write_error(e.into()))?;
                doc! { "acknowledged": true, "deletedCount": n as i32 }
            }
            "findOneAndUpdate"
            | "findOneAndReplace"
            | "findOneAndDelete"
            | "findAndModify"
            | "analyzeShardKey"
            | "configureQueryAnalyzer"
            | "createIndex"
            | "ensureIndex"
            | "getIndexes"
            | "getShardDistribution"
            | "distinct"
            | "stats" => {
                let call = super::later::LaterCall::Collection(ns, name, args);
                let what = format!("Collection.{name}");
                return self
                    .later(&what, call)
                    .unwrap_or_else(|| Err(not_a_function(ns, name)));
            }
            "getFullName" => return Ok(Output::Value(Bson::String(ns.to_string()))),
            "getName" => return Ok(Output::Value(Bson::String(short(ns).to_string()))),
            "drop" => {
                let existed = self.cluster.drop_collection(ns);
                return Ok(Output::Value(Bson::Boolean(existed)));
            }
            other => return Err(not_a_function(ns, other)),
        };
        Ok(Output::Value(Bson::Document(out)))
    }

    /// The collection methods a first visit does not run (see [`super::later`]); `None`
    /// for another name.
    pub(super) fn later_collection_method(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Option<Result<Output, StatementError>> {
        Some(match name {
            "findOneAndUpdate" | "findOneAndReplace" | "findOneAndDelete" | "findAndModify" => {
                self.find_and_modify_method(ns, name, args)
            }
            "analyzeShardKey" | "configureQueryAnalyzer" => self.analyzer_helper(ns, name, args),
            "createIndex" | "ensureIndex" => self.create_index(ns, name, args),
            "getIndexes" => Ok(Output::Value(Bson::Array(self.indexes(ns)))),
            "getShardDistribution" => self.shard_distribution(ns),
            "distinct" => self.distinct(ns, args),
            "stats" => self.collection_stats(ns, args),
            _ => return None,
        })
    }

    /// `getShardDistribution()`.
    fn shard_distribution(&mut self, ns: &str) -> Result<Output, StatementError> {
        // collection.ts, `_getShardedCollectionInfo`: no `config.collections`
        // entry for an existing collection means it is not sharded.
        if self
            .cluster
            .collection(ns)
            .is_some_and(|c| c.sharding.is_none())
        {
            return Err(StatementError::invalid_input_coded(
                "SHAPI-10001",
                format!("Collection {} is not sharded", short(ns)),
            ));
        }
        Ok(Output::Sections(status::shard_distribution(
            &self.cluster,
            ns,
        )?))
    }

    /// `distinct(key, query)`.
    fn distinct(
        &mut self,
        ns: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        // mongod's `distinct` (and mongos's merge of the shards' answers) keeps
        // the values in a BSONElementSet: in BSON order, one of each equal value.
        let key = self.str_arg(args, 0, "key")?;
        let filter = self.opt_doc_arg(args, 1, "query")?;
        let (docs, _) = self.cluster.find(ns, &filter)?;
        let mut values: Vec<Bson> = docs
            .iter()
            .flat_map(|d| query::distinct_values(d, &key))
            .cloned()
            .collect();
        values.sort_by(crate::values::order::compare_values);
        values.dedup_by(|a, b| {
            crate::values::order::compare_values(a, b) == std::cmp::Ordering::Equal
        });
        Ok(Output::Value(Bson::Array(values)))
    }

    /// The legacy methods collection.ts announces as deprecated before it runs them, once
    /// a session: printed as `DeprecationWarning: <message>` before the answer.
    fn deprecation_warning(&mut self, method: &str) {
        let message = match method {
            "count" => {
                "Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount."
            }
            "insert" => {
                "Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite."
            }
            "remove" => {
                "Collection.remove() is deprecated. Use deleteOne, deleteMany, findOneAndDelete, \
                 or bulkWrite."
            }
            _ => return,
        };
        self.deprecation_warning_text(message);
    }

    /// Prints `DeprecationWarning: <message>` unless this session printed it already
    /// (shell-instance-state.ts `printDeprecationWarning`).
    pub(super) fn deprecation_warning_text(&mut self, message: &'static str) {
        if self.warnings_shown.insert(message) {
            self.script
                .printed
                .push(format!("DeprecationWarning: {message}"));
        }
    }

    /// `createIndex(keys, options)` answers the index's name; `ensureIndex` answers the
    /// names as an array, as `_createIndexes` returns them (collection.ts).
    fn create_index(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        let keys = self.doc_arg(args, 0, "keys")?;
        let options = match self.opt_arg(args, 1)? {
            None | Some(Bson::Undefined) => Document::new(),
            Some(Bson::Document(o)) => o,
            // collection.ts `createIndex`/`_createIndexes`: `typeof options !== 'object'
            // || Array.isArray(options)`.
            Some(_) => {
                return Err(StatementError::invalid_input(
                    "The \"options\" argument must be an object.",
                ))
            }
        };
        // `{unique: true}` in the options; the other options are not modelled.
        let unique = matches!(options.get("unique"), Some(Bson::Boolean(true)));
        let given = match options.get("name") {
            Some(Bson::String(n)) => Some(n.as_str()),
            _ => None,
        };
        let index = self.cluster.create_named_index(ns, &keys, unique, given)?;
        Ok(Output::Value(if name == "ensureIndex" {
            Bson::Array(vec![Bson::String(index)])
        } else {
            Bson::String(index)
        }))
    }

    /// `insertMany(docs)`, and the legacy `insert(doc or docs)`; while an inserts'
    /// tally is kept, every call is noted in it, one refused before any write included.
    fn insert_many(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Document, StatementError> {
        let before = self.insert_tally.as_ref().map(|t| t.calls.len());
        let result = self.insert_documents(ns, name, args);
        if let (Some(before), Some(tally), Err(e)) = (before, &mut self.insert_tally, &result) {
            if tally.calls.len() == before {
                tally.calls.push(super::insert_tally::InsertCall {
                    ns: ns.to_string(),
                    stopped: Some((0, e.message.clone())),
                    ..Default::default()
                });
            }
        }
        result
    }

    fn insert_documents(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Document, StatementError> {
        let docs = match self.arg(args, 0, "documents")? {
            Bson::Array(a) => a,
            Bson::Document(d) if name == "insert" => vec![Bson::Document(d)],
            // The driver's InsertManyOperation (src/operations/insert.ts).
            _ if name == "insertMany" => {
                return Err(StatementError::invalid_argument(
                    "Argument \"docs\" must be an array of documents",
                ))
            }
            other => {
                return Err(StatementError::type_error(format!(
                    "documents must be an array, got {}",
                    crate::shell::format_value(&other)
                )))
            }
        };
        let mut list = Vec::with_capacity(docs.len());
        for d in docs {
            match d {
                Bson::Document(d) => list.push(with_driver_id(d)),
                // collection.ts `insertMany` copies each as `{ ...doc }`.
                other if name == "insertMany" && spread(other.clone()).is_some() => {
                    list.push(with_driver_id(spread(other).unwrap_or_default()))
                }
                other => {
                    return Err(StatementError::type_error(format!(
                        "each document must be an object, got {}",
                        crate::shell::format_value(&other)
                    )))
                }
            }
        }
        if list.is_empty() {
            // The driver's `BulkOperationBase.execute`, before anything is sent.
            return Err(StatementError::invalid_argument(
                "Invalid BulkOperation, Batch cannot be empty",
            ));
        }
        let ordered = !matches!(
            self.opt_arg(args, 1)?,
            Some(Bson::Document(o)) if matches!(o.get("ordered"), Some(Bson::Boolean(false)))
        );
        let mut inserted: Vec<(usize, Bson)> = Vec::new();
        let mut failed: Vec<(usize, StatementError, Document)> = Vec::new();
        let mut next = 0;
        // After a failure (unordered), the documents go in one call each: a call encodes
        // a group of documents ahead, which a failure at its start would waste, so that
        // many failures would cost a group each.
        let mut one_by_one = false;
        while next < list.len() {
            let take = if one_by_one { 1 } else { list.len() - next };
            match self.cluster.insert_many(ns, list[next..next + take].iter()) {
                Ok(ids) => {
                    inserted.extend(ids.iter().enumerate().map(|(i, id)| (next + i, id)));
                    next += take;
                }
                Err((ids, e)) => {
                    let e = StatementError::from(e);
                    if e.kind == ErrorKind::Server && !whole_command_error(&e) {
                        let at = next + ids.len();
                        inserted.extend(ids.iter().enumerate().map(|(i, id)| (next + i, id)));
                        failed.push((at, e, list[at].clone()));
                        next = at + 1;
                        if ordered {
                            break;
                        }
                        one_by_one = true;
                    } else {
                        let at = next + ids.len();
                        inserted.extend(ids.iter().enumerate().map(|(i, id)| (next + i, id)));
                        self.tally_call(ns, &inserted, &failed, Some((at, &e.message)));
                        return Err(e);
                    }
                }
            }
        }
        if ordered && next < list.len() {
            let why = failed.last().map(|(_, e, _)| e.message.clone());
            self.tally_call(ns, &inserted, &failed, why.as_deref().map(|w| (next, w)));
        } else {
            self.tally_call(ns, &inserted, &failed, None);
        }
        if failed.is_empty() {
            let ids = inserted.into_iter().map(|(i, id)| (i.to_string(), id));
            return Ok(doc! { "acknowledged": true, "insertedIds": ids.collect::<Document>() });
        }
        Err(bulk_write_error(&inserted, failed))
    }

    /// Notes an `insertMany` call in the inserts' tally, when one is kept.
    fn tally_call(
        &mut self,
        ns: &str,
        inserted: &[(usize, Bson)],
        failed: &[(usize, StatementError, Document)],
        stopped: Option<(usize, &str)>,
    ) {
        if let Some(tally) = &mut self.insert_tally {
            tally.calls.push(super::insert_tally::InsertCall {
                ns: ns.to_string(),
                inserted: inserted.len() as u64,
                errors: failed
                    .iter()
                    .map(|(i, e, _)| (*i as u64, e.message.clone()))
                    .collect(),
                stopped: stopped.map(|(i, why)| (i as u64, why.to_string())),
            });
        }
    }

    /// The update of `name`'s second argument, checked as the driver's
    /// `makeUpdateStatement` checks it: an object (or a pipeline), with atomic operators for
    /// `updateOne` and `updateMany` and without them for `replaceOne` (the legacy `update`
    /// takes either).
    pub(super) fn update_arg(
        &mut self,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Document, StatementError> {
        let update = match self.opt_arg(args, 1)? {
            Some(Bson::Document(d)) => d,
            // An empty pipeline has no atomic operator (`hasAtomicOperators([])`).
            Some(Bson::Array(a)) if a.is_empty() && name != "replaceOne" => Document::new(),
            Some(Bson::Array(_)) => self.doc_arg(args, 1, "update")?,
            _ => {
                return Err(StatementError::invalid_argument(
                    "Document must be a valid JavaScript object",
                ))
            }
        };
        let is_ops = update.keys().next().is_some_and(|k| k.starts_with('$'));
        if name == "replaceOne" && is_ops {
            return Err(StatementError::invalid_argument(
                "Replacement document must not contain atomic operators",
            ));
        }
        if matches!(name, "updateOne" | "updateMany") && !is_ops {
            return Err(StatementError::invalid_argument(
                "Update document requires atomic operators",
            ));
        }
        Ok(update)
    }

    /// `updateOne`, `updateMany` (operator updates) and `replaceOne` (a replacement).
    fn update_method(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Document, StatementError> {
        // The driver's `makeUpdateStatement` (src/operations/update.ts) checks the filter
        // and the update are objects (`typeof x !== 'object'`, null included).
        let filter = match self.opt_arg(args, 0)? {
            Some(Bson::Document(d)) => d,
            _ => {
                return Err(StatementError::invalid_argument(
                    "Selector must be a valid JavaScript object",
                ))
            }
        };
        let update = self.update_arg(name, args)?;
        // Only `upsert` changes how mongos targets the write; the other options (hint,
        // collation, arrayFilters, writeConcern) are accepted and not modelled.
        // collection.ts spreads the options (`{...baseOptions, ...options}`), so a
        // value that is not an object adds no option.
        let options = match self.opt_arg(args, 2)? {
            Some(Bson::Document(d)) => d,
            _ => Document::new(),
        };
        let upsert = matches!(options.get("upsert"), Some(Bson::Boolean(true)));
        self.record_write(ns, &filter, name, Some(&update), upsert);
        let r = self
            .cluster
            .update_with(ns, &filter, &update, name == "updateMany", upsert)?;
        // mongosh's UpdateResult (result.ts) names the upserted `_id` `insertedId`.
        Ok(doc! {
            "acknowledged": true,
            "insertedId": r.upserted_id.clone().unwrap_or(Bson::Null),
            "matchedCount": r.matched as i32,
            "modifiedCount": r.modified as i32,
            "upsertedCount": i32::from(r.upserted_id.is_some()),
        })
    }

    /// `db.coll.analyzeShardKey(key, options)` and `db.coll.configureQueryAnalyzer(options)`
    /// (collection.ts, 7.0 on): the admin command on this namespace with the options merged
    /// in. A mongos before 7.0 has no such command, so in the 3.6 and 5.0 modes the helper
    /// gets its "no such cmd" (the admin commands themselves stay open in every mode: the
    /// page's insights run them whatever the version).
    fn analyzer_helper(
        &mut self,
        ns: &str,
        name: &str,
        args: &[crate::shell::Expr],
    ) -> Result<Output, StatementError> {
        if self.cluster.version() < VersionMode::V70 {
            return Err(super::sh::no_such_command(name).into());
        }
        let mut cmd = doc! { name: ns };
        let options = if name == "analyzeShardKey" {
            // assertArgsDefinedType([key], [true], 'Collection.analyzeShardKey').
            let key = self.opt_arg(args, 0)?.ok_or_else(|| {
                StatementError::invalid_input(
                    "Missing required argument at position 0 (Collection.analyzeShardKey)",
                )
            })?;
            cmd.insert("key", key);
            self.opt_doc_arg(args, 1, "options")?
        } else {
            self.opt_doc_arg(args, 0, "options")?
        };
        for (k, v) in options {
            cmd.insert(k, v);
        }
        self.admin_command(&cmd)
    }

    /// `getIndexes()`: `_id_` first, then the indexes created, in order.
    fn indexes(&self, ns: &str) -> Vec<Bson> {
        let mut list = vec![Bson::Document(
            doc! { "v": 2, "key": { "_id": 1 }, "name": "_id_" },
        )];
        if let Some(c) = self.cluster.collection(ns) {
            for k in &c.indexes {
                let mut spec = doc! { "v": 2, "key": k.clone(), "name": c.index_name_of(k) };
                if c.is_unique_index(k) {
                    spec.insert("unique", true);
                }
                list.push(Bson::Document(spec));
            }
        }
        list
    }

    /// `cursor.sort(spec)` as the driver's `formatSort` (src/sort.ts) takes it: nothing
    /// for `null`/`undefined`, a field name for ascending order, else a document.
    fn sort_arg(
        &mut self,
        args: &[crate::shell::Expr],
    ) -> Result<Option<Document>, StatementError> {
        match self.opt_arg(args, 0)? {
            None | Some(Bson::Null | Bson::Undefined) => Ok(None),
            Some(Bson::String(field)) => Ok(Some(doc! { field: 1 })),
            Some(Bson::Document(d)) => Ok(Some(d)),
            Some(Bson::Array(_)) => self.doc_arg(args, 0, "sort").map(Some),
            // `JSON.stringify` of a number or boolean is its JavaScript text.
            Some(other) => Err(StatementError::invalid_argument(format!(
                "Invalid sort format: {} Sort must be a valid object",
                crate::shell::format_value(&other)
            ))),
        }
    }

    /// `cursor.limit(n)`/`skip(n)`: the driver's `FindCursor` refuses what is not a
    /// JavaScript number (`typeof value !== 'number'`, src/cursor/find_cursor.ts).
    fn cursor_int_arg(
        &mut self,
        args: &[crate::shell::Expr],
        what: &str,
    ) -> Result<i64, StatementError> {
        match self.opt_arg(args, 0)? {
            Some(Bson::Int32(_) | Bson::Double(_)) => self.int_arg(args, 0, what),
            _ => Err(StatementError::invalid_argument(format!(
                "Operation \"{what}\" requires an integer"
            ))),
        }
    }

    /// `cursor.skip(n)`: a negative skip reaches the server, which refuses it (the find
    /// command's IDL validator `gte: 0` from 4.4, `QueryRequest::validate` before).
    fn skip_arg(&mut self, args: &[crate::shell::Expr]) -> Result<u64, StatementError> {
        let n = self.cursor_int_arg(args, "skip")?;
        if n >= 0 {
            return Ok(n as u64);
        }
        Err(
            if self.cluster.version() == crate::engine::VersionMode::V36 {
                StatementError::server_coded(
                    2,
                    "BadValue",
                    format!("Skip value must be non-negative, but received: {n}"),
                )
            } else {
                StatementError::server_coded(
                    51_024,
                    "Location51024",
                    format!("BSON field 'skip' value must be >= 0, actual value '{n}'"),
                )
            },
        )
    }

    fn run_cursor(
        &mut self,
        ns: &str,
        mut cursor: Cursor,
        chained: &[Segment],
        one: bool,
    ) -> Result<Output, StatementError> {
        let mut explain = false;
        let mut count = false;
        let mut array = false;
        let mut rest: &[Segment] = &[];
        for (i, seg) in chained.iter().enumerate() {
            let Some(args) = seg.args.as_deref() else {
                rest = &chained[i..];
                break;
            };
            match seg.name.as_str() {
                "sort" => cursor.sort = self.sort_arg(args)?,
                // The driver sends a negative limit as `limit: -n, singleBatch: true`.
                "limit" => cursor.limit = Some(self.cursor_int_arg(args, "limit")?.unsigned_abs()),
                "skip" => cursor.skip = self.skip_arg(args)?,
                "count" | "itcount" | "size" => count = true,
                "explain" => {
                    explain = true;
                    rest = &chained[i + 1..];
                    break;
                }
                "toArray" => {
                    array = true;
                    rest = &chained[i + 1..];
                    break;
                }
                "pretty" => {}
                "projection" => cursor.projection = Some(self.doc_arg(args, 0, "projection")?),
                other => {
                    return Err(StatementError::type_error(format!(
                        "cursor.{other} is not a function"
                    )));
                }
            }
        }
        self.record_read(ns, &cursor.filter);
        let (mut docs, target) = self.cluster.find(ns, &cursor.filter)?;
        if explain {
            let sorted = cursor.sort.as_ref().is_some_and(|s| !s.is_empty());
            let out = Output::Value(Bson::Document(self.explain(
                ns,
                &cursor.filter,
                &target,
                sorted,
            )));
            // mongosh prints an `ExplainOutput` in full (format-output.ts,
            // `fullDepthInspectOptions`); a property read from it is a plain document.
            self.full_depth_output = rest.is_empty();
            return super::interpreter::navigate(out, rest);
        }
        if let Some(sort) = &cursor.sort {
            // The keys a merge sort compares: about n log2 n per sort field.
            let n = docs.len() as u64;
            let compared = n * u64::from(64 - n.leading_zeros()) * sort.len() as u64;
            crate::support::budget::charge(compared)
                .map_err(crate::values::error::ClusterError::from)?;
            query::sort_documents(&mut docs, sort);
        }
        let docs: Vec<Document> = docs
            .into_iter()
            .skip(cursor.skip as usize)
            .take(
                cursor
                    .limit
                    .filter(|l| *l > 0)
                    .map_or(usize::MAX, |l| l as usize),
            )
            .collect();
        if count {
            return super::interpreter::navigate(
                Output::Value(Bson::Int32(docs.len() as i32)),
                rest,
            );
        }
        let docs = match &cursor.projection {
            Some(p) => docs
                .iter()
                .map(|d| query::project(d, p))
                .collect::<Result<Vec<_>, _>>()?,
            None => docs,
        };
        if one {
            let out = Output::Value(docs.into_iter().next().map_or(Bson::Null, Bson::Document));
            return super::interpreter::navigate(out, rest);
        }
        let out = if array {
            super::cursor::to_array(docs)
        } else {
            Output::Cursor(docs)
        };
        super::interpreter::navigate(out, rest)
    }

    /// mongos's `explain()` shape, as `ClusterExplain::buildPlannerInfo`
    /// (src/mongo/s/commands/cluster_explain.cpp) builds it: the mongos stage
    /// (`SINGLE_SHARD`, `SHARD_MERGE`, or `SHARD_MERGE_SORT` for a sorted read on several
    /// shards) over one entry per targeted shard, `shardName` and `connectionString`
    /// first, then the shard's own `queryPlanner` fields in their era's order
    /// (`namespace`, `indexFilterSet` and `parsedQuery`, `winningPlan`, `rejectedPlans`).
    fn explain(&self, ns: &str, filter: &Document, target: &QueryTarget, sorted: bool) -> Document {
        let shards: Vec<Bson> = target
            .shards
            .iter()
            .map(|&i| {
                let shard = &self.cluster.all_shards()[i as usize];
                let mut d = doc! {
                    "shardName": shard.name.clone(),
                    "connectionString": shard.host.clone(),
                    "namespace": ns,
                };
                // `generatePlannerInfo` (src/mongo/db/query/explain.cpp) writes
                // `indexFilterSet` before `parsedQuery` up to 7.0; 8.0, which brought
                // query settings, writes it after.
                let parsed = query::explain_form(filter);
                if self.cluster.version() >= VersionMode::V70 {
                    d.insert("parsedQuery", parsed);
                    d.insert("indexFilterSet", false);
                } else {
                    d.insert("indexFilterSet", false);
                    d.insert("parsedQuery", parsed);
                }
                d.insert("winningPlan", self.cluster.shard_winning_plan(ns, filter));
                d.insert("rejectedPlans", Bson::Array(Vec::new()));
                Bson::Document(d)
            })
            .collect();
        let shards = if self.cluster.version() == VersionMode::V36 {
            shards.iter().map(legacy_negations).collect()
        } else {
            shards
        };
        let stage = crate::engine::targeting::mongos_stage(target.shards.len(), sorted);
        doc! {
            "queryPlanner": {
                "mongosPlannerVersion": 1,
                "winningPlan": { "stage": stage, "shards": shards },
            },
            "ok": 1,
        }
    }
}

/// A 3.6 shard's explain entry: every `parsedQuery` and stage `filter` with its
/// negations written as `$nor` ([`query::not_as_nor`]).
fn legacy_negations(value: &Bson) -> Bson {
    match value {
        Bson::Document(d) => Bson::Document(
            d.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("parsedQuery" | "filter", Bson::Document(f)) => {
                        (k.clone(), Bson::Document(query::not_as_nor(f)))
                    }
                    _ => (k.clone(), legacy_negations(v)),
                })
                .collect(),
        ),
        Bson::Array(items) => Bson::Array(items.iter().map(legacy_negations).collect()),
        other => other.clone(),
    }
}

/// The collection part of a namespace.
fn short(ns: &str) -> &str {
    ns.split_once('.').map_or(ns, |(_, c)| c)
}

/// A document to insert as the driver sends it: one whose `_id` is `null` (or
/// `undefined`, sent as `null`) is given a new ObjectId (the Node driver's
/// `maybeAddIdToDocuments`, `doc._id == null`). Left out here, the cluster generates it as
/// for a document without one, first in the document as mongod puts it.
fn with_driver_id(mut d: Document) -> Document {
    if matches!(d.get("_id"), Some(Bson::Null)) {
        d.remove("_id");
    }
    d
}

/// Whether a server error refuses the whole command (`ok: 0`, printed with its code
/// name) rather than one of its writes: a value nested too deep or too large for BSON
/// fails the command's parsing, a namespace or a user may not write at all, and the
/// statement's time limit stops the command.
fn whole_command_error(e: &StatementError) -> bool {
    matches!(
        e.code_name.as_str(),
        "Overflow"
            | "BSONObjectTooLarge"
            | "InvalidNamespace"
            | "Unauthorized"
            | "MaxTimeMSExpired"
    )
}

/// A server error of a single write as mongosh shows it: a write error (see
/// [`ErrorKind::Write`]), unless it refused the whole command.
fn write_error(mut e: StatementError) -> StatementError {
    if e.kind == ErrorKind::Server && !whole_command_error(&e) {
        e.kind = ErrorKind::Write;
    }
    e
}

/// `insertMany`'s write errors as the driver throws them (`MongoBulkWriteError`, whose
/// message is the first write error's `errmsg`), with what mongosh prints after it
/// (format-output.ts `formatError`): the `BulkWriteResult` and each `WriteError`, in full.
fn bulk_write_error(
    inserted: &[(usize, Bson)],
    failed: Vec<(usize, StatementError, Document)>,
) -> StatementError {
    use crate::values::inspect::{format_value_with, instance, FormatOptions};
    let full = FormatOptions::lossless();
    let result = instance(
        "BulkWriteResult",
        doc! {
            "insertedCount": inserted.len() as i32,
            "matchedCount": 0,
            "modifiedCount": 0,
            "deletedCount": 0,
            "upsertedCount": 0,
            "upsertedIds": {},
            "insertedIds": inserted
                .iter()
                .map(|(i, id)| (i.to_string(), id.clone()))
                .collect::<Document>(),
        },
    );
    let mut first = None;
    let mut errors = Vec::with_capacity(failed.len());
    for (index, e, op) in failed {
        let err = doc! {
            "index": index as i32,
            "code": e.code,
            "errmsg": e.message.clone(),
            "errInfo": Bson::Undefined,
            "op": op,
        };
        errors.push(instance("WriteError", doc! { "err": err }));
        first.get_or_insert(e);
    }
    let mut e = first.unwrap_or_else(|| StatementError::type_error("no write error"));
    e.kind = ErrorKind::BulkWrite;
    e.detail = format!(
        "\nResult: {}\nWrite Errors: {}",
        format_value_with(&result, &full),
        format_value_with(&Bson::Array(errors), &full)
    );
    e
}

/// JavaScript's `{ ...value }` of a value that is not a document: nothing of `null`, a
/// number or a boolean, each character of a string and each element of
/// an array under its index. `None` for the values whose spread ShardLab does not model
/// (the BSON classes, whose own properties are the driver's).
fn spread(value: Bson) -> Option<Document> {
    match value {
        Bson::Null | Bson::Int32(_) | Bson::Double(_) | Bson::Boolean(_) => Some(Document::new()),
        Bson::String(s) => Some(
            s.encode_utf16()
                .enumerate()
                .map(|(i, u)| {
                    let c = String::from_utf16_lossy(&[u]);
                    (i.to_string(), Bson::String(c))
                })
                .collect(),
        ),
        Bson::Array(a) => Some(
            a.into_iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
        ),
        _ => None,
    }
}
