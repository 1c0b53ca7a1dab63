//! Browser tests of the playground's components, run in headless Chromium by
//! `wasm-bindgen-test`. They mount the real app, act on it through the DOM as a person
//! would, and flush Yew's scheduler instead of sleeping.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)]

use shardlab_web::components::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{Element, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

async fn mount() -> Element {
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    yew::scheduler::flush().await;
    root
}

fn query(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn chunks(root: &Element) -> Vec<Element> {
    let list = root.query_selector_all("[data-testid=chunk]").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

#[wasm_bindgen_test]
async fn a_new_playground_has_three_shards_and_one_chunk() {
    let root = mount().await;
    let shards = root.query_selector_all("[data-testid=shard]").unwrap();
    assert_eq!(shards.length(), 3);
    let all = chunks(&root);
    assert_eq!(all.len(), 1);
    assert_eq!(
        all[0].get_attribute("data-min").as_deref(),
        Some("{ x: MinKey() }")
    );
    assert_eq!(
        all[0].get_attribute("data-max").as_deref(),
        Some("{ x: MaxKey() }")
    );
    assert_eq!(
        all[0].get_attribute("data-shard-id").as_deref(),
        Some("shard01")
    );
}

#[wasm_bindgen_test]
async fn inserting_increasing_keys_splits_the_chunk() {
    let root = mount().await;
    let count: HtmlInputElement = query(&root, "[data-testid=insert-count]")
        .dyn_into()
        .unwrap();
    count.set_value("150");
    let button: HtmlElement = query(&root, "[data-testid=insert-increasing]")
        .dyn_into()
        .unwrap();
    button.click();
    yew::scheduler::flush().await;
    let all = chunks(&root);
    assert!(all.len() > 1, "expected a split, got {} chunks", all.len());
    let total: u64 = all
        .iter()
        .map(|c| {
            c.get_attribute("data-count")
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(total, 150);
}

#[wasm_bindgen_test]
async fn an_empty_shard_key_is_refused_in_mongodb_words() {
    let root = mount().await;
    let key: HtmlInputElement = query(&root, "[data-testid=shard-key]").dyn_into().unwrap();
    key.set_value("   ");
    let button: HtmlElement = query(&root, "[data-testid=shard-collection]")
        .dyn_into()
        .unwrap();
    button.click();
    yew::scheduler::flush().await;
    let error = query(&root, "[data-testid=error]");
    assert_eq!(
        error.text_content().as_deref(),
        Some("MongoServerError[BadValue]: Shard key is empty")
    );
}
