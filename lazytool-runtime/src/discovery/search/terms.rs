//! The term ids of an index being built, with each distinct word's terms remembered: a
//! catalog repeats its words (parameter names, `the`, `get`, `city`) across its tools, and
//! analysing a word again costs more than looking it up.

use foldhash::HashMap;

use super::analysis::{Analysis, Analyzer, words};

/// Term ids by term, and the ids of the terms of each word analysed so far.
#[derive(Debug, Default)]
pub(super) struct TermTable {
    ids: HashMap<Box<str>, u32>,
    analyzer: Analyzer,
    /// For each kind of analysis, where each word's term ids are in `word_terms`.
    words: [HashMap<Box<str>, (usize, usize)>; 3],
    word_terms: Vec<u32>,
}

impl TermTable {
    /// Hands the id of every term of `text` to `on_term`, giving new terms the next ids.
    pub(super) fn text(&mut self, text: &str, analysis: Analysis, on_term: &mut impl FnMut(u32)) {
        if text.is_ascii() {
            // What [`words`] gives for ASCII text, without looking for scripts it has none of.
            for word in text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|word| !word.is_empty())
            {
                self.word(word, analysis, on_term);
            }
        } else {
            for word in words(text) {
                self.word(word, analysis, on_term);
            }
        }
    }

    /// Hands the id of every term of one word to `on_term`.
    fn word(&mut self, word: &str, analysis: Analysis, on_term: &mut impl FnMut(u32)) {
        let TermTable {
            ids,
            analyzer,
            words: known,
            word_terms,
        } = self;
        let known = &mut known[match analysis {
            Analysis::Identifier => 0,
            Analysis::Prose => 1,
            Analysis::Query => 2,
        }];
        let (start, end) = match known.get(word) {
            Some(&span) => span,
            None => {
                let start = word_terms.len();
                analyzer.word(word, analysis, &mut |term| {
                    let id = match ids.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = ids.len() as u32;
                            ids.insert(term.into(), id);
                            id
                        }
                    };
                    word_terms.push(id);
                });
                known.insert(word.into(), (start, word_terms.len()));
                (start, word_terms.len())
            }
        };
        for &id in word_terms.get(start..end).unwrap_or_default() {
            on_term(id);
        }
    }

    /// How many terms there are.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The term ids by term.
    pub(super) fn into_ids(self) -> HashMap<Box<str>, u32> {
        self.ids
    }
}
