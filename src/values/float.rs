//! Decimal text to `f64`, correctly rounded, without the standard library's tables.
//!
//! `str::parse::<f64>` is exact, but it carries a 10 KB table of powers of five that
//! does not compress, a tenth of everything the playground's page downloads for number
//! parsing alone. The shell parses numbers rarely (a literal here, a `Double("..")`
//! there), so this module trades speed for size: the common case, at most 19
//! significant digits and a small exponent, is one exact multiplication or division
//! (Clinger's fast path); anything else is settled with exact big-integer arithmetic.
//! Both paths round to nearest, ties to even, as IEEE 754 and `str::parse` do, and the
//! unit tests hold this module to `str::parse` on every kind of input.

use crate::values::bigint::BigUint;

/// Parses `s` as `str::parse::<f64>` does, with the same grammar: an optional sign, then
/// `inf`, `infinity` or `nan` in any case, or decimal digits with an optional fraction
/// and an optional exponent. No whitespace, no underscores.
pub(crate) fn parse_f64(s: &str) -> Option<f64> {
    let (negative, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = if body.eq_ignore_ascii_case("inf") || body.eq_ignore_ascii_case("infinity") {
        f64::INFINITY
    } else if body.eq_ignore_ascii_case("nan") {
        f64::NAN
    } else {
        parse_decimal(body.as_bytes())?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// An unsigned decimal `digits[.digits][(e|E)[+|-]digits]`.
fn parse_decimal(b: &[u8]) -> Option<f64> {
    let mut digits: Vec<u8> = Vec::new();
    let mut exp10: i64 = 0;
    let mut i = 0;
    let mut any = false;
    while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        if !(digits.is_empty() && c == b'0') {
            digits.push(c - b'0');
        }
        any = true;
        i += 1;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if !(digits.is_empty() && c == b'0') {
                digits.push(c - b'0');
            }
            exp10 -= 1;
            any = true;
            i += 1;
        }
    }
    if !any {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut e: i64 = 0;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            // Saturate: beyond this the value is 0 or infinity whatever the digits.
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp10 += if negative { -e } else { e };
    }
    if i != b.len() {
        return None;
    }
    // Leading zeros were skipped above; trailing zeros only scale the exponent.
    while digits.last() == Some(&0) {
        digits.pop();
        exp10 += 1;
    }
    if digits.is_empty() {
        return Some(0.0);
    }
    // The value is `digits × 10^exp10` and lies in [10^(top-1), 10^top).
    let top = exp10 + digits.len() as i64;
    if top > 310 {
        return Some(f64::INFINITY);
    }
    if top < -324 {
        return Some(0.0);
    }
    if let Some(v) = fast_path(&digits, exp10) {
        return Some(v);
    }
    Some(slow_path(&digits, exp10))
}

/// Clinger's fast path: a mantissa below 2^53 and a power of ten that is itself an exact
/// `f64` give a correctly rounded result in one IEEE operation.
fn fast_path(digits: &[u8], exp10: i64) -> Option<f64> {
    if digits.len() > 15 || !(-22..=22).contains(&exp10) {
        return None;
    }
    let mantissa = digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d));
    let power = (0..exp10.unsigned_abs()).fold(1.0f64, |p, _| p * 10.0);
    Some(if exp10 >= 0 {
        mantissa as f64 * power
    } else {
        mantissa as f64 / power
    })
}

/// Exact arithmetic: `q = floor(n × 2^s / d)` with about 66 significant bits plus a
/// sticky bit for the remainder, then one rounding to the `f64` grid.
fn slow_path(digits: &[u8], exp10: i64) -> f64 {
    let mut num = BigUint::from_u128(0);
    for &d in digits {
        num.mul_add(10, u32::from(d));
    }
    let mut den = BigUint::from_u128(1);
    if exp10 >= 0 {
        num.mul_pow10(exp10.unsigned_abs());
    } else {
        den.mul_pow10(exp10.unsigned_abs());
    }
    // Scale so that the quotient has 65 or 66 bits: 2^64 ≤ n·2^s/d < 2^66.
    let s = 65 - (num.bits() as i64 - den.bits() as i64);
    if s >= 0 {
        num.shl(s.unsigned_abs());
    } else {
        den.shl(s.unsigned_abs());
    }
    let (q, sticky) = num.div_small_quotient(&den);
    round_to_f64(q, sticky, s)
}

/// Rounds `(q + sticky·ε) × 2^-s` to nearest, ties to even.
fn round_to_f64(q: u128, sticky: bool, s: i64) -> f64 {
    let len = 128 - i64::from(q.leading_zeros());
    // The value lies in [2^e, 2^(e+1)); its ulp is 2^ulp, never below the subnormal step.
    let e = len - 1 - s;
    let ulp = (e - 52).max(-1074);
    let drop = ulp + s;
    if drop > len {
        return 0.0;
    }
    let (mut m, round_up) = if drop <= 0 {
        (q << (-drop), false)
    } else {
        let rest = q & ((1u128 << drop) - 1);
        let half = 1u128 << (drop - 1);
        let m = q >> drop;
        (m, rest > half || (rest == half && (sticky || m & 1 == 1)))
    };
    if round_up {
        m += 1;
    }
    let mut ulp = ulp;
    if m == 1 << 53 {
        m >>= 1;
        ulp += 1;
    }
    if m == 0 {
        return 0.0;
    }
    if m < 1 << 52 {
        // Subnormal: the exponent field is zero.
        return f64::from_bits(m as u64);
    }
    let biased = ulp + 1075;
    if biased >= 2047 {
        return f64::INFINITY;
    }
    f64::from_bits(((biased as u64) << 52) | (m as u64 & ((1 << 52) - 1)))
}

#[cfg(test)]
mod tests {
    use super::parse_f64;
    use proptest::prelude::*;

    fn same(s: &str) {
        let want = s.parse::<f64>().ok().map(f64::to_bits);
        let got = parse_f64(s).map(f64::to_bits);
        assert_eq!(got, want, "{s}");
    }

    #[test]
    fn edge_cases_match_the_standard_parser() {
        for s in [
            "0", "-0", "+0", "0.0", "00", "1", "-1", "0.1", "0.3", ".5", "5.", "1e10", "1E-10",
            "1e+5", "123.456e-7", "9007199254740992", "9007199254740993", "9007199254740995",
            "9007199254740993.000000000000000000001", "1.7976931348623157e308",
            "1.7976931348623158e308", "1.7976931348623159e308", "1e309", "1e-400",
            "2.2250738585072011e-308", "2.2250738585072014e-308", "4.9406564584124654e-324",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "5e-324", "1e-323",
            "123456789012345678901234567890", "0.000000000000000000000000000001234",
            "1e22", "1e23", "8.98846567431158e307", "3.141592653589793238462643383279",
            "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368",
            "inf", "-Infinity", "NaN", "nan", "INF", "",
            "-", "+", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "1_000", "0x10", "1d", "--1",
            "infinit", "1e99999999999999999999", "1e-99999999999999999999", "0e99999999999",
        ] {
            same(s);
        }
    }

    proptest! {
        #[test]
        fn random_mantissas_and_exponents(m in any::<u64>(), e in -360i32..360, frac in 0usize..25) {
            let digits = m.to_string();
            let cut = frac.min(digits.len());
            let (int, dec) = digits.split_at(digits.len() - cut);
            let s = format!("{}.{dec}e{e}", if int.is_empty() { "0" } else { int });
            same(&s);
        }

        #[test]
        fn long_digit_strings(d in "[0-9]{1,60}", e in -340i32..320) {
            same(&format!("{d}e{e}"));
        }

        /// Exact midpoints between two neighbouring doubles (ties, rounded to even), and
        /// the same plus a hair (rounded up).
        #[test]
        fn halfway_cases(k in (1u128 << 52)..(1u128 << 53), p in -20i32..70) {
            let odd = 2 * k + 1;
            let exact = if p >= 1 {
                (odd << (p - 1)).to_string()
            } else {
                // odd / 2^(1-p) = odd × 5^(1-p) / 10^(1-p)
                let q = (1 - p) as u32;
                let scaled = (odd * 5u128.pow(q)).to_string();
                let (int, frac) = scaled.split_at(scaled.len() - q as usize);
                format!("{}.{frac}", if int.is_empty() { "0" } else { int })
            };
            same(&exact);
            let above = if exact.contains('.') { format!("{exact}0000001") } else { format!("{exact}.0000001") };
            same(&above);
        }

        #[test]
        fn every_double_round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            same(&format!("{x:e}"));
            same(&format!("{x}"));
            same(&format!("{x:.30e}"));
        }
    }
}
