//! Related nouns from WordNet 3.0, for the query words a catalog hardly uses: a question asking
//! for a `taxi` finds the tool that books a `cab`, and one for a `film` the tool that finds
//! movies. `wordnet.tsv` is written by `bench/search/wordnet.py` (its licence heads it): for
//! each noun people commonly write, the nouns of its most frequent sense and of what that
//! sense is a kind of.

use std::sync::LazyLock;

use super::analysis::{Analyzer, with_first_term};

const TABLE: &str = include_str!("wordnet.tsv");

/// The table's lines by the term of their noun, sorted by it: the term, and the related
/// nouns as written, space separated (a term can stand for several nouns: `director` and
/// `direction`). A sorted list holds about a third of what a map would.
static RELATED: LazyLock<Vec<(Box<str>, &'static str)>> = LazyLock::new(|| {
    let mut analyzer = Analyzer::default();
    let mut related: Vec<(Box<str>, &'static str)> = TABLE
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (noun, nouns) = line.split_once('\t')?;
            Some((
                with_first_term(&mut analyzer, noun, |term| Box::<str>::from(term))?,
                nouns,
            ))
        })
        .collect();
    related.sort_unstable();
    related.shrink_to_fit();
    related
});

/// Hands `emit` the term of each noun related to a noun whose term is `term`.
pub(super) fn related_terms(term: &str, emit: &mut impl FnMut(&str)) {
    let start = RELATED.partition_point(|(noun, _)| &**noun < term);
    let lines = RELATED[start..]
        .iter()
        .take_while(|(noun, _)| &**noun == term);
    let mut analyzer = Analyzer::default();
    for noun in lines.flat_map(|(_, nouns)| nouns.split(' ')) {
        with_first_term(&mut analyzer, noun, |term| emit(term));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn related(word: &str) -> Vec<String> {
        let term = with_first_term(&mut Analyzer::default(), word, str::to_owned)
            .expect("a noun has a term");
        let mut terms = Vec::new();
        related_terms(&term, &mut |term| terms.push(term.to_owned()));
        terms
    }

    #[test]
    fn relates_a_noun_to_its_synonyms_and_what_it_is_a_kind_of() {
        assert!(related("taxi").contains(&"cab".to_owned()));
        assert!(related("films").contains(&"movi".to_owned()));
        assert!(related("film").contains(&"movi".to_owned()));
        assert!(related("rain").contains(&"precipitat".to_owned()));
        assert!(related("zzyzx").is_empty());
    }

    #[test]
    fn the_table_is_sorted_lines_of_plain_words_under_its_licence() {
        assert!(TABLE.starts_with("# WordNet 3.0 Copyright 2006 by Princeton University."));
        let lines: Vec<&str> = TABLE
            .lines()
            .filter(|line| !line.starts_with('#'))
            .collect();
        assert!(lines.len() > 8_000, "{}", lines.len());
        assert!(lines.is_sorted());
        for line in lines {
            let (noun, nouns) = line.split_once('\t').expect("a tab after the noun");
            for word in std::iter::once(noun).chain(nouns.split(' ')) {
                assert!(word.bytes().all(|b| b.is_ascii_lowercase()), "{line:?}");
            }
        }
    }
}
