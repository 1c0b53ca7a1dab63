//! Extended JSON that is strict JSON, read by `serde_json` straight into BSON: the quick
//! way in for `mongoexport`'s output, which an import or `shardlab analyze` reads a
//! document at a time (the shell's own reader tokenizes, builds expressions, then
//! evaluates them, several times the work).
//!
//! It gives exactly what the shell's reader gives (`parse_expression`, then
//! `eval_json`) for every text it accepts, and declines the rest, so that the caller reads
//! those with the shell's reader, which then says what is wrong in its own words. The
//! same rules build the value: plain integers become Int32, else Int64, else Double;
//! other numbers Double; duplicate keys keep the first place and the last value
//! (`Document::insert`); each object is turned into its type wrapper's value once its
//! fields are read (`convert_wrapper`). It declines what the two could tell apart:
//!
//! - anything that is not strict JSON (unquoted keys, single quotes, comments, `NaN`,
//!   lone surrogates, numbers out of a double's range), which `serde_json` refuses;
//! - a negative zero, which is `Int32(0)` spelt `-0` and `Double(-0.0)` spelt `-0.0`,
//!   and `serde_json` hands over both as `-0.0`;
//! - a wrapper whose value is wrong (the shell's error names its place in the text);
//! - nesting past [`MAX_STRICT_DEPTH`], an object or array of
//!   [`MAX_VALUES`](crate::values::limits::MAX_VALUES) items or more, and a text of
//!   [`MAX_TOKENS`](super::lexer::MAX_TOKENS) bytes or more: the shell's limits, which
//!   its own reader reports.
//!
//! Doubles are read with `serde_json`'s `float_roundtrip`, correctly rounded as Rust's
//! `str::parse::<f64>` (the shell's lexer) rounds them.

use super::lexer::{Span, MAX_TOKENS};
use super::wrappers::convert_wrapper;
use crate::values::limits::MAX_VALUES;
use bson::{Bson, Document};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// The deepest nesting read here (the text itself is level 0); deeper texts go to the
/// shell's reader, which nests at most 64 expressions.
pub const MAX_STRICT_DEPTH: u32 = 32;

/// The value of `text` when it is strict JSON that the shell's reader would read as this
/// value; `None` when the shell's reader must decide (see the module's notes).
pub fn parse_strict_json(text: &str) -> Option<Bson> {
    if text.len() >= MAX_TOKENS {
        return None;
    }
    read_strict_json(text)
}

/// [`parse_strict_json`] for a text of any length: a file past the shell's limits on one
/// script, such as a saved scenario holding an import of many documents, which the
/// shell's reader would refuse for its length alone. The depth and item limits hold.
pub fn read_strict_json(text: &str) -> Option<Bson> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Value { depth: 0 }.deserialize(&mut reader).ok()?;
    reader.end().ok()?;
    Some(value)
}

/// One value being read, `depth` levels down.
#[derive(Clone, Copy)]
struct Value {
    depth: u32,
}

impl Value {
    /// The level below, or an error past [`MAX_STRICT_DEPTH`].
    fn below<E: serde::de::Error>(self) -> Result<Value, E> {
        if self.depth >= MAX_STRICT_DEPTH {
            return Err(E::custom("nested too deep for the strict reader"));
        }
        Ok(Value {
            depth: self.depth + 1,
        })
    }
}

/// Whether `count` items are already as many as the shell's reader takes in one object
/// or array.
fn full(count: u64) -> bool {
    count >= MAX_VALUES
}

impl<'de> DeserializeSeed<'de> for Value {
    type Value = Bson;

    fn deserialize<D: Deserializer<'de>>(self, reader: D) -> Result<Bson, D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Value {
    type Value = Bson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Bson, E> {
        Ok(Bson::Boolean(v))
    }

    // `serde_json` hands over a plain integer as an `i64` when it is negative and as a
    // `u64` otherwise, and every other number as an `f64`.
    fn visit_i64<E>(self, v: i64) -> Result<Bson, E> {
        Ok(i32::try_from(v).map_or(Bson::Int64(v), Bson::Int32))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Bson, E> {
        Ok(match (i32::try_from(v), i64::try_from(v)) {
            (Ok(small), _) => Bson::Int32(small),
            (_, Ok(long)) => Bson::Int64(long),
            // Past Int64 the shell's reader takes the double nearest the integer, as
            // the conversion does.
            _ => Bson::Double(v as f64),
        })
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Bson, E> {
        if v == 0.0 && v.is_sign_negative() {
            return Err(E::custom(
                "-0 and -0.0 are told apart by the shell's reader",
            ));
        }
        Ok(Bson::Double(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Bson, E> {
        Ok(Bson::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Bson, E> {
        Ok(Bson::String(v))
    }

    fn visit_unit<E>(self) -> Result<Bson, E> {
        Ok(Bson::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Bson, A::Error> {
        let item = self.below()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
        while let Some(v) = seq.next_element_seed(item)? {
            if full(items.len() as u64) {
                return Err(A::Error::custom("too many items for the strict reader"));
            }
            items.push(v);
        }
        Ok(Bson::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bson, A::Error> {
        let field = self.below()?;
        let mut doc = Document::new();
        // Counted as written: a repeated key is one more item for the shell's limit.
        let mut count = 0u64;
        while let Some(key) = map.next_key::<String>()? {
            if full(count) {
                return Err(A::Error::custom("too many fields for the strict reader"));
            }
            count += 1;
            let value = map.next_value_seed(field)?;
            doc.insert(key, value);
        }
        convert_wrapper(doc, Span::default())
            .map_err(|_| A::Error::custom("a wrapper the shell's reader refuses"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::eval::eval_json;
    use crate::shell::parser::parse_expression;

    /// What the shell's own reader makes of `text`, if anything.
    fn shell(text: &str) -> Option<Bson> {
        eval_json(&parse_expression(text).ok()?).ok()
    }

    /// Both readers agree on `text`: the strict one gives the shell's value or declines.
    /// Returns whether the strict one read it.
    fn agree(text: &str) -> bool {
        let ours = parse_strict_json(text);
        if let Some(v) = &ours {
            // Values compared as Rust prints them, which tells any two doubles apart
            // (bar NaNs) where `==` would not.
            assert_eq!(
                format!("{:?}", Some(v)),
                format!("{:?}", shell(text)),
                "strict and shell disagree on {text}"
            );
        }
        ours.is_some()
    }

    #[test]
    fn reads_what_the_shell_reads() {
        let read = [
            r#"{"a": 1, "b": -2, "c": 2147483648, "d": -2147483649, "e": 9223372036854775807}"#,
            r#"{"f": 9223372036854775808, "g": 18446744073709551616, "h": -9223372036854775809}"#,
            r#"{"i": 1.0, "j": 1e2, "k": 2.5e-3, "l": 0.1, "m": 0, "n": 0.0, "o": 1E+2}"#,
            r#"{"p": 123456789012345678901234567890, "q": 5e-324, "r": 1.7976931348623157e308}"#,
            r#"{"s": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "": null, "t": true, "u": false}"#,
            r#"{"a": 1, "a": {"b": 2}, "c": [1, [2, {"d": []}], {}]}"#,
            r#"{"ts": {"$date": {"$numberLong": "1700000000000"}}, "n": {"$numberLong": "5"}}"#,
            r#"{"o": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "d": {"$numberDecimal": "1.5"}}"#,
            r#"{"x": {"$numberDouble": "NaN"}, "y": {"$date": "2024-01-02T03:04:05Z"}}"#,
            r#"{"r": {"$regularExpression": {"pattern": "a.b", "options": "i"}}}"#,
            r#"{"b": {"$binary": {"base64": "AQID", "subType": "00"}}, "m": {"$minKey": 1}}"#,
            r#"{"q": {"$gt": 5}, "w": {"$regex": "a", "$options": "i"}, "$x": 1}"#,
            r#"{"t": {"$timestamp": {"t": 1, "i": 2}}, "u": {"$undefined": true}}"#,
            " \r\n\t{\"a\":1} \n",
            "[1, 2.5, \"x\"]",
            "17",
            "\"text\"",
        ];
        for text in read {
            assert!(agree(text), "declined {text}");
        }
        let declined = [
            "{a: 1}",
            "{'a': 1}",
            r#"{"a": -0}"#,
            r#"{"a": -0.0}"#,
            r#"{"a": 1e400}"#,
            r#"{"a": NaN}"#,
            r#"{"a": 01}"#,
            r#"{"a": "\ud800"}"#,
            r#"{"a": 1,}"#,
            r#"{"a": 1} // note"#,
            r#"{"a": {"$numberLong": "x"}}"#,
            r#"{"a": {"$date": {"$numberLong": 5}}}"#,
            "{\"a\": \"\u{1}\"}",
            "\u{feff}{\"a\": 1}",
            "{\"a\": 1}\u{a0}",
            "",
        ];
        for text in declined {
            assert!(!agree(text), "read {text}");
        }
    }

    #[test]
    fn declines_deep_nesting_and_reads_what_is_shallow_enough() {
        let nest = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(agree(&nest(MAX_STRICT_DEPTH as usize)));
        assert!(!agree(&nest(MAX_STRICT_DEPTH as usize + 1)));
        assert!(!agree(&nest(200)));
    }

    /// Doubles are rounded as the shell's lexer rounds them, for numbers of every length.
    #[test]
    fn doubles_round_as_the_shell_rounds_them() {
        let mut rng = crate::support::rng::SplitMix64::new(7);
        let mut read = 0u32;
        for _ in 0..20_000 {
            let digits: String = (0..1 + rng.below(25))
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect();
            let point = rng.below(digits.len() as u64 + 1) as usize;
            let (int, frac) = digits.split_at(point);
            let int = int.trim_start_matches('0');
            let int = if int.is_empty() { "0" } else { int };
            let frac = if frac.is_empty() { "0" } else { frac };
            let exponent = rng.below(700) as i64 - 350;
            let sign = if rng.below(2) == 0 { "" } else { "-" };
            let text = format!("{sign}{int}.{frac}e{exponent}");
            read += u32::from(agree(&format!("{{\"d\": {text}}}")));
        }
        // Only the doubles out of range, and negative zeros, are declined.
        assert!(read > 17_000, "{read}");
    }
}
