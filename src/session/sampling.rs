//! Query sampling for `analyzeShardKey` (`configureQueryAnalyzer`): each namespace's query
//! analyzer configuration, as `config.queryAnalyzers` holds it, and what it has sampled.

/// A query recorded while `configureQueryAnalyzer` sampling is on.
pub use crate::engine::analyze::QuerySample as SampledQuery;

/// One namespace's query analyzer: its document in `config.queryAnalyzers` and its
/// samples (`config.sampledQueries`).
#[derive(Debug, Clone)]
struct Analyzer {
    ns: String,
    /// `mode: "full"` (sampling) or `"off"`.
    active: bool,
    /// The `samplesPerSecond` last set; turning the analyzer off leaves it in the document
    /// (the command's `$set` names only `mode` and `stopTime`).
    rate: f64,
    samples: Vec<SampledQuery>,
}

/// A query analyzer configuration (`QueryAnalyzerConfiguration`): the mode, and the rate
/// when one is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AnalyzerConfig {
    /// `mode: "full"` rather than `"off"`.
    pub(crate) full: bool,
    /// `samplesPerSecond`, absent in an `"off"` request.
    pub(crate) rate: Option<f64>,
}

/// The namespaces that have had a query analyzer, and what each has sampled. A few
/// namespaces at most, so a list (a map would add another B-tree instantiation to the wasm).
#[derive(Debug, Clone, Default)]
pub(crate) struct Sampling(Vec<Analyzer>);

impl Sampling {
    /// Where to record a query on `ns`: its samples, if its analyzer is on.
    pub(crate) fn get_mut(&mut self, ns: &str) -> Option<&mut Vec<SampledQuery>> {
        self.0
            .iter_mut()
            .find(|a| a.ns == ns && a.active)
            .map(|a| &mut a.samples)
    }

    /// The samples of `ns` so far, kept after sampling stops as `config.sampledQueries`
    /// keeps them.
    pub(crate) fn samples(&self, ns: &str) -> Vec<SampledQuery> {
        self.0
            .iter()
            .find(|a| a.ns == ns)
            .map(|a| a.samples.clone())
            .unwrap_or_default()
    }

    /// Sets `ns`'s configuration as configure_query_analyzer_cmd.cpp does, and returns the
    /// configuration it replaced (the findAndModify's pre-image): "off" updates only an
    /// analyzer that is on (`{ns, mode: {$ne: "off"}}`, no upsert), so turning off one
    /// that is off or was never on replaces nothing; "full" upserts.
    pub(crate) fn configure(&mut self, ns: &str, new: AnalyzerConfig) -> Option<AnalyzerConfig> {
        let existing = self.0.iter_mut().find(|a| a.ns == ns);
        let old = existing.as_ref().map(|a| AnalyzerConfig {
            full: a.active,
            rate: Some(a.rate),
        });
        match (existing, new.full) {
            (Some(a), false) if a.active => {
                a.active = false;
                old
            }
            (_, false) => None,
            (Some(a), true) => {
                a.active = true;
                a.rate = new.rate.unwrap_or(a.rate);
                old
            }
            (None, true) => {
                self.0.push(Analyzer {
                    ns: ns.to_owned(),
                    active: true,
                    rate: new.rate.unwrap_or(0.0),
                    samples: Vec::new(),
                });
                None
            }
        }
    }
}
