//! An MCP server serving the shop tools with lazy discovery: on stdio by default, or over
//! streamable HTTP.
//!
//! ```sh
//! cargo run --example mcp_server                                   # stdio
//! cargo run --example mcp_server -- --http 127.0.0.1:8080          # http://127.0.0.1:8080/mcp
//! cargo run --example mcp_server -- --http 8080 --token SECRET     # requires Authorization: Bearer SECRET
//! cargo run --example mcp_server -- --help                         # every HTTP serving flag
//! ```
//!
//! SIGTERM or Ctrl-C drains: accepting stops, calls in flight finish (within
//! `--drain-timeout`), then the process exits 0. Logs go to stderr (on stdio, stdout is the
//! protocol). The guide (`lazytool_mcp::guide::stdio`) says how to register it in MCP clients.

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use lazytool_examples_core::ProductStore;
use lazytool_mcp::{
    HttpArgs, MCP_PATH, McpServer, parse_listen_addr, raise_open_files_limit, shutdown_signal,
};
use lazytool_runtime::{CallLimits, DynamicTool, Registry};
use serde_json::{Value, json};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::prelude::*;

/// The shop's tools over MCP, with lazy discovery.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (a bare PORT binds 127.0.0.1)
    #[arg(long, value_name = "ADDR|PORT", value_parser = parse_listen_addr)]
    http: Option<SocketAddr>,
    /// Also serve an eager `wait` tool that sleeps `ms` milliseconds (to try drains and
    /// balancers with calls in flight)
    #[arg(long)]
    wait_tool: bool,
    #[command(flatten)]
    serving: HttpArgs,
}

/// Sleeps `ms` milliseconds (at most a minute) and says so.
fn wait_tool() -> DynamicTool {
    let schema = json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 60_000}},
        "required": ["ms"],
    });
    DynamicTool::new(
        "wait",
        "Waits the given number of milliseconds.",
        schema,
        |arguments: Value, _| async move {
            let ms = arguments["ms"].as_u64().unwrap_or_default();
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, String>(json!(format!("waited {ms} ms")))
        },
    )
}

fn registry(wait: bool) -> Result<Registry, lazytool_runtime::RegistryError> {
    let builder = Registry::builder().state(ProductStore::sample());
    match wait {
        true => builder
            .tool(wait_tool())
            .limits(CallLimits::default().timeout(Some(Duration::from_secs(61))))
            .build(),
        false => builder.build(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Runtime::new()?;
    let served = runtime.block_on(serve());
    // Reading stdin blocks a thread that only the end of the input frees: after a signal,
    // waiting for it would keep the process alive until the client closes its end.
    runtime.shutdown_timeout(Duration::from_millis(100));
    served
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let filter = Targets::new()
        .with_target("lazytool", LevelFilter::INFO)
        .with_default(LevelFilter::WARN);
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();

    let cli = Cli::parse();
    // Held connections then meet the connection cap, which sheds idle ones, long before the
    // descriptors run out; what it did is logged at debug.
    let _raised = raise_open_files_limit();
    let registry = registry(cli.wait_tool)?;
    let tools = registry.len();
    let server = McpServer::new(registry).server_info("lazytool-shop", env!("CARGO_PKG_VERSION"));
    // Listened for from here on, so that a signal sent once the address is printed stops us.
    let stop = shutdown_signal();
    let Some(addr) = cli.http else {
        if let Some(flag) = cli.serving.given() {
            return Err(format!("{flag} needs --http").into());
        }
        eprintln!("mcp_server: serving {tools} shop tools on stdio");
        server.serve_stdio_until(stop).await?;
        return Ok(());
    };
    let http = cli.serving.apply(server)?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
    eprintln!("mcp_server: serving {tools} shop tools at {url}");
    http.serve_on_with_shutdown(listener, stop).await?;
    eprintln!("mcp_server: stopped");
    Ok(())
}
