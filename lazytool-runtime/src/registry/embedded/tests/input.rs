//! Bad input to a search by words and meaning: every query and every catalog gets a
//! ranking (by words, with a warning, where meaning is unavailable), never an error or a panic.

use std::time::Duration;

use serde_json::json;

use crate::discovery::{Embeddings, Fusion, Signals, TestEmbedder};
use crate::{DynamicTool, Registry};

const WAIT: Duration = Duration::from_secs(30);

fn tool(name: &str, description: &str) -> DynamicTool {
    DynamicTool::new(name, description, json!({"type": "object"}), |_, _| async {
        Ok::<_, String>(json!(null))
    })
    .lazy(true)
}

fn registry(fusion: Fusion, tools: Vec<DynamicTool>) -> Registry {
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .embeddings(
            Embeddings::new(TestEmbedder::new())
                .with_query_timeout(WAIT)
                .with_fusion(fusion),
        )
        .build()
        .expect("valid tools");
    assert!(registry.wait_for_embeddings(WAIT));
    registry
}

fn catalog() -> Vec<DynamicTool> {
    vec![
        tool("book_hotel", "Reserve a hotel room for a number of nights."),
        tool("get_weather", "The weather forecast of a city."),
        tool("translate", "Translate a text: 翻译 перевод."),
    ]
}

fn names(registry: &Registry, query: &str) -> Vec<String> {
    registry
        .search(query, 5)
        .into_iter()
        .map(|tool| tool.name().to_owned())
        .collect()
}

#[test]
fn empty_blank_and_one_word_queries_get_a_ranking_or_nothing_never_a_panic() {
    for fusion in [
        Fusion::default(),
        Fusion::by_catalog(),
        Fusion::dense_only(),
    ] {
        let registry = registry(fusion, catalog());
        assert!(names(&registry, "").is_empty());
        assert!(names(&registry, "   \n\t").is_empty());
        assert_eq!(names(&registry, "hotel")[0], "book_hotel");
        assert_eq!(names(&registry, "weather")[0], "get_weather");
        // One word no tool holds: the model's nearest, or nothing; never an error.
        let _ = names(&registry, "zzzz");
        let _ = names(&registry, "?");
        assert_eq!(
            registry.embeddings().and_then(Embeddings::last_warning),
            None
        );
    }
}

#[test]
fn queries_in_another_script_get_a_ranking() {
    let registry = registry(Fusion::default(), catalog());
    for query in [
        "翻译",
        "перевод",
        "ホテル",
        "🏨 hotel",
        "مرحبا",
        "\u{200b}",
        "a\u{0}b",
    ] {
        let _ = names(&registry, query);
    }
    // Found by its words (character pairs for the unspaced script). The test embedder hashes
    // "перевод" onto the axis of a word of get_weather's, so meaning puts that first; the
    // tool the words found is still ranked.
    assert_eq!(names(&registry, "翻译")[0], "translate");
    assert!(names(&registry, "перевод").contains(&"translate".to_owned()));
    assert_eq!(names(&registry, "🏨 hotel")[0], "book_hotel");
}

#[test]
fn a_catalog_of_one_tool_ranks_it() {
    let registry = registry(
        Fusion::default(),
        vec![tool("get_weather", "The weather forecast of a city.")],
    );
    assert_eq!(names(&registry, "weather in Paris"), ["get_weather"]);
    assert_eq!(names(&registry, "forecast"), ["get_weather"]);
    // Words that match nothing: the model still ranks the one tool it has.
    let _ = names(&registry, "book a hotel");
}

#[cfg(feature = "search-features")]
#[test]
fn a_search_explains_which_way_it_leaned() {
    let registry = registry(Fusion::default(), catalog());
    let explained = registry.explain_search("hotel room", 5).expect("hybrid");
    assert_eq!(explained.fused[0], "book_hotel");
    assert_eq!(explained.tools, 3);
    assert!(
        explained.leaning.reason.contains('('),
        "{}",
        explained.leaning.reason
    );
    // Nothing to embed: by words only, so nothing to explain.
    assert_eq!(registry.explain_search("", 5), None);
}

#[test]
fn signals_of_odd_scores_stay_between_0_and_1() {
    let odd = [
        (vec![(0, f32::NAN), (1, 1.0)], vec![(0, f32::NAN)]),
        (vec![(0, f32::INFINITY), (1, 1.0)], vec![(1, 1.0), (0, 1.0)]),
        (vec![(0, -3.0)], vec![(0, -1.0), (1, -2.0)]),
        (vec![(0, 1.0), (1, 2.0)], vec![(0, 0.2), (1, 0.9)]),
        (vec![], vec![]),
    ];
    for (lexical, dense) in odd {
        for alike in [f32::NAN, -1.0, 0.5, 2.0] {
            let signals = Signals::of(&lexical, &dense, alike).with_query("a long query");
            let values = [
                signals.lexical_gap,
                signals.dense_gap,
                signals.dense_last,
                signals.dense_best,
                signals.alike,
                signals.lexical_found,
                signals.query_words,
            ];
            assert!(
                values.iter().all(|v| (0.0..=1.0).contains(v)),
                "{signals:?}"
            );
            let leaning = Fusion::default().lean(signals);
            assert!((0.0..=1.0).contains(&leaning.weight), "{leaning:?}");
            assert!(!leaning.reason.is_empty());
        }
    }
}
