//! `$regex` through the `fancy-regex` crate: PCRE's syntax as MongoDB uses it (options
//! `i`, `m`, `s`, `x`, `u`), back-references and look-around included, matched under a
//! bound so that a pattern either matches, does not, or fails with an error: never a
//! silent "no match" for a search cut short.
//!
//! `fancy-regex` hands every part of a pattern that needs no backtracking to the `regex`
//! crate's automata, which run in time linear in the subject, and backtracks only for
//! back-references, look-around, atomic groups and possessive quantifiers, under a limit
//! per match ([`BACKTRACK_LIMIT`]). Each match also charges the statement's work budget
//! (`support::budget`), so many cheap matches cannot add up past it either.
//!
//! The pattern is rewritten before the crate reads it where PCRE and the crate read
//! the same text differently: `\d`, `\w`, `\s` and the word boundaries `\b`, `\B` are
//! ASCII in PCRE (MongoDB compiles with UTF but not UCP: `flagsToPcreOptions` in
//! MongoDB's `src/mongo/util/regex_util.cpp` sets only UTF and the letters' options),
//! `\Q...\E` quotes, a `{` that starts no quantifier is a literal, and
//! counts past 65,535 are PCRE's error. ARCHITECTURE.md ("Known differences") lists the
//! PCRE features the crate lacks; such a pattern fails with MongoDB's code 51091.

use crate::support::budget;
use crate::values::error::ClusterError;
use bson::Bson;
use std::sync::Arc;

/// The most backtracking steps one match may take: a match that needs more fails with
/// the time-limit error rather than answering "no match". A tenth of PCRE2's default
/// `match_limit` (10,000,000), since `fancy-regex` counts coarser steps and a statement
/// may match thousands of documents: a match at the limit takes a few milliseconds.
pub const BACKTRACK_LIMIT: usize = 200_000;

/// The backtracking steps of a first, cheap try at a match that may backtrack. Most
/// matches finish within it and are charged that much at most; one that does not is
/// charged the whole [`BACKTRACK_LIMIT`] before the full search runs, so the statement's
/// budget bounds how many full searches it makes (250 in 50 million units), however
/// many documents it tests.
pub const PROBE_LIMIT: usize = 2_000;

/// PCRE's largest count in a `{n,m}` quantifier (`MAX_REPEAT_COUNT`).
pub const MAX_REPEAT_COUNT: u32 = 65_535;

/// A compiled pattern, whatever compiled it (see [`Compiler`]).
pub trait Matcher: Send + Sync {
    /// Whether the pattern matches somewhere in `text`; `None` when the search passed its
    /// backtracking limit.
    fn is_match(&self, text: &str) -> Option<bool>;
}

/// What compiles a rewritten pattern under a backtracking limit, or says why it does not
/// compile: [`fancy_compile`]. With the `lazy-regex` feature the core does not name it
/// itself: the browser's engine installs it (`install_compiler`) from the part of its
/// module that loads after the first answer, so that the `regex` crates' automata and
/// Unicode tables are not in the first download.
pub type Compiler = fn(&str, usize) -> Result<Box<dyn Matcher>, String>;

#[cfg(feature = "lazy-regex")]
static COMPILER: crate::support::part::Later<Compiler> = crate::support::part::Later::new();

/// Installs the compiler every `$regex` uses from now on (the first one installed stays).
#[cfg(feature = "lazy-regex")]
pub fn install_compiler(compiler: Compiler) {
    COMPILER.install(compiler);
}

/// Whether `$regex` can compile now: always, but with `lazy-regex` only once the
/// compiler is installed.
pub fn compiler_ready() -> bool {
    #[cfg(feature = "lazy-regex")]
    return COMPILER.ready();
    #[cfg(not(feature = "lazy-regex"))]
    true
}

#[cfg(feature = "lazy-regex")]
fn compile(source: &str, limit: usize) -> Result<Box<dyn Matcher>, ClusterError> {
    if let Some(compiler) = COMPILER.get() {
        return compiler(source, limit).map_err(invalid);
    }
    // Raised while the filter is read, before the statement does anything.
    Err(part_not_loaded("regular expressions", "them"))
}

/// The error of a statement that needs a part of the browser's engine (`what`, referred
/// to as `it_or_them`: "them" is plural) that has not loaded, with the reason it could
/// not when it tried (`support::part::failed`: one part holds everything the core's
/// `lazy-` features leave out). The engine, seeing the part wanted
/// (`support::part::take_wanted`), loads it and runs the request again, so this error is
/// seen only where the part could not load, or by a host that does not run requests again.
#[cfg(any(
    feature = "lazy-regex",
    feature = "lazy-analyze",
    feature = "lazy-explain",
    feature = "lazy-shell"
))]
pub(crate) fn part_not_loaded(what: &str, it_or_them: &str) -> ClusterError {
    let have = if it_or_them == "them" { "have" } else { "has" };
    ClusterError::PartNotLoaded(match crate::support::part::failure() {
        Some(why) => format!(
            "this statement needs the engine's {what}, which could not load ({why}): it did \
             not run, and the next statement that needs {it_or_them} tries again"
        ),
        None => format!(
            "this statement needs the engine's {what}, which {have} not loaded yet: it did not \
             run"
        ),
    })
}

#[cfg(not(feature = "lazy-regex"))]
fn compile(source: &str, limit: usize) -> Result<Box<dyn Matcher>, ClusterError> {
    fancy_compile(source, limit).map_err(invalid)
}

/// The `fancy-regex` [`Compiler`].
pub fn fancy_compile(source: &str, limit: usize) -> Result<Box<dyn Matcher>, String> {
    fancy_regex::RegexBuilder::new(source)
        .backtrack_limit(limit)
        .build()
        .map(|r| Box::new(Fancy(r)) as Box<dyn Matcher>)
        .map_err(|e| crate_message(&e))
}

struct Fancy(fancy_regex::Regex);

impl Matcher for Fancy {
    fn is_match(&self, text: &str) -> Option<bool> {
        self.0.is_match(text).ok()
    }
}

/// A regular expression from a filter, compiled.
#[derive(Clone)]
pub struct Regex {
    /// The pattern as written.
    pub pattern: String,
    /// The option letters as written.
    pub options: String,
    /// The compiled form.
    compiled: Arc<dyn Matcher>,
    /// For a pattern that needs the backtracking matcher (back-references,
    /// look-around, atomic groups), the same pattern under [`PROBE_LIMIT`].
    probe: Option<Arc<dyn Matcher>>,
}

impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regex")
            .field("pattern", &self.pattern)
            .field("options", &self.options)
            .field("backtracks", &self.probe.is_some())
            .finish()
    }
}

impl PartialEq for Regex {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.options == other.options
    }
}

impl Regex {
    /// Compiles a pattern with its options, with MongoDB's errors: 51108 for an option
    /// letter PCRE does not take, 51091 for a pattern that does not compile.
    pub fn new(pattern: &str, options: &str) -> Result<Self, ClusterError> {
        let mut flags = String::new();
        for o in options.chars() {
            match o {
                'i' | 'm' | 's' | 'x' => flags.push(o),
                // UTF mode is always on.
                'u' => {}
                _ => {
                    return Err(ClusterError::Location51108(format!(
                        "invalid flag in regex options: {o}"
                    )))
                }
            }
        }
        let rewritten = rewrite(pattern, flags.contains('m')).map_err(invalid)?;
        let source = if flags.is_empty() {
            rewritten.text
        } else {
            format!("(?{flags}){}", rewritten.text)
        };
        let build = |limit| compile(&source, limit).map(Arc::from);
        let compiled = build(BACKTRACK_LIMIT)?;
        let probe = rewritten
            .backtracks
            .then(|| build(PROBE_LIMIT))
            .transpose()?;
        Ok(Regex {
            pattern: pattern.to_owned(),
            options: options.to_owned(),
            compiled,
            probe,
        })
    }

    /// Whether the pattern matches somewhere in `text`, charging the statement's budget;
    /// fails with `MaxTimeMSExpired` when the budget or the backtracking limit is spent.
    pub fn is_match(&self, text: &str) -> Result<bool, ClusterError> {
        let len = text.len() as u64 + 1;
        if let Some(probe) = &self.probe {
            // The subject once per pattern byte: an estimate of a short search's steps,
            // at most what the probe may take.
            let estimate = len * (self.pattern.len() as u64 + 1);
            budget::charge(estimate.min(PROBE_LIMIT as u64))?;
            if let Some(found) = probe.is_match(text) {
                return Ok(found);
            }
            budget::charge(BACKTRACK_LIMIT as u64)?;
        } else {
            budget::charge(len)?;
        }
        self.compiled
            .is_match(text)
            .ok_or_else(|| budget::Exhausted.into())
    }

    /// Whether a value matches: a string (or symbol) the pattern finds, or the very
    /// same regular expression stored as a value.
    pub(super) fn matches_value(&self, value: &Bson) -> Result<bool, ClusterError> {
        match value {
            Bson::String(s) | Bson::Symbol(s) => self.is_match(s),
            Bson::RegularExpression(r) => {
                Ok(r.pattern.as_str() == self.pattern && r.options.as_str() == self.options)
            }
            _ => Ok(false),
        }
    }
}

/// MongoDB's error for a pattern that does not compile.
fn invalid(why: String) -> ClusterError {
    ClusterError::Location51091(format!("Regular expression is invalid: {why}"))
}

/// The crate's reason for refusing a pattern, in PCRE's words where they are known,
/// else the innermost cause the crate gives.
fn crate_message(e: &fancy_regex::Error) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    let text = cause.to_string();
    // `regex-syntax` draws the pattern with a caret; its last line says what is wrong.
    let text = match text.lines().rev().find_map(|l| l.strip_prefix("error: ")) {
        Some(line) => line.to_string(),
        None => text,
    };
    let known = [
        (
            "Invalid character class",
            "missing terminating ] for character class",
        ),
        ("without closing parenthesis", "missing closing parenthesis"),
        ("end of string not reached", "unmatched closing parenthesis"),
        (
            "invalid character class range",
            "range out of order in character class",
        ),
        (
            "Target of repeat operator is invalid",
            "quantifier does not follow a repeatable item",
        ),
        // The crate hides the automaton builder's reason (a bad range, an unknown
        // property name, a pattern too large to compile).
        (
            "error parsing pattern",
            "the pattern does not compile (ShardLab's engine)",
        ),
        ("exceeds size limit", "regular expression is too large"),
    ];
    known
        .iter()
        .find(|(crate_text, _)| text.contains(crate_text))
        .map_or(text.clone(), |(_, pcre)| (*pcre).to_string())
}

/// PCRE's `$` without the `m` option (and `\Z`): the end of the subject or just before
/// a newline that ends it. The crate's `$` is the end only; taking the newline in is
/// the same answer to "is there a match", which is all `$regex` asks.
const END_OF_SUBJECT: &str = "(?:\\n?\\z)";

/// A pattern rewritten for the crate.
struct Rewritten {
    text: String,
    backtracks: bool,
}

/// Rewrites PCRE syntax the crate reads differently (see the module's comment) and
/// notes whether the pattern needs backtracking.
fn rewrite(pattern: &str, multiline: bool) -> Result<Rewritten, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut backtracks = false;
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("\\ at end of pattern".to_string());
                };
                i += 2;
                if next == 'Q' {
                    i = quote(&chars, i, &mut out);
                    continue;
                }
                if next == 'Z' && !in_class {
                    out.push_str(END_OF_SUBJECT);
                    continue;
                }
                if let Some((code, end)) = code_escape(next, &chars, i) {
                    out.push_str(&code);
                    i = end;
                    continue;
                }
                match (next, in_class) {
                    // `\b` and `\B` stand on ASCII word characters, as `\w` does; in a
                    // class `\b` is a backspace.
                    ('b', false) | ('B', false) => {
                        out.push_str(word_boundary(next == 'B'));
                        backtracks = true;
                        continue;
                    }
                    ('b', true) => {
                        out.push_str("\\x{8}");
                        continue;
                    }
                    // PCRE reads a backslash before a character that is neither a letter
                    // nor a digit as that character; the crate reads `\<` and `\>` as
                    // word boundaries.
                    ('<' | '>', _) => {
                        out.push(next);
                        continue;
                    }
                    _ => {}
                }
                if next.is_ascii_digit() && next != '0' || matches!(next, 'k' | 'g') {
                    backtracks = !in_class || backtracks;
                }
                out.push_str(&ascii_class(next, in_class).unwrap_or_else(|| format!("\\{next}")));
                // `\p{L}`, `\x{263a}`, `\g{1}`, `\k{name}`: the braces belong to the escape.
                if matches!(next, 'p' | 'P' | 'x' | 'g' | 'k' | 'o' | 'N')
                    && chars.get(i) == Some(&'{')
                {
                    while let Some(&c) = chars.get(i) {
                        out.push(c);
                        i += 1;
                        if c == '}' {
                            break;
                        }
                    }
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                // A `]` (after an optional `^`) first in a class is a literal.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                continue;
            }
            // A POSIX class (`[:alpha:]`, ASCII as in PCRE without UCP) is copied whole.
            '[' if chars.get(i + 1) == Some(&':') => {
                let end = chars[i + 2..]
                    .windows(2)
                    .position(|w| w == [':', ']'])
                    .map_or(chars.len(), |p| i + 2 + p + 2);
                out.extend(&chars[i..end]);
                i = end;
                continue;
            }
            '[' => out.push_str("\\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '(' if !in_class && chars.get(i + 1) == Some(&'?') => {
                let kind: String = chars[i + 2..chars.len().min(i + 4)].iter().collect();
                if let Some(what) = unsupported_group(&kind) {
                    return Err(format!("{what} is not supported by ShardLab"));
                }
                if kind.starts_with('=')
                    || kind.starts_with('!')
                    || kind.starts_with('>')
                    || kind.starts_with('(')
                    || kind.starts_with("P=")
                    || kind == "<="
                    || kind == "<!"
                {
                    backtracks = true;
                }
                out.push('(');
            }
            '{' if !in_class => match quantifier(&chars, i)? {
                Some(end) => {
                    out.extend(&chars[i..end]);
                    i = end;
                    if chars.get(i) == Some(&'+') {
                        backtracks = true;
                    }
                    continue;
                }
                None => out.push_str("\\{"),
            },
            '}' if !in_class => out.push_str("\\}"),
            '$' if !in_class && !multiline => out.push_str(END_OF_SUBJECT),
            '*' | '+' | '?' if !in_class && chars.get(i + 1) == Some(&'+') => {
                backtracks = true;
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Ok(Rewritten {
        text: out,
        backtracks,
    })
}

/// The PCRE group kinds the crate lacks, by the two characters after `(?`: recursion
/// and subroutine calls (`(?R)`, `(?1)`, `(?+1)`, `(?&name)`, `(?P>name)`), callouts
/// and backtracking verbs. `(?R` must not reach the crate, which reads `R` as a flag.
fn unsupported_group(kind: &str) -> Option<&'static str> {
    let mut it = kind.chars();
    let (first, second) = (it.next()?, it.next());
    match (first, second) {
        ('R', _) | ('&', _) | ('P', Some('>')) => Some("recursion"),
        ('+' | '-', Some(d)) if d.is_ascii_digit() => Some("a subroutine call"),
        (d, _) if d.is_ascii_digit() => Some("a subroutine call"),
        ('C', _) => Some("a callout"),
        _ => None,
    }
}

/// Copies `\Q...\E`'s text (from `i`, just past `\Q`) as escaped literals; returns
/// where the pattern goes on (past `\E`, or at the end).
fn quote(chars: &[char], mut i: usize, out: &mut String) -> usize {
    while i < chars.len() {
        if chars[i] == '\\' && chars.get(i + 1) == Some(&'E') {
            return i + 2;
        }
        let mut buf = [0u8; 4];
        out.push_str(&fancy_regex::escape(chars[i].encode_utf8(&mut buf)));
        i += 1;
    }
    i
}

/// PCRE's meaning of its class escapes, inside a class or out; `None` for any other
/// escape. `\d \w \s` are ASCII (MongoDB compiles without UCP); `\h` and `\v` are
/// horizontal and vertical white space, which the crate reads as a hex digit and a
/// vertical tab.
fn ascii_class(c: char, in_class: bool) -> Option<String> {
    let body = match c.to_ascii_lowercase() {
        'd' => "0-9",
        'w' => "0-9A-Za-z_",
        's' => "\\t\\n\\x0B\\x0C\\r ",
        'h' => "\\t \\xA0\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}",
        'v' => "\\n\\x0B\\x0C\\r\\x{85}\\x{2028}\\x{2029}",
        _ => return None,
    };
    let negated = c.is_ascii_uppercase();
    Some(match (in_class, negated) {
        (false, false) => format!("[{body}]"),
        (true, false) => body.to_string(),
        // Inside a class, a negated one nests (the crate takes `[x[^0-9]]`).
        (_, true) => format!("[^{body}]"),
    })
}

/// PCRE's `\b` (or, negated, `\B`) without UCP: a change between an ASCII word
/// character (`[0-9A-Za-z_]`) and anything else, the ends of the subject counting as
/// non-word. The crate's `\b` is Unicode's (it would put a boundary after `é`, PCRE does
/// not), so the assertion is spelled out as look-around over the ASCII class, outside
/// `i` (whose Unicode folding would add the Kelvin sign and the long s to the class).
fn word_boundary(negated: bool) -> &'static str {
    if negated {
        "(?-i:(?<=[0-9A-Za-z_])(?=[0-9A-Za-z_])|(?<![0-9A-Za-z_])(?![0-9A-Za-z_]))"
    } else {
        "(?-i:(?<=[0-9A-Za-z_])(?![0-9A-Za-z_])|(?<![0-9A-Za-z_])(?=[0-9A-Za-z_]))"
    }
}

/// PCRE's `\cX` (a control character) and `\0`, `\0o`, `\0oo` (octal), read from
/// `chars` at `i` just past the escape letter, as the crate's `\x{..}`; returns it and
/// where the pattern goes on.
fn code_escape(letter: char, chars: &[char], mut i: usize) -> Option<(String, usize)> {
    let code = match letter {
        'c' => {
            let x = chars.get(i)?.to_ascii_uppercase();
            i += 1;
            u32::from(x) ^ 0x40
        }
        '0' => {
            let mut n = 0;
            for _ in 0..2 {
                match chars.get(i).and_then(|c| c.to_digit(8)) {
                    Some(d) => n = n * 8 + d,
                    None => break,
                }
                i += 1;
            }
            n
        }
        _ => return None,
    };
    Some((format!("\\x{{{code:X}}}"), i))
}

/// Reads a `{n}`, `{n,}` or `{n,m}` quantifier at `i`: `Some(end)` past its `}`, `None`
/// when the brace starts no quantifier (PCRE then reads it as a literal), or PCRE's
/// error for counts too big or out of order.
fn quantifier(chars: &[char], i: usize) -> Result<Option<usize>, String> {
    let mut j = i + 1;
    let number = |j: &mut usize| -> Option<u64> {
        let start = *j;
        let mut n: u64 = 0;
        while let Some(d) = chars.get(*j).and_then(|c| c.to_digit(10)) {
            n = (n * 10 + u64::from(d)).min(u64::from(u32::MAX));
            *j += 1;
        }
        (*j > start).then_some(n)
    };
    let Some(min) = number(&mut j) else {
        return Ok(None);
    };
    let mut max = Some(min);
    if chars.get(j) == Some(&',') {
        j += 1;
        max = number(&mut j);
    }
    if chars.get(j) != Some(&'}') {
        return Ok(None);
    }
    let too_big = |n: u64| n > u64::from(MAX_REPEAT_COUNT);
    if too_big(min) || max.is_some_and(too_big) {
        return Err("number too big in {} quantifier".to_string());
    }
    if max.is_some_and(|m| m < min) {
        return Err("numbers out of order in {} quantifier".to_string());
    }
    Ok(Some(j + 1))
}
