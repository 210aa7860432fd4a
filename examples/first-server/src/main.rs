//! Two tools served over MCP on stdio: `add` is sent to the client up front, `greet` is found
//! through the discovery tool.

use lazytool_mcp::McpServer;
use lazytool_runtime::{Registry, tool};

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greet someone by name.
#[tool(lazy)]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_inventory()?;
    McpServer::new(registry)
        .server_info("my-tools", env!("CARGO_PKG_VERSION")) // what clients see in `serverInfo`
        .serve_stdio() // stdout is the protocol; log to stderr only
        .await?;
    Ok(())
}
