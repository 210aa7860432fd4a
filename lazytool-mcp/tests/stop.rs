//! Stopping a stdio-style server on a signal: no more input is read, the call in flight is
//! answered with its real result, and serving returns while the client's end is still open.

use std::time::Duration;

use lazytool_mcp::McpServer;
use lazytool_runtime::{Registry, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Semaphore;

static STARTED: Semaphore = Semaphore::const_new(0);
static RELEASE: Semaphore = Semaphore::const_new(0);
const TIMEOUT: Duration = Duration::from_secs(10);

/// Waits until released.
#[tool]
async fn hold() -> &'static str {
    STARTED.add_permits(1);
    if let Ok(permit) = RELEASE.acquire().await {
        permit.forget();
    }
    "released"
}

#[tokio::test]
async fn a_stop_answers_the_call_in_flight_then_returns() {
    let server = McpServer::new(Registry::from_inventory().expect("valid tools"));
    let (client, connection) = tokio::io::duplex(64 * 1024);
    let (reader, writer) = tokio::io::split(connection);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        let stopped = async {
            stopped.await.unwrap_or_default();
        };
        server.serve_until(reader, writer, stopped).await
    });
    let (output, mut input) = tokio::io::split(client);
    let mut lines = BufReader::new(output).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hold", "arguments": {}}}),
    ] {
        input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("sent");
    }
    let started = tokio::time::timeout(TIMEOUT, STARTED.acquire()).await;
    started.expect("the call starts").expect("open").forget();
    stop.send(()).unwrap_or_default();
    RELEASE.add_permits(1);

    let answered = async {
        loop {
            let line = lines.next_line().await.expect("readable").expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == json!(1) {
                return message;
            }
        }
    };
    let answer = tokio::time::timeout(TIMEOUT, answered)
        .await
        .expect("answered in time");
    assert_eq!(
        answer["result"]["content"][0]["text"], "released",
        "{answer}"
    );
    tokio::time::timeout(TIMEOUT, serving)
        .await
        .expect("serving returns with the client's end still open")
        .expect("the task")
        .expect("no error");
    drop(input);
}
