//! What the engine opens for the page's session ([`Opening`]): how it starts, what to say
//! once it is open, and for a replay where the scenario came from. The start-up's
//! decisions (`effects/startup.rs`) give one; the update opens it
//! ([`crate::update`], `Action::Open`).

use crate::i18n::{Words, K};
use crate::notices::Notice;
use shardlab_protocol::{PageSetup, Start};

/// The namespace the playground shows when nothing else was chosen.
pub const DEFAULT_NS: &str = "test.events";

/// The settings form's start: the engine's default shards and version, 8 KiB chunks,
/// `test.events` on `{x: 1}`.
pub fn default_setup() -> PageSetup {
    PageSetup {
        shards: shardlab_protocol::DEFAULT_SHARDS,
        version: shardlab_protocol::DEFAULT_VERSION.to_string(),
        chunk_size: 8 * 1024,
        key: "{x: 1}".to_string(),
        unique: false,
        initial_chunks: None,
        ns: DEFAULT_NS.to_string(),
    }
}

/// What the engine opens for the page's session, and what to say.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// How the engine starts the session.
    pub start: Start,
    /// The notice to show once it is open (a lesson opened, a link refused).
    pub notice: Option<Notice>,
    /// For a replay: where it comes from, which decides how it concludes.
    pub source: Option<Source>,
}

impl Opening {
    /// A fresh playground.
    pub fn fresh() -> Opening {
        Opening {
            start: Start::Setup(default_setup()),
            notice: None,
            source: None,
        }
    }

    /// A fresh playground with a notice.
    pub fn fresh_with(notice: Notice) -> Opening {
        Opening {
            notice: Some(notice),
            ..Opening::fresh()
        }
    }

    /// A replay of `text` from `source`.
    pub fn replay(text: String, source: Source) -> Opening {
        Opening {
            start: Start::Replay { text },
            notice: None,
            source: Some(source),
        }
    }

    /// What the progress bar says while it replays.
    pub fn what(&self, w: Words) -> &'static str {
        match &self.source {
            Some(Source::Link { .. }) => w.t(K::StartupReplayingTheSharedScenario),
            Some(Source::Session { .. }) => w.t(K::StartupRestoringYourSavedSession),
            Some(Source::Import { .. }) => w.t(K::StartupReplayingTheImportedScenario),
            Some(Source::Return { .. }) => w.t(K::StartupReturningToYourSession),
            Some(Source::Restart { .. }) => w.t(K::StartupRestoringYourSessionInA),
            None => w.t(K::StartupReplaying),
        }
    }
}

/// Where a replay comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A shared link: what became of the user's session, and whether the view is embedded.
    Link {
        /// The user's session.
        kept: Kept,
        /// Whether the view is embedded.
        embed: bool,
    },
    /// The saved session, as stored.
    Session {
        /// Its text.
        text: String,
    },
    /// A scenario file the user imported, as read.
    Import {
        /// Its text.
        json: String,
    },
    /// The session kept before a link or a lesson replaced it ("Return to your session").
    Return {
        /// Its text.
        text: String,
    },
    /// The page's own session, replayed into a new engine after the old one stopped.
    Restart {
        /// Its link form, as the engine last saved it.
        text: String,
        /// Whether the user's Cancel stopped the old engine.
        cancelled: bool,
        /// Why the old engine stopped, in the words of the error that stopped it.
        why: String,
    },
}

/// Whether the user's session was kept before a link or a lesson replaced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    /// There was no work of the user's to keep.
    Nothing,
    /// It is stored, and offered back ("Return to your session").
    Previous,
}
