//! The dense ranking's first pass over a large catalog: [`SignCodes`], and when it is taken
//! ([`Prefilter`]).
//!
//! Binary quantization with rescoring (what Qdrant calls oversampling,
//! <https://qdrant.tech/articles/binary-quantization/>): each row is kept as well as one bit a
//! dimension, the sign of its value less the rows' mean (centred, because a sentence model's
//! vectors share a direction that would set the same bits in every row); a query's candidates
//! are the rows nearest by Hamming distance, and only they are scored by their exact cosine.
//! At 384 dimensions the pass reads 48 bytes a row instead of 1,536.

/// When the dense ranking scans every row exactly and how many candidates the sign codes
/// choose otherwise: see [`Embeddings::with_exact_scan_up_to`](super::Embeddings::with_exact_scan_up_to)
/// and [`Embeddings::with_candidates`](super::Embeddings::with_candidates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Prefilter {
    pub(crate) exact_up_to: usize,
    pub(crate) per_result: usize,
    pub(crate) one_in: usize,
}

/// Catalogs of up to this many tools are scanned exactly.
pub(crate) const EXACT_SCAN_UP_TO: usize = 20_000;
/// Candidates per result asked for, and the share of the catalog, whichever is more.
pub(crate) const PER_RESULT: usize = 16;
pub(crate) const ONE_IN: usize = 32;

impl Default for Prefilter {
    fn default() -> Prefilter {
        Prefilter {
            exact_up_to: EXACT_SCAN_UP_TO,
            per_result: PER_RESULT,
            one_in: ONE_IN,
        }
    }
}

impl Prefilter {
    /// How many candidates the sign codes choose for the `depth` nearest of `rows`.
    pub(crate) fn candidates(&self, rows: usize, depth: usize) -> usize {
        depth
            .saturating_mul(self.per_result.max(1))
            .max(rows / self.one_in.max(1))
    }
}

/// The rows' sign bits, `words` 64-bit words a row, and the mean they are centred on.
#[derive(Clone, Debug)]
pub(crate) struct SignCodes {
    words: usize,
    mean: Vec<f32>,
    bits: Vec<u64>,
}

impl SignCodes {
    /// The codes of `values`, rows of `dimension` (at least 1) one after another.
    pub(crate) fn new(dimension: usize, values: &[f32]) -> SignCodes {
        let rows = values.chunks_exact(dimension.max(1));
        let count = rows.len().max(1) as f32;
        let mut mean = vec![0.0f32; dimension];
        for row in rows.clone() {
            mean.iter_mut()
                .zip(row)
                .for_each(|(sum, value)| *sum += value);
        }
        mean.iter_mut().for_each(|sum| *sum /= count);
        let mut codes = SignCodes {
            words: dimension.div_ceil(64),
            mean,
            bits: Vec::new(),
        };
        let mut bits = Vec::with_capacity(rows.len() * codes.words);
        for row in rows {
            bits.extend(codes.code(row));
        }
        codes.bits = bits;
        codes
    }

    /// The memory the codes take per row, in bytes.
    #[cfg(test)]
    pub(crate) fn bytes_per_row(&self) -> usize {
        self.words * 8
    }

    /// One bit a dimension, set where `vector` is above the mean.
    fn code<'a>(&'a self, vector: &'a [f32]) -> impl Iterator<Item = u64> + 'a {
        (vector.chunks(64).zip(self.mean.chunks(64))).map(|(values, means)| {
            (values.iter().zip(means).enumerate())
                .filter(|(_, (value, mean))| value > mean)
                .fold(0u64, |word, (bit, _)| word | 1 << bit)
        })
    }

    /// At least `count` of the rows `allowed` nearest to `query` by Hamming distance (all of
    /// them if fewer are allowed), in row order within a distance; every row at the last
    /// distance taken is taken, so that the choice does not depend on the rows' order.
    pub(crate) fn candidates(
        &self,
        query: &[f32],
        count: usize,
        allowed: impl Fn(usize) -> bool,
    ) -> Vec<usize> {
        let code: Vec<u64> = self.code(query).collect();
        let most = code.len() * 64;
        let distances: Vec<u16> = (self.bits.chunks_exact(self.words))
            .map(|row| {
                let bits: u32 = (row.iter().zip(&code))
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                // At most 16,384 dimensions (MAX_DIMENSION): it fits.
                u16::try_from(bits).unwrap_or(u16::MAX)
            })
            .collect();
        let mut histogram = vec![0usize; most + 1];
        for &distance in &distances {
            if let Some(rows) = histogram.get_mut(usize::from(distance)) {
                *rows += 1;
            }
        }
        let mut chosen = Vec::with_capacity(count.min(distances.len()));
        let (mut low, mut seen) = (0, 0);
        // Widens the cut until enough allowed rows are in: once when every row is allowed,
        // and at least doubling the rows seen each time when few are.
        while chosen.len() < count && low <= most {
            let wanted = (count - chosen.len()).max(seen);
            let mut high = low;
            let mut within = 0;
            while high <= most && within < wanted {
                within += histogram[high];
                high += 1;
            }
            seen += within;
            for (row, &distance) in distances.iter().enumerate() {
                if (low..high).contains(&usize::from(distance)) && allowed(row) {
                    chosen.push(row);
                }
            }
            low = high;
        }
        chosen
    }
}
