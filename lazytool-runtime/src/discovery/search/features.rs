//! What a search weighs for a query, laid out for fitting the ranking's constants outside
//! the index (feature `search-features`; `bench/search/fit.py` reads it): the query's terms
//! with their inverse document frequencies, and each candidate tool with the terms it
//! holds, how often in each field, and the share of the query's words it matches.

use super::fields::FIELD_COUNT;
use super::index::SearchIndex;
use super::query::coverage_of;

/// What [`Registry::search`](crate::Registry::search) weighs for one query (see
/// [`Registry::search_features`](crate::Registry::search_features)). Fields are, in order:
/// name, tags, description, parameter names, parameter text.
///
/// ```
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("send_mail", "Sends an email.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sent")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tools([tool]).build().unwrap();
/// let features = registry.search_features("send an email");
/// let candidate = &features.candidates[0];
/// let (term, frequencies) = candidate.frequencies[0];
/// assert_eq!(features.terms[term].weight, 1.0);
/// assert!(frequencies.iter().any(|&count| count > 0));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchFeatures {
    /// How many of the query's words have terms in the index.
    pub words: usize,
    /// The terms searched.
    pub terms: Vec<FeatureTerm>,
    /// The average length of each field, in terms.
    pub average_lengths: [f32; FIELD_COUNT],
    /// The tools holding at least one of the terms, in no particular order.
    pub candidates: Vec<FeatureCandidate>,
}

/// One term searched for a query (see [`SearchFeatures`]).
///
/// ```
/// let term = lazytool_runtime::FeatureTerm { weight: 0.5, synonym: true, ..Default::default() };
/// assert!(term.synonym && term.weight < 1.0);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureTerm {
    /// 1 for a word of the query, else the weight of the synonym, the term spelt alike, the
    /// related noun or the kind of an argument the query writes.
    pub weight: f32,
    /// Whether the term stands only for synonyms, misspellings or related nouns of the
    /// query's words (an argument's kind stands for its word).
    pub synonym: bool,
    /// Its inverse document frequency in each field.
    pub idf: [f32; FIELD_COUNT],
    /// Its inverse document frequency among whole tools.
    pub whole_idf: f32,
}

/// One tool a query found (see [`SearchFeatures`]).
///
/// ```
/// let candidate = lazytool_runtime::FeatureCandidate { words: 2, ..Default::default() };
/// assert_eq!(candidate.synonym_words, 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FeatureCandidate {
    /// The tool's name.
    pub tool: String,
    /// Its family (names equal but for a version or trailing number share one).
    pub family: u32,
    /// Whether the query names it, which ranks it first.
    pub named: bool,
    /// Its length in terms, by field.
    pub lengths: [f32; FIELD_COUNT],
    /// How many of the query's words it matches.
    pub words: u32,
    /// How many of the query's words it matches only through a synonym or misspelling.
    pub synonym_words: u32,
    /// Its per-field score, scaled by its coverage of the query's words.
    pub score: f32,
    /// Its BM25F score, scaled the same way.
    pub whole: f32,
    /// The terms it holds (indices into [`SearchFeatures::terms`]), with how often in each
    /// field.
    pub frequencies: Vec<(usize, [u8; FIELD_COUNT])>,
}

impl SearchIndex {
    /// What [`SearchIndex::search`] weighs for `query`, each candidate named by `name`.
    pub(crate) fn features(&self, query: &str, name: impl Fn(usize) -> String) -> SearchFeatures {
        let query_terms = self.query_terms(query);
        let coverage = query_terms.coverage_scale();
        let named = self.named_in(query);
        let mut scratch = self.scratch.take();
        for term in &query_terms.terms {
            for posting in self.postings(term.id) {
                scratch.add(posting.document, &term.matched(posting));
            }
        }
        let raw = &self.raw;
        let terms = query_terms
            .terms
            .iter()
            .map(|term| FeatureTerm {
                weight: term.weight,
                synonym: term.words == 0,
                idf: raw.idf.get(term.id as usize).copied().unwrap_or_default(),
                whole_idf: raw.whole_idf.get(term.id as usize).copied().unwrap_or(0.0),
            })
            .collect();
        let candidates = scratch
            .touched
            .iter()
            .filter_map(|&document| {
                let found = scratch.matches.get(document as usize)?;
                let at = document as usize;
                let start = at.checked_sub(1).map_or(0, |before| raw.ends[before]);
                let end = *raw.ends.get(at)?;
                let frequencies = raw.occurrences[start..end]
                    .iter()
                    .filter_map(|occurrence| {
                        let term = query_terms
                            .terms
                            .iter()
                            .position(|term| term.id == occurrence.term)?;
                        Some((term, occurrence.frequency))
                    })
                    .collect();
                let scale = coverage_of(&coverage, found.words, found.synonym_words);
                Some(FeatureCandidate {
                    tool: name(at),
                    family: self.families.get(at).copied().unwrap_or(u32::MAX),
                    named: named.binary_search(&document).is_ok(),
                    lengths: raw.lengths.get(at).copied().unwrap_or_default(),
                    words: found.words.count_ones(),
                    synonym_words: (found.synonym_words & !found.words).count_ones(),
                    score: found.score * scale,
                    whole: found.whole * scale,
                    frequencies,
                })
            })
            .collect::<Vec<_>>();
        // A named tool holding none of the terms is a candidate too.
        let mut candidates = candidates;
        for &document in &named {
            let at = document as usize;
            if scratch
                .matches
                .get(at)
                .is_some_and(|found| found.words | found.synonym_words == 0)
            {
                candidates.push(FeatureCandidate {
                    tool: name(at),
                    family: self.families.get(at).copied().unwrap_or(u32::MAX),
                    named: true,
                    lengths: raw.lengths.get(at).copied().unwrap_or_default(),
                    ..FeatureCandidate::default()
                });
            }
        }
        self.scratch.give_back(scratch);
        SearchFeatures {
            words: query_terms.word_count,
            terms,
            average_lengths: raw.average,
            candidates,
        }
    }
}
