//! What the panels draw from the engine: the panels that ask ([`Asker`]), their
//! questions and the answers, as the playground keeps them. Which questions the model
//! asks, and when, is `crate::asking`'s.

use shardlab_protocol::{Call, EngineError, Position, Reply};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A panel that draws what the engine answers about the playground.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Asker {
    /// The settings form: what applying its draft would do.
    Plan,
    /// The workload's warning when its documents lack a field of the key.
    KeyFit,
    /// The timeline's event log.
    Timeline,
    /// The insights panel's charts.
    Charts,
    /// The inspector: its subject explained, and the insert form's example.
    Inspector,
    /// The embedded view's "Open in ShardLab" link: the scenario's link form.
    OpenLink,
    /// The query box: where its filter goes.
    Target,
    /// The heatmap: inserts per key range per stretch of steps, a cell per pixel.
    Heat,
    /// The workload's template as edited: whether it generates documents.
    Template,
    /// The insights' `analyzeShardKey` report, asked by a click.
    Report,
    /// The candidate keys ranked, asked by a click.
    Rank,
}

impl Asker {
    /// Every panel that asks, in the order their questions are sent.
    pub const ALL: [Asker; 11] = [
        Asker::Plan,
        Asker::KeyFit,
        Asker::Timeline,
        Asker::Charts,
        Asker::Inspector,
        Asker::OpenLink,
        Asker::Target,
        Asker::Heat,
        Asker::Template,
        Asker::Report,
        Asker::Rank,
    ];
}

/// A question a panel wants answered: the call, about which session, and what else its
/// answer depends on (the cursor the cluster is at; the collection's key).
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The session asked about.
    pub session: Rc<str>,
    /// What is asked.
    pub call: Call,
    /// The cursor the answer is about, where the answer changes with the cluster.
    pub at: Option<Position>,
    /// Anything else the answer depends on.
    pub by: String,
}

/// The engine's answer to a question, with the question it answers.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The question.
    pub question: Rc<Question>,
    /// The engine's reply, or its error.
    pub result: Rc<Result<Reply, EngineError>>,
}

impl PartialEq for Answer {
    /// The same answer (the panels' props compare answers by identity, not by content).
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.question, &other.question) && Rc::ptr_eq(&self.result, &other.result)
    }
}

/// The latest answer to each panel's question.
pub type Answers = BTreeMap<Asker, Answer>;

/// A request to send: the question, numbered, for the panel that asks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    /// The panel.
    pub asker: Asker,
    /// The question's number, which its answer comes back with.
    pub id: u64,
    /// The question.
    pub question: Rc<Question>,
}
