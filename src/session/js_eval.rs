//! Evaluates expressions of the script language to [`Value`]s: variables through the
//! scope chain, calls of script functions and of the shell's commands, assignment to
//! variables, properties and elements, and the operators (whose arithmetic is in
//! `js_values.rs`).

use super::interpreter::{Session, StatementError};
use super::js_places::IN_PLACE_METHODS;
use super::js_values::{self as jv, into_bson};
use super::script::{chain_head, output_value};
use super::script_state::Value;
use crate::shell::constructors::{construct, is_constructor};
use crate::shell::eval::eval_value;
use crate::shell::parser::{BinaryOp, Expr, ExprKind, JsExpr, LogicalOp, UnaryOp};
use crate::shell::Span;
use crate::values::limits;
use bson::{Bson, Document};

/// Names whose calls the session's command dispatcher answers (`db.c.find()`, ...).
const SHELL_HEADS: [&str; 5] = ["db", "sh", "sim", "sleep", "convertShardKeyToHashed"];

/// Array methods that take a function: on a command's result (`db.c.find().forEach(f)`)
/// the script runs them on the result's documents.
const CALLBACK_METHODS: [&str; 8] = [
    "forEach",
    "map",
    "filter",
    "reduce",
    "find",
    "some",
    "every",
    "findIndex",
];

/// Global objects whose members are shell functions (`Math.floor`, `Date.now`, ...).
const NAMESPACES: [&str; 5] = ["Math", "Object", "Date", "JSON", "Array"];

/// Functions the script knows by name besides the constructors.
const GLOBAL_FUNCTIONS: [&str; 7] = [
    "print",
    "printjson",
    "parseInt",
    "parseFloat",
    "isNaN",
    "String",
    "Number",
];

impl Session {
    /// Whether `e` is a command for the session's dispatcher (`db...`, `sh...`), not
    /// a script expression.
    pub(crate) fn is_shell_chain(&self, e: &Expr) -> bool {
        if let ExprKind::Call { callee, .. } = &e.kind {
            if let ExprKind::Member {
                object, property, ..
            } = &callee.kind
            {
                // `db.c.find()` is a command; `db.c.find().forEach(f)` runs `forEach` here.
                if matches!(object.kind, ExprKind::Call { .. })
                    && CALLBACK_METHODS.contains(&property.as_str())
                {
                    return false;
                }
            }
        }
        chain_head(e).is_some_and(|h| SHELL_HEADS.contains(&h) && !self.is_variable(h))
    }

    /// Evaluates an expression that must give data (a command's argument, a value to
    /// print): a function is refused.
    pub(crate) fn js_data(&mut self, e: &Expr) -> Result<Bson, StatementError> {
        self.js_eval(e).and_then(into_bson)
    }

    /// Evaluates an expression of the script language.
    pub(crate) fn js_eval(&mut self, e: &Expr) -> Result<Value, StatementError> {
        match &e.kind {
            ExprKind::Ident(name) => self.js_ident(name, e),
            ExprKind::Member { .. } | ExprKind::Index { .. } | ExprKind::Call { .. } => {
                self.js_chain(e)
            }
            ExprKind::New { callee, args } => self.js_new(callee, args, e.span),
            ExprKind::Array(items) => self.js_array(items, e.span),
            ExprKind::Object(fields) => self.js_object(fields, e.span),
            ExprKind::Unary { op, operand } => self.js_unary(*op, operand),
            ExprKind::Binary { .. } => self.js_binary_chain(e),
            ExprKind::Js(js) => self.js_operator(js, e.span),
            _ => self.literal(e),
        }
    }

    /// A literal, evaluated as the value language always has.
    fn literal(&mut self, e: &Expr) -> Result<Value, StatementError> {
        eval_value(e, &mut self.ctx)
            .map(Value::Data)
            .map_err(StatementError::from)
    }

    // Each operator has a function of its own: an unoptimised build gives a function
    // one stack frame for all its branches, and these frames are what a script's
    // recursion stacks up (see `MAX_CALL_DEPTH`).

    fn js_unary(&mut self, op: UnaryOp, operand: &Expr) -> Result<Value, StatementError> {
        let v = self.js_eval(operand)?;
        jv::unary(op, &v).map(Value::Data)
    }

    /// `a + b - c …`, evaluated along its left spine in a loop: a long chain costs no
    /// stack (the parser bounds its height; a debug build spends kilobytes per level).
    fn js_binary_chain(&mut self, e: &Expr) -> Result<Value, StatementError> {
        let mut spine = Vec::new();
        let mut leftmost = e;
        while let ExprKind::Binary { left, .. } = &leftmost.kind {
            spine.push(leftmost);
            leftmost = left;
        }
        let mut acc = self.js_eval(leftmost)?;
        for node in spine.iter().rev() {
            if let ExprKind::Binary { op, right, .. } = &node.kind {
                let r = self.js_eval(right)?;
                acc = Value::Data(jv::binary(*op, &acc, &r)?);
            }
        }
        Ok(acc)
    }

    /// The value of a JavaScript operator expression.
    fn js_operator(&mut self, js: &JsExpr, _span: Span) -> Result<Value, StatementError> {
        match js {
            JsExpr::Compare { .. } | JsExpr::Logical { .. } => self.js_operator_chain(js),
            JsExpr::Conditional {
                test,
                then,
                otherwise,
            } => self.js_conditional(test, then, otherwise),
            JsExpr::Assign { target, op, value } => self.js_assign(target, *op, value),
            JsExpr::Update {
                target,
                increment,
                prefix,
            } => self.js_update(target, *increment, *prefix),
            JsExpr::Template { texts, exprs } => self.js_template(texts, exprs),
            JsExpr::Function(def) => Ok(self.closure(def)),
            JsExpr::Typeof(operand) => self.js_typeof(operand),
            JsExpr::Sequence(all) => {
                let mut last = Value::UNDEFINED;
                for e in all {
                    last = self.js_eval(e)?;
                }
                Ok(last)
            }
        }
    }

    /// `typeof x`: an undeclared name is `"undefined"`, not a ReferenceError.
    fn js_typeof(&mut self, operand: &Expr) -> Result<Value, StatementError> {
        let v = match &operand.kind {
            ExprKind::Ident(n) if !self.is_variable(n) => match self.js_eval(operand) {
                Ok(v) => v,
                Err(_) => Value::UNDEFINED,
            },
            _ => self.js_eval(operand)?,
        };
        Ok(Value::Data(Bson::String(jv::type_of(&v).to_string())))
    }

    /// A chain of comparisons or logical operators (`a && b && c …`, `a < b < c`),
    /// evaluated along its left spine in a loop like [`Session::js_binary_chain`];
    /// `&&`, `||` and `??` still skip a right side their left side decides.
    fn js_operator_chain(&mut self, top: &JsExpr) -> Result<Value, StatementError> {
        let mut spine = vec![top];
        let mut leftmost = match top {
            JsExpr::Compare { left, .. } | JsExpr::Logical { left, .. } => left,
            _ => return Ok(Value::UNDEFINED),
        };
        while let ExprKind::Js(js) = &leftmost.kind {
            match &**js {
                JsExpr::Compare { left, .. } | JsExpr::Logical { left, .. } => {
                    spine.push(js);
                    leftmost = left;
                }
                _ => break,
            }
        }
        let mut acc = self.js_eval(leftmost)?;
        for node in spine.iter().rev() {
            acc = match node {
                JsExpr::Compare { op, right, .. } => {
                    let r = self.js_eval(right)?;
                    Value::Data(Bson::Boolean(jv::compare(*op, &acc, &r)))
                }
                JsExpr::Logical { op, right, .. } => {
                    let take_left = match op {
                        LogicalOp::And => !jv::truthy(&acc),
                        LogicalOp::Or => jv::truthy(&acc),
                        LogicalOp::Nullish => {
                            !matches!(acc, Value::Data(Bson::Null | Bson::Undefined))
                        }
                    };
                    if take_left {
                        acc
                    } else {
                        self.js_eval(right)?
                    }
                }
                _ => acc,
            };
        }
        Ok(acc)
    }

    fn js_conditional(
        &mut self,
        test: &Expr,
        then: &Expr,
        otherwise: &Expr,
    ) -> Result<Value, StatementError> {
        let holds = self.js_truthy(test)?;
        self.js_eval(if holds { then } else { otherwise })
    }

    /// Whether an expression's value is truthy.
    pub(crate) fn js_truthy(&mut self, e: &Expr) -> Result<bool, StatementError> {
        self.js_eval(e).map(|v| jv::truthy(&v))
    }

    fn js_assign(
        &mut self,
        target: &Expr,
        op: Option<BinaryOp>,
        value: &Expr,
    ) -> Result<Value, StatementError> {
        let mut v = self.js_eval(value)?;
        if let Some(op) = op {
            let current = self.js_eval(target)?;
            v = Value::Data(jv::binary(op, &current, &v)?);
        }
        self.assign_place(target, v.clone())?;
        Ok(v)
    }

    fn js_update(
        &mut self,
        target: &Expr,
        inc: bool,
        prefix: bool,
    ) -> Result<Value, StatementError> {
        let old = jv::number(&self.js_eval(target)?);
        let new = if inc { old + 1.0 } else { old - 1.0 };
        self.assign_place(target, Value::Data(crate::values::js::js_number(new)))?;
        Ok(Value::Data(crate::values::js::js_number(if prefix {
            new
        } else {
            old
        })))
    }

    fn js_template(&mut self, texts: &[String], exprs: &[Expr]) -> Result<Value, StatementError> {
        let mut out = String::new();
        for (i, text) in texts.iter().enumerate() {
            out.push_str(text);
            if let Some(e) = exprs.get(i) {
                let v = self.js_eval(e)?;
                out.push_str(&jv::js_string(&v));
            }
            if out.len() > limits::MAX_STRING_BYTES {
                return Err(jv::string_too_long());
            }
        }
        Ok(Value::Data(Bson::String(out)))
    }

    /// A bare name: a variable, a shell function or namespace, or the value language's
    /// globals (`MinKey`, `NaN`, ...) and errors.
    fn js_ident(&mut self, name: &str, e: &Expr) -> Result<Value, StatementError> {
        if let Some(v) = self.lookup(name) {
            return Ok(v);
        }
        if matches!(name, "MinKey" | "MaxKey" | "NaN" | "Infinity") {
            return self.literal(e);
        }
        if SHELL_HEADS.contains(&name) {
            return Ok(Value::Data(output_value(self.expression(e)?)));
        }
        if NAMESPACES.contains(&name) || GLOBAL_FUNCTIONS.contains(&name) || is_constructor(name) {
            return Ok(Value::Native(name.to_string()));
        }
        self.literal(e)
    }

    /// A member access, an index or a call.
    fn js_chain(&mut self, e: &Expr) -> Result<Value, StatementError> {
        if self.is_shell_chain(e) {
            self.step()?;
            return Ok(Value::Data(output_value(self.expression(e)?)));
        }
        match &e.kind {
            ExprKind::Member { .. } | ExprKind::Index { .. } => self.js_access_chain(e),
            ExprKind::Call { callee, args } => self.js_call(callee, args),
            _ => self.literal(e),
        }
    }

    /// `v.a[0].b …`: the properties read one after another in a loop from the value at
    /// the chain's root (a long chain costs no stack), the first where the variable
    /// lives when the root names one.
    fn js_access_chain(&mut self, e: &Expr) -> Result<Value, StatementError> {
        let mut spine = Vec::new();
        let mut root = e;
        while let ExprKind::Member { object, .. } | ExprKind::Index { object, .. } = &root.kind {
            spine.push(root);
            root = object;
        }
        let mut value: Option<Value> = None;
        for node in spine.iter().rev() {
            let key = match &node.kind {
                ExprKind::Member { property, .. } => property.clone(),
                ExprKind::Index { index, .. } => self.js_key(index)?,
                _ => continue,
            };
            value = Some(match value {
                Some(base) => jv::property(&base, &key)?,
                None => self.js_property(root, &key)?,
            });
        }
        match value {
            Some(v) => Ok(v),
            None => self.js_eval(root),
        }
    }

    /// `object.key`: read where the variable lives when `object` names one.
    fn js_property(&mut self, object: &Expr, key: &str) -> Result<Value, StatementError> {
        if let ExprKind::Ident(name) = &object.kind {
            if let Some(r) = self.var_property(name, key) {
                return r;
            }
        }
        let base = self.js_eval(object)?;
        jv::property(&base, key)
    }

    /// The property name an index expression (`a[i]`) reads or writes.
    fn js_key(&mut self, index: &Expr) -> Result<String, StatementError> {
        let v = self.js_eval(index)?;
        Ok(jv::js_string(&v))
    }

    fn js_args(&mut self, args: &[Expr]) -> Result<Vec<Value>, StatementError> {
        args.iter().map(|a| self.js_eval(a)).collect()
    }

    fn js_call(&mut self, callee: &Expr, args: &[Expr]) -> Result<Value, StatementError> {
        match &callee.kind {
            // `Binary.createFromBase64(...)`, the static helpers mongosh prints values with.
            ExprKind::Member {
                object, property, ..
            } if matches!(&object.kind, ExprKind::Ident(o)
                if !self.is_variable(o) && is_constructor(&format!("{o}.{property}"))) =>
            {
                let name = jv::place_text(callee);
                self.js_construct(&name, args, false, callee.span)
            }
            ExprKind::Member {
                object, property, ..
            } => self.js_method_call(object, property, args),
            // `MinKey()` calls the constructor, where a bare `MinKey` is the value.
            ExprKind::Ident(name) if is_constructor(name) && !self.is_variable(name) => {
                self.js_construct(name, args, false, callee.span)
            }
            _ => {
                let f = self.js_eval(callee)?;
                if let Value::Data(_) = f {
                    // JavaScript names the expression: `x is not a function`.
                    return Err(StatementError::type_error(format!(
                        "{} is not a function",
                        jv::place_text(callee)
                    )));
                }
                let argv = self.js_args(args)?;
                self.call_value(&f, argv)
            }
        }
    }

    /// `object.property(args)`: a method of a value, or a function a namespace holds.
    fn js_method_call(
        &mut self,
        object: &Expr,
        property: &str,
        args: &[Expr],
    ) -> Result<Value, StatementError> {
        if let ExprKind::Ident(name) = &object.kind {
            if IN_PLACE_METHODS.contains(&property) && self.var_holds(name) == Some(true) {
                let items = self
                    .js_args(args)?
                    .into_iter()
                    .map(into_bson)
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(r) = self.var_array_method(name, property, items) {
                    return r;
                }
            }
        }

        let base = self.js_eval(object)?;
        let argv = self.js_args(args)?;
        if let Value::Data(data) = base {
            return self.js_method(object, data, property, argv);
        }
        let f = jv::property(&base, property)?;
        if let Value::Data(_) = f {
            return Err(StatementError::type_error(format!(
                "{}.{property} is not a function",
                jv::place_text(object)
            )));
        }
        self.call_value(&f, argv)
    }

    /// A constructor's call, with its arguments as BSON.
    fn js_construct(
        &mut self,
        name: &str,
        args: &[Expr],
        is_new: bool,
        span: Span,
    ) -> Result<Value, StatementError> {
        let vals = self
            .js_args(args)?
            .into_iter()
            .map(into_bson)
            .collect::<Result<Vec<_>, _>>()?;
        construct(name, &vals, is_new, &mut self.ctx, span)
            .map(Value::Data)
            .map_err(StatementError::from)
    }

    fn js_new(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        span: Span,
    ) -> Result<Value, StatementError> {
        let name = match &callee.kind {
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Member {
                object, property, ..
            } => match &object.kind {
                ExprKind::Ident(o) => format!("{o}.{property}"),
                _ => String::new(),
            },
            _ => String::new(),
        };
        if !is_constructor(&name) {
            return Err(StatementError::type_error(format!(
                "{name} is not a constructor"
            )));
        }
        self.js_construct(&name, args, true, span)
    }

    fn js_array(&mut self, items: &[Expr], span: Span) -> Result<Value, StatementError> {
        let mut size = Size::default();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let v = into_bson(self.js_eval(item)?)?;
            size.add(&v, span)?;
            out.push(v);
        }
        Ok(Value::Data(Bson::Array(out)))
    }

    fn js_object(
        &mut self,
        fields: &[(String, Expr)],
        span: Span,
    ) -> Result<Value, StatementError> {
        let mut size = Size::default();
        let mut doc = Document::new();
        for (k, v) in fields {
            let v = into_bson(self.js_eval(v)?)?;
            size.add(&v, span)?;
            doc.insert(k.clone(), v);
        }
        if self.ctx.js_key_order {
            doc = crate::values::js::js_key_order(doc);
        }
        crate::shell::wrappers::convert_wrapper(doc, span)
            .map(Value::Data)
            .map_err(StatementError::from)
    }

    /// Assigns to a variable, a property (`o.x = 1`) or an element (`a[i] = 1`).
    pub(crate) fn assign_place(
        &mut self,
        target: &Expr,
        value: Value,
    ) -> Result<(), StatementError> {
        match &target.kind {
            ExprKind::Ident(n) => self.assign_var(n, value),
            ExprKind::Member {
                object, property, ..
            } => self.assign_key(object, property, value),
            ExprKind::Index { object, index } => {
                let key = self.js_key(index)?;
                self.assign_key(object, &key, value)
            }
            _ => Err(super::script::syntax_error(
                "Invalid left-hand side in assignment",
            )),
        }
    }

    fn assign_key(&mut self, object: &Expr, key: &str, value: Value) -> Result<(), StatementError> {
        if let ExprKind::Ident(name) = &object.kind {
            if self.var_holds(name).is_some() {
                let v = into_bson(value)?;
                if let Some(r) = self.var_set_key(name, key, v) {
                    return r;
                }
                return Err(StatementError::type_error(format!(
                    "{name} changed while being set"
                )));
            }
        }

        let container = self.js_eval(object)?;
        let v = into_bson(value)?;
        let updated = match container {
            Value::Data(Bson::Document(mut d)) => {
                d.insert(key, v);
                Bson::Document(d)
            }
            Value::Data(Bson::Array(mut a)) => {
                jv::set_element(&mut a, key, v)?;
                Bson::Array(a)
            }
            Value::Data(b @ (Bson::Null | Bson::Undefined)) => {
                return Err(StatementError::type_error(format!(
                    "Cannot set properties of {} (setting '{key}')",
                    if b == Bson::Null { "null" } else { "undefined" }
                )))
            }
            // JavaScript ignores properties set on other primitives.
            _ => return Ok(()),
        };
        crate::values::limits::measure(&updated, limits::MAX_BSON_BYTES)?;
        self.assign_place(object, Value::Data(updated))
    }

    /// Writes back an array a method changed (`a.push(x)`), when `place` names one.
    pub(crate) fn write_back(&mut self, place: &Expr, value: Bson) -> Result<(), StatementError> {
        match place.kind {
            ExprKind::Ident(_) | ExprKind::Member { .. } | ExprKind::Index { .. } => {
                crate::values::limits::measure(&value, limits::MAX_BSON_BYTES)?;
                self.assign_place(place, Value::Data(value))
            }
            _ => Ok(()),
        }
    }
}

/// The running size of an array or document being built, refused once past MongoDB's
/// limit so that `[x, x, x, ...]` of a large `x` stops before it is all copied.
#[derive(Default)]
struct Size {
    bytes: u64,
}

impl Size {
    fn add(&mut self, v: &Bson, span: Span) -> Result<(), StatementError> {
        let m = limits::measure(v, limits::MAX_BSON_BYTES)
            .map_err(|e| StatementError::from(e).at(span))?;
        self.bytes += m.bytes;
        if self.bytes > limits::MAX_BSON_BYTES {
            return Err(StatementError::from(limits::too_large(self.bytes)).at(span));
        }
        Ok(())
    }
}
