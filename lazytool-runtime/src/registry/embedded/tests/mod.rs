//! Registries searching by meaning: fusion, the degrade-to-lexical rule, the caches.

#[cfg(feature = "embed-http")]
mod http;
mod input;
#[cfg(feature = "embed-local")]
mod local;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use crate::discovery::embedding::{disk_cache, tool_text};
use crate::discovery::{EmbedError, EmbedFuture, Embedder, Embeddings, TestEmbedder};
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

    let hybrid = registry(
        Embeddings::new(Scripted::new(Query::Answer)).with_query_timeout(WAIT),
        tools(),
    );
    assert!(hybrid.wait_for_embeddings(WAIT));
    assert_eq!(names(hybrid.search("my qar", 1)), ["rent_automobile"]);
    // Words still decide when they match.
    assert_eq!(names(hybrid.search("hotel room", 1)), ["book_hotel"]);
    assert_eq!(hybrid.embeddings().and_then(Embeddings::last_warning), None);
}

#[test]
fn a_failing_query_embedder_leaves_the_lexical_search_with_a_warning() {
    // Only the embedder that never answers meets the short timeout: the others answer
    // within the long one however loaded the machine.
    let cases = [
        (Query::Fail, "connection refused", WAIT),
        (
            Query::Hang,
            "no query vector within 200 ms",
            Duration::from_millis(200),
        ),
        (Query::WrongDimension, "7 dimensions, not 512", WAIT),
        (Query::NotANumber, "not a finite number", WAIT),
    ];
    for (query, reason, timeout) in cases {
        let embeddings = Embeddings::new(Scripted::new(query)).with_query_timeout(timeout);
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
    let registry = registry(Embeddings::new(embedder).with_query_timeout(WAIT), tools());
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
    let registry = registry(Embeddings::new(embedder).with_query_timeout(WAIT), tools());
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
        let registry = registry(
            Embeddings::new(embedder)
                .with_query_timeout(WAIT)
                .with_cache_dir(&dir),
            tools,
        );
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
        &tool_text("book_hotel", "Reserve a hotel room for a number of nights."),
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
    let embeddings = Embeddings::new(embedder).with_query_timeout(WAIT);
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
    let registry = registry(Embeddings::new(embedder).with_query_timeout(WAIT), tools());
    assert!(registry.wait_for_embeddings(WAIT));
    let before = embedded.load(Ordering::SeqCst);
    for _ in 0..3 {
        assert_eq!(names(registry.search("my qar", 1)), ["rent_automobile"]);
    }
    assert_eq!(embedded.load(Ordering::SeqCst), before + 1);
}
