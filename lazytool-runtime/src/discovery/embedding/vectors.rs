//! Vectors as the search keeps them: checked, normalised, in one flat matrix ([`Vectors`]).

use super::EmbedError;

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

/// Unit vectors of one dimension, row after row.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vectors {
    dimension: usize,
    values: Vec<f32>,
}

impl Vectors {
    /// The rows `rows`, each `dimension` wide (as [`checked`] leaves them).
    pub(crate) fn new<'a>(dimension: usize, rows: impl IntoIterator<Item = &'a [f32]>) -> Vectors {
        let mut values = Vec::new();
        for row in rows {
            values.extend_from_slice(row);
        }
        Vectors { dimension, values }
    }

    pub(crate) fn dimension(&self) -> usize {
        self.dimension
    }

    pub(crate) fn len(&self) -> usize {
        self.values.len().checked_div(self.dimension).unwrap_or(0)
    }

    /// The `depth` rows closest to `query` (a unit vector as wide) among those `allowed`,
    /// with their cosines, closest first; equal cosines by row.
    pub(crate) fn nearest(
        &self,
        query: &[f32],
        depth: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if query.len() != self.dimension || depth == 0 || self.dimension == 0 {
            return Vec::new();
        }
        let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut best: Vec<(usize, f32)> = Vec::with_capacity(depth * 2 + 1);
        let mut floor = f32::NEG_INFINITY;
        for (row, values) in self.values.chunks_exact(self.dimension).enumerate() {
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
