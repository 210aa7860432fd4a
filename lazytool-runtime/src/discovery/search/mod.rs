//! BM25 ranking of tools for search-mode discovery.
//!
//! Each tool is indexed as five weighted fields: its name, tags, description, parameter
//! names, and parameter text (the descriptions, titles and enum values found by walking
//! its input schema). A term's score in a document is the sum of its BM25 scores in the
//! fields that hold it, each field with its own weight, document frequencies and length
//! normalisation; all of these are computed when the index is built, so a query only adds
//! up the postings of its own terms, touching only the documents that hold them. A term that
//! more than one tool in [`COMMON_SHARE`] holds (and more than [`MIN_COMMON_POSTINGS`]) only
//! adds to the scores of the documents the query's other terms found, when those are enough
//! to fill the results: in a large catalog `get` or `list` would otherwise make every query
//! read most of the index.
//!
//! Documents and queries go through the same analysis: words are lowercased and folded to
//! ASCII, stop words (and the words of conversation a question wraps a request in: `hi`,
//! `can you tell me`) are dropped, suffixes are lightly stemmed (an inflected word is also
//! kept as written, so that the same form counts more than a shared stem), and a few
//! abbreviations are spelled out (`PRs` → pull request). Names and parameter names are
//! also split into words on case changes and digits; queries keep both forms. Each word of a query is
//! then expanded with a small table of synonyms at a reduced weight, and a word the index
//! does not know is split into known terms when it can be (`reopen` → open), or else matched
//! to the terms spelt most like it, as a synonym (`profressional` → professional, [`fuzzy`]).
//! A word at most one tool in [`RARE_SHARE`](weights::RARE_SHARE) holds is also searched by
//! its related nouns from WordNet (`taxi` → cab, [`wordnet`]), and the dates, times, sums of
//! money, file names and persons a question writes also by their kind (`next Friday` → date,
//! `songs by Adele` → artist, [`kinds`]), both weighted less than the words themselves. A document's
//! score is then scaled by the share of the query's words it matches (to the power
//! [`COVERAGE_POWER`](weights::COVERAGE_POWER)). A tool whose exact name is the whole query, or one of its words
//! written as an identifier (`list_tags`, `listTags`), ranks first. Finally, tools of one
//! family (`get_weather`, `get_weather_v2`) count less for each better one of theirs, so
//! that near-identical tools do not fill every slot. Each posting also holds the term's
//! BM25F score (the tool seen as one document), and the best three results that the query
//! does not name are reordered by both scores together ([`rerank`]).

mod analysis;
mod document;
mod family;
#[cfg(feature = "search-features")]
mod features;
mod fields;
mod fuzzy;
mod index;
mod kinds;
mod query;
mod rerank;
mod scratch;
mod script;
mod stem;
mod terms;
mod vocabulary;
mod weights;
mod wordnet;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use foldhash::HashMap;

pub(crate) use document::SearchDocument;
use family::family_key;
#[cfg(feature = "search-features")]
pub use features::{FeatureCandidate, FeatureTerm, SearchFeatures};
use fields::{FIELD_COUNT, document_texts, name_key};
use fuzzy::FuzzyTerms;
pub(crate) use index::SearchIndex;
use index::{Occurrences, Posting};
use query::{QueryTerm, coverage_of};
use rerank::{Ranked, rerank};
use scratch::{Scratch, ScratchPool};
use terms::TermTable;
use weights::{
    B, COMMON_SHARE, FAMILY_DECAY, FIELD_WEIGHTS, K1, MIN_COMMON_POSTINGS, NAMED_WEIGHT,
    RERANK_DEPTH, WHOLE_K1,
};

impl SearchIndex {
    /// Indexes `documents`; results refer to them by their position in this sequence.
    pub(crate) fn new<'a>(documents: impl IntoIterator<Item = SearchDocument<'a>>) -> SearchIndex {
        let mut terms = TermTable::default();
        // For each term id, the last document it was found in, and where in `occurrences`.
        let mut last_seen: Vec<(u32, usize)> = Vec::new();
        // Every document's distinct terms, document after document; `ends` says where each
        // document's end.
        let mut occurrences: Vec<Occurrences> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        let mut lengths: Vec<[f32; FIELD_COUNT]> = Vec::new();
        let mut names: HashMap<String, Vec<u32>> = HashMap::default();
        let mut family_ids: HashMap<String, u32> = HashMap::default();
        let mut families = Vec::new();
        for (index, document) in documents.into_iter().enumerate() {
            let index = index as u32;
            let key = name_key(document.name);
            if !key.is_empty() {
                names.entry(key).or_default().push(index);
            }
            let next_family = family_ids.len() as u32;
            families.push(
                *family_ids
                    .entry(family_key(document.name))
                    .or_insert(next_family),
            );
            let mut length = [0.0; FIELD_COUNT];
            document_texts(&document, &mut |field, text, analysis| {
                terms.text(text, analysis, &mut |id| {
                    length[field] += 1.0;
                    if last_seen.len() <= id as usize {
                        last_seen.resize(id as usize + 1, (u32::MAX, 0));
                    }
                    let Some((last, at)) = last_seen.get_mut(id as usize) else {
                        return;
                    };
                    if *last != index {
                        *last = index;
                        *at = occurrences.len();
                        occurrences.push(Occurrences {
                            term: id,
                            frequency: [0; FIELD_COUNT],
                        });
                    }
                    if let Some(found) = occurrences.get_mut(*at) {
                        found.frequency[field] = found.frequency[field].saturating_add(1);
                    }
                })
            });
            lengths.push(length);
            ends.push(occurrences.len());
        }

        let count = lengths.len() as f32;
        let mut average = [0.0f32; FIELD_COUNT];
        for length in &lengths {
            for (sum, length) in average.iter_mut().zip(length) {
                *sum += length;
            }
        }
        let average = average.map(|sum| sum / count);

        // Postings are laid out term after term: count each term's first, then fill them in
        // document order, so that each term's are in document order.
        let term_count = terms.len();
        let mut found_in = vec![[0.0f32; FIELD_COUNT]; term_count];
        // Documents holding each term in any field: the offsets' counts, before they add up.
        let mut offsets = vec![0usize; term_count + 1];
        for occurrence in &occurrences {
            let term = occurrence.term as usize;
            offsets[term + 1] += 1;
            for (found_in, &frequency) in found_in[term].iter_mut().zip(&occurrence.frequency) {
                if frequency > 0 {
                    *found_in += 1.0;
                }
            }
        }
        let whole_idf: Vec<f32> = offsets[1..]
            .iter()
            .map(|&found_in| idf(count, found_in as f32))
            .collect();
        for term in 0..term_count {
            offsets[term + 1] += offsets[term];
        }
        let idf: Vec<[f32; FIELD_COUNT]> = found_in
            .into_iter()
            .map(|found_in| found_in.map(|found_in| idf(count, found_in)))
            .collect();
        let mut next = offsets.clone();
        let mut postings = vec![Posting::default(); occurrences.len()];
        let mut start = 0;
        for (document, (&end, length)) in ends.iter().zip(&lengths).enumerate() {
            for occurrence in &occurrences[start..end] {
                let term = occurrence.term as usize;
                let frequency = occurrence.frequency.map(f32::from);
                postings[next[term]] = Posting {
                    document: document as u32,
                    score: bm25(&frequency, &idf[term], length, &average),
                    whole: bm25f(&frequency, whole_idf[term], length, &average),
                };
                next[term] += 1;
            }
            start = end;
        }
        let terms = terms.into_ids();
        SearchIndex {
            #[cfg(feature = "search-features")]
            raw: index::RawIndex {
                occurrences,
                ends,
                lengths,
                average,
                idf,
                whole_idf,
            },
            fuzzy: FuzzyTerms::new(terms.iter().map(|(term, &id)| (&**term, id))),
            terms,
            offsets,
            postings,
            names,
            scratch: ScratchPool::new(families.len()),
            families,
        }
    }

    /// Indices (into the documents as given) of the best matches, best first, at most
    /// `limit`, only those with a positive score.
    #[cfg(test)]
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        self.search_among(query, limit, |_| true)
    }

    /// [`SearchIndex::search`] among the documents `allowed`.
    pub(crate) fn search_among(
        &self,
        query: &str,
        limit: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        self.search_scored(query, limit, allowed)
            .into_iter()
            .map(|(document, _)| document)
            .collect()
    }

    /// [`SearchIndex::search_among`] with scores, for tests and debugging.
    ///
    /// Equal scores are ordered by index, so results are deterministic.
    pub(crate) fn search_scored(
        &self,
        query: &str,
        limit: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        // The first results are chosen among the best few, whatever the limit.
        let depth = limit.max(RERANK_DEPTH);
        let query_terms = self.query_terms(query);
        let coverage = query_terms.coverage_scale();
        let named = self.named_in(query);
        let common_postings = (self.families.len() / COMMON_SHARE).max(MIN_COMMON_POSTINGS);
        let (common, rare): (Vec<&QueryTerm>, Vec<&QueryTerm>) = query_terms
            .terms
            .iter()
            .partition(|term| self.postings(term.id).len() > common_postings);
        let mut scratch = self.scratch.take();
        for term in &rare {
            self.add_postings(&mut scratch, term);
        }
        if !common.is_empty() {
            // When the rarer terms found enough documents, the common ones only add to
            // their scores: a document that only words found in more than one document in
            // [`COMMON_SHARE`] match would rank below those (its share of the query's words
            // is small and so are those words' weights), and reading where such a word is
            // not would make a query's cost grow with the catalog.
            let enough = !rare.is_empty()
                && self
                    .rank(
                        self.candidates(&scratch, &coverage, &named),
                        depth,
                        &allowed,
                    )
                    .len()
                    == depth;
            for term in &common {
                if enough {
                    self.add_to_found(&mut scratch, term);
                } else {
                    self.add_postings(&mut scratch, term);
                }
            }
        }
        let candidates = self.candidates(&scratch, &coverage, &named);
        let mut ranked: Vec<Ranked> = Vec::new();
        let mut families: Vec<u32> = Vec::new();
        for (document, score) in self.rank(candidates, depth, allowed) {
            let family = self.families.get(document).copied().unwrap_or(u32::MAX);
            let earlier = families.iter().filter(|&&other| other == family).count();
            families.push(family);
            let whole = scratch.matches.get(document).map_or(0.0, |found| {
                found.whole * coverage_of(&coverage, found.words, found.synonym_words)
            });
            ranked.push(Ranked {
                document,
                score,
                whole: whole * FAMILY_DECAY.powi(earlier as i32),
                named: named.binary_search(&(document as u32)).is_ok(),
            });
        }
        self.scratch.give_back(scratch);
        rerank(&mut ranked);
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|result| (result.document, result.score))
            .collect()
    }

    /// Adds every posting of `term` to `scratch`.
    fn add_postings(&self, scratch: &mut Scratch, term: &QueryTerm) {
        for posting in self.postings(term.id) {
            scratch.add(posting.document, &term.matched(posting));
        }
    }

    /// Adds the postings of `term` to the documents `scratch` has already found, looking
    /// each up when they are few, else reading all of the postings.
    fn add_to_found(&self, scratch: &mut Scratch, term: &QueryTerm) {
        let postings = self.postings(term.id);
        let lookups =
            scratch.touched.len() * (postings.len().checked_ilog2().unwrap_or(0) as usize + 1);
        let add = |scratch: &mut Scratch, posting: &Posting| {
            scratch.add_found(posting.document, &term.matched(posting))
        };
        if lookups < postings.len() {
            for at in 0..scratch.touched.len() {
                let document = scratch.touched[at];
                if let Ok(found) =
                    postings.binary_search_by_key(&document, |posting| posting.document)
                {
                    add(scratch, &postings[found]);
                }
            }
        } else {
            for posting in postings {
                add(scratch, posting);
            }
        }
    }

    /// The documents `scratch` found, with their scores scaled by the share of the query's
    /// words they match, and the documents `named` above them all.
    fn candidates(&self, scratch: &Scratch, coverage: &[f32], named: &[u32]) -> Vec<(u32, f32)> {
        let mut candidates: Vec<(u32, f32)> = scratch
            .touched
            .iter()
            .filter_map(|&document| {
                let found = scratch.matches.get(document as usize)?;
                let scale = coverage_of(coverage, found.words, found.synonym_words);
                Some((document, found.score * scale))
            })
            .filter(|&(_, score)| score > 0.0)
            .collect();
        if !named.is_empty() {
            // Above every other score, and still in order of relevance among themselves.
            let best = candidates
                .iter()
                .map(|&(_, score)| score)
                .fold(0.0, f32::max);
            for &document in named {
                match candidates.iter_mut().find(|(found, _)| *found == document) {
                    Some((_, score)) => *score += NAMED_WEIGHT * (best + 1.0),
                    None => candidates.push((document, NAMED_WEIGHT * (best + 1.0))),
                }
            }
        }
        candidates
    }

    /// The best `limit` of `candidates` that are `allowed`, best first, a tool counting less
    /// for each better one of its family (see [`FAMILY_DECAY`]).
    fn rank(
        &self,
        mut candidates: Vec<(u32, f32)>,
        limit: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        // Decay only lowers scores, so the candidates are visited in order of their own score
        // until the next cannot reach the `limit` best decayed ones; most searches stop
        // within the first few times `limit`, so only those are sorted first (and only
        // those visited are checked against `allowed`).
        let mut sorted = candidates
            .len()
            .min(limit.saturating_mul(4).saturating_add(16));
        if sorted < candidates.len() {
            candidates.select_nth_unstable_by(sorted, order);
        }
        candidates[..sorted].sort_unstable_by(order);
        let mut seen: HashMap<u32, i32> = HashMap::default();
        let mut ranked: Vec<(u32, f32)> = Vec::new();
        let mut best = BinaryHeap::new();
        let mut at = 0;
        while at < candidates.len() {
            if at == sorted {
                candidates[sorted..].sort_unstable_by(order);
                sorted = candidates.len();
            }
            let (document, score) = candidates[at];
            at += 1;
            if best.len() == limit
                && best
                    .peek()
                    .is_some_and(|&Reverse(Score(lowest))| lowest > score)
            {
                break;
            }
            if !allowed(document as usize) {
                continue;
            }
            let family = self
                .families
                .get(document as usize)
                .copied()
                .unwrap_or(u32::MAX);
            let earlier = seen.entry(family).or_default();
            if *earlier as usize >= limit {
                // `limit` of its family rank above it: in a catalog of many alike tools a
                // deep search would otherwise keep all of them.
                continue;
            }
            let decayed = score * FAMILY_DECAY.powi(*earlier);
            *earlier += 1;
            ranked.push((document, decayed));
            best.push(Reverse(Score(decayed)));
            if best.len() > limit {
                best.pop();
            }
        }
        ranked.sort_unstable_by(order);
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(document, score)| (document as usize, score))
            .collect()
    }
}

/// A score in a heap: scores are never NaN, so they order totally.
#[derive(Clone, Copy, PartialEq)]
struct Score(f32);

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The inverse document frequency of a term found in `found_in` of `count` documents.
fn idf(count: f32, found_in: f32) -> f32 {
    (1.0 + (count - found_in + 0.5) / (found_in + 0.5)).ln()
}

/// The score of one term in one document: the sum of its BM25 scores in the fields that
/// hold it, each with its own weight, inverse document frequency and length normalisation.
fn bm25(
    frequency: &[f32; FIELD_COUNT],
    idf: &[f32; FIELD_COUNT],
    length: &[f32; FIELD_COUNT],
    average: &[f32; FIELD_COUNT],
) -> f32 {
    (0..FIELD_COUNT)
        .filter(|&field| frequency[field] > 0.0)
        .map(|field| {
            let normalisation = 1.0 - B[field] + B[field] * length[field] / average[field];
            let saturation = frequency[field] * (K1[field] + 1.0)
                / (frequency[field] + K1[field] * normalisation);
            FIELD_WEIGHTS[field] * idf[field] * saturation
        })
        .sum()
}

/// The score of one term in one document by BM25F: its frequencies in the fields that hold
/// it, each weighted and length-normalised, summed and then saturated once, with the
/// inverse document frequency of the whole tool.
fn bm25f(
    frequency: &[f32; FIELD_COUNT],
    idf: f32,
    length: &[f32; FIELD_COUNT],
    average: &[f32; FIELD_COUNT],
) -> f32 {
    let frequency: f32 = (0..FIELD_COUNT)
        .filter(|&field| frequency[field] > 0.0)
        .map(|field| {
            let normalisation = 1.0 - B[field] + B[field] * length[field] / average[field];
            FIELD_WEIGHTS[field] * frequency[field] / normalisation
        })
        .sum();
    idf * frequency * (WHOLE_K1 + 1.0) / (frequency + WHOLE_K1)
}

#[cfg(test)]
mod tests;
