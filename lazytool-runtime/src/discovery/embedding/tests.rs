use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use super::vectors::{Vectors, checked};
use super::{EmbedError, EmbedFuture, Embedder, Embeddings, Fusion, TestEmbedder, disk_cache};
use crate::{DynamicTool, Registry};

const WAIT: Duration = Duration::from_secs(30);

fn tool(name: &str, description: &str) -> DynamicTool {
    DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async {
        Ok::<_, String>(json!(null))
    })
    .lazy(true)
}

fn tools() -> Vec<DynamicTool> {
    vec![
        tool(
            "rent_automobile",
            "Reserve an automobile for a number of days.",
        ),
        tool("book_hotel", "Reserve a hotel room for a number of nights."),
        tool("get_weather", "The weather forecast of a city."),
    ]
}

fn registry(embeddings: Embeddings, tools: Vec<DynamicTool>) -> Registry {
    Registry::builder()
        .without_inventory()
        .tools(tools)
        .embeddings(embeddings)
        .build()
        .expect("valid tools")
}

fn names(tools: Vec<&crate::Tool>) -> Vec<&str> {
    tools.into_iter().map(|tool| tool.name()).collect()
}

/// What a scripted embedder does with a query (a text not in the catalog's).
#[derive(Clone, Copy)]
enum Query {
    Answer,
    Fail,
    Hang,
    WrongDimension,
    NotANumber,
}

/// The test embedder, counting the texts it embeds, doing `query` with one-text calls.
struct Scripted {
    inner: TestEmbedder,
    query: Query,
    fail_tools: bool,
    embedded: Arc<AtomicUsize>,
}

impl Scripted {
    fn new(query: Query) -> Scripted {
        Scripted {
            inner: TestEmbedder::new().same(["qar", "automobile"]),
            query,
            fail_tools: false,
            embedded: Arc::default(),
        }
    }
}

impl Embedder for Scripted {
    fn id(&self) -> &str {
        "scripted"
    }

    fn embed(&self, texts: Vec<String>) -> EmbedFuture<'_> {
        let is_query = texts.len() == 1 && !texts[0].contains(':');
        self.embedded.fetch_add(texts.len(), Ordering::SeqCst);
        let query = self.query;
        let fail_tools = self.fail_tools;
        Box::pin(async move {
            let mut vectors = self.inner.embed(texts).await?;
            if !is_query {
                return if fail_tools {
                    Err(EmbedError::new("model is on fire"))
                } else {
                    Ok(vectors)
                };
            }
            match query {
                Query::Answer => {}
                Query::Fail => return Err(EmbedError::new("connection refused")),
                Query::Hang => std::future::pending::<()>().await,
                Query::WrongDimension => vectors[0].truncate(7),
                Query::NotANumber => vectors[0][3] = f32::NAN,
            }
            Ok(vectors)
        })
    }
}

#[test]
fn synonyms_the_words_miss_are_found_by_meaning() {
    let lexical = Registry::builder()
        .without_inventory()
        .tools(tools())
        .build()
        .expect("valid tools");
    assert!(lexical.search("my qar", 3).is_empty());

    let hybrid = registry(Embeddings::new(Scripted::new(Query::Answer)), tools());
    assert!(hybrid.wait_for_embeddings(WAIT));
    assert_eq!(names(hybrid.search("my qar", 1)), ["rent_automobile"]);
    // Words still decide when they match.
    assert_eq!(names(hybrid.search("hotel room", 1)), ["book_hotel"]);
    assert_eq!(hybrid.embeddings().and_then(Embeddings::last_warning), None);
}

#[test]
fn a_failing_query_embedder_leaves_the_lexical_search_with_a_warning() {
    let cases = [
        (Query::Fail, "connection refused"),
        (Query::Hang, "no query vector within 200 ms"),
        (Query::WrongDimension, "7 dimensions, not 512"),
        (Query::NotANumber, "not a finite number"),
    ];
    for (query, reason) in cases {
        let embeddings =
            Embeddings::new(Scripted::new(query)).with_query_timeout(Duration::from_millis(200));
        let registry = registry(embeddings, tools());
        assert!(registry.wait_for_embeddings(WAIT));
        assert_eq!(
            names(registry.search("hotel for tonight", 1)),
            ["book_hotel"]
        );
        let warning = registry
            .embeddings()
            .and_then(Embeddings::last_warning)
            .unwrap_or_default();
        assert!(warning.starts_with("embedder scripted: "), "{warning}");
        assert!(warning.contains(reason), "{warning}");
        assert!(warning.ends_with("; lexical search only"), "{warning}");
    }
}

#[test]
fn a_huge_query_is_searched_by_its_words_only() {
    let embedder = Scripted::new(Query::Answer);
    let embedded = Arc::clone(&embedder.embedded);
    let registry = registry(Embeddings::new(embedder), tools());
    assert!(registry.wait_for_embeddings(WAIT));
    let before = embedded.load(Ordering::SeqCst);
    let query = format!("hotel {}", "please ".repeat(1000));
    assert_eq!(names(registry.search(&query, 1)), ["book_hotel"]);
    assert_eq!(embedded.load(Ordering::SeqCst), before);
    let warning = registry.embeddings().and_then(Embeddings::last_warning);
    assert_eq!(
        warning.as_deref(),
        Some(
            "embedder scripted: a query of 7006 bytes is over the 4096 it is sent; lexical search only"
        )
    );
}

#[test]
fn an_embedder_failing_on_the_tools_leaves_the_lexical_search() {
    let mut embedder = Scripted::new(Query::Answer);
    embedder.fail_tools = true;
    let registry = registry(Embeddings::new(embedder), tools());
    assert!(!registry.wait_for_embeddings(WAIT));
    assert_eq!(names(registry.search("hotel", 1)), ["book_hotel"]);
    assert!(registry.search("my qar", 3).is_empty());
    assert_eq!(
        registry
            .embeddings()
            .and_then(Embeddings::last_warning)
            .as_deref(),
        Some("embedder scripted: cannot embed the tools: model is on fire; lexical search only")
    );
}

#[test]
fn tool_vectors_are_cached_on_disk_by_model_and_text() {
    let dir = std::env::temp_dir().join(format!("lazytool-vectors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let start = |tools: Vec<DynamicTool>| {
        let embedder = Scripted::new(Query::Answer);
        let embedded = Arc::clone(&embedder.embedded);
        let registry = registry(Embeddings::new(embedder).with_cache_dir(&dir), tools);
        assert!(registry.wait_for_embeddings(WAIT));
        (registry, embedded.load(Ordering::SeqCst))
    };
    assert_eq!(start(tools()).1, 3);
    // A second start with the same tools embeds none of them.
    let (registry, embedded) = start(tools());
    assert_eq!(embedded, 0);
    assert_eq!(names(registry.search("my qar", 1)), ["rent_automobile"]);
    // A changed definition is embedded again, the others are not.
    let mut changed = tools();
    changed[2] = tool("get_weather", "Tomorrow's weather in a town.");
    assert_eq!(start(changed).1, 1);
    // A damaged file is embedded again.
    let key = disk_cache::key(
        "scripted",
        &super::tool_text("book_hotel", "Reserve a hotel room for a number of nights."),
    );
    let file = std::fs::read_dir(dir.join("scripted"))
        .expect("cache dir")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            let hex: String = key.iter().map(|byte| format!("{byte:02x}")).collect();
            path.file_stem().and_then(|stem| stem.to_str()) == Some(hex.as_str())
        })
        .expect("the hotel's vector is cached");
    std::fs::write(&file, b"abc").expect("writable");
    assert_eq!(start(tools()).1, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_registry_rebuilt_with_the_same_embeddings_embeds_only_new_tools() {
    let embedder = Scripted::new(Query::Answer);
    let embedded = Arc::clone(&embedder.embedded);
    let embeddings = Embeddings::new(embedder);
    assert!(registry(embeddings.clone(), tools()).wait_for_embeddings(WAIT));
    assert_eq!(embedded.load(Ordering::SeqCst), 3);
    let mut more = tools();
    more.push(tool("get_time", "The time in a city."));
    assert!(registry(embeddings, more).wait_for_embeddings(WAIT));
    assert_eq!(embedded.load(Ordering::SeqCst), 4);
}

#[test]
fn repeated_queries_are_embedded_once() {
    let embedder = Scripted::new(Query::Answer);
    let embedded = Arc::clone(&embedder.embedded);
    let registry = registry(Embeddings::new(embedder), tools());
    assert!(registry.wait_for_embeddings(WAIT));
    let before = embedded.load(Ordering::SeqCst);
    for _ in 0..3 {
        assert_eq!(names(registry.search("my qar", 1)), ["rent_automobile"]);
    }
    assert_eq!(embedded.load(Ordering::SeqCst), before + 1);
}

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
