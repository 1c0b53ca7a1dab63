//! What the browser tests of the start and the replays share: a tab with nothing stored,
//! a reload, and saving a session as the page's driver does.
#![allow(dead_code)]

use shardlab_web::i18n::Words;
use shardlab_web::sessions::{self, Saving};

/// Empties localStorage and sessionStorage.
pub fn clean_storage() {
    let window = gloo::utils::window();
    for storage in [window.local_storage(), window.session_storage()] {
        if let Some(storage) = storage.ok().flatten() {
            storage.clear().expect("storage clears");
        }
    }
}

/// A browser that never saw ShardLab, in a new tab: nothing stored, sessions read.
pub async fn fresh_tab() {
    clean_storage();
    for listed in sessions::list(Words::ENGLISH)
        .await
        .expect("the sessions are read")
    {
        sessions::delete(Words::ENGLISH, &listed.meta.id)
            .await
            .expect("a session is deleted");
    }
    sessions::load(Words::ENGLISH).await;
}

/// This tab reloaded: its sessionStorage stays, and the sessions are read again.
pub async fn reload() {
    sessions::load(Words::ENGLISH).await;
}

/// A session's text as the engine writes it (its JSON form); `name` tells them apart. The
/// page never reads it: it only carries it to the engine.
pub fn session_text(name: &str) -> String {
    format!(
        "{{\"format\": \"shardlab-scenario\", \"name\": \"{name}\", \"pad\": \"{}\"}}",
        "p".repeat(4096)
    )
}

/// Saves this tab's session with `steps` steps as the page's saving does (`Driver::save`),
/// as a session from the settings form (two setup steps). Returns its text.
pub async fn save(name: &str, steps: u64) -> String {
    let text = session_text(name);
    let saving = Saving {
        name: name.to_string(),
        auto: None,
        steps,
        own: steps.saturating_sub(2),
        collections: vec!["test.events".into()],
        page: vec![("tab".into(), "playground".into())],
    };
    sessions::save(Words::ENGLISH, text.clone(), saving)
        .await
        .expect("the session is saved");
    text
}

/// Whether the stored session `id` is marked set aside.
pub fn aside(id: &str) -> bool {
    sessions::meta(id).is_some_and(|m| m.aside.is_some())
}

/// The text a download offer's `data:` URL holds, if it is one of JSON.
pub fn download(href: &str) -> String {
    assert!(href.starts_with("data:application/json"), "{href}");
    let (_, data) = href.split_once(',').expect("a data: URL has a comma");
    String::from(js_sys::decode_uri_component(data).expect("the data decodes"))
}
