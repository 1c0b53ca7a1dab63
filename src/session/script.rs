//! The JavaScript that tutorials use, run by ShardLab's own interpreter: loops, branches,
//! functions and closures over a lexical scope chain, on top of the shell's commands.
//!
//! Values are BSON ([`Value::Data`]) or functions. Global variables live where the shell
//! kept them before (the evaluation context's variables), global functions beside them;
//! a function call or a block that declares `let`/`const` opens a [`Scope`] whose parent
//! is where the function was written. Nothing here reaches the host's JavaScript.
//!
//! Every statement the user runs is bounded: loop iterations and calls count against
//! [`MAX_STEPS`], and calls nest at most [`MAX_CALL_DEPTH`] deep, so a runaway script
//! ends with an error instead of freezing the page or the CLI.

use super::interpreter::{ErrorKind, Output, Session, StatementError};
use super::js_values::{describe, value_output};
use super::script_state::{Binding, Closure, Scope, Value};
use crate::shell::parser::{
    flatten, DeclKind, Expr, ExprKind, FunctionBody, FunctionDef, JsStmt, Stmt, StmtKind,
};
use bson::Bson;
use std::rc::Rc;

/// How many loop iterations, function calls and commands one statement may run. A
/// million is five times what the tutorials' biggest loop needs (filling a collection
/// with 100,000 documents takes 100,000 iterations and 100,000 commands), and a runaway `while (true) {}` reaches it in
/// well under a second (about a second in an unoptimised build, which runs 1 µs per
/// iteration of `n++`), so the console answers instead of hanging. mongosh has no such
/// limit; the error borrows that of its server-side counterpart, `maxTimeMS`.
pub const MAX_STEPS: u64 = 1_000_000;

/// How deep function calls may nest: JavaScript engines allow thousands of frames, but
/// tutorials recurse a few levels at most, and each call takes Rust stack (the
/// evaluator recurses once per call, through a fixed chain of functions).
pub const MAX_CALL_DEPTH: u32 = 100;

/// How much Rust stack a statement's calls may take before the next call is refused
/// with the same error. An optimised build (the page's, the released CLI's) reaches
/// [`MAX_CALL_DEPTH`] first, so the limit is the same natively and in wasm32; an
/// unoptimised build's frames are several times larger, and this keeps its recursion
/// within the 1 MiB stack a wasm32 program gets (a test runs it on such a thread).
pub const STACK_BUDGET: usize = 512 * 1024;

/// The address of a local of the calling frame: the stack grows down on every target
/// ShardLab builds for (x86-64, aarch64, wasm32's shadow stack).
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::ptr::addr_of!(marker) as usize
}

/// How a statement ended.
pub(crate) enum Flow {
    /// It ran to its end.
    Normal,
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `return`, with the value.
    Return(Value),
}

/// The name at the root of a member/call chain, such as `db` in `db.c.find().limit(1)`.
pub(crate) fn chain_head(mut e: &Expr) -> Option<&str> {
    loop {
        match &e.kind {
            ExprKind::Ident(n) => return Some(n),
            ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => e = object,
            ExprKind::Call { callee, .. } => e = callee,
            _ => return None,
        }
    }
}

/// A RangeError, in JavaScript's words.
fn range_error(message: &str) -> StatementError {
    StatementError {
        kind: ErrorKind::Range,
        code: 0,
        code_name: String::new(),
        message: message.to_string(),
        span: None,
        detail: String::new(),
    }
}

/// A SyntaxError raised while running (a `break` outside a loop, ...).
pub(crate) fn syntax_error(message: &str) -> StatementError {
    StatementError {
        kind: ErrorKind::Syntax,
        code: 0,
        code_name: String::new(),
        message: message.to_string(),
        span: None,
        detail: String::new(),
    }
}

/// Turns a command's output into a value, as assigning it to a variable does.
pub(crate) fn output_value(out: Output) -> Bson {
    match out {
        Output::Value(v) => v,
        Output::Cursor(docs) => Bson::Array(docs.into_iter().map(Bson::Document).collect()),
        Output::Sections(d) => Bson::Document(d),
        Output::Message(m) => Bson::String(m),
        Output::Nothing => Bson::Undefined,
    }
}

impl Session {
    /// Runs one top-level statement with a fresh step budget, under the statement's work
    /// budget ([`Session::atomic_statement`], `text_bytes` being its source's length): the
    /// lines it printed, then its result.
    pub(crate) fn run_statement(
        &mut self,
        kind: &StmtKind,
        text_bytes: u64,
    ) -> (Vec<String>, Result<Output, StatementError>) {
        let s = &mut self.script;
        s.stack_base = stack_address();
        s.steps = 0;
        s.depth = 0;
        s.scope = None;
        s.printed.clear();
        self.completion = None;
        let result = self.atomic_statement(kind, text_bytes);
        self.script.scope = None;
        (std::mem::take(&mut self.script.printed), result)
    }

    /// A top-level JavaScript statement: its completion value is what mongosh prints.
    pub(crate) fn js_statement(&mut self, s: &JsStmt) -> Result<Output, StatementError> {
        match self.exec_js(s)? {
            Flow::Normal => Ok(self.completion.take().unwrap_or(Output::Nothing)),
            Flow::Break => Err(syntax_error("Illegal break statement")),
            Flow::Continue => Err(syntax_error(
                "Illegal continue statement: no surrounding iteration statement",
            )),
            Flow::Return(_) => Err(syntax_error("Illegal return statement")),
        }
    }

    /// An expression statement: a command, `help`, or a script expression. At top level
    /// (`top`) `print()` answers as the shell always has; inside a script its lines are
    /// kept until the statement ends.
    pub(crate) fn expression_statement(
        &mut self,
        e: &Expr,
        top: bool,
    ) -> Result<Output, StatementError> {
        match chain_head(e) {
            Some(p @ ("print" | "printjson")) if top && !self.is_variable(p) => self.expression(e),
            Some("help")
                if !self.is_variable("help") && flatten(e).is_some_and(|s| s.len() == 1) =>
            {
                Ok(Output::Message(super::help::shell_help()))
            }
            // A bare `show` is the shell command without its argument: mongo.ts `show`
            // answers `'undefined' is not a valid argument`.
            Some("show")
                if !self.is_variable("show")
                    && flatten(e).is_some_and(|s| s.len() == 1 && s[0].args.is_none()) =>
            {
                self.show("undefined")
            }
            // `it` is a shell command (shell-api.ts `it()`, a `directShellCommand`).
            Some("it") if !self.is_variable("it") && flatten(e).is_some_and(|s| s.len() == 1) => {
                self.iterate_cursor()
            }
            _ if self.is_shell_chain(e) => {
                if !top {
                    // A command inside a script counts as a step too, so that a
                    // runaway loop of commands ends sooner.
                    self.step()?;
                }
                self.expression(e)
            }
            _ => Ok(value_output(self.js_eval(e)?)),
        }
    }

    /// `var`/`let`/`const name = init` in the current scope.
    pub(crate) fn js_declare(
        &mut self,
        kind: DeclKind,
        name: &str,
        init: Option<&Expr>,
    ) -> Result<Output, StatementError> {
        let value = match init {
            Some(e) => named(self.js_eval(e)?, name),
            None => Value::UNDEFINED,
        };
        self.define(name, value, kind == DeclKind::Const)?;
        Ok(Output::Nothing)
    }

    /// `name = value` as a statement: mongosh echoes the value, as Node's REPL prints
    /// an assignment expression's value (`cli-repl/src/mongosh-repl.ts` evaluates the
    /// line and formats its result).
    pub(crate) fn js_assign_statement(
        &mut self,
        name: &str,
        value: &Expr,
    ) -> Result<Output, StatementError> {
        let v = self.js_eval(value)?;
        self.assign_var(name, v.clone())?;
        Ok(value_output(v))
    }

    /// Whether `name` is a variable in scope (local or global).
    pub(crate) fn is_variable(&self, name: &str) -> bool {
        self.lookup_local(name).is_some()
            || self.ctx.variables.contains_key(name)
            || self.script.functions.contains_key(name)
    }

    fn lookup_local(&self, name: &str) -> Option<Value> {
        let mut scope = self.script.scope.as_ref();
        while let Some(s) = scope {
            if let Some(b) = s.vars.borrow().get(name) {
                return Some(b.value.clone());
            }
            scope = s.parent.get();
        }
        None
    }

    /// The value of a variable, if one is in scope.
    pub(crate) fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.lookup_local(name) {
            return Some(v);
        }
        if let Some(v) = self.ctx.variables.get(name) {
            return Some(Value::Data(v.clone()));
        }
        self.script.functions.get(name).cloned().map(Value::Func)
    }

    /// Declares `name` in the innermost scope (the global one at top level).
    fn define(&mut self, name: &str, value: Value, constant: bool) -> Result<(), StatementError> {
        match &self.script.scope {
            Some(s) => {
                s.vars
                    .borrow_mut()
                    .insert(name.to_string(), Binding { value, constant });
                Ok(())
            }
            None => {
                self.set_global(name, value)?;
                // A new declaration replaces an old one, `const` or not, so that a
                // lesson's lines can run again.
                if constant {
                    self.script.constants.insert(name.to_string());
                } else {
                    self.script.constants.remove(name);
                }
                Ok(())
            }
        }
    }

    /// Assigns to the nearest variable called `name`, or to a new global one.
    pub(crate) fn assign_var(&mut self, name: &str, value: Value) -> Result<(), StatementError> {
        let mut scope = self.script.scope.clone();
        while let Some(s) = scope {
            if let Some(b) = s.vars.borrow_mut().get_mut(name) {
                if b.constant {
                    return Err(StatementError::type_error(
                        "Assignment to constant variable.",
                    ));
                }
                b.value = value;
                return Ok(());
            }
            scope = s.parent.get().cloned();
        }
        if self.script.constants.contains(name) {
            return Err(StatementError::type_error(
                "Assignment to constant variable.",
            ));
        }
        self.set_global(name, value)
    }

    /// A global holds at most what one BSON value may (see [`crate::values::limits`]),
    /// and all of them together stay within the session's memory budget
    /// ([`Session::bind`]).
    fn set_global(&mut self, name: &str, value: Value) -> Result<(), StatementError> {
        match value {
            Value::Data(b) => {
                // Measured against one value's limit and the session's memory budget.
                self.bind(name, b)?;
                self.script.functions.remove(name);
            }
            Value::Func(f) => {
                self.ctx.variables.remove(name);
                self.variable_bytes.remove(name);
                self.script.functions.insert(name.to_string(), f);
            }
            Value::Native(n) => {
                return Err(StatementError::type_error(format!(
                    "{n} cannot be assigned to a variable in this shell"
                )))
            }
        }
        Ok(())
    }

    /// How much stack the running statement has taken so far.
    fn stack_used(&self) -> usize {
        self.script.stack_base.saturating_sub(stack_address())
    }

    /// Counts one loop iteration or call against [`MAX_STEPS`].
    pub(crate) fn step(&mut self) -> Result<(), StatementError> {
        self.script.steps += 1;
        if self.script.steps > MAX_STEPS {
            return Err(StatementError {
                kind: ErrorKind::Server,
                code: 50,
                code_name: "MaxTimeMSExpired".into(),
                message: format!(
                    "operation exceeded time limit: the statement ran more than {MAX_STEPS} loop iterations, function calls and commands"
                ),
                span: None,
                detail: String::new(),
            });
        }
        Ok(())
    }

    /// Runs statements in order, stopping at `break`, `continue` or `return`.
    fn exec_all(&mut self, statements: &[Stmt]) -> Result<Flow, StatementError> {
        for s in statements {
            let flow = self.exec(s)?;
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs one statement inside a script.
    fn exec(&mut self, s: &Stmt) -> Result<Flow, StatementError> {
        let out = match &s.kind {
            StmtKind::Js(js) => return self.exec_js(js).map_err(|e| at(e, s)),
            StmtKind::Declare { kind, name, init } => {
                self.js_declare(*kind, name, init.as_ref())
                    .map_err(|e| at(e, s))?;
                return Ok(Flow::Normal);
            }
            StmtKind::Assign { name, value } => self.js_assign_statement(name, value),
            StmtKind::Expr(e) => self.expression_statement(e, false),
            StmtKind::Use { .. } | StmtKind::Show { .. } => self.statement(&s.kind),
        };
        let out = out.map_err(|e| at(e, s))?;
        self.completion = Some(out);
        Ok(Flow::Normal)
    }

    fn exec_js(&mut self, s: &JsStmt) -> Result<Flow, StatementError> {
        match s {
            JsStmt::Block(statements) => self.block(statements),
            JsStmt::If {
                test,
                then,
                otherwise,
            } => self.exec_if(test, then, otherwise.as_ref()),
            JsStmt::For {
                init,
                test,
                update,
                body,
            } => self.for_loop(init.as_ref(), test.as_ref(), update.as_ref(), body),
            JsStmt::ForOf {
                decl,
                name,
                iterable,
                keys,
                body,
            } => {
                let items = self.iterated(iterable, *keys)?;
                self.for_of(*decl, name, items, body)
            }
            JsStmt::While { test, body } => self.while_loop(test, body, false),
            JsStmt::DoWhile { body, test } => self.while_loop(test, body, true),
            JsStmt::Function(def) => self.declare_function(def).map(|()| Flow::Normal),
            JsStmt::Return(value) => self.exec_return(value.as_ref()),
            JsStmt::Declarations(all) => self.exec_all(all),
            JsStmt::Break => Ok(Flow::Break),
            JsStmt::Continue => Ok(Flow::Continue),
        }
    }

    fn exec_if(
        &mut self,
        test: &Expr,
        then: &Stmt,
        otherwise: Option<&Stmt>,
    ) -> Result<Flow, StatementError> {
        if self.js_truthy(test)? {
            self.exec(then)
        } else if let Some(o) = otherwise {
            self.exec(o)
        } else {
            Ok(Flow::Normal)
        }
    }

    fn exec_return(&mut self, value: Option<&Expr>) -> Result<Flow, StatementError> {
        let v = match value {
            Some(e) => self.js_eval(e)?,
            None => Value::UNDEFINED,
        };
        Ok(Flow::Return(v))
    }

    /// `function name() {...}`: binds the name in the current scope.
    fn declare_function(&mut self, def: &Rc<FunctionDef>) -> Result<(), StatementError> {
        let f = self.closure(def);
        self.define(def.name.as_deref().unwrap_or_default(), f, false)
    }

    /// A function value closing over the current scope.
    pub(crate) fn closure(&self, def: &Rc<FunctionDef>) -> Value {
        Value::Func(Rc::new(Closure {
            def: def.clone(),
            env: self.script.scope.clone(),
            inferred: None,
        }))
    }

    /// Runs `f` in a new scope under the current one.
    fn scoped<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, StatementError>,
    ) -> Result<T, StatementError> {
        let inner = Scope::under(self.script.scope.clone());
        let saved = self.script.scope.replace(inner);
        let r = f(self);
        if let Some(done) = std::mem::replace(&mut self.script.scope, saved) {
            release(done);
        }
        r
    }

    /// A block: a scope of its own when it declares `let`, `const` or functions.
    fn block(&mut self, statements: &[Stmt]) -> Result<Flow, StatementError> {
        let declares = statements.iter().any(|s| {
            matches!(&s.kind, StmtKind::Declare { kind, .. } if *kind != DeclKind::Var)
                || matches!(&s.kind, StmtKind::Js(j) if matches!(**j, JsStmt::Function(_)))
        });
        if declares {
            self.scoped(|s| s.exec_all(statements))
        } else {
            self.exec_all(statements)
        }
    }

    fn for_loop(
        &mut self,
        init: Option<&Stmt>,
        test: Option<&Expr>,
        update: Option<&Expr>,
        body: &Stmt,
    ) -> Result<Flow, StatementError> {
        let run = |s: &mut Self| -> Result<Flow, StatementError> {
            if let Some(init) = init {
                s.exec(init)?;
            }
            loop {
                if let Some(t) = test {
                    if !s.js_truthy(t)? {
                        return Ok(Flow::Normal);
                    }
                }
                s.step()?;
                match s.exec(body)? {
                    Flow::Break => return Ok(Flow::Normal),
                    r @ Flow::Return(_) => return Ok(r),
                    Flow::Normal | Flow::Continue => {}
                }
                if let Some(u) = update {
                    s.js_eval(u)?;
                }
            }
        };
        let lexical =
            |s: &Stmt| matches!(&s.kind, StmtKind::Declare { kind, .. } if *kind != DeclKind::Var);
        let scoped = init.is_some_and(|s| match &s.kind {
            StmtKind::Js(js) => {
                matches!(&**js, JsStmt::Declarations(all) if all.iter().any(lexical))
            }
            _ => lexical(s),
        });
        if scoped {
            self.scoped(run)
        } else {
            run(self)
        }
    }

    /// What a `for ... of` walks (the values) or a `for ... in` (the keys).
    fn iterated(&mut self, iterable: &Expr, keys: bool) -> Result<Vec<Bson>, StatementError> {
        let key = |i: usize| Bson::String(i.to_string());
        Ok(match (self.js_eval(iterable)?, keys) {
            (Value::Data(Bson::Array(a)), false) => a,
            (Value::Data(Bson::Array(a)), true) => (0..a.len()).map(key).collect(),
            (Value::Data(Bson::String(s)), false) => super::js_values::characters(&s)?,
            (Value::Data(Bson::String(s)), true) => {
                let n = super::js_values::characters(&s)?.len();
                (0..n).map(key).collect()
            }
            (Value::Data(Bson::Document(d)), true) => {
                d.keys().map(|k| Bson::String(k.clone())).collect()
            }
            // JavaScript walks no keys of `null`, `undefined` or a number.
            (_, true) => Vec::new(),
            (other, false) => {
                return Err(StatementError::type_error(format!(
                    "{} is not iterable",
                    describe(&other)
                )))
            }
        })
    }

    fn for_of(
        &mut self,
        decl: Option<DeclKind>,
        name: &str,
        items: Vec<Bson>,
        body: &Stmt,
    ) -> Result<Flow, StatementError> {
        let declare = decl.is_some_and(|d| d != DeclKind::Var);
        let run = |s: &mut Self| -> Result<Flow, StatementError> {
            for item in items {
                s.step()?;
                if declare {
                    s.define(name, Value::Data(item), decl == Some(DeclKind::Const))?;
                } else {
                    s.assign_var(name, Value::Data(item))?;
                }
                match s.exec(body)? {
                    Flow::Break => break,
                    r @ Flow::Return(_) => return Ok(r),
                    Flow::Normal | Flow::Continue => {}
                }
            }
            Ok(Flow::Normal)
        };
        if declare {
            self.scoped(run)
        } else {
            run(self)
        }
    }

    fn while_loop(
        &mut self,
        test: &Expr,
        body: &Stmt,
        body_first: bool,
    ) -> Result<Flow, StatementError> {
        let mut first = body_first;
        loop {
            if !first && !self.js_truthy(test)? {
                return Ok(Flow::Normal);
            }
            first = false;
            self.step()?;
            match self.exec(body)? {
                Flow::Break => return Ok(Flow::Normal),
                r @ Flow::Return(_) => return Ok(r),
                Flow::Normal | Flow::Continue => {}
            }
        }
    }

    /// Calls a function value with arguments, within the depth and step budget.
    pub(crate) fn call_value(
        &mut self,
        f: &Value,
        args: Vec<Value>,
    ) -> Result<Value, StatementError> {
        match f {
            Value::Func(c) => self.call_closure(c, args),
            Value::Native(n) => {
                self.step()?;
                self.call_native(n, args)
            }
            Value::Data(v) => Err(StatementError::type_error(format!(
                "{} is not a function",
                crate::values::inspect::format_value(v)
            ))),
        }
    }

    fn call_closure(&mut self, c: &Rc<Closure>, args: Vec<Value>) -> Result<Value, StatementError> {
        self.step()?;
        if self.script.depth >= MAX_CALL_DEPTH || self.stack_used() > STACK_BUDGET {
            return Err(range_error("Maximum call stack size exceeded"));
        }
        let scope = Scope::under(c.env.clone());
        {
            let mut vars = scope.vars.borrow_mut();
            let mut args = args.into_iter();
            for p in &c.def.params {
                let value = args.next().unwrap_or(Value::UNDEFINED);
                vars.insert(
                    p.clone(),
                    Binding {
                        value,
                        constant: false,
                    },
                );
            }
        }
        let saved = self.script.scope.replace(scope);
        self.script.depth += 1;
        let r = self.run_body(&c.def.body);
        self.script.depth -= 1;
        if let Some(done) = std::mem::replace(&mut self.script.scope, saved) {
            release(done);
        }
        r
    }

    #[inline(never)]
    fn run_body(&mut self, body: &FunctionBody) -> Result<Value, StatementError> {
        match body {
            FunctionBody::Expr(e) => self.js_eval(e),
            FunctionBody::Block(statements) => {
                // Function declarations are hoisted: callable before their line.
                for s in statements {
                    if let StmtKind::Js(j) = &s.kind {
                        if let JsStmt::Function(def) = &**j {
                            self.declare_function(def)?;
                        }
                    }
                }
                let saved = self.completion.take();
                let flow = self.exec_all(statements);
                self.completion = saved;
                match flow? {
                    Flow::Return(v) => Ok(v),
                    Flow::Normal => Ok(Value::UNDEFINED),
                    Flow::Break => Err(syntax_error("Illegal break statement")),
                    Flow::Continue => Err(syntax_error(
                        "Illegal continue statement: no surrounding iteration statement",
                    )),
                }
            }
        }
    }

    /// `print(...)` and `printjson(...)` inside a script: the line is kept for the
    /// statement's output; the call's value is `undefined`, as in mongosh.
    pub(crate) fn print_line(
        &mut self,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, StatementError> {
        let parts: Vec<String> = args
            .iter()
            .map(|a| match (name, a) {
                (_, Value::Data(b)) => super::interpreter::printed_text(name, b),
                (_, other) => match value_output(other.clone()) {
                    Output::Message(m) => m,
                    _ => String::new(),
                },
            })
            .collect();
        self.script.printed.push(parts.join(" "));
        Ok(Value::UNDEFINED)
    }
}

/// Places an error at its statement when it has no place yet.
fn at(mut e: StatementError, s: &Stmt) -> StatementError {
    e.span.get_or_insert(s.span);
    e
}

/// Empties a finished scope that nothing outside it still holds. A function declared in
/// a scope closes over that scope, a cycle that reference counting never frees: without
/// this, each call of a function with an inner function would keep its scope forever.
/// A scope stays whole when a closure over it escaped (a returned counter, say).
fn release(scope: Rc<Scope>) {
    let inner = {
        let vars = scope.vars.borrow();
        let mut inner = 0;
        for b in vars.values() {
            if let Value::Func(c) = &b.value {
                if c.env.as_ref().is_some_and(|e| Rc::ptr_eq(e, &scope)) {
                    if Rc::strong_count(c) > 1 {
                        return;
                    }
                    inner += 1;
                }
            }
        }
        inner
    };
    if Rc::strong_count(&scope) == 1 + inner {
        scope.vars.borrow_mut().clear();
    }
}

/// A function declared as `name` takes that name when it has none (JavaScript's name
/// inference: `const f = x => x` prints as `[Function: f]`).
fn named(v: Value, name: &str) -> Value {
    match v {
        Value::Func(c) if c.name().is_none() => Value::Func(Rc::new(Closure {
            def: c.def.clone(),
            env: c.env.clone(),
            inferred: Some(name.to_string()),
        })),
        other => other,
    }
}
