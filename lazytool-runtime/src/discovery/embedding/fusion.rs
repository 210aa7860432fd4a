//! How the lexical and the dense rankings are combined: [`Fusion`].

/// How much the dense ranking (by meaning) counts against the lexical one (by words): a
/// weight between 0 (words only) and 1 (meaning only).
///
/// Each ranking's scores are scaled to 0..1 (the lexical ones by the best, the cosines
/// between the best and the last of the [`Fusion::depth`] nearest), and added with weights
/// `1 - w` and `w`. The default sets `w` for each catalog from how alike its tools are to the
/// model: the mean cosine between a tool and its nearest other tool (on a sample). In a
/// catalog of near-identical tools (versions of one, the same verbs on many objects) the
/// model hardly tells them apart and words decide (`w` = 0.2 at a mean of 0.8 and above); in
/// one of distinct tools described in prose, meaning does (`w` = 0.7 at 0.45 and below),
/// linearly in between. [`Fusion::adaptive`] sets `w` for each query instead, from the gap
/// between the lexical ranking's best two scores; [`Fusion::fixed`] once for all.
/// BENCHMARKS.md ("Search by meaning") has the measurements behind the choice.
///
/// ```
/// use lazytool_runtime::Fusion;
///
/// let by_catalog = Fusion::default();
/// assert!(by_catalog.catalog_weight(0.9) < by_catalog.catalog_weight(0.4));
/// assert_eq!(Fusion::fixed(0.3).weight(0.0), 0.3);
/// assert_eq!(Fusion::dense_only().weight(1.0), 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fusion {
    unsure: f32,
    sure: f32,
    /// Whether `w` comes from the catalog (the default) rather than from `unsure` and `sure`.
    by_catalog: bool,
    depth: usize,
}

/// The dense weight of a catalog whose tools are alike to the model (mean nearest cosine at
/// [`ALIKE`] and above), and of one whose tools are distinct ([`DISTINCT`] and below).
const ALIKE_WEIGHT: f32 = 0.2;
const DISTINCT_WEIGHT: f32 = 0.7;
const ALIKE: f32 = 0.8;
const DISTINCT: f32 = 0.45;
/// How many results of each ranking are fused.
const DEPTH: usize = 30;

impl Default for Fusion {
    fn default() -> Fusion {
        Fusion {
            by_catalog: true,
            ..Fusion::fixed(ALIKE_WEIGHT)
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
            by_catalog: false,
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

    /// The dense weight the default gives a catalog whose tools' mean cosine to their
    /// nearest other tool is `alike` (by catalog; otherwise [`Fusion::weight`] at a gap of 0).
    ///
    /// ```
    /// use lazytool_runtime::Fusion;
    ///
    /// assert!((Fusion::default().catalog_weight(0.95) - 0.2).abs() < 1e-6);
    /// assert!((Fusion::default().catalog_weight(0.3) - 0.7).abs() < 1e-6);
    /// assert_eq!(Fusion::fixed(0.4).catalog_weight(0.3), 0.4);
    /// ```
    pub fn catalog_weight(&self, alike: f32) -> f32 {
        if !self.by_catalog {
            return self.weight(0.0);
        }
        let alike = if alike.is_nan() { ALIKE } else { alike };
        let share = ((ALIKE - alike) / (ALIKE - DISTINCT)).clamp(0.0, 1.0);
        ALIKE_WEIGHT + (DISTINCT_WEIGHT - ALIKE_WEIGHT) * share
    }

    /// The two rankings' results fused, best first, at most `limit`: `lexical` with its
    /// scores and `dense` with its cosines, each best first, in a catalog whose tools' mean
    /// nearest cosine is `alike`.
    pub(crate) fn fuse(
        &self,
        lexical: &[(usize, f32)],
        dense: &[(usize, f32)],
        limit: usize,
        alike: f32,
    ) -> Vec<usize> {
        let lexical = &lexical[..lexical.len().min(self.depth)];
        let dense = &dense[..dense.len().min(self.depth)];
        let best = lexical.first().map_or(0.0, |&(_, score)| score);
        let weight = if best <= 0.0 {
            1.0
        } else if self.by_catalog {
            self.catalog_weight(alike)
        } else {
            let second = lexical.get(1).map_or(0.0, |&(_, score)| score);
            self.weight((best - second) / best)
        };
        let (top, bottom) = match (dense.first(), dense.last()) {
            (Some(&(_, top)), Some(&(_, bottom))) => (top, bottom),
            _ => (0.0, 0.0),
        };
        let spread = top - bottom;
        // (document, fused score, lexical rank)
        let mut fused: Vec<(usize, f32, usize)> = Vec::with_capacity(lexical.len() + dense.len());
        for (rank, &(document, score)) in lexical.iter().enumerate() {
            fused.push((document, (1.0 - weight) * score / best, rank));
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
        fused.truncate(limit);
        fused.into_iter().map(|(document, _, _)| document).collect()
    }
}
