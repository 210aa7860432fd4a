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
pub(crate) const EXACT_SCAN_UP_TO: usize = 1_000;
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
        let (distances, histogram) = self.distances(&code);
        let most = histogram.len().saturating_sub(1);
        let mut chosen = Vec::with_capacity(count.min(distances.len()));
        let (mut low, mut seen) = (0, 0);
        // Widens the cut until enough allowed rows are in: once when every row is allowed,
        // and at least doubling the rows seen each time when few are.
        while chosen.len() < count && low <= most {
            let wanted = (count - chosen.len()).max(seen);
            let mut high = low;
            let mut within = 0;
            while high <= most && within < wanted {
                within += histogram[high] as usize;
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

    /// Each row's Hamming distance to `code`, and how many rows are at each distance (0 to
    /// 64 × `words`). The usual widths get a loop of their own, which the compiler unrolls;
    /// both run with the CPU's popcount where it has one (the default x86-64 target does not).
    fn distances(&self, code: &[u64]) -> (Vec<u16>, Vec<u32>) {
        match self.words {
            6 => self.distances_of::<6>(code),
            12 => self.distances_of::<12>(code),
            16 => self.distances_of::<16>(code),
            24 => self.distances_of::<24>(code),
            words => {
                let rows = self.bits.chunks_exact(words.max(1));
                Self::tally(words * 64, rows, |row| hamming(row, code))
            }
        }
    }

    fn distances_of<const WORDS: usize>(&self, code: &[u64]) -> (Vec<u16>, Vec<u32>) {
        let (rows, _) = self.bits.as_chunks::<WORDS>();
        let code: [u64; WORDS] = std::array::from_fn(|k| code.get(k).copied().unwrap_or(0));
        Self::tally(WORDS * 64, rows.iter(), |row| hamming(row, &code))
    }

    #[inline(always)]
    fn tally<'a, Row: 'a + ?Sized>(
        most: usize,
        rows: impl ExactSizeIterator<Item = &'a Row>,
        distance: impl Fn(&Row) -> u32,
    ) -> (Vec<u16>, Vec<u32>) {
        let mut distances = Vec::with_capacity(rows.len());
        let mut histogram = vec![0u32; most + 1];
        pulp::Arch::new().dispatch(|| {
            for row in rows {
                let bits = distance(row);
                // At most 16,384 dimensions (MAX_DIMENSION): it fits.
                distances.push(u16::try_from(bits).unwrap_or(u16::MAX));
                if let Some(rows) = histogram.get_mut(bits as usize) {
                    *rows += 1;
                }
            }
        });
        (distances, histogram)
    }
}

/// How many bits of `row` and `code` differ.
#[inline(always)]
fn hamming(row: &[u64], code: &[u64]) -> u32 {
    (row.iter().zip(code))
        .map(|(a, b)| (a ^ b).count_ones())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::SignCodes;

    #[test]
    fn every_width_counts_the_dimensions_on_either_side_of_the_mean() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut value = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        // The unrolled widths (6, 12, 16 and 24 words) and others, whole words or not.
        for dimension in [1, 64, 100, 384, 768, 1000, 1024, 1536, 2000] {
            let values: Vec<f32> = (0..37 * dimension).map(|_| value()).collect();
            let codes = SignCodes::new(dimension, &values);
            let query: Vec<f32> = (0..dimension).map(|_| value()).collect();
            let code: Vec<u64> = codes.code(&query).collect();
            let (distances, histogram) = codes.distances(&code);
            let above = |row: &[f32]| -> Vec<bool> {
                row.iter().zip(&codes.mean).map(|(v, m)| v > m).collect()
            };
            let query_above = above(&query);
            let expected: Vec<u16> = (values.chunks_exact(dimension))
                .map(|row| {
                    let differ = above(row)
                        .into_iter()
                        .zip(&query_above)
                        .filter(|(a, b)| a != *b);
                    differ.count() as u16
                })
                .collect();
            assert_eq!(distances, expected, "{dimension} dimensions");
            assert_eq!(histogram.len(), dimension.div_ceil(64) * 64 + 1);
            for (distance, &rows) in histogram.iter().enumerate() {
                let counted = expected.iter().filter(|&&d| usize::from(d) == distance);
                assert_eq!(rows as usize, counted.count(), "{dimension} dimensions");
            }
        }
    }
}
