//! A tool that asks the user something while it runs, served and called over MCP by lazytool
//! on both sides: `book_table` asks how many people through its `ToolContext`; the client (an
//! `McpSource` whose `Elicitor` plays the user) answers, and the call completes.
//!
//! ```sh
//! cargo run --example mcp_asking            # the client: starts the server as its child
//! cargo run --example mcp_asking -- --serve # the server alone, on stdio
//! ```
//!
//! The client speaks 2026-07-28 when the server does (this one does): the call first ends with
//! an input-required result, the source answers the question and calls again with the answer
//! and the signed `requestState`. Over 2025-11-25 the server would have sent the client an
//! `elicitation/create` request instead: the tool's code is the same (the guide's chapter
//! `lazytool_mcp::guide::asking`).

use std::process::ExitCode;

use lazytool_mcp::McpServer;
use lazytool_mcp::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use lazytool_mcp_client::{Elicited, Elicitor, McpSource, Upstream};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{CancellationToken, ElicitAction, Registry, ToolContext, tool};
use serde_json::json;

/// Books a table at a restaurant, asking the user for how many people.
#[tool]
async fn book_table(
    /// The restaurant's name.
    restaurant: String,
    ctx: ToolContext,
) -> Result<String, String> {
    let form = json!({
        "type": "object",
        "properties": {"people": {"type": "integer", "minimum": 1}},
        "required": ["people"]
    });
    let question = format!("How many people for {restaurant}?");
    let answer = ctx.elicit("party", &question, form).await?;
    match (answer.action, answer.content) {
        (ElicitAction::Accept, Some(content)) => Ok(format!(
            "Booked a table for {} at {restaurant}.",
            content["people"]
        )),
        _ => Ok("Nothing booked.".to_owned()),
    }
}

/// Plays the user: four people, whatever the restaurant.
struct Four;

impl Elicitor for Four {
    fn elicit<'a>(&'a self, server: &'a str, request: ElicitRequestParams) -> Elicited<'a> {
        Box::pin(async move {
            if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
                println!("{server} asks: {message} -> 4");
            }
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"people": 4})))
        })
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let outcome = if std::env::args().any(|arg| arg == "--serve") {
        serve().await
    } else {
        ask().await
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_asking: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder()
        .filter(|spec| spec.name() == "book_table")
        .build()?;
    McpServer::new(registry).serve_stdio().await?;
    Ok(())
}

async fn ask() -> Result<(), Box<dyn std::error::Error>> {
    let me = std::env::current_exe()?;
    let upstream = Upstream::command(me.to_string_lossy(), ["--serve"]);
    let source = McpSource::new("restaurants", upstream).elicitor(Four);
    let tools = source.list_tools(CancellationToken::new()).await?;
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()?;
    println!(
        "the server speaks MCP {}",
        source.protocol_version().unwrap_or_default()
    );
    let result = registry
        .call("restaurants__book_table", json!({"restaurant": "Chez Ada"}))
        .await;
    source.shutdown().await;
    println!("{}", result.text());
    if result.is_error() || !result.text().contains("for 4 at Chez Ada") {
        return Err(format!("the call did not complete: {}", result.text()).into());
    }
    Ok(())
}
