//! The MCP server over in-memory pipes, speaking raw JSON-RPC lines: the newest protocol
//! (2026-07-28, no handshake, stateless, calls through), the 2025-11-25 handshake, structured
//! output and annotations, cancellation, and hostile input that must always be answered.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use lazytool_mcp::McpServer;
use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, CancellationToken, DISCOVERY_TOOL_NAME, Registry, ToolContext, tool,
};
use serde::Serialize;
use serde_json::{Value, json};

mod support;

use support::{Client, NEWEST, eventually, meta, text, tool_names};

#[derive(Serialize, schemars::JsonSchema)]
struct Product {
    id: u32,
    price: f64,
}

/// Lists the products.
#[tool(name = "getProducts", output_schema, read_only, title = "Products")]
async fn get_products() -> Vec<Product> {
    vec![Product {
        id: 1,
        price: 499.0,
    }]
}

/// Totals of the catalog.
#[derive(Serialize, schemars::JsonSchema)]
struct Totals {
    count: u32,
}

/// Counts the products.
#[tool(name = "countProducts", output_schema, idempotent, open_world = false)]
async fn count_products() -> Totals {
    Totals { count: 1 }
}

/// Always fails.
#[tool]
async fn broken() -> Result<u32, String> {
    Err("the warehouse is closed".to_owned())
}

/// Always panics.
#[tool]
async fn explode() -> u32 {
    panic!("boom")
}

static WAIT_TOKEN: OnceLock<CancellationToken> = OnceLock::new();
static WAIT_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits forever.
#[tool]
async fn wait(ctx: ToolContext) -> bool {
    let _dropped = SetOnDrop(&WAIT_DROPPED);
    WAIT_TOKEN.get_or_init(|| ctx.cancellation().clone());
    std::future::pending().await
}

/// Tells the call's id.
#[tool(name = "whoAmI")]
async fn who_am_i(ctx: ToolContext) -> Option<String> {
    ctx.call_id().map(str::to_owned)
}

/// Calculates a monthly payment.
#[tool(lazy, name = "calculateFinancing")]
async fn calculate_financing(price: f64, months: u32) -> f64 {
    price / f64::from(months)
}

/// Compares products.
#[tool(lazy, name = "compareProducts")]
async fn compare_products(ids: Vec<u32>) -> Vec<u32> {
    ids
}

fn server() -> McpServer {
    McpServer::new(Registry::from_inventory().expect("valid tools"))
}

#[tokio::test]
async fn newest_protocol_is_stateless_and_calls_through() {
    let mut client = Client::connect(server());
    let discovered = client
        .request(1, "server/discover", json!({"_meta": meta()}))
        .await;
    let versions = &discovered["result"]["supportedVersions"];
    assert!(
        versions
            .as_array()
            .expect("versions")
            .contains(&json!(NEWEST)),
        "{discovered}"
    );

    let listed = client
        .request(2, "tools/list", json!({"_meta": meta()}))
        .await;
    assert_eq!(
        tool_names(&listed),
        [
            "broken",
            "countProducts",
            "explode",
            "getProducts",
            "wait",
            "whoAmI",
            DISCOVERY_TOOL_NAME,
            CALL_THROUGH_TOOL_NAME
        ]
    );
    assert_eq!(listed["result"]["ttlMs"], json!(300_000), "{listed}");
    assert_eq!(listed["result"]["cacheScope"], json!("private"), "{listed}");

    // A listen request is acknowledged, and never told of a change: there is none.
    let listen = json!({"_meta": meta(), "notifications": {"toolsListChanged": true}});
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen", "params": listen}),
        )
        .await;
    let acknowledged = client.next().await;
    assert_eq!(
        acknowledged["method"],
        json!("notifications/subscriptions/acknowledged")
    );

    let arguments = json!({"toolNames": ["calculateFinancing"]});
    let params = json!({"_meta": meta(), "name": DISCOVERY_TOOL_NAME, "arguments": arguments});
    let discovery = client.request(4, "tools/call", params).await;
    assert_eq!(discovery["result"]["isError"], json!(false), "{discovery}");
    let found: Value = serde_json::from_str(text(&discovery)).expect("JSON");
    assert!(
        found["howToCall"]
            .as_str()
            .is_some_and(|how| how.contains(CALL_THROUGH_TOOL_NAME))
    );
    assert!(
        client.notifications.is_empty(),
        "{:?}",
        client.notifications
    );

    let again = client
        .request(5, "tools/list", json!({"_meta": meta()}))
        .await;
    assert_eq!(again["result"], listed["result"], "the list never changes");
    let arguments =
        json!({"name": "calculateFinancing", "arguments": {"price": 480.0, "months": 12}});
    let params = json!({"_meta": meta(), "name": CALL_THROUGH_TOOL_NAME, "arguments": arguments});
    let called = client.request(6, "tools/call", params).await;
    assert_eq!(text(&called), "40.0");
    let arguments =
        json!({"name": "calculateFinancing", "arguments": {"price": "free", "months": 12}});
    let params = json!({"_meta": meta(), "name": CALL_THROUGH_TOOL_NAME, "arguments": arguments});
    let invalid = client.request(7, "tools/call", params).await;
    assert_eq!(invalid["result"]["isError"], json!(true), "{invalid}");
    assert!(text(&invalid).contains("/price"), "{invalid}");
    let arguments = json!({"name": "nope"});
    let params = json!({"_meta": meta(), "name": CALL_THROUGH_TOOL_NAME, "arguments": arguments});
    let unknown = client.request(8, "tools/call", params).await;
    assert_eq!(unknown["result"]["isError"], json!(true), "{unknown}");
    assert!(
        text(&unknown).contains("calculateFinancing, compareProducts"),
        "{unknown}"
    );
    // Closing the input ends the listen request at once, with its final result.
    let [ended] = client.close().await.try_into().expect("one last message");
    assert_eq!(
        (&ended["id"], &ended["result"]["resultType"]),
        (&json!(3), &json!("complete"))
    );
}

#[tokio::test]
async fn handshake_then_annotations_output_schemas_and_errors() {
    let mut client = Client::connect(server());
    let initialized = client.initialize("2025-11-25").await;
    assert_eq!(
        initialized["result"]["protocolVersion"],
        json!("2025-11-25")
    );

    let listed = client.request(1, "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let get_products = &tools[3];
    assert_eq!(get_products["title"], json!("Products"));
    assert_eq!(
        get_products["annotations"],
        json!({"title": "Products", "readOnlyHint": true})
    );
    // A list is not an object: MCP gets it wrapped under `result`.
    let output = &get_products["outputSchema"];
    assert_eq!(output["type"], json!("object"));
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["properties"]["result"]["type"], json!("array"));
    let count = &tools[1];
    assert_eq!(
        count["annotations"],
        json!({"idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        count["outputSchema"]["properties"]["count"]["type"],
        json!("integer")
    );
    assert!(tools[0].get("annotations").is_none() && tools[0].get("outputSchema").is_none());

    let products = client
        .request(2, "tools/call", json!({"name": "getProducts"}))
        .await;
    let structured = json!({"result": [{"id": 1, "price": 499.0}]});
    assert_eq!(products["result"]["structuredContent"], structured);
    assert_eq!(
        serde_json::from_str::<Value>(text(&products)).ok(),
        Some(structured)
    );
    let count = client
        .request(3, "tools/call", json!({"name": "countProducts"}))
        .await;
    assert_eq!(count["result"]["structuredContent"], json!({"count": 1}));

    for (id, name) in [(4, "broken"), (5, "explode")] {
        let failed = client
            .request(id, "tools/call", json!({"name": name}))
            .await;
        assert_eq!(failed["result"]["isError"], json!(true), "{failed}");
    }
    let broken = client
        .request(6, "tools/call", json!({"name": "broken"}))
        .await;
    assert_eq!(text(&broken), "the warehouse is closed");
    let params = json!({"name": "whoAmI"});
    client
        .send(json!({"jsonrpc": "2.0", "id": "call-12", "method": "tools/call", "params": params}))
        .await;
    assert_eq!(text(&client.response().await), "call-12");

    let params = json!({"name": "calculateFinancing", "arguments": {"price": 1.0, "months": 1}});
    let early = client.request(7, "tools/call", params).await;
    assert!(text(&early).contains("must be discovered first"), "{early}");
    let unknown = client
        .request(8, "tools/call", json!({"name": "nope"}))
        .await;
    assert_eq!(unknown["error"]["code"], json!(-32602), "{unknown}");
    // Only tools are offered: other lists are unknown methods, not empty lists.
    let prompts = client.request(12, "prompts/list", json!({})).await;
    assert_eq!(prompts["error"]["code"], json!(-32601), "{prompts}");

    let params =
        json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["compareProducts"]}});
    client.request(9, "tools/call", params).await;
    let changed = client.notifications.pop().expect("tools/list_changed");
    assert_eq!(changed["method"], json!("notifications/tools/list_changed"));
    client.request(10, "tools/list", json!({})).await;
    let params = json!({"name": "compareProducts", "arguments": {"ids": "1,2"}});
    let invalid = client.request(11, "tools/call", params).await;
    assert_eq!(invalid["result"]["isError"], json!(true), "{invalid}");
    assert!(text(&invalid).contains("ids"), "{invalid}");
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn cancellation_stops_the_call() {
    let mut client = Client::connect(server());
    client.initialize("2025-11-25").await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait"}}),
        )
        .await;
    eventually(|| WAIT_TOKEN.get().is_some()).await;
    let cancel = json!({"requestId": 1, "reason": "the user gave up"});
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}))
        .await;
    // No answer to a cancelled request: the next response is the ping's.
    let pong = client.request(2, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    // The tool's token is cancelled and its future dropped.
    eventually(|| WAIT_DROPPED.load(Ordering::SeqCst)).await;
    assert!(
        WAIT_TOKEN
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    );
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn hostile_input_is_answered_and_the_server_keeps_serving() {
    let mut client = Client::connect(server());
    // A stray notification before the handshake would make rmcp hang up.
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    client.initialize("2025-11-25").await;

    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{{"name":"x","arguments":{{"s":"{}"}}}}}}"#,
        "a".repeat(6 * 1024 * 1024)
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: [(&[u8], Value, i64); 6] = [
        (huge.as_bytes(), json!("big"), -32600),
        (deep.as_bytes(), json!(7), -32700),
        (b"this is not json", Value::Null, -32700),
        (
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/list""#,
            json!(9),
            -32700,
        ),
        (
            br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}}"#,
            json!(10),
            -32602,
        ),
        (br#"{"jsonrpc":"2.0","id":11}"#, json!(11), -32600),
    ];
    for (line, id, code) in cases {
        client.send_raw(line).await;
        let reply = client.response().await;
        assert_eq!(
            (&reply["id"], &reply["error"]["code"]),
            (&id, &json!(code)),
            "{reply}"
        );
        let pong = client.request(1, "ping", json!({})).await;
        assert_eq!(pong["result"], json!({}));
    }
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn the_line_limit_is_configurable_and_connections_are_separate() {
    let server = server().max_line_bytes(300);
    let mut first = Client::connect(server.clone());
    let mut second = Client::connect(server);
    first.initialize("2025-11-25").await;
    second.initialize("2025-11-25").await;

    let padding = "x".repeat(300);
    let long =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"pad": padding}}});
    first.send(long).await;
    let reply = first.response().await;
    assert_eq!(
        (&reply["id"], &reply["error"]["code"]),
        (&json!(1), &json!(-32600))
    );

    let arguments = json!({"toolNames": ["calculateFinancing"]});
    first
        .request(
            2,
            "tools/call",
            json!({"name": DISCOVERY_TOOL_NAME, "arguments": arguments}),
        )
        .await;
    let first_tools = first.request(3, "tools/list", json!({})).await;
    let second_tools = second.request(3, "tools/list", json!({})).await;
    assert!(tool_names(&first_tools).contains(&"calculateFinancing"));
    assert!(!tool_names(&second_tools).contains(&"calculateFinancing"));
    assert!(first.close().await.is_empty());
    assert!(second.close().await.is_empty());
}
