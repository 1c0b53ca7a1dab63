//! The language layer of the mongosh-compatible shell.
//!
//! What a user types goes through three steps, each its own file:
//!
//! - `lexer.rs` splits text into tokens (regex literals told from division by context);
//! - `parser.rs` builds statements and expressions ([`Script`], [`Stmt`], [`Expr`]),
//!   with line and column on every error, and [`flatten`]s call chains such as
//!   `db.coll.find({}).sort({x: 1})` into segments an interpreter can match;
//! - `eval.rs` turns value expressions into BSON: literals with mongosh's number rule,
//!   the constructors (`ObjectId()`, `NumberLong()`, `ISODate()`, ..., in
//!   `constructors.rs`) and Extended JSON wrappers (`wrappers.rs`), deterministically
//!   through an [`EvalContext`] (`context.rs`), with the text forms both read in
//!   `literals.rs`.
//!
//! On the way out, [`format_value`] formats values exactly as mongosh prints them (the
//! layout itself is `values::inspect`'s) and `ejson.rs` writes and reads canonical
//! Extended JSON v2 ([`to_canonical_ejson`], [`parse_ejson`]). The commands' meaning
//! (`find`, `sh.status()`, ...) lives elsewhere; this module only reads and writes values.

pub(crate) mod completeness;
pub(crate) mod constructors;
pub(crate) mod context;
pub(crate) mod ejson;
pub(crate) mod ejson_strict;
pub(crate) mod eval;
mod js_operators;
mod js_statements;
pub(crate) mod lexer;
pub(crate) mod literals;
pub(crate) mod parser;
pub(crate) mod script_stream;
pub(crate) mod wrappers;

pub use crate::values::inspect::{
    format_document, format_script_value, format_value, format_value_with, FormatOptions,
};
pub use crate::values::js::{js_key_order, js_number};
pub use completeness::needs_more_input;
pub use context::{EvalContext, EvalError};
pub use ejson::{parse_ejson, to_canonical_ejson, to_relaxed_ejson, to_relaxed_tree, EjsonError};
pub use eval::eval_value;
pub use lexer::{LexError, Span, Token, TokenKind, MAX_SCRIPT_BYTES, MAX_TOKENS};
pub use parser::{
    flatten, parse_expression, parse_script, parse_script_recovering, BinaryOp, CompareOp, Expr,
    ExprKind, FunctionBody, FunctionDef, JsExpr, JsStmt, LogicalOp, ParseError, Script, Segment,
    Stmt, StmtKind,
};
pub use script_stream::{Piece, ScriptStream};

use bson::Bson;
use thiserror::Error;

/// Why a literal could not be read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ShellError {
    /// The text does not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The text parses but is not a value.
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// Parses and evaluates one value expression, such as `{ x: NumberLong(5) }`.
pub fn parse_value(text: &str, ctx: &mut EvalContext) -> Result<Bson, ShellError> {
    let expr = parse_expression(text)?;
    Ok(eval_value(&expr, ctx)?)
}
