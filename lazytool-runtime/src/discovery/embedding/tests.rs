use super::Fusion;

/// A fusion's ranking without its leaning.
struct FusedOnly(Fusion);

impl FusedOnly {
    fn fuse(
        &self,
        lexical: &[(usize, f32)],
        dense: &[(usize, f32)],
        limit: usize,
        alike: f32,
    ) -> Vec<usize> {
        self.0.fuse("", lexical, dense, limit, alike).0
    }
}
use super::sign_codes::{ONE_IN, Prefilter};
use super::vectors::{Vectors, checked};

#[test]
fn vectors_are_checked_and_normalised() {
    let fine = checked(vec![vec![3.0, 4.0]], 1, None).expect("fine");
    assert_eq!(fine, [[0.6, 0.8]]);
    let error = |vectors: Vec<Vec<f32>>, expected, dimension| {
        checked(vectors, expected, dimension)
            .map(|_| ())
            .expect_err("a bad vector")
            .to_string()
    };
    assert_eq!(error(vec![vec![1.0]], 2, None), "1 vectors for 2 texts");
    assert_eq!(
        error(vec![vec![1.0, 0.0], vec![1.0]], 2, None),
        "vector 1 has 1 dimensions, not 2 (at most 16384)"
    );
    assert_eq!(
        error(vec![vec![1.0, f32::INFINITY]], 1, None),
        "vector 0 holds a value that is not a finite number"
    );
    assert_eq!(
        error(vec![vec![0.0, 0.0]], 1, None),
        "vector 0 has no length"
    );
    assert_eq!(
        error(vec![vec![]], 1, None),
        "vector 0 has 0 dimensions, not 0 (at most 16384)"
    );
}

#[test]
fn the_nearest_vectors_come_first_among_those_allowed() {
    let rows = checked(
        vec![
            vec![1.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 1.0],
            vec![-1.0, 0.2],
        ],
        4,
        None,
    )
    .expect("fine");
    let vectors = Vectors::new(2, rows.iter().map(Vec::as_slice));
    let nearest = |depth, allowed: &dyn Fn(usize) -> bool| -> Vec<usize> {
        (vectors.nearest(&[1.0, 0.0], depth, allowed).into_iter())
            .map(|(row, _)| row)
            .collect()
    };
    assert_eq!(nearest(10, &|_| true), [0, 2, 1, 3]);
    assert_eq!(nearest(2, &|_| true), [0, 2]);
    assert_eq!(nearest(2, &|row| row != 0), [2, 1]);
    assert!(vectors.nearest(&[1.0], 2, |_| true).is_empty());
}

#[test]
fn a_rows_cosine_is_the_same_to_the_bit_however_its_rows_are_grouped() {
    let rows: Vec<Vec<f32>> = (0..11)
        .map(|row| {
            (0..37)
                .map(|k| ((row * 37 + k) as f32 * 0.37).sin())
                .collect()
        })
        .collect();
    let rows = checked(rows, 11, None).expect("fine");
    let exact = Vectors::new(37, rows.iter().map(Vec::as_slice));
    // Every row a candidate, scored four at a time with the rest one by one.
    let grouped = exact.clone().with_prefilter(Prefilter {
        exact_up_to: 0,
        ..Prefilter::default()
    });
    let bits = |nearest: Vec<(usize, f32)>| -> Vec<(usize, u32)> {
        (nearest.into_iter())
            .map(|(row, cosine)| (row, cosine.to_bits()))
            .collect()
    };
    for query in [&rows[5], &rows[0]] {
        for left_out in [None, Some(0), Some(7)] {
            let allowed = |row: usize| Some(row) != left_out;
            let want = bits(exact.nearest(query, 11, allowed));
            assert_eq!(want.len(), 11 - usize::from(left_out.is_some()));
            assert_eq!(bits(grouped.nearest(query, 11, allowed)), want);
        }
    }
}

#[test]
fn fusion_follows_the_words_when_they_are_sure_and_meaning_when_not() {
    let adaptive = Fusion::adaptive(0.9, 0.1);
    let fusion = FusedOnly(adaptive);
    let dense = [(2, 0.9), (1, 0.5), (0, 0.1)];
    // One tool far ahead by its words: it stays first.
    assert_eq!(
        fusion.fuse(&[(0, 10.0), (1, 1.0)], &dense, 3, 0.5),
        [0, 2, 1]
    );
    // Words that cannot choose: meaning decides.
    assert_eq!(
        fusion.fuse(&[(0, 5.0), (1, 5.0)], &dense, 3, 0.5),
        [2, 1, 0]
    );
    // No words matched: meaning alone.
    assert_eq!(fusion.fuse(&[], &dense, 2, 0.5), [2, 1]);
    // No vectors: words alone.
    assert_eq!(fusion.fuse(&[(1, 3.0), (0, 2.0)], &[], 5, 0.5), [1, 0]);
    assert_eq!(Fusion::adaptive(f32::NAN, 7.0).weight(1.0), 1.0);
}

#[test]
fn by_catalog_words_decide_among_alike_tools_and_meaning_among_distinct_ones() {
    let fusion = FusedOnly(Fusion::by_catalog());
    let lexical = [(0, 10.0), (1, 6.0)];
    let dense = [(1, 0.9), (0, 0.5), (2, 0.1)];
    // Tools the model can hardly tell apart (versions of one): the words' order.
    assert_eq!(fusion.fuse(&lexical, &dense, 2, 0.9), [0, 1]);
    // Distinct tools: the meaning's.
    assert_eq!(fusion.fuse(&lexical, &dense, 2, 0.3), [1, 0]);
    let rows = checked(
        vec![vec![1.0, 0.0], vec![0.99, 0.1], vec![0.0, 1.0]],
        3,
        None,
    )
    .expect("fine");
    let vectors = Vectors::new(2, rows.iter().map(Vec::as_slice));
    // Nearest others: 0.995, 0.995, 0.1.
    assert!(
        (vectors.alike() - 0.697).abs() < 0.01,
        "{}",
        vectors.alike()
    );
}

/// Unit vectors of `dimension` from a seeded xorshift: `clusters` random centres sharing one
/// direction (as a sentence model's vectors do), and `rows` around them.
struct Clustered {
    state: u64,
    dimension: usize,
    shared: Vec<f32>,
    centres: Vec<Vec<f32>>,
}

impl Clustered {
    fn new(seed: u64, dimension: usize, clusters: usize) -> Clustered {
        let mut this = Clustered {
            state: seed,
            dimension,
            shared: Vec::new(),
            centres: Vec::new(),
        };
        this.shared = this.random();
        this.centres = (0..clusters).map(|_| this.random()).collect();
        this
    }

    fn random(&mut self) -> Vec<f32> {
        (0..self.dimension)
            .map(|_| {
                self.state ^= self.state << 13;
                self.state ^= self.state >> 7;
                self.state ^= self.state << 17;
                (self.state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect()
    }

    /// A unit vector near the centre `cluster`.
    fn near(&mut self, cluster: usize) -> Vec<f32> {
        let noise = self.random();
        let centre = &self.centres[cluster % self.centres.len()];
        let vector = (self.shared.iter().zip(centre).zip(noise))
            .map(|((shared, centre), noise)| 0.8 * shared + centre + 1.2 * noise)
            .collect();
        checked(vec![vector], 1, None).expect("finite").remove(0)
    }
}

#[test]
fn sign_codes_then_exact_cosines_find_the_exact_nearest() {
    const ROWS: usize = 6_000;
    const QUERIES: usize = 200;
    const DEPTH: usize = 30;
    let mut data = Clustered::new(0x9e37_79b9_7f4a_7c15, 384, 150);
    let rows: Vec<Vec<f32>> = (0..ROWS).map(|row| data.near(row)).collect();
    let exact = Vectors::new(384, rows.iter().map(Vec::as_slice));
    // As few candidates as the defaults choose among 100,000 rows: one in 32.
    let prefiltered = exact.clone().with_prefilter(Prefilter {
        exact_up_to: 0,
        per_result: 1,
        one_in: ONE_IN,
    });
    assert_eq!(exact.code_bytes_per_row(), 0);
    assert_eq!(prefiltered.code_bytes_per_row(), 48);
    let (mut found, mut same) = (0, 0);
    for query in 0..QUERIES {
        let query = data.near(query * 7);
        let want = exact.nearest(&query, DEPTH, |_| true);
        let got = prefiltered.nearest(&query, DEPTH, |_| true);
        assert_eq!(got.len(), DEPTH);
        found += got.iter().filter(|hit| want.contains(hit)).count();
        same += usize::from(got == want);
    }
    let recall = found as f64 / (QUERIES * DEPTH) as f64;
    assert!(recall >= 0.95, "recall@{DEPTH} {recall}");
    // Measured: 0.9998, and 199 of 200 rankings equal.
    assert!(
        same >= QUERIES * 9 / 10,
        "{same} of {QUERIES} rankings equal"
    );
}

#[test]
fn sign_codes_keep_the_allowed_rows_only_and_enough_of_them() {
    let mut data = Clustered::new(7, 64, 10);
    let rows: Vec<Vec<f32>> = (0..2_000).map(|row| data.near(row)).collect();
    let exact = Vectors::new(64, rows.iter().map(Vec::as_slice));
    let prefiltered = exact.clone().with_prefilter(Prefilter {
        exact_up_to: 1_999,
        ..Prefilter::default()
    });
    assert_eq!(prefiltered.code_bytes_per_row(), 8);
    let query = data.near(3);
    // One row in a hundred allowed: fewer than the candidates asked for, all of them found.
    let allowed = |row: usize| row % 100 == 42;
    let got = prefiltered.nearest(&query, 30, allowed);
    assert_eq!(got, exact.nearest(&query, 30, allowed));
    assert_eq!(got.len(), 20);
    assert!(got.iter().all(|&(row, _)| allowed(row)));
    // Not as wide as the rows: nothing, as the exact scan answers.
    assert!(prefiltered.nearest(&query[..10], 30, |_| true).is_empty());
}

#[test]
fn by_default_meaning_decides_unless_the_querys_neighbourhood_is_crowded_or_it_is_long() {
    let fusion = FusedOnly(Fusion::default());
    let lexical = [(0, 10.0), (1, 6.0)];
    // The model's nearest far ahead of the rest: meaning decides.
    let distinct = [(1, 0.8), (0, 0.3), (2, 0.1)];
    assert_eq!(fusion.fuse(&lexical, &distinct, 2, 0.5), [1, 0]);
    // Thirty tools about as close as the nearest: the words decide.
    let crowded: Vec<(usize, f32)> = [(1, 0.80), (0, 0.80)]
        .into_iter()
        .chain((2..30).map(|document| (document, 0.79)))
        .collect();
    assert_eq!(fusion.fuse(&lexical, &crowded, 2, 0.5), [0, 1]);
    let leaning = Fusion::default().lean(super::Signals::of(&lexical, &crowded, 0.5));
    assert!(leaning.weight < 0.5, "{leaning:?}");
    assert!(
        leaning.reason.starts_with("words") && leaning.reason.contains("about as close"),
        "{}",
        leaning.reason
    );
    // A long request of several parts: the words decide where meaning would alone.
    let long = "Book a car at the airport tomorrow at eight, then find a hotel near the \
        stadium for two nights, compare the prices of both for the weekend after, and \
        tell me which day is cheaper overall for the whole family of four people";
    let signals = super::Signals::of(&lexical, &distinct, 0.5);
    let short = Fusion::default().lean(signals.with_query("rent a car"));
    let leaning = Fusion::default().lean(signals.with_query(long));
    assert!(leaning.weight < short.weight, "{leaning:?} {short:?}");
}

#[test]
fn the_default_keeps_the_first_of_the_ranking_it_leaned_toward_in_the_first_three() {
    // NESTFUL's "Get the number of plays of Virat Kohli from his Instagram account.": the
    // model's nearest (4) is the tool wanted; two close lexical matches (0 and 1) and a tool
    // both rankings liked (2) would push it to the fourth place.
    let query = "Get the number of plays of Virat Kohli from his Instagram account.";
    let lexical = [(0, 6.79), (1, 6.74), (2, 3.74), (3, 3.51)];
    let dense: Vec<(usize, f32)> = [(4, 0.399), (2, 0.339), (0, 0.326), (1, 0.319), (3, 0.286)]
        .into_iter()
        .chain((5..30).map(|document| (document, 0.28 - 0.008 * (document - 5) as f32)))
        .collect();
    let (ranking, leaning) = Fusion::default().fuse(query, &lexical, &dense, 5, 0.7);
    assert!(leaning.weight >= 0.5, "{leaning:?}");
    assert_eq!(ranking, [0, 1, 4, 2, 3]);
    assert!(
        leaning
            .reason
            .ends_with("; meaning's first kept in the first 3 (it was 4)"),
        "{}",
        leaning.reason
    );
    // The places above it keep their tools; a shorter list is cut after the move.
    assert_eq!(
        Fusion::default().fuse(query, &lexical, &dense, 2, 0.7).0,
        [0, 1]
    );
    // A fixed weight promises nothing of the kind: it ranks by the scores alone.
    assert_eq!(
        Fusion::fixed(0.61).fuse(query, &lexical, &dense, 5, 0.7).0,
        [0, 1, 2, 4, 3]
    );
}
