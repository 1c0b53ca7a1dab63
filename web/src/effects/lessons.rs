//! The guided lessons' content: each lesson is a list of steps, and each step sets up a
//! scenario, says what to watch, asks for a prediction, runs, and points at the result.
//!
//! The lessons are content, loaded when the Guided lessons tab first opens: they live in
//! `static/lessons.json`, which the page fetches ([`load`]) and this module reads and checks
//! ([`parse_lessons`]), so that they are not part of the initial download. Browser tests
//! check the same file (every preset exists, every question has one right answer).

use crate::i18n::{Lang, Words, K};
use crate::state::default_setup;
use crate::storage::{as_list, as_object, field, string_field};
use js_sys::{Array, Object};
use shardlab_protocol::PageSetup as Settings;
use wasm_bindgen::{JsCast, JsValue};

/// The localStorage key that remembers where the learner left a lesson.
pub const STORAGE_KEY: &str = "shardlab.guide.v1";

/// How a step prepares the playground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scenario {
    /// Load one of the engine's lessons, by id.
    Preset(&'static str),
    /// Start over with a fresh collection sharded on `key`.
    Key {
        /// The shard key, as typed.
        key: &'static str,
        /// The behaviour era: `"3.6"`, `"5.0"` or `"8.0"`.
        version: &'static str,
        /// The chunk size in KiB.
        chunk_kib: u64,
    },
}

impl Scenario {
    /// The playground settings for a [`Scenario::Key`] step; `None` for a preset.
    pub fn settings(&self) -> Option<Settings> {
        match *self {
            Scenario::Preset(_) => None,
            Scenario::Key {
                key,
                version,
                chunk_kib,
            } => Some(Settings {
                version: version.to_string(),
                chunk_size: chunk_kib * 1024,
                key: key.to_string(),
                ..default_setup()
            }),
        }
    }
}

/// What the step's run button does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Run {
    /// Play the loaded workload to its end (and the preset's closing commands).
    Play,
    /// Run these shell commands, echoed in the console.
    Commands(&'static [&'static str]),
}

/// One answer to a prediction question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// The answer as shown.
    pub text: &'static str,
    /// Whether it is the right prediction.
    pub correct: bool,
    /// Why it is right or wrong, shown once the learner has chosen.
    pub why: &'static str,
}

/// A multiple-choice prediction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Question {
    /// The question.
    pub prompt: &'static str,
    /// The answers, in the order shown.
    pub choices: &'static [Choice],
}

impl Question {
    /// The index of the right answer, if exactly one answer is right.
    pub fn correct_index(&self) -> Option<usize> {
        let mut right = self.choices.iter().enumerate().filter(|(_, c)| c.correct);
        match (right.next(), right.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }
}

/// One step of a lesson.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// A short title.
    pub title: &'static str,
    /// The scenario the step loads when it opens.
    pub scenario: Scenario,
    /// The idea, in two or three sentences.
    pub explain: &'static str,
    /// What to look at on the page.
    pub watch: &'static str,
    /// The prediction asked before running.
    pub question: Question,
    /// What the run button does.
    pub run: Run,
    /// What happened, shown after the run.
    pub result: &'static str,
    /// A CSS selector for the element the result points at.
    pub highlight: &'static str,
}

/// A guided lesson.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lesson {
    /// The identifier stored in localStorage.
    pub id: &'static str,
    /// The title.
    pub title: &'static str,
    /// One sentence on what the lesson covers.
    pub summary: &'static str,
    /// The steps, in order.
    pub steps: &'static [Step],
}

/// Where a learner is: the lesson and the step index (from 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// The lesson's id.
    pub lesson: String,
    /// The step index, from 0.
    pub step: u32,
}

impl Progress {
    /// The lesson and step this progress points at, if both still exist (content can
    /// change between visits; a stale entry is then ignored).
    pub fn resolve(&self, lang: Lang) -> Option<(&'static Lesson, usize)> {
        let lesson = lesson(lang, &self.lesson)?;
        let step = self.step as usize;
        (step < lesson.steps.len()).then_some((lesson, step))
    }
}

/// The step counter's text: `Step 2 of 7` for index 1 of 7 steps.
pub fn progress_label(w: Words, index: usize, len: usize) -> String {
    w.tf(
        K::LessonsStepNOfTotal,
        &[("n", &(index + 1)), ("total", &len)],
    )
}

/// Where the page fetches the English lessons from, relative to the page.
pub const LESSONS_URL: &str = "lessons.json";

/// Where the page fetches a language's lessons from: English's own file, or its
/// translation (`i18n/lessons.zh-CN.json`), which has the same lessons, steps, ids and
/// answers (`tests/it/i18n_catalogues.rs`).
pub fn lessons_url(lang: Lang) -> String {
    match lang {
        Lang::En => LESSONS_URL.to_string(),
        other => format!("i18n/lessons.{}.json", other.tag()),
    }
}

/// The lessons' kind in the cache: once loaded, they are kept there for the page's life
/// (leaked once), so that steps can be handed around as `&'static`.
const KIND: &str = "lessons";

/// The lessons in `lang`, if loaded.
fn loaded_in(lang: Lang) -> Option<&'static [Lesson]> {
    crate::cache::kept(KIND, lang)
}

/// Whether the lessons in `lang` are in.
pub fn is_loaded_in(lang: Lang) -> bool {
    loaded_in(lang).is_some()
}

/// Every lesson, in teaching order, once loaded (see [`load`]): in `lang`, or in English
/// until its translation is in.
pub fn lessons(lang: Lang) -> Option<&'static [Lesson]> {
    loaded_in(lang).or_else(|| loaded_in(Lang::En))
}

/// A lesson by id, once the lessons are loaded (in `lang`, or in English).
pub fn lesson(lang: Lang, id: &str) -> Option<&'static Lesson> {
    lessons(lang)?.iter().find(|l| l.id == id)
}

/// Makes `lessons` the page's English lessons, for its life. Only the first call counts.
pub fn install(lessons: Vec<Lesson>) -> &'static [Lesson] {
    install_in(Lang::En, lessons)
}

/// Makes `lessons` the page's lessons in `lang`, for its life. Only the first call counts.
pub fn install_in(lang: Lang, lessons: Vec<Lesson>) -> &'static [Lesson] {
    crate::cache::keep(KIND, lang, lessons)
}

/// Fetches and reads the lessons in the language of `w`, the page's words (once; later
/// calls answer at once). Without the network it waits for it, telling `waiting` in `w`
/// (see [`fetch_text_patiently`]). A translation that cannot be read gives the English
/// lessons.
pub async fn load(w: Words, waiting: impl Fn(Option<String>)) -> Result<&'static [Lesson], String> {
    load_in(w, w.lang(), waiting).await
}

/// Fetches and reads the lessons in `lang` (see [`load`]), saying what it waits for in
/// `w`.
pub async fn load_in(
    w: Words,
    lang: Lang,
    waiting: impl Fn(Option<String>),
) -> Result<&'static [Lesson], String> {
    if let Some(loaded) = loaded_in(lang) {
        return Ok(loaded);
    }
    let text =
        fetch_text_patiently(w, &lessons_url(lang), w.t(K::LessonsTheLessons), &waiting).await;
    match text.and_then(|text| parse_lessons(&text)) {
        Ok(list) => Ok(install_in(lang, list)),
        Err(_) if lang != Lang::En => {
            let text =
                fetch_text_patiently(w, LESSONS_URL, w.t(K::LessonsTheLessons), &waiting).await?;
            Ok(install_in(Lang::En, parse_lessons(&text)?))
        }
        Err(e) => Err(e),
    }
}

/// Fetches a text file that ships beside the page (the lessons, the glossary); `what`
/// names it in the error. Without the network it tries again by itself, when the browser
/// is back online or after a growing pause, telling `waiting` what it is doing (and `None`
/// once it is no longer waiting).
pub async fn fetch_text_patiently(
    w: Words,
    url: &str,
    what: &str,
    waiting: impl Fn(Option<String>),
) -> Result<String, String> {
    let mut attempt = 0;
    loop {
        match fetch_text(w, url, what).await {
            Err(Fetch::Network) => {
                let key = if crate::network::offline() {
                    K::LessonsWaitingOffline
                } else {
                    K::LessonsWaitingNetwork
                };
                waiting(Some(w.tf(key, &[("what", &what)])));
                crate::network::back(attempt).await;
                attempt += 1;
            }
            other => {
                waiting(None);
                return other.map_err(|e| match e {
                    Fetch::Network => w.tf(K::LessonsCouldNotBeFetched, &[("what", &what)]),
                    Fetch::Failed(why) => why,
                });
            }
        }
    }
}

/// Why a fetch failed: the network (worth trying again), or an answer that will not change.
#[derive(Debug, PartialEq)]
pub enum Fetch {
    /// No answer from the network.
    Network,
    /// A wrong answer, in words.
    Failed(String),
}

/// Fetches a text file once (see [`fetch_text_patiently`]).
pub async fn fetch_text(w: Words, url: &str, what: &str) -> Result<String, Fetch> {
    let failed = || Fetch::Failed(w.tf(K::LessonsCouldNotBeFetched, &[("what", &what)]));
    let response = wasm_bindgen_futures::JsFuture::from(gloo::utils::window().fetch_with_str(url))
        .await
        .map_err(|_| Fetch::Network)?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| failed())?;
    if !response.ok() {
        return Err(Fetch::Failed(w.tf(
            K::LessonsCouldNotBeFetchedHttp,
            &[("what", &what), ("status", &response.status())],
        )));
    }
    let text = response.text().map_err(|_| failed())?;
    Ok(wasm_bindgen_futures::JsFuture::from(text)
        .await
        .map_err(|_| failed())?
        .as_string()
        .unwrap_or_default())
}

/// A text leaked for the page's life.
pub(crate) fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

/// Reads the lessons file, checking every field: a file can be malformed.
pub fn parse_lessons(text: &str) -> Result<Vec<Lesson>, String> {
    let value = crate::storage::parse_json(text).map_err(|e| bad(&e))?;
    let list = as_list(&value).ok_or_else(|| bad("it must hold a list of lessons"))?;
    list.iter().map(|item| parse_lesson(&item)).collect()
}

/// The error for a malformed lessons file, saying `what` is wrong.
fn bad(what: &str) -> String {
    format!("the lessons file is malformed: {what}")
}

/// The string field `key` of `d`, leaked for the page's life.
fn text_of(d: &Object, key: &str) -> Result<&'static str, String> {
    string_field(d, key)
        .map(|s| leak(&s))
        .ok_or_else(|| bad(&format!("'{key}' must be a string")))
}

/// The list field `key` of `d`.
fn list_of(d: &Object, key: &str) -> Result<Array, String> {
    as_list(&field(d, key)).ok_or_else(|| bad(&format!("'{key}' must be a list")))
}

/// The object field `key` of `d`.
fn object_of(d: &Object, key: &str) -> Result<Object, String> {
    as_object(&field(d, key)).ok_or_else(|| bad(&format!("'{key}' must be an object")))
}

/// One lesson: its steps are checked before its own fields, so that the first error in the
/// file is the one reported.
fn parse_lesson(item: &JsValue) -> Result<Lesson, String> {
    let l = as_object(item).ok_or_else(|| bad("a lesson is not an object"))?;
    let steps = list_of(&l, "steps")?
        .iter()
        .map(|step| parse_step(&step))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Lesson {
        id: text_of(&l, "id")?,
        title: text_of(&l, "title")?,
        summary: text_of(&l, "summary")?,
        steps: Box::leak(steps.into_boxed_slice()),
    })
}

/// One step, its fields checked in the order the file's errors are reported: scenario, run,
/// question's choices, then the texts.
fn parse_step(step: &JsValue) -> Result<Step, String> {
    let st = as_object(step).ok_or_else(|| bad("a step is not an object"))?;
    let scenario = parse_scenario(&object_of(&st, "scenario")?)?;
    let run = parse_run(&field(&st, "run"))?;
    let q = object_of(&st, "question")?;
    let choices = parse_choices(&q)?;
    Ok(Step {
        title: text_of(&st, "title")?,
        scenario,
        explain: text_of(&st, "explain")?,
        watch: text_of(&st, "watch")?,
        question: Question {
            prompt: text_of(&q, "prompt")?,
            choices: Box::leak(choices.into_boxed_slice()),
        },
        run,
        result: text_of(&st, "result")?,
        highlight: text_of(&st, "highlight")?,
    })
}

/// A step's scenario: a preset by id, or a key with its version and chunk size (a whole
/// number of KiB, above 0 and exact in a double).
fn parse_scenario(scenario: &Object) -> Result<Scenario, String> {
    Ok(match string_field(scenario, "preset") {
        Some(p) => Scenario::Preset(leak(&p)),
        None => Scenario::Key {
            key: text_of(scenario, "key")?,
            version: string_field(scenario, "version")
                .filter(|v| shardlab_protocol::is_version(v))
                .map(|v| leak(&v))
                .ok_or_else(|| {
                    bad(&format!(
                        "a scenario's 'version' must be one of {}",
                        shardlab_protocol::VERSIONS.join(", ")
                    ))
                })?,
            chunk_kib: match field(scenario, "chunkKib").as_f64() {
                Some(n) if n > 0.0 && n.fract() == 0.0 && n < 2f64.powi(53) => n as u64,
                _ => return Err(bad("a scenario's 'chunkKib' must be a positive number")),
            },
        },
    })
}

/// A step's run: `"play"` or a list of shell commands.
fn parse_run(run: &JsValue) -> Result<Run, String> {
    if run.as_string().as_deref() == Some("play") {
        return Ok(Run::Play);
    }
    let Some(cmds) = as_list(run) else {
        return Err(bad("'run' must be \"play\" or a list of commands"));
    };
    let cmds: Vec<&'static str> = cmds
        .iter()
        .map(|c| {
            c.as_string()
                .map(|c| leak(&c))
                .ok_or_else(|| bad("a command is not a string"))
        })
        .collect::<Result<_, _>>()?;
    Ok(Run::Commands(Box::leak(cmds.into_boxed_slice())))
}

/// A question's answers, in the order shown.
fn parse_choices(q: &Object) -> Result<Vec<Choice>, String> {
    list_of(q, "choices")?
        .iter()
        .map(|c| {
            let c = as_object(&c).ok_or_else(|| bad("a choice is not an object"))?;
            Ok(Choice {
                text: text_of(&c, "text")?,
                correct: field(&c, "correct")
                    .as_bool()
                    .ok_or_else(|| bad("'correct' must be true or false"))?,
                why: text_of(&c, "why")?,
            })
        })
        .collect()
}

/// The saved progress, if any and readable.
pub fn load_progress() -> Option<Progress> {
    let stored = crate::storage::get_object(STORAGE_KEY)?;
    Some(Progress {
        lesson: crate::storage::string_field(&stored, "lesson")?,
        step: crate::storage::number_field(&stored, "step")? as u32,
    })
}

/// Remembers the progress, as `{"lesson":…,"step":…}`.
pub fn save_progress(progress: &Progress) {
    let object = js_sys::Object::new();
    crate::storage::set_field(&object, "lesson", &progress.lesson.as_str().into());
    crate::storage::set_field(&object, "step", &progress.step.into());
    crate::storage::set_json(STORAGE_KEY, &object);
}

/// Forgets the saved progress (the lesson was completed).
pub fn forget_progress() {
    crate::storage::remove(STORAGE_KEY);
}
