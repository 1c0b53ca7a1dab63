//! The value order of spec §1: a table of values in ascending order, where each
//! row holds values that must compare equal, plus properties over generated values.
//!
//! The value builders and the `arb_bson` strategy here are shared with the hash and
//! shard key tests.
#![allow(clippy::unwrap_used)]

use bson::spec::BinarySubtype;
use bson::{doc, Bson, Document};
use shardlab::values::{canonical_class, compare_values};

/// A decimal128 parsed from its string form.
pub fn dec(s: &str) -> Bson {
    Bson::Decimal128(s.parse().expect("a valid decimal128 literal"))
}

/// A regular expression value.
pub fn regex(pattern: &str, options: &str) -> Bson {
    Bson::RegularExpression(bson::Regex {
        pattern: bson::raw::CString::try_from(pattern).unwrap(),
        options: bson::raw::CString::try_from(options).unwrap(),
    })
}

/// A binData value.
pub fn bin(subtype: u8, bytes: &[u8]) -> Bson {
    Bson::Binary(bson::Binary {
        subtype: BinarySubtype::from(subtype),
        bytes: bytes.to_vec(),
    })
}

/// An ObjectId from 24 hex digits.
pub fn oid(hex: &str) -> Bson {
    Bson::ObjectId(bson::oid::ObjectId::parse_str(hex).unwrap())
}

/// A timestamp.
pub fn ts(time: u32, increment: u32) -> Bson {
    Bson::Timestamp(bson::Timestamp { time, increment })
}

/// A date from signed milliseconds.
pub fn date(ms: i64) -> Bson {
    Bson::DateTime(bson::DateTime::from_millis(ms))
}

/// Code with scope.
pub fn cws(code: &str, scope: Document) -> Bson {
    Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
        code: code.to_owned(),
        scope,
    })
}

/// A DBPointer. The `bson` crate offers no constructor, so the value is decoded
/// from hand-written BSON bytes: `{p: DBPointer(ns, id)}`.
pub fn dbpointer(ns: &str, id: [u8; 12]) -> Bson {
    let mut body = vec![0x0C, b'p', 0];
    body.extend_from_slice(&(ns.len() as i32 + 1).to_le_bytes());
    body.extend_from_slice(ns.as_bytes());
    body.push(0);
    body.extend_from_slice(&id);
    body.push(0);
    let mut bytes = ((body.len() + 4) as i32).to_le_bytes().to_vec();
    bytes.extend_from_slice(&body);
    let doc = Document::from_reader(&bytes[..]).unwrap();
    doc.get("p").cloned().unwrap()
}

/// The values of the order table, ascending; every value in a row is equal to the
/// others in its row and strictly below every value of later rows.
fn table() -> Vec<Vec<Bson>> {
    let two_pow_53 = 9_007_199_254_740_992i64;
    vec![
        vec![Bson::MinKey],
        vec![Bson::Undefined],
        vec![Bson::Null],
        // NaN equals NaN, whatever its type, and sorts below -Infinity.
        vec![
            Bson::Double(f64::NAN),
            Bson::Double(-f64::NAN),
            dec("NaN"),
            dec("-NaN"),
        ],
        vec![Bson::Double(f64::NEG_INFINITY), dec("-Infinity")],
        vec![dec("-1E+400")],
        vec![Bson::Double(f64::MIN)],
        vec![
            Bson::Int64(i64::MIN),
            Bson::Double(-9_223_372_036_854_775_808.0),
            dec("-9223372036854775808"),
        ],
        vec![Bson::Int64(i64::MIN + 1), dec("-9223372036854775807")],
        vec![Bson::Double(-1.5), dec("-1.5"), dec("-1.50")],
        vec![
            Bson::Int32(-1),
            Bson::Int64(-1),
            Bson::Double(-1.0),
            dec("-1"),
            dec("-1.000"),
        ],
        vec![
            Bson::Int32(0),
            Bson::Int64(0),
            Bson::Double(0.0),
            Bson::Double(-0.0),
            dec("0"),
            dec("-0"),
            dec("0E+10"),
            dec("0E-20"),
        ],
        // The smallest subnormal double is exactly 4.94065645841246544176...E-324.
        vec![dec("4.9406564584124654E-324")],
        vec![Bson::Double(f64::from_bits(1))],
        vec![dec("4.9406564584124655E-324")],
        // The double 0.1 is exactly 0.1000000000000000055511151231257827021181583...
        vec![dec("0.1")],
        vec![dec("0.1000000000000000055511151231257827")],
        vec![Bson::Double(0.1)],
        vec![dec("0.1000000000000000055511151231257828")],
        vec![
            Bson::Int32(1),
            Bson::Int64(1),
            Bson::Double(1.0),
            dec("1"),
            dec("1.0"),
            dec("1.00"),
            dec("0.1E+1"),
            dec("100E-2"),
        ],
        vec![Bson::Double(1.5), dec("1.5")],
        vec![Bson::Int32(2), Bson::Int64(2), Bson::Double(2.0), dec("2")],
        vec![Bson::Int32(i32::MAX), Bson::Int64(i64::from(i32::MAX))],
        vec![
            Bson::Int64(two_pow_53),
            Bson::Double(9_007_199_254_740_992.0),
            dec("9007199254740992"),
        ],
        // 2^53 + 1 has no double: casting it to f64 would wrongly make it equal 2^53.
        vec![Bson::Int64(two_pow_53 + 1), dec("9007199254740993")],
        vec![
            Bson::Int64(two_pow_53 + 2),
            Bson::Double(9_007_199_254_740_994.0),
        ],
        vec![Bson::Double(9_223_372_036_854_774_784.0)],
        vec![Bson::Int64(i64::MAX), dec("9223372036854775807")],
        vec![
            Bson::Double(9_223_372_036_854_775_808.0),
            dec("9223372036854775808"),
        ],
        vec![Bson::Double(f64::MAX)],
        vec![dec("1E+400"), dec("10E+399")],
        vec![Bson::Double(f64::INFINITY), dec("Infinity")],
        // Strings and symbols: raw bytes, a proper prefix first.
        vec![Bson::String(String::new()), Bson::Symbol(String::new())],
        vec![Bson::String("A".into())],
        vec![Bson::String("a".into()), Bson::Symbol("a".into())],
        vec![Bson::String("ab".into())],
        vec![Bson::String("b".into())],
        vec![Bson::String("z".into())],
        vec![Bson::String("é".into())],
        // Objects: class of the value, then field name, then value.
        vec![Bson::Document(doc! {})],
        vec![Bson::Document(doc! {"b": Bson::Null})],
        vec![
            Bson::Document(doc! {"a": 1}),
            Bson::Document(doc! {"a": 1.0}),
            Bson::Document(doc! {"a": 1i64}),
        ],
        vec![Bson::Document(doc! {"a": 1, "b": 1})],
        vec![Bson::Document(doc! {"a": 2})],
        vec![Bson::Document(doc! {"b": 1})],
        vec![Bson::Document(doc! {"a": "x"})],
        vec![Bson::Document(doc! {"a": {"b": 1}})],
        // Arrays: element by element, a proper prefix first.
        vec![Bson::Array(vec![])],
        vec![Bson::Array(vec![Bson::Null])],
        vec![
            Bson::Array(vec![Bson::Int32(1)]),
            Bson::Array(vec![Bson::Double(1.0)]),
        ],
        vec![Bson::Array(vec![Bson::Int32(1), Bson::Int32(2)])],
        vec![Bson::Array(vec![Bson::Int32(2)])],
        vec![Bson::Array(vec![Bson::String("a".into())])],
        // binData: length, then subtype, then bytes.
        vec![bin(0x80, &[])],
        vec![bin(0, &[0xff])],
        vec![bin(5, &[0x00])],
        vec![bin(0, &[0x00, 0x00])],
        vec![bin(0, &[0x00, 0x01])],
        vec![oid("000000000000000000000001")],
        vec![oid("000000000000000000000002")],
        vec![oid("ff0000000000000000000000")],
        vec![Bson::Boolean(false)],
        vec![Bson::Boolean(true)],
        vec![date(i64::MIN)],
        vec![date(-1)],
        vec![date(0)],
        vec![date(1)],
        // Timestamps: unsigned seconds, then increment.
        vec![ts(0, 0)],
        vec![ts(1, 5)],
        vec![ts(2, 0)],
        vec![ts(0x8000_0000, 0)],
        vec![ts(u32::MAX, u32::MAX)],
        vec![regex("a", "")],
        vec![regex("a", "i")],
        vec![regex("ab", "")],
        vec![regex("b", "")],
        // DBPointer: the value's size first, so a shorter namespace sorts first.
        vec![dbpointer("zz", [9; 12])],
        vec![dbpointer("aaa", [0; 12])],
        vec![dbpointer("aaa", [1; 12])],
        vec![dbpointer("aab", [0; 12])],
        vec![Bson::JavaScriptCode(String::new())],
        vec![Bson::JavaScriptCode("a".into())],
        vec![Bson::JavaScriptCode("b".into())],
        vec![cws("a", doc! {})],
        vec![cws("a", doc! {"x": 1})],
        vec![cws("a", doc! {"x": 2})],
        vec![cws("b", doc! {})],
        vec![Bson::MaxKey],
    ]
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn order_table() {
    let rows = table();
    for (i, row_a) in rows.iter().enumerate() {
        for (j, row_b) in rows.iter().enumerate() {
            let want = i.cmp(&j);
            for a in row_a {
                for b in row_b {
                    assert_eq!(
                        compare_values(a, b),
                        want,
                        "compare({a:?}, {b:?}) (rows {i} and {j})"
                    );
                }
            }
        }
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn canonical_classes() {
    let cases: Vec<(Bson, i32)> = vec![
        (Bson::MinKey, -1),
        (Bson::Undefined, 0),
        (Bson::Null, 5),
        (Bson::Int32(1), 10),
        (Bson::Int64(1), 10),
        (Bson::Double(1.0), 10),
        (dec("1"), 10),
        (Bson::String("a".into()), 15),
        (Bson::Symbol("a".into()), 15),
        (Bson::Document(doc! {}), 20),
        (Bson::Array(vec![]), 25),
        (bin(0, &[]), 30),
        (oid("000000000000000000000000"), 35),
        (Bson::Boolean(true), 40),
        (date(0), 45),
        (ts(0, 0), 47),
        (regex("a", ""), 50),
        (dbpointer("a.b", [0; 12]), 55),
        (Bson::JavaScriptCode("x".into()), 60),
        (cws("x", doc! {}), 65),
        (Bson::MaxKey, 127),
    ];
    for (v, class) in cases {
        assert_eq!(canonical_class(&v), class, "{v:?}");
    }
}

/// Generated values of every BSON type, nested documents and arrays included.
pub mod strategy {
    use super::{bin, cws, date, dbpointer, dec, oid, regex, ts};
    use bson::{Bson, Document};
    use proptest::prelude::*;

    /// A scalar of any type, with numbers biased towards interesting edges.
    pub fn arb_scalar() -> impl Strategy<Value = Bson> {
        prop_oneof![
            Just(Bson::MinKey),
            Just(Bson::MaxKey),
            Just(Bson::Null),
            Just(Bson::Undefined),
            any::<i32>().prop_map(Bson::Int32),
            (-3i32..3).prop_map(Bson::Int32),
            any::<i64>().prop_map(Bson::Int64),
            (-3i64..3).prop_map(Bson::Int64),
            any::<f64>().prop_map(Bson::Double),
            prop_oneof![
                Just(f64::NAN),
                Just(-0.0),
                Just(0.5),
                Just(2.5),
                Just(9_223_372_036_854_775_808.0),
                Just(f64::INFINITY),
                Just(f64::NEG_INFINITY),
                (-4i32..4).prop_map(f64::from),
            ]
            .prop_map(Bson::Double),
            arb_decimal(),
            "[a-c]{0,3}".prop_map(Bson::String),
            "[a-c]{0,3}".prop_map(Bson::Symbol),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..3))
                .prop_map(|(s, b)| bin(s, &b)),
            proptest::collection::vec(0u8..3, 12).prop_map(|b| {
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                oid(&hex)
            }),
            any::<bool>().prop_map(Bson::Boolean),
            any::<i64>().prop_map(date),
            (0u32..3, 0u32..3).prop_map(|(t, i)| ts(t, i)),
            ("[ab]{0,2}", "[im]{0,1}").prop_map(|(p, o)| regex(&p, &o)),
            ("[ab]{1,3}", 0u8..2).prop_map(|(ns, id)| dbpointer(&ns, [id; 12])),
            "[ab]{0,2}".prop_map(Bson::JavaScriptCode),
        ]
    }

    /// A decimal128 from a small coefficient and exponent, or a special value.
    pub fn arb_decimal() -> impl Strategy<Value = Bson> {
        prop_oneof![
            (any::<bool>(), 0u64..30, -3i32..3)
                .prop_map(|(neg, c, e)| { dec(&format!("{}{c}E{e}", if neg { "-" } else { "" })) }),
            (any::<i64>(), -20i32..20).prop_map(|(c, e)| dec(&format!("{c}E{e}"))),
            Just(dec("NaN")),
            Just(dec("Infinity")),
            Just(dec("-Infinity")),
            Just(dec("-0")),
            Just(dec("1E+400")),
            Just(dec("1E-400")),
        ]
    }

    /// Any value, with nested documents, arrays and code with scope.
    pub fn arb_bson() -> impl Strategy<Value = Bson> {
        arb_scalar().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Bson::Array),
                arb_document_of(inner.clone()).prop_map(Bson::Document),
                ("[ab]{0,2}", arb_document_of(inner)).prop_map(|(c, s)| cws(&c, s)),
            ]
        })
    }

    /// A document whose values come from `values`, with short field names.
    pub fn arb_document_of(values: impl Strategy<Value = Bson>) -> impl Strategy<Value = Document> {
        proptest::collection::vec(("[abc]{1,2}", values), 0..4)
            .prop_map(|fields| fields.into_iter().collect())
    }
}

mod properties {
    use super::strategy::arb_bson;
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]

        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn order_is_total(a in arb_bson(), b in arb_bson(), c in arb_bson()) {
            // Reflexive and antisymmetric.
            prop_assert_eq!(compare_values(&a, &a), Ordering::Equal);
            prop_assert_eq!(compare_values(&a, &b), compare_values(&b, &a).reverse());
            // Transitive: sort the three and check every pair agrees with the sort.
            let mut v = [a, b, c];
            v.sort_by(compare_values);
            prop_assert_ne!(compare_values(&v[0], &v[1]), Ordering::Greater);
            prop_assert_ne!(compare_values(&v[1], &v[2]), Ordering::Greater);
            prop_assert_ne!(compare_values(&v[0], &v[2]), Ordering::Greater);
            if compare_values(&v[0], &v[1]) == Ordering::Less
                || compare_values(&v[1], &v[2]) == Ordering::Less
            {
                prop_assert_eq!(compare_values(&v[0], &v[2]), Ordering::Less);
            }
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]

        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn equal_numbers_of_every_type_compare_equal(i in any::<i32>(), e in 0i32..4) {
            let scaled = i64::from(i) * 10i64.pow(e.unsigned_abs());
            let forms = [
                Bson::Int64(scaled),
                Bson::Double(scaled as f64),
                dec(&format!("{i}E{e}")),
                dec(&format!("{scaled}")),
                dec(&format!("{scaled}.000")),
            ];
            for x in &forms {
                for y in &forms {
                    prop_assert_eq!(compare_values(x, y), Ordering::Equal, "{:?} vs {:?}", x, y);
                }
            }
            let int32 = Bson::Int32(i);
            prop_assert_eq!(compare_values(&int32, &dec(&format!("{i}"))), Ordering::Equal);
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]

        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn numbers_order_like_their_values(a in any::<i64>(), b in any::<i64>()) {
            // An i64 against a decimal and against a double agree with the exact order.
            prop_assert_eq!(compare_values(&Bson::Int64(a), &dec(&a.to_string())), Ordering::Equal);
            prop_assert_eq!(compare_values(&Bson::Int64(a), &dec(&b.to_string())), a.cmp(&b));
            let d = b as f64;
            let exact = i128::from(a) * 2;
            // Compare with the double exactly using i128 (the double is an integer here).
            let want = if d >= 9_223_372_036_854_775_808.0 {
                Ordering::Less
            } else {
                exact.cmp(&(i128::from(d as i64) * 2))
            };
            prop_assert_eq!(compare_values(&Bson::Int64(a), &Bson::Double(d)), want);
        }
    }
}

/// A decimal128 from its raw 128 bits.
fn raw_decimal(bits: u128) -> shardlab::Decimal {
    shardlab::Decimal::from_bytes(bits.to_le_bytes())
}

/// Decoding the BID encoding: both combination-field forms, the canonical
/// coefficient limit, NaN and infinities.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn decimal_decoding() {
    use shardlab::Decimal;
    let max = 10u128.pow(34) - 1;
    let bias = 6176u128;
    let finite = |negative, coefficient, exponent| Decimal::Finite {
        negative,
        coefficient,
        exponent,
    };
    let cases: Vec<(u128, Decimal)> = vec![
        ((bias << 113) | 5, finite(false, 5, 0)),
        ((1 << 127) | (bias << 113) | 5, finite(true, 5, 0)),
        ((bias << 113) | max, finite(false, max, 0)),
        // A coefficient of 10^34 or more is non-canonical and reads as zero.
        ((bias << 113) | (max + 1), finite(false, 0, 0)),
        ((bias << 113) | ((1 << 113) - 1), finite(false, 0, 0)),
        (((bias + 3) << 113) | 7, finite(false, 7, 3)),
        (((bias - 2) << 113) | 7, finite(false, 7, -2)),
        (0x2fff << 113, finite(false, 0, 6111)),
        (0, finite(false, 0, -6176)),
        // The `11` form: exponent after the two bits, implied coefficient >= 2^113.
        ((0b11 << 125) | (bias << 111) | 5, finite(false, 0, 0)),
        (0x7c << 120, Decimal::NaN),
        (0x7e << 120, Decimal::NaN),
        (0xfc << 120, Decimal::NaN),
        (0x78 << 120, Decimal::Infinity { negative: false }),
        (0xf8 << 120, Decimal::Infinity { negative: true }),
    ];
    for (bits, want) in cases {
        assert_eq!(raw_decimal(bits), want, "{bits:032x}");
    }
    // The bson crate's own encoder agrees with the decoder.
    let parsed = |s: &str| match dec(s) {
        Bson::Decimal128(d) => Decimal::from_bson(&d),
        _ => unreachable!("dec builds a decimal"),
    };
    assert_eq!(parsed("-12.50"), finite(true, 1250, -2));
    assert_eq!(parsed("1E+6111"), finite(false, 1, 6111));
    assert_eq!(
        parsed("9999999999999999999999999999999999"),
        finite(false, max, 0)
    );
}

/// Round half to even with saturation, as used for hashing.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn decimal_to_i64() {
    let cases: Vec<(&str, i64)> = vec![
        ("0", 0),
        ("-0", 0),
        ("0.5", 0),
        ("0.5000000000000000000000000000000001", 1),
        ("1.5", 2),
        ("2.5", 2),
        ("-2.5", -2),
        ("-3.5", -4),
        ("2.49", 2),
        ("7E+2", 700),
        ("9223372036854775807", i64::MAX),
        ("9223372036854775807.4", i64::MAX),
        ("9223372036854775807.5", i64::MAX),
        ("9223372036854775808", i64::MAX),
        ("-9223372036854775808", i64::MIN),
        ("-9223372036854775808.5", i64::MIN),
        ("-9223372036854775809", i64::MIN),
        ("1E+6111", i64::MAX),
        ("-1E+6111", i64::MIN),
        ("1E-6176", 0),
        ("NaN", 0),
        ("Infinity", i64::MAX),
        ("-Infinity", i64::MIN),
    ];
    for (s, want) in cases {
        let Bson::Decimal128(d) = dec(s) else {
            unreachable!("dec builds a decimal")
        };
        assert_eq!(
            shardlab::Decimal::from_bson(&d).to_i64_saturating(),
            want,
            "{s}"
        );
    }
}
