//! The query side of the search: the terms searched for a question (its words, their
//! synonyms, unknown words split into known terms or matched to terms spelt alike), the tools
//! it names, and the share of its words a tool matches.

use super::analysis::{Analysis, Analyzer, SYNONYMS, WRITTEN, words};
use super::fields::name_key;
use super::index::{Posting, SearchIndex};
use super::kinds::{PERSON_ROLES, names_person, term_of, word_kind, written_kinds};
use super::scratch::TermMatch;
use super::weights::{COVERAGE_POWER, KIND_WEIGHT, RARE_SHARE, SYNONYM_WEIGHT, WORDNET_WEIGHT};
use super::wordnet::related_terms;

/// The longest query term [`SearchIndex::known_parts`] tries to split.
pub(super) const MAX_SPLIT_BYTES: usize = 64;

impl SearchIndex {
    /// The terms searched for `query`, and how many of its words have terms.
    pub(super) fn query_terms(&self, query: &str) -> QueryTerms {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let mut add = |id: u32, word: usize, found: Found| {
            let position = match terms.iter().position(|term| term.id == id) {
                Some(position) => position,
                None => {
                    terms.push(QueryTerm {
                        id,
                        ..QueryTerm::default()
                    });
                    terms.len() - 1
                }
            };
            let entry = &mut terms[position];
            let bit = 1 << word.min(u64::BITS as usize - 1);
            match found {
                Found::Written => {
                    entry.weight = 1.0;
                    entry.words |= bit;
                }
                Found::Synonym(weight) => {
                    entry.weight = entry.weight.max(weight);
                    entry.synonym_words |= bit;
                }
                Found::Kind => {
                    entry.weight = entry.weight.max(KIND_WEIGHT);
                    entry.words |= bit;
                }
            }
        };
        let mut analyzer = Analyzer::default();
        let mut analyzed: Vec<String> = Vec::new();
        let mut word_count = 0;
        for word in words(query) {
            analyzed.clear();
            analyzer.word(word, Analysis::Query, &mut |term| {
                analyzed.push(term.to_owned())
            });
            let word_terms: Vec<&str> = analyzed
                .iter()
                .flat_map(|term| self.known_parts(term))
                .flatten()
                .collect();
            let known = word_terms.iter().any(|term| self.terms.contains_key(*term));
            let alike = if known {
                Vec::new()
            } else {
                self.fuzzy.like(word)
            };
            if word_terms.is_empty() && alike.is_empty() {
                continue;
            }
            for term in &word_terms {
                if let Some(&id) = self.terms.get(*term) {
                    add(id, word_count, Found::Written);
                }
            }
            for (id, similarity) in alike {
                add(id, word_count, Found::Synonym(SYNONYM_WEIGHT * similarity));
            }
            for synonym in word_terms
                .iter()
                .filter_map(|term| SYNONYMS.get(*term))
                .flatten()
            {
                if let Some(&id) = self.terms.get(synonym.as_str()) {
                    add(id, word_count, Found::Synonym(SYNONYM_WEIGHT));
                }
            }
            if self.is_rare(&word_terms) {
                for term in &word_terms {
                    related_terms(term, &mut |related| {
                        if let Some(&id) = self.terms.get(related) {
                            add(id, word_count, Found::Synonym(WORDNET_WEIGHT));
                        }
                    });
                }
            }
            if let Some(id) = word_kind(word).and_then(|kind| self.kind_term(kind)) {
                add(id, word_count, Found::Kind);
            }
            word_count += 1;
        }
        for id in written_kinds(query).filter_map(|kind| self.kind_term(kind)) {
            add(id, word_count, Found::Kind);
            word_count += 1;
        }
        if names_person(query) {
            let roles: Vec<u32> = PERSON_ROLES
                .iter()
                .filter_map(|role| self.kind_term(role))
                .collect();
            for &id in &roles {
                add(id, word_count, Found::Kind);
            }
            if !roles.is_empty() {
                word_count += 1;
            }
        }
        QueryTerms { terms, word_count }
    }

    /// The id of the term of `kind` (see [`word_kind`]), if the index knows it.
    fn kind_term(&self, kind: &str) -> Option<u32> {
        self.terms.get(term_of(kind)?).copied()
    }

    /// Whether at most one document in [`RARE_SHARE`] holds any of `terms` (none may).
    fn is_rare(&self, terms: &[&str]) -> bool {
        let most = self.families.len() / RARE_SHARE;
        terms
            .iter()
            .filter_map(|term| self.terms.get(*term))
            .all(|&id| self.postings(id).len() <= most)
    }

    /// `term` itself, unless the index does not know it but knows its end, after a prefix
    /// of up to two letters or another known term: `reopen` → open, `pullrequest` → pull,
    /// request. Only terms of at most [`MAX_SPLIT_BYTES`] are split: each split point hashes
    /// the rest of the term, so the work grows with the square of its length.
    pub(super) fn known_parts<'t>(&self, term: &'t str) -> [Option<&'t str>; 2] {
        let known = |part: &str| part.len() >= 3 && self.terms.contains_key(part);
        if term.starts_with(WRITTEN)
            || term.len() > MAX_SPLIT_BYTES
            || self.terms.contains_key(term)
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

    /// The documents whose exact name is the whole of `query`, or one of its words written
    /// as an identifier (see [`is_identifier`]): a tool named `help` or `add` is not what
    /// every question asking for help or to add something names.
    pub(super) fn named_in(&self, query: &str) -> Vec<u32> {
        let mut named: Vec<u32> = query
            .split_whitespace()
            .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|word| is_identifier(word))
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

/// Whether `word` is written as an identifier rather than a word of prose: it joins words
/// with `_`, `-` or `.`, or has a capital letter after a lowercase one (`list_tags`,
/// `get-me`, `listTags`).
fn is_identifier(word: &str) -> bool {
    let inner_capital = word
        .chars()
        .zip(word.chars().skip(1))
        .any(|(before, c)| before.is_lowercase() && c.is_uppercase());
    inner_capital || word.contains(['_', '-', '.'])
}

/// How a term stands for a word of the query.
#[derive(Clone, Copy)]
enum Found {
    /// As written (or stemmed, or split).
    Written,
    /// As a synonym, a word spelt alike or a related noun, at this weight: a document
    /// matching only these matches half the word (see [`coverage_of`]).
    Synonym(f32),
    /// As the kind of an argument the query writes ([`word_kind`]): at [`KIND_WEIGHT`], but
    /// matching the whole word, since a tool never holds the argument itself (`Friday`,
    /// `2023-04-20`) and its kind is what the word asks of it.
    Kind,
}

/// A term searched for a query.
#[derive(Debug, Default)]
pub(super) struct QueryTerm {
    pub(super) id: u32,
    pub(super) weight: f32,
    /// The query words it was written for, as bits (the last bit stands for all words past
    /// it).
    pub(super) words: u64,
    /// The query words it is a synonym of, as bits.
    pub(super) synonym_words: u64,
}

impl QueryTerm {
    /// What the term adds to the match of the document of `posting`.
    pub(super) fn matched(&self, posting: &Posting) -> TermMatch {
        TermMatch {
            score: self.weight * posting.score,
            whole: self.weight * posting.whole,
            words: self.words,
            synonym_words: self.synonym_words,
        }
    }
}

/// What is searched for a query.
#[derive(Debug)]
pub(super) struct QueryTerms {
    pub(super) terms: Vec<QueryTerm>,
    pub(super) word_count: usize,
}

// `coverage_scale` counts a word matched only through a synonym as half a word.
const _: () = assert!(SYNONYM_WEIGHT == 0.5);

/// The factor of `coverage` (see [`QueryTerms::coverage_scale`]) for a document matching
/// `words`, and `synonym_words` through a synonym.
pub(super) fn coverage_of(coverage: &[f32], words: u64, synonym_words: u64) -> f32 {
    let synonym_only = synonym_words & !words;
    let halves = 2 * words.count_ones() + synonym_only.count_ones();
    coverage.get(halves as usize).copied().unwrap_or(0.0)
}

impl QueryTerms {
    /// What a document's score is multiplied by, indexed by twice the words it matched: the
    /// share of the query's words it matched, a word matched only through a synonym counting
    /// [`SYNONYM_WEIGHT`] (half), to the power [`COVERAGE_POWER`].
    pub(super) fn coverage_scale(&self) -> Vec<f32> {
        let words = self.word_count.clamp(1, u64::BITS as usize) as f32;
        (0..=2 * u64::BITS)
            .map(|halves| {
                let matched = halves as f32 * SYNONYM_WEIGHT;
                (matched / words).min(1.0).powf(COVERAGE_POWER)
            })
            .collect()
    }
}
