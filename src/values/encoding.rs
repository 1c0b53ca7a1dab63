//! Base64, hex and ISO-8601 date text, written by hand to keep the core's
//! dependencies small.
//!
//! Dates follow JavaScript's `Date`: proleptic Gregorian calendar, UTC, millisecond
//! precision, years outside 0..=9999 written with a sign and six (or more) digits.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes bytes as standard base64 with `=` padding.
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes standard base64; padding is optional, whitespace and other characters are
/// errors. Returns `None` on malformed input.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
        }
    }
    // A single leftover sextet cannot encode a byte.
    if trimmed.len() % 4 == 1 {
        return None;
    }
    Some(out)
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
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize, n: usize| -> Option<i64> {
        let s = text.get(*i..*i + n)?;
        if !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        *i += n;
        s.parse().ok()
    };
    let year = match b.first()? {
        b'+' | b'-' => {
            let neg = b[0] == b'-';
            i = 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i - start < 6 {
                return None;
            }
            let y: i64 = text[start..i].parse().ok()?;
            if neg {
                -y
            } else {
                y
            }
        }
        _ => digits(&mut i, 4)?,
    };
    let sep = b.get(i) == Some(&b'-');
    if sep {
        i += 1;
    }
    let month = digits(&mut i, 2)?;
    if sep {
        if b.get(i) != Some(&b'-') {
            return None;
        }
        i += 1;
    }
    let day = digits(&mut i, 2)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let (month, day) = (u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let (mut h, mut mi, mut s, mut ms, mut offset) = (0i64, 0i64, 0i64, 0i64, 0i64);
    if matches!(b.get(i), Some(b'T' | b't' | b' ')) {
        i += 1;
        h = digits(&mut i, 2)?;
        let colon = b.get(i) == Some(&b':');
        if colon {
            i += 1;
        }
        if b.get(i).is_some_and(u8::is_ascii_digit) {
            mi = digits(&mut i, 2)?;
            let colon2 = b.get(i) == Some(&b':');
            if colon2 {
                i += 1;
            }
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                s = digits(&mut i, 2)?;
                if matches!(b.get(i), Some(b'.' | b',')) {
                    i += 1;
                    let start = i;
                    while b.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                    let frac = &text[start..i];
                    if frac.is_empty() {
                        return None;
                    }
                    let mut three: String = frac.chars().take(3).collect();
                    while three.len() < 3 {
                        three.push('0');
                    }
                    ms = three.parse().ok()?;
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
        match b.get(i) {
            Some(b'Z' | b'z') => i += 1,
            Some(&c @ (b'+' | b'-')) => {
                i += 1;
                let oh = digits(&mut i, 2)?;
                if b.get(i) == Some(&b':') {
                    i += 1;
                }
                let om = if b.get(i).is_some_and(u8::is_ascii_digit) {
                    digits(&mut i, 2)?
                } else {
                    0
                };
                if oh > 23 || om > 59 {
                    return None;
                }
                offset = (oh * 60 + om) * 60_000;
                if c == b'-' {
                    offset = -offset;
                }
            }
            _ => {}
        }
    } else if b.get(i) == Some(&b'Z') {
        i += 1;
    }
    if i != b.len() || year.abs() > 300_000_000 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    days.checked_mul(86_400_000)?
        .checked_add(h * 3_600_000 + mi * 60_000 + s * 1000 + ms)?
        .checked_sub(offset)
}
