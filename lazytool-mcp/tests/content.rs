//! Rich results over MCP: a tool's `Content` (the runtime's type) sent as MCP content blocks
//! of every kind, with `structuredContent`, within the output limit.

mod support;

use lazytool_mcp::McpServer;
use lazytool_runtime::{CallLimits, Content, ContentPart, DynamicTool, Registry};
use serde_json::{Value, json};
use support::Client;

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn tool(name: &str, content: Content) -> DynamicTool {
    DynamicTool::new(
        name,
        "Returns content.",
        json!({"type": "object"}),
        move |_, _| {
            let content = content.clone();
            async move { Ok::<_, String>(content) }
        },
    )
}

async fn client(limit: usize) -> Client {
    let report = Content::new([
        ContentPart::text("Q3"),
        ContentPart::image(PNG, "image/png"),
        ContentPart::audio("UklGRg==", "audio/wav"),
        ContentPart::resource_text("test://notes", "the notes"),
        ContentPart::resource_blob("test://q3.pdf", "JVBERi0=", "application/pdf"),
        ContentPart::resource_link("test://q2.pdf", "q2.pdf"),
    ])
    .with_structured(json!({"quarter": 3}));
    let large = Content::new([ContentPart::image("A".repeat(5_000), "image/png")]);
    let registry = Registry::builder()
        .without_inventory()
        .tool(tool("report", report))
        .tool(tool("large", large))
        .limits(CallLimits::default().max_output_bytes(limit))
        .build()
        .expect("valid tools");
    let mut client = Client::connect(McpServer::new(registry));
    client.initialize("2025-11-25").await;
    client
}

#[tokio::test]
async fn content_parts_are_sent_as_mcp_content_blocks() {
    let mut client = client(100_000).await;
    let called = client
        .request(1, "tools/call", json!({"name": "report"}))
        .await;
    let result = &called["result"];
    assert_eq!(result["isError"], json!(false));
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "Q3"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "test://notes", "text": "the notes"}},
            {"type": "resource", "resource": {"uri": "test://q3.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
            {"type": "resource_link", "uri": "test://q2.pdf", "name": "q2.pdf"}
        ])
    );
    assert_eq!(result["structuredContent"], json!({"quarter": 3}));
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn images_over_the_output_limit_are_left_out_with_a_notice() {
    let mut client = client(1_000).await;
    let called = client
        .request(1, "tools/call", json!({"name": "large"}))
        .await;
    let content = &called["result"]["content"];
    assert_eq!(content.as_array().map(Vec::len), Some(1), "{content}");
    let notice = content[0]["text"].as_str().unwrap_or_default();
    assert!(
        notice.starts_with("[Output truncated: 1 of 1 parts left out"),
        "{notice}"
    );
    assert_eq!(called["result"]["isError"], Value::Bool(false));
    assert!(client.close().await.is_empty());
}
