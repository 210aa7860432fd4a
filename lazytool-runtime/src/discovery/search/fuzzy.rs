//! Typo tolerance: a query word the index does not know finds the terms that share most of
//! its character trigrams (as Lucene's n-gram spell checker does), which are then searched
//! as synonyms of the word (`profressional` → professional).

use foldhash::HashMap;

use super::analysis::fold_into;
use super::vocabulary::is_stop_word;
use super::weights::{MAX_ALTERNATIVES, MIN_SIMILARITY, MIN_WORD_CHARS};

/// Marks a word's start and end, so that its first and last letters count as much as the
/// others (`<pr`, `al>`).
const START: char = '<';
const END: char = '>';

/// The index's terms by character trigram.
#[derive(Debug, Default)]
pub(super) struct FuzzyTerms {
    /// Term ids by trigram (three characters packed into one number), each term once.
    by_trigram: HashMap<u64, Vec<u32>>,
    /// How many distinct trigrams each term has, by term id (0 for terms not indexed).
    trigram_counts: Vec<u16>,
}

impl FuzzyTerms {
    /// Indexes the trigrams of `terms` (term and id), those made only of letters and digits
    /// and long enough; a stemmed term and its form as written are both there.
    pub(super) fn new<'a>(terms: impl Iterator<Item = (&'a str, u32)>) -> FuzzyTerms {
        let mut fuzzy = FuzzyTerms::default();
        let mut folded = String::new();
        let mut trigrams = Vec::new();
        for (term, id) in terms {
            let term = term.strip_prefix(super::analysis::WRITTEN).unwrap_or(term);
            if !trigrams_of(term, &mut folded, &mut trigrams) {
                continue;
            }
            let id_index = id as usize;
            if fuzzy.trigram_counts.len() <= id_index {
                fuzzy.trigram_counts.resize(id_index + 1, 0);
            }
            fuzzy.trigram_counts[id_index] = u16::try_from(trigrams.len()).unwrap_or(u16::MAX);
            for &trigram in &trigrams {
                fuzzy.by_trigram.entry(trigram).or_default().push(id);
            }
        }
        fuzzy
    }

    /// The terms most like `word` (at most [`MAX_ALTERNATIVES`], each at least
    /// [`MIN_SIMILARITY`]), most alike first, with their similarity. Words holding a digit
    /// are arguments (`abc123`, `v2`), not misspelt words, and find none.
    pub(super) fn like(&self, word: &str) -> Vec<(u32, f32)> {
        let mut folded = String::new();
        let mut trigrams = Vec::new();
        if word.chars().any(|c| c.is_ascii_digit())
            || !trigrams_of(word, &mut folded, &mut trigrams)
        {
            return Vec::new();
        }
        let mut shared: HashMap<u32, u16> = HashMap::default();
        for trigram in &trigrams {
            for &id in self.by_trigram.get(trigram).into_iter().flatten() {
                *shared.entry(id).or_default() += 1;
            }
        }
        let own = trigrams.len() as f32;
        let mut alike: Vec<(u32, f32)> = shared
            .into_iter()
            .filter_map(|(id, shared)| {
                let theirs = f32::from(*self.trigram_counts.get(id as usize)?);
                let similarity = 2.0 * f32::from(shared) / (own + theirs);
                (similarity >= MIN_SIMILARITY).then_some((id, similarity))
            })
            .collect();
        alike.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        alike.truncate(MAX_ALTERNATIVES);
        alike
    }
}

/// The distinct trigrams of `word` lowercased and folded, with [`START`] and [`END`] around
/// it, into `trigrams`; false (and none) when the word is too short, all digits, not made of
/// letters and digits, or a stop word.
fn trigrams_of(word: &str, folded: &mut String, trigrams: &mut Vec<u64>) -> bool {
    trigrams.clear();
    fold_into(word, folded);
    let length = folded.chars().count();
    if length < MIN_WORD_CHARS
        || !folded.chars().all(char::is_alphanumeric)
        || folded.chars().all(|c| c.is_ascii_digit())
        || is_stop_word(folded)
    {
        return false;
    }
    let chars: Vec<char> = std::iter::once(START)
        .chain(folded.chars())
        .chain(std::iter::once(END))
        .collect();
    trigrams.extend(chars.windows(3).map(|window| {
        // 21 bits hold any char.
        window
            .iter()
            .fold(0u64, |packed, &c| packed << 21 | u64::from(c))
    }));
    trigrams.sort_unstable();
    trigrams.dedup();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(terms: &[&str]) -> FuzzyTerms {
        FuzzyTerms::new(terms.iter().zip(0u32..).map(|(term, id)| (*term, id)))
    }

    #[test]
    fn a_misspelt_word_finds_the_term_it_means() {
        let fuzzy = index(&["profession", "=professional", "cleaning", "provider"]);
        let found = fuzzy.like("profressional");
        assert_eq!(found.first().map(|(id, _)| *id), Some(1), "{found:?}");
        assert!(
            found
                .iter()
                .all(|(_, similarity)| *similarity >= MIN_SIMILARITY)
        );
    }

    #[test]
    fn unlike_short_digit_and_stop_words_find_nothing() {
        let fuzzy = index(&["weather", "commit", "repository", "abc1234"]);
        assert!(fuzzy.like("pizza").is_empty(), "nothing alike");
        assert!(fuzzy.like("reop").is_empty(), "no term shares enough");
        assert!(
            fuzzy.like("abc123").is_empty(),
            "a word with digits is an argument"
        );
        assert!(fuzzy.like("wea").is_empty(), "too short");
        assert!(fuzzy.like("there").is_empty(), "a stop word");
    }

    #[test]
    fn at_most_the_best_few_stand_in_for_a_word() {
        let fuzzy = index(&["forecasts", "forecaster", "forecasting", "forecast"]);
        let found = fuzzy.like("forecastt");
        assert_eq!(found.len(), MAX_ALTERNATIVES);
        assert_eq!(found.first().map(|(id, _)| *id), Some(3), "{found:?}");
    }
}
