//! Writes the playground's first screen into a built `index.html` (ARCHITECTURE.md, "The
//! first screen"): runs the engine natively for the page's default scenario, renders the
//! page's components from its answer with Yew's server renderer, and puts the HTML into
//! `<div id="app">` with the answer beside it as JSON, from which the page hydrates.
//!
//! `shardlab-prerender <index.html>` rewrites the file in place; the Trunk post-build hook
//! (`scripts/minify-glue.mjs`) runs it on every build.

use shardlab_engine::service::Engine;
use shardlab_protocol::{Call, Outcome, Reply, Request, MAX_SOURCE_BYTES, PROTOCOL_VERSION};
use shardlab_web::components::app::{App, AppProps};
use shardlab_web::state::FirstScreen;
use std::process::ExitCode;
use std::rc::Rc;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: shardlab-prerender <index.html>");
        return ExitCode::FAILURE;
    };
    match prerender(&path) {
        Ok(bytes) => {
            println!("shardlab-prerender: {path}: the first screen written ({bytes} bytes)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shardlab-prerender: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn prerender(path: &str) -> Result<usize, String> {
    let index = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    let first = first_screen()?;
    let html = render(&first)?;
    let json = serde_json::to_string(&first).map_err(|e| e.to_string())?;
    let early = early_console()?;
    let written = insert(&index, &html, &json, &early)?;
    std::fs::write(path, &written).map_err(|e| format!("cannot write it: {e}"))?;
    Ok(written.len() - index.len())
}

/// What the engine answers for the page's default scenario: its catalogue, and the first
/// view of the session the settings form's start opens.
fn first_screen() -> Result<FirstScreen, String> {
    let mut engine = Engine::new();
    let start = FirstScreen::start();
    let catalog = match ask(&mut engine, 1, Call::Catalog)? {
        Reply::Catalog(catalog) => *catalog,
        other => return Err(format!("catalog answered {}", other.method())),
    };
    let view = match ask(&mut engine, 2, Call::Open(start.clone()))? {
        Reply::Open(opened) => opened
            .view
            .ok_or("the default scenario opened without a view")?,
        other => return Err(format!("open answered {}", other.method())),
    };
    Ok(FirstScreen {
        catalog,
        view: *view,
    })
}

/// What the first visit's early console (`index.html`) sends and checks before the page's
/// wasm has come: the request that opens the default scenario, as the page's own opening
/// of it serializes (the page's client compares the two to take the early session as its
/// own), and the largest command the page sends.
fn early_console() -> Result<String, String> {
    let open = Request {
        v: PROTOCOL_VERSION,
        id: FirstScreen::EARLY_IDS_FROM,
        session: None,
        call: Call::Open(FirstScreen::start()),
    };
    let open = serde_json::to_string(&open).map_err(|e| e.to_string())?;
    serde_json::to_string(&serde_json::json!({
        "open": open,
        "maxSourceBytes": MAX_SOURCE_BYTES,
    }))
    .map_err(|e| e.to_string())
}

fn ask(engine: &mut Engine, id: u64, call: Call) -> Result<Reply, String> {
    let request = Request {
        v: PROTOCOL_VERSION,
        id,
        session: None,
        call,
    };
    match engine.handle(request).response.outcome {
        Outcome::Result(reply) => Ok(reply),
        Outcome::Error(method, e) => Err(format!(
            "the engine refused {}: {} ({})",
            method.unwrap_or_default(),
            e.message,
            e.code_name
        )),
    }
}

/// The page's first render from `first`, as hydratable HTML.
fn render(first: &FirstScreen) -> Result<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| format!("no runtime for the renderer: {e}"))?;
    let props = AppProps {
        first: Some(Rc::new(first.clone())),
    };
    let local = tokio::task::LocalSet::new();
    Ok(local.block_on(&runtime, async move {
        yew::LocalServerRenderer::<App>::with_props(props)
            .render()
            .await
    }))
}

/// `index` with the first screen in its `<div id="app">` (as Trunk wrote it, its quotes
/// kept or minified away), the JSON it came from right after it, and the early console's
/// (see [`early_console`]). In the JSON, every `<` is escaped, so that nothing in it can
/// end the script element.
fn insert(index: &str, html: &str, json: &str, early: &str) -> Result<String, String> {
    let empty = ["<div id=\"app\"></div>", "<div id=app></div>"];
    let Some(found) = empty.iter().find(|e| index.matches(**e).count() == 1) else {
        return Err("no single empty <div id=\"app\"></div> to write the first screen into".into());
    };
    let json = json.replace('<', "\\u003c");
    let early = early.replace('<', "\\u003c");
    let filled = format!(
        "<div id=\"app\" data-first-screen>{html}</div><script type=\"application/json\" id=\"shardlab-first-screen\">{json}</script><script type=\"application/json\" id=\"shardlab-early-console\">{early}</script>"
    );
    Ok(index.replacen(found, &filled, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_screen_draws_the_engines_cluster() {
        let first = first_screen().expect("the default scenario opens");
        let html = render(&first).expect("it renders");
        assert!(!first.view.frame.shards.is_empty());
        for shard in &first.view.frame.shards {
            assert!(
                html.contains(&format!(">{}<", shard.name)),
                "{} is not drawn",
                shard.name
            );
        }
        assert!(html.contains("data-testid=\"first-summary\""));
        assert!(html.contains("data-testid=\"getting-ready\""));
        assert!(!html.contains("data-testid=\"starting\""));
    }

    #[test]
    fn the_screen_and_its_json_go_into_the_empty_app_element() {
        for index in [
            "<body><div id=\"app\"></div></body>",
            "<body><div id=app></div></body>",
        ] {
            let out = insert(
                index,
                "<p>x</p>",
                "{\"a\":\"</script><!--\"}",
                "{\"b\":\"<\"}",
            )
            .expect("inserted");
            assert!(out.starts_with("<body><div id=\"app\" data-first-screen><p>x</p></div>"));
            assert!(out.ends_with(
                "<script type=\"application/json\" id=\"shardlab-first-screen\">{\"a\":\"\\u003c/script>\\u003c!--\"}</script><script type=\"application/json\" id=\"shardlab-early-console\">{\"b\":\"\\u003c\"}</script></body>"
            ));
        }
    }

    #[test]
    fn an_index_without_one_empty_app_element_is_refused() {
        for index in [
            "<body></body>",
            "<div id=\"app\"><p></p></div>",
            "<div id=app></div><div id=app></div>",
        ] {
            assert!(insert(index, "", "{}", "{}").is_err(), "{index}");
        }
    }
}
