//! The JavaScript expressions tutorials use beyond the value language: comparison,
//! logical and conditional operators, assignment (`=`, `+=`, ...), `++`/`--`, template
//! literals with substitutions, and function expressions (`function (x) {...}`,
//! `x => x * 2`). Precedence, lowest first: assignment and arrows, `?:`, `||`/`??`, `&&`,
//! equality, relational, then the additive level that `parser.rs` already parses.

use super::lexer::{Punct, Span, TokenKind};
use super::parser::{
    BinaryOp, CompareOp, Expr, ExprKind, FunctionBody, FunctionDef, JsExpr, LogicalOp, ParseError,
    Parser,
};
use std::rc::Rc;

fn js(kind: JsExpr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Js(Box::new(kind)),
        span,
    }
}

const COMPOUND: [(&str, BinaryOp); 5] = [
    ("+=", BinaryOp::Add),
    ("-=", BinaryOp::Sub),
    ("*=", BinaryOp::Mul),
    ("/=", BinaryOp::Div),
    ("%=", BinaryOp::Rem),
];

impl Parser<'_> {
    /// Assignment level: an arrow function, `target = value`, or a conditional.
    pub(super) fn assignment(&mut self) -> Result<Expr, ParseError> {
        if let Some(f) = self.arrow()? {
            return Ok(f);
        }
        let left = self.conditional()?;
        let op = match self.peek().kind {
            TokenKind::Punct(Punct::Assign) => Some(None),
            TokenKind::Punct(Punct::Other(s)) => COMPOUND
                .iter()
                .find(|(o, _)| *o == s)
                .map(|(_, op)| Some(*op)),
            _ => None,
        };
        let Some(op) = op else {
            return Ok(left);
        };
        check_target(&left)?;
        let left_height = self.height;
        self.pos += 1;
        let value = self.expression()?;
        let span = left.span.to(value.span);
        self.height = self.grow(left_height.max(self.height) + 1, span)?;
        Ok(js(
            JsExpr::Assign {
                target: left,
                op,
                value,
            },
            span,
        ))
    }

    fn conditional(&mut self) -> Result<Expr, ParseError> {
        let test = self.logical(LogicalOp::Nullish)?;
        if self.peek().kind != TokenKind::Punct(Punct::Other("?")) {
            return Ok(test);
        }
        let mut height = self.height;
        self.pos += 1;
        // Line breaks mean nothing until the `:`, as inside brackets.
        self.nesting += 1;
        let then = self
            .expression()
            .and_then(|then| self.expect_punct(Punct::Colon).map(|_| then));
        self.nesting -= 1;
        let then = then?;
        height = height.max(self.height);
        let otherwise = self.expression()?;
        let span = test.span.to(otherwise.span);
        self.height = self.grow(height.max(self.height) + 1, span)?;
        Ok(js(
            JsExpr::Conditional {
                test,
                then,
                otherwise,
            },
            span,
        ))
    }

    /// `??` and `||` share the lowest level here, then `&&`.
    fn logical(&mut self, level: LogicalOp) -> Result<Expr, ParseError> {
        let operand = |p: &mut Self| match level {
            LogicalOp::Nullish | LogicalOp::Or => p.logical(LogicalOp::And),
            LogicalOp::And => p.equality(),
        };
        let mut left = operand(self)?;
        let mut height = self.height;
        loop {
            let op = match self.peek().kind {
                TokenKind::Punct(Punct::Other("&&")) if level == LogicalOp::And => LogicalOp::And,
                TokenKind::Punct(Punct::Other("||")) if level != LogicalOp::And => LogicalOp::Or,
                TokenKind::Punct(Punct::Other("??")) if level != LogicalOp::And => {
                    LogicalOp::Nullish
                }
                _ => {
                    self.height = height;
                    return Ok(left);
                }
            };
            self.pos += 1;
            let right = operand(self)?;
            let span = left.span.to(right.span);
            // A long `a && a && …` is built in this loop but walked recursively.
            height = self.grow(height.max(self.height) + 1, right.span)?;
            left = js(JsExpr::Logical { op, left, right }, span);
        }
    }

    fn equality(&mut self) -> Result<Expr, ParseError> {
        const OPS: [(&str, CompareOp); 4] = [
            ("===", CompareOp::StrictEq),
            ("!==", CompareOp::StrictNe),
            ("==", CompareOp::Eq),
            ("!=", CompareOp::Ne),
        ];
        self.comparison(&OPS, Self::relational)
    }

    fn relational(&mut self) -> Result<Expr, ParseError> {
        const OPS: [(&str, CompareOp); 4] = [
            ("<=", CompareOp::Le),
            (">=", CompareOp::Ge),
            ("<", CompareOp::Lt),
            (">", CompareOp::Gt),
        ];
        self.comparison(&OPS, Self::additive)
    }

    fn comparison(
        &mut self,
        ops: &[(&str, CompareOp)],
        operand: fn(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        let mut left = operand(self)?;
        let mut height = self.height;
        loop {
            let TokenKind::Punct(Punct::Other(s)) = self.peek().kind else {
                self.height = height;
                return Ok(left);
            };
            let Some((_, op)) = ops.iter().find(|(o, _)| *o == s) else {
                self.height = height;
                return Ok(left);
            };
            self.pos += 1;
            let right = operand(self)?;
            let span = left.span.to(right.span);
            height = self.grow(height.max(self.height) + 1, right.span)?;
            left = js(
                JsExpr::Compare {
                    op: *op,
                    left,
                    right,
                },
                span,
            );
        }
    }

    /// `++x` or `--x`, when the next token is one of them.
    pub(super) fn prefix_update(&mut self) -> Result<Option<Expr>, ParseError> {
        let t = self.raw_peek();
        let increment = match t.kind {
            TokenKind::Punct(Punct::Other("++")) => true,
            TokenKind::Punct(Punct::Other("--")) => false,
            _ => return Ok(None),
        };
        let t = t.clone();
        self.pos += 1;
        let target = self.postfix()?;
        check_target(&target)?;
        let span = t.span.to(target.span);
        self.height = self.grow(self.height + 1, span)?;
        Ok(Some(js(
            JsExpr::Update {
                target,
                increment,
                prefix: true,
            },
            span,
        )))
    }

    /// A postfix expression, then `++` or `--` on the same line.
    pub(super) fn postfix_update(&mut self) -> Result<Expr, ParseError> {
        let target = self.postfix()?;
        let t = self.raw_peek();
        let increment = match t.kind {
            TokenKind::Punct(Punct::Other("++")) => true,
            TokenKind::Punct(Punct::Other("--")) => false,
            _ => return Ok(target),
        };
        let t = t.clone();
        check_target(&target)?;
        self.pos += 1;
        let span = target.span.to(t.span);
        self.height = self.grow(self.height + 1, span)?;
        Ok(js(
            JsExpr::Update {
                target,
                increment,
                prefix: false,
            },
            span,
        ))
    }

    /// A template literal with substitutions; each is parsed from its own source.
    pub(super) fn template(
        &mut self,
        texts: Vec<String>,
        exprs: Vec<(u32, String)>,
        span: Span,
    ) -> Result<Expr, ParseError> {
        let mut parsed = Vec::with_capacity(exprs.len());
        let mut tallest = 0;
        for (_, src) in &exprs {
            // Each substitution is parsed one level deeper than the literal, so that
            // templates nested in substitutions stay bounded by `MAX_DEPTH`.
            self.enter(span)?;
            let e = super::parser::parse_nested_expression(src, self.depth);
            self.depth -= 1;
            let (e, height) = e.map_err(|e| relocate(e, span))?;
            tallest = tallest.max(height);
            parsed.push(e);
        }
        self.height = self.grow(tallest + 1, span)?;
        Ok(js(
            JsExpr::Template {
                texts,
                exprs: parsed,
            },
            span,
        ))
    }

    /// An arrow function, if one starts here: `x => ...` or `(a, b) => ...`.
    fn arrow(&mut self) -> Result<Option<Expr>, ParseError> {
        if !matches!(
            self.peek().kind,
            TokenKind::Ident(_) | TokenKind::Punct(Punct::LParen)
        ) {
            return Ok(None);
        }
        let start = self.peek().clone();
        let params = match &start.kind {
            TokenKind::Ident(name) if self.is_arrow_at(self.pos + 1) => vec![name.clone()],
            TokenKind::Punct(Punct::LParen) => {
                let Some(close) = self.matching_paren(self.pos) else {
                    return Ok(None);
                };
                if !self.is_arrow_at(close + 1) {
                    return Ok(None);
                }
                self.pos += 1;
                self.nesting += 1;
                let params = self.params();
                self.nesting -= 1;
                params?
            }
            _ => return Ok(None),
        };
        // Skip to the arrow itself (after the name, or after the parameters' `)`).
        while !self.is_arrow_at(self.pos) {
            self.pos += 1;
        }
        self.pos += 1;
        self.skip_newlines();
        let (body, height) = self.measured(|p| {
            Ok(if p.raw_peek().kind == TokenKind::Punct(Punct::LBrace) {
                FunctionBody::Block(p.block()?.0)
            } else {
                FunctionBody::Expr(p.expression()?)
            })
        })?;
        self.height = self.grow(height + 1, start.span)?;
        let end = self.tokens[self.pos.saturating_sub(1)].span;
        let def = FunctionDef {
            name: None,
            params,
            body,
        };
        Ok(Some(js(JsExpr::Function(Rc::new(def)), start.span.to(end))))
    }

    fn is_arrow_at(&self, pos: usize) -> bool {
        matches!(
            self.tokens.get(pos).map(|t| &t.kind),
            Some(TokenKind::Punct(Punct::Other("=>")))
        )
    }

    fn matching_paren(&self, open: usize) -> Option<usize> {
        let mut depth = 0u32;
        for (i, t) in self.tokens.iter().enumerate().skip(open) {
            match t.kind {
                TokenKind::Punct(Punct::LParen) => depth += 1,
                TokenKind::Punct(Punct::RParen) => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                TokenKind::Eof => return None,
                _ => {}
            }
        }
        None
    }

    /// Parameter names up to and including `)` (the `(` already read).
    pub(super) fn params(&mut self) -> Result<Vec<String>, ParseError> {
        let mut params = Vec::new();
        loop {
            let t = self.peek().clone();
            match t.kind {
                TokenKind::Punct(Punct::RParen) => {
                    self.pos += 1;
                    return Ok(params);
                }
                TokenKind::Ident(name) if !params.contains(&name) => {
                    self.pos += 1;
                    params.push(name);
                    if !self.eat_punct(Punct::Comma) && !self.is_punct(Punct::RParen) {
                        let t = self.peek().clone();
                        return Err(self.unexpected(&t, "',' or ')'"));
                    }
                }
                _ => return Err(self.unexpected(&t, "a parameter name")),
            }
        }
    }

    /// `function [name](params) { body }`, the keyword already read.
    pub(super) fn function_def(&mut self, start: Span) -> Result<(FunctionDef, Span), ParseError> {
        self.skip_newlines();
        let name = match self.raw_peek().kind.clone() {
            TokenKind::Ident(n) => {
                self.pos += 1;
                Some(n)
            }
            _ => None,
        };
        self.expect_punct(Punct::LParen)?;
        self.nesting += 1;
        let params = self.params();
        self.nesting -= 1;
        let params = params?;
        self.skip_newlines();
        let ((body, close), height) = self.measured(Self::block)?;
        self.height = self.grow(height + 1, start)?;
        let def = FunctionDef {
            name,
            params,
            body: FunctionBody::Block(body),
        };
        Ok((def, start.to(close)))
    }

    /// Runs `f` (a function's body) and returns with its result the tallest node built
    /// in it, so that a function is as tall as what it holds: dropping or copying a
    /// function's definition walks its body recursively.
    fn measured<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<(T, u32), ParseError> {
        let saved = std::mem::replace(&mut self.peak, 0);
        let r = f(self);
        let peak = self.peak;
        self.peak = saved.max(peak);
        Ok((r?, peak))
    }

    /// `typeof operand`, the keyword already read.
    pub(super) fn typeof_expr(&mut self, start: Span) -> Result<Expr, ParseError> {
        self.enter(start)?;
        let operand = self.unary();
        self.depth -= 1;
        let operand = operand?;
        let span = start.to(operand.span);
        self.height = self.grow(self.height + 1, span)?;
        Ok(js(JsExpr::Typeof(operand), span))
    }

    /// A function expression, the keyword already read.
    pub(super) fn function_expr(&mut self, start: Span) -> Result<Expr, ParseError> {
        let (def, span) = self.function_def(start)?;
        let e = js(JsExpr::Function(Rc::new(def)), span);
        self.postfix_from(e)
    }
}

/// Only a variable, a property or an element can be assigned to.
fn check_target(e: &Expr) -> Result<(), ParseError> {
    match e.kind {
        ExprKind::Ident(_) | ExprKind::Member { .. } | ExprKind::Index { .. } => Ok(()),
        _ => Err(ParseError::Unexpected {
            found: "assignment".into(),
            expected: "a variable, property or element on its left".into(),
            span: e.span,
        }),
    }
}

/// A substitution's error, placed at its template literal.
fn relocate(e: ParseError, span: Span) -> ParseError {
    match e {
        ParseError::Lex(_) | ParseError::UnexpectedEnd { .. } => ParseError::Unexpected {
            found: "template substitution".into(),
            expected: "a complete expression".into(),
            span,
        },
        ParseError::Unexpected {
            found, expected, ..
        } => ParseError::Unexpected {
            found,
            expected,
            span,
        },
        ParseError::Unsupported { what, .. } => ParseError::Unsupported { what, span },
        ParseError::MissingUseArgument { .. } => ParseError::MissingUseArgument { span },
        ParseError::TooDeep { .. } => ParseError::TooDeep { span },
        ParseError::TooLong { .. } => ParseError::TooLong { span },
        ParseError::TooManyItems { .. } => ParseError::TooManyItems { span },
    }
}
