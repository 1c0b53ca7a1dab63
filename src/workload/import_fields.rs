//! The typed fields of a CSV import, as `mongoimport --type csv` reads them
//! (mongo-tools `mongoimport/typed_fields.go`, `mongoimport/dateconv/dateconv.go`): a
//! column's type from its header (`name.int32()`, `ts.date_ms(yyyy-MM-dd)`), and each
//! field's text turned into a value, with Go's own number and date rules, since
//! mongoimport reads them with Go's `strconv` and `time.Parse`.

use crate::values::encoding::{days_from_civil, hex_decode, BASE64};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime};

/// A column's type (`columnType` in typed_fields.go). The discriminants are
/// mongo-tools' own, which its "does not support arguments" error prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// `auto()`: a number when the text reads as one, else a string.
    Auto = 0,
    /// `binary(base64|base32|hex)`.
    Binary = 1,
    /// `boolean()`: `true`, `1`, `false`, `0`.
    Boolean = 2,
    /// `date(layout)`: a Go `time.Parse` layout.
    Date = 3,
    /// `date_go(layout)`: the same.
    DateGo = 4,
    /// `date_ms(layout)`: a Microsoft SQL Server layout, turned into Go's.
    DateMs = 5,
    /// `date_oracle(layout)`: an Oracle layout, turned into Go's.
    DateOracle = 6,
    /// `double()`.
    Double = 7,
    /// `int32()`.
    Int32 = 8,
    /// `int64()`.
    Int64 = 9,
    /// `decimal()`.
    Decimal = 10,
    /// `string()`.
    String = 11,
}

impl ColumnType {
    /// The type a header names (`columnTypeNameMap`).
    fn from_name(name: &str) -> Option<ColumnType> {
        Some(match name {
            "auto" => ColumnType::Auto,
            "binary" => ColumnType::Binary,
            "boolean" => ColumnType::Boolean,
            "date" => ColumnType::Date,
            "decimal" => ColumnType::Decimal,
            "date_go" => ColumnType::DateGo,
            "date_ms" => ColumnType::DateMs,
            "date_oracle" => ColumnType::DateOracle,
            "double" => ColumnType::Double,
            "int32" => ColumnType::Int32,
            "int64" => ColumnType::Int64,
            "string" => ColumnType::String,
            _ => return None,
        })
    }
}

/// How a field's text becomes a value (`FieldParser`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldParser {
    /// `FieldAutoParser`.
    Auto,
    /// `FieldBinaryParser` with its encoding.
    Binary(BinaryEncoding),
    /// `FieldBooleanParser`.
    Boolean,
    /// `FieldDateParser` with a Go layout.
    Date(String),
    /// `FieldDoubleParser`.
    Double,
    /// `FieldInt32Parser`.
    Int32,
    /// `FieldInt64Parser`.
    Int64,
    /// `FieldDecimalParser`.
    Decimal,
    /// `FieldStringParser`.
    String,
}

/// The text encodings of a `binary()` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryEncoding {
    /// Standard base64 with padding.
    Base64,
    /// Standard base32 with padding.
    Base32,
    /// Hexadecimal digits.
    Hex,
}

/// What mongoimport does when a typed field's text does not parse (`--parseGrace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseGrace {
    /// `autoCast`: the text is read as an untyped column reads it.
    AutoCast,
    /// `skipField`: the field is left out.
    SkipField,
    /// `skipRow`: the row is not imported.
    SkipRow,
    /// `stop` (mongoimport's default): mongoimport stops the whole import; ShardLab
    /// reports the row with mongoimport's message and goes on with the next.
    #[default]
    Stop,
}

impl ParseGrace {
    /// The grace `--parseGrace` names (`ValidatePG`).
    pub fn parse(name: &str) -> Option<ParseGrace> {
        Some(match name {
            "autoCast" => ParseGrace::AutoCast,
            "skipField" => ParseGrace::SkipField,
            "skipRow" => ParseGrace::SkipRow,
            "stop" => ParseGrace::Stop,
            _ => return None,
        })
    }
}

/// One column of a CSV import (`ColumnSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The field's name, dotted for an embedded document.
    pub name: String,
    /// How its text is read.
    pub parser: FieldParser,
    /// What happens when the text does not parse.
    pub grace: ParseGrace,
    /// The type's name as the header spelled it (`auto` for untyped headers).
    pub type_name: String,
}

/// An untyped header's column (`ParseAutoHeaders`).
pub fn auto_column(name: &str) -> ColumnSpec {
    ColumnSpec {
        name: name.to_string(),
        parser: FieldParser::Auto,
        grace: ParseGrace::AutoCast,
        type_name: "auto".to_string(),
    }
}

/// A typed header's column (`ParseTypedHeader`), or mongoimport's error for it.
pub fn typed_column(header: &str, grace: ParseGrace) -> Result<ColumnSpec, String> {
    let Some((name, type_name, arg)) = split_typed_header(header) else {
        return Err(format!(
            "could not parse type from header {}",
            go_quote(header)
        ));
    };
    let Some(t) = ColumnType::from_name(type_name) else {
        return Err(format!(
            "invalid type {} in header {}",
            go_quote(type_name),
            go_quote(header)
        ));
    };
    let parser = field_parser(t, arg)?;
    Ok(ColumnSpec {
        name: name.to_string(),
        parser,
        grace,
        type_name: type_name.to_string(),
    })
}

/// `(?s)^(.*)\.(\w+)\((.*)\)$` as Go's regexp matches it: the name is as long as it can
/// be, so the type is the last `.word(` before a final `)`.
fn split_typed_header(header: &str) -> Option<(&str, &str, &str)> {
    let inner = header.strip_suffix(')')?;
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = inner.as_bytes();
    // The rightmost '.' followed by a run of word characters and a '('.
    for dot in (0..bytes.len()).rev() {
        if bytes[dot] != b'.' {
            continue;
        }
        let start = dot + 1;
        let mut end = start;
        while end < bytes.len() && is_word(bytes[end]) {
            end += 1;
        }
        if end > start && bytes.get(end) == Some(&b'(') {
            return Some((&inner[..dot], &inner[start..end], &inner[end + 1..]));
        }
    }
    None
}

/// `NewFieldParser`: the argument unescaped (`escapeReplacer`), refused for the types
/// that take none.
fn field_parser(t: ColumnType, arg: &str) -> Result<FieldParser, String> {
    let arg = unescape_argument(arg);
    let takes_argument = matches!(
        t,
        ColumnType::Binary
            | ColumnType::Date
            | ColumnType::DateGo
            | ColumnType::DateMs
            | ColumnType::DateOracle
    );
    if !takes_argument && !arg.is_empty() {
        // Go's `%v` of a columnType prints its number.
        return Err(format!("type {} does not support arguments", t as u8));
    }
    Ok(match t {
        ColumnType::Binary => FieldParser::Binary(match arg.as_str() {
            "base64" => BinaryEncoding::Base64,
            "base32" => BinaryEncoding::Base32,
            "hex" => BinaryEncoding::Hex,
            _ => return Err(format!("invalid binary encoding: {}", go_quote(&arg))),
        }),
        ColumnType::Boolean => FieldParser::Boolean,
        ColumnType::Date | ColumnType::DateGo => FieldParser::Date(arg),
        ColumnType::DateMs => FieldParser::Date(from_ms_layout(&arg)),
        ColumnType::DateOracle => FieldParser::Date(from_oracle_layout(&arg)),
        ColumnType::Double => FieldParser::Double,
        ColumnType::Int32 => FieldParser::Int32,
        ColumnType::Int64 => FieldParser::Int64,
        ColumnType::Decimal => FieldParser::Decimal,
        ColumnType::String => FieldParser::String,
        ColumnType::Auto => FieldParser::Auto,
    })
}

/// `strings.NewReplacer("\\\\", "\\", "\\(", "(", "\\)", ")", "\\", "")`: at each
/// position the first of those that matches, in that order.
fn unescape_argument(arg: &str) -> String {
    replace_in_order(
        arg,
        &[("\\\\", "\\"), ("\\(", "("), ("\\)", ")"), ("\\", "")],
    )
}

/// Go's `strings.Replacer` with several old strings: left to right through the text,
/// without overlaps, trying the pairs in their order at each position.
fn replace_in_order(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while !rest.is_empty() {
        for (old, new) in pairs {
            if let Some(after) = rest.strip_prefix(old) {
                out.push_str(new);
                rest = after;
                continue 'outer;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// `dateconv.FromMS`: a Microsoft layout as a Go layout.
pub fn from_ms_layout(layout: &str) -> String {
    replace_in_order(
        layout,
        &[
            ("dddd", "Monday"),
            ("ddd", "Mon"),
            ("dd", "02"),
            ("d", "2"),
            ("MMMM", "January"),
            ("MMM", "Jan"),
            ("MM", "01"),
            ("M", "1"),
            ("hh", "03"),
            ("h", "3"),
            ("HH", "15"),
            ("H", "15"),
            ("mm", "04"),
            ("m", "4"),
            ("ss", "05"),
            ("s", "5"),
            ("tt", "PM"),
            ("yyyy", "2006"),
            ("yyy", "2006"),
            ("yy", "06"),
            ("zzz", "-07:00"),
            ("zz", "-07"),
        ],
    )
}

/// `dateconv.FromOracle`: an Oracle layout (read in upper case) as a Go layout.
pub fn from_oracle_layout(layout: &str) -> String {
    replace_in_order(
        &layout.to_uppercase(),
        &[
            ("AM", "PM"),
            ("DAY", "Monday"),
            ("DY", "Mon"),
            ("DD", "02"),
            ("HH12", "03"),
            ("HH24", "15"),
            ("HH", "03"),
            ("MI", "04"),
            ("MONTH", "January"),
            ("MON", "Jan"),
            ("MM", "01"),
            ("SS", "05"),
            ("TZD", "MST"),
            ("TZH:TZM", "-07:00"),
            ("TZH", "-07"),
            ("YYYY", "2006"),
            ("YY", "06"),
        ],
    )
}

/// Go's `%#q` of a string: back-quoted when `strconv.CanBackquote` allows, else
/// double-quoted with escapes.
pub fn go_quote(s: &str) -> String {
    let can_backquote = s
        .chars()
        .all(|c| c == '\t' || !(c == '`' || c == '\u{FEFF}' || c.is_control()));
    if can_backquote {
        format!("`{s}`")
    } else {
        format!("\"{}\"", s.escape_debug())
    }
}

impl FieldParser {
    /// The field's value, or `None` when its text does not read as the column's type.
    pub fn parse(&self, text: &str) -> Option<Bson> {
        match self {
            FieldParser::Auto => Some(auto_parse(text)),
            FieldParser::Binary(enc) => {
                let bytes = match enc {
                    BinaryEncoding::Base64 => go_base64(text)?,
                    BinaryEncoding::Base32 => go_base32(text)?,
                    BinaryEncoding::Hex => hex_decode(text)?,
                };
                Some(Bson::Binary(Binary {
                    subtype: BinarySubtype::Generic,
                    bytes,
                }))
            }
            FieldParser::Boolean => {
                let lower = text.to_lowercase();
                if lower == "true" || text == "1" {
                    Some(Bson::Boolean(true))
                } else if lower == "false" || text == "0" {
                    Some(Bson::Boolean(false))
                } else {
                    None
                }
            }
            FieldParser::Date(layout) => {
                go_time_parse(layout, text).map(|ms| Bson::DateTime(DateTime::from_millis(ms)))
            }
            FieldParser::Double => go_parse_float(text).map(Bson::Double),
            FieldParser::Int32 => go_parse_int(text)
                .and_then(|i| i32::try_from(i).ok())
                .map(Bson::Int32),
            FieldParser::Int64 => go_parse_int(text).map(Bson::Int64),
            FieldParser::Decimal => {
                crate::shell::literals::parse_decimal128(text).map(Bson::Decimal128)
            }
            FieldParser::String => Some(Bson::String(text.to_string())),
        }
    }
}

/// `autoParse`: an int32 when the text is a base-10 integer that fits, an int64 when it
/// fits there, else a double when Go's `ParseFloat` reads it (underscores between
/// digits, hexadecimal mantissas with a `p` exponent, `inf`, `NaN`; not past the
/// largest double), else the text itself.
pub fn auto_parse(text: &str) -> Bson {
    if let Some(i) = go_parse_int(text) {
        return match i32::try_from(i) {
            Ok(small) => Bson::Int32(small),
            Err(_) => Bson::Int64(i),
        };
    }
    match go_parse_float(text) {
        Some(f) => Bson::Double(f),
        None => Bson::String(text.to_string()),
    }
}

/// `strconv.ParseInt(text, 10, 64)`: an optional sign and decimal digits only.
fn go_parse_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok()
}

/// `strconv.ParseFloat(text, 64)` without an error: Go's float syntax, and not beyond
/// the largest double (Go answers ±Inf with `ErrRange` there, which mongoimport takes
/// as "not a number").
pub fn go_parse_float(text: &str) -> Option<f64> {
    if let Some(special) = go_special_float(text) {
        return Some(special);
    }
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let hex = body.len() > 2 && (body.starts_with("0x") || body.starts_with("0X"));
    if !float_syntax(body, hex) || (body.contains('_') && !underscore_ok(text)) {
        return None;
    }
    let value = if hex {
        hex_float(&body[2..])?
    } else {
        body.replace('_', "").parse::<f64>().ok()?
    };
    if value.is_infinite() {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// Go's `special`: `inf`/`infinity` with an optional sign, `nan` without one, in any
/// case, and nothing after.
fn go_special_float(text: &str) -> Option<f64> {
    let lower = text.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

/// Whether `body` (after the sign) is Go's `readFloat` syntax, all of it: digits (hex
/// digits after `0x`) with underscores and at most one point, at least one digit, then
/// an exponent (`e`, or `p` and required after `0x`) with an optional sign and digits.
fn float_syntax(body: &str, hex: bool) -> bool {
    let b = body.as_bytes();
    let mut i = if hex { 2 } else { 0 };
    let (mut digits, mut dot) = (false, false);
    while i < b.len() {
        let c = b[i];
        let digit = c.is_ascii_digit() || (hex && c.is_ascii_hexdigit());
        if digit {
            digits = true;
        } else if c == b'.' && !dot {
            dot = true;
        } else if c != b'_' {
            break;
        }
        i += 1;
    }
    if !digits {
        return false;
    }
    let exp_char = if hex { b'p' } else { b'e' };
    if i < b.len() && b[i].to_ascii_lowercase() == exp_char {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if i >= b.len() || !b[i].is_ascii_digit() {
            return false;
        }
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    } else if hex {
        return false;
    }
    i == b.len()
}

/// Go's `underscoreOK`: underscores only between digits (or after a base prefix).
fn underscore_ok(text: &str) -> bool {
    let s = text.strip_prefix(['+', '-']).unwrap_or(text).as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// A hexadecimal float's value from its text after `0x` (already checked): mantissa
/// digits with an optional point, then `p` and a decimal exponent of two.
fn hex_float(text: &str) -> Option<f64> {
    let text = text.replace('_', "");
    let (mantissa, exponent) = text.split_once(['p', 'P'])?;
    let exponent: i64 = exponent.parse().unwrap_or(if exponent.starts_with('-') {
        i64::MIN / 4
    } else {
        i64::MAX / 4
    });
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut value = 0.0f64;
    for c in int.chars().chain(frac.chars()) {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let shift = exponent.saturating_sub(4 * frac.len() as i64);
    let shift = i32::try_from(shift.clamp(-10_000, 10_000)).unwrap_or(0);
    Some(scale_by_two(value, shift))
}

/// `value × 2^shift`, in steps that keep each factor a finite double.
fn scale_by_two(mut value: f64, mut shift: i32) -> f64 {
    while shift > 0 && value.is_finite() && value != 0.0 {
        let step = shift.min(1000);
        value *= 2f64.powi(step);
        shift -= step;
    }
    while shift < 0 && value != 0.0 {
        let step = shift.max(-1000);
        value *= 2f64.powi(step);
        shift -= step;
    }
    value
}

/// Go's `base64.StdEncoding.DecodeString`: line breaks ignored, padding required.
fn go_base64(text: &str) -> Option<Vec<u8>> {
    let clean: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    let body = clean.trim_end_matches('=');
    let strict_letters = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    if clean.len() % 4 != 0 || !strict_letters {
        return None;
    }
    BASE64.decode(&clean).ok()
}

/// Go's `base32.StdEncoding.DecodeString`: RFC 4648's alphabet, line breaks ignored,
/// padding required.
fn go_base32(text: &str) -> Option<Vec<u8>> {
    let clean: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    if clean.len() % 8 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 8 * 5);
    for group in clean.chunks(8) {
        let letters = group.iter().take_while(|b| **b != b'=').count();
        // Only 2, 4, 5, 7 or 8 letters make whole bytes; the rest must be padding.
        let bytes = match letters {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => return None,
        };
        if group[letters..].iter().any(|b| *b != b'=') {
            return None;
        }
        let mut n: u64 = 0;
        for (i, &c) in group.iter().enumerate() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'2'..=b'7' => c - b'2' + 26,
                b'=' if i >= letters => 0,
                _ => return None,
            };
            n = (n << 5) | u64::from(v);
        }
        out.extend_from_slice(&n.to_be_bytes()[3..3 + bytes]);
        // Padding ends the text.
        if letters < 8 && out.len() != clean.len() / 8 * 5 - (5 - bytes) {
            return None;
        }
    }
    Some(out)
}

/// The pieces of a Go time layout (`nextStdChunk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    Tz,
    /// `Z07:00` and its kin: `(colon, seconds, Z for UTC, hours only)`.
    Offset {
        colon: bool,
        seconds: bool,
        z: bool,
        hours_only: bool,
    },
    /// `.000` (`exact` digits) or `.999` (up to that many).
    Frac {
        digits: usize,
        exact: bool,
    },
}

/// The first layout element in `layout`: the literal text before it, the element and
/// the rest (Go's `nextStdChunk`).
fn next_std_chunk(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let at = |i: usize, s: &str| {
        b.get(i..)
            .is_some_and(|rest| rest.starts_with(s.as_bytes()))
    };
    // `Jan` and `Mon` are words of the layout only when no lower-case letter follows
    // (Go's `startsWithLowerCase`).
    let lower_after = |i: usize| b.get(i).is_some_and(u8::is_ascii_lowercase);
    for i in 0..b.len() {
        let hit = |n: usize, std: Std| Some((i, std, n));
        let found = match b[i] {
            b'J' if at(i, "January") => hit(7, Std::LongMonth),
            b'J' if at(i, "Jan") && !lower_after(i + 3) => hit(3, Std::Month),
            b'M' if at(i, "Monday") => hit(6, Std::LongWeekDay),
            b'M' if at(i, "Mon") && !lower_after(i + 3) => hit(3, Std::WeekDay),
            b'M' if at(i, "MST") => hit(3, Std::Tz),
            b'0' if at(i, "002") => hit(3, Std::ZeroYearDay),
            b'0' if b.get(i + 1).is_some_and(|c| (b'1'..=b'6').contains(c)) => {
                let std = match b[i + 1] {
                    b'1' => Std::ZeroMonth,
                    b'2' => Std::ZeroDay,
                    b'3' => Std::ZeroHour12,
                    b'4' => Std::ZeroMinute,
                    b'5' => Std::ZeroSecond,
                    _ => Std::Year,
                };
                hit(2, std)
            }
            b'1' if at(i, "15") => hit(2, Std::Hour),
            b'1' => hit(1, Std::NumMonth),
            b'2' if at(i, "2006") => hit(4, Std::LongYear),
            b'2' => hit(1, Std::Day),
            b'_' if at(i, "__2") => hit(3, Std::UnderYearDay),
            b'_' if at(i, "_2") && !at(i, "_2006") => hit(2, Std::UnderDay),
            b'3' => hit(1, Std::Hour12),
            b'4' => hit(1, Std::Minute),
            b'5' => hit(1, Std::Second),
            b'P' if at(i, "PM") => hit(2, Std::PM),
            b'p' if at(i, "pm") => hit(2, Std::Pm),
            b'-' | b'Z' => {
                let z = b[i] == b'Z';
                let forms: [(&str, bool, bool, bool); 5] = [
                    ("07:00:00", true, true, false),
                    ("070000", false, true, false),
                    ("07:00", true, false, false),
                    ("0700", false, false, false),
                    ("07", false, false, true),
                ];
                forms.iter().find(|(f, ..)| at(i + 1, f)).and_then(
                    |&(f, colon, seconds, hours_only)| {
                        hit(
                            1 + f.len(),
                            Std::Offset {
                                colon,
                                seconds,
                                z,
                                hours_only,
                            },
                        )
                    },
                )
            }
            b'.' | b',' if b.get(i + 1).is_some_and(|c| *c == b'0' || *c == b'9') => {
                let ch = b[i + 1];
                let mut j = i + 1;
                while j < b.len() && b[j] == ch {
                    j += 1;
                }
                // A fraction only when no digit follows the run.
                if b.get(j).is_some_and(u8::is_ascii_digit) {
                    None
                } else {
                    hit(
                        j - i,
                        Std::Frac {
                            digits: j - i - 1,
                            exact: ch == b'0',
                        },
                    )
                }
            }
            _ => None,
        };
        if let Some((start, std, n)) = found {
            return (&layout[..start], Some(std), &layout[start + n..]);
        }
    }
    (layout, None, "")
}

const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const LONG_DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The index of the name in `names` that `value` starts with, ignoring ASCII case
/// (Go's `lookup`), and the rest of `value`.
fn lookup<'a>(names: &[&str], short: bool, value: &'a str) -> Option<(usize, &'a str)> {
    names.iter().enumerate().find_map(|(i, name)| {
        let name = if short { &name[..3] } else { name };
        let head = value.get(..name.len())?;
        head.eq_ignore_ascii_case(name)
            .then(|| (i, &value[name.len()..]))
    })
}

/// Go's `getnum`/`getnum3`: one to `max` leading digits (exactly `max` when `fixed`).
fn get_num(value: &str, max: usize, fixed: bool) -> Option<(i64, &str)> {
    let n = value
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if n == 0 || (fixed && n != max) {
        return None;
    }
    Some((value[..n].parse().ok()?, &value[n..]))
}

/// Go's `time.Parse(layout, value)` in UTC, as milliseconds since the epoch the way the
/// Go driver writes a `time.Time` (whole seconds, then milliseconds truncated); `None`
/// when the value does not match. A zone abbreviation (`MST`) is taken at offset zero,
/// as Go does for an abbreviation its location does not know.
pub fn go_time_parse(layout: &str, value: &str) -> Option<i64> {
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nanos) = (0i64, 0i64, 0i64, 0i64);
    let (mut pm, mut am) = (false, false);
    let mut offset_secs = 0i64;
    let (mut layout, mut value) = (layout, value);
    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        value = skip_literal(value, prefix)?;
        let Some(std) = std else {
            if !value.is_empty() {
                return None;
            }
            break;
        };
        layout = suffix;
        match std {
            Std::Year => {
                let (y, rest) = get_num(value, 2, true)?;
                year = if y >= 69 { y + 1900 } else { y + 2000 };
                value = rest;
            }
            Std::LongYear => {
                if value.len() < 4 || !value.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
                    return None;
                }
                year = value[..4].parse().ok()?;
                value = &value[4..];
            }
            Std::Month | Std::LongMonth => {
                let (m, rest) = lookup(&LONG_MONTHS, std == Std::Month, value)?;
                month = m as i64 + 1;
                value = rest;
            }
            Std::NumMonth | Std::ZeroMonth => {
                let (m, rest) = get_num(value, 2, std == Std::ZeroMonth)?;
                if !(1..=12).contains(&m) {
                    return None;
                }
                month = m;
                value = rest;
            }
            Std::WeekDay | Std::LongWeekDay => {
                value = lookup(&LONG_DAYS, std == Std::WeekDay, value)?.1;
            }
            Std::Day | Std::UnderDay | Std::ZeroDay => {
                if std == Std::UnderDay && value.starts_with(' ') {
                    value = &value[1..];
                }
                let (d, rest) = get_num(value, 2, std == Std::ZeroDay)?;
                day = d;
                value = rest;
            }
            Std::UnderYearDay | Std::ZeroYearDay => {
                for _ in 0..2 {
                    if std == Std::UnderYearDay && value.starts_with(' ') {
                        value = &value[1..];
                    }
                }
                let (d, rest) = get_num(value, 3, std == Std::ZeroYearDay)?;
                yday = d;
                value = rest;
            }
            Std::Hour => {
                let (h, rest) = get_num(value, 2, false)?;
                if !(0..24).contains(&h) {
                    return None;
                }
                hour = h;
                value = rest;
            }
            Std::Hour12 | Std::ZeroHour12 => {
                let (h, rest) = get_num(value, 2, std == Std::ZeroHour12)?;
                if !(0..=12).contains(&h) {
                    return None;
                }
                hour = h;
                value = rest;
            }
            Std::Minute | Std::ZeroMinute => {
                let (m, rest) = get_num(value, 2, std == Std::ZeroMinute)?;
                if !(0..60).contains(&m) {
                    return None;
                }
                min = m;
                value = rest;
            }
            Std::Second | Std::ZeroSecond => {
                let (s, rest) = get_num(value, 2, std == Std::ZeroSecond)?;
                if !(0..60).contains(&s) {
                    return None;
                }
                sec = s;
                value = rest;
                // A fraction the layout does not spell is read all the same, unless the
                // layout's next element is a fraction.
                let next_is_frac = matches!(next_std_chunk(layout).1, Some(Std::Frac { .. }));
                let b = value.as_bytes();
                if !next_is_frac
                    && b.len() >= 2
                    && (b[0] == b'.' || b[0] == b',')
                    && b[1].is_ascii_digit()
                {
                    let n = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
                    nanos = fraction_nanos(&value[1..n]);
                    value = &value[n..];
                }
            }
            Std::PM | Std::Pm => {
                let head = value.get(..2)?;
                let (p, a) = if std == Std::PM {
                    ("PM", "AM")
                } else {
                    ("pm", "am")
                };
                if head == p {
                    pm = true;
                } else if head == a {
                    am = true;
                } else {
                    return None;
                }
                value = &value[2..];
            }
            Std::Offset {
                colon,
                seconds,
                z,
                hours_only,
            } => {
                if z && value.starts_with('Z') {
                    value = &value[1..];
                    continue;
                }
                let (off, rest) = parse_offset(value, colon, seconds, hours_only)?;
                offset_secs = off;
                value = rest;
            }
            Std::Tz => {
                if value.starts_with("UTC") {
                    value = &value[3..];
                    continue;
                }
                let n = value.bytes().take_while(u8::is_ascii_uppercase).count();
                if n < 3 {
                    return None;
                }
                value = &value[n.min(5)..];
            }
            Std::Frac { digits, exact } => {
                let b = value.as_bytes();
                if exact {
                    if b.len() < digits + 1
                        || !(b[0] == b'.' || b[0] == b',')
                        || !b[1..=digits].iter().all(u8::is_ascii_digit)
                    {
                        return None;
                    }
                    nanos = fraction_nanos(&value[1..=digits]);
                    value = &value[digits + 1..];
                } else if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
                    let n = 1 + value[1..].bytes().take_while(u8::is_ascii_digit).count();
                    nanos = fraction_nanos(&value[1..n]);
                    value = &value[n..];
                }
            }
        }
    }
    if pm && hour < 12 {
        hour += 12;
    } else if am && hour == 12 {
        hour = 0;
    }
    if yday >= 0 {
        let leap = is_leap(year);
        if yday < 1 || yday > if leap { 366 } else { 365 } {
            return None;
        }
        let (m, d) = month_day_of_year(yday, leap);
        if (month >= 0 && month != m) || (day >= 0 && day != d) {
            return None;
        }
        month = m;
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in_month(month, year) {
        return None;
    }
    let days = days_from_civil(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    let seconds = days * 86_400 + hour * 3600 + min * 60 + sec - offset_secs;
    Some(seconds * 1000 + nanos / 1_000_000)
}

/// Skips the literal `prefix` at the start of `value` (Go's `skip`: a space in the
/// layout matches any run of spaces, at least one).
fn skip_literal<'a>(mut value: &'a str, prefix: &str) -> Option<&'a str> {
    let mut p = prefix;
    while let Some(c) = p.chars().next() {
        if c == ' ' {
            if !value.is_empty() && !value.starts_with(' ') {
                return None;
            }
            p = p.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        value = value.strip_prefix(c)?;
        p = &p[c.len_utf8()..];
    }
    Some(value)
}

/// A zone offset such as `-07:00` in seconds east of UTC.
fn parse_offset(value: &str, colon: bool, seconds: bool, hours_only: bool) -> Option<(i64, &str)> {
    let b = value.as_bytes();
    let sign = match b.first() {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return None,
    };
    let two = |i: usize| -> Option<i64> {
        let d = b.get(i..i + 2)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| i64::from(d[0] - b'0') * 10 + i64::from(d[1] - b'0'))
    };
    let hh = two(1)?;
    let mut at = 3;
    let (mut mm, mut ss) = (0, 0);
    if !hours_only {
        if colon {
            if b.get(at) != Some(&b':') {
                return None;
            }
            at += 1;
        }
        mm = two(at)?;
        at += 2;
        if seconds {
            if colon {
                if b.get(at) != Some(&b':') {
                    return None;
                }
                at += 1;
            }
            ss = two(at)?;
            at += 2;
        }
    }
    Some((sign * (hh * 3600 + mm * 60 + ss), &value[at..]))
}

/// Nanoseconds of a fraction's digits (the first nine count).
fn fraction_nanos(digits: &str) -> i64 {
    let mut n = 0i64;
    for (i, c) in digits.bytes().take(9).enumerate() {
        n += i64::from(c - b'0') * 10i64.pow(8 - i as u32);
    }
    n
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The month and day of day `yday` (1-based) of a year.
fn month_day_of_year(yday: i64, leap: bool) -> (i64, i64) {
    let mut left = yday;
    for month in 1..=12 {
        let n = days_in_month(month, if leap { 2000 } else { 2001 });
        if left <= n {
            return (month, left);
        }
        left -= n;
    }
    (12, 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_parse_types_numbers_as_go_reads_them() {
        assert_eq!(auto_parse("42"), Bson::Int32(42));
        assert_eq!(auto_parse("+7"), Bson::Int32(7));
        assert_eq!(auto_parse("007"), Bson::Int32(7));
        assert_eq!(auto_parse("2147483648"), Bson::Int64(2_147_483_648));
        assert_eq!(auto_parse("-2147483648"), Bson::Int32(i32::MIN));
        assert_eq!(auto_parse("99999999999999999999"), Bson::Double(1e20));
        assert_eq!(auto_parse("1.5"), Bson::Double(1.5));
        assert_eq!(auto_parse("1e3"), Bson::Double(1000.0));
        assert_eq!(auto_parse(".5"), Bson::Double(0.5));
        assert_eq!(auto_parse("1_000"), Bson::Double(1000.0));
        assert_eq!(auto_parse("0x1p-2"), Bson::Double(0.25));
        assert_eq!(auto_parse("Infinity"), Bson::Double(f64::INFINITY));
        assert!(matches!(auto_parse("NaN"), Bson::Double(d) if d.is_nan()));
        for text in [
            "1e400", "0x10", "-nan", "1_", "_1", "1__0", "", " 1", "1,5", "abc", "12a",
        ] {
            assert_eq!(auto_parse(text), Bson::String(text.to_string()), "{text}");
        }
    }

    #[test]
    fn typed_headers_split_as_the_regexp_does() {
        let c = typed_column("a.b.int32()", ParseGrace::Stop).expect("typed");
        assert_eq!((c.name.as_str(), &c.parser), ("a.b", &FieldParser::Int32));
        let c = typed_column("ts.date_ms(yyyy-MM-dd HH:mm:ss)", ParseGrace::Stop).expect("date");
        assert_eq!(c.parser, FieldParser::Date("2006-01-02 15:04:05".into()));
        let c = typed_column("t.date_oracle(dd-mon-yyyy)", ParseGrace::Stop).expect("oracle");
        assert_eq!(c.parser, FieldParser::Date("02-Jan-2006".into()));
        assert_eq!(
            typed_column("name", ParseGrace::Stop),
            Err("could not parse type from header `name`".into())
        );
        assert_eq!(
            typed_column("n.integer()", ParseGrace::Stop),
            Err("invalid type `integer` in header `n.integer()`".into())
        );
        assert_eq!(
            typed_column("n.int32(x)", ParseGrace::Stop),
            Err("type 8 does not support arguments".into())
        );
        assert_eq!(
            typed_column("b.binary()", ParseGrace::Stop),
            Err("invalid binary encoding: ``".into())
        );
        let c = typed_column("p.date_go(a\\(b\\))", ParseGrace::Stop).expect("escaped");
        assert_eq!(c.parser, FieldParser::Date("a(b)".into()));
    }

    #[test]
    fn typed_fields_read_their_text() {
        let p = |t: FieldParser, s: &str| t.parse(s);
        assert_eq!(p(FieldParser::Int32, "2147483648"), None);
        assert_eq!(
            p(FieldParser::Int64, "2147483648"),
            Some(Bson::Int64(2_147_483_648))
        );
        assert_eq!(p(FieldParser::Boolean, "TRUE"), Some(Bson::Boolean(true)));
        assert_eq!(p(FieldParser::Boolean, "0"), Some(Bson::Boolean(false)));
        assert_eq!(p(FieldParser::Boolean, "yes"), None);
        assert_eq!(p(FieldParser::Double, "1e400"), None);
        let bin = |enc, s| p(FieldParser::Binary(enc), s);
        let bytes = |b: &[u8]| {
            Some(Bson::Binary(Binary {
                subtype: BinarySubtype::Generic,
                bytes: b.to_vec(),
            }))
        };
        assert_eq!(bin(BinaryEncoding::Hex, "00ff"), bytes(&[0, 255]));
        assert_eq!(bin(BinaryEncoding::Base64, "AP8="), bytes(&[0, 255]));
        assert_eq!(bin(BinaryEncoding::Base64, "AP8"), None);
        assert_eq!(bin(BinaryEncoding::Base32, "AD7Q===="), bytes(&[0, 255]));
        assert_eq!(bin(BinaryEncoding::Base32, "AD7Q"), None);
    }

    #[test]
    fn dates_follow_go_layouts() {
        let ms = |layout: &str, v: &str| go_time_parse(layout, v);
        assert_eq!(ms("2006-01-02", "2024-03-05"), Some(1_709_596_800_000));
        assert_eq!(
            ms("2006-01-02T15:04:05Z07:00", "2024-03-05T10:00:00+01:00"),
            Some(1_709_629_200_000)
        );
        assert_eq!(
            ms("2006-01-02 15:04:05", "2024-03-05 10:00:00.250"),
            Some(1_709_632_800_250)
        );
        assert_eq!(
            ms("Jan 2, 2006 3:04 PM", "mar 5, 2024 1:30 PM"),
            Some(1_709_645_400_000)
        );
        assert_eq!(ms("2006-01-02", "2024-02-30"), None);
        assert_eq!(ms("2006-01-02", "2024-03-05x"), None);
        assert_eq!(ms("02/01/06", "05/03/24"), Some(1_709_596_800_000));
        let layout = from_ms_layout("yyyy-MM-dd");
        assert_eq!(ms(&layout, "1970-01-02"), Some(86_400_000));
    }
}
