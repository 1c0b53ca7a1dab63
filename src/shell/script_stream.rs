//! A script read in pieces, as the CLI reads a file or standard input: text goes in as
//! it arrives, and statements come out as soon as the parser has decided where they end,
//! so that a script of any length runs in the memory of its longest statement.
//!
//! Where a statement ends is the parser's own answer, not a second splitter's: the text
//! held back is parsed as a script (`parser::parse_items`), and every statement before
//! the last one is final, since the next one has begun. The last is held back with what
//! follows it, because more text may still extend it (a `.sort()` on the next line, the
//! rest of an open bracket, string or comment). A piece is cut only before a statement
//! that follows a line break or a `;`, where the lexer starts afresh, so each statement
//! parses exactly as it does in the whole script; lines and columns are the whole
//! script's.
//!
//! The lexer's limits ([`MAX_SCRIPT_BYTES`], [`MAX_TOKENS`]) then hold for one statement
//! (with the line breaks and comments before the next) instead of the whole script. A
//! statement past them, or text the lexer refuses, ends the script there: mongosh
//! stops a file at its first uncaught error (`mongosh file.js` exits with status 1), and
//! the reader cannot tell where an unreadable statement would have ended.

use super::lexer::{LexError, Punct, Span, TokenKind, MAX_SCRIPT_BYTES, MAX_TOKENS};
use super::parser::{parse_items, ParseError, Parsed, Script};

/// Statements ready to run, in source order, with the text their byte offsets point
/// into (their lines and columns are the whole script's).
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// The text the statements were read from.
    pub text: String,
    /// The statements that parse.
    pub script: Script,
    /// One error for each statement that does not parse, in source order.
    pub errors: Vec<ParseError>,
    /// Whether the script ends here: the last error is a statement past the lexer's
    /// limits or text it refuses, and nothing after it is read.
    pub stop: bool,
}

/// A script fed in pieces ([`ScriptStream::push`]) and taken out as [`Piece`]s of whole
/// statements ([`ScriptStream::next_piece`]).
#[derive(Debug, Default)]
pub struct ScriptStream {
    /// The text not yet handed out: it starts where a statement starts (or at the start
    /// of the script).
    held: String,
    /// The whole script's line and column of `held`'s first character.
    line: u32,
    column: u32,
    /// How much of `held` the last parse read without finding where its last statement
    /// ends: the next parse waits until as much again has arrived, so a long statement
    /// is parsed a bounded number of times per byte.
    parsed: usize,
    /// Whether the last piece has been handed out.
    ended: bool,
}

impl ScriptStream {
    /// A stream at the start of a script.
    pub fn new() -> Self {
        ScriptStream {
            line: 1,
            column: 1,
            ..Default::default()
        }
    }

    /// Adds text that follows what came before.
    pub fn push(&mut self, text: &str) {
        if !self.ended {
            self.held.push_str(text);
        }
    }

    /// The next statements that can run, if any: with `end`, the script has no more text
    /// and everything held is handed out. Call it until it answers `None`.
    pub fn next_piece(&mut self, end: bool) -> Option<Piece> {
        loop {
            if self.ended {
                return None;
            }
            let over = self.held.len() > MAX_SCRIPT_BYTES;
            if !end && !over && self.held.len() < self.parsed.saturating_mul(2) {
                return None;
            }
            let before = self.held.len();
            let piece = self.split(end);
            // Text made only of line breaks and comments was dropped: look again.
            if piece.is_some() || self.ended || self.held.len() == before {
                return piece;
            }
        }
    }

    /// Parses what is held (at most [`MAX_SCRIPT_BYTES`] of it, and as much as
    /// [`MAX_TOKENS`] tokens cover) and hands out the statements that are final.
    fn split(&mut self, end: bool) -> Option<Piece> {
        let mut len = floor_char_boundary(&self.held, MAX_SCRIPT_BYTES);
        let mut limit = (len < self.held.len()).then(|| format!("{MAX_SCRIPT_BYTES} bytes"));
        // Whether the text parsed ends after a whole token.
        let mut whole_token = false;
        loop {
            let text = &self.held[..len];
            let whole = limit.is_none();
            let parsed = match parse_items(text, self.line, self.column) {
                Ok(parsed) if end && whole => return self.take_all(parsed),
                Ok(parsed) => parsed,
                Err(LexError::TooLong { span, .. }) if (span.start as usize) < len => {
                    // Past MAX_TOKENS: look for a statement's end in what the lexer read.
                    len = span.start as usize;
                    limit = Some(format!("{MAX_TOKENS} tokens"));
                    whole_token = true;
                    continue;
                }
                Err(e) if (end && whole) || settled(&e, text) => {
                    return Some(self.refuse(e, len));
                }
                Err(e) => {
                    // A string, comment or template still open at the end: the text
                    // before it (which ends after a whole token, since one starts there)
                    // may hold final statements.
                    let at = (e.span().start as usize).min(len);
                    if at > 0 && at < len {
                        len = at;
                        whole_token = true;
                        continue;
                    }
                    if let Some(what) = limit {
                        return Some(self.too_long(what));
                    }
                    self.parsed = self.held.len();
                    return None;
                }
            };
            if let Some(i) = cut(&parsed, whole_token || text.ends_with('\n')) {
                return Some(self.release(parsed, i));
            }
            if parsed.items.is_empty() && self.drop_blank(&parsed) {
                return None;
            }
            if let Some(what) = limit {
                // Before refusing the last statement, hand out those before it.
                if let Some(i) = cut(&parsed, true) {
                    return Some(self.release(parsed, i));
                }
                return Some(self.too_long(what));
            }
            self.parsed = self.held.len();
            return None;
        }
    }

    /// Hands out the statements before item `i`, keeping the text from its start.
    fn release(&mut self, parsed: Parsed, i: usize) -> Piece {
        let first = parsed.tokens[parsed.items[i].first].span;
        let at = first.start as usize;
        let text: String = self.held.drain(..at).collect();
        self.line = first.line;
        self.column = first.column;
        self.parsed = self.held.len();
        let (script, errors) = gather(parsed, i);
        Piece {
            text,
            script,
            errors,
            stop: false,
        }
    }

    /// Hands out everything: the script has ended.
    fn take_all(&mut self, parsed: Parsed) -> Option<Piece> {
        self.ended = true;
        let text = std::mem::take(&mut self.held);
        let n = parsed.items.len();
        (n > 0).then(|| {
            let (script, errors) = gather(parsed, n);
            Piece {
                text,
                script,
                errors,
                stop: false,
            }
        })
    }

    /// Drops held text that holds no statement (line breaks, `;` and comments) up to its
    /// last line feed, so a long run of comments does not count against the next
    /// statement's limit.
    fn drop_blank(&mut self, parsed: &Parsed) -> bool {
        let bytes = self.held.as_bytes();
        let last_feed = parsed.tokens.iter().rev().find(|t| {
            t.kind == TokenKind::Newline && bytes.get(t.span.start as usize) == Some(&b'\n')
        });
        let Some(t) = last_feed else {
            return false;
        };
        self.held.drain(..t.span.end as usize);
        self.line = t.span.line.saturating_add(1);
        self.column = 1;
        self.parsed = 0;
        true
    }

    /// Ends the script with a statement past the lexer's limit `what`.
    fn too_long(&mut self, what: String) -> Piece {
        self.ended = true;
        self.held = String::new();
        let span = Span {
            start: 0,
            end: 0,
            line: self.line,
            column: self.column,
        };
        Piece {
            text: String::new(),
            script: Script { statements: vec![] },
            errors: vec![LexError::StatementTooLong { what, span }.into()],
            stop: true,
        }
    }

    /// Ends the script at text the lexer refuses, found in the first `len` bytes held:
    /// the statements on the lines before it run first (mongosh would run none; the
    /// whole script has not been read).
    fn refuse(&mut self, e: LexError, len: usize) -> Piece {
        self.ended = true;
        let held = std::mem::take(&mut self.held);
        let at = (e.span().start as usize).min(len);
        let line_start = held[..at].rfind('\n').map_or(0, |i| i + 1);
        let (script, mut errors) = match parse_items(&held[..line_start], self.line, self.column) {
            Ok(parsed) => {
                let n = parsed.items.len();
                gather(parsed, n)
            }
            Err(_) => (Script { statements: vec![] }, vec![]),
        };
        errors.push(e.into());
        Piece {
            text: held,
            script,
            errors,
            stop: true,
        }
    }
}

/// Where held text may be cut: before the last statement (never the first) that follows
/// a line break or a `;`, the places where the lexer's reading does not depend on what
/// came before (a `/` there starts a regular expression, as at the start of a script).
/// Unless the text ends after a whole token (`whole_token`), the statement cut before
/// must not be the last: the last token may be cut short (`els` of an `else` that
/// continues the statement before it), and the parser ends a statement by the token
/// that follows it.
fn cut(parsed: &Parsed, whole_token: bool) -> Option<usize> {
    let n = parsed.items.len();
    let last = if whole_token { n } else { n.saturating_sub(1) };
    (1..last).rev().find(|&i| {
        let first = parsed.items[i].first;
        first > 0
            && matches!(
                parsed.tokens[first - 1].kind,
                TokenKind::Newline | TokenKind::Punct(Punct::Semicolon)
            )
    })
}

/// The statements and errors of the first `n` items.
fn gather(parsed: Parsed, n: usize) -> (Script, Vec<ParseError>) {
    let mut statements = Vec::new();
    let mut errors = Vec::new();
    for item in parsed.items.into_iter().take(n) {
        match item.result {
            Ok(s) => statements.push(s),
            Err(e) => errors.push(e),
        }
    }
    (Script { statements }, errors)
}

/// Whether more text cannot mend lexer error `e` in `text`: it is not inside a comment or
/// template literal that may still close, and its line has ended.
fn settled(e: &LexError, text: &str) -> bool {
    let at = (e.span().start as usize).min(text.len());
    match e {
        LexError::UnterminatedComment { .. } | LexError::TemplateSubstitution { .. } => false,
        LexError::UnterminatedString { .. } if text.as_bytes().get(at) == Some(&b'`') => false,
        _ => text[at..].contains('\n'),
    }
}

/// The largest char boundary of `s` at or below `max`.
fn floor_char_boundary(s: &str, max: usize) -> usize {
    let mut i = max.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
