//! Whether console input is a whole statement yet or needs another line, as mongosh's
//! REPL decides (Node's "recoverable" errors): more is needed while a bracket, a template
//! literal or a block comment is still open, or when the input ends on an operator that
//! must be followed by something. An unterminated `'` or `"` string ends at the line break in
//! JavaScript, so it is an error to show, not a reason to wait.

use super::lexer::{tokenize, LexError, Punct, TokenKind};

/// Whether `text` is incomplete: Enter should add a line rather than run it.
pub fn needs_more_input(text: &str) -> bool {
    match tokenize(text) {
        Ok(tokens) => {
            let mut depth = 0i64;
            for t in &tokens {
                match t.kind {
                    TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => {
                        depth += 1;
                    }
                    TokenKind::Punct(Punct::RParen | Punct::RBracket | Punct::RBrace) => {
                        depth -= 1;
                    }
                    _ => {}
                }
            }
            let last = tokens
                .iter()
                .rev()
                .find(|t| !matches!(t.kind, TokenKind::Newline | TokenKind::Eof));
            let dangling = last.is_some_and(|t| {
                matches!(
                    t.kind,
                    TokenKind::Punct(
                        Punct::Comma
                            | Punct::Colon
                            | Punct::Dot
                            | Punct::OptionalDot
                            | Punct::Assign
                            | Punct::Plus
                            | Punct::Minus
                            | Punct::Star
                            | Punct::Slash
                            | Punct::Percent
                            | Punct::Bang
                    )
                ) || matches!(t.kind, TokenKind::Punct(Punct::Other(op)) if op != "++" && op != "--")
            });
            depth > 0 || dangling
        }
        Err(LexError::UnterminatedComment { .. } | LexError::TemplateSubstitution { .. }) => true,
        Err(LexError::UnterminatedString { span }) => {
            text.as_bytes().get(span.start as usize) == Some(&b'`')
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::needs_more_input;

    #[test]
    fn open_brackets_template_literals_and_comments_wait_for_more() {
        for text in [
            "db.c.find({",
            "[1,\n2",
            "`two\nlines",
            "/* a comment",
            "sh.status(\n// )",
            "`a ${",
            "x > 1 &&",
            "const f = x =>",
        ] {
            assert!(needs_more_input(text), "{text:?} waits for more");
        }
        for text in [
            "\"abc",
            "'abc",
            "sh.status() // :(",
            "sh.status() /* ( */",
            "db.c.find({})",
            "x = \"{\"",
            ")",
            "",
            "i++",
        ] {
            assert!(!needs_more_input(text), "{text:?} runs");
        }
    }
}
