use super::Fusion;
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
fn fusion_follows_the_words_when_they_are_sure_and_meaning_when_not() {
    let fusion = Fusion::adaptive(0.9, 0.1);
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
fn by_default_words_decide_among_alike_tools_and_meaning_among_distinct_ones() {
    let fusion = Fusion::default();
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
