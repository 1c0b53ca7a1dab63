//! `db.<collection>.findOneAndUpdate`, `findOneAndReplace`, `findOneAndDelete` and the
//! legacy `findAndModify`, with mongosh's options and return shape (the document, or
//! `null`), as packages/shell-api/src/collection.ts and helpers.ts build them.

use super::interpreter::{Output, Session, StatementError};
use crate::engine::crud::{FindAndModify, Modify};
use crate::shell::Expr;
use bson::{Bson, Document};

/// What a find-and-modify helper was asked, after mongosh has read its options.
struct Request {
    filter: Document,
    update: Option<Document>,
    options: Document,
    return_new: bool,
}

impl Session {
    /// `findOneAndUpdate(filter, update, options)`, `findOneAndReplace(filter,
    /// replacement, options)`, `findOneAndDelete(filter, options)`, `findAndModify(spec)`.
    pub(super) fn find_and_modify_method(
        &mut self,
        ns: &str,
        name: &str,
        args: &[Expr],
    ) -> Result<Output, StatementError> {
        let first = self.opt_arg(args, 0)?.ok_or_else(|| {
            StatementError::invalid_input(format!(
                "Missing required argument at position 0 (Collection.{name})"
            ))
        })?;
        let req = match name {
            "findOneAndDelete" => Request {
                filter: driver_object(Some(first), "filter")?,
                update: None,
                options: self.opt_doc_arg(args, 1, "options")?,
                return_new: false,
            },
            "findAndModify" => legacy_request(self.doc_arg(args, 0, "options")?)?,
            _ => {
                let filter = driver_object(Some(first), "filter")?;
                let what = if name == "findOneAndReplace" {
                    "replacement"
                } else {
                    "update"
                };
                let update = driver_object(self.opt_arg(args, 1)?, what)?;
                check_update_kind(name, &update)?;
                let options = self.opt_doc_arg(args, 2, "options")?;
                let return_new = return_new(&options)?;
                Request {
                    filter,
                    update: Some(update),
                    options,
                    return_new,
                }
            }
        };
        let sort = option_doc(&req.options, "sort")?;
        let projection = option_doc(&req.options, "projection")?;
        let command = if name == "findAndModify" {
            match &req.update {
                None => "findOneAndDelete",
                Some(u) if is_operator_update(u) => "findOneAndUpdate",
                Some(_) => "findOneAndReplace",
            }
        } else {
            name
        };
        self.record_write(ns, &req.filter, command, req.update.as_ref(), false);
        let found = self.cluster.find_and_modify(
            ns,
            &FindAndModify {
                filter: &req.filter,
                sort: sort.as_ref(),
                modify: req.update.as_ref().map_or(Modify::Remove, Modify::Update),
                upsert: req.update.is_some() && truthy(req.options.get("upsert")),
                return_new: req.return_new,
            },
        )?;
        let value = match (found, &projection) {
            (Some(doc), Some(p)) => Bson::Document(crate::query::project(&doc, p)?),
            (Some(doc), None) => Bson::Document(doc),
            (None, _) => Bson::Null,
        };
        Ok(Output::Value(value))
    }
}

/// An argument the Node driver wants as an object (`FindOneAndUpdateOperation` and its
/// siblings, operations/find_and_modify.ts): `Argument "<name>" must be an object`.
fn driver_object(value: Option<Bson>, name: &str) -> Result<Document, StatementError> {
    match value {
        Some(Bson::Document(d)) => Ok(d),
        _ => Err(StatementError::invalid_argument(format!(
            "Argument \"{name}\" must be an object"
        ))),
    }
}

/// The Node driver's checks before it sends the command (`hasAtomicOperators`): an
/// update must be operators, a replacement must hold none.
fn check_update_kind(name: &str, update: &Document) -> Result<(), StatementError> {
    match (name, is_operator_update(update)) {
        ("findOneAndReplace", true) => Err(StatementError::invalid_argument(
            "Replacement document must not contain atomic operators",
        )),
        ("findOneAndUpdate", false) => Err(StatementError::invalid_argument(
            "Update document requires atomic operators",
        )),
        _ => Ok(()),
    }
}

/// An update whose first field is an operator.
fn is_operator_update(update: &Document) -> bool {
    update.keys().next().is_some_and(|k| k.starts_with('$'))
}

/// `processFindAndModifyOptions` (helpers.ts): `returnDocument` ('before' or 'after',
/// anything else refused) wins, then `returnOriginal`, then mongosh's
/// `returnNewDocument`, then `new`; the document before the change by default.
fn return_new(options: &Document) -> Result<bool, StatementError> {
    if let Some(v) = options.get("returnDocument") {
        return match v {
            Bson::String(s) if s == "before" => Ok(false),
            Bson::String(s) if s == "after" => Ok(true),
            _ => Err(StatementError::invalid_input(
                "returnDocument needs to be either 'before' or 'after'",
            )),
        };
    }
    if let Some(v) = options.get("returnOriginal") {
        return Ok(!truthy(Some(v)));
    }
    Ok(truthy(
        options
            .get("returnNewDocument")
            .or_else(|| options.get("new")),
    ))
}

/// `findAndModify({query, sort, remove, update, new, fields, projection, upsert})`
/// (collection.ts): `fields` is `projection`'s old name, `remove` makes it a
/// findOneAndDelete, and the update's first key decides between an update and a
/// replacement.
fn legacy_request(mut spec: Document) -> Result<Request, StatementError> {
    let Some(Bson::Document(filter)) = spec.get("query").cloned() else {
        return Err(StatementError::invalid_input(
            "Missing required property: \"query\"",
        ));
    };
    if spec.contains_key("projection") && spec.contains_key("fields") {
        return Err(StatementError::invalid_input(
            "Cannot specify both .fields and .projection for findAndModify()",
        ));
    }
    if let Some(fields) = spec.remove("fields") {
        spec.insert("projection", fields);
    }
    if truthy(spec.get("remove")) {
        return Ok(Request {
            filter,
            update: None,
            options: spec,
            return_new: false,
        });
    }
    let Some(Bson::Document(update)) = spec.get("update").cloned() else {
        return Err(StatementError::invalid_input(
            "Must specify options.update or options.remove",
        ));
    };
    let return_new = return_new(&spec)?;
    Ok(Request {
        filter,
        update: Some(update),
        options: spec,
        return_new,
    })
}

/// An option that must be a document when given.
fn option_doc(options: &Document, name: &str) -> Result<Option<Document>, StatementError> {
    match options.get(name) {
        None | Some(Bson::Null | Bson::Undefined) => Ok(None),
        Some(Bson::Document(d)) => Ok(Some(d.clone())),
        Some(other) => Err(StatementError::type_error(format!(
            "{name} must be an object, got {}",
            crate::shell::format_value(other)
        ))),
    }
}

/// JavaScript's truthiness of an option's value (missing is false).
pub(super) fn truthy(v: Option<&Bson>) -> bool {
    match v {
        None | Some(Bson::Null | Bson::Undefined) => false,
        Some(Bson::Boolean(b)) => *b,
        Some(Bson::Int32(n)) => *n != 0,
        Some(Bson::Int64(n)) => *n != 0,
        Some(Bson::Double(d)) => *d != 0.0 && !d.is_nan(),
        Some(Bson::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}
