//! The order of the best few results, settled by two scores: the per-field BM25 the index
//! ranks by, and BM25F, which sees a tool as one document.
//!
//! The per-field model gives a word found in a tool's name the weight of a rare word among
//! names, which finds the tool a request names (`make a new repo` → `create_repository`)
//! but overrates a tool whose name holds one word of a question that is about something
//! else (`a film with Duane Whitaker, directed by Quentin Tarantino` → `get_directions`
//! before `Movies_3_FindMovies`, whose parameters hold the director and the cast). BM25F
//! (Robertson, Zaragoza and Taylor 2004: field frequencies weighted and summed, then
//! saturated once, with the document frequency of the whole tool) weighs the words a tool
//! holds anywhere, parameters included, and orders close candidates better, but alone it
//! loses tools found by their name. So the per-field model chooses the best
//! [`RERANK_DEPTH`] and the two scores together order them.

use super::weights::{RERANK_DEPTH, WHOLE_SHARE};

/// One of the best results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ranked {
    pub(super) document: usize,
    /// The per-field score it was ranked by.
    pub(super) score: f32,
    /// Its BM25F score, decayed as `score` is for the better members of its family.
    pub(super) whole: f32,
    /// Whether the query names it, which keeps it first.
    pub(super) named: bool,
}

/// Reorders those of the first [`RERANK_DEPTH`] of `ranked` (best first) that the query does
/// not name by `(1 - WHOLE_SHARE) × score / best score + WHOLE_SHARE × whole / best whole`;
/// named ones and the scores stay where they were, so that the scores still descend.
pub(super) fn rerank(ranked: &mut [Ranked]) {
    let depth = ranked.len().min(RERANK_DEPTH);
    let places: Vec<usize> = (0..depth).filter(|&at| !ranked[at].named).collect();
    let mut moving: Vec<Ranked> = places.iter().map(|&at| ranked[at]).collect();
    let best = |score: fn(&Ranked) -> f32| {
        moving
            .iter()
            .map(score)
            .fold(0.0f32, f32::max)
            .max(f32::MIN_POSITIVE)
    };
    let (best_score, best_whole) = (best(|result| result.score), best(|result| result.whole));
    let combined = |result: &Ranked| {
        (1.0 - WHOLE_SHARE) * result.score / best_score + WHOLE_SHARE * result.whole / best_whole
    };
    // A stable sort: equal combined scores keep the per-field order.
    moving.sort_by(|a, b| combined(b).total_cmp(&combined(a)));
    for (&at, result) in places.iter().zip(moving) {
        ranked[at] = Ranked {
            score: ranked[at].score,
            ..result
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(document: usize, score: f32, whole: f32, named: bool) -> Ranked {
        Ranked {
            document,
            score,
            whole,
            named,
        }
    }

    fn order(results: &[Ranked]) -> Vec<usize> {
        results.iter().map(|result| result.document).collect()
    }

    #[test]
    fn a_close_second_that_bm25f_prefers_moves_up() {
        let mut results = [
            ranked(0, 10.0, 2.0, false),
            ranked(1, 9.0, 8.0, false),
            ranked(2, 5.0, 1.0, false),
        ];
        rerank(&mut results);
        assert_eq!(order(&results), [1, 0, 2]);
        assert_eq!(
            results.map(|result| result.score),
            [10.0, 9.0, 5.0],
            "the scores still descend"
        );
    }

    #[test]
    fn a_clear_first_stays_first() {
        let mut results = [
            ranked(0, 10.0, 6.0, false),
            ranked(1, 4.0, 8.0, false),
            ranked(2, 3.0, 1.0, false),
        ];
        rerank(&mut results);
        assert_eq!(order(&results), [0, 1, 2]);
    }

    #[test]
    fn only_the_best_few_move_and_named_tools_stay_first() {
        let mut results = [
            ranked(0, 20.0, 1.0, true),
            ranked(1, 9.0, 1.0, false),
            ranked(2, 8.5, 9.0, false),
            ranked(3, 8.0, 50.0, false),
        ];
        rerank(&mut results);
        assert_eq!(order(&results), [0, 2, 1, 3]);
    }

    #[test]
    fn a_named_tool_keeps_its_place_wherever_it_is() {
        let mut results = [
            ranked(0, 10.0, 1.0, false),
            ranked(1, 9.0, 1.0, true),
            ranked(2, 8.0, 9.0, false),
        ];
        rerank(&mut results);
        assert_eq!(order(&results), [2, 1, 0]);
        assert_eq!(results.map(|result| result.score), [10.0, 9.0, 8.0]);
    }

    #[test]
    fn nothing_to_reorder_is_left_alone() {
        let mut none: [Ranked; 0] = [];
        rerank(&mut none);
        let mut named = [ranked(4, 3.0, 0.0, true), ranked(5, 2.0, 0.0, true)];
        rerank(&mut named);
        assert_eq!(order(&named), [4, 5]);
    }
}
