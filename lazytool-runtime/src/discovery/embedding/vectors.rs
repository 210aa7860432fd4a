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
        let row = |at: usize| &self.values[at * self.dimension..(at + 1) * self.dimension];
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
        match &self.codes {
            Some(codes) => {
                let count = self.prefilter.candidates(self.len(), depth);
                let candidates = codes.candidates(query, count, allowed);
                self.best(query, depth, candidates.into_iter(), |_| true)
            }
            None => self.best(query, depth, 0..self.len(), allowed),
        }
    }

    /// [`Vectors::nearest`] among `rows` only, by their exact cosines.
    fn best(
        &self,
        query: &[f32],
        depth: usize,
        rows: impl Iterator<Item = usize>,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut best: Vec<(usize, f32)> = Vec::with_capacity(depth * 2 + 1);
        let mut floor = f32::NEG_INFINITY;
        for row in rows {
            let Some(values) = self
                .values
                .get(row * self.dimension..(row + 1) * self.dimension)
            else {
                continue;
            };
            let cosine = dot(values, query);
            if cosine < floor || !allowed(row) {
                continue;
            }
            best.push((row, cosine));
            if best.len() == depth * 2 {
                best.select_nth_unstable_by(depth - 1, order);
                best.truncate(depth);
                floor = best
                    .iter()
                    .map(|&(_, cosine)| cosine)
                    .fold(f32::INFINITY, f32::min);
            }
        }
        best.sort_unstable_by(order);
        best.truncate(depth);
        best
    }
}

/// The dot product, in eight lanes so that the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = (a_chunks.remainder().iter())
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}
