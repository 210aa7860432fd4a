//! The fixtures of the official MCP conformance suite (`@modelcontextprotocol/conformance`):
//! its tools, prompts ([`prompts`]) and resources ([`resources`]), written with lazytool as a
//! user would write their own and served over streamable HTTP, for `.ci/run` to test against.
//!
//! `cargo run --example mcp_conformance -- --http 127.0.0.1:3001` serves at
//! `http://127.0.0.1:3001/mcp` (default: a free port); the line `serving at URL` on stderr
//! says where. The scenarios run, and why some are expected to fail, are in
//! `tests/mcp/conformance/`.

use std::time::Duration;

use lazytool_mcp::rmcp::model::ContentBlock;
use lazytool_mcp::{LogLevel, McpContent, McpRequest, McpServer};
use lazytool_runtime::source::LiveRegistry;
use lazytool_runtime::{DynamicTool, ToolContext, tool};
use serde_json::{Value, json};

mod changes;
mod input_required;
mod prompts;
mod resources;

/// A 1x1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of one silent sample.
const SILENT_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQIAAACAgA==";

/// Returns a simple text.
#[tool]
async fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns an image.
#[tool]
async fn test_image_content() -> McpContent {
    McpContent::new(vec![ContentBlock::image(RED_PIXEL_PNG, "image/png")])
}

/// Returns audio.
#[tool]
async fn test_audio_content() -> McpContent {
    McpContent::new(vec![ContentBlock::audio(SILENT_WAV, "audio/wav")])
}

/// Returns an embedded resource.
#[tool]
async fn test_embedded_resource() -> McpContent {
    McpContent::new(vec![ContentBlock::embedded_text(
        "test://embedded-resource",
        "This is an embedded resource content.",
    )])
}

/// Returns text, an image and an embedded resource.
#[tool]
async fn test_multiple_content_types() -> McpContent {
    McpContent::new(vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(RED_PIXEL_PNG, "image/png"),
        ContentBlock::embedded_text(
            "test://mixed-content-resource",
            r#"{"test": "data", "value": 123}"#,
        ),
    ])
}

/// Always fails.
#[tool]
async fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress 0, 50 and 100 of 100 to clients that ask for it.
#[tool]
async fn test_tool_with_progress(ctx: ToolContext) -> Result<&'static str, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    for progress in [0.0, 50.0, 100.0] {
        if progress > 0.0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        request
            .progress(progress, Some(100.0), None)
            .await
            .map_err(|error| error.to_string())?;
    }
    Ok("Progress reported")
}

/// Sends three log messages while it runs, to a client that asked for them.
#[tool]
async fn test_tool_with_logging(ctx: ToolContext) -> Result<&'static str, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    for (n, step) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        request
            .log(LogLevel::Info, json!(step))
            .await
            .map_err(|error| error.to_string())?;
    }
    Ok("Logging completed")
}

/// Logs one message, which a 2026-07-28 client gets only if its request asked for logs.
#[tool]
async fn test_logging_tool(ctx: ToolContext) -> Result<&'static str, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    request
        .log(LogLevel::Info, json!("test_logging_tool ran"))
        .await
        .map_err(|error| error.to_string())?;
    Ok("Logged, if asked")
}

/// Changes `test://watched-resource`: its subscribers are told.
#[tool]
async fn test_update_watched_resource() -> String {
    format!("version {}", resources::WATCHED.update())
}

/// Asks the client's model to answer a prompt (through its context: asked directly over a
/// 2025-11-25 session, through an input-required result on 2026-07-28).
#[tool]
async fn test_sampling(
    /// The prompt to send to the model.
    prompt: String,
    ctx: ToolContext,
) -> Result<String, String> {
    let answer = ctx.sample("sampling", &prompt, 100).await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or_default()
    ))
}

/// Asks the user `message` with a form of `schema`, and says what came back.
async fn elicit(ctx: &ToolContext, message: &str, schema: Value) -> Result<String, String> {
    let answer = ctx.elicit("elicitation", message, schema).await?;
    let answer = serde_json::to_value(&answer).unwrap_or_default();
    Ok(format!(
        "Elicitation completed: action={}, content={}",
        answer["action"].as_str().unwrap_or_default(),
        answer["content"]
    ))
}

/// Asks the user for a name and an email address.
#[tool]
async fn test_elicitation(
    /// The message to show the user.
    message: String,
    ctx: ToolContext,
) -> Result<String, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"}
        },
        "required": ["username", "email"]
    });
    elicit(&ctx, &message, schema).await
}

/// Asks the user for values of every primitive type, each with a default.
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: ToolContext) -> Result<String, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "default": true}
        }
    });
    elicit(&ctx, "Please review your profile", schema).await
}

/// Asks the user to choose, with every kind of enum.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: ToolContext) -> Result<String, String> {
    let titled = |items: &[(&str, &str)]| -> Vec<Value> {
        items
            .iter()
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "oneOf": titled(&[("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")])},
            "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "items": {"anyOf": titled(&[("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")])}}
        }
    });
    elicit(&ctx, "Please choose", schema).await
}

/// Runs long enough for a client to reconnect to its stream.
#[tool]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed"
}

/// The suite's JSON Schema 2020-12 fixture, as a dynamic tool: MCP sends its schema as
/// declared (SEP-2106), while calls are validated against it.
pub fn json_schema_tool() -> DynamicTool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    DynamicTool::new(
        "json_schema_2020_12_tool",
        "Takes arguments described with JSON Schema 2020-12 keywords.",
        schema,
        |arguments: Value, _| async move { Ok::<_, String>(arguments) },
    )
}

/// A tool whose `region` argument an HTTP client also sends as the header `Mcp-Param-Region`
/// (SEP-2243): the server refuses a call whose header is missing or does not match.
pub fn custom_header_tool() -> DynamicTool {
    let schema = json!({
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"]
    });
    DynamicTool::new(
        "test_custom_header",
        "Says which region it was asked for; the region also travels as a header.",
        schema,
        |arguments: Value, _| async move {
            Ok::<_, String>(json!(format!("region {}", arguments["region"])))
        },
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = match (args.next().as_deref(), args.next()) {
        (None, _) => "127.0.0.1:0".to_owned(),
        (Some("--http"), Some(addr)) => addr,
        _ => return Err("usage: mcp_conformance [--http ADDR]".into()),
    };
    let catalog = LiveRegistry::new(changes::catalog(false)?);
    let catalog = changes::CATALOG.get_or_init(|| catalog);
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!(
        "mcp_conformance: serving at http://{}/mcp",
        listener.local_addr()?
    );
    McpServer::live(catalog)
        .server_info("lazytool-conformance", env!("CARGO_PKG_VERSION"))
        .prompts(prompts::Prompts)
        .resources(resources::Resources)
        .http()
        .serve_on(listener)
        .await?;
    Ok(())
}
