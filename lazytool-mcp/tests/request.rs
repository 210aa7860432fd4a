//! What tools reach of their MCP request: rich results (`McpContent`), progress
//! notifications and the principal (`McpRequest`).

mod support;

use lazytool_mcp::rmcp::model::ContentBlock;
use lazytool_mcp::{McpContent, McpRequest, McpServer};
use lazytool_runtime::{ContentPart, Registry, ToolContext, tool};
use serde_json::{Value, json};
use support::Client;

/// Draws a chart.
#[tool]
async fn chart() -> McpContent {
    McpContent::new(vec![
        ContentBlock::text("2 points"),
        ContentBlock::image("iVBORw0KGgo=", "image/png"),
    ])
    .with_structured(json!({"points": 2}))
}

/// Counts to three, reporting progress.
#[tool]
async fn count(ctx: ToolContext) -> Result<String, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    let mut sent = 0;
    for step in 1..=3 {
        let progress = request.progress(f64::from(step), Some(3.0), Some("counting"));
        sent += u32::from(progress.await.map_err(|error| error.to_string())?);
    }
    Ok(format!("{} sent {sent}", request.principal().name()))
}

/// Reports progress from a task it spawns, which carries a clone of its context.
#[tool]
async fn count_elsewhere(ctx: ToolContext) -> Result<String, String> {
    let spawned = tokio::spawn(async move {
        let request = McpRequest::of(&ctx).ok_or("the spawned task has no request")?;
        let sent = request.progress(1.0, Some(1.0), Some("from a task")).await;
        sent.map_err(|error| error.to_string())
    });
    let sent = spawned.await.map_err(|error| error.to_string())??;
    Ok(format!("sent {sent}"))
}

async fn client() -> Client {
    let mut client = Client::connect(McpServer::new(
        Registry::from_inventory().expect("valid tools"),
    ));
    client.initialize("2025-11-25").await;
    client
}

#[tokio::test]
async fn mcp_content_is_sent_as_its_blocks() {
    let mut client = client().await;
    let drawn = client
        .request(1, "tools/call", json!({"name": "chart"}))
        .await;
    let result = &drawn["result"];
    assert_eq!(
        result["content"][0],
        json!({"type": "text", "text": "2 points"})
    );
    assert_eq!(result["content"][1]["type"], json!("image"));
    assert_eq!(result["content"][1]["mimeType"], json!("image/png"));
    assert_eq!(result["structuredContent"], json!({"points": 2}));
    assert!(client.close().await.is_empty());

    // Anywhere else it is the same parts, and its structured value as the content.
    let registry = Registry::from_inventory().expect("valid tools");
    let direct = registry.call("chart", Value::Null).await;
    assert_eq!(
        direct.parts()[1],
        ContentPart::image("iVBORw0KGgo=", "image/png")
    );
    assert_eq!(direct.content(), &json!({"points": 2}));
}

#[tokio::test]
async fn tools_report_progress_to_clients_that_ask() {
    let mut client = client().await;
    let params = json!({"name": "count", "_meta": {"progressToken": "p-1"}});
    let counted = client.request(1, "tools/call", params).await;
    assert_eq!(
        counted["result"]["content"][0]["text"],
        json!("anonymous sent 3")
    );
    let progress: Vec<&Value> = client
        .notifications
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", client.notifications);
    assert_eq!(progress[2]["params"]["progressToken"], json!("p-1"));
    assert_eq!(progress[2]["params"]["progress"], json!(3.0));

    // Without a token, nothing is sent.
    let quiet = client
        .request(2, "tools/call", json!({"name": "count"}))
        .await;
    assert_eq!(
        quiet["result"]["content"][0]["text"],
        json!("anonymous sent 0")
    );
    assert!(client.close().await.is_empty());
    assert!(McpRequest::of(&ToolContext::new()).is_none());
}

#[tokio::test]
async fn a_task_the_tool_spawns_reaches_the_request_through_its_context() {
    let mut client = client().await;
    let params = json!({"name": "count_elsewhere", "_meta": {"progressToken": 7}});
    let counted = client.request(1, "tools/call", params).await;
    assert_eq!(counted["result"]["content"][0]["text"], json!("sent true"));
    let progress: Vec<&Value> = client
        .notifications
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 1, "{:?}", client.notifications);
    assert_eq!(progress[0]["params"]["progressToken"], json!(7));
    assert_eq!(progress[0]["params"]["message"], json!("from a task"));
    assert!(client.close().await.is_empty());
}
