//! Base64, hex and ISO-8601 date text, written by hand to keep the core's
//! dependencies small.
//!
//! Dates follow JavaScript's `Date`: proleptic Gregorian calendar, UTC, millisecond
//! precision, years outside 0..=9999 written with a sign and six (or more) digits.

/// A base64 dialect: its alphabet, whether it pads, and how strictly it decodes.
///
/// The crate needs two: [`BASE64`] for Extended JSON and mongosh's `BinData`, and
/// [`BASE64URL`] for scenario links. One coder serves both, so that the two differ only
/// in these three settings.
#[derive(Debug, Clone, Copy)]
pub struct Base64 {
    /// The 64 letters, in value order.
    alphabet: &'static [u8; 64],
    /// Whether the encoder pads with `=` to a multiple of four characters, and the
    /// decoder accepts (but does not require) up to two trailing `=`.
    padded: bool,
    /// Whether the decoder takes this alphabet only and refuses a non-zero unused tail,
    /// so that every byte string has exactly one spelling. A lenient decoder also takes
    /// the other dialect's two last letters (`-` for `+`, `_` for `/` and back) and ignores
    /// the tail bits, as drivers do.
    strict: bool,
}

/// Standard base64 (RFC 4648 section 4) with `=` padding; decodes leniently.
pub const BASE64: Base64 = Base64 {
    alphabet: b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    padded: true,
    strict: false,
};

/// URL-safe base64 (RFC 4648 section 5) without padding; decodes strictly.
pub const BASE64URL: Base64 = Base64 {
    alphabet: b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    padded: false,
    strict: true,
};

impl Base64 {
    /// Encodes bytes.
    pub fn encode(&self, bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        self.encode_into(bytes, &mut out);
        out
    }

    /// Encodes bytes at the end of `out`.
    pub fn encode_into(&self, bytes: &[u8], out: &mut String) {
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            // A chunk of k bytes needs k + 1 letters; padding fills the rest of four.
            for i in 0..=chunk.len() {
                out.push(char::from(
                    self.alphabet[((n >> (18 - 6 * i)) & 63) as usize],
                ));
            }
            if self.padded {
                for _ in chunk.len()..3 {
                    out.push('=');
                }
            }
        }
    }

    /// Decodes text, or returns the byte offset of the first character that makes it
    /// invalid: a letter outside the alphabet, a group of four that ends after one
    /// letter, padding where there may be none, or (when strict) a non-zero unused tail.
    pub fn decode(&self, text: &str) -> Result<Vec<u8>, usize> {
        let body = if self.padded {
            let trimmed = text.trim_end_matches('=');
            if text.len() - trimmed.len() > 2 {
                return Err(trimmed.len() + 2);
            }
            trimmed
        } else {
            text
        };
        let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
        for (ci, chunk) in body.as_bytes().chunks(4).enumerate() {
            // A single leftover letter cannot encode a byte.
            if chunk.len() == 1 {
                return Err(ci * 4);
            }
            let mut n = 0u32;
            for (k, &c) in chunk.iter().enumerate() {
                let v = self.letter_value(c).ok_or(ci * 4 + k)?;
                n |= v << (18 - 6 * k);
            }
            let produced = chunk.len() - 1;
            let full = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            if self.strict && full[produced..].iter().any(|&b| b != 0) {
                return Err(ci * 4 + chunk.len() - 1);
            }
            out.extend_from_slice(&full[..produced]);
        }
        Ok(out)
    }

    /// The six bits a letter stands for.
    fn letter_value(&self, c: u8) -> Option<u32> {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            _ if c == self.alphabet[62] => 62,
            _ if c == self.alphabet[63] => 63,
            b'+' | b'-' if !self.strict => 62,
            b'/' | b'_' if !self.strict => 63,
            _ => return None,
        };
        Some(u32::from(v))
    }
}

/// Encodes bytes as lowercase hex.
pub fn hex_encode(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}

/// Decodes hex (either case). Returns `None` on an odd length or a non-hex digit.
pub fn hex_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    let digits: Option<Vec<u8>> = text
        .chars()
        .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
        .collect();
    let digits = digits?;
    Some(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// Formats milliseconds since the epoch as JavaScript's `Date.prototype.toISOString`
/// does (`2020-01-01T00:00:00.000Z`, or `+010000-01-01T...` beyond year 9999).
pub fn format_iso(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:06}", y.unsigned_abs())
    } else {
        format!("+{y:06}")
    };
    format!("{year}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// Formats milliseconds since the epoch as JavaScript's `Date()` string in UTC, such as
/// `Wed Jan 01 2020 00:00:00 GMT+0000 (Coordinated Universal Time)`.
pub fn format_js_date_string(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let wd = DAYS[days.rem_euclid(7) as usize];
    let mon = MONTHS[(m - 1) as usize];
    let year = if y < 0 {
        format!("-{:06}", y.unsigned_abs())
    } else {
        format!("{y:04}")
    };
    format!(
        "{wd} {mon} {d:02} {year} {:02}:{:02}:{:02} GMT+0000 (Coordinated Universal Time)",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60
    )
}

/// Milliseconds since the epoch of a UTC date and time, with JavaScript's
/// `Date.UTC` overflow rules for out-of-range months, days and times.
pub fn utc_millis(y: f64, mon: f64, d: f64, h: f64, mi: f64, s: f64, ms: f64) -> Option<f64> {
    let all = [y, mon, d, h, mi, s, ms];
    if all.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let [y, mon, d, h, mi, s, ms] = all.map(f64::trunc);
    let ym = y + (mon / 12.0).floor();
    let mn = mon.rem_euclid(12.0);
    if ym.abs() > 400_000.0 {
        return None;
    }
    let day = days_from_civil(ym as i64, mn as u32 + 1, 1) as f64 + d - 1.0;
    let t = day * 86_400_000.0 + h * 3_600_000.0 + mi * 60_000.0 + s * 1000.0 + ms;
    if t.abs() > 8.64e15 {
        return None;
    }
    Some(t)
}

/// Parses the ISO-8601 forms that mongosh's `ISODate()` and JavaScript's `Date`
/// accept: `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` (also with a space and
/// without separators) and `Z` or `±HH[:MM]`; extended years `±YYYYYY` too.
/// Date-only and zone-less forms are UTC. Returns milliseconds since the epoch.
pub fn parse_iso(text: &str) -> Option<i64> {
    let mut cur = IsoCursor { text, i: 0 };
    let (year, month, day) = cur.date()?;
    let (mut clock, mut offset) = (0i64, 0i64);
    if matches!(cur.peek(), Some(b'T' | b't' | b' ')) {
        cur.i += 1;
        clock = cur.time()?;
        offset = cur.zone()?;
    } else if cur.peek() == Some(b'Z') {
        cur.i += 1;
    }
    if cur.i != text.len() || year.abs() > 300_000_000 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    days.checked_mul(86_400_000)?
        .checked_add(clock)?
        .checked_sub(offset)
}

/// [`parse_iso`]'s position in the text, with a reader for each part of a date.
struct IsoCursor<'a> {
    /// The whole text.
    text: &'a str,
    /// The byte offset of the next character to read.
    i: usize,
}

impl<'a> IsoCursor<'a> {
    /// The byte at the position.
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.i).copied()
    }

    /// True when the byte at the position is a digit.
    fn at_digit(&self) -> bool {
        self.peek().is_some_and(|c| c.is_ascii_digit())
    }

    /// Steps over `c` if it is next; says whether it was.
    fn eat(&mut self, c: u8) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.i += 1;
        }
        found
    }

    /// Exactly `n` digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let s = self.text.get(self.i..self.i + n)?;
        if !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        self.i += n;
        s.parse().ok()
    }

    /// A run of digits, possibly empty.
    fn digit_run(&mut self) -> &'a str {
        let start = self.i;
        while self.at_digit() {
            self.i += 1;
        }
        &self.text[start..self.i]
    }

    /// `YYYY-MM-DD` or `YYYYMMDD` (or an extended year), checked against the calendar.
    fn date(&mut self) -> Option<(i64, u32, u32)> {
        let year = match self.peek()? {
            sign @ (b'+' | b'-') => {
                self.i += 1;
                let run = self.digit_run();
                if run.len() < 6 {
                    return None;
                }
                let y: i64 = run.parse().ok()?;
                if sign == b'-' {
                    -y
                } else {
                    y
                }
            }
            _ => self.digits(4)?,
        };
        let sep = self.eat(b'-');
        let month = self.digits(2)?;
        if sep && !self.eat(b'-') {
            return None;
        }
        let day = self.digits(2)?;
        if !(1..=12).contains(&month) {
            return None;
        }
        let (month, day) = (u32::try_from(month).ok()?, u32::try_from(day).ok()?);
        if day < 1 || day > days_in_month(year, month) {
            return None;
        }
        Some((year, month, day))
    }

    /// `HH[:MM[:SS[.fff]]]` (colons optional) after the `T`: milliseconds into the day.
    fn time(&mut self) -> Option<i64> {
        let h = self.digits(2)?;
        let (mut mi, mut s, mut ms) = (0i64, 0i64, 0i64);
        let colon = self.eat(b':');
        if self.at_digit() {
            mi = self.digits(2)?;
            let colon2 = self.eat(b':');
            if self.at_digit() {
                s = self.digits(2)?;
                if matches!(self.peek(), Some(b'.' | b',')) {
                    self.i += 1;
                    ms = self.fraction()?;
                }
            } else if colon2 {
                return None;
            }
        } else if colon {
            return None;
        }
        if h > 24 || mi > 59 || s > 59 || (h == 24 && (mi, s, ms) != (0, 0, 0)) {
            return None;
        }
        Some(h * 3_600_000 + mi * 60_000 + s * 1000 + ms)
    }

    /// The digits after a decimal point, as milliseconds (cut or padded to three).
    fn fraction(&mut self) -> Option<i64> {
        let frac = self.digit_run();
        if frac.is_empty() {
            return None;
        }
        let mut three: String = frac.chars().take(3).collect();
        while three.len() < 3 {
            three.push('0');
        }
        three.parse().ok()
    }

    /// An optional `Z` or `±HH[:MM]` zone: milliseconds east of UTC.
    fn zone(&mut self) -> Option<i64> {
        match self.peek() {
            Some(b'Z' | b'z') => {
                self.i += 1;
                Some(0)
            }
            Some(sign @ (b'+' | b'-')) => {
                self.i += 1;
                let oh = self.digits(2)?;
                self.eat(b':');
                let om = if self.at_digit() { self.digits(2)? } else { 0 };
                if oh > 23 || om > 59 {
                    return None;
                }
                let offset = (oh * 60 + om) * 60_000;
                Some(if sign == b'-' { -offset } else { offset })
            }
            _ => Some(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BASE64, BASE64URL};

    #[test]
    fn base64url_round_trips_every_tail_length() {
        for n in 0..8u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(97)).collect();
            let mut s = String::new();
            BASE64URL.encode_into(&bytes, &mut s);
            assert_eq!(BASE64URL.decode(&s), Ok(bytes));
        }
    }

    #[test]
    fn base64_pads_and_decodes_either_alphabet() {
        assert_eq!(BASE64.encode(b"\xfb\xff"), "+/8=");
        assert_eq!(BASE64URL.encode(b"\xfb\xff"), "-_8");
        assert_eq!(BASE64.decode("+/8="), Ok(vec![0xfb, 0xff]));
        assert_eq!(BASE64.decode("-_8"), Ok(vec![0xfb, 0xff]));
        // The lenient decoder ignores a non-zero tail; the strict one refuses it.
        assert_eq!(BASE64.decode("-_9"), Ok(vec![0xfb, 0xff]));
        assert_eq!(BASE64URL.decode("-_9"), Err(2));
        assert_eq!(BASE64URL.decode("+/8"), Err(0));
        assert!(BASE64.decode("AA===").is_err());
        assert!(BASE64.decode("A").is_err());
    }
}
