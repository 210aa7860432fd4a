//! A source that explains its missing names: discovery, search and calls say why.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::source::{ListToolsFuture, SourceError, ToolSource};
use crate::{
    DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry, SessionOptions, ToolErrorKind,
};

const DOWN: &str = "the server `hub` failed to start: no such file; retried in 3 s";

/// A source whose server is down: every `hub__` name is missing for one reason.
struct Hub;

impl ToolSource for Hub {
    fn name(&self) -> &str {
        "hub"
    }

    fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
        Box::pin(async { Err(SourceError::new("hub", "no such file")) })
    }

    fn missing_tool(&self, name: &str) -> Option<String> {
        name.starts_with("hub__").then(|| DOWN.to_owned())
    }

    fn unavailable(&self) -> Option<String> {
        Some(format!("Not searched: {DOWN}."))
    }
}

fn registry() -> Registry {
    let tool = |name: &str| {
        DynamicTool::new(
            name,
            "Reads the weather.",
            json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(json!("sunny")) },
        )
        .lazy(true)
    };
    (Registry::builder().without_inventory())
        .tools([tool("weather__today"), tool("weather__tomorrow")])
        .explain_missing(Arc::new(Hub))
        .build()
        .expect("builds")
}

fn errors(result: &crate::ToolResult) -> Vec<String> {
    let content: Value = match result.content() {
        Value::String(text) => serde_json::from_str(text).expect("json"),
        content => content.clone(),
    };
    serde_json::from_value(content["errors"].clone()).unwrap_or_default()
}

#[tokio::test]
async fn a_discovery_of_a_down_sources_names_says_why_once_and_the_rest_stay_unknown() {
    let session = registry().session();
    let arguments = json!({"toolNames": ["hub__a", "weather__today", "hub__b", "nowhere"]});
    let found = session.call(DISCOVERY_TOOL_NAME, arguments).await;
    assert!(!found.is_error(), "{:?}", found.content());
    assert_eq!(
        errors(&found),
        [
            format!("'hub__a' and 'hub__b' are not available now: {DOWN}."),
            "Unknown tool 'nowhere'. Available tools: [weather__today, weather__tomorrow]"
                .to_owned(),
        ]
    );
}

#[tokio::test]
async fn a_call_of_a_down_sources_name_is_unavailable_with_the_reason() {
    let registry = registry();
    for result in [
        registry.session().call("hub__a", json!({})).await,
        registry.call("hub__a", json!({})).await,
    ] {
        assert_eq!(result.error_kind(), Some(ToolErrorKind::Unavailable));
        assert_eq!(
            result.content(),
            &json!(format!("Error: 'hub__a' is not available now: {DOWN}."))
        );
    }
    let unknown = registry.session().call("nowhere", json!({})).await;
    assert_eq!(unknown.error_kind(), Some(ToolErrorKind::UnknownTool));
}

#[tokio::test]
async fn a_search_says_what_the_sources_cannot_offer() {
    let session = registry().session_with(SessionOptions::new().mode(DiscoveryMode::Search));
    let found = session
        .call(DISCOVERY_TOOL_NAME, json!({"query": "weather today"}))
        .await;
    assert!(!found.is_error(), "{:?}", found.content());
    assert_eq!(errors(&found), [format!("Not searched: {DOWN}.")]);
    let by_name = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["hub__a"]}))
        .await;
    assert!(
        errors(&by_name).contains(&format!("'hub__a' is not available now: {DOWN}.")),
        "{:?}",
        by_name.content()
    );
}
