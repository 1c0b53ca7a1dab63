//! IEEE 754-2008 decimal128 values, decoded from the BID encoding BSON stores.
//!
//! The `bson` crate only carries a decimal128 as 16 opaque bytes. MongoDB's order
//! (spec §1) and hash (spec §4) need its value: comparing it exactly with the other
//! numeric types, and rounding it half to even into an `i64` for hashing. This module
//! decodes the bytes into sign, exponent and coefficient and does that arithmetic
//! exactly, with a tiny private big integer where `u128` is not wide enough.

use crate::values::bigint::BigUint;
use std::cmp::Ordering;
use std::fmt;

/// The exponent bias of decimal128: a stored exponent of 6176 means `10^0`.
const EXPONENT_BIAS: i32 = 6176;

/// The largest canonical coefficient, `10^34 - 1`. Larger encoded coefficients are
/// non-canonical and IEEE 754-2008 says they must be read as zero.
const MAX_COEFFICIENT: u128 = 9_999_999_999_999_999_999_999_999_999_999_999;

/// A decoded decimal128 value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decimal {
    /// Not a number. Quiet and signalling NaNs, and their signs, are not told apart:
    /// MongoDB's order and hash treat every NaN alike.
    NaN,
    /// Positive or negative infinity.
    Infinity {
        /// True for `-Infinity`.
        negative: bool,
    },
    /// A finite value, `(-1)^negative × coefficient × 10^exponent`.
    Finite {
        /// The sign bit. A zero coefficient with the sign bit set is `-0`.
        negative: bool,
        /// The coefficient, at most `10^34 - 1` (34 decimal digits).
        coefficient: u128,
        /// The power of ten, from -6176 to 6111.
        exponent: i32,
    },
}

impl Decimal {
    /// Decodes the 16 little-endian bytes of a BSON decimal128.
    ///
    /// Both forms of the combination field are handled. In the form whose two top
    /// bits are `11` the implied coefficient is at least `2^113`, which is more than
    /// 34 digits, so such finite values are always non-canonical and read as zero.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        let bits = u128::from_le_bytes(bytes);
        let negative = bits >> 127 == 1;
        let combination = (bits >> 122) & 0x1f;
        if combination == 0x1f {
            return Decimal::NaN;
        }
        if combination == 0x1e {
            return Decimal::Infinity { negative };
        }
        let (exponent_bits, coefficient) = if (bits >> 125) & 0b11 == 0b11 {
            ((bits >> 111) & 0x3fff, 0)
        } else {
            let raw = bits & ((1u128 << 113) - 1);
            let coefficient = if raw > MAX_COEFFICIENT { 0 } else { raw };
            ((bits >> 113) & 0x3fff, coefficient)
        };
        // The exponent field has 14 bits, so the cast cannot lose anything.
        let exponent = exponent_bits as i32 - EXPONENT_BIAS;
        Decimal::Finite {
            negative,
            coefficient,
            exponent,
        }
    }

    /// Decodes a `bson` decimal128.
    pub fn from_bson(value: &bson::Decimal128) -> Self {
        Decimal::from_bytes(value.bytes())
    }

    /// True for NaN.
    pub fn is_nan(&self) -> bool {
        matches!(self, Decimal::NaN)
    }

    /// Converts to `i64` the way MongoDB does before hashing (spec §4): NaN becomes 0,
    /// values beyond the `i64` range saturate, and the rest round half to even.
    pub fn to_i64_saturating(&self) -> i64 {
        match *self {
            Decimal::NaN => 0,
            Decimal::Infinity { negative: true } => i64::MIN,
            Decimal::Infinity { negative: false } => i64::MAX,
            Decimal::Finite {
                negative,
                coefficient,
                exponent,
            } => {
                let magnitude = rounded_magnitude(coefficient, exponent);
                saturate(negative, magnitude)
            }
        }
    }

    /// Compares two decimals by exact value: NaN equals NaN and sorts first,
    /// `-0 == 0`, and `1.0 == 1.00`.
    pub fn cmp_decimal(&self, other: &Decimal) -> Ordering {
        match (self.class(), other.class()) {
            (Class::Nan, Class::Nan) => Ordering::Equal,
            (Class::Nan, _) => Ordering::Less,
            (_, Class::Nan) => Ordering::Greater,
            (Class::Signed(a), Class::Signed(b)) if a != b => a.cmp(&b),
            (Class::Signed(sign), _) => {
                let magnitude = match (*self, *other) {
                    (Decimal::Infinity { .. }, Decimal::Infinity { .. }) => Ordering::Equal,
                    (Decimal::Infinity { .. }, _) => Ordering::Greater,
                    (_, Decimal::Infinity { .. }) => Ordering::Less,
                    (
                        Decimal::Finite {
                            coefficient: c1,
                            exponent: e1,
                            ..
                        },
                        Decimal::Finite {
                            coefficient: c2,
                            exponent: e2,
                            ..
                        },
                    ) => cmp_decimal_magnitudes(c1, e1, c2, e2),
                    _ => Ordering::Equal,
                };
                if sign < 0 {
                    magnitude.reverse()
                } else {
                    magnitude
                }
            }
        }
    }

    /// Compares with an `i64` by exact value.
    pub fn cmp_i64(&self, other: i64) -> Ordering {
        self.cmp_decimal(&Decimal::Finite {
            negative: other < 0,
            coefficient: u128::from(other.unsigned_abs()),
            exponent: 0,
        })
    }

    /// Compares with an `f64` by exact value (not by rounding either side), with
    /// MongoDB's NaN rule: NaN equals NaN and sorts below every other number.
    pub fn cmp_f64(&self, other: f64) -> Ordering {
        if other.is_nan() {
            return if self.is_nan() {
                Ordering::Equal
            } else {
                Ordering::Greater
            };
        }
        let other_sign: i8 = if other > 0.0 {
            1
        } else if other < 0.0 {
            -1
        } else {
            0
        };
        match self.class() {
            Class::Nan => Ordering::Less,
            Class::Signed(sign) if sign != other_sign => sign.cmp(&other_sign),
            Class::Signed(0) => Ordering::Equal,
            Class::Signed(sign) => {
                let magnitude = match *self {
                    Decimal::Infinity { .. } if other.is_infinite() => Ordering::Equal,
                    Decimal::Infinity { .. } => Ordering::Greater,
                    _ if other.is_infinite() => Ordering::Less,
                    Decimal::Finite {
                        coefficient,
                        exponent,
                        ..
                    } => cmp_decimal_with_double_magnitude(coefficient, exponent, other.abs()),
                    Decimal::NaN => Ordering::Equal,
                };
                if sign < 0 {
                    magnitude.reverse()
                } else {
                    magnitude
                }
            }
        }
    }

    /// Sorts the value into NaN or a sign (-1, 0 or 1); zero has sign 0 whatever its
    /// sign bit, so that `-0 == 0`.
    fn class(&self) -> Class {
        match *self {
            Decimal::NaN => Class::Nan,
            Decimal::Infinity { negative } => Class::Signed(if negative { -1 } else { 1 }),
            Decimal::Finite { coefficient: 0, .. } => Class::Signed(0),
            Decimal::Finite { negative, .. } => Class::Signed(if negative { -1 } else { 1 }),
        }
    }
}

/// The sign class used by the comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Any NaN.
    Nan,
    /// A non-NaN value with its sign: -1, 0 or 1.
    Signed(i8),
}

impl fmt::Display for Decimal {
    /// Prints the value as MongoDB's `Decimal128::toString` does, which follows the
    /// "to-scientific-string" rule of the General Decimal Arithmetic specification:
    /// plain notation when the exponent is at most 0 and the adjusted exponent is at
    /// least -6, scientific notation (`1.5E+7`) otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Decimal::NaN => f.write_str("NaN"),
            Decimal::Infinity { negative } => {
                f.write_str(if negative { "-Infinity" } else { "Infinity" })
            }
            Decimal::Finite {
                negative,
                coefficient,
                exponent,
            } => {
                if negative {
                    f.write_str("-")?;
                }
                let digits = coefficient_digits(coefficient);
                // A coefficient has at most 34 digits, so the cast is exact.
                let adjusted = exponent + digits.len() as i32 - 1;
                if exponent <= 0 && adjusted >= -6 {
                    let point = digits.len() as i32 + exponent;
                    if exponent == 0 {
                        f.write_str(&digits)
                    } else if point > 0 {
                        let (int, frac) = digits.split_at(point as usize);
                        write!(f, "{int}.{frac}")
                    } else {
                        f.write_str("0.")?;
                        for _ in 0..(-point) {
                            f.write_str("0")?;
                        }
                        f.write_str(&digits)
                    }
                } else {
                    let (first, rest) = digits.split_at(1);
                    f.write_str(first)?;
                    if !rest.is_empty() {
                        write!(f, ".{rest}")?;
                    }
                    write!(f, "E{}{}", if adjusted >= 0 { "+" } else { "" }, adjusted)
                }
            }
        }
    }
}

/// The decimal digits of a coefficient (below 10^34), printed as two `u64` halves:
/// formatting a `u128` directly would link another integer formatter into the wasm.
fn coefficient_digits(c: u128) -> String {
    const HALF: u128 = 10_000_000_000_000_000_000; // 10^19
    match u64::try_from(c) {
        Ok(small) => small.to_string(),
        // c < 10^34, so c / 10^19 < 10^15 and both halves fit a u64.
        Err(_) => format!("{}{:019}", (c / HALF) as u64, (c % HALF) as u64),
    }
}

/// The number of decimal digits of `c` (1 for zero).
fn digit_count(mut c: u128) -> i32 {
    let mut n = 1;
    while c >= 10 {
        c /= 10;
        n += 1;
    }
    n
}

/// `10^n` for `n <= 38`, the largest power of ten a `u128` holds.
fn pow10(n: u32) -> u128 {
    10u128.pow(n)
}

/// Rounds `c × 10^e` half to even to an unsigned magnitude, or `None` when the
/// result does not fit a `u128` (which always saturates an `i64` anyway).
fn rounded_magnitude(c: u128, e: i32) -> Option<u128> {
    if c == 0 {
        return Some(0);
    }
    if e >= 0 {
        if e > 38 {
            return None;
        }
        return c.checked_mul(pow10(e.unsigned_abs()));
    }
    let shift = e.unsigned_abs();
    if shift > 38 {
        // The coefficient is below 10^34, so the value is below 10^-4: it rounds to 0.
        return Some(0);
    }
    let divisor = pow10(shift);
    let quotient = c / divisor;
    let remainder = c % divisor;
    // Compare the remainder with half the divisor without overflowing: the divisor
    // is even (a positive power of ten), so half of it is exact.
    let half = divisor / 2;
    let rounded = match remainder.cmp(&half) {
        Ordering::Greater => quotient + 1,
        Ordering::Equal if quotient % 2 == 1 => quotient + 1,
        _ => quotient,
    };
    Some(rounded)
}

/// Applies a sign to a magnitude and clamps it into the `i64` range.
fn saturate(negative: bool, magnitude: Option<u128>) -> i64 {
    let limit = 1u128 << 63;
    match (negative, magnitude) {
        (true, Some(m)) if m <= limit => {
            // m <= 2^63, so 0 - m fits i128 and then i64.
            i64::try_from(-(m as i128)).unwrap_or(i64::MIN)
        }
        (true, _) => i64::MIN,
        (false, Some(m)) => i64::try_from(m).unwrap_or(i64::MAX),
        (false, None) => i64::MAX,
    }
}

/// Compares `c1 × 10^e1` with `c2 × 10^e2`, both non-negative.
fn cmp_decimal_magnitudes(c1: u128, e1: i32, c2: u128, e2: i32) -> Ordering {
    match (c1 == 0, c2 == 0) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        (false, false) => {}
    }
    let (d1, d2) = (digit_count(c1), digit_count(c2));
    let (a1, a2) = (e1 + d1 - 1, e2 + d2 - 1);
    if a1 != a2 {
        return a1.cmp(&a2);
    }
    // Same adjusted exponent: align both coefficients to the same number of digits.
    // Both stay below 10^34 after scaling, so nothing overflows.
    if d1 < d2 {
        (c1 * pow10((d2 - d1).unsigned_abs())).cmp(&c2)
    } else {
        c1.cmp(&(c2 * pow10((d1 - d2).unsigned_abs())))
    }
}

/// Compares `c × 10^e` (with `c > 0`) with a finite, positive double exactly.
fn cmp_decimal_with_double_magnitude(c: u128, e: i32, d: f64) -> Ordering {
    // First a cheap test on orders of magnitude. `floor(log10(d))` can be off by one
    // through rounding, so only a gap of two or more decides.
    let adjusted = e + digit_count(c) - 1;
    // A finite positive double has log10 within -324..309, so the cast is exact.
    let double_adjusted = d.log10().floor() as i32;
    if adjusted > double_adjusted + 1 {
        return Ordering::Greater;
    }
    if adjusted < double_adjusted - 1 {
        return Ordering::Less;
    }
    // Close in magnitude: compare exactly. Write d = m × 2^k with m an integer, and
    // compare c × 10^e × 2^-k with m after moving every negative power to the other side.
    let (m, k) = decompose_double(d);
    let mut left = BigUint::from_u128(c);
    let mut right = BigUint::from_u128(u128::from(m));
    if e >= 0 {
        left.mul_pow10(u64::from(e.unsigned_abs()));
    } else {
        right.mul_pow10(u64::from(e.unsigned_abs()));
    }
    if k >= 0 {
        right.shl(u64::from(k.unsigned_abs()));
    } else {
        left.shl(u64::from(k.unsigned_abs()));
    }
    left.cmp(&right)
}

/// Splits a finite, positive double into an integer mantissa and a power of two.
fn decompose_double(d: f64) -> (u64, i32) {
    let bits = d.to_bits();
    // The biased exponent has 11 bits, so the cast is exact.
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    }
}

/// Encodes decimal text as Decimal128 bytes (little-endian, as BSON stores them), with the
/// bson crate's rules: an optional sign, `NaN`, `Inf` or `Infinity` in any case, or digits
/// with an optional point and exponent; at most 34 significant digits, and exponents
/// clamped into range only where no nonzero digit is lost (inexact rounding is refused).
///
/// The bson crate's own parser goes through a bit-slice library, several kilobytes of the
/// playground's download; this one is plain integer arithmetic, and a test holds the two
/// to the same bytes.
pub(crate) fn parse_decimal128_bytes(s: &str) -> Option<[u8; 16]> {
    const TINY: i128 = -6176;
    const MAX: i128 = 6111;
    const MAX_DIGITS: usize = 34;
    let (negative, body) = match s.strip_prefix(['-', '+']) {
        Some(rest) => (s.starts_with('-'), rest),
        None => (false, s),
    };
    let sign = u128::from(negative) << 127;
    let lower = body.to_ascii_lowercase();
    let bits = match lower.as_str() {
        "nan" => sign | (0x7c << 120),
        "snan" => sign | (0x7e << 120),
        "inf" | "infinity" => sign | (0x78 << 120),
        finite => {
            let (mantissa, exp_text) = match finite.split_once('e') {
                None => (finite, "0"),
                Some((_, "")) => return None,
                Some(parts) => parts,
            };
            let mut exponent: i128 = exp_text.parse().ok()?;
            let mut digits = match mantissa.split_once('.') {
                Some((int, frac)) => {
                    exponent = exponent.checked_sub(i128::try_from(frac.len()).ok()?)?;
                    format!("{int}{frac}")
                }
                None => mantissa.to_owned(),
            };
            let trimmed = digits.trim_start_matches('0');
            digits = if trimmed.is_empty() {
                "0".to_owned()
            } else {
                trimmed.to_owned()
            };
            // Dropping digits is allowed only when they are all zeros.
            let exact_cut = |digits: &str, keep: usize| -> Option<String> {
                let (kept, dropped) = digits.split_at_checked(keep)?;
                dropped.bytes().all(|c| c == b'0').then(|| kept.to_owned())
            };
            if digits.len() > MAX_DIGITS {
                let len = digits.len();
                digits = exact_cut(&digits, MAX_DIGITS)?;
                exponent = exponent.checked_add(i128::try_from(len - digits.len()).ok()?)?;
            }
            if exponent < TINY {
                if digits != "0" {
                    let delta = usize::try_from(TINY - exponent).ok()?;
                    digits = exact_cut(&digits, digits.len().checked_sub(delta)?)?;
                }
                exponent = TINY;
            }
            if exponent > MAX {
                if digits != "0" {
                    let delta = usize::try_from(exponent - MAX).ok()?;
                    if digits.len().checked_add(delta)? > MAX_DIGITS {
                        return None;
                    }
                    digits.extend(std::iter::repeat_n('0', delta));
                }
                exponent = MAX;
            }
            let coefficient: u128 = digits.parse().ok()?;
            // Below 10^34 < 2^113, so the coefficient always fits the plain layout: sign,
            // 14 exponent bits biased by 6176, 113 coefficient bits.
            sign | (((exponent - TINY) as u128) << 113) | coefficient
        }
    };
    Some(bits.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::Decimal;
    use proptest::prelude::*;

    /// Our `Display` stands in for the bson crate's: they must agree on every encoding.
    fn same(bytes: [u8; 16]) {
        let ours = Decimal::from_bytes(bytes).to_string();
        let theirs = bson::Decimal128::from_bytes(bytes).to_string();
        assert_eq!(ours, theirs, "{bytes:02x?}");
    }

    #[test]
    fn special_encodings_print_as_the_bson_crate_prints_them() {
        let mut cases: Vec<[u8; 16]> = vec![[0; 16], [0xff; 16]];
        for top in [
            0x78u8, 0x7c, 0x7e, 0xf8, 0xfc, 0xfe, 0x60, 0x6f, 0x30, 0xb0, 0x22, 0x5f,
        ] {
            for low in [0u8, 1, 9, 0xff] {
                let mut b = [0u8; 16];
                b[15] = top;
                b[14] = 0x40;
                b[0] = low;
                cases.push(b);
            }
        }
        for b in cases {
            same(b);
        }
    }

    proptest! {
        #[test]
        fn random_encodings_print_as_the_bson_crate_prints_them(bytes in any::<[u8; 16]>()) {
            same(bytes);
        }

        #[test]
        fn canonical_values_print_as_the_bson_crate_prints_them(
            coefficient in any::<u128>(), exponent in 0u16..12288, negative in any::<bool>(),
            wide in any::<bool>()
        ) {
            // Sign, a 14-bit biased exponent, then a coefficient below 10^34 (wider than
            // 64 bits half the time).
            let coefficient = if wide {
                coefficient % (super::MAX_COEFFICIENT + 1)
            } else {
                coefficient % (1 << 64)
            };
            let bits = (u128::from(negative) << 127) | (u128::from(exponent) << 113) | coefficient;
            same(bits.to_le_bytes());
        }
    }

    fn same_parse(s: &str) {
        let ours = super::parse_decimal128_bytes(s);
        let theirs = s.parse::<bson::Decimal128>().ok().map(|d| d.bytes());
        assert_eq!(ours, theirs, "{s}");
    }

    #[test]
    fn edge_texts_parse_as_the_bson_crate_parses_them() {
        for s in [
            "0",
            "-0",
            "+0",
            "1",
            "-1",
            "1.5",
            ".5",
            "5.",
            "1e5",
            "1E-5",
            "1e+5",
            "1e",
            "e5",
            "",
            "NaN",
            "-nan",
            "sNaN",
            "Inf",
            "-Infinity",
            "infinity",
            "1.2.3",
            "1e1e1",
            "12a",
            "1234567890123456789012345678901234",
            "12345678901234567890123456789012345",
            "12345678901234567890123456789012340",
            "1e6111",
            "1e6112",
            "1e6144",
            "1e6145",
            "1e-6176",
            "1e-6177",
            "10e-6177",
            "0e99999",
            "0e-99999",
            "1e99999999999999999999999999999999999999999",
            "0.000000000000000000000000000000000000001",
            "-1.23e-6170",
            "9.999999999999999999999999999999999e6144",
            "+",
            "-",
            ".",
            "1e+",
            "1e-",
            "00012.3400",
        ] {
            same_parse(s);
        }
    }

    proptest! {
        #[test]
        fn random_texts_parse_as_the_bson_crate_parses_them(
            s in "[+-]?[0-9]{0,40}(\\.[0-9]{0,40})?([eE][+-]?[0-9]{1,5})?"
        ) {
            same_parse(&s);
        }
    }
}
