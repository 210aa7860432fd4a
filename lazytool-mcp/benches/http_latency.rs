//! Latency of one tool call over MCP streamable HTTP against the same call in process, all
//! measured in one run: `cargo bench -p lazytool-mcp --bench http_latency [-- CALLS]`.
//!
//! The call runs `calculateFinancing` through `__lazy__tool__call__`, as a stateless
//! (2026-07-28) client does: in process, `session.call` on a fresh call-through session per
//! call (what the server builds per request); over HTTP, a `tools/call` POST answered as JSON,
//! from 1 client, then from 50 concurrent clients, each a keep-alive connection of its own.
//! The clients run in the same process as the server, on the same cores. Prints p50 and p99 of
//! each and their ratios to in process. `cargo bench` (which passes `--bench`) makes 1,000
//! calls per path; without arguments (as `cargo test --benches` runs it) 50.

use std::time::{Duration, Instant};

use lazytool_mcp::McpServer;
use lazytool_runtime::{CALL_THROUGH_TOOL_NAME, CancellationToken, Registry, SessionOptions, tool};
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

        let local = percentiles(in_process(&registry, calls).await);
        let one = percentiles(over_http(&url, 1, calls).await);
        let many = percentiles(over_http(&url, CLIENTS, (calls / CLIENTS).max(1)).await);
        stop.cancel();

        println!("| path | calls | p50 (µs) | p99 (µs) | p50 / in process | p99 / in process |");
        println!("|---|---:|---:|---:|---:|---:|");
        for (path, count, (p50, p99)) in [
            ("in process", calls, local),
            ("HTTP, 1 client", calls, one),
            (
                "HTTP, 50 concurrent clients",
                CLIENTS * (calls / CLIENTS).max(1),
                many,
            ),
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
