//! Where each document of a JSON import begins and ends, found without parsing it: a
//! scanner over bytes that follows strings, escapes and brackets, fed a slice at a
//! time, as mongo-tools' `json.Decoder.ScanObject` finds one object at a time
//! (`mongoimport/json.go`). Each record's text is then read by the shell's Extended
//! JSON reader, once.
//!
//! Two shapes:
//!
//! - **lines** (`mongoexport`'s output): one document after another, usually one a
//!   line; a document may span lines (`mongoexport --pretty`). A line that starts with
//!   `{` in its first column always starts a new document, so a document cut short
//!   (a truncated line) costs that document alone, not the next;
//! - **array** (`mongoexport --jsonArray`, any JSON array): the elements of one
//!   top-level array, each a record.

/// The longest record the scanner holds, in bytes: the shell reads at most 16 MiB as
/// one text. A longer record is refused and its bytes dropped as they are scanned.
pub const MAX_RECORD_BYTES: usize = crate::shell::MAX_SCRIPT_BYTES;

/// One record's text, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonRecord {
    /// A record's bytes, with the line and column (1-based, in bytes) it starts at.
    Text {
        /// Its first line.
        line: u64,
        /// Its first column.
        column: u64,
        /// Its bytes, exactly as in the file.
        bytes: Vec<u8>,
    },
    /// Something that is no record.
    Error {
        /// The line it was found on.
        line: u64,
        /// Why, in mongoimport's words where it has them.
        message: String,
    },
}

/// Which shape the scanner reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Documents one after another.
    Lines,
    /// The elements of one array.
    Array,
}

/// Where the scanner stands in an array's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Before the opening bracket.
    Open,
    /// Inside the array, before an element.
    Element,
    /// After an element, before `,` or `]`.
    Separator,
    /// After the closing bracket.
    Closed,
}

/// The record scanner.
#[derive(Debug)]
pub struct JsonScanner {
    shape: Shape,
    frame: Frame,
    buf: Vec<u8>,
    /// How far `buf` has been scanned.
    pos: usize,
    /// Where the record in progress starts in `buf`, when one is.
    start: Option<usize>,
    start_line: u64,
    start_column: u64,
    /// Bracket depth inside the record, and the string state.
    depth: u64,
    in_string: bool,
    escaped: bool,
    /// Whether the record in progress grew past [`MAX_RECORD_BYTES`] (its bytes are
    /// dropped), and how many it has had.
    oversized: bool,
    record_len: usize,
    line: u64,
    column: u64,
    /// Errors of the array's frame found while scanning.
    errors: Vec<JsonRecord>,
    /// Whether the rest of the input is ignored (the array's frame is broken).
    skipping: bool,
}

impl JsonScanner {
    /// A scanner for one shape.
    pub fn new(shape: Shape) -> Self {
        JsonScanner {
            shape,
            frame: Frame::Open,
            buf: Vec::new(),
            pos: 0,
            start: None,
            start_line: 0,
            start_column: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            oversized: false,
            record_len: 0,
            line: 1,
            column: 1,
            errors: Vec::new(),
            skipping: false,
        }
    }

    /// Adds a slice of the file.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.skipping {
            return;
        }
        // What lies before the record in progress (or before the position, between
        // records) has been handed out.
        let keep_from = self.start.unwrap_or(self.pos);
        if keep_from > 0 && keep_from >= self.buf.len() / 2 {
            self.buf.drain(..keep_from);
            self.pos -= keep_from;
            if let Some(s) = &mut self.start {
                *s -= keep_from;
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next record whose end has arrived; `eof` says no more bytes will come.
    pub fn next_record(&mut self, eof: bool) -> Option<JsonRecord> {
        loop {
            if !self.errors.is_empty() {
                return Some(self.errors.remove(0));
            }
            if self.start.is_some() {
                self.skip_plain();
            }
            let Some(&b) = self.buf.get(self.pos) else {
                return if eof { self.at_end() } else { None };
            };
            if self.start.is_none() {
                if let Some(record) = self.between(b) {
                    return Some(record);
                }
                continue;
            }
            // The column-0 rule of lines: a line starting with `{` begins a document,
            // so one left open before it ends at that line's start.
            if b == b'\n' && self.shape == Shape::Lines && !self.in_string && self.depth > 0 {
                match self.buf.get(self.pos + 1) {
                    None if !eof => return None,
                    Some(b'{') => {
                        let record = self.take_record(self.pos);
                        self.advance(b);
                        return Some(record);
                    }
                    _ => {}
                }
            }
            if let Some(record) = self.inside(b) {
                return Some(record);
            }
        }
    }

    /// Moves through the record in progress for as long as [`JsonScanner::inside`] would
    /// only follow its strings, escapes and brackets, all on the current line, and stops
    /// at the first byte that may end the record or needs the whole rule: a line break,
    /// a bracket closing the record, an array's separator. This is the scan's hot loop,
    /// the same state changes as `inside` makes byte by byte. It stops short of
    /// [`MAX_RECORD_BYTES`], whose crossing `advance` sees byte by byte.
    fn skip_plain(&mut self) {
        let room = MAX_RECORD_BYTES.saturating_sub(self.record_len);
        let rest = self.buf.get(self.pos..).unwrap_or_default();
        let rest = &rest[..rest.len().min(room)];
        let commas = self.shape == Shape::Array;
        let (mut in_string, mut escaped, mut depth) = (self.in_string, self.escaped, self.depth);
        let mut n = 0;
        for &b in rest {
            if b == b'\n' {
                break;
            }
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                }
            } else {
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' if depth > 1 => depth -= 1,
                    b'}' | b']' => break,
                    b',' if commas && depth == 0 => break,
                    _ => {}
                }
            }
            n += 1;
        }
        (self.in_string, self.escaped, self.depth) = (in_string, escaped, depth);
        self.pos += n;
        self.column += n as u64;
        self.record_len += n;
    }

    /// Moves past byte `b`, counting lines and columns.
    fn advance(&mut self, b: u8) {
        self.pos += 1;
        if b == b'\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        if self.start.is_some() {
            self.record_len += 1;
            if self.record_len > MAX_RECORD_BYTES {
                // What is held of the record is let go (the next `push` drops it); the
                // scan goes on to its end.
                self.oversized = true;
                self.start = Some(self.pos);
            }
        }
    }

    /// A byte between records: white space, the array's punctuation, or a record's
    /// first byte.
    fn between(&mut self, b: u8) -> Option<JsonRecord> {
        if b.is_ascii_whitespace() {
            self.advance(b);
            return None;
        }
        if self.shape == Shape::Array {
            match (self.frame, b) {
                (Frame::Open, b'[') => {
                    self.frame = Frame::Element;
                    self.advance(b);
                    return None;
                }
                (Frame::Open, _) => {
                    let line = self.line;
                    self.skip_rest();
                    return Some(JsonRecord::Error {
                        line,
                        message:
                            "bad JSON array format - found no opening bracket '[' in input source"
                                .into(),
                    });
                }
                (Frame::Element | Frame::Separator, b']') => {
                    self.frame = Frame::Closed;
                    self.advance(b);
                    return None;
                }
                (Frame::Separator, b',') => {
                    self.frame = Frame::Element;
                    self.advance(b);
                    return None;
                }
                (Frame::Closed, _) => {
                    let line = self.line;
                    let found = char::from(b);
                    self.skip_rest();
                    return Some(JsonRecord::Error {
                        line,
                        message: format!(
                            "bad JSON array format - found '{found}' after ']' in input source"
                        ),
                    });
                }
                (Frame::Separator, _) => {
                    // An element follows another without a comma: it is read all the
                    // same, and its own reading says what is wrong with it, if anything.
                    self.errors.push(JsonRecord::Error {
                        line: self.line,
                        message: format!(
                            "bad JSON array format - found '{}' outside JSON object/array in input source",
                            char::from(b)
                        ),
                    });
                    self.frame = Frame::Element;
                    return None;
                }
                (Frame::Element, _) => {}
            }
        }
        self.start = Some(self.pos);
        self.start_line = self.line;
        self.start_column = self.column;
        self.record_len = 0;
        self.oversized = false;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        None
    }

    /// A byte of a record.
    fn inside(&mut self, b: u8) -> Option<JsonRecord> {
        if self.in_string {
            match b {
                _ if self.escaped => self.escaped = false,
                b'\\' => self.escaped = true,
                b'"' => self.in_string = false,
                b'\n' => {
                    // A line break cannot be inside a JSON string: the record ends at it.
                    let record = self.take_record(self.pos);
                    self.advance(b);
                    return Some(record);
                }
                _ => {}
            }
            self.advance(b);
            return None;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.advance(b);
                    let record = self.take_record(self.pos);
                    if self.shape == Shape::Array {
                        self.frame = Frame::Separator;
                    }
                    return Some(record);
                }
            }
            // An array's scalar element ends at its separator.
            b',' | b']' if self.depth == 0 && self.shape == Shape::Array => {
                let record = self.take_record(self.pos);
                self.frame = Frame::Separator;
                return Some(record);
            }
            // A scalar or stray text on a line of its own ends at the line's end.
            b'\n' if self.depth == 0 => {
                let record = self.take_record(self.pos);
                self.advance(b);
                return Some(record);
            }
            _ => {}
        }
        self.advance(b);
        None
    }

    /// The record from its start to `end`.
    fn take_record(&mut self, end: usize) -> JsonRecord {
        let start = self.start.take().unwrap_or(end);
        let line = self.start_line;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        if self.oversized {
            self.oversized = false;
            return JsonRecord::Error {
                line,
                message: format!(
                    "the document's text is longer than {MAX_RECORD_BYTES} bytes, the most the shell reads at once"
                ),
            };
        }
        let mut bytes = self.buf.get(start..end).unwrap_or_default().to_vec();
        while bytes.last().is_some_and(u8::is_ascii_whitespace) {
            bytes.pop();
        }
        JsonRecord::Text {
            line,
            column: self.start_column,
            bytes,
        }
    }

    /// Skips to the end of the input (the array's frame is broken).
    fn skip_rest(&mut self) {
        self.frame = Frame::Closed;
        self.buf.clear();
        self.pos = 0;
        self.start = None;
        self.skipping = true;
    }

    /// The end of the input.
    fn at_end(&mut self) -> Option<JsonRecord> {
        if self.start.is_some() {
            let end = self.buf.len();
            let record = self.take_record(end);
            if self.shape == Shape::Array {
                self.frame = Frame::Separator;
            }
            return Some(record);
        }
        if self.shape == Shape::Array && matches!(self.frame, Frame::Element | Frame::Separator) {
            self.frame = Frame::Closed;
            return Some(JsonRecord::Error {
                line: self.line,
                message: "bad JSON array format - found no closing bracket ']' in input source"
                    .into(),
            });
        }
        None
    }
}
