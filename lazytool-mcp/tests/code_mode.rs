//! Code mode over MCP (`SessionOptions::code_mode`, the feature `code-mode`): a client sees
//! the code tool and discovery, discovery answers with declarations, and one script chains
//! the server's tools; over stdio, stateful and stateless streamable HTTP.
#![cfg(feature = "code-mode")]

use std::net::SocketAddr;

use lazytool_mcp::{McpRequest, McpServer};
use lazytool_runtime::{
    CODE_TOOL_NAME, CancellationToken, CodeMode, DISCOVERY_TOOL_NAME, DynamicTool, Registry,
    SessionOptions,
};
use serde_json::{Value, json};

mod http_support;
mod support;

use http_support::{exchange, in_session, open_session, post};
use support::{Client, NEWEST, tool_names};

/// A script over both tools: the desks (eager), then the stock of each (lazy), concurrently.
const SCRIPT: &str = "const desks = await tools.list_desks();\n\
    const stock = await Promise.all(desks.map((desk) => tools.get_stock({ id: desk.id })));\n\
    return { desks: desks.length, stock: stock.reduce((sum, n) => sum + n, 0) };";

fn server() -> McpServer {
    let desks = DynamicTool::new(
        "list_desks",
        "Lists the desks.",
        json!({"type": "object"}),
        |_, _| async { Ok::<_, String>(json!([{"id": 1}, {"id": 2}, {"id": 3}])) },
    );
    let stock = DynamicTool::new(
        "get_stock",
        "The stock of one desk.",
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        |arguments: Value, _| async move {
            Ok::<_, String>(json!(arguments["id"].as_i64().unwrap_or(0) * 10))
        },
    )
    .lazy(true);
    let registry = Registry::builder()
        .without_inventory()
        .tool(desks)
        .tool(stock)
        .build()
        .expect("valid tools");
    McpServer::new(registry).options(SessionOptions::new().code_mode(CodeMode::new()))
}

fn call(id: u32, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// The answer of a script: its object as `structuredContent` and as JSON text.
fn assert_answer(response: &Value) {
    let result = &response["result"];
    assert_eq!(result["isError"], json!(false), "{response}");
    assert_eq!(
        result["structuredContent"],
        json!({"desks": 3, "stock": 60}),
        "{response}"
    );
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(text).ok(),
        Some(json!({"desks": 3, "stock": 60}))
    );
}

#[tokio::test]
async fn over_stdio_a_script_chains_calls_after_discovery() {
    let mut client = Client::connect(server());
    client.initialize("2025-11-25").await;
    let listed = client.request(1, "tools/list", json!({})).await;
    assert_eq!(tool_names(&listed), [DISCOVERY_TOOL_NAME, CODE_TOOL_NAME]);
    let code = &listed["result"]["tools"][1];
    let description = code["description"].as_str().unwrap_or_default();
    assert!(description.contains("list_desks(args"), "{description}");
    assert!(description.ends_with("get_stock"), "{description}");

    let early = client
        .request(
            2,
            "tools/call",
            json!({"name": CODE_TOOL_NAME, "arguments": {"code": SCRIPT}}),
        )
        .await;
    assert_eq!(early["result"]["isError"], json!(true), "{early}");
    assert!(
        support::text(&early).contains("must be discovered first"),
        "{early}"
    );
    let found = client
        .request(
            3,
            "tools/call",
            json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["get_stock"]}}),
        )
        .await;
    let found = support::text(&found);
    assert!(
        found.contains("get_stock(args: {"),
        "declarations, not schemas: {found}"
    );

    let answered = client
        .request(
            4,
            "tools/call",
            json!({"name": CODE_TOOL_NAME, "arguments": {"code": SCRIPT}}),
        )
        .await;
    assert_answer(&answered);
    let direct = client
        .request(
            5,
            "tools/call",
            json!({"name": "list_desks", "arguments": {}}),
        )
        .await;
    // Code mode alone: a tool called by name is an unknown tool, named the way to call it.
    let refused = direct["error"]["message"].as_str().unwrap_or_default();
    assert!(
        refused.contains("tools run from scripts: call __lazy__code__"),
        "{direct}"
    );
    client.close().await;
}

async fn serve_http() -> (SocketAddr, CancellationToken) {
    let stop = CancellationToken::new();
    let http = server().http().shutdown_on(stop.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("bound");
    tokio::spawn(http.serve_on(listener));
    (addr, stop)
}

#[tokio::test]
async fn over_stateful_http_a_script_chains_calls_after_discovery() {
    let (addr, stop) = serve_http().await;
    let session = open_session(addr, None).await;
    let discover = call(1, DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_stock"]}));
    let found = exchange(addr, &in_session(addr, &session, None, &discover)).await;
    assert_eq!(found.status, 200, "{found:?}");
    let script = call(2, CODE_TOOL_NAME, json!({"code": SCRIPT}));
    let answered = exchange(addr, &in_session(addr, &session, None, &script)).await;
    assert_answer(&answered.message());
    stop.cancel();
}

#[tokio::test]
async fn over_stateless_http_a_script_calls_lazy_tools_without_discovery() {
    let (addr, stop) = serve_http().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": NEWEST,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let headers = [
        ("MCP-Protocol-Version", NEWEST),
        ("Mcp-Method", "tools/list"),
    ];
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let listed = exchange(addr, &post(addr, &headers, &list)).await.message();
    assert_eq!(
        tool_names(&listed),
        [DISCOVERY_TOOL_NAME, CODE_TOOL_NAME],
        "{listed}"
    );

    let mut script = call(2, CODE_TOOL_NAME, json!({"code": SCRIPT}));
    script["params"]["_meta"] = meta;
    let headers = [
        ("MCP-Protocol-Version", NEWEST),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", CODE_TOOL_NAME),
    ];
    let answered = exchange(addr, &post(addr, &headers, &script)).await;
    assert_answer(&answered.message());
    stop.cancel();
}

#[tokio::test]
async fn the_calls_of_a_script_run_for_the_request_of_the_code_tool() {
    let caller = DynamicTool::new(
        "caller",
        "Who sent the request this call runs for.",
        json!({"type": "object"}),
        |_, context| async move {
            let request = McpRequest::of(&context).ok_or("no MCP request")?;
            let sent = request
                .progress(1.0, None, Some("from a script's call"))
                .await;
            let sent = sent.map_err(|error| error.to_string())?;
            Ok::<_, String>(json!({"principal": request.principal().name(), "progress": sent}))
        },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(caller)
        .build()
        .expect("valid tools");
    let server = McpServer::new(registry).options(SessionOptions::new().code_mode(CodeMode::new()));
    let mut client = Client::connect(server);
    client.initialize("2025-11-25").await;
    let script = "return await tools.caller();";
    let params = json!({"name": CODE_TOOL_NAME, "arguments": {"code": script}, "_meta": {"progressToken": "s"}});
    let answered = client.request(1, "tools/call", params).await;
    assert_eq!(
        answered["result"]["structuredContent"],
        json!({"principal": "anonymous", "progress": true}),
        "{answered}"
    );
    assert!(
        client
            .notifications
            .iter()
            .any(|message| message["params"]["message"] == "from a script's call"),
        "{:?}",
        client.notifications
    );
    assert!(client.close().await.is_empty());
}
