//! An MCP server on stdio serving the shop tools, with per-connection lazy discovery.
//!
//! `cargo run --example mcp_server`, then write JSON-RPC lines on stdin, or register the
//! built binary in an MCP client (see the README). Logs go to stderr: stdout is the protocol.

use lazytool_mcp::McpServer;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let filter = Targets::new()
        .with_target("lazytool", LevelFilter::INFO)
        .with_default(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();

    let registry = lazytool_examples_core::registry()?;
    eprintln!("mcp_server: serving {} shop tools on stdio", registry.len());
    McpServer::new(registry)
        .server_info("lazytool-shop", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await?;
    Ok(())
}
