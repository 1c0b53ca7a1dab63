//! Checks on the guided lessons' and the glossary's content, run in the browser by
//! `wasm-bindgen-test`: the shipped files read as the page reads them, every question has
//! exactly one right answer, every step says something and points somewhere, saved
//! progress resolves only while it is valid, and malformed files are refused with a
//! reason. (That every lesson a step loads exists and every key is valid is the engine's
//! to say: `web/engine/tests/page.rs`.)
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::glossary::parse_glossary;
use shardlab_web::i18n::{Lang, Words};
use shardlab_web::lessons::{
    install, lesson, parse_lessons, progress_label, Lesson, Progress, Run, Scenario,
};
use std::collections::BTreeSet;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const LESSONS: &str = include_str!("../../static/lessons.json");
const GLOSSARY: &str = include_str!("../../static/glossary.json");

/// The lessons the page fetches, read and checked as the page reads them.
fn all() -> &'static [Lesson] {
    install(parse_lessons(LESSONS).expect("the lessons file reads"))
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
fn steps_have_text_a_run_a_scenario_and_a_selector_the_page_can_parse() {
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
            match step.scenario {
                Scenario::Preset(id) => assert!(!id.is_empty(), "{}", step.title),
                Scenario::Key { .. } => {
                    let settings = step.scenario.settings().unwrap();
                    assert!(settings.chunk_size >= 1024, "{}", step.title);
                }
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
    assert_eq!(progress_label(Words::ENGLISH, 1, 7), "Step 2 of 7");
    let basics = &all()[0];
    let ok = Progress {
        lesson: basics.id.to_string(),
        step: 1,
    };
    assert_eq!(
        ok.resolve(Lang::En).map(|(l, i)| (l.id, i)),
        Some((basics.id, 1))
    );
    let past_end = Progress {
        lesson: basics.id.to_string(),
        step: basics.steps.len() as u32,
    };
    assert!(past_end.resolve(Lang::En).is_none());
    let unknown = Progress {
        lesson: "no-such-lesson".into(),
        step: 0,
    };
    assert!(unknown.resolve(Lang::En).is_none());
    assert!(lesson(Lang::En, "no-such-lesson").is_none());
    assert_eq!(
        lesson(Lang::En, basics.id).map(|l| l.title),
        Some(basics.title)
    );
}

/// The shipped lessons file with `from` replaced by `to` (which must occur in it).
fn lessons_with(from: &str, to: &str) -> String {
    assert!(LESSONS.contains(from), "the lessons file holds {from}");
    LESSONS.replacen(from, to, 1)
}

#[wasm_bindgen_test]
fn a_malformed_lessons_file_is_refused_with_a_reason() {
    let refused = |text: &str, why: &str| {
        let err = parse_lessons(text).expect_err("refused");
        assert!(err.starts_with("the lessons file is malformed"), "{err}");
        assert!(err.contains(why), "{err} should say {why}");
    };
    refused("{\"id\": 1}", "a list of lessons");
    refused("[1]", "a lesson is not an object");
    refused("[{\"steps\": 5}]", "'steps' must be a list");
    refused("[", "malformed");
    refused(
        &lessons_with("\"version\": \"5.0\"", "\"version\": \"9.9\""),
        "'version' must be one of 3.6, 5.0, 7.0, 8.0",
    );
    refused(
        &lessons_with("\"chunkKib\": 8", "\"chunkKib\": -8"),
        "'chunkKib' must be a positive number",
    );
    refused(
        &lessons_with("\"correct\": true", "\"correct\": 1"),
        "'correct'",
    );
    refused(
        &lessons_with("\"title\": \"", "\"title\": 7, \"x\": \""),
        "'title'",
    );
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    refused(&deep, "a lesson is not an object");
    assert!(parse_lessons("[]").unwrap().is_empty());
}

#[wasm_bindgen_test]
fn the_glossary_reads_with_unique_ids_and_a_malformed_one_is_refused() {
    let entries = parse_glossary(GLOSSARY).expect("the glossary file reads");
    assert!(entries.len() > 5);
    let ids: BTreeSet<&str> = entries.iter().map(|e| e.id).collect();
    assert_eq!(ids.len(), entries.len());
    assert!(entries
        .iter()
        .any(|e| e.id == "shard-key" && e.term == "shard key"));
    let refused = |text: &str, why: &str| {
        let err = parse_glossary(text).expect_err("refused");
        assert!(err.starts_with("the glossary file is malformed"), "{err}");
        assert!(err.contains(why), "{err} should say {why}");
    };
    refused("{}", "a list of terms");
    refused("not json", "a list of terms");
    refused("[{\"term\": \"a\", \"id\": \"a\"}]", "'text'");
    refused(
        "[{\"term\": \" \", \"id\": \"a\", \"text\": \"t\"}]",
        "'term'",
    );
    refused("[5]", "'term'");
    refused(
        "[{\"term\": \"a\", \"id\": \"a\", \"text\": \"t\"}, {\"term\": \"b\", \"id\": \"a\", \"text\": \"u\"}]",
        "the id 'a' is used twice",
    );
}
