//! The guided lessons' content: each lesson is a list of steps, and each step sets up a
//! scenario, says what to watch, asks for a prediction, runs, and points at the result.
//!
//! This module is plain data plus small pure helpers, so browser tests can check the
//! content (every preset exists, every question has one right answer) without a page.

use crate::state::Settings;
use shardlab::engine::VersionMode;

/// The localStorage key that remembers where the learner left a lesson.
pub const STORAGE_KEY: &str = "shardlab.guide.v1";

/// How a step prepares the playground.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scenario {
    /// Load a lesson preset from [`shardlab::workload::presets`].
    Preset(&'static str),
    /// Start over with a fresh collection sharded on `key`.
    Key {
        /// The shard key, as typed.
        key: &'static str,
        /// The behaviour era.
        version: VersionMode,
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
                version,
                chunk_size: chunk_kib * 1024,
                key: key.to_string(),
                ..Settings::default()
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
    pub fn resolve(&self) -> Option<(&'static Lesson, usize)> {
        let lesson = lesson(&self.lesson)?;
        let step = self.step as usize;
        (step < lesson.steps.len()).then_some((lesson, step))
    }
}

/// The step counter's text: `Step 2 of 7` for index 1 of 7 steps.
pub fn progress_label(index: usize, len: usize) -> String {
    format!("Step {} of {}", index + 1, len)
}

/// A lesson by id.
pub fn lesson(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

const CLUSTER: &str = "[data-testid=cluster]";
const MAX_CHUNK: &str = "[data-testid=chunk][data-max$=\"MaxKey() }\"]";
const JUMBO_CHUNK: &str = "[data-testid=chunk][data-jumbo=\"true\"]";
const NULL_CHUNK: &str = "[data-testid=chunk][data-min=\"{ x: null }\"]";
const CONSOLE: &str = "[data-testid=console-output]";

/// Every lesson, in teaching order.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "key-basics",
        title: "How a shard key places documents",
        summary: "Chunks, MinKey and MaxKey, cardinality, frequency and monotonic values, and what hashing changes.",
        steps: &[
            Step {
                title: "The shard key cuts a collection into chunks",
                scenario: Scenario::Key { key: "{x: 1}", version: VersionMode::V50, chunk_kib: 8 },
                explain: "Sharding splits a collection by the value of one or more fields, the shard key. Each chunk owns a contiguous range of key values (its lower bound included, its upper bound left out) and lives on exactly one shard. test.events has just been sharded on {x: 1} and is still empty.",
                watch: "Count the chunk blocks in the shard columns now, then again after the inserts.",
                question: Question {
                    prompt: "The collection holds no documents yet. How many chunks does it have?",
                    choices: &[
                        Choice { text: "None: the first chunk appears with the first document.", correct: false, why: "Sharding a collection builds its routing table straight away, so even an empty collection has its whole key space assigned." },
                        Choice { text: "One chunk covering every value of x, on a single shard.", correct: true, why: "A ranged key on an empty collection starts as one chunk from MinKey to MaxKey on the primary shard; it is cut up only as data arrives." },
                        Choice { text: "Three, one on each shard.", correct: false, why: "Only hashed keys are pre-split when the collection is empty. A ranged key starts with a single chunk." },
                    ],
                },
                run: Run::Commands(&["sim.generate(\"test.events\", \"uniform\", 400); sim.balance()"]),
                result: "Once a chunk grew past 8 KiB it was split, and the balancer moved some of the pieces to the other shards. Each shard now owns a few ranges of x.",
                highlight: CLUSTER,
            },
            Step {
                title: "MinKey and MaxKey, and a value that only grows",
                scenario: Scenario::Preset("monotonic"),
                explain: "Two special values close the key space: MinKey sorts below anything a document can hold and MaxKey above it. The first chunk starts at MinKey and the last ends at MaxKey, so every value has a home. In this scenario x is a counter: each new document gets the next number.",
                watch: "Keep an eye on the block tagged \u{201c}MaxKey chunk\u{201d} and on the shard that holds it.",
                question: Question {
                    prompt: "Each new x is larger than every x before it. Where do the inserts go?",
                    choices: &[
                        Choice { text: "Evenly over the three shards.", correct: false, why: "An even spread needs values that land all over the key space. A counter always lands at the top end." },
                        Choice { text: "Into the chunk whose upper bound is MaxKey.", correct: true, why: "Only the last chunk's range reaches beyond the largest x so far, so every new document belongs to it and one shard takes all the writes." },
                        Choice { text: "Into the chunk that starts at MinKey.", correct: false, why: "That is what a value that keeps shrinking does. A growing value goes the other way." },
                    ],
                },
                run: Run::Play,
                result: "The top chunk kept filling and splitting. 5.0 hands the new top chunk to a quieter shard after a split, yet at any moment one shard still receives almost every insert.",
                highlight: MAX_CHUNK,
            },
            Step {
                title: "Cardinality: how many different values",
                scenario: Scenario::Preset("low-cardinality"),
                explain: "Cardinality is the number of distinct values a key can take, and it caps the number of chunks: documents that share a key value can never be split apart. This collection is sharded on continent, which has seven values, across nine shards.",
                watch: "Watch how many shard columns receive data, and look for jumbo badges.",
                question: Question {
                    prompt: "How many of the nine shards can end up holding documents?",
                    choices: &[
                        Choice { text: "All nine, given enough data.", correct: false, why: "More documents do not bring more continents. Seven values allow at most seven chunks with documents in them." },
                        Choice { text: "Seven at most.", correct: true, why: "Each continent can have a chunk of its own and no more, so at least two shards stay empty however much is inserted." },
                        Choice { text: "Only the primary shard.", correct: false, why: "The balancer does move the chunks there are; there are simply too few of them to go round." },
                    ],
                },
                run: Run::Play,
                result: "Once each continent sat in its own chunk, splitting stopped. The big continents' chunks are marked jumbo, and some shards never received a document. The first split also left an empty chunk below the smallest continent: the splitter cuts at the second document's key.",
                highlight: JUMBO_CHUNK,
            },
            Step {
                title: "Frequency: when a few values dominate",
                scenario: Scenario::Preset("high-frequency"),
                explain: "Frequency is how often each value repeats. A key can have plenty of distinct values and still pile documents up if a handful of them are very common, because all documents with one value share one chunk.",
                watch: "Look for the chunk that holds the most common value of x.",
                question: Question {
                    prompt: "The chunk of the most frequent value grows past the chunk size. What happens?",
                    choices: &[
                        Choice { text: "It is split in two like any other chunk.", correct: false, why: "A split point has to fall between two different key values, and a chunk of a single value has none." },
                        Choice { text: "It cannot be split, so it is flagged jumbo and stays where it is.", correct: true, why: "The splitter finds nowhere to cut, flags the chunk jumbo, and the balancer leaves it alone." },
                        Choice { text: "The balancer removes some of its documents.", correct: false, why: "Sharding never deletes data: it only divides ranges and moves them." },
                    ],
                },
                run: Run::Play,
                result: "The most common values ended up in chunks that cannot be divided; they carry the jumbo badge and will stay on their shard.",
                highlight: JUMBO_CHUNK,
            },
            Step {
                title: "Hashed keys spread a growing value, at a price",
                scenario: Scenario::Preset("hashed"),
                explain: "A hashed shard key places documents by a hash of the field rather than the field itself. Consecutive ObjectIds get unrelated hashes, so new documents land all over the key space, and an empty collection starts with chunks already spread over every shard.",
                watch: "Watch the inserts spread over the shard columns, then read the explain output in the console.",
                question: Question {
                    prompt: "Writes now spread evenly. Where does a range query on _id go?",
                    choices: &[
                        Choice { text: "To exactly one shard.", correct: false, why: "Only an equality can be hashed and looked up. A range has no single hash to look up." },
                        Choice { text: "To every shard.", correct: true, why: "Values close together hash far apart, so matching documents could be anywhere: mongos asks all shards and merges the answers." },
                        Choice { text: "Nowhere: ranges are refused on a hashed key.", correct: false, why: "The query runs; it is simply broadcast." },
                    ],
                },
                run: Run::Play,
                result: "The inserts spread over all three shards. The explain in the console reports SHARD_MERGE for the _id range: the query went to every shard.",
                highlight: CONSOLE,
            },
        ],
    },
    Lesson {
        id: "key-design",
        title: "Designing a key for a real workload",
        summary: "Compound keys for tenants, missing key fields, jumbo chunks and refining, query targeting, zones, and 5.0 versus 8.0 balancing.",
        steps: &[
            Step {
                title: "Compound keys for many tenants",
                scenario: Scenario::Preset("multi-tenant"),
                explain: "A collection shared by many customers can lead its key with the tenant: {projectId: 1, _id: 1}. One tenant's documents then sit side by side, and the second field gives even a huge tenant enough distinct values to split.",
                watch: "See how the big tenants' documents divide into several chunks.",
                question: Question {
                    prompt: "A query filters on one projectId and nothing else. Which shards does it reach?",
                    choices: &[
                        Choice { text: "All of them, since the filter lacks _id.", correct: false, why: "mongos can route on a leading part of the key: projectId alone narrows the search to that tenant's chunks." },
                        Choice { text: "Only the shards holding that tenant's chunks, often just one.", correct: true, why: "The key prefix pins a range of chunks, so a tenant's queries visit the one or two shards that hold it." },
                        Choice { text: "Always exactly one shard.", correct: false, why: "A large tenant can span several chunks, and those can live on different shards." },
                    ],
                },
                run: Run::Play,
                result: "The large tenants were split into several chunks and none turned jumbo. Paste a tenant's projectId into the query box below to see how few shards it reaches.",
                highlight: CLUSTER,
            },
            Step {
                title: "Documents without the shard key",
                scenario: Scenario::Preset("missing-fields"),
                explain: "Since 4.4 a document may leave out shard key fields. It is placed as if each missing field held null, and null sorts just above MinKey.",
                watch: "Watch the bottom of the key space, near MinKey.",
                question: Question {
                    prompt: "Some documents have no x at all. Where do they go?",
                    choices: &[
                        Choice { text: "Nowhere: inserting them fails.", correct: false, why: "Older versions refused them; since 4.4 they are accepted." },
                        Choice { text: "All together, into the chunk that holds null.", correct: true, why: "A missing field counts as null, so they all share one key value and therefore one chunk." },
                        Choice { text: "Scattered at random.", correct: false, why: "Placement depends only on the key value, and every missing key is the same value: null." },
                    ],
                },
                run: Run::Play,
                result: "All the documents without x share the key null, so they piled into the one chunk that starts at null, just above MinKey. The splitter cannot cut a run of equal keys, and it will not cut off the couple of small x values behind them either (it keeps a bigger last piece rather than a tiny one), so that chunk just keeps growing. The console shows {x: null} routed to one shard.",
                highlight: NULL_CHUNK,
            },
            Step {
                title: "Jumbo chunks and refining the key",
                scenario: Scenario::Preset("refine"),
                explain: "If one key value has too many documents, its chunk cannot be divided. Since 4.4 the key can be refined by appending fields: {customer: 1} becomes {customer: 1, order: 1}. Existing placement stays, but the splitter gains new places to cut.",
                watch: "Watch acme's chunk become jumbo, then the shard key in the summary line change.",
                question: Question {
                    prompt: "After refining to {customer: 1, order: 1}, what happens to acme's jumbo chunk?",
                    choices: &[
                        Choice { text: "Nothing: a refined key only applies to new documents.", correct: false, why: "Refining changes the key of every document, so existing chunks gain split points too." },
                        Choice { text: "It can now be split by order, and the jumbo flag is cleared.", correct: true, why: "The added field separates acme's orders, so the chunk is no longer indivisible." },
                        Choice { text: "The collection has to be dropped and loaded again.", correct: false, why: "Refining works in place; it only appends fields to the key." },
                    ],
                },
                run: Run::Play,
                result: "The workload left acme in one jumbo chunk. The closing commands refined the key, which cleared the flag, and split acme's orders into separate chunks.",
                highlight: "[data-testid=summary]",
            },
            Step {
                title: "Query targeting",
                scenario: Scenario::Preset("targeting"),
                explain: "mongos reads each query's filter. If the filter pins shard key values, the query goes only to the shards owning them; otherwise it goes to every shard and the results are merged.",
                watch: "After the run, read the two explain results in the console.",
                question: Question {
                    prompt: "The key is {x: 1}. Which query is sent to every shard?",
                    choices: &[
                        Choice { text: "db.users.find({x: 42})", correct: false, why: "An equality on the whole shard key names exactly one chunk, so one shard." },
                        Choice { text: "db.users.find({ts: {$gt: ISODate(\"2025-01-01\")}})", correct: true, why: "ts is not part of the shard key, so mongos has nothing to narrow the search with." },
                        Choice { text: "Neither of them.", correct: false, why: "A filter without the shard key cannot be routed to a subset of shards." },
                    ],
                },
                run: Run::Play,
                result: "The console shows SINGLE_SHARD for {x: 42} and SHARD_MERGE for the ts filter, which visited every shard.",
                highlight: CONSOLE,
            },
            Step {
                title: "Zones pin ranges to shards",
                scenario: Scenario::Preset("zones"),
                explain: "A zone ties a range of shard key values to a set of shards, for instance to keep European customers' data in a European data centre. Here shard03 is in zone EU, and every key starting with continent \"Europe\" belongs to EU.",
                watch: "Watch which shard the Europe chunks end up on.",
                question: Question {
                    prompt: "Where will the Europe chunks live once the balancer has run?",
                    choices: &[
                        Choice { text: "Spread evenly like all the others.", correct: false, why: "Zone ranges override the even spread: they can only live on shards in their zone." },
                        Choice { text: "All on shard03.", correct: true, why: "The balancer moves every chunk in the EU range to a shard of zone EU and keeps it there." },
                        Choice { text: "On the primary shard.", correct: false, why: "The primary has no special claim on zoned ranges." },
                    ],
                },
                run: Run::Play,
                result: "Every Europe chunk was carried to shard03, the only shard in zone EU; the other continents were balanced as usual.",
                highlight: "[data-testid=shard][data-shard-id=\"shard03\"]",
            },
            Step {
                title: "Balancing in 5.0 and in 8.0",
                scenario: Scenario::Preset("balancing-50-vs-80"),
                explain: "Balancing changed after 5.0. In 5.0, chunks split as they grow and the balancer evens out chunk counts. From 6.0 on, chunks no longer split on their own: the balancer evens out data size instead, moving about one chunk's worth at a time until the shards differ by less than three chunk sizes.",
                watch: "This cluster runs 8.0. Watch the number and size of the chunks.",
                question: Question {
                    prompt: "Many times the 8 KiB chunk size arrives. What do you expect in 8.0?",
                    choices: &[
                        Choice { text: "Many small chunks, just as in 5.0.", correct: false, why: "8.0 does not split chunks because they grew; that was the 5.0 behaviour." },
                        Choice { text: "A few large chunks, split only to carve off data to move.", correct: true, why: "Without auto-splitting, chunks stay large; the balancer cuts off about one chunk size when it needs to move data." },
                        Choice { text: "No migrations at all.", correct: false, why: "Once shards differ by three chunk sizes of data, the balancer starts moving data." },
                    ],
                },
                run: Run::Play,
                result: "The cluster kept a handful of large chunks and moved data in chunk-sized pieces until every shard had some. Open the Compare tab and set one column to 5.0 to see both side by side.",
                highlight: CLUSTER,
            },
        ],
    },
];
