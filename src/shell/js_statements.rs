//! The JavaScript statements tutorials use: `if`/`else`, `for (init; test; update)`,
//! `for (const x of array)`, `while`, `do ... while`, `function` declarations, `return`,
//! `break` and `continue`, with `{ ... }` blocks as their bodies. A block is parsed only
//! as the body of one of these: a `{` that starts a statement stays an object literal,
//! as mongosh's REPL reads `{ a: 1 }`.

use super::lexer::{Punct, Span, Token, TokenKind};
use super::parser::{DeclKind, Expr, ExprKind, JsExpr, JsStmt, ParseError, Parser, Stmt, StmtKind};
use std::rc::Rc;

fn stmt(kind: JsStmt, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Js(Box::new(kind)),
        span,
    }
}

impl Parser<'_> {
    /// A JavaScript statement, if one starts here.
    pub(super) fn js_statement(&mut self) -> Result<Option<Stmt>, ParseError> {
        let t = self.raw_peek().clone();
        let TokenKind::Ident(word) = &t.kind else {
            return Ok(None);
        };
        let next = self.tokens.get(self.pos + 1).map(|n| n.kind.clone());
        let s = match word.as_str() {
            "if" => self.nested(t.span, Self::if_statement)?,
            "for" => self.nested(t.span, Self::for_statement)?,
            "while" => self.nested(t.span, Self::while_statement)?,
            "do" => self.nested(t.span, Self::do_statement)?,
            "function" if matches!(next, Some(TokenKind::Ident(_))) => {
                self.pos += 1;
                let (def, span) = self.function_def(t.span)?;
                stmt(JsStmt::Function(Rc::new(def)), span)
            }
            "var" | "let" | "const" if self.declares_several() => self.declarations(word)?,
            "return" => {
                self.pos += 1;
                let value = if self.at_statement_end() {
                    None
                } else {
                    Some(self.expression()?)
                };
                self.end_statement()?;
                let span = value.as_ref().map_or(t.span, |v| t.span.to(v.span));
                stmt(JsStmt::Return(value), span)
            }
            "break" | "continue" => {
                self.pos += 1;
                self.end_statement()?;
                let kind = if word == "break" {
                    JsStmt::Break
                } else {
                    JsStmt::Continue
                };
                stmt(kind, t.span)
            }
            _ => return Ok(None),
        };
        Ok(Some(s))
    }

    /// Whether the declaration starting here lists several names (`var a = 1, b`): a
    /// `,` outside brackets before the statement ends.
    fn declares_several(&self) -> bool {
        let mut depth = 0u32;
        for t in &self.tokens[self.pos..] {
            match t.kind {
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) if depth == 0 => {
                    return false
                }
                TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => depth -= 1,
                TokenKind::Punct(Punct::Comma) if depth == 0 => return true,
                TokenKind::Newline | TokenKind::Punct(Punct::Semicolon) | TokenKind::Eof
                    if depth == 0 =>
                {
                    return false
                }
                _ => {}
            }
        }
        false
    }

    /// `var a = 1, b = 2`.
    fn declarations(&mut self, word: &str) -> Result<Stmt, ParseError> {
        let kind = match word {
            "var" => DeclKind::Var,
            "let" => DeclKind::Let,
            _ => DeclKind::Const,
        };
        let start = self.advance().span;
        let mut all = Vec::new();
        loop {
            let name_tok = self.peek().clone();
            all.push(self.for_init(Some(kind), &name_tok)?);
            if !self.eat_punct(Punct::Comma) {
                break;
            }
            self.skip_newlines();
        }
        self.end_statement()?;
        let end = all.last().map_or(start, |s| s.span);
        Ok(stmt(JsStmt::Declarations(all), start.to(end)))
    }

    /// Runs a statement parser one nesting level deeper (bounded by `MAX_DEPTH`).
    fn nested(
        &mut self,
        span: Span,
        f: fn(&mut Self, Span) -> Result<Stmt, ParseError>,
    ) -> Result<Stmt, ParseError> {
        self.enter(span)?;
        self.pos += 1;
        let r = f(self, span);
        self.depth -= 1;
        r
    }

    fn at_statement_end(&self) -> bool {
        matches!(
            self.raw_peek().kind,
            TokenKind::Newline
                | TokenKind::Eof
                | TokenKind::Punct(Punct::Semicolon | Punct::RBrace)
        )
    }

    /// `( expression )`.
    fn condition(&mut self) -> Result<Expr, ParseError> {
        self.skip_newlines();
        self.expect_punct(Punct::LParen)?;
        self.nesting += 1;
        let test = self
            .expression()
            .and_then(|e| Ok((e, self.expect_punct(Punct::RParen)?)));
        self.nesting -= 1;
        Ok(test?.0)
    }

    /// A loop's or branch's body: a block or one statement.
    fn body(&mut self) -> Result<Stmt, ParseError> {
        self.skip_newlines();
        let t = self.raw_peek().clone();
        if t.kind == TokenKind::Punct(Punct::LBrace) {
            let (statements, close) = self.block()?;
            return Ok(stmt(JsStmt::Block(statements), t.span.to(close)));
        }
        self.statement()
    }

    /// `{ statements }`: line breaks separate statements again inside it.
    pub(super) fn block(&mut self) -> Result<(Vec<Stmt>, Span), ParseError> {
        self.expect_punct(Punct::LBrace)?;
        let saved = std::mem::replace(&mut self.nesting, 0);
        let mut statements = Vec::new();
        let r = loop {
            self.skip_separators();
            let t = self.raw_peek().clone();
            match t.kind {
                TokenKind::Punct(Punct::RBrace) => {
                    self.pos += 1;
                    break Ok(t.span);
                }
                TokenKind::Eof => break Err(self.unexpected(&t, "'}'")),
                _ => match self.statement() {
                    Ok(s) => statements.push(s),
                    Err(e) => break Err(e),
                },
            }
        };
        self.nesting = saved;
        Ok((statements, r?))
    }

    fn if_statement(&mut self, start: Span) -> Result<Stmt, ParseError> {
        let test = self.condition()?;
        let then = self.body()?;
        let mut end = then.span;
        let before = self.pos;
        let mut semicolons = 0;
        while let TokenKind::Newline | TokenKind::Punct(Punct::Semicolon) = self.raw_peek().kind {
            semicolons += u32::from(self.raw_peek().kind != TokenKind::Newline);
            self.pos += 1;
        }
        let otherwise = if semicolons <= 1
            && matches!(&self.raw_peek().kind, TokenKind::Ident(w) if w == "else")
        {
            self.pos += 1;
            let s = self.body()?;
            end = s.span;
            Some(s)
        } else {
            self.pos = before;
            None
        };
        Ok(stmt(
            JsStmt::If {
                test,
                then,
                otherwise,
            },
            start.to(end),
        ))
    }

    fn while_statement(&mut self, start: Span) -> Result<Stmt, ParseError> {
        let test = self.condition()?;
        let body = self.body()?;
        let span = start.to(body.span);
        Ok(stmt(JsStmt::While { test, body }, span))
    }

    fn do_statement(&mut self, start: Span) -> Result<Stmt, ParseError> {
        let body = self.body()?;
        while let TokenKind::Newline | TokenKind::Punct(Punct::Semicolon) = self.raw_peek().kind {
            self.pos += 1;
        }
        let t = self.advance();
        if !matches!(&t.kind, TokenKind::Ident(w) if w == "while") {
            return Err(self.unexpected(&t, "'while'"));
        }
        let test = self.condition()?;
        let end = self.tokens[self.pos.saturating_sub(1)].span;
        Ok(stmt(JsStmt::DoWhile { body, test }, start.to(end)))
    }

    fn for_statement(&mut self, start: Span) -> Result<Stmt, ParseError> {
        self.skip_newlines();
        self.expect_punct(Punct::LParen)?;
        self.nesting += 1;
        let head = self.for_head();
        self.nesting -= 1;
        let body = self.body()?;
        let span = start.to(body.span);
        let kind = match head? {
            ForHead::Of {
                decl,
                name,
                iterable,
                keys,
            } => JsStmt::ForOf {
                decl,
                name,
                iterable,
                keys,
                body,
            },
            ForHead::Classic { init, test, update } => JsStmt::For {
                init,
                test,
                update,
                body,
            },
        };
        Ok(stmt(kind, span))
    }

    /// What is between `for (` and `)`, the `)` included.
    fn for_head(&mut self) -> Result<ForHead, ParseError> {
        let t = self.peek().clone();
        let decl = match &t.kind {
            TokenKind::Ident(w) if w == "var" => Some(DeclKind::Var),
            TokenKind::Ident(w) if w == "let" => Some(DeclKind::Let),
            TokenKind::Ident(w) if w == "const" => Some(DeclKind::Const),
            _ => None,
        };
        if decl.is_some() {
            self.pos += 1;
        }
        let init = if decl.is_none() && self.is_punct(Punct::Semicolon) {
            None
        } else {
            let name_tok = self.peek().clone();
            if let TokenKind::Ident(name) = &name_tok.kind {
                let word = match self.tokens.get(self.pos + 1).map(|t| &t.kind) {
                    Some(TokenKind::Ident(w)) if w == "of" || w == "in" => Some(w == "in"),
                    _ => None,
                };
                if let Some(keys) = word {
                    self.pos += 2;
                    let iterable = self.expression()?;
                    self.expect_punct(Punct::RParen)?;
                    let name = name.clone();
                    return Ok(ForHead::Of {
                        decl,
                        name,
                        iterable,
                        keys,
                    });
                }
            }
            let first = self.for_init(decl, &name_tok)?;
            let mut all = vec![first];
            // `var i = 0, j = 10` or `i = 0, j = 10`.
            while self.eat_punct(Punct::Comma) {
                let next = self.peek().clone();
                all.push(self.for_init(decl, &next)?);
            }
            Some(if all.len() == 1 {
                all.remove(0)
            } else {
                let span = all[0].span.to(all[all.len() - 1].span);
                stmt(JsStmt::Declarations(all), span)
            })
        };
        self.expect_punct(Punct::Semicolon)?;
        let test = self.optional_expression(Punct::Semicolon)?;
        self.expect_punct(Punct::Semicolon)?;
        let update = self.update_list()?;
        self.expect_punct(Punct::RParen)?;
        Ok(ForHead::Classic { init, test, update })
    }

    fn for_init(&mut self, decl: Option<DeclKind>, name_tok: &Token) -> Result<Stmt, ParseError> {
        let Some(kind) = decl else {
            let e = self.expression()?;
            return Ok(Stmt {
                span: e.span,
                kind: StmtKind::Expr(e),
            });
        };
        let TokenKind::Ident(name) = name_tok.kind.clone() else {
            return Err(self.unexpected(name_tok, "a variable name"));
        };
        self.pos += 1;
        let init = if self.eat_punct(Punct::Assign) {
            Some(self.expression()?)
        } else {
            None
        };
        let end = init.as_ref().map_or(name_tok.span, |e| e.span);
        Ok(Stmt {
            kind: StmtKind::Declare { kind, name, init },
            span: name_tok.span.to(end),
        })
    }

    /// A for loop's update: expressions separated by `,` (`i++, j--`).
    fn update_list(&mut self) -> Result<Option<Expr>, ParseError> {
        let Some(first) = self.optional_expression(Punct::RParen)? else {
            return Ok(None);
        };
        let mut all = vec![first];
        while self.eat_punct(Punct::Comma) {
            all.push(self.expression()?);
        }
        if all.len() == 1 {
            return Ok(all.pop());
        }
        let span = all[0].span.to(all[all.len() - 1].span);
        Ok(Some(Expr {
            kind: ExprKind::Js(Box::new(JsExpr::Sequence(all))),
            span,
        }))
    }

    fn optional_expression(&mut self, close: Punct) -> Result<Option<Expr>, ParseError> {
        if self.is_punct(close) {
            return Ok(None);
        }
        Ok(Some(self.expression()?))
    }
}

enum ForHead {
    Of {
        decl: Option<DeclKind>,
        name: String,
        iterable: Expr,
        keys: bool,
    },
    Classic {
        init: Option<Stmt>,
        test: Option<Expr>,
        update: Option<Expr>,
    },
}
