//! Turns shell input into tokens.
//!
//! The lexer knows the small part of JavaScript that mongosh users type: identifiers,
//! numbers (decimal, hex, octal, binary, exponents, `_` separators), strings with JS
//! escapes, regular expression literals, punctuation, comments and line breaks.
//! Line breaks are kept as tokens because they may end a statement.
//!
//! A `/` starts a regular expression when an operand is expected (after an operator,
//! an opening bracket, a comma, or at the start of input) and is division otherwise,
//! which is the rule JavaScript parsers apply in expression context.

use std::fmt;
use thiserror::Error;

/// What opens a substitution inside a template literal, which the shell refuses.
const SUBSTITUTION_OPEN: &str = "${";

/// A place in the source: byte range plus the 1-based line and column (in characters)
/// of its first character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset just past the last character.
    pub end: u32,
    /// 1-based line of the first character.
    pub line: u32,
    /// 1-based column (counted in characters) of the first character.
    pub column: u32,
}

impl Span {
    /// Returns a span that starts where `self` starts and ends where `other` ends.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start,
            end: other.end.max(self.end),
            line: self.line,
            column: self.column,
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Punctuation and operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Punct {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// `:`
    Colon,
    /// `.`
    Dot,
    /// `?.`
    OptionalDot,
    /// `=`
    Assign,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `!`
    Bang,
    /// Any other operator that the parser does not support (kept so errors can name it).
    Other(&'static str),
}

impl Punct {
    /// The operator's source text.
    pub fn as_str(self) -> &'static str {
        match self {
            Punct::LParen => "(",
            Punct::RParen => ")",
            Punct::LBracket => "[",
            Punct::RBracket => "]",
            Punct::LBrace => "{",
            Punct::RBrace => "}",
            Punct::Comma => ",",
            Punct::Semicolon => ";",
            Punct::Colon => ":",
            Punct::Dot => ".",
            Punct::OptionalDot => "?.",
            Punct::Assign => "=",
            Punct::Plus => "+",
            Punct::Minus => "-",
            Punct::Star => "*",
            Punct::Slash => "/",
            Punct::Percent => "%",
            Punct::Bang => "!",
            Punct::Other(s) => s,
        }
    }
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum TokenKind {
    /// An identifier or keyword such as `db`, `new`, `true`.
    Ident(String),
    /// A numeric literal: its JavaScript value and its source text.
    Number {
        /// The value as a JavaScript number.
        value: f64,
        /// The literal as written (used to tell JSON integers from fractions).
        raw: String,
    },
    /// A string literal, escapes already decoded.
    Str(String),
    /// A regular expression literal `/pattern/flags`.
    Regex {
        /// The pattern between the slashes, as written.
        pattern: String,
        /// The flags after the closing slash.
        flags: String,
    },
    /// Punctuation or an operator.
    Punct(Punct),
    /// A template literal with `${...}` substitutions: the text pieces (one more than
    /// the substitutions) and each substitution's source with its byte offset.
    Template {
        /// The decoded text around the substitutions.
        texts: Vec<String>,
        /// Each substitution's source text and where it starts.
        exprs: Vec<(u32, String)>,
    },
    /// One or more line breaks (comments spanning lines count too).
    Newline,
    /// End of input.
    Eof,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Where it is.
    pub span: Span,
}

/// Why the input could not be split into tokens.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LexError {
    /// A character that cannot start any token.
    #[error("{span}: SyntaxError: Invalid or unexpected token '{ch}'")]
    UnexpectedChar {
        /// The offending character.
        ch: char,
        /// Where it is.
        span: Span,
    },
    /// A string literal with no closing quote on its line.
    #[error("{span}: SyntaxError: Unterminated string constant")]
    UnterminatedString {
        /// Where the string starts.
        span: Span,
    },
    /// A `/* ... */` comment that never closes.
    #[error("{span}: SyntaxError: Unterminated comment")]
    UnterminatedComment {
        /// Where the comment starts.
        span: Span,
    },
    /// A regular expression literal that never closes.
    #[error("{span}: SyntaxError: Unterminated regexp literal")]
    UnterminatedRegex {
        /// Where the literal starts.
        span: Span,
    },
    /// A malformed escape sequence inside a string.
    #[error("{span}: SyntaxError: Invalid escape sequence in string: {detail}")]
    BadEscape {
        /// What was wrong.
        detail: String,
        /// Where the escape is.
        span: Span,
    },
    /// A malformed numeric literal.
    #[error("{span}: SyntaxError: Invalid number '{text}'")]
    BadNumber {
        /// The text that was read.
        text: String,
        /// Where it is.
        span: Span,
    },
    /// A script longer than [`MAX_SCRIPT_BYTES`] or [`MAX_TOKENS`], refused before it is
    /// read whole.
    #[error(
        "{span}: SyntaxError: script too long: more than {what}; split it into smaller scripts"
    )]
    TooLong {
        /// Which limit was passed.
        what: String,
        /// Where the lexer stopped.
        span: Span,
    },
    /// One statement of a script read in pieces (the CLI's) longer than
    /// [`MAX_SCRIPT_BYTES`] or [`MAX_TOKENS`]: the limits a whole script has elsewhere.
    #[error(
        "{span}: SyntaxError: statement too long: more than {what}; split it into smaller statements"
    )]
    StatementTooLong {
        /// Which limit was passed.
        what: String,
        /// Where the statement starts.
        span: Span,
    },
    /// A template literal substitution `${...}` that is never closed.
    #[error("{span}: SyntaxError: Unterminated template literal")]
    TemplateSubstitution {
        /// Where the substitution is.
        span: Span,
    },
}

impl LexError {
    /// Where the error is.
    pub fn span(&self) -> Span {
        match self {
            LexError::UnexpectedChar { span, .. }
            | LexError::UnterminatedString { span }
            | LexError::UnterminatedComment { span }
            | LexError::UnterminatedRegex { span }
            | LexError::BadEscape { span, .. }
            | LexError::BadNumber { span, .. }
            | LexError::TemplateSubstitution { span }
            | LexError::TooLong { span, .. }
            | LexError::StatementTooLong { span, .. } => *span,
        }
    }
}

/// The longest script read, in bytes: what one BSON value may hold (16 MiB). Reading
/// costs about 8 bytes a character and 56 a token before anything is built, so this
/// and [`MAX_TOKENS`] bound a script's parse to a few hundred MB whatever it holds (a
/// 50 MB array literal would otherwise take gigabytes).
pub const MAX_SCRIPT_BYTES: usize = 16 * 1024 * 1024;

/// The most tokens one script is split into (about 110 MB of tokens): a script of
/// 100,000 small documents fits several times over.
pub const MAX_TOKENS: usize = 2_000_000;

/// Splits `src` into tokens, ending with [`TokenKind::Eof`]; refuses a script past
/// [`MAX_SCRIPT_BYTES`] before reading it, or past [`MAX_TOKENS`] as soon as it gets there.
pub fn tokenize(src: &str) -> Result<Vec<Token>, LexError> {
    tokenize_at(src, 1, 1)
}

/// [`tokenize`] for a piece of a longer script that starts at `line` and `column` of
/// it (the CLI reads a script in pieces): lines and columns are the whole script's,
/// byte offsets the piece's.
pub(crate) fn tokenize_at(src: &str, line: u32, column: u32) -> Result<Vec<Token>, LexError> {
    if src.len() > MAX_SCRIPT_BYTES {
        return Err(LexError::TooLong {
            what: format!("{MAX_SCRIPT_BYTES} bytes"),
            span: Span {
                start: 0,
                end: 0,
                line,
                column,
            },
        });
    }
    let mut lx = Lexer {
        src,
        // Offsets fit in 32 bits below the size limit; half the memory of `usize`.
        chars: src.char_indices().map(|(o, c)| (to_u32(o), c)).collect(),
        pos: 0,
        line,
        col: column,
        tokens: Vec::new(),
    };
    lx.run()?;
    Ok(lx.tokens)
}

/// Whether `c` may start a JavaScript identifier.
pub fn is_ident_start(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphabetic()
}

/// Whether `c` may continue a JavaScript identifier.
pub fn is_ident_continue(c: char) -> bool {
    is_ident_start(c) || c.is_alphanumeric() || c == '\u{200c}' || c == '\u{200d}'
}

struct Lexer<'a> {
    src: &'a str,
    chars: Vec<(u32, char)>,
    pos: usize,
    line: u32,
    col: u32,
    tokens: Vec<Token>,
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Lexer<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars
            .get(self.pos)
            .map_or(self.src.len(), |&(o, _)| o as usize)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn here(&self) -> Span {
        let o = to_u32(self.offset());
        Span {
            start: o,
            end: o,
            line: self.line,
            column: self.col,
        }
    }

    fn finish(&self, start: Span) -> Span {
        Span {
            end: to_u32(self.offset()),
            ..start
        }
    }

    fn push(&mut self, kind: TokenKind, start: Span) {
        let span = self.finish(start);
        self.tokens.push(Token { kind, span });
    }

    fn push_newline(&mut self, start: Span) {
        if !matches!(
            self.tokens.last(),
            Some(Token {
                kind: TokenKind::Newline,
                ..
            })
        ) {
            self.push(TokenKind::Newline, start);
        }
    }

    /// Whether a `/` here would begin an operand (a regex) rather than divide.
    fn regex_allowed(&self) -> bool {
        let last = self
            .tokens
            .iter()
            .rev()
            .find(|t| t.kind != TokenKind::Newline);
        match last.map(|t| &t.kind) {
            None => true,
            Some(
                TokenKind::Number { .. }
                | TokenKind::Str(_)
                | TokenKind::Regex { .. }
                | TokenKind::Template { .. },
            ) => false,
            Some(TokenKind::Ident(name)) => {
                matches!(
                    name.as_str(),
                    "return" | "typeof" | "instanceof" | "in" | "of" | "new" | "delete" | "void"
                )
            }
            Some(TokenKind::Punct(p)) => {
                !matches!(p, Punct::RParen | Punct::RBracket | Punct::RBrace)
            }
            Some(TokenKind::Newline | TokenKind::Eof) => true,
        }
    }

    fn run(&mut self) -> Result<(), LexError> {
        while let Some(c) = self.peek() {
            let start = self.here();
            if self.tokens.len() >= MAX_TOKENS {
                return Err(LexError::TooLong {
                    what: format!("{MAX_TOKENS} tokens"),
                    span: start,
                });
            }
            match c {
                '\n' | '\u{2028}' | '\u{2029}' => {
                    self.bump();
                    self.push_newline(start);
                }
                c if c.is_whitespace() || c == '\u{feff}' => {
                    self.bump();
                }
                '/' if self.peek_at(1) == Some('/') => {
                    while let Some(c) = self.peek() {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                '/' if self.peek_at(1) == Some('*') => {
                    self.bump();
                    self.bump();
                    let mut saw_newline = false;
                    loop {
                        match self.peek() {
                            None => return Err(LexError::UnterminatedComment { span: start }),
                            Some('*') if self.peek_at(1) == Some('/') => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            Some(c) => {
                                saw_newline |= c == '\n';
                                self.bump();
                            }
                        }
                    }
                    if saw_newline {
                        self.push_newline(start);
                    }
                }
                '/' if self.regex_allowed() => self.regex(start)?,
                '"' | '\'' => self.string(start, c)?,
                '`' => self.template(start)?,
                c if c.is_ascii_digit() => self.number(start)?,
                '.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(start)?,
                c if is_ident_start(c) => {
                    let mut s = String::new();
                    while let Some(c) = self.peek() {
                        if !is_ident_continue(c) {
                            break;
                        }
                        s.push(c);
                        self.bump();
                    }
                    self.push(TokenKind::Ident(s), start);
                }
                '\\' => return Err(LexError::UnexpectedChar { ch: c, span: start }),
                _ => self.punct(start, c)?,
            }
        }
        let end = self.here();
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: end,
        });
        Ok(())
    }

    fn punct(&mut self, start: Span, c: char) -> Result<(), LexError> {
        // Longest operators first so that `===` is not read as `=` `==`.
        const LONG: [&str; 27] = [
            ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>",
            "==", "!=", "<=", ">=", "&&", "||", "??", "++", "--", "+=", "-=", "*=", "/=", "**",
            "%=",
        ];
        let rest = &self.src[self.offset()..];
        if rest.starts_with("?.") && !rest[2..].starts_with(|d: char| d.is_ascii_digit()) {
            self.bump();
            self.bump();
            self.push(TokenKind::Punct(Punct::OptionalDot), start);
            return Ok(());
        }
        // `rest` starts with `c`: only an operator that starts with `c` can match, so
        // brackets and separators, most of a document's punctuation, skip the search.
        let may_be_long = LONG.iter().any(|op| op.starts_with(c));
        for op in LONG.iter().filter(|_| may_be_long) {
            if rest.starts_with(op) {
                for _ in 0..op.len() {
                    self.bump();
                }
                self.push(TokenKind::Punct(Punct::Other(op)), start);
                return Ok(());
            }
        }
        let p = match c {
            '(' => Punct::LParen,
            ')' => Punct::RParen,
            '[' => Punct::LBracket,
            ']' => Punct::RBracket,
            '{' => Punct::LBrace,
            '}' => Punct::RBrace,
            ',' => Punct::Comma,
            ';' => Punct::Semicolon,
            ':' => Punct::Colon,
            '.' => Punct::Dot,
            '=' => Punct::Assign,
            '+' => Punct::Plus,
            '-' => Punct::Minus,
            '*' => Punct::Star,
            '/' => Punct::Slash,
            '%' => Punct::Percent,
            '!' => Punct::Bang,
            '<' => Punct::Other("<"),
            '>' => Punct::Other(">"),
            '&' => Punct::Other("&"),
            '|' => Punct::Other("|"),
            '^' => Punct::Other("^"),
            '~' => Punct::Other("~"),
            '?' => Punct::Other("?"),
            '@' => Punct::Other("@"),
            '#' => Punct::Other("#"),
            _ => return Err(LexError::UnexpectedChar { ch: c, span: start }),
        };
        self.bump();
        self.push(TokenKind::Punct(p), start);
        Ok(())
    }

    fn regex(&mut self, start: Span) -> Result<(), LexError> {
        self.bump();
        let mut pattern = String::new();
        let mut in_class = false;
        loop {
            match self.peek() {
                None | Some('\n') => return Err(LexError::UnterminatedRegex { span: start }),
                Some('\\') => {
                    pattern.push('\\');
                    self.bump();
                    match self.peek() {
                        None | Some('\n') => {
                            return Err(LexError::UnterminatedRegex { span: start })
                        }
                        Some(c) => {
                            pattern.push(c);
                            self.bump();
                        }
                    }
                }
                Some('/') if !in_class => {
                    self.bump();
                    break;
                }
                Some(c) => {
                    if c == '[' {
                        in_class = true;
                    } else if c == ']' {
                        in_class = false;
                    }
                    pattern.push(c);
                    self.bump();
                }
            }
        }
        let mut flags = String::new();
        while let Some(c) = self.peek() {
            if !is_ident_continue(c) {
                break;
            }
            flags.push(c);
            self.bump();
        }
        self.push(TokenKind::Regex { pattern, flags }, start);
        Ok(())
    }

    fn hex_digits(&mut self, n: usize, start: Span) -> Result<u32, LexError> {
        let mut v: u32 = 0;
        for _ in 0..n {
            let d =
                self.peek()
                    .and_then(|c| c.to_digit(16))
                    .ok_or_else(|| LexError::BadEscape {
                        detail: format!("expected {n} hex digits"),
                        span: start,
                    })?;
            self.bump();
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// Reads one escape after a backslash, returning a UTF-16 unit or a full char.
    fn escape(&mut self, esc_start: Span) -> Result<Option<Escaped>, LexError> {
        let Some(c) = self.bump() else {
            return Err(LexError::UnterminatedString { span: esc_start });
        };
        Ok(Some(match c {
            'n' => Escaped::Char('\n'),
            't' => Escaped::Char('\t'),
            'r' => Escaped::Char('\r'),
            'b' => Escaped::Char('\u{8}'),
            'f' => Escaped::Char('\u{c}'),
            'v' => Escaped::Char('\u{b}'),
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => Escaped::Char('\0'),
            '1'..='9' | '0' => {
                return Err(LexError::BadEscape {
                    detail: "octal escape sequences are not allowed".into(),
                    span: esc_start,
                })
            }
            'x' => Escaped::Unit(self.hex_digits(2, esc_start)?),
            'u' => {
                if self.peek() == Some('{') {
                    self.bump();
                    let mut v: u32 = 0;
                    let mut n = 0;
                    while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                        self.bump();
                        v = v.saturating_mul(16).saturating_add(d);
                        n += 1;
                    }
                    if n == 0 || self.peek() != Some('}') || v > 0x10ffff {
                        return Err(LexError::BadEscape {
                            detail: "bad \\u{...} escape".into(),
                            span: esc_start,
                        });
                    }
                    self.bump();
                    Escaped::Unit(v)
                } else {
                    Escaped::Unit(self.hex_digits(4, esc_start)?)
                }
            }
            // A backslash before a line break continues the string on the next line.
            '\n' | '\u{2028}' | '\u{2029}' => return Ok(None),
            '\r' => {
                if self.peek() == Some('\n') {
                    self.bump();
                }
                return Ok(None);
            }
            other => Escaped::Char(other),
        }))
    }

    fn string(&mut self, start: Span, quote: char) -> Result<(), LexError> {
        self.bump();
        let mut out = StrBuilder::default();
        loop {
            match self.peek() {
                None | Some('\n') | Some('\r') => {
                    return Err(LexError::UnterminatedString { span: start })
                }
                Some(c) if c == quote => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    let esc_start = self.here();
                    self.bump();
                    if let Some(e) = self.escape(esc_start)? {
                        out.push(e, esc_start)?;
                    }
                }
                Some(c) => {
                    self.bump();
                    out.push(Escaped::Char(c), start)?;
                }
            }
        }
        let s = out.finish(start)?;
        self.push(TokenKind::Str(s), start);
        Ok(())
    }

    /// Reads `${ expression }` inside a template literal and returns the expression's
    /// offset and source: up to the `}` that closes it, braces inside strings aside.
    fn substitution(&mut self, at: Span) -> Result<(u32, String), LexError> {
        self.bump();
        self.bump();
        let begin = self.offset();
        let mut depth = 0u32;
        let mut quote: Option<char> = None;
        loop {
            let Some(c) = self.peek() else {
                return Err(LexError::TemplateSubstitution { span: at });
            };
            match (quote, c) {
                (Some(_), '\\') => {
                    self.bump();
                }
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"' | '`') => quote = Some(c),
                (None, '{') => depth += 1,
                (None, '}') if depth == 0 => break,
                (None, '}') => depth -= 1,
                _ => {}
            }
            self.bump();
        }
        let text = self.src[begin..self.offset()].to_string();
        self.bump();
        Ok((u32::try_from(begin).unwrap_or(u32::MAX), text))
    }

    fn template(&mut self, start: Span) -> Result<(), LexError> {
        self.bump();
        let mut out = StrBuilder::default();
        let mut texts = Vec::new();
        let mut exprs = Vec::new();
        loop {
            match self.peek() {
                None => return Err(LexError::UnterminatedString { span: start }),
                Some('`') => {
                    self.bump();
                    break;
                }
                Some('$') if self.src[self.offset()..].starts_with(SUBSTITUTION_OPEN) => {
                    let at = self.here();
                    texts.push(std::mem::take(&mut out).finish(start)?);
                    exprs.push(self.substitution(at)?);
                }
                Some('\\') => {
                    let esc_start = self.here();
                    self.bump();
                    if let Some(e) = self.escape(esc_start)? {
                        out.push(e, esc_start)?;
                    }
                }
                Some(c) => {
                    self.bump();
                    out.push(Escaped::Char(c), start)?;
                }
            }
        }
        let s = out.finish(start)?;
        if exprs.is_empty() {
            self.push(TokenKind::Str(s), start);
        } else {
            texts.push(s);
            self.push(TokenKind::Template { texts, exprs }, start);
        }
        Ok(())
    }

    fn number(&mut self, start: Span) -> Result<(), LexError> {
        let begin = self.offset();
        let radix = if self.peek() == Some('0') {
            match self.peek_at(1) {
                Some('x' | 'X') => 16,
                Some('o' | 'O') => 8,
                Some('b' | 'B') => 2,
                _ => 10,
            }
        } else {
            10
        };
        let value;
        if radix != 10 {
            self.bump();
            self.bump();
            let mut v = 0f64;
            let mut any = false;
            while let Some(c) = self.peek() {
                if c == '_' {
                    self.bump();
                    continue;
                }
                let Some(d) = c.to_digit(radix) else { break };
                v = v * f64::from(radix) + f64::from(d);
                any = true;
                self.bump();
            }
            if !any {
                return Err(self.bad_number(begin, start));
            }
            value = v;
        } else {
            let mut text = String::new();
            let digits = |lx: &mut Self, text: &mut String| {
                let mut any = false;
                while let Some(c) = lx.peek() {
                    if c.is_ascii_digit() {
                        text.push(c);
                        any = true;
                    } else if c != '_' {
                        break;
                    }
                    lx.bump();
                }
                any
            };
            let int_part = digits(self, &mut text);
            if self.peek() == Some('.') {
                text.push('.');
                self.bump();
                let frac = digits(self, &mut text);
                if !int_part && !frac {
                    return Err(self.bad_number(begin, start));
                }
            }
            if matches!(self.peek(), Some('e' | 'E')) {
                text.push('e');
                self.bump();
                if let Some(sign @ ('+' | '-')) = self.peek() {
                    text.push(sign);
                    self.bump();
                }
                if !digits(self, &mut text) {
                    return Err(self.bad_number(begin, start));
                }
            }
            value = text
                .parse::<f64>()
                .ok()
                .ok_or_else(|| self.bad_number(begin, start))?;
        }
        if self.peek().is_some_and(is_ident_continue) {
            while self.peek().is_some_and(is_ident_continue) {
                self.bump();
            }
            return Err(self.bad_number(begin, start));
        }
        let raw = self.src[begin..self.offset()].to_string();
        self.push(TokenKind::Number { value, raw }, start);
        Ok(())
    }

    fn bad_number(&self, begin: usize, start: Span) -> LexError {
        LexError::BadNumber {
            text: self.src[begin..self.offset()].to_string(),
            span: self.finish(start),
        }
    }
}

/// One decoded piece of a string literal.
enum Escaped {
    /// A whole character.
    Char(char),
    /// A UTF-16 code unit or a code point from `\x`, `\u` escapes.
    Unit(u32),
}

/// Collects string contents, pairing UTF-16 surrogates written as two `\u` escapes.
#[derive(Default)]
struct StrBuilder {
    out: String,
    high: Option<(u32, Span)>,
}

impl StrBuilder {
    fn push(&mut self, e: Escaped, span: Span) -> Result<(), LexError> {
        match e {
            Escaped::Unit(u) if (0xdc00..0xe000).contains(&u) => {
                let Some((hi, _)) = self.high.take() else {
                    return Err(lone_surrogate(span));
                };
                let cp = 0x10000 + ((hi - 0xd800) << 10) + (u - 0xdc00);
                self.out
                    .push(char::from_u32(cp).ok_or_else(|| lone_surrogate(span))?);
            }
            other => {
                if let Some((_, sp)) = self.high {
                    return Err(lone_surrogate(sp));
                }
                match other {
                    Escaped::Char(c) => self.out.push(c),
                    Escaped::Unit(u) if (0xd800..0xdc00).contains(&u) => {
                        self.high = Some((u, span));
                    }
                    Escaped::Unit(u) => {
                        self.out
                            .push(char::from_u32(u).ok_or_else(|| lone_surrogate(span))?);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(self, _span: Span) -> Result<String, LexError> {
        if let Some((_, sp)) = self.high {
            return Err(lone_surrogate(sp));
        }
        Ok(self.out)
    }
}

fn lone_surrogate(span: Span) -> LexError {
    LexError::BadEscape {
        detail: "lone UTF-16 surrogates cannot be stored in BSON strings".into(),
        span,
    }
}
