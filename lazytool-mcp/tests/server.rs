//! The MCP server over in-memory pipes, speaking raw JSON-RPC lines: the newest protocol
//! (2026-07-28, no handshake, stateless, calls through), the 2025-11-25 handshake, structured
//! output and annotations, cancellation, and hostile input that must always be answered.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use lazytool_mcp::McpServer;
use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, CancellationToken, DISCOVERY_TOOL_NAME, Registry, ToolContext, tool,
};
use serde::Serialize;
use serde_json::{Value, json};

mod support;

use support::{Client, NEWEST, TIMEOUT, eventually, meta, text, tool_names};
use tokio::io::AsyncWriteExt;

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

/// The tools of the backpressure tests, served on their own.
const LOAD_TOOLS: [&str; 3] = ["gate", "bulky", "whoAmI"];

fn server() -> McpServer {
    let registry = Registry::builder()
        .filter(|spec| spec.name() == "whoAmI" || !LOAD_TOOLS.contains(&spec.name()))
        .build();
    McpServer::new(registry.expect("valid tools"))
}

fn load_server() -> McpServer {
    let registry = Registry::builder()
        .filter(|spec| LOAD_TOOLS.contains(&spec.name()))
        .build();
    McpServer::new(registry.expect("valid tools"))
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
async fn a_discovered_tool_is_callable_at_once_without_a_relist() {
    let mut client = Client::connect(server());
    client.initialize("2025-11-25").await;
    let params = json!({"name": "calculateFinancing", "arguments": {"price": 120.0, "months": 12}});
    let early = client.request(1, "tools/call", params.clone()).await;
    assert_eq!(
        text(&early),
        "Error: Tool 'calculateFinancing' must be discovered first. Call __lazy__tool__discovery__ with toolNames: ['calculateFinancing'] to discover it."
    );
    let discover =
        json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["calculateFinancing"]}});
    let found = client.request(2, "tools/call", discover).await;
    assert_eq!(found["result"]["isError"], json!(false), "{found}");
    // No tools/list in between: the answer already gave the schema.
    let plan = client.request(3, "tools/call", params).await;
    assert_eq!(plan["result"]["isError"], json!(false), "{plan}");
    assert_eq!(text(&plan), "10.0");
    let changed = client.notifications.pop().expect("tools/list_changed");
    assert_eq!(changed["method"], json!("notifications/tools/list_changed"));
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

/// What the backpressure tests count: calls of `gate` started in each lane, and the
/// permits that let them finish.
static GATES: [tokio::sync::Semaphore; 2] = [
    tokio::sync::Semaphore::const_new(0),
    tokio::sync::Semaphore::const_new(0),
];
static STARTED: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];
static BULKY_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Waits until the test opens its lane's gate.
#[tool]
async fn gate(lane: usize) -> usize {
    STARTED[lane].fetch_add(1, Ordering::SeqCst);
    if let Ok(permit) = GATES[lane].acquire().await {
        permit.forget();
    }
    lane
}

/// Returns 90 KB of text.
#[tool]
async fn bulky() -> String {
    BULKY_CALLS.fetch_add(1, Ordering::SeqCst);
    "b".repeat(90_000)
}

fn call(id: usize, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// Gives the server every chance to go on (it must not), then returns `count`'s value.
async fn settled(count: &std::sync::atomic::AtomicUsize) -> usize {
    let mut last = count.load(Ordering::SeqCst);
    let mut unchanged = 0;
    while unchanged < 20 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        let now = count.load(Ordering::SeqCst);
        unchanged = if now == last { unchanged + 1 } else { 0 };
        last = now;
    }
    last
}

#[tokio::test]
async fn at_most_64_requests_are_in_flight_and_no_more_input_is_read() {
    use lazytool_mcp::MAX_REQUESTS_IN_FLIGHT;
    const LANE: usize = 0;
    let mut client = Client::connect(load_server());
    client.initialize("2025-11-25").await;
    // One request over the limit: the first 64 start, the 65th is not even read.
    for id in 1..=MAX_REQUESTS_IN_FLIGHT + 1 {
        client.send(call(id, "gate", json!({"lane": LANE}))).await;
    }
    eventually(|| STARTED[LANE].load(Ordering::SeqCst) == MAX_REQUESTS_IN_FLIGHT).await;
    assert_eq!(settled(&STARTED[LANE]).await, MAX_REQUESTS_IN_FLIGHT);
    // One answered: one more request is read.
    GATES[LANE].add_permits(1);
    let first = client.response().await;
    assert_eq!(first["result"]["content"][0]["text"], "0", "{first}");
    eventually(|| STARTED[LANE].load(Ordering::SeqCst) == MAX_REQUESTS_IN_FLIGHT + 1).await;
    GATES[LANE].add_permits(MAX_REQUESTS_IN_FLIGHT);
    let mut ids = vec![first["id"].as_u64().unwrap_or_default()];
    for _ in 0..MAX_REQUESTS_IN_FLIGHT {
        ids.push(client.response().await["id"].as_u64().unwrap_or_default());
    }
    ids.sort_unstable();
    assert_eq!(
        ids,
        (1..=MAX_REQUESTS_IN_FLIGHT as u64 + 1).collect::<Vec<_>>()
    );
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn a_client_that_does_not_read_cannot_make_the_server_buffer_without_bound() {
    use lazytool_mcp::MAX_REQUESTS_IN_FLIGHT;
    const CALLS: usize = 1_000;
    let mut client = Client::connect(load_server());
    client.initialize("2025-11-25").await;
    let Client {
        lines,
        mut writer,
        server,
        notifications,
    } = client;
    let sending = tokio::spawn(async move {
        for id in 1..=CALLS {
            let line = call(id, "bulky", json!({})).to_string();
            writer
                .write_all(line.as_bytes())
                .await
                .expect("the server reads");
            writer.write_all(b"\n").await.expect("the server reads");
        }
        writer
    });
    // Nothing is read: the server holds at most the answers in flight, the output's queue
    // (64 lines) and the one being written, whatever the client sends.
    let held = settled(&BULKY_CALLS).await;
    assert!(held >= MAX_REQUESTS_IN_FLIGHT, "{held}");
    assert!(
        held <= MAX_REQUESTS_IN_FLIGHT + 64 + 2,
        "{held} answers of 90 KB held"
    );
    assert!(!sending.is_finished(), "the client is made to wait");
    // Once the client reads, every call is answered, each once, and the sender finishes.
    let mut lines = lines;
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < CALLS {
        let line = tokio::time::timeout(TIMEOUT, lines.next_line())
            .await
            .expect("the server answers in time")
            .expect("readable")
            .expect("the server is still writing");
        let response: Value = serde_json::from_str(&line).expect("a JSON line");
        assert_eq!(text(&response).len(), 90_000);
        assert!(answered.insert(response["id"].as_u64().unwrap_or_default()));
    }
    assert_eq!(BULKY_CALLS.load(Ordering::SeqCst), CALLS);
    let writer = sending.await.expect("the sender ends");
    let client = Client {
        lines,
        writer,
        server,
        notifications,
    };
    assert!(client.close().await.is_empty());
}

#[tokio::test]
async fn a_reused_id_in_flight_is_refused_and_out_of_range_ids_are_echoed() {
    const LANE: usize = 1;
    let mut client = Client::connect(load_server());
    client.initialize("2025-11-25").await;
    client.send(call(7, "gate", json!({"lane": LANE}))).await;
    eventually(|| STARTED[LANE].load(Ordering::SeqCst) == 1).await;
    client.send(call(7, "gate", json!({"lane": LANE}))).await;
    let refused = client.response().await;
    assert_eq!(
        (&refused["id"], &refused["error"]["code"]),
        (&json!(7), &json!(-32600)),
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("already used")
    );
    GATES[LANE].add_permits(1);
    let answered = client.response().await;
    assert_eq!(
        (&answered["id"], text(&answered)),
        (&json!(7), "1"),
        "{answered}"
    );
    // Answered, the id is free again.
    let again = client
        .request(7, "tools/call", json!({"name": "whoAmI"}))
        .await;
    assert_eq!(text(&again), "7");

    for id in [
        "9223372036854775808",
        "-9223372036854775809",
        "1.5",
        "1e300",
    ] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#);
        client.send_raw(line.as_bytes()).await;
        let reply = client.response().await;
        let echoed: Value = serde_json::from_str(id).unwrap_or_default();
        assert_eq!(
            (&reply["id"], &reply["error"]["code"]),
            (&echoed, &json!(-32600)),
            "{reply}"
        );
    }
    for id in [i64::MAX, i64::MIN] {
        client
            .send(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        let pong = client.response().await;
        assert_eq!(
            (&pong["id"], &pong["result"]),
            (&json!(id), &json!({})),
            "{pong}"
        );
    }
    assert!(client.close().await.is_empty());
}

/// An id is free from the moment its answer can be read: a client that reuses it at once,
/// while other requests keep the server's threads busy, is never told it is in flight.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_answered_id_is_free_at_once_under_contention() {
    const ROUNDS: usize = 2_000;
    let mut client = Client::connect(load_server());
    client.initialize("2025-11-25").await;
    let mut others = 0;
    for round in 0..ROUNDS {
        client
            .send(call(100_000 + round, "whoAmI", json!({})))
            .await;
        client
            .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .await;
        loop {
            let answer = client.response().await;
            assert!(answer.get("result").is_some(), "round {round}: {answer}");
            if answer["id"] == json!(1) {
                break;
            }
            others += 1;
        }
    }
    while others < ROUNDS {
        let answer = client.response().await;
        assert!(answer.get("result").is_some(), "{answer}");
        others += 1;
    }
    assert!(client.close().await.is_empty());
}
