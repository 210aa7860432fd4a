//! `McpSource`, the client side of lazytool (and of `lazytool-gateway`), as the official MCP
//! conformance suite's client under test.
//!
//! ```sh
//! cargo build --example mcp_conformance_client
//! python3 tests/mcp/conformance/run.py --client target/debug/examples/mcp_conformance_client target/conformance
//! ```
//!
//! The suite starts a test server per scenario and runs this program with the server's URL as
//! its last argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO` and, for scenarios
//! that need credentials, a JSON object in `MCP_CONFORMANCE_CONTEXT`. The program does what
//! any client of the server would: it lists the tools through an [`McpSource`] and calls each
//! one the scenario is about, with arguments the tool's schema accepts. It exits 0 when every
//! call answered without an error, 1 otherwise; the suite judges the rest from what the
//! server saw.

use std::process::ExitCode;

use lazytool_mcp::{McpSource, Upstream};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{CancellationToken, Registry};
use serde_json::{Value, json};

/// The source's name, so the tools are `server__TOOL` in the registry.
const SERVER: &str = "server";

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::INFO)
        .init();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!(
            "usage: mcp_conformance_client URL (MCP_CONFORMANCE_SCENARIO names the scenario)"
        );
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url, &scenario).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_conformance_client: {scenario}: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let source = McpSource::new(SERVER, Upstream::url(url));
    let outcome = exercise(&source, scenario).await;
    source.shutdown().await;
    outcome
}

async fn exercise(source: &McpSource, scenario: &str) -> Result<(), Box<dyn std::error::Error>> {
    let tools = source.list_tools(CancellationToken::new()).await?;
    eprintln!(
        "listed {} tools in MCP {}",
        tools.len(),
        source.protocol_version().unwrap_or_default()
    );
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()?;
    // `initialize` is about the handshake alone; every other scenario's server offers the
    // tools it wants called.
    if scenario == "initialize" {
        return Ok(());
    }
    for tool in registry.tools() {
        let arguments = arguments_for(tool.input_schema());
        let result = registry.call(tool.name(), arguments.clone()).await;
        eprintln!(
            "{}({arguments}) -> {}{}",
            tool.name(),
            if result.is_error() { "error " } else { "" },
            result.content()
        );
        if result.is_error() {
            return Err(format!("{} answered an error: {}", tool.name(), result.content()).into());
        }
    }
    Ok(())
}

/// Arguments the schema accepts: each required property given a value of its type (numbers
/// counted up from 2, so that a sum can be checked in the server's log).
fn arguments_for(schema: &Value) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = (schema.get("required").and_then(Value::as_array))
        .map(|names| names.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut arguments = serde_json::Map::new();
    for (index, name) in required.into_iter().enumerate() {
        let kind = properties
            .and_then(|properties| properties.get(name))
            .and_then(|property| property.get("type"))
            .and_then(Value::as_str);
        let value = match kind {
            Some("number" | "integer") => json!(index + 2),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("conformance"),
        };
        arguments.insert(name.to_owned(), value);
    }
    Value::Object(arguments)
}
