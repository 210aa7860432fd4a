use serde_json::json;

use super::*;
use serde_json::Value;

use crate::{DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, SessionOptions, ToolDefinition};

fn registry() -> Registry {
    let tool = |name: &str| {
        DynamicTool::new(
            name.to_owned(),
            format!("The {name} tool."),
            json!({"type": "object"}),
            |_: Value, _| async { Ok::<_, String>(Value::Null) },
        )
        .lazy(true)
    };
    Registry::builder()
        .without_inventory()
        .tool(tool("alpha"))
        .tool(tool("beta"))
        .build()
        .expect("valid tools")
}

#[test]
fn ungated_sessions_share_one_presentation_per_mode() {
    let registry = registry();
    let first = registry.session();
    let second = registry.session();
    assert!(Arc::ptr_eq(
        &first.shared.presentation,
        &second.shared.presentation
    ));
    let search = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Search));
    assert!(!Arc::ptr_eq(
        &first.shared.presentation,
        &search.shared.presentation
    ));
    let gated = registry.session_with(SessionOptions::new().allow(|tool| tool.name() == "alpha"));
    assert!(!Arc::ptr_eq(
        &first.shared.presentation,
        &gated.shared.presentation
    ));
    assert_eq!(gated.lazy_tool_names(), ["alpha"]);
    assert_eq!(first.lazy_tool_names(), ["alpha", "beta"]);
}

#[tokio::test]
async fn active_definitions_are_shared_not_copied() {
    let registry = registry();
    let session = registry.session();
    let result = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["beta"]}))
        .await;
    assert!(!result.is_error(), "{result:?}");
    let first = session.active_definitions();
    let second = session.active_definitions();
    assert_eq!(first.len(), 2, "the discovery tool and beta");
    for (a, b) in first.iter().zip(&second) {
        assert!(Arc::ptr_eq(a, b));
    }
    let owned: Vec<ToolDefinition> = first.iter().map(|d| ToolDefinition::clone(d)).collect();
    assert_eq!(session.active_tools(), owned);
}
