//! Evaluates value expressions to BSON: literals, the mongosh constructors
//! (`ObjectId()`, `NumberLong()`, `ISODate()`, ...), Extended JSON v2 wrappers inside
//! object literals, variables and simple arithmetic.
//!
//! Numbers follow mongosh: every numeric literal is a JavaScript number, and the
//! driver stores a number as Int32 when it is integral, not `-0`, and fits in 32 bits;
//! any other number is a Double. Nothing here reads a clock or a random source: the
//! current time and the `ObjectId()`/`UUID()` generators come from [`EvalContext`].

use super::constructors::{construct, is_constructor};
use super::context::{EvalContext, EvalError};
use super::lexer::Span;
use super::literals::{bson_regex, to_number};
use super::parser::{BinaryOp, Expr, ExprKind, UnaryOp};
use super::wrappers::convert_wrapper;
use crate::values::encoding::format_js_date_string;
use crate::values::js::{js_key_order, js_number, js_number_to_string};
use crate::values::limits;
use bson::{Bson, Document};

/// How literals are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// mongosh: JavaScript numbers, constructors, variables.
    Shell,
    /// Extended JSON text: JSON values only, integers as Int32/Int64.
    Json,
}

/// Evaluates an expression to a BSON value in shell mode.
pub fn eval_value(expr: &Expr, ctx: &mut EvalContext) -> Result<Bson, EvalError> {
    Evaluator {
        ctx,
        mode: Mode::Shell,
    }
    .eval(expr)
}

/// Evaluates an expression parsed from Extended JSON text: only JSON values are
/// allowed, integers become Int32 (or Int64 when they do not fit), other numbers
/// Double, keys keep their order, and wrappers become typed values.
pub fn eval_json(expr: &Expr) -> Result<Bson, EvalError> {
    let mut ctx = EvalContext {
        js_key_order: false,
        ..EvalContext::default()
    };
    Evaluator {
        ctx: &mut ctx,
        mode: Mode::Json,
    }
    .eval(expr)
}

/// The known global names that are values on their own.
fn global_value(name: &str) -> Option<Bson> {
    match name {
        "MinKey" => Some(Bson::MinKey),
        "MaxKey" => Some(Bson::MaxKey),
        "NaN" => Some(Bson::Double(f64::NAN)),
        "Infinity" => Some(Bson::Double(f64::INFINITY)),
        _ => None,
    }
}

/// A short description of an expression for error messages.
fn describe(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Member {
            object, property, ..
        } => format!("{}.{property}", describe(object)),
        ExprKind::Index { object, .. } => format!("{}[...]", describe(object)),
        ExprKind::Call { callee, .. } => format!("{}()", describe(callee)),
        ExprKind::New { callee, .. } => format!("new {}()", describe(callee)),
        _ => "expression".into(),
    }
}

struct Evaluator<'a> {
    ctx: &'a mut EvalContext,
    mode: Mode,
}

impl Evaluator<'_> {
    fn eval(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let span = expr.span;
        if self.mode == Mode::Json {
            return self.eval_json(expr);
        }
        match &expr.kind {
            ExprKind::Number { value, .. } => Ok(js_number(*value)),
            ExprKind::String(s) => Ok(Bson::String(s.clone())),
            ExprKind::Regex { pattern, flags } => bson_regex(pattern, flags)
                .map(Bson::RegularExpression)
                .map_err(|detail| EvalError::BadArgument {
                    func: "RegExp".into(),
                    detail,
                    span,
                }),
            ExprKind::Bool(b) => Ok(Bson::Boolean(*b)),
            ExprKind::Null => Ok(Bson::Null),
            ExprKind::Undefined => Ok(Bson::Undefined),
            ExprKind::Ident(name) => self.ident(name, span),
            ExprKind::Array(items) => self.array(items, span),
            ExprKind::Object(fields) => self.object(fields, span),
            ExprKind::Member { .. } | ExprKind::Index { .. } => self.access_chain(expr),
            ExprKind::Call { callee, args } => self.call(callee, args, false, span),
            ExprKind::New { callee, args } => self.call(callee, args, true, span),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                unary(*op, &v, span)
            }
            ExprKind::Binary { .. } => self.binary_chain(expr),
            // The session's script evaluator runs these; a bare value has none.
            ExprKind::Js(_) => Err(EvalError::NotAValue {
                what: describe(expr),
                span,
            }),
        }
    }

    /// A chain of infix operators, `a + b - c …`, evaluated along its left spine in a
    /// loop: a long chain costs no stack (the parser bounds its height, and a debug
    /// build spends kilobytes of stack per `eval`).
    fn binary_chain(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let mut spine = Vec::new();
        let mut leftmost = expr;
        while let ExprKind::Binary { left, .. } = &leftmost.kind {
            spine.push(leftmost);
            leftmost = left;
        }
        let mut acc = self.eval(leftmost)?;
        for node in spine.iter().rev() {
            if let ExprKind::Binary { op, right, .. } = &node.kind {
                let r = self.eval(right)?;
                acc = binary(*op, &acc, &r, node.span)?;
            }
        }
        Ok(acc)
    }

    /// A chain of property reads, `v.a[0].b …`, from a value at its root, walked in a
    /// loop like [`Evaluator::binary_chain`].
    fn access_chain(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let mut spine = Vec::new();
        let mut root = expr;
        while let ExprKind::Member { object, .. } | ExprKind::Index { object, .. } = &root.kind {
            spine.push(root);
            root = object;
        }
        if !self.is_value_root(root) {
            return Err(EvalError::NotAValue {
                what: describe(expr),
                span: expr.span,
            });
        }
        let mut value = self.eval(root)?;
        for node in spine.iter().rev() {
            value = match &node.kind {
                ExprKind::Member { property, .. } => property_of(&value, property),
                ExprKind::Index { index, .. } => {
                    let key = self.index_key(index)?;
                    property_of(&value, &key)
                }
                _ => value,
            };
        }
        Ok(value)
    }

    /// An array literal. Variables are measured together before any is copied, so an
    /// array of large variables that cannot be built costs no copy at all.
    fn array(&mut self, items: &[Expr], span: Span) -> Result<Bson, EvalError> {
        let mut ahead = Within::new(span);
        for item in items {
            if let Some(var) = self.variable(item) {
                ahead.add(var, "0")?;
            }
        }
        let mut size = Within::new(span);
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if let Some(var) = self.variable(item) {
                size.add(var, "0")?;
                out.push(var.clone());
                continue;
            }
            let v = self.eval(item)?;
            size.add(&v, "0")?;
            out.push(v);
        }
        Ok(Bson::Array(out))
    }

    /// An object literal, its variables measured before any is copied as for arrays.
    fn object(&mut self, fields: &[(String, Expr)], span: Span) -> Result<Bson, EvalError> {
        let mut ahead = Within::new(span);
        for (k, v) in fields {
            if let Some(var) = self.variable(v) {
                ahead.add(var, k)?;
            }
        }
        let mut size = Within::new(span);
        let mut doc = Document::new();
        for (k, v) in fields {
            if let Some(var) = self.variable(v) {
                size.add(var, k)?;
                doc.insert(k.clone(), var.clone());
                continue;
            }
            let v = self.eval(v)?;
            size.add(&v, k)?;
            doc.insert(k.clone(), v);
        }
        if self.ctx.js_key_order {
            doc = js_key_order(doc);
        }
        convert_wrapper(doc, span)
    }

    /// The variable `expr` names, if it is a bare variable name: read in place, so that
    /// it can be measured before it is copied.
    fn variable(&self, expr: &Expr) -> Option<&Bson> {
        match &expr.kind {
            ExprKind::Ident(name) => self.ctx.variables.get(name),
            _ => None,
        }
    }

    /// A bare name: a variable, a global value, or an error saying why it is neither.
    fn ident(&self, name: &str, span: Span) -> Result<Bson, EvalError> {
        if let Some(v) = self.ctx.variables.get(name) {
            return Ok(v.clone());
        }
        if let Some(v) = global_value(name) {
            return Ok(v);
        }
        if is_constructor(name) || is_shell_global(name) {
            return Err(EvalError::NotAValue {
                what: name.to_string(),
                span,
            });
        }
        Err(EvalError::Reference {
            name: name.to_string(),
            span,
        })
    }

    /// The property name an index expression (`a[i]`) reads.
    fn index_key(&mut self, index: &Expr) -> Result<String, EvalError> {
        match self.eval(index)? {
            Bson::String(s) => Ok(s),
            Bson::Int32(i) => Ok(i.to_string()),
            Bson::Double(d) => Ok(js_number_to_string(d)),
            _ => Err(EvalError::Type {
                detail: "unsupported index type".into(),
                span: index.span,
            }),
        }
    }

    /// Whether a member chain starts at something that holds a value (a variable or
    /// a literal) rather than at a shell object such as `db` or `sh`.
    fn is_value_root(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Ident(n) => self.ctx.variables.contains_key(n),
            ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => {
                self.is_value_root(object)
            }
            ExprKind::Call { callee, .. } => match &callee.kind {
                ExprKind::Ident(n) => is_constructor(n),
                _ => false,
            },
            _ => true,
        }
    }

    fn eval_json(&mut self, expr: &Expr) -> Result<Bson, EvalError> {
        let span = expr.span;
        match &expr.kind {
            ExprKind::Number { value, raw } => Ok(json_number(raw, *value, false)),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => match &operand.kind {
                ExprKind::Number { value, raw } => Ok(json_number(raw, *value, true)),
                _ => Err(EvalError::NotJson {
                    detail: "'-' before a non-number".into(),
                    span,
                }),
            },
            ExprKind::String(s) => Ok(Bson::String(s.clone())),
            ExprKind::Bool(b) => Ok(Bson::Boolean(*b)),
            ExprKind::Null => Ok(Bson::Null),
            ExprKind::Array(items) => Ok(Bson::Array(
                items
                    .iter()
                    .map(|e| self.eval_json(e))
                    .collect::<Result<_, _>>()?,
            )),
            ExprKind::Object(fields) => {
                let mut doc = Document::new();
                for (k, v) in fields {
                    let v = self.eval_json(v)?;
                    doc.insert(k.clone(), v);
                }
                convert_wrapper(doc, span)
            }
            _ => Err(EvalError::NotJson {
                detail: describe(expr),
                span,
            }),
        }
    }

    fn call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        is_new: bool,
        span: Span,
    ) -> Result<Bson, EvalError> {
        let name = match &callee.kind {
            ExprKind::Ident(n) if !self.ctx.variables.contains_key(n) => n.clone(),
            ExprKind::Member {
                object, property, ..
            } => match &object.kind {
                ExprKind::Ident(o) if !self.ctx.variables.contains_key(o) => {
                    format!("{o}.{property}")
                }
                _ => {
                    return Err(EvalError::NotAValue {
                        what: describe(callee) + "()",
                        span,
                    })
                }
            },
            _ => {
                return Err(EvalError::NotAValue {
                    what: describe(callee) + "()",
                    span,
                })
            }
        };
        if !is_constructor(&name) {
            return Err(EvalError::NotAValue {
                what: format!("{name}()"),
                span,
            });
        }
        let vals: Vec<Bson> = args
            .iter()
            .map(|a| self.eval(a))
            .collect::<Result<_, _>>()?;
        construct(&name, &vals, is_new, self.ctx, span)
    }
}

/// A unary operator applied to a value.
fn unary(op: UnaryOp, v: &Bson, span: Span) -> Result<Bson, EvalError> {
    match op {
        UnaryOp::Not => Ok(Bson::Boolean(!truthy(v))),
        UnaryOp::Neg | UnaryOp::Plus => {
            let n = to_number(v).ok_or_else(|| EvalError::Type {
                detail: format!(
                    "unary {} needs a number",
                    if op == UnaryOp::Neg { '-' } else { '+' }
                ),
                span,
            })?;
            Ok(js_number(if op == UnaryOp::Neg { -n } else { n }))
        }
    }
}

/// The running size of a document or array being built, so that one built from large
/// variables (`[x, x, x]`, `{l: x, r: x}`) is refused as soon as it passes MongoDB's
/// limits, before the rest of it is copied.
struct Within {
    so_far: limits::Measure,
    span: Span,
}

impl Within {
    fn new(span: Span) -> Self {
        // A document's length prefix and final NUL, and the document itself.
        let so_far = limits::Measure {
            depth: 0,
            bytes: 5,
            values: 1,
        };
        Within { so_far, span }
    }

    /// Counts an element named `name` holding `v`, whose nesting must leave room for
    /// the level being built.
    fn add(&mut self, v: &Bson, name: &str) -> Result<(), EvalError> {
        let limit = |error| EvalError::Limit {
            error,
            span: self.span,
        };
        let mut before = self.so_far;
        before.bytes += 2 + name.len() as u64;
        let m = limits::measure_after(v, &before, limits::MAX_BSON_BYTES).map_err(limit)?;
        if m.depth >= limits::MAX_BSON_DEPTH {
            return Err(limit(limits::too_deep()));
        }
        self.so_far.bytes = before.bytes + m.bytes;
        self.so_far.values += m.values;
        Ok(())
    }
}

/// A binary operator applied to two values: string concatenation when either side of
/// `+` is a string, JavaScript arithmetic otherwise.
fn binary(op: BinaryOp, l: &Bson, r: &Bson, span: Span) -> Result<Bson, EvalError> {
    if op == BinaryOp::Add && (matches!(l, Bson::String(_)) || matches!(r, Bson::String(_))) {
        let (Some(a), Some(b)) = (to_js_string(l), to_js_string(r)) else {
            return Err(EvalError::Type {
                detail: "cannot concatenate this value".into(),
                span,
            });
        };
        // Strings longer than any document could hold are refused before they are
        // built, so doubling a string cannot exhaust memory.
        if a.len() + b.len() > limits::MAX_STRING_BYTES {
            return Err(EvalError::StringLength { span });
        }
        return Ok(Bson::String(a + &b));
    }
    let (Some(a), Some(b)) = (to_number(l), to_number(r)) else {
        return Err(EvalError::Type {
            detail: "arithmetic needs numbers".into(),
            span,
        });
    };
    Ok(js_number(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Rem => a % b,
    }))
}

/// Names that are shell objects, not values, so a bare mention is not a reference error.
fn is_shell_global(name: &str) -> bool {
    matches!(
        name,
        "db" | "sh" | "rs" | "sim" | "print" | "printjson" | "Binary"
    )
}

fn json_number(raw: &str, value: f64, negative: bool) -> Bson {
    let integer_form = raw.bytes().all(|c| c.is_ascii_digit());
    if integer_form {
        let text = if negative {
            format!("-{raw}")
        } else {
            raw.to_string()
        };
        if let Ok(i) = text.parse::<i32>() {
            return Bson::Int32(i);
        }
        if let Ok(i) = text.parse::<i64>() {
            return Bson::Int64(i);
        }
    }
    Bson::Double(if negative { -value } else { value })
}

fn property_of(obj: &Bson, key: &str) -> Bson {
    match obj {
        Bson::Document(d) => d.get(key).cloned().unwrap_or(Bson::Undefined),
        Bson::Array(a) if key == "length" => js_number(a.len() as f64),
        Bson::Array(a) => key
            .parse::<usize>()
            .ok()
            .and_then(|i| a.get(i).cloned())
            .unwrap_or(Bson::Undefined),
        Bson::String(s) if key == "length" => js_number(s.encode_utf16().count() as f64),
        _ => Bson::Undefined,
    }
}

fn truthy(v: &Bson) -> bool {
    match v {
        Bson::Boolean(b) => *b,
        Bson::Null | Bson::Undefined => false,
        Bson::Int32(i) => *i != 0,
        Bson::Double(d) => *d != 0.0 && !d.is_nan(),
        Bson::String(s) => !s.is_empty(),
        _ => true,
    }
}

fn to_js_string(v: &Bson) -> Option<String> {
    match v {
        Bson::String(s) => Some(s.clone()),
        Bson::Int32(i) => Some(i.to_string()),
        Bson::Double(d) => Some(js_number_to_string(*d)),
        Bson::Boolean(b) => Some(b.to_string()),
        Bson::Null => Some("null".into()),
        Bson::Undefined => Some("undefined".into()),
        Bson::Int64(i) => Some(i.to_string()),
        Bson::Decimal128(d) => Some(crate::values::decimal::Decimal::from_bson(d).to_string()),
        Bson::ObjectId(o) => Some(o.to_hex()),
        Bson::DateTime(d) => Some(format_js_date_string(d.timestamp_millis())),
        _ => None,
    }
}
