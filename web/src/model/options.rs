//! The options a page address gives (`?embed=1&preset=monotonic`, and the fragment a
//! share link may use): read here as pure data, so that the layers above take them as
//! values. The platform reads the address (`platform/share.rs`), the start decides with
//! them (`effects/start.rs`), and the components draw by them.

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
    /// `origins=https://a.example,https://b.example`: the pages that may drive the embedded
    /// view over `postMessage` (see `effects/host.rs`); none by default.
    pub origins: String,
    /// `views=cluster,keybar,console,timeline,workload`: the panels an embedded view shows
    /// (all by default).
    pub views: Vec<String>,
    /// `readonly=1`: an embedded figure without the controls that change the cluster.
    pub readonly: bool,
    /// `script=…`: readable, URL-encoded mongosh that an embedded view runs once it is up.
    pub script: Option<String>,
    /// `lang=zh-CN`: the language to show (share links and embeds carry the sharer's).
    pub lang: Option<String>,
    /// `selftest=trap`: the test-only trap command is available (see
    /// [`crate::recovery::selftest`]).
    pub selftest: Option<String>,
    /// Options the address holds that this page does not know (a typo in an embed, an
    /// option of a newer ShardLab), by name: the page says it ignored them.
    pub unknown: Vec<String>,
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
                "origins" => out.origins = value.chars().take(4096).collect(),
                "views" => {
                    out.views = value
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .take(16)
                        .collect()
                }
                "readonly" => out.readonly = value != "0" && value != "false",
                "script" => out.script = Some(value),
                "s" => out.scenario = Some(value),
                "selftest" => out.selftest = Some(value),
                "lang" => out.lang = Some(value.chars().take(35).collect()),
                other => {
                    let name: String = decode_component(other).chars().take(40).collect();
                    if out.unknown.len() < 8 && !out.unknown.contains(&name) {
                        out.unknown.push(name);
                    }
                }
            }
        }
        out
    }

    /// Reads the options from the page address: its query string, and a scenario in its
    /// fragment (`#s=…`), which share links use since a fragment never reaches the server,
    /// so no host refuses a long one. A scenario in the fragment wins over one in the query
    /// (`?s=` links keep opening).
    pub fn from_address(query: &str, fragment: &str) -> Self {
        let mut out = PageOptions::parse(query);
        for pair in fragment.trim_start_matches('#').split('&') {
            if let Some(value) = pair.strip_prefix("s=") {
                out.scenario = Some(decode_component(value));
            }
        }
        out
    }

    /// Whether a panel is hidden: named in `hide=`, or left out of `views=`.
    pub fn hides(&self, panel: &str) -> bool {
        self.hide.iter().any(|h| h == panel)
            || (!self.views.is_empty() && !self.views.iter().any(|v| v == panel))
    }
}

/// The query string without the parameters that open a scenario (`s` and `preset`), so
/// that a reload keeps the session the page now holds; the other options stay. Returns
/// `""` or `?…`.
pub fn query_without_link(query: &str) -> String {
    let kept: Vec<&str> = query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let key = p.split_once('=').map_or(*p, |(k, _)| k);
            key != "s" && key != "preset"
        })
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!("?{}", kept.join("&"))
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
