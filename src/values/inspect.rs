//! Prints BSON values as mongosh does.
//!
//! mongosh prints with Node's `util.inspect` (`compact: 3`, `breakLength: 80`) after
//! giving each BSON class a custom inspector. This module reproduces both halves:
//!
//! - the BSON spellings: `ObjectId('…')`, `Long('5')`, `Decimal128('1.5')`,
//!   `Timestamp({ t: 1, i: 3 })`, `ISODate('…')`, `UUID('…')`, `MD5('…')`,
//!   `Binary.createFromBase64('…', 0)`, `MinKey()`, `MaxKey()`, `Code('…')`,
//!   `BSONSymbol('…')`, `DBRef('…', …)`; Int32 and Double print as JavaScript numbers;
//! - `util.inspect`'s layout: string quoting and escaping, unquoted identifier keys,
//!   JavaScript's integer-keys-first property order, joining an object's entries on
//!   one line when they fit (`reduceToSingleString`), grouping arrays of more than six
//!   short items into columns (`groupArrayElements`), splitting long strings at line
//!   breaks, and the `depth`, `maxArrayLength` and `maxStringLength` limits.
//!
//! Widths are counted in UTF-16 code units, as `String.prototype.length` does; Node
//! measures East Asian wide characters as two columns when grouping arrays, which is
//! not reproduced.

use super::encoding::{format_iso, hex_encode, BASE64};
use super::js::{db_pointer_parts, js_key_order, js_number_to_string};
use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};

/// Layout settings, named after `util.inspect`'s options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormatOptions {
    /// The width entries are joined within (`breakLength`).
    pub break_length: u32,
    /// How many inner levels may be joined onto one line (`compact`). 0 lays out as
    /// `compact: false` does: Node's `reduceToSingleString` groups an array's items and
    /// joins entries onto one line only when `compact` is a number of at least 1, so
    /// every non-empty object and array then opens a line per entry.
    pub compact: u32,
    /// Nesting beyond this prints as `[Object]` / `[Array]` (`depth`); `None` is unlimited.
    pub depth: Option<u32>,
    /// Array items shown before `... n more items` (`maxArrayLength`).
    pub max_array_length: Option<u32>,
    /// String length shown before `... n more characters` (`maxStringLength`).
    pub max_string_length: Option<u32>,
}

impl Default for FormatOptions {
    /// mongosh's defaults: `inspectDepth` 6, `inspectCompact` 3, width 80 and Node's
    /// 100-item and 10000-character limits.
    fn default() -> Self {
        FormatOptions {
            break_length: 80,
            compact: 3,
            depth: Some(6),
            max_array_length: Some(100),
            max_string_length: Some(10_000),
        }
    }
}

impl FormatOptions {
    /// mongosh's layout without any truncation, so that the output parses back to the
    /// same value.
    pub fn lossless() -> Self {
        FormatOptions {
            depth: None,
            max_array_length: None,
            max_string_length: None,
            ..FormatOptions::default()
        }
    }
}

impl FormatOptions {
    /// What mongosh's `printjson` prints with (packages/cli-repl/src/mongosh-repl.ts
    /// `onPrint`, MONGOSH-955, the old shell's layout): `compact: false`, and depth, array
    /// and string lengths unlimited.
    pub fn printjson() -> Self {
        FormatOptions {
            compact: 0,
            ..FormatOptions::lossless()
        }
    }
}

/// The key that makes a document print as an instance of a class of the driver's
/// (`BulkWriteResult { ... }`), as `util.inspect` prints an object with a constructor:
/// a BSON key cannot hold a NUL, so no stored document has it. See [`instance`].
const CLASS_KEY: &str = "\u{0}class";

/// A value that prints as an instance of class `name` with `fields`.
pub fn instance(name: &str, fields: Document) -> Bson {
    let mut d = Document::new();
    d.insert(CLASS_KEY, name);
    d.extend(fields);
    Bson::Document(d)
}

/// Formats a value as mongosh prints it, with mongosh's default options.
pub fn format_value(value: &Bson) -> String {
    format_value_with(value, &FormatOptions::default())
}

/// Formats a document as mongosh prints it, with mongosh's default options.
pub fn format_document(doc: &Document) -> String {
    format_value(&Bson::Document(doc.clone()))
}

/// Formats a value with the given options.
pub fn format_value_with(value: &Bson, options: &FormatOptions) -> String {
    let mut ctx = Ctx {
        opts: *options,
        indentation: 0,
        current_depth: 0,
        typed_doubles: false,
    };
    ctx.value(value, 0)
}

/// Formats a value as a script's literal that mongosh reads back to the same BSON: the
/// lossless layout, as wide as it takes (so only nesting past `compact`'s three levels
/// breaks lines), with an integral Double written
/// `Double(1)`, since mongosh (and its driver) would store the number `1` as an Int32.
/// Every other type already prints as the constructor that makes it again.
pub fn format_script_value(value: &Bson) -> String {
    let mut ctx = Ctx {
        opts: FormatOptions {
            break_length: u32::MAX / 4,
            ..FormatOptions::lossless()
        },
        indentation: 0,
        current_depth: 0,
        typed_doubles: true,
    };
    ctx.value(value, 0)
}

/// Binary data as mongosh prints it: `UUID('...')`, `MD5('...')` or
/// `Binary.createFromBase64('...', subtype)`.
fn binary(b: &Binary) -> String {
    match b.subtype {
        BinarySubtype::Uuid if b.bytes.len() == 16 => {
            let h = hex_encode(&b.bytes);
            format!(
                "UUID('{}-{}-{}-{}-{}')",
                &h[0..8],
                &h[8..12],
                &h[12..16],
                &h[16..20],
                &h[20..32]
            )
        }
        BinarySubtype::Md5 => format!("MD5('{}')", hex_encode(&b.bytes)),
        st => format!(
            "Binary.createFromBase64('{}', {})",
            BASE64.encode(&b.bytes),
            u8::from(st)
        ),
    }
}

/// What opens a substitution inside a JavaScript template literal: a string holding it
/// cannot be quoted with backticks.
const SUBSTITUTION_OPEN: &str = "${";

/// Quotes and escapes a string as `util.inspect` does: single quotes, or double quotes
/// when the text has a `'` but no `"`, or backticks when it has both but no backtick.
pub fn quote_js_string(s: &str) -> String {
    let quote = if s.contains('\'') {
        if !s.contains('"') {
            '"'
        } else if !s.contains('`') && !s.contains(SUBSTITUTION_OPEN) {
            '`'
        } else {
            '\''
        }
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\'' if quote == '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Formats a key as `util.inspect` does: bare when it is a simple identifier.
pub fn format_key(key: &str) -> String {
    let mut chars = key.chars();
    let simple = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if simple {
        key.to_string()
    } else {
        quote_js_string(key)
    }
}

/// Formats a double as `util.inspect` does (`-0` keeps its sign).
pub fn format_number(v: f64) -> String {
    if v == 0.0 && v.is_sign_negative() {
        "-0".into()
    } else {
        js_number_to_string(v)
    }
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// A regular expression's source as JavaScript prints it: `/` outside character
/// classes and line breaks escaped, an empty pattern as `(?:)`.
fn regex_source(pattern: &str) -> String {
    if pattern.is_empty() {
        return "(?:)".into();
    }
    let mut out = String::with_capacity(pattern.len());
    let mut escaped = false;
    let mut in_class = false;
    for c in pattern.chars() {
        if escaped {
            out.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => {
                escaped = true;
                out.push(c);
            }
            '[' => {
                in_class = true;
                out.push(c);
            }
            ']' => {
                in_class = false;
                out.push(c);
            }
            '/' if !in_class => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The `$ref`/`$id`/`$db` documents that the driver turns into `DBRef` objects.
fn as_dbref(doc: &Document) -> Option<(&str, &Bson, Option<&str>)> {
    let keys: Vec<&String> = doc.keys().collect();
    let ok = matches!(keys.as_slice(), [r, i] if *r == "$ref" && *i == "$id")
        || matches!(keys.as_slice(), [r, i, d] if *r == "$ref" && *i == "$id" && *d == "$db");
    if !ok {
        return None;
    }
    let ns = doc.get_str("$ref").ok()?;
    let id = doc.get("$id")?;
    let db = match doc.get("$db") {
        None => None,
        Some(Bson::String(s)) => Some(s.as_str()),
        Some(_) => return None,
    };
    Some((ns, id, db))
}

struct Ctx {
    opts: FormatOptions,
    /// `ctx.indentationLvl`: spaces before the current entry.
    indentation: usize,
    /// `ctx.currentDepth`: the level of the object most recently entered.
    current_depth: u32,
    /// Whether an integral Double prints as `Double(n)` ([`format_script_value`]).
    typed_doubles: bool,
}

impl Ctx {
    /// Formats a nested value with a fresh context, as a custom inspector's call to
    /// `inspect` does, and indents its continuation lines to the current level.
    fn nested(&self, v: &Bson, recurse_times: u32) -> String {
        let opts = FormatOptions {
            depth: self.opts.depth.map(|d| d.saturating_sub(recurse_times)),
            ..self.opts
        };
        let s = format_value_with(v, &opts);
        s.replace('\n', &format!("\n{}", " ".repeat(self.indentation)))
    }

    fn string(&self, s: &str) -> String {
        let len = utf16_len(s);
        let (shown, trailer) = match self.opts.max_string_length {
            Some(max) if len > max as usize => {
                let units: Vec<u16> = s.encode_utf16().take(max as usize).collect();
                let remaining = len - max as usize;
                (
                    String::from_utf16_lossy(&units),
                    format!(
                        "... {remaining} more character{}",
                        if remaining > 1 { "s" } else { "" }
                    ),
                )
            }
            _ => (s.to_string(), String::new()),
        };
        let shown_len = utf16_len(&shown);
        let avail = (self.opts.break_length as usize)
            .saturating_sub(self.indentation)
            .saturating_sub(4);
        if shown_len > 16 && shown_len > avail && shown.contains('\n') {
            let parts: Vec<String> = shown.split_inclusive('\n').map(quote_js_string).collect();
            let sep = format!(" +\n{}", " ".repeat(self.indentation + 2));
            return parts.join(&sep) + &trailer;
        }
        quote_js_string(&shown) + &trailer
    }

    fn value(&mut self, v: &Bson, recurse_times: u32) -> String {
        match v {
            Bson::Double(d) if self.typed_doubles && d.fract() == 0.0 => {
                format!("Double({})", format_number(*d))
            }
            Bson::Double(d) => format_number(*d),
            Bson::Int32(i) => i.to_string(),
            Bson::Int64(i) => format!("Long('{i}')"),
            Bson::Decimal128(d) => {
                format!(
                    "Decimal128('{}')",
                    crate::values::decimal::Decimal::from_bson(d)
                )
            }
            Bson::String(s) => self.string(s),
            Bson::Boolean(b) => b.to_string(),
            Bson::Null => "null".into(),
            Bson::Undefined => "undefined".into(),
            Bson::MinKey => "MinKey()".into(),
            Bson::MaxKey => "MaxKey()".into(),
            Bson::ObjectId(o) => format!("ObjectId('{}')", o.to_hex()),
            Bson::DateTime(d) => format!("ISODate('{}')", format_iso(d.timestamp_millis())),
            Bson::Timestamp(t) => format!("Timestamp({{ t: {}, i: {} }})", t.time, t.increment),
            Bson::RegularExpression(r) => {
                format!(
                    "/{}/{}",
                    regex_source(r.pattern.as_str()),
                    r.options.as_str()
                )
            }
            Bson::JavaScriptCode(c) => format!("Code({})", quote_js_string(c)),
            Bson::JavaScriptCodeWithScope(c) => format!(
                "Code({}, {})",
                quote_js_string(&c.code),
                self.nested(&Bson::Document(c.scope.clone()), recurse_times)
            ),
            Bson::Symbol(s) => format!("BSONSymbol({})", quote_js_string(s)),
            Bson::Binary(b) => binary(b),
            Bson::DbPointer(_) => match db_pointer_parts(v) {
                Some((ns, id)) => format!(
                    "DBRef({}, ObjectId('{}'))",
                    quote_js_string(&ns),
                    id.to_hex()
                ),
                None => "DBRef()".into(),
            },
            Bson::Document(d) => self.document(d, recurse_times),
            Bson::Array(a) => self.array(a, recurse_times),
        }
    }

    /// An embedded document: a DBRef's constructor form, or its fields.
    fn document(&mut self, d: &Document, recurse_times: u32) -> String {
        if let Some((ns, id, db)) = as_dbref(d) {
            let mut s = format!(
                "DBRef({}, {}",
                quote_js_string(ns),
                self.nested(id, recurse_times)
            );
            if let Some(db) = db {
                s.push_str(", ");
                s.push_str(&quote_js_string(db));
            }
            s.push(')');
            return s;
        }
        let ordered = js_key_order(d.clone());
        let class = match ordered.get(CLASS_KEY) {
            Some(Bson::String(name)) => Some(name.as_str()),
            _ => None,
        };
        let entries: Vec<(&String, &Bson)> =
            ordered.iter().filter(|(k, _)| *k != CLASS_KEY).collect();
        let open = class.map_or_else(|| "{".to_string(), |name| format!("{name} {{"));
        if entries.is_empty() {
            return format!("{open}}}");
        }
        if self.opts.depth.is_some_and(|depth| recurse_times > depth) {
            return "[Object]".into();
        }
        let recurse_times = recurse_times + 1;
        self.current_depth = recurse_times;
        let mut output = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            self.indentation += 2;
            let s = self.value(v, recurse_times);
            self.indentation -= 2;
            output.push(format!("{}: {s}", format_key(k)));
        }
        self.reduce(output, &open, recurse_times, &[])
    }

    /// An array: its elements, up to `max_array_length` of them.
    fn array(&mut self, a: &[Bson], recurse_times: u32) -> String {
        if a.is_empty() {
            return "[]".into();
        }
        if self.opts.depth.is_some_and(|depth| recurse_times > depth) {
            return "[Array]".into();
        }
        let recurse_times = recurse_times + 1;
        self.current_depth = recurse_times;
        let shown = match self.opts.max_array_length {
            Some(max) => a.len().min(max as usize),
            None => a.len(),
        };
        let mut output = Vec::with_capacity(shown + 1);
        for v in &a[..shown] {
            self.indentation += 2;
            let s = self.value(v, recurse_times);
            self.indentation -= 2;
            output.push(s);
        }
        let remaining = a.len() - shown;
        if remaining > 0 {
            output.push(format!(
                "... {remaining} more item{}",
                if remaining > 1 { "s" } else { "" }
            ));
        }
        self.reduce(output, "[", recurse_times, a)
    }

    /// `reduceToSingleString`: one line when the entries fit, else one entry per line.
    /// `open` is `[`, `{`, or a class instance's `Name {`.
    fn reduce(
        &mut self,
        mut output: Vec<String>,
        open: &str,
        recurse_times: u32,
        array: &[Bson],
    ) -> String {
        let is_array = open == "[";
        let close = if is_array { "]" } else { "}" };
        let entries = output.len();
        if is_array && entries > 6 && self.opts.compact >= 1 {
            output = self.group_array_elements(output, array);
        }
        if self.current_depth.saturating_sub(recurse_times) < self.opts.compact
            && entries == output.len()
        {
            let start = output.len() + self.indentation + open.len() + 10;
            if self.is_below_break_length(&output, start) {
                let joined = output.join(", ");
                if !joined.contains('\n') {
                    return format!("{open} {joined} {close}");
                }
            }
        }
        let indentation = format!("\n{}", " ".repeat(self.indentation));
        format!(
            "{open}{indentation}  {}{indentation}{close}",
            output.join(&format!(",{indentation}  "))
        )
    }

    fn is_below_break_length(&self, output: &[String], start: usize) -> bool {
        let break_length = self.opts.break_length as usize;
        let mut total = output.len() + start;
        if total + output.len() > break_length {
            return false;
        }
        for entry in output {
            total += utf16_len(entry);
            if total > break_length {
                return false;
            }
        }
        true
    }

    /// `groupArrayElements`: lays out many short items in aligned columns.
    fn group_array_elements(&self, output: Vec<String>, array: &[Bson]) -> Vec<String> {
        let break_length = self.opts.break_length as f64;
        let mut output_length = output.len();
        if self
            .opts
            .max_array_length
            .is_some_and(|m| (m as usize) < output.len())
        {
            // The "... more items" entry does not take part in the grouping.
            output_length -= 1;
        }
        let separator_space = 2usize;
        let data_len: Vec<usize> = output[..output_length]
            .iter()
            .map(|s| utf16_len(s))
            .collect();
        let total_length: usize = data_len.iter().map(|l| l + separator_space).sum();
        let max_length = data_len.iter().copied().max().unwrap_or(0);
        let actual_max = max_length + separator_space;
        if (actual_max * 3 + self.indentation) as f64 >= break_length
            || !((total_length as f64 / actual_max as f64) > 5.0 || max_length <= 6)
        {
            return output;
        }
        let approx_char_heights = 2.5;
        let average_bias = (actual_max as f64 - total_length as f64 / output.len() as f64).sqrt();
        let biased_max = (actual_max as f64 - 3.0 - average_bias).max(1.0);
        let columns = [
            ((approx_char_heights * biased_max * output_length as f64).sqrt() / biased_max).round(),
            ((break_length - self.indentation as f64) / actual_max as f64).floor(),
            f64::from(self.opts.compact) * 4.0,
            15.0,
        ]
        .into_iter()
        .fold(f64::INFINITY, f64::min);
        if columns.is_nan() || columns <= 1.0 {
            return output;
        }
        let columns = columns as usize;
        let mut max_line_length = Vec::with_capacity(columns);
        for i in 0..columns {
            let mut line_length = 0;
            let mut j = i;
            while j < output_length {
                line_length = line_length.max(data_len[j]);
                j += columns;
            }
            max_line_length.push(line_length + separator_space);
        }
        let numbers = array
            .iter()
            .take(output.len())
            .all(|v| matches!(v, Bson::Int32(_) | Bson::Double(_)));
        let pad = |s: &str, width: usize| -> String {
            let fill = " ".repeat(width.saturating_sub(utf16_len(s)));
            if numbers {
                format!("{fill}{s}")
            } else {
                format!("{s}{fill}")
            }
        };
        let mut tmp = Vec::new();
        let mut i = 0;
        while i < output_length {
            let max = (i + columns).min(output_length);
            let mut line = String::new();
            let mut j = i;
            while j < max - 1 {
                line.push_str(&pad(&format!("{}, ", output[j]), max_line_length[j - i]));
                j += 1;
            }
            if numbers {
                line.push_str(&pad(&output[j], max_line_length[j - i] - separator_space));
            } else {
                line.push_str(&output[j]);
            }
            tmp.push(line);
            i += columns;
        }
        if output_length < output.len() {
            tmp.push(output[output_length].clone());
        }
        tmp
    }
}

/// Formats a size as mongosh's `dataFormat` (packages/shell-api/src/helpers.ts) does.
///
/// Each unit rounds in its own way, and the rounding is part of what mongosh prints:
/// below 1 KiB the bytes are floored (`'1023B'`); below 1 MiB the size is a whole number
/// of KiB, floored (`'1023KiB'`, no decimals); below 1 GiB the bytes are first floored to
/// whole KiB, then divided by 1024 and truncated to two decimals (`'292.26MiB'`); above
/// that the bytes are floored to whole MiB before the same step gives GiB (there is no
/// TiB). A NaN, as a collection without a size gives, prints as mongosh's `'NaNGiB'`,
/// since every comparison with NaN is false.
pub fn data_format(bytes: f64) -> String {
    const KIB: f64 = 1024.0;
    const MIB: f64 = KIB * KIB;
    // Truncates to two decimals as `Math.floor(x * 100) / 100` does.
    let two_decimals = |x: f64| js_number_to_string((x * 100.0).floor() / 100.0);
    if bytes < KIB {
        format!("{}B", js_number_to_string(bytes.floor()))
    } else if bytes < MIB {
        format!("{}KiB", js_number_to_string((bytes / KIB).floor()))
    } else if bytes < MIB * KIB {
        format!("{}MiB", two_decimals((bytes / KIB).floor() / KIB))
    } else {
        format!("{}GiB", two_decimals((bytes / MIB).floor() / KIB))
    }
}
