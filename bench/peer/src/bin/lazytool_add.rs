//! `add(a, b)` as a lazytool `#[tool]`, served over MCP streamable HTTP by
//! `lazytool_mcp::McpServer` on 127.0.0.1 (a free port unless one is given): stateful
//! sessions for clients up to 2025-11-25 and the stateless 2026-07-28 flow, on one endpoint.
//!
//! ```sh
//! lazytool_add [PORT]     # prints `listening http://127.0.0.1:PORT/mcp` on stdout
//! ```

use std::io::Write;

use lazytool_mcp::{MCP_PATH, McpServer};
use lazytool_runtime::{Registry, tool};

#[path = "../listener.rs"]
mod listener;

/// Adds two integers.
#[tool]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<i64, String> {
    a.checked_add(b)
        .ok_or_else(|| format!("{a} + {b} overflows a 64-bit integer"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = listener::bind().await?;
    let registry = Registry::from_inventory()?;
    let mut stdout = std::io::stdout();
    writeln!(
        stdout,
        "listening http://{}{MCP_PATH}",
        listener.local_addr()?
    )?;
    stdout.flush()?;
    McpServer::new(registry)
        .server_info("lazytool-bench-peer", env!("CARGO_PKG_VERSION"))
        .http()
        .serve_on(listener)
        .await?;
    Ok(())
}
