//! A program's own `#[tool]`s and an MCP server's tools in one registry, served lazily.
//!
//! ```sh
//! cargo run --example mcp_mix                 # runs a session in process and prints it
//! cargo run --example mcp_mix -- --serve      # serves the mixed catalog on MCP stdio
//! ```
//!
//! The MCP server here is this same program started with `--upstream` (so the example runs
//! offline); point `Upstream::command` at any real one, such as `uvx mcp-server-time`.

use lazytool_mcp::McpServer;

use lazytool_mcp_client::{McpCatalog, McpSource, ToolSelection, Upstream};
use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry, tool};
use serde_json::{Value, json};

/// Converts a temperature from Celsius to Fahrenheit.
#[tool(name = "celsiusToFahrenheit")]
async fn celsius_to_fahrenheit(celsius: f64) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// The upstream's tools: what another team's MCP server would offer.
fn upstream_registry() -> Result<Registry, Box<dyn std::error::Error>> {
    let forecast = DynamicTool::new(
        "get_forecast",
        "Gets tomorrow's forecast for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |arguments: Value, _| async move {
            let city = arguments["city"].as_str().unwrap_or_default().to_owned();
            Ok::<_, String>(json!({"city": city, "celsius": 21.5}))
        },
    );
    let alerts = DynamicTool::new(
        "get_alerts",
        "Lists weather alerts for a region.",
        json!({"type": "object", "properties": {"region": {"type": "string"}}}),
        |_, _| async { Ok::<_, String>(json!([])) },
    );
    Ok(Registry::builder()
        .without_inventory()
        .tools([forecast, alerts])
        .build()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1);
    if mode.as_deref() == Some("--upstream") {
        McpServer::new(upstream_registry()?).serve_stdio().await?;
        return Ok(());
    }

    let exe = std::env::current_exe()?.display().to_string();
    let weather = McpSource::new("weather", Upstream::command(exe, ["--upstream"]))
        .selection(ToolSelection::new().deny(["get_alerts"])?);
    // Every #[tool] linked in, plus the upstream's tools as `weather__TOOL`.
    let catalog = McpCatalog::start(Registry::builder, [weather]).await?;
    if mode.as_deref() == Some("--serve") {
        McpServer::live(catalog.live()).serve_stdio().await?;
        catalog.shutdown().await;
        return Ok(());
    }

    let registry = catalog.registry();
    for tool in registry.tools() {
        println!("{} (lazy: {})", tool.name(), tool.is_lazy());
    }
    let session = registry.session();
    let names: Vec<String> = session
        .active_tools()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    println!("request 1 carries: {names:?}");
    let found = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["weather__get_forecast"]}),
        )
        .await;
    println!("discovery: {}", found.text());
    session.begin_turn();
    let forecast = session
        .call("weather__get_forecast", json!({"city": "Lyon"}))
        .await;
    println!("weather__get_forecast: {}", forecast.text());
    let converted = session
        .call("celsiusToFahrenheit", json!({"celsius": 21.5}))
        .await;
    println!("celsiusToFahrenheit: {}", converted.text());
    catalog.shutdown().await;
    Ok(())
}
