//! What the unit tests share: the GitHub MCP server's catalog of 117 tools.

use serde::Deserialize;
use serde_json::Value;

/// One tool of the catalog.
#[derive(Deserialize)]
pub(crate) struct CatalogTool {
    pub(crate) name: String,
    pub(crate) description: String,
    #[serde(rename = "inputSchema")]
    pub(crate) input_schema: Value,
}

/// Every tool of `data/github-mcp-tools.json`, in catalog order.
pub(crate) fn github_tools() -> Vec<CatalogTool> {
    #[derive(Deserialize)]
    struct Catalog {
        tools: Vec<CatalogTool>,
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let catalog: Catalog =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{path}: {error}"));
    catalog.tools
}
