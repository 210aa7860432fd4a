//! The shared catalog of the tests: the 117 tools of GitHub's MCP server.

use lazytool_runtime::{DynamicTool, Registry};
use serde_json::{Value, json};

/// The 117 tools of data/github-mcp-tools.json, each answering `"done"`, all `lazy` or none.
pub fn catalog(lazy: bool) -> Registry {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");
    let text = std::fs::read_to_string(path).expect("the shared catalog is in data/");
    let catalog: Value = serde_json::from_str(&text).expect("the catalog is JSON");
    let tools = catalog["tools"].as_array().cloned().unwrap_or_default();
    assert_eq!(tools.len(), 117);
    let tools = tools.into_iter().map(|tool| {
        DynamicTool::new(
            tool["name"].as_str().unwrap_or_default().to_owned(),
            tool["description"].as_str().unwrap_or_default().to_owned(),
            tool["inputSchema"].clone(),
            |_, _| async { Ok::<_, String>(json!("done")) },
        )
        .lazy(lazy)
    });
    Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("the catalog registers")
}
