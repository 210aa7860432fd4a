//! Tool calls as OpenTelemetry GenAI spans: `cargo run --example otel`.
//!
//! lazytool emits a `tracing` span per tool execution, shaped by the GenAI semantic
//! conventions (`execute_tool {tool}`, `gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type`). Here `tracing-opentelemetry`
//! turns them into OpenTelemetry spans and `opentelemetry-stdout` prints them: swap the
//! exporter for OTLP to send them to a collector. One model turn runs through a session:
//! a lazy tool called too early, the discovery tool, and a tool that fails.

use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, ToolCall, tool};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

/// The current time in a city.
#[tool]
async fn local_time(city: String) -> String {
    format!("12:00 in {city}")
}

/// Books a table.
#[tool(lazy)]
async fn book_table(restaurant: String) -> Result<String, String> {
    Err(format!("{restaurant} is full"))
}

fn call(id: &str, name: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("lazytool-example"));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;

    let registry = Registry::from_inventory()?;
    let session = registry.session();
    let first = vec![
        call("call_1", "local_time", json!({"city": "Oslo"})),
        call("call_2", "book_table", json!({"restaurant": "Maaemo"})),
        call(
            "call_3",
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["book_table"]}),
        ),
    ];
    session.call_turn(first, 4).await;
    session.begin_turn();
    let second = vec![call(
        "call_4",
        "book_table",
        json!({"restaurant": "Maaemo"}),
    )];
    let results = session.call_turn(second, 4).await;
    assert!(results[0].is_error());

    provider.shutdown()?;
    Ok(())
}
