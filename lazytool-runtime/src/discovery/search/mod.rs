//! BM25 ranking of tools for search-mode discovery.
//!
//! Each tool is indexed as five weighted fields: its name, tags, description, parameter
//! names, and parameter text (the descriptions, titles and enum values found by walking
//! its input schema). A term's score in a document is the sum of its BM25 scores in the
//! fields that hold it, each field with its own weight, document frequencies and length
//! normalisation; all of these are computed when the index is built, so a query only adds
//! up the postings of its own terms.
//!
//! Documents and queries go through the same analysis: words are lowercased and folded to
//! ASCII, stop words are dropped, suffixes are lightly stemmed (an inflected word is also
//! kept as written, so that the same form counts more than a shared stem), and a few
//! abbreviations are spelled out (`PRs` → pull request). Names and parameter names are
//! also split into words on case changes and digits; queries keep both forms. Each word of a query is
//! then expanded with a small table of synonyms at a reduced weight, and a word the index
//! does not know is split into known terms when it can be (`reopen` → open). A document's
//! score is finally scaled by the share of the query's words it matches, and a tool whose
//! exact name appears in the query ranks first.

mod analysis;
mod fields;
mod stem;
mod vocabulary;

use std::collections::HashMap;

use serde_json::Value;

use analysis::{Analysis, WRITTEN, analyze_word, words};
use fields::{FIELD_COUNT, FIELD_WEIGHTS, document_fields, name_key};
use vocabulary::{SYNONYM_WEIGHT, SYNONYMS};

/// What the index knows of one tool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SearchDocument<'a> {
    /// The tool's name, in any case convention (`list_pull_requests`, `listPullRequests`).
    pub(crate) name: &'a str,
    /// What the tool does, in prose.
    pub(crate) description: &'a str,
    /// The JSON Schema of the tool's arguments.
    pub(crate) input_schema: &'a Value,
    /// Extra keywords that help search find the tool.
    pub(crate) tags: &'a [&'a str],
}

/// A BM25 index over tools, built once; queries are read-only and cheap.
#[derive(Debug)]
pub(crate) struct SearchIndex {
    /// For each term, the documents that hold it with its score in each.
    postings: HashMap<String, Vec<Posting>>,
    /// Documents by [`name_key`] of their name.
    names: HashMap<String, Vec<usize>>,
}

/// A term's score in one document.
#[derive(Clone, Copy, Debug)]
struct Posting {
    document: usize,
    score: f32,
}

/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// BM25 length normalisation.
const B: f32 = 0.75;

/// The longest query term [`SearchIndex::known_parts`] tries to split.
const MAX_SPLIT_BYTES: usize = 64;

impl SearchIndex {
    /// Indexes `documents`; results refer to them by their position in this sequence.
    pub(crate) fn new<'a>(documents: impl IntoIterator<Item = SearchDocument<'a>>) -> SearchIndex {
        let mut term_ids: HashMap<String, usize> = HashMap::new();
        // For each term id, the documents that hold it, with its frequency in each field.
        let mut frequencies: Vec<Vec<(usize, [f32; FIELD_COUNT])>> = Vec::new();
        let mut lengths: Vec<[f32; FIELD_COUNT]> = Vec::new();
        let mut names: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, document) in documents.into_iter().enumerate() {
            let key = name_key(document.name);
            if !key.is_empty() {
                names.entry(key).or_default().push(index);
            }
            let mut length = [0.0; FIELD_COUNT];
            for (field, terms) in document_fields(&document).into_iter().enumerate() {
                length[field] = terms.len() as f32;
                for term in terms {
                    let next_id = frequencies.len();
                    let id = *term_ids.entry(term).or_insert(next_id);
                    if id == next_id {
                        frequencies.push(Vec::new());
                    }
                    match frequencies[id].last_mut() {
                        Some((document, frequency)) if *document == index => {
                            frequency[field] += 1.0
                        }
                        _ => {
                            let mut frequency = [0.0; FIELD_COUNT];
                            frequency[field] = 1.0;
                            frequencies[id].push((index, frequency));
                        }
                    }
                }
            }
            lengths.push(length);
        }

        let count = lengths.len() as f32;
        let mut average = [0.0f32; FIELD_COUNT];
        for length in &lengths {
            for (sum, length) in average.iter_mut().zip(length) {
                *sum += length;
            }
        }
        let average = average.map(|sum| sum / count);

        let mut terms = vec![String::new(); term_ids.len()];
        for (term, id) in term_ids {
            terms[id] = term;
        }
        let postings = terms
            .into_iter()
            .zip(frequencies)
            .map(|(term, documents)| {
                let mut found_in = [0.0f32; FIELD_COUNT];
                for (_, frequency) in &documents {
                    for (found_in, frequency) in found_in.iter_mut().zip(frequency) {
                        if *frequency > 0.0 {
                            *found_in += 1.0;
                        }
                    }
                }
                let idf = found_in
                    .map(|found_in| (1.0 + (count - found_in + 0.5) / (found_in + 0.5)).ln());
                let postings = documents
                    .into_iter()
                    .map(|(document, frequency)| Posting {
                        document,
                        score: bm25(&frequency, &idf, &lengths[document], &average),
                    })
                    .collect();
                (term, postings)
            })
            .collect();
        SearchIndex { postings, names }
    }

    /// Indices (into the documents as given) of the best matches, best first, at most
    /// `limit`, only those with a positive score.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<usize> {
        self.search_scored(query, limit)
            .into_iter()
            .map(|(document, _)| document)
            .collect()
    }

    /// Same as [`SearchIndex::search`] with scores, for tests and debugging.
    ///
    /// Equal scores are ordered by index, so results are deterministic.
    pub(crate) fn search_scored(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let (terms, word_count) = self.query_terms(query);
        let mut matches: HashMap<usize, Match> = HashMap::new();
        for term in &terms {
            for posting in self.postings.get(&term.term).into_iter().flatten() {
                let found = matches.entry(posting.document).or_default();
                found.score += term.weight * posting.score;
                found.words |= term.words;
                found.synonym_words |= term.synonym_words;
            }
        }
        let word_count = word_count.clamp(1, u64::BITS as usize) as f32;
        let mut scores: HashMap<usize, f32> = matches
            .into_iter()
            .map(|(document, found)| {
                let synonym_only = found.synonym_words & !found.words;
                let matched = found.words.count_ones() as f32
                    + SYNONYM_WEIGHT * synonym_only.count_ones() as f32;
                (document, found.score * matched / word_count)
            })
            .collect();
        let named = self.named_in(query);
        if !named.is_empty() {
            // Above every other score, and still in order of relevance among themselves.
            let best = scores.values().copied().fold(0.0, f32::max);
            for document in named {
                *scores.entry(document).or_default() += best + 1.0;
            }
        }

        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .filter(|&(_, score)| score > 0.0)
            .collect();
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked
    }

    /// The terms searched for `query`, and how many of its words have terms.
    fn query_terms(&self, query: &str) -> (Vec<QueryTerm>, usize) {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let mut positions: HashMap<String, usize> = HashMap::new();
        let mut add = |term: &str, word: usize, synonym: bool| {
            let position = *positions.entry(term.to_owned()).or_insert_with(|| {
                terms.push(QueryTerm {
                    term: term.to_owned(),
                    ..QueryTerm::default()
                });
                terms.len() - 1
            });
            let entry = &mut terms[position];
            let bit = 1 << word.min(u64::BITS as usize - 1);
            if synonym {
                entry.weight = entry.weight.max(SYNONYM_WEIGHT);
                entry.synonym_words |= bit;
            } else {
                entry.weight = 1.0;
                entry.words |= bit;
            }
        };
        let mut analyzed = Vec::new();
        let mut word_count = 0;
        for word in words(query) {
            analyzed.clear();
            analyze_word(word, Analysis::Query, &mut analyzed);
            let word_terms: Vec<&str> = analyzed
                .iter()
                .flat_map(|term| self.known_parts(term))
                .flatten()
                .collect();
            if word_terms.is_empty() {
                continue;
            }
            for term in &word_terms {
                add(term, word_count, false);
            }
            for synonym in word_terms
                .iter()
                .filter_map(|term| SYNONYMS.get(*term))
                .flatten()
            {
                add(synonym, word_count, true);
            }
            word_count += 1;
        }
        (terms, word_count)
    }

    /// `term` itself, unless the index does not know it but knows its end, after a prefix
    /// of up to two letters or another known term: `reopen` → open, `pullrequest` → pull,
    /// request. Only terms of at most [`MAX_SPLIT_BYTES`] are split: each split point hashes
    /// the rest of the term, so the work grows with the square of its length.
    fn known_parts<'t>(&self, term: &'t str) -> [Option<&'t str>; 2] {
        let known = |part: &str| part.len() >= 3 && self.postings.contains_key(part);
        if term.starts_with(WRITTEN)
            || term.len() > MAX_SPLIT_BYTES
            || self.postings.contains_key(term)
        {
            return [Some(term), None];
        }
        term.char_indices()
            .skip(1)
            .find_map(|(at, _)| {
                let (start, end) = term.split_at(at);
                (known(end) && (start.len() <= 2 || known(start)))
                    .then(|| [known(start).then_some(start), Some(end)])
            })
            .unwrap_or([Some(term), None])
    }

    /// The documents whose exact name is a word of `query`, or the whole of it.
    fn named_in(&self, query: &str) -> Vec<usize> {
        let mut named: Vec<usize> = query
            .split_whitespace()
            .chain([query])
            .filter_map(|word| self.names.get(&name_key(word)))
            .flatten()
            .copied()
            .collect();
        named.sort_unstable();
        named.dedup();
        named
    }
}

/// A term searched for a query.
#[derive(Debug, Default)]
struct QueryTerm {
    term: String,
    weight: f32,
    /// The query words it was written for, as bits (the last bit stands for all words past
    /// it).
    words: u64,
    /// The query words it is a synonym of, as bits.
    synonym_words: u64,
}

/// What a document matched of a query.
#[derive(Debug, Default)]
struct Match {
    score: f32,
    words: u64,
    synonym_words: u64,
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
            let normalisation = 1.0 - B + B * length[field] / average[field];
            let saturation =
                frequency[field] * (K1 + 1.0) / (frequency[field] + K1 * normalisation);
            FIELD_WEIGHTS[field] * idf[field] * saturation
        })
        .sum()
}

#[cfg(test)]
mod tests;
