//! Checks on the guided lessons' content, run in the browser by `wasm-bindgen-test`: every
//! scenario can be loaded, every question has exactly one right answer, every step says
//! something and points somewhere, and saved progress resolves only while it is valid.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::components::guide::HIGHLIGHT_CLASS;
use shardlab_web::components::App;
use shardlab_web::lessons::{
    install, lesson, parse_lessons, progress_label, Lesson, Progress, Run, Scenario,
};

/// The lessons the page fetches, read and checked as the page reads them.
fn all() -> &'static [Lesson] {
    install(
        parse_lessons(include_str!("../../static/lessons.json")).expect("the lessons file reads"),
    )
}
use std::collections::BTreeSet;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn every_preset_a_step_loads_exists() {
    for l in all() {
        for step in l.steps {
            if let Scenario::Preset(id) = step.scenario {
                assert!(
                    shardlab::workload::presets::preset(id).is_some(),
                    "{} / {}: no preset {id}",
                    l.id,
                    step.title
                );
            }
        }
    }
}

#[wasm_bindgen_test]
fn every_key_scenario_is_a_valid_shard_key() {
    for step in all().iter().flat_map(|l| l.steps) {
        if let Some(settings) = step.scenario.settings() {
            assert!(
                shardlab_web::components::controls::validate_key(&settings.key, false).is_ok(),
                "{}: {}",
                step.title,
                settings.key
            );
        }
    }
}

#[wasm_bindgen_test]
fn every_question_has_exactly_one_right_answer_and_says_why() {
    for step in all().iter().flat_map(|l| l.steps) {
        let q = step.question;
        assert!(q.choices.len() >= 2, "{}: too few choices", step.title);
        let right = q.choices.iter().filter(|c| c.correct).count();
        assert_eq!(right, 1, "{}: {right} right answers", step.title);
        assert!(q.correct_index().is_some());
        for c in q.choices {
            assert!(
                !c.why.trim().is_empty(),
                "{}: '{}' has no reason",
                step.title,
                c.text
            );
        }
    }
}

#[wasm_bindgen_test]
fn steps_have_text_a_run_and_a_selector_the_page_can_parse() {
    let document = gloo::utils::document();
    let mut ids = BTreeSet::new();
    for l in all() {
        assert!(ids.insert(l.id), "lesson id {} is used twice", l.id);
        assert!(!l.steps.is_empty());
        let mut titles = BTreeSet::new();
        for step in l.steps {
            assert!(
                titles.insert(step.title),
                "{}: title used twice",
                step.title
            );
            for text in [step.explain, step.watch, step.result, step.question.prompt] {
                assert!(text.len() > 10, "{}: '{text}' is too short", step.title);
            }
            if let Run::Commands(commands) = step.run {
                assert!(!commands.is_empty(), "{}: nothing to run", step.title);
            }
            // A malformed selector would throw instead of finding nothing.
            assert!(
                document.query_selector(step.highlight).is_ok(),
                "{}: bad selector {}",
                step.title,
                step.highlight
            );
        }
    }
}

#[wasm_bindgen_test]
fn the_lessons_cover_the_topics_in_order() {
    let titles: Vec<String> = all()
        .iter()
        .flat_map(|l| l.steps)
        .map(|s| s.title.to_lowercase())
        .collect();
    let topics = [
        "chunks",
        "minkey",
        "cardinality",
        "frequency",
        "hashed",
        "compound",
        "without the shard key",
        "refining",
        "targeting",
        "zones",
        "8.0",
    ];
    let mut from = 0;
    for topic in topics {
        let at = titles[from..]
            .iter()
            .position(|t| t.contains(topic))
            .unwrap_or_else(|| panic!("no step about '{topic}' after step {from}"));
        from += at + 1;
    }
}

#[wasm_bindgen_test]
fn progress_labels_and_stale_progress() {
    assert_eq!(progress_label(1, 7), "Step 2 of 7");
    let basics = &all()[0];
    let ok = Progress {
        lesson: basics.id.to_string(),
        step: 1,
    };
    assert_eq!(ok.resolve().map(|(l, i)| (l.id, i)), Some((basics.id, 1)));
    let past_end = Progress {
        lesson: basics.id.to_string(),
        step: basics.steps.len() as u32,
    };
    assert!(past_end.resolve().is_none());
    let unknown = Progress {
        lesson: "no-such-lesson".into(),
        step: 0,
    };
    assert!(unknown.resolve().is_none());
    assert!(lesson("no-such-lesson").is_none());
}

fn click(root: &Element, selector: &str) {
    let el: HtmlElement = root
        .query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
        .dyn_into()
        .unwrap();
    el.click();
}

#[wasm_bindgen_test]
async fn a_commands_step_runs_and_outlines_its_result() {
    // The page fetches the lessons when the tab opens; here they are in already.
    all();
    gloo::utils::window()
        .local_storage()
        .unwrap()
        .unwrap()
        .clear()
        .unwrap();
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    click(&root, "[data-testid=tab-guide]");
    yew::scheduler::flush().await;
    click(&root, "[data-testid=guide-start][data-lesson=key-basics]");
    yew::scheduler::flush().await;
    let progress = root
        .query_selector("[data-testid=guide-progress]")
        .unwrap()
        .unwrap();
    let len = all()[0].steps.len();
    assert_eq!(progress.text_content().unwrap(), format!("Step 1 of {len}"));
    // Step 1 runs commands at once: predict, run, and the cluster is outlined.
    click(&root, "[data-testid=guide-choice][data-correct=true]");
    yew::scheduler::flush().await;
    let verdict = root
        .query_selector("[data-testid=guide-verdict]")
        .unwrap()
        .unwrap();
    assert_eq!(
        verdict.get_attribute("data-correct").as_deref(),
        Some("true")
    );
    click(&root, "[data-testid=guide-run]");
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("[data-testid=guide-result]")
        .unwrap()
        .is_some());
    let outlined = document
        .query_selector(&format!(".{HIGHLIGHT_CLASS}"))
        .unwrap()
        .unwrap();
    assert_eq!(
        outlined.get_attribute("data-testid").as_deref(),
        Some("cluster")
    );
    let chunks = root.query_selector_all("[data-testid=chunk]").unwrap();
    assert!(chunks.length() > 1, "the inserts split the collection");
    click(&root, "[data-testid=guide-next]");
    yew::scheduler::flush().await;
    assert_eq!(progress.text_content().unwrap(), format!("Step 2 of {len}"));
    assert!(
        document
            .query_selector(&format!(".{HIGHLIGHT_CLASS}"))
            .unwrap()
            .is_none(),
        "the outline goes when the step is left"
    );
    let stored = gloo::utils::window()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(shardlab_web::lessons::STORAGE_KEY)
        .unwrap()
        .unwrap();
    assert!(stored.contains("\"step\":1"), "{stored}");
    root.remove();
}
