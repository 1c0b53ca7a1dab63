//! What the browser keeps of each saved session, as "Recent sessions" lists it: the
//! records themselves, as data. Storing and reading them is the platform's
//! (`platform/sessions.rs`, IndexedDB); the components list them through the effects
//! layer (`effects/saved.rs`).

use crate::i18n::Words;
use serde::{Deserialize, Serialize};

const MOST_NAME: usize = 120;
const MOST_ITEMS: usize = 64;

/// What "Recent sessions" shows of a session, stored beside its scenario.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Meta {
    /// Its id.
    pub id: String,
    /// Its name: the lesson's title, "Shared scenario", or the collections it holds.
    pub name: String,
    /// When it was first saved (milliseconds since 1970).
    pub created: f64,
    /// When it was last saved.
    pub updated: f64,
    /// Its steps.
    pub steps: u64,
    /// The user's own steps, beyond its setup's.
    pub own: u64,
    /// Its sharded collections' namespaces.
    pub collections: Vec<String>,
    /// The page's own state (tab, lesson step, forms), as name/value pairs.
    pub page: Vec<(String, String)>,
    /// Why it was set aside, if it could not be restored.
    pub aside: Option<String>,
    /// What the page named it by, when the page made its name (`name` is that name in
    /// English), so that "Recent sessions" words it in the reader's language; absent for
    /// a name kept as it was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoName>,
}

/// A session name the page makes, worded in the reader's language when it is shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "as", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AutoName {
    /// A lesson's title, by the lesson's id and its shards (its title's `{shards}`).
    Lesson {
        /// The lesson's id.
        id: String,
        /// Its shards.
        shards: u32,
    },
    /// "Playground: test.events", or "Playground" with no collection.
    Playground {
        /// The first collection.
        ns: Option<String>,
    },
    /// "Saved session": a session saved by an earlier version.
    Saved,
}

impl AutoName {
    /// The name in `w`.
    pub fn words(&self, w: Words) -> Option<String> {
        use crate::i18n::K;
        Some(match self {
            AutoName::Lesson { id, shards } => {
                let title = shardlab_protocol::MessageView {
                    id: format!("preset.{id}.title"),
                    args: vec![(
                        "shards".to_string(),
                        shardlab_protocol::ArgView::Text(shards.to_string()),
                    )],
                };
                return w.messages(&[title]);
            }
            AutoName::Playground { ns: Some(ns) } => w.tf(K::RecentPlaygroundNs, &[("ns", ns)]),
            AutoName::Playground { ns: None } => w.t(K::RecentPlayground).to_string(),
            AutoName::Saved => w.t(K::RecentSavedSession).to_string(),
        })
    }
}

impl Meta {
    /// Its name as "Recent sessions" shows it: in the page's language when the page made
    /// it, else as it was given.
    pub fn shown_name(&self, w: Words) -> String {
        self.auto
            .as_ref()
            .and_then(|a| a.words(w))
            .unwrap_or_else(|| self.name.clone())
    }
}

impl Meta {
    /// Keeps what a stored record may hold within bounds.
    pub fn bounded(mut self) -> Meta {
        self.id = self.id.chars().take(40).collect();
        self.name = self.name.chars().take(MOST_NAME).collect();
        self.collections.truncate(MOST_ITEMS);
        for ns in &mut self.collections {
            *ns = ns.chars().take(MOST_NAME).collect();
        }
        self.page.truncate(MOST_ITEMS);
        self.aside = self.aside.map(|a| a.chars().take(400).collect());
        self.auto = match self.auto {
            Some(AutoName::Lesson { id, shards }) => Some(AutoName::Lesson {
                id: id.chars().take(MOST_NAME).collect(),
                shards,
            }),
            Some(AutoName::Playground { ns }) => Some(AutoName::Playground {
                ns: ns.map(|ns| ns.chars().take(MOST_NAME).collect()),
            }),
            other => other,
        };
        self
    }
}

/// A session as "Recent sessions" lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// What is stored of it.
    pub meta: Meta,
    /// Whether this tab shows it.
    pub here: bool,
    /// Whether another tab shows it.
    pub elsewhere: bool,
}
