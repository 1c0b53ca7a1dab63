//! Words from the catalogue only (issue 37, item 4): every string the page shows is a key
//! of `static/i18n/<lang>.json`, said with `t`/`tf`, never a literal in the page's source.
//!
//! This reads every `.rs` file under `web/src` with a small tokenizer (comments skipped,
//! strings and raw strings read whole), finds each `html!` body and fails, naming file and
//! line, on a string literal with a letter in it in a position a user reads:
//!
//! - a text child: a bare `"text"`, or a child block whose value is a literal (`{ "x" }`,
//!   `{ if a { "x" } else { "y" } }`, `{ match v { A => "x", .. } }`, `"x".to_string()`),
//!   or the words of a `format!` there;
//! - the attributes `title`, `aria-label`, `placeholder`, `alt`, `aria-description`,
//!   `aria-valuetext` and `label`, given a literal (`title="x"`), a block valued as above,
//!   or a `format!` whose words (placeholders left out) have a letter;
//! - anywhere in `web/src`, a notice made of a literal: `Notice::plain("x")` or
//!   `Notice::plain(format!("x {y}"))`.
//!
//! A literal passed to a function (`tf(K::X, &[("name", &v)])`, `count(n, "doc")`) is not
//! shown as it is and is not flagged. Non-words are in [`ALLOWED`], each with its reason.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// Literals that may stand in those positions, exactly as written: none of them is a word
/// of a language.
const ALLOWED: &[(&str, &str)] = &[
    ("ShardLab", "the product's name, a brand in every language"),
    (
        "MinKey",
        "MongoDB's lowest key value, as the shell prints it",
    ),
    (
        "MaxKey",
        "MongoDB's highest key value, as the shell prints it",
    ),
    (
        "MinKey()",
        "MongoDB's lowest key value, as mongosh writes it",
    ),
    (
        "MaxKey()",
        "MongoDB's highest key value, as mongosh writes it",
    ),
    ("_id", "a document's field name, shown as code"),
    ("analyzeShardKey", "a MongoDB command's name, shown as code"),
    (
        "numInitialChunks",
        "a MongoDB shardCollection option's name, labelling its own field",
    ),
    ("SVG", "a file format's name"),
    ("PNG", "a file format's name"),
    (
        "J",
        "a one-letter mark, aria-hidden; the chunk's title says jumbo in words",
    ),
    (
        "sh.status()",
        "a mongosh command, the console's placeholder",
    ),
    (
        "{mono} (r = {r})",
        "analyzeShardKey's monotonicity value and r, its correlation coefficient's symbol",
    ),
    ("{} B", "a size in bytes, B the unit's symbol"),
    (
        "{ user_id: 1 }\n{ _id: 'hashed' }",
        "shard keys in mongosh syntax, the candidates' placeholder",
    ),
];

/// The attributes whose values a user reads (or hears).
const SHOWN_ATTRIBUTES: &[&str] = &[
    "title",
    "aria-label",
    "placeholder",
    "alt",
    "aria-description",
    "aria-valuetext",
    "aria-roledescription",
    "label",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    /// A number, a character or a lifetime: nothing this reads.
    Other,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// The tokens of Rust source: identifiers, string literals (their text, escapes read),
/// single punctuation characters; comments are skipped.
fn tokenize(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = quoted(&c, i + 1, start_line, &mut line, &mut out);
        } else if ch == '\'' {
            // A character ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
            }
            out.push(Token {
                tok: Tok::Other,
                line: start_line,
            });
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (c[i].is_alphanumeric()
                    || c[i] == '_'
                    || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Other,
                line: start_line,
            });
        } else if ch.is_alphabetic() || ch == '_' {
            let begin = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[begin..i].iter().collect();
            let hashes = (i..).take_while(|&j| at(j) == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                // A raw string: r"..", r#".."#.
                let body = i + hashes + 1;
                let mut j = body;
                loop {
                    if j >= c.len() {
                        break;
                    }
                    if c[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                        break;
                    }
                    j += 1;
                }
                let text: String = c[body..j.min(c.len())].iter().collect();
                line += text.matches('\n').count();
                out.push(Token {
                    tok: Tok::Str(text),
                    line: start_line,
                });
                i = j + 1 + hashes;
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                i = quoted(&c, i + 1, start_line, &mut line, &mut out);
            } else if word == "b" && at(i) == '\'' {
                i += if at(i + 1) == '\\' { 4 } else { 3 };
                while i < c.len() && c[i - 1] != '\'' {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Other,
                    line: start_line,
                });
            } else if word == "r" && hashes == 1 && (at(i + 1).is_alphabetic() || at(i + 1) == '_')
            {
                // A raw identifier, r#type.
                i += 1;
                let begin = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(c[begin..i].iter().collect()),
                    line: start_line,
                });
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line: start_line,
                });
            }
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line: start_line,
            });
            i += 1;
        }
    }
    out
}

/// A string's text from just after its opening quote: the text, the index after the
/// closing quote, and the newlines it spans.
/// Reads the string whose body starts at `i` into a token on `start_line`, counts its
/// lines into `line`, and answers where reading goes on.
fn quoted(
    c: &[char],
    i: usize,
    start_line: usize,
    line: &mut usize,
    out: &mut Vec<Token>,
) -> usize {
    let (text, next, lines) = string(c, i);
    out.push(Token {
        tok: Tok::Str(text),
        line: start_line,
    });
    *line += lines;
    next
}

fn string(c: &[char], mut i: usize) -> (String, usize, usize) {
    let mut out = String::new();
    let mut lines = 0;
    while i < c.len() {
        let ch = c[i];
        i += 1;
        match ch {
            '"' => break,
            '\\' => {
                let e = c.get(i).copied().unwrap_or('\0');
                i += 1;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'u' => {
                        let close = (i..c.len()).find(|&j| c[j] == '}').unwrap_or(i);
                        let hex: String = c[i + 1..close].iter().collect();
                        if let Some(ch) =
                            u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                        {
                            out.push(ch);
                        }
                        i = close + 1;
                    }
                    'x' => {
                        let hex: String = c[i..(i + 2).min(c.len())].iter().collect();
                        if let Ok(b) = u8::from_str_radix(&hex, 16) {
                            out.push(char::from(b));
                        }
                        i += 2;
                    }
                    '\n' => {
                        // A line continuation: the newline and the next line's indent.
                        lines += 1;
                        while i < c.len() && c[i].is_whitespace() {
                            if c[i] == '\n' {
                                lines += 1;
                            }
                            i += 1;
                        }
                    }
                    other => out.push(other),
                }
            }
            '\n' => {
                lines += 1;
                out.push('\n');
            }
            other => out.push(other),
        }
    }
    (out, i, lines)
}

fn is(t: Option<&Token>, p: char) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s),
        _ => None,
    }
}

/// The index of the delimiter closing the one at `open`.
fn closing(toks: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Whether `text` has a word in it (a letter), with `{placeholders}` of a format string
/// left out.
fn has_words(text: &str, format: bool) -> bool {
    let mut depth = 0;
    text.chars().any(|ch| match ch {
        '{' if format => {
            depth += 1;
            false
        }
        '}' if format && depth > 0 => {
            depth -= 1;
            false
        }
        _ => depth == 0 && ch.is_alphabetic(),
    })
}

/// One literal in a position a user reads.
#[derive(Debug, PartialEq)]
struct Found {
    line: usize,
    text: String,
    place: String,
}

struct Scan<'a> {
    toks: &'a [Token],
    found: Vec<Found>,
    /// How many `html!` bodies were read.
    bodies: usize,
}

impl Scan<'_> {
    fn flag(&mut self, at: usize, format: bool, place: &str) {
        let Tok::Str(text) = &self.toks[at].tok else {
            return;
        };
        if has_words(text, format) && !ALLOWED.iter().any(|(a, _)| a == text) {
            self.found.push(Found {
                line: self.toks[at].line,
                text: text.clone(),
                place: place.to_owned(),
            });
        }
    }

    /// Markup, the tokens `from..to` of an `html!` body or of a block of one that holds
    /// markup (`if c { <markup> }`).
    fn markup(&mut self, from: usize, to: usize) {
        let mut i = from;
        while i < to {
            match &self.toks[i].tok {
                Tok::Punct('<') => i = self.tag(i + 1, to),
                Tok::Punct('{') => {
                    let close = closing(self.toks, i);
                    self.value(i + 1, close, "a text child");
                    i = close + 1;
                }
                Tok::Str(_) => {
                    self.flag(i, false, "a text child");
                    i += 1;
                }
                Tok::Ident(w) if w == "if" || w == "for" || w == "else" => {
                    // `if cond { markup } else if .. { markup } else { markup }`,
                    // `for x in xs { markup }`: the blocks are markup.
                    let mut j = i + 1;
                    while j < to && !is(self.toks.get(j), '{') {
                        if matches!(self.toks[j].tok, Tok::Punct('(' | '[')) {
                            j = closing(self.toks, j);
                        }
                        j += 1;
                    }
                    if j < to {
                        let close = closing(self.toks, j);
                        self.markup(j + 1, close);
                        i = close + 1;
                    } else {
                        i = j;
                    }
                }
                _ => i += 1,
            }
        }
    }

    /// A tag from just after its `<`, to the index after its `>`.
    fn tag(&mut self, mut i: usize, to: usize) -> usize {
        if is(self.toks.get(i), '/') {
            while i < to && !is(self.toks.get(i), '>') {
                i += 1;
            }
            return i + 1;
        }
        // The tag's name: a path, or `@{expr}`.
        if is(self.toks.get(i), '@') {
            i = closing(self.toks, i + 1) + 1;
        }
        if ident(self.toks.get(i)).is_some() {
            i += 1;
            while is(self.toks.get(i), ':') && is(self.toks.get(i + 1), ':') {
                i += 3;
            }
        }
        while i < to {
            let t = &self.toks[i];
            match &t.tok {
                Tok::Punct('>') => return i + 1,
                Tok::Punct('{') => i = closing(self.toks, i) + 1,
                Tok::Ident(_) | Tok::Punct('~') => {
                    let mut name = String::new();
                    while i < to {
                        match &self.toks[i].tok {
                            Tok::Ident(w) => name.push_str(w),
                            Tok::Punct('-') => name.push('-'),
                            Tok::Punct('~') => {}
                            _ => break,
                        }
                        i += 1;
                    }
                    if !is(self.toks.get(i), '=') {
                        continue;
                    }
                    i += 1;
                    let shown = SHOWN_ATTRIBUTES.contains(&name.as_str());
                    let place = format!("the attribute {name}");
                    match self.toks.get(i).map(|t| &t.tok) {
                        Some(Tok::Str(_)) => {
                            if shown {
                                self.flag(i, false, &place);
                            }
                            i += 1;
                        }
                        Some(Tok::Punct('{')) => {
                            let close = closing(self.toks, i);
                            if shown {
                                self.value(i + 1, close, &place);
                            }
                            i = close + 1;
                        }
                        _ => i += 1,
                    }
                }
                _ => i += 1,
            }
        }
        i
    }

    /// A Rust expression whose value is shown (`from..to`): flags the literals that are
    /// its value or a branch's, and the words of a `format!` that is. A nested `html!` is
    /// left to its own scan.
    fn value(&mut self, from: usize, to: usize, place: &str) {
        let mut i = from;
        while i < to {
            let t = self.toks.get(i);
            if ident(t) == Some("html") && is(self.toks.get(i + 1), '!') {
                i = closing(self.toks, i + 2) + 1;
                continue;
            }
            let format = matches!(ident(t), Some("format" | "concat"))
                && is(self.toks.get(i + 1), '!')
                && is(self.toks.get(i + 2), '(');
            let literal = matches!(t.map(|t| &t.tok), Some(Tok::Str(_)));
            if format || literal {
                // The expression's extent: the literal, or the whole `format!(..)`, maybe
                // followed by `.to_string()`, `.into()`, `.to_owned()`.
                let mut end = if format {
                    closing(self.toks, i + 2) + 1
                } else {
                    i + 1
                };
                if is(self.toks.get(end), '.')
                    && matches!(
                        ident(self.toks.get(end + 1)),
                        Some("to_string" | "into" | "to_owned")
                    )
                {
                    end += 4;
                }
                let prev = i.checked_sub(1).map(|p| &self.toks[p]);
                let after_arrow = i >= 2 && is(self.toks.get(i - 2), '=') && is(prev, '>');
                // It is a value: it starts the expression, a block or a match arm's value,
                // and ends it.
                let starts = i == from || is(prev, '{') || after_arrow;
                let ends = end >= to
                    || is(self.toks.get(end), '}')
                    || (after_arrow && is(self.toks.get(end), ','));
                if starts && ends {
                    if format {
                        if matches!(self.toks.get(i + 3).map(|t| &t.tok), Some(Tok::Str(_))) {
                            self.flag(i + 3, true, place);
                        }
                    } else {
                        self.flag(i, false, place);
                    }
                }
                if format {
                    // The format's arguments are not shown as they are.
                    i = closing(self.toks, i + 2) + 1;
                    continue;
                }
            }
            i += 1;
        }
    }

    /// Every `html!` body of the file, and every `Notice::plain` of a literal.
    fn file(&mut self) {
        let toks = self.toks;
        for i in 0..toks.len() {
            if ident(toks.get(i)) == Some("html")
                && is(toks.get(i + 1), '!')
                && matches!(
                    toks.get(i + 2).map(|t| &t.tok),
                    Some(Tok::Punct('{' | '(' | '['))
                )
            {
                let close = closing(toks, i + 2);
                self.bodies += 1;
                self.markup(i + 3, close);
            }
            if ident(toks.get(i)) == Some("Notice")
                && is(toks.get(i + 1), ':')
                && is(toks.get(i + 2), ':')
                && ident(toks.get(i + 3)) == Some("plain")
                && is(toks.get(i + 4), '(')
            {
                let close = closing(toks, i + 4);
                let first = i + 5;
                // The first argument up to a top-level comma.
                let mut j = first;
                while j < close && !is(toks.get(j), ',') {
                    if matches!(toks[j].tok, Tok::Punct('(' | '[' | '{')) {
                        j = closing(toks, j);
                    }
                    j += 1;
                }
                self.value(first, j, "a notice");
            }
        }
    }
}

/// The literals of `src` in positions a user reads, and how many `html!` bodies it has.
fn scan(src: &str) -> (Vec<Found>, usize) {
    let toks = tokenize(src);
    let mut scan = Scan {
        toks: &toks,
        found: Vec::new(),
        bodies: 0,
    };
    scan.file();
    (scan.found, scan.bodies)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn web_words_every_shown_string_of_the_page_is_a_catalogue_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("web/src"), &mut files);
    assert!(files.len() >= 40, "web/src's files were not found");
    let mut problems = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    let mut bodies = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let (found, n) = scan(&src);
        bodies += n;
        for f in found {
            problems.push(format!(
                "{shown}:{}: {:?} in {} is not from the catalogue: add a key to static/i18n/en.json and zh-CN.json and say it with t/tf",
                f.line, f.text, f.place
            ));
        }
        for (k, (text, _)) in ALLOWED.iter().enumerate() {
            if src.contains(&format!("{text:?}")) {
                used[k] = true;
            }
        }
    }
    // The page draws with well over a hundred `html!` bodies: fewer read means the
    // scanner lost its way, not that the page has no words.
    assert!(bodies >= 150, "only {bodies} html! bodies were read");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let stale: Vec<&str> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|((t, _), _)| *t)
        .collect();
    assert!(
        stale.is_empty(),
        "allowed but no longer in the page: {stale:?}"
    );
}

#[test]
fn web_words_a_planted_literal_is_caught() {
    let planted = r##"
// html! { <p>{ "Not code: a comment" }</p> }
fn view(x: bool) -> Html {
    let ok = html! { <p>{ t(K::AppTitle) }</p> };
    html! {
        <div class="words" data-testid="planted-words" title="Some words">
            <p>{ "Hello there" }</p>
            "Bare text"
            <span aria-label={format!("{} items left", n)}>{ tf(K::X, &[("name", &v)]) }</span>
            { count(n, "doc") }
            { if x { "Yes please" } else { "" } }
            if x { <b>{ "In a branch" }</b> }
            { match x { true => "Matched words", false => "·" } }
            <input placeholder={"Type here".to_string()} />
            <img alt=r#"A raw picture"# />
            { for xs.iter().map(|x| html! { <li>{ "Nested item" }</li> }) }
            <h1>{ "ShardLab" }</h1>{ " · " }{ "×" }
        </div>
    }
}
fn later() { let n = Notice::plain(format!("Something went {}", "wrong")); }
"##;
    let (found, bodies) = scan(planted);
    assert_eq!(bodies, 3, "the planted source's html! bodies");
    let found: Vec<(usize, String)> = found.into_iter().map(|f| (f.line, f.text)).collect();
    let want: Vec<(usize, String)> = [
        (6, "Some words"),
        (7, "Hello there"),
        (8, "Bare text"),
        (9, "{} items left"),
        (11, "Yes please"),
        (12, "In a branch"),
        (13, "Matched words"),
        (14, "Type here"),
        (15, "A raw picture"),
        (16, "Nested item"),
        (21, "Something went {}"),
    ]
    .iter()
    .map(|(l, t)| (*l, (*t).to_owned()))
    .collect();
    let mut found_sorted = found.clone();
    found_sorted.sort();
    assert_eq!(found_sorted, want, "found {found:?}");
}
