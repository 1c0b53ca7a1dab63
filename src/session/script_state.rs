//! What the script interpreter keeps: its values ([`Value`]: BSON data or functions),
//! the scope chain of a running script ([`Scope`]), and the session's part of it
//! ([`ScriptState`]: global functions, the `Math.random()` stream, the running
//! statement's scope, budget and printed lines).

use crate::shell::parser::FunctionDef;
use crate::support::rng::SplitMix64;
use bson::Bson;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A script's value: BSON data, a function written in the script, or a shell function
/// (`print`, `printjson`) passed as a value.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    /// Data, as the shell's commands take and return it.
    Data(Bson),
    /// A function written in the script, with the scope it was written in.
    Func(Rc<Closure>),
    /// A shell function or namespace by name (`print`, `Math`, `Math.floor`, ...).
    Native(String),
}

impl Value {
    pub(crate) const UNDEFINED: Value = Value::Data(Bson::Undefined);
}

/// A function and the scope it closes over (`None`: the global scope).
pub(crate) struct Closure {
    pub(crate) def: Rc<FunctionDef>,
    pub(crate) env: Option<Rc<Scope>>,
    /// The name JavaScript infers for an anonymous function declared as a variable
    /// (`const f = x => x`), when the function has none of its own.
    pub(crate) inferred: Option<String>,
}

impl Closure {
    /// The function's name, if it has one.
    pub(crate) fn name(&self) -> Option<&str> {
        self.def.name.as_deref().or(self.inferred.as_deref())
    }
}

impl std::fmt::Debug for Closure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the scope: a closure stored in its own scope would print forever.
        write!(f, "Closure({:?})", self.name())
    }
}

/// One level of the scope chain: a call's or a block's own variables.
#[derive(Default)]
pub(crate) struct Scope {
    pub(crate) vars: RefCell<BTreeMap<String, Binding>>,
    /// The scope around it (`None`: the global scope). Set once, when the scope is
    /// made, or when a copy of it is made (see [`ScriptState`]'s `Clone`).
    pub(crate) parent: std::cell::OnceCell<Rc<Scope>>,
}

impl Scope {
    /// A new, empty scope inside `parent`.
    pub(crate) fn under(parent: Option<Rc<Scope>>) -> Rc<Scope> {
        let scope = Scope::default();
        if let Some(p) = parent {
            let _ = scope.parent.set(p);
        }
        Rc::new(scope)
    }
}

/// A variable's value and whether it was declared `const`.
pub(crate) struct Binding {
    pub(crate) value: Value,
    pub(crate) constant: bool,
}

/// What the script interpreter keeps in a session: global functions, the generator
/// behind `Math.random()`, and the running statement's scope, budget and printed lines.
pub(crate) struct ScriptState {
    pub(crate) functions: BTreeMap<String, Rc<Closure>>,
    /// The global variables declared `const`.
    pub(crate) constants: std::collections::BTreeSet<String>,
    pub(crate) random: SplitMix64,
    pub(crate) scope: Option<Rc<Scope>>,
    pub(crate) steps: u64,
    pub(crate) depth: u32,
    /// Where the stack was when the running statement began.
    pub(crate) stack_base: usize,
    /// Lines `print()` wrote during the running statement.
    pub(crate) printed: Vec<String>,
}

impl std::fmt::Debug for ScriptState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptState")
            .field("functions", &self.functions.keys().collect::<Vec<_>>())
            .field("random", &self.random)
            .finish_non_exhaustive()
    }
}

impl ScriptState {
    /// The state of a new session with this seed: `Math.random()` draws from its own
    /// stream, so scripts do not shift the workloads' draws.
    pub(crate) fn new(seed: u64) -> Self {
        ScriptState {
            functions: BTreeMap::new(),
            constants: std::collections::BTreeSet::new(),
            random: SplitMix64::new(seed ^ 0x4d61_7468_2e72_6e64),
            scope: None,
            steps: 0,
            depth: 0,
            stack_base: 0,
            printed: Vec::new(),
        }
    }
}

/// A copy shares nothing with the original: a closure's scope can change (a counter's
/// `count++`), and the timeline's snapshots are copies that must not see the steps
/// after them. Sharing within the copy is kept (two closures over one scope still share
/// the copy of it), cycles included (a function stored in the scope it closes over).
impl Clone for ScriptState {
    fn clone(&self) -> Self {
        let mut copier = Copier::default();
        // Inserted one by one rather than collected: collecting into a map sorts its
        // entries first, a sort the wasm module would carry for this one type.
        let mut functions = BTreeMap::new();
        for (k, c) in &self.functions {
            functions.insert(k.clone(), copier.closure(c));
        }
        ScriptState {
            functions,
            constants: self.constants.clone(),
            random: self.random.clone(),
            scope: self.scope.as_ref().map(|s| copier.scope(s)),
            steps: self.steps,
            depth: self.depth,
            stack_base: self.stack_base,
            printed: self.printed.clone(),
        }
    }
}

/// Deep copies of closures and scopes, each copied once.
#[derive(Default)]
struct Copier {
    scopes: BTreeMap<usize, Rc<Scope>>,
    closures: BTreeMap<usize, Rc<Closure>>,
}

impl Copier {
    fn closure(&mut self, c: &Rc<Closure>) -> Rc<Closure> {
        let key = Rc::as_ptr(c) as usize;
        if let Some(done) = self.closures.get(&key) {
            return done.clone();
        }
        let copy = Rc::new(Closure {
            def: c.def.clone(),
            env: c.env.as_ref().map(|e| self.scope(e)),
            inferred: c.inferred.clone(),
        });
        self.closures.insert(key, copy.clone());
        copy
    }

    fn scope(&mut self, s: &Rc<Scope>) -> Rc<Scope> {
        let key = Rc::as_ptr(s) as usize;
        if let Some(done) = self.scopes.get(&key) {
            return done.clone();
        }
        // Registered before its parent and variables are copied, so that a cycle back
        // to it ends here.
        let copy = Rc::new(Scope::default());
        self.scopes.insert(key, copy.clone());
        if let Some(p) = s.parent.get() {
            let _ = copy.parent.set(self.scope(p));
        }
        // Inserted one by one, as in `ScriptState::clone`.
        let mut vars = BTreeMap::new();
        for (k, b) in s.vars.borrow().iter() {
            let value = match &b.value {
                Value::Func(c) => Value::Func(self.closure(c)),
                other => other.clone(),
            };
            let binding = Binding {
                value,
                constant: b.constant,
            };
            vars.insert(k.clone(), binding);
        }
        *copy.vars.borrow_mut() = vars;
        copy
    }
}
