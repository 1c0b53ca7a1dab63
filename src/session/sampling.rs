//! Query sampling for `analyzeShardKey` (`configureQueryAnalyzer`): what each namespace has
//! sampled while sampling is on.

/// A query recorded while `configureQueryAnalyzer` sampling is on.
pub use crate::engine::analyze::QuerySample as SampledQuery;

/// The namespaces with query sampling on, and what each has sampled. A few namespaces at
/// most, so a list (a map would add another B-tree instantiation to the wasm).
#[derive(Debug, Clone, Default)]
pub(crate) struct Sampling(Vec<(String, Vec<SampledQuery>)>);

impl Sampling {
    /// The samples of `ns`, if sampling is on for it.
    pub(crate) fn get_mut(&mut self, ns: &str) -> Option<&mut Vec<SampledQuery>> {
        self.0
            .iter_mut()
            .find(|(n, _)| n == ns)
            .map(|(_, list)| list)
    }

    /// The samples of `ns` so far (none if sampling is off).
    pub(crate) fn samples(&self, ns: &str) -> Vec<SampledQuery> {
        self.0
            .iter()
            .find(|(n, _)| n == ns)
            .map(|(_, list)| list.clone())
            .unwrap_or_default()
    }

    /// Turns sampling on for `ns`, keeping what it has sampled.
    pub(crate) fn start(&mut self, ns: &str) {
        if self.get_mut(ns).is_none() {
            self.0.push((ns.to_owned(), Vec::new()));
        }
    }

    /// Turns sampling off for `ns`, dropping its samples.
    pub(crate) fn stop(&mut self, ns: &str) {
        self.0.retain(|(n, _)| n != ns);
    }
}
