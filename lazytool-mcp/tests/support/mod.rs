//! What the tests of the MCP server over in-memory pipes share: a client speaking raw
//! JSON-RPC lines, and readers of its answers.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use lazytool_mcp::{McpError, McpServer};

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;

pub const TIMEOUT: Duration = Duration::from_secs(10);
pub const NEWEST: &str = "2026-07-28";

/// A client end of a connection, reading the server's lines.
pub struct Client {
    pub lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    pub writer: WriteHalf<DuplexStream>,
    pub server: JoinHandle<Result<(), McpError>>,
    /// Notifications read while waiting for responses.
    pub notifications: Vec<Value>,
}

impl Client {
    pub fn connect(server: McpServer) -> Client {
        let (client, served) = tokio::io::duplex(64 * 1024);
        let (server_reader, server_writer) = tokio::io::split(served);
        let server = tokio::spawn(async move { server.serve(server_reader, server_writer).await });
        let (reader, writer) = tokio::io::split(client);
        Client {
            lines: BufReader::new(reader).lines(),
            writer,
            server,
            notifications: Vec::new(),
        }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("server reads");
        self.writer.write_all(b"\n").await.expect("server reads");
    }

    pub async fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes()).await;
    }

    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(TIMEOUT, self.lines.next_line())
            .await
            .expect("the server answers in time")
            .expect("readable")
            .expect("the server is still writing");
        serde_json::from_str(&line).expect("the server writes JSON lines")
    }

    /// The next response or error, keeping the notifications that come before it.
    pub async fn response(&mut self) -> Value {
        loop {
            let message = self.next().await;
            if message.get("id").is_some() {
                return message;
            }
            self.notifications.push(message);
        }
    }

    pub async fn request(&mut self, id: u32, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let response = self.response().await;
        assert_eq!(response["id"], json!(id), "{response}");
        response
    }

    pub async fn initialize(&mut self, version: &str) -> Value {
        let params = json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        });
        let response = self.request(0, "initialize", params).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    /// Closes the input, waits for the server to stop, and returns what it wrote last.
    pub async fn close(mut self) -> Vec<Value> {
        self.writer.shutdown().await.expect("closable");
        let served = tokio::time::timeout(TIMEOUT, self.server).await;
        served
            .expect("the server stops")
            .expect("no panic")
            .expect("served cleanly");
        let mut rest = Vec::new();
        while let Some(line) = self.lines.next_line().await.expect("readable") {
            rest.push(serde_json::from_str(&line).expect("the server writes JSON lines"));
        }
        rest
    }
}

pub async fn eventually(condition: impl Fn() -> bool) {
    let wait = async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, wait).await.expect("in time");
}

/// Request `_meta` of protocol 2026-07-28, which has no handshake.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": NEWEST,
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

pub fn tool_names(response: &Value) -> Vec<&str> {
    let tools = response["result"]["tools"].as_array().expect("a tool list");
    tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

pub fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}
