//! What the page tells the user ([`Notice`]), and what a notice offers ([`Offer`]).

use crate::i18n::Words;
use std::rc::Rc;

/// Something the page tells the user, and what they can do about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// What the notice offers, if anything.
    pub offer: Option<Offer>,
    /// The engine's notice as a message of the catalogue, worded in the page's language
    /// when it is drawn (`text` is its English).
    pub words: Option<shardlab_protocol::MessageView>,
}

impl Notice {
    /// A notice that only informs.
    pub fn plain(text: impl Into<String>) -> Self {
        Notice {
            text: text.into(),
            offer: None,
            words: None,
        }
    }

    /// The notice in the page's words.
    pub fn shown(&self, w: Words) -> String {
        w.messages(self.words.as_slice())
            .unwrap_or_else(|| self.text.clone())
    }
}

/// What a notice offers.
#[derive(Clone, Debug, PartialEq)]
pub enum Offer {
    /// "Return to your session": the user's session kept under
    /// [`crate::share::PREVIOUS_KEY`] before a link or a lesson replaced it.
    ReturnToSession,
    /// A download of a session that was set aside (a `data:` URL of its scenario JSON).
    Download(Rc<str>),
    /// Both: a download of a scenario whose replay was cancelled, and the way back to the
    /// user's own session that it replaced.
    DownloadOrReturn(Rc<str>),
}
