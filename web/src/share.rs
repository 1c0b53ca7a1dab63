//! Share links, embed options and the saved session: how a scenario leaves the page and
//! comes back. Everything goes through the core's versioned scenario codec, so a link
//! holds shell commands of our language and data, never JavaScript.

use crate::state::{Playground, Settings, Workload};
use shardlab::sim::Timeline;
use shardlab::sim::{from_json, from_query, to_json, to_query, Scenario};

/// The localStorage key of the saved session; the suffix is its format version.
pub const STORAGE_KEY: &str = "shardlab.session.v1";

/// Options read from the page address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageOptions {
    /// `embed=1`: the compact view for an iframe.
    pub embed: bool,
    /// `autoplay=1`: start playing the workload at once.
    pub autoplay: bool,
    /// `hide=console,insights,...`: panels to leave out.
    pub hide: Vec<String>,
    /// `preset=<id>`: the lesson to start with.
    pub preset: Option<String>,
    /// `s=<scenario>`: a shared scenario.
    pub scenario: Option<String>,
}

impl PageOptions {
    /// Reads the options from a query string such as `?embed=1&preset=monotonic`.
    pub fn parse(query: &str) -> Self {
        let mut out = PageOptions::default();
        for pair in query
            .trim_start_matches('?')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode_component(value);
            match key {
                "embed" => out.embed = value != "0" && value != "false",
                "autoplay" => out.autoplay = value != "0" && value != "false",
                "hide" => {
                    out.hide = value
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect()
                }
                "preset" => out.preset = Some(value),
                "s" => out.scenario = Some(value),
                _ => {}
            }
        }
        out
    }

    /// Whether a panel is hidden.
    pub fn hides(&self, panel: &str) -> bool {
        self.hide.iter().any(|h| h == panel)
    }
}

/// Decodes `%XX` escapes and `+` in a query component.
fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                        continue;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The scenario of the current state: its commands, settings and timeline position.
pub fn scenario_of(state: &Playground) -> Scenario {
    let timeline = state.timeline.borrow();
    let mut scenario = timeline.to_scenario();
    scenario.position = Some(timeline.position());
    scenario
}

/// The share link's query string for the current state (`s=...`).
pub fn share_query(state: &Playground) -> String {
    format!("s={}", to_query(&scenario_of(state)))
}

/// Rebuilds a playground from a scenario: the commands are replayed step by step (so the
/// charts have their history), then the cursor moves to the saved position.
pub fn playground_from_scenario(scenario: &Scenario) -> Playground {
    let config = scenario.config();
    // The collection shown is the first one the commands shard.
    let mut probe = Timeline::new(config.clone());
    for c in &scenario.commands {
        probe.push(c);
    }
    let cluster = &probe.session().cluster;
    let shown = cluster
        .collections()
        .iter()
        .find(|(_, c)| c.sharding.is_some())
        .map(|(ns, c)| {
            (
                ns.clone(),
                c.sharding
                    .as_ref()
                    .map(|s| shardlab::shell::format_document(&s.pattern.to_pattern_document())),
            )
        });
    let mut settings = Settings {
        version: config.version,
        shards: config.shards,
        chunk_size: cluster.chunk_size(),
        ..Settings::default()
    };
    if let Some((ns, key)) = shown {
        settings.ns = ns;
        if let Some(key) = key {
            settings.key = key;
        }
    }
    Playground::replay(
        settings,
        Workload::default(),
        config,
        &scenario.commands,
        scenario.applied() as u64,
    )
}

/// Reads a shared scenario from a link's `s` value.
pub fn playground_from_link(s: &str) -> Result<Playground, String> {
    from_query(s)
        .map(|sc| playground_from_scenario(&sc))
        .map_err(|e| e.to_string())
}

/// The saved session as stored: the scenario as JSON.
pub fn saved_form(state: &Playground) -> String {
    to_json(&scenario_of(state))
}

/// Restores a saved session, or explains why it cannot be.
pub fn restore_saved(text: &str) -> Result<Playground, String> {
    from_json(text)
        .map(|sc| playground_from_scenario(&sc))
        .map_err(|e| e.to_string())
}
