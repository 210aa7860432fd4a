//! What deciding a principal's limits in Redis adds to a tool call: the same stateless
//! `tools/call` over HTTP (loopback), limited by a rate and a cap in flight, against a server
//! deciding them alone and against one deciding them through a `SharedStore` (one `EVALSHA`
//! round trip to admit, a spawned `ZREM` when the call ends), the two interleaved call by call
//! in one run. `cargo bench -p lazytool-mcp --bench shared_limits [-- CALLS]`; needs
//! `redis-server` (started here on a free port of 127.0.0.1, killed at the end; skipped when
//! absent). `cargo bench` makes 5,000 calls per path; without arguments 50.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::num::NonZeroU32;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lazytool_mcp::{CallQuota, McpServer, PrincipalLimits, Rate, SharedStore};
use lazytool_runtime::{CALL_THROUGH_TOOL_NAME, CancellationToken, Registry, tool};
use serde_json::{Value, json};

/// Calculates a monthly payment.
#[tool(lazy, name = "calculateFinancing")]
async fn calculate_financing(price: f64, months: u32) -> f64 {
    price / f64::from(months)
}

fn body(id: usize) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {
            "name": CALL_THROUGH_TOOL_NAME,
            "arguments": {"name": "calculateFinancing", "arguments": {"price": 480.0, "months": 12}},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string()
}

async fn call(http: &reqwest::Client, url: &str, id: usize) -> Duration {
    let started = Instant::now();
    let reply = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", CALL_THROUGH_TOOL_NAME)
        .body(body(id))
        .send()
        .await
        .expect("the server answers");
    let reply: Value = reply.json().await.expect("a JSON reply");
    let took = started.elapsed();
    assert_eq!(reply["result"]["content"][0]["text"], "40.0", "{reply}");
    took
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

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// `redis-server` on a free port, without persistence; `None` when it is not installed.
fn redis_server() -> Option<(Child, u16)> {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .ok()?
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .arg("--dir")
        .arg(std::env::temp_dir())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((child, port))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let calls: usize = match std::env::args().nth(1) {
        Some(flag) if flag == "--bench" => 5_000,
        Some(calls) => calls.parse()?,
        None => 50,
    };
    let Some((mut redis, port)) = redis_server() else {
        println!("skipped: redis-server is not installed (apt-get install redis-server)");
        return Ok(());
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let measured = runtime.block_on(async {
        let registry = Registry::from_inventory()?;
        let stop = CancellationToken::new();
        // Never refused: every call goes through the whole check (a token, a lease).
        let quota = CallQuota::default()
            .rate(Rate::new(1_000_000.0, 1_000_000)?)
            .max_in_flight(NonZeroU32::new(1_000).unwrap_or(NonZeroU32::MIN));
        let mut urls = Vec::new();
        for shared in [false, true] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            urls.push(format!("http://{}/mcp", listener.local_addr()?));
            let http = McpServer::new(registry.clone())
                .http()
                .principal_limits(PrincipalLimits::new(quota))
                .shutdown_on(stop.clone());
            let http = match shared {
                true => http.shared_store(SharedStore::new(format!("redis://127.0.0.1:{port}"))?),
                false => http,
            };
            tokio::spawn(http.serve_on(listener));
        }
        let client = reqwest::Client::new();
        for id in 0..calls / 10 + 10 {
            for url in &urls {
                call(&client, url, id).await;
            }
        }
        let (mut local, mut shared) = (Vec::new(), Vec::new());
        for id in 0..calls {
            local.push(call(&client, &urls[0], id).await);
            shared.push(call(&client, &urls[1], id).await);
        }
        stop.cancel();
        Ok::<_, Box<dyn std::error::Error>>((percentiles(local), percentiles(shared)))
    });
    redis.kill().ok();
    redis.wait().ok();
    let (local, shared) = measured?;
    println!("| limits decided | calls | p50 (µs) | p99 (µs) |");
    println!("|---|---:|---:|---:|");
    for (path, (p50, p99)) in [("locally", local), ("in Redis (loopback)", shared)] {
        println!(
            "| {path} | {calls} | {:.1} | {:.1} |",
            micros(p50),
            micros(p99)
        );
    }
    println!(
        "| the store adds | | {:.1} | {:.1} |",
        micros(shared.0) - micros(local.0),
        micros(shared.1) - micros(local.1)
    );
    Ok(())
}
