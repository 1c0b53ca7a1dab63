//! CSV as `mongoimport --type csv` reads it: records found by mongo-tools' own CSV
//! reader (`mongoimport/csv/reader.go`, Go's old `encoding/csv` with
//! `TrimLeadingSpace` on and any number of fields per record), headers checked as
//! `validateFields` checks them, and each record turned into a document as
//! `tokensToBSON` does (`mongoimport/common.go`).
//!
//! The reader takes bytes a slice at a time and hands out each record once its end has
//! arrived, so a record's text is held once, whatever the slices.

use super::import_fields::{auto_parse, go_quote, ColumnSpec, ParseGrace};
use bson::{Bson, Document};
use std::collections::BTreeMap;

/// One record the reader found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvRecord {
    /// A record's fields, with the line it starts on.
    Fields {
        /// The record's first line (1-based).
        line: u64,
        /// Its fields, in order.
        fields: Vec<String>,
    },
    /// A record the reader could not read, where and why (Go's `ParseError`: the
    /// column counts characters from 0). The rest of that line is skipped.
    Error {
        /// The line of the error.
        line: u64,
        /// Its column, when it has one.
        column: Option<u64>,
        /// The reader's message (`bare " in non-quoted-field`).
        message: String,
    },
}

/// Where the reader stands inside a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between records.
    Between,
    /// At the start of a field, leading white space being skipped.
    FieldStart,
    /// In an unquoted field.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// Just after a quote inside a quoted field: the field's end or an escaped quote.
    AfterQuote,
    /// White space after a closing quote.
    AfterQuoteSpace,
    /// After an error, skipping to the end of the line.
    Skipping,
}

/// The longest record the reader holds, in bytes of field text: past it the record is
/// refused and its text dropped as it is read, so a file with a stray quote near its
/// start cannot hold the rest of the file in memory. MongoDB's documents are at most
/// 16 MiB.
pub const MAX_RECORD_BYTES: usize = 16 * 1024 * 1024;

/// mongo-tools' CSV reader, fed in slices.
#[derive(Debug)]
pub struct CsvReader {
    buf: Vec<u8>,
    pos: usize,
    state: State,
    fields: Vec<String>,
    field: String,
    /// White space inside an unquoted field, written only if more text follows.
    ws: String,
    /// The line the reader is on (Go's `r.line`) and the column of the last character
    /// read (`r.column`, a character count from 0; -1 before the first).
    line: u64,
    column: i64,
    record_line: u64,
    record_bytes: usize,
    error: Option<(u64, Option<u64>, String)>,
}

impl Default for CsvReader {
    fn default() -> Self {
        CsvReader {
            buf: Vec::new(),
            pos: 0,
            state: State::Between,
            fields: Vec::new(),
            field: String::new(),
            ws: String::new(),
            line: 0,
            column: -1,
            record_line: 0,
            record_bytes: 0,
            error: None,
        }
    }
}

/// One character read: a character (U+FFFD for a byte that is not UTF-8, as Go's
/// `ReadRune` gives), the end of the input, or the need for more bytes.
enum Read {
    Char(char, usize),
    End,
    More,
}

impl CsvReader {
    /// Adds a slice of the file.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos >= self.buf.len() / 2 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete record, if one has arrived; `eof` says no more bytes will come.
    pub fn next_record(&mut self, eof: bool) -> Option<CsvRecord> {
        loop {
            let (c, len) = match self.read(eof) {
                Read::More => return None,
                Read::End => return self.at_end(),
                Read::Char(c, len) => (c, len),
            };
            self.pos += len;
            if let Some(record) = self.step(c) {
                return Some(record);
            }
        }
    }

    /// Reads one character at the position, folding `\r\n` into `\n` as Go's `readRune`
    /// does, without moving.
    fn read(&self, eof: bool) -> Read {
        let rest = &self.buf[self.pos..];
        let Some(&first) = rest.first() else {
            return if eof { Read::End } else { Read::More };
        };
        if first == b'\r' {
            return match rest.get(1) {
                Some(b'\n') => Read::Char('\n', 2),
                Some(_) => Read::Char('\r', 1),
                None if eof => Read::Char('\r', 1),
                None => Read::More,
            };
        }
        if first < 0x80 {
            return Read::Char(char::from(first), 1);
        }
        let width = match first {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return Read::Char(char::REPLACEMENT_CHARACTER, 1),
        };
        if rest.len() < width {
            // A character cut by the slice's end waits for its other bytes, unless
            // what is there already cannot begin one.
            let valid_prefix = rest[1..].iter().all(|b| (0x80..0xC0).contains(b));
            return if eof || !valid_prefix {
                Read::Char(char::REPLACEMENT_CHARACTER, 1)
            } else {
                Read::More
            };
        }
        match std::str::from_utf8(&rest[..width]) {
            Ok(s) => s
                .chars()
                .next()
                .map_or(Read::Char(char::REPLACEMENT_CHARACTER, 1), |c| {
                    Read::Char(c, width)
                }),
            Err(_) => Read::Char(char::REPLACEMENT_CHARACTER, 1),
        }
    }

    /// The end of the input: the record in progress ends there.
    fn at_end(&mut self) -> Option<CsvRecord> {
        // Go's `readRune` counts a column even for the end of the input.
        self.column += 1;
        match self.state {
            State::Between => None,
            State::Skipping => self.finish_error(),
            State::Quoted => {
                self.fail("extraneous \" in field");
                self.finish_error()
            }
            State::FieldStart => {
                // A field begun on this line (after a comma or white space) is an empty
                // field; a record that has read nothing is no record.
                if self.column != 0 || !self.fields.is_empty() {
                    self.end_field();
                }
                self.finish_record()
            }
            State::Unquoted | State::AfterQuote | State::AfterQuoteSpace => {
                self.end_field();
                self.finish_record()
            }
        }
    }

    /// Takes one character; answers a record when it completes one.
    fn step(&mut self, c: char) -> Option<CsvRecord> {
        if self.state == State::Between {
            self.line += 1;
            self.column = -1;
            self.record_line = self.line;
            self.record_bytes = 0;
            self.state = State::FieldStart;
        }
        self.column += 1;
        self.record_bytes += c.len_utf8();
        if self.record_bytes > MAX_RECORD_BYTES && self.state != State::Skipping {
            self.field.clear();
            self.fields.clear();
            self.error = Some((
                self.record_line,
                None,
                format!("the record is longer than {MAX_RECORD_BYTES} bytes"),
            ));
            // A record this long is dropped to its end; inside quotes that end is the
            // closing quote's line, which the quoted state still finds.
            if self.state != State::Quoted && self.state != State::AfterQuote {
                self.state = State::Skipping;
            }
        }
        match self.state {
            State::Between => None,
            State::Skipping => (c == '\n').then(|| self.finish_error()).flatten(),
            State::FieldStart => match c {
                '\n' => {
                    // A line break as the line's first character is a blank line, which
                    // is no record; after white space it is a record of one empty field.
                    if self.column == 0 && self.fields.is_empty() {
                        self.state = State::Between;
                        None
                    } else {
                        self.end_field();
                        self.finish_record()
                    }
                }
                ',' => {
                    self.end_field();
                    None
                }
                '"' => {
                    self.state = State::Quoted;
                    None
                }
                c if c.is_whitespace() => None,
                c => {
                    self.push_char(c);
                    self.state = State::Unquoted;
                    None
                }
            },
            State::Unquoted => match c {
                ',' => {
                    self.end_field();
                    self.state = State::FieldStart;
                    None
                }
                '\n' => {
                    self.end_field();
                    self.finish_record()
                }
                '"' => {
                    self.fail("bare \" in non-quoted-field");
                    None
                }
                c if c.is_whitespace() => {
                    self.ws.push(c);
                    None
                }
                c => {
                    let ws = std::mem::take(&mut self.ws);
                    self.field.push_str(&ws);
                    self.push_char(c);
                    None
                }
            },
            State::Quoted => {
                match c {
                    '"' => self.state = State::AfterQuote,
                    '\n' => {
                        self.line += 1;
                        self.column = -1;
                        self.push_char(c);
                    }
                    c => self.push_char(c),
                }
                None
            }
            State::AfterQuote | State::AfterQuoteSpace => match c {
                '"' if self.state == State::AfterQuote => {
                    self.push_char('"');
                    self.state = State::Quoted;
                    None
                }
                ',' => {
                    self.end_field();
                    self.state = State::FieldStart;
                    None
                }
                '\n' => {
                    self.end_field();
                    self.finish_record()
                }
                c if c.is_whitespace() => {
                    self.state = State::AfterQuoteSpace;
                    None
                }
                _ => {
                    // Go reports the column before the offending character.
                    self.column -= 1;
                    self.fail("extraneous \" in field");
                    self.column += 1;
                    None
                }
            },
        }
    }

    fn push_char(&mut self, c: char) {
        if self.error.is_none() {
            self.field.push(c);
        }
    }

    fn end_field(&mut self) {
        self.ws.clear();
        let field = std::mem::take(&mut self.field);
        if self.error.is_none() {
            self.fields.push(field);
        }
        self.state = State::FieldStart;
    }

    /// A syntax error at the current line and column: the rest of the line is skipped.
    fn fail(&mut self, message: &str) {
        if self.error.is_none() {
            self.error = Some((
                self.line,
                u64::try_from(self.column).ok(),
                message.to_string(),
            ));
        }
        self.field.clear();
        self.fields.clear();
        self.state = State::Skipping;
    }

    fn finish_record(&mut self) -> Option<CsvRecord> {
        self.state = State::Between;
        self.ws.clear();
        if self.error.is_some() {
            return self.finish_error();
        }
        Some(CsvRecord::Fields {
            line: self.record_line,
            fields: std::mem::take(&mut self.fields),
        })
    }

    fn finish_error(&mut self) -> Option<CsvRecord> {
        self.state = State::Between;
        self.field.clear();
        self.fields.clear();
        self.ws.clear();
        let (line, column, message) = self.error.take()?;
        Some(CsvRecord::Error {
            line,
            column,
            message,
        })
    }
}

/// The header's fields checked as mongoimport's `validateFields` checks them (without
/// `--useArrayIndexFields`): no name starting or ending with `.`, starting with `$` or
/// holding `..`; no name twice; no name that is both a value and a document (`a` and
/// `a.b`). Errors are mongoimport's.
pub fn validate_fields(names: &[String]) -> Result<(), String> {
    for field in names {
        let q = go_quote(field);
        if field.ends_with('.') {
            return Err(format!("field {q} cannot end with a '.'"));
        }
        if field.starts_with('.') {
            return Err(format!("field {q} cannot start with a '.'"));
        }
        if field.starts_with('$') {
            return Err(format!("field {q} cannot start with a '$'"));
        }
        if field.contains("..") {
            return Err(format!(
                "field {q} cannot contain consecutive '.' characters"
            ));
        }
    }
    // Each path seen: a value (a whole field) or a document, with the first field that
    // went through it (the leaf `findFirstField` reaches, in header order).
    enum Node<'a> {
        Value,
        Document(&'a str),
    }
    let mut tree: BTreeMap<&str, Node> = BTreeMap::new();
    for field in names {
        let mut ends = field.match_indices('.').map(|(i, _)| i).collect::<Vec<_>>();
        ends.push(field.len());
        let last = ends.len() - 1;
        for (k, &end) in ends.iter().enumerate() {
            let prefix = &field[..end];
            match (tree.get(prefix), k == last) {
                (Some(Node::Value), true) => {
                    let q = go_quote(field);
                    return Err(format!("fields cannot be identical: {q} and {q}"));
                }
                (Some(Node::Value), false) => {
                    return Err(format!(
                        "fields {} and {} are incompatible",
                        go_quote(prefix),
                        go_quote(field)
                    ));
                }
                (Some(Node::Document(first)), true) => {
                    return Err(format!(
                        "fields {} and {} are incompatible",
                        go_quote(first),
                        go_quote(field)
                    ));
                }
                (Some(Node::Document(_)), false) => {}
                (None, true) => {
                    tree.insert(prefix, Node::Value);
                }
                (None, false) => {
                    tree.insert(prefix, Node::Document(field));
                }
            }
        }
    }
    Ok(())
}

/// Why a record did not become a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRefused(pub String);

/// A record's fields as a document (`tokensToBSON`): each field read by its column's
/// parser (what does not parse handled by the column's grace), dotted names as
/// embedded documents, fields past the header named `field<N>` and read as untyped
/// ones, empty fields left out only with `ignore_blanks`. `index` is the record's
/// position among the data records from 0, as mongoimport numbers documents.
pub fn tokens_to_document(
    columns: &[ColumnSpec],
    tokens: &[String],
    index: u64,
    ignore_blanks: bool,
) -> Result<Document, RowRefused> {
    let mut doc = Document::new();
    for (i, token) in tokens.iter().enumerate() {
        if token.is_empty() && ignore_blanks {
            continue;
        }
        let Some(column) = columns.get(i) else {
            let key = format!("field{i}");
            if columns.iter().any(|c| c.name == key) {
                return Err(RowRefused(format!(
                    "duplicate field name - on {key} - for token #{} ({}) in document #{index}",
                    i + 1,
                    go_quote(token)
                )));
            }
            doc.insert(key, auto_parse(token));
            continue;
        };
        let value = match column.parser.parse(token) {
            Some(v) => v,
            None => match column.grace {
                ParseGrace::AutoCast => auto_parse(token),
                ParseGrace::SkipField => continue,
                ParseGrace::SkipRow => {
                    return Err(RowRefused(format!(
                        "skipping row #{index}: [{}]",
                        tokens.join(" ")
                    )))
                }
                ParseGrace::Stop => {
                    return Err(RowRefused(format!(
                        "type coercion failure in document #{index} for column {}, could not parse token {} to type {}",
                        go_quote(&column.name),
                        go_quote(token),
                        column.type_name
                    )))
                }
            },
        };
        set_nested(&mut doc, &column.name, value);
    }
    Ok(doc)
}

/// Sets a dotted field (`setNestedDocumentValue`): each part but the last names an
/// embedded document, made where missing. The header was validated, so a part is never
/// a value already; if it were, the field would be left out.
fn set_nested(doc: &mut Document, name: &str, value: Bson) {
    let mut parts = name.split('.');
    let Some(mut key) = parts.next() else {
        return;
    };
    let mut current = doc;
    for next in parts {
        if !current.contains_key(key) {
            current.insert(key, Document::new());
        }
        match current.get_mut(key) {
            Some(Bson::Document(inner)) => current = inner,
            _ => return,
        }
        key = next;
    }
    current.insert(key, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str, slice: usize) -> Vec<CsvRecord> {
        let mut r = CsvReader::default();
        let mut out = Vec::new();
        for piece in text.as_bytes().chunks(slice.max(1)) {
            r.push(piece);
            while let Some(rec) = r.next_record(false) {
                out.push(rec);
            }
        }
        while let Some(rec) = r.next_record(true) {
            out.push(rec);
        }
        out
    }

    fn fields(line: u64, f: &[&str]) -> CsvRecord {
        CsvRecord::Fields {
            line,
            fields: f.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn records_are_read_as_mongo_tools_reads_them() {
        let text = "a, b ,c\r\n\n\"x\"\"y\",\"multi\nline\" , z \n  \n1,2,\n\"q\" \n last";
        let expected = vec![
            fields(1, &["a", "b", "c"]),
            fields(3, &["x\"y", "multi\nline", "z"]),
            fields(5, &[""]),
            fields(6, &["1", "2", ""]),
            fields(7, &["q"]),
            fields(8, &["last"]),
        ];
        for slice in [1, 2, 3, 7, 1000] {
            assert_eq!(records(text, slice), expected, "slices of {slice}");
        }
    }

    #[test]
    fn bad_quotes_are_reported_and_the_line_skipped() {
        let got = records("a\"b,c\nok\n\"x\"y,1\n\"open\nnever closed", 4);
        assert_eq!(
            got,
            vec![
                CsvRecord::Error {
                    line: 1,
                    column: Some(1),
                    message: "bare \" in non-quoted-field".into()
                },
                fields(2, &["ok"]),
                CsvRecord::Error {
                    line: 3,
                    column: Some(2),
                    message: "extraneous \" in field".into()
                },
                CsvRecord::Error {
                    line: 5,
                    column: Some(12),
                    message: "extraneous \" in field".into()
                },
            ]
        );
    }

    #[test]
    fn headers_are_validated_as_mongoimport_does() {
        let v = |names: &[&str]| {
            validate_fields(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(v(&["a", "b.c", "b.d", ""]), Ok(()));
        assert_eq!(v(&["a."]), Err("field `a.` cannot end with a '.'".into()));
        assert_eq!(v(&["$a"]), Err("field `$a` cannot start with a '$'".into()));
        assert_eq!(
            v(&["a..b"]),
            Err("field `a..b` cannot contain consecutive '.' characters".into())
        );
        assert_eq!(
            v(&["a", "a"]),
            Err("fields cannot be identical: `a` and `a`".into())
        );
        assert_eq!(
            v(&["a", "a.b"]),
            Err("fields `a` and `a.b` are incompatible".into())
        );
        assert_eq!(
            v(&["a.b.c", "a.b"]),
            Err("fields `a.b.c` and `a.b` are incompatible".into())
        );
    }
}
