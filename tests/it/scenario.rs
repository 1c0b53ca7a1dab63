//! The shareable scenario: links round-trip, old links keep decoding, and nothing a user
//! pastes makes the decoder panic.
#![allow(clippy::unwrap_used)]

use expect_test::expect;
use shardlab::sim::{
    from_json, from_query, to_json, to_query, to_query_checked, Scenario, ScenarioError,
    MAX_COMMANDS,
};
use shardlab::VersionMode;

/// A link made by the first version of the codec. It must decode to the same scenario for
/// as long as ShardLab exists: never update this string, add a new frozen one beside it.
const FROZEN_V1: &str = "v1.AVs9AQMDgBAqAgMkc2guc2hhcmRDb2xsZWN0aW9uKCJ0ZXN0LmMiLCB7eDogMX0pFmRiLmMuaW5zZXJ0T25lKBgWAzJ9KQ";

fn frozen_scenario() -> Scenario {
    Scenario {
        version: VersionMode::V50,
        shards: 3,
        chunk_size: Some(2048),
        seed: 42,
        commands: vec![
            "sh.shardCollection(\"test.c\", {x: 1})".to_string(),
            "db.c.insertOne({x: 1})".to_string(),
            "db.c.insertOne({x: 2})".to_string(),
        ],
        position: Some(2),
        page: Vec::new(),
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn frozen_v1_link_decodes_forever() {
    assert_eq!(from_query(FROZEN_V1), Ok(frozen_scenario()));
}

/// The other direction is not frozen (a better compressor may spell the same scenario
/// differently), but today's encoder should still produce exactly that link; if it stops
/// doing so, keep `FROZEN_V1` as it is and check the new link decodes too.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn encoder_output_is_stable() {
    assert_eq!(to_query(&frozen_scenario()), FROZEN_V1);
}

/// A stored (method 0) body around a record.
fn encode_raw(record: &[u8]) -> String {
    encode_body(0, record)
}

/// A link with a body spelled by a deliberately naive base64url encoder.
fn encode_body(method: u8, data: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut body = vec![method];
    body.extend_from_slice(data);
    let mut bits = String::new();
    for b in &body {
        bits.push_str(&format!("{b:08b}"));
    }
    while bits.len() % 6 != 0 {
        bits.push('0');
    }
    let mut out = String::from("v1.");
    for i in (0..bits.len()).step_by(6) {
        let v = usize::from_str_radix(&bits[i..i + 6], 2).unwrap();
        out.push(char::from(ALPHABET[v]));
    }
    out
}

/// A valid record header: 5.0, no chunk size or position, 3 shards, seed 1.
const HEADER: [u8; 4] = [1, 0, 3, 1];

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn bad_links_are_refused_with_a_reason() {
    let mut huge_count = HEADER.to_vec();
    huge_count.extend_from_slice(&[0x80, 0x80, 0x80, 0x01]); // 2^21 commands
    let mut lying_count = HEADER.to_vec();
    lying_count.extend_from_slice(&[5, 1, b'x']); // five commands, one present
    let mut long_command = HEADER.to_vec();
    long_command.extend_from_slice(&[1, 0xff, 0xff, 0x03, b'x']); // 65535 bytes promised
    let mut trailing = HEADER.to_vec();
    trailing.extend_from_slice(&[0, 9]);
    let mut bad_utf8 = HEADER.to_vec();
    bad_utf8.extend_from_slice(&[1, 1, 0xff]);
    let mut zero_shards = HEADER.to_vec();
    zero_shards[2] = 0;
    zero_shards.push(0);
    let mut overflow = vec![1, 0, 3];
    overflow.extend_from_slice(&[0xff; 10]);
    overflow.push(0);
    let mut position_past_end = vec![1, 2, 3, 1, 7, 0];
    position_past_end.truncate(6);
    let lz_bomb = {
        // Method 1 claiming a 1 GiB record.
        let mut s = String::from("v1.");
        s.push_str("AYCAgIAE");
        s
    };
    // Cut at a multiple of four characters, so the base64 stays valid and the data ends early.
    let frozen_truncated = &FROZEN_V1[..FROZEN_V1.len() - (FROZEN_V1.len() - 3) % 4 - 4];
    // Compressed data: 10 bytes, the literal "a", then a match 6 bytes back.
    let far_match = encode_body(1, &[10, 1, b'a', 0, 5]);
    let long_match = encode_body(1, &[4, 1, b'a', 9, 0]);
    let long_literals = encode_body(1, &[4, 9, b'a']);
    let lz_trailing = encode_body(1, &[4, 4, b'a', b'b', b'c', b'd', 0]);

    let cases: Vec<(String, &str)> = vec![
        ("v3.AAAA".into(), "unknown scenario format 'v3': it may come from a newer ShardLab"),
        ("https://example.com".into(), "unknown scenario format 'https://example': it may come from a newer ShardLab"),
        ("".into(), "unknown scenario format '': it may come from a newer ShardLab"),
        ("v1.".into(), "the scenario link is truncated: the header is missing"),
        ("v1.AB$C".into(), "the scenario link is corrupt: invalid base64 at character 5"),
        ("v1.AQ==".into(), "the scenario link is corrupt: invalid base64 at character 5"),
        ("v1.AAB".into(), "the scenario link is corrupt: invalid base64 at character 5"),
        ("v1.A".into(), "the scenario link is corrupt: invalid base64 at character 3"),
        (encode_raw(&[]), "the scenario link is truncated: the version is missing"),
        (encode_raw(&[7, 0, 3, 1, 0]), "invalid scenario value: unknown MongoDB version code 7"),
        (encode_raw(&[1, 0x80, 3, 1, 0]), "the scenario link is corrupt: unknown flags"),
        (encode_raw(&huge_count), "the scenario is too large: 2097152 commands, at most 65536 are accepted"),
        (encode_raw(&lying_count), "the scenario link is truncated: a command is missing"),
        (encode_raw(&long_command), "the scenario link is truncated: a command's text is missing"),
        (encode_raw(&trailing), "the scenario link is corrupt: 1 unexpected bytes after the end"),
        (encode_raw(&bad_utf8), "invalid scenario value: a command is not valid UTF-8"),
        (encode_raw(&zero_shards), "invalid scenario value: shards must be between 1 and 64, got 0"),
        (encode_raw(&overflow), "the scenario link is corrupt: a number overflows 64 bits"),
        (encode_raw(&position_past_end), "invalid scenario value: position 7 is past the last of 0 commands"),
        (lz_bomb, "the scenario is too large: the record decodes to 1073741824 bytes, at most 262144 are accepted"),
        (frozen_truncated.to_string(), "the scenario link is truncated: a literal run is missing"),
        (far_match, "the scenario link is corrupt: a match reaches before the start"),
        (long_match, "the scenario link is corrupt: a match goes past the end"),
        (long_literals, "the scenario link is corrupt: a literal run goes past the end"),
        (lz_trailing, "the scenario link is corrupt: 1 unexpected bytes after the end"),
        ("v1.Ag".into(), "the scenario link is corrupt: unknown compression method"),
        (format!("v1.{}", "A".repeat(400_000)), "the scenario is too large: the link holds 400003 characters, at most 349553 are accepted"),
    ];
    let mut failures = Vec::new();
    for (input, want) in &cases {
        match from_query(input) {
            Ok(s) => failures.push(format!("{input:.40}: decoded to {s:?}")),
            Err(e) if e.to_string() == *want => {}
            Err(e) => failures.push(format!("{input:.40}:\n  want {want}\n  got  {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn repetitive_commands_compress_well() {
    let commands: Vec<String> = (0..500)
        .map(|i| format!("db.c.insertOne({{x: {i}}})"))
        .collect();
    let raw: usize = commands.iter().map(String::len).sum();
    let s = Scenario {
        commands,
        ..Scenario::default()
    };
    let link = to_query(&s);
    assert!(
        link.len() * 3 < raw,
        "{} characters for {raw} bytes of commands",
        link.len()
    );
    assert_eq!(from_query(&link), Ok(s));
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn checked_encoding_refuses_what_would_not_decode() {
    let too_many = Scenario {
        commands: vec![String::new(); MAX_COMMANDS + 1],
        ..Scenario::default()
    };
    assert!(matches!(
        to_query_checked(&too_many),
        Err(ScenarioError::TooLarge(_))
    ));
    let no_shards = Scenario {
        shards: 0,
        ..Scenario::default()
    };
    assert!(matches!(
        to_query_checked(&no_shards),
        Err(ScenarioError::InvalidValue(_))
    ));
    assert!(to_query_checked(&frozen_scenario()).is_ok());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn json_file_round_trips_and_reads_well() {
    let mut s = frozen_scenario();
    s.commands
        .push("print(\"a \\\"quoted\\\" word\\n\")".to_string());
    s.seed = u64::MAX;
    let text = to_json(&s);
    expect![[r#"
        {
          "format": "shardlab-scenario",
          "version": 1,
          "mongodb": "5.0",
          "shards": 3,
          "chunkSize": 2048,
          "seed": "18446744073709551615",
          "position": 2,
          "commands": [
            "sh.shardCollection(\"test.c\", {x: 1})",
            "db.c.insertOne({x: 1})",
            "db.c.insertOne({x: 2})",
            "print(\"a \\\"quoted\\\" word\\n\")"
          ]
        }
    "#]]
    .assert_eq(&text);
    assert_eq!(from_json(&text), Ok(s));
    let empty = Scenario::default();
    assert_eq!(from_json(&to_json(&empty)), Ok(empty));
}

/// A scenario past the shell's limits on one script (an import's step of many documents,
/// its quotes escaped) round-trips: read as strict JSON; one that is not strict JSON is
/// refused in words.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn a_scenario_over_16_mib_round_trips() {
    let doc = r#"{"user": "u1", "n": {"$numberInt": "7"}}"#;
    let batch = format!(
        "db.t.insertMany([{}], {{ordered: false}})",
        vec![doc; 1000].join(",")
    );
    let s = Scenario {
        commands: vec![
            vec![batch; 500].join("\n"),
            "db.t.countDocuments()".to_string(),
        ],
        ..Scenario::default()
    };
    let text = to_json(&s);
    assert!(text.len() > 16 << 20, "{}", text.len());
    assert_eq!(from_json(&text), Ok(s));
    let loose = format!(
        "{{format: 'shardlab-scenario', version: 1, pad: '{}'}}",
        " ".repeat(17 << 20)
    );
    assert_eq!(
        from_json(&loose).map_err(|e| e.to_string()),
        Err("the scenario file is not valid JSON: a scenario file over 16 MiB must be strict JSON, as ShardLab writes it".to_string())
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn bad_json_files_are_refused() {
    let cases = [
        ("[1]", "the scenario file is not valid JSON: the file must hold one JSON object"),
        (r#"{"format": "other"}"#, "invalid scenario value: the file is not a ShardLab scenario (\"format\" must be \"shardlab-scenario\")"),
        (r#"{"format": "shardlab-scenario", "version": 2}"#, "unknown scenario format 'file version 2': it may come from a newer ShardLab"),
        (r#"{"format": "shardlab-scenario", "version": 1, "mongodb": "9.9"}"#, "invalid scenario value: unknown MongoDB version '9.9'"),
        (r#"{"format": "shardlab-scenario", "version": 1, "commands": [1]}"#, "invalid scenario value: every command must be a string"),
        (r#"{"format": "shardlab-scenario", "version": 1, "seed": -1}"#, "invalid scenario value: \"seed\" must be a non-negative whole number"),
        (r#"{"format": "shardlab-scenario", "version": 1, "shards": 1000}"#, "invalid scenario value: shards must be between 1 and 64, got 1000"),
    ];
    for (input, want) in cases {
        let got = from_json(input).map_err(|e| e.to_string());
        assert_eq!(got, Err(want.to_string()), "{input}");
    }
    // Missing optional fields take the defaults.
    let minimal = from_json(r#"{"format": "shardlab-scenario", "version": 1}"#).unwrap();
    assert_eq!(minimal, Scenario::default());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn build_runs_the_commands_up_to_the_position() {
    let s = frozen_scenario();
    let built = s.build();
    let docs = built.cluster.collection("test.c").map(|c| c.doc_count());
    assert_eq!(
        docs,
        Some(1),
        "position 2 applies the shardCollection and one insert"
    );
    let all = Scenario {
        position: None,
        ..s
    }
    .build();
    assert_eq!(
        all.cluster.collection("test.c").map(|c| c.doc_count()),
        Some(2)
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn arb_version() -> impl Strategy<Value = VersionMode> {
        prop_oneof![
            Just(VersionMode::V36),
            Just(VersionMode::V50),
            Just(VersionMode::V80)
        ]
    }

    fn arb_command() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            (0i64..1000).prop_map(|i| format!("db.c.insertOne({{x: {i}}})")),
            Just("sh.shardCollection(\"test.c\", {x: \"hashed\"})".to_string()),
        ]
    }

    prop_compose! {
        fn arb_scenario()(
            version in arb_version(),
            shards in 1u32..=64,
            chunk_size in proptest::option::of(1024u64..),
            seed in any::<u64>(),
            commands in proptest::collection::vec(arb_command(), 0..40),
            position in proptest::option::of(any::<u64>()),
            page in proptest::collection::btree_map("[a-z]{1,8}", any::<String>(), 0..4),
        ) -> Scenario {
            let position = position.map(|p| p % (commands.len() as u64 + 1));
            let page = page.into_iter().collect();
            Scenario { version, shards, chunk_size, seed, commands, position, page }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn links_round_trip(s in arb_scenario()) {
            let link = to_query(&s);
            prop_assert!(link.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'));
            prop_assert_eq!(from_query(&link), Ok(s.clone()));
            prop_assert_eq!(from_json(&to_json(&s)), Ok(s));
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn decoder_never_panics_on_any_text(text in any::<String>()) {
            let _ = from_query(&text);
            let _ = from_query(&format!("v1.{text}"));
            let _ = from_query(&format!("v2.{text}"));
            let _ = from_json(&text);
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn decoder_never_panics_on_base64_noise(text in "[A-Za-z0-9_-]{0,200}") {
            let _ = from_query(&format!("v1.{text}"));
            let _ = from_query(&format!("v1.AQ{text}"));
        }

        #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
        #[cfg_attr(not(target_arch = "wasm32"), test)]
        fn damaged_links_fail_cleanly(s in arb_scenario(), cut in any::<usize>(), flip in any::<usize>(), to in 0usize..64) {
            const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let link = to_query(&s);
            // Truncated anywhere.
            let _ = from_query(&link[..cut % (link.len() + 1)]);
            // One character changed anywhere after the tag.
            let mut bytes = link.into_bytes();
            let i = 3 + flip % (bytes.len() - 3).max(1);
            if let Some(b) = bytes.get_mut(i) {
                *b = ALPHABET[to];
            }
            let _ = from_query(&String::from_utf8(bytes).unwrap());
        }
    }
}

/// A scenario with page state travels as `v2.`, and both the link and the JSON file bring
/// every entry back in order; without page state the link stays `v1.`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn page_state_round_trips_as_v2() {
    let plain = to_query(&frozen_scenario());
    assert!(plain.starts_with("v1."), "{plain}");
    let mut s = frozen_scenario();
    s.page = vec![
        ("lesson".to_string(), "high-frequency".to_string()),
        (
            "workload".to_string(),
            "{x: {gen: \"zipf\", n: 50}}".to_string(),
        ),
        ("tab".to_string(), "compare".to_string()),
    ];
    let link = to_query(&s);
    assert!(link.starts_with("v2."), "{link}");
    assert_eq!(from_query(&link), Ok(s.clone()));
    assert_eq!(
        from_query(&link).expect("decodes").page_value("tab"),
        Some("compare")
    );
    assert_eq!(from_json(&to_json(&s)), Ok(s.clone()));
    // The v1 decoder is untouched: the frozen link still reads, with no page state.
    assert_eq!(from_query(FROZEN_V1).expect("decodes").page, Vec::new());
}

/// Page state is checked like the rest of the record: too many entries, an empty name or
/// a huge value is refused with a clear error, by the link and the file alike.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn hostile_page_state_is_refused() {
    let entry = |n: usize, len: usize| (format!("k{n}"), "v".repeat(len));
    let mut many = frozen_scenario();
    many.page = (0..=shardlab::sim::MAX_PAGE_ENTRIES)
        .map(|n| entry(n, 1))
        .collect();
    assert!(matches!(
        from_query(&to_query(&many)),
        Err(ScenarioError::TooLarge(_))
    ));
    assert!(matches!(
        to_query_checked(&many),
        Err(ScenarioError::TooLarge(_))
    ));
    let mut huge = frozen_scenario();
    huge.page = vec![entry(0, shardlab::sim::MAX_PAGE_VALUE_BYTES + 1)];
    assert!(matches!(
        from_query(&to_query(&huge)),
        Err(ScenarioError::TooLarge(_))
    ));
    let mut nameless = frozen_scenario();
    nameless.page = vec![(String::new(), "x".to_string())];
    assert!(matches!(
        from_query(&to_query(&nameless)),
        Err(ScenarioError::InvalidValue(_))
    ));
    assert!(matches!(
        from_json("{\"format\": \"shardlab-scenario\", \"version\": 1, \"page\": {\"tab\": 3}}"),
        Err(ScenarioError::InvalidValue(_))
    ));
    // A v2 link cut inside its page state says what is missing.
    let mut s = frozen_scenario();
    s.page = vec![entry(0, 40)];
    let link = to_query(&s);
    assert!(from_query(&link[..link.len() - 8]).is_err());
}
