//! Share links, embed options and the saved session's keys: how a scenario leaves the
//! page and comes back. The scenario's text (its link form and its JSON form) is the
//! engine's (`Call::Link`), so a link holds shell commands of our language and data, never
//! JavaScript; the page only carries it.

/// The localStorage key of the saved session; the suffix is its format version.
pub const STORAGE_KEY: &str = "shardlab.session.v1";

/// localStorage: the user's session as it was before a link or a lesson in the address
/// replaced it, for "Return to your session".
pub const PREVIOUS_KEY: &str = "shardlab.session.previous";

/// localStorage: the saved session as the last link or lesson opened it, before any change.
/// A saved session equal to it is not the user's work, so opening another link does not
/// copy it over [`PREVIOUS_KEY`] (which still holds the user's own session).
pub const LINKED_KEY: &str = "shardlab.session.linked";

/// localStorage: a saved session set aside because it could not be restored (it killed the
/// page, could not be read, or ran past the replay budget). It is never replayed on its own
/// again; the page offers it for download.
pub const FAILED_KEY: &str = "shardlab.session.failed";

/// localStorage: set while the saved session replays on start, as JSON `{"tab", "at"}`. If
/// it is still there at the next start, that replay never finished.
pub const LOADING_KEY: &str = "shardlab.session.loading";

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

/// A URL to download text of a MIME type from: a `data:` URL, or for text over 1 MiB an
/// object URL, since Chromium refuses `data:` URLs over 2 MB (a large session's download
/// would fail). An object URL lives as long as the page.
pub fn download_url(mime: &str, text: &str) -> String {
    if text.len() > 1 << 20 {
        if let Some(url) = object_url(mime, text) {
            return url;
        }
    }
    format!(
        "data:{mime};charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(text))
    )
}

/// An object URL holding `text` as a blob of type `mime`.
fn object_url(mime: &str, text: &str) -> Option<String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(&format!("{mime};charset=utf-8"));
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// localStorage: the page's own state (tab, lesson step, workload form, ...) of the saved
/// session, as name/value pairs, written at once on every change. The scenario itself is
/// the engine's to write and comes a moment later; a reload in between still finds the
/// page as it was.
pub const PAGE_KEY: &str = "shardlab.session.page";

/// localStorage: how many of the saved session's steps are the user's own (beyond its
/// setup's, which the engine counts), written beside it, so that a fresh playground or an
/// untouched lesson is not kept as "your session" when a link replaces it.
pub const STEPS_KEY: &str = "shardlab.session.steps";
