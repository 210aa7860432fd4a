//! `add(a, b)` with rmcp's own `#[tool]` macros, served by rmcp's streamable HTTP server the
//! way rmcp's `counter_streamhttp` example serves it (axum, `LocalSessionManager`), with the
//! options lazytool gives the same server: JSON answers where the transport allows them, and
//! `TCP_NODELAY` on accepted connections. One endpoint serves stateful sessions (up to
//! 2025-11-25) and stateless 2026-07-28 requests.
//!
//! ```sh
//! rmcp_add [PORT]     # prints `listening http://127.0.0.1:PORT/mcp` on stdout
//! ```

use std::io::Write;

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};

#[path = "../listener.rs"]
mod listener;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddRequest {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Debug, Clone)]
struct Adder {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Adder {
    fn new() -> Self {
        Adder {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Adds two integers.")]
    fn add(
        &self,
        Parameters(AddRequest { a, b }): Parameters<AddRequest>,
    ) -> Result<String, String> {
        a.checked_add(b)
            .map(|sum| sum.to_string())
            .ok_or_else(|| format!("{a} + {b} overflows a 64-bit integer"))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = listener::bind().await?;
    let local = listener.local_addr()?;
    let service: StreamableHttpService<Adder, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Adder::new()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default().with_json_response(true),
    );
    let router = axum::Router::new().route_service("/mcp", service);
    let mut stdout = std::io::stdout();
    writeln!(stdout, "listening http://{local}/mcp")?;
    stdout.flush()?;
    let listener = listener.tap_io(|tcp| {
        if let Err(error) = tcp.set_nodelay(true) {
            eprintln!("rmcp_add: TCP_NODELAY not set: {error}");
        }
    });
    axum::serve(listener, router).await?;
    Ok(())
}
