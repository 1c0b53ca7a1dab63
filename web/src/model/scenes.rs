//! Workshop scenes: a demo is a list of scenes, each a step of a scenario (the one loaded,
//! a lesson of the engine's catalog, or a session's link form), the panels to show, a title
//! and a presenter's note.
//!
//! The scenes travel as one entry of the page's own state (`scenes`, see
//! [`crate::state::Playground::page_entries`]), in links, saved sessions and scenario
//! files, and the scene on screen while a demo runs as another (`scene`). Both are read
//! back as hostile input: [`parse`] bounds every count and length and never panics. Which
//! steps exist is the engine's to say (a jump past the end is refused with its notice);
//! this file only carries the scenes. The ready-made demos' titles and notes are keys of
//! the text catalogue, named by the demo's id (`demo.<id>.title`,
//! `demo.<id>.scene<N>.title` and `.note`).

use crate::i18n::{Words, K};
use serde::{Deserialize, Serialize};

/// The page entry that holds the scenes.
pub const SCENES_ENTRY: &str = "scenes";
/// The page entry that holds the scene on screen (its index) while a demo runs.
pub const SCENE_ENTRY: &str = "scene";
/// Most scenes one demo holds.
pub const MAX_SCENES: usize = 30;
/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 120;
/// Longest presenter's note, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;
/// Longest encoded list, in bytes: what one page entry may carry
/// (`shardlab_protocol::MAX_FIELD_BYTES`).
pub const MAX_ENCODED_BYTES: usize = shardlab_protocol::MAX_FIELD_BYTES;
/// Highest step a scene may name (the protocol's bound on a jump).
pub const MAX_SCENE_STEP: u64 = shardlab_protocol::MAX_STEP as u64;
/// The first line of the encoded form: its version. A scene's line may name the scenario
/// it shows (a fifth field).
const HEADER: &str = "scenes v2";
/// The first line of the first version, still read: every scene a step of the current
/// scenario (four fields).
const HEADER_V1: &str = "scenes v1";
/// Longest lesson id a scene may name, in bytes.
pub const MAX_LESSON_ID: usize = 64;

/// The panels a scene can show or hide: the name a scene carries and the words the
/// scenes panel uses for it. (The page's CSS hides `.panel.<name>`.)
pub const PANELS: &[(&str, &str)] = &[
    ("controls", "Scenario forms"),
    ("transport", "Workload"),
    ("keybar", "Key space"),
    ("query", "Query targeting"),
    ("cluster", "Cluster"),
    ("inspector", "Inspector"),
    ("timeline", "Timeline"),
    ("console", "Console"),
    ("insights", "Insights"),
    ("heatmap", "Heatmap"),
];

/// The scenario a scene shows, when it is not the one loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shows {
    /// A lesson of the engine's catalog, by its id; the scene's step counts from the end
    /// of the lesson's own setup (the engine says how many steps that is once it opens).
    Lesson(String),
    /// A session's shareable link form (`Call::Link`), replayed when the scene is shown;
    /// the scene's step is a step of that session.
    Link(String),
}

impl Shows {
    /// The scenario's field in a scene's line.
    fn encode(&self) -> String {
        match self {
            Shows::Lesson(id) => format!("lesson:{id}"),
            Shows::Link(text) => format!("link:{text}"),
        }
    }

    /// Reads the scenario's field: a lesson id or a link form of the characters they are
    /// made of (the engine reads the rest).
    fn parse(field: &str) -> Result<Option<Shows>, String> {
        let plain = |s: &str, extra: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
        };
        if field.is_empty() {
            return Ok(None);
        }
        if let Some(id) = field.strip_prefix("lesson:") {
            if id.len() <= MAX_LESSON_ID && plain(id, "-_") {
                return Ok(Some(Shows::Lesson(id.to_string())));
            }
            return Err("the lesson a scene names is not a lesson id".to_string());
        }
        if let Some(text) = field.strip_prefix("link:") {
            if plain(text, "-_.~") {
                return Ok(Some(Shows::Link(text.to_string())));
            }
            return Err("the link a scene names is not a link's scenario".to_string());
        }
        let shown: String = field.chars().take(20).collect();
        Err(format!("unknown scenario '{shown}'"))
    }
}

/// One scene of a demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    /// The scenario it shows: `None` for the one loaded.
    pub scenario: Option<Shows>,
    /// The step it shows: of the scenario's timeline, or, for a lesson, past its setup.
    pub step: u64,
    /// The panels it shows (names from [`PANELS`], in that order).
    pub views: Vec<String>,
    /// Its title.
    pub title: String,
    /// What the presenter says.
    pub note: String,
}

impl Scene {
    /// The step of the timeline this scene shows, once its scenario is loaded and made
    /// `setup_steps` steps of its own setup.
    pub fn timeline_step(&self, setup_steps: u64) -> u64 {
        match self.scenario {
            Some(Shows::Lesson(_)) => setup_steps.saturating_add(self.step),
            _ => self.step,
        }
    }

    /// The panels this scene hides, as a space-separated list (for the page's
    /// `data-scene-hide` attribute).
    pub fn hidden(&self) -> String {
        PANELS
            .iter()
            .filter(|(name, _)| !self.views.iter().any(|v| v == name))
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Every panel's name, in order: what a new scene shows.
pub fn all_views() -> Vec<String> {
    PANELS.iter().map(|(n, _)| n.to_string()).collect()
}

/// Why a scenes entry was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenesError {
    /// The entry is longer than a page entry may be.
    TooLong(usize),
    /// The entry does not start with the version line.
    Version,
    /// More scenes than a demo holds.
    TooMany(usize),
    /// A scene's line is malformed: its number (from 1) and what is wrong.
    Scene(usize, String),
}

impl std::fmt::Display for ScenesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScenesError::TooLong(n) => write!(
                f,
                "the scenes are {n} bytes, over the limit of {MAX_ENCODED_BYTES}"
            ),
            ScenesError::Version => write!(
                f,
                "the scenes do not start with '{HEADER}' (or '{HEADER_V1}')"
            ),
            ScenesError::TooMany(n) => {
                write!(f, "{n} scenes, over the limit of {MAX_SCENES}")
            }
            ScenesError::Scene(i, why) => write!(f, "scene {i}: {why}"),
        }
    }
}

/// Escapes a title or note so that it holds no tab or line break.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

/// Undoes [`escape`]; an unknown escape is an error.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => return Err(format!("unknown escape '\\{other}'")),
            None => return Err("a '\\' ends the text".to_string()),
        }
    }
    Ok(out)
}

/// The scenes as one page entry: a version line, then one line a scene of
/// `step<TAB>views<TAB>title<TAB>note<TAB>scenario`, views comma-separated, title and note
/// escaped, the scenario empty (the one loaded), `lesson:<id>` or `link:<link form>`.
pub fn encode(scenes: &[Scene]) -> String {
    let mut out = String::from(HEADER);
    for s in scenes {
        out.push('\n');
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}",
            s.step,
            s.views.join(","),
            escape(&s.title),
            escape(&s.note),
            s.scenario.as_ref().map(Shows::encode).unwrap_or_default()
        ));
    }
    out
}

/// Reads one scene's line: `fields` tab-separated fields (4 in the first version, 5 now).
fn parse_scene(line: &str, fields: usize) -> Result<Scene, String> {
    let parts: Vec<&str> = line.splitn(fields + 1, '\t').collect();
    if parts.len() != fields {
        return Err(format!(
            "a scene has {fields} tab-separated fields, not {}",
            parts.len()
        ));
    }
    let [step, views, title, note] = parts[..4] else {
        return Err(format!("a scene has {fields} tab-separated fields"));
    };
    let scenario = match parts.get(4) {
        Some(field) => Shows::parse(field)?,
        None => None,
    };
    let step = match step.parse::<u64>() {
        Ok(n) if n <= MAX_SCENE_STEP => n,
        _ => {
            let shown: String = step.chars().take(20).collect();
            return Err(format!("'{shown}' is not a valid step"));
        }
    };
    let mut shown = Vec::new();
    for v in views.split(',').filter(|v| !v.is_empty()) {
        if !PANELS.iter().any(|(name, _)| *name == v) {
            let v: String = v.chars().take(20).collect();
            return Err(format!("unknown view '{v}'"));
        }
        if !shown.iter().any(|s: &String| s == v) {
            shown.push(v.to_string());
        }
    }
    // Kept in the panels' order, so that equal scenes compare equal.
    let views = PANELS
        .iter()
        .filter(|(name, _)| shown.iter().any(|s| s == name))
        .map(|(name, _)| name.to_string())
        .collect();
    let title = unescape(title)?;
    let note = unescape(note)?;
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(format!("a title is at most {MAX_TITLE_CHARS} characters"));
    }
    if note.chars().count() > MAX_NOTE_CHARS {
        return Err(format!("a note is at most {MAX_NOTE_CHARS} characters"));
    }
    Ok(Scene {
        scenario,
        step,
        views,
        title,
        note,
    })
}

/// Reads a scenes entry from a link, a saved session or a file: every count and length is
/// checked before anything is kept.
pub fn parse(text: &str) -> Result<Vec<Scene>, ScenesError> {
    if text.len() > MAX_ENCODED_BYTES {
        return Err(ScenesError::TooLong(text.len()));
    }
    let mut lines = text.split('\n');
    let fields = match lines.next().map(|l| l.trim_end_matches('\r')) {
        Some(HEADER) => 5,
        Some(HEADER_V1) => 4,
        _ => return Err(ScenesError::Version),
    };
    let mut scenes = Vec::new();
    for (i, line) in lines.enumerate() {
        if scenes.len() == MAX_SCENES {
            return Err(ScenesError::TooMany(text.split('\n').count() - 1));
        }
        let scene = parse_scene(line.trim_end_matches('\r'), fields)
            .map_err(|e| ScenesError::Scene(i + 1, e))?;
        scenes.push(scene);
    }
    Ok(scenes)
}

/// Reads the scene-on-screen entry: an index into `count` scenes.
pub fn parse_index(text: &str, count: usize) -> Option<usize> {
    text.parse::<usize>().ok().filter(|i| *i < count)
}

/// Whether the scenes, encoded, fit in one page entry.
pub fn fits(scenes: &[Scene]) -> bool {
    scenes.len() <= MAX_SCENES && encode(scenes).len() <= MAX_ENCODED_BYTES
}

/// One scene of a ready-made demo: the lesson it shows, how far past the lesson's own setup
/// it stands, the panels it shows, its title and note.
pub struct DemoScene {
    /// The lesson it shows, by the engine's id: going to the scene opens it when another
    /// scenario is loaded. `None`: a step of the demo's own lesson as loaded.
    pub lesson: Option<&'static str>,
    /// Steps after the lesson's own setup steps: a workload batch each, then the lesson's
    /// closing commands.
    pub after_setup: u64,
    /// The panels shown.
    pub views: &'static [&'static str],
    /// The title, a key of the catalogue (`demo.<id>.scene<N>.title`).
    pub title: K,
    /// The presenter's note (`demo.<id>.scene<N>.note`).
    pub note: K,
}

/// A ready-made demo, built on one of the engine's lessons.
pub struct Demo {
    /// Its id (`data-demo` in the page).
    pub id: &'static str,
    /// Its title, a key of the catalogue (`demo.<id>.title`).
    pub title: K,
    /// The lesson it opens first, by the engine's id.
    pub lesson: &'static str,
    /// Its scenes.
    pub scenes: &'static [DemoScene],
}

impl Demo {
    /// The demo's scenes for a session whose own setup made `setup_steps` steps, titled
    /// and noted in the page's language (the scenes are then the presenter's to edit).
    pub fn scenes(&self, setup_steps: u64, w: Words) -> Vec<Scene> {
        self.scenes
            .iter()
            .map(|s| Scene {
                scenario: s.lesson.map(|id| Shows::Lesson(id.to_string())),
                step: match s.lesson {
                    Some(_) => s.after_setup,
                    None => setup_steps + s.after_setup,
                },
                views: PANELS
                    .iter()
                    .filter(|(n, _)| s.views.contains(n))
                    .map(|(n, _)| n.to_string())
                    .collect(),
                title: w.t(s.title).to_string(),
                note: w.t(s.note).to_string(),
            })
            .collect()
    }
}

/// The ready-made demos, built from lessons of the engine's catalog.
pub const DEMOS: &[Demo] = &[
    Demo {
        id: "hot-spot-to-hashed",
        title: K::DemoHotSpotToHashedTitle,
        lesson: "monotonic",
        scenes: &[
            DemoScene {
                lesson: Some("monotonic"),
                after_setup: 0,
                views: &["transport", "keybar", "cluster"],
                title: K::DemoHotSpotToHashedScene1Title,
                note: K::DemoHotSpotToHashedScene1Note,
            },
            DemoScene {
                lesson: Some("monotonic"),
                after_setup: 12,
                views: &["keybar", "cluster", "heatmap"],
                title: K::DemoHotSpotToHashedScene2Title,
                note: K::DemoHotSpotToHashedScene2Note,
            },
            DemoScene {
                lesson: Some("monotonic"),
                after_setup: 36,
                views: &["cluster", "insights"],
                title: K::DemoHotSpotToHashedScene3Title,
                note: K::DemoHotSpotToHashedScene3Note,
            },
            DemoScene {
                lesson: Some("hashed"),
                after_setup: 10,
                views: &["keybar", "cluster", "heatmap"],
                title: K::DemoHotSpotToHashedScene4Title,
                note: K::DemoHotSpotToHashedScene4Note,
            },
            DemoScene {
                lesson: Some("hashed"),
                after_setup: 21,
                views: &["cluster", "console", "insights"],
                title: K::DemoHotSpotToHashedScene5Title,
                note: K::DemoHotSpotToHashedScene5Note,
            },
        ],
    },
    Demo {
        id: "hot-spot",
        title: K::DemoHotSpotTitle,
        lesson: "monotonic",
        scenes: &[
            DemoScene {
                lesson: None,
                after_setup: 0,
                views: &["transport", "keybar", "cluster"],
                title: K::DemoHotSpotScene1Title,
                note: K::DemoHotSpotScene1Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 12,
                views: &["keybar", "cluster", "heatmap"],
                title: K::DemoHotSpotScene2Title,
                note: K::DemoHotSpotScene2Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 36,
                views: &["cluster", "insights"],
                title: K::DemoHotSpotScene3Title,
                note: K::DemoHotSpotScene3Note,
            },
        ],
    },
    Demo {
        id: "hashed",
        title: K::DemoHashedTitle,
        lesson: "hashed",
        scenes: &[
            DemoScene {
                lesson: None,
                after_setup: 0,
                views: &["transport", "keybar", "cluster"],
                title: K::DemoHashedScene1Title,
                note: K::DemoHashedScene1Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 10,
                views: &["keybar", "cluster", "heatmap"],
                title: K::DemoHashedScene2Title,
                note: K::DemoHashedScene2Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 21,
                views: &["cluster", "console", "insights"],
                title: K::DemoHashedScene3Title,
                note: K::DemoHashedScene3Note,
            },
        ],
    },
    Demo {
        id: "continents",
        title: K::DemoContinentsTitle,
        lesson: "low-cardinality",
        scenes: &[
            DemoScene {
                lesson: None,
                after_setup: 0,
                views: &["transport", "keybar", "cluster"],
                title: K::DemoContinentsScene1Title,
                note: K::DemoContinentsScene1Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 8,
                views: &["keybar", "cluster", "heatmap"],
                title: K::DemoContinentsScene2Title,
                note: K::DemoContinentsScene2Note,
            },
            DemoScene {
                lesson: None,
                after_setup: 20,
                views: &["cluster", "insights"],
                title: K::DemoContinentsScene3Title,
                note: K::DemoContinentsScene3Note,
            },
        ],
    },
];

/// What crosses the channel between the page and its presenter view
/// (`platform/scene_channel.rs`): serde's own (external) tagging, `"hello"` or
/// `{"go": {"to": 2}}`, which decodes in one pass (a tag inside the object would buffer it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Cue {
    /// A presenter view opened: the page answers with [`Cue::Show`].
    Hello,
    /// Go to this scene (from either window; the page moves, then says where it is).
    Go {
        /// The scene's index.
        to: u32,
    },
    /// The page's demo: every scene's title and note, and the one on screen while the
    /// demo runs.
    Show {
        /// The scene on screen, if the demo runs.
        at: Option<u32>,
        /// Every scene's title and note.
        scenes: Vec<(String, String)>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    // The same tests run natively and, with the page's other tests, in wasm32.
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn scene(step: u64, title: &str, note: &str) -> Scene {
        Scene {
            scenario: None,
            step,
            views: vec!["keybar".into(), "cluster".into()],
            title: title.into(),
            note: note.into(),
        }
    }

    #[test]
    fn round_trips_titles_and_notes_with_tabs_breaks_and_backslashes() {
        let scenes = vec![
            scene(3, "Hot\tspot", "line one\nline two \\ done\r"),
            scene(0, "", ""),
        ];
        assert_eq!(parse(&encode(&scenes)), Ok(scenes));
    }

    #[test]
    fn round_trips_scenes_that_name_their_scenario() {
        let mut lesson = scene(12, "Hot", "spot");
        lesson.scenario = Some(Shows::Lesson("low-cardinality".into()));
        let mut link = scene(40, "Mine", "");
        link.scenario = Some(Shows::Link("v2.AbC-_x.~9".into()));
        let scenes = vec![scene(3, "Here", ""), lesson, link];
        let text = encode(&scenes);
        assert!(text.starts_with("scenes v2\n3\tkeybar,cluster\tHere\t\t\n"));
        assert!(text.contains("\tlesson:low-cardinality\n"));
        assert!(text.ends_with("\tlink:v2.AbC-_x.~9"));
        assert_eq!(parse(&text), Ok(scenes));
    }

    #[test]
    fn still_reads_the_first_version() {
        let s = parse("scenes v1\n7\tcluster\tOld\tnote\r\n0\t\t\t").unwrap_or_default();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].step, s[0].scenario.clone()), (7, None));
        assert_eq!(s[0].title, "Old");
        assert_eq!(s[1].views.len(), 0);
    }

    #[test]
    fn refuses_hostile_scenarios_with_a_reason() {
        let bad = |t: &str| parse(t).err().map(|e| e.to_string()).unwrap_or_default();
        let line = |scenario: &str| format!("scenes v2\n1\tcluster\tt\tn\t{scenario}");
        assert_eq!(
            bad(&line("lesson:")),
            "scene 1: the lesson a scene names is not a lesson id"
        );
        assert_eq!(
            bad(&line("lesson:../etc")),
            "scene 1: the lesson a scene names is not a lesson id"
        );
        assert_eq!(
            bad(&line(&format!("lesson:{}", "a".repeat(65)))),
            "scene 1: the lesson a scene names is not a lesson id"
        );
        assert_eq!(
            bad(&line("link:v2.a b")),
            "scene 1: the link a scene names is not a link's scenario"
        );
        assert_eq!(
            bad(&line("link:<script>")),
            "scene 1: the link a scene names is not a link's scenario"
        );
        assert_eq!(
            bad(&line("link:")),
            "scene 1: the link a scene names is not a link's scenario"
        );
        assert_eq!(
            bad(&line("javascript:alert(1)\textra")),
            "scene 1: a scene has 5 tab-separated fields, not 6"
        );
        assert_eq!(
            bad(&line("javascript:alert(1)")),
            "scene 1: unknown scenario 'javascript:alert(1)'"
        );
        // A link as long as the entry allows is taken; one byte more is refused whole.
        let room = MAX_ENCODED_BYTES - line("link:").len();
        let long = line(&format!("link:{}", "A".repeat(room)));
        assert_eq!(parse(&long).map(|s| s.len()), Ok(1));
        let longer = line(&format!("link:{}", "A".repeat(room + 1)));
        assert_eq!(parse(&longer), Err(ScenesError::TooLong(longer.len())));
    }

    #[test]
    fn a_lesson_scene_counts_its_step_past_the_lesson_setup() {
        let mut s = scene(10, "", "");
        assert_eq!(s.timeline_step(4), 10);
        s.scenario = Some(Shows::Lesson("hashed".into()));
        assert_eq!(s.timeline_step(4), 14);
        s.scenario = Some(Shows::Link("v2.x".into()));
        assert_eq!(s.timeline_step(4), 10);
    }

    #[test]
    fn the_story_demo_crosses_from_the_counter_to_the_hashed_key() {
        let story = DEMOS.iter().find(|d| d.id == "hot-spot-to-hashed");
        let scenes = story
            .map(|d| d.scenes(3, Words::ENGLISH))
            .unwrap_or_default();
        let lessons: Vec<_> = scenes.iter().map(|s| s.scenario.clone()).collect();
        let lesson = |id: &str| Some(Shows::Lesson(id.into()));
        assert_eq!(
            lessons,
            vec![
                lesson("monotonic"),
                lesson("monotonic"),
                lesson("monotonic"),
                lesson("hashed"),
                lesson("hashed")
            ]
        );
        // A lesson scene's step counts past that lesson's setup, whichever lesson is open.
        assert_eq!(scenes[3].step, 10);
        assert_eq!(scenes[3].timeline_step(5), 15);
    }

    #[test]
    fn an_empty_list_is_the_header_alone() {
        assert_eq!(encode(&[]), HEADER);
        assert_eq!(parse(HEADER), Ok(vec![]));
    }

    #[test]
    fn refuses_hostile_entries_with_a_reason() {
        let bad = |t: &str| parse(t).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            bad(""),
            "the scenes do not start with 'scenes v2' (or 'scenes v1')"
        );
        assert_eq!(
            bad("scenes v1\nx\tcluster\tt\tn"),
            "scene 1: 'x' is not a valid step"
        );
        assert_eq!(
            bad("scenes v1\n18446744073709551615\tcluster\tt\tn"),
            "scene 1: '18446744073709551615' is not a valid step"
        );
        assert_eq!(
            bad("scenes v1\n1\tcluster"),
            "scene 1: a scene has 4 tab-separated fields, not 2"
        );
        assert_eq!(
            bad("scenes v1\n1\tcluster\tt\tn\textra"),
            "scene 1: a scene has 4 tab-separated fields, not 5"
        );
        assert_eq!(
            bad("scenes v2\n1\tcluster\tt\tn"),
            "scene 1: a scene has 5 tab-separated fields, not 4"
        );
        assert_eq!(
            bad("scenes v1\n1\t<script>\tt\tn"),
            "scene 1: unknown view '<script>'"
        );
        assert_eq!(
            bad("scenes v1\n1\tcluster\tt\\\tn"),
            "scene 1: a '\\' ends the text"
        );
        assert_eq!(
            bad("scenes v1\n1\tcluster\t\\x\tn"),
            "scene 1: unknown escape '\\x'"
        );
        let long_title = format!("scenes v1\n1\tcluster\t{}\tn", "é".repeat(121));
        assert_eq!(
            bad(&long_title),
            "scene 1: a title is at most 120 characters"
        );
    }

    #[test]
    fn bounds_the_count_and_the_size() {
        let many = format!("scenes v1{}", "\n1\tcluster\tt\tn".repeat(31));
        assert_eq!(parse(&many), Err(ScenesError::TooMany(31)));
        let many = format!("scenes v2{}", "\n1\tcluster\tt\tn\tlesson:x".repeat(31));
        assert_eq!(parse(&many), Err(ScenesError::TooMany(31)));
        let huge = format!("scenes v1\n1\tcluster\tt\t{}", "n".repeat(20_000));
        assert_eq!(parse(&huge), Err(ScenesError::TooLong(huge.len())));
        let deep = format!("scenes v1\n1\t{}\tt\tn", ",".repeat(10_000));
        assert_eq!(
            parse(&deep).map(|s| s[0].views.len()),
            Ok(0),
            "empty view names are skipped"
        );
    }

    #[test]
    fn views_are_kept_once_in_the_panels_order() {
        let s = parse("scenes v1\n2\tcluster,keybar,cluster\tt\tn").unwrap_or_default();
        assert_eq!(s[0].views, vec!["keybar", "cluster"]);
        assert_eq!(
            s[0].hidden(),
            "controls transport query inspector timeline console insights heatmap"
        );
    }

    #[test]
    fn the_scene_index_is_within_the_list() {
        assert_eq!(parse_index("1", 3), Some(1));
        assert_eq!(parse_index("3", 3), None);
        assert_eq!(parse_index("-1", 3), None);
        assert_eq!(parse_index("99999999999999999999999", 3), None);
    }

    #[test]
    fn every_demo_fits_and_names_known_views() {
        for demo in DEMOS {
            let scenes = demo.scenes(2, Words::ENGLISH);
            assert!(fits(&scenes), "{}", demo.id);
            assert_eq!(scenes.len(), demo.scenes.len());
            for (s, d) in scenes.iter().zip(demo.scenes) {
                assert_eq!(s.views.len(), d.views.len(), "{}: {}", demo.id, s.title);
            }
            assert_eq!(parse(&encode(&scenes)), Ok(scenes));
        }
    }

    #[test]
    fn a_demo_s_words_are_the_catalogue_s_keys_named_by_its_id() {
        use crate::i18n::{id_hash, ID_HASHES};
        let named = |key: K, id: String| assert_eq!(ID_HASHES[key as usize], id_hash(&id), "{id}");
        for demo in DEMOS {
            named(demo.title, format!("demo.{}.title", demo.id));
            for (n, s) in demo.scenes.iter().enumerate() {
                named(s.title, format!("demo.{}.scene{}.title", demo.id, n + 1));
                named(s.note, format!("demo.{}.scene{}.note", demo.id, n + 1));
            }
        }
    }
}
