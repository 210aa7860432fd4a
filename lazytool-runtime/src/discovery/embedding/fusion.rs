//! How the lexical and the dense rankings are combined: [`Fusion`].

use super::leaning::{Leaning, Signals};

/// How much the dense ranking (by meaning) counts against the lexical one (by words): a
/// weight between 0 (words only) and 1 (meaning only), and the fused ranking.
///
/// Each ranking's scores are scaled to 0..1 (the lexical ones by the best, the cosines
/// between the best and the last of the [`Fusion::depth`] nearest), and added with weights
/// `1 - w` and `w`. The default sets `w` for each query ([`Signals`]): a logistic model over
/// three cosines of the ranking by meaning and the query's length, fitted on four public sets
/// and checked on four others (BENCHMARKS.md, "Search by meaning"). Meaning counts more when
/// the nearest tool is close to the query and stands out from the second; less when the
/// query's neighbourhood is crowded (when the 30th nearest tool is nearly as close as the
/// first, the model hardly tells the tools apart) and when the query is long (a request of
/// several parts, whose one vector blurs them); the words decide then ([`Fusion::lean`] says
/// which counted for a query). The default also keeps the first result of the ranking it
/// leaned toward among its first three: the other ranking's runners-up never push it out.
/// [`Fusion::adaptive`] sets `w` from the gap between the lexical ranking's best two scores
/// alone; [`Fusion::fixed`] once for all;
/// [`Fusion::by_catalog`] from the catalog alone (the default before issue 52).
/// BENCHMARKS.md ("Search by meaning") has the measurements behind the choice.
///
/// ```
/// use lazytool_runtime::{Fusion, Signals};
///
/// let words = [(0, 5.0), (1, 4.0)];
/// // The model's nearest far ahead of the rest, and the rest far from the query.
/// let apart = Signals::of(&words, &[(1, 0.7), (0, 0.3), (2, 0.1)], 0.5);
/// // Every tool the model read about as close as the nearest.
/// let crowded = Signals::of(&words, &[(1, 0.8), (0, 0.8), (2, 0.79)], 0.5);
/// assert!(Fusion::default().lean(apart).weight > 0.5);
/// assert!(Fusion::default().lean(crowded).weight < 0.5);
/// // A long request leans toward its words.
/// let long = apart.with_query(&"word ".repeat(60));
/// assert!(Fusion::default().lean(long).weight < Fusion::default().lean(apart).weight);
/// assert_eq!(Fusion::fixed(0.3).weight(0.0), 0.3);
/// assert_eq!(Fusion::dense_only().weight(1.0), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fusion {
    unsure: f32,
    sure: f32,
    how: How,
    depth: usize,
}

/// Where `w` comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    /// From the lexical gap, between `unsure` and `sure`.
    Gap,
    /// From the catalog's mean nearest cosine (the default before issue 52).
    Catalog,
    /// From the query's [`Signals`], by [`MODEL`].
    Signals,
}

/// The dense weight of a catalog whose tools are alike to the model (mean nearest cosine at
/// [`ALIKE`] and above), and of one whose tools are distinct ([`DISTINCT`] and below), for
/// [`Fusion::by_catalog`].
const ALIKE_WEIGHT: f32 = 0.2;
const DISTINCT_WEIGHT: f32 = 0.7;
const ALIKE: f32 = 0.8;
const DISTINCT: f32 = 0.45;
/// How many results of each ranking are fused.
const DEPTH: usize = 30;
/// The default keeps the first result of the ranking it leaned toward among this many first
/// results of its fused ranking (`Fusion::fuse`).
const KEPT_PLACES: usize = 3;

/// The default's logistic model: `w = 1 / (1 + e^-(INTERCEPT + Σ coefficient × signal))`
/// over [`Signals::dense_gap`], [`Signals::dense_best`], [`Signals::dense_last`] and
/// [`Signals::query_words`], fitted by `bench/search/fusion_fit.py fit` on the sets
/// BENCHMARKS.md marks as fitted.
const INTERCEPT: f32 = 1.289;
/// Each signal's name (as [`Fusion::lean`]'s reason says it) and coefficient.
const MODEL: [(&str, f32); 4] = [
    ("the model's nearest stood out", 2.248),
    ("the model's nearest was close", 1.074),
    ("many tools were about as close", -3.553),
    ("the query was long", -3.019),
];

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion {
            how: How::Signals,
            ..Fusion::fixed(0.5)
        }
    }
}

impl Fusion {
    /// A dense weight of `unsure` when the lexical ranking's best two scores are equal, of
    /// `sure` when it found one tool alone, and in between in proportion to the gap; each
    /// clamped to 0..1 (NaN counts as 0).
    ///
    /// ```
    /// let fusion = lazytool_runtime::Fusion::adaptive(0.8, 0.2);
    /// assert!((fusion.weight(0.5) - 0.5).abs() < 1e-6);
    /// ```
    pub fn adaptive(unsure: f32, sure: f32) -> Fusion {
        let clamp = |weight: f32| {
            if weight.is_nan() {
                0.0
            } else {
                weight.clamp(0.0, 1.0)
            }
        };
        Fusion {
            unsure: clamp(unsure),
            sure: clamp(sure),
            how: How::Gap,
            depth: DEPTH,
        }
    }

    /// The same dense weight for every query (clamped to 0..1).
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::Fusion::fixed(2.0).weight(0.7), 1.0);
    /// ```
    pub fn fixed(weight: f32) -> Fusion {
        Fusion::adaptive(weight, weight)
    }

    /// Meaning only: the lexical ranking only decides ties (for measurements).
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::Fusion::dense_only(), lazytool_runtime::Fusion::fixed(1.0));
    /// ```
    pub fn dense_only() -> Fusion {
        Fusion::fixed(1.0)
    }

    /// How many results of each ranking are fused, at least the search's limit (30 unless
    /// set; at least 1).
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::Fusion::default().with_depth(50).depth(), 50);
    /// ```
    pub fn with_depth(self, depth: usize) -> Fusion {
        Fusion {
            depth: depth.max(1),
            ..self
        }
    }

    /// How many results of each ranking are fused.
    ///
    /// ```
    /// assert_eq!(lazytool_runtime::Fusion::default().depth(), 30);
    /// ```
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The dense weight for a lexical ranking whose best two scores are apart by `gap`, a
    /// share of the best (0: equal, 1: a single result).
    ///
    /// ```
    /// let fusion = lazytool_runtime::Fusion::adaptive(0.6, 0.2);
    /// assert_eq!(fusion.weight(0.0), 0.6);
    /// assert!((fusion.weight(1.0) - 0.2).abs() < 1e-6);
    /// ```
    pub fn weight(&self, gap: f32) -> f32 {
        let gap = if gap.is_nan() {
            0.0
        } else {
            gap.clamp(0.0, 1.0)
        };
        self.unsure + (self.sure - self.unsure) * gap
    }

    /// The weights of issue 40 (before issue 52's default): `w` for each catalog from how alike
    /// its tools are to the model, the mean cosine between a tool and its nearest other tool
    /// (0.2 at 0.8 and above, 0.7 at 0.45 and below, linearly in between). Kept to measure the
    /// default against.
    ///
    /// ```
    /// use lazytool_runtime::Fusion;
    ///
    /// assert!(Fusion::by_catalog().catalog_weight(0.9) < Fusion::by_catalog().catalog_weight(0.4));
    /// ```
    pub fn by_catalog() -> Fusion {
        Fusion {
            how: How::Catalog,
            ..Fusion::fixed(ALIKE_WEIGHT)
        }
    }

    /// The dense weight [`Fusion::by_catalog`] gives a catalog whose tools' mean cosine to
    /// their nearest other tool is `alike` (otherwise [`Fusion::weight`] at a gap of 0).
    ///
    /// ```
    /// use lazytool_runtime::Fusion;
    ///
    /// assert!((Fusion::by_catalog().catalog_weight(0.95) - 0.2).abs() < 1e-6);
    /// assert!((Fusion::by_catalog().catalog_weight(0.3) - 0.7).abs() < 1e-6);
    /// assert_eq!(Fusion::fixed(0.4).catalog_weight(0.3), 0.4);
    /// ```
    pub fn catalog_weight(&self, alike: f32) -> f32 {
        if self.how != How::Catalog {
            return self.weight(0.0);
        }
        let alike = if alike.is_nan() { ALIKE } else { alike };
        let share = ((ALIKE - alike) / (ALIKE - DISTINCT)).clamp(0.0, 1.0);
        ALIKE_WEIGHT + (DISTINCT_WEIGHT - ALIKE_WEIGHT) * share
    }

    /// The dense weight for a query whose rankings say `signals`, and why. Meaning only
    /// where the words found nothing.
    ///
    /// ```
    /// use lazytool_runtime::{Fusion, Signals};
    ///
    /// let nothing = Signals::of(&[], &[(0, 0.5), (1, 0.4)], 0.5);
    /// assert_eq!(Fusion::default().lean(nothing).weight, 1.0);
    /// assert_eq!(Fusion::fixed(0.25).lean(Signals::of(&[(0, 1.0)], &[], 0.5)).weight, 0.25);
    /// ```
    pub fn lean(&self, signals: Signals) -> Leaning {
        if signals.lexical_found == 0.0 {
            return Leaning {
                signals,
                weight: 1.0,
                reason: "meaning only: the words found nothing".to_owned(),
            };
        }
        let (weight, reason) = match self.how {
            How::Gap => (
                self.weight(signals.lexical_gap),
                format!("by the words' gap {:.2}", signals.lexical_gap),
            ),
            How::Catalog => (
                self.catalog_weight(signals.alike),
                format!("by the catalog: its tools alike {:.2}", signals.alike),
            ),
            How::Signals => return lean_by_model(signals),
        };
        Leaning {
            signals,
            weight,
            reason,
        }
    }

    /// The two rankings' results fused, best first, at most `limit`: `lexical` with its
    /// scores and `dense` with its cosines, each best first, for `query` in a catalog whose
    /// tools' mean nearest cosine is `alike`; with how they were weighed.
    pub(crate) fn fuse(
        &self,
        query: &str,
        lexical: &[(usize, f32)],
        dense: &[(usize, f32)],
        limit: usize,
        alike: f32,
    ) -> (Vec<usize>, Leaning) {
        let lexical = &lexical[..lexical.len().min(self.depth)];
        let dense = &dense[..dense.len().min(self.depth)];
        let mut leaning = self.lean(Signals::of(lexical, dense, alike).with_query(query));
        let weight = leaning.weight;
        let best = lexical.first().map_or(0.0, |&(_, score)| score);
        let (top, bottom) = match (dense.first(), dense.last()) {
            (Some(&(_, top)), Some(&(_, bottom))) => (top, bottom),
            _ => (0.0, 0.0),
        };
        let spread = top - bottom;
        // (document, fused score, lexical rank)
        let mut fused: Vec<(usize, f32, usize)> = Vec::with_capacity(lexical.len() + dense.len());
        if best > 0.0 {
            for (rank, &(document, score)) in lexical.iter().enumerate() {
                fused.push((document, (1.0 - weight) * score / best, rank));
            }
        }
        for &(document, cosine) in dense {
            let scaled = if spread > 0.0 {
                (cosine - bottom) / spread
            } else {
                1.0
            };
            match fused.iter_mut().find(|(found, _, _)| *found == document) {
                Some((_, score, _)) => *score += weight * scaled,
                None => fused.push((document, weight * scaled, usize::MAX)),
            }
        }
        fused.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
        if self.how == How::Signals {
            keep_leaned_first(&mut fused, &mut leaning, lexical, dense);
        }
        fused.truncate(limit);
        (
            fused.into_iter().map(|(document, _, _)| document).collect(),
            leaning,
        )
    }
}

/// The default's guarantee that a query never loses, in its first [`KEPT_PLACES`], the first
/// result of the ranking it leaned toward: when the other ranking's runners-up pushed it
/// below, it takes the last of those places (the ones above it keep theirs). Where meaning
/// leaned (weight 0.5 and above) and the model's nearest tool was what the question wanted,
/// two close lexical matches could otherwise outvote it (BENCHMARKS.md, "Search by meaning").
fn keep_leaned_first(
    fused: &mut [(usize, f32, usize)],
    leaning: &mut Leaning,
    lexical: &[(usize, f32)],
    dense: &[(usize, f32)],
) {
    let (first, side) = if leaning.weight >= 0.5 {
        match dense.first() {
            Some(&(document, _)) => (document, "meaning"),
            None => return,
        }
    } else {
        match lexical.first() {
            Some(&(document, score)) if score > 0.0 => (document, "words"),
            _ => return,
        }
    };
    let Some(at) = fused.iter().position(|&(document, _, _)| document == first) else {
        return;
    };
    if at >= KEPT_PLACES {
        fused[KEPT_PLACES - 1..=at].rotate_right(1);
        leaning.reason.push_str(&format!(
            "; {side}'s first kept in the first {KEPT_PLACES} (it was {})",
            at + 1
        ));
    }
}

/// The default's weight for `signals` by [`MODEL`], and a reason naming the signals that
/// pushed it most, each with its share of the logit.
fn lean_by_model(signals: Signals) -> Leaning {
    let values = [
        signals.dense_gap,
        signals.dense_best,
        signals.dense_last,
        signals.query_words,
    ];
    let mut logit = INTERCEPT;
    let mut pushes = [(0.0f32, ""); MODEL.len()];
    for ((push, &(name, coefficient)), value) in pushes.iter_mut().zip(&MODEL).zip(values) {
        *push = (coefficient * value, name);
        logit += push.0;
    }
    let weight = 1.0 / (1.0 + (-logit).exp());
    let weight = if weight.is_nan() { 0.5 } else { weight };
    let toward = if weight >= 0.5 { "meaning" } else { "words" };
    // The signals that pushed toward the side it leaned, strongest first.
    pushes.sort_unstable_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    let why: Vec<String> = pushes
        .iter()
        .filter(|(push, _)| (*push >= 0.0) == (weight >= 0.5) && push.abs() >= 0.05)
        .take(2)
        .map(|(push, name)| format!("{name} ({push:+.2})"))
        .collect();
    let reason = if why.is_empty() {
        format!("{toward} ({weight:.2}): no signal stood out")
    } else {
        format!("{toward} ({weight:.2}): {}", why.join(", "))
    };
    Leaning {
        signals,
        weight,
        reason,
    }
}
