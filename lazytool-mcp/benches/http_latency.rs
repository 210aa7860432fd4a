//! Latency of one tool call over MCP streamable HTTP against the same call in process, all
//! measured in one run: `cargo bench -p lazytool-mcp --bench http_latency [-- CALLS]`.
//!
//! Stateless (2026-07-28): the call runs `calculateFinancing` through `__lazy__tool__call__`:
//! in process, `session.call` on a fresh call-through session per call (what the server builds
//! per request); over HTTP, a `tools/call` POST answered as JSON. Stateful (2025-11-25): each
//! client initializes a session, discovers `calculateFinancing` once, then calls it by name;
//! each answer is an SSE stream of a priming event and the result (several writes, the case
//! `TCP_NODELAY` is for). Each over HTTP from 1 client, then from 50 concurrent clients, each a
//! keep-alive connection of its own. The clients run in the same process as the server, on the
//! same cores. Prints p50 and p99 of each and their ratios to in process. `cargo bench` (which
//! passes `--bench`) makes 1,000 calls per path; without arguments (as `cargo test --benches`
//! runs it) 50.

use std::time::{Duration, Instant};

use lazytool_mcp::McpServer;
use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, CancellationToken, DISCOVERY_TOOL_NAME, Registry, SessionOptions, tool,
};
use serde_json::{Value, json};

/// Calculates a monthly payment.
#[tool(lazy, name = "calculateFinancing")]
async fn calculate_financing(price: f64, months: u32) -> f64 {
    price / f64::from(months)
}

/// Lists the products.
#[tool(name = "getProducts")]
async fn get_products() -> Vec<u32> {
    vec![1, 2, 3]
}

const CLIENTS: usize = 50;

fn arguments(months: u32) -> Value {
    json!({"name": "calculateFinancing", "arguments": {"price": 480.0, "months": months}})
}

fn body(id: usize) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": CALL_THROUGH_TOOL_NAME,
            "arguments": arguments(12),
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string()
}

/// p50 and p99 of `latencies`.
fn percentiles(mut latencies: Vec<Duration>) -> (Duration, Duration) {
    latencies.sort_unstable();
    let at = |share: f64| {
        let index = ((latencies.len() as f64 * share).ceil() as usize).saturating_sub(1);
        latencies.get(index).copied().unwrap_or_default()
    };
    (at(0.50), at(0.99))
}

async fn in_process(registry: &Registry, calls: usize) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        let session = registry.session_with(SessionOptions::new().call_through(true));
        let result = session.call(CALL_THROUGH_TOOL_NAME, arguments(12)).await;
        assert!(!result.is_error(), "{}", result.text());
        latencies.push(started.elapsed());
    }
    latencies
}

/// Stateless (2026-07-28) calls.
async fn over_http(url: &str, clients: usize, calls_each: usize) -> Vec<Duration> {
    let mut tasks = Vec::new();
    for client in 0..clients {
        let url = url.to_owned();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut latencies = Vec::with_capacity(calls_each);
            for call in 0..calls_each {
                let started = Instant::now();
                let reply = http
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", CALL_THROUGH_TOOL_NAME)
                    .body(body(client * calls_each + call))
                    .send()
                    .await
                    .expect("the server answers");
                let reply: Value = reply.json().await.expect("a JSON reply");
                latencies.push(started.elapsed());
                assert_eq!(reply["result"]["content"][0]["text"], "40.0", "{reply}");
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("a client task"));
    }
    latencies
}

/// The JSON-RPC message of a reply: its body, or the last `data:` of an SSE stream.
fn message(text: &str) -> Value {
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|data| data.starts_with('{'))
        .unwrap_or(text);
    serde_json::from_str(json).unwrap_or_else(|_| panic!("a JSON-RPC message: {text}"))
}

/// One stateful (2025-11-25) client: a session of its own on a keep-alive connection.
struct Stateful {
    http: reqwest::Client,
    url: String,
    session: String,
}

impl Stateful {
    async fn post(&self, session: Option<&str>, message: Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(message.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send().await.expect("the server answers")
    }

    /// Initializes a session, discovers `calculateFinancing` in it and lists the tools.
    async fn open(url: &str) -> Stateful {
        let mut client = Stateful {
            http: reqwest::Client::new(),
            url: url.to_owned(),
            session: String::new(),
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}});
        let reply = client.post(None, initialize).await;
        let session = reply.headers().get("mcp-session-id").expect("a session id");
        client.session = session.to_str().expect("text").to_owned();
        reply.text().await.expect("the handshake");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        client.post(Some(&client.session), initialized).await;
        let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["calculateFinancing"]}}});
        let found = client.post(Some(&client.session), discover).await;
        let found = message(&found.text().await.expect("a body"));
        assert_eq!(found["result"]["isError"], false, "{found}");
        // Listing starts the next turn, in which the discovered tool may be called.
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        client
            .post(Some(&client.session), list)
            .await
            .text()
            .await
            .expect("a list");
        client
    }

    async fn call(&self, id: usize) -> Value {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "calculateFinancing", "arguments": {"price": 480.0, "months": 12}}});
        let reply = self.post(Some(&self.session), call).await;
        message(&reply.text().await.expect("a body"))
    }
}

/// Stateful (2025-11-25) calls.
async fn in_sessions(url: &str, clients: usize, calls_each: usize) -> Vec<Duration> {
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let url = url.to_owned();
        tasks.push(tokio::spawn(async move {
            let client = Stateful::open(&url).await;
            let mut latencies = Vec::with_capacity(calls_each);
            for call in 0..calls_each {
                let started = Instant::now();
                let reply = client.call(call + 3).await;
                latencies.push(started.elapsed());
                assert_eq!(reply["result"]["content"][0]["text"], "40.0", "{reply}");
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("a client task"));
    }
    latencies
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls: usize = match std::env::args().nth(1) {
        Some(flag) if flag == "--bench" => 1_000,
        Some(calls) => calls.parse()?,
        None => 50,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let registry = Registry::from_inventory()?;
        let stop = CancellationToken::new();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/mcp", listener.local_addr()?);
        let http = McpServer::new(registry.clone())
            .http()
            .shutdown_on(stop.clone());
        tokio::spawn(http.serve_on(listener));

        // Warm up both paths (connections, caches, the validator).
        in_process(&registry, calls / 10 + 1).await;
        over_http(&url, CLIENTS, 2).await;
        in_sessions(&url, 2, 2).await;

        let each = (calls / CLIENTS).max(1);
        let local = percentiles(in_process(&registry, calls).await);
        let one = percentiles(over_http(&url, 1, calls).await);
        let many = percentiles(over_http(&url, CLIENTS, each).await);
        let one_stateful = percentiles(in_sessions(&url, 1, calls).await);
        let many_stateful = percentiles(in_sessions(&url, CLIENTS, each).await);
        stop.cancel();

        println!("| path | calls | p50 (µs) | p99 (µs) | p50 / in process | p99 / in process |");
        println!("|---|---:|---:|---:|---:|---:|");
        for (path, count, (p50, p99)) in [
            ("in process", calls, local),
            ("HTTP stateless, 1 client", calls, one),
            ("HTTP stateless, 50 clients", CLIENTS * each, many),
            ("HTTP stateful, 1 client", calls, one_stateful),
            ("HTTP stateful, 50 clients", CLIENTS * each, many_stateful),
        ] {
            println!(
                "| {path} | {count} | {:.1} | {:.1} | {:.0}x | {:.0}x |",
                micros(p50),
                micros(p99),
                micros(p50) / micros(local.0).max(f64::MIN_POSITIVE),
                micros(p99) / micros(local.1).max(f64::MIN_POSITIVE),
            );
        }
        Ok(())
    })
}
