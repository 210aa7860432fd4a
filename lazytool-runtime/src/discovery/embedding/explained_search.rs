//! What a search by words and meaning weighed for one query (features `embeddings` and
//! `search-features`): [`ExplainedSearch`].

use super::Leaning;

/// Both rankings of a hybrid search for one query, and how they were fused: what
/// [`Registry::explain_search`](crate::Registry::explain_search) returns, for measuring and
/// fitting the fusion outside the index (`bench/search/fusion_fit.py`) and for a reader who asks why a
/// query leaned toward words or meaning.
///
/// ```
/// use std::time::Duration;
/// use lazytool_runtime::{DynamicTool, Embeddings, Registry, TestEmbedder};
/// use serde_json::json;
///
/// let tool = |name: &str, description: &str| {
///     DynamicTool::new(name, description, json!({"type": "object"}),
///         |_, _| async { Ok::<_, String>(json!(null)) }).lazy(true)
/// };
/// let registry = Registry::builder()
///     .without_inventory()
///     .tools([tool("get_forecast", "Tomorrow's weather in a city."),
///             tool("send_mail", "Sends an email.")])
///     .embeddings(Embeddings::new(TestEmbedder::new()))
///     .build()
///     .unwrap();
/// assert!(registry.wait_for_embeddings(Duration::from_secs(10)));
/// let explained = registry.explain_search("weather tomorrow", 5).unwrap();
/// assert_eq!(explained.lexical[0].0, "get_forecast");
/// assert_eq!(explained.fused[0], "get_forecast");
/// assert!(!explained.leaning.reason.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ExplainedSearch {
    /// The ranking by words: tool names and scores, best first, as deep as the fusion reads.
    pub lexical: Vec<(String, f32)>,
    /// The ranking by meaning: tool names and cosines, nearest first, as deep.
    pub dense: Vec<(String, f32)>,
    /// What the catalog holds: how many lazy tools have vectors.
    pub tools: usize,
    /// How alike the catalog's tools are to the model: the mean cosine between a tool and its
    /// nearest other tool (on a sample).
    pub alike: f32,
    /// How the two were weighed, and why.
    pub leaning: Leaning,
    /// The fused ranking, best first (what [`Registry::search`](crate::Registry::search) returns).
    pub fused: Vec<String>,
}
