//! A small backtracking regular expression matcher, enough for the patterns people
//! type in a playground: literals, `.`, classes (`[a-z]`, `[^0-9]`, `\d \w \s` and
//! their negations), anchors `^ $ \A \z`, word boundaries `\b \B`, groups
//! `( )` and `(?: )`, alternation `|` and the quantifiers `* + ? {n} {n,} {n,m}`
//! (lazy and possessive forms behave as greedy ones, which gives the same answer to
//! "is there a match"). Options: `i`, `m`, `s`, `x`. Back-references and look-around
//! are refused. A step budget keeps pathological patterns from running away.

use super::case_fold::{lower, upper};
use crate::values::error::ClusterError;
use bson::Bson;
use std::cell::Cell;

/// A regular expression from a filter, compiled by ShardLab's small matcher.
#[derive(Debug, Clone, PartialEq)]
pub struct Regex {
    /// The pattern as written.
    pub pattern: String,
    /// The option letters as written (`i`, `m`, `s`, `x` are understood).
    pub options: String,
    /// The compiled form.
    program: Program,
}

impl Regex {
    /// Compiles a pattern with its options, refusing syntax the matcher does not know.
    pub fn new(pattern: &str, options: &str) -> Result<Self, ClusterError> {
        let program = Program::compile(pattern, options).map_err(|why| {
            ClusterError::BadValue(format!(
                "Regular expression is invalid or not supported by ShardLab: {why}"
            ))
        })?;
        Ok(Regex {
            pattern: pattern.to_owned(),
            options: options.to_owned(),
            program,
        })
    }

    /// True when the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        self.program.is_match(text)
    }

    /// True when a value matches: a string (or symbol) the pattern finds, or the very
    /// same regular expression stored as a value.
    pub(super) fn matches_value(&self, value: &Bson) -> bool {
        match value {
            Bson::String(s) | Bson::Symbol(s) => self.is_match(s),
            Bson::RegularExpression(r) => {
                r.pattern.as_str() == self.pattern && r.options.as_str() == self.options
            }
            _ => false,
        }
    }
}

/// The most backtracking steps one match may take before giving up (no match).
const STEP_BUDGET: u32 = 1_000_000;

/// The deepest the backtracking may nest (each repetition round nests once), so
/// a long subject cannot exhaust the stack, natively or in wasm. A match that
/// would need deeper nesting backs off to fewer repetitions or fails.
const DEPTH_LIMIT: u32 = 1_000;

/// The deepest groups may nest in a pattern.
const GROUP_DEPTH_LIMIT: u32 = 50;

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
struct Program {
    /// The alternatives of the whole pattern.
    root: Vec<Vec<Node>>,
    /// `i`: ignore case.
    ignore_case: bool,
    /// `m`: `^` and `$` also match at line breaks.
    multiline: bool,
    /// `s`: `.` also matches a line break.
    dot_all: bool,
}

/// One element of a sequence.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// A literal character.
    Char(char),
    /// `.`.
    Any,
    /// A bracketed or escaped class; the flag negates it.
    Class(Vec<ClassItem>, bool),
    /// `^`, or `\A` when the flag is set (text start only).
    Start(bool),
    /// `$`, or `\z` when the flag is set (text end only).
    End(bool),
    /// `\b` (true) or `\B` (false).
    WordBoundary(bool),
    /// A group's alternatives.
    Group(Vec<Vec<Node>>),
    /// A repeated node with its minimum and optional maximum count.
    Repeat(Box<Node>, u32, Option<u32>),
}

/// One member of a character class.
#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    /// An inclusive character range (a single character is a range of one).
    Range(char, char),
    /// `\d` or, negated, `\D`.
    Digit(bool),
    /// `\w` or, negated, `\W`.
    Word(bool),
    /// `\s` or, negated, `\S`.
    Space(bool),
}

impl ClassItem {
    /// True when the character belongs to this member.
    fn contains(&self, c: char) -> bool {
        match self {
            ClassItem::Range(lo, hi) => *lo <= c && c <= *hi,
            ClassItem::Digit(neg) => c.is_ascii_digit() != *neg,
            ClassItem::Word(neg) => is_word(c) != *neg,
            ClassItem::Space(neg) => c.is_whitespace() != *neg,
        }
    }
}

/// PCRE's word characters.
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The pattern parser's state.
struct Parser {
    chars: Vec<char>,
    pos: usize,
    extended: bool,
    groups: u32,
}

impl Program {
    /// Parses a pattern with its option letters.
    fn compile(pattern: &str, options: &str) -> Result<Program, String> {
        for o in options.chars() {
            if !matches!(o, 'i' | 'm' | 's' | 'x' | 'u' | 'l') {
                return Err(format!("invalid flag in regex options: {o}"));
            }
        }
        let mut parser = Parser {
            chars: pattern.chars().collect(),
            pos: 0,
            extended: options.contains('x'),
            groups: 0,
        };
        let root = parser.alternation()?;
        if parser.pos < parser.chars.len() {
            return Err("unmatched closing parenthesis".to_owned());
        }
        Ok(Program {
            root,
            ignore_case: options.contains('i'),
            multiline: options.contains('m'),
            dot_all: options.contains('s'),
        })
    }

    /// True when the pattern matches somewhere in `text`.
    fn is_match(&self, text: &str) -> bool {
        let m = Matcher {
            program: self,
            text: text.chars().collect(),
            steps: Cell::new(0),
            depth: Cell::new(0),
        };
        (0..=m.text.len()).any(|start| m.alternatives(&self.root, start, &mut |_| true))
    }
}

impl Parser {
    /// The next character, skipping whitespace and comments in `x` mode.
    fn peek(&mut self) -> Option<char> {
        if self.extended {
            while let Some(&c) = self.chars.get(self.pos) {
                if c.is_whitespace() {
                    self.pos += 1;
                } else if c == '#' {
                    while self.chars.get(self.pos).is_some_and(|c| *c != '\n') {
                        self.pos += 1;
                    }
                } else {
                    break;
                }
            }
        }
        self.chars.get(self.pos).copied()
    }

    /// Takes the next raw character.
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        self.pos += 1;
        c
    }

    /// `seq | seq | ...` up to a `)` or the end.
    fn alternation(&mut self) -> Result<Vec<Vec<Node>>, String> {
        let mut branches = vec![self.sequence()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.sequence()?);
        }
        Ok(branches)
    }

    /// Atoms with their quantifiers up to `|`, `)` or the end.
    fn sequence(&mut self) -> Result<Vec<Node>, String> {
        let mut nodes = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            nodes.push(self.quantified(atom)?);
        }
        Ok(nodes)
    }

    /// One atom.
    fn atom(&mut self) -> Result<Node, String> {
        let c = self.bump().ok_or("unexpected end of pattern")?;
        Ok(match c {
            '.' => Node::Any,
            '^' => Node::Start(false),
            '$' => Node::End(false),
            '*' | '+' | '?' => {
                return Err("quantifier does not follow a repeatable item".to_owned())
            }
            '(' => {
                if self.chars.get(self.pos) == Some(&'?') {
                    if self.chars.get(self.pos + 1) == Some(&':') {
                        self.pos += 2;
                    } else {
                        return Err("look-around and other (? groups are not supported".to_owned());
                    }
                }
                self.groups += 1;
                if self.groups > GROUP_DEPTH_LIMIT {
                    return Err("groups are nested too deeply".to_owned());
                }
                let inner = self.alternation()?;
                self.groups -= 1;
                if self.bump() != Some(')') {
                    return Err("missing closing parenthesis".to_owned());
                }
                Node::Group(inner)
            }
            '[' => self.class()?,
            '\\' => self.escape()?,
            other => Node::Char(other),
        })
    }

    /// An escape outside a class.
    fn escape(&mut self) -> Result<Node, String> {
        let c = self.bump().ok_or("\\ at end of pattern")?;
        Ok(match c {
            'd' => Node::Class(vec![ClassItem::Digit(false)], false),
            'D' => Node::Class(vec![ClassItem::Digit(true)], false),
            'w' => Node::Class(vec![ClassItem::Word(false)], false),
            'W' => Node::Class(vec![ClassItem::Word(true)], false),
            's' => Node::Class(vec![ClassItem::Space(false)], false),
            'S' => Node::Class(vec![ClassItem::Space(true)], false),
            'b' => Node::WordBoundary(true),
            'B' => Node::WordBoundary(false),
            'A' => Node::Start(true),
            'z' | 'Z' => Node::End(true),
            '1'..='9' => return Err("back-references are not supported".to_owned()),
            other => Node::Char(simple_escape(other)),
        })
    }

    /// A bracketed class; the `[` is already taken.
    fn class(&mut self) -> Result<Node, String> {
        let mut negated = false;
        if self.chars.get(self.pos) == Some(&'^') {
            negated = true;
            self.pos += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = self
                .bump()
                .ok_or("missing terminating ] for character class")?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                let e = self.bump().ok_or("\\ at end of pattern")?;
                match e {
                    'd' | 'D' => {
                        items.push(ClassItem::Digit(e == 'D'));
                        continue;
                    }
                    'w' | 'W' => {
                        items.push(ClassItem::Word(e == 'W'));
                        continue;
                    }
                    's' | 'S' => {
                        items.push(ClassItem::Space(e == 'S'));
                        continue;
                    }
                    other => simple_escape(other),
                }
            } else {
                c
            };
            let is_range = self.chars.get(self.pos) == Some(&'-')
                && self.chars.get(self.pos + 1).is_some_and(|n| *n != ']');
            if is_range {
                self.pos += 1;
                let mut hi = self
                    .bump()
                    .ok_or("missing terminating ] for character class")?;
                if hi == '\\' {
                    hi = simple_escape(self.bump().ok_or("\\ at end of pattern")?);
                }
                if hi < lo {
                    return Err("range out of order in character class".to_owned());
                }
                items.push(ClassItem::Range(lo, hi));
            } else {
                items.push(ClassItem::Range(lo, lo));
            }
        }
        Ok(Node::Class(items, negated))
    }

    /// Wraps an atom in the quantifier that follows it, if any.
    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => {
                self.pos += 1;
                (0, None)
            }
            Some('+') => {
                self.pos += 1;
                (1, None)
            }
            Some('?') => {
                self.pos += 1;
                (0, Some(1))
            }
            Some('{') => match self.braces() {
                Some(bounds) => bounds,
                None => return Ok(atom),
            },
            _ => return Ok(atom),
        };
        if matches!(atom, Node::Start(_) | Node::End(_) | Node::WordBoundary(_)) {
            return Err("quantifier does not follow a repeatable item".to_owned());
        }
        // Lazy (`?`) and possessive (`+`) suffixes do not change whether a match exists.
        if matches!(self.chars.get(self.pos), Some('?' | '+')) {
            self.pos += 1;
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }

    /// Reads `{n}`, `{n,}` or `{n,m}`; anything else leaves `{` as a literal.
    fn braces(&mut self) -> Option<(u32, Option<u32>)> {
        let rest: String = self.chars.get(self.pos..)?.iter().collect();
        let end = rest.find('}')?;
        let body = rest.get(1..end)?;
        let (min, max) = match body.split_once(',') {
            None => {
                let n = body.parse().ok()?;
                (n, Some(n))
            }
            Some((a, "")) => (a.parse().ok()?, None),
            Some((a, b)) => (a.parse().ok()?, Some(b.parse().ok()?)),
        };
        if max.is_some_and(|m| m < min) || min > 1000 {
            return None;
        }
        self.pos += body.chars().count() + 2;
        Some((min, max))
    }
}

/// The character an escape such as `\n` or `\.` stands for.
fn simple_escape(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'f' => '\u{c}',
        'v' => '\u{b}',
        '0' => '\0',
        other => other,
    }
}

/// One run of a program over one text.
struct Matcher<'p> {
    program: &'p Program,
    text: Vec<char>,
    steps: Cell<u32>,
    depth: Cell<u32>,
}

impl Matcher<'_> {
    /// Tries each alternative at `i`, then the continuation.
    fn alternatives(
        &self,
        branches: &[Vec<Node>],
        i: usize,
        k: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        branches.iter().any(|b| self.sequence(b, i, k))
    }

    /// Matches a sequence at `i`, then the continuation.
    fn sequence(&self, seq: &[Node], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > STEP_BUDGET || self.depth.get() >= DEPTH_LIMIT {
            return false;
        }
        self.depth.set(self.depth.get() + 1);
        let found = self.sequence_inner(seq, i, k);
        self.depth.set(self.depth.get() - 1);
        found
    }

    /// The body of [`Matcher::sequence`], inside the depth accounting.
    fn sequence_inner(&self, seq: &[Node], i: usize, k: &mut dyn FnMut(usize) -> bool) -> bool {
        let Some((node, rest)) = seq.split_first() else {
            return k(i);
        };
        match node {
            Node::Group(branches) => {
                self.alternatives(branches, i, &mut |j| self.sequence(rest, j, k))
            }
            Node::Repeat(inner, min, max)
                if !matches!(**inner, Node::Group(_) | Node::Repeat(..)) =>
            {
                // A repeated single character: find the longest run iteratively,
                // then back off one at a time, without nesting.
                let mut ends = vec![i];
                let mut at = i;
                while max.is_none_or(|m| ends.len() <= m as usize) {
                    match self.single(inner, at) {
                        Some(next) if next != at => {
                            at = next;
                            ends.push(at);
                        }
                        _ => break,
                    }
                }
                let min = *min as usize;
                (min..ends.len())
                    .rev()
                    .any(|count| ends.get(count).is_some_and(|e| self.sequence(rest, *e, k)))
            }
            Node::Repeat(inner, min, max) => self.repeat(inner, *min, *max, 0, i, rest, k),
            single => self
                .single(single, i)
                .is_some_and(|j| self.sequence(rest, j, k)),
        }
    }

    /// Greedy repetition: one more round of `inner` first, then the rest.
    #[allow(clippy::too_many_arguments)]
    fn repeat(
        &self,
        inner: &Node,
        min: u32,
        max: Option<u32>,
        count: u32,
        i: usize,
        rest: &[Node],
        k: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        if max.is_none_or(|m| count < m) {
            let more = self.sequence(std::slice::from_ref(inner), i, &mut |j| {
                // An empty round cannot make progress; stop once the minimum is met.
                (j != i || count < min) && self.repeat(inner, min, max, count + 1, j, rest, k)
            });
            if more {
                return true;
            }
        }
        count >= min && self.sequence(rest, i, k)
    }

    /// Matches a node that is neither a group nor a repetition; the position after it.
    fn single(&self, node: &Node, i: usize) -> Option<usize> {
        let p = self.program;
        let at = self.text.get(i).copied();
        let before = i.checked_sub(1).and_then(|b| self.text.get(b)).copied();
        match node {
            Node::Char(c) => at.filter(|t| self.same(*t, *c)).map(|_| i + 1),
            Node::Any => at.filter(|t| p.dot_all || *t != '\n').map(|_| i + 1),
            Node::Class(items, negated) => at
                .filter(|t| self.in_class(items, *t) != *negated)
                .map(|_| i + 1),
            Node::Start(strict) => {
                (i == 0 || (!strict && p.multiline && before == Some('\n'))).then_some(i)
            }
            Node::End(strict) => {
                let at_end = i == self.text.len();
                // PCRE's `$` also matches before a final line break.
                let before_final_newline = at == Some('\n') && i + 1 == self.text.len();
                (at_end
                    || (!strict && before_final_newline)
                    || (!strict && p.multiline && at == Some('\n')))
                .then_some(i)
            }
            Node::WordBoundary(want) => {
                let boundary = before.is_some_and(is_word) != at.is_some_and(is_word);
                (boundary == *want).then_some(i)
            }
            Node::Group(_) | Node::Repeat(..) => None,
        }
    }

    /// Character equality, ignoring case under `i`.
    fn same(&self, a: char, b: char) -> bool {
        a == b || (self.program.ignore_case && lower(a) == lower(b))
    }

    /// Class membership, ignoring case under `i`.
    fn in_class(&self, items: &[ClassItem], c: char) -> bool {
        let hit = |c: char| items.iter().any(|item| item.contains(c));
        hit(c) || (self.program.ignore_case && (hit(lower(c)) || hit(upper(c))))
    }
}
