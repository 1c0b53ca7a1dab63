//! Browser tests of how the page words what the engine names by id: an explanation's
//! messages (some of whose values are messages of their own) and a lesson of the engine's
//! catalog, in the page's language where its catalogue has them, else in the engine's
//! English.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_protocol::{ArgView, LessonInfo, MessageView, PageSetup, WorkloadSpec};
use shardlab_web::i18n::{Lang, Words};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn text(name: &str, value: &str) -> (String, ArgView) {
    (name.to_string(), ArgView::Text(value.to_string()))
}

fn message(id: &str, args: Vec<(String, ArgView)>) -> MessageView {
    MessageView {
        id: id.to_string(),
        args,
    }
}

fn lesson(id: &str, shards: u32) -> LessonInfo {
    LessonInfo {
        id: id.to_string(),
        title: "English title".to_string(),
        lesson: "English text.".to_string(),
        setup: PageSetup {
            shards,
            version: "5.0".to_string(),
            chunk_size: 1024,
            key: "{x: 1}".to_string(),
            unique: false,
            initial_chunks: None,
            ns: "test.c".to_string(),
        },
        workload: WorkloadSpec {
            spec: "monotonic".to_string(),
            batch: 1,
            total: 1,
            balance: false,
        },
        steps: Vec::new(),
    }
}

/// The language is the page's one state, so the cases run in order in one test.
#[wasm_bindgen_test]
fn the_engines_messages_and_lessons_are_worded_in_the_pages_language() {
    let load = message(
        "explain.load",
        vec![
            text("shard", "shard01"),
            (
                "load".to_string(),
                ArgView::Message(message("explain.count.chunks", vec![text("n", "3")])),
            ),
        ],
    );
    let stays = message(
        "explain.balancer.stays",
        vec![
            (
                "why".to_string(),
                ArgView::Message(message(
                    "explain.round.disabled",
                    vec![text("ns", "{shard}")],
                )),
            ),
            text("shard", "shard02"),
        ],
    );
    // English: the page leaves the words to the engine, which sent them.
    let en = Words::ENGLISH;
    assert_eq!(en.messages(std::slice::from_ref(&stays)), None);
    assert_eq!(
        en.lesson_words(&lesson("low-cardinality", 9)),
        ("English title".to_string(), "English text.".to_string())
    );
    let zh = Words::from_catalogue(
        Lang::ZhCn,
        [
            ("explain.load", "{shard}（{load}）"),
            ("explain.count.chunks", "{n} 个数据块"),
            (
                "explain.balancer.stays",
                "{why}所以这个数据块留在 {shard} 上。",
            ),
            ("explain.round.disabled", "{ns} 的均衡已禁用。"),
            ("preset.low-cardinality.title", "七个大洲，{shards} 个分片"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    assert_eq!(
        zh.messages(&[load]).as_deref(),
        Some("shard01（3 个数据块）")
    );
    // A value's braces are never read as a placeholder.
    assert_eq!(
        zh.messages(&[stays]).as_deref(),
        Some("{shard} 的均衡已禁用。所以这个数据块留在 shard02 上。")
    );
    // A message (or a phrase inside one) the language lacks: the engine's English, whole.
    let unknown = message(
        "explain.balancer.stays",
        vec![(
            "why".to_string(),
            ArgView::Message(message("explain.balancer.skips_jumbo", vec![])),
        )],
    );
    assert_eq!(zh.messages(&[unknown]), None);
    assert_eq!(zh.messages(&[]), None);
    // A lesson: its title from the catalogue with the shard count, its text still English.
    assert_eq!(
        zh.lesson_words(&lesson("low-cardinality", 9)),
        (
            "七个大洲，9 个分片".to_string(),
            "English text.".to_string()
        )
    );
    assert_eq!(zh.lesson_words(&lesson("nope", 3)).0, "English title");
    // The English words are untouched by another language's catalogue.
    assert_eq!(
        en.lesson_words(&lesson("low-cardinality", 9)).0,
        "English title"
    );
}
