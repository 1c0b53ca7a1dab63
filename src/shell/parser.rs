//! Turns tokens into statements and expressions.
//!
//! A script is a list of statements separated by `;` or line breaks. A line break does
//! not end a statement while a bracket is open, while an operand is still expected
//! (the line ends with `.`, `,`, `:` or an operator), or when the next line starts
//! with `.` or `?.` (a chained call such as `.limit(2)`). A next line that starts with
//! `(`, `[` or another operator begins a new statement, as it does when the same lines
//! are typed into mongosh one at a time.

use super::lexer::{tokenize, tokenize_at, LexError, Punct, Span, Token, TokenKind};
use std::rc::Rc;
use thiserror::Error;

/// A parsed script.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The statements in source order.
    pub statements: Vec<Stmt>,
}

/// One statement and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// What the statement is.
    pub kind: StmtKind,
    /// Where it is.
    pub span: Span,
}

/// The kinds of statement the shell accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `use <db>`: switch the current database.
    Use {
        /// The database name, as written up to the end of the line.
        db: String,
    },
    /// `show <what> [arg]`, such as `show dbs` or `show collections`.
    Show {
        /// What to show.
        what: String,
        /// An optional argument after it.
        arg: Option<String>,
    },
    /// `var`/`let`/`const` declaration.
    Declare {
        /// Which keyword declared it.
        kind: DeclKind,
        /// The variable's name.
        name: String,
        /// The initial value, if any.
        init: Option<Expr>,
    },
    /// `name = value`.
    Assign {
        /// The variable's name.
        name: String,
        /// The value assigned.
        value: Expr,
    },
    /// Any other expression, evaluated and printed.
    Expr(Expr),
    /// A JavaScript statement: a loop, a branch, a function declaration, ...
    Js(Box<JsStmt>),
}

/// The keyword of a declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    /// `var`
    Var,
    /// `let`
    Let,
    /// `const`
    Const,
}

/// An expression and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What the expression is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A numeric literal: its JavaScript value and how it was written.
    Number {
        /// The value as a JavaScript number.
        value: f64,
        /// The source text.
        raw: String,
    },
    /// A string literal.
    String(String),
    /// A regular expression literal.
    Regex {
        /// The pattern as written between the slashes.
        pattern: String,
        /// The flags.
        flags: String,
    },
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// `undefined`.
    Undefined,
    /// A name such as `db`, `sh`, `MinKey` or a variable.
    Ident(String),
    /// `[a, b, ...]`.
    Array(Vec<Expr>),
    /// `{ key: value, ... }`, keys in source order.
    Object(Vec<(String, Expr)>),
    /// `object.property` (or `object?.property`).
    Member {
        /// The object.
        object: Box<Expr>,
        /// The property name.
        property: String,
        /// Where the property name is.
        property_span: Span,
    },
    /// `object[index]`.
    Index {
        /// The object.
        object: Box<Expr>,
        /// The index expression.
        index: Box<Expr>,
    },
    /// `callee(args...)`.
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `new callee(args...)`; `new Date` without parentheses has no arguments.
    New {
        /// The constructor.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// A prefix operator.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// Its operand.
        operand: Box<Expr>,
    },
    /// An infix arithmetic operator.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// A JavaScript operator beyond the value language (comparison, assignment, ...).
    Js(Box<JsExpr>),
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
}

/// Infix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+` (addition or string concatenation)
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

/// An expression of the JavaScript subset that is not a plain value expression.
#[derive(Debug, Clone, PartialEq)]
pub enum JsExpr {
    /// `a < b`, `a === b`, ...
    Compare {
        /// The operator.
        op: CompareOp,
        /// Left operand.
        left: Expr,
        /// Right operand.
        right: Expr,
    },
    /// `a && b`, `a || b`, `a ?? b`: the right side runs only when needed.
    Logical {
        /// The operator.
        op: LogicalOp,
        /// Left operand.
        left: Expr,
        /// Right operand.
        right: Expr,
    },
    /// `test ? then : otherwise`.
    Conditional {
        /// The condition.
        test: Expr,
        /// The value when it holds.
        then: Expr,
        /// The value when it does not.
        otherwise: Expr,
    },
    /// `target = value`, or `target op= value` when `op` is set.
    Assign {
        /// A variable, `object.property` or `object[index]`.
        target: Expr,
        /// The operator of a compound assignment (`+=` is `Add`).
        op: Option<BinaryOp>,
        /// The value.
        value: Expr,
    },
    /// `++x`, `x++`, `--x`, `x--`.
    Update {
        /// A variable, `object.property` or `object[index]`.
        target: Expr,
        /// `++` rather than `--`.
        increment: bool,
        /// Written before the target: the expression's value is the new one.
        prefix: bool,
    },
    /// `` `text ${expr} text` ``: `texts` has one more piece than `exprs`.
    Template {
        /// The text pieces.
        texts: Vec<String>,
        /// The substitutions.
        exprs: Vec<Expr>,
    },
    /// A function expression or an arrow function.
    Function(Rc<FunctionDef>),
    /// `typeof operand`.
    Typeof(Expr),
    /// `a, b`: each in turn, the last one's value (a for loop's update).
    Sequence(Vec<Expr>),
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `===`
    StrictEq,
    /// `!==`
    StrictNe,
}

/// Short-circuiting operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalOp {
    /// `&&`
    And,
    /// `||`
    Or,
    /// `??`
    Nullish,
}

/// A function's parameters and body, shared by every closure made from it.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// Its name, when declared or written with one.
    pub name: Option<String>,
    /// The parameter names.
    pub params: Vec<String>,
    /// What it runs.
    pub body: FunctionBody,
}

/// A function's body.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionBody {
    /// `{ statements }`.
    Block(Vec<Stmt>),
    /// An arrow function's expression body: `x => x * 2`.
    Expr(Expr),
}

/// A statement of the JavaScript subset beyond the shell's own.
#[derive(Debug, Clone, PartialEq)]
pub enum JsStmt {
    /// `{ statements }` as a body.
    Block(Vec<Stmt>),
    /// `if (test) then [else otherwise]`.
    If {
        /// The condition.
        test: Expr,
        /// What runs when it holds.
        then: Stmt,
        /// What runs when it does not.
        otherwise: Option<Stmt>,
    },
    /// `for (init; test; update) body`.
    For {
        /// A declaration or expression run once, first.
        init: Option<Stmt>,
        /// Checked before each iteration; none means forever.
        test: Option<Expr>,
        /// Run after each iteration.
        update: Option<Expr>,
        /// The loop body.
        body: Stmt,
    },
    /// `for ([var|let|const] name of iterable) body`, or `in` for the keys.
    ForOf {
        /// The declaration keyword, if any.
        decl: Option<DeclKind>,
        /// The loop variable.
        name: String,
        /// What is iterated (an array or a string; any object with `in`).
        iterable: Expr,
        /// `for ... in`: the keys (a document's names, an array's indexes) rather than
        /// the values.
        keys: bool,
        /// The loop body.
        body: Stmt,
    },
    /// `while (test) body`.
    While {
        /// Checked before each iteration.
        test: Expr,
        /// The loop body.
        body: Stmt,
    },
    /// `do body while (test)`.
    DoWhile {
        /// The loop body, run at least once.
        body: Stmt,
        /// Checked after each iteration.
        test: Expr,
    },
    /// `function name(params) { body }`.
    Function(Rc<FunctionDef>),
    /// `var a = 1, b`: several declarations in one statement, in the current scope.
    Declarations(Vec<Stmt>),
    /// `return [value]`.
    Return(Option<Expr>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
}

/// Why the input is not a valid script.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ParseError {
    /// The input could not be split into tokens.
    #[error(transparent)]
    Lex(#[from] LexError),
    /// A token that cannot appear here.
    #[error("{span}: SyntaxError: Unexpected token '{found}'{}", expected_note(.expected))]
    Unexpected {
        /// The token text (or `end of input`).
        found: String,
        /// What would have been accepted.
        expected: String,
        /// Where the token is.
        span: Span,
    },
    /// Input ended while a statement was incomplete.
    #[error("{span}: SyntaxError: Unexpected end of input{}", expected_note(.expected))]
    UnexpectedEnd {
        /// What would have been accepted.
        expected: String,
        /// Where the input ended.
        span: Span,
    },
    /// A JavaScript operator or construct outside the shell language.
    #[error("{span}: SyntaxError: '{what}' is not supported by this shell")]
    Unsupported {
        /// The construct.
        what: String,
        /// Where it is.
        span: Span,
    },
    /// `use` without a database name.
    #[error("{span}: MongoshInvalidInputError: Missing required argument for 'use'")]
    MissingUseArgument {
        /// Where the statement is.
        span: Span,
    },
    /// Nesting deeper than the parser accepts.
    #[error("{span}: SyntaxError: expression nested too deeply")]
    TooDeep {
        /// Where the nesting went past the limit.
        span: Span,
    },
    /// An array or object literal with more items than a shell value may hold
    /// ([`crate::values::limits::MAX_VALUES`]), refused before it is built.
    #[error(
        "{span}: SyntaxError: literal too long: more than {} items in one array or object",
        crate::values::limits::MAX_VALUES
    )]
    TooManyItems {
        /// Where the literal went past the limit.
        span: Span,
    },
    /// A chain of operators, accesses or calls taller than the parser accepts (1,000
    /// levels).
    #[error(
        "{span}: SyntaxError: expression too long: more than {MAX_HEIGHT} operators, property accesses and calls in a row"
    )]
    TooLong {
        /// Where the chain went past the limit.
        span: Span,
    },
}

fn expected_note(expected: &str) -> String {
    if expected.is_empty() {
        String::new()
    } else {
        format!(", expected {expected}")
    }
}

impl ParseError {
    /// Where the error is.
    pub fn span(&self) -> Span {
        match self {
            ParseError::Lex(e) => e.span(),
            ParseError::Unexpected { span, .. }
            | ParseError::UnexpectedEnd { span, .. }
            | ParseError::Unsupported { span, .. }
            | ParseError::MissingUseArgument { span }
            | ParseError::TooDeep { span }
            | ParseError::TooLong { span }
            | ParseError::TooManyItems { span } => *span,
        }
    }
}

/// The deepest expression nesting accepted, so that hostile input cannot overflow the
/// stack: unoptimised builds spend about 12 KiB of stack per level, and wasm32 gives a
/// program 1 MiB.
pub const MAX_DEPTH: u32 = 64;

/// The tallest expression tree accepted: operators, property accesses, indexes and
/// calls in a row (`'a' + 'a' + …`, `x.a.a…`, `c.limit(1).limit(1)…`) each add a level,
/// and so does each bracket. The parser reads such chains in a loop, but what it builds
/// is walked recursively (evaluated, flattened, dropped), so its height, not only its
/// nesting, is bounded: at 1,000 levels the walks fit a 1 MiB stack (wasm32's) in a
/// debug build, and no hand-written command comes near it.
pub const MAX_HEIGHT: u32 = 1_000;

/// Parses a whole script.
pub fn parse_script(src: &str) -> Result<Script, ParseError> {
    let src = &*lone_cr_as_lf(src);
    let tokens = tokenize(src)?;
    let mut p = Parser::new(src, tokens, 0);
    let mut statements = Vec::new();
    loop {
        p.skip_separators();
        if p.at_eof() {
            break;
        }
        statements.push(p.statement()?);
    }
    Ok(Script { statements })
}

/// Parses a script, keeping every statement that parses and one error per bad one.
///
/// After an error the parser skips to the next line break at bracket depth zero or the
/// next `;`, so one mistyped line does not hide the rest of a script.
pub fn parse_script_recovering(src: &str) -> (Script, Vec<ParseError>) {
    let mut statements = Vec::new();
    let mut errors = Vec::new();
    match parse_items(src, 1, 1) {
        Ok(parsed) => {
            for item in parsed.items {
                match item.result {
                    Ok(s) => statements.push(s),
                    Err(e) => errors.push(e),
                }
            }
        }
        Err(e) => errors.push(e.into()),
    }
    (Script { statements }, errors)
}

/// A script read the way [`parse_script_recovering`] reads it, each statement (or the
/// error in its place) with the token it starts at, and the tokens themselves: what the
/// CLI needs to tell where one statement ends and the next begins in a script it reads
/// in pieces (`shell/script_stream.rs`).
pub(crate) struct Parsed {
    /// The script's tokens, ending with [`TokenKind::Eof`].
    pub tokens: Vec<Token>,
    /// The statements and errors in source order.
    pub items: Vec<Item>,
}

/// One statement of a [`Parsed`] script, or the error that stands in its place.
pub(crate) struct Item {
    /// The index of the statement's first token.
    pub first: usize,
    /// The statement, or why it does not parse.
    pub result: Result<Stmt, ParseError>,
}

/// Parses `src`, a script or a piece of one that starts at `line` and `column` (lines
/// and columns in what it returns are the whole script's, byte offsets the piece's),
/// recovering after each bad statement as [`parse_script_recovering`] does. A text the
/// lexer refuses yields its error alone.
pub(crate) fn parse_items(src: &str, line: u32, column: u32) -> Result<Parsed, LexError> {
    let src = &*lone_cr_as_lf(src);
    let tokens = tokenize_at(src, line, column)?;
    let mut p = Parser::new(src, tokens, 0);
    let mut items = Vec::new();
    loop {
        p.skip_separators();
        if p.at_eof() {
            break;
        }
        let before = p.pos;
        let result = p.statement();
        if result.is_err() {
            p.nesting = 0;
            p.depth = 0;
            p.recover(before);
        }
        items.push(Item {
            first: before,
            result,
        });
    }
    Ok(Parsed {
        tokens: p.tokens,
        items,
    })
}

/// Parses exactly one expression (surrounding whitespace and comments allowed).
pub fn parse_expression(src: &str) -> Result<Expr, ParseError> {
    parse_nested_expression(src, 0).map(|(e, _)| e)
}

/// Parses exactly one expression found inside another (a template literal's
/// substitution) `depth` levels deep, so that nesting them stays bounded by
/// [`MAX_DEPTH`]; returns the expression and its height.
pub(super) fn parse_nested_expression(src: &str, depth: u32) -> Result<(Expr, u32), ParseError> {
    let src = &*lone_cr_as_lf(src);
    let tokens = tokenize(src)?;
    let mut p = Parser::new(src, tokens, 1);
    p.depth = depth;
    let e = p.expression()?;
    let t = p.peek().clone();
    if t.kind != TokenKind::Eof {
        return Err(p.unexpected(&t, "end of input"));
    }
    Ok((e, p.height.max(p.peak)))
}

/// The script with each carriage return that no line feed follows read as a line feed:
/// JavaScript counts a lone CR as a line terminator (a script saved with old Mac line
/// endings), and the lexer knows only LF. Both are one byte, so every span into the
/// result is a span into the script as given.
fn lone_cr_as_lf(src: &str) -> std::borrow::Cow<'_, str> {
    let bytes = src.as_bytes();
    if !bytes.contains(&b'\r') {
        return std::borrow::Cow::Borrowed(src);
    }
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return std::borrow::Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(if c == '\r' && chars.peek() != Some(&'\n') {
            '\n'
        } else {
            c
        });
    }
    std::borrow::Cow::Owned(out)
}

/// `object.property`, spanning from the object to the property name.
fn member(object: Expr, property: String, property_span: Span) -> Expr {
    let span = object.span.to(property_span);
    Expr {
        kind: ExprKind::Member {
            object: Box::new(object),
            property,
            property_span,
        },
        span,
    }
}

/// One step of a flattened call chain: a name and, when it was called, the arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The identifier, property name, or string index (`db["weird-name"]`).
    pub name: String,
    /// `Some` when the step was called: `find(args)`.
    pub args: Option<Vec<Expr>>,
    /// Where the name is.
    pub span: Span,
}

/// Flattens a member/call chain such as `db.coll.find({}).sort({x: 1})` into
/// `[db, coll, find({}), sort({x: 1})]`.
///
/// Returns `None` when the expression is not such a chain (a literal, `new`, a call
/// of a call, a computed non-string index).
pub fn flatten(expr: &Expr) -> Option<Vec<Segment>> {
    // The chain is walked from its end to its root, then read root first: a loop, not
    // recursion, so a long chain costs no stack.
    let mut spine = Vec::new();
    let mut node = expr;
    loop {
        match &node.kind {
            ExprKind::Member { object, .. } | ExprKind::Index { object, .. } => {
                spine.push(node);
                node = object;
            }
            ExprKind::Call { callee, .. } => {
                spine.push(node);
                node = callee;
            }
            ExprKind::Ident(_) => break,
            _ => return None,
        }
    }
    let mut out = Vec::with_capacity(spine.len() + 1);
    out.push(Segment {
        name: match &node.kind {
            ExprKind::Ident(name) => name.clone(),
            _ => return None,
        },
        args: None,
        span: node.span,
    });
    for node in spine.iter().rev() {
        segment_of(node, &mut out)?;
    }
    Some(out)
}

/// Adds one link of a chain to its flattened form.
fn segment_of(expr: &Expr, out: &mut Vec<Segment>) -> Option<()> {
    match &expr.kind {
        ExprKind::Member {
            property,
            property_span,
            ..
        } => out.push(Segment {
            name: property.clone(),
            args: None,
            span: *property_span,
        }),
        ExprKind::Index { index, .. } => {
            // A string index names a property; a whole-number index (`databases[0]`) an
            // array element.
            let name = match &index.kind {
                ExprKind::String(name) => name.clone(),
                ExprKind::Number { value, .. } if *value >= 0.0 && value.fract() == 0.0 => {
                    format!("{value}")
                }
                _ => return None,
            };
            out.push(Segment {
                name,
                args: None,
                span: index.span,
            });
        }
        ExprKind::Call { args, .. } => {
            let last = out.last_mut()?;
            if last.args.is_some() {
                return None;
            }
            last.args = Some(args.clone());
        }
        _ => return None,
    }
    Some(())
}

pub(super) struct Parser<'a> {
    src: &'a str,
    pub(super) tokens: Vec<Token>,
    pub(super) pos: usize,
    /// How many brackets are open; inside any bracket line breaks mean nothing.
    pub(super) nesting: u32,
    /// Recursion depth, bounded by [`MAX_DEPTH`].
    pub(super) depth: u32,
    /// An already parsed operand that the postfix loop should start from.
    parked: Option<Expr>,
    /// The height of the expression the last parsing function returned (a leaf is 1),
    /// bounded by [`MAX_HEIGHT`].
    pub(super) height: u32,
    /// The tallest node built since it was last reset: a function's body is measured
    /// by it, so that a function's height counts what it holds.
    pub(super) peak: u32,
}

fn describe(t: &Token) -> String {
    match &t.kind {
        TokenKind::Ident(s) => s.clone(),
        TokenKind::Number { raw, .. } => raw.clone(),
        TokenKind::Str(s) => format!("{s:?}"),
        TokenKind::Template { .. } => "template literal".into(),
        TokenKind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
        TokenKind::Punct(p) => p.as_str().to_string(),
        TokenKind::Newline => "line break".into(),
        TokenKind::Eof => "end of input".into(),
    }
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, tokens: Vec<Token>, nesting: u32) -> Self {
        Parser {
            src,
            tokens,
            pos: 0,
            nesting,
            depth: 0,
            parked: None,
            height: 0,
            peak: 0,
        }
    }

    pub(super) fn raw_peek(&self) -> &Token {
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[self.pos.min(last)]
    }

    /// The next token; line breaks are skipped while a bracket is open.
    pub(super) fn peek(&mut self) -> &Token {
        if self.nesting > 0 {
            self.skip_newlines();
        }
        self.raw_peek()
    }

    pub(super) fn skip_newlines(&mut self) {
        while self.raw_peek().kind == TokenKind::Newline {
            self.pos += 1;
        }
    }

    pub(super) fn skip_separators(&mut self) {
        while matches!(
            self.raw_peek().kind,
            TokenKind::Newline | TokenKind::Punct(Punct::Semicolon)
        ) {
            self.pos += 1;
        }
    }

    fn at_eof(&self) -> bool {
        self.raw_peek().kind == TokenKind::Eof
    }

    pub(super) fn advance(&mut self) -> Token {
        let t = self.raw_peek().clone();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    pub(super) fn is_punct(&mut self, p: Punct) -> bool {
        self.peek().kind == TokenKind::Punct(p)
    }

    pub(super) fn eat_punct(&mut self, p: Punct) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, p: Punct) -> Result<Span, ParseError> {
        let t = self.peek().clone();
        if t.kind == TokenKind::Punct(p) {
            self.pos += 1;
            Ok(t.span)
        } else {
            Err(self.unexpected(&t, &format!("'{}'", p.as_str())))
        }
    }

    pub(super) fn unexpected(&self, t: &Token, expected: &str) -> ParseError {
        match t.kind {
            TokenKind::Eof => ParseError::UnexpectedEnd {
                expected: expected.to_string(),
                span: t.span,
            },
            TokenKind::Punct(Punct::Other(op)) => ParseError::Unsupported {
                what: op.to_string(),
                span: t.span,
            },
            _ => ParseError::Unexpected {
                found: describe(t),
                expected: expected.to_string(),
                span: t.span,
            },
        }
    }

    fn recover(&mut self, before: usize) {
        if self.pos == before {
            self.pos += 1;
        }
        let mut nesting: i64 = 0;
        loop {
            match self.raw_peek().kind {
                TokenKind::Eof => break,
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => nesting += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                    nesting = (nesting - 1).max(0)
                }
                TokenKind::Punct(Punct::Semicolon) => break,
                TokenKind::Newline if nesting == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Ends a statement: `;`, a line break, or the end of input must follow.
    pub(super) fn end_statement(&mut self) -> Result<(), ParseError> {
        let t = self.raw_peek().clone();
        match t.kind {
            TokenKind::Eof
            | TokenKind::Newline
            | TokenKind::Punct(Punct::Semicolon | Punct::RBrace) => Ok(()),
            _ => Err(self.unexpected(&t, "';' or a line break")),
        }
    }

    /// The rest of the current line (up to `;`, a comment or a line break), trimmed.
    /// The rest of the line from `start` (up to a newline, `;` or `//`), trimmed; the
    /// token position after it; and where the trimmed text ends in the source.
    fn rest_of_line_from(&self, start: u32) -> (String, usize, u32) {
        let from = usize::try_from(start)
            .unwrap_or(usize::MAX)
            .min(self.src.len());
        let text = &self.src[from..];
        let mut end = text.len();
        for (i, c) in text.char_indices() {
            if c == '\n' || c == ';' || text[i..].starts_with("//") {
                end = i;
                break;
            }
        }
        let line = text[..end].trim().to_string();
        let line_end = u32::try_from(from + text[..end].trim_end().len()).unwrap_or(u32::MAX);
        // Skip the tokens that lie inside the consumed text.
        let stop = from + end;
        let mut pos = self.pos;
        while let Some(t) = self.tokens.get(pos) {
            if t.kind == TokenKind::Eof
                || usize::try_from(t.span.start).unwrap_or(usize::MAX) >= stop
            {
                break;
            }
            pos += 1;
        }
        (line, pos, line_end)
    }

    pub(super) fn statement(&mut self) -> Result<Stmt, ParseError> {
        if let Some(s) = self.js_statement()? {
            return Ok(s);
        }
        let t = self.raw_peek().clone();
        if let TokenKind::Ident(word) = &t.kind {
            let next = self.tokens.get(self.pos + 1).map(|n| n.kind.clone());
            let starts_command = matches!(
                next,
                Some(TokenKind::Ident(_) | TokenKind::Number { .. } | TokenKind::Str(_))
            ) || (matches!(next, Some(TokenKind::Punct(Punct::Minus))));
            match word.as_str() {
                "use" | "show" if starts_command => {
                    let (line, pos, line_end) = self.rest_of_line_from(t.span.end);
                    self.pos = pos;
                    // The statement's text runs to the end of its argument, whatever
                    // space came before it.
                    let span = Span {
                        end: line_end.max(t.span.end),
                        ..t.span
                    };
                    if word == "use" {
                        return Ok(Stmt {
                            kind: StmtKind::Use { db: line },
                            span,
                        });
                    }
                    let mut parts = line.splitn(2, char::is_whitespace);
                    let what = parts.next().unwrap_or_default().to_string();
                    let arg = parts
                        .next()
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty());
                    return Ok(Stmt {
                        kind: StmtKind::Show { what, arg },
                        span,
                    });
                }
                "use"
                    if matches!(
                        next,
                        Some(TokenKind::Newline | TokenKind::Eof)
                            | Some(TokenKind::Punct(Punct::Semicolon))
                    ) =>
                {
                    return Err(ParseError::MissingUseArgument { span: t.span });
                }
                "var" | "let" | "const" => {
                    let kind = match word.as_str() {
                        "var" => DeclKind::Var,
                        "let" => DeclKind::Let,
                        _ => DeclKind::Const,
                    };
                    self.advance();
                    let name_tok = self.advance();
                    let TokenKind::Ident(name) = name_tok.kind.clone() else {
                        return Err(self.unexpected(&name_tok, "a variable name"));
                    };
                    let init = if self.eat_punct(Punct::Assign) {
                        Some(self.expression()?)
                    } else {
                        None
                    };
                    let end = init.as_ref().map_or(name_tok.span, |e| e.span);
                    self.end_statement()?;
                    return Ok(Stmt {
                        kind: StmtKind::Declare { kind, name, init },
                        span: t.span.to(end),
                    });
                }
                _ => {}
            }
            if matches!(next, Some(TokenKind::Punct(Punct::Assign))) {
                self.advance();
                self.advance();
                let value = self.expression()?;
                self.end_statement()?;
                let span = t.span.to(value.span);
                return Ok(Stmt {
                    kind: StmtKind::Assign {
                        name: word.clone(),
                        value,
                    },
                    span,
                });
            }
        }
        let e = self.expression()?;
        self.end_statement()?;
        Ok(Stmt {
            span: e.span,
            kind: StmtKind::Expr(e),
        })
    }

    pub(super) fn enter(&mut self, span: Span) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::TooDeep { span });
        }
        Ok(())
    }

    /// Checks a height for a node about to be built at `span`.
    pub(super) fn grow(&mut self, height: u32, span: Span) -> Result<u32, ParseError> {
        if height > MAX_HEIGHT {
            return Err(ParseError::TooLong { span });
        }
        self.peak = self.peak.max(height);
        Ok(height)
    }

    /// Parses an expression: assignment level, the lowest precedence supported.
    pub fn expression(&mut self) -> Result<Expr, ParseError> {
        let span = self.peek().span;
        self.enter(span)?;
        let r = self
            .assignment()
            .and_then(|e| self.reject_operator().map(|()| e));
        self.depth -= 1;
        r
    }

    fn binary_op(&mut self, ops: &[(Punct, BinaryOp)]) -> Option<BinaryOp> {
        if let TokenKind::Punct(p) = self.peek().kind {
            for (punct, op) in ops {
                if *punct == p {
                    self.pos += 1;
                    return Some(*op);
                }
            }
        }
        None
    }

    pub(super) fn additive(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.multiplicative()?;
        let mut height = self.height;
        while let Some(op) =
            self.binary_op(&[(Punct::Plus, BinaryOp::Add), (Punct::Minus, BinaryOp::Sub)])
        {
            let right = self.multiplicative()?;
            let span = left.span.to(right.span);
            height = self.grow(height.max(self.height) + 1, right.span)?;
            left = Expr {
                kind: ExprKind::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            };
        }
        self.height = height;
        Ok(left)
    }

    /// Gives a clear error for JavaScript operators the shell language leaves out.
    fn reject_operator(&mut self) -> Result<(), ParseError> {
        let t = self.peek();
        if let TokenKind::Punct(Punct::Other(op)) = t.kind {
            return Err(ParseError::Unsupported {
                what: op.to_string(),
                span: t.span,
            });
        }
        Ok(())
    }

    fn multiplicative(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        let mut height = self.height;
        while let Some(op) = self.binary_op(&[
            (Punct::Star, BinaryOp::Mul),
            (Punct::Slash, BinaryOp::Div),
            (Punct::Percent, BinaryOp::Rem),
        ]) {
            let right = self.unary()?;
            let span = left.span.to(right.span);
            height = self.grow(height.max(self.height) + 1, right.span)?;
            left = Expr {
                kind: ExprKind::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            };
        }
        self.height = height;
        Ok(left)
    }

    pub(super) fn unary(&mut self) -> Result<Expr, ParseError> {
        self.skip_newlines();
        let t = self.raw_peek();
        let t_span = t.span;
        let op = match t.kind {
            TokenKind::Punct(Punct::Minus) => Some(UnaryOp::Neg),
            TokenKind::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            TokenKind::Punct(Punct::Bang) => Some(UnaryOp::Not),
            _ => None,
        };
        if let Some(e) = self.prefix_update()? {
            return Ok(e);
        }
        if let Some(op) = op {
            self.pos += 1;
            self.enter(t_span)?;
            let operand = self.unary();
            self.depth -= 1;
            let operand = operand?;
            let span = t_span.to(operand.span);
            self.height = self.grow(self.height + 1, t_span)?;
            return Ok(Expr {
                kind: ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                span,
            });
        }
        self.postfix_update()
    }

    pub(super) fn postfix(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.primary()?;
        let mut height = self.height;
        loop {
            // A chained call may continue on the next line when that line starts with `.`.
            if self.nesting == 0 && self.raw_peek().kind == TokenKind::Newline {
                let mut look = self.pos;
                while self.tokens.get(look).map(|t| &t.kind) == Some(&TokenKind::Newline) {
                    look += 1;
                }
                if matches!(
                    self.tokens.get(look).map(|t| &t.kind),
                    Some(TokenKind::Punct(Punct::Dot | Punct::OptionalDot))
                ) {
                    self.pos = look;
                } else {
                    break;
                }
            }
            if !matches!(self.peek().kind, TokenKind::Punct(_)) {
                break;
            }
            let t = self.peek().clone();
            match t.kind {
                TokenKind::Punct(Punct::Dot | Punct::OptionalDot) => {
                    self.pos += 1;
                    self.skip_newlines();
                    let name_tok = self.advance();
                    let TokenKind::Ident(property) = name_tok.kind.clone() else {
                        return Err(self.unexpected(&name_tok, "a property name"));
                    };
                    height = self.grow(height + 1, name_tok.span)?;
                    e = member(e, property, name_tok.span);
                }
                TokenKind::Punct(Punct::LBracket) => {
                    self.pos += 1;
                    self.nesting += 1;
                    let index = self.expression();
                    let close = index.and_then(|i| Ok((i, self.expect_punct(Punct::RBracket)?)));
                    self.nesting -= 1;
                    let (index, close) = close?;
                    let span = e.span.to(close);
                    height = self.grow(height.max(self.height) + 1, close)?;
                    e = Expr {
                        kind: ExprKind::Index {
                            object: Box::new(e),
                            index: Box::new(index),
                        },
                        span,
                    };
                }
                TokenKind::Punct(Punct::LParen) => {
                    let (args, close) = self.arguments()?;
                    let span = e.span.to(close);
                    height = self.grow(height.max(self.height) + 1, close)?;
                    e = Expr {
                        kind: ExprKind::Call {
                            callee: Box::new(e),
                            args,
                        },
                        span,
                    };
                }
                _ => break,
            }
        }
        self.height = height;
        Ok(e)
    }

    /// Parses `( a, b, )` and returns the arguments and the closing paren's span.
    fn arguments(&mut self) -> Result<(Vec<Expr>, Span), ParseError> {
        self.expect_punct(Punct::LParen)?;
        self.nesting += 1;
        let r = self.list(Punct::RParen);
        self.nesting -= 1;
        r
    }

    /// Parses items up to `close`; leaves the height of the tallest item plus one.
    fn list(&mut self, close: Punct) -> Result<(Vec<Expr>, Span), ParseError> {
        let mut items = Vec::new();
        let mut tallest = 0;
        loop {
            let t = self.peek().clone();
            if t.kind == TokenKind::Punct(close) {
                self.pos += 1;
                self.height = tallest + 1;
                return Ok((items, t.span));
            }
            if close == Punct::RBracket && t.kind == TokenKind::Punct(Punct::Comma) {
                return Err(ParseError::Unsupported {
                    what: "array holes".into(),
                    span: t.span,
                });
            }
            if items.len() as u64 >= crate::values::limits::MAX_VALUES {
                return Err(ParseError::TooManyItems { span: t.span });
            }
            items.push(self.expression()?);
            tallest = tallest.max(self.height);
            let t = self.peek().clone();
            match t.kind {
                TokenKind::Punct(Punct::Comma) => {
                    self.pos += 1;
                }
                TokenKind::Punct(p) if p == close => {}
                _ => {
                    return Err(self.unexpected(&t, &format!("',' or '{}'", close.as_str())));
                }
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        if let Some(e) = self.parked.take() {
            return Ok(e);
        }
        self.skip_newlines();
        let t = self.advance();
        let span = t.span;
        let kind = match t.kind {
            TokenKind::Number { value, raw } => ExprKind::Number { value, raw },
            TokenKind::Str(s) => ExprKind::String(s),
            TokenKind::Template { texts, exprs } => return self.template(texts, exprs, span),
            TokenKind::Regex { pattern, flags } => ExprKind::Regex { pattern, flags },
            TokenKind::Ident(name) => match name.as_str() {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                "null" => ExprKind::Null,
                "undefined" => ExprKind::Undefined,
                "new" => return self.new_expr(span),
                "function" => return self.function_expr(span),
                "typeof" => return self.typeof_expr(span),
                "async" | "await" | "class" | "if" | "for" | "while" | "do" | "return"
                | "delete" | "void" | "throw" | "try" | "switch" => {
                    return Err(ParseError::Unsupported { what: name, span })
                }
                _ => ExprKind::Ident(name),
            },
            TokenKind::Punct(Punct::LParen) => {
                self.nesting += 1;
                let inner = self.expression();
                let close = inner.and_then(|i| Ok((i, self.expect_punct(Punct::RParen)?)));
                self.nesting -= 1;
                let (mut inner, close) = close?;
                inner.span = span.to(close);
                return Ok(inner);
            }
            TokenKind::Punct(Punct::LBracket) => {
                self.nesting += 1;
                let r = self.list(Punct::RBracket);
                self.nesting -= 1;
                let (items, close) = r?;
                return Ok(Expr {
                    kind: ExprKind::Array(items),
                    span: span.to(close),
                });
            }
            TokenKind::Punct(Punct::LBrace) => {
                self.nesting += 1;
                let r = self.object_body();
                self.nesting -= 1;
                let (fields, close) = r?;
                return Ok(Expr {
                    kind: ExprKind::Object(fields),
                    span: span.to(close),
                });
            }
            _ => return Err(self.unexpected(&t, "an expression")),
        };
        self.height = 1;
        Ok(Expr { kind, span })
    }

    fn new_expr(&mut self, new_span: Span) -> Result<Expr, ParseError> {
        self.skip_newlines();
        let t = self.advance();
        let TokenKind::Ident(name) = t.kind.clone() else {
            return Err(self.unexpected(&t, "a constructor name"));
        };
        let mut callee = Expr {
            kind: ExprKind::Ident(name),
            span: t.span,
        };
        let mut height = 1;
        while self.is_punct(Punct::Dot) {
            self.pos += 1;
            let p = self.advance();
            let TokenKind::Ident(property) = p.kind.clone() else {
                return Err(self.unexpected(&p, "a property name"));
            };
            height = self.grow(height + 1, p.span)?;
            callee = member(callee, property, p.span);
        }
        let (args, end) = if self.is_punct(Punct::LParen) {
            let r = self.arguments()?;
            height = height.max(self.height);
            r
        } else {
            (Vec::new(), callee.span)
        };
        self.height = self.grow(height + 1, end)?;
        let e = Expr {
            kind: ExprKind::New {
                callee: Box::new(callee),
                args,
            },
            span: new_span.to(end),
        };
        // `new Date().getTime()` style chains continue after the construction.
        self.postfix_from(e)
    }

    pub(super) fn postfix_from(&mut self, e: Expr) -> Result<Expr, ParseError> {
        // Re-use the postfix loop by parking `e` as a pseudo primary.
        let saved = self.parked.replace(e);
        let r = self.postfix();
        self.parked = saved;
        r
    }

    /// Parses an object's fields; leaves the height of the tallest value plus one.
    fn object_body(&mut self) -> Result<(Vec<(String, Expr)>, Span), ParseError> {
        let mut fields = Vec::new();
        let mut tallest = 0;
        loop {
            let t = self.advance_skipping();
            let key = match &t.kind {
                TokenKind::Punct(Punct::RBrace) => {
                    self.height = tallest + 1;
                    return Ok((fields, t.span));
                }
                TokenKind::Ident(s) | TokenKind::Str(s) => s.clone(),
                TokenKind::Number { value, .. } => crate::values::js::js_number_to_string(*value),
                TokenKind::Punct(Punct::LBracket) => {
                    return Err(ParseError::Unsupported {
                        what: "computed property names".into(),
                        span: t.span,
                    })
                }
                _ => return Err(self.unexpected(&t, "a property name or '}'")),
            };
            if fields.len() as u64 >= crate::values::limits::MAX_VALUES {
                return Err(ParseError::TooManyItems { span: t.span });
            }
            let colon = self.peek().clone();
            let shorthand = matches!(colon.kind, TokenKind::Punct(Punct::Comma | Punct::RBrace));
            if colon.kind != TokenKind::Punct(Punct::Colon) {
                if shorthand && matches!(t.kind, TokenKind::Ident(_)) {
                    // `{ name }` is `{ name: name }`.
                    let kind = ExprKind::Ident(key.clone());
                    tallest = tallest.max(1);
                    fields.push((key, Expr { kind, span: t.span }));
                } else if matches!(colon.kind, TokenKind::Punct(Punct::LParen))
                    && matches!(t.kind, TokenKind::Ident(_))
                {
                    return Err(ParseError::Unsupported {
                        what: "shorthand properties and methods".into(),
                        span: t.span,
                    });
                } else {
                    return Err(self.unexpected(&colon, "':'"));
                }
            } else {
                self.pos += 1;
                let value = self.expression()?;
                tallest = tallest.max(self.height);
                fields.push((key, value));
            }
            let t = self.peek().clone();
            match t.kind {
                TokenKind::Punct(Punct::Comma) => self.pos += 1,
                TokenKind::Punct(Punct::RBrace) => {}
                _ => return Err(self.unexpected(&t, "',' or '}'")),
            }
        }
    }

    fn advance_skipping(&mut self) -> Token {
        self.skip_newlines();
        self.advance()
    }
}
