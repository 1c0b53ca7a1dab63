//! The mongosh-compatible interpreter: runs scripts against a [`Cluster`] and returns
//! one outcome per statement, printed the way mongosh prints it.
//!
//! The language layer ([`crate::shell`]) turns text into statements and values; this
//! module gives them meaning. The same [`Session`] drives the `shardlab` CLI and the
//! playground's console, so both answer alike.

use crate::engine::cluster::{Cluster, ClusterConfig, ClusterError};
use crate::engine::events::EventKind;
use crate::shell::context::{EvalContext, EvalError};
use crate::shell::parser::{
    flatten, parse_script_recovering, Expr, ParseError, Script, Segment, StmtKind,
};
use crate::shell::Piece;
use crate::shell::{to_canonical_ejson, LexError, Span};
use crate::values::inspect::{format_value, format_value_with, FormatOptions};
use bson::{Bson, Document};

/// What a statement produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// A value, echoed as mongosh echoes it (a top-level string prints bare).
    Value(Bson),
    /// A cursor's documents, printed as an array.
    Cursor(Vec<Document>),
    /// A result mongosh prints as titled sections separated by `---` (`sh.status()`,
    /// `getShardDistribution()`): each key is a title, each value its body.
    Sections(Document),
    /// A plain message, such as `switched to db test`.
    Message(String),
    /// Nothing to print (a declaration).
    Nothing,
}

/// Which kind of error a statement raised, as mongosh names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// An error the (simulated) server returned.
    Server,
    /// The text does not parse.
    Syntax,
    /// A method or argument of the wrong kind.
    Type,
    /// An unknown variable.
    Reference,
    /// A value out of JavaScript's range (a string too long to build).
    Range,
    /// mongosh's own check of a helper's arguments (`MongoshInvalidInputError`), which
    /// never reaches the server.
    InvalidInput,
    /// A failure mongosh itself reports while running a helper
    /// (`MongoshRuntimeError`), such as an aggregation that answered nothing.
    Runtime,
    /// The Node driver's check of a command's arguments (`MongoInvalidArgumentError`),
    /// made before it sends the command.
    InvalidArgument,
    /// A write error of one write (`insertOne`, `updateOne`, ...): the server's
    /// `writeErrors` entry carries a code but no code name, so mongosh prints
    /// `MongoServerError: <errmsg>` (the driver throws `new MongoServerError(writeErrors[0])`).
    Write,
    /// The write errors of a bulk write (`insertMany`): the driver's `MongoBulkWriteError`,
    /// which mongosh prints with its `Result` and `Write Errors`.
    BulkWrite,
}

/// An error from one statement, with MongoDB's code and words and where it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct StatementError {
    /// How mongosh classifies it.
    pub kind: ErrorKind,
    /// MongoDB's numeric code (0 when it has none).
    pub code: i32,
    /// MongoDB's code name (empty when it has none).
    pub code_name: String,
    /// The message.
    pub message: String,
    /// Where in the script, when known.
    pub span: Option<Span>,
    /// What mongosh prints after the message: a bulk write's `Result` and `Write
    /// Errors` (each on lines of its own, starting with a newline), else empty.
    pub detail: String,
}

impl StatementError {
    fn server(e: ClusterError) -> Self {
        StatementError {
            kind: ErrorKind::Server,
            code: e.code(),
            code_name: e.code_name().to_string(),
            message: e.to_string(),
            span: None,
            detail: String::new(),
        }
    }

    /// A TypeError, as mongosh raises for misuse of its API.
    pub(crate) fn type_error(message: impl Into<String>) -> Self {
        StatementError {
            kind: ErrorKind::Type,
            code: 0,
            code_name: String::new(),
            message: message.into(),
            span: None,
            detail: String::new(),
        }
    }

    /// A server error with its code and code name, for a check the server makes that
    /// the engine has no error of its own for.
    pub(crate) fn server_coded(code: i32, code_name: &str, message: impl Into<String>) -> Self {
        StatementError {
            kind: ErrorKind::Server,
            code,
            code_name: code_name.to_string(),
            message: message.into(),
            span: None,
            detail: String::new(),
        }
    }

    /// A `MongoshInvalidInputError` with mongosh's code for an invalid argument
    /// (`CommonErrors.InvalidArgument`, `COMMON-10001`), as shell-api's helpers raise.
    pub(crate) fn invalid_input(message: impl Into<String>) -> Self {
        Self::invalid_input_coded("COMMON-10001", message)
    }

    /// A `MongoshInvalidInputError` with another of mongosh's error codes
    /// (error-codes.ts), such as `SHAPI-10001` (`NotConnectedToShardedCluster`).
    pub(crate) fn invalid_input_coded(code: &str, message: impl Into<String>) -> Self {
        StatementError {
            kind: ErrorKind::InvalidInput,
            code: 0,
            code_name: String::new(),
            message: format!("[{code}] {}", message.into()),
            span: None,
            detail: String::new(),
        }
    }

    /// A `MongoInvalidArgumentError`, as the Node driver raises before sending a command
    /// (an update without operators, a replacement with them).
    pub(crate) fn invalid_argument(message: impl Into<String>) -> Self {
        StatementError {
            kind: ErrorKind::InvalidArgument,
            code: 0,
            code_name: String::new(),
            message: message.into(),
            span: None,
            detail: String::new(),
        }
    }

    fn syntax(e: &ParseError) -> Self {
        // The parser's text is "line:col: Kind: message"; mongosh prints
        // "SyntaxError: message (line:col)".
        let span = e.span();
        let text = e.to_string();
        let without_place = text
            .strip_prefix(&format!("{span}: "))
            .unwrap_or(&text)
            .to_string();
        let message = without_place
            .strip_prefix("SyntaxError: ")
            .unwrap_or(&without_place)
            .to_string();
        StatementError {
            kind: ErrorKind::Syntax,
            code: 0,
            code_name: String::new(),
            message: format!("{message} ({}:{})", span.line, span.column),
            span: Some(span),
            detail: String::new(),
        }
    }

    /// The error placed at `span`, unless it already has a place.
    pub(crate) fn at(mut self, span: Span) -> Self {
        self.span.get_or_insert(span);
        self
    }

    /// The error as the one JSON line `shardlab --json` prints:
    /// `{"error": {"code": <int>, "codeName": "...", "errmsg": "..."}}`.
    pub fn to_json(&self) -> String {
        let code_name = self.name();
        let mut out = String::from("{\"error\": {\"code\": ");
        out.push_str(&self.code.to_string());
        out.push_str(", \"codeName\": ");
        crate::shell::ejson::write_json_string(&mut out, code_name);
        out.push_str(", \"errmsg\": ");
        crate::shell::ejson::write_json_string(&mut out, &self.message);
        out.push_str("}}");
        out
    }

    /// The error's name as `shardlab --json` reports it in `codeName`: MongoDB's code name
    /// for a server error, else the error's class (`SyntaxError`, `TypeError`, ...).
    pub fn name(&self) -> &str {
        match self.kind {
            ErrorKind::Server | ErrorKind::Write | ErrorKind::BulkWrite => self.code_name.as_str(),
            ErrorKind::Syntax => "SyntaxError",
            ErrorKind::Type => "TypeError",
            ErrorKind::Reference => "ReferenceError",
            ErrorKind::Range => "RangeError",
            ErrorKind::InvalidInput => "MongoshInvalidInputError",
            ErrorKind::Runtime => "MongoshRuntimeError",
            ErrorKind::InvalidArgument => "MongoInvalidArgumentError",
        }
    }
}

impl std::fmt::Display for StatementError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::Server if self.code_name.is_empty() => {
                write!(f, "MongoServerError: {}", self.message)
            }
            ErrorKind::Server => {
                write!(f, "MongoServerError[{}]: {}", self.code_name, self.message)
            }
            ErrorKind::Write => write!(f, "MongoServerError: {}", self.message),
            ErrorKind::BulkWrite => {
                write!(f, "MongoBulkWriteError: {}{}", self.message, self.detail)
            }
            ErrorKind::Syntax => write!(f, "SyntaxError: {}", self.message),
            ErrorKind::Type => write!(f, "TypeError: {}", self.message),
            ErrorKind::Reference => write!(f, "ReferenceError: {}", self.message),
            ErrorKind::Range => write!(f, "RangeError: {}", self.message),
            ErrorKind::InvalidInput => write!(f, "MongoshInvalidInputError: {}", self.message),
            ErrorKind::Runtime => write!(f, "MongoshRuntimeError: {}", self.message),
            ErrorKind::InvalidArgument => {
                write!(f, "MongoInvalidArgumentError: {}", self.message)
            }
        }
    }
}

impl From<ClusterError> for StatementError {
    fn from(e: ClusterError) -> Self {
        StatementError::server(e)
    }
}

impl From<EvalError> for StatementError {
    fn from(e: EvalError) -> Self {
        let (kind, message, span) = match &e {
            EvalError::Reference { name, span } => (
                ErrorKind::Reference,
                format!("{name} is not defined"),
                *span,
            ),
            EvalError::Type { detail, span } => (ErrorKind::Type, detail.clone(), *span),
            EvalError::NotAValue { what, span } => {
                (ErrorKind::Type, format!("{what} is not a value"), *span)
            }
            EvalError::BadArgument { func, detail, span } => {
                (ErrorKind::Type, format!("{func}: {detail}"), *span)
            }
            EvalError::BadWrapper { key, detail, span } => (
                ErrorKind::Syntax,
                format!("invalid Extended JSON {key}: {detail}"),
                *span,
            ),
            EvalError::Limit { error, span } => {
                return StatementError::server(error.clone()).at(*span);
            }
            EvalError::StringLength { span } => {
                (ErrorKind::Range, "Invalid string length".to_string(), *span)
            }
            EvalError::NotJson { detail, span } => (
                ErrorKind::Syntax,
                format!("not valid Extended JSON: {detail}"),
                *span,
            ),
        };
        StatementError {
            kind,
            code: 0,
            code_name: String::new(),
            message,
            span: Some(span),
            detail: String::new(),
        }
    }
}

/// What one statement did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The statement's text.
    pub source: String,
    /// Its result or error.
    pub result: Result<Output, StatementError>,
    /// Whether this outcome holds the lines the statement printed (`print`,
    /// `console.log`): it comes just before the statement's own outcome.
    pub printed: bool,
    /// Whether the cursor this outcome shows a batch of has more documents, which
    /// mongosh announces with `Type "it" for more` (`cursorHasMore` of
    /// packages/shell-api/src/result.ts's `CursorIterationResult`).
    pub cursor_has_more: bool,
    /// Whether mongosh prints this outcome's value in full (`fullDepthInspectOptions` in
    /// packages/cli-repl/src/format-output.ts: depth, array and string lengths
    /// unlimited), as it prints an `ExplainOutput`. Cursors always print in full.
    pub full_depth: bool,
}

impl Outcome {
    /// The outcome printed as mongosh prints it; `None` when there is nothing to print.
    pub fn render(&self) -> Option<String> {
        match &self.result {
            // packages/cli-repl/src/format-output.ts, `formatCursorIterationResult`.
            Ok(out) if self.cursor_has_more => {
                render_output(out).map(|text| format!("{text}\n{TYPE_IT_FOR_MORE}"))
            }
            Ok(Output::Value(v)) if self.full_depth => {
                Some(format_value_with(v, &FormatOptions::lossless()))
            }
            Ok(out) => render_output(out),
            Err(e) => Some(e.to_string()),
        }
    }

    /// The outcome as one line of canonical Extended JSON; `None` when there is nothing.
    pub fn render_json(&self) -> Option<String> {
        match &self.result {
            Ok(Output::Value(v)) => Some(to_canonical_ejson(v)),
            Ok(Output::Cursor(docs)) => Some(to_canonical_ejson(&Bson::Array(
                docs.iter().cloned().map(Bson::Document).collect(),
            ))),
            Ok(Output::Sections(d)) => Some(crate::shell::ejson::document_to_canonical_ejson(d)),
            Ok(Output::Message(m)) => Some(to_canonical_ejson(&Bson::String(m.clone()))),
            Ok(Output::Nothing) => None,
            Err(e) => Some(e.to_json()),
        }
    }
}

/// What mongosh prints under a cursor's batch when the cursor has more documents
/// (`shell-api.classes.Cursor.iteration.type-it-for-more` in
/// packages/i18n/src/locales/en_US.ts).
pub const TYPE_IT_FOR_MORE: &str = "Type \"it\" for more";

/// Renders an output as mongosh prints it.
pub fn render_output(out: &Output) -> Option<String> {
    match out {
        Output::Value(Bson::String(s)) => Some(s.clone()),
        Output::Value(v) => Some(format_value(v)),
        // mongosh prints nothing for a cursor without documents (`formatCursor` in
        // packages/cli-repl/src/format-output.ts returns '').
        Output::Cursor(docs) if docs.is_empty() => None,
        // format-output.ts prints a cursor's documents with `fullDepthInspectOptions`.
        Output::Cursor(docs) => Some(format_value_with(
            &Bson::Array(docs.iter().cloned().map(Bson::Document).collect()),
            &FormatOptions::lossless(),
        )),
        Output::Sections(d) => Some(
            d.iter()
                .map(|(title, body)| format!("{title}\n{}", format_value(body)))
                .collect::<Vec<_>>()
                .join("\n---\n"),
        ),
        Output::Message(m) => Some(m.clone()),
        Output::Nothing => None,
    }
}

/// One argument of `print(...)` or `printjson(...)` (`how`) as mongosh prints it
/// (packages/cli-repl/src/mongosh-repl.ts `onPrint`, format-output.ts
/// `formatSimpleType`): a string as it is, since both allow control characters;
/// `undefined` as nothing; any other value through `util.inspect`, with the shell's
/// options for `print` and with [`FormatOptions::printjson`]'s for `printjson`.
pub(crate) fn printed_text(how: &str, v: &Bson) -> String {
    match v {
        Bson::String(s) => s.clone(),
        Bson::Undefined => String::new(),
        v if how == "printjson" => format_value_with(v, &FormatOptions::printjson()),
        v => format_value(v),
    }
}

/// A shell session: a cluster, the current database and the script's variables.
#[derive(Debug, Clone)]
pub struct Session {
    /// The simulated cluster.
    pub cluster: Cluster,
    /// The current database (`use <db>`).
    pub db: String,
    pub(crate) ctx: EvalContext,
    /// Sampled queries for analyzeShardKey, when `configureQueryAnalyzer` is on.
    pub(crate) sampling: super::sampling::Sampling,
    /// The generator behind workloads, seeded from the cluster's seed.
    pub(crate) rng: crate::support::rng::SplitMix64,
    /// How many documents each (namespace, workload spec) has generated, so counters
    /// continue across `sim.generate` calls.
    pub(crate) generated: std::collections::BTreeMap<String, u64>,
    /// The collection the last command that named one touched (see [`Session::touched`]).
    pub(crate) touched: Option<String>,
    /// How many times a command touched a collection (see [`Session::touches`]).
    pub(crate) touches: u64,
    /// The script interpreter's globals, random stream and running statement.
    pub(crate) script: super::script_state::ScriptState,
    /// The running script's completion value: the last expression statement's result,
    /// which mongosh prints after a loop.
    pub(crate) completion: Option<Output>,
    /// The current cursor's documents not printed yet, which `it` goes on printing;
    /// `None` before any cursor (see session/cursor.rs).
    pub(crate) cursor_rest: Option<std::collections::VecDeque<Document>>,
    /// Whether the running statement is `it`, whose documents are already a batch.
    pub(crate) cursor_iterating: bool,
    /// The deprecation warnings printed so far: each is printed once a session
    /// (shell-instance-state.ts `printDeprecationWarning`, its `warningsShown`).
    pub(crate) warnings_shown: std::collections::BTreeSet<&'static str>,
    /// Whether the running statement's value is one mongosh prints in full, without
    /// depth or length limits (an `explain()`'s `ExplainOutput`).
    pub(crate) full_depth_output: bool,
    /// Each variable's size in BSON bytes, so that the session's memory budget (shared
    /// with the cluster's documents) is checked without measuring every variable again.
    pub(crate) variable_bytes: std::collections::BTreeMap<String, u64>,
    /// The inserts' tally, while one is kept (see [`Session::start_insert_tally`]).
    pub(crate) insert_tally: Option<super::insert_tally::InsertTally>,
    /// What the `sim.` helpers did, while a log is kept (see [`Session::start_sim_log`]).
    pub(crate) sim_log: Option<Vec<super::sim_log::SimCall>>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new(ClusterConfig::default())
    }
}

/// The time every session starts at: the core never reads the real time (the cluster's
/// simulated clock moves on from here, and `new Date()` follows it).
const EPOCH_MILLIS: i64 = crate::engine::EPOCH_MS;

impl Session {
    /// A session on a new cluster, using the `test` database.
    pub fn new(config: ClusterConfig) -> Self {
        let mut ctx = EvalContext::at(EPOCH_MILLIS);
        let mut rng = crate::support::rng::SplitMix64::new(config.seed ^ 0x5348_454c_4c00);
        for b in &mut ctx.object_id_process {
            *b = (rng.next_u64() & 0xff) as u8;
        }
        ctx.uuid_state = rng.next_u64();
        Session {
            script: super::script_state::ScriptState::new(config.seed),
            completion: None,
            cursor_rest: None,
            cursor_iterating: false,
            warnings_shown: Default::default(),
            full_depth_output: false,
            db: "test".to_string(),
            rng: crate::support::rng::SplitMix64::new(config.seed),
            cluster: Cluster::new(config),
            ctx,
            sampling: Default::default(),
            generated: std::collections::BTreeMap::new(),
            touched: None,
            touches: 0,
            variable_bytes: std::collections::BTreeMap::new(),
            insert_tally: None,
            sim_log: None,
        }
    }

    /// Starts keeping a tally of what each `insertMany` call does, document by document
    /// (an import reads it to report its lines); [`Session::take_insert_tally`] ends it.
    pub fn start_insert_tally(&mut self) {
        self.insert_tally = Some(Default::default());
    }

    /// The tally kept since [`Session::start_insert_tally`], which stops keeping it.
    pub fn take_insert_tally(&mut self) -> super::insert_tally::InsertTally {
        self.insert_tally.take().unwrap_or_default()
    }

    /// How many times a command touched a collection, the same one again included: the
    /// page tells by it whether a command touched one at all.
    pub fn touches(&self) -> u64 {
        self.touches
    }

    /// The collection the last command that touched one named: a `db.<collection>` call,
    /// or a command whose effects name a namespace (`sh.shardCollection`, `sim.generate`,
    /// an admin command). `None` until one did, or when that collection no longer exists.
    /// The playground shows this collection, whatever ran the command.
    pub fn touched(&self) -> Option<&str> {
        let ns = self.touched.as_deref()?;
        self.cluster.collections().contains_key(ns).then_some(ns)
    }

    /// Runs a script: every statement runs, even after an error, and each yields an
    /// outcome. Statements that do not parse yield a SyntaxError with line and column.
    pub fn run(&mut self, src: &str) -> Vec<Outcome> {
        let mut all = Vec::new();
        self.run_each(src, |o| {
            all.push(o);
            true
        });
        all
    }

    /// Runs a script like [`Session::run`], handing each outcome to `each` as soon as its
    /// statement completes, in source order (syntax errors in their place). `each`
    /// returns whether to go on: the CLI stops when its reader goes away.
    ///
    /// A script past the lexer's limits on one script ([`crate::shell::MAX_SCRIPT_BYTES`],
    /// [`crate::shell::MAX_TOKENS`]) runs statement by statement, as the CLI runs a file
    /// ([`crate::shell::ScriptStream`]): the limits then hold for each statement. Only a
    /// step the engine made can be that long (an import of many documents, each
    /// `insertMany` a statement); the console's input is bounded far below them.
    pub fn run_each(&mut self, src: &str, mut each: impl FnMut(Outcome) -> bool) {
        let too_long = |errors: &[ParseError]| {
            errors
                .iter()
                .any(|e| matches!(e, ParseError::Lex(LexError::TooLong { .. })))
        };
        if src.len() <= crate::shell::MAX_SCRIPT_BYTES {
            let (script, errors) = parse_script_recovering(src);
            if !too_long(&errors) {
                self.run_parsed(src, &script, &errors, each);
                return;
            }
        }
        let mut stream = crate::shell::ScriptStream::new();
        stream.push(src);
        while let Some(piece) = stream.next_piece(true) {
            if !self.run_piece(&piece, &mut each) || piece.stop {
                return;
            }
        }
    }

    /// Runs the statements of one piece of a script read in pieces
    /// ([`crate::shell::ScriptStream`], the CLI's way of reading), as [`Session::run_each`]
    /// runs a whole script: the session keeps its state from one piece to the next.
    /// Answers whether to go on, which is false once `each` said to stop.
    pub fn run_piece(&mut self, piece: &Piece, each: impl FnMut(Outcome) -> bool) -> bool {
        self.run_parsed(&piece.text, &piece.script, &piece.errors, each)
    }

    /// Runs parsed statements, with the syntax errors among them in their place; `src`
    /// is the text their spans point into.
    fn run_parsed(
        &mut self,
        src: &str,
        script: &Script,
        errors: &[ParseError],
        mut each: impl FnMut(Outcome) -> bool,
    ) -> bool {
        let mut errors = errors.iter().peekable();
        let syntax = |e: &ParseError| Outcome {
            source: String::new(),
            result: Err(StatementError::syntax(e)),
            printed: false,
            cursor_has_more: false,
            full_depth: false,
        };
        for stmt in &script.statements {
            while let Some(e) = errors.next_if(|e| e.span().start <= stmt.span.start) {
                if !each(syntax(e)) {
                    return false;
                }
            }
            let source = src
                .get(stmt.span.start as usize..stmt.span.end as usize)
                .unwrap_or("")
                .to_string();
            let events_before = self.cluster.events().len();
            self.full_depth_output = false;
            self.start_statement();
            let (printed, result) = self.run_statement(&stmt.kind, source.len() as u64);
            let result = result.map_err(|e| e.at(stmt.span));
            self.end_statement(&result);
            let (result, cursor_has_more) = self.cursor_batch(result);
            let full_depth = std::mem::take(&mut self.full_depth_output) && result.is_ok();
            if let Some(ns) = self
                .cluster
                .events()
                .since(events_before)
                .filter_map(|e| event_namespace(&e.kind))
                .last()
            {
                self.touched = Some(ns.to_string());
                self.touches += 1;
            }
            // Lines a script printed come first, as one message of their own.
            if !printed.is_empty() {
                let result = Ok(Output::Message(printed.join("\n")));
                let source = source.clone();
                if !each(Outcome {
                    source,
                    result,
                    printed: true,
                    cursor_has_more: false,
                    full_depth: false,
                }) {
                    return false;
                }
            }
            if !each(Outcome {
                source,
                result,
                printed: false,
                cursor_has_more,
                full_depth,
            }) {
                return false;
            }
        }
        for e in errors {
            if !each(syntax(e)) {
                return false;
            }
        }
        true
    }

    /// Runs one statement under the statement's work budget
    /// ([`crate::support::budget::STATEMENT_WORK`], its text's bytes included). A
    /// statement that passes it fails with `MaxTimeMSExpired` and keeps nothing it half
    /// did: a single read or write charges all its work before it changes anything, and
    /// the commands that run several writes (`sim.queries`, `sim.preset`) put the session
    /// back as it was (see [`Session::checkpoint`]). A copy per statement would cost more
    /// than the statement on a large collection.
    pub(crate) fn atomic_statement(
        &mut self,
        kind: &StmtKind,
        text_bytes: u64,
    ) -> Result<Output, StatementError> {
        use crate::support::budget;
        // A new cluster (`sim.reset`) starts with nothing held: the variables are noted
        // again before every statement.
        self.cluster.hold(self.variable_bytes.values().sum());
        budget::within(budget::STATEMENT_WORK, || {
            budget::charge(text_bytes).map_err(ClusterError::from)?;
            self.statement(kind)
        })
    }

    /// What a command running several writes may change besides the variables, to be
    /// put back by [`Session::restore`] if it runs out of budget part way. The cluster's
    /// clones share their storage, so this costs about a pointer per 32 documents.
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            cluster: self.cluster.clone(),
            db: self.db.clone(),
            sampling: self.sampling.clone(),
            rng: self.rng.clone(),
            generated: self.generated.clone(),
            touched: self.touched.clone(),
            touches: self.touches,
            object_id_counter: self.ctx.object_id_counter,
            uuid_state: self.ctx.uuid_state,
        }
    }

    /// Puts back what [`Session::checkpoint`] kept.
    pub(crate) fn restore(&mut self, c: Checkpoint) {
        self.cluster = c.cluster;
        self.db = c.db;
        self.sampling = c.sampling;
        self.rng = c.rng;
        self.generated = c.generated;
        self.touched = c.touched;
        self.touches = c.touches;
        self.ctx.object_id_counter = c.object_id_counter;
        self.ctx.uuid_state = c.uuid_state;
    }

    pub(crate) fn statement(&mut self, kind: &StmtKind) -> Result<Output, StatementError> {
        match kind {
            StmtKind::Use { db } => {
                self.db = db.clone();
                Ok(Output::Message(format!("switched to db {db}")))
            }
            StmtKind::Show { what, .. } => self.show(what),
            StmtKind::Declare { kind, name, init } => self.js_declare(*kind, name, init.as_ref()),
            StmtKind::Assign { name, value } => self.js_assign_statement(name, value),
            StmtKind::Expr(e) => self.expression_statement(e, true),
            StmtKind::Js(js) => self.js_statement(js),
        }
    }

    /// Keeps `value` in variable `name`. A variable holds at most what one BSON value
    /// may (see [`crate::values::limits`]): a command's result past that, such as
    /// `find().toArray()` of a large collection, is refused rather than kept. All the
    /// variables together share one budget with the documents the cluster took in
    /// ([`crate::engine::cluster::MAX_WRITTEN_BYTES`]): past it the assignment is refused
    /// and the variable keeps its old value.
    pub(crate) fn bind(&mut self, name: &str, value: Bson) -> Result<Output, StatementError> {
        let size = crate::values::limits::measure(&value, crate::values::limits::MAX_BSON_BYTES)?;
        if size.bytes > self.room_for_variable(name) {
            return Err(self.memory_refusal("assigning", name));
        }
        self.note_variable(name, size.bytes);
        self.ctx.variables.insert(name.to_string(), value);
        Ok(Output::Nothing)
    }

    /// How many bytes global variable `name` may hold within the session's memory budget,
    /// given the other variables and what the cluster took in.
    pub(crate) fn room_for_variable(&self, name: &str) -> u64 {
        use crate::engine::cluster::MAX_WRITTEN_BYTES;
        let others: u64 = self.variable_bytes.values().sum::<u64>()
            - self.variable_bytes.get(name).copied().unwrap_or(0);
        MAX_WRITTEN_BYTES.saturating_sub(self.cluster.written_bytes().saturating_add(others))
    }

    /// Notes that global variable `name` holds `bytes`, and tells the cluster what all the
    /// variables hold.
    pub(crate) fn note_variable(&mut self, name: &str, bytes: u64) {
        self.variable_bytes.insert(name.to_string(), bytes);
        self.cluster.hold(self.variable_bytes.values().sum());
    }

    /// The error for `doing` (assigning, changing) variable `name` past the session's
    /// memory budget.
    pub(crate) fn memory_refusal(&self, doing: &str, name: &str) -> StatementError {
        use crate::engine::cluster::MAX_WRITTEN_BYTES;
        let others: u64 = self.variable_bytes.values().sum::<u64>()
            - self.variable_bytes.get(name).copied().unwrap_or(0);
        ClusterError::ExceededMemoryLimit(format!(
            "{doing} {name} would take the session past its memory budget of {} MiB \
             for the shell's variables and the cluster's documents together ({} MiB in \
             the other variables, {} MiB written); {name} is left as it was",
            MAX_WRITTEN_BYTES >> 20,
            others >> 20,
            self.cluster.written_bytes() >> 20
        ))
        .into()
    }

    /// Evaluates an expression that must produce a value (commands included).
    fn value_of(&mut self, e: &Expr) -> Result<Bson, StatementError> {
        match self.expression(e)? {
            Output::Value(v) => Ok(v),
            Output::Cursor(docs) => Ok(Bson::Array(docs.into_iter().map(Bson::Document).collect())),
            Output::Sections(d) => Ok(Bson::Document(d)),
            Output::Message(m) => Ok(Bson::String(m)),
            Output::Nothing => Ok(Bson::Undefined),
        }
    }

    pub(crate) fn show(&mut self, what: &str) -> Result<Output, StatementError> {
        match what {
            "dbs" | "databases" => Ok(Output::Message(super::databases::show_dbs(&self.cluster))),
            "collections" | "tables" if self.db == "config" => Ok(Output::Message(
                crate::engine::config_catalog::CONFIG_COLLECTIONS.join("\n"),
            )),
            "collections" | "tables" => {
                let prefix = format!("{}.", self.db);
                let mut names: Vec<String> = self
                    .cluster
                    .collections()
                    .keys()
                    .filter_map(|ns| ns.strip_prefix(&prefix).map(str::to_string))
                    .collect();
                // database.ts `_getCollectionNamesWithTypes` sorts with `localeCompare`.
                names.sort_by(|a, b| super::databases::locale_compare(a, b));
                Ok(Output::Message(names.join("\n")))
            }
            // What mongo.ts `show` knows and ShardLab does not model.
            "profile"
            | "users"
            | "roles"
            | "log"
            | "logs"
            | "startupWarnings"
            | "automationNotices"
            | "nonGenuineMongoDBCheck" => Err(StatementError::type_error(format!(
                "Unknown show argument: {what}"
            ))),
            // mongo.ts `show`, its `default:` case.
            other => Err(StatementError::invalid_input(format!(
                "'{other}' is not a valid argument for \"show\"."
            ))),
        }
    }

    pub(crate) fn expression(&mut self, e: &Expr) -> Result<Output, StatementError> {
        let Some(segments) = flatten(e) else {
            return Ok(Output::Value(self.eval(e)?));
        };
        let head = segments[0].name.as_str();
        match head {
            "db" => self.db_chain(&segments[1..]),
            "sh" => self.sh_command(&segments[1..]),
            "sim" => self.sim_command(&segments[1..]),
            "sleep" if !self.is_variable("sleep") => {
                let out = self.sleep_segment(&segments[0])?;
                navigate(out, &segments[1..])
            }
            "convertShardKeyToHashed" => {
                let args = call_args(&segments[0])?;
                let v = self.arg(args, 0, "value")?;
                let out = Output::Value(Bson::Int64(
                    crate::values::hash::convert_shard_key_to_hashed(&v),
                ));
                navigate(out, &segments[1..])
            }
            "print" | "printjson" => {
                let args = call_args(&segments[0])?;
                let values = args
                    .iter()
                    .map(|a| self.value_of(a))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Output::Message(
                    values
                        .iter()
                        .map(|v| printed_text(head, v))
                        .collect::<Vec<_>>()
                        .join(" "),
                ))
            }
            _ => Ok(Output::Value(self.eval(e)?)),
        }
    }

    /// `db.<...>`: database methods, or a collection and its methods, after any number
    /// of `getSiblingDB(name)` links (read in a loop: a long chain costs no stack). The
    /// chain reads the other database and leaves the current one as it was: database.ts
    /// `getSiblingDB` returns another `Database`, which prints as its name.
    fn db_chain(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let saved = self.db.clone();
        let mut rest = rest;
        while let Some((first, after)) = rest.split_first() {
            let ("getSiblingDB", Some(args)) = (first.name.as_str(), &first.args) else {
                break;
            };
            match self.name_arg(args, "Database.getSiblingDB") {
                Ok(name) => self.db = name,
                Err(e) => {
                    self.db = saved;
                    return Err(e);
                }
            }
            rest = after;
        }
        let out = self.db_method(rest);
        self.db = saved;
        out
    }

    /// The name argument of `getSiblingDB`/`getCollection`, checked as
    /// `assertArgsDefinedType([name], ['string'], func)` (helpers.ts) and then
    /// `isValidDatabaseName` (mongo.ts `_getDb`) or `isValidCollectionName`
    /// (database.ts `getCollection`) check it.
    fn name_arg(&mut self, args: &[Expr], func: &str) -> Result<String, StatementError> {
        let name = match self.opt_arg(args, 0)? {
            None | Some(Bson::Undefined) => {
                return Err(StatementError::invalid_input(format!(
                    "Missing required argument at position 0 ({func})"
                )))
            }
            Some(Bson::String(s)) => s,
            Some(other) => {
                return Err(StatementError::invalid_input(format!(
                    "Argument at position 0 must be of type string, got {} instead ({func})",
                    match other {
                        Bson::Int32(_) | Bson::Double(_) => "number",
                        Bson::Boolean(_) => "boolean",
                        _ => "object",
                    }
                )))
            }
        };
        let (bad, what): (&[char], &str) = if func == "Database.getSiblingDB" {
            (&['/', '\\', '.', ' ', '"', '\0'], "database")
        } else {
            (&['$', '\0'], "collection")
        };
        if name.is_empty() || name.contains(bad) {
            return Err(StatementError::invalid_input(format!(
                "Invalid {what} name: {name}"
            )));
        }
        Ok(name)
    }

    /// The command of `runCommand`/`adminCommand` as database.ts takes it:
    /// `assertArgsDefinedType([cmd], [['string', 'object']], func)` (helpers.ts), then a
    /// string names a command sent as `{[cmd]: 1}`. Any other object that is not a
    /// document is refused as before: the driver cannot send it.
    fn command_arg(&mut self, args: &[Expr], func: &str) -> Result<Document, StatementError> {
        match self.opt_arg(args, 0)? {
            None => Err(StatementError::invalid_input(format!(
                "Missing required argument at position 0 ({func})"
            ))),
            Some(Bson::String(name)) => Ok(bson::doc! { name: 1 }),
            Some(Bson::Document(cmd)) => Ok(cmd),
            Some(other) if crate::values::js_typeof(&other) != "object" => {
                Err(StatementError::invalid_input(format!(
                    "Argument at position 0 must be of type string or object, got {} instead ({func})",
                    crate::values::js_typeof(&other)
                )))
            }
            Some(other) => Err(StatementError::type_error(format!(
                "command must be an object, got {}",
                format_value(&other)
            ))),
        }
    }

    /// `db.<...>` past its `getSiblingDB` links.
    fn db_method(&mut self, rest: &[Segment]) -> Result<Output, StatementError> {
        let Some(first) = rest.first() else {
            return Ok(Output::Message(self.db.clone()));
        };
        match (first.name.as_str(), &first.args) {
            ("getName", Some(_)) => Ok(Output::Value(Bson::String(self.db.clone()))),
            ("help", Some(_)) => Ok(Output::Message(super::help::database_help())),
            ("aggregate", Some(args)) => {
                self.forget_cursor();
                self.later_db_aggregate(args, &rest[1..])
            }
            ("getCollection", Some(args)) => {
                // database.ts names its caller 'Database.getColl'.
                let name = self.name_arg(args, "Database.getColl")?;
                let ns = format!("{}.{name}", self.db);
                self.touch(&ns);
                self.collection_chain(&ns, &rest[1..])
            }
            ("adminCommand" | "runCommand", Some(args)) => {
                let cmd = self.command_arg(args, &format!("Database.{}", first.name))?;
                let db = if first.name == "adminCommand" {
                    "admin".to_string()
                } else {
                    self.db.clone()
                };
                let out = self.admin_command_on(&db, &cmd)?;
                navigate(out, &rest[1..])
            }
            ("stats", Some(args)) => {
                let out = self.database_stats(args)?;
                navigate(out, &rest[1..])
            }
            // database.ts `printShardingStatus(verbose = false)`: the same
            // getPrintableShardStatus as `sh.status()`.
            ("printShardingStatus", Some(args)) => {
                let out = self.print_sharding_status(args)?;
                navigate(out, &rest[1..])
            }
            ("getCollectionNames", Some(_)) => {
                let prefix = format!("{}.", self.db);
                let names = Output::Value(Bson::Array(
                    self.cluster
                        .collections()
                        .keys()
                        .filter_map(|ns| {
                            ns.strip_prefix(&prefix)
                                .map(|s| Bson::String(s.to_string()))
                        })
                        .collect(),
                ));
                // `db.getCollectionNames().length` and the like read the array.
                navigate(names, &rest[1..])
            }
            (_, None) => {
                let ns = format!("{}.{}", self.db, first.name);
                self.touch(&ns);
                self.collection_chain(&ns, &rest[1..])
            }
            (name, Some(_)) => Err(StatementError::type_error(format!(
                "db.{name} is not a function"
            ))),
        }
    }

    /// Notes that a command named collection `ns` (see [`Session::touched`]). Reading
    /// the config database is not looking at a collection of the cluster's: it leaves the
    /// collection the page shows as it was.
    fn touch(&mut self, ns: &str) {
        if !ns.starts_with("config.") {
            self.touched = Some(ns.to_string());
            self.touches += 1;
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<Bson, StatementError> {
        self.js_data(e).map_err(|err| err.at(e.span))
    }

    /// The `i`th argument as a value, as the driver sends it (see [`as_sent`]).
    pub(crate) fn arg(
        &mut self,
        args: &[Expr],
        i: usize,
        what: &str,
    ) -> Result<Bson, StatementError> {
        match args.get(i) {
            Some(e) => Ok(as_sent(self.value_of(e)?)),
            None => Err(StatementError::type_error(format!(
                "missing argument: {what}"
            ))),
        }
    }

    /// The `i`th argument, if present and not undefined, as the driver sends it (see
    /// [`as_sent`]).
    pub(crate) fn opt_arg(
        &mut self,
        args: &[Expr],
        i: usize,
    ) -> Result<Option<Bson>, StatementError> {
        match args.get(i) {
            Some(e) => match self.value_of(e)? {
                Bson::Undefined => Ok(None),
                v => Ok(Some(as_sent(v))),
            },
            None => Ok(None),
        }
    }

    /// The `i`th argument as a document.
    pub(crate) fn doc_arg(
        &mut self,
        args: &[Expr],
        i: usize,
        what: &str,
    ) -> Result<Document, StatementError> {
        match self.arg(args, i, what)? {
            Bson::Document(d) => Ok(d),
            other => Err(StatementError::type_error(format!(
                "{what} must be an object, got {}",
                format_value(&other)
            ))),
        }
    }

    /// The `i`th argument as a document, or an empty document when absent.
    pub(crate) fn opt_doc_arg(
        &mut self,
        args: &[Expr],
        i: usize,
        what: &str,
    ) -> Result<Document, StatementError> {
        match self.opt_arg(args, i)? {
            None | Some(Bson::Null) => Ok(Document::new()),
            Some(Bson::Document(d)) => Ok(d),
            Some(other) => Err(StatementError::type_error(format!(
                "{what} must be an object, got {}",
                format_value(&other)
            ))),
        }
    }

    /// The `i`th argument as a string.
    pub(crate) fn str_arg(
        &mut self,
        args: &[Expr],
        i: usize,
        what: &str,
    ) -> Result<String, StatementError> {
        match self.arg(args, i, what)? {
            Bson::String(s) => Ok(s),
            other => Err(StatementError::type_error(format!(
                "{what} must be a string, got {}",
                format_value(&other)
            ))),
        }
    }

    /// The `i`th argument as a whole number.
    pub(crate) fn int_arg(
        &mut self,
        args: &[Expr],
        i: usize,
        what: &str,
    ) -> Result<i64, StatementError> {
        match self.arg(args, i, what)? {
            Bson::Int32(n) => Ok(i64::from(n)),
            Bson::Int64(n) => Ok(n),
            Bson::Double(d) if d.fract() == 0.0 && d.abs() < 9.0e15 => Ok(d as i64),
            other => Err(StatementError::type_error(format!(
                "{what} must be a number, got {}",
                format_value(&other)
            ))),
        }
    }
}

/// Reads properties of a result, as `sh.status().databases` or
/// `explain().queryPlanner.winningPlan.stage` do in mongosh.
pub(crate) fn navigate(out: Output, path: &[Segment]) -> Result<Output, StatementError> {
    if path.is_empty() {
        return Ok(out);
    }
    let mut value = match out {
        Output::Value(v) => v,
        Output::Cursor(docs) => Bson::Array(docs.into_iter().map(Bson::Document).collect()),
        Output::Sections(d) => Bson::Document(d),
        Output::Message(m) => Bson::String(m),
        Output::Nothing => Bson::Undefined,
    };
    for seg in path {
        if seg.args.is_some() {
            return Err(StatementError::type_error(format!(
                "{} is not a function",
                seg.name
            )));
        }
        value = match (&value, seg.name.as_str()) {
            (Bson::Array(a), "length") => Bson::Int32(a.len() as i32),
            (Bson::String(s), "length") => Bson::Int32(s.encode_utf16().count() as i32),
            (Bson::Array(a), idx) => idx
                .parse::<usize>()
                .ok()
                .and_then(|i| a.get(i).cloned())
                .unwrap_or(Bson::Undefined),
            (Bson::Document(d), key) => d.get(key).cloned().unwrap_or(Bson::Undefined),
            (Bson::Undefined | Bson::Null, key) => {
                return Err(StatementError::type_error(format!(
                    "Cannot read properties of {} (reading '{key}')",
                    if value == Bson::Null {
                        "null"
                    } else {
                        "undefined"
                    }
                )));
            }
            _ => Bson::Undefined,
        };
    }
    Ok(Output::Value(value))
}

/// The arguments of a segment that must be a call.
pub(crate) fn call_args(seg: &Segment) -> Result<&[Expr], StatementError> {
    seg.args
        .as_deref()
        .ok_or_else(|| StatementError::type_error(format!("{} must be called", seg.name)))
}

/// `{ ok: 1 }`, the reply of commands with nothing else to say.
pub(crate) fn ok_doc() -> Document {
    let mut d = Document::new();
    d.insert("ok", 1);
    d
}

/// The session as it was before a command (see [`Session::checkpoint`]).
pub(crate) struct Checkpoint {
    cluster: Cluster,
    db: String,
    sampling: super::sampling::Sampling,
    rng: crate::support::rng::SplitMix64,
    generated: std::collections::BTreeMap<String, u64>,
    touched: Option<String>,
    touches: u64,
    object_id_counter: u32,
    uuid_state: u64,
}

/// Whether an error is the statement's work budget running out (`MaxTimeMSExpired`),
/// which a command running other statements or operations must pass on, not count.
pub(crate) fn is_budget_error(e: &StatementError) -> bool {
    e.kind == ErrorKind::Server && e.code == 50
}

/// The namespace an event names, if it names one (shard events and zone changes do not).
fn event_namespace(kind: &EventKind) -> Option<&str> {
    match kind {
        EventKind::Insert { ns, .. }
        | EventKind::Split { ns, .. }
        | EventKind::MoveChunkStart { ns, .. }
        | EventKind::MoveChunkCommit { ns, .. }
        | EventKind::Jumbo { ns, .. }
        | EventKind::ShardCollection { ns, .. }
        | EventKind::Merge { ns, .. }
        | EventKind::ClearJumbo { ns, .. }
        | EventKind::Refine { ns, .. }
        | EventKind::Reshard { ns, .. }
        | EventKind::DocumentMoved { ns, .. }
        | EventKind::Delete { ns, .. } => Some(ns),
        EventKind::AddShard { .. }
        | EventKind::RemoveShardStart { .. }
        | EventKind::RemoveShard { .. }
        | EventKind::Zone { .. } => None,
    }
}

/// A value as mongosh's driver serializes it for the server: `undefined` inside a document
/// or an array becomes `null` (js-bson's `serializeInto` with `ignoreUndefined: false`, the
/// driver's default), so `insertOne({a: undefined})` stores `a: null` and
/// `find({a: undefined})` matches what `find({a: null})` does. The value itself is left as
/// it is: an `undefined` argument is an argument left out.
fn as_sent(mut value: Bson) -> Bson {
    // A loop over the nesting rather than recursion: a value may nest deep.
    let mut pending: Vec<&mut Bson> = match &mut value {
        Bson::Document(d) => d.iter_mut().map(|(_, v)| v).collect(),
        Bson::Array(a) => a.iter_mut().collect(),
        _ => return value,
    };
    while let Some(v) = pending.pop() {
        match v {
            Bson::Undefined => *v = Bson::Null,
            Bson::Document(d) => pending.extend(d.iter_mut().map(|(_, v)| v)),
            Bson::Array(a) => pending.extend(a.iter_mut()),
            _ => {}
        }
    }
    value
}
