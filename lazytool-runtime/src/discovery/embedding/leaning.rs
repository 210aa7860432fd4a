//! Which way one query leaned, words or meaning, and why: [`Leaning`] and the signals it is
//! computed from.

/// What the two rankings of one query say about how far each can be trusted, every value
/// between 0 and 1 (NaN never: a missing ranking gives 0s). The fusion's default weighs
/// meaning from the dense ones ([`Fusion::default`](crate::Fusion::default)); the others
/// serve [`Fusion::adaptive`](crate::Fusion::adaptive) and
/// [`Fusion::by_catalog`](crate::Fusion::by_catalog).
///
/// ```
/// use lazytool_runtime::Signals;
///
/// let signals = Signals::of(&[(0, 8.0), (1, 2.0)], &[(1, 0.6), (0, 0.5), (2, 0.1)], 0.5);
/// assert!((signals.lexical_gap - 0.75).abs() < 1e-6);
/// assert!((signals.dense_gap - 0.2).abs() < 1e-6);
/// assert!((signals.dense_best - 0.6).abs() < 1e-6);
/// assert!((signals.dense_last - 0.1).abs() < 1e-6);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Signals {
    /// How far the words' best score stands above their second, a share of the best (1: one
    /// tool alone matched; 0: a tie, or nothing matched).
    pub lexical_gap: f32,
    /// How far the model's nearest cosine stands above its second, a share of the spread
    /// between the nearest and the last read (0: a tie).
    pub dense_gap: f32,
    /// The model's nearest cosine itself (clamped to 0..1): how close the nearest tool is.
    pub dense_best: f32,
    /// The cosine of the last tool the fusion reads of the model's ranking (its 30th nearest
    /// by default; clamped to 0..1): how crowded the query's neighbourhood is. Near the
    /// nearest's, many tools are about as close, and the model hardly tells them apart.
    pub dense_last: f32,
    /// How alike the catalog's tools are to the model: the mean cosine between a tool and its
    /// nearest other tool (clamped to 0..1).
    pub alike: f32,
    /// Whether the words found anything (1) or not (0).
    pub lexical_found: f32,
    /// How long the query is: log2(1 + its words) / 8, clamped to 0..1 (one word 0.125, 15
    /// words 0.5, 255 and more 1; 0 until [`Signals::with_query`]). A long request of several
    /// parts has a vector that blurs them, while its words still find each part's tool.
    pub query_words: f32,
}

impl Signals {
    /// The signals of a lexical ranking (tools and scores, best first), a dense one (tools and
    /// cosines, nearest first) and the catalog's mean nearest cosine `alike`.
    ///
    /// ```
    /// let none = lazytool_runtime::Signals::of(&[], &[], f32::NAN);
    /// assert_eq!(none, lazytool_runtime::Signals::default());
    /// ```
    pub fn of(lexical: &[(usize, f32)], dense: &[(usize, f32)], alike: f32) -> Signals {
        let unit = |value: f32| {
            if value.is_nan() {
                0.0
            } else {
                value.clamp(0.0, 1.0)
            }
        };
        let best = lexical.first().map_or(0.0, |&(_, score)| score);
        let lexical_gap = if best > 0.0 {
            let second = lexical.get(1).map_or(0.0, |&(_, score)| score.max(0.0));
            unit((best - second) / best)
        } else {
            0.0
        };
        let dense_gap = match (dense.first(), dense.get(1), dense.last()) {
            (Some(&(_, top)), Some(&(_, second)), Some(&(_, bottom))) if top > bottom => {
                unit((top - second) / (top - bottom))
            }
            _ => 0.0,
        };
        Signals {
            lexical_gap,
            dense_gap,
            dense_best: unit(dense.first().map_or(0.0, |&(_, cosine)| cosine)),
            dense_last: unit(dense.last().map_or(0.0, |&(_, cosine)| cosine)),
            alike: unit(alike),
            lexical_found: if best > 0.0 { 1.0 } else { 0.0 },
            query_words: 0.0,
        }
    }

    /// The signals with [`Signals::query_words`] of `query` (its words split at whitespace).
    ///
    /// ```
    /// let signals = lazytool_runtime::Signals::of(&[], &[], 0.5).with_query("a b c d e f g");
    /// assert_eq!(signals.query_words, 0.375); // log2(8) / 8
    /// assert_eq!(lazytool_runtime::Signals::default().with_query("").query_words, 0.0);
    /// ```
    pub fn with_query(self, query: &str) -> Signals {
        let words = query.split_whitespace().count() as f32;
        Signals {
            query_words: ((1.0 + words).log2() / 8.0).clamp(0.0, 1.0),
            ..self
        }
    }
}

/// How a hybrid search weighed meaning against words for one query, and why: the
/// [`Signals`], the dense weight they gave (0: words only, 1: meaning only) and a sentence
/// naming what decided it.
///
/// ```
/// use lazytool_runtime::{Fusion, Signals};
///
/// let signals = Signals::of(&[(0, 8.0), (1, 8.0)], &[(1, 0.7), (0, 0.4), (2, 0.1)], 0.5);
/// let leaning = Fusion::default().lean(signals);
/// assert!(leaning.weight > 0.5, "{leaning:?}");
/// assert!(leaning.reason.starts_with("meaning"), "{}", leaning.reason);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Leaning {
    /// What the rankings said.
    pub signals: Signals,
    /// The dense weight used for this query.
    pub weight: f32,
    /// Why, in words: which way it leaned and the signals that counted most.
    pub reason: String,
}
