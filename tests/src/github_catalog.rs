//! The shared test catalog: the 117 tools of GitHub's MCP server in `tools/list` shape
//! (`data/github-mcp-tools.json`; `data/README.md` says where it comes from and its license).

use lazytool_runtime::ToolDefinition;
use serde_json::Value;

/// Where the catalog lives (`{"tools": [{"name", "description", "inputSchema"}]}`).
pub const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");

/// The catalog as JSON.
///
/// ```
/// let catalog = lazytool_tests::github_catalog::json();
/// assert_eq!(catalog["tools"].as_array().map(Vec::len), Some(117));
/// ```
pub fn json() -> Value {
    let text =
        std::fs::read_to_string(PATH).unwrap_or_else(|error| panic!("cannot read {PATH}: {error}"));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("cannot parse {PATH}: {error}"))
}

/// Every tool of the catalog with its input schema as published (not canonicalized).
///
/// ```
/// let tools = lazytool_tests::github_catalog::definitions();
/// assert!(tools.iter().any(|tool| tool.name == "issue_read"));
/// ```
pub fn definitions() -> Vec<ToolDefinition> {
    let Value::Object(mut catalog) = json() else {
        panic!("{PATH} is not a JSON object");
    };
    let tools = catalog.remove("tools").unwrap_or_default();
    let tools: Vec<ToolDefinition> = serde_json::from_value(tools)
        .unwrap_or_else(|error| panic!("cannot read the tools of {PATH}: {error}"));
    assert!(!tools.is_empty(), "{PATH} lists no tools");
    tools
}
