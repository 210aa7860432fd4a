//! Vectors as the search keeps them: checked, normalised, in one flat matrix ([`Vectors`]).

use super::EmbedError;
use super::sign_codes::{Prefilter, SignCodes};

/// The longest vector accepted: larger models' are 4,096 wide.
pub(crate) const MAX_DIMENSION: usize = 16_384;

/// Checks `vectors` (one per text of `expected` texts, all `dimension` wide if given) and
/// normalises each to unit length.
pub(crate) fn checked(
    mut vectors: Vec<Vec<f32>>,
    expected: usize,
    dimension: Option<usize>,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if vectors.len() != expected {
        return Err(EmbedError::new(format!(
            "{} vectors for {expected} texts",
            vectors.len()
        )));
    }
    let dimension = dimension.or_else(|| vectors.first().map(Vec::len));
    for (at, vector) in vectors.iter_mut().enumerate() {
        if Some(vector.len()) != dimension || vector.is_empty() || vector.len() > MAX_DIMENSION {
            return Err(EmbedError::new(format!(
                "vector {at} has {} dimensions, not {} (at most {MAX_DIMENSION})",
                vector.len(),
                dimension.unwrap_or_default()
            )));
        }
        if vector.iter().any(|value| !value.is_finite()) {
            return Err(EmbedError::new(format!(
                "vector {at} holds a value that is not a finite number"
            )));
        }
        let norm = vector.iter().map(|value| value * value).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Err(EmbedError::new(format!("vector {at} has no length")));
        }
        vector.iter_mut().for_each(|value| *value /= norm);
    }
    Ok(vectors)
}

/// How many rows [`Vectors::alike`] compares, at most, with as many others at most
/// [`ALIKE_OTHERS`]: enough for a stable mean, cheap at 100,000 tools.
const ALIKE_SAMPLE: usize = 256;
const ALIKE_OTHERS: usize = 4096;

/// Unit vectors of one dimension, row after row.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vectors {
    dimension: usize,
    values: Vec<f32>,
    /// See [`Vectors::alike`].
    alike: f32,
    prefilter: Prefilter,
    /// Built when there are more rows than `prefilter.exact_up_to`.
    codes: Option<SignCodes>,
}

impl Vectors {
    /// The rows `rows`, each `dimension` wide (as [`checked`] leaves them).
    pub(crate) fn new<'a>(dimension: usize, rows: impl IntoIterator<Item = &'a [f32]>) -> Vectors {
        let mut values = Vec::new();
        for row in rows {
            values.extend_from_slice(row);
        }
        let mut vectors = Vectors {
            dimension,
            values,
            alike: 0.0,
            prefilter: Prefilter::default(),
            codes: None,
        };
        vectors.alike = vectors.sampled_alike();
        vectors
    }

    /// These rows searched as `prefilter` says: first by their sign codes (built now) when
    /// there are more of them than it scans exactly.
    pub(crate) fn with_prefilter(mut self, prefilter: Prefilter) -> Vectors {
        self.codes = (self.len() > prefilter.exact_up_to && self.dimension > 0)
            .then(|| SignCodes::new(self.dimension, &self.values));
        self.prefilter = prefilter;
        self
    }

    /// The bytes a row's sign code takes (0 when the rows are scanned exactly).
    #[cfg(test)]
    pub(crate) fn code_bytes_per_row(&self) -> usize {
        self.codes.as_ref().map_or(0, SignCodes::bytes_per_row)
    }

    /// How alike the rows are: the mean cosine between a row and its nearest other row,
    /// over evenly spaced samples (0 with fewer than two rows).
    pub(crate) fn alike(&self) -> f32 {
        self.alike
    }

    fn sampled_alike(&self) -> f32 {
        let count = self.len();
        if count < 2 {
            return 0.0;
        }
        let row = |at: usize| self.row(at);
        let spaced = |most: usize| (0..count.min(most)).map(move |k| k * count / count.min(most));
        let mut sum = 0.0;
        let mut sampled = 0;
        for at in spaced(ALIKE_SAMPLE) {
            let nearest = spaced(ALIKE_OTHERS)
                .filter(|&other| other != at)
                .map(|other| dot(row(at), row(other)))
                .fold(f32::NEG_INFINITY, f32::max);
            if nearest.is_finite() {
                sum += nearest;
                sampled += 1;
            }
        }
        if sampled == 0 {
            0.0
        } else {
            sum / sampled as f32
        }
    }

    pub(crate) fn dimension(&self) -> usize {
        self.dimension
    }

    pub(crate) fn len(&self) -> usize {
        self.values.len().checked_div(self.dimension).unwrap_or(0)
    }

    /// The `depth` rows closest to `query` (a unit vector as wide) among those `allowed`,
    /// with their cosines, closest first; equal cosines by row. Exact up to
    /// `prefilter.exact_up_to` rows; above, among the candidates of the sign codes.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        depth: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if query.len() != self.dimension || depth == 0 || self.dimension == 0 {
            return Vec::new();
        }
        let mut best = Best::new(depth);
        match &self.codes {
            Some(codes) => {
                let count = self.prefilter.candidates(self.len(), depth);
                let candidates = codes.candidates(query, count, allowed);
                // A few at a time: candidates lie far apart in memory, and their reads
                // overlap when their sums are computed together.
                let (groups, rest) = candidates.as_chunks::<GROUP>();
                for &at in rest {
                    best.keep(at, dot(self.row(at), query));
                }
                for group in groups {
                    let cosines = dots(query, group.map(|at| self.row(at)));
                    (group.iter())
                        .zip(cosines)
                        .for_each(|(&at, cosine)| best.keep(at, cosine));
                }
            }
            None => {
                for at in (0..self.len()).filter(|&at| allowed(at)) {
                    best.keep(at, dot(self.row(at), query));
                }
            }
        }
        best.ranked()
    }

    /// Row `at` (empty past the last).
    fn row(&self, at: usize) -> &[f32] {
        let start = at.saturating_mul(self.dimension);
        (self.values)
            .get(start..start.saturating_add(self.dimension))
            .unwrap_or_default()
    }
}

/// The `depth` closest rows seen so far, kept in at most twice as many.
struct Best {
    depth: usize,
    rows: Vec<(usize, f32)>,
    /// The cosine a row needs to be kept.
    floor: f32,
}

impl Best {
    fn new(depth: usize) -> Best {
        Best {
            depth,
            rows: Vec::with_capacity(depth * 2),
            floor: f32::NEG_INFINITY,
        }
    }

    fn order(a: &(usize, f32), b: &(usize, f32)) -> std::cmp::Ordering {
        b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
    }

    fn keep(&mut self, row: usize, cosine: f32) {
        if cosine < self.floor {
            return;
        }
        self.rows.push((row, cosine));
        if self.rows.len() >= self.depth * 2 {
            self.rows
                .select_nth_unstable_by(self.depth - 1, Best::order);
            self.rows.truncate(self.depth);
            self.floor = (self.rows.iter())
                .map(|&(_, cosine)| cosine)
                .fold(f32::INFINITY, f32::min);
        }
    }

    /// Closest first, equal cosines by row.
    fn ranked(mut self) -> Vec<(usize, f32)> {
        self.rows.sort_unstable_by(Best::order);
        self.rows.truncate(self.depth);
        self.rows
    }
}

/// How many candidates [`Vectors::nearest`] scores together.
const GROUP: usize = 4;

/// The dot product of a row and the query, in eight lanes so that the compiler vectorises it.
fn dot(row: &[f32], query: &[f32]) -> f32 {
    let (chunks, query_tail) = query.as_chunks::<8>();
    let (values, tail) = row.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (chunk, values) in chunks.iter().zip(values) {
        add(&mut lanes, values, chunk);
    }
    total(&lanes, tail, query_tail)
}

/// [`dot`] of four rows at once, each added in the same order as [`dot`] adds it, so that a
/// row's cosine is the same to the bit whichever way it is computed.
fn dots(query: &[f32], rows: [&[f32]; GROUP]) -> [f32; GROUP] {
    let (chunks, query_tail) = query.as_chunks::<8>();
    let [a, b, c, d] = rows.map(|row| row.as_chunks::<8>());
    let mut lanes = [[0.0f32; 8]; GROUP];
    let rows = chunks.iter().zip(a.0).zip(b.0).zip(c.0).zip(d.0);
    for ((((chunk, a), b), c), d) in rows {
        add(&mut lanes[0], a, chunk);
        add(&mut lanes[1], b, chunk);
        add(&mut lanes[2], c, chunk);
        add(&mut lanes[3], d, chunk);
    }
    [
        total(&lanes[0], a.1, query_tail),
        total(&lanes[1], b.1, query_tail),
        total(&lanes[2], c.1, query_tail),
        total(&lanes[3], d.1, query_tail),
    ]
}

#[inline(always)]
fn add(lanes: &mut [f32; 8], values: &[f32; 8], query: &[f32; 8]) {
    for lane in 0..8 {
        lanes[lane] += values[lane] * query[lane];
    }
}

#[inline(always)]
fn total(lanes: &[f32; 8], tail: &[f32], query_tail: &[f32]) -> f32 {
    let tail: f32 = tail.iter().zip(query_tail).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}
