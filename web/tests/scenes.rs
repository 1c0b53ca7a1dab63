//! Browser tests of the workshop scenes' page entries: a link's `scenes` entry is read as
//! hostile input (bounded, never a panic) before the page keeps it.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::i18n::Words;
use shardlab_web::scenes::{self, Scene, DEMOS, MAX_SCENES, SCENES_ENTRY, SCENE_ENTRY};
use shardlab_web::state::Playground;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[wasm_bindgen_test]
fn a_links_scenes_are_kept_and_come_back_in_the_next_link() {
    let demo = DEMOS[0].scenes(2, Words::ENGLISH);
    let text = scenes::encode(&demo);
    let mut state = Playground::opening("page-1");
    let (problems, _, _) = state.apply_page(&entries(&[(SCENES_ENTRY, &text), (SCENE_ENTRY, "1")]));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(state.page_value(SCENES_ENTRY), Some(text.as_str()));
    assert_eq!(
        scenes::parse(state.page_value(SCENES_ENTRY).unwrap()),
        Ok(demo)
    );
    let out = state.page_entries();
    assert!(out.iter().any(|(n, v)| n == SCENE_ENTRY && v == "1"));
}

#[wasm_bindgen_test]
fn hostile_scenes_are_left_out_with_a_reason_and_change_nothing() {
    let mut state = Playground::opening("page-1");
    let good = scenes::encode(&[Scene {
        scenario: None,
        step: 4,
        views: scenes::all_views(),
        title: "kept".into(),
        note: String::new(),
    }]);
    state.apply_page(&entries(&[(SCENES_ENTRY, &good)]));
    let too_many = format!("scenes v1{}", "\n1\tcluster\tt\tn".repeat(MAX_SCENES + 1));
    let huge = format!("scenes v1\n1\tcluster\tt\t{}", "n".repeat(1 << 20));
    let nested = format!("scenes v1\n1\tcluster\t{}\tn", "\\".repeat(100_001));
    for hostile in [
        "",
        "scenes v9",
        "scenes v1\n-1\tcluster\tt\tn",
        "scenes v1\n1\tcluster\u{0}\tt\tn",
        "scenes v2\n1\tcluster\tt\tn\tlesson:<img>",
        "scenes v2\n1\tcluster\tt\tn\tlink:v2.\u{0}",
        "scenes v2\n1\tcluster\tt\tn\thttps://example.com",
        too_many.as_str(),
        huge.as_str(),
        nested.as_str(),
    ] {
        let (problems, _, _) = state.apply_page(&entries(&[(SCENES_ENTRY, hostile)]));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("the scenes were left out ("),
            "{problems:?}"
        );
        assert!(problems[0].len() < 200, "{problems:?}");
        assert_eq!(state.page_value(SCENES_ENTRY), Some(good.as_str()));
    }
}
