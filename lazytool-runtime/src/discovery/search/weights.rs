//! The search's tuned constants, in one place. Those `bench/search/fit.py` fits carry its
//! key (`fit.py`: `power`), and its `TODAY` table holds the values here: a test fails when
//! the two differ. The rounds that chose each are in bench/HISTORY.md, "Search".

use super::fields::FIELD_COUNT;

/// How much a match counts in each field: name, tags, description, parameter names,
/// parameter text; in the per-field BM25 and in BM25F alike (fifth round). `fit.py`:
/// `w0`–`w4`, and `v0`, `v2`–`v4` for BM25F's, which `fit.py` can fit apart and which are
/// these here.
pub(super) const FIELD_WEIGHTS: [f32; FIELD_COUNT] = [3.0, 3.0, 1.2, 1.0, 0.5];

/// BM25 term-frequency saturation, by field (see [`FIELD_WEIGHTS`]): tool texts are short,
/// and a word a tool repeats (in its name, description and parameters) says more about it
/// than in prose. The name's and the parameter names' values, and [`B`]'s for parameter
/// names, were fitted jointly with the field weights on BFCL's live questions (fifth round):
/// a name word a tool repeats (`get_user_by_user_id`) and a parameter name shared by
/// several of its parameters (`start_date`, `end_date`) keep counting for more. `fit.py`:
/// `k0`, `k2`–`k4` (the tags' is not fitted).
pub(super) const K1: [f32; FIELD_COUNT] = [20.0, 3.0, 3.0, 8.0, 3.0];

/// BM25 length normalisation, by field: a tool with many parameters has its parameter
/// names normalised fully by their number (fifth round). `fit.py`: `b0`, `b2`–`b4`.
pub(super) const B: [f32; FIELD_COUNT] = [0.75, 0.75, 0.75, 1.0, 0.75];

/// BM25F's saturation, applied once to a term's weighted frequencies in all fields: they
/// add up to much more than one field's, so it saturates later (third round). `fit.py`:
/// `whole_k1`.
pub(super) const WHOLE_K1: f32 = 8.0;

/// How much the share of a query's words a document matches counts: its score is scaled
/// by that share to this power, so a tool matching most of a question beats one matching a
/// single word many times (second round). `fit.py`: `power`.
pub(super) const COVERAGE_POWER: f32 = 1.6;

/// The weight of a synonym of a query word, relative to the word itself; also how much a
/// document matching only a synonym counts as matching the word (second and third rounds).
/// `fit.py`: `synonym`, and `credit` for the share of the words matched.
pub(super) const SYNONYM_WEIGHT: f32 = 0.5;

/// What a tool the query names (its exact name, or a word written as an identifier) gets:
/// its score plus this times one more than the best score, so it ranks first (first round).
/// `fit.py`: `named`.
pub(super) const NAMED_WEIGHT: f32 = 1.0;

/// How much each earlier result of the same family lowers a tool's score: the second of a
/// family counts this much, the third this squared, and so on (first round). `fit.py`:
/// `decay`.
pub(super) const FAMILY_DECAY: f32 = 0.5;

/// How many of the best results are reordered by both scores: the per-field model's best
/// three hold the answer as often as before; only their order changes (third round).
/// `fit.py`: `depth`.
pub(super) const RERANK_DEPTH: usize = 3;

/// The share of BM25F in the score the best results are reordered by, each score divided
/// by its highest among them (third round). `fit.py`: `share`.
pub(super) const WHOLE_SHARE: f32 = 0.4;

/// The weight of an argument's kind (`next Friday` → date), relative to a word of the
/// query. In the share of the query's words a tool matches, a kind counts as its word
/// (sixth round).
pub(super) const KIND_WEIGHT: f32 = 0.25;

/// The weight of a related noun from WordNet, relative to the query word (sixth round).
pub(super) const WORDNET_WEIGHT: f32 = 0.25;

/// Only a word that at most one tool in this many holds is searched by its related nouns
/// too: a word the catalog uses more often is the catalog's own word, and its WordNet
/// relatives would mostly find the tools that happen to use them in another sense (sixth
/// round).
pub(super) const RARE_SHARE: usize = 200;

/// How alike a misspelt word and a term must be: the Dice coefficient of their trigram sets
/// (twice the trigrams they share over the trigrams each has). 0.7 accepts one letter added,
/// dropped or changed inside a word of eight letters or more, and rejects most word pairs
/// that merely share a stem's beginning (fourth round).
pub(super) const MIN_SIMILARITY: f32 = 0.7;

/// At most this many terms stand in for one misspelt word (fourth round).
pub(super) const MAX_ALTERNATIVES: usize = 2;

/// Shorter words are not matched by their trigrams: a typo in them makes another word as
/// often as not (fourth round).
pub(super) const MIN_WORD_CHARS: usize = 4;

/// A query term is common when more than one document in this many holds it (and more than
/// [`MIN_COMMON_POSTINGS`] do): its postings are then added only to the documents the other
/// terms found, if those are enough for the results.
pub(super) const COMMON_SHARE: usize = 64;

/// Below this many postings no term is common, however small the catalog.
pub(super) const MIN_COMMON_POSTINGS: usize = 1024;

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// `fit.py`'s `TODAY` table: key and value, comments dropped.
    fn fit_py_today() -> BTreeMap<String, f64> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/search/fit.py");
        let text = std::fs::read_to_string(path).expect("bench/search/fit.py is readable");
        let start = text.find("\nTODAY = {").expect("fit.py has a TODAY table");
        let mut table = BTreeMap::new();
        for line in text[start + 1..].lines().skip(1) {
            if line.starts_with('}') {
                break;
            }
            let code = line.split('#').next().unwrap_or_default();
            for pair in code
                .split(',')
                .map(str::trim)
                .filter(|pair| !pair.is_empty())
            {
                let (key, value) = pair.split_once(':').expect("a `\"key\": value` pair");
                let value: f64 = value.trim().parse().expect("a number");
                table.insert(key.trim().trim_matches('"').to_owned(), value);
            }
        }
        table
    }

    /// The keys `fit.py` fits, each with the constant (or element) that holds it here.
    fn weights_by_key() -> Vec<(&'static str, f32)> {
        vec![
            ("w0", FIELD_WEIGHTS[0]),
            ("w1", FIELD_WEIGHTS[1]),
            ("w2", FIELD_WEIGHTS[2]),
            ("w3", FIELD_WEIGHTS[3]),
            ("w4", FIELD_WEIGHTS[4]),
            ("v0", FIELD_WEIGHTS[0]),
            ("v2", FIELD_WEIGHTS[2]),
            ("v3", FIELD_WEIGHTS[3]),
            ("v4", FIELD_WEIGHTS[4]),
            ("k0", K1[0]),
            ("k2", K1[2]),
            ("k3", K1[3]),
            ("k4", K1[4]),
            ("b0", B[0]),
            ("b2", B[2]),
            ("b3", B[3]),
            ("b4", B[4]),
            ("whole_k1", WHOLE_K1),
            ("power", COVERAGE_POWER),
            ("synonym", SYNONYM_WEIGHT),
            ("credit", SYNONYM_WEIGHT),
            ("named", NAMED_WEIGHT),
            ("decay", FAMILY_DECAY),
            ("depth", RERANK_DEPTH as f32),
            ("share", WHOLE_SHARE),
        ]
    }

    /// Keys of signals the scorer does not have: `fit.py` must keep them off (zero).
    const NOT_IN_THE_SCORER: &[&str] = &["namecov"];

    #[test]
    fn fit_py_today_table_holds_these_weights() {
        let mut today = fit_py_today();
        let mut differences = Vec::new();
        for (key, weight) in weights_by_key() {
            match today.remove(key) {
                Some(value) if value as f32 == weight => {}
                Some(value) => {
                    differences.push(format!("`{key}`: fit.py has {value}, weights.rs {weight}"))
                }
                None => differences.push(format!("`{key}`: not in fit.py's TODAY")),
            }
        }
        for (key, value) in today {
            if !(NOT_IN_THE_SCORER.contains(&key.as_str()) && value == 0.0) {
                differences.push(format!("`{key}` = {value}: in fit.py's TODAY, not here"));
            }
        }
        assert!(
            differences.is_empty(),
            "bench/search/fit.py's TODAY and weights.rs differ:\n  {}",
            differences.join("\n  ")
        );
    }

    #[test]
    fn fit_py_today_table_is_read_whole() {
        let today = fit_py_today();
        assert_eq!(
            today.len(),
            weights_by_key().len() + NOT_IN_THE_SCORER.len()
        );
        assert_eq!(today["k0"], 20.0);
    }
}
